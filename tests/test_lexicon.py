"""Train-only lexicon and scorer lexicon (pyfn.train_lexicon) on a tiny hand-made release (and fn_train/'s
schema rules on the bundled sample)."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import NS, make_set

from pyfn.errors import PyfnError, UsageError
from pyfn.framenet import open_release
from pyfn.framenet.lexicon import read_frame_relations
from pyfn.train_lexicon import (
    RELEASE_LU_FRAMES,
    Kept,
    TrainInventory,
    ancestors,
    check_leaks,
    filter_frame_xml,
    frame_parents,
    generate,
    parse_xml,
    release_lu_frames,
    role_mappings,
    select_relations,
)
from pyfn.model import Frame, LexUnit

HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<?xml-stylesheet type="text/xsl" href="frame.xsl"?>\n'

FRAME_A = (
    HEAD
    + f"""<frame ID="1" name="A" xmlns="{NS}">
    <definition>&lt;def-root&gt;A frame.&lt;/def-root&gt;</definition>
    <FE coreType="Core" name="Actor" ID="11">
        <requiresFE name="Object" ID="12"/>
        <excludesFE name="Time" ID="13"/>
    </FE>
    <FE coreType="Core" name="Object" ID="12"/>
    <FE coreType="Peripheral" name="Time" ID="13"/>
    <FEcoreSet>
        <memberFE name="Actor" ID="11"/>
        <memberFE name="Time" ID="13"/>
    </FEcoreSet>
    <FEcoreSet>
        <memberFE name="Time" ID="13"/>
    </FEcoreSet>
    <FEcoreSet>
        <memberFE name="Actor" ID="11"/>
        <memberFE name="Object" ID="12"/>
    </FEcoreSet>
    <frameRelation type="Inherits from">
        <relatedFrame>C</relatedFrame>
    </frameRelation>
    <frameRelation type="Is Inherited by">
        <relatedFrame>B</relatedFrame>
        <relatedFrame>E</relatedFrame>
    </frameRelation>
    <lexUnit POS="V" name="run.v" ID="101">
        <sentenceCount annotated="1" total="2"/>
    </lexUnit>
    <lexUnit POS="V" name="gone.v" ID="102"/>
    <lexUnit POS="V" name="act.v" ID="103"/>
</frame>
"""
)

EXPECTED_A = f"""<?xml version='1.0' encoding='UTF-8' standalone='yes'?>
<?xml-stylesheet type="text/xsl" href="frame.xsl"?>
<frame xmlns="{NS}" ID="1" name="A">
    <definition>&lt;def-root&gt;A frame.&lt;/def-root&gt;</definition>
    <FE coreType="Core" name="Actor" ID="11">
        <requiresFE name="Object" ID="12"/>
    </FE>
    <FE coreType="Core" name="Object" ID="12"/>
    <FEcoreSet>
        <memberFE name="Actor" ID="11"/>
        <memberFE name="Object" ID="12"/>
    </FEcoreSet>
    <frameRelation type="Inherits from">
    </frameRelation>
    <frameRelation type="Is Inherited by">
        <relatedFrame>B</relatedFrame>
    </frameRelation>
    <lexUnit POS="V" name="run.v" ID="101">
        <sentenceCount annotated="1" total="2"/>
    </lexUnit>
    <lexUnit POS="V" name="act.v" ID="103"/>
