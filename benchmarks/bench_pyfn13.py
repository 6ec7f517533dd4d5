#!/usr/bin/env python3
"""SEMAFOR files for FN 1.5 FT+EX with dev and test: pyfn against pyfn 1.3.13, in the same run.

pyfn 1.3.13 is the last release of the original tool (PyPI). Install it in a
virtual environment of its own, so that it does not replace this pyfn:

    python -m venv /tmp/pyfn13 && /tmp/pyfn13/bin/pip install pyfn==1.3.13

It reads FrameNet from disk, laid out in split folders: SPLITS/train/fulltext,
SPLITS/train/lu, SPLITS/dev/fulltext, SPLITS/test/fulltext and SPLITS/frame
(its README's "fndata-1.5-with-dev" layout). This script extracts the zip
once into a temporary folder and builds that layout from symbolic links (the
standard split's documents, resources/splits), then runs, alternately
(paired A/B, --rounds times):

- pyfn 1.3.13: `pyfn convert --from fnxml --to semafor --splits train
  --with_exemplars --output_sentences --excluded_frames 398` on the layout;
- pyfn: `pyfn convert --to semafor --with-exemplars --exclude-frames 398` on
  the extracted release, cold (empty parsed-release cache) and warm.

Reports wall seconds, CPU seconds (user + system of the process tree) and peak
memory (PSS of the process tree) of each, and the ratios. Targets: pyfn cold
>= 10x faster than pyfn 1.3.13 in the same run, peak memory <= 0.5 GB.

Usage: python benchmarks/bench_pyfn13.py [--pyfn13 /tmp/pyfn13/bin/pyfn] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from _common import FN15, conditions, run_measured

from pyfn.splits.definitions import standard_split


def _layout(release: Path, splits: Path) -> None:
    """pyfn 1.3's split folders, as symbolic links into the extracted ``release``."""
    standard = standard_split("1.5")
    names = {"dev": set(standard.dev), "test": set(standard.test)}
    for split in ("train", "dev", "test"):
        (splits / split / "fulltext").mkdir(parents=True)
    for doc in sorted((release / "fulltext").glob("*.xml")):
        split = next((s for s in ("dev", "test") if doc.name in names[s]), "train")
        (splits / split / "fulltext" / doc.name).symlink_to(doc)
    (splits / "train" / "lu").symlink_to(release / "lu")
    (splits / "frame").symlink_to(release / "frame")


def _cpu(cmd: list[str], env: dict[str, str] | None = None, before=lambda: None) -> float:
    """CPU seconds (user + system) of ``cmd`` and its children."""
    before()
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyfn13", default="/tmp/pyfn13/bin/pyfn", help="pyfn 1.3.13's command (default "
                        "/tmp/pyfn13/bin/pyfn)")
    parser.add_argument("--rounds", type=int, default=1, help="paired rounds (default 1)")
    args = parser.parse_args()
    if not Path(args.pyfn13).is_file():
        raise SystemExit(f"{args.pyfn13}: no pyfn 1.3.13 there; see this script's docstring to install it")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with zipfile.ZipFile(FN15) as archive:
            archive.extractall(root / "fn")
        release = next(p.parent for p in (root / "fn").rglob("fulltext"))
        _layout(release, root / "splits")
        old_out, new_out, cache = root / "old", root / "new", root / "cache"
        old = [args.pyfn13, "convert", "--from", "fnxml", "--to", "semafor", "--source", str(root / "splits"),
               "--target", str(old_out), "--splits", "train", "--with_exemplars", "--output_sentences",
               "--excluded_frames", "398"]
        new = [sys.executable, "-m", "pyfn", "convert", "--source", str(release), "--target", str(new_out),
               "--to", "semafor", "--with-exemplars", "--exclude-frames", "398", "--quiet"]
        env = {**os.environ, "PYFN_CACHE": str(cache)}
        old_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # its own pyfn, not this one

        def clear(*folders: Path):
            return lambda: [shutil.rmtree(f, ignore_errors=True) for f in folders]

        time.sleep(3)  # the extracted files must be older than the cache's "just modified" window
        for i in range(args.rounds):
            before = conditions()
            old_wall, old_mb = run_measured(old, old_env, before=clear(old_out))
            old_cpu = _cpu(old, old_env, before=clear(old_out))
            cold_wall, cold_mb = run_measured(new, env, before=clear(new_out, cache))
            cold_cpu = _cpu(new, env, before=clear(new_out, cache))
            warm_wall, warm_mb = run_measured(new, env, before=clear(new_out))
            warm_cpu = _cpu(new, env, before=clear(new_out))
            print(
                f"round {i + 1} ({before}): pyfn 1.3.13 {old_wall:.1f} s wall, {old_cpu:.1f} s CPU, peak {old_mb} MB; "
                f"pyfn cold {cold_wall:.2f} s wall ({old_wall / cold_wall:.2f}x faster; target >= 10x), "
                f"{cold_cpu:.1f} s CPU ({old_cpu / cold_cpu:.1f}x less), peak {cold_mb} MB (target <= 512); "
                f"warm {warm_wall:.2f} s wall ({old_wall / warm_wall:.2f}x faster), {warm_cpu:.1f} s CPU, "
                f"peak {warm_mb} MB; after: {conditions()}"
            )


if __name__ == "__main__":
    main()
