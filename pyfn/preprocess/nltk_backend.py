"""NLTK backend: a Penn Treebank tagger and WordNet lemmatizer on FrameNet's own tokens.

The tagger is the one ``nltk.pos_tag`` uses, NLTK's English averaged perceptron
(``taggers/averaged_perceptron_tagger_eng``), run on each sentence as given.
The lemma is ``WordNetLemmatizer``'s as Open-SESAME computes it
(``sesame/xml_annotations.py``, ``raw_data.py``): as a verb for ``V*`` tags,
otherwise as a noun (WordNet's default), case kept. A tagger, no parser: XPOS and lemma
only, no UPOS, head or relation. NLTK ships no data: ``scripts/fetch_nltk_data.py``
fetches it, and ``--nltk-data DIR`` (or ``NLTK_DATA``) points at it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import nltk
from nltk.corpus import wordnet
from nltk.stem import WordNetLemmatizer
from nltk.tag.perceptron import PerceptronTagger

from pyfn.errors import PyfnError
from pyfn.model import TokenAnnotation
from pyfn.preprocess.base import Analysis, BackendOptions

TAGGER = "taggers/averaged_perceptron_tagger_eng/"
WORDNET = "corpora/wordnet"
WORDNET_POS = {"V": "v"}
"""WordNet part of speech by first letter of the Penn Treebank tag (default ``n``), as Open-SESAME."""
FETCH_HINT = "python scripts/fetch_nltk_data.py DIR, then pass --nltk-data DIR or set NLTK_DATA=DIR"


class NltkPreprocessor:
    """NLTK's perceptron tagger and WordNet lemmatizer, loaded and checked by :func:`create`."""

    def __init__(self, tagger: PerceptronTagger, tagger_sha256: str, wordnet_version: str) -> None:
        self.tagger = tagger
        self.tagger_sha256 = tagger_sha256
        self.wordnet_version = wordnet_version
        self.lemmatizer = WordNetLemmatizer()

    def describe(self) -> dict[str, str]:
        """Backend, model, NLTK version and the identity of the data loaded."""
        return {
            "backend": "nltk",
            "model": "averaged_perceptron_tagger+wordnet",
            "nltk_version": nltk.__version__,
            "tagger_sha256": self.tagger_sha256,
            "wordnet_version": self.wordnet_version,
        }

    def analyse(self, sentences: Sequence[Sequence[str]]) -> list[Analysis]:
        """Tag and lemmatize each sentence as given."""
        return [
            tuple(TokenAnnotation(self.lemma(word, tag), None, tag, None, None)
                  for word, tag in self.tagger.tag(list(words)))
            for words in sentences
        ]

    def lemma(self, word: str, tag: str) -> str:
        """WordNet's lemma of ``word`` tagged ``tag``; the lower-cased word if that is empty or spaced."""
        lemma = self.lemmatizer.lemmatize(word, WORDNET_POS.get(tag[:1], "n"))
        return lemma if lemma and not any(c.isspace() for c in lemma) else word.lower()


def _data_error(problem: str) -> PyfnError:
    searched = ", ".join(str(d) for d in nltk.data.path)
    return PyfnError(f"NLTK data {problem} (searched: {searched}); fetch it with {FETCH_HINT}")


def create(options: BackendOptions) -> NltkPreprocessor:
    """The NLTK backend, its data looked for first in ``options.nltk_data``; loaded now, so that
    missing data is an error before any work."""
    if options.nltk_data:
        directory = os.path.abspath(os.path.expanduser(options.nltk_data))
        if directory in nltk.data.path:
            nltk.data.path.remove(directory)
        nltk.data.path.insert(0, directory)
    found, missing = {}, []
    for resource in (TAGGER, WORDNET):
        try:
            found[resource] = nltk.data.find(resource)
        except LookupError:
            missing.append(resource.rstrip("/"))
    if missing:
        raise _data_error(f"missing: {', '.join(missing)}")
    try:
        tagger = PerceptronTagger(loc=found[TAGGER])
        with found[TAGGER].join(tagger.param_files()[0]).open() as weights:
            tagger_sha256 = hashlib.sha256(weights.read()).hexdigest()[:16]
        WordNetLemmatizer().lemmatize("cats")  # loads WordNet
        wordnet_version = str(wordnet.get_version())
    except (LookupError, OSError) as exc:  # a resource directory without all its files
        detail = next((line.strip() for line in str(exc).splitlines() if any(c.isalpha() for c in line)), "")
        raise _data_error(f"incomplete: {detail}") from None
    return NltkPreprocessor(tagger, tagger_sha256, wordnet_version)
