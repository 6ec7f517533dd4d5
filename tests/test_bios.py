"""BIOS (Open-SESAME CoNLL): column layout, tags, losses, refusals, reader errors, round trip."""

from collections import Counter
from itertools import pairwise

import pytest
from conftest import make_set
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.errors import ProblemLog, PyfnError, UsageError
from pyfn.fileio import write_lines
from pyfn.formats import bios
from pyfn.formats.base import Losses, SentenceTable, ordered, token_view
from pyfn.model import (
    AnnotationSet,
    Frame,
    FrameElement,
    Label,
    Layer,
    LexUnit,
    Sentence,
    tokens,
)

GOODWILL = "Your contribution to Goodwill will mean more than you may know ."
GIVING = Frame(
    139, "Giving",
    (FrameElement(1, "Donor", "Core"), FrameElement(2, "Recipient", "Core"), FrameElement(3, "Time", "Peripheral")),
    (LexUnit(10, "contribution.n", "N"), LexUnit(11, "give.v", "V")),
)


def write(tmp_path, sets, split="train", **options):
    """Write ``sets`` and their ``.sentences``; return (losses, written paths)."""
    losses = Losses()
    written = bios.write(tmp_path, split, sets, losses=losses, **options)
    write_lines(tmp_path / f"{split}.sentences", SentenceTable.of(sets).strings)
    return losses, written


def blocks(path):
    """The blocks of a BIOS file as lists of field lists."""
    text = path.read_text(encoding="utf-8")
    return [[line.split("\t") for line in block.split("\n")] for block in text[:-2].split("\n\n")]


def read_back(tmp_path, split="train", name=None, strict=True):
    log = ProblemLog(strict=strict)
    path = tmp_path / (name or f"{split}.bios")
    return list(bios.read(path, tmp_path / f"{split}.sentences", log=log)), log


def giving():
    return make_set(GOODWILL, [(5, 16)], [("Donor", 0, 3), ("Recipient", 18, 28)], lu="contribution.n")


# ---------------------------------------------------------------- writer: layout


def test_spec_example_block(tmp_path):
    other = make_set("A first sentence .", [(2, 6)], set_id=2, sent_id=2)
    losses, written = write(tmp_path, [giving(), other], frames={"Giving": GIVING})
    assert written == [tmp_path / "train.bios"] and losses.as_dict() == {}
    expected = [
        "1\tYour\t_\t_\t_\t_\t1\t_\t_\t_\t_\t_\t_\t_\tS-Donor\tCore",
        "2\tcontribution\t_\t_\t_\t_\t1\t_\t_\t_\t_\t_\tcontribution.n\tGiving\tO\t_",
        "3\tto\t_\t_\t_\t_\t1\t_\t_\t_\t_\t_\t_\t_\tB-Recipient\tCore",
        "4\tGoodwill\t_\t_\t_\t_\t1\t_\t_\t_\t_\t_\t_\t_\tI-Recipient\tCore",
    ] + [f"{i}\t{w}\t_\t_\t_\t_\t1\t_\t_\t_\t_\t_\t_\t_\tO\t_" for i, w in enumerate(GOODWILL.split()[4:], 5)]
    text = (tmp_path / "train.bios").read_text(encoding="utf-8")
    assert text.startswith("1\tA\t")  # "A first..." sorts first: sentence 0; no empty line at the start
    assert text.endswith("\n".join(expected) + "\n\n")
    assert text.count("\n\n") == 2 and "\n\n\n" not in text


def test_fifteen_columns_and_no_frames(tmp_path):
    write(tmp_path, [giving()], columns=15)
    rows = blocks(tmp_path / "train.bios")[0]
    assert {len(r) for r in rows} == {15}
    assert rows[0][-1] == "S-Donor"
    write(tmp_path, [giving()])
    assert [r[15] for r in blocks(tmp_path / "train.bios")[0]][:3] == ["_", "_", "_"]  # no frames: no coreType


def test_multi_token_and_discontinuous_targets(tmp_path):
    text = "We 've got it and there really is a problem"
    adjacent = make_set(text, [(3, 5), (7, 9)], [("Owner", 0, 1)], lu="have got.v", frame="Possession")
    gap = make_set(text, [(18, 22), (31, 32)], [("Entity", 34, 42)], set_id=2, lu="there be.v", frame="Existence")
    write(tmp_path, [adjacent, gap])
    second, first = blocks(tmp_path / "train.bios")  # pyfn 1.3 order: "18#22#31#32#..." < "3#5#7#9#..."
    assert [r[12] for r in first] == ["_", "have got.v", "have got.v"] + ["_"] * 7
    assert [r[13] for r in second][5:8] == ["Existence", "_", "Existence"]  # gap token has '_'
    back, _ = read_back(tmp_path)
    assert back[1].target == ((3, 9),)  # adjacent tokens: one run
    assert back[0].target == ((18, 22), (31, 32))
    assert [token_view(s, {1}) for s in back] == [token_view(s, {1}) for s in (gap, adjacent)]


