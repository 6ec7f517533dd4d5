"""The compiled JSON-line decoder (``pyfn/formats/_cjsonl.pyx``): a line it accepts gives the objects
``json`` gives through :func:`pyfn.formats.jsonl.set_from_dict`; a line it does not accept (None) is
left to ``json``, which reads it or makes its error. It never accepts a line ``json`` refuses."""

from __future__ import annotations

import hashlib
import json
import os
import re
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_jsonl import _sample_sets

from pyfn.errors import PyfnError
from pyfn.formats import jsonl
from pyfn.framenet import compiled
from pyfn.model import AnnotationSet, Label, Layer, Sentence

decoder = compiled.JSONL_MODULE
needs_decoder = pytest.mark.skipif(decoder is None, reason=f"JSON-line decoder: {compiled.JSONL_DECODER}")


def _python(line: bytes) -> AnnotationSet | str:
    """What ``json`` makes of ``line``: the set, or the error's message."""
    try:
        return jsonl.set_from_dict(json.loads(line))
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        return f"error: {exc!r}"


def _agree(line: bytes) -> AnnotationSet | None:
    """The compiled decoder's set, after checking it against ``json``'s; None when it declined. With
    ``frame_layers_only`` it accepts the same lines, and gives the set's frame layers."""
    fast = decoder.decode(line)
    frames = decoder.decode(line, True)
    assert (frames is None) == (fast is None), line
    if fast is not None:
        assert fast == _python(line), line
        assert [type(v) for v in (fast.id, fast.lu_name, fast.frame_name)] == [int, str, str]
        assert frames == jsonl.frame_layers_of(fast), line
    return fast


def test_the_compiled_decoder_is_built_where_required():
    """``.ci/run`` sets PYFN_REQUIRE_COMPILED: a CI run that silently fell back to Python fails."""
    if os.environ.get("PYFN_REQUIRE_COMPILED"):
        assert decoder is not None, compiled.JSONL_DECODER
        assert jsonl._decode is decoder.decode


def test_pyfn_pure_python_leaves_every_line_to_json():
    code = "from pyfn.formats import jsonl; from pyfn.framenet import compiled; print(jsonl._decode, compiled.JSONL_DECODER)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYFN_PURE_PYTHON": "1"},
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("None pure Python (PYFN_PURE_PYTHON is set)")


@needs_decoder
def test_the_compiled_decoder_is_used_only_with_its_own_source(tmp_path):
    assert decoder.SOURCE_SHA256 == hashlib.sha256(compiled.JSONL_SOURCE.read_bytes()).hexdigest()
    args = ("pyfn.formats._cjsonl", "JSON-line decoder")
    assert compiled.load(compiled.JSONL_SOURCE, *args) == (decoder, "compiled")
    changed = tmp_path / "_cjsonl.pyx"
    changed.write_bytes(compiled.JSONL_SOURCE.read_bytes() + b"\n# changed\n")
    assert compiled.load(changed, *args) == (
        None, "pure Python (the compiled JSON-line decoder was built from another _cjsonl.pyx: reinstall pyfn)")


# Values as the model declares them; texts with what JSON escapes (short escapes, \u00XX) and what it
# does not (non-ASCII, non-BMP, lone surrogates); integers up to 18 digits (the decoder's own).
texts = st.text(st.characters(blacklist_categories=()), max_size=12) | st.sampled_from(
    ['"', "\\", "/", "\b\f\n\r\t", "\x00\x1f\x7f", "\u2028\x85", "\U0001f600", "\ud800", "é\\\"x"])
names = texts.filter(bool)
small = st.integers(-(10**18) + 1, 10**18 - 1)
ints = st.none() | small | st.sampled_from([0, -1, 10**17, -(10**17)])
labels = st.builds(Label, names, ints, ints, st.none() | texts, ints)
layers = st.builds(Layer, names, small, st.lists(labels, max_size=3).map(tuple))
sentences = st.builds(Sentence, small, texts, texts, ints, ints, ints, ints, ints, st.none() | texts,
                      st.lists(st.tuples(names, ints, ints), max_size=3).map(tuple))
