"""A kept annotation set as the split builder holds it (:mod:`pyfn.splits.builder`) and its trace
(:mod:`pyfn.splits.trace`) reads it."""

from __future__ import annotations

from typing import NamedTuple


class Record(NamedTuple):
    """A kept annotation set: output order, hashes and JSON line (UTF-8).

    ``text`` is the sentence string (trailing whitespace removed) in UTF-8, whose byte order is the
    strings' code point order, and ``order`` pyfn 1.3's within-sentence key: with ``id`` they are
    the output order of :func:`pyfn.formats.base.ordered`, first in the tuple so that records sort
    as tuples (no two kept records of a split share ``text`` and ``order``: they would share
    ``set_hash``, and step 6 keeps one).
    """

    text: bytes
    order: str
    id: int
    sent_hash: str
    set_hash: str
    line: bytes
