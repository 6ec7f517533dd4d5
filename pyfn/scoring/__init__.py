"""Scoring: the SemEval-2007 frame-structure scorer and its lexicon."""

from pyfn.scoring.scorer_lexicon import ScorerLexicon
from pyfn.scoring.semeval import MODES, Score, SentenceScore, Skip, score

__all__ = ["MODES", "Score", "ScorerLexicon", "SentenceScore", "Skip", "score"]
