"""Open-SESAME glue (pyfn open-sesame setup/prepare/train/decode) against a fake parser with Open-SESAME's
command line, paths and printed evaluation; the importer on real Open-SESAME output (tests/parsers/)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.parsers import blas, install
from pyfn.parsers import open_sesame as sesame
from pyfn.parsers.open_sesame_progress import progress

FAKE = r'''
import json, os, shutil, sys
from optparse import OptionParser
stage = sys.argv[0].rsplit("/", 1)[-1][:-3]
p = OptionParser()
for o in ("--mode", "--model_name", "--config", "--raw_input", "--testf"):
    p.add_option(o)
p.add_option("--dynet-seed", dest="seed")
opts, _ = p.parse_args()
cfg = json.load(open("configurations/global_config.json"))
v = str(cfg["version"])
assert os.path.isfile(cfg["embeddings_file"]) and os.path.isdir("data/fndata-%s/frame" % v)
d = "logs/%s/" % opts.model_name
os.makedirs(d, exist_ok=True)
with open(d + "calls", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
data = "data/open_sesame_v1_data/fn%s/fn%s." % (v, v)
if opts.mode == "train" and opts.config:
    shutil.copyfile(opts.config, d + "configuration.json")
if os.environ.get("FAKE_STATE") and opts.mode in ("train", "refresh"):  # pyfn's patch of argid.py
    path = d + "pyfn-state.json"
    if opts.mode == "refresh":
        state = json.load(open(path))
        state["resumes"].append({"epoch": state["epoch"], "example": state["example"], "elapsed": state["elapsed"]})
    else:
        state = {"checkpoint": 0, "evaluations": [], "epoch_ends": [], "resumes": [], "order": [2, 0, 1]}
    n = len(state["evaluations"])
    state["checkpoint"] += 1
    state["evaluations"].append({"epoch": 0, "example": 2 * n + 1, "lp": 0.5, "lr": 0.5, "lf": 0.5 + n / 10,
                                 "dev_seconds": 10.0, "elapsed": 100.0 * (n + 1), "dev_cpu": 5.0, "cpu": 50.0 * (n + 1)})
    state.update(model="last-argid-%s-model.%d" % (v, state["checkpoint"] % 2), epoch=0, example=2 * n + 1,
                 last_updated_epoch=0, elapsed=100.0 * (n + 1),
                 finished=None if os.environ.get("FAKE_CRASH") else "patience")
    open(d + state["model"], "w").write("weights %d" % n)
    json.dump(state, open(path, "w"))
    if os.environ.get("FAKE_CRASH"):
        sys.exit("killed")
if opts.mode in ("train", "refresh"):
    if os.environ.get("FAKE_CRASH"):
        open(d + "best-%s-%s-model" % (stage, v), "w").write("half")
        open(d + "best-dev-f1.txt", "w").write("0.5\n")
        sys.exit("RuntimeError: Magnitude of gradient is bad: -nan")
    open(d + "best-%s-%s-model" % (stage, v), "w").write("model " + str(opts.seed))
    open(d + "best-dev-f1.txt", "w").write("0.75\n")
    print("Ran out of patience, ending training.", file=sys.stderr)
elif stage == "frameid" and opts.mode == "test":
    shutil.copyfile(data + "test.syntaxnet.conll", d + "predicted-%s-frameid-test.conll" % v)
    open(d + "predicted-%s-frameid-test.fes" % v, "w").write("")
    print("[test] p = 0.8595 (3565.0/4148.0) r = 0.8595 (3565.0/4148.0) f1 = 0.8595", file=sys.stderr)
elif stage == "frameid":
    shutil.copyfile(opts.raw_input, d + "predicted-frames.conll")
else:
    shutil.copyfile(opts.testf, d + "predicted-%s-argid-test.conll" % v)
    for k in "wul":
        print("[test] %spr = 0.50000 (1.0/2.0) %sre = 0.25000 (1.0/4.0)" % (k, k), file=sys.stderr)
    print("[test] wf1 = 0.33333 uf1 = 0.33333 lf1 = 0.33333 [took 1.000s]", file=sys.stderr)
'''


@pytest.fixture(scope="module")
def fake_home(tmp_path_factory):
    """A git checkout laid out as Open-SESAME's, with a fake of its two models."""
    home = tmp_path_factory.mktemp("open-sesame")
    (home / "sesame").mkdir()
    (home / "sesame" / "__init__.py").write_text("")
    for stage in sesame.STAGES:
        (home / "sesame" / f"{stage}.py").write_text(FAKE)
    for argv in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fake"]):
        subprocess.run(["git", "-C", str(home), *argv], check=True)
    return home


