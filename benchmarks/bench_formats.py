#!/usr/bin/env python3
"""Writing every format for FN 1.5 FT+EX vs a bare lxml iterparse of the same files.

One run of this script: (1) bare single-process iterparse of fulltext/ and lu/;
(2) `pyfn convert --to jsonl semafor bios conllx conllu semeval --with-exemplars
--exclude-frames 398`: the splits are built once (train with exemplars, dev,
test) and written in every format. Reports the ratio of (2) to (1), and the peak memory (PSS) of
(2)'s process tree measured in a second run of (2) (sampling memory costs CPU). Targets: ratio
<= 2.5, peak RSS <= 1 GB.

Usage: python benchmarks/bench_formats.py
"""

from __future__ import annotations

import sys
import tempfile

from _common import FN15, bare_iterparse, run_measured

FORMATS = ("jsonl", "semafor", "bios", "conllx", "conllu", "semeval")


def main() -> None:
    bare, elements = bare_iterparse(FN15, ("fulltext", "lu"))
    with tempfile.TemporaryDirectory() as target:
        wall, rss = run_measured([
            sys.executable, "-m", "pyfn", "convert", "--source", str(FN15), "--target", target,
            "--to", *FORMATS, "--with-exemplars", "--exclude-frames", "398", "--quiet",
        ])
    print(
        f"bare iterparse {bare:.1f} s ({elements:,} elements, 1 process); pyfn build + write "
        f"{len(FORMATS)} formats (FT+EX, dev, test) {wall:.1f} s; ratio {wall / bare:.2f} (target <= 2.5); "
        f"peak memory {rss} MB (PSS of the process tree) (target <= 1024)"
    )


if __name__ == "__main__":
    main()
