"""SEMAFOR files: ``{split}.sentences`` plus ``{split}.frame.elements`` or ``{split}.frames``.

One TAB-separated line per annotation set (FORMATS.md §2.1; columns 0-based):
rank, score, count (1 + number of FE pairs), frame, LU, target token indices
(``_``-joined), target words, sentence number, then FE name / token span pairs
(``a`` or ``a:b``, inclusive). Sentence number *k* is line *k* of
``{split}.sentences``.

Projections made by the writer (every one counted in a :class:`Losses`):
FE layers of every rank are merged into one list of pairs (U3, as pyfn 1.3);
null instantiations are not written; a partial-token FE label is rounded to
whole tokens (``partial_token_fe``); a sentence whose whitespace is not single
U+0020 spaces is written as its tokens joined by single spaces when space
normalization applies (``normalized_space``, U6). The target column uses the
``list`` encoding of SEMAFOR's code (every target token, gaps not filled, U1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import write_lines
from pyfn.framenet import compiled
from pyfn.formats.base import (
    Losses,
    SentenceTable,
    SplitView,
    index_runs,
    sentence_string,
    text_lines,
    token_span,
)
from pyfn.model import AnnotationSet, Label, Layer, Sentence, Token, TokenAnnotation, tokens

TARGET_ENCODINGS = ("list", "range")
"""``list``: every target token (SEMAFOR); ``range``: first and last token, filled (pyfn 1.3, Open-SESAME)."""
GOLD_RANK = "1"
GOLD_SCORE = "0.0"
READ_STATUS = ""
"""Status of the sets the reader builds: SEMAFOR files hold none."""

_BAD_CHARS = re.compile(r"[\t\r\n]")
_INT = re.compile(r"[+-]?[0-9]+")
_INDEX = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NaN|[+-]?Infinity")
semafor_line_c = compiled.WRITE_MODULE.semafor_line if compiled.WRITE_MODULE is not None else None
"""The compiled twin of :func:`frame_line` (None when not used: :data:`pyfn.framenet.compiled.WRITER` says why)."""
sentence_lines_c = compiled.WRITE_MODULE.sentence_lines if compiled.WRITE_MODULE is not None else None
"""The compiled twin of :func:`_sentence_lines`' loop (None when not used)."""
_MAX_DIGITS = 100
"""Longer numbers are refused as malformed (Python's ``int`` refuses strings over 4,300 digits)."""


# --------------------------------------------------------------------------- writer


def _checked(value: str, what: str, aset: AnnotationSet) -> str:
    """``value`` unchanged; a :class:`PyfnError` when it holds a TAB, CR or LF."""
    if _BAD_CHARS.search(value):
        raise PyfnError(
            f"annotation set {aset.id}: {what} {value!r} contains a TAB, CR or LF, which a SEMAFOR line cannot hold"
        )
    return value


def _sentence_lines(
    table: SentenceTable, sets: Sequence[AnnotationSet], normalize_space: bool | None, losses: Losses
) -> list[str] | list[bytes]:
    """The ``.sentences`` lines; normalized where asked (by default: sentences of exemplar sets). The
    compiled twin (:data:`sentence_lines_c`) gives them all as one UTF-8 item, or declines."""
    if normalize_space is None:
        normalize = {sentence_string(s.sentence.text) for s in sets if s.source == "exemplar"}
    else:
        normalize = set(table.strings) if normalize_space else set()
    done = sentence_lines_c(table.strings, normalize) if sentence_lines_c is not None else None
    if done is not None:
        joined, changed = done
        if changed:
            losses.add("normalized_space", changed)
        return [joined[:-1]] if joined else []  # write_lines ends each item with a newline
    lines = []
    for string in table.strings:
        line = string
        if string in normalize:
            line = " ".join(string.split())
            if line != string:
                losses.add("normalized_space")
        if "\n" in line or "\r" in line:
            raise PyfnError(
                f"sentence {table.fn_ids[string]} {line!r} contains a CR or LF, which a .sentences line cannot hold"
            )
        lines.append(line)
    return lines


def write_sentences(
    directory: Path, split: str, sets: Sequence[AnnotationSet], *, losses: Losses, normalize_space: bool | None = None
) -> Path:
    """Write ``{split}.sentences`` alone (for BIOS and CoNLL output); return its path."""
    view = SplitView.of(sets)
    path = Path(directory) / f"{split}.sentences"
    write_lines(path, _sentence_lines(view.table, view.sets, normalize_space, losses))
    return path


LEMMA_TAGS_SUFFIX = ".sentences.conllx.flattened"
"""pyfn 1.3's name of SEMAFOR's ``all.lemma.tags`` file: ``{split}.sentences.conllx.flattened``."""


