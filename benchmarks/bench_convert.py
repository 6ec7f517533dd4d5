#!/usr/bin/env python3
"""Full FN 1.5 FT+EX conversion (`--splits train --with-exemplars`) vs a bare lxml iterparse.

Both run in the same invocation on the same machine; the figure that matters is
the ratio (pyfn wall time / bare single-process iterparse of the same fulltext
and lu files) and the peak RSS of pyfn's whole process tree. Targets: ratio
<= 1.5, peak RSS <= 1 GB.

Usage: python benchmarks/bench_convert.py [--jobs N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from _common import FN15, bare_iterparse, run_measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    for i in range(args.repeat):
        bare, elements = bare_iterparse(FN15, ("fulltext", "lu"))
        with tempfile.TemporaryDirectory() as target:
            cmd = [sys.executable, "-m", "pyfn", "convert", "--source", str(FN15), "--target", target,
                   "--splits", "train", "--with-exemplars", "--exclude-frames", "398", "--quiet",
                   "--jobs", str(args.jobs)]
            wall, rss = run_measured(cmd)
        print(
            f"run {i + 1}: bare iterparse {bare:.1f} s ({elements:,} elements, 1 process); "
            f"pyfn convert FT+EX {wall:.1f} s on {os.cpu_count()} cores; "
            f"ratio {wall / bare:.2f} (target <= 1.5); peak memory {rss} MB (PSS of the process tree) (target <= 1024)"
        )


if __name__ == "__main__":
    main()
