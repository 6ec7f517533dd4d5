"""The manifest records what trained an external parser's models (its run folder's prepare.json: full commit,
pyfn's patches by sha256, pinned packages such as DyNet), and ``pyfn verify`` reports a change of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.xp import manifest as record
from pyfn.xp.steps import Layout
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
