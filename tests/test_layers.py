"""The layer reader's two twins (:mod:`pyfn.framenet.layers`): the compiled one gives the Python
one's rows and errors, on every annotation set of real FrameNet files and on random layers; the JSON
of the layers it writes in C is what :mod:`pyfn.formats.jsonl` writes of those rows."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from conftest import xml_attributes

from pyfn.formats import jsonl
from pyfn.framenet import annotations, layers
from pyfn.framenet import compiled as compiled_module
from pyfn.framenet.xml import NS

compiled = pytest.mark.skipif(layers.read_layers_c is None, reason=f"layer reader: {layers.READER}")


def test_the_compiled_reader_is_built_where_required():
    """``.ci/run`` sets PYFN_REQUIRE_COMPILED: a CI run that silently fell back to Python fails."""
    if os.environ.get("PYFN_REQUIRE_COMPILED"):
        assert layers.read_layers_c is not None, layers.READER
        assert layers.read_layers is layers.read_layers_c
        assert annotations.read_sentences_c is not None


def test_pyfn_pure_python_chooses_the_python_twin():
    code = ("from pyfn.framenet import annotations, layers; "
            "print(layers.read_layers is layers.read_layers_py, annotations.read_sentences_c, layers.READER)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYFN_PURE_PYTHON": "1"},
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("True None pure Python (PYFN_PURE_PYTHON is set)")


@compiled
def test_the_compiled_reader_is_used_only_with_its_own_source(tmp_path):
    """An editable install whose ``.pyx`` changed since the build reads with Python, and says why."""
    from pyfn.framenet import _clayers  # noqa: PLC0415 - built only where a compiler was

    assert _clayers.SOURCE_SHA256 == hashlib.sha256(compiled_module.SOURCE.read_bytes()).hexdigest()
    assert compiled_module.load() == (_clayers, "compiled")
    changed = tmp_path / "_clayers.pyx"
    changed.write_bytes(compiled_module.SOURCE.read_bytes() + b"\n# changed\n")
    assert compiled_module.load(changed) == (
        None, "pure Python (the compiled reader was built from another _clayers.pyx: reinstall pyfn)")


def _both(aset: etree._Element, want_pos: bool) -> None:
    expected = layers.read_layers_py(aset, want_pos)
    assert layers.read_layers_c(aset, want_pos) == expected
    assert [type(v) for v in expected[0]] == [tuple] * len(expected[0])
    _same_json(aset)


def _layers_part(rows: list) -> str:
    """What :func:`pyfn.formats.jsonl.encode_set` writes of layer rows, between ``"layers":[`` and ``]``."""
    line = jsonl.encode_set(1, "fulltext", "", None, "lu.v", None, "F", rows, '"sentence":{}}')
    return line[line.index('"layers":[') + len('"layers":['):line.rindex('],"sentence":')]


def _same_json(aset: etree._Element) -> str | None:
    """The compiled reader's JSON of the layers, when it makes one, is what jsonl writes of their rows."""
    from pyfn.framenet._clayers import layers_json  # noqa: PLC0415 - built only where a compiler was

    encoded = layers_json(aset)
    rows, _, _, _, error = layers.read_layers_py(aset, False)
    if encoded is not None:
        assert error is None
        assert encoded == _layers_part(rows)
    return encoded


@compiled
def test_same_rows_on_real_files(fn15):
    """Every annotation set of every full-text file and of 300 lu files of FN 1.5, with and
    without POS wanted."""
    tag = NS + "annotationSet"
    with zipfile.ZipFile(fn15) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] == "fulltext")
        names += sorted(n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] == "lu")[::30]
        count = 0
        for name in names:
            for aset in etree.fromstring(archive.read(name)).iter(tag):
                _both(aset, True)
                _both(aset, False)
                count += 1
    assert count > 20_000


_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["0", "-0", "7", "-3", "007", "+5", " 5", "5 ", "1_0", "", "-", "--1", "x", "1.5", "٣", "²",
                     "9" * 17, "9" * 18, "-" + "9" * 17, "9" * 19, "-" + "9" * 18, "9" * 400, "Target", "FE",
                     "PENN", "a&b", "é", "1:", "/2"]),
    st.text(alphabet=st.sampled_from("0123456789-+ _x٣/:"), max_size=20),
)
_NAMES = st.sampled_from(["Target", "FE", "GF", "PT", "PENN", "Other", "Sent", "", None])


@st.composite
def annotation_sets(draw) -> bytes:
    """An ``<annotationSet>`` of random layers and labels, with stray children: text, comments,
    processing instructions, elements of another namespace or none."""
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(_NAMES)
        head = "<layer" + (f' name="{name}"' if name is not None else "")
        if draw(st.booleans()):
            head += " " + xml_attributes(draw, ("rank",), _VALUES, escape=True)
        labels = []
        for _ in range(draw(st.integers(0, 4))):
            labels.append(draw(st.sampled_from([
                "<label {}/>", "<x:label xmlns:x='urn:other' {}/>", "<label xmlns='' {}/>", "<!-- c -->",
                "<?pi {}?>", "text", "<label {}><label name='inner' start='1' end='2'/></label>",
                "<label xmlns:y='urn:y' y:name='ns' y:start='4' y:feID='x' {}/>"])).format(
                xml_attributes(draw, ("name", "start", "end", "itype", "feID"), _VALUES, escape=True)))
        parts.append(head + ">" + "".join(labels) + "</layer>")
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(["<!-- c -->", " ", "<other/>", "<x:layer xmlns:x='urn:o' name='FE'/>"])))
    xml = f'<annotationSet xmlns="{NS[1:-1]}" ID="1">' + "".join(parts) + "</annotationSet>"
    return xml.encode()


