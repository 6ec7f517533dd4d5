"""SimpleFrameId glue (pyfn simpleframeid setup/prepare/train/decode): the lexicon in its TSV layout, the
dependency contexts DEPBOW reads from pyfn's all.lemma.tags, the import of its predictions, the refusals; and,
when an installation is at hand (SIMPLEFRAMEID_HOME, SIMPLEFRAMEID_PYTHON), the real thing on the sample."""

import json
import os
import shutil
import sys
import zlib
from pathlib import Path

import pytest

from pyfn.cli import main
from pyfn.errors import ProblemLog, PyfnError
from pyfn.formats import conll
from pyfn.parsers import install
from pyfn.parsers import simpleframeid as sfi
from pyfn.parsers.simpleframeid_script import prediction_line

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"


@pytest.fixture(scope="module")
def data(tmp_path_factory, spacy_model):
    """The sample as SEMAFOR files and SemEval XML, parsed by spaCy (all.lemma.tags), with its train lexicon."""
    root = tmp_path_factory.mktemp("sfi")
    assert main(["convert", "--source", str(SAMPLE), "--to", "semafor", "semeval", "--target", str(root / "data"),
                 "--preprocess", "spacy", "--quiet"]) == 0
    assert main(["generate", "--source", str(SAMPLE), "--target", str(root / "lexicon"), "--quiet"]) == 0
    return root


@pytest.fixture
def installation(tmp_path):
    """An installation record as setup leaves it (no interpreter behind it: enough for prepare)."""
    folder = tmp_path / "install"
    folder.mkdir()
    (folder / install.RECORD).write_text(json.dumps({
        "parser": sfi.NAME, "commit": "c" * 40, "patches": {}, "pins": list(sfi.PINS), "freeze": [],
        "site": {"python": "python2.7", "pins": list(sfi.SITE_PINS), "freeze": [], "python_version": "Python 2.7.18"}}))
    return folder


def _lemma_tags(path: Path) -> list[dict[int, dict[str, object]]]:
    """An all.lemma.tags file read as SimpleFrameId's ``collect_sentence_data`` splits a line: the token count,
    then six groups of that many fields (forms, POS, labels, heads, NE, lemmas); tokens are 1-based."""
    sentences = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        n = int(fields[0])
        groups = [fields[1 + k * n:1 + (k + 1) * n] for k in range(6)]
        assert len(fields) == 1 + 6 * n
        sentences.append({i + 1: {"form": f, "dep": d, "head": int(h)}
                          for i, (f, _, d, h, _, _) in enumerate(zip(*groups))})
    return sentences


def _depbow(sentence: dict[int, dict[str, object]], head: int) -> list[str]:
    """DEPBOW's context words as upstream's DependentsBowMapper takes them: the target head's dependents, then
    its head's word (ROOT for the root), lower-cased."""
    words = {0: "ROOT", **{i: str(t["form"]) for i, t in sentence.items()}}
    deps = [i for i, t in sentence.items() if t["head"] == head]
    return [words[i].lower() for i in [*deps, int(sentence[head]["head"])]]


def test_lexicon_tsv_is_frame_tab_lemmapos_lower_cased_once_each():
    lines = sfi.lexicon_lines({"give.v": frozenset({"Giving", "Causation"}), "Monday.n": frozenset({"Calendric_unit"}),
                               "monday.n": frozenset({"Calendric_unit"}), "take off.v": frozenset({"Removing"})})
    assert lines == ["Causation\tgive.v", "Giving\tgive.v", "Calendric_unit\tmonday.n", "Removing\ttake off.v"]


def test_prepare_lays_out_what_simpleframeid_reads(data, installation, tmp_path):
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("2 3\nthe 0.1 0.2 0.3\nboy 0.3 0.2 0.1\n")
    run = tmp_path / "run"
    record = sfi.prepare(installation, data / "data", data / "lexicon", run, embeddings=vectors)
    corpora = run / "corpora"
    assert (corpora / "train.frame.elements").resolve() == (data / "data" / "train.frame.elements").resolve()
    assert (corpora / "test.frame.elements").resolve() == (data / "data" / "test.frames").resolve()
    assert (corpora / "dev.all.lemma.tags").resolve() == (data / "data" / "dev.sentences.conllx.flattened").resolve()
    lexicon = (run / "lexicons" / "lexicon.tsv").read_text().splitlines()
    lu_frames = (data / "lexicon" / "lu_frames.tsv").read_text().splitlines()
    assert len(lexicon) == sum(len(line.split("\t")) - 1 for line in lu_frames)  # sample LUs are lower-case
    assert all(len(line.split("\t")) == 2 for line in lexicon)
    assert (run / sfi.VECTORS).read_text() == "the 0.1 0.2 0.3\nboy 0.3 0.2 0.1\n"  # word2vec header dropped
    assert record["embeddings"]["sha256"] == install.sha256_file(vectors)
    assert record["inputs"]["test.frame.elements"] == install.sha256_file(data / "data" / "test.frames")
    assert json.loads((run / "prepare.json").read_text()) == record


