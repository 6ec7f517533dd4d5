# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twins of the annotation readers' inner loops, walking libxml2's nodes under lxml's
elements through lxml's public C API (same contracts, same results, same errors as the Python twins):

- :func:`read_layers`: :func:`pyfn.framenet.layers.read_layers_py`, the layers of one set;
- :func:`read_sentences`: the sentences of a whole parsed file, as
  :func:`pyfn.framenet.annotations.read_file` reads them streamed; a sentence with anything unusual
  goes to the Python reader, a file with a sentence inside a sentence to the streamed one;
- :func:`set_record`: the split builder's row of a set (``pyfn.splits.parsed``: validity, filter
  bits, order key, dedup hash) from the layers read;
- :class:`SentenceRows` and :func:`sentence_hash`: the builder's row of a sentence (its text without
  trailing whitespace and its sentence hash, once per distinct text of a file)."""

from libc.stdlib cimport free, malloc, qsort, realloc
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_FindChar, PyUnicode_READ_CHAR, Py_UNICODE_ISSPACE
from libc.string cimport memcpy, strcmp, strlen
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport (
    _Element, attributeValueFromNsName, elementFactory, import_lxml__etree, textOf)

from sys import intern

from pyfn.errors import Problem, PyfnError
from pyfn.model import FRAME_LAYERS, POS_LAYERS

import_lxml__etree()

cdef extern from *:
    const char* PYFN_SOURCE_SHA256  # defined by setup.py: the sha256 of this file as compiled

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

SOURCE_SHA256 = PYFN_SOURCE_SHA256.decode("ascii")
"""The sha256 of the source this module was compiled from (checked by :mod:`pyfn.framenet.compiled`)."""

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


cdef bint _plain(const char* value, Py_ssize_t n, long long* out) noexcept:
    """True, with the integer in ``out``, when the ``n`` bytes at ``value`` are ASCII ``-?[0-9]+`` of at
    most 18 characters (it fits a ``long long``)."""
    cdef Py_ssize_t i = 0
    cdef long long number = 0
    if n == 0 or n > 18:
        return False
    if value[0] == b'-':
        i = 1
        if n == 1:
            return False
    while i < n:
        if value[i] < b'0' or value[i] > b'9':
            return False
        number = number * 10 + (value[i] - 48)
        i += 1
    out[0] = -number if value[0] == b'-' else number
    return True


cdef bint _parse(object value, long long* out) except -1:
    """:func:`_plain` of a string (its UTF-8), False for None."""
    cdef Py_ssize_t n
    cdef const char* data
    if value is None:
        return False
    data = PyUnicode_AsUTF8AndSize(value, &n)
    return _plain(data, n, out)


cdef object _int(object value):
    """``int(value)``, None for None: what :func:`_parse` takes in C, anything else by ``int`` itself."""
    cdef long long number
    if value is None:
        return None
    if _parse(value, &number):
        return number
    return int(value)


cdef inline bint _value(tree.xmlAttr* attr, const char** out) noexcept:
    """The attribute's value where libxml2 holds it (True), as ``xmlGetNoNsProp`` would copy it: ""
    without children, else the content of its one text node; False for anything else (never seen
    in trees lxml builds, which substitute entities into the text: ``xmlGetNoNsProp`` then joins)."""
    cdef tree.xmlNode* child = attr.children
    if child is NULL:
        out[0] = b""
        return True
    if (child.next is NULL and child.content is not NULL
            and (child.type == tree.XML_TEXT_NODE or child.type == tree.XML_CDATA_SECTION_NODE)):
        out[0] = <const char*>child.content
        return True
    return False


cdef enum:
    _NAME, _START, _END, _ITYPE, _FE_ID, _LABEL_ATTRS


cdef bint _label_values(tree.xmlNode* node, const char** values) noexcept:
    """The raw values of a label's ``name``, ``start``, ``end``, ``itype`` and ``feID`` (each without
    namespace; NULL when absent), read in one pass over its attributes; False when one is not a plain
    text value (:func:`_value`)."""
    cdef tree.xmlAttr* attr = node.properties
    cdef const char* name
    cdef int k
    for k in range(_LABEL_ATTRS):
        values[k] = NULL
    while attr is not NULL:
        if attr.ns is NULL:
            name = <const char*>attr.name
            if strcmp(name, b"name") == 0:
                k = _NAME
            elif strcmp(name, b"start") == 0:
                k = _START
            elif strcmp(name, b"end") == 0:
                k = _END
            elif strcmp(name, b"itype") == 0:
                k = _ITYPE
            elif strcmp(name, b"feID") == 0:
                k = _FE_ID
            else:
                k = -1
            if k >= 0 and not _value(attr, &values[k]):
                return False
        attr = attr.next
    return True


cdef inline object _text(const char* value, object absent):
    """A raw value as the string lxml makes of it; ``absent`` for NULL."""
    if value is NULL:
        return absent
    return value[:strlen(value)].decode("UTF-8")


cdef tuple _fast_row(tree.xmlNode* node, bint full, _Buffer* out):
    """A label's row (``full``: name, start, end, itype, feID; else name, start, end) read in C, its
    JSON added to ``out`` (unless NULL), or None when an attribute is not plain (not one text value, an
    offset or feID not ``-?[0-9]{1,18}``): :func:`_label_row` then reads it as before."""
    cdef const char* values[_LABEL_ATTRS]
    cdef long long start = 0, end = 0, fe_id = 0
    if not _label_values(node, values):
        return None
    if ((values[_START] is not NULL and not _plain(values[_START], strlen(values[_START]), &start))
            or (values[_END] is not NULL and not _plain(values[_END], strlen(values[_END]), &end))):
        return None
    name = _text(values[_NAME], u"")
    start_value = None if values[_START] is NULL else start
    end_value = None if values[_END] is NULL else end
    if not full:
        return (name, start_value, end_value)
    if values[_FE_ID] is not NULL and not _plain(values[_FE_ID], strlen(values[_FE_ID]), &fe_id):
        return None
    if out is not NULL:
        _put_label(out, values, start, end, fe_id)
    return (name, start_value, end_value, _text(values[_ITYPE], None), None if values[_FE_ID] is NULL else fe_id)


cdef struct _Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t used


cdef _Buffer _JSON
"""The layers' JSON being written (:func:`_layers_of`; reused, never freed)."""


