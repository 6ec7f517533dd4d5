"""``pyfn xp run``: execute an experiment's steps (all, or one by name) and its scaffolding commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

from tqdm import tqdm

from pyfn.baselines.data import sets_kept
from pyfn.errors import PyfnError, UsageError
from pyfn.executors import (
    LOCAL,
    RETRIES,
    CommandFailed,
    check_spec,
    check_visible,
    dask_client,
    run_commands,
    task_env,
)
from pyfn.fileio import write_text
from pyfn.framenet.cache import default_cache_root
from pyfn.manifest import read_manifest, write_manifest
from pyfn.resources import resource_path
from pyfn.xp import manifest as xp_manifest, resume
from pyfn.xp.recipe import RECIPE, Recipe, expand, load_recipe
from pyfn.xp.report import page, readme
from pyfn.xp.resume import Tracked
from pyfn.xp.steps import Layout, Step, analysis_steps, score_steps, script, steps, target
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
    here = xp_manifest.ran_here(folder)
    if manifest is None:
        if not here:
            return "not run"
        done, total = finished_steps(recipe, folder)
        if done < total:
            return (f"partly run here: {done} of {total} recorded steps finished (pyfn xp run {recipe.number} goes on; "
                    "an external parser's own steps are not counted)")
        return f"run here; not recorded (pyfn xp report {recipe.number})"
    scored = f"recorded: {len(manifest.get('scores', {}))} systems scored"
    if here:
        return f"run here; {scored} (pyfn verify {folder})"
    return f"not run here; {scored} (bash {script_path(folder)} runs and verifies it)"


def finished_steps(recipe: Recipe, folder: Path) -> tuple[int, int]:
    """``(finished, total)`` of the experiment's steps that record their finishing (pyfn's own: an external
    parser's shell steps are not recorded), by their records in ``work/.steps`` (not re-hashed)."""
    recorded = [s for s in [*steps(recipe, Layout(folder)), *extra_steps(recipe, folder)] if target(s) is not None]
    return sum(resume.record_path(folder, s.name).is_file() for s in recorded), len(recorded)


def _expand(argv: Sequence[str]) -> list[str]:
    return [expand(a) if "${" in a else a for a in argv]


def execute(step: Step, number: str, main: Callable[[list[str]], int]) -> None:
    """Run one step; an error names the step and how to go on."""
    if step.argv:
        code = main(_expand(step.argv))
        if code:
            raise PyfnError(f"step {step.name} failed (exit {code}); fix it and rerun `pyfn xp run {number} --step {step.name}`")
        return
    _check_home(step, number)
    for line in step.shell[1:]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", line], check=False)
        if proc.returncode:
            raise PyfnError(f"step {step.name}: `{line}` failed (exit {proc.returncode})")


