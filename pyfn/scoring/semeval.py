"""The SemEval-2007 task 19 frame-structure scorer (``fnSemScore_modified.pl -l -n``) in Python.

Modes (points: frame / core FE / non-core FE):

- ``semeval``: 1 / 1 / 0.5, as ``fnSemScore_modified.pl -l -n``;
- ``frames``: 1 / 0 / 0, as its ``-t`` (targets and frames only);
- ``argsonly``: 0 / 1 / 0.5, as pyfn 1.3's ``score.argsonly.pl -a``, which also
  scores sentences whose gold holds no points (the others skip them, so that
  predictions on such sentences cost nothing).

``exact=True`` is the script's ``-e``. Otherwise a predicted frame related to the
gold frame at distance d (:mod:`pyfn.scoring.scorer_lexicon`) earns ``0.8**d`` of its
points, and a predicted FE related to the gold FE at the *same* distance earns
``0.8**d * min(1, fe_paths / frame_paths)`` of its points (at another distance,
nothing). Points are summed over the file; P = matched/predicted, R =
matched/gold, F1 their harmonic mean (0 when undefined), as the script prints.

How the script sees a sentence (faithful, the default). Only rank-1 Target and
FE layers count; null instantiations do not. A frame is keyed by its target
span alone, so when two sets of a sentence share a target span the *later one
replaces the earlier frame*, while the FEs of both stay in the sentence's point
total: the earlier set's FEs can never be matched. That is why gold scored
against itself gives less than 1 (FN 1.5 test: 10061.5/10066.0 = 0.99955). FEs
are keyed by (target span, frame), a later set with the same target and frame
replacing the earlier one. FE labels of one name in a layer are one FE with a
discontinuous span; every ``Path`` piece is an FE of its own. A gold sentence
worth no points (not in ``argsonly``) is skipped, so predictions on it cost
nothing, as in the script. These quirks are recorded in :attr:`Score.notes`,
not as problems: they are how the script scores, not bad input. Where the
script pairs several gold and predicted labels of one span in Perl's
randomised hash order (partial credit only), this module takes gold labels in
sorted order, each taking the exact predicted label if still free, otherwise
the closest related free one (first in sorted order among equals): that is one
of the orders Perl may draw, so the numbers are the script's whenever the
script's own numbers do not depend on the draw.

Sentences (where pyfn departs from the script). The script pairs sentences by
ordinal position and skips a gold sentence that has no predicted sentence there
or whose predicted text differs, so a file missing sentences scores *higher*
(FORMATS.md §5.2). pyfn pairs them by SemEval sentence ID, checked by text
(:mod:`pyfn.scoring.pairing`), and scores every gold sentence: one with no
predicted sentence of its ID, or with one of another text, counts all its gold
points as missed; the points of a predicted sentence whose ID is not in gold,
or whose text differs from its gold sentence, count as predicted (wrong). A
prediction file holding exactly the gold sentences, with their texts, in any
order, gets the numbers the script gives on it in gold order.
:attr:`Score.per_sentence` holds one :class:`SentenceScore` per gold sentence
scored or missed and per predicted sentence outside gold, its ``status`` saying
which.

``corrected=True``: frames are keyed by (target span, frame), so sets sharing
a target are all scored (gold against itself gives 1.0); a set repeating the
target and frame of an earlier set of its sentence is skipped and reported;
gold and predicted frames of one target, and gold and predicted FE labels of
one span, are paired to maximise the total credit (an optimal assignment)
instead of greedily. Everything else is as in the faithful mode.

``span_match`` (approximate argument matching, after the keyphrase-evaluation
criteria of Kim et al. 2010): ``exact`` (default, the script's) credits an FE
label only on the identical span; ``overlap`` credits a gold and a predicted FE
label whose whitespace-token spans overlap by the shared tokens over the longer
span's length (R-precision generalised); ``head`` credits them fully when the
spans' head tokens are the same token, given a dependency parse of the gold
sentences (``parses``: one head list per gold sentence, 1-based, 0 = root; the
head of a span is its first token whose head lies outside the span). In both
approximate modes the label credit (same FE, or related through frame relations)
is multiplied by the span factor and gold and predicted labels of a target are
paired one to one to maximise the total; frame points are unchanged.

Inputs are SemEval XML files (read with :func:`pyfn.formats.semeval.read`;
sentence *i* is the *i*-th ``sentence`` element of the file) or annotation sets
in memory (sentences in :class:`~pyfn.formats.base.SentenceTable` order, sets in
:func:`~pyfn.formats.base.ordered` order, as :func:`pyfn.formats.semeval.write`
would write them; predicted sets are aligned to gold sentences by sentence
string, a gold sentence without predicted sets being an empty prediction).
Malformed sets are skipped and reported in :attr:`Score.problems`, gold
sentences worth no points in :attr:`Score.skipped`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyfn.errors import Problem, ProblemLog, PyfnError, UsageError
from pyfn.formats.base import SentenceTable, ordered, sentence_string
from pyfn.model import AnnotationSet, tokens
from pyfn.scoring.pairing import Doc, pair, read_file, sentence_warnings
from pyfn.scoring.scorer_lexicon import FE, ScorerLexicon

MODES = ("semeval", "frames", "argsonly")
SPAN_MATCHES = ("exact", "overlap", "head")
LINK_WEIGHT = 0.8
"""Share of the points kept per relation crossed."""
_POINTS = {"semeval": (1.0, 1.0, 0.5), "frames": (1.0, 0.0, 0.0), "argsonly": (0.0, 1.0, 0.5)}

Pieces = tuple[tuple[int, int], ...]
"""A span as the script keys it: its pieces, sorted."""


STATUSES = ("scored", "missing", "text_differs", "not_in_gold")
"""A :class:`SentenceScore`'s status: gold and predicted sentence paired; gold sentence without a
predicted sentence of its ID; paired by ID but texts differ; predicted sentence whose ID is not in gold."""


@dataclass(frozen=True)
class SentenceScore:
    """Points of one sentence: ``index`` is its position in the gold file (``not_in_gold``: in the
    predicted file), ``id`` its SemEval sentence ID, ``status`` one of :data:`STATUSES`."""

    index: int
    matched: float
    gold: float
    predicted: float
    status: str = "scored"
    id: str = ""


@dataclass(frozen=True)
class Skip:
    """A gold sentence left out of the score (worth no points in the mode, as in the script)."""

    index: int
    reason: str
    detail: str


@dataclass(frozen=True)
class Score:
    """Micro-averaged points over the file, per sentence, and what was left out."""

    matched: float
    gold: float
    predicted: float
    mode: str
    exact: bool
    corrected: bool
    per_sentence: tuple[SentenceScore, ...] = ()
    span_match: str = "exact"
    skipped: tuple[Skip, ...] = ()
    problems: tuple[Problem, ...] = ()
    notes: tuple[Problem, ...] = ()

    @property
    def precision(self) -> float:
        """matched / predicted (0 when nothing was predicted)."""
        return self.matched / self.predicted if self.predicted > 0 else 0.0

    @property
    def recall(self) -> float:
        """matched / gold (0 when gold is worth nothing)."""
        return self.matched / self.gold if self.gold > 0 else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 when both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0 else 0.0

    @property
    def variant(self) -> str:
        """``mode|exact-or-partial|faithful-or-corrected[|span:overlap-or-head]``, for score signatures."""
        parts = [self.mode, "exact" if self.exact else "partial", "corrected" if self.corrected else "faithful"]
        if self.span_match != "exact":
            parts.append(f"span:{self.span_match}")
        return "|".join(parts)

    def problem_counts(self) -> dict[str, int]:
        """Problems by reason (``gold:…`` / ``pred:…``), sorted."""
        return ProblemLog(problems=list(self.problems)).counts()

    def note_counts(self) -> dict[str, int]:
        """The script's quirks met (``gold:…`` / ``pred:…``), by reason, sorted."""
        return ProblemLog(problems=list(self.notes)).counts()

    def skip_counts(self) -> dict[str, int]:
        """Skipped sentences by reason, sorted."""
        counts: dict[str, int] = {}
        for skip in self.skipped:
            counts[skip.reason] = counts.get(skip.reason, 0) + 1
        return dict(sorted(counts.items()))

    def sentence_counts(self) -> dict[str, int]:
        """Gold sentences in the file, by :data:`STATUSES` and ``no_gold_points`` (skipped)."""
        counts = dict.fromkeys(STATUSES, 0)
        for s in self.per_sentence:
            counts[s.status] += 1
        counts["no_gold_points"] = len(self.skipped)
        return {"gold": len(self.skipped) + sum(counts[s] for s in STATUSES[:3]), **counts}

    def warnings(self) -> list[str]:
        """What a user must know about this score, in words: unpaired sentences, problems, quirks met."""
        ids = {status: [s.id for s in self.per_sentence if s.status == status] for status in STATUSES}
        out = sentence_warnings(self.sentence_counts()["gold"], ids["missing"], ids["text_differs"],
                                ids["not_in_gold"], "every frame and FE of theirs counts as missed",
                                "points count as predictions that match nothing")
        for reason, n in self.problem_counts().items():
            first = next(p for p in self.problems if p.reason == reason)
            out.append(f"{n} {reason}, e.g. {first.message}")
        return out + _note_lines(self.notes)


