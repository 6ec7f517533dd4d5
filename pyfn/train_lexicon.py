"""Lexicon files: train-only for parsers, full-release for the scorer (FORMATS.md §6, U7, U8, U14, U15).

Parser-side files name only frames, lexical units and frame elements seen in
the train annotation sets:

- ``lu_frames.tsv``, ``frame_elements.tsv`` (§6.3);
- ``frame_parents.csv``, ``ancestors.csv``, ``frame_parent_rolemappings.csv`` (§6.1, §6.2);
- ``fn_train/``: ``frame/*.xml``, ``luIndex.xml``, ``frameIndex.xml`` and
  ``frRelation.xml`` of the release, filtered element by element, and the
  release's ``semTypes.xml`` unchanged (semantic types are not train-specific:
  they name no frame, LU or FE), so that readers of the FrameNet layout
  (Open-SESAME, NLTK's ``FramenetCorpusReader``) read it unchanged (U14).

``fn_train/`` stays valid against the release's own schemas (``schema/*.xsd``:
``frame.xsd``, ``luIndex.xsd``, ``frameIndex.xsd``, ``frameRelations.xsd``,
``semTypes.xsd``), which the filtering alone would break in three places:

- an ``FEcoreSet`` left with fewer than two ``memberFE`` is dropped (counted
  under ``core_sets``);
- a ``frameRelationType`` left without ``frameRelation`` is dropped (counted
  under ``frame_relation_types``);
- a train frame none of whose frame file's FEs is seen in train (its train
  sets label no FE, or only FEs its frame file lacks; FN 1.5: ``Growing_food``,
  whose one train set labels ``Name``) would have no ``FE``: it is left out of
  ``fn_train/`` as a frame absent from train is (its file, its
  ``frameIndex.xml`` and ``luIndex.xml`` entries, its relations and the
  ``relatedFrame`` naming it) and listed under ``train_frames_without_fe``.
  Keeping its release FEs would name FEs never seen in train, which the leak
  check refuses. The text files (``lu_frames.tsv``...) still list it: they
  come from train alone. To a reader of ``fn_train/`` (Open-SESAME's argument
  identification looks a set's frame up in the frame files) such a frame is
  like one seen only in dev or test; pyfn's BIOS files drop Growing_food's set
  (``fe_not_in_frame``).

So every FE that ``fn_train/`` names (``memberFE``, ``requiresFE``,
``FERelation``...) is an ``FE`` of a frame file it holds, and every frame it
names has a frame file there. NLTK's reader needs no ``fulltextIndex.xml`` nor
``lu/`` for frames, LUs (``lu``, ``frames_by_lemma``) and relations
(``fe_relations``); ``fn_train/`` has neither (``buildindexes``, ``docs`` and
the LUs' exemplars need them).

A leak check reads every parser-side output back and refuses to write any of
them when a frame, LU or FE it names does not occur in train.

Release-side candidate lexicon (opt-in, ``release_lexicon=True``, ``pyfn generate
--release-lexicon``): ``release_lu_frames.tsv``, in the format of ``lu_frames.tsv``,
lists every LU of the full release's ``frame/*.xml`` (each ``<lexUnit name=...>``, as
Open-SESAME's ``read_frame_maps`` reads them) with its frames, minus the excluded
frame and LU ids. It is release-derived by name and by design (real parsers restrict
candidate frames with it, so that an LU never seen in train still gets only its own
frames): it names dev- and test-only frames and LUs, is not a parser-side file and
is never given to the leak check. Without the option nothing of it is written or
recorded.

Scorer-side files describe the full release in the FrameNet 1.3 single-file
layout of the SemEval Perl scorer (§6.4): ``frames.xml`` (coreness decides FE
points) and ``frRelations.xml`` (partial credit) (U8).

Names: a frame is its name; an LU is ``(LU name, frame)``; an FE is
``(frame, FE name)``. An FE is *seen in train* when some FE label of a train set
of that frame carries its name, overt or null-instantiated; ``frame_elements.tsv``
alone lists overt labels only (SEMAFOR's FE map is built from FE spans).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import atomic_writer, synced_once, write_lines
from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.lexicon import frames_in_order, read_frame_relations
from pyfn.framenet.release import Release
from pyfn.framenet.xml import NS, check_bytes
from pyfn.model import AnnotationSet, Frame, FrameRelation

DEFAULT_RELATIONS = ("Inheritance", "Subframe")
FN_TRAIN = "fn_train"
UNKNOWN_CORE_TYPE = "unknown"
SEM_TYPES = "semTypes.xml"
"""Copied into ``fn_train/`` as the release has it: semantic types are not train-specific."""
MIN_CORE_SET = 2
"""FrameNet's schema (frame.xsd): an ``FEcoreSet`` has at least two ``memberFE``."""
RELEASE_LU_FRAMES = "release_lu_frames.tsv"
"""The release-side candidate lexicon (``--release-lexicon``): not a parser-side file, never leak-checked."""
_LEAK_EXAMPLES = 10

