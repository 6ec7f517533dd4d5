"""pyfn.train_lexicon on the real FrameNet 1.5 release: FT train, frame 398 excluded (and pyfn 1.3's setting)."""

import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from conftest import framenet_reader, schema_failures
from lxml import etree

from pyfn.formats import jsonl
from pyfn.train_lexicon import generate, release_lu_frames
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.splits.definitions import standard_split

FN = "{http://framenet.icsi.berkeley.edu}"


def _splits(release, **options):
    result = build_splits(release, standard_split("1.5"), BuildOptions(**options))
    return {name: [jsonl.loads(line) for line in data.lines] for name, data in result.splits.items()}


@pytest.fixture(scope="module")
def lexicon(fn15_lexicon, fn15_sets):
    """``pyfn generate --exclude-frames 398`` (the session's, read only), the splits it was built from
    (the standard split, frame 398 excluded) and the report of ``pyfn.train_lexicon.generate`` in its manifest.
    ``test_pyfn13_hierarchy_counts`` calls ``generate`` itself."""
    return fn15_lexicon.dir, fn15_sets, fn15_lexicon.manifest["lexicon"]


def test_counts_train_versus_release(lexicon):
    _, splits, report = lexicon
    assert len(splits["train"]) == 16706
    assert report["train"] == {
        "annotation_sets": 16706,
        "frames": 659,
        "lus": 3252,
        "fes": 2982,
        "overt_fes": 2804,
        "frames_without_frame_file": [],
        "fes_not_in_frame_file": ["Growing_food.Name", "Removing.Frequency"],
    }
    view = report["fn_train"]
    # Growing_food's one train set labels Name, an FE its frame file lacks: no FE, so left out
    assert view["train_frames_without_fe"] == ["Growing_food"]
    assert view["frames"] == {"release": 1019, "kept": 658, "left_out": 361}
    # two frames hold two lexUnits with the same name (press.v in Attempt_suasion, ...): both kept
    assert view["lus"] == {"release": 11942, "kept": 3253, "left_out": 8689}
    assert view["fes"] == {"release": 9634, "kept": 2981, "left_out": 6653}
    assert view["core_sets"] == {"release": 340, "kept": 178, "left_out": 162}
    assert view["lu_index_entries"] == {"release": 11829, "kept": 3220, "left_out": 8609}
    assert view["frame_index_entries"] == {"release": 1019, "kept": 658, "left_out": 361}
    assert view["frame_relation_types"] == {"release": 9, "kept": 9, "left_out": 0}
    assert view["frame_relations"] == {"release": 1676, "kept": 818, "left_out": 858}
    assert view["fe_relations"] == {"release": 10020, "kept": 2166, "left_out": 7854}
    assert report["lines"] == {
        "lu_frames.tsv": 2807,
        "frame_elements.tsv": 659,
        "frame_parents.csv": 266,
        "ancestors.csv": 659,
        "frame_parent_rolemappings.csv": 777,
    }
    assert report["hierarchy"] == {"frame_relations_of_types": 734, "fe_relations_of_types": 4727}
    assert report["leak_check"]["passed"] is True
    assert len(report["files"]) == 5 + 2 + 658 + 4


def test_dev_test_only_frames_stay_out_of_parser_files(lexicon):
    target, splits, _ = lexicon
    train = {s.frame_name for s in splits["train"]}
    unseen = {s.frame_name for name in ("dev", "test") for s in splits[name]} - train
    assert len(unseen) == 46
    named: set[str] = set()
    for name in ("lu_frames.tsv", "frame_elements.tsv"):
        for line in (target / name).read_text().splitlines():
            fields = line.split("\t")
            named.update(fields[1:] if name == "lu_frames.tsv" else fields[:1])
    for name in ("frame_parents.csv", "ancestors.csv"):
        named.update(f for line in (target / name).read_text().splitlines() for f in line.split(","))
    for line in (target / "frame_parent_rolemappings.csv").read_text().splitlines():
        named.update(item.split(".")[0] for item in line.split(","))
    view = target / "fn_train"
    for path in (view / "frame").iterdir():
        root = ET.parse(path).getroot()
        named.add(root.attrib["name"])
        named.update(r.text for r in root.iter(FN + "relatedFrame"))
    named.update(lu.attrib["frameName"] for lu in ET.parse(view / "luIndex.xml").getroot().iter(FN + "lu"))
    named.update(f.attrib["name"] for f in ET.parse(view / "frameIndex.xml").getroot().iter(FN + "frame"))
    for rel in ET.parse(view / "frRelation.xml").getroot().iter(FN + "frameRelation"):
        named.update((rel.attrib["subFrameName"], rel.attrib["superFrameName"]))
    assert named == train
    assert not named & unseen


