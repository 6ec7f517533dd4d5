"""pyfn: standardized, reproducible FrameNet data for frame semantic parsing.

``pyfn.load(source, split="test", **options)`` builds a split as ``pyfn convert``
does; ``pyfn.read(path)`` reads a pyfn output back (:mod:`pyfn.api`).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Split", "__version__", "load", "read"]


def __getattr__(name: str) -> Any:
    """``load``, ``read`` and ``Split`` from :mod:`pyfn.api`, imported on first use (``import pyfn`` stays light)."""
    if name in ("load", "read", "Split"):
        from pyfn import api  # noqa: PLC0415

        return getattr(api, name)
    raise AttributeError(f"module 'pyfn' has no attribute {name!r}")
