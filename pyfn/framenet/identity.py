"""Is a copy of FrameNet the genuine release? Comparison with the file manifest of the genuine release.

pyfn ships the manifest of FN 1.7 (every file: path relative to the release
root, ``lfs`` rows with the file's sha256, ``git`` rows with its git blob
sha1, and its size). A copy is compared file by file: missing, differing and
extra files are listed by path, so a user is told exactly how their copy
differs, and a conversion records it.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field

from pyfn.errors import PyfnError
from pyfn.framenet.release import Release
from pyfn.resources import resource_path

KNOWN = {"1.7": ("releases", "fn1.7.tsv.gz")}
"""Release versions whose genuine file manifest pyfn ships."""


@dataclass(frozen=True)
class Entry:
    """One file of the genuine release."""

    kind: str
    digest: str
    size: int


def reference(version: str) -> dict[str, Entry] | None:
    """The genuine file manifest of ``version`` (None when pyfn has none)."""
    if version not in KNOWN:
        return None
    path = resource_path(*KNOWN[version])
    out: dict[str, Entry] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4 or parts[1] not in ("lfs", "git") or not parts[3].isdigit():
                raise PyfnError(f"{path}:{lineno}: malformed release manifest line")
            out[parts[0]] = Entry(parts[1], parts[2], int(parts[3]))
    return out


def digest(entry: Entry, data: bytes) -> str:
    """The hash of ``data`` the way ``entry`` records it."""
    if entry.kind == "git":
        return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return hashlib.sha256(data).hexdigest()


@dataclass
class Comparison:
    """How a copy differs from the genuine release, over the files compared."""

    version: str
    compared: int = 0
    missing: list[str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    @property
    def genuine(self) -> bool:
        """True when every compared file is present and identical."""
        return not self.missing and not self.differing

    def record(self) -> dict:
        """For a manifest."""
        return {"reference": f"genuine FrameNet {self.version} file manifest", "files_compared": self.compared,
                "genuine": self.genuine, "missing": self.missing, "differing": self.differing}

    def message(self) -> str:
        """One line for a warning."""
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing)} missing ({', '.join(self.missing[:5])}{', ...' if len(self.missing) > 5 else ''})")
        if self.differing:
            parts.append(f"{len(self.differing)} differing ({', '.join(self.differing[:5])}"
                         f"{', ...' if len(self.differing) > 5 else ''})")
        return f"this copy of FrameNet {self.version} is not the genuine release: {'; '.join(parts)}"


def compare_read(release: Release, files: dict[str, str], folders: tuple[str, ...]) -> Comparison | None:
    """Compare the files a conversion read (path -> sha256) with the genuine ones, and list the
    genuine XML files of ``folders`` the copy lacks (None when pyfn has no manifest for the version)."""
    genuine = reference(release.version)
    if genuine is None:
        return None
    out = Comparison(release.version)
    for path, sha in sorted(files.items()):
        entry = genuine.get(path)
        if entry is not None and entry.kind == "lfs":
            out.compared += 1
            if entry.digest != sha:
                out.differing.append(path)
    out.missing = sorted(p for p in genuine if p.rsplit("/", 1)[0] in folders and p.endswith(".xml")
                         and p.count("/") == 1 and not release.exists(p))
    return out


def compare_release(release: Release) -> Comparison | None:
    """Compare every file of the genuine release with the copy (None when pyfn has no manifest for it)."""
    genuine = reference(release.version)
    if genuine is None:
        return None
    out = Comparison(release.version)
    for path, entry in sorted(genuine.items()):
        if not release.exists(path):
            out.missing.append(path)
            continue
        out.compared += 1
        if digest(entry, release.read(path)) != entry.digest:
            out.differing.append(path)
    return out
