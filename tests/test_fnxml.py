"""``--to fnxml`` (pyfn.formats.fnxml) on a tiny hand-made release: layout, losses, reading a split folder
back, determinism, refusals. FN 1.5 itself (schemas, NLTK, round trips): tests/test_fnxml_fn15.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree
from conftest import NS, framenet_reader, fulltext_xml

from pyfn.convert import convert
from pyfn.errors import PyfnError, UsageError
from pyfn.formats import fnxml, jsonl
from pyfn.formats.base import Losses
from pyfn.model import AnnotationSet, Label, Layer, Sentence
from pyfn.splits.builder import BuildOptions

TRAIN_DOCS = ("C__One.xml", "C__Two.xml")
DEV_DOCS = ("LUCorpus-v0.3__ENRON-pearson-email-25jul02.xml", "Miscellaneous__Hijack.xml")
TEST_DOCS = ("Miscellaneous__SadatAssassination.xml", "PropBank__AetnaLifeAndCasualty.xml")
"""The sample's split (a README naming the pyfn sample of release 1.5): these dev and test documents."""
DATE = 'cDate="01/01/2010 00:00:00 PST Fri"'


def _frame(frame_id: int, name: str, fes: list[tuple[int, str]], lus: list[tuple[int, str]]) -> str:
    body = "".join(
        f'<FE {DATE} cBy="x" coreType="Core" abbrev="{fe[:3]}" fgColor="FFFFFF" bgColor="FF0000" name="{fe}" '
        f'ID="{fe_id}"><definition>{fe}.</definition></FE>'
        for fe_id, fe in fes
    )
    body += '<frameRelation type="Inherits from"/>'
    body += "".join(
        f'<lexUnit {DATE} cBy="x" lemmaID="{lu_id}" status="Created" POS="{lu[-1].upper()}" name="{lu}" ID="{lu_id}">'
        f'<definition>COD: {lu}.</definition><sentenceCount annotated="1" total="1"/>'
        f'<lexeme order="1" headword="false" breakBefore="false" POS="{lu[-1].upper()}" name="{lu[:-2]}"/></lexUnit>'
        for lu_id, lu in lus
    )
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<frame {DATE} name="{name}" ID="{frame_id}" xmlns="{NS}">'
            f"<definition>{name}.</definition>{body}</frame>\n")


FRAMES = {
    "Giving": (139, [(1001, "Donor"), (1002, "Recipient"), (1003, "Theme")], [(1, "give.v"), (2, "gift.n")]),
    "Arriving": (7, [(701, "Theme"), (702, "Goal")], [(3, "arrive.v")]),
    "Unused": (9, [(901, "Thing")], [(4, "unused.n")]),
}


def _set(set_id: int, target: tuple[int, int], fes=(), lu=("give.v", 1), frame=("Giving", 139), status="MANUAL"):
    return {"id": set_id, "lu": lu[0], "lu_id": lu[1], "frame": frame[0], "frame_id": frame[1], "target": [target],
            "fes": list(fes), "status": status}


def _pos(text: str) -> list[tuple[str, int, int]]:
    """One tag per token (``nn``)."""
    out, start = [], 0
    for word in text.split(" "):
        out.append(("nn", start, start + len(word) - 1))
        start += len(word) + 1
    return out


def _sentence(sent_id: int, text: str, *sets: dict, pos: bool = True) -> dict:
    return {"id": sent_id, "text": text, "sets": list(sets), **({"pos": _pos(text)} if pos else {})}


