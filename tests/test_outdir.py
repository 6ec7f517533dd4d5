"""Output folders (issue 15): refused before anything is touched, filled in a staging folder, swapped in
when complete; a failed, refused or interrupted run leaves every file as it was and no new folder."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import interruptible, make_set

from pyfn import outdir
from pyfn.cli import main
from pyfn.convert import convert, generate_lexicon
from pyfn.errors import PyfnError, UsageError
from pyfn.formats import jsonl
from pyfn.manifest import check_finished
from pyfn.outdir import files_under
from pyfn.preprocess.runner import PreprocessOptions
from pyfn.resources import resource_path

SAMPLE = resource_path("sample")
REPO = Path(__file__).resolve().parent.parent
REFUSED = "nothing was written: choose an empty or new folder, or pass --force to write there anyway " \
          "(files of an output's name are overwritten)"


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones and manifests too), by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _listed(folder: Path) -> list[str]:
    """What ``folder`` holds besides the outputs its manifest lists and the manifest (should be nothing)."""
    outputs = json.loads((folder / "manifest.json").read_text())["outputs"]
    return sorted(set(files_under(folder)) - {*outputs, "manifest.json"})


# ---------------------------------------------------------------- files pyfn did not write (item 6)


def test_a_target_holding_files_no_manifest_lists_is_refused_untouched_unless_forced(tmp_path, capsys):
    target = tmp_path / "out"
    target.mkdir()
    (target / "train.jsonl").write_text("my own notes\n")
    (target / "README.txt").write_text("keep me\n")
    before = _snapshot(target)
    assert main(["convert", "--source", "sample", "--target", str(target), "--quiet"]) == 1
    assert capsys.readouterr().err == (f"pyfn: error: {target}: holds files no pyfn manifest there lists "
                                       f"(train.jsonl); {REFUSED}\n")  # README.txt is not an output's name
    assert _snapshot(target) == before
    assert main(["convert", "--source", "sample", "--target", str(target), "--quiet", "--force"]) == 0
    assert (target / "README.txt").read_text() == "keep me\n"  # not an output's name: left alone
    assert check_finished(target)["outputs"].keys() == {"train.jsonl", "dev.jsonl", "test.jsonl"}
    assert _listed(target) == ["README.txt"]


def test_a_users_file_no_output_replaces_is_left_alone(tmp_path):
    """E.g. ``pyfn convert ... --target T 2> T/err``: the shell creates T/err before pyfn starts."""
    target = tmp_path / "out"
    target.mkdir()
    (target / "err").write_text("")
    assert main(["convert", "--source", "sample", "--target", str(target), "--quiet"]) == 0
    assert _listed(target) == ["err"] and (target / "err").read_text() == ""


def test_an_output_changed_since_pyfn_wrote_it_is_the_users_and_is_refused(tmp_path):
    convert(SAMPLE, tmp_path / "out")
    with open(tmp_path / "out" / "dev.jsonl", "a", encoding="utf-8") as handle:
        handle.write("\n")
    (tmp_path / "out" / "a.txt").write_text("a")
    before = _snapshot(tmp_path)
    with pytest.raises(PyfnError, match=r"out: holds files changed since pyfn wrote them \(dev.jsonl\); nothing "
                                        r"was written"):  # a.txt, the user's, is no output's name
        convert(SAMPLE, tmp_path / "out")
    for name in ("test", "train"):
        with open(tmp_path / "out" / f"{name}.jsonl", "a", encoding="utf-8") as handle:
            handle.write("\n")
    (tmp_path / "out" / "x.json").write_text("{}")
    json_before = _snapshot(tmp_path)
    assert json_before.keys() == {*before, "out/x.json"}
    assert main(["convert", "--source", "sample", "--target", str(tmp_path / "out"), "--quiet", "--to", "jsonl",
                 "semeval"]) == 1
    assert _snapshot(tmp_path) == json_before


def test_a_manifest_that_is_not_pyfns_does_not_make_a_folder_pyfns(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "manifest.json").write_text('{"outputs": {}}')
    with pytest.raises(PyfnError, match=r"holds files no pyfn manifest there lists \(manifest.json\)"):
        convert(SAMPLE, tmp_path / "out")
    assert (tmp_path / "out" / "manifest.json").read_text() == '{"outputs": {}}'


# ---------------------------------------------------------------- stale files of an earlier run (item 7)


def test_a_rerun_with_other_options_removes_the_earlier_runs_files_and_nothing_else(tmp_path):
    target = tmp_path / "out"
    first = convert(SAMPLE, target, to=["semafor", "bios", "conllu"])
    second = convert(SAMPLE, target, to="jsonl")
    assert set(first["outputs"]).isdisjoint(second["outputs"])
    assert _listed(target) == [] and sorted(files_under(target)) == sorted([*second["outputs"], "manifest.json"])
    (target / "notes.txt").write_text("mine")
    third = convert(SAMPLE, target, to="semeval", force=True)
    assert _listed(target) == ["notes.txt"] and set(third["outputs"]) == {"dev.gold.xml", "test.gold.xml"}
    check_finished(target)


def test_a_lexicon_rerun_into_a_conversion_and_back_leaves_no_stale_file_or_folder(tmp_path):
    target = tmp_path / "out"
    convert(SAMPLE, target, to="jsonl")
    lexicon = generate_lexicon(SAMPLE, target)
    assert any(name.startswith("fn_train/frame/") for name in lexicon["outputs"]) and _listed(target) == []
    convert(SAMPLE, target, to="jsonl")
    assert _listed(target) == [] and not (target / "fn_train").exists()


# ---------------------------------------------------------------- the target and the source (item 8)


@pytest.mark.parametrize(("where", "relation"), [("source", "is"), ("source/sub", "lies inside"), ("", "holds")])
def test_a_target_that_is_inside_or_around_the_source_is_refused_the_source_untouched(tmp_path, where, relation):
    source = tmp_path / "source"
    convert(SAMPLE, source, to="bios")
    target = tmp_path / where
    before = _snapshot(tmp_path)
    with pytest.raises(UsageError, match=f"--target {target} {relation} the source {source}: write the output "
                                         "outside the source"):
        convert(source, target, from_="bios", to="jsonl")
    assert _snapshot(tmp_path) == before and not (source / "sub").exists()


def test_the_gold_folder_is_a_source_too(tmp_path, capsys):
    data = tmp_path / "data"
    convert(SAMPLE, data, to=["bios", "semeval"])
    before = _snapshot(tmp_path)
    assert main(["convert", "--from", "bios", "--to", "semeval", "--source", str(data), "--gold", str(data),
                 "--target", str(data / "predicted"), "--splits", "dev", "test", "--quiet"]) == 2
    assert f"--target {data / 'predicted'} lies inside the source {data}" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


# ---------------------------------------------------------------- no trace of a refused or failed run (item 9)


def _broken_release(tmp_path: Path) -> Path:
    release = tmp_path / "fn"
    shutil.copytree(SAMPLE, release)
    (release / "fulltext" / "ANC__110CYL067.xml").write_text("<not framenet/>")
    return release


def _untypable(tmp_path: Path) -> Path:
    source = tmp_path / "in"
    source.mkdir()
    aset = make_set("A TAB in the frame name", [(2, 4)], frame="Bad\tframe")
    (source / "train.jsonl").write_text(jsonl.dumps(dataclasses.replace(aset, id=7)) + "\n")
    return source


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (lambda tmp: ["--source", "sample", "--split", "kfold", "--fold", "99"], 2),  # refused before any work
        (lambda tmp: ["--source", str(_broken_release(tmp)), "--strict"], 1),  # failed while reading
        (lambda tmp: ["--from", "jsonl", "--source", str(_untypable(tmp)), "--to", "jsonl", "semafor"], 1),  # writing
    ],
    ids=["refused", "failed-reading", "failed-writing"],
)
def test_a_refused_or_failed_conversion_leaves_no_trace(tmp_path, args, code):
    argv = ["convert", "--target", str(tmp_path / "new" / "deep" / "out"), "--quiet", *args(tmp_path)]
    assert main(argv) == code
    assert not (tmp_path / "new").exists()


def test_a_failed_rerun_leaves_the_earlier_output_byte_identical(tmp_path):
    convert(SAMPLE, tmp_path / "out", to=["semafor", "bios"])
    before = _snapshot(tmp_path / "out")
    with pytest.raises(PyfnError, match="contains a TAB"):
        convert(_untypable(tmp_path), tmp_path / "out", from_="jsonl", to=["jsonl", "semafor"])
    assert _snapshot(tmp_path / "out") == before


# ---------------------------------------------------------------- Ctrl-C


@pytest.mark.parametrize("earlier", [False, True], ids=["new-target", "earlier-output"])
def test_ctrl_c_during_a_conversion_prints_one_line_and_leaves_nothing_half_written(tmp_path, ctrl_c, earlier):
    target = tmp_path / "new" / "out"
    if earlier:
        convert(SAMPLE, target, to="bios")
    before = _snapshot(tmp_path)
    script = tmp_path / "slow_convert.py"
    script.write_text(f"""