# --------------------------------------------------------------------------- sentences as the script sees them


@dataclass
class _Features:
    """A sentence's frames (target -> frame -> points) and FEs ((target, frame) -> span -> FE -> points)."""

    frames: dict[Pieces, dict[str, float]] = field(default_factory=dict)
    fes: dict[tuple[Pieces, str], dict[Pieces, dict[FE, float]]] = field(default_factory=dict)

    def points(self) -> float:
        return sum(p for fr in self.frames.values() for p in fr.values()) + sum(
            p for spans in self.fes.values() for labels in spans.values() for p in labels.values()
        )


_NOTES = {
    "same_target_replaces": "share their target with an earlier set of their sentence but have another frame: "
                            "as the Perl script does, only the later frame is scored, and the earlier set's FEs "
                            "still count but can never match (--corrected scores both sets)",
    "duplicate_set_replaces": "repeat the target and frame of an earlier set of their sentence: as the Perl "
                              "script does, the later set's FEs replace the earlier set's",
    "duplicate_set": "repeat the target and frame of an earlier set of their sentence: not scored a second time",
}


def _note_lines(notes: Sequence[Problem]) -> list[str]:
    """One sentence per quirk met, with the gold and predicted counts and a first example."""
    out = []
    for reason, text in _NOTES.items():
        sides = {side: [n for n in notes if n.reason == f"{side}:{reason}"] for side in ("gold", "pred")}
        if not any(sides.values()):
            continue
        counts = " and ".join(f"{len(found)} {'predicted' if side == 'pred' else 'gold'}"
                              for side, found in sides.items() if found)
        first = next(found[0] for found in sides.values() if found)
        out.append(f"{counts} annotation sets {text}; first: {first.where}")
    return out


