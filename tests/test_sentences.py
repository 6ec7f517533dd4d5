"""The sentence reader's two twins (:func:`pyfn.framenet.annotations.read_file`): a file parsed whole
and read in C gives what the streamed Python reader gives, on real FrameNet files and on random
hostile ones (odd IDs and attributes, missing text, sets that are not annotation sets, duplicates,
sentences inside sentences, other roots)."""

from __future__ import annotations

import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from conftest import xml_attributes

from pyfn.errors import PyfnError
from pyfn.framenet import annotations
from pyfn.framenet.annotations import _annotation_set, _read_whole, read_file_streamed
from pyfn.framenet.compiled import READER
from pyfn.framenet.xml import FN_NS
from pyfn.model import Sentence

compiled = pytest.mark.skipif(annotations.read_sentences_c is None, reason=f"sentence reader: {READER}")


def _outcome(read, data: bytes, relpath: str):
    """What a reader makes of a file: its whole result, or the error that refused the file."""
    try:
        result = read(data, relpath, Sentence, _annotation_set)
    except PyfnError as exc:
        return "error", str(exc)
    if result is None:
        return None
    return vars(result)


@compiled
@pytest.mark.parametrize("release, lu_step, at_least", [("fn15", 10, 40_000), ("fn17", 20, 30_000)])
def test_same_result_on_real_files(release, lu_step, at_least, request):
    """Every full-text file and every 10th (FN 1.5) or 20th (FN 1.7) lu file, read whole in C and
    streamed."""
    with zipfile.ZipFile(request.getfixturevalue(release)) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] == "fulltext")
        names += sorted(n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] == "lu")[::lu_step]
        sets = 0
        for name in names:
            data = archive.read(name)
            whole = _outcome(_read_whole, data, name)
            assert whole is not None, name
            assert whole == _outcome(read_file_streamed, data, name), name
            sets += len(whole["sets"])
    assert sets > at_least


@compiled
def test_a_sentence_inside_a_sentence_is_read_streamed():
    """The streamed reader releases an inner sentence, and the siblings before it, before it reads the
    outer one (which has lost its text): such a file is left to it, and read_file gives its result."""
    data = (f'<fullTextAnnotation xmlns="{FN_NS}"><sentence ID="1"><text>a b</text>'
            '<sentence ID="2"><text>c</text></sentence></sentence></fullTextAnnotation>').encode()
    assert _outcome(_read_whole, data, "fulltext/x.xml") is None
    expected = _outcome(read_file_streamed, data, "fulltext/x.xml")
    assert _outcome(annotations.read_file, data, "fulltext/x.xml") == expected
    assert expected["sentences"] == 1
    assert [p.message for p in expected["problems"]] == ["fulltext/x.xml sentence 1: no <text>"]


@compiled
@pytest.mark.parametrize("data", [
    f'<fullTextAnnotation xmlns="{FN_NS}"><sentence ID="1"><text>a</text></sentence>'.encode(),  # not well-formed
    f'<other xmlns="{FN_NS}"><sentence ID="1"><text>a</text></sentence></other>'.encode(),  # another root
])
def test_files_the_whole_reader_leaves_to_the_streamed_one(data):
    assert _outcome(_read_whole, data, "fulltext/x.xml") is None
    assert _outcome(annotations.read_file, data, "fulltext/x.xml") == _outcome(read_file_streamed, data,
                                                                             "fulltext/x.xml")


def _doc(*sentences: str) -> bytes:
    return f'<fullTextAnnotation xmlns="{FN_NS}">{"".join(sentences)}</fullTextAnnotation>'.encode()


_SET = ('<annotationSet ID="{}" luName="run.v" frameName="Motion"><layer name="Target">'
        '<label name="Target" start="0" end="0"/></layer></annotationSet>')


@compiled
@pytest.mark.parametrize("data", [
    _doc('<sentence ID="1"><text>a b</text></sentence>', '<sentence ID="1"><text>c d</text></sentence>'),
    _doc(f'<sentence ID="1"><text>a b</text>{_SET.format(7)}</sentence>',
         f'<sentence ID="2"><text>c d</text>{_SET.format(7)}</sentence>'),
    _doc(f'<sentence ID="1"><text>a b</text>{_SET.format(7)}{_SET.format(7)}</sentence>'),
    _doc('<sentence ID="1"><text>a b</text><annotationSet ID="3"><layer name="FE">'
         '<label name="A" start="0" end="0"/></layer></annotationSet></sentence>'),
    _doc(f'<sentence ID="+1"><text>a b</text>{_SET.format(7)}</sentence>'),
    _doc(f'<sentence ID="1" docID="x"><text>a b</text>{_SET.format(7)}</sentence>'),
    _doc(f'<sentence ID="1">{_SET.format(7)}</sentence>'),
], ids=["same sentence ID, other text", "set ID in two sentences", "set ID twice in a sentence",
        "FE labels without a target", "ID not plain", "docID not an integer", "no text"])
