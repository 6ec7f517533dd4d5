"""Train a baseline and write its predictions: :func:`run_baseline`, what ``pyfn baseline`` calls.

``DATA`` is a ``pyfn convert --to jsonl semeval [conllu --preprocess spacy]`` directory, ``LEX`` the
``pyfn generate`` directory of the same build (``lu_frames.tsv``; ``frames.xml`` and
``frRelations.xml`` for tuning ``args-deppath``). Only ``train.jsonl`` (and its parse) trains a model;
dev is read for predictions and, by ``args-deppath``, to tune one threshold (recorded).

``--candidates release`` (frame identification only) also reads ``LEX/release_lu_frames.tsv``
(``pyfn generate --release-lexicon``: every LU of the release's frame files) and restricts decoding
with it, as parsers such as Open-SESAME do; training is unchanged. The manifest records the choice
and the file's sha256 only then, so that runs without the option write the manifest they always did.

``--frame-scores`` (frameid-logreg only) also writes ``OUT/{split}.frame_scores.jsonl``
(:mod:`pyfn.scoring.frame_scores`): the classifier's score of every train frame for every target, before
any decoding rule, for the ``lexfilter:*`` protocols of ``pyfn score``. Predictions are unchanged; the
manifest lists the files and records the option only then.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pyfn import __version__
from pyfn.baselines import data as bd
from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import locked_directory, sha256_file
from pyfn.manifest import MANIFEST, check_finished, read_manifest, write_manifest
from pyfn.model import AnnotationSet
from pyfn.scoring import frame_scores as frame_scores_file
from pyfn.workers import job_count

SYSTEMS = {
    "frameid-mff": "frame identification: most frequent train frame per LU, with back-off (pyfn.baselines.mff)",
    "frameid-logreg": "frame identification: logistic regression over sparse lexical, context and dependency "
                      "features, decoding restricted to the train lexicon (pyfn.baselines.logreg)",
    "args-deppath": "argument identification given gold frames: FE per dependency path from the target, "
                    "counted on train (pyfn.baselines.args)",
}
EVAL_SPLITS = ("dev", "test")
CANDIDATES = ("train", "release")
"""``--candidates``: the train-only lexicon only, or the release lexicon first (frame identification)."""
FRAMEID = ("frameid-mff", "frameid-logreg")
RELEASE_LEXICON = "release_lu_frames.tsv"
Candidates = Mapping[str, frozenset[str]] | None
"""The release lexicon of ``--candidates release`` (LU name -> frames), or None."""


class Options(NamedTuple):
    """The options of a baseline run (``pyfn baseline``'s, as keywords of :func:`run_baseline`)."""

    seed: int = 0
    threshold: float | None = None
    candidates: str = "train"
    frame_scores: bool = False
    jobs: int | None = None


class Trained(NamedTuple):
    """What :func:`run_baseline` wrote: the manifest (also in ``target/manifest.json``) and a one-line summary
    of the training (counts, rules, tuned threshold, seconds)."""

    manifest: dict[str, Any]
    summary: str
    seconds: float


def run_baseline(name: str, data: str | Path, lexicon: str | Path, target: str | Path, *,
                 splits: Sequence[str] = EVAL_SPLITS, seed: int = 0, threshold: float | None = None,
                 candidates: str = "train", frame_scores: bool = False, jobs: int | None = None) -> Trained:
    """Train the baseline ``name`` (a key of :data:`SYSTEMS`) on ``data``'s train split with ``lexicon``'s
    train-only lexicon, write ``target/{split}.predicted.xml`` for each of ``splits`` (dev, test) and
    ``target/manifest.json`` last. The options are ``pyfn baseline``'s: ``seed`` (frameid-logreg),
    ``threshold`` (args-deppath; None: tuned on dev), ``candidates`` (``train`` or ``release``; frame
    identification), ``frame_scores`` (frameid-logreg), ``jobs`` (frameid-logreg's threads; None: one per core)."""
    started = time.perf_counter()
    if name not in SYSTEMS:
        raise UsageError(f"unknown baseline {name!r} (known: {', '.join(SYSTEMS)})")
    unknown = [split for split in splits if split not in EVAL_SPLITS]
    if unknown:
        raise UsageError(f"unknown split {', '.join(unknown)} (known: {', '.join(EVAL_SPLITS)})")
    splits = [s for s in EVAL_SPLITS if s in splits]
    options = Options(seed, threshold, candidates, frame_scores, jobs)
    _check_options(name, options)
    given = {"data": str(data), "lexicon": str(lexicon)}  # recorded as given
    data, lexicon_dir, target = Path(data), Path(lexicon), Path(target)
    for role, directory in (("--data", data), ("--lexicon", lexicon_dir)):
        if not directory.is_dir():
            raise PyfnError(f"{directory}: no such directory ({role})")
        if target.resolve() == directory.resolve():
            raise UsageError(f"--target {target} is the {role} directory; write predictions elsewhere")
        check_finished(directory)  # a directory without a (matching) manifest is not a result to train on
    inputs = bd.Inputs()
    lu_frames = _lexicon(lexicon_dir, inputs)
    release = _release_lexicon(lexicon_dir, inputs) if candidates == "release" else None
    train = bd.load_sets(data, "train", inputs)
    _check_lexicon(lu_frames, train, data / "train.jsonl", lexicon_dir / "lu_frames.tsv")
    gold = {split: bd.load_sets(data, split, inputs) for split in splits}
    result = _SYSTEMS[name](options, data, lexicon_dir, lu_frames, train, gold, inputs, candidates=release)
    outputs: dict[str, str] = {}
    with locked_directory(target):
        _forget_previous_run(target)
        for split in splits:
            path = bd.write_predictions(target, split, result["predictions"][split], gold[split])
            outputs[path.name] = sha256_file(path)
            if frame_scores:
                scores = target / f"{split}.{frame_scores_file.SUFFIX}"
                outputs[scores.name] = frame_scores_file.write(scores, result["predictions"][split],
                                                               result["scores"][split], gold[split])
        manifest = {
            "pyfn_version": __version__,
            "command": "baseline",
            "system": name,
            "description": SYSTEMS[name],
            "options": {
                **given,
                "splits": splits,
                "seed": seed,
                "threshold": threshold,
                **({"candidates": candidates} if release is not None else {}),
                **({"frame_scores": True} if frame_scores else {}),
            },
            **({"candidates": _candidates_record(lexicon_dir, release)} if release is not None else {}),
            "seed": seed,
            "model": result["model"],
            "predictions": {
                split: {
                    "annotation_sets": len(result["predictions"][split]),
                    "sentences": len({s.sentence.text.rstrip() for s in gold[split]}),
                    **result["per_split"].get(split, {}),
                }
                for split in splits
            },
            "inputs": inputs.record(),
            "outputs": dict(sorted(outputs.items())),
        }
        write_manifest(target, manifest)
    return Trained(manifest, result["summary"], time.perf_counter() - started)


def _check_options(name: str, options: Options) -> None:
    """Refuse an option that ``name`` does not take, or a value out of range."""
    if options.threshold is not None:
        if name != "args-deppath":
            raise UsageError("--threshold goes with args-deppath")
        if not 0.0 <= options.threshold <= 1.0:
            raise UsageError(f"--threshold {options.threshold}: must lie between 0 and 1")
    if options.jobs is not None and name != "frameid-logreg":
        raise UsageError("--jobs goes with frameid-logreg (the one baseline that trains in threads)")
    if options.jobs is not None and options.jobs < 0:
        raise UsageError("--jobs must be >= 0")
    if not 0 <= options.seed < 2**32:
        raise UsageError(f"--seed {options.seed}: must lie between 0 and 2**32 - 1")
    if options.candidates not in CANDIDATES:
        raise UsageError(f"--candidates {options.candidates}: unknown (known: {', '.join(CANDIDATES)})")
    if options.candidates != "train" and name not in FRAMEID:
        raise UsageError(f"--candidates {options.candidates} goes with {' and '.join(FRAMEID)}")
    if options.frame_scores and name != "frameid-logreg":
        raise UsageError("--frame-scores goes with frameid-logreg (the one baseline that scores every frame)")


# --------------------------------------------------------------------------- shared checks


def _forget_previous_run(target: Path) -> None:
    """Remove the manifest of an earlier run into ``target`` (a directory without one is not a finished
    run) and the predictions it lists, so that no stale file outlives it."""
    try:
        previous = read_manifest(target)
    except ValueError:  # not JSON: not ours to interpret, removed all the same
        previous = None
    (target / MANIFEST).unlink(missing_ok=True)
    if previous and previous.get("command") == "baseline":
        for name in previous.get("outputs", {}):
            if name in {f"{split}.{suffix}" for split in EVAL_SPLITS
                        for suffix in ("predicted.xml", frame_scores_file.SUFFIX)}:
                (target / name).unlink(missing_ok=True)


def _lexicon(directory: Path, inputs: bd.Inputs) -> dict[str, frozenset[str]]:
    from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415

    path = bd.need(directory / "lu_frames.tsv", "write it with `pyfn generate`")
    lu_frames = read_lu_frames(path)
    inputs.add("lexicon", path)
    return lu_frames


def _release_lexicon(directory: Path, inputs: bd.Inputs) -> dict[str, frozenset[str]]:
    """``release_lu_frames.tsv`` of ``--candidates release`` (LU name -> its frames in the release)."""
    from pyfn.scoring.frameid import read_lu_frames  # noqa: PLC0415

    path = bd.need(directory / RELEASE_LEXICON,
                   "--candidates release reads it; write it with `pyfn generate ... --release-lexicon`")
    candidates = read_lu_frames(path)
    inputs.add("lexicon", path)
    return candidates


def _candidates_record(directory: Path, candidates: Mapping[str, frozenset[str]]) -> dict[str, Any]:
    """What the manifest says about ``--candidates release``: the file read, its sha256 and size."""
    return {
        "choice": "release",
        "file": f"lexicon/{RELEASE_LEXICON}",
        "sha256": sha256_file(directory / RELEASE_LEXICON),
        "lus": len(candidates),
        "ambiguous_lus": sum(1 for frames in candidates.values() if len(frames) > 1),
    }


def _check_lexicon(lu_frames: Mapping[str, frozenset[str]], train: Sequence[AnnotationSet], train_path: Path,
                   lexicon_path: Path) -> None:
    """The train-only lexicon must be the LUs and frames of the train split the baselines learn from."""
    seen: dict[str, set[str]] = {}
    for aset in train:
        seen.setdefault(aset.lu_name, set()).add(aset.frame_name)
    for lu in sorted(set(seen) | set(lu_frames)):
        here, there = sorted(seen.get(lu, ())), sorted(lu_frames.get(lu, ()))
        if here != there:
            raise PyfnError(
                f"{lexicon_path}: LU {lu!r} has frames {there or 'none'} but {train_path} gives {here or 'none'}; "
                "build DATA and LEX from the same release with the same options"
            )


def _parses(data: Path, splits: Sequence[str], sets: Mapping[str, Sequence[AnnotationSet]], inputs: bd.Inputs,
            *, required: bool) -> dict[str, dict[str, bd.Parse] | None]:
    """The parse of each split, all present or all absent (``required``: present, with heads)."""
    present = {split: (data / f"{split}.conllu").is_file() for split in splits}
    if required or any(present.values()):
        for split in splits:
            if not present[split]:
                why = ("args-deppath needs a dependency parse: `pyfn convert ... --preprocess spacy`" if required
                       else f"{next(s for s in splits if present[s])}.conllu is there: preprocess every split or none")
                bd.need(data / f"{split}.conllu", why)
    out = {split: bd.load_parses(data, split, sets[split], inputs) for split in splits}
    with_heads = {split: bd.has_heads(out[split]) for split in splits}
    if required or len(set(with_heads.values())) > 1:
        for split in splits:
            if not with_heads[split]:
                raise PyfnError(f"{data / f'{split}.conllu'}: no dependency parse (HEAD is empty)"
                                + ("; args-deppath needs one" if required else "; the other splits have one"))
    return out


# --------------------------------------------------------------------------- systems


def _mff(options: Options, data: Path, lexicon_dir: Path, lu_frames: Mapping[str, frozenset[str]],
         train: Sequence[AnnotationSet], gold: Mapping[str, Sequence[AnnotationSet]], inputs: bd.Inputs,
         candidates: Candidates = None) -> dict:
    from pyfn.baselines.mff import MostFrequentFrame  # noqa: PLC0415

    model = MostFrequentFrame.fit(train)
    fired = ("lu", "release", "lemma", "pos", "global") if candidates is not None else ("lu", "lemma", "pos", "global")
    predictions, per_split = {}, {}
    for split, sets in gold.items():
        rules: Counter = Counter()
        preds = []
        for aset in sets:
            frame, rule = model.predict(aset.lu_name, candidates)
            rules[rule] += 1
            preds.append(bd.with_frame(aset, frame))
        predictions[split] = preds
        per_split[split] = {"rules_fired": {rule: rules[rule] for rule in fired}}
    record = model.record(release=candidates is not None)
    return {
        "model": record,
        "predictions": predictions,
        "per_split": per_split,
        "summary": f"{record['training']['annotation_sets']:,} train sets, {record['training']['lus']:,} LUs",
    }


def _logreg(options: Options, data: Path, lexicon_dir: Path, lu_frames: Mapping[str, frozenset[str]],
            train: Sequence[AnnotationSet], gold: Mapping[str, Sequence[AnnotationSet]], inputs: bd.Inputs,
            candidates: Candidates = None) -> dict:
    from pyfn.baselines.logreg import LogRegFrameId  # noqa: PLC0415

    splits = ["train", *gold]
    parses = _parses(data, splits, {"train": train, **gold}, inputs, required=False)
    started = time.perf_counter()
    model = LogRegFrameId.fit(bd.instances(train, parses["train"]), lu_frames, seed=options.seed,
                              jobs=job_count(options.jobs or 0, len({aset.frame_name for aset in train})))
    seconds = time.perf_counter() - started
    fired = ("known_single", "known_ambiguous", "unknown")
    if candidates is not None:
        fired = ("release_single", "release_ambiguous", *fired)
    predictions, per_split, scores = {}, {}, {}
    for split, sets in gold.items():
        items = bd.instances(sets, parses[split])
        decided = model.predict(items, candidates)
        predictions[split] = [bd.with_frame(aset, frame) for aset, (frame, _) in zip(sets, decided, strict=True)]
        if options.frame_scores:
            scores[split] = model.scores(items)
        rules = Counter(rule for _, rule in decided)
        per_split[split] = {"rules_fired": {r: rules[r] for r in fired}}
    record = model.record(release=candidates is not None)
    parse = parses["train"]
    record["features_from"] = ("words, lemmas, POS and dependency parse" if bd.has_heads(parse)
                               else "words, lemmas and POS" if parse is not None else "words only (no preprocessing)")
    return {
        "model": record,
        "predictions": predictions,
        "per_split": per_split,
        "scores": scores,
        "summary": f"trained on {model.n_train:,} train sets ({len(model.classes):,} frames, "
                   f"{record['training']['features']:,} features; {record['features_from']}) in {seconds:.1f} s",
    }


def _args(options: Options, data: Path, lexicon_dir: Path, lu_frames: Mapping[str, frozenset[str]],
          train: Sequence[AnnotationSet], gold: Mapping[str, Sequence[AnnotationSet]], inputs: bd.Inputs,
          candidates: Candidates = None) -> dict:
    from pyfn.baselines import args as deppath  # noqa: PLC0415

    sets = {"train": train, **gold}
    tune = options.threshold is None
    if tune and "dev" not in sets:
        sets["dev"] = bd.load_sets(data, "dev", inputs)
    scorer_lexicon = _scorer_lexicon(lexicon_dir, inputs) if tune else None
    parses = _parses(data, list(sets), sets, inputs, required=True)
    items = {split: bd.instances(sets[split], parses[split]) for split in sets}
    model = deppath.DepPathArgs.fit(items["train"])
    proposals = {split: [model.proposals(inst) for inst in items[split]] for split in sets if split != "train"}
    record = model.record()
    if tune:
        threshold, grid = _tune(model, items["dev"], proposals["dev"], sets["dev"], scorer_lexicon)
        record["threshold"] = {"value": threshold, "tuned_on": "dev",
                               "criterion": "argsonly F1 (ties: lower threshold)", "dev_grid": grid}
        dev_f1 = next(g["f1"] for g in grid if g["threshold"] == threshold)
        summary = f"threshold {threshold:g} tuned on dev (argsonly F1 {dev_f1:.4f})"
    else:
        threshold = options.threshold
        record["threshold"] = {"value": threshold, "tuned_on": None}
        summary = f"threshold {threshold:g} (given)"
    predictions, per_split = {}, {}
    for split in gold:
        preds = [bd.with_fes(inst.aset, model.predict(inst, threshold, props))
                 for inst, props in zip(items[split], proposals[split], strict=True)]
        predictions[split] = preds
        per_split[split] = {"fe_labels": sum(len(p.layer_labels("FE")) for p in preds)}
    return {
        "model": record,
        "predictions": predictions,
        "per_split": per_split,
        "summary": f"{record['training']['annotation_sets']:,} annotated train sets, {summary}",
    }


def _scorer_lexicon(directory: Path, inputs: bd.Inputs) -> Any:
    """The scorer lexicon of ``pyfn generate``'s frames.xml and frRelations.xml (recorded as inputs)."""
    from pyfn.scoring.scorer_lexicon import scorer_lexicon  # noqa: PLC0415

    frames = bd.need(directory / "frames.xml", "written by `pyfn generate`; needed to tune the threshold on dev")
    relations = bd.need(directory / "frRelations.xml", "written by `pyfn generate`; needed to tune the threshold")
    lexicon, _ = scorer_lexicon(frames=frames, relations=relations)
    inputs.add("lexicon", frames)
    inputs.add("lexicon", relations)
    return lexicon


def _tune(model: Any, items: Sequence[bd.Instance], proposals: Sequence[Any], dev: Sequence[AnnotationSet],
          scorer_lexicon: Any) -> tuple[float, list[dict]]:
    """The threshold of the grid with the best dev argsonly F1 (first, i.e. lowest, among equals)."""
    from pyfn.baselines.args import THRESHOLDS  # noqa: PLC0415
    from pyfn.scoring.semeval import score  # noqa: PLC0415

    gold = [bd.as_scored(aset) for aset in dev]
    grid = []
    for threshold in THRESHOLDS:
        preds = [bd.with_fes(inst.aset, model.predict(inst, threshold, props))
                 for inst, props in zip(items, proposals, strict=True)]
        result = score(gold, preds, lexicon=scorer_lexicon, mode="argsonly")
        grid.append({"threshold": threshold, "precision": round(result.precision, 6), "recall": round(result.recall, 6),
                     "f1": round(result.f1, 6)})
    best = max(grid, key=lambda g: (g["f1"], -g["threshold"]))
    return best["threshold"], grid


_SYSTEMS: dict[str, Callable[..., dict]] = {
    "frameid-mff": _mff,
    "frameid-logreg": _logreg,
    "args-deppath": _args,
}
