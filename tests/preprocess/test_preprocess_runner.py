"""The preprocessing runner, cache and tree repairs, with a deterministic fake backend (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

import fake_backend
from pyfn.errors import PyfnError, UsageError
from pyfn.model import TokenAnnotation
from pyfn.preprocess import base
from pyfn.preprocess.base import BackendOptions, TreeRepairs, single_tree
from pyfn.preprocess.cache import ParseCache, cache_key
from pyfn.preprocess.runner import PreprocessOptions, analyse_split


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(base.BACKENDS, "fake", "fake_backend")
    fake_backend.CALLS.clear()
    return base.create("fake", BackendOptions())


def _ann(head):
    return TokenAnnotation("w", None, "NN", head, "dep")


@pytest.mark.parametrize(
    ("heads", "repaired", "counts"),
    [
        ([2, 0, 2], [2, 0, 2], (0, 0, 0)),
        ([0, 1, 0, 3], [0, 1, 1, 3], (1, 0, 0)),          # a second root goes under the first
        ([0, 3, 2], [0, 1, 2], (0, 1, 0)),                # 2 <-> 3 cycle: its first member found is attached
        ([2, 1], [0, 1], (0, 0, 1)),                      # no root: the first token becomes it
    ],
)
def test_single_tree(heads, repaired, counts):
    repairs = TreeRepairs()
    out = single_tree(tuple(_ann(h) for h in heads), repairs)
    assert [a.head for a in out] == repaired
    assert (repairs.extra_roots, repairs.cycles, repairs.no_root) == counts
    roots = [a for a in out if a.head == 0]
    assert len(roots) == 1


def test_single_tree_leaves_taggers_alone():
    analysis = (TokenAnnotation("a", None, "DT"), TokenAnnotation("b", None, "NN"))
    assert single_tree(analysis, TreeRepairs()) is analysis


def test_unknown_tool_and_bad_options():
    with pytest.raises(UsageError, match="unknown preprocessing tool 'stanza'"):
        PreprocessOptions(tool="stanza")
    with pytest.raises(UsageError, match="--parse"):
        PreprocessOptions(tool="conll")
    with pytest.raises(UsageError, match="--parse"):
        PreprocessOptions(tool="spacy", parse="x.conllu")
    with pytest.raises(UsageError, match="unknown preprocessing backend"):
        base.create("stanza", BackendOptions())


SENTENCES = [["The", "Cat", "sat"], ["A", "ROOT", "b", "c"], ["x"]] * 7


@pytest.mark.parametrize("jobs", [1, 2])
def test_analyse_split_is_independent_of_jobs_and_batches(fake, tmp_path, jobs):
    options = PreprocessOptions(tool="fake", jobs=jobs, batch_size=4, cache_dir=None)
    result = analyse_split("dev", SENTENCES, options, fake, None)
    serial = analyse_split("dev", SENTENCES, PreprocessOptions(tool="fake", batch_size=1000, cache_dir=None), fake, None)
    assert result.analyses == serial.analyses
    assert [len(a) for a in result.analyses] == [len(w) for w in SENTENCES]
    assert result.analyses[0][1] == TokenAnnotation("cat", "X", "NN", 1, "dep")
    assert result.record["tree_repairs"] == {"extra_roots": 7, "cycles": 0, "no_root": 0}
    assert all(sum(a.head == 0 for a in analysis) == 1 for analysis in result.analyses)


def test_token_count_mismatch_names_the_sentence(fake):
    with pytest.raises(PyfnError, match=r"fake on test: sentence 1: 2 token annotations for the 3 FrameNet tokens of 'a DROP b'"):
        analyse_split("test", [["x"], ["a", "DROP", "b"]], PreprocessOptions(tool="fake", cache_dir=None), fake, None)


def test_cache_hit_skips_the_backend_and_gives_the_same_result(fake, tmp_path):
    cache = ParseCache(tmp_path)
    options = PreprocessOptions(tool="fake", cache_dir=tmp_path)
    cold = analyse_split("dev", SENTENCES, options, fake, cache)
    calls = len(fake_backend.CALLS)
    warm = analyse_split("dev", SENTENCES, options, fake, cache)
    assert (cold.cache_hit, warm.cache_hit) == (False, True)
    assert len(fake_backend.CALLS) == calls
    assert warm.analyses == cold.analyses and warm.record == cold.record


@pytest.mark.parametrize("damage", ["flip", "truncate", "header"])
def test_corrupt_cache_entry_is_detected_and_recomputed(fake, tmp_path, damage):
    cache = ParseCache(tmp_path)
    options = PreprocessOptions(tool="fake", cache_dir=tmp_path)
    cold = analyse_split("dev", SENTENCES, options, fake, cache)
    path = cache.path(cold.record["cache_key"])
    data = path.read_bytes()
    if damage == "flip":
        i = data.index(b'"sat"') + 1
        data = data[:i] + b"S" + data[i + 1:]
    elif damage == "truncate":
        data = data[: len(data) // 2]
    else:
        data = b"{not json\n" + data.split(b"\n", 1)[1]
    path.write_bytes(data)
    again = analyse_split("dev", SENTENCES, options, fake, cache)
    assert not again.cache_hit
    assert again.analyses == cold.analyses
    assert len(cache.problems) == 1 and "corrupt cache entry" in cache.problems[0]
    assert analyse_split("dev", SENTENCES, options, fake, cache).cache_hit  # rewritten, valid again


def test_cache_key_depends_on_model_and_tokens():
    d = {"backend": "fake", "model_version": "1"}
    key = cache_key(d, [["a", "b"]])
    assert key == cache_key(dict(d), [["a", "b"]])
    assert key != cache_key({**d, "model_version": "2"}, [["a", "b"]])
    assert key != cache_key(d, [["a", "c"]])
    assert key != cache_key(d, [["a"], ["b"]])


def test_cache_write_failure_leaves_no_entry(fake, tmp_path, monkeypatch):
    cache = ParseCache(tmp_path)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", full)
    with pytest.raises(PyfnError, match="No space left on device"):
        analyse_split("dev", SENTENCES, PreprocessOptions(tool="fake", cache_dir=tmp_path), fake, cache)
    assert not [p for p in Path(tmp_path).rglob("*") if p.is_file()]
