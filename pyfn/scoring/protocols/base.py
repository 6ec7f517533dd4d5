"""What every named protocol shares: its card, its counts, and gold and predicted sets read as tokens.

A protocol re-implements one published evaluation (its repository, commit and
file on the card). Each reads the same two SemEval XML files as ``pyfn score``:
sentences pair by ID and text (:mod:`pyfn.scoring.pairing`), and each set is
seen as the token formats see it (whitespace tokens of the sentence, FrameNet
offsets rounded to whole tokens). What a protocol cannot see or does not score
is counted under ``skipped`` by reason, never dropped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyfn import __version__
from pyfn.errors import ProblemLog
from pyfn.formats.base import token_span
from pyfn.model import AnnotationSet, Token, tokens
from pyfn.scoring.pairing import Doc, pair, read_file
from pyfn.scoring.signature import file_tag


@dataclass(frozen=True)
class Source:
    """Where the re-implemented evaluation is published."""

    repo: str
    commit: str
    file: str


@dataclass(frozen=True)
class Counts:
    """True positives, false positives and false negatives (points: weighted where the protocol weighs)."""

    tp: float
    fp: float
    fn: float

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def prf(self) -> tuple[float, float, float]:
        """Precision, recall and F1 as Open-SESAME's ``calc_f`` computes them (0 where undefined)."""
        tp, fp, fn = self.tp, self.fp, self.fn
        p = 0.0 if tp == 0 and fp == 0 else tp / (tp + fp)
        r = 0.0 if tp == 0 and fn == 0 else tp / (tp + fn)
        f = 0.0 if p == 0 and r == 0 else 2.0 * p * r / (p + r)
        return p, r, f


