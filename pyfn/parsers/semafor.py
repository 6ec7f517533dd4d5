"""SEMAFOR (Das et al. 2014, Noahs-ARK/semafor) built, trained and decoded on pyfn's data.

Four steps, each resumable and each leaving a JSON record beside its outputs:

- :func:`setup`: Java and Debian's jars checked (or installed), a copy of the user's checkout with
  pyfn's recorded patch (``resources/parsers/semafor.patch``) compiled with ``javac``, JWNL 1.4_rc3
  compiled from a source tree (or a given jar), SEMAFOR's JUnit tests run; never Maven, never the
  user's tree;
- :func:`prepare`: a *run folder*: pyfn's SEMAFOR files, the train-only maps (frame to frame elements,
  frame to tagged targets) and frame costs (from ``frRelation.xml``), a WordNet configuration for
  Debian's WordNet 3.0, and ``RequiredDataCreation``'s ``reqData.jobj``;
- :func:`train`: the argument model (``CreateAlphabet``, ``FrameFeaturesCache``, ``TrainingBatchMain``)
  or the frame-identification model, each step a process of its own whose outputs stay on disk; the
  L-BFGS trainings warm-start from their last saved model (:func:`progress` records every restart);
- :func:`decode`: arguments given gold frames and targets (the setting of Kabbach et al. 2018,
  Tables 6-7), written as SEMAFOR's ``frame.elements`` lines for ``pyfn convert --from semafor --to
  semeval``.

Every Java process runs in the run folder with ``RUN/model`` first on the class path (the maps there
replace the copies bundled in SEMAFOR's jar) and logs to ``RUN/logs/STEP.log``, each line prefixed by
the Unix time it was read, with a garbage-collector log beside it (``STEP.gc.log``, for the heap).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import atomic_writer, locked_directory, pid_alive, sha256_file, write_lines, write_text
from pyfn.framenet.release import open_release
from pyfn.parsers import install
from pyfn.parsers.blas import machine
from pyfn.resources import resource_path

NAME = "semafor"
MARKER = "src/main/java/edu/cmu/cs/lti/ark/fn/Semafor.java"
JWNL_MARKER = "src/net/didion/jwnl/JWNL.java"
UPSTREAM = "https://github.com/Noahs-ARK/semafor"
JWNL_UPSTREAM = "https://github.com/extjwnl/extjwnl"
JWNL_COMMIT = "4dfe952"
"""The last jwordnet SVN commit in extjwnl's history: JWNL 1.4_rc3, the version SEMAFOR's pom names."""
JAVA_PACKAGE = "openjdk-17-jdk-headless"
WORDNET_PACKAGE = "wordnet-base"
WORDNET_DIR = Path("/usr/share/wordnet")
DEBIAN_JARS = {
    "libguava-java": ("guava.jar",),
    "libcommons-io-java": ("commons-io.jar",),
    "libjsr305-java": ("jsr305.jar",),
    "libjackson2-databind-java": ("jackson-databind.jar", "jackson-core.jar", "jackson-annotations.jar"),
    "libjcommander-java": ("jcommander.jar",),
    "libcommons-logging-java": ("commons-logging.jar",),
}
TEST_JARS = {"junit4": ("junit4.jar", "hamcrest-core.jar")}
JAR_DIR = Path("/usr/share/java")
JAVA_OPTIONS = ("--add-exports", "java.xml/com.sun.org.apache.xpath.internal=ALL-UNNAMED")
"""``XmlUtils`` uses the JDK-internal ``XPathAPI``."""
STAGES = ("frameid", "argid")
SPLITS = ("train", "dev", "test")
FE_MAP = "framenet.frame.element.map"
LU_MAP = "framenet.original.map"
FRAME_COSTS = "frame_costs.csv"
COST_BASE, COST_HOPS = 0.8, 9
"""Frame costs: ``1 - 0.8**d`` for a frame ``d`` inheritance hops above another (at most 9), else 1."""

TRAINING = "edu.cmu.cs.lti.ark.fn.identification.training"
"""SEMAFOR's package of frame-identification training (and RequiredDataCreation)."""
Log = Callable[[str], None]
STOPPING_RULE = (
    "at most max_iterations evaluations of the objective and its gradient (SEMAFOR's iteration counter, which counts "
    "line-search trials; counted across restarts), or earlier when L-BFGS converges: ||gradient|| <= 1e-4 * "
    "max(1, ||weights||) (upstream's Lbfgs.STOPPING_THRESHOLD in riso's test)")


# --------------------------------------------------------------------------- set-up


def default_patch() -> Path:
    """The patch pyfn applies to SEMAFOR (javac 17, Guava 31, Debian's jackson, pcollections stand-in,
    warm start and budget of the argument trainer, the map writer and decoding given frames)."""
    return resource_path("parsers", "semafor.patch")


def default_config(stage: str) -> Path:
    """pyfn's training settings for ``stage`` (heap, threads, regularization, stopping rule)."""
    return resource_path("parsers", f"semafor-{_stage(stage)}.json")


def setup_instructions() -> str:
    """What to run before :func:`setup` when there is no checkout (the message of the refusal)."""
    return (
        "SEMAFOR is external: make a checkout and point SEMAFOR_HOME at it, with JWNL 1.4_rc3's sources:\n"
        f"  git clone {UPSTREAM} && export SEMAFOR_HOME=$PWD/semafor\n"
        f"  git clone {JWNL_UPSTREAM} jwnl && git -C jwnl checkout {JWNL_COMMIT} && export SEMAFOR_JWNL=$PWD/jwnl\n"
        f"  apt-get install {' '.join(required_packages())}   # or pass --install-packages\n"
        "  pyfn semafor setup\n"
        "pyfn copies the checkout, applies resources/parsers/semafor.patch to the copy and compiles it with javac "
        "(Maven is not needed; with Maven Central reachable, `mvn package` in your checkout builds upstream's jar, "
        "which pyfn does not use)."
    )


def required_packages() -> list[str]:
    """The Debian packages :func:`setup` needs."""
    return [JAVA_PACKAGE, WORDNET_PACKAGE, *DEBIAN_JARS, *TEST_JARS]


def _run(argv: Sequence[str], what: str, *, cwd: Path | None = None, env: dict | None = None) -> str:
    try:
        proc = subprocess.run(list(argv), capture_output=True, text=True, cwd=cwd, env=env, check=False)
    except OSError as exc:
        raise PyfnError(f"{what}: cannot run {argv[0]}: {exc.strerror}") from None
    if proc.returncode:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise PyfnError(f"{what}: `{' '.join(argv[:4])} ...` failed (exit {proc.returncode}): {tail}")
    return proc.stdout + proc.stderr


