"""``pyfn cache``: listing, pruning and clearing pyfn's caches, touching nothing pyfn did not write."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from pyfn.cache_admin import ABANDONED_SECONDS, size_text
from pyfn.cli import main
from pyfn.resources import resource_path

OLD = 1_600_000_000


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A cache root holding the sample's fulltext entry, a preprocessing entry and files pyfn never writes."""
    sample = Path(shutil.copytree(resource_path("sample"), tmp_path / "sample"))
    for path in sample.rglob("*"):
        os.utime(path, (OLD, OLD))
    root = tmp_path / "cache"
    assert main(["convert", "--source", str(sample), "--target", str(tmp_path / "out"), "--to", "jsonl", "--quiet",
                 "--cache-dir", str(root)]) == 0
    key = "ab" * 32
    (root / "preprocess" / "ab").mkdir(parents=True)
    (root / "preprocess" / "ab" / f"{key}.jsonl").write_text("{}\n")
    for stranger in ("releases/notes.txt", "releases/zz/mine.bin", f"releases/cd/{key}.bin", "preprocess/ab/keep.jsonl"):
        (root / stranger).parent.mkdir(parents=True, exist_ok=True)
        (root / stranger).write_text("not pyfn's")
    return root


def _listed(root: Path, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["cache", "--cache-dir", str(root), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["entries"]


def _strangers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.read_bytes() == b"not pyfn's")


def test_list_shows_each_entry_with_its_folder_release_and_use(filled, tmp_path, capsys):
    entries = _listed(filled, capsys)
    assert [(e["kind"], e["folder"], e["usable"], e["partial"]) for e in entries] == [
        ("releases", "fulltext", True, False), ("preprocess", "", True, False)]
    assert entries[0]["source"] == str((tmp_path / "sample").resolve()) and entries[0]["files"] > 0
    assert main(["cache", "--cache-dir", str(filled)]) == 0
    text = capsys.readouterr().out
    assert "parsed releases: 1 files" in text and f"fulltext/ ({entries[0]['files']:,} files) of {tmp_path / 'sample'}" in text


def test_prune_removes_what_this_pyfn_cannot_use_and_abandoned_writes_only(filled, capsys):
    (entry,) = [p for p in filled.glob("releases/*/*.bin") if p.read_bytes() != b"not pyfn's"]
    stale = filled / "releases" / "ee" / ("ee" * 32 + ".bin")
    stale.parent.mkdir()
    header, _, body = entry.read_bytes().partition(b"\n")
    made = json.loads(header)
    made["made_by"]["reader"] = "0" * 64  # another pyfn's reader
    stale.write_bytes(json.dumps(made).encode() + b"\n" + body)
    abandoned = entry.parent / f".{entry.name}.x1.tmp"
    running = entry.parent / f".{entry.name}.x2.tmp"
    for path in (abandoned, running):
        path.write_bytes(b"partial")
    old = time.time() - ABANDONED_SECONDS - 60
    os.utime(abandoned, (old, old))
    strangers = _strangers(filled)
    assert main(["cache", "prune", "--cache-dir", str(filled), "--dry-run"]) == 0
    assert stale.exists() and abandoned.exists()
    assert main(["cache", "prune", "--cache-dir", str(filled)]) == 0
    assert not stale.exists() and not stale.parent.exists() and not abandoned.exists()
    assert entry.exists() and running.exists() and _strangers(filled) == strangers
    assert [e["usable"] for e in _listed(filled, capsys) if not e["partial"]] == [True, True]


def test_clear_removes_every_entry_of_both_caches_and_nothing_else(filled, tmp_path, capsys):
    strangers = _strangers(filled)
    assert main(["cache", "clear", "--cache-dir", str(filled), "--dry-run"]) == 0
    assert len(_listed(filled, capsys)) == 2
    assert main(["cache", "clear", "--cache-dir", str(filled), "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)
    assert len(removed["removed"]) == 2 and removed["bytes"] == sum(e["bytes"] for e in removed["removed"])
    assert _listed(filled, capsys) == [] and _strangers(filled) == strangers
    # the next build makes the entry again and writes the same files
    sample = tmp_path / "sample"
    assert main(["convert", "--source", str(sample), "--target", str(tmp_path / "again"), "--to", "jsonl", "--quiet",
                 "--cache-dir", str(filled)]) == 0
    assert (tmp_path / "again" / "train.jsonl").read_bytes() == (tmp_path / "out" / "train.jsonl").read_bytes()
    assert len(_listed(filled, capsys)) == 1


def test_an_empty_or_missing_root_lists_nothing(tmp_path, capsys):
    assert _listed(tmp_path / "none", capsys) == []
    assert main(["cache", "clear", "--cache-dir", str(tmp_path / "none")]) == 0
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize(("n", "text"), [(0, "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1_500_000, "1.5 MB"),
                                         (2_300_000_000, "2.3 GB"), (5 * 10**12, "5000.0 GB")])
def test_size_text(n, text):
    assert size_text(n) == text


def test_a_file_that_cannot_be_removed_is_one_line_and_exit_1(filled, capsys, monkeypatch):
    def refuse(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    capsys.readouterr()
    assert main(["cache", "clear", "--cache-dir", str(filled)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pyfn cache clear: freed 0 B (0 files)")
    assert len(err) == 3 and all(line.startswith("pyfn cache: error: ") and "cannot remove: Permission denied" in line
                                 for line in err[1:])


def test_a_run_that_stores_a_release_says_how_much_of_the_cache_other_versions_made(filled, tmp_path, capsys):
    sample = tmp_path / "sample"
    args = ["convert", "--source", str(sample), "--to", "jsonl", "--cache-dir", str(filled)]
    assert main([*args, "--target", str(tmp_path / "warm")]) == 0  # nothing stored: no word about the cache
    assert "pyfn cache prune" not in capsys.readouterr().err
    (entry,) = [p for p in filled.glob("releases/*/*.bin") if p.read_bytes() != b"not pyfn's"]
    header, _, body = entry.read_bytes().partition(b"\n")
    made = json.loads(header)
    made["made_by"]["lxml"] = [0, 0, 0, 0]  # its header now says another lxml made it
    entry.write_bytes(json.dumps(made).encode() + b"\n" + body)
    with_exemplars = [*args, "--with-exemplars"]
    assert main([*with_exemplars, "--target", str(tmp_path / "ex")]) == 0  # stores the lu/ folder
    err = capsys.readouterr().err
    assert f"of the parsed-release cache (1 entry in {filled / 'releases'}) were made by another pyfn version" in err
    assert "`pyfn cache prune` removes them" in err
    for stored in [p for p in filled.glob("releases/*/*.bin") if p.read_bytes() != b"not pyfn's" and p != entry]:
        stored.unlink()
    assert main([*with_exemplars, "--target", str(tmp_path / "ex2"), "--quiet"]) == 0  # stores lu/ again, quietly
    assert capsys.readouterr().err == ""
