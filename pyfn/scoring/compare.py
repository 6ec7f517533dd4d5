"""Compare several systems on one gold file: score differences, intervals, corrected p-values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from pyfn.errors import ProblemLog
from pyfn.formats import semeval as semeval_xml
from pyfn.scoring.frameid import frame_id_accuracy
from pyfn.scoring.relations import ScorerLexicon
from pyfn.scoring.semeval import Score, score
from pyfn.scoring.stats import (
    Point,
    approximate_randomization,
    bonferroni,
    bootstrap_f1_interval,
    holm,
    mcnemar,
    paired_bootstrap,
)


@dataclass(frozen=True)
class PairComparison:
    """System B against system A (delta = B - A) with its tests and corrected p-values."""

    a: str
    b: str
    delta: float
    ci_low: float | None
    ci_high: float | None
    p_value: float
    test: str
    p_bonferroni: float = 1.0
    p_holm: float = 1.0
    p_bootstrap: float | None = None


def sentence_points(result: Score) -> dict[int, Point]:
    """Per-sentence (matched, gold, predicted) keyed by gold sentence position."""
    return {s.index: (s.matched, s.gold, s.predicted) for s in result.per_sentence}


def compare_f1(
    gold: Path, preds: Sequence[Path], *, lexicon: ScorerLexicon, mode: str = "semeval", exact: bool = False,
    corrected: bool = False, n_samples: int = 1000, seed: int = 0,
) -> tuple[list[Score], list[dict], list[PairComparison]]:
    """Score every prediction file, then test every pair on the sentences scored in both.

    Returns the scores, each system's bootstrap F1 interval, and the pairwise
    comparisons: the paired-bootstrap interval of delta = B - A (and its
    one-sided p-value, "B better"), and the two-sided approximate-randomization
    p-value, which the Bonferroni and Holm corrections over the pairs adjust.
    """
    scores = [score(gold, pred, lexicon=lexicon, mode=mode, exact=exact, corrected=corrected) for pred in preds]
    points = [sentence_points(s) for s in scores]
    intervals = []
    for pred, pts in zip(preds, points):
        interval = bootstrap_f1_interval([pts[i] for i in sorted(pts)], n_samples=n_samples, seed=seed)
        intervals.append({"system": str(pred), "f1": interval.f1, "low": interval.low, "high": interval.high})
    pairs = []
    for i, j in combinations(range(len(preds)), 2):
        common = sorted(set(points[i]) & set(points[j]))
        a, b = [points[i][k] for k in common], [points[j][k] for k in common]
        boot = paired_bootstrap(a, b, n_samples=n_samples, seed=seed)
        rand = approximate_randomization(a, b, n_samples=n_samples, seed=seed)
        pairs.append(
            PairComparison(str(preds[i]), str(preds[j]), boot.delta, boot.ci_low, boot.ci_high, rand.p_value,
                           "approximate randomization (two-sided)", p_bootstrap=boot.p_value)
        )
    return scores, intervals, _corrected(pairs)


def compare_frame_id(
    gold: Path, preds: Sequence[Path], *, lu_frames: dict[str, frozenset[str]]
) -> tuple[list, list[PairComparison]]:
    """Frame-identification accuracy of every system and McNemar mid-p tests between pairs."""
    gold_sets = list(semeval_xml.read(gold, log=ProblemLog()))
    results = [
        frame_id_accuracy(gold_sets, list(semeval_xml.read(pred, log=ProblemLog())), lu_frames, where=str(pred))
        for pred in preds
    ]
    pairs = []
    for i, j in combinations(range(len(preds)), 2):
        test = mcnemar(results[i].correct_vector, results[j].correct_vector)
        delta = results[j].total.accuracy - results[i].total.accuracy
        pairs.append(PairComparison(str(preds[i]), str(preds[j]), delta, None, None, test.p_value, "McNemar mid-p"))
    return results, _corrected(pairs)


def _corrected(pairs: list[PairComparison]) -> list[PairComparison]:
    pvalues = [p.p_value for p in pairs]
    return [
        PairComparison(p.a, p.b, p.delta, p.ci_low, p.ci_high, p.p_value, p.test, bon, hol, p.p_bootstrap)
        for p, bon, hol in zip(pairs, bonferroni(pvalues), holm(pvalues))
    ] if pairs else []
