"""The checks of ``pyfn audit`` on items already read (no I/O): leakage and duplicates in a train/dev/test split.

- ``exemplar_overlap`` (a): train exemplar sentences whose normalised text is a dev or test sentence;
- ``duplicates`` (b): within one split, the same normalised text under two fulltext sentences
  (FrameNet repeats some sentences, and SPLITS.md step 6 keeps them), and the same annotation set
  twice (same normalised sentence, target, LU and frame: it is trained on or scored twice);
- ``cross_split`` (c): normalised texts shared by train and dev, train and test, dev and test
  (every source; (a) is its exemplar part);
- ``moved`` (d): ids, and normalised texts, in one split of the audited set and another of a second
  set (another release's split), and sentence ids whose normalised text differs between the two
  (ids are compared as FrameNet ids of the same source: FN 1.7 renumbered FN 1.5's fulltext, so
  across those two releases the texts say more).

Every count is over the items given; examples are the first ``examples`` by normalised text (then id),
so the result is the same for the same items in any order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pyfn.audit.items import Item, Ref, is_framenet, ref_name
from pyfn.splits.hashing import sentence_hash

SCHEMA = "pyfn-audit/1"
SPLITS = ("train", "dev", "test")
PAIRS = (("train", "dev"), ("train", "test"), ("dev", "test"))
LISTED = 5
"""Sentence or annotation-set ids listed per side of an example."""


def _refs(refs: Iterable[Ref]) -> list[str]:
    ordered = sorted(set(refs))
    return [ref_name(r) for r in ordered[:LISTED]] + ([f"... {len(ordered) - LISTED} more"] if len(ordered) > LISTED else [])


def _set_count(hits: Sequence[Item], everything: Sequence[Item]) -> int | None:
    """Annotation sets among ``hits``; None when ``everything`` names sentences only."""
    if not any(it.annoset is not None for it in everything):
        return None
    return sum(it.annoset is not None for it in hits)


def _first_text(items: Iterable[Item]) -> str:
    return min(items, key=lambda it: (it.sentence, it.text)).text


def summary(items: Sequence[Item]) -> dict[str, Any]:
    """Annotation sets, sentences and normalised texts of one split's items, and sets per source."""
    sources: dict[str, int] = defaultdict(int)
    for it in items:
        sources[it.source or "unknown"] += 1
    return {
        "annotation_sets": _set_count(items, items),
        "sentences": len({it.sentence for it in items}),
        "normalised_texts": len({it.normalised for it in items}),
        "items_by_source": dict(sorted(sources.items())),
    }


def overlap(a_name: str, a: Sequence[Item], b_name: str, b: Sequence[Item], examples: int) -> dict[str, Any]:
    """Normalised texts shared by ``a`` and ``b``: how many, the sentences and sets of each side that hold
    one, and examples (the text and the ids on each side)."""
    a_by, b_by = defaultdict(list), defaultdict(list)
    for it in a:
        a_by[it.normalised].append(it)
    for it in b:
        b_by[it.normalised].append(it)
    shared = sorted(a_by.keys() & b_by.keys())
    a_hits = [it for h in shared for it in a_by[h]]
    b_hits = [it for h in shared for it in b_by[h]]
    return {
        "texts": len(shared),
        a_name: {"sentences": len({it.sentence for it in a_hits}), "annotation_sets": _set_count(a_hits, a)},
        b_name: {"sentences": len({it.sentence for it in b_hits}), "annotation_sets": _set_count(b_hits, b)},
        "examples": [
            {"text": _first_text(a_by[h]), a_name: _refs(it.sentence for it in a_by[h]),
             b_name: _refs(it.sentence for it in b_by[h])}
            for h in shared[:examples]
        ],
    }


def _pair_name(a: str, b: str) -> str:
    return f"{a}-{b}"


def exemplar_overlap(splits: Mapping[str, Sequence[Item]], examples: int) -> dict[str, Any]:
    """Check (a): train exemplars against dev and test."""
    exemplars = [it for it in splits.get("train", ()) if it.source == "exemplar"]
    others = [s for s in ("dev", "test") if s in splits]
    if not exemplars or not others:
        why = "no exemplar in train" if "train" in splits else "no train split"
        return {"run": False, "why": why if not exemplars else "no dev or test split", "found": False}
    pairs = {_pair_name("train", s): overlap("train", exemplars, s, splits[s], examples) for s in others}
    return {"run": True, "found": any(p["texts"] for p in pairs.values()), "pairs": pairs}


def cross_split(splits: Mapping[str, Sequence[Item]], examples: int) -> dict[str, Any]:
    """Check (c): every pair of splits given."""
    pairs = {_pair_name(a, b): overlap(a, splits[a], b, splits[b], examples)
             for a, b in PAIRS if a in splits and b in splits}
    if not pairs:
        return {"run": False, "why": "fewer than two splits", "found": False}
    return {"run": True, "found": any(p["texts"] for p in pairs.values()), "pairs": pairs}


def _groups(found: Mapping[str, list], examples: int, describe) -> dict[str, Any]:
    groups = sorted((k, v) for k, v in found.items() if len(v) > 1)
    return {
        "groups": len(groups),
        "extra": sum(len(v) - 1 for _, v in groups),
        "examples": [describe(k, v) for k, v in groups[:examples]],
    }


