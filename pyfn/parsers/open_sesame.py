"""Open-SESAME (Swayamdipta et al. 2017, swabhs/open-sesame) run on pyfn's data.

Four steps, each resumable and each leaving a JSON record beside its outputs:

- :func:`setup`: a patched copy of the user's checkout and a virtual environment with pinned packages
  (:mod:`pyfn.parsers.install`);
- :func:`prepare`: a *run folder* laid out as Open-SESAME's ``globalconfig.py`` wants it (its
  configuration, pyfn's BIOS files under ``data/open_sesame_v1_data/fn{V}/``, the frame files under
  ``data/fndata-{V}/``, the embeddings);
- :func:`train`: one of its models with a recorded budget and seed, resumed from its last saved model
  after an interruption (argid: where pyfn's patch last saved its loop; :mod:`pyfn.parsers.open_sesame_progress`
  reports how far it has come);
- :func:`decode`: a split with gold targets (frame identification) or given frames (argument
  identification), the predictions copied out as ``{split}.bios`` with Open-SESAME's own evaluation.

Open-SESAME's paths are relative to its working directory: every command runs in the run folder,
with the patched copy on ``PYTHONPATH``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file, write_text
from pyfn.framenet.release import open_release
from pyfn.parsers import install
from pyfn.parsers.blas import blas_env, machine
from pyfn.parsers.blas import record as blas_record
from pyfn.resources import resource_path

NAME = "open-sesame"
MARKER = "sesame/frameid.py"
PINS = ("dynet38==2.2", "nltk==3.10.4", "numpy==2.4.6", "tqdm==4.70.1", "gensim==4.4.0")
"""Open-SESAME's dependencies as run here (DyNet 2.2 as the ``dynet38`` wheel) and gensim for the
embeddings built from train."""
STAGES = ("frameid", "argid")
SPLITS = ("train", "dev", "test")
EMBEDDINGS = "data/embeddings.100d.txt"
DIM = 100
HASH_SEED = "0"
LOG_INTERVAL = "60"
"""Seconds between progress lines in the training logs (Open-SESAME's tqdm bars)."""
_FRAMEID_EVAL = re.compile(r"\[test\] p = ([\d.]+) \(([\d.]+)/([\d.]+)\) r = ([\d.]+) \(([\d.]+)/([\d.]+)\) f1 = ([\d.]+)")
_ARGID_EVAL = re.compile(r"\[test\] (\w)pr = ([\d.]+) \(([\d.]+)/([\d.]+)\) \w+ = ([\d.]+) \(([\d.]+)/([\d.]+)\)")
_ARGID_F1 = re.compile(r"\[test\] wf1 = ([\d.]+) uf1 = ([\d.]+) lf1 = ([\d.]+)")

Log = Callable[[str], None]


def default_patch() -> Path:
    """The patch pyfn applies to Open-SESAME (see its header: the -nan fix and the seeds)."""
    return resource_path("parsers", "open-sesame.patch")


def default_config(stage: str) -> Path:
    """pyfn's budget for ``stage``: frameid to convergence (at most 30 epochs, patience 4, dev every 4,000
    examples); argid one epoch of train (dev every 4,000 examples)."""
    return resource_path("parsers", f"open-sesame-{_stage(stage)}.json")


def setup(home: Path, root: Path | None = None, patches: list[Path] | None = None, log: Log = lambda _: None) -> Path:
    """Install Open-SESAME from the checkout ``home`` (once per commit, patches and pins)."""
    chosen = [default_patch()] if patches is None else patches
    return install.install(NAME, Path(home), MARKER, chosen, PINS, root or install.default_root(), log)


def _python(installation: Path) -> str:
    return str(installation / "venv" / "bin" / "python")


def _env(installation: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(installation / "src"), PYTHONHASHSEED=HASH_SEED, TQDM_MININTERVAL=LOG_INTERVAL,
               **blas_env())
    return env


def _frames_folder(installation: Path, source: Path, version: str) -> tuple[Path, str]:
    """``fndata-{version}/`` with the frame files, ``frRelation.xml`` and ``luIndex.xml`` (read by target
    identification only; copied when present) of ``source``
    (a release, or a FrameNet-layout folder such as ``pyfn generate``'s ``fn_train``), extracted once
    into the installation and keyed by the sha256 of their bytes."""
    release = open_release(source)
    frames = release.list("frame")
    if not frames or not release.exists("frRelation.xml"):
        raise PyfnError(f"{source}: no frame files or no frRelation.xml (Open-SESAME's frameid and argid read them)")
    names = [*frames, "frRelation.xml", *(["luIndex.xml"] if release.exists("luIndex.xml") else [])]
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + hashlib.sha256(release.read(name)).digest())
    key = digest.hexdigest()
    folder = installation / "fndata" / key / f"fndata-{version}"
    if not folder.is_dir():
        scratch = Path(tempfile.mkdtemp(prefix=".fndata.", suffix=".tmp", dir=installation))
        try:
            for name in names:
                path = scratch / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(release.read(name))
            folder.parent.mkdir(parents=True, exist_ok=True)
            scratch.rename(folder)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return folder, key