@pytest.fixture(scope="module")
def installed(fake_home, tmp_path_factory):
    """The fake installed without patches or pins (a bare venv: no registry needed)."""
    return install.install(sesame.NAME, fake_home, sesame.MARKER, [], (), tmp_path_factory.mktemp("parsers"))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A pyfn conversion of the sample to BIOS and SemEval XML."""
    out = tmp_path_factory.mktemp("data") / "data"
    assert main(["convert", "--source", "sample", "--to", "bios", "semeval", "--target", str(out), "--quiet"]) == 0
    return out


def test_install_copies_the_commit_and_applies_patches(fake_home, tmp_path):
    (fake_home / "sesame" / "frameid.py").write_text("uncommitted edit")  # the user's tree: only HEAD is copied
    patch = tmp_path / "x.patch"
    patch.write_text("--- a/sesame/__init__.py\n+++ b/sesame/__init__.py\n@@ -0,0 +1 @@\n+PATCHED = True\n")
    try:
        folder = install.install("p", fake_home, sesame.MARKER, [patch], (), tmp_path / "root")
    finally:
        subprocess.run(["git", "-C", str(fake_home), "checkout", "-q", "--", "."], check=True)
    record = install.read_record(folder)
    assert (folder / "src" / "sesame" / "__init__.py").read_text() == "PATCHED = True\n"
    assert (folder / "src" / "sesame" / "frameid.py").read_text() == FAKE
    assert (fake_home / "sesame" / "__init__.py").read_text() == ""  # the checkout is never patched
    assert record["patches"] == {"x.patch": install.sha256_file(patch)} and len(record["commit"]) == 40
    assert install.install("p", fake_home, sesame.MARKER, [patch], (), tmp_path / "root") == folder  # reused


def test_install_refuses_a_bad_patch_and_records_nothing(fake_home, tmp_path):
    patch = tmp_path / "bad.patch"
    patch.write_text("--- a/nowhere.py\n+++ b/nowhere.py\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(PyfnError, match="patch .*bad.patch"):
        install.install("p", fake_home, sesame.MARKER, [patch], (), tmp_path)
    assert not list(tmp_path.glob("p-*/install.json"))


def test_install_refuses_what_is_not_a_checkout(tmp_path):
    with pytest.raises(PyfnError, match="not a checkout of the parser"):
        install.install("p", tmp_path, sesame.MARKER, [], (), tmp_path / "root")


def _patch_lines() -> dict[str, list[str]]:
    """The shipped patch's changed lines, by file name."""
    changed: dict[str, list[str]] = {}
    for line in sesame.default_patch().read_text(encoding="utf-8").splitlines():
        if line.startswith("+++ "):
            name = changed.setdefault(line.split("/")[-1], [])
        elif line.startswith(("+", "-")) and not line.startswith("---"):
            name.append(line)
    return changed