import sys, time
sys.path.insert(0, {str(REPO)!r})
from pathlib import Path
from pyfn.cli import main
from pyfn.formats import chunked

def slow(chunk):  # the workers' chunks: the parent is waiting for them when Ctrl-C comes
    Path({str(tmp_path / "started")!r}).touch()
    time.sleep(60)

chunked._write_chunk = slow
sys.exit(main(["convert", "--source", "sample", "--to", "semafor", "--jobs", "2", "--target", {str(target)!r},
               "--quiet"]))
""")
    proc = interruptible([sys.executable, str(script)])
    ctrl_c(tmp_path / "started", proc)
    assert proc.communicate(timeout=60)[1] == "pyfn: interrupted\n"
    assert proc.returncode == 130
    (tmp_path / "started").unlink()
    assert _snapshot(tmp_path) == {**before, "slow_convert.py": script.read_bytes()}
    assert (tmp_path / "new").exists() == earlier


def test_ctrl_c_during_the_swap_takes_effect_once_the_run_is_in_place(tmp_path, monkeypatch):
    convert(SAMPLE, tmp_path / "out", to="bios")
    write = outdir.write_manifest

    def interrupted(folder, manifest):
        os.kill(os.getpid(), signal.SIGINT)
        return write(folder, manifest)

    monkeypatch.setattr(outdir, "write_manifest", interrupted)
    with pytest.raises(KeyboardInterrupt):
        convert(SAMPLE, tmp_path / "out", to="semafor")
    assert "train.frame.elements" in check_finished(tmp_path / "out")["outputs"]
    assert _listed(tmp_path / "out") == []


# ---------------------------------------------------------------- the other friction of issue 15


def test_the_repository_root_is_not_taken_for_the_bundled_sample(tmp_path, capsys):
    assert main(["convert", "--source", str(REPO), "--target", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"pyfn: error: {REPO}: not a FrameNet release (looked for fulltext/, lu/, frame/ or frRelation.xml "
                   "in it, in a folder directly inside it and in an NLTK framenet_v1N folder); one lies deeper, in "
                   f"{REPO / 'resources' / 'sample'}: pass that folder as the source")
    assert not (tmp_path / "out").exists()


def _no_nltk_data(tmp_path: Path, monkeypatch) -> PreprocessOptions:
    import nltk  # noqa: PLC0415

    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty")])
    return PreprocessOptions(tool="nltk", nltk_data=str(tmp_path / "empty"), cache_dir=None)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (_no_nltk_data, "NLTK data missing"),
        (lambda tmp, mp: PreprocessOptions(tool="spacy", model="no_such_model_pyfn"),
         "'no_such_model_pyfn' is not installed"),
        (lambda tmp, mp: PreprocessOptions(tool="conll", parse=str(tmp / "{split}.conllu")),
         "train.conllu: no such parse file for split train"),
    ],
    ids=["no-nltk-data", "unknown-spacy-model", "no-parse"],
)
def test_preprocessing_that_cannot_run_fails_before_the_release_is_read(tmp_path, monkeypatch, options, message):
    def read(*args, **kwargs):
        raise AssertionError("the release was read")

    monkeypatch.setattr("pyfn.convert.build_splits", read)
    with pytest.raises(PyfnError, match=message):
        convert(SAMPLE, tmp_path / "out", to=["semafor", "conllu"], preprocess=options(tmp_path, monkeypatch))
    assert not (tmp_path / "out").exists()


def test_paths_in_messages_and_the_manifest(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["convert", "--source", "sample", "--to", "bios", "--target", "out/"]) == 0
    err = capsys.readouterr().err
    assert " by reason in out/manifest.json [" in err and "//" not in err
    assert main(["convert", "--from", "bios", "--source", "out/", "--target", "copy", "--quiet"]) == 0
    source = json.loads((tmp_path / "copy" / "manifest.json").read_text())["source"]
    assert (source["path"], source["resolved"]) == ("out/", str(tmp_path / "out"))
    release = json.loads((tmp_path / "out" / "manifest.json").read_text())["source"]
    assert release["resolved"] == str(SAMPLE.resolve())


def test_an_edited_copy_of_a_conversion_is_refused_saying_what_to_do(tmp_path):
    convert(SAMPLE, tmp_path / "a", to="bios")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    with open(tmp_path / "b" / "train.bios", "a", encoding="utf-8") as handle:
        handle.write("\n")
    advice = (f"b: train.bios changed since manifest.json was written \\(edited\\?\\): not a finished pyfn output; "
              f"rerun the conversion, or, to use the edited files, remove {tmp_path / 'b' / 'manifest.json'} and "
              f"read them with `pyfn convert --from FORMAT --source {tmp_path / 'b'}`")
    with pytest.raises(PyfnError, match=advice):
        convert(tmp_path / "b", tmp_path / "c", from_="bios", to="jsonl")
    (tmp_path / "b" / "manifest.json").unlink()  # the advice, followed
    assert convert(tmp_path / "b", tmp_path / "c", from_="bios", to="jsonl")["splits"]["train"]["annotation_sets"]
