"""Preprocess the splits of a pyfn output directory: one pass per split fills every carrier.

For each split, the sentences of ``{split}.sentences`` (FrameNet's tokens,
whitespace-split) are analysed once, and that one analysis is written to
``{split}.sentences.conllx`` (CoNLL-X), ``{split}.conllu`` (CoNLL-U),
``{split}.sentences.conllx.flattened`` (SEMAFOR's ``all.lemma.tags``; only
with a dependency parse) and merged into ``{split}.bios``,
``{split}.bios.semeval`` and ``{split}.parquet`` when they exist. ``pyfn convert --preprocess`` and
``pyfn preprocess --input DIR`` both come here, so they write the same files.

Everything a pass needs is checked by :func:`prepare` before any file is
touched (the backend loads and runs, each split's parse file exists and has
a block per sentence); the files are written into a staging folder and
swapped in when every split is done (:mod:`pyfn.outdir`), so a failed pass
leaves the folder byte for byte as it was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyfn import __version__
from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file
from pyfn.formats import bios, conll, semafor
from pyfn.formats.base import SentenceTable, read_sentences
from pyfn.manifest import check_finished
from pyfn.outdir import Previous, check_overwrites, staged
from pyfn.preprocess.base import IMPORT, Preprocessor, create
from pyfn.preprocess.cache import ParseCache
from pyfn.preprocess.runner import (
    PreprocessOptions,
    SplitAnalyses,
    analyse_split,
    import_split,
)
from pyfn.splits.builder import SPLITS
from pyfn.units import manifest_units

Progress = Callable[[str, int], Callable[[int], None]]
"""``progress(split, n_sentences)`` returns the callback told how many sentences are done."""


def no_progress(split: str, total: int) -> Callable[[int], None]:
    """No progress display."""
    return lambda n: None


def tqdm_progress(quiet: bool) -> Progress:
    """A tqdm bar per split on stderr (none when quiet or not a terminal)."""

    def start(split: str, total: int) -> Callable[[int], None]:
        if quiet or not sys.stderr.isatty():
            return lambda n: None
        from tqdm import tqdm  # noqa: PLC0415

        bar = tqdm(total=total, unit="sent", desc=f"preprocessing {split}", leave=False)

        def update(n: int) -> None:
            bar.update(n)
            if bar.n >= total:
                bar.close()

        return update

    return start


def _table(directory: Path, split: str, fn_ids: Sequence[Sequence[int]] | None) -> SentenceTable:
    strings = read_sentences(directory / f"{split}.sentences")
    ids: dict[str, list[int]] = {}
    if fn_ids is not None:
        if len(fn_ids) != len(strings):
            raise PyfnError(f"{directory / f'{split}.sentences'}: {len(strings)} sentences, "
                            f"{len(fn_ids)} expected")
        for string, idents in zip(strings, fn_ids):
            ids.setdefault(string, []).extend(idents)
    return SentenceTable(strings, {s: i for i, s in enumerate(strings)}, {s: sorted(set(v)) for s, v in ids.items()})


def sentence_ids_from_conllu(path: Path) -> list[list[int]] | None:
    """The ``fn_sentence_ids`` comment of every block of a CoNLL-U file pyfn wrote (None if any lacks it)."""
    if not path.is_file():
        return None
    out: list[list[int]] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("# sent_id = "):
                out.append([])
            elif line.startswith("# fn_sentence_ids = ") and out:
                out[-1] = [int(x) for x in line.split("=", 1)[1].split(",") if x.strip()]
    return out if out and all(out) else None


def carriers(split: str) -> list[str]:
    """The files a pass may write for ``split`` (the BIOS and Parquet ones only when they exist)."""
    return [f"{split}.sentences.conllx", f"{split}.conllu", f"{split}{semafor.LEMMA_TAGS_SUFFIX}", f"{split}.bios",
            f"{split}.bios.semeval", f"{split}.parquet"]


def _write_split(directory: Path, out: Path, split: str, table: SentenceTable, result: SplitAnalyses) -> list[Path]:
    """Write one split's carriers into ``out``, the BIOS files of ``directory`` merged with the analyses."""
    columns = dict(enumerate(result.analyses))
    written = [out / f"{split}.sentences.conllx", out / f"{split}.conllu"]
    conll.write_conllx(written[0], table, columns=columns)
    conll.write_conllu(written[1], table, columns=columns)
    if all(a.head is not None for analysis in result.analyses for a in analysis):
        written.append(semafor.write_lemma_tags(out / f"{split}{semafor.LEMMA_TAGS_SUFFIX}", table.strings,
                                                result.analyses))
    for name in (f"{split}.bios", f"{split}.bios.semeval"):
        if (directory / name).is_file():
            written.append(bios.merge_analyses(directory / name, result.analyses, out / name))
    if (directory / f"{split}.parquet").is_file():
        from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

        written.append(parquet.merge_analyses(directory / f"{split}.parquet", result.analyses, out / f"{split}.parquet"))
    return written


@dataclass(frozen=True)
class Prepared:
    """A pass checked and ready: its options, the loaded backend (None for an imported parse) and the cache."""

    options: PreprocessOptions
    backend: Preprocessor | None
    cache: ParseCache | None