ZERO = Counts(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Measure:
    """One number a protocol reports: its counts and P / R / F1 (computed as the peer computes them)."""

    name: str
    counts: Counts
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict:
        return {"tp": self.counts.tp, "fp": self.counts.fp, "fn": self.counts.fn,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass(frozen=True)
class Card:
    """What a protocol's score means: how to read it, where it comes from, what it left out."""

    protocol: str
    source: Source | None
    point: str
    matched: str
    span_match: str
    weights: str
    skips: str
    skipped: Mapping[str, int]
    signature: str

    def as_dict(self) -> dict:
        return {
            "protocol": self.protocol,
            "source": vars(self.source) if self.source else None,
            "point": self.point, "matched": self.matched, "span_match": self.span_match, "weights": self.weights,
            "skips": self.skips, "skipped": dict(sorted(self.skipped.items())), "signature": self.signature,
        }

    def lines(self) -> list[str]:
        src = f"{self.source.repo}@{self.source.commit[:10]} {self.source.file}" if self.source else "pyfn"
        skipped = ", ".join(f"{k} {v:,}" for k, v in sorted(self.skipped.items()) if v) or "nothing"
        return [
            f"protocol {self.protocol}: {src}",
            f"  a point: {self.point}",
            f"  matched: {self.matched}; span match: {self.span_match}; weights: {self.weights}",
            f"  not scored: {self.skips}",
            f"  skipped here: {skipped}",
            f"  {self.signature}",
        ]


@dataclass(frozen=True)
class Result:
    """A protocol's measures (``headline`` first), its card."""

    measures: tuple[Measure, ...]
    headline: str
    card: Card

    def measure(self, name: str | None = None) -> Measure:
        wanted = name or self.headline
        return next(m for m in self.measures if m.name == wanted)

    def as_dict(self) -> dict:
        return {"protocol": self.card.protocol, "headline": self.headline,
                "measures": {m.name: m.as_dict() for m in self.measures}, "card": self.card.as_dict()}


def signature(protocol: str, gold: Path, lexicon: str | None) -> str:
    """``PROTOCOL|gold:HASH[|lex:SOURCE]|v:VERSION``."""
    lex = f"|lex:{lexicon}" if lexicon else ""
    return f"{protocol}|gold:{file_tag(gold)}{lex}|v:{__version__}"


# ------------------------------------------------------------------ reading as tokens

TokSpan = tuple[int, int]
"""First and last token index (inclusive)."""


@dataclass(frozen=True)
class TokenSet:
    """An annotation set as token formats see it."""

    aset: AnnotationSet
    target: tuple[int, ...]
    """Sorted token indices touched by the Target labels."""
    target_pieces: tuple[TokSpan, ...]
    """Each Target label's token range, in label order."""
    fes: tuple[tuple[str, int, int], ...]
    """Rank-1 overt FE labels as ``(name, first token, last token)``, in label order."""
    fe_chars: tuple[tuple[str, int, int], ...]
    """The same labels with their character offsets (end inclusive)."""


def token_set(aset: AnnotationSet, toks: Sequence[Token]) -> TokenSet:
    pieces = tuple(token_span(toks, lb.start, lb.end)[:2]  # type: ignore[arg-type]
                   for lb in aset.layer_labels("Target") if lb.is_overt)
    target = tuple(sorted({i for a, b in pieces for i in range(a, b + 1)}))
    fe_labels = [lb for rank, lb in aset.overt_fes if rank == 1]
    fes = tuple((lb.name, *token_span(toks, lb.start, lb.end)[:2]) for lb in fe_labels)  # type: ignore[arg-type]
    chars = tuple((lb.name, lb.start, lb.end) for lb in fe_labels)
    return TokenSet(aset, target, pieces, fes, chars)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SentencePair:
    """A gold sentence, its tokens, its sets and those of the predicted sentence paired with it."""

    index: int
    text: str
    tokens: tuple[Token, ...]
    gold: tuple[TokenSet, ...]
    pred: tuple[TokenSet, ...]


@dataclass
class Paired:
    """Every gold sentence with its prediction (none when missing or of another text), the predicted
    sentences outside gold (``outside``: no gold set; a protocol that counts a predicted set off every gold
    target as a false positive counts theirs), and what was left out."""

    sentences: list[SentencePair]
    skipped: Counter = field(default_factory=Counter)
    outside: list[SentencePair] = field(default_factory=list)


def _doc(path: Path) -> Doc:
    return read_file(path, ProblemLog())


def read_pair(gold: Path, pred: Path) -> Paired:
    """Gold and predicted SemEval XML, sentences paired as ``pyfn score`` pairs them.

    A gold sentence without a prediction of its ID and text gets no predicted
    set (counted ``gold_sentence_without_prediction``); predicted sentences
    outside gold are counted ``pred_sentence_not_in_gold`` and kept in ``outside``.
    """
    gold_doc, pred_doc = _doc(gold), _doc(pred)
    pairing = pair(gold_doc.sentences, pred_doc.sentences)
    covered = pairing.covered
    out = Paired([])
    for index, (_, text) in enumerate(gold_doc.sentences):
        toks = tokens(text)
        gold_sets = tuple(token_set(a, toks) for a in gold_doc.sets[index])
        position = pairing.pred_of[index]
        if index in covered and position is not None:
            pred_sets = tuple(token_set(a, toks) for a in pred_doc.sets[position])
        else:
            pred_sets = ()
            out.skipped["gold_sentence_without_prediction"] += 1
        out.sentences.append(SentencePair(index, text, toks, gold_sets, pred_sets))
    for position in pairing.not_in_gold:
        text = pred_doc.sentences[position][1]
        toks = tokens(text)
        out.outside.append(SentencePair(-1, text, toks, (), tuple(token_set(a, toks) for a in pred_doc.sets[position])))
    if pairing.not_in_gold:
        out.skipped["pred_sentence_not_in_gold"] += len(pairing.not_in_gold)
    return out


def by_target(pair_: SentencePair, skipped: Counter) -> Iterator[tuple[TokenSet, TokenSet | None]]:
    """Each gold set with a predicted set on the same target tokens (None: no such set).

    The k-th gold set on a target (file order) takes the k-th predicted set on
    it, so two gold sets sharing a target each have their own prediction.
    Predicted sets left over are counted in ``skipped``: on a target no gold
    set has (``pred_target_not_in_gold``) or beyond the gold sets of their
    target (``pred_target_repeated``).
    """
    queues: dict[tuple[int, ...], list[TokenSet]] = {}
    for p in pair_.pred:
        queues.setdefault(p.target, []).append(p)
    taken: Counter = Counter()
    for g in pair_.gold:
        queue = queues.get(g.target, [])
        k = taken[g.target]
        taken[g.target] += 1
        yield g, queue[k] if k < len(queue) else None
    for target, queue in queues.items():
        if target not in taken:
            skipped["pred_target_not_in_gold"] += len(queue)
        elif len(queue) > taken[target]:
            skipped["pred_target_repeated"] += len(queue) - taken[target]


def overlapping(fes: Sequence[tuple[str, int, int]]) -> bool:
    """Whether two labels share a token (BIO(S) cannot hold them)."""
    seen: set[int] = set()
    for _, a, b in fes:
        span = set(range(a, b + 1))
        if span & seen:
            return True
        seen |= span
    return False
