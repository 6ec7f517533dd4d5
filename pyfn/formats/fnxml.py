"""FrameNet XML out (``--to fnxml``): each split as a FrameNet-layout corpus folder, and such a folder read back.

``TARGET/{split}/`` is what a FrameNet release would be if it held that split alone:

- ``fulltext/CORPUS__DOC.xml`` (``fullText.xsd``): the split's full-text documents, each sentence
  with its ``PENN`` POS annotation set first (status ``UNANN``) then its kept annotation sets, with
  FrameNet's ids; ``fulltextIndex.xml``: the release's index limited to these documents (NLTK
  derives a document's file name from its corpus name and its document name or description);
- ``lu/lu{ID}.xml`` (``lexUnit.xsd``, train only): one file for every LU of ``frame/`` (NLTK's
  ``exemplars()`` opens the file of every LU of every frame), its head (lexeme, definition,
  semantic types, the frame's FEs as the header's legend) taken from the folder's own frame file,
  and the split's exemplar sets of that LU, if any, in one ``subCorpus``;
- the lexicon: ``frame/*.xml``, ``frameIndex.xml``, ``luIndex.xml``, ``frRelation.xml`` and
  ``semTypes.xml`` (:func:`pyfn.train_lexicon.lexicon_view`), with the release's ``schema/*.xsd``. Train's is
  train-limited exactly as ``pyfn generate``'s ``fn_train/`` (leak-checked); dev's and test's is the
  release's, without the excluded frames and LUs (evaluation folders: a parser's lexicon comes from
  ``train/`` only), and they have no ``lu/`` (they hold no exemplars);
- ``README.txt`` and :data:`MARKER`, which makes :func:`split_marker` recognise the folder, so that
  ``pyfn convert --from fnxml --source TARGET/{split}`` reads it as exactly that split.

What a reader of FrameNet-layout corpora (NLTK's ``FramenetCorpusReader``) cannot take is counted
as a loss (:data:`LOSSES`), never written silently. Every file is a function of its own sets only:
files are written in parallel, byte-identical whatever the number of processes.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from lxml import etree

from pyfn import __version__
from pyfn.collector import no_cycle_collection
from pyfn.errors import ProblemLog, PyfnError
from pyfn.fileio import atomic_writer, synced_once
from pyfn.formats import jsonl
from pyfn.formats.base import Losses
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.release import Release
from pyfn.framenet.xml import FN_NS, NS
from pyfn.train_lexicon import TrainInventory, check_leaks, lexicon_view, parse_xml, release_frames, release_inventory
from pyfn.model import AnnotationSet, Frame, Label, PosTag, Sentence
from pyfn.workers import chunk_size, job_count, mapper

MARKER = "pyfn-split.json"
"""The file that makes a folder a pyfn split folder (:func:`split_marker`)."""
README = "README.txt"
NEEDED = ("fulltextIndex.xml", "frameIndex.xml", "luIndex.xml", "frRelation.xml", "semTypes.xml")
"""The release files a FrameNet-layout corpus folder is made from (besides ``frame/``)."""
READ_FOLDERS = ("fulltext", "lu", "frame")
"""Folders whose every file readers take (pyfn's split-folder reader, Open-SESAME's frames)."""
SUBCORPUS = "pyfn"
"""The name of the one ``subCorpus`` of an LU file (the release's subcorpus names are not kept)."""
LOSSES = {
    "frame_not_in_lexicon": "a set whose frame (ID and name) has no frame file in the folder's lexicon is left out "
                            "(NLTK looks every set's frame up)",
    "lu_not_in_lexicon": "an exemplar set whose LU the folder's frame files do not list (no LU file head), or a "
                         "full-text set without an LU ID (NLTK looks it up), is left out",
    "unannotated_exemplar": "an exemplar sentence whose every set has status UNANN is left out (NLTK's "
                            "annotations() takes a set of another status as the sentence's frame annotation)",
    "duplicate_label": "a label repeated in its layer (same name and span) is written once (NLTK's reader "
                       "refuses a layer holding a span twice)",
    "no_pos_layer": "a full-text sentence without POS layer gets an empty PENN layer (NLTK reads the POS tags "
                    "of every full-text sentence from its first annotation set)",
}
"""What a FrameNet-layout folder read by NLTK cannot hold, by loss reason (recorded in the manifest)."""
_UNANN = "UNANN"
T = TypeVar("T")


def check_release(release: Release) -> None:
    """Refuse, before any work, a release lacking what a FrameNet-layout folder is made from."""
    missing = [name for name in NEEDED if not release.exists(name)]
    if not release.list("frame"):
        missing.append("frame/*.xml")
    if missing:
        sample = " (the bundled sample has no index files)" if release.version.endswith("-sample") else ""
        raise PyfnError(f"{release.label}: --to fnxml needs the release's {', '.join(missing)}, which it lacks{sample}")


# ---------------------------------------------------------------- lexicon


@dataclass(frozen=True)
class Lexicon:
    """A split folder's lexicon: its files, the frames they define and the head of each LU file."""

    kind: str
    """``train`` (limited to the split's sets) or ``release`` (the release's, minus exclusions)."""
    files: Mapping[str, bytes]
    """Path relative to the split folder -> bytes: ``frame/*.xml``, the indexes, ``schema/*.xsd``..."""
    frames: Mapping[str, int]
    """Name -> ID of every frame with a frame file."""
    lu_heads: Mapping[int, bytes]
    """LU ID -> its ``lexUnit`` element without sentences (every LU of ``frame/``; none for ``release``)."""
    report: Mapping[str, Any] = field(default_factory=dict)


def _lu_head(frame: etree._Element, lexunit: etree._Element) -> bytes:
    """An LU file's ``lexUnit`` element made from its frame file: attributes, the frame's FEs as the
    header's legend, definition, lexemes and semantic types."""
    attrs = {key: value for key in ("status", "POS", "name", "ID", "incorporatedFE")
             if (value := lexunit.get(key)) is not None}
    head = etree.Element(NS + "lexUnit", {**attrs, "frame": frame.get("name", ""), "frameID": frame.get("ID", "")},
                         nsmap={None: FN_NS})
    header = etree.SubElement(head, NS + "header")
    fes = frame.findall(NS + "FE")
    if fes:
        legend = etree.SubElement(header, NS + "frame")
        for fe in fes:
            keys = (("name", "name"), ("abbrev", "abbrev"), ("type", "coreType"), ("bgColor", "bgColor"),
                    ("fgColor", "fgColor"))
            etree.SubElement(legend, NS + "FE", {key: fe.get(src) for key, src in keys if fe.get(src) is not None})
    children = [child for child in lexunit if child.tag in (NS + "definition", NS + "lexeme", NS + "semType")]
    if not any(child.tag == NS + "definition" for child in children):
        etree.SubElement(head, NS + "definition")
    for child in children:
        copy = etree.SubElement(head, child.tag, dict(child.attrib))
        copy.text = child.text
    return etree.tostring(head)


def _lexicon(release: Release, kind: str, files: dict[str, bytes], frames: Mapping[str, tuple[str, bytes, Frame]],
             report: dict[str, Any]) -> Lexicon:
    defined = {frame.name: frame.id for relpath, _, frame in frames.values()
               if f"frame/{posixpath.basename(relpath)}" in files}
    heads: dict[int, bytes] = {}
    if kind == "train":
        for name, data in files.items():
            if name.startswith("frame/"):
                root = parse_xml(data, name).getroot()
                for lexunit in root.iterfind(NS + "lexUnit"):
                    heads[int(lexunit.get("ID", ""))] = _lu_head(root, lexunit)
    for relpath in release.list("schema", ".xsd"):
        files[relpath] = release.read(relpath)
    return Lexicon(kind, files, defined, heads, {"lexicon": kind, **report})


def train_lexicon(release: Release, frames: Mapping[str, tuple[str, bytes, Frame]],
                  inventory: TrainInventory) -> Lexicon:
    """The train folder's lexicon: ``fn_train/`` of ``pyfn generate`` for the same sets (their
    ``inventory``), leak-checked."""
    files, report = lexicon_view(release, frames, parse_xml(release.read("frRelation.xml"), "frRelation.xml"),
                                 inventory)
    check_leaks(files, inventory, view=True)
    return _lexicon(release, "train", files, frames, dict(report))


def release_lexicon(release: Release, frames: Mapping[str, tuple[str, bytes, Frame]],
                    exclude_frames: Iterable[int], exclude_lus: Iterable[int]) -> Lexicon:
    """An evaluation folder's lexicon: the release's, without the excluded frames and LUs."""
    inventory = release_inventory((frame for _, _, frame in frames.values()), set(exclude_frames), set(exclude_lus))
    files, report = lexicon_view(release, frames, parse_xml(release.read("frRelation.xml"), "frRelation.xml"),
                                 inventory)
    return _lexicon(release, "release", files, frames, dict(report))


# ---------------------------------------------------------------- annotation files


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character no XML document can hold (lxml refuses it in a text or an attribute)."""
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;",
                               "\t": "&#9;"})


def _xml_compatible(value: str, what: str) -> str:
    bad = _NOT_XML.search(value)
    if bad is not None:
        raise PyfnError(f"{what} holds {bad.group()!r}, a character XML cannot hold")
    return value


def _text(value: str, where: str) -> str:
    """Element text as libxml2 serializes it: ``&``, ``<``, ``>`` and carriage returns escaped."""
    return _xml_compatible(value, where).translate(_TEXT_ESCAPES)


@lru_cache(maxsize=1 << 16)
def _attr(value: str) -> str:
    """An attribute value as libxml2 serializes it between double quotes (names, statuses: cached)."""
    return _xml_compatible(value, f"attribute value {value[:40]!r}").translate(_ATTR_ESCAPES)


def _value(value: int | str) -> str | int:
    """An attribute value as lxml writes ``str(value)``."""
    return value if type(value) is int else _attr(str(value))


def _attrs(pairs: Iterable[tuple[str, int | str | None]]) -> str:
    """`` key="value"`` for each pair whose value is not None, in order."""
    return "".join([f' {key}="{_value(value)}"' for key, value in pairs if value is not None])


def _new(seen: set[tuple[str, int, int]], name: str, start: int | None, end: int | None, losses: Losses) -> bool:
    """False for an overt label already written in its layer (counted), else True."""
    if start is None or end is None:
        return True
    if (name, start, end) in seen:
        losses.add("duplicate_label")
        return False
    seen.add((name, start, end))
    return True


def _layer(indent: str, rank: int, name: str, labels: list[str]) -> str:
    """A ``layer`` element (``labels``: its label lines), indented by ``indent``."""
    head = f'{indent}<layer rank="{_value(rank)}" name="{_value(name)}"'
    if not labels:
        return head + "/>\n"
    return f"{head}>\n{''.join(labels)}{indent}</layer>\n"


def _labels(indent: str, labels: Iterable[Label], losses: Losses) -> list[str]:
    seen: set[tuple[str, int, int]] = set()
    out = []
    for lb in labels:
        if _new(seen, lb.name, lb.start, lb.end, losses):
            pairs = (("name", lb.name), ("start", lb.start), ("end", lb.end), ("itype", lb.itype), ("feID", lb.fe_id))
            out.append(f"{indent}<label{_attrs(pairs)}/>\n")
    return out


def _pos_labels(indent: str, tags: Iterable[PosTag], losses: Losses) -> list[str]:
    seen: set[tuple[str, int, int]] = set()
    return [f"{indent}<label{_attrs((('name', name), ('start', start), ('end', end)))}/>\n"
            for name, start, end in tags if _new(seen, name, start, end, losses)]


def _sentence(sentence: Sentence, sets: Sequence[AnnotationSet], fulltext: bool, losses: Losses, level: int) -> str:
    """A ``sentence`` element at indentation ``level`` (as :func:`lxml.etree.indent` with four spaces
    writes it): text, the POS set (when there is a POS layer; always in full text), the sets."""
    try:
        return _sentence_xml(sentence, sets, fulltext, losses, level)
    except PyfnError as exc:
        raise PyfnError(f"sentence {sentence.id}: {exc}") from None


def _sentence_xml(sentence: Sentence, sets: Sequence[AnnotationSet], fulltext: bool, losses: Losses,
                  level: int) -> str:
    at = "    " * level
    inner, layer_at, label_at = at + "    ", at + "        ", at + "            "
    ids = (("corpID", sentence.corpus_id), ("docID", sentence.doc_id), ("sentNo", sentence.sent_no),
           ("paragNo", sentence.parag_no), ("aPos", sentence.apos), ("ID", sentence.id))
    out = [f"{at}<sentence{_attrs(ids)}>\n",
           f"{inner}<text>{_text(sentence.text, 'its text')}</text>\n"]
    if sentence.pos_layer is not None or fulltext:
        if sentence.pos_layer is None:
            losses.add("no_pos_layer")
        pos = _layer(layer_at, 1, sentence.pos_layer or "PENN", _pos_labels(label_at, sentence.pos, losses))
        out.append(f'{inner}<annotationSet status="{_UNANN}">\n{pos}{inner}</annotationSet>\n')
    for aset in sets:
        ids = (("luID", aset.lu_id), ("luName", aset.lu_name), ("frameID", aset.frame_id),
               ("frameName", aset.frame_name)) if fulltext else ()
        head = f"{inner}<annotationSet{_attrs((*ids, ('status', aset.status), ('ID', aset.id)))}"
        if not aset.layers:
            out.append(head + "/>\n")
            continue
        out.append(head + ">\n")
        out += [_layer(layer_at, layer.rank, layer.name, _labels(label_at, layer.labels, losses))
                for layer in aset.layers]
        out.append(f"{inner}</annotationSet>\n")
    out.append(f"{at}</sentence>\n")
    return "".join(out)


def _sentence_order(sentence_id: int, parag_no: int | None, sent_no: int | None) -> tuple[int, int, int]:
    """A sentence's place in a file: document order (paragraph, sentence number, ID)."""
    return (-1 if parag_no is None else parag_no, -1 if sent_no is None else sent_no, sentence_id)


def _sentence_groups(items: Iterable[T], order: Callable[[T], tuple[int, int, int]],
                     set_id: Callable[[T], int]) -> list[list[T]]:
    """Items grouped by sentence ID (the last of ``order``), sentences in document order (``order`` of
    each group's first item), each group's items by set ID."""
    groups: dict[int, list[T]] = {}
    for item in items:
        groups.setdefault(order(item)[2], []).append(item)
    return [sorted(group, key=set_id) for group in sorted(groups.values(), key=lambda group: order(group[0]))]


def _by_sentence(sets: Iterable[AnnotationSet]) -> list[tuple[Sentence, list[AnnotationSet]]]:
    """Sets grouped by sentence ID, sentences in document order (:func:`_sentence_order`), sets by ID."""
    groups = _sentence_groups(sets, lambda a: _sentence_order(a.sentence.id, a.sentence.parag_no, a.sentence.sent_no),
                              attrgetter("id"))
    return [(group[0].sentence, group) for group in groups]


def _serialize(root: etree._Element) -> bytes:
    etree.indent(root, space="    ")
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True) + b"\n"