class _Builder:
    """Turns sets into :class:`_Features` under the chosen mode and variant."""

    def __init__(self, lexicon: ScorerLexicon, mode: str, corrected: bool) -> None:
        self.frame_points, self.core_points, self.noncore_points = _POINTS[mode]
        self.core = lexicon.core
        self.corrected = corrected

    def fe_points(self, frame: str, fe: str) -> float:
        return self.core_points if (frame, fe) in self.core else self.noncore_points

    def features(self, sets: Iterable[AnnotationSet], side: str, where: str, log: ProblemLog,
                 notes: ProblemLog) -> _Features:
        """Frames and FEs of one sentence; bad sets go to ``log``, the script's quirks to ``notes``."""
        out = _Features()
        for aset in sets:
            frame = aset.frame_name
            set_where = f"{where}, annotation set {aset.id} ({frame})"
            targets = [lay for lay in aset.layers if lay.name == "Target" and lay.rank == 1 and lay.labels]
            if not targets:
                log.add(f"{side}:no_rank1_target", set_where, f"{set_where}: no rank-1 Target label; set skipped")
                continue
            target = tuple(sorted(lb.span for lb in targets[0].labels if lb.is_overt and lb.name == "Target"))
            key = (target, frame)
            if self.corrected:
                if frame in out.frames.get(target, {}):
                    notes.add(f"{side}:duplicate_set", set_where,
                            f"{set_where}: same target and frame as an earlier set; set skipped")
                    continue
                out.frames.setdefault(target, {})[frame] = self.frame_points
            else:
                earlier = out.frames.get(target)
                if earlier is not None:
                    reason = "duplicate_set_replaces" if frame in earlier else "same_target_replaces"
                    notes.add(f"{side}:{reason}", set_where,
                              f"{set_where}: same target as an earlier set ({', '.join(earlier)}); "
                              "it replaces that frame, as the script does")
                out.frames[target] = {frame: self.frame_points}
            if len(targets) > 1:
                log.add(f"{side}:several_target_layers", set_where,
                        f"{set_where}: several rank-1 Target layers; its FEs are dropped, as the script does")
                continue
            out.fes[key] = self._fes(aset)
        return out

    def _fes(self, aset: AnnotationSet) -> dict[Pieces, dict[FE, float]]:
        frame = aset.frame_name
        fes: dict[Pieces, dict[FE, float]] = {}
        for layer in aset.layers:
            if layer.name != "FE" or layer.rank != 1:
                continue
            collated: dict[str, list[tuple[int, int]]] = {}
            for label in layer.labels:
                if not label.is_overt:
                    continue
                if label.name == "Path":
                    fes[(label.span,)] = {(frame, "Path"): self.fe_points(frame, "Path")}
                else:
                    collated.setdefault(label.name, []).append(label.span)
            for name, pieces in collated.items():
                fes.setdefault(tuple(sorted(pieces)), {})[(frame, name)] = self.fe_points(frame, name)
        return fes