def test_discontinuous_fe_pieces_each_start_a_span(tmp_path):
    text = "a b c d e f"
    aset = make_set(text, [(10, 10)], [("X", 0, 0), ("X", 4, 6), ("X", 8, 8)])
    write(tmp_path, [aset])
    assert [r[14] for r in blocks(tmp_path / "train.bios")[0]] == ["S-X", "O", "B-X", "I-X", "S-X", "O"]
    back, _ = read_back(tmp_path)
    assert [(lb.start, lb.end) for lb in back[0].layer_labels("FE")] == [(0, 0), (4, 6), (8, 8)]


def test_bio_scheme_and_consumer(tmp_path):
    aset = make_set("a b c d", [(6, 6)], [("X", 0, 0), ("X", 2, 2), ("Y", 4, 4)])
    write(tmp_path, [aset], scheme="bio")
    assert [r[14] for r in blocks(tmp_path / "train.bios")[0]] == ["B-X", "B-X", "B-Y", "O"]
    back, _ = read_back(tmp_path)
    assert token_view(back[0], {1}) == token_view(aset, {1})
    write(tmp_path, [aset])
    assert [r[14] for r in blocks(tmp_path / "train.bios")[0]] == ["S-X", "S-X", "S-Y", "O"]
    with pytest.raises(UsageError, match="bio"):
        bios.write(tmp_path, "train", [aset], losses=Losses(), scheme="bio", consumer="open-sesame")


@pytest.mark.parametrize(
    "option, value", [("scheme", "iob"), ("fe_ranks", "2"), ("columns", 14)]
)
def test_bad_options(tmp_path, option, value):
    with pytest.raises(UsageError, match=repr(value)):
        bios.write(tmp_path, "train", [giving()], losses=Losses(), **{option: value})


# ---------------------------------------------------------------- writer: losses


def test_rank2_overlap_dropped_only_with_all_ranks(tmp_path):
    text = "the second millennium began"
    ordinal = make_set(text, [(4, 9)], [("Type", 11, 20)], rank2=[("Item", 0, 20)], lu="second.a", frame="Ordinal")
    plain = make_set(text, [(22, 26)], [("Event", 0, 20)], set_id=2, lu="begin.v", frame="Activity_start")
    losses, _ = write(tmp_path, [ordinal, plain], fe_ranks="all")
    assert losses.as_dict() == {"overlapping_fes": 1}
    assert [b[0][12:14] for b in blocks(tmp_path / "train.bios")] == [["_", "_"]]  # only begin.v is left
    losses, _ = write(tmp_path, [ordinal, plain])
    assert losses.as_dict() == {}
    tags = [[r[14] for r in b] for b in blocks(tmp_path / "train.bios")]
    assert ["O", "O", "S-Type", "O"] in tags  # rank 2 ignored by default


def test_all_ranks_without_overlap_are_written(tmp_path):
    aset = make_set("a b c", [(2, 2)], [("X", 0, 0)], rank2=[("Y", 4, 4)])
    losses, _ = write(tmp_path, [aset], fe_ranks="all")
    assert losses.as_dict() == {} and [r[14] for r in blocks(tmp_path / "train.bios")[0]] == ["S-X", "O", "S-Y"]


def test_overlap_within_rank1_is_dropped_not_resolved(tmp_path):
    aset = make_set("a b c", [(4, 4)], [("X", 0, 2), ("Y", 2, 2)])
    losses, written = write(tmp_path, [aset])
    assert losses.as_dict() == {"overlapping_fes": 1, "empty_split": 1}
    assert written == [] and not (tmp_path / "train.bios").exists()


def test_partial_token_fe_is_rounded_and_counted(tmp_path):
    aset = make_set("gonna doin'tonight now", [(19, 21)], [("Event", 6, 9)])
    losses, _ = write(tmp_path, [aset])
    assert losses.as_dict() == {"partial_token_fe": 1}
    assert [r[14] for r in blocks(tmp_path / "train.bios")[0]] == ["O", "S-Event", "O"]


