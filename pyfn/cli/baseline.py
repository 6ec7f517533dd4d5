"""``pyfn baseline NAME --data DATA --lexicon LEX --target OUT``: check the arguments, train a baseline and write
its predictions (:func:`pyfn.baselines.run.run_baseline`), print the one-line summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.baselines.run import CANDIDATES, EVAL_SPLITS, SYSTEMS, run_baseline
from pyfn.cli._util import Subparsers


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn baseline``."""
    p = sub.add_parser(
        "baseline",
        help="train an offline baseline on train and write {split}.predicted.xml (frame id: mff, logreg; "
             "args given gold frames: deppath)",
        description=(
            "Train NAME on DATA/train.jsonl only (never dev or test; args-deppath tunes one threshold on dev) "
            "and write OUT/{split}.predicted.xml, with every gold sentence, for `pyfn score`, then "
            "OUT/manifest.json (rules, hyper-parameters, seed, training counts, sha256 of every file read "
            "and written). " + "; ".join(f"{name}: {what}" for name, what in SYSTEMS.items()) + "."
        ),
    )
    p.add_argument("name", choices=list(SYSTEMS), metavar="NAME", help=", ".join(SYSTEMS))
    p.add_argument("--data", required=True, metavar="DATA",
                   help="`pyfn convert` directory: {train,dev,test}.jsonl (+ {split}.sentences and {split}.conllu "
                   "from --preprocess: parse features; args-deppath needs them)")
    p.add_argument("--lexicon", required=True, metavar="LEX",
                   help="`pyfn generate` directory of the same build: lu_frames.tsv (+ frames.xml, "
                   "frRelations.xml: the scorer lexicon args-deppath tunes with)")
    p.add_argument("--target", required=True, metavar="OUT", help="output directory (created if missing)")
    p.add_argument("--splits", nargs="+", default=list(EVAL_SPLITS), choices=list(EVAL_SPLITS),
                   help="splits to predict (default: dev test)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="random seed of frameid-logreg (default 0; recorded by all)")
    p.add_argument("--threshold", type=float, default=None, metavar="T",
                   help="args-deppath: use this score threshold instead of tuning it on dev")
    p.add_argument("--candidates", choices=list(CANDIDATES), default="train",
                   help="frameid-mff, frameid-logreg: candidate frames at decoding. train (default): the train-only "
                   "lexicon LEX/lu_frames.tsv; release: first LEX/release_lu_frames.tsv (`pyfn generate "
                   "--release-lexicon`: every LU of the full release's frame files), so an LU unseen in train "
                   "still gets only its own frames, as Open-SESAME decodes (mff: rule 'release'; logreg: the best "
                   "of its release frames). Training reads train only either way; recorded in the manifest")
    p.add_argument("--frame-scores", action="store_true",
                   help="frameid-logreg: also write OUT/{split}.frame_scores.jsonl, the classifier's score of every "
                   "train frame per target before decoding (for `pyfn score --protocol lexfilter:*`; large: about "
                   "100 MB for FN 1.5 test); recorded in the manifest")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="frameid-logreg: threads that fit its one-vs-rest classifiers (default 0: one per core; "
                   "one inside a study's parallel splits). The weights and predictions are the same for any N")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and write the baseline; print what was written."""
    trained = run_baseline(args.name, args.data, args.lexicon, args.target, splits=args.splits, seed=args.seed,
                           threshold=args.threshold, candidates=args.candidates, frame_scores=args.frame_scores,
                           jobs=args.jobs)
    if not args.quiet:
        predictions = trained.manifest["predictions"]
        wrote = ", ".join(f"{split}.predicted.xml ({record['annotation_sets']:,} sets)"
                          for split, record in predictions.items())
        how = " (candidates: release lexicon)" if "candidates" in trained.manifest else ""
        print(f"pyfn: {args.name}{how}: {trained.summary}; wrote {wrote or 'no predictions'} and manifest.json in "
              f"{Path(args.target)} ({trained.seconds:.1f} s)", file=sys.stderr)
    return 0
