"""Finished steps of an experiment, so that a rerun resumes instead of redoing them.

When a pyfn step (one with ``--target`` or ``--output``) finishes, a record is
written atomically to ``work/.steps/NAME.json``: its command, the versions of
pyfn and its dependencies, a digest of each input (the record of the step
that wrote it, the file's sha256, or for a folder no step wrote, such as a
release, its files' names, sizes and times) and the sha256 of each output. A step is
finished when its record exists and all of that holds again now, outputs
re-hashed. A step killed midway has no record; a step whose input was
rewritten differently, or whose output changed, runs again. External parsers'
shell steps have no record and always run. Records are deterministic (no
times, no hosts) and are not outputs of the experiment (not in its manifest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pyfn.fileio import sha256_file, write_text
from pyfn.outdir import files_under
from pyfn.xp import manifest as xp_manifest
from pyfn.xp.steps import STEPS, Layout, Step, target


@dataclass(frozen=True)
class Tracked:
    """What deciding and recording that a step finished needs: its expanded command, its output
    (``target``: a folder or file), its inputs with the step that writes each (None: none does)."""

    name: str
    argv: tuple[str, ...]
    target: str
    inputs: tuple[tuple[str, str | None], ...]
    record: str


def tracked(step: Step, argv: Sequence[str], every: Sequence[Step], folder: Path) -> Tracked | None:
    """``step`` (its command expanded: ``argv``) as a :class:`Tracked`; None for a step without output."""
    own = target(step)
    if own is None:
        return None
    argv = tuple(argv)
    outputs = {t: s.name for s in every if s is not step and (t := target(s)) is not None}
    own = argv[list(step.argv).index(own)] if own in step.argv else own
    inputs = []
    for arg in argv:
        if arg == own or not arg or arg.startswith("-"):
            continue
        path = Path(arg)
        producer = next((name for out, name in outputs.items() if path == Path(out) or Path(out) in path.parents), None)
        if producer is not None or path.exists():
            inputs.append((arg, producer))
    return Tracked(step.name, argv, own, tuple(inputs), str(record_path(folder, step.name)))


def record_path(folder: Path, name: str) -> Path:
    """Where the record of step ``name`` of the experiment in ``folder`` lives."""
    return Layout(folder).work / STEPS / f"{quote(name, safe='')}.json"


def _input_digest(path: str, producer: str | None, folder: Path) -> str | None:
    if producer is not None:
        record = record_path(folder, producer)
        return sha256_file(record) if record.is_file() else None
    if Path(path).is_file():
        return sha256_file(Path(path))
    return _listing_digest(Path(path)) if Path(path).is_dir() else None


def _listing_digest(folder: Path) -> str:
    """A folder not written by a step (a FrameNet release as a folder): its files' paths, sizes and
    modification times (hashing every file of a release on each check would cost more than the step)."""
    digest = hashlib.sha256()
    for name in files_under(folder):
        stat = (folder / name).stat()
        digest.update(f"{name}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _outputs(target: str) -> dict[str, str]:
    path = Path(target)
    if path.is_file():
        return {target: sha256_file(path)}
    if not path.is_dir():
        return {}
    return {f"{target}/{name}": sha256_file(path / name) for name in files_under(path) if (path / name).is_file()}


def _state(step: Tracked, folder: Path) -> dict | None:
    """What the record of ``step`` says when it finished now (None: an input's digest is unknown)."""
    inputs = {}
    for path, producer in step.inputs:
        digest = _input_digest(path, producer, folder)
        if digest is None:
            return None
        inputs[path] = digest
    return {"step": step.name, "argv": list(step.argv), "versions": xp_manifest.versions(), "inputs": inputs,
            "outputs": _outputs(step.target)}


def finished(step: Tracked, folder: Path) -> bool:
    """Whether ``step`` has a record that still holds: same command, versions, inputs and outputs."""
    path = Path(step.record)
    if not path.is_file():
        return False
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == _state(step, folder)


def write(step: Tracked, folder: Path) -> None:
    """Record that ``step`` finished (after it did); no record when an input's digest is unknown."""
    state = _state(step, folder)
    if state is not None:
        write_text(Path(step.record), json.dumps(state, indent=1, sort_keys=True) + "\n")
