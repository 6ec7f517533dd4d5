"""SemEval-2007 Task 19 XML: gold and predictions for the Perl scorer (FORMATS.md §5).

The scorer (``fnSemScore_modified.pl -l``, ``ParseFNXMLFile``) walks the tree by
position: the first child of ``corpus``, ``document``, ``paragraph``,
``sentence``, ``annotationSet`` and ``layer`` must be ``documents``,
``paragraphs``, ``sentences``, ``text``, ``layers`` and ``labels``, each
preceded by whitespace. The writer therefore always pretty-prints. Sentences
are matched to the gold file by ordinal position and identical ``<text>``;
offsets are FrameNet's (0-based, end inclusive) into that text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from lxml import etree

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import atomic_writer
from pyfn.formats.base import SentenceTable, ordered, run_spans, sentence_string, token_span
from pyfn.framenet.xml import release_element
from pyfn.model import AnnotationSet, Label, Layer, Sentence, Span, Token, tokens

FE_RANKS = ("all", "split")
"""``all``: every FE rank in one FE layer without ``rank`` (pyfn 1.3; the scorer
scores them all); ``split``: one FE layer per rank with ``rank`` (the scorer
reads rank 1 only)."""

_OFFSET = re.compile(r"0|[1-9][0-9]*")


# --------------------------------------------------------------------------- writer


class _Ids:
    """Running ``ID`` counters from 1 (pyfn 1.3's scheme; the scorer ignores IDs)."""

    def __init__(self) -> None:
        self.counts = {"annotationSet": 0, "layer": 0, "label": 0}

    def next(self, kind: str) -> str:
        self.counts[kind] += 1
        return str(self.counts[kind])


def _element(parent: etree._Element, tag: str, *attrs: tuple[str, str]) -> etree._Element:
    return etree.SubElement(parent, tag, dict(attrs))


def _check_span(aset: AnnotationSet, text: str, label: Label) -> None:
    assert label.start is not None and label.end is not None
    if not 0 <= label.start <= label.end < len(text):
        raise PyfnError(
            f"annotation set {aset.id}: {label.name} label {label.start}-{label.end} "
            f"lies outside the sentence text ({len(text)} characters)"
        )


def _labels_layer(
    layers: etree._Element, ids: _Ids, name: str, rank: int | None, labels: Iterable[Label],
    aset: AnnotationSet, text: str,
) -> None:
    attrs = [("ID", ids.next("layer")), ("name", name)]
    if rank is not None:
        attrs.append(("rank", str(rank)))
    container = _element(_element(layers, "layer", *attrs), "labels")
    for label in labels:
        if label.is_overt:
            _check_span(aset, text, label)
            _element(container, "label", ("ID", ids.next("label")), ("name", label.name),
                     ("start", str(label.start)), ("end", str(label.end)))
        else:
            _element(container, "label", ("ID", ids.next("label")), ("name", label.name),
                     ("itype", label.itype or ""))


def _annotation_set(
    parent: etree._Element, aset: AnnotationSet, ids: _Ids, text: str, fe_ranks: str, null_instantiations: bool
) -> None:
    elem = _element(parent, "annotationSet", ("ID", ids.next("annotationSet")),
                    ("frameName", aset.frame_name), ("luName", aset.lu_name))
    layers = _element(elem, "layers")
    target = sorted((lb for lb in aset.layer_labels("Target") if lb.is_overt), key=lambda lb: (lb.start, lb.end))
    _labels_layer(layers, ids, "Target", None, target, aset, text)
    fe_labels = aset.fe_labels
    if not fe_labels:
        return
    kept = [(rank, lb) for rank, lb in fe_labels if lb.is_overt or (null_instantiations and lb.itype)]
    if fe_ranks == "all":
        _labels_layer(layers, ids, "FE", None, (lb for _, lb in kept), aset, text)
        return
    for rank in sorted({rank for rank, _ in fe_labels}):
        _labels_layer(layers, ids, "FE", rank, (lb for r, lb in kept if r == rank), aset, text)


def write(
    path: Path,
    sets: Sequence[AnnotationSet],
    *,
    fe_ranks: str = "all",
    null_instantiations: bool = False,
    sentences: Sequence[str] | None = None,
) -> None:
    """Write ``sets`` as SemEval XML for the Perl scorer (atomically, deterministically).

    One ``document``/``paragraph``; one ``sentence`` per sentence string, in
    :class:`SentenceTable` order (``sentence@ID`` = 0-based position), its sets
    in :func:`ordered` order. ``sentences`` fixes the sentence list instead
    (predictions: pass the gold list, so that every gold sentence is present,
    with an empty ``<annotationSets/>`` when nothing was predicted); a set
    whose sentence is not in it is an error. Target labels are written as
    FrameNet segments them; FE labels are the overt ones (plus null
    instantiations, ``itype`` and no offsets, with ``null_instantiations``);
    ``fe_ranks`` is one of :data:`FE_RANKS`.
    """
    if fe_ranks not in FE_RANKS:
        raise UsageError(f"unknown fe_ranks {fe_ranks!r} for SemEval XML (known: {', '.join(FE_RANKS)})")
    by_string: dict[str, list[AnnotationSet]] = {}
    for aset in ordered(sets):
        by_string.setdefault(sentence_string(aset.sentence.text), []).append(aset)
    strings = SentenceTable.of(sets).strings if sentences is None else list(sentences)
    if len(set(strings)) != len(strings):
        raise PyfnError(f"{path}: the sentence list names a sentence twice")
    missing = by_string.keys() - set(strings)
    if missing:
        first = by_string[min(missing)][0]
        raise PyfnError(f"{path}: annotation set {first.id} belongs to a sentence missing from the sentence list "
                        f"({len(missing)} such sentences): {min(missing)!r}")
    root = etree.Element("corpus")
    root.set("ID", "1")
    document = _element(_element(root, "documents"), "document", ("ID", "1"))
    paragraph = _element(_element(document, "paragraphs"), "paragraph", ("ID", "1"), ("documentOrder", "1"))
    sentences_elem = _element(paragraph, "sentences")
    ids = _Ids()
    try:
        for position, text in enumerate(strings):
            sentence = _element(sentences_elem, "sentence", ("ID", str(position)))
            _element(sentence, "text").text = text
            container = _element(sentence, "annotationSets")
            for aset in by_string.get(text, ()):
                _annotation_set(container, aset, ids, text, fe_ranks, null_instantiations)
    except ValueError as exc:  # lxml refuses characters XML cannot hold
        raise PyfnError(f"{path}: cannot write sentence {position}: {exc}") from None
    except PyfnError as exc:
        raise PyfnError(f"{path}: sentence {position}: {exc}") from None
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


# --------------------------------------------------------------------------- reader


class _Bad(Exception):
    """A malformed item: the message says what is wrong, the caller says where."""


def _local(elem: etree._Element) -> str:
    return elem.tag.rsplit("}", 1)[-1]  # not etree.QName, which refuses names libxml2 lets through (":corpus")


def _children(elem: etree._Element | None, name: str) -> Iterator[etree._Element]:
    if elem is None:
        return
    for child in elem:
        if isinstance(child.tag, str) and _local(child) == name:
            yield child


def _child(elem: etree._Element | None, name: str) -> etree._Element | None:
    return next(_children(elem, name), None)


def _offset(label: etree._Element, attr: str) -> int:
    value = label.get(attr)
    if value is None or not _OFFSET.fullmatch(value) or len(value) > 100:
        raise _Bad(f"label {label.get('name')!r}: {attr}={value!r} is not a non-negative integer")
    return int(value)


def _label(elem: etree._Element, text: str) -> Label:
    name = elem.get("name")
    if name is None:
        raise _Bad("a label has no name attribute")
    has_offsets = elem.get("start") is not None or elem.get("end") is not None
    itype = elem.get("itype")
    if itype is not None:
        if has_offsets:
            raise _Bad(f"label {name!r} has both itype={itype!r} and offsets")
        return Label(name, None, None, itype)
    start, end = _offset(elem, "start"), _offset(elem, "end")
    if start > end:
        raise _Bad(f"label {name!r}: start {start} > end {end}")
    if end >= len(text):
        raise _Bad(f"label {name!r}: offsets {start}-{end} outside the text ({len(text)} characters)")
    return Label(name, start, end)


def _int_id(elem: etree._Element, fallback: int) -> int:
    value = elem.get("ID")
    return int(value) if value is not None and _OFFSET.fullmatch(value) and len(value) <= 100 else fallback


def _set_of(elem: etree._Element, sentence: Sentence, position: int) -> AnnotationSet:
    frame = elem.get("frameName")
    if frame is None:
        raise _Bad("no frameName attribute")
    layers = []
    for layer in _children(_child(elem, "layers"), "layer"):
        name = layer.get("name")
        if name not in ("Target", "FE"):
            continue
        rank_value = layer.get("rank", "1")
        if not _OFFSET.fullmatch(rank_value) or len(rank_value) > 100:
            raise _Bad(f"{name} layer: rank={rank_value!r} is not an integer")
        labels = tuple(_label(lb, sentence.text) for lb in _children(_child(layer, "labels"), "label"))
        if name == "Target" and any(lb.name != "Target" or not lb.is_overt for lb in labels):
            raise _Bad("a Target layer label is not name=\"Target\" with offsets (the scorer ignores it)")
        layers.append(Layer(name, int(rank_value), labels))
    if not any(layer.name == "Target" and layer.labels for layer in layers):
        raise _Bad("no Target label")
    return AnnotationSet(
        id=_int_id(elem, position),
        sentence=sentence,
        status="",
        lu_id=None,
        lu_name=elem.get("luName", ""),
        frame_id=None,
        frame_name=frame,
        layers=tuple(layers),
    )


def _read_bytes(path: Path) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not data.strip():
        raise PyfnError(f"{path}: empty file")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise PyfnError(f"{path}: refused: the document declares a DTD or entities")
    return data


def _sentence_sets(elem: etree._Element, position: int, path: Path, log: ProblemLog) -> Iterator[AnnotationSet]:
    sid = elem.get("ID")
    where = f"{path}: sentence {position}" + (f" (ID {sid})" if sid is not None else "")
    text_elem = _child(elem, "text")
    if text_elem is None:
        log.add("malformed_sentence", where, f"{where}: no <text> element; sentence skipped")
        return
    sentence = Sentence(id=_int_id(elem, position), text=text_elem.text or "", document="")
    for index, aset in enumerate(
        aset for container in _children(elem, "annotationSets") for aset in _children(container, "annotationSet")
    ):
        aid = aset.get("ID")
        set_where = f"{where}, annotationSet {index}" + (f" (ID {aid})" if aid is not None else "")
        try:
            yield _set_of(aset, sentence, index)
        except _Bad as exc:
            log.add("malformed_annotation_set", set_where, f"{set_where}: {exc}; annotation set skipped")


def read(path: Path, *, log: ProblemLog) -> Iterator[AnnotationSet]:
    """Stream the annotation sets of a SemEval XML file (pretty or compact, namespace-free).

    Sentences are numbered by ordinal position, as the scorer does; ``text``
    may be anywhere among a sentence's children. Malformed sentences and sets
    (no text, no ``frameName``, no Target label, non-integer offsets,
    ``start > end``, offsets outside the text) go to ``log``, naming the file,
    the sentence and the set. No DTD, entity or network access; a DOCTYPE is
    refused. Read sets have ``status`` ``""`` and no LU/frame ids; ``lu_name``
    is ``luName`` or ``""``.
    """
    data = _read_bytes(path)
    parser = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    position = 0
    try:
        for event, elem in parser:
            if event == "start":
                if elem.getparent() is None:
                    if elem.getroottree().docinfo.internalDTD is not None:  # declared in an encoding the byte check missed
                        raise PyfnError(f"{path}: refused: the document declares a DTD or entities")
                    if _local(elem) != "corpus":
                        raise PyfnError(f"{path}: not SemEval XML (root element <{_local(elem)}>, expected <corpus>)")
                continue
            if _local(elem) != "sentence":
                continue
            yield from _sentence_sets(elem, position, path, log)
            position += 1
            release_element(elem)
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if exc.position else "?"
        raise PyfnError(f"{path}: malformed XML at line {line}: {' '.join(str(exc.msg).split())}") from None


# --------------------------------------------------------------------------- predictions


def _token_indices(toks: Sequence[Token], spans: Iterable[Span]) -> tuple[int, ...]:
    touched: set[int] = set()
    for start, end in spans:
        first, last, _ = token_span(toks, start, end)
        touched.update(range(first, last + 1))
    return tuple(sorted(touched))


def predictions_from_tokens(pred: Sequence[AnnotationSet], gold: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """Predicted sets read from a token format, with spans as the scorer must see them (§5.3).

    FE labels span the start of their first token to the end of their last.
    The target takes the label segmentation of a gold target of the same
    sentence string with the same token set (gold order decides if several
    differ); otherwise one label per run of adjacent tokens. Other layers are
    kept as they are.
    """
    gold_targets: dict[str, dict[tuple[int, ...], tuple[Span, ...]]] = {}
    for aset in ordered(gold):
        toks = tokens(aset.sentence.text)
        by_tokens = gold_targets.setdefault(sentence_string(aset.sentence.text), {})
        by_tokens.setdefault(_token_indices(toks, aset.target), aset.target)
    out = []
    for aset in pred:
        toks = tokens(aset.sentence.text)
        indices = _token_indices(toks, aset.target)
        spans = gold_targets.get(sentence_string(aset.sentence.text), {}).get(indices) or tuple(run_spans(toks, indices))
        layers = [Layer("Target", 1, tuple(Label("Target", s, e) for s, e in spans))]
        for layer in aset.layers:
            if layer.name == "FE":
                layers.append(replace(layer, labels=tuple(_whole_tokens(toks, lb) for lb in layer.labels)))
            elif layer.name != "Target":
                layers.append(layer)
        out.append(replace(aset, layers=tuple(layers)))
    return out


def _whole_tokens(toks: Sequence[Token], label: Label) -> Label:
    if not label.is_overt:
        return label
    first, last, _ = token_span(toks, *label.span)
    return replace(label, start=toks[first].start, end=toks[last].end)