FE = tuple[str, str]
"""An FE as ``(frame name, FE name)``."""
LU = tuple[str, str]
"""A lexical unit as ``(LU name, frame name)``."""


@dataclass(frozen=True)
class TrainInventory:
    """What the train annotation sets name: frames, LUs, FEs (any label) and overt FEs."""

    frames: frozenset[str]
    lus: frozenset[LU]
    fes: frozenset[FE]
    overt_fes: frozenset[FE]
    annotation_sets: int = 0
    """How many train sets it was made of (0 for :func:`release_inventory`'s)."""

    @classmethod
    def of(cls, sets: Iterable[AnnotationSet]) -> TrainInventory:
        """The inventory of ``sets``."""
        return cls.of_rows((aset.frame_name, aset.lu_name, [(rank, lb.name, lb.start, lb.end) for rank, lb in aset.fe_labels])
                           for aset in sets)

    @classmethod
    def of_rows(cls, rows: Iterable[tuple[str, str, Iterable[tuple[int, str, int | None, int | None]]]]
                ) -> TrainInventory:
        """The inventory of sets given as ``(frame, LU, [(rank, FE name, start, end), ...])``
        (:func:`pyfn.formats.jsonl.fe_rows` of their JSON lines)."""
        frames: set[str] = set()
        lus: set[LU] = set()
        fes: set[FE] = set()
        overt: set[FE] = set()
        count = 0
        for count, (frame, lu, labels) in enumerate(rows, 1):
            frames.add(frame)
            lus.add((lu, frame))
            for _, name, start, end in labels:
                fes.add((frame, name))
                if start is not None and end is not None:
                    overt.add((frame, name))
        return cls(frozenset(frames), frozenset(lus), frozenset(fes), frozenset(overt), count)


# ---------------------------------------------------------------- pure functions


def lu_frames(inventory: TrainInventory) -> dict[str, list[str]]:
    """LU name -> sorted frames it evokes in train, keys sorted."""
    out: dict[str, set[str]] = {}
    for lu, frame in inventory.lus:
        out.setdefault(lu, set()).add(frame)
    return {lu: sorted(out[lu]) for lu in sorted(out)}


def release_lu_frames(
    frames: Iterable[Frame], exclude_frames: Collection[int] = (), exclude_lus: Collection[int] = ()
) -> dict[str, list[str]]:
    """LU name -> sorted frames whose frame file lists it (``lexUnit``), keys sorted.

    Frames whose id is in ``exclude_frames`` and LUs whose id is in ``exclude_lus``
    are left out; an LU listed twice in one frame counts once.
    """
    skip_frames, skip_lus = frozenset(exclude_frames), frozenset(exclude_lus)
    out: dict[str, set[str]] = {}
    for frame in frames:
        if frame.id in skip_frames:
            continue
        for lu in frame.lus:
            if lu.id not in skip_lus:
                out.setdefault(lu.name, set()).add(frame.name)
    return {lu: sorted(out[lu]) for lu in sorted(out)}


def release_lexicon_record(table: Mapping[str, Sequence[str]], inventory: TrainInventory,
                           exclude_frames: Collection[int], exclude_lus: Collection[int]) -> dict:
    """What the manifest says about ``release_lu_frames.tsv``: counts, exclusions and the train
    ``LU@frame`` pairs it does not list (e.g. a frame without a frame file)."""
    listed = {(lu, frame) for lu, frames in table.items() for frame in frames}
    return {
        "file": RELEASE_LU_FRAMES,
        "source": "every lexUnit of the release's frame/*.xml (as Open-SESAME's read_frame_maps reads them)",
        "leak_check": "none: release-derived by design (candidate frames at decoding, not a parser-side file)",
        "excluded_frame_ids": sorted(exclude_frames),
        "excluded_lu_ids": sorted(exclude_lus),
        "lines": len(table),
        "ambiguous_lus": sum(1 for frames in table.values() if len(frames) > 1),
        "lu_frame_pairs": len(listed),
        "train_lus": len(inventory.lus),
        "train_lus_not_listed": [f"{lu}@{frame}" for lu, frame in sorted(inventory.lus - listed)],
    }


def frame_elements(inventory: TrainInventory, core_types: Mapping[FE, str] | None = None) -> dict[str, list[str]]:
    """Train frame -> sorted names of its FEs with an overt train label (every frame, maybe none).

    With ``core_types`` each name becomes ``FE:coreType`` (``unknown`` for an FE
    missing from the frame files, e.g. frame ``Test35``).
    """
    out: dict[str, list[str]] = {frame: [] for frame in sorted(inventory.frames)}
    for frame, fe in sorted(inventory.overt_fes):
        out[frame].append(fe if core_types is None else f"{fe}:{core_types.get((frame, fe), UNKNOWN_CORE_TYPE)}")
    return out


