"""The command line as a thin layer: the verbs' plain functions called from Python give what the verbs give
(baselines, build options), and ``pyfn score``/``pyfn compare`` refuse, from one table, every option the mode
they run in does not take."""

from __future__ import annotations

import argparse
import json

import pytest
from test_baselines import PARSES, _args_test, _args_train, run_cli, write_lexicon, write_split

from pyfn.baselines.run import run_baseline
from pyfn.cli import build_parser, compare, main, score, subparsers
from pyfn.cli._util import Modes, build_options as cli_build_options
from pyfn.errors import UsageError
from pyfn.splits.builder import SPLITS
from pyfn.splits.options import build_flags, build_options, recorded_options, split_names


def _parser(prog: str) -> argparse.ArgumentParser:
    return next(p for p in subparsers(build_parser()) if p.prog == prog)


# --------------------------------------------------------------------------- one table of modes


@pytest.mark.parametrize(("prog", "modes"), [("pyfn score", score.MODES), ("pyfn compare", compare.MODES)])
def test_every_option_has_its_place_in_the_table(prog, modes):
    assert modes.unexplained(_parser(prog)) == []


def test_an_option_no_mode_lists_is_found_and_refused():
    parser = _parser("pyfn score")
    parser.add_argument("--new-knob", type=int, default=0)
    assert score.MODES.unexplained(parser) == ["--new-knob"]
    args = parser.parse_args(["--gold", "g", "--pred", "p", "--new-knob", "3"])
    args.parser = parser
    with pytest.raises(UsageError, match=r"^--mode semeval/frames/argsonly does not take --new-knob"):
        score.MODES.check(args, score.mode_of(args))


@pytest.mark.parametrize(("extra", "message"), [
    (["--breakdown", "--exact", "--per-sentence"],
     "--breakdown does not take --exact and --per-sentence: --mode, --exact, --corrected, --span-match, --parse "
     "and --per-sentence set the SemEval scorer"),
    (["--protocol", "semeval07", "--all-protocols"],
     "--protocol does not take --all-protocols: --protocol NAME, --all-protocols and --breakdown are modes of their "
     "own: give one; a protocol fixes its own settings"),
    (["--mode", "frameid", "--lu-frames", "x.tsv", "--span-match", "overlap"],
     "--mode frameid does not take --span-match: --mode, --exact"),
    (["--frame-scores", "s.jsonl"],
     "--mode semeval/frames/argsonly does not take --frame-scores: --frame-scores and --release-lu-frames go with "
     "--protocol lexfilter:* or --all-protocols"),
    (["--all-protocols", "--strict"], "--all-protocols does not take --strict: --strict stops the SemEval scorer"),
])
def test_score_refuses_a_clash_before_reading_anything(extra, message, capsys):
    assert main(["score", "--gold", "missing.xml", "--pred", "missing.xml", *extra]) == 2
    err = capsys.readouterr().err
    assert f"pyfn: error: {message}" in err and "try 'pyfn score --help' for more" in err


def test_compare_refuses_json_without_all_protocols(capsys):
    assert main(["compare", "--gold", "g.xml", "a.xml", "b.xml", "--frames", "f", "--relations", "r", "--json"]) == 2
    assert "--json and --output go with --all-protocols" in capsys.readouterr().err
    assert main(["compare", "--gold", "g.xml", "a.xml", "b.xml", "--all-protocols", "--exact"]) == 2
    assert "a protocol fixes its own settings" in capsys.readouterr().err


def test_modes_name_every_refused_option_once():
    modes = Modes({"a": ("--x",), "b": ("--x", "--y")}, {("--y",): "--y goes with b"}, {"a": "note"})
    parser = argparse.ArgumentParser()
    parser.add_argument("--x")
    parser.add_argument("--y")
    args = parser.parse_args(["--y", "1"])
    args.parser = parser
    modes.check(args, "b")
    with pytest.raises(UsageError, match=r"^a does not take --y: --y goes with b; note$"):
        modes.check(args, "a")


# --------------------------------------------------------------------------- build options, one translation


