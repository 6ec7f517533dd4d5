"""Atomic line files: the digest returned, and scratch parts (not hashed: their copy is)."""

from __future__ import annotations

import hashlib

from pyfn.fileio import scratch_files, write_lines

LINES = [f"line {i}\twith ünïcode" for i in range(5000)]  # more than one batch of 2,048 lines


def test_write_lines_returns_the_sha256_of_the_bytes_written(tmp_path):
    digest = write_lines(tmp_path / "a.txt", LINES)
    data = (tmp_path / "a.txt").read_bytes()
    assert data == ("\n".join(LINES) + "\n").encode("utf-8")
    assert digest == hashlib.sha256(data).hexdigest()


def test_a_scratch_part_has_the_same_bytes_and_no_digest(tmp_path):
    write_lines(tmp_path / "final.txt", LINES)
    with scratch_files():
        assert write_lines(tmp_path / "part.txt", LINES) == ""
    assert (tmp_path / "part.txt").read_bytes() == (tmp_path / "final.txt").read_bytes()
    assert write_lines(tmp_path / "after.txt", LINES) == hashlib.sha256((tmp_path / "final.txt").read_bytes()).hexdigest()