def _package_versions(packages: Sequence[str]) -> dict[str, str | None]:
    """Installed version of each Debian package (None: not installed)."""
    versions: dict[str, str | None] = {}
    for package in packages:
        proc = subprocess.run(["dpkg-query", "-W", "-f", "${Status}\t${Version}", package],
                              capture_output=True, text=True, check=False)
        status, _, version = proc.stdout.partition("\t")
        versions[package] = version if proc.returncode == 0 and status.endswith(" installed") else None
    return versions


def set_up_packages(apt_output: str) -> list[str]:
    """``NAME VERSION`` of each package dpkg set up, from ``apt-get install``'s output, in its order
    (the packages asked for and the dependencies apt added)."""
    return [f"{m[1]} {m[2]}" for m in re.finditer(r"^Setting up (\S+?)(?::\S+)? \((\S+)\)", apt_output, re.M)]


def _ensure_packages(install_packages: bool, log: Log) -> dict[str, str]:
    packages = required_packages()
    if shutil.which("dpkg-query") is None:
        raise PyfnError("SEMAFOR's set-up needs Debian's packages (no dpkg-query here): install "
                        + ", ".join(packages) + " or their equivalents, then run it on Debian")
    versions = _package_versions(packages)
    missing = [p for p, v in versions.items() if v is None]
    if missing and not install_packages:
        raise PyfnError("missing Debian packages for SEMAFOR: run `apt-get install " + " ".join(missing)
                        + "` (or `pyfn semafor setup --install-packages`)")
    if missing:
        log(f"{NAME}: apt-get update; apt-get install {' '.join(missing)}")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        _run(["apt-get", "update", "-q"], "apt-get update", env=env)
        output = _run(["apt-get", "install", "-y", "-q", *missing], "apt-get install", env=env)
        installed = set_up_packages(output)
        log(f"{NAME}: apt-get installed {len(installed)} package(s): {', '.join(installed) or 'none'}")
        versions = _package_versions(packages)
        still = [p for p, v in versions.items() if v is None]
        if still:
            raise PyfnError(f"apt-get install did not install {', '.join(still)}")
    return {p: str(v) for p, v in versions.items()}


def java_version(tool: str = "java") -> str:
    """The first line of ``java -version`` (or ``javac -version``); an error names the package to install."""
    if shutil.which(tool) is None:
        raise PyfnError(f"no {tool} on PATH: SEMAFOR needs a JDK (apt-get install {JAVA_PACKAGE})")
    return _run([tool, "-version"], tool).strip().splitlines()[0]


def _jars(table: dict[str, tuple[str, ...]]) -> list[Path]:
    jars = [JAR_DIR / name for names in table.values() for name in names]
    missing = [str(j) for j in jars if not j.is_file()]
    if missing:
        raise PyfnError(f"Debian jars not found: {', '.join(missing)}")
    return [j.resolve() for j in jars]


def _copy_checkout(home: Path, target: Path) -> dict:
    """Copy the files git tracks in ``home`` as they are in its work tree (``git archive`` would need every
    blob; GitHub's copy of SEMAFOR lacks some); returns what was absent or modified."""
    listed = _run(["git", "-C", str(home), "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                  f"{home}: git ls-tree").split("\0")
    modified = sorted(filter(None, _run(["git", "-C", str(home), "diff", "HEAD", "--name-only"],
                                        f"{home}: git diff").split("\n")))
    absent = []
    for name in filter(None, listed):
        source = home / name
        if not source.is_file():
            absent.append(name)
            continue
        dest = target / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)
    return {"absent": sorted(absent), "modified": [m for m in modified if m not in absent]}


def _sources(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.java"))


def _javac(sources: list[str], classes: Path, classpath: Sequence[Path], what: str) -> None:
    classes.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as listing:
        listing.write("\n".join(sources) + "\n")
    try:
        _run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(classes), "-cp", os.pathsep.join(map(str, classpath)),
              *JAVA_OPTIONS, f"@{listing.name}"], what)
    finally:
        os.unlink(listing.name)


def _jwnl(jwnl: Path, folder: Path, log: Log) -> tuple[Path, dict]:
    """JWNL 1.4_rc3 for SEMAFOR: compiled from a source tree (its ``src/`` and ``resources/``) or a jar."""
    jwnl = Path(jwnl).resolve()
    if jwnl.is_file():
        return jwnl, {"jar": str(jwnl), "sha256": sha256_file(jwnl)}
    if not (jwnl / JWNL_MARKER).is_file():
        raise PyfnError(f"{jwnl}: neither a JWNL jar nor a JWNL source tree (no {JWNL_MARKER})")
    classes = folder / "jwnl"
    log(f"{NAME}: compiling JWNL from {jwnl}")
    _javac(_sources(jwnl / "src"), classes, [JAR_DIR / "commons-logging.jar"], "javac JWNL")
    for props in (jwnl / "resources").glob("*.properties"):
        shutil.copy2(props, classes / props.name)
    version = re.search(r"<version>([^<]+)</version>", (jwnl / "pom.xml").read_text(encoding="utf-8", errors="replace"))
    record = {"source": str(jwnl), "version": version.group(1) if version else None}
    if (jwnl / ".git").exists():
        record["commit"] = _run(["git", "-C", str(jwnl), "rev-parse", "HEAD"], f"{jwnl}").strip()
    return classes, record


def _unit_tests(folder: Path, classpath: list[Path], log: Log) -> dict:
    """Compile and run SEMAFOR's JUnit tests against the copy; returns the counts and the failing tests."""
    src = folder / "src"
    test_jars = _jars(TEST_JARS)
    classes = folder / "test-classes"
    _javac(_sources(src / "src" / "test" / "java"), classes, [*classpath, *test_jars], "javac SEMAFOR's tests")
    names = sorted(str(p.relative_to(classes))[:-len(".class")].replace("/", ".")
                   for p in classes.rglob("*Test.class") if "$" not in p.name)
    log(f"{NAME}: running {len(names)} JUnit test classes")
    path = [classes, src / "src" / "test" / "resources", *classpath, *test_jars]
    proc = subprocess.run(["java", *JAVA_OPTIONS, "-cp", os.pathsep.join(map(str, path)), "org.junit.runner.JUnitCore",
                           *names], capture_output=True, text=True, cwd=src, check=False)
    out = proc.stdout + proc.stderr
    write_text(folder / "unit-tests.log", out)
    ok = re.search(r"^OK \((\d+) tests?\)", out, re.M)
    bad = re.search(r"^Tests run: (\d+),\s+Failures: (\d+)", out, re.M)
    failing = sorted(set(re.findall(r"^\d+\) (\S+)", out, re.M)))
    return {"classes": len(names), "run": int(ok.group(1)) if ok else int(bad.group(1)) if bad else 0,
            "failures": 0 if ok else int(bad.group(2)) if bad else None, "failing": failing,
            "log": "unit-tests.log"}


def classpath(installation: Path) -> list[str]:
    """The run-time class path of an installation (as recorded by :func:`setup`)."""
    return install.read_record(installation)["classpath"]


