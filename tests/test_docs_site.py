"""The documentation site (docs/, Sphinx + MyST): it builds with warnings as errors, every CLI verb has its page,
every internal link of the built HTML lands on a file and an anchor that exist, and the generated CLI reference
of ``convert`` shows its options in headless Chromium (as tests/xp/test_report_browser.py opens report.html).

CI builds the site once (.ci/run) and names the folder in ``PYFN_DOCS_HTML``; without it the site is built here.
The screenshot goes to ``PYFN_DOCS_SCREENSHOT`` (CI: ``cli-convert.png`` beside the site), else to a temporary folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from pyfn.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
CHROMIUM = Path(os.environ.get("PYFN_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("PYFN_CHROMEDRIVER", "/usr/bin/chromedriver"))
pytestmark = pytest.mark.xdist_group("docs_site")


def _unavailable(why: str) -> None:
    """Skip locally, fail in CI (which installs the docs extra and the browser)."""
    if os.environ.get("CI"):
        pytest.fail(f"{why} (in CI)")
    pytest.skip(why)


def build(out: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -W --keep-going -n`` of docs/ into ``out``, as .ci/run builds it."""
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
                           str(DOCS), str(out)], capture_output=True, text=True, check=False, cwd=REPO)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site: CI's build (``PYFN_DOCS_HTML``), else one made here."""
    given = os.environ.get("PYFN_DOCS_HTML")
    if given:
        assert (Path(given) / "index.html").is_file(), f"PYFN_DOCS_HTML={given} holds no built site"
        return Path(given)
    for module in ("sphinx", "myst_parser", "sphinxarg", "furo"):
        if importlib.util.find_spec(module) is None:
            _unavailable(f"{module} is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("docs") / "html"
    done = build(out)
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stdout}\n{done.stderr}"
    assert "WARNING" not in done.stderr, done.stderr
    return out


def verbs() -> list[str]:
    """The verbs of ``pyfn``, as its parser defines them."""
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def test_every_verb_has_a_reference_page_in_the_toctree():
    pages = sorted(p.stem for p in (DOCS / "reference" / "cli").glob("*.md") if p.stem != "index")
    assert pages == verbs()
    index = (DOCS / "reference" / "cli" / "index.md").read_text(encoding="utf-8")
    listed = re.search(r"```\{toctree\}\n(.*?)```", index, re.DOTALL)
    assert listed and sorted(line.strip() for line in listed.group(1).splitlines()
                             if line.strip() and not line.startswith(":")) == pages
    for verb in pages:
        page = (DOCS / "reference" / "cli" / f"{verb}.md").read_text(encoding="utf-8")
        assert f":path: {verb}\n" in page and ":func: build_parser\n" in page, f"{verb}.md: not generated from the parser"


class _Links(HTMLParser):
    """The ``href``/``src`` values and the ``id``s of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src"):
                self.links.append(value)
            elif name == "id":
                self.ids.add(value)


def _parsed(path: Path, cache: dict[Path, _Links]) -> _Links:
    if path not in cache:
        cache[path] = _Links()
        cache[path].feed(path.read_text(encoding="utf-8"))
    return cache[path]


def internal_link_errors(site: Path) -> tuple[int, list[str]]:
    """Every relative link of every built page, checked: its file exists in the site, and its anchor in it."""
    cache: dict[Path, _Links] = {}
    checked, errors = 0, []
    for page in sorted(site.rglob("*.html")):
        for link in _parsed(page, cache).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {link!r}"
            checked += 1
            if not target.is_file():
                errors.append(f"{where}: no {target}")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parsed(target, cache).ids:
                errors.append(f"{where}: no id {parts.fragment!r} in {target.name}")
    return checked, errors


def test_internal_links_of_the_built_site_resolve(site):
    checked, errors = internal_link_errors(site)
    assert checked > 500 and errors == []


def test_the_link_check_sees_a_broken_link(tmp_path):
    (tmp_path / "index.html").write_text('<a id="top" href="#top">a</a><a href="gone.html">b</a>'
                                         '<a href="index.html#nowhere">c</a><a href="https://x.org/">d</a>')
    assert internal_link_errors(tmp_path) == (3, ["index.html: 'gone.html': no " + str(tmp_path / "gone.html"),
                                                  "index.html: 'index.html#nowhere': no id 'nowhere' in index.html"])


def test_convert_reference_page_in_headless_chromium(site, tmp_path_factory):
    """The generated CLI reference of ``pyfn convert`` shows its options; a screenshot is saved beside the site."""
    if importlib.util.find_spec("selenium") is None:
        _unavailable("selenium is not installed (pip install -e '.[test]')")
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.is_file():
            _unavailable(f"{path} not found (apt-get install {package}; .ci/run installs it)")
    from selenium import webdriver  # noqa: PLC0415
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1200,1600",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        driver.get((site / "reference" / "cli" / "convert.html").as_uri())
        assert [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
        assert driver.find_element(By.TAG_NAME, "h1").text.startswith("pyfn convert")
        options_shown = {name for e in driver.find_elements(By.CSS_SELECTOR, "dl.option-list kbd")
                         for name in e.text.split(", ")}
        assert {"--source", "--target", "--to", "--exclude-frames"} <= options_shown
        usage = driver.find_element(By.CSS_SELECTOR, "pre").text
        assert usage.startswith("usage: pyfn convert") and "--target TARGET" in usage
        shot = Path(os.environ.get("PYFN_DOCS_SCREENSHOT", tmp_path_factory.mktemp("shots") / "cli-convert.png"))
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()
