"""An experiment's ``README.md`` and ``report.html``, generated from its recipe and manifest."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from pyfn.xp.charts import Mark, bar_chart
from pyfn.xp.recipe import Recipe
from pyfn.xp.steps import Layout, steps
from pyfn.xp import analysis as sections, training_section, variants
from pyfn.xp.study import SAMPLES, figure, summary_lines
from pyfn.xp.variants import extra_steps

MODE_NAMES = {
    "argsonly": "arguments given gold frames (SemEval-2007, argsonly)",
    "semeval": "frames + arguments (SemEval-2007)",
}


def _split(recipe: Recipe) -> str:
    return recipe.split if recipe.split == "standard" else f"{recipe.split} (seed {recipe.seed})"


def settings(recipe: Recipe, manifest: dict[str, Any]) -> list[tuple[str, str]]:
    """The settings table: every choice that shaped the data and the scores."""
    data = manifest.get("data", {})
    pre = data.get("preprocessing") or {}
    fingerprint = manifest["inputs"]["framenet"].get("fingerprint") or "not run yet"
    frames = {("frameid", "gold"): "predicted frames, gold targets", ("args", "gold"): "gold frames and targets",
              ("full", "gold"): "predicted frames and arguments, gold targets",
              ("full", "predicted"): "predicted targets and frames"}
    given = sorted({(s.task, s.targets) for s in recipe.systems})
    preprocessing = "none"
    if recipe.preprocess:
        preprocessing = recipe.preprocess
        if pre.get("model_package"):
            preprocessing += f" {pre['model_package']} {pre.get('model_version', '')} (spaCy {pre.get('spacy_version', '?')})"
    return [
        ("FrameNet", f"{recipe.framenet_version} (release fingerprint {fingerprint[:16]}...)"),
        ("split", _split(recipe)),
        ("training data", "fulltext + exemplars" if recipe.exemplars else "fulltext only"),
        ("frames", "; ".join(frames[g] for g in given) or "-"),
        ("train filters", ", ".join(recipe.filters) or "none"),
        ("excluded frames", ", ".join(str(i) for i in recipe.exclude_frames) or "none"),
        ("preprocessing", preprocessing),
        ("data signature", f"`{data.get('signature') or 'not run yet'}`"),
    ]


FRAMEID_COLUMNS = (("total", "accuracy (total)"), ("ambiguous", "ambiguous"), ("no_lex", "no-lex"))
"""The three frame-identification accuracies: key in the score file, column title."""
COLOURS = {"accuracy (total)": "#4a7ab5", "ambiguous": "#e08a2c", "no-lex": "#6a9f58"}
DATA_MEASURES = [
    ("removed", "annotation sets removed while building the split (invalid, overlapping dev/test, duplicates), "
     "totalled from the removal ledger; manifest.json counts them by reason"),
    ("signature", "names the data or the scorer, the lexicon and the pyfn version: two numbers are comparable only "
     "when their signatures agree"),
]
FRAMEID_MEASURES = [
    ("accuracy (total)", "frame identification with gold targets: the share of gold targets given their gold frame"),
    ("ambiguous", "the same accuracy on targets whose lexical unit has several frames in the train-only lexicon"),
    ("no-lex", "the same accuracy on targets whose lexical unit is absent from the train-only lexicon"),
    ("[low, high] (correct/n)", "the 95% Wilson score interval of an accuracy (drawn as a whisker) and its counts"),
    ("n/a", "no target of that kind in the split (0 of 0): the accuracy is undefined"),
]
F1_MEASURES = [
    ("P, R, F1", "precision, recall and their harmonic mean, counted by the SemEval-2007 scorer (partial credit "
     "through frame relations unless --exact); the mode says what is scored. No interval is recorded "
     "(pyfn compare bootstraps one)"),
]
"""What each term of the report means (data, frame identification, SemEval-scorer scores)."""


def _accuracy(acc: dict[str, Any]) -> str:
    """``0.7809 [0.7680, 0.7933] (3239/4148)``: accuracy, 95% Wilson interval, counts; ``n/a`` without a target."""
    if not acc["n"]:
        return "n/a"
    return f"{acc['accuracy']:.4f} [{acc['wilson_low']:.4f}, {acc['wilson_high']:.4f}] ({acc['correct']}/{acc['n']})"


def _scores(manifest: dict[str, Any], frameid: bool) -> list[tuple[str, str, str, dict[str, Any]]]:
    """``(system, split, mode, result)`` of every frame-identification score, or of every other score."""
    return [(system, split, mode, result)
            for system, by_split in manifest.get("scores", {}).items()
            for split, by_mode in by_split.items()
            for mode, result in by_mode.items() if (mode == "frameid") == frameid]


def frameid_rows(manifest: dict[str, Any]) -> list[tuple[str, ...]]:
    """``(system, split, total, ambiguous, no-lex, signature)`` for every frame-identification score."""
    return [(system, split, *(_accuracy(result[key]) for key, _ in FRAMEID_COLUMNS), result["signature"])
            for system, split, _, result in _scores(manifest, frameid=True)]


def f1_rows(manifest: dict[str, Any]) -> list[tuple[str, ...]]:
    """``(system, split, mode, P, R, F1, signature)`` for every SemEval-scorer score."""
    return [(system, split, mode, f"{result['precision']:.4f}", f"{result['recall']:.4f}", f"{result['f1']:.4f}",
             result["signature"]) for system, split, mode, result in _scores(manifest, frameid=False)]


def data_rows(manifest: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(split, sentences, annotation sets, removed)`` of every split built (n/a before a run)."""
    data = manifest.get("data", {})
    ledger = data.get("ledger") or {}
    rows = [(name, f"{c['sentences']:,}", f"{c['annotation_sets']:,}", f"{sum(ledger.get(name, {}).values()):,}")
            for name, c in (data.get("splits") or {}).items()]
    return rows or [("n/a", "n/a", "n/a", "n/a")]


