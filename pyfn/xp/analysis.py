"""The report sections of an experiment's ``[scoring] analysis``: systems under every protocol, error analysis.

Rows come from the manifest alone (``protocols`` and ``breakdowns``, written
by :mod:`pyfn.xp.manifest`); an experiment recorded without them shows neither.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

from pyfn.scoring.breakdown import BUCKETS, CORENESS

PROTOCOLS_CAPTION = (
    "Each protocol re-implements a published evaluation (docs/PROTOCOLS.md); each cell is the system's F1 and, in "
    "brackets, its competition rank (equal F1, equal rank). The last column says whether the protocol ranks the "
    "systems as `semeval07` (the default SemEval-2007 score) does; a tie where `semeval07` separates two systems is "
    "another ranking. A system is scored on what it predicts: the FEs a frame identifier does not predict are missed."
)
BREAKDOWN_CAPTION = (
    "`pyfn score --breakdown` (docs/BREAKDOWN.md) on each system's predictions, as its task is scored: frames for "
    "frame identification (accuracy by the number of train annotation sets of the gold target's LU, in the train "
    "JSONL), arguments for argument identification (exact spans, no partial credit; P/R/F1 by the coreness the "
    "frame gives the FE)."
)


def protocol_head(manifest: dict[str, Any]) -> list[str]:
    """``protocol, measure, SYSTEM..., same ranking as semeval07``."""
    rows = manifest["protocols"]["rows"]
    return ["protocol", "measure", *rows[0]["f1"], "same ranking as semeval07"]


def protocol_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """Per protocol measure: each system's ``F1 (rank)`` and ``yes`` / ``NO``."""
    return [[row["protocol"], row["measure"], *(f"{f1:.4f} ({row['rank'][name]})" for name, f1 in row["f1"].items()),
             "yes" if row["same_ranking"] else "NO"] for row in manifest["protocols"]["rows"]]


def _with(manifest: dict[str, Any], part: str) -> list[tuple[str, dict[str, Any]]]:
    return [(name, b[part]) for name, b in manifest["breakdowns"].items() if b[part] is not None]


def _acc(acc: dict[str, Any]) -> str:
    return f"{acc['accuracy']:.4f} ({acc['correct']}/{acc['n']})" if acc["n"] else "n/a"


BUCKET_HEAD = ["system", "all targets", *(f"LU seen {name}x" if name != "0" else "LU unseen (0)" for name, _, _ in BUCKETS)]


def bucket_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """Per frame-identifying system: accuracy in total and per LU-frequency bucket (n/a without buckets)."""
    out = []
    for name, frames in _with(manifest, "frames"):
        buckets = (frames["lu_frequency"] or {}).get("buckets") or []
        cells = [_acc(b) for b in buckets] or ["n/a"] * len(BUCKETS)
        out.append([name, _acc(frames["total"]), *cells])
    return out


def confusion_rows(manifest: dict[str, Any], top: int = 5) -> list[list[str]]:
    """Per frame-identifying system: its ``top`` gold -> predicted confusions with counts."""
    return [[name, "; ".join(f"{c['gold']} -> {c['pred']} ({c['count']})" for c in frames["confusions"][:top]) or "none"]
            for name, frames in _with(manifest, "frames")]


CORENESS_HEAD = ["system", "all FEs", *CORENESS]


def coreness_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """Per argument-identifying system: F1 (P, R) in total and per coreness."""
    def cell(c: dict[str, Any]) -> str:
        if not c["tp"] + c["fp"] + c["fn"]:
            return "n/a"
        return f"{c['f1']:.4f} (P {c['precision']:.4f}, R {c['recall']:.4f}; gold {c['tp'] + c['fn']})"

    return [[name, cell(args["total"]), *(cell(c) for c in args["per_coreness"])]
            for name, args in _with(manifest, "arguments")]


def worst_fe_rows(manifest: dict[str, Any], top: int = 5) -> list[list[str]]:
    """Per argument-identifying system: its ``top`` FEs of lowest F1 (with enough gold labels)."""
    return [[name, "; ".join(f"{fe['frame']}.{fe['fe']} ({fe['coreness']}) {fe['f1']:.4f} of {fe['tp'] + fe['fn']} gold"
                             for fe in args["worst_fes"][:top]) or "none"]
            for name, args in _with(manifest, "arguments")]


