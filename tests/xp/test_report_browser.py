"""The shipped experiments' report.html as a reader sees it: opened in headless Chromium (Debian's
``chromium`` and ``chromium-driver``, driven by Selenium), without console errors, its data table at the top
and every chart drawn, titled, with labelled axes and, for intervals, whiskers."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("PYFN_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("PYFN_CHROMEDRIVER", "/usr/bin/chromedriver"))
REPORTS = sorted((REPO / "experiments").glob("xp_*/report.html"))


def _missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.is_file():
            return f"{path} not found (apt-get install {package}; .ci/run installs it)"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium with its console log kept; one for the module."""
    why = _missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"no browser for the report test in CI: {why}")
        pytest.skip(f"no browser for the report test: {why}")
    from selenium import webdriver  # noqa: PLC0415
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1200,900",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _severe(driver) -> list[str]:  # type: ignore[no-untyped-def]
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_console_errors_are_seen(browser, tmp_path):
    """The check below would catch an error: a page that logs one and loads a missing image is reported."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img src="missing.png"><script>console.error("boom")</script>'
                    "</body></html>")
    browser.get(page.as_uri())
    assert any("boom" in line for line in _severe(browser))


def test_every_shipped_experiment_has_a_report():
    assert [p.parent.name for p in REPORTS] == sorted(p.name for p in (REPO / "experiments").glob("xp_*"))


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.parent.name)
def test_report_renders(browser, report):
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    browser.get(report.as_uri())
    assert _severe(browser) == []
    assert browser.title.startswith(f"Experiment {report.parent.name[3:]}:")
    first = browser.find_element(By.CSS_SELECTOR, "h2")
    assert first.text == "Data"
    data = browser.find_element(By.ID, "data")
    assert data.is_displayed() and data.location["y"] < browser.find_elements(By.CSS_SELECTOR, "h2")[1].location["y"]
    head = [th.text for th in data.find_elements(By.CSS_SELECTOR, "th")]
    assert head == ["release", "split definition", "split", "sentences", "annotation sets", "removed (ledger total)",
                    "signature"]
    assert data.find_element(By.CSS_SELECTOR, "td").text.startswith("FrameNet ")
    assert "(0/0)" not in browser.find_element(By.TAG_NAME, "body").text
    manifest = report.parent / "manifest.json"
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    if not manifest.is_file() or '"frameid"' not in manifest.read_text(encoding="utf-8"):
        return
    assert browser.find_element(By.ID, "frameid").is_displayed()
    assert charts, "no chart drawn"
    for chart in charts:
        size = chart.size
        assert chart.is_displayed() and size["width"] > 300 and size["height"] > 100, size
        for part in ("chart-title", "axis-label.x", "axis-label.y"):
            text = chart.find_element(By.CSS_SELECTOR, f"text.{part}")
            box = browser.execute_script("const b = arguments[0].getBBox(); return [b.width, b.height];", text)
            assert text.text.strip() and box[0] > 0 and box[1] > 0, (report, part)
        assert chart.find_elements(By.CSS_SELECTOR, "text.tick")
    frameid = charts[0]
    assert "Wilson" in frameid.find_element(By.CSS_SELECTOR, "text.chart-title").text
    whiskers = frameid.find_elements(By.CSS_SELECTOR, "g.whisker")
    assert whiskers and all(w.size["width"] > 0 for w in whiskers)
    assert browser.find_element(By.ID, "measures").is_displayed()

