"""Preprocessing a conversion: one pass per split fills CoNLL-X/U, SEMAFOR lemma-tags and BIOS columns.

Uses the deterministic fake backend (no model) and imported CoNLL parses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import conllu
import pytest

import fake_backend
from conftest import interruptible
from pyfn.cli import main
from pyfn.convert import convert
from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file
from pyfn.formats.base import read_sentences
from pyfn.manifest import check_finished
from pyfn.preprocess import base
from pyfn.preprocess.directory import preprocess_directory
from pyfn.preprocess.runner import PreprocessOptions
from pyfn.resources import resource_path
from pyfn.splits.builder import SPLITS

REPO = Path(__file__).resolve().parents[2]

FORMATS = ["jsonl", "semafor", "bios", "conllx", "conllu", "semeval"]


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(base.BACKENDS, "fake", "fake_backend")
    fake_backend.CALLS.clear()


@pytest.fixture(scope="module")
def sample() -> Path:
    return resource_path("sample")


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file() and p.name != "manifest.json"}


def _snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (hidden ones and the manifest too), by relative path."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _convert(sample: Path, target: Path, preprocess: PreprocessOptions | None = None):
    return convert(sample, target, to=FORMATS, preprocess=preprocess)


def test_convert_with_preprocessing_fills_every_carrier(fake, sample, tmp_path):
    manifest = _convert(sample, tmp_path, PreprocessOptions(tool="fake", cache_dir=tmp_path / "cache"))
    rec = manifest["preprocessing"]
    assert (rec["tool"], rec["backend"], rec["model"], rec["model_version"]) == ("fake", "fake", "chain", "1")
    for split in ("train", "dev", "test"):
        strings = read_sentences(tmp_path / f"{split}.sentences")
        assert rec["splits"][split]["sentences"] == len(strings)
        assert len(rec["splits"][split]["cache_key"]) == 64
        with open(tmp_path / f"{split}.conllu", encoding="utf-8") as handle:
            blocks = list(conllu.parse_incr(handle))
        assert len(blocks) == len(strings)
        for block, string in zip(blocks, strings):
            words = string.split()
            assert [t["form"] for t in block] == words
            assert [t["lemma"] for t in block] == [w.lower() for w in words]
            assert [t["head"] for t in block] == list(range(len(words)))
            assert block.metadata["fn_sentence_ids"]
        flat = (tmp_path / f"{split}.sentences.conllx.flattened").read_text(encoding="utf-8").splitlines()
        assert len(flat) == len(strings)
        fields = flat[0].split("\t")
        n = int(fields[0])
        assert len(fields) == 1 + 6 * n
        assert fields[1:1 + n] == strings[0].split() and fields[1 + 4 * n:1 + 5 * n] == ["O"] * n
        assert fields[1 + 3 * n:1 + 4 * n] == [str(i) for i in range(n)]
    for name, digest in manifest["outputs"].items():
        assert sha256_file(tmp_path / name) == digest, name


def test_bios_merge_changes_only_the_parse_columns(fake, sample, tmp_path):
    plain, done = tmp_path / "plain", tmp_path / "done"
    _convert(sample, plain)
    _convert(sample, done, PreprocessOptions(tool="fake", cache_dir=None))
    for name in ("train.bios", "dev.bios", "dev.bios.semeval", "test.bios"):
        before = (plain / name).read_text(encoding="utf-8").split("\n")
        after = (done / name).read_text(encoding="utf-8").split("\n")
        assert len(before) == len(after)
        for a, b in zip(before, after):
            if not a:
                assert not b
                continue
            fa, fb = a.split("\t"), b.split("\t")
            assert [x for i, x in enumerate(fa) if i not in (3, 5, 9, 11)] == [x for i, x in enumerate(fb) if i not in (3, 5, 9, 11)]
            assert (fb[3], fb[5], fb[9], fb[11]) == (fb[1].lower(), "NN", str(int(fb[0]) - 1), "ROOT" if fb[0] == "1" else "dep")
    assert _files(plain).keys() < _files(done).keys()
    for name in ("train.frame.elements", "dev.frames", "dev.gold.xml", "train.jsonl"):
        assert (plain / name).read_bytes() == (done / name).read_bytes()


def test_preprocess_command_equals_convert_option(fake, sample, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    _convert(sample, one, PreprocessOptions(tool="fake", cache_dir=None))
    _convert(sample, two)
    manifest, warnings, _ = preprocess_directory(two, PreprocessOptions(tool="fake", cache_dir=None))
    assert _files(one) == _files(two)
    first = json.loads((one / "manifest.json").read_text())
    assert manifest["outputs"] == first["outputs"] and manifest["preprocessing"] == first["preprocessing"]
    assert warnings == []


def test_preprocessing_is_deterministic_across_jobs_and_cache(fake, sample, tmp_path):
    runs = []
    for name, jobs, cache in (("a", 1, None), ("b", 2, tmp_path / "cache"), ("c", 2, tmp_path / "cache")):
        _convert(sample, tmp_path / name, PreprocessOptions(tool="fake", jobs=jobs, batch_size=7, cache_dir=cache))
        runs.append((tmp_path / name / "manifest.json").read_bytes())
        assert _files(tmp_path / name) == _files(tmp_path / "a")
    assert runs[0] == runs[1] == runs[2]


def test_unfinished_directory_is_refused(fake, sample, tmp_path):
    with pytest.raises(PyfnError, match="no manifest.json: not a finished pyfn output"):
        preprocess_directory(tmp_path, PreprocessOptions(tool="fake", cache_dir=None))
    _convert(sample, tmp_path)
    with open(tmp_path / "dev.bios", "a", encoding="utf-8") as handle:
        handle.write("tampered\n")
    with pytest.raises(PyfnError, match="dev.bios changed since manifest.json was written"):
        preprocess_directory(tmp_path, PreprocessOptions(tool="fake", cache_dir=None))


# ---------------------------------------------------------------- imported parses


def _parse_file(strings: list[str], path: Path, mutate=None) -> None:
    """A CoNLL-U parse of ``strings``: lemma = reversed form, XPOS by length, a right-branching tree."""
    lines = []
    for k, string in enumerate(strings):
        words = string.split()
        if mutate:
            words = mutate(k, words)
        lines.append(f"# sent_id = ext-{k}")
        for i, w in enumerate(words, 1):
            head = i + 1 if i < len(words) else 0
            lines.append(f"{i}\t{w}\t{w[::-1]}\tX\tL{len(w)}\t_\t{head}\t{'root' if head == 0 else 'r'}\t_\t_")
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_imported_conllu_round_trips_into_bios_and_semafor(sample, tmp_path):
    out = tmp_path / "out"
    _convert(sample, out)
    for split in ("train", "dev", "test"):
        _parse_file(read_sentences(out / f"{split}.sentences"), tmp_path / f"{split}.conllu")
    manifest, _, _ = preprocess_directory(out, PreprocessOptions(tool="conll", parse=str(tmp_path / "{split}.conllu")))
    rec = manifest["preprocessing"]["splits"]["dev"]
    assert rec["parse_sha256"] == sha256_file(tmp_path / "dev.conllu") and rec["dialect"] == "conllu"
    for split in ("train", "dev", "test"):
        with open(tmp_path / f"{split}.conllu", encoding="utf-8") as a, open(out / f"{split}.conllu", encoding="utf-8") as b:
            theirs, ours = list(conllu.parse_incr(a)), list(conllu.parse_incr(b))
        fields = ("form", "lemma", "upos", "xpos", "head", "deprel")
        assert [[tuple(t[f] for f in fields) for t in s] for s in theirs] == [[tuple(t[f] for f in fields) for t in s] for s in ours]
        by_sentence = {k: s for k, s in enumerate(theirs)}
        for line in (out / f"{split}.bios").read_text(encoding="utf-8").splitlines():
            if line:
                f = line.split("\t")
                tok = by_sentence[int(f[6])][int(f[0]) - 1]
                assert (f[1], f[3], f[5], f[9], f[11]) == (tok["form"], tok["lemma"], tok["xpos"], str(tok["head"]), tok["deprel"])
        for k, line in enumerate((out / f"{split}.sentences.conllx.flattened").read_text(encoding="utf-8").splitlines()):
            f = line.split("\t")
            n = int(f[0])
            toks = by_sentence[k]
            assert f[1 + n:1 + 2 * n] == [t["xpos"] for t in toks]
            assert f[1 + 2 * n:1 + 3 * n] == [t["deprel"] for t in toks]
            assert f[1 + 3 * n:1 + 4 * n] == [str(t["head"]) for t in toks]
            assert f[1 + 5 * n:] == [t["lemma"] for t in toks]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda k, w: w[:-1] if k == 3 else w, r"sentence 3, token \d+: \d+ tokens, FrameNet has \d+"),
        (lambda k, w: [w[0].upper() + "x", *w[1:]] if k == 2 else w, r"sentence 2, token 1: FORM '.*', FrameNet has"),
        (lambda k, w: w + ["extra"] if k == 0 else w, r"sentence 0, token \d+: \d+ tokens, FrameNet has"),
    ],
)
def test_misaligned_import_is_an_error_naming_the_sentence(sample, tmp_path, mutate, message):
    out = tmp_path / "out"
    _convert(sample, out)
    _parse_file(read_sentences(out / "dev.sentences"), tmp_path / "dev.conllu", mutate)
    before = _snapshot(out)
    with pytest.raises(PyfnError, match=message):
        preprocess_directory(out, PreprocessOptions(tool="conll", parse=str(tmp_path / "dev.conllu")), ("dev",))
    assert _snapshot(out) == before  # the run failed: the folder is as it was, manifest included


def test_import_missing_sentence_and_multiword_token(sample, tmp_path):
    out = tmp_path / "out"
    _convert(sample, out)
    strings = read_sentences(out / "dev.sentences")
    _parse_file(strings[:-1], tmp_path / "short.conllu")
    with pytest.raises(PyfnError, match=f"sentence {len(strings) - 1}: missing"):
        preprocess_directory(out, PreprocessOptions(tool="conll", parse=str(tmp_path / "short.conllu")), ("dev",))
    _convert(sample, out)
    _parse_file(strings, tmp_path / "mwt.conllu")
    text = (tmp_path / "mwt.conllu").read_text(encoding="utf-8").replace("\n1\t", "\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\t", 1)
    (tmp_path / "mwt.conllu").write_text(text, encoding="utf-8")
    with pytest.raises(PyfnError, match="multiword token"):
        preprocess_directory(out, PreprocessOptions(tool="conll", parse=str(tmp_path / "mwt.conllu")), ("dev",))


def test_one_parse_file_for_several_splits_is_a_usage_error(sample, tmp_path):
    _convert(sample, tmp_path)
    with pytest.raises(UsageError, match=r"need one parse each; write the path with \{split\}"):
        preprocess_directory(tmp_path, PreprocessOptions(tool="conll", parse=str(tmp_path / "dev.conllu")))


def test_cli_preprocess_errors_are_one_line(sample, tmp_path, capsys):
    _convert(sample, tmp_path)
    before = _snapshot(tmp_path)
    assert main(["preprocess", "--input", str(tmp_path), "--tool", "conll", "--parse", str(tmp_path / "nope-{split}.conllu"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pyfn: error: ") and "nope-train.conllu: no such parse file for split train" in err
    assert len(err.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before  # the manifest of the conversion survives the failure
    assert main(["convert", "--source", "sample", "--target", str(tmp_path / "x"), "--parse", "a.conllu"]) == 2


# ---------------------------------------------------------------- a failed pass changes nothing (issue 15)


def _no_nltk_data(tmp_path: Path, monkeypatch) -> PreprocessOptions:
    import nltk  # noqa: PLC0415

    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty")])
    return PreprocessOptions(tool="nltk", nltk_data=str(tmp_path / "empty"), cache_dir=None)


def _parses(tmp_path: Path, out: Path, splits: tuple[str, ...], blocks_of: dict[str, str] | None = None) -> str:
    """Parses of ``splits`` in tmp_path/parses (split -> the split whose sentences it parses: ``blocks_of``)."""
    (tmp_path / "parses").mkdir(exist_ok=True)
    for split in splits:
        _parse_file(read_sentences(out / f"{(blocks_of or {}).get(split, split)}.sentences"),
                    tmp_path / "parses" / f"{split}.conllu")
    return str(tmp_path / "parses" / "{split}.conllu")


def _failing_backend(tmp_path: Path, monkeypatch) -> PreprocessOptions:
    def broken(self, sentences):
        raise PyfnError("fake model: cannot be loaded")

    monkeypatch.setattr(fake_backend.FakePreprocessor, "analyse", broken)
    return PreprocessOptions(tool="fake", cache_dir=None)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda tmp, out, mp: PreprocessOptions(tool="spacy", model="no_such_model_pyfn", cache_dir=None),
         "spaCy model 'no_such_model_pyfn' is not installed"),
        (lambda tmp, out, mp: _no_nltk_data(tmp, mp), "NLTK data missing"),
        (lambda tmp, out, mp: _failing_backend(tmp, mp), "fake model: cannot be loaded"),
        (lambda tmp, out, mp: PreprocessOptions(tool="conll", parse=_parses(tmp, out, ("train", "test"))),
         "dev.conllu: no such parse file for split dev"),
        (lambda tmp, out, mp: PreprocessOptions(tool="conll", parse=_parses(tmp, out, ("train", "dev", "test"),
                                                                            {"test": "train"})),
         r"test.conllu: sentence \d+: no such sentence \(53 blocks for 18 sentences\)"),
    ],
    ids=["unknown-spacy-model", "no-nltk-data", "model-fails-to-load", "no-dev-parse", "parse-of-another-split"],
)
def test_a_failed_pass_leaves_the_folder_byte_identical(fake, sample, tmp_path, monkeypatch, setup, message):
    out = tmp_path / "out"
    _convert(sample, out)
    options = setup(tmp_path, out, monkeypatch)
    before = _snapshot(out)
    with pytest.raises(PyfnError, match=message):
        preprocess_directory(out, options)
    assert _snapshot(out) == before


def test_a_pass_refuses_to_overwrite_files_the_manifest_does_not_list(sample, tmp_path):
    out = tmp_path / "out"
    convert(sample, out, to=["semafor", "bios"])
    parse = _parses(tmp_path, out, SPLITS)
    for split in SPLITS:  # the user keeps the parses in the conversion's folder, under the names pyfn writes
        (out / f"{split}.conllu").write_bytes((tmp_path / "parses" / f"{split}.conllu").read_bytes())
    before = _snapshot(out)
    with pytest.raises(PyfnError, match=r"out: holds files no pyfn manifest there lists \(dev.conllu, test.conllu, "
                                        r"train.conllu\); nothing was written: .* pass --force"):
        preprocess_directory(out, PreprocessOptions(tool="conll", parse=str(out / "{split}.conllu")))
    assert _snapshot(out) == before
    manifest, _, _ = preprocess_directory(out, PreprocessOptions(tool="conll", parse=parse), force=True)
    assert {f"{split}.conllu" for split in SPLITS} <= set(manifest["outputs"])
    check_finished(out)


def test_a_pass_without_a_parse_removes_the_lemma_tags_of_an_earlier_one(fake, sample, tmp_path, monkeypatch):
    _convert(sample, tmp_path)
    preprocess_directory(tmp_path, PreprocessOptions(tool="fake", cache_dir=None))
    assert (tmp_path / "dev.sentences.conllx.flattened").is_file()
    tagger = fake_backend.FakePreprocessor.analyse

    def tags_only(self, sentences):
        return [tuple(replace(a, head=None, deprel=None) for a in analysis) for analysis in tagger(self, sentences)]

    monkeypatch.setattr(fake_backend.FakePreprocessor, "analyse", tags_only)
    manifest, _, _ = preprocess_directory(tmp_path, PreprocessOptions(tool="fake", cache_dir=None))
    assert not list(tmp_path.glob("*.flattened")) and not any(n.endswith(".flattened") for n in manifest["outputs"])
    assert check_finished(tmp_path) == manifest


def test_ctrl_c_during_a_pass_prints_one_line_and_leaves_the_folder_as_it_was(sample, tmp_path, ctrl_c):
    out = tmp_path / "out"
    _convert(sample, out)
    before = _snapshot(out)
    script = tmp_path / "slow_pass.py"
    script.write_text(f"""
import sys, time
sys.path[:0] = [{str(REPO)!r}, {str(Path(__file__).parent)!r}]
from pathlib import Path
from pyfn.cli import main
from pyfn.preprocess import base, runner

def slow(batch):  # the workers' batches: the parent is waiting for them when Ctrl-C comes
    Path({str(tmp_path / "started")!r}).touch()
    time.sleep(60)

base.BACKENDS["spacy"] = "fake_backend"  # the command line knows only its own tools
runner._analyse_batch = slow
sys.exit(main(["preprocess", "--input", {str(out)!r}, "--tool", "spacy", "--jobs", "2", "--batch-size", "5",
               "--no-cache", "--quiet"]))
""")
    proc = interruptible([sys.executable, str(script)])
    ctrl_c(tmp_path / "started", proc)
    assert proc.communicate(timeout=60)[1] == "pyfn: interrupted\n"
    assert proc.returncode == 130
    assert _snapshot(out) == before