</frame>
"""


def _frame(frame_id, name, fes, lus):
    body = "".join(f'    <FE coreType="{ct}" name="{fe}" ID="{frame_id}{i}"/>\n' for i, (fe, ct) in enumerate(fes))
    body += "".join(f'    <lexUnit POS="N" name="{lu}" ID="{frame_id}0{i}"/>\n' for i, lu in enumerate(lus))
    return HEAD + f'<frame ID="{frame_id}" name="{name}" xmlns="{NS}">\n{body}</frame>\n'


FRAMES = {
    "A": FRAME_A,
    "B": _frame(2, "B", [("Agent", "Core"), ("Thing", "Core"), ("Time", "Peripheral")], ["b.n", "b.v"]),
    "C": _frame(3, "C", [("Doer", "Core")], ["c.n"]),
    "D": _frame(4, "D", [("Doer", "Core"), ("Place", "Extra-Thematic")], ["run.v", "d.n"]),
    "E": _frame(5, "E", [("Actor", "Core")], ["e.n"]),
}


def _rel(rel_id, sub, sup, fes=()):
    inner = "".join(
        f'            <FERelation subID="0" supID="0" subFEName="{s}" superFEName="{p}" ID="{rel_id}{i}"/>\n'
        for i, (s, p) in enumerate(fes)
    )
    tag = f'        <frameRelation subID="0" supID="0" subFrameName="{sub}" superFrameName="{sup}" ID="{rel_id}"'
    return f"{tag}>\n{inner}        </frameRelation>\n" if fes else f"{tag}/>\n"


FR_RELATION = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<frameRelations XMLCreated="09/02/2010 10:46:28 PDT Thu" xmlns="{NS}">\n'
    '    <frameRelationType subFrameName="Child" superFrameName="Parent" name="Inheritance" ID="1">\n'
    + _rel(1, "B", "A", [("Agent", "Actor"), ("Thing", "Object"), ("Time", "Time")])
    + _rel(2, "A", "C")
    + _rel(3, "C", "D", [("Doer", "Doer")])
    + _rel(4, "E", "A", [("Actor", "Actor")])
    + "    </frameRelationType>\n"
    '    <frameRelationType subFrameName="Component" superFrameName="Complex" name="Subframe" ID="2">\n'
    + _rel(5, "B", "D", [("Agent", "Doer")])
    + "    </frameRelationType>\n"
    '    <frameRelationType subFrameName="Child" superFrameName="Parent" name="Using" ID="3">\n'
    + _rel(6, "D", "A")
    + "    </frameRelationType>\n"
    '    <frameRelationType subFrameName="ReferringEntry" superFrameName="MainEntry" name="See_also" ID="4">\n'
    "    </frameRelationType>\n"
    "</frameRelations>\n"
)

LU_INDEX = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<luIndex xmlns="{NS}">\n'
    "    <legend>\n    </legend>\n"
    '    <lu frameName="D" name="d.n" ID="401"/>\n'
    '    <lu frameName="A" name="run.v" ID="101"/>\n'
    '    <lu frameName="D" name="run.v" ID="400"/>\n'
    '    <lu frameName="C" name="c.n" ID="300"/>\n'
    '    <lu frameName="E" name="e.n" ID="500"/>\n'
    "</luIndex>\n"
)

FRAME_INDEX = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<frameIndex xmlns="{NS}">\n'
    + "".join(f'    <frame ID="{i}" name="{name}"/>\n' for i, name in enumerate(FRAMES, 1))
    + "</frameIndex>\n"
)

SEM_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<semTypes xmlns="{NS}">\n'
    '    <semType ID="1" name="Sentient" abbrev="Sent">\n        <definition>Alive.</definition>\n    </semType>\n'
    "</semTypes>\n"
)


@pytest.fixture()
def release(tmp_path):
    root = tmp_path / "fn"
    (root / "frame").mkdir(parents=True)
    for name, text in FRAMES.items():
        (root / "frame" / f"{name}.xml").write_text(text)
    (root / "frRelation.xml").write_text(FR_RELATION)
    (root / "luIndex.xml").write_text(LU_INDEX)
    (root / "frameIndex.xml").write_text(FRAME_INDEX)
    (root / "semTypes.xml").write_text(SEM_TYPES)
    (root / "README.txt").write_text("Release 1.5")
    return open_release(root)


TEXT = "one two three four"
TRAIN = [
    make_set(TEXT, [(4, 6)], [("Actor", 0, 2), ("Object", None, None)], set_id=1, frame="A", lu="run.v"),
    make_set(TEXT, [(4, 6)], [("Actor", 8, 12)], set_id=2, frame="A", lu="act.v"),
    make_set(TEXT, [(0, 2)], [("Agent", 4, 6)], set_id=3, frame="B", lu="b.v", rank2=[("Thing", 8, 12)]),
    make_set(TEXT, [(8, 12)], [("Doer", 0, 2)], set_id=4, frame="D", lu="run.v"),
    make_set(TEXT, [(14, 17)], [("X", 0, 2)], set_id=5, frame="Test35", lu="test.v"),
]


def _read(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


def test_text_files_exact_content(release, tmp_path):
    out = tmp_path / "out"
    report = generate(release, TRAIN, out)
    assert _read(out, "lu_frames.tsv") == "act.v\tA\nb.v\tB\nrun.v\tA\tD\ntest.v\tTest35\n"
    # Object is only null-instantiated: not an FE of frame_elements.tsv; Thing (rank 2) is.
    assert _read(out, "frame_elements.tsv") == "A\tActor\nB\tAgent\tThing\nD\tDoer\nTest35\tX\n"
    # default relation types: Inheritance and Subframe (pyfn 1.3 missed Subframe)
    assert _read(out, "frame_parents.csv") == "B,A,D\n"
    # A -> C is cut: C is not a train frame
    assert _read(out, "ancestors.csv") == "A\nB,A,D\nD\nTest35\n"
    # B.Time -> A.Time: Time is never labelled in train; A.Object (null-instantiated only) counts
    assert _read(out, "frame_parent_rolemappings.csv") == "B.Agent,A.Actor,D.Doer\nB.Thing,A.Object\n"
    assert report["lines"] == {
        "lu_frames.tsv": 4,
        "frame_elements.tsv": 4,
        "frame_parents.csv": 1,
        "ancestors.csv": 4,
        "frame_parent_rolemappings.csv": 2,
    }
    assert report["relation_types"] == ["Inheritance", "Subframe"]
    assert report["train"]["frames_without_frame_file"] == ["Test35"]
    assert report["train"]["fes_not_in_frame_file"] == ["Test35.X"]
    assert report["leak_check"]["passed"] is True
    json.dumps(report)


def test_with_coretype(release, tmp_path):
    generate(release, TRAIN, tmp_path, with_coretype=True)
    assert _read(tmp_path, "frame_elements.tsv") == (
        "A\tActor:Core\nB\tAgent:Core\tThing:Core\nD\tDoer:Core\nTest35\tX:unknown\n"
    )


@pytest.mark.parametrize(
    "relations, train_frames_only, expected",
    [
        (("Inheritance",), True, "A\nB,A\nD\nTest35\n"),
        (("Inheritance",), False, "A,D\nB,A,D\nD\nTest35\n"),  # through C, which is not written
        (("Inheritance", "Subframe"), False, "A,D\nB,A,D\nD\nTest35\n"),  # D once: de-duplicated
        (("Inheritance", "Using"), False, "A,D\nB,A,D\nD,A\nTest35\n"),  # cycle A -> C -> D -> A is cut
        ((), True, "A\nB\nD\nTest35\n"),
    ],
)
def test_ancestor_chains(release, tmp_path, relations, train_frames_only, expected):
    generate(release, TRAIN, tmp_path, relations=relations, train_frames_only=train_frames_only)
    assert _read(tmp_path, "ancestors.csv") == expected


def test_inheritance_only_is_pyfn13_hierarchy(release, tmp_path):
    generate(release, TRAIN, tmp_path, relations=("Inheritance",))
    assert _read(tmp_path, "frame_parents.csv") == "B,A\n"
    assert _read(tmp_path, "frame_parent_rolemappings.csv") == "B.Agent,A.Actor\nB.Thing,A.Object\n"


def test_pure_hierarchy_functions(release):
    rels = read_frame_relations(release.read("frRelation.xml"))
    chosen = select_relations(rels, ["Subframe", "Inheritance"], ["Inheritance", "Subframe", "Using"])
    assert [r.id for r in chosen] == [1, 2, 3, 4, 5]  # file order, whatever the order asked
    assert frame_parents(chosen, {"A", "B", "C", "D"}) == {"A": ["C"], "B": ["A", "D"], "C": ["D"]}
    assert ancestors(chosen, {"B", "A", "C", "D"}) == {"A": ["C", "D"], "B": ["A", "C", "D"], "C": ["D"], "D": []}
    assert role_mappings(chosen, {("C", "Doer"), ("D", "Doer")}) == {"C.Doer": ["D.Doer"]}


def test_unknown_relation_type_lists_the_known_ones(release, tmp_path):
    with pytest.raises(UsageError) as err:
        generate(release, TRAIN, tmp_path, relations=("Inheritance", "SubFrame"))
    message = str(err.value)
    assert "'SubFrame'" in message and "did you mean Subframe" in message
    assert "Inheritance, See_also, Subframe, Using" in message
    assert err.value.exit_code == 2
    assert not (tmp_path / "ancestors.csv").exists()


@pytest.mark.parametrize("frame, lu, file", [("Bad,frame", "x.v", "ancestors.csv"), ("A", "x\ty.v", "lu_frames.tsv")])
def test_separator_inside_a_field_is_refused(release, tmp_path, frame, lu, file):
    sets = [*TRAIN, make_set(TEXT, [(0, 2)], [], set_id=9, frame=frame, lu=lu)]
    with pytest.raises(PyfnError, match=f"{file}: refused a field containing"):
        generate(release, sets, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_fn_train_view_exact_content(release, tmp_path):
    report = generate(release, TRAIN, tmp_path)
    view = tmp_path / "fn_train"
    assert sorted(p.name for p in (view / "frame").iterdir()) == ["A.xml", "B.xml", "D.xml"]
    assert _read(view, "frame/A.xml") == EXPECTED_A
    assert _read(view, "frame/B.xml") == (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
        '<?xml-stylesheet type="text/xsl" href="frame.xsl"?>\n'
        f'<frame xmlns="{NS}" ID="2" name="B">\n'
        '    <FE coreType="Core" name="Agent" ID="20"/>\n'
        '    <FE coreType="Core" name="Thing" ID="21"/>\n'
        '    <lexUnit POS="N" name="b.v" ID="201"/>\n'
        "</frame>\n"
    )
    assert _read(view, "luIndex.xml") == (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
        f'<luIndex xmlns="{NS}">\n'
        "    <legend>\n    </legend>\n"
        '    <lu frameName="A" name="run.v" ID="101"/>\n'
        '    <lu frameName="D" name="run.v" ID="400"/>\n'
        "</luIndex>\n"
    )
    relations = _read(view, "frRelation.xml")
    assert relations == (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
        f'<frameRelations xmlns="{NS}" XMLCreated="09/02/2010 10:46:28 PDT Thu">\n'
        '    <frameRelationType subFrameName="Child" superFrameName="Parent" name="Inheritance" ID="1">\n'
        '        <frameRelation subID="0" supID="0" subFrameName="B" superFrameName="A" ID="1">\n'
        '            <FERelation subID="0" supID="0" subFEName="Agent" superFEName="Actor" ID="10"/>\n'
        '            <FERelation subID="0" supID="0" subFEName="Thing" superFEName="Object" ID="11"/>\n'
        "        </frameRelation>\n"
        "    </frameRelationType>\n"
        '    <frameRelationType subFrameName="Component" superFrameName="Complex" name="Subframe" ID="2">\n'
        + _rel(5, "B", "D", [("Agent", "Doer")])
        + "    </frameRelationType>\n"
        '    <frameRelationType subFrameName="Child" superFrameName="Parent" name="Using" ID="3">\n'
        + _rel(6, "D", "A")
        + "    </frameRelationType>\n"
        "</frameRelations>\n"  # See_also, without relations (in the release too), is dropped
    )
    assert _read(view, "frameIndex.xml") == (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
        f'<frameIndex xmlns="{NS}">\n'
        '    <frame ID="1" name="A"/>\n    <frame ID="2" name="B"/>\n    <frame ID="4" name="D"/>\n'
        "</frameIndex>\n"
    )
    assert (view / "semTypes.xml").read_bytes() == SEM_TYPES.encode()  # the release's, unchanged
    assert report["fn_train"] == {
        "frames": {"release": 5, "kept": 3, "left_out": 2},
        "lus": {"release": 9, "kept": 4, "left_out": 5},
        "fes": {"release": 10, "kept": 5, "left_out": 5},
        "core_sets": {"release": 3, "kept": 1, "left_out": 2},
        "frame_relation_types": {"release": 4, "kept": 3, "left_out": 1},
        "frame_relations": {"release": 6, "kept": 3, "left_out": 3},
        "fe_relations": {"release": 6, "kept": 3, "left_out": 3},
        "lu_index_entries": {"release": 5, "kept": 2, "left_out": 3},
        "frame_index_entries": {"release": 5, "kept": 3, "left_out": 2},
        "train_frames_without_fe": [],
    }
    assert "fn_train/semTypes.xml" in report["files"]


def test_fn_train_view_reads_like_framenet(release, tmp_path):
    """What Open-SESAME's dataio reads, with xml.etree: namespaced frame, FE, lexUnit, lu, frameRelation."""
    generate(release, TRAIN, tmp_path)
    view = tmp_path / "fn_train"
    ns = "{" + NS + "}"
    fes = {}
    for path in (view / "frame").iterdir():
        root = ET.parse(path).getroot()
        assert [f.attrib["name"] for f in root.iter(ns + "frame")] == [path.stem]
        fes[path.stem] = {fe.attrib["name"]: fe.attrib["coreType"] for fe in root.iter(ns + "FE")}
    assert fes == {
        "A": {"Actor": "Core", "Object": "Core"},
        "B": {"Agent": "Core", "Thing": "Core"},
        "D": {"Doer": "Core"},
    }
    lus = [
        (lu.attrib["name"], lu.attrib["frameName"]) for lu in ET.parse(view / "luIndex.xml").getroot().iter(ns + "lu")
    ]
    assert lus == [("run.v", "A"), ("run.v", "D")]
    inherit = [
        (r.attrib["subFrameName"], r.attrib["superFrameName"])
        for t in ET.parse(view / "frRelation.xml").getroot().iter(ns + "frameRelationType")
        if t.attrib["name"] == "Inheritance"
        for r in t.findall(ns + "frameRelation")
    ]
    assert inherit == [("B", "A")]


