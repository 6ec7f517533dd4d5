"""``pyfn audit``: each check fires exactly where it should, on every input kind; JSON record, exit status, errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pyfn.audit.checks import SCHEMA
from pyfn.audit.run import audit
from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.formats import jsonl
from pyfn.formats.registry import FormatOptions, write_split
from pyfn.resources import resource_path
from conftest import REPO, fulltext_xml, make_release, make_set


def _jsonl(folder: Path, splits: dict[str, list]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, sets in splits.items():
        (folder / f"{name}.jsonl").write_text("".join(jsonl.dumps(s) + "\n" for s in sets), encoding="utf-8")
    return folder


def _ex(aset):
    return replace(aset, source="exemplar")


CLEAN = {
    "train": [make_set("He gave it .", [(3, 6)], set_id=1, sent_id=1),
              make_set("She gave them .", [(4, 7)], set_id=2, sent_id=2)],
    "dev": [make_set("They gave up .", [(5, 8)], set_id=3, sent_id=3)],
    "test": [make_set("We gave in .", [(3, 6)], set_id=4, sent_id=4)],
}


def _found(result: dict) -> dict[str, bool]:
    return {name: check["found"] for name, check in result["checks"].items()}


def test_clean_split_finds_nothing(tmp_path, capsys):
    folder = _jsonl(tmp_path / "out", CLEAN)
    result = audit([(folder, None)])
    assert _found(result) == {"exemplar_overlap": False, "duplicates": False, "cross_split": False, "moved": False}
    assert (result["leakage"], result["duplicates"]) == (False, False)
    assert result["checks"]["cross_split"]["pairs"]["train-test"]["texts"] == 0
    assert result["splits"]["train"] == {"annotation_sets": 2, "sentences": 2, "normalised_texts": 2,
                                         "items_by_source": {"fulltext": 2}}
    assert main(["audit", str(folder)]) == 0
    assert "leakage: none" in capsys.readouterr().out


def test_exemplar_in_train_matching_test_is_check_a_and_c(tmp_path):
    splits = {**CLEAN, "train": [*CLEAN["train"], _ex(make_set("we  GAVE in.", [(4, 7)], set_id=1, sent_id=50))]}
    result = audit([(_jsonl(tmp_path / "out", splits), None)])
    a = result["checks"]["exemplar_overlap"]
    assert a["found"] and a["pairs"]["train-dev"]["texts"] == 0
    assert a["pairs"]["train-test"] == {
        "texts": 1, "train": {"sentences": 1, "annotation_sets": 1}, "test": {"sentences": 1, "annotation_sets": 1},
        "examples": [{"text": "we  GAVE in.", "train": ["exemplar:50"], "test": ["fulltext:4"]}]}
    c = result["checks"]["cross_split"]["pairs"]
    assert (c["train-dev"]["texts"], c["train-test"]["texts"], c["dev-test"]["texts"]) == (0, 1, 0)
    assert not result["checks"]["duplicates"]["found"] and result["leakage"]


def test_duplicates_within_a_split_are_check_b(tmp_path):
    train = [*CLEAN["train"],
             make_set("He  gave it .", [(4, 7)], set_id=7, sent_id=8),   # same sentence, same set (normalised)
             make_set("He gave it .", [(0, 1)], set_id=9, sent_id=1, lu="he.pron", frame="People")]
    result = audit([(_jsonl(tmp_path / "out", {**CLEAN, "train": train}), None)])
    dup = result["checks"]["duplicates"]["splits"]["train"]
    assert dup["sentences"] == {"groups": 1, "extra": 1,
                                "examples": [{"text": "He gave it .", "sentences": ["fulltext:1", "fulltext:8"]}]}
    assert dup["annotation_sets"] == {"groups": 1, "extra": 1, "examples": [
        {"text": "He gave it .", "annotation_sets": ["fulltext:1", "fulltext:7"], "target": "2#5", "lu": "give.v",
         "frame": "Giving"}]}
    assert result["checks"]["duplicates"]["splits"]["test"]["annotation_sets"]["groups"] == 0
    assert (result["duplicates"], result["leakage"]) == (True, False)
    assert main(["audit", str(tmp_path / "out")]) == 0
    assert main(["audit", str(tmp_path / "out"), "--fail-on-duplicates"]) == 1


def test_dev_test_overlap_is_check_c_only(tmp_path, capsys):
    splits = {**CLEAN, "dev": [*CLEAN["dev"], make_set("We gave in .", [(0, 1)], set_id=11, sent_id=12)]}
    result = audit([(_jsonl(tmp_path / "out", splits), None)])
    assert _found(result) == {"exemplar_overlap": False, "duplicates": False, "cross_split": True, "moved": False}
    assert result["checks"]["exemplar_overlap"]["why"] == "no exemplar in train"
    pair = result["checks"]["cross_split"]["pairs"]["dev-test"]
    assert (pair["texts"], pair["dev"], pair["test"]) == (1, {"sentences": 1, "annotation_sets": 1},
                                                          {"sentences": 1, "annotation_sets": 1})
    assert main(["audit", str(tmp_path / "out")]) == 1
    assert "(c) normalised texts shared across splits: FOUND" in capsys.readouterr().out


@pytest.fixture
def release(tmp_path) -> Path:
    """A two-document release: sentence 1 (sets 10, 11), 2 (set 12), 3 (set 13, the text of 1 again)."""
    doc_a = fulltext_xml([
        {"id": 1, "text": "He gave it .", "sets": [{"id": 10, "target": [(3, 6)]},
                                                  {"id": 11, "target": [(0, 1)], "lu": "he.pron", "frame": "People"}]},
        {"id": 2, "text": "She gave them .", "sets": [{"id": 12, "target": [(4, 7)]}]}])
    doc_b = fulltext_xml([{"id": 3, "text": "he gave  it .", "sets": [{"id": 13, "target": [(3, 6)]}]}])
    return make_release(tmp_path / "rel", {"A.xml": doc_a, "B.xml": doc_b})


def test_id_lists_and_json_take_texts_from_the_release(tmp_path, release):
    ids = tmp_path / "ids"
    ids.mkdir()
    (ids / "train.fulltext.annoset_ids.txt").write_text("10\n11\n12\n")
    (ids / "train.fulltext.sentence_ids.txt").write_text("1\n2\n")  # the sets are read, not these
    (ids / "test.fulltext.annoset_ids.txt").write_text("13\n")
    by_lists = audit([(ids, None)], source=release)
    (tmp_path / "split.json").write_text(json.dumps({"train": {"fulltext": [10, 11, 12]}, "test": [13]}))
    by_json = audit([(tmp_path / "split.json", None)], source=release)
    for result in (by_lists, by_json):
        assert result["splits"]["train"]["annotation_sets"] == 3
        pair = result["checks"]["cross_split"]["pairs"]["train-test"]
        assert (pair["texts"], pair["train"], pair["test"]) == (1, {"sentences": 1, "annotation_sets": 2},
                                                                {"sentences": 1, "annotation_sets": 1})
        assert pair["examples"] == [{"text": "He gave it .", "train": ["fulltext:1"], "test": ["fulltext:3"]}]
    (tmp_path / "sent.json").write_text(json.dumps({"id_kind": "sentence", "train": [1, 2], "dev": [3]}))
    by_sentence = audit([(tmp_path / "sent.json", None)], source=release)
    assert by_sentence["splits"]["train"]["annotation_sets"] is None
    assert by_sentence["checks"]["duplicates"]["splits"]["train"]["annotation_sets"] is None
    assert by_sentence["checks"]["cross_split"]["pairs"]["train-dev"]["texts"] == 1
    one = audit([(ids / "test.fulltext.annoset_ids.txt", None), (ids, "train")], source=release)
    assert one["checks"]["cross_split"]["pairs"]["train-test"]["texts"] == 1


def _conll_block(number: int, forms: list[str], target: int, lu: str = "give.v", frame: str = "Giving") -> str:
    rows = []
    for i, form in enumerate(forms):
        pred = (lu, frame) if i == target else ("_", "_")
        rows.append("\t".join([str(i + 1), form, "_", "_", "_", "_", str(number), "_", "_", "_", "_", "_", *pred, "O"]))
    return "\n".join(rows) + "\n\n"


def test_open_sesame_conll_sentences_from_tokens(tmp_path):
    """FORM as Python 3's str(bytes), escapes decoded; split and exemplar source from the file name."""
    train = tmp_path / "fn1.7.exemplar.train.syntaxnet.conll"
    train.write_text(_conll_block(0, ["b'The'", "b'caf\\xc3\\xa9'", "b'opened'", "b'.'"], 2, "open.v", "Opening")
                     + _conll_block(1, ["b'Hi'", "b'.'"], 0, "hi.intj", "Greeting"), encoding="utf-8")
    fulltext = tmp_path / "fn1.7.fulltext.train.syntaxnet.conll"
    fulltext.write_text(_conll_block(0, ["b'Hi'", "b'.'"], 0, "hi.intj", "Greeting") * 2, encoding="utf-8")
    test = tmp_path / "test.jsonl"
    test.write_text(jsonl.dumps(make_set("The café opened.", [(10, 15)], lu="open.v", frame="Opening")) + "\n",
                    encoding="utf-8")
    result = audit([(train, None), (fulltext, None), (test, None)])
    a = result["checks"]["exemplar_overlap"]["pairs"]["train-test"]
    assert (a["texts"], a["train"]) == (1, {"sentences": 1, "annotation_sets": 1})
    assert a["examples"][0] == {"text": "The café opened .", "train": [f"{train}#0"], "test": ["fulltext:1"]}
    assert result["splits"]["train"]["items_by_source"] == {"exemplar": 2, "fulltext": 2}
    dup = result["checks"]["duplicates"]["splits"]["train"]
    # the same block twice in one sentence (0) is one sentence with one set twice; the exemplar "Hi ." is not
    # counted among fulltext sentences, but its set is the same set as the fulltext one
    assert (dup["sentences"]["groups"], dup["annotation_sets"]["groups"], dup["annotation_sets"]["extra"]) == (0, 1, 2)


