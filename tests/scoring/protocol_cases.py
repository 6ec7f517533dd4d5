"""Deterministic predictions for the protocol oracle: FN 1.5 test gold, perturbed.

Imported by ``tests/scoring/test_protocols_peers.py`` and by
``make_protocol_cases.py`` (which runs the peers' own evaluation code on them):
both build the same files byte for byte from ``fn15_std``'s ``test.jsonl``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from pyfn.formats import semeval
from pyfn.formats.base import SentenceTable
from pyfn.model import AnnotationSet, Label, Layer, tokens


def _with_fes(aset: AnnotationSet, fes: Sequence[Label]) -> AnnotationSet:
    layers = [layer for layer in aset.layers if layer.name != "FE"]
    if fes:
        layers.append(Layer("FE", 1, tuple(fes)))
    return dataclasses.replace(aset, layers=tuple(layers))


def _overt(aset: AnnotationSet) -> list[Label]:
    return [lb for _, lb in aset.overt_fes]


def fes_dropped_7(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """Every 7th overt FE label of the file (set order, label order) dropped."""
    out, n = [], 0
    for aset in sets:
        kept = []
        for lb in _overt(aset):
            n += 1
            if n % 7:
                kept.append(lb)
        out.append(_with_fes(aset, kept))
    return out


def frames_replaced_11(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """Every 11th set's frame replaced by the next frame name of the file (sorted, cyclic); FEs kept."""
    names = sorted({a.frame_name for a in sets})
    following = {name: names[(i + 1) % len(names)] for i, name in enumerate(names)}
    return [dataclasses.replace(a, frame_name=following[a.frame_name]) if k % 11 == 10 else a
            for k, a in enumerate(sets)]


def spans_shifted(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """Every 3rd overt FE label moved one token right, when it stays in the sentence and overlaps no other label."""
    out, n = [], 0
    for aset in sets:
        toks = tokens(aset.sentence.text)
        labels = _overt(aset)
        for i, lb in enumerate(labels):
            n += 1
            if n % 3:
                continue
            first = next(t.index for t in toks if t.end >= lb.start)
            last = max(t.index for t in toks if t.start <= lb.end)
            if last + 1 >= len(toks):
                continue
            start, end = toks[first + 1].start, toks[last + 1].end
            if any(o.start <= end and start <= o.end for j, o in enumerate(labels) if j != i):
                continue
            labels[i] = Label(lb.name, start, end)
        out.append(_with_fes(aset, labels))
    return out


def targets_dropped_13(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """Every 13th set removed (its gold target gets no prediction)."""
    return [a for k, a in enumerate(sets) if k % 13 != 12]


def gold(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """The gold sets themselves (FE labels of every rank in one layer, as the gold file holds them)."""
    return [_with_fes(a, _overt(a)) for a in sets]


CASES: dict[str, Callable[[Sequence[AnnotationSet]], list[AnnotationSet]]] = {
    "gold": gold,
    "fes_dropped_7": fes_dropped_7,
    "frames_replaced_11": frames_replaced_11,
    "spans_shifted": spans_shifted,
    "targets_dropped_13": targets_dropped_13,
}


def write_cases(sets: Sequence[AnnotationSet], target: Path) -> dict[str, Path]:
    """``target/NAME.predicted.xml`` for every case, every gold sentence present (gold sentence order)."""
    strings = SentenceTable.of(sets).strings
    out = {}
    for name, make in CASES.items():
        path = target / f"{name}.predicted.xml"
        semeval.write(path, make(sets), sentences=strings)
        out[name] = path
    return out
