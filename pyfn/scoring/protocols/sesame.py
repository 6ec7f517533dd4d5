"""Open-SESAME's argument evaluation (``sesame/evaluation.py``): labeled, unlabeled and token-level.

Open-SESAME scores argument identification one example at a time: an example
is one BIOS block (one annotation set, gold frame given) and its FEs are a map
``FE name -> [token spans]`` read back from the tags (``read_conll``):

- **labeled** (``labeled_eval``): an FE name scores when the predicted map
  has it with the same *set* of spans; a point is 1 for an FE that is Core in
  the *gold* frame's file and 0.5 otherwise, false positives weighed the same
  way by the predicted name. Two traps kept as written: a frame with no file
  in the release weighs every FE 1 (``corefes == {}``), but a frame whose file
  lists no Core FE weighs every FE 0.5 (its ``corefes`` is an empty *list*,
  which is not ``{}``);
- **unlabeled** (``unlabeled_eval``): the sorted span list of each FE name,
  names ignored, counted by list membership (two gold FEs with the same spans
  both match one prediction);
- **token** (``token_level_eval``): each token's FE name (``O`` outside),
  gold against predicted: equal and not ``O`` is a true positive, a wrong name
  is a false positive *and* a false negative.

What Open-SESAME never sees is counted, not scored: gold sets whose rank-1 FEs
share a token (``overlapping_fes``: BIOS cannot hold them, pyfn's writer drops
them), FE labels of rank 2 and more (``gold_fe_rank2``), predicted sets on
targets no gold set has. The predicted frame is ignored (arguments are scored
given the gold frame, as Open-SESAME's ``argid --mode test`` does).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from pyfn.scoring.protocols.base import (
    ZERO,
    Card,
    Counts,
    Measure,
    Result,
    Source,
    TokenSet,
    by_target,
    overlapping,
    read_pair,
    signature,
)

SOURCE = Source("swabhs/open-sesame", "6d8395c7b1eaf75782fae436c556f51aa71b41ab", "sesame/evaluation.py")
MEASURES = ("labeled", "unlabeled", "token")
OUTSIDE = None

FeMap = dict[str, list[tuple[int, int]]]


def fe_map(fes: Sequence[tuple[str, int, int]]) -> FeMap:
    """``FE name -> spans``, names in order of their first token (as ``read_conll`` fills its map)."""
    out: FeMap = {}
    for name, a, b in sorted(fes, key=lambda x: (x[1], x[2])):
        out.setdefault(name, []).append((a, b))
    return out


def core_names(frame: str, inventory: Mapping[str, tuple[tuple[str, str], ...]]) -> frozenset[str] | None:
    """The Core FE names of ``frame``'s file, None when the release has no file for it."""
    if frame not in inventory:
        return None
    return frozenset(name for name, core_type in inventory[frame] if core_type == "Core")


def _weight(core: frozenset[str] | None, name: str) -> float:
    if core is None:  # corefes == {}: the frame is not in corefrmfemap
        return 1.0
    return 1.0 if name in core else 0.5


def labeled(gold: FeMap, pred: FeMap, core: frozenset[str] | None) -> Counts:
    tp = fp = fn = 0.0
    for name, spans in gold.items():
        if name in pred and set(pred[name]) == set(spans):
            tp += _weight(core, name)
        else:
            fn += _weight(core, name)
    for name, spans in pred.items():
        if name not in gold or set(gold[name]) != set(spans):
            fp += _weight(core, name)
    return Counts(tp, fp, fn)


def unlabeled(gold: FeMap, pred: FeMap) -> Counts:
    gold_spans = [sorted(s) for s in gold.values()]
    pred_spans = [sorted(s) for s in pred.values()]
    tp = float(sum(1 for s in gold_spans if s in pred_spans))
    fn = float(len(gold_spans)) - tp
    fp = float(sum(1 for s in pred_spans if s not in gold_spans))
    return Counts(tp, fp, fn)


def token_level(n: int, gold: FeMap, pred: FeMap) -> Counts:
    def tags(fes: FeMap) -> list[str | None]:
        out: list[str | None] = [OUTSIDE] * n
        for name, spans in fes.items():  # a later name overwrites an earlier one on a shared token
            for a, b in spans:
                for i in range(a, b + 1):
                    out[i] = name
        return out

    tp = fp = fn = 0.0
    for g, p in zip(tags(gold), tags(pred)):
        if g == p:
            tp += g is not OUTSIDE
        elif g is OUTSIDE:
            fp += 1
        elif p is OUTSIDE:
            fn += 1
        else:
            fp += 1
            fn += 1
    return Counts(tp, fp, fn)


def examples(gold: Path, pred: Path, skipped: Counter) -> list[tuple[int, TokenSet, TokenSet | None]]:
    """``(sentence length, gold set, predicted set or None)`` for every example Open-SESAME would see."""
    paired = read_pair(gold, pred)
    skipped.update(paired.skipped)
    out = []
    for sentence in paired.sentences:
        for g, p in by_target(sentence, skipped):
            skipped["gold_fe_rank2"] += sum(1 for rank, _ in g.aset.overt_fes if rank != 1)
            if overlapping(g.fes):
                skipped["overlapping_fes"] += 1
                continue
            if p is None:
                skipped["gold_set_without_prediction"] += 1
            elif overlapping(p.fes):
                skipped["pred_overlapping_fes_kept"] += 1
            out.append((len(sentence.tokens), g, p))
    return out


def score(gold: Path, pred: Path, *, inventory: Mapping[str, tuple[tuple[str, str], ...]], lexicon: str,
          headline: str = "labeled") -> Result:
    """Open-SESAME's three argument scores of ``pred`` against ``gold`` (SemEval XML files)."""
    skipped: Counter = Counter()
    totals = dict.fromkeys(MEASURES, ZERO)
    for n, g, p in examples(gold, pred, skipped):
        gm, pm = fe_map(g.fes), fe_map(p.fes if p is not None else ())
        totals["labeled"] += labeled(gm, pm, core_names(g.aset.frame_name, inventory))
        totals["unlabeled"] += unlabeled(gm, pm)
        totals["token"] += token_level(n, gm, pm)
    measures = tuple(Measure(name, totals[name], *totals[name].prf())
                     for name in (headline, *(m for m in MEASURES if m != headline)))
    protocol = f"sesame-{headline}"
    card = Card(
        protocol=protocol,
        source=SOURCE,
        point={"labeled": "an FE label of a gold set (given the gold frame)",
               "unlabeled": "the span list of an FE label, name ignored",
               "token": "a token inside a gold or predicted FE"}[headline],
        matched={"labeled": "FE name and the set of its token spans",
                 "unlabeled": "the sorted token spans of one FE name (list membership)",
                 "token": "the FE name of each token"}[headline],
        span_match="exact whitespace tokens",
        weights="core (gold frame's file) 1, other 0.5; every FE 1 when the frame has no file"
        if headline == "labeled" else "1",
        skips="gold sets whose rank-1 FEs overlap (BIOS), rank-2 FE labels, predicted sets off gold targets, "
              "the predicted frame",
        skipped=dict(skipped),
        signature=signature(protocol, gold, lexicon),
    )
    return Result(measures, headline, card)
