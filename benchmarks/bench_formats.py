#!/usr/bin/env python3
"""Writing every format for FN 1.5 FT+EX vs a bare lxml iterparse of the same files.

One run of this script: (1) bare single-process iterparse of fulltext/ and lu/;
(2) in a child process, pyfn builds the splits once (train with exemplars,
dev, test; frame 398 excluded) and writes jsonl, semafor, bios, conllx, conllu
and semeval from them. Reports the ratio of (2) to (1) and the peak RSS of (2)'s
process tree. Targets: ratio <= 2.5, peak RSS <= 1 GB.

Usage: python benchmarks/bench_formats.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _common import FN15, bare_iterparse, run_measured

FORMATS = ("jsonl", "semafor", "bios", "conllx", "conllu", "semeval")


def write_all(target: Path) -> None:
    """Build FN 1.5 FT+EX once and write every format (the measured child process)."""
    from pyfn.convert import read_frames
    from pyfn.formats import jsonl
    from pyfn.formats.base import Losses
    from pyfn.formats.registry import WRITERS, FormatOptions
    from pyfn.framenet import open_release
    from pyfn.splits.builder import BuildOptions, build_splits
    from pyfn.splits.definitions import standard_split

    release = open_release(FN15)
    result = build_splits(
        release, standard_split("1.5"), BuildOptions(with_exemplars=True, exclude_frames=frozenset({398}))
    )
    options = FormatOptions(frames=read_frames(release))
    for split, data in result.splits.items():
        sets = [jsonl.loads(line) for line in data.lines]
        for fmt in FORMATS:
            started = time.perf_counter()
            WRITERS[fmt](target / fmt, split, sets, options, Losses())
            print(f"  {split} {fmt}: {time.perf_counter() - started:.1f} s", file=sys.stderr)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        write_all(Path(sys.argv[2]))
        return
    bare, elements = bare_iterparse(FN15, ("fulltext", "lu"))
    with tempfile.TemporaryDirectory() as target:
        for fmt in FORMATS:
            (Path(target) / fmt).mkdir()
        wall, rss = run_measured([sys.executable, __file__, "--child", target])
    print(
        f"bare iterparse {bare:.1f} s ({elements:,} elements, 1 process); pyfn build + write "
        f"{len(FORMATS)} formats (FT+EX, dev, test) {wall:.1f} s; ratio {wall / bare:.2f} (target <= 2.5); "
        f"peak RSS {rss} MB (target <= 1024)"
    )


if __name__ == "__main__":
    main()
