"""The layers of one ``<annotationSet>`` as rows: the innermost loop of the annotation readers.

:func:`read_layers` is written twice with one contract: here in Python, and
in ``_clayers.pyx``, compiled when pyfn is installed (Cython), which walks
libxml2's nodes under the same lxml element without making an element object
per layer and label. The compiled one is used when it was built and imports
(:mod:`pyfn.framenet.compiled`); ``PYFN_PURE_PYTHON=1`` chooses this one. The
test suite holds the two to the same rows and the same errors
(``tests/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from pyfn.framenet import compiled
from pyfn.framenet.xml import NS
from pyfn.model import FRAME_LAYERS, POS_LAYERS, PosTag

_LABEL = NS + "label"
_LAYER = NS + "layer"
_FRAME_LAYERS = frozenset(FRAME_LAYERS)

LabelRow = tuple[str, "int | None", "int | None", "str | None", "int | None"]
"""A label as read: ``(name, start, end, itype, fe_id)``, the fields of :class:`~pyfn.model.Label`."""
LayerRows = tuple[str, int, list[LabelRow]]
"""A ``Target``/``FE``/``PT``/``GF`` layer as read: ``(name, rank, labels)``."""
LayersRead = tuple[list[LayerRows], bool, "str | None", tuple[PosTag, ...], "str | None"]
"""What :func:`read_layers` returns: ``(layers, has_target, pos_layer, pos_tags, error)``."""


def _label_rows(layer: etree._Element) -> list[LabelRow]:
    """The labels of a layer as rows; a non-integer offset raises ``ValueError``."""
    out = []
    append = out.append
    for elem in layer.iterchildren(_LABEL):
        get = elem.get
        start, end, fe_id = get("start"), get("end"), get("feID")
        try:
            append((get("name", ""), start if start is None else int(start), end if end is None else int(end),
                    get("itype"), fe_id if fe_id is None else int(fe_id)))
        except ValueError:
            raise ValueError(
                f"label {get('name')!r} has a non-integer offset or feID"
                f" (start={start!r} end={end!r} feID={fe_id!r})"
            ) from None
    return out


def _pos_tags(layer: etree._Element) -> tuple[PosTag, ...]:
    """The ``(tag, start, end)`` labels of a POS layer; ``ValueError`` on a non-integer offset."""
    out = []
    append = out.append
    try:
        for lb in layer.iterchildren(_LABEL):
            get = lb.get
            start, end = get("start"), get("end")
            append((get("name", ""), start if start is None else int(start), end if end is None else int(end)))
    except ValueError:
        raise ValueError(f"a {layer.get('name')} label has a non-integer offset") from None
    return tuple(out)


def read_layers_py(aset: etree._Element, want_pos: bool) -> LayersRead:
    """The ``<layer>`` children of ``aset``, in document order.

    ``layers``: each of :data:`~pyfn.model.FRAME_LAYERS` as ``(name, rank, labels)`` (a missing or
    zero rank is 1); ``has_target``: one of them is ``Target``; ``pos_layer`` and ``pos_tags``: the
    first of :data:`~pyfn.model.POS_LAYERS` and its ``(tag, start, end)`` labels, when ``want_pos``
    (else None and ``()``); ``error``: why the set is malformed (a rank, offset or feID that is not an integer),
    or None. The layers are read up to the first error: a POS layer before it is returned.
    """
    layers: list[LayerRows] = []
    has_target = False
    pos_layer: str | None = None
    pos: tuple[PosTag, ...] = ()
    try:
        for layer in aset.iterchildren(_LAYER):
            name = layer.get("name", "")
            if name in _FRAME_LAYERS:
                rank = layer.get("rank")
                layers.append((name, (int(rank) or 1) if rank is not None else 1, _label_rows(layer)))
                has_target = has_target or name == "Target"
            elif want_pos and pos_layer is None and name in POS_LAYERS:
                pos_layer, pos = name, _pos_tags(layer)
    except ValueError as exc:
        return layers, has_target, pos_layer, pos, str(exc)
    return layers, has_target, pos_layer, pos, None


read_layers_c: Callable[[etree._Element, bool], LayersRead] | None = (
    compiled.MODULE.read_layers if compiled.MODULE is not None else None)
"""The compiled twin (None when not used: :data:`pyfn.framenet.compiled.READER` says why)."""
READER = compiled.READER
read_layers: Callable[[etree._Element, bool], LayersRead] = read_layers_c or read_layers_py