def _tag_field(value: object, what: str, number: int) -> str:
    text = "_" if value is None else str(value)
    if not text or _BAD_CHARS.search(text):
        raise PyfnError(f"sentence {number}: {what} {text!r} cannot be written in an all.lemma.tags line")
    return text


def lemma_tags_line(number: int, words: Sequence[str], analysis: Sequence[TokenAnnotation]) -> str:
    """One ``all.lemma.tags`` line (FORMATS.md §2.6): n, then forms, POS (XPOS), dependency
    labels, heads (1-based, 0 = root), NE tags (``O``) and lemmas, each group of n fields."""
    groups = [
        list(words),
        [_tag_field(a.xpos, "POS", number) for a in analysis],
        [_tag_field(a.deprel, "DEPREL", number) for a in analysis],
        [_tag_field(a.head, "HEAD", number) for a in analysis],
        ["O"] * len(words),
        [_tag_field(a.lemma, "LEMMA", number) for a in analysis],
    ]
    return "\t".join([str(len(words)), *(field for group in groups for field in group)])


def write_lemma_tags(path: Path, strings: Sequence[str], analyses: Sequence[Sequence[TokenAnnotation]]) -> Path:
    """Write SEMAFOR's parse input: line *k* for sentence string *k* with its analysis (atomically)."""
    for number, analysis in enumerate(analyses):
        if any(a.head is None for a in analysis):
            raise PyfnError(f"{path}: sentence {number} has no dependency parse; SEMAFOR needs one")
    write_lines(path, (lemma_tags_line(k, s.split(), a) for k, (s, a) in enumerate(zip(strings, analyses))))
    return path


def _span_field(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}:{last}"