def test_scorer_files_cover_the_full_release(lexicon):
    target, _, report = lexicon
    frames = ET.parse(target / "frames.xml").getroot()
    assert len(frames.findall("frame")) == 1019 and len(frames.findall("frame/fes/fe")) == 9634
    core = {
        (f.attrib["name"], fe.attrib["name"]) for f in frames for fe in f.iter("fe") if fe.attrib["coreType"] == "Core"
    }
    assert len(core) == 2992 and ("Giving", "Donor") in core
    relations = ET.parse(target / "frRelations.xml").getroot()
    types = relations.findall("frame-relation-type")
    assert [t.attrib["name"] for t in types] == report["scorer"]["relation_types"]
    assert "Subframe" in report["scorer"]["relation_types"]
    assert len(relations.findall("frame-relation-type/frame-relations/frame-relation")) == 1676
    assert len(relations.findall("frame-relation-type/frame-relations/frame-relation/fe-relation")) == 10020
    # the scorer reads a type's first child element after a whitespace text node (FORMATS.md §5.2)
    assert all(t.text and not t.text.strip() and t[0].tag == "frame-relations" for t in types)


def test_pyfn13_hierarchy_counts(fn15_release, tmp_path):
    """pyfn 1.3 (Inheritance only, chains cut at non-train frames, Test35 kept): 255 / 660 lines.

    With frame 398 excluded (the other tests) ancestors.csv has 659 lines: no Test35.
    """
    with_test35 = _splits(fn15_release, splits=("train",))["train"]
    report = generate(fn15_release, with_test35, tmp_path, relations=("Inheritance",))
    assert report["train"]["frames_without_frame_file"] == ["Test35"]
    assert report["lines"]["frame_parents.csv"] == 255 and report["lines"]["ancestors.csv"] == 660
    assert report["lines"]["frame_parent_rolemappings.csv"] == 732
    assert "Test35\n" in (tmp_path / "ancestors.csv").read_text()


def test_release_lexicon_is_what_open_sesame_reads(fn15_release, fn15_frames, fn15_sets):
    """release_lu_frames.tsv (``--release-lexicon --exclude-frames 398``) is the LU -> frames map that
    Open-SESAME's dataio.read_frame_maps builds from every lexUnit of frame/*.xml (read here with
    xml.etree, as it does); every train, dev and test set's frame is among its LU's release frames."""
    table = release_lu_frames(fn15_frames.values(), exclude_frames={398})
    sesame: dict[str, set[str]] = {}
    for path in fn15_release.list("frame"):
        root = ET.fromstring(fn15_release.read(path))
        if root.attrib["ID"] != "398":
            for lu in root.iter(FN + "lexUnit"):
                sesame.setdefault(lu.attrib["name"], set()).add(root.attrib["name"])
    assert table == {lu: sorted(frames) for lu, frames in sorted(sesame.items())}
    assert len(table) == 9515 and sum(len(f) > 1 for f in table.values()) == 1646
    assert table["press.v"] == ["Attempt_suasion", "Cause_motion"]  # listed twice in Attempt_suasion: once here
    for split, sets in fn15_sets.items():
        assert all(s.frame_name in table.get(s.lu_name, ()) for s in sets), split


# ---------------------------------------------------------------- fn_train/ against FrameNet's schemas and NLTK

