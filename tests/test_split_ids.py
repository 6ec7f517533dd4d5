"""The published split ids (resources/splits/fn1.5/ids*/) are those pyfn builds, with their checksums."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from pyfn.resources import resource_path
from pyfn.splits.ids import IDS_RECORD, ids_record, write_ids
from conftest import make_set

SHIPPED = resource_path("splits")


def _shipped(folder: str, release: str = "fn1.5") -> tuple[dict, dict[str, list[str]]]:
    path = SHIPPED / release / folder
    record = json.loads((path / IDS_RECORD).read_text(encoding="utf-8"))
    files = {p.name: p.read_text(encoding="utf-8").splitlines() for p in sorted(path.glob("*.txt"))}
    return record, files


def test_fn15_fulltext_ids_are_those_of_the_standard_split(fn15_std, fn15_sets):
    record, files = ids_record(fn15_sets, fn15_std.manifest["signature"])
    assert (record, files) == _shipped("ids")
    assert {n: e["annotation_sets"] for n, e in record["splits"].items()} == {"train": 16706, "dev": 2319, "test": 4148}


def test_fn17_train_ids_are_those_of_the_incomplete_copy_with_the_published_counts(fn17_train):
    from pyfn.formats import jsonl  # noqa: PLC0415

    record, files = _shipped("ids", "fn1.7")
    assert list(record["splits"]) == ["train"] and "ANC__WhereToHongKong.xml" in record["note"]
    built, built_files = ids_record({"train": list(jsonl.read(fn17_train.dir / "train.jsonl"))},
                                    fn17_train.manifest["signature"], record["note"])
    assert (built, built_files) == (record, files)
    assert fn17_train.manifest["splits"]["train"] == {"sentences": 3362, "annotation_sets": 19550}  # the published


def test_ids_per_source_sorted_and_checksummed(tmp_path):
    fulltext = [make_set("a b", [(0, 0)], set_id=7, sent_id=9), make_set("a b", [(2, 2)], set_id=5, sent_id=3)]
    exemplar = replace(make_set("A  b", [(0, 0)], set_id=7, sent_id=9), source="exemplar")  # an ID of each source
    paths = write_ids(tmp_path, {"train": [*fulltext, exemplar]}, "sig")
    assert [p.name for p in paths] == ["train.fulltext.annoset_ids.txt", "train.fulltext.sentence_ids.txt",
                                       "train.exemplar.annoset_ids.txt", "train.exemplar.sentence_ids.txt", IDS_RECORD]
    assert (tmp_path / "train.fulltext.annoset_ids.txt").read_text() == "5\n7\n"
    assert (tmp_path / "train.fulltext.sentence_ids.txt").read_text() == "3\n9\n"
    record = json.loads((tmp_path / IDS_RECORD).read_text())["splits"]["train"]
    assert (record["annotation_sets"], record["normalised_texts"]) == (3, 1)  # "a b" and "A  b" normalise alike
    assert record["normalised_texts_sha256"] == hashlib.sha256(b"ab\n").hexdigest()
    for source in ("fulltext", "exemplar"):
        for kind in ("annoset_ids", "sentence_ids"):
            data = (tmp_path / f"train.{source}.{kind}.txt").read_bytes()
            assert record["sources"][source][f"{kind}_sha256"] == hashlib.sha256(data).hexdigest()