def ranking_rows(manifest: dict[str, Any]) -> list[tuple[str, ...]]:
    """``(task, ranking, pairs)``: per task, the systems best first and each pair's test (p with Holm)."""
    result = manifest.get("ranking") or {}
    rows = []
    for task, order in result.get("ranking", {}).items():
        pairs = [f"{p['b']} - {p['a']}: {p['delta']:+.4f}, {p['test']} p = {p['p']:.3g} (Holm {p['p_holm']:.3g})"
                 for p in result.get("pairs", []) if p["a"] in order and p["b"] in order]
        scores = result.get("scores", {})
        rows.append((task, " > ".join(f"{name} {scores[name]:.4f}" for name in order), "; ".join(pairs) or "n/a"))
    return rows


PAIR_TESTS = {"frameid": "McNemar's mid-p on the paired frame-identification decisions",
              "args": f"approximate randomization on F1 ({SAMPLES:,} samples, seed 0)"}


def pair_tests(manifest: dict[str, Any]) -> str:
    """The pairwise tests of the tasks ranked in ``manifest``, in words."""
    return ", ".join(PAIR_TESTS[task] for task in (manifest.get("ranking") or {}).get("ranking", {}))


def own_rows(manifest: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(system, file, numbers)``: what an external parser printed about its own predictions."""
    rows = []
    for system, files in manifest.get("own_evaluations", {}).items():
        for name, numbers in files.items():
            if not numbers:  # a mode in which the parser prints no evaluation (e.g. Open-SESAME's predict)
                continue
            flat = numbers if "f1" in numbers else {f"{k} {m}": v for k, sub in numbers.items() for m, v in sub.items()}
            rows.append((system, name, ", ".join(f"{k} {v:g}" for k, v in sorted(flat.items()))))
    return rows


ARGS_COLUMNS = (("p", "precision"), ("r", "recall"), ("f1", "f1"))
"""A ``[reference]`` entry's keys for argument identification (P / R / F1 in %) and the score fields they match."""


def reference_rows(recipe: Recipe, manifest: dict[str, Any]) -> list[tuple[str, ...]]:
    """``(system, what, published numbers, measured ones, headline difference)`` for every system the recipe's
    ``[reference]`` table names: frame identification (``total``/``ambiguous``/``no_lex`` accuracy, the headline
    ``total``) or argument identification given gold frames (``p``/``r``/``f1``, scored ``argsonly``, the
    headline F1). Numbers in %, ``-`` where the reference gives none; measured on the last scored split. An
    entry's ``note`` (the published setting) follows its numbers."""
    reference = recipe.raw.get("reference") or {}
    split = recipe.score_splits[-1]
    rows = []
    for system, published in reference.items():
        if not isinstance(published, dict):
            continue
        scores = manifest.get("scores", {}).get(system, {}).get(split, {})
        if "f1" in published:
            what, head, columns = "P / R / F1 (args)", "f1", ARGS_COLUMNS
            measured = scores.get("argsonly")
            ours = [100 * measured[field] for _, field in columns] if measured else None
        else:
            what, head, columns = "total / ambiguous / no-lex accuracy", "total", FRAMEID_COLUMNS
            measured = scores.get("frameid")
            ours = [100 * measured[key]["accuracy"] for key, _ in columns] if measured else None
        paper = [f"{published[key]:.1f}" if key in published else "-" for key, _ in columns]
        note = f" ({published['note']})" if published.get("note") else ""
        rows.append((system, what, " / ".join(paper) + note,
                     " / ".join(f"{v:.1f}" for v in ours) if ours else "not run",
                     _difference(ours[-1 if head == 'f1' else 0] - published[head]) if ours and head in published
                     else "n/a"))
    return rows


def _difference(points: float) -> str:
    """A difference in points, signed, to one decimal; ``0.0`` when it rounds to zero (never ``-0.0``)."""
    text = f"{points:+.1f}"
    return "0.0" if float(text) == 0 else text


def unfinished_note(manifest: dict[str, Any]) -> str:
    """Which predictions came from a model whose training had not finished (``unfinished_models``)."""
    found = "; ".join(f"{m['system']} {m['file'].split('.')[0]} (model {m['model']}, sha256 {str(m['model_sha256'])[:12]})"
                      for m in manifest["unfinished_models"])
    return (f"These predictions were decoded with a model whose training had not finished: {found}. Let the "
            "training finish, then decode, score and report again.")


REFERENCE_HEAD = ("system", "numbers", "published", "measured", "measured minus published")


def reference_caption(recipe: Recipe) -> str:
    """What the table of :func:`reference_rows` shows, and where its published numbers come from."""
    source = recipe.raw["reference"].get("source", "the recipe's [reference] table")
    return (f"In % on {recipe.score_splits[-1]}, published ({source}; see experiment.toml) and measured here: "
            "frame-identification accuracy, or argument identification given gold frames scored `argsonly`. "
            "The difference is that of the headline number (total accuracy, or F1).")


def _cell(text: str) -> str:
    """A Markdown table cell: ``|`` escaped (signatures are ``|``-separated)."""
    return text.replace("|", "\\|")


def readme(recipe: Recipe, layout: Layout, manifest: dict[str, Any]) -> str:
    """The experiment's README: purpose, settings, data counts, exact commands, scores, how to rerun."""
    folder = layout.folder
    out = [f"# Experiment {recipe.number}: {recipe.title}", "", recipe.purpose, "",
           "Generated by `pyfn xp report` from `experiment.toml` and `manifest.json`; do not edit.", "",
           "## Settings", "", "| setting | value |", "|---|---|"]
    out += [f"| {k} | {_cell(v)} |" for k, v in settings(recipe, manifest)]
    if manifest.get("data", {}).get("splits"):
        out += ["", "## Data", "", "| split | sentences | annotation sets | removed (by reason in manifest.json) |",
                "|---|---|---|---|"]
        out += [f"| {' | '.join(row)} |" for row in data_rows(manifest)]
    if not manifest["outputs"]:
        out += ["", "## Status", "", "Not run: no step has produced data on the machine that wrote this README, so "
                "nothing is recorded (no manifest.json) and `pyfn verify` reports it as not run."]
    out += ["", "## Commands", "", "Run from the repository root (`scripts/" + folder.name + ".sh` runs them all):",
            "", "```sh"]
    for step in [*steps(recipe, layout), *extra_steps(recipe, layout.folder)]:
        out.append(f"# {step.name}")
        out += step.lines()
    out += ["```"]
    external = [s for s in recipe.systems if s.external]
    for system in external:
        out += ["", f"`{system.name}` is an external parser: set `{system.home}` to its installation "
                f"({system.install or 'see its README'}). Without it the script stops at `train:{system.name}`; "
                f"given its predictions, `pyfn xp run {recipe.number} --step score --system {system.name} "
                f"--predictions DIR` imports and scores them."]
    fid, f1 = frameid_rows(manifest), f1_rows(manifest)
    out += ["", "## Scores", ""]
    if manifest.get("study"):
        out += ["Standard split:", ""]
    if fid:
        out += ["Frame identification (gold targets): accuracy [95% Wilson interval] (correct/targets), in total, on "
                "ambiguous targets (LUs with several frames in the train lexicon) and on no-lex targets (LUs absent "
                "from it); n/a: no such target.", "",
                "| system | split | accuracy (total) | ambiguous | no-lex | signature |", "|---|---|---|---|---|---|"]
        out += [f"| {' | '.join(r[:5])} | `{_cell(r[5])}` |" for r in fid]
    if f1:
        out += [*([""] if fid else []), "| system | split | mode | P | R | F1 | signature |",
                "|---|---|---|---|---|---|---|"]
        out += [f"| {' | '.join(r[:6])} | `{_cell(r[6])}` |" for r in f1]
        out += ["", "Modes: " + "; ".join(f"`{m}`: {MODE_NAMES[m]}" for m in sorted({r[2] for r in f1})) + "."]
    if not fid and not f1:
        out.append("No scores yet: run the experiment.")
    if manifest.get("unfinished_models"):
        out += ["", f"**Not a final result.** {unfinished_note(manifest)}"]
    if ranking_rows(manifest):
        out += ["", f"## Ranking on {recipe.score_splits[-1]}", "", f"Pairwise tests: {pair_tests(manifest)}; Holm's "
                "correction over the pairs of a task.", "", "| task | ranking | pairs (later minus earlier) |",
                "|---|---|---|"]
        out += [f"| {' | '.join(_cell(c) for c in row)} |" for row in ranking_rows(manifest)]
    if reference_rows(recipe, manifest):
        out += ["", "## Beside the published numbers", "", _cell(reference_caption(recipe)), "",
                f"| {' | '.join(REFERENCE_HEAD)} |", "|---|---|---|---|---|"]
        out += [f"| {' | '.join(_cell(c) for c in row)} |" for row in reference_rows(recipe, manifest)]
    if own_rows(manifest):
        out += ["", "## The parsers' own evaluation", "", "What each external parser printed about the same "
                "predictions pyfn scored above (its own counting: see pyfn's README for how it differs).", "",
                "| system | file | numbers |", "|---|---|---|"]
        out += [f"| {' | '.join(_cell(c) for c in row)} |" for row in own_rows(manifest)]
    out += training_section.markdown(manifest)
    out += sections.markdown(manifest)
    if manifest.get("study"):
        out += ["", "## Ranking stability over drawn splits", "", *summary_lines(manifest["study"]), "",
                "`report.html` plots each system's score on every drawn split against the standard split."]
    if manifest.get("variants"):
        out += ["", "## Data-processing variants", "", *variants.summary_lines(manifest["variants"])]
    out += ["", "## Rerun and verify", "", "```sh",
            f"bash scripts/{folder.name}.sh            # end to end from a fresh clone, then compared with manifest.json",
            f"pyfn xp run {recipe.number} --step score    # one step again",
            f"pyfn verify {folder}          # re-hash inputs and outputs against manifest.json",
            f"pyfn verify {folder} --rerun  # regenerate in a temporary folder, compare byte for byte",
            f"pyfn xp report {recipe.number}              # (authors) record this run as the experiment's result",
            "```", "", "`manifest.json` records every option, the versions of Python, pyfn and every library that "
            "touched the data, the sha256 of the FrameNet source and of every output, the counts and removal ledger "
            "and every score with its signature. `report.html` shows the same as a page.", ""]
    return "\n".join(out)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], ident: str) -> str:
    """An HTML table whose last column, a signature, is code."""
    return _plain_table(head, rows, ident, code_last=True)


