"""JSON Lines: pyfn's lossless pivot format, one annotation set per line.

Each line holds the set's ids, status, LU and frame, its ``Target``/``FE``/
``PT``/``GF`` layers with FrameNet character offsets (end inclusive) and its
sentence (text, ids, PENN POS labels). Reading a file back gives the same
:class:`~pyfn.model.AnnotationSet` objects (round trip is identity).
"""

from __future__ import annotations

import json
from dataclasses import replace
from json.encoder import encode_basestring as _quote  # type: ignore[attr-defined]
from sys import intern
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats.base import text_lines
from pyfn.framenet import compiled
from pyfn.framenet.layers import LabelRow
from pyfn.model import AnnotationSet, Label, Layer, PosTag, Sentence
from pyfn.splits.validity import invalid_reason


def _label_to_list(label: Label) -> list[Any]:
    return [label.name, label.start, label.end, label.itype, label.fe_id]


def set_to_dict(aset: AnnotationSet) -> dict[str, Any]:
    """The JSON object of one annotation set (fixed key order)."""
    s = aset.sentence
    return {
        "id": aset.id,
        "source": aset.source,
        "status": aset.status,
        "lu_id": aset.lu_id,
        "lu": aset.lu_name,
        "frame_id": aset.frame_id,
        "frame": aset.frame_name,
        "layers": [
            {"name": layer.name, "rank": layer.rank, "labels": [_label_to_list(lb) for lb in layer.labels]}
            for layer in aset.layers
        ],
        "sentence": {
            "id": s.id,
            "text": s.text,
            "document": s.document,
            "doc_id": s.doc_id,
            "corpus_id": s.corpus_id,
            "sent_no": s.sent_no,
            "parag_no": s.parag_no,
            "apos": s.apos,
            "pos_layer": s.pos_layer,
            "pos": [list(tag) for tag in s.pos],
        },
    }


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _plain(aset: AnnotationSet) -> bool:
    """True when every value of ``aset`` has the type the model declares (None, an int or a str where
    one is expected): what the direct encoder writes as ``json`` would."""
    s = aset.sentence
    ints = [aset.id, aset.lu_id, aset.frame_id, s.id, s.doc_id, s.corpus_id, s.sent_no, s.parag_no, s.apos]
    strs = [aset.source, aset.status, aset.lu_name, aset.frame_name, s.text, s.document, s.pos_layer]
    for layer in aset.layers:
        strs.append(layer.name)
        ints.append(layer.rank)
        for lb in layer.labels:
            strs += (lb.name, lb.itype)
            ints += (lb.start, lb.end, lb.fe_id)
    for tag in s.pos:
        if type(tag) is not tuple or len(tag) != 3:
            return False
        strs.append(tag[0])
        ints += tag[1:]
    return all(v is None or type(v) is int for v in ints) and all(v is None or type(v) is str for v in strs)


def _labels(labels: Iterable[LabelRow]) -> str:
    return ",".join([
        f'[{"null" if name is None else _quote(name)},{"null" if start is None else start},'
        f'{"null" if end is None else end},{"null" if itype is None else _quote(itype)},'
        f'{"null" if fe_id is None else fe_id}]'
        for name, start, end, itype, fe_id in labels
    ])


def encode_sentence(sent_id: int, text: str, document: str, doc_id: int | None, corpus_id: int | None,
                    sent_no: int | None, parag_no: int | None, apos: int | None, pos_layer: str | None,
                    pos: Iterable[PosTag]) -> str:
    """The end of a set's JSON line from its sentence's fields (those of
    :class:`~pyfn.model.Sentence`, in order, each None or of the type the model declares):
    ``"sentence":{...}}``, the same for every set of the sentence."""
    pos_items = ",".join([f'[{"null" if tag is None else _quote(tag)},{"null" if start is None else start},'
                          f'{"null" if end is None else end}]' for tag, start, end in pos])
    return (
        f'"sentence":{{"id":{"null" if sent_id is None else sent_id},'
        f'"text":{"null" if text is None else _quote(text)},'
        f'"document":{"null" if document is None else _quote(document)},'
        f'"doc_id":{"null" if doc_id is None else doc_id},"corpus_id":{"null" if corpus_id is None else corpus_id},'
        f'"sent_no":{"null" if sent_no is None else sent_no},"parag_no":{"null" if parag_no is None else parag_no},'
        f'"apos":{"null" if apos is None else apos},'
        f'"pos_layer":{"null" if pos_layer is None else _quote(pos_layer)},"pos":[{pos_items}]}}}}'
    )


