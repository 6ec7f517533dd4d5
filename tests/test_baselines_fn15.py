"""The baselines on the real FrameNet 1.5 standard split (convert + spaCy parse, generate, train, score).

Measured with spaCy 3.8 / en_core_web_sm 3.8.0 and scikit-learn 1.9.1. MFF and args-deppath are pure
counting, so their numbers are asserted exactly; frameid-logreg within a tight band (its floats may move
with the scikit-learn version).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need_sklearn

from pyfn.cli.baseline import add_parser
from pyfn.errors import ProblemLog
from pyfn.formats import semeval
from pyfn.scoring.frameid import frame_id_accuracy, read_lu_frames
from pyfn.scoring.scorer_lexicon import ScorerLexicon
from pyfn.scoring.semeval import score

WORK = Path("experiments", "xp_001", "work")
"""Where scripts/xp_001.sh leaves its outputs, relative to the folder it ran in (its working directory)."""


@pytest.fixture(scope="module")
def dirs(xp_001_run, tmp_path_factory):
    """OUT (a folder for this module's own runs), DATA (jsonl, SemEval gold, spaCy CoNLL-U) and LEX
    (train-only lexicon, scorer files) of FN 1.5.

    DATA and LEX are those of scripts/xp_001.sh (``pyfn convert ... --preprocess spacy``, ``pyfn
    generate``), run once per session (``xp_001_run``, which tests/xp/test_shipped.py checks); so are
    the three baselines' outputs below. Read only.
    """
    root, _ = xp_001_run
    return tmp_path_factory.mktemp("baselines_fn15"), root / WORK / "data", root / WORK / "lexicon"


def _as_the_script_ran(data: Path) -> tuple[Path, list[str]]:
    """The script's working directory and its ``--data DATA --lexicon LEX`` arguments (relative
    paths: a baseline's manifest records them, so a rerun must give the same ones)."""
    cwd = data.parents[len(WORK.parts)]
    return cwd, ["--data", str(WORK / "data"), "--lexicon", str(WORK / "lexicon"), "--splits", "dev", "test"]


def baseline(dirs, name, out, *extra):
    """Run baseline ``name`` as scripts/xp_001.sh does, writing to ``OUT/out``."""
    root, data, _ = dirs
    cwd, inputs = _as_the_script_ran(data)
    p = argparse.ArgumentParser(prog="pyfn")
    add_parser(p.add_subparsers())
    args = p.parse_args(["baseline", name, *inputs, "--target", str(root / out), "--quiet", *extra])
    before = Path.cwd()
    os.chdir(cwd)
    try:
        assert args.func(args) == 0
    finally:
        os.chdir(before)
    return root / out


def script_output(dirs, name):
    """The output folder of system ``name`` in the xp_001 run."""
    _, data, _ = dirs
    return data.parent / "systems" / name


@pytest.fixture(scope="module")
def mff(dirs):
    return script_output(dirs, "mff")


@pytest.fixture(scope="module")
def logreg(dirs):
    need_sklearn()
    return script_output(dirs, "logreg")


@pytest.fixture(scope="module")
def deppath(dirs):
    return script_output(dirs, "deppath")


def frame_id(dirs, out, split):
    _, data, lex = dirs
    log = ProblemLog(strict=True)
    gold = list(semeval.read(data / f"{split}.gold.xml", log=log))
    pred = list(semeval.read(out / f"{split}.predicted.xml", log=log))
    result = frame_id_accuracy(gold, pred, read_lu_frames(lex / "lu_frames.tsv"), log=log)
    assert result.unaligned_predictions == 0 and result.duplicate_predictions == 0
    return {name: (acc.correct, acc.n) for name, acc in
            (("total", result.total), ("ambiguous", result.ambiguous), ("no_lex", result.no_lex))}


def manifest(out):
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def test_mff_frame_id_accuracy(dirs, mff):
    """Most frequent frame per train LU: test 0.7809 total (SimpleFrameId-style MFF; no-lex targets are 10%
    of test and the back-offs rarely get them right)."""
    assert frame_id(dirs, mff, "dev") == {"total": (1929, 2319), "ambiguous": (508, 723), "no_lex": (11, 143)}
    assert frame_id(dirs, mff, "test") == {"total": (3239, 4148), "ambiguous": (910, 1329), "no_lex": (18, 431)}
    m = manifest(mff)
    assert m["predictions"]["test"]["rules_fired"] == {"lu": 3717, "lemma": 43, "pos": 388, "global": 0}
    assert m["predictions"]["dev"]["rules_fired"] == {"lu": 2176, "lemma": 18, "pos": 125, "global": 0}
    assert m["model"]["training"]["annotation_sets"] == 16706 and m["model"]["training"]["lus"] == 2807
    assert set(m["inputs"]) == {"data/train.jsonl", "data/dev.jsonl", "data/test.jsonl", "lexicon/lu_frames.tsv"}


def test_mff_is_byte_identical_across_runs(dirs, mff):
    again = baseline(dirs, "frameid-mff", "mff-again")
    for name in ("dev.predicted.xml", "test.predicted.xml", "manifest.json"):
        assert (again / name).read_bytes() == (mff / name).read_bytes()


def test_logreg_beats_mff(dirs, mff, logreg):
    """Measured (scikit-learn 1.9.1, seed 0): dev 1963/2319 (0.8465), ambiguous 541/723, no-lex 12/143;
    test 3364/4148 (0.8110), ambiguous 1008/1329, no-lex 45/431."""
    base = frame_id(dirs, mff, "test")
    got = frame_id(dirs, logreg, "test")
    assert 0.805 <= got["total"][0] / got["total"][1] <= 0.817
    assert got["total"][0] >= base["total"][0] + 80
    assert got["ambiguous"][0] > base["ambiguous"][0] and got["no_lex"][0] > base["no_lex"][0]
    dev = frame_id(dirs, logreg, "dev")
    assert 0.840 <= dev["total"][0] / dev["total"][1] <= 0.852
    m = manifest(logreg)
    assert m["model"]["training"]["annotation_sets"] == 16706 and m["model"]["training"]["frames"] == 659
    assert m["model"]["features_from"] == "words, lemmas, POS and dependency parse"
    assert m["predictions"]["test"]["rules_fired"] == {"known_single": 2388, "known_ambiguous": 1329, "unknown": 431}


def test_args_deppath_is_deterministic_whatever_the_hash_seed(dirs, deppath):
    """A second run, in another process with another PYTHONHASHSEED, writes the same bytes (the counting
    model keys dictionaries by strings; frameid-logreg's check is in test_baselines.py)."""
    root, data, _ = dirs
    out = root / "deppath-again"
    cwd, inputs = _as_the_script_ran(data)
    code = ("import argparse, sys; from pyfn.cli.baseline import add_parser; p = argparse.ArgumentParser(); "
            "add_parser(p.add_subparsers()); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code, "baseline", "args-deppath", *inputs, "--target", str(out), "--quiet"],
                   check=True, env=env, cwd=cwd)
    for name in ("dev.predicted.xml", "test.predicted.xml", "manifest.json"):
        assert (out / name).read_bytes() == (deppath / name).read_bytes()


def test_args_deppath_argsonly(dirs, deppath):
    """Argument identification given gold frames, scored as `pyfn score --mode argsonly` with LEX's files:
    threshold 0.35 tuned on dev; dev P 0.6740 R 0.5406 F1 0.6000, test P 0.6452 R 0.5785 F1 0.6100."""
    _, data, lex = dirs
    lexicon = ScorerLexicon.from_files(lex / "frames.xml", lex / "frRelations.xml")
    m = manifest(deppath)
    assert m["model"]["threshold"]["value"] == 0.35 and m["model"]["threshold"]["tuned_on"] == "dev"
    expected = {"dev": (1936.0, 3581.0, 2872.5), "test": (3426.0, 5922.0, 5310.0)}
    for split, (matched, gold, predicted) in expected.items():
        result = score(data / f"{split}.gold.xml", deppath / f"{split}.predicted.xml", lexicon=lexicon,
                       mode="argsonly")
        assert (result.matched, result.gold, result.predicted) == (matched, gold, predicted), split
        assert not result.skip_counts() and result.f1 > 0.1
    tuned = next(g for g in m["model"]["threshold"]["dev_grid"] if g["threshold"] == 0.35)
    assert tuned["f1"] == pytest.approx(1936 * 2 / (3581 + 2872.5), abs=1e-6)
    frames = {split: [s.frame_name for s in semeval.read(data / f"{split}.gold.xml", log=ProblemLog())]
              for split in ("test",)}
    assert [s.frame_name for s in semeval.read(deppath / "test.predicted.xml", log=ProblemLog())] == frames["test"]


def test_logreg_frame_scores_under_the_lexical_filters(dirs, logreg, fn15):
    """``--frame-scores`` leaves the predictions as they were, and ``lexfilter:train`` re-decoding its scores
    with the train lexicon gives exactly ``--mode frameid``'s total accuracy (frameid-logreg decodes by the same
    rules). Measured (scikit-learn 1.9.1, seed 0), test: train 3364/4148 (0.81099), full (release lexicon)
    3705/4148 (0.89320), none 2982/4148 (0.71890)."""
    from pyfn.framenet import open_release  # noqa: PLC0415
    from pyfn.train_lexicon import release_frames, release_lu_frames, table_lines  # noqa: PLC0415
    from pyfn.scoring.protocols import FrameScores, run  # noqa: PLC0415

    root, data, lex = dirs
    out = baseline(dirs, "frameid-logreg", "logreg-scores", "--splits", "test", "--frame-scores")
    assert (out / "test.predicted.xml").read_bytes() == (logreg / "test.predicted.xml").read_bytes()
    assert manifest(out)["outputs"]["test.frame_scores.jsonl"]
    release = release_lu_frames([f for _, _, f in release_frames(open_release(fn15)).values()], exclude_frames=[398])
    (root / "release_lu_frames.tsv").write_text("\n".join(table_lines(release, "\t", "release")) + "\n")
    fid = FrameScores(out / "test.frame_scores.jsonl", lex / "lu_frames.tsv", root / "release_lu_frames.tsv")
    got = {name: run(f"lexfilter:{name}", data / "test.gold.xml", out / "test.predicted.xml", lexicon=None,
                     lexicon_tag="", frame_scores=fid).measure().counts for name in ("train", "full", "none")}
    assert (got["train"].tp, got["train"].tp + got["train"].fn) == frame_id(dirs, logreg, "test")["total"]
    assert got["none"].tp < got["train"].tp < got["full"].tp
    assert 0.887 <= got["full"].tp / 4148 <= 0.899 and 0.712 <= got["none"].tp / 4148 <= 0.725
