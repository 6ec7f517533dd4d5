"""Offline baselines: frame identification (most frequent frame, logistic regression) and argument
identification given gold frames (dependency paths), trained on a ``pyfn convert`` directory's train
split only, writing ``{split}.predicted.xml`` for the SemEval scorer (``pyfn baseline``)."""
