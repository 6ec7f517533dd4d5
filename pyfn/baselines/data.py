"""What the baselines share: gold sets of a split, their token view and parse, predicted sets, outputs.

A data directory is what ``pyfn convert --to jsonl semeval [conllu] [--preprocess ...]`` writes:
``{split}.jsonl`` (the gold sets), and, with preprocessing, ``{split}.conllu`` whose block *k* is
line *k* of ``{split}.sentences`` (FORMATS.md §4). Parses are joined to a set through its sentence
string's line number, never by re-tokenizing, and every block is checked FORM by FORM against
FrameNet's tokens (:func:`pyfn.formats.conll.align`): a mismatch is an error naming the file and the
sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from pyfn.collector import no_cycle_collection
from pyfn.errors import ProblemLog, PyfnError
from pyfn.fileio import sha256_file
from pyfn.formats import conll, jsonl, semeval
from pyfn.formats.base import SentenceTable, ordered, read_sentences, sentence_string, token_span
from pyfn.model import AnnotationSet, Label, Layer, TokenAnnotation, tokens


class Inputs:
    """The files a run read, by name relative to their directory role (``data/…``, ``lexicon/…``), with sha256."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def add(self, role: str, path: Path, digest: str | None = None) -> Path:
        """Record ``path`` (read under ``role``; ``digest``: its sha256 when already known) and return it."""
        self.files[f"{role}/{Path(path).name}"] = digest or sha256_file(path)
        return path

    def record(self) -> dict[str, str]:
        """``{name: sha256}``, sorted by name."""
        return dict(sorted(self.files.items()))


def need(path: Path, hint: str = "") -> Path:
    """``path`` if it is a file, else a :class:`PyfnError` naming it."""
    path = Path(path)
    if not path.is_file():
        raise PyfnError(f"{path}: no such file{f' ({hint})' if hint else ''}")
    return path


_LOADED: dict[str, tuple[Path, tuple[AnnotationSet, ...]]] | None = None
"""Inside :func:`sets_kept`: sha256 of a ``{split}.jsonl`` -> its folder and its sets, for the files of
the last data folder read."""


@contextmanager
def sets_kept() -> Iterator[None]:
    """Within the block, :func:`load_sets` keeps the sets of the last data folder it read, and a file with
    the same bytes is not decoded again: the baselines of one split of ``pyfn xp run`` run one after
    another in one process and read the same files (a drawn split of FN 1.5: about 1.3 s of decoding,
    py-spy). Reading another folder drops them; so does the end of the outermost block."""
    global _LOADED
    saved = _LOADED
    if _LOADED is None:
        _LOADED = {}
    try:
        yield
    finally:
        _LOADED = saved


def load_sets(directory: Path, split: str, inputs: Inputs | None = None) -> list[AnnotationSet]:
    """The gold annotation sets of ``directory/{split}.jsonl``, in output order (sentence string, then
    pyfn's set key, then id); any malformed line is an error naming the file and line (inside
    :func:`sets_kept`, a file with the same bytes as one of the last folder read is not decoded again)."""
    path = need(Path(directory) / f"{split}.jsonl", "write it with `pyfn convert --to jsonl`")
    digest = sha256_file(path)
    kept = _LOADED if _LOADED is not None else {}
    if digest not in kept:
        folder = path.parent.resolve()
        for key in [key for key, (where, _) in kept.items() if where != folder]:
            del kept[key]  # before reading: memory holds one folder's sets at most
        with no_cycle_collection():
            sets = tuple(ordered(jsonl.read(path, log=ProblemLog(strict=True))))
        if not sets:
            raise PyfnError(f"{path}: no annotation set")
        if sha256_file(path) != digest:
            raise PyfnError(f"{path}: changed while it was read; run again once nothing writes it")
        kept[digest] = (folder, sets)
    if inputs is not None:
        inputs.add("data", path, digest)
    return list(kept[digest][1])


Parse = tuple[TokenAnnotation, ...]
"""One :class:`TokenAnnotation` per whitespace token of a sentence (``head`` 1-based, 0 = root)."""


def load_parses(directory: Path, split: str, sets: Sequence[AnnotationSet], inputs: Inputs | None = None
                ) -> dict[str, Parse] | None:
    """The parse of every sentence string of ``sets``, from ``{split}.conllu`` (None when the file is absent).

    Block *k* of the CoNLL-U file is line *k* of ``{split}.sentences``; both must be there, every set's
    sentence must be a line of the sentences file, and every block must carry that line's tokens.
    """
    directory = Path(directory)
    path = directory / f"{split}.conllu"
    if not path.is_file():
        return None
    sentences = need(directory / f"{split}.sentences", f"{path.name} is aligned through it")
    strings = read_sentences(sentences)
    table = SentenceTable(strings, {s: i for i, s in enumerate(strings)}, {})
    if len(table.numbers) != len(strings):
        raise PyfnError(f"{sentences}: a sentence is listed twice")
    for aset in sets:
        if sentence_string(aset.sentence.text) not in table.numbers:
            raise PyfnError(f"{sentences}: no line for the sentence of annotation set {aset.id} "
                            f"({split}.jsonl): {sentence_string(aset.sentence.text)[:80]!r}")
    anns: dict[int, list[TokenAnnotation]] = {}
    forms: dict[int, list[str]] = {}
    for number, block, words in conll.read_conll(path, log=ProblemLog(strict=True), dialect="conllu"):
        anns[number], forms[number] = block, words
    conll.align(forms, table, path)
    if inputs is not None:
        inputs.add("data", sentences)
        inputs.add("data", path)
    return {string: tuple(anns[number]) for string, number in table.numbers.items()}


