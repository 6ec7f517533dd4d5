"""Frame-identification accuracy: total, ambiguous and no-lex predicates (SimpleFrameId's split)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import make_set

from pyfn.errors import ProblemLog, PyfnError
from pyfn.fileio import write_lines
from pyfn.train_lexicon import TrainInventory, lu_frames, table_lines
from pyfn.scoring.frameid import Accuracy, frame_id_accuracy, read_lu_frames
from pyfn.scoring.stats import mcnemar, wilson_interval

TEXT = "He gave her a book and took it back ."
LEXICON = {
    "give.v": frozenset({"Giving"}),
    "take.v": frozenset({"Taking", "Removing", "Bringing"}),
}


def _gold() -> list:
    return [
        make_set(TEXT, [(3, 6)], set_id=1, frame="Giving", lu="give.v"),
        make_set(TEXT, [(23, 26)], set_id=2, frame="Taking", lu="take.v"),
        make_set(TEXT, [(14, 17)], set_id=3, frame="Text", lu="book.n"),  # no-lex
    ]


def test_counts_per_subset_and_wilson_intervals() -> None:
    gold = _gold()
    pred = [
        replace(gold[0]),  # right
        replace(gold[1], frame_name="Removing"),  # wrong, ambiguous
        replace(gold[2], lu_name="", frame_name="Text"),  # right, no-lex (prediction LU names unused)
    ]
    score = frame_id_accuracy(gold, pred, LEXICON)
    assert (score.total.correct, score.total.n) == (2, 3)
    assert (score.ambiguous.correct, score.ambiguous.n) == (0, 1)
    assert (score.no_lex.correct, score.no_lex.n) == (1, 1)
    assert score.total.accuracy == pytest.approx(2 / 3)
    assert (score.total.low, score.total.high) == wilson_interval(2, 3, 0.95)
    assert score.correct_vector == (True, False, True)
    assert [d.pred_frame for d in score.decisions] == ["Giving", "Removing", "Text"]
    assert [(d.ambiguous, d.no_lex) for d in score.decisions] == [(False, False), (True, False), (False, True)]


def test_missing_and_misaligned_predictions_count_wrong() -> None:
    gold = _gold()
    shifted = make_set(TEXT, [(23, 27)], set_id=9, frame="Taking", lu="take.v")  # span differs
    other_text = make_set(TEXT + " !", [(3, 6)], set_id=10, frame="Giving")  # sentence differs
    score = frame_id_accuracy(gold, [shifted, other_text], LEXICON)
    assert score.correct_vector == (False, False, False)
    assert [d.pred_frame for d in score.decisions] == [None, None, None]
    assert score.unaligned_predictions == 2
    empty = frame_id_accuracy(gold, [], LEXICON)
    assert (empty.total.correct, empty.total.n) == (0, 3)


def test_trailing_whitespace_and_span_order_do_not_break_alignment() -> None:
    gold = [make_set(TEXT, [(3, 6), (28, 29)], frame="Giving")]
    pred = [make_set(TEXT + "  ", [(28, 29), (3, 6)], frame="Giving")]
    assert frame_id_accuracy(gold, pred, LEXICON).correct_vector == (True,)


def test_duplicate_predictions_are_logged_and_cannot_game_the_score() -> None:
    gold = [_gold()[1]]
    # a system that lists every frame of the LU: only the first prediction counts
    pred = [replace(gold[0], frame_name=f) for f in ("Removing", "Taking", "Bringing")]
    log = ProblemLog()
    score = frame_id_accuracy(gold, pred, LEXICON, log=log, where="pred.xml")
    assert score.correct_vector == (False,)
    assert score.duplicate_predictions == 2
    assert log.counts() == {"duplicate_prediction": 2}
    assert all(p.message.startswith("pred.xml:") for p in log.problems)
    with pytest.raises(PyfnError, match="pred.xml"):
        frame_id_accuracy(gold, pred, LEXICON, log=ProblemLog(strict=True), where="pred.xml")


def test_gold_sets_sharing_a_key_match_as_multisets() -> None:
    first = make_set(TEXT, [(23, 26)], set_id=1, frame="Taking", lu="take.v")
    second = make_set(TEXT, [(23, 26)], set_id=2, frame="Removing", lu="take.v")
    swapped = [replace(second, id=5), replace(first, id=6)]
    assert frame_id_accuracy([first, second], swapped, LEXICON).correct_vector == (True, True)
    one_wrong = [replace(first, frame_name="Bringing"), replace(first, id=7)]
    score = frame_id_accuracy([first, second], one_wrong, LEXICON)
    assert score.correct_vector == (True, False)
    assert [d.pred_frame for d in score.decisions] == ["Taking", "Bringing"]


def test_skip_unseen_frames_like_simpleframeid() -> None:
    gold = _gold()  # "Text" is no frame of the lexicon
    score = frame_id_accuracy(gold, gold, LEXICON, skip_unseen_frames=True)
    assert score.skipped_unseen_frames == 1
    assert (score.total.n, score.no_lex.n) == (2, 0)
    assert score.no_lex == Accuracy(0, 0, 0.0, 1.0)
    assert score.no_lex.accuracy == 0.0


def test_gold_without_lu_name_is_an_error() -> None:
    gold = [replace(_gold()[0], lu_name="")]
    with pytest.raises(PyfnError, match="no LU name"):
        frame_id_accuracy(gold, gold, LEXICON)


def test_paired_vectors_feed_mcnemar() -> None:
    gold = _gold()
    a = frame_id_accuracy(gold, gold, LEXICON)
    b = frame_id_accuracy(gold, [gold[0]], LEXICON)
    result = mcnemar(a.correct_vector, b.correct_vector)
    assert (result.b, result.c) == (2, 0)
    assert result.p_value == pytest.approx(0.25)  # 2 * P(X<=0) - P(X=0) with n=2


def test_read_lu_frames(tmp_path: Path) -> None:
    path = tmp_path / "lu_frames.tsv"
    write_lines(path, table_lines({"give.v": ["Giving"], "take off.v": ["Removing", "Undressing"]}, "\t", "x"))
    assert read_lu_frames(path) == {"give.v": {"Giving"}, "take off.v": {"Removing", "Undressing"}}
    bad = tmp_path / "bad.tsv"
    bad.write_text("give.v\tGiving\nlonely.a\n", encoding="utf-8")
    with pytest.raises(PyfnError, match=r"bad.tsv:2"):
        read_lu_frames(bad)
    bad.write_text("give.v\tGiving\ngive.v\tGiving\n", encoding="utf-8")
    with pytest.raises(PyfnError, match=r"bad.tsv:2: LU 'give.v' is listed twice"):
        read_lu_frames(bad)
    with pytest.raises(PyfnError, match="cannot read"):
        read_lu_frames(tmp_path / "absent.tsv")


def test_fn15_gold_against_itself(fn15_sets, tmp_path: Path) -> None:
    train, test = fn15_sets["train"], fn15_sets["test"]  # standard split, Test35 excluded
    path = tmp_path / "lu_frames.tsv"
    write_lines(path, table_lines(lu_frames(TrainInventory.of(train)), "\t", "lu_frames.tsv"))
    lexicon = read_lu_frames(path)
    score = frame_id_accuracy(test, test, lexicon)
    for subset in (score.total, score.ambiguous, score.no_lex):
        assert subset.accuracy == 1.0 and subset.correct == subset.n
    # pinned: FN 1.5 test targets, FT train-only lexicon (exclude frame 398)
    assert (score.total.n, score.ambiguous.n, score.no_lex.n) == (4148, 1329, 431)
    assert score.unaligned_predictions == score.duplicate_predictions == 0
    assert (len(lexicon), sum(len(f) > 1 for f in lexicon.values())) == (2807, 346)
    # the subsets follow the lexicon definition, target by target
    for d in score.decisions:
        assert d.no_lex == (d.lu not in lexicon)
        assert d.ambiguous == (d.lu in lexicon and len(lexicon[d.lu]) > 1)
