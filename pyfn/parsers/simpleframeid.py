"""SimpleFrameId (Hartmann et al. 2017, UKPLab/eacl2017-oodFrameNetSRL) run on pyfn's data.

Four steps, each leaving a JSON record beside its outputs, in the pattern of :mod:`pyfn.parsers.open_sesame`:

- :func:`setup`: a patched copy of the user's checkout (``resources/parsers/simpleframeid.patch``), its
  pinned Python 2.7 packages installed for a Python 2.7 interpreter into ``site/`` (SimpleFrameId is Python
  2 code: print statements, ``networkx`` 1.x graphs, Keras 1 argument names), and a Python 3 virtual
  environment with gensim for the word vectors pyfn trains when none are given (:mod:`pyfn.parsers.install`);
- :func:`prepare`: a *run folder* holding what SimpleFrameId reads, from pyfn's files:
  ``corpora/{split}.frame.elements`` (pyfn's ``.frame.elements`` or ``.frames``) and
  ``corpora/{split}.all.lemma.tags`` (pyfn's SEMAFOR files, the latter carrying the dependency parse of
  pyfn's preprocessing, from which DEPBOW takes a target's
  dependents and head), ``lexicons/lexicon.tsv`` (the train-only lexicon of ``pyfn generate`` in
  SimpleFrameId's ``Frame<TAB>lemma.pos`` layout) and ``embeddings/vectors.txt``;
- :func:`train`: one configuration (classifier ``nn`` or ``wsb``, context ``sentbow`` or ``depbow``) as
  ``models/{model}``, with a recorded seed, one thread and upstream's own hyper-parameters;
- :func:`decode`: a split's gold targets, the predicted frames written as ``{split}.frames`` (SEMAFOR's
  layout) with ``{split}.sentences``, for ``pyfn convert --from semafor --to semeval``.

Training and decoding run :mod:`pyfn.parsers.simpleframeid_script` under the Python 2.7 interpreter with the
patched ``simpleFrameId/`` and ``site/`` on ``PYTHONPATH``, Keras on Theano, one BLAS thread.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pyfn.errors import PyfnError, UsageError
from pyfn.fileio import sha256_file, write_lines, write_text
from pyfn.parsers import install
from pyfn.parsers.blas import blas_env, machine
from pyfn.parsers.blas import record as blas_record
from pyfn.resources import resource_path
from pyfn.scoring.frameid import read_lu_frames

NAME = "simpleframeid"
MARKER = "simpleFrameId/classifier.py"
SITE_PINS = ("numpy==1.16.6", "scipy==1.2.3", "scikit-learn==0.20.4", "Keras==2.2.4", "Theano==1.0.5",
             "lightfm==1.15", "networkx==1.11", "h5py==2.10.0")
"""SimpleFrameId's dependencies for Python 2.7 as the registry still serves them: networkx 1.11 because
its graphs return lists (``predecessors(n)[0]``), Keras 2.2.4 accepts the Keras 1 names, Theano as its
backend, h5py to save the MLP between train and decode."""
PINS = ("gensim==4.4.0", "numpy==2.4.6")
"""The Python 3 environment's: gensim for :mod:`pyfn.parsers.word2vec_script`."""
PYTHON_ENV = "SIMPLEFRAMEID_PYTHON"
DEFAULT_PYTHON = "python2.7"
SPLITS = ("train", "dev", "test")
CLASSIFIERS = ("nn", "wsb")
CONTEXTS = ("sentbow", "depbow")
WSABIE = {"components": 1500, "max_sampled": 10, "epochs": 500}
"""WSABIE's hyper-parameters in upstream's ``main.py`` (the MLP's are fixed in its ``classifier.py``:
256-100 ReLU, Adagrad, 100 epochs)."""
DIM = 100
"""Dimension of the vectors pyfn trains (upstream's README uses Levy's 300-d dependency-based vectors; 100 keeps
word2vec on fulltext + exemplar text, and the MLP's and WSABIE's input, three times smaller on a small machine)."""
W2V_EPOCHS = 5
"""word2vec's passes over the text (gensim's default; the text of fulltext train + exemplars has some 3.7 million
tokens on FN 1.5)."""
VECTORS = "embeddings/vectors.txt"
TRAINED = "pyfn-train.json"
HASH_SEED = "0"

