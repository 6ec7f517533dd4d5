"""Per-topic scores of an experiment's systems (topics = gold sentences), for ``pyfn compare-runs``.

Frame identification: a sentence's share of correctly identified gold
targets. Arguments (``argsonly``) and full parsing (``semeval``): the
sentence's F1 from the SemEval scorer's per-sentence points (0 when it has
neither gold nor predicted points). Topic names are ``s<N>``, N the gold
sentence's position, so the same gold file gives the same topics. Sentences
pair by ID and text (:mod:`pyfn.scoring.pairing`): a gold sentence without a
prediction is a topic scored 0; a predicted sentence outside gold is no topic.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError
from pyfn.scoring.frameid import frame_id_files, read_lu_frames
from pyfn.scoring.pairing import Doc, read_file
from pyfn.scoring.scorer_lexicon import ScorerLexicon
from pyfn.scoring.semeval import score
from pyfn.xp.recipe import load_recipe
from pyfn.xp.steps import Layout

Runs = dict[str, dict[str, float]]


def _f1(matched: float, gold: float, predicted: float) -> float:
    p = matched / predicted if predicted else 0.0
    r = matched / gold if gold else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def topic_scores(folder: Path, split: str = "test") -> Runs:
    """``{system: {topic: score}}`` for every system of the experiment with predictions on ``split``."""
    recipe = load_recipe(folder)
    layout = Layout(folder)
    gold = layout.data / f"{split}.gold.xml"
    if not gold.is_file():
        raise PyfnError(f"{gold}: missing; run the experiment first (pyfn xp run {recipe.number})")
    runs: Runs = {}
    gold_doc: Doc | None = None  # read once, when a system needs them (with the LU lexicon)
    lu_frames: dict[str, frozenset[str]] = {}
    lexicon: ScorerLexicon | None = None
    for system in recipe.systems:
        pred = layout.system(system) / f"{split}.predicted.xml"
        if not pred.is_file():
            continue
        if system.task == "frameid":
            if gold_doc is None:
                gold_doc = read_file(gold, ProblemLog())
                lu_frames = read_lu_frames(layout.lexicon / "lu_frames.tsv")
            accuracy = frame_id_files(gold_doc, pred, lu_frames)
            positions = [g for g, sets in enumerate(gold_doc.sets) for _ in sets]
            by_sentence: dict[int, list[bool]] = defaultdict(list)
            for position, decision in zip(positions, accuracy.decisions, strict=True):
                by_sentence[position].append(decision.correct)
            runs[system.name] = {f"s{k}": sum(v) / len(v) for k, v in sorted(by_sentence.items())}
        else:
            if lexicon is None:
                lexicon = ScorerLexicon.from_files(layout.lexicon / "frames.xml", layout.lexicon / "frRelations.xml")
            mode = "argsonly" if system.task == "args" else "semeval"
            result = score(gold, pred, lexicon=lexicon, mode=mode)
            runs[system.name] = {f"s{s.index}": _f1(s.matched, s.gold, s.predicted) for s in result.per_sentence
                                 if s.status != "not_in_gold"}
    if not runs:
        raise PyfnError(f"{folder}: no system has predictions for {split}")
    return runs


def write_tsv(runs: Runs, path: Path) -> None:
    """``system<TAB>topic<TAB>score`` lines, as ``pyfn compare-runs`` reads them (atomically)."""
    from pyfn.fileio import write_lines  # noqa: PLC0415

    write_lines(path, ["system\ttopic\tscore", *(f"{system}\t{topic}\t{value!r}" for system, topics in sorted(runs.items())
                                                 for topic, value in topics.items())])
