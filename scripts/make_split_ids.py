#!/usr/bin/env python3
"""Write the published split ids of a FrameNet release (resources/splits/fnX/ids*/).

Builds the standard split as `pyfn convert` does (the published counts' options:
frame 398 excluded on FN 1.5, none on FN 1.7) with `pyfn.load`, and writes,
per split, the kept annotation-set ids and sentence ids with their checksums
(:mod:`pyfn.splits.ids`): fulltext train/dev/test into `ids/`, train with
exemplars into `ids-with-exemplars/`. The release must be genuine (pyfn warns
otherwise, and this script then refuses).

Usage: python scripts/make_split_ids.py RELEASE.zip OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyfn
from pyfn.splits.ids import write_ids

EXCLUDED = {"1.5": [398], "1.7": []}


def main(source: str, out: str) -> None:
    ft = pyfn.load(source, "all", exclude_frames=EXCLUDED.get(_version(source), []))
    manifest = ft["test"].manifest
    if manifest["warnings"] or not manifest["split_definition"]["standard"]:
        sys.exit(f"{source}: not the genuine release or not the standard split: {manifest['warnings']}")
    version = manifest["release"]["version"]
    ex = pyfn.load(source, "train", with_exemplars=True, exclude_frames=EXCLUDED[version])
    for folder, splits, signature in (("ids", {n: s.sets for n, s in ft.items()}, ft["test"].signature),
                                      ("ids-with-exemplars", {"train": ex.sets}, ex.signature)):
        target = Path(out) / folder
        target.mkdir(parents=True, exist_ok=True)
        for path in write_ids(target, splits, signature):
            print(path)


def _version(source: str) -> str:
    from pyfn.framenet.release import open_release  # noqa: PLC0415

    return open_release(source).version


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
