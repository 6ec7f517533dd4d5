"""Large results of worker processes handed to the parent through files instead of pipes.

A pool's pipes carry a result in 64 kB pieces, each a wake-up of the process
at the other end, and copy it four times (pickled, written, read, unpickled).
Each worker instead appends its results to a file of its own and sends only
where each lies (file, offset, length), which the parent reads with one
``pread``. ``benchmarks/bench_spool.py`` (two workers, 11,907 results of 18
kB: FN 1.5 FT+EX's parsed records), two runs: the parent's CPU 0.37-0.67 s
through the pipes, 0.07-0.11 s through spool files; paired cold FN 1.5 FT+EX to JSONL
5.92-6.02 s against 6.33-6.64 s. The files live in a temporary folder
(``$TMPDIR``) that the parent removes, with them, when the work ends; they are
read back at once, from the page cache. A folder left by a run that was killed
(``SIGKILL`` lets nothing clean up) is removed by the next run on the same host
that makes one, once its process is gone and nothing in it changed for
:data:`STALE_SECONDS`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.fileio import pid_alive

Where = tuple[str, int, int]
"""A result's place: its file, offset and length."""

STALE_SECONDS = 600
"""How long a spool folder of a process that no longer exists stays untouched before it is removed."""


def _host_prefix() -> str:
    """The names of this host's spool folders begin so, then the process ID and ``-`` (hosts may share
    ``$TMPDIR``; a process ID says nothing on another host)."""
    return f"pyfn-spool-{os.uname().nodename}-"


def remove_stale(parent: Path, now: float | None = None) -> list[Path]:
    """Remove the spool folders in ``parent`` that a process of this host that no longer exists left,
    untouched for :data:`STALE_SECONDS`; those removed."""
    now = time.time() if now is None else now
    removed = []
    prefix = _host_prefix()
    for folder in parent.glob(f"{prefix}*"):
        pid = folder.name[len(prefix):].partition("-")[0]
        try:
            newest = max([folder.stat().st_mtime, *(f.stat().st_mtime for f in folder.iterdir())])
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if pid.isdigit() and not pid_alive(int(pid)) and now - newest > STALE_SECONDS:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


@contextmanager
def spool_folder() -> Iterator[Path]:
    """A new temporary folder for the workers' spool files, removed with them when the block ends (and
    the stale ones of killed runs, :func:`remove_stale`)."""
    try:
        remove_stale(Path(tempfile.gettempdir()))
        folder = Path(tempfile.mkdtemp(prefix=f"{_host_prefix()}{os.getpid()}-"))
    except OSError as exc:
        raise PyfnError(f"{tempfile.gettempdir()}: cannot make a scratch folder: {exc.strerror or exc}"
                        " (pyfn's scratch files go to $TMPDIR)") from None
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class SpoolWriter:
    """A worker's spool file in ``folder`` (made at its first result, named by the process)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = ""
        self.fd = -1
        self.size = 0

    def put(self, data: bytes) -> Where:
        """Append ``data``; where it lies."""
        try:
            if self.fd < 0:
                self.path = str(self.folder / f"{os.getpid()}.spool")
                self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except OSError as exc:
            raise PyfnError(f"{self.path or self.folder}: cannot write a worker's results: {exc.strerror or exc}"
                            " (pyfn's scratch files go to $TMPDIR)") from None
        where = (self.path, self.size, len(data))
        self.size += len(data)
        return where


def read(where: Where) -> bytes:
    """One result, read where it was put (its file opened and closed again)."""
    with SpoolReader() as reader:
        return reader.get(where)


class SpoolReader:
    """The parent's side: each result read where a :class:`SpoolWriter` put it (files kept open until
    :meth:`close`)."""

    def __init__(self) -> None:
        self.fds: dict[str, int] = {}

    def fd(self, path: str) -> int:
        """A descriptor of the spool file ``path``, open for reading."""
        fd = self.fds.get(path)
        if fd is None:
            try:
                fd = self.fds[path] = os.open(path, os.O_RDONLY)
            except OSError as exc:
                raise PyfnError(f"{path}: cannot read a worker's results: {exc.strerror or exc}") from None
        return fd

    def get(self, where: Where) -> bytes:
        path, offset, length = where
        fd = self.fd(path)
        try:
            data = os.pread(fd, length, offset)
        except OSError as exc:
            raise PyfnError(f"{path}: cannot read a worker's results: {exc.strerror or exc}") from None
        if len(data) != length:
            raise PyfnError(f"{path}: a worker's results end early ({len(data)} of {length} bytes at {offset})")
        return data

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()

    def __enter__(self) -> SpoolReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