DOCS = {
    "C__One.xml": [
        _sentence(11, "Kim gave Lee a book .", _set(101, (4, 7), [("Donor", 0, 2), ("Theme", 13, 18)])),
        _sentence(12, "Lee arrived home .", _set(102, (4, 10), [("Theme", 0, 2)], ("arrive.v", 3), ("Arriving", 7)),
                  _set(103, (4, 10), [], ("arrive.v", 3), ("Ghost", 99))),  # no frame file: left out
    ],
    "C__Two.xml": [_sentence(21, "A gift .", _set(201, (2, 5), [("Theme", 2, 5)], ("gift.n", 2)), pos=False)],
    DEV_DOCS[0]: [_sentence(31, "Sam gave up .", _set(301, (4, 7), [("Donor", 0, 2)]))],
    DEV_DOCS[1]: [_sentence(41, "They arrived .", _set(401, (5, 11), [], ("arrive.v", 3), ("Arriving", 7)))],
    TEST_DOCS[0]: [_sentence(51, "Pat gave it away .", _set(501, (4, 7), [("Theme", 9, 10)]))],
    TEST_DOCS[1]: [_sentence(61, "It arrived .",
                             _set(601, (3, 9), [("Theme", 0, 1)], ("arrive.v", 3), ("Arriving", 7)))],
}

LU_FILE = f"""<?xml version="1.0" encoding="UTF-8"?>
<lexUnit status="Created" POS="V" name="give.v" ID="1" frame="Giving" frameID="139" xmlns="{NS}">
<header/><definition>COD: give.v.</definition><lexeme POS="V" name="give"/>
<subCorpus name="V-np">
<sentence sentNo="0" aPos="7" ID="900"><text>Ann gave Bob a pen .</text>
<annotationSet status="UNANN" ID="9000"><layer rank="1" name="BNC"><label end="2" start="0" name="NP0"/></layer>
</annotationSet>
<annotationSet status="MANUAL" ID="9001"><layer rank="1" name="Target"><label end="7" start="4" name="Target"/></layer>
<layer rank="1" name="FE"><label feID="1001" end="2" start="0" name="Donor"/></layer>
<layer rank="1" name="GF"><label end="2" start="0" name="Ext"/><label end="2" start="0" name="Ext"/></layer>
<layer rank="1" name="PT"><label end="2" start="0" name="NP"/></layer></annotationSet>
</sentence>
<sentence sentNo="0" aPos="9" ID="901"><text>Jo gave .</text>
<annotationSet status="UNANN" ID="9011"><layer rank="1" name="Target"><label end="6" start="3" name="Target"/></layer>
<layer rank="1" name="FE"/></annotationSet>
</sentence>
</subCorpus>
</lexUnit>
"""


def _index(entries: str, root: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NS}">{entries}</{root}>\n'


def make_tiny_release(root: Path) -> Path:
    """A release of seven documents (the sample's dev and test names), three frames, one LU file."""
    (root / "fulltext").mkdir(parents=True)
    (root / "frame").mkdir()
    (root / "lu").mkdir()
    for doc, sentences in DOCS.items():
        corpus, name = doc[:-4].split("__")
        (root / "fulltext" / doc).write_bytes(fulltext_xml(sentences, corpus, name))
    for name, (frame_id, fes, lus) in FRAMES.items():
        (root / "frame" / f"{name}.xml").write_text(_frame(frame_id, name, fes, lus))
    (root / "lu" / "lu1.xml").write_text(LU_FILE)
    corpora: dict[str, list[str]] = {}
    for number, doc in enumerate(DOCS):
        corpus, name = doc[:-4].split("__")
        corpora.setdefault(corpus, []).append(f'<document description="{name}" ID="{number}"/>')
    (root / "fulltextIndex.xml").write_text(_index("".join(
        f'<corpus name="{c}" ID="1">{"".join(docs)}</corpus>' for c, docs in corpora.items()), "fulltextIndex"))
    (root / "frameIndex.xml").write_text(_index("".join(
        f'<frame {DATE} name="{n}" ID="{f[0]}"/>' for n, f in FRAMES.items()), "frameIndex"))
    (root / "luIndex.xml").write_text(_index("<legend/>" + "".join(
        f'<lu status="Created" frameName="{n}" frameID="{f[0]}" name="{lu}" ID="{lu_id}"/>'
        for n, f in FRAMES.items() for lu_id, lu in f[2]), "luIndex"))
    (root / "frRelation.xml").write_text(_index(
        '<frameRelationType name="Inheritance" ID="1" superFrameName="Parent" subFrameName="Child">'
        '<frameRelation subID="7" supID="139" subFrameName="Arriving" superFrameName="Giving" ID="1">'
        '<FERelation subID="701" supID="1003" subFEName="Theme" superFEName="Theme" ID="1"/></frameRelation>'
        "</frameRelationType>", "frameRelations"))
    (root / "semTypes.xml").write_text(_index('<semType ID="1" name="Sentient" abbrev="sent"><definition>x</definition>'
                                              "</semType>", "semTypes"))
    (root / "README.txt").write_text("FrameNet Release 1.5 (pyfn-sample), made by tests/test_fnxml.py\n")
    return root


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return make_tiny_release(tmp_path_factory.mktemp("tiny") / "release")


