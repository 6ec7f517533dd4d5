"""SEMAFOR writer and reader: exact lines on hand-built sets, round trip, bad input."""

import re
from dataclasses import replace

import pytest
from conftest import make_set
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.formats import semafor
from pyfn.formats.base import Losses, ordered, sentence_string, token_view
from pyfn.model import AnnotationSet, Label, Layer, Sentence, tokens


def span(text: str, words: str, nth: int = 0) -> tuple[int, int]:
    """The FN character span (end inclusive) of the ``nth`` occurrence of the tokens ``words`` in ``text``."""
    toks, want = tokens(text), words.split()
    starts = [i for i in range(len(toks)) if [t.text for t in toks[i : i + len(want)]] == want]
    first = starts[nth]
    return toks[first].start, toks[first + len(want) - 1].end


def write_one(tmp_path, sets, split="train", **kwargs):
    losses = Losses()
    paths = semafor.write(tmp_path, split, sets, losses=losses, **kwargs)
    return paths, paths[1].read_text(encoding="utf-8").splitlines(), losses


def read_back(paths, **kwargs):
    log = kwargs.pop("log", ProblemLog(strict=True))
    return list(semafor.read(paths[1], paths[0], log=log, **kwargs))


THERE = "In any case , there certainly is no lack of information ."
TIME = "legislators could never have known this at the time ."


def test_discontinuous_target_there_is(tmp_path):
    aset = make_set(
        THERE,
        [span(THERE, "there"), span(THERE, "is")],
        [("Entity", *span(THERE, "no lack of information")), ("Time", None, None)],
        frame="Existence",
        lu="there be.v",
    )
    paths, lines, losses = write_one(tmp_path, [aset])
    assert lines == ["1\t0.0\t2\tExistence\tthere be.v\t4_6\tthere is\t0\tEntity\t7:10"]
    assert paths[0].read_text(encoding="utf-8") == THERE + "\n"
    assert losses.as_dict() == {}
    [back] = read_back(paths)
    assert back.target == (span(THERE, "there"), span(THERE, "is"))
    assert token_view(back) == token_view(aset)
    assert (back.id, back.sentence.id, back.sentence.document) == (1, 0, "train.frame.elements")


def test_adjacent_three_token_target_is_listed_and_merged_on_read(tmp_path):
    aset = make_set(
        TIME,
        [span(TIME, "at"), span(TIME, "the"), span(TIME, "time")],
        [("Trajector_event", *span(TIME, "legislators could never have known this"))],
        frame="Temporal_collocation",
        lu="at the time.adv",
    )
    paths, lines, _ = write_one(tmp_path, [aset])
    assert lines == ["1\t0.0\t2\tTemporal_collocation\tat the time.adv\t6_7_8\tat the time\t0\tTrajector_event\t0:5"]
    [back] = read_back(paths)
    assert back.target == (span(TIME, "at the time"),)
    assert token_view(back) == token_view(aset)


def test_discontinuous_fe_rank2_and_null_instantiation(tmp_path):
    text = "you may know it ."
    aset = make_set(
        text,
        [span(text, "may")],
        [
            ("Hypothetical_event", *span(text, "you")),
            ("Hypothetical_event", *span(text, "know it")),
            ("Degree", None, None),
        ],
        rank2=[("Extra", *span(text, "you may"))],
        frame="Likelihood",
        lu="may.v",
    )
    paths, lines, losses = write_one(tmp_path, [aset])
    assert lines == [
        "1\t0.0\t4\tLikelihood\tmay.v\t1\tmay\t0\tHypothetical_event\t0\tHypothetical_event\t2:3\tExtra\t0:1"
    ]
    assert losses.as_dict() == {}
    [back] = read_back(paths)
    assert [(lb.name, lb.span) for lb in back.layer_labels("FE")] == [
        ("Hypothetical_event", span(text, "you")),
        ("Hypothetical_event", span(text, "know it")),
        ("Extra", span(text, "you may")),
    ]
    assert token_view(back) == token_view(aset)


