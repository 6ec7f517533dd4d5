"""The compiled twin of a set's record row (``_clayers.set_record``, used by
:func:`pyfn.splits.parsed.parse_file`) gives the rows of the Python code: on random files built to reach
every invalid reason and every filter, and on values it leaves to Python."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pyfn.framenet.xml import FN_NS
from pyfn.splits import parsed

pytestmark = pytest.mark.skipif(parsed.set_record_c is None, reason="no compiled set_record")

_WORDS = ["a", "bb", "c\u00a0d", "eé", "\u2003", "f", "ggg"]


def _label(rng: random.Random, words: list[tuple[int, int]], size: int) -> str:
    """A label: mostly a run of words, now and then offsets past the text, reversed, on a space,
    half-given or none."""
    kind = rng.random()
    name = rng.choice(["A", "B", "C"])
    if kind < 0.04:
        return f'<label name="{name}" itype="INI"/>'
    if kind < 0.06:
        return f'<label name="{name}" start="{rng.randrange(size)}"/>'
    if kind < 0.12:
        start = rng.randrange(-1, size + 2)
        end = start + rng.choice([-2, -1, 0, 1, 3])
        return f'<label name="{name}" start="{start}" end="{end}"/>'
    first = rng.randrange(len(words))
    last = min(len(words) - 1, first + rng.choice([0, 0, 1, 2]))
    return f'<label name="{name}" start="{words[first][0]}" end="{words[last][1]}"/>'


def _document(rng: random.Random) -> bytes:
    chosen = [rng.choice(_WORDS) for _ in range(rng.randint(2, 9))]
    text = " ".join(chosen)
    size = len(text)
    words, at = [], 0
    for word in chosen:
        words.append((at, at + len(word) - 1))
        at += len(word) + 1
    sets = []
    for set_id in range(rng.randint(1, 4)):
        layers = []
        picked = sorted(rng.sample(range(len(words)), min(len(words), rng.choice([1, 1, 2, 3]))))
        targets = "".join(f'<label name="Target" start="{words[w][0]}" end="{words[w][1]}"/>' for w in picked)
        layers.append(f'<layer name="Target">{targets}</layer>')
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(["FE", "FE", "FE", "PT", "GF", "Target"])
            rank = rng.choice(["", "", ' rank="1"', ' rank="2"'])
            labels = "".join(_label(rng, words, size) for _ in range(rng.randint(0, 4)))
            layers.append(f'<layer name="{name}"{rank}>{labels}</layer>')
        sets.append(f'<annotationSet ID="{set_id + 1}" luID="3" luName="see.v" frameID="5" frameName="Perception">'
                    f'{"".join(layers)}</annotationSet>')
    return (f'<fullTextAnnotation xmlns="{FN_NS}"><sentence ID="1"><text>{text}</text>{"".join(sets)}'
            '</sentence></fullTextAnnotation>').encode()


def test_random_files_as_the_python_code(monkeypatch):
    """600 random files: the same record with the twin and without it; every invalid reason and every
    filter bit is met (counted), so that each branch of the twin is compared."""
    rng = random.Random(17)
    reasons: Counter = Counter()
    bits: Counter = Counter()
    for k in range(600):
        data = _document(rng)
        with_twin = parsed.parse_file(data, f"fulltext/d{k}.xml")
        monkeypatch.setattr(parsed, "set_record_c", None)
        without = parsed.parse_file(data, f"fulltext/d{k}.xml")
        monkeypatch.undo()
        assert with_twin == without, data
        reasons.update(reason for _, _, reason in without.dropped)
        for mask in without.sets[4]:
            bits.update(name for name, bit in parsed.FILTER_BITS.items() if mask & bit)
        bits["none"] += sum(1 for mask in without.sets[4] if not mask)
    assert set(reasons) == {"invalid:unpaired_offset", "invalid:offset_past_end", "invalid:start_after_end",
                            "invalid:whitespace_boundary"}, reasons
    assert set(bits) == {*parsed.FILTER_BITS, "none"}, bits
    assert min(reasons.values()) >= 10 and min(bits.values()) >= 10, (reasons, bits)


def _row(start, end, layer: str = "Target"):
    return parsed.set_record_c((1, "a b", "a b", "ab", [None, ()]), 7, 3, "see.v", 5, "Perception",
                               [(layer, 1, [("Target", start, end)])], b"{}", parsed._TWIN_BITS)


@pytest.mark.parametrize("start, end", [(0, 10**19), (-10**19, 0), (True, 0), (0.0, 0), ("0", 0)])
def test_values_the_twin_leaves_to_python(start, end):
    """An offset that is not an int of a ``long long`` gives None: the Python code makes the row."""
    assert _row(start, end) is None
    assert _row(start, end, "FE") is None


def test_rows_of_a_valid_set():
    assert _row(2, 2) == (7, 1, 5, 3, parsed.FILTER_BITS["no_fes"], "a b", "ab", "2#2#see.v#Perception",
                          "ab\t2#2\tsee.v\tPerception", "see.v", "Perception", b"{}")
    assert _row(1, 1)[2] == "invalid:whitespace_boundary"


def test_used_with_the_standard_filters():
    assert parsed.set_record_c is not None
    assert set(parsed._TWIN_FILTERS) == set(parsed.FILTER_BITS)


@pytest.mark.parametrize("repeat", [False, True])
def test_many_fe_labels_as_the_python_code(repeat, monkeypatch):
    """Past 64 overt FE labels the twin looks for a repeated (rank, name) by hashing them."""
    text = " ".join(["w"] * 80)
    names = [f"F{i}" for i in range(70)] + (["F3"] if repeat else [])
    labels = "".join(f'<label name="{name}" start="{2 * i}" end="{2 * i}"/>' for i, name in enumerate(names))
    data = (f'<fullTextAnnotation xmlns="{FN_NS}"><sentence ID="1"><text>{text}</text><annotationSet ID="1" '
            'luID="3" luName="see.v" frameID="5" frameName="Perception"><layer name="Target"><label name="Target" '
            f'start="0" end="0"/></layer><layer name="FE">{labels}</layer></annotationSet></sentence>'
            '</fullTextAnnotation>').encode()
    with_twin = parsed.parse_file(data, "fulltext/d.xml")
    monkeypatch.setattr(parsed, "set_record_c", None)
    assert with_twin == parsed.parse_file(data, "fulltext/d.xml")
    assert bool(with_twin.sets[4][0] & parsed.FILTER_BITS["disc_fes"]) is repeat
