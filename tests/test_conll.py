"""CoNLL-X / CoNLL-U: one block per sentence number, FrameNet tokens 1:1, checked alignment."""

from __future__ import annotations

import re
from dataclasses import replace

import conllu
import pytest
from conftest import make_set, ud_incidents
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.formats import conll, jsonl
from pyfn.formats.base import SentenceTable
from pyfn.formats.conll import TokenAnnotation
from pyfn.framenet import open_release
from pyfn.model import tokens
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.splits.definitions import standard_split

WRITERS = {"conllu": conll.write_conllu, "conllx": conll.write_conllx}


def build(release, version, **options):
    result = build_splits(open_release(release), standard_split(version), BuildOptions(**options))
    return {name: [jsonl.loads(line) for line in data.lines] for name, data in result.splits.items()}


def read_all(path, **kwargs):
    return list(conll.read_conll(path, log=ProblemLog(strict=True), **kwargs))


def parsed(table):
    """Made-up preprocessing output: a chain of heads, lemmas and tags from the forms."""
    columns = {}
    for number, text in enumerate(table.strings):
        forms = [t.text for t in tokens(text)]
        columns[number] = [TokenAnnotation(f.lower(), "X", "NN" if i % 2 else "_", i, "dep" if i else "root")
                           for i, f in enumerate(forms)]
    return columns


@pytest.fixture(scope="module")
def sample():
    return build(resource_path("sample"), "1.5-sample")


@pytest.mark.parametrize("dialect", WRITERS)
def test_round_trip_on_the_sample(sample, tmp_path, dialect):
    for name, sets in sample.items():
        table = SentenceTable.of(sets)
        path = tmp_path / f"{name}.sentences.{dialect}"
        WRITERS[dialect](path, sets)
        rows = read_all(path)
        assert [n for n, _, _ in rows] == list(range(len(table.strings)))
        assert all(ann == TokenAnnotation() for _, anns, _ in rows for ann in anns)
        conll.align({n: forms for n, _, forms in rows}, table, path)
        columns = parsed(table)
        WRITERS[dialect](path, sets, columns=columns)
        for number, anns, _ in read_all(path):
            want = [conll.as_read(ann, dialect) for ann in columns[number]]
            assert anns == want
            assert all((a.upos is None) == (dialect == "conllx") for a in anns)


def test_block_layout_and_comments(tmp_path):
    text = "Your contribution to Goodwill will mean more ."
    sets = [make_set(text, [(5, 16)], set_id=1, sent_id=857), make_set(text + " ", [(0, 3)], set_id=2, sent_id=12),
            make_set("December 1998", [(0, 7)], set_id=3, sent_id=4)]
    path = tmp_path / "s.conllu"
    conll.write_conllu(path, sets)
    data = path.read_text(encoding="utf-8")
    assert data.startswith("# sent_id = 0\n# text = December 1998\n# fn_sentence_ids = 4\n"
                           "1\tDecember\t_\t_\t_\t_\t_\t_\t_\t_\n2\t1998\t_\t_\t_\t_\t_\t_\t_\t_\n\n# sent_id = 1\n"
                           f"# text = {text}\n# fn_sentence_ids = 12,857\n1\tYour\t")
    assert data.endswith("8\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n") and "\n\n\n" not in data
    conll.write_conllx(tmp_path / "s.conllx", sets, columns={0: [TokenAnnotation("december", "PROPN", "NNP", 0,
                                                                                 "root"), TokenAnnotation(xpos="CD", head=1)]})
    lines = (tmp_path / "s.conllx").read_text(encoding="utf-8").split("\n")
    assert lines[:3] == ["1\tDecember\tdecember\tNNP\tNNP\t_\t0\troot\t_\t_", "2\t1998\t_\tCD\tCD\t_\t1\t_\t_\t_", ""]
    assert not any(line.startswith("#") for line in lines)
    (block,) = conllu.parse(data)[1:2]
    assert block.metadata["sent_id"] == "1" and len(block) == 8