def test_partial_token_fe_is_rounded_and_counted(tmp_path):
    text = "we were doin'tonight fine"
    aset = make_set(text, [span(text, "were")], [("Agent", text.index("doin'"), text.index("doin'") + 4)])
    paths, lines, losses = write_one(tmp_path, [aset])
    assert lines == ["1\t0.0\t2\tGiving\tgive.v\t1\twere\t0\tAgent\t2"]
    assert losses.as_dict() == {"partial_token_fe": 1}
    [back] = read_back(paths)
    assert back.layer_labels("FE")[0].span == span(text, "doin'tonight")


def test_no_fe_line_ends_at_sentence_number(tmp_path):
    aset = make_set("he gave .", [(3, 6)], [("Donor", None, None)])
    _, lines, _ = write_one(tmp_path, [aset])
    assert lines == ["1\t0.0\t1\tGiving\tgive.v\t1\tgave\t0"]


@pytest.mark.parametrize(
    "field, value",
    [("frame", "Giv\ting"), ("lu", "give\n.v"), ("fe", "Do\rnor")],
)
def test_tab_cr_lf_in_a_name_is_refused(tmp_path, field, value):
    kwargs = {"frame": value} if field == "frame" else {"lu": value} if field == "lu" else {}
    fe = value if field == "fe" else "Donor"
    aset = make_set("he gave it", [(3, 6)], [("Part", 0, 0), (fe, 0, 1)], **kwargs)  # "h": a partial-token FE
    losses = Losses()
    with pytest.raises(PyfnError, match=f"annotation set 1: .*{value!r}".replace("\\", "\\\\")):
        semafor.write(tmp_path, "train", [aset], losses=losses)
    assert not list(tmp_path.iterdir())
    assert losses.as_dict() == {}  # nothing written, nothing counted


def test_dev_and_test_write_frames_only_by_default(tmp_path):
    aset = make_set("he gave it", [(3, 6)], [("Donor", 0, 1)])
    paths = semafor.write(tmp_path / "a", "test", [aset], losses=Losses())
    assert [p.name for p in paths] == ["test.sentences", "test.frames"]
    assert paths[1].read_text() == "1\t0.0\t1\tGiving\tgive.v\t1\tgave\t0\n"
    paths = semafor.write(tmp_path / "b", "test", [aset], losses=Losses(), frames_only=False)
    assert paths[1].name == "test.frame.elements"
    assert paths[1].read_text() == "1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0\n"
    paths = semafor.write(tmp_path / "c", "train", [aset], losses=Losses(), frames_only=True)
    assert paths[1].name == "train.frames"


def test_order_and_shared_sentence_numbers(tmp_path):
    b1 = make_set("b x y", [(2, 2)], set_id=5, sent_id=1)
    a1 = make_set("a x y", [(4, 4)], set_id=6, sent_id=2)
    a2 = make_set("a x y ", [(2, 2)], set_id=7, sent_id=3)  # same sentence string: shares number 0
    paths, lines, _ = write_one(tmp_path, [b1, a1, a2])
    assert paths[0].read_text() == "a x y\nb x y\n"
    assert [line.split("\t")[5] + "@" + line.split("\t")[7] for line in lines] == ["1@0", "2@0", "1@1"]
    assert [token_view(s) for s in read_back(paths)] == [token_view(s) for s in ordered([b1, a1, a2])]


