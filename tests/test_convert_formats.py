"""`pyfn convert` between formats, as a user runs it: every pair, losses in the manifest, refusals."""

import json
import subprocess
import sys

import pytest

from pyfn.convert import convert, read_frames
from pyfn.errors import PyfnError, UsageError
from pyfn.formats import jsonl
from pyfn.formats.base import token_view
from pyfn.formats.registry import FormatOptions
from pyfn.framenet import open_release
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

SAMPLE = resource_path("sample")
TARGETS = ["jsonl", "semafor", "bios", "conllx", "conllu", "semeval"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "pyfn", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def pivot(tmp_path_factory):
    target = tmp_path_factory.mktemp("jsonl")
    convert(SAMPLE, target)
    return target


@pytest.mark.parametrize("to", TARGETS)
def test_fnxml_to_every_format(tmp_path, to):
    manifest = convert(SAMPLE, tmp_path, to=to)
    assert manifest["to"] == to and set(manifest["losses"]) == {"train", "dev", "test"}
    for name, digest in manifest["outputs"].items():
        assert (tmp_path / name).is_file(), name
    if to == "semeval":  # scoring files: dev and test only
        assert set(manifest["outputs"]) == {"dev.gold.xml", "test.gold.xml"}
    assert (tmp_path / "manifest.json").is_file()


@pytest.mark.parametrize("to", TARGETS)
def test_jsonl_to_every_format_equals_fnxml_to_it(tmp_path, pivot, to):
    direct = convert(SAMPLE, tmp_path / "direct", to=to)
    # from fnxml the BIOS writer checks sets against the release's frames; from jsonl they are given
    frames = read_frames(open_release(SAMPLE)) if to == "bios" else None
    via = convert(pivot, tmp_path / "via", from_="jsonl", to=to, formats=FormatOptions(frames=frames))
    assert via["outputs"] == direct["outputs"]
    assert via["losses"] == direct["losses"]


@pytest.mark.parametrize("fmt", ["semafor", "bios", "semeval"])
def test_format_round_trip_through_cli(tmp_path, pivot, fmt):
    """fnxml -> fmt -> jsonl: token views equal the model's, up to the counted losses."""
    ranks = {1} if fmt == "bios" else None
    first = convert(SAMPLE, tmp_path / "a", to=fmt, formats=FormatOptions(semeval_fe_ranks="all"))
    back = convert(tmp_path / "a", tmp_path / "b", from_=fmt, to="jsonl")
    for split in ("train", "dev", "test"):
        if (fmt == "semafor" and split != "train") or (fmt == "semeval" and split == "train"):
            continue  # .frames hold no FEs by design; SemEval XML is written for dev and test only
        model = sorted(token_view(s, ranks) for s in jsonl.read(pivot / f"{split}.jsonl"))
        read = sorted(token_view(s, ranks) for s in jsonl.read(tmp_path / "b" / f"{split}.jsonl"))
        lost = sum(first["losses"][split].get(k, 0) for k in ("overlapping_fes", "fe_not_in_frame"))
        assert len(model) - len(read) == lost
        if not lost:
            assert read == model
    assert back["skipped"] == {}


def test_predictions_take_gold_target_segmentation(tmp_path):
    convert(SAMPLE, tmp_path / "gold", to="semeval")
    convert(SAMPLE, tmp_path / "bios", to="bios")
    proc = run("convert", "--from", "bios", "--source", str(tmp_path / "bios"), "--to", "semeval",
               "--target", str(tmp_path / "pred"), "--splits", "test", "--gold", str(tmp_path / "gold"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    gold = (tmp_path / "gold" / "test.gold.xml").read_text()
    pred = (tmp_path / "pred" / "test.predicted.xml").read_text()
    assert gold.count("<sentence ") == pred.count("<sentence ")
    assert gold.count('name="Target"') == pred.count('name="Target"')


@pytest.mark.parametrize(
    "args, message",
    [
        (["--from", "conllu", "--to", "bios"], "cannot convert from conllu: CoNLL-U files carry tokens"),
        (["--from", "jsonl", "--to", "fnxml"], "cannot convert from jsonl to fnxml: a FrameNet-layout folder takes"),
        (["--from", "semafor", "--to", "jsonl"], "--from semafor needs --source DIR"),
    ],
)
def test_impossible_pairs_say_why(tmp_path, args, message):
    proc = run("convert", "--target", str(tmp_path / "o"), *args)
    assert proc.returncode == 2 and message in proc.stderr


def test_missing_split_file(tmp_path):
    (tmp_path / "in").mkdir()
    with pytest.raises(Exception, match="no semafor file for split"):
        convert(tmp_path / "in", tmp_path / "o", from_="semafor", to="jsonl")
    with pytest.raises(UsageError):
        convert(tmp_path / "in", tmp_path / "o", from_="conllx", to="jsonl")


def test_bad_token_file_is_skipped_and_counted(tmp_path):
    convert(SAMPLE, tmp_path / "a", to="semafor", options=BuildOptions(splits=("train",)))
    path = tmp_path / "a" / "train.frame.elements"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace("\t", "\tx", 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(PyfnError, match="train.frame.elements changed since manifest.json was written"):
        convert(tmp_path / "a", tmp_path / "b", from_="semafor", to="jsonl")  # an edited pyfn output is refused
    (tmp_path / "a" / "manifest.json").unlink()  # now a user's file, such as a parser's output: read, bad line skipped
    manifest = convert(tmp_path / "a", tmp_path / "b", from_="semafor", to="jsonl")
    assert sum(manifest["skipped"].values()) == 1
    assert manifest["splits"]["train"]["annotation_sets"] == len(lines) - 1
    assert "train.frame.elements:3:" in manifest["problems"][0]["message"]
    proc = run("convert", "--from", "semafor", "--source", str(tmp_path / "a"), "--to", "jsonl",
               "--target", str(tmp_path / "c"), "--strict")
    assert proc.returncode == 1 and "train.frame.elements:3:" in proc.stderr and "--strict" in proc.stderr


def test_generate_cli_on_the_sample(tmp_path):
    proc = run("generate", "--source", "sample", "--target", str(tmp_path / "lex"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "lex" / "manifest.json").read_text())
    assert manifest["command"] == "generate" and manifest["lexicon"]["leak_check"]
    assert {"lu_frames.tsv", "ancestors.csv", "frames.xml", "frRelations.xml"} <= set(manifest["outputs"])
    proc = run("generate", "--source", "sample", "--target", str(tmp_path / "x"), "--relations", "SubFrame")
    assert proc.returncode == 2 and "SubFrame" in proc.stderr


@pytest.mark.parametrize("to", [["semeval"], ["semafor", "semeval"]])
def test_a_format_that_would_write_nothing_is_refused_before_any_work(tmp_path, to):
    proc = run("convert", "--source", "sample", "--target", str(tmp_path / "o"), "--to", *to, "--splits", "train")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-2:] == ["pyfn: error: --to semeval writes dev and test only, and this conversion "
                                             "has train: add dev or test to --splits, or choose another --to format",
                                             "try 'pyfn convert --help' for more"]
    assert not (tmp_path / "o").exists()


def test_semeval_from_split_files_of_train_alone_is_refused_and_dev_alone_is_written(tmp_path):
    convert(SAMPLE, tmp_path / "a", to="bios", options=BuildOptions(splits=("train",)))
    with pytest.raises(UsageError, match="--to semeval writes dev and test only, and this conversion has train"):
        convert(tmp_path / "a", tmp_path / "b", from_="bios", to="semeval")
    assert not (tmp_path / "b").exists()
    manifest = convert(SAMPLE, tmp_path / "c", to="semeval", options=BuildOptions(splits=("dev",)))
    assert list(manifest["outputs"]) == ["dev.gold.xml"]
