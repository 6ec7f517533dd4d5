"""``pyfn audit``: leakage and duplicates in a train/dev/test split, whatever it was written in.

:func:`~pyfn.audit.run.audit` reads the inputs (:mod:`pyfn.audit.inputs`),
runs the checks (:mod:`pyfn.audit.checks`) and returns their record;
:mod:`pyfn.audit.report` prints it for people.
"""