def select_relations(
    relations: Sequence[FrameRelation], types: Sequence[str], known_types: Sequence[str]
) -> list[FrameRelation]:
    """The relations whose type is in ``types`` (exact FrameNet spelling), in file order.

    An unknown type name is a :class:`UsageError` listing the known ones.
    """
    known = set(known_types)
    for name in types:
        if name not in known:
            near = [k for k in sorted(known) if k.lower() == name.lower()]
            hint = f"; did you mean {near[0]}?" if near else ""
            raise UsageError(
                f"unknown frame relation type {name!r}{hint} (known, exact spelling: {', '.join(sorted(known))})"
            )
    wanted = set(types)
    return [rel for rel in relations if rel.type in wanted]


def _append_new(values: list[str], value: str) -> None:
    if value not in values:
        values.append(value)


def frame_parents(relations: Sequence[FrameRelation], frames: Iterable[str]) -> dict[str, list[str]]:
    """Child -> parents (relation file order, no repeats), both frames in ``frames``; keys sorted."""
    keep = set(frames)
    out: dict[str, list[str]] = {}
    for rel in relations:
        if rel.sub_frame in keep and rel.super_frame in keep:
            _append_new(out.setdefault(rel.sub_frame, []), rel.super_frame)
    return {child: out[child] for child in sorted(out)}


def ancestors(
    relations: Sequence[FrameRelation], frames: Iterable[str], *, train_frames_only: bool = True
) -> dict[str, list[str]]:
    """Every frame of ``frames`` (sorted) -> its ancestors, depth first, first occurrence kept.

    With ``train_frames_only`` (pyfn 1.3) a chain stops at the first frame not in
    ``frames``; otherwise it goes on through such frames, which are not listed.
    A frame is never its own ancestor (cycles are cut).
    """
    keep = set(frames)
    parents: dict[str, list[str]] = {}
    for rel in relations:
        if not train_frames_only or (rel.sub_frame in keep and rel.super_frame in keep):
            _append_new(parents.setdefault(rel.sub_frame, []), rel.super_frame)
    out: dict[str, list[str]] = {}
    for frame in sorted(keep):
        seen = {frame}
        found: list[str] = []
        stack = list(reversed(parents.get(frame, [])))
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node in keep:
                found.append(node)
            stack.extend(reversed(parents.get(node, [])))
        out[frame] = found
    return out


def role_mappings(relations: Sequence[FrameRelation], fes: Iterable[FE]) -> dict[str, list[str]]:
    """``Child.FE`` -> ``Parent.FE`` values (file order, no repeats), both FEs in ``fes``; keys sorted."""
    keep = set(fes)
    out: dict[str, list[str]] = {}
    for rel in relations:
        for fer in rel.fe_relations:
            if (rel.sub_frame, fer.sub_fe) in keep and (rel.super_frame, fer.super_fe) in keep:
                if "." in rel.sub_frame or "." in rel.super_frame:
                    raise PyfnError(
                        f"frame_parent_rolemappings.csv: refused a frame name with a dot "
                        f"({rel.sub_frame!r} -> {rel.super_frame!r}): Frame.FE would be ambiguous"
                    )
                child = f"{rel.sub_frame}.{fer.sub_fe}"
                _append_new(out.setdefault(child, []), f"{rel.super_frame}.{fer.super_fe}")
    return {child: out[child] for child in sorted(out)}


def _joined(key: str, values: Sequence[str], sep: str, name: str) -> str:
    forbidden = ("\t", "\r", "\n", ",") if sep == "," else ("\t", "\r", "\n")
    for field_ in (key, *values):
        bad = [c for c in forbidden if c in field_]
        if bad or not field_:
            what = "an empty field" if not field_ else f"a field containing {bad[0]!r}"
            raise PyfnError(f"{name}: refused {what}: {field_!r} (line for {key!r}); the format has no quoting")
    return sep.join((key, *values))


def table_lines(table: Mapping[str, Sequence[str]], sep: str, name: str) -> list[str]:
    """``key<sep>value<sep>...`` lines; a field holding ``sep``, TAB, CR or LF is refused."""
    return [_joined(key, values, sep, name) for key, values in table.items()]


# ---------------------------------------------------------------- XML


def parse_xml(data: bytes, where: str) -> etree._ElementTree:
    """A whole FrameNet XML document (no DTD, entities or network), comments kept."""
    check_bytes(data, where)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if exc.position else "?"
        raise PyfnError(f"{where}: malformed XML at line {line}: {exc.msg}") from exc


def _serialize_fn(tree: etree._ElementTree) -> bytes:
    """A FrameNet document as read (namespace, attribute order, processing
    instructions, comments), one top-level node per line, final newline."""
    root = tree.getroot()
    standalone = {True: " standalone='yes'", False: " standalone='no'", None: ""}[tree.docinfo.standalone]
    nodes = [*reversed(list(root.itersiblings(preceding=True))), root, *root.itersiblings()]
    parts = [f"<?xml version='1.0' encoding='UTF-8'{standalone}?>".encode()]
    parts += [etree.tostring(node, encoding="UTF-8", with_tail=False) for node in nodes]
    return b"\n".join(parts) + b"\n"


