"""``pyfn convert``: check the arguments, build the splits of a release and write them (:func:`pyfn.convert.convert`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, SPLIT_CHOICES, Subparsers, add_build_options, add_force, build_options, \
    cache_hint, executor, progress_bar, refusing, release_cache, warn
from pyfn.cli.preprocess import add_preprocess_options, preprocess_options, summary
from pyfn.errors import UsageError
from pyfn.formats.registry import NOT_SOURCES, READERS, RELEASE_FORMATS, WRITERS, FormatOptions
from pyfn.splits.builder import SPLITS

FROM_FORMATS = ["fnxml", *READERS]
TO_FORMATS = [*WRITERS, *RELEASE_FORMATS]
NOT_FROM = {fmt: f"cannot convert from {fmt}: {why}" for fmt, why in NOT_SOURCES.items()}


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn convert``."""
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
    p.add_argument("--from", dest="from_", default="fnxml", choices=FROM_FORMATS, type=refusing(NOT_FROM),
                   metavar="FORMAT", help=f"input format: {', '.join(FROM_FORMATS)} (default: fnxml)")
    p.add_argument("--to", nargs="+", default=["jsonl"], choices=TO_FORMATS, metavar="FORMAT",
                   help=f"output format(s): {', '.join(TO_FORMATS)} (default: jsonl); several formats share one "
                   "build of the splits; fnxml writes each split as a FrameNet-layout folder {split}/ (from a "
                   "release only)")
    p.add_argument(
        "--source",
        help="FrameNet release directory or zip (--from fnxml; 'sample' for the bundled sample; default: "
        "NLTK's framenet_v17/v15 zip if installed, else the sample; or a split folder --to fnxml wrote, read as "
        "that split), or a directory of split files",
    )
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    add_force(p)
    p.add_argument(
        "--splits", nargs="+", default=["all"], choices=SPLIT_CHOICES,
        help="splits to write (dev and test are always read, to keep their sentences out of train)",
    )
    add_build_options(p)
    fmt = p.add_argument_group("format options")
    fmt.add_argument("--target-encoding", default="list", choices=["list", "range"],
                     help="SEMAFOR target column when reading: every token (SEMAFOR) or first_last (pyfn 1.3, Open-SESAME)")
    fmt.add_argument("--semafor-legacy", action="store_true", help="read 6-column SEMAFOR lines (no rank, score)")
    fmt.add_argument("--kbest", action="store_true", help="read k-best SEMAFOR output, keeping the best rank")
    fmt.add_argument("--bios-scheme", default="bios", choices=["bios", "bio"], help="BIOS (Open-SESAME) or plain BIO")
    fmt.add_argument("--bios-fe-ranks", default="1", choices=["1", "all"], help="FE layer ranks tagged in BIOS (default 1)")
    fmt.add_argument("--bios-columns", type=int, default=16, choices=[15, 16], help="BIOS columns (15: Open-SESAME's own)")
    fmt.add_argument("--consumer", choices=["open-sesame"],
                     help="refuse output this consumer cannot read (default: none, no such check)")
    fmt.add_argument("--semeval-fe-ranks", default="all", choices=["all", "split"],
                     help="SemEval XML: all FE ranks in one layer (pyfn 1.3) or one layer per rank")
    fmt.add_argument("--semeval-ni", action="store_true", help="write null instantiations into SemEval XML")
    fmt.add_argument("--gold", help="directory with {split}.gold.xml: target segmentation for predicted SemEval XML "
                     "(default: none, the predictions' own)")
    fmt.add_argument("--framenet", help="FrameNet release whose frames BIOS output is checked against and Parquet "
                     "takes FE core types from (non-fnxml sources; default: none, no check, null core types)")
    add_preprocess_options(p, in_convert=True)
    p.set_defaults(func=run)


