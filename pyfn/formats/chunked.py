"""Writing built splits in every format, in chunks, across processes.

A split's JSON lines (in output order) are cut between sentences into chunks
of about ``CHUNK_SETS`` annotation sets. A worker turns one chunk's lines into
sets and runs every writer on them, sentence numbers starting where the chunk
starts (:class:`~pyfn.formats.base.SplitView`), into a scratch folder
``.{split}.partNNNNN.tmp`` of the target; the parent appends the chunks'
files, in order, to the split's final files, hashing them as it goes; the
kernel copies the bytes (:func:`copy_range`). The JSONL file is the lines
themselves: the parent appends each chunk's from the spool file it sent them
through, once the chunk's other files are in, instead of a worker writing them
for the parent to copy.

The bytes are those of writing the whole split at once: every file but
SemEval XML and Parquet is a sequence of per-sentence lines or per-set
blocks; the parent rewrites the rows of the chunks' Parquet files in fixed
row groups (:func:`~pyfn.formats.registry.joiner`); a split written as
SemEval XML is kept in one chunk (:func:`~pyfn.formats.registry.cuttable`).
Only JSON lines cross to the workers and each holds one chunk's objects at
a time, so memory stays low.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import os
import shutil
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from multiprocessing.pool import Pool
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pyfn import fileio, spool
from pyfn.collector import no_cycle_collection
from pyfn.errors import PyfnError
from pyfn.fileio import atomic_writer, scratch_files
from pyfn.formats import jsonl
from pyfn.formats.base import SentenceTable, SplitView
from pyfn.formats.registry import FormatOptions, cuttable, joiner, loss_counts, write_split, written_splits
from pyfn.framenet.lexicon import ReleaseFrames
from pyfn.spool import SpoolReader, SpoolWriter, Where, spool_folder
from pyfn.workers import imap, job_count, process_pool

CHUNK_SETS = 4000
"""Annotation sets per chunk (a chunk ends at the first sentence boundary past it)."""

WHOLE_SPLIT_LOSSES = frozenset({"empty_split"})
"""Losses about a split's file as a whole: counted once, when every chunk reports them."""


@dataclass(frozen=True)
class SplitLines:
    """One split to write: its JSON lines (UTF-8) in output order and the index of each sentence's first line."""

    name: str
    lines: list[bytes]
    starts: Sequence[int]


@dataclass(frozen=True)
class _Chunk:
    split: str
    index: int
    first: int  # the sentence number of the chunk's first sentence
    lines: bytes | Where  # its lines joined by newlines, or where they are in the parent's spool file
    table: bool  # whether the sentence table goes back to the parent


@dataclass
class _Done:
    split: str
    index: int
    folder: Path
    names: list[str]
    losses: dict[str, int]
    table: SentenceTable | None


@dataclass
class Written:
    """What :func:`write_splits` wrote: file hashes, losses by split, sentence tables by split (none
    unless asked for)."""

    outputs: dict[str, str]
    losses: dict[str, dict[str, int]]
    tables: dict[str, SentenceTable]


def plan(n_lines: int, starts: Sequence[int], size: int) -> list[tuple[int, int, int]]:
    """``(begin, end, first sentence number)`` of each chunk: at least ``size`` lines
    (the last may have fewer), cut only at a sentence's first line; one chunk for no lines."""
    chunks = []
    begin = sentence = 0
    while True:
        k = sentence
        while k < len(starts) and starts[k] < begin + size:
            k += 1
        end = starts[k] if k < len(starts) else n_lines
        chunks.append((begin, end, sentence))
        if end >= n_lines:
            return chunks
        begin, sentence = end, k


FRAME_LAYER_WRITERS = frozenset({"jsonl", "semafor", "bios", "conllx", "conllu"})
"""Formats whose chunks are decoded with ``frame_layers_only`` (:func:`pyfn.formats.jsonl.loads`): their
writers read no PT or GF layer and no POS tag (JSONL writes the lines as they are). FN 1.5 train's
lines decode in 0.48 s of CPU instead of 0.74-0.86 s; ``tests/test_chunked.py`` holds their files to
those written from whole sets. What counts is the formats that write a chunk's split: SemEval XML
writes no train, so train is decoded so in a six-format run too (0.3 s of CPU less)."""

_WORKER: dict = {}


