"""Frame-identification accuracy with and without the lexical filter, as COFFTEA counts it.

COFFTEA (An et al. 2023, "Coarse-to-Fine Dual Encoders are Better Frame
Identification Learners") reports frame-identification accuracy twice: with
the lexical filter, the model's best frame among the candidate frames of the
target's LU (``test_lexical_filter.csv``: the frames of ``lu2frame[lu]``), and
without it, its best frame among all frames of the release
(``test_wo_lexical_filter.csv``). Either way ``evaluate``/``test`` in
``code/main.py`` take ``np.argmax`` over the target's frame scores and count
``simple_accuracy`` = the mean of argmax == gold over the examples. An example
is a gold target of Open-SESAME's CoNLL test file, the gold LU given: a
sentence without a frame has no example, so it is never scored
(swabhs/open-sesame issue #57), and no target outside gold is predicted.

The filter acts at decoding, so it can be applied only to per-frame scores
(:mod:`pyfn.scoring.frame_scores`): a single predicted frame cannot be
re-decoded, and these protocols refuse to run without scores. Three protocols:

- ``lexfilter:train``: the best frame among the gold LU's frames in the
  train-only lexicon (``lu_frames.tsv``);
- ``lexfilter:full``: among its frames in the release lexicon
  (``release_lu_frames.tsv``, every LU of the release's frame files, as
  COFFTEA's ``lu2frame`` of ``lu/*.xml`` and the frame files' ``lexUnit``);
- ``lexfilter:none``: among every scored frame (COFFTEA: every frame of the release).

Where pyfn must decide what COFFTEA's data never holds (its builder asserts
every test LU is in its release lexicon and the gold frame among its frames):

- an LU the lexicon lacks (only the train lexicon lacks test LUs) is decided
  among every scored frame, as SimpleFrameId and pyfn's baselines decode
  (counted ``note:lu_not_in_lexicon``);
- a gold frame outside its LU's candidates can never be right under the
  filter (counted ``note:gold_frame_not_in_candidates``);
- a frame without a score is never chosen; when no candidate has a score, a
  single candidate is the answer (argmax over one choice), several give no
  answer, a wrong one (``note:no_scored_candidate``);
- ties go to the frame first in code-point order (``np.argmax`` takes the first
  in COFFTEA's candidate order, which is ``os.listdir`` order of ``lu/``: not
  reproducible).

Predictions pair with gold targets as in every token protocol
(:func:`~pyfn.scoring.protocols.base.by_target`); a gold target without a
predicted set is wrong (``note:gold_target_without_prediction``). A point is a
gold target: ``tp`` = right, ``fp`` = ``fn`` = wrong, so P = R = F1 = accuracy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.scoring import frame_scores
from pyfn.scoring.protocols.base import Card, Counts, Measure, Result, Source, by_target, read_pair, signature

SOURCE = Source("kkk-an/COFFTEA", "68b338e6f6e644f70fb528938029a30b9b646d23",
                "code/main.py (evaluate, test, simple_accuracy); process_data/in-candidate.py (candidates)")

CANDIDATES = {
    "train": "the gold LU's frames in the train-only lexicon (lu_frames.tsv); an LU it lacks: every scored frame",
    "full": "the gold LU's frames in the release lexicon (release_lu_frames.tsv); an LU it lacks: every scored frame",
    "none": "every scored frame (no lexical filter)",
}
"""What each ``lexfilter:NAME`` takes the best frame among."""

Lexicon = Mapping[str, frozenset[str]]


def best(scores: Mapping[str, float], among: Iterable[str] | None = None) -> str | None:
    """The highest-scoring frame of ``among`` (every scored frame when None) that has a score; ties go to
    the frame first in code-point order; None when none of them has a score."""
    names = sorted(scores) if among is None else sorted(f for f in set(among) if f in scores)
    chosen: str | None = None
    for name in names:
        if chosen is None or scores[name] > scores[chosen]:
            chosen = name
    return chosen


def decide(scores: Mapping[str, float], candidates: frozenset[str] | None, notes: Counter) -> str | None:
    """The frame of one target: the best of ``candidates`` (None: of every scored frame)."""
    if candidates is None:
        return best(scores)
    chosen = best(scores, candidates)
    if chosen is None:
        if len(candidates) == 1:
            return next(iter(candidates))
        notes["note:no_scored_candidate"] += 1
    return chosen


def score(gold: Path, pred: Path, *, scores: Path, filter_name: str, lexicon: Lexicon | None = None,
          lexicon_tag: str | None = None) -> Result:
    """Accuracy of ``pred``'s targets re-decoded from ``scores`` under ``lexfilter:filter_name``.

    ``lexicon`` (LU name -> frames) is required for ``train`` and ``full``; ``lexicon_tag`` names it in
    the signature. A predicted set paired with a gold target but without a line in ``scores`` is an error.
    """
    if filter_name not in CANDIDATES:
        raise PyfnError(f"unknown lexical filter {filter_name!r} (known: {', '.join(CANDIDATES)})")
    if (filter_name == "none") != (lexicon is None):
        raise PyfnError(f"lexfilter:{filter_name} " + ("takes no lexicon" if lexicon is not None
                                                        else "needs a lexicon"))
    table = frame_scores.read(scores)
    paired = read_pair(gold, pred)
    skipped: Counter = Counter(paired.skipped)
    used: Counter = Counter()
    correct = total = 0
    for pair_ in paired.sentences:
        if not pair_.gold:
            skipped["sentence_without_gold_frame"] += 1
        rows: dict[int, dict[str, float]] = {}
        seen: Counter = Counter()
        for p in pair_.pred:
            key = (p.aset.sentence.id, tuple(sorted(p.aset.target)))
            k = seen[key]
            seen[key] += 1
            found = table.get(key, [])
            if k < len(found):
                rows[id(p)] = found[k]
                used[key] += 1
        for g, p in by_target(pair_, skipped):
            total += 1
            if not g.aset.lu_name:
                raise PyfnError(f"{gold}: annotation set {g.aset.id} (sentence {g.aset.sentence.id}) has no LU "
                                "name: a lexical filter needs the gold LU")
            if p is None:
                skipped["note:gold_target_without_prediction"] += 1
                continue
            if id(p) not in rows:
                raise PyfnError(f"{scores}: no scores for predicted set {p.aset.id} of sentence "
                                f"{p.aset.sentence.id}, target {[list(s) for s in p.aset.target]} ({pred})")
            candidates = None
            if lexicon is not None:
                candidates = lexicon.get(g.aset.lu_name)
                if candidates is None:
                    skipped["note:lu_not_in_lexicon"] += 1
                elif g.aset.frame_name not in candidates:
                    skipped["note:gold_frame_not_in_candidates"] += 1
            correct += decide(rows[id(p)], candidates, skipped) == g.aset.frame_name
    unused = sum(len(v) for v in table.values()) - sum(used.values())
    if unused:
        skipped["score_line_without_paired_set"] = unused
    wrong = total - correct
    accuracy = correct / total if total else 0.0
    card = Card(
        protocol=f"lexfilter:{filter_name}",
        source=SOURCE,
        point="a gold target (its gold LU given); sentences without a gold frame have none (open-sesame #57)",
        matched=f"the best-scoring frame among {CANDIDATES[filter_name]} == the gold frame",
        span_match="target tokens (the predicted set on the gold target's tokens)",
        weights="1; tp = right, fp = fn = wrong: P = R = F1 = accuracy",
        skips="sentences without a gold frame; predicted sets off gold targets or in sentences outside gold",
        skipped=dict(skipped),
        signature=signature(f"lexfilter:{filter_name}", gold, lexicon_tag),
    )
    measure = Measure("accuracy", Counts(float(correct), float(wrong), float(wrong)), accuracy, accuracy, accuracy)
    return Result((measure,), "accuracy", card)
