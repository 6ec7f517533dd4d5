"""Where a FrameNet release comes from when the user names none."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyfn.resources import resource_path

SAMPLE = "sample"
NLTK_ZIPS = ("framenet_v17.zip", "framenet_v15.zip")


def nltk_data_dirs() -> list[Path]:
    """NLTK's data path (from ``nltk`` when installed, else NLTK's documented defaults)."""
    try:
        import nltk  # noqa: PLC0415 - optional, slow to import

        return [Path(p) for p in nltk.data.path]
    except ImportError:
        dirs = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
        dirs.append(Path.home() / "nltk_data")
        dirs += [Path(sys.prefix) / d for d in ("nltk_data", "share/nltk_data", "lib/nltk_data")]
        dirs += [Path(d) for d in ("/usr/share/nltk_data", "/usr/local/share/nltk_data",
                                   "/usr/lib/nltk_data", "/usr/local/lib/nltk_data")]
        return dirs


def resolve_source(source: str | None) -> tuple[Path, str]:
    """The release to read and a sentence saying where it came from.

    ``None``: NLTK's ``framenet_v17.zip`` / ``framenet_v15.zip`` from the NLTK
    data path when present, else the bundled sample; ``"sample"``: the sample.
    """
    if source == SAMPLE:
        return resource_path("sample"), "the bundled FrameNet 1.5 sample (--source sample)"
    if source is not None:
        return Path(source), f"{source}"
    for folder in nltk_data_dirs():
        for name in NLTK_ZIPS:
            candidate = folder / "corpora" / name
            if candidate.is_file():
                return candidate, f"NLTK's {candidate} (no --source given)"
    return resource_path("sample"), "the bundled FrameNet 1.5 sample (no --source given, no NLTK FrameNet found)"
