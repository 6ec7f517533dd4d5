"""The compiled twin of a file's sentence rows (``_clayers.SentenceRows`` and ``_clayers.sentence_hash``,
used by :func:`pyfn.splits.parsed.parse_file`) gives what the Python code gives: on random texts with
every kind of whitespace, on repeated texts, and on whole random files."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.framenet import compiled
from pyfn.splits import parsed
from pyfn.splits.hashing import sentence_hash

from test_set_record import _document

pytestmark = pytest.mark.skipif(parsed.sentence_rows_c is None, reason="no compiled reader")

WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
"""Every character ``str.split`` splits at."""
_TEXT = st.text(alphabet=st.one_of(st.sampled_from(WHITESPACE + ["İ", "ß", "Σ", "ǅ", "ﬃ", "A", "a", "😀"]),
                                   st.characters()), max_size=30)


def test_the_whitespace_list_is_complete():
    assert len(WHITESPACE) == 29 and "\u00a0" in WHITESPACE and "\u2003" in WHITESPACE and "\x1c" in WHITESPACE


@given(_TEXT)
@settings(max_examples=2000, deadline=None)
def test_sentence_hash_as_the_python_code(text):
    assert compiled.MODULE.sentence_hash(text) == sentence_hash(text)


@given(st.lists(st.tuples(st.integers(0, 5), _TEXT), max_size=20))
@settings(max_examples=300, deadline=None)
def test_sentence_rows_as_the_python_code(calls):
    twin, python = parsed.sentence_rows_c(), parsed.sentence_rows()
    first: dict[str, tuple] = {}
    for sent_id, text in calls:
        fields = ("doc.xml", 1, 2, sent_id, 4, 5, "PENN", (("NN", 0, 1),))
        row = twin(sent_id, text, *fields)
        assert row == python(sent_id, text, *fields)
        seen = first.setdefault(text, row)
        assert row[2] is seen[2] and row[3] is seen[3]  # made once per distinct text: one object each


def test_random_files_as_the_python_code(monkeypatch):
    rng = random.Random(29)
    for k in range(200):
        data = _document(rng)
        with_twin = parsed.parse_file(data, f"fulltext/d{k}.xml")
        monkeypatch.setattr(parsed, "sentence_rows_c", None)
        assert parsed.parse_file(data, f"fulltext/d{k}.xml") == with_twin
        monkeypatch.undo()
