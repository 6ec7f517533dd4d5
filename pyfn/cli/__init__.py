"""The ``pyfn`` command line: one module per verb, each with ``add_parser(subparsers)`` and ``run(args)``, a thin
layer that parses and checks arguments and calls a plain function of pyfn; :mod:`pyfn.cli._util` holds what they
share. :func:`build_parser` is the whole parser (what ``--help`` and the docs' CLI reference show), :func:`main`
the ``pyfn`` entry point."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

from pyfn import __version__
from pyfn.cli import (
    audit,
    baseline,
    cache,
    check_release,
    compare,
    compare_runs,
    convert,
    export,
    generate,
    open_sesame,
    preprocess,
    score,
    semafor,
    show,
    simpleframeid,
    verify,
    xp,
)
from pyfn.cli._util import EPILOG, Parser, subparsers
from pyfn.cli.convert import FROM_FORMATS, TO_FORMATS
from pyfn.cli.score import PROTOCOL_NAMES
from pyfn.errors import PyfnError, UsageError

__all__ = ["COMMANDS", "FROM_FORMATS", "PROTOCOL_NAMES", "TO_FORMATS", "build_parser", "main", "subparsers"]

COMMANDS = (convert, generate, preprocess, score, compare, compare_runs, check_release, audit, export, show, xp, verify,
            baseline, open_sesame, simpleframeid, semafor, cache)
"""The verbs' modules, in the order ``pyfn --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``pyfn`` argument parser with one sub-command per verb."""
    parser = Parser(
        prog="pyfn",
        description="Standardized, reproducible FrameNet data for frame semantic parsing.",
        epilog=EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"pyfn {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub)
    parser.set_defaults(pyfn=main)  # what `pyfn xp run` and `pyfn verify --rerun` run each pyfn step with
    for p in [parser, *subparsers(parser)]:  # the deepest parser used names itself, for errors found later
        p.set_defaults(parser=p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pyfn`` command; return its exit code."""
    args, extra = build_parser().parse_known_args(argv)
    if extra:
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except PyfnError as exc:
        if args.debug:
            traceback.print_exc()
        hint = f"\ntry '{args.parser.prog} --help' for more" if isinstance(exc, UsageError) else ""
        print(f"pyfn: error: {exc}{hint}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pyfn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output went away (`pyfn score ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a raw traceback
        if args.debug:
            traceback.print_exc()
        print(f"pyfn: internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)", file=sys.stderr)
        return 3
