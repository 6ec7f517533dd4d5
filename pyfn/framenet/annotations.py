"""Readers of annotated sentences: ``fulltext/*.xml`` and ``lu/*.xml`` (exemplars).

Each reader turns one file's bytes into a :class:`FileResult`: the annotation
sets, and the problems met, each naming its item, so that batch runs can skip
and count them. An annotation set is a set whose first ``Target`` layer has
labels that all carry ``start`` and ``end`` (the labels of every ``Target``
layer make its target); a set with an empty first ``Target`` layer, or one of
whose first-layer labels lacks an offset, is not a frame annotation and is
counted under a ``no_target:*`` reason.

:func:`read_file` reads a file once, for every use: it hands each sentence and
set, as plain rows, to two callbacks. :func:`read_annotations` makes model
objects of them (``pyfn.load``, the fnxml reader); the split builder's records
(:func:`pyfn.splits.parsed.parse_file`) are made from the rows directly. The
sentences of a file and the layers of each set are read by compiled twins when
they were built (:mod:`pyfn.framenet.compiled`), by the Python code here
otherwise; ``tests/test_sentences.py`` holds the two to the same results.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from lxml import etree

from pyfn.errors import Problem, PyfnError
from pyfn.framenet import compiled
from pyfn.framenet.layers import LayerRows, read_layers
from pyfn.framenet.xml import NS, check_bytes, holds_declaration, int_attr, iterparse, release_element
from pyfn.model import AnnotationSet, Label, Layer, PosTag, Sentence

_TEXT = NS + "text"
_ANNOSET = NS + "annotationSet"

read_sentences_c = compiled.MODULE.read_sentences if compiled.MODULE is not None else None
"""The compiled sentence reader (None when not used: :data:`pyfn.framenet.compiled.READER` says why)."""
LexUnitIds = tuple["int | None", str, "int | None", str]
"""An lu file's ``(LU ID, LU name, frame ID, frame name)``, from its ``<lexUnit>``."""
S = TypeVar("S")
T = TypeVar("T")


@dataclass
class FileResult(Generic[T]):
    """What one annotation file held (``sets``: what :func:`read_file`'s ``make_set`` made of each set)."""

    path: str
    sha256: str
    sets: list[T] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    sentences: int = 0
    not_annotation_sets: Counter = field(default_factory=Counter)
    set_ids: dict[int, int] = field(default_factory=dict, repr=False)
    """Annotation-set ID -> ID of the sentence it was read in (an ID may appear once per file)."""
    texts: dict[int, str] = field(default_factory=dict, repr=False)
    """Sentence ID -> text (lu files repeat a sentence in several subcorpora, always with its text)."""
    not_annotation_set_ids: list[tuple[str | None, int, str]] = field(default_factory=list, repr=False)
    """``(annotationSet ID attribute, sentence ID, reason)`` of each set counted in ``not_annotation_sets``."""


def _int(elem: etree._Element, name: str) -> int | None:
    value = elem.get(name)
    return None if value is None else int(value)


