"""``pyfn show``: each fate kind with its counterpart, the trace against the ledger, the manifest path,
ambiguous and unknown ids (small crafted releases and the bundled sample)."""

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError, UsageError
from pyfn.formats.registry import FormatOptions
from pyfn.framenet import open_release
from pyfn.show import Inputs, bracketed, render, show
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.splits.definitions import SplitDefinition
from pyfn.splits.trace import Trace

from conftest import NS, fulltext_xml, make_release, make_set, set_spec

DEF = SplitDefinition("t", dev=("dev.xml",), test=("test.xml",))
GIVE = "Kim gave Sandy a book ."
LU_FILE = f"""<?xml version="1.0" encoding="UTF-8"?>
<lexUnit xmlns="{NS}" name="give.v" frame="Giving" ID="5" frameID="139"><subCorpus name="s">
<sentence ID="900"><text>Pat gave it away .</text>
<annotationSet ID="11" status="MANUAL"><layer rank="1" name="Target"><label start="4" end="7" name="Target"/></layer>
<layer rank="1" name="FE"><label start="0" end="2" name="Donor"/></layer></annotationSet></sentence>
</subCorpus></lexUnit>
"""


@pytest.fixture
def release(tmp_path: Path):
    docs = {
        "test.xml": fulltext_xml([
            {"id": 1, "text": GIVE, "sets": [set_spec(11), set_spec(12, fes=[("Donor", 0, 2), ("Theme", 15, 20)])]},
            {"id": 2, "text": "Bad offsets here .", "sets": [set_spec(13, fes=[("X", 0, 40)], target=[(0, 2)]),
                                                             set_spec(14, target=[])]},
        ]),
        "dev.xml": fulltext_xml([
            {"id": 3, "text": "kim  GAVE sandy a book.", "sets": [set_spec(21, target=[(5, 8)])]},
            {"id": 4, "text": "Dev only sentence .", "sets": [set_spec(22, target=[(0, 2)], fes=[])]},
        ]),
        "train.xml": fulltext_xml([
            {"id": 5, "text": "Dev only sentence .", "sets": [set_spec(31, target=[(0, 2)])]},
            {"id": 6, "text": "Train one , two .", "sets": [
                set_spec(43, target=[(0, 4)], fes=[("A", 6, 8)]),
                set_spec(41, target=[(0, 4)], fes=[("B", 6, 8)]),
                set_spec(42, target=[(0, 4)], fes=[("A", 6, 8), ("Z", 12, 14)], frame="Other", frame_id=7),
                set_spec(44, target=[(0, 4)], fes=[("B", 6, 8)]),
                set_spec(45, target=[(6, 8)], fes=[]),
                set_spec(46, target=[(12, 14)], fes=[("Q", "x", "y")]),
            ]},
        ]),
    }
    root = make_release(tmp_path / "fn", docs)
    (root / "lu").mkdir()
    (root / "lu" / "lu5.xml").write_text(LU_FILE)
    return open_release(root)


def _show(release, ident, options=BuildOptions(), formats=(), **kw):
    return show(release, DEF, Inputs(options, {}, formats, FormatOptions()), ident, **kw)


def _only(report):
    """The one set the report shows."""
    [match] = report["matches"]
    [item] = match["sets"]
    return item


def test_kept_set_with_brackets_and_format_losses(release):
    item = _only(_show(release, "11", formats=("jsonl", "bios", "semeval")))
    assert (item["split"], item["fate"], item["reason"], item["step"]) == ("test", "kept", "kept", None)
    assert (item["file"], item["sentence"], item["lu"], item["frame"]) == ("fulltext/test.xml", 1, "give.v", "Giving")
    assert item["bracketed"] == "[Donor Kim] [TARGET gave] Sandy a book ."
    # the release has no frame/ folder: BIOS, checked against its frames as convert does, drops the set
    assert item["losses"] == {"jsonl": {}, "bios": {"frame_not_in_frames": 1}, "semeval": {}}


def test_duplicate_names_the_kept_set_and_whether_fes_differ(release):
    item = _only(_show(release, "12"))
    assert (item["split"], item["reason"], item["step"]) == ("test", "duplicate", 6)
    assert item["counterpart"] == {"annotation_set": 11, "source": "fulltext", "file": "fulltext/test.xml",
                                   "sentence": 1, "same_fes": False}
    assert "losses" not in item
    assert _only(_show(release, "44"))["counterpart"]["annotation_set"] == 41  # lowest id, not the first read (43)
    assert _only(_show(release, "44"))["counterpart"]["same_fes"] is True