def test_frame_inventory_checks(tmp_path):
    ok = giving()
    odd_fe = make_set("He gave it", [(3, 6)], [("Name", 0, 1)], set_id=2, sent_id=2)
    no_frame = make_set("She gave", [(4, 7)], set_id=3, sent_id=3, frame="Test35")
    odd_lu = make_set("They donated", [(5, 11)], set_id=4, sent_id=4, lu="donate.v")
    other_pos = make_set("They give", [(5, 8)], set_id=5, sent_id=5, lu="give.n")
    sets = [ok, odd_fe, no_frame, odd_lu, other_pos]
    losses, _ = write(tmp_path, sets, frames={"Giving": GIVING})
    assert losses.as_dict() == {"fe_not_in_frame": 1, "frame_not_in_frames": 1, "lu_not_in_frame": 1}
    assert len(blocks(tmp_path / "train.bios")) == 2  # give.n kept: Open-SESAME looks LUs up by lemma
    losses, written = write(tmp_path, sets, split="dev", frames={"Giving": GIVING})
    assert losses.as_dict() == {"frame_not_in_frames": 1, "lu_not_in_frame": 1}  # FE names: train only
    assert written == [tmp_path / "dev.bios", tmp_path / "dev.bios.semeval"]
    dev = blocks(tmp_path / "dev.bios")
    assert ["S-Name", "_"] in [r[14:] for b in dev for r in b]  # FE unknown to the frame: no coreType
    losses, _ = write(tmp_path, sets)
    assert losses.as_dict() == {}  # without frames nothing is checked


def test_semeval_holds_every_set_in_frames_order(tmp_path):
    text = "the second millennium began"
    sets = [
        make_set(text, [(22, 26)], [("Event", 0, 20)], set_id=7, lu="begin.v", frame="Activity_start"),
        make_set(text, [(4, 9)], [("Type", 11, 20)], rank2=[("Item", 0, 20)], set_id=3, lu="second.a"),
        make_set("A b", [(2, 2)], [("X", 0, 0)], set_id=9, sent_id=2),
    ]
    losses, written = write(tmp_path, sets, split="test", fe_ranks="all")
    assert written == [tmp_path / "test.bios", tmp_path / "test.bios.semeval"]
    assert losses.as_dict() == {"overlapping_fes": 1}
    semeval = blocks(tmp_path / "test.bios.semeval")
    assert len(semeval) == 3 and {(r[14], r[15]) for b in semeval for r in b} == {("O", "_")}
    back, _ = read_back(tmp_path, "test", "test.bios.semeval")
    assert [s.id for s in back] == [1, 2, 3]
    assert [(s.lu_name, s.target) for s in back] == [(s.lu_name, s.target) for s in ordered(sets)]


def test_output_is_deterministic_and_order_independent(tmp_path):
    sets = [giving(), make_set("b a", [(0, 0)], set_id=5, sent_id=3), make_set("a b", [(2, 2)], set_id=4)]
    write(tmp_path / "one", sets)
    write(tmp_path / "two", list(reversed(sets)))
    assert (tmp_path / "one" / "train.bios").read_bytes() == (tmp_path / "two" / "train.bios").read_bytes()
    numbers = [b[0][6] for b in blocks(tmp_path / "one" / "train.bios")]
    table = SentenceTable.of(sets)
    assert numbers == [str(table.number(s)) for s in ordered(sets)] == ["0", "1", "2"]  # "Your" < "a b" < "b a"


@pytest.mark.parametrize(
    "field, value",
    [("frame", "Giv\ting"), ("lu", "give\u2028up.v"), ("lu", "give"), ("fe", "Do\nnor"), ("fe", "Do\x1cnor"),
     ("fe", "Donor\x85"), ("frame", "_")],
)
def test_unwritable_fields_are_refused(tmp_path, field, value):
    names = {"frame": "Giving", "lu": "give.v", "fe": "Donor"} | {field: value}
    aset = make_set("a b", [(2, 2)], [(names["fe"], 0, 0)], frame=names["frame"], lu=names["lu"])
    rounded = make_set("A doin'it", [(0, 0)], [("Event", 2, 5)], set_id=2)  # sorts first ("A" < "a"): a loss
    losses = Losses()
    with pytest.raises(PyfnError, match=r"annotation set 1: .*" + repr(value).replace("\\", "\\\\")):
        bios.write(tmp_path, "train", [aset, rounded], losses=losses)
    assert not (tmp_path / "train.bios").exists() and losses.as_dict() == {}


# ---------------------------------------------------------------- reader errors