def _plain_table(head: Sequence[str], rows: Sequence[Sequence[str]], ident: str, code_last: bool = False) -> str:
    """An HTML table of text cells (the last one as code with ``code_last``)."""
    esc = html.escape

    def cell(i: int, text: str) -> str:
        return f"<td><code>{esc(text)}</code></td>" if code_last and i == len(head) - 1 else f"<td>{esc(text)}</td>"

    body = ["<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>" for row in rows]
    return (f'<table id="{ident}"><thead><tr>' + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(body) + "</tbody></table>")


def _data_table(recipe: Recipe, manifest: dict[str, Any]) -> str:
    """Release, split definition, per-split counts and removals, data signature: one table."""
    esc = html.escape
    data = manifest.get("data", {})
    rows = data_rows(manifest)
    fingerprint = manifest["inputs"]["framenet"].get("fingerprint")
    release = f"FrameNet {recipe.framenet_version}"
    span = f' rowspan="{len(rows)}"'
    out = ['<table id="data"><thead><tr><th>release</th><th>split definition</th><th>split</th><th>sentences</th>'
           "<th>annotation sets</th><th>removed (ledger total)</th><th>signature</th></tr></thead><tbody>"]
    for i, row in enumerate(rows):
        cells = "".join(f"<td>{esc(c)}</td>" for c in row)
        if i == 0:
            title = f' title="release fingerprint {esc(fingerprint)}"' if fingerprint else ""
            cells = (f"<td{span}{title}>{esc(release)}</td><td{span}>{esc(_split(recipe))}</td>{cells}"
                     f"<td{span}><code>{esc(data.get('signature') or 'n/a (not run)')}</code></td>")
        out.append(f"<tr>{cells}</tr>")
    return "".join(out) + "</tbody></table>"