def test_core_set_left_with_one_member_is_dropped():
    """frame.xsd: an FEcoreSet has at least two memberFE. Sets keep their train members; fewer than two: dropped."""
    members = lambda *names: "".join(f'<memberFE name="{n}" ID="1"/>' for n in names)  # noqa: E731
    tree = parse_xml(
        f'<frame xmlns="{NS}" name="A"><FE name="Actor"/><FE name="Object"/><FE name="Time"/>'
        f"<FEcoreSet>{members('Actor', 'Object', 'Time')}</FEcoreSet>"
        f"<FEcoreSet>{members('Actor', 'Time')}</FEcoreSet>"
        f"<FEcoreSet>{members('Time', 'Actor', 'Object')}</FEcoreSet></frame>".encode(),
        "A.xml",
    )
    counts = {"lus": Kept(), "fes": Kept(), "core_sets": Kept()}
    filter_frame_xml(tree, TrainInventory.of(TRAIN), counts)  # train: A.Actor, A.Object (null-instantiated)
    ns = "{" + NS + "}"
    kept = [[m.get("name") for m in cs.iter(ns + "memberFE")] for cs in tree.getroot().iter(ns + "FEcoreSet")]
    assert kept == [["Actor", "Object"], ["Actor", "Object"]]
    assert counts["core_sets"].as_dict() == {"release": 3, "kept": 2, "left_out": 1}


