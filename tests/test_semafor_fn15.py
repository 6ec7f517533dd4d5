"""SEMAFOR files of the FN 1.5 standard splits: round trip, pinned losses, the FORMATS.md §2.1 examples."""

from collections import Counter

import pytest

from pyfn.errors import ProblemLog
from pyfn.formats import semafor
from pyfn.formats.base import Losses, SentenceTable, ordered, token_view

# (split, frames_only) -> losses measured on FN 1.5 (one partial-token FE: "doin'" in "doin'tonight", test)
CASES = {
    ("train", False): {},
    ("dev", False): {},
    ("dev", True): {},
    ("test", False): {"partial_token_fe": 1},
    ("test", True): {},
}


@pytest.fixture(scope="module")
def written(fn15_sets, tmp_path_factory):
    out = {}
    for split, frames_only in CASES:
        losses = Losses()
        directory = tmp_path_factory.mktemp(f"{split}{int(frames_only)}")
        paths = semafor.write(directory, split, fn15_sets[split], losses=losses, frames_only=frames_only)
        out[split, frames_only] = paths, losses
    return out


@pytest.mark.parametrize("split, frames_only", list(CASES))
def test_round_trip_differs_only_by_counted_losses(fn15_sets, written, split, frames_only):
    sets = fn15_sets[split]
    paths, losses = written[split, frames_only]
    assert paths[1].name == f"{split}.frames" if frames_only else f"{split}.frame.elements"
    assert losses.as_dict() == CASES[split, frames_only]
    back = list(semafor.read(paths[1], paths[0], log=ProblemLog(strict=True)))
    assert len(back) == len(sets)
    cut = 4 if frames_only else 5  # .frames: sentence, frame, LU, target only
    expected = [token_view(s)[:cut] for s in ordered(sets)]
    got = [token_view(s)[:cut] for s in back]
    assert Counter(got) == Counter(expected)
    assert got == expected  # line k is the k-th set in output order (the .bios.semeval block order)
    # FE labels come back with the FN characters, except the partial-token ones
    rounded = 0
    for before, after in zip(ordered(sets), back):
        fes = [(lb.name, lb.span) for _, lb in before.overt_fes] if not frames_only else []
        got = [(lb.name, lb.span) for lb in after.layer_labels("FE")]
        assert [name for name, _ in got] == [name for name, _ in fes]
        rounded += sum(a != b for a, b in zip(got, fes))
    assert rounded == losses.counts["partial_token_fe"]


def test_sentence_files(fn15_sets, written):
    for split, size in (("train", 2654), ("dev", 328), ("test", 875)):
        paths, _ = written[split, False]
        lines = paths[0].read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "" and len(lines) - 1 == size
        assert lines[:-1] == SentenceTable.of(fn15_sets[split]).strings


def _number(fn15_sets, split, text):
    return SentenceTable.of(fn15_sets[split]).numbers[text]


def test_formats_examples(fn15_sets, written):
    giving = _number(fn15_sets, "test", "Your contribution to Goodwill will mean more than you may know .")
    test_lines = written["test", False][0][1].read_text(encoding="utf-8").splitlines()
    assert f"1\t0.0\t3\tGiving\tcontribution.n\t1\tcontribution\t{giving}\tDonor\t0\tRecipient\t2:3" in test_lines
    frames = written["test", True][0][1].read_text(encoding="utf-8").splitlines()
    assert f"1\t0.0\t1\tGiving\tcontribution.n\t1\tcontribution\t{giving}" in frames

    train = written["train", False][0][1].read_text(encoding="utf-8").splitlines()
    there = _number(
        fn15_sets,
        "train",
        "In any case , there certainly is no lack of information available about the moguls of technology now "
        "as they all become our current pop icons .",
    )
    assert f"1\t0.0\t3\tExistence\tthere be.v\t4_6\tthere is\t{there}\tEntity\t7:16\tTime\t17" in train
    time = [line for line in train if "\tat the time.adv\t" in line]
    assert [line.split("\t")[5] for line in time] == ["30_31_32"]
    assert time[0].endswith("\tat the time\t" + time[0].split("\t")[7] + "\tTrajector_event\t22:29")


def test_target_columns_that_need_the_list_encoding(written):
    """Targets where ``list`` and ``range`` (first_last) disagree: gaps, or ≥ 3 adjacent tokens (U1)."""
    found = {}
    for split in ("train", "dev", "test"):
        counts = Counter()
        for line in written[split, False][0][1].read_text(encoding="utf-8").splitlines():
            idx = [int(i) for i in line.split("\t")[5].split("_")]
            counts["gaps" if idx[-1] - idx[0] + 1 != len(idx) else "long" if len(idx) >= 3 else "other"] += 1
        found[split] = (counts["gaps"], counts["long"])
    assert found == {"train": (33, 18), "dev": (15, 6), "test": (5, 2)}
