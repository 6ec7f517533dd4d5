"""The Python API: :func:`load` builds splits exactly as ``pyfn convert`` does and
returns them as model objects; :func:`read` reads a pyfn output (or a split file) back.

``load`` takes the options of ``pyfn convert`` under the same names and with
the same defaults (``--with-exemplars`` is ``with_exemplars``...), with one
exception: ``split`` names the split(s) to load (the CLI's ``--splits``), so
the CLI's ``--split`` (the split definition: ``standard``, ``random``,
``kfold``) is ``definition`` here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from pyfn.collector import no_cycle_collection
from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import LOCK_NAME
from pyfn.formats import jsonl
from pyfn.formats.registry import SPLIT_NAMES, FormatOptions, read_split, splits_in
from pyfn.manifest import MANIFEST, check_finished
from pyfn.model import AnnotationSet

READ_ORDER = ("jsonl", "parquet", "semeval", "semafor", "bios")
"""The format :func:`read` takes from a folder holding several: the first present (JSONL and Parquet are lossless)."""


@dataclass(frozen=True)
class Split(Sequence[AnnotationSet]):
    """The annotation sets of one split, in pyfn's output order, with what shaped them.

    ``signature`` and ``ledger`` (removals by reason) are those ``pyfn convert``
    records for the same source and options; ``manifest`` is its record (no
    ``outputs``: nothing was written). Read from a folder without a manifest,
    they are ``None`` and empty.
    """

    name: str
    sets: tuple[AnnotationSet, ...]
    signature: str | None = None
    ledger: Mapping[str, int] = field(default_factory=dict)
    manifest: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @overload
    def __getitem__(self, index: int) -> AnnotationSet: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[AnnotationSet, ...]: ...

    def __getitem__(self, index: int | slice) -> AnnotationSet | tuple[AnnotationSet, ...]:
        return self.sets[index]

    def __len__(self) -> int:
        return len(self.sets)

    def __iter__(self) -> Iterator[AnnotationSet]:
        return iter(self.sets)

    def __repr__(self) -> str:
        return f"Split({self.name!r}, {len(self.sets)} annotation sets, signature={self.signature!r})"

    @property
    def sentences(self) -> int:
        """Distinct sentence strings (leading and trailing whitespace aside), as the manifest counts them."""
        return len({aset.sentence.text.strip() for aset in self.sets})


@overload
def load(source: str | Path | None = ..., split: str = ..., **options: Any) -> Split: ...


@overload
def load(source: str | Path | None = ..., split: Sequence[str] = ..., **options: Any) -> dict[str, Split]: ...


def load(
    source: str | Path | None = None,
    split: str | Sequence[str] = "test",
    *,
    with_exemplars: bool = False,
    exclude_frames: Iterable[int] = (),
    exclude_lus: Iterable[int] = (),
    exclude_sentences: Iterable[int] = (),
    exclude_annosets: Iterable[int] = (),
    filter: Iterable[str] = (),  # noqa: A002 - the CLI's --filter
    filter_scope: str = "train",
    definition: str = "standard",
    seed: int = 0,
    folds: int = 5,
    fold: int = 0,
    allow_incomplete: bool = False,
    jobs: int = 0,
    strict: bool = False,
    cache_dir: str | Path | None = None,
    no_cache: bool = False,
) -> Split | dict[str, Split]:
    """Build ``split`` of the FrameNet release ``source`` as ``pyfn convert`` does.

    ``source``: a release directory or zip, ``"sample"`` for the bundled
    sample, or ``None`` for the CLI's default (NLTK's FrameNet when installed,
    else the sample). ``split``: ``"train"``, ``"dev"``, ``"test"`` (one
    :class:`Split`), or several names or ``"all"`` (a dict of them, one build).
    The other options are ``pyfn convert``'s (see the module docstring), the
    parsed-release cache included: used by default (``cache_dir`` as
    ``--cache-dir``; ``no_cache`` as ``--no-cache``), the same sets either way.
    """
    from pyfn.convert import SplitSpec, build_manifest, make_definition  # noqa: PLC0415 - convert imports much
    from pyfn.framenet.cache import ReleaseCache  # noqa: PLC0415
    from pyfn.framenet.identity import compare_read  # noqa: PLC0415
    from pyfn.framenet.listing import open_cached  # noqa: PLC0415
    from pyfn.framenet.sources import resolve_source  # noqa: PLC0415
    from pyfn.splits.builder import build_splits  # noqa: PLC0415
    from pyfn.splits.options import build_options  # noqa: PLC0415

    if isinstance(filter, str):
        raise UsageError("filter takes a list of filter names, e.g. filter=['overlap_fes']")
    options = build_options(
        splits=split, with_exemplars=with_exemplars, exclude_frames=exclude_frames, exclude_lus=exclude_lus,
        exclude_sentences=exclude_sentences, exclude_annosets=exclude_annosets, filters=filter,
        filter_scope=filter_scope, strict=strict, allow_incomplete=allow_incomplete, jobs=jobs,
    )
    names = options.splits
    spec = SplitSpec(definition, seed, folds, fold)
    path, label = resolve_source(None if source is None else str(source))
    cache = None if no_cache else ReleaseCache.under(Path(cache_dir) if cache_dir is not None else None)
    release = open_cached(path, cache)
    result = build_splits(release, make_definition(release, spec), options, cache=cache)
    check = compare_read(release, result.files, ("fulltext", "lu") if with_exemplars else ("fulltext",))
    if check is not None and not check.genuine:
        result.warnings.append(check.message())
    manifest = build_manifest(release, label if source is None else str(source), "python", result, spec, {})
    manifest["command"] = "load"
    del manifest["to"], manifest["outputs"]
    if check is not None:
        manifest["release"]["check"] = check.record()
    with no_cycle_collection():
        loaded = {
            name: Split(name, tuple(jsonl.loads(line) for line in data.lines), manifest["signature"],
                        manifest["ledger"].get(name, {}), manifest)
            for name, data in result.splits.items()
        }
    return loaded[names[0]] if isinstance(split, str) and split != "all" else loaded


def read(path: str | Path, *, fmt: str | None = None, strict: bool = True) -> dict[str, Split]:
    """The splits of a pyfn output folder (``{split: Split}``), or of one split file.

    A folder with a ``manifest.json`` must be a finished, unedited pyfn output;
    its signature and ledger come with each split. The format is ``fmt`` or
    the first of :data:`READ_ORDER` the folder holds; a file is read by its
    name (``test.jsonl``, ``test.parquet``, ``dev.gold.xml``, ``train.frame.elements``
    or ``train.bios`` beside ``train.sentences``). ``strict=False`` skips bad items
    (counted in each split's ``manifest["skipped"]``) instead of raising on the first.
    """
    path = Path(path)
    if not path.exists():
        raise PyfnError(f"{path}: no such file or directory")
    folder, only = (path, None) if path.is_dir() else (path.parent, _split_of_file(path))
    manifest: dict[str, Any] = {}
    if (folder / MANIFEST).is_file() or (folder / LOCK_NAME).is_file():
        manifest = check_finished(folder)
    formats = [fmt] if fmt else [format_of_file(path)] if only else list(READ_ORDER)
    for name in formats:
        present = [s for s in splits_in(folder, name) if only is None or s == only]
        if present:
            break
    else:
        raise PyfnError(f"{path}: no {' or '.join(formats)} split file (train, dev or test) there")
    log = ProblemLog(strict=strict)
    sets = {split: tuple(read_split(folder, name, split, FormatOptions(), log)) for split in present}
    if log.counts():
        manifest = {**manifest, "skipped": log.counts()}
    return {
        split: Split(split, found, manifest.get("signature"), manifest.get("ledger", {}).get(split, {}), manifest)
        for split, found in sets.items()
    }


_SUFFIXES = {".jsonl": "jsonl", ".parquet": "parquet", ".gold.xml": "semeval", ".predicted.xml": "semeval", ".xml": "semeval",
             ".frame.elements": "semafor", ".frames": "semafor", ".bios": "bios"}


def _split_of_file(path: Path) -> str:
    split = path.name.split(".", 1)[0]
    if split not in SPLIT_NAMES or not format_of_file(path):
        raise PyfnError(f"{path}: not a pyfn split file (train/dev/test .jsonl, .parquet, .gold.xml, "
                        ".predicted.xml, .frame.elements or .bios)")
    return split


def format_of_file(path: Path) -> str:
    """The format :func:`read` reads a split file in, by its name (``""``: not a pyfn split file)."""
    rest = "." + path.name.split(".", 1)[-1] if "." in path.name else ""
    return _SUFFIXES.get(rest, "")
