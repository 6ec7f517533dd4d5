"""Every reader on the malformed-input corpus of ``tests/malformed/`` (``scripts/make_malformed.py``).

For each case of ``cases.json`` the reader runs with ``strict=False`` and
``strict=True`` and must give the outcome the manifest states: a one-line
:class:`PyfnError` naming file and item, a counted skip (raised when strict),
a ledger removal (FrameNet XML; not raised when strict) or a clean read. No
other exception may escape, and nothing may be lost silently: the items read
plus the items the counted problems account for equal the unmutated file's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats import bios, conll, jsonl, semafor, semeval
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.lexicon import read_frame, read_frame_relations
from pyfn.framenet.release import open_release
from pyfn.splits.builder import BuildOptions, build_splits
from pyfn.splits.definitions import SplitDefinition
from pyfn.splits.validity import invalid_reason

HERE = Path(__file__).resolve().parent
MALFORMED = HERE / "malformed"
SCRIPT = HERE.parent / "scripts" / "make_malformed.py"
MANIFEST = json.loads((MALFORMED / "cases.json").read_text(encoding="utf-8"))
CASES = {case["id"]: case for case in MANIFEST["cases"]}
READERS = ("fulltext", "lu", "frame", "frRelation", "jsonl", "semafor", "bios", "conllx", "conllu", "semeval",
           "release-zip")
FNXML = {"fulltext": "fulltext", "lu": "lu"}
"""Readers of annotated FrameNet XML: the release folder their file goes in."""


@dataclass
class Outcome:
    """What a reader made of a case: the items read (comparable), problems and ledger removals."""

    items: list = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    removed: Counter = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)


def _path(case: dict, role: str) -> Path:
    return MALFORMED / case["files"][role]


def _logged(read: Callable[[ProblemLog], Iterable], strict: bool, convert: Callable = repr) -> Outcome:
    log = ProblemLog(strict=strict)
    items = [convert(item) for item in read(log)]
    return Outcome(items, Counter(p.reason for p in log.problems), Counter(), [p.message for p in log.problems])


def _fnxml(case: dict) -> Outcome:
    path = _path(case, "xml")
    result = read_annotations(path.read_bytes(), f"{FNXML[case['reader']]}/{path.name}")
    out = Outcome(skipped=Counter(p.reason for p in result.problems), messages=[p.message for p in result.problems])
    out.removed.update(result.not_annotation_sets)
    for aset in result.sets:
        reason = invalid_reason(aset)
        if reason is None:
            out.items.append(jsonl.dumps(aset))
        else:
            out.removed[reason] += 1
    return out


def _release(case: dict) -> Outcome:
    release = open_release(_path(case, "zip"))
    return Outcome([jsonl.dumps(s) for p in release.list("fulltext") for s in read_annotations(release.read(p), p).sets])


def run(case: dict, strict: bool) -> Outcome:
    """Run the case's reader the way pyfn calls it (FrameNet XML: the file reader; strictness is the builder's)."""
    reader = case["reader"]
    if reader in FNXML:
        return _fnxml(case)
    if reader == "frame":
        return Outcome([repr(read_frame(_path(case, "xml").read_bytes(), f"frame/{_path(case, 'xml').name}"))])
    if reader == "frRelation":
        return Outcome([repr(r) for r in read_frame_relations(_path(case, "xml").read_bytes(), "frRelation.xml")])
    if reader == "release-zip":
        return _release(case)
    if reader == "jsonl":
        return _logged(lambda log: jsonl.read(_path(case, "jsonl"), log=log), strict, jsonl.dumps)
    if reader == "semafor":
        return _logged(lambda log: semafor.read(_path(case, "frames"), _path(case, "sentences"), log=log), strict,
                       jsonl.dumps)
    if reader == "bios":
        return _logged(lambda log: bios.read(_path(case, "bios"), _path(case, "sentences"), log=log), strict,
                       jsonl.dumps)
    if reader in ("conllx", "conllu"):
        return _logged(lambda log: conll.read_conll(_path(case, "conll"), log=log, dialect=reader), strict)
    if reader == "semeval":
        return _logged(lambda log: semeval.read(_path(case, "xml"), log=log), strict, jsonl.dumps)
    raise AssertionError(f"unknown reader {reader}")


def _stream(case: dict) -> Iterator:
    """The case's reader as a stream (to count what it yields before an error)."""
    reader, log = case["reader"], ProblemLog()
    if reader == "jsonl":
        return jsonl.read(_path(case, "jsonl"), log=log)
    if reader == "semafor":
        return semafor.read(_path(case, "frames"), _path(case, "sentences"), log=log)
    if reader == "bios":
        return bios.read(_path(case, "bios"), _path(case, "sentences"), log=log)
    if reader in ("conllx", "conllu"):
        return conll.read_conll(_path(case, "conll"), log=log, dialect=reader)
    if reader == "semeval":
        return semeval.read(_path(case, "xml"), log=log)
    return iter(run(case, False).items)


def _outcome_or_error(case: dict, strict: bool) -> Outcome | PyfnError:
    try:
        return run(case, strict)
    except PyfnError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - the point: nothing but PyfnError may escape
        pytest.fail(f"{case['id']}: {type(exc).__name__} escaped the reader: {exc}")


