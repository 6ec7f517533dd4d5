"""The compiled twins of the BIOS and SEMAFOR writers' per-set work and of CoNLL's blocks
(``pyfn/formats/_cwrite.pyx``): with them, every file, every loss count and every error is what the
Python code alone gives, on random sets built to hit each branch (partial-token and tokenless spans,
overlapping FEs, names a format cannot hold, frame inventories that drop sets, values of other
types, sentences split at every kind of whitespace) and on FN 1.5."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyfn.errors import PyfnError
from pyfn.formats import bios, conll, semafor
from pyfn.formats.base import Losses, SentenceTable
from pyfn.framenet import compiled
from pyfn.model import AnnotationSet, Frame, FrameElement, Label, Layer, LexUnit, Sentence

needs_twins = pytest.mark.skipif(compiled.WRITE_MODULE is None, reason=f"writers: {compiled.WRITER}")


def test_the_compiled_writers_are_built_where_required():
    """``.ci/run`` sets PYFN_REQUIRE_COMPILED: a CI run that silently fell back to Python fails."""
    if os.environ.get("PYFN_REQUIRE_COMPILED"):
        assert bios.bios_set_c is not None and semafor.semafor_line_c is not None, compiled.WRITER
        assert conll.conll_block_c is not None and semafor.sentence_lines_c is not None


WORDS = ["a", "bb", "Ünï", "x-y", "\U0001f600", "_", "O"]
SPACES = [" ", "  ", "\t", "\u2028", "\x1c", "\xa0"]
NAMES = ["Donor", "Theme", "Ünï", "S-x", "Recipient"] * 8 + ["_", "", "a\tb", "a\x85b", "a\rb"]
"""FE names: mostly plain; now and then one that BIOS (all five) or SEMAFOR (the last two) cannot hold."""


@st.composite
def sentence_texts(draw) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
    gaps = draw(st.lists(st.sampled_from(SPACES), min_size=len(words) + 1, max_size=len(words) + 1))
    lead = gaps[0] if draw(st.booleans()) else ""
    return lead + "".join(w + g for w, g in zip(words, gaps[1:]))[: -1 if draw(st.booleans()) else None]


@st.composite
def labels(draw, text: str, names: st.SearchStrategy) -> Label:
    n = len(text)
    kind = draw(st.sampled_from(["span"] * 16 + ["null"] * 3 + ["odd"]))
    if kind == "null":
        return Label(draw(names), None, None, "DNI")
    if kind == "odd":  # another type than the model declares, or offsets beyond the text or a C long
        start, end = draw(st.sampled_from([(True, 2), ("1", 2), (0, 2**70), (-3, -1), (n + 2, n + 5), (3, 1)]))
        return Label(draw(names), start, end)
    start = draw(st.integers(0, max(n - 1, 0)))
    return Label(draw(names), start, draw(st.integers(start, max(n - 1, start))))


@st.composite
def annotation_set(draw, set_id: int, text: str) -> AnnotationSet:
    fe_names = st.sampled_from(NAMES)
    layers = [Layer("Target", 1, tuple(draw(st.lists(labels(text, st.just("Target")), min_size=1, max_size=2))))]
    for rank in draw(st.lists(st.sampled_from([1] * 6 + [2, 3, "1"]), max_size=3)):
        layers.append(Layer("FE", rank, tuple(draw(st.lists(labels(text, fe_names), max_size=3)))))
    if draw(st.booleans()):
        layers.insert(draw(st.integers(0, len(layers))), Layer("Target", 2, (draw(labels(text, st.just("T"))),)))
    if draw(st.booleans()):  # what neither format reads
        layers.insert(draw(st.integers(0, len(layers))), Layer(draw(st.sampled_from(["GF", "PT"])), 1,
                                                               tuple(draw(st.lists(labels(text, fe_names), max_size=2)))))
    frame = draw(st.sampled_from(["Giving"] * 12 + ["Other"] * 6 + ["Unknown", "Bad\tframe", "_"]))
    lu = draw(st.sampled_from(["give.v"] * 12 + ["gift.n"] * 4 + ["x.y.v"] * 4 + ["give", "giv\u2029e.v"]))
    sentence = Sentence(id=set_id // 3, text=text, document="d.xml")
    return AnnotationSet(set_id, sentence, "MANUAL", 1, lu, 2, frame, tuple(layers))


@st.composite
def split_sets(draw) -> list[AnnotationSet]:
    texts = draw(st.lists(sentence_texts(), min_size=1, max_size=3, unique=True))
    return [draw(annotation_set(k, text)) for k, text in enumerate(t for t in texts for _ in range(draw(st.integers(1, 3))))]


FRAMES = {
    "Giving": Frame(1, "Giving", (FrameElement(1, "Donor", "Core"), FrameElement(2, "Theme", "Peripheral"),
                                  FrameElement(3, "Ünï", "Extra-Thematic"), FrameElement(4, "Recipient", "a\tb"),
                                  FrameElement(5, "S-x", "")),
                    (LexUnit(1, "give.v", "V"), LexUnit(2, "x.y.v", "V"))),
    "Other": Frame(2, "Other", (FrameElement(6, "Theme", "_"),), (LexUnit(3, "gift.n", "N"),)),
}


def _outputs(folder: Path, write) -> tuple[dict[str, bytes], dict, str | None]:
    """The files ``write`` leaves in ``folder``, its losses, its error (or None)."""
    folder.mkdir(parents=True)
    losses = Losses()
    try:
        write(folder, losses)
        error = None
    except (PyfnError, TypeError, ValueError) as exc:  # an odd type makes Python's own error: the same either way
        error = f"{type(exc).__name__}: {str(exc).replace(str(folder), '<dir>')}"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}, dict(losses.counts), error


def _both(tmp: Path, monkeypatch, module, attribute: str, write) -> tuple:
    compiled_twin = _outputs(tmp / "compiled", write)
    with monkeypatch.context() as m:
        m.setattr(module, attribute, None)
        python = _outputs(tmp / "python", write)
    assert compiled_twin == python
    return python


@needs_twins
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(split_sets(), st.sampled_from(["train", "dev", "test"]), st.sampled_from(["bios", "bio"]),
       st.sampled_from(["1", "all"]), st.sampled_from([15, 16]), st.sampled_from([None, FRAMES, {}]))
def test_bios_twin_writes_what_python_writes(tmp_path_factory, monkeypatch, sets, split, scheme, ranks, columns,
                                             frames):
    tmp = tmp_path_factory.mktemp("bios")

    def write(folder: Path, losses: Losses) -> None:
        bios.write(folder, split, sets, losses=losses, scheme=scheme, fe_ranks=ranks, columns=columns, frames=frames)

    _both(tmp, monkeypatch, bios, "bios_set_c", write)


@needs_twins
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(split_sets(), st.sampled_from(["train", "dev"]))
def test_semafor_twin_writes_what_python_writes(tmp_path_factory, monkeypatch, sets, split):
    tmp = tmp_path_factory.mktemp("semafor")

    def write(folder: Path, losses: Losses) -> None:
        semafor.write(folder, split, sets, losses=losses)

    _both(tmp, monkeypatch, semafor, "semafor_line_c", write)


@needs_twins
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(split_sets())
def test_conll_rows_twin_writes_what_python_writes(tmp_path_factory, monkeypatch, sets):
    tmp = tmp_path_factory.mktemp("conll")
    for writer in (conll.write_conllx, conll.write_conllu):
        _both(tmp / writer.__name__, monkeypatch, conll, "conll_block_c",
              lambda folder, losses: writer(folder / "x.conll", sets))


@needs_twins
@pytest.mark.parametrize("texts", [["a  b\u00a0c", "d"], ["x\u2028y", "z"], ["\x1cq", "r"], ["s\x85t"], [" u\tv"],
                                   ["e\rf"], ["g", "  "]])
def test_conll_twin_on_crafted_sentences(tmp_path, monkeypatch, texts):
    """Several sentences with FrameNet IDs (CoNLL-U's comment), some with a line break (an error)."""
    sets = [AnnotationSet(k, Sentence(10 + k, text, "d"), "MANUAL", 1, "give.v", 2, "Giving", ())
            for k, text in enumerate(texts * 2)]
    for writer in (conll.write_conllx, conll.write_conllu):
        _both(tmp_path / writer.__name__, monkeypatch, conll, "conll_block_c",
              lambda folder, losses: writer(folder / "x.conll", sets))


@needs_twins
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(st.sampled_from("ab é\U0001f600\t\xa0\u3000\u2028\x1c\r\n\ud800"), max_size=8), max_size=6),
       st.sampled_from([None, True, False]), st.lists(st.booleans(), min_size=6, max_size=6))