@pytest.mark.parametrize("fe, kept", [("Ghost", False), ("Actor", True)])
def test_train_frame_without_train_fe_is_left_out_of_fn_train(release, tmp_path, fe, kept):
    """A train frame none of whose frame file's FEs train labels (E: Ghost is no FE of E.xml) would have
    no FE (frame.xsd wants one): fn_train/ leaves it out as it leaves out a frame absent from train
    (frame file, frameIndex and luIndex entries, relations, relatedFrame); the text files still list it."""
    sets = [*TRAIN, make_set(TEXT, [(0, 2)], [(fe, 4, 6)], set_id=6, frame="E", lu="e.n")]
    report = generate(release, sets, tmp_path)
    view = tmp_path / "fn_train"
    assert (view / "frame" / "E.xml").exists() is kept
    assert ('name="E"' in _read(view, "frameIndex.xml")) is kept
    assert ('<lu frameName="E" name="e.n" ID="500"/>' in _read(view, "luIndex.xml")) is kept
    assert ('subFrameName="E" superFrameName="A"' in _read(view, "frRelation.xml")) is kept
    assert ("<relatedFrame>E</relatedFrame>" in _read(view, "frame/A.xml")) is kept
    assert report["fn_train"]["train_frames_without_fe"] == ([] if kept else ["E"])
    assert report["fn_train"]["frames"] == {"release": 5, "kept": 3 + kept, "left_out": 2 - kept}
    assert "e.n\tE\n" in _read(tmp_path, "lu_frames.tsv") and f"E\t{fe}\n" in _read(tmp_path, "frame_elements.tsv")
    assert report["leak_check"]["passed"] is True
    if not kept:  # the rest of fn_train/ is what it is without E's set
        generate(release, TRAIN, tmp_path / "without")
        for path in sorted(view.rglob("*.xml")):
            assert path.read_bytes() == (tmp_path / "without" / "fn_train" / path.relative_to(view)).read_bytes()