def test_space_normalization(tmp_path):
    text = " two  spaces\u00a0and nbsp "
    fulltext = make_set(text, [span(text, "spaces")], [("Donor", *span(text, "and"))])
    exemplar = replace(fulltext, source="exemplar")
    _, lines, losses = write_one(tmp_path / "ft", [fulltext])
    assert (tmp_path / "ft" / "train.sentences").read_text() == text.rstrip() + "\n"
    assert losses.as_dict() == {}
    paths, ex_lines, losses = write_one(tmp_path / "ex", [exemplar])
    assert paths[0].read_text() == "two spaces and nbsp\n"
    assert losses.as_dict() == {"normalized_space": 1}
    assert lines == ex_lines == ["1\t0.0\t2\tGiving\tgive.v\t1\tspaces\t0\tDonor\t2"]
    _, _, losses = write_one(tmp_path / "off", [exemplar], normalize_space=False)
    assert losses.as_dict() == {}
    _, _, losses = write_one(tmp_path / "on", [fulltext], normalize_space=True)
    assert losses.as_dict() == {"normalized_space": 1}
    [back] = read_back(paths)
    assert back.sentence.text == "two spaces and nbsp"
    assert token_view(back)[1:] == token_view(exemplar)[1:]


def test_line_break_in_sentence_is_refused_unless_normalized(tmp_path):
    aset = make_set("he\ngave it", [(3, 6)])
    with pytest.raises(PyfnError, match=r"sentence \[1\] 'he\\ngave it' contains a CR or LF"):
        semafor.write(tmp_path, "train", [aset], losses=Losses())
    _, lines, _ = write_one(tmp_path, [aset], normalize_space=True)
    assert lines == ["1\t0.0\t1\tGiving\tgive.v\t1\tgave\t0"]


def test_output_is_deterministic(tmp_path):
    sets = [make_set("b c d", [(2, 2)], set_id=i, sent_id=i, lu=f"l{i}.v") for i in range(5)]
    first = [p.read_bytes() for p in semafor.write(tmp_path / "1", "train", sets, losses=Losses())]
    second = [p.read_bytes() for p in semafor.write(tmp_path / "2", "train", sets[::-1], losses=Losses())]
    assert first == second


# ------------------------------------------------------------------ property: write -> read keeps token views

WORD = st.text(alphabet="abcXYZ'.-é", min_size=1, max_size=4)
SEP = st.sampled_from([" ", " ", " ", "  ", "\u00a0", "\t"])
NAME = st.text(alphabet="ABab_ .'()/", min_size=1, max_size=6)


@st.composite
def sentence_texts(draw) -> str:
    words = draw(st.lists(WORD, min_size=1, max_size=8))
    seps = draw(st.lists(SEP, min_size=len(words), max_size=len(words)))
    lead = draw(st.sampled_from(["", "", " "]))
    return lead + "".join(w + s for w, s in zip(words, seps))


@st.composite
def token_labels(draw, toks, name: str) -> list[Label]:
    """Labels on whole tokens: a sorted set of tokens, adjacent ones sometimes merged into one label."""
    chosen = sorted(draw(st.sets(st.integers(0, len(toks) - 1), min_size=1, max_size=4)))
    labels: list[tuple[int, int]] = []
    for i in chosen:
        if labels and labels[-1][1] == i - 1 and draw(st.booleans()):
            labels[-1] = (labels[-1][0], i)
        else:
            labels.append((i, i))
    return [Label(name, toks[a].start, toks[b].end) for a, b in labels]


@st.composite
def fe_label(draw, toks) -> Label:
    name = draw(NAME)
    if draw(st.integers(0, 5)) == 0:
        return Label(name, None, None, draw(st.sampled_from(["DNI", "INI", "CNI", "INC"])))
    a = draw(st.integers(0, len(toks) - 1))
    b = draw(st.integers(a, len(toks) - 1))
    start, end = toks[a].start, toks[b].end
    if draw(st.booleans()) and toks[a].end > start:  # partial-token label, rounded by the writer
        start += 1
    return Label(name, start, end)


@st.composite
def annotation_sets(draw) -> list[AnnotationSet]:
    texts = draw(st.lists(sentence_texts(), min_size=1, max_size=3))
    out = []
    for set_id in range(draw(st.integers(1, 5))):
        sent_id = draw(st.integers(0, len(texts) - 1))
        text = texts[sent_id]
        toks = tokens(text)
        target = draw(token_labels(toks, "Target"))
        layers = [Layer("Target", 1, tuple(target))]
        for rank in (1, 2):
            layers.append(Layer("FE", rank, tuple(draw(st.lists(fe_label(toks), max_size=3)))))
        out.append(
            AnnotationSet(
                set_id,
                Sentence(sent_id, text, "d.xml"),
                "MANUAL",
                None,
                draw(NAME),
                None,
                draw(NAME),
                tuple(layers),
                draw(st.sampled_from(["fulltext", "exemplar"])),
            )
        )
    return out