def test_depbow_contexts_come_from_pyfns_dependency_parse(data):
    """Every train target's DEPBOW words, read from all.lemma.tags as SimpleFrameId reads it, are its head
    token's dependents and head in pyfn's CoNLL-U parse of the same sentence."""
    tags = _lemma_tags(data / "data" / "train.sentences.conllx.flattened")
    parses = [list(zip(forms, analysis))
              for _, analysis, forms in conll.read_conll(data / "data" / "train.conllu", log=ProblemLog(strict=True))]
    assert len(tags) == len(parses)
    checked = 0
    for line in (data / "data" / "train.frame.elements").read_text().splitlines():
        fields = line.split("\t")
        sid, head = int(fields[7]), int(fields[5].split("_")[0]) + 1
        tokens = parses[sid]
        expected = [form.lower() for form, a in tokens if a.head == head]
        parent = tokens[head - 1][1].head
        expected.append("root" if parent == 0 else tokens[parent - 1][0].lower())
        assert _depbow(tags[sid], head) == expected, line
        checked += 1
    assert checked > 100


def test_predictions_import_to_semeval_and_score_as_frameid(data, tmp_path):
    """decode's layout (one SEMAFOR line per gold target, the predicted frame in the frame column) imports with
    `pyfn convert --from semafor --to semeval --gold` and scores with `pyfn score --mode frameid`."""
    out = tmp_path / "out"
    out.mkdir()
    for split in ("dev", "test"):
        gold = (data / "data" / f"{split}.frames").read_text().splitlines()
        wrong = set(range(0, len(gold), 4))
        (out / f"{split}.frames").write_text("".join(
            prediction_line(line, "Wrong_frame" if i in wrong else line.split("\t")[3]) + "\n"
            for i, line in enumerate(gold)))
        shutil.copyfile(data / "data" / f"{split}.sentences", out / f"{split}.sentences")
    imported = tmp_path / "imported"
    assert main(["convert", "--from", "semafor", "--to", "semeval", "--source", str(out), "--target", str(imported),
                 "--gold", str(data / "data"), "--splits", "dev", "test", "--quiet"]) == 0
    score = tmp_path / "score.json"
    assert main(["score", "--mode", "frameid", "--gold", str(data / "data" / "test.gold.xml"), "--pred",
                 str(imported / "test.predicted.xml"), "--lu-frames", str(data / "lexicon" / "lu_frames.tsv"),
                 "--json", "--output", str(score)]) == 0
    total = json.loads(score.read_text())["total"]
    n = len((data / "data" / "test.frames").read_text().splitlines())
    assert (total["correct"], total["n"]) == (n - len(range(0, n, 4)), n)


