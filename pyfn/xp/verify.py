"""``pyfn verify``: does an experiment still give what its manifest says?

Without ``--rerun``: the recipe, the versions, the FrameNet source, every
output, the external parsers' environments (commit, patches, pins) and their
finished trainings (each model's record and sha256) are checked against
``manifest.json``. With ``--rerun``: every pyfn step runs again in a temporary
copy of the experiment (same relative paths) and every output and score is
compared byte for byte. External parsers are not rerun; their imported
predictions are rescored when present. Drift is a
list of readable differences; none means the experiment verifies.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from pyfn.errors import PyfnError
from pyfn.manifest import MANIFEST, read_manifest
from pyfn.xp import manifest as xp_manifest
from pyfn.xp.recipe import RECIPE, Recipe, expand, load_recipe
from pyfn.xp.run import execute, script_path
from pyfn.xp.steps import Layout, Step, steps, target
from pyfn.xp.study import split_runs
from pyfn.xp.variants import extra_steps, variant_runs


def _diff(kind: str, name: str, expected: Any, found: Any) -> list[str]:
    if expected == found:
        return []
    return [f"{kind} {name}:", f"  - manifest: {expected}", f"  + now:      {found}"]


def _recorded(folder: Path) -> dict[str, Any]:
    """The experiment's manifest; an error (exit 2: nothing to compare) when it has none."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise PyfnError(f"{folder}: no {MANIFEST}: the experiment has not been run (pyfn xp run, then pyfn xp report)",
                        exit_code=2)
    return manifest


def _input_drift(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """Differences in what the experiment is made from: recipe, library versions, FrameNet source."""
    recipe = load_recipe(folder)
    drift = _diff("recipe", RECIPE, manifest["recipe_sha256"], xp_manifest.recipe_sha256(folder))
    for name, version in xp_manifest.versions().items():
        drift += _diff("version of", name, manifest["versions"].get(name), version)
    source = xp_manifest.source_record(recipe)
    if "sha256" in manifest["inputs"]["framenet"]:
        drift += _diff("input", f"FrameNet source {recipe.source}", manifest["inputs"]["framenet"]["sha256"],
                       source.get("sha256", "missing"))
    return drift


def _output_drift(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """Differences between the outputs in ``work/`` and those the manifest records."""
    drift: list[str] = []
    found = xp_manifest.output_hashes(Layout(folder))
    for name, digest in manifest["outputs"].items():
        drift += _diff("output", name, digest, found.get(name, "missing (run `pyfn xp run` or verify --rerun)"))
    for name in sorted(set(found) - set(manifest["outputs"])):
        drift += _diff("output", name, "absent", found[name])
    for key, kind, read in (("parsers", "external parser in", xp_manifest.parsers),
                            ("trainings", "training in", xp_manifest.trainings)):
        if key in manifest:  # recorded since pyfn records the external parsers' environment (and trainings)
            now = read(Layout(folder))
            for name in sorted(set(manifest[key]) | set(now)):
                drift += _diff(kind, name, manifest[key].get(name, "absent"), now.get(name, "absent"))
    return drift


def check(folder: Path) -> list[str]:
    """Differences between the experiment as it stands and its manifest (empty: it verifies).

    An experiment recorded elsewhere but not run in this clone is an error (exit 2) saying how to run it,
    not a list of every output missing."""
    manifest = _recorded(folder)
    if not xp_manifest.ran_here(folder):
        number = manifest["experiment"]["number"]
        raise PyfnError(f"{folder} has not been run here (work/ is not committed): `bash {script_path(folder)}` "
                        f"or `pyfn xp run {number}` runs it and then verifies it; `pyfn verify {folder} --rerun` "
                        "reruns it in a temporary copy", exit_code=2)
    return _input_drift(folder, manifest) + _output_drift(folder, manifest)


@contextmanager
def _inside(directory: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


def _layouts(recipe: Recipe, folder: Path) -> list[Layout]:
    """The layout of the recipe's own settings and of each drawn split or variant."""
    return [run.layout for run in (variant_runs(recipe, folder) if recipe.variants else split_runs(recipe, folder))]


def _target(step: Step) -> str | None:
    """The folder or file a pyfn step writes (``--target`` or ``--output``); None for an external
    parser's own step, or a step reading its predictions (``--source``, ``--pred``) when they are not there."""
    if step.shell:
        return None
    argv = list(step.argv)
    if step.system is not None and step.system.external:
        inputs = [argv[i + 1] for i, a in enumerate(argv) if a in ("--source", "--pred")]
        if not all(Path(p).exists() for p in inputs):
            return None
    return target(step)


def rerun(folder: Path, main: Callable[[list[str]], int], log: Callable[[str], None] = lambda line: None) -> list[str]:
    """Regenerate the experiment in a temporary copy and compare with the original outputs and scores
    (and, when it has been run here, the outputs in ``work/`` too)."""
    manifest = _recorded(folder)
    drift = _input_drift(folder, manifest)
    if xp_manifest.ran_here(folder):
        drift += _output_drift(folder, manifest)
    recipe = load_recipe(folder)
    source = Path(expand(recipe.source))
    if source.exists():  # the rerun runs elsewhere: a relative path must still find the release
        recipe = dataclasses.replace(recipe, source=str(source.resolve()))
    relative = folder.resolve().relative_to(Path.cwd().resolve()) if folder.is_absolute() else folder
    with tempfile.TemporaryDirectory(prefix="pyfn-verify-") as tmp:
        copy = Path(tmp) / relative
        copy.mkdir(parents=True)
        shutil.copy2(folder / RECIPE, copy / RECIPE)
        layouts = _layouts(recipe, folder)
        for layout in layouts:  # external predictions are not regenerated, only rescored
            for system in recipe.systems:
                if system.external and layout.output(system).is_dir():
                    shutil.copytree(layout.output(system), copy / layout.output(system).relative_to(folder))
        with _inside(Path(tmp)):
            targets = []
            for step in [*steps(recipe, Layout(relative)), *extra_steps(recipe, relative)]:
                output = _target(step)
                if output is None:
                    log(f"pyfn verify: step {step.name} not rerun (external parser)")
                    continue
                log(f"pyfn verify: rerunning {step.name}")
                execute(step, recipe.number, main)
                targets.append(Path(output).relative_to(relative))
            regenerated = xp_manifest.output_hashes(Layout(relative))
            scores = xp_manifest.read_scores(Layout(relative), recipe)
        originals = manifest["outputs"]
    for name in sorted(set(originals) | set(regenerated)):
        if name in originals and name in regenerated and originals[name] != regenerated[name]:
            drift += [f"rerun output {name}: differs from the original"]
        elif name not in regenerated and name in originals and any(Path(name).is_relative_to(t) for t in targets):
            drift += [f"rerun output {name}: not regenerated"]
    for system, by_split in manifest["scores"].items():
        drift += _diff("rerun score of", system, by_split, scores.get(system, "not regenerated"))
    return drift
