"""Baselines on tiny hand-made data: MFF rules, logreg's restricted decoding, the dependency-path
argument baseline, and the ``pyfn baseline`` command (outputs, manifest, determinism, errors)."""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import make_set, need_sklearn

from pyfn.baselines import args as deppath
from pyfn.baselines import data as bd
from pyfn.cli.baseline import add_parser
from pyfn.baselines.mff import MostFrequentFrame
from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import sha256_file
from pyfn.formats import conll, jsonl, semeval
from pyfn.formats.base import SentenceTable
from pyfn.model import TokenAnnotation, tokens

# --------------------------------------------------------------------------- helpers


def span(text: str, first: int, last: int | None = None) -> tuple[int, int]:
    """Character span of tokens ``first..last`` of ``text``."""
    toks = tokens(text)
    return toks[first].start, toks[first if last is None else last].end


_IDS = iter(range(1, 10**6))


def aset(text, target, frame, lu, fes=()):
    """A set whose target and FEs are given as token indices: ``target=(i, j)``, ``fes=[(name, i, j)]``."""
    return make_set(
        text, [span(text, *target)], [(name, *span(text, i, j)) for name, i, j in fes],
        set_id=next(_IDS), sent_id=zlib.crc32(text.encode()) % 10**6, frame=frame, lu=lu,
    )


def parse(*rows):
    """Token annotations from ``(head, deprel, xpos)`` rows (head 1-based, 0 = root)."""
    return tuple(TokenAnnotation(lemma=None, upos=None, xpos=x, head=h, deprel=r) for h, r, x in rows)


def write_split(directory, split, sets, parses=None):
    """``{split}.jsonl`` and, with ``parses`` (sentence string -> annotations), ``{split}.sentences`` and
    ``{split}.conllu`` as ``pyfn convert --preprocess`` writes them."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{split}.jsonl").write_text("".join(jsonl.dumps(s) + "\n" for s in sets), encoding="utf-8")
    if parses is not None:
        table = SentenceTable.of(sets)
        (directory / f"{split}.sentences").write_text("".join(s + "\n" for s in table.strings), encoding="utf-8")
        columns = {table.numbers[text]: parses[text] for text in table.strings}
        conll.write_conllu(directory / f"{split}.conllu", table, columns=columns)
    finish(directory)


def finish(directory):
    """A manifest of the directory's files, as pyfn convert / generate end: a finished output."""
    outputs = {p.name: sha256_file(p) for p in sorted(directory.iterdir()) if p.is_file() and p.name != "manifest.json"}
    (directory / "manifest.json").write_text(json.dumps({"outputs": outputs}), encoding="utf-8")


def write_lexicon(directory, train, frames_xml=True):
    directory.mkdir(parents=True, exist_ok=True)
    lus: dict[str, set[str]] = {}
    for s in train:
        lus.setdefault(s.lu_name, set()).add(s.frame_name)
    (directory / "lu_frames.tsv").write_text(
        "".join(f"{lu}\t" + "\t".join(sorted(fr)) + "\n" for lu, fr in sorted(lus.items())), encoding="utf-8")
    if frames_xml:
        (directory / "frames.xml").write_text(FRAMES_XML, encoding="utf-8")
        (directory / "frRelations.xml").write_text(RELATIONS_XML, encoding="utf-8")
    finish(directory)


FRAMES_XML = """<?xml version="1.0" encoding="UTF-8"?>
<frames>
  <frame name="Giving"><fes><fe name="Donor" coreType="Core"/><fe name="Recipient" coreType="Core"/>
    <fe name="Theme" coreType="Core"/></fes></frame>
  <frame name="Weapon"><fes><fe name="Weapon" coreType="Core"/></fes></frame>
</frames>
"""
RELATIONS_XML = """<?xml version="1.0" encoding="UTF-8"?>
<frame-relations>
  <frame-relation-type name="Inheritance"><frame-relations/></frame-relation-type>
</frame-relations>
"""


def run_cli(argv):
    p = argparse.ArgumentParser(prog="pyfn")
    sub = p.add_subparsers()
    add_parser(sub)
    args = p.parse_args(["baseline", *argv])
    return args.func(args)


# --------------------------------------------------------------------------- MFF


def _mff_train():
    t = "w x ."
    rows = (
        [("give.v", "Giving")] * 3
        + [("bank.n", "Relational_natural_features")] * 2 + [("bank.n", "Businesses")] * 1
        + [("bank.v", "Reliance")] * 3
        + [("tie.n", "Zeta")] * 2 + [("tie.n", "Alpha")] * 2
        + [("run.v", "Self_motion")] * 2
        + [("cut.n", "Cause_harm")] * 1
        + [("odd", "Beta")] * 1
    )
    return [aset(t, (0, 0), frame, lu) for lu, frame in rows]


def test_mff_seen_lu_single_frame():
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("give.v") == ("Giving", "lu")
    assert model.predict("run.v") == ("Self_motion", "lu")


def test_mff_seen_lu_several_frames_most_frequent():
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("bank.n") == ("Relational_natural_features", "lu")


