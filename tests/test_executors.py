"""The Dask executor: the same bytes as a local run (a study, a preprocessing run), worker faults, resuming.

Each Dask test starts a LocalCluster of 2 single-threaded worker processes in a
context manager (no stray process when a test fails); they run in one xdist group.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import PyfnError, UsageError
from pyfn.executors import LOCAL, check_spec
from pyfn.xp import run as xp
from pyfn.xp.resume import STEPS

pytestmark = pytest.mark.xdist_group("dask")

RECIPE = '''
[experiment]
number = "{number}"
title = "Executor test"
purpose = "Checks that the executor does not change results."

[framenet]
version = "1.5-sample"
source = "sample"

[data]
split = "random(n=2, seed=4)"
formats = ["jsonl", "semeval"]

[preprocess]
tool = "none"

[[system]]
name = "mff"
baseline = "frameid-mff"

[[system]]
name = "logreg"
baseline = "frameid-logreg"

[scoring]
splits = ["test"]
'''


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as local:
        yield local


def _study(root: Path, number: str = "003") -> Path:
    folder = root / f"xp_{number}"
    folder.mkdir(parents=True)
    (folder / "experiment.toml").write_text(RECIPE.format(number=number))
    return folder


def _files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in sorted((folder / "work").rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The 2-split study run locally (2 processes): its folder, steps, files and manifest."""
    top = tmp_path_factory.mktemp("local")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(top)
        folder = _study(Path("experiments"))
        ran = xp.run(folder, main, executor=LOCAL, jobs=2)
        manifest = xp.report(folder)
        return top / "experiments", ran, _files(folder), manifest


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return Path("experiments")


def _spec(cluster) -> str:  # type: ignore[no-untyped-def]
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


def test_a_study_on_dask_writes_the_bytes_manifest_and_scores_of_a_local_run(root, cluster, reference):
    _, local, expected, manifest = reference
    folder = _study(root)
    lines: list[str] = []
    on_dask = xp.run(folder, main, executor=_spec(cluster), log=lines.append)
    assert sorted(on_dask) == sorted(local) and len(local) == 3 * 6
    assert lines[-1:] == ["pyfn xp 003: 18 steps on the Dask cluster"]
    assert all(line.startswith("pyfn: Dask dashboard at http") for line in lines[:-1])
    assert _files(folder) == expected  # every output and every step record, byte for byte
    again = xp.report(folder)
    assert again == manifest and again["scores"] and again["study"]["summary"]["drawn_splits"] == 2
    assert not any(name.startswith(f"work/{STEPS}") for name in again["outputs"])


def test_a_rerun_resumes_from_the_finished_steps(root, cluster, reference):
    shutil.copytree(reference[0], root)
    folder = root / "xp_003"
    lines: list[str] = []
    assert xp.run(folder, main, executor=_spec(cluster), log=lines.append) == []  # all finished: nothing runs
    assert lines[-1:] == ["pyfn xp 003: 0 steps on the Dask cluster (18 finished before, outputs verified: skipped)"]
    # an output changed behind pyfn's back: that step and the steps reading it run again, nothing else
    predicted = folder / "work" / "splits" / "random-seed5" / "systems" / "mff" / "test.predicted.xml"
    predicted.write_bytes(predicted.read_bytes() + b"\n")
    lines.clear()
    assert xp.run(folder, main, log=lines.append) == ["random-seed5/system:mff", "random-seed5/score:mff:test:frameid"]
    assert _files(folder) == reference[2]
    assert sum("finished before (outputs verified), skipped" in line for line in lines) == 6  # the standard split's
    # a record that no longer matches its command (here: another pyfn version) is not taken as done
    record = folder / "work" / STEPS / "random-seed4%2Fscore%3Alogreg%3Atest%3Aframeid.json"
    record.write_text(record.read_text().replace('"pyfn": "', '"pyfn": "0.'))
    assert xp.run(folder, main) == ["random-seed4/score:logreg:test:frameid"]
    assert xp.run(folder, main, redo=True, step="lexicon") == ["lexicon"]
    assert _files(folder) == reference[2]


def test_a_worker_killed_mid_study_is_replaced_and_the_results_do_not_change(root, cluster, reference):
    """SIGKILL one worker process while it runs a drawn split's step: Dask reruns the step on a worker
    (the nanny restarts the killed one), the study finishes with the bytes of an undisturbed run."""
    from distributed import Client

    folder = _study(root)
    killed: list[int] = []

    def kill_a_busy_worker() -> None:
        with Client(cluster.scheduler_address, timeout="20s") as client:
            for _ in range(1200):
                busy = [w for w, tasks in client.processing().items() if any("random-seed" in t for t in tasks)]
                if busy:
                    pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                    time.sleep(0.2)  # inside the step's command
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return
                time.sleep(0.05)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    try:
        xp.run(folder, main, executor=_spec(cluster))
    finally:
        killer.join()
    assert killed, "no worker was busy with a drawn split's step"
    assert _files(folder) == reference[2]


