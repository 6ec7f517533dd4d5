"""Open-SESAME's CoNLL files, as its ``sesame/preprocess.py`` writes them, read into audit items.

``fn1.7.{fulltext,exemplar}.train.syntaxnet.conll``, ``fn1.7.dev.syntaxnet.conll``,
``fn1.7.test.syntaxnet.conll`` (docs/FORMATS.md §3): one block of 15 TAB-separated
columns per annotation set, blocks separated by an empty line. Open-SESAME's reader
(``sesame/dataio.py``) uses FORM (column 1), the sentence number (column 6: a new
sentence starts where it changes), LU and frame (12, 13) and FE tags (14); the files
hold no FrameNet id, so sentences and sets are named by file and number (the sentence
number, the block's first line).

The sentence is recovered from the tokens: their FORMs joined by spaces. Under Python 3
preprocess writes FORM as ``str(bytes)`` (``b'word'``, non-ASCII as ``\\xNN``
escapes): such a FORM is decoded back. Open-SESAME's tokens are the PENN layer's
labels, so the joined text normalises (lower-cased, whitespace removed) like
FrameNet's text wherever those labels cover every non-space character.
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


def _block(path: Path, rows: list[tuple[int, list[str]]], split: str, source: str) -> Item:
    forms = [_form(fields[1], f"{path}:{lineno}") for lineno, fields in rows]
    if any(not f or any(ch.isspace() for ch in f) for f in forms):
        lineno = next(n for (n, _), f in zip(rows, forms) if not f or any(ch.isspace() for ch in f))
        raise PyfnError(f"{path}:{lineno}: FORM is empty or holds whitespace")
    numbers = {fields[6] for _, fields in rows}
    if len(numbers) != 1 or not next(iter(numbers)).isdigit():
        raise PyfnError(f"{path}:{rows[0][0]}: block with sentence numbers {sorted(numbers)} (column 7), "
                        "expected one non-negative integer")
    targets = [(i, fields[12], fields[13]) for i, (_, fields) in enumerate(rows) if fields[12] != "_"]
    if not targets:
        raise PyfnError(f"{path}:{rows[0][0]}: block has no target token (LU column 13 all '_')")
    starts, pos = [], 0
    for form in forms:
        starts.append(pos)
        pos += len(form) + 1
    text = " ".join(forms)
    spans = [(starts[i], starts[i] + len(forms[i]) - 1) for i, _, _ in targets]
    _, lu, frame = targets[0]
    return Item(split, source, (str(path), int(next(iter(numbers)))), text, (str(path), rows[0][0]),
                content_key(text, spans, lu, frame))


def read(path: Path, split: str) -> list[Item]:
    """The blocks of an Open-SESAME CoNLL file as items of ``split`` (exemplars when the file name says
    ``exemplar``); the first malformed line raises :class:`PyfnError` naming file and line."""
    source = "exemplar" if "exemplar" in path.name.split(".") else "fulltext"
    items: list[Item] = []
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in text_lines(path):
        if line.strip():
            fields = line.strip().split("\t")
            if len(fields) not in WIDTHS:
                raise PyfnError(f"{path}:{lineno}: {len(fields)} columns, expected 15 (Open-SESAME CoNLL) or 16")
            rows.append((lineno, fields))
        elif rows:
            items.append(_block(path, rows, split, source))
            rows = []
    if rows:
        items.append(_block(path, rows, split, source))
    return items
