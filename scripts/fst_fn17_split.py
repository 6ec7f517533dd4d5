#!/usr/bin/env python3
"""Write, as a `pyfn audit` JSON of annotation-set ids, the FN 1.7 split that frame-semantic-transformer
(chanind/frame-semantic-transformer, commit c16afa8) trains and evaluates on.

Its loader (`frame_semantic_transformer/data/loaders/framenet17/Framenet17TrainingLoader.py`) reads
FrameNet 1.7 through NLTK and splits by document with Open-SESAME's lists
(`sesame_data_splits.py`, copied from swabhs/open-sesame `sesame/globalconfig.py`; the document names
below are those lists, and equal pyfn's `resources/splits/fn1.7/{dev,test}.txt`):

- dev and test: every annotated sentence of the listed documents; train: every other document's;
- with `include_exemplars=True`, train also gets every exemplar sentence whose text is not exactly
  (character for character) the text of an annotated fulltext sentence of any document.

It removes nothing else: no normalised-text check between splits, no duplicate removal. Here the sets
are those pyfn reads (SPLITS.md steps 1-2: frame annotation sets with a usable, valid target), which
stands for the loader's "has FE, Target and frame" test (the loader instead drops a whole sentence
when a target starts past its end).

Usage: python scripts/fst_fn17_split.py RELEASE.zip OUT.json [--with-exemplars]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pyfn.fileio import write_text
from pyfn.formats import jsonl
from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.release import open_release
from pyfn.splits.builder import parsed_files

SESAME_DEV_FILES = frozenset({
    "ANC__110CYL072.xml", "KBEval__MIT.xml", "LUCorpus-v0.3__20000415_apw_eng-NEW.xml",
    "LUCorpus-v0.3__ENRON-pearson-email-25jul02.xml", "Miscellaneous__Hijack.xml",
    "NTI__NorthKorea_NuclearOverview.xml", "NTI__WMDNews_062606.xml", "PropBank__TicketSplitting.xml",
})
SESAME_TEST_FILES = frozenset({
    "ANC__110CYL067.xml", "ANC__110CYL069.xml", "ANC__112C-L013.xml", "ANC__IntroHongKong.xml",
    "ANC__StephanopoulosCrimes.xml", "ANC__WhereToHongKong.xml", "KBEval__atm.xml", "KBEval__Brandeis.xml",
    "KBEval__cycorp.xml", "KBEval__parc.xml", "KBEval__Stanford.xml", "KBEval__utd-icsi.xml",
    "LUCorpus-v0.3__20000410_nyt-NEW.xml", "LUCorpus-v0.3__AFGP-2002-602187-Trans.xml",
    "LUCorpus-v0.3__enron-thread-159550.xml", "LUCorpus-v0.3__IZ-060316-01-Trans-1.xml",
    "LUCorpus-v0.3__SNO-525.xml", "LUCorpus-v0.3__sw2025-ms98-a-trans.ascii-1-NEW.xml",
    "Miscellaneous__Hound-Ch14.xml", "Miscellaneous__SadatAssassination.xml", "NTI__NorthKorea_Introduction.xml",
    "NTI__Syria_NuclearOverview.xml", "PropBank__AetnaLifeAndCasualty.xml",
})


def _raw_texts(record) -> dict[int, str]:
    """Sentence id -> the sentence's text as the XML has it (the record's own column is right-stripped)."""
    texts: dict[int, str] = {}
    _, sent_ids, *_, lines = record.sets
    for sent_id, line in zip(sent_ids, lines):
        if sent_id not in texts:
            texts[sent_id] = jsonl.loads(line).sentence.text
    return texts


def main(source: str, out: str, with_exemplars: bool) -> None:
    release = open_release(source)
    cache = ReleaseCache.under()
    split: dict[str, dict[str, list[int]]] = {"train": {"fulltext": []}, "dev": {"fulltext": []},
                                              "test": {"fulltext": []}}
    fulltext_texts: set[str] = set()
    for record in parsed_files(release, "fulltext", cache=cache):
        name = record.path.rsplit("/", 1)[-1]
        where = "test" if name in SESAME_TEST_FILES else "dev" if name in SESAME_DEV_FILES else "train"
        split[where]["fulltext"] += record.sets[0]
        fulltext_texts.update(_raw_texts(record).values())
    if with_exemplars:
        exemplars = []
        for record in parsed_files(release, "lu", cache=cache):
            texts = _raw_texts(record)
            exemplars += [i for i, s in zip(record.sets[0], record.sets[1]) if texts[s] not in fulltext_texts]
        split["train"]["exemplar"] = exemplars
    missing = sorted((SESAME_DEV_FILES | SESAME_TEST_FILES) - {p.rsplit("/", 1)[-1] for p in release.list("fulltext")})
    result = {"id_kind": "annoset"} | {name: {k: sorted(set(v)) for k, v in by.items()} for name, by in split.items()}
    write_text(Path(out), json.dumps(result, indent=0) + "\n")
    counts = {name: {k: len(v) for k, v in by.items()} for name, by in result.items() if name != "id_kind"}
    print(f"{out}: {counts}; documents of the lists missing from {source}: {missing or 'none'}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--with-exemplars"]):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:] == ["--with-exemplars"])