def test_open_sesame_fulltext_text_from_the_sents_file_beside(tmp_path):
    """A fulltext file's sentence number indexes the .sents file beside it: the FrameNet text, with characters
    the PENN tokens leave out (here the leading quote), and targets located in it."""
    test = tmp_path / "test.jsonl"
    test.write_text(jsonl.dumps(make_set("\" 'The true thing .", [(7, 10)], lu="true.a", frame="F")) + "\n")
    train = tmp_path / "fn1.7.fulltext.train.syntaxnet.conll"
    train.write_text(_conll_block(1, ["b\"'The\"", "b'true'", "b'thing'", "b'.'"], 1, "true.a", "F"))
    assert audit([(train, None), (test, None)])["checks"]["cross_split"]["pairs"]["train-test"]["texts"] == 0
    (tmp_path / f"{train.name}.sents").write_text("First .\n\" 'The true thing .\n")
    result = audit([(train, None), (test, None)])
    assert result["checks"]["cross_split"]["pairs"]["train-test"]["examples"] == [
        {"text": "\" 'The true thing .", "train": [f"{train}#1"], "test": ["fulltext:1"]}]
    (tmp_path / f"{train.name}.sents").write_text("First .\n")
    with pytest.raises(PyfnError, match=r"conll:1: sentence number 1 past the end of its .sents file \(1 lines\)"):
        audit([(train, None)])