_PLACE = NS + "pyfnChildren"
_PLACED = b"    <pyfnChildren/>\n"
"""An empty last child of a file's root, as serialized: where its children are written."""


def _with_children(root: etree._Element, children: str) -> bytes:
    """``root`` serialized with ``children`` (indented element text) after its own children: the
    sentences, the bulk of a file, are written as text, not built as elements (a third of the
    time), in the bytes :func:`_serialize` gives for the whole tree (``tests/test_fnxml.py``)."""
    etree.SubElement(root, _PLACE)
    data = _serialize(root)
    if data.count(_PLACED) != 1:  # text and attributes are escaped: only the element itself is written so
        raise AssertionError(f"{root.tag}: no single place for its children in {data[-200:]!r}")
    return data.replace(_PLACED, children.encode())


def fulltext_file(header: bytes, sets: Sequence[AnnotationSet], losses: Losses) -> bytes:
    """A ``fulltext/*.xml`` document: ``header`` (its corpus and document) and the sentences of ``sets``."""
    root = etree.Element(NS + "fullTextAnnotation", nsmap={None: FN_NS})
    root.append(etree.fromstring(header))
    return _with_children(root, "".join([_sentence(sentence, group, True, losses, 1)
                                         for sentence, group in _by_sentence(sets)]))