def _serialize_plain(root: etree._Element) -> bytes:
    etree.indent(root, space="  ")
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _drop(elem: etree._Element) -> None:
    """Remove ``elem`` but keep the indentation of what follows it."""
    parent = elem.getparent()
    assert parent is not None
    if elem.getnext() is None:
        prev = elem.getprevious()
        if prev is not None:
            prev.tail = elem.tail
        else:
            parent.text = elem.tail
    parent.remove(elem)


@dataclass
class Kept:
    """How many items of one kind a filter saw and kept."""

    release: int = 0
    kept: int = 0

    def see(self, keep: bool) -> bool:
        """Count one item; return ``keep``."""
        self.release += 1
        self.kept += keep
        return keep

    def as_dict(self) -> dict[str, int]:
        """``release``, ``kept`` and ``left_out`` counts."""
        return {"release": self.release, "kept": self.kept, "left_out": self.release - self.kept}


def filter_frame_xml(tree: etree._ElementTree, inventory: TrainInventory, counts: Mapping[str, Kept]) -> None:
    """Limit a ``frame/*.xml`` tree to train: ``lexUnit``, ``FE`` (and the FE names in
    ``FEcoreSet``/``requiresFE``/``excludesFE``) and ``relatedFrame``. A core set left
    with fewer than two members is dropped (FrameNet's schema wants at least two).
    ``counts`` gets ``lus``, ``fes`` and ``core_sets``; everything else is kept as it is.
    """
    root = tree.getroot()
    frame = root.get("name", "")
    for lu in root.findall(NS + "lexUnit"):
        if not counts["lus"].see((lu.get("name", ""), frame) in inventory.lus):
            _drop(lu)
    for fe in root.findall(NS + "FE"):
        if not counts["fes"].see((frame, fe.get("name", "")) in inventory.fes):
            _drop(fe)
    for ref in root.findall(f"{NS}FE/{NS}requiresFE") + root.findall(f"{NS}FE/{NS}excludesFE"):
        if (frame, ref.get("name", "")) not in inventory.fes:
            _drop(ref)
    for core_set in root.findall(NS + "FEcoreSet"):
        for member in core_set.findall(NS + "memberFE"):
            if (frame, member.get("name", "")) not in inventory.fes:
                _drop(member)
        if not counts["core_sets"].see(len(core_set.findall(NS + "memberFE")) >= MIN_CORE_SET):
            _drop(core_set)
    for related in root.findall(f"{NS}frameRelation/{NS}relatedFrame"):
        if (related.text or "").strip() not in inventory.frames:
            _drop(related)


def filter_lu_index(tree: etree._ElementTree, inventory: TrainInventory, counts: Kept) -> None:
    """Limit ``luIndex.xml`` to the ``lu`` entries of train LUs."""
    for lu in tree.getroot().findall(NS + "lu"):
        if not counts.see((lu.get("name", ""), lu.get("frameName", "")) in inventory.lus):
            _drop(lu)


def filter_frame_index(tree: etree._ElementTree, inventory: TrainInventory, counts: Kept) -> None:
    """Limit ``frameIndex.xml`` to train frames."""
    for frame in tree.getroot().findall(NS + "frame"):
        if not counts.see(frame.get("name", "") in inventory.frames):
            _drop(frame)


def filter_frame_relations(
    tree: etree._ElementTree, inventory: TrainInventory, frame_counts: Kept, fe_counts: Kept, type_counts: Kept
) -> None:
    """Limit ``frRelation.xml`` to relations between train frames and FE relations between train FEs.

    FE relations of a dropped frame relation count as left out. A relation type
    element left without relations is dropped (FrameNet's schema wants at least
    one ``frameRelation`` in each); ``type_counts`` counts them.
    """
    for rel_type in tree.getroot().findall(NS + "frameRelationType"):
        for rel in rel_type.findall(NS + "frameRelation"):
            sub, sup = rel.get("subFrameName", ""), rel.get("superFrameName", "")
            keep_rel = frame_counts.see(sub in inventory.frames and sup in inventory.frames)
            for fer in rel.findall(NS + "FERelation"):
                sub_fe, sup_fe = (sub, fer.get("subFEName", "")), (sup, fer.get("superFEName", ""))
                if not fe_counts.see(keep_rel and sub_fe in inventory.fes and sup_fe in inventory.fes):
                    _drop(fer)
            if not keep_rel:
                _drop(rel)
        if not type_counts.see(rel_type.find(NS + "frameRelation") is not None):
            _drop(rel_type)


def relation_types(tree: etree._ElementTree) -> list[str]:
    """Names of the ``frameRelationType`` elements of ``frRelation.xml``, in file order."""
    return [t.get("name", "") for t in tree.getroot().iterfind(NS + "frameRelationType")]


