"""Frame-identification accuracy as SimpleFrameId reports it (Hartmann et al. 2017).

Accuracy is taken over *gold targets*:

- **total**: every gold target;
- **ambiguous**: gold targets whose LU has more than one frame in the train lexicon;
- **no-lex**: gold targets whose LU is absent from the train lexicon.

LUs are keyed by the gold annotation set's LU name exactly as FrameNet spells
it (``give.v``, ``take off.v``), which is SimpleFrameId's ``lemma.pos`` key and
the first column of ``lu_frames.tsv`` (``pyfn generate``). The lexicon must be
the train-only one (FORMATS.md §6.3). Prediction LU names are never used.

Alignment: a prediction answers a gold target when both have the same sentence
string (:func:`~pyfn.formats.base.sentence_string`) and the same sorted target
character spans. Several gold sets may share such a key (a sentence repeated in
the corpus, or one target annotated twice); the predictions of a key are then
matched to its gold sets as multisets of frame names, each prediction used at
most once. A gold target without a matching prediction is wrong. Predictions
beyond the number of gold sets of their key are duplicates: recorded in the
:class:`~pyfn.errors.ProblemLog` and ignored (the first ones in input order are
kept), so predicting many frames for one target earns nothing. Predictions at a
key with no gold set (extra targets, or a sentence whose text differs from
gold) are counted in ``unaligned_predictions``.

Files (:func:`frame_id_files`) pair sentences first, by SemEval sentence ID
checked by text, as the SemEval scorer does (:mod:`pyfn.scoring.pairing`): the
sets of a predicted sentence that pairs with no gold sentence are unaligned
predictions, and every target of a gold sentence without a predicted sentence
is wrong. The score's ``pairing`` tells which sentences did not pair.

Unlike SimpleFrameId's ``Score(skip_unknown_frames=True)``, gold targets whose
frame never occurs in the lexicon are counted unless ``skip_unseen_frames``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats.base import sentence_string
from pyfn.model import AnnotationSet, Span
from pyfn.scoring.pairing import Doc, Pairing, pair, read_file, sentence_warnings
from pyfn.scoring.stats import wilson_interval

Lexicon = Mapping[str, frozenset[str]]
"""LU name -> frames it evokes in train."""
Key = tuple[str, tuple[Span, ...]]
"""Alignment key: sentence string and sorted target spans."""


def read_lu_frames(path: Path) -> dict[str, frozenset[str]]:
    """Read ``lu_frames.tsv`` (``LU<TAB>Frame[<TAB>Frame...]``); a malformed line is an error naming it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PyfnError(f"{path}: cannot read the LU lexicon: {exc}") from None
    out: dict[str, frozenset[str]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line:
            continue
        lu, *frames = line.split("\t")
        if not lu or not frames or not all(frames):
            raise PyfnError(f"{path}:{number}: expected LU<TAB>Frame[<TAB>Frame...], got {line!r}")
        if lu in out:
            raise PyfnError(f"{path}:{number}: LU {lu!r} is listed twice")
        out[lu] = frozenset(frames)
    return out


@dataclass(frozen=True)
class Accuracy:
    """``correct`` out of ``n`` with a Wilson interval (``(0, 1)`` when ``n == 0``)."""

    correct: int
    n: int
    low: float
    high: float

    @property
    def accuracy(self) -> float:
        """``correct / n``; 0.0 when ``n == 0`` (as SimpleFrameId's ``acc``)."""
        return self.correct / self.n if self.n else 0.0

    @classmethod
    def of(cls, correct: int, n: int, confidence: float) -> Accuracy:
        """The accuracy with its Wilson interval at ``confidence``."""
        return cls(correct, n, *wilson_interval(correct, n, confidence))


@dataclass(frozen=True)
class Decision:
    """One gold target: its LU, gold frame, aligned predicted frame (``None``: none) and subsets."""

    sentence: str
    target: tuple[Span, ...]
    lu: str
    gold_frame: str
    pred_frame: str | None
    ambiguous: bool
    no_lex: bool

    @property
    def correct(self) -> bool:
        """True when the predicted frame is the gold frame."""
        return self.pred_frame == self.gold_frame


@dataclass(frozen=True)
class FrameIdScore:
    """Frame-identification accuracy on all, ambiguous and no-lex gold targets."""

    total: Accuracy
    ambiguous: Accuracy
    no_lex: Accuracy
    decisions: tuple[Decision, ...]
    unaligned_predictions: int
    duplicate_predictions: int
    skipped_unseen_frames: int
    confidence: float
    pairing: Pairing | None = None
    """How the sentences of the two files paired (:func:`frame_id_files`; None for sets in memory)."""

    @property
    def correct_vector(self) -> tuple[bool, ...]:
        """Correct/incorrect per gold target, in gold order: the paired vector for McNemar."""
        return tuple(d.correct for d in self.decisions)

    def warnings(self) -> list[str]:
        """Gold sentences without a prediction and predicted sentences outside gold, in words."""
        if self.pairing is None:
            return []
        pairing = self.pairing
        return sentence_warnings(
            len(pairing.gold_keys), [pairing.gold_keys[g] for g in pairing.missing],
            [pairing.gold_keys[g] for g in sorted(pairing.text_differs)],
            [pairing.pred_keys[p] for p in pairing.not_in_gold], "every target of theirs counts as wrong",
            "annotation sets count as unaligned predictions")


def _key(aset: AnnotationSet) -> Key:
    return sentence_string(aset.sentence.text), aset.target


def frame_id_accuracy(
    gold: Iterable[AnnotationSet],
    pred: Iterable[AnnotationSet],
    lexicon: Lexicon,
    *,
    log: ProblemLog | None = None,
    where: str = "predictions",
    skip_unseen_frames: bool = False,
    confidence: float = 0.95,
) -> FrameIdScore:
    """Score predicted frames against gold targets (see the module docstring for the alignment).

    ``lexicon`` is the train LU -> frames map (:func:`read_lu_frames` or
    :func:`pyfn.train_lexicon.lu_frames`); ``where`` names the prediction source in
    messages of duplicates logged to ``log`` (a strict log raises). Decisions
    follow gold input order. A gold set without an LU name is an error.
    """
    log = log if log is not None else ProblemLog()
    gold_sets = list(gold)
    gold_by_key: dict[Key, list[int]] = {}
    for index, aset in enumerate(gold_sets):
        if not aset.lu_name:
            raise PyfnError(
                f"gold annotation set {aset.id} (sentence {aset.sentence.id}) has no LU name: "
                "cannot tell ambiguous or no-lex predicates"
            )
        gold_by_key.setdefault(_key(aset), []).append(index)
    pred_by_key: dict[Key, list[str]] = {}
    unaligned = duplicates = 0
    for aset in pred:
        key = _key(aset)
        if key not in gold_by_key:
            unaligned += 1
            continue
        frames = pred_by_key.setdefault(key, [])
        if len(frames) >= len(gold_by_key[key]):
            duplicates += 1
            log.add(
                "duplicate_prediction",
                where,
                f"{where}: annotation set {aset.id} (sentence {aset.sentence.id}) repeats target "
                f"{list(key[1])} of {key[0][:60]!r} beyond its gold sets; ignored",
            )
            continue
        frames.append(aset.frame_name)

    answers: dict[int, str | None] = {}
    for key, indices in gold_by_key.items():
        answers.update(zip(indices, _assign([gold_sets[i].frame_name for i in indices], pred_by_key.get(key, []))))
    lexicon_frames = {f for frames in lexicon.values() for f in frames}
    decisions: list[Decision] = []
    skipped = 0
    for index, aset in enumerate(gold_sets):
        if skip_unseen_frames and aset.frame_name not in lexicon_frames:
            skipped += 1
            continue
        known = lexicon.get(aset.lu_name)
        decisions.append(
            Decision(
                sentence=sentence_string(aset.sentence.text),
                target=aset.target,
                lu=aset.lu_name,
                gold_frame=aset.frame_name,
                pred_frame=answers[index],
                ambiguous=known is not None and len(known) > 1,
                no_lex=known is None,
            )
        )

    def acc(subset: list[Decision]) -> Accuracy:
        return Accuracy.of(sum(d.correct for d in subset), len(subset), confidence)

    return FrameIdScore(
        total=acc(decisions),
        ambiguous=acc([d for d in decisions if d.ambiguous]),
        no_lex=acc([d for d in decisions if d.no_lex]),
        decisions=tuple(decisions),
        unaligned_predictions=unaligned,
        duplicate_predictions=duplicates,
        skipped_unseen_frames=skipped,
        confidence=confidence,
    )


def frame_id_files(
    gold: Path | Doc, pred: Path, lexicon: Lexicon, *, log: ProblemLog | None = None,
    skip_unseen_frames: bool = False, confidence: float = 0.95,
) -> FrameIdScore:
    """Score a predicted SemEval XML file against a gold one, sentences paired by ID and text first.

    ``gold`` is a path or the :class:`~pyfn.scoring.pairing.Doc` read from one
    (to score several predictions against one gold file). Malformed sentences
    and sets of either file go to ``log`` (a strict log raises), as do
    duplicate predictions. Decisions follow the gold file's order.
    """
    log = log if log is not None else ProblemLog()
    gold_doc = gold if isinstance(gold, Doc) else read_file(gold, log)
    pred_doc = read_file(pred, log)
    pairing = pair(gold_doc.sentences, pred_doc.sentences)
    paired = {p for g in pairing.covered if (p := pairing.pred_of[g]) is not None}
    aligned = [aset for p in sorted(paired) for aset in pred_doc.sets[p]]
    outside = sum(len(sets) for p, sets in enumerate(pred_doc.sets) if p not in paired)
    result = frame_id_accuracy([aset for sets in gold_doc.sets for aset in sets], aligned, lexicon, log=log,
                               where=str(pred), skip_unseen_frames=skip_unseen_frames, confidence=confidence)
    return replace(result, unaligned_predictions=result.unaligned_predictions + outside, pairing=pairing)


def _assign(gold_frames: list[str], pred_frames: list[str]) -> list[str | None]:
    """Predicted frame per gold frame of one key: exact matches first, then leftovers in input order."""
    left = Counter(pred_frames)
    chosen: list[str | None] = []
    for frame in gold_frames:
        if left[frame] > 0:
            left[frame] -= 1
            chosen.append(frame)
        else:
            chosen.append(None)
    leftovers: list[str] = []
    for frame in pred_frames:
        if left[frame] > 0:
            left[frame] -= 1
            leftovers.append(frame)
    spare = iter(leftovers)
    return [frame if frame is not None else next(spare, None) for frame in chosen]
