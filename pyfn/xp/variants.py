"""Butterfly experiments (Kabbach et al. 2018): the same systems under data-processing variants.

An experiment whose recipe has ``[[variant]]`` tables runs its systems with the recipe's own settings
(the *standard* variant, in ``work/``) and once per variant (in ``work/variants/NAME/``), each variant
changing one choice (preprocessing, exemplars, filter scope, candidate-frame lexicon) and nothing else.
External parsers are trained again for a variant that changes train, and otherwise use the standard
models (``models = "standard"``). Per variant and system, on the last scored split: frame-identification
accuracy with its Wilson interval, McNemar's mid-p against the same system under the standard settings
(both scored on the variant's own gold: when the variant changes the test set, the standard predictions
are scored on it), and whether the ranking of the systems changes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pyfn.errors import ProblemLog
from pyfn.fileio import sha256_file
from pyfn.model import AnnotationSet
from pyfn.scoring.frameid import frame_id_accuracy, read_lu_frames
from pyfn.scoring.pairing import read_file
from pyfn.scoring.stats import mcnemar
from pyfn.xp.recipe import Recipe, System, apply_variant
from pyfn.xp.steps import Layout, Step, steps
from pyfn.xp.study import SplitRun, split_result, study_steps

STANDARD = "standard"


def variant_runs(recipe: Recipe, folder: Path) -> list[SplitRun]:
    """The standard settings (``work/``) then every variant (``work/variants/NAME``)."""
    runs = [SplitRun(STANDARD, dataclasses.replace(recipe, variants=()), Layout(folder))]
    for variant in recipe.variants:
        models = "" if variant.models == STANDARD else None
        runs.append(SplitRun(variant.name, apply_variant(recipe, variant),
                             Layout(folder, f"variants/{variant.name}", models=models)))
    return runs


def variant_steps(recipe: Recipe, folder: Path) -> list[Step]:
    """The steps of every variant, named ``NAME/step``."""
    return [dataclasses.replace(step, name=f"{run.name}/{step.name}")
            for run in variant_runs(recipe, folder)[1:] for step in steps(run.recipe, run.layout)]


def _frameid_score(run: SplitRun, system: System, split: str) -> dict[str, Any] | None:
    path = run.layout.score_file(system, split, "frameid")
    return json.loads(path.read_text(encoding="utf-8"))["total"] if path.is_file() else None


def _versus_standard(standard: SplitRun, run: SplitRun, system: System, split: str) -> dict[str, Any] | None:
    """McNemar's mid-p between a system's standard and variant predictions, both scored on the variant's gold.

    Targets are matched by sentence text and target span (:func:`frame_id_accuracy`), not by SemEval
    sentence ID, which numbers sentences by position: a variant with another test set renumbers them.
    """
    gold = run.layout.data / f"{split}.gold.xml"
    preds = [layout.system(system) / f"{split}.predicted.xml" for layout in (standard.layout, run.layout)]
    if not gold.is_file() or not all(p.is_file() for p in preds):
        return None
    lu_frames = read_lu_frames(run.layout.lexicon / "lu_frames.tsv")
    gold_sets = _sets(gold)
    before, after = (frame_id_accuracy(gold_sets, _sets(p), lu_frames, log=ProblemLog()) for p in preds)
    test = mcnemar(before.correct_vector, after.correct_vector)
    return {
        "same_test": sha256_file(gold) == sha256_file(standard.layout.data / f"{split}.gold.xml"),
        "standard_on_variant_test": before.total.accuracy, "delta": after.total.accuracy - before.total.accuracy,
        "standard_only_right": test.b, "variant_only_right": test.c, "p": test.p_value,
    }


def _sets(path: Path) -> list[AnnotationSet]:
    return [aset for sets in read_file(path, ProblemLog()).sets for aset in sets]


def analyse_variants(recipe: Recipe, folder: Path) -> dict[str, Any] | None:
    """Per variant: each frame-identification system's accuracy, its test against the standard settings,
    and the ranking (None without variants)."""
    if not recipe.variants:
        return None
    split = recipe.score_splits[-1]
    runs = variant_runs(recipe, folder)
    standard = runs[0]
    base = split_result(standard, split)
    out: dict[str, Any] = {"scored_split": split, "variants": {}}
    for run, variant in zip(runs, (None, *recipe.variants)):
        result = split_result(run, split)
        systems = {}
        for system in run.recipe.systems:
            if system.task != "frameid":
                continue
            entry: dict[str, Any] = {"accuracy": _frameid_score(run, system, split)}
            if variant is not None:
                entry["versus_standard"] = _versus_standard(standard, run, system, split)
            systems[system.name] = entry
        ranking = (result or {}).get("ranking", {}).get("frameid")
        standard_ranking = (base or {}).get("ranking", {}).get("frameid")
        out["variants"][run.name] = {
            "description": variant.description if variant else "the recipe's own settings",
            "changes": dict(variant.changes) if variant else {},
            "models": variant.models if variant else "own",
            "test_sets": ((result or {}).get("counts") or {}).get(split, {}).get("annotation_sets"),
            "systems": systems,
            "ranking": ranking,
            "ranking_changed": None if variant is None or not ranking or not standard_ranking
            or set(ranking) != set(standard_ranking) else ranking != standard_ranking,
            "pairs": (result or {}).get("pairs", []),
        }
    return out


def _acc(acc: dict[str, Any] | None) -> str:
    if not acc:
        return "n/a"
    return f"{acc['accuracy']:.4f} [{acc['wilson_low']:.4f}, {acc['wilson_high']:.4f}] ({acc['correct']}/{acc['n']})"


def _versus(versus: dict[str, Any] | None) -> str:
    if not versus:
        return "-"
    where = "" if versus["same_test"] else f", on this test (standard there: {versus['standard_on_variant_test']:.4f})"
    return (f"{versus['delta']:+.4f}{where}; McNemar mid-p {versus['p']:.3g} "
            f"({versus['standard_only_right']} vs {versus['variant_only_right']} discordant)")


SYSTEM_HEAD = ("variant", "what changes", "models", "test sets", "system", "accuracy", "vs standard")
RANKING_HEAD = ("variant", "frame-identification ranking", "changed", "pairs (later minus earlier, McNemar mid-p, Holm)")


def system_rows(analysis: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per variant and system (:data:`SYSTEM_HEAD`)."""
    return [(name, v["description"], v["models"], str(v["test_sets"] or "n/a"), system, _acc(entry["accuracy"]),
             _versus(entry.get("versus_standard")))
            for name, v in analysis["variants"].items() for system, entry in v["systems"].items()]


