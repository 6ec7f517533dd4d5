#!/usr/bin/env python3
"""Scoring FN 1.5 test in each mode vs parsing the two SemEval XML files.

Builds FN 1.5 test gold (frame 398 excluded) and a prediction (the same sets
passed through the BIOS format and back, so targets and spans are token-based),
then times, in this process: reading both files with pyfn's SemEval reader
(the floor), and `pyfn.scoring.score` in every mode, exact and partial,
faithful and corrected. Reports each time as a ratio to the floor.

Usage: python benchmarks/bench_score.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import FN15

from pyfn.convert import convert
from pyfn.errors import ProblemLog
from pyfn.formats import semeval
from pyfn.framenet import open_release
from pyfn.scoring import ScorerLexicon, score
from pyfn.splits.builder import BuildOptions


def _best(func, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        options = BuildOptions(splits=("test",), exclude_frames=frozenset({398}))
        convert(FN15, root / "gold", to="semeval", options=options)
        convert(FN15, root / "bios", to="bios", options=options)
        convert(root / "bios", root / "pred", from_="bios", to="semeval", options=options)
        gold, pred = root / "gold" / "test.gold.xml", root / "pred" / "test.predicted.xml"
        started = time.perf_counter()
        lexicon = ScorerLexicon.from_release(open_release(FN15))
        print(f"lexicon from the release: {time.perf_counter() - started:.2f} s (once)")
        floor = _best(lambda: (list(semeval.read(gold, log=ProblemLog())), list(semeval.read(pred, log=ProblemLog()))))
        print(f"parse both files: {floor:.3f} s")
        for mode in ("semeval", "frames", "argsonly"):
            for exact in (False, True):
                for corrected in (False, True):
                    result = score(gold, pred, lexicon=lexicon, mode=mode, exact=exact, corrected=corrected)
                    seconds = _best(lambda: score(gold, pred, lexicon=lexicon, mode=mode, exact=exact,
                                                  corrected=corrected))
                    print(f"{result.variant:32} F1 {result.f1:.5f}  {seconds:.3f} s  ratio {seconds / floor:.2f}")


if __name__ == "__main__":
    main()
