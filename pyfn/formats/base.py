"""What the token formats share: output order, sentence numbering, token spans, losses.

Conventions (FORMATS.md §0): a *sentence string* is the FrameNet text with
trailing whitespace removed; sentence number *k* is the 0-based index of a
distinct sentence string in code-point order; within a sentence, sets follow
pyfn 1.3's ``start#end[#...]#LU#frame`` key (plain string order), then id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field

from pyfn.model import AnnotationSet, Token, tokens
from pyfn.splits.hashing import order_key


def sentence_string(text: str) -> str:
    """The line written for a sentence: FrameNet text, trailing whitespace removed."""
    return text.rstrip()


def ordered(sets: Iterable[AnnotationSet]) -> list[AnnotationSet]:
    """Sets in output order: sentence string, then pyfn 1.3's order key, then id."""
    return sorted(sets, key=lambda s: (sentence_string(s.sentence.text), order_key(s), s.id))


@dataclass
class SentenceTable:
    """Sentence numbers: one per distinct sentence string, in code-point order."""

    strings: list[str]
    numbers: dict[str, int]
    fn_ids: dict[str, list[int]]

    @classmethod
    def of(cls, sets: Iterable[AnnotationSet]) -> SentenceTable:
        """The table of the sentences of ``sets``."""
        ids: dict[str, set[int]] = {}
        for aset in sets:
            ids.setdefault(sentence_string(aset.sentence.text), set()).add(aset.sentence.id)
        strings = sorted(ids)
        return cls(strings, {s: i for i, s in enumerate(strings)}, {s: sorted(ids[s]) for s in strings})

    def number(self, aset: AnnotationSet) -> int:
        """The sentence number of ``aset``."""
        return self.numbers[sentence_string(aset.sentence.text)]


def token_span(toks: Sequence[Token], start: int, end: int) -> tuple[int, int, bool]:
    """Indices of the first and last token touched by ``start..end`` (inclusive).

    The boolean is False when the span does not fall on token boundaries
    (a partial-token label, rounded to whole tokens: a format loss).
    """
    first = next((t.index for t in toks if t.end >= start), None)
    last = next((t.index for t in reversed(toks) if t.start <= end), None)
    if first is None or last is None or first > last:
        raise ValueError(f"span {start}-{end} covers no token")
    exact = toks[first].start == start and toks[last].end == end
    return first, last, exact


def index_runs(indices: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of adjacent token indices (sorted input), as ``(first, last)``."""
    runs: list[tuple[int, int]] = []
    for i in indices:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def run_spans(toks: Sequence[Token], indices: Iterable[int]) -> list[tuple[int, int]]:
    """Character spans of the maximal runs of adjacent token ``indices`` (sorted input)."""
    return [(toks[a].start, toks[b].end) for a, b in index_runs(indices)]


@dataclass
class Losses:
    """What a format could not hold, counted by reason (recorded in the manifest)."""

    counts: Counter = field(default_factory=Counter)

    def add(self, reason: str, n: int = 1) -> None:
        """Count ``n`` losses of kind ``reason``."""
        self.counts[reason] += n

    def as_dict(self) -> dict[str, int]:
        """Losses by reason, sorted."""
        return dict(sorted(self.counts.items()))


def sentence_tokens(aset: AnnotationSet) -> tuple[Token, ...]:
    """The whitespace tokens of a set's sentence."""
    return tokens(aset.sentence.text)


def token_view(aset: AnnotationSet, ranks: Container[int] | None = None) -> tuple:
    """A set as token formats see it: sentence string, frame, LU, target token
    indices, and sorted ``(FE name, first token, last token)`` of its overt FE
    labels (of the layer ``ranks`` given, every rank when None).

    Two sets with equal views are the same for SEMAFOR, BIOS and CoNLL files;
    round-trip tests compare views.
    """
    toks = sentence_tokens(aset)
    target = sorted(
        {i for s, e in aset.target for i in range(token_span(toks, s, e)[0], token_span(toks, s, e)[1] + 1)}
    )
    fes = sorted(
        (lb.name, *token_span(toks, lb.start, lb.end)[:2])
        for rank, lb in aset.overt_fes
        if ranks is None or rank in ranks
    )
    return (sentence_string(aset.sentence.text), aset.frame_name, aset.lu_name, tuple(target), tuple(fes))
