"""The user documentation: README.md (a front door) and the pages under docs/ link to files that exist; CI runs the
README's test command. The built site is checked in tests/test_docs_site.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from urllib.parse import unquote

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted(p for p in (REPO / "docs").rglob("*.md") if "_build" not in p.parts)]
LINK = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+\"[^\"]*\")?\s*\)")
"""Inline Markdown links and images: ``[text](target)``, ``[text](<target> "title")``."""
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
"""Reference definitions: ``[label]: target``."""
FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`+[^`]*`+")


def _prose(text: str) -> str:
    """The text without fenced code blocks and code spans (where brackets are not links)."""
    return CODE.sub("", FENCE.sub("", text))


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of the headings of a Markdown file."""
    anchors = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            title = re.sub(r"[^\w\- ]", "", match.group(1).replace("`", "").lower())
            anchors.add(title.replace(" ", "-"))
    return anchors


def relative_links(path: Path) -> list[str]:
    """Every link target of a Markdown file that is not a URL (``http:``, ``mailto:``...)."""
    text = _prose(path.read_text(encoding="utf-8"))
    targets = [m.group(1) or m.group(2) for m in LINK.finditer(text)] + [m.group(1) for m in REFERENCE.finditer(text)]
    return [t for t in targets if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) and not t.startswith("//")]


def test_docs_exist_and_readme_links_them():
    reference = ["BREAKDOWN.md", "FORMATS.md", "HF_DATASET.md", "PROTOCOLS.md", "SPLITS.md"]
    assert sorted(p.name for p in (REPO / "docs").glob("*.md")) == sorted([*reference, "benchmarks.md",
                                                                          "getting-started.md", "index.md"])
    links = set(relative_links(REPO / "README.md"))
    assert {f"docs/{name}" for name in reference} <= links
    howto = {f"docs/howto/{p.name}" for p in (REPO / "docs" / "howto").glob("*.md")}
    assert howto and howto <= {link.partition("#")[0] for link in links}, "a how-to page the README does not link"


def test_readme_is_a_front_door():
    """At most 150 lines; installing pyfn and getting FrameNet come within the first 25."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    first = "\n".join(lines[:25])
    assert "pip install" in first and "framenet.icsi.berkeley.edu" in first and "nltk.downloader framenet_v15" in first


def test_every_relative_link_points_at_a_file_that_exists():
    checked = 0
    for doc in DOCS:
        for target in relative_links(doc):
            file_part, _, anchor = target.partition("#")
            dest = (doc.parent / unquote(file_part)).resolve() if file_part else doc
            where = f"{doc.relative_to(REPO)}: link {target!r}"
            assert dest.exists(), f"{where}: {dest} does not exist"
            assert dest == REPO or REPO in dest.parents, f"{where} leaves the repository"
            if anchor and dest.suffix == ".md":
                assert anchor in _anchors(dest), f"{where}: no heading #{anchor} in {dest.name}"
            checked += 1
    assert checked >= 6


def test_link_finder_sees_every_kind_of_link(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "See [a](docs/A.md), ![img](pic.png \"t\"), [b](<my file.md>), [c](https://x.org/y), [d](#top).\n"
        "`[not](code.md)`\n```\n[not](fenced.md)\n```\n[ref]: ../other.md\n",
        encoding="utf-8",
    )
    assert sorted(relative_links(doc)) == sorted(["docs/A.md", "pic.png", "my file.md", "#top", "../other.md"])


def _readme_test_command() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    development = readme[readme.index("\n## Development\n"):]
    block = re.search(r"```sh\n(.*?)```", development, re.DOTALL)
    assert block, "README.md's Development section has no set-up block"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    tests = [c for c in commands if c.startswith("python -m pytest")]
    assert len(tests) == 1, f"the set-up block must hold one test command: {commands}"
    return tests[0]


def test_ci_runs_the_readme_test_command():
    command = _readme_test_command()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    ran = [line.strip() for line in ci.splitlines() if line.strip().startswith("python -m pytest")]
    assert ran == [command], f".ci/run runs {ran}, README.md says {command!r}"
    if "-n" in shlex.split(command):  # pytest-xdist: it must be installed with the test extra
        extra = (REPO / "setup.cfg").read_text(encoding="utf-8").split("test =", 1)[1].split("\n\n", 1)[0]
        assert "pytest-xdist" in extra
