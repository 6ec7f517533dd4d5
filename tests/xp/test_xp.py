"""Numbered experiments: recipes, steps, scripts, runs, external parsers, reports and verification (bundled sample)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError, UsageError
from pyfn.xp import resume, run as xp
from pyfn.xp.recipe import expand, load_recipe
from pyfn.xp.steps import Layout, steps, target
from pyfn.xp.verify import check, rerun

RECIPE = '''
[experiment]
number = "{number}"
title = "Test experiment"
purpose = "Checks the experiment machinery."

[framenet]
version = "1.5-sample"
source = "${{PYFN_TEST_SOURCE:-sample}}"
fingerprint = "{fingerprint}"

[data]
split = "standard"
formats = ["jsonl", "semafor", "semeval"]

[preprocess]
tool = "none"

{systems}

[scoring]
splits = ["test"]
'''

EXTERNAL = '''
[[system]]
name = "ext"
task = "full"
home = "PYFN_TEST_PARSER_HOME"
install = "nothing to install"
train = ["echo training > {output}/trained"]
decode = ["cp {data}/test.gold.xml {output}/test.predicted.xml"]
predictions = "semeval"
output = "work/ext_out"
'''


def _make(root: Path, number: str = "003", systems: str = "", fingerprint: str = "") -> Path:
    folder = root / f"xp_{number}"
    folder.mkdir(parents=True)
    (folder / "experiment.toml").write_text(RECIPE.format(number=number, systems=systems, fingerprint=fingerprint))
    return folder


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYFN_TEST_PARSER_HOME", raising=False)
    monkeypatch.delenv("PYFN_TEST_SOURCE", raising=False)
    return Path("experiments")


def test_expand_like_a_shell(monkeypatch):
    monkeypatch.setenv("PYFN_X", "/data/fn.zip")
    assert expand("${PYFN_X:-a.zip}") == "/data/fn.zip"
    monkeypatch.delenv("PYFN_X")
    assert expand("${PYFN_X:-a.zip}") == "a.zip"
    with pytest.raises(PyfnError, match="environment variable PYFN_X is not set"):
        expand("${PYFN_X}")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("split = \"standard\"", "split = \"weird\""), "split must be one of standard, random, kfold"),
        (("version = \"1.5-sample\"", ""), "missing key 'version'"),
        (("formats = [", "formats = 3\nx = ["), "'formats' must be list"),
    ],
)
def test_bad_recipes_name_file_and_key(root, edit, message):
    folder = _make(root)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace(*edit, 1))
    with pytest.raises(PyfnError, match=message):
        load_recipe(folder)


def test_external_output_must_stay_in_the_experiment(root):
    folder = _make(root, systems=EXTERNAL.replace('output = "work/ext_out"', 'output = "../../elsewhere"'))
    with pytest.raises(PyfnError, match="outside the experiment folder"):
        load_recipe(folder)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('task = "full"', 'task = "full"\ntarget = "gold"'), r"unknown key 'target' \(a system may set: name, "),
        (('task = "full"', 'task = "full"\ntargets = "some"'), "targets must be one of gold, predicted, got 'some'"),
        (('task = "full"', 'task = "args"\ntargets = "predicted"'), r"targets = 'predicted' needs task = \"full\""),
        (('home = "PYFN_TEST_PARSER_HOME"', 'baseline = "frameid-mff"'),
         r"key 'decode' is not for a baseline \(a baseline takes name and baseline\)"),
    ],
)
def test_bad_system_tables_name_the_key(root, edit, message):
    folder = _make(root, systems=EXTERNAL.replace(*edit, 1))
    with pytest.raises(PyfnError, match=message):
        load_recipe(folder)


def test_the_settings_say_where_a_full_systems_targets_come_from(root):
    """A full pipeline finds its own targets unless its table says `targets = "gold"`."""
    from pyfn.xp.report import settings

    manifest = {"inputs": {"framenet": {}}}
    found = dict(settings(load_recipe(_make(root, "003", systems=EXTERNAL)), manifest))
    assert found["frames"] == "predicted targets and frames"
    gold = EXTERNAL.replace('task = "full"', 'task = "full"\ntargets = "gold"') + STUDY
    assert dict(settings(load_recipe(_make(root, "004", systems=gold)), manifest))["frames"] == (
        "predicted frames, gold targets; predicted frames and arguments, gold targets")


def test_new_list_and_script(root):
    folder = xp.new("12", "fn15-baselines", root)
    assert folder == root / "xp_012" and (folder / ".gitignore").read_text() == "work/\n"
    script = Path("scripts/xp_012.sh").read_text()
    assert "pyfn convert --source \"${PYFN_FN15:-../shared/data/fndata-1.5.zip}\"" in script
    assert "pyfn baseline frameid-mff --data experiments/xp_012/work/data" in script
    assert "pyfn score --mode frameid" in script and "set -euo pipefail" in script
    recipe = load_recipe(folder)
    assert [line for s in steps(recipe, Layout(folder)) for line in s.lines()] == [
        line for line in script.splitlines() if line.startswith("pyfn ")
    ][: sum(len(s.lines()) for s in steps(recipe, Layout(folder)))]
    assert xp.list_experiments(root) == [("012", recipe.title, "not run")]
    with pytest.raises(PyfnError, match="exists already"):
        xp.new("12", "fn15-baselines", root)
    with pytest.raises(UsageError, match="unknown template"):
        xp.new("13", "nope", root)


def test_every_template_makes_a_recipe_that_loads(root):
    """`pyfn xp new` from each shipped template gives a recipe that loads; the Open-SESAME template's full
    pipeline decodes on gold targets and says so."""
    from pyfn.xp.report import settings

    for number, name in enumerate(sorted(xp.templates()), start=20):
        recipe = load_recipe(xp.new(str(number), name, root))
        frames = dict(settings(recipe, {"inputs": {"framenet": {}}}))["frames"]
        if name == "fn15-open-sesame":
            assert frames.endswith("predicted frames and arguments, gold targets"), frames


def test_external_parser_stops_with_instructions_then_predictions_are_scored(root, tmp_path):
    folder = _make(root, systems=EXTERNAL)
    with pytest.raises(PyfnError, match=r"step train:ext: PYFN_TEST_PARSER_HOME is not set; install ext \(nothing "
                       r"to install\).*--step score --system ext --predictions DIR"):
        xp.run(folder, main)
    layout = Layout(folder)
    assert (layout.data / "test.gold.xml").is_file() and (layout.lexicon / "lu_frames.tsv").is_file()
    predictions = tmp_path / "preds"
    predictions.mkdir()
    shutil.copy(layout.data / "test.gold.xml", predictions / "test.predicted.xml")
    done = xp.run(folder, main, step="score", system="ext", predictions=predictions)
    assert done == ["score:ext:test:semeval", "score:ext:test:frameid", "score:ext:test:argsonly"]
    manifest = xp.report(folder)
    scores = manifest["scores"]["ext"]["test"]
    assert scores["frameid"]["total"]["accuracy"] == 1.0
    assert scores["semeval"]["f1"] > 0.99 and scores["argsonly"]["f1"] > 0.99
    readme = (folder / "README.md").read_text()
    assert "| ext | test | 1.0000 [" in readme and "| ext | test | argsonly |" in readme
    assert "PYFN_TEST_PARSER_HOME" in readme
    assert "fn:1.5-sample\\|split:sample" in readme
    assert "<svg" in (folder / "report.html").read_text()


def test_external_parser_runs_when_installed(root, monkeypatch):
    monkeypatch.setenv("PYFN_TEST_PARSER_HOME", "/usr")
    folder = _make(root, systems=EXTERNAL)
    (folder / "work" / "ext_out").mkdir(parents=True)
    xp.run(folder, main)
    assert (folder / "work" / "ext_out" / "trained").read_text() == "training\n"
    assert xp.report(folder)["scores"]["ext"]["test"]["frameid"]["total"]["accuracy"] == 1.0


def test_release_fingerprint_is_enforced(root):
    folder = _make(root, fingerprint="0" * 64)
    with pytest.raises(PyfnError, match="not the release this experiment was defined on"):
        xp.run(folder, main, step="data")


def test_verify_detects_drift_and_rerun_reproduces(root, monkeypatch, capsys):
    folder = _make(root)
    assert main(["xp", "run", "3"]) == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["data"]["splits"]["test"]["annotation_sets"] == 101
    assert manifest["versions"]["pyfn"] and manifest["versions"]["python"]
    assert "work/data/test.gold.xml" in manifest["outputs"]
    assert check(folder) == []
    assert rerun(folder, main) == []
    assert main(["verify", str(folder)]) == 0
    # a second run compares with the recorded manifest instead of overwriting it
    assert main(["xp", "run", "3"]) == 0
    (folder / "work" / "data" / "test.frames").write_text("changed\n")
    assert main(["verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "output work/data/test.frames:\n  - manifest: " in out
    (folder / "experiment.toml").write_text((folder / "experiment.toml").read_text().replace("semafor", "bios"))
    drift = check(folder)
    assert drift[:1] == ["recipe experiment.toml:"]
    monkeypatch.setattr("pyfn.xp.manifest.versions", lambda: {**manifest["versions"], "lxml": "0.0"})
    assert any(line.startswith("version of lxml") for line in check(folder))


def test_unknown_step_and_unrun_verify(root):
    folder = _make(root)
    with pytest.raises(UsageError, match="no step 'bake'.*steps: data, lexicon"):
        xp.run(folder, main, step="bake")
    with pytest.raises(PyfnError, match="has not been run"):
        check(folder)


def test_topic_scores_feed_compare_runs(root, tmp_path, capsys):
    folder = _make(root, systems=EXTERNAL + EXTERNAL.replace('"ext"', '"ext2"').replace("ext_out", "ext2_out"))
    layout = Layout(folder)
    xp.run(folder, main, step="data")
    xp.run(folder, main, step="lexicon")
    for name in ("ext", "ext2"):
        predictions = tmp_path / name
        predictions.mkdir()
        shutil.copy(layout.data / "test.gold.xml", predictions / "test.predicted.xml")
        xp.run(folder, main, step="score", system=name, predictions=predictions)
    assert main(["xp", "topics", "3", "--output", str(tmp_path / "orig.tsv")]) == 0
    lines = (tmp_path / "orig.tsv").read_text().splitlines()
    assert lines[0] == "system\ttopic\tscore" and len(lines) == 1 + 2 * 18
    assert all(line.endswith("\t1.0") for line in lines[1:])
    assert main(["compare-runs", str(tmp_path / "orig.tsv"), str(tmp_path / "orig.tsv"), "--json",
                 "--output", str(tmp_path / "cmp.json")]) == 0
    result = json.loads((tmp_path / "cmp.json").read_text())
    assert result["signature"].startswith("repro|topics:sentence|n_sys:2|")


def test_topics_score_a_gold_sentence_without_prediction_as_zero(root, tmp_path):
    from lxml import etree

    from pyfn.xp.topics import topic_scores

    folder = _make(root, systems=EXTERNAL)
    layout = Layout(folder)
    xp.run(folder, main, step="data")
    xp.run(folder, main, step="lexicon")
    tree = etree.parse(str(layout.data / "test.gold.xml"))
    sentences = tree.getroot().find(".//sentences")
    for sentence in list(sentences)[:6]:  # the first 6 predicted sentences moved to the end, the last 4 deleted
        sentences.remove(sentence)
        sentences.append(sentence)
    for sentence in list(sentences)[2:6]:
        sentences.remove(sentence)
    (tmp_path / "ext").mkdir()
    tree.write(str(tmp_path / "ext" / "test.predicted.xml"), xml_declaration=True, encoding="UTF-8")
    xp.run(folder, main, step="score", system="ext", predictions=tmp_path / "ext")
    topics = topic_scores(folder)["ext"]
    assert len(topics) == 18 and [t for t, v in topics.items() if v == 0.0] == [f"s{i}" for i in range(8, 12)]
    assert all(v == 1.0 for t, v in topics.items() if t not in {"s8", "s9", "s10", "s11"})


STUDY = '''
[[system]]
name = "mff"
baseline = "frameid-mff"

[[system]]
name = "logreg"
baseline = "frameid-logreg"
'''


@pytest.mark.parametrize("split", ["random(n=2, seed=4)", "kfold(k=2, seed=1)"])
def test_ranking_stability_study(root, split):
    folder = _make(root, systems=STUDY)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('split = "standard"', f'split = "{split}"'))
    xp.run(folder, main)
    manifest = xp.report(folder)
    study = manifest["study"]
    names = ["standard", "random-seed4", "random-seed5"] if split.startswith("random") else [
        "standard", "kfold2-seed1-fold0", "kfold2-seed1-fold1"]
    assert list(study["splits"]) == names
    for name in names:
        result = study["splits"][name]
        assert set(result["scores"]) == {"mff", "logreg"} and result["ranking"]["frameid"]
        pair = result["pairs"][0]
        assert (pair["a"], pair["b"], pair["test"]) == ("mff", "logreg", "McNemar mid-p")
        assert 0 <= pair["p"] <= pair["p_holm"] <= 1
        assert result["documents"]["test"] and result["counts"]["test"]["annotation_sets"] > 0
    assert study["splits"]["random-seed4" if split.startswith("random") else "kfold2-seed1-fold0"]["documents"] != \
        study["splits"]["standard"]["documents"]
    summary = study["summary"]
    assert summary["drawn_splits"] == 2 and set(summary["systems"]) == {"mff", "logreg"}
    stats = summary["systems"]["mff"]
    assert stats["min"] <= stats["mean"] <= stats["max"] and stats["n"] == 2
    assert 0 <= summary["ranking_holds"]["frameid"] <= 2
    readme = (folder / "README.md").read_text()
    assert "## Ranking stability over drawn splits" in readme and "| mff |" in readme
    assert "random-seed4/data" in readme or "kfold2-seed1-fold0/data" in readme
    html = (folder / "report.html").read_text()
    assert "drawn split" in html and "standard split" in html and html.count("<circle") == 4
    assert "accuracy on test over 2 drawn splits</text>" in html


def test_a_studys_splits_are_scored_in_processes_as_they_are_one_by_one(root, monkeypatch):
    from pyfn import workers
    from pyfn.xp import study

    folder = _make(root, systems=STUDY)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('split = "standard"', 'split = "random(n=4, seed=4)"'))
    xp.run(folder, main)
    runs = study.split_runs(load_recipe(folder), folder)
    pools = []

    def counted(*args):
        pools.append(args[0])
        return process_pool(*args)

    process_pool = workers.process_pool
    monkeypatch.setattr(study, "job_count", lambda requested, tasks, per_job=1: 2)
    monkeypatch.setattr(workers, "process_pool", counted)
    found = study._split_results(runs, "test")
    assert pools == [2]  # the four drawn splits in two processes, the standard one here
    assert found == {run.name: study.split_result(run, "test") for run in runs}
    assert list(found) == ["standard", *(f"random-seed{seed}" for seed in range(4, 8))]
    assert len({json.dumps(result["scores"], sort_keys=True) for result in found.values()}) > 1


def test_the_baselines_of_a_split_decode_its_data_once(root, monkeypatch):
    from pyfn.baselines import data as bd

    folder = _make(root, systems=STUDY)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('split = "standard"', 'split = "random(n=1, seed=4)"'))
    reads = []
    read = bd.jsonl.read
    monkeypatch.setattr(bd.jsonl, "read", lambda file, **kw: reads.append(Path(file)) or read(file, **kw))
    xp.run(folder, main)  # one drawn split: its steps run here, after the standard split's
    layout = Layout(folder)
    for data in (layout.data, folder / "work" / "splits" / "random-seed4" / "data"):
        assert sorted(p.name for p in reads if p.parent == data) == ["dev.jsonl", "test.jsonl", "train.jsonl"]
    assert bd._LOADED is None  # nothing kept once the run is over


def test_report_page_parses_and_every_image_exists(root):
    from lxml import html as lxml_html

    folder = _make(root, systems=EXTERNAL)
    xp.run(folder, main, step="data")
    xp.report(folder)
    page = lxml_html.fromstring((folder / "report.html").read_bytes())
    assert page.findtext(".//title").startswith("Experiment 003")
    for img in page.iter("img"):  # the charts are inline SVG; any <img> must point at a file beside the page
        assert (folder / img.get("src")).is_file(), img.get("src")
    assert page.findtext(".//h2") == "Data" and page.get_element_by_id("data").findtext(".//td") == "FrameNet 1.5-sample"


def test_verify_names_a_changed_input(root, tmp_path):
    import zipfile

    from pyfn.resources import resource_path

    sample = resource_path("sample")
    archive = tmp_path / "sample.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(sample.rglob("*")):
            if path.is_file():
                zf.write(path, f"sample/{path.relative_to(sample)}")
    folder = _make(root)
    recipe = folder / "experiment.toml"
    recipe.write_text(recipe.read_text().replace("${PYFN_TEST_SOURCE:-sample}", str(archive)))
    xp.run(folder, main)
    xp.report(folder)
    assert check(folder) == []
    data = bytearray(archive.read_bytes())
    data[-30] ^= 1  # one byte of the zip's central directory comment area
    archive.write_bytes(bytes(data))
    drift = check(folder)
    assert drift[0] == f"input FrameNet source {archive}:" and drift[1].startswith("  - manifest: ")


def test_study_is_reproducible_by_seed(root):
    results = {}
    for number, seed in (("005", 4), ("006", 4), ("007", 9)):
        folder = _make(root, number=number, systems=STUDY.split("[[system]]\nname = \"logreg\"")[0])
        path = folder / "experiment.toml"
        path.write_text(path.read_text().replace('split = "standard"', f'split = "random(n=1, seed={seed})"'))
        xp.run(folder, main)
        results[number] = xp.report(folder)["study"]["splits"]
    assert results["005"] == results["006"]
    drawn = {k: next(v for name, v in r.items() if name != "standard") for k, r in results.items()}
    assert drawn["005"]["documents"] != drawn["007"]["documents"]


def test_recorded_but_not_run_here(root, capsys):
    """A fresh clone has manifest.json but no work/: list and verify say so in one line, report keeps the result."""
    folder = _make(root, systems=EXTERNAL)
    assert xp.list_experiments(root)[0][2] == "not run"
    xp.run(folder, main, step="data")
    done, total = xp.finished_steps(load_recipe(folder), folder)
    assert done == 1 and total > 1
    assert xp.list_experiments(root)[0][2] == (
        f"partly run here: 1 of {total} recorded steps finished (pyfn xp run 003 goes on; an external parser's own "
        "steps are not counted)")
    for step in steps(load_recipe(folder), Layout(folder)):  # as if every recorded step had finished
        if target(step) is not None:
            resume.record_path(folder, step.name).touch()
    assert xp.list_experiments(root)[0][2] == "run here; not recorded (pyfn xp report 003)"
    xp.report(folder)
    assert xp.list_experiments(root)[0][2] == f"run here; recorded: 0 systems scored (pyfn verify {folder})"
    readme, page = (folder / "README.md").read_text(), (folder / "report.html").read_text()
    shutil.rmtree(folder / "work")
    assert xp.list_experiments(root)[0][2] == ("not run here; recorded: 0 systems scored "
                                                "(bash scripts/xp_003.sh runs and verifies it)")
    capsys.readouterr()
    assert main(["verify", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"pyfn: error: {folder} has not been run here (work/ is not committed): `bash scripts/xp_003.sh` or "
        f"`pyfn xp run 003` runs it and then verifies it; `pyfn verify {folder} --rerun` reruns it in a temporary copy"]
    assert main(["xp", "report", "3"]) == 0
    assert "from the recorded manifest.json (not run here)" in capsys.readouterr().err
    assert (folder / "README.md").read_text() == readme and (folder / "report.html").read_text() == page
    assert rerun(folder, main) == []
    recipe = folder / "experiment.toml"
    recipe.write_text(recipe.read_text().replace("Test experiment", "Changed"))
    with pytest.raises(PyfnError, match="changed since .* was recorded and the experiment has not been run here"):
        xp.report(folder)


def test_script_announces_every_step_and_commands_show_progress(root):
    folder = xp.new("12", "fn15-baselines", root)
    script = Path("scripts/xp_012.sh").read_text()
    every = [*steps(load_recipe(folder), Layout(folder))]
    assert "--quiet" not in script
    assert f"echo 'pyfn xp 012: step 1/{len(every)} data' >&2" in script
    assert f"echo 'pyfn xp 012: step {len(every)}/{len(every)} {every[-1].name}' >&2" in script


def _score(n: int, correct: int) -> dict:
    low, high = (0.25, 0.75) if n else (0.0, 1.0)
    return {"accuracy": correct / n if n else 0.0, "correct": correct, "n": n, "wilson_low": low, "wilson_high": high}


def test_report_page_tables_charts_and_notes(root):
    """Data table first; frame-id total / ambiguous / no-lex in their own columns, n/a for 0/0; whiskers; titles
    and axis labels on every chart; what each measure means."""
    from lxml import html as lxml_html

    from pyfn.xp.report import page, readme

    folder = _make(root)
    recipe = load_recipe(folder)
    manifest = {
        "inputs": {"framenet": {"fingerprint": "f" * 64}},
        "data": {"signature": "fn:x", "splits": {"train": {"sentences": 1200, "annotation_sets": 5000},
                                                 "test": {"sentences": 30, "annotation_sets": 80}},
                 "ledger": {"train": {"invalid": 3, "duplicate": 4}, "test": {}}},
        "outputs": {"work/x": "0"}, "versions": {"pyfn": "1"},
        "scores": {"mff": {"test": {"frameid": {"total": _score(4, 2), "ambiguous": _score(2, 1),
                                                "no_lex": _score(0, 0), "signature": "frameid|sig"}}},
                   "args": {"test": {"argsonly": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3,
                                                  "signature": "argsonly|sig"}}}},
    }
    doc = lxml_html.fromstring(page(recipe, Layout(folder), manifest))
    assert doc.findtext(".//h2") == "Data"
    rows = [[c.text_content() for c in tr.iter("td")] for tr in doc.get_element_by_id("data").iter("tr")][1:]
    assert rows == [["FrameNet 1.5-sample", "standard", "train", "1,200", "5,000", "7", "fn:x"],
                    ["test", "30", "80", "0"]]
    head = [th.text_content() for th in doc.get_element_by_id("frameid").iter("th")]
    assert head == ["system", "split", "accuracy (total)", "ambiguous", "no-lex", "signature"]
    cells = [td.text_content() for td in doc.get_element_by_id("frameid").iter("td")]
    assert cells == ["mff", "test", "0.5000 [0.2500, 0.7500] (2/4)", "0.5000 [0.2500, 0.7500] (1/2)", "n/a",
                     "frameid|sig"]
    assert [td.text_content() for td in doc.get_element_by_id("f1").iter("td")][:6] == [
        "args", "test", "argsonly", "0.5000", "0.2500", "0.3333"]
    charts = doc.xpath("//svg[@class='chart']")
    assert len(charts) == 2
    for chart in charts:
        titles = [chart.xpath(f"string(.//text[@class='{c}'])") for c in ("chart-title", "axis-label x", "axis-label y")]
        assert all(titles), titles
    assert len(charts[0].xpath(".//g[@class='whisker']")) == 2 and charts[0].xpath(".//text[@class='na']")
    terms = [dt.text_content() for dt in doc.get_element_by_id("measures").iter("dt")]
    assert {"accuracy (total)", "ambiguous", "no-lex", "n/a", "P, R, F1", "removed", "signature"} <= set(terms)
    text = readme(recipe, Layout(folder), manifest)
    assert "| mff | test | 0.5000 [0.2500, 0.7500] (2/4) | 0.5000 [0.2500, 0.7500] (1/2) | n/a |" in text
    assert "(0/0)" not in text and "(0/0)" not in doc.text_content()


def test_ticks_are_round():
    from pyfn.xp.charts import ticks

    assert ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert ticks(0.755, 0.835) == [0.76, 0.78, 0.8, 0.82]


def test_a_partial_run_is_not_compared_with_the_manifest(root, capsys):
    """Running steps one by one: the first writes the manifest, the next ones are not reported as drift."""
    _make(root)
    assert main(["xp", "run", "003", "--step", "data"]) == 0
    assert (root / "xp_003" / "manifest.json").is_file()
    capsys.readouterr()
    assert main(["xp", "run", "003", "--step", "lexicon"]) == 0
    err = capsys.readouterr().err
    assert "some steps only, so not compared with" in err and "does NOT verify" not in err


def test_drawn_splits_in_parallel_write_the_files_of_a_serial_run(root, capsys):
    folder = _make(root, systems=STUDY)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('split = "standard"', 'split = "random(n=2, seed=4)"'))
    serial = xp.run(folder, main, jobs=1)
    first = {p.relative_to(folder): p.read_bytes() for p in sorted((folder / "work").rglob("*")) if p.is_file()}
    shutil.rmtree(folder / "work")
    capsys.readouterr()
    parallel = xp.run(folder, main, jobs=2, log=print)
    assert parallel == serial and any(name.startswith("random-seed5/") for name in parallel)
    assert "2 drawn splits in 2 processes" in capsys.readouterr().out
    again = {p.relative_to(folder): p.read_bytes() for p in sorted((folder / "work").rglob("*")) if p.is_file()}
    assert again == first


def test_steps_are_grouped_by_drawn_split():
    from pyfn.xp.steps import Step

    names = ["data", "score", "r1/data", "r1/score", "r2/data", "r2/score", "v/data"]
    groups = xp._groups([Step(n) for n in names], {"r1/", "r2/"})
    assert [[[s.name for s in split] for split in group] for group in groups] == [
        [["data"]], [["score"]], [["r1/data", "r1/score"], ["r2/data", "r2/score"]], [["v/data"]]]


def test_a_study_runs_external_parsers_on_every_drawn_split(root):
    folder = _make(root, systems=EXTERNAL)
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('split = "standard"', 'split = "random(n=2, seed=4)"'))
    from pyfn.xp.variants import extra_steps

    names = [s.name for s in extra_steps(load_recipe(folder), folder)]
    assert names[:6] == ["random-seed4/data", "random-seed4/lexicon", "random-seed4/train:ext",
                         "random-seed4/decode:ext", "random-seed4/score:ext:test:semeval",
                         "random-seed4/score:ext:test:frameid"]
    decode = next(s for s in extra_steps(load_recipe(folder), folder) if s.name == "random-seed5/decode:ext")
    assert decode.shell[1] == (f"cp {folder}/work/splits/random-seed5/data/test.gold.xml "
                               f"{folder}/work/splits/random-seed5/ext_out/test.predicted.xml")


def test_a_finished_data_step_is_skipped_but_its_release_still_checked(root):
    folder = _make(root)
    assert xp.run(folder, main, step="data") == ["data"]
    assert xp.run(folder, main, step="data") == []  # finished: its record holds
    recipe = folder / "experiment.toml"
    recipe.write_text(recipe.read_text().replace('fingerprint = ""', f'fingerprint = "{"0" * 64}"'))
    with pytest.raises(PyfnError, match="not the release this experiment was defined on"):
        xp.run(folder, main, step="data")


def test_the_ranking_names_only_the_tests_of_its_tasks():
    from pyfn.xp.report import pair_tests

    both = {"ranking": {"ranking": {"frameid": ["a", "b"], "args": ["c", "d"]}}}
    assert pair_tests(both) == ("McNemar's mid-p on the paired frame-identification decisions, "
                                "approximate randomization on F1 (1,000 samples, seed 0)")
    assert pair_tests({"ranking": {"ranking": {"args": ["c", "d"]}}}) == (
        "approximate randomization on F1 (1,000 samples, seed 0)")
    assert "approximate" not in pair_tests({"ranking": {"ranking": {"frameid": ["a", "b"]}}})