def _schema_rule_breaks(view: Path) -> list[str]:
    """What FrameNet's schemas require of fn_train/ beyond well-formedness and that filtering could break:
    an FE in every frame, two members in a core set, a relation in a relation type; and the names that
    NLTK resolves: FEs of the same frame file, frames with a frame file."""
    ns = "{" + NS + "}"
    breaks: list[str] = []
    fes: dict[str, set[str]] = {}
    for path in sorted((view / "frame").iterdir()):
        root = ET.parse(path).getroot()
        fes[root.attrib["name"]] = {fe.attrib["name"] for fe in root.iter(ns + "FE")}
    for path in sorted((view / "frame").iterdir()):
        root = ET.parse(path).getroot()
        name = root.attrib["name"]
        if not fes[name]:
            breaks.append(f"{path.name}: no FE")
        for core_set in root.iter(ns + "FEcoreSet"):
            if len(core_set.findall(ns + "memberFE")) < 2:
                breaks.append(f"{path.name}: core set of fewer than two")
        for tag in ("memberFE", "requiresFE", "excludesFE"):
            breaks += [f"{path.name}: {tag} {e.attrib['name']}" for e in root.iter(ns + tag)
                       if e.attrib["name"] not in fes[name]]
        breaks += [f"{path.name}: relatedFrame {e.text}" for e in root.iter(ns + "relatedFrame") if e.text not in fes]
    for rel_type in ET.parse(view / "frRelation.xml").getroot().iter(ns + "frameRelationType"):
        relations = rel_type.findall(ns + "frameRelation")
        if not relations:
            breaks.append(f"frRelation.xml: {rel_type.attrib['name']} without relations")
        for rel in relations:
            sub, sup = rel.attrib["subFrameName"], rel.attrib["superFrameName"]
            for fer in rel.iter(ns + "FERelation"):
                if fer.attrib["subFEName"] not in fes.get(sub, ()) or fer.attrib["superFEName"] not in fes.get(sup, ()):
                    breaks.append(f"frRelation.xml: FE relation {fer.attrib['ID']}")
    return breaks