def _check_home(step: Step, number: str) -> None:
    """An external parser's step needs its home variable set, or an error saying how to go on."""
    system = step.system
    assert system is not None and system.home is not None
    if not os.environ.get(system.home):
        raise PyfnError(
            f"step {step.name}: {system.home} is not set; install {system.name} ({system.install or 'see its README'}) "
            f"and set {system.home}. The pyfn steps run on their own: once you have its predictions, "
            f"`pyfn xp run {number} --step score --system {system.name} --predictions DIR`"
        )


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
    executor: str = LOCAL, redo: bool = False,
) -> list[str]:
    """Run every step of the experiment in ``folder`` (or those named ``step`` / starting ``step:``).

    With ``predictions`` (and ``system``), the predictions are copied into the
    experiment and only that system's import and score steps run. A step that
    finished before (:mod:`pyfn.xp.resume`: same command, inputs and outputs)
    is skipped unless ``redo``. With the ``local`` executor the drawn splits of
    a study run in ``jobs`` processes (0: one per core), each split's steps in
    order in one of them, and every other step runs here, in order; with a Dask
    executor (:mod:`pyfn.executors`) every step runs on the cluster, in the same
    order, the steps of the drawn splits in parallel as their dependencies
    allow. The outputs depend on neither.
    """
    recipe = load_recipe(folder)
    layout = Layout(folder)
    every = [*steps(recipe, layout), *extra_steps(recipe, folder)]
    if predictions is not None:
        if system is None:
            raise UsageError("--predictions needs --system NAME")
        selected = _import_predictions(recipe, layout, system, Path(predictions))
    else:
        selected = [s for s in every if step is None or s.name == step or s.name.startswith((f"{step}:", f"{step}/"))]
        if system is not None:
            selected = [s for s in selected if s.system is None or s.system.name == system]
        if not selected:
            names = sorted({s.name.split(":")[0].split("/")[0] for s in every})
            raise UsageError(f"no step {step!r} in experiment {recipe.number} (steps: {', '.join(names)})")
    drawn = {f"{r.name}/" for r in split_runs(recipe, folder)[1:]}
    plan = _plan(selected, every, folder, redo)
    check_spec(executor)
    if not plan.get("data", (True,))[0]:  # finished before: its release is checked all the same
        _check_release(recipe, layout)
    groups = _groups(selected, drawn)
    if executor != LOCAL:
        with dask_client(executor, jobs, log) as client:
            check_visible(client, _inputs_of(recipe, folder))
            skipped = sum(not runs for runs, _ in plan.values())
            log(f"pyfn xp {recipe.number}: {len(plan) - skipped} steps on the Dask cluster"
                f"{f' ({skipped} finished before, outputs verified: skipped)' if skipped else ''}")
            return _run_on_dask(client, groups, drawn, plan, recipe, layout)
    done: list[str] = []
    position = {id(s): i for i, s in enumerate(selected, 1)}
    with ExitStack() as kept:  # the steps run here share the data their baselines decode (sets_kept)
        for group in groups:
            if len(group) == 1 or job_count(jobs, len(group)) == 1:
                kept.enter_context(sets_kept())
                for steps_of in group:
                    for current in steps_of:
                        counter = f"pyfn xp {recipe.number}: step {position[id(current)]}/{len(selected)} {current.name}"
                        runs, tracked = plan[current.name]
                        if not runs:
                            log(f"{counter}: finished before (outputs verified), skipped")
                            continue
                        log(counter)
                        execute(current, recipe.number, main)
                        if current.name == "data":
                            _check_release(recipe, layout)
                        _record(tracked, folder)
                        done.append(current.name)
                continue
            kept.close()  # the workers do not inherit the sets decoded here
            log(f"pyfn xp {recipe.number}: {len(group)} drawn splits in {job_count(jobs, len(group))} processes")
            with process_pool(job_count(jobs, len(group)), _init_worker,
                              (group, plan, recipe.number, main, folder)) as pool:
                for names in pool.imap(_run_split, range(len(group))):
                    for name in names:
                        log(f"pyfn xp {recipe.number}: step {position[id(_by_name(group, name))]}/{len(selected)} "
                            f"{name} done")
                    done.extend(names)
    return done


Plan = dict[str, tuple[bool, Tracked | None]]
"""By step name: whether it runs (False: finished before) and how its finishing is recorded."""


def _plan(selected: list[Step], every: list[Step], folder: Path, redo: bool) -> Plan:
    """Which selected steps run: those not finished before, and every step reading what one that runs writes."""
    plan: Plan = {}
    for current in selected:
        tracked = resume.tracked(current, _expand(current.argv), every, folder)
        runs = (redo or tracked is None or any(plan.get(producer, (False,))[0] for _, producer in tracked.inputs)
                or not resume.finished(tracked, folder))
        plan[current.name] = (runs, tracked)
    return plan


def _record(tracked: Tracked | None, folder: Path) -> None:
    """Record that a step finished (once it did and was checked), when its finishing can be recorded."""
    if tracked is not None:
        resume.write(tracked, folder)


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


def _init_worker(group: list[list[Step]], plan: Plan, number: str, main: Callable[[list[str]], int],
                 folder: Path) -> None:
    _WORKER.update(group=group, plan=plan, number=number, main=main, folder=folder)


def _run_split(index: int) -> list[str]:
    """Every step of one drawn split that the plan runs, in order (in a worker process: the steps' own
    commands run in one process each, :func:`pyfn.workers.job_count`)."""
    names = []
    with sets_kept():  # its baselines share the data they decode
        for step in _WORKER["group"][index]:
            runs, tracked = _WORKER["plan"][step.name]
            if runs:
                execute(step, _WORKER["number"], _WORKER["main"])
                _record(tracked, _WORKER["folder"])
                names.append(step.name)
    return names


def _inputs_of(recipe: Recipe, folder: Path) -> list[Path]:
    """What every Dask worker must see: this folder, the experiment, the release (a path), pyfn's cache."""
    paths = [Path.cwd(), folder]
    try:
        source = Path(expand(recipe.source))
    except PyfnError:
        source = None
    return paths + [p for p in (source, default_cache_root()) if p is not None and p.exists()]


def _commands(step: Step, number: str) -> tuple[list[list[str]], dict[str, str]]:
    """``step`` as the commands a Dask worker runs, and the variables it adds to their environment."""
    if step.argv:
        return [["pyfn", *_expand(step.argv)]], {}
    system = step.system
    assert system is not None and system.home is not None
    _check_home(step, number)
    return [["bash", "-euo", "pipefail", "-c", line] for line in step.shell[1:]], {system.home: os.environ[system.home]}


def _dask_step(commands: list[list[str]], cwd: str, env: dict[str, str], after: list) -> None:
    """A step on a Dask worker (``after``: the results of the steps it waits for, none)."""
    run_commands(commands, cwd, env)