Log = Callable[[str], None]


def default_patch() -> Path:
    """The patch pyfn applies to SimpleFrameId (see its comments: WSABIE's sparse inputs, seed and thread)."""
    return resource_path("parsers", "simpleframeid.patch")


def setup(home: Path, python: str, root: Path | None = None, patches: list[Path] | None = None,
          log: Log = lambda _: None) -> Path:
    """Install SimpleFrameId from the checkout ``home`` for the Python 2.7 interpreter ``python`` (once per
    commit, patches, pins and interpreter version)."""
    chosen = [default_patch()] if patches is None else patches
    version = install.interpreter_version(python)
    if not version.startswith("Python 2.7"):
        raise PyfnError(f"{python}: {version}; SimpleFrameId is Python 2.7 code (pass --python or set {PYTHON_ENV})")
    return install.install(NAME, Path(home), MARKER, chosen, PINS, root or install.default_root(), log,
                           site_python=python, site_pins=SITE_PINS)


def _env(installation: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(installation / "site"), str(installation / "src" / "simpleFrameId")]),
        PYTHONHASHSEED=HASH_SEED, KERAS_BACKEND="theano", KERAS_HOME=str(installation / "keras"),
        THEANO_FLAGS=f"base_compiledir={installation / 'theano'}",
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **blas_env(),
    )
    return env


def _call(argv: list[str], installation: Path, what: str, log_file: Path) -> str:
    """Run ``argv`` with SimpleFrameId's environment, its output appended to ``log_file``."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        with log_file.open("a", encoding="utf-8") as handle:
            handle.write(f"$ {' '.join(argv)}\n")
            handle.flush()
            proc = subprocess.run(argv, env=_env(installation), stdout=handle, stderr=subprocess.STDOUT, check=False)
    except OSError as exc:
        raise PyfnError(f"{what}: cannot run {argv[0]}: {exc.strerror} (run `pyfn simpleframeid setup` first)"
                        ) from None
    output = log_file.read_text(encoding="utf-8", errors="replace")
    if proc.returncode:
        tail = " | ".join(line.strip() for line in output.strip().splitlines()[-3:])
        raise PyfnError(f"{what} failed (exit {proc.returncode}; log: {log_file}): {tail}")
    return output


def _script() -> str:
    return str(Path(__file__).with_name("simpleframeid_script.py"))


def lexicon_lines(lu_frames: dict[str, frozenset[str]]) -> list[str]:
    """SimpleFrameId's lexicon (``Frame<TAB>lemma.pos``, one pair a line) from pyfn's ``lu_frames.tsv``.

    LU names are lower-cased: SimpleFrameId lower-cases the ``.frame.elements`` LU column before it looks an
    LU up, so a name such as ``Monday.n`` would otherwise never be found. Pairs are listed once (its lexicon
    calls an LU ambiguous when it has more than one line) and sorted, for identical files run after run.
    """
    pairs = {(frame, lu.lower()) for lu, frames in lu_frames.items() for frame in frames}
    return [f"{frame}\t{lu}" for frame, lu in sorted(pairs, key=lambda p: (p[1], p[0]))]


def _link(target: Path, link: Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def _has_header(path: Path) -> bool:
    """Whether the first line of a text embeddings file is word2vec's ``COUNT DIM`` header."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        fields = handle.readline().split()
    return len(fields) == 2 and all(f.isdigit() for f in fields)


def _without_header(source: Path, target: Path) -> None:
    """``source`` without its first line (SimpleFrameId reads every line as a word and its vector)."""
    scratch = target.with_name(f".{target.name}.tmp")
    target.parent.mkdir(parents=True, exist_ok=True)
    with source.open("rb") as src, scratch.open("wb") as dst:
        src.readline()
        shutil.copyfileobj(src, dst)
    scratch.replace(target)


