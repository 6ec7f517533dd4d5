"""Formats by name: what each writes and reads, with one calling convention.

A writer takes ``(directory, split, sets, options, losses)`` and returns the
paths it wrote (:func:`write_split` runs several on one split); a reader takes
``(directory, split, options, log)`` and yields annotation sets. ``pyfn
convert`` only looks formats up here; the formats of :data:`RELEASE_FORMATS`
(FrameNet XML folders, made with the release's lexicon) it writes itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

from pyfn.collector import no_cycle_collection
from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import write_lines
from pyfn.formats import bios, conll, jsonl, semafor, semeval
from pyfn.formats.base import Losses, SentenceTable
from pyfn.model import AnnotationSet, Frame

SPLIT_NAMES = ("train", "dev", "test")


@dataclass(frozen=True)
class FormatOptions:
    """Options of the format readers and writers (recorded in the manifest)."""

    target_encoding: str = "list"
    semafor_legacy: bool = False
    kbest: bool = False
    bios_scheme: str = "bios"
    bios_fe_ranks: str = "1"
    bios_columns: int = 16
    consumer: str | None = None
    semeval_fe_ranks: str = "all"
    semeval_null_instantiations: bool = False
    predictions: bool = False
    frames: Mapping[str, Frame] | None = field(default=None, compare=False, repr=False)
    gold: Mapping[str, Sequence[AnnotationSet]] | None = field(default=None, compare=False, repr=False)
    signature: str | None = field(default=None, compare=False, repr=False)
    """The data signature, written into Parquet files (the manifest has it already)."""

    def record(self) -> dict:
        """The options as recorded in a manifest."""
        return {
            key: getattr(self, key)
            for key in self.__dataclass_fields__
            if key not in ("frames", "gold", "signature")
        }


Writer = Callable[[Path, str, Sequence[AnnotationSet], FormatOptions, Losses], list[Path]]
Reader = Callable[[Path, str, FormatOptions, ProblemLog], Iterator[AnnotationSet]]


def _write_jsonl(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    path = directory / f"{split}.jsonl"
    write_lines(path, (jsonl.dumps(s) for s in sets))
    return [path]


def _write_semafor(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    return semafor.write(directory, split, sets, losses=losses, with_sentences=False)


def _write_bios(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    return bios.write(
        directory, split, sets, losses=losses, scheme=opts.bios_scheme, fe_ranks=opts.bios_fe_ranks,
        columns=opts.bios_columns, frames=opts.frames, consumer=opts.consumer,
    )


def _write_conllx(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    path = directory / f"{split}.sentences.conllx"
    conll.write_conllx(path, sets)
    return [path]


def _write_conllu(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    path = directory / f"{split}.conllu"
    conll.write_conllu(path, sets)
    return [path]


def _write_semeval(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    """SemEval XML is what the scorer reads: written for dev and test, never for train."""
    if split not in written_splits("semeval", (split,)):
        return []
    sentences = None
    if opts.predictions:
        gold = (opts.gold or {}).get(split)
        if gold is not None:
            sets = semeval.predictions_from_tokens(sets, gold)
            sentences = SentenceTable.of(gold).strings
        path = directory / f"{split}.predicted.xml"
    else:
        path = directory / f"{split}.gold.xml"
    semeval.write(
        path, sets, fe_ranks=opts.semeval_fe_ranks, null_instantiations=opts.semeval_null_instantiations,
        sentences=sentences,
    )
    return [path]


def _write_parquet(directory: Path, split: str, sets: Sequence[AnnotationSet], opts: FormatOptions, losses: Losses) -> list[Path]:
    from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

    return [parquet.write(directory / f"{split}.parquet", sets, frames=opts.frames, signature=opts.signature)]


EXTRAS: dict[str, tuple[str, str]] = {"parquet": ("pyarrow", "parquet")}
"""Formats that need an optional extra: ``format: (module, extra)``."""


def check_installed(fmt: str) -> None:
    """Refuse, in one line saying what to install, a format whose optional extra is missing."""
    if fmt in EXTRAS:
        module, extra = EXTRAS[fmt]
        if find_spec(module) is None:
            raise PyfnError(f'the {fmt} format needs {module}: pip install "pyfn[{extra}]"', exit_code=2)


def joiner(name: str) -> Callable[[IO[bytes], Any], Any] | None:
    """How the files ``name`` of a split's chunks become the split's file: ``None`` when by appending
    their bytes; for Parquet, a :class:`~pyfn.formats.parquet.Joiner` (given the final file and a
    digest) that rewrites the chunks' rows in fixed row groups."""
    if not name.endswith(".parquet"):
        return None
    from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

    return parquet.Joiner


ONLY_SPLITS: dict[str, tuple[str, ...]] = {"semeval": ("dev", "test")}
"""Formats written for some splits only: SemEval XML is the scorer's input, written for dev and test."""


def written_splits(fmt: str, splits: Sequence[str]) -> list[str]:
    """The splits of ``splits`` for which format ``fmt`` writes files."""
    only = ONLY_SPLITS.get(fmt)
    return [s for s in splits if only is None or s in only]


def cuttable(fmt: str, split: str) -> bool:
    """Whether the files ``fmt`` writes for ``split`` are the concatenation of those it
    writes for consecutive chunks of the split cut between sentences (numbered on), or
    are made from them by a :func:`joiner` (Parquet): every format but SemEval XML, one
    document (written for dev and test only)."""
    return fmt != "semeval" or split == "train"