@settings(max_examples=300, deadline=None)
@given(annotation_sets(), st.sampled_from([None, True, False]), st.booleans())
def test_write_read_round_trip_property(tmp_path_factory, sets, normalize, frames_only):
    directory = tmp_path_factory.mktemp("prop")
    paths = semafor.write(directory, "train", sets, losses=Losses(), normalize_space=normalize, frames_only=frames_only)
    back = read_back(paths)
    exemplar = {sentence_string(s.sentence.text) for s in sets if s.source == "exemplar"}

    def expected(aset):
        string = sentence_string(aset.sentence.text)
        if normalize or (normalize is None and string in exemplar):
            string = " ".join(string.split())
        view = (string, *token_view(aset)[1:])
        return view[:4] + ((),) if frames_only else view

    assert [token_view(b) for b in back] == [expected(s) for s in ordered(sets)]


# ------------------------------------------------------------------ reader: bad input

GOOD = "1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0"


@pytest.fixture
def files(tmp_path):
    def make(*lines: str, sentences: str = "he gave it to her\n"):
        (tmp_path / "s.sentences").write_text(sentences, encoding="utf-8")
        (tmp_path / "x.frame.elements").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return tmp_path / "x.frame.elements", tmp_path / "s.sentences"

    return make


@pytest.mark.parametrize(
    "bad, reason, message",
    [
        ("1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0", "semafor:field_count", "column 2 (count) 2 needs 10 fields"),
        ("1\t0.0\t1\tGiving\tgive.v\t1\tgave\t0\tDonor\t0", "semafor:field_count", "needs 8 fields, the line has 10"),
        ("1\t0.0\t1\tGiving\tgive.v", "semafor:field_count", "5 fields, at least 8 expected"),
        ("", "semafor:field_count", "1 fields, at least 8 expected"),
        ("1\t0.0\t2\tGiving\tgive.v\tx\tgave\t0\tDonor\t0", "semafor:bad_number", "column 5 (target) 'x'"),
        (
            "1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0:y",
            "semafor:bad_number",
            "column 9 (FE span) '0:y': 'y' is not a token index",
        ),
        ("1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0:1:2", "semafor:bad_number", "column 9 (FE span) '0:1:2'"),
        ("1\tzero\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0", "semafor:bad_number", "column 1 (score) 'zero'"),
        (" 1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0", "semafor:bad_number", "column 0 (rank) ' 1'"),
        ("1\t0.0\t0\tGiving\tgive.v\t1\tgave\t0", "semafor:bad_number", "column 2 (count) 0 is below 1"),
        (
            "1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t3:5",
            "semafor:index_past_end",
            "column 9 (FE span) '3:5': token 5",
        ),
        ("1\t0.0\t1\tGiving\tgive.v\t1_9\tgave\t0", "semafor:index_past_end", "column 5 (target) '1_9': token 9"),
        (
            "1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t2:1",
            "semafor:span_reversed",
            "column 9 (FE span) '2:1': 2 > 1",
        ),
        ("1\t0.0\t1\tGiving\tgive.v\t1_1\tgave\t0", "semafor:bad_target", "column 5 (target) '1_1' repeats"),
        ("1\t0.0\t1\tGiving\tgive.v\t1\tgave\t3", "semafor:unknown_sentence", "sentence number 3 is past the end"),
        ("1\t0.0\t1\tGiving\tgive.v\t1\tgave\t-1", "semafor:bad_number", "column 7 (sentence number) '-1'"),
    ],
)
def test_bad_lines_are_named_skipped_and_counted(files, bad, reason, message):
    path, sentences = files(GOOD, bad, GOOD.replace("Donor\t0", "Donor\t3:4"))
    with pytest.raises(PyfnError, match=r"x\.frame\.elements:2: .*" + re.escape(message)):
        list(semafor.read(path, sentences, log=ProblemLog(strict=True)))
    log = ProblemLog()
    sets = list(semafor.read(path, sentences, log=log))
    assert [s.id for s in sets] == [1, 3]
    assert log.counts() == {reason: 1}
    assert log.problems[0].where == f"{path}:2"
    assert log.problems[0].message.startswith(f"{path}:2: ")