def test_mff_ties_go_to_the_smallest_frame_name():
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("tie.n") == ("Alpha", "lu")


def test_mff_backoff_lemma_pools_counts_over_pos():
    """``bank.a`` is unseen: bank.n (RNF 2, Businesses 1) and bank.v (Reliance 3) pooled: Reliance."""
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("bank.a") == ("Reliance", "lemma")


def test_mff_backoff_pos_pools_counts_of_the_suffix():
    """``walk.v``: no ``walk`` lemma; train .v LUs: Giving 3, Reliance 3, Self_motion 2: tie to Giving."""
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("walk.v") == ("Giving", "pos")
    # .n LUs: Relational_natural_features 2, Zeta 2, Alpha 2, Businesses 1, Cause_harm 1
    assert model.predict("knife.n") == ("Alpha", "pos")


def test_mff_backoff_global_most_frequent_frame():
    """No lemma, unseen POS: the most frequent train frame (Giving 3, Reliance 3: code-point order)."""
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("quickly.adv") == ("Giving", "global")
    assert model.predict("even") == ("Beta", "pos")  # no POS suffix: pooled with the train LUs without one
    assert MostFrequentFrame.fit(_mff_train()[:-1]).predict("even") == ("Giving", "global")


def test_mff_lu_without_pos_suffix():
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("odd") == ("Beta", "lu")
    assert bd.split_lu("take off.v") == ("take off", "v") and bd.split_lu("odd") == ("odd", "")


def test_mff_does_not_depend_on_input_order():
    train = _mff_train()
    shuffled = list(train)
    random.Random(4).shuffle(shuffled)
    assert MostFrequentFrame.fit(shuffled) == MostFrequentFrame.fit(train)
    assert MostFrequentFrame.fit(shuffled).record() == MostFrequentFrame.fit(train).record()


def test_mff_no_training_set_is_an_error():
    with pytest.raises(PyfnError, match="no annotation set"):
        MostFrequentFrame.fit([])


# --------------------------------------------------------------------------- logreg


def _logreg_data():
    other = "they moved money into the safe place ."
    sets = [aset(other, (1, 1), "Other", f"move{i % 3}.v") for i in range(30)]
    sets += [aset("he ran home fast .", (1, 1), "Self_motion", "run.v") for _ in range(3)]
    sets += [aset("the bank of the river .", (1, 1), "Relational_natural_features", "bank.n") for _ in range(2)]
    sets += [aset("the bank lent money .", (1, 1), "Businesses", "bank.n")]
    return sets


def _ambiguous_and_unknown(tmp_path: Path) -> tuple[Path, Path]:
    """A data folder and lexicon on :func:`_logreg_data` whose dev and test hold an ambiguous LU (bank.n) and
    an unknown one (shift.v) in three contexts: the classifier decides every set."""
    data, lex = tmp_path / "fdata", tmp_path / "flex"
    train = _logreg_data()
    write_split(data, "train", train)
    texts = ["they moved money into the safe place .", "the bank of the river .", "he ran home fast ."]
    for split in ("dev", "test"):
        write_split(data, split, [aset(t, (1, 1), "Other", lu) for t in texts for lu in ("bank.n", "shift.v")])
    write_lexicon(lex, train, frames_xml=False)
    return data, lex


def test_logreg_known_single_frame_lu_gets_its_frame():
    need_sklearn()
    from pyfn.baselines.logreg import LogRegFrameId

    train = _logreg_data()
    model = LogRegFrameId.fit(bd.instances(train, None), {"run.v": frozenset({"Self_motion"}),
                                                          "bank.n": frozenset({"Relational_natural_features",
                                                                               "Businesses"}),
                                                          **{f"move{i}.v": frozenset({"Other"}) for i in range(3)}})
    test = [aset("they moved money into the safe place .", (1, 1), "Self_motion", "run.v")]
    assert model.predict(bd.instances(test, None)) == [("Self_motion", "known_single")]


def test_logreg_ambiguous_lu_is_restricted_to_its_frames():
    need_sklearn()
    from pyfn.baselines.logreg import LogRegFrameId, _int32, features

    train = _logreg_data()
    lexicon = {"run.v": frozenset({"Self_motion"}), "bank.n": frozenset({"Relational_natural_features", "Businesses"}),
               **{f"move{i}.v": frozenset({"Other"}) for i in range(3)}}
    model = LogRegFrameId.fit(bd.instances(train, None), lexicon)
    test = bd.instances([aset("they moved money into the safe place .", (1, 1), "Businesses", "bank.n")], None)
    # unrestricted, the context wins: "Other"; restricted to bank.n's frames, it cannot be chosen
    row = model.classifier.decision_function(_int32(model.vectorizer.transform([features(test[0])])))[0]
    assert model.classes[int(row.argmax())] == "Other"
    (frame, rule), = model.predict(test)
    assert rule == "known_ambiguous" and frame in lexicon["bank.n"]
    unknown = bd.instances([aset("they moved money into the safe place .", (1, 1), "Other", "shift.v")], None)
    assert model.predict(unknown) == [("Other", "unknown")]


