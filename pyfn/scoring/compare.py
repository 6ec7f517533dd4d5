"""Compare several systems on one gold file: score differences, intervals, corrected p-values.

The prediction files must pair with the same gold sentences
(:mod:`pyfn.scoring.pairing`) and hold no sentence outside gold; otherwise the
comparison is refused, naming each file and what it lacks. Gold sentences that
every file lacks count as missed in every score, and :func:`coverage_note`
says so beside each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError
from pyfn.scoring.frameid import FrameIdScore, frame_id_files
from pyfn.scoring.pairing import examples, read_file
from pyfn.scoring.scorer_lexicon import ScorerLexicon
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


@dataclass(frozen=True)
class Coverage:
    """Which gold sentences a prediction file left without a paired prediction, and its sentences outside gold."""

    gold: int
    uncovered: tuple[str, ...]
    outside: tuple[str, ...]


def coverage(result: Score | FrameIdScore) -> Coverage:
    """The gold sentence IDs a score's prediction did not cover (none, or another text) and its IDs not in gold."""
    if isinstance(result, Score):
        uncovered = tuple(s.id for s in result.per_sentence if s.status in ("missing", "text_differs"))
        outside = tuple(s.id for s in result.per_sentence if s.status == "not_in_gold")
        return Coverage(result.sentence_counts()["gold"], uncovered, outside)
    pairing = result.pairing
    assert pairing is not None
    uncovered = tuple(key for g, key in enumerate(pairing.gold_keys) if g not in pairing.covered)
    return Coverage(len(pairing.gold_keys), uncovered, tuple(pairing.pred_keys[p] for p in pairing.not_in_gold))


def check_coverage(preds: Sequence[Path], results: Sequence[Score | FrameIdScore]) -> None:
    """Refuse (:class:`PyfnError`) files holding sentences outside gold, or covering different gold sentences."""
    covers = [coverage(r) for r in results]
    for pred, cover in zip(preds, covers):
        if cover.outside:
            raise PyfnError(f"{pred}: {len(cover.outside)} predicted sentences have an ID that no gold sentence has "
                            f"({examples(cover.outside)}); compare needs predictions of the gold sentences only")
    if len({c.uncovered for c in covers}) > 1:
        each = ", ".join(f"{pred} lacks {len(c.uncovered)}" + (f" ({examples(c.uncovered)})" if c.uncovered else "")
                         for pred, c in zip(preds, covers))
        raise PyfnError(f"the prediction files do not cover the same gold sentences (of {covers[0].gold}): {each}; "
                        "give every file a predicted sentence, with the gold ID and text, for the same gold sentences "
                        "(an empty <annotationSets/> where nothing is predicted)")


def coverage_note(result: Score | FrameIdScore) -> str:
    """``""``, or what every compared file lacks: gold sentences without a prediction, counted as missed."""
    cover = coverage(result)
    if not cover.uncovered:
        return ""
    return (f"no file has a prediction for {len(cover.uncovered)} of {cover.gold} gold sentences "
            f"({examples(cover.uncovered)}): counted as missed")


def sentence_points(result: Score) -> dict[int, Point]:
    """Per gold sentence (matched, gold, predicted), keyed by its position (sentences outside gold left out)."""
    return {s.index: (s.matched, s.gold, s.predicted) for s in result.per_sentence if s.status != "not_in_gold"}


def compare_f1(
    gold: Path, preds: Sequence[Path], *, lexicon: ScorerLexicon, mode: str = "semeval", exact: bool = False,
    corrected: bool = False, n_samples: int = 1000, seed: int = 0,
) -> tuple[list[Score], list[dict], list[PairComparison]]:
    """Score every prediction file, check they cover the same gold sentences, then test every pair.

    Returns the scores, each system's bootstrap F1 interval, and the pairwise
    comparisons: the paired-bootstrap interval of delta = B - A (and its
    one-sided p-value, "B better"), and the two-sided approximate-randomization
    p-value, which the Bonferroni and Holm corrections over the pairs adjust.
    """
    scores = [score(gold, pred, lexicon=lexicon, mode=mode, exact=exact, corrected=corrected) for pred in preds]
    check_coverage(preds, scores)
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
) -> tuple[list[FrameIdScore], list[PairComparison]]:
    """Frame-identification accuracy of every system (checked as :func:`compare_f1` checks them) and
    McNemar mid-p tests between pairs."""
    gold_doc = read_file(gold, ProblemLog())
    results = [frame_id_files(gold_doc, pred, lu_frames, log=ProblemLog()) for pred in preds]
    check_coverage(preds, results)
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
