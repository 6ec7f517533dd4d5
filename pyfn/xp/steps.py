"""The steps of an experiment as exact commands: ``pyfn`` commands, and the shell commands of external parsers.

The same list drives ``pyfn xp run``, the shell script ``scripts/xp_NNN.sh``
and the commands printed in the experiment's README, so the three never
disagree. Paths are relative to the repository root (the parent of
``experiments/``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyfn.splits.options import build_flags
from pyfn.xp.recipe import Recipe, System

EVAL_SPLITS = ("dev", "test")
STEPS = ".steps"
"""Folder of the finished steps' records (:mod:`pyfn.xp.resume`), in the experiment's ``work/``."""


@dataclass(frozen=True)
class Layout:
    """Where an experiment's files go: ``work/`` holds everything generated but the report."""

    folder: Path
    sub: str = ""
    """A drawn split of a study (``work/splits/NAME``) or a variant (``work/variants/NAME``)."""
    models: str | None = None
    """The ``sub`` whose external-parser models this layout uses (None: its own)."""

    @property
    def work(self) -> Path:
        return self.folder / "work" / self.sub if self.sub else self.folder / "work"

    @property
    def models_work(self) -> Path:
        """The ``work`` folder whose trained external-parser models this layout uses."""
        return self.work if self.models is None else Layout(self.folder, self.models).work

    @property
    def data(self) -> Path:
        return self.work / "data"

    @property
    def lexicon(self) -> Path:
        return self.work / "lexicon"

    @property
    def scores(self) -> Path:
        return self.work / "scores"

    def output(self, system: System) -> Path:
        """Where an external parser writes its predictions: the recipe's ``output``; in a split or variant,
        the same path under its own ``work`` folder."""
        path = Path(system.output)
        if self.sub and path.parts[:1] == ("work",):
            return self.work.joinpath(*path.parts[1:])
        return self.folder / path

    def system(self, system: System) -> Path:
        """Where a system's SemEval predictions are (an external parser writing SemEval XML: its output)."""
        if system.external and system.predictions == "semeval":
            return self.output(system)
        return self.work / "systems" / system.name

    def score_file(self, system: System, split: str, mode: str) -> Path:
        return self.scores / f"{system.name}.{split}.{mode}.json"

    def protocols_file(self, split: str) -> Path:
        """Every system under every named protocol (``pyfn compare --all-protocols --json``)."""
        return self.scores / f"protocols.{split}.json"

    def breakdown_file(self, system: System, split: str, suffix: str = "json") -> Path:
        """A system's error analysis (``pyfn score --breakdown``): ``json``, or the ``html`` page."""
        return self.scores / f"{system.name}.{split}.breakdown.{suffix}"


@dataclass(frozen=True)
class Step:
    """One step: ``pyfn`` arguments (``argv``) or shell lines (``shell``, an external parser's)."""

    name: str
    argv: tuple[str, ...] = ()
    shell: tuple[str, ...] = ()
    system: System | None = None

    def lines(self) -> list[str]:
        """The step as shell lines (what the script runs and the README shows)."""
        if self.shell:
            return list(self.shell)
        return [" ".join(["pyfn", *(_quote(a) for a in self.argv)])]


def target(step: Step) -> str | None:
    """What a pyfn step writes (the value of its ``--target`` or ``--output``); None for a shell step."""
    argv = list(step.argv)
    flag = next((f for f in ("--target", "--output") if f in argv), None)
    return argv[argv.index(flag) + 1] if flag else None


def _quote(arg: str) -> str:
    """Shell quoting that keeps ``${VAR:-default}`` expandable."""
    return f'"{arg}"' if "${" in arg else shlex.quote(arg)


def _build_args(recipe: Recipe) -> list[str]:
    """The build options of the recipe's ``[data]`` as ``pyfn convert``/``generate`` flags."""
    args = build_flags(with_exemplars=recipe.exemplars, exclude_frames=recipe.exclude_frames, filters=recipe.filters,
                       filter_scope=recipe.filter_scope, allow_incomplete=recipe.allow_incomplete)
    if recipe.split != "standard":
        args += ["--split", recipe.split, "--seed", str(recipe.seed)]
        if recipe.split == "kfold":
            args += ["--folds", str(recipe.folds), "--fold", str(recipe.fold)]
    return args


def _substitute(line: str, layout: Layout, system: System) -> str:
    return (line.replace("{data}", str(layout.data)).replace("{work}", str(layout.work))
            .replace("{output}", str(layout.output(system))).replace("{models}", str(layout.models_work)))


