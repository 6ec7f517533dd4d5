#!/usr/bin/env python3
"""xp_004's study (10 random FN 1.5 splits) locally and on a Dask LocalCluster, interleaved, same conditions.

Each round runs `pyfn xp run 004 --jobs J` (pyfn's process pool) and
`pyfn xp run 004 --executor dask --jobs J` (a LocalCluster of J single-threaded
worker processes), each in a fresh copy of the experiment with an empty cache
(PYFN_CACHE: the release is parsed once, by the standard split's data step),
alternating which goes first. Reports each wall time, the dask/local ratio
per round and its median, the machine's load before and after each run (the
machine may be shared: the figures say so), and checks that the two runs
wrote the same bytes (outputs, step records and manifest) and the scores
xp_004 recorded.

Usage: python benchmarks/bench_executor.py [--rounds N] [--jobs J] [--splits N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import FN15, REPO, conditions


def _run(executor: str, jobs: int, splits: int, scratch: Path) -> tuple[float, dict[str, bytes], dict]:
    """Wall time of one run, the bytes it wrote under work/, and its study."""
    root = scratch / executor
    folder = root / "experiments" / "xp_004"
    folder.mkdir(parents=True)
    recipe = (REPO / "experiments" / "xp_004" / "experiment.toml").read_text()
    assert 'split = "random(n=10, seed=1)"' in recipe
    (folder / "experiment.toml").write_text(recipe.replace('"random(n=10, seed=1)"', f'"random(n={splits}, seed=1)"'))
    env = {**os.environ, "PYFN_FN15": str(FN15), "PYFN_CACHE": str(root / "cache"),
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "pyfn", "xp", "run", "004", "--jobs", str(jobs), "--executor", executor]  # paths
    # relative to root, as in a clone: the two runs' commands, records and manifests name the same paths
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr[-2000:]}")
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted((folder / "work").rglob("*")) if p.is_file()}
    manifest = json.loads((folder / "manifest.json").read_text())
    files["manifest.json"] = json.dumps({k: v for k, v in manifest.items() if k != "versions"}, sort_keys=True).encode()
    return wall, files, manifest["study"]["splits"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of one local and one dask run (default 2)")
    parser.add_argument("--jobs", type=int, default=2, help="processes / Dask workers (default 2)")
    parser.add_argument("--splits", type=int, default=10, help="drawn random splits (default 10, as xp_004)")
    args = parser.parse_args()
    recorded = json.loads((REPO / "experiments" / "xp_004" / "manifest.json").read_text())["study"]["splits"]
    ratios = []
    for round_ in range(args.rounds):
        order = ("local", "dask") if round_ % 2 == 0 else ("dask", "local")
        walls, outputs = {}, {}
        for executor in order:
            with tempfile.TemporaryDirectory(prefix="pyfn-bench-executor-") as tmp:
                before = conditions()
                walls[executor], outputs[executor], splits = _run(executor, args.jobs, args.splits, Path(tmp))
                same = sum(splits[n]["scores"] == recorded[n]["scores"] for n in recorded if n in splits)
                print(f"round {round_ + 1} {executor:5}: {walls[executor]:.1f} s ({before}; after: {conditions()}); "
                      f"scores as recorded in xp_004 for {same} of {len(splits)} splits", flush=True)
        differ = sorted(n for n in outputs["local"].keys() | outputs["dask"].keys()
                        if outputs["local"].get(n) != outputs["dask"].get(n))
        ratios.append(walls["dask"] / walls["local"])
        print(f"round {round_ + 1}: dask/local = {ratios[-1]:.3f}; {len(outputs['local'])} files, "
              f"{'byte-identical' if not differ else 'DIFFERENT: ' + ', '.join(differ[:10])}", flush=True)
    print(f"median dask/local over {args.rounds} rounds: {statistics.median(ratios):.3f} "
          f"({args.jobs} processes / workers, {args.splits} drawn splits)")


if __name__ == "__main__":
    main()
