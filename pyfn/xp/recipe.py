"""An experiment's recipe (``experiments/xp_NNN/experiment.toml``): what data, which systems, which scores.

The recipe is declarative; :mod:`pyfn.xp.steps` turns it into the exact
``pyfn`` commands of each step. Paths a recipe may name are confined: the
FrameNet source is a path or ``${VAR:-default}`` expression, and an external
system's outputs must stay inside the experiment folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pyfn.errors import PyfnError, UsageError
from pyfn.splits.builder import FILTER_SCOPES

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

RECIPE = "experiment.toml"
BASELINES = {"frameid-mff": "frameid", "frameid-logreg": "frameid", "args-deppath": "args"}
"""pyfn's offline baselines and their task."""
TASK_MODES = {"frameid": ("frameid",), "args": ("argsonly",), "full": ("semeval", "frameid", "argsonly")}
"""Scoring modes per task: frame identification, arguments given gold frames, full parsing."""
SPLIT_KINDS = ("standard", "random", "kfold")
LEXICONS = ("train", "release")
"""Candidate frames per LU of the frame-identification baselines: the train-only lexicon, or the full release's."""
ANALYSES = ("protocols", "breakdown")
"""What ``[scoring] analysis`` may add on the ranking split: every system under every named protocol
(``pyfn compare --all-protocols``) and each system's error analysis (``pyfn score --breakdown``)."""
VARIANT_SETTINGS = {"preprocess": str, "model": str, "exemplars": bool, "filter_scope": str, "lexicon": str}
"""What a ``[[variant]]`` may change (the data-processing choices of a butterfly experiment)."""
TRAIN_SETTINGS = ("preprocess", "model", "exemplars")
"""Variant settings that change the train split a parser learns from."""
_STUDY = re.compile(r"(random|kfold)\((?:n=(\d+)|k=(\d+)),seed=(\d+)\)")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(value: str) -> str:
    """``${VAR}`` and ``${VAR:-default}`` expanded as a POSIX shell does (an unset VAR without default is an error)."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if os.environ.get(name):
            return os.environ[name]
        if default is None:
            raise PyfnError(f"environment variable {name} is not set (the recipe needs it)")
        return default

    return _VAR.sub(one, value)


@dataclass(frozen=True)
class System:
    """A system of an experiment: a pyfn baseline, or an external parser run with its own commands."""

    name: str
    task: str
    baseline: str | None = None
    home: str | None = None
    install: str = ""
    train: tuple[str, ...] = ()
    decode: tuple[str, ...] = ()
    predictions: str = "semeval"
    output: str = ""
    targets: str = "gold"

    @property
    def external(self) -> bool:
        """True for a parser pyfn does not run itself."""
        return self.baseline is None

    @property
    def modes(self) -> tuple[str, ...]:
        """The scoring modes of the system's task."""
        return TASK_MODES[self.task]


@dataclass(frozen=True)
class Variant:
    """One data-processing choice changed from the recipe's settings, everything else fixed.

    ``models = "standard"``: external parsers are not trained again but use the models trained on the
    standard settings (allowed only when the variant leaves train unchanged; ``pyfn open-sesame
    prepare --models-from`` checks it byte for byte).
    """

    name: str
    description: str
    changes: tuple[tuple[str, Any], ...]
    models: str = "own"


@dataclass(frozen=True)
class Recipe:
    """A parsed, checked recipe."""

    number: str
    title: str
    purpose: str
    framenet_version: str
    source: str
    fingerprint: str
    split: str = "standard"
    seed: int = 0
    folds: int = 5
    fold: int = 0
    exemplars: bool = False
    filters: tuple[str, ...] = ()
    filter_scope: str = "train"
    lexicon: str = "train"
    exclude_frames: tuple[int, ...] = ()
    allow_incomplete: bool = False
    """Build even when split documents are missing from the release (``--allow-incomplete``; never standard)."""
    formats: tuple[str, ...] = ("jsonl", "semafor", "bios", "conllu", "semeval")
    preprocess: str | None = "spacy"
    model: str | None = None
    preprocess_jobs: int = 1
    systems: tuple[System, ...] = ()
    score_splits: tuple[str, ...] = ("test",)
    analysis: tuple[str, ...] = ()
    """:data:`ANALYSES` run on the last scored split, in that order."""
    study: tuple[str, int, int] | None = None
    """``(random|kfold, n or k, seed)`` for a ranking-stability study over drawn splits."""
    variants: tuple[Variant, ...] = ()
    """A butterfly experiment's data-processing variants, each run beside the recipe's own settings."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def _get(table: dict, key: str, kind: type, where: str, default: Any = ...) -> Any:
    if key not in table:
        if default is ...:
            raise PyfnError(f"{where}: missing key {key!r}")
        return default
    value = table[key]
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PyfnError(f"{where}: {key!r} must be {kind.__name__}, got {value!r}")
    return value


SYSTEM_KEYS = ("name", "baseline", "task", "targets", "home", "install", "train", "decode", "predictions", "output")
"""The keys of a ``[[system]]`` table."""
TARGETS = ("gold", "predicted")
"""Where a system's targets come from: given (gold) or found by the system (``task = "full"`` only)."""


