#!/usr/bin/env python3
"""All six formats for FN 1.5 FT+EX (with dev and test), cold and warm, against the fast parse floor.

One round: (1) the fast floor (benchmarks/_common.py: `fast_floor`: one
process, the fastest of a tag-filtered iterparse and whole-file parses of
every fulltext/ and lu/ file, read as pyfn reads it); (2) `pyfn
convert --to jsonl semafor bios conllx conllu semeval --with-exemplars
--exclude-frames 398` with an empty parsed-release cache (cold); (3) the
same with the cache filled (warm). Reports seconds, ratios to the floor of
the same round, peak memory (PSS of the process tree, from a second run of
each) and the machine's load; after the last round, every round's times
against the fastest floor of the whole run. Targets: cold <= 1.5x the floor,
warm <= 0.6x, peak memory <= 1 GB.

Usage: python benchmarks/bench_formats.py [--repeat R]
"""

from __future__ import annotations

import argparse

from _common import FN15, against_fastest_floor, cold_and_warm, conditions, fast_floor

FORMATS = ("jsonl", "semafor", "bios", "conllx", "conllu", "semeval")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    args = parser.parse_args()
    floors, colds, warms = [], [], []
    for i in range(args.repeat):
        before = conditions()
        floor, sentences, how = fast_floor(FN15, ("fulltext", "lu"))
        (cold, cold_mb), (warm, warm_mb) = cold_and_warm([
            "convert", "--source", str(FN15), "--to", *FORMATS, "--with-exemplars", "--exclude-frames", "398"])
        print(
            f"round {i + 1} ({before}): fast floor {floor:.2f} s ({how}, {sentences:,} sentences, 1 process); "
            f"pyfn build + {len(FORMATS)} formats (FT+EX, dev, test) cold {cold:.2f} s = {cold / floor:.3f}x the floor "
            f"(target <= 1.5), peak {cold_mb} MB; warm {warm:.2f} s = {warm / floor:.3f}x (target <= 0.6), "
            f"peak {warm_mb} MB; after: {conditions()}"
        )
        floors.append(floor)
        colds.append(cold)
        warms.append(warm)
    print(against_fastest_floor(floors, colds, warms))


if __name__ == "__main__":
    main()
