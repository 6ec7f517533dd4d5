"""Build the SemEval scorer oracle: gold/prediction pairs cut from FN 1.5, a filtered scorer lexicon,
and (with ``--perl-dir``) the numbers the original Perl scorers print on them.

    python tests/scoring/make_cases.py /work/shared/data/fndata-1.5.zip [--perl-dir DIR]

Everything is built with pyfn's own API (``build_splits`` on FN 1.5 with frame 398
excluded, ``pyfn.formats.semeval.write``, ``generate_lexicon``); perturbations are
seeded, so the files are byte-identical from run to run. ``--perl-dir`` names a
directory *outside the repository* holding ``fnSemScore_modified.pl`` (Noahs-ARK/semafor
``scripts/scoring/``) and ``score.argsonly.pl`` (akb89/pyfn ``lib/semeval/``); the
scripts are run, never copied, and only the numbers they print are stored in
``perl_reference.json``. See README.md for the cases, the modes and the two traps.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from lxml import etree

from pyfn.convert import generate_lexicon
from pyfn.formats import jsonl, semeval
from pyfn.formats.base import SentenceTable, ordered, sentence_string, token_span
from pyfn.framenet import open_release
from pyfn.model import AnnotationSet, Label, Layer, tokens
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.splits.definitions import standard_split

HERE = Path(__file__).resolve().parent
EXCLUDED_FRAMES = frozenset({398})
N_SENTENCES = {"test": 15, "dev": 10}
MAX_DISTANCE = 9  # the Perl scorer's $MAX_DISTANCE (breadth-first search depth of ComputeSP)
IGNORED_TYPES = frozenset({"See_also", "CoreSet", "Excludes", "Requires"})  # ParseFrRelationsXML skips these
SEEDS = range(4)
MODES: dict[str, tuple[str, tuple[str, ...]]] = {
    "semeval_exact": ("fnSemScore_modified.pl", ("-l", "-n", "-e")),
    "semeval_partial": ("fnSemScore_modified.pl", ("-l", "-n")),
    "frames_exact": ("fnSemScore_modified.pl", ("-l", "-n", "-t", "-e")),
    "frames_partial": ("fnSemScore_modified.pl", ("-l", "-n", "-t")),
    "argsonly_exact": ("score.argsonly.pl", ("-l", "-n", "-e", "-a")),
    "argsonly_partial": ("score.argsonly.pl", ("-l", "-n", "-a")),
}


# --------------------------------------------------------------------------- scorer lexicon


class Lexicon:
    """What the Perl scorer reads from ``frames.xml`` and ``frRelations.xml``."""

    def __init__(self, frames_xml: Path, relations_xml: Path) -> None:
        self.fes: dict[str, dict[str, str]] = {}
        for frame in etree.parse(str(frames_xml)).getroot().iter("frame"):
            self.fes[frame.get("name")] = {fe.get("name"): fe.get("coreType") for fe in frame.iter("fe")}
        self.tree = etree.parse(str(relations_xml))
        # frame -> [(type, other frame, {this FE: other FE})], scored relation types only
        self.links: dict[str, list[tuple[str, str, dict[str, str]]]] = {}
        self.fe_links: dict[str, list[str]] = {}
        for rtype in self.tree.getroot().iter("frame-relation-type"):
            if rtype.get("name") in IGNORED_TYPES:
                continue
            for rel in rtype.iter("frame-relation"):
                sup, sub = rel.get("superFrameName"), rel.get("subFrameName")
                pairs = [(fe.get("superFEName"), fe.get("subFEName")) for fe in rel.iter("fe-relation")]
                self.links.setdefault(sup, []).append((rtype.get("name"), sub, {a: b for a, b in pairs}))
                self.links.setdefault(sub, []).append((rtype.get("name"), sup, {b: a for a, b in pairs}))
                for a, b in pairs:
                    self.fe_links.setdefault(f"{sup};{a}", []).append(f"{sub};{b}")
                    self.fe_links.setdefault(f"{sub};{b}", []).append(f"{sup};{a}")

    def frame_distances(self, start: str) -> dict[str, int]:
        """Frames within MAX_DISTANCE of ``start`` (scored relation types, both directions)."""
        return _bfs(start, lambda f: (other for _, other, _ in self.links.get(f, ())))

    def fe_distances(self, start: str) -> dict[str, int]:
        """``Frame;FE`` nodes within MAX_DISTANCE of ``start``."""
        return _bfs(start, lambda n: self.fe_links.get(n, ()))

    def core(self, frame: str, fe: str) -> bool:
        return self.fes.get(frame, {}).get(fe) == "Core"


def _bfs(start: str, neighbours: Callable[[str], Iterable[str]]) -> dict[str, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if dist[node] == MAX_DISTANCE:
            continue
        for other in neighbours(node):
            if other not in dist:
                dist[other] = dist[node] + 1
                queue.append(other)
    return dist


def write_filtered_lexicon(lex: Lexicon, frames_xml: Path, case_sets: Iterable[AnnotationSet], target: Path) -> dict:
    """Keep the frames within MAX_DISTANCE of a case frame and the FE nodes within MAX_DISTANCE of a case FE.

    A frame-relation is kept when both its frames are kept, an fe-relation when
    both its FE nodes are kept (every relation type, the ignored ones included, so
    that a reader must still skip them). Every shortest path of length <=
    MAX_DISTANCE from a case frame or FE, and every path count, is then unchanged.
    Attributes the scorer does not read are dropped.
    """
    case_frames: set[str] = set()
    case_fes: set[str] = set()
    for aset in case_sets:
        case_frames.add(aset.frame_name)
        case_fes.update(f"{aset.frame_name};{lb.name}" for _, lb in aset.overt_fes)
    frames: set[str] = set()
    for frame in case_frames:
        frames.update(lex.frame_distances(frame))
    fe_nodes: set[str] = set()
    for fe in case_fes:
        fe_nodes.update(lex.fe_distances(fe))
    root = etree.Element("frames")
    for frame in etree.parse(str(frames_xml)).getroot().iter("frame"):
        if frame.get("name") in frames:
            fes = etree.SubElement(etree.SubElement(root, "frame", name=frame.get("name")), "fes")
            for fe in frame.iter("fe"):
                etree.SubElement(fes, "fe", name=fe.get("name"), coreType=fe.get("coreType"))
    _write_xml(root, target / "frames.xml")
    rel_root = etree.Element("frame-relations")
    kept_rel = kept_fe = 0
    for rtype in lex.tree.getroot().iter("frame-relation-type"):
        out_type = etree.SubElement(rel_root, "frame-relation-type", name=rtype.get("name"))
        container = etree.SubElement(out_type, "frame-relations")
        for rel in rtype.iter("frame-relation"):
            sup, sub = rel.get("superFrameName"), rel.get("subFrameName")
            if sup not in frames or sub not in frames:
                continue
            kept_rel += 1
            out = etree.SubElement(container, "frame-relation", superFrameName=sup, subFrameName=sub)
            for fe in rel.iter("fe-relation"):
                if f"{sup};{fe.get('superFEName')}" in fe_nodes and f"{sub};{fe.get('subFEName')}" in fe_nodes:
                    kept_fe += 1
                    etree.SubElement(out, "fe-relation", superFEName=fe.get("superFEName"),
                                     subFEName=fe.get("subFEName"))
    _write_xml(rel_root, target / "frRelations.xml")
    return {"case_frames": len(case_frames), "kept_frames": len(frames), "case_fe_nodes": len(case_fes),
            "kept_fe_nodes": len(fe_nodes), "kept_frame_relations": kept_rel, "kept_fe_relations": kept_fe}


def _write_xml(root: etree._Element, path: Path) -> None:
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


# --------------------------------------------------------------------------- perturbations


def _layers(aset: AnnotationSet, fes: Sequence[Label] | None = None, rename: dict[str, str] | None = None,
            ) -> tuple[Layer, ...]:
    """``aset``'s Target layer plus one rank-1 FE layer (``fes``, or its FE labels renamed)."""
    if fes is None:
        fes = [replace(lb, name=(rename or {}).get(lb.name, lb.name)) for _, lb in aset.fe_labels]
    target = Layer("Target", 1, tuple(lb for lb in aset.layer_labels("Target") if lb.is_overt))
    return (target, Layer("FE", 1, tuple(fes))) if fes else (target,)


