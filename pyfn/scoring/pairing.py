"""How the sentences of a prediction pair with the gold sentences: by SemEval sentence ID, checked by text.

A sentence's key is its ``ID`` attribute, or its 0-based position in the file
when it has none (the number the reader gives it). A gold sentence pairs with
the predicted sentence of the same key wherever it lies in the file, so a
reordered prediction scores as the ordered one. The pair counts only when the
two ``<text>`` strings are identical; otherwise the gold sentence is *missed*
and the predicted one is a prediction outside gold, as is a predicted sentence
whose key no gold sentence has. A key repeated within one file is an error:
such a file cannot be paired.

The SemEval-2007 Perl scorer pairs by ordinal position instead and skips
unpaired gold sentences, which raises the score of a file that lacks some of
them (FORMATS.md §5.2); see :mod:`pyfn.scoring.semeval` for what pyfn counts.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats import semeval as semeval_xml
from pyfn.model import AnnotationSet, Sentence

Keyed = tuple[str, str]
"""A sentence's key and text."""
_ID = re.compile(r"0|[1-9][0-9]*")


def sentence_keys(path: Path) -> list[Keyed]:
    """``(key, text)`` of every ``sentence`` element of a SemEval XML file, in file order.

    A key repeated in the file is a :class:`PyfnError` naming the file, the key
    and both positions.
    """
    out: list[Keyed] = []
    seen: dict[str, int] = {}
    try:
        parser = etree.iterparse(io.BytesIO(Path(path).read_bytes()), events=("end",), tag="{*}sentence",
                                 resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True,
                                 remove_pis=True)
        for position, (_, elem) in enumerate(parser):
            key = elem.get("ID", str(position))
            if key in seen:
                raise PyfnError(f"{path}: sentence ID {key} appears twice (sentences {seen[key]} and {position}); "
                                "sentences are paired with gold by ID, which must be unique")
            seen[key] = position
            out.append((key, next((c.text or "" for c in elem.iterchildren("{*}text")), "")))
            elem.clear()
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except etree.XMLSyntaxError as exc:
        raise PyfnError(f"{path}: malformed XML: {' '.join(str(exc.msg).split())}") from None
    return out


@dataclass(frozen=True)
class Doc:
    """A SemEval XML file's sentences (key, text) and the annotation sets of each, by position."""

    sentences: list[Keyed]
    sets: list[list[AnnotationSet]]


def read_file(path: Path, log: ProblemLog) -> Doc:
    """Every sentence of a SemEval XML file with its sets (the reader's; its problems go to ``log``).

    The reader numbers a sentence by its integer ``ID`` or else its position;
    the sets it yields for one sentence share one :class:`Sentence`, so each
    such group is placed at the first position after the previous group whose
    ``ID`` rule and text agree with it.
    """
    sets = list(semeval_xml.read(path, log=log))
    elements = sentence_keys(path)
    placed: list[list[AnnotationSet]] = [[] for _ in elements]
    position = -1
    current: Sentence | None = None
    for aset in sets:
        if aset.sentence is not current:
            current = aset.sentence
            position += 1
            while position < len(elements) and not _same(elements[position], position, current):
                position += 1
            if position == len(elements):
                raise PyfnError(f"{path}: cannot place the sets of sentence {current.id} (internal error)")
        placed[position].append(aset)
    return Doc(elements, placed)


def _same(element: Keyed, position: int, sentence: Sentence) -> bool:
    key, text = element
    number = int(key) if _ID.fullmatch(key) and len(key) <= 100 else position
    return number == sentence.id and text == sentence.text


@dataclass(frozen=True)
class Pairing:
    """Gold and predicted sentences paired by key; positions are 0-based within each file."""

    gold_keys: tuple[str, ...]
    pred_keys: tuple[str, ...]
    pred_of: tuple[int | None, ...]
    """Per gold sentence, the position of the predicted sentence with its key (None: none has it)."""
    text_differs: frozenset[int]
    """Gold sentences whose predicted sentence of the same key has another text."""
    not_in_gold: tuple[int, ...]
    """Predicted sentences whose key no gold sentence has."""

    @property
    def missing(self) -> tuple[int, ...]:
        """Gold sentences without a predicted sentence of their key."""
        return tuple(g for g, p in enumerate(self.pred_of) if p is None)

    @property
    def covered(self) -> frozenset[int]:
        """Gold sentences paired with a predicted sentence of the same key and text."""
        return frozenset(g for g, p in enumerate(self.pred_of) if p is not None and g not in self.text_differs)

    def counts(self) -> dict[str, int]:
        """Gold sentences: all, paired (``scored``), ``missing``, ``text_differs``; predicted ``not_in_gold``."""
        return {"gold": len(self.gold_keys), "scored": len(self.covered), "missing": len(self.missing),
                "text_differs": len(self.text_differs), "not_in_gold": len(self.not_in_gold)}


def pair(gold: Sequence[Keyed], pred: Sequence[Keyed]) -> Pairing:
    """Pair gold and predicted ``(key, text)`` sentences by key (keys are unique on each side)."""
    positions = {key: p for p, (key, _) in enumerate(pred)}
    pred_of = tuple(positions.get(key) for key, _ in gold)
    gold_keys = {key for key, _ in gold}
    return Pairing(
        gold_keys=tuple(key for key, _ in gold),
        pred_keys=tuple(key for key, _ in pred),
        pred_of=pred_of,
        text_differs=frozenset(g for g, p in enumerate(pred_of) if p is not None and pred[p][1] != gold[g][1]),
        not_in_gold=tuple(p for p, (key, _) in enumerate(pred) if key not in gold_keys),
    )


def examples(keys: Sequence[str], limit: int = 3) -> str:
    """``IDs a, b, c, …``: the first ``limit`` keys, for messages."""
    shown = ", ".join(keys[:limit])
    return f"ID{'s' if len(keys) > 1 else ''} {shown}{', …' if len(keys) > limit else ''}"


def sentence_warnings(total: int, missing: Sequence[str], text_differs: Sequence[str], not_in_gold: Sequence[str],
                      missed: str, wrong: str) -> list[str]:
    """In words, the gold sentences left without a prediction and the predicted sentences outside gold.

    ``missed`` says what becomes of a gold sentence without a prediction
    ("every frame … counts as missed"), ``wrong`` of the content of a predicted
    sentence outside gold ("points count as …").
    """
    out = []
    if missing:
        out.append(f"{len(missing)} of {total} gold sentences have no predicted sentence with their ID "
                   f"({examples(missing)}): {missed}")
    if text_differs:
        out.append(f"{len(text_differs)} of {total} gold sentences have a predicted sentence with their ID but "
                   f"another text ({examples(text_differs)}): {missed}, and the predicted sentence's {wrong}")
    if not_in_gold:
        out.append(f"{len(not_in_gold)} predicted sentences have an ID that no gold sentence has "
                   f"({examples(not_in_gold)}): their {wrong}")
    return out