def lu_file(head: bytes, sets: Sequence[AnnotationSet], losses: Losses) -> bytes:
    """An ``lu/lu{ID}.xml`` file: its ``head`` and, when there are ``sets``, one ``subCorpus`` of their sentences."""
    root = etree.fromstring(head)
    if not sets:
        return _serialize(root)
    sentences = "".join([_sentence(sentence, group, False, losses, 2) for sentence, group in _by_sentence(sets)])
    return _with_children(root, f'    <subCorpus name="{SUBCORPUS}">\n{sentences}    </subCorpus>\n')


# ---------------------------------------------------------------- a split folder


def _fulltext_index(release: Release, documents: Iterable[str]) -> tuple[bytes, dict[str, bytes]]:
    """The release's ``fulltextIndex.xml`` limited to ``documents`` (file names), and the header of each."""
    wanted = set(documents)
    tree = parse_xml(release.read("fulltextIndex.xml"), f"{release.label}: fulltextIndex.xml")
    headers: dict[str, bytes] = {}
    for corpus in tree.getroot().findall(NS + "corpus"):
        for document in corpus.findall(NS + "document"):
            name = f"{corpus.get('name')}__{document.get('name') or document.get('description')}.xml"
            if name not in wanted:
                corpus.remove(document)
                continue
            header = etree.Element(NS + "header", nsmap={None: FN_NS})
            etree.SubElement(etree.SubElement(header, NS + "corpus", dict(corpus.attrib)), NS + "document",
                             dict(document.attrib))
            headers[name] = etree.tostring(header)
        if corpus.find(NS + "document") is None:
            tree.getroot().remove(corpus)
    missing = sorted(wanted - headers.keys())
    if missing:
        raise PyfnError(f"{release.label}: fulltextIndex.xml names no corpus and document whose file is "
                        f"{', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}: FrameNet readers would "
                        "not find it")
    root = tree.getroot()
    return _serialize(root), headers