def encode_set(set_id: int, source: str, status: str, lu_id: int | None, lu_name: str, frame_id: int | None,
               frame_name: str, layers: Iterable[tuple[str, int, Iterable[LabelRow]]], sentence: str) -> str:
    """One set's JSON line (no newline) from its fields (each None or of the type the model
    declares), its layers as ``(name, rank, labels)`` with labels as ``(name, start, end, itype,
    fe_id)``, and its sentence's :func:`encode_sentence` (the compiled reader writes the same bytes:
    ``pyfn/framenet/_clayers.pyx``)."""
    layer_items = ",".join([
        f'{{"name":{"null" if name is None else _quote(name)},"rank":{"null" if rank is None else rank},'
        f'"labels":[{_labels(labels)}]}}' for name, rank, labels in layers])
    return (
        f'{{"id":{"null" if set_id is None else set_id},"source":{"null" if source is None else _quote(source)},'
        f'"status":{"null" if status is None else _quote(status)},"lu_id":{"null" if lu_id is None else lu_id},'
        f'"lu":{"null" if lu_name is None else _quote(lu_name)},"frame_id":{"null" if frame_id is None else frame_id},'
        f'"frame":{"null" if frame_name is None else _quote(frame_name)},"layers":[{layer_items}],{sentence}'
    )


def dumps(aset: AnnotationSet) -> str:
    """One JSON line (no newline) for ``aset``; deterministic.

    Written directly (:func:`encode_set`: the bytes of ``json`` with
    ``ensure_ascii=False`` and compact separators on :func:`set_to_dict`, in
    60 % of its time); a value of another type than the model declares goes
    through ``json`` itself.
    """
    if not _plain(aset):
        return _ENCODER.encode(set_to_dict(aset))
    s = aset.sentence
    return encode_set(
        aset.id, aset.source, aset.status, aset.lu_id, aset.lu_name, aset.frame_id, aset.frame_name,
        [(layer.name, layer.rank, [(lb.name, lb.start, lb.end, lb.itype, lb.fe_id) for lb in layer.labels])
         for layer in aset.layers],
        encode_sentence(s.id, s.text, s.document, s.doc_id, s.corpus_id, s.sent_no, s.parag_no, s.apos,
                        s.pos_layer, s.pos),
    )


def _label(item: Any) -> Label:
    name, start, end, itype, fe_id = item
    if ((start is not None and type(start) is not int) or (end is not None and type(end) is not int)
            or (fe_id is not None and type(fe_id) is not int)):
        bad = next(v for v in (start, end, fe_id) if v is not None and type(v) is not int)
        raise ValueError(f"label {name!r}: offset or feID {bad!r} is not an integer")
    if type(name) is not str or (itype is not None and type(itype) is not str):
        raise ValueError(f"label {name!r}: name and itype must be strings")
    return Label(intern(name), start, end, itype and intern(itype), fe_id)


def _pos_tags(items: Any) -> tuple[tuple[str, int | None, int | None], ...]:
    out = []
    for item in items:
        name, start, end = item
        if (type(name) is not str or (start is not None and type(start) is not int)
                or (end is not None and type(end) is not int)):
            raise ValueError(f"POS label {item!r} is not [tag, start, end]")
        out.append((intern(name), start, end))
    return tuple(out)