sets = st.builds(AnnotationSet, small, sentences, texts, ints, names, ints, names, st.lists(layers, max_size=3).map(tuple),
                 texts)


_U_ESCAPED = re.compile("[\x00-\x07\x0b\x0e-\x1f]")
"""What ``json`` writes as ``\\u00XX``: the control characters without a short escape."""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


@needs_decoder
@settings(max_examples=400, deadline=None)
@given(sets)
def test_every_line_pyfn_writes_is_decoded_to_its_set(aset):
    """Every line :func:`~pyfn.formats.jsonl.dumps` writes of a set is decoded, to that set, unless a
    string needed a ``\\u`` escape (a control character other than the short escapes)."""
    line = jsonl.dumps(aset).encode("utf-8", "surrogatepass")
    fast = _agree(line)
    assert (fast is None) == any(_U_ESCAPED.search(text) for text in _strings(jsonl.set_to_dict(aset)))
    if fast is not None:
        assert fast == aset
        assert jsonl.loads(line) == aset and jsonl.loads(line.decode("utf-8", "surrogatepass")) == aset
    assert jsonl.fe_rows(line) == jsonl.fe_rows(json.loads(line))  # the decoder's, json's


@needs_decoder
@settings(max_examples=200, deadline=None)
@given(sets, st.integers(10**18, 10**30), st.sampled_from(["id", "start", "rank", "sent"]))
def test_integers_of_19_digits_and_more_are_left_to_json(aset, big, where):
    if where == "id":
        aset = AnnotationSet(big, *[getattr(aset, f) for f in aset.__slots__[1:]])
    elif where == "sent":
        aset = AnnotationSet(aset.id, Sentence(-big, *[getattr(aset.sentence, f) for f in Sentence.__slots__[1:]]),
                             *[getattr(aset, f) for f in aset.__slots__[2:]])
    else:
        layer = Layer("FE", big if where == "rank" else 1, (Label("X", big),) if where == "start" else ())
        aset = AnnotationSet(*[getattr(aset, f) for f in aset.__slots__[:7]], (layer,), aset.source)
    line = jsonl.dumps(aset).encode("utf-8", "surrogatepass")
    assert decoder.decode(line) is None
    assert jsonl.loads(line) == aset


def _edit(rng: random.Random, line: bytes) -> bytes:
    """``line`` with one to three bytes inserted, removed or replaced (JSON's own characters, a digit,
    a letter, a space, a control character, a byte of a broken UTF-8 sequence)."""
    data = bytearray(line)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        byte = rng.choice(b'{}[],:"\\-0159.eEnulltrx /\x01\x7f\xc3\xa9\xff')
        kind = rng.randrange(3)
        if kind == 0:
            data.insert(at, byte)
        elif at < len(data):
            if kind == 1:
                del data[at]
            else:
                data[at] = byte
    return bytes(data)


@needs_decoder
def test_edited_lines_are_decoded_as_json_reads_them_or_left_to_it():
    """Random edits of real lines: every line the decoder accepts, ``json`` reads to the same set;
    it accepts no line ``json`` refuses. Some edits keep the line in the layout (a changed digit or
    letter): they must be decoded, not all left to ``json``."""
    rng = random.Random(5)
    lines = [jsonl.dumps(s).encode() for s in _sample_sets()]
    accepted = refused_by_json = 0
    for _ in range(6000):
        line = _edit(rng, rng.choice(lines))
        fast = _agree(line)
        accepted += fast is not None
        if isinstance(_python(line), str):
            refused_by_json += 1
            assert fast is None, line
    assert accepted > 500 and refused_by_json > 4000, (accepted, refused_by_json)  # 985 and 4,988