class _Placed(NamedTuple):
    """What placing a set in a split folder takes, read from its JSON line: the worker writing the set's
    file decodes the line, so that the parent holds no set (FN 1.5 FT+EX train: peak memory 1,470 MB
    when it decoded them all, 752 MB now)."""

    line: bytes
    set_id: int
    order: tuple[int, int, int]
    status: str
    source: str
    lu_id: int | None
    frame_id: int | None
    frame: str
    document: str
    text: str
    """The sentence's text without surrounding whitespace (the folder's sentences are counted by it)."""


def _placed(obj: dict[str, Any], line: bytes) -> _Placed:
    s = obj["sentence"]
    return _Placed(line, obj["id"], _sentence_order(s["id"], s["parag_no"], s["sent_no"]), obj["status"],
                   obj["source"], obj["lu_id"], obj["frame_id"], obj["frame"], s["document"], s["text"].strip())


def _plan(sets: Iterable[_Placed], lexicon: Lexicon, losses: Losses
          ) -> tuple[dict[str, list[_Placed]], dict[int, list[_Placed]]]:
    """The sets of each full-text document and of each LU file; what the folder cannot hold is counted."""
    documents: dict[str, list[_Placed]] = {}
    exemplars: dict[int, list[_Placed]] = {}
    for aset in sets:
        if aset.frame_id is None or lexicon.frames.get(aset.frame) != aset.frame_id:
            losses.add("frame_not_in_lexicon")
        elif aset.source == "exemplar":
            if aset.lu_id is not None and aset.lu_id in lexicon.lu_heads:
                exemplars.setdefault(aset.lu_id, []).append(aset)
            else:
                losses.add("lu_not_in_lexicon")
        elif aset.lu_id is None:
            losses.add("lu_not_in_lexicon")
        else:
            documents.setdefault(aset.document, []).append(aset)
    for lu_id, lu_sets in exemplars.items():
        groups = _sentence_groups(lu_sets, attrgetter("order"), attrgetter("set_id"))
        kept = [aset for group in groups if any(a.status != _UNANN for a in group) for aset in group]
        losses.add("unannotated_exemplar", len(lu_sets) - len(kept))
        exemplars[lu_id] = kept
    return documents, exemplars


