"""BIOS on the real FrameNet 1.5 splits: exact losses, lossless round trip of everything else."""

from collections import Counter

import pytest

from pyfn.errors import ProblemLog
from pyfn.fileio import write_lines
from pyfn.formats import bios
from pyfn.formats.base import Losses, SentenceTable, ordered, token_view

SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module")
def fn15_data(fn15_sets, fn15_frames):
    """FN 1.5 fulltext sets per split (Test35 excluded) and every frame by name (built once per session)."""
    return fn15_sets, fn15_frames


@pytest.fixture(scope="module")
def written(fn15_data, tmp_path_factory):
    """The three splits written with the frame checks (default options), with their ``.sentences``."""
    sets, frames = fn15_data
    target = tmp_path_factory.mktemp("bios15")
    losses = {}
    for name in SPLITS:
        losses[name] = Losses()
        bios.write(target, name, sets[name], losses=losses[name], frames=frames)
        write_lines(target / f"{name}.sentences", SentenceTable.of(sets[name]).strings)
    return target, losses


def _read(target, name, suffix=".bios"):
    return list(bios.read(target / f"{name}{suffix}", target / f"{name}.sentences", log=ProblemLog(strict=True)))


def test_losses_are_exactly_the_known_ones(written):
    _, losses = written
    assert {name: losses[name].as_dict() for name in SPLITS} == {
        "train": {"fe_not_in_frame": 2},  # raise.v/Growing_food `Name`, remove.v/Removing `Frequency`
        "dev": {},
        "test": {"partial_token_fe": 1},  # "doin'" inside "doin'tonight", rounded to the token
    }


@pytest.mark.parametrize("name", SPLITS)
def test_round_trip_differs_only_by_counted_losses(fn15_data, written, name):
    sets, _ = fn15_data
    target, _ = written
    back = _read(target, name)
    expected = Counter(token_view(s, {1}) for s in sets[name])
    got = Counter(token_view(s, {1}) for s in back)
    assert not got - expected
    dropped = expected - got
    if name == "train":
        assert sorted((view[2], view[1], n) for view, n in dropped.items()) == [
            ("raise.v", "Growing_food", 1), ("remove.v", "Removing", 1)
        ]
        assert {s.id for s in sets[name] if token_view(s, {1}) in dropped} == {2019791, 1990142}
    else:
        assert not dropped


@pytest.mark.parametrize("name", ["dev", "test"])
def test_semeval_blocks_follow_frames_order(fn15_data, written, name):
    sets, _ = fn15_data
    target, _ = written
    back = _read(target, name, ".bios.semeval")
    in_order = ordered(sets[name])
    assert len(back) == len(in_order) == {"dev": 2319, "test": 4148}[name]
    assert [token_view(s)[:4] for s in back] == [token_view(s)[:4] for s in in_order]
    assert not any(s.layer_labels("FE") for s in back)


def test_spec_example_block(written):
    target, _ = written
    sentence = "Your contribution to Goodwill will mean more than you may know ."
    number = (target / "test.sentences").read_text(encoding="utf-8").split("\n").index(sentence)
    assert number == 857
    blocks = (target / "test.bios").read_text(encoding="utf-8").split("\n\n")
    giving = [b for b in blocks if f"\t{number}\t" in b and "\tcontribution.n\tGiving\t" in b]
    words = sentence.split()
    tags = ["S-Donor", "O", "B-Recipient", "I-Recipient"] + ["O"] * 8
    core = ["Core", "_", "Core", "Core"] + ["_"] * 8
    expected = "\n".join(
        "\t".join([str(i), w, "_", "_", "_", "_", "857", "_", "_", "_", "_", "_"]
                  + (["contribution.n", "Giving"] if i == 2 else ["_", "_"]) + [t, c])
        for i, (w, t, c) in enumerate(zip(words, tags, core), 1)
    )
    assert giving == [expected]


def test_all_ranks_drop_overlapping_sets(fn15_data, tmp_path):
    sets, _ = fn15_data
    counts = {}
    for name in SPLITS:
        losses = Losses()
        bios.write(tmp_path, name, sets[name], losses=losses, fe_ranks="all")
        counts[name] = losses.as_dict()
    assert counts == {
        "train": {"overlapping_fes": 429},
        "dev": {"overlapping_fes": 75},
        "test": {"overlapping_fes": 72, "partial_token_fe": 1},
    }
