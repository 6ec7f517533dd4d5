"""Published split ids: the annotation-set and sentence ids a built split keeps, with checksums.

For each split and source (``fulltext``, ``exemplar``: FrameNet numbers the
two apart, and FN 1.5 gives 1,114 IDs to one set of each),
``{split}.{source}.annoset_ids.txt`` and ``{split}.{source}.sentence_ids.txt``
hold one id per line in increasing order, and ``ids.json`` records, per split,
the counts, the sha256 of each list file and the sha256 of the split's normalised
sentence texts (SPLITS.md step 5's hash: lower-cased, whitespace removed; the
distinct ones, sorted, one per line), with the data signature of the build.
Anyone can check a split they hold against them without FrameNet's XML.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pyfn.fileio import write_lines, write_text
from pyfn.model import AnnotationSet
from pyfn.splits.hashing import sentence_hash

IDS_RECORD = "ids.json"
SOURCES = ("fulltext", "exemplar")


def _lines_digest(lines: Sequence[str]) -> str:
    """The sha256 of ``lines`` written one per line (``\\n`` after each), as the list files are."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(f"{line}\n".encode())
    return digest.hexdigest()


class SetKey(NamedTuple):
    """What the id lists keep of an annotation set (a row of a split's Parquet file has them too)."""

    source: str
    id: int
    sentence_id: int
    text: str

    @classmethod
    def of(cls, aset: AnnotationSet) -> SetKey:
        return cls(aset.source, aset.id, aset.sentence.id, aset.sentence.text)


def split_ids(sets: Sequence[SetKey]) -> dict[str, dict[str, list[str]]]:
    """Per source (``fulltext``, ``exemplar``: FrameNet numbers each apart), the sorted annotation-set
    ids and sentence ids of ``sets``."""
    out: dict[str, dict[str, list[str]]] = {}
    for source in SOURCES:
        mine = [s for s in sets if s.source == source]
        if mine:
            out[source] = {
                "annoset_ids": [str(i) for i in sorted({s.id for s in mine})],
                "sentence_ids": [str(i) for i in sorted({s.sentence_id for s in mine})],
            }
    return out


def ids_record(splits: Mapping[str, Sequence[AnnotationSet]], signature: str,
               note: str | None = None) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The record of ``ids.json`` and the list files (name -> lines) for the built ``splits``; ``note``
    (recorded when given) says why a list is published from a build that is not the standard one."""
    return keys_record({name: [SetKey.of(s) for s in sets] for name, sets in splits.items()}, signature, note)


def keys_record(splits: Mapping[str, Sequence[SetKey]], signature: str,
                note: str | None = None) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """:func:`ids_record` from each set's :class:`SetKey` (as read from a file's columns: no set is built)."""
    record: dict[str, Any] = {"signature": signature, "splits": {}}
    if note is not None:
        record["note"] = note
    files: dict[str, list[str]] = {}
    for name, sets in splits.items():
        texts = sorted({sentence_hash(s.text) for s in sets})
        entry: dict[str, Any] = {
            "annotation_sets": len(sets),
            "normalised_texts": len(texts),
            "normalised_texts_sha256": _lines_digest(texts),
            "sources": {},
        }
        for source, found in split_ids(sets).items():
            counts: dict[str, Any] = {}
            for kind, lines in found.items():
                files[f"{name}.{source}.{kind}.txt"] = lines
                counts[kind] = len(lines)
                counts[f"{kind}_sha256"] = _lines_digest(lines)
            entry["sources"][source] = counts
        record["splits"][name] = entry
    return record, files


def write_ids(target: Path, splits: Mapping[str, Sequence[AnnotationSet]], signature: str,
              note: str | None = None) -> list[Path]:
    """Write the list files and ``ids.json`` into ``target`` (atomically each); return their paths."""
    return write_keys(target, {name: [SetKey.of(s) for s in sets] for name, sets in splits.items()}, signature, note)


def write_keys(target: Path, splits: Mapping[str, Sequence[SetKey]], signature: str,
               note: str | None = None) -> list[Path]:
    """:func:`write_ids` from each set's :class:`SetKey`."""
    record, files = keys_record(splits, signature, note)
    paths = []
    for name, lines in files.items():
        write_lines(target / name, lines)
        paths.append(target / name)
    write_text(target / IDS_RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return [*paths, target / IDS_RECORD]
