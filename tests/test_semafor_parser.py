"""SEMAFOR run on pyfn's data (pyfn.parsers.semafor): the glue without Java, and an end-to-end run on the
bundled sample when SEMAFOR_HOME, SEMAFOR_JWNL, a JDK and spaCy are there (skipped otherwise)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.resources import resource_path
from pyfn.parsers import blas, semafor
from pyfn.cli import semafor as semafor_command

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
TAGS = [  # all.lemma.tags lines: count, tokens, POS, ... (only tokens and POS are read by the maps)
    "3\tI\tthink\tso\tPRP\tVBP\tRB",
    "4\tHe\tsaid\tit\tloud\tPRP\tVBD\tPRP\tJJ",
]
FES = [
    "1\t0.0\t3\tAwareness\tthink.v\t1\tthink\t0\tCognizer\t0\tContent\t2",
    "1\t0.0\t1\tStatement\tsay.v\t1\tsaid\t1",
    "1\t0.0\t2\tStatement\tsay.v\t1\tsaid\t1\tSpeaker\t0",
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_train_maps_from_training_lines(tmp_path):
    fes, tags = _write(tmp_path / "train.frame.elements", FES), _write(tmp_path / "train.tags", TAGS)
    assert semafor.train_fe_map(fes) == ["Awareness\tCognizer", "Awareness\tContent", "Statement\tSpeaker"]
    assert semafor.train_lu_map(fes, tags) == ["Awareness\tthink_VBP", "Statement\tsaid_VBD"]
    _write(fes, ["1\t0.0\t1\tStatement\tsay.v\t1\tsaid\t0"])
    assert semafor.train_fe_map(fes) == ["Statement"]  # a frame seen without frame elements: the key alone


def test_maps_name_the_bad_line(tmp_path):
    fes = _write(tmp_path / "train.frame.elements", [FES[0], "1\t0.0\t2\tStatement"])
    with pytest.raises(PyfnError, match=r"train.frame.elements, line 2"):
        semafor.train_fe_map(fes)
    tags = _write(tmp_path / "train.tags", TAGS[:1])
    with pytest.raises(PyfnError, match=r"sentence 1 beyond"):
        semafor.train_lu_map(_write(fes, FES[1:2]), tags)


RELATIONS = b"""<?xml version="1.0" encoding="UTF-8"?>
<frameRelations xmlns="http://framenet.icsi.berkeley.edu">
 <frameRelationType name="Inheritance" superFrameName="Parent" subFrameName="Child">
  <frameRelation subFrameName="Text" superFrameName="Artifact"/>
  <frameRelation subFrameName="Artifact" superFrameName="Entity"/>
 </frameRelationType>
 <frameRelationType name="Using" superFrameName="Parent" subFrameName="Child">
  <frameRelation subFrameName="Text" superFrameName="Statement"/>
 </frameRelationType>
