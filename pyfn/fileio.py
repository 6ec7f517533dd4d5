"""Atomic output files: written under a temporary name, renamed when complete."""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from itertools import islice
from pathlib import Path
from typing import IO

from pyfn.errors import PyfnError

_UMASK = os.umask(0)
os.umask(_UMASK)
_SYNC = True  # False only inside :func:`scratch_files`


@contextmanager
def scratch_files() -> Iterator[None]:
    """Files written inside the block are not fsynced: scratch parts that a
    process copies into a final file (which is)."""
    global _SYNC
    saved, _SYNC = _SYNC, False
    try:
        yield
    finally:
        _SYNC = saved


def durable() -> bool:
    """Whether files written now are fsynced (not inside :func:`scratch_files`)."""
    return _SYNC


@contextmanager
def synced_once() -> Iterator[None]:
    """Files written inside the block are made durable by one ``os.sync()`` when it ends without
    error, not by an fsync each (thousands of small files: a FrameNet-layout folder). Where
    ``os.sync`` does not exist, each file is fsynced as usual."""
    if not hasattr(os, "sync"):
        yield
        return
    durable = _SYNC
    with scratch_files():
        yield
    if durable:
        os.sync()


@contextmanager
def atomic_writer(path: Path, mode: str = "w") -> Iterator[IO]:
    """Open ``path`` for writing through a temporary file in the same folder.

    The final name appears only once the block finished without error; on any
    failure the temporary file is removed and the previous file (if any) stays.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.chmod(tmp, 0o666 & ~_UMASK)
    except OSError as exc:
        raise PyfnError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            if _SYNC:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise PyfnError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_lines(path: Path, lines: Iterable[str] | Iterable[bytes]) -> str:
    """Write ``lines`` (each without its newline; strings, or bytes already in UTF-8) atomically, one
    per line, UTF-8; returns the file's sha256 hex digest, or "" for a scratch part
    (:func:`scratch_files`): the process that copies it into the final file hashes that file (600 MB
    of parts for FN 1.5 in six formats)."""
    lines = iter(lines)
    with ExitStack() as stack:
        digest = stack.enter_context(background_sha256()) if _SYNC else None
        handle = stack.enter_context(atomic_writer(path, "wb"))
        while batch := list(islice(lines, 2048)):
            data = b"\n".join(batch) + b"\n" if isinstance(batch[0], bytes) else ("\n".join(batch) + "\n").encode()
            if digest is not None:
                digest.update(data)
            handle.write(data)
    return digest.hexdigest() if digest is not None else ""


class BackgroundSha256:
    """sha256 of the blocks given to :meth:`update`, the first hashed at once, the others in a thread
    of its own while the caller goes on (hashlib lets go of the GIL on large blocks): hashing a large
    file no longer adds to the time of writing it (142 MB of JSON lines: 0.14 s to write and hash,
    against 0.20 s in one thread), and a file of one block starts no thread. At most :data:`BACKLOG`
    blocks wait to be hashed."""

    BACKLOG = 4

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._blocks: queue.Queue[bytes | None] = queue.Queue(self.BACKLOG)
        self._thread: threading.Thread | None = None
        self._given = 0

    def _hash(self) -> None:
        while (block := self._blocks.get()) is not None:
            self._digest.update(block)

    def update(self, block: bytes) -> None:
        """Hash ``block`` after the blocks given before it (a copy of it unless it is ``bytes``: the
        caller may change a buffer once this returns)."""
        self._given += 1
        if self._given == 1:
            self._digest.update(block)
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._hash, daemon=True)
            self._thread.start()
        self._blocks.put(block if type(block) is bytes else bytes(block))

    def close(self) -> None:
        """Wait for every block given to be hashed."""
        if self._thread is not None and self._thread.is_alive():
            self._blocks.put(None)
            self._thread.join()

    def hexdigest(self) -> str:
        """The digest of every block given (after :meth:`close`)."""
        self.close()
        return self._digest.hexdigest()


@contextmanager
def background_sha256() -> Iterator[BackgroundSha256]:
    """A :class:`BackgroundSha256` whose thread has ended when the block ends, with or without error."""
    digest = BackgroundSha256()
    try:
        yield digest
    finally:
        digest.close()


def write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically."""
    with atomic_writer(path) as handle:
        handle.write(text)


def sha256_file(path: Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


LOCK_NAME = ".pyfn.lock"


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host and has not exited (a zombie has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has exited and waits to be reaped (Linux: a killed process whose parent died
    before reaping it; it writes nothing any more). False where ``/proc`` does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


@contextmanager
def locked_directory(directory: Path) -> Iterator[Path]:
    """Hold ``directory/.pyfn.lock`` while writing into ``directory``.

    A second run into the same directory refuses with a clear message; a lock
    left by a process that no longer exists is taken over, and the temporary
    files and folders such a run left (``.NAME.*.tmp``) are removed.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PyfnError(f"{directory}: cannot create the target directory: {exc.strerror or exc}") from exc
    lock = directory / LOCK_NAME
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            break
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid_alive(pid):
                raise PyfnError(
                    f"{directory}: another pyfn run (pid {pid}) is writing here; wait for it or remove {lock}"
                ) from None
            lock.unlink(missing_ok=True)
        except OSError as exc:
            raise PyfnError(f"{directory}: cannot write: {exc.strerror or exc}") from exc
    else:
        raise PyfnError(f"{directory}: cannot take the lock {lock}")
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{os.getpid()}\n")
    for stale in directory.glob(".*.tmp"):  # left by a killed run: never a final name, now garbage
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
    try:
        yield directory
    finally:
        lock.unlink(missing_ok=True)