def test_each_unusual_sentence_as_the_streamed_reader(data, monkeypatch):
    """The sentences the C reader leaves to Python, one by one: the same result, problems included."""
    left = []
    read_sentence = annotations._sentence_or_problem
    monkeypatch.setattr(annotations, "_sentence_or_problem", lambda sent, *args: (left.append(sent.get("ID")),
                                                                                 read_sentence(sent, *args)))
    whole = _outcome(_read_whole, data, "fulltext/x.xml")
    assert left
    monkeypatch.undo()
    assert whole == _outcome(read_file_streamed, data, "fulltext/x.xml")


@compiled
@pytest.mark.parametrize("fails", ["sentence", "set"])
def test_a_callback_error_is_a_problem_as_in_the_streamed_reader(fails):
    """A PyfnError of ``make_sentence`` drops the sentence, one of ``make_set`` the set, as problems."""
    def make_sentence(*fields):
        if fails == "sentence":
            raise PyfnError("no sentence")
        return Sentence(*fields)

    def make_set(*fields):
        raise PyfnError("no set")

    data = _doc(f'<sentence ID="1"><text>a b</text>{_SET.format(7)}</sentence>')
    results = [vars(read(data, "fulltext/x.xml", make_sentence, make_set)) for read in (_read_whole, read_file_streamed)]
    assert results[0] == results[1]
    assert [p.message for p in results[0]["problems"]] == ["no sentence" if fails == "sentence" else "no set"]


@compiled
def test_a_large_file_is_streamed(monkeypatch):
    """Memory stays bounded: a file above the limit is not parsed whole."""
    data = (f'<fullTextAnnotation xmlns="{FN_NS}"><sentence ID="1"><text>a b</text></sentence>'
            '</fullTextAnnotation>').encode()
    assert _outcome(_read_whole, data, "fulltext/x.xml")["sentences"] == 1
    monkeypatch.setattr(annotations, "WHOLE_LIMIT", len(data) - 1)
    assert _outcome(_read_whole, data, "fulltext/x.xml") is None
    assert _outcome(annotations.read_file, data, "fulltext/x.xml")["sentences"] == 1


@compiled
@pytest.mark.parametrize("text", [
    "<text> <x/>a b</text>", "<text>\t\n<?pi x?>a b</text>", "<text> <!-- c -->a b</text>", "<text>  \r\na b</text>",
    "<text> <![CDATA[a]]> b</text>", "<text> \n </text>", "<text> a b </text>", "<text>\n<x/></text>",
    "<text> &amp; <x/></text>", "<text> &#32;<x/>a</text>", '<text xml:space="preserve"> <x/>a</text>',
], ids=["blank then element", "blank then instruction", "blank then comment", "blank then CR LF", "blank then CDATA",
        "blank only", "blank around", "blank then element only", "entity, blank, element", "char ref then element",
        "xml:space"])
def test_blank_text_the_whole_parser_drops_is_never_read(text):
    """The whole reader's parser drops blank text between elements (``_WHOLE_NO_BLANKS``): the text of
    every sentence stays the streamed reader's, blank parts before a first child element included."""
    data = _doc(f'<sentence ID="1">\n  {text}\n  {_SET.format(7)}\n</sentence>\n')
    whole = _outcome(annotations.read_file, data, "fulltext/x.xml")
    assert whole == _outcome(read_file_streamed, data, "fulltext/x.xml")
    parsed = etree.fromstring(data, etree.XMLParser(remove_comments=True))
    assert whole["sets"][0].sentence.text == (parsed.find(f"{{{FN_NS}}}sentence/{{{FN_NS}}}text").text or "")


@compiled
def test_blank_text_is_dropped_only_where_it_is_safe(monkeypatch):
    """A file without ``<!`` or CR is parsed dropping blank text; one with either is not."""
    used = []
    fromstring = etree.fromstring
    monkeypatch.setattr(annotations.etree, "fromstring",
                        lambda data, parser: (used.append(parser is annotations._WHOLE_NO_BLANKS), fromstring(data, parser))[1])
    for text, dropped in (("<text> a</text>", True), ("<text> a\r</text>", False), ("<text> a<!-- c --></text>", False)):
        _read_whole(_doc(f'<sentence ID="1">{text}</sentence>'), "fulltext/x.xml", Sentence, _annotation_set)
        assert used.pop() is dropped, text


_PLAIN = ["1", "2", "3", "-3", "007", "12"]
"""Integers the C reader reads (IDs repeat: duplicates), beside odd ones it leaves to Python."""
_INTS = st.one_of(st.none(), st.sampled_from(_PLAIN * 4 + ["+5", " 5", "x", "", "٣", "9" * 19]))
_NAMES = st.one_of(st.none(), st.sampled_from(["run.v", "Motion", "a&amp;b", "é"] * 3 + [""]))