</frameRelations>"""


def test_frame_costs_follow_inheritance_upwards():
    lines = semafor.frame_costs(RELATIONS, ["Artifact", "Entity", "Statement", "Text"])
    assert lines[0] == ",Artifact,Entity,Statement,Text"
    rows = {line.split(",")[0]: dict(zip(lines[0].split(",")[1:], line.split(",")[1:])) for line in lines[1:]}
    assert rows["Text"] == {"Artifact": "0.2000", "Entity": "0.3600", "Statement": "1.0", "Text": "0.0000"}
    assert rows["Entity"]["Text"] == "1.0"  # downwards is not cheaper


def test_wordnet_config_points_at_the_dictionary(tmp_path):
    resources = tmp_path / "inst" / "src" / "src" / "main" / "resources"
    resources.mkdir(parents=True)
    (resources / "file_properties.xml").write_text(
        '<x><param name="dictionary_path" value="dict"/><param name="other" value="dict"/></x>', encoding="utf-8")
    wordnet = tmp_path / "wn"
    with pytest.raises(PyfnError, match="index.noun"):
        semafor.wordnet_config(tmp_path / "inst", wordnet)
    wordnet.mkdir()
    (wordnet / "index.noun").write_text("", encoding="utf-8")
    text = semafor.wordnet_config(tmp_path / "inst", wordnet)
    assert f'name="dictionary_path" value="{wordnet}"' in text and 'name="other" value="dict"' in text


def test_setup_refuses_without_a_checkout_and_says_how(monkeypatch, capsys):
    monkeypatch.delenv("SEMAFOR_HOME", raising=False)
    assert main(["semafor", "setup"]) == 2
    err = capsys.readouterr().err
    assert "git clone https://github.com/Noahs-ARK/semafor" in err and "4dfe952" in err
    assert "apt-get install" in err and "wordnet-base" in err


APT_OUTPUT = """Preparing to unpack .../8-wordnet-gui_1%3a3.0-37_amd64.deb ...
Unpacking wordnet-gui (1:3.0-37) ...
Setting up libjcommander-java (1.71-4) ...
Setting up wordnet-base (1:3.0-37) ...
Setting up libc6:amd64 (2.36-9+deb12u9) ...
Setting up junit4 (4.13.2-3) ...
Processing triggers for man-db (2.11.2-2) ...
"""  # lines as apt-get install printed them here (2026-11-28), plus an architecture-qualified name


def test_setup_says_what_apt_installed(monkeypatch):
    assert semafor.set_up_packages(APT_OUTPUT) == [
        "libjcommander-java 1.71-4", "wordnet-base 1:3.0-37", "libc6 2.36-9+deb12u9", "junit4 4.13.2-3"]
    installed: set[str] = set()
    calls: list[list[str]] = []

    def run(argv, what, **_):
        calls.append(list(argv))
        if argv[1] == "install":
            installed.update(argv[4:])
            return APT_OUTPUT
        return ""

    monkeypatch.setattr(semafor, "_run", run)
    monkeypatch.setattr(semafor.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(semafor, "_package_versions",
                        lambda packages: {p: ("1" if p in installed or p != "junit4" else None) for p in packages})
    messages: list[str] = []
    with pytest.raises(PyfnError, match="run `apt-get install junit4`"):
        semafor._ensure_packages(False, messages.append)
    assert calls == []
    versions = semafor._ensure_packages(True, messages.append)
    assert calls[-1] == ["apt-get", "install", "-y", "-q", "junit4"] and versions["junit4"] == "1"
    assert messages[-1].endswith("apt-get installed 4 package(s): libjcommander-java 1.71-4, wordnet-base 1:3.0-37, "
                                 "libc6 2.36-9+deb12u9, junit4 4.13.2-3")


def test_setup_refuses_a_folder_that_is_not_semafor(tmp_path):
    with pytest.raises(PyfnError, match="not a checkout"):
        semafor.setup(tmp_path, tmp_path)


def test_shipped_patch_and_configs():
    patch = semafor.default_patch().read_text(encoding="utf-8")
    for touched in ("IndexedLabeledPath.java", "SemaforParseResult.java", "TrainingBatchMain.java", "Training.java",
                    "org/pcollections/HashTreePMap.java", "DecodeGivenFrames.java", "SetMapFile.java"):
        assert touched in patch
    for stage in semafor.STAGES:
        settings = json.loads(semafor.default_config(stage).read_text(encoding="utf-8"))
        assert {"heap", "threads", "lambda", "max_iterations", "save_every"} <= set(settings)


def test_import_of_semafor_output_scores_its_arguments(tmp_path):
    """Lines as DecodeGivenFrames writes them (0-based rank, score, a trailing TAB when no argument) are read
    by `pyfn convert --from semafor --to semeval`."""
    gold = tmp_path / "gold"
    assert main(["convert", "--source", "sample", "--to", "semafor", "semeval", "--target", str(gold), "--quiet"]) == 0
    out = tmp_path / "out"
    out.mkdir()
    shutil.copyfile(gold / "test.sentences", out / "test.sentences")
    lines = (gold / "test.frames").read_text(encoding="utf-8").splitlines()
    first = lines[0].split("\t")
    target = int(first[5].split("_")[0])
    predicted = [f"0\t12.5\t2\t{chr(9).join(first[3:8])}\tSomeFE\t{target}"]
    predicted += [f"0\t3.0\t1\t{chr(9).join(line.split(chr(9))[3:8])}\t" for line in lines[1:]]
    _write(out / "test.frame.elements", predicted)
    xml = tmp_path / "xml"
    assert main(["convert", "--from", "semafor", "--to", "semeval", "--source", str(out), "--target", str(xml),
                 "--gold", str(gold), "--splits", "test", "--quiet"]) == 0
    text = (xml / "test.predicted.xml").read_text(encoding="utf-8")
    assert text.count('name="SomeFE"') == 1
    assert text.count("frameName=") == len(lines)


def _fake_java(script):
    """A stand-in for :func:`semafor._java` that writes what ``script(step, args)`` returns as the log."""
    calls = []

    def run(installation, run, step, cls, args, *, heap, threads, log_name=None):
        calls.append((step, list(args)))
        lines = script(step, list(args), Path(run))
        with (Path(run) / "logs" / f"{log_name}.log").open("a", encoding="utf-8") as out:
            for stamp, line in lines:
                out.write(f"{stamp:.3f} {line}\n")
        return 1.0
    return run, calls


@pytest.fixture
def trained_run(tmp_path, monkeypatch):
    """A run folder whose argument alphabet and cache steps are recorded done (4 weights)."""
    inst = tmp_path / "inst"
    inst.mkdir()
    (inst / "install.json").write_text(json.dumps({"patches": {"semafor.patch": "x"}, "classpath": []}),
                                       encoding="utf-8")
    run = tmp_path / "run"
    for folder in ("argid", "logs", "data"):
        (run / folder).mkdir(parents=True)
    (run / "prepare.json").write_text(json.dumps({"commit": "c", "inputs": {}, "maps": {}}), encoding="utf-8")
    (run / "argid" / "parser.conf").write_text("3\nf1\t1\n", encoding="utf-8")
    for step in ("alphabet", "cache"):
        (run / "argid" / f"{step}.done.json").write_text(json.dumps({"seconds": 1.0}), encoding="utf-8")
    config = tmp_path / "argid.json"
    config.write_text(json.dumps({"heap": "1g", "threads": 1, "lambda": 0.1, "max_iterations": 20, "save_every": 5}),
                      encoding="utf-8")
    return inst, run, config


def _trainer(stop_at: int | None, killed_after: int | None = None):
    """A fake TrainingBatchMain: from its restart checkpoint, values and a checkpoint every 5 iterations."""
    def script(step, args, run):
        start = 0
        restart = [a for a in args if a.startswith("restartfile:") and a != "restartfile:null"]
        lines = [(100.0, "$ java TrainingBatchMain")]
        if restart:
            start = int(restart[0].rsplit("_", 1)[1])
            lines.append((100.5, f"Restarting from {restart[0][12:]} at iteration {start}"))
        end = stop_at if stop_at is not None else killed_after
        for i in range(start, end):
            lines += [(101.0 + 2 * i, f"Starting iteration:{i}"), (102.0 + 2 * i, f"Function value:{1000.0 / (i + 1)}"),
                      (102.0 + 2 * i, f"\t{i + 1}\t{i + 2}\t{1000.0 / (i + 1)}\t{9.0 / (i + 1)}\t1.0")]
            if (i + 1) % 5 == 0:
                (run / "argid" / f"argmodel.dat_{i + 1}").write_text("0.5\n" * 4, encoding="utf-8")
        if stop_at is not None:
            (run / "argid" / "argmodel.dat").write_text("0.5\n" * 4, encoding="utf-8")
            lines += [(200.0, f"Stopped at iteration:{stop_at} (budget)"), (200.0, "$ exit 0")]
        return lines
    return script


def test_training_resumes_from_the_last_complete_checkpoint(trained_run, monkeypatch):
    inst, run, config = trained_run
    fake, calls = _fake_java(_trainer(None, killed_after=12))
    monkeypatch.setattr(semafor, "_java", fake)
    with pytest.raises(PyfnError, match="without its final model"):
        semafor.train(inst, run, "argid", config)
    assert [n for n, _ in semafor.checkpoints(run / "argid", "argmodel.dat")] == [5, 10]
    (run / "argid" / "argmodel.dat_15").write_text("0.5\n", encoding="utf-8")  # killed while writing it
    fake, calls = _fake_java(_trainer(20))
    monkeypatch.setattr(semafor, "_java", fake)
    record = semafor.train(inst, run, "argid", config)
    assert "restartfile:argid/argmodel.dat_10" in calls[0][1] and "maxiterations:20" in calls[0][1]
    assert record["attempts"] == 2 and record["iterations"] == 20 and record["stopped"] == "budget"
    assert record["machine"] == blas.machine()  # where it finished; each attempt records its own
    attempts = json.loads((run / "argid" / "attempts.json").read_text(encoding="utf-8"))
    assert attempts[0]["restart_from"] is None and attempts[0]["lbfgs_memory"] == "fresh start"
    assert attempts[1]["restart_from"] == "argmodel.dat_10" and attempts[1]["lbfgs_memory"].startswith("lost")
    assert attempts[1]["incomplete_checkpoints_removed"] == ["argmodel.dat_15"]
    assert attempts[0]["machine"] == attempts[1]["machine"] == blas.machine()
    assert semafor.train(inst, run, "argid", config) == record  # finished: not run again


def test_progress_record_reads_the_run_folder(trained_run, monkeypatch):
    inst, run, config = trained_run
    monkeypatch.setattr(semafor, "_java", _fake_java(_trainer(None, killed_after=12))[0])
    with pytest.raises(PyfnError):
        semafor.train(inst, run, "argid", config)
    stopped = semafor.progress(run, "argid", resume_command="")
    assert stopped["status"] == "stopped" and stopped["iterations_done"] == 12
    budget = json.loads(config.read_text(encoding="utf-8"))["max_iterations"]
    assert stopped["remaining"]["iterations_at_most"] == budget - 12 == 8
    assert stopped["remaining"]["seconds_at_recent_speed"] == 8 * 2
    monkeypatch.setattr(semafor, "_java", _fake_java(_trainer(20))[0])
    semafor.train(inst, run, "argid", config)
    (run / "logs" / "argid-train.gc.1.log").write_text(
        "[1s][info][gc] GC(0) Pause Young (Allocation Failure) 512M->100M(1024M) 1.0ms\n"
        "[2s][info][gc] GC(1) Pause Full 900M->300M(1500M) 9.0ms\n", encoding="utf-8")
    record = semafor.progress(run, "argid", resume_command="pyfn semafor train ...")
    assert record["status"] == "finished" and record["restarts"] == 1 and record["iterations_done"] == 20
    assert record["remaining"] is None
    assert [a["iterations"] for a in record["attempts"]] == [[0, 11], [10, 19]]
    assert record["seconds_per_iteration"]["median"] == 2.0
    assert record["objective"]["first"] == 1000.0 and record["objective"]["last"] == 50.0
    assert [c["name"] for c in record["checkpoints"]] == ["argmodel.dat_5", "argmodel.dat_10", "argmodel.dat_15",
                                                         "argmodel.dat_20"]
    assert record["heap"]["train"] == {"peak_used_mb": 900, "peak_committed_mb": 1500, "gc_logs": 1}
    assert record["attempts"][1]["lbfgs_last"]["iterations"] == 20
    assert "memory" in record["restart_note"] and record["resume_command"] == "pyfn semafor train ..."


def test_status_command_writes_the_record(trained_run, tmp_path, monkeypatch, capsys):
    inst, run, config = trained_run
    output = tmp_path / "progress.json"
    assert main(["semafor", "status", "--run", str(run), "--output", str(output)]) == 0
    assert capsys.readouterr().out == f"argid: not started; 0 iterations; no objective value yet; 0 restart(s); wrote {output}\n"
    monkeypatch.setattr(semafor, "_java", _fake_java(_trainer(20))[0])
    semafor.train(inst, run, "argid", config)
    assert main(["semafor", "status", "--run", str(run), "--output", str(output)]) == 0
    record = json.loads(output.read_text(encoding="utf-8"))
    assert record["iterations_done"] == 20 and "nice -n 19 pyfn semafor train" in record["resume_command"]
    out = capsys.readouterr().out
    assert "20 iterations; objective 1,000 -> 50; 0 restart(s);" in out and out.rstrip().endswith(f"wrote {output}")
    assert main(["semafor", "status", "--run", str(run)]) == 0  # the summary alone
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("argid: finished; 20 iterations") and "wrote" not in out
    assert main(["semafor", "status", "--run", str(run), "--json"]) == 0  # the record alone: JSON a tool can read
    assert json.loads(capsys.readouterr().out)["iterations_done"] == 20


def test_prepare_refuses_other_training_inputs_once_training_began(tmp_path):
    run = tmp_path / "run"
    (run / "argid").mkdir(parents=True)
    maps = {semafor.FE_MAP: "a", semafor.LU_MAP: "b"}
    inputs = {"train.frame.elements": "x", "train.all.lemma.tags": "y"}
    (run / "prepare.json").write_text(json.dumps({"inputs": inputs, "maps": {k: {"tsv_sha256": v} for k, v in
                                                                             maps.items()}}), encoding="utf-8")
    assert semafor._check_unchanged(run, {**inputs, "train.frame.elements": "z"}, maps)  # not begun: allowed
    (run / "argid" / "alphabet.done.json").write_text("{}", encoding="utf-8")
    semafor._check_unchanged(run, inputs, maps)
    with pytest.raises(PyfnError, match="train.frame.elements; prepare a new run folder"):
        semafor._check_unchanged(run, {**inputs, "train.frame.elements": "z"}, maps)
    with pytest.raises(PyfnError, match=semafor.FE_MAP):
        semafor._check_unchanged(run, inputs, {**maps, semafor.FE_MAP: "c"})


def _fake_decoder(run: Path, monkeypatch) -> list:
    """Test's inputs in ``run`` and a fake SEMAFOR decoder writing one line of predictions; its calls."""
    for name in ("test.frames", "test.all.lemma.tags", "test.sentences"):
        (run / "data" / name).write_text(f"{name}\n", encoding="utf-8")

    def decoder(step, args, run_folder):
        if step == "decode test":
            (run_folder / args[-1]).write_text("1\t0.0\t1\tFrame\tlu.v\t0\tword\t0\n", encoding="utf-8")
        return []
    java, calls = _fake_java(decoder)
    monkeypatch.setattr(semafor, "_java", java)
    return calls


