"""Atomic line files: the digest returned (hashed beside the writing), and scratch parts (not hashed:
their copy is)."""

from __future__ import annotations

import hashlib
import threading

import pytest

from pyfn.errors import PyfnError
from pyfn.fileio import BackgroundSha256, background_sha256, scratch_files, write_lines

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


@pytest.mark.parametrize("blocks", [0, 1, 2, BackgroundSha256.BACKLOG + 7])
def test_background_sha256_hashes_every_block_in_order(blocks):
    data = [bytes([i]) * (5000 + i) for i in range(blocks)]
    with background_sha256() as digest:
        for block in data:
            digest.update(block)
    assert digest.hexdigest() == hashlib.sha256(b"".join(data)).hexdigest()
    assert (digest._thread is not None) is (blocks > 1)  # one block: hashed at once, no thread


def test_background_sha256_copies_a_buffer_the_caller_changes_afterwards():
    buffer = bytearray(b"a" * 10_000)
    with background_sha256() as digest:
        digest.update(b"first")
        for _ in range(20):
            digest.update(buffer)
            buffer[:] = b"b" * 10_000  # changed as soon as update returned
            digest.update(memoryview(buffer))
            buffer[:] = b"a" * 10_000
    expected = b"first" + (b"a" * 10_000 + b"b" * 10_000) * 20
    assert digest.hexdigest() == hashlib.sha256(expected).hexdigest()


def test_a_failed_write_leaves_no_hashing_thread_and_no_file(tmp_path):
    before = threading.active_count()

    def lines():
        yield from LINES
        raise PyfnError("the lines ran dry")

    with pytest.raises(PyfnError, match="ran dry"):
        write_lines(tmp_path / "a.txt", lines())
    assert threading.active_count() == before
    assert list(tmp_path.iterdir()) == []
