"""Error analysis of one prediction file: where a system gains and loses, not only how much.

:func:`breakdown` takes the gold and predicted documents (read and paired as
``pyfn score`` reads and pairs them, :mod:`pyfn.scoring.pairing`) and returns
one JSON-ready object (:data:`SCHEMA`):

- ``frames`` (modes ``semeval`` and ``frameid``): frame-identification
  accuracy over gold targets, in total, per gold frame and by the frequency of
  the target's LU in the train data (:data:`BUCKETS`; the count is the number
  of train annotation sets whose LU name is the gold set's, read from the
  train JSONL, not the lexicon), and the gold -> predicted frame confusions;
- ``arguments`` (modes ``semeval`` and ``argsonly``): precision, recall and F1
  of FE labels per FE (``frame``, ``fe``) and per coreness as the frame
  defines it (``Core``, ``Peripheral``, ``Extra-Thematic``,
  ``Core-Unexpressed``; ``unknown``: an FE the frame does not define);
- ``sentences``: every gold sentence with an error counted above, each set
  gold and predicted side by side.

Alignment: within a paired sentence, a gold set takes a predicted set with the
same target characters and the same frame, else the next unused predicted set
of that target (the frame-id scorer's rule, :mod:`pyfn.scoring.frameid`). A
gold set without one is unanswered (a wrong frame, its FEs missed); a
predicted set left over, or of a sentence outside gold, is unaligned (its FEs
are false positives). An FE label is matched when the aligned predicted set
has the gold frame and a label of the same FE name over the same characters:
exact spans, no partial credit, each label once. Only overt labels of the
first FE layer count (null instantiations and lower ranks are not scored).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import ProblemLog
from pyfn.model import AnnotationSet
from pyfn.scoring.pairing import Doc, pair, read_file
from pyfn.scoring.signature import file_tag

SCHEMA = "pyfn-breakdown/1"
"""The JSON object's ``schema``; it changes when a key changes."""
MODES = ("semeval", "frameid", "argsonly")
"""What is analysed: frames and arguments, frames only, arguments only (gold frames given)."""
BUCKETS = (("0", 0, 0), ("1-5", 1, 5), ("6-20", 6, 20), (">20", 21, None))
"""LU frequency buckets: name, lowest and highest count of train annotation sets (None: no bound)."""
CORENESS = ("Core", "Peripheral", "Extra-Thematic", "Core-Unexpressed", "unknown")
"""Coreness classes in report order; ``unknown``: an FE name the frame does not define."""

Inventory = Mapping[str, Sequence[tuple[str, str]]]
"""Frame -> its ``(FE name, coreType)`` (:attr:`pyfn.scoring.scorer_lexicon.ScorerLexicon.inventory`)."""
FELabel = tuple[str, int, int]
"""An overt FE label: name, first and last character (inclusive)."""


def lu_counts(train: Iterable[AnnotationSet]) -> dict[str, int]:
    """Train annotation sets per LU name, sorted by name."""
    return dict(sorted(Counter(aset.lu_name for aset in train).items()))


def bucket(count: int) -> str:
    """The :data:`BUCKETS` name of a train count."""
    return next(name for name, low, high in BUCKETS if count >= low and (high is None or count <= high))


def fe_labels(aset: AnnotationSet) -> list[FELabel]:
    """The set's overt labels of its first FE layer, in label order."""
    return [(lb.name, *lb.span) for rank, lb in aset.overt_fes if rank == 1]  # type: ignore[misc]


def align(gold: Sequence[AnnotationSet], pred: Sequence[AnnotationSet]) -> tuple[list[int | None], list[int]]:
    """Per gold set the index of its predicted set (None: unanswered), and the unaligned predicted indices.

    On one target, gold sets take predicted sets of their own frame first, then the leftovers in order.
    """
    by_target: dict[tuple, list[int]] = {}
    for i, p in enumerate(pred):
        by_target.setdefault(p.target, []).append(i)
    chosen: list[int | None] = [None] * len(gold)
    used: set[int] = set()
    for g, aset in enumerate(gold):
        match = next((i for i in by_target.get(aset.target, ()) if i not in used
                      and pred[i].frame_name == aset.frame_name), None)
        if match is not None:
            chosen[g] = match
            used.add(match)
    for g, aset in enumerate(gold):
        if chosen[g] is None:
            spare = next((i for i in by_target.get(aset.target, ()) if i not in used), None)
            if spare is not None:
                chosen[g] = spare
                used.add(spare)
    return chosen, [i for i in range(len(pred)) if i not in used]


