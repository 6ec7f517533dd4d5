"""Named filters (SPLITS.md step 4): a registry of predicates that remove train sets."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pyfn.errors import UsageError
from pyfn.model import AnnotationSet


@dataclass(frozen=True)
class Filter:
    """A named filter: ``removes(aset)`` is True for a set the filter drops."""

    name: str
    description: str
    removes: Callable[[AnnotationSet], bool]


def _overlap_fes(aset: AnnotationSet) -> bool:
    spans = sorted(lb.span for _, lb in aset.overt_fes)
    return any(spans[i + 1][0] <= spans[i][1] for i in range(len(spans) - 1))


def _disc_fes(aset: AnnotationSet) -> bool:
    seen: set[tuple[int, str]] = set()
    for rank, label in aset.overt_fes:
        if (rank, label.name) in seen:
            return True
        seen.add((rank, label.name))
    return False


def _disc_targets(aset: AnnotationSet) -> bool:
    spans = aset.target
    return any(spans[i + 1][0] - spans[i][1] - 1 > 1 for i in range(len(spans) - 1))


def _no_fes(aset: AnnotationSet) -> bool:
    return not aset.overt_fes


def _non_breaking_spaces(aset: AnnotationSet) -> bool:
    return "\u00a0" in aset.sentence.text


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
