"""Reading ``pyfn audit``'s inputs into items, split by split.

An input is one of:

- a pyfn output folder or split file in any format :func:`pyfn.read` reads (JSONL and Parquet keep
  FrameNet's ids and sources; SEMAFOR, BIOS and SemEval XML give texts, targets, LUs and frames,
  their sentences named by file and number);
- an Open-SESAME CoNLL file (``*.conll``, :mod:`pyfn.audit.sesame_conll`);
- id lists as pyfn publishes them: a folder of ``{split}.{source}.{annoset,sentence}_ids.txt``
  (``resources/splits/fn1.5/ids/``), or one such file;
- a JSON file of ids (``*.json``)::

      {"id_kind": "annoset",                      # or "sentence"; default "annoset"
       "train": {"fulltext": [123, ...], "exemplar": [...]},
       "dev": [456, ...],                         # a bare list: fulltext ids
       "test": [...]}

Ids name FrameNet annotation sets (or sentences) of the release given as ``source``, which the
texts then come from (:class:`~pyfn.audit.release_texts.ReleaseTexts`); an id the release lacks is
an error naming the file and the item.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyfn.audit import sesame_conll
from pyfn.audit.items import SOURCES, Item, content_key
from pyfn.audit.release_texts import ReleaseTexts
from pyfn.errors import PyfnError, UsageError
from pyfn.formats.base import text_lines
from pyfn.formats.registry import SPLIT_NAMES, splits_in
from pyfn.model import AnnotationSet

ID_KINDS = ("annoset", "sentence")
ID_FILE = re.compile(r"(train|dev|test)\.(fulltext|exemplar)\.(annoset|sentence)_ids\.txt")
FRAMENET_ID_FORMATS = ("jsonl", "parquet")
"""pyfn formats whose annotation sets keep FrameNet's ids and source."""


@dataclass(frozen=True)
class IdRef:
    """An id read from an input, before the release gives its text; ``where`` names file and item."""

    split: str
    source: str
    kind: str
    id: int
    where: str


@dataclass
class Read:
    """What one input gave: items ready to check, and ids waiting for a release's texts."""

    path: Path
    items: dict[str, list[Item]]
    ids: list[IdRef]


def _split_from_name(path: Path) -> str | None:
    found = [part for part in path.name.split(".") if part in SPLIT_NAMES]
    return found[0] if len(found) == 1 else None


def _id_list(path: Path, split: str, source: str, kind: str) -> list[IdRef]:
    out = []
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        if not line.strip().isdigit():
            raise PyfnError(f"{path}:{lineno}: {line.strip()!r} is not an integer id")
        out.append(IdRef(split, source, kind, int(line), f"{path}:{lineno}"))
    return out


def _id_folder(path: Path, only: str | None) -> list[IdRef]:
    found: dict[tuple[str, str], dict[str, Path]] = {}
    for file in sorted(path.iterdir()):
        match = ID_FILE.fullmatch(file.name)
        if match and (only is None or match[1] == only):
            found.setdefault((match[1], match[2]), {})[match[3]] = file
    out = []
    for (split, source), kinds in sorted(found.items(), key=lambda kv: (SPLIT_NAMES.index(kv[0][0]), kv[0][1])):
        kind = "annoset" if "annoset" in kinds else "sentence"  # the sets say more than their sentences
        out += _id_list(kinds[kind], split, source, kind)
    return out


def _json_ids(path: Path, only: str | None) -> list[IdRef]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PyfnError(f"{path}: not a JSON file of ids: {exc}") from None
    if not isinstance(data, dict):
        raise PyfnError(f"{path}: expected a JSON object {{\"train\": [ids], \"dev\": ..., \"test\": ...}}")
    unknown = sorted(set(data) - {"id_kind", *SPLIT_NAMES})
    if unknown:
        raise PyfnError(f"{path}: unknown key {unknown[0]!r} (known: id_kind, train, dev, test)")
    kind = data.get("id_kind", "annoset")
    if kind not in ID_KINDS:
        raise PyfnError(f"{path}: id_kind {kind!r} is not one of {', '.join(ID_KINDS)}")
    if only is not None and only not in data:
        raise PyfnError(f"{path}: no {only} split there")
    out = []
    for split in SPLIT_NAMES:
        if split not in data or (only is not None and split != only):
            continue
        value = data[split]
        by_source = {"fulltext": value} if isinstance(value, list) else value
        if not isinstance(by_source, dict) or set(by_source) - set(SOURCES):
            raise PyfnError(f"{path}: {split}: expected a list of ids or {{\"fulltext\": [...], \"exemplar\": [...]}}")
        for source in SOURCES:
            ids = by_source.get(source, [])
            if not isinstance(ids, list):
                raise PyfnError(f"{path}: {split}.{source}: expected a list of ids")
            for i, value in enumerate(ids):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise PyfnError(f"{path}: {split}.{source}[{i}]: {value!r} is not an integer id")
                out.append(IdRef(split, source, kind, value, f"{path}: {split}.{source}[{i}]"))
    return out


