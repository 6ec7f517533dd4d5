"""Parquet on FN 1.5: the round trip gives byte for byte the JSONL pyfn writes from the release, and
the files of a parallel, chunked build are those of one table written at once."""

from __future__ import annotations

import pyarrow.parquet as pq

from pyfn.convert import convert, read_frames
from pyfn.formats import jsonl, parquet
from pyfn.splits.builder import BuildOptions


def test_fn15_parquet_round_trip_and_bytes(fn15, fn15_release, fn15_std, fn15_lexicon, tmp_path):
    out = tmp_path / "pq"
    manifest = convert(fn15, out, to="parquet", options=BuildOptions(exclude_frames=frozenset({398}), jobs=2))
    assert manifest["splits"] == fn15_std.manifest["splits"]
    convert(out, tmp_path / "back", from_="parquet", to="jsonl")
    frames = read_frames(fn15_release)
    for split in ("train", "dev", "test"):
        assert (tmp_path / "back" / f"{split}.jsonl").read_bytes() == (fn15_std.dir / f"{split}.jsonl").read_bytes()
        sets = list(jsonl.read(fn15_std.dir / f"{split}.jsonl"))
        whole = parquet.write(tmp_path / f"{split}.parquet", sets, frames=frames, signature=manifest["signature"])
        assert whole.read_bytes() == (out / f"{split}.parquet").read_bytes(), split
    assert pq.ParquetFile(out / "train.parquet").metadata.num_row_groups == 2  # 16,706 rows
    frame_rows = pq.read_table(out / "frames.parquet", columns=["frame_id"]).column("frame_id").to_pylist()
    assert sorted(frame_rows) == sorted(f.id for f in frames.values() if f.id != 398)
    lexicon = pq.read_table(out / "lexicon.parquet").to_pylist()
    lines = (fn15_lexicon.dir / "lu_frames.tsv").read_text(encoding="utf-8").splitlines()
    assert {r["lu"]: r["train_frames"] for r in lexicon if r["train_frames"]} == {
        line.split("\t")[0]: line.split("\t")[1:] for line in lines}
    assert sum(n for r in lexicon for n in r["train_sets"]) == 16_706
