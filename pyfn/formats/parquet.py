"""Parquet: ``{split}.parquet``, one row per annotation set, in a documented Arrow schema.

Needs ``pyarrow`` (``pip install "pyfn[parquet]"``). A row holds the set's
ids, its sentence (text, FrameNet whitespace tokens with their character
offsets), the target and the FEs as token and character spans, frame and
LU, the preprocessing columns (null until ``--preprocess`` fills them) and,
for a lossless round trip, the JSONL layers and POS labels exactly.
Character spans come in both conventions: ``end`` is FrameNet's (inclusive),
``stop`` Python's (exclusive, ``text[start:stop]``); every field's metadata
says which it holds (:data:`SCHEMA`, ``docs/FORMATS.md``).

Bytes are fixed by the data: rows are written in row groups of
:data:`ROW_GROUP_ROWS`, whatever tables they come in (a split written in
chunks is joined by :class:`Joiner`), with the pinned :data:`WRITER_OPTIONS`;
the footer's ``created_by`` names the pyarrow version, the only thing of a
file that another pyarrow version is sure to change.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from sys import intern
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from pyfn.errors import ProblemLog, PyfnError
from pyfn.fileio import atomic_writer
from pyfn.formats.base import SplitView, token_span
from pyfn.formats.jsonl import _not_a_set
from pyfn.model import AnnotationSet, Frame, Label, Layer, Sentence, Token, TokenAnnotation, tokens

SCHEMA_NAME = "pyfn.annotation_sets/1"
"""``pyfn.schema`` in a file's key-value metadata: this schema, version 1."""
ROW_GROUP_ROWS = 10_000
"""Rows per row group (the last may have fewer)."""
WRITER_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "data_page_version": "1.0",
    "data_page_size": 1 << 20,
    "write_batch_size": 1024,
    "write_page_index": False,
    "write_page_checksum": False,
    "store_schema": True,
    "use_content_defined_chunking": False,
}
"""pyarrow's ``ParquetWriter`` options, pinned (recorded in the manifest with pyarrow's version)."""

CHAR_START = "character offset of the first character (0-based), the same in both conventions"
CHAR_END = "FrameNet's convention: character offset of the last character, END INCLUSIVE (text[start:end + 1])"
CHAR_STOP = "Python's convention: character offset one past the last character, END EXCLUSIVE (text[start:stop])"
TOKEN_START = "index of the first token (0-based, into `tokens`)"
TOKEN_END = "index of the last token, END INCLUSIVE (tokens[start:end + 1])"
TOKEN_STOP = "index one past the last token, END EXCLUSIVE (tokens[start:stop])"


def _field(name: str, type_: pa.DataType, description: str, span: str | None = None) -> pa.Field:
    meta = {"description": description, **({"span": span} if span else {})}
    return pa.field(name, type_, metadata=meta)


def _spans(what: str) -> list[pa.Field]:
    return [
        _field("token_start", pa.int32(), f"first whitespace token {what} touches (null if none)", TOKEN_START),
        _field("token_end", pa.int32(), f"last whitespace token {what} touches", TOKEN_END),
        _field("token_stop", pa.int32(), f"one past the last token {what} touches", TOKEN_STOP),
        _field("char_start", pa.int32(), f"first character of {what}", CHAR_START),
        _field("char_end", pa.int32(), f"last character of {what}", CHAR_END),
        _field("char_stop", pa.int32(), f"one past the last character of {what}", CHAR_STOP),
    ]


_TARGET = pa.struct(_spans("the target span"))
_FE = pa.struct([
    _field("name", pa.string(), "FE name"),
    _field("fe_id", pa.int64(), "FE ID (FrameNet's feID)"),
    _field("core_type", pa.string(), "Core, Core-Unexpressed, Peripheral or Extra-Thematic, from the frame "
           "file (null when the frames were not given)"),
    _field("rank", pa.int32(), "rank of the FE layer (1: main annotation)"),
    _field("itype", pa.string(), "null-instantiation type (DNI, INI, CNI, INC); spans are null then"),
    *_spans("the FE label (null for a null instantiation)"),
])
_LABEL = pa.struct([
    _field("name", pa.string(), "label name"),
    _field("start", pa.int32(), "start of the label (null for a null instantiation)", CHAR_START),
    _field("end", pa.int32(), "end of the label (null for a null instantiation)", CHAR_END),
    _field("itype", pa.string(), "null-instantiation type"),
    _field("fe_id", pa.int64(), "FrameNet's feID"),
])
_LAYER = pa.struct([
    _field("name", pa.string(), "Target, FE, PT or GF"),
    _field("rank", pa.int32(), "layer rank"),
    _field("labels", pa.list_(_LABEL), "labels, as FrameNet gives them (JSONL's [name, start, end, itype, feID])"),
])
_POS = pa.struct([
    _field("tag", pa.string(), "POS tag"),
    _field("start", pa.int32(), "start of the tagged word", CHAR_START),
    _field("end", pa.int32(), "end of the tagged word", CHAR_END),
])