cdef int _room(_Buffer* out, Py_ssize_t more) except -1:
    cdef Py_ssize_t size
    cdef char* grown
    if out.used + more <= out.size:
        return 0
    size = max(out.used + more, 2 * out.size + 4096)
    grown = <char*>realloc(out.data, size)
    if grown is NULL:
        raise MemoryError()
    out.data, out.size = grown, size
    return 0


cdef int _put(_Buffer* out, const char* text) except -1:
    cdef Py_ssize_t n = strlen(text)
    _room(out, n)
    memcpy(out.data + out.used, text, n)
    out.used += n
    return 0


cdef int _put_int(_Buffer* out, long long value) except -1:
    """``value`` in decimal, as ``str(int)`` writes it."""
    cdef char digits[20]
    cdef int n = 0
    cdef unsigned long long rest = <unsigned long long>value
    if value < 0:
        rest = 0 - rest  # modulo 2**64: the magnitude, even of the most negative value
    _room(out, 21)
    if value < 0:
        out.data[out.used] = b'-'
        out.used += 1
    while True:
        digits[n] = <char>(48 + rest % 10)
        n += 1
        rest //= 10
        if rest == 0:
            break
    while n > 0:
        n -= 1
        out.data[out.used] = digits[n]
        out.used += 1
    return 0


cdef const char* _HEX = b"0123456789abcdef"


cdef int _put_string(_Buffer* out, const char* text) except -1:
    """``text`` (UTF-8, NUL-terminated) as a JSON string: :func:`_put_string_n`."""
    return _put_string_n(out, text, strlen(text))