def format_options(args: argparse.Namespace) -> FormatOptions:
    """The format options of ``pyfn convert`` (reads --gold and --framenet)."""
    from pyfn.convert import read_frames  # noqa: PLC0415
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.formats import semeval  # noqa: PLC0415
    from pyfn.framenet import open_release  # noqa: PLC0415

    gold = None
    if args.gold:
        gold_dir = Path(args.gold)
        gold = {
            split: list(semeval.read(gold_dir / f"{split}.gold.xml", log=ProblemLog(strict=True)))
            for split in SPLITS
            if (gold_dir / f"{split}.gold.xml").is_file()
        }
        if not gold:
            raise UsageError(f"--gold {args.gold}: no train/dev/test .gold.xml file there")
    return FormatOptions(
        target_encoding=args.target_encoding,
        semafor_legacy=args.semafor_legacy,
        kbest=args.kbest,
        bios_scheme=args.bios_scheme,
        bios_fe_ranks=args.bios_fe_ranks,
        bios_columns=args.bios_columns,
        consumer=args.consumer,
        semeval_fe_ranks=args.semeval_fe_ranks,
        semeval_null_instantiations=args.semeval_ni,
        frames=read_frames(open_release(args.framenet)) if args.framenet else None,
        gold=gold,
    )


def run(args: argparse.Namespace) -> int:
    """Check the arguments, convert, print the one-line summary (counts, removals, losses, signature)."""
    from pyfn.convert import SplitSpec, check_pair, convert  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.units import by_reason, describe  # noqa: PLC0415

    options = build_options(args, args.splits)
    check_pair(args.from_, args.to)
    if args.from_ == "fnxml":
        path, label = resolve_source(args.source)
    elif args.source is None:
        raise UsageError(f"--from {args.from_} needs --source DIR")
    else:
        path, label = Path(args.source), args.source
    if args.preprocess is None and args.parse:
        raise UsageError("--parse goes with --preprocess conll")
    if args.preprocess is None and args.executor != "local":
        raise UsageError("--executor goes with --preprocess (the batches of sentences are what it sends)")
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    from pyfn.preprocess.directory import tqdm_progress  # noqa: PLC0415

    cache = release_cache(args.cache_dir, args.no_cache) if args.from_ == "fnxml" else None
    with executor(args.executor, args.preprocess_jobs if args.preprocess_jobs > 1 else 0, args.quiet):
        manifest = convert(
            path, args.target, from_=args.from_, to=args.to, options=options, formats=format_options(args),
            split=SplitSpec(args.split, args.seed, args.folds, args.fold),
            source_label=label if args.source is None or args.source == "sample" else str(args.source),
            progress=progress_bar(args.quiet),
            write_progress=progress_bar(args.quiet, "writing", "chunk"),
            preprocess=preprocess_options(args, args.preprocess) if args.preprocess else None,
            preprocess_progress=tqdm_progress(args.quiet),
            force=args.force, reads=[folder for folder in (args.gold, args.framenet) if folder],
            cache=cache,
        )
    cache_hint(cache, args.quiet)
    warn(manifest["warnings"])
    if not args.quiet:
        counts = ", ".join(
            f"{name} {c['sentences']:,} sentences / {c['annotation_sets']:,} annotation sets"
            for name, c in manifest["splits"].items()
        )
        to = "+".join(args.to)
        losses = by_reason(manifest["losses"])
        lost = f"{to} format losses of {describe(losses)}" if any(losses.values()) else f"no {to} format loss"
        where = Path(args.target) / "manifest.json"
        if "ledger" in manifest:
            print(
                f"pyfn: FrameNet {manifest['release']['version']}: {counts}; {describe(by_reason(manifest['ledger']))} "
                f"removed and {lost}, by reason in {where} [{manifest['signature']}]",
                file=sys.stderr,
            )
        else:
            print(f"pyfn: {args.from_} -> {to}: {counts}; {describe(manifest['skipped'])} skipped as bad and {lost}, "
                  f"by reason in {where}", file=sys.stderr)
        if "preprocessing" in manifest:
            print(summary(manifest["preprocessing"], Path(args.target)), file=sys.stderr)
    return 0
