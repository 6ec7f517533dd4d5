#!/usr/bin/env python3
"""Write the published split ids of a FrameNet release (resources/splits/fnX/ids*/).

Builds the standard split as `pyfn convert` does (the published counts' options:
frame 398 excluded on FN 1.5, none on FN 1.7) with `pyfn.load`, and writes,
per split, the kept annotation-set ids and sentence ids with their checksums
(:mod:`pyfn.splits.ids`): fulltext train/dev/test into `ids/`, train with
exemplars into `ids-with-exemplars/`. The release must be genuine (pyfn warns
otherwise, and this script then refuses), with one exception: a copy that lacks
only test documents (the FN 1.7 copy here lacks ANC__WhereToHongKong.xml) gets
the fulltext train list alone, and only when the train it builds has exactly the
published counts. A missing test document can only remove train sets (those
whose sentence it also holds, SPLITS.md step 5), so a train of the published
size is the genuine release's train, set for set; dev and test are not written.

Usage: python scripts/make_split_ids.py RELEASE.zip OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyfn
from pyfn.splits.ids import write_ids

EXCLUDED = {"1.5": [398], "1.7": []}
PUBLISHED_TRAIN_FT = {"1.7": {"sentences": 3362, "annotation_sets": 19550}}
"""Kabbach et al. (2018)'s fulltext train counts (SPLITS.md), against which a train built without a
missing test document is checked."""


def main(source: str, out: str) -> None:
    version = _version(source)
    ft = pyfn.load(source, "all", exclude_frames=EXCLUDED.get(version, []), allow_incomplete=True)
    manifest = ft["train"].manifest
    definition = manifest["split_definition"]
    if definition["standard"] and not manifest["warnings"]:
        _write(source, ft, Path(out), version)
        return
    missing = definition.get("missing_documents", [])
    published = PUBLISHED_TRAIN_FT.get(version)
    if missing and set(missing) <= set(definition["test"]) and manifest["splits"]["train"] == published:
        note = (f"train (fulltext) only, built from a copy of FrameNet {version} that lacks the test document(s) "
                f"{', '.join(missing)} (signature: -incomplete); a missing test document can only remove train sets, "
                f"and this train has the published counts ({published['sentences']:,} sentences, "
                f"{published['annotation_sets']:,} annotation sets), so it is the genuine release's "
                "train set for set; dev, test and train with exemplars are not published from this copy")
        target = Path(out) / "ids"
        target.mkdir(parents=True, exist_ok=True)
        for path in write_ids(target, {"train": ft["train"].sets}, ft["train"].signature, note):
            print(path)
        return
    sys.exit(f"{source}: not the genuine release or not the standard split: {manifest['warnings']}")


def _write(source: str, ft: dict, out: Path, version: str) -> None:
    ex = pyfn.load(source, "train", with_exemplars=True, exclude_frames=EXCLUDED[version])
    for folder, splits, signature in (("ids", {n: s.sets for n, s in ft.items()}, ft["test"].signature),
                                      ("ids-with-exemplars", {"train": ex.sets}, ex.signature)):
        target = out / folder
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
