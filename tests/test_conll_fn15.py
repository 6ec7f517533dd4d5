"""FN 1.5's CoNLL-U files checked by outside tools: the Universal Dependencies validator and other readers.

Two sets of files, train, dev and test each: ``fn15_std`` (``pyfn convert --to conllu --exclude-frames
398``, no preprocessing) and the data of ``scripts/xp_001.sh`` (the same with ``--preprocess spacy``,
en_core_web_sm 3.8.0; ``xp_001_run``, whose manifest pins these files byte for byte).

The validator is udtools 0.2.9 (the test extra), run as ``udvalidate --lang en --level N FILE`` runs it
(:func:`conftest.ud_incidents`); below level 4 it applies UD's universal rules only (``--lang en`` is
checked as ``--lang ud``). Measured: every file passes level 1. Level 2 needs a tree with UD's
relations. Without preprocessing HEAD is ``_``: level 2 rejects it on every token (``invalid-head``,
``unknown-head``) and checks nothing further in that sentence. With spaCy's parse, level 2 fails
only on DEPREL, the label set: ``invalid-deprel`` (``ROOT`` is upper-case) and ``unknown-udeprel``
(ClearNLP-style labels that are not UD relations: ``dobj``, ``pobj``, ``prep``...); every other
check of levels 1 and 2 passes on every sentence (tree, UPOS, metadata, ``# text`` against the FORMs).

Level-2 errors with spaCy's parse (tokens with that label; nothing else fails):

=====  ================  =================
split  invalid-deprel    unknown-udeprel
=====  ================  =================
train  2,654 (``ROOT``)  21,654
dev    328               2,880
test   875               5,445
=====  ================  =================
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import conllu
import pytest
from conftest import need_package, ud_incidents

from pyfn.formats.base import read_sentences
from pyfn.model import tokens

SPLITS = ("train", "dev", "test")
TOKENS = {"train": 66_255, "dev": 9_153, "test": 17_084}
"""Tokens per split (FN 1.5, standard split, frame 398 excluded)."""
SPACY_DATA = Path("experiments", "xp_001", "work", "data")
"""Where scripts/xp_001.sh writes its spaCy-preprocessed data, relative to the folder it ran in."""

UD_RELATIONS = frozenset(
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det discourse dislocated expl "
    "fixed flat goeswith iobj list mark nmod nsubj nummod obj obl orphan parataxis punct reparandum root vocative "
    "xcomp".split()
)
"""The 37 universal relations of UD v2 (a DEPREL is one of them, or one of them and ``:subtype``)."""
UD_DEPREL = re.compile(r"[a-z]+(:[a-z]+)?")
"""What the validator's level 2 accepts as a DEPREL at all."""
SPACY_NON_UD = {
    "ROOT", "acomp", "agent", "attr", "auxpass", "csubjpass", "dative", "dobj", "intj", "meta", "neg", "npadvmod",
    "nsubjpass", "oprd", "pcomp", "pobj", "poss", "preconj", "predet", "prep", "prt", "quantmod", "relcl",
}
"""The labels of en_core_web_sm's parse of FN 1.5 train that are not UD relations (dev and test: all but
``csubjpass``)."""
LABEL_ERRORS = {"train": (2_654, 21_654), "dev": (328, 2_880), "test": (875, 5_445)}
"""The errors of the spaCy-preprocessed files at level 2, per split: ``invalid-deprel`` (one ``ROOT`` per
sentence) and ``unknown-udeprel``; the only level-2 checks they fail."""


@pytest.fixture(scope="module")
def spacy_data(xp_001_run) -> Path:
    root, _ = xp_001_run
    return root / SPACY_DATA


def _deprels(path: Path) -> Counter[str]:
    return Counter(line.split("\t")[7] for line in path.read_text(encoding="utf-8").splitlines() if line[:1].isdigit())


@pytest.mark.parametrize("split", SPLITS)
def test_without_preprocessing_every_split_passes_ud_level_1(fn15_std, split):
    assert ud_incidents(fn15_std.dir / f"{split}.conllu", 1) == {}