def test_load_sets_decodes_a_file_once_for_the_baselines_of_a_folder(tmp_path, monkeypatch):
    import hashlib
    import shutil

    reads = []
    read = bd.jsonl.read
    monkeypatch.setattr(bd.jsonl, "read", lambda path, **kw: reads.append(path) or read(path, **kw))
    data = tmp_path / "data"
    train = _logreg_data()
    write_split(data, "train", train)
    inputs = bd.Inputs()
    assert bd.load_sets(data, "train", inputs) == bd.load_sets(data, "train") and len(reads) == 2  # not kept
    with bd.sets_kept():
        first = bd.load_sets(data, "train", inputs)
        with bd.sets_kept():  # nested: the same sets
            assert first == bd.load_sets(data, "train") and first is not bd.load_sets(data, "train")
        assert len(reads) == 3 and len(first) == len(train)
        assert inputs.record() == {"data/train.jsonl": hashlib.sha256((data / "train.jsonl").read_bytes()).hexdigest()}
        write_split(data, "train", train[:5])  # other bytes: read again
        assert len(bd.load_sets(data, "train")) == 5 and len(reads) == 4
        other = tmp_path / "other"
        shutil.copytree(data, other)
        write_split(other, "train", train[:7])
        assert len(bd.load_sets(other, "train")) == 7 and len(reads) == 5
        assert {where for where, _ in bd._LOADED.values()} == {other.resolve()}  # the first folder's are dropped
    assert bd._LOADED is None
    bd.load_sets(other, "train")
    assert len(reads) == 6


def test_load_sets_refuses_a_file_that_changes_while_it_is_read(tmp_path, monkeypatch):
    data = tmp_path / "data"
    write_split(data, "train", _logreg_data())
    read = bd.jsonl.read

    def read_then_change(path, **kw):
        yield from read(path, **kw)
        write_split(data, "train", _logreg_data()[:3])

    monkeypatch.setattr(bd.jsonl, "read", read_then_change)
    with bd.sets_kept(), pytest.raises(PyfnError, match=r"train\.jsonl: changed while it was read"):
        bd.load_sets(data, "train")


def test_logreg_is_deterministic():
    need_sklearn()
    from pyfn.baselines.logreg import LogRegFrameId

    train = _logreg_data()
    lexicon = {"bank.n": frozenset({"Relational_natural_features", "Businesses"})}
    items = bd.instances(train, None)
    a = LogRegFrameId.fit(items, lexicon, seed=3)
    b = LogRegFrameId.fit(items, lexicon, seed=3)
    assert (a.classifier.coef_ == b.classifier.coef_).all()
    assert a.predict(items) == b.predict(items)
    threads = LogRegFrameId.fit(items, lexicon, seed=3, jobs=3)  # the binary classifiers fitted side by side
    assert len(threads.classes) == 4
    assert (threads.classifier.coef_ == a.classifier.coef_).all()
    assert (threads.classifier.intercept_ == a.classifier.intercept_).all()
    assert threads.predict(items) == a.predict(items)
    other_seed = LogRegFrameId.fit(items, lexicon, seed=4, jobs=3)
    assert (other_seed.classifier.coef_ != a.classifier.coef_).any()  # the seed does reach the threads


def test_logreg_cli_jobs_give_the_same_predictions(tmp_path):
    need_sklearn()
    data, lex = _ambiguous_and_unknown(tmp_path)
    for jobs in ("1", "2"):
        assert run_cli(["frameid-logreg", "--data", str(data), "--lexicon", str(lex), "--target",
                        str(tmp_path / jobs), "--quiet", "--jobs", jobs]) == 0
    for split in ("dev", "test"):
        one = (tmp_path / "1" / f"{split}.predicted.xml").read_bytes()
        assert one == (tmp_path / "2" / f"{split}.predicted.xml").read_bytes()
        assert b"Relational_natural_features" in one or b"Businesses" in one  # the classifier decided bank.n
    assert (json.loads((tmp_path / "1" / "manifest.json").read_text(encoding="utf-8"))["model"]
            == json.loads((tmp_path / "2" / "manifest.json").read_text(encoding="utf-8"))["model"])


# --------------------------------------------------------------------------- args-deppath

GIVE1 = "Ann gave Bob a pen ."
GIVE2 = "Tom gave Sue a cup ."
GIVE3 = "Joe gave a book to Amy ."
GIVE4 = "Max gave a hat to Liz ."
MISSILE1 = "The missiles flew ."
MISSILE2 = "Those missiles flew away ."
TEST1 = "Kim gave Lee a hat ."
TEST2 = "Kim gave a toy to Ed ."
TEST3 = "Two missiles fell ."

DOUBLE_OBJECT = parse((2, "nsubj", "NNP"), (0, "ROOT", "VBD"), (2, "dative", "NNP"), (5, "det", "DT"),
                      (2, "dobj", "NN"), (2, "punct", "."))