cdef int _put_string_n(_Buffer* out, const char* text, Py_ssize_t n) except -1:
    """``n`` bytes of UTF-8 as a JSON string, escaped as ``json.encoder.encode_basestring`` escapes (what
    :mod:`pyfn.formats.jsonl` writes: non-ASCII kept, control characters escaped)."""
    cdef Py_ssize_t i
    cdef unsigned char c
    cdef char* at
    _room(out, 6 * n + 2)
    at = out.data + out.used
    at[0] = b'"'
    at += 1
    for i in range(n):
        c = <unsigned char>text[i]
        if c >= 0x20 and c != 0x22 and c != 0x5c:
            at[0] = <char>c
            at += 1
            continue
        at[0] = b'\\'
        if c == 0x22 or c == 0x5c:
            at[1] = <char>c
        elif c == 0x0a:
            at[1] = b'n'
        elif c == 0x0d:
            at[1] = b'r'
        elif c == 0x09:
            at[1] = b't'
        elif c == 0x08:
            at[1] = b'b'
        elif c == 0x0c:
            at[1] = b'f'
        else:
            at[1], at[2], at[3], at[4], at[5] = b'u', b'0', b'0', _HEX[c >> 4], _HEX[c & 15]
            at += 4
        at += 2
    at[0] = b'"'
    out.used = at + 1 - out.data
    return 0


cdef const char* _NO_TEXT = b""


cdef int _put_int_or_null(_Buffer* out, const char* raw, long long value) except -1:
    """``value``, or ``null`` for an absent attribute (``raw`` NULL)."""
    if raw is NULL:
        return _put(out, b"null")
    return _put_int(out, value)


cdef int _put_label(_Buffer* out, const char** values, long long start, long long end,
                    long long fe_id) except -1:
    """A label's JSON ``[name,start,end,itype,feID]`` from its raw values (see :func:`_fast_row`)."""
    _put(out, b"[")
    _put_string(out, _NO_TEXT if values[_NAME] is NULL else values[_NAME])
    _put(out, b",")
    _put_int_or_null(out, values[_START], start)
    _put(out, b",")
    _put_int_or_null(out, values[_END], end)
    _put(out, b",")
    if values[_ITYPE] is NULL:
        _put(out, b"null")
    else:
        _put_string(out, values[_ITYPE])
    _put(out, b",")
    _put_int_or_null(out, values[_FE_ID], fe_id)
    return _put(out, b"]")


cdef tuple _label_row(tree.xmlNode* node, _Buffer* out, bint* plain):
    """A label's ``(name, start, end, itype, feID)``, its JSON added to ``out`` while ``plain`` (cleared
    for a label :func:`_fast_row` leaves); ValueError naming it when an offset or the feID is not an
    integer."""
    row = _fast_row(node, True, out if plain[0] else NULL)
    if row is not None:
        return row
    plain[0] = False
    name = _get(node, b"name")
    start = _get(node, b"start")
    end = _get(node, b"end")
    fe_id = _get(node, b"feID")
    try:
        return (u"" if name is None else name, _int(start), _int(end), _get(node, b"itype"), _int(fe_id))
    except ValueError:
        raise ValueError(f"label {name!r} has a non-integer offset or feID"
                         f" (start={start!r} end={end!r} feID={fe_id!r})") from None


cdef list _label_rows(tree.xmlNode* layer, _Buffer* out, bint* plain):
    """The rows of a layer's labels, their JSON (comma-separated) added to ``out`` while ``plain``."""
    cdef list rows = []
    cdef tree.xmlNode* node = layer.children
    while node is not NULL:
        if _is(node, b"label"):
            if rows and plain[0]:
                _put(out, b",")
            rows.append(_label_row(node, out, plain))
        node = node.next
    return rows


cdef tuple _pos_tags(tree.xmlNode* layer):
    cdef list out = []
    cdef tree.xmlNode* node = layer.children
    try:
        while node is not NULL:
            if _is(node, b"label"):
                row = _fast_row(node, False, NULL)
                if row is None:
                    name = _get(node, b"name")
                    row = (u"" if name is None else name, _int(_get(node, b"start")), _int(_get(node, b"end")))
                out.append(row)
            node = node.next
    except ValueError:
        raise ValueError(f"a {_get(layer, b'name')} label has a non-integer offset") from None
    return tuple(out)


def read_layers(_Element aset not None, bint want_pos):
    """See :func:`pyfn.framenet.layers.read_layers_py`."""
    return _layers_of(aset._c_node, want_pos, False)[:5]


