"""The wheel users install holds the whole package: every subpackage, every data file, the right version.

A wheel is built (without the compiled readers, PYFN_BUILD_PURE=1, so it takes seconds) from a copy of the
files git tracks, as from a fresh clone; scripts/check_dist.sh checks the real build (sdist and compiled
wheel, installed in a fresh virtual environment) in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.version import Version

from pyfn import __version__

REPO = Path(__file__).resolve().parents[1]


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout ({exc})")
    return [name for name in out.decode().split("\0") if name]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[zipfile.ZipFile, list[str]]:
    """A pure wheel built from a copy of the tracked files, and the list of those files."""
    root = tmp_path_factory.mktemp("packaging")
    source = root / "src"
    tracked = _tracked()
    for name in tracked:
        if name.split("/")[0] in ("pyfn", "resources") or "/" not in name:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    # a test run leaves byte-code beside the sources: the wheel must not take it
    (source / "resources" / "__pycache__").mkdir(exist_ok=True)
    (source / "resources" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", "-w", str(root / "dist"), str(source)],
                          env={**os.environ, "PYFN_BUILD_PURE": "1"}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [built] = (root / "dist").glob("pyfn-*.whl")
    return zipfile.ZipFile(built), tracked


def test_every_subpackage_is_in_the_wheel(wheel):
    archive, tracked = wheel
    names = set(archive.namelist())
    packages = sorted({name.rsplit("/", 1)[0] for name in tracked
                       if name.startswith("pyfn/") and name.endswith("/__init__.py")})
    assert "pyfn/audit" in packages and "pyfn/scoring/protocols" in packages  # the two a hand-kept list missed
    missing = [package for package in packages if f"{package}/__init__.py" not in names]
    assert not missing, f"subpackages missing from the wheel: {missing}"


def test_every_tracked_file_of_the_package_and_its_resources_is_in_the_wheel(wheel):
    archive, tracked = wheel
    names = set(archive.namelist())
    expected = [name for name in tracked if name.startswith("pyfn/")]
    expected += ["pyfn/_resources/" + name[len("resources/"):] for name in tracked if name.startswith("resources/")]
    missing = [name for name in expected if name not in names]
    assert not missing, f"files missing from the wheel: {missing[:20]} ({len(missing)} in all)"
    assert "pyfn/py.typed" in names and "pyfn/framenet/_clayers.pyx" in names
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    assert not [name for name in names if name.startswith(("tests/", "resources/", "benchmarks/", "scripts/"))]


def test_the_wheel_says_what_it_is(wheel):
    archive, _ = wheel
    [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
    meta = Parser().parsestr(archive.read(metadata).decode())
    assert meta["Version"] == __version__
    assert Version(__version__) > Version("1.3.13"), "pip install -U pyfn would keep the earlier pyfn"
    assert meta["Requires-Python"] == ">=3.10"
    assert "pyfn = pyfn.cli:main" in archive.read(metadata.replace("METADATA", "entry_points.txt")).decode()
    description = meta.get_payload()
    assert description.startswith("# pyfn") and len(description.splitlines()) < 60
    assert any(value.startswith("Source, ") for value in meta.get_all("Project-URL"))
