"""Output folders: checked before anything is written, filled in a staging folder, swapped in when complete.

Git's rule, refuse before touching the user's files, for every folder pyfn
writes (``pyfn convert --target``, ``pyfn generate --target``, and the folder
``pyfn preprocess --input`` updates in place):

- :func:`check_target` runs before any work. It refuses a target that is, holds
  or lies inside a folder the run reads, and one holding outputs of an earlier
  pyfn run that changed since pyfn wrote them (a rerun would replace or remove
  them). Files no pyfn manifest there lists are the user's: they are left
  alone, and :meth:`Stage.commit` refuses, before it changes anything, a run
  that would replace one (unless ``force``).
- The run writes into ``TARGET/.pyfn-stage.tmp`` (:func:`staged`). When it is
  complete, :meth:`Stage.commit` removes the old ``manifest.json``, renames the
  new files into place, removes the files the old manifest listed that this
  run did not write, and writes the new manifest last, Ctrl-C held back until
  it is done.
- A failed or interrupted run removes the staging folder: the target is byte
  for byte as it was, and a target the run created is removed, with the
  folders it created for it.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import LOCK_NAME, locked_directory, sha256_file
from pyfn.manifest import MANIFEST, read_manifest, write_manifest

STAGE = ".pyfn-stage.tmp"
"""The staging folder inside a target (a ``.*.tmp`` name: one left by a killed run is removed by the next)."""
SHOWN = 3
"""How many files a refusal names."""


def _bookkeeping(name: str) -> bool:
    """pyfn's lock and the temporary files of a run (never a user's file, never an output)."""
    return name == LOCK_NAME or (name.startswith(".") and name.endswith(".tmp"))


def files_under(folder: Path) -> Iterator[str]:
    """The POSIX paths, relative to ``folder``, of the files under it (symbolic links included, never
    followed), pyfn's lock and temporary files left out; sorted folder by folder."""
    for root, dirs, files in os.walk(folder):
        base = Path(root).relative_to(folder)
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dirs[:] = sorted(d for d in dirs if d not in links and not _bookkeeping(d))
        for name in sorted([*files, *links]):
            if not _bookkeeping(name):
                yield (base / name).as_posix()


def check_apart(target: Path, sources: Iterable[Path]) -> None:
    """Refuse a target that is, holds or lies inside a folder (or file) the run reads."""
    where = Path(target).resolve()
    for source in sources:
        read = Path(source).resolve()
        if where == read:
            relation = "is"
        elif read in where.parents:
            relation = "lies inside"
        elif where in read.parents:
            relation = "holds"
        else:
            continue
        raise UsageError(f"--target {target} {relation} the source {source}: write the output outside the source")


def _listed(folder: Path) -> dict[str, str] | None:
    """The outputs the manifest of an earlier pyfn run in ``folder`` lists ({} without a manifest;
    None when ``manifest.json`` is not a pyfn manifest)."""
    try:
        manifest = read_manifest(folder)
    except PyfnError:
        return None
    if manifest is None:
        return {}
    outputs = manifest.get("outputs")
    if "pyfn_version" not in manifest or not isinstance(outputs, dict):
        return None
    return {str(name): str(digest) for name, digest in outputs.items()}


def _names(names: Sequence[str], more: bool) -> str:
    return ", ".join(names[:SHOWN]) + (", ..." if more or len(names) > SHOWN else "")


def refusal(folder: Path, foreign: Sequence[str], changed: Sequence[str], more: bool = False) -> PyfnError:
    """The one-line refusal to write into ``folder`` over files pyfn did not write (``foreign``) or that
    changed since it wrote them."""
    what = []
    if foreign:
        what.append(f"files no pyfn manifest there lists ({_names(foreign, more)})")
    if changed:
        what.append(f"files changed since pyfn wrote them ({_names(changed, more)})")
    return PyfnError(f"{folder}: holds {' and '.join(what)}; nothing was written: choose an empty or new folder, "
                     "or pass --force to write there anyway (files of an output's name are overwritten)")


