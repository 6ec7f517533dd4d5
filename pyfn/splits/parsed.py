"""One annotation file as the split builder needs it, whatever the build options: a compact record.

:func:`parse_file` reads a ``fulltext/`` or ``lu/`` file and does SPLITS.md
steps 1-2 and everything of steps 3-6 that does not depend on an option: per
kept (valid) set, its ids for the exclusions, a bit per registered filter
(:data:`~pyfn.splits.filters.FILTERS`, in registry order) saying whether the
filter removes it, its sentence text and hash, its output order key and
dedup hash (made from its target spans, LU and frame names), the names and
its JSON line (the lossless pivot). The record is a tuple of lists, serialized with
:mod:`marshal`: it crosses from the reading processes to the builder as
bytes, and the same bytes are what the parsed-release cache stores
(:mod:`pyfn.framenet.cache`), so a cold build and a warm one run the same
code from there on.

Layout (``FORMAT``)::

    (path, sha256, sentences, problems, removed, sets, dropped)
    problems = [(reason, where, message), ...]
    removed  = [(ledger reason, count), ...]         # no_target:*, invalid:*, malformed_*
    dropped  = [(set id or None, sentence id, ledger reason), ...]   # the sets of removed, one by one
    sets     = (ids, sentence_ids, frame_ids, lu_ids, filter_masks, texts, sentence_hashes, orders,
                set_hashes, lus, frames, lines)

``dropped`` names the sets counted in ``removed`` (the id is None when the
XML's is not an integer; a ``malformed_sentence`` or ``malformed_file`` has
no sets to name): only :class:`~pyfn.splits.trace.Trace` reads it.
``lines`` are the JSON lines in UTF-8 (bytes: the builder writes them as
they are, and sends them to the writers' processes without encoding them
again), ``texts`` are sentence texts without trailing whitespace, in UTF-8 (bytes: their
byte order is the strings' code point order, and the builder sorts bytes 1.6 times as fast as
strings, some of which are not Latin-1),
``sentence_hashes`` their :func:`~pyfn.splits.hashing.sentence_hash` (one
string object per sentence: stored once). With ``spans`` the sorted target
spans as ``s#e[#s#e...]``, ``orders`` are pyfn 1.3's within-sentence order
keys ``spans#lu#frame`` and ``set_hashes`` step 6's dedup hashes
``sentence_hash<TAB>spans<TAB>lu<TAB>frame``: made once, where the file is
read, rather than in every build (:func:`~pyfn.splits.hashing.spans_of` recovers the spans).
"""

from __future__ import annotations

import marshal
import re
from collections import Counter
from collections.abc import Callable
from sys import intern
from typing import Any, NamedTuple

from pyfn.errors import Problem, PyfnError
from pyfn.formats import jsonl
from pyfn.framenet import compiled
from pyfn.framenet.annotations import LayerRows, read_file
from pyfn.splits.filters import FILTERS, SetView
from pyfn.splits.hashing import annoset_hash_of, order_key_of, sentence_hash, spans_key
from pyfn.splits.validity import CHECKED_LAYERS, invalid_offsets

FORMAT = 5
"""Version of the record layout (5: texts in UTF-8)."""
FILTER_BITS = {name: 1 << i for i, name in enumerate(FILTERS)}
"""The bit of each registered filter in a set's mask."""
_TWIN_FILTERS = ("overlap_fes", "disc_fes", "disc_targets", "no_fes", "non_breaking_spaces")
"""The filters the compiled twin of a set's row computes, in the order it takes their bits."""
set_record_c = (compiled.MODULE.set_record if compiled.MODULE is not None and set(FILTERS) == set(_TWIN_FILTERS)
                else None)
"""The compiled twin of a set's row (``_clayers.set_record``; None without the compiled reader or when the
filter registry is not the one it computes)."""
sentence_rows_c = compiled.MODULE.SentenceRows if compiled.MODULE is not None else None
"""The compiled twin of :func:`sentence_rows` (``_clayers.SentenceRows``; None without the compiled reader)."""
_TWIN_BITS = tuple(FILTER_BITS.get(name, 0) for name in _TWIN_FILTERS)
"""The bits of :data:`_TWIN_FILTERS`, as :data:`set_record_c` takes them."""


class ParsedFile(NamedTuple):
    """A file's record (see the module docstring)."""

    path: str
    sha256: str
    sentences: int
    problems: list[tuple[str, str, str]]
    removed: list[tuple[str, int]]
    sets: tuple[list[Any], ...]
    dropped: list[tuple[int | None, int, str]]

    def problem_list(self) -> list[Problem]:
        """The problems as :class:`~pyfn.errors.Problem` objects."""
        return [Problem(*p) for p in self.problems]


COLUMNS = 12
"""The number of columns of ``sets``."""


def _no_sets() -> tuple[list[Any], ...]:
    return tuple([] for _ in range(COLUMNS))


def malformed(relpath: str, message: str) -> ParsedFile:
    """The record of a file that cannot be read as a whole."""
    return ParsedFile(relpath, "", 0, [("malformed_file", relpath, message)], [("malformed_file", 1)], _no_sets(), [])


