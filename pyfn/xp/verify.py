"""``pyfn verify``: does an experiment still give what its manifest says?

Without ``--rerun``: the recipe, the versions, the FrameNet source and every
output are checked against ``manifest.json``. With ``--rerun``: every pyfn
step runs again in a temporary copy of the experiment (same relative paths)
and every output and score is compared byte for byte. External parsers are
not rerun; their imported predictions are rescored when present. Drift is a
list of readable differences; none means the experiment verifies.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from pyfn.errors import PyfnError
from pyfn.manifest import MANIFEST, read_manifest
from pyfn.xp import record
from pyfn.xp.recipe import RECIPE, expand, load_recipe
from pyfn.xp.run import execute
from pyfn.xp.steps import Layout, steps


def _diff(kind: str, name: str, expected: Any, found: Any) -> list[str]:
    if expected == found:
        return []
    return [f"{kind} {name}:", f"  - manifest: {expected}", f"  + now:      {found}"]


def check(folder: Path) -> list[str]:
    """Differences between the experiment as it stands and its manifest (empty: it verifies)."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise PyfnError(f"{folder}: no {MANIFEST}: the experiment has not been run (pyfn xp run, then pyfn xp report)")
    recipe = load_recipe(folder)
    drift: list[str] = []
    recipe_sha = hashlib.sha256((folder / RECIPE).read_bytes()).hexdigest()
    drift += _diff("recipe", RECIPE, manifest["recipe_sha256"], recipe_sha)
    for name, version in record.versions().items():
        drift += _diff("version of", name, manifest["versions"].get(name), version)
    source = record.source_record(recipe)
    if "sha256" in manifest["inputs"]["framenet"]:
        drift += _diff("input", f"FrameNet source {recipe.source}", manifest["inputs"]["framenet"]["sha256"],
                       source.get("sha256", "missing"))
    found = record.output_hashes(Layout(folder))
    for name, digest in manifest["outputs"].items():
        drift += _diff("output", name, digest, found.get(name, "missing (run `pyfn xp run` or verify --rerun)"))
    for name in sorted(set(found) - set(manifest["outputs"])):
        drift += _diff("output", name, "absent", found[name])
    return drift


@contextmanager
def _inside(directory: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


def rerun(folder: Path, main: Callable[[list[str]], int], log: Callable[[str], None] = lambda line: None) -> list[str]:
    """Regenerate the experiment in a temporary copy and compare with the original outputs and scores."""
    drift = check(folder)
    manifest = read_manifest(folder)
    assert manifest is not None
    recipe = load_recipe(folder)
    source = Path(expand(recipe.source))
    if source.exists():  # the rerun runs elsewhere: a relative path must still find the release
        recipe = dataclasses.replace(recipe, source=str(source.resolve()))
    relative = folder.resolve().relative_to(Path.cwd().resolve()) if folder.is_absolute() else folder
    with tempfile.TemporaryDirectory(prefix="pyfn-verify-") as tmp:
        copy = Path(tmp) / relative
        copy.mkdir(parents=True)
        shutil.copy2(folder / RECIPE, copy / RECIPE)
        for system in recipe.systems:  # external predictions are not regenerated, only rescored
            if system.external and (folder / system.output).is_dir():
                shutil.copytree(folder / system.output, copy / system.output)
        with _inside(Path(tmp)):
            layout = Layout(relative)
            for step in steps(recipe, layout):
                if step.shell or (step.system is not None and step.system.external
                                  and not (layout.folder / step.system.output).is_dir()):
                    log(f"pyfn verify: step {step.name} not rerun (external parser)")
                    continue
                log(f"pyfn verify: rerunning {step.name}")
                execute(step, recipe.number, main)
            regenerated = record.output_hashes(layout)
            scores = record.read_scores(layout, recipe)
        originals = manifest["outputs"]
    for name in sorted(set(originals) | set(regenerated)):
        if name in originals and name in regenerated and originals[name] != regenerated[name]:
            drift += [f"rerun output {name}: differs from the original"]
        elif name not in regenerated and name in originals:
            drift += [f"rerun output {name}: not regenerated"]
    for system, by_split in manifest["scores"].items():
        drift += _diff("rerun score of", system, by_split, scores.get(system, "not regenerated"))
    return drift
