"""Train word vectors on a split's own text, for a parser whose published embeddings are not at hand.

Run by the parser's interpreter (it needs gensim, not pyfn): ``python word2vec_script.py SENTENCES OUT
DIM SEED [EPOCHS]`` (default 20 epochs). Words are lower-cased whitespace tokens, as Open-SESAME looks them up. Deterministic: one
worker thread, a fixed seed (gensim also needs a fixed ``PYTHONHASHSEED``, which the caller sets). The
output is GloVe's text layout with a header line ``COUNT DIM`` (Open-SESAME skips the first line),
words sorted.
"""

import sys

SETTINGS = {"sg": 1, "window": 5, "min_count": 1, "epochs": 20, "workers": 1}
"""Skip-gram over every word (a small corpus: no frequency cut-off)."""


def main(sentences: str, out: str, dim: int, seed: int, epochs: int = SETTINGS["epochs"]) -> None:
    """Train and write the vectors."""
    from gensim.models import Word2Vec  # noqa: PLC0415 - only in the parser's environment

    with open(sentences, encoding="utf-8") as handle:
        corpus = [line.lower().split() for line in handle]
    model = Word2Vec(corpus, vector_size=dim, seed=seed, **{**SETTINGS, "epochs": epochs})
    words = sorted(model.wv.index_to_key)
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(f"{len(words)} {dim}\n")
        for word in words:
            handle.write(word + " " + " ".join(f"{x:.6f}" for x in model.wv[word]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), *[int(a) for a in sys.argv[5:6]])