@compiled
@settings(max_examples=400, deadline=None, database=None)
@given(annotation_sets(), st.booleans())
def test_same_rows_and_errors_on_random_layers(xml: bytes, want_pos: bool):
    _both(etree.fromstring(xml), want_pos)


@compiled
def test_a_bad_offset_after_a_pos_layer_keeps_the_pos_layer():
    """As the Python reader: layers are read up to the first error, a POS layer before it is returned."""
    xml = (f'<annotationSet xmlns="{NS[1:-1]}"><layer name="PENN"><label name="NN" start="0" end="2"/></layer>'
           '<layer name="FE" rank="x"/><layer name="Target"/></annotationSet>').encode()
    aset = etree.fromstring(xml)
    for read in (layers.read_layers_py, layers.read_layers_c):
        assert read(aset, True) == (
            [], False, "PENN", (("NN", 0, 2),), "invalid literal for int() with base 10: 'x'")


@compiled
def test_attribute_values_with_references_and_namespaces():
    """Character and entity references in a label's attributes, and attributes of another namespace
    (which neither reader takes): the compiled reader reads them as lxml's ``get`` does."""
    xml = (f'<annotationSet xmlns="{NS[1:-1]}" xmlns:y="urn:y"><layer name="FE">'
           '<label name="a&#233;&amp;b" start="&#49;&#50;" end="1&#x33;" itype="&lt;x" feID="&#45;7"/>'
           '<label name="" start="2" end="3" y:name="n" y:start="1" y:itype="i"/>'
           '<label name="&#x1F600;" start="&#10;4" end="5&#9;"/></layer></annotationSet>').encode()
    aset = etree.fromstring(xml)
    _both(aset, True)
    rows = layers.read_layers_c(aset, True)[0][0][2]
    assert rows[:2] == [("aé&b", 12, 13, "<x", -7), ("", 2, 3, None, None)]
    assert rows[2] == ("\U0001F600", 4, 5, None, None)  # normalized to spaces, then int() strips them


@compiled
def test_layers_json_escapes_as_json_does_and_leaves_what_is_not_plain():
    target = '<layer name="Target"><label name="Target" start="0" end="3"/></layer>'
    head = f'<annotationSet xmlns="{NS[1:-1]}">'
    plain = (head + target + '<layer name="FE" rank="2"><label name="a&quot;b\\c&#9;&#10;&#13;&#127;&#x85;'
             '&#x2028;é&#x1F600;/" start="-0" end="007" itype="&lt;&amp;&gt;" feID="-12"/><label name="Ag" itype="INI"/>'
             '<label/></layer><layer name="GF"/><layer name="PENN"><label name="x" start="0" end="1"/></layer>'
             '<layer name="PT" rank="0"><label name="NP" start="4" end="5"/></layer></annotationSet>')
    encoded = _same_json(etree.fromstring(plain))
    assert encoded == ('{"name":"Target","rank":1,"labels":[["Target",0,3,null,null]]},{"name":"FE","rank":2,'
                       '"labels":[["a\\"b\\\\c\\t\\n\\r\x7f\x85\u2028é\U0001F600/",0,7,"<&>",-12],["Ag",null,null,"INI",null],'
                       '["",null,null,null,null]]},{"name":"GF","rank":1,"labels":[]},'
                       '{"name":"PT","rank":1,"labels":[["NP",4,5,null,null]]}')
    for not_plain in ('<layer name="FE" rank="99999999999999999999"/>', '<layer name="FE"><label start=" 4"/></layer>',
                      '<layer name="FE"><label feID="1_0"/></layer>', '<layer name="FE"><label start="x"/></layer>'):
        assert _same_json(etree.fromstring(head + target + not_plain + "</annotationSet>")) is None, not_plain
    for rank in ("-9223372036854775808", "9223372036854775807", "-1"):  # 64-bit bounds: written in C
        encoded = _same_json(etree.fromstring(f'{head}{target}<layer name="FE" rank="{rank}"/></annotationSet>'))
        assert encoded is not None and encoded.endswith(f'"rank":{rank},"labels":[]}}')


@compiled
def test_values_beyond_64_bits_and_entity_references_are_read_by_lxml():
    """19 digits may not fit a long long: left to lxml's get and int. Attributes of a tree parsed
    elsewhere with its DTD's entities unresolved read as lxml reads them."""
    head = f'<annotationSet xmlns="{NS[1:-1]}">'
    for value in ("9" * 19, "-" + "9" * 19, "9223372036854775808"):
        aset = etree.fromstring(f'{head}<layer name="FE"><label name="A" start="{value}" end="1" feID="{value}"/>'
                                '</layer></annotationSet>')
        _both(aset, True)
        assert layers.read_layers_c(aset, True)[0][0][2] == [("A", int(value), 1, None, int(value))]
        assert _same_json(aset) is None
    dtd = ('<!DOCTYPE annotationSet [<!ENTITY e "5">]>' + head + '<layer name="FE">'
           '<label name="x&e;" start="&e;" end="6" itype="&e;"/></layer></annotationSet>')
    aset = etree.fromstring(dtd.encode(), etree.XMLParser(resolve_entities=False))
    _both(aset, True)
    assert layers.read_layers_c(aset, True)[0][0][2] == [("x5", 5, 6, "5", None)]
