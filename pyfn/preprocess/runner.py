"""One preprocessing pass per sentence set: batched, parallel across processes, cached, checked.

Whatever the tool, the result is one :data:`~pyfn.preprocess.base.Analysis`
per sentence with exactly one annotation per FrameNet token (asserted), made
one dependency tree (repairs counted). Results do not depend on ``jobs``, the
executor or the batch size: batches are contiguous and reassembled in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.executors import LOCAL, RETRIES, check_spec, check_visible, dask_client
from pyfn.fileio import sha256_file
from pyfn.formats import conll
from pyfn.formats.base import SentenceTable
from pyfn.preprocess.base import (
    BACKENDS,
    IMPORT,
    Analysis,
    BackendOptions,
    Preprocessor,
    TreeRepairs,
    create,
    single_tree,
)
from pyfn.preprocess.cache import ParseCache, cache_key, default_cache_dir
from pyfn.workers import imap, process_pool

Words = Sequence[str]


@dataclass(frozen=True)
class PreprocessOptions:
    """Which tool, model and data; how to run it. ``parse`` is the imported file (``{split}`` expands)."""

    tool: str = "spacy"
    model: str | None = None
    nltk_data: str | None = None
    parse: str | None = None
    jobs: int = 1
    batch_size: int = 512
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    executor: str = LOCAL
    """Where the batches run (:mod:`pyfn.executors`): ``local`` (``jobs`` processes), ``dask``, ``dask://HOST:PORT``."""

    def __post_init__(self) -> None:
        if self.tool not in BACKENDS and self.tool != IMPORT:
            raise UsageError(f"unknown preprocessing tool {self.tool!r} (known: {', '.join([*BACKENDS, IMPORT])})")
        if (self.tool == IMPORT) != (self.parse is not None):
            raise UsageError("--parse FILE goes with --tool conll, and --tool conll needs --parse FILE")
        if self.jobs < 1 or self.batch_size < 1:
            raise UsageError("--jobs and --batch-size must be >= 1")
        check_spec(self.executor)

    def backend_options(self) -> BackendOptions:
        """The options that select the backend's model and data."""
        return BackendOptions(model=self.model, nltk_data=self.nltk_data)

    def parse_file(self, split: str) -> Path:
        """The imported parse of ``split`` (``{split}`` in :attr:`parse` replaced by its name)."""
        assert self.parse is not None
        return Path(self.parse.replace("{split}", split))


@dataclass
class SplitAnalyses:
    """The analyses of one split's sentences and what the manifest records of them."""

    analyses: list[Analysis]
    record: dict
    cache_hit: bool = False


_WORKER: dict[str, Preprocessor] = {}


def _init_worker(tool: str, options: BackendOptions) -> None:
    if "backend" not in _WORKER:  # forked workers inherit the parent's loaded backend
        _WORKER["backend"] = create(tool, options)


def _analyse_batch(batch: Sequence[Words]) -> list[Analysis]:
    return _WORKER["backend"].analyse(batch)


def _batches(sentences: Sequence[Words], size: int) -> Iterator[Sequence[Words]]:
    for start in range(0, len(sentences), size):
        yield sentences[start:start + size]


_LOADED: dict[tuple[str, BackendOptions], Preprocessor] = {}
"""The backends a Dask worker process has loaded."""


def _analyse_on_worker(batch: Sequence[Words], tool: str, options: BackendOptions) -> list[Analysis]:
    """One batch on a Dask worker, its backend loaded once per worker process."""
    if (tool, options) not in _LOADED:
        _LOADED[tool, options] = create(tool, options)
    return _LOADED[tool, options].analyse(batch)