PAGE_HEAD = ["system", "mode", "sentences with an error", "page", "signature"]


def page_rows(manifest: dict[str, Any]) -> list[list[str]]:
    """Per system: what was analysed, how many gold sentences have an error, its page and its signature."""
    return [[name, b["mode"], f"{b['sentences']['wrong']} of {b['sentences']['gold']}", b["html"], b["signature"]]
            for name, b in manifest["breakdowns"].items()]


def markdown(manifest: dict[str, Any]) -> list[str]:
    """The README's analysis sections (none when the manifest has no analysis)."""
    out: list[str] = []
    if manifest.get("protocols"):
        out += ["", f"## Every system under every protocol ({manifest['protocols']['split']})", "", PROTOCOLS_CAPTION,
                *md_table(protocol_head(manifest), protocol_rows(manifest))]
    if manifest.get("breakdowns"):
        split = next(iter(manifest["breakdowns"].values()))["split"]
        out += ["", f"## Error analysis ({split})", "", BREAKDOWN_CAPTION]
        if bucket_rows(manifest):
            out += ["", "Frame-identification accuracy by the LU's count in train:",
                    *md_table(BUCKET_HEAD, bucket_rows(manifest)),
                    "", "Most confused frames (gold -> predicted, count), top 5:",
                    *md_table(["system", "confusions"], confusion_rows(manifest))]
        if coreness_rows(manifest):
            out += ["", "Arguments: F1 (P, R; gold labels) by coreness:", *md_table(CORENESS_HEAD, coreness_rows(manifest)),
                    "", "Worst FEs (lowest F1 of those with at least 5 gold labels), top 5:",
                    *md_table(["system", "FEs"], worst_fe_rows(manifest))]
        out += ["", "Every sentence with an error, gold beside predicted with target and FE spans highlighted, is in "
                "the system's page (written by the run under `work/`, which is not committed):",
                *md_table(PAGE_HEAD, [[*r[:3], f"`{r[3]}`", f"`{r[4]}`"] for r in page_rows(manifest)])]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table, ``|`` in cells escaped, after a blank line."""
    return ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)]


def prose(text: str) -> str:
    """Escaped text with its `code` spans as ``<code>``."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(text))


def html_parts(manifest: dict[str, Any], table: Callable[[Sequence[str], Sequence[Sequence[str]], str], str]) -> list[str]:
    """The page's analysis sections; ``table(head, rows, id)`` renders an escaped table."""
    esc = html.escape
    out: list[str] = []
    if manifest.get("protocols"):
        out += [f"<h2>Every system under every protocol ({esc(manifest['protocols']['split'])})</h2>",
                f"<p>{prose(PROTOCOLS_CAPTION)}</p>", table(protocol_head(manifest), protocol_rows(manifest), "protocols")]
    if manifest.get("breakdowns"):
        split = next(iter(manifest["breakdowns"].values()))["split"]
        out += [f"<h2>Error analysis ({esc(split)})</h2>", f"<p>{prose(BREAKDOWN_CAPTION)}</p>"]
        if bucket_rows(manifest):
            out += ["<h3>Frame identification by the LU's count in train</h3>",
                    table(BUCKET_HEAD, bucket_rows(manifest), "breakdown-buckets"),
                    "<h3>Most confused frames (gold -&gt; predicted, count), top 5</h3>",
                    table(["system", "confusions"], confusion_rows(manifest), "breakdown-confusions")]
        if coreness_rows(manifest):
            out += ["<h3>Arguments by coreness: F1 (P, R; gold labels)</h3>",
                    table(CORENESS_HEAD, coreness_rows(manifest), "breakdown-coreness"),
                    "<h3>Worst FEs (lowest F1 of those with at least 5 gold labels), top 5</h3>",
                    table(["system", "FEs"], worst_fe_rows(manifest), "breakdown-fes")]
        out.append("<h3>Sentences with an error</h3><p>Each system's page shows every sentence with an error, gold "
                   "beside predicted with target and FE spans highlighted; it is written by the run under "
                   "<code>work/</code>, which is not committed (run the experiment to open it).</p><ul>")
        out += [f'<li><a href="{esc(r[3], quote=True)}">{esc(r[0])}</a> ({esc(r[1])}): {esc(r[2])} gold sentences '
                f"with an error; <code>{esc(r[4])}</code></li>" for r in page_rows(manifest)]
        out.append("</ul>")
    return out