TO_OBJECT = parse((2, "nsubj", "NNP"), (0, "ROOT", "VBD"), (4, "det", "DT"), (2, "dobj", "NN"),
                  (2, "prep", "IN"), (5, "pobj", "NNP"), (2, "punct", "."))
PARSES = {
    GIVE1: DOUBLE_OBJECT, GIVE2: DOUBLE_OBJECT, TEST1: DOUBLE_OBJECT,
    GIVE3: TO_OBJECT, GIVE4: TO_OBJECT, TEST2: TO_OBJECT,
    MISSILE1: parse((2, "det", "DT"), (3, "nsubj", "NNS"), (0, "ROOT", "VBD"), (3, "punct", ".")),
    MISSILE2: parse((2, "det", "DT"), (3, "nsubj", "NNS"), (0, "ROOT", "VBD"), (3, "advmod", "RB"),
                    (3, "punct", ".")),
    TEST3: parse((2, "nummod", "CD"), (3, "nsubj", "NNS"), (0, "ROOT", "VBD"), (3, "punct", ".")),
}


def _args_train():
    give = [aset(t, (1, 1), "Giving", "give.v", [("Donor", 0, 0), ("Recipient", 2, 2), ("Theme", 3, 4)])
            for t in (GIVE1, GIVE2)]
    give += [aset(t, (1, 1), "Giving", "give.v", [("Donor", 0, 0), ("Theme", 2, 3), ("Recipient", 4, 5)])
             for t in (GIVE3, GIVE4)]
    missiles = [aset(t, (1, 1), "Weapon", "missile.n", [("Weapon", 1, 1)]) for t in (MISSILE1, MISSILE2)]
    return give + missiles


def _args_test():
    return [aset(TEST1, (1, 1), "Giving", "give.v", [("Donor", 0, 0), ("Recipient", 2, 2), ("Theme", 3, 4)]),
            aset(TEST2, (1, 1), "Giving", "give.v", [("Donor", 0, 0), ("Theme", 2, 3), ("Recipient", 4, 5)]),
            aset(TEST3, (1, 1), "Weapon", "missile.n", [("Weapon", 1, 1)])]


def _labels(inst, labels):
    text = inst.aset.sentence.text
    return [(lb.name, text[lb.start:lb.end + 1]) for lb in labels]


def test_deppath_candidates_and_paths():
    inst, = bd.instances([_args_train()[2]], PARSES)
    cands = {c.index: (c.path, c.lexpath) for c in deppath.candidates(inst)}
    assert cands == {-1: ("SELF", "SELF"), 0: ("vnsubj", "vnsubj"), 2: ("vdobj vdet", "vdobj vdet"),
                     3: ("vdobj", "vdobj"), 4: ("vprep", "vprep:to"),
                     5: ("vprep vpobj", "vprep:to vpobj")}  # neither the target nor punctuation
    assert deppath.gold_labels(inst) == {0: "Donor", 3: "Theme", 4: "Recipient"}
    assert deppath.fe_span(inst, 4) == (4, 5) and deppath.fe_span(inst, 3) == (2, 3)


def test_deppath_span_stops_at_the_target_and_drops_punctuation():
    text = "old men , ."
    inst, = bd.instances([aset(text, (0, 0), "Age", "old.a")],
                         {text: parse((2, "amod", "JJ"), (0, "ROOT", "NNS"), (2, "punct", ","), (2, "punct", "."))})
    assert [(c.index, c.path) for c in deppath.candidates(inst)] == [(-1, "SELF"), (1, "^amod")]
    assert deppath.fe_span(inst, 1) == (1, 1)  # subtree 0..3: the target and the punctuation left out


def test_deppath_predicts_from_paths_and_the_target_itself():
    model = deppath.DepPathArgs.fit(bd.instances(_args_train(), PARSES))
    items = bd.instances(_args_test(), PARSES)
    got = [_labels(inst, model.predict(inst, 0.5)) for inst in items]
    assert got == [
        [("Donor", "Kim"), ("Recipient", "Lee"), ("Theme", "a hat")],
        [("Donor", "Kim"), ("Theme", "a toy"), ("Recipient", "to Ed")],
        [("Weapon", "missiles")],
    ]
    assert model.training["annotation_sets"] == 6 and model.training["fe_heads_reached"] == 14


def test_deppath_threshold_and_one_fe_per_name():
    model = deppath.DepPathArgs.fit(bd.instances(_args_train(), PARSES))
    inst = bd.instances(_args_test(), PARSES)[0]
    props = model.proposals(inst)
    assert [p[0] for p in props] == sorted((p[0] for p in props), reverse=True)
    labels = model.predict(inst, 0.0)
    assert len({lb.name for lb in labels}) == len(labels)
    spans = sorted((lb.start, lb.end) for lb in labels)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert model.predict(inst, 1.01) == []


def test_deppath_skips_unannotated_sets_and_needs_a_parse():
    from dataclasses import replace

    train = [replace(s, status="UNANN") for s in _args_train()]
    model = deppath.DepPathArgs.fit(bd.instances(train, PARSES))
    assert model.training["skipped_unannotated_sets"] == 6 and not model.counts
    with pytest.raises(PyfnError, match="needs a dependency parse"):
        deppath.DepPathArgs.fit(bd.instances(_args_train(), None))


