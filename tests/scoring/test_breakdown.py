"""``pyfn score --breakdown``: numbers checked against a fixture counted by hand, schema, HTML, CLI errors.

The fixture (gold and predicted SemEval XML, written out below, and a
``frames.xml`` with coreness) has four gold sentences and one predicted
sentence outside gold. Hand count, gold target by gold target:

- S0 ``Kim gave Lee a book .``: *gave* Giving, right frame; Donor matched,
  Recipient predicted over *book* (fp) and missed (fn), Theme missed (fn).
  *book* Text (LU ``book.n``) predicted Artifact: a confusion; gold Text.Text
  missed, predicted Artifact.Text (not an FE of Artifact: ``unknown``) is fp.
- S1 ``<script>x</script> left .``: *left* Departing, no predicted set
  (unanswered); Departing.Theme missed.
- S2 ``Sue ran .``: *ran* Self_motion right, Self_mover matched; a predicted
  People set on *Sue* answers no gold target: People.Person fp.
- S3 ``Bo gave today .``: Giving right, Donor and Time matched.
- ID 9 outside gold: one People set, People.Person fp.

Frames: 3 of 5 right; train counts give.v 7 (6-20), book.n 1 (1-5), leave.v 0,
run.v 25 (>20). Arguments: Core tp 3 (2 Donor, Self_mover), fp 1 (Recipient),
fn 4 (Recipient, Theme, Text, Departing.Theme); Peripheral tp 1 (Time);
Extra-Thematic fp 2 (People.Person, as this frames.xml says); unknown fp 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import html as lxml_html

from pyfn.cli import main
from pyfn.errors import ProblemLog
from pyfn.scoring.breakdown import SCHEMA, breakdown, bucket, digest
from pyfn.scoring.breakdown_html import page
from pyfn.scoring.pairing import read_file

GOLD = [
    ("0", "Kim gave Lee a book .", [
        ("Giving", "give.v", [(4, 7)], [("Donor", 0, 2), ("Recipient", 9, 11), ("Theme", 13, 18)]),
        ("Text", "book.n", [(15, 18)], [("Text", 15, 18)])]),
    ("1", "<script>x</script> left .", [("Departing", "leave.v", [(19, 22)], [("Theme", 0, 17)])]),
    ("2", "Sue ran .", [("Self_motion", "run.v", [(4, 6)], [("Self_mover", 0, 2)])]),
    ("3", "Bo gave today .", [("Giving", "give.v", [(3, 6)], [("Donor", 0, 1), ("Time", 8, 12)])]),
]
PRED = [
    ("0", "Kim gave Lee a book .", [
        ("Giving", "give.v", [(4, 7)], [("Donor", 0, 2), ("Recipient", 13, 18)]),
        ("Artifact", "book.n", [(15, 18)], [("Text", 15, 18)])]),
    ("1", "<script>x</script> left .", []),
    ("2", "Sue ran .", [("Self_motion", "run.v", [(4, 6)], [("Self_mover", 0, 2)]),
                      ("People", "sue.n", [(0, 2)], [("Person", 0, 2)])]),
    ("3", "Bo gave today .", [("Giving", "give.v", [(3, 6)], [("Donor", 0, 1), ("Time", 8, 12)])]),
    ("9", "Zed .", [("People", "zed.n", [(0, 2)], [("Person", 0, 2)])]),
]
FRAMES = {"Giving": [("Donor", "Core"), ("Recipient", "Core"), ("Theme", "Core"), ("Time", "Peripheral")],
          "Text": [("Text", "Core")], "Artifact": [("Artifact", "Core")],
          "Departing": [("Theme", "Core"), ("Time", "Peripheral")],
          "Self_motion": [("Self_mover", "Core")], "People": [("Person", "Extra-Thematic")]}
TRAIN_COUNTS = {"give.v": 7, "book.n": 1, "run.v": 25}


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def semeval_xml(sentences) -> str:
    """SemEval-2007 XML written by hand (not by pyfn's writer)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<corpus ID="1"><documents><document ID="1"><paragraphs>'
           '<paragraph ID="1" documentOrder="1"><sentences>']
    n = 0
    for sid, text, sets in sentences:
        out.append(f'<sentence ID="{sid}"><text>{_esc(text)}</text><annotationSets>')
        for frame, lu, target, fes in sets:
            n += 1
            out.append(f'<annotationSet ID="{n}" frameName="{_esc(frame)}" luName="{_esc(lu)}"><layers>'
                       f'<layer ID="{n}1" name="Target"><labels>')
            out += [f'<label ID="{n}1{i}" name="Target" start="{s}" end="{e}"/>' for i, (s, e) in enumerate(target)]
            out.append(f'</labels></layer><layer ID="{n}2" name="FE"><labels>')
            out += [f'<label ID="{n}2{i}" name="{_esc(fe)}" start="{s}" end="{e}"/>' for i, (fe, s, e) in enumerate(fes)]
            out.append("</labels></layer></layers></annotationSet>")
        out.append("</annotationSets></sentence>")
    out.append("</sentences></paragraph></paragraphs></document></documents></corpus>")
    return "\n".join(out) + "\n"


