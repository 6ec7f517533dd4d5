"""Which readers pyfn uses: the compiled twins of ``_clayers.pyx`` or the Python ones.

``_clayers.pyx`` holds compiled twins of the annotation readers' inner loops
(the layers of one ``<annotationSet>``: :mod:`pyfn.framenet.layers`; the
sentences of a whole file: :mod:`pyfn.framenet.annotations`), built by
``setup.py`` with Cython when pyfn is installed. They are used when the module
was built, imports, and was compiled from the ``.pyx`` beside it (its sha256 is
compiled in: after a ``git pull`` that changed the source, an editable install
reads with Python until it is reinstalled). ``PYFN_PURE_PYTHON=1`` chooses the
Python twins. The parsed-release cache's key covers both sources.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from types import ModuleType

SOURCE = Path(__file__).with_name("_clayers.pyx")
"""The compiled twins' source: its sha256 is compiled in, and must match."""


def load(source: Path = SOURCE) -> tuple[ModuleType | None, str]:
    """The compiled module (None when it is not to be used) and which readers pyfn uses, in words: not
    the compiled ones when they were built from another ``source`` than the one beside them."""
    if os.environ.get("PYFN_PURE_PYTHON"):
        return None, "pure Python (PYFN_PURE_PYTHON is set)"
    try:
        from pyfn.framenet import _clayers
    except (ImportError, TypeError, ValueError) as exc:  # not built, or built against another lxml
        return None, f"pure Python (the compiled reader is not usable: {exc})"
    if getattr(_clayers, "SOURCE_SHA256", None) != hashlib.sha256(source.read_bytes()).hexdigest():
        return None, f"pure Python (the compiled reader was built from another {source.name}: reinstall pyfn)"
    return _clayers, "compiled"


MODULE, READER = load()
"""The compiled module (None when not used) and which readers pyfn uses, in words."""
