"""Significance tests and confidence intervals for scores (seeded).

Following Gorman & Bedrick (2019) and Dror et al. (2018):

- :func:`mcnemar_midp`: McNemar's test with the mid-p correction for paired
  binary decisions (frame identification), Fagerland et al. (2013);
- :func:`paired_bootstrap` (Berg-Kirkpatrick et al. 2012) and
  :func:`approximate_randomization` (Noreen 1989; Riezler & Maxwell 2005) for
  the difference of two micro-F1 scores, resampling whole sentences;
- :func:`wilson_interval` for accuracies, :func:`bootstrap_f1_interval` for F1;
- :func:`bonferroni` and :func:`holm` adjusted p-values for several comparisons.

The binomial (McNemar), Wilson and multiple-comparison numbers come from
``scipy.stats`` and ``statsmodels``; the resampling tests over F1 points, which
no such library provides for summed per-sentence points, are written here.

F1 inputs are per-sentence *points* ``(matched, gold, predicted)`` (floats, as
the SemEval scorer gives partial credit). Micro-F1 of a sample is computed from
the summed points: ``F1 = 2 * matched / (gold + predicted)`` (equal to the
harmonic mean of ``P = matched / predicted`` and ``R = matched / gold``), and
``0.0`` when ``gold + predicted == 0``. Differences are always ``F1(B) - F1(A)``:
A is the baseline, a positive ``delta`` means B scores higher.

Randomness comes only from ``random.Random(seed)``; every result records its
``n_samples`` and ``seed``, so the same call gives the same numbers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from pyfn.errors import UsageError

Point = tuple[float, float, float]
"""Per-sentence points ``(matched, gold, predicted)``."""

TIE_TOLERANCE = 1e-12
"""Absolute tolerance on F1 differences when counting ties (float summation noise)."""

DEFAULT_BOOTSTRAP_SAMPLES = 1000
DEFAULT_AR_SAMPLES = 10000


@dataclass(frozen=True)
class BootstrapTest:
    """Paired bootstrap of ``F1(B) - F1(A)``: observed difference, percentile interval, p-value."""

    f1_a: float
    f1_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    n_samples: int
    seed: int
    confidence: float


@dataclass(frozen=True)
class RandomizationTest:
    """Approximate randomization test of ``F1(B) - F1(A)`` (two-sided)."""

    f1_a: float
    f1_b: float
    delta: float
    p_value: float
    n_samples: int
    seed: int


@dataclass(frozen=True)
class F1Interval:
    """Micro-F1 of a file with a bootstrap percentile interval over sentences."""

    f1: float
    low: float
    high: float
    n_samples: int
    seed: int
    confidence: float


# ------------------------------------------------------------------ helpers


def _scipy_stats() -> ModuleType:
    """``scipy.stats``, imported on first use (about a second): ``pyfn --help`` stays fast."""
    from scipy import stats  # noqa: PLC0415

    return stats


def _statsmodels(module: str) -> ModuleType:
    """``statsmodels.stats.<module>``, imported on first use."""
    import importlib  # noqa: PLC0415

    return importlib.import_module(f"statsmodels.stats.{module}")


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise UsageError(f"confidence must be strictly between 0 and 1, got {confidence!r}")


def _check_samples(n_samples: int) -> None:
    if n_samples < 1:
        raise UsageError(f"the number of samples must be at least 1, got {n_samples!r}")


def _check_points(points: Sequence[Point], name: str) -> None:
    if not points:
        raise UsageError(f"{name}: no sentences to score")
    for i, point in enumerate(points):
        if len(point) != 3 or any(v < 0 for v in point):
            raise UsageError(f"{name}: sentence {i}: points must be (matched, gold, predicted) >= 0, got {point!r}")


def _check_pair(points_a: Sequence[Point], points_b: Sequence[Point]) -> None:
    _check_points(points_a, "system A")
    _check_points(points_b, "system B")
    if len(points_a) != len(points_b):
        raise UsageError(f"paired test: system A has {len(points_a)} sentences, system B {len(points_b)}")


def f1_of(matched: float, gold: float, predicted: float) -> float:
    """Micro-F1 from summed points: ``2 * matched / (gold + predicted)``, 0.0 without points."""
    total = gold + predicted
    return 2.0 * matched / total if total > 0 else 0.0


def _columns(points: Sequence[Point]) -> tuple[list[float], list[float], list[float]]:
    return [p[0] for p in points], [p[1] for p in points], [p[2] for p in points]


def _quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values``, linear interpolation (numpy's default)."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def _interval(samples: list[float], confidence: float) -> tuple[float, float]:
    samples.sort()
    tail = (1.0 - confidence) / 2.0
    return _quantile(samples, tail), _quantile(samples, 1.0 - tail)


# ------------------------------------------------------------------ paired decisions


def mcnemar_midp(b: int, c: int) -> float:
    """McNemar mid-p value for ``b`` and ``c`` discordant pairs (Fagerland et al. 2013).

    With ``X ~ Binomial(b + c, 1/2)`` and ``k = min(b, c)``: the exact two-sided
    binomial p-value ``2 * P(X <= k)`` (``scipy.stats.binomtest``, statsmodels'
    exact McNemar test) minus ``P(X = k)``, capped at 1, computed as
    ``P(X <= k) + P(X <= k - 1)`` with ``scipy.stats.binom.cdf`` (no cancellation:
    within a few 1e-14 of the exact fraction, and exact on small dyadic values).
    ``b == c`` (including ``b = c = 0``, no discordant pair) is defined as
    ``p = 1.0``: no evidence of a difference.
    """
    if b < 0 or c < 0:
        raise UsageError(f"McNemar: discordant counts must be >= 0, got b={b}, c={c}")
    if b == c:
        return 1.0
    sps = _scipy_stats()
    n, k = b + c, min(b, c)
    return min(1.0, float(sps.binom.cdf(k, n, 0.5) + sps.binom.cdf(k - 1, n, 0.5)))


@dataclass(frozen=True)
class McNemarTest:
    """Paired decisions of two systems: ``b`` = A right and B wrong, ``c`` = A wrong and B right."""

    b: int
    c: int
    p_value: float


def mcnemar(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> McNemarTest:
    """McNemar mid-p test on two aligned correct/incorrect vectors (same gold items)."""
    if len(correct_a) != len(correct_b):
        raise UsageError(f"McNemar: system A has {len(correct_a)} decisions, system B {len(correct_b)}")
    b = sum(1 for x, y in zip(correct_a, correct_b) if x and not y)
    c = sum(1 for x, y in zip(correct_a, correct_b) if y and not x)
    return McNemarTest(b, c, mcnemar_midp(b, c))


# ------------------------------------------------------------------ F1 differences


def paired_bootstrap(
    points_a: Sequence[Point],
    points_b: Sequence[Point],
    *,
    n_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> BootstrapTest:
    """Paired bootstrap over sentences for ``delta = F1(B) - F1(A)``.

    Each sample draws ``len(points)`` sentence indices with replacement (the
    same indices for A and B) and recomputes both micro-F1 scores from the
    summed points. The interval is the percentile interval of the sampled
    deltas. The p-value is Berg-Kirkpatrick et al. (2012)'s one-sided test of
    "B is better than A": the fraction of samples whose delta is at least twice
    the observed one (``delta* >= 2 * delta``, within :data:`TIE_TOLERANCE`);
    the samples are centred on ``delta`` rather than on 0, hence the factor 2.
    ``>=`` makes identical systems (all deltas 0) get ``p = 1``; an observed
    ``delta <= 0`` gives ``p >= ~0.5``.
    """
    _check_pair(points_a, points_b)
    _check_samples(n_samples)
    _check_confidence(confidence)
    ma, ga, pa = _columns(points_a)
    mb, gb, pb = _columns(points_b)
    f1_a = f1_of(sum(ma), sum(ga), sum(pa))
    f1_b = f1_of(sum(mb), sum(gb), sum(pb))
    delta = f1_b - f1_a
    rng = random.Random(seed)
    indices = range(len(points_a))
    deltas: list[float] = []
    exceed = 0
    for _ in range(n_samples):
        idx = rng.choices(indices, k=len(indices))

        def total(col: list[float], idx: list[int] = idx) -> float:
            return sum(map(col.__getitem__, idx))

        d = f1_of(total(mb), total(gb), total(pb)) - f1_of(total(ma), total(ga), total(pa))
        deltas.append(d)
        if d >= 2.0 * delta - TIE_TOLERANCE:
            exceed += 1
    low, high = _interval(deltas, confidence)
    return BootstrapTest(f1_a, f1_b, delta, low, high, exceed / n_samples, n_samples, seed, confidence)


def approximate_randomization(
    points_a: Sequence[Point],
    points_b: Sequence[Point],
    *,
    n_samples: int = DEFAULT_AR_SAMPLES,
    seed: int = 0,
) -> RandomizationTest:
    """Two-sided approximate randomization test of ``delta = F1(B) - F1(A)`` over sentences.

    Each trial swaps the points of A and B of every sentence with probability
    1/2 and counts trials with ``|delta'| >= |delta|`` (within
    :data:`TIE_TOLERANCE`); ``p = (count + 1) / (n_samples + 1)`` (Noreen 1989;
    Riezler & Maxwell 2005). Sentences where A and B have identical points are
    unchanged by a swap and draw no random bit.
    """
    _check_pair(points_a, points_b)
    _check_samples(n_samples)
    sums_a = [sum(col) for col in _columns(points_a)]
    sums_b = [sum(col) for col in _columns(points_b)]
    f1_a, f1_b = f1_of(*sums_a), f1_of(*sums_b)
    delta = f1_b - f1_a
    diffs = [tuple(y - x for x, y in zip(a, b)) for a, b in zip(points_a, points_b) if tuple(a) != tuple(b)]
    rng = random.Random(seed)
    count = 0
    for _ in range(n_samples):
        bits = rng.getrandbits(len(diffs)) if diffs else 0
        shift = [0.0, 0.0, 0.0]
        for i, d in enumerate(diffs):
            if bits >> i & 1:
                shift[0] += d[0]
                shift[1] += d[1]
                shift[2] += d[2]
        # swapping sentence i moves its B-minus-A difference from B to A
        new_a = [s + t for s, t in zip(sums_a, shift)]
        new_b = [s - t for s, t in zip(sums_b, shift)]
        if abs(f1_of(*new_b) - f1_of(*new_a)) >= abs(delta) - TIE_TOLERANCE:
            count += 1
    return RandomizationTest(f1_a, f1_b, delta, (count + 1) / (n_samples + 1), n_samples, seed)


# ------------------------------------------------------------------ intervals


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (statsmodels ``proportion_confint(method="wilson")``, clipped
    to [0, 1]); ``n == 0`` gives ``(0.0, 1.0)`` (no information)."""
    _check_confidence(confidence)
    if n < 0 or not 0 <= successes <= n:
        raise UsageError(f"Wilson interval: need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    low, high = _statsmodels("proportion").proportion_confint(successes, n, alpha=1.0 - confidence, method="wilson")
    return max(0.0, float(low)), min(1.0, float(high))


def bootstrap_f1_interval(
    points: Sequence[Point],
    *,
    n_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> F1Interval:
    """Micro-F1 with a percentile bootstrap interval, resampling sentences with replacement."""
    _check_points(points, "system")
    _check_samples(n_samples)
    _check_confidence(confidence)
    m, g, p = _columns(points)
    rng = random.Random(seed)
    indices = range(len(points))
    samples: list[float] = []
    for _ in range(n_samples):
        idx = rng.choices(indices, k=len(indices))
        samples.append(f1_of(*(sum(map(col.__getitem__, idx)) for col in (m, g, p))))
    low, high = _interval(samples, confidence)
    return F1Interval(f1_of(sum(m), sum(g), sum(p)), low, high, n_samples, seed, confidence)


# ------------------------------------------------------------------ multiple comparisons


def _check_pvalues(pvalues: Sequence[float]) -> None:
    for p in pvalues:
        if not 0.0 <= p <= 1.0:
            raise UsageError(f"p-values must lie in [0, 1], got {p!r}")


def _adjusted(pvalues: Sequence[float], method: str) -> list[float]:
    _check_pvalues(pvalues)
    if not pvalues:
        return []
    return [float(p) for p in _statsmodels("multitest").multipletests(list(pvalues), method=method)[1]]


def bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Bonferroni-adjusted p-values ``min(1, m * p)`` (statsmodels ``multipletests``), in input order."""
    return _adjusted(pvalues, "bonferroni")


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm (step-down) adjusted p-values (statsmodels ``multipletests``): capped at 1 and monotone in the
    p-value order; input order."""
    return _adjusted(pvalues, "holm")
