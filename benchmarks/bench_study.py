#!/usr/bin/env python3
"""A random-split study of both frame-identification baselines on FN 1.5 (xp_004's recipe, N splits), end to end.

Copies experiments/xp_004/experiment.toml into a temporary experiments root
with `split = "random(n=N, seed=1)"` and runs `pyfn xp run 004` there with an
empty cache (PYFN_CACHE: the release is parsed once, by the standard split's
data step, and every drawn split is built from the parsed-release cache; the
drawn splits run in --jobs processes). Reports the wall time, the cost per
split (total / (N + 1): the standard split and N drawn ones) and the machine's
load, and checks that every split xp_004 recorded (seeds 1-10) got the same
scores. `--pythonpath DIR` runs the pyfn of another checkout instead (e.g. an
older commit from `git worktree add`), for a "before" figure in the same
conditions (an older pyfn has no `xp run --jobs`: leave --jobs out).

Target: the per-split cost at least 5x below that of pyfn before the cache.

Usage: python benchmarks/bench_study.py [--splits N] [--jobs J] [--executor local|dask] [--pythonpath DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import FN15, REPO, conditions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=20, help="drawn random splits (default 20)")
    parser.add_argument("--jobs", type=int, default=None, help="`pyfn xp run --jobs` (default: not given)")
    parser.add_argument("--executor", default=None, help="`pyfn xp run --executor` (default: not given, local)")
    parser.add_argument("--pythonpath", help="run the pyfn found there (PYTHONPATH) instead of this one")
    args = parser.parse_args()
    recorded = json.loads((REPO / "experiments" / "xp_004" / "manifest.json").read_text())["study"]["splits"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "experiments" / "xp_004"
        folder.mkdir(parents=True)
        recipe = (REPO / "experiments" / "xp_004" / "experiment.toml").read_text()
        assert 'split = "random(n=10, seed=1)"' in recipe
        (folder / "experiment.toml").write_text(recipe.replace('"random(n=10, seed=1)"',
                                                               f'"random(n={args.splits}, seed=1)"'))
        env = {**os.environ, "PYFN_FN15": str(FN15), "PYFN_CACHE": str(root / "cache")}
        if args.pythonpath:
            env["PYTHONPATH"] = args.pythonpath
        cmd = [sys.executable, "-m", "pyfn", "xp", "--root", str(root / "experiments"), "run", "004"]
        if args.jobs is not None:
            cmd += ["--jobs", str(args.jobs)]
        if args.executor is not None:
            cmd += ["--executor", args.executor]
        before = conditions()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")
        splits = json.loads((folder / "manifest.json").read_text())["study"]["splits"]
    same = [name for name in recorded if name in splits and splits[name]["scores"] == recorded[name]["scores"]]
    differ = [name for name in recorded if name in splits and name not in same]
    print(f"({before}) pyfn xp run: standard split + {args.splits} drawn splits in {wall:.1f} s = "
          f"{wall / (args.splits + 1):.1f} s per split; scores as recorded in xp_004 for {len(same)} splits"
          f"{', DIFFERENT for ' + ', '.join(differ) if differ else ''}; after: {conditions()}")


if __name__ == "__main__":
    main()
