"""Helpers shared by the benchmarks: the fast parse floor, the machine's load, and wall time and peak memory of a command."""

from __future__ import annotations

import compileall
import ctypes
import io
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from lxml import etree

from pyfn.framenet import zipmember
from pyfn.workers import without_fastbins

REPO = Path(__file__).resolve().parent.parent
FN15 = Path(os.environ.get("PYFN_FN15", REPO.parent / "shared" / "data" / "fndata-1.5.zip"))


def fast_floor(zip_path: Path, folders: tuple[str, ...]) -> tuple[float, int, str]:
    """Seconds of the fastest of four bare parses of every XML file of ``folders`` in one process; the
    sentence count; which parse it was.

    All decompress and parse every byte of every file and extract nothing. Each
    file is read as pyfn reads it: inflated by ISA-L when ``isal`` is installed
    (:mod:`pyfn.framenet.zipmember`), else by :mod:`zipfile`. The parses:
    ``iterparse``, ``lxml.etree.iterparse`` with a ``tag=`` filter on
    ``<sentence>`` (libxml2 builds the tree and filters in C; Python sees one
    event per sentence, which it counts and clears); ``fromstring``, each file
    parsed whole by ``lxml.etree.fromstring`` and its sentences counted with
    ``iter`` (no events: about 10 % faster on this machine kind);
    ``fromstring, no fastbins``, the same after ``mallopt(M_MXFAST, 0)``
    (:func:`pyfn.workers.without_fastbins`, as pyfn's parse workers run:
    freeing each tree costs less, about 8 % faster here; glibc's default is
    restored after it; skipped without glibc); ``fromstring, no blanks, no
    fastbins``, the same by a parser dropping blank text between elements
    (``remove_blank_text``, as pyfn's whole-file reader parses a file without
    comments: half the nodes, about 10 % faster). The floor is the fastest in
    the same run.
    """
    tag = "{http://framenet.icsi.berkeley.edu}sentence"
    timings = []
    with zipfile.ZipFile(zip_path) as archive:
        names = [n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] in folders]

        def read(name: str) -> bytes:
            data = zipmember.read_deflated(archive, archive.getinfo(name))
            return archive.read(name) if data is None else data

        start, count = time.perf_counter(), 0
        for name in names:
            for _, elem in etree.iterparse(io.BytesIO(read(name)), events=("end",), tag=tag):
                count += 1
                elem.clear()
        timings.append((time.perf_counter() - start, count, "iterparse"))
        options = {"resolve_entities": False, "no_network": True, "load_dtd": False}
        for how in ("fromstring", "fromstring, no fastbins", "fromstring, no blanks, no fastbins"):
            if how.endswith("no fastbins") and not without_fastbins():
                continue
            parser = etree.XMLParser(**options, remove_blank_text="no blanks" in how)
            start, count = time.perf_counter(), 0
            for name in names:
                for _ in etree.fromstring(read(name), parser).iter(tag):
                    count += 1
            timings.append((time.perf_counter() - start, count, how))
            if how.endswith("no fastbins"):  # M_MXFAST: glibc's default again
                ctypes.CDLL(None).mallopt(1, 64 * ctypes.sizeof(ctypes.c_size_t) // 4)
    if len({count for _, count, _ in timings}) != 1:
        raise SystemExit(f"the bare parses counted {', '.join(str(c) for _, c, _ in timings)} sentences")
    return min(timings)


def conditions() -> str:
    """The machine's load when a figure was taken (benchmarks on a shared machine must say it)."""
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load}"


@lru_cache(maxsize=1)
def compile_bytecode() -> None:
    """Compile pyfn's modules to bytecode (``__pycache__``) before a pyfn command is timed, as installing
    a wheel does, and a first import unless ``PYTHONDONTWRITEBYTECODE`` is set: with it set (as on this
    machine kind), every timed run compiled about 100 modules again, 0.1 s that no installed pyfn
    spends."""
    import pyfn  # noqa: PLC0415

    if not compileall.compile_dir(Path(pyfn.__file__).parent, quiet=1):
        raise SystemExit("pyfn's modules could not be compiled to bytecode")


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


def run_measured(cmd: list[str], env: dict[str, str] | None = None,
                 before: Callable[[], None] = lambda: None) -> tuple[float, int]:
    """Run ``cmd`` twice (``before()`` ahead of each, e.g. to empty a cache): wall seconds from a
    plain run, then the peak memory (MB, PSS) of its whole process tree from a run sampled every
    50 ms (reading ``smaps_rollup`` of large processes that often costs CPU, which would otherwise
    be counted as pyfn's time). pyfn's bytecode is compiled first (:func:`compile_bytecode`)."""
    compile_bytecode()
    before()
    start = time.perf_counter()
    _finish(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env), cmd)
    elapsed = time.perf_counter() - start
    peak = 0
    before()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
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


def cold_and_warm(args: list[str]) -> tuple[tuple[float, int], tuple[float, int]]:
    """``pyfn ARGS --target T --quiet`` with an empty parsed-release cache (cold: the XML is parsed
    and the cache written), then with the cache it filled (warm): ``(seconds, peak MB)`` of each."""
    with tempfile.TemporaryDirectory() as tmp:
        cache, target = Path(tmp) / "cache", Path(tmp) / "out"
        env = {**os.environ, "PYFN_CACHE": str(cache)}
        cmd = [sys.executable, "-m", "pyfn", *args, "--target", str(target), "--quiet"]

        def fresh_target() -> None:
            shutil.rmtree(target, ignore_errors=True)

        def empty_cache() -> None:
            fresh_target()
            shutil.rmtree(cache, ignore_errors=True)

        cold = run_measured(cmd, env, before=empty_cache)
        warm = run_measured(cmd, env, before=fresh_target)
    return cold, warm


def against_fastest_floor(floors: list[float], colds: list[float], warms: list[float]) -> str:
    """The cold and warm times of every round against the fastest floor of the whole run (each round's
    own floor moves with the machine: 5.2-6.5 s for FN 1.5 within an hour here)."""
    fastest = min(floors)
    return (f"against the run's fastest floor, {fastest:.2f} s: cold "
            f"{', '.join(f'{t / fastest:.3f}x' for t in colds)}; warm {', '.join(f'{t / fastest:.3f}x' for t in warms)}")
