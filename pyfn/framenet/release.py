"""A FrameNet release on disk: a directory or a zip, ICSI or NLTK layout.

Nothing is ever extracted to disk; zip members are read into memory one file
at a time, after their names and sizes have been checked.
"""

from __future__ import annotations

import lzma
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.framenet.zipmember import read_deflated

MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200
_VERSION_RE = re.compile(rb"Release\s+(\d\.\d+)")
_NLTK_RE = re.compile(r"framenet_v(\d)(\d)")
SAMPLE_MARK = b"(pyfn-sample)"
_CREATED_YEARS = {"2010": "1.5", "2015": "1.6", "2016": "1.7"}


@dataclass
class Release:
    """A FrameNet release: where it is, its layout and its version.

    Paths given to :meth:`read` and returned by :meth:`list` are relative to
    the release root (``fulltext/ANC__110CYL067.xml``), whatever the source.
    """

    path: Path
    kind: str
    root: str
    layout: str
    version: str = "unknown"
    _zip: zipfile.ZipFile | None = field(default=None, repr=False, compare=False)
    _members: dict[str, zipfile.ZipInfo] | None = field(default=None, repr=False, compare=False)
    _known: frozenset[str] | None = field(default=None, repr=False, compare=False)
    """A zip's member names when they are known without its index (:mod:`pyfn.framenet.listing`)."""

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_zip"] = None
        state["_members"] = None
        return state

    def detach(self) -> None:
        """Forget open file handles (a forked worker must open its own)."""
        self._zip = None
        self._members = None

    @property
    def label(self) -> str:
        """How the release is named in messages."""
        return str(self.path)

    def _index(self) -> dict[str, zipfile.ZipInfo]:
        if self._members is None:
            try:
                self._zip = zipfile.ZipFile(self.path)
            except (OSError, zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
                raise PyfnError(f"{self.path}: cannot open zip: {exc}") from exc
            self._members = _check_members(self.path, self._zip)
        return self._members

    def member_names(self) -> frozenset[str] | dict[str, zipfile.ZipInfo]:
        """A zip's member names (paths in the zip, the root included): known, or read from its index."""
        return self._known if self._known is not None and self._members is None else self._index()

    def list(self, folder: str, suffix: str = ".xml") -> list[str]:
        """Relative paths of the files directly inside ``folder``, sorted."""
        folder = folder.rstrip("/") + "/"
        if self.kind == "zip":
            prefix = self.root + folder
            names = [
                name[len(self.root):]
                for name in self.member_names()
                if name.startswith(prefix) and "/" not in name[len(prefix):] and name.endswith(suffix)
            ]
        else:
            base = self.path / self.root / folder
            names = [
                folder + p.name for p in base.iterdir() if p.is_file() and p.name.endswith(suffix)
            ] if base.is_dir() else []
        return sorted(names)

    def exists(self, relpath: str) -> bool:
        """True when the release holds the file ``relpath``."""
        _check_relpath(self.path, relpath)
        if self.kind == "zip":
            return self.root + relpath in self.member_names()
        return (self.path / self.root / relpath).is_file()

    def read(self, relpath: str) -> bytes:
        """The bytes of the file ``relpath`` of the release."""
        _check_relpath(self.path, relpath)
        if self.kind == "zip":
            info = self._index().get(self.root + relpath)
            if info is None:
                raise PyfnError(f"{self.path}: no file {relpath} in the release")
            try:
                assert self._zip is not None
                data = read_deflated(self._zip, info)
                return data if data is not None else self._zip.read(info)
            except (OSError, zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError) as exc:
                raise PyfnError(f"{self.path}: cannot read {relpath}: {exc}") from exc
            except (NotImplementedError, RuntimeError) as exc:  # unknown compression method, encrypted member
                raise PyfnError(f"{self.path}: cannot read {relpath}: {exc}") from exc
        try:
            return (self.path / self.root / relpath).read_bytes()
        except FileNotFoundError as exc:
            raise PyfnError(f"{self.path}: no file {relpath} in the release") from exc
        except OSError as exc:
            raise PyfnError(f"{self.path}: cannot read {relpath}: {exc.strerror}") from exc


def _check_relpath(source: Path, relpath: str) -> None:
    norm = posixpath.normpath(relpath)
    if relpath.startswith("/") or norm.startswith("..") or "\\" in relpath:
        raise PyfnError(f"{source}: refused path outside the release: {relpath!r}")


def _check_members(path: Path, archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        name = info.filename
        parts = name.split("/")
        if not name or name.startswith("/") or "\\" in name or ".." in parts or re.match(r"^[A-Za-z]:", name):
            raise PyfnError(f"{path}: refused zip member with an unsafe name: {name!r}")
        if info.is_dir():
            continue
        if info.file_size > MAX_MEMBER_BYTES:
            raise PyfnError(f"{path}: refused zip member {name}: declared size {info.file_size} bytes")
        if info.compress_size and info.file_size / info.compress_size > MAX_COMPRESSION_RATIO:
            raise PyfnError(f"{path}: refused zip member {name}: compression ratio over {MAX_COMPRESSION_RATIO}")
        members[name] = info
    return members


_MARKERS = ("fulltext/", "frRelation.xml", "lu/", "frame/")
LOOKED_FOR = "fulltext/, lu/, frame/ or frRelation.xml"


def _roots(names: list[str]) -> list[str]:
    """The folder prefixes holding one of :data:`_MARKERS`, shortest first."""
    candidates = set()
    for name in names:
        for marker in _MARKERS:
            idx = name.find(marker)
            if idx >= 0 and (idx == 0 or name[idx - 1] == "/"):
                candidates.add(name[:idx])
    return sorted(candidates, key=lambda c: (c.count("/"), c))


def _find_root(path: Path, names: list[str]) -> str:
    """The folder prefix of the release: ``path`` itself, a folder directly inside it (an unpacked
    download) or NLTK's ``framenet_v1N`` folder (``corpora/framenet_v15/``). A release found
    deeper is not taken (the repository root holds the bundled sample): an error names it."""
    roots = _roots(names)
    for root in roots:
        if root.count("/") <= 1 or _NLTK_RE.fullmatch(root.rstrip("/").rsplit("/", 1)[-1]):
            return root
    deeper = ""
    if roots:
        deeper = (f"; one lies deeper, in {path / roots[0]}: pass that folder as the source" if path.is_dir()
                  else f"; one lies deeper, in {roots[0]} inside it: unpack it and pass that folder as the source")
    raise PyfnError(f"{path}: not a FrameNet release (looked for {LOOKED_FOR} in it, in a folder directly "
                    f"inside it and in an NLTK framenet_v1N folder){deeper}")


def open_release(source: str | Path) -> Release:
    """Open a FrameNet release from a directory or a zip file and detect its version."""
    path = Path(source)
    if not path.exists():
        raise PyfnError(f"{path}: no such file or directory")
    if path.is_dir():
        names = [
            str(p.relative_to(path)).replace("\\", "/") + ("/" if p.is_dir() else "")
            for depth in ("*", "*/*", "*/*/*")
            for p in path.glob(depth)
            if p.name in ("fulltext", "frRelation.xml", "lu", "frame")
        ]
        release = Release(path=path, kind="dir", root="", layout="icsi")
    else:
        release = Release(path=path, kind="zip", root="", layout="icsi")
        names = list(release._index())
    release.root = _find_root(path, names)
    release.layout = "nltk" if _NLTK_RE.search(release.root) else "icsi"
    release.version = _detect_version(release)
    return release


def _detect_version(release: Release) -> str:
    """Release number from README.txt, the NLTK folder name, or frRelation.xml's date."""
    if release.exists("README.txt"):
        readme = release.read("README.txt")[:4096]
        match = _VERSION_RE.search(readme)
        if match:
            return match.group(1).decode() + ("-sample" if SAMPLE_MARK in readme else "")
    nltk = _NLTK_RE.search(release.root)
    if nltk:
        return f"{nltk.group(1)}.{nltk.group(2)}"
    if release.exists("frRelation.xml"):
        head = release.read("frRelation.xml")[:2048]
        created = re.search(rb'XMLCreated="\d\d/\d\d/(\d{4})', head)
        if created:
            return _CREATED_YEARS.get(created.group(1).decode(), "unknown")
    return "unknown"