def test_sentences_twin_writes_what_python_writes(tmp_path_factory, monkeypatch, texts, normalize, exemplar):
    """``.sentences`` lines: normalized or not (by default those of exemplar sets), whitespace of every
    kind, CR and LF (an error unless normalized away), lone surrogates, empty sentences."""
    tmp = tmp_path_factory.mktemp("sentences")
    sets = [AnnotationSet(k, Sentence(k, text, "d"), "MANUAL", 1, "give.v", 2, "Giving", (),
                          "exemplar" if exemplar[k] else "fulltext") for k, text in enumerate(texts)]
    _both(tmp, monkeypatch, semafor, "sentence_lines_c", lambda folder, losses: semafor.write_sentences(
        folder, "train", sets, losses=losses, normalize_space=normalize))


@needs_twins
def test_sentences_twin_counts_each_line_normalizing_changed(tmp_path, monkeypatch):
    """A TAB made a space keeps the line's length: counted all the same."""
    sets = [AnnotationSet(k, Sentence(k, text, "d"), "MANUAL", 1, "give.v", 2, "Giving", (), "exemplar")
            for k, text in enumerate(["a\tb", "a b", "x  y", " lead", "c\xa0d"])]
    files, losses, error = _both(tmp_path, monkeypatch, semafor, "sentence_lines_c", lambda folder, losses:
                                 semafor.write_sentences(folder, "train", sets, losses=losses))
    assert error is None and losses == {"normalized_space": 4}


