"""Issue 15: sentences pair by SemEval ID, checked by text; a missing prediction never raises a score.

Small cases cut from ``tests/scoring/cases/test15.gold.xml`` (15 FN 1.5 test
sentences, the filtered scorer lexicon) check every rule in every mode; the
real FN 1.5 test gold (875 sentences, built once for the module) checks the
numbers of the issue: a file with its last 300 sentences deleted, every other
sentence deleted, the first 300 moved to the end, 100 sentences outside gold,
one sentence whose text differs.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from pyfn.errors import PyfnError
from pyfn.formats.base import sentence_string
from pyfn.scoring import ScorerLexicon, score
from pyfn.scoring.compare import compare_f1, compare_frame_id
from pyfn.scoring.frameid import frame_id_files
from pyfn.scoring.pairing import pair, sentence_keys

SCORING = Path(__file__).resolve().parent / "scoring"
GOLD15 = SCORING / "cases" / "test15.gold.xml"
LEXICON_FILES = (SCORING / "lexicon" / "frames.xml", SCORING / "lexicon" / "frRelations.xml")
LEX_ARGS = ["--frames", str(LEXICON_FILES[0]), "--relations", str(LEXICON_FILES[1])]
MODES = ("semeval", "frames", "argsonly")

Edit = Callable[[etree._Element], None]


def edited(gold: Path, target: Path, edit: Edit) -> Path:
    """A copy of ``gold`` whose ``<sentences>`` element ``edit`` changed in place."""
    tree = etree.parse(str(gold))
    sentences = tree.getroot().find(".//sentences")
    assert sentences is not None
    edit(sentences)
    tree.write(str(target), xml_declaration=True, encoding="UTF-8")
    return target


def cut_last(n: int) -> Edit:
    def edit(sentences: etree._Element) -> None:
        for sentence in list(sentences)[-n:]:
            sentences.remove(sentence)
    return edit


def every_other(sentences: etree._Element) -> None:
    for sentence in list(sentences)[1::2]:
        sentences.remove(sentence)


def first_to_end(n: int) -> Edit:
    def edit(sentences: etree._Element) -> None:
        for sentence in list(sentences)[:n]:
            sentences.remove(sentence)
            sentences.append(sentence)
    return edit


def extra(n: int) -> Edit:
    """The first ``n`` sentences again, under IDs that no gold sentence has."""
    def edit(sentences: etree._Element) -> None:
        for i, sentence in enumerate(list(sentences)[:n]):
            twin = copy.deepcopy(sentence)
            twin.set("ID", f"extra{i}")
            sentences.append(twin)
    return edit


def retext(index: int) -> Edit:
    def edit(sentences: etree._Element) -> None:
        text = list(sentences)[index].find("text")
        assert text is not None and text.text is not None
        text.text = text.text.upper()
    return edit


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyfn", *args], capture_output=True, text=True)


def totals(result) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    return result.matched, result.gold, result.predicted


# --------------------------------------------------------------------------- small cases (15 sentences)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ScorerLexicon]:
    return tmp_path_factory.mktemp("pairing"), ScorerLexicon.from_files(*LEXICON_FILES)


@pytest.mark.parametrize("mode", MODES)
def test_missing_sentences_count_as_missed_in_every_mode(small, mode: str) -> None:
    folder, lexicon = small
    full = score(GOLD15, GOLD15, lexicon=lexicon, mode=mode)
    cut = score(GOLD15, edited(GOLD15, folder / f"cut-{mode}.xml", cut_last(5)), lexicon=lexicon, mode=mode)
    kept = [s for s in full.per_sentence if s.index < 10]
    assert cut.gold == full.gold  # the gold total never shrinks
    assert cut.matched == pytest.approx(sum(s.matched for s in kept))
    assert cut.recall == pytest.approx(sum(s.gold for s in kept) / full.gold) and cut.recall < full.recall
    assert cut.f1 < full.f1
    assert [(s.index, s.id) for s in cut.per_sentence if s.status == "missing"] == [(i, str(i)) for i in range(10, 15)]
    assert cut.sentence_counts() == {"gold": 15, "scored": 10, "missing": 5, "text_differs": 0, "not_in_gold": 0,
                                     "no_gold_points": 0}
    assert "5 of 15 gold sentences have no predicted sentence with their ID (IDs 10, 11, 12, …)" in cut.warnings()[0]


@pytest.mark.parametrize("mode", MODES)
def test_a_reordered_prediction_scores_as_the_ordered_one(small, mode: str) -> None:
    folder, lexicon = small
    pred = edited(GOLD15, folder / f"pred-{mode}.xml", retext(4))  # one sentence wrong, to tell orders apart
    ordered = score(GOLD15, pred, lexicon=lexicon, mode=mode)
    moved = score(GOLD15, edited(pred, folder / f"moved-{mode}.xml", first_to_end(6)), lexicon=lexicon, mode=mode)
    assert totals(moved) == totals(ordered) and moved.sentence_counts() == ordered.sentence_counts()
    assert moved.per_sentence == ordered.per_sentence


def test_every_other_sentence_deleted(small) -> None:
    folder, lexicon = small
    full = score(GOLD15, GOLD15, lexicon=lexicon)
    half = score(GOLD15, edited(GOLD15, folder / "half.xml", every_other), lexicon=lexicon)
    assert half.gold == full.gold and half.precision == 1.0
    assert half.recall == pytest.approx(sum(s.gold for s in full.per_sentence if s.index % 2 == 0) / full.gold)
    assert half.sentence_counts()["missing"] == 7


@pytest.mark.parametrize("mode", MODES)
def test_predicted_sentences_outside_gold_lower_precision(small, mode: str) -> None:
    folder, lexicon = small
    full = score(GOLD15, GOLD15, lexicon=lexicon, mode=mode)
    more = score(GOLD15, edited(GOLD15, folder / f"extra-{mode}.xml", extra(3)), lexicon=lexicon, mode=mode)
    outside = [s for s in more.per_sentence if s.status == "not_in_gold"]
    assert [s.id for s in outside] == ["extra0", "extra1", "extra2"]
    assert sum(s.predicted for s in outside) == pytest.approx(sum(s.predicted for s in full.per_sentence[:3]))
    assert sum(s.predicted for s in outside) > 0
    assert (more.matched, more.gold) == (full.matched, full.gold) and more.recall == full.recall
    assert more.predicted == pytest.approx(full.predicted + sum(s.predicted for s in outside))
    assert more.precision < full.precision
    assert "3 predicted sentences have an ID that no gold sentence has (IDs extra0, extra1, extra2)" in (
        more.warnings()[0])


def test_a_sentence_whose_text_differs_is_reported_and_missed(small) -> None:
    folder, lexicon = small
    full = score(GOLD15, GOLD15, lexicon=lexicon)
    differs = score(GOLD15, edited(GOLD15, folder / "retext.xml", retext(3)), lexicon=lexicon)
    (sentence,) = [s for s in differs.per_sentence if s.status == "text_differs"]
    assert (sentence.index, sentence.id, sentence.matched) == (3, "3", 0.0)
    assert sentence.gold == full.per_sentence[3].gold > 0 and sentence.predicted == full.per_sentence[3].predicted
    assert differs.gold == full.gold and differs.matched == full.matched - full.per_sentence[3].matched
    assert "1 of 15 gold sentences have a predicted sentence with their ID but another text (ID 3)" in (
        differs.warnings()[0])


def test_pairing_rules(tmp_path: Path) -> None:
    # by ID wherever the sentence lies; text checked; IDs outside gold listed; no ID: the position
    pairing = pair([("0", "a"), ("1", "b"), ("2", "c")], [("2", "c"), ("0", "A"), ("9", "z")])
    assert pairing.pred_of == (1, None, 0) and pairing.missing == (1,)
    assert pairing.text_differs == {0} and pairing.covered == {2} and pairing.not_in_gold == (2,)
    twice = edited(GOLD15, tmp_path / "twice.xml", lambda s: list(s)[5].set("ID", "2"))
    with pytest.raises(PyfnError, match=r"twice.xml: sentence ID 2 appears twice \(sentences 2 and 5\)"):
        sentence_keys(twice)
    def unname(sentences: etree._Element) -> None:
        for sentence in sentences:
            del sentence.attrib["ID"]

    unnamed = edited(GOLD15, tmp_path / "unnamed.xml", unname)
    assert [key for key, _ in sentence_keys(unnamed)] == [str(i) for i in range(15)]


def test_frame_id_pairs_sentences_like_the_scorer(small) -> None:
    folder, _ = small
    lexicon: dict[str, frozenset[str]] = {}
    full = frame_id_files(GOLD15, GOLD15, lexicon)
    assert full.total.accuracy == 1.0 and full.warnings() == []
    moved = frame_id_files(GOLD15, edited(GOLD15, folder / "fid-moved.xml", first_to_end(6)), lexicon)
    assert moved.correct_vector == full.correct_vector
    cut = frame_id_files(GOLD15, edited(GOLD15, folder / "fid-cut.xml", cut_last(5)), lexicon)
    assert cut.pairing is not None and cut.pairing.missing == (10, 11, 12, 13, 14)
    assert cut.total.n == full.total.n and cut.total.correct < full.total.correct
    assert "5 of 15 gold sentences have no predicted sentence" in cut.warnings()[0]
    more = frame_id_files(GOLD15, edited(GOLD15, folder / "fid-extra.xml", extra(2)), lexicon)
    assert more.total.accuracy == 1.0 and more.unaligned_predictions > 0
    assert "2 predicted sentences have an ID that no gold sentence has" in more.warnings()[0]
    differs = frame_id_files(GOLD15, edited(GOLD15, folder / "fid-retext.xml", retext(3)), lexicon)
    assert differs.pairing is not None and differs.pairing.text_differs == {3}
    third = sentence_string(sentence_keys(GOLD15)[3][1])
    assert [not d.correct for d in differs.decisions] == [d.sentence == third for d in full.decisions]
    assert "1 of 15 gold sentences have a predicted sentence with their ID but another text (ID 3)" in (
        differs.warnings()[0])


def test_compare_refuses_files_covering_other_gold_sentences(small) -> None:
    folder, lexicon = small
    cut = edited(GOLD15, folder / "cmp-cut.xml", cut_last(5))
    with pytest.raises(PyfnError, match=r"do not cover the same gold sentences \(of 15\): .*cmp-cut.xml lacks 5 "
                                        r"\(IDs 10, 11, 12, …\), .*test15.gold.xml lacks 0"):
        compare_f1(GOLD15, [cut, GOLD15], lexicon=lexicon, n_samples=10)
    more = edited(GOLD15, folder / "cmp-extra.xml", extra(1))
    with pytest.raises(PyfnError, match=r"cmp-extra.xml: 1 predicted sentences have an ID that no gold sentence has"):
        compare_f1(GOLD15, [GOLD15, more], lexicon=lexicon, n_samples=10)
    with pytest.raises(PyfnError, match="do not cover the same gold sentences"):
        compare_frame_id(GOLD15, [cut, GOLD15], lu_frames={})
    # the same gold sentences missing everywhere: compared, each missed sentence counted in every score
    other = edited(cut, folder / "cmp-cut2.xml", first_to_end(3))
    scores, _, pairs = compare_f1(GOLD15, [cut, other], lexicon=lexicon, n_samples=10)
    assert totals(scores[0]) == totals(scores[1]) and pairs[0].delta == 0.0


# --------------------------------------------------------------------------- the command line (small cases)


def test_score_prints_sentence_counts_and_per_sentence_status(small) -> None:
    folder, _ = small
    pred = edited(edited(GOLD15, folder / "cli.xml", cut_last(2)), folder / "cli.xml", extra(1))
    pred = edited(pred, pred, retext(0))
    proc = run("score", "--gold", str(GOLD15), "--pred", str(pred), *LEX_ARGS, "--per-sentence")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("sentence 0\tmatched 0\tgold ") and lines[0].endswith("\ttext differs")
    assert lines[1].startswith("sentence 1\tmatched ") and lines[1].count("\t") == 3
    assert lines[13].startswith("sentence 13\tmatched 0\tgold ") and lines[13].endswith("\tpredicted 0\tmissing")
    assert lines[15].startswith("predicted sentence 13 (ID extra0)\tmatched 0\tgold 0\tpredicted ")
    assert lines[15].endswith("\tnot in gold")
    assert lines[16] == ("sentences: 15 gold: 12 scored, 2 without a prediction and 1 with another predicted text "
                         "(counted as missed); 1 predicted sentences not in gold")
    assert lines[17].startswith("P ") and len(lines) == 18
    assert "2 of 15 gold sentences have no predicted sentence with their ID (IDs 13, 14)" in proc.stderr
    out = json.loads(run("score", "--gold", str(GOLD15), "--pred", str(pred), *LEX_ARGS, "--json",
                         "--per-sentence").stdout)
    assert out["sentences"] == {"gold": 15, "scored": 12, "missing": 2, "text_differs": 1, "not_in_gold": 1,
                                "no_gold_points": 0}
    assert [s["status"] for s in out["per_sentence"]].count("missing") == 2
    lu = folder / "lu_frames.tsv"
    lu.write_text("give.v\tGiving\n")
    proc = run("score", "--gold", str(GOLD15), "--pred", str(pred), "--mode", "frameid", "--lu-frames", str(lu))
    assert proc.returncode == 0 and proc.stdout.startswith("sentences: 15 gold: 12 scored, 2 without a prediction")
    assert "2 of 15 gold sentences have no predicted sentence with their ID" in proc.stderr


def test_strict_passes_on_the_scripts_quirks_and_says_them_in_words() -> None:
    gold = str(SCORING / "cases" / "test_same_span.gold.xml")
    proc = run("score", "--gold", gold, "--pred", gold, *LEX_ARGS, "--strict")
    assert proc.returncode == 0, proc.stderr
    assert ("pyfn: warning: 4 gold and 4 predicted annotation sets share their target with an earlier set of their "
            "sentence but have another frame: as the Perl script does, only the later frame is scored") in proc.stderr
    assert "same_target_replaces" not in proc.stderr


def test_compare_names_files_and_prints_full_signatures(small) -> None:
    folder, _ = small
    a, b = str(SCORING / "cases" / "test_fes_dropped.pred.xml"), str(SCORING / "cases" / "test_fes_shifted.pred.xml")
    proc = run("compare", "--gold", str(GOLD15), a, b, *LEX_ARGS, "--samples", "20")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for line, pred in zip(lines, (a, b)):
        assert line.startswith(f"{pred}: F1 ") and "semeval|partial|faithful|gold:" in line and "|v:" in line
    assert f"bootstrap p ({b} better)" in lines[2] and "(B better)" not in proc.stdout
    cut = edited(GOLD15, folder / "cli-cut.xml", cut_last(4))
    refused = run("compare", "--gold", str(GOLD15), str(cut), a, *LEX_ARGS, "--samples", "20")
    assert refused.returncode == 1 and refused.stdout == ""
    assert "do not cover the same gold sentences (of 15)" in refused.stderr and "cli-cut.xml lacks 4" in refused.stderr
    both = edited(cut, folder / "cli-cut2.xml", first_to_end(2))
    warned = run("compare", "--gold", str(GOLD15), str(cut), str(both), *LEX_ARGS, "--samples", "20")
    assert warned.returncode == 0, warned.stderr
    assert warned.stderr.count("no file has a prediction for 4 of 15 gold sentences (IDs 11, 12, 13, …): "
                               "counted as missed") == 2


# --------------------------------------------------------------------------- FN 1.5 test gold (issue 15's numbers)


@pytest.fixture(scope="module")
def fn15_files(fn15: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], ScorerLexicon]:
    out = tmp_path_factory.mktemp("fn15_pairing")
    proc = run("convert", "--from", "fnxml", "--to", "semeval", "--source", str(fn15), "--target", str(out),
               "--splits", "test", "--exclude-frames", "398", "--quiet")
    assert proc.returncode == 0, proc.stderr
    gold = out / "test.gold.xml"
    edits: dict[str, Edit] = {"cut": cut_last(300), "every_other": every_other, "moved": first_to_end(300),
                              "extra": extra(100), "retext": retext(5)}
    files = {"gold": gold, **{name: edited(gold, out / f"{name}.xml", edit) for name, edit in edits.items()}}
    from pyfn.framenet import open_release

    return files, ScorerLexicon.from_release(open_release(fn15))


def test_fn15_cut_file_recall_is_the_share_of_gold_kept(fn15_files) -> None:
    files, lexicon = fn15_files
    full = score(files["gold"], files["gold"], lexicon=lexicon)
    assert totals(full) == (10061.5, 10066.0, 10066.0)  # faithful gold against itself, as the Perl script
    cut = score(files["gold"], files["cut"], lexicon=lexicon)
    kept = sum(s.gold for s in full.per_sentence if s.index < 575)
    assert cut.gold == 10066.0 and cut.recall == pytest.approx(kept / 10066.0, abs=1e-3)
    assert abs(cut.recall - 575 / 875) < 0.03 and round(cut.f1, 5) == 0.77822  # was 0.99930 (issue 15)
    assert cut.sentence_counts()["missing"] == 300
    half = score(files["gold"], files["every_other"], lexicon=lexicon)
    assert half.gold == 10066.0 and abs(half.recall - 0.5) < 0.03 and half.precision > 0.99  # was F1 1.0 on 18.5
    assert half.sentence_counts()["missing"] == 437


@pytest.mark.parametrize("mode", MODES)
def test_fn15_reordered_file_scores_as_gold_and_cut_never_gains(fn15_files, mode: str) -> None:
    files, lexicon = fn15_files
    full = score(files["gold"], files["gold"], lexicon=lexicon, mode=mode)
    moved = score(files["gold"], files["moved"], lexicon=lexicon, mode=mode)
    assert totals(moved) == totals(full) and moved.f1 == full.f1 > 0.99  # was 0/0/0 (issue 15)
    cut = score(files["gold"], files["cut"], lexicon=lexicon, mode=mode)
    assert cut.gold == full.gold and cut.recall < 0.7 and cut.f1 < full.f1


def test_fn15_extra_and_retexted_sentences(fn15_files) -> None:
    files, lexicon = fn15_files
    full = score(files["gold"], files["gold"], lexicon=lexicon)
    more = score(files["gold"], files["extra"], lexicon=lexicon)
    outside = sum(s.predicted for s in more.per_sentence if s.status == "not_in_gold")
    assert more.sentence_counts()["not_in_gold"] == 100 and outside > 1000
    assert more.recall == full.recall and more.predicted == full.predicted + outside
    assert more.precision < 0.9 < full.precision  # was unchanged (issue 15)
    differs = score(files["gold"], files["retext"], lexicon=lexicon)
    assert [s.id for s in differs.per_sentence if s.status == "text_differs"] == ["5"]
    assert differs.gold == full.gold and differs.f1 < full.f1


def test_fn15_frame_id_and_command_line(fn15: Path, fn15_files) -> None:
    files, _ = fn15_files
    lexicon: dict[str, frozenset[str]] = {}
    full = frame_id_files(files["gold"], files["gold"], lexicon)
    assert frame_id_files(files["gold"], files["moved"], lexicon).correct_vector == full.correct_vector
    cut = frame_id_files(files["gold"], files["cut"], lexicon)
    assert cut.total.n == full.total.n == 4148 and cut.total.correct == 2636
    gold, cut_file = str(files["gold"]), str(files["cut"])
    fn = ["--framenet", str(fn15)]
    strict = run("score", "--gold", gold, "--pred", gold, *fn, "--strict")
    assert strict.returncode == 0 and "F1 0.99955  (matched 10061.5 / gold 10066 / predicted 10066)" in strict.stdout
    proc = run("score", "--gold", gold, "--pred", cut_file, *fn)
    assert proc.returncode == 0 and "sentences: 875 gold: 575 scored, 300 without a prediction" in proc.stdout
    assert "F1 0.77822" in proc.stdout and "300 of 875 gold sentences have no predicted sentence" in proc.stderr
    refused = run("compare", "--gold", gold, cut_file, gold, *fn, "--samples", "10")
    assert refused.returncode == 1 and "lacks 300 (IDs 575, 576, 577, …)" in refused.stderr