def test_as_scored_merges_fe_ranks():
    s = make_set("a b c", [(0, 0)], [("X", 2, 2)], rank2=[("Y", 4, 4)])
    assert [(lay.name, lay.rank, [lb.name for lb in lay.labels]) for lay in bd.as_scored(s).layers] == [
        ("Target", 1, ["Target"]), ("FE", 1, ["X", "Y"])]
    assert [lay.name for lay in bd.with_frame(s, "Other").layers] == ["Target"]
    assert bd.with_frame(s, "Other").frame_name == "Other"


# --------------------------------------------------------------------------- parses and the data directory


def test_load_parses_checks_alignment(tmp_path):
    sets = _args_train()
    write_split(tmp_path, "train", sets, PARSES)
    parses = bd.load_parses(tmp_path, "train", sets)
    assert parses[GIVE1] == PARSES[GIVE1]
    path = tmp_path / "train.conllu"
    path.write_text(path.read_text(encoding="utf-8").replace("\tAnn\t", "\tAnne\t"), encoding="utf-8")
    with pytest.raises(PyfnError, match=r"train\.conllu: sentence 0, token 1: FORM 'Anne', FrameNet has 'Ann'"):
        bd.load_parses(tmp_path, "train", sets)


def test_load_parses_needs_every_sentence_in_the_sentences_file(tmp_path):
    sets = _args_train()
    write_split(tmp_path, "train", sets[:4], PARSES)
    with pytest.raises(PyfnError, match=r"train\.sentences: no line for the sentence of annotation set \d+"):
        bd.load_parses(tmp_path, "train", sets)
    (tmp_path / "train.sentences").unlink()
    with pytest.raises(PyfnError, match=r"train\.sentences: no such file"):
        bd.load_parses(tmp_path, "train", sets)


@pytest.fixture
def tiny(tmp_path):
    """A data directory (train/dev/test with parses) and its lexicon."""
    data, lex = tmp_path / "data", tmp_path / "lex"
    train = _args_train()
    write_split(data, "train", train, PARSES)
    write_split(data, "dev", _args_test(), PARSES)
    write_split(data, "test", _args_test()[::-1][:2], PARSES)
    write_lexicon(lex, train)
    return data, lex


def _run(tiny, name, out, *extra):
    data, lex = tiny
    return run_cli([name, "--data", str(data), "--lexicon", str(lex), "--target", str(out), "--quiet", *extra])


@pytest.mark.parametrize("name", ["frameid-mff", "frameid-logreg", "args-deppath"])
def test_cli_writes_predictions_and_manifest(tiny, tmp_path, name):
    if name == "frameid-logreg":
        need_sklearn()
    out = tmp_path / "out"
    assert _run(tiny, name, out) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["system"] == name and manifest["seed"] == 0
    assert set(manifest["outputs"]) == {"dev.predicted.xml", "test.predicted.xml"}
    for file, digest in manifest["outputs"].items():
        assert sha256_file(out / file) == digest
    for file, digest in manifest["inputs"].items():
        role, base = file.split("/")
        assert sha256_file(tiny[0 if role == "data" else 1] / base) == digest
    assert "data/train.jsonl" in manifest["inputs"] and "lexicon/lu_frames.tsv" in manifest["inputs"]
    gold = bd.load_sets(tiny[0], "dev")
    pred = list(semeval.read(out / "dev.predicted.xml", log=ProblemLog(strict=True)))
    assert len(pred) == len(gold)
    assert [s.target for s in pred] == [s.target for s in gold]
    if name == "args-deppath":
        assert manifest["model"]["threshold"]["tuned_on"] == "dev"
        assert "lexicon/frames.xml" in manifest["inputs"] and "data/dev.conllu" in manifest["inputs"]
        assert [s.frame_name for s in pred] == [s.frame_name for s in gold]
        assert sorted((lb.name, lb.start, lb.end) for s in pred for lb in s.layer_labels("FE")) == sorted(
            (lb.name, lb.start, lb.end) for s in gold for _, lb in s.overt_fes)
    else:
        assert [s.frame_name for s in pred] == [s.frame_name for s in gold]
        assert not any(s.layer_labels("FE") for s in pred)
        if name == "frameid-logreg":
            assert manifest["model"]["sklearn_version"]
    # a second run gives the same bytes
    again = tmp_path / "again"
    _run(tiny, name, again)
    for file in ("dev.predicted.xml", "test.predicted.xml", "manifest.json"):
        assert (again / file).read_bytes() == (out / file).read_bytes()


def test_cli_refuses_unfinished_data(tiny, tmp_path):
    data, _ = tiny
    (data / "manifest.json").unlink()
    with pytest.raises(PyfnError, match="no manifest.json: not a finished pyfn output"):
        _run(tiny, "frameid-mff", tmp_path / "out")


