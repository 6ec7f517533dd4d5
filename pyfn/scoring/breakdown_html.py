"""The error analysis of :mod:`pyfn.scoring.breakdown` as one self-contained HTML page.

Every text of the input (sentences, frame, LU and FE names, file names) is
escaped; the page loads nothing (no script, no external style or font) and is
byte-identical for the same breakdown object.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

PALETTE = 6
"""FE colour classes ``c0``..``c5``, given to a set's FE labels in label order."""

STYLE = (
    "body{font-family:sans-serif;max-width:72em;margin:2em auto}table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}td.n{text-align:right}"
    "mark.t{background:#ffe36e;font-weight:bold}span.fe{border-bottom:3px solid;padding-bottom:1px}"
    "span.fe sub{font-size:70%;color:#555}span.bad{background:#f5a9a9}td.bad{background:#fdf0f0}"
    "span.fe.c0{border-color:#4a7ab5}span.fe.c1{border-color:#e08a2c}span.fe.c2{border-color:#6a9f58}"
    "span.fe.c3{border-color:#b55a9f}span.fe.c4{border-color:#8c6d3f}span.fe.c5{border-color:#3fa7a0}"
    "section.s{margin:1em 0;border-top:1px solid #ddd}"
    "p.frame{margin:.2em 0;font-size:90%}"
)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], numeric_from: int) -> str:
    """A table of escaped cells; columns from ``numeric_from`` on are right-aligned numbers."""
    def cell(i: int, value: object) -> str:
        text = f"{value:.4f}" if isinstance(value, float) else str(value)
        return f'<td class="n">{_e(text)}</td>' if i >= numeric_from else f"<td>{_e(text)}</td>"

    body = "".join("<tr>" + "".join(cell(i, v) for i, v in enumerate(row)) + "</tr>" for row in rows)
    return "<table><thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + f"</tr></thead><tbody>{body}</tbody></table>"


def highlighted(text: str, view: Mapping[str, Any]) -> str:
    """The sentence with the set's target characters marked and each FE label underlined in its colour,
    its name after it; an FE label that is not matched is shaded. Overlapping labels nest per segment."""
    target = {i for start, end in view["target"] for i in range(start, end + 1)}
    fes = view["fes"]
    cuts = {0, len(text)}
    for start, end in view["target"]:
        cuts |= {start, end + 1}
    for fe in fes:
        cuts |= {fe["start"], fe["end"] + 1}
    points = sorted(c for c in cuts if 0 <= c <= len(text))
    out = []
    for a, b in zip(points, points[1:]):
        piece = _e(text[a:b])
        if a in target:
            piece = f'<mark class="t">{piece}</mark>'
        for k, fe in enumerate(fes):
            if fe["start"] <= a and b - 1 <= fe["end"]:
                bad = " bad" if fe["ok"] is False else ""
                name = f"<sub>{_e(fe['fe'])}</sub>" if b - 1 == fe["end"] else ""
                piece = f'<span class="fe c{k % PALETTE}{bad}" title="{_e(fe["fe"])}">{piece}{name}</span>'
        out.append(piece)
    return "".join(out)


def _set_cell(text: str, view: Mapping[str, Any] | None, wrong: bool) -> str:
    if view is None:
        return '<td class="bad"><em>no set</em></td>'
    cls = ' class="bad"' if wrong else ""
    return (f'<td{cls}><p class="frame"><strong>{_e(view["frame"])}</strong> ({_e(view["lu"])})</p>'
            f"{highlighted(text, view)}</td>")


def _sentence(entry: Mapping[str, Any]) -> str:
    rows = []
    for row in entry["sets"]:
        wrong = row["frame_ok"] is False or row["fes_ok"] is False or row["gold"] is None
        rows.append(f"<tr>{_set_cell(entry['text'], row['gold'], wrong)}"
                    f"{_set_cell(entry['text'], row['pred'], wrong)}</tr>")
    anchor = f"s{entry['index']}"
    return (f'<section class="s" id="{_e(anchor)}"><h3>sentence {_e(entry["index"])} (ID {_e(entry["id"])})</h3>'
            f"<table><thead><tr><th>gold</th><th>predicted</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</section>")


def page(result: Mapping[str, Any], title: str) -> str:
    """The breakdown as an HTML page: summary tables, then every sentence with an error, gold beside predicted."""
    s = result["sentences"]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{_e(title)}</title>",
             f"<style>{STYLE}</style></head><body>", f"<h1>{_e(title)}</h1>",
             f"<p>Mode <code>{_e(result['mode'])}</code>; <code>{_e(result['signature'])}</code>. "
             f"{_e(s['gold'])} gold sentences, {_e(s['wrong'])} with an error; "
             f"{_e(result['unaligned_predicted_sets'])} predicted sets answer no gold target.</p>"]
    frames = result["frames"]
    if frames:
        t = frames["total"]
        parts += ["<h2>Frame identification</h2>",
                  f"<p>Accuracy {t['accuracy']:.4f} ({_e(t['correct'])}/{_e(t['n'])}); "
                  f"{_e(frames['unanswered'])} gold targets without a predicted set.</p>"]
        if frames["lu_frequency"]:
            parts += [f"<h3>By the LU's frequency in train</h3><p>Counted: {_e(frames['lu_frequency']['counted'])}.</p>",
                      _table(["train count", "accuracy", "correct", "targets"],
                             [(b["bucket"], b["accuracy"], b["correct"], b["n"]) for b in frames["lu_frequency"]["buckets"]], 1)]
        parts += ["<h3>Most confused frames (gold &#8594; predicted)</h3>",
                  _table(["gold", "predicted", "count"], [(c["gold"], c["pred"], c["count"]) for c in frames["confusions"][:50]], 2),
                  "<details><summary>Accuracy per gold frame</summary>",
                  _table(["frame", "accuracy", "correct", "targets"],
                         [(f["frame"], f["accuracy"], f["correct"], f["n"]) for f in frames["per_frame"]], 1), "</details>"]
    arguments = result["arguments"]
    if arguments:
        t = arguments["total"]
        prf = ("P", "R", "F1", "tp", "fp", "fn")
        parts += ["<h2>Arguments</h2>",
                  f"<p>P {t['precision']:.4f}, R {t['recall']:.4f}, F1 {t['f1']:.4f} (exact spans, no partial credit).</p>",
                  "<h3>By coreness</h3>",
                  _table(["coreness", *prf], [(c["coreness"], c["precision"], c["recall"], c["f1"], c["tp"], c["fp"], c["fn"])
                                             for c in arguments["per_coreness"]], 1),
                  "<details><summary>Per FE</summary>",
                  _table(["frame", "FE", "coreness", *prf],
                         [(f["frame"], f["fe"], f["coreness"], f["precision"], f["recall"], f["f1"], f["tp"], f["fp"], f["fn"])
                          for f in arguments["per_fe"]], 3), "</details>"]
    wrong = result["wrong_sentences"]
    parts.append(f"<h2>Sentences with an error ({_e(len(wrong))})</h2>")
    parts.append("<p>Target in yellow; each FE underlined in its colour with its name; shaded: not matched "
                 "(a missed gold label, a wrong predicted one); a red cell: a wrong or missing frame or set.</p>")
    if wrong:
        parts.append("<p>" + " ".join(f'<a href="#s{_e(w["index"])}">{_e(w["id"])}</a>' for w in wrong) + "</p>")
    parts += [_sentence(entry) for entry in wrong]
    parts += ["</body></html>", ""]
    return "\n".join(parts)
