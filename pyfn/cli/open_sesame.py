"""``pyfn open-sesame setup|prepare|train|decode|progress``: run Open-SESAME on pyfn's data
(:mod:`pyfn.parsers.open_sesame`, :mod:`pyfn.parsers.open_sesame_progress`, which do the work)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pyfn.cli._util import Subparsers, add_actions, add_installation_options, checkout, log
from pyfn.fileio import write_text
from pyfn.framenet.sources import resolve_source
from pyfn.parsers import open_sesame as sesame
from pyfn.parsers.open_sesame_progress import progress


def _installation(args: argparse.Namespace) -> Path:
    home = checkout(args.home, "SESAME_HOME", "no Open-SESAME checkout: pass --home DIR or set SESAME_HOME "
                    "(git clone https://github.com/swabhs/open-sesame)")
    patches = [Path(p) for p in args.patch] if args.patch is not None else None
    root = Path(args.install_dir) if args.install_dir else None
    return sesame.setup(home, root, patches, log(args.quiet))


def _setup(args: argparse.Namespace) -> int:
    print(_installation(args))
    return 0


def _prepare(args: argparse.Namespace) -> int:
    record = sesame.prepare(
        _installation(args), Path(args.data), resolve_source(args.source)[0], Path(args.run), version=args.version,
        embeddings=Path(args.embeddings) if args.embeddings else None,
        frames=Path(args.frames) if args.frames else None,
        models_from=Path(args.models_from) if args.models_from else None, log=log(args.quiet))
    log(args.quiet)(f"prepared {args.run} (Open-SESAME {record['commit'][:12]}, embeddings: {record['embeddings']['source']})")
    return 0


def _train(args: argparse.Namespace) -> int:
    config = Path(args.config) if args.config else sesame.default_config(args.stage)
    record = sesame.train(_installation(args), Path(args.run), args.stage, args.model or args.stage, config,
                          args.seed, log(args.quiet))
    log(args.quiet)(f"{record['model']}: best dev {record['best_dev']} (stopped by {record['stopped']})")
    return 0


def _decode(args: argparse.Namespace) -> int:
    for split in args.splits:
        record = sesame.decode(_installation(args), Path(args.run), args.stage, args.model or args.stage, split,
                               Path(args.output), frames_from=Path(args.frames_from.format(split=split))
                               if args.frames_from else None, log=log(args.quiet))
        if record["own_evaluation"]:
            log(args.quiet)(f"{split}: Open-SESAME's own evaluation {json.dumps(record['own_evaluation'], sort_keys=True)}")
    return 0


def _progress(args: argparse.Namespace) -> int:
    record = progress(Path(args.run), args.stage, args.model)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    if args.output:
        write_text(Path(args.output), text)
    if args.json:
        sys.stdout.write(text)
        return 0
    best, left = record["best_dev"], record["remaining"]
    print(f"{record['model']}: {'finished' if record['finished'] else 'not finished'}; {record['epochs_done']} of "
          f"{record['budget']['num_epochs']} epochs, {len(record['dev_labeled_f1'])} dev evaluations, best dev "
          f"labeled F1 {best['f1'] if best else 'none yet'}; {record['restarts']} restart(s)"
          + (f"; {left['epochs_at_least']} to {left['epochs_at_most']} epochs left, about {left['hours_estimated'][0]} "
             f"to {left['hours_estimated'][1]} h at the speed so far" if left and "hours_estimated" in left else "")
          + (f"; wrote {args.output}" if args.output else ""))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="the Open-SESAME git checkout (default: $SESAME_HOME); only read")
    add_installation_options(p, "open-sesame.patch")


def _model(p: argparse.ArgumentParser) -> None:
    """Options naming a model of a run folder (train, decode)."""
    _common(p)
    p.add_argument("--run", required=True, help="a prepared run folder")
    p.add_argument("--stage", required=True, choices=sesame.STAGES, help="frameid or argid")
    p.add_argument("--model", help="model name, under RUN/logs/ (default: the stage)")


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn open-sesame`` and its actions."""
    p = sub.add_parser(
        "open-sesame",
        help="install, train and decode Open-SESAME on pyfn's BIOS files",
        description="Run Open-SESAME (swabhs/open-sesame) on pyfn's data: setup installs a patched copy of your "
                    "checkout with its own virtual environment; prepare lays out a run folder; train trains a "
                    "model (resumes an interrupted training); decode writes {split}.bios predictions for "
                    "`pyfn convert --from bios --to semeval --gold DATA`.",
    )
    actions = add_actions(p, run)
    setup = actions.add_parser("setup", help="install Open-SESAME (once per commit, patches and pins); "
                               "prints the installation folder")
    _common(setup)
    prepare = actions.add_parser("prepare", help="lay out a run folder: configuration, data, frames, embeddings")
    _common(prepare)
    prepare.add_argument("--data", required=True, help="`pyfn convert --to bios` folder (train/dev/test.bios)")
    prepare.add_argument("--source", required=True,
                         help="the FrameNet release the data was built from ('sample': the bundled sample)")
    prepare.add_argument("--run", required=True, help="the run folder (created)")
    prepare.add_argument("--version", default="1.5", help="FrameNet version in Open-SESAME's paths (default 1.5)")
    prepare.add_argument("--embeddings", default=os.environ.get("SESAME_EMBEDDINGS"),
                         help="GloVe-style text embeddings, e.g. glove.6B.100d.txt (default: $SESAME_EMBEDDINGS; "
                         "unset: word2vec vectors trained on train.sentences)")
    prepare.add_argument("--frames", help="FrameNet-layout folder whose frame files decide the candidate frames "
                         "(default: --source; e.g. `pyfn generate`'s fn_train for a train-only lexicon)")
    prepare.add_argument("--models-from", metavar="RUN",
                         help="use the finished trainings of another run folder prepared from the same train.bios, "
                              "frames and embeddings (checked by sha256): a data variant that changes only dev/test "
                              "or the evaluation is decoded with the same models (default: train here)")
    train = actions.add_parser("train", help="train a model (resumes from its last saved model)")
    _model(train)
    train.add_argument("--config", help="Open-SESAME configuration JSON: the budget (epochs, patience, dev "
                       "evaluation interval) and sizes (default: pyfn's resources/parsers/open-sesame-STAGE.json)")
    train.add_argument("--seed", type=int, default=1, help="DyNet's and Python's seed (default 1)")
    decode = actions.add_parser("decode", help="decode dev/test with gold targets (frameid) or given frames (argid)")
    _model(decode)
    decode.add_argument("--splits", nargs="+", default=["test"], choices=["dev", "test"], help="default: test")
    decode.add_argument("--output", required=True, help="folder for {split}.bios, {split}.sentences and "
                        "Open-SESAME's own evaluation")
    decode.add_argument("--frames-from", help="argid: BIOS file of predicted frames ({split} is replaced), e.g. "
                        "a frameid decode's OUT/{split}.bios (default: the gold frames)")
    report = actions.add_parser("progress", help="how far an argid training has come: epochs, dev F1 at every "
                                "evaluation, checkpoints' sha256, restarts, speed, the command that resumes it")
    report.add_argument("--run", required=True, help="a prepared run folder")
    report.add_argument("--stage", default="argid", choices=["argid"], help="argid (the stage whose loop pyfn's "
                        "patch saves)")
    report.add_argument("--model", help="model name, under RUN/logs/ (default: the stage)")
    report.add_argument("--output", help="write the progress record (JSON) here")
    report.add_argument("--json", action="store_true",
                        help="print the progress record (JSON) instead of the one-line summary")


ACTIONS = {"setup": _setup, "prepare": _prepare, "train": _train, "decode": _decode, "progress": _progress}
"""The function of each action."""


def run(args: argparse.Namespace) -> int:
    """Run the action ``args.action`` names."""
    return ACTIONS[args.action](args)
