"""Frame identification baseline: a linear classifier over sparse lexical and context features
(``frameid-logreg``), trained on CPU with scikit-learn.

Model: ``SGDClassifier(loss="log_loss")`` (logistic regression, one-vs-rest, L2 penalty, averaged
SGD; :data:`HYPERPARAMETERS`) over binary features in a ``DictVectorizer`` (feature names sorted, so
the feature space does not depend on input order), keeping the features of at least
:data:`MIN_FEATURE_COUNT` train sets (fewer weights: training time and memory shrink several-fold).
Training uses the sets of ``train.jsonl`` only, every frame of train a class. Features of one set
(all strings, value 1):

- the LU name, its lemma part and its POS suffix;
- every target token: lowercased word, lemma (from the parse; the lowercased word without one), POS
  tag (parse only); the lowercased target words joined, for multiword targets;
- the lowercased words two before and two after the target (position-specific), and their lemmas
  with a parse;
- with a dependency parse (HEAD filled), for the target's head token (the target token whose head
  lies outside the target): its relation, the lemma of its head and the relation with that lemma,
  and the relation, and relation plus lemma, of each of its dependents outside the target;
- the conjunction of the LU name with each context and dependency feature, so that an ambiguous LU
  can learn its own cues.

Decoding (SimpleFrameId's lexicon restriction): an LU of the train-only lexicon (``lu_frames.tsv``)
with one frame gets that frame; with several, the highest-scoring of its frames; an LU absent from
the lexicon gets the highest-scoring frame of all. Ties go to the frame first in code-point order.
With ``--candidates release`` (the release lexicon ``release_lu_frames.tsv`` of ``pyfn generate
--release-lexicon``, as Open-SESAME restricts candidates), an LU listed there is decided first among
its release frames: one frame, that frame; several, the highest-scoring of those the classifier
knows (train frames); when it knows none of them, the rules above. Training does not change.

Determinism: a fixed ``random_state`` (the ``--seed``), sorted feature names and classes: two
trainings give identical predictions whatever ``PYTHONHASHSEED``. The one-vs-rest binary classifiers
are fitted in ``--jobs`` threads (scikit-learn's ``n_jobs``; its SGD releases the GIL): each class's
seed is drawn before they start, so the weights are the same for any number of threads (measured on
FN 1.5 train, 16,706 sets and 659 frames: 9.2-9.4 s with one thread, 4.8 s with two, equal weights).
Training and scoring run with one BLAS thread (:func:`_one_blas_thread`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyfn.baselines.data import Instance, children, span_head
from pyfn.errors import PyfnError

HYPERPARAMETERS: dict[str, Any] = {
    "classifier": "sklearn.linear_model.SGDClassifier",
    "loss": "log_loss",
    "penalty": "l2",
    "alpha": 1e-4,
    "max_iter": 10,
    "tol": None,
    "average": True,
    "shuffle": True,
}
"""The classifier's settings (the seed is ``random_state``), recorded in the manifest."""
CONTEXT_WINDOW = 2
"""Words on each side of the target used as features."""
MIN_FEATURE_COUNT = 3
"""A feature is kept when at least this many train sets have it."""

DECODING = {
    "known_single": "LU in the train lexicon with one frame: that frame",
    "known_ambiguous": "LU in the train lexicon with several frames: the highest-scoring of its frames",
    "unknown": "LU not in the train lexicon: the highest-scoring frame of all train frames",
    "ties": "equal scores: the frame first in code-point order",
}
RELEASE_DECODING = {
    "release_single": "LU in the release lexicon (release_lu_frames.tsv) with one frame: that frame",
    "release_ambiguous": "LU in the release lexicon with several frames: the highest-scoring of those the "
                         "classifier knows (it knows none of them: the train-lexicon rules)",
}
"""The decoding rules placed first by ``--candidates release``."""


def _sklearn() -> Any:
    try:
        import sklearn  # type: ignore[import-untyped]  # noqa: PLC0415
        from sklearn.feature_extraction import DictVectorizer  # type: ignore[import-untyped]  # noqa: PLC0415
        from sklearn.linear_model import SGDClassifier  # type: ignore[import-untyped]  # noqa: PLC0415
    except ImportError:
        raise PyfnError("frameid-logreg needs scikit-learn: pip install scikit-learn") from None
    return sklearn, DictVectorizer, SGDClassifier


