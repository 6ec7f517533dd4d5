# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled decoder of the JSON lines pyfn writes: :func:`decode` reads a line laid out exactly as
:func:`pyfn.formats.jsonl.encode_set` writes it (its keys in its order, no whitespace, integers of at
most 18 digits, strings without ``\\u`` escapes) straight into the model's objects, without the dicts and
lists of ``json.loads``. Any other line, valid or not, gives None: :func:`pyfn.formats.jsonl.loads`
then reads it with ``json`` as before, and so makes its errors. A line :func:`decode` accepts gives
the objects ``json.loads`` and :func:`pyfn.formats.jsonl.set_from_dict` make of it."""

from dataclasses import fields

from cpython.long cimport PyLong_FromLongLong
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, strlen

from pyfn.model import AnnotationSet, Label, Layer, Sentence

cdef extern from *:
    const char* PYFN_SOURCE_SHA256  # defined by setup.py: the sha256 of this file as compiled

cdef extern from *:
    """
    static PyObject* pyfn_interned(const char* s, Py_ssize_t n) {
        PyObject* u = PyUnicode_DecodeUTF8(s, n, "surrogatepass");
        if (u != NULL) PyUnicode_InternInPlace(&u);
        return u;
    }
    static PyObject* pyfn_alloc(PyObject* t) {
        return ((PyTypeObject*)t)->tp_alloc((PyTypeObject*)t, 0);
    }
    static int pyfn_set(PyObject* descr, PyObject* obj, PyObject* value) {
        return Py_TYPE(descr)->tp_descr_set(descr, obj, value);
    }
    """
    object pyfn_interned(const char* s, Py_ssize_t n)
    object pyfn_alloc(object cls)
    int pyfn_set(object descr, object obj, object value) except -1

SOURCE_SHA256 = PYFN_SOURCE_SHA256.decode("ascii")
"""The sha256 of the source this module was compiled from (checked by :mod:`pyfn.framenet.compiled`)."""


def _slots(cls: type, names: tuple) -> tuple:
    """The slot descriptors of a frozen dataclass's fields, in ``names`` order: the objects are made
    by setting them, as its ``__init__`` does (it does nothing else: no ``__post_init__``)."""
    if tuple(f.name for f in fields(cls)) != names or hasattr(cls, "__post_init__"):
        raise ImportError(f"pyfn.model.{cls.__name__} is not the class this decoder was written for")
    return tuple(cls.__dict__[name] for name in names)


cdef tuple _LABEL = _slots(Label, ("name", "start", "end", "itype", "fe_id"))
cdef tuple _LAYER = _slots(Layer, ("name", "rank", "labels"))
cdef tuple _SENTENCE = _slots(Sentence, ("id", "text", "document", "doc_id", "corpus_id", "sent_no",
                                         "parag_no", "apos", "pos_layer", "pos"))
cdef tuple _SET = _slots(AnnotationSet, ("id", "sentence", "status", "lu_id", "lu_name", "frame_id",
                                         "frame_name", "layers", "source"))


cdef object _make(object cls, tuple slots, tuple values):
    cdef object obj = pyfn_alloc(cls)
    cdef Py_ssize_t i
    for i in range(len(slots)):
        pyfn_set(slots[i], obj, values[i])
    return obj


cdef struct _Cursor:
    const char* p
    const char* end
    bint ok


cdef bint _lit(_Cursor* c, const char* text) noexcept:
    """Step over ``text`` (ok stays True only when it is there)."""
    cdef Py_ssize_t n = strlen(text)
    if c.ok and c.end - c.p >= n and memcmp(c.p, text, n) == 0:
        c.p += n
        return True
    c.ok = False
    return False


cdef inline bint _null(_Cursor* c) noexcept:
    if c.end - c.p >= 4 and memcmp(c.p, b"null", 4) == 0:
        c.p += 4
        return True
    return False


cdef int _scan_int(_Cursor* c, bint nullable, long long* out) noexcept:
    """Step over ``-?(0|[1-9][0-9]*)`` of at most 18 digits: 1, its value in ``out``; ``null`` (when
    ``nullable``): 0; anything else: -1, ``c.ok`` False."""
    cdef const char* p = c.p
    cdef const char* first
    cdef long long value = 0
    cdef bint negative
    if not c.ok:
        return -1
    if nullable and _null(c):
        return 0
    negative = p < c.end and p[0] == b"-"
    if negative:
        p += 1
    first = p
    while p < c.end and b"0" <= p[0] <= b"9" and p - first < 19:
        value = value * 10 + (p[0] - 48)
        p += 1
    if p == first or p - first > 18 or (p - first > 1 and first[0] == b"0"):
        c.ok = False
        return -1
    c.p = p
    out[0] = -value if negative else value
    return 1


cdef object _int(_Cursor* c, bint nullable):
    """:func:`_scan_int`'s integer, what ``json`` reads as that int (None for ``null``)."""
    cdef long long value
    return PyLong_FromLongLong(value) if _scan_int(c, nullable, &value) == 1 else None


