"""``pyfn compare-runs ORIGINAL REPRODUCED``: reproducibility measures between two runs (Breuer et al. 2020)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pyfn.cli._util import Subparsers
from pyfn.errors import UsageError
from pyfn.fileio import write_text
from pyfn.scoring.reproducibility import DEFAULT_RBO_P, TOPIC_UNITS, compare_runs
from pyfn.scoring.runs_io import read_runs


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn compare-runs``."""
    p = sub.add_parser(
        "compare-runs",
        help="reproducibility measures between an original and a reproduced run (Breuer et al. 2020)",
        description=(
            "Compare per-topic scores of an original and a reproduced experiment (topics = sentences or "
            "documents): per system RMSE, paired and unpaired t-tests (with Holm corrections); system rankings "
            "(Kendall's tau-b, Kendall's tau Union, extrapolated RBO) on mean scores and per topic; with a "
            "baseline, Effect Ratio and Delta Relative Improvement. Inputs: TSV rows system<TAB>topic<TAB>score "
            "or JSON {system: {topic: score}}."
        ),
    )
    p.add_argument("original", metavar="ORIGINAL", help="scores of the original run (TSV or JSON)")
    p.add_argument("reproduced", metavar="REPRODUCED", help="scores of the reproduced run (TSV or JSON)")
    p.add_argument(
        "--baseline-original", metavar="B", help="baseline system of the original run (enables ER, Delta RI)"
    )
    p.add_argument(
        "--baseline-reproduced",
        metavar="B2",
        help="baseline system of the reproduced run (default: the original's name)",
    )
    p.add_argument(
        "--rbo-p",
        type=float,
        default=DEFAULT_RBO_P,
        help=f"RBO persistence, 0 < p < 1 (default {DEFAULT_RBO_P}, repro_eval's for extrapolated RBO)",
    )
    p.add_argument("--welch", action="store_true", help="Welch's unpaired t-test instead of Student's (the paper's)")
    p.add_argument("--topic-unit", choices=TOPIC_UNITS, default="sentence", help="what a topic is (signature only)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--output", metavar="FILE", help="write the JSON to FILE (atomically) instead of printing it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read both runs, compare them, print the table or the JSON."""
    if not 0.0 < args.rbo_p < 1.0:
        raise UsageError(f"--rbo-p must be strictly between 0 and 1, got {args.rbo_p}")
    result = compare_runs(
        read_runs(Path(args.original)),
        read_runs(Path(args.reproduced)),
        args.baseline_original,
        args.baseline_reproduced,
        args.rbo_p,
        welch=args.welch,
        topic_unit=args.topic_unit,
    )
    result = {"original_file": str(args.original), "reproduced_file": str(args.reproduced)} | result
    if args.output:
        write_text(Path(args.output), json.dumps(result, indent=2) + "\n")
        print(f"pyfn compare-runs: wrote {args.output} ({result['signature']})", file=sys.stderr)
    elif args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_table(result))
    return 0


def _f(value: float | None, width: int = 9) -> str:
    return f"{'n/a':>{width}}" if value is None else f"{value:>{width}.4f}"


def format_table(result: dict) -> str:
    """The comparison as text: topics, a systems x measures table, rankings, effects, signature."""
    unit, topics, systems = result["topic_unit"], result["topics"], result["systems"]
    lines = [
        (
            f"{unit}s: original {topics['original']}, reproduced {topics['reproduced']}, shared {topics['shared']} "
            f"(original only {len(topics['original_only'])}, reproduced only {len(topics['reproduced_only'])})"
        ),
        f"systems: {len(systems['matched'])} matched"
        + "".join(
            f"; {side.replace('_', ' ')}: {', '.join(names)}"
            for side in ("original_only", "reproduced_only")
            if (names := systems[side])
        ),
        "",
    ]
    width = max(6, *(len(s) for s in result["per_system"]))
    test = result["unpaired_test"]
    lines.append(
        f"{'system':<{width}} {'mean_orig':>9} {'mean_rep':>9} {'n_shared':>8} {'RMSE':>9} "
        f"{'p_paired':>9} {'Holm':>9} {'p_' + test:>9} {'Holm':>9}"
    )
    for name, row in result["per_system"].items():
        lines.append(
            f"{name:<{width}} {_f(row['mean_original'])} {_f(row['mean_reproduced'])} {row['n_shared']:>8} "
            f"{_f(row['rmse'])} {_f(row['p_paired'])} {_f(row['p_paired_holm'])} "
            f"{_f(row['p_unpaired'])} {_f(row['p_unpaired_holm'])}"
        )
    rank = result["rankings"]
    if rank:
        lines += [
            "",
            (
                f"rankings on mean scores: Kendall tau-b {_f(rank['kendall_tau_b'], 0)}  KTU {_f(rank['ktu'], 0)}  "
                f"RBO_ext(p={result['rbo_p']:g}) {_f(rank['rbo'], 0)}"
            ),
            (
                f"rankings per {unit} ({rank['n_topics']} shared): KTU {_f(rank['ktu_per_topic'], 0)} "
                f"(defined on {rank['n_topics_ktu']})  RBO_ext {_f(rank['rbo_per_topic'], 0)}"
            ),
        ]
    if result["effects"] is not None:
        base = result["baseline"]
        lines += [
            "",
            f"effects against baseline {base['original']} (original) / {base['reproduced']} (reproduced):",
            f"{'system':<{width}} {'ER':>9} {'delta_RI':>9} {'RI_orig':>9} {'RI_rep':>9}",
        ]
        for name, row in result["effects"].items():
            lines.append(
                f"{name:<{width}} {_f(row['er'])} {_f(row['delta_ri'])} {_f(row['ri_original'])} "
                f"{_f(row['ri_reproduced'])}" + (f"  ({row['note']})" if "note" in row else "")
            )
    for what, reason in result["skipped"].items():
        lines.append(f"skipped {what}: {reason}")
    lines += ["", result["signature"]]
    return "\n".join(lines)