@pytest.mark.parametrize(
    "columns, message",
    [
        ({0: [TokenAnnotation(lemma="a\tb"), TokenAnnotation()]}, "sentence 0, token 1: LEMMA 'a\\tb'"),
        ({0: [TokenAnnotation(xpos="N N"), TokenAnnotation()]}, "XPOS 'N N'"),
        ({0: [TokenAnnotation(deprel=""), TokenAnnotation()]}, "DEPREL ''"),
        ({0: [TokenAnnotation(head=3), TokenAnnotation()]}, "token 1: HEAD 3 is not a token"),
        ({0: [TokenAnnotation()]}, "sentence 0: 1 token annotations for 2 tokens"),
        ({1: []}, "token annotations for sentence 1, which the sets do not have"),
    ],
)
def test_writer_refuses_what_the_columns_cannot_hold(tmp_path, columns, message):
    path = tmp_path / "x.conllu"
    with pytest.raises(PyfnError, match=re.escape(message)):
        conll.write_conllu(path, [make_set("a b", [(0, 0)])], columns=columns)
    assert not path.exists()


def test_lemma_may_hold_single_spaces(tmp_path):
    path = tmp_path / "x.conllu"
    conll.write_conllu(path, [make_set("gonna go", [(0, 4)])], columns={0: [TokenAnnotation("going to"),
                                                                             TokenAnnotation("go")]})
    assert read_all(path)[0][1][0].lemma == "going to"


