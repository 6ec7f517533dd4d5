"""Split definitions: which fulltext documents form dev and test.

The standard lists for FN 1.5 and FN 1.7 are shipped as data under
``resources/splits/``; random and k-fold definitions are drawn from a seed.
Train is always every other fulltext document of the release.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pyfn.errors import PyfnError, UsageError
from pyfn.resources import resource_path

STANDARD_NAME = "std-2017"
"""The name of the standard split (Das et al. 2014 lists, as in Kabbach et al. 2018)."""


@dataclass(frozen=True)
class SplitDefinition:
    """Dev and test documents (file names such as ``ANC__110CYL067.xml``)."""

    name: str
    dev: tuple[str, ...]
    test: tuple[str, ...]
    standard: bool = False

    def split_of(self, document: str) -> str:
        """``test``, ``dev`` or ``train`` for a fulltext document name."""
        if document in self.test:
            return "test"
        if document in self.dev:
            return "dev"
        return "train"


def _read_list(version_dir: str, split: str) -> tuple[str, ...]:
    path = resource_path("splits", version_dir, f"{split}.txt")
    names = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        name = line.strip()
        if not name:
            continue
        if "/" in name or "\\" in name or name.startswith("."):
            raise PyfnError(f"{path}:{lineno}: refused document name outside fulltext/: {name!r}")
        names.append(name)
    return tuple(names)


def standard_split(version: str) -> SplitDefinition:
    """The standard dev/test lists shipped for a FrameNet release version."""
    known = {"1.5": "fn1.5", "1.7": "fn1.7", "1.5-sample": "sample"}
    if version not in known:
        raise UsageError(
            f"no standard split is defined for FrameNet {version} (known: 1.5, 1.7); "
            "use --split random or --split kfold"
        )
    folder = known[version]
    return SplitDefinition(STANDARD_NAME if folder != "sample" else "sample", _read_list(folder, "dev"),
                           _read_list(folder, "test"), standard=True)


def random_split(documents: Sequence[str], n_dev: int, n_test: int, seed: int | str) -> SplitDefinition:
    """A seeded random document-level split with ``n_dev`` dev and ``n_test`` test documents."""
    docs = sorted(documents)
    if n_dev + n_test >= len(docs):
        raise UsageError(f"cannot draw {n_dev} dev and {n_test} test documents from {len(docs)}")
    random.Random(seed).shuffle(docs)
    return SplitDefinition(
        f"random-seed{seed}", tuple(sorted(docs[n_test:n_test + n_dev])), tuple(sorted(docs[:n_test]))
    )


CANDIDATES = 2000
"""Random splits drawn at most per seed by :func:`balanced_random_split`."""
TOLERANCE = 0.05
"""Accepted relative difference in dev + test annotation sets from the target sizes."""


def balanced_random_split(
    sizes: dict[str, int], n_dev: int, n_test: int, seed: int, target_dev: int, target_test: int,
    candidates: int = CANDIDATES, tolerance: float = TOLERANCE,
) -> SplitDefinition:
    """A seeded random split with ``n_dev``/``n_test`` documents whose annotation-set counts come
    close to ``target_dev``/``target_test``: the first of the draws (seeds ``"{seed}:{i}"``) whose
    summed relative size difference is within ``tolerance``, else the closest of ``candidates``
    draws. Taking the first acceptable draw keeps splits of different seeds different.

    ``sizes`` maps each fulltext document to its number of annotation sets.
    """
    best: tuple[float, SplitDefinition] | None = None
    for i in range(candidates):
        draw = random_split(list(sizes), n_dev, n_test, f"{seed}:{i}")
        dev, test = sum(sizes[d] for d in draw.dev), sum(sizes[d] for d in draw.test)
        distance = abs(dev - target_dev) / max(target_dev, 1) + abs(test - target_test) / max(target_test, 1)
        if best is None or distance < best[0]:
            best = (distance, draw)
        if distance <= tolerance:
            break
    assert best is not None
    return SplitDefinition(f"random-seed{seed}", best[1].dev, best[1].test)


def kfold_splits(documents: Sequence[str], k: int, n_dev: int, seed: int) -> list[SplitDefinition]:
    """``k`` seeded folds: fold ``i`` is test; dev is ``n_dev`` documents of the rest, drawn with the seed."""
    docs = sorted(documents)
    if k < 2 or k > len(docs):
        raise UsageError(f"k-fold needs 2 <= k <= {len(docs)} documents, got k={k}")
    rng = random.Random(seed)
    rng.shuffle(docs)
    folds = [docs[i::k] for i in range(k)]
    out = []
    for i, fold in enumerate(folds):
        rest = [d for d in docs if d not in fold]
        if n_dev >= len(rest):
            raise UsageError(f"k-fold: {n_dev} dev documents leave no train document in fold {i}")
        dev = random.Random(f"{seed}:{i}").sample(rest, n_dev)
        out.append(SplitDefinition(f"kfold{k}-seed{seed}-fold{i}", tuple(sorted(dev)), tuple(sorted(fold))))
    return out
