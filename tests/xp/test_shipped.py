"""The shipped experiments run from their scripts and verify against their recorded manifests.

Each script is run in a copy of the repository layout (scripts/ and the
experiment's recipe and manifest), as from a fresh clone: it runs every step
and ends with ``pyfn verify``. Outputs must match the manifest byte for byte;
a different version of a library may be reported (it is drift, printed), but
no output, score or recipe may differ.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import run_shipped_experiment

REPO = Path(__file__).resolve().parents[2]


def _run_script(number: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return run_shipped_experiment(number, tmp_path)


def _check(proc: subprocess.CompletedProcess) -> None:
    drift = [line for line in proc.stdout.splitlines() if line and not line.startswith("  ")]
    if proc.returncode:
        assert drift, proc.stderr[-2000:]
        assert all(line.startswith("version of ") for line in drift), proc.stdout
    assert "Traceback" not in proc.stderr


def test_every_shipped_experiment_has_a_script_and_a_consistent_manifest():
    for folder in sorted((REPO / "experiments").glob("xp_*")):
        assert (REPO / "scripts" / f"{folder.name}.sh").is_file(), folder.name
        assert (folder / "README.md").is_file() and (folder / ".gitignore").read_text() == "work/\n"
        manifest_path = folder / "manifest.json"
        if manifest_path.is_file():
            import hashlib

            manifest = json.loads(manifest_path.read_text())
            assert manifest["recipe_sha256"] == hashlib.sha256((folder / "experiment.toml").read_bytes()).hexdigest()


def test_shipped_reports_and_scripts_are_what_the_generator_writes(tmp_path, monkeypatch):
    """README.md, report.html and scripts/xp_NNN.sh as `pyfn xp report` writes them from the recipe and the
    recorded manifest (no run needed): regenerate them when the generator changes."""
    from pyfn.xp.run import report

    monkeypatch.chdir(tmp_path)
    (tmp_path / "scripts").mkdir()
    for folder in sorted((REPO / "experiments").glob("xp_*")):
        copy = Path("experiments") / folder.name
        copy.mkdir(parents=True)
        for file in ("experiment.toml", "manifest.json"):
            if (folder / file).is_file():
                shutil.copy(folder / file, copy)
        report(copy)
        for path in (copy / "README.md", copy / "report.html", Path("scripts") / f"{folder.name}.sh"):
            assert path.read_text() == (REPO / path).read_text(), f"{path} is stale: run `pyfn xp report {folder.name[3:]}`"


def test_xp_000_script_runs_and_verifies(tmp_path):
    _check(_run_script("000", tmp_path))


def test_xp_001_script_runs_and_verifies(xp_001_run):
    _check(xp_001_run[1])  # the run is shared with tests/test_baselines_fn15.py, which checks its baselines
