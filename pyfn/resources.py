"""Locate the versioned data pyfn ships (split lists, the sample corpus)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """The path of a shipped resource (``resources/`` in the source tree)."""
    base = Path(str(resources.files("pyfn._resources")))
    return base.joinpath(*parts)
