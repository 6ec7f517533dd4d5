"""Check an installed pyfn as a user has it: run with the Python of a virtual environment pyfn was installed into
(from a wheel or an sdist, never editable), from a folder outside the checkout.

    python check_installed.py --checkout REPO --version 2.0.0a1 [--fn15 fndata-1.5.zip] [--extras]

Checks, in order, printing one line each and exiting 1 at the first failure:
pyfn is imported from the environment, not the checkout; every module imports (pkgutil.walk_packages);
`pyfn --version`; `pyfn ... --help` for every verb and action of the parser; the README's main job on the bundled
sample and, with --fn15, on FrameNet 1.5's test split with the published counts (875 sentences, 4,148 annotation
sets); the compiled readers and writers were built and are the ones used; without --extras, that asking for an
optional extra's format is a clear error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Kabbach et al. (2018), Table 1: FN 1.5 test, frame 398 excluded
FN15_TEST = {"sentences": 875, "annotation_sets": 4148}
# the packages of pyfn's optional extras (setup.cfg), by top-level module
EXTRA_MODULES = {"pyarrow": "parquet", "datasets": "hf", "dask": "dask", "distributed": "dask"}


class CheckFailed(Exception):
    """One check did not hold."""


def _pyfn(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed console script, as a user runs it."""
    script = Path(sys.executable).parent / "pyfn"
    return subprocess.run([str(script), *args], cwd=cwd, capture_output=True, text=True)


def check_location(checkout: Path) -> str:
    import pyfn  # noqa: PLC0415

    where = Path(pyfn.__file__).resolve()
    if checkout.resolve() in where.parents:
        raise CheckFailed(f"pyfn was imported from the checkout ({where}), not from the environment")
    if Path(sys.prefix).resolve() not in where.parents:
        raise CheckFailed(f"pyfn was imported from {where}, outside the environment {sys.prefix}")
    return f"pyfn {pyfn.__version__} from {where.parent}"


def check_imports(extras: bool) -> str:
    """Every module imports; without the extras installed, those that need an extra's package are counted."""
    import pyfn  # noqa: PLC0415

    failed, names, need_extra = [], ["pyfn"], []
    for module in pkgutil.walk_packages(pyfn.__path__, "pyfn."):
        if module.name.endswith(".__main__"):  # `python -m pyfn`: importing it runs the command
            continue
        names.append(module.name)
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as exc:
            if extras or (exc.name or "").split(".")[0] not in EXTRA_MODULES:
                failed.append(f"{module.name}: {type(exc).__name__}: {exc}")
            else:
                need_extra.append(f"{module.name} (pyfn[{EXTRA_MODULES[exc.name.split('.')[0]]}])")
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            failed.append(f"{module.name}: {type(exc).__name__}: {exc}")
    if failed:
        raise CheckFailed("modules that do not import:\n  " + "\n  ".join(failed))
    return f"{len(names) - len(need_extra)} modules import" + (
        f"; {len(need_extra)} need an extra not installed: {', '.join(need_extra)}" if need_extra else "")


def check_missing_extra(cwd: Path) -> str:
    """Without pyarrow, asking for Parquet is a clear error naming the extra, not a traceback."""
    proc = _pyfn("convert", "--source", "sample", "--target", str(cwd / "parquet"), "--to", "parquet", cwd=cwd)
    if proc.returncode == 0 or "Traceback" in proc.stderr or "pyfn[parquet]" not in proc.stderr:
        raise CheckFailed(f"--to parquet without pyarrow: exit {proc.returncode}: {proc.stderr[-800:]}")
    return f"--to parquet without pyarrow: {proc.stderr.strip().splitlines()[-1]}"


def check_version(expected: str, cwd: Path) -> str:
    for command in ([str(Path(sys.executable).parent / "pyfn")], [sys.executable, "-m", "pyfn"]):
        proc = subprocess.run([*command, "--version"], cwd=cwd, capture_output=True, text=True)
        if proc.returncode or proc.stdout.strip() != f"pyfn {expected}":
            raise CheckFailed(f"{' '.join(command)} --version: exit {proc.returncode}, {proc.stdout.strip()!r} "
                              f"{proc.stderr[-500:]}")
    return f"{proc.stdout.strip()} (the pyfn script and python -m pyfn)"


