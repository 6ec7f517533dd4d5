"""`pyfn score` and `pyfn compare` as a user runs them, on the small cases cut from FN 1.5."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pyfn import __version__

CASES = Path(__file__).parent / "scoring" / "cases"
LEXICON = Path(__file__).parent / "scoring" / "lexicon"
LEX = ["--frames", str(LEXICON / "frames.xml"), "--relations", str(LEXICON / "frRelations.xml")]
GOLD = str(CASES / "test15.gold.xml")


def run(*args):
    return subprocess.run([sys.executable, "-m", "pyfn", *args], capture_output=True, text=True)


def test_score_json_has_points_and_signature():
    proc = run("score", "--gold", GOLD, "--pred", GOLD, *LEX, "--json", "--exact")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("precision", "recall", "f1", "matched", "gold", "predicted"):
        assert isinstance(out[key], float)
    assert out["matched"] == out["gold"] == out["predicted"] > 0
    assert out["signature"].startswith("semeval|exact|faithful|gold:")
    assert "|rel:file:" in out["signature"] and out["signature"].endswith(f"|v:{__version__}")


def test_score_text_and_per_sentence():
    pred = str(CASES / "test_fes_dropped.pred.xml")
    proc = run("score", "--gold", GOLD, "--pred", pred, *LEX, "--per-sentence")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("sentence 0\tmatched ")
    last = lines[-1]
    assert last.startswith("P 0.99170  R 0.78361  F1 0.87546  (matched 119.5 / gold 152.5 / predicted 120.5)")
    assert "semeval|partial|faithful|gold:" in last


def test_modes_differ_in_points():
    pred = str(CASES / "test_fes_dropped.pred.xml")
    f1 = {}
    for mode in ("semeval", "frames", "argsonly"):
        proc = run("score", "--gold", GOLD, "--pred", pred, *LEX, "--mode", mode, "--json")
        assert proc.returncode == 0, proc.stderr
        f1[mode] = json.loads(proc.stdout)["f1"]
    assert f1["frames"] == 1.0 > f1["semeval"] > f1["argsonly"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--frames", "x.xml"], "give either --framenet SRC, or both --frames"),
        ([*LEX, "--mode", "frameid"], "--mode frameid needs --lu-frames"),
    ],
)
def test_score_usage_errors(args, message):
    proc = run("score", "--gold", GOLD, "--pred", GOLD, *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_score_bad_prediction_file(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<corpus><documents>")
    proc = run("score", "--gold", GOLD, "--pred", str(bad), *LEX)
    assert proc.returncode == 1 and str(bad) in proc.stderr and "Traceback" not in proc.stderr


def test_compare_prints_intervals_and_corrected_pvalues():
    preds = [str(CASES / f"test_{name}.pred.xml") for name in ("fes_dropped", "fes_shifted", "targets_dropped")]
    proc = run("compare", "--gold", GOLD, *preds, *LEX, "--samples", "200", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("95% bootstrap") == 3 and out.count("Holm") == 3 and "samples 200, seed 3" in out
    again = run("compare", "--gold", GOLD, *preds, *LEX, "--samples", "200", "--seed", "3").stdout
    assert again == out


def test_framenet_sample_is_the_bundled_sample(tmp_path):
    """`--framenet sample` names the bundled sample, as `--source sample` does for `convert`."""
    from pyfn.resources import resource_path

    data = tmp_path / "data"
    proc = run("convert", "--source", "sample", "--to", "semeval", "--splits", "test", "--target", str(data), "--quiet")
    assert proc.returncode == 0, proc.stderr
    gold = str(data / "test.gold.xml")
    outs = [run("score", "--gold", gold, "--pred", gold, "--mode", "argsonly", "--framenet", framenet, "--json")
            for framenet in ("sample", str(resource_path("sample")))]
    assert [p.returncode for p in outs] == [0, 0], outs[0].stderr
    assert outs[0].stdout == outs[1].stdout and "|rel:fn1.5-sample|" in outs[0].stdout