def write_lines(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tdog\t_\t_\t_\t_\t1\tdep\t_\t_\n\n"


@pytest.mark.parametrize(
    "block, reason, message",
    [
        ("1-2\tadog\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n2\tdog\t_\t_\t_\t_\t1\t_\t_\t_\n",
         "multiword_token", "multiword token 'adog'"),
        ("1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n1.1\tis\t_\t_\t_\t_\t_\t_\t_\t_\n", "empty_node", "empty node"),
        ("1\ta\t_\t_\t_\t_\t0\t_\t_\n", "malformed_sentence", "9 columns, expected 10"),
        ("1\ta\t_\t_\t_\t_\t0\t_\t_\t_\t_\n", "malformed_sentence", "11 columns, expected 10"),
        ("1\ta\t_\t_\t_\t_\tx\t_\t_\t_\n", "malformed_sentence", "HEAD 'x' is not an integer"),
        ("1\ta\t_\t_\t_\t_\t2\t_\t_\t_\n", "malformed_sentence", "HEAD 2 is not a token"),
        ("2\ta\t_\t_\t_\t_\t0\t_\t_\t_\n", "malformed_sentence", "ID should be 1"),
    ],
)
def test_bad_blocks_are_skipped_and_named(tmp_path, block, reason, message):
    path = write_lines(tmp_path, "bad.conllu", GOOD + "# sent_id = 1\n" + block + "\n" + GOOD)
    log = ProblemLog()
    rows = list(conll.read_conll(path, log=log))
    assert [n for n, _, _ in rows] == [0, 2]  # the bad block keeps its number
    (problem,) = log.problems
    assert problem.reason == reason
    assert problem.message.startswith(f"{path}:4: sentence 1: ")
    assert message in problem.message
    with pytest.raises(PyfnError, match=f"sentence 1: .*{message}"):
        read_all(path)


def test_conllx_columns(tmp_path):
    path = write_lines(tmp_path, "x.conll", "1\ta\tA\tDT\tDT2\t_\t2\tdet\t_\t_\n2\tdog\t_\t_\tNN\t_\t0\troot\tz\t_\n\n")
    log = ProblemLog()
    assert list(conll.read_conll(path, log=log)) == []
    assert "PHEAD 'z' is not an integer" in log.problems[0].message
    path = write_lines(tmp_path, "x.conllx", "1\ta\tA\tDT\tDT2\t_\t2\tdet\t_\t_\n2\tdog\t_\t_\tNN\t_\t0\troot\t_\t_\n")
    (row,) = read_all(path)
    assert row == (0, [TokenAnnotation("A", None, "DT", 2, "det"), TokenAnnotation(None, None, "NN", 0, "root")],
                   ["a", "dog"])


def test_dialect_from_suffix(tmp_path):
    assert conll.dialect_of(tmp_path / "test.sentences.conllx") == "conllx"
    assert conll.dialect_of(tmp_path / "a.CONLLU") == "conllu"
    with pytest.raises(UsageError, match="cannot tell CoNLL-U from CoNLL-X"):
        read_all(tmp_path / "a.txt")
    with pytest.raises(UsageError, match="unknown CoNLL dialect"):
        read_all(tmp_path / "a.txt", dialect="conll09")


def test_unreadable_files(tmp_path):
    with pytest.raises(PyfnError, match="cannot read"):
        read_all(tmp_path / "missing.conllu")
    path = tmp_path / "latin1.conllu"
    path.write_bytes(b"1\tcaf\xe9\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    with pytest.raises(PyfnError, match="not UTF-8"):
        read_all(path)
    path = write_lines(tmp_path, "one.conllu", GOOD + "garbage\n\n")
    with pytest.raises(PyfnError, match=f"{path}:4: sentence 1: Invalid line format"):
        read_all(path)


# ----------------------------------------------------------------- the UD validator (udtools)

LEADING_SPACE = " Simply put , he did ."
"""A sentence that begins with a space, as FN 1.5 test sentence 1278809 does."""


def _ud_sets():
    return [make_set(LEADING_SPACE, [(8, 10)], set_id=1, sent_id=1278809), make_set("December 1998", [(0, 7)],
                                                                                    set_id=2, sent_id=4)]


def test_written_conllu_passes_ud_level_1_and_level_2_but_for_what_preprocessing_fills(tmp_path):
    """Level 1 (the CoNLL-U backbone) holds as written. Level 2 needs a tree (HEAD ``_`` is rejected on every
    token, and the validator checks nothing further in that sentence) and UD's relation labels: with a tree
    labelled ``root``/``dep`` nothing fails; with spaCy's labels only the two DEPREL checks do."""
    sets = _ud_sets()
    table = SentenceTable.of(sets)
    n_tokens = sum(len(text.split()) for text in table.strings)
    path = tmp_path / "x.conllu"
    conll.write_conllu(path, sets)
    assert ud_incidents(path, 1) == {}
    assert ud_incidents(path, 2) == {"L2 FORMAT invalid-head": n_tokens, "L2 SYNTAX unknown-head": n_tokens}
    columns = parsed(table)  # a chain with UD relations (root, dep) and UPOS X
    conll.write_conllu(path, sets, columns=columns)
    assert ud_incidents(path, 2) == {}
    spacy_labels = {"root": "ROOT", "dep": "dobj"}
    conll.write_conllu(path, sets, columns={n: [replace(a, deprel=spacy_labels[a.deprel]) for a in anns]
                                            for n, anns in columns.items()})
    assert ud_incidents(path, 2) == {"L2 SYNTAX invalid-deprel": 2, "L2 SYNTAX unknown-udeprel": n_tokens - 2}


def test_leading_space_is_written_in_the_text_comment_and_readers_strip_it(tmp_path):
    """``# text = `` is followed by the sentence string exactly; the ``conllu`` package (as udtools and
    udapi) strips a comment's value, so it reads the text without its leading space: the exact text is
    line *k* of ``.sentences`` (*k* = ``sent_id``)."""
    path = tmp_path / "x.conllu"
    conll.write_conllu(path, _ud_sets())
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["# sent_id = 0", f"# text = {LEADING_SPACE}", "# fn_sentence_ids = 1278809"]
    assert lines[1].startswith("# text =  Simply")
    assert conllu.parse(path.read_text(encoding="utf-8"))[0].metadata["text"] == LEADING_SPACE.lstrip()
    assert SentenceTable.of(_ud_sets()).strings[0] == LEADING_SPACE


# ----------------------------------------------------------------- alignment


@pytest.fixture()
def written(tmp_path):
    sets = [make_set("a dog barks", [(2, 4)], sent_id=1), make_set("the cat", [(4, 6)], sent_id=2)]
    path = tmp_path / "s.conllu"
    conll.write_conllu(path, sets)
    return path, SentenceTable.of(sets)


def forms_of(path):
    return {n: forms for n, _, forms in read_all(path)}


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("\tcat\t", "\tCat\t"), "sentence 1, token 2: FORM 'Cat', FrameNet has 'cat'"),
        (lambda t: t.replace("3\tbarks\t_\t_\t_\t_\t_\t_\t_\t_\n", ""), "sentence 0, token 3: 2 tokens, FrameNet has 3"),
        (lambda t: t.split("\n\n")[1] + "\n\n" + t.split("\n\n")[0] + "\n\n", "sentence 0, token 1: FORM 'the'"),
        (lambda t: t.split("\n\n")[0] + "\n\n", "sentence 1: missing"),
        (lambda t: t + "# sent_id = 2\n1\tmore\t_\t_\t_\t_\t_\t_\t_\t_\n\n", "sentence 2: no such sentence"),
    ],
)
def test_misaligned_file_is_an_error(written, edit, message):
    path, table = written
    conll.align(forms_of(path), table, path)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(PyfnError, match=f"{path}: {message}"):
        conll.align(forms_of(path), table, path)


