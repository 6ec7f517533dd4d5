#!/usr/bin/env python3
"""Writing Parquet for FN 1.5 FT+EX beside JSONL, in the same run.

Runs `pyfn convert --with-exemplars --exclude-frames 398` (train with exemplars, dev, test) once
`--to jsonl` and once `--to parquet` (the split files, frames.parquet and lexicon.parquet), each
from the release, and reports the wall time, the CPU time of the process tree (less sensitive to
other work on the machine) and the size of every file of each. Both builds read
the same XML: the difference is the cost of writing Parquet.

Usage: python benchmarks/bench_parquet.py [--jobs N]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import FN15


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def convert(target: Path, fmt: str, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds of one `pyfn convert --to FMT` of FN 1.5 FT+EX into ``target``."""
    start, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([
        sys.executable, "-m", "pyfn", "convert", "--source", str(FN15), "--target", str(target), "--to", fmt,
        "--with-exemplars", "--exclude-frames", "398", "--jobs", str(jobs), "--quiet",
    ], check=True)
    return time.perf_counter() - start, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=0, help="pyfn convert --jobs (default: one per core)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ("jsonl", "parquet"):
            target = Path(folder) / fmt
            wall, cpu = convert(target, fmt, args.jobs)
            sizes = {p.name: p.stat().st_size for p in sorted(target.iterdir()) if p.suffix == f".{fmt}"}
            listed = ", ".join(f"{name} {size / 1e6:.1f} MB" for name, size in sizes.items())
            print(f"--to {fmt}: {wall:.1f} s wall, {cpu:.1f} s CPU; {sum(sizes.values()) / 1e6:.1f} MB ({listed})")


if __name__ == "__main__":
    main()
