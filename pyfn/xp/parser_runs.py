"""What an experiment's external parsers were trained with and how their trainings went, read from their run
folders under ``work/`` for the manifest: the environment (``prepare.json``) and every finished training
(``pyfn-train.json``).

Times and machine paths are left out, so that the same run folder elsewhere records the same.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pyfn.errors import PyfnError
from pyfn.parsers import semafor
from pyfn.parsers.open_sesame import STATE
from pyfn.xp.steps import STEPS, Layout

PARSER_RUN = "prepare.json"
"""The record ``pyfn open-sesame prepare`` (and ``pyfn semafor prepare``) writes in an external parser's run folder."""
PARSER_KEYS = ("parser", "commit", "patches", "pins", "site", "java", "packages", "jwnl")
"""What trained an external parser's models: its full commit, pyfn's patches (sha256), the packages pinned in
its environment (e.g. ``dynet38==2.2``), a separate interpreter's version and packages (SimpleFrameId's
``site``), and SEMAFOR's Java, Debian packages and JWNL."""

PARSER_MACHINE_KEYS = ("python", "source")
"""Keys inside a parser's environment record that name a path on the machine (an interpreter, a source tree):
left out, so that the same environment elsewhere records the same."""

TRAINED = "pyfn-train.json"
"""The record each external parser's ``train`` writes in a model's folder when its training has finished
(Open-SESAME ``logs/MODEL/``, SEMAFOR ``frameid/`` and ``argid/``, SimpleFrameId ``models/MODEL/``)."""

TRAINING_LEFT_OUT = ("seconds", "last_attempt_seconds", "prepared_sha256")
"""Keys of a training record that depend on the machine (wall times; the digest of a ``prepare.json`` that
names machine paths) and are not recorded."""


def run_folders(layout: Layout) -> dict[str, Path]:
    """Every external parser's run folder under ``work/`` (a folder with a :data:`PARSER_RUN` naming a parser),
    by its path relative to the experiment folder.

    Linked folders are entered (a run folder is often a link to a cache outside the work tree); a run folder
    reached twice is recorded once, under its own path if it is under ``work/``.
    """
    if not layout.work.is_dir():
        return {}
    found: dict[Path, Path] = {}
    for directory, dirs, files in os.walk(layout.work, followlinks=True):
        if Path(directory) == layout.work:
            dirs[:] = [d for d in dirs if d != STEPS]
        here = Path(directory).resolve()
        dirs[:] = [d for d in sorted(dirs) if not here.is_relative_to((Path(directory) / d).resolve())]  # a cycle
        if PARSER_RUN in files:
            path = Path(directory)
            real = path.resolve()
            if real not in found or _rank(path, layout.work) < _rank(found[real], layout.work):
                found[real] = path
            dirs[:] = []  # a run folder holds no other
    out = {str(path.relative_to(layout.folder)): path for path in found.values() if _prepared(path) is not None}
    return dict(sorted(out.items(), key=lambda item: Path(item[0])))


def _prepared(folder: Path) -> dict[str, Any] | None:
    """The run folder's ``prepare.json`` when it names a parser (None: another step's record)."""
    path = folder / PARSER_RUN
    try:
        prepared = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PyfnError(f"{path}: not JSON ({exc})") from None
    return prepared if isinstance(prepared, dict) and "parser" in prepared and "commit" in prepared else None


def _rank(path: Path, work: Path) -> tuple[bool, Path]:
    """Order of the paths of one run folder: its own path (no link in it) first, then pathlib's order."""
    linked = path.resolve() != work.resolve() / path.relative_to(work)
    return linked, path


def _portable(value: Any) -> Any:
    """``value`` without the :data:`PARSER_MACHINE_KEYS` of a dict."""
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in PARSER_MACHINE_KEYS}
    return value


def parsers(layout: Layout) -> dict[str, dict[str, Any]]:
    """The environment of every external parser's run folder under ``work/`` (:func:`run_folders`):
    :data:`PARSER_KEYS` of its ``prepare.json``, without :data:`PARSER_MACHINE_KEYS`."""
    out = {}
    for name, folder in run_folders(layout).items():
        prepared = _prepared(folder) or {}
        out[name] = {key: _portable(prepared[key]) for key in PARSER_KEYS if prepared.get(key) is not None}
    return out


def trainings(layout: Layout) -> dict[str, dict[str, Any]]:
    """Every finished training in the external parsers' run folders, by the path of its model folder relative
    to the experiment folder: the parser's name and its :data:`TRAINED` record without
    :data:`TRAINING_LEFT_OUT`, with Open-SESAME's dev evaluations (``dev_curve``: its own labeled P/R/F1 at
    each, from pyfn's saved loop), SEMAFOR's objective (first and last value, evaluations counted) and
    ``copied`` for a model trained in another run folder (``prepare.json``'s ``models_from``)."""
    out: dict[str, dict[str, Any]] = {}
    for name, folder in run_folders(layout).items():
        prepared = _prepared(folder) or {}
        parser, copied = prepared["parser"], set((prepared.get("models_from") or {}).get("models") or ())
        for path in sorted(folder.rglob(TRAINED)):
            record = json_object(path)
            entry = {"parser": parser, **{k: v for k, v in record.items() if k not in TRAINING_LEFT_OUT}}
            if path.parent.name in copied:  # `pyfn open-sesame prepare --models-from`: trained in another run
                entry["copied"] = True
            if (path.parent / STATE).is_file():
                entry["dev_curve"] = _dev_curve(path.parent / STATE)
            if parser == semafor.NAME and record.get("stage") in ("frameid", "argid"):
                values = semafor.objective(folder, record["stage"])
                if values:
                    entry["objective"] = {"first": values[0][1], "last": values[-1][1], "evaluations": len(values)}
            out[str(Path(name) / path.parent.relative_to(folder))] = entry
    return dict(sorted(out.items(), key=lambda item: Path(item[0])))


def _dev_curve(path: Path) -> list[dict[str, Any]]:
    """Open-SESAME's dev evaluations as pyfn's patch saved them: epoch (from 0), example, labeled P/R/F1."""
    try:
        return [{"epoch": e["epoch"], "example": e["example"], "precision": round(e["lp"], 5),
                 "recall": round(e["lr"], 5), "f1": round(e["lf"], 5)} for e in json_object(path)["evaluations"]]
    except (KeyError, TypeError) as exc:
        raise PyfnError(f"{path}: not the training state pyfn's patch writes (no {exc})") from None


def json_object(path: Path) -> dict[str, Any]:
    """A JSON object read from ``path``; an error naming the file otherwise."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise PyfnError(f"{path}: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise PyfnError(f"{path}: not a JSON object")
    return value