def test_pyfn_bios_and_semafor_outputs(tmp_path):
    for fmt in ("bios", "semafor"):
        folder = tmp_path / fmt
        folder.mkdir()
        for name, sets in {**CLEAN, "test": [*CLEAN["test"], make_set("SHE gave them.", [(4, 7)])]}.items():
            write_split(folder, name, sets, [fmt], FormatOptions())
        result = audit([(folder, None)])
        pair = result["checks"]["cross_split"]["pairs"]["train-test"]
        assert pair["texts"] == 1 and result["splits"]["train"]["items_by_source"] == {"unknown": 2}
        assert pair["examples"][0]["train"] == [f"{folder / 'train'}.{fmt}#1"]


def test_moved_ids_and_changed_texts_are_check_d(tmp_path, release):
    doc = fulltext_xml([{"id": 1, "text": "He gave it back .", "sets": [{"id": 10, "target": [(3, 6)]}]},
                        {"id": 2, "text": "She gave them .", "sets": [{"id": 12, "target": [(4, 7)]}]}])
    other = make_release(tmp_path / "rel2", {"A.xml": doc}, readme="Release 1.7")
    (tmp_path / "a.json").write_text(json.dumps({"train": [10, 11], "test": [12]}))
    (tmp_path / "b.json").write_text(json.dumps({"train": [10], "dev": [12]}))
    result = audit([(tmp_path / "a.json", None)], source=release, against=[(tmp_path / "b.json", None)],
                   against_source=other)
    d = result["checks"]["moved"]
    assert d["found"] and result["leakage"]
    assert d["annotation_sets"] == {"in_both": 2, "only_audited": 1, "only_against": 0, "moved": {"test->dev": 1},
                                    "examples": {"test->dev": ["fulltext:12"]}}
    assert d["sentences"]["moved"] == {"test->dev": 1}
    assert d["normalised_texts"] == {"in_both": 1, "only_audited": 1, "only_against": 1, "moved": {"test->dev": 1},
                                     "examples": {"test->dev": ["She gave them ."]}}
    assert d["changed_texts"] == 1
    assert d["changed_examples"] == [{"sentence": "fulltext:1", "audited": "He gave it .", "against": "He gave it back ."}]
    same = audit([(tmp_path / "a.json", None)], source=release, against=[(tmp_path / "a.json", None)],
                 against_source=release)
    assert not same["checks"]["moved"]["found"]


