"""Install an external parser for pyfn to run: a clean copy of the user's checkout at its commit, pyfn's
recorded patches applied to the copy, and a virtual environment with pinned packages; for a parser that runs
under another interpreter (SimpleFrameId: Python 2.7), its pinned packages installed for that interpreter
into ``site/`` (``pip install --target``) beside the virtual environment.

The user's checkout is only read (``git archive`` of its ``HEAD``): patches never touch it. An
installation is keyed by the commit, the patches and the pins, and is reused while those stay the
same; its record (``install.json``) is written last, so a failed installation is never taken for a
finished one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.fileio import locked_directory, sha256_file, write_text

RECORD = "install.json"


def default_root() -> Path:
    """``$PYFN_CACHE/parsers``, else ``~/.cache/pyfn/parsers`` (XDG_CACHE_HOME honoured)."""
    root = os.environ.get("PYFN_CACHE")
    if root:
        return Path(root) / "parsers"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pyfn" / "parsers"


def _run(argv: Sequence[str], what: str, *, cwd: Path | None = None, stdin: bytes | None = None) -> str:
    """Run a command; a failure is a one-line error with the end of its output."""
    try:
        proc = subprocess.run(list(argv), capture_output=True, input=stdin, cwd=cwd, check=False)
    except OSError as exc:
        raise PyfnError(f"{what}: cannot run {argv[0]}: {exc.strerror}") from None
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    if proc.returncode:
        tail = " | ".join((err or out).strip().splitlines()[-3:])
        raise PyfnError(f"{what}: `{' '.join(argv)}` failed (exit {proc.returncode}): {tail}")
    return out


def checkout_commit(home: Path, marker: str) -> str:
    """The commit of the git checkout ``home``; errors when it is not one or lacks ``marker``."""
    if not (home / marker).is_file():
        raise PyfnError(f"{home}: not a checkout of the parser (no {marker})")
    return _run(["git", "-C", str(home), "rev-parse", "HEAD"], f"{home}").strip()


def interpreter_version(python: str) -> str:
    """``python``'s version as it prints it (``Python 2.7.18``); an error names the interpreter."""
    try:
        proc = subprocess.run([python, "--version"], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise PyfnError(f"{python}: cannot run this interpreter: {exc.strerror}") from None
    version = (proc.stdout + proc.stderr).strip()
    if proc.returncode or not version.startswith("Python "):
        raise PyfnError(f"{python}: not a Python interpreter (`{python} --version` printed {version!r})")
    return version


def install(
    name: str, home: Path, marker: str, patches: Sequence[Path], pins: Sequence[str], root: Path,
    log=lambda line: None, *, site_python: str | None = None, site_pins: Sequence[str] = (),
) -> Path:
    """Install ``name`` from the checkout ``home`` under ``root``; returns the installation folder.

    The folder holds ``src/`` (the patched copy), ``venv/`` and ``install.json``; with ``site_python``
    (another interpreter, which runs the parser itself), also ``site/``: ``site_pins`` installed for it
    with its own pip (``pip install --target``), its version and ``pip freeze --path`` in the record.
    """
    home = Path(home).resolve()
    commit = checkout_commit(home, marker)
    patch_digests = {Path(p).name: sha256_file(Path(p)) for p in patches}
    identity: list = [commit, list(patch_digests.items()), list(pins)]
    site_version = None
    if site_python is not None:
        site_version = interpreter_version(site_python)
        identity += [site_version, list(site_pins)]
    key = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:12]
    folder = Path(root) / f"{name}-{commit[:12]}-{key}"
    if (folder / RECORD).is_file():
        log(f"{name}: installed in {folder}")
        return folder
    with locked_directory(folder):
        for stale in ("src", "venv", "site"):  # an interrupted installation: never recorded, redone
            shutil.rmtree(folder / stale, ignore_errors=True)
        log(f"{name}: copying {home} at {commit[:12]} to {folder}")
        archive = subprocess.run(["git", "-C", str(home), "archive", "--format=tar", commit],
                                 capture_output=True, check=False)
        if archive.returncode:
            raise PyfnError(f"{home}: git archive failed: {archive.stderr.decode(errors='replace').strip()}")
        (folder / "src").mkdir()
        _run(["tar", "-x", "-C", str(folder / "src")], f"{folder}: unpacking", stdin=archive.stdout)
        for patch in patches:
            log(f"{name}: applying {patch}")
            _run(["git", "apply", str(Path(patch).resolve())], f"patch {patch}", cwd=folder / "src")
        log(f"{name}: creating its virtual environment ({' '.join(pins)})")
        python = str(folder / "venv" / "bin" / "python")
        _run([sys.executable, "-m", "venv", *([] if pins else ["--without-pip"]), str(folder / "venv")], f"{name}: venv")
        freeze = ""
        if pins:
            _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins], f"{name}: pip install")
            freeze = _run([python, "-m", "pip", "freeze", "--disable-pip-version-check"], f"{name}: pip freeze")
        record = {
            "parser": name, "checkout": str(home), "commit": commit, "patches": patch_digests,
            "pins": list(pins), "freeze": sorted(freeze.split()),
        }
        if site_python is not None:
            record["site"] = _install_site(name, folder / "site", site_python, site_pins, log)
            record["site"]["python_version"] = site_version
        write_text(folder / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return folder


def _install_site(name: str, site: Path, python: str, pins: Sequence[str], log) -> dict:
    """``pins`` installed into ``site`` for the interpreter ``python``; returns what the record keeps of it."""
    log(f"{name}: installing {' '.join(pins)} for {python} into {site}")
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "install", "--quiet", "--no-cache-dir", "--target", str(site), *pins], f"{name}: pip install --target")
    freeze = _run([*pip, "freeze", "--path", str(site)], f"{name}: pip freeze --path")
    return {"python": python, "pins": list(pins), "freeze": sorted(line for line in freeze.split() if "==" in line)}


def read_record(folder: Path) -> dict:
    """The ``install.json`` of an installation; an error says to run the set-up first."""
    path = Path(folder) / RECORD
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PyfnError(f"{folder}: not an installed parser (no {RECORD}); run its set-up first") from None
