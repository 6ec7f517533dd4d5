"""Statistics for scores: pyfn's calls into scipy / statsmodels checked against independent hand
computations (exact integers, closed forms) and against the other library where two compute the same."""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

import pytest

from pyfn.errors import UsageError
from pyfn.scoring import stats

scipy_stats = pytest.importorskip("scipy.stats")
proportion = pytest.importorskip("statsmodels.stats.proportion")
multitest = pytest.importorskip("statsmodels.stats.multitest")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")

def midp_by_hand(b: int, c: int) -> float:
    """Mid-p with exact integers: ``(2 * sum_{i<=k} C(n, i) - C(n, k)) / 2**n``."""
    if b == c:
        return 1.0
    n, k = b + c, min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, (2 * tail - math.comb(n, k)) / 2**n)


def wilson_by_hand(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson's closed form: ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``."""
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def holm_by_hand(pvalues: list[float]) -> list[float]:
    """Step-down: the i-th smallest p times (m - i), running maximum, capped at 1; input order."""
    m = len(pvalues)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda j: pvalues[j])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


DISCORDANT = [(0, 1), (1, 0), (0, 5), (3, 10), (10, 3), (7, 8), (12, 30), (40, 25), (1, 60), (200, 240)]


@pytest.mark.parametrize(("b", "c"), DISCORDANT)
def test_mcnemar_midp_matches_exact_binomial_minus_half_point(b: int, c: int) -> None:
    n, k = b + c, min(b, c)
    exact = scipy_stats.binomtest(k, n, 0.5).pvalue
    expected = min(1.0, exact - scipy_stats.binom.pmf(k, n, 0.5))
    assert stats.mcnemar_midp(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert stats.mcnemar_midp(b, c) == pytest.approx(midp_by_hand(b, c), rel=1e-9, abs=1e-15)
    # the exact part is statsmodels' exact McNemar test
    table = [[5, b], [c, 9]]
    assert exact == pytest.approx(contingency.mcnemar(table, exact=True).pvalue, rel=1e-9)


def test_mcnemar_midp_hand_computed_and_tie_cases() -> None:
    # b=1, c=4: n=5, P(X<=1) = 6/32, P(X=1) = 5/32 -> 12/32 - 5/32 = 7/32
    assert stats.mcnemar_midp(1, 4) == 7 / 32
    assert stats.mcnemar_midp(2, 3) == 22 / 32  # P(X<=2) = 16/32, P(X=2) = 10/32 -> 32/32 - 10/32
    assert stats.mcnemar_midp(0, 0) == 1.0
    assert stats.mcnemar_midp(6, 6) == 1.0
    assert stats.mcnemar_midp(2, 3) <= 1.0
    large = stats.mcnemar_midp(2000, 2300)  # large n: no overflow, tiny p kept to relative precision
    assert 0.0 < large < 1e-5 and large == pytest.approx(midp_by_hand(2000, 2300), rel=1e-9)
    with pytest.raises(UsageError):
        stats.mcnemar_midp(-1, 2)


def test_mcnemar_counts_discordant_pairs() -> None:
    a = [True, True, False, False, True, False]
    b = [True, False, True, True, False, False]
    result = stats.mcnemar(a, b)
    assert (result.b, result.c) == (2, 2)
    assert result.p_value == 1.0
    with pytest.raises(UsageError):
        stats.mcnemar(a, b[:-1])


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 10), (412, 500), (1, 2), (2718, 4148)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(k: int, n: int, confidence: float) -> None:
    low, high = proportion.proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert stats.wilson_interval(k, n, confidence) == pytest.approx((low, high), abs=1e-12)
    assert stats.wilson_interval(k, n, confidence) == pytest.approx(wilson_by_hand(k, n, confidence), abs=1e-12)
    # scipy computes the same interval
    ci = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert stats.wilson_interval(k, n, confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_edge_cases() -> None:
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    for bad in [(3, 2), (-1, 4)]:
        with pytest.raises(UsageError):
            stats.wilson_interval(*bad)
    with pytest.raises(UsageError):
        stats.wilson_interval(1, 2, confidence=1.0)


PVALUES = [
    [0.01, 0.04, 0.03, 0.005],
    [0.2, 0.2, 0.01],
    [0.001, 0.5, 0.9, 0.04, 0.04, 0.3],
    [0.6],
    [0.3, 0.6, 0.9],
]


@pytest.mark.parametrize("pvalues", PVALUES)
@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_corrections_match_statsmodels(pvalues: list[float], method: str) -> None:
    expected = multitest.multipletests(pvalues, method=method)[1]
    assert getattr(stats, method)(pvalues) == pytest.approx(list(expected), abs=1e-12)
    by_hand = holm_by_hand(pvalues) if method == "holm" else [min(1.0, len(pvalues) * p) for p in pvalues]
    assert getattr(stats, method)(pvalues) == pytest.approx(by_hand, abs=1e-12)


def test_holm_is_monotone_and_capped() -> None:
    rng = random.Random(3)
    pvalues = [rng.random() for _ in range(30)]
    adjusted = stats.holm(pvalues)
    pairs = sorted(zip(pvalues, adjusted))
    assert all(a1 <= a2 for (_, a1), (_, a2) in itertools.pairwise(pairs))
    assert all(p <= a <= 1.0 for p, a in pairs)
    assert stats.bonferroni([]) == [] and stats.holm([]) == []
    with pytest.raises(UsageError):
        stats.holm([0.5, 1.5])


def _system(seed: int, n: int = 120, skill: float = 0.6) -> list[tuple[float, float, float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        gold = float(rng.randint(1, 8))
        pred = float(rng.randint(1, 8))
        matched = float(sum(rng.random() < skill for _ in range(int(min(gold, pred)))))
        out.append((matched, gold, pred))
    return out


def test_f1_from_points() -> None:
    # P = 3/4, R = 3/6 -> F = 2PR/(P+R) = 0.6 = 2*3/(6+4)
    assert stats.f1_of(3, 6, 4) == pytest.approx(0.6)
    assert stats.f1_of(0, 0, 0) == 0.0


def test_paired_bootstrap_reproducible_and_recorded() -> None:
    a, b = _system(1), _system(2)
    first = stats.paired_bootstrap(a, b, n_samples=300, seed=7)
    assert first == stats.paired_bootstrap(a, b, n_samples=300, seed=7)
    assert (first.n_samples, first.seed, first.confidence) == (300, 7, 0.95)
    assert first.delta == pytest.approx(first.f1_b - first.f1_a)
    assert first.ci_low <= first.delta <= first.ci_high
    other = stats.paired_bootstrap(a, b, n_samples=300, seed=8)
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)


def test_paired_bootstrap_identical_and_dominated_systems() -> None:
    a = _system(4)
    same = stats.paired_bootstrap(a, a, n_samples=200, seed=1)
    assert same.delta == 0.0 and same.p_value == 1.0
    assert same.ci_low == same.ci_high == 0.0
    better = [(g, g, g) for _, g, _ in a]  # B is perfect on every sentence
    result = stats.paired_bootstrap(a, better, n_samples=500, seed=1)
    assert result.delta > 0
    assert result.p_value < 0.01
    assert result.ci_low > 0
    reverse = stats.paired_bootstrap(better, a, n_samples=500, seed=1)
    assert reverse.delta < 0 and reverse.p_value > 0.5


def test_approximate_randomization() -> None:
    a = _system(5)
    same = stats.approximate_randomization(a, a, n_samples=200, seed=3)
    assert same.p_value == 1.0
    better = [(g, g, g) for _, g, _ in a]
    result = stats.approximate_randomization(a, better, n_samples=999, seed=3)
    assert result.p_value == pytest.approx(1 / 1000)  # no permutation reaches the observed gap
    assert result == stats.approximate_randomization(a, better, n_samples=999, seed=3)
    assert (result.n_samples, result.seed) == (999, 3)
    close = stats.approximate_randomization(_system(7), _system(8), n_samples=500, seed=0)
    assert 0.0 < close.p_value <= 1.0


def test_ar_is_symmetric_in_systems() -> None:
    a, b = _system(9), _system(10)
    ab = stats.approximate_randomization(a, b, n_samples=400, seed=2)
    ba = stats.approximate_randomization(b, a, n_samples=400, seed=2)
    assert ab.delta == pytest.approx(-ba.delta)
    assert ab.p_value == ba.p_value


def test_bootstrap_f1_interval() -> None:
    points = _system(11)
    result = stats.bootstrap_f1_interval(points, n_samples=400, seed=5, confidence=0.9)
    assert result == stats.bootstrap_f1_interval(points, n_samples=400, seed=5, confidence=0.9)
    assert result.low < result.f1 < result.high
    m, g, p = (sum(col) for col in zip(*points))
    assert result.f1 == pytest.approx(2 * m / (g + p))
    wider = stats.bootstrap_f1_interval(points, n_samples=400, seed=5, confidence=0.99)
    assert wider.low <= result.low and wider.high >= result.high
    perfect = stats.bootstrap_f1_interval([(2.0, 2.0, 2.0)] * 10, n_samples=50, seed=0)
    assert (perfect.f1, perfect.low, perfect.high) == (1.0, 1.0, 1.0)


def test_bad_inputs_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        stats.paired_bootstrap([], [], n_samples=10)
    with pytest.raises(UsageError):
        stats.paired_bootstrap([(1, 1, 1)], [(1, 1, 1), (0, 1, 1)])
    with pytest.raises(UsageError):
        stats.approximate_randomization([(1, 1, 1)], [(1, 1, 1)], n_samples=0)
    with pytest.raises(UsageError):
        stats.bootstrap_f1_interval([(1, -1, 1)])


def test_bootstrap_interval_is_numpy_percentile_of_the_samples() -> None:
    np = pytest.importorskip("numpy")
    points = _system(12, n=40)
    rng = random.Random(9)
    samples = []
    for _ in range(100):
        drawn = rng.choices(range(len(points)), k=len(points))
        m, g, p = (sum(points[i][j] for i in drawn) for j in range(3))
        samples.append(2 * m / (g + p))
    result = stats.bootstrap_f1_interval(points, n_samples=100, seed=9, confidence=0.9)
    assert (result.low, result.high) == pytest.approx(tuple(np.percentile(samples, [5, 95])), abs=1e-12)