PREPROCESSED = ("lemma", "upos", "xpos", "head", "deprel")
"""The columns preprocessing fills, one value per token (null columns until it runs)."""

SCHEMA = pa.schema([
    _field("id", pa.int64(), "annotation-set ID (FrameNet's)"),
    _field("source", pa.string(), "fulltext or exemplar"),
    _field("status", pa.string(), "FrameNet's annotation status (MANUAL, UNANN, AUTO_EDITED...)"),
    _field("sentence_number", pa.int32(), "line of {split}.sentences, the number every token format of the "
           "split uses (0-based: distinct sentence strings in code-point order)"),
    _field("sentence_id", pa.int64(), "sentence ID (FrameNet's)"),
    _field("text", pa.string(), "sentence text, exactly FrameNet's (leading and trailing spaces kept): every "
           "character offset points into it"),
    _field("document", pa.string(), "fulltext document (file name) or, for exemplars, the lu/ file"),
    _field("doc_id", pa.int64(), "document ID"),
    _field("corpus_id", pa.int64(), "corpus ID"),
    _field("sent_no", pa.int64(), "sentence number in the document (FrameNet's sentNo)"),
    _field("parag_no", pa.int64(), "paragraph number (FrameNet's paragNo)"),
    _field("apos", pa.int64(), "FrameNet's aPos"),
    _field("tokens", pa.list_(pa.string()), "FrameNet's whitespace tokens of the text (str.split())"),
    _field("token_char_start", pa.list_(pa.int32()), "first character of each token", CHAR_START),
    _field("token_char_end", pa.list_(pa.int32()), "last character of each token", CHAR_END),
    _field("token_char_stop", pa.list_(pa.int32()), "one past the last character of each token", CHAR_STOP),
    _field("lu_id", pa.int64(), "lexical unit ID"),
    _field("lu", pa.string(), "lexical unit name (give.v)"),
    _field("frame_id", pa.int64(), "frame ID"),
    _field("frame", pa.string(), "frame name"),
    _field("target", pa.list_(_TARGET), "the target's spans, sorted (several for a discontinuous target)"),
    _field("fes", pa.list_(_FE), "every FE label, every rank, in layer order; null instantiations have null spans"),
    _field("lemma", pa.list_(pa.string()), "lemma of each token (preprocessing; null column without it)"),
    _field("upos", pa.list_(pa.string()), "universal POS tag of each token (preprocessing)"),
    _field("xpos", pa.list_(pa.string()), "PTB POS tag of each token (preprocessing)"),
    _field("head", pa.list_(pa.int32()), "head of each token, 1-based token number, 0 = root (preprocessing; "
           "null items without a parser)"),
    _field("deprel", pa.list_(pa.string()), "dependency label of each token (preprocessing)"),
    _field("layers", pa.list_(_LAYER), "the Target, FE, PT and GF layers as JSONL holds them: the ground truth "
           "a reader rebuilds the set from"),
    _field("pos_layer", pa.string(), "PENN when the sentence has FrameNet's PENN POS layer, else null"),
    _field("pos", pa.list_(_POS), "FrameNet's PENN POS labels of the sentence"),
])
"""The schema of ``{split}.parquet`` (docs/FORMATS.md has it as a table)."""

LOSSLESS = ("id", "source", "status", "sentence_id", "text", "document", "doc_id", "corpus_id", "sent_no",
            "parag_no", "apos", "lu_id", "lu", "frame_id", "frame", "layers", "pos_layer", "pos")
"""The columns a set is read back from (everything JSONL holds); the others are derived from them."""


