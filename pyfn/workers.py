"""Worker processes: forked where the platform can (workers inherit what the parent loaded), spawned elsewhere."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.pool import Pool


def job_count(requested: int, tasks: int, per_job: int = 1) -> int:
    """Processes to use: ``requested`` (0: one per core), at most one per ``per_job`` tasks, at least 1."""
    jobs = requested or os.cpu_count() or 1
    return max(1, min(jobs, tasks // per_job))


def process_pool(jobs: int, initializer: Callable[..., None], initargs: tuple) -> Pool:
    """A pool of ``jobs`` worker processes, each set up by ``initializer(*initargs)``."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method).Pool(jobs, initializer=initializer, initargs=initargs)