def test_sample_fn_train_keeps_the_schema_rules(tmp_path):
    """``pyfn generate --source sample``: fn_train/ breaks none of the schema rules that filtering could break;
    the sample's three train frames whose train sets label no FE (Clothing...) are left out; semTypes.xml is
    the sample's, unchanged, and listed in the manifest."""
    from pyfn.cli import main  # noqa: PLC0415
    from pyfn.resources import resource_path  # noqa: PLC0415

    assert main(["generate", "--source", "sample", "--target", str(tmp_path), "--quiet"]) == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    view = manifest["lexicon"]["fn_train"]
    assert _schema_rule_breaks(tmp_path / "fn_train") == []
    assert view["core_sets"] == {"release": 83, "kept": 10, "left_out": 73}
    assert view["frame_relation_types"] == {"release": 9, "kept": 8, "left_out": 1}
    assert view["train_frames_without_fe"] == ["Clothing", "Coming_to_believe", "Defend"]
    assert view["frames"]["kept"] == len(list((tmp_path / "fn_train" / "frame").iterdir())) == 142
    assert (tmp_path / "fn_train" / "semTypes.xml").read_bytes() == resource_path("sample", "semTypes.xml").read_bytes()
    assert "fn_train/semTypes.xml" in manifest["outputs"] and "fn_train/semTypes.xml" in manifest["lexicon"]["files"]


def test_leak_check_reads_no_name_in_sem_types():
    """semTypes.xml (the release's: semantic types are not train-specific) names no frame, LU or FE."""
    checked = check_leaks({"fn_train/semTypes.xml": SEM_TYPES.encode()}, TrainInventory.of(TRAIN))
    assert checked == {"passed": True, "frames_checked": 0, "lus_checked": 0, "fes_checked": 0}


def test_scorer_files_from_the_full_release(release, tmp_path):
    generate(release, TRAIN, tmp_path)
    assert _read(tmp_path, "frames.xml") == (
        "<?xml version='1.0' encoding='UTF-8'?>\n<frames>\n"
        '  <frame ID="1" name="A">\n    <fes>\n'
        '      <fe ID="11" name="Actor" abbrev="" coreType="Core"/>\n'
        '      <fe ID="12" name="Object" abbrev="" coreType="Core"/>\n'
        '      <fe ID="13" name="Time" abbrev="" coreType="Peripheral"/>\n'
        "    </fes>\n  </frame>\n"
        '  <frame ID="2" name="B">\n    <fes>\n'
        '      <fe ID="20" name="Agent" abbrev="" coreType="Core"/>\n'
        '      <fe ID="21" name="Thing" abbrev="" coreType="Core"/>\n'
        '      <fe ID="22" name="Time" abbrev="" coreType="Peripheral"/>\n'
        "    </fes>\n  </frame>\n"
        '  <frame ID="3" name="C">\n    <fes>\n'
        '      <fe ID="30" name="Doer" abbrev="" coreType="Core"/>\n'
        "    </fes>\n  </frame>\n"
        '  <frame ID="4" name="D">\n    <fes>\n'
        '      <fe ID="40" name="Doer" abbrev="" coreType="Core"/>\n'
        '      <fe ID="41" name="Place" abbrev="" coreType="Extra-Thematic"/>\n'
        "    </fes>\n  </frame>\n"
        '  <frame ID="5" name="E">\n    <fes>\n'
        '      <fe ID="50" name="Actor" abbrev="" coreType="Core"/>\n'
        "    </fes>\n  </frame>\n"
        "</frames>\n"
    )

    def fer(rel_id, i, sub, sup):
        return f'        <fe-relation subID="0" supID="0" subFEName="{sub}" superFEName="{sup}" ID="{rel_id}{i}"/>\n'

    def rel(rel_id, sub, sup, body=""):
        attrs = f'subID="0" supID="0" subFrameName="{sub}" superFrameName="{sup}" ID="{rel_id}"'
        return (
            f"      <frame-relation {attrs}>\n{body}      </frame-relation>\n"
            if body
            else f"      <frame-relation {attrs}/>\n"
        )

    assert _read(tmp_path, "frRelations.xml") == (
        "<?xml version='1.0' encoding='UTF-8'?>\n<frame-relations>\n"
        '  <frame-relation-type subFrameName="Child" superFrameName="Parent" name="Inheritance" ID="1">\n'
        "    <frame-relations>\n"
        + rel(1, "B", "A", fer(1, 0, "Agent", "Actor") + fer(1, 1, "Thing", "Object") + fer(1, 2, "Time", "Time"))
        + rel(2, "A", "C")
        + rel(3, "C", "D", fer(3, 0, "Doer", "Doer"))
        + rel(4, "E", "A", fer(4, 0, "Actor", "Actor"))
        + "    </frame-relations>\n  </frame-relation-type>\n"
        '  <frame-relation-type subFrameName="Component" superFrameName="Complex" name="Subframe" ID="2">\n'
        "    <frame-relations>\n"
        + rel(5, "B", "D", fer(5, 0, "Agent", "Doer"))
        + "    </frame-relations>\n  </frame-relation-type>\n"
        '  <frame-relation-type subFrameName="Child" superFrameName="Parent" name="Using" ID="3">\n'
        "    <frame-relations>\n" + rel(6, "D", "A") + "    </frame-relations>\n  </frame-relation-type>\n"
        '  <frame-relation-type subFrameName="ReferringEntry" superFrameName="MainEntry" name="See_also" ID="4">\n'
        "    <frame-relations/>\n  </frame-relation-type>\n"
        "</frame-relations>\n"
    )


