"""A deterministic stand-in backend for the runner tests (registered by the tests as ``fake``).

Each token gets lemma = lower-cased form, XPOS ``NN``, head = previous token
(the first is the root); a word ``ROOT`` is made a second root, a word
``DROP`` is left without annotation (a backend that lost a token).
"""

from __future__ import annotations

from collections.abc import Sequence

from pyfn.model import TokenAnnotation
from pyfn.preprocess.base import Analysis, BackendOptions

CALLS: list[int] = []


class FakePreprocessor:
    def describe(self) -> dict[str, str]:
        return {"backend": "fake", "model": "chain", "model_version": "1"}

    def analyse(self, sentences: Sequence[Sequence[str]]) -> list[Analysis]:
        CALLS.append(len(sentences))
        return [
            tuple(
                TokenAnnotation(w.lower(), "X", "NN", 0 if i == 0 or w == "ROOT" else i, "ROOT" if i == 0 else "dep")
                for i, w in enumerate(words)
                if w != "DROP"
            )
            for words in sentences
        ]


def create(options: BackendOptions) -> FakePreprocessor:
    return FakePreprocessor()
