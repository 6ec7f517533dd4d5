"""The user documentation: README.md and docs/*.md link to files that exist; CI runs the README's test command."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from urllib.parse import unquote

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
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
    assert [p.name for p in DOCS[1:]] == ["BREAKDOWN.md", "FORMATS.md", "HF_DATASET.md", "PROTOCOLS.md", "SPLITS.md"]
    links = relative_links(REPO / "README.md")
    assert {"docs/SPLITS.md", "docs/FORMATS.md", "docs/PROTOCOLS.md", "docs/BREAKDOWN.md"} <= set(links)


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
    block = re.search(r"```sh\n(.*?)```", readme, re.DOTALL)
    assert block, "README.md has no set-up block"
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
