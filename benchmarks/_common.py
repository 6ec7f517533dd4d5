"""Helpers shared by the benchmarks: the bare-parse floor and peak RSS of a process tree."""

from __future__ import annotations

import os
import subprocess
import threading
import time
import zipfile
from pathlib import Path

from lxml import etree

REPO = Path(__file__).resolve().parent.parent
FN15 = Path(os.environ.get("PYFN_FN15", REPO.parent / "shared" / "data" / "fndata-1.5.zip"))


def bare_iterparse(zip_path: Path, folders: tuple[str, ...]) -> tuple[float, int]:
    """Seconds to iterparse every XML file of ``folders`` in one process; element count."""
    start = time.perf_counter()
    count = 0
    with zipfile.ZipFile(zip_path) as archive:
        names = [n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] in folders]
        for name in names:
            with archive.open(name) as handle:
                for _, elem in etree.iterparse(handle, events=("end",)):
                    count += 1
                    elem.clear()
    return time.perf_counter() - start, count


def _tree_memory_kb(pid: int) -> int:
    """Proportional set size (PSS) of a process and its children: pages shared by
    forked workers are counted once, split between the processes sharing them."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    stack.extend(int(c) for c in handle.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def run_measured(cmd: list[str]) -> tuple[float, int]:
    """Run ``cmd`` twice: wall seconds from a plain run, then the peak memory (MB, PSS) of
    its whole process tree from a run sampled every 50 ms (reading ``smaps_rollup`` of
    large processes that often costs CPU, which would otherwise be counted as pyfn's time)."""
    start = time.perf_counter()
    _finish(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), cmd)
    elapsed = time.perf_counter() - start
    peak = 0
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def poll() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_memory_kb(proc.pid))
            time.sleep(0.05)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        _finish(proc, cmd)
    finally:
        done.set()
        thread.join()
    return elapsed, peak // 1024


def _finish(proc: subprocess.Popen, cmd: list[str]) -> None:
    _, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.decode()[-500:]}")