def test_decode_refuses_an_incomplete_checkpoint_and_writes_a_complete_ones_predictions(trained_run, monkeypatch,
                                                                                        tmp_path):
    inst, run, _ = trained_run
    size = semafor.alphabet_size(run / "argid" / "parser.conf")
    (run / "argid" / "argmodel.dat_5").write_text("0.5\n" * size, encoding="utf-8")
    (run / "argid" / "argmodel.dat_10").write_text("0.5\n" * (size - 1), encoding="utf-8")  # cut while written
    calls = _fake_decoder(run, monkeypatch)
    out = tmp_path / "out"
    with pytest.raises(PyfnError, match=rf"argmodel.dat_10: {size - 1} weights where the alphabet has {size}"):
        semafor.decode(inst, run, "test", out, model="argmodel.dat_10")
    assert not calls and not out.exists()  # refused before anything ran or was written
    record = semafor.decode(inst, run, "test", out, model="argmodel.dat_5")
    assert record["model"] == "argmodel.dat_5" and [c[0] for c in calls] == ["decode test features", "decode test"]
    assert record["training"] == "unfinished"  # a checkpoint, not the model a finished training ended with
    assert (out / "test.frame.elements").read_text(encoding="utf-8").startswith("1\t0.0\t1\tFrame")
    assert (out / "test.sentences").read_text(encoding="utf-8") == "test.sentences\n"
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*"))


