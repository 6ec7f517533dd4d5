#!/usr/bin/env python3
"""Wall time of shipped experiments end to end, as from a fresh clone (cold preprocessing cache).

Runs ``scripts/xp_NNN.sh`` in a temporary copy of the repository layout (the
script, the recipe and the recorded manifest), with an empty ``PYFN_CACHE``,
and reports the wall time. Targets: xp_001 under 2 minutes on 2 cores; the
ten-split ranking study (xp_004) under 10 minutes.

Usage: python benchmarks/bench_xp.py [001 004 ...]   (default: 001)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import FN15, REPO


def run(number: str) -> float:
    name = f"xp_{number}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "scripts").mkdir()
        shutil.copy(REPO / "scripts" / f"{name}.sh", root / "scripts")
        folder = root / "experiments" / name
        folder.mkdir(parents=True)
        for file in ("experiment.toml", "manifest.json"):
            if (REPO / "experiments" / name / file).is_file():
                shutil.copy(REPO / "experiments" / name / file, folder)
        env = {**os.environ, "PYFN_FN15": str(FN15), "PYFN_CACHE": str(root / "cache")}
        start = time.perf_counter()
        proc = subprocess.run(["bash", str(root / "scripts" / f"{name}.sh")], cwd=root, env=env,
                              capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode:
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
    verdict = "verified" if proc.returncode == 0 else f"exit {proc.returncode}"
    print(f"{name}: {elapsed:.1f} s end to end on {os.cpu_count()} cores ({verdict})")
    return elapsed


if __name__ == "__main__":
    for number in sys.argv[1:] or ["001"]:
        run(number)