def _link(target: Path, link: Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def prepare(
    installation: Path, data: Path, source: Path, run: Path, *, version: str = "1.5",
    embeddings: Path | None = None, frames: Path | None = None, models_from: Path | None = None,
    log: Log = lambda _: None,
) -> dict:
    """Lay out ``run`` for Open-SESAME from pyfn's BIOS folder ``data``; returns the record.

    ``frames`` (default: the release ``source``) decides Open-SESAME's frames and candidate frames
    per LU. ``embeddings`` is a GloVe-style text file; without it, vectors are trained on
    ``data/train.sentences`` (:mod:`pyfn.parsers.word2vec_script`). ``models_from`` (another run folder):
    its finished trainings are copied in, once train.bios, the frames and the embeddings are checked to be
    the same bytes (:func:`_reuse_models`).
    """
    installed = install.read_record(installation)
    data, run = Path(data).resolve(), Path(run).resolve()
    needed = [f"{split}.bios" for split in SPLITS] + ([] if embeddings else ["train.sentences"])
    missing = [name for name in needed if not (data / name).is_file()]
    if missing:
        raise PyfnError(f"{data}: no {', '.join(missing)} (convert with --to bios --splits all first)")
    if embeddings is not None and not Path(embeddings).is_file():
        raise PyfnError(f"{embeddings}: no such embeddings file")
    frames_dir, frames_key = _frames_folder(installation, Path(frames or source), version)
    if models_from is not None and Path(models_from).resolve() != run:  # checked before anything is written
        _check_reusable(Path(models_from).resolve(), {
            **{key: installed[key] for key in ("commit", "patches", "pins")}, "version": version,
            "train.bios": sha256_file(data / "train.bios"), "frames": frames_key,
            **({"embeddings": sha256_file(Path(embeddings))} if embeddings else {})})
    run.mkdir(parents=True, exist_ok=True)
    write_text(run / "configurations" / "global_config.json", json.dumps({
        "version": float(version), "data_directory": "data/", "embeddings_file": EMBEDDINGS,
        "argid_lr": 0.0005, "debug_mode": False}, indent=1) + "\n")
    parser_data = run / "data" / "open_sesame_v1_data" / f"fn{version}"
    names = {"train": "fulltext.train", "dev": "dev", "test": "test"}
    inputs = {}
    for split in SPLITS:
        _link((data / f"{split}.bios").resolve(), parser_data / f"fn{version}.{names[split]}.syntaxnet.conll")
        inputs[f"{split}.bios"] = sha256_file(data / f"{split}.bios")
    _link(frames_dir, run / "data" / f"fndata-{version}")
    if embeddings is not None:
        _link(Path(embeddings).resolve(), run / EMBEDDINGS)
        vectors = {"source": Path(embeddings).name, "sha256": sha256_file(Path(embeddings))}
    else:
        log(f"{NAME}: training {DIM}-d word2vec vectors on {data / 'train.sentences'}")
        script = Path(__file__).with_name("word2vec_script.py")
        _call([_python(installation), str(script), str(data / "train.sentences"), str(run / EMBEDDINGS), str(DIM), "1"],
              installation, run, f"{NAME}: word2vec")
        vectors = {"source": "word2vec on train.sentences (gensim, skip-gram, seed 1, one worker; "
                             "published Open-SESAME numbers use GloVe 6B.100d)",
                   "openblas_coretype": blas_record(), "sha256": sha256_file(run / EMBEDDINGS)}
    record = {
        "parser": NAME, "commit": installed["commit"], "patches": installed["patches"], "pins": installed["pins"],
        "data": os.path.relpath(data, run), "inputs": inputs,
        "frames": {"source": Path(frames or source).name, "sha256": frames_key},
        "embeddings": vectors, "version": version,
    }
    if models_from is not None and Path(models_from).resolve() != run:
        record["models_from"] = _reuse_models(Path(models_from).resolve(), run, record, log)
    elif _still_reused(run):  # prepared again: where its models came from stays on record
        record["models_from"] = json.loads((run / "prepare.json").read_text(encoding="utf-8"))["models_from"]
    write_text(run / "prepare.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


REUSE_KEYS = ("commit", "patches", "pins", "version")
TRAINED = "pyfn-train.json"
"""Marks a finished training in ``logs/MODEL/``."""
STATE = "pyfn-state.json"
"""argid's loop as pyfn's patch saves it in ``logs/MODEL/`` with the latest weights: epoch, example, order,
random state, patience and every dev evaluation; ``--mode refresh`` continues from it."""
COMMAND = "pyfn-train-command.json"
"""How ``logs/MODEL/`` is being trained (stage, seed, budget file): the command that resumes it."""
OPTIMIZER_LOST = ("Adam's moments restart from zero at each resume (DyNet's Python API cannot save them); "
                  "so does DyNet's random state (dropout, noise)")


def _trained_sha(folder: Path) -> str | None:
    """The model digest recorded by a finished training in ``folder`` (None: not finished)."""
    path = folder / TRAINED
    return json.loads(path.read_text(encoding="utf-8"))["model_sha256"] if path.is_file() else None


def _check_reusable(other: Path, mine: dict) -> list[Path]:
    """The finished trainings (``logs/MODEL`` with ``pyfn-train.json``) of the run folder ``other``;
    refused unless it was prepared with the same values as ``mine`` (Open-SESAME, train.bios, frames,
    and the embeddings when known)."""
    theirs = prepared_run(other)
    recorded = {**{key: theirs.get(key) for key in REUSE_KEYS}, "train.bios": theirs["inputs"].get("train.bios"),
                "frames": theirs["frames"]["sha256"], "embeddings": theirs["embeddings"]["sha256"]}
    differs = [key for key, value in mine.items() if recorded[key] != value]
    if differs:
        raise PyfnError(f"--models-from {other}: prepared with a different {', '.join(differs)}: its models were not "
                        "trained on this run's data (train here instead)")
    trained = sorted(p.parent for p in (other / "logs").glob(f"*/{TRAINED}"))
    if not trained:
        raise PyfnError(f"--models-from {other}: no finished training there (run `pyfn open-sesame train` in it first)")
    return trained


def _reuse_models(other: Path, run: Path, record: dict, log: Log) -> dict:
    """Copy the finished trainings of the run folder ``other`` into ``run`` (:func:`_check_reusable`)."""
    trained = _check_reusable(other, {**{key: record[key] for key in REUSE_KEYS},
                                      "train.bios": record["inputs"]["train.bios"],
                                      "frames": record["frames"]["sha256"], "embeddings": record["embeddings"]["sha256"]})
    models = {f.name: _trained_sha(f) for f in trained}
    for folder in trained:
        target = run / "logs" / folder.name
        if (found := _trained_sha(target)) is not None:
            if found == models[folder.name]:
                continue
            raise PyfnError(f"{target}: this run has its own training of {folder.name}; --models-from {other} would "
                            "replace it (remove it first, or prepare without --models-from)")
        if target.exists():
            raise PyfnError(f"{target}: an unfinished training is there; remove it to use {other}'s model")
        scratch = target.with_name(f".{folder.name}.copy.tmp")
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(folder, scratch, ignore=shutil.ignore_patterns("predicted-*"))
        scratch.rename(target)
        log(f"{NAME}: using the model {folder.name} trained in {other}")
    return {"run": os.path.relpath(other, run), "models": models}


def _still_reused(run: Path) -> bool:
    """Whether ``run/prepare.json`` records models copied from another run that are still there unchanged."""
    try:
        reused = json.loads((run / "prepare.json").read_text(encoding="utf-8")).get("models_from")
    except (FileNotFoundError, ValueError):
        return False
    if not reused:
        return False
    return all(_trained_sha(run / "logs" / name) == digest for name, digest in reused["models"].items())


def _call(argv: list[str], installation: Path, run: Path, what: str, log_file: Path | None = None) -> str:
    """Run Open-SESAME's interpreter in ``run``; output appended to ``log_file`` (or returned)."""
    try:
        if log_file is None:
            proc = subprocess.run(argv, cwd=run, env=_env(installation), capture_output=True, text=True, check=False)
            output = proc.stdout + proc.stderr
        else:
            with log_file.open("a", encoding="utf-8") as handle:
                if handle.tell():  # after an earlier attempt, whose last line a kill may have cut
                    handle.write("\n")
                handle.write(f"$ {' '.join(argv)}\n")
                handle.flush()
                proc = subprocess.run(argv, cwd=run, env=_env(installation), stdout=handle, stderr=subprocess.STDOUT,
                                      check=False)
            output = log_file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PyfnError(f"{what}: cannot run {argv[0]}: {exc.strerror} (run `pyfn open-sesame setup` first)") from None
    if proc.returncode:
        tail = " | ".join(line.strip() for line in output.strip().splitlines()[-3:])
        where = f" (log: {log_file})" if log_file else ""
        raise PyfnError(f"{what} failed (exit {proc.returncode}){where}: {tail}")
    return output


def prepared_run(run: Path) -> dict:
    """The ``prepare.json`` record of a run folder; an error says to prepare it when there is none."""
    try:
        record = json.loads((Path(run) / "prepare.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PyfnError(f"{run}: not a prepared Open-SESAME run folder (run `pyfn open-sesame prepare` first)") from None
    if "data" not in record:
        raise PyfnError(f"{run}: prepared by an earlier pyfn (no data folder recorded); run `pyfn open-sesame prepare` "
                        "again (trained models are kept)")
    return record


def _stage(stage: str) -> str:
    if stage not in STAGES:
        raise UsageError(f"unknown stage {stage!r} (known: {', '.join(STAGES)})")
    return stage


def model_file(run: Path, stage: str, model: str, version: str) -> Path:
    """Where Open-SESAME saves the best model of ``stage`` (on dev)."""
    return Path(run) / "logs" / model / f"best-{stage}-{version}-model"


def read_state(folder: Path) -> dict | None:
    """The loop state (:data:`STATE`) of the model folder ``folder``; None before its first save."""
    path = Path(folder) / STATE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise PyfnError(f"{path}: not the JSON pyfn's patch writes ({exc})") from None


def _check_budget(folder: Path, budget: dict, config: Path) -> None:
    """A resumed training keeps the budget it started with (Open-SESAME's ``configuration.json``)."""
    path = folder / "configuration.json"
    if not path.is_file():
        return
    started = json.loads(path.read_text(encoding="utf-8"))
    differs = sorted(key for key in set(started) | set(budget) if started.get(key) != budget.get(key))
    if differs:
        raise PyfnError(f"{config}: not the budget {folder.name} started with ({path}; differs in "
                        f"{', '.join(differs)}): resume with that budget, or train another --model")


def train(
    installation: Path, run: Path, stage: str, model: str, config: Path, seed: int, log: Log = lambda _: None,
) -> dict:
    """Train ``stage`` as ``logs/{model}`` with the budget ``config`` (Open-SESAME's configuration JSON).

    Done once: ``logs/{model}/pyfn-train.json`` marks a finished training. A training interrupted
    after a save resumes (Open-SESAME's ``--mode refresh``, with the budget it started with): argid
    where pyfn's patch saved its loop (:data:`STATE`), frameid from its best model with its epochs
    counted anew. The record lists the attempts and what each restart lost.
    """
    folder = Path(run) / "logs" / model
    record_path = folder / TRAINED
    if record_path.is_file():
        log(f"{NAME}: {model} is trained ({record_path})")
        return json.loads(record_path.read_text(encoding="utf-8"))
    prepared = prepared_run(run)
    budget = json.loads(Path(config).read_text(encoding="utf-8"))
    saved = model_file(run, _stage(stage), model, prepared["version"])
    mode = "refresh" if saved.is_file() or (folder / STATE).is_file() else "train"
    argv = [_python(installation), "-m", f"sesame.{stage}", "--mode", mode, "--model_name", model,
            "--dynet-seed", str(seed)]
    if mode == "train":
        argv += ["--config", str(Path(config).resolve())]
    else:
        _check_budget(folder, budget, Path(config))
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / COMMAND, json.dumps({
        "stage": stage, "model": model, "seed": seed, "config": str(config),
        "config_sha256": sha256_file(Path(config)), "checkout": install.read_record(installation)["checkout"],
    }, indent=1, sort_keys=True) + "\n")
    log_file = Path(run) / "logs" / f"{model}.train.log"
    log(f"{NAME}: {'resuming' if mode == 'refresh' else 'training'} {stage} as {model} (seed {seed}; log {log_file})")
    output = _call(argv, installation, Path(run), f"{NAME} {stage} training", log_file)
    if not saved.is_file():
        raise PyfnError(f"{NAME} {stage} training ended without a dev F1 above 0: no model saved (log: {log_file})")
    best = (saved.parent / "best-dev-f1.txt").read_text(encoding="utf-8").split()
    attempts = output.count("$ ")
    state = read_state(folder)
    stopped = state["finished"] if state else ("patience" if "Ran out of patience" in output else "epochs")
    record = {
        "stage": stage, "model": model, "seed": seed, "budget": budget, "attempts": attempts,
        "resumed": mode == "refresh" or attempts > 1,
        "stopped": "patience" if stopped == "patience" else "epoch budget",
        "best_dev": float(best[-1]) if best else None,
        "model_sha256": sha256_file(saved), "machine": machine(),
    }
    if state is not None:
        record.update(epochs=state["epoch"], dev_evaluations=len(state["evaluations"]),
                      restarts=len(state["resumes"]), resumed_at=state["resumes"])
        if state["resumes"]:
            record["lost_at_restart"] = OPTIMIZER_LOST
    write_text(record_path, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def _own_eval(stage: str, output: str) -> dict:
    """Open-SESAME's own evaluation as it prints it at test time."""
    if stage == "frameid":
        match = _FRAMEID_EVAL.search(output)
        if not match:
            return {}
        p, ptp, pall, r, rtp, rall, f1 = match.groups()
        return {"precision": float(p), "recall": float(r), "f1": float(f1), "matched": float(ptp),
                "predicted": float(pall), "gold": float(rall)}
    out = {}
    for kind, p, ptp, pall, r, rtp, rall in _ARGID_EVAL.findall(output):
        name = {"w": "token", "u": "unlabeled", "l": "labeled"}[kind]
        out[name] = {"precision": float(p), "recall": float(r), "matched": float(ptp), "predicted": float(pall),
                     "gold": float(rall)}
    match = _ARGID_F1.search(output)
    if match:
        for name, value in zip(("token", "unlabeled", "labeled"), match.groups()):
            out.setdefault(name, {})["f1"] = float(value)
    return out


def decode(
    installation: Path, run: Path, stage: str, model: str, split: str, output: Path, *,
    frames_from: Path | None = None, log: Log = lambda _: None,
) -> dict:
    """Decode ``split`` with the trained ``logs/{model}`` and copy the predictions to ``output``.

    ``frameid`` predicts the frame of every gold target; ``argid`` the FEs of every frame of its input:
    the split's gold frames, or ``frames_from`` (a BIOS file of predicted frames, e.g. this function's
    ``frameid`` output) for the full pipeline. Writes ``{split}.bios`` (Open-SESAME's CoNLL output, which
    pyfn imports), ``{split}.sesame.fes`` when Open-SESAME writes one, ``{split}.sentences`` and
    ``{split}.{stage}.own-eval.json`` (Open-SESAME's own evaluation, when it prints one, with the model's
    sha256 and whether its training had finished). A model that differs from the one its finished training
    recorded is refused; one still training is decoded with a note.
    """
    prepared = prepared_run(run)
    version = prepared["version"]
    saved = model_file(run, _stage(stage), model, version)
    if not saved.is_file():
        raise PyfnError(f"{saved}: no trained model (run `pyfn open-sesame train` first)")
    model_sha, trained = sha256_file(saved), _trained_sha(saved.parent)
    if trained is None:
        log(f"{NAME}: note: {model} has no finished training ({TRAINED}): decoding its best model so far")
    elif trained != model_sha:
        raise PyfnError(f"{saved}: sha256 {model_sha[:12]}... is not the {trained[:12]}... its finished training "
                        f"recorded in {TRAINED}: the model changed after its training")
    run = Path(run)
    parser_data = run / "data" / "open_sesame_v1_data" / f"fn{version}"
    gold = parser_data / f"fn{version}.{'dev' if split == 'dev' else 'test'}.syntaxnet.conll"
    if split not in ("dev", "test"):
        raise UsageError(f"split {split!r}: decode dev or test")
    source = Path(frames_from).resolve() if frames_from else gold.resolve()
    model_dir = saved.parent
    if stage == "frameid" and split == "test":
        argv = ["--mode", "test"]
        produced = model_dir / f"predicted-{version}-frameid-test.conll"
        fes = model_dir / f"predicted-{version}-frameid-test.fes"
    elif stage == "frameid":
        argv = ["--mode", "predict", "--raw_input", str(source)]
        produced, fes = model_dir / "predicted-frames.conll", None
    else:
        argv = ["--mode", "test", "--testf", str(source)]
        produced = model_dir / f"predicted-{version}-argid-test.conll"
        fes = model_dir / f"predicted-{version}-argid-test.fes"
    log(f"{NAME}: decoding {split} with {model}")
    text = _call([_python(installation), "-m", f"sesame.{stage}", "--model_name", model, *argv],
                 installation, run, f"{NAME} {stage} decoding of {split}")
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(produced, output / f"{split}.bios")
    if fes is not None and fes.is_file():
        shutil.copyfile(fes, output / f"{split}.sesame.fes")
    shutil.copyfile(run / prepared["data"] / f"{split}.sentences", output / f"{split}.sentences")
    record = {"stage": stage, "model": model, "model_sha256": model_sha,
              "training": "unfinished" if trained is None else "finished",
              "split": split, "input": "gold" if frames_from is None else str(frames_from),
              "input_sha256": sha256_file(source), "predictions_sha256": sha256_file(output / f"{split}.bios"),
              "own_evaluation": _own_eval(stage, text)}
    write_text(output / f"{split}.{stage}.own-eval.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record
