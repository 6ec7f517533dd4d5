"""The lexfilter:* protocols (COFFTEA's frame-identification accuracy with and without the lexical filter) and
the frame-scores file, on a small case whose accuracies are computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError, UsageError
from pyfn.formats import semeval
from pyfn.scoring import frame_scores
from pyfn.scoring.protocols import FrameScores, run
from pyfn.scoring.protocols.lexfilter import best, decide
from tests.conftest import make_set

TEXT = "He gave it and she took it and they sold it"
EMPTY = "Nothing happened here"
# gold targets: gave (Giving), took (Taking), sold (Commerce_sell), in sentence 0; sentence 1 has no frame
GOLD = [
    make_set(TEXT, [(3, 6)], frame="Giving", lu="give.v", set_id=1),
    make_set(TEXT, [(19, 22)], frame="Taking", lu="take.v", set_id=2),
    make_set(TEXT, [(37, 40)], frame="Commerce_sell", lu="sell.v", set_id=3),
]
TRAIN = {"give.v": frozenset({"Giving", "Transfer"}), "take.v": frozenset({"Taking", "Removing"})}
RELEASE = {**TRAIN, "sell.v": frozenset({"Commerce_sell", "Getting"})}  # Getting: unscored, never chosen
SCORES = {
    # the overall best frame is wrong; among give.v's frames Giving wins
    (3, 6): {"Giving": 1.0, "Transfer": 0.5, "Commerce_buy": 2.0},
    # Removing beats Taking within take.v's frames too: wrong under every filter
    (19, 22): {"Taking": 0.2, "Removing": 0.9, "Giving": 0.1},
    # sell.v is not in train: lexfilter:train decides among all frames (Transfer), full among its frames
    (37, 40): {"Commerce_sell": 0.4, "Transfer": 0.7, "Giving": 0.0},
}


def _write(tmp_path: Path, scores: dict = SCORES) -> tuple[Path, Path, Path, Path, Path]:
    preds = [make_set(TEXT, g.target, frame="Commerce_buy", lu=g.lu_name, set_id=10 + i) for i, g in enumerate(GOLD)]
    empty = make_set(EMPTY, [(0, 6)], frame="Existence", lu="nothing.n", set_id=20)
    strings = [TEXT, EMPTY]
    semeval.write(tmp_path / "gold.xml", GOLD, sentences=strings)
    semeval.write(tmp_path / "pred.xml", [*preds, empty], sentences=strings)
    frame_scores.write(tmp_path / "scores.jsonl", [*preds, empty], [scores[p.target[0]] for p in preds] + [{"X": 1.0}],
                       [*GOLD, make_set(EMPTY, [(0, 6)])])
    (tmp_path / "train.tsv").write_text("".join(f"{lu}\t" + "\t".join(sorted(f)) + "\n" for lu, f in TRAIN.items()))
    (tmp_path / "release.tsv").write_text("".join(f"{lu}\t" + "\t".join(sorted(f)) + "\n"
                                                  for lu, f in RELEASE.items()))
    return (tmp_path / "gold.xml", tmp_path / "pred.xml", tmp_path / "scores.jsonl", tmp_path / "train.tsv",
            tmp_path / "release.tsv")


def test_accuracy_with_and_without_the_filter_by_hand(tmp_path):
    gold, pred, scores, train, release = _write(tmp_path)
    fid = FrameScores(scores, train, release)
    results = {name: run(f"lexfilter:{name}", gold, pred, lexicon=None, lexicon_tag="", frame_scores=fid)
               for name in ("train", "full", "none")}
    # train: gave -> Giving (right), took -> Removing (wrong), sold (not in train) -> Transfer of all (wrong)
    # full:  gave -> Giving (right), took -> Removing (wrong), sold -> Commerce_sell of its two (right)
    # none:  gave -> Commerce_buy (wrong), took -> Removing (wrong), sold -> Transfer (wrong)
    expected = {"train": 1, "full": 2, "none": 0}
    for name, result in results.items():
        m = result.measure()
        assert (m.counts.tp, m.counts.fp, m.counts.fn) == (expected[name], 3 - expected[name], 3 - expected[name])
        assert m.precision == m.recall == m.f1 == pytest.approx(expected[name] / 3)
        card = result.card.as_dict()
        assert card["protocol"] == f"lexfilter:{name}" and card["source"]["repo"] == "kkk-an/COFFTEA"
        # the frameless sentence (open-sesame #57) is not scored, and its predicted set is off every gold target
        assert card["skipped"]["sentence_without_gold_frame"] == 1
        assert card["skipped"]["pred_target_not_in_gold"] == 1
    assert results["train"].card.skipped["note:lu_not_in_lexicon"] == 1
    assert "note:lu_not_in_lexicon" not in results["full"].card.skipped
    assert results["train"].card.signature.startswith("lexfilter:train|gold:")
    assert "|lex:file:" in results["train"].card.signature and "|lex:" not in results["none"].card.signature


def test_a_missing_prediction_is_wrong_and_unscored_candidates_cannot_win(tmp_path):
    gold, pred, scores, train, release = _write(tmp_path)
    only_two = [make_set(TEXT, g.target, frame="Commerce_buy", lu=g.lu_name, set_id=10 + i)
                for i, g in enumerate(GOLD[:2])]  # the predicted set on "sold" dropped
    semeval.write(tmp_path / "two.xml", only_two, sentences=[TEXT, EMPTY])
    result = run("lexfilter:full", gold, tmp_path / "two.xml", lexicon=None, lexicon_tag="",
                 frame_scores=FrameScores(scores, None, release))
    assert result.measure().counts.tp == 1 and result.measure().counts.fn == 2
    assert result.card.skipped["note:gold_target_without_prediction"] == 1
    assert result.card.skipped["score_line_without_paired_set"] == 2  # "sold" and the frameless sentence's line


def test_decide_ties_unscored_and_single_candidates():
    from collections import Counter  # noqa: PLC0415

    notes: Counter = Counter()
    assert best({"B": 1.0, "A": 1.0, "C": 0.5}) == "A"  # ties: code-point order
    assert decide({"A": 1.0}, frozenset({"Z"}), notes) == "Z"  # one candidate: argmax over one choice
    assert decide({"A": 1.0}, frozenset({"Y", "Z"}), notes) is None and notes["note:no_scored_candidate"] == 1
    assert decide({"A": 1.0, "Y": -3.0}, frozenset({"Y", "Z"}), notes) == "Y"  # an unscored frame never wins
    assert decide({"A": 1.0, "Y": -3.0}, None, notes) == "A"


def test_without_scores_or_lexicon_the_protocols_refuse(tmp_path):
    gold, pred, scores, train, release = _write(tmp_path)
    with pytest.raises(UsageError, match="needs --frame-scores"):
        run("lexfilter:none", gold, pred, lexicon=None, lexicon_tag="")
    with pytest.raises(UsageError, match="needs --lu-frames"):
        run("lexfilter:train", gold, pred, lexicon=None, lexicon_tag="", frame_scores=FrameScores(scores))
    (tmp_path / "short.jsonl").write_text(scores.read_text().split("\n", 1)[1])
    with pytest.raises(PyfnError, match="no scores for predicted set"):
        run("lexfilter:none", gold, pred, lexicon=None, lexicon_tag="",
            frame_scores=FrameScores(tmp_path / "short.jsonl"))


@pytest.mark.parametrize(("text", "message"), [
    ("{not json\n", r"bad\.jsonl:1: not JSON"),
    ('{"sentence": 0, "target": [[3, 6]]}\n', "exactly"),
    ('{"sentence": "0", "target": [[3, 6]], "scores": {}}\n', "integer ID"),
    ('{"sentence": 0, "target": [[6, 3]], "scores": {}}\n', "spans"),
    ('{"sentence": 0, "target": [[3, 6]], "scores": {"A": "x"}}\n', "finite numbers"),
    ("\n", "no frame scores"),
])
def test_frame_scores_file_errors_name_file_and_line(tmp_path, text, message):
    (tmp_path / "bad.jsonl").write_text(text)
    with pytest.raises(PyfnError, match=message):
        frame_scores.read(tmp_path / "bad.jsonl")


def test_frame_scores_lines_are_deterministic_and_round_trip(tmp_path):
    line = frame_scores.line(3, [(9, 12), (0, 1)], {"b": 0.1 + 0.2, "a": -1e-7})
    assert line == '{"sentence": 3, "target": [[0, 1], [9, 12]], "scores": {"a": -1e-07, "b": 0.30000000000000004}}'
    (tmp_path / "s.jsonl").write_text(line + "\n")
    assert frame_scores.read(tmp_path / "s.jsonl") == {(3, ((0, 1), (9, 12))): [{"a": -1e-7, "b": 0.1 + 0.2}]}
    with pytest.raises(PyfnError, match="no finite score"):
        frame_scores.line(0, [(0, 1)], {"a": float("nan")})


def test_cli_protocol_card_and_all_protocols(tmp_path, capsys):
    gold, pred, scores, train, release = _write(tmp_path)
    base = ["score", "--gold", str(gold), "--pred", str(pred)]
    assert main([*base, "--protocol", "lexfilter:full", "--frame-scores", str(scores),
                 "--release-lu-frames", str(release), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["measures"]["accuracy"]["tp"] == 2 and out["card"]["protocol"] == "lexfilter:full"
    assert main([*base, "--protocol", "lexfilter:none"]) == 2
    assert "needs --frame-scores" in capsys.readouterr().err
    assert main([*base, "--protocol", "lexfilter:train", "--lu-frames", str(train)]) == 2
    assert "lexfilter:train needs --frame-scores FILE and --lu-frames" in capsys.readouterr().err
    assert main([*base, "--protocol", "lexfilter:none", "--frame-scores", str(tmp_path / "missing.jsonl")]) == 1
    assert "missing.jsonl: cannot read the frame scores" in capsys.readouterr().err
    assert main([*base, "--protocol", "spanfinder", "--frame-scores", str(scores)]) == 2
    assert "go with lexfilter" in capsys.readouterr().err
    here = Path(__file__).resolve().parent
    lex = ["--frames", str(here / "lexicon" / "frames.xml"), "--relations", str(here / "lexicon" / "frRelations.xml")]
    assert main([*base, *lex, "--all-protocols", "--frame-scores", str(scores), "--lu-frames", str(train),
                 "--json"]) == 0
    rows = {r["protocol"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert {"lexfilter:train", "lexfilter:none"} <= set(rows) and "lexfilter:full" not in rows
    assert rows["lexfilter:train"]["f1"] == pytest.approx(1 / 3)
