"""``pyfn xp``: numbered experiments (new, templates, list, run, report, topics, verify); ``pyfn verify`` is
``pyfn xp verify`` under its older name (:mod:`pyfn.cli.verify`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pyfn.cli._util import EPILOG, EXECUTOR_HELP, Subparsers
from pyfn.errors import UsageError

Pyfn = Callable[[Sequence[str]], int]
"""What runs a ``pyfn`` command line in this process (:func:`pyfn.cli.main`, given through ``args.pyfn``)."""
VERIFY_HELP = "check an experiment against its manifest (--rerun: regenerate and compare byte for byte)"
VERIFY_DESCRIPTION = (
    "Without --rerun, re-hash the recipe, the FrameNet source and every output of the experiment and compare "
    "the installed versions of Python, pyfn and its dependencies with manifest.json. With --rerun, run every "
    "pyfn step again in a temporary copy and compare every output and score. Drift is printed as a diff; "
    "exit 1 when there is any."
)


def add_verify_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``pyfn xp verify`` (and ``pyfn verify``)."""
    p.add_argument("folder", help="experiments/xp_NNN")
    p.add_argument("--rerun", action="store_true", help="regenerate in a temporary folder and compare")


def verify(folder: Path, *, rerun: bool, pyfn: Pyfn) -> int:
    """Compare an experiment with its manifest (``rerun``: regenerate it with ``pyfn`` first); print the drift;
    1 when there is any."""
    from pyfn.xp.verify import check, rerun as regenerate  # noqa: PLC0415

    drift = regenerate(folder, pyfn, log=lambda line: print(line, file=sys.stderr)) if rerun else check(folder)
    for line in drift:
        print(line)
    if drift:
        print(f"pyfn verify: {folder} does NOT verify ({sum(not l.startswith('  ') for l in drift)} differences)",
              file=sys.stderr)
        return 1
    print(f"pyfn verify: {folder} verifies{' (rerun byte for byte)' if rerun else ''}", file=sys.stderr)
    return 0


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn xp`` and its actions."""
    p = sub.add_parser(
        "xp",
        help="numbered experiments: new, list, run, report, verify",
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
    run_ = xp.add_parser("run", help="run an experiment's steps (all, or --step NAME); then verify against its "
                         "manifest.json, or write the report when it has none")
    run_.add_argument("number", help="experiment number, e.g. 001")
    run_.add_argument("--step", help="data, lexicon, system, train, decode, import, score, and with [scoring] "
                     "analysis protocols, breakdown (or NAME:SYSTEM...; default: every step)")
    run_.add_argument("--system", help="only this system's steps (default: every system's)")
    run_.add_argument("--predictions", help="directory of an external parser's predictions to import and score "
                     "(with --system; runs its import and score steps, and its breakdown and the protocols table when "
                     "[scoring] analysis asks for them)")
    run_.add_argument("--jobs", type=int, default=0, metavar="N",
                     help="processes for the drawn splits of a study, each split's steps in one of them; with "
                     "--executor dask, the LocalCluster's worker processes (default 0: one per core); the outputs do "
                     "not depend on it")
    run_.add_argument("--executor", default="local", metavar="EXECUTOR",
                     help=EXECUTOR_HELP.format("steps (those of a study's drawn splits in parallel)"))
    run_.add_argument("--redo", action="store_true",
                     help="run the selected steps even when they finished before (by default a step whose record in "
                     "work/.steps still matches its command, inputs and outputs is skipped)")
    report = xp.add_parser("report", help="write README.md, manifest.json, report.html and scripts/xp_NNN.sh")
    report.add_argument("number", help="experiment number, e.g. 001")
    topics = xp.add_parser("topics", help="per-sentence scores of every system, as `pyfn compare-runs` reads them")
    topics.add_argument("number", help="experiment number, e.g. 001")
    topics.add_argument("--split", default="test", choices=["dev", "test"], help="the split scored")
    topics.add_argument("--output", required=True, help="TSV file to write")
    add_verify_arguments(xp.add_parser("verify", help=VERIFY_HELP, description=VERIFY_DESCRIPTION, epilog=EPILOG))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the action ``pyfn xp ACTION`` names."""
    from pyfn.executors import check_spec  # noqa: PLC0415
    from pyfn.xp import run as xp  # noqa: PLC0415
    from pyfn.xp.manifest import ran_here  # noqa: PLC0415

    root = Path(args.root)
    if args.xp_command == "verify":
        return verify(Path(args.folder), rerun=args.rerun, pyfn=args.pyfn)
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
        done = xp.run(folder, args.pyfn, step=args.step, system=args.system,
                      predictions=Path(args.predictions) if args.predictions else None,
                      log=lambda line: print(line, file=sys.stderr), jobs=args.jobs,
                      executor=check_spec(args.executor), redo=args.redo)
        print(f"pyfn xp: ran {len(done)} steps of {folder}", file=sys.stderr)
        if (folder / "manifest.json").is_file():  # a recorded result: compare, never overwrite
            if args.step or args.system or args.predictions:
                print(f"pyfn xp: some steps only, so not compared with {folder}/manifest.json: once every step has "
                      f"run, `pyfn verify {folder}` compares and `pyfn xp report {args.number}` records", file=sys.stderr)
                return 0
            return verify(folder, rerun=False, pyfn=args.pyfn)
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
