"""Locate the versioned data pyfn ships (split lists, the sample corpus)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pyfn.errors import PyfnError


def _base() -> Path:
    """``resources/``: the installed package data, or the source tree's folder when pyfn runs uninstalled."""
    try:
        return Path(str(resources.files("pyfn._resources")))
    except ModuleNotFoundError:
        source = Path(__file__).resolve().parent.parent / "resources"
        if source.is_dir():
            return source
        raise PyfnError("pyfn's resources are missing: reinstall pyfn (python -m pip install -e .)") from None


def resource_path(*parts: str) -> Path:
    """The path of a shipped resource (``resources/`` in the source tree)."""
    return _base().joinpath(*parts)
