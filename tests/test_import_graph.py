"""pyfn's import graph, read from the source with ``ast``: no import cycle anywhere in ``pyfn/``, and no module below
the command line (outside ``pyfn/cli/``) imports it. Every import counts, those inside functions and under
``TYPE_CHECKING`` too: a lazy import only hides a cycle. Importing from the root package ``pyfn`` (its
``__version__``) is no edge: ``pyfn/__init__.py`` imports nothing when loaded, its API only on attribute access."""

from __future__ import annotations

import ast
from pathlib import Path


PACKAGE = Path(__file__).resolve().parent.parent / "pyfn"
ROOT = "pyfn"


def modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module of ``known`` that ``name`` (a module, or a name in one) is, or is in."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            # `from pyfn.x import y`: the module pyfn.x.y when there is one, else a name of pyfn.x
            targets += [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                        for alias in node.names]
    found = {_resolve(target, known) for target in targets}
    return {module for module in found if module is not None and module not in (name, ROOT)}


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports, for every module of ``package``."""
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycle():
    found = cycles(graph())
    assert not found, "import cycles in pyfn/: " + "; ".join(" <-> ".join(c) for c in found)


ABOVE_THE_CLI = ("pyfn.__main__",)
"""``python -m pyfn``: the entry point that calls the command line."""


def test_only_the_command_line_imports_it():
    below = {name: sorted(m for m in imported if m == "pyfn.cli" or m.startswith("pyfn.cli."))
             for name, imported in graph().items()
             if name != "pyfn.cli" and not name.startswith("pyfn.cli.") and name not in ABOVE_THE_CLI}
    offenders = {name: found for name, found in below.items() if found}
    assert not offenders, f"modules below the command line import it: {offenders}"


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    """The checker finds a cycle made of a function-level import and a relative one, and no cycle without."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg.b import g\n    return g\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n")
    (package / "c.py").write_text("from .a import f\n")
    assert cycles(graph(package)) == [["pkg.a", "pkg.b", "pkg.c"]]
    (package / "c.py").write_text("import json\n")
    assert cycles(graph(package)) == []


def test_every_verb_is_a_module_of_the_cli_package():
    """Each verb ``pyfn --help`` lists is a module of ``pyfn/cli/`` with ``add_parser(subparsers)`` and ``run(args)``."""
    from pyfn.cli import COMMANDS, build_parser  # noqa: PLC0415

    verbs = next(a for a in build_parser()._actions if a.dest == "command").choices  # noqa: SLF001
    assert sorted(f"pyfn.cli.{verb.replace('-', '_')}" for verb in verbs) == sorted(m.__name__ for m in COMMANDS)
    for module in COMMANDS:
        assert callable(module.add_parser) and callable(module.run), module.__name__