def test_without_preprocessing_level_2_fails_only_on_the_missing_tree(fn15_std):
    """HEAD is ``_`` until preprocessing fills it: each token fails the two HEAD checks, and the validator
    then leaves the sentence (the same files with a parse pass level 2 but for the labels, below)."""
    found = ud_incidents(fn15_std.dir / "test.conllu", 2)
    assert found == {"L2 FORMAT invalid-head": TOKENS["test"], "L2 SYNTAX unknown-head": TOKENS["test"]}


@pytest.mark.parametrize("split", SPLITS)
def test_with_spacy_every_split_passes_ud_level_1_and_level_2_but_for_the_labels(spacy_data, split):
    path = spacy_data / f"{split}.conllu"
    found = ud_incidents(path, 2)  # the checks of level 1 run too
    labels = _deprels(path)
    assert sum(labels.values()) == TOKENS[split]
    invalid = sum(n for label, n in labels.items() if not UD_DEPREL.fullmatch(label))
    unknown = sum(n for label, n in labels.items()
                  if UD_DEPREL.fullmatch(label) and label.split(":", 1)[0] not in UD_RELATIONS)
    assert invalid == labels["ROOT"] == len(read_sentences(spacy_data / f"{split}.sentences"))  # one root each
    assert found == {"L2 SYNTAX invalid-deprel": invalid, "L2 SYNTAX unknown-udeprel": unknown}
    assert (invalid, unknown) == LABEL_ERRORS[split]
    not_ud = {label for label in labels if label.split(":", 1)[0] not in UD_RELATIONS}
    assert not_ud == (SPACY_NON_UD if split == "train" else SPACY_NON_UD - {"csubjpass"})


def test_leading_space_is_kept_after_the_text_comment_prefix(fn15_std, spacy_data):
    """Test sentence 0 (FrameNet 1278809) begins with a space: ``# text = `` is followed by the sentence
    string exactly, so the line has two spaces after ``=``; readers strip the value (and the validator's
    level-2 comparison of ``# text`` with the FORMs passes, above)."""
    for folder in (fn15_std.dir, spacy_data):
        text = read_sentences(folder / "test.sentences")[0]
        assert text.startswith(" Simply put , Stephanopoulos")
        lines = (folder / "test.conllu").read_text(encoding="utf-8").splitlines()
        assert lines[:3] == ["# sent_id = 0", f"# text = {text}", "# fn_sentence_ids = 1278809"]
        with open(folder / "test.conllu", encoding="utf-8") as handle:
            assert next(conllu.parse_incr(handle)).metadata["text"] == text.lstrip()


def test_other_conllu_readers_read_the_files(spacy_data):
    """conllu, pyconll, udapi and NLTK's ``DependencyGraph`` (given each block without its comment lines,
    which it does not read) find every sentence of test (spaCy-preprocessed), its FrameNet tokens and
    heads. Measured once on every split, with and without preprocessing: the same."""
    pyconll = need_package("pyconll")
    need_package("udapi")
    from nltk.parse.dependencygraph import DependencyGraph  # noqa: PLC0415
    from udapi.core.document import Document  # noqa: PLC0415

    path = spacy_data / "test.conllu"
    blocks = [b for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    rows = [[line.split("\t") for line in b.splitlines() if not line.startswith("#")] for b in blocks]
    want = [[(cols[1], int(cols[6])) for cols in block] for block in rows]
    strings = read_sentences(spacy_data / "test.sentences")
    assert [[form for form, _ in s] for s in want] == [[t.text for t in tokens(text)] for text in strings]

    with open(path, encoding="utf-8") as handle:
        by_conllu = [[(t["form"], t["head"]) for t in block] for block in conllu.parse_incr(handle)]
    by_pyconll = [[(t.form, int(t.head)) for t in sentence] for sentence in pyconll.load_from_file(str(path))]
    document = Document()
    document.load_conllu(str(path))
    by_udapi = [[(node.form, node.parent.ord) for node in bundle.trees[0].descendants] for bundle in document.bundles]
    graphs = [DependencyGraph("\n".join("\t".join(cols) for cols in block), top_relation_label="ROOT")
              for block in rows]
    by_nltk = [[(g.nodes[i]["word"], g.nodes[i]["head"]) for i in range(1, len(g.nodes))] for g in graphs]
    assert by_conllu == by_pyconll == by_udapi == by_nltk == want
