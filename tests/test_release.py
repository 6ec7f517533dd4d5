"""Release access: directory and zip, ICSI and NLTK layouts, version, safety."""

import zipfile
from pathlib import Path

import pytest
from conftest import fulltext_xml, make_release

from pyfn.errors import PyfnError
from pyfn.framenet import open_release
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.lexicon import read_frame, read_frame_relations, read_sem_types
from pyfn.resources import resource_path

SAMPLE = resource_path("sample")


def _zip_dir(folder: Path, out: Path, prefix: str) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, prefix + str(path.relative_to(folder)))
    return out


def test_sample_directory_release():
    release = open_release(SAMPLE)
    assert (release.kind, release.root, release.version) == ("dir", "", "1.5-sample")
    assert len(release.list("fulltext")) == 10
    assert len(release.list("frame")) == 181 and len(release.list("lu")) == 6
    assert release.read("fulltext/Miscellaneous__Hijack.xml").startswith(b"<?xml")


@pytest.mark.parametrize("prefix, layout", [("fndata-1.5/", "icsi"), ("framenet_v15/", "nltk")])
def test_zip_layouts_read_like_the_directory(tmp_path, prefix, layout):
    release = open_release(_zip_dir(SAMPLE, tmp_path / "fn.zip", prefix))
    assert (release.kind, release.root, release.layout) == ("zip", prefix, layout)
    assert release.list("fulltext") == open_release(SAMPLE).list("fulltext")
    name = "fulltext/SemAnno__Text1.xml"
    assert release.read(name) == (SAMPLE / name).read_bytes()


def test_version_from_nltk_folder_and_frrelation_date(tmp_path):
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as zf:
        zf.writestr("framenet_v17/fulltext/x.xml", "<x/>")
    assert open_release(tmp_path / "a.zip").version == "1.7"
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as zf:
        zf.writestr("fn/frRelation.xml", '<frameRelations XMLCreated="09/02/2010 10:46:28 PDT Thu"/>')
    assert open_release(tmp_path / "b.zip").version == "1.5"


def test_zip_that_is_not_framenet(tmp_path):
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as zf:
        zf.writestr("photos/cat.jpg", "meow")
    with pytest.raises(PyfnError, match=r"x.zip: not a FrameNet release"):
        open_release(tmp_path / "x.zip")


def test_file_that_is_not_a_zip(tmp_path):
    (tmp_path / "x.zip").write_text("hello")
    with pytest.raises(PyfnError, match="cannot open zip"):
        open_release(tmp_path / "x.zip")


def test_missing_source(tmp_path):
    with pytest.raises(PyfnError, match="no such file or directory"):
        open_release(tmp_path / "nope")


@pytest.mark.parametrize("member", ["../evil.xml", "/etc/passwd", "fn/../../x.xml"])
def test_zip_traversal_member_is_refused(tmp_path, member):
    with zipfile.ZipFile(tmp_path / "t.zip", "w") as zf:
        zf.writestr("fn/fulltext/a.xml", "<x/>")
        zf.writestr(member, "x")
    with pytest.raises(PyfnError, match="unsafe name"):
        open_release(tmp_path / "t.zip")


def test_zip_bomb_ratio_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "b.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("fn/fulltext/a.xml", b"\0" * 5_000_000)
    with pytest.raises(PyfnError, match="compression ratio"):
        open_release(tmp_path / "b.zip")


def test_paths_outside_the_release_are_refused():
    release = open_release(SAMPLE)
    for bad in ("../setup.cfg", "/etc/passwd", "fulltext/../../x"):
        with pytest.raises(PyfnError, match="outside the release"):
            release.read(bad)


XXE = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu"><sentence ID="1"><text>&x;</text></sentence></fullTextAnnotation>"""
LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu"><sentence ID="1"><text>&lol3;</text></sentence></fullTextAnnotation>"""


@pytest.mark.parametrize("data", [XXE, LAUGHS])
def test_entities_and_dtds_are_refused(data):
    with pytest.raises(PyfnError, match="x.xml: refused: the document declares a DTD or entities"):
        read_annotations(data, "fulltext/x.xml")


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty file"),
        (b'<fullTextAnnotation xmlns="urn:other"/>', "not FrameNet XML"),
        (b'<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu"><sentence', "malformed XML at line 1"),
        (b'<frame xmlns="http://framenet.icsi.berkeley.edu"/>', "neither <fullTextAnnotation> nor <lexUnit>"),
    ],
)
def test_bad_annotation_files(data, message):
    with pytest.raises(PyfnError, match=message):
        read_annotations(data, "fulltext/x.xml")


def test_sentence_without_text_is_a_counted_problem():
    data = b'<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu"><sentence ID="7"/></fullTextAnnotation>'
    result = read_annotations(data, "fulltext/x.xml")
    assert [(p.reason, p.where) for p in result.problems] == [("malformed_sentence", "fulltext/x.xml sentence 7")]


def test_lexicon_readers_on_the_sample():
    release = open_release(SAMPLE)
    frame = read_frame(release.read("frame/Arrest.xml"), "frame/Arrest.xml")
    assert frame.name == "Arrest" and frame.id > 0
    assert {fe.name: fe.core_type for fe in frame.fes}["Suspect"] == "Core"
    assert any(lu.name == "arrest.v" for lu in frame.lus)
    relations = read_frame_relations(release.read("frRelation.xml"))
    assert relations and all(r.type for r in relations)
    assert any(r.fe_relations for r in relations)
    types = read_sem_types(release.read("semTypes.xml"))
    assert any(t.super_ids for t in types) and len({t.id for t in types}) == len(types)


def test_exemplar_sets_take_lu_and_frame_from_the_root():
    release = open_release(SAMPLE)
    name = release.list("lu")[0]
    result = read_annotations(release.read(name), name)
    assert result.sets and not result.problems
    assert {(s.lu_name, s.frame_name, s.source) for s in result.sets} == {
        (result.sets[0].lu_name, result.sets[0].frame_name, "exemplar")
    }


def test_a_release_is_the_folder_given_one_inside_it_or_nltks_never_one_deeper(tmp_path):
    docs = {"C__D.xml": fulltext_xml([{"id": 1, "text": "Hi ."}])}
    make_release(tmp_path / "nltk_data" / "corpora" / "framenet_v15", docs)
    release = open_release(tmp_path / "nltk_data")  # NLTK's data folder
    assert (release.root, release.layout, release.version) == ("corpora/framenet_v15/", "nltk", "1.5")
    make_release(tmp_path / "repo" / "resources" / "sample", docs)  # pyfn's source tree holds the sample
    assert open_release(tmp_path / "repo" / "resources").root == "sample/"
    with pytest.raises(PyfnError, match=r"repo: not a FrameNet release \(looked for fulltext/, lu/, frame/ or "
                                        r"frRelation.xml in it, .*\); one lies deeper, in .*/repo/resources/sample: "
                                        r"pass that folder as the source"):
        open_release(tmp_path / "repo")
    with zipfile.ZipFile(tmp_path / "deep.zip", "w") as zf:
        zf.writestr("a/b/fulltext/x.xml", "<x/>")
    with pytest.raises(PyfnError, match=r"deep.zip: not a FrameNet release .*in a/b/ inside it"):
        open_release(tmp_path / "deep.zip")