def _sentence(s: dict[str, Any]) -> Sentence:
    if not isinstance(s["text"], str):
        raise ValueError("sentence text is not a string")
    return Sentence(
        id=s["id"],
        text=s["text"],
        document=s["document"],
        doc_id=s["doc_id"],
        corpus_id=s["corpus_id"],
        sent_no=s["sent_no"],
        parag_no=s["parag_no"],
        apos=s["apos"],
        pos_layer=s["pos_layer"],
        pos=_pos_tags(s["pos"]),
    )


_last_sentence: list[Any] = [None, None]
"""The last sentence object read and the :class:`Sentence` made of it: the sets of a sentence are
adjacent in pyfn's files, so an equal object (compared in C) reuses it instead of rebuilding it."""


def set_from_dict(obj: dict[str, Any]) -> AnnotationSet:
    """Rebuild an annotation set from its JSON object; raises ``KeyError``/``ValueError``/``TypeError``."""
    s = obj["sentence"]
    if s == _last_sentence[0]:
        sentence = _last_sentence[1]
    else:
        sentence = _sentence(s)
        _last_sentence[:] = [s, sentence]
    layers = tuple(
        Layer(intern(layer["name"]), layer["rank"], tuple(_label(lb) for lb in layer["labels"]))
        for layer in obj["layers"]
    )
    if not isinstance(obj["id"], int) or not isinstance(obj["frame"], str) or not isinstance(obj["lu"], str):
        raise ValueError("id must be an integer, lu and frame strings")
    return AnnotationSet(
        id=obj["id"],
        sentence=sentence,
        status=obj["status"],
        lu_id=obj["lu_id"],
        lu_name=intern(obj["lu"]),
        frame_id=obj["frame_id"],
        frame_name=intern(obj["frame"]),
        layers=layers,
        source=obj["source"],
    )


def fe_rows(line: str | bytes | dict[str, Any]) -> tuple[str, str, list[tuple[int, str, int | None, int | None]]]:
    """A set's frame, its LU and its FE labels as ``(rank, name, start, end)``, from a JSON line pyfn
    wrote (or the object ``json.loads`` made of it): what dedup and a train-only lexicon take. A line
    goes to the compiled decoder when there is one (its objects cost half the time of ``json``'s
    dicts), else to ``json`` without making model objects (``pyfn generate`` of FN 1.5 FT+EX, 10.0 ->
    4.7 s when this came in)."""
    if isinstance(line, (str, bytes)):
        aset = _decoded(line)
        if aset is not None:  # the compiled decoder's set: twice as fast as json's dicts
            return aset.frame_name, aset.lu_name, [(layer.rank, lb.name, lb.start, lb.end) for layer in aset.layers
                                                   if layer.name == "FE" for lb in layer.labels]
    obj = json.loads(line) if isinstance(line, (str, bytes)) else line
    return obj["frame"], obj["lu"], [(layer["rank"], name, start, end) for layer in obj["layers"]
                                     if layer["name"] == "FE" for name, start, end, *_ in layer["labels"]]


_decode = compiled.JSONL_MODULE.decode if compiled.JSONL_MODULE is not None else None
"""The compiled decoder of lines in :func:`encode_set`'s layout (None when not used:
:data:`pyfn.framenet.compiled.JSONL_DECODER` says why)."""


FRAME_LAYERS_ONLY = ("Target", "FE")
"""The layers a set read with ``frame_layers_only`` keeps (:func:`loads`)."""


def _decoded(line: str | bytes, frame_layers_only: bool = False) -> AnnotationSet | None:
    """The set of a line in :func:`encode_set`'s layout, by the compiled decoder; None without it or
    for any other line (then ``json`` reads it)."""
    if _decode is None:
        return None
    return _decode(line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line), frame_layers_only)


def frame_layers_of(aset: AnnotationSet) -> AnnotationSet:
    """``aset`` with its Target and FE layers only and a sentence without POS tags (``pos_layer``
    None, ``pos`` ()): what :func:`loads` gives with ``frame_layers_only``."""
    return replace(aset, layers=tuple(layer for layer in aset.layers if layer.name in FRAME_LAYERS_ONLY),
                   sentence=replace(aset.sentence, pos_layer=None, pos=()))