def _one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs one thread. Its idle threads otherwise spin on the other
    cores: measured on FN 1.5 (2 cores), 25.1 s of CPU for 14.5 s of training and prediction, against
    13.6 s for 13.5 s with one thread, the same predictions; in a study they slow the other splits."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]  # noqa: PLC0415 - with scikit-learn

    return threadpool_limits(limits=1, user_api="blas")


def features(inst: Instance, window: int = 2) -> dict[str, int]:
    """The binary features of one instance (see the module docstring)."""
    words = [w.lower() for w in inst.words]
    parse = inst.parse
    lemmas = [(a.lemma or w).lower() for a, w in zip(parse, words, strict=True)] if parse is not None else words
    lu = inst.lu
    feats: list[str] = [f"lu={lu}", f"lemma={inst.lemma}", f"pos={inst.pos}"]
    context: list[str] = []
    for i in inst.target:
        feats.append(f"tw={words[i]}")
        feats.append(f"tl={lemmas[i]}")
        if parse is not None and parse[i].xpos:
            feats.append(f"tp={parse[i].xpos}")
    if len(inst.target) > 1:
        feats.append("tws=" + "_".join(words[i] for i in inst.target))
    first, last = inst.target[0], inst.target[-1]
    for offset in range(1, window + 1):
        for name, j in ((f"-{offset}", first - offset), (f"+{offset}", last + offset)):
            if 0 <= j < len(words):
                context.append(f"w{name}={words[j]}")
                if parse is not None:
                    context.append(f"l{name}={lemmas[j]}")
            else:
                context.append(f"w{name}=<none>")
    if parse is not None and any(a.head is not None for a in parse):
        head = span_head(parse, inst.target)
        ann = parse[head]
        context.append(f"rel={ann.deprel}")
        if ann.head:
            governor = lemmas[ann.head - 1]
            context.append(f"gov={governor}")
            context.append(f"rel_gov={ann.deprel}_{governor}")
        else:
            context.append("gov=<root>")
        inside = set(inst.target)
        for child in children(parse)[head]:
            if child not in inside:
                context.append(f"crel={parse[child].deprel}")
                context.append(f"crel_l={parse[child].deprel}_{lemmas[child]}")
    feats.extend(context)
    feats.extend(f"{lu}|{f}" for f in context)
    return dict.fromkeys(feats, 1)


