"""Open-SESAME BIO(S) CoNLL (FORMATS.md §3): one block per annotation set, one line per token.

Columns (TAB-separated, 16 by default, 15 with ``columns=15``)::

    0 ID  1 FORM  2-5 _  6 sentence number  7-11 _  12 LU  13 frame  14 FE tag  15 FE coreType

Columns 12/13 hold the LU and frame on every token touched by a Target label
(``_`` elsewhere, gap tokens included); column 14 holds ``S-X`` (one-token
span; ``B-X`` with the ``bio`` scheme), ``B-X``/``I-X``, or ``O``. Each piece
of a discontinuous FE starts with its own ``B-``/``S-``. The sentence number
is the line of ``{split}.sentences`` (:class:`~pyfn.formats.base.SentenceTable`,
the same numbering as the SEMAFOR files). Every block, the last included, is
followed by exactly one empty line.

BIO cannot hold two FE labels on one token: such sets are dropped and counted,
never resolved by "first label wins".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import chain
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import write_lines
from pyfn.framenet import compiled
from pyfn.framenet.lexicon import ReleaseFrames
from pyfn.formats.base import (
    Losses,
    SplitView,
    index_runs,
    read_sentences,
    text_lines,
    token_span,
)
from pyfn.model import AnnotationSet, Frame, Label, Layer, Sentence, Token, TokenAnnotation, tokens

SCHEMES = ("bios", "bio")
FE_RANKS = ("1", "all")
WIDTHS = (15, 16)
EVAL_SPLITS = ("dev", "test")
EMPTY = "_"
OUTSIDE = "O"
READ_STATUS = "UNKNOWN"
OOV_FORM = "UNK"
"""What Open-SESAME prints in FORM (and LEMMA) for a word outside its vocabulary (train words and
embedding words): accepted by the reader in place of any token, since the block is aligned by
sentence number and position."""
"""Status of the sets the reader rebuilds: a BIOS file does not record FrameNet's status."""

