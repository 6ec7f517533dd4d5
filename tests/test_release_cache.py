"""The parsed-release cache (pyfn.framenet.cache): same bytes with and without it, integrity, keys, CLI options."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import xxhash

from pyfn.cli import main
from pyfn.convert import convert
from pyfn.errors import PyfnError
from pyfn.framenet import lexicon, open_release
from pyfn.framenet.cache import RACY_SECONDS, CorruptEntry, ReleaseCache, folder_key
from pyfn.resources import resource_path
from pyfn.splits import builder, parsed
from pyfn.splits.builder import BuildOptions
from pyfn.splits.definitions import SplitDefinition

from conftest import FN15_EXCLUDED, FN15_STD_FORMATS, fulltext_xml, make_release

FORMATS = ("jsonl", "semafor", "bios", "conllx", "conllu", "semeval")
OLD = 1_600_000_000  # a modification time long past: the folder may be cached


def _aged(folder: Path) -> Path:
    for path in folder.rglob("*"):
        os.utime(path, (OLD, OLD))
    return folder


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the bundled sample whose files are old enough to be cached."""
    return _aged(Path(shutil.copytree(resource_path("sample"), tmp_path / "sample")))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _entries(cache: ReleaseCache) -> list[Path]:
    return sorted(cache.directory.glob("*/*.bin"))


def _folders(cache: ReleaseCache) -> list[str]:
    """The folder of each entry, from its header."""
    return [json.loads(path.read_bytes().split(b"\n", 1)[0])["folder"] for path in _entries(cache)]


def _no_parsing(monkeypatch, frames: bool = False):
    """Make parsing an annotation file (and, with ``frames``, a frame file) fail the test."""
    def refuse(relpath):
        raise AssertionError(f"{relpath} parsed although the cache holds it")

    monkeypatch.setattr(builder, "_parse", refuse)
    if frames:
        monkeypatch.setattr(lexicon, "read_frame", lambda data, relpath: refuse(relpath))


def test_warm_build_reads_only_the_cache_and_writes_the_same_bytes_in_every_format(sample, tmp_path, monkeypatch):
    cache = ReleaseCache(tmp_path / "cache")
    options = BuildOptions(jobs=1)
    convert(sample, tmp_path / "none", to=FORMATS, options=options)
    convert(sample, tmp_path / "cold", to=FORMATS, options=options, cache=cache)
    assert sorted(_folders(cache)) == ["frame", "fulltext"]  # BIOS's frame checks read frame/
    _no_parsing(monkeypatch, frames=True)
    convert(sample, tmp_path / "warm", to=FORMATS, options=options, cache=cache)
    assert not cache.problems
    reference = _files(tmp_path / "none")
    assert {name.split(".")[-1] for name in reference} >= {"jsonl", "frames", "bios", "conllx", "conllu", "xml"}
    assert _files(tmp_path / "cold") == reference
    assert _files(tmp_path / "warm") == reference


@pytest.mark.parametrize("options", [
    BuildOptions(splits=("dev", "test"), jobs=1),
    BuildOptions(filters=("overlap_fes", "no_fes"), filter_scope="all", jobs=1),
    BuildOptions(exclude_frames=frozenset({1}), exclude_lus=frozenset({1}), exclude_sentences=frozenset({1}),
                 exclude_annosets=frozenset({1}), strict=False, jobs=1),
    BuildOptions(with_exemplars=True, filters=("disc_targets",), jobs=2),
])
def test_any_split_filter_or_exclusion_from_one_cache_entry(sample, tmp_path, options):
    cache = ReleaseCache(tmp_path / "cache")
    convert(sample, tmp_path / "fill", to="jsonl", options=BuildOptions(with_exemplars=True), cache=cache)
    for name, kwargs in (("none", {}), ("warm", {"cache": cache})):
        convert(sample, tmp_path / name, to=("jsonl", "semeval"), options=options, **kwargs)
    assert _files(tmp_path / "warm") == _files(tmp_path / "none")


def test_an_entry_holds_each_record_with_its_length_and_xxh3_digest(sample, tmp_path):
    cache = ReleaseCache(tmp_path / "cache")
    convert(sample, tmp_path / "a", to="jsonl", cache=cache)
    (entry,) = _entries(cache)
    header, body = entry.read_bytes().split(b"\n", 1)
    records = []
    while body:
        size = int.from_bytes(body[:8], "big")
        digest, record, body = body[8:24], body[24:24 + size], body[24 + size:]
        assert len(record) == size and digest == xxhash.xxh3_128_digest(record)
        records.append(parsed.loads(record).path)
    assert records == json.loads(header)["files"] == open_release(sample).list("fulltext")


