"""The ``pyfn`` command line: parse and check arguments, call pyfn's functions."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.formats.registry import FormatOptions
from pyfn.splits.builder import SPLITS, BuildOptions
from pyfn.splits.filters import FILTERS

FROM_FORMATS = ["fnxml", "jsonl", "semafor", "bios", "semeval", "conllx", "conllu"]
TO_FORMATS = ["jsonl", "semafor", "bios", "conllx", "conllu", "semeval", "fnxml"]
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


def _add_build_options(p: argparse.ArgumentParser) -> None:
    """Options that decide which annotation sets the splits hold (convert and generate)."""
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


def _build_options(args: argparse.Namespace, splits: tuple[str, ...]) -> BuildOptions:
    if args.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    return BuildOptions(
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


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="write the train-only lexicon (LU/FE maps, hierarchy CSVs, train-only FN view) and the scorer lexicon",
        description=(
            "Build the train split (dev and test read to keep their sentences out) and write, from train only: "
            "lu_frames.tsv, frame_elements.tsv, frame_parents.csv, ancestors.csv, frame_parent_rolemappings.csv "
            "and fn_train/ (frame/, luIndex.xml, frRelation.xml limited to train); from the full release: "
            "frames.xml and frRelations.xml for the SemEval scorer. Fails if anything seen only outside train leaks in."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--source", help="FrameNet release directory or zip ('sample' for the bundled sample)")
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    _add_build_options(p)
    p.add_argument("--relations", nargs="+", default=None, metavar="TYPE",
                   help="frame relation types of the hierarchy CSVs, FrameNet spelling (default: Inheritance Subframe)")
    p.add_argument("--all-frames", action="store_true",
                   help="follow ancestor chains through frames absent from train (default: stop there, as pyfn 1.3)")
    p.add_argument("--with-coretype", action="store_true", help="write FE:coreType in frame_elements.tsv")
    p.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    from pyfn.convert import SplitSpec, generate_lexicon  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.lexicon import DEFAULT_RELATIONS  # noqa: PLC0415

    path, label = resolve_source(args.source)
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    manifest = generate_lexicon(
        path, args.target, options=_build_options(args, ("train",)),
        split=SplitSpec(args.split, args.seed, args.folds, args.fold),
        relations=tuple(args.relations or DEFAULT_RELATIONS), train_frames_only=not args.all_frames,
        with_coretype=args.with_coretype, source_label=label, progress=_progress(args.quiet),
    )
    for warning in manifest["warnings"]:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        train = manifest["splits"]["train"]
        print(
            f"pyfn: lexicon from train ({train['annotation_sets']:,} annotation sets) in {args.target}: "
            f"{len(manifest['outputs']):,} files; see manifest.json for what was left out [{manifest['signature']}]",
            file=sys.stderr,
        )
    return 0


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
    p.add_argument("--from", dest="from_", default="fnxml", choices=FROM_FORMATS, help="input format (default: fnxml)")
    p.add_argument("--to", nargs="+", default=["jsonl"], choices=TO_FORMATS,
                   help="output format(s) (default: jsonl); several formats share one build of the splits")
    p.add_argument(
        "--source",
        help="FrameNet release directory or zip (--from fnxml; 'sample' for the bundled sample; default: "
        "NLTK's framenet_v17/v15 zip if installed, else the sample), or a directory of split files",
    )
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    p.add_argument(
        "--splits", nargs="+", default=["all"], choices=[*SPLITS, "all"],
        help="splits to write (dev and test are always read, to keep their sentences out of train)",
    )
    _add_build_options(p)
    fmt = p.add_argument_group("format options")
    fmt.add_argument("--target-encoding", default="list", choices=["list", "range"],
                     help="SEMAFOR target column when reading: every token (SEMAFOR) or first_last (pyfn 1.3, Open-SESAME)")
    fmt.add_argument("--semafor-legacy", action="store_true", help="read 6-column SEMAFOR lines (no rank, score)")
    fmt.add_argument("--kbest", action="store_true", help="read k-best SEMAFOR output, keeping the best rank")
    fmt.add_argument("--bios-scheme", default="bios", choices=["bios", "bio"], help="BIOS (Open-SESAME) or plain BIO")
    fmt.add_argument("--bios-fe-ranks", default="1", choices=["1", "all"], help="FE layer ranks tagged in BIOS (default 1)")
    fmt.add_argument("--bios-columns", type=int, default=16, choices=[15, 16], help="BIOS columns (15: Open-SESAME's own)")
    fmt.add_argument("--consumer", choices=["open-sesame"], help="refuse output this consumer cannot read")
    fmt.add_argument("--semeval-fe-ranks", default="all", choices=["all", "split"],
                     help="SemEval XML: all FE ranks in one layer (pyfn 1.3) or one layer per rank")
    fmt.add_argument("--semeval-ni", action="store_true", help="write null instantiations into SemEval XML")
    fmt.add_argument("--gold", help="directory with {split}.gold.xml: target segmentation for predicted SemEval XML")
    fmt.add_argument("--framenet", help="FrameNet release whose frames BIOS output is checked against (non-fnxml sources)")
    p.set_defaults(func=_convert)


def _format_options(args: argparse.Namespace) -> FormatOptions:
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


def _convert(args: argparse.Namespace) -> int:
    from pyfn.convert import SplitSpec, check_pair, convert  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415

    splits = SPLITS if "all" in args.splits else tuple(s for s in SPLITS if s in args.splits)
    options = _build_options(args, splits)
    check_pair(args.from_, args.to)
    if args.from_ == "fnxml":
        path, label = resolve_source(args.source)
    elif args.source is None:
        raise UsageError(f"--from {args.from_} needs --source DIR")
    else:
        path, label = Path(args.source), args.source
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    manifest = convert(
        path, args.target, from_=args.from_, to=args.to, options=options, formats=_format_options(args),
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
        lost = sum(n for split in manifest["losses"].values() for n in split.values())
        if "ledger" in manifest:
            removed = sum(n for split in manifest["ledger"].values() for n in split.values())
            print(
                f"pyfn: FrameNet {manifest['release']['version']}: {counts}; {removed:,} removals and "
                f"{lost:,} {'+'.join(args.to)} format losses by reason in {args.target}/manifest.json [{manifest['signature']}]",
                file=sys.stderr,
            )
        else:
            skipped = sum(manifest["skipped"].values())
            print(f"pyfn: {args.from_} -> {'+'.join(args.to)}: {counts}; {skipped:,} bad items skipped, {lost:,} format "
                  f"losses by reason in {args.target}/manifest.json", file=sys.stderr)
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
    _add_generate(sub)
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
