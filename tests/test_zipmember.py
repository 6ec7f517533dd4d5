"""Zip members read by ISA-L (:mod:`pyfn.framenet.zipmember`) are the bytes :mod:`zipfile` reads; anything
else is left to :mod:`zipfile`, whose errors a release then reports as before."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyfn.errors import PyfnError
from pyfn.framenet import open_release, zipmember

pytestmark = pytest.mark.skipif(not zipmember.available(), reason="isal is not installed")

_BODY = b"<fullTextAnnotation/>" + bytes(range(256)) * 40
_NAME = "fndata/fulltext/a.xml"


def _zip(path: Path, body: bytes = _BODY, method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr("fndata/frRelation.xml", b"<x/>")
        archive.writestr(_NAME, body)
    return path


def _central(data: bytearray) -> int:
    """Where the central directory entry of the last member starts."""
    return data.rfind(b"PK\x01\x02")


def _outcome(path: Path):
    release = open_release(path)
    try:
        return release.read("fulltext/a.xml")
    except PyfnError as exc:
        return "error", str(exc)


def _same_as_zipfile(path: Path, monkeypatch) -> object:
    """Release.read's outcome, checked equal to the one without ISA-L (zipfile alone)."""
    fast = _outcome(path)
    monkeypatch.setattr(zipmember, "_inflater", None)
    assert fast == _outcome(path)
    monkeypatch.undo()
    return fast


def _member(path: Path) -> bytes | None:
    with zipfile.ZipFile(path) as archive:
        return zipmember.read_deflated(archive, archive.getinfo(_NAME))


def test_a_deflated_member(tmp_path, monkeypatch):
    path = _zip(tmp_path / "r.zip")
    assert _member(path) == _BODY
    assert _same_as_zipfile(path, monkeypatch) == _BODY


def test_an_empty_member(tmp_path):
    assert _member(_zip(tmp_path / "r.zip", b"")) == b""


def test_a_stored_member_is_left_to_zipfile(tmp_path, monkeypatch):
    path = _zip(tmp_path / "r.zip", method=zipfile.ZIP_STORED)
    assert _member(path) is None
    assert _same_as_zipfile(path, monkeypatch) == _BODY


def _patched(tmp_path: Path, edit) -> Path:
    path = _zip(tmp_path / "r.zip")
    data = bytearray(path.read_bytes())
    edit(data)
    path.write_bytes(bytes(data))
    return path


def _data_start(data: bytearray) -> int:
    local = data.find(_NAME.encode()) - 30
    name_length, extra_length = struct.unpack_from("<HH", data, local + 26)
    return local + 30 + name_length + extra_length


@pytest.mark.parametrize("edit", [
    lambda d: d.__setitem__(_data_start(d) + 5, d[_data_start(d) + 5] ^ 0xFF),  # corrupt deflate data
    lambda d: struct.pack_into("<I", d, _central(d) + 16, 12345),  # another CRC in the directory
    lambda d: struct.pack_into("<I", d, _central(d) + 24, len(_BODY) - 1),  # declared one byte short
    lambda d: struct.pack_into("<I", d, _central(d) + 24, len(_BODY) + 1),  # declared one byte long
    lambda d: d.__setitem__(slice(d.find(_NAME.encode()), d.find(_NAME.encode()) + 6), b"fnXXXX"),  # local name
    lambda d: d.__setitem__(slice(d.find(_NAME.encode()) - 30, d.find(_NAME.encode()) - 26), b"PK\x09\x09"),  # signature
    lambda d: struct.pack_into("<H", d, _central(d) + 8, 0x1),  # encrypted
    lambda d: struct.pack_into("<I", d, _central(d) + 20, 10**6),  # compressed size past the end
], ids=["corrupt data", "crc", "size short", "size long", "local name", "local signature", "encrypted",
        "compressed size"])
def test_a_broken_member_reads_as_zipfile_reads_it(edit, tmp_path, monkeypatch, request):
    """The fast path declines (None) and the release reports zipfile's error, or its bytes."""
    path = _patched(tmp_path, edit)
    try:
        assert _member(path) is None
    except zipfile.BadZipFile:  # the archive itself is refused on opening: no member is read at all
        pass
    outcome = _same_as_zipfile(path, monkeypatch)
    # zipfile checks the CRC, not the size: a stream shorter than declared, or one read past the archive's
    # end, still gives its bytes
    assert (outcome == _BODY) is (request.node.callspec.id in ("size long", "compressed size")), outcome


def test_more_data_than_declared_is_never_inflated_whole(tmp_path, monkeypatch):
    """A member whose stream inflates far past its declared size: at most one byte more is made."""
    made = []
    inflater = zipmember._inflater

    class Counting:
        def __init__(self, wbits):
            self.inner = inflater.decompressobj(wbits)

        def decompress(self, data, *limit):
            out = self.inner.decompress(data, *limit)
            made.append(len(out))
            return out

    monkeypatch.setattr(zipmember, "_inflater", SimpleNamespace(decompressobj=Counting, crc32=inflater.crc32,
                                                                error=inflater.error))
    big = b"a" * 10_000_000
    path = _zip(tmp_path / "r.zip", big)
    data = bytearray(path.read_bytes())
    struct.pack_into("<II", data, _central(data) + 20, struct.unpack_from("<I", data, _central(data) + 20)[0], 100)
    struct.pack_into("<I", data, _central(data) + 16, zlib.crc32(big[:100]))
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(_NAME)
        assert zipmember.read_deflated(archive, info) is None
        assert made == [101]
        assert archive.read(info) == big[:100]  # what zipfile gives, and the release with it


def test_without_isal(tmp_path, monkeypatch):
    monkeypatch.setattr(zipmember, "_inflater", None)
    assert not zipmember.available()
    assert _member(_zip(tmp_path / "r.zip")) is None


def test_fn15_members(fn15):
    """Every 20th annotation file of FN 1.5, and its frames, read fast as zipfile reads them."""
    with zipfile.ZipFile(fn15) as archive:
        infos = [i for i in archive.infolist() if i.filename.endswith(".xml")][::20]
        for info in infos:
            assert zipmember.read_deflated(archive, info) == archive.read(info), info.filename
    assert len(infos) > 600
