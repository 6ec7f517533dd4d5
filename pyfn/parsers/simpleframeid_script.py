"""Train or decode one SimpleFrameId configuration on a run folder laid out by ``pyfn simpleframeid prepare``.

Run by SimpleFrameId's own interpreter (Python 2.7, its packages and ``simpleFrameId/`` on ``sys.path``), never
imported by pyfn; written in the Python both versions read. It does for one configuration what upstream's
``main.py`` does for each of its own: ``get_graphs`` reads the SEMAFOR files, ``Lexicon.load_from_list`` the
lexicon, ``VSM`` the embeddings, the mapper builds the matrix, the classifier trains and predicts. Two things
are pyfn's: models are saved between the two commands (upstream trains and tests in one process; WSABIE also
after every epoch, from which a killed training continues), and predictions are written per ``.frame.elements``
line, so that pyfn knows which target each one answers::

    python simpleframeid_script.py train RUN MODEL {nn,wsb} {sentbow,depbow} SEED COMPONENTS MAX_SAMPLED EPOCHS
    python simpleframeid_script.py decode RUN MODEL SPLIT OUT [NO_LEXICON]

``OUT`` gets the split's ``.frame.elements`` lines with the predicted frame in the frame column and no frame
elements (SEMAFOR's layout, which ``pyfn convert --from semafor`` imports); a line SimpleFrameId cannot read
(its sentence malformed, or its SRL data refused) is left out and counted on stderr.
"""

from __future__ import print_function

import io
import json
import os
import pickle
import sys

CLASSIFIERS = {"nn": "SharingDNNClassifier", "wsb": "WsabieClassifier"}
CONTEXTS = {"sentbow": "SentenceBowMapper", "depbow": "DependentsBowMapper"}


def _paths(run, split):
    corpora = os.path.join(run, "corpora")
    return os.path.join(corpora, split + ".all.lemma.tags"), os.path.join(corpora, split + ".frame.elements")


def _setting(run, model):
    with io.open(os.path.join(run, "models", model, "setting.json"), encoding="utf-8") as handle:
        return json.load(handle)


def _resources(run, context):
    """The lexicon, the embeddings and the feature mapper of ``run``."""
    import extras
    import representation

    lexicon = extras.Lexicon()
    lexicon.load_from_list(os.path.join(run, "lexicons", "lexicon.tsv"))
    vsm = extras.VSM(os.path.join(run, "embeddings", "vectors.txt"))
    return lexicon, getattr(representation, CONTEXTS[context])(vsm, lexicon)


def train(run, model, classifier, context, seed, components, max_sampled, epochs):
    """Train one configuration and save it under ``RUN/models/MODEL/``."""
    import numpy
    import random

    numpy.random.seed(seed)  # upstream's main.py: random.seed(4); Keras and the patched WSABIE draw from it
    random.seed(seed)
    import classifier as upstream
    import data

    lexicon, mapper = _resources(run, context)
    X, y, lemmapos, _ = mapper.get_matrix(data.get_graphs(*_paths(run, "train")))
    clf = getattr(upstream, CLASSIFIERS[classifier])(lexicon, False, components, max_sampled, epochs)
    folder = os.path.join(run, "models", model)
    if classifier == "wsb":
        _checkpointed(clf, folder, [context, seed, components, max_sampled])
    clf.train(X, y, lemmapos)
    if classifier == "nn":
        clf.clf.save(os.path.join(folder, "model.h5"))
    else:
        with open(os.path.join(folder, "model.pkl"), "wb") as handle:
            pickle.dump(clf.clf, handle, 2)
    print("pyfn: trained on %d targets" % len(y))


def _checkpointed(clf, folder, setting):
    """Make the patched WSABIE save ``folder/checkpoint.pkl`` after every epoch and, when one of the same
    ``setting`` is there, continue from it (the model and its random state: the same draws as unbroken)."""
    path = os.path.join(folder, "checkpoint.pkl")
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            saved = pickle.load(handle)
        if saved["setting"] != setting or saved["done_epochs"] > clf.num_epochs:
            raise SystemExit("%s: a checkpoint of another setting (%r); remove it to train %r" % (
                path, saved["setting"], setting))
        clf.clf, clf.done_epochs = saved["model"], saved["done_epochs"]
        print("pyfn: resuming WSABIE after epoch %d" % clf.done_epochs)

    def checkpoint(done, model):
        with open(path + ".tmp", "wb") as handle:
            pickle.dump({"setting": setting, "done_epochs": done, "model": model}, handle, 2)
        os.rename(path + ".tmp", path)

    clf.checkpoint = checkpoint


def _load(run, model, setting, lexicon):
    import classifier as upstream

    folder = os.path.join(run, "models", model)
    clf = getattr(upstream, CLASSIFIERS[setting["classifier"]])(lexicon, False, setting["components"],
                                                                 setting["max_sampled"], setting["epochs"])
    if setting["classifier"] == "nn":
        from keras.models import load_model

        clf.clf = load_model(os.path.join(folder, "model.h5"))
    else:
        with open(os.path.join(folder, "model.pkl"), "rb") as handle:
            clf.clf = pickle.load(handle)
    return clf


def prediction_line(line, frame):
    """The SEMAFOR line of a prediction: ``line``'s LU, target and sentence number, ``frame``, no frame element."""
    fields = line.split("\t")
    return "\t".join(["0", "0.0", "1", frame] + fields[4:8])


def decode(run, model, split, out, no_lexicon="0"):
    """Predict the frame of every target of ``split``; write ``out`` (see the module docstring). ``no_lexicon``
    "1": every LU is treated as unknown, so every frame is a candidate (upstream's ``all_unknown``)."""
    import data

    setting = _setting(run, model)
    lexicon, mapper = _resources(run, setting["context"])
    clf = _load(run, model, setting, lexicon)
    clf.all_unknown = no_lexicon == "1"
    tags, fes = _paths(run, split)
    with io.open(tags, encoding="utf-8") as handle:
        sentences = data.collect_sentence_data(handle)
    with io.open(fes, encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle]
    written, skipped = [], 0
    for line in lines:
        fields = line.split("\t")
        one = data.collect_srl_data([line])  # this line alone: the graph that comes out answers its target
        sid = int(fields[7])
        graphs = list(data.merge_to_graph(one, {sid: sentences.get(sid)}))
        if len(graphs) != 1:
            skipped += 1
            continue
        X, _, lemmapos, _ = mapper.get_matrix(graphs)
        written.append(prediction_line(line, lexicon.get_frame(clf.predict(X[0], lemmapos[0]))))
    with io.open(out, "w", encoding="utf-8") as handle:
        handle.write(u"".join(line + u"\n" for line in written))
    print("pyfn: %d of %d targets predicted, %d not read by SimpleFrameId" % (len(written), len(lines), skipped))


def main(argv):
    if argv[0] == "train":
        run, model, classifier, context = argv[1:5]
        train(run, model, classifier, context, *[int(a) for a in argv[5:9]])
    elif argv[0] == "decode":
        decode(*argv[1:6])
    else:
        raise SystemExit("usage: simpleframeid_script.py {train,decode} ...")


if __name__ == "__main__":
    main(sys.argv[1:])
