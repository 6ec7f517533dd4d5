"""Sphinx configuration of pyfn's documentation: Markdown pages (MyST), the CLI reference from pyfn's own argparse
parser (sphinx-argparse), the Python API from docstrings (autodoc). Built with warnings as errors:

    sphinx-build -W --keep-going -n -b html docs DIR
"""

from __future__ import annotations

import configparser
import sys
from pathlib import Path

import pyfn

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
_metadata = configparser.ConfigParser(interpolation=None)
_metadata.read(DOCS.parent / "setup.cfg", encoding="utf-8")

project = "pyfn"
author = "the pyfn maintainers"
copyright = "the pyfn maintainers; FrameNet: ICSI, Berkeley (CC BY)"  # noqa: A001 - Sphinx's name
release = version = pyfn.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinxarg.ext", "pyfn_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
myst_heading_anchors = 4
"""Headings get GitHub's anchors, so ``[x](FORMATS.md#parquet-...)`` resolves on GitHub and in the site alike."""
myst_enable_extensions = ["deflist"]
myst_ref_domains = ["std", "py"]
pyfn_repository_root = str(DOCS.parent)
pyfn_repository_url = _metadata["metadata"]["url"]
"""Where links to repository files outside docs/ point (pyfn_docs.RepositoryLinks)."""

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"

html_theme = "furo"
html_title = f"pyfn {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
nitpick_ignore_regex = [(r"py:(class|obj)", r"(pathlib|collections\.abc|typing|datasets)\.\w+|Path|Any")]
"""Classes of the standard library and of ``datasets`` that type hints name: no inventory of theirs here (offline)."""
smartquotes = False
"""pyfn's texts mean ``--from`` and ``'sample'`` literally: no typographic dashes or quotes."""
highlight_language = "none"
"""Blocks without a language (sphinx-argparse's usage) are shown as they are; every Markdown fence names its own."""
