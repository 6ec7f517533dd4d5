"""span-finder's ``SRLMetric`` (``sftp/metrics/srl_metrics.py``): four unweighted tuple scores per sentence.

span-finder reads a sentence as a tree: a virtual root, one *event* per
annotation set (its target's first to last token, labelled with the frame),
one *argument* per FE label under it. Before scoring, both trees go through
``Span.remove_overlapping``: an event whose tokens overlap an earlier event's
is dropped with its arguments, an argument overlapping an earlier argument of
its event is dropped (list order: "the first one" wins). Then, summed over
sentences:

- **tri-i** (``without_label_event``): events with the same boundary;
- **tri-c** (``with_label_event``): same boundary and frame;
- **arg-i** (``tuple_eval``): ``(frame, argument boundary)`` tuples — the
  event's *frame* is part of the tuple, its *boundary* is not;
- **arg-c**: ``(frame, argument boundary, FE)`` tuples.

Tuples match one to one (maximum bipartite matching on equality); every point
is 1. P = tp/(tp+fp) and R = tp/(tp+fn) are 0 when tp is 0, F = 2/(1/P+1/R)
(``BaseF``; span-finder prints them times 100, pyfn as fractions).

The tree is pyfn's projection of the SemEval XML (span-finder's FrameNet
converter is not published): sets and FE labels in file order, rank-1 FE
labels, each label one argument (a discontinuous FE is two arguments, a
discontinuous target one event from its first to its last token).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pyfn.scoring.protocols.base import (
    ZERO,
    Card,
    Counts,
    Measure,
    Result,
    SentencePair,
    Source,
    read_pair,
    signature,
)

SOURCE = Source("hiaoxui/span-finder", "ad9ed403c69a985254691ad6b13b5dbc7121fcf9", "sftp/metrics/srl_metrics.py")
MEASURES = ("arg-c", "arg-i", "tri-c", "tri-i")

Arg = tuple[int, int, str]
Event = tuple[int, int, str, tuple[Arg, ...]]


def tree(sets: Sequence, skipped: Counter, side: str) -> list[Event]:
    """Events of a sentence's sets (as :class:`~pyfn.scoring.protocols.base.TokenSet`), file order."""
    events = []
    for s in sets:
        skipped[f"{side}_fe_rank2"] += sum(1 for rank, _ in s.aset.overt_fes if rank != 1)
        events.append((s.target[0], s.target[-1], s.aset.frame_name, tuple((a, b, name) for name, a, b in s.fes)))
    return events


def remove_overlapping(spans: Sequence[tuple], skipped: Counter, what: str) -> list[tuple]:
    """The spans overlapping no earlier kept span (``Span.remove_overlapping``, one level)."""
    taken: set[int] = set()
    kept = []
    for span in spans:
        tokens = set(range(span[0], span[1] + 1))
        if tokens & taken:
            skipped[what] += 1
            continue
        taken |= tokens
        kept.append(span)
    return kept


def clean(events: list[Event], skipped: Counter, side: str) -> list[Event]:
    kept = remove_overlapping(events, skipped, f"{side}_event_overlaps_earlier")
    return [(a, b, frame, tuple(remove_overlapping(args, skipped, f"{side}_arg_overlaps_earlier")))
            for a, b, frame, args in kept]


def _matched(pred: list, gold: list) -> int:
    """Maximum one-to-one matching of equal items (equality classes: the smaller count of each)."""
    gold_counts = Counter(gold)
    return sum(min(n, gold_counts[item]) for item, n in Counter(pred).items())


def sentence(pred: list[Event], gold: list[Event]) -> dict[str, Counts]:
    n_pred, n_gold = sum(len(e[3]) for e in pred), sum(len(e[3]) for e in gold)
    labeled_p = [(f, a, b, fe) for _, _, f, args in pred for a, b, fe in args]
    labeled_g = [(f, a, b, fe) for _, _, f, args in gold for a, b, fe in args]
    if not labeled_p or not labeled_g:
        arg_c = arg_i = 0
    else:
        arg_c = _matched(labeled_p, labeled_g)
        arg_i = _matched([x[:3] for x in labeled_p], [x[:3] for x in labeled_g])
    tri_c = _matched([e[:3] for e in pred], [e[:3] for e in gold])
    tri_i = _matched([e[:2] for e in pred], [e[:2] for e in gold])
    return {
        "arg-c": Counts(arg_c, n_pred - arg_c, n_gold - arg_c),
        "arg-i": Counts(arg_i, n_pred - arg_i, n_gold - arg_i),
        "tri-c": Counts(tri_c, len(pred) - tri_c, len(gold) - tri_c),
        "tri-i": Counts(tri_i, len(pred) - tri_i, len(gold) - tri_i),
    }


def base_f(c: Counts) -> tuple[float, float, float]:
    """``BaseF.get_metric`` as fractions."""
    if c.tp <= 0:
        return 0.0, 0.0, 0.0
    p, r = c.tp / (c.tp + c.fp), c.tp / (c.tp + c.fn)
    return p, r, 2 / (1 / p + 1 / r)


def trees(pair_: SentencePair, skipped: Counter) -> tuple[list[Event], list[Event]]:
    """The cleaned gold and predicted trees of one sentence pair."""
    return clean(tree(pair_.gold, skipped, "gold"), skipped, "gold"), clean(tree(pair_.pred, skipped, "pred"),
                                                                            skipped, "pred")


def score(gold: Path, pred: Path, *, headline: str = "arg-c") -> Result:
    """span-finder's four scores of ``pred`` against ``gold`` (SemEval XML files)."""
    skipped: Counter = Counter()
    paired = read_pair(gold, pred)
    skipped.update(paired.skipped)
    totals = dict.fromkeys(MEASURES, ZERO)
    for pair_ in [*paired.sentences, *paired.outside]:  # outside gold: every event and argument a false positive
        g, p = trees(pair_, skipped)
        for name, counts in sentence(p, g).items():
            totals[name] += counts
    measures = tuple(Measure(name, totals[name], *base_f(totals[name]))
                     for name in (headline, *(m for m in MEASURES if m != headline)))
    card = Card(
        protocol="spanfinder",
        source=SOURCE,
        point="an event (tri-i, tri-c) or an argument tuple (arg-i, arg-c) of a sentence",
        matched="tri-i boundary; tri-c boundary+frame; arg-i frame+argument boundary; arg-c frame+boundary+FE "
                "(the event boundary is not in argument tuples)",
        span_match="exact whitespace tokens; a target from its first to its last token",
        weights="1 (no coreness)",
        skips="events overlapping an earlier event (with their arguments), arguments overlapping an earlier one, "
              "rank-2 FE labels (predicted sentences outside gold are scored against no gold: false positives)",
        skipped=dict(skipped),
        signature=signature("spanfinder", gold, None),
    )
    return Result(measures, headline, card)
