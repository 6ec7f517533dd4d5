"""What became of each annotation set in one build: the split builder's opt-in trace.

Given to :func:`~pyfn.splits.builder.build_splits` (``trace=Trace()``), a
:class:`Trace` is told, as the build goes, every set removed with the step
and ledger reason that removed it and, for steps 5 and 6, the set or
sentence it lost to; at the end, the sets each split kept. It answers
:meth:`Trace.fates` for annotation-set, sentence or document ids. The
builder calls it once per file read and per split, and where a set is
removed: never for a kept set, so that a build without a trace runs as
before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyfn.formats import jsonl
from pyfn.model import AnnotationSet
from pyfn.splits.hashing import fe_signature, sentence_hash

if TYPE_CHECKING:
    from pyfn.splits.records import Record
    from pyfn.splits.parsed import ParsedFile

STEPS = {
    "malformed": (1, "read"),
    "no_target": (1, "read"),
    "invalid": (2, "invalid set"),
    "excluded": (3, "excluded id"),
    "filter": (4, "filter"),
    "overlap": (5, "sentence in another split"),
    "duplicate": (6, "duplicate"),
    "kept": (None, "kept"),
}
"""SPLITS.md step number and short name of each ledger reason's prefix (a kept set has no step)."""
_FOLDERS = {"fulltext": "fulltext", "exemplar": "lu"}


def step_of(reason: str) -> tuple[int | None, str]:
    """The SPLITS.md step (number, name) of a ledger reason (or ``kept``)."""
    key = reason.split(":", 1)[0]
    return STEPS["malformed" if key.startswith("malformed_") else key]


@dataclass(frozen=True)
class Fate:
    """What became of one annotation set: ``reason`` is ``kept`` or the ledger reason that removed it.

    ``split`` is the split its file went to; ``counterpart`` the kept set a
    duplicate lost to, or the sentences of dev or test an overlap matched;
    ``line`` its JSON line (None for a set dropped while reading: step 1-2).
    """

    source: str
    path: str
    split: str
    set_id: int | None
    sentence_id: int | None
    reason: str
    counterpart: dict[str, Any] | None = None
    line: bytes | None = field(default=None, repr=False)

    @property
    def step(self) -> tuple[int | None, str]:
        """SPLITS.md step number and name."""
        return step_of(self.reason)

    def record(self) -> dict[str, Any]:
        """The fate as JSON data (without the line)."""
        number, name = self.step
        return {"source": self.source, "file": self.path, "split": self.split, "annotation_set": self.set_id,
                "sentence": self.sentence_id, "fate": "kept" if self.reason == "kept" else "removed",
                "step": number, "step_name": name, "reason": self.reason, "counterpart": self.counterpart}


def _source_of(path: str) -> str:
    return "exemplar" if path.startswith("lu/") else "fulltext"


def _where(aset: AnnotationSet) -> str:
    return f"{_FOLDERS[aset.source]}/{aset.sentence.document}"