@needs_decoder
@pytest.mark.parametrize("old, new, decoded", [
    (b'"id":', b'"id": ', False),  # whitespace json allows
    (b'"status":"', b'"status":"\\u00e9', False),  # a \u escape
    (b'"status":"', b'"status":"\\"\\\\\\/\\b\\f\\n\\r\\t', True),  # every short escape
    (b'"status":"', b'"status":"\\x', False),  # not an escape: json refuses it
    (b'"status":"', b'"status":"\t', False),  # a raw control character: json refuses it
    (b'"status":"', b'"status":"\xc3', False),  # broken UTF-8: json refuses it
    (b'"status":"', b'"status":"\xed\xa0\x80', True),  # a lone surrogate, as json decodes it
    (b'"lu_id":', b'"lu_id":-0', True),
    (b'"lu_id":', b'"lu_id":007', False),  # a leading zero: json refuses it
    (b'"lu_id":', b'"lu_id":1.', False),  # a float
    (b'"lu_id":', b'"lu_id":1e', False),
    (b'"lu_id":', b'"lu_id":true', False),  # json reads it, as True: left to it
    (b'{"id":', b'\xef\xbb\xbf{"id":', False),  # a BOM
    (b'"source":', b'"sauce":', False),  # another key
])
def test_crafted_lines(old, new, decoded):
    line = jsonl.dumps(_sample_sets()[0]).encode()
    if old == b'"lu_id":':  # replace the value, not only the key
        head, _, rest = line.partition(old)
        line = head + new + rest[rest.index(b","):]
    else:
        line = line.replace(old, new, 1)
    fast = _agree(line)
    assert (fast is not None) == decoded, line
    expected = _python(line)
    if isinstance(expected, str):
        with pytest.raises(PyfnError):
            jsonl.loads(line)
    else:
        assert jsonl.loads(line) == expected
        assert jsonl.loads(line, frame_layers_only=True) == jsonl.frame_layers_of(expected)  # json's too


@needs_decoder
def test_trailing_bytes_and_18_digits():
    line = jsonl.dumps(_sample_sets()[0]).encode()
    assert decoder.decode(line + b" ") is None and jsonl.loads(line + b" ") == _python(line)
    assert decoder.decode(line + b"}") is None
    rest = line[len(b'{"id":'):]
    for digits, decoded in ((b"9" * 18, True), (b"-" + b"9" * 18, True), (b"1" + b"0" * 18, False)):
        big = b'{"id":' + digits + rest[rest.index(b","):]
        fast = _agree(big)
        assert (fast is not None) == decoded
        assert jsonl.loads(big).id == int(digits)


@needs_decoder
def test_the_sets_of_a_sentence_share_its_object():
    first, second = [s for s in _sample_sets() if s.sentence == _sample_sets()[0].sentence][:2]
    a, b = (decoder.decode(jsonl.dumps(s).encode()) for s in (first, second))
    assert (a, b) == (first, second) and a.sentence is b.sentence
    other = next(s for s in _sample_sets() if s.sentence != first.sentence)
    assert decoder.decode(jsonl.dumps(other).encode()).sentence == other.sentence


@needs_decoder
def test_frame_layers_only_sentences_are_not_shared_with_whole_ones():
    """The decoder reuses the last sentence for the same bytes only when it was read the same way."""
    aset = next(s for s in _sample_sets() if s.sentence.pos and any(la.name == "PT" for la in s.layers))
    line = jsonl.dumps(aset).encode()
    frames = decoder.decode(line, True)
    assert frames.sentence.pos == () and frames.sentence.pos_layer is None
    assert [layer.name for layer in frames.layers] == [la.name for la in aset.layers if la.name in ("Target", "FE")]
    assert decoder.decode(line) == aset
    assert decoder.decode(line, True) == frames == jsonl.frame_layers_of(aset)


@needs_decoder
def test_every_line_of_fn15_is_decoded_to_what_json_reads(fn15_std):
    for split in ("train", "dev", "test"):
        lines = (fn15_std.dir / f"{split}.jsonl").read_bytes().splitlines()
        fast = [decoder.decode(line) for line in lines]
        assert None not in fast
        assert fast == [_python(line) for line in lines]
        assert [decoder.decode(line, True) for line in lines] == list(map(jsonl.frame_layers_of, fast))
        assert list(map(jsonl.fe_rows, lines)) == [jsonl.fe_rows(json.loads(line)) for line in lines]
