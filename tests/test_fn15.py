"""Integration on the real FrameNet 1.5 release: the published Table 1 counts (Kabbach et al. 2018)."""

import json
import zipfile
from types import SimpleNamespace

import pytest

from conftest import FN15_STD_FORMATS

from pyfn import __version__
from pyfn.convert import SplitSpec, convert
from pyfn.formats import jsonl
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions
from pyfn.splits.hashing import sentence_hash
from pyfn.splits.ids import IDS_RECORD, ids_record

EXCL = frozenset({398})


def _hashes(path):
    return {sentence_hash(s.sentence.text) for s in jsonl.read(path)}


@pytest.fixture(scope="module")
def ft(fn15_std):
    """The session's FN 1.5 conversion (standard split, frame 398 excluded): folder and manifest."""
    return fn15_std.dir, fn15_std.manifest


def test_published_fulltext_counts(ft):
    _, manifest = ft
    assert manifest["splits"]["train"] == {"sentences": 2654, "annotation_sets": 16706}
    assert manifest["splits"]["test"] == {"sentences": 875, "annotation_sets": 4148}
    assert manifest["splits"]["dev"] == {"sentences": 328, "annotation_sets": 2319}
    assert manifest["signature"] == f"fn:1.5|split:std-2017|ex:no|filters:none|dedup:annoset|excl:398|v:{__version__}"
    assert manifest["warnings"] == []


def test_no_sentence_shared_between_splits(ft):
    target, _ = ft
    train, dev, test = (_hashes(target / f"{s}.jsonl") for s in ("train", "dev", "test"))
    assert not train & dev and not train & test and not dev & test


def test_ledger_and_duplicates(ft):
    _, manifest = ft
    ledger = manifest["ledger"]
    assert ledger["train"]["overlap:test"] == 4  # KBEval__utd-icsi / NTI__Iran_Biological and others
    assert ledger["test"]["duplicate"] == 309
    assert ledger["train"]["excluded:frame"] == 1
    assert len(manifest["dedup"]["groups_with_differing_fes"]["test"]) == 36
    lines = sum(1 for _ in open(ft[0] / "test.jsonl"))
    assert lines == 4148


def test_published_fulltext_plus_exemplar_counts(fn15_fnxml):
    """FT+EX train (``fn15_fnxml``: ``--with-exemplars --exclude-frames 398``, every split)."""
    manifest = fn15_fnxml.manifest
    assert manifest["splits"]["train"] == {"sentences": 150426, "annotation_sets": 170889}
    assert manifest["release"]["files_read"] == 78 - 23 - 8 + 31 + 11829
    # the published ids of FT+EX train (resources/splits/fn1.5/ids-with-exemplars/) are this build's
    sets = [_IdView(json.loads(line)) for line in (fn15_fnxml.dir / "train.jsonl").open(encoding="utf-8")]
    record, files = ids_record({"train": sets}, manifest["signature"])
    shipped = resource_path("splits") / "fn1.5" / "ids-with-exemplars"
    assert record == json.loads((shipped / IDS_RECORD).read_text(encoding="utf-8"))
    assert files == {p.name: p.read_text(encoding="utf-8").splitlines() for p in shipped.glob("*.txt")}


class _IdView:
    """What the published ids read of a JSONL set (cheaper than the whole set for 170,889 of them)."""

    def __init__(self, obj: dict) -> None:
        self.id, self.source = obj["id"], obj["source"]
        self.sentence = SimpleNamespace(id=obj["sentence"]["id"], text=obj["sentence"]["text"])


def test_directory_source_equals_zip_source(fn15, ft, tmp_path):
    with zipfile.ZipFile(fn15) as zf:
        members = [n for n in zf.namelist() if "/fulltext/" in n or n.endswith("README.txt")]
        zf.extractall(tmp_path / "dir", members)
    manifest = convert(tmp_path / "dir" / "fndata-1.5", tmp_path / "out", to=list(FN15_STD_FORMATS),
                       options=BuildOptions(exclude_frames=EXCL))
    zipped = ft[1]
    assert manifest["release"]["fingerprint"] == zipped["release"]["fingerprint"]
    assert manifest["outputs"] == zipped["outputs"]


def test_random_split_same_guarantees(fn15, tmp_path):
    a = convert(fn15, tmp_path / "a", options=BuildOptions(exclude_frames=EXCL), split=SplitSpec("random", seed=3))
    b = convert(fn15, tmp_path / "b", options=BuildOptions(exclude_frames=EXCL), split=SplitSpec("random", seed=3))
    c = convert(fn15, tmp_path / "c", options=BuildOptions(exclude_frames=EXCL), split=SplitSpec("random", seed=4))
    assert a["outputs"] == b["outputs"] and a["outputs"] != c["outputs"]
    assert len(a["split_definition"]["test"]) == 23 and len(a["split_definition"]["dev"]) == 8
    assert a["signature"].startswith("fn:1.5|split:random-seed3|")
    train, dev, test = (_hashes(tmp_path / "a" / f"{s}.jsonl") for s in ("train", "dev", "test"))
    assert not train & dev and not train & test and not dev & test


def test_fn17_missing_test_document_is_refused(fn17, fn17_train, tmp_path):
    from pyfn.errors import PyfnError

    with pytest.raises(PyfnError, match="ANC__WhereToHongKong.xml"):
        convert(fn17, tmp_path / "x", options=BuildOptions(splits=("train",)))
    manifest = fn17_train.manifest  # convert(fn17, ..., splits=("train",), allow_incomplete=True)
    assert manifest["split_definition"]["standard"] is False
    assert manifest["split_definition"]["missing_documents"] == ["ANC__WhereToHongKong.xml"]
    assert "split:std-2017-incomplete" in manifest["signature"]
    # published FN 1.7 train FT counts are reproducible on this copy
    assert manifest["splits"]["train"] == {"sentences": 3362, "annotation_sets": 19550}
    assert json.dumps(manifest)
