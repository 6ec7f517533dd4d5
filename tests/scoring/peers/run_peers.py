"""Run the peers' own evaluation code on the files ``make_protocol_cases.py`` exported; print JSON.

Runs in a scratch virtual environment outside the repository (numpy, scipy,
nltk, tqdm, transformers; no torch, no allennlp), never under pytest:

    VENV/bin/python run_peers.py --src SRC --framenet FNDATA15_DIR --cases DIR

``SRC`` holds the three repositories, unpacked at their recorded commits, as
``swabhs+open-sesame``, ``hiaoxui+span-finder`` and
``chanind+frame-semantic-transformer``. Only their evaluation functions and
data readers are imported; the modules that need torch or allennlp at import
time for something else get a stub of the one name they import (``Tensor``,
``pad_sequence``, ``Metric``), never a stub of anything the scores use.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import types
from pathlib import Path


def _package(name: str, path: Path) -> None:
    """A package whose ``__init__`` is not run (it imports models), so its submodules import alone."""
    module = types.ModuleType(name)
    module.__path__ = [str(path)]  # type: ignore[attr-defined]
    sys.modules[name] = module


def _stubs() -> None:
    importlib.import_module("transformers").T5Tokenizer  # noqa: B018  (loaded before the stub: it probes torch)
    torch = types.ModuleType("torch")
    torch.Tensor = type("Tensor", (), {})  # type: ignore[attr-defined]
    for name in ("torch.nn", "torch.nn.utils", "torch.nn.utils.rnn"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["torch.nn.utils.rnn"].pad_sequence = None  # type: ignore[attr-defined]
    sys.modules["torch"] = torch

    class Metric:  # allennlp's base class: only its registry decorator is used at import time
        @classmethod
        def register(cls, _name):  # noqa: ANN001, ANN206
            return lambda c: c

    for name in ("allennlp", "allennlp.training", "allennlp.training.metrics"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["allennlp.training.metrics"].Metric = Metric  # type: ignore[attr-defined]


# ------------------------------------------------------------------ Open-SESAME


def sesame(src: Path, framenet: Path, cases: Path, names: list[str]) -> dict:
    work = Path(tempfile.mkdtemp())
    (work / "configurations").mkdir()
    (work / "data").mkdir()
    os.symlink(framenet, work / "data" / "fndata-1.5")
    (work / "configurations" / "global_config.json").write_text(json.dumps({
        "version": 1.5, "data_directory": str(work / "data") + "/", "embeddings_file": "none.txt",
        "debug_mode": False, "argid_lr": 0.0005}))
    os.chdir(work)
    sys.path.insert(0, str(src / "swabhs+open-sesame"))
    conll09 = importlib.import_module("sesame.conll09")
    dataio = importlib.import_module("sesame.dataio")
    evaluation = importlib.import_module("sesame.evaluation")
    globalconfig = importlib.import_module("sesame.globalconfig")
    _, corefrmfemap, _ = dataio.read_frame_maps()
    out = {}
    for name in names:
        gold, _, _ = dataio.read_conll(str(cases / f"{name}.sesame.gold.conll"))
        pred, _, _ = dataio.read_conll(str(cases / f"{name}.sesame.pred.conll"))
        predfes = [ex.invertedfes for ex in pred]  # as evaluation.py's __main__
        with open(os.devnull, "w") as logger:
            res = evaluation.evaluate_corpus_argid(gold, predfes, corefrmfemap,
                                                   conll09.FEDICT.getid(globalconfig.EMPTY_FE), logger)
        up, ur, uf, lp, lr, lf, wp, wr, wf, ures, lres, wres = res
        out[name] = {
            "labeled": {"precision": lp, "recall": lr, "f1": lf, "tp_fp_fn": [float(x) for x in lres]},
            "unlabeled": {"precision": up, "recall": ur, "f1": uf, "tp_fp_fn": [float(x) for x in ures]},
            "token": {"precision": wp, "recall": wr, "f1": wf, "tp_fp_fn": [float(x) for x in wres]},
            "examples": len(gold),
        }
    return out


# ------------------------------------------------------------------ span-finder


def spanfinder(src: Path, cases: Path, names: list[str]) -> dict:
    root = src / "hiaoxui+span-finder" / "sftp"
    _package("sftp", root)
    _package("sftp.utils", root / "utils")
    _package("sftp.metrics", root / "metrics")
    functions = importlib.import_module("sftp.utils.functions")
    span = importlib.import_module("sftp.utils.span")
    sys.modules["sftp.utils"].Span = span.Span  # type: ignore[attr-defined]
    sys.modules["sftp.utils"].max_match = functions.max_match  # type: ignore[attr-defined]
    srl = importlib.import_module("sftp.metrics.srl_metrics")
    out = {}
    for name in names:
        metric = srl.SRLMetric()
        removed = 0
        for line in (cases / f"{name}.spanfinder.jsonl").read_text().splitlines():
            item = json.loads(line)
            gold = span.Span.from_json(item["gold"])
            removed += gold.remove_overlapping()  # SpanReader.prepare_inputs
            pred = span.Span.from_json(item["pred"])
            pred.remove_overlapping()  # SpanModel.forward, before the metrics
            metric(pred, gold)
        counts = {m.prefix: [m.tp, m.fp, m.fn] for m in (metric.tri_i, metric.tri_c, metric.arg_i, metric.arg_c)}
        out[name] = {"metric": metric.get_metric(True), "tp_fp_fn": counts, "gold_spans_removed": removed}
    return out


# ------------------------------------------------------------------ frame-semantic-transformer


def fst(src: Path, framenet: Path, cases: Path, names: list[str]) -> dict:
    import nltk  # noqa: PLC0415
    from nltk.corpus.reader.framenet import FramenetCorpusReader  # noqa: PLC0415

    nltk.data.path.append(str(framenet.parent))  # NLTK >= 3.9 reads corpora only from its data path

    root = src / "chanind+frame-semantic-transformer" / "frame_semantic_transformer"
    sys.path.insert(0, str(root.parent))
    _package("frame_semantic_transformer", root)
    _package("frame_semantic_transformer.data", root / "data")
    _package("frame_semantic_transformer.data.tasks", root / "data" / "tasks")
    _package("frame_semantic_transformer.data.loaders", root / "data" / "loaders")
    _package("frame_semantic_transformer.data.augmentations", root / "data" / "augmentations")
    _package("frame_semantic_transformer.data.loaders.framenet17", root / "data" / "loaders" / "framenet17")
    sample_mod = importlib.import_module("frame_semantic_transformer.data.tasks.ArgumentsExtractionSample")
    task_mod = importlib.import_module("frame_semantic_transformer.data.tasks.ArgumentsExtractionTask")
    types_mod = importlib.import_module("frame_semantic_transformer.data.frame_types")
    cache_mod = importlib.import_module("frame_semantic_transformer.data.LoaderDataCache")
    loader_mod = importlib.import_module(
        "frame_semantic_transformer.data.loaders.framenet17.Framenet17InferenceLoader")
    loader_mod.fn = FramenetCorpusReader(str(framenet), [])  # FN 1.5 in place of NLTK's FN 1.7 download
    cache = cache_mod.LoaderDataCache(loader_mod.Framenet17InferenceLoader())

    def sample(text, trigger_loc, frame, fes):  # noqa: ANN001, ANN202
        return sample_mod.ArgumentsExtractionSample(
            task=task_mod.ArgumentsExtractionTask(text=text, trigger_loc=trigger_loc, frame=frame,
                                                  loader_cache=cache),
            frame_elements=[types_mod.FrameElementAnnotation(name=n, start_loc=s, end_loc=e) for s, e, n in fes])

    out = {}
    for name in names:
        tp = fp = fn = 0.0
        tasks = 0
        for line in (cases / f"{name}.fst.jsonl").read_text().splitlines():
            item = json.loads(line)
            for loc in item["trigger_locs"]:  # tasks_from_annotated_sentences: one args task per trigger loc
                gold = sample(item["text"], loc, item["frame"], item["gold"])
                pred = sample(item["text"], loc, item["frame"], item["pred"] or [])
                t, p, n = sample_mod.ArgumentsExtractionSample.evaluate_prediction(
                    [pred.get_target()], gold.get_target(), gold.task.get_input(), cache)
                tp, fp, fn = tp + t, fp + p, fn + n
                tasks += 1
        p_, r_, f_ = _fst_metrics(tp, fp, fn, src)
        out[name] = {"precision": p_, "recall": r_, "f_score": f_, "tp_fp_fn": [tp, fp, fn], "tasks": tasks}
    return out


def _fst_metrics(tp: float, fp: float, fn: float, src: Path) -> tuple[float, float, float]:
    """``calc_eval_metrics`` of ``training/evaluate_batch.py`` (its module imports the model; run its source)."""
    path = src / "chanind+frame-semantic-transformer" / "frame_semantic_transformer" / "training" / "evaluate_batch.py"
    text = path.read_text()
    start = text.index("def calc_eval_metrics")
    end = text.index("\n\n\n", start)
    namespace: dict = {}
    exec(compile("from __future__ import annotations\n" + text[start:end], str(path), "exec"), namespace)  # noqa: S102
    scores = types.SimpleNamespace(true_pos=tp, false_pos=fp, false_neg=fn)
    res = namespace["calc_eval_metrics"](scores)
    return res["precision"], res["recall"], res["f_score"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", required=True, type=Path)
    parser.add_argument("--framenet", required=True, type=Path)
    parser.add_argument("--cases", required=True, type=Path)
    parser.add_argument("--names", nargs="+", required=True)
    args = parser.parse_args()
    _stubs()
    src, framenet, cases = args.src.resolve(), args.framenet.resolve(), args.cases.resolve()
    result = {
        "spanfinder": spanfinder(src, cases, args.names),
        "fst": fst(src, framenet, cases, args.names),
        "sesame": sesame(src, framenet, cases, args.names),  # last: it changes the working directory
    }
    print(json.dumps(result, indent=1, default=lambda x: x.item()))  # numpy scalars as Python numbers
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
