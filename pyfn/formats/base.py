"""What the token formats share: output order, sentence numbering, token spans, losses.

Conventions (FORMATS.md §0): a *sentence string* is the FrameNet text with
trailing whitespace removed; sentence number *k* is the 0-based index of a
distinct sentence string in code-point order; within a sentence, sets follow
pyfn 1.3's ``start#end[#...]#LU#frame`` key (plain string order), then id.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from codecs import BOM_UTF8
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.model import AnnotationSet, Token, tokens
from pyfn.splits.hashing import order_key


def sentence_string(text: str) -> str:
    """The line written for a sentence: FrameNet text, trailing whitespace removed."""
    return text.rstrip()


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line of a UTF-8 text file, 1-based, without its ``\\n`` or
    ``\\r\\n`` (lines end at ``\\n`` only); a UTF-8 BOM at the start is dropped. A file that is not
    UTF-8 raises :class:`PyfnError` naming the file and the first bad line."""
    try:
        with open(path, encoding="utf-8-sig", newline="\n") as handle:
            for lineno, line in enumerate(handle, 1):
                yield lineno, line.removesuffix("\n").removesuffix("\r")
    except UnicodeDecodeError:  # its offsets are those of a decoding chunk: find the line
        raise PyfnError(_not_utf8(path)) from None
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _not_utf8(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            for lineno, raw in enumerate(handle, 1):
                try:
                    (raw.removeprefix(BOM_UTF8) if lineno == 1 else raw).decode("utf-8")
                except UnicodeDecodeError as exc:
                    return f"{path}: not UTF-8 text at line {lineno} ({exc.reason} at byte {exc.start + 1} of the line)"
    except OSError:
        pass
    return f"{path}: not UTF-8 text"


def read_sentences(path: Path) -> list[str]:
    """The sentence strings of a ``{split}.sentences`` file, line *k* = sentence number *k*."""
    return [sentence_string(line) for _, line in text_lines(path)]


def ordered(sets: Iterable[AnnotationSet]) -> list[AnnotationSet]:
    """Sets in output order: sentence string, then pyfn 1.3's order key, then id.

    A :class:`SplitView` is already in that order (no sort).
    """
    if isinstance(sets, SplitView):
        return list(sets.sets)
    return sorted(sets, key=lambda s: (sentence_string(s.sentence.text), order_key(s), s.id))


@dataclass
class SentenceTable:
    """Sentence numbers: one per distinct sentence string, in code-point order.

    A table may cover a contiguous part of a split (a chunk written on its
    own): ``first`` is then the number of ``strings[0]`` in the whole split.
    """

    strings: list[str]
    numbers: dict[str, int]
    fn_ids: dict[str, list[int]]
    first: int = 0

    @classmethod
    def of(cls, sets: Iterable[AnnotationSet], first: int = 0) -> SentenceTable:
        """The table of the sentences of ``sets``, numbered from ``first`` (a :class:`SplitView` has it already)."""
        if isinstance(sets, SplitView):
            return sets.table
        ids: dict[str, set[int]] = {}
        for aset in sets:
            ids.setdefault(sentence_string(aset.sentence.text), set()).add(aset.sentence.id)
        strings = sorted(ids)
        return cls(strings, {s: i for i, s in enumerate(strings, first)}, {s: sorted(ids[s]) for s in strings}, first)

    @classmethod
    def joined(cls, parts: Iterable[SentenceTable]) -> SentenceTable:
        """The table of a whole split from the tables of its consecutive chunks."""
        strings: list[str] = []
        fn_ids: dict[str, list[int]] = {}
        for part in parts:
            if part.first != len(strings):
                raise ValueError(f"chunk tables not consecutive: {part.first} after {len(strings)} sentences")
            strings += part.strings
            fn_ids.update(part.fn_ids)
        return cls(strings, {s: i for i, s in enumerate(strings)}, fn_ids)

    def number(self, aset: AnnotationSet) -> int:
        """The sentence number of ``aset``."""
        return self.numbers[sentence_string(aset.sentence.text)]

    def string(self, number: int) -> str:
        """The sentence string of sentence number ``number``."""
        return self.strings[number - self.first]

    def span(self) -> range:
        """The sentence numbers the table holds."""
        return range(self.first, self.first + len(self.strings))


@dataclass(frozen=True, eq=False)
class SplitView(Sequence[AnnotationSet]):
    """The sets of one split in output order, with their sentence table and
    the sentence number of each set, computed once and shared by every writer.

    A sequence of the ordered sets: pass it wherever sets are expected;
    :func:`ordered` and :meth:`SentenceTable.of` return what it holds.
    """

    sets: tuple[AnnotationSet, ...]
    table: SentenceTable
    numbers: tuple[int, ...]
    """``numbers[i]`` is the sentence number of ``sets[i]``."""

    @classmethod
    def of(cls, sets: Iterable[AnnotationSet], first: int = 0, *, in_order: bool = False) -> SplitView:
        """The view of ``sets`` (``sets`` itself when it is one); sentences numbered from
        ``first`` when the sets are a chunk of a split whose first ``first`` sentences come before.
        ``in_order``: the caller knows the sets are in output order (a built split's lines), which
        are then not sorted again."""
        if isinstance(sets, SplitView):
            return sets
        items = tuple(sets) if in_order else tuple(ordered(sets))
        table = SentenceTable.of(items, first)
        numbers = table.numbers
        return cls(items, table, tuple(numbers[sentence_string(s.sentence.text)] for s in items))

    def __len__(self) -> int:
        return len(self.sets)

    def __getitem__(self, index):  # type: ignore[override]
        return self.sets[index]

    def __iter__(self) -> Iterator[AnnotationSet]:
        return iter(self.sets)


_START = attrgetter("start")
_END = attrgetter("end")


def token_span(toks: Sequence[Token], start: int, end: int) -> tuple[int, int, bool]:
    """Indices of the first and last token touched by ``start..end`` (inclusive).

    The boolean is False when the span does not fall on token boundaries
    (a partial-token label, rounded to whole tokens: a format loss).
    """
    after = bisect_left(toks, start, key=_END)  # the first token ending at or after ``start``
    before = bisect_right(toks, end, key=_START)  # one past the last token starting at or before ``end``
    if after == len(toks) or before == 0 or toks[after].index > toks[before - 1].index:
        raise ValueError(f"span {start}-{end} covers no token")
    first, last = toks[after].index, toks[before - 1].index
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