def _system(table: dict, where: str, folder: Path) -> System:
    name = _get(table, "name", str, where)
    unknown = sorted(set(table) - set(SYSTEM_KEYS))
    if unknown:
        raise PyfnError(f"{where}: unknown key {unknown[0]!r} (a system may set: {', '.join(SYSTEM_KEYS)})")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise PyfnError(f"{where}: system name {name!r} must be lower-case letters, digits, - or _")
    baseline = _get(table, "baseline", str, where, None)
    if baseline is not None:
        if baseline not in BASELINES:
            raise PyfnError(f"{where}: unknown baseline {baseline!r} (known: {', '.join(BASELINES)})")
        if extra := sorted(set(table) - {"name", "baseline"}):
            raise PyfnError(f"{where}: key {extra[0]!r} is not for a baseline (a baseline takes name and baseline)")
        return System(name, BASELINES[baseline], baseline)
    home = _get(table, "home", str, where)
    output = _get(table, "output", str, where)
    resolved = (folder / output).resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise PyfnError(f"{where}: output {output!r} is outside the experiment folder")
    predictions = _get(table, "predictions", str, where, "semeval")
    if predictions not in ("semeval", "semafor", "bios"):
        raise PyfnError(f"{where}: predictions must be semeval, semafor or bios, got {predictions!r}")
    task = _get(table, "task", str, where, "full")
    if task not in TASK_MODES:
        raise PyfnError(f"{where}: task must be one of {', '.join(TASK_MODES)}, got {task!r}")
    targets = _choice(_get(table, "targets", str, where, "predicted" if task == "full" else "gold"), TARGETS,
                      "targets", where)
    if task != "full" and targets != "gold":
        raise PyfnError(f"{where}: targets = {targets!r} needs task = \"full\" ({task} is given gold targets)")
    return System(
        name, task, None, home, _get(table, "install", str, where, ""),
        tuple(_get(table, "train", list, where, [])), tuple(_get(table, "decode", list, where, [])),
        predictions, output, targets,
    )


def _variant(table: dict, where: str) -> Variant:
    name = _get(table, "name", str, where)
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name) or name == "standard":
        raise PyfnError(f"{where}: variant name {name!r} must be lower-case letters, digits, - or _ (not 'standard')")
    known = {"name", "description", "models", *VARIANT_SETTINGS}
    unknown = sorted(set(table) - known)
    if unknown:
        raise PyfnError(f"{where}: unknown key {unknown[0]!r} (a variant may set: {', '.join(VARIANT_SETTINGS)})")
    changes = tuple((key, _get(table, key, kind, where)) for key, kind in VARIANT_SETTINGS.items() if key in table)
    if not changes:
        raise PyfnError(f"{where}: variant {name!r} changes nothing (set one of: {', '.join(VARIANT_SETTINGS)})")
    values = dict(changes)
    _choice(values.get("filter_scope", "train"), FILTER_SCOPES, "filter_scope", where)
    _choice(values.get("lexicon", "train"), LEXICONS, "lexicon", where)
    models = _get(table, "models", str, where, "own")
    if models not in ("own", "standard"):
        raise PyfnError(f"{where}: models must be 'own' or 'standard', got {models!r}")
    if models == "standard" and any(key in TRAIN_SETTINGS for key, _ in changes):
        raise PyfnError(f"{where}: variant {name!r} changes train ({', '.join(k for k, _ in changes if k in TRAIN_SETTINGS)}"
                        "): its parsers cannot use the standard models (models = 'own')")
    return Variant(name, _get(table, "description", str, where), changes, models)