def _read_sentence(
    sent: etree._Element, document: str, where: str, lexunit: LexUnitIds | None, result: FileResult,
    make_sentence: Callable[..., Any], make_set: Callable[..., Any],
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
    frame_sets: list[tuple[etree._Element, list[LayerRows]]] = []
    no_layer: list[str | None] = []
    for aset in sent.iterchildren(_ANNOSET):
        layers, has_target, pos_read, pos_tags, error = read_layers(aset, pos_layer is None)
        if pos_read is not None:
            pos_layer, pos = pos_read, pos_tags
        if error is not None:
            aset_where = f"{where} annotationSet {aset.get('ID')}"
            result.problems.append(Problem("malformed_annotation_set", aset_where, f"{aset_where}: {error}"))
            continue
        if has_target:
            frame_sets.append((aset, layers))
        elif aset.get("frameName") is not None or aset.get("luName") is not None or any(
            name == "FE" and rows for name, _, rows in layers
        ):
            no_layer.append(aset.get("ID"))  # a frame annotation whose Target layer is missing: counted, not dropped
    try:
        ids = (_int(sent, "docID"), _int(sent, "corpID"), _int(sent, "sentNo"), _int(sent, "paragNo"), _int(sent, "aPos"))
    except ValueError:
        raise PyfnError(f"{where}: a non-integer docID, corpID, sentNo, paragNo or aPos attribute") from None
    sentence = make_sentence(sent_id, text, document, *ids, pos_layer, pos)
    first_text = result.texts.setdefault(sent_id, text)
    if first_text != text:
        raise PyfnError(f"{where}: sentence ID already read in this file with another text ({first_text[:40]!r})")
    result.sentences += 1
    for aset_id in no_layer:
        _not_annotation_set(result, aset_id, sent_id, "no_target:no_layer")
    for aset, layers in frame_sets:
        first_target = next(rows for name, _, rows in layers if name == "Target")
        if not first_target:
            _not_annotation_set(result, aset.get("ID"), sent_id, "no_target:empty_layer")
            continue
        if not all(row[1] is not None and row[2] is not None for row in first_target):
            _not_annotation_set(result, aset.get("ID"), sent_id, "no_target:label_without_offsets")
            continue
        aset_where = f"{where} annotationSet {aset.get('ID')}"
        try:
            set_id, lu_id, lu_name, frame_id, frame_name = _set_ids(aset, aset_where, lexunit)
            first = result.set_ids.get(set_id)
            if first is not None:
                raise PyfnError(f"{aset_where}: annotationSet ID already read in this file (sentence {first})")
            result.set_ids[set_id] = sent_id
            result.sets.append(make_set(sentence, set_id, aset.get("status", ""), lu_id, lu_name, frame_id, frame_name,
                                        layers, "exemplar" if lexunit is not None else "fulltext", None))
        except PyfnError as exc:
            result.problems.append(Problem("malformed_annotation_set", aset_where, str(exc)))


def _not_annotation_set(result: FileResult, aset_id: str | None, sent_id: int, reason: str) -> None:
    result.not_annotation_sets[reason] += 1
    result.not_annotation_set_ids.append((aset_id, sent_id, reason))


def _set_ids(
    aset: etree._Element, where: str, lexunit: LexUnitIds | None
) -> tuple[int, int | None, str, int | None, str]:
    """``(set ID, LU ID, LU name, frame ID, frame name)`` of a set (an lu file's from its ``<lexUnit>``)."""
    if lexunit is not None:
        lu_id, lu_name, frame_id, frame_name = lexunit
    else:
        lu_name, frame_name = aset.get("luName"), aset.get("frameName")
        lu_id, frame_id = int_attr(aset, "luID", where), int_attr(aset, "frameID", where)
    if not lu_name or not frame_name:
        raise PyfnError(f"{where}: labelled Target layer but no luName/frameName")
    set_id = int_attr(aset, "ID", where, required=True)
    assert set_id is not None
    return set_id, lu_id, lu_name, frame_id, frame_name


def _lexunit_ids(elem: etree._Element, relpath: str) -> LexUnitIds:
    """``(LU ID, LU name, frame ID, frame name)`` of an lu file's ``<lexUnit>`` (an ID that is not an
    integer is None); :class:`PyfnError` without a name or frame."""
    attrs = {key: value for key in ("name", "frame", "ID", "frameID") if (value := elem.get(key))}
    if not attrs.get("name") or not attrs.get("frame"):
        raise PyfnError(f"{relpath}: <lexUnit> has no name or frame attribute")
    return _opt_int(attrs.get("ID")), attrs["name"], _opt_int(attrs.get("frameID")), attrs["frame"]


def _opt_int(value: str | None) -> int | None:
    if value is None or not value.lstrip("-").isdigit():
        return None
    try:
        return int(value)
    except ValueError:  # a digit int() does not take, as "\u00b2"
        return None


def _sentence_or_problem(
    sent: etree._Element, document: str, relpath: str, lexunit: LexUnitIds | None, result: FileResult,
    make_sentence: Callable[..., Any], make_set: Callable[..., Any],
) -> None:
    """:func:`_read_sentence`, a sentence it cannot read recorded as a ``malformed_sentence`` problem."""
    try:
        _read_sentence(sent, document, relpath, lexunit, result, make_sentence, make_set)
    except PyfnError as exc:
        result.problems.append(Problem("malformed_sentence", f"{relpath} sentence {sent.get('ID')}", str(exc)))


def read_file(
    data: bytes, relpath: str, make_sentence: Callable[..., S], make_set: Callable[..., T]
) -> FileResult[T]:
    """Read a ``fulltext/*.xml`` or ``lu/*.xml`` file (decided by its root element) into what the two
    callbacks make of its sentences and annotation sets.

    ``make_sentence`` is called once per sentence with the fields of :class:`~pyfn.model.Sentence`,
    in order; ``make_set(sentence, id, status, lu_id, lu_name, frame_id, frame_name, layers, source,
    line)`` once per annotation set, with what ``make_sentence`` returned, the set's
    ``Target``/``FE``/``PT``/``GF`` layers as ``(name, rank, [(name, start, end, itype, fe_id), ...])``
    in document order and, when the compiled reader wrote it, the set's JSON line in UTF-8 as
    :func:`pyfn.formats.jsonl.encode_set` writes it (else None); :attr:`FileResult.sets` lists what
    it returns. Raises :class:`PyfnError` when the file as
    a whole cannot be read (malformed XML, wrong namespace); bad sentences and sets are recorded as
    problems.

    With the compiled reader (:mod:`pyfn.framenet.compiled`), a well-formed file is parsed whole and
    its sentences read in C (:func:`_read_whole`); otherwise, and for any file it leaves, the file is
    streamed and read here (:func:`read_file_streamed`). The two give the same result.
    """
    if read_sentences_c is not None:
        result = _read_whole(data, relpath, make_sentence, make_set)
        if result is not None:
            return result
    return read_file_streamed(data, relpath, make_sentence, make_set)


_WHOLE = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                         remove_comments=True)
"""The parser of :func:`_read_whole`: the settings of :func:`pyfn.framenet.xml.iterparse`."""
_WHOLE_NO_BLANKS = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                                   remove_comments=True, remove_blank_text=True)
""":data:`_WHOLE` dropping blank text between elements: half of a FrameNet file's nodes, never read
(FN 1.5: 1.1 s less of 12 s of CPU to read every file). Used for a file without ``<!`` or a CR
byte. libxml2 (``areBlanks``) then drops blank text only where ``<`` follows it and not as an
element's whole content: no element's ``.text`` changes, unless it is blank text before the
element's first child element or instruction, which :func:`read_sentences_c` declines for ``<text>``.
A comment (removed), a CDATA section or a CR after the blank text would let it drop an element's
leading text."""
_ROOTS = (NS + "fullTextAnnotation", NS + "lexUnit")
WHOLE_LIMIT = 32 << 20
"""Bytes above which a file is streamed, not parsed whole: its tree takes several times its size
(FrameNet's largest annotation file is 2.3 MB)."""


