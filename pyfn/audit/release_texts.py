"""The sentences of a FrameNet release by id, for audit inputs that carry only ids.

Read through the parsed-release cache as a build reads the release (SPLITS.md
steps 1-2: the annotation sets pyfn reads, invalid ones left out): a
``fulltext`` id is looked up in ``fulltext/``, an ``exemplar`` id in ``lu/``
(FrameNet numbers the two apart). A folder is read only when an id of its
source is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.release import Release
from pyfn.splits.hashing import spans_of

FOLDERS = {"fulltext": "fulltext", "exemplar": "lu"}


class SetInfo(NamedTuple):
    """What an audit needs of one annotation set: its sentence, target spans, LU and frame."""

    sentence_id: int
    text: str
    target: tuple[tuple[int, int], ...]
    lu: str
    frame: str


def _spans(encoded: str) -> tuple[tuple[int, int], ...]:
    numbers = [int(x) for x in encoded.split("#")] if encoded else []
    return tuple(zip(numbers[::2], numbers[1::2]))


@dataclass
class ReleaseTexts:
    """Lazy lookups of one release's annotation sets and sentence texts by source and id."""

    release: Release
    jobs: int = 0
    cache: ReleaseCache | None = None
    _sets: dict[str, dict[int, SetInfo]] = field(default_factory=dict, repr=False)
    _texts: dict[str, dict[int, str]] = field(default_factory=dict, repr=False)

    def _load(self, source: str) -> None:
        from pyfn.splits.builder import parsed_files  # noqa: PLC0415 - the builder imports the worker pool

        sets: dict[int, SetInfo] = {}
        texts: dict[int, str] = {}
        for record in parsed_files(self.release, FOLDERS[source], self.jobs, self.cache):
            ids, sent_ids, _, _, _, sent_texts, _, orders, _, lus, frames, _ = record.sets
            for set_id, sent_id, utf8, order, lu, frame in zip(ids, sent_ids, sent_texts, orders, lus, frames):
                text = utf8.decode()
                sets.setdefault(set_id, SetInfo(sent_id, text, _spans(spans_of(order, lu, frame)), lu, frame))
                texts.setdefault(sent_id, text)
        self._sets[source], self._texts[source] = sets, texts

    def annotation_set(self, source: str, set_id: int) -> SetInfo | None:
        """The set ``set_id`` of ``source`` (``fulltext`` or ``exemplar``), None when the release has none."""
        if source not in self._sets:
            self._load(source)
        return self._sets[source].get(set_id)

    def sentence(self, source: str, sentence_id: int) -> str | None:
        """The text of sentence ``sentence_id`` of ``source``, None when the release has no annotated one."""
        if source not in self._texts:
            self._load(source)
        return self._texts[source].get(sentence_id)
