"""JSONL is lossless: writing and reading back gives the same model."""

import functools
import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.errors import PyfnError
from pyfn.formats import jsonl
from pyfn.framenet import open_release
from pyfn.framenet.annotations import read_annotations
from pyfn.model import AnnotationSet, Label, Layer, Sentence
from pyfn.resources import resource_path


def test_round_trip_on_the_sample(tmp_path):
    release = open_release(resource_path("sample"))
    sets = [s for name in release.list("fulltext") for s in read_annotations(release.read(name), name).sets]
    path = tmp_path / "x.jsonl"
    path.write_text("".join(jsonl.dumps(s) + "\n" for s in sets), encoding="utf-8")
    assert list(jsonl.read(path)) == sets


ints = st.one_of(st.none(), st.integers(0, 500))
labels = st.builds(Label, st.text(min_size=1, max_size=8), ints, ints, st.sampled_from([None, "DNI", "INI"]), ints)
layers = st.builds(Layer, st.sampled_from(["Target", "FE", "PT", "GF"]), st.integers(1, 3), st.tuples(labels, labels))
sentences = st.builds(Sentence, st.integers(0, 10**7), st.text(max_size=40), st.text(min_size=1, max_size=10),
                      ints, ints, ints, ints, ints, st.sampled_from([None, "PENN"]),
                      st.lists(st.tuples(st.text(max_size=4), ints, ints), max_size=3).map(tuple))
sets = st.builds(AnnotationSet, st.integers(0, 10**7), sentences, st.sampled_from(["MANUAL", "UNANN"]), ints,
                 st.text(min_size=1), ints, st.text(min_size=1), st.lists(layers, max_size=4).map(tuple),
                 st.sampled_from(["fulltext", "exemplar"]))


@settings(max_examples=200, deadline=None)
@given(sets)
def test_round_trip_property(aset):
    assert jsonl.loads(jsonl.dumps(aset)) == aset


@settings(max_examples=200, deadline=None)
@given(sets)
def test_direct_encoder_writes_the_bytes_of_json(aset):
    assert jsonl.dumps(aset) == json.dumps(jsonl.set_to_dict(aset), ensure_ascii=False, separators=(",", ":"))


def test_values_of_other_types_go_through_json():
    (aset,) = [s for s in _sample_sets()[:1]]
    for odd in (replace(aset, id=True), replace(aset, layers=(replace(aset.layers[0], rank="2"),)),
                replace(aset, sentence=replace(aset.sentence, doc_id=1.5))):
        assert jsonl.dumps(odd) == json.dumps(jsonl.set_to_dict(odd), ensure_ascii=False, separators=(",", ":"))


@functools.cache
def _sample_sets() -> tuple:
    """The bundled sample's annotation sets, read once (frozen: share them freely)."""
    release = open_release(resource_path("sample"))
    return tuple(s for name in release.list("fulltext") for s in read_annotations(release.read(name), name).sets)


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "x.jsonl:3: invalid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"id": 1}', "missing field 'sentence'"),
    ],
)
def test_bad_lines_name_file_and_line(line, message):
    with pytest.raises(PyfnError, match=message):
        jsonl.loads(line, "x.jsonl:3")


def test_bad_offset_type(tmp_path):
    release = open_release(resource_path("sample"))
    name = release.list("fulltext")[0]
    line = jsonl.dumps(read_annotations(release.read(name), name).sets[0])
    broken = line.replace('["Target",', '["Target","x",', 1)
    path = tmp_path / "b.jsonl"
    path.write_text(line + "\n" + broken + "\n")
    with pytest.raises(PyfnError, match=r"b.jsonl:2: "):
        list(jsonl.read(path))


def test_an_id_shared_by_a_fulltext_and_an_exemplar_set_is_not_a_duplicate(tmp_path):
    """FrameNet numbers fulltext and exemplar sets apart: FN 1.5's FT+EX train has 1,114 IDs used by one
    set of each source, all kept by the published counts; a reader must keep both."""
    release = open_release(resource_path("sample"))
    first = read_annotations(release.read(release.list("fulltext")[0]), "x").sets[:2]
    exemplar = replace(first[1], id=first[0].id, source="exemplar")
    path = tmp_path / "train.jsonl"
    path.write_text("".join(jsonl.dumps(s) + "\n" for s in (first[0], exemplar)), encoding="utf-8")
    assert list(jsonl.read(path)) == [first[0], exemplar]
    path.write_text("".join(jsonl.dumps(s) + "\n" for s in (first[0], replace(exemplar, source="fulltext"))),
                    encoding="utf-8")
    with pytest.raises(PyfnError, match=rf":2: fulltext annotation set {first[0].id} already read at line 1"):
        list(jsonl.read(path))
