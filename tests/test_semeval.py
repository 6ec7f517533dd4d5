"""SemEval XML: round trips, the scorer's positional structure, bad input."""

from __future__ import annotations

import pytest
from conftest import make_set
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.formats import semeval
from pyfn.formats.base import ordered, sentence_string
from pyfn.model import Label

TEXT = "there is a dog in the house"


def span(text: str, word: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return start, start + len(word) - 1


def view(aset):
    """What the scorer sees of a set, plus the LU."""
    fes = sorted((lb.name, lb.start, lb.end) for _, lb in aset.overt_fes)
    return sentence_string(aset.sentence.text), aset.frame_name, aset.lu_name, aset.target, tuple(fes)


def round_trip(tmp_path, sets, **options):
    path = tmp_path / "x.xml"
    semeval.write(path, sets, **options)
    log = ProblemLog(strict=True)
    return list(semeval.read(path, log=log)), path


def hand_built():
    there_be = make_set(TEXT, [span(TEXT, "there"), span(TEXT, "is")], [("Entity", 9, 13), ("Place", 15, 26)],
                        set_id=5, frame="Existence", lu="there be.v")
    dog = make_set(TEXT + "  ", [span(TEXT, "dog")], [("Time", None, None)], set_id=3, frame="Animals",
                   lu="dog.n", rank2=[("Animal", 9, 13)])
    other = make_set("a house", [(2, 6)], [("Building", 2, 6)], set_id=9, sent_id=2, frame="Buildings",
                     lu="house.n")
    return [there_be, dog, other]


def test_round_trip_hand_built(tmp_path):
    sets = hand_built()
    back, path = round_trip(tmp_path, sets)
    assert [view(a) for a in back] == [view(a) for a in ordered(sets)]
    assert back[1].target == ((0, 4), (6, 7))  # the discontinuous target keeps its two labels
    assert [a.sentence.text for a in back] == ["a house", TEXT, TEXT]  # trailing spaces removed
    data = path.read_bytes()
    assert data.startswith(b"<?xml version='1.0' encoding='UTF-8'?>\n<corpus")
    assert data.endswith(b"</corpus>\n") and b"XMLCreated" not in data
    assert b'<sentence ID="1">' in data and b'luName="there be.v"' in data


def test_null_instantiations_and_rank_split(tmp_path):
    sets = hand_built()
    back, path = round_trip(tmp_path, sets, null_instantiations=True, fe_ranks="split")
    dog = next(a for a in back if a.frame_name == "Animals")
    assert dog.fe_labels == ((1, Label("Time", None, None, "DNI")), (2, Label("Animal", 9, 13)))
    assert [view(a) for a in back] == [view(a) for a in ordered(sets)]
    tree = etree.parse(str(path))
    assert [la.get("rank") for la in tree.iterfind(".//layer[@name='FE']")] == ["1", "1", "1", "2"]
    merged, _ = round_trip(tmp_path, sets)
    dog = next(a for a in merged if a.frame_name == "Animals")
    assert dog.fe_labels == ((1, Label("Animal", 9, 13)),)  # NI left out, rank 2 merged into rank 1


def test_target_only_set_has_no_fe_layer(tmp_path):
    aset = make_set(TEXT, [span(TEXT, "dog")], [])
    _, path = round_trip(tmp_path, [aset])
    assert [la.get("name") for la in etree.parse(str(path)).iter("layer")] == ["Target"]


def test_structure_follows_the_scorers_positional_walk(tmp_path):
    """ParseFNXMLFile takes the first child after a whitespace text node of these elements."""
    _, path = round_trip(tmp_path, hand_built(), null_instantiations=True, fe_ranks="split")
    first = {"corpus": "documents", "document": "paragraphs", "paragraph": "sentences", "sentence": "text",
             "annotationSet": "layers", "layer": "labels"}
    seen = set()
    for elem in etree.parse(str(path)).iter(*first):
        assert elem.text is not None and elem.text.strip() == "" and elem.text, elem.tag
        assert elem[0].tag == first[elem.tag]
        seen.add(elem.tag)
    assert seen == set(first)


def test_byte_identical_and_input_order_free(tmp_path):
    sets = hand_built()
    semeval.write(tmp_path / "a.xml", sets)
    semeval.write(tmp_path / "b.xml", list(reversed(sets)))
    assert (tmp_path / "a.xml").read_bytes() == (tmp_path / "b.xml").read_bytes()


def test_sentence_list_for_predictions(tmp_path):
    sets = hand_built()
    gold_strings = ["a house", "nothing predicted here", TEXT]
    semeval.write(tmp_path / "p.xml", sets[:1], sentences=gold_strings)
    tree = etree.parse(str(tmp_path / "p.xml"))
    assert [s.findtext("text") for s in tree.iter("sentence")] == gold_strings
    assert [len(s.find("annotationSets")) for s in tree.iter("sentence")] == [0, 0, 1]
    with pytest.raises(PyfnError, match="missing from the sentence list"):
        semeval.write(tmp_path / "q.xml", sets, sentences=["a house"])


def test_unknown_rank_option():
    with pytest.raises(UsageError, match="fe_ranks"):
        semeval.write("never.xml", [], fe_ranks="1")


def test_compact_xml_and_text_after_annotation_sets(tmp_path):
    path = tmp_path / "c.xml"
    path.write_text(
        '<corpus><documents><document><paragraphs><paragraph><sentences><sentence>'
        '<annotationSets><annotationSet frameName="Animals"><layers>'
        '<layer name="Target" rank="1"><labels><label name="Target" start="2" end="4"/></labels></layer>'
        '<layer name="FE" rank="2"><labels><label name="Animal" start="0" end="4"/></labels></layer>'
        '<layer name="NER"><labels><label name="person" start="0" end="0"/></labels></layer>'
        '</layers></annotationSet></annotationSets><text>a dog</text>'
        '</sentence></sentences></paragraph></paragraphs></document></documents></corpus>'
    )
    (aset,) = semeval.read(path, log=ProblemLog(strict=True))
    assert (aset.frame_name, aset.lu_name, aset.target) == ("Animals", "", ((2, 4),))
    assert aset.fe_labels == ((2, Label("Animal", 0, 4)),)


SENTENCE = '<sentence ID="7">{text}<annotationSets>{sets}</annotationSets></sentence>'
GOOD_SET = '<annotationSet ID="4" frameName="F"><layers><layer name="Target"><labels>' \
           '<label name="Target" start="2" end="4"/></labels></layer>{fe}</layers></annotationSet>'


def sem_file(tmp_path, *sentences):
    path = tmp_path / "bad.xml"
    body = "".join(sentences)
    path.write_text(f"<corpus><documents><document><paragraphs><paragraph><sentences>{body}"
                    "</sentences></paragraph></paragraphs></document></documents></corpus>")
    return path


def fe(label):
    return f'<layer name="FE"><labels>{label}</labels></layer>'


@pytest.mark.parametrize(
    "bad_set, message",
    [
        ('<annotationSet ID="4"><layers/></annotationSet>', "no frameName"),
        (GOOD_SET.format(fe=fe('<label name="X" start="3" end="9"/>')), "outside the text"),
        (GOOD_SET.format(fe=fe('<label name="X" start="4" end="3"/>')), "start 4 > end 3"),
        (GOOD_SET.format(fe=fe('<label name="X" start="a" end="3"/>')), "start='a' is not a non-negative integer"),
        (GOOD_SET.format(fe=fe('<label name="X" start="-1" end="3"/>')), "not a non-negative integer"),
        (GOOD_SET.format(fe=fe('<label name="X" start="1"/>')), "end=None"),
        ('<annotationSet ID="4" frameName="F"><layers/></annotationSet>', "no Target label"),
    ],
)
def test_bad_sets_are_skipped_and_named(tmp_path, bad_set, message):
    good = SENTENCE.format(text="<text>a dog</text>", sets=GOOD_SET.format(fe=""))
    path = sem_file(tmp_path, good, SENTENCE.format(text="<text>a dog</text>", sets=GOOD_SET.format(fe="") + bad_set))
    log = ProblemLog()
    assert len(list(semeval.read(path, log=log))) == 2
    (problem,) = log.problems
    assert problem.reason == "malformed_annotation_set"
    assert problem.message.startswith(f"{path}: sentence 1 (ID 7), annotationSet 1 (ID 4): ")
    assert message in problem.message
    with pytest.raises(PyfnError, match=message):
        list(semeval.read(path, log=ProblemLog(strict=True)))


def test_missing_text_skips_the_sentence(tmp_path):
    path = sem_file(tmp_path, SENTENCE.format(text="", sets=GOOD_SET.format(fe="")))
    log = ProblemLog()
    assert list(semeval.read(path, log=log)) == []
    assert log.counts() == {"malformed_sentence": 1}
    assert log.problems[0].message.startswith(f"{path}: sentence 0 (ID 7): no <text>")


@pytest.mark.parametrize(
    "content, message",
    [
        ('<!DOCTYPE corpus [<!ENTITY x "y">]><corpus>&x;</corpus>', "refused: the document declares a DTD"),
        ("<corpus><documents><document><paragraphs>", "malformed XML at line 1"),
        ("", "empty file"),
        ('<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu"/>', "not SemEval XML"),
    ],
)
def test_unreadable_files_raise_naming_the_file(tmp_path, content, message):
    path = tmp_path / "f.xml"
    path.write_text(content)
    with pytest.raises(PyfnError, match=f"{path}: {message}"):
        list(semeval.read(path, log=ProblemLog()))


def test_writer_refuses_offsets_outside_the_sentence(tmp_path):
    aset = make_set("a dog", [(2, 4)], [("X", 2, 9)])
    with pytest.raises(PyfnError, match=r"sentence 0: annotation set 1: X label 2-9 lies outside"):
        semeval.write(tmp_path / "x.xml", [aset])


def test_writer_refuses_characters_xml_cannot_hold(tmp_path):
    aset = make_set("a \x01dog", [(2, 5)], [])
    with pytest.raises(PyfnError, match="cannot write sentence 0"):
        semeval.write(tmp_path / "x.xml", [aset])
    assert not (tmp_path / "x.xml").exists()


# ----------------------------------------------------------------- property test

CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Cn", "Co"))
NAMES = st.text(CHARS, min_size=1, max_size=6)


@st.composite
def annotation_sets(draw):
    texts = draw(st.lists(st.text(CHARS, min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=3,
                          unique_by=str.rstrip))
    texts = [t + draw(st.sampled_from(["", " ", "  "])) for t in texts]
    sets = []
    for set_id in range(draw(st.integers(1, 6))):
        sent = draw(st.integers(0, len(texts) - 1))
        n = len(texts[sent].rstrip())
        spans = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).map(lambda p: (min(p), max(p)))
        target = draw(st.lists(spans, min_size=1, max_size=3, unique=True))
        fes = draw(st.lists(st.tuples(NAMES, spans).map(lambda p: (p[0], *p[1])), max_size=4))
        rank2 = draw(st.lists(st.tuples(NAMES, spans).map(lambda p: (p[0], *p[1])), max_size=2))
        ni = draw(st.lists(NAMES.map(lambda name: (name, None, None)), max_size=2))
        sets.append(make_set(texts[sent], target, fes + ni, set_id=set_id, sent_id=sent, frame=draw(NAMES),
                             lu=draw(st.text(CHARS, max_size=6)), rank2=rank2))
    return sets


@settings(max_examples=150, deadline=None)
@given(annotation_sets(), st.sampled_from(["all", "split"]), st.booleans())
def test_round_trip_property(tmp_path_factory, sets, fe_ranks, nis):
    tmp_path = tmp_path_factory.mktemp("p")
    back, path = round_trip(tmp_path, sets, fe_ranks=fe_ranks, null_instantiations=nis)
    assert [view(a) for a in back] == [view(a) for a in ordered(sets)]
    if fe_ranks == "split" and nis:
        assert [a.fe_labels for a in back] == [a.fe_labels for a in ordered(sets)]
    first = path.read_bytes()
    semeval.write(path, sets, fe_ranks=fe_ranks, null_instantiations=nis)
    assert path.read_bytes() == first


# ----------------------------------------------------------------- predictions from token formats


def test_predictions_copy_gold_segmentation_or_merge_runs():
    text = "at the time he left , the time was up"
    gold = make_set(text, [span(text, "at"), span(text, "the"), span(text, "time")], [], frame="T")
    as_gold = make_set(text, [span(text, "at"), span(text, "the time")], [("Event", 12, 18)])
    elsewhere = make_set(text, [span(text, "the", 1), span(text, "time", 1)], [("Part", 12, 13)])
    gapped = make_set(text, [span(text, "at"), span(text, "time", 1)], [])
    out = semeval.predictions_from_tokens([as_gold, elsewhere, gapped], [gold])
    assert out[0].target == gold.target  # same token set as a gold target: its three labels
    assert out[0].overt_fes == ((1, Label("Event", 12, 18)),)
    assert out[1].target == ((22, 29),)  # no gold target there: one label per run of adjacent tokens
    assert out[1].overt_fes == ((1, Label("Part", 12, 13)),)
    assert out[2].target == (span(text, "at"), span(text, "time", 1))


def test_predictions_round_fes_to_whole_tokens():
    text = "they were doin'tonight"
    pred = make_set(text, [span(text, "were")], [("Agent", 10, 14), ("Time", None, None)])
    (out,) = semeval.predictions_from_tokens([pred], [])
    assert [lb for _, lb in out.fe_labels] == [Label("Agent", 10, 21), Label("Time", None, None, "DNI")]
