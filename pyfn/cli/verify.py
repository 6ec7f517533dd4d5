"""``pyfn verify``: ``pyfn xp verify`` under the name that shipped experiments, their scripts and CI call."""

from __future__ import annotations

import argparse
from pathlib import Path

from pyfn.cli._util import EPILOG, Subparsers
from pyfn.cli.xp import VERIFY_DESCRIPTION, VERIFY_HELP, add_verify_arguments, verify


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn verify``."""
    p = sub.add_parser("verify", help=VERIFY_HELP, description=f"{VERIFY_DESCRIPTION} Same as `pyfn xp verify`.",
                       epilog=EPILOG)
    add_verify_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify the experiment folder (see :func:`pyfn.cli.xp.verify`)."""
    return verify(Path(args.folder), rerun=args.rerun, pyfn=args.pyfn)
