"""``pyfn convert``: FrameNet XML to split files, as an importable function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import UsageError
from pyfn.fileio import locked_directory, sha256_file, write_lines
from pyfn.framenet.release import Release, open_release
from pyfn.manifest import MANIFEST, data_signature, fingerprint, write_manifest
from pyfn.splits.builder import DEDUP_RULE, BuildOptions, BuildResult, build_splits
from pyfn.splits.definitions import SplitDefinition, kfold_splits, random_split, standard_split
from pyfn.splits.filters import FILTERS

WRITERS = ("jsonl",)


@dataclass(frozen=True)
class SplitSpec:
    """Which split definition to use: ``standard``, ``random`` (seeded) or ``kfold``."""

    kind: str = "standard"
    seed: int = 0
    folds: int = 5
    fold: int = 0


def make_definition(release: Release, spec: SplitSpec) -> SplitDefinition:
    """The split definition ``spec`` asks for, on ``release``'s fulltext documents."""
    if spec.kind == "standard":
        return standard_split(release.version)
    docs = [p.rsplit("/", 1)[-1] for p in release.list("fulltext")]
    try:
        std = standard_split(release.version)
        n_dev, n_test = len(std.dev), len(std.test)
    except UsageError:
        n_dev, n_test = max(1, len(docs) // 10), max(1, len(docs) * 3 // 10)
    if spec.kind == "random":
        return random_split(docs, n_dev, n_test, spec.seed)
    if spec.kind == "kfold":
        folds = kfold_splits(docs, spec.folds, n_dev, spec.seed)
        if not 0 <= spec.fold < len(folds):
            raise UsageError(f"--fold must be between 0 and {len(folds) - 1}")
        return folds[spec.fold]
    raise UsageError(f"unknown split kind {spec.kind!r} (known: standard, random, kfold)")


def _options_record(options: BuildOptions, spec: SplitSpec) -> dict[str, Any]:
    record = asdict(options)
    for key, value in record.items():
        if isinstance(value, (frozenset, set, tuple)):
            record[key] = sorted(value)
    record.pop("jobs")
    record["split"] = asdict(spec)
    return record


def build_manifest(
    release: Release, source_label: str, to: str, result: BuildResult, spec: SplitSpec, outputs: dict[str, str]
) -> dict[str, Any]:
    """The manifest of a conversion (no timestamps: identical runs give identical files)."""
    options = result.options
    definition = result.definition
    split_name = definition.name + ("-incomplete" if result.missing_documents else "")
    return {
        "pyfn_version": __version__,
        "command": "convert",
        "from": "fnxml",
        "to": to,
        "source": {"path": source_label, "kind": release.kind, "layout": release.layout},
        "release": {"version": release.version, "fingerprint": fingerprint(result.files), "files_read": len(result.files)},
        "signature": data_signature(
            version=release.version,
            split=split_name,
            exemplars=options.with_exemplars,
            filters=options.filters,
            exclude_frames=options.exclude_frames,
            exclude_lus=options.exclude_lus,
            exclude_sentences=options.exclude_sentences,
            exclude_annosets=options.exclude_annosets,
        ),
        "options": _options_record(options, spec),
        "split_definition": {
            "name": definition.name,
            "standard": definition.standard and not result.missing_documents,
            "missing_documents": result.missing_documents,
            "dev": list(definition.dev),
            "test": list(definition.test),
        },
        "splits": {
            name: {"sentences": data.sentences, "annotation_sets": data.annotation_sets}
            for name, data in result.splits.items()
        },
        "ledger": result.ledger,
        "filters": {name: FILTERS[name].description for name in options.filters},
        "dedup": {
            "hash": "sentence hash + sorted target spans + LU name + frame name",
            "rule": DEDUP_RULE,
            "differing_fes": "groups whose kept and dropped sets differ in overt FE labels (rank, name, span)",
            "groups_with_differing_fes": result.duplicates,
        },
        "problems": [{"reason": p.reason, "where": p.where, "message": p.message} for p in result.problems],
        "warnings": result.warnings,
        "outputs": outputs,
    }


def convert(
    source: str | Path,
    target: str | Path,
    *,
    to: str = "jsonl",
    options: BuildOptions = BuildOptions(),
    split: SplitSpec = SplitSpec(),
    source_label: str | None = None,
    progress: Callable = lambda items, total: items,
) -> dict[str, Any]:
    """Build the splits of the release at ``source`` and write them to ``target``.

    Every output file is written atomically; ``manifest.json`` is removed at
    the start and written last, so a directory with a manifest is complete.
    Returns the manifest.
    """
    if to not in WRITERS:
        raise UsageError(f"cannot convert fnxml to {to!r} (known: {', '.join(WRITERS)})")
    release = open_release(source)
    definition = make_definition(release, split)
    target = Path(target)
    with locked_directory(target):
        (target / MANIFEST).unlink(missing_ok=True)
        result = build_splits(release, definition, options, progress)
        outputs: dict[str, str] = {}
        for name, data in result.splits.items():
            path = target / f"{name}.{to}"
            write_lines(path, data.lines)
            outputs[path.name] = sha256_file(path)
        manifest = build_manifest(release, source_label or str(source), to, result, split, outputs)
        write_manifest(target, manifest)
    return manifest
