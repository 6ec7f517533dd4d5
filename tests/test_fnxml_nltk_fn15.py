"""NLTK's ``FramenetCorpusReader`` on the FrameNet-layout folders of FN 1.5 (``fn15_fnxml``: ``pyfn convert
--to jsonl fnxml --with-exemplars --exclude-frames 398``), and frame-semantic-transformer's way of loading
FrameNet (NLTK's reader over a corpus folder) on each of them: what they read is pyfn's annotation sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import framenet_reader
from lxml import etree

from pyfn.framenet.annotations import read_annotations

SPLITS = ("train", "dev", "test")
NS = "{http://framenet.icsi.berkeley.edu}"
UNANNOTATED = {1992380, 2333667}
"""The two exemplar sets --to fnxml leaves out (``unannotated_exemplar``)."""


def frame_annotations(sentence) -> list[tuple]:
    """The annotation sets of an NLTK sentence that frame-semantic-transformer's FrameNet 1.7 training loader
    keeps (those with ``FE``, ``Target`` and ``frame``), as ``(ID, frame name, target starts, overt FEs)``."""
    return [(a["ID"], a["frame"]["name"], [start for start, _ in a["Target"]], list(a["FE"][0]))
            for a in sentence["annotationSet"] if "FE" in a and "Target" in a and "frame" in a]


def samples_from_docs(fn) -> list[tuple[str, list]]:
    """What that loader gathers from full text, written again here: for every sentence of every document of
    ``fn.docs()``, its text and its frame annotations; a sentence without one is skipped."""
    return [(s["text"], found) for doc in fn.docs() for s in doc["sentence"] if (found := frame_annotations(s))]


def samples_from_exemplars(fn) -> list[tuple[str, list]]:
    """The same for every sentence of ``fn.exemplars()`` (the loader then drops those whose text a full-text
    sentence has: a choice of its own, counted apart below)."""
    return [(s["text"], found) for s in fn.exemplars() if (found := frame_annotations(s))]


def hidden_lus(folder: Path) -> set[int]:
    """The LUs NLTK's exemplars() never reaches: it keys a frame's LUs by name, so of two LUs with one name
    in one frame it keeps the last, and it skips those of status Problem."""
    hidden = set()
    for path in (folder / "frame").iterdir():
        by_name: dict[str, list[int]] = {}
        for lu in etree.parse(str(path)).getroot().iter(NS + "lexUnit"):
            by_name.setdefault(lu.get("name"), []).append(int(lu.get("ID")))
            if lu.get("status") == "Problem":
                hidden.add(int(lu.get("ID")))
        hidden.update(i for ids in by_name.values() for i in ids[:-1])
    return hidden


@pytest.fixture(scope="module")
def out(fn15_fnxml) -> Path:
    return fn15_fnxml.dir


@pytest.fixture(scope="module")
def pyfn_sets(out) -> dict[str, list[dict]]:
    """Each split's sets as the release conversion wrote them (``{split}.jsonl``): id, source, LU id, frame,
    LU and target spans (NLTK's: end exclusive)."""
    sets = {}
    for split in SPLITS:
        sets[split] = []
        for line in (out / f"{split}.jsonl").open(encoding="utf-8"):
            s = json.loads(line)
            target = sorted((lb[1], lb[2] + 1) for layer in s["layers"] if layer["name"] == "Target"
                            for lb in layer["labels"])
            sets[split].append((s["id"], s["source"], s["lu_id"], s["frame"], s["lu"], target))
    return sets


@pytest.fixture(scope="module")
def nltk_read(out) -> dict[str, dict]:
    """Each split folder opened with NLTK, once: every frame and LU, then annotations() (it walks docs(),
    ft_sents() and, for train, exemplars()), then what frame-semantic-transformer's loader gathers. Any
    exception of NLTK's reader fails every test that uses this."""
    read = {}
    for split in SPLITS:
        with framenet_reader(out / split) as fn:
            frames = [fn.frame(frame_id) for frame_id in sorted(fn.frame_ids_and_names())]
            lus = [fn.lu(lu_id) for lu_id in sorted(fn.lu_ids_and_names())]
            annotations = list(fn.annotations(exemplars=split == "train"))
            full_text = [a for a in annotations if a["_type"] == "fulltext_annotationset"]
            read[split] = {
                "frames": len(frames), "fes": sum(len(f.FE) for f in frames), "lus": len(lus),
                "docs": len(fn.docs()), "ft_sentences": len({id(a.sent) for a in full_text}),
                "ft_sets": {a.ID: (a.frame.name, a.luName, a.Target) for a in full_text},
                "annotations": len(annotations),
                "fst_docs": samples_from_docs(fn),
                "fst_exemplars": samples_from_exemplars(fn) if split == "train" else [],
            }
    return read


def test_nltk_opens_every_frame_lu_and_document(out, nltk_read):
    for split in SPLITS:
        read = nltk_read[split]
        assert read["frames"] == len(list((out / split / "frame").iterdir())), split
        entries = etree.parse(str(out / split / "luIndex.xml")).getroot().findall(NS + "lu")
        assert read["lus"] == len(entries), split  # luIndex.xml lists no LU of status Problem, as released
        assert read["docs"] == len(list((out / split / "fulltext").iterdir())), split
    assert {s: (r["frames"], r["fes"], r["lus"], r["docs"], r["ft_sentences"]) for s, r in nltk_read.items()} == {
        "train": (876, 6875, 9168, 47, 2687), "dev": (1019, 9633, 11829, 8, 328), "test": (1019, 9633, 11829, 23, 879)}


def test_nltk_full_text_sets_are_pyfns(nltk_read, pyfn_sets):
    """Every full-text set, with pyfn's frame, LU and target."""
    for split in SPLITS:
        pyfn = {i: (frame, lu, target) for i, source, _, frame, lu, target in pyfn_sets[split] if source == "fulltext"}
        assert nltk_read[split]["ft_sets"] == pyfn, split
    assert [len(nltk_read[s]["ft_sets"]) for s in SPLITS] == [16706, 2319, 4148]


def test_nltk_exemplars_are_pyfns_but_those_of_lus_it_never_reaches(out, nltk_read, pyfn_sets):
    """NLTK's exemplars() yields every exemplar set of train/ but those of press.v (10117) and rainforest.n
    (3474), each the first of two LUs of one name in its frame (NLTK keys them by name: on the release too).
    Their sets are in lu/lu10117.xml and lu/lu3474.xml, which ``fn.lu(ID).exemplars`` reads."""
    hidden = hidden_lus(out / "train")
    written = {(i, frame) for i, source, lu_id, frame, _, _ in pyfn_sets["train"]
               if source == "exemplar" and i not in UNANNOTATED}
    unreached = {(i, frame, lu_id) for i, source, lu_id, frame, _, _ in pyfn_sets["train"]
                 if source == "exemplar" and lu_id in hidden}
    assert {lu_id for _, _, lu_id in unreached} == {10117, 3474} and len(unreached) == 33
    seen = [(a[0], a[1]) for _, found in nltk_read["train"]["fst_exemplars"] for a in found]
    assert len(seen) == len(set(seen)) == len(written) - 33 == 154181 - 33
    assert set(seen) == written - {(i, frame) for i, frame, _ in unreached}
    with framenet_reader(out / "train") as fn:
        assert sorted(len(fn.lu(lu_id).exemplars) for lu_id in (10117, 3474)) == [15, 18]
        for lu_id in (10117, 2570):  # NLTK and pyfn's reader read the same sets from an LU file
            path = out / "train" / "lu" / f"lu{lu_id}.xml"
            ours = {s.id for s in read_annotations(path.read_bytes(), f"lu/{path.name}").sets}
            assert ours == {a.ID for s in fn.lu(lu_id).exemplars for a in s.annotationSet if "Target" in a}


def test_nltk_annotations(nltk_read):
    """annotations(): every full-text set, and one set per exemplar sentence, its frame annotation (the last
    set whose status is not UNANN): 154,050 sentences hold the 154,148 exemplar sets NLTK reaches. dev and
    test hold no lu/ (no exemplars): annotations(exemplars=False) there."""
    train = nltk_read["train"]
    assert len(train["fst_exemplars"]) == 154050
    assert train["annotations"] == 16706 + 154050
    assert nltk_read["dev"]["annotations"] == 2319 and nltk_read["test"]["annotations"] == 4148


def test_frame_semantic_transformer_loader_counts_pyfns_sets(fn15_fnxml, nltk_read):
    """The annotation sets frame-semantic-transformer's loader gathers from each split folder are pyfn's:
    the manifest's count less the counted losses of --to fnxml and, in train, less the 33 exemplar sets NLTK
    never reaches (above). Its loader then drops the exemplar sentences whose text a full-text sentence has."""
    manifest = fn15_fnxml.manifest
    units = manifest["units"]["losses"]
    expected = {split: manifest["splits"][split]["annotation_sets"]
                - sum(n for reason, n in manifest["losses"][split].items() if units[reason] == "annotation sets")
                for split in SPLITS}
    assert expected == {"train": 170887, "dev": 2319, "test": 4148}
    docs = {split: sum(len(found) for _, found in nltk_read[split]["fst_docs"]) for split in SPLITS}
    exemplars = sum(len(found) for _, found in nltk_read["train"]["fst_exemplars"])
    assert docs == {"train": 16706, "dev": 2319, "test": 4148}  # include_exemplars=False: train's full text
    assert docs["train"] + exemplars == expected["train"] - 33
    full_text = {text for text, _ in nltk_read["train"]["fst_docs"]}
    dropped = [found for text, found in nltk_read["train"]["fst_exemplars"] if text in full_text]
    assert (len(dropped), sum(len(found) for found in dropped)) == FST_DROPS


FST_DROPS = (9, 10)
"""Exemplar sentences (and their sets) whose text a train full-text sentence has."""