WRITERS: dict[str, Writer] = {
    "jsonl": _write_jsonl,
    "semafor": _write_semafor,
    "bios": _write_bios,
    "conllx": _write_conllx,
    "conllu": _write_conllu,
    "semeval": _write_semeval,
    "parquet": _write_parquet,
}


RELEASE_FORMATS = ("fnxml",)
"""Formats written from a FrameNet release as a whole, one folder per split whose lexicon comes from the
release (:mod:`pyfn.formats.fnxml`): :mod:`pyfn.convert` writes them, not :func:`write_split`."""


SENTENCE_FORMATS = frozenset({"semafor", "bios", "conllx", "conllu"})
"""The formats whose files go with ``{split}.sentences`` (line *k*: sentence number *k*)."""


def write_split(
    directory: Path, split: str, sets: Sequence[AnnotationSet], tos: Sequence[str], opts: FormatOptions,
) -> tuple[list[Path], dict[str, Losses]]:
    """Write one split (a :class:`~pyfn.formats.base.SplitView` is numbered once for all)
    in every format of ``tos``; return the paths written and the losses of each format.

    ``{split}.sentences``, shared by the token formats, is written once; what
    writing it lost counts for each of them.
    """
    paths: list[Path] = []
    losses: dict[str, Losses] = {}
    sentence_losses: Losses | None = None
    for to in tos:
        found = losses[to] = Losses()
        if to in SENTENCE_FORMATS:
            if sentence_losses is None:
                sentence_losses = Losses()
                paths.append(semafor.write_sentences(directory, split, sets, losses=sentence_losses))
            found.counts.update(sentence_losses.counts)
        paths += WRITERS[to](directory, split, sets, opts, found)
    return paths, losses


def loss_counts(losses: Mapping[str, Losses], several: bool) -> dict[str, int]:
    """One split's losses by reason, prefixed by format (``bios:overlapping_fes``) when
    ``several`` formats were written."""
    return dict(sorted(
        (f"{to}:{reason}" if several else reason, n) for to, found in losses.items() for reason, n in found.counts.items()
    ))


def _need(path: Path) -> Path:
    if not path.is_file():
        raise PyfnError(f"{path}: no such file")
    return path


def _read_jsonl(directory: Path, split: str, opts: FormatOptions, log: ProblemLog) -> Iterator[AnnotationSet]:
    return jsonl.read(_need(directory / f"{split}.jsonl"), log=log)


def _read_semafor(directory: Path, split: str, opts: FormatOptions, log: ProblemLog) -> Iterator[AnnotationSet]:
    path = directory / f"{split}.frame.elements"
    if not path.is_file():
        path = _need(directory / f"{split}.frames")
    return semafor.read(
        path, _need(directory / f"{split}.sentences"), log=log,
        target_encoding=opts.target_encoding, legacy=opts.semafor_legacy, kbest=opts.kbest,
    )


def _read_bios(directory: Path, split: str, opts: FormatOptions, log: ProblemLog) -> Iterator[AnnotationSet]:
    return bios.read(_need(directory / f"{split}.bios"), _need(directory / f"{split}.sentences"), log=log)


def _read_semeval(directory: Path, split: str, opts: FormatOptions, log: ProblemLog) -> Iterator[AnnotationSet]:
    for name in (f"{split}.gold.xml", f"{split}.predicted.xml", f"{split}.xml"):
        if (directory / name).is_file():
            return semeval.read(directory / name, log=log)
    raise PyfnError(f"{directory}: no {split}.gold.xml, {split}.predicted.xml or {split}.xml")


def _read_parquet(directory: Path, split: str, opts: FormatOptions, log: ProblemLog) -> Iterator[AnnotationSet]:
    check_installed("parquet")
    from pyfn.formats import parquet  # noqa: PLC0415 - pyarrow is an optional extra

    return parquet.read(_need(directory / f"{split}.parquet"), log=log)


READERS: dict[str, tuple[Reader, Callable[[Path, str], bool]]] = {
    "jsonl": (_read_jsonl, lambda d, s: (d / f"{s}.jsonl").is_file()),
    "semafor": (
        _read_semafor,
        lambda d, s: (d / f"{s}.frame.elements").is_file() or (d / f"{s}.frames").is_file(),
    ),
    "bios": (_read_bios, lambda d, s: (d / f"{s}.bios").is_file()),
    "semeval": (
        _read_semeval,
        lambda d, s: any((d / f"{s}{x}").is_file() for x in (".gold.xml", ".predicted.xml", ".xml")),
    ),
    "parquet": (_read_parquet, lambda d, s: (d / f"{s}.parquet").is_file()),
}

NOT_SOURCES = {
    "conllx": "CoNLL-X files carry tokens and parses, no frames (use them with `pyfn preprocess --tool conll`)",
    "conllu": "CoNLL-U files carry tokens and parses, no frames (use them with `pyfn preprocess --tool conll`)",
}


def splits_in(directory: Path, fmt: str) -> list[str]:
    """The splits a directory holds in format ``fmt``."""
    _, present = READERS[fmt]
    return [s for s in SPLIT_NAMES if present(directory, s)]


def read_split(directory: Path, fmt: str, split: str, opts: FormatOptions, log: ProblemLog) -> list[AnnotationSet]:
    """Every annotation set of one split of a directory in format ``fmt``."""
    if fmt in NOT_SOURCES:
        raise UsageError(f"cannot convert from {fmt}: {NOT_SOURCES[fmt]}")
    if fmt not in READERS:
        raise UsageError(f"cannot read {fmt!r} (readable: fnxml, {', '.join(READERS)})")
    reader, _ = READERS[fmt]
    with no_cycle_collection():
        return list(reader(Path(directory), split, opts, log))