def test_overlap_names_the_dev_or_test_sentence(release):
    dev = _only(_show(release, "21"))
    assert (dev["split"], dev["reason"], dev["step"]) == ("dev", "overlap:test", 5)
    assert dev["counterpart"] == {"split": "test", "sentences": [{"file": "fulltext/test.xml", "sentence": 1,
                                                                  "text": GIVE}]}
    train = _only(_show(release, "31"))
    assert train["reason"] == "overlap:dev"
    assert train["counterpart"]["sentences"] == [{"file": "fulltext/dev.xml", "sentence": 4,
                                                  "text": "Dev only sentence ."}]
    assert "its sentence is dev's sentence 4 of fulltext/dev.xml" in render(_show(release, "31"))


def test_sets_dropped_while_reading(release):
    invalid = _only(_show(release, "13"))
    assert (invalid["reason"], invalid["step"], invalid["split"]) == ("invalid:offset_past_end", 2, "test")
    assert invalid["bracketed"].endswith("(offsets outside the text: X 0-40)")  # read again from its file
    no_target = _only(_show(release, "14"))
    assert (no_target["reason"], no_target["step"], no_target["text"]) == ("no_target:empty_layer", 1,
                                                                           "Bad offsets here .")
    malformed = _only(_show(release, "46"))
    assert (malformed["reason"], malformed["sentence"], malformed["split"]) == ("malformed_annotation_set", 6, "train")


def test_exclusions_and_filters(release):
    excluded = _only(_show(release, "42", BuildOptions(exclude_frames=frozenset({7}))))
    assert (excluded["reason"], excluded["step"]) == ("excluded:frame", 3)
    filtered = _only(_show(release, "45", BuildOptions(filters=("no_fes",))))
    assert (filtered["reason"], filtered["step"], filtered["split"]) == ("filter:no_fes", 4, "train")
    assert _only(_show(release, "22", BuildOptions(filters=("no_fes",))))["reason"] == "kept"  # dev is not filtered


def test_trace_accounts_for_every_removal_and_changes_nothing(release):
    options = BuildOptions(filters=("no_fes",), exclude_frames=frozenset({7}), with_exemplars=True)
    plain = build_splits(release, DEF, options)
    trace = Trace()
    traced = build_splits(release, DEF, options, trace=trace)
    assert {n: s.lines for n, s in traced.splits.items()} == {n: s.lines for n, s in plain.splits.items()}
    assert traced.ledger == plain.ledger
    fates = trace.fates(paths=trace.files)
    removed = Counter((f.split, f.reason) for f in fates if f.reason != "kept")
    assert removed == Counter({(split, reason): n for split, counts in plain.ledger.items()
                               for reason, n in counts.items()})
    kept = Counter(f.split for f in fates if f.reason == "kept")
    assert kept == {name: data.annotation_sets for name, data in plain.splits.items()}


def test_sentence_and_document(release):
    [match] = _show(release, "6", kind="sentence")["matches"]
    assert [(s["annotation_set"], s["reason"]) for s in match["sets"]] == [
        (41, "kept"), (42, "kept"), (43, "duplicate"), (44, "duplicate"), (45, "kept"),
        (46, "malformed_annotation_set")]
    report = _show(release, "train")
    [doc] = report["matches"]
    assert (doc["kind"], doc["id"], doc["split"]) == ("document", "fulltext/train.xml", "train")
    assert doc["counts"] == {"duplicate": 2, "kept": 3, "malformed_annotation_set": 1, "overlap:dev": 1}
    line = "  sentence 6: kept 41 42 45; duplicate 43 of 41; duplicate 44 of 41; malformed_annotation_set 46"
    assert line in render(report)