def test_flags_keywords_and_a_manifest_record_give_the_same_options():
    convert = _parser("pyfn convert")
    args = convert.parse_args(["--target", "t", "--splits", "test", "dev", "--with-exemplars", "--exclude-frames",
                               "398,12", "7", "--filter", "overlap_fes", "--filter-scope", "all", "--jobs", "2"])
    from_flags = cli_build_options(args, args.splits)
    from_keywords = build_options(splits=["dev", "test"], with_exemplars=True, exclude_frames=[398, 12, 7],
                                  filters=["overlap_fes"], filter_scope="all", jobs=2)
    assert from_flags == from_keywords and from_flags.splits == ("dev", "test")
    record = {"splits": ["dev", "test"], "with_exemplars": True, "exclude_frames": [7, 12, 398], "exclude_lus": [],
              "exclude_sentences": [], "exclude_annosets": [], "filters": ["overlap_fes"], "filter_scope": "all",
              "allow_incomplete": False}
    assert recorded_options(record, jobs=2) == from_keywords


def test_the_recipe_flags_parse_back_to_the_options_they_came_from():
    keywords = {"with_exemplars": True, "exclude_frames": (398,), "filters": ("overlap_fes",),
                "filter_scope": "all", "allow_incomplete": True}
    flags = build_flags(**keywords)
    assert flags == ["--with-exemplars", "--exclude-frames", "398", "--filter", "overlap_fes", "--filter-scope", "all",
                     "--allow-incomplete"]
    args = _parser("pyfn convert").parse_args(["--target", "t", *flags])
    assert cli_build_options(args) == build_options(**keywords)
    assert build_flags() == []


@pytest.mark.parametrize(("call", "message"), [
    (lambda: build_options(exclude_frames=["398"]), "exclude_frames: '398' is not an integer id"),
    (lambda: build_options(exclude_lus="12"), "exclude_lus takes a list of integer ids"),
    (lambda: build_options(exclude_lus=["1,x"], flags=True), "--exclude-lus: 'x' is not an integer id"),
    (lambda: build_options(jobs=-1, flags=True), "--jobs must be >= 0"),
    (lambda: build_options(filters="overlap_fes"), "filters takes a list of filter names"),
    (lambda: split_names(["train", "val"]), "unknown split 'val'"),
    (lambda: build_flags(exclude_frames=[True]), "exclude_frames: True is not an integer id"),
])
def test_bad_options_are_refused_by_their_name(call, message):
    with pytest.raises(UsageError, match=message):
        call()


def test_all_is_every_split_in_order():
    assert split_names("all") == split_names(["test", "all"]) == SPLITS
    assert split_names(["test", "train"]) == ("train", "test")


# --------------------------------------------------------------------------- baselines from Python


@pytest.mark.parametrize("name", ["frameid-mff", "args-deppath"])
def test_a_baseline_called_from_python_writes_what_the_verb_writes(tmp_path, name):
    data, lex = tmp_path / "data", tmp_path / "lex"
    train = _args_train()
    write_split(data, "train", train, PARSES)
    write_split(data, "dev", _args_test(), PARSES)
    write_split(data, "test", _args_test()[::-1][:2], PARSES)
    write_lexicon(lex, train)
    trained = run_baseline(name, str(data), str(lex), tmp_path / "python")
    assert run_cli([name, "--data", str(data), "--lexicon", str(lex), "--target", str(tmp_path / "cli"),
                    "--quiet"]) == 0
    for file in ("dev.predicted.xml", "test.predicted.xml", "manifest.json"):
        assert (tmp_path / "python" / file).read_bytes() == (tmp_path / "cli" / file).read_bytes()
    assert trained.manifest == json.loads((tmp_path / "cli" / "manifest.json").read_text(encoding="utf-8"))
    assert trained.summary and trained.seconds >= 0


def test_a_baseline_refuses_an_option_it_does_not_take(tmp_path):
    with pytest.raises(UsageError, match="--threshold goes with args-deppath"):
        run_baseline("frameid-mff", tmp_path, tmp_path, tmp_path / "out", threshold=0.5)
    with pytest.raises(UsageError, match="unknown baseline 'mff'"):
        run_baseline("mff", tmp_path, tmp_path, tmp_path / "out")


# --------------------------------------------------------------------------- verify, an action of experiments


def test_xp_verify_and_its_older_name_verify_alike(capsys, tmp_path):
    """Same exit code and output, whether the experiment was run here (work tree) or not (fresh clone), and for
    a folder that is no experiment."""
    for folder in ("experiments/xp_000", str(tmp_path / "xp_999")):
        code = main(["xp", "verify", folder])
        by_xp = capsys.readouterr()
        assert main(["verify", folder]) == code and capsys.readouterr() == by_xp
        assert folder in by_xp.err
    assert code == 2
