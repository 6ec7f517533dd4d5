"""Named evaluation protocols: one scorer, each published evaluation re-implemented from its peer's code.

| protocol | peer (file) | a point | matched | weights |
|---|---|---|---|---|
| ``semeval07`` | Noahs-ARK/semafor ``fnSemScore_modified.pl`` | frame, FE | span + label, 0.8 per relation hop | frame 1, core 1, other 0.5 |
| ``sesame-labeled`` | swabhs/open-sesame ``sesame/evaluation.py`` | FE label of a gold set | name + set of token spans | core 1, other 0.5 |
| ``sesame-unlabeled`` | same | FE label's span list | sorted token spans | 1 |
| ``sesame-token`` | same | token in an FE | the token's FE name | 1 |
| ``spanfinder`` | hiaoxui/span-finder ``sftp/metrics/srl_metrics.py`` | event, argument tuple | tri-i, tri-c, arg-i, arg-c | 1 |
| ``fst-text`` | chanind/frame-semantic-transformer ``ArgumentsExtractionSample.py`` | (FE, text) pair per Target label | FE name + text string | non-core 0.5, else 1 |
| ``lexfilter:train``, ``:full``, ``:none`` | kkk-an/COFFTEA ``code/main.py`` | gold target | best-scoring frame among the LU's train / release frames / all frames | 1 |

Each module's docstring says what it skips or counts twice; each score carries
a :class:`~pyfn.scoring.protocols.base.Card`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyfn.errors import UsageError
from pyfn.scoring.protocols import fst, lexfilter, semeval07, sesame, spanfinder
from pyfn.scoring.protocols.base import Card, Counts, Measure, Result
from pyfn.scoring.scorer_lexicon import ScorerLexicon

__all__ = ["PROTOCOLS", "Card", "Counts", "FrameScores", "Measure", "Result", "rankings", "ranks", "run", "run_all"]


@dataclass(frozen=True)
class FrameScores:
    """What the ``lexfilter:*`` protocols read beside the predicted file: its per-frame scores
    (:mod:`pyfn.scoring.frame_scores`) and the two candidate lexicons (``LU<TAB>Frame...``)."""

    scores: Path
    train: Path | None = None
    """``lu_frames.tsv`` (train-only lexicon), for ``lexfilter:train``."""
    release: Path | None = None
    """``release_lu_frames.tsv`` (``pyfn generate --release-lexicon``), for ``lexfilter:full``."""


Runner = Callable[[Path, Path, ScorerLexicon | None, str, FrameScores | None], Result]


def _lexfilter(name: str) -> Runner:
    """The runner of ``lexfilter:name``: its scores and lexicon files checked, then read."""
    option = {"train": ("train", "--lu-frames lu_frames.tsv"),
              "full": ("release", "--release-lu-frames release_lu_frames.tsv")}.get(name)

    def runner(gold: Path, pred: Path, lex: ScorerLexicon | None, tag: str, fid: FrameScores | None) -> Result:
        from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415
        from pyfn.scoring.signature import file_tag  # noqa: PLC0415

        need = f" and {option[1]}" if option else ""
        if fid is None:
            raise UsageError(f"lexfilter:{name} needs --frame-scores FILE{need} (a lexical filter re-decodes "
                             "per-frame scores; a single predicted frame per target cannot be re-decoded)")
        path = getattr(fid, option[0]) if option else None
        if option and path is None:
            raise UsageError(f"lexfilter:{name} needs {option[1]}")
        return lexfilter.score(gold, pred, scores=fid.scores, filter_name=name,
                               lexicon=read_lu_frames(path) if path else None,
                               lexicon_tag=f"file:{file_tag(path)}" if path else None)

    return runner


def _needs_lexicon(runner: Callable[[Path, Path, ScorerLexicon, str], Result]) -> Runner:
    """A runner that reads the scorer lexicon (``--framenet``)."""

    def run_(gold: Path, pred: Path, lex: ScorerLexicon | None, tag: str, fid: FrameScores | None) -> Result:
        if lex is None:
            raise UsageError("this protocol needs --framenet SRC (or --frames and --relations)")
        return runner(gold, pred, lex, tag)

    return run_


PROTOCOLS: dict[str, Runner] = {
    "semeval07": _needs_lexicon(lambda g, p, lex, tag: semeval07.score(g, p, lexicon=lex, lexicon_tag=tag)),
    "sesame-labeled": _needs_lexicon(lambda g, p, lex, tag: sesame.score(g, p, inventory=lex.inventory, lexicon=tag)),
    "sesame-unlabeled": _needs_lexicon(lambda g, p, lex, tag: sesame.score(g, p, inventory=lex.inventory, lexicon=tag,
                                                                           headline="unlabeled")),
    "sesame-token": _needs_lexicon(lambda g, p, lex, tag: sesame.score(g, p, inventory=lex.inventory, lexicon=tag,
                                                                       headline="token")),
    "spanfinder": lambda g, p, lex, tag, fid: spanfinder.score(g, p),
    "fst-text": _needs_lexicon(lambda g, p, lex, tag: fst.score(g, p, inventory=lex.inventory, lexicon=tag)),
    "lexfilter:train": _lexfilter("train"),
    "lexfilter:full": _lexfilter("full"),
    "lexfilter:none": _lexfilter("none"),
}
"""Protocol name -> scorer of ``(gold, pred, scorer lexicon, its tag, frame scores)``; adding a protocol is
one entry."""

FRAME_ID = ("lexfilter:train", "lexfilter:full", "lexfilter:none")
"""The protocols that score frame identification from per-frame scores (:class:`FrameScores`)."""


def run(name: str, gold: Path, pred: Path, *, lexicon: ScorerLexicon | None, lexicon_tag: str,
        frame_scores: FrameScores | None = None) -> Result:
    """Score ``pred`` against ``gold`` (SemEval XML) under the protocol ``name``."""
    if name not in PROTOCOLS:
        raise UsageError(f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})")
    return PROTOCOLS[name](Path(gold), Path(pred), lexicon, lexicon_tag, frame_scores)


def run_all(gold: Path, pred: Path, *, lexicon: ScorerLexicon, lexicon_tag: str,
            frame_scores: FrameScores | None = None) -> list[Result]:
    """Every protocol on the same files, in registry order (the three Open-SESAME scores once); the
    ``lexfilter:*`` protocols only with ``frame_scores``, each with the lexicon it needs."""
    out = []
    for name in PROTOCOLS:
        if name in ("sesame-unlabeled", "sesame-token"):
            continue
        if name in FRAME_ID and (frame_scores is None or (name == "lexfilter:train" and frame_scores.train is None)
                                 or (name == "lexfilter:full" and frame_scores.release is None)):
            continue
        out.append(run(name, gold, pred, lexicon=lexicon, lexicon_tag=lexicon_tag, frame_scores=frame_scores))
    return out


def table_rows(results: list[Result]) -> list[dict]:
    """One row per measure: protocol, measure, P, R, F1 and the counts."""
    rows = []
    for res in results:
        for m in res.measures:
            name = res.card.protocol if res.card.protocol != "sesame-labeled" else f"sesame-{m.name}"
            rows.append({"protocol": name if res.card.protocol.startswith("sesame") else res.card.protocol,
                         "measure": m.name, "precision": m.precision, "recall": m.recall, "f1": m.f1,
                         "tp": m.counts.tp, "fp": m.counts.fp, "fn": m.counts.fn})
    return rows


REFERENCE = ("semeval07", "semeval")
"""The ``(protocol, measure)`` whose ranking the others are compared with: today's default score."""


def ranks(values: list[float]) -> list[int]:
    """Competition ranks, highest value first (equal values share a rank: 1, 1, 3)."""
    return [1 + sum(other > value for other in values) for value in values]


def rankings(systems: dict[str, list[Result]]) -> list[dict]:
    """For every protocol measure: each system's F1 and rank, and whether the systems' ranks are those
    of :data:`REFERENCE`. ``systems``: name -> :func:`run_all` results, every system on the same gold."""
    names = list(systems)
    by_system = {name: {(row["protocol"], row["measure"]): row for row in table_rows(results)}
                 for name, results in systems.items()}
    keys = list(by_system[names[0]])
    reference = ranks([by_system[n][REFERENCE]["f1"] for n in names])
    out = []
    for key in keys:
        f1 = [by_system[n][key]["f1"] for n in names]
        order = ranks(f1)
        out.append({"protocol": key[0], "measure": key[1], "f1": dict(zip(names, f1)),
                    "rank": dict(zip(names, order)), "same_ranking": order == reference})
    return out
