"""``pyfn show ID``: argument checking for :mod:`pyfn.show` (where an annotation set, sentence or document went)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, SPLIT_CHOICES, Subparsers, add_build_options, build_options, progress_bar, \
    release_cache
from pyfn.errors import UsageError
from pyfn.formats.registry import EXTRAS, WRITERS, FormatOptions
from pyfn.show import KINDS, SOURCES, Inputs
from pyfn.splits.builder import SPLITS


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn show`` (with ``pyfn convert``'s build options)."""
    p = sub.add_parser(
        "show",
        help="where an annotation set, sentence or document went: its split, or the step and reason that removed it",
        description=(
            "Build the splits again with a trace (through the parsed-release cache: seconds when warm) and print, "
            "for ID (an annotation-set, sentence or FrameNet document ID, or a fulltext file name), the sentence with "
            "its target and FEs in brackets, the split its document went to, and either 'kept' or the SPLITS.md step "
            "and ledger reason that removed it: the kept set a duplicate lost to, the dev or test sentence an overlap "
            "matched; for a kept annotation set, what each output format loses of it (written alone). With "
            "--manifest, the release and options a conversion recorded (the rebuild is checked against its "
            "signature and ledger); without, --source and the build options, as `pyfn convert` takes them. An ID "
            "that names several things (FN 1.5 gives some IDs to a fulltext and an exemplar set) shows them all."
        ),
        epilog=EPILOG,
    )
    p.add_argument("id", metavar="ID", help="annotation-set, sentence or document ID, or a fulltext file name")
    p.add_argument("--manifest", metavar="M", help="a conversion folder or its manifest.json: use the release and "
                   "the options it records (default: none, the options below)")
    p.add_argument("--source", help="FrameNet release directory or zip (default: the manifest's, else as "
                   "`pyfn convert`: NLTK's FrameNet if installed, else the bundled sample)")
    p.add_argument("--kind", choices=KINDS, default="auto",
                   help="what ID names (default auto: every annotation set, sentence and document it matches)")
    p.add_argument("--from-source", choices=SOURCES,
                   help="only fulltext or only exemplar sets (default: both, when the build reads exemplars)")
    p.add_argument("--splits", nargs="+", default=["all"], choices=SPLIT_CHOICES,
                   help="splits the conversion wrote, as `pyfn convert --splits` (dev and test are always read)")
    p.add_argument("--to", nargs="+", choices=list(WRITERS), metavar="FORMAT",
                   help="formats whose losses of a kept set are shown: "
                   f"{', '.join(WRITERS)} (default: the manifest's, else every installed one)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_build_options(p)
    p.set_defaults(func=run)


def _inputs(args: argparse.Namespace) -> tuple[str | None, Inputs]:
    """The release to read and what to rebuild, from the manifest or the options."""
    from pyfn.show import manifest_inputs  # noqa: PLC0415

    options = build_options(args, args.splits)
    spec = {"kind": args.split, "seed": args.seed, "folds": args.folds, "fold": args.fold}
    if args.manifest is None:
        formats = tuple(fmt for fmt in WRITERS if fmt not in EXTRAS or _installed(fmt))
        return args.source, Inputs(options, spec, tuple(args.to or formats), FormatOptions())
    given = [flag for flag, changed in (
        ("--splits", options.splits != SPLITS), ("--with-exemplars", options.with_exemplars),
        ("--exclude-*", any((options.exclude_frames, options.exclude_lus, options.exclude_sentences,
                             options.exclude_annosets))),
        ("--filter", bool(options.filters)), ("--filter-scope", options.filter_scope != "train"),
        ("--allow-incomplete", options.allow_incomplete),
        ("--split/--seed/--folds/--fold", spec != {"kind": "standard", "seed": 0, "folds": 5, "fold": 0}),
    ) if changed]
    if given:
        raise UsageError(f"--manifest takes the options the conversion recorded: drop {', '.join(given)}")
    source, inputs = manifest_inputs(Path(args.manifest), jobs=args.jobs)
    if args.to:
        inputs = Inputs(inputs.options, inputs.split, tuple(args.to), inputs.format_options, inputs.manifest,
                        inputs.manifest_path)
    return args.source or source, inputs


def _installed(fmt: str) -> bool:
    from importlib.util import find_spec  # noqa: PLC0415

    return find_spec(EXTRAS[fmt][0]) is not None


def run(args: argparse.Namespace) -> int:
    """Rebuild with a trace and print what became of ID."""
    from pyfn.convert import SplitSpec, make_definition  # noqa: PLC0415
    from pyfn.framenet.release import open_release  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.show import render, show  # noqa: PLC0415

    source, inputs = _inputs(args)
    path, label = resolve_source(source)
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    release = open_release(path)
    split = inputs.split
    definition = make_definition(release, SplitSpec(split.get("kind", "standard"), split.get("seed", 0),
                                                    split.get("folds", 5), split.get("fold", 0)))
    report = show(release, definition, inputs, args.id, kind=args.kind, source=args.from_source,
                  cache=release_cache(args.cache_dir, args.no_cache), progress=progress_bar(args.quiet))
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render(report), end="")
    return 0
