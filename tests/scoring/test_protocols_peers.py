"""The named protocols against the peers' own evaluation code, on FN 1.5 test gold (protocol_reference.json).

The predictions are rebuilt here from ``fn15_std`` (``protocol_cases.py``) and must hash to the files
the peers scored; pyfn's numbers must equal theirs to 1e-9.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from protocol_cases import CASES, write_cases  # noqa: E402

from pyfn.formats import jsonl  # noqa: E402
from pyfn.scoring.protocols import run  # noqa: E402
from pyfn.scoring.scorer_lexicon import ScorerLexicon  # noqa: E402

REFERENCE = json.loads((HERE / "protocol_reference.json").read_text())
TOL = 1e-9


@pytest.fixture(scope="module")
def cases(fn15_std, fn15_release, tmp_path_factory):
    gold = fn15_std.dir / "test.gold.xml"
    assert hashlib.sha256(gold.read_bytes()).hexdigest() == REFERENCE["gold"]["sha256"]
    preds = write_cases(list(jsonl.read(fn15_std.dir / "test.jsonl")), tmp_path_factory.mktemp("protocol_cases"))
    return gold, preds, ScorerLexicon.from_release(fn15_release)


def test_predictions_are_the_ones_the_peers_scored(cases):
    _, preds, _ = cases
    assert {n: hashlib.sha256(p.read_bytes()).hexdigest() for n, p in preds.items()} == REFERENCE["predictions"]


def _close(ours: float, theirs: float) -> bool:
    return abs(ours - theirs) <= TOL


@pytest.mark.parametrize("case", list(CASES))
def test_sesame_matches_open_sesame(cases, case):
    gold, preds, lexicon = cases
    peer = REFERENCE["results"]["sesame"][case]
    result = run("sesame-labeled", gold, preds[case], lexicon=lexicon, lexicon_tag="fn1.5")
    for measure in ("labeled", "unlabeled", "token"):
        ours = result.measure(measure)
        assert [ours.counts.tp, ours.counts.fp, ours.counts.fn] == peer[measure]["tp_fp_fn"], measure
        for key in ("precision", "recall", "f1"):
            assert _close(getattr(ours, key), peer[measure][key]), (measure, key)


@pytest.mark.parametrize("case", list(CASES))
def test_spanfinder_matches_srl_metric(cases, case):
    gold, preds, lexicon = cases
    peer = REFERENCE["results"]["spanfinder"][case]
    result = run("spanfinder", gold, preds[case], lexicon=lexicon, lexicon_tag="fn1.5")
    for measure in ("tri-i", "tri-c", "arg-i", "arg-c"):
        ours = result.measure(measure)
        assert [ours.counts.tp, ours.counts.fp, ours.counts.fn] == peer["tp_fp_fn"][measure], measure
        for key, suffix in (("precision", "p"), ("recall", "r"), ("f1", "f")):
            assert _close(100 * getattr(ours, key), peer["metric"][f"{measure}_{suffix}"]), (measure, key)
    removed = sum(v for k, v in result.card.skipped.items() if k.startswith("gold_") and "overlaps" in k)
    assert removed == peer["gold_spans_removed"]


@pytest.mark.parametrize("case", list(CASES))
def test_fst_matches_frame_semantic_transformer(cases, case):
    gold, preds, lexicon = cases
    peer = REFERENCE["results"]["fst"][case]
    result = run("fst-text", gold, preds[case], lexicon=lexicon, lexicon_tag="fn1.5")
    ours = result.measure()
    assert [ours.counts.tp, ours.counts.fp, ours.counts.fn] == peer["tp_fp_fn"]
    for key, theirs in (("precision", "precision"), ("recall", "recall"), ("f1", "f_score")):
        assert _close(getattr(ours, key), peer[theirs]), key