def sentence_rows() -> Callable[..., tuple[int, str, bytes, str, list[Any]]]:
    """:func:`parse_file`'s ``make_sentence`` for one file: ``(id, text, text without trailing whitespace
    in UTF-8, its sentence hash, [None, the other fields])`` (the sentence's JSON is made from the fields
    when a set needs it), the stripped text and the hash made once per distinct text."""
    texts: dict[str, tuple[bytes, str]] = {}

    def sentence(sent_id: int, text: str, *fields: Any) -> tuple[int, str, bytes, str, list[Any]]:
        if text not in texts:
            texts[text] = (text.rstrip().encode(), sentence_hash(text))
        return (sent_id, text, *texts[text], [None, fields])

    return sentence


def parse_file(data: bytes, relpath: str) -> ParsedFile:
    """Read one annotation file's bytes into its record (a file that is not readable XML gives a
    ``malformed_file`` record, as the builder counts it).

    Straight from the rows of :func:`~pyfn.framenet.annotations.read_file` (the reader of
    :func:`~pyfn.framenet.annotations.read_annotations`, without its model objects): a set's JSON line
    is the compiled reader's when it wrote one, else encoded here (each sentence's part of it once);
    each set's filters see a :class:`~pyfn.splits.filters.SetView`.
    """
    filters = [(FILTER_BITS[f.name], f.removes) for f in FILTERS.values()]
    sentence = sentence_rows_c() if sentence_rows_c is not None else sentence_rows()

    def annotation_set(sent: tuple[int, str, bytes, str, list[Any]], set_id: int, status: str, lu_id: int | None,
                       lu_name: str, frame_id: int | None, frame_name: str, layers: list[LayerRows],
                       source: str, line: bytes | None) -> tuple:
        if line is not None and set_record_c is not None:  # the same row, in C (None: odd offsets)
            row = set_record_c(sent, set_id, lu_id, lu_name, frame_id, frame_name, layers, line, _TWIN_BITS)
            if row is not None:
                return row
        sent_id, text, stripped, sent_hash, sentence_json = sent
        reason = invalid_offsets(text, [(row[1], row[2]) for name, _, rows in layers if name in CHECKED_LAYERS
                                        for row in rows])
        if reason is not None:
            return (set_id, sent_id, reason)
        target = tuple(sorted([(row[1], row[2]) for name, _, rows in layers if name == "Target" for row in rows
                               if row[1] is not None and row[2] is not None]))
        fes = [(rank, row[0], row[1], row[2]) for name, rank, rows in layers if name == "FE" for row in rows
               if row[1] is not None and row[2] is not None]
        seen = SetView(text, target, fes)  # type: ignore[arg-type]
        mask = 0
        for bit, removes in filters:
            if removes(seen):
                mask |= bit
        if line is None:  # not written by the compiled reader: encoded here
            if sentence_json[0] is None:
                sentence_json[0] = jsonl.encode_sentence(sent_id, text, *sentence_json[1])
            line = jsonl.encode_set(set_id, source, status, lu_id, lu_name, frame_id, frame_name, layers,
                                    sentence_json[0]).encode()
        spans = spans_key(target)
        lu_name, frame_name = intern(lu_name), intern(frame_name)
        return (set_id, sent_id, frame_id, lu_id, mask, stripped, sent_hash, order_key_of(spans, lu_name, frame_name),
                annoset_hash_of(sent_hash, spans, lu_name, frame_name), lu_name, frame_name, line)

    try:
        result = read_file(data, relpath, sentence, annotation_set)
    except PyfnError as exc:
        return malformed(relpath, str(exc))
    removed: Counter = Counter(p.reason for p in result.problems)
    removed.update(result.not_annotation_sets)
    dropped = [(_int_id(aset_id), sent_id, reason) for aset_id, sent_id, reason in result.not_annotation_set_ids]
    dropped.extend((int(m[2]), int(m[1]), p.reason) for p in result.problems
                   if p.reason == "malformed_annotation_set" and (m := _MALFORMED_SET.search(p.where)))
    valid = []
    for row in result.sets:
        if len(row) == 3:  # an invalid set: (id, sentence id, reason)
            removed[row[2]] += 1
            dropped.append(row)
        else:
            valid.append(row)
    sets = tuple(map(list, zip(*valid))) if valid else _no_sets()
    return ParsedFile(relpath, result.sha256, result.sentences, [(p.reason, p.where, p.message) for p in result.problems],
                      sorted(removed.items()), sets, dropped)


_MALFORMED_SET = re.compile(r" sentence (-?\d+) annotationSet (-?\d+)$")
"""The sentence and set IDs in the ``where`` of a ``malformed_annotation_set`` problem."""


def _int_id(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def dumps(parsed: ParsedFile) -> bytes:
    """The record as bytes."""
    return marshal.dumps(tuple(parsed))


def loads(data: bytes) -> ParsedFile:
    """A record from :func:`dumps`; ``ValueError`` when the bytes are not one."""
    try:
        value = marshal.loads(data)
        parsed = ParsedFile(*value)
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"not a parsed-file record: {exc}") from None
    if len(parsed.sets) != COLUMNS or len({len(column) for column in parsed.sets}) != 1:
        raise ValueError("not a parsed-file record: ragged set columns")
    return parsed