def _matched(gold: AnnotationSet, pred: AnnotationSet | None) -> tuple[list[bool], list[bool]]:
    """Whether each gold and each predicted FE label is matched (same frame, name and characters)."""
    g_labels = fe_labels(gold)
    p_labels = fe_labels(pred) if pred is not None else []
    if pred is None or pred.frame_name != gold.frame_name:
        return [False] * len(g_labels), [False] * len(p_labels)
    return _claim(g_labels, Counter(p_labels)), _claim(p_labels, Counter(g_labels))


def _claim(labels: Sequence[FELabel], other: Counter) -> list[bool]:
    """Whether each label finds one in ``other`` (a multiset, used up in order)."""
    out = []
    for label in labels:
        out.append(other[label] > 0)
        if out[-1]:
            other[label] -= 1
    return out


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def _accuracy(correct: int, n: int) -> dict[str, float | int]:
    return {"correct": correct, "n": n, "accuracy": correct / n if n else 0.0}


def _view(aset: AnnotationSet, ok: Sequence[bool] | None) -> dict[str, Any]:
    """A set as the sentence list shows it; ``ok``: per FE label whether it is matched (None: not scored)."""
    return {"frame": aset.frame_name, "lu": aset.lu_name, "target": [list(s) for s in aset.target],
            "fes": [{"fe": name, "start": start, "end": end, "ok": None if ok is None else ok[i]}
                    for i, (name, start, end) in enumerate(fe_labels(aset))]}


class _Tally:
    """The counts the breakdown accumulates over sentences."""

    def __init__(self, inventory: Inventory) -> None:
        self.core = {frame: dict(fes) for frame, fes in inventory.items()}
        self.frame: Counter = Counter()
        self.frame_n: Counter = Counter()
        self.bucket: Counter = Counter()
        self.bucket_n: Counter = Counter()
        self.confusions: Counter = Counter()
        self.unanswered = 0
        self.fe: dict[tuple[str, str], Counter] = {}

    def coreness(self, frame: str, fe: str) -> str:
        return self.core.get(frame, {}).get(fe, "unknown")

    def count_fe(self, frame: str, fe: str, kind: str) -> None:
        self.fe.setdefault((frame, fe), Counter())[kind] += 1


