"""Worker processes: forked where the platform can (workers inherit what the parent loaded), spawned elsewhere.

Workers ignore Ctrl-C: the terminal sends it to every process of the group,
and only the parent acts on it (it stops, terminates the workers and removes
what the run had staged), so the user sees one line, not a traceback per worker.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice, takewhile
from typing import Any
from contextlib import contextmanager
from functools import partial
from multiprocessing.pool import Pool


def job_count(requested: int, tasks: int, per_job: int = 1) -> int:
    """Processes to use: ``requested`` (0: one per core), at most one per ``per_job`` tasks, at least 1;
    always 1 inside a worker process (the parallel drawn splits of a study: the cores are taken)."""
    if multiprocessing.current_process().daemon:
        return 1
    jobs = requested or os.cpu_count() or 1
    return max(1, min(jobs, tasks // per_job))


def chunk_size(tasks: int, jobs: int) -> int:
    """Tasks per message to a worker process: about ``tasks / (8 * jobs)``, 1 to 64. Every message
    costs the parent about a millisecond of CPU, taken from the cores the workers use (FN 1.5 FT+EX
    cold: its 11,907 files parsed in 1,489 messages of 8 took 3.6 s of the parent's CPU and 9.35 s;
    in 186 of 64, 2.35 s and 8.4 s), and the last message of up to 64 small tasks keeps one worker
    busy while the other has finished."""
    return max(1, min(64, tasks // (8 * jobs)))


_M_MXFAST = 1
"""glibc's ``mallopt`` parameter: the largest request served from a fastbin (0: none)."""


def without_fastbins() -> bool:
    """Turn glibc's fastbins off in this process (``mallopt(M_MXFAST, 0)``): freed small blocks are
    merged at once instead of kept for reuse and merged in bulk later. For a process that builds and
    frees whole XML trees: a parse worker of FN 1.5 FT+EX takes about 7 % less CPU (13.5-13.8 s
    against 12.65-12.8 s in one process). False where there is no glibc ``mallopt`` (nothing changed)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MXFAST, 0))


_STOP: list[Any] = [None]
"""In a worker process: its pool's ``stop_tasks`` event (:func:`process_pool`)."""


def _start_worker(initializer: Callable[..., None], initargs: tuple, stop: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP[0] = stop
    initializer(*initargs)


def _unless_stopped(func: Callable[[Any], Any], chunk: list[Any]) -> list[Any] | None:
    """``func`` of each item of ``chunk`` in a worker, or None once its pool's tasks were stopped
    (:func:`imap`)."""
    return None if _STOP[0].is_set() else [func(item) for item in chunk]


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def process_pool(jobs: int, initializer: Callable[..., None], initargs: tuple) -> Pool:
    """A pool of ``jobs`` worker processes, each set up by ``initializer(*initargs)`` and deaf to Ctrl-C;
    its ``stop_tasks`` event makes the tasks :func:`imap` handed over return at once."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    stop = context.Event()
    main = threading.current_thread() is threading.main_thread()  # only the main thread may set handlers
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None  # forked workers start deaf
    try:
        pool = context.Pool(jobs, initializer=_start_worker, initargs=(initializer, initargs, stop))
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    pool.stop_tasks = stop  # type: ignore[attr-defined]
    return pool


DRAIN_SECONDS = 5
"""How long :func:`imap` waits for the tasks in hand when its reader stops: long enough for pyfn's
parse and write tasks (a second or two), short enough for Ctrl-C; a longer task is cut short by
``terminate`` as before (the hang needs it to start sending in the moment between the two)."""


def imap(pool: Pool, func: Callable[[Any], Any], items: Iterable[Any], chunksize: int = 1) -> Iterator[Any]:
    """``pool.imap(func, items, chunksize)`` of a :func:`process_pool` that can be left early (an error,
    Ctrl-C): once the reader stops, no more items are handed over, the tasks already handed return at
    once unless begun (``stop_tasks``), and their results are read (and dropped) before the pool may
    be terminated.

    ``Pool.terminate`` while a worker is still on a task can hang for ever: the pool's result reader
    stops when told to terminate, the worker then sends a result larger than the pipe holds and
    blocks holding the queue's write lock, and ``terminate`` waits for that lock to send its own
    sentinel (seen in a ``--strict`` build that failed on its first file)."""
    stop = pool.stop_tasks  # type: ignore[attr-defined]
    # chunked here, not by the pool: its chunked imap is a generator without next(timeout)
    results = pool.imap(partial(_unless_stopped, func), takewhile(lambda _: not stop.is_set(), _chunks(items, chunksize)))
    finished = False
    try:
        for chunk in results:
            yield from chunk
        finished = True
    finally:
        if not finished:
            stop.set()
            deadline = time.monotonic() + DRAIN_SECONDS
            while (left := deadline - time.monotonic()) > 0:
                try:
                    results.next(timeout=left)
                except (StopIteration, multiprocessing.TimeoutError):
                    break
                except Exception:  # noqa: BLE001, S112 - a task's own error: its reader has stopped already
                    continue


@contextmanager
def mapper(jobs: int, initializer: Callable[..., None], initargs: tuple,
           chunksize: int = 1) -> Iterator[Callable[..., Iterator]]:
    """``map`` in ``jobs`` worker processes (set up by ``initializer(*initargs)``), results in order; in
    this process for 1 (set up the same way)."""
    if jobs == 1:
        initializer(*initargs)
        yield lambda func, items: map(func, items)
        return
    with process_pool(jobs, initializer, initargs) as pool:
        yield lambda func, items: imap(pool, func, items, chunksize=chunksize)