@needs_twins
def test_conll_twin_on_a_table_without_framenet_ids(tmp_path, monkeypatch):
    table = SentenceTable(["a b", "c"], {"a b": 4, "c": 5}, {"c": [7]}, first=4)
    _both(tmp_path, monkeypatch, conll, "conll_block_c", lambda folder, losses: conll.write_conllu(folder / "x", table))


@needs_twins
def test_the_twins_write_most_sets_and_decline_the_odd_ones():
    """The twins are not only declining: they write a plain set, and leave an odd one to Python."""
    text = "Ann gave Bob a book"
    plain = AnnotationSet(1, Sentence(1, text, "d"), "MANUAL", 1, "give.v", 2, "Giving", (
        Layer("Target", 1, (Label("Target", 4, 7),)), Layer("FE", 1, (Label("Donor", 0, 2), Label("Theme", 15, 16)))))
    args = (text, 0, False, True, True, False, 16, None, {})
    block, semeval, reason, partial_target, partial_fe = compiled.WRITE_MODULE.bios_set(plain, *args)
    assert block.splitlines()[0] == b"1\tAnn\t_\t_\t_\t_\t0\t_\t_\t_\t_\t_\t_\t_\tS-Donor\t_"
    assert (semeval, reason, partial_target, partial_fe) == (None, None, 0, 1)
    assert compiled.WRITE_MODULE.semafor_line(plain, text, 7, True) == (
        "1\t0.0\t3\tGiving\tgive.v\t1\tgave\t7\tDonor\t0\tTheme\t4", 0, 1)
    for odd in (AnnotationSet(*[getattr(plain, f) for f in plain.__slots__[:7]], (), plain.source),  # no target
                AnnotationSet(*[getattr(plain, f) for f in plain.__slots__[:6]], "Giv\ting", plain.layers, plain.source)):
        assert compiled.WRITE_MODULE.bios_set(odd, *args) is None
        assert compiled.WRITE_MODULE.semafor_line(odd, text, 7, True) is None