# --------------------------------------------------------------------------- comparison


class _Matcher:
    """Credit of predicted frames and FEs against gold ones; ``span`` scores two FE spans (None: exact)."""

    def __init__(self, lexicon: ScorerLexicon, exact: bool, corrected: bool) -> None:
        self.lexicon = lexicon
        self.exact = exact
        self.corrected = corrected
        self.span: SpanFactor | None = None

    def frame_link(self, gold: str, pred: str) -> tuple[int, int] | None:
        if gold == pred:
            return (0, 1)
        return None if self.exact else self.lexicon.frames.paths(gold).get(pred)

    def fe_link(self, gold: FE, pred: FE) -> tuple[int, int] | None:
        if gold == pred:
            return (0, 1)
        return None if self.exact else self.lexicon.fes.paths(gold).get(pred)

    def sentence(self, gold: _Features, pred: _Features) -> float:
        matched = 0.0
        for target, gold_frames in gold.frames.items():
            pred_frames = pred.frames.get(target)
            if not pred_frames:
                continue

            def credit(gfr: str, sfr: str, link: tuple[int, int], target: Pieces = target,
                       points: Mapping[str, float] = pred_frames) -> float:
                return points[sfr] * LINK_WEIGHT ** link[0] + self._fe_credit(
                    gold.fes.get((target, gfr)), pred.fes.get((target, sfr)), link
                )

            matched += self._pair(gold_frames, pred_frames, self.frame_link, credit)
        return matched

    def _fe_credit(
        self, gold: Mapping[Pieces, Mapping[FE, float]] | None, pred: Mapping[Pieces, Mapping[FE, float]] | None,
        frame_link: tuple[int, int],
    ) -> float:
        if gold is None or pred is None:
            return 0.0
        fr_dist, fr_paths = frame_link
        if self.span is not None:
            return self._approximate(gold, pred, frame_link)
        total = 0.0
        for span, gold_labels in gold.items():
            pred_labels = pred.get(span)
            if not pred_labels:
                continue

            def credit(gfe: FE, sfe: FE, link: tuple[int, int], labels: Mapping[FE, float] = pred_labels) -> float:
                fe_dist, fe_paths = link
                if fe_dist != fr_dist:
                    return 0.0
                factor = 1.0 if gfe == sfe else min(1.0, fe_paths / fr_paths)
                return labels[sfe] * LINK_WEIGHT ** fe_dist * factor

            total += self._pair(gold_labels, pred_labels, self.fe_link, credit)
        return total

    def _approximate(
        self, gold: Mapping[Pieces, Mapping[FE, float]], pred: Mapping[Pieces, Mapping[FE, float]],
        frame_link: tuple[int, int],
    ) -> float:
        """Labels of any spans paired one to one, each pair's credit times its span factor."""
        assert self.span is not None
        fr_dist, fr_paths = frame_link
        golds = sorted((span, fe) for span, labels in gold.items() for fe in labels)
        preds = sorted((span, fe) for span, labels in pred.items() for fe in labels)
        weights: list[list[float | None]] = []
        for gspan, gfe in golds:
            row: list[float | None] = []
            for sspan, sfe in preds:
                link = self.fe_link(gfe, sfe)
                factor = self.span(gspan, sspan) if link is not None and link[0] == fr_dist else 0.0
                if not factor:
                    row.append(None)
                    continue
                label = 1.0 if gfe == sfe else min(1.0, link[1] / fr_paths)
                row.append(pred[sspan][sfe] * LINK_WEIGHT ** link[0] * label * factor)
            weights.append(row)
        return max_assignment(weights)

    def _pair(self, gold, pred, link, credit) -> float:  # type: ignore[no-untyped-def]
        """Total credit of the gold/pred pairs: greedy as the script (faithful) or optimal (corrected)."""
        if self.corrected:
            golds, preds = sorted(gold), sorted(pred)
            weights = [[_maybe(credit, g, s, link(g, s)) for s in preds] for g in golds]
            return max_assignment(weights)
        exact = sorted(g for g in gold if g in pred)
        total = sum(credit(g, g, (0, 1)) for g in exact)
        free = sorted(s for s in pred if s not in gold)
        for g in sorted(g for g in gold if g not in pred):
            choice, found = None, None
            for s in free:
                hit = link(g, s)
                if hit is not None and (found is None or hit[0] < found[0]):
                    choice, found = s, hit
            if choice is not None:
                free.remove(choice)
                total += credit(g, choice, found)
        return total


