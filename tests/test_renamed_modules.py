"""Modules renamed for what they hold keep their old public import path for a while, with a warning."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(("old", "new", "name"), [
    ("pyfn.lexicon", "pyfn.train_lexicon", "generate"),
    ("pyfn.scoring.relations", "pyfn.scoring.scorer_lexicon", "ScorerLexicon"),
])
def test_the_old_path_warns_and_gives_the_new_module_names(monkeypatch, old, new, name):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: import {new}"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)
