"""The parsed-release cache: each annotation folder of a release (``fulltext/``, ``lu/``) and its
frames (``frame/``) parsed once, and a zip's member names read once.

The first build from a release stores, per folder, every file's record as the
split builder needs it (:mod:`pyfn.splits.parsed`: the kept sets' JSON lines,
ids, filter bits, hashes' parts, problems and counts, and the ids of the sets
dropped while reading); the first conversion that needs the frames (BIOS,
Parquet) or ``pyfn generate`` stores each ``frame/*.xml`` file's frame
(:func:`pyfn.framenet.lexicon.frame_record`); opening a zip release stores its
member names, root, layout and version (:mod:`pyfn.framenet.listing`). Later builds of any
split, filter, exclusion or format from the same release read it instead of
parsing the XML (and the zip's central directory) again. The output is the same, byte for byte.

**Where.** ``$PYFN_CACHE/releases`` (default ``~/.cache/pyfn/releases``,
``XDG_CACHE_HOME`` honoured); ``--cache-dir DIR`` uses ``DIR/releases``,
``--no-cache`` neither reads nor writes it. Delete the folder to clear it.

**Key.** sha256 over: the entry :data:`FORMAT`, the reader's digest (sha256
of the source of every module that decides what a record holds, so any change
to the readers, filters, hashing or JSON lines misses), the record layout,
Python's ``marshal`` version, lxml's version, the folder, its file list and
the release's content: for a zip, the XXH3-128 digest of the zip file; for a
directory, every file's path, size, modification time (ns) and inode (a
folder with a file modified in the last :data:`RACY_SECONDS` seconds is not
cached, so that a later change cannot share a timestamp with it).

**Entry.** ``releases/KK/KEY.bin``: one JSON header line (format, key,
folder, file list, :func:`made_by` and the release's path when written, for
``pyfn cache``) then, per file in list order, an 8-byte big-endian
length, the record's 16-byte XXH3-128 digest (:func:`record_digest`) and the record. Each
record's digest is checked before it is used; a bad header, hash, length or trailing byte
makes the entry corrupt: it is reported, removed and the folder parsed
again. Entries are written under a temporary name and renamed when complete,
so two concurrent runs never see half an entry (the last to finish replaces
the other's identical one).

**Housekeeping.** Entries are never removed by a build (a corrupt one
excepted): ``pyfn cache`` lists them, ``pyfn cache prune`` removes those
this pyfn cannot use (:func:`made_by` differs: another reader, record
layout, ``marshal`` or lxml version) and ``pyfn cache clear`` all of them
(:mod:`pyfn.cache_admin`).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import IO

import xxhash
from lxml import etree

from pyfn.framenet.release import Release

FORMAT = 3
"""Version of the entry layout; part of every key (3: records checked by XXH3-128, 2: by sha256)."""
RACY_SECONDS = 2.0
"""A directory folder holding a file modified this recently is not cached."""
_READER_MODULES = (
    "framenet/annotations.py", "framenet/layers.py", "framenet/compiled.py", "framenet/_clayers.pyx",
    "framenet/xml.py", "framenet/cache.py", "framenet/lexicon.py", "framenet/release.py", "framenet/listing.py",
    "model.py", "formats/jsonl.py",
    "splits/parsed.py", "splits/filters.py", "splits/validity.py", "splits/hashing.py",
)
_LENGTH = 8
_DIGEST = 16


class CorruptEntry(Exception):
    """A cache entry that failed a check: its key and why."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"cache entry {key}: {why}")
        self.key = key
        self.why = why


def default_cache_root() -> Path:
    """``$PYFN_CACHE``, else ``~/.cache/pyfn`` (``XDG_CACHE_HOME`` honoured): the root of pyfn's caches."""
    root = os.environ.get("PYFN_CACHE")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pyfn"


@lru_cache(maxsize=1)
def reader_digest() -> str:
    """sha256 of the source of the modules that decide what a parsed record holds."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in _READER_MODULES:
        digest.update(name.encode() + b"\0" + (package / name).read_bytes() + b"\0")
    return digest.hexdigest()


@lru_cache(maxsize=8)
def _zip_digest(path: str, size: int, mtime_ns: int) -> str:
    """XXH3-128 of the zip's bytes: its content, for the key (0.005 s for FN 1.5's 65 MB, against
    0.04 s for sha256; a key only has to tell releases apart, as a record's digest only damage)."""
    digest = xxhash.xxh3_128()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def record_digest(record: bytes) -> bytes:
    """The 16-byte digest that guards one stored record against corruption: XXH3-128, 20 times
    faster than sha256 (0.005 s against 0.11 s for FN 1.5 with exemplars, read on every warm build).
    It detects damage (a changed byte, a truncated or mixed-up entry), not tampering: whoever can
    write an entry can write its digest too, whatever the hash."""
    return xxhash.xxh3_128_digest(record)


def made_by() -> dict[str, object]:
    """What decides whether this pyfn can use an entry: the entry layout, the reader's digest, the
    record layout, ``marshal``'s and lxml's versions (part of every key, and of every header)."""
    from pyfn.splits import parsed  # noqa: PLC0415 - the record layout is part of the key

    return {"format": FORMAT, "reader": reader_digest(), "record": parsed.FORMAT, "marshal": marshal.version,
            "lxml": list(etree.LXML_VERSION)}