def test_json_record_schema_and_determinism(tmp_path, capsys):
    splits = {**CLEAN, "train": [*CLEAN["train"], _ex(make_set("we  GAVE in.", [(4, 7)], set_id=1, sent_id=50))]}
    folder = _jsonl(tmp_path / "out", splits)
    assert main(["audit", "--json", str(folder), "--output", str(tmp_path / "a.json")]) == 1
    printed = capsys.readouterr().out
    assert printed == (tmp_path / "a.json").read_text(encoding="utf-8")
    record = json.loads(printed)
    assert set(record) == {"schema", "splits", "checks", "leakage", "duplicates", "inputs"}
    assert record["schema"] == SCHEMA
    assert set(record["checks"]) == {"exemplar_overlap", "duplicates", "cross_split", "moved"}
    assert all({"run", "found"} <= set(check) for check in record["checks"].values())
    assert record["inputs"] == [{"path": str(folder), "kind": "annotations",
                                 "splits": {"dev": 1, "test": 1, "train": 3}}]
    reordered = _jsonl(tmp_path / "out2", {k: list(reversed(v)) for k, v in splits.items()})
    assert main(["audit", "--json", str(reordered)]) == 1
    again = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in again.items() if k != "inputs"} == {k: v for k, v in record.items() if k != "inputs"}


@pytest.mark.parametrize(("content", "name", "message"), [
    ("1\nx2\n", "train.fulltext.annoset_ids.txt", "train.fulltext.annoset_ids.txt:2: 'x2' is not an integer id"),
    ('{"train": [1, "2"]}', "s.json", "s.json: train.fulltext[1]: '2' is not an integer id"),
    ('{"train": [1], "extra": 1}', "s.json", "s.json: unknown key 'extra'"),
    ("{", "s.json", "s.json: not a JSON file of ids"),
    ("1\tb'a'\n\n", "fn1.7.dev.syntaxnet.conll", "fn1.7.dev.syntaxnet.conll:1: 2 columns, expected 15"),
    ("1\tb'\\xff'\t_\t_\t_\t_\t0\t_\t_\t_\t_\t_\tx.v\tF\tO\n\n", "fn1.7.test.syntaxnet.conll",
     "fn1.7.test.syntaxnet.conll:1: FORM \"b'\\\\xff'\" is not a bytes literal of UTF-8 text"),
])
def test_unreadable_inputs_are_one_line_errors(tmp_path, capsys, release, content, name, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert main(["audit", str(path), "--source", str(release)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pyfn: error: ") and message in err


def test_ids_need_a_release_and_must_be_in_it(tmp_path, capsys, release):
    (tmp_path / "s.json").write_text('{"train": [10, 99]}')
    assert main(["audit", str(tmp_path / "s.json")]) == 2
    assert "holds only ids: give the FrameNet release they are ids of (--source RELEASE)" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "s.json"), "--source", str(release)]) == 1
    assert f"s.json: train.fulltext[1]: {release} has no fulltext annotation set 99" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "missing")]) == 1
    assert "missing: no such file or directory" in capsys.readouterr().err
    (tmp_path / "x.conll").write_text("")
    assert main(["audit", str(tmp_path / "x.conll")]) == 2
    assert "which split is this?" in capsys.readouterr().err