def _init_worker(target: Path, tos: tuple[str, ...], formats: FormatOptions, several: bool,
                 forked: bool = False) -> None:
    # The sets and what the writers make hold no reference cycles: the cyclic collector would
    # only scan the live objects again and again (a third of the time of writing).
    gc.disable()
    _WORKER.update(target=target, tos=tos, formats=formats, several=several, error=None)
    if forked and isinstance(formats.frames, ReleaseFrames):  # read now, while the parent builds the splits
        try:
            formats.frames.load_forked()
        except PyfnError as exc:  # raised with the first chunk: a failed initializer is started again and again
            _WORKER["error"] = exc


def _write_chunk(chunk: _Chunk) -> _Done:
    """Every format's files for one chunk, in its scratch folder (not fsynced: they are copied)."""
    if _WORKER["error"] is not None:
        raise _WORKER["error"]
    target: Path = _WORKER["target"]
    folder = target / f".{chunk.split}.part{chunk.index:05d}.tmp"
    tos: tuple[str, ...] = _WORKER["tos"]
    try:
        # the formats that write this split (SemEval XML writes no train) and no preprocessing: whole sets
        frame_layers_only = FRAME_LAYER_WRITERS.issuperset(t for t in tos if written_splits(t, (chunk.split,))) \
            and not chunk.table
        joined = chunk.lines if isinstance(chunk.lines, bytes) else spool.read(chunk.lines)
        lines = joined.split(b"\n") if joined else []
        view = SplitView.of([jsonl.loads(line, frame_layers_only=frame_layers_only) for line in lines],
                            chunk.first, in_order=True)
        with scratch_files():  # JSONL: the parent writes the lines (_Appender.add_lines)
            written, losses = write_split(folder, chunk.split, view, [t for t in tos if t != "jsonl"], _WORKER["formats"])
    except PyfnError as exc:  # name the final file, not the scratch one
        raise PyfnError(str(exc).replace(str(folder), str(target)), exit_code=exc.exit_code) from None
    names = [p.name for p in written]
    return _Done(chunk.split, chunk.index, folder, names, loss_counts(losses, several=_WORKER["several"]),
                 view.table if chunk.table else None)


def _sending_order(splits: Sequence[SplitLines], kept_whole: set[str]) -> list[SplitLines]:
    """The splits in the order their chunks go to the workers: those kept whole (SemEval XML), the
    largest first, then the others as given; the files do not depend on it. Sent last, FN 1.5's
    test (one chunk, 0.36 s) kept one worker busy after the other had finished."""
    return sorted(splits, key=lambda split: -len(split.lines) if split.name in kept_whole else 1)


SYNC_BEHIND = 32 << 20
"""Bytes copied into a final file after which a thread starts writing them to disk (one such thread
at a time per file) while the copying goes on: the fsync before the file is renamed then finds little
left to write (FN 1.5 FT+EX in six formats: train's files, the last written, took 0.21 s to fsync at
the end)."""


