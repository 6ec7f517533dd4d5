# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twins of the token formats' per-set work: one set's Open-SESAME BIOS blocks in UTF-8
(:func:`bios_set`, twin of :func:`pyfn.formats.bios._blocks`' loop body) and one set's SEMAFOR line
(:func:`semafor_line`, twin of :func:`pyfn.formats.semafor.frame_line`). Each returns what the
Python code makes, with its losses as counts, or None for a set with anything the Python code would
refuse or that this code does not handle (a value of another type than the model declares, a span
on no token, a name a format cannot hold): the Python code then writes that set, or makes its
error. Both take the sentence string and split it into tokens as :func:`pyfn.model.tokens` does
(maximal runs of characters that are not ``str.isspace``), once for the sets of a sentence.
:func:`conll_block` writes the CoNLL block of a sentence without token annotations, and
:func:`sentence_lines` the ``.sentences`` lines (UTF-8)."""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.long cimport PyLong_AsLong, PyLong_CheckExact
from cpython.unicode cimport Py_UNICODE_ISSPACE, PyUnicode_AsUTF8AndSize
from libc.stdlib cimport realloc
from libc.string cimport memchr, memcmp, memcpy

cdef extern from *:
    const char* PYFN_SOURCE_SHA256  # defined by setup.py: the sha256 of this file as compiled

SOURCE_SHA256 = PYFN_SOURCE_SHA256.decode("ascii")
"""The sha256 of the source this module was compiled from (checked by :mod:`pyfn.framenet.compiled`)."""

cdef str _EMPTY = "_"
cdef dict _BIOS_NAMES = {}  # names checked once: True when a BIOS field can hold them
cdef dict _SEMAFOR_NAMES = {}  # the same for a SEMAFOR field
cdef dict _LEMMAS = {}  # LU name -> its lemma (the name before its last '.')
cdef list _NUMBERS = [str(i) for i in range(4097)]


cdef bint _bios_field(object value):
    """``value`` can be one BIOS field: a str, not empty nor ``_``, without TAB or a line break
    (:data:`pyfn.formats.bios.FORBIDDEN`)."""
    cdef Py_UCS4 ch
    if type(value) is not str:
        return False
    known = _BIOS_NAMES.get(value)
    if known is not None:
        return known is True
    ok = value != "" and value != _EMPTY
    for ch in <str>value:
        if (ch == 9 or ch == 10 or ch == 11 or ch == 12 or ch == 13 or ch == 0x1c or ch == 0x1d or ch == 0x1e
                or ch == 0x85 or ch == 0x2028 or ch == 0x2029):
            ok = False
    if len(_BIOS_NAMES) < 100000:
        _BIOS_NAMES[value] = ok
    return ok


cdef bint _semafor_field(object value):
    """``value`` can be one SEMAFOR field: a str without TAB, CR or LF."""
    cdef Py_UCS4 ch
    if type(value) is not str:
        return False
    known = _SEMAFOR_NAMES.get(value)
    if known is not None:
        return known is True
    ok = True
    for ch in <str>value:
        if ch == 9 or ch == 10 or ch == 13:
            ok = False
    if len(_SEMAFOR_NAMES) < 100000:
        _SEMAFOR_NAMES[value] = ok
    return ok


cdef str _number(long n):
    return <str>_NUMBERS[n] if 0 <= n < 4097 else str(n)


cdef struct _Tokens:
    Py_ssize_t n  # tokens
    Py_ssize_t room  # of each array
    Py_ssize_t* starts  # code point offsets, end inclusive
    Py_ssize_t* ends
    Py_ssize_t* byte_starts  # offsets in the text's UTF-8, end exclusive
    Py_ssize_t* byte_ends
    char* target  # 1 for a token of the set's target (:func:`_mark_target`)
    Py_ssize_t* span  # the index in _SPANS of the FE span tagging the token, -1: none (:func:`bios_set`)
    const char* utf8  # the text's UTF-8 (NULL: it has none, a lone surrogate)

cdef _Tokens _TOKS
cdef object _toks_text = None  # the sentence string _TOKS is of (its UTF-8 lives as long as it)


cdef int _tokenize(str text) except -1:
    """Split ``text`` into ``_TOKS`` (kept while the sets are of the same string)."""
    global _toks_text
    cdef Py_ssize_t i, n = len(text), start = -1, byte = 0, byte_start = 0, size, width = 0
    cdef Py_UCS4 ch
    if text is _toks_text:
        return 0
    _toks_text = None
    _TOKS.n = 0
    try:
        _TOKS.utf8 = PyUnicode_AsUTF8AndSize(text, &size)
    except UnicodeEncodeError:
        _TOKS.utf8 = NULL
    for i in range(n + 1):
        if i < n:
            ch = text[i]
            width = 1 if ch < 0x80 else 2 if ch < 0x800 else 3 if ch < 0x10000 else 4  # its UTF-8 bytes
            if not Py_UNICODE_ISSPACE(ch):
                if start < 0:
                    start, byte_start = i, byte
                byte += width
                continue
        if start >= 0:  # a token ends before character i (whitespace, or the end)
            if _TOKS.n == _TOKS.room:
                _grow()
            _TOKS.starts[_TOKS.n] = start
            _TOKS.ends[_TOKS.n] = i - 1
            _TOKS.byte_starts[_TOKS.n] = byte_start
            _TOKS.byte_ends[_TOKS.n] = byte
            _TOKS.n += 1
            start = -1
        byte += width
    _toks_text = text
    return 0


cdef Py_ssize_t* _grown(Py_ssize_t* array, Py_ssize_t room) except NULL:
    cdef Py_ssize_t* grown = <Py_ssize_t*>realloc(array, room * sizeof(Py_ssize_t))
    if grown == NULL:
        raise MemoryError()
    return grown


cdef int _grow() except -1:
    cdef Py_ssize_t room = _TOKS.room * 2 + 64
    _TOKS.starts = _grown(_TOKS.starts, room)
    _TOKS.ends = _grown(_TOKS.ends, room)
    _TOKS.byte_starts = _grown(_TOKS.byte_starts, room)
    _TOKS.byte_ends = _grown(_TOKS.byte_ends, room)
    _TOKS.span = _grown(_TOKS.span, room)
    cdef char* target = <char*>realloc(_TOKS.target, room)
    if target == NULL:
        raise MemoryError()
    _TOKS.target = target
    _TOKS.room = room
    return 0


cdef inline str _word(Py_ssize_t i):
    """Token ``i`` of ``_toks_text``."""
    return (<str>_toks_text)[_TOKS.starts[i]:_TOKS.ends[i] + 1]


cdef struct _Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t room

cdef _Buffer _OUT  # what a block is written into, reused


cdef int _put(const char* text, Py_ssize_t n) except -1:
    cdef Py_ssize_t room
    cdef char* grown
    if _OUT.size + n > _OUT.room:
        room = (_OUT.size + n) * 2 + 4096
        grown = <char*>realloc(_OUT.data, room)
        if grown == NULL:
            raise MemoryError()
        _OUT.data, _OUT.room = grown, room
    memcpy(_OUT.data + _OUT.size, text, n)
    _OUT.size += n
    return 0


cdef int _put_str(str text) except -1:
    """The UTF-8 of ``text`` (UnicodeEncodeError for a lone surrogate)."""
    cdef Py_ssize_t n
    cdef const char* data = PyUnicode_AsUTF8AndSize(text, &n)
    return _put(data, n)


cdef int _decimal(long n, char* out) noexcept:
    """Write ``n`` >= 0 in decimal at ``out`` (room for 20 digits); how many digits."""
    cdef char digits[24]
    cdef int k = 24
    while True:
        k -= 1
        digits[k] = 48 + n % 10
        n //= 10
        if n == 0:
            break
    memcpy(out, digits + k, 24 - k)
    return 24 - k


cdef int _put_number(long n) except -1:
    """``n`` >= 0 in decimal."""
    cdef char digits[24]
    return _put(digits, _decimal(n, digits))


cdef int _put_word(Py_ssize_t i) except -1:
    """Token ``i``'s UTF-8 (``_TOKS.utf8`` is not NULL)."""
    return _put(_TOKS.utf8 + _TOKS.byte_starts[i], _TOKS.byte_ends[i] - _TOKS.byte_starts[i])


cdef bytes _taken():
    """What was written into ``_OUT`` since it was emptied, as bytes."""
    return PyBytes_FromStringAndSize(_OUT.data, _OUT.size)


cdef bint _span(long start, long end, Py_ssize_t* first, Py_ssize_t* last, bint* exact) noexcept:
    """:func:`pyfn.formats.base.token_span` over ``_TOKS``: False when the span covers no token."""
    cdef Py_ssize_t n = _TOKS.n, lo = 0, hi = n, mid
    while lo < hi:  # the first token ending at or after ``start``
        mid = (lo + hi) // 2
        if _TOKS.ends[mid] < start:
            lo = mid + 1
        else:
            hi = mid
    first[0] = lo
    lo, hi = 0, n
    while lo < hi:  # one past the last token starting at or before ``end``
        mid = (lo + hi) // 2
        if end < _TOKS.starts[mid]:
            hi = mid
        else:
            lo = mid + 1
    last[0] = lo - 1
    if first[0] == n or last[0] < 0 or first[0] > last[0]:
        return False
    exact[0] = _TOKS.starts[first[0]] == start and _TOKS.ends[last[0]] == end
    return True


cdef bint _offsets(object label, long* start, long* end):
    """The label's start and end when both are ints (False: not overt, or not ints)."""
    s = label.start
    e = label.end
    if not (PyLong_CheckExact(s) and PyLong_CheckExact(e)):
        return False
    try:
        start[0] = PyLong_AsLong(s)
        end[0] = PyLong_AsLong(e)
    except OverflowError:  # beyond a C long: the Python code decides
        return False
    return True


cdef bint _is_overt(object label):
    return label.start is not None and label.end is not None


cdef int _mark_target(tuple layers, long* partial) except -2:
    """Mark in ``_TOKS.target`` the tokens of the overt labels of every Target layer of ``layers`` and
    count the partial-token ones in ``partial``: 1 when a token is marked, 0 when none, -1 for a label
    not plain or on no token."""
    cdef long start, end
    cdef Py_ssize_t first, last, i
    cdef bint exact
    cdef int marked = 0
    for i in range(_TOKS.n):
        _TOKS.target[i] = 0
    for layer in layers:
        if layer.name != "Target":
            continue
        for label in layer.labels:
            if not _is_overt(label):
                continue
            if not _offsets(label, &start, &end) or not _span(start, end, &first, &last, &exact):
                return -1
            for i in range(first, last + 1):
                _TOKS.target[i] = 1
            marked = 1
            partial[0] += not exact
    return marked


cdef struct _Span:  # one FE label's tokens, name and what follows its tags
    Py_ssize_t first
    Py_ssize_t last
    const char* name  # UTF-8, owned by the label's str
    Py_ssize_t name_size
    const char* core  # the coreType's UTF-8 (NULL: none known, written ``_``)
    Py_ssize_t core_size

cdef _Span* _SPANS = NULL
cdef Py_ssize_t _SPANS_ROOM = 0


cdef int _spans_room(Py_ssize_t n) except -1:
    global _SPANS, _SPANS_ROOM
    cdef _Span* grown
    if n > _SPANS_ROOM:
        grown = <_Span*>realloc(_SPANS, n * 2 * sizeof(_Span))
        if grown == NULL:
            raise MemoryError()
        _SPANS, _SPANS_ROOM = grown, n * 2
    return 0


cdef bytes _bios_block(const char* middle, Py_ssize_t middle_size, const char* lu, Py_ssize_t lu_size,
                       const char* frame, Py_ssize_t frame_size, bint tagged, bint s_tags, int columns):
    """A BIOS block in UTF-8: per token its ID, FORM, ``middle`` (columns 3-12), LU and frame (``_`` and
    ``_`` off the target), then its tag (from ``_TOKS.span`` when ``tagged``, else ``O``) and, with 16
    columns, the tag's FE's coreType (``_`` outside or unknown)."""
    cdef Py_ssize_t i, k
    cdef _Span* span
    _OUT.size = 0
    for i in range(_TOKS.n):
        _put_number(i + 1)
        _put(b"\t", 1)
        _put_word(i)
        _put(middle, middle_size)
        if _TOKS.target[i]:
            _put(lu, lu_size)
            _put(b"\t", 1)
            _put(frame, frame_size)
            _put(b"\t", 1)
        else:
            _put(b"_\t_\t", 4)
        k = _TOKS.span[i] if tagged else -1
        if k < 0:
            _put(b"O", 1)
            if columns != 15:
                _put(b"\t_", 2)
        else:
            span = &_SPANS[k]
            if span.first == span.last:
                _put(b"S-" if s_tags else b"B-", 2)
            else:
                _put(b"B-" if i == span.first else b"I-", 2)
            _put(span.name, span.name_size)
            if columns != 15:
                _put(b"\t", 1)
                if span.core == NULL:
                    _put(b"_", 1)
                else:
                    _put(span.core, span.core_size)
        _put(b"\n", 1)
    return _taken()


cdef bint _line_break(str text):
    """``text`` holds a character at which ``str.splitlines`` splits."""
    cdef Py_UCS4 ch
    for ch in text:
        if (10 <= ch <= 13) or (0x1c <= ch <= 0x1e) or ch == 0x85 or ch == 0x2028 or ch == 0x2029:
            return True
    return False


def conll_block(str text, long number, object fn_ids, bint conllu, str tail):
    """One sentence's CoNLL block without token annotations in UTF-8, as
    :func:`pyfn.formats.conll._write` writes it (CoNLL-U with its comments; ``fn_ids``, the FrameNet
    sentence IDs, an iterable of ints), each line ending in a newline; None for a text with a line
    break, no token or a lone surrogate (the Python code decides). ``tail`` follows each row's FORM."""
    cdef Py_ssize_t i, tail_size
    cdef const char* tail_data = PyUnicode_AsUTF8AndSize(tail, &tail_size)
    if _line_break(text):
        return None
    _tokenize(text)
    if _TOKS.n == 0 or _TOKS.utf8 == NULL:
        return None
    _OUT.size = 0
    if conllu:
        _put(b"# sent_id = ", 12)
        _put_str(_number(number))
        _put(b"\n# text = ", 10)
        _put_str(text)
        _put(b"\n", 1)
        ids = ",".join([str(i) for i in fn_ids])
        if ids:
            _put(b"# fn_sentence_ids = ", 20)
            _put_str(ids)
            _put(b"\n", 1)
    for i in range(_TOKS.n):
        _put_number(i + 1)
        _put(b"\t", 1)
        _put_word(i)
        _put(tail_data, tail_size)
        _put(b"\n", 1)
    return _taken()


def sentence_lines(list strings, object normalize):
    """The ``.sentences`` lines of ``strings`` in UTF-8, each followed by a newline (those in the set
    ``normalize`` as their tokens joined by single spaces), and how many of those normalizing changed,
    as :func:`pyfn.formats.semafor._sentence_lines` makes them; None for a line that keeps a CR or LF,
    a lone surrogate or a value not a str (the Python code decides)."""
    cdef Py_ssize_t k, start, size, changed = 0
    cdef const char* data
    _OUT.size = 0
    for string in strings:
        if type(string) is not str:
            return None
        try:
            data = PyUnicode_AsUTF8AndSize(string, &size)
        except UnicodeEncodeError:
            return None
        if string in normalize:
            _tokenize(string)
            start = _OUT.size
            for k in range(_TOKS.n):
                if k:
                    _put(b" ", 1)
                _put_word(k)
            changed += _OUT.size - start != size or memcmp(_OUT.data + start, data, size) != 0
        elif memchr(data, 10, size) != NULL or memchr(data, 13, size) != NULL:
            return None
        else:
            _put(data, size)
        _put(b"\n", 1)
    return _taken(), changed


def bios_set(aset, str text, long number, bint eval_split, bint train, bint s_tags, bint all_ranks,
             int columns, dict lemmas, dict core_types):
    """One set's BIOS work, as :func:`pyfn.formats.bios._blocks` does it: ``(block, semeval block,
    drop reason, partial-token target labels, partial-token FE labels)`` or None (the Python code
    decides). ``block`` is None when the set is dropped (``reason``: a reason of
    :meth:`pyfn.formats.bios._Inventory.drop_reason` or ``overlapping_fes``); the semeval block is
    made for ``eval_split``. ``lemmas`` is None without frames; ``core_types`` maps a frame to its
    FEs' coreTypes."""
    cdef Py_ssize_t n, i, k, first, last, lu_size, frame_size, middle_size, name_size, core_size
    cdef long start, end, partial_target = 0, partial_fe = 0
    cdef bint exact
    cdef const char* lu_utf8
    cdef const char* frame_utf8
    cdef const char* name_utf8
    cdef const char* core_utf8
    cdef char middle[64]
    frame = aset.frame_name
    lu = aset.lu_name
    if not (_bios_field(frame) and _bios_field(lu)) or "." not in <str>lu or number < 0:
        return None
    layers = aset.layers
    if type(layers) is not tuple:
        return None
    try:  # a lone surrogate in a name: the Python code decides
        lu_utf8 = PyUnicode_AsUTF8AndSize(lu, &lu_size)
        frame_utf8 = PyUnicode_AsUTF8AndSize(frame, &frame_size)
    except UnicodeEncodeError:
        return None
    _tokenize(text)
    if _TOKS.utf8 == NULL:
        return None
    if _mark_target(layers, &partial_target) <= 0:
        return None
    n = _TOKS.n
    labels = []
    for layer in <tuple>layers:
        if layer.name == "FE":
            rank = layer.rank
            if not PyLong_CheckExact(rank):
                return None
            for label in layer.labels:
                if _is_overt(label) and (all_ranks or rank == 1):
                    labels.append(label)
    # columns 3-12 of every token: ``\t_\t_\t_\t_\t{number}\t_\t_\t_\t_\t_\t``
    memcpy(middle, b"\t_\t_\t_\t_\t", 9)
    middle_size = 9 + _decimal(number, middle + 9)
    memcpy(middle + middle_size, b"\t_\t_\t_\t_\t_\t", 11)
    middle_size += 11
    semeval = _bios_block(middle, middle_size, lu_utf8, lu_size, frame_utf8, frame_size, False, s_tags,
                          columns) if eval_split else None
    reason = None
    if lemmas is not None:
        frame_lemmas = lemmas.get(frame)
        lemma = _LEMMAS.get(lu)
        if lemma is None:
            lemma = (<str>lu).rsplit(".", 1)[0]
            if len(_LEMMAS) < 100000:
                _LEMMAS[lu] = lemma
        if frame_lemmas is None:
            reason = "frame_not_in_frames"
        elif lemma not in frame_lemmas:
            reason = "lu_not_in_frame"
        elif train:
            frame_types = core_types[frame]
            for label in labels:
                if label.name not in frame_types:
                    reason = "fe_not_in_frame"
                    break
    if reason is not None:
        return None, semeval, reason, partial_target, 0
    for i in range(n):
        _TOKS.span[i] = -1
    _spans_room(len(labels))
    frame_types = core_types.get(frame, {})
    k = 0
    for label in labels:
        name = label.name
        if not _bios_field(name) or not _offsets(label, &start, &end) or not _span(start, end, &first, &last, &exact):
            return None
        partial_fe += not exact
        for i in range(first, last + 1):
            if _TOKS.span[i] >= 0:
                return None, semeval, "overlapping_fes", partial_target, 0
            _TOKS.span[i] = k
        core_utf8, core_size = NULL, 0
        if columns != 15:
            value = frame_types.get(name, "")
            if value:
                if not _bios_field(value):
                    return None
                try:
                    core_utf8 = PyUnicode_AsUTF8AndSize(value, &core_size)
                except UnicodeEncodeError:
                    return None
        try:
            name_utf8 = PyUnicode_AsUTF8AndSize(name, &name_size)
        except UnicodeEncodeError:
            return None
        _SPANS[k].first, _SPANS[k].last = first, last
        _SPANS[k].name, _SPANS[k].name_size = name_utf8, name_size
        _SPANS[k].core, _SPANS[k].core_size = core_utf8, core_size
        k += 1
    block = _bios_block(middle, middle_size, lu_utf8, lu_size, frame_utf8, frame_size, True, s_tags, columns)
    return block, semeval, None, partial_target, partial_fe


def semafor_line(aset, str text, long number, bint with_fes):
    """One set's SEMAFOR line as :func:`pyfn.formats.semafor.frame_line` writes it, with its counts of
    partial-token target and FE labels: ``(line, partial target, partial FE)``; or None (the Python
    code decides)."""
    cdef Py_ssize_t i, first, last
    cdef long start, end, partial_target = 0, partial_fe = 0
    cdef bint exact
    frame = aset.frame_name
    lu = aset.lu_name
    if not (_semafor_field(frame) and _semafor_field(lu)):
        return None
    layers = aset.layers
    if type(layers) is not tuple:
        return None
    _tokenize(text)
    if _mark_target(layers, &partial_target) <= 0:
        return None
    pairs = []
    for layer in <tuple>layers:
        if layer.name != "FE" or not with_fes:
            continue
        for label in layer.labels:
            if not _is_overt(label):
                continue
            if not _offsets(label, &start, &end) or not _span(start, end, &first, &last, &exact):
                return None
            if not _semafor_field(label.name):
                return None
            partial_fe += not exact
            pairs += (label.name, _number(first) if first == last else f"{first}:{last}")
    indices = []
    words = []
    for i in range(_TOKS.n):
        if _TOKS.target[i]:
            indices.append(_number(i))
            words.append(_word(i))
    line = "\t".join(["1", "0.0", _number(1 + len(pairs) // 2), frame, lu, "_".join(indices), " ".join(words),
                      _number(number), *pairs])
    return line, partial_target, partial_fe
