"""``pyfn compare``: significance tests between systems scored on one gold file, or every system under every
evaluation protocol (``--all-protocols``); each mode's options are listed in :data:`MODES`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pyfn.cli._util import EPILOG, Modes, Subparsers
from pyfn.cli.score import LEXICON, add_lexicon_options, emit_json, lexicon
from pyfn.errors import UsageError

TESTS = ("--gold", "--samples", "--seed")
MODES = Modes(
    takes={
        "--mode semeval/frames/argsonly": (*TESTS, "--mode", "--exact", "--corrected", *LEXICON),
        "--mode frameid": (*TESTS, "--mode", "--lu-frames"),
        "--all-protocols": ("--gold", "--all-protocols", *LEXICON, "--json", "--output"),
    },
    why={
        ("--mode", "--exact", "--corrected"): "--mode, --exact and --corrected set the SemEval scorer",
        ("--json", "--output"): "--json and --output go with --all-protocols",
        ("--all-protocols",): "--all-protocols replaces the tests by the protocols table",
        ("--samples", "--seed"): "--samples and --seed set the bootstrap and randomization tests",
        ("--lu-frames",): "--lu-frames goes with --mode frameid",
        LEXICON: "--framenet, --frames and --relations give the frame relations and FE coreness, which frame "
                 "identification does not read",
    },
    notes={"--all-protocols": "a protocol fixes its own settings"},
)
"""Which options each mode of ``pyfn compare`` takes; any other option set is refused."""


def mode_of(args: argparse.Namespace) -> str:
    """The mode the options select (a key of :data:`MODES`)."""
    if args.all_protocols:
        return "--all-protocols"
    return "--mode frameid" if args.mode == "frameid" else "--mode semeval/frames/argsonly"


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn compare``."""
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
    add_lexicon_options(p)
    p.add_argument("--lu-frames", help="lu_frames.tsv, for --mode frameid")
    p.add_argument("--samples", type=int, default=1000, help="bootstrap / randomization samples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and randomization samples")
    p.add_argument("--all-protocols", action="store_true",
                   help="instead of the tests: every system under every protocol (docs/PROTOCOLS.md), its rank, and "
                   "whether each protocol ranks the systems as the default SemEval score does")
    p.add_argument("--json", action="store_true", help="with --all-protocols: one JSON object")
    p.add_argument("--output", help="with --all-protocols: write the JSON object to this file (atomically) instead "
                   "of printing it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the options against the mode, test every pair of systems (or tabulate the protocols), print."""
    from pyfn.scoring.compare import compare_f1, compare_frame_id, coverage_note  # noqa: PLC0415
    from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415
    from pyfn.scoring.signature import frameid_signature, score_signature  # noqa: PLC0415

    if len(args.preds) < 2:
        raise UsageError("compare needs at least two prediction files")
    preds = [Path(p) for p in args.preds]
    mode = mode_of(args)
    if mode == "--mode frameid" and not args.lu_frames:
        raise UsageError("--mode frameid needs --lu-frames lu_frames.tsv")
    MODES.check(args, mode)
    if args.all_protocols:
        return _compare_protocols(args, preds)
    if args.mode == "frameid":
        results, pairs = compare_frame_id(Path(args.gold), preds, lu_frames=read_lu_frames(Path(args.lu_frames)))
        signature = frameid_signature(Path(args.gold), Path(args.lu_frames))
        for pred, res in zip(args.preds, results):
            print(f"{pred}: accuracy {res.total.accuracy:.4f} (95% Wilson {res.total.low:.4f}-{res.total.high:.4f})  "
                  f"{signature}")
            _warn_coverage(coverage_note(res))
    else:
        scorer_lexicon, rel = lexicon(args)
        scores, intervals, pairs = compare_f1(
            Path(args.gold), preds, lexicon=scorer_lexicon, mode=args.mode, exact=args.exact,
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

    names = [str(p) for p in preds]
    if len(set(names)) < len(names):
        raise UsageError("the same prediction file is given twice")
    scorer_lexicon, rel = lexicon(args)
    check_coverage(preds, [score(Path(args.gold), pred, lexicon=scorer_lexicon) for pred in preds])  # as compare refuses
    rows = rankings({name: run_all(Path(args.gold), pred, lexicon=scorer_lexicon, lexicon_tag=rel)
                     for name, pred in zip(names, preds)})
    if args.json or args.output:
        return emit_json({"reference": list(REFERENCE), "rows": rows}, args)
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
