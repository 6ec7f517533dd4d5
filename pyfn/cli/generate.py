"""``pyfn generate``: write the train-only lexicon and the scorer lexicon (:func:`pyfn.convert.generate_lexicon`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, Subparsers, add_build_options, add_force, build_options, cache_hint, progress_bar, \
    release_cache, warn


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn generate``."""
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
    add_force(p)
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build train, write the lexicons, print the one-line summary."""
    from pyfn.convert import SplitSpec, generate_lexicon  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.train_lexicon import DEFAULT_RELATIONS  # noqa: PLC0415

    path, label = resolve_source(args.source)
    if not args.quiet:
        print(f"pyfn: reading {label}", file=sys.stderr)
    cache = release_cache(args.cache_dir, args.no_cache)
    manifest = generate_lexicon(
        path, args.target, options=build_options(args, ("train",)),
        split=SplitSpec(args.split, args.seed, args.folds, args.fold),
        relations=tuple(args.relations or DEFAULT_RELATIONS), train_frames_only=not args.all_frames,
        with_coretype=args.with_coretype, release_lexicon=args.release_lexicon, source_label=label,
        progress=progress_bar(args.quiet), force=args.force, cache=cache,
    )
    cache_hint(cache, args.quiet)
    warn(manifest["warnings"])
    if not args.quiet:
        train = manifest["splits"]["train"]
        print(
            f"pyfn: lexicon from train ({train['annotation_sets']:,} annotation sets) in {Path(args.target)}: "
            f"{len(manifest['outputs']):,} files; see manifest.json for what was left out [{manifest['signature']}]",
            file=sys.stderr,
        )
    return 0