def _read_whole(data: bytes, relpath: str, make_sentence: Callable[..., S],
                make_set: Callable[..., T]) -> FileResult[T] | None:
    """:func:`read_file` by the compiled reader: the file parsed whole, then every sentence read in C
    (one with anything unusual by :func:`_read_sentence`). None when the file is for the streamed
    reader: larger than :data:`WHOLE_LIMIT`, not well-formed, a DTD, a root other than
    ``<fullTextAnnotation>`` or ``<lexUnit>``, a sentence inside a sentence (its errors, order and
    element releases are the streamed reader's), or a sentence's ``<text>`` whose first child is an
    element or an instruction (:data:`_WHOLE_NO_BLANKS`)."""
    if len(data) > WHOLE_LIMIT:
        return None
    check_bytes(data, relpath)
    parser = _WHOLE if b"\r" in data or holds_declaration(data) else _WHOLE_NO_BLANKS
    try:
        root = etree.fromstring(data, parser)
    except (etree.LxmlError, ValueError):
        return None
    if root.getroottree().docinfo.internalDTD is not None or root.tag not in _ROOTS:
        return None
    lexunit = _lexunit_ids(root, relpath) if root.tag == _ROOTS[1] else None
    result: FileResult[T] = FileResult(path=relpath, sha256=hashlib.sha256(data).hexdigest())
    document = relpath.rsplit("/", 1)[-1]

    def fallback(sent: etree._Element) -> None:
        _sentence_or_problem(sent, document, relpath, lexunit, result, make_sentence, make_set)

    assert read_sentences_c is not None
    if not read_sentences_c(root, document, relpath, lexunit, result, make_sentence, make_set, fallback):
        return None
    return result


def read_file_streamed(
    data: bytes, relpath: str, make_sentence: Callable[..., S], make_set: Callable[..., T]
) -> FileResult[T]:
    """:func:`read_file` in Python: the file streamed (:func:`~pyfn.framenet.xml.iterparse`), each
    sentence read and released at its end."""
    result: FileResult[T] = FileResult(path=relpath, sha256=hashlib.sha256(data).hexdigest())
    document = relpath.rsplit("/", 1)[-1]
    lexunit: LexUnitIds | None = None
    seen_root = False
    for event, elem in iterparse(data, relpath, ("fullTextAnnotation", "lexUnit", "sentence"), ("start", "end")):
        tag = elem.tag[len(NS):]
        if tag != "sentence":
            if event == "start" and not seen_root:
                seen_root = True
                if tag == "lexUnit":
                    lexunit = _lexunit_ids(elem, relpath)
            continue
        if event != "end":
            continue
        _sentence_or_problem(elem, document, relpath, lexunit, result, make_sentence, make_set)
        release_element(elem)
    if not seen_root:
        raise PyfnError(f"{relpath}: root element is neither <fullTextAnnotation> nor <lexUnit>")
    return result


def _annotation_set(sentence: Sentence, set_id: int, status: str, lu_id: int | None, lu_name: str,
                    frame_id: int | None, frame_name: str, layers: list[LayerRows], source: str,
                    line: bytes | None) -> AnnotationSet:
    return AnnotationSet(
        id=set_id,
        sentence=sentence,
        status=status,
        lu_id=lu_id,
        lu_name=lu_name,
        frame_id=frame_id,
        frame_name=frame_name,
        layers=tuple(Layer(name, rank, tuple(Label(*row) for row in rows)) for name, rank, rows in layers),
        source=source,
    )


def read_annotations(data: bytes, relpath: str) -> FileResult[AnnotationSet]:
    """Read a ``fulltext/*.xml`` or ``lu/*.xml`` file into :class:`~pyfn.model.AnnotationSet` objects
    (:func:`read_file`)."""
    return read_file(data, relpath, Sentence, _annotation_set)
