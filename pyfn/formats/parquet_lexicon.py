"""``frames.parquet`` and ``lexicon.parquet``: the frame inventory and the candidate-frame lexicons.

Written beside the split files by ``pyfn convert --to parquet`` from a
release, for models that read frame and FE definitions or restrict a
target's candidate frames:

- ``frames.parquet``: one row per frame of the release's ``frame/`` folder
  (minus ``--exclude-frames``): ID, name, definition (plain text and
  FrameNet's markup), semantic types, FEs (core type, definition...), LUs
  and the frame relations of ``frRelation.xml`` it takes part in;
- ``lexicon.parquet``: one row per LU name, with the frames it evokes in
  train (the train-only lexicon of ``pyfn generate``'s ``lu_frames.tsv``, with
  the number of train sets of each) and the frames whose frame file lists it
  (``release_lu_frames.tsv``: release-derived by design, naming dev- and
  test-only frames).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Collection, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pyfn.fileio import atomic_writer
from pyfn.formats.parquet import RowGroups, file_metadata
from pyfn.framenet.lexicon import read_frame_definitions, read_frame_relations
from pyfn.framenet.release import Release
from pyfn.train_lexicon import release_lu_frames
from pyfn.model import Frame, FrameRelation

FRAMES_SCHEMA_NAME = "pyfn.frames/1"
LEXICON_SCHEMA_NAME = "pyfn.lexicon/1"


def _field(name: str, type_: pa.DataType, description: str) -> pa.Field:
    return pa.field(name, type_, metadata={"description": description})


_DEFINITIONS = [
    _field("definition", pa.string(), "definition as plain text: FrameNet's markup with its tags removed and "
           "its entities decoded"),
    _field("definition_markup", pa.string(), "definition as FrameNet writes it (<def-root>, <fen>, <ex>...)"),
]
_FE = pa.struct([
    _field("fe_id", pa.int64(), "FE ID"),
    _field("name", pa.string(), "FE name"),
    _field("abbrev", pa.string(), "FE abbreviation"),
    _field("core_type", pa.string(), "Core, Core-Unexpressed, Peripheral or Extra-Thematic"),
    *_DEFINITIONS,
    _field("sem_types", pa.list_(pa.string()), "semantic types of the FE"),
])
_LU = pa.struct([
    _field("lu_id", pa.int64(), "LU ID"),
    _field("name", pa.string(), "LU name (give.v)"),
    _field("pos", pa.string(), "LU part of speech"),
    _field("status", pa.string(), "LU status"),
])
_FE_RELATION = pa.struct([
    _field("super_fe", pa.string(), "FE of the super frame"),
    _field("sub_fe", pa.string(), "FE of the sub frame"),
])
_RELATION = pa.struct([
    _field("relation_id", pa.int64(), "frameRelation ID"),
    _field("type", pa.string(), "relation type, FrameNet's spelling (Inheritance, Subframe, Using...)"),
    _field("super_frame_id", pa.int64(), "super (parent) frame ID"),
    _field("super_frame", pa.string(), "super (parent) frame name"),
    _field("sub_frame_id", pa.int64(), "sub (child) frame ID"),
    _field("sub_frame", pa.string(), "sub (child) frame name"),
    _field("fe_relations", pa.list_(_FE_RELATION), "FE-to-FE mappings of the relation"),
])

FRAMES_SCHEMA = pa.schema([
    _field("frame_id", pa.int64(), "frame ID"),
    _field("frame", pa.string(), "frame name"),
    *_DEFINITIONS,
    _field("sem_types", pa.list_(pa.string()), "semantic types of the frame"),
    _field("fes", pa.list_(_FE), "the frame's FEs, in frame-file order"),
    _field("lus", pa.list_(_LU), "the LUs the frame file lists"),
    _field("relations", pa.list_(_RELATION), "the frame relations of frRelation.xml the frame is super or sub "
           "frame of, by relation ID (relations naming an excluded frame left out)"),
])
"""The schema of ``frames.parquet``: one row per frame, sorted by name."""

LEXICON_SCHEMA = pa.schema([
    _field("lu", pa.string(), "LU name (give.v)"),
    _field("train_frames", pa.list_(pa.string()), "frames the LU evokes in the train annotation sets, sorted "
           "(empty: not in train; null column: train was not built)"),
    _field("train_sets", pa.list_(pa.int32()), "train annotation sets of each of train_frames"),
    _field("release_frames", pa.list_(pa.string()), "frames whose frame file lists the LU, sorted (the full "
           "release, minus excluded frames and LUs; release-derived: names dev- and test-only frames)"),
])
"""The schema of ``lexicon.parquet``: one row per LU name in train or the release, sorted."""

_TAG = re.compile(r"<[^<>]*>")


def plain_text(markup: str) -> str:
    """A FrameNet definition without its tags, entities decoded (whitespace kept)."""
    return html.unescape(_TAG.sub("", markup))


def _relation_row(relation: FrameRelation) -> dict:
    return {
        "relation_id": relation.id, "type": relation.type, "super_frame_id": relation.sup_id,
        "super_frame": relation.super_frame, "sub_frame_id": relation.sub_id, "sub_frame": relation.sub_frame,
        "fe_relations": [{"super_fe": r.super_fe, "sub_fe": r.sub_fe} for r in relation.fe_relations],
    }


def frames_table(release: Release, frames: Mapping[str, Frame], exclude_frames: Collection[int],
                 signature: str | None) -> pa.Table:
    """The rows of ``frames.parquet``: every frame of ``frames`` (read from ``release``) not excluded."""
    relations = read_frame_relations(release.read("frRelation.xml")) if release.exists("frRelation.xml") else []
    kept = {frame.name for frame in frames.values() if frame.id not in exclude_frames}
    by_frame: dict[str, list[FrameRelation]] = {}
    for relation in sorted(relations, key=lambda r: r.id):
        if relation.super_frame in kept and relation.sub_frame in kept:
            for name in dict.fromkeys((relation.super_frame, relation.sub_frame)):
                by_frame.setdefault(name, []).append(relation)
    paths = {path.rsplit("/", 1)[-1].removesuffix(".xml"): path for path in release.list("frame")}
    rows: dict[str, list] = {name: [] for name in FRAMES_SCHEMA.names}
    for name in sorted(kept):
        frame = frames[name]
        path = paths.get(name)
        definition, fe_definitions = read_frame_definitions(release.read(path), path) if path else ("", {})
        row = {
            "frame_id": frame.id, "frame": name, "definition": plain_text(definition),
            "definition_markup": definition, "sem_types": list(frame.sem_types),
            "fes": [
                {"fe_id": fe.id, "name": fe.name, "abbrev": fe.abbrev, "core_type": fe.core_type,
                 "definition": plain_text(fe_definitions.get(fe.id, "")),
                 "definition_markup": fe_definitions.get(fe.id, ""), "sem_types": list(fe.sem_types)}
                for fe in frame.fes
            ],
            "lus": [{"lu_id": lu.id, "name": lu.name, "pos": lu.pos, "status": lu.status} for lu in frame.lus],
            "relations": [_relation_row(r) for r in by_frame.get(name, [])],
        }
        for key, value in row.items():
            rows[key].append(value)
    return pa.Table.from_pydict(rows, schema=FRAMES_SCHEMA.with_metadata(file_metadata(FRAMES_SCHEMA_NAME, signature)))


def lexicon_table(frames: Mapping[str, Frame], train: Path | None, exclude_frames: Collection[int],
                  exclude_lus: Collection[int], signature: str | None) -> pa.Table:
    """The rows of ``lexicon.parquet``; the train columns from ``train`` (a ``train.parquet``), null without it."""
    release = release_lu_frames(frames.values(), exclude_frames, exclude_lus)
    counts: Counter[tuple[str, str]] = Counter()
    if train is not None:
        pairs = pq.read_table(train, columns=["lu", "frame"])
        counts.update(zip(pairs.column("lu").to_pylist(), pairs.column("frame").to_pylist()))
    in_train: dict[str, list[str]] = {}
    for lu, frame in sorted(counts):
        in_train.setdefault(lu, []).append(frame)
    names = sorted({*release, *in_train})
    rows = {
        "lu": names,
        "train_frames": [in_train.get(lu, []) if train is not None else None for lu in names],
        "train_sets": [[counts[lu, f] for f in in_train.get(lu, [])] if train is not None else None for lu in names],
        "release_frames": [release.get(lu, []) for lu in names],
    }
    return pa.Table.from_pydict(rows, schema=LEXICON_SCHEMA.with_metadata(file_metadata(LEXICON_SCHEMA_NAME, signature)))


def write(release: Release, target: Path, frames: Mapping[str, Frame], *, train: Path | None,
          exclude_frames: Collection[int] = (), exclude_lus: Collection[int] = (),
          signature: str | None = None) -> list[Path]:
    """Write ``frames.parquet`` and ``lexicon.parquet`` into ``target``; return their paths."""
    paths = []
    for name, table in (
        ("frames.parquet", frames_table(release, frames, frozenset(exclude_frames), signature)),
        ("lexicon.parquet", lexicon_table(frames, train, exclude_frames, exclude_lus, signature)),
    ):
        paths.append(target / name)
        with atomic_writer(paths[-1], "wb") as handle, RowGroups(handle) as out:
            out.add(table)
    return paths
