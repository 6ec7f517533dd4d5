"""The named protocols on hand-made cases: each peer's quirks, computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from pyfn.cli import PROTOCOL_NAMES, main
from pyfn.formats import semeval
from pyfn.scoring.protocols import PROTOCOLS, ranks, run
from pyfn.scoring.protocols import fst, sesame, spanfinder
from pyfn.scoring.protocols.base import Counts
from pyfn.scoring.scorer_lexicon import ScorerLexicon
from tests.conftest import make_set

HERE = Path(__file__).resolve().parent
INVENTORY = {"Giving": (("Donor", "Core"), ("Theme", "Core"), ("Time", "Peripheral")),
             "Process": (("Time", "Peripheral"),)}


def test_cli_names_are_the_registry():
    assert tuple(PROTOCOLS) == PROTOCOL_NAMES


def test_sesame_labeled_weights_and_its_two_traps():
    gold = {"Donor": [(0, 0)], "Time": [(3, 4)]}
    pred = {"Donor": [(0, 0)], "Time": [(3, 3)]}
    # Giving: Donor core 1, Time 0.5 (wrong span: fn 0.5 and fp 0.5)
    assert sesame.labeled(gold, pred, sesame.core_names("Giving", INVENTORY)) == Counts(1.0, 0.5, 0.5)
    # a frame without a file weighs everything 1 ...
    assert sesame.labeled(gold, pred, sesame.core_names("Nowhere", INVENTORY)) == Counts(1.0, 1.0, 1.0)
    # ... a frame whose file lists no Core FE weighs everything 0.5 (corefes == [] is not {})
    assert sesame.labeled(gold, pred, sesame.core_names("Process", INVENTORY)) == Counts(0.5, 0.5, 0.5)


def test_sesame_labeled_needs_the_whole_span_set():
    gold = {"Theme": [(2, 2), (5, 6)]}  # a discontinuous FE: one point, all or nothing
    assert sesame.labeled(gold, {"Theme": [(2, 2)]}, frozenset({"Theme"})) == Counts(0.0, 1.0, 1.0)


def test_sesame_unlabeled_counts_by_list_membership():
    gold = {"Donor": [(0, 1)], "Theme": [(0, 1)]}  # two names, same spans: one prediction matches both
    assert sesame.unlabeled(gold, {"Agent": [(0, 1)]}) == Counts(2.0, 0.0, 0.0)


def test_sesame_token_level_wrong_name_is_fp_and_fn():
    gold = {"Donor": [(0, 1)]}
    pred = {"Theme": [(1, 2)]}
    # token 0: gold Donor, pred O -> fn; token 1: Donor vs Theme -> fp+fn; token 2: O vs Theme -> fp
    assert sesame.token_level(4, gold, pred) == Counts(0.0, 2.0, 2.0)


def test_spanfinder_argument_tuples_ignore_the_event_boundary():
    gold = [(1, 1, "Giving", ((0, 0, "Donor"),)), (5, 5, "Giving", ((7, 7, "Donor"),))]
    pred = [(1, 1, "Giving", ((7, 7, "Donor"),)), (5, 5, "Giving", ((0, 0, "Donor"),))]
    counts = spanfinder.sentence(pred, gold)
    assert counts["arg-c"] == Counts(2, 0, 0)  # arguments under the wrong event still match
    assert counts["tri-c"] == Counts(2, 0, 0)
    other = [(1, 1, "Process", ((0, 0, "Donor"),)), (5, 5, "Giving", ((7, 7, "Donor"),))]
    counts = spanfinder.sentence(other, gold)
    assert counts["arg-i"] == Counts(1, 1, 1)  # the frame is part of an argument-identification tuple
    assert counts["tri-i"] == Counts(2, 0, 0) and counts["tri-c"] == Counts(1, 1, 1)


def test_spanfinder_removes_what_overlaps_an_earlier_span():
    from collections import Counter  # noqa: PLC0415

    skipped: Counter = Counter()
    kept = spanfinder.remove_overlapping([(2, 4, "A"), (0, 2, "B"), (5, 5, "C")], skipped, "x")
    assert kept == [(2, 4, "A"), (5, 5, "C")] and skipped["x"] == 1
    assert spanfinder.base_f(Counts(0, 3, 3)) == (0.0, 0.0, 0.0)


def test_fst_splits_as_its_text_output_does():
    assert fst.split_output("Donor = He 's | Theme = a = b | junk") == [("Donor", "He's"), ("Theme", "a")]


def _files(tmp_path: Path, gold_sets, pred_sets) -> tuple[Path, Path]:
    strings = [gold_sets[0].sentence.text]
    semeval.write(tmp_path / "gold.xml", gold_sets, sentences=strings)
    semeval.write(tmp_path / "pred.xml", pred_sets, sentences=strings)
    return tmp_path / "gold.xml", tmp_path / "pred.xml"


def test_fst_matches_text_not_offsets_and_scores_each_target_piece(tmp_path):
    text = "He gave it up and he gave it back"
    # a two-piece target ("gave ... up"): two args tasks, so every point twice
    gold = make_set(text, [(3, 6), (11, 12)], [("Donor", 0, 1), ("Time", 26, 27)])
    pred = make_set(text, [(3, 6), (11, 12)], [("Donor", 18, 19), ("Theme", 26, 27)])  # "he": other offsets
    g, p = _files(tmp_path, [gold], [pred])
    lexicon = ScorerLexicon([], [], [], INVENTORY)
    result = run("fst-text", g, p, lexicon=lexicon, lexicon_tag="t")
    # Donor "He" vs "he": differ in case, no match -> fn 1 fp 1; Time "it" missed (0.5), Theme "it" wrong (1)
    assert result.measure().counts == Counts(0.0, 4.0, 3.0)
    assert result.card.skipped["scored_again_per_target_piece"] == 1
    pred = make_set(text, [(3, 6), (11, 12)], [("donor", 21, 24)])  # "gave" elsewhere? no: name normalized
    gold = make_set(text, [(3, 6), (11, 12)], [("Donor", 3, 6)])
    g, p = _files(tmp_path, [gold], [pred])
    assert run("fst-text", g, p, lexicon=lexicon, lexicon_tag="t").measure().counts == Counts(2.0, 0.0, 0.0)


def test_cli_protocol_and_all_protocols(tmp_path, capsys):
    gold = HERE / "cases" / "test15.gold.xml"
    pred = HERE / "cases" / "test_fes_dropped.pred.xml"
    lex = ["--frames", str(HERE / "lexicon" / "frames.xml"), "--relations", str(HERE / "lexicon" / "frRelations.xml")]
    assert main(["score", "--gold", str(gold), "--pred", str(pred), *lex, "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["score", "--gold", str(gold), "--pred", str(pred), *lex, "--all-protocols", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    row = next(r for r in table["rows"] if r["protocol"] == "semeval07")
    assert (row["precision"], row["recall"], row["f1"]) == (default["precision"], default["recall"], default["f1"])
    # without --frame-scores, the lexfilter:* protocols (frame identification from per-frame scores) stay out
    assert {r["protocol"] for r in table["rows"]} == {n for n in PROTOCOL_NAMES if not n.startswith("lexfilter:")}
    assert main(["score", "--gold", str(gold), "--pred", str(pred), *lex, "--protocol", "spanfinder"]) == 0
    out = capsys.readouterr().out
    assert "protocol spanfinder: hiaoxui/span-finder@ad9ed403c6" in out and "tri-c" in out
    assert main(["score", "--gold", str(gold), "--pred", str(pred), *lex, "--protocol", "spanfinder", "--exact"]) == 2
    assert "a protocol fixes its own settings" in capsys.readouterr().err


def test_ranks_share_a_place_on_ties():
    assert ranks([0.5, 0.7, 0.5, 0.1]) == [2, 1, 2, 4]


def test_compare_all_protocols_ranks_each_system_and_says_where_the_ranking_moves(tmp_path, capsys):
    """Unrelated frames lose under semeval07 but not under Open-SESAME's scores, which never read the frame."""
    gold = HERE / "cases" / "test15.gold.xml"
    fes, frames = HERE / "cases" / "test_fes_dropped.pred.xml", HERE / "cases" / "test_frames_unrelated.pred.xml"
    systems = [str(fes), str(frames)]
    lex = ["--frames", str(HERE / "lexicon" / "frames.xml"), "--relations", str(HERE / "lexicon" / "frRelations.xml")]
    assert main(["compare", "--all-protocols", "--json", "--gold", str(gold), *systems, *lex]) == 0
    rows = {(r["protocol"], r["measure"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    reference = [rows[("semeval07", "semeval")]["rank"][s] for s in systems]
    for key, row in rows.items():
        order = ranks([row["f1"][s] for s in systems])
        assert [row["rank"][s] for s in systems] == order, key
        assert row["same_ranking"] == (order == reference), key
    assert reference == [1, 2] and not rows[("sesame-labeled", "labeled")]["same_ranking"]
    assert main(["compare", "--all-protocols", "--gold", str(gold), *systems, *lex]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"S1 = {fes}", f"S2 = {frames}"]
    assert any(line.startswith("sesame-labeled") and line.endswith("NO") for line in out)
    tree = etree.parse(str(frames))
    last = tree.findall(".//sentence")[-1]
    last.getparent().remove(last)
    tree.write(str(tmp_path / "cut.xml"))
    assert main(["compare", "--all-protocols", "--gold", str(gold), str(fes), str(tmp_path / "cut.xml"), *lex]) == 1
    assert "do not cover the same gold sentences" in capsys.readouterr().err


def test_a_predicted_sentence_outside_gold_costs_precision_where_the_protocol_counts_it(tmp_path, capsys):
    """span-finder scores every predicted event of every sentence: one outside gold is all false positives.
    Open-SESAME's and frame-semantic-transformer's scores skip predicted sets off gold targets, so theirs too."""
    gold = HERE / "cases" / "test15.gold.xml"
    pred = HERE / "cases" / "test_fes_dropped.pred.xml"
    tree = etree.parse(str(pred))
    first = tree.find(".//sentence")
    extra = etree.fromstring(etree.tostring(first))
    extra.set("ID", "999")
    first.getparent().append(extra)
    tree.write(str(tmp_path / "extra.xml"))
    lexicon = ScorerLexicon([], [], [], INVENTORY)
    before = run("spanfinder", gold, pred, lexicon=lexicon, lexicon_tag="t")
    after = run("spanfinder", gold, tmp_path / "extra.xml", lexicon=lexicon, lexicon_tag="t")
    events = len(first.findall(".//annotationSet"))
    assert after.measure("tri-i").counts.fp == before.measure("tri-i").counts.fp + events
    assert after.measure("tri-i").counts.tp == before.measure("tri-i").counts.tp
    assert after.measure("tri-i").precision < before.measure("tri-i").precision
    assert after.card.skipped["pred_sentence_not_in_gold"] == 1
    for name in ("sesame-labeled", "fst-text"):
        assert (run(name, gold, tmp_path / "extra.xml", lexicon=lexicon, lexicon_tag="t").measure().counts
                == run(name, gold, pred, lexicon=lexicon, lexicon_tag="t").measure().counts)
