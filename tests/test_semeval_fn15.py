"""SemEval XML on the real FrameNet 1.5 dev and test splits."""

from __future__ import annotations

from dataclasses import replace

import pytest
from lxml import etree

from pyfn.errors import ProblemLog
from pyfn.formats import semeval
from pyfn.formats.base import SentenceTable, ordered
from pyfn.model import Label, Layer, tokens


@pytest.fixture(scope="module")
def splits(fn15_sets):
    """FN 1.5 dev and test (standard split, Test35 excluded), built once per session."""
    return {name: fn15_sets[name] for name in ("dev", "test")}


def scored(aset, with_rank):
    """Frame, LU, target and FE spans (with their rank or not)."""
    fes = sorted((rank if with_rank else 0, lb.name, lb.start, lb.end) for rank, lb in aset.overt_fes)
    return aset.sentence.text.rstrip(), aset.frame_name, aset.lu_name, aset.target, tuple(fes)


@pytest.mark.parametrize("fe_ranks", semeval.FE_RANKS)
@pytest.mark.parametrize("split, n_sets, n_sentences", [("test", 4148, 875), ("dev", 2319, 328)])
def test_gold_round_trip(splits, tmp_path, split, n_sets, n_sentences, fe_ranks):
    gold = splits[split]
    path = tmp_path / f"{split}.gold.xml"
    semeval.write(path, gold, fe_ranks=fe_ranks)
    log = ProblemLog(strict=True)
    back = list(semeval.read(path, log=log))
    assert len(back) == n_sets
    split_ranks = fe_ranks == "split"
    assert [scored(a, split_ranks) for a in back] == [scored(a, split_ranks) for a in ordered(gold)]
    assert len(list(etree.parse(str(path)).iter("sentence"))) == n_sentences
    first = path.read_bytes()
    semeval.write(path, gold, fe_ranks=fe_ranks)
    assert path.read_bytes() == first


def test_rank_two_labels_merged_by_default(splits, tmp_path):
    """pyfn 1.3 writes every rank into one unranked FE layer, so rank-2 labels are scored (U3):
    76 in the built test split (98 in the test documents before duplicate removal)."""
    path = tmp_path / "test.gold.xml"
    semeval.write(path, splits["test"])
    tree = etree.parse(str(path))
    assert all(layer.get("rank") is None for layer in tree.iter("layer"))
    rank2 = sum(1 for a in splits["test"] for rank, _ in a.overt_fes if rank == 2)
    assert rank2 == 76
    written = sum(len(layer.find("labels")) for layer in tree.iter("layer") if layer.get("name") == "FE")
    assert written == sum(len(a.overt_fes) for a in splits["test"])


@pytest.mark.parametrize("split, n_copied", [("test", 25), ("dev", 10)])
def test_token_predictions_recover_gold_targets(splits, split, n_copied):
    """Gold converted to one target label per token comes back with FrameNet's segmentation;
    merging adjacent tokens alone would miss the sets counted here (U4)."""
    gold = splits[split]
    pred = []
    for aset in gold:
        toks = tokens(aset.sentence.text)
        touched = sorted({t.index for s, e in aset.target for t in toks if t.start <= e and t.end >= s})
        target = Layer("Target", 1, tuple(Label("Target", toks[i].start, toks[i].end) for i in touched))
        pred.append(replace(aset, layers=(target, *(la for la in aset.layers if la.name != "Target"))))
    out = semeval.predictions_from_tokens(pred, gold)
    assert [a.target for a in out] == [a.target for a in gold]
    merged_only = semeval.predictions_from_tokens(pred, [])
    assert sum(a.target != b.target for a, b in zip(merged_only, gold)) == n_copied
    assert SentenceTable.of(out).strings == SentenceTable.of(gold).strings