def layers_json(_Element aset not None):
    """The JSON of the frame layers :func:`read_layers` reads, as :func:`pyfn.formats.jsonl.encode_set`
    writes them, or None (a label not plain, a layer error): what :func:`read_sentences` puts in the
    set's line."""
    encoded = _layers_of(aset._c_node, False, True)[5]
    return None if encoded is None else encoded.decode("utf-8")


cdef tuple _layers_of(tree.xmlNode* aset, bint want_pos, bint want_json):
    """:func:`read_layers`'s five values, then the frame layers' JSON in UTF-8 (:func:`layers_json`; None
    unless ``want_json``)."""
    cdef list layers = []
    cdef tree.xmlNode* node = aset.children
    cdef bint has_target = False
    cdef bint plain = want_json
    cdef long long rank_value
    pos_layer = None
    pos = ()
    _JSON.used = 0
    try:
        while node is not NULL:
            if _is(node, b"layer"):
                name = _get(node, b"name")
                if name is None:
                    name = u""
                if name in _FRAME_LAYERS:
                    rank = _get(node, b"rank")
                    rank = (_int(rank) or 1) if rank is not None else 1
                    if plain:
                        try:
                            rank_value = rank
                        except OverflowError:
                            plain = False
                    if plain:
                        name_utf8 = (<str>name).encode("utf-8")
                        _put(&_JSON, b'{"name":' if not layers else b',{"name":')
                        _put_string(&_JSON, name_utf8)
                        _put(&_JSON, b',"rank":')
                        _put_int(&_JSON, rank_value)
                        _put(&_JSON, b',"labels":[')
                    layers.append((name, rank, _label_rows(node, &_JSON, &plain)))
                    if plain:
                        _put(&_JSON, b"]}")
                    has_target = has_target or name == u"Target"
                elif want_pos and pos_layer is None and name in _POS_LAYERS:
                    pos = _pos_tags(node)
                    pos_layer = name
            node = node.next
    except ValueError as exc:
        return layers, has_target, pos_layer, pos, str(exc), None
    return layers, has_target, pos_layer, pos, None, _JSON.data[:_JSON.used] if plain else None


cdef _Buffer _LINE
"""A set's JSON line, or a sentence's part of it, being written (reused, never freed)."""


cdef bint _put_value_int(_Buffer* out, object value) except -1:
    """An int (``null`` for None) as :func:`pyfn.formats.jsonl.encode_set` writes it; False, with
    nothing written, for another type or beyond 64 bits."""
    cdef long long number
    if value is None:
        _put(out, b"null")
        return True
    if type(value) is not int:
        return False
    try:
        number = value
    except OverflowError:
        return False
    _put_int(out, number)
    return True


cdef bint _put_value_str(_Buffer* out, object value) except -1:
    """A str (``null`` for None) as a JSON string; False for another type or a lone surrogate."""
    cdef const char* data
    cdef Py_ssize_t n
    if value is None:
        _put(out, b"null")
        return True
    if type(value) is not str:
        return False
    try:
        data = PyUnicode_AsUTF8AndSize(value, &n)
    except UnicodeEncodeError:
        return False
    _put_string_n(out, data, n)
    return True


cdef bint _put_fields(_Buffer* out, tuple fields) except -1:
    """Each ``(key, value, text)`` of ``fields``: ``key``, then ``value`` as JSON, a str when ``text``,
    else an int (``null`` for None); False when a value is not of its kind."""
    cdef bint ok = True
    for key, value, text in fields:
        _put(out, key)
        ok = (_put_value_str(out, value) if text else _put_value_int(out, value)) and ok
    return ok


cdef bytes _sentence_json(object sent_id, object text, object document, tuple ids, object pos_layer, tuple pos):
    """A sentence's part of its sets' JSON lines, as :func:`pyfn.formats.jsonl.encode_sentence` writes
    it, in UTF-8; None when a value is not plain (the Python encoder then writes the lines)."""
    doc_id, corpus_id, sent_no, parag_no, apos = ids
    _LINE.used = 0
    ok = _put_fields(&_LINE, ((b'"sentence":{"id":', sent_id, False), (b',"text":', text, True),
                              (b',"document":', document, True), (b',"doc_id":', doc_id, False),
                              (b',"corpus_id":', corpus_id, False), (b',"sent_no":', sent_no, False),
                              (b',"parag_no":', parag_no, False), (b',"apos":', apos, False),
                              (b',"pos_layer":', pos_layer, True)))
    _put(&_LINE, b',"pos":[')
    for k, (tag, start, end) in enumerate(pos):
        ok = _put_fields(&_LINE, ((b"[" if k == 0 else b",[", tag, True), (b",", start, False),
                                  (b",", end, False))) and ok
        _put(&_LINE, b"]")
    _put(&_LINE, b"]}}")
    return _LINE.data[:_LINE.used] if ok else None


