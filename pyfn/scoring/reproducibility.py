"""How well a reproduced run matches the original: the measures of Breuer et al. (2020).

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff, "How to Measure the
Reproducibility of System-oriented IR Experiments", SIGIR 2020
(doi:10.1145/3397271.3401036), with sentences or documents in the role of IR
topics and the systems in the role of the ranked items. Exact formulas follow
the authors' code: the paper's MATLAB scripts (github irgroup/
sigir2020-measure-reproducibility, ``evaluation/matlab``) and ``repro_eval``
(github irgroup/repro_eval, ``repro_eval/measure``).

Input: :data:`Runs`, ``system -> topic -> score`` (higher is better), one for
the original and one for the reproduced experiment. Terminology is the
paper's: *replicability* = same topics, so paired measures (RMSE, paired
t-test, per-topic rankings) apply; *reproducibility* = other topics, only
unpaired measures (Student t-test, ER, Delta RI) apply. (repro_eval, after
ACM's 2020 renaming, swaps the two words; the tests are the same.)

KTU: the paper compares the document lists of one topic in the original and
the reproduced run with Kendall's tau computed on their union; here
the items are the systems, ranked per topic by their topic score (and overall
by their mean score). Both reference implementations build the union by
giving each item its index in the alphabetically sorted union and correlate
the two index sequences position by position (:func:`ktu_reference`), which
makes the value depend on item names (a fully reversed order can score +1/3).
:func:`ktu` instead takes tau-b over the union items directly, items missing
from one side tied at its bottom: identical orders give 1, reversed -1.

Everything here is pure: no I/O, deterministic, ``nan`` for an undefined
value of a single measure; :func:`compare_runs` turns ``nan`` into ``None``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from statistics import fmean
from types import ModuleType

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.scoring.stats import holm

Runs = dict[str, dict[str, float]]
"""``system -> topic -> score`` of one experiment."""

Scores = Mapping[str, float]
"""``item -> score``: the topics of one system, or the systems of one topic."""

DEFAULT_RBO_P = 0.8
"""RBO persistence: repro_eval's default (``PHI = 0.8``) while it computed extrapolated RBO (2020-2025)."""

TOPIC_UNITS = ("sentence", "document")


# ------------------------------------------------------------------ rankings


def _sps() -> ModuleType:
    """``scipy.stats``, imported on first use (about a second): ``pyfn --help`` stays fast."""
    from scipy import stats  # noqa: PLC0415

    return stats


def _tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    with warnings.catch_warnings():  # constant input: scipy warns and returns nan
        warnings.simplefilter("ignore")
        return float(_sps().kendalltau(x, y, variant="b").statistic)


def kendall_tau_b(ranking_a: Scores, ranking_b: Scores) -> float:
    """Kendall's tau-b between two rankings given as ``item -> score``, over the items both rank.

    ``tau_b = (P - Q) / sqrt((P + Q + U)(P + Q + V))`` (concordant P, discordant
    Q, ties U only in a and V only in b): the form used by Breuer et al. (2020),
    computed by ``scipy.stats.kendalltau(variant="b")``. ``nan`` when
    either side gives every item the same score.
    """
    shared = sorted(set(ranking_a) & set(ranking_b))
    if len(shared) < 2:
        raise PyfnError(f"Kendall's tau needs at least 2 systems in both rankings, got {len(shared)} in common")
    return _tau_b([ranking_a[k] for k in shared], [ranking_b[k] for k in shared])


def ktu(ranking_a: Scores, ranking_b: Scores) -> float:
    """Kendall's tau Union: tau-b over the union of the items of both rankings.

    An item that one ranking lacks is placed below all of its items (score
    ``-inf``; several missing items tie there). Ties between scores stay ties
    (the U and V terms of tau-b). With the same items on both sides this is
    :func:`kendall_tau_b`. See the module notes for how this differs from the
    reference implementations.
    """
    union = sorted(set(ranking_a) | set(ranking_b))
    if len(union) < 2:
        raise PyfnError(f"Kendall's tau Union needs at least 2 systems, got {len(union)}")
    return _tau_b([ranking_a.get(k, -math.inf) for k in union], [ranking_b.get(k, -math.inf) for k in union])


