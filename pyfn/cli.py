"""The ``pyfn`` command line: parse and check arguments, call pyfn's functions."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.splits.builder import SPLITS, BuildOptions
from pyfn.splits.filters import FILTERS

EPILOG = "FrameNet data: ICSI, Berkeley, under CC BY (https://framenet.icsi.berkeley.edu/)."


def _progress(quiet: bool):
    """A tqdm progress bar on stderr, off when quiet or when stderr is not a terminal."""

    def wrap(items, total):
        if quiet or not sys.stderr.isatty():
            return items
        from tqdm import tqdm  # noqa: PLC0415 - only when drawing

        return tqdm(items, total=total, unit="file", desc="reading", leave=False)

    return wrap


def _ids(values: Sequence[str] | None, flag: str) -> frozenset[int]:
    out = set()
    for value in values or ():
        for part in value.split(","):
            if part.strip():
                try:
                    out.add(int(part))
                except ValueError:
                    raise UsageError(f"{flag}: {part!r} is not an integer id") from None
    return frozenset(out)


def _add_convert(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "convert",
        help="build standard splits from FrameNet XML and write them in a parser format",
        description=(
            "Read a FrameNet release (directory or zip, ICSI or NLTK layout), build train/dev/test "
            "as in SPLITS.md (invalid sets dropped, no dev/test sentence in train, duplicates removed, "
            "every removal counted) and write them to TARGET with a manifest.json."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--from", dest="from_", default="fnxml", choices=["fnxml"], help="input format (default: fnxml)")
    p.add_argument("--to", default="jsonl", choices=["jsonl"], help="output format (default: jsonl)")
    p.add_argument(
        "--source",
        help="FrameNet release directory or zip; 'sample' for the bundled sample "
        "(default: NLTK's framenet_v17/v15 zip if installed, else the sample)",
    )
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    p.add_argument(
        "--splits", nargs="+", default=["all"], choices=[*SPLITS, "all"],
        help="splits to write (dev and test are always read, to keep their sentences out of train)",
    )
    p.add_argument("--with-exemplars", "--with_exemplars", action="store_true", help="add lu/*.xml exemplars to train")
    p.add_argument(
        "--exclude-frames", "--excluded_frames", nargs="+", metavar="ID",
        help="frame ids to drop everywhere (the published FN 1.5 counts exclude 398)",
    )
    p.add_argument("--exclude-lus", "--excluded_lus", nargs="+", metavar="ID", help="lexical unit ids to drop")
    p.add_argument("--exclude-sentences", "--excluded_sentences", nargs="+", metavar="ID", help="sentence ids to drop")
    p.add_argument("--exclude-annosets", "--excluded_annosets", nargs="+", metavar="ID", help="annotation-set ids to drop")
    p.add_argument(
        "--filter", "--filters", nargs="+", default=[], metavar="NAME",
        help=f"train filters: {', '.join(FILTERS)}",
    )
    p.add_argument("--split", default="standard", choices=["standard", "random", "kfold"], help="split definition")
    p.add_argument("--seed", type=int, default=0, help="seed of --split random/kfold (default 0)")
    p.add_argument("--folds", type=int, default=5, help="number of folds of --split kfold (default 5)")
    p.add_argument("--fold", type=int, default=0, help="which fold is test with --split kfold (default 0)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="build even when split documents are missing (recorded; never called standard)")
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: one per core)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad item instead of skipping and counting")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_convert)


def _convert(args: argparse.Namespace) -> int:
    from pyfn.convert import SplitSpec, convert  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415

    splits = SPLITS if "all" in args.splits else tuple(s for s in SPLITS if s in args.splits)
    options = BuildOptions(
        splits=splits,
        with_exemplars=args.with_exemplars,
        exclude_frames=_ids(args.exclude_frames, "--exclude-frames"),
        exclude_lus=_ids(args.exclude_lus, "--exclude-lus"),
        exclude_sentences=_ids(args.exclude_sentences, "--exclude-sentences"),
        exclude_annosets=_ids(args.exclude_annosets, "--exclude-annosets"),
        filters=tuple(args.filter),
        strict=args.strict,
        allow_incomplete=args.allow_incomplete,
        jobs=args.jobs,
    )
    if args.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    path, label = resolve_source(args.source)
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    manifest = convert(
        path, args.target, to=args.to, options=options,
        split=SplitSpec(args.split, args.seed, args.folds, args.fold),
        source_label=label if args.source is None or args.source == "sample" else str(args.source),
        progress=_progress(args.quiet),
    )
    for warning in manifest["warnings"]:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        counts = ", ".join(
            f"{name} {c['sentences']:,} sentences / {c['annotation_sets']:,} annotation sets"
            for name, c in manifest["splits"].items()
        )
        removed = sum(n for split in manifest["ledger"].values() for n in split.values())
        print(
            f"pyfn: FrameNet {manifest['release']['version']}: {counts}; {removed:,} removals by reason "
            f"in {args.target}/manifest.json [{manifest['signature']}]",
            file=sys.stderr,
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``pyfn`` argument parser with one sub-command per verb."""
    parser = argparse.ArgumentParser(
        prog="pyfn",
        description="Standardized, reproducible FrameNet data for frame semantic parsing.",
        epilog=EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"pyfn {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_convert(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pyfn`` command; return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except PyfnError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"pyfn: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pyfn: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a raw traceback
        if args.debug:
            traceback.print_exc()
        print(f"pyfn: internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