def frame_line(
    aset: AnnotationSet, sentence_number: int, *, with_fes: bool, losses: Losses, toks: Sequence[Token] | None = None
) -> str:
    """The SEMAFOR line of ``aset`` (no newline): rank ``1``, score ``0.0``, ``list`` target encoding.

    With ``with_fes`` the overt FE labels of every rank follow as pairs, in FN label order.
    """
    toks = tokens(aset.sentence.text) if toks is None else toks
    try:
        target: set[int] = set()
        for start, end in aset.target:
            first, last, exact = token_span(toks, start, end)
            if not exact:
                losses.add("partial_token_target")
            target.update(range(first, last + 1))
        pairs: list[str] = []
        if with_fes:
            for _rank, label in aset.overt_fes:
                first, last, exact = token_span(toks, label.start, label.end)  # type: ignore[arg-type]
                if not exact:
                    losses.add("partial_token_fe")
                pairs += [_checked(label.name, "FE name", aset), _span_field(first, last)]
    except ValueError as exc:
        raise PyfnError(f"annotation set {aset.id}: {exc} of sentence {aset.sentence.id}") from None
    if not target:
        raise PyfnError(f"annotation set {aset.id}: no target label, cannot write a SEMAFOR line")
    indices = sorted(target)
    fields = [
        GOLD_RANK,
        GOLD_SCORE,
        str(1 + len(pairs) // 2),
        _checked(aset.frame_name, "frame name", aset),
        _checked(aset.lu_name, "LU name", aset),
        "_".join(map(str, indices)),
        " ".join(toks[i].text for i in indices),
        str(sentence_number),
        *pairs,
    ]
    return "\t".join(fields)


def write(
    directory: Path,
    split: str,
    sets: Sequence[AnnotationSet],
    *,
    losses: Losses,
    frames_only: bool | None = None,
    normalize_space: bool | None = None,
    with_sentences: bool = True,
) -> list[Path]:
    """Write ``{split}.sentences`` (unless ``with_sentences`` is False: another format
    wrote it) and ``{split}.frame.elements`` (or ``{split}.frames``).

    ``frames_only`` (default: every split but ``train``) writes ``{split}.frames``:
    count 1, no FE pairs (SEMAFOR's input for decoding with gold targets).
    ``normalize_space`` (default: only sentences of exemplar sets) writes a
    sentence as its tokens joined by single spaces; token indices are the same
    either way. Lines follow :func:`~pyfn.formats.base.ordered`. Returns the
    paths written.
    """
    if frames_only is None:
        frames_only = split != "train"
    view = SplitView.of(sets)
    table = view.table
    found = Losses()  # merged into ``losses`` only when every line could be written
    sentence_lines = _sentence_lines(table, view.sets, normalize_space, found) if with_sentences else None
    lines = []
    previous, toks = -1, ()
    for aset, number in zip(view.sets, view.numbers):
        done = semafor_line_c(aset, table.string(number), number, not frames_only) if semafor_line_c is not None else None
        if done is None:  # the Python twin: every set the compiled one declines, and its errors
            if number != previous:  # the sets of a sentence are adjacent
                previous, toks = number, tokens(table.string(number))
            lines.append(frame_line(aset, number, with_fes=not frames_only, losses=found, toks=toks))
            continue
        line, partial_target, partial_fe = done
        if partial_target:
            found.add("partial_token_target", partial_target)
        if partial_fe:
            found.add("partial_token_fe", partial_fe)
        lines.append(line)
    directory = Path(directory)
    sentences_path = directory / f"{split}.sentences"
    frames_path = directory / (f"{split}.frames" if frames_only else f"{split}.frame.elements")
    if sentence_lines is not None:
        write_lines(sentences_path, sentence_lines)
    write_lines(frames_path, lines)
    losses.counts.update(found.counts)
    return [frames_path] if sentence_lines is None else [sentences_path, frames_path]


# --------------------------------------------------------------------------- reader


class _BadLine(Exception):
    """A malformed line: ``reason`` is the ledger key, the message names the field."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class _Columns:
    """Where the fixed columns are: 8-column (current) or 6-column (legacy, no rank/score) lines."""

    rank: int | None
    count: int
    frame: int
    lu: int
    target: int
    sentence: int
    fixed: int


_CURRENT = _Columns(rank=0, count=2, frame=3, lu=4, target=5, sentence=7, fixed=8)
_LEGACY = _Columns(rank=None, count=0, frame=1, lu=2, target=3, sentence=5, fixed=6)


@dataclass(frozen=True)
class _Parsed:
    rank: int | None
    key: tuple[int, tuple[int, ...]]
    aset: AnnotationSet


def _number(fields: list[str], col: int, what: str, pattern: re.Pattern[str]) -> str:
    value = fields[col]
    if not pattern.fullmatch(value) or len(value) > _MAX_DIGITS:
        raise _BadLine("semafor:bad_number", f"column {col} ({what}) {value!r} is not a number of the right kind")
    return value


def _index(part: str, value: str, col: int, what: str, size: int) -> int:
    """Token index ``part`` of the field ``value`` (named in errors), checked against the sentence size."""
    if not _INDEX.fullmatch(part) or len(part) > _MAX_DIGITS:
        raise _BadLine("semafor:bad_number", f"column {col} ({what}) {value!r}: {part!r} is not a token index")
    index = int(part)
    if index >= size:
        raise _BadLine(
            "semafor:index_past_end",
            f"column {col} ({what}) {value!r}: token {index} is past the end of the sentence ({size} tokens)",
        )
    return index


def _target(value: str, col: int, size: int, encoding: str) -> list[int]:
    parts = [_index(p, value, col, "target", size) for p in value.split("_")]
    if encoding == "range":
        first, last = parts[0], parts[-1]
        if first > last:
            raise _BadLine("semafor:span_reversed", f"column {col} (target) {value!r}: {first} > {last}")
        return list(range(first, last + 1))
    if len(set(parts)) != len(parts):
        raise _BadLine("semafor:bad_target", f"column {col} (target) {value!r} repeats a token")
    return sorted(parts)


def _fe_span(value: str, col: int, size: int) -> tuple[int, int]:
    parts = value.split(":")
    if len(parts) > 2:
        raise _BadLine("semafor:bad_number", f"column {col} (FE span) {value!r} is not 'a' or 'a:b'")
    first, last = (_index(p, value, col, "FE span", size) for p in (parts[0], parts[-1]))
    if first > last:
        raise _BadLine("semafor:span_reversed", f"column {col} (FE span) {value!r}: {first} > {last}")
    return first, last


class _Sentences:
    """The lines of a ``.sentences`` file as :class:`Sentence` objects with their tokens."""

    def __init__(self, path: Path, document: str) -> None:
        self.lines = [line for _, line in text_lines(path)]
        self.path = path
        self.document = document
        self._cache: dict[int, tuple[Sentence, tuple[Token, ...]]] = {}

    def get(self, number: int) -> tuple[Sentence, tuple[Token, ...]]:
        if number >= len(self.lines):
            raise _BadLine(
                "semafor:unknown_sentence",
                f"sentence number {number} is past the end of {self.path} ({len(self.lines)} lines)",
            )
        if number not in self._cache:
            text = self.lines[number]
            self._cache[number] = (Sentence(id=number, text=text, document=self.document), tokens(text))
        return self._cache[number]


def _parse(line: str, lineno: int, cols: _Columns, sentences: _Sentences, encoding: str) -> _Parsed:
    fields = line.rstrip().split("\t")
    if len(fields) < cols.fixed:
        raise _BadLine("semafor:field_count", f"{len(fields)} fields, at least {cols.fixed} expected")
    rank = None
    if cols.rank is not None:
        rank = int(_number(fields, cols.rank, "rank", _INT))
        _number(fields, cols.rank + 1, "score", _FLOAT)
    count = int(_number(fields, cols.count, "count", _INT))
    if count < 1:
        raise _BadLine("semafor:bad_number", f"column {cols.count} (count) {count} is below 1")
    expected = cols.fixed + 2 * (count - 1)
    if len(fields) != expected:
        raise _BadLine(
            "semafor:field_count",
            f"column {cols.count} (count) {count} needs {expected} fields, the line has {len(fields)}",
        )
    number = int(_number(fields, cols.sentence, "sentence number", _INDEX))
    sentence, toks = sentences.get(number)
    target = _target(fields[cols.target], cols.target, len(toks), encoding)
    fes = []
    for col in range(cols.fixed, len(fields), 2):
        first, last = _fe_span(fields[col + 1], col + 1, len(toks))
        fes.append(Label(fields[col], toks[first].start, toks[last].end))
    layers = (
        Layer("Target", 1, tuple(Label("Target", toks[a].start, toks[b].end) for a, b in index_runs(target))),
        Layer("FE", 1, tuple(fes)),
    )
    aset = AnnotationSet(
        id=lineno,
        sentence=sentence,
        status=READ_STATUS,
        lu_id=None,
        lu_name=fields[cols.lu],
        frame_id=None,
        frame_name=fields[cols.frame],
        layers=layers,
    )
    return _Parsed(rank, (number, tuple(target)), aset)


def _parsed_lines(
    path: Path, cols: _Columns, sentences: _Sentences, encoding: str, log: ProblemLog
) -> Iterator[tuple[int, _Parsed]]:
    for lineno, line in text_lines(path):
        try:
            yield lineno, _parse(line, lineno, cols, sentences, encoding)
        except _BadLine as bad:
            log.add(bad.reason, f"{path}:{lineno}", f"{path}:{lineno}: {bad}")


def _one_best(lines: Iterator[tuple[int, _Parsed]], path: Path, log: ProblemLog) -> Iterator[AnnotationSet]:
    """Sets in file order; a line whose target already came with another rank is a k-best line."""
    seen: dict[tuple[int, tuple[int, ...]], tuple[int | None, int]] = {}
    for lineno, parsed in lines:
        first = seen.setdefault(parsed.key, (parsed.rank, lineno))
        if first[0] != parsed.rank:
            where = f"{path}:{lineno}"
            log.add(
                "semafor:kbest_line",
                where,
                f"{where}: rank {parsed.rank} for a target of sentence {parsed.key[0]} already read with rank "
                f"{first[0]} (line {first[1]}): a k-best file, read it with --kbest",
            )
            continue
        yield parsed.aset


def _lowest_rank(lines: Iterator[tuple[int, _Parsed]]) -> Iterator[AnnotationSet]:
    """Sets in file order, only the lines with the lowest rank of their (sentence, target)."""
    parsed = [p for _, p in lines]
    best: dict[tuple[int, tuple[int, ...]], int] = {}
    for p in parsed:
        assert p.rank is not None
        best[p.key] = min(best.get(p.key, p.rank), p.rank)
    yield from (p.aset for p in parsed if p.rank == best[p.key])


def read(
    path: Path,
    sentences: Path,
    *,
    log: ProblemLog,
    target_encoding: str = "list",
    legacy: bool = False,
    kbest: bool = False,
) -> Iterator[AnnotationSet]:
    """Stream the annotation sets of a ``.frame.elements`` / ``.frames`` file.

    Character offsets come from the tokens of the line of ``sentences`` the
    set's sentence number points to; each maximal run of adjacent target
    tokens becomes one Target label, each FE pair one FE label (rank 1). Set
    ids are 1-based line numbers. ``target_encoding`` is ``list`` (SEMAFOR) or
    ``range`` (pyfn 1.3 and Open-SESAME: first and last token); ``legacy``
    reads 6-column lines without rank and score; ``kbest`` keeps, for every
    (sentence, target), the lines of the lowest rank (the file is read whole
    first). Malformed lines go to ``log`` (skipped, or raised when strict).
    """
    if target_encoding not in TARGET_ENCODINGS:
        raise UsageError(
            f"unknown SEMAFOR target encoding {target_encoding!r}; use one of {', '.join(TARGET_ENCODINGS)}"
        )
    if kbest and legacy:
        raise UsageError("--kbest needs the rank column, which legacy (6-column) SEMAFOR lines do not have")
    path = Path(path)
    table = _Sentences(Path(sentences), path.name)
    lines = _parsed_lines(path, _LEGACY if legacy else _CURRENT, table, target_encoding, log)
    return _lowest_rank(lines) if kbest else _one_best(lines, path, log)