_WORKER: dict[str, Any] = {}


def _init_worker(folder: Path, headers: Mapping[str, bytes], documents: Mapping[str, list[_Placed]],
                 heads: Mapping[int, bytes], exemplars: Mapping[int, list[_Placed]]) -> None:
    _WORKER.update(folder=folder, headers=headers, documents=documents, heads=heads, exemplars=exemplars)


def _write_one(task: tuple[str, str | int]) -> tuple[str, str, dict[str, int]]:
    """Write one annotation file; ``(path relative to the folder, sha256, losses)``."""
    kind, key = task
    losses = Losses()
    placed = _WORKER["documents"][key] if kind == "fulltext" else _WORKER["exemplars"].get(key, [])
    sets = [jsonl.loads(aset.line) for aset in placed]  # forked from write_folders: the collector is paused
    relpath = f"fulltext/{key}" if kind == "fulltext" else f"lu/lu{key}.xml"
    try:
        data = (fulltext_file(_WORKER["headers"][key], sets, losses) if kind == "fulltext" else
                lu_file(_WORKER["heads"][key], sets, losses))
    except PyfnError as exc:
        raise PyfnError(f"{_WORKER['folder'] / relpath}: {exc}") from None
    with atomic_writer(_WORKER["folder"] / relpath, "wb") as handle:
        handle.write(data)
    return relpath, hashlib.sha256(data).hexdigest(), dict(losses.counts)


