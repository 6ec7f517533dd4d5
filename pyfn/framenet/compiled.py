"""Which readers and writers pyfn uses: the compiled twins (``_clayers.pyx``, ``_cjsonl.pyx``,
``_cwrite.pyx``) or the Python ones.

``_clayers.pyx`` holds compiled twins of the annotation readers' inner loops
(the layers of one ``<annotationSet>``: :mod:`pyfn.framenet.layers`; the
sentences of a whole file: :mod:`pyfn.framenet.annotations`), built by
``setup.py`` with Cython when pyfn is installed. They are used when the module
was built, imports, and was compiled from the ``.pyx`` beside it (its sha256 is
compiled in: after a ``git pull`` that changed the source, an editable install
reads with Python until it is reinstalled). ``PYFN_PURE_PYTHON=1`` chooses the
Python twins. The parsed-release cache's key covers both sources.

``pyfn/formats/_cjsonl.pyx`` is the compiled decoder of the JSON lines pyfn
writes (:mod:`pyfn.formats.jsonl`) and ``pyfn/formats/_cwrite.pyx`` the
compiled per-set work of the BIOS and SEMAFOR writers, used under the same
conditions (:data:`JSONL_MODULE`, :data:`JSONL_DECODER`; :data:`WRITE_MODULE`,
:data:`WRITER`).
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType

SOURCE = Path(__file__).with_name("_clayers.pyx")
"""The compiled twins' source: its sha256 is compiled in, and must match."""


JSONL_SOURCE = Path(__file__).parent.parent / "formats" / "_cjsonl.pyx"
"""The compiled JSON-line decoder's source."""
WRITE_SOURCE = JSONL_SOURCE.with_name("_cwrite.pyx")
"""The compiled writers' source."""


def load(source: Path = SOURCE, name: str = "pyfn.framenet._clayers", what: str = "reader",
         ) -> tuple[ModuleType | None, str]:
    """The compiled module ``name`` (None when it is not to be used) and which twin pyfn uses, in words:
    not the compiled one when it was built from another ``source`` than the one beside it."""
    if os.environ.get("PYFN_PURE_PYTHON"):
        return None, "pure Python (PYFN_PURE_PYTHON is set)"
    try:
        module = importlib.import_module(name)
    except (ImportError, TypeError, ValueError) as exc:  # not built, or built against another lxml
        return None, f"pure Python (the compiled {what} is not usable: {exc})"
    if getattr(module, "SOURCE_SHA256", None) != hashlib.sha256(source.read_bytes()).hexdigest():
        return None, f"pure Python (the compiled {what} was built from another {source.name}: reinstall pyfn)"
    return module, "compiled"


MODULE, READER = load()
"""The compiled module (None when not used) and which readers pyfn uses, in words."""
JSONL_MODULE, JSONL_DECODER = load(JSONL_SOURCE, "pyfn.formats._cjsonl", "JSON-line decoder")
"""The compiled JSON-line decoder (None when not used) and which decoder pyfn uses, in words."""
WRITE_MODULE, WRITER = load(WRITE_SOURCE, "pyfn.formats._cwrite", "writer")
"""The compiled writers' per-set work (None when not used) and which pyfn uses, in words."""
