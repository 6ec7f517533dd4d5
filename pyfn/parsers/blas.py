"""One set of OpenBLAS kernels for the external parsers' processes, so their numbers do not depend on the CPU.

OpenBLAS (numpy's and scipy's BLAS, which gensim's word2vec calls for every update) chooses its kernels when
it loads, by the CPU it finds, and kernels for different CPUs add in different orders: the same word2vec run
(gensim 4.4.0, seed 1, one worker, fixed ``PYTHONHASHSEED``) on FN 1.5 train's sentences writes vectors with
sha256 ``4f56938f...`` under the Haswell kernels and ``a76c9e7d...`` under the SkylakeX kernels that an
AVX-512 CPU gets, and the parser trained on them starts on another course. ``OPENBLAS_CORETYPE`` makes
OpenBLAS take the named kernels instead. pyfn sets it to :data:`CORETYPE` wherever those kernels can run
(x86-64 with AVX2 and FMA), so two such machines give the same vectors; elsewhere OpenBLAS keeps its own
choice, which the records then say. The parsers' own trainings can still differ between kinds of CPU
(docs/howto/parsers.md): :func:`machine` names the kind in each training record.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

VARIABLE = "OPENBLAS_CORETYPE"
CORETYPE = "Haswell"
"""The kernels pinned: the newest set that every x86-64 CPU with AVX2 and FMA runs (2013 on)."""
NEEDS = frozenset({"avx2", "fma"})
"""The CPU flags the Haswell kernels use."""
CPUINFO = Path("/proc/cpuinfo")


def _cpuinfo(cpuinfo: Path) -> dict[str, str]:
    """The first value of each field of Linux's CPU description (empty where there is none)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags as Linux lists them (the first ``flags`` line); empty where there is none."""
    return frozenset(_cpuinfo(cpuinfo).get("flags", "").split())


def cpu_kind(cpuinfo: Path = CPUINFO) -> str:
    """The kind of CPU as Linux names it (``GenuineIntel family 6 model 207``), for the training records: a
    parser whose training differs between kinds of CPU is reproducible on the kind that trained it."""
    fields = _cpuinfo(cpuinfo)
    if "vendor_id" not in fields:
        return f"{platform.machine() or 'unknown'} (no CPU model in {cpuinfo})"
    return f"{fields['vendor_id']} family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"


def machine() -> dict[str, str]:
    """Where a training ran, as its record says: the architecture, the kind of CPU and OpenBLAS's kernels."""
    return {"architecture": platform.machine(), "cpu": cpu_kind(), "openblas_coretype": record()}


def coretype(environ: dict[str, str] | None = None, arch: str | None = None,
             flags: frozenset[str] | None = None) -> str | None:
    """The kernels a parser's process is given: the user's own ``OPENBLAS_CORETYPE`` when set, else
    :data:`CORETYPE` on an x86-64 CPU with AVX2 and FMA, else ``None`` (OpenBLAS chooses by the CPU)."""
    environ = os.environ if environ is None else environ
    if environ.get(VARIABLE):
        return environ[VARIABLE]
    arch = platform.machine() if arch is None else arch
    if arch.lower() not in ("x86_64", "amd64"):
        return None
    return CORETYPE if NEEDS <= (cpu_flags() if flags is None else flags) else None


def blas_env() -> dict[str, str]:
    """The variables to add to a parser's environment (none where OpenBLAS keeps its own choice)."""
    chosen = coretype()
    return {VARIABLE: chosen} if chosen else {}


def record() -> str:
    """What the records say about the kernels: the pinned set, or that OpenBLAS chose by the CPU."""
    return coretype() or "chosen by OpenBLAS for this CPU (not pinned)"
