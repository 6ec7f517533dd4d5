"""Argument identification given gold frames: dependency-path statistics (``args-deppath``).

The frame, LU and target of every set are gold; the baseline predicts its FE labels. It needs a
dependency parse (``{split}.conllu`` with HEAD filled, e.g. ``pyfn convert --preprocess spacy``).

Why this method: FrameNet FEs are mostly syntactic dependents of the target, and a frame's FE is
strongly predicted by the grammatical relation and, for prepositional phrases, the preposition
(``give.v``: ``nsubj`` → Donor, ``dobj`` → Theme, ``dative``/``prep:to`` → Recipient). Of the rank-1
overt FE labels of FN 1.5 train (annotated sets, spaCy parse), 21% have exactly the target's span
(the target also fills an FE: ``missile.n`` is the Weapon of Weapon, ``city.n`` the Locale of
Political_locales), 51% are headed by a dependent of the target's head token and 23% more by another
token within two arcs of it; the candidates below reach 98% of FE heads. Counting on train which FE
each path leads to, per frame, gives a deterministic, inspectable baseline: no learning but counts,
one threshold.

Training (``train.jsonl`` + ``train.conllu``; sets with status ``UNANN``, whose FEs were never
annotated, are skipped). For each set, the *target head* is the target token whose head lies
outside the target. Every token within :data:`MAX_PATH` arcs of it in the tree (target tokens and
punctuation excepted) is a *candidate*, described by its path from the target head: one step per
arc, separated by spaces, ``^rel`` going up (``rel`` of the token left), ``vrel`` going down (``rel``
of the token entered), and, in the lexicalised path, ``rel:word`` when that token is a function word
(:data:`LEXICAL_TAGS`: preposition or complementizer, ``to``, particle, wh-adverb; lowercased). The
target itself is one more candidate, path ``SELF``. A candidate's label is the FE whose span has it as head token (the
span's token whose head lies outside the span; spans touching the target are not counted, except a
span equal to the target, the label of ``SELF``), else none. Counts of labels are kept under four
keys, most specific first: (LU, frame, lexicalised path), (frame, LU POS, lexicalised path),
(frame, LU POS, path), (frame, path).

Decoding one set: for each candidate, the first key seen at least :data:`MIN_COUNT` times in train
gives the distribution; its most frequent FE (ties: code-point order) is proposed with score =
its share of that key's count (none counted too). Proposals scoring at least the threshold are
taken greedily, best score first (then shorter path, then token order), skipping an FE name already
given in the set and any span overlapping one already taken. The span of a token candidate is the
contiguous stretch of its dependency subtree around it that does not reach the target, without
punctuation at either end; ``SELF`` takes the target's span. One FE layer (rank 1) per set.

The threshold is tuned on dev (the only use of dev): the grid :data:`THRESHOLDS` is scored with the
``argsonly`` scorer mode and the best F1 kept (ties to the lower threshold); ``--threshold`` fixes it
instead. The threshold, and the dev P/R/F1 of every grid point, are recorded in the manifest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyfn.baselines.data import Instance, children, heads, span_head
from pyfn.errors import PyfnError
from pyfn.formats.base import token_span
from pyfn.model import Label, tokens

MAX_PATH = 3
"""Candidates lie at most this many arcs from the target head."""
LEXICAL_TAGS = frozenset({"IN", "TO", "RP", "WRB"})
"""Penn Treebank tags (XPOS) of the tokens whose lowercased word is part of the lexicalised path: function
words (prepositions and subordinating conjunctions, ``to``, particles, wh-adverbs)."""
MIN_COUNT = 2
"""A key is used when train saw it at least this many times; otherwise the next, less specific key."""
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))
"""The dev grid of thresholds (0.05 ... 0.95)."""
NONE = ""
"""The label of a candidate that heads no FE."""
SELF = "SELF"
"""The path of the target itself (an FE whose span is the target's)."""
PUNCT = frozenset({"punct"})

KEYS = ("lu+frame+lexpath", "frame+pos+lexpath", "frame+pos+path", "frame+path")


@dataclass(frozen=True)
class Candidate:
    """A token (or the target, ``index`` -1) that may head an FE, with its path from the target head."""

    index: int
    path: str
    lexpath: str
    length: int


def candidates(inst: Instance) -> list[Candidate]:
    """``SELF`` and every non-target, non-punctuation token within :data:`MAX_PATH` arcs of the target head."""
    parse = inst.parse
    assert parse is not None
    hd = heads(parse)
    kids = children(parse)
    start = span_head(parse, inst.target)
    target = set(inst.target)
    lower = [w.lower() for w in inst.words]

    def step(child: int, up: bool) -> tuple[str, str]:
        rel = parse[child].deprel or "_"
        arrow = "^" if up else "v"
        lex = f"{arrow}{rel}:{lower[child]}" if parse[child].xpos in LEXICAL_TAGS else f"{arrow}{rel}"
        return f"{arrow}{rel}", lex

    out = [Candidate(-1, SELF, SELF, 0)]
    seen = {start}
    frontier = [(start, "", "", 0)]
    while frontier:
        node, path, lexpath, length = frontier.pop(0)
        if length == MAX_PATH:
            continue
        moves = []
        up = hd[node]
        if up is not None and up >= 0:
            moves.append((up, *step(node, True)))
        moves.extend((child, *step(child, False)) for child in kids[node])
        for nxt, s, lex in moves:
            if nxt in seen:
                continue
            seen.add(nxt)
            item = (nxt, f"{path} {s}" if path else s, f"{lexpath} {lex}" if lexpath else lex, length + 1)
            frontier.append(item)
            if nxt not in target and (parse[nxt].deprel or "") not in PUNCT:
                out.append(Candidate(nxt, item[1], item[2], item[3]))
    out.sort(key=lambda c: c.index)
    return out


def keys(inst: Instance, cand: Candidate) -> tuple[tuple[str, ...], ...]:
    """The count keys of a candidate, most specific first (see :data:`KEYS`)."""
    frame = inst.aset.frame_name
    return (
        ("L", inst.lu, frame, cand.lexpath),
        ("P", frame, inst.pos, cand.lexpath),
        ("U", frame, inst.pos, cand.path),
        ("F", frame, cand.path),
    )


def gold_labels(inst: Instance) -> dict[int, str]:
    """Candidate index (-1: the target) -> FE name, from the set's rank-1 overt FE labels."""
    parse = inst.parse
    assert parse is not None
    toks = tokens(inst.aset.sentence.text)
    target = set(inst.target)
    out: dict[int, str] = {}
    for rank, label in sorted(inst.aset.overt_fes, key=lambda rl: (rl[1].start, rl[1].end, rl[1].name)):
        if rank != 1:
            continue
        first, last, _ = token_span(toks, *label.span)
        span = set(range(first, last + 1))
        if span == target:
            out.setdefault(-1, label.name)
        elif not span & target:
            out.setdefault(span_head(parse, sorted(span)), label.name)
    return out


def fe_span(inst: Instance, index: int) -> tuple[int, int]:
    """Token indices ``(first, last)`` of the FE headed by ``index`` (see the module docstring)."""
    parse = inst.parse
    assert parse is not None
    if index < 0:
        return inst.target[0], inst.target[-1]
    kids = children(parse)
    subtree = {index}
    stack = [index]
    while stack:
        for child in kids[stack.pop()]:
            if child not in subtree:
                subtree.add(child)
                stack.append(child)
    target = set(inst.target)
    first = last = index
    while first - 1 in subtree and first - 1 not in target:
        first -= 1
    while last + 1 in subtree and last + 1 not in target:
        last += 1

    def punct(i: int) -> bool:
        return (parse[i].deprel or "") in PUNCT

    while first < last and punct(first):
        first += 1
    while last > first and punct(last):
        last -= 1
    return first, last


@dataclass(frozen=True)
class DepPathArgs:
    """Label counts per key (:func:`keys`) from train."""

    counts: Mapping[tuple[str, ...], Mapping[str, int]]
    training: Mapping[str, int]

    @classmethod
    def fit(cls, train: Sequence[Instance]) -> DepPathArgs:
        """Count, for every candidate of every annotated train set, its label under each key."""
        counts: dict[tuple[str, ...], Counter] = {}
        stats: Counter = Counter()
        for inst in train:
            if inst.parse is None:
                raise PyfnError("args-deppath needs a dependency parse of train")
            if inst.aset.status == "UNANN":
                stats["skipped_unannotated_sets"] += 1
                continue
            stats["annotation_sets"] += 1
            gold = gold_labels(inst)
            found = 0
            for cand in candidates(inst):
                label = gold.get(cand.index, NONE)
                found += label != NONE
                for key in keys(inst, cand):
                    counts.setdefault(key, Counter())[label] += 1
                stats["candidates"] += 1
            stats["fe_heads"] += len(gold)
            stats["fe_heads_reached"] += found
            stats["overt_fes"] += sum(1 for rank, lb in inst.aset.overt_fes if rank == 1)
        frozen = {key: dict(sorted(counts[key].items())) for key in sorted(counts)}
        return cls(frozen, dict(sorted(stats.items())))

    def propose(self, inst: Instance, cand: Candidate) -> tuple[str, float] | None:
        """``(FE, score)`` for a candidate, or None when no key was seen often enough or no FE was seen."""
        for key in keys(inst, cand):
            dist = self.counts.get(key)
            if dist is None:
                continue
            total = sum(dist.values())
            if total < MIN_COUNT:
                continue
            fes = [(n, fe) for fe, n in dist.items() if fe != NONE]
            if not fes:
                return None
            n, fe = min(fes, key=lambda item: (-item[0], item[1]))
            return fe, n / total
        return None

    def proposals(self, inst: Instance) -> list[tuple[float, int, int, str, tuple[int, int]]]:
        """Every proposal of a set, best first: ``(score, path length, token, FE, token span)``."""
        out = []
        for cand in candidates(inst):
            found = self.propose(inst, cand)
            if found is None:
                continue
            out.append((found[1], cand.length, cand.index, found[0], fe_span(inst, cand.index)))
        out.sort(key=lambda p: (-p[0], p[1], p[2], p[3]))
        return out

    def predict(self, inst: Instance, threshold: float,
                proposals: Sequence[tuple[float, int, int, str, tuple[int, int]]] | None = None) -> list[Label]:
        """The FE labels of one set at ``threshold`` (greedy, no repeated FE, no overlapping spans)."""
        if inst.parse is None:
            raise PyfnError("args-deppath needs a dependency parse")
        toks = tokens(inst.aset.sentence.text)
        taken: list[tuple[int, int]] = []
        names: set[str] = set()
        labels = []
        for score, _, _, fe, (first, last) in self.proposals(inst) if proposals is None else proposals:
            if score < threshold:
                break
            if fe in names or any(first <= b and a <= last for a, b in taken):
                continue
            names.add(fe)
            taken.append((first, last))
            labels.append(Label(fe, toks[first].start, toks[last].end))
        return sorted(labels, key=lambda lb: (lb.start, lb.end, lb.name))

    def record(self) -> dict:
        """Method parameters and training counts for the manifest."""
        return {
            "max_path": MAX_PATH,
            "lexical_xpos": sorted(LEXICAL_TAGS),
            "min_count": MIN_COUNT,
            "keys": list(KEYS),
            "threshold_grid": list(THRESHOLDS),
            "training": {**self.training, "keys": len(self.counts)},
        }