@dataclass
class LogRegFrameId:
    """A trained classifier, its vectorizer and the lexicon that restricts decoding."""

    vectorizer: Any
    classifier: Any
    lexicon: Mapping[str, frozenset[str]]
    n_train: int

    @classmethod
    def fit(cls, train: Sequence[Instance], lexicon: Mapping[str, frozenset[str]], seed: int = 0,
            jobs: int = 1) -> LogRegFrameId:
        """Train on ``train`` (classes: the frames of train) with ``random_state=seed``, the binary
        classifiers in ``jobs`` threads (scikit-learn's ``n_jobs``: the same weights for any number)."""
        if not train:
            raise PyfnError("frameid-logreg: no annotation set to train on")
        _, dict_vectorizer, sgd = _sklearn()
        import numpy  # noqa: PLC0415 - a dependency of scikit-learn
        vectorizer = dict_vectorizer(sort=True)
        rows = [features(inst, CONTEXT_WINDOW) for inst in train]
        x = vectorizer.fit_transform(rows)
        counts = numpy.asarray((x > 0).sum(axis=0)).ravel()  # train sets per feature
        vectorizer.restrict(counts >= MIN_FEATURE_COUNT)
        x = _int32(vectorizer.transform(rows))
        y = [inst.aset.frame_name for inst in train]
        params = {k: v for k, v in HYPERPARAMETERS.items() if k != "classifier"}
        if len(set(y)) < 2:  # a single class: nothing to learn, every prediction is that frame
            classifier = None
        else:
            with _one_blas_thread():
                classifier = sgd(random_state=seed, n_jobs=jobs, **params).fit(x, y)
        return cls(vectorizer, classifier, dict(lexicon), len(train))

    @property
    def classes(self) -> list[str]:
        """The frames the classifier knows, in code-point order."""
        return [str(c) for c in self.classifier.classes_] if self.classifier is not None else []

    def predict(self, items: Sequence[Instance],
                candidates: Mapping[str, frozenset[str]] | None = None) -> list[tuple[str, str]]:
        """``(frame, rule)`` per instance; ``rule`` is a key of :data:`DECODING` (or of
        :data:`RELEASE_DECODING`, with ``candidates``: LU name -> frames, the release lexicon)."""
        release = candidates or {}
        out: list[tuple[str, str] | None] = [None] * len(items)
        todo: list[int] = []
        for k, inst in enumerate(items):
            known = self.lexicon.get(inst.lu)
            listed = release.get(inst.lu)
            if listed is not None and len(listed) == 1:
                out[k] = (next(iter(listed)), "release_single")
            elif listed is None and known is not None and len(known) == 1:
                out[k] = (next(iter(known)), "known_single")
            else:
                todo.append(k)
        if todo:
            if self.classifier is None:
                raise PyfnError("frameid-logreg: train has a single frame, cannot rank frames")
            classes = self.classes
            index = {c: i for i, c in enumerate(classes)}
            with _one_blas_thread():
                scores = self.classifier.decision_function(_int32(
                    self.vectorizer.transform([features(items[k], CONTEXT_WINDOW) for k in todo])))
            for row, k in zip(scores, todo, strict=True):
                out[k] = self._decide(row, release.get(items[k].lu), self.lexicon.get(items[k].lu), index)
        return [o for o in out if o is not None]

    def scores(self, items: Sequence[Instance]) -> list[dict[str, float]]:
        """The classifier's score (``decision_function``) of every frame it knows, per instance, before any
        decoding rule: what :mod:`pyfn.scoring.frame_scores` keeps for the ``lexfilter:*`` protocols."""
        if self.classifier is None:
            raise PyfnError("frameid-logreg: train has a single frame, there are no frame scores to write")
        if not items:
            return []
        classes = self.classes
        with _one_blas_thread():
            matrix = self.classifier.decision_function(_int32(
                self.vectorizer.transform([features(inst, CONTEXT_WINDOW) for inst in items])))
        return [dict(zip(classes, map(float, row), strict=True)) for row in matrix]

    def _decide(self, row: Any, listed: frozenset[str] | None, known: frozenset[str] | None,
                index: Mapping[str, int]) -> tuple[str, str]:
        """The frame of one scored instance: the best of its release frames the classifier knows, else
        the train-lexicon rules (its one frame, the best of its frames, the best of all frames)."""

        def among(frames: frozenset[str] | None) -> str | None:
            allowed = [c for c in sorted(frames) if c in index] if frames else []
            return _argmax(allowed, [row[index[c]] for c in allowed]) if allowed else None

        chosen = among(listed)
        if chosen is not None:
            return chosen, "release_ambiguous"
        if known is not None and len(known) == 1:
            return next(iter(known)), "known_single"
        chosen = among(known)
        if chosen is not None:
            return chosen, "known_ambiguous"
        return _argmax(self.classes, row), "unknown" if not known else "known_ambiguous"

    def record(self, release: bool = False) -> dict:
        """Hyper-parameters, decoding rules (with ``release``, the release rules first) and training
        counts for the manifest."""
        sklearn, _, _ = _sklearn()
        return {
            "hyperparameters": {**HYPERPARAMETERS, "context_window": CONTEXT_WINDOW,
                                "min_feature_count": MIN_FEATURE_COUNT},
            "decoding": {**RELEASE_DECODING, **DECODING} if release else DECODING,
            "sklearn_version": sklearn.__version__,
            "training": {
                "annotation_sets": self.n_train,
                "frames": len(self.classes),
                "features": len(self.vectorizer.feature_names_),
                "lexicon_lus": len(self.lexicon),
                "lexicon_ambiguous_lus": sum(1 for f in self.lexicon.values() if len(f) > 1),
            },
        }


def _int32(matrix: Any) -> Any:
    """A CSR matrix with 32-bit indices (``DictVectorizer`` may give 64-bit ones, which SGD refuses)."""
    matrix = matrix.tocsr()
    matrix.indices = matrix.indices.astype("int32")
    matrix.indptr = matrix.indptr.astype("int32")
    return matrix


def _argmax(names: Sequence[str], scores: Sequence[float]) -> str:
    """The name of the highest score; ties to the first name (``names`` are in code-point order)."""
    best = 0
    for i in range(1, len(names)):
        if scores[i] > scores[best]:
            best = i
    return names[best]
