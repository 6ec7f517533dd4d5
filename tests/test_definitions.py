import pytest

from pyfn.errors import UsageError
from pyfn.splits.definitions import kfold_splits, random_split, standard_split

DOCS = [f"doc{i:02d}.xml" for i in range(40)]


def test_standard_lists_are_shipped():
    fn15 = standard_split("1.5")
    assert (len(fn15.dev), len(fn15.test)) == (8, 23)
    assert "ANC__WhereToHongKong.xml" in fn15.test and fn15.standard
    assert standard_split("1.7").test == fn15.test
    with pytest.raises(UsageError, match="no standard split"):
        standard_split("1.6")


def test_random_split_reproducible_by_seed():
    a, b, c = random_split(DOCS, 4, 10, 7), random_split(list(reversed(DOCS)), 4, 10, 7), random_split(DOCS, 4, 10, 8)
    assert a == b
    assert a.test != c.test
    assert len(a.dev) == 4 and len(a.test) == 10 and not set(a.dev) & set(a.test)
    with pytest.raises(UsageError):
        random_split(DOCS, 20, 20, 0)


def test_kfold_partitions_documents():
    folds = kfold_splits(DOCS, 5, 3, seed=1)
    assert folds == kfold_splits(list(reversed(DOCS)), 5, 3, seed=1)
    tests = [set(f.test) for f in folds]
    assert set().union(*tests) == set(DOCS) and sum(map(len, tests)) == len(DOCS)
    for fold in folds:
        assert len(fold.dev) == 3 and not set(fold.dev) & set(fold.test)
    assert kfold_splits(DOCS, 5, 3, seed=2)[0].test != folds[0].test
    with pytest.raises(UsageError):
        kfold_splits(DOCS, 1, 3, seed=1)


def test_balanced_random_split_comes_close_to_the_target_sizes():
    from pyfn.splits.definitions import balanced_random_split

    sizes = {f"d{i:02d}.xml": (i * 37) % 101 + 5 for i in range(40)}
    split = balanced_random_split(sizes, 4, 8, seed=5, target_dev=200, target_test=400)
    assert len(split.dev) == 4 and len(split.test) == 8 and not set(split.dev) & set(split.test)
    dev, test = sum(sizes[d] for d in split.dev), sum(sizes[d] for d in split.test)
    assert abs(dev - 200) / 200 + abs(test - 400) / 400 < 0.05
    assert split == balanced_random_split(dict(reversed(list(sizes.items()))), 4, 8, 5, 200, 400)
    assert split.name == "random-seed5" and split != balanced_random_split(sizes, 4, 8, 6, 200, 400)
