"""Sentence and annotation-set hashes (SPLITS.md steps 5 and 6) and output order."""

from __future__ import annotations

from collections.abc import Iterable

from pyfn.model import AnnotationSet


def sentence_hash(text: str) -> str:
    """The sentence text lower-cased with all whitespace removed."""
    return "".join(text.lower().split())


def spans_key(target: Iterable[tuple[int, int]]) -> str:
    """Target spans (sorted) as ``s#e[#s#e...]``."""
    return "#".join([f"{s}#{e}" for s, e in target])


def annoset_hash_of(sent_hash: str, spans: str, lu_name: str, frame_name: str) -> str:
    """:func:`annoset_hash` from its parts: sentence hash, :func:`spans_key`, LU and frame names."""
    return f"{sent_hash}\t{spans}\t{lu_name}\t{frame_name}"


def order_key_of(spans: str, lu_name: str, frame_name: str) -> str:
    """:func:`order_key` from its parts: :func:`spans_key`, LU and frame names."""
    return f"{spans}#{lu_name}#{frame_name}"


def spans_of(order: str, lu_name: str, frame_name: str) -> str:
    """The :func:`spans_key` of an order key (``spans#lu#frame``)."""
    return order[:len(order) - len(lu_name) - len(frame_name) - 2]


def annoset_hash(aset: AnnotationSet) -> str:
    """Sentence hash, sorted target spans, LU name and frame name, joined by TABs."""
    return annoset_hash_of(sentence_hash(aset.sentence.text), spans_key(aset.target), aset.lu_name, aset.frame_name)


def order_key(aset: AnnotationSet) -> str:
    """pyfn 1.3's within-sentence order key: ``s#e[#s#e...]#LU#frame`` (plain string order)."""
    return order_key_of(spans_key(aset.target), aset.lu_name, aset.frame_name)


def fe_signature(aset: AnnotationSet) -> str:
    """The overt FE labels of a set (rank, name, offsets), order-free, as one string.

    Null instantiations are left out: scorers never see them.
    """
    return fe_rows_signature((rank, lb.name, lb.start, lb.end) for rank, lb in aset.overt_fes)


def fe_rows_signature(rows: Iterable[tuple[int, str, int, int]]) -> str:
    """:func:`fe_signature` of the overt FE labels given as ``(rank, name, start, end)``."""
    return "|".join(sorted(f"{rank}:{name}:{start}:{end}" for rank, name, start, end in rows))