def has_heads(parses: dict[str, Parse] | None) -> bool:
    """True when the parses carry a dependency tree (HEAD filled), not only tags and lemmas."""
    return parses is not None and any(ann.head is not None for parse in parses.values() for ann in parse)


@dataclass(frozen=True)
class Instance:
    """One annotation set as the baselines see it: its tokens, target token indices and parse."""

    aset: AnnotationSet
    words: tuple[str, ...]
    target: tuple[int, ...]
    """0-based indices of the tokens the target touches, sorted."""
    parse: Parse | None

    @property
    def lu(self) -> str:
        """The LU name (``give.v``)."""
        return self.aset.lu_name

    @property
    def lemma(self) -> str:
        """The LU name before its last ``.`` (``take off`` of ``take off.v``)."""
        return split_lu(self.aset.lu_name)[0]

    @property
    def pos(self) -> str:
        """The LU name after its last ``.`` (``v``); ``""`` when it has none."""
        return split_lu(self.aset.lu_name)[1]


def split_lu(name: str) -> tuple[str, str]:
    """``(lemma, POS)`` of an LU name: around its last ``.`` (``("", "")``-safe)."""
    lemma, dot, pos = name.rpartition(".")
    return (lemma, pos) if dot else (name, "")


def instances(sets: Iterable[AnnotationSet], parses: dict[str, Parse] | None) -> list[Instance]:
    """The :class:`Instance` of every set (target token indices through :func:`token_span`)."""
    out = []
    for aset in sets:
        toks = tokens(aset.sentence.text)
        target: set[int] = set()
        for start, end in aset.target:
            first, last, _ = token_span(toks, start, end)
            target.update(range(first, last + 1))
        parse = None if parses is None else parses[sentence_string(aset.sentence.text)]
        out.append(Instance(aset, tuple(t.text for t in toks), tuple(sorted(target)), parse))
    return out


# --------------------------------------------------------------------------- dependency trees


def heads(parse: Parse) -> list[int | None]:
    """0-based head index of every token (``-1`` = root, ``None`` = no head)."""
    return [None if ann.head is None else ann.head - 1 for ann in parse]


def children(parse: Parse) -> list[list[int]]:
    """0-based dependents of every token, in token order."""
    out: list[list[int]] = [[] for _ in parse]
    for i, head in enumerate(heads(parse)):
        if head is not None and head >= 0:
            out[head].append(i)
    return out


def span_head(parse: Parse, indices: Sequence[int]) -> int:
    """The token of ``indices`` whose head lies outside them (the first such; the first index if none)."""
    inside = set(indices)
    for i in sorted(indices):
        head = parse[i].head
        if head is None or head - 1 not in inside:
            return i
    return min(indices)


# --------------------------------------------------------------------------- predictions


def with_frame(aset: AnnotationSet, frame: str) -> AnnotationSet:
    """A frame-identification prediction: the gold set's target and LU with ``frame``; FE, PT and GF
    layers dropped (the scorer's frame points only)."""
    return replace(aset, frame_name=frame, frame_id=None,
                   layers=tuple(layer for layer in aset.layers if layer.name == "Target"))


def with_fes(aset: AnnotationSet, labels: Sequence[Label]) -> AnnotationSet:
    """An argument-identification prediction: the gold set (target, LU, gold frame) with one rank-1 FE
    layer of ``labels`` instead of its FE, PT and GF layers."""
    layers = tuple(layer for layer in aset.layers if layer.name == "Target")
    return replace(aset, layers=(*layers, Layer("FE", 1, tuple(labels))))


def as_scored(aset: AnnotationSet) -> AnnotationSet:
    """A gold set as ``{split}.gold.xml`` holds it (``--semeval-fe-ranks all``): every FE rank in one
    rank-1 FE layer, so that scoring in memory gives what the scorer gives on the file."""
    fes = tuple(lb for _, lb in aset.fe_labels)
    layers = tuple(layer for layer in aset.layers if layer.name == "Target")
    return replace(aset, layers=(*layers, Layer("FE", 1, fes)) if fes else layers)


def write_predictions(directory: Path, split: str, preds: Sequence[AnnotationSet],
                      gold: Sequence[AnnotationSet]) -> Path:
    """Write ``directory/{split}.predicted.xml`` with the gold sentence list (every gold sentence present,
    in ``{split}.gold.xml`` order)."""
    path = Path(directory) / f"{split}.predicted.xml"
    semeval.write(path, preds, sentences=SentenceTable.of(gold).strings)
    return path