def _plain_attrs(elem: etree._Element) -> dict[str, str]:
    try:  # lxml cannot list an attribute whose name holds a "}" (a damaged namespace)
        return {k: v for k, v in elem.attrib.items() if not k.startswith("{")}
    except (KeyError, ValueError):
        raise PyfnError(f"frRelation.xml:{elem.sourceline}: <{etree.QName(elem).localname}> has a malformed "
                        "attribute name") from None


def scorer_frames_xml(frames: Sequence[Frame]) -> bytes:
    """``frames.xml`` for the Perl scorer: ``frames/frame@name/fes/fe@name@coreType``, sorted by frame."""
    root = etree.Element("frames")
    for frame in sorted(frames, key=lambda f: f.name):
        elem = etree.SubElement(root, "frame", ID=str(frame.id), name=frame.name)
        fes = etree.SubElement(elem, "fes")
        for fe in frame.fes:
            etree.SubElement(fes, "fe", ID=str(fe.id), name=fe.name, abbrev=fe.abbrev, coreType=fe.core_type)
    return _serialize_plain(root)


def scorer_relations_xml(tree: etree._ElementTree) -> bytes:
    """``frRelations.xml`` for the Perl scorer from the tree of ``frRelation.xml``.

    ``frame-relations/frame-relation-type@name/frame-relations/frame-relation
    @superFrameName@subFrameName/fe-relation@superFEName@subFEName``, every
    type and relation of the release in file order, attributes copied. The
    scorer takes the *first child* of a type after a whitespace text node
    (§5.2), so the output is indented and every type has its container.
    """
    root = etree.Element("frame-relations")
    for rel_type in tree.getroot().iterfind(NS + "frameRelationType"):
        type_elem = etree.SubElement(root, "frame-relation-type", _plain_attrs(rel_type))
        container = etree.SubElement(type_elem, "frame-relations")
        for rel in rel_type.iterfind(NS + "frameRelation"):
            rel_elem = etree.SubElement(container, "frame-relation", _plain_attrs(rel))
            for fer in rel.iterfind(NS + "FERelation"):
                etree.SubElement(rel_elem, "fe-relation", _plain_attrs(fer))
    return _serialize_plain(root)


# ---------------------------------------------------------------- leak check


def _tsv_fields(data: bytes) -> list[list[str]]:
    return [line.split("\t") for line in data.decode("utf-8").split("\n") if line]


def _names_in(relpath: str, data: bytes, with_coretype: bool) -> Iterable[tuple[str, object]]:
    """``(kind, name)`` for every frame, LU and FE that a parser-side file names."""
    if relpath == "lu_frames.tsv":
        for lu, *frames in _tsv_fields(data):
            for frame in frames:
                yield "frame", frame
                yield "lu", (lu, frame)
    elif relpath == "frame_elements.tsv":
        for frame, *fes in _tsv_fields(data):
            yield "frame", frame
            for fe in fes:
                yield "fe", (frame, fe.rsplit(":", 1)[0] if with_coretype else fe)
    elif relpath in ("frame_parents.csv", "ancestors.csv"):
        for line in data.decode("utf-8").split("\n"):
            for frame in filter(None, line.split(",")):
                yield "frame", frame
    elif relpath == "frame_parent_rolemappings.csv":
        for line in data.decode("utf-8").split("\n"):
            for item in filter(None, line.split(",")):
                frame, _, fe = item.partition(".")
                yield "frame", frame
                yield "fe", (frame, fe)
    elif relpath.startswith(f"{FN_TRAIN}/"):
        yield from view_names(relpath[len(FN_TRAIN) + 1:], data)
    else:
        raise PyfnError(f"{relpath}: no leak check is defined for this parser-side file")


def view_names(relpath: str, data: bytes) -> Iterable[tuple[str, object]]:
    """``(kind, name)`` for every frame, LU and FE that a file of a lexicon view names (``relpath``
    relative to the view's folder: ``frame/*.xml`` or one of :data:`LEXICON_FILES`)."""
    if relpath.startswith("frame/"):
        root = parse_xml(data, relpath).getroot()
        frame = root.get("name", "")
        yield "frame", frame
        for elem in root.iter(NS + "lexUnit"):
            yield "lu", (elem.get("name", ""), frame)
        for tag in ("FE", "memberFE", "requiresFE", "excludesFE"):
            for elem in root.iter(NS + tag):
                yield "fe", (frame, elem.get("name", ""))
        for elem in root.iter(NS + "relatedFrame"):
            yield "frame", (elem.text or "").strip()
    elif relpath == SEM_TYPES:
        return  # semantic types only (names, abbreviations, definitions): no frame, LU or FE
    elif relpath == "luIndex.xml":
        for elem in parse_xml(data, relpath).getroot().iter(NS + "lu"):
            yield "frame", elem.get("frameName", "")
            yield "lu", (elem.get("name", ""), elem.get("frameName", ""))
    elif relpath == "frameIndex.xml":
        for elem in parse_xml(data, relpath).getroot().iter(NS + "frame"):
            yield "frame", elem.get("name", "")
    elif relpath == "frRelation.xml":
        for rel in parse_xml(data, relpath).getroot().iter(NS + "frameRelation"):
            sub, sup = rel.get("subFrameName", ""), rel.get("superFrameName", "")
            yield "frame", sub
            yield "frame", sup
            for fer in rel.iter(NS + "FERelation"):
                yield "fe", (sub, fer.get("subFEName", ""))
                yield "fe", (sup, fer.get("superFEName", ""))
    else:
        raise PyfnError(f"{relpath}: no leak check is defined for this lexicon file")