def _compute_on_dask(sentences: Sequence[Words], options: PreprocessOptions,
                     progress: Callable[[int], None]) -> list[Analysis]:
    """The batches as Dask tasks (each retried once), reassembled in order."""
    from distributed import as_completed  # noqa: PLC0415

    batches = list(_batches(sentences, options.batch_size))
    with dask_client(options.executor, options.jobs if options.jobs > 1 else 0) as client:
        paths = [Path(p) for p in (options.nltk_data, options.model) if p and Path(p).exists()]
        check_visible(client, paths)
        futures = client.map(_analyse_on_worker, batches, tool=options.tool, options=options.backend_options(),
                             retries=RETRIES, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        results: list[list[Analysis] | None] = [None] * len(batches)
        for future in as_completed(futures):
            try:
                results[index[future.key]] = future.result()
            except PyfnError:
                client.cancel(futures)
                raise
            except Exception as exc:  # noqa: BLE001 - the engine's own failure (e.g. KilledWorker)
                client.cancel(futures)
                raise PyfnError(f"{options.tool}: batch {index[future.key] + 1} of {len(batches)} did not finish "
                                f"on the Dask cluster: {type(exc).__name__}: {exc}") from None
            progress(len(batches[index[future.key]]))
    return [analysis for batch in results for analysis in batch or ()]


def _compute(backend: Preprocessor, sentences: Sequence[Words], options: PreprocessOptions,
             progress: Callable[[int], None]) -> list[Analysis]:
    if options.executor != LOCAL:
        return _compute_on_dask(sentences, options, progress)
    out: list[Analysis] = []
    batches = _batches(sentences, options.batch_size)
    jobs = min(options.jobs, max(1, -(-len(sentences) // options.batch_size) - 1))
    for batch in batches:  # the first batch here: it loads the model before workers are forked
        out.extend(backend.analyse(batch))
        progress(len(batch))
        if jobs > 1:
            break
    if jobs == 1:
        return out
    _WORKER["backend"] = backend
    try:
        with process_pool(jobs, _init_worker, (options.tool, options.backend_options())) as pool:
            for analyses in imap(pool, _analyse_batch, batches):
                out.extend(analyses)
                progress(len(analyses))
    finally:
        _WORKER.pop("backend", None)
    return out


def _checked(analyses: Sequence[Analysis], sentences: Sequence[Words], where: str) -> list[Analysis]:
    """Exactly one analysis per sentence and one annotation per FrameNet token, or an error naming the sentence."""
    if len(analyses) != len(sentences):
        raise PyfnError(f"{where}: {len(analyses)} analyses for {len(sentences)} sentences")
    for number, (analysis, words) in enumerate(zip(analyses, sentences)):
        if len(analysis) != len(words):
            raise PyfnError(f"{where}: sentence {number}: {len(analysis)} token annotations for the "
                            f"{len(words)} FrameNet tokens of {' '.join(words)!r}")
    return list(analyses)


def _trees(analyses: list[Analysis]) -> tuple[list[Analysis], dict[str, int]]:
    repairs = TreeRepairs()
    return [single_tree(a, repairs) for a in analyses], repairs.as_dict()


def analyse_split(
    split: str, sentences: Sequence[Words], options: PreprocessOptions, backend: Preprocessor,
    cache: ParseCache | None, progress: Callable[[int], None] = lambda n: None,
) -> SplitAnalyses:
    """Analyse one split's sentences with ``backend`` (through the cache when there is one)."""
    description = backend.describe()
    key = cache_key(description, sentences)
    analyses = cache.get(key, len(sentences)) if cache is not None else None
    hit = analyses is not None
    if analyses is None:
        analyses = _checked(_compute(backend, sentences, options, progress), sentences, f"{options.tool} on {split}")
        if cache is not None:
            cache.put(key, analyses)
    else:
        analyses = _checked(analyses, sentences, f"cache entry {key} for {split}")
        progress(len(sentences))
    analyses, repairs = _trees(analyses)
    return SplitAnalyses(analyses, {"cache_key": key, "sentences": len(sentences),
                                    "tokens": sum(map(len, sentences)), "tree_repairs": repairs}, hit)


def import_split(split: str, table: SentenceTable, options: PreprocessOptions) -> SplitAnalyses:
    """The analyses of an external CoNLL-X/CoNLL-U parse, block *k* aligned to sentence *k* (checked)."""
    path = options.parse_file(split)
    log = ProblemLog(strict=True)  # a block that cannot be aligned is an error, never a silent shift
    by_number: dict[int, list] = {}
    forms: dict[int, list[str]] = {}
    for number, anns, words in conll.read_conll(path, log=log):
        by_number[number], forms[number] = anns, words
    conll.align(forms, table, path)
    analyses, repairs = _trees([tuple(by_number[k]) for k in range(len(table.strings))])
    return SplitAnalyses(analyses, {"parse": str(path), "parse_sha256": sha256_file(path),
                                    "dialect": conll.dialect_of(path), "sentences": len(analyses),
                                    "tokens": sum(map(len, analyses)), "tree_repairs": repairs})
