"""The command line as a user runs it: help, defaults, legacy flags, exit codes, outputs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.framenet import sources


def run(*args):
    return subprocess.run([sys.executable, "-m", "pyfn", *args], capture_output=True, text=True)


def test_help_lists_every_option():
    out = run("convert", "--help").stdout
    for flag in ("--with-exemplars", "--exclude-frames", "--filter", "--splits", "--strict", "--split", "--seed"):
        assert flag in out
    assert "CC BY" in out


def test_default_source_is_the_sample_and_manifest_is_complete(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sources, "nltk_data_dirs", lambda: [tmp_path / "nothing"])
    assert main(["convert", "--target", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "the bundled FrameNet 1.5 sample (no --source given, no NLTK FrameNet found)" in err
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["release"]["version"] == "1.5-sample"
    assert manifest["signature"].startswith("fn:1.5-sample|split:sample|ex:no|filters:none|dedup:annoset|excl:none|v:")
    for name, counts in manifest["splits"].items():
        lines = (tmp_path / "out" / f"{name}.jsonl").read_text().splitlines()
        assert counts["annotation_sets"] == len(lines) > 0
    assert set(manifest["outputs"]) == {"train.jsonl", "dev.jsonl", "test.jsonl"}
    assert "pyfn: FrameNet 1.5-sample: train" in err


def test_nltk_zip_is_preferred_when_present(tmp_path, monkeypatch):
    corpora = tmp_path / "nltk_data" / "corpora"
    corpora.mkdir(parents=True)
    (corpora / "framenet_v15.zip").write_bytes(b"")
    monkeypatch.setattr(sources, "nltk_data_dirs", lambda: [tmp_path / "nltk_data"])
    path, label = sources.resolve_source(None)
    assert path == corpora / "framenet_v15.zip" and "NLTK" in label


def test_legacy_spellings_and_exemplars_on_the_sample(tmp_path):
    proc = run("convert", "--source", "sample", "--target", str(tmp_path / "o"), "--splits", "train",
               "--with_exemplars", "--excluded_frames", "398", "--filter", "overlap_fes", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "pyfn: warning: --exclude-frames 398 matches no annotation set read\n"
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["options"]["with_exemplars"] is True
    assert manifest["options"]["filters"] == ["overlap_fes"]
    assert list(manifest["splits"]) == ["train"]
    sources_seen = {json.loads(x)["source"] for x in (tmp_path / "o" / "train.jsonl").read_text().splitlines()}
    assert sources_seen == {"fulltext", "exemplar"}


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--filter", "bogus"], 2, "pyfn: error: unknown filter bogus"),
        (["--exclude-frames", "x1"], 2, "--exclude-frames: 'x1' is not an integer id"),
        (["--source", "/nonexistent/fn.zip"], 1, "pyfn: error: /nonexistent/fn.zip: no such file or directory"),
        (["--splits", "tesst"], 2, "invalid choice: 'tesst'"),
    ],
)
def test_errors_are_one_line_with_exit_codes(tmp_path, args, code, message):
    proc = run("convert", "--source", "sample", "--target", str(tmp_path / "o"), *args)
    assert proc.returncode == code
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unwritable_target(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run("convert", "--source", "sample", "--target", str(blocker / "sub"))
    assert proc.returncode == 1 and "cannot create the target directory" in proc.stderr


def test_identical_runs_give_identical_bytes(tmp_path):
    for name in ("a", "b"):
        assert run("convert", "--source", "sample", "--target", str(tmp_path / name), "--quiet").returncode == 0
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_second_concurrent_run_refuses(tmp_path):
    target = tmp_path / "o"
    target.mkdir()
    (target / ".pyfn.lock").write_text("1\n")  # pid 1 is always alive
    proc = run("convert", "--source", "sample", "--target", str(target))
    assert proc.returncode == 1 and "another pyfn run (pid 1) is writing here" in proc.stderr
    (target / ".pyfn.lock").write_text("999999999\n")  # a stale lock is taken over
    assert run("convert", "--source", "sample", "--target", str(target), "--quiet").returncode == 0
    assert not (target / ".pyfn.lock").exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="zombies are told apart through /proc")
def test_a_lock_of_a_killed_process_not_yet_reaped_is_stale(tmp_path):
    """A run killed with its parent (a Dask worker) is a zombie until reaped: its lock is taken over."""
    import time

    from pyfn.fileio import locked_directory

    child = subprocess.Popen(["true"])
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z":
        time.sleep(0.01)  # exited, not reaped: os.kill(pid, 0) still succeeds
    try:
        (tmp_path / ".pyfn.lock").write_text(f"{child.pid}\n")
        with locked_directory(tmp_path):
            assert (tmp_path / ".pyfn.lock").read_text() == f"{os.getpid()}\n"
    finally:
        child.wait()
