"""Fingerprints, data signatures and ``manifest.json`` (written last, atomically)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import PyfnError
from pyfn.fileio import sha256_file, write_text

MANIFEST = "manifest.json"


def fingerprint(files: Mapping[str, str]) -> str:
    """sha256 over ``path<TAB>sha256`` lines of the files read, sorted by path.

    The same release gives the same fingerprint from a directory or a zip.
    """
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path}\t{files[path]}\n".encode())
    return digest.hexdigest()


def _id_list(prefix: str, ids: Iterable[int]) -> list[str]:
    return [f"{prefix}{i}" for i in sorted(ids)]


def data_signature(
    *,
    version: str,
    split: str,
    exemplars: bool,
    filters: Iterable[str],
    filter_scope: str = "train",
    exclude_frames: Iterable[int] = (),
    exclude_lus: Iterable[int] = (),
    exclude_sentences: Iterable[int] = (),
    exclude_annosets: Iterable[int] = (),
) -> str:
    """A short sacrebleu-style string naming every choice that shaped the data."""
    excl = (
        [str(i) for i in sorted(exclude_frames)]
        + _id_list("lu", exclude_lus)
        + _id_list("s", exclude_sentences)
        + _id_list("as", exclude_annosets)
    )
    parts = [
        f"fn:{version}",
        f"split:{split}",
        f"ex:{'yes' if exemplars else 'no'}",
        f"filters:{'+'.join(sorted(filters)) or 'none'}" + ("@all" if filter_scope == "all" else ""),
        "dedup:annoset",
        f"excl:{'+'.join(excl) or 'none'}",
        f"v:{__version__}",
    ]
    return "|".join(parts)


def dumps(manifest: Mapping[str, Any]) -> str:
    """Deterministic JSON text of a manifest."""
    return json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write_manifest(directory: Path, manifest: Mapping[str, Any]) -> Path:
    """Write ``manifest.json`` into ``directory`` atomically."""
    path = Path(directory) / MANIFEST
    write_text(path, dumps(manifest))
    return path


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of a finished run, or ``None`` when there is none."""
    path = Path(directory) / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PyfnError(f"{path}: unreadable manifest ({exc}): not a finished pyfn output") from None
    if not isinstance(manifest, dict):
        raise PyfnError(f"{path}: not a pyfn manifest: not a finished pyfn output")
    return manifest


def check_finished(directory: Path) -> dict[str, Any]:
    """The manifest of a finished pyfn output directory; an error if there is none or a file changed since."""
    manifest = read_manifest(directory)
    if manifest is None:
        raise PyfnError(f"{directory}: no {MANIFEST}: not a finished pyfn output (rerun the conversion)")
    for name, digest in manifest.get("outputs", {}).items():
        path = Path(directory) / name
        if not path.is_file():
            raise PyfnError(f"{directory}: {name} listed in {MANIFEST} is missing: not a finished pyfn output")
        if sha256_file(path) != digest:
            raise PyfnError(
                f"{directory}: {name} changed since {MANIFEST} was written (edited?): not a finished pyfn output; "
                f"rerun the conversion, or, to use the edited files, remove {Path(directory) / MANIFEST} and read "
                f"them with `pyfn convert --from FORMAT --source {directory}`")
    return manifest
