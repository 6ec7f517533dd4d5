"""Which annotation sets are invalid (SPLITS.md step 2): a whole set goes when any part is bad."""

from __future__ import annotations

from pyfn.model import AnnotationSet

CHECKED_LAYERS = ("FE", "PT", "GF", "Target")


def invalid_reason(aset: AnnotationSet) -> str | None:
    """Why ``aset`` is invalid (a ledger key), or ``None`` when it is valid.

    Checked on every label of its FE, PT, GF and Target layers: ``start``
    without ``end`` (or the reverse), ``start > end``, an offset at or past the
    end of the text, or an offset on a whitespace character. Null
    instantiations (neither offset) are valid.
    """
    text = aset.sentence.text
    size = len(text)
    for layer in aset.layers:
        if layer.name not in CHECKED_LAYERS:
            continue
        for label in layer.labels:
            start, end = label.start, label.end
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
