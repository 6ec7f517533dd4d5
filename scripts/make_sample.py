#!/usr/bin/env python3
"""Cut pyfn's bundled sample corpus out of a FrameNet 1.5 release.

Usage: python scripts/make_sample.py FNDATA-1.5.zip resources/sample

Copies a few fulltext documents byte for byte, the frame files of the frames
they use, the lu files of a few of their lexical units (for --with-exemplars),
frRelation.xml limited to relations between those frames, semTypes.xml, and
writes the sample's split lists (two dev and two test documents).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from lxml import etree

from pyfn.framenet import open_release
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.xml import NS

TRAIN = (
    "ANC__110CYL070.xml",
    "C-4__C-4Text.xml",
    "LUCorpus-v0.3__20000419_apw_eng-NEW.xml",
    "LUCorpus-v0.3__20000424_nyt-NEW.xml",
    "LUCorpus-v0.3__artb_004_A1_E1_NEW.xml",
    "SemAnno__Text1.xml",
)
DEV = ("LUCorpus-v0.3__ENRON-pearson-email-25jul02.xml", "Miscellaneous__Hijack.xml")
TEST = ("Miscellaneous__SadatAssassination.xml", "PropBank__AetnaLifeAndCasualty.xml")
LU_FILES = 6
README = """pyfn sample of FrameNet Release 1.5 (pyfn-sample)

A few files of FrameNet Release 1.5, copied unchanged (frRelation.xml is
limited to relations between the frames present), so that pyfn works out of
the box. Made by scripts/make_sample.py.

FrameNet is developed by the International Computer Science Institute,
Berkeley, and released under the Creative Commons Attribution license
(CC BY): https://framenet.icsi.berkeley.edu/
Baker, Fillmore & Lowe (1998), "The Berkeley FrameNet Project", COLING-ACL.
"""


def main(source: str, target: str) -> None:
    release = open_release(source)
    out = Path(target)
    (out / "fulltext").mkdir(parents=True, exist_ok=True)
    (out / "frame").mkdir(exist_ok=True)
    (out / "lu").mkdir(exist_ok=True)
    frames: set[str] = set()
    lus: dict[int, int] = {}
    for doc in TRAIN + DEV + TEST:
        data = release.read(f"fulltext/{doc}")
        (out / "fulltext" / doc).write_bytes(data)
        for aset in read_annotations(data, doc).sets:
            frames.add(aset.frame_name)
            if aset.lu_id is not None:
                lus[aset.lu_id] = lus.get(aset.lu_id, 0) + 1
    kept = sorted(f for f in frames if release.exists(f"frame/{f}.xml"))
    for name in kept:
        (out / "frame" / f"{name}.xml").write_bytes(release.read(f"frame/{name}.xml"))
    sizes = sorted(
        (len(release.read(f"lu/lu{i}.xml")), i) for i in lus if release.exists(f"lu/lu{i}.xml")
    )
    for _, lu_id in sizes[len(sizes) // 2: len(sizes) // 2 + LU_FILES]:
        (out / "lu" / f"lu{lu_id}.xml").write_bytes(release.read(f"lu/lu{lu_id}.xml"))
    tree = etree.fromstring(release.read("frRelation.xml"))
    for rel in list(tree.iter(NS + "frameRelation")):
        if rel.get("subFrameName") not in frames or rel.get("superFrameName") not in frames:
            rel.getparent().remove(rel)
    (out / "frRelation.xml").write_bytes(
        etree.tostring(tree, xml_declaration=True, encoding="UTF-8", standalone=True)
    )
    (out / "semTypes.xml").write_bytes(release.read("semTypes.xml"))
    (out / "README.txt").write_text(README, encoding="utf-8")
    splits = Path(__file__).resolve().parent.parent / "resources" / "splits" / "sample"
    splits.mkdir(parents=True, exist_ok=True)
    (splits / "dev.txt").write_text("\n".join(DEV) + "\n", encoding="utf-8")
    (splits / "test.txt").write_text("\n".join(TEST) + "\n", encoding="utf-8")
    print(f"sample: {len(TRAIN + DEV + TEST)} documents, {len(kept)} frames, {LU_FILES} lu files -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or not re.search(r"\S", sys.argv[1]):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