def breakdown(gold: Doc, pred: Doc, *, mode: str = "semeval", inventory: Inventory | None = None,
              train_counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The error analysis of ``pred`` against ``gold`` (see the module docstring); ``train_counts``: LU name ->
    train annotation sets (:func:`lu_counts`; None: no frequency buckets). Deterministic: same input, same object."""
    frames, arguments = mode in ("semeval", "frameid"), mode in ("semeval", "argsonly")
    tally = _Tally(inventory or {})
    pairing = pair(gold.sentences, pred.sentences)
    covered = pairing.covered
    wrong: list[dict[str, Any]] = []
    unaligned = 0
    for g_index, (key, text) in enumerate(gold.sentences):
        g_sets = gold.sets[g_index]
        position = pairing.pred_of[g_index]
        p_sets = pred.sets[position] if g_index in covered and position is not None else []
        chosen, extra = align(g_sets, p_sets)
        unaligned += len(extra)
        rows, bad = [], False
        for g_set, p_index in zip(g_sets, chosen):
            p_set = p_sets[p_index] if p_index is not None else None
            row: dict[str, Any] = {"frame_ok": None, "fes_ok": None}
            if frames:
                ok = p_set is not None and p_set.frame_name == g_set.frame_name
                row["frame_ok"] = ok
                bad |= not ok
                tally.frame_n[g_set.frame_name] += 1
                tally.frame[g_set.frame_name] += ok
                if train_counts is not None:
                    name = bucket(train_counts.get(g_set.lu_name, 0))
                    tally.bucket_n[name] += 1
                    tally.bucket[name] += ok
                if p_set is None:
                    tally.unanswered += 1
                elif not ok:
                    tally.confusions[(g_set.frame_name, p_set.frame_name)] += 1
            g_ok, p_ok = _matched(g_set, p_set)
            if arguments:
                for (fe, _, _), ok in zip(fe_labels(g_set), g_ok):
                    tally.count_fe(g_set.frame_name, fe, "tp" if ok else "fn")
                if p_set is not None:
                    for (fe, _, _), ok in zip(fe_labels(p_set), p_ok):
                        if not ok:
                            tally.count_fe(p_set.frame_name, fe, "fp")
                row["fes_ok"] = all(g_ok) and all(p_ok)
                bad |= not row["fes_ok"]
            row["gold"] = _view(g_set, g_ok if arguments else None)
            row["pred"] = _view(p_set, p_ok if arguments else None) if p_set is not None else None
            rows.append(row)
        for p_index in extra:
            p_set = p_sets[p_index]
            labels = fe_labels(p_set)
            if arguments:
                for fe, _, _ in labels:
                    tally.count_fe(p_set.frame_name, fe, "fp")
                bad |= bool(labels)
            rows.append({"frame_ok": None, "fes_ok": not labels if arguments else None, "gold": None,
                         "pred": _view(p_set, [False] * len(labels) if arguments else None)})
        if bad:
            wrong.append({"index": g_index, "id": key, "text": text, "sets": rows})
    for position in pairing.not_in_gold:
        for p_set in pred.sets[position]:
            unaligned += 1
            if arguments:
                for fe, _, _ in fe_labels(p_set):
                    tally.count_fe(p_set.frame_name, fe, "fp")
    return {
        "schema": SCHEMA,
        "mode": mode,
        "sentences": pairing.counts() | {"wrong": len(wrong)},
        "unaligned_predicted_sets": unaligned,
        "frames": _frames(tally, train_counts is not None) if frames else None,
        "arguments": _arguments(tally) if arguments else None,
        "wrong_sentences": wrong,
    }


def _frames(tally: _Tally, buckets: bool) -> dict[str, Any]:
    confusions = sorted(tally.confusions.items(), key=lambda item: (-item[1], item[0]))
    return {
        "total": _accuracy(sum(tally.frame.values()), sum(tally.frame_n.values())),
        "unanswered": tally.unanswered,
        "per_frame": [{"frame": frame} | _accuracy(tally.frame[frame], n) for frame, n in sorted(tally.frame_n.items())],
        "lu_frequency": {
            "counted": "train annotation sets with the gold set's LU name (train data, not the lexicon)",
            "buckets": [{"bucket": name} | _accuracy(tally.bucket[name], tally.bucket_n[name]) for name, _, _ in BUCKETS],
        } if buckets else None,
        "confusions": [{"gold": g, "pred": p, "count": n} for (g, p), n in confusions],
    }


def _arguments(tally: _Tally) -> dict[str, Any]:
    per_fe = []
    by_core: dict[str, Counter] = {name: Counter() for name in CORENESS}
    for (frame, fe), counts in sorted(tally.fe.items()):
        core = tally.coreness(frame, fe)
        core = core if core in by_core else "unknown"
        by_core[core].update(counts)
        per_fe.append({"frame": frame, "fe": fe, "coreness": core} | _prf(counts["tp"], counts["fp"], counts["fn"]))
    total = sum(by_core.values(), Counter())
    return {
        "total": _prf(total["tp"], total["fp"], total["fn"]),
        "per_coreness": [{"coreness": name} | _prf(c["tp"], c["fp"], c["fn"]) for name, c in by_core.items()],
        "per_fe": per_fe,
    }


def breakdown_files(gold: Path, pred: Path, *, mode: str = "semeval", inventory: Inventory | None = None,
                    train: Iterable[AnnotationSet] | None = None, train_tag: str | None = None,
                    log: ProblemLog | None = None) -> dict[str, Any]:
    """:func:`breakdown` of two SemEval XML files, with a ``signature`` naming the gold file and the train data."""
    log = log if log is not None else ProblemLog()
    gold_doc, pred_doc = read_file(Path(gold), log), read_file(Path(pred), log)
    result = breakdown(gold_doc, pred_doc, mode=mode, inventory=inventory,
                       train_counts=lu_counts(train) if train is not None else None)
    tag = f"|train:{train_tag}" if train_tag else ""
    return {"schema": result.pop("schema"), "signature": f"breakdown|{mode}|gold:{file_tag(Path(gold))}{tag}"
            f"|v:{__version__}"} | result | {"problems": log.counts()}


def worst_fes(arguments: Mapping[str, Any], top: int, min_gold: int) -> list[dict[str, Any]]:
    """The ``top`` FEs of lowest F1 among those with at least ``min_gold`` gold labels (more gold first on ties)."""
    return sorted((fe for fe in arguments["per_fe"] if fe["tp"] + fe["fn"] >= min_gold),
                  key=lambda fe: (fe["f1"], -(fe["tp"] + fe["fn"]), fe["frame"], fe["fe"]))[:top]


def digest(result: Mapping[str, Any], top: int = 10, min_gold: int = 5) -> dict[str, Any]:
    """What an experiment's manifest keeps of a breakdown: the totals, the buckets, the ``top`` confusions,
    coreness and the ``top`` worst FEs (no per-frame, per-FE or sentence lists)."""
    frames, arguments = result["frames"], result["arguments"]
    return {
        "mode": result["mode"], "signature": result["signature"], "sentences": result["sentences"],
        "frames": None if frames is None else {
            "total": frames["total"], "unanswered": frames["unanswered"], "lu_frequency": frames["lu_frequency"],
            "confusions": frames["confusions"][:top]},
        "arguments": None if arguments is None else {
            "total": arguments["total"], "per_coreness": arguments["per_coreness"],
            "worst_fes": worst_fes(arguments, top, min_gold), "min_gold": min_gold},
    }


def summary_lines(result: Mapping[str, Any], top: int = 5, min_gold: int = 5) -> list[str]:
    """The terminal summary: frame accuracy, LU-frequency buckets, top confusions, worst FEs and coreness."""
    out = []
    s = result["sentences"]
    out.append(f"sentences: {s['gold']} gold, {s['wrong']} with an error; "
               f"{result['unaligned_predicted_sets']} predicted sets answer no gold target")
    frames = result["frames"]
    if frames:
        t = frames["total"]
        out.append(f"frame identification: {t['accuracy']:.4f} ({t['correct']}/{t['n']}; "
                   f"{frames['unanswered']} unanswered)")
        if frames["lu_frequency"]:
            out.append("  by the LU's train count (" + frames["lu_frequency"]["counted"] + "):")
            out += [f"    {b['bucket']:>5}  {b['accuracy']:.4f}  ({b['correct']}/{b['n']})"
                    for b in frames["lu_frequency"]["buckets"]]
        out.append(f"  most confused (gold -> predicted), top {top}:")
        out += [f"    {c['count']:5}  {c['gold']} -> {c['pred']}" for c in frames["confusions"][:top]]
    arguments = result["arguments"]
    if arguments:
        t = arguments["total"]
        out.append(f"arguments: P {t['precision']:.4f}  R {t['recall']:.4f}  F1 {t['f1']:.4f}  "
                   f"(tp {t['tp']} / fp {t['fp']} / fn {t['fn']})")
        out += [f"  {c['coreness']:16} P {c['precision']:.4f}  R {c['recall']:.4f}  F1 {c['f1']:.4f}  "
                f"(gold {c['tp'] + c['fn']})" for c in arguments["per_coreness"] if c["tp"] + c["fp"] + c["fn"]]
        worst = worst_fes(arguments, top, min_gold)
        out.append(f"  worst FEs (at least {min_gold} gold labels), top {top}:")
        out += [f"    F1 {fe['f1']:.4f}  {fe['frame']}.{fe['fe']} ({fe['coreness']}; gold {fe['tp'] + fe['fn']})"
                for fe in worst]
    out.append(result["signature"])
    return out
