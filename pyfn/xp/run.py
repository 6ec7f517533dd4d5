"""``pyfn xp run``: execute an experiment's steps (all, or one by name) and its scaffolding commands."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import write_text
from pyfn.manifest import read_manifest, write_manifest
from pyfn.resources import resource_path
from pyfn.xp import record
from pyfn.xp.recipe import RECIPE, Recipe, expand, load_recipe
from pyfn.xp.report import page, readme
from pyfn.xp.steps import Layout, Step, analysis_steps, score_steps, script, steps
from pyfn.xp.study import split_runs
from pyfn.xp.variants import extra_steps
from pyfn.workers import job_count, process_pool

DEFAULT_ROOT = Path("experiments")


def folder_of(number: str, root: Path = DEFAULT_ROOT) -> Path:
    """``experiments/xp_NNN`` for ``NNN`` (digits, zero-padded to three)."""
    if not number.isdigit():
        raise UsageError(f"experiment number {number!r} must be digits, e.g. 001")
    return Path(root) / f"xp_{int(number):03d}"


def script_path(folder: Path) -> Path:
    """``scripts/xp_NNN.sh`` beside the experiments root."""
    return folder.parent.parent / "scripts" / f"{folder.name}.sh"


def templates() -> dict[str, Path]:
    """The recipe templates shipped with pyfn, by name."""
    directory = resource_path("xp_templates")
    return {p.stem: p for p in sorted(directory.glob("*.toml"))}


def new(number: str, template: str, root: Path = DEFAULT_ROOT) -> Path:
    """Create ``experiments/xp_NNN/experiment.toml`` from ``template`` and its script."""
    known = templates()
    if template not in known:
        raise UsageError(f"unknown template {template!r} (known: {', '.join(known)})")
    folder = folder_of(number, root)
    if (folder / RECIPE).exists():
        raise PyfnError(f"{folder / RECIPE} exists already; pick another number")
    folder.mkdir(parents=True, exist_ok=True)
    text = known[template].read_text(encoding="utf-8").replace('number = "NNN"', f'number = "{int(number):03d}"')
    (folder / RECIPE).write_text(text, encoding="utf-8")
    (folder / ".gitignore").write_text("work/\n", encoding="utf-8")
    write_script(load_recipe(folder), folder)
    return folder


def write_script(recipe: Recipe, folder: Path) -> Path:
    """(Re)write ``scripts/xp_NNN.sh`` from the recipe."""
    path = script_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(recipe, Layout(folder), extra_steps(recipe, folder)), encoding="utf-8")
    path.chmod(0o755)
    return path


def list_experiments(root: Path = DEFAULT_ROOT) -> list[tuple[str, str, str]]:
    """``(number, title, status)`` of every experiment under ``root``."""
    out = []
    for folder in sorted(Path(root).glob("xp_*")):
        if not (folder / RECIPE).is_file():
            continue
        try:
            recipe = load_recipe(folder)
        except PyfnError as exc:
            out.append((folder.name[3:], "?", f"bad recipe: {exc}"))
            continue
        out.append((recipe.number, recipe.title, status(recipe, folder)))
    return out


def status(recipe: Recipe, folder: Path) -> str:
    """Whether the experiment has been run in this clone and whether a result is recorded, with what to do next."""
    manifest = read_manifest(folder)
    here = record.ran_here(folder)
    if manifest is None:
        return f"run here; not recorded (pyfn xp report {recipe.number})" if here else "not run"
    scored = f"recorded: {len(manifest.get('scores', {}))} systems scored"
    if here:
        return f"run here; {scored} (pyfn verify {folder})"
    return f"not run here; {scored} (bash {script_path(folder)} runs and verifies it)"


def _expand(argv: Sequence[str]) -> list[str]:
    return [expand(a) if "${" in a else a for a in argv]


def execute(step: Step, number: str, main: Callable[[list[str]], int]) -> None:
    """Run one step; an error names the step and how to go on."""
    if step.argv:
        code = main(_expand(step.argv))
        if code:
            raise PyfnError(f"step {step.name} failed (exit {code}); fix it and rerun `pyfn xp run {number} --step {step.name}`")
        return
    system = step.system
    assert system is not None and system.home is not None
    if not os.environ.get(system.home):
        raise PyfnError(
            f"step {step.name}: {system.home} is not set; install {system.name} ({system.install or 'see its README'}) "
            f"and set {system.home}. The pyfn steps run on their own: once you have its predictions, "
            f"`pyfn xp run {number} --step score --system {system.name} --predictions DIR`"
        )
    for line in step.shell[1:]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", line], check=False)
        if proc.returncode:
            raise PyfnError(f"step {step.name}: `{line}` failed (exit {proc.returncode})")


def _check_release(recipe: Recipe, layout: Layout) -> None:
    manifest = read_manifest(layout.data)
    if manifest is None or not recipe.fingerprint:
        return
    found = manifest["release"]["fingerprint"]
    if found != recipe.fingerprint:
        raise PyfnError(
            f"{layout.data}: the FrameNet release read ({recipe.source}) has fingerprint {found[:16]}..., the recipe "
            f"requires {recipe.fingerprint[:16]}...: not the release this experiment was defined on"
        )


def _import_predictions(recipe: Recipe, layout: Layout, system_name: str, predictions: Path) -> list[Step]:
    """Steps that bring supplied predictions of one system into the experiment before scoring it, then its
    error analysis and, once every other system has predictions, the protocols table (``[scoring] analysis``)."""
    systems = {s.name: s for s in recipe.systems}
    if system_name not in systems:
        raise UsageError(f"--system {system_name!r}: not a system of experiment {recipe.number} "
                         f"({', '.join(systems) or 'none'})")
    system = systems[system_name]
    if not predictions.is_dir():
        raise PyfnError(f"--predictions {predictions}: not a directory")
    output = layout.output(system) if system.external else layout.system(system)
    if output.resolve() != predictions.resolve():
        if output.exists():
            shutil.rmtree(output)
        shutil.copytree(predictions, output)
    imports = [s for s in steps(recipe, layout) if s.name == f"import:{system_name}"]
    split = recipe.score_splits[-1]
    ready = all((layout.system(s) / f"{split}.predicted.xml").is_file() for s in recipe.systems if s.name != system_name)
    analysis = [s for s in analysis_steps(recipe, layout)  # the protocols step needs every system's predictions
                if s.name == f"breakdown:{system_name}:{split}" or (s.name.startswith("protocols:") and ready)]
    return imports + score_steps(recipe, layout, only=system_name) + analysis


def run(
    folder: Path, main: Callable[[list[str]], int], step: str | None = None, system: str | None = None,
    predictions: Path | None = None, log: Callable[[str], None] = lambda line: None, jobs: int = 0,
) -> list[str]:
    """Run every step of the experiment in ``folder`` (or those named ``step`` / starting ``step:``).

    With ``predictions`` (and ``system``), the predictions are copied into the
    experiment and only that system's import and score steps run. The drawn
    splits of a study run in ``jobs`` processes (0: one per core), each split's
    steps in order in one of them; every other step runs here, in order. The
    outputs do not depend on ``jobs``.
    """
    recipe = load_recipe(folder)
    layout = Layout(folder)
    if predictions is not None:
        if system is None:
            raise UsageError("--predictions needs --system NAME")
        selected = _import_predictions(recipe, layout, system, Path(predictions))
    else:
        selected = [s for s in [*steps(recipe, layout), *extra_steps(recipe, folder)]
                    if step is None or s.name == step or s.name.startswith((f"{step}:", f"{step}/"))]
        if system is not None:
            selected = [s for s in selected if s.system is None or s.system.name == system]
        if not selected:
            names = sorted({s.name.split(":")[0].split("/")[0] for s in [*steps(recipe, layout), *extra_steps(recipe, folder)]})
            raise UsageError(f"no step {step!r} in experiment {recipe.number} (steps: {', '.join(names)})")
    done: list[str] = []
    drawn = {f"{r.name}/" for r in split_runs(recipe, folder)[1:]}
    position = {id(s): i for i, s in enumerate(selected, 1)}
    for group in _groups(selected, drawn):
        if len(group) == 1 or job_count(jobs, len(group)) == 1:
            for steps_of in group:
                for current in steps_of:
                    log(f"pyfn xp {recipe.number}: step {position[id(current)]}/{len(selected)} {current.name}")
                    execute(current, recipe.number, main)
                    if current.name == "data":
                        _check_release(recipe, layout)
                    done.append(current.name)
            continue
        log(f"pyfn xp {recipe.number}: {len(group)} drawn splits in {job_count(jobs, len(group))} processes")
        with process_pool(job_count(jobs, len(group)), _init_worker, (group, recipe.number, main)) as pool:
            for names in pool.imap(_run_split, range(len(group))):
                for name in names:
                    log(f"pyfn xp {recipe.number}: step {position[id(_by_name(group, name))]}/{len(selected)} "
                        f"{name} done")
                done.extend(names)
    return done


def _groups(selected: list[Step], drawn: set[str]) -> list[list[list[Step]]]:
    """The steps in order, cut into runs: each step alone, except that the steps of consecutive drawn
    splits of a study (named ``SPLIT/step``) form one run of per-split lists, which may go in parallel
    (a drawn split's steps depend only on each other)."""

    def split_of(step: Step) -> str | None:
        prefix = step.name.split("/", 1)[0] + "/"
        return prefix if "/" in step.name and prefix in drawn else None

    out: list[list[list[Step]]] = []
    for step in selected:
        split = split_of(step)
        if split is None or not out or split_of(out[-1][-1][-1]) is None:
            out.append([[step]])
        elif split_of(out[-1][-1][-1]) == split:
            out[-1][-1].append(step)
        else:
            out[-1].append([step])
    return out


def _by_name(group: list[list[Step]], name: str) -> Step:
    return next(s for steps_of in group for s in steps_of if s.name == name)


_WORKER: dict = {}


def _init_worker(group: list[list[Step]], number: str, main: Callable[[list[str]], int]) -> None:
    _WORKER.update(group=group, number=number, main=main)


def _run_split(index: int) -> list[str]:
    """Every step of one drawn split, in order (in a worker process: the steps' own commands run
    in one process each, :func:`pyfn.workers.job_count`)."""
    names = []
    for step in _WORKER["group"][index]:
        execute(step, _WORKER["number"], _WORKER["main"])
        names.append(step.name)
    return names


def report(folder: Path) -> dict:
    """Write the experiment's ``README.md``, ``report.html``, script and, once its data step has run,
    ``manifest.json`` (last). Not run here, a recorded result is shown again from its manifest, not replaced."""
    recipe = load_recipe(folder)
    layout = Layout(folder)
    here = record.ran_here(folder)
    manifest = None if here else read_manifest(folder)
    if manifest is None:
        manifest = record.build(recipe, layout)
    elif manifest["recipe_sha256"] != record.recipe_sha256(folder):
        raise PyfnError(f"{folder / RECIPE} changed since {folder}/manifest.json was recorded and the experiment has "
                        f"not been run here: run it (`pyfn xp run {recipe.number}`) to record the new result")
    write_script(recipe, folder)
    write_text(folder / "README.md", readme(recipe, layout, manifest))
    write_text(folder / "report.html", page(recipe, layout, manifest))
    if here:  # a run to record: the data step finished
        write_manifest(folder, manifest)
    return manifest
