"""Ranking stability over random or k-fold splits (Gorman & Bedrick 2019), for an experiment with a study.

An experiment whose recipe declares ``split = "random(n=N, seed=S)"`` or
``split = "kfold(k=K, seed=S)"`` runs its systems on the standard split (in
``work/``) and on every drawn split (in ``work/splits/NAME/``: random seeds
S..S+N-1, or folds 0..K-1), each built with the same invalid-set removal,
filters, dedup and no-overlap guarantees. Per split: each system's score on
test, the ranking, and for each pair McNemar's mid-p (frame identification)
or approximate randomization on F1 (arguments), with Bonferroni and Holm
corrections across pairs. Over the drawn splits: mean, standard deviation,
minimum and maximum per system; how often the standard split's ranking holds;
and, for each pair significant on the standard split, on how many drawn
splits it is significant again (Gorman & Bedrick's protocol).
"""

from __future__ import annotations

import dataclasses
import html
import statistics
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pyfn.manifest import read_manifest
from pyfn.scoring.compare import compare_f1, compare_frame_id
from pyfn.scoring.frameid import read_lu_frames
from pyfn.scoring.scorer_lexicon import ScorerLexicon
from pyfn.workers import job_count, mapper
from pyfn.xp.charts import LEFT, TOP, frame
from pyfn.xp.recipe import Recipe
from pyfn.xp.steps import Layout, Step, steps

ALPHA = 0.05
SAMPLES = 1000
"""Approximate-randomization samples per pair (seed 0)."""


@dataclass(frozen=True)
class SplitRun:
    """One split of a study: its name, the recipe as it applies to it, and where it lives."""

    name: str
    recipe: Recipe
    layout: Layout


def split_runs(recipe: Recipe, folder: Path) -> list[SplitRun]:
    """The standard split (``work/``) then every drawn split (``work/splits/NAME``)."""
    runs = [SplitRun("standard", dataclasses.replace(recipe, split="standard", study=None), Layout(folder))]
    if recipe.study is None:
        return runs
    kind, n, seed = recipe.study
    for i in range(n):
        if kind == "random":
            name, variant = f"random-seed{seed + i}", dataclasses.replace(recipe, split="random", seed=seed + i)
        else:
            name = f"kfold{n}-seed{seed}-fold{i}"
            variant = dataclasses.replace(recipe, split="kfold", seed=seed, folds=n, fold=i)
        runs.append(SplitRun(name, dataclasses.replace(variant, study=None), Layout(folder, f"splits/{name}")))
    return runs


def study_steps(recipe: Recipe, folder: Path) -> list[Step]:
    """The steps of every drawn split, named ``NAME/step``: every system's, external parsers' included
    (trained, decoded, imported and scored on each drawn split, in its own ``work/splits/NAME``)."""
    return [dataclasses.replace(step, name=f"{run.name}/{step.name}")
            for run in split_runs(recipe, folder)[1:] for step in steps(run.recipe, run.layout)]


def split_result(run: SplitRun, scored_split: str) -> dict[str, Any] | None:
    """Scores, rankings and pairwise tests of the systems of one split run on ``scored_split`` (None before its data)."""
    layout = run.layout
    gold = layout.data / f"{scored_split}.gold.xml"
    if not gold.is_file():
        return None
    systems = [s for s in run.recipe.systems if (layout.system(s) / f"{scored_split}.predicted.xml").is_file()]
    frameid = [s for s in systems if s.task == "frameid"]
    args = [s for s in systems if s.task == "args"]
    scores: dict[str, float] = {}
    pairs = []
    if frameid:
        results, comparisons = compare_frame_id(
            gold, [layout.system(s) / f"{scored_split}.predicted.xml" for s in frameid],
            lu_frames=read_lu_frames(layout.lexicon / "lu_frames.tsv"))
        scores |= {s.name: r.total.accuracy for s, r in zip(frameid, results)}
        pairs += _pairs(comparisons, frameid, layout)
    if args:
        lexicon = ScorerLexicon.from_files(layout.lexicon / "frames.xml", layout.lexicon / "frRelations.xml")
        results, _, comparisons = compare_f1(
            gold, [layout.system(s) / f"{scored_split}.predicted.xml" for s in args], lexicon=lexicon,
            mode="argsonly", n_samples=SAMPLES, seed=0)
        scores |= {s.name: r.f1 for s, r in zip(args, results)}
        pairs += _pairs(comparisons, args, layout)
    data = read_manifest(layout.data) or {}
    return {
        "scores": scores,
        "ranking": {task: _ranking(scores, group) for task, group in (("frameid", frameid), ("args", args)) if group},
        "pairs": pairs,
        "documents": {k: data.get("split_definition", {}).get(k) for k in ("dev", "test")},
        "counts": data.get("splits"),
    }


def _split_results(runs: list[SplitRun], scored_split: str) -> dict[str, dict[str, Any] | None]:
    """:func:`split_result` of every run, by name in run order: the first here (it loads the scoring
    libraries, which the workers then inherit), the others in a process per core (each reads its gold
    and predicted files: about 1 s per split of FN 1.5)."""
    results = {run.name: split_result(run, scored_split) for run in runs[:1]}
    with mapper(job_count(0, len(runs) - 1, per_job=2), _no_setup, ()) as mapped:
        found = mapped(partial(split_result, scored_split=scored_split), runs[1:])
        return results | dict(zip([run.name for run in runs[1:]], found, strict=True))


def _no_setup() -> None:
    """A worker of :func:`_split_results` needs no set-up."""