def _maybe(credit, gold, pred, found):  # type: ignore[no-untyped-def]
    return None if found is None else credit(gold, pred, found)


def max_assignment(weights: Sequence[Sequence[float | None]]) -> float:
    """Largest total weight of a one-to-one pairing of rows and columns (``None``: may not pair).

    Weights must be non-negative (an allowed pair of weight 0 is the same as no
    pair). Hungarian algorithm, O(n²m).
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if not rows or not cols:
        return 0.0
    if rows > cols:
        weights = [[weights[r][c] for r in range(rows)] for c in range(cols)]
        rows, cols = cols, rows
    cost = [[-(w or 0.0) for w in row] for row in weights]
    inf = float("inf")
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    owner = [0] * (cols + 1)
    way = [0] * (cols + 1)
    for row in range(1, rows + 1):
        owner[0] = row
        col0 = 0
        least = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[col0] = True
            r0, delta, col1 = owner[col0], inf, 0
            for col in range(1, cols + 1):
                if not used[col]:
                    reduced = cost[r0 - 1][col - 1] - u[r0] - v[col]
                    if reduced < least[col]:
                        least[col], way[col] = reduced, col0
                    if least[col] < delta:
                        delta, col1 = least[col], col
            for col in range(cols + 1):
                if used[col]:
                    u[owner[col]] += delta
                    v[col] -= delta
                else:
                    least[col] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            owner[col0] = owner[col1]
            col0 = col1
    return sum(weights[owner[c] - 1][c - 1] or 0.0 for c in range(1, cols + 1) if owner[c])


# --------------------------------------------------------------------------- approximate span matching


class SpanFactor:
    """How much of an FE's credit two spans of one sentence earn: token overlap or head match."""

    def __init__(self, match: str, text: str, heads: Sequence[int] | None) -> None:
        self.match = match
        self.tokens = tokens(text)
        self.heads = heads

    def _indices(self, pieces: Pieces) -> frozenset[int]:
        return frozenset(t.index for t in self.tokens for start, end in pieces if t.start <= end and t.end >= start)

    def _head(self, indices: frozenset[int]) -> int | None:
        assert self.heads is not None
        for i in sorted(indices):
            if self.heads[i] - 1 not in indices:
                return i
        return min(indices) if indices else None

    def __call__(self, gold: Pieces, pred: Pieces) -> float:
        g, p = self._indices(gold), self._indices(pred)
        if not g or not p:
            return 1.0 if gold == pred else 0.0
        if self.match == "overlap":
            return len(g & p) / max(len(g), len(p))
        return 1.0 if self._head(g) == self._head(p) else 0.0