@dataclass(frozen=True)
class Previous:
    """What a target holds before a run: the earlier pyfn run's outputs as it wrote them (``outputs``, which
    a rerun replaces or removes) and the files that are not pyfn's (``foreign``, never replaced unless
    ``force``)."""

    outputs: Mapping[str, str]
    foreign: frozenset[str] = frozenset()
    force: bool = False


def check_target(target: Path, *, sources: Iterable[Path] = (), force: bool = False) -> Previous:
    """Refuse, before any work, a target this run may not write into (see the module's rules)."""
    target = Path(target)
    check_apart(target, sources)
    if not target.exists():
        return Previous({}, force=force)
    if not target.is_dir():
        raise PyfnError(f"{target}: not a directory; choose another target")
    listed = _listed(target)
    foreign: list[str] = []
    changed: list[str] = []
    kept: dict[str, str] = {}
    for name in files_under(target):
        if name == MANIFEST and listed is not None:
            continue
        digest = (listed or {}).get(name)
        if digest is None:
            foreign.append(name)
        elif sha256_file(target / name) != digest:
            changed.append(name)
        else:
            kept[name] = digest
        if not force and len(changed) > SHOWN:
            raise refusal(target, [], changed, more=True)
    if changed and not force:
        raise refusal(target, [], changed)
    return Previous(kept, frozenset(foreign), force)


def check_overwrites(folder: Path, names: Iterable[str], listed: Mapping[str, str], force: bool = False) -> None:
    """Refuse, before any work, to replace a file of ``names`` in ``folder`` that its manifest does not list."""
    foreign = sorted(name for name in names if name not in listed and os.path.lexists(Path(folder) / name))
    if foreign and not force:
        raise refusal(Path(folder), foreign, [])


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C during the block takes effect when it ends: a commit is never left half done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _remove(folder: Path, name: str) -> None:
    """Remove ``folder/name`` and the folders between them it leaves empty."""
    path = folder / name
    path.unlink(missing_ok=True)
    for parent in path.parents:
        if parent == folder:
            break
        try:
            parent.rmdir()
        except OSError:
            break


@dataclass(frozen=True)
class Stage:
    """Where a run writes (``path``), the target its files go to, and the earlier run's outputs there."""

    path: Path
    target: Path
    previous: Previous

    def commit(self, manifest: Mapping[str, Any]) -> None:
        """Put the run in place: the files of ``manifest["outputs"]`` written under :attr:`path` replace those
        of the target, the earlier run's outputs this manifest does not list are removed, and
        ``manifest.json`` is written last. A file of the user's that one of them would replace is
        refused first, with nothing changed."""
        outputs = manifest["outputs"]
        clash = sorted(self.previous.foreign & {*outputs, MANIFEST})
        if clash and not self.previous.force:
            raise refusal(self.target, clash, [])
        with _interrupts_held():
            (self.target / MANIFEST).unlink(missing_ok=True)
            for name in outputs:
                staged = self.path / name
                if staged.is_file():  # an in-place update keeps the files it did not rewrite
                    (self.target / name).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(staged, self.target / name)
            for name in sorted(set(self.previous.outputs) - set(outputs)):
                _remove(self.target, name)
            write_manifest(self.target, manifest)


@contextmanager
def staged(target: Path, previous: Previous) -> Iterator[Stage]:
    """Lock ``target`` (created when missing) and give a staging folder inside it to write into.

    On an error or Ctrl-C the staging folder is removed, and so are the target
    and its parents when this created them; an error naming a staged file
    names its final path.
    """
    target = Path(target)
    created = [folder for folder in (target, *target.parents) if not folder.exists()]  # deepest first
    try:
        with locked_directory(target):
            stage = target / STAGE
            stage.mkdir()
            try:
                yield Stage(stage, target, previous)
            except PyfnError as exc:
                if str(stage) not in str(exc):
                    raise
                raise PyfnError(str(exc).replace(str(stage), str(target)), exit_code=exc.exit_code) from None
            finally:
                shutil.rmtree(stage, ignore_errors=True)
    except BaseException:
        for folder in created:  # a folder that is not empty is not this run's to remove
            try:
                folder.rmdir()
            except OSError:
                break
        raise
