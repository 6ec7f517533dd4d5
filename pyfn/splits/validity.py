"""Which annotation sets are invalid (SPLITS.md step 2): a whole set goes when any part is bad."""

from __future__ import annotations

from collections.abc import Iterable

from pyfn.model import AnnotationSet

CHECKED_LAYERS = ("FE", "PT", "GF", "Target")


def invalid_reason(aset: AnnotationSet) -> str | None:
    """Why ``aset`` is invalid (a ledger key), or ``None`` when it is valid (:func:`invalid_offsets` of
    the labels of its FE, PT, GF and Target layers)."""
    return invalid_offsets(aset.sentence.text, ((label.start, label.end) for layer in aset.layers
                                                if layer.name in CHECKED_LAYERS for label in layer.labels))


def invalid_offsets(text: str, offsets: Iterable[tuple[int | None, int | None]]) -> str | None:
    """Why labels with these ``(start, end)`` offsets, in order, make a set of sentence ``text``
    invalid (the ledger key of the first bad one), or ``None``.

    A label is bad with ``start`` without ``end`` (or the reverse), ``start >
    end``, an offset at or past the end of the text, or an offset on a
    whitespace character. Null instantiations (neither offset) are valid.
    """
    size = len(text)
    for start, end in offsets:
        if start is None and end is None:
            continue
        if start is None or end is None:
            return "invalid:unpaired_offset"
        if start < 0 or end < 0 or start >= size or end >= size:
            return "invalid:offset_past_end"
        if start > end:
            return "invalid:start_after_end"
        if text[start].isspace() or text[end].isspace():
            return "invalid:whitespace_boundary"
    return None
