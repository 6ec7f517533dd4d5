"""``pyfn export hf``: a FrameNet release as a Hugging Face dataset folder, as an importable function.

The folder holds, for ``datasets.load_dataset(DIR, CONFIG)`` with no loading
script (the card's YAML header names every config's files):

- ``data/fulltext/``: the standard split (fulltext), ``train``, ``validation`` (pyfn's dev), ``test``;
- ``data/fulltext_exemplars/``: train with the exemplars (``--with-exemplars``); its validation and
  test are the files of ``fulltext`` (checked equal row for row: exemplars only ever go to train);
- ``data/frames/``: the frames of the release (definitions, FEs with core types, relations), split ``release``;
- ``data/lexicon/``: LU -> frames, split ``fulltext`` and ``fulltext_exemplars``: the frames each LU
  evokes in that config's train (train-only) beside those of the release's frame files (full release);
- ``splits/{config}/``: the annotation-set and sentence ids of each split, with ``ids.json``;
- ``manifest.json``: release fingerprint, options, counts, removals by reason, every file's sha256;
- ``README.md``: the dataset card, written from the manifest and the files' schemas (:mod:`pyfn.hub.card`).

Both builds are ``pyfn convert --to parquet`` runs (the same code, ledger and
signature), made in the staging folder of the target (:mod:`pyfn.outdir`):
the target changes only when everything is written, never over a file no pyfn
manifest there lists (unless ``force``). Nothing machine-specific enters the
files (the source is recorded by name, not path), so two exports of the same
release with the same pyfn and pyarrow are byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file, write_text
from pyfn.formats import parquet
from pyfn.formats.parquet_lexicon import FRAMES_SCHEMA, FRAMES_SCHEMA_NAME, LEXICON_SCHEMA, LEXICON_SCHEMA_NAME
from pyfn.formats.registry import check_installed
from pyfn.framenet.cache import ReleaseCache
from pyfn.hub import card
from pyfn.hub.layout import (
    DATA, EXEMPLARS, FRAMES, FULLTEXT, HUB_SPLITS, IDS, LEXICON, RELEASE_SPLIT, SCHEMA_NAME, SHARD_ROWS,
    annotation_table, table_as, write_shards,
)
from pyfn.outdir import check_overwrites, check_target, files_under, staged
from pyfn.splits.builder import SPLITS, BuildOptions
from pyfn.splits.ids import IDS_RECORD, SetKey, write_keys

TOKENIZATION = ("whitespace: `tokens` is str.split() of the sentence text (FrameNet gives no tokens); token "
                "offsets index it, character offsets index the text")
CARD = "README.md"
BUILDS = {FULLTEXT: False, EXEMPLARS: True}
"""The two builds and whether each adds the exemplars to train."""


def export_hf(
    source: str | Path,
    target: str | Path,
    *,
    options: BuildOptions = BuildOptions(),
    repo_id: str | None = None,
    source_label: str | None = None,
    progress: Callable = lambda items, total: items,
    force: bool = False,
    cache: ReleaseCache | None = None,
) -> dict[str, Any]:
    """Write the dataset folder of ``source`` (a FrameNet release) into ``target``; return its manifest.

    ``options`` are ``pyfn convert``'s build options (excluded ids, filters,
    ``allow_incomplete``...) for both builds: the standard split, every split,
    with and without exemplars, so ``with_exemplars``, ``splits`` other than
    all three, and a non-standard split definition do not apply. ``repo_id``
    (``OWNER/NAME`` on the hub) goes into the card's ``load_dataset`` lines;
    ``source_label`` names the release in the manifest and card (default: the
    file or folder name, never its path).
    """
    check_installed("parquet")
    if options.with_exemplars:
        raise UsageError("export hf builds the split with and without exemplars itself: drop --with-exemplars")
    if set(options.splits) != set(SPLITS):
        raise UsageError("export hf writes train, dev and test: it takes no --splits")
    if repo_id is not None and (repo_id.count("/") != 1 or not all(repo_id.split("/"))):
        raise UsageError(f"--repo-id {repo_id!r}: give the hub's OWNER/NAME")
    source, target = Path(source), Path(target)
    label = source_label or source.name
    previous = check_target(target, sources=[source], force=force)
    check_overwrites(target, [CARD], previous.outputs, force)  # a card of the user's: refused before any work
    from pyfn.convert import convert  # noqa: PLC0415 - convert imports much

    with staged(target, previous) as stage:
        builds = {}
        for config, exemplars in BUILDS.items():
            builds[config] = convert(
                source, stage.path / f"build-{config}", to="parquet", source_label=label, progress=progress,
                options=replace(options, with_exemplars=exemplars, splits=SPLITS), cache=cache,
            )
        configs = _write_data(stage.path, builds)
        manifest = _manifest(stage.path, label, options, repo_id, builds, configs)
        write_text(stage.path / CARD, card.render(manifest, _schemas(stage.path, configs)))
        manifest["outputs"][CARD] = sha256_file(stage.path / CARD)
        manifest["outputs"] = dict(sorted(manifest["outputs"].items()))
        stage.commit(manifest)
    return manifest


def _write_data(stage: Path, builds: dict[str, dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Write every config's files (and the split ids) from the two builds; the files of each config and split."""
    built = {config: stage / f"build-{config}" for config in builds}
    data = stage / DATA
    files: dict[str, dict[str, list[str]]] = {FULLTEXT: {}, EXEMPLARS: {}, FRAMES: {}, LEXICON: {}}
    for name, split in HUB_SPLITS.items():
        table = annotation_table(built[FULLTEXT] / f"{name}.parquet")
        files[FULLTEXT][split] = _names(stage, write_shards(table, data / FULLTEXT, split))
        if name == "train":
            exemplars = annotation_table(built[EXEMPLARS] / "train.parquet")
            files[EXEMPLARS][split] = _names(stage, write_shards(exemplars, data / EXEMPLARS, split))
        elif not annotation_table(built[EXEMPLARS] / f"{name}.parquet").equals(table):
            raise PyfnError(f"{name} differs between the builds with and without exemplars: it cannot be shared "
                            "(exemplars only ever go to train; please report this)")
        else:
            files[EXEMPLARS][split] = files[FULLTEXT][split]
    frames = table_as(built[FULLTEXT] / "frames.parquet", FRAMES_SCHEMA)
    files[FRAMES][RELEASE_SPLIT] = _names(stage, write_shards(frames, data / FRAMES, RELEASE_SPLIT))
    for config in builds:
        lexicon = table_as(built[config] / "lexicon.parquet", LEXICON_SCHEMA)
        files[LEXICON][config] = _names(stage, write_shards(lexicon, data / LEXICON, config))
    for config in builds:
        keys = {name: _keys(built[config] / f"{name}.parquet") for name in HUB_SPLITS}
        write_keys(stage / IDS / config, keys, builds[config]["signature"])
    return files