def file_metadata(schema_name: str, signature: str | None) -> dict[str, str]:
    """The key-value metadata of a pyfn Parquet file: its schema and the data signature."""
    return {"pyfn.schema": schema_name, **({"pyfn.signature": signature} if signature else {})}


def _span_row(toks: Sequence[Token], start: int | None, end: int | None) -> dict[str, int | None]:
    if start is None or end is None:
        return dict.fromkeys(("token_start", "token_end", "token_stop", "char_start", "char_end", "char_stop"))
    try:
        first, last, _ = token_span(toks, start, end)
    except ValueError:  # a span on no token: never in a set pyfn writes (SPLITS.md step 2)
        first = last = None
    return {"token_start": first, "token_end": last, "token_stop": None if last is None else last + 1,
            "char_start": start, "char_end": end, "char_stop": end + 1}


def sets_table(view: SplitView, frames: Mapping[str, Frame] | None = None, signature: str | None = None) -> pa.Table:
    """The rows of the sets of ``view``, in its order (core types from ``frames`` when given)."""
    columns: dict[str, list] = {name: [] for name in SCHEMA.names}
    core_types: dict[str, dict[str, str]] = {}
    last: tuple[Sentence | None, dict[str, Any]] = (None, {})  # the sets of a sentence are adjacent
    for aset, number in zip(view.sets, view.numbers):
        s = aset.sentence
        toks = tokens(s.text)
        if last[0] is not s:
            last = (s, {
                "tokens": [t.text for t in toks], "token_char_start": [t.start for t in toks],
                "token_char_end": [t.end for t in toks], "token_char_stop": [t.end + 1 for t in toks],
                "pos": [{"tag": tag, "start": start, "end": end} for tag, start, end in s.pos],
            })
        sentence = last[1]
        if frames is not None and aset.frame_name not in core_types:
            frame = frames.get(aset.frame_name)
            core_types[aset.frame_name] = {fe.name: fe.core_type for fe in frame.fes} if frame else {}
        cores = core_types.get(aset.frame_name, {})
        row = {
            "id": aset.id, "source": aset.source, "status": aset.status, "sentence_number": number,
            "sentence_id": s.id, "text": s.text, "document": s.document, "doc_id": s.doc_id,
            "corpus_id": s.corpus_id, "sent_no": s.sent_no, "parag_no": s.parag_no, "apos": s.apos,
            "tokens": sentence["tokens"], "token_char_start": sentence["token_char_start"],
            "token_char_end": sentence["token_char_end"], "token_char_stop": sentence["token_char_stop"],
            "lu_id": aset.lu_id, "lu": aset.lu_name, "frame_id": aset.frame_id, "frame": aset.frame_name,
            "target": [_span_row(toks, start, end) for start, end in aset.target],
            "fes": [
                {"name": lb.name, "fe_id": lb.fe_id, "core_type": cores.get(lb.name) if frames is not None else None,
                 "rank": rank, "itype": lb.itype, **_span_row(toks, lb.start, lb.end)}
                for rank, lb in aset.fe_labels
            ],
            "lemma": None, "upos": None, "xpos": None, "head": None, "deprel": None,
            "layers": [
                {"name": layer.name, "rank": layer.rank, "labels": [
                    {"name": lb.name, "start": lb.start, "end": lb.end, "itype": lb.itype, "fe_id": lb.fe_id}
                    for lb in layer.labels
                ]}
                for layer in aset.layers
            ],
            "pos_layer": s.pos_layer,
            "pos": sentence["pos"],
        }
        for name, value in row.items():
            columns[name].append(value)
    return pa.Table.from_pydict(columns, schema=SCHEMA.with_metadata(file_metadata(SCHEMA_NAME, signature)))


