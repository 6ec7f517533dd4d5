"""Two adjustments that let pyfn's own texts into the site unchanged, with warnings as errors.

- pyfn's ``--help`` texts are plain text written for a terminal (``lu/*.xml``, `` `pyfn xp report` ``),
  not reStructuredText: sphinx-argparse renders them as paragraphs whose backquoted spans are code.
- The Markdown pages link to files of the repository (``../resources/splits/``, ``../CHANGELOG.md``), which
  GitHub shows and the site does not hold: such a link, when the file exists, points at the repository's copy.
  A link to a missing file is left to MyST, which warns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import sphinxarg.ext
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

CODE = re.compile(r"(`+)(.+?)\1")


def plain_paragraph(text: str) -> nodes.paragraph:
    """``text`` as one paragraph, its backquoted spans as inline code."""
    paragraph, at = nodes.paragraph(), 0
    for match in CODE.finditer(text):
        paragraph += nodes.Text(text[at:match.start()])
        paragraph += nodes.literal(match.group(2), match.group(2))
        at = match.end()
    paragraph += nodes.Text(text[at:])
    return paragraph


def render_help(items: list[Any], markdown_help: bool, settings: Any = None) -> list[nodes.Node]:
    """sphinx-argparse's ``render_list``, for plain-text help: strings become paragraphs, nested content stays."""
    rendered: list[nodes.Node] = []
    for item in items:
        if isinstance(item, str):
            rendered.append(plain_paragraph(item))
        elif isinstance(item, nodes.definition):
            rendered.extend(item.children)
    return rendered


class RepositoryLinks(SphinxTransform):
    """A Markdown link to a repository file outside the docs folder becomes a link to the repository's copy."""

    default_priority = 5

    def apply(self, **kwargs: Any) -> None:
        root = Path(self.config.pyfn_repository_root)
        docs = Path(self.env.srcdir)
        for node in list(self.document.findall(addnodes.download_reference)) + list(
                self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst":
                continue
            if node.get("refdomain") == "doc":  # a Markdown file: MyST took it for a page (its name, no suffix)
                path = (docs / f"{node['reftarget']}.md").resolve()
                anchor = node.get("reftargetid")
            elif node.get("refdomain") in (None, ""):
                target, _, anchor = str(node["reftarget"]).partition("#")
                path = (Path(self.env.doc2path(self.env.docname)).parent / target).resolve()
            else:
                continue
            if not path.exists() or not path.is_relative_to(root) or path.is_relative_to(docs):
                continue
            kind = "tree" if path.is_dir() else "blob"
            uri = f"{self.config.pyfn_repository_url}/-/{kind}/main/{path.relative_to(root).as_posix()}"
            uri += f"#{anchor}" if anchor else ""
            content = node.children[0].deepcopy() if node.children else nodes.literal(target, target)
            if isinstance(content, nodes.inline) and not content.children:
                content = nodes.literal(target, target)
            node.replace_self(nodes.reference("", "", content, refuri=uri, internal=False))


def setup(app: Sphinx) -> dict[str, Any]:
    sphinxarg.ext.render_list = render_help
    sphinxarg.ext.ArgParseDirective._nested_parse_paragraph = lambda self, text: plain_paragraph(text)
    app.add_config_value("pyfn_repository_root", "", "env")
    app.add_config_value("pyfn_repository_url", "", "env")
    app.add_transform(RepositoryLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
