"""Where fanned-out work runs: pyfn's local process pool (the default) or a Dask cluster.

A seam, not a scheduler. ``local`` keeps :mod:`pyfn.workers`' pool;
``dask`` starts a :class:`distributed.LocalCluster` (one single-threaded worker
process per core, or ``--jobs N``); ``dask://HOST:PORT`` connects to a running
scheduler (e.g. dask-jobqueue's ``SLURMCluster``). Dask places the tasks and
retries a task once (:data:`RETRIES`) when it raises or its worker dies; pyfn
only submits them, with their dependencies, and reads the results.

Shared filesystem: the workers must see the client's working directory, the
experiment, the FrameNet release and pyfn's caches at the same paths.
:func:`check_visible` checks it on every worker before any task runs.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from pyfn.errors import PyfnError, UsageError

LOCAL = "local"
DASK = "dask"
RETRIES = 1
"""Dask reruns a failed task this many times (a task whose worker died is rerun by the scheduler)."""
INSTALL = 'the dask executor needs dask.distributed: pip install "pyfn[dask]"'
TAIL = 20
"""Lines of a failed command's stderr shown in the error."""
ENV_PREFIXES = ("PYFN_", "NLTK_DATA", "SESAME_", "SIMPLEFRAMEID_")
"""Environment variables a task takes from the client: pyfn's paths (release, caches) and its parsers'."""


def check_spec(spec: str) -> str:
    """``spec`` when it names an executor (local, dask, dask://HOST:PORT), else a usage error."""
    if spec in (LOCAL, DASK) or re.fullmatch(r"dask://[^\s/:]+:\d+", spec):
        return spec
    raise UsageError(f"--executor {spec!r}: expected local, dask or dask://HOST:PORT")


_OPEN: dict[str, Any] = {}


@contextmanager
def dask_client(spec: str, workers: int = 0, log: Callable[[str], None] = lambda line: None) -> Iterator[Any]:
    """A Dask client for ``spec`` (``dask`` or ``dask://HOST:PORT``), closed (and its LocalCluster shut
    down, worker processes included) when the block ends; inside an open one, that one again."""
    if spec in _OPEN:
        yield _OPEN[spec]
        return
    try:
        from distributed import Client, LocalCluster  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise UsageError(INSTALL) from None
    with ExitStack() as stack:
        if spec == DASK:
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster))
        else:
            address = "tcp://" + spec.removeprefix("dask://")
            try:
                client = stack.enter_context(Client(address, timeout="20s"))
            except (OSError, TimeoutError) as exc:
                raise PyfnError(f"--executor {spec}: no Dask scheduler answers at {address} ({exc})") from None
        if "dashboard" in client.scheduler_info().get("services", {}):
            log(f"pyfn: Dask dashboard at {client.dashboard_link}")
        _OPEN[spec] = client
        try:
            yield client
        finally:
            del _OPEN[spec]


def _problems(paths: Sequence[str], version: str) -> list[str]:
    """On a worker: the paths it does not see, and its pyfn when it is not the client's ``version``."""
    from pyfn import __version__  # noqa: PLC0415

    out = [f"cannot see {path}: the dask executor needs a filesystem shared by the client and every worker, "
           "at the same paths" for path in paths if not os.path.exists(path)]
    return out + ([f"runs pyfn {__version__}, the client pyfn {version}: install the same pyfn on the workers"]
                  if __version__ != version else [])


def check_visible(client: Any, paths: Sequence[Path]) -> None:
    """Every worker sees every one of ``paths`` (made absolute) and runs the client's pyfn version,
    or an error naming the first worker and what it lacks."""
    from pyfn import __version__  # noqa: PLC0415

    if not client.scheduler_info().get("workers"):
        client.wait_for_workers(1, timeout=120)
    absolute = [str(Path(p).resolve()) for p in paths]
    for worker, problems in sorted(client.run(_problems, absolute, __version__).items()):
        if problems:
            raise PyfnError(f"Dask worker {worker} {problems[0]}")


def task_env(extra: Mapping[str, str] = {}) -> dict[str, str]:
    """The client's variables a task needs (:data:`ENV_PREFIXES`), plus ``extra``."""
    return {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)} | dict(extra)


class CommandFailed(Exception):
    """A task's command exited non-zero: the message names the command and ends with its stderr tail."""


_PRCTL = ctypes.CDLL(None).prctl if sys.platform == "linux" else None
"""Linux's prctl, looked up here: a forked child must not load libraries before it execs."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """The command is killed with the worker that started it (Linux: a killed worker leaves no
    command writing beside its retry), and ignores Ctrl-C as pyfn's workers do."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def run_commands(commands: Sequence[Sequence[str]], cwd: str, env: Mapping[str, str]) -> None:
    """Run ``commands`` one after another in ``cwd`` (on a worker; ``pyfn ...`` with the worker's own
    interpreter), output captured; :class:`CommandFailed` with the first failing command and its stderr tail."""
    for argv in commands:
        resolved = [sys.executable, "-m", "pyfn", *argv[1:]] if list(argv[:1]) == ["pyfn"] else list(argv)
        proc = subprocess.run(resolved, cwd=cwd, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace",
                              preexec_fn=_die_with_parent)
        if proc.returncode:
            tail = "\n".join(proc.stderr.rstrip().splitlines()[-TAIL:])
            raise CommandFailed(f"`{' '.join(argv)}` failed (exit {proc.returncode}); its stderr ends:\n{tail}")