cdef bytes _set_line(object set_id, object source, object status, object lu_id, object lu_name, object frame_id,
                     object frame_name, bytes layers, bytes sentence):
    """A set's JSON line as :func:`pyfn.formats.jsonl.encode_set` writes it, in UTF-8, from its fields,
    its frame layers' JSON and its sentence's part; None when a value is not plain."""
    _LINE.used = 0
    ok = _put_fields(&_LINE, ((b'{"id":', set_id, False), (b',"source":', source, True),
                              (b',"status":', status, True), (b',"lu_id":', lu_id, False), (b',"lu":', lu_name, True),
                              (b',"frame_id":', frame_id, False), (b',"frame":', frame_name, True)))
    for part in (b',"layers":[', layers, b"],", sentence):
        _room(&_LINE, len(part))
        memcpy(_LINE.data + _LINE.used, <const char*>part, len(part))
        _LINE.used += len(part)
    return _LINE.data[:_LINE.used] if ok else None


# ------------------------------------------------------------------------------------- sentences


cdef inline tree.xmlNode* _next_in(tree.xmlNode* node, tree.xmlNode* top, bint descend) noexcept:
    """The element or other node after ``node`` in document order, inside ``top`` (NULL past its
    end); into ``node``'s children when ``descend`` and it is an element."""
    if descend and node.type == tree.XML_ELEMENT_NODE and node.children is not NULL:
        return node.children
    while node is not top and node.next is NULL:
        node = node.parent
    if node is top:
        return NULL
    return node.next


cdef bint _holds_sentence(tree.xmlNode* top) noexcept:
    """A FrameNet ``<sentence>`` lies inside ``top``."""
    cdef tree.xmlNode* node = top.children
    while node is not NULL:
        if _is(node, b"sentence"):
            return True
        node = _next_in(node, top, True)
    return False


cdef tree.xmlNode* _text_of(tree.xmlNode* sentence) noexcept:
    """The sentence's first FrameNet ``<text>`` child, the one read (NULL without one)."""
    cdef tree.xmlNode* child = sentence.children
    while child is not NULL:
        if _is(child, b"text"):
            return child
        child = child.next
    return NULL


cdef bint _text_led_by_node(tree.xmlNode* sentence) noexcept:
    """The sentence's ``<text>`` begins with a child that is neither text nor CDATA (an element or an
    instruction): a parser dropping blank text may have dropped blank text before it
    (``annotations._WHOLE_NO_BLANKS``), which ``.text`` holds."""
    cdef tree.xmlNode* text = _text_of(sentence)
    return (text is not NULL and text.children is not NULL and text.children.type != tree.XML_TEXT_NODE
            and text.children.type != tree.XML_CDATA_SECTION_NODE)


cdef object _plain_int_attr(tree.xmlNode* node, const char* name, bint* ok):
    """The attribute ``name`` as an integer, None when absent; ``ok`` cleared when it is not plain."""
    cdef long long number
    value = _get(node, name)
    if value is None:
        return None
    if _parse(value, &number):
        return number
    ok[0] = False
    return None


cdef bint _labelled_target(list layers):
    """The first Target layer has labels, each with both offsets (an annotation set)."""
    for name, _, rows in layers:
        if name == u"Target":
            if not rows:
                return False
            for row in <list>rows:
                if row[1] is None or row[2] is None:
                    return False
            return True
    return False


cdef bint _fe_labelled(list layers):
    """An FE layer has a label."""
    for name, _, rows in layers:
        if name == u"FE" and rows:
            return True
    return False


_SOURCES = (u"fulltext", u"exemplar")