def test_a_step_failing_twice_fails_the_run_with_its_command_and_stderr(root, cluster):
    folder = _study(root, "006")
    blocker = folder / "work" / "splits" / "random-seed4" / "lexicon"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the step writes a folder\n")
    with pytest.raises(PyfnError) as error:
        xp.run(folder, main, executor=_spec(cluster), step="random-seed4")
    message = str(error.value)
    assert message.startswith("step random-seed4/lexicon failed on 2 attempts: `pyfn generate --source sample")
    assert message.splitlines()[-1].startswith(f"pyfn: error: {blocker}")
    assert (folder / "work" / STEPS / "random-seed4%2Fdata.json").is_file()
    assert not (folder / "work" / STEPS / "random-seed4%2Flexicon.json").exists()
    assert not (folder / "work" / "splits" / "random-seed4" / "systems").exists()  # its dependents never ran


def test_a_worker_that_cannot_see_the_experiment_is_one_line_naming_the_path(tmp_path, cluster, monkeypatch):
    from distributed import Client

    from pyfn.executors import check_visible

    with Client(cluster.scheduler_address) as client:
        missing = tmp_path / "not-shared"
        with pytest.raises(PyfnError, match=f"Dask worker tcp://.* cannot see {missing}: the dask executor needs a "
                                            "filesystem shared"):
            check_visible(client, [tmp_path, missing])


def test_preprocessing_on_dask_writes_the_bytes_of_a_local_run(tmp_path, cluster):
    from pyfn.preprocess.directory import preprocess_directory
    from pyfn.preprocess.runner import PreprocessOptions

    nltk_data = os.environ.get("PYFN_NLTK_DATA") or str(Path.home() / ".cache/pyfn/nltk_data")
    if not Path(nltk_data).is_dir():
        pytest.skip("no NLTK data (PYFN_NLTK_DATA)")
    outputs = {}
    for executor in (LOCAL, _spec(cluster)):
        target = tmp_path / executor.split(":")[0]
        assert main(["convert", "--source", "sample", "--target", str(target), "--to", "conllu", "bios", "semeval",
                     "--quiet"]) == 0
        options = PreprocessOptions(tool="nltk", nltk_data=nltk_data, batch_size=7, cache_dir=None, executor=executor)
        preprocess_directory(target, options, ("train", "dev", "test"), lambda split, total: lambda n: None)
        outputs[executor] = {p.relative_to(target): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}
    local, dask = outputs.values()
    assert dask == local and any(name.suffix == ".conllu" for name in local)


def test_without_dask_the_executor_says_how_to_install_it(root, monkeypatch, capsys):
    _study(root, "007")
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    assert main(["xp", "run", "7", "--executor", "dask"]) == 2
    assert not (root / "xp_007" / "work").exists()
    assert 'the dask executor needs dask.distributed: pip install "pyfn[dask]"' in capsys.readouterr().err


def test_what_each_step_waits_for_on_dask():
    from pyfn.xp.steps import Step

    names = ["data", "lexicon", "system:a", "score:a", "r1/data", "r1/lexicon", "r1/system:a", "r1/system:b",
             "r1/score:a", "r1/train:x", "r2/data", "v/data"]
    selected = [Step(n, shell=("guard", "true") if n.endswith(":x") else ()) for n in names]
    plan = {n: (n != "r2/lexicon", None) for n in names}
    needs = xp._dependencies(xp._groups(selected, {"r1/", "r2/"}), plan, {"r1/", "r2/"})
    r1 = ["r1/data", "r1/lexicon", "r1/system:a", "r1/system:b", "r1/score:a"]
    assert needs == {
        "data": [], "lexicon": ["data"], "system:a": ["lexicon"], "score:a": ["system:a"],
        "r1/data": ["data"], "r1/lexicon": ["data", "r1/data"], "r1/system:a": ["data", "r1/data", "r1/lexicon"],
        "r1/system:b": ["data", "r1/data", "r1/lexicon"], "r1/score:a": ["data", *r1[:4]],
        "r1/train:x": ["data", *r1], "r2/data": ["data"], "v/data": ["score:a", *r1, "r1/train:x", "r2/data"]}
    plan["data"] = (False, None)  # finished before: nothing waits for it
    assert xp._dependencies(xp._groups(selected, {"r1/", "r2/"}), plan, {"r1/", "r2/"})["r1/data"] == []


def test_executor_names_are_checked(tmp_path, capsys):
    assert check_spec("dask://node12:8786") == "dask://node12:8786"
    for bad in ("dask://node12", "slurm", "dask:8786"):
        with pytest.raises(UsageError, match="expected local, dask or dask://HOST:PORT"):
            check_spec(bad)
    assert main(["convert", "--source", "sample", "--target", str(tmp_path / "out"), "--to", "conllu",
                 "--executor", "dask"]) == 2
    assert "--executor goes with --preprocess" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