def steps(recipe: Recipe, layout: Layout) -> list[Step]:
    """Every step of ``recipe``, in order."""
    convert = ["convert", "--source", recipe.source, "--target", str(layout.data), "--to", *recipe.formats,
               *_build_args(recipe)]
    if recipe.preprocess:
        convert += ["--preprocess", recipe.preprocess] + (["--model", recipe.model] if recipe.model else [])
        if recipe.preprocess_jobs > 1:
            convert += ["--preprocess-jobs", str(recipe.preprocess_jobs)]
    out = [
        Step("data", tuple(convert)),
        Step("lexicon", ("generate", "--source", recipe.source, "--target", str(layout.lexicon), *_build_args(recipe),
                         *(["--release-lexicon"] if recipe.lexicon == "release" else []))),
    ]
    for system in recipe.systems:
        if not system.external:
            out.append(Step(f"system:{system.name}", (
                "baseline", system.baseline or "", "--data", str(layout.data), "--lexicon", str(layout.lexicon),
                "--target", str(layout.system(system)), "--splits", *EVAL_SPLITS,
                *(["--candidates", recipe.lexicon] if recipe.lexicon != "train" and system.task == "frameid" else [])),
                system=system))
            continue
        home = f'"${{{system.home}:?set {system.home} to an installed {system.name} ({system.install or "see its README"})}}"'
        guard = f": {home}"
        out.append(Step(f"train:{system.name}", shell=(guard, *(_substitute(c, layout, system) for c in system.train)),
                        system=system))
        out.append(Step(f"decode:{system.name}", shell=(guard, *(_substitute(c, layout, system) for c in system.decode)),
                        system=system))
        if system.predictions != "semeval":
            out.append(Step(f"import:{system.name}", (
                "convert", "--from", system.predictions, "--to", "semeval", "--source", str(layout.output(system)),
                "--target", str(layout.system(system)), "--gold", str(layout.data), "--splits", *EVAL_SPLITS),
                system=system))
    out += score_steps(recipe, layout)
    return out + analysis_steps(recipe, layout)


def score_steps(recipe: Recipe, layout: Layout, only: str | None = None) -> list[Step]:
    """One ``pyfn score`` per system, split and mode (``only``: one system's)."""
    out = []
    for system in recipe.systems:
        if only is not None and system.name != only:
            continue
        for split in recipe.score_splits:
            for mode in system.modes:
                argv = ["score", "--mode", mode, "--gold", str(layout.data / f"{split}.gold.xml"),
                        "--pred", str(layout.system(system) / f"{split}.predicted.xml")]
                if mode == "frameid":
                    argv += ["--lu-frames", str(layout.lexicon / "lu_frames.tsv")]
                else:
                    argv += ["--frames", str(layout.lexicon / "frames.xml"),
                             "--relations", str(layout.lexicon / "frRelations.xml")]
                argv += ["--json", "--output", str(layout.score_file(system, split, mode))]
                out.append(Step(f"score:{system.name}:{split}:{mode}", tuple(argv), system=system))
    return out


BREAKDOWN_MODES = {"frameid": "frameid", "args": "argsonly", "full": "semeval"}
"""The ``pyfn score --breakdown`` mode of each task: what the system predicts is what is analysed."""


def analysis_steps(recipe: Recipe, layout: Layout) -> list[Step]:
    """The recipe's ``[scoring] analysis`` on its last scored split (none for a drawn split or variant):
    ``protocols`` (with two systems or more) and ``breakdown`` (one per system)."""
    if layout.sub or not recipe.systems:
        return []
    split = recipe.score_splits[-1]
    gold = str(layout.data / f"{split}.gold.xml")
    lexicon = ("--frames", str(layout.lexicon / "frames.xml"), "--relations", str(layout.lexicon / "frRelations.xml"))
    out = []
    if "protocols" in recipe.analysis and len(recipe.systems) > 1:
        preds = [str(layout.system(s) / f"{split}.predicted.xml") for s in recipe.systems]
        out.append(Step(f"protocols:{split}", ("compare", "--all-protocols", "--gold", gold, *preds, *lexicon, "--json",
                                               "--output", str(layout.protocols_file(split)))))
    if "breakdown" in recipe.analysis:
        train = ("--train", str(layout.data / "train.jsonl")) if "jsonl" in recipe.formats else ()
        for system in recipe.systems:
            mode = BREAKDOWN_MODES[system.task]
            out.append(Step(f"breakdown:{system.name}:{split}", (
                "score", "--breakdown", "--mode", mode, "--gold", gold,
                "--pred", str(layout.system(system) / f"{split}.predicted.xml"),
                *(lexicon if mode != "frameid" else ()), *(train if mode != "argsonly" else ()),
                "--json", "--output", str(layout.breakdown_file(system, split)),
                "--html", str(layout.breakdown_file(system, split, "html"))), system=system))
    return out


def script(recipe: Recipe, layout: Layout, extra: Sequence[Step] = ()) -> str:
    """``scripts/xp_NNN.sh``: the whole experiment from a fresh clone, every command visible, each step
    announced on stderr (the commands print their own progress and summaries)."""
    lines = [
        "#!/usr/bin/env bash",
        f"# Experiment {recipe.number}: {recipe.title}",
        "# Generated by `pyfn xp new` / `pyfn xp report` from experiments/xp_"
        f"{recipe.number}/experiment.toml; run from the repository root.",
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        'command -v pyfn >/dev/null || python -m pip install -e .',
        "",
    ]
    every = [*steps(recipe, layout), *extra]
    for i, step in enumerate(every, 1):
        lines.append(f"echo {shlex.quote(f'pyfn xp {recipe.number}: step {i}/{len(every)} {step.name}')} >&2")
        lines += step.lines()
    lines += ["", "# compare this run with the recorded one (or, on a first run, record it)",
              f"if [ -f {layout.folder}/manifest.json ]; then pyfn verify {layout.folder}; "
              f"else pyfn xp report {recipe.number}; fi"]
    return "\n".join(lines) + "\n"