def _text_digest(texts: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in texts:
        digest.update(sha256_file(path).encode())
    return digest.hexdigest()


def _vectors(installation: Path, run: Path, embeddings: Path | None, texts: Sequence[Path], previous: dict,
             log: Log) -> dict:
    """Lay out ``run/embeddings/vectors.txt``: the user's file (linked, or copied without a word2vec header), or
    word2vec vectors trained on ``texts`` (reused when a previous prepare trained them on the same text)."""
    target = run / VECTORS
    if embeddings is not None:
        if _has_header(embeddings):
            _without_header(embeddings, target)
        else:
            _link(embeddings.resolve(), target)
        return {"source": embeddings.name, "sha256": sha256_file(embeddings)}
    how = {"text": [str(t) for t in texts], "text_sha256": _text_digest(texts), "dim": DIM, "epochs": W2V_EPOCHS,
           "trainer": "pyfn/parsers/word2vec_script.py (gensim Word2Vec: skip-gram, window 5, min_count 1, "
                      "one worker, seed 1, PYTHONHASHSEED 0; lower-cased whitespace tokens)",
           "openblas_coretype": blas_record()}
    old = previous.get("embeddings", {})
    if old.get("how", {}) == how and target.is_file() and sha256_file(target) == old.get("sha256"):
        log(f"{NAME}: word2vec vectors already trained on this text ({target})")
        return old
    corpus = run / "embeddings" / "text.txt"
    corpus.parent.mkdir(parents=True, exist_ok=True)
    with corpus.open("wb") as out:
        for path in texts:
            with path.open("rb") as src:
                shutil.copyfileobj(src, out)
    raw = run / "embeddings" / "word2vec.txt"
    log(f"{NAME}: training {DIM}-d word2vec vectors on {', '.join(str(t) for t in texts)}")
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED, **blas_env()}
    argv = [str(installation / "venv" / "bin" / "python"), str(Path(__file__).with_name("word2vec_script.py")),
            str(corpus), str(raw), str(DIM), "1", str(W2V_EPOCHS)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise PyfnError(f"{NAME}: word2vec failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
    _without_header(raw, target)
    raw.unlink()
    corpus.unlink()
    return {"source": "word2vec on pyfn's text", "how": how, "sha256": sha256_file(target)}


def frames_file(data: Path, split: str) -> Path:
    """A split's SEMAFOR frames file in a pyfn folder: ``{split}.frame.elements`` (train; with frame elements)
    or ``{split}.frames`` (dev and test: frames only); both read alike by SimpleFrameId."""
    path = Path(data) / f"{split}.frame.elements"
    return path if path.is_file() else Path(data) / f"{split}.frames"


def prepare(
    installation: Path, data: Path, lexicon: Path, run: Path, *, embeddings: Path | None = None,
    text: Sequence[Path] | None = None, log: Log = lambda _: None,
) -> dict:
    """Lay out ``run`` for SimpleFrameId from pyfn's folders; returns the record (``run/prepare.json``).

    ``data`` is a ``pyfn convert --to semafor --preprocess ...`` folder (:func:`frames_file` and
    ``{split}.sentences.conllx.flattened``, SEMAFOR's ``all.lemma.tags`` with the dependency parse), ``lexicon``
    a ``pyfn generate`` folder (``lu_frames.tsv``, from train only). ``embeddings``: a text file of words and
    their vectors (e.g. Levy's ``deps.words``); without it, word2vec vectors are trained on ``text`` (default:
    ``data/train.sentences``).
    """
    installed = install.read_record(installation)
    data, run, lexicon = Path(data).resolve(), Path(run).resolve(), Path(lexicon).resolve()
    frames = {split: frames_file(data, split) for split in SPLITS}
    needed = [frames[split].name for split in SPLITS] + [f"{split}.sentences" for split in SPLITS] \
        + [f"{split}.sentences.conllx.flattened" for split in SPLITS]
    missing = [name for name in needed if not (data / name).is_file()]
    if missing:
        raise PyfnError(f"{data}: no {', '.join(missing)} (convert with --to semafor --preprocess spacy first)")
    if not (lexicon / "lu_frames.tsv").is_file():
        raise PyfnError(f"{lexicon}: no lu_frames.tsv (write the train-only lexicon with `pyfn generate` first)")
    if embeddings is not None and not Path(embeddings).is_file():
        raise PyfnError(f"{embeddings}: no such embeddings file")
    texts = [Path(t).resolve() for t in (text or [data / "train.sentences"])]
    for path in texts:
        if not path.is_file():
            raise PyfnError(f"{path}: no such text file for the word vectors")
    try:
        previous = json.loads((run / "prepare.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        previous = {}
    run.mkdir(parents=True, exist_ok=True)
    inputs = {}
    for split in SPLITS:
        for name, link in ((frames[split].name, f"{split}.frame.elements"),
                           (f"{split}.sentences.conllx.flattened", f"{split}.all.lemma.tags")):
            _link(data / name, run / "corpora" / link)
            inputs[link] = sha256_file(data / name)
    write_lines(run / "lexicons" / "lexicon.tsv", lexicon_lines(read_lu_frames(lexicon / "lu_frames.tsv")))
    vectors = _vectors(installation, run, Path(embeddings).resolve() if embeddings else None, texts, previous, log)
    record = {
        "parser": NAME, "commit": installed["commit"], "patches": installed["patches"], "pins": installed["pins"],
        "site": installed.get("site"), "data": os.path.relpath(data, run), "inputs": inputs,
        "lexicon": {"source": os.path.relpath(lexicon / "lu_frames.tsv", run),
                    "sha256": sha256_file(lexicon / "lu_frames.tsv"),
                    "lexicon.tsv": sha256_file(run / "lexicons" / "lexicon.tsv")},
        "embeddings": vectors,
    }
    write_text(run / "prepare.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def _check_run(run: Path) -> dict:
    try:
        return json.loads((Path(run) / "prepare.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PyfnError(f"{run}: not a prepared SimpleFrameId run folder (run `pyfn simpleframeid prepare` first)"
                        ) from None


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise UsageError(f"unknown {what} {value!r} (known: {', '.join(allowed)})")
    return value


def train(
    installation: Path, run: Path, model: str, classifier: str, context: str, seed: int, *,
    log: Log = lambda _: None, **wsabie: int,
) -> dict:
    """Train ``classifier`` with ``context`` features as ``run/models/{model}``; returns its record.

    Done once: ``models/{model}/pyfn-train.json`` marks a finished training, and records the setting, the
    seed, the wall time and the model's sha256. A WSABIE training saves ``checkpoint.pkl`` after every epoch
    (pyfn's patch and driver) and, started again, continues from it, with the same result as an unbroken one;
    the record lists the epochs it resumed after. The MLP (Keras, no checkpoints) starts again from the
    beginning. ``wsabie`` overrides :data:`WSABIE` (``components``, ``max_sampled``, ``epochs``), for ``wsb`` only.
    """
    run = Path(run).resolve()
    folder = run / "models" / model
    record_path = folder / TRAINED
    if record_path.is_file():
        log(f"{NAME}: {model} is trained ({record_path})")
        return json.loads(record_path.read_text(encoding="utf-8"))
    prepared = _check_run(run)
    unknown = sorted(set(wsabie) - set(WSABIE))
    if unknown:
        raise UsageError(f"unknown WSABIE setting {unknown[0]!r} (known: {', '.join(WSABIE)})")
    setting = {"classifier": _choice(classifier, CLASSIFIERS, "classifier"),
               "context": _choice(context, CONTEXTS, "context"), "seed": seed,
               **({**WSABIE, **wsabie} if classifier == "wsb" else {key: None for key in WSABIE})}
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / "setting.json", json.dumps(setting, indent=1, sort_keys=True) + "\n")
    site = installed_python(installation)
    numbers = [str(setting[key] if setting[key] is not None else 0) for key in WSABIE]
    log_file = folder / "train.log"
    log(f"{NAME}: training {classifier}+{context} as {model} (seed {seed}; log {log_file})")
    start = time.monotonic()
    output = _call([site, _script(), "train", str(run), model, classifier, context, str(seed), *numbers],
                   installation, f"{NAME} training of {model}", log_file)
    saved = folder / ("model.h5" if classifier == "nn" else "model.pkl")
    resumed = [int(line.rsplit(" ", 1)[1]) for line in output.splitlines()
               if line.startswith("pyfn: resuming WSABIE after epoch ")]
    record = {"model": model, **setting, "seconds": round(time.monotonic() - start, 1),
              "attempts": sum(line.startswith("$ ") for line in output.splitlines()), "resumed_after_epochs": resumed,
              "model_sha256": sha256_file(saved), "prepared_sha256": sha256_file(run / "prepare.json"),
              "embeddings_sha256": prepared["embeddings"]["sha256"], "machine": machine()}
    write_text(record_path, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def installed_python(installation: Path) -> str:
    """The Python 2.7 interpreter the installation's ``site/`` was installed for."""
    site = install.read_record(installation).get("site")
    if not site:
        raise PyfnError(f"{installation}: not a SimpleFrameId installation (no site/ in its record)")
    return site["python"]


def decode(installation: Path, run: Path, model: str, split: str, output: Path, *, no_lexicon: bool = False,
           log: Log = lambda _: None) -> dict:
    """Predict the frame of every gold target of ``split`` with ``run/models/{model}``; write
    ``output/{split}.frames`` (SEMAFOR's layout, no frame elements), ``output/{split}.sentences`` and
    ``output/{split}.decode.json``.

    By default an LU of the lexicon gets one of its frames and any other LU any frame; ``no_lexicon``
    treats every LU as unknown (upstream's ``all_unknown``), the setting of the *no-lex* column of Hartmann
    et al. (2017) and Kabbach et al. (2018): that column is the total accuracy of such a decoding, not the
    accuracy on LUs absent from the lexicon that ``pyfn score --mode frameid`` calls no-lex."""
    run = Path(run).resolve()
    if split not in ("dev", "test"):
        raise UsageError(f"split {split!r}: decode dev or test")
    trained = run / "models" / model / TRAINED
    if not trained.is_file():
        raise PyfnError(f"{run / 'models' / model}: no finished training (run `pyfn simpleframeid train` first)")
    prepared = _check_run(run)
    output = Path(output).resolve()
    output.mkdir(parents=True, exist_ok=True)
    scratch = output / f".{split}.frames.tmp"
    log(f"{NAME}: decoding {split} with {model}{' without the lexicon' if no_lexicon else ''}")
    text = _call([installed_python(installation), _script(), "decode", str(run), model, split, str(scratch),
                  "1" if no_lexicon else "0"], installation, f"{NAME} decoding of {split}",
                 run / "models" / model / f"decode-{split}{'-no-lexicon' if no_lexicon else ''}.log")
    scratch.replace(output / f"{split}.frames")
    shutil.copyfile(run / prepared["data"] / f"{split}.sentences", output / f"{split}.sentences")
    counts = [line for line in text.splitlines() if line.startswith("pyfn: ") and "targets predicted" in line]
    record = {"model": model, "split": split, "lexicon": "none" if no_lexicon else "train",
              "train": json.loads(trained.read_text(encoding="utf-8")),
              "input_sha256": prepared["inputs"][f"{split}.frame.elements"],
              "predictions_sha256": sha256_file(output / f"{split}.frames"),
              "summary": counts[-1][len("pyfn: "):] if counts else ""}
    write_text(output / f"{split}.decode.json", json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record