def test_output_is_deterministic(release, tmp_path):
    first, second = tmp_path / "1", tmp_path / "2"
    report = generate(release, TRAIN, first)
    assert generate(release, list(reversed(TRAIN)), second) == report
    for name in report["files"]:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_the_inventory_read_from_json_lines_is_that_of_the_sets(release, tmp_path):
    from pyfn.formats import jsonl

    inventory = TrainInventory.of_rows(jsonl.fe_rows(jsonl.dumps(aset)) for aset in TRAIN)
    assert inventory == TrainInventory.of(TRAIN)
    assert inventory.annotation_sets == 5 and ("A", "Object") in inventory.fes - inventory.overt_fes
    assert ("B", "Thing") in inventory.overt_fes  # a rank-2 FE label counts
    first, second = tmp_path / "sets", tmp_path / "inventory"
    report = generate(release, TRAIN, first)
    assert generate(release, inventory, second) == report and report["train"]["annotation_sets"] == 5
    for name in report["files"]:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_leak_check_reads_outputs_back():
    inventory = TrainInventory.of(TRAIN)
    assert check_leaks({"ancestors.csv": b"A\nB,A,D\n", "lu_frames.tsv": b"run.v\tA\tD\n"}, inventory)["passed"]
    cases = {
        "ancestors.csv": b"A,C\n",
        "lu_frames.tsv": b"gone.v\tA\n",
        "frame_elements.tsv": b"A\tTime\n",
        "frame_parent_rolemappings.csv": b"B.Agent,A.Time\n",
        "fn_train/luIndex.xml": f'<luIndex xmlns="{NS}"><lu name="gone.v" frameName="A"/></luIndex>'.encode(),
        "fn_train/frame/A.xml": f'<frame xmlns="{NS}" name="A"><FEcoreSet><memberFE name="Time"/></FEcoreSet></frame>'.encode(),
        "fn_train/frRelation.xml": (
            f'<frameRelations xmlns="{NS}"><frameRelationType name="Inheritance">'
            '<frameRelation subFrameName="B" superFrameName="E"/></frameRelationType></frameRelations>'
        ).encode(),
    }
    for name, data in cases.items():
        with pytest.raises(PyfnError, match=f"leak check failed: 1 name.*{name}"):
            check_leaks({name: data}, inventory)


def test_stale_frame_file_is_refused(release, tmp_path):
    stale = tmp_path / "fn_train" / "frame" / "C.xml"
    stale.parent.mkdir(parents=True)
    stale.write_text("old run")
    with pytest.raises(PyfnError, match="C.xml"):
        generate(release, TRAIN, tmp_path)
    assert not (tmp_path / "ancestors.csv").exists()


def test_no_train_sets_is_an_error(release, tmp_path):
    with pytest.raises(PyfnError, match="no train annotation sets"):
        generate(release, [], tmp_path)


# ---------------------------------------------------------------- release_lu_frames.tsv (--release-lexicon)


def test_release_lexicon_lists_every_lu_of_the_frame_files(release, tmp_path):
    """run.v is in two frames (A, D); gone.v, c.n, d.n, e.n never occur in train and are listed all the same."""
    report = generate(release, TRAIN, tmp_path, release_lexicon=True)
    assert _read(tmp_path, RELEASE_LU_FRAMES) == (
        "act.v\tA\nb.n\tB\nb.v\tB\nc.n\tC\nd.n\tD\ne.n\tE\ngone.v\tA\nrun.v\tA\tD\n"
    )
    assert RELEASE_LU_FRAMES in report["files"]
    record = report["release_lexicon"]
    assert (record["lines"], record["ambiguous_lus"], record["lu_frame_pairs"]) == (8, 1, 9)
    assert record["train_lus_not_listed"] == ["test.v@Test35"]  # no frame file for Test35
    assert report["leak_check"]["passed"] is True  # release-derived: not read by the leak check
    assert _read(tmp_path, "lu_frames.tsv") == "act.v\tA\nb.v\tB\nrun.v\tA\tD\ntest.v\tTest35\n"
    json.dumps(report)


