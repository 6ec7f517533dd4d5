"""``pyfn generate --release-lexicon`` and ``pyfn baseline --candidates`` on the bundled sample: an opt-in
that changes nothing without it (byte for byte, against the hashes xp_000 recorded), lists its file in the
manifest, and says what it is in --help."""

from __future__ import annotations

import json

from conftest import REPO

from pyfn.cli import build_parser, main, subparsers
from pyfn.xp.manifest import file_digest


def _generate(target, *extra):
    assert main(["generate", "--source", "sample", "--target", str(target), "--quiet", *extra]) == 0
    return json.loads((target / "manifest.json").read_text(encoding="utf-8"))


def _digests(folder):
    return {str(p.relative_to(folder)): file_digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generate_without_the_flag_is_byte_identical_to_the_recorded_run(tmp_path):
    """xp_000 recorded every file of `pyfn generate --source sample` (its manifest.json without the machine
    path): the same command writes the same bytes, and no release_lu_frames.tsv."""
    recorded = json.loads((REPO / "experiments" / "xp_000" / "manifest.json").read_text(encoding="utf-8"))["outputs"]
    prefix = "work/lexicon/"
    expected = {name[len(prefix):]: digest for name, digest in recorded.items() if name.startswith(prefix)}
    _generate(tmp_path / "lex")
    assert _digests(tmp_path / "lex") == expected


def test_generate_with_the_flag_adds_one_listed_file(tmp_path):
    plain = _generate(tmp_path / "plain")
    manifest = _generate(tmp_path / "release", "--release-lexicon")
    lines = (tmp_path / "release" / "release_lu_frames.tsv").read_text(encoding="utf-8").splitlines()
    assert "advise.v\tAttempt_suasion\tTelling" in lines  # two frames, sorted; names as FrameNet spells them
    assert lines == sorted(lines) and len(lines) == manifest["lexicon"]["release_lexicon"]["lines"] == 3530
    assert manifest["lexicon"]["release_lexicon"]["train_lus_not_listed"] == []
    assert manifest["outputs"] == {**plain["outputs"], "release_lu_frames.tsv": file_digest(
        tmp_path / "release" / "release_lu_frames.tsv")}
    assert manifest["lexicon"]["leak_check"] == plain["lexicon"]["leak_check"]
    assert manifest["signature"] == plain["signature"]


def _help(command):
    parser = next(p for p in subparsers(build_parser()) if p.prog == f"pyfn {command}")
    return " ".join(parser.format_help().split())


def test_help_says_what_the_options_do(monkeypatch):
    monkeypatch.setenv("COLUMNS", "2000")  # no line breaks inside hyphenated words
    generate = _help("generate")
    assert "--release-lexicon also write release_lu_frames.tsv" in generate
    assert "every LU of the full release's frame files (minus --exclude-frames and --exclude-lus)" in generate
    assert "release-derived by design, so the leak check does not read it" in generate
    baseline = _help("baseline")
    assert "--candidates {train,release}" in baseline
    assert "train (default): the train-only lexicon LEX/lu_frames.tsv" in baseline
    assert "release: first LEX/release_lu_frames.tsv (`pyfn generate --release-lexicon`" in baseline