def _pairs(comparisons, systems, layout: Layout) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    names = {str(layout.system(s) / p): s.name for s in systems for p in ("dev.predicted.xml", "test.predicted.xml")}
    return [
        {"a": names[c.a], "b": names[c.b], "delta": c.delta, "test": c.test, "p": c.p_value,
         "p_bonferroni": c.p_bonferroni, "p_holm": c.p_holm}
        for c in comparisons
    ]


def _ranking(scores: dict[str, float], systems) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted((s.name for s in systems), key=lambda name: (-scores[name], name))


def analyse(recipe: Recipe, folder: Path) -> dict[str, Any] | None:
    """Per-split results and their summary over the drawn splits (None without a study)."""
    if recipe.study is None:
        return None
    split = recipe.score_splits[-1]
    per_split = _split_results(split_runs(recipe, folder), split)
    standard = per_split["standard"]
    drawn = {name: r for name, r in per_split.items() if name != "standard" and r is not None}
    summary: dict[str, Any] = {"scored_split": split, "drawn_splits": len(drawn), "alpha": ALPHA, "systems": {}}
    if standard is None or not drawn:
        return {"kind": recipe.study[0], "splits": per_split, "summary": summary}
    for name in standard["scores"]:
        values = [r["scores"][name] for r in drawn.values() if name in r["scores"]]
        if values:
            summary["systems"][name] = {
                "standard": standard["scores"][name], "mean": statistics.fmean(values),
                "sd": statistics.stdev(values) if len(values) > 1 else 0.0, "min": min(values), "max": max(values),
                "n": len(values),
            }
    summary["ranking_holds"] = {
        task: sum(r["ranking"].get(task) == ranking for r in drawn.values())
        for task, ranking in standard["ranking"].items()
    }
    summary["significant_on_standard"] = []
    for pair in standard["pairs"]:
        if pair["p_holm"] >= ALPHA:
            continue
        again = [r for r in drawn.values() for p in r["pairs"] if (p["a"], p["b"]) == (pair["a"], pair["b"])
                 and p["p_holm"] < ALPHA and (p["delta"] > 0) == (pair["delta"] > 0)]
        summary["significant_on_standard"].append(
            {"a": pair["a"], "b": pair["b"], "delta": pair["delta"], "p_holm": pair["p_holm"],
             "significant_again": len(again), "of": len(drawn)})
    return {"kind": recipe.study[0], "splits": per_split, "summary": summary}


def figure(study: dict[str, Any]) -> str:
    """An SVG strip plot: per system, its score on every drawn split (dots) and on the standard split (a bar)."""
    summary = study["summary"]
    systems = summary.get("systems", {})
    if not systems:
        return ""
    values = [v for r in study["splits"].values() if r for v in r["scores"].values()]
    low, high = min(values), max(values)
    pad = max(high - low, 0.01) * 0.1
    measure = {frozenset({"frameid"}): "frame-identification accuracy", frozenset({"args"}): "argument F1"}.get(
        frozenset(summary.get("ranking_holds", {})), "score (frame-id accuracy, argument F1)")
    row = 34
    parts, x = frame(f"{measure.capitalize()} on {summary['scored_split']} over {summary['drawn_splits']} drawn "
                     "splits", f"{measure} on {summary['scored_split']}", "system", (low - pad, high + pad),
                     row * len(systems), [("drawn split", "#4a7ab5"), ("standard split", "#c0392b")])
    for i, (name, stats) in enumerate(sorted(systems.items())):
        y = TOP + row * i + row / 2
        parts.append(f'<text class="category" x="{LEFT - 8}" y="{y + 4}" text-anchor="end" font-size="12">'
                     f"{html.escape(name)}</text>")
        for split_name, result in sorted(study["splits"].items()):
            if split_name != "standard" and result and name in result["scores"]:
                parts.append(f'<circle cx="{x(result["scores"][name]):.1f}" cy="{y}" r="4" fill="#4a7ab5" '
                             f'fill-opacity="0.6"><title>{html.escape(split_name)}: '
                             f'{result["scores"][name]:.4f}</title></circle>')
        parts.append(f'<line x1="{x(stats["standard"]):.1f}" x2="{x(stats["standard"]):.1f}" y1="{y - 10}" '
                     f'y2="{y + 10}" stroke="#c0392b" stroke-width="3"><title>standard split: '
                     f'{stats["standard"]:.4f}</title></line>')
    return "".join(parts) + "</svg>"


def summary_lines(study: dict[str, Any]) -> list[str]:
    """The study as Markdown: per-system distribution, ranking stability, significance that holds."""
    summary = study["summary"]
    n = summary["drawn_splits"]
    out = [f"Scores on `{summary['scored_split']}` over {n} drawn {study['kind']} splits "
           "(Gorman & Bedrick 2019); per-split scores, rankings and tests are in manifest.json.", "",
           "| system | standard | mean | sd | min | max |", "|---|---|---|---|---|---|"]
    for name, s in sorted(summary.get("systems", {}).items()):
        out.append(f"| {name} | {s['standard']:.4f} | {s['mean']:.4f} | {s['sd']:.4f} | {s['min']:.4f} | {s['max']:.4f} |")
    for task, holds in summary.get("ranking_holds", {}).items():
        out.append(f"\nThe standard split's {task} ranking holds on {holds} of {n} drawn splits.")
    for pair in summary.get("significant_on_standard", []):
        out.append(f"\n{pair['b']} vs {pair['a']}: significant on the standard split (Holm p = {pair['p_holm']:.4g}); "
                   f"significant in the same direction on {pair['significant_again']} of {pair['of']} drawn splits.")
    if not summary.get("significant_on_standard"):
        out.append(f"\nNo pair differs significantly on the standard split (Holm-corrected, alpha {ALPHA}).")
    return out
