#!/usr/bin/env python3
"""`pyfn.load` of FN 1.5 test vs `pyfn convert` of the same split to JSONL.

Both run as fresh processes in the same invocation (frame 398 excluded, the
standard split, default --jobs): the figure is the ratio of `pyfn.load`'s wall
time (the sets as model objects in memory) to the CLI's (the sets written to
test.jsonl), best of R runs each, alternated. Target: ratio <= 1.0.

Usage: python benchmarks/bench_api.py [--repeat R]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

from _common import FN15

LOAD = ("import pyfn; s = pyfn.load({src!r}, 'test', exclude_frames=[398]); "
        "assert len(s) == 4148, len(s)")


def _seconds(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load_cmd = [sys.executable, "-c", LOAD.format(src=str(FN15))]
    loads, converts = [], []
    for _ in range(args.repeat):
        loads.append(_seconds(load_cmd))
        with tempfile.TemporaryDirectory() as target:
            converts.append(_seconds([sys.executable, "-m", "pyfn", "convert", "--source", str(FN15), "--target",
                                      target, "--splits", "test", "--exclude-frames", "398", "--quiet"]))
    load, convert = min(loads), min(converts)
    print(f"pyfn.load FN 1.5 test:            {load:6.2f} s (best of {args.repeat})")
    print(f"pyfn convert --splits test jsonl: {convert:6.2f} s (best of {args.repeat})")
    print(f"ratio load / convert:             {load / convert:6.2f}")


if __name__ == "__main__":
    main()