def duplicates(split: Sequence[Item], examples: int) -> dict[str, Any]:
    """Check (b) in one split: fulltext sentences with the same normalised text (groups of distinct
    sentences), and entries that are the same annotation set (same content key, or the same id when
    the set's target is not known)."""
    by_text: dict[str, set[Ref]] = defaultdict(set)
    texts: dict[str, list[Item]] = defaultdict(list)
    for it in split:
        if it.source != "exemplar":
            by_text[it.normalised].add(it.sentence)
            texts[it.normalised].append(it)
    sentences = _groups({k: sorted(v) for k, v in by_text.items()}, examples,
                        lambda k, v: {"text": _first_text(texts[k]), "sentences": _refs(v)})
    by_set: dict[str, list[Item]] = defaultdict(list)
    for it in split:
        if it.key is not None:
            by_set[it.key].append(it)
    if not by_set:
        return {"sentences": sentences, "annotation_sets": None}

    def describe_set(key: str, group: list[Item]) -> dict[str, Any]:
        _, target, lu, frame = key.split("\t")
        return {"text": _first_text(group), "annotation_sets": _refs(it.annoset for it in group if it.annoset),
                "target": target, "lu": lu, "frame": frame}

    return {"sentences": sentences, "annotation_sets": _groups(by_set, examples, describe_set)}


def _placements(splits: Mapping[str, Sequence[Item]]) -> tuple[dict, dict, dict, dict[Ref, str]]:
    """Splits of each FrameNet sentence id, annotation-set id and normalised text; each sentence's text."""
    sentences: dict[Ref, set[str]] = defaultdict(set)
    sets: dict[Ref, set[str]] = defaultdict(set)
    by_text: dict[str, set[str]] = defaultdict(set)
    texts: dict[Ref, str] = {}
    for name, items in splits.items():
        for it in items:
            by_text[it.normalised].add(name)
            if is_framenet(it.sentence):
                sentences[it.sentence].add(name)
                texts.setdefault(it.sentence, it.text)
            if it.annoset is not None and is_framenet(it.annoset):
                sets[it.annoset].add(name)
    return sentences, sets, by_text, texts


def _moves(first: Mapping, second: Mapping, examples: int, name=ref_name) -> dict[str, Any]:
    moved: dict[str, list] = defaultdict(list)
    for key in sorted(first.keys() & second.keys()):
        if first[key] != second[key]:
            moved[f"{'+'.join(sorted(first[key]))}->{'+'.join(sorted(second[key]))}"].append(key)
    return {
        "in_both": len(first.keys() & second.keys()),
        "only_audited": len(first.keys() - second.keys()),
        "only_against": len(second.keys() - first.keys()),
        "moved": {k: len(v) for k, v in sorted(moved.items())},
        "examples": {k: [name(r) for r in v[:examples]] for k, v in sorted(moved.items())},
    }


def moved(splits: Mapping[str, Sequence[Item]], against: Mapping[str, Sequence[Item]], examples: int) -> dict[str, Any]:
    """Check (d): FrameNet ids, and normalised texts, that ``against`` (e.g. the same split definition on
    another release) places in other splits, and sentence ids whose normalised text differs between the two."""
    s1, a1, x1, t1 = _placements(splits)
    s2, a2, x2, t2 = _placements(against)
    changed = sorted(ref for ref in t1.keys() & t2.keys() if sentence_hash(t1[ref]) != sentence_hash(t2[ref]))
    sentences, sets = _moves(s1, s2, examples), _moves(a1, a2, examples)
    originals = {it.normalised: it.text for items in splits.values() for it in items}
    by_text = _moves(x1, x2, examples, name=lambda h: originals[h])
    return {
        "run": True,
        "found": bool(sentences["moved"] or sets["moved"] or by_text["moved"] or changed),
        "sentences": sentences,
        "annotation_sets": sets,
        "normalised_texts": by_text,
        "changed_texts": len(changed),
        "changed_examples": [{"sentence": ref_name(r), "audited": t1[r], "against": t2[r]} for r in changed[:examples]],
    }


def audit_items(splits: Mapping[str, Sequence[Item]], *, examples: int = 3,
                against: Mapping[str, Sequence[Item]] | None = None) -> dict[str, Any]:
    """Every check on ``splits`` (``{split: items}``; ``against``: a second set for check (d)).

    ``leakage`` is true when (a), (c) or (d) found anything; ``duplicates`` when (b) found an annotation
    set twice in a split (one normalised text under several sentences alone does not count).
    """
    dups = {name: duplicates(splits[name], examples) for name in SPLITS if name in splits}
    checks = {
        "exemplar_overlap": exemplar_overlap(splits, examples),
        "duplicates": {"run": True, "found": any(d["annotation_sets"] and d["annotation_sets"]["groups"]
                                                 for d in dups.values()), "splits": dups},
        "cross_split": cross_split(splits, examples),
        "moved": moved(splits, against, examples) if against is not None else {
            "run": False, "why": "no second set of ids (--against)", "found": False},
    }
    return {
        "schema": SCHEMA,
        "splits": {name: summary(splits[name]) for name in SPLITS if name in splits},
        "checks": checks,
        "leakage": any(checks[c]["found"] for c in ("exemplar_overlap", "cross_split", "moved")),
        "duplicates": checks["duplicates"]["found"],
    }
