# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled twin of :func:`pyfn.framenet.layers.read_layers_py` (same contract, same rows, same
errors): it walks libxml2's nodes under the lxml element, through lxml's public C API."""

from libc.string cimport strcmp
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Element, attributeValueFromNsName, import_lxml__etree

from pyfn.model import FRAME_LAYERS, POS_LAYERS

import_lxml__etree()

cdef extern from *:
    const char* PYFN_SOURCE_SHA256  # defined by setup.py: the sha256 of this file as compiled

SOURCE_SHA256 = PYFN_SOURCE_SHA256.decode("ascii")
"""The sha256 of the source this module was compiled from (checked by :mod:`pyfn.framenet.layers`)."""

cdef const char* _FN_NS = b"http://framenet.icsi.berkeley.edu"
cdef frozenset _FRAME_LAYERS = frozenset(FRAME_LAYERS)
cdef tuple _POS_LAYERS = POS_LAYERS


cdef inline bint _is(tree.xmlNode* node, const char* name) noexcept:
    """The node is an element ``{FrameNet}name`` (as lxml's ``iterchildren(tag)`` matches)."""
    return (node.type == tree.XML_ELEMENT_NODE and strcmp(<const char*>node.name, name) == 0
            and node.ns is not NULL and node.ns.href is not NULL
            and strcmp(<const char*>node.ns.href, _FN_NS) == 0)


cdef inline object _get(tree.xmlNode* node, const char* name):
    """The attribute ``name`` without namespace, or None (as ``element.get(name)``)."""
    return attributeValueFromNsName(node, NULL, <const unsigned char*>name)


cdef object _int(object value):
    """``int(value)``, None for None: ASCII ``-?[0-9]{1,17}`` in C, anything else by ``int`` itself."""
    cdef Py_ssize_t i = 0, n
    cdef long long number = 0
    cdef long long digit
    cdef unicode text
    if value is None:
        return None
    text = <unicode>value
    n = len(text)
    if n == 0 or n > 18:
        return int(value)
    if text[0] == u'-':
        i = 1
        if n == 1:
            return int(value)
    while i < n:
        digit = <long long>text[i] - 48
        if digit < 0 or digit > 9:
            return int(value)
        number = number * 10 + digit
        i += 1
    return -number if text[0] == u'-' else number


cdef list _label_rows(tree.xmlNode* layer):
    cdef list out = []
    cdef tree.xmlNode* node = layer.children
    while node is not NULL:
        if _is(node, b"label"):
            name = _get(node, b"name")
            start = _get(node, b"start")
            end = _get(node, b"end")
            fe_id = _get(node, b"feID")
            try:
                out.append((u"" if name is None else name, _int(start), _int(end), _get(node, b"itype"),
                            _int(fe_id)))
            except ValueError:
                raise ValueError(f"label {name!r} has a non-integer offset or feID"
                                 f" (start={start!r} end={end!r} feID={fe_id!r})") from None
        node = node.next
    return out


cdef tuple _pos_tags(tree.xmlNode* layer):
    cdef list out = []
    cdef tree.xmlNode* node = layer.children
    try:
        while node is not NULL:
            if _is(node, b"label"):
                name = _get(node, b"name")
                out.append((u"" if name is None else name, _int(_get(node, b"start")), _int(_get(node, b"end"))))
            node = node.next
    except ValueError:
        raise ValueError(f"a {_get(layer, b'name')} label has a non-integer offset") from None
    return tuple(out)


def read_layers(_Element aset not None, bint want_pos):
    """See :func:`pyfn.framenet.layers.read_layers_py`."""
    cdef list layers = []
    cdef tree.xmlNode* node = aset._c_node.children
    cdef bint has_target = False
    pos_layer = None
    pos = ()
    try:
        while node is not NULL:
            if _is(node, b"layer"):
                name = _get(node, b"name")
                if name is None:
                    name = u""
                if name in _FRAME_LAYERS:
                    rank = _get(node, b"rank")
                    layers.append((name, (_int(rank) or 1) if rank is not None else 1, _label_rows(node)))
                    has_target = has_target or name == u"Target"
                elif want_pos and pos_layer is None and name in _POS_LAYERS:
                    pos = _pos_tags(node)
                    pos_layer = name
            node = node.next
    except ValueError as exc:
        return layers, has_target, pos_layer, pos, str(exc)
    return layers, has_target, pos_layer, pos, None
