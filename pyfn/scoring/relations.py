"""Deprecated name of :mod:`pyfn.scoring.scorer_lexicon` (the scorer's :class:`ScorerLexicon` and its relation
graphs): importing it warns, and every name resolves to :mod:`pyfn.scoring.scorer_lexicon`'s."""

from __future__ import annotations

import warnings
from typing import Any

from pyfn.scoring import scorer_lexicon

warnings.warn("pyfn.scoring.relations is deprecated: import pyfn.scoring.scorer_lexicon", DeprecationWarning,
              stacklevel=2)


def __getattr__(name: str) -> Any:
    return getattr(scorer_lexicon, name)