def _choice(value: str, allowed: tuple[str, ...], key: str, where: str) -> str:
    if value not in allowed:
        raise PyfnError(f"{where}: {key} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _analysis(values: list, where: str) -> tuple[str, ...]:
    """``[scoring] analysis``: known names, each once, kept in :data:`ANALYSES` order."""
    for value in values:
        if value not in ANALYSES:
            raise PyfnError(f"{where}: analysis must name {' or '.join(ANALYSES)}, got {value!r}")
    if len(set(values)) != len(values):
        raise PyfnError(f"{where}: analysis names one twice")
    return tuple(name for name in ANALYSES if name in values)


def apply_variant(recipe: Recipe, variant: Variant) -> Recipe:
    """The recipe with the variant's changes (``preprocess = "none"``: no preprocessing; a changed tool
    drops the recipe's model unless the variant names one)."""
    changes = dict(variant.changes)
    if "preprocess" in changes:
        changes.setdefault("model", None)  # the recipe's model belongs to its own tool
        if changes["preprocess"] == "none":
            changes["preprocess"] = None
    return replace(recipe, variants=(), **changes)


def load_recipe(folder: Path) -> Recipe:
    """Read and check ``folder/experiment.toml``; errors name the file and the key."""
    path = Path(folder) / RECIPE
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such recipe (create one with `pyfn xp new NNN --from TEMPLATE`)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PyfnError(f"{path}: {exc}") from None
    where = str(path)
    xp = _get(raw, "experiment", dict, where)
    fn = _get(raw, "framenet", dict, where)
    data = _get(raw, "data", dict, where, {})
    pre = _get(raw, "preprocess", dict, where, {})
    scoring = _get(raw, "scoring", dict, where, {})
    split = _get(data, "split", str, f"{where} [data]", "standard")
    study = None
    match = _STUDY.fullmatch(split.replace(" ", ""))
    if match:
        kind, n, seed = match.group(1), int(match.group(2) or match.group(3)), int(match.group(4))
        if n < (2 if kind == "kfold" else 1):
            raise PyfnError(f"{where} [data]: {split!r}: too few splits")
        study, split = (kind, n, seed), "standard"
    if split not in SPLIT_KINDS:
        raise PyfnError(f"{where} [data]: split must be one of {', '.join(SPLIT_KINDS)}, random(n=N, seed=S) "
                        f"or kfold(k=K, seed=S), got {split!r}")
    systems = tuple(_system(t, f"{where} [[system]] {i + 1}", Path(folder)) for i, t in enumerate(raw.get("system", [])))
    if len({s.name for s in systems}) != len(systems):
        raise PyfnError(f"{where}: two systems share a name")
    tool = _get(pre, "tool", str, f"{where} [preprocess]", "spacy")
    variants = tuple(_variant(t, f"{where} [[variant]] {i + 1}") for i, t in enumerate(raw.get("variant", [])))
    if len({v.name for v in variants}) != len(variants):
        raise PyfnError(f"{where}: two variants share a name")
    if variants and study:
        raise PyfnError(f"{where}: an experiment has drawn splits or variants, not both")
    return Recipe(
        number=_get(xp, "number", str, f"{where} [experiment]"),
        title=_get(xp, "title", str, f"{where} [experiment]"),
        purpose=_get(xp, "purpose", str, f"{where} [experiment]", "").strip(),
        framenet_version=_get(fn, "version", str, f"{where} [framenet]"),
        source=_get(fn, "source", str, f"{where} [framenet]"),
        fingerprint=_get(fn, "fingerprint", str, f"{where} [framenet]", ""),
        split=split,
        seed=_get(data, "seed", int, f"{where} [data]", 0),
        folds=_get(data, "folds", int, f"{where} [data]", 5),
        fold=_get(data, "fold", int, f"{where} [data]", 0),
        exemplars=_get(data, "exemplars", bool, f"{where} [data]", False),
        filters=tuple(_get(data, "filters", list, f"{where} [data]", [])),
        filter_scope=_choice(_get(data, "filter_scope", str, f"{where} [data]", "train"), FILTER_SCOPES,
                             "filter_scope", f"{where} [data]"),
        lexicon=_choice(_get(data, "lexicon", str, f"{where} [data]", "train"), LEXICONS, "lexicon", f"{where} [data]"),
        exclude_frames=tuple(_get(data, "exclude_frames", list, f"{where} [data]", [])),
        allow_incomplete=_get(data, "allow_incomplete", bool, f"{where} [data]", False),
        formats=tuple(_get(data, "formats", list, f"{where} [data]", ["jsonl", "semafor", "bios", "conllu", "semeval"])),
        preprocess=None if tool == "none" else tool,
        model=_get(pre, "model", str, f"{where} [preprocess]", None),
        preprocess_jobs=_get(pre, "jobs", int, f"{where} [preprocess]", 1),
        systems=systems,
        score_splits=tuple(_get(scoring, "splits", list, f"{where} [scoring]", ["test"])),
        analysis=_analysis(_get(scoring, "analysis", list, f"{where} [scoring]", []), f"{where} [scoring]"),
        study=study,
        variants=variants,
        raw=raw,
    )