def _readme(marker: Mapping[str, Any]) -> str:
    lexicon = ("limited to train, as `pyfn generate` writes fn_train/ (build a parser's lexicon from here)"
               if marker["lexicon"] == "train" else
               "the release's, without the excluded frames and LUs (an evaluation folder: build a parser's "
               "lexicon from train/ only); no lu/ folder: call NLTK's annotations() and sents() with "
               "exemplars=False here")
    return f"""pyfn split folder: FrameNet Release {marker['release']}, split {marker['pyfn_split']}

The {marker['pyfn_split']} split of FrameNet Release {marker['release']} as pyfn {marker['pyfn_version']} built it
({marker['signature']}), in FrameNet's own layout:
{marker['annotation_sets']} annotation sets of {marker['sentences']} sentences. Lexicon: {lexicon}.

Read it with NLTK:  FramenetCorpusReader("{marker['pyfn_split']}", [])
Read it with pyfn:  pyfn convert --from fnxml --source {marker['pyfn_split']} --to jsonl --target DIR

FrameNet is developed by the International Computer Science Institute,
Berkeley, and released under the Creative Commons Attribution license
(CC BY): https://framenet.icsi.berkeley.edu/
"""


def _write_folder(
    release: Release, folder: Path, split: str, sets: Sequence[_Placed], lexicon: Lexicon, *,
    signature: str, losses: Losses, jobs: int = 0,
) -> tuple[dict[str, str], dict[str, Any]]:
    """Write one split folder; return ``path relative to folder -> sha256`` and its record for the manifest."""
    documents, exemplars = _plan(sets, lexicon, losses)
    index, headers = _fulltext_index(release, documents)
    kept = [aset for group in (*documents.values(), *exemplars.values()) for aset in group]
    marker = {
        "pyfn_split": split, "pyfn_version": __version__, "release": release.version, "signature": signature,
        "lexicon": lexicon.kind, "annotation_sets": len(kept),
        "sentences": len({a.text for a in kept}),
    }
    files = {**lexicon.files, "fulltextIndex.xml": index, MARKER: (json.dumps(marker, indent=2) + "\n").encode(),
             README: _readme(marker).encode()}
    outputs: dict[str, str] = {}
    for relpath, data in sorted(files.items()):
        with atomic_writer(folder / relpath, "wb") as handle:
            handle.write(data)
        outputs[relpath] = hashlib.sha256(data).hexdigest()
    tasks: list[tuple[str, str | int]] = [("fulltext", name) for name in sorted(documents)]
    tasks += [("lu", lu_id) for lu_id in sorted(lexicon.lu_heads)]
    state = (folder, headers, documents, lexicon.lu_heads, exemplars)
    jobs = job_count(jobs, len(tasks), per_job=64)
    with mapper(jobs, _init_worker, state, chunksize=chunk_size(len(tasks), jobs)) as mapped:
        for relpath, digest, counts in mapped(_write_one, tasks):
            outputs[relpath] = digest
            for reason, n in counts.items():
                losses.add(reason, n)
    record = {**lexicon.report, "annotation_sets": len(kept), "sentences": marker["sentences"],
              "fulltext_documents": len(documents), "lu_files": len(lexicon.lu_heads),
              "lu_files_with_exemplars": sum(1 for group in exemplars.values() if group)}
    return dict(sorted(outputs.items())), record


