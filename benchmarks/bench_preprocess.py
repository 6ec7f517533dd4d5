#!/usr/bin/env python3
"""spaCy preprocessing: pyfn's backend against spaCy's own ``nlp.pipe``, parallel speed-up, cache hits.

One run of this script, on every FN 1.5 fulltext sentence (train, dev, test;
frame 398 excluded), pre-tokenized as FrameNet tokenizes:
(1) spaCy's own ``nlp.pipe`` over ``Doc(vocab, words=...)`` (same components,
model already loaded): the reference throughput in words/s;
(2) pyfn's runner with ``--jobs 1`` (model loaded beforehand, like (1)):
throughput and its ratio to (1) (target >= 0.9);
(3) the same with ``--jobs 2`` (workers load their own model: counted): speed-up over (2);
(4) ``pyfn preprocess`` on the converted directory, cold (empty cache, model
load included) and again with the cache filled: the hit's cost as a share of
the cold run (target < 5 %), for the analysis step and for the whole command.

Usage: python benchmarks/bench_preprocess.py [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _common import FN15

from pyfn.convert import convert
from pyfn.formats.base import read_sentences
from pyfn.preprocess.base import BackendOptions, create
from pyfn.preprocess.cache import ParseCache
from pyfn.preprocess.directory import preprocess_directory
from pyfn.preprocess.runner import PreprocessOptions, analyse_split
from pyfn.preprocess.spacy_backend import BATCH, EXCLUDE
from pyfn.splits.builder import BuildOptions


def _spacy_pipe(package: str, sentences: list[list[str]]) -> float:
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.load(package, exclude=list(EXCLUDE))
    nlp(Doc(nlp.vocab, words=["warm", "up"]))
    start = time.perf_counter()
    for _ in nlp.pipe((Doc(nlp.vocab, words=words) for words in sentences), batch_size=BATCH):
        pass
    return time.perf_counter() - start


def _pyfn(sentences: list[list[str]], jobs: int) -> float:
    backend = create("spacy", BackendOptions())
    if jobs == 1:
        backend.analyse([["warm", "up"]])  # loads the model, as (1) has it loaded
    start = time.perf_counter()
    analyse_split("all", sentences, PreprocessOptions(jobs=jobs, cache_dir=None), backend, None)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="runs of (1)-(3), best kept (default 2)")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "fn15"
        convert(FN15, data, to="semafor", options=BuildOptions(exclude_frames=frozenset({398})))
        sentences = [s.split() for split in ("train", "dev", "test") for s in read_sentences(data / f"{split}.sentences")]
        words = sum(map(len, sentences))
        package = create("spacy", BackendOptions()).package
        pipe = min(_spacy_pipe(package, sentences) for _ in range(rounds))
        one = min(_pyfn(sentences, 1) for _ in range(rounds))
        two = min(_pyfn(sentences, 2) for _ in range(rounds))

        cache = Path(tmp) / "cache"
        options = PreprocessOptions(cache_dir=cache)
        start = time.perf_counter()
        _, _, cold_record = preprocess_directory(data, options)
        cold_cmd = time.perf_counter() - start
        start = time.perf_counter()
        _, _, hit_record = preprocess_directory(data, options)
        hit_cmd = time.perf_counter() - start
        assert all(r["cache"] == "miss" for r in cold_record["splits"].values())
        assert all(r["cache"] == "hit" for r in hit_record["splits"].values())
        dev = [s.split() for s in read_sentences(data / "train.sentences")]
        start = time.perf_counter()
        analyse_split("train", dev, PreprocessOptions(cache_dir=None), create("spacy", BackendOptions()), None)
        cold_step = time.perf_counter() - start
        step_cache = ParseCache(Path(tmp) / "step")
        analyse_split("train", dev, options, create("spacy", BackendOptions()), step_cache)
        start = time.perf_counter()
        analyse_split("train", dev, options, create("spacy", BackendOptions()), step_cache)
        hit_step = time.perf_counter() - start

    print(f"FN 1.5 fulltext: {len(sentences):,} sentences, {words:,} words; spaCy model {package}")
    print(f"(1) spaCy nlp.pipe on pre-tokenized Docs: {pipe:.2f} s, {words / pipe:,.0f} words/s")
    print(f"(2) pyfn --jobs 1: {one:.2f} s, {words / one:,.0f} words/s, {pipe / one:.2f} of nlp.pipe (target >= 0.9)")
    print(f"(3) pyfn --jobs 2: {two:.2f} s, {words / two:,.0f} words/s, speed-up {one / two:.2f}x over --jobs 1")
    print(f"(4) cache hit: analysis of train {hit_step:.3f} s vs cold {cold_step:.2f} s "
          f"({100 * hit_step / cold_step:.1f} %, target < 5 %); whole `pyfn preprocess` {hit_cmd:.2f} s vs "
          f"{cold_cmd:.2f} s ({100 * hit_cmd / cold_cmd:.1f} %, outputs rewritten both times)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
