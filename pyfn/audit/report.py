"""The audit record (:func:`pyfn.audit.run.audit`) as lines for people."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

TITLES = {
    "exemplar_overlap": "(a) train exemplars whose normalised text is a dev/test sentence",
    "duplicates": "(b) duplicates within a split",
    "cross_split": "(c) normalised texts shared across splits",
    "moved": "(d) ids and texts in other splits of the second set, texts changed",
}
TEXT_WIDTH = 100


def _n(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 3] + "..."


def _side(name: str, side: Mapping[str, Any]) -> str:
    return f"{name}: {_n(side['sentences'])} sentences, {_n(side['annotation_sets'])} annotation sets"


def _pairs(pairs: Mapping[str, Any]) -> Iterator[str]:
    for pair, found in pairs.items():
        a, b = pair.split("-")
        yield f"  {pair}: {found['texts']:,} texts; {_side(a, found[a])}; {_side(b, found[b])}"
        for ex in found["examples"]:
            yield f"    \"{_short(ex['text'])}\"  {a} {', '.join(ex[a])} | {b} {', '.join(ex[b])}"


def _duplicates(splits: Mapping[str, Any]) -> Iterator[str]:
    for name, found in splits.items():
        sents, sets = found["sentences"], found["annotation_sets"]
        line = f"  {name}: {sents['groups']:,} texts under several fulltext sentences (+{sents['extra']:,} sentences)"
        line += "; annotation sets twice: n/a (sentence ids only)" if sets is None else (
            f"; {sets['groups']:,} annotation sets more than once (+{sets['extra']:,} entries)")
        yield line
        for ex in sents["examples"]:
            yield f"    \"{_short(ex['text'])}\"  {', '.join(ex['sentences'])}"
        for ex in (sets or {}).get("examples", []):
            yield f"    \"{_short(ex['text'])}\" {ex['lu']}/{ex['frame']}  {', '.join(ex['annotation_sets'])}"


def _moved(check: Mapping[str, Any]) -> Iterator[str]:
    for kind in ("annotation_sets", "sentences", "normalised_texts"):
        found = check[kind]
        moves = ", ".join(f"{k} {v:,}" for k, v in found["moved"].items()) or "none"
        yield (f"  {kind.replace('_', ' ')}: {found['in_both']:,} in both ({found['only_audited']:,} only audited, "
               f"{found['only_against']:,} only --against); moved: {moves}")
        for move, refs in found["examples"].items():
            shown = [f'"{_short(r)}"' for r in refs] if kind == "normalised_texts" else refs
            yield f"    {move}: {', '.join(shown)}"
    yield f"  sentences whose normalised text changed: {check['changed_texts']:,}"
    for ex in check["changed_examples"]:
        yield f"    {ex['sentence']}: \"{_short(ex['audited'])}\" -> \"{_short(ex['against'])}\""


def lines(result: Mapping[str, Any]) -> Iterator[str]:
    """The report: what was read per split, then each check (verdict, counts, examples), then the verdict."""
    for name, found in result["splits"].items():
        sources = ", ".join(f"{k} {v:,}" for k, v in found["items_by_source"].items())
        yield (f"{name}: {_n(found['annotation_sets'])} annotation sets, {found['sentences']:,} sentences, "
               f"{found['normalised_texts']:,} normalised texts ({sources})")
    for key, check in result["checks"].items():
        verdict = f"not run ({check['why']})" if not check["run"] else "FOUND" if check["found"] else "clean"
        yield f"{TITLES[key]}: {verdict}"
        if not check["run"]:
            continue
        if key == "duplicates":
            yield from _duplicates(check["splits"])
        elif key == "moved":
            yield from _moved(check)
        else:
            yield from _pairs(check["pairs"])
    yield (f"leakage: {'YES' if result['leakage'] else 'none'}; annotation sets twice in a split: "
           f"{'YES' if result['duplicates'] else 'none'}")
