"""The folder's layout: its configs, their splits and Parquet shards, and the tables written to them.

Every file is written atomically by pyfn's pinned Parquet writer
(:class:`pyfn.formats.parquet.RowGroups`: row groups of 10,000 rows, fixed
options, no timestamp), so the same rows always give the same bytes. A
split of more than :data:`SHARD_ROWS` rows is cut into several files, named
as the hub names them (``train-00000-of-00004.parquet``).
"""

from __future__ import annotations

from math import ceil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pyfn.fileio import atomic_writer
from pyfn.formats import parquet

FULLTEXT = "fulltext"
EXEMPLARS = "fulltext_exemplars"
FRAMES = "frames"
LEXICON = "lexicon"
CONFIGS = (FULLTEXT, EXEMPLARS, FRAMES, LEXICON)
"""The configs, in the card's order (``fulltext`` is the default one)."""
RELEASE_SPLIT = "release"
"""The one split of ``frames``: every frame of the release (minus excluded frames), not a train split."""
HUB_SPLITS = {"train": "train", "dev": "validation", "test": "test"}
"""pyfn's split names and the hub's (``validation`` is pyfn's dev)."""
SHARD_ROWS = 50_000
"""Rows per Parquet file at most (five row groups)."""
DATA = "data"
"""Folder of the Parquet files: ``data/{config}/{split}-{i}-of-{n}.parquet``."""
IDS = "splits"
"""Folder of the split ids: ``splits/{config}/`` in the layout of pyfn's ``resources/splits/fn1.5/ids/``."""
SCHEMA_NAME = "pyfn.hub.annotation_sets/1"
"""``pyfn.schema`` of the annotation-set files: ``pyfn.annotation_sets/1`` without the preprocessing columns."""


def shard_names(split: str, rows: int) -> list[str]:
    """The file names of a split of ``rows`` rows."""
    count = max(1, ceil(rows / SHARD_ROWS))
    return [f"{split}-{i:05d}-of-{count:05d}.parquet" for i in range(count)]


def write_shards(table: pa.Table, folder: Path, split: str) -> list[Path]:
    """Write the rows of ``table`` (with its schema and metadata) into the files of ``split`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, name in enumerate(shard_names(split, table.num_rows)):
        paths.append(folder / name)
        with atomic_writer(paths[-1], "wb") as handle, parquet.RowGroups(handle) as out:
            out.add(table.slice(i * SHARD_ROWS, SHARD_ROWS))
    return paths


def annotation_table(path: Path) -> pa.Table:
    """A ``{split}.parquet`` of ``pyfn convert --to parquet`` without the preprocessing columns (all null:
    the export does not tag or parse), with its signature."""
    table = parquet.read_table(path).drop_columns(list(parquet.PREPROCESSED))
    metadata = {**(table.schema.metadata or {}), b"pyfn.schema": SCHEMA_NAME.encode()}
    return table.replace_schema_metadata(metadata)


def table_as(path: Path, schema: pa.Schema) -> pa.Table:
    """A whole Parquet file in ``schema`` again (Parquet renames a list's ``item``), with its file's metadata."""
    table = pq.read_table(path)
    return table.cast(schema.with_metadata(table.schema.metadata))