def _frameid_chart(manifest: dict[str, Any]) -> str:
    """Per system and split, the three frame-identification accuracies as bars with Wilson whiskers."""
    groups = []
    for system, split, _, result in _scores(manifest, frameid=True):
        marks = []
        for key, name in FRAMEID_COLUMNS:
            acc = result[key]
            known = acc["n"] > 0
            marks.append(Mark(name, acc["accuracy"] if known else None, acc["wilson_low"] if known else None,
                              acc["wilson_high"] if known else None, f"{system} {split}, {name}: {_accuracy(acc)}"))
        groups.append((f"{system} {split}", marks))
    return bar_chart("Frame-identification accuracy with 95% Wilson intervals",
                     "accuracy (share of gold targets given the gold frame)", "system, split", groups, COLOURS)


def _f1_chart(manifest: dict[str, Any]) -> str:
    """Per system, split and mode, the SemEval scorer's F1 as a bar."""
    groups = [(f"{system} {split} {mode}",
               [Mark("F1", result["f1"], tooltip=f"{system} {split} {mode}: P {result['precision']:.4f}, "
                     f"R {result['recall']:.4f}, F1 {result['f1']:.4f}")])
              for system, split, mode, result in _scores(manifest, frameid=False)]
    return bar_chart("F1 of the SemEval-2007 scorer (no interval recorded)", "F1",
                     "system, split, mode", groups, {"F1": "#4a7ab5"})