def _pyfn_items(path: Path, fmt: str, split: str, sets: Sequence[AnnotationSet]) -> list[Item]:
    if fmt in FRAMENET_ID_FORMATS:
        return [Item(split, s.source, (s.source, s.sentence.id), s.sentence.text, (s.source, s.id),
                     content_key(s.sentence.text, s.target, s.lu_name, s.frame_name)) for s in sets]
    space = str(path / f"{split}.{fmt}") if path.is_dir() else str(path)
    return [Item(split, "", (space, s.sentence.id), s.sentence.text, (space, s.id),
                 content_key(s.sentence.text, s.target, s.lu_name, s.frame_name)) for s in sets]


def _pyfn_output(path: Path, only: str | None) -> dict[str, list[Item]]:
    from pyfn.api import READ_ORDER, format_of_file, read  # noqa: PLC0415 - the API imports the builder

    if path.is_dir():
        fmt = next((f for f in READ_ORDER if splits_in(path, f)), "")
        if not fmt:
            raise PyfnError(f"{path}: neither a pyfn output (no {', '.join(READ_ORDER)} split file) nor a folder "
                            "of id lists ({split}.{source}.annoset_ids.txt)")
    else:
        fmt = format_of_file(path)
    splits = read(path, fmt=fmt)
    if only is not None and path.is_dir():
        if only not in splits:
            raise PyfnError(f"{path}: no {only} split there (it holds {', '.join(splits)})")
        splits = {only: splits[only]}
    if only is not None and not path.is_dir():
        splits = {only: next(iter(splits.values()))}
    return {name: _pyfn_items(path, fmt, name, split.sets) for name, split in splits.items()}


def read_input(path: Path, split: str | None = None) -> Read:
    """Read one input; ``split``: take that split of a folder or JSON, or put a single file's sets in it
    (else a file's split comes from its name)."""
    if not path.exists():
        raise PyfnError(f"{path}: no such file or directory")
    if path.is_dir():
        if any(ID_FILE.fullmatch(p.name) for p in path.iterdir()):
            ids = _id_folder(path, split)
            if split is not None and not ids:
                raise PyfnError(f"{path}: no {split} id list ({split}.fulltext.annoset_ids.txt...) there")
            return Read(path, {}, ids)
        return Read(path, _pyfn_output(path, split), [])
    if path.suffix == ".json":
        return Read(path, {}, _json_ids(path, split))
    match = ID_FILE.fullmatch(path.name)
    if match:
        return Read(path, {}, _id_list(path, split or match[1], match[2], match[3]))
    named = split or _split_from_name(path)
    if path.suffix == ".conll":
        if named is None:
            raise UsageError(f"{path}: which split is this? Its name says none of train, dev, test "
                             "(give it with --train, --dev or --test)")
        return Read(path, {named: sesame_conll.read(path, named)}, [])
    return Read(path, _pyfn_output(path, split), [])


def resolve(ids: Sequence[IdRef], texts: ReleaseTexts) -> dict[str, list[Item]]:
    """Items of ``ids`` with their texts (and, for sets, targets, LUs and frames) from the release."""
    out: dict[str, list[Item]] = {}
    label = texts.release.label
    for ref in ids:
        if ref.kind == "annoset":
            info = texts.annotation_set(ref.source, ref.id)
            if info is None:
                raise PyfnError(f"{ref.where}: {label} has no {ref.source} annotation set {ref.id} that pyfn reads")
            item = Item(ref.split, ref.source, (ref.source, info.sentence_id), info.text, (ref.source, ref.id),
                        content_key(info.text, info.target, info.lu, info.frame))
        else:
            text = texts.sentence(ref.source, ref.id)
            if text is None:
                raise PyfnError(f"{ref.where}: {label} has no annotated {ref.source} sentence {ref.id}")
            item = Item(ref.split, ref.source, (ref.source, ref.id), text)
        out.setdefault(ref.split, []).append(item)
    return out
