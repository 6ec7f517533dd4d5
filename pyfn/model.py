"""FrameNet data model: frozen dataclasses, no I/O.

Character offsets are FrameNet's (0-based, end inclusive) and are the ground
truth; tokens are a derived view (:func:`tokens`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

Span = tuple[int, int]
"""A character span ``(start, end)``, end inclusive, as in FrameNet."""
PosTag = tuple[str, "int | None", "int | None"]
"""A part-of-speech label ``(tag, start, end)`` of a sentence's POS layer."""

FRAME_LAYERS = ("Target", "FE", "PT", "GF")
"""Layers of an annotation set kept by the readers (others carry no frame data)."""
POS_LAYERS = ("PENN",)
"""POS layers the readers keep: the first of a sentence's sets is its :attr:`Sentence.pos`."""


@dataclass(frozen=True, slots=True)
class Label:
    """One label of a layer. ``start``/``end`` are ``None`` for null instantiations."""

    name: str
    start: int | None = None
    end: int | None = None
    itype: str | None = None
    fe_id: int | None = None

    @property
    def is_overt(self) -> bool:
        """True when the label covers text (has both offsets)."""
        return self.start is not None and self.end is not None

    @property
    def span(self) -> Span:
        """The label's ``(start, end)``; only for overt labels."""
        assert self.start is not None and self.end is not None
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class Layer:
    """A layer (``Target``, ``FE``, ``PT``, ``GF``) of one rank."""

    name: str
    rank: int
    labels: tuple[Label, ...]


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence with its ids and its ``PENN`` part-of-speech layer as ``(tag, start, end)``."""

    id: int
    text: str
    document: str
    doc_id: int | None = None
    corpus_id: int | None = None
    sent_no: int | None = None
    parag_no: int | None = None
    apos: int | None = None
    pos_layer: str | None = None
    pos: tuple[PosTag, ...] = ()


@dataclass(frozen=True, slots=True)
class AnnotationSet:
    """One predicate (lexical unit in a frame) in one sentence, with its labels.

    ``source`` is ``"fulltext"`` or ``"exemplar"``.
    """

    id: int
    sentence: Sentence
    status: str
    lu_id: int | None
    lu_name: str
    frame_id: int | None
    frame_name: str
    layers: tuple[Layer, ...]
    source: str = "fulltext"

    def layer_labels(self, name: str) -> tuple[Label, ...]:
        """All labels of the layers called ``name``, every rank, in layer order."""
        return tuple(lb for layer in self.layers if layer.name == name for lb in layer.labels)

    @property
    def target(self) -> tuple[Span, ...]:
        """The target's character spans, sorted."""
        return tuple(sorted(lb.span for lb in self.layer_labels("Target") if lb.is_overt))

    @property
    def fe_labels(self) -> tuple[tuple[int, Label], ...]:
        """``(rank, label)`` for every FE label, overt and null-instantiated."""
        return tuple(
            (layer.rank, lb) for layer in self.layers if layer.name == "FE" for lb in layer.labels
        )

    @property
    def overt_fes(self) -> tuple[tuple[int, Label], ...]:
        """``(rank, label)`` for the FE labels that cover text."""
        return tuple((rank, lb) for rank, lb in self.fe_labels if lb.is_overt)


class Token(NamedTuple):
    """A whitespace token of a sentence with its character span (end inclusive).

    A derived view, built for every sentence of every output: an immutable
    named tuple, cheaper to make than a dataclass.
    """

    index: int
    text: str
    start: int
    end: int


_new_tuple = tuple.__new__
"""Builds a :class:`Token` without the keyword handling of its constructor."""


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """Tokenize like FrameNet: maximal runs of non-whitespace (``str.isspace``).

    Cached: the sets of a sentence are adjacent in every output order.
    """
    out = []
    pos = 0
    find = text.find
    for i, word in enumerate(text.split()):  # str.split splits at str.isspace characters
        pos = find(word, pos)  # only whitespace lies between ``pos`` and the word
        end = pos + len(word)
        out.append(_new_tuple(Token, (i, word, pos, end - 1)))
        pos = end
    return tuple(out)


@dataclass(frozen=True, slots=True)
class FrameElement:
    """A frame element definition from ``frame/*.xml``."""

    id: int
    name: str
    core_type: str
    abbrev: str = ""
    sem_types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LexUnit:
    """A lexical unit definition from ``frame/*.xml``."""

    id: int
    name: str
    pos: str
    status: str = ""


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame definition from ``frame/*.xml``."""

    id: int
    name: str
    fes: tuple[FrameElement, ...]
    lus: tuple[LexUnit, ...]
    sem_types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FERelation:
    """An FE-to-FE mapping inside a frame relation."""

    id: int
    sub_id: int
    sup_id: int
    sub_fe: str
    super_fe: str


@dataclass(frozen=True, slots=True)
class FrameRelation:
    """A frame-to-frame relation of a named type (``Inheritance``, ``Subframe``...)."""

    id: int
    type: str
    sub_id: int
    sup_id: int
    sub_frame: str
    super_frame: str
    fe_relations: tuple[FERelation, ...] = ()


@dataclass(frozen=True, slots=True)
class SemType:
    """A semantic type and its super types (ids)."""

    id: int
    name: str
    abbrev: str
    super_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TokenAnnotation:
    """What preprocessing adds to one token; ``None`` is written ``_``. ``head`` is 1-based, 0 = root."""

    lemma: str | None = None
    upos: str | None = None
    xpos: str | None = None
    head: int | None = None
    deprel: str | None = None
