"""Butterfly experiments: ``[[variant]]`` recipes, their steps, and their analysis on the bundled sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.xp import run as xp
from pyfn.xp.recipe import apply_variant, load_recipe
from pyfn.xp.steps import Layout
from pyfn.xp.variants import extra_steps, variant_runs
from pyfn.xp.verify import rerun

RECIPE = '''
[experiment]
number = "009"
title = "Variants"
purpose = "Checks the variant machinery."

[framenet]
version = "1.5-sample"
source = "sample"

[data]
filters = ["disc_fes"]
formats = ["jsonl", "semeval"]

[preprocess]
tool = "none"

[[system]]
name = "mff"
baseline = "frameid-mff"

[[system]]
name = "logreg"
baseline = "frameid-logreg"

[[system]]
name = "ext"
task = "frameid"
home = "PYFN_TEST_PARSER_HOME"
train = ["echo trained on {data} > {output}.models"]
decode = ["echo {models} > {output}.used"]
predictions = "semeval"
output = "work/ext_out"
{variants}
[scoring]
splits = ["test"]
'''

VARIANTS = '''
[[variant]]
name = "filter-all"
description = "train filter on dev and test too"
filter_scope = "all"
models = "standard"

[[variant]]
name = "exemplars"
description = "exemplars in train"
exemplars = true
'''


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = Path("experiments/xp_009")
    path.mkdir(parents=True)
    (path / "experiment.toml").write_text(RECIPE.replace("{variants}", VARIANTS))
    return path


def _edit(folder: Path, variants: str) -> None:
    (folder / "experiment.toml").write_text(RECIPE.replace("{variants}", variants))


@pytest.mark.parametrize(("variant", "message"), [
    ('name = "x"\ndescription = "d"', "variant 'x' changes nothing"),
    ('name = "x"\ndescription = "d"\ncolour = "red"', "unknown key 'colour'"),
    ('name = "standard"\ndescription = "d"\nexemplars = true', "not 'standard'"),
    ('name = "x"\ndescription = "d"\npreprocess = "nltk"\nmodels = "standard"', "changes train \\(preprocess\\)"),
    ('name = "x"\ndescription = "d"\nfilter_scope = "dev"', "filter_scope must be one of train, all"),
    ('name = "x"\ndescription = "d"\nlexicon = "full"', "lexicon must be one of train, release"),
])
def test_bad_variants_name_the_table_and_key(folder, variant, message):
    _edit(folder, f"[[variant]]\n{variant}\n")
    with pytest.raises(PyfnError, match=message):
        load_recipe(folder)


def test_each_variant_changes_one_choice_in_its_own_folder(folder):
    recipe = load_recipe(folder)
    runs = variant_runs(recipe, folder)
    assert [r.name for r in runs] == ["standard", "filter-all", "exemplars"]
    assert runs[1].recipe.filter_scope == "all" and runs[1].recipe.exemplars is False
    assert runs[2].recipe.exemplars is True and runs[2].recipe.filter_scope == "train"
    lines = {s.name: s.lines() for s in extra_steps(recipe, folder)}
    assert "--filter-scope all" in lines["filter-all/data"][0]
    assert "--with-exemplars" in lines["exemplars/data"][0] and "--filter-scope" not in lines["exemplars/data"][0]
    # external parsers: their own output folder per variant; {models}: where the models they use were trained
    assert lines["filter-all/train:ext"][1] == (
        "echo trained on experiments/xp_009/work/variants/filter-all/data > "
        "experiments/xp_009/work/variants/filter-all/ext_out.models")
    assert lines["filter-all/decode:ext"][1] == "echo experiments/xp_009/work > experiments/xp_009/work/variants/filter-all/ext_out.used"
    assert lines["exemplars/decode:ext"][1] == (
        "echo experiments/xp_009/work/variants/exemplars > experiments/xp_009/work/variants/exemplars/ext_out.used")
    assert Layout(folder, "variants/x").output(recipe.systems[2]) == folder / "work/variants/x/ext_out"


def test_release_lexicon_reaches_generate_and_the_frameid_baselines(folder):
    _edit(folder, '[[variant]]\nname = "lex"\ndescription = "d"\nlexicon = "release"\nmodels = "standard"\n')
    recipe = load_recipe(folder)
    lines = {s.name: " ".join(s.lines()) for s in extra_steps(recipe, folder)}
    assert lines["lex/lexicon"].endswith("--release-lexicon")
    assert lines["lex/system:mff"].endswith("--candidates release")
    assert lines["lex/system:logreg"].endswith("--candidates release")
    assert apply_variant(recipe, recipe.variants[0]).lexicon == "release"


def test_variant_analysis_on_the_sample(folder):
    _edit(folder, VARIANTS)
    text = (folder / "experiment.toml").read_text()
    (folder / "experiment.toml").write_text(text.replace('[[system]]\nname = "ext"', '[[nosystem]]\nname = "ext"'))
    xp.run(folder, main)
    manifest = xp.report(folder)
    variants = manifest["variants"]["variants"]
    assert list(variants) == ["standard", "filter-all", "exemplars"]
    standard, filtered, exemplars = variants["standard"], variants["filter-all"], variants["exemplars"]
    assert filtered["test_sets"] < standard["test_sets"] == exemplars["test_sets"]
    for name in ("mff", "logreg"):
        assert "versus_standard" not in standard["systems"][name]
        acc = standard["systems"][name]["accuracy"]
        assert acc["wilson_low"] <= acc["accuracy"] <= acc["wilson_high"]
        versus = filtered["systems"][name]["versus_standard"]
        # same train, so the same model: on the variant's (smaller) test both predictions agree everywhere
        assert not versus["same_test"] and versus["standard_only_right"] == versus["variant_only_right"] == 0
        assert versus["p"] == 1.0 and versus["delta"] == 0.0
        assert exemplars["systems"][name]["versus_standard"]["same_test"]
    assert filtered["ranking_changed"] in (True, False) and standard["ranking_changed"] is None
    readme = (folder / "README.md").read_text()
    assert "## Data-processing variants" in readme and "| filter-all | train filter on dev and test too |" in readme
    assert "McNemar mid-p 1 (0 vs 0 discordant)" in readme
    html = (folder / "report.html").read_text()
    assert 'id="variants"' in html and 'id="variant-rankings"' in html
    recorded = json.loads((folder / "manifest.json").read_text())
    assert [s["name"] for s in recorded["steps"]].count("filter-all/data") == 1
    assert any(name.startswith("work/variants/exemplars/") for name in recorded["outputs"])
    assert rerun(folder, main) == []  # every variant regenerated byte for byte