def test_refusals_name_what_to_do(data, installation, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SIMPLEFRAMEID_HOME", raising=False)
    assert main(["simpleframeid", "setup", "--python", sys.executable]) == 2
    assert "set SIMPLEFRAMEID_HOME" in capsys.readouterr().err
    with pytest.raises(PyfnError, match="SimpleFrameId is Python 2.7 code"):
        sfi.setup(tmp_path, sys.executable, tmp_path / "root")
    with pytest.raises(PyfnError, match="cannot run this interpreter"):
        sfi.setup(tmp_path, str(tmp_path / "no-python"), tmp_path / "root")
    with pytest.raises(PyfnError, match="no train.frames, dev.frames, test.frames"):
        sfi.prepare(installation, tmp_path, data / "lexicon", tmp_path / "run")
    with pytest.raises(PyfnError, match="no lu_frames.tsv"):
        sfi.prepare(installation, data / "data", tmp_path, tmp_path / "run")
    with pytest.raises(PyfnError, match="not a prepared SimpleFrameId run folder"):
        sfi.train(installation, tmp_path, "m", "nn", "sentbow", 1)
    with pytest.raises(PyfnError, match="no finished training"):
        sfi.decode(installation, tmp_path, "m", "test", tmp_path / "out")
    assert main(["simpleframeid", "train", "--home", str(tmp_path), "--python", sys.executable, "--run",
                 str(tmp_path), "--classifier", "nn", "--context", "depbow", "--epochs", "3"]) == 2


def test_shipped_patch_touches_only_wsabies_training():
    """The patch changes WSABIE's model construction and fit (sparse inputs, seed, one thread, per-epoch
    checkpoints), nothing of the MLP, the features or the decoding."""
    text = sfi.default_patch().read_text(encoding="utf-8")
    assert [line[6:] for line in text.splitlines() if line.startswith("+++ ")] == ["simpleFrameId/classifier.py"]
    removed = [line for line in text.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert len(removed) == 5 and all(any(word in line for word in ("LightFM(", "learning_rate", "random_state",
                                                                   "fit(", "num_threads")) for line in removed)


def _installed() -> tuple[Path, str] | None:
    home, python = os.environ.get("SIMPLEFRAMEID_HOME"), os.environ.get(sfi.PYTHON_ENV)
    root = Path(os.environ.get("SIMPLEFRAMEID_INSTALL_DIR") or Path.home() / ".cache" / "pyfn" / "parsers")
    if not home or not python or not list(root.glob(f"{sfi.NAME}-*/{install.RECORD}")):
        return None
    return root, python


@pytest.mark.skipif(_installed() is None, reason="no SimpleFrameId installation (SIMPLEFRAMEID_HOME, "
                    "SIMPLEFRAMEID_PYTHON and `pyfn simpleframeid setup`)")
def test_end_to_end_on_the_sample(data, tmp_path):
    """The real SimpleFrameId: both classifiers trained on the sample (WSABIE small), decoded, imported, scored;
    a second training with the same seed predicts the same frames, and so does a WSABIE training continued
    from another's checkpoint after epoch 2 (as a killed one is)."""
    root, python = _installed()
    installation = sfi.setup(Path(os.environ["SIMPLEFRAMEID_HOME"]), python, root)
    words = {w.lower() for split in ("train", "dev", "test")
             for line in (data / "data" / f"{split}.sentences").read_text().splitlines() for w in line.split()}
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("".join(f"{w} {' '.join(str((zlib.crc32(w.encode()) >> k) % 7 - 3) for k in range(8))}\n"
                               for w in sorted(words)))
    run = tmp_path / "run"
    sfi.prepare(installation, data / "data", data / "lexicon", run, embeddings=vectors)
    predictions = {}
    for model, classifier, context, epochs in (("nn", "nn", "depbow", None), ("nn-again", "nn", "depbow", None),
                                               ("wsb", "wsb", "sentbow", 4), ("wsb-2", "wsb", "sentbow", 2),
                                               ("wsb-resumed", "wsb", "sentbow", 4)):
        small = {"components": 16, "epochs": epochs} if classifier == "wsb" else {}
        if model == "wsb-resumed":
            (run / "models" / model).mkdir(parents=True)
            shutil.copyfile(run / "models" / "wsb-2" / "checkpoint.pkl", run / "models" / model / "checkpoint.pkl")
        record = sfi.train(installation, run, model, classifier, context, 1, **small)
        assert record["model_sha256"] and record["classifier"] == classifier
        assert record["resumed_after_epochs"] == ([2] if model == "wsb-resumed" else [])
        decoded = sfi.decode(installation, run, model, "test", tmp_path / model)
        assert decoded["summary"].endswith("0 not read by SimpleFrameId")
        predictions[model] = (tmp_path / model / "test.frames").read_text()
    assert predictions["nn"] == predictions["nn-again"]
    nolex = sfi.decode(installation, run, "nn", "test", tmp_path / "nn-nolex", no_lexicon=True)
    assert nolex["lexicon"] == "none" and nolex["summary"].endswith("0 not read by SimpleFrameId")
    assert predictions["wsb"] == predictions["wsb-resumed"] != predictions["wsb-2"]
    imported = tmp_path / "imported"
    assert main(["convert", "--from", "semafor", "--to", "semeval", "--source", str(tmp_path / "nn"),
                 "--target", str(imported), "--gold", str(data / "data"), "--splits", "test", "--quiet"]) == 0
    score = tmp_path / "score.json"
    assert main(["score", "--mode", "frameid", "--gold", str(data / "data" / "test.gold.xml"), "--pred",
                 str(imported / "test.predicted.xml"), "--lu-frames", str(data / "lexicon" / "lu_frames.tsv"),
                 "--json", "--output", str(score)]) == 0
    assert json.loads(score.read_text())["total"]["n"] == len(predictions["nn"].splitlines())


def test_recipe_reference_and_allow_incomplete(tmp_path):
    """A recipe's [data] allow_incomplete reaches convert and generate; its [reference] table is put beside
    the measured test accuracies in the README (in %, with the difference in total)."""
    from pyfn.xp.recipe import load_recipe
    from pyfn.xp.report import reference_rows
    from pyfn.xp.steps import Layout, steps

    (tmp_path / "experiment.toml").write_text(
        '[experiment]\nnumber = "990"\ntitle = "t"\n[framenet]\nversion = "1.5"\nsource = "sample"\n'
        '[data]\nallow_incomplete = true\n[scoring]\nsplits = ["dev", "test"]\n'
        '[reference]\nsource = "paper"\nnn-depbow = { total = 82.9, ambiguous = 72.7, no_lex = 78.3 }\n'
        'wsb-depbow = { total = 81.4, ambiguous = 69.1, no_lex = 74.3 }\nnn-sentbow = { total = 86.4 }\n')
    recipe = load_recipe(tmp_path)
    data, lexicon = steps(recipe, Layout(tmp_path))[:2]
    assert recipe.allow_incomplete and "--allow-incomplete" in data.argv and "--allow-incomplete" in lexicon.argv
    acc = {"total": {"accuracy": 0.8312}, "ambiguous": {"accuracy": 0.7}, "no_lex": {"accuracy": 0.75}}
    close = {key: {"accuracy": 0.8638} for key in acc}  # 86.38 - 86.4 rounds to zero: "0.0", never "-0.0"
    manifest = {"scores": {"nn-depbow": {"test": {"frameid": acc}, "dev": {"frameid": {}}},
                           "nn-sentbow": {"test": {"frameid": close}}}}
    fid = "total / ambiguous / no-lex accuracy"
    assert reference_rows(recipe, manifest) == [
        ("nn-depbow", fid, "82.9 / 72.7 / 78.3", "83.1 / 70.0 / 75.0", "+0.2"),
        ("wsb-depbow", fid, "81.4 / 69.1 / 74.3", "not run", "n/a"),
        ("nn-sentbow", fid, "86.4 / - / -", "86.4 / 86.4 / 86.4", "0.0")]


def test_recipe_reference_of_argument_identification(tmp_path):
    """A [reference] entry with p / r / f1 is argument identification: put beside the argsonly scores, the
    difference taken on F1."""
    from pyfn.xp.recipe import load_recipe
    from pyfn.xp.report import page, readme, reference_rows
    from pyfn.xp.steps import Layout

    (tmp_path / "experiment.toml").write_text(
        '[experiment]\nnumber = "991"\ntitle = "t"\n[framenet]\nversion = "1.5"\nsource = "sample"\n'
        '[scoring]\nsplits = ["dev", "test"]\n'
        '[reference]\nsource = "paper"\nsemafor = { p = 59.1, r = 54.3, f1 = 56.6, xp = "042" }\n'
        'semafor-h = { f1 = 57.5, note = "hierarchy features" }\n')
    recipe = load_recipe(tmp_path)
    args = {"precision": 0.6012, "recall": 0.5, "f1": 0.5459, "signature": "argsonly"}
    manifest = {"inputs": {"framenet": {}}, "outputs": {}, "scores": {"semafor": {"test": {"argsonly": args}}}}
    args_what = "P / R / F1 (args)"
    assert reference_rows(recipe, manifest) == [("semafor", args_what, "59.1 / 54.3 / 56.6", "60.1 / 50.0 / 54.6",
                                                 "-2.0"),
                                                ("semafor-h", args_what, "- / - / 57.5 (hierarchy features)",
                                                 "not run", "n/a")]
    assert "| semafor | P / R / F1 (args) | 59.1 / 54.3 / 56.6 | 60.1 / 50.0 / 54.6 | -2.0 |" in readme(
        recipe, Layout(tmp_path), manifest)
    html = page(recipe, Layout(tmp_path), manifest)
    assert "<h2>Beside the published numbers</h2>\n<p>In % on test, published (paper; see experiment.toml)" in html
    assert ('<table id="published">' in html and "<tr><td>semafor</td><td>P / R / F1 (args)</td>"
            "<td>59.1 / 54.3 / 56.6</td><td>60.1 / 50.0 / 54.6</td><td>-2.0</td></tr>" in html)
