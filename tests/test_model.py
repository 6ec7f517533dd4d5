from pyfn.model import tokens

from conftest import make_set


def test_tokens_keep_character_spans():
    toks = tokens(" Simply put ,\u00a0x  y ")
    assert [t.text for t in toks] == ["Simply", "put", ",", "x", "y"]
    assert [(t.start, t.end) for t in toks] == [(1, 6), (8, 10), (12, 12), (14, 14), (17, 17)]
    assert tokens("") == ()


def test_target_sorted_and_fe_views():
    aset = make_set("there is a dog", [(6, 7), (0, 4)], [("Entity", 9, 13), ("Time", None, None)])
    assert aset.target == ((0, 4), (6, 7))
    assert [lb.name for _, lb in aset.overt_fes] == ["Entity"]
    assert len(aset.fe_labels) == 2