cdef inline char _unescaped(char ch) noexcept:
    """The character of the escape ``\\ch`` (``json``'s short escapes), 0 for any other."""
    if ch == b'"' or ch == b"\\" or ch == b"/":
        return ch
    if ch == b"n":
        return b"\n"
    if ch == b"t":
        return b"\t"
    if ch == b"r":
        return b"\r"
    if ch == b"b":
        return b"\b"
    if ch == b"f":
        return b"\f"
    return 0


cdef object _decoded(const char* start, Py_ssize_t n, bint interned, bint escaped):
    """The text of a string's bytes (``n`` of them from ``start``, escapes undone when ``escaped``)."""
    cdef char* buffer
    cdef Py_ssize_t i = 0, k = 0
    if not escaped:
        if interned:
            return pyfn_interned(start, n)
        return PyUnicode_DecodeUTF8(start, n, "surrogatepass")
    buffer = <char*>malloc(n if n > 0 else 1)
    if buffer == NULL:
        raise MemoryError()
    try:
        while i < n:
            if start[i] == b"\\":
                i += 1
                buffer[k] = _unescaped(start[i])
            else:
                buffer[k] = start[i]
            i += 1
            k += 1
        if interned:
            return pyfn_interned(buffer, k)
        return PyUnicode_DecodeUTF8(buffer, k, "surrogatepass")
    finally:
        free(buffer)


cdef int _scan_str(_Cursor* c, bint nullable, const char** start, Py_ssize_t* n, bint* escaped) noexcept:
    """Step over a string without ``\\u`` escapes or control characters: 1, its bytes between the
    quotes in ``start`` and ``n``, ``escaped`` set when it holds a short escape; ``null`` (when
    ``nullable``): 0; anything else: -1, ``c.ok`` False (its UTF-8 is not checked here)."""
    cdef const char* p
    cdef unsigned char ch
    if not c.ok:
        return -1
    if nullable and _null(c):
        return 0
    if c.p >= c.end or c.p[0] != b'"':
        c.ok = False
        return -1
    escaped[0] = False
    start[0] = p = c.p + 1
    while p < c.end:
        ch = <unsigned char>p[0]
        if ch == 34:  # the closing quote
            c.p = p + 1
            n[0] = p - start[0]
            return 1
        if ch == 92:  # a short escape (two bytes); \\u and anything else are left to json
            if p + 1 >= c.end or _unescaped(p[1]) == 0:
                break
            escaped[0] = True
            p += 1
        elif ch < 32:  # what json refuses in a string
            break
        p += 1
    c.ok = False
    return -1


cdef object _str(_Cursor* c, bint interned, bint nullable):
    """A string without ``\\u`` escapes or control characters (or ``null``), decoded as ``json`` does."""
    cdef const char* start
    cdef Py_ssize_t n
    cdef bint escaped
    if _scan_str(c, nullable, &start, &n, &escaped) != 1:
        return None
    try:
        return _decoded(start, n, interned, escaped)
    except UnicodeDecodeError:
        c.ok = False
        return None


cdef int _skip_str(_Cursor* c, bint nullable) except -1:
    """Step over what :func:`_str` reads, making no string (one with a byte past ASCII is decoded and
    dropped: its UTF-8 is checked as :func:`_str` checks it)."""
    cdef const char* start
    cdef Py_ssize_t n, i
    cdef bint escaped
    if _scan_str(c, nullable, &start, &n, &escaped) != 1:
        return 0
    for i in range(n):
        if <unsigned char>start[i] >= 128:
            try:
                _decoded(start, n, False, escaped)
            except UnicodeDecodeError:
                c.ok = False
            break
    return 0