def test_unknown_encoding_and_kbest_legacy_are_usage_errors(files):
    path, sentences = files(GOOD)
    with pytest.raises(UsageError, match="unknown SEMAFOR target encoding 'first_last'"):
        semafor.read(path, sentences, log=ProblemLog(), target_encoding="first_last")
    with pytest.raises(UsageError, match="--kbest"):
        semafor.read(path, sentences, log=ProblemLog(), kbest=True, legacy=True)


def test_missing_sentences_file_is_named(files, tmp_path):
    path, _ = files(GOOD)
    with pytest.raises(PyfnError, match="nope.sentences: cannot read"):
        semafor.read(path, tmp_path / "nope.sentences", log=ProblemLog())


def test_range_and_list_target_encodings(files):
    path, sentences = files("1\t0.0\t1\tGiving\tgive.v\t1_3\tgave to\t0")
    text = "he gave it to her"
    [as_list] = semafor.read(path, sentences, log=ProblemLog(strict=True))
    [as_range] = semafor.read(path, sentences, log=ProblemLog(strict=True), target_encoding="range")
    assert as_list.target == (span(text, "gave"), span(text, "to"))
    assert as_range.target == (span(text, "gave it to"),)


def test_legacy_lines_trailing_tab_and_crlf(files):
    path, sentences = files("2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0", sentences="he gave it to her\r\n")
    [legacy] = semafor.read(path, sentences, log=ProblemLog(strict=True), legacy=True)
    log = ProblemLog()
    assert list(semafor.read(path, sentences, log=log)) == []
    assert log.counts() == {"semafor:bad_number": 1}  # column 2 is the LU when rank and score are missing
    path, sentences = files("1\t0.0\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0\t\r")  # Open-SESAME's trailing TAB
    [current] = semafor.read(path, sentences, log=ProblemLog(strict=True))
    assert token_view(legacy) == token_view(current)
    assert legacy.sentence.text == "he gave it to her"


KBEST = [
    "0\t33.8\t1\tGiving\tgive.v\t1\tgave\t0",
    "1\t30.8\t2\tGiving\tgive.v\t1\tgave\t0\tDonor\t0",
    "0\t16.7\t2\tGiving\tgive.v\t3\tto\t0\tDonor\t4",
    "1\t14.7\t1\tGiving\tgive.v\t3\tto\t0",
]


def test_kbest_files_need_the_kbest_option(files):
    path, sentences = files(*KBEST)
    log = ProblemLog()
    assert [s.id for s in semafor.read(path, sentences, log=log)] == [1, 3]
    assert log.counts() == {"semafor:kbest_line": 2}
    assert "x.frame.elements:2: rank 1 for a target of sentence 0 already read with rank 0 (line 1)" in (
        log.problems[0].message
    )
    best = list(semafor.read(path, sentences, log=ProblemLog(strict=True), kbest=True))
    assert [(s.id, [lb.name for lb in s.layer_labels("FE")]) for s in best] == [(1, []), (3, ["Donor"])]


def test_same_target_lines_of_equal_rank_are_all_kept(files):
    path, sentences = files(GOOD, GOOD.replace("Giving", "Commerce_pay"), GOOD.replace("\t2\t", "\t1\t")[:-8])
    for kbest in (False, True):
        sets = list(semafor.read(path, sentences, log=ProblemLog(strict=True), kbest=kbest))
        assert [s.frame_name for s in sets] == ["Giving", "Commerce_pay", "Giving"]