def check_leaks(
    outputs: Mapping[str, bytes], inventory: TrainInventory, *, with_coretype: bool = False, view: bool = False
) -> dict[str, bool | int]:
    """Read parser-side ``outputs`` (relative path -> bytes) back; every frame, LU
    and FE they name must occur in train, else :class:`PyfnError` naming them.
    With ``view``, ``outputs`` are the files of a lexicon view, paths relative to its folder
    (:func:`lexicon_view`).

    Returns how many names of each kind were checked. Definition texts (prose
    inside ``<definition>``) are not names and are not checked; nor is
    ``release_lu_frames.tsv``, release-derived by design (not a parser-side file).
    """
    allowed: dict[str, frozenset] = {"frame": inventory.frames, "lu": inventory.lus, "fe": inventory.fes}
    checked: Counter = Counter()
    leaks: list[str] = []
    for relpath in sorted(outputs):
        if relpath == RELEASE_LU_FRAMES:
            continue
        names = view_names(relpath, outputs[relpath]) if view else _names_in(relpath, outputs[relpath], with_coretype)
        for kind, name in names:
            checked[kind] += 1
            if name not in allowed[kind]:
                leaks.append(f"{relpath}: {kind} {name!r}")
    if leaks:
        shown = "; ".join(leaks[:_LEAK_EXAMPLES])
        raise PyfnError(f"leak check failed: {len(leaks)} name(s) not seen in train: {shown}")
    return {"passed": True, **{f"{kind}s_checked": checked[kind] for kind in ("frame", "lu", "fe")}}


# ---------------------------------------------------------------- generate


def release_frames(release: Release, cache: ReleaseCache | None = None) -> dict[str, tuple[str, bytes, Frame]]:
    """Frame name -> (relative path, bytes, model) for every ``frame/*.xml`` of the release (the models
    through the parsed-release ``cache`` when given)."""
    out: dict[str, tuple[str, bytes, Frame]] = {}
    for relpath, frame in zip(release.list("frame"), frames_in_order(release, cache)):
        data = release.read(relpath)
        if frame.name in out:
            raise PyfnError(f"{release.label}: frame {frame.name!r} defined twice ({out[frame.name][0]}, {relpath})")
        out[frame.name] = (relpath, data, frame)
    return out


def view_inventory(inventory: TrainInventory, frames: Iterable[Frame]) -> tuple[TrainInventory, list[str]]:
    """What ``fn_train/`` may name, and the train frames it leaves out because no FE of their
    frame file is seen in train (sorted).

    Its frames are the train frames that have a frame file with at least one FE seen in
    train (FrameNet's schema wants at least one ``FE`` in a frame); its LUs the train LUs
    of those frames; its FEs the train FEs that their frame files define (so that every
    FE an ``FERelation`` or a core set names is an ``FE`` of a written frame file).
    ``overt_fes`` is left empty: nothing in ``fn_train/`` reads it.
    """
    kept: set[str] = set()
    fes: set[FE] = set()
    without_fe: list[str] = []
    for frame in frames:
        if frame.name not in inventory.frames:
            continue
        seen = {(frame.name, fe.name) for fe in frame.fes} & inventory.fes
        if seen:
            kept.add(frame.name)
            fes |= seen
        else:
            without_fe.append(frame.name)
    lus = frozenset(lu for lu in inventory.lus if lu[1] in kept)
    return TrainInventory(frozenset(kept), lus, frozenset(fes), frozenset()), sorted(without_fe)


def release_inventory(
    frames: Iterable[Frame], exclude_frames: Collection[int] = (), exclude_lus: Collection[int] = ()
) -> TrainInventory:
    """Everything the frame files name (frames, their LUs and FEs), without the frame ids
    ``exclude_frames`` and the LU ids ``exclude_lus``: the inventory of a release-wide view."""
    skip_frames, skip_lus = frozenset(exclude_frames), frozenset(exclude_lus)
    kept = [frame for frame in frames if frame.id not in skip_frames]
    return TrainInventory(
        frozenset(frame.name for frame in kept),
        frozenset((lu.name, frame.name) for frame in kept for lu in frame.lus if lu.id not in skip_lus),
        frozenset((frame.name, fe.name) for frame in kept for fe in frame.fes),
        frozenset(),
    )