class _Appender:
    """The final files of the splits, each written atomically (all renamed once every chunk is in)."""

    def __init__(self, target: Path, stack: ExitStack) -> None:
        self.target = target
        self.stack = stack
        self.files: dict[str, tuple[IO[bytes], hashlib._Hash]] = {}
        self.joined: dict[str, Any] = {}
        self.unsynced: Counter[str] = Counter()
        self.syncing: dict[str, threading.Thread] = {}

    def sync_early(self, split: str) -> None:
        """Start writing the files of ``split`` to disk, in threads, once its last chunk is in."""
        for name in self.files:
            if name.startswith(f"{split}.") and name not in self.joined:
                self._sync(name)

    def _sync(self, name: str) -> None:
        """Start an fsync of ``name`` in a thread (when files are made durable here, and none is running)."""
        running = self.syncing.get(name)
        if not fileio.durable() or (running is not None and running.is_alive()):
            return
        handle = self.files[name][0]
        handle.flush()
        self.unsynced[name] = 0
        thread = self.syncing[name] = threading.Thread(target=_fsync_quietly, args=(handle.fileno(),), daemon=True)
        thread.start()
        self.stack.callback(thread.join)  # before the file is closed: the stack closes it later

    def _open(self, name: str) -> None:
        if name not in self.files:
            handle = self.stack.enter_context(atomic_writer(self.target / name, "wb"))
            self.files[name] = (handle, hashlib.sha256())
            join = joiner(name)
            if join is not None:  # closed (its footer written) before the file is renamed
                self.joined[name] = self.stack.enter_context(join(handle, self.files[name][1]))

    def _write(self, name: str, block: bytes) -> None:
        handle, digest = self.files[name]
        digest.update(block)
        handle.write(block)
        self.unsynced[name] += len(block)
        if self.unsynced[name] >= SYNC_BEHIND:
            self._sync(name)

    def append(self, name: str, part: Path) -> None:
        """Copy the chunk's file ``part`` to the end of ``name`` (a chunk without the file adds nothing to it)."""
        self._open(name)
        if name in self.joined:
            self.joined[name].add_part(part)
            return
        with open(part, "rb") as source:
            self._copy(name, str(part), source.fileno(), 0, os.fstat(source.fileno()).st_size)

    def _copy(self, name: str, source: str, fd: int, offset: int, length: int) -> None:
        """Hash ``length`` bytes of ``source`` (open as ``fd``) from ``offset`` and append them to ``name``."""
        handle, digest = self.files[name]
        handle.flush()  # the copy goes to the file's position, past what was written before
        out = handle.fileno()
        for at in range(offset, offset + length, 1 << 20):
            want = min(1 << 20, offset + length - at)
            block = os.pread(fd, want, at)
            if len(block) != want:
                raise PyfnError(f"{source}: ends early ({offset + length - at - len(block)} of {length} bytes "
                                f"from {offset} missing)")
            digest.update(block)
            copy_range(fd, out, at, block)
        self.unsynced[name] += length
        if self.unsynced[name] >= SYNC_BEHIND:
            self._sync(name)

    def add_lines(self, name: str, joined: bytes) -> None:
        """Write lines joined by newlines (UTF-8) at the end of ``name``, each ending in a newline (the
        file is made, even for no line)."""
        self._open(name)
        if joined:
            self._write(name, joined)
            self._write(name, b"\n")

    def add_spooled(self, name: str, reader: SpoolReader, where: Where) -> None:
        """:meth:`add_lines` for lines in a spool file."""
        self._open(name)
        if where[2]:
            self._copy(name, where[0], reader.fd(where[0]), where[1], where[2])
            self._write(name, b"\n")


def copy_range(source: int, out: int, offset: int, block: bytes) -> None:
    """Append ``block``, the bytes of ``source`` at ``offset``, to ``out`` at its position: copied by the
    kernel (``os.copy_file_range``: the bytes do not go through this process again; FN 1.5 FT+EX in six
    formats: 0.2 s of CPU less than writing them), or written where the kernel cannot copy them."""
    global _KERNEL_COPY  # noqa: PLW0603 - once refused, not asked again
    done = 0
    try:
        while _KERNEL_COPY and done < len(block):
            n = os.copy_file_range(source, out, len(block) - done, offset + done)
            if n <= 0:
                break
            done += n
    except OSError as exc:
        if exc.errno not in _NO_KERNEL_COPY:
            raise
        _KERNEL_COPY = False
    view = memoryview(block)[done:]
    while view:
        view = view[os.write(out, view):]


_KERNEL_COPY = hasattr(os, "copy_file_range")
_NO_KERNEL_COPY = frozenset({errno.ENOSYS, errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM})
"""What ``copy_file_range`` fails with where it cannot copy between these files (old kernel, other file systems)."""


def _fsync_quietly(fd: int) -> None:
    """``os.fsync(fd)``; an error is left to the fsync that ends the file (:func:`~pyfn.fileio.atomic_writer`)."""
    try:
        os.fsync(fd)
    except OSError:
        pass


@contextmanager
def writer_pool(target: Path, tos: Sequence[str], formats: FormatOptions, jobs: int = 0,
                several: bool | None = None) -> Iterator[Pool | None]:
    """The worker processes of :func:`write_splits` (None: one process), to start *before* the data to
    write is built: a worker forked from a parent that holds the data keeps every page the parent frees
    or changes afterwards (copy-on-write), which doubles the memory of the whole."""
    jobs = job_count(jobs, CHUNK_SETS)
    if jobs == 1:
        yield None
        return
    several = len(tos) > 1 if several is None else several
    with process_pool(jobs, _init_worker, (Path(target), tuple(tos), formats, several, True)) as pool:
        yield pool


