"""What ``pyfn audit`` compares: one annotation set (or one sentence) of one split, whatever it was read from.

No I/O here. An item knows its sentence's text and how to name itself in a
report: FrameNet ids (``fulltext:4098451``, ``exemplar:123``) when the input
carries them, else the input file and a number local to it
(``fn1.7.test.syntaxnet.conll#12``: Open-SESAME's sentence number 12 of that
file). Two items are the same sentence when their texts normalise alike
(:func:`~pyfn.splits.hashing.sentence_hash`: lower-cased, all whitespace
removed, SPLITS.md step 5) and the same annotation set when their
:func:`content_key` is equal (step 6's rule, with the target located in the
normalised text so that a text rebuilt from tokens gives the same key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyfn.splits.hashing import sentence_hash

SOURCES = ("fulltext", "exemplar")
Ref = tuple[str, int]
"""An identity: ``(namespace, number)``; the namespace is a FrameNet source (the number is a FrameNet
id) or an input file (the number is local to it)."""


def ref_name(ref: Ref) -> str:
    """``fulltext:123`` (a FrameNet id) or ``FILE#12`` (a number local to an input file)."""
    space, number = ref
    return f"{space}:{number}" if space in SOURCES else f"{space}#{number}"


def is_framenet(ref: Ref | None) -> bool:
    """Whether ``ref`` is a FrameNet id (not a number local to a file)."""
    return ref is not None and ref[0] in SOURCES


@dataclass(frozen=True, slots=True)
class Item:
    """One annotation set, or one sentence when the input names sentences only (``annoset`` None).

    ``source`` is ``fulltext``, ``exemplar`` or ``""`` (unknown: formats that do not say);
    ``key`` is the set's :func:`content_key` (None when the input does not give its target).
    """

    split: str
    source: str
    sentence: Ref
    text: str
    annoset: Ref | None = None
    key: str | None = None

    @property
    def normalised(self) -> str:
        """The sentence text as SPLITS.md step 5 compares it."""
        return sentence_hash(self.text)


def normalised_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Inclusive character spans of ``text`` as offsets into its whitespace-free form, ``s#e[#s#e...]``
    sorted; whitespace at a span's edge is not counted."""
    before = [0] * (len(text) + 1)
    for i, ch in enumerate(text):
        before[i + 1] = before[i] + (not ch.isspace())
    out = []
    for start, end in sorted(spans):
        start, end = max(start, 0), min(end, len(text) - 1)
        out.append(f"{before[start]}#{before[end + 1] - 1}")
    return "#".join(out)


def content_key(text: str, spans: Sequence[tuple[int, int]], lu: str, frame: str) -> str:
    """Same sentence (normalised), same target (in the normalised text), same LU and frame: SPLITS.md
    step 6's duplicate rule, independent of tokenization."""
    return f"{sentence_hash(text)}\t{normalised_spans(text, spans)}\t{lu}\t{frame}"