FORBIDDEN = frozenset("\t\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
"""Characters that split a field or a line (TAB, and every line break of Python's ``splitlines``)."""

_TAG = re.compile(r"([BIS])-(.+)", re.DOTALL)
bios_set_c = compiled.WRITE_MODULE.bios_set if compiled.WRITE_MODULE is not None else None
"""The compiled twin of :func:`_blocks`' loop body (None when not used: :data:`pyfn.framenet.compiled.WRITER`
says why)."""
_tokens = lru_cache(maxsize=1024)(tokens)
"""Tokens of a sentence text, cached: the blocks of one sentence are adjacent."""


# ---------------------------------------------------------------- writer


def _check_options(scheme: str, fe_ranks: str, columns: int, consumer: str | None) -> None:
    if scheme not in SCHEMES:
        raise UsageError(f"unknown BIOS tag scheme {scheme!r} (known: {', '.join(SCHEMES)})")
    if fe_ranks not in FE_RANKS:
        raise UsageError(f"unknown FE ranks {fe_ranks!r} for BIOS (known: {', '.join(FE_RANKS)})")
    if columns not in WIDTHS:
        raise UsageError(f"BIOS files have 15 or 16 columns, not {columns!r}")
    if scheme == "bio" and consumer == "open-sesame":
        raise UsageError("the 'bio' tag scheme breaks Open-SESAME (one-token spans need S-); use 'bios'")


def _check_field(value: str, what: str, aset: AnnotationSet) -> str:
    """``value`` if it can be one BIOS field; a :class:`PyfnError` naming it otherwise."""
    if FORBIDDEN.isdisjoint(value) and value != "" and value != EMPTY:
        return value
    bad = sorted(FORBIDDEN.intersection(value))
    if bad:
        raise PyfnError(
            f"annotation set {aset.id}: {what} {value!r} contains {', '.join(repr(c) for c in bad)}; "
            "BIOS has no escaping, so it cannot be written"
        )
    if value in ("", EMPTY):
        raise PyfnError(f"annotation set {aset.id}: {what} {value!r} cannot be written to BIOS (empty)")
    return value


def _check_names(aset: AnnotationSet) -> None:
    _check_field(aset.frame_name, "frame name", aset)
    _check_field(aset.lu_name, "LU name", aset)
    if "." not in aset.lu_name:
        raise PyfnError(
            f"annotation set {aset.id}: LU name {aset.lu_name!r} has no '.POS' suffix; "
            "Open-SESAME splits column 12 on '.'"
        )


def _lemma(lu_name: str) -> str:
    return lu_name.rsplit(".", 1)[0]


def _fe_labels(aset: AnnotationSet, fe_ranks: str) -> list[Label]:
    return [lb for rank, lb in aset.overt_fes if fe_ranks == "all" or rank == 1]


class _Inventory:
    """LU lemmas, FE names and coreTypes of each frame of ``frames`` (FORMATS.md §3.5 checks)."""

    def __init__(self, frames: Mapping[str, Frame] | None) -> None:
        self.frames = frames
        self.lemmas = {name: {_lemma(lu.name) for lu in f.lus} for name, f in (frames or {}).items()}
        self.core_types = {name: {fe.name: fe.core_type for fe in f.fes} for name, f in (frames or {}).items()}

    def drop_reason(self, aset: AnnotationSet, labels: list[Label], split: str) -> str | None:
        """Why Open-SESAME could not train or decode on ``aset``, or None (always None without frames)."""
        if self.frames is None:
            return None
        if aset.frame_name not in self.lemmas:
            return "frame_not_in_frames"
        if _lemma(aset.lu_name) not in self.lemmas[aset.frame_name]:
            return "lu_not_in_frame"
        if split == "train" and any(lb.name not in self.core_types[aset.frame_name] for lb in labels):
            return "fe_not_in_frame"
        return None

    def core_type(self, aset: AnnotationSet, fe: str | None) -> str:
        """Column 15 for a token tagged with ``fe``: its coreType, ``_`` when unknown or outside."""
        value = self.core_types.get(aset.frame_name, {}).get(fe, "") if fe is not None else ""
        return _check_field(value, "coreType", aset) if value else EMPTY


def _token_range(aset: AnnotationSet, toks: Sequence[Token], label: Label) -> tuple[int, int, bool]:
    try:
        return token_span(toks, *label.span)
    except ValueError as exc:
        raise PyfnError(f"annotation set {aset.id}: {label.name} label {exc}") from None


def _target_tokens(aset: AnnotationSet, toks: Sequence[Token], losses: Losses) -> set[int]:
    covered: set[int] = set()
    partial = 0
    for lb in aset.layer_labels("Target"):
        if lb.is_overt:
            first, last, exact = _token_range(aset, toks, lb)
            covered.update(range(first, last + 1))
            partial += not exact
    if not covered:
        raise PyfnError(f"annotation set {aset.id}: no Target label; a BIOS block needs one")
    if partial:
        losses.add("partial_token_target", partial)
    return covered


def _fe_tags(
    aset: AnnotationSet, toks: Sequence[Token], labels: list[Label], scheme: str
) -> tuple[list[tuple[str, str | None]], int] | None:
    """Per token ``(tag, FE name or None)`` and the number of partial-token labels; None on overlap."""
    tags: list[tuple[str, str | None]] = [(OUTSIDE, None)] * len(toks)
    partial = 0
    for lb in labels:
        name = _check_field(lb.name, "FE name", aset)
        first, last, exact = _token_range(aset, toks, lb)
        partial += not exact
        if any(tags[i][1] is not None for i in range(first, last + 1)):
            return None
        if first == last:
            tags[first] = (f"{'S' if scheme == 'bios' else 'B'}-{name}", name)
        else:
            tags[first] = (f"B-{name}", name)
            for i in range(first + 1, last + 1):
                tags[i] = (f"I-{name}", name)
    return tags, partial


_NO_TARGET = "_\t_\t"


def _block(
    aset: AnnotationSet,
    toks: Sequence[Token],
    number: int,
    target: set[int],
    tags: list[tuple[str, str | None]],
    inventory: _Inventory | None,
    columns: int,
) -> str:
    """The lines of one block, each ending in a newline; column 15 from ``inventory`` (``_`` when None)."""
    middle = f"\t_\t_\t_\t_\t{number}\t_\t_\t_\t_\t_\t"
    on_target = f"{middle}{aset.lu_name}\t{aset.frame_name}\t"
    off_target = middle + _NO_TARGET
    ends: dict[str | None, str] = {}  # what follows the tag of a token tagged with an FE (None: outside)
    for _tag, fe in tags:
        if fe not in ends:
            if columns == 15:
                ends[fe] = "\n"
            else:
                ends[fe] = f"\t{inventory.core_type(aset, fe) if inventory is not None else EMPTY}\n"
    return "".join([
        f"{tok.index + 1}\t{tok.text}{on_target if tok.index in target else off_target}{tag}{ends[fe]}"
        for tok, (tag, fe) in zip(toks, tags)
    ])


def _blocks(
    view: SplitView, split: str, fe_ranks: str, scheme: str, inventory: _Inventory, columns: int,
    semeval: list[bytes], found: Losses,
) -> Iterator[bytes]:
    """The blocks of the sets kept, in order, in UTF-8; for dev/test, every set's all-``O`` block goes to
    ``semeval``.

    Each set goes to the compiled twin of this loop's body first (:data:`bios_set_c`), which does the
    same or declines (None): then the code below writes it, or makes its error."""
    previous, toks = -1, ()
    lemmas = inventory.lemmas if inventory.frames is not None else None
    evaluated, train = split in EVAL_SPLITS, split == "train"
    for aset, number in zip(view.sets, view.numbers):
        done = (bios_set_c(aset, view.table.string(number), number, evaluated, train, scheme == "bios", fe_ranks == "all",
                           columns, lemmas, inventory.core_types) if bios_set_c is not None else None)
        if done is not None:
            block, semeval_block, reason, partial_target, partial_fe = done
            if partial_target:
                found.add("partial_token_target", partial_target)
            if semeval_block is not None:
                semeval.append(semeval_block)
            if block is None:
                found.add(reason)
                continue
            if partial_fe:
                found.add("partial_token_fe", partial_fe)
            yield block
            continue
        _check_names(aset)
        if number != previous:  # the sets of a sentence are adjacent
            previous, toks = number, tokens(view.table.string(number))
        target = _target_tokens(aset, toks, found)
        if split in EVAL_SPLITS:
            semeval.append(_block(aset, toks, number, target, [(OUTSIDE, None)] * len(toks), None, columns).encode())
        labels = _fe_labels(aset, fe_ranks)
        reason = inventory.drop_reason(aset, labels, split)
        tagged = _fe_tags(aset, toks, labels, scheme) if reason is None else None
        if tagged is None:
            found.add(reason or "overlapping_fes")
            continue
        tags, partial = tagged
        if partial:
            found.add("partial_token_fe", partial)
        yield _block(aset, toks, number, target, tags, inventory, columns).encode()


def write(
    directory: Path,
    split: str,
    sets: Sequence[AnnotationSet],
    *,
    losses: Losses,
    scheme: str = "bios",
    fe_ranks: str = "1",
    columns: int = 16,
    frames: Mapping[str, Frame] | None = None,
    consumer: str | None = None,
) -> list[Path]:
    """Write ``{split}.bios`` (and, for dev/test, ``{split}.bios.semeval``); return the paths written.

    ``fe_ranks`` ``"1"`` (default) tags rank-1 FE labels only, ``"all"`` every
    rank. ``frames`` (frame name -> :class:`~pyfn.model.Frame`) enables the
    Open-SESAME checks of FORMATS.md §3.5 and fills column 15 with coreTypes.
    Dropped sets are counted in ``losses``: ``overlapping_fes``,
    ``frame_not_in_frames``, ``lu_not_in_frame``, ``fe_not_in_frame`` (train
    only); rounded labels in ``partial_token_fe``. A split left without any
    block is not written (``empty_split``). ``{split}.bios.semeval`` holds
    every set (block *k* = line *k* of ``{split}.frames``), all tags ``O``.
    """
    _check_options(scheme, fe_ranks, columns, consumer)
    directory = Path(directory)
    found = Losses()  # merged into ``losses`` only once every block could be made
    semeval: list[bytes] = []
    inventory = frames.derived(_Inventory) if isinstance(frames, ReleaseFrames) else _Inventory(frames)
    blocks = _blocks(SplitView.of(sets), split, fe_ranks, scheme, inventory, columns, semeval, found)
    first = next(blocks, None)
    written: list[Path] = []
    if first is not None:  # blocks are written as they are made: an error removes the unfinished file
        written.append(directory / f"{split}.bios")
        write_lines(written[-1], chain((first,), blocks))
    else:
        found.add("empty_split")
    if semeval:
        written.append(directory / f"{split}.bios.semeval")
        write_lines(written[-1], semeval)
    losses.counts.update(found.counts)
    return written


# ---------------------------------------------------------------- parse merge

PARSE_COLUMNS = {3: "lemma", 5: "xpos", 9: "head", 11: "deprel"}
"""BIOS column -> token annotation field copied in by :func:`merge_analyses` (FORMATS.md §4.3)."""


def _merged_line(line: str, analyses: Sequence[Sequence[TokenAnnotation]], path: Path, lineno: int) -> str:
    if not line:
        return line
    fields = line.split("\t")
    try:
        number, index = int(fields[6]), int(fields[0]) - 1
        ann = analyses[number][index]
    except (IndexError, ValueError):
        raise PyfnError(f"{path}:{lineno}: no token annotation for this line (sentence {fields[6:7]}, "
                        f"token {fields[:1]}): the .bios and .sentences files disagree") from None
    for column, name in PARSE_COLUMNS.items():
        value = getattr(ann, name)
        text = EMPTY if value is None else str(value)
        if not text or FORBIDDEN.intersection(text):
            raise PyfnError(f"{path}:{lineno}: {name.upper()} {text!r} cannot be written in a BIOS column")
        fields[column] = text
    return "\t".join(fields)


def merge_analyses(path: Path, analyses: Sequence[Sequence[TokenAnnotation]], out: Path | None = None) -> Path:
    """Rewrite ``path`` (a ``.bios`` or ``.bios.semeval`` file), or write it to ``out``, with the lemma,
    POS, head and dependency label of each token (columns 3, 5, 9, 11), ``analyses[k][i]`` for token
    *i + 1* of sentence number *k*; every other column is kept byte for byte (atomically). Returns the
    path written."""
    try:
        with open(path, encoding="utf-8", newline="\n") as handle:
            lines = [_merged_line(line.rstrip("\n"), analyses, path, n) for n, line in enumerate(handle, 1)]
    except UnicodeDecodeError as exc:
        raise PyfnError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
    out = path if out is None else out
    write_lines(out, lines)
    return out


# ---------------------------------------------------------------- reader


class _BadBlock(Exception):
    """A malformed block: ``reason`` (ledger key), ``lineno``, message without the file name."""

    def __init__(self, reason: str, lineno: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.lineno = lineno


def _int(value: str, reason: str, lineno: int, what: str) -> int:
    if not value.isascii() or not value.isdigit() or len(value) > 100:
        raise _BadBlock(reason, lineno, f"{what} {value!r} is not a non-negative integer")
    return int(value)


def _fe_spans(rows: Sequence[tuple[int, list[str]]]) -> list[tuple[str, int, int]]:
    """``(FE name, first token, last token)`` from the tags of column 14."""
    spans: list[tuple[str, int, int]] = []
    open_fe: tuple[str, int] | None = None
    for i, (lineno, fields) in enumerate(rows):
        tag = fields[14]
        if tag == OUTSIDE:
            match = None
        else:
            match = _TAG.fullmatch(tag)
            if match is None:
                raise _BadBlock("bad_tag", lineno, f"FE tag {tag!r} is not O, B-X, I-X or S-X")
        if match is not None and match[1] == "I":
            if open_fe is None or open_fe[0] != match[2]:
                before = "nothing" if open_fe is None else f"{open_fe[0]!r}"
                raise _BadBlock("bad_transition", lineno, f"{tag!r} continues {before}, not an open {match[2]!r}")
            continue
        if open_fe is not None:
            spans.append((open_fe[0], open_fe[1], i - 1))
            open_fe = None
        if match is not None and match[1] == "B":
            open_fe = (match[2], i)
        elif match is not None:
            spans.append((match[2], i, i))
    if open_fe is not None:
        spans.append((open_fe[0], open_fe[1], len(rows) - 1))
    return spans


def _parse_block(
    rows: list[tuple[int, list[str]]], block_no: int, sentences: list[str], sentences_path: Path
) -> AnnotationSet:
    """The annotation set of one block; :class:`_BadBlock` at the first problem."""
    numbers = set()
    for position, (lineno, fields) in enumerate(rows, 1):
        if _int(fields[0], "bad_id", lineno, "token ID") != position:
            raise _BadBlock("bad_id", lineno, f"token ID {fields[0]} where {position} was expected")
        numbers.add(_int(fields[6], "bad_sentence_number", lineno, "sentence number"))
        if len(numbers) > 1:
            raise _BadBlock("bad_sentence_number", lineno, f"sentence numbers {sorted(numbers)} in one block")
    first = rows[0][0]
    (number,) = numbers
    if number >= len(sentences):
        raise _BadBlock(
            "bad_sentence_number", first, f"sentence number {number} past the end of {sentences_path} "
            f"({len(sentences)} lines)"
        )
    text = sentences[number]
    toks = _tokens(text)
    if len(toks) != len(rows):
        raise _BadBlock(
            "token_count", first, f"block of {len(rows)} lines, but sentence {number} of {sentences_path} "
            f"has {len(toks)} tokens"
        )
    for tok, (lineno, fields) in zip(toks, rows):
        if fields[1].lower() != tok.text.lower() and fields[1] != OOV_FORM:
            raise _BadBlock(
                "form_mismatch", lineno, f"FORM {fields[1]!r} is not token {tok.text!r} of sentence {number}"
            )
    targets = [
        (i, lineno, fields[12], fields[13])
        for i, (lineno, fields) in enumerate(rows)
        if fields[12] != EMPTY or fields[13] != EMPTY
    ]
    if not targets:
        raise _BadBlock("no_target", first, "block has no target token (LU and frame columns all '_')")
    lu, frame = targets[0][2:]
    for _, lineno, other_lu, other_frame in targets:
        if EMPTY in (other_lu, other_frame):
            raise _BadBlock("mixed_target", lineno, f"LU {other_lu!r} with frame {other_frame!r}: one of them is '_'")
        if (other_lu, other_frame) != (lu, frame):
            raise _BadBlock(
                "mixed_target", lineno, f"LU/frame {other_lu!r}/{other_frame!r} in a block of {lu!r}/{frame!r}"
            )
    target = [Label("Target", toks[a].start, toks[b].end) for a, b in index_runs([t[0] for t in targets])]
    fes = [Label(name, toks[a].start, toks[b].end) for name, a, b in _fe_spans(rows)]
    return AnnotationSet(
        id=block_no,
        sentence=Sentence(id=number, text=text, document=sentences_path.name),
        status=READ_STATUS,
        lu_id=None,
        lu_name=lu,
        frame_id=None,
        frame_name=frame,
        layers=(Layer("Target", 1, tuple(target)), Layer("FE", 1, tuple(fes))),
    )


def read(path: Path, sentences: Path, *, log: ProblemLog) -> Iterator[AnnotationSet]:
    """Stream the annotation sets of a BIOS file (15 or 16 columns).

    ``sentences`` is the ``{split}.sentences`` file the sentence numbers refer
    to: character offsets are those of its tokens. Set ids are 1-based block
    numbers (block *k* = line *k* of ``{split}.frames`` for ``.bios.semeval``);
    FE labels come from the tags (one FE layer, rank 1); the Target layer has
    one label per run of adjacent target tokens. A malformed block is skipped
    and logged in ``log`` with the file and line (raised when strict).
    """
    path, sentences = Path(path), Path(sentences)
    lines = read_sentences(sentences)
    rows: list[tuple[int, list[str]]] = []
    width: int | None = None
    block_no = 0
    bad: _BadBlock | None = None
    for lineno, line in text_lines(path):
        if line:
            fields = line.split("\t")
            if bad is None and (len(fields) not in WIDTHS or width not in (None, len(fields))):
                expected = "15 or 16" if width is None else str(width)
                bad = _BadBlock("bad_columns", lineno, f"{len(fields)} columns, expected {expected}")
            width = width or (len(fields) if len(fields) in WIDTHS else None)
            rows.append((lineno, fields))
            continue
        if not rows:
            where = f"{path}:{lineno}"
            log.add("empty_block", where, f"{where}: empty line without a block before it")
            continue
        block_no += 1
        try:
            if bad is not None:
                raise bad
            aset = _parse_block(rows, block_no, lines, sentences)
        except _BadBlock as exc:
            log.add(exc.reason, f"{path}:{exc.lineno}", f"{path}:{exc.lineno}: {exc}")
        else:
            yield aset
        rows, bad = [], None
    if rows:
        where = f"{path}:{rows[-1][0]}"
        log.add("unterminated_block", where, f"{where}: last block has no empty line after it (Open-SESAME drops it)")