def _build(case: dict, tmp_path: Path, strict: bool):
    """The split builder (SPLITS.md steps 1-7) on a release holding only the case's file, as train."""
    folder = FNXML[case["reader"]]
    path = _path(case, "xml")
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / path.name).write_bytes(path.read_bytes())
    options = BuildOptions(splits=("train",), with_exemplars=folder == "lu", strict=strict, jobs=1)
    return build_splits(open_release(tmp_path), SplitDefinition("malformed", (), ()), options)


# ----------------------------------------------------------------------------- the manifest


def test_the_corpus_is_complete_and_small():
    assert MANIFEST["generator"] == "scripts/make_malformed.py"
    assert len(CASES) == len(MANIFEST["cases"]) >= 60
    assert {case["reader"] for case in CASES.values()} == set(READERS)
    referenced = {f for case in CASES.values() for f in case["files"].values()}
    on_disk = {p.relative_to(MALFORMED).as_posix() for p in MALFORMED.rglob("*") if p.is_file()} - {"cases.json"}
    assert referenced == on_disk
    assert sum((MALFORMED / f).stat().st_size for f in on_disk) < 2_000_000
    for case in CASES.values():
        assert len([k for k in ("error", "skipped", "removed", "ok") if k in case["expect"]]) == 1, case["id"]
        assert case["mutation"] and case["kind"]
        for key in ("base", "same_as"):
            assert case.get(key) is None or case[key] in CASES, case["id"]
        original = CASES.get(case.get("base") or case.get("same_as") or f"{case['reader']}-valid")
        if original is not None and original is not case:  # a mutation changes the bytes
            assert [(MALFORMED / f).read_bytes() for f in case["files"].values()] != [
                (MALFORMED / f).read_bytes() for f in original["files"].values()], case["id"]


# ----------------------------------------------------------------------------- every case


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case(case_id):
    case = CASES[case_id]
    expect = case["expect"]
    loose = _outcome_or_error(case, strict=False)
    strict = _outcome_or_error(case, strict=True)
    names = {Path(f).name for f in case["files"].values()}

    if "error" in expect:
        for exc in (loose, strict):
            assert isinstance(exc, PyfnError), f"{case_id}: read {exc} instead of failing"
            message = str(exc)
            assert "\n" not in message
            assert expect["error"] in message, message
            assert any(name in message for name in names), message
        if case.get("items") == 0:  # refused before anything is read
            yielded = 0
            with pytest.raises(PyfnError):
                for _ in _stream(case):
                    yielded += 1
            assert yielded == 0
        return

    assert isinstance(loose, Outcome), f"{case_id}: {loose}"
    assert len(loose.items) == case["items"]
    if "skipped" in expect:
        assert dict(loose.skipped) == expect["skipped"]
        assert not loose.removed
        assert case["message"] in loose.messages[0], loose.messages[0]
        for message in loose.messages:
            assert "\n" not in message and any(name in message for name in names), message
        if case["reader"] not in FNXML:  # FrameNet XML: strictness is the builder's (test_fnxml_cases_in_the_builder)
            assert isinstance(strict, PyfnError), f"{case_id}: strict reading did not stop"
            assert str(strict) == f"{loose.messages[0]} (--strict)"
    else:
        assert not loose.skipped, loose.messages
        assert isinstance(strict, Outcome) and strict.items == loose.items
        if "removed" in expect:
            assert dict(loose.removed) == expect["removed"]
        else:
            assert not loose.removed
        if "same_as" in case:
            assert loose.items == run(CASES[case["same_as"]], strict=False).items

    if "base" in case:  # nothing lost silently
        counted = loose.skipped if "skipped" in expect else loose.removed
        covered = case.get("covered", sum(counted.values()))
        assert len(loose.items) + covered == len(run(CASES[case["base"]], strict=False).items)


@pytest.mark.parametrize("case_id", sorted(k for k, c in CASES.items() if c["reader"] in FNXML))
def test_fnxml_cases_in_the_builder(case_id, tmp_path):
    """``pyfn convert`` counts the same problems and removals; ``--strict`` stops at problems only."""
    case = CASES[case_id]
    expect = case["expect"]
    built = _build(case, tmp_path / "loose", strict=False)
    ledger = {k: v for k, v in built.ledger["train"].items() if v}
    if "error" in expect:
        assert ledger == {"malformed_file": 1}
        assert expect["error"] in built.problems[0].message
        assert built.splits["train"].annotation_sets == 0
    else:
        assert ledger == expect.get("skipped", expect.get("removed", {}))
        assert built.splits["train"].annotation_sets == case["items"]
    if "error" in expect or "skipped" in expect:
        with pytest.raises(PyfnError) as exc:
            _build(case, tmp_path / "strict", strict=True)
        assert str(exc.value) == f"{built.problems[0].message} (--strict)"
    else:
        assert _build(case, tmp_path / "strict", strict=True).ledger["train"] == built.ledger["train"]


# ----------------------------------------------------------------------------- regeneration


def test_the_script_regenerates_the_corpus_byte_for_byte(fn15, tmp_path):
    out = tmp_path / "malformed"
    subprocess.run([sys.executable, str(SCRIPT), "--fn15", str(fn15), "--out", str(out)], check=True)
    made = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    kept = {p.relative_to(MALFORMED).as_posix(): p.read_bytes() for p in MALFORMED.rglob("*") if p.is_file()}
    hint = "regenerate the corpus: python scripts/make_malformed.py (after a change to a writer or the script)"
    assert sorted(made) == sorted(kept), hint
    assert [name for name in made if made[name] != kept[name]] == [], hint
