"""``pyfn export hf`` on the bundled sample: a folder ``datasets.load_dataset(DIR, CONFIG)`` reads offline, whose
row counts are the manifest's, whose card header the hub's parser accepts, and which two builds write byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import need_package

import pyfn
from pyfn.cli import main
from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file
from pyfn.hub.card import LICENSE
from pyfn.hub.export import export_hf
from pyfn.hub.layout import CONFIGS, HUB_SPLITS, SHARD_ROWS, shard_names
from pyfn.outdir import files_under
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions
from pyfn.splits.ids import ids_record

SAMPLE = resource_path("sample")


pytestmark = pytest.mark.usefixtures("hf_offline")  # no network, a Hugging Face cache of each test's own


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    """The sample exported through the function, through the command into another folder, then through the
    command again over the first folder (a rerun replaces its own outputs)."""
    root = tmp_path_factory.mktemp("hub")
    export_hf(SAMPLE, root / "a", options=BuildOptions(jobs=1), source_label="sample")
    for folder in ("b", "a"):
        assert main(["export", "hf", "--source", "sample", "--target", str(root / folder), "--jobs", "1",
                     "--quiet"]) == 0
    return root / "a", root / "b"


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_two_builds_are_byte_identical_and_hold_no_path_of_this_machine(exported):
    first, second = exported
    names = list(files_under(first))
    assert names == list(files_under(second))
    assert all((first / name).read_bytes() == (second / name).read_bytes() for name in names)
    manifest = _manifest(first)
    assert sorted([*manifest["outputs"], "manifest.json"]) == sorted(names)
    assert all(sha256_file(first / name) == digest for name, digest in manifest["outputs"].items())
    for name in names:
        data = (first / name).read_bytes()
        assert str(SAMPLE).encode() not in data and str(first).encode() not in data, name


def test_load_dataset_reads_every_config_and_split_offline(exported, tmp_path):
    datasets = need_package("datasets")
    folder = exported[0]
    manifest = _manifest(folder)
    assert list(manifest["configs"]) == list(CONFIGS)
    for config, record in manifest["configs"].items():
        loaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"))
        assert list(loaded) == list(record["splits"]), config
        for split, entry in record["splits"].items():
            one = datasets.load_dataset(str(folder), config, split=split, cache_dir=str(tmp_path / "cache"))
            assert one.num_rows == loaded[split].num_rows == entry["rows"], (config, split)
    for config in ("fulltext", "fulltext_exemplars"):  # the rows are the annotation sets of convert's build
        build = manifest["builds"][config]["splits"]
        assert {hub: manifest["configs"][config]["splits"][hub]["rows"] for hub in HUB_SPLITS.values()} == {
            hub: build[name]["annotation_sets"] for name, hub in HUB_SPLITS.items()}
    test = datasets.load_dataset(str(folder), "fulltext", split="test", cache_dir=str(tmp_path / "cache"))
    fe = test.features["fes"].feature  # typed: a list of structs, not JSON text
    assert fe["char_end"].dtype == "int32" and fe["rank"].dtype == "int32" and fe["name"].dtype == "string"
    row = test[0]
    assert row["frame"] == "Damaging" and row["fes"][0]["name"] == "Cause" and row["fes"][0]["char_end"] == 150
    assert row["text"][row["fes"][0]["char_start"]:row["fes"][0]["char_stop"]].split() == \
        row["tokens"][row["fes"][0]["token_start"]:row["fes"][0]["token_stop"]]
    assert "lemma" not in test.features  # the preprocessing columns, all null without --preprocess, are left out
    exemplars = datasets.load_dataset(str(folder), "fulltext_exemplars", cache_dir=str(tmp_path / "cache"))
    assert exemplars["test"].data.table.equals(test.data.table)
    assert set(exemplars["train"]["source"]) == {"fulltext", "exemplar"}
    frames = datasets.load_dataset(str(folder), "frames", split="release", cache_dir=str(tmp_path / "cache"))
    assert {fe["core_type"] for frame in frames["fes"] for fe in frame} >= {"Core", "Peripheral"}
    lexicon = datasets.load_dataset(str(folder), "lexicon", split="fulltext", cache_dir=str(tmp_path / "cache"))
    assert sum(n for counts in lexicon["train_sets"] for n in counts) == manifest["configs"]["fulltext"]["splits"][
        "train"]["rows"]


def test_split_ids_are_those_of_the_build(exported):
    folder = exported[0]
    manifest = _manifest(folder)
    for config, exemplars in (("fulltext", False), ("fulltext_exemplars", True)):
        splits = pyfn.load("sample", "all", with_exemplars=exemplars)
        record, files = ids_record({name: splits[name] for name in HUB_SPLITS}, splits["train"].signature)
        ids = folder / "splits" / config
        assert json.loads((ids / "ids.json").read_text(encoding="utf-8")) == record
        assert {name: (ids / name).read_text(encoding="utf-8").splitlines() for name in files} == files
        assert manifest["configs"][config]["signature"] == splits["train"].signature


def test_card_header_is_the_hubs_and_its_counts_are_the_manifests(exported):
    need_package("huggingface_hub")
    from datasets.utils.metadata import MetadataConfigs  # noqa: PLC0415
    from huggingface_hub import DatasetCard, DatasetCardData  # noqa: PLC0415

    folder = exported[0]
    manifest = _manifest(folder)
    card = DatasetCard.load(folder / "README.md")
    data = DatasetCardData(**card.data.to_dict(), ignore_metadata_errors=False)
    assert data.license == LICENSE and data.language == ["en"] and data.task_categories == ["token-classification"]
    assert data.size_categories == ["n<1K"] and data.pretty_name.startswith("FrameNet 1.5-sample (standard split")
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert list(configs) == list(manifest["configs"])
    for config, record in manifest["configs"].items():
        files = {entry["split"]: entry["path"] for entry in configs[config]["data_files"]}
        assert files == {split: entry["files"] for split, entry in record["splits"].items()}
    assert configs["fulltext_exemplars"]["data_files"][1]["path"] == manifest["configs"]["fulltext"]["splits"][
        "validation"]["files"]  # one copy of validation and test
    body = card.text
    for config in ("fulltext", "fulltext_exemplars"):
        assert f"`{manifest['configs'][config]['signature']}`" in body
        for split, entry in manifest["configs"][config]["splits"].items():
            assert f"| `{config}` | `{split}` | {entry['rows']:,} | {entry['sentences']:,} |" in body
    assert f"| `duplicate` | 6 |" in body and manifest["release"]["fingerprint"] in body
    assert "Not the standard split" not in body and "--allow-incomplete" not in body
    assert "`fes[].core_type` | string |" in body  # column descriptions come from the schema


def test_incomplete_release_is_refused_or_said_so_plainly(tmp_path):
    release = tmp_path / "release"
    shutil.copytree(SAMPLE, release)
    (release / "fulltext" / "PropBank__AetnaLifeAndCasualty.xml").unlink()
    with pytest.raises(PyfnError, match="PropBank__AetnaLifeAndCasualty.xml.*--allow-incomplete"):
        export_hf(release, tmp_path / "out", options=BuildOptions(jobs=1))
    assert not (tmp_path / "out").exists()
    manifest = export_hf(release, tmp_path / "out", options=BuildOptions(jobs=1, allow_incomplete=True))
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert not manifest["split_definition"]["standard"]
    assert "**Not the standard split.**" in card and "`PropBank__AetnaLifeAndCasualty.xml`" in card
    assert "INCOMPLETE standard split" in card.split("\n")[1] and "--allow-incomplete" in card
    assert "-incomplete|" in manifest["configs"]["fulltext"]["signature"]


def test_never_overwrites_a_file_pyfn_did_not_write(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "README.md").write_text("my own card\n", encoding="utf-8")
    with pytest.raises(PyfnError, match=r"files no pyfn manifest there lists \(README.md\)"):
        export_hf(SAMPLE, target, options=BuildOptions(jobs=1))  # refused before any work
    assert sorted(p.name for p in target.iterdir()) == ["README.md"]
    assert (target / "README.md").read_text(encoding="utf-8") == "my own card\n"


def test_usage_errors_before_any_work(tmp_path):
    with pytest.raises(UsageError, match="drop --with-exemplars"):
        export_hf(SAMPLE, tmp_path / "out", options=BuildOptions(with_exemplars=True))
    with pytest.raises(UsageError, match="OWNER/NAME"):
        export_hf(SAMPLE, tmp_path / "out", repo_id="no-owner")
    with pytest.raises(UsageError, match="lies inside the source"):
        export_hf(SAMPLE, SAMPLE / "hf")
    assert not (tmp_path / "out").exists()


def test_shards():
    assert shard_names("train", 0) == ["train-00000-of-00001.parquet"]
    assert shard_names("train", SHARD_ROWS) == ["train-00000-of-00001.parquet"]
    assert shard_names("train", SHARD_ROWS + 1) == ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"]