LEXICON_FILES = ("luIndex.xml", "frameIndex.xml", "frRelation.xml", SEM_TYPES)
"""The files of a FrameNet-layout lexicon besides ``frame/*.xml``."""


def lexicon_view(
    release: Release,
    frames: Mapping[str, tuple[str, bytes, Frame]],
    rel_tree: etree._ElementTree,
    inventory: TrainInventory,
) -> tuple[dict[str, bytes], dict[str, dict[str, int] | list[str]]]:
    """The files of a FrameNet-layout lexicon limited to ``inventory`` (path relative to the
    lexicon's folder -> bytes: ``frame/*.xml`` and :data:`LEXICON_FILES`, the indexes when the
    release has them) and their kept / left-out counts. ``fn_train/`` is this view of train.

    ``rel_tree`` (the tree of ``frRelation.xml``) is filtered in place. A frame of ``inventory``
    none of whose frame file's FEs it names is left out like a frame absent from it (its file,
    index entries, LUs and relations) and listed under ``train_frames_without_fe``.
    """
    view, without_fe = view_inventory(inventory, (frame for _, _, frame in frames.values()))
    kinds = ("frames", "lus", "fes", "core_sets", "frame_relation_types", "frame_relations", "fe_relations")
    counts = {k: Kept() for k in kinds}
    files: dict[str, bytes] = {}
    for name in sorted(frames):
        relpath, data, frame = frames[name]
        tree = parse_xml(data, f"{release.label}: {relpath}")
        if not counts["frames"].see(name in view.frames):
            counts["lus"].release += len(frame.lus)
            counts["fes"].release += len(frame.fes)
            counts["core_sets"].release += len(tree.getroot().findall(NS + "FEcoreSet"))
            continue
        filter_frame_xml(tree, view, counts)
        files[f"frame/{posixpath.basename(relpath)}"] = _serialize_fn(tree)
    indexes = (
        ("luIndex.xml", filter_lu_index, "lu_index_entries"),
        ("frameIndex.xml", filter_frame_index, "frame_index_entries"),
    )
    for index, filter_index, kind in indexes:
        if release.exists(index):
            tree = parse_xml(release.read(index), f"{release.label}: {index}")
            counts[kind] = Kept()
            filter_index(tree, view, counts[kind])
            files[index] = _serialize_fn(tree)
    filter_frame_relations(
        rel_tree, view, counts["frame_relations"], counts["fe_relations"], counts["frame_relation_types"]
    )
    files["frRelation.xml"] = _serialize_fn(rel_tree)
    if release.exists(SEM_TYPES):  # the release's bytes: semantic types are not train-specific
        data = release.read(SEM_TYPES)
        parse_xml(data, f"{release.label}: {SEM_TYPES}")  # refuse a malformed one
        files[SEM_TYPES] = data
    report: dict[str, dict[str, int] | list[str]] = {k: v.as_dict() for k, v in counts.items()}
    report["train_frames_without_fe"] = without_fe
    return files, report


def check_read_folders(target: Path, folders: Iterable[str], files: Iterable[str]) -> None:
    """Refuse a folder of ``folders`` (relative to ``target``) holding a file that is not one of
    ``files`` (paths relative to ``target``: what this run writes and what the earlier run's
    manifest lists, which the run replaces or removes).

    FrameNet readers read every file of such a folder (Open-SESAME every ``frame/*.xml``, pyfn
    every ``fulltext/*.xml`` and ``lu/*.xml`` of a split folder): a file left by an earlier run on
    other data would leak into what they read.
    """
    keep = set(files)
    for folder in folders:
        where = target / folder
        if not where.is_dir():
            continue
        others = sorted(p.name for p in where.iterdir() if f"{folder}/{p.name}" not in keep)
        if others:
            shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
            raise PyfnError(
                f"{where}: holds {len(others)} file(s) this run would not write ({shown}); FrameNet readers "
                "read every file there, so they would leak: remove the folder or choose another target"
            )


def _write_all(target: Path, outputs: Mapping[str, bytes]) -> None:
    for relpath, data in outputs.items():
        with atomic_writer(target / relpath, "wb") as handle:
            handle.write(data)


