"""Per-frame scores of predicted targets: ``{split}.frame_scores.jsonl``, read by the ``lexfilter:*`` protocols.

A frame identifier that scores every frame it knows for a target can be scored
with and without a lexical filter only if those scores are kept: the filter is
applied at decoding, by taking the best frame among the LU's candidates
instead of among all frames. One JSON object per line, one line per predicted
annotation set::

    {"sentence": 12, "target": [[31, 36]], "scores": {"Commerce_buy": 1.25, "Getting": -0.5}}

- ``sentence``: the ``ID`` of the set's ``sentence`` in the predicted SemEval XML;
- ``target``: the set's Target label character spans ``[start, end]`` (end
  inclusive, as in SemEval XML), sorted;
- ``scores``: frame name -> a finite number, higher is better (any scale: only
  the order among one line's frames is used). A frame without a score cannot be
  chosen.

The k-th line of a ``(sentence, target)`` belongs to the k-th predicted set on
that target in the predicted file (two sets on one target are rare: one target
annotated for two LUs). pyfn writes lines in the predicted file's order, the
top-level keys in the order above, the frames in code-point order, numbers as
Python's shortest round-trip ``repr``: the same scores give the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.fileio import write_lines
from pyfn.formats.base import SentenceTable, sentence_string
from pyfn.model import AnnotationSet, Span
from pyfn.splits.hashing import order_key

SUFFIX = "frame_scores.jsonl"
"""``{split}.frame_scores.jsonl``, beside ``{split}.predicted.xml``."""

Key = tuple[int, tuple[Span, ...]]
"""``(sentence ID, sorted target spans)``."""
Scores = dict[str, float]
"""Frame name -> score."""


def line(sentence: int, target: Sequence[Span], scores: Mapping[str, float]) -> str:
    """One line of the file (see the module docstring for the form)."""
    bad = [frame for frame, value in scores.items() if not math.isfinite(value)]
    if bad:
        raise PyfnError(f"frame scores: frame {bad[0]!r} of sentence {sentence} has no finite score")
    body = ", ".join(f"{json.dumps(frame)}: {float(scores[frame])!r}" for frame in sorted(scores))
    spans = json.dumps([list(s) for s in sorted(target)])
    return f'{{"sentence": {sentence}, "target": {spans}, "scores": {{{body}}}}}'


def write(path: Path, preds: Sequence[AnnotationSet], scores: Sequence[Mapping[str, float]],
          gold: Sequence[AnnotationSet]) -> str:
    """Write the scores of ``preds`` (``scores[i]`` is that of ``preds[i]``) for the predicted file that
    :func:`pyfn.baselines.data.write_predictions` writes with ``gold``'s sentence list; returns its sha256."""
    if len(preds) != len(scores):
        raise PyfnError(f"{path}: {len(preds)} predicted sets but {len(scores)} score rows")
    numbers = {s: i for i, s in enumerate(SentenceTable.of(gold).strings)}
    order = sorted(range(len(preds)), key=lambda i: (numbers[sentence_string(preds[i].sentence.text)],
                                                     order_key(preds[i]), preds[i].id))
    return write_lines(Path(path), (line(numbers[sentence_string(preds[i].sentence.text)], preds[i].target,
                                         scores[i]) for i in order))


def _fail(path: Path, number: int, what: str) -> PyfnError:
    return PyfnError(f"{path}:{number}: {what}")


def _span(value: object) -> Span | None:
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                            for v in value) and 0 <= value[0] <= value[1]):
        return value[0], value[1]
    return None


def read(path: Path) -> dict[Key, list[Scores]]:
    """``(sentence ID, target) -> [scores of the 1st set on it, of the 2nd...]``; a malformed line is an error
    naming the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PyfnError(f"{path}: cannot read the frame scores: {exc}") from None
    out: dict[Key, list[Scores]] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _fail(path, number, f"not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or set(obj) != {"sentence", "target", "scores"}:
            raise _fail(path, number, 'expected an object with exactly "sentence", "target" and "scores"')
        sentence, target, scores = obj["sentence"], obj["target"], obj["scores"]
        if not isinstance(sentence, int) or isinstance(sentence, bool):
            raise _fail(path, number, f"sentence must be the sentence's integer ID, got {sentence!r}")
        spans = [_span(s) for s in target] if isinstance(target, list) else []
        if not spans or any(s is None for s in spans):
            raise _fail(path, number, f"target must be a non-empty list of [start, end] spans, got {target!r}")
        if not isinstance(scores, dict) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in scores.values()):
            raise _fail(path, number, "scores must map frame names to finite numbers")
        key = (sentence, tuple(sorted(s for s in spans if s is not None)))
        out.setdefault(key, []).append({str(k): float(v) for k, v in scores.items()})
    if not out:
        raise PyfnError(f"{path}: no frame scores")
    return out

