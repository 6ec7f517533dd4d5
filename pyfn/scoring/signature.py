"""Score signatures: every setting that produced a number, in one short string."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pyfn import __version__


def file_tag(path: Path, length: int = 6) -> str:
    """The first ``length`` hex digits of a file's sha256."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:length]


def score_signature(variant: str, gold: Path, relations: str) -> str:
    """``mode|exact-or-partial|faithful-or-corrected|gold:HASH|rel:SOURCE|v:VERSION``."""
    return f"{variant}|gold:{file_tag(gold)}|rel:{relations}|v:{__version__}"


def frameid_signature(gold: Path, lu_frames: Path) -> str:
    """``frameid|gold:HASH|lex:HASH|v:VERSION``."""
    return f"frameid|gold:{file_tag(gold)}|lex:{file_tag(lu_frames)}|v:{__version__}"
