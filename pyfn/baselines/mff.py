"""Frame identification baseline: the most frequent frame of each lexical unit in train (``frameid-mff``).

Frames are counted on the annotation sets of ``train.jsonl`` only (never dev or test), one count per
set, keyed by the LU name exactly as FrameNet spells it (``give.v``, ``take off.v``). For a set to
label, the predicted frame is decided by the first rule that applies to its LU name:

1. ``lu``: the LU occurs in train. If train gives it one frame, that frame (SimpleFrameId: an
   unambiguous predicate gets its single frame); if several, the one with the most train sets.
   ``release`` (only with ``--candidates release``, the release lexicon ``release_lu_frames.tsv``
   of ``pyfn generate --release-lexicon``; LU unseen in train but listed there): if the release
   gives it one frame, that frame; if several, the one of those frames with the most train sets
   (counted over all LUs; a frame unseen in train counts 0).
2. ``lemma`` (back-off 1, LU unseen): the frames of every train LU with the same lemma (the LU name
   before its last ``.``: ``bank`` for ``bank.n``, whatever the POS), their counts pooled.
3. ``pos`` (back-off 2, lemma unseen): the frames of every train LU with the same POS suffix (the
   name after its last ``.``: ``v``, ``n``, ``a``, ``adv``, ``prep``, ...), counts pooled.
4. ``global`` (back-off 3): the most frequent frame of train.

Every tie (equal counts) goes to the frame name first in code-point order (``min``), so predictions
never depend on input order or hashing. The rules and how often each fired are recorded in the
output manifest (``release`` only when it is in use, so that manifests written without it do not
change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyfn.baselines.data import split_lu
from pyfn.errors import PyfnError
from pyfn.model import AnnotationSet

RULES = {
    "lu": "LU seen in train: its only train frame, or its most frequent train frame",
    "lemma": "LU unseen: most frequent frame of the train LUs with the same lemma (name before the last '.'), "
             "counts pooled",
    "pos": "lemma unseen: most frequent frame of the train LUs with the same POS suffix (name after the last '.'), "
           "counts pooled",
    "global": "POS unseen: the most frequent frame of train",
    "ties": "equal counts: the frame name first in code-point order",
}
RELEASE_RULE = {
    "release": "LU unseen in train, listed in the release lexicon (release_lu_frames.tsv): its only release frame, "
               "or the one of its release frames with the most train sets",
}
"""The rule added after ``lu`` by ``--candidates release``."""


def best(counts: Mapping[str, int]) -> str:
    """The most frequent frame of ``counts``; ties to the frame name first in code-point order."""
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


@dataclass(frozen=True)
class MostFrequentFrame:
    """Frame counts of train by LU, lemma and POS, and the decision rules of the module docstring."""

    by_lu: dict[str, dict[str, int]]
    by_lemma: dict[str, dict[str, int]]
    by_pos: dict[str, dict[str, int]]
    overall: dict[str, int]

    @classmethod
    def fit(cls, train: Iterable[AnnotationSet]) -> MostFrequentFrame:
        """Count the frames of the train sets by LU, lemma and POS."""
        by_lu: dict[str, Counter] = {}
        for aset in train:
            by_lu.setdefault(aset.lu_name, Counter())[aset.frame_name] += 1
        if not by_lu:
            raise PyfnError("frameid-mff: no annotation set to train on")
        by_lemma: dict[str, Counter] = {}
        by_pos: dict[str, Counter] = {}
        overall: Counter = Counter()
        for lu in sorted(by_lu):
            lemma, pos = split_lu(lu)
            by_lemma.setdefault(lemma, Counter()).update(by_lu[lu])
            by_pos.setdefault(pos, Counter()).update(by_lu[lu])
            overall.update(by_lu[lu])

        def frozen(table: dict[str, Counter]) -> dict[str, dict[str, int]]:
            return {key: dict(sorted(table[key].items())) for key in sorted(table)}

        return cls(frozen(by_lu), frozen(by_lemma), frozen(by_pos), dict(sorted(overall.items())))

    def predict(self, lu: str, candidates: Mapping[str, frozenset[str]] | None = None) -> tuple[str, str]:
        """``(frame, rule)`` for an LU name; ``rule`` is a key of :data:`RULES` (or :data:`RELEASE_RULE`).

        ``candidates`` (LU name -> frames, the release lexicon) adds the ``release`` rule after ``lu``.
        """
        counts = self.by_lu.get(lu)
        if counts is not None:
            return best(counts), "lu"
        if candidates is not None and candidates.get(lu):
            return self.most_frequent_of(candidates[lu]), "release"
        lemma, pos = split_lu(lu)
        if lemma in self.by_lemma:
            return best(self.by_lemma[lemma]), "lemma"
        if pos in self.by_pos:
            return best(self.by_pos[pos]), "pos"
        return best(self.overall), "global"

    def most_frequent_of(self, frames: Iterable[str]) -> str:
        """The frame of ``frames`` with the most train sets (unseen in train: 0); ties in code-point order."""
        return best({frame: self.overall.get(frame, 0) for frame in frames})

    def record(self, release: bool = False) -> dict:
        """What the manifest says about the model: rules (with ``release``, the release rule too) and
        training counts."""
        rules = RULES if not release else {"lu": RULES["lu"], **RELEASE_RULE, **RULES}
        return {
            "rules": rules,
            "training": {
                "annotation_sets": sum(self.overall.values()),
                "lus": len(self.by_lu),
                "ambiguous_lus": sum(1 for counts in self.by_lu.values() if len(counts) > 1),
                "lemmas": len(self.by_lemma),
                "pos_suffixes": len(self.by_pos),
                "frames": len(self.overall),
                "most_frequent_frame": best(self.overall),
            },
        }