def write_folders(
    release: Release, target: Path, splits: Mapping[str, Sequence[bytes]], *, exclude_frames: Iterable[int],
    exclude_lus: Iterable[int], signature: str, jobs: int = 0,
) -> tuple[dict[str, str], dict[str, Losses], dict[str, Any]]:
    """Write ``TARGET/{split}/`` for every split (its JSON lines, in output order); return the files
    written (path relative to ``target`` -> sha256), the losses of each split and the manifest's record
    (:data:`LOSSES` and what each split folder holds)."""
    frames = release_frames(release)
    outputs: dict[str, str] = {}
    losses: dict[str, Losses] = {}
    records: dict[str, Any] = {}
    evaluation: Lexicon | None = None
    with synced_once(), no_cycle_collection():  # the workers too: what they make holds no cycle
        for split, lines in splits.items():
            placed, rows = [], []
            for line in lines:  # one json.loads a line: the train lexicon's rows and what placing a set takes
                obj = json.loads(line)
                placed.append(_placed(obj, line))
                if split == "train":
                    rows.append(jsonl.fe_rows(obj))
            if split == "train":
                lexicon = train_lexicon(release, frames, TrainInventory.of_rows(rows))
                rows.clear()  # before the workers are forked
            else:
                evaluation = evaluation or release_lexicon(release, frames, exclude_frames, exclude_lus)
                lexicon = evaluation
            losses[split] = Losses()
            written, records[split] = _write_folder(release, target / split, split, placed, lexicon,
                                                   signature=signature, losses=losses[split], jobs=jobs)
            outputs.update((f"{split}/{relpath}", digest) for relpath, digest in written.items())
    return outputs, losses, {"loss_reasons": LOSSES, "splits": records}


# ---------------------------------------------------------------- reading a split folder back


def split_marker(path: Path) -> dict[str, Any] | None:
    """What :data:`MARKER` of a pyfn split folder says (None when ``path`` is not one)."""
    marker = Path(path) / MARKER
    if not marker.is_file():
        return None
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PyfnError(f"{marker}: unreadable ({exc}): not a pyfn split marker") from None
    if not isinstance(record, dict) or record.get("pyfn_split") not in ("train", "dev", "test"):
        raise PyfnError(f"{marker}: not a pyfn split marker (no pyfn_split train, dev or test)")
    return record


def read_folder(folder: Path, *, log: ProblemLog) -> tuple[list[AnnotationSet], dict[str, str]]:
    """Every annotation set of a split folder's ``fulltext/*.xml`` and ``lu/*.xml``, as they are
    (nothing rebuilt, filtered or deduplicated: as in a release, an ID is unique within a file only),
    and the sha256 of each file read. In this process: sets would cost more to send between processes
    than to read."""
    folder = Path(folder)
    sets: list[AnnotationSet] = []
    files: dict[str, str] = {}
    for path in sorted(p for name in ("fulltext", "lu") for p in (folder / name).glob("*.xml")):
        relpath = f"{path.parent.name}/{path.name}"
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
        files[relpath] = hashlib.sha256(data).hexdigest()
        try:
            result = read_annotations(data, relpath)
        except PyfnError as exc:
            log.add("malformed_file", relpath, f"{folder}: {exc}")
            continue
        for problem in result.problems:
            log.add(problem.reason, problem.where, f"{folder}: {problem.message}")
        sets += result.sets
    return sets, files