@pytest.fixture(scope="module")
def written(tiny, tmp_path_factory) -> tuple[Path, dict]:
    """The tiny release as ``--to jsonl fnxml --with-exemplars`` (read only)."""
    target = tmp_path_factory.mktemp("tiny_out")
    manifest = convert(tiny, target, to=["jsonl", "fnxml"], options=BuildOptions(with_exemplars=True, jobs=1))
    return target, manifest


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_layout_of_each_split_folder(written):
    target, manifest = written
    assert sorted(_files(target / "train")) == [
        "README.txt", "frRelation.xml", "frame/Arriving.xml", "frame/Giving.xml", "frameIndex.xml",
        "fulltext/C__One.xml", "fulltext/C__Two.xml", "fulltextIndex.xml", "lu/lu1.xml", "lu/lu2.xml", "lu/lu3.xml",
        "luIndex.xml", "pyfn-split.json", "semTypes.xml",
    ]
    assert sorted(_files(target / "test")) == [
        "README.txt", "frRelation.xml", "frame/Arriving.xml", "frame/Giving.xml", "frame/Unused.xml",
        "frameIndex.xml", *(f"fulltext/{d}" for d in TEST_DOCS), "fulltextIndex.xml", "luIndex.xml",
        "pyfn-split.json", "semTypes.xml",
    ]
    assert _files(target / "dev")["frame/Unused.xml"] == _files(target / "test")["frame/Unused.xml"]
    marker = json.loads((target / "test" / "pyfn-split.json").read_text())
    assert marker == {"pyfn_split": "test", "pyfn_version": manifest["pyfn_version"], "release": "1.5-sample",
                      "signature": manifest["signature"], "lexicon": "release", "annotation_sets": 2, "sentences": 2}
    assert "FrameNet Release 1.5-sample, split test" in (target / "test" / "README.txt").read_text()
    assert all(f"{split}/{name}" in manifest["outputs"] for split in ("train", "test")
               for name in _files(target / split))


def test_train_folder_names_only_train(written):
    """Unused (release only) and the LU unused.n stay out of train/; its frames hold only train FEs."""
    target, _ = written
    files = _files(target / "train")
    assert b"Unused" not in b"".join(files.values())
    giving = files["frame/Giving.xml"].decode()
    assert 'name="Donor"' in giving and 'name="Theme"' in giving and 'name="Recipient"' not in giving
    head = files["lu/lu2.xml"].decode()  # gift.n: no exemplar, its file is its head only
    assert "<subCorpus" not in head and 'name="gift.n"' in head and 'name="Recipient"' not in head


def test_losses_are_counted(written):
    """Ghost (no frame file), the exemplar sentence with only an UNANN set, the repeated GF label, the full-text
    sentence without POS layer."""
    _, manifest = written
    assert manifest["losses"]["train"] == {"fnxml:duplicate_label": 1, "fnxml:frame_not_in_lexicon": 1,
                                           "fnxml:no_pos_layer": 1, "fnxml:unannotated_exemplar": 1}
    assert manifest["losses"]["dev"] == manifest["losses"]["test"] == {}
    assert manifest["units"]["losses"] == {
        "fnxml:duplicate_label": "labels", "fnxml:frame_not_in_lexicon": "annotation sets",
        "fnxml:no_pos_layer": "sentences", "fnxml:unannotated_exemplar": "annotation sets"}
    assert manifest["fnxml"]["splits"]["train"]["annotation_sets"] == manifest["splits"]["train"]["annotation_sets"] - 2
    assert manifest["fnxml"]["loss_reasons"] == fnxml.LOSSES