ctypedef object (*_Reader)(_Cursor*)


cdef tuple _array(_Cursor* c, _Reader item):
    """``[item,item,...]`` or ``[]`` as a tuple of what ``item`` reads; None (``c.ok`` False) when the
    array is not in the layout."""
    cdef list out = []
    if not _lit(c, b"["):
        return None
    if c.p < c.end and c.p[0] == b"]":
        c.p += 1
        return ()
    while True:
        value = item(c)
        if not c.ok:
            return None
        out.append(value)
        if c.p < c.end and c.p[0] == b",":
            c.p += 1
        elif _lit(c, b"]"):
            return tuple(out)
        else:
            return None


ctypedef int (*_Skipper)(_Cursor*) except -1


cdef int _skip_array(_Cursor* c, _Skipper item) except -1:
    """Step over what :func:`_array` reads, making nothing (``c.ok`` False where it would give None)."""
    if not _lit(c, b"["):
        return 0
    if c.p < c.end and c.p[0] == b"]":
        c.p += 1
        return 0
    while True:
        item(c)
        if not c.ok:
            return 0
        if c.p < c.end and c.p[0] == b",":
            c.p += 1
        else:
            _lit(c, b"]")
            return 0


cdef tuple _row(_Cursor* c, bint label):
    """``[name,start,end,itype,feID]`` (``label``) or ``[tag,start,end]`` (a POS tag) as a tuple; None
    when it is not in the layout."""
    _lit(c, b"[")
    name = _str(c, True, False)
    _lit(c, b",")
    start = _int(c, True)
    _lit(c, b",")
    end = _int(c, True)
    if not label:
        _lit(c, b"]")
        return (name, start, end) if c.ok else None
    _lit(c, b",")
    itype = _str(c, True, True)
    _lit(c, b",")
    fe_id = _int(c, True)
    _lit(c, b"]")
    return (name, start, end, itype, fe_id) if c.ok else None


cdef object _label(_Cursor* c):
    """A :class:`~pyfn.model.Label`."""
    row = _row(c, True)
    return _make(Label, _LABEL, row) if row is not None else None


cdef int _skip_row(_Cursor* c, bint label) except -1:
    """Step over what :func:`_label` (``label``) or :func:`_pos_tag` reads, making nothing."""
    cdef long long value
    _lit(c, b"[")
    _skip_str(c, False)
    _lit(c, b",")
    _scan_int(c, True, &value)
    _lit(c, b",")
    _scan_int(c, True, &value)
    if label:
        _lit(c, b",")
        _skip_str(c, True)
        _lit(c, b",")
        _scan_int(c, True, &value)
    _lit(c, b"]")
    return 0


cdef int _skip_label(_Cursor* c) except -1:
    return _skip_row(c, True)


cdef object _SKIPPED = object()
"""What :func:`_frame_layer` gives for a layer it steps over."""


cdef object _layer_of(_Cursor* c, bint frame_layers_only):
    """``{"name":...,"rank":...,"labels":[...]}``: a :class:`~pyfn.model.Layer`; with
    ``frame_layers_only``, a layer other than Target and FE is stepped over (:data:`_SKIPPED`)."""
    _lit(c, b'{"name":')
    name = _str(c, True, False)
    _lit(c, b',"rank":')
    rank = _int(c, False)
    _lit(c, b',"labels":')
    if frame_layers_only and c.ok and name != u"Target" and name != u"FE":
        _skip_array(c, _skip_label)
        labels = _SKIPPED
    else:
        labels = _array(c, _label) if c.ok else None
    _lit(c, b"}")
    if not c.ok:
        return None
    return _SKIPPED if labels is _SKIPPED else _make(Layer, _LAYER, (name, rank, labels))


cdef object _layer(_Cursor* c):
    return _layer_of(c, False)


cdef object _frame_layer(_Cursor* c):
    return _layer_of(c, True)


cdef object _pos_tag(_Cursor* c):
    """A POS tag tuple."""
    return _row(c, False)