def test_an_id_naming_several_things_shows_them_all(release):
    # "2" is sentence 2 and the FrameNet document ID (docID="2") of every fulltext file
    kinds = [(m["kind"], m["id"]) for m in _show(release, "2")["matches"]]
    assert kinds == [("sentence", 2), ("document", "fulltext/dev.xml"), ("document", "fulltext/test.xml"),
                     ("document", "fulltext/train.xml")]
    assert [m["kind"] for m in _show(release, "2", kind="sentence")["matches"]] == ["sentence"]
    # set 11 is a fulltext set (test) and an exemplar set (train): both, or the one asked for
    with_ex = BuildOptions(with_exemplars=True)
    report = _show(release, "11", with_ex)
    assert "\n11 names 2 annotation sets (--from-source picks one):\n" in render(report)
    [match] = report["matches"]
    assert [(s["source"], s["file"], s["split"]) for s in match["sets"]] == [
        ("fulltext", "fulltext/test.xml", "test"), ("exemplar", "lu/lu5.xml", "train")]
    assert _only(_show(release, "11", with_ex, source="exemplar"))["file"] == "lu/lu5.xml"
    with pytest.raises(UsageError, match="reads no exemplars"):
        _show(release, "11", source="exemplar")


def test_unknown_id_is_a_one_line_error(release):
    with pytest.raises(PyfnError, match=r"^777: no annotation set, sentence or document with this id in .*"
                                        r"\(read: fulltext \(no exemplars: --with-exemplars\)\)$"):
        _show(release, "777")
    with pytest.raises(PyfnError, match="no annotation set with this id"):
        _show(release, "1", kind="annotation-set")
    with pytest.raises(UsageError, match="not an integer sentence id"):
        _show(release, "abc", kind="sentence")


def test_bracketed_nested_and_rank_2():
    aset = make_set(GIVE, [(4, 7)], [("Donor", 0, 2), ("Theme", 15, 20)], rank2=[("Other", 15, 16)])
    assert bracketed(aset) == "[Donor Kim] [TARGET gave] Sandy [Theme [Other/2 a ]book] ."


@pytest.fixture
def sample_conversion(tmp_path):
    target = tmp_path / "out"
    assert main(["convert", "--source", "sample", "--target", str(target), "--quiet", "--to", "jsonl", "semafor"]) == 0
    return target


def test_cli_manifest_path_text_and_json(sample_conversion, capsys):
    assert main(["show", "1907124", "--manifest", str(sample_conversion), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"the options of {sample_conversion / 'manifest.json'}" in out
    assert ("annotation set 1907124 (fulltext/PropBank__AetnaLifeAndCasualty.xml, sentence 1229002): REMOVED from "
            "test at step 6 (duplicate): a duplicate of annotation set 1907035") in out
    assert main(["show", "1907035", "--manifest", str(sample_conversion / "manifest.json"), "--quiet", "--json"]) == 0
    first = capsys.readouterr().out
    item = _only(json.loads(first))
    assert item["losses"] == {"jsonl": {}, "semafor": {}}  # the manifest's formats
    assert main(["show", "1907035", "--manifest", str(sample_conversion), "--quiet", "--json"]) == 0
    assert capsys.readouterr().out == first  # deterministic


def test_cli_manifest_refusals(sample_conversion, tmp_path, capsys):
    assert main(["show", "1907124", "--manifest", str(sample_conversion), "--exclude-frames", "3"]) == 2
    assert "--manifest takes the options the conversion recorded: drop --exclude-*" in capsys.readouterr().err
    edited = tmp_path / "edited"
    shutil.copytree(sample_conversion, edited)
    manifest = json.loads((edited / "manifest.json").read_text())
    manifest["ledger"]["test"]["duplicate"] = 2
    (edited / "manifest.json").write_text(json.dumps(manifest))
    assert main(["show", "1907124", "--manifest", str(edited), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the rebuild's ledger differs from the recorded one" in err
    assert main(["show", "1", "--manifest", str(tmp_path), "--quiet"]) == 1
    assert "no manifest.json" in capsys.readouterr().err
    assert main(["show", "1", "--manifest", str(tmp_path / "typo"), "--quiet"]) == 1
    assert "typo: no such file or directory" in capsys.readouterr().err


def test_cli_unknown_id(capsys):
    assert main(["show", "777", "--source", "sample", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pyfn: error: 777: no annotation set, sentence or document") and err.count("\n") == 1


def test_cli_manifest_refuses_another_release(sample_conversion, tmp_path, capsys):
    from pyfn.resources import resource_path

    other = tmp_path / "sample-copy"
    shutil.copytree(resource_path("sample"), other)
    changed = other / "fulltext" / "ANC__110CYL070.xml"
    changed.write_bytes(changed.read_bytes() + b"\n")
    assert main(["show", "1907124", "--manifest", str(sample_conversion), "--source", str(other), "--quiet"]) == 1
    assert "is not the release this conversion read (its files' fingerprint differs)" in capsys.readouterr().err
