"""Property tests: every reader, on random bytes and on small valid files with random byte edits
(flips, insertions, deletions, truncations), lets no exception but :class:`PyfnError` escape.

The valid files are the ``*-valid`` cases of ``tests/malformed/`` (real FrameNet 1.5 bytes, cut
down, and pyfn's own format files made from them).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats import bios, conll, jsonl, semafor, semeval
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.lexicon import read_frame, read_frame_relations
from pyfn.framenet.release import open_release

MALFORMED = Path(__file__).resolve().parent / "malformed"
CASES = {case["id"]: case for case in json.loads((MALFORMED / "cases.json").read_text(encoding="utf-8"))["cases"]}
SETTINGS = settings(max_examples=int(os.environ.get("PYFN_FUZZ_EXAMPLES", 150)), deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RANDOM_SETTINGS = settings(SETTINGS, max_examples=50)

TOKENS = [
    b"\t", b"\n", b"\r\n", b"\r", b"\n\n", b" ", b"\xa0".decode("latin-1").encode(), b"\xef\xbb\xbf", b"\xff", b"\x00",
    b"_", b"-", b":", b"0", b"-1", b"9" * 30, b"9" * 5000, b"1.5", b"B-", b"I-", b"S-", b"O", b"#", b"3-4", b"3.1",
    b"<", b">", b"/>", b"&", b"&amp;", b"&#0;", b"&#x110000;", b'"', b"'", b"<![CDATA[x]]>", b"<!-- c -->", b"<?pi x?>",
    b"<!DOCTYPE x>", b'xmlns="http://framenet.icsi.berkeley.edu"', b'start="5"', b'end="2"', b'ID="1"',
    b"{", b"}", b"[", b"]", b"null", b"true", b'"x"', b"1e400", b"\\u0000", b"\\ud800",
    b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"\xe9", b"\xc3\xa9", b"\xf0\x9f\x98\x80",
]
"""Byte strings that matter to one format or another, inserted as well as random bytes."""


def _reader(case: dict) -> Callable[[dict[str, Path]], None]:
    """A function reading the case's files (role -> path) to the end, with strict=False."""
    reader = case["reader"]
    log = ProblemLog()
    if reader in ("fulltext", "lu"):
        return lambda p: read_annotations(p["xml"].read_bytes(), f"{reader}/{p['xml'].name}") and None
    if reader == "frame":
        return lambda p: read_frame(p["xml"].read_bytes(), "frame/Goal.xml") and None
    if reader == "frRelation":
        return lambda p: read_frame_relations(p["xml"].read_bytes()) and None
    if reader == "release-zip":
        def read_release(p: dict[str, Path]) -> None:
            release = open_release(p["zip"])
            for relpath in release.list("fulltext") + release.list("lu"):
                read_annotations(release.read(relpath), relpath)
            for relpath in release.list("frame"):
                read_frame(release.read(relpath), relpath)
            if release.exists("frRelation.xml"):
                read_frame_relations(release.read("frRelation.xml"))
        return read_release
    if reader == "jsonl":
        return lambda p: list(jsonl.read(p["jsonl"], log=log)) and None
    if reader == "semafor":
        return lambda p: list(semafor.read(p["frames"], p["sentences"], log=log)) and None
    if reader == "bios":
        return lambda p: list(bios.read(p["bios"], p["sentences"], log=log)) and None
    if reader in ("conllx", "conllu"):
        return lambda p: list(conll.read_conll(p["conll"], log=log, dialect=reader)) and None
    if reader == "semeval":
        return lambda p: list(semeval.read(p["xml"], log=log)) and None
    raise AssertionError(reader)


READERS = sorted({case["reader"] for case in CASES.values()})
VALID = {reader: CASES[f"{reader}-valid"] for reader in READERS}


def _only_pyfn_errors(case: dict, files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for role, data in files.items():
            path = Path(tmp) / Path(case["files"][role]).name
            path.write_bytes(data)
            paths[role] = path
        try:
            _reader(case)(paths)
        except PyfnError as exc:
            assert "\n" not in str(exc)


def _apply(data: bytes, edits: list[tuple]) -> bytes:
    for kind, position, arg in edits:
        position = position % (len(data) + 1)
        if kind == "flip" and data:
            position %= len(data)
            data = data[:position] + bytes([data[position] ^ arg]) + data[position + 1:]
        elif kind == "insert":
            data = data[:position] + arg + data[position:]
        elif kind == "delete":
            data = data[:position] + data[position + arg:]
        elif kind == "truncate":
            data = data[:position]
    return data


EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("flip"), st.integers(0, 1 << 20), st.integers(1, 255)),
        st.tuples(st.just("insert"), st.integers(0, 1 << 20), st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("insert"), st.integers(0, 1 << 20), st.sampled_from(TOKENS)),
        st.tuples(st.just("delete"), st.integers(0, 1 << 20), st.integers(1, 64)),
        st.tuples(st.just("truncate"), st.integers(0, 1 << 20), st.none()),
    ),
    min_size=1,
    max_size=4,
)


@pytest.mark.parametrize("reader", READERS)
def test_random_bytes(reader):
    case = VALID[reader]

    @RANDOM_SETTINGS
    @given(role=st.sampled_from(sorted(case["files"])), data=st.binary(max_size=2048))
    def check(role: str, data: bytes) -> None:
        files = {r: (MALFORMED / f).read_bytes() for r, f in case["files"].items()}
        files[role] = data
        _only_pyfn_errors(case, files)

    check()


@pytest.mark.parametrize("reader", READERS)
def test_edited_valid_files(reader):
    case = VALID[reader]
    originals = {r: (MALFORMED / f).read_bytes() for r, f in case["files"].items()}

    @SETTINGS
    @given(role=st.sampled_from(sorted(case["files"])), edits=EDITS)
    def check(role: str, edits: list[tuple]) -> None:
        files = dict(originals)
        files[role] = _apply(files[role], edits)
        _only_pyfn_errors(case, files)

    check()


@pytest.mark.parametrize("reader", ["lu", "frRelation"])
def test_damaged_namespace_in_an_attribute_name(reader):
    """Found by CI's fuzzing: a "}" inside the xsi namespace makes lxml unable to list the attributes."""
    case = VALID[reader]
    files = {r: (MALFORMED / f).read_bytes() for r, f in case["files"].items()}
    role = sorted(files)[0]
    at = files[role].index(b"XMLSchema-instance") + len(b"XMLSchema-instance")
    files[role] = files[role][:at] + b"}" + files[role][at:]
    _only_pyfn_errors(case, files)


def test_zip_headers():
    """Edits aimed at the zip structure (local headers, central directory, end record), not the data."""
    case = VALID["release-zip"]
    data = (MALFORMED / case["files"]["zip"]).read_bytes()
    header_bytes = sorted(
        {i for start in range(len(data)) if data.startswith(b"PK\x03\x04", start) for i in range(start, start + 30)}
        | set(range(data.index(b"PK\x01\x02"), len(data)))
    )

    @SETTINGS
    @given(edits=st.lists(st.tuples(st.sampled_from(header_bytes), st.sampled_from([1, 2, 4]),
                                    st.sampled_from([0, 1, 0x7F, 0xFF, 0xFFFF, 0xFFFFFFFF, 12345])),
                          min_size=1, max_size=3))
    def check(edits: list[tuple[int, int, int]]) -> None:
        out = bytearray(data)
        for position, width, value in edits:
            out[position:position + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
        _only_pyfn_errors(case, {"zip": bytes(out)})

    check()