def test_decode_records_the_final_model_and_refuses_one_changed_after_training(trained_run, monkeypatch, tmp_path):
    inst, run, config = trained_run
    monkeypatch.setattr(semafor, "_java", _fake_java(_trainer(20))[0])
    trained = semafor.train(inst, run, "argid", config)
    calls = _fake_decoder(run, monkeypatch)
    record = semafor.decode(inst, run, "test", tmp_path / "out")
    assert record["training"] == "finished" and record["model_sha256"] == trained["model_sha256"]
    (run / "argid" / "argmodel.dat").write_text("0.7\n" * 4, encoding="utf-8")
    calls.clear()
    with pytest.raises(PyfnError, match=r"argmodel.dat: sha256 .* the model changed after its training"):
        semafor.decode(inst, run, "test", tmp_path / "changed")
    assert not calls and not (tmp_path / "changed").exists()


def test_resume_command_runs_in_the_background_at_low_priority(tmp_path):
    command = semafor_command.resume_command(tmp_path, "argid", None)
    assert "pyfn semafor setup --install-packages --quiet && nohup nice -n 19 pyfn semafor train --run" in command
    assert command.endswith("2>&1 &")


def _available() -> str | None:
    """Why the end-to-end test cannot run here (None: it can)."""
    if not os.environ.get("SEMAFOR_HOME") or not os.environ.get("SEMAFOR_JWNL"):
        return "SEMAFOR_HOME and SEMAFOR_JWNL not set"
    if shutil.which("javac") is None or shutil.which("dpkg-query") is None:
        return "no JDK or not Debian"
    return None