def frames_xml(frames) -> str:
    body = "".join(f'<frame name="{f}"><fes>' + "".join(f'<fe name="{n}" coreType="{c}"/>' for n, c in fes)
                   + "</fes></frame>" for f, fes in frames.items())
    return f"<?xml version='1.0'?>\n<frames>{body}</frames>\n"


@pytest.fixture
def files(tmp_path):
    from conftest import make_set

    from pyfn.formats.jsonl import dumps

    paths = {"gold": tmp_path / "gold.xml", "pred": tmp_path / "pred.xml", "frames": tmp_path / "frames.xml",
             "relations": tmp_path / "frRelations.xml", "train": tmp_path / "train.jsonl"}
    paths["gold"].write_text(semeval_xml(GOLD), encoding="utf-8")
    paths["pred"].write_text(semeval_xml(PRED), encoding="utf-8")
    paths["frames"].write_text(frames_xml(FRAMES), encoding="utf-8")
    paths["relations"].write_text("<?xml version='1.0'?>\n<frame-relations/>\n", encoding="utf-8")
    lines, n = [], 0
    for lu, count in TRAIN_COUNTS.items():
        for _ in range(count):
            n += 1
            lines.append(dumps(make_set("a b c", [(0, 0)], set_id=n, sent_id=n, lu=lu)))
    paths["train"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def _docs(files):
    return read_file(files["gold"], ProblemLog(strict=True)), read_file(files["pred"], ProblemLog(strict=True))


def _result(files, mode="semeval"):
    return breakdown(*_docs(files), mode=mode, inventory=FRAMES, train_counts=TRAIN_COUNTS)


def _prf(rows, key, value):
    row = next(r for r in rows if r[key] == value)
    return row["tp"], row["fp"], row["fn"]


def test_buckets():
    assert [bucket(n) for n in (0, 1, 5, 6, 20, 21, 1000)] == ["0", "1-5", "1-5", "6-20", "6-20", ">20", ">20"]


def test_frames_by_hand(files):
    frames = _result(files)["frames"]
    assert frames["total"] == {"correct": 3, "n": 5, "accuracy": 0.6}
    assert frames["unanswered"] == 1
    assert frames["confusions"] == [{"gold": "Text", "pred": "Artifact", "count": 1}]
    assert [(f["frame"], f["correct"], f["n"]) for f in frames["per_frame"]] == [
        ("Departing", 0, 1), ("Giving", 2, 2), ("Self_motion", 1, 1), ("Text", 0, 1)]
    assert [(b["bucket"], b["correct"], b["n"]) for b in frames["lu_frequency"]["buckets"]] == [
        ("0", 0, 1), ("1-5", 0, 1), ("6-20", 2, 2), (">20", 1, 1)]
    assert "train" in frames["lu_frequency"]["counted"]


def test_arguments_by_hand(files):
    arguments = _result(files)["arguments"]
    core = arguments["per_coreness"]
    assert [c["coreness"] for c in core] == ["Core", "Peripheral", "Extra-Thematic", "Core-Unexpressed", "unknown"]
    assert _prf(core, "coreness", "Core") == (3, 1, 4)
    assert _prf(core, "coreness", "Peripheral") == (1, 0, 0)
    assert _prf(core, "coreness", "Extra-Thematic") == (0, 2, 0)
    assert _prf(core, "coreness", "Core-Unexpressed") == (0, 0, 0)
    assert _prf(core, "coreness", "unknown") == (0, 1, 0)
    c = next(c for c in core if c["coreness"] == "Core")
    assert c["precision"] == pytest.approx(3 / 4) and c["recall"] == pytest.approx(3 / 7)
    assert c["f1"] == pytest.approx(6 / 11)
    assert (arguments["total"]["tp"], arguments["total"]["fp"], arguments["total"]["fn"]) == (4, 4, 4)
    assert arguments["total"]["f1"] == pytest.approx(0.5)
    per_fe = {(f["frame"], f["fe"]): (f["coreness"], f["tp"], f["fp"], f["fn"]) for f in arguments["per_fe"]}
    assert per_fe == {
        ("Artifact", "Text"): ("unknown", 0, 1, 0), ("Departing", "Theme"): ("Core", 0, 0, 1),
        ("Giving", "Donor"): ("Core", 2, 0, 0), ("Giving", "Recipient"): ("Core", 0, 1, 1),
        ("Giving", "Theme"): ("Core", 0, 0, 1), ("Giving", "Time"): ("Peripheral", 1, 0, 0),
        ("People", "Person"): ("Extra-Thematic", 0, 2, 0), ("Self_motion", "Self_mover"): ("Core", 1, 0, 0),
        ("Text", "Text"): ("Core", 0, 0, 1)}


def test_modes_and_wrong_sentences(files):
    semeval = _result(files)
    assert [w["id"] for w in semeval["wrong_sentences"]] == ["0", "1", "2"]
    assert semeval["sentences"] == {"gold": 4, "scored": 4, "missing": 0, "text_differs": 0, "not_in_gold": 1,
                                    "wrong": 3}
    assert semeval["unaligned_predicted_sets"] == 2
    frameid = _result(files, "frameid")
    assert frameid["arguments"] is None and [w["id"] for w in frameid["wrong_sentences"]] == ["0", "1"]
    assert frameid["frames"] == semeval["frames"]
    argsonly = _result(files, "argsonly")
    assert argsonly["frames"] is None and argsonly["arguments"] == semeval["arguments"]
    s0 = semeval["wrong_sentences"][0]["sets"]
    assert [(r["frame_ok"], r["fes_ok"]) for r in s0] == [(True, False), (False, False)]
    assert [(fe["fe"], fe["ok"]) for fe in s0[0]["gold"]["fes"]] == [("Donor", True), ("Recipient", False),
                                                                   ("Theme", False)]
    assert [(fe["fe"], fe["ok"]) for fe in s0[0]["pred"]["fes"]] == [("Donor", True), ("Recipient", False)]
    s1 = semeval["wrong_sentences"][1]["sets"]
    assert s1[0]["pred"] is None and s1[0]["frame_ok"] is False
    s2 = semeval["wrong_sentences"][2]["sets"]
    assert s2[1]["gold"] is None and s2[1]["pred"]["frame"] == "People"


def test_no_buckets_without_train(files):
    assert breakdown(*_docs(files), mode="frameid")["frames"]["lu_frequency"] is None


def _keys(obj) -> object:
    """The shape of a JSON object: its keys, recursively (first item of a list)."""
    if isinstance(obj, dict):
        return {k: _keys(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_keys(obj[0])] if obj else []
    return type(obj).__name__


def test_json_schema_is_stable(files, capsys):
    assert main(["score", "--breakdown", "--gold", str(files["gold"]), "--pred", str(files["pred"]), "--frames",
                 str(files["frames"]), "--relations", str(files["relations"]), "--train", str(files["train"]),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == SCHEMA == "pyfn-breakdown/1"
    assert list(out) == ["schema", "signature", "mode", "sentences", "unaligned_predicted_sets", "frames",
                         "arguments", "wrong_sentences", "problems"]
    assert list(out["frames"]) == ["total", "unanswered", "per_frame", "lu_frequency", "confusions"]
    assert list(out["arguments"]) == ["total", "per_coreness", "per_fe"]
    assert list(out["arguments"]["per_fe"][0]) == ["frame", "fe", "coreness", "tp", "fp", "fn", "precision", "recall",
                                                   "f1"]
    assert list(out["wrong_sentences"][0]) == ["index", "id", "text", "sets"]
    assert list(out["wrong_sentences"][0]["sets"][0]) == ["frame_ok", "fes_ok", "gold", "pred"]
    assert list(out["wrong_sentences"][0]["sets"][0]["gold"]) == ["frame", "lu", "target", "fes"]
    assert list(out["wrong_sentences"][0]["sets"][0]["gold"]["fes"][0]) == ["fe", "start", "end", "ok"]
    assert out["signature"].startswith("breakdown|semeval|gold:") and "|train:" in out["signature"]
    assert out["frames"]["total"]["correct"] == 3  # the CLI reads the train JSONL as the hand count says
    assert [b["n"] for b in out["frames"]["lu_frequency"]["buckets"]] == [1, 1, 2, 1]
    assert set(digest(out)) == {"mode", "signature", "sentences", "frames", "arguments"}


def test_text_summary(files, capsys):
    assert main(["score", "--breakdown", "--mode", "frameid", "--gold", str(files["gold"]), "--pred",
                 str(files["pred"]), "--train", str(files["train"])]) == 0
    out = capsys.readouterr().out
    assert "frame identification: 0.6000 (3/5; 1 unanswered)" in out
    assert "      0  0.0000  (0/1)" in out and "Text -> Artifact" in out and "arguments" not in out


def test_html_is_escaped_and_deterministic(files, tmp_path):
    args = ["score", "--breakdown", "--gold", str(files["gold"]), "--pred", str(files["pred"]), "--frames",
            str(files["frames"]), "--relations", str(files["relations"]), "--train", str(files["train"])]
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    json_a, json_b = tmp_path / "a.json", tmp_path / "b.json"
    assert main([*args, "--html", str(first), "--output", str(json_a)]) == 0
    assert main([*args, "--html", str(second), "--output", str(json_b)]) == 0
    assert first.read_bytes() == second.read_bytes() and json_a.read_bytes() == json_b.read_bytes()
    text = first.read_text(encoding="utf-8")
    assert "<script" not in text and "&lt;script&gt;" in text
    doc = lxml_html.fromstring(text)
    assert not doc.xpath("//script") and not doc.xpath("//@src") and not doc.xpath("//link")
    sections = doc.xpath("//section[@class='s']")
    assert [s.get("id") for s in sections] == ["s0", "s1", "s2"]
    # S1: the hostile sentence is text, its FE span underlined in gold, no predicted set
    s1 = sections[1]
    assert "<script>x</script>" in s1.text_content()
    fe = s1.xpath(".//span[contains(@class,'fe')]")[0]
    assert fe.get("title") == "Theme" and fe.text_content() == "<script>x</script>Theme"
    assert s1.xpath(".//td")[1].text_content() == "no set"
    # S0: target marked; an unmatched FE is shaded
    s0 = sections[0]
    assert [m.text_content() for m in s0.xpath(".//mark")] == ["gave", "gave", "book", "book"]
    assert {s.get("title") for s in s0.xpath(".//span[contains(@class,'bad')]")} == {"Recipient", "Theme", "Text"}


def test_hostile_names_are_escaped(files):
    result = _result(files)
    result["wrong_sentences"][0]["sets"][0]["gold"]["frame"] = '"><img src=x onerror=alert(1)>'
    result["wrong_sentences"][0]["sets"][0]["gold"]["fes"][0]["fe"] = '"><b>x</b>'
    result["signature"] = "<i>sig</i>"
    doc = lxml_html.fromstring(page(result, "<title>"))
    assert not doc.xpath("//img") and not doc.xpath("//b") and not doc.xpath("//i")
    assert doc.findtext(".//h1") == "<title>"


@pytest.mark.parametrize(("extra", "message"), [
    (["--exact"], "--breakdown does not take --exact"),
    (["--protocol", "semeval07"], "--breakdown does not take --protocol"),
    (["--lu-frames", "x.tsv"], "--breakdown does not take --lu-frames"),
])
def test_breakdown_usage_errors(files, extra, message, capsys):
    args = ["score", "--breakdown", "--gold", str(files["gold"]), "--pred", str(files["pred"]), "--frames",
            str(files["frames"]), "--relations", str(files["relations"])]
    assert main([*args, *extra]) == 2
    assert message in capsys.readouterr().err


def test_breakdown_cli_errors(files, tmp_path, capsys):
    gold, pred = str(files["gold"]), str(files["pred"])
    assert main(["score", "--breakdown", "--gold", gold, "--pred", pred]) == 2  # arguments need the coreness
    assert "give either --framenet" in capsys.readouterr().err
    assert main(["score", "--breakdown", "--mode", "frameid", "--gold", gold, "--pred", pred, "--frames",
                 str(files["frames"]), "--relations", str(files["relations"])]) == 2
    assert "takes no --framenet/--frames/--relations" in capsys.readouterr().err
    assert main(["score", "--gold", gold, "--pred", pred, "--html", str(tmp_path / "x.html")]) == 2
    assert "--train and --html go with --breakdown" in capsys.readouterr().err
    assert main(["score", "--breakdown", "--mode", "frameid", "--gold", gold, "--pred", pred, "--train",
                 str(tmp_path / "none.jsonl")]) == 1
    assert f"--train {tmp_path / 'none.jsonl'}: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    html_out = tmp_path / "out.html"
    assert main(["score", "--breakdown", "--mode", "frameid", "--gold", gold, "--pred", pred, "--train", str(bad),
                 "--html", str(html_out)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:1" in err and "Traceback" not in err and not html_out.exists()
    broken = tmp_path / "broken.xml"
    broken.write_text("<corpus><documents>", encoding="utf-8")
    assert main(["score", "--breakdown", "--mode", "frameid", "--gold", gold, "--pred", str(broken)]) == 1
    assert f"{broken}: malformed XML" in capsys.readouterr().err
