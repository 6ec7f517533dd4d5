"""Nothing half-written, nothing run-dependent: SIGKILL at any moment, a full disk, hash seeds, jobs, zip or dir.

The FN 1.5 tests convert dev and test (train is read, to keep its sentences
out) into every format; every run must give the same bytes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import shared_folder

from pyfn.convert import convert
from pyfn.errors import PyfnError
from pyfn.fileio import sha256_file
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

FORMATS = ["jsonl", "semafor", "bios", "conllx", "conllu", "semeval"]


def _cli(source: Path, target: Path, *extra: str, env: dict | None = None) -> list[str]:
    return [sys.executable, "-m", "pyfn", "convert", "--source", str(source), "--target", str(target),
            "--to", *FORMATS, "--splits", "dev", "test", "--exclude-frames", "398", "--quiet", *extra]


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def _manifest_without_source(directory: Path) -> dict:
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("source")
    manifest["options"].pop("jobs", None)
    return manifest


@pytest.fixture(scope="session")  # session: the tests of this module may run apart (conftest.SPREAD)
def reference(fn15, tmp_path_factory) -> Path:
    """The reference run (read only), made once for every worker of the session."""

    def make(target: Path) -> None:
        subprocess.run(_cli(fn15, target, "--jobs", "1"), check=True, env={**os.environ, "PYTHONHASHSEED": "0"})

    return shared_folder(tmp_path_factory, "reliability_reference", make)


def test_same_bytes_across_hash_seeds_jobs_and_zip_or_directory(fn15, reference, tmp_path):
    with zipfile.ZipFile(fn15) as zf:
        members = [n for n in zf.namelist() if "/fulltext/" in n or "/frame/" in n or n.endswith(("README.txt", "frRelation.xml"))]
        zf.extractall(tmp_path / "dir", members)
    runs = {
        "zip-jobs2-seed1": (fn15, ["--jobs", "2"], "1"),
        "dir-jobs2-seed2": (tmp_path / "dir" / "fndata-1.5", ["--jobs", "2"], "2"),
        "dir-jobs1-seed3": (tmp_path / "dir" / "fndata-1.5", ["--jobs", "1"], "3"),
    }
    expected = {k: v for k, v in _files(reference).items() if k != "manifest.json"}
    assert {"dev.frames", "test.bios", "test.conllu", "dev.sentences.conllx", "test.gold.xml", "dev.jsonl"} <= set(expected)
    for name, (source, extra, seed) in runs.items():
        subprocess.run(_cli(source, tmp_path / name, *extra), check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        got = {k: v for k, v in _files(tmp_path / name).items() if k != "manifest.json"}
        assert got == expected, name
        assert _manifest_without_source(tmp_path / name) == _manifest_without_source(reference), name


def _check_consistent(target: Path, allowed: list[dict[str, bytes]]) -> None:
    """Every final-named file is one complete version; a manifest only describes what is there."""
    for path in target.iterdir():
        if path.name.startswith("."):
            continue  # temporary files and the lock: never final names
        assert any(version.get(path.name) == path.read_bytes() for version in allowed), f"{path.name} is incomplete"
    if (target / "manifest.json").exists():
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        for name, digest in manifest["outputs"].items():
            assert sha256_file(target / name) == digest, name


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.5, 2.5, 3.5, 5.0])
def test_sigkill_at_any_moment_leaves_no_incomplete_file(fn15, reference, tmp_path, delay):
    target = tmp_path / "out"
    proc = subprocess.Popen(_cli(fn15, target, "--jobs", "1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if target.exists():
        _check_consistent(target, [_files(reference)])
    # the next run takes over the dead run's lock and cleans its temporary files
    subprocess.run(_cli(fn15, target, "--jobs", "1"), check=True)
    assert not [p for p in target.iterdir() if p.name.startswith(".")]
    assert _files(target) == _files(reference)


def test_sigkill_during_a_rerun_keeps_old_or_new_versions(fn15, reference, tmp_path):
    target = tmp_path / "out"
    subprocess.run(_cli(fn15, target, "--jobs", "1", "--bios-scheme", "bio"), check=True)
    old = _files(target)
    proc = subprocess.Popen(_cli(fn15, target, "--jobs", "1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(2.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _check_consistent(target, [old, _files(reference)])


def test_full_disk_leaves_nothing_half_written(tmp_path, monkeypatch):
    """The third file written meets a full disk (ENOSPC when flushed to disk)."""
    sample = resource_path("sample")
    convert(sample, tmp_path, to=FORMATS)
    before = _files(tmp_path)
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(fd)
        if len(synced) >= 3:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr("pyfn.fileio.os.fsync", fsync)
    with pytest.raises(PyfnError, match="cannot write: No space left on device"):
        convert(sample, tmp_path, to=FORMATS, options=BuildOptions(jobs=1))
    monkeypatch.undo()
    assert _files(tmp_path) == before  # the earlier run, manifest included, byte for byte
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
