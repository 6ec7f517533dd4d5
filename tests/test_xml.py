"""pyfn.framenet.xml: the shared streaming parser frees each document when it is done with it."""

from __future__ import annotations

from pyfn.framenet.xml import NS, iterparse

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
