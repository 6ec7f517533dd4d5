#!/usr/bin/env python3
"""Record in resources/hub/audits.json the `pyfn audit` figures that the dataset card of `pyfn export hf`
compares (pyfn/hub/audits.py): for the release of an export folder, pyfn's split ids (its
`splits/fulltext` and `splits/fulltext_exemplars`) and, with --fst (FrameNet 1.7),
frame-semantic-transformer's split as `scripts/fst_fn17_split.py` rebuilds it, fulltext and with
exemplars. The entry of that release version is replaced; the others are kept.

Usage: python scripts/make_hub_audits.py RELEASE EXPORT_DIR [--fst]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from pyfn.audit.run import audit
from pyfn.fileio import write_text
from pyfn.framenet.cache import ReleaseCache
from pyfn.resources import resource_path

REPO = Path(__file__).resolve().parent.parent
OUT = resource_path("hub", "audits.json")
FST_LABELS = {False: "frame-semantic-transformer, fulltext", True: "frame-semantic-transformer, with exemplars"}


def _audited(path: Path, release: str) -> dict:
    """The audit record of ``path`` (ids read in ``release``), without the inputs' local paths."""
    record = audit([(path, None)], source=release, cache=ReleaseCache.under())
    record.pop("inputs")
    return record


def main(release: str, export: Path, fst: bool) -> None:
    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    name = manifest["source"]["path"]
    missing = manifest["split_definition"]["missing_documents"]
    entry = {
        "release": f"the copy {name}" + (f", which lacks {', '.join(missing)}" if missing else ""),
        "fingerprint": manifest["release"]["fingerprint"],
        "note": ("The missing document's sets are in no split, so counts that involve it are lower bounds."
                 if missing else ""),
        "splits": [],
    }
    for config, label in (("fulltext", "pyfn, fulltext"), ("fulltext_exemplars", "pyfn, with exemplars")):
        ids = export / "splits" / config
        entry["splits"].append({
            "label": label, "project": "pyfn", "config": config,
            "signature": json.loads((ids / "ids.json").read_text(encoding="utf-8"))["signature"],
            "command": f"pyfn audit splits/{config} --source {name}", "audit": _audited(ids, release),
        })
    if fst:
        with tempfile.TemporaryDirectory() as tmp:
            for exemplars, label in FST_LABELS.items():
                out = Path(tmp) / f"fst{'-ex' if exemplars else ''}.json"
                flag = ["--with-exemplars"] if exemplars else []
                subprocess.run([sys.executable, str(REPO / "scripts" / "fst_fn17_split.py"), release, str(out), *flag],
                               check=True)
                entry["splits"].append({
                    "label": label, "project": "frame-semantic-transformer c16afa8",
                    "command": f"python scripts/fst_fn17_split.py {name} fst.json {' '.join(flag)}".rstrip()
                               + f" && pyfn audit fst.json --source {name}",
                    "audit": _audited(out, release),
                })
    record = json.loads(OUT.read_text(encoding="utf-8")) if OUT.is_file() else {"releases": {}}
    record["about"] = ("`pyfn audit` records compared by the dataset card of `pyfn export hf`; written by "
                       "scripts/make_hub_audits.py")
    record["releases"][manifest["release"]["version"]] = entry
    record["releases"] = dict(sorted(record["releases"].items()))
    write_text(OUT, json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{OUT}: FrameNet {manifest['release']['version']}: {len(entry['splits'])} audits", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--fst"]):
        sys.exit(__doc__)
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3:] == ["--fst"])