def _run_on_dask(client, groups: list[list[list[Step]]], drawn: set[str], plan: Plan,  # type: ignore[no-untyped-def]
                 recipe: Recipe, layout: Layout) -> list[str]:
    """Every step that runs, submitted at once with what it waits for (:func:`_dependencies`);
    each recorded as finished once the steps it waits for are; one progress bar over the steps."""
    from distributed import as_completed  # noqa: PLC0415

    needs = _dependencies(groups, plan, drawn)
    futures: dict = {}
    for name, earlier in needs.items():
        commands, env = _commands(_by_name([s for group in groups for s in group], name), recipe.number)
        futures[name] = client.submit(
            _dask_step, commands, os.getcwd(), task_env(env), [futures[e] for e in earlier], retries=RETRIES,
            pure=False, key=f"pyfn-xp-{recipe.number}-{name}-{uuid.uuid4().hex[:8]}")
    names = {future.key: name for name, future in futures.items()}
    finished: set[str] = set()
    recorded: set[str] = set()
    total = sum(len(steps_of) for group in groups for steps_of in group)
    with tqdm(total=total, initial=total - len(futures), unit="step", desc=f"pyfn xp {recipe.number}",
              disable=not sys.stderr.isatty(), leave=False) as bar:
        for future in as_completed(list(futures.values())):
            name = names[future.key]
            try:
                future.result()
            except CommandFailed as exc:
                client.cancel(list(futures.values()))
                raise PyfnError(f"step {name} failed on {1 + RETRIES} attempts: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - the engine's own failure (e.g. KilledWorker)
                client.cancel(list(futures.values()))
                raise PyfnError(f"step {name} did not finish on the Dask cluster: {type(exc).__name__}: "
                                f"{exc}") from None
            if name == "data":
                _check_release(recipe, layout)
            finished.add(name)
            bar.update()
            _record_ready(needs, finished, recorded, plan, layout.folder)
    return list(needs)


def _dependencies(groups: list[list[list[Step]]], plan: Plan, drawn_splits: set[str]) -> dict[str, list[str]]:
    """The steps that run, in order, each with the earlier ones it waits for: a step outside the drawn
    splits waits for the one before it and for every drawn split's step before it (the order of a local
    run); a drawn split's step waits for the standard split's data step (every split is built from the
    release cache it fills) and, in its split, for the earlier steps of another kind when it is a pyfn
    step (data, lexicon, then the baselines in parallel, ..., then the scores), for all of them when it
    is an external parser's."""
    needs: dict[str, list[str]] = {}
    last: list[str] = []  # what a step outside the drawn splits waits for
    for group in groups:
        drawn = "/" in group[0][0].name and group[0][0].name.split("/", 1)[0] + "/" in drawn_splits
        for steps_of in group:
            earlier: list[Step] = []
            for current in steps_of:
                if not plan[current.name][0]:
                    continue
                if not drawn:
                    needs[current.name], last = list(last), [current.name]
                    continue
                needs[current.name] = ([n for n in ("data",) if n in needs]
                                       + [e.name for e in earlier if current.shell or _kind(e) != _kind(current)])
                earlier.append(current)
        if drawn:
            last += [n for steps_of in group for s in steps_of if (n := s.name) in needs]
    return needs


def _kind(step: Step) -> str:
    """``data``, ``lexicon``, ``system``, ``score``...: the step's name without split or system."""
    return step.name.rsplit("/", 1)[-1].split(":", 1)[0]


def _record_ready(needs: dict[str, list[str]], finished: set[str], recorded: set[str], plan: Plan,
                  folder: Path) -> None:
    """Record every finished step whose earlier steps are recorded (a record digests its inputs' records)."""
    for name, earlier in needs.items():
        if name in finished and name not in recorded and all(e in recorded for e in earlier):
            _record(plan[name][1], folder)
            recorded.add(name)


def report(folder: Path) -> dict:
    """Write the experiment's ``README.md``, ``report.html``, script and, once its data step has run,
    ``manifest.json`` (last). Not run here, a recorded result is shown again from its manifest, not replaced."""
    recipe = load_recipe(folder)
    layout = Layout(folder)
    here = xp_manifest.ran_here(folder)
    manifest = None if here else read_manifest(folder)
    if manifest is None:
        manifest = xp_manifest.build(recipe, layout)
    elif manifest["recipe_sha256"] != xp_manifest.recipe_sha256(folder):
        raise PyfnError(f"{folder / RECIPE} changed since {folder}/manifest.json was recorded and the experiment has "
                        f"not been run here: run it (`pyfn xp run {recipe.number}`) to record the new result")
    write_script(recipe, folder)
    write_text(folder / "README.md", readme(recipe, layout, manifest))
    write_text(folder / "report.html", page(recipe, layout, manifest))
    if here:  # a run to record: the data step finished
        write_manifest(folder, manifest)
    return manifest
