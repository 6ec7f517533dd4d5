"""Sentence and annotation-set hashes (SPLITS.md steps 5 and 6) and output order."""

from __future__ import annotations

from collections.abc import Iterable

from pyfn.model import AnnotationSet


def sentence_hash(text: str) -> str:
    """The sentence text lower-cased with all whitespace removed."""
    return "".join(text.lower().split())


def _spans(aset: AnnotationSet) -> str:
    return "#".join(f"{s}#{e}" for s, e in aset.target)


def annoset_hash(aset: AnnotationSet, spans: str | None = None) -> str:
    """Sentence hash, sorted target spans, LU name and frame name, joined by TABs."""
    spans = _spans(aset) if spans is None else spans
    return f"{sentence_hash(aset.sentence.text)}\t{spans}\t{aset.lu_name}\t{aset.frame_name}"


def order_key(aset: AnnotationSet, spans: str | None = None) -> str:
    """pyfn 1.3's within-sentence order key: ``s#e[#s#e...]#LU#frame`` (plain string order)."""
    spans = _spans(aset) if spans is None else spans
    return f"{spans}#{aset.lu_name}#{aset.frame_name}"


def hash_and_order(aset: AnnotationSet) -> tuple[str, str]:
    """:func:`annoset_hash` and :func:`order_key` of ``aset``, its target spans formatted once."""
    spans = _spans(aset)
    return annoset_hash(aset, spans), order_key(aset, spans)


def fe_signature(aset: AnnotationSet) -> str:
    """The overt FE labels of a set (rank, name, offsets), order-free, as one string.

    Null instantiations are left out: scorers never see them.
    """
    return fe_rows_signature((rank, lb.name, lb.start, lb.end) for rank, lb in aset.overt_fes)


def fe_rows_signature(rows: Iterable[tuple[int, str, int, int]]) -> str:
    """:func:`fe_signature` of the overt FE labels given as ``(rank, name, start, end)``."""
    return "|".join(sorted(f"{rank}:{name}:{start}:{end}" for rank, name, start, end in rows))