def folder_key(release: Release, folder: str, files: Sequence[str]) -> str | None:
    """The cache key of ``folder`` of ``release`` holding ``files`` (None: not cacheable now)."""
    if release.kind == "zip":
        stat = os.stat(release.path)
        identity: list = ["zip", _zip_digest(str(Path(release.path).resolve()), stat.st_size, stat.st_mtime_ns)]
    else:
        now = time.time_ns()
        identity = ["dir", str(Path(release.path).resolve()), release.root]
        for relpath in files:
            stat = os.stat(Path(release.path) / release.root / relpath)
            if now - stat.st_mtime_ns < RACY_SECONDS * 1e9:
                return None
            identity.append([relpath, stat.st_size, stat.st_mtime_ns, stat.st_ino])
    description = {**made_by(), "folder": folder, "files": list(files), "release": identity}
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()


class ReleaseCache:
    """Entries under one directory (``ROOT/releases``); ``problems`` lists the entries found corrupt,
    ``written`` the keys of the entries this object stored."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.problems: list[str] = []
        self.written: list[str] = []
        self._reported = 0

    def unreported(self) -> list[str]:
        """The problems found since this was last asked (each goes into one result's warnings, wherever
        it was found: a build, a zip's member names, the frames)."""
        found, self._reported = self.problems[self._reported:], len(self.problems)
        return found

    @classmethod
    def under(cls, root: Path | None = None) -> ReleaseCache:
        """The cache in ``root/releases`` (default :func:`default_cache_root`)."""
        return cls((Path(root) if root is not None else default_cache_root()) / "releases")

    def path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / key[:2] / f"{key}.bin"

    def read(self, key: str, folder: str, files: Sequence[str]) -> Iterator[bytes] | None:
        """The records of ``files`` stored under ``key``, in order, each hash-checked as it is read
        (None when there is no entry). A failed check raises :class:`CorruptEntry` while iterating."""
        path = self.path(key)
        try:
            handle = open(path, "rb")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            self.discard(key, f"unreadable ({exc.strerror or exc})")
            return None
        return self._records(handle, key, folder, list(files))

    @staticmethod
    def _records(handle: IO[bytes], key: str, folder: str, files: list[str]) -> Iterator[bytes]:
        """The records, each hash-checked as it is read; :class:`CorruptEntry` on the first failed check.

        Read in the builder's own thread: checking a record costs far less than handing it over from
        a reading thread (measured: the hand-over's lock waits cost 0.5 s per FN 1.5 build).
        """
        with handle:
            file_size = os.fstat(handle.fileno()).st_size
            try:
                header = json.loads(handle.readline())
            except ValueError:
                raise CorruptEntry(key, "bad header") from None
            if not isinstance(header, dict) or [header.get(k) for k in ("format", "key", "folder", "files")] != [
                    FORMAT, key, folder, files]:
                raise CorruptEntry(key, "header does not match its key")
            if not files and handle.read(1):
                raise CorruptEntry(key, "trailing bytes")
            for i, relpath in enumerate(files, 1):
                try:
                    head = handle.read(_LENGTH + _DIGEST)
                    size = int.from_bytes(head[:_LENGTH], "big")
                    record = handle.read(size) if len(head) == _LENGTH + _DIGEST and size <= file_size else b""
                    if len(record) != size or record_digest(record) != head[_LENGTH:]:
                        raise CorruptEntry(key, f"record of {relpath} truncated or changed: hash mismatch")
                    if i == len(files) and handle.read(1):  # checked before the last record is used
                        raise CorruptEntry(key, "trailing bytes")
                except OSError as exc:
                    raise CorruptEntry(key, f"unreadable ({exc.strerror or exc})") from None
                yield record

    def verify(self, key: str, folder: str, files: Sequence[str]) -> None:
        """Check every record of the entry of ``key`` without using them (FN 1.5's frames: about 1 ms);
        an entry found corrupt is reported and removed."""
        records = self.read(key, folder, files)
        try:
            for _ in records or ():
                pass
        except CorruptEntry as exc:
            self.discard(exc.key, exc.why)

    def discard(self, key: str, why: str) -> None:
        """Report the entry of ``key`` as corrupt and remove it."""
        path = self.path(key)
        self.problems.append(f"{path}: corrupt parsed-release cache entry ({why}); removed, the XML is read again")
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass

    @contextmanager
    def writer(self, key: str, folder: str, files: Sequence[str], source: str = "") -> Iterator[EntryWriter]:
        """Write the entry of ``key`` (``source``: the release's path, recorded for ``pyfn cache``): add
        every file's record in order; the entry is renamed into place when every record was added and the
        block ended without error. An entry that cannot be written is no error (the cache only saves
        time): nothing is left of it."""
        path = self.path(key)
        entry = EntryWriter(len(files))
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            entry.handle = os.fdopen(fd, "wb")
            header = {"format": FORMAT, "key": key, "folder": folder, "files": list(files), "made_by": made_by(),
                      "source": source}
            entry.handle.write(json.dumps(header).encode() + b"\n")
        except OSError:
            entry.failed = True
        try:
            yield entry
        except BaseException:
            entry.failed = True
            raise
        finally:
            try:
                if entry.handle is not None:
                    entry.handle.close()
                if tmp is not None and not entry.failed and entry.count == entry.expected:
                    os.replace(tmp, path)
                    tmp = None
                    self.written.append(key)
            except OSError:
                pass
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass


class EntryWriter:
    """Appends records to an entry being written (a failed write only marks it failed)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.count = 0
        self.failed = False
        self.handle: IO[bytes] | None = None

    def add(self, record: bytes, digest: bytes | None = None) -> None:
        """Append one file's record (in the entry's file order), with its :func:`record_digest` when the
        caller has it already."""
        if self.failed or self.handle is None:
            return
        try:
            self.handle.write(len(record).to_bytes(_LENGTH, "big") + (digest or record_digest(record)))
            self.handle.write(record)
        except OSError:
            self.failed = True
        self.count += 1
