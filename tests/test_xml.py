"""pyfn.framenet.xml: the shared streaming parser frees each document when it is done with it; the
DTD byte check finds what two substring searches find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.framenet import xml
from pyfn.framenet.xml import NS, declares_dtd, holds_declaration, iterparse

DOC = (b'<?xml version="1.0"?><lexUnit xmlns="http://framenet.icsi.berkeley.edu" ID="1">'
       b'<header><frame><FE name="A" type="Core"/></frame></header><valences><FERealization total="1"/></valences>'
       b'<subCorpus name="s"><sentence ID="1"><text>a b</text></sentence><sentence ID="2"><text>c</text></sentence>'
       b'</subCorpus></lexUnit>')


def test_the_tree_is_emptied_when_the_stream_ends_or_is_left():
    # lxml's parser, context and document form a reference cycle: left to the cyclic collector (which a
    # split build pauses), every file's tree would outlive its reading
    roots = []
    for _, elem in iterparse(DOC, "lu1.xml", ("sentence",)):
        roots.append(elem.getroottree().getroot())
    assert roots[0].tag == NS + "lexUnit" and len(roots[0]) == 0
    stream = iterparse(DOC, "lu1.xml", ("sentence",))
    _, first = next(stream)
    root = first.getroottree().getroot()
    assert len(root) > 0
    stream.close()  # a reader that stops early (read_frame returns from inside the loop)
    assert len(root) == 0


_PIECES = st.sampled_from([b"<", b"!", b"<!", b"<!DOCTYPE", b"<!ENTITY", b"DOCTYPE", b"<!DOCTYP", b"ENTITY",
                           b"<!--", b"a", b"\xe2\x80\x99", b"!" * 70])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(b"".join))
def test_declares_dtd_is_the_two_substring_searches(data):
    assert declares_dtd(data) == (b"<!DOCTYPE" in data or b"<!ENTITY" in data)
    assert holds_declaration(data) == (b"<!" in data)


def test_declares_dtd_after_many_bangs(monkeypatch):
    # past the bangs looked at one by one, the rest is searched whole, from the last one looked at
    monkeypatch.setattr(xml, "_BANGS_LOOKED_AT", 2)
    for data, expected in ((b"!!<!ENTITY", True), (b"!!!<!DOCTYPE x>", True), (b"a!b!<c!d", False),
                           (b"!!<!DOCTYPE", True), (b"!<!", False), (b"<!!!<!ENTITY", True)):
        assert declares_dtd(data) is expected, data
    for data, expected in ((b"!!<!", True), (b"!!!a<!", True), (b"a!b!<c!d", False), (b"!<!", True), (b"!!!", False)):
        assert holds_declaration(data) is expected, data