def check_help(cwd: Path) -> str:
    from pyfn.cli import build_parser, subparsers  # noqa: PLC0415

    progs = [p.prog.split()[1:] for p in subparsers(build_parser())]
    failed = []
    for words in progs:
        proc = _pyfn(*words, "--help", cwd=cwd)
        if proc.returncode or not proc.stdout.startswith("usage: pyfn"):
            failed.append(f"pyfn {' '.join(words)} --help: exit {proc.returncode}: {proc.stderr[-300:]}")
    if failed:
        raise CheckFailed("\n".join(failed))
    return f"--help of {len(progs)} verbs and actions"


def _convert(source: str, target: Path, cwd: Path, *options: str) -> dict:
    start = time.perf_counter()
    proc = _pyfn("convert", "--source", source, "--target", str(target), *options, cwd=cwd)
    if proc.returncode:
        raise CheckFailed(f"pyfn convert --source {source}: exit {proc.returncode}: {proc.stderr[-1500:]}")
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    manifest["_seconds"] = time.perf_counter() - start
    manifest["_stderr"] = proc.stderr.strip().splitlines()[-1]
    return manifest


def check_sample(cwd: Path) -> str:
    manifest = _convert("sample", cwd / "sample", cwd)
    counts = {split: manifest["splits"][split]["annotation_sets"] for split in ("train", "dev", "test")}
    if not all(counts.values()):
        raise CheckFailed(f"the sample gave an empty split: {counts}")
    return f"sample: {manifest['_stderr']}"


def check_fn15(fn15: Path, cwd: Path) -> str:
    manifest = _convert(str(fn15), cwd / "fn15", cwd, "--splits", "test", "--exclude-frames", "398")
    if manifest["splits"]["test"] != FN15_TEST:
        raise CheckFailed(f"FN 1.5 test: {manifest['splits']['test']}, published {FN15_TEST}")
    return f"FN 1.5 test, published counts in {manifest['_seconds']:.1f} s: {manifest['_stderr']}"


def check_compiled() -> str:
    from pyfn.formats import bios, conll, jsonl, semafor  # noqa: PLC0415
    from pyfn.framenet import annotations, compiled, layers  # noqa: PLC0415

    used = {"layers": layers.read_layers is layers.read_layers_c and layers.read_layers_c is not None,
            "annotations": annotations.read_sentences_c is not None,
            "jsonl decoder": jsonl._decode is not None,  # noqa: SLF001
            "writers": None not in (bios.bios_set_c, semafor.semafor_line_c, conll.conll_block_c,
                                    semafor.sentence_lines_c)}
    if not all(used.values()):
        raise CheckFailed(f"compiled twins not used: {used}; {layers.READER}; {compiled.WRITER}; "
                          f"{compiled.JSONL_DECODER}")
    return f"compiled readers and writers used: {layers.READER}; {compiled.WRITER}; {compiled.JSONL_DECODER}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True, help="the repository the package was built from")
    parser.add_argument("--version", required=True, help="the version the package must say it is")
    parser.add_argument("--fn15", type=Path, help="FrameNet 1.5 (the README's main job on its test split)")
    parser.add_argument("--extras", action="store_true",
                        help="the optional extras are installed: every module must import (else: the modules that "
                        "need them are counted, and asking for Parquet must be a clear error)")
    args = parser.parse_args()
    if os.environ.get("PYFN_PURE_PYTHON"):
        print("check_installed: PYFN_PURE_PYTHON is set: unset it to check the compiled readers", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="pyfn-installed-"))
    os.chdir(work)
    os.environ["PYFN_CACHE"] = str(work / "cache")  # a user's first run: no parsed release, no preprocessing cached
    checks = [("location", lambda: check_location(args.checkout)), ("imports", lambda: check_imports(args.extras)),
              ("version", lambda: check_version(args.version, work)), ("help", lambda: check_help(work)),
              ("sample", lambda: check_sample(work)), ("compiled", check_compiled)]
    if args.fn15:
        checks.insert(5, ("fn15", lambda: check_fn15(args.fn15, work)))
    if not args.extras:
        checks.append(("extras", lambda: check_missing_extra(work)))
    try:
        for name, check in checks:
            print(f"check_installed [{sys.version.split()[0]}] {name}: {check()}", flush=True)
    except CheckFailed as exc:
        print(f"check_installed [{sys.version.split()[0]}] {name}: FAILED: {exc}", flush=True)
        return 1
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