class _Hashing:
    """A binary file that hashes what is written through it."""

    def __init__(self, handle: IO[bytes], digest: Any | None) -> None:
        self.handle = handle
        self.digest = digest
        self.closed = False

    def write(self, data: bytes) -> int:
        if self.digest is not None:
            self.digest.update(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()

    def tell(self) -> int:
        return self.handle.tell()


class RowGroups:
    """Writes tables to one Parquet file in row groups of ``ROW_GROUP_ROWS`` rows, whatever their
    sizes, so that the bytes depend on the rows only. The first table gives the schema."""

    def __init__(self, handle: IO[bytes], digest: Any | None = None) -> None:
        self.out = _Hashing(handle, digest)
        self.writer: pq.ParquetWriter | None = None
        self.pending: list[pa.Table] = []
        self.rows = 0

    def add(self, table: pa.Table) -> None:
        """Queue ``table``'s rows; write every full row group."""
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.out, table.schema, **WRITER_OPTIONS)
        self.pending.append(table)
        self.rows += table.num_rows
        while self.rows >= ROW_GROUP_ROWS:
            self._write(ROW_GROUP_ROWS)

    def _write(self, n: int) -> None:
        assert self.writer is not None
        table = pa.concat_tables(self.pending).combine_chunks()
        self.writer.write_table(table.slice(0, n), row_group_size=n)
        self.pending = [table.slice(n)]
        self.rows -= n

    def close(self) -> None:
        """Write the last row group and the footer."""
        if self.rows:
            self._write(self.rows)
        if self.writer is not None:
            self.writer.close()

    def __enter__(self) -> RowGroups:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()
        elif self.writer is not None:  # the file is being discarded: only release the writer
            with suppress(Exception):
                self.writer.close()


class Joiner(RowGroups):
    """The Parquet file of a split written in chunks: the rows of each chunk's file, in order."""

    def add_part(self, part: Path) -> None:
        """Append the rows of one chunk's file."""
        self.add(_canonical(pq.read_table(part)))


def _canonical(table: pa.Table) -> pa.Table:
    """A table read back from a file, in :data:`SCHEMA` again (Parquet renames a list's ``item`` to
    ``element``), with its file's metadata."""
    return table.cast(SCHEMA.with_metadata(table.schema.metadata))


def write(path: Path, sets: Sequence[AnnotationSet], *, frames: Mapping[str, Frame] | None = None,
          signature: str | None = None) -> Path:
    """Write ``{split}.parquet`` (atomically) for ``sets`` (ordered and numbered as a :class:`SplitView`)."""
    table = sets_table(SplitView.of(sets), frames, signature)
    with atomic_writer(path, "wb") as handle, RowGroups(handle) as out:
        out.add(table)
    return path


def merge_analyses(path: Path, analyses: Sequence[Sequence[TokenAnnotation]], out: Path) -> Path:
    """Write ``path`` to ``out`` with the preprocessing columns of each row filled from
    ``analyses[k]`` (one per token of sentence number *k*), row group by row group; every
    other column is kept."""
    source = _open(path)
    with atomic_writer(out, "wb") as handle, RowGroups(handle) as writer:
        for group in range(source.num_row_groups):
            table = _canonical(source.read_row_group(group))
            values: dict[str, list] = {name: [] for name in PREPROCESSED}
            for row, (number, words) in enumerate(zip(table.column("sentence_number").to_pylist(),
                                                      table.column("tokens").to_pylist())):
                analysis = analyses[number] if 0 <= number < len(analyses) else None
                if analysis is None or len(analysis) != len(words):
                    raise PyfnError(f"{path}: row group {group} row {row}: sentence {number} has {len(words)} "
                                    f"tokens, its analysis {len(analysis) if analysis is not None else 'none'}")
                for name in PREPROCESSED:
                    values[name].append([getattr(a, name) for a in analysis])
            for name in PREPROCESSED:
                index = table.schema.get_field_index(name)
                table = table.set_column(index, table.schema.field(name), pa.array(values[name], SCHEMA.field(name).type))
            writer.add(table)
    return out


# ---------------------------------------------------------------- reader