# ----------------------------------------------------------------- property test

TOKEN = st.text(st.characters(blacklist_categories=("Cs", "Cn")), min_size=1, max_size=5).filter(
    lambda t: not any(ch.isspace() for ch in t)
)
SEPARATOR = st.sampled_from([" ", "  ", "\u00a0", " \u3000"])


@st.composite
def sentences(draw):
    texts = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(TOKEN, min_size=1, max_size=6))
        texts.append(draw(st.sampled_from(["", " "])) + "".join(w + draw(SEPARATOR) for w in words[:-1]) + words[-1])
    return texts


@settings(max_examples=100, deadline=None)
@given(sentences(), st.sampled_from(sorted(WRITERS)))
def test_round_trip_property(tmp_path_factory, texts, dialect):
    sets = [make_set(text, [(len(text) - 1, len(text) - 1)], set_id=i, sent_id=i) for i, text in enumerate(texts)]
    table = SentenceTable.of(sets)
    path = tmp_path_factory.mktemp("c") / f"s.{dialect}"
    columns = parsed(table)
    WRITERS[dialect](path, sets, columns=columns)
    rows = read_all(path)
    assert [n for n, _, _ in rows] == list(range(len(table.strings)))
    conll.align({n: forms for n, _, forms in rows}, table, path)
    assert [anns for _, anns, _ in rows] == [[conll.as_read(a, dialect) for a in columns[n]] for n, _, _ in rows]
    with open(path, encoding="utf-8") as handle:
        assert len(list(conllu.parse_incr(handle, fields=conll.DIALECTS[dialect]))) == len(rows)


# ----------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def fn15_splits(fn15_sets):
    """FN 1.5 dev and test (standard split, Test35 excluded), built once per session."""
    return {name: fn15_sets[name] for name in ("dev", "test")}


@pytest.mark.parametrize("dialect", WRITERS)
def test_fn15_dev_and_test(fn15_splits, tmp_path, dialect):
    splits = fn15_splits
    for name, n_sentences in (("dev", 328), ("test", 875)):
        table = SentenceTable.of(splits[name])
        path = tmp_path / f"{name}.sentences.{dialect}"
        WRITERS[dialect](path, splits[name])
        with open(path, encoding="utf-8") as handle:
            blocks = list(conllu.parse_incr(handle, fields=conll.DIALECTS[dialect]))
        assert len(blocks) == len(table.strings) == n_sentences
        assert [len(b) for b in blocks] == [len(tokens(text)) for text in table.strings]
        assert [[t["form"] for t in b] for b in blocks] == [[t.text for t in tokens(s)] for s in table.strings]
        if dialect == "conllu":
            assert [b.metadata["sent_id"] for b in blocks] == [str(i) for i in range(n_sentences)]
            assert all(b.metadata["text"] == s.strip() for b, s in zip(blocks, table.strings))
        rows = read_all(path)
        conll.align({n: forms for n, _, forms in rows}, table, path)
