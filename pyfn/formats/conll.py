"""CoNLL-X and CoNLL-U sentence files: the carriers of lemmas, POS tags and dependencies (FORMATS.md §4).

One block per sentence number (a line of ``{split}.sentences``), in that
order; token *i* of block *k* is whitespace token *i* of sentence string *k*
(1-based ``ID``). Frame annotation is joined to these files by (sentence
number, token position), never by re-tokenizing: :func:`align` checks that a
file read back still has FrameNet's tokens.

Both dialects are written line by line (10 TAB-separated columns, ``_`` when
empty) and read with the ``conllu`` package's ``parse_incr``; the tests check
that every file written reads back with it. Columns: CoNLL-U ``ID FORM LEMMA UPOS XPOS FEATS HEAD
DEPREL DEPS MISC``; CoNLL-X ``ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL
PHEAD PDEPREL``, where CPOSTAG and POSTAG both hold the XPOS (PTB) tag, the
column SEMAFOR reads, and UPOS has no place. ``_`` means empty in every column
but FORM.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

import conllu
from conllu.exceptions import ParseException

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import write_lines
from pyfn.formats.base import SentenceTable, text_lines
from pyfn.framenet import compiled
from pyfn.model import AnnotationSet, TokenAnnotation, tokens

CONLLX_FIELDS = ("id", "form", "lemma", "cpostag", "postag", "feats", "head", "deprel", "phead", "pdeprel")
CONLLU_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
DIALECTS = {"conllu": CONLLU_FIELDS, "conllx": CONLLX_FIELDS}
SUFFIXES = {".conllu": "conllu", ".conllx": "conllx", ".conll": "conllx"}

_INT = re.compile(r"0|[1-9][0-9]*")


EMPTY = TokenAnnotation()


def _empty(value: str | None) -> str | None:
    """``_`` is an empty column."""
    return None if value == "_" else value


# --------------------------------------------------------------------------- writers


def _check_value(value: str | None, column: str, where: str) -> None:
    if value is None:
        return
    spaces_ok = column == "lemma"
    if (
        not value
        or value != value.strip()
        or "  " in value
        or any(ch.isspace() and not (spaces_ok and ch == " ") for ch in value)
    ):
        raise PyfnError(f"{where}: {column.upper()} {value!r} cannot be written (empty, or whitespace that "
                        "would break the columns)")


def _field(value: object) -> str:
    return "_" if value is None else str(value)


_EMPTY_COLUMNS = "\t_" * 8
"""Columns 3-10 of a token without annotation."""
conll_block_c = compiled.WRITE_MODULE.conll_block if compiled.WRITE_MODULE is not None else None
"""The compiled twin of :func:`_write`'s block of a sentence without annotations (None when not used:
:data:`pyfn.framenet.compiled.WRITER` says why)."""


def _row(index: int, form: str, ann: TokenAnnotation, n_tokens: int, dialect: str, where: str) -> str:
    """One token line: 10 TAB-separated columns, ``_`` for empty ones."""
    if ann is EMPTY:
        return f"{index}\t{form}{_EMPTY_COLUMNS}"
    where = f"{where}, token {index}"
    for column in ("lemma", "upos", "xpos", "deprel"):
        _check_value(getattr(ann, column), column, where)
    if ann.head is not None and (isinstance(ann.head, bool) or not 0 <= ann.head <= n_tokens):
        raise PyfnError(f"{where}: HEAD {ann.head!r} is not a token of the sentence (0..{n_tokens})")
    pos = ann.upos if dialect == "conllu" else ann.xpos
    return "\t".join(
        (str(index), form, _field(ann.lemma), _field(pos), _field(ann.xpos), "_", _field(ann.head),
         _field(ann.deprel), "_", "_")
    )


def _annotations(number: int, n_tokens: int, columns: Mapping[int, Sequence[TokenAnnotation]], where: str
                 ) -> Sequence[TokenAnnotation]:
    anns = columns.get(number)
    if anns is None:
        return [EMPTY] * n_tokens
    if len(anns) != n_tokens:
        raise PyfnError(f"{where}: {len(anns)} token annotations for {n_tokens} tokens")
    return anns


Sentences = Sequence[AnnotationSet] | SentenceTable
"""What the writers number and write: the sets of a split, or their sentence table."""


def _write(path: Path, sentences: Sentences, columns: Mapping[int, Sequence[TokenAnnotation]] | None,
           dialect: str) -> None:
    """Write one block per sentence number; the files read back with ``conllu.parse_incr`` (tested)."""
    table = sentences if isinstance(sentences, SentenceTable) else SentenceTable.of(sentences)
    columns = columns or {}
    unknown = sorted(set(columns) - set(table.span()))
    if unknown:
        raise PyfnError(f"{path}: token annotations for sentence {unknown[0]}, which the sets do not have "
                        f"({len(table.strings)} sentences)")
    blocks: list[bytes] = []  # one per block in UTF-8, its lines joined, the empty line that ends it included
    conllu = dialect == "conllu"
    for number, text in enumerate(table.strings, table.first):
        if conll_block_c is not None and number not in columns:  # compiled, or None: the code below decides
            block = conll_block_c(text, number, table.fn_ids.get(text, ()) if conllu else (), conllu, _EMPTY_COLUMNS)
            if block is not None:
                blocks.append(block)
                continue
        where = f"{path}: sentence {number}"
        forms = text.split()
        if len(text.splitlines()) > 1 or not forms:
            raise PyfnError(f"{where}: a sentence with a line break or no token cannot be written: {text!r}")
        lines: list[str] = []
        if dialect == "conllu":
            ids = ",".join(str(i) for i in table.fn_ids.get(text, ()))
            lines += [f"# sent_id = {number}", f"# text = {text}"]
            if ids:
                lines.append(f"# fn_sentence_ids = {ids}")
        if number in columns:
            anns = _annotations(number, len(forms), columns, where)
            lines += [_row(i, form, ann, len(forms), dialect, where) for i, (form, ann) in enumerate(zip(forms, anns), 1)]
        else:  # no annotation: every token gets the row of EMPTY
            lines += [f"{i}\t{form}{_EMPTY_COLUMNS}" for i, form in enumerate(forms, 1)]
        lines.append("")
        blocks.append("\n".join(lines).encode())
    write_lines(path, blocks)


def as_read(ann: TokenAnnotation, dialect: str) -> TokenAnnotation:
    """What reading back a written ``ann`` gives: ``_`` is empty, and CoNLL-X has no UPOS."""
    if ann == EMPTY:
        return EMPTY
    upos = None if dialect == "conllx" else _empty(ann.upos)
    return TokenAnnotation(_empty(ann.lemma), upos, _empty(ann.xpos), ann.head, _empty(ann.deprel))


def write_conllx(path: Path, sentences: Sentences, *,
                 columns: Mapping[int, Sequence[TokenAnnotation]] | None = None) -> None:
    """Write the sentences (of a split's sets, or a table) as CoNLL-X, one block per sentence number (atomically).

    ``columns`` maps a sentence number to one :class:`TokenAnnotation` per
    token; sentences without an entry get ``_`` in every column but ID/FORM.
    CPOSTAG and POSTAG both receive ``xpos``; ``upos`` is not written.
    """
    _write(path, sentences, columns, "conllx")


def write_conllu(path: Path, sentences: Sentences, *,
                 columns: Mapping[int, Sequence[TokenAnnotation]] | None = None) -> None:
    """Write the sentences (of a split's sets, or a table) as CoNLL-U, one block per sentence number (atomically).

    Each block has the comments ``sent_id`` (sentence number), ``text``
    (sentence string, exactly: a leading space is written after ``# text = ``,
    and readers of comments strip it) and ``fn_sentence_ids`` (FrameNet sentence
    IDs with that text; left out when the table has none). ``columns`` as for :func:`write_conllx`.
    """
    _write(path, sentences, columns, "conllu")


# --------------------------------------------------------------------------- reader


class _Bad(Exception):
    """A malformed sentence block; ``reason`` is the ledger key."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class _Lines:
    """The lines of a UTF-8 file for ``conllu.parse_incr`` (``\\n``-terminated, BOM and ``\\r`` dropped,
    decoding errors naming the line); remembers the first line of the current block."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self.lineno = 0
        self.block_start = 1
        self._blank = True

    def read(self, size: int = -1) -> str:  # parse_incr iterates; it only checks that ``read`` exists
        return "".join(self)

    def __iter__(self) -> Iterator[str]:
        for lineno, text in text_lines(self._path):
            self.lineno = lineno
            line = text + "\n"
            blank = not line.strip()
            if self._blank and not blank:
                self.block_start = self.lineno
            self._blank = blank
            yield line


def _raw(line: list[str], i: int) -> str:
    return line[i]


def _id_and_width(line: list[str], i: int) -> tuple[str, int]:
    return line[i], len(line)


def _head(value: str, n_tokens: int, column: str) -> int | None:
    if value == "_":
        return None
    if not _INT.fullmatch(value) or len(value) > 100:
        raise _Bad("malformed_sentence", f"{column} {value!r} is not an integer")
    head = int(value)
    if head > n_tokens:
        raise _Bad("malformed_sentence", f"{column} {head} is not a token of the sentence (0..{n_tokens})")
    return head


def _token(token: conllu.Token, position: int, n_tokens: int, dialect: str) -> tuple[TokenAnnotation, str]:
    raw_id, width = token["id"]
    where = f"token line {position} (ID {raw_id})"
    if "-" in raw_id:
        raise _Bad("multiword_token", f"{where}: multiword token {token.get('form')!r}; FrameNet tokens map 1:1 "
                                      "to word lines, a token split by another tokenizer cannot be aligned (U13)")
    if "." in raw_id:
        raise _Bad("empty_node", f"{where}: empty node; FrameNet tokens map 1:1 to word lines (U13)")
    if width != len(DIALECTS[dialect]):
        raise _Bad("malformed_sentence", f"{where}: {width} columns, expected {len(DIALECTS[dialect])}")
    if raw_id != str(position):
        raise _Bad("malformed_sentence", f"{where}: ID should be {position}")
    if any(value == "" for value in token.values() if isinstance(value, str)):
        raise _Bad("malformed_sentence", f"{where}: empty column")
    head = _head(token["head"], n_tokens, f"{where}: HEAD")
    if dialect == "conllu":
        ann = TokenAnnotation(_empty(token["lemma"]), _empty(token["upos"]), _empty(token["xpos"]), head,
                              _empty(token["deprel"]))
    else:
        _head(token["phead"], n_tokens, f"{where}: PHEAD")
        xpos = _empty(token["cpostag"]) or _empty(token["postag"])
        ann = TokenAnnotation(_empty(token["lemma"]), None, xpos, head, _empty(token["deprel"]))
    return ann, token["form"]


def _parse(path: Path, dialect: str, log: ProblemLog) -> Iterator[tuple[int, list[TokenAnnotation], list[str]]]:
    fields = DIALECTS[dialect]
    parsers: dict[str, Callable[[list[str], int], Any]] = {field: _raw for field in fields}
    parsers["id"] = _id_and_width
    lines = _Lines(path)
    number = 0
    try:
        for sentence in conllu.parse_incr(cast(TextIO, lines), fields=fields, field_parsers=parsers):
            where = f"{path}:{lines.block_start}: sentence {number}"
            try:
                pairs = [_token(token, i, len(sentence), dialect) for i, token in enumerate(sentence, 1)]
            except _Bad as exc:
                log.add(exc.reason, where, f"{where}: {exc}; sentence skipped")
            else:
                yield number, [ann for ann, _ in pairs], [form for _, form in pairs]
            number += 1
    except ParseException as exc:
        raise PyfnError(f"{path}:{lines.block_start}: sentence {number}: {exc}") from None


def dialect_of(path: Path) -> str:
    """``conllu`` or ``conllx``, from the file name (``.conllu``; ``.conllx`` or ``.conll``)."""
    dialect = SUFFIXES.get(Path(path).suffix.lower())
    if dialect is None:
        raise UsageError(f"{path}: cannot tell CoNLL-U from CoNLL-X by the name; "
                         f"use a {', '.join(SUFFIXES)} suffix or name the dialect")
    return dialect


def read_conll(path: Path, *, log: ProblemLog, dialect: str | None = None
               ) -> Iterator[tuple[int, list[TokenAnnotation], list[str]]]:
    """Stream ``(sentence number, token annotations, forms)`` from a CoNLL-U or CoNLL-X file.

    The sentence number is the block's 0-based position. ``dialect`` is
    ``conllu`` or ``conllx`` (default: from the file suffix). A block with a
    multiword-token range or an empty node (U13), a line without exactly 10
    columns, an ID out of sequence or a non-integer HEAD goes to ``log``
    (naming file, line and sentence) and is skipped; its number is not reused.
    CoNLL-X ``xpos`` is CPOSTAG (POSTAG when CPOSTAG is ``_``); ``upos`` is None.
    """
    dialect = dialect or dialect_of(path)
    if dialect not in DIALECTS:
        raise UsageError(f"unknown CoNLL dialect {dialect!r} (known: {', '.join(DIALECTS)})")
    yield from _parse(Path(path), dialect, log)


def check_block_count(path: Path, sentences: int) -> None:
    """Check, without parsing it, that ``path`` has one block per sentence string (the blocks
    :func:`align` pairs with them): an error naming the first missing or extra sentence."""
    blocks, blank = 0, True
    for _, line in text_lines(path):
        if blank and line.strip():
            blocks += 1
        blank = not line.strip()
    if blocks < sentences:
        raise PyfnError(f"{path}: sentence {blocks}: missing ({blocks} blocks for {sentences} sentences)")
    if blocks > sentences:
        raise PyfnError(f"{path}: sentence {sentences}: no such sentence ({blocks} blocks for {sentences} sentences)")


def align(forms_by_number: Mapping[int, Sequence[str]], table: SentenceTable, path: Path) -> None:
    """Check that block *k* of ``path`` has the tokens of sentence string *k*, FORM by FORM.

    Raises :class:`PyfnError` naming the file, the sentence number and the
    token at the first difference (a missing or extra sentence, a different
    token count, a different FORM): never a silent shift.
    """
    extra = sorted(set(forms_by_number) - set(range(len(table.strings))))
    if extra:
        raise PyfnError(f"{path}: sentence {extra[0]}: no such sentence (the split has {len(table.strings)})")
    for number, text in enumerate(table.strings):
        forms = forms_by_number.get(number)
        if forms is None:
            raise PyfnError(f"{path}: sentence {number}: missing ({len(forms_by_number)} of "
                            f"{len(table.strings)} sentences read)")
        expected = [t.text for t in tokens(text)]
        for index, (want, got) in enumerate(zip(expected, forms), 1):
            if want != got:
                raise PyfnError(f"{path}: sentence {number}, token {index}: FORM {got!r}, FrameNet has {want!r}")
        if len(forms) != len(expected):
            index = min(len(forms), len(expected)) + 1
            raise PyfnError(f"{path}: sentence {number}, token {index}: {len(forms)} tokens, "
                            f"FrameNet has {len(expected)}")
