"""The manifest records what trained an external parser's models (its run folder's prepare.json: full commit,
pyfn's patches by sha256, pinned packages such as DyNet), and ``pyfn verify`` reports a change of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.xp import manifest as record
from pyfn.xp.steps import Layout
from pyfn.xp.training_section import training_rows
from pyfn.xp.verify import check

RECIPE = '''
[experiment]
number = "004"
title = "External parser environment"
purpose = "Checks that the manifest records the external parser's environment."

[framenet]
version = "1.5-sample"
source = "sample"

[data]
split = "standard"
formats = ["semeval"]

[preprocess]
tool = "none"

[[system]]
name = "ext"
task = "frameid"
home = "PYFN_TEST_PARSER_HOME"
install = "nothing to install"
train = []
decode = ["cp {data}/test.gold.xml {output}/test.predicted.xml"]
predictions = "semeval"
output = "work/ext_out"

[scoring]
splits = ["test"]
'''

PREPARED = {
    "parser": "open-sesame", "commit": "6d8395c7b1eaf75782fae436c556f51aa71b41ab",
    "patches": {"open-sesame.patch": "7dac145bad87e536ea98b69239c291410a83b29ac5c0d97c55ac339846d824df"},
    "pins": ["dynet38==2.2", "numpy==2.4.6"], "data": "../data", "version": "1.5",
}


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYFN_TEST_PARSER_HOME", "/usr")
    folder = tmp_path / "experiments" / "xp_004"
    (folder / "work" / "ext_out").mkdir(parents=True)
    (folder / "experiment.toml").write_text(RECIPE)
    for run in ("open-sesame", "variants/nltk/open-sesame"):
        (folder / "work" / run).mkdir(parents=True)
        (folder / "work" / run / "prepare.json").write_text(json.dumps(PREPARED))
    (folder / "work" / "other").mkdir()
    (folder / "work" / "other" / "prepare.json").write_text('{"step": "not a parser run"}')
    (folder / "work" / "a-link").symlink_to(folder / "work" / "open-sesame")  # recorded once, by its own path
    (folder / "work" / "other" / "cycle").symlink_to(folder / "work")
    cache = tmp_path / "cache" / "simpleframeid"  # a run folder kept outside the work tree, linked into it
    cache.mkdir(parents=True)
    (cache / "prepare.json").write_text(json.dumps(SITE_PREPARED))
    (folder / "work" / "simpleframeid").symlink_to(cache)
    return folder


SITE_PREPARED = {
    "parser": "simpleframeid", "commit": "bc029e9187be0787228609557ddc2f6f54bd97d9",
    "patches": {"simpleframeid.patch": "66cb3dce45d644427220560030c06e5bf171f00411842d8809b4cabfaf01a525"},
    "pins": ["gensim==4.4.0"], "data": "../data",
    "site": {"python": "/root/.pyenv/versions/2.7.18/bin/python2.7", "python_version": "Python 2.7.18",
             "pins": ["Keras==2.2.4"], "freeze": ["Keras==2.2.4", "Theano==1.0.5"]},
}


def test_manifest_records_the_external_parsers_and_verify_compares_them(folder, capsys):
    assert main(["xp", "run", "4"]) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    expected = {key: PREPARED[key] for key in ("parser", "commit", "patches", "pins")}
    site = {key: SITE_PREPARED[key] for key in ("parser", "commit", "patches", "pins")}
    site["site"] = {"python_version": "Python 2.7.18", "pins": ["Keras==2.2.4"],
                    "freeze": ["Keras==2.2.4", "Theano==1.0.5"]}  # the interpreter's path is the machine's
    assert manifest["parsers"] == {"work/open-sesame": expected, "work/simpleframeid": site,
                                   "work/variants/nltk/open-sesame": expected}
    assert check(folder) == []
    changed = dict(PREPARED, pins=["dynet38==2.1", "numpy==2.4.6"])
    (folder / "work" / "open-sesame" / "prepare.json").write_text(json.dumps(changed))
    drift = check(folder)
    at = drift.index("external parser in work/open-sesame:")  # beside the output's own drift (its sha256)
    assert "dynet38==2.2" in drift[at + 1] and "dynet38==2.1" in drift[at + 2]
    assert main(["verify", str(folder)]) == 1
    assert "external parser in work/open-sesame:" in capsys.readouterr().out


def test_a_manifest_recorded_before_parsers_were_recorded_still_verifies(folder):
    assert main(["xp", "run", "4"]) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["parsers"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert check(folder) == []


def test_unreadable_parser_record_names_the_file(folder):
    (folder / "work" / "open-sesame" / "prepare.json").write_text("{")
    with pytest.raises(Exception, match=r"open-sesame/prepare.json: not JSON"):
        record.parsers(Layout(Path("experiments/xp_004")))


SESAME_TRAINED = {  # as pyfn.parsers.open_sesame.train writes it when the training ends
    "stage": "argid", "model": "argid-dev4k", "seed": 1, "attempts": 3, "resumed": True, "stopped": "patience",
    "best_dev": 0.5812, "model_sha256": "ab" * 32, "epochs": 6, "dev_evaluations": 3, "restarts": 2,
    "budget": {"num_epochs": 10, "patience": 3, "dev_eval_epoch_frequency": 40, "eval_after_every_epochs": 100},
    "resumed_at": [{"epoch": 0, "example": 4001, "elapsed": 3600.5, "time": "2026-11-28T20:50:00Z"}],
}
SESAME_STATE = {"evaluations": [  # pyfn's patch of argid.py: 0-based epochs, Open-SESAME's labeled P/R/F1
    {"epoch": 0, "example": 4001, "lp": 0.363512, "lr": 0.216321, "lf": 0.271234, "elapsed": 900.1, "cpu": 800.2},
    {"epoch": 1, "example": 8001, "lp": 0.6, "lr": 0.57, "lf": 0.5812, "elapsed": 9000.0, "cpu": 8000.0},
    {"epoch": 5, "example": 16001, "lp": 0.61, "lr": 0.55, "lf": 0.57843, "elapsed": 20000.0, "cpu": 19000.0}]}
SEMAFOR_TRAINED = {  # as pyfn.parsers.semafor.train writes it
    "stage": "argid", "settings": {"heap": "10g", "lambda": 0.1, "max_iterations": 300, "save_every": 5,
                                   "threads": 2},
    "attempts": 5, "iterations": 299, "stopped": "maxiterations", "last_attempt_seconds": 51234.5,
    "model": "argid/argmodel.dat", "model_sha256": "cd" * 32}
SEMAFOR_LOG = """1795880426.212 $ java -Xmx10g edu.cmu.cs.lti.ark.fn.parsing.TrainingBatchMain
1795880480.930 Starting iteration:0
1795880855.277 Function value:588925.6992269317
1795880855.664 Starting iteration:1
1795881206.065 Function value:307664.3114147725
1795888034.032 $ java -Xmx10g edu.cmu.cs.lti.ark.fn.parsing.TrainingBatchMain
1795888040.000 Restarting from argid/argmodel.dat_1 at iteration 1
1795888100.000 Starting iteration:2
1795888350.000 Function value:41234.5
"""
SITE_TRAINED = {"model": "wsb-sentbow", "classifier": "wsb", "context": "sentbow", "seed": 1, "components": 1500,
                "max_sampled": 10, "epochs": 500, "seconds": 2929.6, "attempts": 2, "resumed_after_epochs": [29],
                "model_sha256": "ef" * 32, "prepared_sha256": "01" * 32, "embeddings_sha256": "23" * 32}


def _trained(folder: Path) -> None:
    sesame = folder / "work" / "open-sesame" / "logs" / "argid-dev4k"
    sesame.mkdir(parents=True)
    (sesame / "pyfn-train.json").write_text(json.dumps(SESAME_TRAINED))
    (sesame / "pyfn-state.json").write_text(json.dumps(SESAME_STATE))
    (folder / "work" / "open-sesame" / "logs" / "unfinished").mkdir()  # no record: not a finished training
    run = folder / "work" / "semafor"
    (run / "argid").mkdir(parents=True)
    (run / "logs").mkdir()
    (run / "prepare.json").write_text(json.dumps({"parser": "semafor", "commit": "be1f087" * 5 + "be1f0",
                                                  "patches": {"semafor.patch": "aa" * 32}}))
    (run / "argid" / "pyfn-train.json").write_text(json.dumps(SEMAFOR_TRAINED))
    (run / "logs" / "argid-train.log").write_text(SEMAFOR_LOG)
    site = folder.parent.parent / "cache" / "simpleframeid" / "models" / "wsb-sentbow"
    site.mkdir(parents=True)
    (site / "pyfn-train.json").write_text(json.dumps(SITE_TRAINED))


def _copied(folder: Path) -> None:
    """The variants' run folder holds a copy of the main run's argid-dev4k (`prepare --models-from`)."""
    variant = folder / "work" / "variants" / "nltk" / "open-sesame"
    (variant / "logs" / "argid-dev4k").mkdir(parents=True)
    (variant / "logs" / "argid-dev4k" / "pyfn-train.json").write_text(json.dumps(SESAME_TRAINED))
    prepared = dict(PREPARED, models_from={"run": "../../../open-sesame", "models": {"argid-dev4k": "ab" * 32}})
    (variant / "prepare.json").write_text(json.dumps(prepared))


def test_a_copied_model_is_recorded_as_copied(folder):
    _trained(folder)
    _copied(folder)
    assert main(["xp", "run", "4"]) == 0
    trainings = json.loads((folder / "manifest.json").read_text())["trainings"]
    assert "copied" not in trainings["work/open-sesame/logs/argid-dev4k"]
    assert trainings["work/variants/nltk/open-sesame/logs/argid-dev4k"]["copied"] is True
    readme = (folder / "README.md").read_text()
    assert "| work/variants/nltk/open-sesame/logs/argid-dev4k (copied by --models-from: trained in another run) |" \
        " open-sesame |" in readme


def test_manifest_records_finished_trainings_and_the_report_shows_them(folder):
    _trained(folder)
    assert main(["xp", "run", "4"]) == 0
    trainings = json.loads((folder / "manifest.json").read_text())["trainings"]
    assert list(trainings) == ["work/open-sesame/logs/argid-dev4k", "work/semafor/argid",
                               "work/simpleframeid/models/wsb-sentbow"]  # the variants' copy has no training
    sesame = trainings["work/open-sesame/logs/argid-dev4k"]
    assert sesame["parser"] == "open-sesame" and sesame["model_sha256"] == "ab" * 32
    assert sesame["dev_curve"][0] == {"epoch": 0, "example": 4001, "precision": 0.36351, "recall": 0.21632,
                                      "f1": 0.27123}
    semafor = trainings["work/semafor/argid"]
    assert "last_attempt_seconds" not in semafor  # wall times are the machine's
    assert semafor["objective"] == {"first": 588925.6992269317, "last": 41234.5, "evaluations": 3}
    site = trainings["work/simpleframeid/models/wsb-sentbow"]
    assert site["parser"] == "simpleframeid" and "seconds" not in site and "prepared_sha256" not in site
    readme = (folder / "README.md").read_text()
    section = readme[readme.index("## Training of the external parsers"):]
    assert ("| work/open-sesame/logs/argid-dev4k | open-sesame | 10 epochs, patience 3, dev every 4,000 examples; "
            "seed 1 | patience after 6 epochs | 3 | labeled F1 0.5812 (epoch 2, example 8,001) | abababababab |"
            in section)
    assert ("| work/semafor/argid | semafor | L-BFGS, lambda 0.1: at most 300 iterations or convergence | "
            "maxiterations at iteration 299; objective 588,925.7 -> 41,234.5 | 5 |" in section)
    assert "| wsb+sentbow: 500 epochs, 1500 components, 10 sampled negatives; seed 1 | all epochs (resumed after " \
           "epoch 29) | 2 |" in section
    assert "| work/open-sesame/logs/argid-dev4k | 6 | 16,001 | 0.6100 | 0.5500 | 0.5784 |" in section
    page = (folder / "report.html").read_text()
    assert 'id="trainings"' in page and 'id="dev-curve"' in page and "labeled F1 on dev during training" in page
    assert check(folder) == []
    retrained = dict(SEMAFOR_TRAINED, model_sha256="ce" * 32)
    (folder / "work" / "semafor" / "argid" / "pyfn-train.json").write_text(json.dumps(retrained))
    drift = check(folder)
    at = drift.index("training in work/semafor/argid:")
    assert "cd" * 32 in drift[at + 1] and "ce" * 32 in drift[at + 2]


def test_a_manifest_recorded_before_trainings_were_recorded_still_verifies(folder):
    _trained(folder)
    assert main(["xp", "run", "4"]) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["trainings"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert check(folder) == []


def test_unreadable_training_record_names_the_file(folder):
    _trained(folder)
    (folder / "work" / "semafor" / "argid" / "pyfn-train.json").write_text("{")
    with pytest.raises(Exception, match=r"semafor/argid/pyfn-train.json: not JSON"):
        record.trainings(Layout(Path("experiments/xp_004")))


@pytest.mark.parametrize(("name", "text", "message"), [
    ("pyfn-train.json", "[]", r"argid-dev4k/pyfn-train.json: not a JSON object"),
    ("pyfn-state.json", '{"epoch": 3}', r"argid-dev4k/pyfn-state.json: not the training state .*'evaluations'"),
    ("pyfn-state.json", '{"evaluations": [{"epoch": 0}]}', r"pyfn-state.json: not the training state .*'example'"),
])
def test_malformed_training_records_name_the_file(folder, name, text, message):
    _trained(folder)
    (folder / "work" / "open-sesame" / "logs" / "argid-dev4k" / name).write_text(text)
    with pytest.raises(PyfnError, match=message):
        record.trainings(Layout(Path("experiments/xp_004")))


def test_frame_identification_training_row_says_accuracy():
    frameid = {"parser": "open-sesame", "stage": "frameid", "model": "frameid", "seed": 1, "attempts": 1,
               "stopped": "patience", "best_dev": 0.8952134540750324, "model_sha256": "80" * 32,
               "budget": {"num_epochs": 30, "patience": 4, "dev_eval_epoch_frequency": 40,
                          "eval_after_every_epochs": 100}}
    assert training_rows({"trainings": {"work/open-sesame/logs/frameid": frameid}}) == [[
        "work/open-sesame/logs/frameid", "open-sesame", "30 epochs, patience 4, dev every 4,000 examples; seed 1",
        "patience", "1", "frame accuracy 0.8952", "808080808080"]]


def test_predictions_of_an_unfinished_training_are_flagged_as_not_final(folder):
    assert main(["xp", "run", "4"]) == 0
    assert "unfinished_models" not in json.loads((folder / "manifest.json").read_text())
    own = {"stage": "argid", "model": "argid-dev4k", "model_sha256": "ab" * 32, "split": "test",
           "own_evaluation": {"labeled": {"f1": 0.52}}}
    out = folder / "work" / "ext_out"
    (out / "dev.argid.own-eval.json").write_text(json.dumps(own | {"split": "dev", "training": "finished"}))
    (out / "test.argid.own-eval.json").write_text(json.dumps(own | {"training": "unfinished"}))
    checkpoint = {"split": "dev", "model": "argmodel.dat_75", "model_sha256": "cd" * 32, "training": "unfinished"}
    (out / "dev.semafor.json").write_text(json.dumps(checkpoint))  # what `pyfn semafor decode --model` records
    assert main(["xp", "report", "4"]) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["unfinished_models"] == [
        {"system": "ext", "file": "dev.semafor.json", "model": "argmodel.dat_75", "model_sha256": "cd" * 32},
        {"system": "ext", "file": "test.argid.own-eval.json", "model": "argid-dev4k", "model_sha256": "ab" * 32}]
    note = ("**Not a final result.** These predictions were decoded with a model whose training had not finished: "
            "ext dev (model argmodel.dat_75, sha256 cdcdcdcdcdcd); ext test (model argid-dev4k, sha256 abababababab). "
            "Let the training finish, then decode, score and report again.")
    readme = (folder / "README.md").read_text()
    assert note in readme and readme.index(note) < readme.index("## The parsers' own evaluation")
    assert '<p id="unfinished"><strong>Not a final result.</strong> These predictions' in (
        folder / "report.html").read_text()


@pytest.mark.parametrize(("name", "text", "message"), [
    ("test.argid.own-eval.json", "{", r"ext_out/test.argid.own-eval.json: not JSON"),
    ("test.argid.own-eval.json", '{"model": "argid"}', r"test.argid.own-eval.json: not the record .* own_evaluation"),
    ("test.semafor.json", "[1]", r"ext_out/test.semafor.json: not a JSON object"),
])
def test_malformed_decode_records_name_the_file(folder, name, text, message):
    from pyfn.xp.recipe import load_recipe

    (folder / "work" / "ext_out" / name).write_text(text)
    recipe, layout = load_recipe(folder), Layout(Path("experiments/xp_004"))
    with pytest.raises(PyfnError, match=message):
        record.own_evaluations(record.decode_records(layout, recipe))