@st.composite
def _layer(draw) -> str:
    name = draw(st.sampled_from(["Target", "Target", "FE", "FE", "PENN", "GF", "Other"]))
    labels = "".join(
        draw(st.sampled_from(['<label name="L" start="0" end="0"/>', '<label name="L" start="2" end="2"/>'] * 6
                             + ['<label name="Agent" itype="INI"/>', '<label name="L" start="0"/>',
                                '<label name="L" start="x" end="1"/>']))
        for _ in range(draw(st.integers(0, 3))))
    rank = draw(st.sampled_from(["", "", "", ' rank="1"', ' rank="2"', ' rank="y"']))
    return f'<layer name="{name}"{rank}>{labels}</layer>'


@st.composite
def _annotation_set_xml(draw) -> str:
    """Mostly a well-formed annotation set (a labelled target; IDs from a few values), else random."""
    layers = "".join(draw(st.lists(_layer(), max_size=4)))
    kind = draw(st.sampled_from(["set", "set", "set", "no_target", "random", "random"]))
    if kind == "no_target":  # FrameNet's sets of POS or NER layers only; one with FE labels is counted
        fes = draw(st.sampled_from(["", '<layer name="FE"><label name="A" start="0" end="0"/></layer>']))
        return (f'<annotationSet ID="{draw(st.sampled_from(_PLAIN))}"><layer name="PENN">'
                f'<label name="NN" start="0" end="0"/></layer>{fes}</annotationSet>')
    if kind == "set":
        target = draw(st.sampled_from(['<label name="Target" start="0" end="0"/>',
                                       '<label name="Target" start="0" end="0"/><label name="Target" start="2" end="2"/>']))
        return (f'<annotationSet ID="{draw(st.sampled_from(_PLAIN))}" luName="run.v" frameName="Motion" luID="4" '
                f'frameID="5" status="MANUAL"><layer name="Target">{target}</layer>{layers}</annotationSet>')
    attrs = " ".join([xml_attributes(draw, ("ID", "luID", "frameID"), _INTS),
                      xml_attributes(draw, ("luName", "frameName", "status"), _NAMES)])
    return f"<annotationSet {attrs}>{layers}</annotationSet>"


@st.composite
def _sentence_xml(draw) -> str:
    if draw(st.booleans()):
        attrs = f'ID="{draw(st.sampled_from(_PLAIN))}" docID="1" sentNo="2"'
    else:
        attrs = xml_attributes(draw, ("ID", "docID", "corpID", "sentNo", "paragNo", "aPos"), _INTS)
    text = draw(st.sampled_from(["<text>a b</text>", "<text>a b c</text>"] * 3 + [
        "<text/>", "", "<text>a<![CDATA[ b]]></text>", "<text>a &amp; b</text>",
        "<x:text xmlns:x='urn:o'>a</x:text><text>a b</text>", "<text> <x/>a</text>", "<text>\n<?pi x?>a</text>",
        "<text> \t</text>", "<text> <!-- c -->a</text>", "<text> \r\na</text>", "\n <text> a\n</text>\n "]))
    inner = draw(st.sampled_from(["", "", "", "<?pi x?>", " ", "<other/>"]))
    sets = "".join(draw(st.lists(_annotation_set_xml(), max_size=3)))
    return f"<sentence {attrs}>{text}{inner}{sets}</sentence>"


@st.composite
def documents(draw) -> bytes:
    """A FrameNet-like file: a full-text or lu root (or another), sentences directly under it or in
    sub-corpora, now and then one inside another, comments and processing instructions between."""
    root = draw(st.sampled_from(["fullTextAnnotation", "fullTextAnnotation", "lexUnit", "lexUnit", "corpus"]))
    head = ""
    if root == "lexUnit":
        head = " " + " ".join([xml_attributes(draw, ("name", "frame"), st.sampled_from(["run.v", "Motion"] * 4 + [""])),
                               xml_attributes(draw, ("ID", "frameID"), _INTS)])
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        sentence = draw(_sentence_xml())
        how = draw(st.sampled_from(["plain"] * 4 + ["subcorpus"] * 2 + ["comment", "nested"]))
        if how == "subcorpus":
            sentence = f'<subCorpus name="s">{sentence}</subCorpus>'
        elif how == "comment":
            sentence = f"<!-- c -->{sentence}<?pi y?>"
        elif how == "nested":
            sentence = sentence.replace("</sentence>", draw(_sentence_xml()) + "</sentence>", 1)
        parts.append(sentence)
    return f'<{root} xmlns="{FN_NS}"{head}>{"".join(parts)}</{root}>'.encode()


@compiled
@settings(max_examples=400, deadline=None, database=None)
@given(documents())
def test_same_result_on_random_files(data: bytes):
    for relpath in ("fulltext/doc.xml", "lu/lu1.xml"):
        assert _outcome(annotations.read_file, data, relpath) == _outcome(read_file_streamed, data, relpath)
