"""Readers of annotated sentences: ``fulltext/*.xml`` and ``lu/*.xml`` (exemplars).

Each reader turns one file's bytes into a :class:`FileResult`: the annotation
sets, and the problems met, each naming its item, so that batch runs can skip
and count them. An annotation set is a set whose first ``Target`` layer has
labels that all carry ``start`` and ``end`` (the labels of every ``Target``
layer make its target); a set with an empty first ``Target`` layer, or one of
whose first-layer labels lacks an offset, is not a frame annotation and is
counted under a ``no_target:*`` reason.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree

from pyfn.errors import Problem, PyfnError
from pyfn.framenet.xml import NS, int_attr, iterparse, release_element
from pyfn.model import FRAME_LAYERS, AnnotationSet, Label, Layer, PosTag, Sentence

POS_LAYERS = ("PENN",)
_FRAME_LAYERS = frozenset(FRAME_LAYERS)
_LABEL = NS + "label"
_LAYER = NS + "layer"
_TEXT = NS + "text"
_ANNOSET = NS + "annotationSet"


@dataclass
class FileResult:
    """What one annotation file held."""

    path: str
    sha256: str
    sets: list[AnnotationSet] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    sentences: int = 0
    not_annotation_sets: Counter = field(default_factory=Counter)
    set_ids: dict[int, int] = field(default_factory=dict, repr=False)
    """Annotation-set ID -> ID of the sentence it was read in (an ID may appear once per file)."""
    texts: dict[int, str] = field(default_factory=dict, repr=False)
    """Sentence ID -> text (lu files repeat a sentence in several subcorpora, always with its text)."""
    not_annotation_set_ids: list[tuple[str | None, int, str]] = field(default_factory=list, repr=False)
    """``(annotationSet ID attribute, sentence ID, reason)`` of each set counted in ``not_annotation_sets``."""


def _labels(layer: etree._Element) -> tuple[Label, ...]:
    """The labels of a layer; a non-integer offset raises ``ValueError``."""
    out = []
    append = out.append
    for elem in layer.iterchildren(_LABEL):
        get = elem.get
        start, end, fe_id = get("start"), get("end"), get("feID")
        try:
            append(Label(get("name", ""), start if start is None else int(start), end if end is None else int(end),
                         get("itype"), fe_id if fe_id is None else int(fe_id)))
        except ValueError:
            raise ValueError(
                f"label {get('name')!r} has a non-integer offset or feID"
                f" (start={start!r} end={end!r} feID={fe_id!r})"
            ) from None
    return tuple(out)


def _pos_tags(layer: etree._Element) -> tuple[PosTag, ...]:
    """The ``(tag, start, end)`` labels of a POS layer; ``ValueError`` on a non-integer offset."""
    try:
        return tuple(
            (
                lb.get("name", ""),
                None if (s := lb.get("start")) is None else int(s),
                None if (e := lb.get("end")) is None else int(e),
            )
            for lb in layer.iterchildren(_LABEL)
        )
    except ValueError:
        raise ValueError(f"a {layer.get('name')} label has a non-integer offset") from None


def _int(elem: etree._Element, name: str) -> int | None:
    value = elem.get(name)
    return None if value is None else int(value)


def _read_sentence(
    sent: etree._Element, document: str, where: str, lexunit: dict[str, str] | None, result: FileResult
) -> None:
    sent_id = int_attr(sent, "ID", where, required=True)
    assert sent_id is not None
    where = f"{where} sentence {sent_id}"
    text_el = next(sent.iterchildren(_TEXT), None)
    if text_el is None:
        raise PyfnError(f"{where}: no <text>")
    text = text_el.text or ""
    pos_layer: str | None = None
    pos: tuple[PosTag, ...] = ()
    frame_sets: list[tuple[etree._Element, list[Layer]]] = []
    no_layer: list[str | None] = []
    for aset in sent.iterchildren(_ANNOSET):
        layers: list[Layer] = []
        has_target = False
        try:
            for layer in aset.iterchildren(_LAYER):
                name = layer.get("name", "")
                if name in _FRAME_LAYERS:
                    rank = layer.get("rank")
                    layers.append(Layer(name, (int(rank) or 1) if rank is not None else 1, _labels(layer)))
                    has_target = has_target or name == "Target"
                elif name in POS_LAYERS and pos_layer is None:
                    pos_layer, pos = name, _pos_tags(layer)
        except ValueError as exc:
            aset_where = f"{where} annotationSet {aset.get('ID')}"
            result.problems.append(Problem("malformed_annotation_set", aset_where, f"{aset_where}: {exc}"))
            continue
        if has_target:
            frame_sets.append((aset, layers))
        elif "frameName" in aset.attrib or "luName" in aset.attrib or any(
            layer.name == "FE" and layer.labels for layer in layers
        ):
            no_layer.append(aset.get("ID"))  # a frame annotation whose Target layer is missing: counted, not dropped
    try:
        sentence = Sentence(
            sent_id, text, document, _int(sent, "docID"), _int(sent, "corpID"), _int(sent, "sentNo"),
            _int(sent, "paragNo"), _int(sent, "aPos"), pos_layer, pos,
        )
    except ValueError:
        raise PyfnError(f"{where}: a non-integer docID, corpID, sentNo, paragNo or aPos attribute") from None
    first_text = result.texts.setdefault(sent_id, text)
    if first_text != text:
        raise PyfnError(f"{where}: sentence ID already read in this file with another text ({first_text[:40]!r})")
    result.sentences += 1
    for aset_id in no_layer:
        _not_annotation_set(result, aset_id, sent_id, "no_target:no_layer")
    for aset, layers in frame_sets:
        first_target = next(layer for layer in layers if layer.name == "Target")
        if not first_target.labels:
            _not_annotation_set(result, aset.get("ID"), sent_id, "no_target:empty_layer")
            continue
        if not all(label.start is not None and label.end is not None for label in first_target.labels):
            _not_annotation_set(result, aset.get("ID"), sent_id, "no_target:label_without_offsets")
            continue
        aset_where = f"{where} annotationSet {aset.get('ID')}"
        try:
            annotation_set = _annotation_set(aset, layers, sentence, aset_where, lexunit)
            first = result.set_ids.get(annotation_set.id)
            if first is not None:
                raise PyfnError(f"{aset_where}: annotationSet ID already read in this file (sentence {first})")
            result.set_ids[annotation_set.id] = sent_id
            result.sets.append(annotation_set)
        except PyfnError as exc:
            result.problems.append(Problem("malformed_annotation_set", aset_where, str(exc)))


def _not_annotation_set(result: FileResult, aset_id: str | None, sent_id: int, reason: str) -> None:
    result.not_annotation_sets[reason] += 1
    result.not_annotation_set_ids.append((aset_id, sent_id, reason))


def _annotation_set(
    aset: etree._Element, layers: list[Layer], sentence: Sentence, where: str, lexunit: dict[str, str] | None
) -> AnnotationSet:
    if lexunit is not None:
        lu_name, frame_name = lexunit["name"], lexunit["frame"]
        lu_id, frame_id = _opt_int(lexunit.get("ID")), _opt_int(lexunit.get("frameID"))
    else:
        lu_name, frame_name = aset.get("luName"), aset.get("frameName")
        lu_id, frame_id = int_attr(aset, "luID", where), int_attr(aset, "frameID", where)
    if not lu_name or not frame_name:
        raise PyfnError(f"{where}: labelled Target layer but no luName/frameName")
    set_id = int_attr(aset, "ID", where, required=True)
    assert set_id is not None
    return AnnotationSet(
        id=set_id,
        sentence=sentence,
        status=aset.get("status", ""),
        lu_id=lu_id,
        lu_name=lu_name,
        frame_id=frame_id,
        frame_name=frame_name,
        layers=tuple(layers),
        source="exemplar" if lexunit is not None else "fulltext",
    )


def _opt_int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def read_annotations(data: bytes, relpath: str) -> FileResult:
    """Read a ``fulltext/*.xml`` or ``lu/*.xml`` file (decided by its root element).

    Raises :class:`PyfnError` when the file as a whole cannot be read (malformed
    XML, wrong namespace); bad sentences and sets are recorded as problems.
    """
    result = FileResult(path=relpath, sha256=hashlib.sha256(data).hexdigest())
    document = relpath.rsplit("/", 1)[-1]
    lexunit: dict[str, str] | None = None
    seen_root = False
    for event, elem in iterparse(data, relpath, ("fullTextAnnotation", "lexUnit", "sentence"), ("start", "end")):
        tag = elem.tag[len(NS):]
        if tag != "sentence":
            if event == "start" and not seen_root:
                seen_root = True
                if tag == "lexUnit":
                    lexunit = {key: value for key in ("name", "frame", "ID", "frameID") if (value := elem.get(key))}
                    if not lexunit.get("name") or not lexunit.get("frame"):
                        raise PyfnError(f"{relpath}: <lexUnit> has no name or frame attribute")
            continue
        if event != "end":
            continue
        try:
            _read_sentence(elem, document, relpath, lexunit, result)
        except PyfnError as exc:
            result.problems.append(Problem("malformed_sentence", f"{relpath} sentence {elem.get('ID')}", str(exc)))
        release_element(elem)
    if not seen_root:
        raise PyfnError(f"{relpath}: root element is neither <fullTextAnnotation> nor <lexUnit>")
    return result
