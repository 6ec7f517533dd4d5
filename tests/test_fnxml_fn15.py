"""``pyfn convert --to jsonl fnxml --with-exemplars --exclude-frames 398`` of FN 1.5 (``fn15_fnxml``): every
file valid against the release's own schemas, the layout NLTK's reader looks for, train's lexicon train-only
(``pyfn generate``'s ``fn_train/``), and each split folder read back (``--from fnxml --source OUT/{split}``)
as the split it holds. NLTK's reader and frame-semantic-transformer's loader: test_fnxml_nltk_fn15.py."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import schema_failures
from lxml import etree

from pyfn.convert import convert
from pyfn.formats import fnxml
from pyfn.train_lexicon import TrainInventory, release_frames
from pyfn.splits.builder import BuildOptions

SPLITS = ("train", "dev", "test")
NS = "{http://framenet.icsi.berkeley.edu}"
LOSSES = {"train": {"fnxml:duplicate_label": 7, "fnxml:unannotated_exemplar": 2}, "dev": {}, "test": {}}
UNANNOTATED = [1992380, 2333667]
"""Exemplar sets of status UNANN alone in their sentence (ankle.n, enough.adv): their MANUAL duplicate, of a
higher ID, was removed from train (``duplicate``)."""
REPEATED_LABELS = {170471: 4, 245505: 1, 510009: 1, 566309: 1}
"""Exemplar sets whose GF or PT layer holds a label twice (set ID: labels written once instead of twice)."""


@pytest.fixture(scope="module")
def out(fn15_fnxml) -> Path:
    return fn15_fnxml.dir


def test_counts_losses_and_lexicons(fn15_fnxml):
    manifest = fn15_fnxml.manifest
    assert manifest["splits"] == {"train": {"sentences": 150426, "annotation_sets": 170889},
                                  "dev": {"sentences": 328, "annotation_sets": 2319},
                                  "test": {"sentences": 875, "annotation_sets": 4148}}
    assert manifest["release"]["files_read"] == 78 + 11829
    assert manifest["losses"] == LOSSES
    records = manifest["fnxml"]["splits"]
    written = {split: (r["lexicon"], r["annotation_sets"], r["fulltext_documents"], r["lu_files"],
                       r["lu_files_with_exemplars"], r["frames"]["kept"], r["lus"]["kept"])
               for split, r in records.items()}
    assert written == {"train": ("train", 170887, 47, 9201, 7710, 876, 9201),
                       "dev": ("release", 2319, 8, 0, 0, 1019, 11942),
                       "test": ("release", 4148, 23, 0, 0, 1019, 11942)}
    assert records["train"]["train_frames_without_fe"] == []  # Growing_food's exemplars label its FEs


def test_every_file_is_valid_against_the_release_schemas(out, fn15_schemas):
    roots: dict[str, Counter] = {}
    for split in SPLITS:
        files = sorted((out / split).rglob("*.xml"))
        roots[split] = Counter(etree.QName(etree.parse(str(p)).getroot()).localname for p in files)
        assert schema_failures(fn15_schemas, ((str(p), p.read_bytes()) for p in files)) == {}, split
    common = {"frameIndex": 1, "luIndex": 1, "frameRelations": 1, "semTypes": 1, "fulltextIndex": 1}
    assert roots == {"train": {**common, "fullTextAnnotation": 47, "lexUnit": 9201, "frame": 876},
                     "dev": {**common, "fullTextAnnotation": 8, "frame": 1019},
                     "test": {**common, "fullTextAnnotation": 23, "frame": 1019}}


def test_folders_hold_what_nltk_looks_for(out):
    """fulltextIndex.xml names each fulltext file as NLTK derives it (corpus__document.xml); train has the LU
    file of every LU of its frame files (NLTK's exemplars() opens them all); dev and test have no lu/."""
    for split in SPLITS:
        index = etree.parse(str(out / split / "fulltextIndex.xml")).getroot()
        named = {f"{c.get('name')}__{d.get('description')}.xml" for c in index for d in c}
        assert named == {p.name for p in (out / split / "fulltext").iterdir()}, split
        marker = fnxml.split_marker(out / split)
        assert marker is not None and marker["pyfn_split"] == split
    listed = {lu.get("ID") for p in (out / "train" / "frame").iterdir()
              for lu in etree.parse(str(p)).getroot().iter(NS + "lexUnit")}
    assert {p.name for p in (out / "train" / "lu").iterdir()} == {f"lu{i}.xml" for i in listed}
    assert not (out / "dev" / "lu").exists() and not (out / "test" / "lu").exists()
    lexicon = [p.relative_to(out / "dev") for p in (out / "dev").rglob("*") if p.is_file()
               and p.parts[-2] != "fulltext" and p.name not in ("fulltextIndex.xml", "pyfn-split.json", "README.txt")]
    assert all((out / "dev" / p).read_bytes() == (out / "test" / p).read_bytes() for p in lexicon)


def test_train_folder_names_only_what_train_names(out):
    """Every frame, LU and FE that train/'s lexicon names occurs in train's sets (read here from train.jsonl,
    not with pyfn's inventory). With exemplars, train has every frame of dev and test."""
    frames, lus, fes = set(), set(), set()
    for line in (out / "train.jsonl").open(encoding="utf-8"):
        s = json.loads(line)
        frames.add(s["frame"])
        lus.add((s["lu"], s["frame"]))
        fes.update((s["frame"], lb[0]) for layer in s["layers"] if layer["name"] == "FE" for lb in layer["labels"])
    named = {"frame": set(), "lu": set(), "fe": set()}
    for path in (out / "train" / "frame").iterdir():
        root = etree.parse(str(path)).getroot()
        frame = root.get("name")
        named["frame"].add(frame)
        named["frame"].update(r.text for r in root.iter(NS + "relatedFrame"))
        named["lu"].update((lu.get("name"), frame) for lu in root.iter(NS + "lexUnit"))
        named["fe"].update((frame, fe.get("name")) for tag in ("FE", "memberFE") for fe in root.iter(NS + tag))
    for lu in etree.parse(str(out / "train" / "luIndex.xml")).getroot().iter(NS + "lu"):
        named["lu"].add((lu.get("name"), lu.get("frameName")))
    for rel in etree.parse(str(out / "train" / "frRelation.xml")).getroot().iter(NS + "frameRelation"):
        named["frame"].update((rel.get("subFrameName"), rel.get("superFrameName")))
    assert named["frame"] <= frames and named["lu"] <= lus and named["fe"] <= fes
    assert len(frames) == len(list((out / "train" / "frame").iterdir())) == 876


def test_train_lexicon_is_generates_fn_train(fn15_release, fn15_sets, fn15_lexicon):
    """For the same train sets (full text, frame 398 excluded), train/'s lexicon is ``pyfn generate``'s fn_train/."""
    lexicon = fnxml.train_lexicon(fn15_release, release_frames(fn15_release), TrainInventory.of(fn15_sets["train"]))
    view = fn15_lexicon.dir / "fn_train"
    generated = {p.relative_to(view).as_posix(): p.read_bytes() for p in view.rglob("*") if p.is_file()}
    assert {name: data for name, data in lexicon.files.items() if not name.startswith("schema/")} == generated
    assert len(lexicon.lu_heads) == 3253


# ---------------------------------------------------------------- read back: the split each folder holds


@pytest.mark.parametrize("split", ["dev", "test"])
def test_evaluation_folders_read_back_byte_for_byte(out, split, tmp_path):
    manifest = convert(out / split, tmp_path, to="jsonl", options=BuildOptions(jobs=2))
    assert (tmp_path / f"{split}.jsonl").read_bytes() == (out / f"{split}.jsonl").read_bytes()
    assert manifest["warnings"] == [] and manifest["skipped"] == {}
    assert manifest["source"]["pyfn_split"]["signature"] == manifest["signature"]


def test_train_folder_reads_back_up_to_its_counted_losses(out, tmp_path):
    """Two sets left out (unannotated_exemplar), seven repeated labels written once (duplicate_label); every
    other set is read back as the release conversion wrote it, in the same order."""
    manifest = convert(out / "train", tmp_path, to="jsonl", options=BuildOptions(jobs=2))
    assert manifest["splits"]["train"] == {"sentences": 150426, "annotation_sets": 170887}
    assert manifest["warnings"] == [] and manifest["skipped"] == {}
    left_out = tuple(f'{{"id":{set_id},"source":"exemplar",' for set_id in UNANNOTATED)
    before = [line for line in (out / "train.jsonl").open(encoding="utf-8") if not line.startswith(left_out)]
    back = list((tmp_path / "train.jsonl").open(encoding="utf-8"))
    assert len(back) == len(before) == 170887
    changed = {(was := json.loads(a))["id"]: (was, json.loads(b)) for a, b in zip(before, back, strict=True) if a != b}
    assert sorted(changed) == sorted(REPEATED_LABELS)
    for set_id, (was, now) in changed.items():
        assert {**was, "layers": None} == {**now, "layers": None} and was["source"] == "exemplar"
        dropped = 0
        for old, new in zip(was["layers"], now["layers"], strict=True):
            assert new["labels"] == [lb for i, lb in enumerate(old["labels"]) if lb not in old["labels"][:i]]
            dropped += len(old["labels"]) - len(new["labels"])
        assert dropped == REPEATED_LABELS[set_id]
    assert sum(REPEATED_LABELS.values()) == LOSSES["train"]["fnxml:duplicate_label"]