# --------------------------------------------------------------------------- inputs


def _read_file(path: Path, side: str, log: ProblemLog) -> Doc:
    """The file's sentences and sets, the reader's problems logged under ``side``."""
    inner = ProblemLog(strict=log.strict)
    doc = read_file(path, inner)
    for problem in inner.problems:
        log.add(f"{side}:{problem.reason}", problem.where, problem.message)
    return doc


def _gold_sets(sets: Sequence[AnnotationSet]) -> Doc:
    strings = SentenceTable.of(sets).strings
    index = {s: i for i, s in enumerate(strings)}
    placed: list[list[AnnotationSet]] = [[] for _ in strings]
    for aset in ordered(sets):
        placed[index[sentence_string(aset.sentence.text)]].append(aset)
    return Doc([(str(i), text) for i, text in enumerate(strings)], placed)


def _pred_sets(sets: Sequence[AnnotationSet], gold: Doc) -> Doc:
    """Predicted sets at the gold sentence of their sentence string; other strings become sentences not in gold."""
    index = {sentence_string(text): i for i, (_, text) in reversed(list(enumerate(gold.sentences)))}
    sentences = list(gold.sentences)
    placed: list[list[AnnotationSet]] = [[] for _ in sentences]
    for aset in ordered(sets):
        string = sentence_string(aset.sentence.text)
        if string not in index:
            index[string] = len(sentences)
            sentences.append((f"{aset.sentence.id} (not in gold)", aset.sentence.text))
            placed.append([])
        placed[index[string]].append(aset)
    return Doc(sentences, placed)


def _valid(sets: list[AnnotationSet], text: str, side: str, where: str, log: ProblemLog) -> list[AnnotationSet]:
    """In-memory sets checked as the file reader checks them (frame name, offsets inside the text)."""
    out = []
    length = len(text)
    for aset in sets:
        set_where = f"{where}, annotation set {aset.id}"
        if not aset.frame_name:
            log.add(f"{side}:malformed_annotation_set", set_where, f"{set_where}: no frame name; set skipped")
        elif any(lb.is_overt and not 0 <= lb.start <= lb.end < length  # type: ignore[operator]
                 for layer in aset.layers for lb in layer.labels):
            log.add(f"{side}:malformed_annotation_set", set_where,
                    f"{set_where}: a label lies outside the sentence text ({length} characters); set skipped")
        else:
            out.append(aset)
    return out


# --------------------------------------------------------------------------- entry point


