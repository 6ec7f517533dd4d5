"""Genuine-release check: the shipped FN 1.7 file manifest against a copy."""

from __future__ import annotations

import pytest

from pyfn.cli import main
from pyfn.framenet import open_release
from pyfn.framenet.identity import Entry, compare_read, digest, reference
from pyfn.resources import resource_path


def test_digests_as_the_manifest_records_them():
    assert digest(Entry("git", "", 6), b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object
    assert digest(Entry("lfs", "", 6), b"hello\n") == (
        "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03")


def test_shipped_manifest_and_unknown_versions():
    genuine = reference("1.7")
    assert len(genuine) == 14930 and genuine["fulltext/ANC__WhereToHongKong.xml"].kind == "lfs"
    assert reference("1.5") is None
    assert compare_read(open_release(resource_path("sample")), {}, ("fulltext",)) is None


def test_fn17_copy_is_not_the_genuine_release(fn17, fn17_train, capsys):
    assert main(["check-release", str(fn17)]) == 1
    out, err = capsys.readouterr()
    assert "missing\tfulltext/ANC__WhereToHongKong.xml" in out.splitlines()
    assert "14,919 files identical, 11 missing, 0 differing: NOT the genuine release" in err
    manifest = fn17_train.manifest  # convert(fn17, ..., splits=("train",), allow_incomplete=True)
    check = manifest["release"]["check"]
    assert check["missing"] == ["fulltext/ANC__WhereToHongKong.xml"] and check["differing"] == []
    assert check["files_compared"] == 106 and not check["genuine"]
    assert any("not the genuine release: 1 missing (fulltext/ANC__WhereToHongKong.xml)" in w
               for w in manifest["warnings"])
    assert manifest["split_definition"]["standard"] is False


def test_unknown_version_check_is_a_usage_error(capsys):
    assert main(["check-release", str(resource_path("sample"))]) == 2
    assert "no genuine file manifest" in capsys.readouterr().err
