"""``[scoring] analysis``: every system under every protocol and each system's error analysis, in the report."""

from __future__ import annotations

import json
import shutil

import pytest
from lxml import html as lxml_html

from pyfn.cli import main
from pyfn.errors import PyfnError
from pyfn.xp import run as xp
from pyfn.xp.recipe import load_recipe
from pyfn.xp.report import page, readme
from pyfn.xp.steps import Layout, steps

from test_xp import EXTERNAL, _make, root  # noqa: F401 - the fixture

MFF = '''
[[system]]
name = "mff"
baseline = "frameid-mff"
'''


def _with_analysis(folder, value: str = '["breakdown", "protocols"]'):
    path = folder / "experiment.toml"
    path.write_text(path.read_text().replace('splits = ["test"]', f'splits = ["test"]\nanalysis = {value}'))


@pytest.mark.parametrize(("value", "message"), [('["tables"]', "analysis must name protocols or breakdown"),
                                                 ('["breakdown", "breakdown"]', "names one twice"),
                                                 ('"breakdown"', "'analysis' must be list")])
def test_bad_analysis(root, value, message):  # noqa: F811
    folder = _make(root, systems=MFF)
    _with_analysis(folder, value)
    with pytest.raises(PyfnError, match=message):
        load_recipe(folder)


def test_analysis_steps_only_when_asked(root):  # noqa: F811
    folder = _make(root, systems=MFF + EXTERNAL)
    assert not [s for s in steps(load_recipe(folder), Layout(folder)) if s.name.startswith(("protocols", "breakdown"))]
    _with_analysis(folder)
    names = [s.name for s in steps(load_recipe(folder), Layout(folder))]
    assert names[-3:] == ["protocols:test", "breakdown:mff:test", "breakdown:ext:test"]
    by_name = {s.name: s.argv for s in steps(load_recipe(folder), Layout(folder))}
    assert by_name["breakdown:mff:test"][:4] == ("score", "--breakdown", "--mode", "frameid")
    assert "--train" in by_name["breakdown:mff:test"] and "--frames" not in by_name["breakdown:mff:test"]
    assert by_name["breakdown:ext:test"][3] == "semeval" and "--frames" in by_name["breakdown:ext:test"]


def test_report_shows_protocols_and_breakdowns(root, tmp_path):  # noqa: F811
    folder = _make(root, systems=MFF + EXTERNAL)
    _with_analysis(folder)
    layout = Layout(folder)
    for step in ("data", "lexicon"):
        xp.run(folder, main, step=step)
    predictions = tmp_path / "ext"
    predictions.mkdir()
    shutil.copy(layout.data / "test.gold.xml", predictions / "test.predicted.xml")
    done = xp.run(folder, main, step="score", system="ext", predictions=predictions)
    assert done[-1] == "breakdown:ext:test" and not layout.protocols_file("test").exists()  # mff has not run yet
    xp.run(folder, main, step="system")
    done = xp.run(folder, main, step="score", system="ext", predictions=predictions)
    assert done[-2:] == ["protocols:test", "breakdown:ext:test"]
    xp.run(folder, main, step="breakdown")
    manifest = xp.report(folder)
    rows = manifest["protocols"]["rows"]
    assert list(rows[0]["f1"]) == ["mff", "ext"] and rows[0]["protocol"] == "semeval07"
    assert all(row["rank"]["ext"] == 1 for row in rows)  # the gold copy is best (or tied) under every protocol
    assert set(manifest["breakdowns"]) == {"mff", "ext"}
    ext = manifest["breakdowns"]["ext"]
    assert ext["frames"]["total"]["accuracy"] == 1.0 and ext["arguments"]["total"]["f1"] == 1.0
    assert ext["sentences"]["wrong"] == 0 and (folder / ext["html"]).is_file()
    assert manifest["breakdowns"]["mff"]["arguments"] is None
    text = readme(load_recipe(folder), Layout(folder), manifest)
    assert "## Every system under every protocol (test)" in text and "## Error analysis (test)" in text
    assert "| protocol | measure | mff | ext | same ranking as semeval07 |" in text
    doc = lxml_html.fromstring(page(load_recipe(folder), Layout(folder), manifest))
    assert [th.text_content() for th in doc.get_element_by_id("protocols").iter("th")][2:4] == ["mff", "ext"]
    assert doc.get_element_by_id("breakdown-buckets") is not None
    links = [a.get("href") for a in doc.iter("a")]
    assert "work/scores/ext.test.breakdown.html" in links
    recorded = json.loads((folder / "manifest.json").read_text())
    assert recorded["breakdowns"] == manifest["breakdowns"]
    # a manifest without the analysis (recorded before it existed) shows neither section
    bare = {k: v for k, v in manifest.items() if k not in ("protocols", "breakdowns")}
    assert "under every protocol" not in readme(load_recipe(folder), Layout(folder), bare)
