"""Open-SESAME's CoNLL files, as its ``sesame/preprocess.py`` writes them, read into audit items.

``fn1.7.{fulltext,exemplar}.train.syntaxnet.conll``, ``fn1.7.dev.syntaxnet.conll``,
``fn1.7.test.syntaxnet.conll`` (docs/FORMATS.md §3): one block of 15 TAB-separated
columns per annotation set, blocks separated by an empty line. Open-SESAME's reader
(``sesame/dataio.py``) uses FORM (column 1), the sentence number (column 6: a new
sentence starts where it changes), LU and frame (12, 13) and FE tags (14); the files
hold no FrameNet id, so sentences and sets are named by file and number (the sentence
number, the block's first line).

The sentence text: for fulltext files, line *n* of the ``.sents`` file preprocess writes beside
(``fn1.7.test.syntaxnet.conll.sents``: every sentence of the split, in order, so sentence number *n*
indexes it), when it is there; else, and always for exemplars (whose numbers do not index their
``.sents``: FORMATS.md U11), the tokens' FORMs joined by spaces. Under Python 3 preprocess writes
FORM as ``str(bytes)`` (``b'word'``, non-ASCII as ``\\xNN`` escapes): such a FORM is decoded back.
Open-SESAME's tokens are the PENN layer's labels, which in FN 1.7 fulltext leave some non-space
character out (a leading quote...) in 496 of 4,449 sentences with such a layer (measured on pyfn's
FN 1.7 split): a text rebuilt from tokens normalises like FrameNet's only where they do not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pyfn.audit.items import Item, content_key
from pyfn.errors import PyfnError
from pyfn.formats.base import text_lines

WIDTHS = (15, 16)
_BYTES = re.compile(r"""b(['"]).*\1""", re.DOTALL)


def _form(value: str, where: str) -> str:
    if not _BYTES.fullmatch(value):
        return value
    try:
        data = ast.literal_eval(value)
        return data.decode("utf-8")
    except (ValueError, SyntaxError, UnicodeDecodeError) as exc:
        raise PyfnError(f"{where}: FORM {value!r} is not a bytes literal of UTF-8 text ({exc})") from None


def _spans_in(text: str, forms: list[str], rows: list[tuple[int, list[str]]], where: str) -> list[tuple[int, int]]:
    """Each token's inclusive character span in ``text``, found in order (case aside)."""
    lowered, pos, spans = text.lower(), 0, []
    for form, (lineno, _) in zip(forms, rows):
        start = lowered.find(form.lower(), pos)
        if start < 0:
            raise PyfnError(f"{where}:{lineno}: FORM {form!r} is not in the sentence's text {text!r}")
        spans.append((start, start + len(form) - 1))
        pos = start + len(form)
    return spans


def _block(path: Path, rows: list[tuple[int, list[str]]], split: str, source: str, sents: list[str] | None) -> Item:
    forms = [_form(fields[1], f"{path}:{lineno}") for lineno, fields in rows]
    for form, (lineno, _) in zip(forms, rows):
        if not form or any(ch.isspace() for ch in form):
            raise PyfnError(f"{path}:{lineno}: FORM {form!r} is empty or holds whitespace")
    numbers = {fields[6] for _, fields in rows}
    if len(numbers) != 1 or not next(iter(numbers)).isdigit():
        raise PyfnError(f"{path}:{rows[0][0]}: block with sentence numbers {sorted(numbers)} (column 7), "
                        "expected one non-negative integer")
    number = int(next(iter(numbers)))
    targets = [i for i, (_, fields) in enumerate(rows) if fields[12] != "_"]
    if not targets:
        raise PyfnError(f"{path}:{rows[0][0]}: block has no target token (LU column 13 all '_')")
    if sents is not None:
        if number >= len(sents):
            raise PyfnError(f"{path}:{rows[0][0]}: sentence number {number} past the end of its .sents file "
                            f"({len(sents)} lines)")
        text = sents[number]
        spans = _spans_in(text, forms, rows, str(path))
    else:
        text, spans, pos = " ".join(forms), [], 0
        for form in forms:
            spans.append((pos, pos + len(form) - 1))
            pos += len(form) + 1
    lu, frame = rows[targets[0]][1][12], rows[targets[0]][1][13]
    return Item(split, source, (str(path), number), text, (str(path), rows[0][0]),
                content_key(text, [spans[i] for i in targets], lu, frame))


def read(path: Path, split: str) -> list[Item]:
    """The blocks of an Open-SESAME CoNLL file as items of ``split`` (exemplars when the file name says
    ``exemplar``), texts from the ``.sents`` file beside it when there is one (fulltext only); the first
    malformed line raises :class:`PyfnError` naming file and line."""
    source = "exemplar" if "exemplar" in path.name.split(".") else "fulltext"
    beside = path.with_name(path.name + ".sents")
    sents = [line for _, line in text_lines(beside)] if source == "fulltext" and beside.is_file() else None
    items: list[Item] = []
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in text_lines(path):
        if line.strip():
            fields = line.strip().split("\t")
            if len(fields) not in WIDTHS:
                raise PyfnError(f"{path}:{lineno}: {len(fields)} columns, expected 15 (Open-SESAME CoNLL) or 16")
            rows.append((lineno, fields))
        elif rows:
            items.append(_block(path, rows, split, source, sents))
            rows = []
    if rows:
        items.append(_block(path, rows, split, source, sents))
    return items
