"""How far an Open-SESAME argid training has come, read from its run folder (``pyfn open-sesame progress``).

pyfn's patch of ``argid.py`` saves the training loop at every dev evaluation and epoch end
(:data:`pyfn.parsers.open_sesame.STATE`); this module turns that state, the model files and
:data:`~pyfn.parsers.open_sesame.COMMAND` into a small record meant to be committed beside an experiment
while the training runs over several sessions: epochs done, the learning curve on dev, the best dev
score, the checkpoints' sha256, the restarts, the wall time, the measured speed and the command that
resumes the training. A restart counts from the moment it starts (``pyfn open-sesame train`` writes its
command line into the training log); where it resumed appears at the training's next save.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.fileio import sha256_file
from pyfn.parsers.open_sesame import COMMAND, OPTIMIZER_LOST, TRAINED, model_file, prepared_run, read_state


def _rate(evaluations: list[dict], clock: str, dev: str) -> float | None:
    """Training examples per second of ``clock`` (``elapsed``: wall, ``cpu``: the process's CPU time)
    between consecutive dev evaluations of one epoch, the evaluation itself (``dev``) left out."""
    trained = seconds = 0.0
    for before, after in zip(evaluations, evaluations[1:]):
        if after["epoch"] == before["epoch"] and clock in before and clock in after:
            trained += after["example"] - before["example"]
            seconds += after[clock] - after[dev] - before[clock]
    return round(trained / seconds, 3) if seconds > 0 else None


def _speed(state: dict, examples: int, interval: int) -> dict:
    """Training examples per second (wall and CPU), the mean time of one dev evaluation, and the wall time
    of one epoch (measured at epoch ends; estimated from these). On a shared machine the wall figures
    depend on the load; the CPU ones much less."""
    evaluations = state["evaluations"]
    out: dict = {}
    for key, clock, dev in (("train_examples_per_second", "elapsed", "dev_seconds"),
                            ("train_examples_per_cpu_second", "cpu", "dev_cpu")):
        if (rate := _rate(evaluations, clock, dev)) is not None:
            out[key] = rate
    if evaluations:
        out["dev_evaluation_seconds"] = round(sum(e["dev_seconds"] for e in evaluations) / len(evaluations), 1)
    timed = [e["dev_cpu"] for e in evaluations if "dev_cpu" in e]
    if timed:
        out["dev_evaluation_cpu_seconds"] = round(sum(timed) / len(timed), 1)
    evaluated = (examples - 1) // interval  # dev evaluations in one epoch
    if "train_examples_per_second" in out and evaluations:
        out["epoch_hours_estimated"] = round((examples / out["train_examples_per_second"]
                                              + evaluated * out["dev_evaluation_seconds"]) / 3600, 2)
    if "train_examples_per_cpu_second" in out and timed:
        out["epoch_cpu_hours_estimated"] = round((examples / out["train_examples_per_cpu_second"]
                                                  + evaluated * out["dev_evaluation_cpu_seconds"]) / 3600, 2)
    ends = [0.0] + [end["elapsed"] for end in state["epoch_ends"]]
    out["epoch_hours_measured"] = [round((b - a) / 3600, 2) for a, b in zip(ends, ends[1:])
                                   if not any(a < r["elapsed"] < b for r in state["resumes"])]
    return out


def progress(run: Path, stage: str = "argid", model: str | None = None) -> dict:
    """The progress record of ``RUN/logs/{model}`` (default: the stage's name); errors before its first save."""
    run = Path(run)
    version = prepared_run(run)["version"]
    model = model or stage
    folder = run / "logs" / model
    state = read_state(folder)
    if state is None:
        raise PyfnError(f"{folder}: no {stage} training state yet (pyfn's patch saves it at the first dev evaluation)")
    config = json.loads((folder / "configuration.json").read_text(encoding="utf-8"))
    command = json.loads((folder / COMMAND).read_text(encoding="utf-8"))
    interval = config["dev_eval_epoch_frequency"] * config["eval_after_every_epochs"]
    examples = len(state["order"])
    evaluations = state["evaluations"]
    best = max((e for e in evaluations if e["lf"] > 0), key=lambda e: e["lf"], default=None)  # as Open-SESAME saves
    train_log = run / "logs" / f"{model}.train.log"
    starts = train_log.read_text(encoding="utf-8", errors="replace").count("$ ") if train_log.is_file() else 0
    best_file = model_file(run, stage, model, version)
    resume = ["pyfn", "open-sesame", "train", "--home", command["checkout"], "--run", str(run), "--stage", stage,
              "--model", model, "--config", command["config"], "--seed", str(command["seed"])]
    log = run / "logs" / f"{model}.nohup.log"
    done = round(state["epoch"] + state["example"] / examples, 3)
    # Open-SESAME ends an epoch with `if epoch - last_updated_epoch > PATIENCE: break` (0-based epochs)
    by_patience = state["last_updated_epoch"] + config["patience"] + 2
    speed = _speed(state, examples, interval)
    most = max(0.0, config["num_epochs"] - done)
    least = max(0.0, min(config["num_epochs"], by_patience) - done)
    return {
        "run": str(run), "model": model, "stage": stage, "finished": state["finished"],
        "trained": (folder / TRAINED).is_file(),
        "budget": {"num_epochs": config["num_epochs"], "patience": config["patience"],
                   "dev_every_examples": interval, "config": command["config"],
                   "config_sha256": command["config_sha256"], "seed": command["seed"]},
        "train_examples": examples,
        "epochs_done": done,
        "last_improvement_epoch": state["last_updated_epoch"],
        "stops_by_patience_after_epochs": by_patience,
        "remaining": None if state["finished"] else {
            "epochs_at_most": round(most, 3), "epochs_at_least": round(least, 3),
            **({"hours_estimated": [round(least * speed["epoch_hours_estimated"], 1),
                                    round(most * speed["epoch_hours_estimated"], 1)]}
               if "epoch_hours_estimated" in speed else {}),
            **({"cpu_hours_estimated": [round(least * speed["epoch_cpu_hours_estimated"], 1),
                                        round(most * speed["epoch_cpu_hours_estimated"], 1)]}
               if "epoch_cpu_hours_estimated" in speed else {}),
            "note": "at least: patience stops it if no later dev evaluation improves; at most: the budget's "
                    "epochs; hours as [least, most] at the speed measured so far"},
        "dev_labeled_f1": [{"epoch": e["epoch"], "example": e["example"], "precision": round(e["lp"], 5),
                            "recall": round(e["lr"], 5), "f1": round(e["lf"], 5)} for e in evaluations],
        "best_dev": None if best is None else {"epoch": best["epoch"], "example": best["example"],
                                               "f1": round(best["lf"], 5)},
        "checkpoints": {
            "best": {"file": best_file.name, "sha256": sha256_file(best_file) if best_file.is_file() else None},
            "last": {"file": state["model"], "sha256": sha256_file(folder / state["model"]),
                     "epoch": state["epoch"], "example": state["example"]},
        },
        "restarts": max(starts - 1, len(state["resumes"])), "resumed_at": state["resumes"],
        **({"lost_at_restart": OPTIMIZER_LOST} if starts > 1 or state["resumes"] else {}),
        "wall_hours_to_last_save": round(state["elapsed"] / 3600, 2),
        "speed": speed,
        "resume_command": (f"nohup nice -n 19 {shlex.join(resume)} >> {shlex.quote(str(log))} 2>&1 &"),
        "resume_from": "the repository root (the --config path is relative to it)"
                       if not Path(command["config"]).is_absolute() else "anywhere",
    }
