"""Approximate-match argument scoring: token overlap (Kim et al. 2010) and head-word match."""

from __future__ import annotations

import pytest

from conftest import make_set
from pyfn.errors import PyfnError, UsageError
from pyfn.scoring import ScorerLexicon, score
from pyfn.scoring.semeval import SpanFactor

LEX = ScorerLexicon(core=[("Giving", "Donor"), ("Giving", "Theme")], frame_edges=[], fe_edges=[])
TEXT = "the old man gave a big book"
#       0   4   8   12   17 19  23
GOLD = [make_set(TEXT, [(12, 15)], [("Donor", 0, 10), ("Theme", 17, 26)])]


def _pred(donor, theme):
    return [make_set(TEXT, [(12, 15)], [("Donor", *donor), ("Theme", *theme)], set_id=2)]


def test_span_factor_overlap_and_head():
    factor = SpanFactor("overlap", TEXT, None)
    assert factor(((0, 10),), ((4, 10),)) == pytest.approx(2 / 3)
    assert factor(((0, 10),), ((17, 26),)) == 0.0
    assert factor(((0, 2), (8, 10)), ((0, 10),)) == pytest.approx(2 / 3)  # a discontinuous gold span
    heads = [3, 3, 4, 0, 7, 7, 4]  # the->man, old->man, man->gave, gave root, a->book, big->book, book->gave
    head = SpanFactor("head", TEXT, heads)
    assert head(((0, 10),), ((4, 10),)) == 1.0  # both headed by "man"
    assert head(((0, 10),), ((0, 6),)) == 0.0   # "the old": headed by "the" (first token whose head is outside)


@pytest.mark.parametrize(
    ("donor", "theme", "exact", "overlap"),
    [
        ((0, 10), (17, 26), 2.0, 2.0),                 # identical
        ((4, 10), (17, 26), 1.0, 1.0 + 2 / 3),         # one determiner short
        ((4, 10), (19, 26), 0.0, 2 / 3 + 2 / 3),       # both short
        ((17, 26), (0, 10), 0.0, 0.0),                 # swapped labels: no label credit anywhere
        ((0, 15), (17, 26), 1.0, 3 / 4 + 1.0),         # one token too many on the right ("... man gave")
        ((4, 6), (17, 26), 1.0, 1 / 3 + 1.0),          # nested inside the gold span ("old")
        ((0, 2), (23, 26), 0.0, 1 / 3 + 1 / 3),        # both nested, one token each
        ((19, 21), (17, 26), 1.0, 1.0),                # disjoint span, same label: nothing for it
    ],
)
def test_overlap_credit_in_argsonly(donor, theme, exact, overlap):
    pred = _pred(donor, theme)
    e = score(GOLD, pred, lexicon=LEX, mode="argsonly")
    o = score(GOLD, pred, lexicon=LEX, mode="argsonly", span_match="overlap")
    assert e.matched == pytest.approx(exact) and o.matched == pytest.approx(overlap)
    assert e.gold == o.gold == 2.0 and e.predicted == o.predicted == 2.0
    assert o.variant == "argsonly|partial|faithful|span:overlap" and e.variant == "argsonly|partial|faithful"


def test_frame_points_do_not_change():
    pred = [make_set(TEXT, [(12, 15)], [("Donor", 4, 10)], set_id=2, frame="Giving")]
    frames = [score(GOLD, pred, lexicon=LEX, mode="frames", span_match=m).matched for m in ("exact", "overlap")]
    assert frames == [1.0, 1.0]
    full = [score(GOLD, pred, lexicon=LEX, mode="semeval", span_match=m).matched for m in ("exact", "overlap")]
    assert full == [pytest.approx(1.0), pytest.approx(1.0 + 2 / 3)]


def test_each_gold_label_is_credited_once():
    pred = [make_set(TEXT, [(12, 15)], [("Donor", 4, 10), ("Donor", 0, 2)], set_id=2)]
    o = score(GOLD, pred, lexicon=LEX, mode="argsonly", span_match="overlap")
    # one Donor label, with two pieces, overlapping the gold "the old man" by 3 of 3 tokens
    assert o.matched == pytest.approx(1.0)


def test_head_match_needs_an_aligned_parse():
    pred = _pred((4, 10), (23, 26))
    heads = [[3, 3, 4, 0, 7, 7, 4]]
    h = score(GOLD, pred, lexicon=LEX, mode="argsonly", span_match="head", parses=heads)
    assert h.matched == 2.0 and h.variant.endswith("span:head")
    with pytest.raises(UsageError, match="needs a dependency parse"):
        score(GOLD, pred, lexicon=LEX, mode="argsonly", span_match="head")
    with pytest.raises(PyfnError, match="gold sentence 0: the parse has 3 heads for 7 tokens"):
        score(GOLD, pred, lexicon=LEX, mode="argsonly", span_match="head", parses=[[0, 1, 1]])
    with pytest.raises(UsageError, match="unknown span match"):
        score(GOLD, pred, lexicon=LEX, span_match="fuzzy")
