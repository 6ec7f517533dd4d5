"""Deprecated name of :mod:`pyfn.train_lexicon` (which writes the train-only lexicon; :mod:`pyfn.framenet.lexicon`
reads a release's frames): importing it warns, and every name resolves to :mod:`pyfn.train_lexicon`'s."""

from __future__ import annotations

import warnings
from typing import Any

from pyfn import train_lexicon

warnings.warn("pyfn.lexicon is deprecated: import pyfn.train_lexicon", DeprecationWarning, stacklevel=2)


def __getattr__(name: str) -> Any:
    return getattr(train_lexicon, name)
