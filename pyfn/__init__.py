"""pyfn: standardized, reproducible FrameNet data for frame semantic parsing.

``pyfn.load(source, split="test", **options)`` builds a split as ``pyfn convert``
does; ``pyfn.read(path)`` reads a pyfn output back (:mod:`pyfn.api`);
``pyfn.to_hf(...)`` makes either a ``datasets.DatasetDict`` (:mod:`pyfn.hf`).
"""

from __future__ import annotations

from typing import Any

__version__ = "2.0.0a1"
__all__ = ["Split", "__version__", "load", "read", "to_hf"]


def __getattr__(name: str) -> Any:
    """``load``, ``read``, ``Split`` (:mod:`pyfn.api`) and ``to_hf`` (:mod:`pyfn.hf`), imported on first use
    (``import pyfn`` stays light)."""
    if name in ("load", "read", "Split"):
        from pyfn import api  # noqa: PLC0415

        return getattr(api, name)
    if name == "to_hf":
        from pyfn.hf import to_hf  # noqa: PLC0415

        return to_hf
    raise AttributeError(f"module 'pyfn' has no attribute {name!r}")
