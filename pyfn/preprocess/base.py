"""The preprocessor protocol and its registry: FrameNet's tokens in, per-token POS, lemma, head, relation out.

A backend is one module of this package with a ``create(options)`` function
returning a :class:`Preprocessor`; :data:`BACKENDS` maps its name to the
module, imported only when the backend is used (spaCy is slow to import).
A backend never re-tokenizes: it receives the whitespace tokens of each
FrameNet sentence and returns exactly one :class:`TokenAnnotation` per token.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pyfn.errors import UsageError
from pyfn.model import TokenAnnotation

Analysis = tuple[TokenAnnotation, ...]
"""The annotation of one sentence, token by token."""


@dataclass(frozen=True)
class BackendOptions:
    """What selects a backend's model and data (recorded in the manifest)."""

    model: str | None = None
    nltk_data: str | None = None


class Preprocessor(Protocol):
    """A POS tagger, lemmatizer and (optionally) dependency parser over given tokens."""

    def describe(self) -> dict[str, str]:
        """Backend, model and versions: recorded in the manifest and part of the cache key."""
        ...

    def analyse(self, sentences: Sequence[Sequence[str]]) -> list[Analysis]:
        """One analysis per sentence, one annotation per given token (never re-tokenized)."""
        ...


BACKENDS: dict[str, str] = {
    "spacy": "pyfn.preprocess.spacy_backend",
    "nltk": "pyfn.preprocess.nltk_backend",
}
"""Backends by name: the module that holds each one's ``create``."""

IMPORT = "conll"
"""The tool name of an imported CoNLL-X/CoNLL-U parse (not a backend: nothing is computed)."""


def create(tool: str, options: BackendOptions) -> Preprocessor:
    """The backend ``tool``, loaded with ``options``; a usage error for an unknown name."""
    if tool not in BACKENDS:
        raise UsageError(f"unknown preprocessing backend {tool!r} (known: {', '.join(BACKENDS)})")
    return importlib.import_module(BACKENDS[tool]).create(options)


@dataclass
class TreeRepairs:
    """Repairs that made each sentence one dependency tree (counted in the manifest)."""

    extra_roots: int = 0
    cycles: int = 0
    no_root: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts by kind."""
        return {"extra_roots": self.extra_roots, "cycles": self.cycles, "no_root": self.no_root}

    def add(self, other: TreeRepairs) -> None:
        """Add ``other``'s counts to these."""
        self.extra_roots += other.extra_roots
        self.cycles += other.cycles
        self.no_root += other.no_root


def single_tree(analysis: Analysis, repairs: TreeRepairs) -> Analysis:
    """``analysis`` as one tree: exactly one root (HEAD 0), no cycle (FORMATS.md §4.3).

    Extra roots and every token of a cycle are attached to the first root;
    with no root at all, the first token becomes it. Each repair is counted.
    A sentence without heads (a tagger alone) is returned unchanged.
    """
    heads = [ann.head for ann in analysis]
    if not heads or any(h is None for h in heads):
        return analysis
    roots = [i for i, h in enumerate(heads, 1) if h == 0]
    if not roots:
        repairs.no_root += 1
        roots = [1]
        heads[0] = 0
    root = roots[0]
    for extra in roots[1:]:
        repairs.extra_roots += 1
        heads[extra - 1] = root
    state = [2] + [0] * len(heads)  # per node: 0 unseen, 1 on the current head chain, 2 reaches the root
    for start in range(1, len(heads) + 1):
        path, node = [], start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
        if state[node] == 1:  # the chain came back to itself: a cycle, broken at the node met again
            repairs.cycles += 1
            heads[node - 1] = root
        for visited in path:
            state[visited] = 2
    if heads == [ann.head for ann in analysis]:
        return analysis
    return tuple(
        ann if ann.head == head else TokenAnnotation(ann.lemma, ann.upos, ann.xpos, head, ann.deprel)
        for ann, head in zip(analysis, heads)
    )