def test_cli_given_threshold_and_one_split(tiny, tmp_path):
    data, _ = tiny
    (data / "dev.jsonl").unlink()  # not read: no tuning, no dev predictions
    finish(data)
    out = tmp_path / "out"
    _run(tiny, "args-deppath", out, "--splits", "test", "--threshold", "1")
    assert not (out / "dev.predicted.xml").exists()
    pred = list(semeval.read(out / "test.predicted.xml", log=ProblemLog(strict=True)))
    assert [s.sentence.text for s in pred] == [TEST2, TEST3]
    assert [[lb.name for lb in s.layer_labels("FE")] for s in pred] == [["Donor", "Theme", "Recipient"], ["Weapon"]]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["model"]["threshold"] == {"value": 1.0, "tuned_on": None}
    assert not any(name.startswith("data/dev") for name in manifest["inputs"])


@pytest.mark.parametrize("name", ["frameid-logreg", "args-deppath"])
def test_cli_output_does_not_depend_on_the_hash_seed(tiny, tmp_path, name):
    data, lex = tiny
    if name == "frameid-logreg":  # ambiguous and unknown LUs: the classifier decides
        need_sklearn()
        data, lex = _ambiguous_and_unknown(tmp_path)
    code = ("import argparse, sys; from pyfn.cli.baseline import add_parser; p = argparse.ArgumentParser(); "
            "add_parser(p.add_subparsers()); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))")
    for seed in ("1", "2"):
        subprocess.run([sys.executable, "-c", code, "baseline", name, "--data", str(data), "--lexicon", str(lex),
                        "--target", str(tmp_path / seed), "--quiet"], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed})
    for file in ("dev.predicted.xml", "test.predicted.xml", "manifest.json"):
        assert (tmp_path / "1" / file).read_bytes() == (tmp_path / "2" / file).read_bytes()


def test_cli_rerun_replaces_the_previous_run(tiny, tmp_path):
    out = tmp_path / "out"
    _run(tiny, "frameid-mff", out)
    _run(tiny, "frameid-mff", out, "--splits", "test")
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "test.predicted.xml"]
    with pytest.raises(UsageError, match="is the --data directory"):
        _run(tiny, "frameid-mff", tiny[0])


def test_cli_missing_data_file_names_it(tiny, tmp_path):
    data, _ = tiny
    (data / "train.jsonl").unlink()
    finish(data)  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"data/train\.jsonl: no such file"):
        _run(tiny, "frameid-mff", tmp_path / "out")
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_cli_missing_split_file_names_it(tiny, tmp_path):
    (tiny[0] / "test.jsonl").unlink()
    finish(tiny[0])  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"data/test\.jsonl: no such file"):
        _run(tiny, "frameid-mff", tmp_path / "out")
    _run(tiny, "frameid-mff", tmp_path / "out", "--splits", "dev")
    assert (tmp_path / "out" / "dev.predicted.xml").is_file()


def test_cli_missing_lexicon_file_names_it(tiny, tmp_path):
    (tiny[1] / "lu_frames.tsv").unlink()
    finish(tiny[1])  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"lex/lu_frames\.tsv: no such file"):
        _run(tiny, "frameid-mff", tmp_path / "out")


def test_cli_missing_directory(tiny, tmp_path):
    with pytest.raises(PyfnError, match=r"nowhere: no such directory \(--data\)"):
        run_cli(["frameid-mff", "--data", str(tmp_path / "nowhere"), "--lexicon", str(tiny[1]),
                 "--target", str(tmp_path / "out")])


def test_cli_lexicon_must_match_train(tiny, tmp_path):
    path = tiny[1] / "lu_frames.tsv"
    path.write_text(path.read_text(encoding="utf-8") + "other.n\tOther\n", encoding="utf-8")
    finish(path.parent)
    with pytest.raises(PyfnError, match=r"lu_frames\.tsv: LU 'other\.n' has frames \['Other'\] but .*train\.jsonl"):
        _run(tiny, "frameid-mff", tmp_path / "out")


def test_cli_args_needs_parses_and_scorer_lexicon(tiny, tmp_path):
    data, lex = tiny
    (lex / "frames.xml").unlink()
    finish(lex)  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"lex/frames\.xml: no such file"):
        _run(tiny, "args-deppath", tmp_path / "out")
    _run(tiny, "args-deppath", tmp_path / "out", "--threshold", "0.5")  # no tuning: no scorer lexicon needed
    (data / "test.conllu").unlink()
    finish(data)  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"data/test\.conllu: no such file \(args-deppath needs a dependency parse"):
        _run(tiny, "args-deppath", tmp_path / "out", "--threshold", "0.5")