def _with_fes(aset: AnnotationSet, fes: Sequence[Label]) -> AnnotationSet:
    return replace(aset, layers=_layers(aset, fes))


def _overt(aset: AnnotationSet) -> list[Label]:
    return [lb for _, lb in aset.fe_labels if lb.is_overt]


def _fe_span(aset: AnnotationSet, first: int, last: int) -> tuple[int, int]:
    toks = tokens(aset.sentence.text)
    return toks[first].start, toks[last].end


def perfect(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> Sequence[AnnotationSet]:
    return sets


def frames_related(mapped: bool) -> Callable:
    def perturb(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
        out = []
        for aset in sets:
            choices = sorted((t, f, tuple(sorted(m.items()))) for t, f, m in lex.links.get(aset.frame_name, ())
                             if t in ("Inheritance", "Using") and f != aset.frame_name)
            if not choices:
                out.append(aset)
                continue
            _, frame, mapping = rng.choice(choices)
            layers = _layers(aset, rename=dict(mapping)) if mapped else aset.layers
            out.append(replace(aset, frame_name=frame, layers=layers))
        return out
    return perturb


def _unrelated_frame(frame: str, rng: random.Random, lex: Lexicon) -> str:
    near = lex.frame_distances(frame)
    return rng.choice(sorted(f for f in lex.fes if f not in near))


def frames_unrelated(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    return [replace(a, frame_name=_unrelated_frame(a.frame_name, rng, lex)) for a in sets]


def fes_dropped(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    return [_with_fes(a, [lb for lb in _overt(a) if rng.random() >= 0.3]) for a in sets]


def fes_added(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    out = []
    for aset in sets:
        fes = _overt(aset)
        free = sorted(set(lex.fes.get(aset.frame_name, {})) - {lb.name for lb in fes})
        n = len(tokens(aset.sentence.text))
        if free and rng.random() < 0.5:
            first = rng.randrange(n)
            last = min(n - 1, first + rng.randrange(2))
            fes.append(Label(rng.choice(free), *_fe_span(aset, first, last)))
        out.append(_with_fes(aset, fes))
    return out


def fes_shifted(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    out = []
    for aset in sets:
        n = len(tokens(aset.sentence.text))
        fes = []
        for lb in _overt(aset):
            if rng.random() < 0.3:
                first, last, _ = token_span(tokens(aset.sentence.text), lb.start, lb.end)
                step = 1 if last + 1 < n else -1
                if 0 <= first + step and last + step < n:
                    lb = replace(lb, start=_fe_span(aset, first + step, last + step)[0],
                                 end=_fe_span(aset, first + step, last + step)[1])
            fes.append(lb)
        out.append(_with_fes(aset, fes))
    return out


def fes_relabelled(related: bool) -> Callable:
    """FEs relabelled (30%) to another FE of the same frame, linked to it in the FE graph or not."""
    def perturb(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
        out = []
        for aset in sets:
            fes = []
            for lb in _overt(aset):
                if rng.random() < 0.3:
                    near = lex.fe_distances(f"{aset.frame_name};{lb.name}")
                    names = sorted(fe for fe in lex.fes.get(aset.frame_name, {}) if fe != lb.name
                                   and (f"{aset.frame_name};{fe}" in near) == related)
                    if names:
                        lb = replace(lb, name=rng.choice(names))
                fes.append(lb)
            out.append(_with_fes(aset, fes))
        return out
    return perturb


def noncore_dropped(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    return [_with_fes(a, [lb for lb in _overt(a) if lex.core(a.frame_name, lb.name)]) for a in sets]


def targets_dropped(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    return [a for a in sets if rng.random() >= 0.3]


def targets_added(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    out = list(sets)
    by_text: dict[str, list[AnnotationSet]] = {}
    for aset in sets:
        by_text.setdefault(aset.sentence.text, []).append(aset)
    frames = sorted({a.frame_name for a in sets})
    for text, group in by_text.items():
        used = {span for a in group for span in a.target}
        free = [t for t in tokens(text) if (t.start, t.end) not in used]
        if free and rng.random() < 0.5:
            tok = rng.choice(free)
            frame = rng.choice(frames)
            fes = sorted(lex.fes.get(frame, {}))
            layers = [Layer("Target", 1, (Label("Target", tok.start, tok.end),))]
            if fes:
                other = rng.choice([t for t in tokens(text) if t != tok] or [tok])
                layers.append(Layer("FE", 1, (Label(rng.choice(fes), other.start, other.end),)))
            out.append(replace(group[0], id=900000 + len(out), lu_name=f"{tok.text.lower()}.x",
                               frame_name=frame, layers=tuple(layers)))
    return out


def duplicate_targets(other_frame: bool) -> Callable:
    """30% of sets twice on the same span: an exact copy, or a copy with an unrelated frame and no FEs."""
    def perturb(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
        out = list(sets)
        for aset in sets:
            if rng.random() < 0.3:
                copy = replace(aset, id=900000 + len(out))
                if other_frame:
                    copy = replace(copy, frame_name=_unrelated_frame(aset.frame_name, rng, lex),
                                   layers=_layers(aset, fes=[]))
                out.append(copy)
        return out
    return perturb


def empty(sets: Sequence[AnnotationSet], rng: random.Random, lex: Lexicon) -> list[AnnotationSet]:
    return []


PERTURBATIONS: dict[str, tuple[Callable, str]] = {
    "perfect": (perfect, "exact copy of the gold sets"),
    "frames_related": (frames_related(False), "every frame with an Inheritance/Using neighbour replaced by one "
                       "(seeded choice); FE names kept"),
    "frames_related_fes_mapped": (frames_related(True), "as frames_related, FEs renamed through the "
                                  "relation's fe-relations (FE relabelled to a related FE of a related frame)"),
    "frames_unrelated": (frames_unrelated, "every frame replaced by a frame farther than MAX_DISTANCE"),
    "fes_dropped": (fes_dropped, "30% of overt FE labels dropped"),
    "fes_added": (fes_added, "half the sets get one extra FE (unused FE of the frame, 1-2 random tokens)"),
    "fes_shifted": (fes_shifted, "30% of FE spans shifted by one token"),
    "fes_relabelled_related": (fes_relabelled(True), "30% of FEs relabelled to an FE of the same frame "
                               "linked to it through fe-relations"),
    "fes_relabelled_unrelated": (fes_relabelled(False), "30% of FEs relabelled to an FE of the same frame "
                                 "not linked to it"),
    "noncore_dropped": (noncore_dropped, "every FE that is not Core in frames.xml dropped"),
    "targets_dropped": (targets_dropped, "30% of annotation sets dropped"),
    "targets_added": (targets_added, "half the sentences get an extra set on an untargeted token "
                      "(frame from the cut, one random FE)"),
    "duplicate_targets_same": (duplicate_targets(False), "30% of sets written twice (exact copies)"),
    "duplicate_targets_other_frame": (duplicate_targets(True), "30% of sets get a second set on the same "
                                      "span with an unrelated frame and no FEs"),
    "empty": (empty, "every gold sentence, no annotation set"),
}


# --------------------------------------------------------------------------- cases


def first_sentences(sets: Sequence[AnnotationSet], n: int) -> list[AnnotationSet]:
    keep = set(SentenceTable.of(sets).strings[:n])
    return [a for a in sets if sentence_string(a.sentence.text) in keep]


def same_span_sentences(sets: Sequence[AnnotationSet]) -> list[AnnotationSet]:
    """The sets of every sentence holding two sets with identical target spans."""
    seen: dict[tuple[str, tuple], int] = {}
    for aset in sets:
        key = (sentence_string(aset.sentence.text), aset.target)
        seen[key] = seen.get(key, 0) + 1
    keep = {text for (text, _), count in seen.items() if count > 1}
    return [a for a in sets if sentence_string(a.sentence.text) in keep]


def text_differs(sets: Sequence[AnnotationSet], index: int) -> tuple[list[str], list[AnnotationSet]]:
    """Sentence ``index`` with the case of its first letter swapped (same length, offsets still valid)."""
    strings = SentenceTable.of(sets).strings
    old = strings[index]
    pos = next(i for i, c in enumerate(old) if c.isalpha())
    new = old[:pos] + old[pos].swapcase() + old[pos + 1:]
    changed = [replace(a, sentence=replace(a.sentence, text=new)) if sentence_string(a.sentence.text) == old else a
               for a in sets]
    return [new if s == old else s for s in strings], changed


def build_cases(source: Path, lexicon_dir: Path, out: Path) -> tuple[dict, Lexicon, list[AnnotationSet]]:
    """Write the gold and prediction files under ``out/cases``; return the case table."""
    release = open_release(source)
    result = build_splits(release, standard_split("1.5"), BuildOptions(exclude_frames=EXCLUDED_FRAMES))
    splits = {name: [jsonl.loads(line) for line in result.splits[name].lines] for name in ("dev", "test")}
    lex = Lexicon(lexicon_dir / "frames.xml", lexicon_dir / "frRelations.xml")
    cases_dir = out / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    for old in cases_dir.glob("*.xml"):
        old.unlink()
    cases: dict[str, dict] = {}
    all_sets: list[AnnotationSet] = []

    def add(name: str, gold_name: str, gold: list[AnnotationSet], pred: list[AnnotationSet], description: str,
            pred_sentences: list[str] | None = None) -> None:
        gold_path = cases_dir / f"{gold_name}.gold.xml"
        strings = SentenceTable.of(gold).strings
        if not gold_path.exists():
            semeval.write(gold_path, gold)
        pred_path = cases_dir / f"{name}.pred.xml"
        if pred is gold:  # a self-score: the gold file is the prediction
            pred_path = gold_path
        else:
            semeval.write(pred_path, pred, sentences=pred_sentences or strings)
        all_sets.extend(gold)
        all_sets.extend(pred)
        cases[name] = {"gold": f"cases/{gold_path.name}", "pred": f"cases/{pred_path.name}",
                       "description": description, "gold_sets": len(gold), "pred_sets": len(pred)}

    for split, names in (("test", list(PERTURBATIONS)),
                         ("dev", ["perfect", "frames_related_fes_mapped", "fes_shifted", "targets_dropped",
                                  "duplicate_targets_other_frame"])):
        gold = ordered(first_sentences(splits[split], N_SENTENCES[split]))
        for name in names:
            perturb, description = PERTURBATIONS[name]
            rng = random.Random(f"{split}:{name}")
            add(f"{split}_{name}", f"{split}{N_SENTENCES[split]}", gold, perturb(gold, rng, lex),
                f"FN 1.5 {split}, first {N_SENTENCES[split]} sentences: {description}")
    gold = ordered(first_sentences(splits["test"], N_SENTENCES["test"]))
    strings, changed = text_differs(gold, 3)
    add("test_text_differs", f"test{N_SENTENCES['test']}", gold, changed,
        "perfect copy except sentence 3, whose first letter has its case swapped (scorer skips it)",
        pred_sentences=strings)
    for split in ("test", "dev"):
        same = ordered(same_span_sentences(splits[split]))
        if same:
            add(f"{split}_same_span_self", f"{split}_same_span", same, same,
                f"every FN 1.5 {split} sentence holding two sets with identical target spans, scored "
                "against itself (self-score < 1 trap)")
    return cases, lex, all_sets


# --------------------------------------------------------------------------- Perl runs

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_SENTS = re.compile(r"([0-9]+) Sentences Scored:")
_RECALL = re.compile(rf"Recall={_NUM} \({_NUM}/{_NUM}\)")
_PRECISION = re.compile(rf"Precision={_NUM} \({_NUM}/{_NUM}\)")
_F = re.compile(rf"Fscore={_NUM}")


def run_perl(perl_dir: Path, mode: str, gold: Path, pred: Path, lexicon: Path, cache: Path, seed: int) -> dict:
    """Run one Perl scorer once with a fixed hash seed; the numbers of its summary line.

    ``cache`` holds the relation cache built from ``lexicon`` alone (see :func:`relation_cache`).
    """
    script, flags = MODES[mode]
    env = dict(os.environ, PERL_HASH_SEED=str(seed), PERL_PERTURB_KEYS="0")
    proc = subprocess.run(
        ["perl", str(perl_dir / script), *flags, "-c", str(cache), str(lexicon / "frames.xml"),
         str(lexicon / "frRelations.xml"), str(gold), str(pred)],
        capture_output=True, text=True, env=env, check=True,
    )
    line = next(ln for ln in proc.stdout.splitlines() if "Sentences Scored:" in ln)
    recall, precision = _RECALL.search(line), _PRECISION.search(line)
    return {
        "recall": float(recall[1]), "precision": float(precision[1]), "f1": float(_F.search(line)[1]),
        "matched": float(recall[2]), "gold": float(recall[3]), "predicted": float(precision[3]),
        "sentences_scored": int(_SENTS.search(line)[1]),
    }


def relation_cache(perl_dir: Path, lexicon: Path, cases_dir: Path, cache: Path) -> None:
    """Build the scorers' relation cache for ``lexicon`` in the empty directory ``cache``.

    The cache (Storable, named after the script) holds shortest-path lengths and
    counts computed from frRelations.xml only; both scripts compute it with the
    same code, so one build serves both. Reusing it for runs on the same
    frRelations.xml saves the ~20 s rebuild per run and cannot change a number.
    """
    gold = next(cases_dir.glob("*.gold.xml"))
    run_perl(perl_dir, "semeval_partial", gold, gold, lexicon, cache, 0)
    built = cache / "fnSemScore_modified.pl.cache"
    (cache / "score.argsonly.pl.cache").write_bytes(built.read_bytes())


def perl_reference(perl_dir: Path, out: Path, cases: dict, full_lexicon: Path) -> dict:
    """Every (case, mode) under each PERL_HASH_SEED; the filtered lexicon checked against the full one (seed 0)."""
    keys = ("recall", "precision", "f1", "matched", "gold", "predicted", "sentences_scored")
    with tempfile.TemporaryDirectory() as tmp:
        caches = {}
        for name, lexicon in (("filtered", out / "lexicon"), ("full", full_lexicon)):
            caches[name] = Path(tmp) / name
            caches[name].mkdir()
            relation_cache(perl_dir, lexicon, out / "cases", caches[name])
        empty = Path(tmp) / "empty"
        empty.mkdir()

        def one(job: tuple[str, str, int], full: bool = False) -> dict:
            case, mode, seed = job
            cache = empty if mode.endswith("exact") else caches["full" if full else "filtered"]
            return run_perl(perl_dir, mode, out / cases[case]["gold"], out / cases[case]["pred"],
                            full_lexicon if full else out / "lexicon", cache, seed)

        jobs = [(c, m, s) for c in cases for m in MODES for s in SEEDS]
        full_jobs = [(c, m, 0) for c in cases for m in MODES]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
            runs = dict(zip(jobs, pool.map(one, jobs)))
            full = dict(zip(full_jobs, pool.map(lambda j: one(j, True), full_jobs)))
    mismatches = [list(j) for j in full_jobs if full[j] != runs[j]]
    if mismatches:
        raise SystemExit(f"filtered lexicon differs from the full one on {mismatches}")
    results: dict[str, dict] = {}
    for case in cases:
        for mode in MODES:
            seen = sorted({tuple(runs[case, mode, s][k] for k in keys) for s in SEEDS})
            entry = dict(runs[case, mode, 0])
            entry["hash_order_stable"] = len(seen) == 1
            entry["values_seen"] = [dict(zip(keys, v)) for v in seen]
            results.setdefault(case, {})[mode] = entry
    return {"checked_against_full_lexicon": len(full_jobs), "results": results}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="FrameNet 1.5 release (zip or directory)")
    parser.add_argument("--perl-dir", type=Path, help="directory holding the two Perl scorers (outside the repo)")
    parser.add_argument("--out", type=Path, default=HERE, help="output directory (default: this one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "lexicon"
        generate_lexicon(args.source, full, options=BuildOptions(exclude_frames=EXCLUDED_FRAMES))
        cases, lex, all_sets = build_cases(args.source, full, args.out)
        (args.out / "lexicon").mkdir(exist_ok=True)
        filtering = write_filtered_lexicon(lex, full / "frames.xml", all_sets, args.out / "lexicon")
        reference = {
            "about": "numbers printed by the SemEval-2007 Perl scorers on the cases; written by make_cases.py",
            "lexicon": {"frames": "lexicon/frames.xml", "relations": "lexicon/frRelations.xml",
                        "max_distance": MAX_DISTANCE, **filtering},
            "modes": {m: {"script": s, "flags": list(f)} for m, (s, f) in MODES.items()},
            "hash_seeds": list(SEEDS),
            "cases": cases,
        }
        if args.perl_dir:
            reference.update(perl_reference(args.perl_dir, args.out, cases, full))
        (args.out / "perl_reference.json").write_text(json.dumps(reference, indent=1, sort_keys=False) + "\n",
                                                      encoding="utf-8")
    print(f"{len(cases)} cases, lexicon {filtering}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
