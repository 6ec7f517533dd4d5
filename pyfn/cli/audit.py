"""``pyfn audit``: check a train/dev/test split for leakage and duplicates; exit 1 when leakage is found."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pyfn.cli._util import Subparsers, add_cache_options, release_cache
from pyfn.errors import UsageError
from pyfn.fileio import write_text

DESCRIPTION = (
    "Check a train/dev/test split for leakage: (a) train exemplar sentences whose normalised text (lower-cased, "
    "whitespace removed: docs/SPLITS.md step 5) is a dev or test sentence; (b) within a split, one normalised text "
    "under several fulltext sentences (reported) and the same annotation set twice; (c) normalised texts shared by "
    "train-dev, train-test, dev-test; (d) with --against, ids in other splits of a second set (e.g. the split on "
    "another release) and sentences whose text changed. INPUT: a pyfn output folder or split file (any format "
    "pyfn reads), an Open-SESAME CoNLL file (*.conll, split from its name), a folder or file of id lists "
    "({split}.{source}.annoset_ids.txt, as in resources/splits/), or a JSON file of ids "
    '({"id_kind": "annoset"|"sentence", "train": [ids] or {"fulltext": [...], "exemplar": [...]}, "dev": ..., '
    '"test": ...}); ids get their texts from --source. Exit status: 0 when every check is clean, 1 when (a), '
    "(c) or (d) finds anything (with --fail-on-duplicates, also when (b) finds an annotation set twice), 2 for bad "
    "usage, 1 for an unreadable input."
)


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn audit``."""
    p = sub.add_parser("audit", help="check a train/dev/test split for leakage and duplicates (exit 1 on leakage)",
                       description=DESCRIPTION)
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="inputs holding one or more splits (see above)")
    for split in ("train", "dev", "test"):
        p.add_argument(f"--{split}", action="append", default=[], metavar="PATH",
                       help=f"an input whose {split} split (or, for a single file, all of it) is {split}; repeatable")
    p.add_argument("--source", metavar="RELEASE", help="FrameNet release (directory or zip) the inputs' ids are ids of")
    p.add_argument("--against", action="append", default=[], metavar="INPUT",
                   help="a second set of splits with FrameNet ids (id lists, JSON, pyfn JSONL/Parquet) for check (d); "
                   "repeatable; SPLIT=PATH puts a single file in SPLIT")
    p.add_argument("--against-source", metavar="RELEASE", help="FrameNet release the --against ids are ids of")
    p.add_argument("--examples", type=int, default=3, metavar="N", help="examples shown per check and split pair")
    p.add_argument("--fail-on-duplicates", action="store_true",
                   help="exit 1 also when an annotation set is twice in a split (check b)")
    p.add_argument("--json", action="store_true", help="print the record as JSON instead of the report")
    p.add_argument("--output", metavar="FILE", help="write the JSON record to FILE (atomically) and the report to stdout")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="processes reading the release for ids (default 0: one per core)")
    add_cache_options(p)
    p.set_defaults(func=run)


def _against(values: list[str]) -> list[tuple[Path, str | None]]:
    out: list[tuple[Path, str | None]] = []
    for value in values:
        split, _, path = value.partition("=")
        out.append((Path(path), split) if path and split in ("train", "dev", "test") else (Path(value), None))
    return out


def run(args: argparse.Namespace) -> int:
    """Check the arguments, audit, print the report or the JSON; 1 when leakage is found."""
    from pyfn.audit.report import lines  # noqa: PLC0415
    from pyfn.audit.run import audit  # noqa: PLC0415

    if args.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    if args.against_source and not args.against:
        raise UsageError("--against-source goes with --against")
    inputs = [(Path(p), None) for p in args.inputs]
    inputs += [(Path(p), split) for split in ("train", "dev", "test") for p in getattr(args, split)]
    cache = release_cache(args.cache_dir, args.no_cache)
    result = audit(inputs, source=args.source, against=_against(args.against), against_source=args.against_source,
                   examples=args.examples, jobs=args.jobs, cache=cache)
    text = json.dumps(result, indent=1, ensure_ascii=False) + "\n"
    if args.output:
        write_text(Path(args.output), text)
    if args.json:
        sys.stdout.write(text)
    else:
        for line in lines(result):
            print(line)
    return 1 if result["leakage"] or (args.fail_on_duplicates and result["duplicates"]) else 0