cdef int _sentence(tree.xmlNode* node, str document, str relpath, object lexunit, object result,
                   object make_sentence, object make_set) except -1:
    """Read one sentence into ``result`` as ``annotations._read_sentence`` does and return 1, or
    return 0 and change nothing when it has anything unusual (a missing or non-plain ID, no text, a
    set that is malformed or not an annotation set, an ID read before): the Python reader takes it."""
    cdef long long number
    cdef bint ok = True
    cdef tree.xmlNode* child
    cdef tree.xmlNode* text_node
    if not _parse(_get(node, b"ID"), &number):
        return 0
    sent_id = number
    text_node = _text_of(node)
    if text_node is NULL:
        return 0
    text = textOf(text_node)
    if text is None:
        text = u""
    pos_layer = None
    pos = ()
    cdef dict set_ids = result.set_ids
    cdef list sets = []
    cdef set seen = set()
    child = node.children
    while child is not NULL:
        if _is(child, b"annotationSet"):
            layers, has_target, pos_read, pos_tags, error, encoded = _layers_of(child, pos_layer is None, True)
            if pos_read is not None:
                pos_layer, pos = pos_read, pos_tags
            if error is not None:
                return 0
            if has_target:
                if not _labelled_target(layers):
                    return 0
                if lexunit is not None:
                    lu_id, lu_name, frame_id, frame_name = lexunit
                else:
                    lu_name, frame_name = _get(child, b"luName"), _get(child, b"frameName")
                    lu_id = _plain_int_attr(child, b"luID", &ok)
                    frame_id = _plain_int_attr(child, b"frameID", &ok)
                id_attr = _get(child, b"ID")
                if not ok or not lu_name or not frame_name or not _parse(id_attr, &number):
                    return 0
                set_id = number
                if set_id in set_ids or set_id in seen:
                    return 0
                seen.add(set_id)
                status = _get(child, b"status")
                sets.append((set_id, u"" if status is None else status, lu_id, lu_name, frame_id, frame_name,
                             layers, encoded, id_attr))
            elif (_get(child, b"frameName") is not None or _get(child, b"luName") is not None
                  or _fe_labelled(layers)):
                return 0
        child = child.next
    ids = tuple([_plain_int_attr(node, name, &ok) for name in (b"docID", b"corpID", b"sentNo", b"paragNo", b"aPos")])
    if not ok:
        return 0
    cdef dict texts = result.texts
    first_text = texts.get(sent_id)
    if first_text is not None and first_text != text:
        return 0
    where = f"{relpath} sentence {sent_id}"
    try:
        sentence = make_sentence(sent_id, text, document, *ids, pos_layer, pos)
    except PyfnError as exc:
        result.problems.append(Problem(u"malformed_sentence", f"{relpath} sentence {_get(node, b'ID')}", str(exc)))
        return 1
    texts.setdefault(sent_id, text)
    result.sentences += 1
    source = _SOURCES[lexunit is not None]
    found = result.sets
    sentence_json = _sentence_json(sent_id, text, document, ids, pos_layer, pos) if sets else None
    for set_id, status, lu_id, lu_name, frame_id, frame_name, layers, encoded, id_attr in sets:
        set_ids[set_id] = sent_id
        line = (None if encoded is None or sentence_json is None else
                _set_line(set_id, source, status, lu_id, lu_name, frame_id, frame_name, encoded, sentence_json))
        try:
            found.append(make_set(sentence, set_id, status, lu_id, lu_name, frame_id, frame_name, layers, source,
                                  line))
        except PyfnError as exc:
            aset_where = f"{where} annotationSet {id_attr}"
            result.problems.append(Problem(u"malformed_annotation_set", aset_where, str(exc)))
    return 1