def test_split_folders_read_back(written, tmp_path):
    """dev and test read back byte for byte; train without its two left-out sets, with the GF label once and
    an empty PENN layer in the sentence that had none."""
    target, _ = written
    for split in ("dev", "test"):
        back = convert(target / split, tmp_path / split, to="jsonl")
        assert (tmp_path / split / f"{split}.jsonl").read_bytes() == (target / f"{split}.jsonl").read_bytes()
        assert back["splits"] == {split: {"sentences": 2, "annotation_sets": 2}} and back["warnings"] == []
        assert back["source"]["pyfn_split"]["pyfn_split"] == split
    convert(target / "train", tmp_path / "train", to="jsonl")
    before = {s.id: s for s in jsonl.read(target / "train.jsonl")}
    after = {s.id: s for s in jsonl.read(tmp_path / "train" / "train.jsonl")}
    assert sorted(set(before) - set(after)) == [103, 9011]
    assert sorted(i for i in after if after[i] != before[i]) == [201, 9001]
    assert after[201].sentence.pos_layer == "PENN" and before[201].sentence.pos_layer is None
    assert after[201].sentence.pos == before[201].sentence.pos == ()
    assert [len(lay.labels) for lay in after[9001].layers] == [1, 1, 1, 1]
    assert [len(lay.labels) for lay in before[9001].layers] == [1, 1, 2, 1]


def test_same_bytes_whatever_the_jobs_and_on_rerun(tiny, written, tmp_path):
    target, manifest = written
    again = convert(tiny, tmp_path / "two", to=["jsonl", "fnxml"], options=BuildOptions(with_exemplars=True, jobs=2))
    assert again["outputs"] == manifest["outputs"]
    assert _files(tmp_path / "two") == _files(target)


def test_nltk_reads_every_split_folder(written):
    target, _ = written
    counts = {}
    for split in ("train", "dev", "test"):
        with framenet_reader(target / split) as fn:
            sets = [a for s in fn.ft_sents() for a in s.annotationSet[1:]]
            exemplars = list(fn.exemplars()) if split == "train" else []
            counts[split] = (len(fn.docs()), len(sets), len(exemplars), len(fn.annotations(exemplars=split == "train")))
            assert {a.frame.name for a in sets} <= {"Giving", "Arriving"}
    assert counts == {"train": (2, 3, 1, 4), "dev": (2, 2, 0, 2), "test": (2, 2, 0, 2)}