def score(
    gold: Sequence[AnnotationSet] | Path,
    pred: Sequence[AnnotationSet] | Path,
    *,
    lexicon: ScorerLexicon,
    mode: str = "semeval",
    exact: bool = False,
    corrected: bool = False,
    strict: bool = False,
    span_match: str = "exact",
    parses: Sequence[Sequence[int]] | None = None,
) -> Score:
    """Score ``pred`` against ``gold`` as the SemEval-2007 Perl scorer does (see the module docstring).

    Files are SemEval XML paths; sequences are annotation sets in memory.
    ``strict`` raises :class:`PyfnError` at the first malformed set instead of
    skipping and reporting it (the script's quirks in :attr:`Score.notes` never
    raise). ``span_match`` ``overlap`` or
    ``head`` gives partial credit to overlapping FE spans (``head`` needs
    ``parses``: per gold sentence, the 1-based head of each whitespace token).
    """
    if mode not in MODES:
        raise UsageError(f"unknown scoring mode {mode!r} (known: {', '.join(MODES)})")
    if span_match not in SPAN_MATCHES:
        raise UsageError(f"unknown span match {span_match!r} (known: {', '.join(SPAN_MATCHES)})")
    if span_match == "head" and parses is None:
        raise UsageError("span match 'head' needs a dependency parse of the gold sentences (--parse FILE)")
    log, notes = ProblemLog(strict=strict), ProblemLog()
    gold_doc = _read_file(Path(gold), "gold", log) if isinstance(gold, (str, Path)) else _gold_sets(gold)
    pred_doc = _read_file(Path(pred), "pred", log) if isinstance(pred, (str, Path)) else _pred_sets(pred, gold_doc)
    if parses is not None:
        _check_parses(parses, gold_doc)
    pairing = pair(gold_doc.sentences, pred_doc.sentences)
    builder = _Builder(lexicon, mode, corrected)
    matcher = _Matcher(lexicon, exact, corrected)

    def features(doc: Doc, position: int, side: str) -> _Features:
        key, text = doc.sentences[position]
        where = f"{'gold' if side == 'gold' else 'predicted'} sentence {position}" + (
            f" (ID {key})" if key != str(position) else "")
        return builder.features(_valid(doc.sets[position], text, side, where, log), side, where, log, notes)

    per_sentence: list[SentenceScore] = []
    skipped: list[Skip] = []
    for index, (key, gold_text) in enumerate(gold_doc.sentences):
        gold_features = features(gold_doc, index, "gold")
        gold_points = gold_features.points()
        position = pairing.pred_of[index]
        if position is None:
            per_sentence.append(SentenceScore(index, 0.0, gold_points, 0.0, "missing", key))
        elif index in pairing.text_differs:
            pred_points = features(pred_doc, position, "pred").points()
            per_sentence.append(SentenceScore(index, 0.0, gold_points, pred_points, "text_differs", key))
        elif gold_points == 0 and mode != "argsonly":
            skipped.append(Skip(index, "no_gold_points", "gold is worth no points in this mode"))
        else:
            pred_features = features(pred_doc, position, "pred")
            if span_match != "exact":
                matcher.span = SpanFactor(span_match, gold_text, parses[index] if parses is not None else None)
            per_sentence.append(SentenceScore(index, matcher.sentence(gold_features, pred_features), gold_points,
                                              pred_features.points(), "scored", key))
    for position in pairing.not_in_gold:
        per_sentence.append(SentenceScore(position, 0.0, 0.0, features(pred_doc, position, "pred").points(),
                                          "not_in_gold", pred_doc.sentences[position][0]))
    return Score(
        matched=sum(s.matched for s in per_sentence),
        gold=sum(s.gold for s in per_sentence),
        predicted=sum(s.predicted for s in per_sentence),
        mode=mode,
        exact=exact,
        corrected=corrected,
        per_sentence=tuple(per_sentence),
        skipped=tuple(skipped),
        problems=tuple(log.problems),
        notes=tuple(notes.problems),
        span_match=span_match,
    )


def _check_parses(parses: Sequence[Sequence[int]], gold: Doc) -> None:
    """One head list per gold sentence, one head per whitespace token, or an error naming the sentence."""
    if len(parses) != len(gold.sentences):
        raise PyfnError(f"the parse has {len(parses)} sentences, the gold file {len(gold.sentences)}")
    for index, (heads, (_, text)) in enumerate(zip(parses, gold.sentences)):
        n = len(tokens(text))
        if len(heads) != n or any(h is None or not 0 <= h <= n for h in heads):
            raise PyfnError(f"gold sentence {index}: the parse has {len(heads)} heads for {n} tokens "
                            "(or a head out of range); parse and gold do not align")