def read_sentences(_Element root not None, str document, str relpath, lexunit, result, make_sentence, make_set,
                   fallback):
    """Read every FrameNet ``<sentence>`` under ``root`` (a whole parsed file) into ``result``, in
    document order, as :func:`pyfn.framenet.annotations.read_file` does; ``fallback(element)`` reads
    a sentence this reader leaves to Python. False, with nothing read, when a sentence lies inside
    another (the streamed reader's order and releases then matter: it reads the file) or its
    ``<text>`` begins with an element or an instruction (:func:`_text_led_by_node`)."""
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node = top.children
    cdef tree.xmlNode** found = NULL
    cdef tree.xmlNode** grown
    cdef Py_ssize_t count = 0, size = 0, i
    try:
        while node is not NULL:
            if _is(node, b"sentence"):
                if _holds_sentence(node) or _text_led_by_node(node):
                    return False
                if count == size:
                    size = 2 * size + 64
                    grown = <tree.xmlNode**>realloc(found, size * sizeof(tree.xmlNode*))
                    if grown is NULL:
                        raise MemoryError()
                    found = grown
                found[count] = node
                count += 1
                node = _next_in(node, top, False)
            else:
                node = _next_in(node, top, True)
        for i in range(count):
            if not _sentence(found[i], document, relpath, lexunit, result, make_sentence, make_set):
                fallback(elementFactory(root._doc, found[i]))
    finally:
        free(found)
    return True


# --- a kept set's record row (pyfn.splits.parsed's annotation_set) ------------------------------

cdef struct _Spans:
    long long* data  # start, end, start, end, ...
    Py_ssize_t used  # spans
    Py_ssize_t size


cdef _Spans _TARGETS
cdef _Spans _FES
cdef _Buffer _SPAN_TEXT  # the target spans as text (not _JSON: set_record runs while the reader is on a set)


cdef int _push(_Spans* spans, long long start, long long end) except -1:
    cdef Py_ssize_t size
    cdef long long* grown
    if spans.used == spans.size:
        size = 2 * spans.size + 16
        grown = <long long*>realloc(spans.data, 2 * size * sizeof(long long))
        if grown is NULL:
            raise MemoryError()
        spans.data = grown
        spans.size = size
    spans.data[2 * spans.used] = start
    spans.data[2 * spans.used + 1] = end
    spans.used += 1
    return 0


cdef int _by_span(const void* a, const void* b) noexcept nogil:
    """``(start, end)`` order, as Python sorts the tuples."""
    cdef const long long* x = <const long long*>a
    cdef const long long* y = <const long long*>b
    if x[0] != y[0]:
        return -1 if x[0] < y[0] else 1
    if x[1] != y[1]:
        return -1 if x[1] < y[1] else 1
    return 0


cdef enum:
    _ABSENT, _NUMBER, _ODD


cdef int _offset_of(object value, long long* out) except -1:
    """``_NUMBER`` with the value in ``out``, ``_ABSENT`` for None, ``_ODD`` for anything else (not an
    int, or beyond a ``long long``)."""
    cdef int overflow = 0
    if value is None:
        return _ABSENT
    if type(value) is not int:
        return _ODD
    out[0] = PyLong_AsLongLongAndOverflow(value, &overflow)
    return _ODD if overflow else _NUMBER


cdef bint _repeats(list ranks, list names) except -1:
    """Two overt FE labels share ``(rank, name)`` (``filters._disc_fes``)."""
    cdef Py_ssize_t n = len(ranks), i, j
    if n > 64:  # hostile input: hashed, as the filter does
        return len(set(zip(ranks, names))) < n
    for i in range(1, n):
        for j in range(i):
            if ranks[i] == ranks[j] and names[i] == names[j]:
                return True
    return False


def sentence_hash(str text not None):
    """:func:`pyfn.splits.hashing.sentence_hash` in C: ``text`` lower-cased, with every whitespace
    character (where ``str.split`` splits) removed."""
    cdef str lower = text.lower()
    cdef Py_ssize_t n = len(lower), i, kept = 0
    cdef Py_UCS4 ch
    cdef Py_UCS4* out = <Py_UCS4*>malloc((n if n else 1) * sizeof(Py_UCS4))
    if out is NULL:
        raise MemoryError()
    try:
        for i in range(n):
            ch = PyUnicode_READ_CHAR(lower, i)
            if not Py_UNICODE_ISSPACE(ch):
                out[kept] = ch
                kept += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, kept)
    finally:
        free(out)


