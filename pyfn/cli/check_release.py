"""``pyfn check-release``: compare a copy of FrameNet with the genuine release, file by file
(:func:`pyfn.framenet.identity.compare_release`)."""

from __future__ import annotations

import argparse
import sys

from pyfn.cli._util import EPILOG, Subparsers
from pyfn.errors import UsageError


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn check-release``."""
    p = sub.add_parser(
        "check-release",
        help="compare a copy of FrameNet with the genuine release, file by file",
        description=("Hash every file of SOURCE and compare it with the file manifest of the genuine release that "
                     "pyfn ships (FrameNet 1.7): list missing and differing files; exit 1 unless the copy is genuine."),
        epilog=EPILOG,
    )
    p.add_argument("source", help="FrameNet release directory or zip")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare the copy with the genuine manifest; list what differs; 1 unless genuine."""
    from pyfn.framenet import open_release  # noqa: PLC0415
    from pyfn.framenet.identity import KNOWN, compare_release  # noqa: PLC0415

    release = open_release(args.source)
    result = compare_release(release)
    if result is None:
        raise UsageError(f"{args.source}: FrameNet {release.version}: pyfn has no genuine file manifest for this "
                         f"version (known: {', '.join(KNOWN)})")
    for path in result.missing:
        print(f"missing\t{path}")
    for path in result.differing:
        print(f"differs\t{path}")
    verdict = "the genuine release" if result.genuine else "NOT the genuine release"
    print(f"pyfn: {args.source}: FrameNet {result.version}, {result.compared:,} files identical, "
          f"{len(result.missing)} missing, {len(result.differing)} differing: {verdict}", file=sys.stderr)
    return 0 if result.genuine else 1
