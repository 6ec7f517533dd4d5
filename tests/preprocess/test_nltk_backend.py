"""The NLTK backend (tagger and WordNet lemmatizer, on real data: PYFN_NLTK_DATA) and scripts/fetch_nltk_data.py."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
from collections import OrderedDict
from pathlib import Path

import nltk
import pytest

from pyfn.errors import PyfnError
from pyfn.preprocess.base import BackendOptions, create

REPO = Path(__file__).resolve().parents[2]
NLTK_DATA = Path(os.environ.get("PYFN_NLTK_DATA", Path.home() / ".cache" / "pyfn" / "nltk_data"))
SENTENCES = [["The", "cats", "ran", "home", "."], ["He", "was", "better"]]


@pytest.fixture(scope="module")
def nltk_data() -> Path:
    """The NLTK data fetched by scripts/fetch_nltk_data.py (a failure on CI when absent)."""
    if not (NLTK_DATA / "taggers" / "averaged_perceptron_tagger_eng").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"PYFN_NLTK_DATA: {NLTK_DATA} is missing; CI must run the tests on real NLTK data")
        pytest.skip(f"PYFN_NLTK_DATA: {NLTK_DATA} not found (python scripts/fetch_nltk_data.py DIR)")
    return NLTK_DATA


@pytest.fixture
def nltk_path(monkeypatch) -> list[str]:
    """NLTK's search path, restored after the test."""
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    return nltk.data.path


def test_tags_and_lemmatizes_given_tokens(nltk_data, nltk_path):
    nlp = create("nltk", BackendOptions(nltk_data=str(nltk_data)))
    assert nltk_path[0] == str(nltk_data)
    analyses = nlp.analyse(SENTENCES)
    assert [len(a) for a in analyses] == [5, 3]
    assert [a.xpos for a in analyses[0]] == ["DT", "NNS", "VBD", "NN", "."]
    assert [a.lemma for a in analyses[0]] == ["The", "cat", "run", "home", "."]
    assert [a.xpos for a in analyses[1]] == ["PRP", "VBD", "RBR"]
    assert [a.lemma for a in analyses[1]] == ["He", "be", "better"]
    assert all(a.upos is None and a.head is None and a.deprel is None for s in analyses for a in s)
    assert nlp.analyse([]) == [] and nlp.analyse([[]]) == [()]
    assert nlp.analyse(SENTENCES) == analyses


def test_describe_names_the_data_loaded(nltk_data, nltk_path):
    described = create("nltk", BackendOptions(nltk_data=str(nltk_data))).describe()
    weights = nltk_data / "taggers/averaged_perceptron_tagger_eng/averaged_perceptron_tagger_eng.weights.json"
    assert described == {
        "backend": "nltk",
        "model": "averaged_perceptron_tagger+wordnet",
        "nltk_version": nltk.__version__,
        "tagger_sha256": hashlib.sha256(weights.read_bytes()).hexdigest()[:16],
        "wordnet_version": "3.0",
    }
    assert create("nltk", BackendOptions(nltk_data=str(nltk_data))).describe() == described


def test_missing_data_is_one_clear_error(tmp_path, monkeypatch, nltk_path):
    monkeypatch.delenv("NLTK_DATA", raising=False)
    nltk_path[:] = [str(tmp_path)]
    with pytest.raises(PyfnError) as error:
        create("nltk", BackendOptions(nltk_data=str(tmp_path)))
    message = str(error.value)
    assert "\n" not in message
    for part in ("taggers/averaged_perceptron_tagger_eng", "corpora/wordnet", str(tmp_path), "fetch_nltk_data.py"):
        assert part in message


@pytest.fixture(scope="module")
def fetch_script():
    """scripts/fetch_nltk_data.py as a module (nothing is downloaded)."""
    spec = importlib.util.spec_from_file_location("fetch_nltk_data", REPO / "scripts" / "fetch_nltk_data.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_fetch_refuses_an_archive_with_another_hash(fetch_script, tmp_path):
    archive = tmp_path / fetch_script.WN.archive
    archive.write_bytes(b"not WordNet")
    with pytest.raises(fetch_script.FetchError, match="refusing"):
        fetch_script.verify(archive, fetch_script.WN.sha256)
    fetch_script.verify(archive, hashlib.sha256(b"not WordNet").hexdigest())


def test_fetch_unpickles_plain_containers_only(fetch_script):
    model = ({"f": {"NN": 1.0}}, {"the": "DT"}, {"DT", "NN"})
    assert fetch_script.load_tagger_pickle(pickle.dumps(model, protocol=2)) == model
    with pytest.raises(fetch_script.FetchError, match="collections.OrderedDict"):
        fetch_script.load_tagger_pickle(pickle.dumps((OrderedDict(), {}, set())))