cdef int _skip_pos_tag(_Cursor* c) except -1:
    return _skip_row(c, False)


cdef object _sentence(_Cursor* c, bint frame_layers_only):
    """The sentence's object; with ``frame_layers_only``, its POS layer and tags stepped over (None, ())."""
    _lit(c, b'{"id":')
    sent_id = _int(c, False)
    _lit(c, b',"text":')
    text = _str(c, False, False)
    _lit(c, b',"document":')
    document = _str(c, False, False)
    _lit(c, b',"doc_id":')
    doc_id = _int(c, True)
    _lit(c, b',"corpus_id":')
    corpus_id = _int(c, True)
    _lit(c, b',"sent_no":')
    sent_no = _int(c, True)
    _lit(c, b',"parag_no":')
    parag_no = _int(c, True)
    _lit(c, b',"apos":')
    apos = _int(c, True)
    _lit(c, b',"pos_layer":')
    if frame_layers_only:
        _skip_str(c, True)
        _lit(c, b',"pos":')
        if c.ok:
            _skip_array(c, _skip_pos_tag)
        pos_layer, pos = None, ()
    else:
        pos_layer = _str(c, False, True)
        _lit(c, b',"pos":')
        pos = _array(c, _pos_tag) if c.ok else None
    _lit(c, b"}")
    if not c.ok:
        return None
    return _make(Sentence, _SENTENCE, (sent_id, text, document, doc_id, corpus_id, sent_no, parag_no, apos,
                                       pos_layer, pos))


# The sentence part of the last line decoded and its Sentence: the sets of a sentence are adjacent
# in pyfn's files, and the same bytes give the same sentence (jsonl's ``_last_sentence`` likewise).
cdef char* _last = NULL
cdef Py_ssize_t _last_size = 0
cdef object _last_sentence = None
cdef bint _last_frame_layers_only = False


def decode(bytes line not None, bint frame_layers_only=False):
    """The :class:`~pyfn.model.AnnotationSet` of one JSON line (no line end) in
    :func:`~pyfn.formats.jsonl.encode_set`'s layout; None for any other line. With
    ``frame_layers_only``, the set keeps its Target and FE layers only and its sentence no POS tags
    (``pos_layer`` None, ``pos`` ()): the other parts are read as closely, and make no object."""
    global _last, _last_size, _last_sentence, _last_frame_layers_only
    cdef _Cursor cur
    cdef _Cursor* c = &cur
    cdef const char* part
    cdef Py_ssize_t size
    cdef char* copy
    cur.p = line
    cur.end = cur.p + len(line)
    cur.ok = True
    _lit(c, b'{"id":')
    set_id = _int(c, False)
    _lit(c, b',"source":')
    source = _str(c, False, False)
    _lit(c, b',"status":')
    status = _str(c, False, False)
    _lit(c, b',"lu_id":')
    lu_id = _int(c, True)
    _lit(c, b',"lu":')
    lu = _str(c, True, False)
    _lit(c, b',"frame_id":')
    frame_id = _int(c, True)
    _lit(c, b',"frame":')
    frame = _str(c, True, False)
    _lit(c, b',"layers":')
    layers = _array(c, _frame_layer if frame_layers_only else _layer) if cur.ok else None
    _lit(c, b',"sentence":')
    if not cur.ok:
        return None
    if frame_layers_only:
        layers = tuple([layer for layer in layers if layer is not _SKIPPED])
    part = cur.p
    size = cur.end - part
    if (_last_sentence is not None and _last_frame_layers_only == frame_layers_only and size == _last_size
            and memcmp(part, _last, size) == 0):
        return _make(AnnotationSet, _SET, (set_id, _last_sentence, status, lu_id, lu, frame_id, frame, layers,
                                           source))
    sentence = _sentence(c, frame_layers_only)
    _lit(c, b"}")
    if not cur.ok or cur.p != cur.end:
        return None
    copy = <char*>malloc(size if size > 0 else 1)
    if copy == NULL:
        raise MemoryError()
    memcpy(copy, part, size)
    free(_last)
    _last, _last_size, _last_sentence, _last_frame_layers_only = copy, size, sentence, frame_layers_only
    return _make(AnnotationSet, _SET, (set_id, sentence, status, lu_id, lu, frame_id, frame, layers, source))
