"""Named filters (SPLITS.md step 4): a registry of predicates that remove train sets."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pyfn.errors import UsageError
from pyfn.model import AnnotationSet, Span


class SetView(NamedTuple):
    """What the filters look at in an annotation set (made from the XML's rows by
    :mod:`pyfn.splits.parsed`, without model objects)."""

    text: str
    """The sentence text."""
    target: tuple[Span, ...]
    """The target's character spans, sorted (:attr:`~pyfn.model.AnnotationSet.target`)."""
    overt_fes: Sequence[tuple[int, str, int, int]]
    """``(rank, name, start, end)`` of every FE label that covers text, in layer order."""

    @classmethod
    def of(cls, aset: AnnotationSet) -> SetView:
        """The view of an :class:`~pyfn.model.AnnotationSet`."""
        return cls(aset.sentence.text, aset.target,
                   [(rank, lb.name, lb.start, lb.end) for rank, lb in aset.overt_fes])  # type: ignore[misc]


@dataclass(frozen=True)
class Filter:
    """A named filter: ``removes(view)`` is True for a set (seen as a :class:`SetView`) the filter drops."""

    name: str
    description: str
    removes: Callable[[SetView], bool]


def _overlap_fes(aset: SetView) -> bool:
    spans = sorted((start, end) for _, _, start, end in aset.overt_fes)
    return any(spans[i + 1][0] <= spans[i][1] for i in range(len(spans) - 1))


def _disc_fes(aset: SetView) -> bool:
    seen: set[tuple[int, str]] = set()
    for rank, name, _, _ in aset.overt_fes:
        if (rank, name) in seen:
            return True
        seen.add((rank, name))
    return False


def _disc_targets(aset: SetView) -> bool:
    spans = aset.target
    return any(spans[i + 1][0] - spans[i][1] - 1 > 1 for i in range(len(spans) - 1))


def _no_fes(aset: SetView) -> bool:
    return not aset.overt_fes


def _non_breaking_spaces(aset: SetView) -> bool:
    return "\u00a0" in aset.text


FILTERS: dict[str, Filter] = {
    f.name: f
    for f in (
        Filter("overlap_fes", "two overt FE labels (any rank) share a character", _overlap_fes),
        Filter("disc_fes", "an FE occurs as several discontinuous spans in one layer rank", _disc_fes),
        Filter(
            "disc_targets",
            "a target of several spans with more than one character between consecutive spans",
            _disc_targets,
        ),
        Filter("no_fes", "no overt FE label (null instantiations do not count)", _no_fes),
        Filter("non_breaking_spaces", "sentence text holds U+00A0", _non_breaking_spaces),
    )
}


def get_filters(names: Iterable[str]) -> tuple[Filter, ...]:
    """The filters named, in registry order; an unknown name is a usage error."""
    wanted = set(names)
    unknown = sorted(wanted - FILTERS.keys())
    if unknown:
        raise UsageError(f"unknown filter {', '.join(unknown)} (known: {', '.join(FILTERS)})")
    return tuple(f for name, f in FILTERS.items() if name in wanted)
