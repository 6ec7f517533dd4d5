"""``pyfn export hf`` on FN 1.5 (PYFN_FN15): every config loads offline with the published counts, the split ids
are those pyfn publishes, the card's header is the hub's. One export (the release parsed once per test session)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FN15_EXCLUDED, need_package

from pyfn.hub.export import export_hf
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

PUBLISHED = {"fulltext": {"train": 16_706, "validation": 2_319, "test": 4_148},
             "fulltext_exemplars": {"train": 170_889, "validation": 2_319, "test": 4_148}}
"""Kabbach et al. (2018), Table 1, as docs/SPLITS.md gives it (frame 398 excluded)."""


pytestmark = pytest.mark.usefixtures("hf_offline")  # no network, a Hugging Face cache of each test's own


@pytest.fixture(scope="module")
def fn15_hub(fn15, tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("fn15_hub") / "out"
    return folder, export_hf(fn15, folder, options=BuildOptions(exclude_frames=FN15_EXCLUDED))


def test_fn15_every_config_loads_with_the_published_counts(fn15_hub, tmp_path):
    datasets = need_package("datasets")
    folder, manifest = fn15_hub
    assert json.loads((folder / "manifest.json").read_text(encoding="utf-8")) == manifest
    for config, record in manifest["configs"].items():
        loaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"))
        assert {split: ds.num_rows for split, ds in loaded.items()} == {
            split: entry["rows"] for split, entry in record["splits"].items()}, config
        if config in PUBLISHED:
            assert {split: ds.num_rows for split, ds in loaded.items()} == PUBLISHED[config]
    assert len(manifest["configs"]["fulltext_exemplars"]["splits"]["train"]["files"]) == 4  # 170,889 rows, shards
    assert manifest["configs"]["frames"]["splits"]["release"]["rows"] == 1_019  # every frame file (398 has none)
    one = datasets.load_dataset(str(folder), "fulltext", split="test", cache_dir=str(tmp_path / "cache"))
    assert one.num_rows == 4_148 and manifest["configs"]["fulltext"]["signature"].startswith(
        "fn:1.5|split:std-2017|ex:no|filters:none|dedup:annoset|excl:398|")


def test_fn15_split_ids_are_the_published_ones(fn15_hub):
    folder, _ = fn15_hub
    for config, shipped in (("fulltext", "ids"), ("fulltext_exemplars", "ids-with-exemplars")):
        published = resource_path("splits", "fn1.5", shipped)
        for path in sorted(published.glob("*.txt")):
            assert (folder / "splits" / config / path.name).read_bytes() == path.read_bytes(), (config, path.name)
        ours = json.loads((folder / "splits" / config / "ids.json").read_text(encoding="utf-8"))["splits"]
        theirs = json.loads((published / "ids.json").read_text(encoding="utf-8"))["splits"]
        assert {split: ours[split] for split in theirs} == theirs


def test_fn15_card(fn15_hub):
    need_package("huggingface_hub")
    from huggingface_hub import DatasetCard  # noqa: PLC0415

    folder, manifest = fn15_hub
    card = DatasetCard.load(folder / "README.md")
    assert card.data.size_categories == ["100K<n<1M"] and card.data.license == "cc-by-3.0"
    assert card.data.pretty_name.startswith("FrameNet 1.5 (standard split, pyfn ")
    assert "| `fulltext` | `test` | 4,148 | 875 | 1 |" in card.text
    assert "| `duplicate` | 6 |" in card.text and "- excluded ids: frames 398" in card.text
    assert "pyfn export hf --source fndata-1.5.zip --target DIR --exclude-frames 398" in card.text
    assert "| pyfn, fulltext | 16,706 / 2,319 / 4,148 |" in card.text  # the recorded audit of this split