@needs_twins
def test_fn15_train_and_test_in_bios_semafor_and_conll(fn15_sets, fn15_frames, tmp_path, monkeypatch):
    """FN 1.5's standard train and test sets (with FN 1.5's frames: column 15 and the drops)."""
    for split in ("train", "test"):
        sets = fn15_sets[split]
        files, losses, error = _both(tmp_path / f"b{split}", monkeypatch, bios, "bios_set_c", lambda folder, losses: bios.write(
            folder, split, sets, losses=losses, frames=fn15_frames))
        assert error is None and files
        _both(tmp_path / f"s{split}", monkeypatch, semafor, "semafor_line_c", lambda folder, losses: semafor.write(
            folder, split, sets, losses=losses))
        for writer in (conll.write_conllx, conll.write_conllu):
            _both(tmp_path / f"{writer.__name__}{split}", monkeypatch, conll, "conll_block_c",
                  lambda folder, losses: writer(folder / "x.conll", sets))


def _plain_set(fe: Label, frame: str = "Giving", lu: str = "give.v", text: str = "Ann gave Bob a book") -> AnnotationSet:
    return AnnotationSet(1, Sentence(1, text, "d"), "MANUAL", 1, lu, 2, frame, (
        Layer("Target", 1, (Label("Target", 4, 7),)), Layer("FE", 1, (Label("Donor", 0, 2), fe))))


ODD_SETS = [
    *[_plain_set(Label(name, 9, 11)) for name in ("_", "", "a\tb", "a\x85b", "a\u2028b", "a\u2029b", "a\x1cb",
                                                  "a\x1db", "a\x1eb", "a\x0bb", "a\x0cb", "a\rb", "a\nb")],
    *[_plain_set(Label("Theme", 9, 11), frame=frame) for frame in ("Bad\tframe", "_", "", "Bad\x85frame")],
    *[_plain_set(Label("Theme", 9, 11), lu=lu) for lu in ("give", "giv\u2029e.v", "give.v\r", "giv\ud800.v")],
    *[_plain_set(Label("Theme", 9, 11), text=text) for text in ("Ann gave B\ud800b a book", "Ann gave Bob \ud800 x",
                                                                 "Ann\xa0gave\u3000B\xf6b\u2003a \U0001f600ok",
                                                                 "Ann gave Bob a book " + " ".join("abcdefghijklmn"))],
    *[_plain_set(Label("Theme", start, end)) for start, end in ((True, 11), ("9", 11), (9, 2**70), (-5, -1),
                                                                 (30, 40), (11, 9), (3, 3), (9, 12))],
]
"""A plain set with one odd value each: a name a format cannot hold, an offset of another type, too
large, on no token, or partial, a lone surrogate (no UTF-8), whitespace and words of several UTF-8 bytes."""
CORE_TYPES = ["a\tb", "a\x85b", "_", "", None, "Core"]


@needs_twins
@pytest.mark.parametrize("aset", ODD_SETS, ids=[f"odd{k}" for k in range(len(ODD_SETS))])
@pytest.mark.parametrize("core_type", CORE_TYPES)
def test_crafted_odd_values(tmp_path, monkeypatch, aset, core_type):
    frames = {"Giving": Frame(1, "Giving", (FrameElement(1, "Donor", core_type), FrameElement(2, "Theme", "Core")),
                              (LexUnit(1, "give.v", "V"),))}
    for k, (split, with_frames) in enumerate((("train", True), ("test", True), ("train", False))):
        _both(tmp_path / f"b{k}", monkeypatch, bios, "bios_set_c", lambda folder, losses: bios.write(
            folder, split, [aset], losses=losses, frames=frames if with_frames else None))
    _both(tmp_path / "s", monkeypatch, semafor, "semafor_line_c", lambda folder, losses: semafor.write(
        folder, "train", [aset], losses=losses))
    for writer in (conll.write_conllx, conll.write_conllu):
        _both(tmp_path / writer.__name__, monkeypatch, conll, "conll_block_c",
              lambda folder, losses: writer(folder / "x.conll", [aset]))
