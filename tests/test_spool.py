"""Worker results through spool files (pyfn/spool.py) and the parse workers that use them."""

import os
import tempfile
from contextlib import nullcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyfn import spool
from pyfn.convert import SplitSpec, make_definition
from pyfn.errors import PyfnError
from pyfn.framenet.release import open_release
from pyfn.resources import resource_path
from pyfn.splits import builder
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.spool import SpoolReader, SpoolWriter, spool_folder


@given(st.lists(st.binary(max_size=300), max_size=30))
def test_each_result_is_read_back_where_it_was_put(results):
    with spool_folder() as folder, SpoolReader() as reader:
        writer = SpoolWriter(folder)
        places = [writer.put(data) for data in results]
        assert [reader.get(where) for where in reversed(places)] == results[::-1]
        assert all(where[0] == str(folder / f"{os.getpid()}.spool") for where in places)
    assert not folder.exists()


def test_a_spool_that_cannot_be_written_or_read_is_a_clear_error(tmp_path):
    writer = SpoolWriter(tmp_path / "gone")
    with pytest.raises(PyfnError, match=r"gone/\d+\.spool: cannot write a worker's results: No such file .*\$TMPDIR"):
        writer.put(b"record")
    writer = SpoolWriter(tmp_path)
    path, offset, length = writer.put(b"record")
    with SpoolReader() as reader:
        with pytest.raises(PyfnError, match=r"\.spool: a worker's results end early \(6 of 7 bytes at 0\)"):
            reader.get((path, offset, length + 1))
        with pytest.raises(PyfnError, match=r"nowhere\.spool: cannot read a worker's results"):
            reader.get((str(tmp_path / "nowhere.spool"), 0, 1))


def test_the_parse_workers_records_come_through_spool_files(tmp_path, monkeypatch):
    """Parsed in two processes (the sample's 16 files), the build is that of one process; the spool
    folder, made in $TMPDIR, is gone afterwards."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    release = open_release(resource_path("sample"))
    definition = make_definition(release, SplitSpec())
    folders: list = []
    made = spool.spool_folder
    monkeypatch.setattr(builder, "spool_folder", lambda: (folders.append(1), made())[1])
    one = build_splits(release, definition, BuildOptions(with_exemplars=True, jobs=1))
    two = build_splits(release, definition, BuildOptions(with_exemplars=True, jobs=2))
    assert folders == [1] and not list(tmp_path.iterdir())
    assert {n: s.lines for n, s in one.splits.items()} == {n: s.lines for n, s in two.splits.items()}
    assert one.files == two.files and one.ledger == two.ledger and one.splits["train"].lines


def test_a_worker_that_cannot_write_its_spool_fails_the_build_clearly(tmp_path, monkeypatch):
    release = open_release(resource_path("sample"))
    gone = tmp_path / "removed"
    monkeypatch.setattr(builder, "spool_folder", lambda: nullcontext(gone))
    with pytest.raises(PyfnError, match=r"removed/\d+\.spool: cannot write a worker's results"):
        build_splits(release, make_definition(release, SplitSpec()), BuildOptions(with_exemplars=True, jobs=2))



def test_a_temporary_folder_that_cannot_be_made_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with pytest.raises(PyfnError, match=r"missing: cannot make a scratch folder: No such file"):
        with spool_folder():
            pass


def test_the_spool_folders_of_killed_runs_are_removed_by_the_next(tmp_path):
    """A folder of a process of this host that is gone, untouched for STALE_SECONDS, is removed; a recent
    one, one of a live process, another host's and anything not a spool folder are left alone."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    host = os.uname().nodename
    folders = {
        "stale": tmp_path / f"pyfn-spool-{host}-{gone}-abc",
        "recent": tmp_path / f"pyfn-spool-{host}-{gone}-def",
        "live": tmp_path / f"pyfn-spool-{host}-{os.getpid()}-ghi",
        "other host": tmp_path / f"pyfn-spool-{host}x-{gone}-jkl",
        "not ours": tmp_path / "pyfn-spoolish",
    }
    now = 1_000_000.0
    for name, folder in folders.items():
        folder.mkdir()
        (folder / "1.spool").write_bytes(b"records")
        age = 60 if name == "recent" else spool.STALE_SECONDS + 60
        for path in (folder, folder / "1.spool"):
            os.utime(path, (now - age, now - age))
    assert spool.remove_stale(tmp_path, now=now) == [folders["stale"]]
    assert [name for name, folder in folders.items() if folder.exists()] == ["recent", "live", "other host", "not ours"]
    os.utime(folders["recent"] / "1.spool", (now - spool.STALE_SECONDS - 1,) * 2)
    assert spool.remove_stale(tmp_path, now=now) == []  # the folder itself is still recent


def test_making_a_spool_folder_removes_the_stale_ones(tmp_path, monkeypatch):
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import time  # noqa: PLC0415

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    stale = tmp_path / f"pyfn-spool-{os.uname().nodename}-{gone}-abc"
    stale.mkdir()
    old = time.time() - spool.STALE_SECONDS - 60
    os.utime(stale, (old, old))
    with spool_folder() as folder:
        assert folder.name.startswith(f"pyfn-spool-{os.uname().nodename}-{os.getpid()}-")
        assert not stale.exists()