def write_splits(
    target: Path,
    splits: Iterable[SplitLines],
    tos: Sequence[str],
    formats: FormatOptions,
    *,
    jobs: int = 0,
    chunk_sets: int = CHUNK_SETS,
    progress: Callable = lambda items, total: items,
    several: bool | None = None,
    pool: Pool | None = None,
    tables: bool = True,
) -> Written:
    """Write every split in every format of ``tos`` into ``target``; the lines of
    each split are released as they are sent to a worker (``jobs`` processes,
    0: one per core; or the workers of ``pool``, from :func:`writer_pool` with the
    same target, formats, options and ``several``). Losses are prefixed by format when
    there are several (``several``: when the run writes other formats too; default:
    when ``tos`` has more than one). The splits' sentence tables come back only with
    ``tables`` (preprocessing needs them; FN 1.5 FT+EX's train table costs the workers
    and this process about 0.2 s to send and join)."""
    target = Path(target)
    tos = tuple(tos)
    several = len(tos) > 1 if several is None else several
    splits = list(splits)
    kept_whole = {s.name for s in splits if not all(cuttable(to, s.name) for to in tos)}
    plans = {s.name: plan(len(s.lines), s.starts, len(s.lines) or 1 if s.name in kept_whole else chunk_sets)
             for s in splits}
    total = sum(len(p) for p in plans.values())

    # the lines of the chunks sent, for the JSONL files: with worker processes, where they are in the
    # spool file (the chunks run ahead of the results: kept here, they would all be in memory at once)
    sent: deque[bytes | Where] = deque()

    def chunks(spool: SpoolWriter | None) -> Iterator[_Chunk]:
        """The chunks in sending order, their lines joined, or put in ``spool`` for worker processes."""
        for split in _sending_order(splits, kept_whole):
            lines = split.lines[::-1]  # popped from the end: each line is freed once in its chunk
            split.lines.clear()
            for index, (begin, end, first) in enumerate(plans[split.name]):
                joined: bytes | Where = b"\n".join([lines.pop() for _ in range(end - begin)])
                if spool is not None:
                    joined = spool.put(joined)
                if "jsonl" in tos:
                    sent.append(joined)
                yield _Chunk(split.name, index, first, joined, tables)

    merged: dict[str, Counter] = {s.name: Counter() for s in splits}
    whole: dict[str, Counter] = {s.name: Counter() for s in splits}
    parts: dict[str, list[SentenceTable]] = {s.name: [] for s in splits}
    jobs = job_count(jobs, total)
    try:
        with ExitStack() as stack:
            stack.enter_context(no_cycle_collection())  # as in the workers (_init_worker); restored at the end
            appender = _Appender(target, stack)
            reader = stack.enter_context(SpoolReader())  # JSONL lines sent through a spool file
            if pool is None and jobs > 1:
                pool = stack.enter_context(process_pool(jobs, _init_worker, (target, tos, formats, several, True)))
            if pool is None or total == 1:
                _init_worker(target, tos, formats, several)
                done: Iterable[_Done] = map(_write_chunk, chunks(None))
            else:  # the lines go to the workers through a spool file (pyfn.spool says why)
                spool = SpoolWriter(stack.enter_context(spool_folder()))
                # closed here, on a failure too: its tasks are drained before the pool ends (workers.imap)
                done = stack.enter_context(closing(imap(pool, _write_chunk, chunks(spool))))
            for result in progress(done, total):
                if "jsonl" in tos:  # the results come in the order the chunks were sent
                    joined = sent.popleft()
                    if isinstance(joined, bytes):
                        appender.add_lines(f"{result.split}.jsonl", joined)
                    else:
                        appender.add_spooled(f"{result.split}.jsonl", reader, joined)
                for name in result.names:
                    appender.append(name, result.folder / name)
                if result.index == len(plans[result.split]) - 1:
                    appender.sync_early(result.split)
                shutil.rmtree(result.folder, ignore_errors=True)  # none when no file was written
                for key, n in result.losses.items():
                    (whole if key.rsplit(":", 1)[-1] in WHOLE_SPLIT_LOSSES else merged)[result.split][key] += n
                if result.table is not None:
                    parts[result.split].append(result.table)
            hashes = {name: digest for name, (_, digest) in appender.files.items()}
        # every final file is complete and renamed
    finally:
        for split in splits:
            for folder in target.glob(f".{split.name}.part?????.tmp"):
                shutil.rmtree(folder, ignore_errors=True)
    losses = {}
    for name, counts in merged.items():
        counts.update({key: 1 for key, n in whole[name].items() if n == len(plans[name])})
        losses[name] = dict(sorted(counts.items()))
    return Written(
        outputs={name: digest.hexdigest() for name, digest in sorted(hashes.items())},
        losses=losses,
        tables={name: SentenceTable.joined(part) for name, part in parts.items()} if tables else {},
    )
