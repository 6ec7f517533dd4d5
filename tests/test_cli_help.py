"""Help and argument errors of every sub-command: what is offered works, every option says what it does
and its default, and a mistake is answered by one line and a hint, not the usage."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from pyfn.cli import FROM_FORMATS, TO_FORMATS, build_parser, subparsers
from pyfn.formats.registry import READERS, RELEASE_FORMATS, WRITERS

COMMANDS = ["convert", "generate", "preprocess", "score", "compare", "compare-runs", "check-release", "audit", "show",
            "xp", "verify", "baseline", "open-sesame", "semafor", "simpleframeid", "cache", "export"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyfn", *args], capture_output=True, text=True)


def _options() -> list[tuple[argparse.ArgumentParser, argparse.Action]]:
    top = build_parser()
    return [(p, a) for p in [top, *subparsers(top)] for a in p._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def test_every_command_is_covered():
    top = build_parser()
    assert {p.prog.split()[1] for p in subparsers(top) if len(p.prog.split()) == 2} == set(COMMANDS)


@pytest.mark.parametrize(("parser", "action"), _options(), ids=lambda x: getattr(x, "prog", None) or
                         (x.option_strings or [x.dest])[0])
def test_every_option_has_help_showing_its_default(parser, action):
    text = parser._get_formatter()._get_help_string(action)
    assert text and text.strip(), f"{parser.prog} {action.dest}: no help"
    if action.default not in (None, False, argparse.SUPPRESS) and not action.required and action.option_strings:
        assert "default" in text, f"{parser.prog} {action.option_strings[0]}: default {action.default!r} not shown"


@pytest.mark.parametrize("command", [*COMMANDS, "xp run", "xp report", "export hf"])
def test_help_of_every_command(command):
    proc = run(*command.split(), "--help")
    assert proc.returncode == 0 and proc.stdout.startswith(f"usage: pyfn {command}"), proc.stderr


def test_convert_offers_only_the_formats_it_converts():
    assert FROM_FORMATS == ["fnxml", *READERS] and "conllx" not in FROM_FORMATS and "conllu" not in FROM_FORMATS
    assert TO_FORMATS == [*WRITERS, *RELEASE_FORMATS] and TO_FORMATS[-1] == "fnxml"
    out = run("convert", "--help").stdout
    assert "input format: fnxml, jsonl, semafor, bios, semeval, parquet (default: fnxml)" in " ".join(out.split())
    assert "output format(s): jsonl, semafor, bios, conllx, conllu, semeval, parquet, fnxml (default: jsonl)" in " ".join(
        out.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["convert", "--target", "o", "--to", "foo"], "pyfn convert: error: argument --to: invalid choice: 'foo'"),
        (["convert", "--target", "o", "--from", "conllx"],
         "pyfn convert: error: argument --from: cannot convert from conllx: CoNLL-X files carry tokens"),
        (["convert", "--target", "o", "--bogus"], "pyfn convert: error: unrecognized arguments: --bogus"),
        (["score", "--gold", "g.xml"], "pyfn score: error: the following arguments are required: --pred"),
        (["xp", "run"], "pyfn xp run: error: the following arguments are required: number"),
        (["xp"], "pyfn xp: error: the following arguments are required: ACTION"),
        ([], "pyfn: error: the following arguments are required: COMMAND"),
        (["baseline", "nope"], "pyfn baseline: error: argument NAME: invalid choice: 'nope'"),
    ],
)
def test_argument_errors_are_one_line_and_a_hint(args, message):
    proc = run(*args)
    prog = message.split(": error:")[0]
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0].startswith(message), proc.stderr
    assert proc.stderr.splitlines()[1:] == [f"try '{prog} --help' for more"]
    assert "usage:" not in proc.stderr and proc.stdout == ""


def test_usage_errors_found_later_carry_the_hint(tmp_path):
    proc = run("convert", "--source", "sample", "--target", str(tmp_path / "o"), "--exclude-frames", "x1")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["pyfn: error: --exclude-frames: 'x1' is not an integer id",
                                        "try 'pyfn convert --help' for more"]