def test_readme_nltk_recipe(written):
    """The Python block of the NLTK path (docs/howto/fnxml.md), run on the tiny release's folders."""
    import nltk  # noqa: PLC0415

    page = (Path(__file__).resolve().parent.parent / "docs" / "howto" / "fnxml.md").read_text(encoding="utf-8")
    section = page[page.index("The NLTK path, as frame-semantic-transformer loads FrameNet"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", section.index("```python\n") + 10)]
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nltk.data, "path", list(nltk.data.path))
        exec(code.replace('"out/', f'"{written[0]}/'), namespace)  # noqa: S102 - the documented code
    assert len(namespace["train_sets"]) == 4 and len(namespace["test_sets"]) == 2
    assert sorted(f.name for f in namespace["frames"]) == ["Arriving", "Giving"]


def test_split_folder_options_that_would_rebuild_it_are_refused(written, tmp_path):
    target, _ = written
    cases = [
        ({"options": BuildOptions(exclude_frames=frozenset({7}))}, "--exclude-\\*, --filter"),
        ({"options": BuildOptions(splits=("dev",))}, "it holds no dev split"),
        ({"to": "fnxml"}, "--to fnxml writes from a FrameNet release"),
        ({"to": "semeval"}, "--to semeval writes dev and test only"),
    ]
    for kwargs, message in cases:
        with pytest.raises(UsageError, match=message):
            convert(target / "train", tmp_path / "o", **kwargs)
    with pytest.raises(UsageError, match="holds pyfn's split folders train, dev, test .*: give one of them"):
        convert(target, tmp_path / "o")  # the conversion's folder, not a release
    assert not (tmp_path / "o").exists()


def test_a_changed_split_folder_is_read_with_a_warning(written, tmp_path):
    source = tmp_path / "test"
    shutil.copytree(written[0] / "test", source)
    (source / "fulltext" / TEST_DOCS[0]).unlink()
    manifest = convert(source, tmp_path / "o", to="jsonl")
    assert manifest["splits"]["test"]["annotation_sets"] == 1
    assert manifest["warnings"] == [f"{source} holds 1 annotation sets where its pyfn-split.json says 2: "
                                    "changed since pyfn wrote it"]


def test_a_file_left_in_a_folder_readers_read_whole_is_refused(tiny, tmp_path):
    stale = tmp_path / "out" / "train" / "lu" / "lu77.xml"
    stale.parent.mkdir(parents=True)
    stale.write_text("from another run")
    with pytest.raises(PyfnError, match=r"lu: holds 1 file\(s\) this run would not write \(lu77.xml\)"):
        convert(tiny, tmp_path / "out", to="fnxml", force=True)
    assert [p.name for p in (tmp_path / "out").rglob("*") if p.is_file()] == ["lu77.xml"]


def test_a_release_without_index_files_is_refused_before_any_work(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pyfn", "convert", "--source", "sample", "--to", "fnxml",
                           "--target", str(tmp_path / "o")], capture_output=True, text=True)
    assert proc.returncode == 1 and not (tmp_path / "o").exists()
    assert proc.stderr.splitlines()[-1].endswith(
        "--to fnxml needs the release's fulltextIndex.xml, frameIndex.xml, luIndex.xml, which it lacks (the bundled "
        "sample has no index files)")


def test_split_marker_names_a_bad_marker(tmp_path):
    assert fnxml.split_marker(tmp_path) is None
    (tmp_path / fnxml.MARKER).write_text('{"pyfn_split": "all"}')
    with pytest.raises(PyfnError, match="pyfn-split.json: not a pyfn split marker"):
        fnxml.split_marker(tmp_path)


# ---------------------------------------------------------------- the XML of one file


def _aset(set_id: int, status: str = "MANUAL", pos_layer: str | None = None, labels=()) -> AnnotationSet:
    sentence = Sentence(5, "  Ann gave .", "lu1.xml", sent_no=0, apos=3, pos_layer=pos_layer,
                        pos=(("NP0", 2, 4), ("NP0", 2, 4)) if pos_layer else ())
    layers = (Layer("Target", 1, (Label("Target", 6, 9),)), Layer("FE", 1, tuple(labels)))
    return AnnotationSet(set_id, sentence, status, 1, "give.v", 139, "Giving", layers, "exemplar")


def test_lu_file_keeps_text_ids_and_labels():
    head = (f'<lexUnit xmlns="{NS}" name="give.v" ID="1" frame="Giving" frameID="139" POS="V"><header/>'
            '<definition/><lexeme POS="V" name="give"/></lexUnit>').encode()
    sets = [_aset(8, labels=[Label("Donor", 2, 4, None, 1001), Label("Theme", None, None, "INI", 1003)]), _aset(7)]
    losses = Losses()
    data = fnxml.lu_file(head, sets, losses)
    from pyfn.framenet.annotations import read_annotations  # noqa: PLC0415

    back = read_annotations(data, "lu/lu1.xml").sets
    assert [s.id for s in back] == [7, 8] and sorted(back, key=lambda s: s.id) == sorted(sets, key=lambda s: s.id)
    assert b"<text>  Ann gave .</text>" in data and losses.counts == {}


def test_pos_layer_written_once_per_label_and_added_in_full_text():
    losses = Losses()
    fnxml.lu_file(f'<lexUnit xmlns="{NS}"/>'.encode(), [_aset(1, pos_layer="PENN")], losses)
    assert losses.counts == {"duplicate_label": 1}
    header = f'<header xmlns="{NS}"/>'.encode()
    data = fnxml.fulltext_file(header, [_aset(1)], losses)
    assert losses.counts == {"duplicate_label": 1, "no_pos_layer": 1}
    assert b'<annotationSet status="UNANN">\n            <layer rank="1" name="PENN"/>' in data


# The bytes lxml gives for the same document built as a tree (what pyfn wrote before the sentences were written
# as text, and the oracle of :func:`fnxml._with_children`).
_HOSTILE = ' a&b <c> "d" \'e\'\tf\r\ng \u00e9\u2028\x7f\x85 '


def _lxml_sentence(parent: etree._Element, sentence: Sentence, sets: list[AnnotationSet], fulltext: bool) -> None:
    def attrs(pairs):
        return {key: str(value) for key, value in pairs if value is not None}

    def labels(layer, rows):
        seen = set()
        for name, start, end, itype, fe_id in rows:
            if start is not None and end is not None and (name, start, end) in seen:
                continue
            seen.add((name, start, end))
            etree.SubElement(layer, f"{{{NS}}}label", attrs((("name", name), ("start", start), ("end", end),
                                                            ("itype", itype), ("feID", fe_id))))

    s = sentence
    elem = etree.SubElement(parent, f"{{{NS}}}sentence", attrs((("corpID", s.corpus_id), ("docID", s.doc_id),
                            ("sentNo", s.sent_no), ("paragNo", s.parag_no), ("aPos", s.apos), ("ID", s.id))))
    etree.SubElement(elem, f"{{{NS}}}text").text = s.text
    if s.pos_layer is not None or fulltext:
        pos = etree.SubElement(etree.SubElement(elem, f"{{{NS}}}annotationSet", status="UNANN"), f"{{{NS}}}layer",
                               rank="1", name=s.pos_layer or "PENN")
        labels(pos, [(name, start, end, None, None) for name, start, end in s.pos])
    for aset in sorted(sets, key=lambda a: a.id):
        ids = (("luID", aset.lu_id), ("luName", aset.lu_name), ("frameID", aset.frame_id),
               ("frameName", aset.frame_name)) if fulltext else ()
        set_elem = etree.SubElement(elem, f"{{{NS}}}annotationSet", attrs((*ids, ("status", aset.status),
                                                                           ("ID", aset.id))))
        for layer in aset.layers:
            labels(etree.SubElement(set_elem, f"{{{NS}}}layer", rank=str(layer.rank), name=layer.name),
                   [(lb.name, lb.start, lb.end, lb.itype, lb.fe_id) for lb in layer.labels])


def _lxml_bytes(root: etree._Element) -> bytes:
    etree.indent(root, space="    ")
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True) + b"\n"


def _hostile_sets() -> list[AnnotationSet]:
    odd = Sentence(9, _HOSTILE, "d.xml", doc_id=3, corpus_id=None, sent_no=1, parag_no=2, apos=None,
                   pos_layer="PENN", pos=(("N&<", 1, 1), ('"Q"', 3, 3), ("N&<", 1, 1), ("X", None, None)))
    blank = Sentence(7, "   ", "d.xml", sent_no=0)
    empty = Sentence(8, "", "d.xml", sent_no=0, parag_no=2)
    layers = (Layer("Target", 1, (Label("Target", 1, 1),)),
              Layer("FE", 2, (Label("A&B \"<x>\"\t\n", 1, 3, None, 12), Label("A&B \"<x>\"\t\n", 1, 3, None, 12),
                              Label("Gone", None, None, "INI", None))),
              Layer("GF", 1, ()))
    return [
        AnnotationSet(4, odd, "MANUAL", 1, "a&b.n", 2, "F<r>", layers, "exemplar"),
        AnnotationSet(3, odd, 'S"T', None, "a&b.n", 2, "F<r>", (), "exemplar"),
        AnnotationSet(5, blank, "MANUAL", 1, "a&b.n", 2, "F<r>", layers[:1], "exemplar"),
        AnnotationSet(6, empty, "UNANN", 1, "a&b.n", 2, "F<r>", layers[:1], "exemplar"),
    ]


@pytest.mark.parametrize("fulltext", [True, False])
def test_files_are_the_bytes_lxml_writes_for_the_same_tree(fulltext):
    sets = _hostile_sets()
    if fulltext:
        header = f'<header xmlns="{NS}"><corpus name="C&amp;D"><document ID="1" name="x"/></corpus></header>'
        data = fnxml.fulltext_file(header.encode(), sets, Losses())
        root = etree.Element(f"{{{NS}}}fullTextAnnotation", nsmap={None: NS})
        root.append(etree.fromstring(header))
        parent = root
    else:
        head = (f'<lexUnit xmlns="{NS}" name="a&amp;b.n" ID="1"><header><frame><FE name="A"/></frame></header>'
                '<definition>COD: x &lt; y</definition></lexUnit>')
        data = fnxml.lu_file(head.encode(), sets, Losses())
        root = etree.fromstring(head)
        parent = etree.SubElement(root, f"{{{NS}}}subCorpus", name=fnxml.SUBCORPUS)
    for sentence_id in (7, 8, 9):  # blank (no paragraph number) first, then by paragraph, sentence number
        group = [a for a in sets if a.sentence.id == sentence_id]
        _lxml_sentence(parent, group[0].sentence, group, fulltext)
    assert data == _lxml_bytes(root)
    assert b"&#13;" in data and b"&#10;" in data and b"&#9;" in data  # what the oracle escapes is there to compare


def test_a_head_without_children_and_a_file_without_sets():
    head = f'<lexUnit xmlns="{NS}" name="a.n" ID="1"/>'.encode()
    sets = _hostile_sets()[2:3]
    root = etree.fromstring(head)
    _lxml_sentence(etree.SubElement(root, f"{{{NS}}}subCorpus", name=fnxml.SUBCORPUS), sets[0].sentence, sets, False)
    assert fnxml.lu_file(head, sets, Losses()) == _lxml_bytes(root)
    assert fnxml.lu_file(head, [], Losses()) == _lxml_bytes(etree.fromstring(head))


@pytest.mark.parametrize("where", ["text", "label"])
def test_a_character_xml_cannot_hold_is_an_error_naming_it(where):
    aset = _aset(1, labels=[Label("Donor\x01" if where == "label" else "Donor", 2, 4)])
    if where == "text":
        aset = replace(aset, sentence=replace(aset.sentence, text="  Ann gave \x0b"))
    head = f'<lexUnit xmlns="{NS}" name="give.v" ID="1"><header/></lexUnit>'.encode()
    with pytest.raises(PyfnError, match=r"^sentence 5: (its text|attribute value 'Donor\\x01') holds '\\x"):
        fnxml.lu_file(head, [aset], Losses())


def test_a_file_that_cannot_be_written_is_named_and_not_left_behind(tmp_path):
    aset = _aset(1)
    line = jsonl.dumps(replace(aset, sentence=replace(aset.sentence, text="  Ann gave \x0b")))
    head = f'<lexUnit xmlns="{NS}" name="give.v" ID="1"><header/></lexUnit>'.encode()
    fnxml._init_worker(tmp_path, {}, {}, {1: head}, {1: [fnxml._placed(json.loads(line), line)]})
    with pytest.raises(PyfnError, match=rf"^{tmp_path}/lu/lu1.xml: sentence 5: its text holds '\\x0b'"):
        fnxml._write_one(("lu", 1))
    assert list(tmp_path.rglob("*")) == []
