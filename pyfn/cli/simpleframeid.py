"""``pyfn simpleframeid setup|prepare|train|decode``: run SimpleFrameId on pyfn's data
(:mod:`pyfn.parsers.simpleframeid`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pyfn.cli._util import Subparsers, add_actions, add_installation_options, checkout, log
from pyfn.errors import UsageError
from pyfn.parsers import simpleframeid as sfi


def _installation(args: argparse.Namespace) -> Path:
    home = checkout(args.home, "SIMPLEFRAMEID_HOME", "no SimpleFrameId checkout: pass --home DIR or set "
                    "SIMPLEFRAMEID_HOME (git clone https://github.com/UKPLab/eacl2017-oodFrameNetSRL)")
    patches = [Path(p) for p in args.patch] if args.patch is not None else None
    root = Path(args.install_dir) if args.install_dir else None
    return sfi.setup(home, args.python, root, patches, log(args.quiet))


def _setup(args: argparse.Namespace) -> int:
    print(_installation(args))
    return 0


def _prepare(args: argparse.Namespace) -> int:
    record = sfi.prepare(
        _installation(args), Path(args.data), Path(args.lexicon), Path(args.run),
        embeddings=Path(args.embeddings) if args.embeddings else None,
        text=[Path(t) for t in args.text] if args.text else None, log=log(args.quiet))
    log(args.quiet)(f"prepared {args.run} (SimpleFrameId {record['commit'][:12]}, "
               f"embeddings: {record['embeddings']['source']})")
    return 0


def _train(args: argparse.Namespace) -> int:
    wsabie = {key: value for key in sfi.WSABIE if (value := getattr(args, key)) is not None}
    if wsabie and args.classifier != "wsb":
        raise UsageError(f"--{next(iter(wsabie)).replace('_', '-')} is a WSABIE setting (--classifier wsb)")
    record = sfi.train(_installation(args), Path(args.run), args.model or f"{args.classifier}-{args.context}",
                       args.classifier, args.context, args.seed, log=log(args.quiet), **wsabie)
    log(args.quiet)(f"{record['model']}: trained in {record['seconds']} s (seed {record['seed']})")
    return 0


def _decode(args: argparse.Namespace) -> int:
    for split in args.splits:
        record = sfi.decode(_installation(args), Path(args.run), args.model, split, Path(args.output),
                            no_lexicon=args.no_lexicon, log=log(args.quiet))
        log(args.quiet)(f"{split}: {record['summary']}")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="the eacl2017-oodFrameNetSRL git checkout (default: $SIMPLEFRAMEID_HOME); only read")
    p.add_argument("--python", default=os.environ.get(sfi.PYTHON_ENV) or sfi.DEFAULT_PYTHON,
                   help=f"the Python 2.7 interpreter SimpleFrameId runs under (default: ${sfi.PYTHON_ENV}, "
                   f"else {sfi.DEFAULT_PYTHON})")
    add_installation_options(p, "simpleframeid.patch")


def add_parser(sub: Subparsers) -> None:
    """Add ``pyfn simpleframeid`` and its actions."""
    p = sub.add_parser(
        "simpleframeid",
        help="install, train and decode SimpleFrameId (frame identification) on pyfn's SEMAFOR files",
        description="Run SimpleFrameId (UKPLab/eacl2017-oodFrameNetSRL, Hartmann et al. 2017) on pyfn's data: "
                    "setup installs a patched copy of your checkout with its Python 2.7 packages; prepare lays "
                    "out a run folder (SEMAFOR files, the train-only lexicon, embeddings); train trains one "
                    "classifier (nn: the MLP, wsb: WSABIE) on one context (sentbow: the sentence's words, depbow: "
                    "the target's dependents and head); decode writes {split}.frames predictions for "
                    "`pyfn convert --from semafor --to semeval --gold DATA`.",
    )
    actions = add_actions(p, run)
    setup = actions.add_parser("setup", help="install SimpleFrameId (once per commit, patches, pins and "
                               "interpreter); prints the installation folder")
    _common(setup)
    prepare = actions.add_parser("prepare", help="lay out a run folder: SEMAFOR files, lexicon, embeddings")
    _common(prepare)
    prepare.add_argument("--data", required=True, help="`pyfn convert --to semafor --preprocess spacy` folder")
    prepare.add_argument("--lexicon", required=True, help="`pyfn generate` folder (its train-only lu_frames.tsv)")
    prepare.add_argument("--run", required=True, help="the run folder (created)")
    prepare.add_argument("--embeddings", default=os.environ.get("SIMPLEFRAMEID_EMBEDDINGS"),
                         help="text embeddings, a word and its vector a line, e.g. Levy's deps.words (default: "
                         "$SIMPLEFRAMEID_EMBEDDINGS; unset: word2vec vectors trained on --text)")
    prepare.add_argument("--text", nargs="+", metavar="FILE",
                         help="sentences, one a line, for the word2vec vectors (default: DATA/train.sentences), "
                         "e.g. a --with-exemplars conversion's train.sentences")
    train = actions.add_parser("train", help="train one classifier on one context (done once per model)")
    _common(train)
    train.add_argument("--run", required=True, help="a prepared run folder")
    train.add_argument("--classifier", required=True, choices=sfi.CLASSIFIERS, help="nn (MLP) or wsb (WSABIE)")
    train.add_argument("--context", required=True, choices=sfi.CONTEXTS,
                       help="sentbow (the sentence's words) or depbow (the target's dependents and head)")
    train.add_argument("--model", help="model name, under RUN/models/ (default: CLASSIFIER-CONTEXT)")
    train.add_argument("--seed", type=int, default=1, help="numpy's seed, from which Keras and WSABIE draw (default 1)")
    for key, value in sfi.WSABIE.items():
        train.add_argument(f"--{key.replace('_', '-')}", type=int, help=f"WSABIE's {key} (default: upstream's {value})")
    decode = actions.add_parser("decode", help="predict the frames of the gold targets of dev/test")
    _common(decode)
    decode.add_argument("--run", required=True, help="a prepared run folder")
    decode.add_argument("--model", required=True, help="a trained model's name")
    decode.add_argument("--splits", nargs="+", default=["test"], choices=["dev", "test"], help="default: test")
    decode.add_argument("--output", required=True, help="folder for {split}.frames and {split}.sentences")
    decode.add_argument("--no-lexicon", action="store_true",
                        help="every frame is a candidate for every target (upstream's all_unknown: the no-lex "
                        "setting of Hartmann et al. 2017, whose total accuracy is their no-lex column)")


ACTIONS = {"setup": _setup, "prepare": _prepare, "train": _train, "decode": _decode}
"""The function of each action."""


def run(args: argparse.Namespace) -> int:
    """Run the action ``args.action`` names."""
    return ACTIONS[args.action](args)
