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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


def _start_worker(initializer: Callable[..., None], initargs: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer(*initargs)


def process_pool(jobs: int, initializer: Callable[..., None], initargs: tuple) -> Pool:
    """A pool of ``jobs`` worker processes, each set up by ``initializer(*initargs)`` and deaf to Ctrl-C."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    main = threading.current_thread() is threading.main_thread()  # only the main thread may set handlers
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None  # forked workers start deaf
    try:
        return multiprocessing.get_context(method).Pool(jobs, initializer=_start_worker,
                                                        initargs=(initializer, initargs))
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


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
        yield lambda func, items: pool.imap(func, items, chunksize=chunksize)