def prepare(options: PreprocessOptions, splits: Sequence[str]) -> Prepared:
    """Check, before any file is touched, what a pass over ``splits`` needs: the backend loads and
    runs (its model or data is there), or each split has a parse file of its own."""
    if options.tool == IMPORT:
        if len(splits) > 1 and "{split}" not in (options.parse or ""):
            raise UsageError(f"--parse {options.parse}: {len(splits)} splits ({', '.join(splits)}) need one parse "
                             "each; write the path with {split}, e.g. parses/{split}.conllu")
        for split in splits:
            path = options.parse_file(split)
            if not path.is_file():
                raise PyfnError(f"{path}: no such parse file for split {split}; nothing was written "
                                "(give every split a parse, or choose the splits with --splits)")
        return Prepared(options, None, None)
    backend = create(options.tool, options.backend_options())
    backend.analyse([["pyfn"]])  # loads the model now: one that cannot load fails before any work
    return Prepared(options, backend, ParseCache(options.cache_dir) if options.cache_dir is not None else None)


def preprocess_splits(
    directory: Path, out: Path, splits: Sequence[str], prepared: Prepared,
    fn_ids: Mapping[str, Sequence[Sequence[int]]] | None = None, progress: Progress = no_progress,
) -> tuple[dict[str, str], dict[str, Any], list[str]]:
    """Analyse every split of ``directory`` and write its carriers into ``out`` (locked by the caller).

    Returns the hashes of the files written, the manifest record (tool, model,
    versions, per-split cache key and repairs) and warnings (corrupt cache
    entries found and recomputed).
    """
    directory = Path(directory)
    options, backend, cache = prepared.options, prepared.backend, prepared.cache
    tables = {s: _table(directory, s, (fn_ids or {}).get(s)) for s in splits}
    if backend is None:
        for split, table in tables.items():  # every parse has the right blocks before any split is written
            conll.check_block_count(options.parse_file(split), len(table.strings))
    record: dict[str, Any] = {"tool": options.tool, "pyfn_version": __version__}
    if backend is not None:
        record.update(backend.describe())
    per_split: dict[str, Any] = {}
    outputs: dict[str, str] = {}
    for split, table in tables.items():
        if backend is None:
            result = import_split(split, table, options)
        else:
            words = [s.split() for s in table.strings]
            result = analyse_split(split, words, options, backend, cache, progress(split, len(words)))
        per_split[split] = result.record | ({"cache": "hit" if result.cache_hit else "miss"} if cache else {})
        for path in _write_split(directory, out, split, table, result):
            outputs[path.name] = sha256_file(path)
    record["splits"] = per_split
    return dict(sorted(outputs.items())), record, list(cache.problems) if cache else []


def manifest_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the manifest keeps of a preprocessing record: everything but cache hits (run-dependent)."""
    out = dict(record)
    out["splits"] = {s: {k: v for k, v in r.items() if k != "cache"} for s, r in record["splits"].items()}
    return out


def present_splits(directory: Path, splits: Sequence[str]) -> list[str]:
    """The splits of ``splits`` that ``directory`` has a ``.sentences`` file for (an error when none)."""
    present = [s for s in splits if (Path(directory) / f"{s}.sentences").is_file()]
    if not present:
        raise PyfnError(f"{directory}: no {{{','.join(splits)}}}.sentences file to preprocess "
                        "(convert to semafor, bios, conllx or conllu first)")
    return present


def preprocess_directory(
    directory: str | Path, options: PreprocessOptions, splits: Sequence[str] = SPLITS,
    progress: Progress = no_progress, *, force: bool = False,
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """``pyfn preprocess --input DIR``: preprocess a finished conversion in place and update its manifest.

    Checked first: the folder is a finished conversion, no file the pass
    writes is one its manifest does not list (unless ``force``), and the pass
    can run (:func:`prepare`). The new files are swapped in once every split
    is done, the manifest last, with the new output hashes and a
    ``preprocessing`` record; a SEMAFOR lemma-tags file of an earlier pass
    that this one (without a parse) does not rewrite is removed. Returns the
    manifest, the warnings (corrupt cache entries found and recomputed, also
    recorded) and the full record (with cache hits).
    """
    directory = Path(directory)
    manifest = check_finished(directory)
    present = present_splits(directory, splits)
    listed = manifest.get("outputs", {})
    check_overwrites(directory, [name for s in present for name in carriers(s)], listed, force)
    prepared = prepare(options, present)
    fn_ids = {s: ids for s in present if (ids := sentence_ids_from_conllu(directory / f"{s}.conllu"))}
    with staged(directory, Previous(listed)) as stage:
        outputs, record, warnings = preprocess_splits(directory, stage.path, present, prepared, fn_ids, progress)
        stale = {f"{s}{semafor.LEMMA_TAGS_SUFFIX}" for s in present} - set(outputs)
        merged = {**listed, **outputs}
        manifest["outputs"] = {name: merged[name] for name in sorted(merged) if name not in stale}
        manifest["preprocessing"] = manifest_record(record)
        manifest["warnings"] = [*manifest.get("warnings", []), *warnings]
        manifest["units"] = manifest_units(manifest)
        stage.commit(manifest)
    return manifest, warnings, record