def setup(
    home: Path, jwnl: Path, root: Path | None = None, patches: list[Path] | None = None, *,
    install_packages: bool = False, unit_tests: bool = True, log: Log = lambda _: None,
) -> Path:
    """Build SEMAFOR from the checkout ``home`` under ``root`` (once per commit, patches, JWNL, jars, JDK);
    returns the installation folder (``src/`` the patched copy, ``classes/``, ``jwnl/``, ``install.json``)."""
    home = Path(home).resolve()
    commit = install.checkout_commit(home, MARKER)
    java, javac = java_version("java"), java_version("javac")
    packages = _ensure_packages(install_packages, log)
    jars = _jars(DEBIAN_JARS)
    chosen = [default_patch()] if patches is None else [Path(p) for p in patches]
    patch_digests = {p.name: sha256_file(p) for p in chosen}
    jwnl = Path(jwnl).resolve()
    if jwnl.is_file():
        jwnl_id = sha256_file(jwnl)
    else:
        jwnl_id = _run(["git", "-C", str(jwnl), "rev-parse", "HEAD"], str(jwnl)).strip() \
            if (jwnl / ".git").exists() else str(jwnl)
    key = hashlib.sha256(json.dumps([commit, sorted(patch_digests.items()), jwnl_id, packages, javac]).encode()
                         ).hexdigest()[:12]
    root = Path(root) if root else install.default_root()
    folder = root / f"{NAME}-{commit[:12]}-{key}"
    if (folder / install.RECORD).is_file():
        log(f"{NAME}: installed in {folder}")
        return folder
    with locked_directory(folder):
        for stale in ("src", "classes", "jwnl", "test-classes"):  # an interrupted set-up: never recorded, redone
            shutil.rmtree(folder / stale, ignore_errors=True)
        log(f"{NAME}: copying {home} at {commit[:12]} to {folder}")
        (folder / "src").mkdir()
        tree = _copy_checkout(home, folder / "src")
        if tree["absent"]:
            log(f"{NAME}: {len(tree['absent'])} tracked files absent from the checkout (not needed): "
                + ", ".join(tree["absent"]))
        for patch in chosen:
            log(f"{NAME}: applying {patch}")
            _run(["git", "apply", str(patch.resolve())], f"patch {patch}", cwd=folder / "src")
        jwnl_path, jwnl_record = _jwnl(jwnl, folder, log)
        libs = sorted((folder / "src" / "lib").rglob("*.jar"))
        build_path = [*jars, jwnl_path, *libs]
        log(f"{NAME}: compiling {folder / 'src'} with javac")
        started = time.monotonic()
        _javac(_sources(folder / "src" / "src" / "main" / "java"), folder / "classes", build_path, "javac SEMAFOR")
        seconds = round(time.monotonic() - started, 1)
        runtime = [folder / "classes", folder / "src" / "src" / "main" / "resources", *build_path]
        tests = _unit_tests(folder, runtime, log) if unit_tests else None
        record = {
            "parser": NAME, "checkout": str(home), "commit": commit, "patches": patch_digests, "tree": tree,
            "jwnl": jwnl_record, "java": java, "javac": javac, "packages": packages,
            "jars": {j.name: str(j) for j in jars}, "compile_seconds": seconds, "unit_tests": tests,
            "classpath": [str(p) for p in runtime],
        }
        write_text(folder / install.RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return folder


# --------------------------------------------------------------------------- run folder


def _stage(stage: str) -> str:
    if stage not in STAGES:
        raise UsageError(f"unknown stage {stage!r} (known: {', '.join(STAGES)})")
    return stage


def _link(target: Path, link: Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def _fields(line: str, path: Path, number: int) -> list[str]:
    fields = line.rstrip("\n").split("\t")
    if len(fields) < 8 or len(fields) % 2:
        raise PyfnError(f"{path}, line {number}: not a SEMAFOR frame-element line (8 columns and FE/span pairs)")
    return fields


def train_fe_map(frame_elements: Path) -> list[str]:
    """Frame to the frame elements the lines of ``frame_elements`` fill, as ``key TAB value`` lines (a frame
    seen without any: the key alone)."""
    fes: dict[str, set[str]] = {}
    with open(frame_elements, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = _fields(line, frame_elements, number)
            fes.setdefault(fields[3], set()).update(fields[8::2])
    return [f"{frame}\t{fe}" if fe else frame for frame in sorted(fes) for fe in (sorted(fes[frame]) or [""])]


def train_lu_map(frame_elements: Path, lemma_tags: Path) -> list[str]:
    """Frame to its targets in ``frame_elements`` as ``word_POS`` tokens joined by spaces (SEMAFOR's
    "hidden units"), read from the ``all.lemma.tags`` lines, as ``key TAB value`` lines."""
    sentences = []
    for number, line in enumerate(Path(lemma_tags).read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("\t")
        try:
            size = int(fields[0])
        except ValueError:
            raise PyfnError(f"{lemma_tags}, line {number}: no token count in column 1") from None
        if len(fields) < 1 + 2 * size:
            raise PyfnError(f"{lemma_tags}, line {number}: fewer than {2 * size} token and POS columns")
        sentences.append((fields[1:1 + size], fields[1 + size:1 + 2 * size]))
    lus: dict[str, set[str]] = {}
    for number, line in enumerate(Path(frame_elements).read_text(encoding="utf-8").splitlines(), 1):
        fields = _fields(line, frame_elements, number)
        sentence = int(fields[7])
        if sentence >= len(sentences):
            raise PyfnError(f"{frame_elements}, line {number}: sentence {sentence} beyond {lemma_tags}")
        words, tags = sentences[sentence]
        lus.setdefault(fields[3], set()).add(" ".join(f"{words[int(i)]}_{tags[int(i)]}" for i in fields[5].split("_")))
    return [f"{frame}\t{unit}" for frame in sorted(lus) for unit in sorted(lus[frame])]


_FN = "{http://framenet.icsi.berkeley.edu}"


def frame_costs(relations: bytes, frames: Sequence[str]) -> list[str]:
    """``frame_costs.csv`` (SEMAFOR's ``FrameCosts``): rows gold frames, columns predicted frames; a
    predicted frame ``d`` Inheritance hops above the gold one (d <= 9) costs ``1 - 0.8**d``, any other 1."""
    parents: dict[str, set[str]] = {}
    for kind in ET.fromstring(relations).iter(f"{_FN}frameRelationType"):
        if kind.get("name") == "Inheritance":
            for rel in kind.iter(f"{_FN}frameRelation"):
                parents.setdefault(rel.get("subFrameName"), set()).add(rel.get("superFrameName"))
    lines = ["," + ",".join(frames)]
    for frame in frames:
        hops, level, depth = {frame: 0}, [frame], 0
        while level and depth < COST_HOPS:
            depth += 1
            level = sorted({p for f in level for p in parents.get(f, ()) if p not in hops})
            hops.update((p, depth) for p in level)
        lines.append(frame + "," + ",".join(
            f"{1 - COST_BASE ** hops[other]:.4f}" if other in hops else "1.0" for other in frames))
    return lines


def _lexicon(source: Path, excluded: set[int]) -> tuple[dict[str, list[str]], dict[str, bytes], bytes]:
    """The frames with their frame elements, one small LU file for each lexical unit without exemplars
    (``RequiredDataCreation`` reads only their name and POS), and ``frRelation.xml`` of the release
    ``source``, frames ``excluded`` left out."""
    release = open_release(source)
    frames = {}
    for name in release.list("frame"):
        root = ET.fromstring(release.read(name))
        if int(root.get("ID")) not in excluded:
            frames[root.get("name")] = sorted(fe.get("name") for fe in root.iter(f"{_FN}FE"))
    lus = {}
    for name in release.list("lu"):
        root = ET.fromstring(release.read(name))
        if int(root.get("frameID")) in excluded or root.find(f"{_FN}subCorpus") is not None \
                or root.find("subCorpus") is not None:
            continue
        stub = ET.Element("lexUnit", {"name": root.get("name"), "POS": root.get("POS"), "ID": root.get("ID")})
        lus[Path(name).name] = ET.tostring(stub, encoding="utf-8", xml_declaration=True)
    if not release.exists("frRelation.xml"):
        raise PyfnError(f"{source}: no frRelation.xml (SEMAFOR's frame costs come from it)")
    return dict(sorted(frames.items())), lus, release.read("frRelation.xml")


def wordnet_config(installation: Path, wordnet: Path = WORDNET_DIR) -> str:
    """SEMAFOR's JWNL configuration with its dictionary path pointed at ``wordnet`` (Debian's WordNet 3.0)."""
    if not (Path(wordnet) / "index.noun").is_file():
        raise PyfnError(f"{wordnet}: no WordNet index.noun (apt-get install {WORDNET_PACKAGE})")
    text = (installation / "src" / "src" / "main" / "resources" / "file_properties.xml").read_text(encoding="utf-8")
    text, count = re.subn(r'(<param name="dictionary_path" value=")[^"]*(")', rf"\g<1>{wordnet}\g<2>", text)
    if count != 1:
        raise PyfnError(f"{installation}: file_properties.xml has {count} dictionary_path parameters, expected 1")
    return text


REQUIRED_DATA = {"allrelatedwordsfile": "allrelatedwords.ser", "hvcorrespondencefile": "hvmap.ser",
                 "wnrelatedwordsforwordsfile": "wnallrelwords.ser", "wnmapfile": "wnMap.ser",
                 "revisedmapfile": "revisedrelmap.ser", "lemmacachefile": "hvlemmas.ser",
                 "fnidreqdatafile": "reqData.jobj"}


def prepare(
    installation: Path, data: Path, source: Path, run: Path, *, lexicon: Path | None = None,
    fe_map: str = "train", fe_map_from: Path | None = None, required_data: bool = True, heap: str = "8g",
    log: Log = lambda _: None,
) -> dict:
    """Lay out ``run`` for SEMAFOR from pyfn's folder ``data`` (``pyfn convert --to semafor conllx``);
    returns the record (``RUN/prepare.json``).

    ``source`` is the release the data was built from (frames and their frame elements, ``frRelation.xml``).
    ``fe_map`` decides the frame elements the argument model enumerates for a frame (one it lacks is never
    predicted): ``train`` (default), those filled in the ``train.frame.elements`` of ``fe_map_from``
    (default: ``data``; a folder converted ``--with-exemplars`` gives the map of Kabbach et al. 2018, whose
    fork builds it from train plus exemplars); ``frames``, every frame element of the frame's definition.
    ``lexicon``
    (default: ``source``; e.g. ``pyfn generate``'s train-only folder) gives the lexical units without
    exemplars that ``RequiredDataCreation`` adds to frame identification's lexicon. With ``required_data``,
    ``RequiredDataCreation`` runs (frame identification and full parsing need it; arguments do not).
    """
    installed = install.read_record(installation)
    data, run = Path(data).resolve(), Path(run).resolve()
    needed = ["train.frame.elements", "train.sentences.conllx.flattened", "manifest.json"]
    missing = [name for name in needed if not (data / name).is_file()]
    if missing:
        raise PyfnError(f"{data}: no {', '.join(missing)} (convert with --to semafor conllx first)")
    excluded = set(json.loads((data / "manifest.json").read_text(encoding="utf-8"))["options"]["exclude_frames"])
    if fe_map not in ("frames", "train"):
        raise UsageError(f"--fe-map {fe_map!r}: frames or train")
    links = {"train.frame.elements": "train.frame.elements", "train.all.lemma.tags": "train.sentences.conllx.flattened"}
    for split in ("dev", "test"):
        links.update({f"{split}.frames": f"{split}.frames", f"{split}.sentences": f"{split}.sentences",
                      f"{split}.all.lemma.tags": f"{split}.sentences.conllx.flattened"})
    inputs = {name: sha256_file(data / original) for name, original in links.items() if (data / original).is_file()}
    lu_lines = train_lu_map(data / "train.frame.elements", data / "train.sentences.conllx.flattened")
    frames, lus, relations = _lexicon(Path(source), excluded)
    if fe_map == "frames":
        fe_lines = [f"{frame}\t{fe}" for frame, fes in frames.items() for fe in fes]
    else:
        fe_lines = train_fe_map(Path(fe_map_from or data) / "train.frame.elements")
    tables = {FE_MAP: fe_lines, LU_MAP: lu_lines}
    digests = {name: hashlib.sha256("".join(f"{line}\n" for line in lines).encode()).hexdigest()
               for name, lines in tables.items()}
    before = _check_unchanged(run, inputs, digests)
    for name, original in links.items():
        if name in inputs:
            _link(data / original, run / "data" / name)
    model = run / "model"
    model.mkdir(parents=True, exist_ok=True)
    maps = {}
    for name, lines in tables.items():
        if not (model / name).is_file() or before.get(name, {}).get("tsv_sha256") != digests[name]:  # kept while in use
            write_lines(model / f"{name}.tsv", lines)
            _java(installation, run, "maps", "edu.cmu.cs.lti.ark.fn.utils.SetMapFile",
                  [f"model/{name}.tsv", f"model/{name}"], heap="1g", threads=1, log_name=f"prepare-{name}")
        maps[name] = {"keys": len({line.split("\t")[0] for line in lines}), "entries": len(lines),
                      "tsv_sha256": digests[name], "sha256": sha256_file(model / name)}
    maps[FE_MAP]["source"] = "the frame elements of every frame of the release" if fe_map == "frames" else \
        f"the frame elements filled in {Path(fe_map_from or data).resolve() / 'train.frame.elements'}"
    if fe_map_from is not None:
        maps[FE_MAP]["from_sha256"] = sha256_file(Path(fe_map_from) / "train.frame.elements")
    maps[LU_MAP]["source"] = "the tagged targets of train"
    log(f"{NAME}: maps: {maps[FE_MAP]['keys']} frames with {maps[FE_MAP]['entries']} frame elements "
        f"({fe_map}), {maps[LU_MAP]['entries']} tagged targets (train)")
    write_lines(model / FRAME_COSTS, frame_costs(relations, list(frames)))
    write_text(model / "file_properties.xml", wordnet_config(installation))
    record = {
        "parser": NAME, "commit": installed["commit"], "patches": installed["patches"],
        "data": os.path.relpath(data, run), "inputs": inputs, "exclude_frames": sorted(excluded),
        "source": str(source), "maps": maps, "frame_costs": {"frames": len(frames), "relation": "Inheritance",
                                                              "cost": f"1 - {COST_BASE}**hops, hops <= {COST_HOPS}",
                                                              "sha256": sha256_file(model / FRAME_COSTS)},
        "wordnet": {"path": str(WORDNET_DIR), "package": installed["packages"].get(WORDNET_PACKAGE)},
        "java": installed["java"], "packages": installed["packages"], "jwnl": installed["jwnl"],
    }
    if required_data:
        lexicon_release = Path(lexicon or source)
        if lexicon is not None:
            _, lus, _ = _lexicon(lexicon_release, excluded)
        lu_dir = run / "framenet" / "lu"
        shutil.rmtree(lu_dir, ignore_errors=True)
        lu_dir.mkdir(parents=True)
        for name, content in lus.items():
            (lu_dir / name).write_bytes(content)
        stopwords = installation / "src" / "src" / "main" / "resources" / "stopwords.txt"
        args = [f"stopwords-file:{stopwords}", "wordnet-configfile:model/file_properties.xml",
                f"framenet-mapfile:model/{LU_MAP}", "luxmldir:framenet/lu",
                *(f"{option}:model/{name}" for option, name in REQUIRED_DATA.items())]
        log(f"{NAME}: RequiredDataCreation (WordNet {WORDNET_DIR}, {len(lus)} lexical units without exemplars)")
        seconds = _java(installation, run, "required-data", f"{TRAINING}.RequiredDataCreation", args, heap=heap,
                        threads=1)
        record["required_data"] = {"lexicon": str(lexicon_release), "lus_without_exemplars": len(lus),
                                   "seconds": seconds, "sha256": sha256_file(model / "reqData.jobj")}
    write_text(run / "prepare.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


TRAINING_INPUTS = ("train.frame.elements", "train.all.lemma.tags")


def _check_unchanged(run: Path, inputs: dict[str, str], maps: dict[str, str]) -> dict:
    """The maps a previous ``prepare`` recorded in ``run``; refuses, before anything is written, other training
    inputs or maps in a run folder whose training has begun."""
    path = run / "prepare.json"
    before = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if before and any((run / stage / "alphabet.done.json").is_file() for stage in STAGES):
        changed = [name for name in TRAINING_INPUTS if before["inputs"].get(name) != inputs.get(name)]
        changed += [name for name, digest in maps.items() if before["maps"][name]["tsv_sha256"] != digest]
        if changed:
            raise PyfnError(f"{run}: its training began on another {', '.join(changed)}; prepare a new run folder")
    return before.get("maps", {})


# --------------------------------------------------------------------------- running SEMAFOR


_CHATTER = re.compile(r"^(Task \d+ : (start|end)|Processing batch:\d+ thread ID:\d+)$")
"""Lines the argument trainer prints for every batch of ten frames (thousands per iteration): not logged."""


def _die_with_parent() -> None:
    """In the child: be sent SIGTERM when pyfn dies (Linux), so that no orphaned trainer runs on unseen."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def java_command(installation: Path, run: Path, cls: str, args: Sequence[str], *, heap: str, threads: int,
                 gc_log: Path | None = None) -> list[str]:
    """The ``java`` command line pyfn runs in ``run`` (``RUN/model`` first on the class path)."""
    path = [str(Path(run).resolve() / "model"), *classpath(installation)]
    return ["java", f"-Xmx{heap}", "-XX:+UseParallelGC", f"-XX:ParallelGCThreads={threads}",
            *([f"-Xlog:gc:file={gc_log}"] if gc_log else []), *JAVA_OPTIONS, "-cp", os.pathsep.join(path), cls, *args]


def _java(installation: Path, run: Path, step: str, cls: str, args: Sequence[str], *, heap: str, threads: int,
          log_name: str | None = None) -> float:
    """Run SEMAFOR's ``cls`` in ``run``; its output goes to ``RUN/logs/NAME.log`` (appended, each line after the
    Unix time it was read; the command and the exit status too), the heap to ``RUN/logs/NAME.gc.TIME.log``.
    Returns the seconds it took; a failure is an error with the end of the log."""
    run = Path(run)
    name = log_name or step
    logs = run / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.time()
    argv = java_command(installation, run, cls, args, heap=heap, threads=threads,
                        gc_log=logs / f"{name}.gc.{int(started)}.log")
    log_file = logs / f"{name}.log"
    tail: list[str] = []
    with log_file.open("a", encoding="utf-8") as out:
        out.write(f"{started:.3f} $ {' '.join(argv)}\n")
        out.flush()
        try:
            proc = subprocess.Popen(argv, cwd=run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    errors="replace", preexec_fn=_die_with_parent)
        except OSError as exc:
            raise PyfnError(f"{NAME} {step}: cannot run java: {exc.strerror}") from None
        assert proc.stdout is not None
        for line in proc.stdout:
            if _CHATTER.match(line.rstrip("\n")):
                continue
            out.write(f"{time.time():.3f} {line if line.endswith(chr(10)) else line + chr(10)}")
            out.flush()
            tail = (tail + [line.strip()])[-3:]
        code = proc.wait()
        out.write(f"{time.time():.3f} $ exit {code}\n")
    if code:
        raise PyfnError(f"{NAME} {step} failed (exit {code}; log {log_file}): {' | '.join(tail)}")
    return round(time.time() - started, 1)


def _check_run(run: Path) -> dict:
    try:
        return json.loads((Path(run) / "prepare.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PyfnError(f"{run}: not a prepared SEMAFOR run folder (run `pyfn semafor prepare` first)") from None


def _done(marker: Path) -> dict | None:
    return json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else None


def _step(installation: Path, run: Path, stage: str, step: str, cls: str, args: Sequence[str],
          outputs: Sequence[str], settings: dict, log: Log) -> dict:
    """Run one step unless its record ``RUN/STAGE/STEP.done.json`` says it finished (outputs of an
    unfinished attempt are removed first)."""
    marker = Path(run) / stage / f"{step}.done.json"
    if (record := _done(marker)) is not None:
        log(f"{NAME}: {stage} {step}: done ({record['seconds']} s)")
        return record
    for output in outputs:
        (Path(run) / output).unlink(missing_ok=True)
    log(f"{NAME}: {stage} {step} ({cls.rsplit('.', 1)[-1]}; log {Path(run) / 'logs' / f'{stage}-{step}.log'})")
    seconds = _java(installation, run, f"{stage} {step}", cls, args, heap=settings["heap"],
                    threads=settings["threads"], log_name=f"{stage}-{step}")
    record = {"step": step, "class": cls, "seconds": seconds,
              "outputs": {o: (Path(run) / o).stat().st_size for o in outputs}}
    write_text(marker, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


_CHECKPOINT = re.compile(r"_(\d+)$")


def checkpoints(folder: Path, prefix: str) -> list[tuple[int, Path]]:
    """The saved models ``PREFIX_N`` in ``folder``, by N."""
    found = []
    for path in Path(folder).glob(f"{prefix}_*"):
        match = _CHECKPOINT.search(path.name)
        if match and path.is_file():
            found.append((int(match.group(1)), path))
    return sorted(found)


def _count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))


def last_complete_checkpoint(folder: Path, prefix: str, size: int) -> tuple[int, Path] | None:
    """The last ``PREFIX_N`` holding ``size`` weights (SEMAFOR writes them in place: a process killed
    while writing leaves a short file, which is skipped)."""
    for number, path in reversed(checkpoints(folder, prefix)):
        if _count_lines(path) == size:
            return number, path
    return None


ATTEMPTS = "attempts.json"
TRAINED = "pyfn-train.json"


def _attempts(folder: Path) -> list[dict]:
    path = Path(folder) / ATTEMPTS
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


def train(installation: Path, run: Path, stage: str, config: Path, log: Log = lambda _: None) -> dict:
    """Train ``stage`` in ``run`` with the settings ``config`` (heap, threads, lambda, stopping rule).

    Done once: ``RUN/STAGE/pyfn-train.json`` marks a finished training. Each step is skipped once
    recorded done; the L-BFGS step warm-starts from its last complete saved model (its weights; the
    L-BFGS memory of past steps is lost) and ``RUN/STAGE/attempts.json`` records every start.
    """
    stage = _stage(stage)
    _check_run(run)
    run = Path(run).resolve()
    settings = json.loads(Path(config).read_text(encoding="utf-8"))
    folder = run / stage
    if (record := _done(folder / TRAINED)) is not None:
        log(f"{NAME}: {stage} is trained ({folder / TRAINED})")
        return record
    with locked_directory(folder):
        if stage == "argid":
            return _train_argid(installation, run, settings, log)
        return _train_frameid(installation, run, settings, log)


def _lbfgs(installation: Path, run: Path, stage: str, cls: str, args: list[str], model: str, size: int,
           settings: dict, restart_option: str, log: Log) -> dict:
    """The L-BFGS step: from the last complete checkpoint when there is one; records the attempt first."""
    folder = run / stage
    attempts = _attempts(folder)
    start = last_complete_checkpoint(folder, model, size)
    installed = install.read_record(installation)
    attempt = {"number": len(attempts) + 1, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "installation": installation.name, "patches": installed["patches"], "settings": settings,
               "restart_from": start[1].name if start else None,
               "restart_sha256": sha256_file(start[1]) if start else None,
               "lbfgs_memory": "lost (warm start from the saved weights only)" if start else "fresh start",
               "machine": machine()}
    skipped = [p.name for n, p in checkpoints(folder, model) if start is None or n > start[0]]
    if skipped:
        attempt["incomplete_checkpoints_removed"] = skipped
        for name in skipped:
            (folder / name).unlink()
    write_text(folder / ATTEMPTS, json.dumps([*attempts, attempt], indent=1) + "\n")
    args = [*args, f"{restart_option}:{stage}/{start[1].name}" if start else f"{restart_option}:null"]
    if start:
        log(f"{NAME}: {stage}: resuming from {start[1].name} (attempt {attempt['number']}; L-BFGS memory lost)")
    (folder / model).unlink(missing_ok=True)
    seconds = _java(installation, run, f"{stage} training", cls, args, heap=settings["heap"],
                    threads=settings["threads"], log_name=f"{stage}-train")
    final = folder / model
    text = (run / "logs" / f"{stage}-train.log").read_text(encoding="utf-8", errors="replace")
    stopped = re.findall(r"Stopped at iteration:(\d+) \((\w+)\)", text)
    if not final.is_file() or not stopped:
        raise PyfnError(f"{NAME} {stage} training ended without its final model {final} "
                        f"(an L-BFGS line search failure? see {run / 'logs' / f'{stage}-train.log'})")
    record = {"stage": stage, "settings": settings, "attempts": len(attempts) + 1,
              "iterations": int(stopped[-1][0]), "stopped": stopped[-1][1], "last_attempt_seconds": seconds,
              "model": f"{stage}/{model}", "model_sha256": sha256_file(final), "machine": machine()}
    write_text(folder / TRAINED, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def _train_argid(installation: Path, run: Path, settings: dict, log: Log) -> dict:
    """CreateAlphabet, FrameFeaturesCache, TrainingBatchMain (upstream's ``training/4_*.sh``)."""
    fe = "data/train.frame.elements"
    _step(installation, run, "argid", "alphabet", "edu.cmu.cs.lti.ark.fn.parsing.CreateAlphabet",
          [fe, "data/train.all.lemma.tags", "argid/events.bin", "argid/parser.conf", "argid/spans", "true", "1",
           "null"],
          ["argid/events.bin", "argid/parser.conf", "argid/spans"], settings, log)
    _step(installation, run, "argid", "cache", "edu.cmu.cs.lti.ark.fn.parsing.FrameFeaturesCache",
          ["eventsfile:argid/events.bin", "spansfile:argid/spans", f"train-framefile:{fe}",
           "localfeaturescache:argid/featurecache.jobj"], ["argid/featurecache.jobj"], settings, log)
    size = alphabet_size(run / "argid" / "parser.conf")
    args = ["model:argid/argmodel.dat", "alphabetfile:argid/parser.conf", "localfeaturescache:argid/featurecache.jobj",
            f"train-framefile:{fe}", "regularization:reg", f"lambda:{settings['lambda']}",
            f"numthreads:{settings['threads']}", "binaryoverlapfactor:false",
            f"maxiterations:{settings['max_iterations']}", f"saveevery:{settings['save_every']}"]
    return _lbfgs(installation, run, "argid", "edu.cmu.cs.lti.ark.fn.parsing.TrainingBatchMain", args, "argmodel.dat",
                  size, settings, "restartfile", log)


def alphabet_size(path: Path) -> int:
    """The number of weights of the argument model: the alphabet's first line (its largest index) plus one."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline().strip()
    if not first.isdigit():
        raise PyfnError(f"{path}: no feature count on its first line")
    return int(first) + 1


def _train_frameid(installation: Path, run: Path, settings: dict, log: Log) -> dict:
    """Alphabet, feature events, TrainBatch, ConvertAlphabetFile (upstream's ``training/3_*.sh``); needs
    ``reqData.jobj`` (prepare without --no-required-data)."""
    if not (run / "model" / "reqData.jobj").is_file():
        raise PyfnError(f"{run}: no model/reqData.jobj; run `pyfn semafor prepare` with RequiredDataCreation first")
    fe, tags = "data/train.frame.elements", "data/train.all.lemma.tags"
    count = sum(1 for _ in open(run / fe, encoding="utf-8"))
    common = [f"train-fefile:{fe}", f"train-parsefile:{tags}", "fnidreqdatafile:model/reqData.jobj",
              f"id-feature-extractor-type:{settings['features']}", "startindex:0", f"endindex:{count}",
              f"numthreads:{settings['threads']}"]
    (run / "frameid" / "events").mkdir(parents=True, exist_ok=True)
    for log_file in ("frameid/alphabet.out", "frameid/events.out"):  # SEMAFOR refuses an existing log file
        (run / log_file).unlink(missing_ok=True)
    _step(installation, run, "frameid", "alphabet",
          f"{TRAINING}.AlphabetCreationThreaded",
          [*common, "logoutputfile:frameid/alphabet.out", "model:frameid"], ["frameid/alphabet.dat"], settings, log)
    _step(installation, run, "frameid", "events", f"{TRAINING}.ExtractTrainingFeatures",
          [*common, "logoutputfile:frameid/events.out", "model:frameid/alphabet.dat", "eventsfile:frameid/events"],
          [], settings, log)
    size = _count_lines(run / "frameid" / "alphabet.dat")
    (run / "frameid" / "train.out").unlink(missing_ok=True)
    args = ["alphabetfile:frameid/alphabet.dat", "eventsfile:frameid/events", "model:frameid/idmodel.dat",
            f"regularization:{settings['regularization']}", f"lambda:{settings['lambda']}",
            "logoutputfile:frameid/train.out", f"numthreads:{settings['threads']}", "use-partial-credit:true",
            f"cost-multiple:{settings['cost_multiple']}", f"maxiterations:{settings['max_iterations']}",
            f"saveevery:{settings['save_every']}"]
    record = _lbfgs(installation, run, "frameid", f"{TRAINING}.TrainBatch", args,
                    "idmodel.dat", size, settings, "restartfile", log)
    _java(installation, run, "frameid convert", f"{TRAINING}.ConvertAlphabetFile",
          ["frameid/alphabet.dat", "frameid/idmodel.dat", "frameid/idmodel.converted.dat", settings["features"]],
          heap=settings["heap"], threads=1, log_name="frameid-convert")
    return record


# --------------------------------------------------------------------------- progress


_TIMED = re.compile(r"^(\d+\.\d+) (.*)$")


def _gc_heap(paths: Sequence[Path]) -> dict:
    """The largest heap occupancy before a collection and the largest committed heap, in MB, over GC logs."""
    used = committed = 0
    for path in paths:
        for before, total in re.findall(r"(\d+)M->\d+M\((\d+)M\)", path.read_text(encoding="utf-8", errors="replace")):
            used, committed = max(used, int(before)), max(committed, int(total))
    return {"peak_used_mb": used, "peak_committed_mb": committed, "gc_logs": len(paths)}


def _read_attempts(log_file: Path) -> list[dict]:
    """Each start of the L-BFGS step in its log: objective values with the time each was read."""
    attempts: list[dict] = []
    if not log_file.is_file():
        return attempts
    current: dict | None = None
    iteration = None
    for line in log_file.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _TIMED.match(line)
        if not match:
            continue
        stamp, text = float(match.group(1)), match.group(2)
        if text.startswith("$ java"):
            current = {"started": stamp, "values": [], "restart_iteration": 0, "exit": None, "ended": stamp,
                       "stopped": None, "lbfgs": None}
            attempts.append(current)
            continue
        if current is None:
            continue
        current["ended"] = stamp
        if text.startswith("$ exit "):
            current["exit"] = int(text[7:])
        elif m := re.match(r"Restarting from \S+ at iteration (\d+)", text):
            current["restart_iteration"] = int(m.group(1))
        elif m := re.match(r"Starting iteration:\s*(\d+)", text):
            iteration = int(m.group(1))
        elif m := re.match(r"Function value:\s*(\S+)", text):
            current["values"].append((iteration, float(m.group(1)), stamp))
        elif m := re.match(r"\t(\d+)\t(\d+)\t\S+\t(\S+)\t(\S+)$", text):  # riso's L-BFGS: i, nfn, f, |g|, step
            current["lbfgs"] = {"iterations": int(m.group(1)), "evaluations": int(m.group(2)),
                                "gradient_norm": float(m.group(3)), "step": float(m.group(4))}
        elif m := re.match(r"Stopped at iteration:(\d+) \((\w+)\)", text):
            current["stopped"] = {"iteration": int(m.group(1)), "reason": m.group(2)}
    return attempts


def _median(values: Sequence[float]) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def objective(run: Path, stage: str = "argid") -> list[tuple[int, float]]:
    """The objective at every evaluation of the L-BFGS step, every attempt in order: (iteration, value)."""
    log_file = Path(run) / "logs" / f"{_stage(stage)}-train.log"
    return [(iteration, value) for attempt in _read_attempts(log_file) for iteration, value, _ in attempt["values"]]


def progress(run: Path, stage: str = "argid", *, resume_command: str | None = None) -> dict:
    """The state of a training, read from the run folder: steps done, every attempt of the L-BFGS step
    (restarts, where from, L-BFGS memory lost), objective per iteration, seconds per iteration, checkpoints
    (sha256), peak heap (GC logs), whether a process is training now."""
    run = Path(run).resolve()
    _check_run(run)
    stage = _stage(stage)
    folder = run / stage
    logs = run / "logs"
    recorded = _attempts(folder)
    parsed = _read_attempts(logs / f"{stage}-train.log")
    attempts, trace, per_iteration = [], [], []
    for i, attempt in enumerate(parsed):
        values = attempt["values"]
        gaps = [b[2] - a[2] for a, b in zip(values, values[1:])]
        per_iteration += gaps
        trace += [[it, value] for it, value, _ in values]
        attempts.append({
            **(recorded[i] if i < len(recorded) else {}),
            "iterations": [values[0][0], values[-1][0]] if values else None,
            "first_value_seconds": round(values[0][2] - attempt["started"], 1) if values else None,
            "median_seconds_per_iteration": round(_median(gaps), 1) if gaps else None,
            "wall_seconds": round(attempt["ended"] - attempt["started"], 1),
            "lbfgs_last": attempt["lbfgs"], "exit": attempt["exit"], "stopped": attempt["stopped"]})
    lock = folder / ".pyfn.lock"
    pid = int(lock.read_text().strip() or 0) if lock.is_file() else 0
    trained = _done(folder / TRAINED)
    status = "finished" if trained else "running" if pid and pid_alive(pid) else "stopped" if parsed else "not started"
    model = "argmodel.dat" if stage == "argid" else "idmodel.dat"
    steps = {p.name[:-len(".done.json")]: _done(p) for p in sorted(folder.glob("*.done.json"))}
    for step in ("alphabet", "cache", "events"):  # begun, not recorded done: when its last attempt started
        log_file = logs / f"{stage}-{step}.log"
        if step not in steps and log_file.is_file():
            starts = re.findall(r"^(\d+\.\d+) \$ java", log_file.read_text(encoding="utf-8", errors="replace"), re.M)
            if starts:
                steps[step] = {"unfinished": True, "attempts": len(starts), "last_started": time.strftime(
                    "%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(starts[-1])))}
    saved = [{"name": p.name, "iteration": n, "sha256": sha256_file(p), "bytes": p.stat().st_size,
              "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(p.stat().st_mtime))}
             for n, p in checkpoints(folder, model)]
    values = [v for _, v in trace]
    settings = recorded[-1]["settings"] if recorded else None
    done = trace[-1][0] + 1 if trace else 0
    recent = _median(per_iteration[-10:]) if per_iteration else None
    left = max(0, settings["max_iterations"] - done) if settings and not trained else None
    return {
        "stage": stage, "run": str(run), "status": status, "steps": steps,
        "settings": settings, "stopping_rule": STOPPING_RULE,
        "attempts": attempts, "restarts": max(0, len(parsed) - 1),
        "restart_note": "each restart warm-starts from the saved weights of the last complete checkpoint; the L-BFGS "
                        "memory (its last correction pairs) is not saved and is lost",
        "iterations_done": done,
        "remaining": None if left is None else {
            "iterations_at_most": left,
            "seconds_at_recent_speed": round(left * recent) if recent is not None else None,
            "note": "an upper bound: L-BFGS may converge earlier; the speed is the median of the last 10 iterations"},
        "objective": {"first": values[0] if values else None, "last": values[-1] if values else None,
                      "best": min(values) if values else None, "trace": trace},
        "seconds_per_iteration": {"median": round(_median(per_iteration), 1) if per_iteration else None,
                                  "median_last_10": round(_median(per_iteration[-10:]), 1) if per_iteration else None},
        "training_wall_seconds": round(sum(a["wall_seconds"] for a in attempts), 1),
        "checkpoints": saved,
        "heap": {step: _gc_heap(sorted(logs.glob(f"{stage}-{step}.gc.*.log")))
                 for step in ("alphabet", "cache", "events", "train") if list(logs.glob(f"{stage}-{step}.gc.*.log"))},
        "trained": trained,
        "resume_command": resume_command,
    }


# --------------------------------------------------------------------------- decoding


def decode(installation: Path, run: Path, split: str, output: Path, *, frames: Path | None = None,
           model: str | None = None, settings: dict | None = None, log: Log = lambda _: None) -> dict:
    """Arguments of ``split`` given its frames and targets: the gold ones (``RUN/data/SPLIT.frames``) or
    ``frames`` (a SEMAFOR ``.frames`` file of predicted frames for the same sentences). ``model`` is the
    trained ``argmodel.dat`` (default) or a checkpoint name (``argmodel.dat_N``). Writes
    ``OUTPUT/SPLIT.frame.elements`` and ``OUTPUT/SPLIT.sentences`` (for ``pyfn convert --from semafor``)
    and ``OUTPUT/SPLIT.semafor.json``: the model's sha256 and whether it is the model its finished training
    ended with (``training``: a checkpoint is ``unfinished``). A final model that differs from what its
    training recorded is refused."""
    prepared = _check_run(run)
    run = Path(run).resolve()
    if split not in ("dev", "test"):
        raise UsageError(f"split {split!r}: decode dev or test")
    trained = _done(run / "argid" / TRAINED)
    name = model or "argmodel.dat"
    weights = run / "argid" / name
    if not weights.is_file() or (model is None and trained is None):
        raise PyfnError(f"{weights}: no trained argument model (run `pyfn semafor train --stage argid` first, "
                        "or name a checkpoint with --model)")
    if model is not None and (found := _count_lines(weights)) != (size := alphabet_size(run / "argid" / "parser.conf")):
        raise PyfnError(f"{weights}: {found:,} weights where the alphabet has {size:,}: a checkpoint "
                        "being written or cut by a kill (name a complete one)")
    model_sha = sha256_file(weights)
    final = trained is not None and f"argid/{name}" == trained["model"]
    if final and model_sha != trained["model_sha256"]:
        raise PyfnError(f"{weights}: sha256 {model_sha[:12]}... is not the {trained['model_sha256'][:12]}... its "
                        f"finished training recorded in {TRAINED}: the model changed after its training")
    given = Path(frames).resolve() if frames else run / "data" / f"{split}.frames"
    tags = run / "data" / f"{split}.all.lemma.tags"
    for path in (given, tags, run / "data" / f"{split}.sentences"):
        if not path.is_file():
            raise PyfnError(f"{path}: missing (prepare from a folder converted with --to semafor conllx)")
    settings = settings or json.loads(default_config("argid").read_text(encoding="utf-8"))
    work = run / "decode"
    work.mkdir(exist_ok=True)
    for stale in (f"{split}.events.bin", f"{split}.spans"):
        (work / stale).unlink(missing_ok=True)
    log(f"{NAME}: features of {split} ({given.name}) with the training alphabet")
    _java(installation, run, f"decode {split} features", "edu.cmu.cs.lti.ark.fn.parsing.CreateAlphabet",
          [str(given), str(tags), f"decode/{split}.events.bin", "argid/parser.conf", f"decode/{split}.spans", "false",
           "1", "null"], heap=settings["heap"], threads=1, log_name=f"decode-{split}")
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    produced = work / f"{split}.frame.elements"
    log(f"{NAME}: decoding the arguments of {split} with {name}")
    seconds = _java(installation, run, f"decode {split}", "edu.cmu.cs.lti.ark.fn.parsing.DecodeGivenFrames",
                    [str(given), f"decode/{split}.events.bin", f"decode/{split}.spans", "argid/parser.conf",
                     f"argid/{name}", str(produced)], heap=settings["heap"], threads=1, log_name=f"decode-{split}")
    for source, target in ((produced, f"{split}.frame.elements"), (run / "data" / f"{split}.sentences",
                                                                   f"{split}.sentences")):
        with atomic_writer(output / target, "wb") as handle, open(source, "rb") as read:
            shutil.copyfileobj(read, handle)
    record = {"split": split, "frames": "gold" if frames is None else str(frames), "frames_sha256": sha256_file(given),
              "model": name, "model_sha256": model_sha, "training": "finished" if final else "unfinished",
              "commit": prepared["commit"],
              "seconds": seconds, "predictions_sha256": sha256_file(output / f"{split}.frame.elements")}
    write_text(output / f"{split}.semafor.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record
