"""``pyfn cache``: what pyfn's caches hold (``list``), and removing what this pyfn cannot use (``prune``) or
everything (``clear``). The files are found and removed by :mod:`pyfn.cache_admin`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pyfn.cache_admin import Entry, record, remove, scan, size_text, to_prune
from pyfn.cli._util import EPILOG, Subparsers
from pyfn.framenet.listing import FOLDER


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn cache``."""
    p = sub.add_parser(
        "cache",
        help="list pyfn's caches (parsed releases, preprocessing results), prune what this pyfn cannot use, clear",
        description=(
            "pyfn keeps two caches under one root: parsed FrameNet releases (ROOT/releases: each annotation folder "
            "of a release, about 220 MB for FN 1.5 with exemplars, its frames, 1 MB, and a zip's member names, 0.4 MB) and preprocessing results "
            "(ROOT/preprocess). "
            "Builds add entries and never remove them. 'list' (the default) shows every entry: its size, the "
            "release folder it holds and where that release was, and whether this pyfn can use it; 'prune' removes "
            "the parsed-release entries another pyfn version (another reader, record layout, marshal or lxml "
            "version) wrote, and temporary files left by killed writes; 'clear' removes every entry of both "
            "caches. Only files pyfn writes there are touched. Outputs never depend on the caches: a removed "
            "entry is made again when next needed."
        ),
        epilog=EPILOG,
    )
    p.add_argument("action", nargs="?", choices=("list", "prune", "clear"), default="list",
                   help="list (default), prune or clear")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the caches' root (default: $PYFN_CACHE, else ~/.cache/pyfn), as `pyfn convert --cache-dir`")
    p.add_argument("--dry-run", action="store_true", help="prune, clear: say what would be removed, remove nothing")
    p.add_argument("--json", action="store_true", help="print the entries (list) or what was removed as JSON")
    p.set_defaults(func=run)


def _line(entry: Entry) -> str:
    if entry.partial:
        what = f"partial write, {entry.age / 60:.0f} min old"
    elif entry.kind == "preprocess":
        what = "preprocessing results"
    else:
        held = "member names" if entry.folder == FOLDER else f"{entry.folder}/ ({entry.files:,} files)"
        what = (f"{held} of {entry.source or 'a release'}; "
                f"{'usable' if entry.usable else 'NOT usable by this pyfn'}")
    return f"  {size_text(entry.size):>9}  {entry.path.name[:12]}…  {what}"


def run(args: argparse.Namespace) -> int:
    """List, prune or clear the caches under the root the options name."""
    from pyfn.framenet.cache import default_cache_root  # noqa: PLC0415

    root = Path(args.cache_dir) if args.cache_dir else default_cache_root()
    entries = scan(root)
    if args.action == "list":
        if args.json:
            print(json.dumps({"root": str(root), "entries": [record(e) for e in entries]}, indent=2))
            return 0
        print(f"pyfn caches in {root}:")
        for kind, title in (("releases", "parsed releases"), ("preprocess", "preprocessing results")):
            mine = [e for e in entries if e.kind == kind]
            print(f"{title}: {len(mine)} files, {size_text(sum(e.size for e in mine))}")
            for entry in mine:
                print(_line(entry))
        stale = to_prune(entries)
        if stale:
            print(f"`pyfn cache prune` would free {size_text(sum(e.size for e in stale))} ({len(stale)} files)")
        return 0
    chosen = entries if args.action == "clear" else to_prune(entries)
    freed, failed = (sum(e.size for e in chosen), []) if args.dry_run else remove(chosen)
    if args.json:
        print(json.dumps({"root": str(root), "dry_run": args.dry_run, "removed": [record(e) for e in chosen],
                          "bytes": freed}, indent=2))
    else:
        for entry in chosen:
            print(_line(entry))
    verb = "would free" if args.dry_run else "freed"
    print(f"pyfn cache {args.action}: {verb} {size_text(freed)} ({len(chosen) - len(failed)} files) in {root}",
          file=sys.stderr)
    for message in failed:
        print(f"pyfn cache: error: {message}", file=sys.stderr)
    return 1 if failed else 0