def _open(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except pa.ArrowException as exc:
        raise PyfnError(f"{path}: not a Parquet file ({exc})") from None


def _check_schema(path: Path, schema: pa.Schema, names: Sequence[str]) -> None:
    for name in names:
        expected = SCHEMA.field(name).type
        if name not in schema.names:
            raise PyfnError(f"{path}: no column {name!r}: not a pyfn annotation-set Parquet file")
        if not schema.field(name).type.equals(expected):
            raise PyfnError(f"{path}: column {name!r} is {schema.field(name).type}, not {expected}")


def read_table(path: Path) -> pa.Table:
    """A whole ``{split}.parquet`` file as one table in :data:`SCHEMA`, with the file's metadata."""
    source = _open(path)
    _check_schema(path, source.schema_arrow, SCHEMA.names)
    return _canonical(source.read())


def _need(value: Any, what: str) -> Any:
    if value is None:
        raise ValueError(f"{what} is null")
    return value


def _label(item: Mapping[str, Any]) -> Label:
    itype = item["itype"]
    return Label(intern(_need(item["name"], "a label name")), item["start"], item["end"],
                 itype and intern(itype), item["fe_id"])


def _sentence(row: Mapping[str, Any]) -> Sentence:
    return Sentence(
        id=_need(row["sentence_id"], "sentence_id"), text=_need(row["text"], "text"),
        document=_need(row["document"], "document"), doc_id=row["doc_id"], corpus_id=row["corpus_id"],
        sent_no=row["sent_no"], parag_no=row["parag_no"], apos=row["apos"], pos_layer=row["pos_layer"],
        pos=tuple((intern(_need(p["tag"], "a POS tag")), p["start"], p["end"]) for p in row["pos"] or ()),
    )


def set_from_row(row: Mapping[str, Any], sentence: Sentence | None = None) -> AnnotationSet:
    """The annotation set of one row (its :data:`LOSSLESS` columns); ``sentence`` when already built.
    Raises ``ValueError`` on a null where a value is required."""
    return AnnotationSet(
        id=_need(row["id"], "id"),
        sentence=sentence or _sentence(row),
        status=_need(row["status"], "status"),
        lu_id=row["lu_id"],
        lu_name=intern(_need(row["lu"], "lu")),
        frame_id=row["frame_id"],
        frame_name=intern(_need(row["frame"], "frame")),
        layers=tuple(
            Layer(intern(_need(layer["name"], "a layer name")), _need(layer["rank"], "a layer rank"),
                  tuple(_label(lb) for lb in layer["labels"] or ()))
            for layer in row["layers"] or ()
        ),
        source=_need(row["source"], "source"),
    )


_SENTENCE_COLUMNS = ("sentence_id", "text", "document", "doc_id", "corpus_id", "sent_no", "parag_no", "apos",
                     "pos_layer", "pos")


def read(path: Path, *, log: ProblemLog | None = None) -> Iterator[AnnotationSet]:
    """Stream the annotation sets of a ``{split}.parquet`` file, row group by row group.

    A file lacking a :data:`LOSSLESS` column, or holding it with another type,
    is an error naming the column. A row with a null where a value is needed
    (``malformed_row``), a set pyfn would never write (the ledger's
    ``no_target:*``/``invalid:*``) and a set id repeated within its source (``duplicate_id``)
    are skipped and counted in ``log``; without a ``log`` or when it is
    strict, the first one raises :class:`PyfnError`. Messages name the file
    and the row (0-based).
    """
    log = log if log is not None else ProblemLog(strict=True)
    source = _open(path)
    _check_schema(path, source.schema_arrow, LOSSLESS)
    seen: dict[tuple[str, int], int] = {}  # FrameNet's set IDs are unique per source (FN 1.5: 1,114 shared)
    index = 0
    last: tuple[tuple, Sentence | None] = ((), None)  # the sets of a sentence are adjacent
    for group in range(source.num_row_groups):
        for row in source.read_row_group(group, columns=list(LOSSLESS)).to_pylist():
            where = f"{path}: row {index}"
            index += 1
            key = tuple(row[c] for c in _SENTENCE_COLUMNS)
            try:
                aset = set_from_row(row, last[1] if key == last[0] else None)
            except (ValueError, TypeError) as exc:
                log.add("malformed_row", where, f"{where}: {exc}")
                continue
            last = (key, aset.sentence)
            bad = _not_a_set(aset)
            if bad is not None:
                log.add(bad[0], where, f"{where}: annotation set {aset.id}: {bad[1]}")
                continue
            first = seen.setdefault((aset.source, aset.id), index - 1)
            if first != index - 1:
                log.add("duplicate_id", where, f"{where}: {aset.source} annotation set {aset.id} already read at row {first}")
                continue
            yield aset


def manifest_record() -> dict[str, Any]:
    """What the manifest records of the Parquet writer: pyarrow's version (named in every file's
    footer as ``created_by``), the pinned writer options and the rows per row group."""
    return {"pyarrow": pa.__version__, "created_by": f"parquet-cpp-arrow version {pa.__version__}",
            "writer_options": dict(WRITER_OPTIONS), "row_group_rows": ROW_GROUP_ROWS, "schema": SCHEMA_NAME}
