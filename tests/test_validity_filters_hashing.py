import pytest

from pyfn.errors import UsageError
from pyfn.model import Label, Layer
from pyfn.splits.filters import FILTERS, SetView, get_filters
from pyfn.splits.hashing import annoset_hash, fe_signature, order_key, sentence_hash
from pyfn.splits.validity import invalid_reason

from conftest import make_set

TEXT = "Your contribution to Goodwill will mean more ."


def test_valid_set_and_null_instantiation():
    assert invalid_reason(make_set(TEXT, [(5, 16)], [("Donor", 0, 3), ("Theme", None, None)])) is None


@pytest.mark.parametrize(
    "fes, reason",
    [
        ([("Donor", 0, None)], "invalid:unpaired_offset"),
        ([("Donor", None, 3)], "invalid:unpaired_offset"),
        ([("Donor", 0, 99)], "invalid:offset_past_end"),
        ([("Donor", len(TEXT), len(TEXT))], "invalid:offset_past_end"),
        ([("Donor", 3, 0)], "invalid:start_after_end"),
        ([("Donor", 0, 4)], "invalid:whitespace_boundary"),
        ([("Donor", 4, 16)], "invalid:whitespace_boundary"),
    ],
)
def test_invalid_fe_offsets(fes, reason):
    assert invalid_reason(make_set(TEXT, [(5, 16)], fes)) == reason


def test_invalid_pt_gf_and_target_labels_count_too():
    pt = Layer("PT", 1, (Label("NP", 0, 99),))
    assert invalid_reason(make_set(TEXT, [(5, 16)], extra=[pt])) == "invalid:offset_past_end"
    assert invalid_reason(make_set(TEXT, [(5, 17)])) == "invalid:whitespace_boundary"
    other = Layer("Other", 1, (Label("Supp", 0, 99),))
    assert invalid_reason(make_set(TEXT, [(5, 16)], extra=[other])) is None


def test_filter_overlap_fes_rank2():
    rank2 = [("Item", 0, 16)]
    assert FILTERS["overlap_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", 0, 3)], rank2=rank2)))
    assert not FILTERS["overlap_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", 0, 3), ("Rec", 18, 28)])))
    touching = make_set(TEXT, [(5, 16)], [("A", 0, 3), ("B", 3, 16)])
    assert FILTERS["overlap_fes"].removes(SetView.of(touching))


def test_filter_disc_fes():
    assert FILTERS["disc_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", 0, 3), ("Donor", 18, 19)])))
    assert not FILTERS["disc_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", 0, 3), ("Rec", 18, 19)])))
    # the same FE name in two ranks is not one discontinuous FE
    rank2 = make_set(TEXT, [(5, 16)], [("Donor", 0, 3)], rank2=[("Donor", 18, 19)])
    assert not FILTERS["disc_fes"].removes(SetView.of(rank2))


def test_filter_disc_targets():
    text = "there is a dog"
    assert FILTERS["disc_targets"].removes(SetView.of(make_set(text, [(0, 4), (9, 9)])))
    assert not FILTERS["disc_targets"].removes(SetView.of(make_set(text, [(0, 4), (6, 7)])))
    assert not FILTERS["disc_targets"].removes(SetView.of(make_set(text, [(0, 4)])))


def test_filter_no_fes_counts_only_overt():
    assert FILTERS["no_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", None, None)])))
    assert not FILTERS["no_fes"].removes(SetView.of(make_set(TEXT, [(5, 16)], [("Donor", 0, 3)])))


def test_filter_non_breaking_spaces():
    assert FILTERS["non_breaking_spaces"].removes(SetView.of(make_set("men\u00a0— except", [(0, 2)])))
    assert not FILTERS["non_breaking_spaces"].removes(SetView.of(make_set(TEXT, [(5, 16)])))


def test_unknown_filter_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown filter nope"):
        get_filters(["overlap_fes", "nope"])
    assert [f.name for f in get_filters(["no_fes", "overlap_fes"])] == ["overlap_fes", "no_fes"]


def test_hashes():
    assert sentence_hash(" The  Cat\tsat ") == "thecatsat"
    a = make_set("The cat sat", [(8, 10)], [("X", 0, 6)], set_id=5)
    b = make_set("the cat  sat ", [(8, 10)], [("Y", 0, 2)], set_id=3)
    assert annoset_hash(a) == annoset_hash(b)
    assert fe_signature(a) != fe_signature(b)
    assert order_key(make_set("there is", [(6, 7), (0, 4)])) == "0#4#6#7#give.v#Giving"
    assert fe_signature(make_set("a b", [(0, 0)], [("X", None, None)])) == ""