def ranking_rows(analysis: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per variant (:data:`RANKING_HEAD`)."""
    return [(name, " > ".join(v["ranking"] or []) or "n/a", {None: "-", True: "yes", False: "no"}[v["ranking_changed"]],
             "; ".join(f"{p['b']} - {p['a']}: {p['delta']:+.4f} (p {p['p_holm']:.3g})" for p in v["pairs"]) or "-")
            for name, v in analysis["variants"].items()]


def caption(analysis: dict[str, Any]) -> str:
    """What the variant table shows."""
    return (f"Frame identification on `{analysis['scored_split']}` (gold targets): accuracy [95% Wilson interval] "
            "(correct/targets); change against the same system under the standard settings, both scored on the "
            "variant's gold (McNemar's mid-p; discordant targets: right only under the standard settings vs only "
            "under the variant).")


def summary_lines(analysis: dict[str, Any]) -> list[str]:
    """The variants as Markdown tables."""
    def table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
        return [f"| {' | '.join(head)} |", "|" + "---|" * len(head), *(f"| {' | '.join(r)} |" for r in rows)]

    return [caption(analysis), "", *table(SYSTEM_HEAD, system_rows(analysis)), "",
            *table(RANKING_HEAD, ranking_rows(analysis))]


def extra_steps(recipe: Recipe, folder: Path) -> list[Step]:
    """Every step beyond the recipe's own settings: a study's drawn splits, or the variants."""
    return [*study_steps(recipe, folder), *variant_steps(recipe, folder)]