@pytest.mark.parametrize("damage", ["flip", "truncate", "append", "header", "length"])
def test_a_corrupt_entry_is_reported_removed_and_rebuilt(sample, tmp_path, damage):
    cache = ReleaseCache(tmp_path / "cache")
    convert(sample, tmp_path / "a", to="jsonl", cache=cache)
    (entry,) = _entries(cache)
    data = bytearray(entry.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "append":
        data += b"x"
    elif damage == "length":  # the first record's length: larger than the file
        data[data.index(b"\n") + 1] = 0x7F
    else:
        data[:1] = b"["
    entry.write_bytes(bytes(data))
    manifest = convert(sample, tmp_path / "b", to="jsonl", cache=cache)
    assert len(cache.problems) == 1 and "corrupt parsed-release cache entry" in cache.problems[0]
    assert any("corrupt parsed-release cache entry" in w for w in manifest["warnings"])
    assert _files(tmp_path / "b").keys() == _files(tmp_path / "a").keys()
    assert (tmp_path / "b" / "train.jsonl").read_bytes() == (tmp_path / "a" / "train.jsonl").read_bytes()
    again = ReleaseCache(tmp_path / "cache")  # rebuilt: read cleanly now
    convert(sample, tmp_path / "c", to="jsonl", cache=again)
    assert again.problems == [] and _entries(again) == [entry]


def test_the_key_follows_the_content_of_a_directory_release(sample, tmp_path):
    release = open_release(sample)
    files = release.list("fulltext")
    key = folder_key(release, "fulltext", files)
    assert key is not None and key == folder_key(release, "fulltext", files)
    path = sample / files[0]
    path.write_bytes(path.read_bytes().replace(b"</fullTextAnnotation>", b"<!-- x --></fullTextAnnotation>"))
    assert folder_key(release, "fulltext", files) is None  # just modified: not cached yet
    os.utime(path, (OLD + 5, OLD + 5))
    assert folder_key(release, "fulltext", files) not in (None, key)


def test_a_zip_release_is_keyed_by_its_bytes(sample, tmp_path):
    archive = tmp_path / "fn.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(sample.rglob("*")):
            if path.is_file():
                out.write(path, "fndata-1.5/" + str(path.relative_to(sample)))
    release = open_release(archive)
    files = release.list("fulltext")
    key = folder_key(release, "fulltext", files)
    assert key is not None and key != folder_key(open_release(sample), "fulltext", files)
    cache = ReleaseCache(tmp_path / "cache")
    convert(archive, tmp_path / "a", to="jsonl", cache=cache)
    assert [p.stem for p, folder in zip(_entries(cache), _folders(cache)) if folder == "fulltext"] == [key]


def test_a_fresh_release_is_read_but_not_cached(tmp_path):
    fresh = make_release(tmp_path / "fn", {"train.xml": fulltext_xml([{"id": 1, "text": "Kim gave a book .", "sets": [
        {"id": 11, "target": [(4, 7)], "fes": [("Donor", 0, 2)]}]}])})
    cache = ReleaseCache(tmp_path / "cache")
    definition = SplitDefinition("t", dev=(), test=())
    result = builder.build_splits(open_release(fresh), definition, BuildOptions(), cache=cache)
    assert result.splits["train"].annotation_sets == 1 and _entries(cache) == []
    assert RACY_SECONDS >= 1


def test_an_unwritable_cache_is_no_error(sample, tmp_path):
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    cache = ReleaseCache(tmp_path / "cache")
    convert(sample, tmp_path / "a", to="jsonl", cache=cache)
    convert(sample, tmp_path / "b", to="jsonl")
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_cli_cache_dir_and_no_cache(sample, tmp_path):
    args = ["convert", "--source", str(sample), "--to", "jsonl", "--quiet"]
    assert main([*args, "--target", str(tmp_path / "a"), "--no-cache", "--cache-dir", str(tmp_path / "c1")]) == 0
    assert not (tmp_path / "c1").exists()
    assert main([*args, "--target", str(tmp_path / "b"), "--cache-dir", str(tmp_path / "c2")]) == 0
    assert len(list((tmp_path / "c2" / "releases").glob("*/*.bin"))) == 1
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_two_concurrent_runs_share_one_entry(sample, tmp_path):
    env = {**os.environ, "PYFN_CACHE": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-m", "pyfn", "convert", "--source", str(sample), "--target",
                              str(tmp_path / name), "--to", "jsonl", "--with-exemplars", "--quiet"], env=env)
            for name in ("a", "b")]
    assert [run.wait() for run in runs] == [0, 0]
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    leftovers = [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file() and not p.name.endswith(".bin")]
    assert leftovers == [] and len(list((tmp_path / "cache").rglob("*.bin"))) == 2  # fulltext/ and lu/


