"""A zip release opened through the parsed-release cache (pyfn.framenet.listing): the same release
as the zip's index gives, without reading the index on a warm build; a corrupt entry is rebuilt."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from pyfn.convert import convert, generate_lexicon
from pyfn.errors import PyfnError
from pyfn.framenet import cache as cache_module
from pyfn.framenet import open_release
from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.listing import FOLDER, open_cached
from pyfn.framenet.release import Release
from pyfn.resources import resource_path


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """The bundled sample as a zip, inside a release folder as downloads come."""
    path = tmp_path / "fn.zip"
    sample = resource_path("sample")
    with zipfile.ZipFile(path, "w") as out:
        for file in sorted(sample.rglob("*")):
            if file.is_file():
                out.write(file, "fndata-1.5/" + str(file.relative_to(sample)))
    return path


def _listing_entries(cache: ReleaseCache) -> list[Path]:
    return [p for p in sorted(cache.directory.glob("*/*.bin")) if f'"folder": "{FOLDER}"'.encode() in p.read_bytes()[:4096]]


def _no_index(monkeypatch) -> None:
    def refuse(self):
        raise AssertionError("the zip's index was read although the cache holds its member names")
    monkeypatch.setattr(Release, "_index", refuse)


def test_a_warm_open_is_the_release_the_index_gives_without_reading_the_index(archive, tmp_path, monkeypatch):
    cache = ReleaseCache(tmp_path / "cache")
    plain = open_release(archive)
    listed = {folder: plain.list(folder) for folder in ("fulltext", "lu", "frame")}
    cold = open_cached(archive, cache)
    assert len(_listing_entries(cache)) == 1
    _no_index(monkeypatch)
    warm = open_cached(archive, cache)
    for release in (cold, warm):
        assert (release.path, release.kind, release.root, release.layout, release.version) == (
            plain.path, plain.kind, plain.root, plain.layout, plain.version)
    assert plain.root == "fndata-1.5/" and plain.version == "1.5-sample"
    assert {folder: warm.list(folder) for folder in listed} == listed and all(listed.values())
    assert warm.exists("frRelation.xml") and not warm.exists("fulltext/nope.xml")
    assert cache.problems == []


def test_a_warm_conversion_reads_the_index_only_to_read_members(archive, tmp_path, monkeypatch):
    cache = ReleaseCache(tmp_path / "cache")
    convert(archive, tmp_path / "a", to="jsonl", cache=cache)
    _no_index(monkeypatch)  # the annotation folders come from the cache too: nothing is read from the zip
    convert(archive, tmp_path / "b", to="jsonl", cache=cache)
    assert (tmp_path / "a" / "train.jsonl").read_bytes() == (tmp_path / "b" / "train.jsonl").read_bytes()
    monkeypatch.undo()
    release = open_cached(archive, cache)  # reading a member loads the index then
    assert release.read("frRelation.xml") == open_release(archive).read("frRelation.xml")


@pytest.mark.parametrize("damage", ["flip", "truncate", "record"])
def test_a_corrupt_entry_is_reported_removed_and_written_again(archive, tmp_path, damage):
    cache = ReleaseCache(tmp_path / "cache")
    open_cached(archive, cache)
    (entry,) = _listing_entries(cache)
    data = bytearray(entry.read_bytes())
    if damage == "flip":
        data[-3] ^= 0x01
    elif damage == "truncate":
        data = data[:-10]
    else:  # a record that hashes right but is not a release's members
        import marshal  # noqa: PLC0415
        import xxhash  # noqa: PLC0415

        header = data[: data.index(b"\n") + 1]
        record = marshal.dumps(([1, 2], "", "icsi", "1.5"))
        data = header + len(record).to_bytes(8, "big") + xxhash.xxh3_128_digest(record) + record
    entry.write_bytes(bytes(data))
    release = open_cached(archive, cache)
    assert len(cache.problems) == 1 and "corrupt parsed-release cache entry" in cache.problems[0]
    assert release.list("fulltext") == open_release(archive).list("fulltext")
    again = ReleaseCache(tmp_path / "cache")
    open_cached(archive, again)
    assert again.problems == [] and _listing_entries(again) == [entry]


def test_a_directory_or_no_cache_opens_as_open_release(archive, tmp_path):
    cache = ReleaseCache(tmp_path / "cache")
    folder = Path(shutil.copytree(resource_path("sample"), tmp_path / "sample"))
    assert open_cached(folder, cache).list("fulltext") == open_release(folder).list("fulltext")
    assert open_cached(archive, None).list("lu") == open_release(archive).list("lu")
    assert not cache.directory.exists()


def test_a_file_that_is_not_a_zip_fails_as_without_the_cache_and_is_not_hashed(tmp_path, monkeypatch):
    bad = tmp_path / "fn.zip"
    bad.write_bytes(b"not a zip at all" * 1000)
    with pytest.raises(PyfnError) as plain:
        open_release(bad)
    monkeypatch.setattr(cache_module, "_zip_digest", lambda *args: pytest.fail("a file that is no zip was hashed"))
    cache = ReleaseCache(tmp_path / "cache")
    with pytest.raises(PyfnError) as cached:
        open_cached(bad, cache)
    assert str(cached.value) == str(plain.value) and "cannot open zip" in str(plain.value)
    assert not cache.directory.exists()


def test_a_changed_zip_gets_its_own_entry(archive, tmp_path):
    cache = ReleaseCache(tmp_path / "cache")
    open_cached(archive, cache)
    with zipfile.ZipFile(archive, "a") as out:
        out.writestr("fndata-1.5/fulltext/extra.xml", "<fullTextAnnotation/>")
    assert "fulltext/extra.xml" in open_cached(archive, cache).list("fulltext")
    assert len(_listing_entries(cache)) == 2


def test_a_corrupt_entry_is_a_warning_of_the_conversion_and_of_generate(archive, tmp_path):
    cache = ReleaseCache(tmp_path / "cache")
    convert(archive, tmp_path / "a", to="jsonl", cache=cache)
    (entry,) = _listing_entries(cache)
    entry.write_bytes(entry.read_bytes()[:-10])
    manifest = convert(archive, tmp_path / "b", to="jsonl", cache=cache)
    assert [w for w in manifest["warnings"] if "corrupt parsed-release cache entry" in w] == cache.problems
    assert len(cache.problems) == 1 and str(entry) in cache.problems[0]
    entry.write_bytes(entry.read_bytes()[:-10])
    lexicon = generate_lexicon(archive, tmp_path / "lex", cache=cache)
    assert [w for w in lexicon["warnings"] if "corrupt parsed-release cache entry" in w] == cache.problems[1:]
    assert len(cache.problems) == 2