def test_shipped_patch_applies_only_what_its_header_says():
    changed = _patch_lines()
    assert changed.keys() == {"argid.py", "frameid.py", "targetid.py"}
    for name in ("frameid.py", "targetid.py"):  # 1 and 2 only: the -nan fix and the seeds
        assert all("affine_transform" in line or "seed" in line or line.startswith("-") or "help=" in line or
                   line.strip("+ ") == "" for line in changed[name])
        assert not [line for line in changed[name]
                    if line.startswith("-") and " * " not in line and "import" not in line]
    # 3, argid's resume: what it replaces of Open-SESAME's loop, and nothing else
    assert [line[1:].strip() for line in changed["argid.py"] if line.startswith("-") and " * " not in line] == [
        'if options.mode in ["test", "refresh", "predict"]:', 'if options.mode in ["refresh"]:',
        "starttime = time.time()", "for epoch, _ in enumerate(epoch_iterator):", "random.shuffle(trainexamples)",
        "train_iterator = tqdm.tqdm(trainexamples,", "for idx, trex in enumerate(train_iterator, 1):",
        "devstarttime = time.time()",
        'with open(os.path.join(model_dir, "best-dev-f1.txt"), "w") as fout:',
        'fout.write("{}\\n".format(best_dev_f1))',
        "fout.close()", "", "model.save(model_file_name)", "if epoch - last_updated_epoch > PATIENCE:", "loss = 0.0"]
    added = "\n".join(changed["argid.py"])
    for saved in ("epoch=epoch", "example=example", "order=", "random=random.getstate()",
                  "last_updated_epoch=last_updated_epoch", "best_dev_f1=best_dev_f1"):
        assert saved in added  # what a resume must get back
    assert "random.setstate(" in added and "model.populate(os.path.join(model_dir, state[\"model\"]))" in added


