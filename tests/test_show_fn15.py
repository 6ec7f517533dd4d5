"""``pyfn show`` on FN 1.5 (PYFN_FN15): a kept set, a duplicate and an overlap, from ``fn15_std``'s manifest
(rebuilt through the session's parsed-release cache)."""

import json

from pyfn.cli import main


def _show(fn15, fn15_std, ident, capsys):
    assert main(["show", ident, "--manifest", str(fn15_std.dir), "--source", str(fn15), "--quiet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [match] = report["matches"]
    [item] = match["sets"]
    return item


def test_kept_duplicate_and_overlap(fn15, fn15_std, capsys):
    kept = _show(fn15, fn15_std, "2006802", capsys)
    assert (kept["file"], kept["split"], kept["reason"]) == ("fulltext/ANC__EntrepreneurAsMadonna.xml", "train", "kept")
    assert kept["losses"] == {"jsonl": {}, "semeval": "not written for train", "conllu": {}}
    duplicate = _show(fn15, fn15_std, "2006803", capsys)
    assert (duplicate["split"], duplicate["reason"]) == ("train", "duplicate")
    assert duplicate["counterpart"]["annotation_set"] == 2006802
    overlap = _show(fn15, fn15_std, "1991857", capsys)
    assert (overlap["file"], overlap["split"], overlap["reason"]) == ("fulltext/NTI__Iran_Biological.xml", "train",
                                                                       "overlap:test")
    assert [(s["file"], s["sentence"]) for s in overlap["counterpart"]["sentences"]] == [
        ("fulltext/KBEval__utd-icsi.xml", 1274104)]
