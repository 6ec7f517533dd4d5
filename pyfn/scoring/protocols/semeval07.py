"""The SemEval-2007 Task 19 scorer (``fnSemScore_modified.pl -l -n``), pyfn's default, as a named protocol.

The numbers are those of :func:`pyfn.scoring.semeval.score` in its default
setting (faithful, partial credit), tested against the Perl script's own
output (``tests/scoring/perl_reference.json``).
"""

from __future__ import annotations

from pathlib import Path

from pyfn.scoring.protocols.base import Card, Counts, Measure, Result, Source, signature
from pyfn.scoring.scorer_lexicon import ScorerLexicon

SOURCE = Source("Noahs-ARK/semafor", "be1f08789e4b9b91c2bab170c2f35f406985c332", "scripts/scoring/fnSemScore_modified.pl")


def score(gold: Path, pred: Path, *, lexicon: ScorerLexicon, lexicon_tag: str) -> Result:
    """SemEval-2007 precision, recall and F1 (frames and FEs jointly, partial credit, faithful)."""
    from pyfn.scoring.semeval import score as semeval_score  # noqa: PLC0415

    result = semeval_score(gold, pred, lexicon=lexicon)
    counts = Counts(result.matched, result.predicted - result.matched, result.gold - result.matched)
    skipped = dict(result.skip_counts()) | {f"note:{k}": v for k, v in result.note_counts().items()}
    card = Card(
        protocol="semeval07",
        source=SOURCE,
        point="a frame 1, a core FE 1, another FE 0.5 (per gold and predicted set)",
        matched="target span and frame; FE span and name; a related frame or FE earns 0.8 per relation hop",
        span_match="exact characters",
        weights="frame 1, core FE 1, other FE 0.5; 0.8^hops for related labels",
        skips="gold sentences worth no points; the earlier of two sets on one target span (its frame)",
        skipped=skipped,
        signature=signature("semeval07", gold, lexicon_tag),
    )
    return Result((Measure("semeval", counts, result.precision, result.recall, result.f1),), "semeval", card)
