"""What pyfn's caches hold, and removing it: the files behind ``pyfn cache``.

Only files pyfn writes there are ever listed or removed, recognised by name:
parsed-release entries ``releases/KK/KEY.bin`` (:mod:`pyfn.framenet.cache`),
preprocessing entries ``preprocess/KK/KEY.jsonl`` (:mod:`pyfn.preprocess.cache`),
with ``KK`` the first two of the 64 hex digits of ``KEY``, and the temporary
files of entries being written (``.KEY.bin.*.tmp``, ``.KEY.jsonl.*.tmp``).
A folder ``KK`` is removed when removing left it empty. Anything else in the
cache folder stays untouched.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from pyfn.framenet.cache import made_by

KINDS = ("releases", "preprocess")
_ENTRY = {"releases": re.compile(r"([0-9a-f]{64})\.bin"), "preprocess": re.compile(r"([0-9a-f]{64})\.jsonl")}
_PARTIAL = {"releases": re.compile(r"\.([0-9a-f]{64})\.bin\..+\.tmp"),
            "preprocess": re.compile(r"\.([0-9a-f]{64})\.jsonl\..+\.tmp")}
ABANDONED_SECONDS = 3600
"""A temporary file untouched this long belongs to no running write (an entry is written in seconds)."""


@dataclass(frozen=True)
class Entry:
    """One file of a cache: an entry, or the temporary file of an entry being (or once being) written.

    ``usable``: this pyfn can read it (a parsed-release entry made by the same reader, record layout,
    ``marshal`` and lxml versions; every preprocessing entry, whose key holds what it depends on).
    ``folder``, ``files`` and ``source`` are read from a parsed-release entry's header.
    """

    kind: str
    path: Path
    size: int
    partial: bool
    usable: bool
    age: float
    folder: str = ""
    files: int = 0
    source: str = ""


def _header(path: Path) -> dict | None:
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    return header if isinstance(header, dict) else None


def _entry(kind: str, path: Path, now: float) -> Entry | None:
    partial = _PARTIAL[kind].fullmatch(path.name)
    whole = _ENTRY[kind].fullmatch(path.name)
    match = partial or whole
    if match is None or match.group(1)[:2] != path.parent.name:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    age = now - stat.st_mtime
    if partial or kind == "preprocess":
        return Entry(kind, path, stat.st_size, bool(partial), not partial, age)
    header = _header(path) or {}
    files = header.get("files")
    return Entry(kind, path, stat.st_size, False, header.get("made_by") == made_by(), age,
                 str(header.get("folder", "")), len(files) if isinstance(files, list) else 0,
                 str(header.get("source", "")))


def scan(root: Path) -> list[Entry]:
    """Every file pyfn wrote in the caches under ``root`` (``root/releases``, ``root/preprocess``), sorted."""
    now = time.time()
    found = []
    for kind in KINDS:
        base = Path(root) / kind
        if not base.is_dir():
            continue
        for sub in sorted(base.iterdir()):
            if not (sub.is_dir() and re.fullmatch(r"[0-9a-f]{2}", sub.name)):
                continue
            for path in sorted(sub.iterdir()):
                entry = _entry(kind, path, now) if path.is_file() else None
                if entry is not None:
                    found.append(entry)
    return found


def to_prune(entries: list[Entry]) -> list[Entry]:
    """What ``pyfn cache prune`` removes: entries this pyfn cannot use, and temporary files abandoned
    (older than :data:`ABANDONED_SECONDS`) by writes that were killed."""
    return [e for e in entries if (e.partial and e.age > ABANDONED_SECONDS) or (not e.partial and not e.usable)]


def remove(entries: list[Entry]) -> tuple[int, list[str]]:
    """Remove ``entries`` (and the ``KK`` folders left empty): the bytes freed, and a message per file
    that could not be removed."""
    freed, failed = 0, []
    for entry in entries:
        try:
            entry.path.unlink()
        except FileNotFoundError:  # removed meanwhile (another prune, a build found it corrupt)
            continue
        except OSError as exc:
            failed.append(f"{entry.path}: cannot remove: {exc.strerror or exc}")
            continue
        freed += entry.size
        try:
            entry.path.parent.rmdir()
        except OSError:  # not empty, or gone
            pass
    return freed, failed


def size_text(n: int) -> str:
    """A byte count for people: ``812 B``, ``1.4 MB``, ``2.3 GB`` (powers of 1000)."""
    if n < 1000:
        return f"{n} B"
    value, unit = n / 1000, "kB"
    for bigger in ("MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, bigger
    return f"{value:.1f} {unit}"


def record(entry: Entry) -> dict:
    """An entry as JSON (``pyfn cache --json``)."""
    return {"kind": entry.kind, "path": str(entry.path), "bytes": entry.size, "partial": entry.partial,
            "usable": entry.usable, "folder": entry.folder, "files": entry.files, "source": entry.source,
            "age_seconds": round(entry.age)}


def stale_hint(root: Path) -> str | None:
    """A line for a run that stored a parsed release: how much of the cache under ``root`` this pyfn cannot
    use (another pyfn version made it), and how to remove it; None when there is none."""
    stale = [e for e in to_prune(scan(root)) if not e.partial]
    if not stale:
        return None
    entries = f"{len(stale)} {'entry' if len(stale) == 1 else 'entries'}"
    return (f"{size_text(sum(e.size for e in stale))} of the parsed-release cache ({entries} in "
            f"{Path(root) / 'releases'}) were made by another pyfn version and cannot be used by this one: "
            "`pyfn cache prune` removes them")
