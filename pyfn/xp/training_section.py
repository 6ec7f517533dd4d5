"""The report section on the external parsers' trainings: one row per finished training, and Open-SESAME's dev
evaluations (its learning curve).

Rows come from the manifest alone (``trainings``, written by :mod:`pyfn.xp.parser_runs`); an experiment
recorded without them, or without an external parser, shows neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyfn.xp.analysis import md_table, prose
from pyfn.xp.charts import Mark, bar_chart

CAPTION = (
    "Each finished training of an external parser, as its run folder's `pyfn-train.json` records it (in "
    "`manifest.json`, without wall times): its budget or stopping rule, what ended it, its attempts (a restart "
    "resumes from the last save and loses what the parser cannot save: Open-SESAME's Adam moments, SEMAFOR's "
    "L-BFGS memory), the best dev score the parser measured itself, and the sha256 of the model that decoded."
)
HEAD = ["model", "parser", "budget or stopping rule", "ended", "attempts", "best dev (parser's own)", "model sha256"]
CURVE_CAPTION = ("Open-SESAME's labeled P / R / F1 on dev at each of its evaluations during training (its own "
                 "count, which chooses the model it keeps), epochs from 1:")
CURVE_HEAD = ["model", "epoch", "example", "P", "R", "F1"]


def _open_sesame(record: dict[str, Any]) -> tuple[str, str, str]:
    budget = record.get("budget", {})
    every = budget.get("dev_eval_epoch_frequency", 0) * budget.get("eval_after_every_epochs", 0)
    rule = (f"{budget.get('num_epochs')} epochs, patience {budget.get('patience')}"
            + (f", dev every {every:,} examples" if every else "") + f"; seed {record.get('seed')}")
    ended = f"{record.get('stopped')}" + (f" after {record['epochs']} epochs" if "epochs" in record else "")
    curve = record.get("dev_curve") or []
    best = max(curve, key=lambda e: e["f1"], default=None)
    where = f" (epoch {best['epoch'] + 1}, example {best['example']:,})" if best else ""
    measure = "frame accuracy" if record.get("stage") == "frameid" else "labeled F1"  # frameid: P = R = F1
    dev = f"{measure} {record['best_dev']:.4f}{where}" if record.get("best_dev") is not None else "n/a"
    return rule, ended, dev


def _semafor(record: dict[str, Any]) -> tuple[str, str, str]:
    settings = record.get("settings", {})
    rule = (f"L-BFGS, lambda {settings.get('lambda')}: at most {settings.get('max_iterations')} iterations or "
            "convergence")
    ended = f"{record.get('stopped')} at iteration {record.get('iterations')}"
    if objective := record.get("objective"):
        ended += f"; objective {objective['first']:,.1f} -> {objective['last']:,.1f}"
    return rule, ended, "n/a (SEMAFOR evaluates nothing on dev)"


def _simpleframeid(record: dict[str, Any]) -> tuple[str, str, str]:
    setting = f"{record.get('classifier')}+{record.get('context')}"
    if record.get("epochs"):
        rule = (f"{setting}: {record['epochs']} epochs, {record.get('components')} components, "
                f"{record.get('max_sampled')} sampled negatives; seed {record.get('seed')}")
    else:
        rule = f"{setting}: 100 epochs (fixed in upstream's MLP); seed {record.get('seed')}"
    resumed = record.get("resumed_after_epochs") or []
    ended = "all epochs" + (f" (resumed after epoch {', '.join(map(str, resumed))})" if resumed else "")
    return rule, ended, "n/a (not recorded)"


DESCRIBE: dict[str, Callable[[dict[str, Any]], tuple[str, str, str]]] = {
    "open-sesame": _open_sesame, "semafor": _semafor, "simpleframeid": _simpleframeid}


def training_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """One row per finished training (:data:`HEAD`)."""
    rows = []
    for path, record in (manifest.get("trainings") or {}).items():
        describe = DESCRIBE.get(record["parser"])
        rule, ended, dev = describe(record) if describe else ("see manifest.json", "n/a", "n/a")
        digest = record.get("model_sha256")
        where = f"{path} (copied by --models-from: trained in another run)" if record.get("copied") else path
        rows.append([where, record["parser"], rule, ended, str(record.get("attempts", "n/a")), dev,
                     digest[:12] if digest else "n/a"])
    return rows


def curve_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """Every dev evaluation of every training that recorded them (:data:`CURVE_HEAD`)."""
    return [[path, str(e["epoch"] + 1), f"{e['example']:,}", f"{e['precision']:.4f}", f"{e['recall']:.4f}",
             f"{e['f1']:.4f}"]
            for path, record in (manifest.get("trainings") or {}).items() for e in record.get("dev_curve") or []]


def markdown(manifest: dict[str, Any]) -> list[str]:
    """The README's section (none without a finished training)."""
    rows = training_rows(manifest)
    if not rows:
        return []
    out = ["", "## Training of the external parsers", "", CAPTION, *md_table(HEAD, rows)]
    if curve := curve_rows(manifest):
        out += ["", CURVE_CAPTION, *md_table(CURVE_HEAD, curve)]
    return out


def _chart(manifest: dict[str, Any]) -> str:
    """Dev labeled F1 at each evaluation, one bar per evaluation, grouped by model."""
    groups = [(f"{path.rsplit('/', 1)[-1]} e{e['epoch'] + 1} ex {e['example']:,}",
               [Mark("F1", e["f1"], tooltip=f"{path}: epoch {e['epoch'] + 1}, example {e['example']:,}: labeled "
                     f"P {e['precision']:.4f}, R {e['recall']:.4f}, F1 {e['f1']:.4f}")])
              for path, record in (manifest.get("trainings") or {}).items() for e in record.get("dev_curve") or []]
    return bar_chart("Open-SESAME's labeled F1 on dev during training (its own count)", "labeled F1",
                     "model, epoch, example", groups, {"F1": "#4a7ab5"})


def html_parts(manifest: dict[str, Any], table: Callable[[Sequence[str], Sequence[Sequence[str]], str], str]) -> list[str]:
    """The page's section; ``table(head, rows, id)`` renders an escaped table."""
    rows = training_rows(manifest)
    if not rows:
        return []
    out = ["<h2>Training of the external parsers</h2>", f"<p>{prose(CAPTION)}</p>", table(HEAD, rows, "trainings")]
    if curve := curve_rows(manifest):
        out += [f"<p>{prose(CURVE_CAPTION)}</p>", table(CURVE_HEAD, curve, "dev-curve"), _chart(manifest)]
    return out
