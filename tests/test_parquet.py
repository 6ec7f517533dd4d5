"""Parquet (pyfn/formats/parquet.py, parquet_lexicon.py) on the bundled sample: schema, content,
lossless round trip, byte-identical files whatever the chunks, jobs or zip, preprocessing columns,
frames and lexicon files, and the one-line message without pyarrow."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pyfn
from pyfn.cli import main
from pyfn.convert import convert, generate_lexicon, read_frames
from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats import jsonl, parquet, parquet_lexicon
from pyfn.formats.base import SplitView, token_span
from pyfn.formats.chunked import SplitLines, write_splits
from pyfn.formats.registry import FormatOptions
from pyfn.framenet import open_release
from pyfn.model import tokens
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

SAMPLE = resource_path("sample")
OPTIONS = BuildOptions(exclude_frames=frozenset({398}))


@pytest.fixture(scope="module")
def sample_pq(tmp_path_factory) -> Path:
    """The sample as JSONL and Parquet, one build."""
    out = tmp_path_factory.mktemp("parquet") / "out"
    convert(SAMPLE, out, to=["jsonl", "parquet"], options=OPTIONS)
    return out


def _fields(schema: pa.Schema | pa.StructType) -> list[pa.Field]:
    """Every field of a schema, nested ones included."""
    out = []
    for item in schema:
        out.append(item)
        kind = item.type
        while pa.types.is_list(kind):
            kind = kind.value_type
        if pa.types.is_struct(kind):
            out += _fields(kind)
    return out


def test_files_schema_and_metadata(sample_pq):
    manifest = json.loads((sample_pq / "manifest.json").read_text(encoding="utf-8"))
    assert {"train.parquet", "dev.parquet", "test.parquet", "frames.parquet", "lexicon.parquet"} <= set(manifest["outputs"])
    assert manifest["parquet"]["pyarrow"] == pa.__version__
    assert manifest["parquet"]["writer_options"]["compression"] == "zstd"
    assert "signature" not in manifest["format_options"]
    for name, schema in (("test", parquet.SCHEMA), ("frames", parquet_lexicon.FRAMES_SCHEMA),
                         ("lexicon", parquet_lexicon.LEXICON_SCHEMA)):
        written = pq.read_schema(sample_pq / f"{name}.parquet")
        assert written.names == schema.names
        assert written.metadata[b"pyfn.signature"].decode() == manifest["signature"]
        for field in _fields(written):  # every column, nested ones too, says what it holds
            assert field.metadata and field.metadata[b"description"], field.name
    meta = pq.ParquetFile(sample_pq / "test.parquet").metadata
    assert meta.created_by == f"parquet-cpp-arrow version {pa.__version__}"
    spans = {f.name: f.metadata.get(b"span", b"").decode() for f in _fields(parquet.SCHEMA)}
    assert "END INCLUSIVE" in spans["char_end"] and "FrameNet" in spans["char_end"]
    assert "END EXCLUSIVE" in spans["char_stop"] and "Python" in spans["char_stop"]
    assert "END INCLUSIVE" in spans["token_char_end"] and "END EXCLUSIVE" in spans["token_stop"]


def test_rows_hold_the_sets(sample_pq):
    sets = list(jsonl.read(sample_pq / "test.jsonl"))
    view = SplitView.of(sets)
    rows = pq.read_table(sample_pq / "test.parquet").to_pylist()
    frames = read_frames(open_release(SAMPLE))
    assert len(rows) == len(sets) == 101
    for aset, number, row in zip(view, view.numbers, rows):
        toks = tokens(aset.sentence.text)
        assert (row["id"], row["frame"], row["lu"], row["sentence_number"]) == (
            aset.id, aset.frame_name, aset.lu_name, number)
        assert row["tokens"] == aset.sentence.text.split()
        for word, start, end, stop in zip(row["tokens"], row["token_char_start"], row["token_char_end"],
                                          row["token_char_stop"]):
            assert aset.sentence.text[start:end + 1] == aset.sentence.text[start:stop] == word
        assert [(t["char_start"], t["char_end"]) for t in row["target"]] == list(aset.target)
        for t in row["target"]:
            assert (t["token_start"], t["token_end"]) == token_span(toks, t["char_start"], t["char_end"])[:2]
            assert t["token_stop"] == t["token_end"] + 1 and t["char_stop"] == t["char_end"] + 1
        assert [(fe["rank"], fe["name"], fe["char_start"], fe["char_end"], fe["itype"]) for fe in row["fes"]] == [
            (rank, lb.name, lb.start, lb.end, lb.itype) for rank, lb in aset.fe_labels]
        cores = {fe.name: fe.core_type for fe in frames[aset.frame_name].fes}
        assert all(fe["core_type"] == cores.get(fe["name"]) for fe in row["fes"])
        assert all(row[name] is None for name in parquet.PREPROCESSED)
    null = [fe for row in rows for fe in row["fes"] if fe["itype"]]
    assert null and all(fe["char_start"] is None and fe["token_start"] is None for fe in null)


def test_round_trip_is_lossless(sample_pq, tmp_path):
    convert(sample_pq, tmp_path / "back", from_="parquet", to="jsonl")
    for split in ("train", "dev", "test"):
        assert (tmp_path / "back" / f"{split}.jsonl").read_bytes() == (sample_pq / f"{split}.jsonl").read_bytes()
    by_jsonl, by_parquet = pyfn.read(sample_pq), pyfn.read(sample_pq, fmt="parquet")
    assert {n: s.sets for n, s in by_parquet.items()} == {n: s.sets for n, s in by_jsonl.items()}
    assert by_parquet["test"].signature == by_jsonl["test"].signature
    assert pyfn.read(sample_pq / "dev.parquet")["dev"].sets == by_jsonl["dev"].sets


def test_bytes_do_not_depend_on_chunks_jobs_or_zip(sample_pq, tmp_path, monkeypatch):
    archive = tmp_path / "sample.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(SAMPLE.rglob("*")):
            zipped.write(path, Path("sample") / path.relative_to(SAMPLE))
    convert(archive, tmp_path / "zip", to="parquet", options=BuildOptions(exclude_frames=frozenset({398}), jobs=1))
    for name in ("train", "dev", "test", "frames", "lexicon"):
        assert (tmp_path / "zip" / f"{name}.parquet").read_bytes() == (sample_pq / f"{name}.parquet").read_bytes()
    # the same rows in one table or in chunks of any size, row groups of any size, give the same file
    sets = list(jsonl.read(sample_pq / "train.jsonl"))
    view = SplitView.of(sets)
    lines = [jsonl.dumps(s).encode() for s in view]
    starts = [i for i, n in enumerate(view.numbers) if i == 0 or view.numbers[i - 1] != n]
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 40)
    whole = parquet.write(tmp_path / "whole.parquet", view)
    assert pq.ParquetFile(whole).metadata.num_row_groups == 8
    for chunk in (7, 100):
        target = tmp_path / f"chunks{chunk}"
        written = write_splits(target, [SplitLines("train", list(lines), starts)], ["parquet"], FormatOptions(),
                               jobs=1, chunk_sets=chunk)
        assert (target / "train.parquet").read_bytes() == whole.read_bytes()
        assert written.outputs["train.parquet"] == hashlib.sha256(whole.read_bytes()).hexdigest()


def test_preprocessing_fills_the_token_columns(sample_pq, tmp_path):
    from pyfn.preprocess.runner import PreprocessOptions  # noqa: PLC0415

    out = tmp_path / "out"
    manifest = convert(SAMPLE, out, to="parquet", options=OPTIONS,
                       preprocess=PreprocessOptions(tool="spacy", cache_dir=tmp_path / "cache"))
    table = pq.read_table(out / "test.parquet")
    rows = table.to_pylist()
    assert all(len(row[name]) == len(row["tokens"]) for row in rows for name in parquet.PREPROCESSED)
    assert rows[0]["xpos"][:2] == ["NNP", "NNP"] and 0 in rows[0]["head"]
    blocks = (out / "test.conllu").read_text(encoding="utf-8").split("\n\n")
    block = [line.split("\t") for line in blocks[rows[0]["sentence_number"]].splitlines() if line[0].isdigit()]
    assert [c[2] for c in block] == rows[0]["lemma"] and [c[7] for c in block] == rows[0]["deprel"]
    assert manifest["outputs"]["test.parquet"] == hashlib.sha256((out / "test.parquet").read_bytes()).hexdigest()
    # every other column as written without preprocessing
    plain = pq.read_table(sample_pq / "test.parquet")
    assert table.drop_columns(list(parquet.PREPROCESSED)).equals(plain.drop_columns(list(parquet.PREPROCESSED)))
    convert(out, tmp_path / "back", from_="parquet", to="jsonl")
    assert (tmp_path / "back" / "test.jsonl").read_bytes() == (sample_pq / "test.jsonl").read_bytes()


def test_frames_and_lexicon_files(sample_pq, tmp_path):
    frames = {row["frame"]: row for row in pq.read_table(sample_pq / "frames.parquet").to_pylist()}
    release = read_frames(open_release(SAMPLE))
    assert sorted(frames) == sorted(name for name, f in release.items() if f.id != 398)
    giving = frames["Damaging"]
    assert giving["definition_markup"].startswith("<def-root>") and "<" not in giving["definition"]
    assert [fe["name"] for fe in giving["fes"]] == [fe.name for fe in release["Damaging"].fes]
    assert all(fe["core_type"] and fe["definition"] for fe in giving["fes"])
    assert any(r["type"] == "Inheritance" for f in frames.values() for r in f["relations"])
    assert all(name in (r["super_frame"], r["sub_frame"]) for name, f in frames.items() for r in f["relations"])
    assert parquet_lexicon.plain_text("<def-root>A <fen>Donor</fen> &amp; more</def-root>") == "A Donor & more"
    # the train columns are pyfn generate's lu_frames.tsv, the release columns its release_lu_frames.tsv
    generate_lexicon(SAMPLE, tmp_path / "lex", options=OPTIONS, release_lexicon=True)
    rows = pq.read_table(sample_pq / "lexicon.parquet").to_pylist()

    def tsv(name: str) -> dict[str, list[str]]:
        lines = (tmp_path / "lex" / name).read_text(encoding="utf-8").splitlines()
        return {line.split("\t")[0]: line.split("\t")[1:] for line in lines}

    assert {r["lu"]: r["train_frames"] for r in rows if r["train_frames"]} == tsv("lu_frames.tsv")
    assert {r["lu"]: r["release_frames"] for r in rows if r["release_frames"]} == tsv("release_lu_frames.tsv")
    train = [json.loads(line) for line in (sample_pq / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(n for r in rows for n in r["train_sets"]) == len(train)


def test_lexicon_without_train_has_null_train_columns(tmp_path):
    convert(SAMPLE, tmp_path / "out", to="parquet", options=BuildOptions(splits=("test",)))
    table = pq.read_table(tmp_path / "out" / "lexicon.parquet")
    assert table.column("train_frames").null_count == table.num_rows > 0
    assert not (tmp_path / "out" / "train.parquet").exists()


def test_from_jsonl_and_empty_split(sample_pq, tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(sample_pq / "test.jsonl", source / "test.jsonl")
    (source / "dev.jsonl").write_text("", encoding="utf-8")
    convert(source, tmp_path / "out", from_="jsonl", to="parquet")
    assert not (tmp_path / "out" / "frames.parquet").exists()  # no release: split files only
    ours = pq.read_table(tmp_path / "out" / "test.parquet")
    theirs = pq.read_table(sample_pq / "test.parquet")
    assert ours.column("fes").to_pylist()[0][0]["core_type"] is None  # no frames given
    assert ours.column("layers").equals(theirs.column("layers")) and ours.column("id").equals(theirs.column("id"))
    frames = read_frames(open_release(SAMPLE))  # --framenet SAMPLE: core types as from the release
    convert(source, tmp_path / "framed", from_="jsonl", to="parquet", formats=FormatOptions(frames=frames))
    framed = pq.read_table(tmp_path / "framed" / "test.parquet")
    assert framed.column("fes").equals(theirs.column("fes"))
    empty = pq.read_table(tmp_path / "out" / "dev.parquet")
    assert empty.num_rows == 0 and empty.schema.names == parquet.SCHEMA.names
    assert list(parquet.read(tmp_path / "out" / "dev.parquet")) == []


def test_reader_skips_bad_rows_and_refuses_other_files(sample_pq, tmp_path):
    table = pq.read_table(sample_pq / "dev.parquet")
    rows = table.to_pylist()
    rows[1]["frame"] = None  # malformed
    rows[2]["layers"] = []  # no target
    rows[3]["id"] = rows[0]["id"]  # duplicate
    bad = tmp_path / "dev.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), bad)
    log = ProblemLog(strict=False)
    assert len(list(parquet.read(bad, log=log))) == len(rows) - 3
    assert log.counts() == {"malformed_row": 1, "no_target:no_layer": 1, "duplicate_id": 1}
    assert f"{bad}: row 1: frame is null" in [p.message for p in log.problems]
    with pytest.raises(PyfnError, match=r"row 1: frame is null"):
        list(parquet.read(bad))
    rows = table.to_pylist()[:2]
    rows[1]["id"], rows[1]["source"] = rows[0]["id"], "exemplar"  # FrameNet numbers the two sources apart
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), bad)
    assert [(s.source, s.id) for s in parquet.read(bad)] == [("fulltext", rows[0]["id"]), ("exemplar", rows[0]["id"])]
    pq.write_table(table.drop_columns(["layers"]), bad)
    with pytest.raises(PyfnError, match="no column 'layers'"):
        list(parquet.read(bad))
    bad.write_text("not parquet", encoding="utf-8")
    with pytest.raises(PyfnError, match="not a Parquet file"):
        list(parquet.read(bad))


def test_without_pyarrow_one_line_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    for args in (["--to", "jsonl", "parquet"], ["--from", "parquet", "--to", "jsonl"]):
        assert main(["convert", "--source", "sample", "--target", str(tmp_path / "out"), *args]) == 2
        err = capsys.readouterr().err
        assert err == 'pyfn: error: the parquet format needs pyarrow: pip install "pyfn[parquet]"\n'
        assert not (tmp_path / "out").exists()