def generate(
    release: Release,
    train: Sequence[AnnotationSet] | TrainInventory,
    target: Path,
    *,
    relations: Sequence[str] = DEFAULT_RELATIONS,
    train_frames_only: bool = True,
    with_coretype: bool = False,
    release_lexicon: bool = False,
    exclude_frames: Collection[int] = (),
    exclude_lus: Collection[int] = (),
    cache: ReleaseCache | None = None,
) -> dict:
    """Write the train-only lexicon and the full-release scorer lexicon into ``target``.

    ``train``: the train sets, or their :class:`TrainInventory` (all the lexicon takes of them);
    ``relations``: frame relation types for the hierarchy CSVs (exact FrameNet
    spelling); ``train_frames_only``: cut ancestor chains at frames absent from
    train (pyfn 1.3) or follow them through such frames (ancestors.csv only);
    ``with_coretype``: ``FE:coreType`` in ``frame_elements.tsv``;
    ``release_lexicon``: also write ``release_lu_frames.tsv`` (every LU of the
    release's frame files, without the frame ids ``exclude_frames`` and LU ids
    ``exclude_lus``, which nothing else here reads: the train sets are already
    built without them); release-derived, so not leak-checked; ``cache``: the
    parsed-release cache the frames are read through. Nothing is written unless
    the leak check passes. Returns the report for the manifest.
    """
    inventory = train if isinstance(train, TrainInventory) else TrainInventory.of(train)
    if not inventory.frames:
        raise PyfnError("no train annotation sets: a train-only lexicon needs train data")
    target = Path(target)
    types = list(dict.fromkeys(relations))
    if not release.exists("frRelation.xml"):
        raise PyfnError(f"{release.label}: no frRelation.xml in the release")
    rel_data = release.read("frRelation.xml")
    rel_where = f"{release.label}: frRelation.xml"
    rel_tree = parse_xml(rel_data, rel_where)
    known = relation_types(rel_tree)
    all_rels = read_frame_relations(rel_data, "frRelation.xml")
    chosen = select_relations(all_rels, types, known)
    frames = release_frames(release, cache)
    core_types: dict[FE, str] = {}
    for _, _, frame in frames.values():
        for fe in frame.fes:
            core_types.setdefault((frame.name, fe.name), fe.core_type)

    tables = {
        "lu_frames.tsv": lu_frames(inventory),
        "frame_elements.tsv": frame_elements(inventory, core_types if with_coretype else None),
        "frame_parents.csv": frame_parents(chosen, inventory.frames),
        "ancestors.csv": ancestors(chosen, inventory.frames, train_frames_only=train_frames_only),
        "frame_parent_rolemappings.csv": role_mappings(chosen, inventory.fes),
    }
    text_files = {
        name: table_lines(table, "," if name.endswith(".csv") else "\t", name) for name, table in tables.items()
    }
    scorer_side = {
        "frames.xml": scorer_frames_xml([f for _, _, f in frames.values()]),
        "frRelations.xml": scorer_relations_xml(rel_tree),
    }
    release_side: dict[str, list[str]] = {}  # not parser-side: never given to the leak check
    release_record: dict | None = None
    if release_lexicon:
        release_table = release_lu_frames((f for _, _, f in frames.values()), exclude_frames, exclude_lus)
        release_side[RELEASE_LU_FRAMES] = table_lines(release_table, "\t", RELEASE_LU_FRAMES)
        release_record = release_lexicon_record(release_table, inventory, exclude_frames, exclude_lus)
    view_files, view_counts = lexicon_view(release, frames, parse_xml(rel_data, rel_where), inventory)
    view = {f"{FN_TRAIN}/{name}": data for name, data in view_files.items()}
    parser_side = {name: "".join(f"{line}\n" for line in lines).encode("utf-8") for name, lines in text_files.items()}
    parser_side.update(view)
    leak = check_leaks(parser_side, inventory, with_coretype=with_coretype)
    check_read_folders(target, [f"{FN_TRAIN}/frame"], view)

    for name, lines in {**text_files, **release_side}.items():
        write_lines(target / name, lines)
    with synced_once():  # a FrameNet-layout folder: hundreds of frame files, made durable by one sync
        _write_all(target, view)
    _write_all(target, scorer_side)
    report = {
        "files": sorted([*text_files, *view, *scorer_side, *release_side]),
        "relation_types": types,
        "train_frames_only": train_frames_only,
        "with_coretype": with_coretype,
        "fe_seen_in_train": {"frame_elements.tsv": "overt FE labels", "other parser-side files": "any FE label"},
        "train": {
            "annotation_sets": inventory.annotation_sets,
            "frames": len(inventory.frames),
            "lus": len(inventory.lus),
            "fes": len(inventory.fes),
            "overt_fes": len(inventory.overt_fes),
            "frames_without_frame_file": sorted(inventory.frames - frames.keys()),
            "fes_not_in_frame_file": [f"{f}.{e}" for f, e in sorted(inventory.fes - core_types.keys())],
        },
        "lines": {name: len(lines) for name, lines in text_files.items()},
        "hierarchy": {
            "frame_relations_of_types": len(chosen),
            "fe_relations_of_types": sum(len(r.fe_relations) for r in chosen),
        },
        "fn_train": view_counts,
        "scorer": {
            "frames": len(frames),
            "fes": sum(len(f.fes) for _, _, f in frames.values()),
            "frame_relations": len(all_rels),
            "fe_relations": sum(len(r.fe_relations) for r in all_rels),
            "relation_types": known,
        },
        "leak_check": leak,
    }
    if release_record is not None:  # recorded only when asked: manifests written without it stay as they were
        report["release_lexicon"] = release_record
    return report
