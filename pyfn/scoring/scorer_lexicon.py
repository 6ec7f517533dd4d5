"""The scorer's lexicon: core FEs and frame / FE relation graphs with shortest-path tables.

As ``fnSemScore_modified.pl`` builds them: every frame relation type except
``See_also``, ``CoreSet``, ``Excludes`` and ``Requires`` links its sub and
super frame *in both directions*, and each of its FE relations links
``(sub frame, sub FE)`` and ``(super frame, super FE)`` the same way. A
relation listed twice gives two parallel edges. From a node, a breadth-first
search to depth :data:`MAX_DISTANCE` records the distance of every node
reached and a *path count*: the number of edges (parallel edges counted)
arriving from nodes one step closer. That count is what the script calls
the number of shortest paths; it is not the true number of shortest paths
beyond distance 2, and it is reproduced as it is. Searches run lazily, once
per start node, and are cached.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import Generic, TypeVar

from lxml import etree

from pyfn.errors import PyfnError
from pyfn.framenet.lexicon import read_frame, read_frame_relations
from pyfn.framenet.release import Release

MAX_DISTANCE = 9
"""Deepest level of the search (the script's ``$MAX_DISTANCE``)."""
SKIPPED_RELATION_TYPES = frozenset({"See_also", "CoreSet", "Excludes", "Requires"})
"""Relation types that give no partial credit."""

FE = tuple[str, str]
"""An FE node: ``(frame name, FE name)``."""
N = TypeVar("N", bound=Hashable)


class RelationGraph(Generic[N]):
    """An undirected multigraph with the script's shortest-path search."""

    def __init__(self, edges: Iterable[tuple[N, N]]) -> None:
        self._adjacent: dict[N, list[N]] = {}
        for sub, sup in edges:
            self._adjacent.setdefault(sup, []).append(sub)
            self._adjacent.setdefault(sub, []).append(sup)
        self._paths: dict[N, dict[N, tuple[int, int]]] = {}

    def __len__(self) -> int:
        return len(self._adjacent)

    def paths(self, start: N) -> Mapping[N, tuple[int, int]]:
        """Node -> ``(distance, path count)`` for every node within :data:`MAX_DISTANCE` of ``start``."""
        found = self._paths.get(start)
        if found is None:
            found = self._search(start)
            self._paths[start] = found
        return found

    def _search(self, start: N) -> dict[N, tuple[int, int]]:
        distance = {start: 0}
        count = {start: 1}
        frontier = [start]
        for depth in range(1, MAX_DISTANCE + 1):
            reached: list[N] = []
            for node in frontier:
                for other in self._adjacent.get(node, ()):
                    seen = distance.get(other)
                    if seen is None:
                        distance[other] = depth
                        count[other] = 1
                        reached.append(other)
                    elif seen == depth:
                        count[other] += 1
            if not reached:
                break
            frontier = reached
        return {node: (d, count[node]) for node, d in distance.items()}


class ScorerLexicon:
    """What the scorer needs from FrameNet: core FEs and the two relation graphs."""

    def __init__(self, core: Iterable[FE], frame_edges: Iterable[tuple[str, str]], fe_edges: Iterable[tuple[FE, FE]],
                 inventory: Mapping[str, tuple[tuple[str, str], ...]] | None = None):
        self.core: frozenset[FE] = frozenset(core)
        self.frames: RelationGraph[str] = RelationGraph(frame_edges)
        self.fes: RelationGraph[FE] = RelationGraph(fe_edges)
        self.inventory: Mapping[str, tuple[tuple[str, str], ...]] = dict(inventory or {})
        """Every frame read, in reading order, with its ``(FE name, coreType)`` in file order (the named
        protocols of :mod:`pyfn.scoring.protocols` weigh FEs with it)."""

    @classmethod
    def from_release(cls, release: Release) -> ScorerLexicon:
        """From a release's ``frame/*.xml`` (coreness) and ``frRelation.xml`` (relations)."""
        core: list[FE] = []
        inventory: dict[str, tuple[tuple[str, str], ...]] = {}
        for relpath in release.list("frame"):
            frame = read_frame(release.read(relpath), relpath)
            core.extend((frame.name, fe.name) for fe in frame.fes if fe.core_type == "Core")
            inventory[frame.name] = tuple((fe.name, fe.core_type) for fe in frame.fes)
        if not release.exists("frRelation.xml"):
            raise PyfnError(f"{release.label}: no frRelation.xml in the release")
        frame_edges: list[tuple[str, str]] = []
        fe_edges: list[tuple[FE, FE]] = []
        for rel in read_frame_relations(release.read("frRelation.xml")):
            if rel.type in SKIPPED_RELATION_TYPES:
                continue
            frame_edges.append((rel.sub_frame, rel.super_frame))
            fe_edges.extend(
                ((rel.sub_frame, fer.sub_fe), (rel.super_frame, fer.super_fe)) for fer in rel.fe_relations
            )
        return cls(core, frame_edges, fe_edges, inventory)

    @classmethod
    def from_files(cls, frames_xml: Path, frrelations_xml: Path) -> ScorerLexicon:
        """From the ``frames.xml`` and ``frRelations.xml`` files the Perl script reads (FN 1.3 layout).

        ``frames/frame@name/fes/fe@name@coreType``;
        ``frame-relation-type@name`` whose first child element holds
        ``frame-relation@subFrameName@superFrameName/fe-relation@subFEName@superFEName``.
        """
        core: list[FE] = []
        inventory: dict[str, tuple[tuple[str, str], ...]] = {}
        for frame in _root(frames_xml).iterchildren("frame"):
            name = frame.get("name", "")
            listed: list[tuple[str, str]] = []
            for fes in frame.iterchildren("fes"):
                listed.extend((fe.get("name", ""), fe.get("coreType", "")) for fe in fes.iterchildren("fe"))
            core.extend((name, fe) for fe, core_type in listed if core_type == "Core")
            inventory[name] = tuple(listed)
        frame_edges: list[tuple[str, str]] = []
        fe_edges: list[tuple[FE, FE]] = []
        for rel_type in _root(frrelations_xml).iterchildren("frame-relation-type"):
            if rel_type.get("name") in SKIPPED_RELATION_TYPES:
                continue
            container = next(rel_type.iterchildren(etree.Element), None)
            if container is None:
                continue
            for rel in container.iterchildren("frame-relation"):
                sub, sup = rel.get("subFrameName", ""), rel.get("superFrameName", "")
                frame_edges.append((sub, sup))
                fe_edges.extend(
                    ((sub, fer.get("subFEName", "")), (sup, fer.get("superFEName", "")))
                    for fer in rel.iterchildren("fe-relation")
                )
        return cls(core, frame_edges, fe_edges, inventory)


def _root(path: Path) -> etree._Element:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise PyfnError(f"{path}: refused: the document declares a DTD or entities")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line = exc.position[0] if exc.position else "?"
        raise PyfnError(f"{path}: malformed XML at line {line}: {exc.msg}") from None


def scorer_lexicon(*, framenet: str | Path | None = None, frames: str | Path | None = None,
                   relations: str | Path | None = None) -> tuple[ScorerLexicon, str]:
    """The scorer lexicon of a FrameNet release (``framenet``: directory or zip), or of ``frames`` and
    ``relations`` (``frames.xml`` and ``frRelations.xml`` as the Perl scorer reads them), with the tag by which
    a score signature names it (``fn1.5``, ``file:...``); a usage error unless exactly one of the two is given."""
    from pyfn.errors import UsageError  # noqa: PLC0415
    from pyfn.framenet import open_release  # noqa: PLC0415
    from pyfn.scoring.signature import file_tag  # noqa: PLC0415

    if framenet and not (frames or relations):
        release = open_release(framenet)
        return ScorerLexicon.from_release(release), f"fn{release.version}"
    if frames and relations and not framenet:
        return ScorerLexicon.from_files(Path(frames), Path(relations)), f"file:{file_tag(Path(relations))}"
    raise UsageError("give either --framenet SRC, or both --frames FRAMES.xml and --relations FRRELATIONS.xml")