def _valid_file(tmp_path):
    """Two blocks: "a b c d" (lines 1-4, empty line 5) and "x y" (lines 6-7, empty line 8)."""
    first = make_set("a b c d", [(2, 2), (4, 4)], [("X", 6, 6)], lu="b c.v", frame="F")
    second = make_set("x y", [(0, 0)], set_id=2, sent_id=2)
    write(tmp_path, [first, second])
    return (tmp_path / "train.bios").read_text(encoding="utf-8").split("\n")


def _set_field(lines, lineno, col, value):
    fields = lines[lineno - 1].split("\t")
    fields[col] = value
    lines[lineno - 1] = "\t".join(fields)


def _drop_field(lines, lineno, col, _):
    fields = lines[lineno - 1].split("\t")
    del fields[col]
    lines[lineno - 1] = "\t".join(fields)


def _set_block(lines, _, col, value):
    for lineno in range(1, 5):
        _set_field(lines, lineno, col, value)


def _del_line(lines, lineno, *_):
    del lines[lineno - 1]


@pytest.mark.parametrize(
    "edit, lineno, col, value, reason, where, message",
    [
        (_drop_field, 3, 15, None, "bad_columns", 3, "15 columns, expected 16"),
        (_set_field, 2, 0, "two", "bad_id", 2, "token ID 'two' is not a non-negative integer"),
        (_set_field, 2, 0, "3", "bad_id", 2, "token ID 3 where 2 was expected"),
        (_set_field, 4, 6, "1a", "bad_sentence_number", 4, "sentence number '1a' is not"),
        (_set_field, 4, 6, "1", "bad_sentence_number", 4, r"sentence numbers \[0, 1\] in one block"),
        (_set_block, 1, 6, "9", "bad_sentence_number", 1, "sentence number 9 past the end"),
        (_del_line, 4, None, None, "token_count", 1, "block of 3 lines, but sentence 0 of .* has 4 tokens"),
        (_set_field, 1, 1, "z", "form_mismatch", 1, "FORM 'z' is not token 'a'"),
        (_set_field, 4, 14, "X-X", "bad_tag", 4, "FE tag 'X-X' is not O, B-X, I-X or S-X"),
        (_set_field, 4, 14, "I-X", "bad_transition", 4, "'I-X' continues nothing"),
        (_set_field, 3, 13, "G", "mixed_target", 3, "LU/frame 'b c.v'/'G' in a block of 'b c.v'/'F'"),
        (_set_field, 3, 13, "_", "mixed_target", 3, "LU 'b c.v' with frame '_'"),
        (_set_field, 2, 12, "_", "mixed_target", 2, "LU '_' with frame 'F'"),
    ],
)
def test_reader_errors(tmp_path, edit, lineno, col, value, reason, where, message):
    lines = _valid_file(tmp_path)
    edit(lines, lineno, col, value)
    (tmp_path / "train.bios").write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(PyfnError, match=rf"train\.bios:{where}: {message}"):
        read_back(tmp_path)
    back, log = read_back(tmp_path, strict=False)
    assert [s.lu_name for s in back] == ["give.v"] and [s.id for s in back] == [2]  # block ids stay positional
    assert log.counts() == {reason: 1} and log.problems[0].where.endswith(f"train.bios:{where}")


def test_reader_no_target_and_bad_continuation(tmp_path):
    lines = _valid_file(tmp_path)
    for n in (2, 3):
        _set_field(lines, n, 12, "_")
        _set_field(lines, n, 13, "_")
    _set_field(lines, 7, 14, "I-X")
    (tmp_path / "train.bios").write_text("\n".join(lines), encoding="utf-8")
    back, log = read_back(tmp_path, strict=False)
    assert back == [] and log.counts() == {"bad_transition": 1, "no_target": 1}
    assert [p.where.rsplit(":", 1)[1] for p in log.problems] == ["1", "7"]


def test_reader_blank_lines(tmp_path):
    lines = _valid_file(tmp_path)
    (tmp_path / "train.bios").write_text("\n" + "\n".join(lines[:5] + [""] + lines[5:-2]), encoding="utf-8")
    back, log = read_back(tmp_path, strict=False)
    assert [s.id for s in back] == [1]  # the last block has no empty line after it
    assert log.counts() == {"empty_block": 2, "unterminated_block": 1}
    assert [p.where.rsplit(":", 1)[1] for p in log.problems] == ["1", "7", "9"]
    with pytest.raises(PyfnError, match=r"train\.bios:1: empty line"):
        read_back(tmp_path)