class Trace:
    """The fates of one build's annotation sets (see the module docstring)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget everything (the builder starts again after a corrupt cache entry)."""
        self._removed: list[tuple[str, str | None, int | None, int | None, str, str | None, Any]] = []
        self._kept: dict[str, list[Record]] = {}
        self._against: dict[str, list[Record]] = {}
        self.files: dict[str, str] = {}
        """The files read, each with the split it went to."""

    # the builder's side

    def read(self, split: str, record: ParsedFile) -> None:
        """A file read for ``split``: its sets dropped while reading (steps 1-2), and its malformed sentences
        or the whole file when unreadable."""
        self.files[record.path] = split
        for set_id, sent_id, reason in record.dropped:
            self._removed.append((split, record.path, set_id, sent_id, reason, None, None))
        for reason, where, _ in record.problems:  # what holds no set to name: a whole sentence, a whole file
            if reason == "malformed_sentence":
                sent = where.rsplit(" sentence ", 1)[-1]
                self._removed.append((split, record.path, None, int(sent) if sent.lstrip("-").isdigit() else None,
                                      reason, None, None))
            elif reason == "malformed_file":
                self._removed.append((split, record.path, None, None, reason, None, None))

    def removed(self, split: str, path: str, set_id: int, sent_id: int, reason: str, line: bytes) -> None:
        """A set excluded or filtered (steps 3-4)."""
        self._removed.append((split, path, set_id, sent_id, reason, line, None))

    def against(self, test: list[Record], dev: list[Record]) -> None:
        """The test and dev sets step 5 compared train and dev with (dev without its overlap with test)."""
        self._against = {"test": test, "dev": dev}

    def dropper(self, split: str) -> Callable[..., None]:
        """The callback of steps 5-6 for ``split``: ``(record, reason, kept=None)``."""

        def drop(record: Record, reason: str, kept: Record | None = None) -> None:
            self._removed.append((split, None, record.id, None, reason, record.line, kept))

        return drop

    def kept(self, split: str, records: list[Record]) -> None:
        """The sets ``split`` kept."""
        self._kept[split] = records

    # the reader's side

    def fates(self, *, set_ids: Iterable[int] = (), sentence_ids: Iterable[int] = (),
              paths: Iterable[str] = ()) -> list[Fate]:
        """Every set with one of ``set_ids``, in one of ``sentence_ids`` or read from one of ``paths``,
        ordered by file, sentence and set id."""
        sets, sentences, files = set(set_ids), set(sentence_ids), set(paths)
        needles = [str(n).encode() for n in sets | sentences]
        needles += [('"document":' + json.dumps(path.rsplit("/", 1)[-1], ensure_ascii=False)).encode() for path in files]

        def wanted_line(line: bytes) -> AnnotationSet | None:
            if any(n in line for n in needles):
                aset = jsonl.loads(line)
                if aset.id in sets or aset.sentence.id in sentences or _where(aset) in files:
                    return aset
            return None

        found: list[Fate] = []
        for split, path, set_id, sent_id, reason, line, kept in self._removed:
            if line is None:
                assert path is not None
                if set_id in sets or sent_id in sentences or path in files:
                    found.append(Fate(_source_of(path), path, split, set_id, sent_id, reason))
                continue
            aset = wanted_line(line)
            if aset is not None:
                found.append(Fate(aset.source, _where(aset), split, aset.id, aset.sentence.id, reason,
                                  self._counterpart(aset, reason, kept), line))
        for split, records in self._kept.items():
            for record in records:
                if sets and record.id in sets or sentences or files:
                    aset = wanted_line(record.line)
                    if aset is not None:
                        found.append(Fate(aset.source, _where(aset), split, aset.id, aset.sentence.id, "kept",
                                          line=record.line))
        return sorted(found, key=lambda f: (f.path, -1 if f.sentence_id is None else f.sentence_id,
                                            -1 if f.set_id is None else f.set_id, f.reason))

    def document_paths(self, doc_id: int) -> list[str]:
        """The fulltext files whose sentences carry the FrameNet document ID ``doc_id``."""
        needle = f'"doc_id":{doc_id},'.encode()
        found = set()
        lines = [line for *_, line, _ in self._removed if line is not None]
        for line in [*lines, *(r.line for records in self._kept.values() for r in records)]:
            if needle in line:
                aset = jsonl.loads(line)
                if aset.source == "fulltext" and aset.sentence.doc_id == doc_id:
                    found.add(_where(aset))
        return sorted(found)

    def _counterpart(self, aset: AnnotationSet, reason: str, kept: Record | None) -> dict[str, Any] | None:
        if kept is not None:
            winner = jsonl.loads(kept.line)
            return {"annotation_set": winner.id, "source": winner.source, "file": _where(winner),
                    "sentence": winner.sentence.id,
                    "same_fes": fe_signature(winner) == fe_signature(aset)}
        if reason.startswith("overlap:"):
            return {"split": reason.split(":", 1)[1], "sentences": self._sentences_like(aset, reason.split(":", 1)[1])}
        return None

    def _sentences_like(self, aset: AnnotationSet, split: str) -> list[dict[str, Any]]:
        """The sentences of ``split`` step 5 found equal to ``aset``'s, by file and id."""
        target = sentence_hash(aset.sentence.text)
        matches = {}
        for record in self._against.get(split, ()):
            if record.sent_hash == target:
                other = jsonl.loads(record.line)
                matches[(_where(other), other.sentence.id)] = other.sentence.text
        return [{"file": path, "sentence": sent_id, "text": text} for (path, sent_id), text in sorted(matches.items())]