def test_frames_through_the_cache_are_the_frames_parsed_and_a_corrupt_entry_is_rebuilt(sample, tmp_path):
    release = open_release(sample)
    parsed_frames = lexicon.read_frames(release)
    cache = ReleaseCache(tmp_path / "cache")
    assert lexicon.read_frames(release, cache) == parsed_frames and _folders(cache) == ["frame"]
    assert lexicon.read_frames(release, cache) == parsed_frames and cache.problems == []
    (entry,) = _entries(cache)
    data = bytearray(entry.read_bytes())
    data[-5] ^= 0x01  # inside the last frame's record
    entry.write_bytes(bytes(data))
    assert lexicon.read_frames(release, cache) == parsed_frames
    assert len(cache.problems) == 1 and "corrupt parsed-release cache entry" in cache.problems[0]
    assert _entries(cache) == [entry] and entry.read_bytes() != bytes(data)  # written again, whole
    with pytest.raises(CorruptEntry, match="not a frame record"):
        lexicon.frame_of(marshal.dumps((1, "F")), "KEY")


def test_a_corrupt_frames_entry_read_by_the_writers_processes_is_a_warning_of_the_conversion(sample, tmp_path):
    """BIOS's writers read the frames in their own processes: the parent checks the entry first."""
    cache = ReleaseCache(tmp_path / "cache")
    convert(sample, tmp_path / "a", to="bios", cache=cache)
    (entry,) = [path for path, folder in zip(_entries(cache), _folders(cache)) if folder == "frame"]
    good = entry.read_bytes()
    entry.write_bytes(good[:-5])
    again = ReleaseCache(tmp_path / "cache")
    manifest = convert(sample, tmp_path / "b", to="bios", cache=again)
    assert len(again.problems) == 1 and str(entry) in again.problems[0]
    assert [w for w in manifest["warnings"] if "corrupt parsed-release cache entry" in w] == again.problems
    assert entry.read_bytes() == good  # written again, whole, by a writer's process
    assert _files(tmp_path / "b").keys() == _files(tmp_path / "a").keys()
    assert (tmp_path / "b" / "train.bios").read_bytes() == (tmp_path / "a" / "train.bios").read_bytes()


def test_generate_reads_the_frames_through_the_cache_and_writes_the_same_bytes(sample, tmp_path, monkeypatch):
    from pyfn.convert import generate_lexicon  # noqa: PLC0415

    cache = ReleaseCache(tmp_path / "cache")
    generate_lexicon(sample, tmp_path / "none", options=BuildOptions(splits=("train",), jobs=1))
    generate_lexicon(sample, tmp_path / "cold", options=BuildOptions(splits=("train",), jobs=1), cache=cache)
    assert sorted(_folders(cache)) == ["frame", "fulltext"]
    _no_parsing(monkeypatch, frames=True)
    generate_lexicon(sample, tmp_path / "warm", options=BuildOptions(splits=("train",), jobs=1), cache=cache)
    reference = _files(tmp_path / "none")
    assert any(name.startswith("fn_train/frame/") for name in reference)
    assert _files(tmp_path / "cold") == reference and _files(tmp_path / "warm") == reference


def test_a_release_with_a_bad_frame_file_fails_as_without_the_cache_and_stores_no_frames(sample, tmp_path):
    bad = next((sample / "frame").glob("*.xml"))
    bad.write_bytes(bad.read_bytes().replace(b' ID="', b' XD="', 1))  # the <frame> loses its ID
    _aged(sample)
    release = open_release(sample)
    with pytest.raises(PyfnError) as without:
        lexicon.read_frames(release)
    cache = ReleaseCache(tmp_path / "cache")
    with pytest.raises(PyfnError) as through:
        lexicon.read_frames(release, cache)
    assert str(through.value) == str(without.value) and bad.name in str(through.value)
    assert _entries(cache) == []


def test_parsed_record_round_trip_and_bad_bytes(sample):
    release = open_release(sample)
    relpath = release.list("fulltext")[0]
    record = parsed.parse_file(release.read(relpath), relpath)
    assert parsed.loads(parsed.dumps(record)) == record
    assert len(record.sets[0]) > 0 and record.sha256
    with pytest.raises(ValueError):
        parsed.loads(b"\x00not marshal")


def test_fn15_with_the_cache_cold_and_warm_gives_the_files_of_a_run_without_it(fn15, fn15_std, tmp_path, monkeypatch):
    cache = ReleaseCache(tmp_path / "cache")
    options = BuildOptions(exclude_frames=FN15_EXCLUDED)
    convert(fn15, tmp_path / "cold", to="jsonl", options=options, cache=cache)
    reference = _files(fn15_std.dir)
    assert {name: data for name, data in _files(tmp_path / "cold").items() if name.endswith(".jsonl")} == {
        name: data for name, data in reference.items() if name.endswith(".jsonl")}
    _no_parsing(monkeypatch)
    convert(fn15, tmp_path / "warm", to=FN15_STD_FORMATS, options=options, cache=cache)
    assert _files(tmp_path / "warm") == reference  # manifest.json included