def test_reader_accepts_15_columns_and_crlf(tmp_path):
    write(tmp_path, [giving()], columns=15)
    path = tmp_path / "train.bios"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    (back,), _ = read_back(tmp_path)
    assert token_view(back, {1}) == token_view(giving(), {1})
    assert (back.id, back.status, back.lu_id, back.frame_id) == (1, bios.READ_STATUS, None, None)
    assert back.sentence == Sentence(id=0, text=GOODWILL, document="train.sentences")


def test_reader_missing_and_undecodable_files(tmp_path):
    write(tmp_path, [giving()])
    with pytest.raises(PyfnError, match="nothing.bios: cannot read"):
        list(bios.read(tmp_path / "nothing.bios", tmp_path / "train.sentences", log=ProblemLog()))
    (tmp_path / "train.sentences").write_bytes(b"\xff\n")
    with pytest.raises(PyfnError, match="train.sentences: not UTF-8"):
        read_back(tmp_path)


# ---------------------------------------------------------------- round trip property

WORD = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=4)
NAME = st.text(st.characters(blacklist_categories=("Cs", "Zl", "Zp", "Cc")), min_size=1, max_size=6).filter(
    lambda s: s != "_" and s.strip() == s and not bios.FORBIDDEN & set(s)
)


@st.composite
def annotation_set(draw, set_id, sentences):
    words = draw(sentences)
    seps = draw(st.lists(st.sampled_from([" ", "  ", "\u00a0"]), min_size=len(words), max_size=len(words)))
    text = draw(st.sampled_from(["", " "])) + "".join(w + s for w, s in zip(words, seps))
    toks = tokens(text)
    n = len(toks)
    target = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6, unique=True)))
    fes = []
    for a, b in pairwise(cuts):  # disjoint token ranges [a, b-1]
        if draw(st.booleans()):
            fes.append(Label(draw(NAME), toks[a].start, toks[b - 1].end))
    rank2 = [Label(draw(NAME), toks[i].start, toks[i].end) for i in draw(st.lists(st.integers(0, n - 1), max_size=2))]
    layers = (
        Layer("Target", 1, tuple(Label("Target", toks[i].start, toks[i].end) for i in sorted(target))),
        Layer("FE", 1, tuple(fes) + (Label("Gone", None, None, "DNI"),)),
        Layer("FE", 2, tuple(rank2)),
    )
    lu = draw(NAME) + "." + draw(st.sampled_from(["v", "n", "a"]))
    sentence = Sentence(id=0, text=text, document="d")
    return AnnotationSet(set_id, sentence, "MANUAL", None, lu, None, draw(NAME), layers)


@st.composite
def annotation_sets(draw):
    pool = draw(st.lists(st.lists(WORD, min_size=1, max_size=6), min_size=1, max_size=3))
    count = draw(st.integers(1, 6))
    return [draw(annotation_set(i, st.sampled_from(pool))) for i in range(1, count + 1)]


@settings(max_examples=150, deadline=None)
@given(annotation_sets(), st.sampled_from([15, 16]), st.sampled_from(["bios", "bio"]))
def test_round_trip_property(tmp_path_factory, sets, columns, scheme):
    tmp_path = tmp_path_factory.mktemp("rt")
    losses, _ = write(tmp_path, sets, columns=columns, scheme=scheme)
    assert losses.as_dict() == {}
    back, _ = read_back(tmp_path)
    assert [token_view(s, {1}) for s in back] == [token_view(s, {1}) for s in ordered(sets)]
    assert Counter(token_view(s, {1}) for s in back) == Counter(token_view(s, {1}) for s in sets)


def test_reader_accepts_open_sesame_unknown_word_forms(tmp_path):
    """Open-SESAME prints UNK (in FORM and LEMMA) for words outside its vocabulary; lower-cases the rest."""
    lines = _valid_file(tmp_path)
    expected, _ = read_back(tmp_path)
    _set_field(lines, 1, 1, bios.OOV_FORM)
    _set_field(lines, 1, 3, bios.OOV_FORM)
    _set_field(lines, 7, 1, "Y")
    (tmp_path / "train.bios").write_text("\n".join(lines), encoding="utf-8")
    back, log = read_back(tmp_path)
    assert back == expected and log.counts() == {}
    _set_field(lines, 1, 1, "unk")  # only Open-SESAME's exact placeholder stands for any word
    (tmp_path / "train.bios").write_text("\n".join(lines), encoding="utf-8")
    back, log = read_back(tmp_path, strict=False)
    assert [s.id for s in back] == [2] and log.counts() == {"form_mismatch": 1}