def loads(line: str | bytes, where: str = "<string>", frame_layers_only: bool = False) -> AnnotationSet:
    """Parse one JSON line into an annotation set; errors name ``where``.

    A line in :func:`encode_set`'s layout is read by the compiled decoder when there is one (the same
    objects, five times faster); any other line, and every line without it, by ``json``. With
    ``frame_layers_only`` the set is :func:`frame_layers_of` the line's (the compiled decoder makes no
    object of the rest: for writers that read no PT or GF layer and no POS tag); the same errors.
    """
    aset = _decoded(line, frame_layers_only) if isinstance(line, (str, bytes)) else None
    if aset is not None:
        return aset
    try:
        obj = json.loads(line)
        if not isinstance(obj, dict):
            raise ValueError("not a JSON object")
        aset = set_from_dict(obj)
        return frame_layers_of(aset) if frame_layers_only else aset
    except json.JSONDecodeError as exc:
        raise PyfnError(f"{where}: invalid JSON: {exc.msg} at column {exc.colno}") from None
    except KeyError as exc:
        raise PyfnError(f"{where}: missing field {exc.args[0]!r}") from None
    except (ValueError, TypeError) as exc:
        raise PyfnError(f"{where}: {exc}") from None
    except RecursionError:
        raise PyfnError(f"{where}: JSON nested too deeply") from None


def _not_a_set(aset: AnnotationSet) -> tuple[str, str] | None:
    """Why a read set cannot be an annotation set pyfn writes: ``(reason, message)``, else ``None``.

    pyfn writes only sets whose first Target layer has labels with both offsets
    and whose labels pass SPLITS.md step 2 (the reasons are the ledger's keys).
    """
    first = next((layer for layer in aset.layers if layer.name == "Target"), None)
    if first is None:
        return "no_target:no_layer", "no Target layer"
    if not first.labels:
        return "no_target:empty_layer", "the Target layer has no label"
    if not all(label.is_overt for label in first.labels):
        return "no_target:label_without_offsets", "a Target label lacks start or end"
    reason = invalid_reason(aset)
    if reason is not None:
        return reason, f"{_INVALID[reason]} (SPLITS.md step 2)"
    return None


_INVALID = {
    "invalid:unpaired_offset": "a label has start without end or end without start",
    "invalid:offset_past_end": "a label offset is negative or at or past the end of the sentence text",
    "invalid:start_after_end": "a label has start > end",
    "invalid:whitespace_boundary": "a label starts or ends on whitespace",
}


def read(path: Path, *, log: ProblemLog | None = None) -> Iterator[AnnotationSet]:
    """Stream the annotation sets of a JSONL file; problems name the file and line.

    A line that is not a set (bad JSON, missing or mistyped field), a set pyfn
    would never write (no target, an invalid label: SPLITS.md step 2) and a
    set whose id an earlier line of the same source (fulltext or exemplar: FrameNet
    numbers them apart, and FN 1.5 gives 1,114 IDs to both) already had are skipped and counted in
    ``log`` (``malformed_line``, the ledger's ``no_target:*``/``invalid:*``,
    ``duplicate_id``); without a ``log`` or when it is strict, the first one
    raises :class:`PyfnError`. A UTF-8 BOM and CRLF line ends are accepted.
    """
    log = log if log is not None else ProblemLog(strict=True)
    seen: dict[tuple[str, int], int] = {}  # FrameNet's set IDs are unique per source (FN 1.5: 1,114 shared)
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            aset = loads(line, where)
        except PyfnError as exc:
            log.add("malformed_line", where, str(exc))
            continue
        bad = _not_a_set(aset)
        if bad is not None:
            log.add(bad[0], where, f"{where}: annotation set {aset.id}: {bad[1]}")
            continue
        first = seen.setdefault((aset.source, aset.id), lineno)
        if first != lineno:
            log.add("duplicate_id", where, f"{where}: {aset.source} annotation set {aset.id} already read at line {first}")
            continue
        yield aset
