"""The split builder's records (:func:`pyfn.splits.parsed.parse_file`) equal those made from the object
reader (:func:`pyfn.framenet.annotations.read_annotations`, which pyfn.load and the fnxml reader use):
same sets, ids, filter bits, hashes' parts, JSON lines, problems, messages and ledger reasons, for the
bundled sample, every hostile-input fixture, random edits of the valid fixtures, hand-made edge cases
and every fulltext and lu file of FN 1.5.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyfn.errors import PyfnError
from pyfn.formats import jsonl
from pyfn.framenet import open_release
from pyfn.framenet.annotations import read_annotations
from pyfn.resources import resource_path
from pyfn.splits import parsed
from pyfn.splits.filters import FILTERS, SetView
from pyfn.splits.hashing import annoset_hash, order_key, sentence_hash, spans_of
from pyfn.splits.validity import invalid_reason

from test_fuzz_readers import EDITS, TOKENS, _apply

MALFORMED = Path(__file__).resolve().parent / "malformed"
CASES = json.loads((MALFORMED / "cases.json").read_text(encoding="utf-8"))["cases"]
FNXML = [case for case in CASES if case["reader"] in ("fulltext", "lu")]
_WHERE = re.compile(r" sentence (-?\d+) annotationSet (-?\d+)$")


def _from_objects(data: bytes, relpath: str) -> parsed.ParsedFile:
    """The record as the object reader gives it: its sets, validity, filters and JSON lines."""
    try:
        result = read_annotations(data, relpath)
    except PyfnError as exc:
        return parsed.malformed(relpath, str(exc))
    removed: Counter = Counter(p.reason for p in result.problems)
    removed.update(result.not_annotation_sets)
    dropped = [(int(i) if i is not None and i.lstrip("-").isdigit() else None, sent, reason)
               for i, sent, reason in result.not_annotation_set_ids]
    dropped.extend((int(m[2]), int(m[1]), p.reason) for p in result.problems
                   if p.reason == "malformed_annotation_set" and (m := _WHERE.search(p.where)))
    columns: tuple[list, ...] = tuple([] for _ in range(parsed.COLUMNS))
    for aset in result.sets:
        reason = invalid_reason(aset)
        if reason is not None:
            removed[reason] += 1
            dropped.append((aset.id, aset.sentence.id, reason))
            continue
        mask = sum(parsed.FILTER_BITS[name] for name, f in FILTERS.items() if f.removes(SetView.of(aset)))
        text = aset.sentence.text
        row = (aset.id, aset.sentence.id, aset.frame_id, aset.lu_id, mask, text.rstrip().encode(), sentence_hash(text),
               order_key(aset), annoset_hash(aset), aset.lu_name, aset.frame_name, jsonl.dumps(aset).encode())
        for column, value in zip(columns, row):
            column.append(value)
    return parsed.ParsedFile(relpath, result.sha256, result.sentences,
                             [(p.reason, p.where, p.message) for p in result.problems], sorted(removed.items()),
                             columns, dropped)


def _outcome(make, data: bytes, relpath: str):
    try:
        return make(data, relpath)
    except Exception as exc:  # noqa: BLE001 - both paths must fail alike
        return type(exc), str(exc)


def _same(data: bytes, relpath: str) -> parsed.ParsedFile | tuple:
    record = _outcome(parsed.parse_file, data, relpath)
    assert record == _outcome(_from_objects, data, relpath), relpath
    return record


def test_the_sample():
    release = open_release(resource_path("sample"))
    relpaths = release.list("fulltext") + release.list("lu")
    records = [_same(release.read(relpath), relpath) for relpath in relpaths]
    assert sum(len(r.sets[0]) for r in records) > 0  # sets were compared, not only problems
    assert relpaths


@pytest.mark.parametrize("case", FNXML, ids=[case["id"] for case in FNXML])
def test_hostile_fixtures(case):
    path = MALFORMED / case["files"]["xml"]
    _same(path.read_bytes(), f"{case['reader']}/{path.name}")


@pytest.mark.parametrize("reader", ["fulltext", "lu"])
def test_random_edits_of_the_valid_fixtures(reader):
    path = MALFORMED / next(c for c in FNXML if c["id"] == f"{reader}-valid")["files"]["xml"]
    original = path.read_bytes()

    @settings(max_examples=int(os.environ.get("PYFN_FUZZ_EXAMPLES", 150)), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(edits=EDITS)
    def check(edits):
        _same(_apply(original, edits), f"{reader}/{path.name}")

    check()


def _document(body: str, root: str = "fullTextAnnotation", attrs: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><{root} xmlns="http://framenet.icsi.berkeley.edu"{attrs}>'
            f"{body}</{root}>").encode()


def _sentence(body: str, attrs: str = 'ID="1"', text: str = "Tom saw it .") -> str:
    return f"<sentence {attrs}><text>{text}</text>{body}</sentence>"


def _set(layers: str, attrs: str = 'ID="7" luID="3" luName="see.v" frameID="5" frameName="Perception"') -> str:
    return f"<annotationSet {attrs}>{layers}</annotationSet>"


TARGET = '<layer name="Target"><label start="4" end="6" name="Target"/></layer>'
FE = '<layer name="FE" rank="1"><label start="0" end="2" name="Perceiver" feID="9"/></layer>'
EDGE = {
    "rank_not_an_integer": _sentence(_set(TARGET + '<layer name="FE" rank="x"/>')),
    "rank_zero_and_two": _sentence(_set(TARGET + FE + FE.replace('rank="1"', 'rank="0"')
                                       + FE.replace('rank="1"', 'rank="2"'))),
    "offsets_int_accepts": _sentence(_set(TARGET.replace('"4"', '" 4"') + FE.replace('"0"', '"+0"')
                                          .replace('"2"', '"\u0662"').replace('"9"', '"0_9"'))),
    "fe_id_bad": _sentence(_set(TARGET + FE.replace('"9"', '"nine"'))),
    "pos_bad_then_good": _sentence(
        _set('<layer name="PENN"><label start="a" end="1" name="nn"/></layer>', 'ID="1"')
        + _set('<layer name="PENN"><label start="0" end="2" name="nnp"/><label name="x"/></layer>', 'ID="2"')
        + _set(TARGET + FE)),
    "pos_kept_from_a_malformed_set": _sentence(
        _set('<layer name="PENN"><label start="0" end="2" name="nnp"/></layer>' + TARGET
             + '<layer name="FE"><label start="q" name="A"/></layer>')
        + _set(TARGET + FE, 'ID="8" luName="a" frameName="b"')),
    "bad_doc_id_after_bad_set": _sentence(_set(TARGET + '<layer name="GF"><label end="z" name="Ext"/></layer>'),
                                          attrs='ID="1" docID="d"'),
    "duplicate_sentence_text": _sentence(_set(TARGET)) + _sentence(_set(TARGET, 'ID="8" luName="a" frameName="b"'),
                                                                     text="Tom saw it too ."),
    "duplicate_set": _sentence(_set(TARGET) + _set(TARGET)),
    "no_target_layers": _sentence(_set(FE) + _set("", 'ID="8" frameName="b"') + _set("", 'ID="x" luName="a"')
                                  + _set('<layer name="FE"/>', 'ID="9"')),
    "empty_and_unoffset_targets": _sentence(_set('<layer name="Target"/>' + TARGET)
                                            + _set('<layer name="Target"><label name="Target" start="4"/></layer>',
                                                   'ID="x8" luName="a" frameName="b"')),
    "second_target_layer_unoffset": _sentence(_set(TARGET + '<layer name="Target" rank="2"><label name="T" end="3"/>'
                                                   '</layer>')),
    "invalid_kinds": _sentence(_set(TARGET + FE.replace('"2"', '"30"'))) + _sentence(
        _set(TARGET + FE.replace('"0"', '"3"'), 'ID="8" luName="a" frameName="b"'), 'ID="2"') + _sentence(
        _set(TARGET + FE.replace('start="0" end="2"', 'start="2" end="0"'), 'ID="9" luName="a" frameName="b"'),
        'ID="3"') + _sentence(_set(TARGET + FE.replace('"0"', '"-1"'), 'ID="10" luName="a" frameName="b"'), 'ID="4"'),
    "fulltext_ids_bad": _sentence(_set(TARGET, 'ID="7" luID="x" luName="a" frameName="b"')
                                  + _set(TARGET, 'ID="8" frameID="1.5" luName="a" frameName="b"')
                                  + _set(TARGET, 'luName="a" frameName="b"')
                                  + _set(TARGET, 'ID="0x9" luName="a" frameName="b"')),
    "filters": _sentence(_set(TARGET.replace("</layer>", '<label start="9" end="9" name="Target"/></layer>')
                              + FE + FE.replace('"Perceiver"', '"Perceiver"').replace('"0"', '"1"')
                              + '<layer name="FE" rank="2"><label start="0" end="2" name="Perceiver"/>'
                              '<label start="8" end="8" name="Perceiver"/></layer>'), text="Tom saw it\u00a0.  "),
    "null_instantiations": _sentence(_set(TARGET + '<layer name="FE"><label name="Ground" itype="INI" feID="3"/>'
                                          '<label name="Figure" itype="DNI"/></layer>')),
    "entities_and_cdata": _sentence(_set(TARGET.replace('name="Target"/>', 'name="T&amp;&#233;&quot;"/>')),
                                    text="T<![CDATA[om]]> &lt;saw&gt; it \u2028 ."),
    "nested_sentence": _sentence(_sentence(_set(TARGET), 'ID="2"') + _set(TARGET, 'ID="9" luName="a" frameName="b"')),
    "processing_instruction": _sentence(_set("<?pi x?>" + TARGET.replace("<label", "<?pi y?><label") + FE)),
    "sentence_id_bad": _sentence(_set(TARGET), attrs='ID="one"') + _sentence(_set(TARGET), attrs='docID="1"'),
    "no_text": "<sentence ID='4'><annotationSet/></sentence>",
    # the compiled reader writes each line; a value it cannot write (a POS offset beyond 64 bits, a
    # 19-digit ID) leaves the line to the Python encoder
    "sentence_json_escapes": _sentence(_set('<layer name="PENN"><label start="0" end="2" name="n&quot;\\"/></layer>'
                                            + TARGET + FE), attrs='ID="1" docID="5" corpID="-6" sentNo="0" paragNo="8" '
                                            'aPos="9"', text='Tom saw it "\\&#9;&#13;\x7f\u2028\U0001F600 .'),
    "pos_beyond_64_bits": _sentence(_set('<layer name="PENN"><label start="99999999999999999999" end="2" name="nn"/>'
                                         '</layer>' + TARGET + FE)),
    "ids_of_19_digits": _sentence(_set(TARGET + FE, 'ID="7" luID="9999999999999999999" luName="see.v" frameID="5" '
                                       'frameName="Perception"'), attrs='ID="1" docID="9999999999999999999"'),
}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases(name):
    record = _same(_document(EDGE[name]), "fulltext/edge.xml")
    _same(_document(EDGE[name], "lexUnit", ' name="see.v" frame="Perception" ID="-3" frameID="x5"'), "lu/lu3.xml")
    assert isinstance(record, parsed.ParsedFile)


def test_a_lexunit_id_that_int_refuses_is_none():
    """A superscript digit passes ``str.isdigit`` but not ``int``: the ID is read as None, as any ID that
    is not an integer (it used to escape as a ValueError)."""
    record = _same(_document(EDGE["filters"], "lexUnit", ' name="a" frame="b" ID="\u00b2" frameID="4"'), "lu/lu3.xml")
    assert isinstance(record, parsed.ParsedFile)
    assert record.sets[3] == [None] and record.sets[2] == [4]


@pytest.mark.parametrize("token", TOKENS[:20])
def test_tokens_inserted_in_a_label(token):
    data = _document(EDGE["filters"])
    at = data.index(b'name="Perceiver"')
    _same(data[:at] + token + data[at:], "fulltext/edge.xml")


LU_STRIDE = 8
"""Every fulltext file is compared, and every 8th lu file in name order (about 1,300 files, 20k sets): the
whole release costs a minute of the test suite's 2-core budget twice over (both readers)."""


def test_fn15_annotation_files(fn15):
    with zipfile.ZipFile(fn15) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".xml") and n.split("/")[-2] in ("fulltext", "lu"))
        lus = [n for n in names if n.split("/")[-2] == "lu"]
        picked = [n for n in names if n.split("/")[-2] == "fulltext"] + lus[::LU_STRIDE]
        assert len(lus) > 10_000 and len(picked) > 1_300
        sets = 0
        for name in picked:
            record = _same(archive.read(name), name.split("/", 1)[1])
            sets += len(record.sets[0])
    assert sets > 35_000


@pytest.mark.parametrize("spans, lu, frame", [("5#16", "see.v", "Perception"), ("", "a#b.n", "F#1"),
                                               ("0#0#3#4", "#", "#")])
def test_spans_recovered_from_an_order_key(spans, lu, frame):
    assert spans_of(f"{spans}#{lu}#{frame}", lu, frame) == spans