cdef class SentenceRows:
    """:func:`pyfn.splits.parsed.parse_file`'s ``make_sentence`` in C (:func:`pyfn.splits.parsed.sentence_rows`
    in Python): ``(id, text, text without trailing whitespace in UTF-8, its sentence hash, [None, the
    other fields])``, the stripped text and the hash made once per distinct text of a file."""

    cdef dict _texts

    def __cinit__(self):
        self._texts = {}

    def __call__(self, sent_id, str text, *fields):
        cdef tuple known = self._texts.get(text)
        if known is None:
            known = (text.rstrip().encode(), sentence_hash(text))
            self._texts[text] = known
        return (sent_id, text, known[0], known[1], [None, fields])


def set_record(tuple sent, set_id, lu_id, str lu_name, frame_id, str frame_name, list layers, bytes line,
               tuple bits):
    """:func:`pyfn.splits.parsed.parse_file`'s row of a set whose JSON ``line`` the reader wrote: the
    reason it is invalid, or its ids, filter mask (``bits``: the bits of the filters ``overlap_fes``,
    ``disc_fes``, ``disc_targets``, ``no_fes`` and ``non_breaking_spaces``), sentence fields, order key,
    dedup hash, names and line. None, for the Python code, when an offset is not an int of a ``long long``."""
    cdef str text = sent[1]
    cdef Py_ssize_t size = len(text), i
    cdef long long start = 0, end = 0
    cdef int a, b
    cdef bint is_target, is_fe
    cdef list ranks = [], names = []
    cdef long mask = 0
    _TARGETS.used = 0
    _FES.used = 0
    for layer in layers:
        name = (<tuple?>layer)[0]
        is_target = name == u"Target"
        is_fe = name == u"FE"
        if not (is_target or is_fe or name == u"PT" or name == u"GF"):
            continue
        for row in <list?>(<tuple>layer)[2]:
            a = _offset_of((<tuple?>row)[1], &start)
            b = _offset_of((<tuple>row)[2], &end)
            if a == _ODD or b == _ODD:
                return None
            if a == _ABSENT and b == _ABSENT:
                continue
            if a == _ABSENT or b == _ABSENT:
                return (set_id, sent[0], u"invalid:unpaired_offset")
            if start < 0 or end < 0 or start >= size or end >= size:
                return (set_id, sent[0], u"invalid:offset_past_end")
            if start > end:
                return (set_id, sent[0], u"invalid:start_after_end")
            if Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(text, start)) or Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(text, end)):
                return (set_id, sent[0], u"invalid:whitespace_boundary")
            if is_target:
                _push(&_TARGETS, start, end)
            elif is_fe:
                _push(&_FES, start, end)
                ranks.append((<tuple>layer)[1])
                names.append((<tuple>row)[0])
    qsort(_TARGETS.data, _TARGETS.used, 2 * sizeof(long long), _by_span)
    qsort(_FES.data, _FES.used, 2 * sizeof(long long), _by_span)
    for i in range(1, _FES.used):  # a span starts at or before the end of the one before it
        if _FES.data[2 * i] <= _FES.data[2 * i - 1]:
            mask |= <long>bits[0]
            break
    if _repeats(ranks, names):
        mask |= <long>bits[1]
    for i in range(1, _TARGETS.used):  # more than one character between two spans
        if _TARGETS.data[2 * i] - _TARGETS.data[2 * i - 1] - 1 > 1:
            mask |= <long>bits[2]
            break
    if _FES.used == 0:
        mask |= <long>bits[3]
    if PyUnicode_FindChar(text, 0xA0, 0, size, 1) >= 0:
        mask |= <long>bits[4]
    _SPAN_TEXT.used = 0
    for i in range(_TARGETS.used):
        if i:
            _put(&_SPAN_TEXT, b"#")
        _put_int(&_SPAN_TEXT, _TARGETS.data[2 * i])
        _put(&_SPAN_TEXT, b"#")
        _put_int(&_SPAN_TEXT, _TARGETS.data[2 * i + 1])
    cdef str spans = _SPAN_TEXT.data[:_SPAN_TEXT.used].decode("ascii") if _SPAN_TEXT.used else u""
    cdef str sent_hash = sent[3]
    lu_name, frame_name = intern(lu_name), intern(frame_name)
    return (set_id, sent[0], frame_id, lu_id, mask, sent[2], sent_hash, f"{spans}#{lu_name}#{frame_name}",
            f"{sent_hash}\t{spans}\t{lu_name}\t{frame_name}", lu_name, frame_name, line)