def page(recipe: Recipe, layout: Layout, manifest: dict[str, Any]) -> str:
    """``report.html``: data table, settings, score tables and charts, what the measures mean, commands and
    versions; self-contained."""
    esc = html.escape
    fid, f1 = frameid_rows(manifest), f1_rows(manifest)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Experiment {esc(recipe.number)}: {esc(recipe.title)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse;"
        "margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}"
        "code,pre{background:#f4f4f4}pre,td code{white-space:pre-wrap;overflow-wrap:anywhere}svg.chart{display:block;"
        "margin:1em 0}dt{font-weight:bold}</style>",
        "</head><body>", f"<h1>Experiment {esc(recipe.number)}: {esc(recipe.title)}</h1>", f"<p>{esc(recipe.purpose)}</p>",
        "<h2>Data</h2>", _data_table(recipe, manifest), "<h2>Settings</h2><table>",
    ]
    parts += [f"<tr><th>{esc(k)}</th><td>{esc(v.strip('`'))}</td></tr>" for k, v in settings(recipe, manifest)]
    parts += ["</table>", "<h2>Scores</h2>"]
    if manifest.get("study"):
        parts.append("<p>Standard split:</p>")
    if fid:
        parts += ["<h3>Frame identification</h3>",
                  _table(["system", "split", *(name for _, name in FRAMEID_COLUMNS), "signature"], fid, "frameid"),
                  _frameid_chart(manifest)]
    if f1:
        parts += ["<h3>Frames and arguments</h3>",
                  _table(["system", "split", "mode", "P", "R", "F1", "signature"], f1, "f1"),
                  "<p>Modes: " + "; ".join(f"<code>{m}</code>: {esc(MODE_NAMES[m])}" for m in sorted({r[2] for r in f1}))
                  + ".</p>", _f1_chart(manifest)]
    if not fid and not f1:
        parts.append("<p>No scores yet.</p>")
    if manifest.get("unfinished_models"):
        parts.append(f'<p id="unfinished"><strong>Not a final result.</strong> {esc(unfinished_note(manifest))}</p>')
    if ranking_rows(manifest):
        parts += [f"<h2>Ranking on {esc(recipe.score_splits[-1])}</h2>",
                  _plain_table(["task", "ranking", "pairs (later minus earlier)"], ranking_rows(manifest), "ranking")]
    if reference_rows(recipe, manifest):
        parts += ["<h2>Beside the published numbers</h2>", f"<p>{esc(reference_caption(recipe))}</p>",
                  _plain_table(REFERENCE_HEAD, reference_rows(recipe, manifest), "published")]
    if own_rows(manifest):
        parts += ["<h2>The parsers' own evaluation</h2>",
                  _plain_table(["system", "file", "numbers"], own_rows(manifest), "own-evaluation")]
    parts += training_section.html_parts(manifest, _plain_table)
    parts += sections.html_parts(manifest, _plain_table)
    if manifest.get("study"):
        lines = "\n".join(summary_lines(manifest["study"]))
        parts += ["<h2>Ranking stability over drawn splits</h2>", figure(manifest["study"]),
                  f"<pre>{esc(lines)}</pre>"]
    if manifest.get("variants"):
        analysis = manifest["variants"]
        parts += ["<h2>Data-processing variants</h2>", f"<p>{esc(variants.caption(analysis))}</p>",
                  _plain_table(variants.SYSTEM_HEAD, variants.system_rows(analysis), "variants"),
                  _plain_table(variants.RANKING_HEAD, variants.ranking_rows(analysis), "variant-rankings")]
    parts += ['<h2>What the measures mean</h2><dl id="measures">']
    measures = DATA_MEASURES + (FRAMEID_MEASURES if fid else []) + (F1_MEASURES if f1 else [])
    parts += [f"<dt>{esc(term)}</dt><dd>{esc(meaning)}</dd>" for term, meaning in measures]
    parts += ["</dl>", "<h2>Commands</h2><pre>"]
    for step in [*steps(recipe, layout), *extra_steps(recipe, layout.folder)]:
        parts.append(esc(f"# {step.name}"))
        parts += [esc(line) for line in step.lines()]
    parts += ["</pre>", "<h2>Versions</h2><table>"]
    parts += [f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>" for k, v in manifest.get("versions", {}).items()]
    parts += ["</table>", "</body></html>", ""]
    return "\n".join(parts)