def test_cli_parses_all_or_none(tiny, tmp_path):
    data, _ = tiny
    (data / "dev.conllu").unlink()
    finish(data)  # still a finished output: the inner check speaks
    with pytest.raises(PyfnError, match=r"data/dev\.conllu: no such file \(train\.conllu is there"):
        _run(tiny, "frameid-logreg", tmp_path / "out")
    for split in ("train", "test"):
        (data / f"{split}.conllu").unlink()
        finish(data)  # still a finished output: the inner check speaks
    need_sklearn()
    _run(tiny, "frameid-logreg", tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["model"]["features_from"] == "words only (no preprocessing)"
    assert not any(name.endswith(".conllu") for name in manifest["inputs"])


def test_cli_usage_errors(tiny, tmp_path):
    with pytest.raises(UsageError, match="--threshold goes with args-deppath"):
        _run(tiny, "frameid-mff", tmp_path / "out", "--threshold", "0.5")
    with pytest.raises(UsageError, match="--seed -1"):
        _run(tiny, "frameid-mff", tmp_path / "out", "--seed", "-1")
    with pytest.raises(UsageError, match="--jobs must be >= 0"):
        _run(tiny, "frameid-logreg", tmp_path / "out", "--jobs", "-1")
    with pytest.raises(UsageError, match="--jobs goes with frameid-logreg"):
        _run(tiny, "frameid-mff", tmp_path / "out", "--jobs", "2")
    with pytest.raises(SystemExit):
        _run(tiny, "frameid-nope", tmp_path / "out")


# --------------------------------------------------------------------------- --candidates release


def test_mff_release_rule_for_an_lu_unseen_in_train():
    model = MostFrequentFrame.fit(_mff_train())
    assert model.predict("walk.v") == ("Giving", "pos")  # without the release lexicon: back-off
    release = {"walk.v": frozenset({"Self_motion"}), "give.v": frozenset({"Other", "Giving"}),
               "ask.v": frozenset({"Self_motion", "Reliance", "Unseen"}), "tie.v": frozenset({"Reliance", "Giving"}),
               "new.v": frozenset({"Zz", "Aa"})}
    assert model.predict("walk.v", release) == ("Self_motion", "release")  # its only release frame
    assert model.predict("ask.v", release) == ("Reliance", "release")  # Reliance 3 train sets, Self_motion 2
    assert model.predict("tie.v", release) == ("Giving", "release")  # 3 and 3: code-point order
    assert model.predict("new.v", release) == ("Aa", "release")  # frames unseen in train count 0
    assert model.predict("give.v", release) == ("Giving", "lu")  # seen in train: rule 1 first
    assert model.predict("bank.a", release) == ("Reliance", "lemma")  # not listed: the back-offs
    assert list(model.record(release=True)["rules"]) == ["lu", "release", "lemma", "pos", "global", "ties"]
    assert "release" not in model.record()["rules"]


def test_logreg_release_candidates_restrict_decoding():
    need_sklearn()
    from pyfn.baselines.logreg import LogRegFrameId

    lexicon = {"run.v": frozenset({"Self_motion"}), "bank.n": frozenset({"Relational_natural_features", "Businesses"}),
               **{f"move{i}.v": frozenset({"Other"}) for i in range(3)}}
    model = LogRegFrameId.fit(bd.instances(_logreg_data(), None), lexicon)
    text = "they moved money into the safe place ."  # the context says Other

    def predict(lu, release):
        return model.predict(bd.instances([aset(text, (1, 1), "Self_motion", lu)], None), release)[0]

    assert predict("shift.v", None) == ("Other", "unknown")
    assert predict("shift.v", {"shift.v": frozenset({"Self_motion"})}) == ("Self_motion", "release_single")
    assert predict("shift.v", {"shift.v": frozenset({"Unseen"})}) == ("Unseen", "release_single")
    frame, rule = predict("shift.v", {"shift.v": frozenset({"Self_motion", "Businesses", "Unseen"})})
    assert rule == "release_ambiguous" and frame in {"Self_motion", "Businesses"}
    assert predict("shift.v", {"shift.v": frozenset({"Unseen", "Unseen2"})}) == ("Other", "unknown")
    assert predict("run.v", {"shift.v": frozenset({"Self_motion"})}) == ("Self_motion", "known_single")
    assert predict("run.v", {"run.v": frozenset({"Unseen", "Unseen2"})}) == ("Self_motion", "known_single")
    assert list(model.record(release=True)["decoding"])[:2] == ["release_single", "release_ambiguous"]


@pytest.fixture
def unseen_lu(tmp_path):
    """Data whose dev and test hold an LU absent from train (shift.v, gold Self_motion, in a context that
    says Other) and a lexicon with release_lu_frames.tsv listing it in Self_motion only."""
    data, lex = tmp_path / "udata", tmp_path / "ulex"
    train = _logreg_data()
    write_split(data, "train", train)
    text = "they moved money into the safe place ."
    for split in ("dev", "test"):
        write_split(data, split, [aset(text, (1, 1), "Self_motion", "shift.v"),
                                  aset("he ran home fast .", (1, 1), "Self_motion", "run.v")])
    write_lexicon(lex, train, frames_xml=False)
    (lex / "release_lu_frames.tsv").write_text(
        "bank.n\tBusinesses\tRelational_natural_features\nrun.v\tSelf_motion\nshift.v\tSelf_motion\n", encoding="utf-8")
    finish(lex)
    return data, lex


@pytest.mark.parametrize("name", ["frameid-mff", "frameid-logreg"])
def test_cli_candidates_release_predicts_the_release_frame(unseen_lu, tmp_path, name):
    if name == "frameid-logreg":
        need_sklearn()
    runs = {}
    for how, extra in (("default", []), ("train", ["--candidates", "train"]), ("release", ["--candidates", "release"])):
        _run(unseen_lu, name, tmp_path / how, *extra)
        pred = list(semeval.read(tmp_path / how / "test.predicted.xml", log=ProblemLog(strict=True)))
        runs[how] = ({s.lu_name: s.frame_name for s in pred},
                     json.loads((tmp_path / how / "manifest.json").read_text(encoding="utf-8")))
    assert runs["train"][0]["shift.v"] == "Other"  # the train-only lexicon does not know shift.v
    assert runs["release"][0] == {"shift.v": "Self_motion", "run.v": "Self_motion"}
    # without the option (or with its default) the manifest is what it always was: no trace of it
    for how in ("default", "train"):
        assert (tmp_path / how / "manifest.json").read_bytes() == (tmp_path / "default" / "manifest.json").read_bytes()
        manifest = runs[how][1]
        assert "candidates" not in manifest and "candidates" not in manifest["options"]
        assert "lexicon/release_lu_frames.tsv" not in manifest["inputs"]
        assert not any(r.startswith("release") for r in manifest["predictions"]["test"]["rules_fired"])
    manifest = runs["release"][1]
    digest = sha256_file(unseen_lu[1] / "release_lu_frames.tsv")
    assert manifest["options"]["candidates"] == "release"
    assert manifest["candidates"] == {"choice": "release", "file": "lexicon/release_lu_frames.tsv",
                                      "sha256": digest, "lus": 3, "ambiguous_lus": 1}
    assert manifest["inputs"]["lexicon/release_lu_frames.tsv"] == digest
    fired = manifest["predictions"]["test"]["rules_fired"]
    assert fired == ({"lu": 1, "release": 1, "lemma": 0, "pos": 0, "global": 0} if name == "frameid-mff" else
                     {"release_single": 2, "release_ambiguous": 0, "known_single": 0, "known_ambiguous": 0,
                      "unknown": 0})


def test_cli_candidates_release_needs_the_release_lexicon(tiny, tmp_path):
    with pytest.raises(PyfnError) as err:
        _run(tiny, "frameid-mff", tmp_path / "out", "--candidates", "release")
    message = str(err.value)
    assert "\n" not in message
    assert message.endswith("lex/release_lu_frames.tsv: no such file (--candidates release reads it; write it with "
                            "`pyfn generate ... --release-lexicon`)")
    assert not (tmp_path / "out" / "manifest.json").exists()
    with pytest.raises(UsageError, match="--candidates release goes with frameid-mff and frameid-logreg"):
        _run(tiny, "args-deppath", tmp_path / "out", "--candidates", "release")


def test_cli_logreg_frame_scores(tmp_path):
    """``--frame-scores``: one line per predicted set, every train frame scored, in the predicted file's
    order; the scores re-decoded by lexfilter:train give the predicted frames; same bytes on a rerun; a rerun
    without the option removes the file; other systems refuse it."""
    need_sklearn()
    from collections import Counter  # noqa: PLC0415

    from pyfn.scoring import frame_scores  # noqa: PLC0415
    from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415
    from pyfn.scoring.protocols.lexfilter import decide  # noqa: PLC0415

    data, lex = _ambiguous_and_unknown(tmp_path)
    out, again = tmp_path / "out", tmp_path / "again"
    for target in (out, again):
        assert _run((data, lex), "frameid-logreg", target, "--frame-scores") == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["frame_scores"] is True
    assert sha256_file(out / "test.frame_scores.jsonl") == manifest["outputs"]["test.frame_scores.jsonl"]
    for file in ("test.frame_scores.jsonl", "dev.frame_scores.jsonl", "manifest.json"):
        assert (again / file).read_bytes() == (out / file).read_bytes()
    table = frame_scores.read(out / "test.frame_scores.jsonl")
    pred = list(semeval.read(out / "test.predicted.xml", log=ProblemLog(strict=True)))
    lexicon = read_lu_frames(lex / "lu_frames.tsv")
    seen: dict = {}
    for p in pred:
        key = (p.sentence.id, p.target)
        k = seen.setdefault(key, 0)
        seen[key] += 1
        scores = table[key][k]
        assert set(scores) == {"Other", "Self_motion", "Relational_natural_features", "Businesses"}
        # re-decoded with the train lexicon (bank.n: among its two frames; shift.v: unseen, among all)
        assert decide(scores, lexicon.get(p.lu_name), Counter()) == p.frame_name
    _run((data, lex), "frameid-logreg", out)
    assert not (out / "test.frame_scores.jsonl").exists() and not (out / "dev.frame_scores.jsonl").exists()
    with pytest.raises(UsageError, match="--frame-scores goes with frameid-logreg"):
        _run((data, lex), "frameid-mff", tmp_path / "mff", "--frame-scores")
