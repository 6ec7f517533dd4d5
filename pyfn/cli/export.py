"""``pyfn export hf``: argument checking for :func:`pyfn.hub.export.export_hf`.

``export`` is a verb of its own, not a ``convert --to`` format: a format of
``convert`` writes the splits of one build, and this folder holds two builds
(with and without exemplars), the frames and lexicons, the split ids and a
card; ``convert``'s other options (``--with-exemplars``, ``--splits``,
``--split random``, ``--preprocess``, ``--from``) would not apply to it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, Subparsers, add_cache_options, add_quiet, cache_hint, progress_bar, release_cache
from pyfn.splits.filters import FILTERS

DESCRIPTION = (
    "Write TARGET as a Hugging Face dataset folder that datasets.load_dataset(TARGET, CONFIG) reads offline, "
    "without a loading script: Parquet files per config and split (fulltext: the standard split; "
    "fulltext_exemplars: train with the exemplars, the same validation and test; frames; lexicon: LU -> frames, "
    "train-only and full release), the split ids (splits/), manifest.json (release fingerprint, options, counts, "
    "removals by reason, every file's sha256) and the dataset card README.md, written from them. Both builds are "
    "those of `pyfn convert --to parquet`; the same release and options give byte-identical folders. Then upload "
    "it with `hf upload OWNER/NAME TARGET . --repo-type dataset` (huggingface_hub >= 1; before: huggingface-cli "
    "upload, same arguments), as docs/HF_DATASET.md says."
)


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn export`` (with its one target, ``hf``)."""
    export = sub.add_parser("export", help="publish-ready folders: hf (a Hugging Face dataset with its card)",
                            description="Write a publish-ready folder of a FrameNet release.", epilog=EPILOG)
    targets = export.add_subparsers(dest="export_target", metavar="TARGET")
    targets.required = True
    p = targets.add_parser("hf", help="a Hugging Face dataset folder: Parquet configs, split ids, manifest, card",
                           description=DESCRIPTION, epilog=EPILOG)
    p.add_argument("--source", required=True, help="FrameNet release directory or zip ('sample' for the bundled "
                   "sample)")
    p.add_argument("--target", required=True, help="output directory (created if missing)")
    p.add_argument("--repo-id", metavar="OWNER/NAME", help="the hub repository, for the card's load_dataset lines "
                   "(default: a local path in them)")
    p.add_argument("--force", action="store_true", help="write into a folder holding files no earlier pyfn "
                   "manifest there lists (files of an output's name are overwritten, the others left alone)")
    p.add_argument("--exclude-frames", nargs="+", type=int, default=[], metavar="ID",
                   help="frame ids to drop everywhere (the published FN 1.5 counts exclude 398)")
    p.add_argument("--exclude-lus", nargs="+", type=int, default=[], metavar="ID", help="lexical unit ids to drop")
    p.add_argument("--exclude-sentences", nargs="+", type=int, default=[], metavar="ID", help="sentence ids to drop")
    p.add_argument("--exclude-annosets", nargs="+", type=int, default=[], metavar="ID",
                   help="annotation-set ids to drop")
    p.add_argument("--filter", nargs="+", default=[], metavar="NAME", help=f"train filters: {', '.join(FILTERS)}")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="build even when split documents are missing (the card says so; never called standard)")
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: one per core)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad item instead of skipping and counting")
    add_quiet(p)
    add_cache_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the arguments, export, print where the folder is and what it holds."""
    from pyfn.framenet.sources import SAMPLE, resolve_source  # noqa: PLC0415
    from pyfn.hub.export import export_hf  # noqa: PLC0415
    from pyfn.splits.options import build_options  # noqa: PLC0415

    options = build_options(
        exclude_frames=args.exclude_frames, exclude_lus=args.exclude_lus, exclude_sentences=args.exclude_sentences,
        exclude_annosets=args.exclude_annosets, filters=args.filter, strict=args.strict,
        allow_incomplete=args.allow_incomplete, jobs=args.jobs, flags=True,
    )
    path, label = resolve_source(args.source)
    if not args.quiet:
        print(f"pyfn: reading {label} (twice: without and with exemplars)", file=sys.stderr)
    cache = release_cache(args.cache_dir, args.no_cache)
    manifest = export_hf(path, args.target, options=options, repo_id=args.repo_id,
                         source_label=SAMPLE if args.source == SAMPLE else None,
                         progress=progress_bar(args.quiet), force=args.force, cache=cache)
    cache_hint(cache, args.quiet)
    for warning in manifest["warnings"]:
        print(f"pyfn: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        rows = ", ".join(f"{config} {sum(s['rows'] for s in record['splits'].values()):,}"
                         for config, record in manifest["configs"].items())
        standard = "" if manifest["split_definition"]["standard"] else " (NOT the standard split: see the card)"
        print(f"pyfn: Hugging Face dataset in {Path(args.target)}: rows {rows}{standard}; "
              f"{len(manifest['outputs'])} files, card README.md", file=sys.stderr)
    return 0
