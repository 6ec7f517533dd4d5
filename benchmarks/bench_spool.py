#!/usr/bin/env python3
"""Worker results through a pool's pipes against through spool files (pyfn/spool.py), same run.

Two forked workers make 11,907 results of 18 kB each (FN 1.5 FT+EX's parsed
records: 11,907 files, 214 MB), handed over in chunks of 64 as pyfn's parse
pool does; the parent receives each (1) as the pool's own result, pickled
through its pipes, (2) as a place in the worker's spool file, read with one
``pread`` (:mod:`pyfn.spool`). Reports wall time and the parent's CPU (all its
threads: the pool's result thread unpickles) for each, alternating which goes
first, and the spool's figures as a ratio of the pipes' (the baseline).

Usage: python benchmarks/bench_spool.py [--repeat R] [--results N] [--size BYTES]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time

from pyfn.spool import SpoolReader, SpoolWriter, spool_folder

_WORKER: dict = {}


def _result(i: int, size: int) -> bytes:
    return bytes([i % 251]) * size


def _init(folder, size: int) -> None:
    _WORKER.update(spool=SpoolWriter(folder) if folder is not None else None, size=size)


def _piped(i: int) -> bytes:
    return _result(i, _WORKER["size"])


def _spooled(i: int) -> tuple[str, int, int]:
    return _WORKER["spool"].put(_result(i, _WORKER["size"]))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run(how: str, results: int, size: int) -> tuple[float, float]:
    context = multiprocessing.get_context("fork")
    with spool_folder() as folder, SpoolReader() as reader:
        with context.Pool(2, _init, (folder if how == "spool" else None, size)) as pool:
            start, cpu, total = time.perf_counter(), _cpu(), 0
            if how == "spool":
                for where in pool.imap(_spooled, range(results), chunksize=64):
                    total += len(reader.get(where))
            else:
                for data in pool.imap(_piped, range(results), chunksize=64):
                    total += len(data)
            wall, used = time.perf_counter() - start, _cpu() - cpu
    assert total == results * size
    return wall, used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--results", type=int, default=11907, help="results (default 11,907)")
    parser.add_argument("--size", type=int, default=18000, help="bytes per result (default 18,000)")
    args = parser.parse_args()
    for i in range(args.repeat):
        order = ("pipes", "spool") if i % 2 == 0 else ("spool", "pipes")
        figures = {how: _run(how, args.results, args.size) for how in order}
        (pipe_wall, pipe_cpu), (spool_wall, spool_cpu) = figures["pipes"], figures["spool"]
        print(f"round {i + 1} ({' then '.join(order)}): {args.results:,} results of {args.size:,} bytes; "
              f"pipes {pipe_wall:.3f} s wall, {pipe_cpu:.3f} s of the parent's CPU; spool {spool_wall:.3f} s wall "
              f"({spool_wall / pipe_wall:.3f}x), {spool_cpu:.3f} s CPU ({spool_cpu / pipe_cpu:.3f}x)")


if __name__ == "__main__":
    main()