def test_release_lexicon_leaves_out_excluded_frames_and_lus(release, tmp_path):
    train = [s for s in TRAIN if s.frame_name != "D"]  # as a build with frame 4 (D) excluded gives it
    report = generate(release, train, tmp_path, release_lexicon=True, exclude_frames={4}, exclude_lus={102, 999})
    # frame D (id 4: run.v, d.n) and LU gone.v (id 102) left out; run.v keeps frame A only
    assert _read(tmp_path, RELEASE_LU_FRAMES) == "act.v\tA\nb.n\tB\nb.v\tB\nc.n\tC\ne.n\tE\nrun.v\tA\n"
    assert report["release_lexicon"]["excluded_frame_ids"] == [4]
    assert report["release_lexicon"]["excluded_lu_ids"] == [102, 999]


def test_release_lexicon_is_opt_in_and_changes_nothing_else(release, tmp_path):
    without, with_ = tmp_path / "without", tmp_path / "with"
    plain = generate(release, TRAIN, without)
    report = generate(release, TRAIN, with_, release_lexicon=True)
    assert not (without / RELEASE_LU_FRAMES).exists() and "release_lexicon" not in plain
    assert {k: v for k, v in report.items() if k != "release_lexicon"} == {
        **plain, "files": sorted([*plain["files"], RELEASE_LU_FRAMES])}
    for name in plain["files"]:
        assert (without / name).read_bytes() == (with_ / name).read_bytes(), name


def test_release_lu_frames_pure_function():
    lu = LexUnit
    frames = [
        Frame(2, "Zeta", (), (lu(20, "take.v", "V"), lu(21, "take.v", "V"), lu(22, "grab.v", "V"))),
        Frame(1, "Alpha", (), (lu(10, "take.v", "V"),)),
        Frame(3, "Gone", (), (lu(30, "take.v", "V"),)),
    ]
    assert release_lu_frames(frames) == {"grab.v": ["Zeta"], "take.v": ["Alpha", "Gone", "Zeta"]}
    assert release_lu_frames(frames, exclude_frames={3}, exclude_lus={22}) == {"take.v": ["Alpha", "Zeta"]}
    # an LU listed twice in a frame (FN 1.5: press.v in Attempt_suasion) is listed once; excluding one
    # of its two ids keeps the other
    assert release_lu_frames(frames, exclude_lus={20}) == {"grab.v": ["Zeta"], "take.v": ["Alpha", "Gone", "Zeta"]}


def test_leak_check_does_not_read_the_release_lexicon():
    inventory = TrainInventory.of(TRAIN)
    leaky = b"gone.v\tA\nc.n\tC\n"
    assert check_leaks({RELEASE_LU_FRAMES: leaky}, inventory)["lus_checked"] == 0
    with pytest.raises(PyfnError, match="leak check failed: 3 name"):
        check_leaks({"lu_frames.tsv": leaky}, inventory)


@pytest.mark.parametrize("fails", [False, True])
def test_the_frame_files_of_the_train_view_are_made_durable_by_one_sync(release, tmp_path, monkeypatch, fails):
    """``fn_train/`` is a FrameNet-layout folder (a file per frame): its files are not fsynced one by one
    but by one ``os.sync()`` once all are written (none when writing fails); the other files are
    fsynced each."""
    import os  # noqa: PLC0415

    from pyfn import fileio  # noqa: PLC0415

    fsynced: list[str] = []
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: (fsynced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd)))
    monkeypatch.setattr(fileio.os, "sync", lambda: synced.append(len(fsynced)))
    if fails:
        from pyfn import train_lexicon as lexicon  # noqa: PLC0415

        write_all = lexicon._write_all

        def failing(target, outputs):
            if any(name.startswith("fn_train/") for name in outputs):
                raise PyfnError("disk full")
            write_all(target, outputs)

        monkeypatch.setattr(lexicon, "_write_all", failing)
        with pytest.raises(PyfnError, match="disk full"):
            generate(release, TRAIN, tmp_path / "out")
        assert synced == []
        return
    out = tmp_path / "out"
    generate(release, TRAIN, out)
    assert list((out / "fn_train" / "frame").glob("*.xml")) and len(synced) == 1
    folders = {os.path.dirname(name) for name in fsynced}
    assert str(out) in folders and not folders & {str(out / "fn_train"), str(out / "fn_train" / "frame")}