def test_fn_train_is_valid_against_the_release_schemas(lexicon, fn15_schemas, fn15_release):
    """Every file of fn_train/ validates against the release's XSD for its root element (frame.xsd,
    luIndex.xsd, frameIndex.xsd, frameRelations.xsd, semTypes.xsd), as the release's own files do."""
    target, _, _ = lexicon
    files = sorted((target / "fn_train").rglob("*.xml"))
    roots = Counter(etree.QName(etree.parse(str(p)).getroot()).localname for p in files)
    assert roots == {"frame": 658, "luIndex": 1, "frameIndex": 1, "frameRelations": 1, "semTypes": 1}
    assert schema_failures(fn15_schemas, [(str(p.relative_to(target)), p.read_bytes()) for p in files]) == {}
    # the schemas chosen so are the release's own: its files of the same roots pass them too
    release_files = ["luIndex.xml", "frameIndex.xml", "frRelation.xml", "semTypes.xml", "frame/Agriculture.xml",
                     "frame/Growing_food.xml"]
    assert schema_failures(fn15_schemas, [(name, fn15_release.read(name)) for name in release_files]) == {}


def test_core_sets_of_fn_train_have_two_members_seen_in_train(lexicon):
    """Agriculture's core set Food/Ground keeps Food alone in train: dropped (frame.xsd wants two members)."""
    target, _, _ = lexicon
    ns = "{http://framenet.icsi.berkeley.edu}"
    sizes = Counter()
    for path in (target / "fn_train" / "frame").iterdir():
        root = ET.parse(path).getroot()
        fes = {fe.attrib["name"] for fe in root.iter(ns + "FE")}
        for core_set in root.iter(ns + "FEcoreSet"):
            members = [m.attrib["name"] for m in core_set.iter(ns + "memberFE")]
            assert set(members) <= fes, path.name
            sizes[len(members)] += 1
    assert min(sizes) >= 2 and sum(sizes.values()) == 178
    assert not ET.parse(target / "fn_train" / "frame" / "Agriculture.xml").getroot().findall(ns + "FEcoreSet")


@pytest.fixture
def nltk_fn(lexicon):
    """A fresh NLTK ``FramenetCorpusReader`` over fn_train/ (it caches what it read: one per test)."""
    with framenet_reader(lexicon[0] / "fn_train") as reader:
        yield reader


def test_nltk_opens_every_frame_and_core_set_of_fn_train(nltk_fn, lexicon):
    names = nltk_fn.frame_ids_and_names()
    assert len(names) == 658 == len(list((lexicon[0] / "fn_train" / "frame").iterdir()))
    core_sets = sem_types = 0
    for frame_id, name in sorted(names.items()):
        frame = nltk_fn.frame(frame_id)
        assert frame.name == name and frame.FE
        for core_set in frame.FEcoreSets:
            assert len(core_set) >= 2 and all(frame.FE[fe.name] is fe for fe in core_set)
            core_sets += 1
        # semantic types resolve through fn_train/semTypes.xml
        assert all(st.name for st in frame.semTypes) and all(fe.semType is None or fe.semType.name
                                                              for fe in frame.FE.values())
        sem_types += bool(frame.semTypes) + sum(fe.semType is not None for fe in frame.FE.values())
    assert core_sets == 178 and sem_types > 0


def test_nltk_opens_every_lu_of_fn_train(nltk_fn):
    """Every LU of luIndex.xml by id (LUs of status Problem, absent from it, NLTK skips as in the release)."""
    names = nltk_fn.lu_ids_and_names()
    assert len(names) == 3220
    for lu_id, name in sorted(names.items()):
        lu = nltk_fn.lu(lu_id)  # the LU of its frame file (through frameIndex.xml), not the bare index entry
        assert (lu.name, lu.ID, lu._type) == (name, lu_id, "lu") and lu.frame.lexUnit[name].name == name


def test_nltk_frames_by_lemma_on_fn_train(nltk_fn, lexicon):
    assert len(nltk_fn.frames_by_lemma(r".")) == 658
    lines = dict(line.split("\t", 1) for line in (lexicon[0] / "lu_frames.tsv").read_text().splitlines())
    assert lines["raise.v"] == "Causation\tCause_change_of_position_on_a_scale\tGrowing_food"
    found = sorted(f.name for f in nltk_fn.frames_by_lemma(r"^raise\.v$"))
    assert found == ["Causation", "Cause_change_of_position_on_a_scale"]  # Growing_food is left out


def test_nltk_opens_every_fe_relation_of_fn_train(nltk_fn):
    relations = nltk_fn.fe_relations()
    assert len(relations) == 2166
    for relation in relations:
        assert relation.superFE.name == relation.superFEName and relation.subFE.name == relation.subFEName
        assert relation.superFE.frame is relation.superFrame and relation.subFE.frame is relation.subFrame