def test_fn15_published_split_ids(fn15, tmp_path):
    """The published FN 1.5 fulltext ids: no leakage; the duplicates SPLITS.md step 6 keeps (texts that differ
    in whitespace only, so their target offsets differ) are listed."""
    result = audit([(resource_path("splits") / "fn1.5" / "ids", None)], source=fn15)
    assert {n: (s["annotation_sets"], s["sentences"], s["normalised_texts"]) for n, s in result["splits"].items()} == {
        "train": (16706, 2687, 2647), "dev": (2319, 328, 328), "test": (4148, 879, 873)}
    assert not result["leakage"]
    assert all(p["texts"] == 0 for p in result["checks"]["cross_split"]["pairs"].values())
    dups = result["checks"]["duplicates"]["splits"]
    assert {n: (d["sentences"]["groups"], d["annotation_sets"]["groups"]) for n, d in dups.items()} == {
        "train": (40, 30), "dev": (0, 0), "test": (6, 5)}


def _fst_script():
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("fst_fn17_split", REPO / "scripts" / "fst_fn17_split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fst_document_lists_are_pyfns_fn17_lists():
    """frame-semantic-transformer's lists (Open-SESAME's) name the same documents as pyfn's FN 1.7 lists."""
    script = _fst_script()
    folder = resource_path("splits") / "fn1.7"
    for name, listed in (("dev", script.SESAME_DEV_FILES), ("test", script.SESAME_TEST_FILES)):
        assert listed == set((folder / f"{name}.txt").read_text(encoding="utf-8").split())


def test_fn17_fst_fulltext_split_leaks(fn17, tmp_path):
    """frame-semantic-transformer's FN 1.7 fulltext split (the copy here lacks ANC__WhereToHongKong.xml)."""
    out = tmp_path / "fst.json"
    _fst_script().main(str(fn17), str(out), False)
    result = audit([(out, None)], source=fn17)
    assert {n: s["annotation_sets"] for n, s in result["splits"].items()} == {"train": 19902, "dev": 2309, "test": 3584}
    pairs = result["checks"]["cross_split"]["pairs"]
    assert [pairs[p]["texts"] for p in ("train-dev", "train-test", "dev-test")] == [0, 2, 0]
    assert pairs["train-test"]["train"] == {"sentences": 2, "annotation_sets": 5}
    dups = result["checks"]["duplicates"]["splits"]
    assert [dups[s]["annotation_sets"]["groups"] for s in ("train", "dev", "test")] == [335, 0, 141]
    assert result["leakage"] and result["duplicates"]


def test_exemplar_ids_are_read_in_lu_files(tmp_path):
    """An exemplar id is looked up among the release's lu/*.xml sets (FrameNet numbers them apart from fulltext)."""
    from pyfn.framenet.release import open_release  # noqa: PLC0415
    from pyfn.splits.builder import parsed_files  # noqa: PLC0415

    sample = resource_path("sample")
    record = next(r for r in parsed_files(open_release(sample), "lu") if r.sets[0])
    set_id, text = record.sets[0][0], record.sets[5][0].decode()
    (tmp_path / "ids.json").write_text(json.dumps({"train": {"exemplar": [set_id]}}))
    test = tmp_path / "test.jsonl"
    test.write_text(jsonl.dumps(make_set(" ".join(text.upper().split()) + "  ", [(0, 0)])) + "\n")
    result = audit([(tmp_path / "ids.json", None), (test, None)], source=sample)
    pair = result["checks"]["exemplar_overlap"]["pairs"]["train-test"]
    assert (pair["texts"], pair["train"]) == (1, {"sentences": 1, "annotation_sets": 1})
    assert pair["examples"][0]["train"] == [f"exemplar:{record.sets[1][0]}"]


def test_against_takes_split_equals_path(tmp_path, capsys, release):
    (tmp_path / "a.json").write_text(json.dumps({"train": [10], "test": [12]}))
    (tmp_path / "test.fulltext.annoset_ids.txt").write_text("12\n")
    args = ["audit", str(tmp_path / "a.json"), "--source", str(release), "--against-source", str(release)]
    assert main([*args, "--against", str(tmp_path / "test.fulltext.annoset_ids.txt")]) == 0
    capsys.readouterr()
    assert main([*args, "--against", f"dev={tmp_path / 'test.fulltext.annoset_ids.txt'}", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["checks"]["moved"]["annotation_sets"]["moved"] == {"test->dev": 1}
    assert main([*args, "--against", f"dev={tmp_path / 'a.json'}"]) == 1
    assert "a.json: no dev split there" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "a.json"), "--source", str(release), "--against-source", str(release)]) == 2
    assert "--against-source goes with --against" in capsys.readouterr().err
