#!/usr/bin/env python3
"""FN 1.5 FT+EX as FrameNet-layout split folders (`--to fnxml`), cold and warm, against the fast parse floor.

One round: (1) the fast floor (benchmarks/_common.py: `fast_floor`); (2)
`pyfn convert --to fnxml --with-exemplars --exclude-frames 398` (train, dev
and test folders: about 12,000 files) with an empty parsed-release cache
(cold), then with the cache filled (warm); with `--pythonpath DIR`, (3) the
same for the pyfn checked out in DIR, in the same round (a "before"
figure). Reports seconds, ratios to the floor, peak memory (PSS of the
process tree, from a second run of each) and the machine's load. No target:
the issue's targets are for the six parser formats; this one tells a
researcher what a FrameNet-layout copy of a split costs.

Usage: python benchmarks/bench_fnxml.py [--repeat R] [--pythonpath DIR]
"""

from __future__ import annotations

import argparse
import os

from _common import FN15, cold_and_warm, conditions, fast_floor

ARGS = ["convert", "--source", str(FN15), "--to", "fnxml", "--with-exemplars", "--exclude-frames", "398"]


def _measured(pythonpath: str | None) -> tuple[str, float, float]:
    saved = os.environ.get("PYTHONPATH")
    if pythonpath is not None:
        os.environ["PYTHONPATH"] = pythonpath
    try:
        (cold, cold_mb), (warm, warm_mb) = cold_and_warm(ARGS)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return f"cold {cold:.1f} s (peak {cold_mb} MB), warm {warm:.1f} s (peak {warm_mb} MB)", cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds (default 1)")
    parser.add_argument("--pythonpath", metavar="DIR", help="also time the pyfn checked out in DIR, same round")
    args = parser.parse_args()
    for i in range(args.repeat):
        before = conditions()
        floor, sentences, how = fast_floor(FN15, ("fulltext", "lu"))
        text, cold, warm = _measured(None)
        line = (f"round {i + 1} ({before}): fast floor {floor:.1f} s ({how}, {sentences:,} sentences); pyfn FT+EX "
                f"to fnxml {text}: {cold / floor:.2f}x and {warm / floor:.2f}x the floor")
        if args.pythonpath:
            text, cold, warm = _measured(args.pythonpath)
            line += f"; {args.pythonpath}: {text}: {cold / floor:.2f}x and {warm / floor:.2f}x"
        print(f"{line}; after: {conditions()}")


if __name__ == "__main__":
    main()
