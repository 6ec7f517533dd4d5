"""The Python API (pyfn.load, pyfn.read): the same sets, ledger and signature as `pyfn convert`."""

from __future__ import annotations

import doctest
import json
import re
import shutil
from pathlib import Path

import pytest

import pyfn
from pyfn.convert import convert
from pyfn.errors import PyfnError, UsageError
from pyfn.formats import jsonl
from pyfn.resources import resource_path
from pyfn.splits.builder import BuildOptions

REPO = Path(__file__).resolve().parent.parent
SAMPLE = resource_path("sample")


@pytest.fixture(scope="module")
def sample_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("api") / "out"
    convert(SAMPLE, out, to=["jsonl", "semeval"], options=BuildOptions(filters=("overlap_fes",)))
    return out


def test_load_gives_what_convert_writes(sample_out):
    manifest = json.loads((sample_out / "manifest.json").read_text(encoding="utf-8"))
    loaded = pyfn.load("sample", "all", filter=["overlap_fes"])
    assert list(loaded) == ["train", "dev", "test"]
    for name, split in loaded.items():
        lines = (sample_out / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        assert [jsonl.dumps(aset) for aset in split] == lines
        assert split.signature == manifest["signature"]
        assert split.ledger == manifest["ledger"][name]
        assert (len(split), split.sentences) == (manifest["splits"][name]["annotation_sets"],
                                                 manifest["splits"][name]["sentences"])
    assert loaded["train"].manifest["options"] == manifest["options"]


def test_load_one_split_and_its_options():
    test = pyfn.load("sample", "test", exclude_frames=[398])
    assert isinstance(test, pyfn.Split) and test.name == "test"
    assert "excl:398" in test.signature
    assert test[0] is test.sets[0] and test[:2] == test.sets[:2]
    random = pyfn.load("sample", "test", definition="random", seed=3)
    assert random.manifest["options"]["split"] == {"kind": "random", "seed": 3, "folds": 5, "fold": 0}


def test_load_reads_the_parsed_release_cache_as_convert_does(tmp_path):
    cache = tmp_path / "cache"
    first = pyfn.load("sample", "all", with_exemplars=True, cache_dir=cache)
    entries = sorted(cache.glob("releases/*/*.bin"))
    assert len(entries) == 2  # fulltext/ and lu/
    stamps = [entry.stat().st_mtime_ns for entry in entries]
    again = pyfn.load("sample", "all", with_exemplars=True, cache_dir=cache)  # read from the entries, not rewritten
    assert [entry.stat().st_mtime_ns for entry in sorted(cache.glob("releases/*/*.bin"))] == stamps
    uncached = pyfn.load("sample", "all", with_exemplars=True, cache_dir=tmp_path / "unused", no_cache=True)
    assert not (tmp_path / "unused").exists()
    for name in first:
        assert first[name].sets == again[name].sets == uncached[name].sets
        assert first[name].manifest == again[name].manifest == uncached[name].manifest


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"split": "validation"}, "unknown split 'validation'"),
    ({"split": []}, "unknown split (none)"),
    ({"filter": "overlap_fes"}, "filter takes a list"),
    ({"exclude_frames": ["398"]}, "exclude_frames: '398' is not an integer id"),
    ({"exclude_lus": "12"}, "exclude_lus takes a list"),
    ({"filter_scope": "test"}, "unknown filter scope"),
    ({"definition": "leave-one-out"}, "unknown split kind"),
])
def test_load_refuses_bad_options_with_the_reason(kwargs, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        pyfn.load("sample", **kwargs)


def test_load_names_a_source_that_is_not_a_release(tmp_path):
    with pytest.raises(PyfnError, match="not a FrameNet release"):
        pyfn.load(tmp_path)


def test_read_a_folder_and_a_file(sample_out, tmp_path):
    loaded = pyfn.load("sample", "all", filter=["overlap_fes"])
    folder = pyfn.read(sample_out)
    assert {name: split.sets for name, split in folder.items()} == {name: s.sets for name, s in loaded.items()}
    assert folder["dev"].signature == loaded["dev"].signature and folder["dev"].ledger == loaded["dev"].ledger
    gold = pyfn.read(sample_out / "test.gold.xml")
    assert list(gold) == ["test"] and len(gold["test"]) == len(loaded["test"])
    assert [s.id for s in pyfn.read(sample_out, fmt="semeval")["dev"]] == [s.id for s in gold_dev(sample_out)]
    edited = tmp_path / "edited"
    shutil.copytree(sample_out, edited)
    (edited / "test.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(PyfnError, match="changed since manifest.json was written"):
        pyfn.read(edited)


def gold_dev(folder: Path):
    return pyfn.read(folder / "dev.gold.xml")["dev"]


def test_read_skips_and_counts_bad_lines_unless_strict(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    line = jsonl.dumps(pyfn.load("sample", "test")[0])
    (folder / "test.jsonl").write_text(f"{line}\n{{not json\n", encoding="utf-8")
    with pytest.raises(PyfnError, match=r"test.jsonl:2"):
        pyfn.read(folder)
    test = pyfn.read(folder, strict=False)["test"]
    assert len(test) == 1 and test.manifest["skipped"] == {"malformed_line": 1} and test.signature is None
    with pytest.raises(PyfnError, match="not a pyfn split file"):
        pyfn.read(folder / "notes.txt" if (folder / "notes.txt").write_text("x") else folder)
    with pytest.raises(PyfnError, match="no such file"):
        pyfn.read(tmp_path / "missing")


def test_fn15_test_loads_as_convert_writes_it(fn15, fn15_std, fn15_sets):
    from conftest import FN15_EXCLUDED  # noqa: PLC0415

    test = pyfn.load(fn15, "test", exclude_frames=FN15_EXCLUDED)
    manifest = fn15_std.manifest
    assert test.sets == fn15_sets["test"]
    assert (len(test), test.sentences) == (4148, 875)
    assert test.signature == manifest["signature"] and test.ledger == manifest["ledger"]["test"]
    back = pyfn.read(fn15_std.dir)
    assert back["test"].sets == fn15_sets["test"] and back["test"].signature == manifest["signature"]


EXAMPLE_PAGES = ("README.md", "docs/howto/python.md", "docs/howto/export.md")
"""The pages whose ``>>>`` examples run on the bundled sample, in this order (later pages use what earlier ones made)."""


def test_documented_python_examples_run():
    """The ``>>>`` examples of the README and the Python pages of the docs give the output they show."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    namespace: dict = {}  # shared: the examples follow on from each other, as in one session
    for page in EXAMPLE_PAGES:
        text = (REPO / page).read_text(encoding="utf-8")
        blocks = re.findall(r"^```pycon\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
        assert blocks, f"{page} has no pycon example"
        for i, block in enumerate(blocks):
            example = parser.get_doctest(block, namespace, f"{page} example {i + 1}", page, 0)
            runner.run(example, clear_globs=False)
            namespace = example.globs
    result = runner.summarize(verbose=False)
    assert result.attempted and not result.failed
