"""Every count of a manifest says what it counts (issue 15: normalized_space counts sentences, not sets)."""

import dataclasses
import json
from pathlib import Path

from conftest import make_set

from pyfn.cli import main
from pyfn.convert import convert
from pyfn.formats import jsonl
from pyfn.resources import resource_path
from pyfn.units import by_reason, describe, manifest_units, unit_of

CASES = Path(__file__).parent / "malformed" / "cases.json"


def test_each_reason_has_its_unit():
    assert unit_of("normalized_space") == unit_of("semafor:normalized_space") == "sentences"
    assert unit_of("bios:partial_token_fe") == unit_of("partial_token_target") == "labels"
    assert unit_of("bios:overlapping_fes") == unit_of("invalid:whitespace_boundary") == "annotation sets"
    assert unit_of("duplicate") == unit_of("overlap:test") == unit_of("filter:no_fes") == "annotation sets"
    assert unit_of("malformed_file") == unit_of("bios:empty_split") == "files"
    assert unit_of("semafor:field_count") == "lines" and unit_of("bad_tag") == "blocks"
    assert unit_of("no_such_reason") == "unknown"


def test_every_reason_the_readers_count_has_a_known_unit():
    cases = json.loads(CASES.read_text())["cases"]
    reasons = {r for case in cases for key in ("skipped", "removed") for r in case["expect"].get(key, {})}
    assert len(reasons) > 20
    assert {r: unit_of(r) for r in reasons if unit_of(r) == "unknown"} == {}


def test_counts_are_summed_unit_by_unit_never_across_units():
    assert describe({"semafor:normalized_space": 135, "semafor:partial_token_fe": 8}) == "135 sentences and 8 labels"
    assert describe({"duplicate": 1, "malformed_file": 2, "overlap:dev": 3}) == "4 annotation sets and 2 files"
    assert describe({"duplicate": 0}) == "nothing"
    assert by_reason({"train": {"duplicate": 2}, "dev": {"duplicate": 1, "overlap:test": 1}}) == {
        "duplicate": 3, "overlap:test": 1}


def _exemplars(tmp_path: Path) -> Path:
    """A train.jsonl whose two sets share a sentence with two spaces (one .sentences line normalized)
    and one FE label covers part of a token."""
    text = "two  spaces here"
    sets = [
        dataclasses.replace(make_set(text, [(5, 10)], [("Theme", 12, 13)], set_id=1), source="exemplar"),
        dataclasses.replace(make_set(text, [(12, 15)], set_id=2, frame="Locale", lu="here.adv"), source="exemplar"),
    ]
    source = tmp_path / "src"
    source.mkdir()
    (source / "train.jsonl").write_text("".join(jsonl.dumps(s) + "\n" for s in sets))
    return source


def test_the_manifest_names_the_unit_of_every_count(tmp_path, capsys):
    source = _exemplars(tmp_path)
    manifest = convert(source, tmp_path / "out", from_="jsonl", to=["semafor", "bios"])
    assert manifest["losses"]["train"] == {
        "bios:normalized_space": 1, "bios:partial_token_fe": 1,
        "semafor:normalized_space": 1, "semafor:partial_token_fe": 1,
    }
    assert manifest["splits"]["train"] == {"sentences": 1, "annotation_sets": 2}  # 1 sentence, 2 sets affected
    assert manifest["units"] == manifest_units(manifest) == {
        "losses": {"bios:normalized_space": "sentences", "bios:partial_token_fe": "labels",
                   "semafor:normalized_space": "sentences", "semafor:partial_token_fe": "labels"},
        "skipped": {},
    }
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["units"] == manifest["units"]
    assert main(["convert", "--from", "jsonl", "--to", "semafor", "--source", str(source),
                 "--target", str(tmp_path / "cli")]) == 0
    assert ("nothing skipped as bad and semafor format losses of 1 label and 1 sentence, by reason in "
            f"{tmp_path / 'cli' / 'manifest.json'}") in capsys.readouterr().err


def test_a_release_conversion_names_the_unit_of_its_ledger(tmp_path):
    manifest = convert(resource_path("sample"), tmp_path / "o")
    assert manifest["units"]["ledger"] == {"duplicate": "annotation sets"}
    assert manifest["units"]["losses"] == {}
