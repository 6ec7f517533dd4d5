"""``pyfn convert``: FrameNet XML (or a parser format) to split files, as an importable function."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, replace
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import LOCK_NAME, sha256_file, write_lines
from pyfn.formats import fnxml, jsonl
from pyfn.formats.base import SentenceTable, SplitView
from pyfn.formats.chunked import SplitLines, write_splits, writer_pool
from pyfn.formats.registry import (
    NOT_SOURCES, ONLY_SPLITS, READERS, RELEASE_FORMATS, WRITERS, FormatOptions, check_installed, loss_counts,
    read_split, splits_in, write_split, written_splits,
)
from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.identity import compare_read
from pyfn.framenet.lexicon import ReleaseFrames, read_frames
from pyfn.framenet.listing import open_cached
from pyfn.framenet.release import Release, open_release
from pyfn.train_lexicon import DEFAULT_RELATIONS, FN_TRAIN, TrainInventory, check_read_folders, generate
from pyfn.manifest import MANIFEST, check_finished, data_signature, fingerprint
from pyfn.model import AnnotationSet
from pyfn.outdir import check_target, files_under, staged
from pyfn.preprocess.directory import Prepared, Progress, manifest_record, no_progress, prepare, preprocess_splits
from pyfn.preprocess.runner import PreprocessOptions
from pyfn.splits.builder import DEDUP_RULE, SPLITS, BuildOptions, BuildResult, build_splits, missing_documents
from pyfn.splits.definitions import SplitDefinition, balanced_random_split, kfold_splits, random_split, standard_split
from pyfn.splits.filters import FILTERS
from pyfn.units import manifest_units


@dataclass(frozen=True)
class SplitSpec:
    """Which split definition to use: ``standard``, ``random`` (seeded) or ``kfold``."""

    kind: str = "standard"
    seed: int = 0
    folds: int = 5
    fold: int = 0


_FRAME_SET = re.compile(rb"<annotationSet\b[^>]*\bframeName=")


def annotation_set_counts(release: Release) -> dict[str, int]:
    """Frame annotation sets per fulltext document (a byte count of ``annotationSet`` elements with a frame)."""
    return {path.rsplit("/", 1)[-1]: len(_FRAME_SET.findall(release.read(path))) for path in release.list("fulltext")}


def make_definition(release: Release, spec: SplitSpec) -> SplitDefinition:
    """The split definition ``spec`` asks for, on ``release``'s fulltext documents.

    A random split has the standard split's number of dev and test documents,
    drawn to come as close as possible to its annotation-set counts
    (:func:`~pyfn.splits.definitions.balanced_random_split`).
    """
    if spec.kind == "standard":
        return standard_split(release.version)
    docs = [p.rsplit("/", 1)[-1] for p in release.list("fulltext")]
    try:
        std = standard_split(release.version)
        n_dev, n_test = len(std.dev), len(std.test)
        std_sizes = True
    except UsageError:
        n_dev, n_test = max(1, len(docs) // 10), max(1, len(docs) * 3 // 10)
        std_sizes = False
    if spec.kind == "random":
        if not std_sizes:
            return random_split(docs, n_dev, n_test, spec.seed)
        sizes = annotation_set_counts(release)
        return balanced_random_split(sizes, n_dev, n_test, spec.seed,
                                     sum(sizes.get(d, 0) for d in std.dev), sum(sizes.get(d, 0) for d in std.test))
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
    if record["filter_scope"] == "train":  # the default, recorded only when changed (earlier manifests stay valid)
        record.pop("filter_scope")
    record["split"] = asdict(spec)
    return record


def _signature(release: Release, definition: SplitDefinition, options: BuildOptions, missing: bool) -> str:
    return data_signature(
        version=release.version,
        split=definition.name + ("-incomplete" if missing else ""),
        exemplars=options.with_exemplars,
        filters=options.filters,
        filter_scope=options.filter_scope,
        exclude_frames=options.exclude_frames,
        exclude_lus=options.exclude_lus,
        exclude_sentences=options.exclude_sentences,
        exclude_annosets=options.exclude_annosets,
    )


def build_signature(release: Release, result: BuildResult) -> str:
    """The data signature of built splits (:func:`pyfn.manifest.data_signature`)."""
    return _signature(release, result.definition, result.options, bool(result.missing_documents))


def build_manifest(
    release: Release, source_label: str, to: str, result: BuildResult, spec: SplitSpec, outputs: dict[str, str]
) -> dict[str, Any]:
    """The manifest of a conversion (no timestamps: identical runs give identical files)."""
    options = result.options
    definition = result.definition
    return {
        "pyfn_version": __version__,
        "command": "convert",
        "from": "fnxml",
        "to": to,
        "source": {"path": source_label, "resolved": str(release.path.resolve()), "kind": release.kind,
                   "layout": release.layout},
        "release": {"version": release.version, "fingerprint": fingerprint(result.files), "files_read": len(result.files)},
        "signature": build_signature(release, result),
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


def _write(
    target: Path, tos: tuple[str, ...], split_sets: dict[str, list[AnnotationSet]], formats: FormatOptions,
    tables: dict[str, SentenceTable],
) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """Write every split read from a directory in every format; losses by split (reasons
    prefixed by format when several). Each split's sentence table goes into ``tables``.

    The sets of a split are ordered and numbered once (a :class:`SplitView`) for all writers.
    """
    outputs: dict[str, str] = {}
    losses: dict[str, dict[str, int]] = {}
    for name, sets in split_sets.items():
        view = SplitView.of(sets)
        tables[name] = view.table
        paths, split_losses = write_split(target, name, view, tos, formats)
        outputs.update((path.name, sha256_file(path)) for path in paths)
        losses[name] = loss_counts(split_losses, several=len(tos) > 1)
    return dict(sorted(outputs.items())), losses


def _formats(to: str | Sequence[str]) -> tuple[str, ...]:
    return (to,) if isinstance(to, str) else tuple(dict.fromkeys(to))


def check_pair(from_: str, to: str | Sequence[str]) -> None:
    """Refuse, with the reason, a conversion pyfn cannot do (or whose optional extra is missing)."""
    for fmt in _formats(to):
        if fmt in RELEASE_FORMATS:
            if from_ != "fnxml":
                raise UsageError(f"cannot convert from {from_} to {fmt}: a FrameNet-layout folder takes its frames "
                                 "and indexes from a FrameNet release (--from fnxml)")
        elif fmt not in WRITERS:
            raise UsageError(f"cannot convert to {fmt!r} (known: {', '.join([*WRITERS, *RELEASE_FORMATS])})")
    for fmt in (from_, *_formats(to)):
        check_installed(fmt)
    if from_ in NOT_SOURCES:
        raise UsageError(f"cannot convert from {from_}: {NOT_SOURCES[from_]}")
    if from_ != "fnxml" and from_ not in READERS:
        raise UsageError(f"cannot convert from {from_!r} (known: fnxml, {', '.join(READERS)})")


def check_splits(to: str | Sequence[str], splits: Sequence[str]) -> None:
    """Refuse a conversion in which a format would write no file: SemEval XML holds dev and test only."""
    for fmt in _formats(to):
        if not written_splits(fmt, splits):
            raise UsageError(f"--to {fmt} writes {' and '.join(ONLY_SPLITS[fmt])} only, and this conversion has "
                             f"{' and '.join(splits)}: add {' or '.join(ONLY_SPLITS[fmt])} to --splits, "
                             f"or choose another --to format")


def convert(
    source: str | Path,
    target: str | Path,
    *,
    from_: str = "fnxml",
    to: str | Sequence[str] = "jsonl",
    options: BuildOptions = BuildOptions(),
    split: SplitSpec = SplitSpec(),
    formats: FormatOptions = FormatOptions(),
    source_label: str | None = None,
    progress: Callable = lambda items, total: items,
    write_progress: Callable = lambda items, total: items,
    preprocess: PreprocessOptions | None = None,
    preprocess_progress: Progress = no_progress,
    force: bool = False,
    reads: Sequence[str | Path] = (),
    cache: ReleaseCache | None = None,
) -> dict[str, Any]:
    """Convert ``source`` (a FrameNet release, or a directory of split files in
    format ``from_``) to format ``to`` (one name, or several) in ``target``.

    From FrameNet XML the splits are built as in SPLITS.md; from another
    format the split files found (or those of ``options.splits``) are read.
    With ``preprocess``, each split's sentences are then analysed once and the
    analysis fills the CoNLL-X/CoNLL-U files, SEMAFOR's lemma-tags file and
    the BIOS columns (:mod:`pyfn.preprocess.directory`).

    Everything is checked before any work: the pair, the splits each format
    writes, the source, the split definition, the target (never the source,
    ``reads`` (other folders read: ``--gold``, ``--framenet``) or around them;
    holding no file an earlier pyfn manifest does not list, unless ``force``:
    :func:`pyfn.outdir.check_target`) and the preprocessing (its model loads,
    its data or parse files exist). The files are written in a staging folder
    and swapped in when complete, ``manifest.json`` last (:mod:`pyfn.outdir`):
    a failed or interrupted run leaves the target as it was, or no target;
    a rerun removes the files of the earlier run it does not write again.
    From FrameNet XML, the annotation files are read through the parsed-release
    ``cache`` when given (:mod:`pyfn.framenet.cache`; the files are the same
    with or without it). Returns the manifest.
    """
    check_pair(from_, to)
    source, target = Path(source), Path(target)
    build: tuple[Release, SplitDefinition] | None = None
    marker = fnxml.split_marker(source) if from_ == "fnxml" else None
    inside = [name for name in SPLITS if from_ == "fnxml" and fnxml.split_marker(source / name)]
    if marker is None and inside:
        raise UsageError(f"{source} holds pyfn's split folders {', '.join(inside)} (convert --to fnxml): give one "
                         f"of them as the source, e.g. {source / inside[-1]}")
    if marker is not None:
        splits = _split_folder_splits(source, marker, to, options, split)
    elif from_ == "fnxml":
        check_splits(to, options.splits)
        release = open_cached(source, cache)
        if "fnxml" in _formats(to):
            fnxml.check_release(release)
        build = release, make_definition(release, split)
        splits = list(options.splits)
    else:
        splits = _splits_to_read(source, from_, options)
        check_splits(to, splits)
    previous = check_target(target, sources=[source, *map(Path, reads)], force=force)
    prepared = prepare(preprocess, splits) if preprocess is not None else None
    tables: dict[str, SentenceTable] = {}
    with staged(target, previous) as stage:
        if build is not None:
            manifest = _convert_release(*build, stage.path, to, options, split, formats, source_label,
                                        (progress, write_progress), tables if prepared else None, cache)
        elif marker is not None:
            manifest = _convert_split_folder(source, stage.path, marker, to, options, formats, source_label, tables)
        else:
            manifest = _convert_files(source, stage.path, from_, to, splits, options, formats, source_label, tables)
        if "fnxml" in _formats(to):  # readers take every file of these folders: none may be left from elsewhere
            folders = [f"{name}/{folder}" for name in splits for folder in fnxml.READ_FOLDERS]
            check_read_folders(target, folders, [*manifest["outputs"], *previous.outputs])
        if prepared is not None:
            manifest["outputs"], manifest["preprocessing"], warnings = _preprocess(
                stage.path, tables, manifest["outputs"], prepared, preprocess_progress)
            manifest["warnings"] = [*manifest["warnings"], *warnings]
        if "parquet" in _formats(to):
            from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

            manifest["parquet"] = parquet.manifest_record()
        manifest["units"] = manifest_units(manifest)
        stage.commit(manifest)
    return manifest


def _preprocess(
    target: Path, tables: dict[str, SentenceTable], outputs: dict[str, str], prepared: Prepared,
    progress: Progress,
) -> tuple[dict[str, str], dict[str, Any], list[str]]:
    """Preprocess every split written (its ``.sentences`` written first when no format did)."""
    outputs = dict(outputs)
    for name, table in tables.items():
        path = target / f"{name}.sentences"
        if path.name not in outputs:
            write_lines(path, table.strings)
            outputs[path.name] = sha256_file(path)
    fn_ids = {name: [table.fn_ids[s] for s in table.strings] for name, table in tables.items()}
    written, record, warnings = preprocess_splits(target, target, list(tables), prepared, fn_ids, progress)
    return dict(sorted({**outputs, **written}.items())), manifest_record(record), warnings


def _convert_release(
    release: Release, definition: SplitDefinition, target: Path, to: str | Sequence[str], options: BuildOptions,
    spec: SplitSpec, formats: FormatOptions, source_label: str | None, progress: tuple[Callable, Callable],
    tables: dict[str, SentenceTable] | None, cache: ReleaseCache | None = None,
) -> dict[str, Any]:
    """Build the splits and write them; ``progress`` wraps the files read and the chunks written."""
    tos = _formats(to)
    chunked = tuple(fmt for fmt in tos if fmt not in RELEASE_FORMATS)
    by_chunk = (bool(chunked) or tables is not None) and not (chunked == ("jsonl",) and tables is None)
    if by_chunk and "parquet" in tos and formats.frames is None:  # this process writes the lexicon's frames
        formats = replace(formats, frames=read_frames(release, cache))
    elif by_chunk and "bios" in tos and formats.frames is None:  # only the writers' processes need them
        formats = replace(formats, frames=ReleaseFrames(release, cache))
    if by_chunk and "parquet" in tos:  # the workers start before the build: its signature, from the same inputs
        missing = bool(missing_documents(release, definition))
        formats = replace(formats, signature=_signature(release, definition, options, missing))
    with ExitStack() as stack:
        # the writers' processes start before the splits are built (chunked.writer_pool says why)
        pool = (stack.enter_context(writer_pool(target, chunked, formats, options.jobs, several=len(tos) > 1))
                if by_chunk else None)
        return _build_and_write(release, definition, target, tos, by_chunk, options, spec, formats, source_label,
                                progress, tables, cache, pool)


def _build_and_write(
    release: Release, definition: SplitDefinition, target: Path, tos: tuple[str, ...], by_chunk: bool,
    options: BuildOptions, spec: SplitSpec, formats: FormatOptions, source_label: str | None,
    progress: tuple[Callable, Callable], tables: dict[str, SentenceTable] | None, cache: ReleaseCache | None,
    pool: Pool | None,
) -> dict[str, Any]:
    read_progress, write_progress = progress
    result = build_splits(release, definition, options, read_progress, cache)
    check = compare_read(release, result.files, ("fulltext", "lu") if options.with_exemplars else ("fulltext",))
    if check is not None and not check.genuine:
        result.warnings.append(check.message())
    several = len(tos) > 1
    outputs: dict[str, str] = {}
    losses: dict[str, dict[str, int]] = {name: {} for name in result.splits}
    record: dict[str, Any] = {}
    if "fnxml" in tos:  # before the other formats: they release the lines as they write them
        written, fnxml_losses, record = fnxml.write_folders(
            release, target, {name: data.lines for name, data in result.splits.items()},
            exclude_frames=options.exclude_frames, exclude_lus=options.exclude_lus,
            signature=build_signature(release, result), jobs=options.jobs,
        )
        outputs.update(written)
        for name, found in fnxml_losses.items():
            losses[name].update(loss_counts({"fnxml": found}, several))
    chunked = tuple(fmt for fmt in tos if fmt not in RELEASE_FORMATS)
    if by_chunk:
        # the lines are released as they are sent to the writers: one copy of the data in memory
        written_chunks = write_splits(
            target, [SplitLines(name, data.lines, data.starts) for name, data in result.splits.items()], chunked,
            formats, jobs=options.jobs, progress=write_progress, several=several, pool=pool, tables=tables is not None,
        )
        outputs.update(written_chunks.outputs)
        for name, found_losses in written_chunks.losses.items():
            losses[name].update(found_losses)
        if tables is not None:
            tables.update(written_chunks.tables)
        if "parquet" in tos:
            outputs.update(_write_parquet_lexicon(release, target, result, formats))
    elif chunked:  # JSON lines only: the build's own lines, written as they are
        for name, data in result.splits.items():
            path = target / f"{name}.jsonl"
            outputs[path.name] = write_lines(path, data.lines)
    manifest = build_manifest(
        release, source_label or str(release.path), "+".join(tos), result, spec, dict(sorted(outputs.items()))
    )
    manifest["format_options"] = formats.record()
    manifest["losses"] = {name: dict(sorted(found.items())) for name, found in losses.items()}
    if record:
        manifest["fnxml"] = record
    if check is not None:
        manifest["release"]["check"] = check.record()
    return manifest


def _write_parquet_lexicon(release: Release, target: Path, result: BuildResult,
                           formats: FormatOptions) -> dict[str, str]:
    """``frames.parquet`` and ``lexicon.parquet`` (its train columns from ``train.parquet``, when written)."""
    from pyfn.formats import parquet_lexicon  # noqa: PLC0415 - pyarrow is an optional extra

    assert formats.frames is not None
    paths = parquet_lexicon.write(
        release, target, formats.frames, train=target / "train.parquet" if "train" in result.splits else None,
        exclude_frames=result.options.exclude_frames, exclude_lus=result.options.exclude_lus,
        signature=formats.signature,
    )
    return {path.name: sha256_file(path) for path in paths}


def _split_folder_splits(
    source: Path, marker: dict[str, Any], to: str | Sequence[str], options: BuildOptions, spec: SplitSpec
) -> list[str]:
    """The one split a pyfn split folder holds; options that would rebuild it are refused."""
    name = marker["pyfn_split"]
    what = f"{source} is pyfn's {name} split as FrameNet XML (convert --to fnxml), read as it is"
    if "fnxml" in _formats(to):
        raise UsageError(f"{what}: --to fnxml writes from a FrameNet release")
    as_read = BuildOptions(splits=options.splits, strict=options.strict, jobs=options.jobs)
    if options != as_read or spec != SplitSpec():
        raise UsageError(f"{what}: --with-exemplars, --exclude-*, --filter, --filter-scope, --allow-incomplete, "
                         "--split, --seed, --folds and --fold do not apply to it")
    if name not in options.splits:
        raise UsageError(f"{what}: it holds no {' or '.join(options.splits)} split (--splits {name})")
    check_splits(to, [name])
    return [name]


def _convert_split_folder(
    source: Path, target: Path, marker: dict[str, Any], to: str | Sequence[str], options: BuildOptions,
    formats: FormatOptions, source_label: str | None, tables: dict[str, SentenceTable],
) -> dict[str, Any]:
    """Read a pyfn split folder as exactly the split it holds (nothing rebuilt, filtered or deduplicated)
    and write it in every format of ``to``."""
    name = marker["pyfn_split"]
    log = ProblemLog(strict=options.strict)
    sets, files = fnxml.read_folder(source, log=log)
    warnings = []
    if len(sets) != marker.get("annotation_sets"):
        warnings.append(f"{source} holds {len(sets):,} annotation sets where its {fnxml.MARKER} says "
                        f"{marker.get('annotation_sets')}: changed since pyfn wrote it")
    tos = _formats(to)
    if "bios" in tos and formats.frames is None:  # the folder's own frames, as from a release
        formats = replace(formats, frames=read_frames(open_release(source)))
    outputs, losses = _write(target, tos, {name: sets}, formats, tables=tables)
    return {
        "pyfn_version": __version__,
        "command": "convert",
        "from": "fnxml",
        "to": "+".join(tos),
        "source": {"path": source_label or str(source), "resolved": str(source.resolve()), "kind": "dir",
                   "pyfn_split": marker, "fingerprint": fingerprint(files), "files_read": len(files)},
        "signature": marker.get("signature"),
        "format_options": formats.record(),
        "splits": {name: {"sentences": len({s.sentence.text.strip() for s in sets}), "annotation_sets": len(sets)}},
        "skipped": log.counts(),
        "problems": [{"reason": p.reason, "where": p.where, "message": p.message} for p in log.problems],
        "losses": losses,
        "warnings": warnings,
        "outputs": outputs,
    }


def _splits_to_read(source: Path, from_: str, options: BuildOptions) -> list[str]:
    """The splits of ``options.splits`` a directory of ``from_`` files holds (only a finished pyfn output
    is read when the directory has a manifest)."""
    if not source.is_dir():
        raise PyfnError(f"{source}: not a directory of {from_} split files")
    if (source / MANIFEST).is_file() or (source / LOCK_NAME).is_file():
        check_finished(source)  # pyfn's own output: only a finished one is read
    present = splits_in(source, from_)
    wanted = [s for s in options.splits if s in present]
    if not wanted:
        raise PyfnError(f"{source}: no {from_} file for split {', '.join(options.splits)}")
    return wanted


def _convert_files(
    source: Path, target: Path, from_: str, to: str | Sequence[str], wanted: Sequence[str], options: BuildOptions,
    formats: FormatOptions, source_label: str | None, tables: dict[str, SentenceTable],
) -> dict[str, Any]:
    log = ProblemLog(strict=options.strict)
    split_sets = {name: read_split(source, from_, name, formats, log) for name in wanted}
    tos = _formats(to)
    if "semeval" in tos and from_ in ("semafor", "bios"):
        formats = replace(formats, predictions=True)
    inputs = {p.name: sha256_file(p) for p in sorted(source.iterdir()) if p.is_file() and p.name != MANIFEST}
    outputs, losses = _write(target, tos, split_sets, formats, tables=tables)
    return {
        "pyfn_version": __version__,
        "command": "convert",
        "from": from_,
        "to": "+".join(tos),
        "source": {"path": source_label or str(source), "resolved": str(source.resolve()), "kind": "dir",
                   "files": inputs},
        "format_options": formats.record(),
        "splits": {
            name: {"sentences": len({s.sentence.text.strip() for s in sets}), "annotation_sets": len(sets)}
            for name, sets in split_sets.items()
        },
        "skipped": log.counts(),
        "problems": [{"reason": p.reason, "where": p.where, "message": p.message} for p in log.problems],
        "losses": losses,
        "warnings": [],
        "outputs": outputs,
    }


def generate_lexicon(
    source: str | Path,
    target: str | Path,
    *,
    options: BuildOptions = BuildOptions(splits=("train",)),
    split: SplitSpec = SplitSpec(),
    relations: tuple[str, ...] = DEFAULT_RELATIONS,
    train_frames_only: bool = True,
    with_coretype: bool = False,
    release_lexicon: bool = False,
    source_label: str | None = None,
    progress: Callable = lambda items, total: items,
    force: bool = False,
    cache: ReleaseCache | None = None,
) -> dict[str, Any]:
    """Build the train split of ``source`` and write the train-only lexicon (and the
    full-release scorer lexicon; with ``release_lexicon``, ``release_lu_frames.tsv``
    too, without the frames and LUs ``options`` excludes) into ``target``, with a
    manifest, checked and swapped in as :func:`convert` does. Returns the manifest."""
    options = replace(options, splits=("train",))
    release = open_cached(source, cache)
    definition = make_definition(release, split)
    target = Path(target)
    previous = check_target(target, sources=[Path(source)], force=force)
    with staged(target, previous) as stage:
        result = build_splits(release, definition, options, progress, cache)
        inventory = TrainInventory.of_rows(map(jsonl.fe_rows, result.splits["train"].lines))
        report = generate(
            release, inventory, stage.path, relations=relations, train_frames_only=train_frames_only,
            with_coretype=with_coretype, release_lexicon=release_lexicon,
            exclude_frames=options.exclude_frames, exclude_lus=options.exclude_lus, cache=cache,
        )
        outputs = {name: sha256_file(stage.path / name) for name in sorted(files_under(stage.path))}
        check_read_folders(target, [f"{FN_TRAIN}/frame"], [*outputs, *previous.outputs])
        manifest = build_manifest(release, source_label or str(source), "lexicon", result, split, outputs)
        manifest["command"] = "generate"
        manifest["lexicon"] = report
        if cache is not None:  # the frames, read after the build
            manifest["warnings"] = [*manifest["warnings"], *cache.unreported()]
        manifest["units"] = manifest_units(manifest)
        stage.commit(manifest)
    return manifest
