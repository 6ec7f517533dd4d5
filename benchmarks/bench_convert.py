#!/usr/bin/env python3
"""FN 1.5 FT+EX to JSONL (`--splits train --with-exemplars`), cold and warm, against the fast parse floor.

One round of this script, on the same machine: (1) the fast floor: one
process parsing every fulltext/ and lu/ file of the zip, read as pyfn reads
it, the fastest of a tag-filtered `lxml.etree.iterparse` and whole-file
`lxml.etree.fromstring` parses (benchmarks/_common.py: `fast_floor`); (2) `pyfn
convert` with an empty parsed-release cache (cold: the XML is parsed on every
core and the cache written); (3) the same with the cache it filled (warm).
Reports the seconds of each, the ratios to the floor measured in the same
round (the figures that matter on a shared machine) and the peak memory (PSS
of the process tree, from a second run of each so that sampling does not slow
the timed one), with the machine's load. After the last round, every round's
times against the fastest floor of the whole run (the strictest reading:
the floor moves with the machine). Targets: cold <= 1.0x the floor, warm
<= 0.25x, peak memory <= 1 GB.

Usage: python benchmarks/bench_convert.py [--jobs N] [--repeat R]
"""

from __future__ import annotations

import argparse

from _common import FN15, against_fastest_floor, cold_and_warm, conditions, fast_floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=0, help="pyfn's --jobs (default 0: one per core)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    args = parser.parse_args()
    floors, colds, warms = [], [], []
    for i in range(args.repeat):
        before = conditions()
        floor, sentences, how = fast_floor(FN15, ("fulltext", "lu"))
        (cold, cold_mb), (warm, warm_mb) = cold_and_warm([
            "convert", "--source", str(FN15), "--splits", "train", "--with-exemplars", "--exclude-frames", "398",
            "--jobs", str(args.jobs)])
        print(
            f"round {i + 1} ({before}): fast floor {floor:.2f} s ({how}, {sentences:,} sentences, 1 process); "
            f"pyfn FT+EX to JSONL cold {cold:.2f} s = {cold / floor:.3f}x the floor (target <= 1.0), peak {cold_mb} MB; "
            f"warm {warm:.2f} s = {warm / floor:.3f}x (target <= 0.25), peak {warm_mb} MB; after: {conditions()}"
        )
        floors.append(floor)
        colds.append(cold)
        warms.append(warm)
    print(against_fastest_floor(floors, colds, warms))


if __name__ == "__main__":
    main()