@pytest.mark.skipif(_available() is not None, reason=str(_available()))
def test_end_to_end_on_the_sample(tmp_path, spacy_model):
    """Build (or reuse) SEMAFOR, train its argument model on the sample's train, decode test given gold frames,
    import and score it."""
    data = tmp_path / "data"
    assert main(["convert", "--source", "sample", "--to", "semafor", "conllx", "semeval", "--target", str(data),
                 "--preprocess", "spacy", "--model", spacy_model, "--quiet"]) == 0
    installation = semafor.setup(Path(os.environ["SEMAFOR_HOME"]), Path(os.environ["SEMAFOR_JWNL"]), unit_tests=False)
    run = tmp_path / "run"
    semafor.prepare(installation, data, SAMPLE, run, required_data=False)
    config = tmp_path / "argid.json"
    config.write_text(json.dumps({"heap": "1g", "threads": 1, "lambda": 0.1, "max_iterations": 8, "save_every": 5}),
                      encoding="utf-8")
    record = semafor.train(installation, run, "argid", config)
    assert record["iterations"] == 8 and record["stopped"] in ("budget", "converged")
    progress = semafor.progress(run, "argid")
    assert progress["objective"]["last"] < progress["objective"]["first"]
    out = tmp_path / "out"
    assert semafor.decode(installation, run, "test", out)["training"] == "finished"
    frames = (data / "test.frames").read_text(encoding="utf-8").splitlines()
    assert len((out / "test.frame.elements").read_text(encoding="utf-8").splitlines()) == len(frames)
    xml = tmp_path / "xml"
    assert main(["convert", "--from", "semafor", "--to", "semeval", "--source", str(out), "--target", str(xml),
                 "--gold", str(data), "--splits", "test", "--quiet"]) == 0
    scores = tmp_path / "scores.json"
    assert main(["score", "--mode", "argsonly", "--gold", str(data / "test.gold.xml"), "--pred",
                 str(xml / "test.predicted.xml"), "--framenet", str(SAMPLE), "--json", "--output", str(scores)]) == 0
    assert json.loads(scores.read_text(encoding="utf-8"))


def test_prepare_takes_sample_as_the_bundled_sample(monkeypatch, tmp_path):
    seen = {}

    def prepare(installation, data, source, run, **_):
        seen["source"] = source
        return {"commit": "0" * 40}

    monkeypatch.setattr(semafor_command, "_installation", lambda args: tmp_path)
    monkeypatch.setattr(semafor, "prepare", prepare)
    assert main(["semafor", "prepare", "--data", str(tmp_path), "--source", "sample", "--run", str(tmp_path / "run"),
                 "--quiet"]) == 0
    assert seen["source"] == resource_path("sample")


def test_status_of_a_folder_that_is_not_a_run_is_an_error(tmp_path, capsys):
    assert main(["semafor", "status", "--run", str(tmp_path / "typo")]) == 1
    assert "typo: not a prepared SEMAFOR run folder" in capsys.readouterr().err