def ktu_reference(order_a: Sequence[str], order_b: Sequence[str]) -> float:
    """KTU exactly as repro_eval ``_KTU`` and the paper's ``tau_runs.m`` compute it, for cross-checks.

    Each item is replaced by its index in the *alphabetically sorted* union and
    tau is taken between the two index sequences position by position (so both
    orders must have the same length). Its value depends on the item names:
    ``["b", "a", "c"]`` against its reverse ``["c", "a", "b"]`` gives +1/3, not
    -1, which is why :func:`compare_runs` uses :func:`ktu` instead.
    """
    if len(order_a) != len(order_b):
        raise UsageError(f"reference KTU needs orders of equal length, got {len(order_a)} and {len(order_b)}")
    index = {item: i for i, item in enumerate(sorted(set(order_a) | set(order_b)))}
    return _tau_b([index[i] for i in order_a], [index[i] for i in order_b])


def ranked(scores: Scores) -> list[str]:
    """Items by decreasing score, ties by decreasing name (trec_eval; repro_eval ``break_ties``)."""
    return [item for item, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def _check_p(p: float) -> None:
    if not 0.0 < p < 1.0:
        raise UsageError(f"RBO persistence p must be strictly between 0 and 1, got {p!r}")


def rbo_ext(list_a: Sequence[str], list_b: Sequence[str], p: float = DEFAULT_RBO_P) -> float:
    """Extrapolated rank-biased overlap, Webber, Moffat & Zobel (2010, TOIS 28(4)) eq. 32.

    With S the shorter list (length s), L the longer (length l) and
    ``X_d = |S[:d] & L[:d]|`` (``S[:d] = S`` for ``d > s``)::

        RBO_ext = (1-p)/p * ( sum_{d=1..l} X_d/d * p^d
                              + sum_{d=s+1..l} X_s * (d-s) / (s*d) * p^d )
                  + ( (X_l - X_s)/l + X_s/s ) * p^l

    as written in the paper, also for lists of unequal length (the ``rbo``
    module repro_eval shipped in 2020 replaced ``X_d/d`` by ``2 X_d / (|S[:d]|
    + |L[:d]|)``, which differs once ``d > s``). Lists must not repeat an item;
    tied scores are broken before, by :func:`ranked`. Identical lists give 1,
    disjoint lists 0; the result is clamped to [0, 1] against rounding.
    """
    _check_p(p)
    for name, items in (("first", list_a), ("second", list_b)):
        if not items:
            raise PyfnError(f"RBO: the {name} ranking is empty")
        if len(set(items)) != len(items):
            raise UsageError(f"RBO: the {name} ranking repeats an item")
    short, long_ = sorted((list(list_a), list(list_b)), key=len)
    s, l = len(short), len(long_)
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap, x = 0, []
    for d in range(l):
        if d < s:
            overlap += short[d] in seen_long
            seen_short.add(short[d])
        overlap += long_[d] in seen_short
        seen_long.add(long_[d])
        x.append(overlap)  # x[d - 1] = X_d
    x_s, x_l = x[s - 1], x[l - 1]
    total = sum(x[d - 1] / d * p**d for d in range(1, l + 1))
    total += sum(x_s * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    value = (1 - p) / p * total + ((x_l - x_s) / l + x_s / s) * p**l
    return min(1.0, max(0.0, value))


# ------------------------------------------------------------------ per-topic effectiveness


def _shared(original: Scores, reproduced: Scores, what: str) -> list[str]:
    topics = sorted(set(original) & set(reproduced))
    if not topics:
        raise PyfnError(
            f"{what}: the original and reproduced scores share no topic (paired measures need the same topics)"
        )
    return topics


def rmse(original: Scores, reproduced: Scores) -> float:
    """Root mean square error over the shared topics: ``sqrt(mean_j (x_j - x'_j)^2)``.

    Breuer et al. (2020) (effectiveness); repro_eval ``_RMSE``;
    ``rmse_replicability.m``.
    """
    topics = _shared(original, reproduced, "RMSE")
    return math.sqrt(fmean((original[t] - reproduced[t]) ** 2 for t in topics))


def paired_ttest(original: Scores, reproduced: Scores) -> float:
    """Two-sided paired t-test p-value on the shared topics (replicability; ``scipy.stats.ttest_rel``).

    The paper's ``paired_ttest_replicability.m`` (MATLAB ``ttest``) and repro_eval ``ttest(rpd=True)``.

    As repro_eval ``ttest``: identical scores (every difference 0, where the
    statistic is 0/0) give ``p = 1.0``. Fewer than 2 shared topics: ``nan``.
    """
    topics = _shared(original, reproduced, "paired t-test")
    a, b = [original[t] for t in topics], [reproduced[t] for t in topics]
    if len(topics) < 2:
        return math.nan
    if a == b:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(_sps().ttest_rel(a, b).pvalue)


def unpaired_ttest(original: Scores, reproduced: Scores, *, welch: bool = False) -> float:
    """Two-sided unpaired t-test p-value on all topics of each side (reproducibility).

    Student's test with pooled variance by default, as the paper
    (``unpaired_ttest_reproducibility.m``: MATLAB ``ttest2``, equal variances)
    and repro_eval (``ttest_ind`` with its default ``equal_var=True``);
    ``welch=True`` for Welch's test. Two samples with the same values (0/0)
    give ``p = 1.0``; other undefined cases (too few topics) ``nan``.
    """
    if not original or not reproduced:
        raise PyfnError("unpaired t-test: a side has no topic")
    a, b = sorted(original.values()), sorted(reproduced.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(_sps().ttest_ind(a, b, equal_var=not welch).pvalue)
    return 1.0 if math.isnan(p) and a == b else p


# ------------------------------------------------------------------ overall effects


def _common(advanced: Scores, baseline: Scores, what: str) -> list[str]:
    topics = sorted(set(advanced) & set(baseline))
    if not topics:
        raise PyfnError(f"{what}: the advanced and baseline systems share no topic")
    return topics


def mean_improvement(advanced: Scores, baseline: Scores) -> float:
    """Mean per-topic improvement ``mean_j (adv_j - base_j)`` over the topics both scored.

    repro_eval ``mean_improvement``.
    """
    return fmean(advanced[t] - baseline[t] for t in _common(advanced, baseline, "mean improvement"))


def relative_improvement(advanced: Scores, baseline: Scores) -> float:
    """``RI = (mean(adv) - mean(base)) / mean(base)`` over the topics both scored (repro_eval ``rel_improve``)."""
    topics = _common(advanced, baseline, "relative improvement")
    base = fmean(baseline[t] for t in topics)
    if base == 0:
        raise PyfnError(
            "relative improvement: the baseline's mean score is 0, so RI = (adv - base) / base is undefined"
        )
    return (fmean(advanced[t] for t in topics) - base) / base


def effect_ratio(adv_original: Scores, base_original: Scores, adv_reproduced: Scores, base_reproduced: Scores) -> float:
    """Effect Ratio ``ER = mean_j (adv'_j - base'_j) / mean_j (adv_j - base_j)``, Breuer et al. (2020).

    Reproduced mean per-topic improvement over the original one (repro_eval
    ``ER``; ``effect_ratio_replicability.m`` / ``_reproducibility.m``): 1 means
    the same effect size, below 1 a smaller effect, negative the opposite effect.
    """
    original = mean_improvement(adv_original, base_original)
    if original == 0:
        raise PyfnError("effect ratio: the original mean improvement is 0, so ER is undefined")
    return mean_improvement(adv_reproduced, base_reproduced) / original


def delta_ri(adv_original: Scores, base_original: Scores, adv_reproduced: Scores, base_reproduced: Scores) -> float:
    """Delta Relative Improvement ``RI - RI'`` (original minus reproduced); ideal 0.

    Breuer et al. (2020); repro_eval ``DRI``.
    """
    return relative_improvement(adv_original, base_original) - relative_improvement(adv_reproduced, base_reproduced)


# ------------------------------------------------------------------ everything at once


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _check_runs(runs: Runs, name: str) -> None:
    if not runs:
        raise PyfnError(f"{name} run: no system")
    for system, topics in runs.items():
        if not topics:
            raise PyfnError(f"{name} run: system {system!r} has no score")
        for topic, score in topics.items():
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise PyfnError(
                    f"{name} run: system {system!r}, topic {topic!r}: score {score!r} is not a finite number"
                )


def _match_baselines(
    original: Runs, reproduced: Runs, base_o: str | None, base_r: str | None
) -> tuple[Runs, str | None, str | None]:
    """Check the baseline names; rename the reproduced baseline to the original's name so they pair up."""
    if base_o is None and base_r is None:
        return reproduced, None, None
    base_o, base_r = base_o or base_r, base_r or base_o
    if base_o not in original:
        raise UsageError(f"baseline {base_o!r} is not a system of the original run ({', '.join(sorted(original))})")
    if base_r not in reproduced:
        raise UsageError(f"baseline {base_r!r} is not a system of the reproduced run ({', '.join(sorted(reproduced))})")
    if base_r != base_o:
        if base_o in reproduced:
            raise UsageError(
                f"the reproduced run has a system {base_o!r} besides its baseline {base_r!r}: cannot pair them"
            )
        reproduced = {(base_o if s == base_r else s): v for s, v in reproduced.items()}
    return reproduced, base_o, base_r


def _by_topic(runs: Runs) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for system, topics in runs.items():
        for topic, score in topics.items():
            out.setdefault(topic, {})[system] = score
    return out


def _rankings(original: Runs, reproduced: Runs, shared_topics: list[str], p: float) -> dict:
    """Overall rankings on mean scores, then per-topic KTU and RBO over the shared topics."""
    mean_o = {s: fmean(v.values()) for s, v in original.items()}
    mean_r = {s: fmean(v.values()) for s, v in reproduced.items()}
    matched = set(original) & set(reproduced)
    out = {
        "kendall_tau_b": _num(kendall_tau_b(mean_o, mean_r)) if len(matched) >= 2 else None,
        "ktu": _num(ktu(mean_o, mean_r)),
        "rbo": rbo_ext(ranked(mean_o), ranked(mean_r), p),
    }
    topic_o, topic_r = _by_topic(original), _by_topic(reproduced)
    taus, rbos = [], []
    for topic in shared_topics:
        a, b = topic_o[topic], topic_r[topic]
        rbos.append(rbo_ext(ranked(a), ranked(b), p))
        if len(set(a) | set(b)) >= 2:
            taus.append(ktu(a, b))
    defined = [t for t in taus if not math.isnan(t)]
    out |= {
        "ktu_per_topic": _num(fmean(defined)) if defined else None,
        "rbo_per_topic": fmean(rbos) if rbos else None,
        "n_topics": len(shared_topics),
        "n_topics_ktu": len(defined),
        "n_topics_ktu_undefined": len(shared_topics) - len(defined),
    }
    return out


def _per_system(original: Runs, reproduced: Runs, matched: list[str], welch: bool) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for s in matched:
        o, r = original[s], reproduced[s]
        shared = set(o) & set(r)
        rows[s] = {
            "mean_original": fmean(o.values()),
            "mean_reproduced": fmean(r.values()),
            "n_original": len(o),
            "n_reproduced": len(r),
            "n_shared": len(shared),
            "rmse": rmse(o, r) if shared else None,
            "p_paired": _num(paired_ttest(o, r)) if shared else None,
            "p_unpaired": _num(unpaired_ttest(o, r, welch=welch)),
        }
    for key in ("p_paired", "p_unpaired"):
        defined = [s for s in matched if rows[s][key] is not None]
        for s, adjusted in zip(defined, holm([rows[s][key] for s in defined])):
            rows[s][f"{key}_holm"] = adjusted
        for s in set(matched) - set(defined):
            rows[s][f"{key}_holm"] = None
    return rows


def _effects(original: Runs, reproduced: Runs, matched: list[str], base: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    bo, br = original[base], reproduced[base]
    for s in matched:
        if s == base:
            continue
        ao, ar = original[s], reproduced[s]
        ri_o, ri_r = relative_improvement(ao, bo), relative_improvement(ar, br)
        row: dict[str, float | str | None] = {
            "mean_improvement_original": mean_improvement(ao, bo),
            "mean_improvement_reproduced": mean_improvement(ar, br),
            "ri_original": ri_o,
            "ri_reproduced": ri_r,
            "delta_ri": ri_o - ri_r,
        }
        try:
            row["er"] = effect_ratio(ao, bo, ar, br)
        except PyfnError as exc:
            row["er"], row["note"] = None, str(exc)
        out[s] = row
    return out


def compare_runs(
    original: Runs,
    reproduced: Runs,
    baseline_original: str | None = None,
    baseline_reproduced: str | None = None,
    rbo_p: float = DEFAULT_RBO_P,
    *,
    welch: bool = False,
    topic_unit: str = "sentence",
) -> dict:
    """Every measure between two runs, as a JSON-ready dict (``None`` where undefined).

    Systems pair up by name; the reproduced baseline pairs with the original
    one even under another name. Per paired system: mean score over all its
    topics on each side, RMSE and paired t-test on the topics it has on both
    sides, unpaired t-test on all its topics, Holm-adjusted p-values
    over the systems (an addition: the paper reports raw p-values). Rankings
    (every system of each run, at least 2 per run): tau-b on mean scores of the
    paired systems, KTU and RBO on mean scores, and KTU and RBO per shared topic
    (systems by their topic score) averaged over topics; KTU is left out of the
    average on topics where a side ties every system. With baselines: ER and
    Delta RI of every other paired system against the baseline. Measures that
    need shared topics or two systems are ``None``, with the reason in ``skipped``.
    """
    _check_p(rbo_p)
    if topic_unit not in TOPIC_UNITS:
        raise UsageError(f"topic unit must be one of {', '.join(TOPIC_UNITS)}, got {topic_unit!r}")
    _check_runs(original, "original")
    _check_runs(reproduced, "reproduced")
    reproduced, base_o, base_r = _match_baselines(original, reproduced, baseline_original, baseline_reproduced)
    matched = sorted(set(original) & set(reproduced))
    if not matched:
        raise PyfnError("the original and reproduced runs have no system name in common")
    topics_o, topics_r = set(_by_topic(original)), set(_by_topic(reproduced))
    shared = sorted(topics_o & topics_r)
    skipped: dict[str, str] = {}
    if not shared:
        skipped["paired"] = "no shared topic: RMSE, paired t-tests and per-topic rankings need the same topics"
    rankings = None
    if min(len(original), len(reproduced)) < 2:
        skipped["rankings"] = "rankings need at least 2 systems in each run"
    else:
        rankings = _rankings(original, reproduced, shared, rbo_p)
    test = "welch" if welch else "student"
    signature = f"repro|topics:{topic_unit}|n_sys:{len(matched)}|rbo:ext-p{rbo_p:g}|ttest:paired+{test}|v:{__version__}"
    return {
        "signature": signature,
        "topic_unit": topic_unit,
        "rbo_p": rbo_p,
        "unpaired_test": test,
        "systems": {
            "matched": matched,
            "original_only": sorted(set(original) - set(reproduced)),
            "reproduced_only": sorted(set(reproduced) - set(original)),
        },
        "topics": {
            "original": len(topics_o),
            "reproduced": len(topics_r),
            "shared": len(shared),
            "shared_ids": shared,
            "original_only": sorted(topics_o - topics_r),
            "reproduced_only": sorted(topics_r - topics_o),
        },
        "per_system": _per_system(original, reproduced, matched, welch),
        "rankings": rankings,
        "baseline": {"original": base_o, "reproduced": base_r} if base_o else None,
        "effects": _effects(original, reproduced, matched, base_o) if base_o else None,
        "skipped": skipped,
    }
