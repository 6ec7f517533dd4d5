"""The cyclic collector paused while many objects are made (pyfn.collector)."""

from __future__ import annotations

import gc

import pytest

from pyfn.collector import no_cycle_collection
from pyfn.errors import ProblemLog
from pyfn.formats import registry


def test_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with no_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), no_cycle_collection():
        raise KeyError("x")
    assert gc.isenabled()


def test_a_paused_collector_stays_paused():
    gc.disable()
    try:
        with no_cycle_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_split_is_read_with_the_collector_paused(monkeypatch, tmp_path):
    seen = []

    def reader(directory, split, opts, log):
        seen.append(gc.isenabled())
        yield from ()

    monkeypatch.setitem(registry.READERS, "jsonl", (reader, registry.READERS["jsonl"][1]))
    assert registry.read_split(tmp_path, "jsonl", "test", registry.FormatOptions(), ProblemLog()) == []
    assert seen == [False] and gc.isenabled()
