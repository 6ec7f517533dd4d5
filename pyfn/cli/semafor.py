"""``pyfn semafor setup|prepare|train|decode|status``: run SEMAFOR on pyfn's data (:mod:`pyfn.parsers.semafor`)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from pyfn.cli._util import Subparsers, add_actions, add_installation_options, checkout, log
from pyfn.fileio import write_text
from pyfn.framenet.sources import resolve_source
from pyfn.parsers import semafor


def _installation(args: argparse.Namespace) -> Path:
    home = checkout(args.home, "SEMAFOR_HOME",
                    "no SEMAFOR checkout: pass --home DIR or set SEMAFOR_HOME.\n" + semafor.setup_instructions())
    jwnl = checkout(args.jwnl, "SEMAFOR_JWNL",
                    "no JWNL 1.4_rc3: pass --jwnl DIR|JAR or set SEMAFOR_JWNL.\n" + semafor.setup_instructions())
    patches = [Path(p) for p in args.patch] if args.patch is not None else None
    root = Path(args.install_dir) if args.install_dir else None
    return semafor.setup(home, jwnl, root, patches,
                         install_packages=getattr(args, "install_packages", False),
                         unit_tests=not getattr(args, "no_unit_tests", False), log=log(args.quiet))


def _setup(args: argparse.Namespace) -> int:
    folder = _installation(args)
    record = json.loads((folder / "install.json").read_text(encoding="utf-8"))
    tests = record["unit_tests"]
    log(args.quiet)(f"SEMAFOR {record['commit'][:12]} built with {record['javac']} in {record['compile_seconds']} s; "
               f"JWNL {record['jwnl'].get('version') or record['jwnl'].get('sha256')}; "
               + (f"unit tests: {tests['run']} run, {tests['failures']} failing {tests['failing']}" if tests
                  else "unit tests not run"))
    print(folder)
    return 0


def _prepare(args: argparse.Namespace) -> int:
    record = semafor.prepare(_installation(args), Path(args.data), resolve_source(args.source)[0], Path(args.run),
                             lexicon=Path(args.lexicon) if args.lexicon else None, fe_map=args.fe_map,
                             fe_map_from=Path(args.fe_map_from) if args.fe_map_from else None,
                             required_data=not args.no_required_data, heap=args.heap, log=log(args.quiet))
    log(args.quiet)(f"prepared {args.run} (SEMAFOR {record['commit'][:12]})")
    return 0


def _config(args: argparse.Namespace) -> Path:
    return Path(args.config) if args.config else semafor.default_config(args.stage)


def _train(args: argparse.Namespace) -> int:
    record = semafor.train(_installation(args), Path(args.run), args.stage, _config(args), log(args.quiet))
    log(args.quiet)(f"{args.stage}: {record['iterations']} iterations, stopped by {record['stopped']} "
               f"({record['attempts']} attempt(s))")
    return 0


def _decode(args: argparse.Namespace) -> int:
    for split in args.splits:
        record = semafor.decode(_installation(args), Path(args.run), split, Path(args.output),
                                frames=Path(args.frames_from.format(split=split)) if args.frames_from else None,
                                model=args.model, log=log(args.quiet))
        log(args.quiet)(f"{split}: {record['model']} on {record['frames']} frames in {record['seconds']} s")
    return 0


def resume_command(run: Path, stage: str, config: str | None) -> str:
    """The commands that start or resume a training in the background, at low priority, after the set-up (on a
    fresh machine it installs the Debian packages again; an existing installation is reused)."""
    argv = ["pyfn", "semafor", "train", "--run", str(run), "--stage", stage, *(["--config", config] if config else [])]
    log = Path(run) / "logs" / f"pyfn-{stage}.out"
    env = "".join(f"export {name}={shlex.quote(os.environ[name])}; " for name in ("SEMAFOR_HOME", "SEMAFOR_JWNL")
                  if os.environ.get(name))
    return (f"{env}pyfn semafor setup --install-packages --quiet && "
            f"nohup nice -n 19 {' '.join(map(shlex.quote, argv))} >> {shlex.quote(str(log))} 2>&1 &")


def _status(args: argparse.Namespace) -> int:
    record = semafor.progress(Path(args.run), args.stage,
                              resume_command=resume_command(Path(args.run), args.stage, args.config))
    if args.output:
        record["refresh_command"] = " ".join(map(shlex.quote, [
            "pyfn", "semafor", "status", "--run", args.run, "--stage", args.stage,
            *(["--config", args.config] if args.config else []), "--output", args.output]))
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    if args.output:
        write_text(Path(args.output), text)
    if args.json:
        sys.stdout.write(text)
        return 0
    objective, speed, left = record["objective"], record["seconds_per_iteration"]["median"], record["remaining"]
    parts = [f"{args.stage}: {record['status']}; {record['iterations_done']} iterations",
             f"objective {objective['first']:,.0f} -> {objective['last']:,.0f}" if objective["last"] is not None
             else "no objective value yet", f"{record['restarts']} restart(s)"]
    if speed is not None:
        parts.append(f"{speed} s per iteration")
    if record["checkpoints"]:
        parts.append(f"last checkpoint {record['checkpoints'][-1]['name']}")
    if left and left["seconds_at_recent_speed"] is not None:
        parts.append(f"at most {left['iterations_at_most']} iterations left, about "
                     f"{left['seconds_at_recent_speed'] / 3600:.1f} h at the last 10 iterations' speed")
    if args.output:
        parts.append(f"wrote {args.output}")
    print("; ".join(parts))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="the SEMAFOR git checkout (default: $SEMAFOR_HOME); only read")
    p.add_argument("--jwnl", help="JWNL 1.4_rc3: a source tree (extjwnl at 4dfe952) or a jar (default: $SEMAFOR_JWNL)")
    add_installation_options(p, "semafor.patch")


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn semafor`` and its actions."""
    p = sub.add_parser(
        "semafor",
        help="build, train and decode SEMAFOR on pyfn's SEMAFOR files",
        description="Run SEMAFOR (Noahs-ARK/semafor) on pyfn's data: setup builds a patched copy of your checkout "
                    "with javac and Debian's jars; prepare lays out a run folder (train-only maps, frame costs, "
                    "WordNet 3.0, RequiredDataCreation); train trains the argument or frame-identification model "
                    "(each step restartable, L-BFGS warm-started from its last checkpoint); decode identifies "
                    "arguments given frames and targets, writing {split}.frame.elements for "
                    "`pyfn convert --from semafor --to semeval --gold DATA`; status writes the training's progress.",
    )
    actions = add_actions(p, run)
    setup = actions.add_parser("setup", help="build SEMAFOR (once per commit, patch, JWNL, jars and JDK); prints "
                               "the installation folder")
    _common(setup)
    setup.add_argument("--install-packages", action="store_true",
                       help="apt-get install the missing Debian packages (default: name them and stop)")
    setup.add_argument("--no-unit-tests", action="store_true", help="do not run SEMAFOR's JUnit tests")
    prepare = actions.add_parser("prepare", help="lay out a run folder: data, maps, frame costs, WordNet, reqData")
    _common(prepare)
    prepare.add_argument("--data", required=True, help="`pyfn convert --to semafor conllx` folder")
    prepare.add_argument("--source", required=True,
                         help="the FrameNet release the data was built from ('sample': the bundled sample)")
    prepare.add_argument("--run", required=True, help="the run folder (created)")
    prepare.add_argument("--lexicon", help="FrameNet-layout folder whose lexical units RequiredDataCreation reads "
                         "(default: --source; e.g. `pyfn generate`'s fn_train)")
    prepare.add_argument("--fe-map", choices=["frames", "train"], default="train",
                         help="frame elements per frame: those filled in train (default) or every one of the "
                         "frame's definition")
    prepare.add_argument("--fe-map-from", metavar="DIR",
                         help="a `pyfn convert --to semafor` folder whose train.frame.elements gives the train FE map "
                         "(default: --data; one converted --with-exemplars gives the map of Kabbach et al. 2018)")
    prepare.add_argument("--no-required-data", action="store_true",
                         help="skip RequiredDataCreation (argument identification given frames does not need it)")
    prepare.add_argument("--heap", default="8g", help="Java heap of RequiredDataCreation (default 8g)")
    train = actions.add_parser("train", help="train a model (each step resumes; L-BFGS from its last checkpoint)")
    _common(train)
    train.add_argument("--run", required=True, help="a prepared run folder")
    train.add_argument("--stage", required=True, choices=semafor.STAGES, help="argid or frameid")
    train.add_argument("--config", help="settings JSON: heap, threads, lambda, max_iterations, save_every "
                       "(default: pyfn's resources/parsers/semafor-STAGE.json)")
    decode = actions.add_parser("decode", help="identify arguments given frames and targets (gold by default)")
    _common(decode)
    decode.add_argument("--run", required=True, help="a run folder with a trained argument model")
    decode.add_argument("--splits", nargs="+", default=["test"], choices=["dev", "test"], help="default: test")
    decode.add_argument("--output", required=True, help="folder for {split}.frame.elements and {split}.sentences")
    decode.add_argument("--frames-from", help="a SEMAFOR .frames file of predicted frames ({split} is replaced) "
                        "(default: the gold frames)")
    decode.add_argument("--model", help="a checkpoint argmodel.dat_N instead of the trained model")
    status = actions.add_parser("status", help="the progress of a training, read from its run folder (no Java)")
    status.add_argument("--run", required=True, help="the run folder")
    status.add_argument("--stage", default="argid", choices=semafor.STAGES, help="default: argid")
    status.add_argument("--config", help="the settings JSON the training was started with (for the resume command)")
    status.add_argument("--output", help="write the progress record (JSON) here")
    status.add_argument("--json", action="store_true",
                        help="print the progress record (JSON) instead of the one-line summary")
    status.add_argument("--quiet", action="store_true", help="no progress messages")


ACTIONS = {"setup": _setup, "prepare": _prepare, "train": _train, "decode": _decode, "status": _status}
"""The function of each action."""


def run(args: argparse.Namespace) -> int:
    """Run the action ``args.action`` names."""
    return ACTIONS[args.action](args)