def test_prepare_train_decode_import_score(installed, data, tmp_path):
    run = tmp_path / "run"
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("1 2\nthe 0.1 0.2\n")
    source = Path(__file__).resolve().parent.parent / "resources" / "sample"
    record = sesame.prepare(installed, data, source, run, embeddings=vectors)
    assert record["embeddings"]["sha256"] == install.sha256_file(vectors) and record["inputs"].keys() == {
        "train.bios", "dev.bios", "test.bios"}
    assert json.loads((run / "configurations" / "global_config.json").read_text())["version"] == 1.5
    assert (run / "data" / "fndata-1.5" / "frRelation.xml").is_file()
    config = tmp_path / "budget.json"
    config.write_text('{"num_epochs": 2}')
    trained = sesame.train(installed, run, "frameid", "fid", config, 7)
    assert trained["best_dev"] == 0.75 and trained["stopped"] == "patience" and trained["budget"] == {"num_epochs": 2}
    assert (run / "logs" / "fid" / "calls").read_text().split("\n")[0] == (
        f"--mode train --model_name fid --dynet-seed 7 --config {config}")
    assert sesame.train(installed, run, "frameid", "fid", config, 7) == trained  # done once
    out = tmp_path / "out"
    for split in ("dev", "test"):
        sesame.decode(installed, run, "frameid", "fid", split, out)
    own = json.loads((out / "test.frameid.own-eval.json").read_text())["own_evaluation"]
    assert own == {"precision": 0.8595, "recall": 0.8595, "f1": 0.8595, "matched": 3565.0, "predicted": 4148.0,
                   "gold": 4148.0}
    assert (out / "test.bios").read_bytes() == (data / "test.bios").read_bytes()
    sesame.train(installed, run, "argid", "aid", config, 1)
    full = tmp_path / "full"
    decoded = sesame.decode(installed, run, "argid", "aid", "test", full, frames_from=out / "test.bios")
    assert decoded["own_evaluation"]["labeled"] == {"precision": 0.5, "recall": 0.25, "matched": 1.0,
                                                     "predicted": 2.0, "gold": 4.0, "f1": 0.33333}
    imported = tmp_path / "imported"
    assert main(["convert", "--from", "bios", "--to", "semeval", "--source", str(out), "--target", str(imported),
                 "--gold", str(data), "--splits", "dev", "test", "--quiet"]) == 0
    assert main(["score", "--mode", "frames", "--gold", str(data / "test.gold.xml"), "--pred",
                 str(imported / "test.predicted.xml"), "--framenet", str(source), "--json",
                 "--output", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["f1"] == 1.0


def test_interrupted_training_resumes_from_the_saved_model(installed, data, tmp_path, monkeypatch):
    run = tmp_path / "run"
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("1 2\nthe 0.1 0.2\n")
    sesame.prepare(installed, data, Path(__file__).resolve().parent.parent / "resources" / "sample", run,
                   embeddings=vectors)
    config = tmp_path / "budget.json"
    config.write_text("{}")
    monkeypatch.setenv("FAKE_CRASH", "1")
    with pytest.raises(PyfnError, match=r"frameid training failed \(exit 1\) \(log: .*fid.train.log\): .*-nan"):
        sesame.train(installed, run, "frameid", "fid", config, 3)
    assert not (run / "logs" / "fid" / "pyfn-train.json").exists()
    monkeypatch.delenv("FAKE_CRASH")
    record = sesame.train(installed, run, "frameid", "fid", config, 3)
    calls = (run / "logs" / "fid" / "calls").read_text().splitlines()
    assert calls[1] == "--mode refresh --model_name fid --dynet-seed 3"
    assert record["resumed"] and record["attempts"] == 2
    assert record["machine"] == blas.machine()



def test_decode_records_the_model_and_whether_its_training_finished(installed, data, tmp_path, monkeypatch):
    run = _argid_run(installed, data, tmp_path)
    config = tmp_path / "budget.json"
    config.write_text("{}")
    monkeypatch.setenv("FAKE_CRASH", "1")
    with pytest.raises(PyfnError):
        sesame.train(installed, run, "frameid", "fid", config, 3)
    notes = []
    early = sesame.decode(installed, run, "frameid", "fid", "test", tmp_path / "early", log=notes.append)
    assert early["training"] == "unfinished" and any("no finished training" in note for note in notes)
    assert early["model_sha256"] == install.sha256_file(run / "logs" / "fid" / "best-frameid-1.5-model")
    monkeypatch.delenv("FAKE_CRASH")
    trained = sesame.train(installed, run, "frameid", "fid", config, 3)
    done = sesame.decode(installed, run, "frameid", "fid", "test", tmp_path / "done")
    assert done["training"] == "finished" and done["model_sha256"] == trained["model_sha256"] != early["model_sha256"]
    (run / "logs" / "fid" / "best-frameid-1.5-model").write_text("changed after its training")
    with pytest.raises(PyfnError, match=r"best-frameid-1.5-model: sha256 .* the model changed after its training"):
        sesame.decode(installed, run, "frameid", "fid", "test", tmp_path / "changed")
    assert not (tmp_path / "changed").exists()

def _argid_run(installed, data, tmp_path) -> Path:
    run = tmp_path / "run"
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("1 2\nthe 0.1 0.2\n")
    sesame.prepare(installed, data, Path(__file__).resolve().parent.parent / "resources" / "sample", run,
                   embeddings=vectors)
    return run


def test_argid_resumes_where_its_loop_was_saved(installed, data, tmp_path, monkeypatch):
    """Killed after a dev evaluation and before any best model: the state alone makes the next call a
    refresh with the budget it started with; the record counts the restart and says what it lost."""
    run = _argid_run(installed, data, tmp_path)
    config = tmp_path / "argid.json"
    config.write_text('{"num_epochs": 10, "patience": 3, "dev_eval_epoch_frequency": 1, "eval_after_every_epochs": 2}')
    monkeypatch.setenv("FAKE_STATE", "1")
    monkeypatch.setenv("FAKE_CRASH", "1")
    with pytest.raises(PyfnError, match="argid training failed"):
        sesame.train(installed, run, "argid", "aid", config, 5)
    folder = run / "logs" / "aid"
    assert not (folder / "best-argid-1.5-model").exists() and (folder / sesame.STATE).is_file()
    monkeypatch.delenv("FAKE_CRASH")
    changed = tmp_path / "other.json"
    changed.write_text('{"num_epochs": 1, "patience": 3, "dev_eval_epoch_frequency": 1, "eval_after_every_epochs": 2}')
    with pytest.raises(PyfnError, match=r"other.json: not the budget aid started with .*differs in num_epochs"):
        sesame.train(installed, run, "argid", "aid", changed, 5)
    record = sesame.train(installed, run, "argid", "aid", config, 5)
    calls = (folder / "calls").read_text().splitlines()
    assert calls == [f"--mode train --model_name aid --dynet-seed 5 --config {config}",
                     "--mode refresh --model_name aid --dynet-seed 5"]
    assert record["attempts"] == 2 and record["restarts"] == 1 and record["dev_evaluations"] == 2
    assert record["resumed_at"] == [{"epoch": 0, "example": 1, "elapsed": 100.0}]
    assert "Adam" in record["lost_at_restart"] and record["stopped"] == "patience"


def test_progress_record_of_an_argid_run(installed, data, tmp_path, monkeypatch, capsys):
    run = _argid_run(installed, data, tmp_path)
    config = tmp_path / "argid.json"
    config.write_text('{"num_epochs": 10, "patience": 3, "dev_eval_epoch_frequency": 1, "eval_after_every_epochs": 2}')
    with pytest.raises(PyfnError, match="no argid training state yet"):
        progress(run, "argid", "aid")
    monkeypatch.setenv("FAKE_STATE", "1")
    monkeypatch.setenv("FAKE_CRASH", "1")
    for _ in range(2):  # killed twice, each time after one more dev evaluation
        with pytest.raises(PyfnError):
            sesame.train(installed, run, "argid", "aid", config, 1)
    out = tmp_path / "progress.json"
    assert main(["open-sesame", "progress", "--run", str(run), "--model", "aid", "--output", str(out)]) == 0
    assert "aid: not finished; 1.0 of 10 epochs, 2 dev evaluations, best dev labeled F1 0.6" in capsys.readouterr().out
    record = json.loads(out.read_text())
    assert main(["open-sesame", "progress", "--run", str(run), "--model", "aid", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == record
    assert main(["open-sesame", "progress", "--run", str(run), "--model", "aid"]) == 0
    summary = capsys.readouterr().out
    assert summary.count("\n") == 1 and summary.startswith("aid: not finished") and "wrote" not in summary
    folder = run / "logs" / "aid"
    state = json.loads((folder / sesame.STATE).read_text())
    assert record["dev_labeled_f1"] == [{"epoch": 0, "example": 1, "precision": 0.5, "recall": 0.5, "f1": 0.5},
                                        {"epoch": 0, "example": 3, "precision": 0.5, "recall": 0.5, "f1": 0.6}]
    assert record["best_dev"] == {"epoch": 0, "example": 3, "f1": 0.6} and record["epochs_done"] == 1.0
    assert record["budget"]["dev_every_examples"] == 2
    assert record["stops_by_patience_after_epochs"] == 5  # improved in the first epoch: without another, the fifth is the last (4 - 0 > 3)
    last = {"file": state["model"], "sha256": install.sha256_file(folder / state["model"]), "epoch": 0, "example": 3}
    assert record["checkpoints"]["last"] == last
    assert record["checkpoints"]["best"]["sha256"] is None  # killed before any best model
    assert record["restarts"] == 1 and "Adam" in record["lost_at_restart"] and not record["trained"]
    # two examples trained in 200 - 10 (the second dev evaluation) - 100 seconds
    assert record["speed"]["train_examples_per_second"] == round(2 / 90, 3)
    assert record["speed"]["dev_evaluation_seconds"] == 10.0
    assert record["speed"]["train_examples_per_cpu_second"] == round(2 / 45, 3)  # 100 - 5 - 50 CPU seconds
    assert record["speed"]["dev_evaluation_cpu_seconds"] == 5.0
    assert record["speed"]["epoch_cpu_hours_estimated"] == round((3 / round(2 / 45, 3) + 5.0) / 3600, 2)  # 1 dev
    left, epoch_cpu = record["remaining"], record["speed"]["epoch_cpu_hours_estimated"]
    assert left["epochs_at_least"] == 4.0 and left["epochs_at_most"] == 9.0  # 5 by patience, 10 budgeted, 1 done
    assert left["cpu_hours_estimated"] == [round(4 * epoch_cpu, 1), round(9 * epoch_cpu, 1)]
    assert f"--run {run} --stage argid --model aid --config {config} --seed 1 >> " in record["resume_command"]
    assert record["resume_command"].startswith("nohup nice -n 19 pyfn open-sesame train --home ")


def test_refusals_name_what_to_do(installed, tmp_path):
    with pytest.raises(PyfnError, match="no train.bios, dev.bios, test.bios, train.sentences"):
        sesame.prepare(installed, tmp_path, tmp_path, tmp_path / "run")
    with pytest.raises(PyfnError, match="not a prepared Open-SESAME run folder"):
        sesame.train(installed, tmp_path, "frameid", "m", tmp_path / "c.json", 1)
    assert main(["open-sesame", "setup", "--home", str(tmp_path), "--quiet"]) == 1


def test_models_from_another_run_only_when_train_is_the_same(installed, data, tmp_path):
    """A variant that changes only dev/test is decoded with the models of the run that trained on the same
    train.bios, frames and embeddings; any other run is refused, and nothing of this run is replaced."""
    source = Path(__file__).resolve().parent.parent / "resources" / "sample"
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("1 2\nthe 0.1 0.2\n")
    config = tmp_path / "budget.json"
    config.write_text("{}")
    trained_run = tmp_path / "standard"
    sesame.prepare(installed, data, source, trained_run, embeddings=vectors)
    trained = sesame.train(installed, trained_run, "frameid", "fid", config, 1)
    variant = tmp_path / "variant-data"
    assert main(["convert", "--source", "sample", "--to", "bios", "semeval", "--target", str(variant), "--quiet",
                 "--filter", "disc_fes", "--filter-scope", "all"]) == 0
    other = tmp_path / "other-train"
    assert main(["convert", "--source", "sample", "--to", "bios", "semeval", "--target", str(other), "--quiet",
                 "--filter", "disc_fes"]) == 0
    with pytest.raises(PyfnError, match=r"--models-from .*standard: prepared with a different train.bios"):
        sesame.prepare(installed, other, source, tmp_path / "bad", embeddings=vectors, models_from=trained_run)
    assert not (tmp_path / "bad").exists()  # refused before anything is written
    with pytest.raises(PyfnError, match="not a prepared Open-SESAME run folder"):
        sesame.prepare(installed, data, source, tmp_path / "bad", embeddings=vectors, models_from=tmp_path / "none")
    assert not (tmp_path / "bad").exists()
    # dev/test differ (filtered), train is the standard one: the model is used, and recorded
    run = tmp_path / "reused"
    shutil.copyfile(data / "train.bios", variant / "train.bios")
    record = sesame.prepare(installed, variant, source, run, embeddings=vectors, models_from=trained_run)
    assert record["models_from"] == {"run": "../standard", "models": {"fid": trained["model_sha256"]}}
    assert record["data"] == "../variant-data" and record["frames"]["source"] == "sample"  # no machine paths
    assert sesame.train(installed, run, "frameid", "fid", config, 1) == trained  # nothing to train
    assert sesame.prepare(installed, variant, source, run, embeddings=vectors)["models_from"] == record["models_from"]
    out = tmp_path / "out"
    sesame.decode(installed, run, "frameid", "fid", "test", out)
    assert (out / "test.bios").read_bytes() == (variant / "test.bios").read_bytes()
    assert not list((trained_run / "logs" / "fid").glob("predicted-*"))  # the trained run is left alone
    # a run with its own, different training of the same model is never overwritten
    (run / "logs" / "fid" / "pyfn-train.json").write_text(json.dumps({"model_sha256": "mine"}))
    with pytest.raises(PyfnError, match="has its own training of fid"):
        sesame.prepare(installed, variant, source, run, embeddings=vectors, models_from=trained_run)


def test_progress_of_a_folder_that_is_not_a_run_is_an_error(tmp_path, capsys):
    assert main(["open-sesame", "progress", "--run", str(tmp_path / "typo")]) == 1
    assert "typo: not a prepared Open-SESAME run folder" in capsys.readouterr().err