def _names(stage: Path, paths: list[Path]) -> list[str]:
    return [path.relative_to(stage).as_posix() for path in paths]


def _keys(path: Path) -> list[SetKey]:
    """The id lists' key of every row of a split file, read from four columns."""
    columns = pq.read_table(path, columns=["source", "id", "sentence_id", "text"]).to_pydict()
    return [SetKey(*row) for row in zip(columns["source"], columns["id"], columns["sentence_id"], columns["text"])]


def _rows(stage: Path, names: list[str]) -> int:
    return sum(pq.ParquetFile(stage / name).metadata.num_rows for name in names)


def _schemas(stage: Path, configs: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """Each config's Arrow schema, read back from its first file (what the card describes)."""
    return {config: pq.read_schema(stage / next(iter(splits.values()))[0]) for config, splits in configs.items()}


def _build_record(manifest: dict[str, Any]) -> dict[str, Any]:
    """What the folder's manifest keeps of one build's: everything but its staging files and local path."""
    record = {key: value for key, value in manifest.items() if key not in ("outputs", "parquet")}
    record["source"] = {key: value for key, value in manifest["source"].items() if key != "resolved"}
    return record


def _manifest(stage: Path, label: str, options: BuildOptions, repo_id: str | None,
              builds: dict[str, dict[str, Any]], configs: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """The folder's manifest (no timestamp, no path of this machine); ``outputs`` without the card yet."""
    full = builds[FULLTEXT]
    shared = {key: value for key, value in full["options"].items() if key not in ("with_exemplars", "splits")}
    config_records: dict[str, Any] = {}
    for config, splits in configs.items():
        entry: dict[str, Any] = {"splits": {}}
        if config in builds:
            entry["signature"] = builds[config]["signature"]
            entry["ids"] = f"{IDS}/{config}/{IDS_RECORD}"
        for split, names in splits.items():
            entry["splits"][split] = {"rows": _rows(stage, names), "files": names}
            pyfn_split = {hub: name for name, hub in HUB_SPLITS.items()}.get(split)
            if config in builds and pyfn_split:
                entry["splits"][split]["sentences"] = builds[config]["splits"][pyfn_split]["sentences"]
        config_records[config] = entry
    written = [name for name in files_under(stage) if name.startswith((f"{DATA}/", f"{IDS}/"))]
    manifest: dict[str, Any] = {
        "pyfn_version": __version__,
        "command": "export hf",
        "source": {key: value for key, value in full["source"].items() if key != "resolved"} | {"path": label},
        "release": builds[EXEMPLARS]["release"],
        "options": {**shared, "repo_id": repo_id},
        "split_definition": full["split_definition"],
        "tokenization": TOKENIZATION,
        "configs": config_records,
        "builds": {config: _build_record(manifest) for config, manifest in builds.items()},
        "parquet": {**parquet.manifest_record(), "shard_rows": SHARD_ROWS, "schema": {
            FULLTEXT: SCHEMA_NAME, EXEMPLARS: SCHEMA_NAME, FRAMES: FRAMES_SCHEMA_NAME, LEXICON: LEXICON_SCHEMA_NAME}},
        "warnings": sorted({w for manifest in builds.values() for w in manifest["warnings"]}),
        "outputs": {name: sha256_file(stage / name) for name in written},
    }
    return manifest
