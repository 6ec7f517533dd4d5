# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled twins of the token formats' per-set work: one set's Open-SESAME BIOS blocks
(:func:`bios_set`, twin of :func:`pyfn.formats.bios._blocks`' loop body) and one set's SEMAFOR line
(:func:`semafor_line`, twin of :func:`pyfn.formats.semafor.frame_line`). Each returns what the
Python code makes, with its losses as counts, or None for a set with anything the Python code would
refuse or that this code does not handle (a value of another type than the model declares, a span
on no token, a name a format cannot hold): the Python code then writes that set, or makes its
error. Tokens are :func:`pyfn.model.tokens`' (index, text, start, end), in order."""

from cpython.long cimport PyLong_AsLong, PyLong_CheckExact
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.ref cimport PyObject
from libc.stdlib cimport free, malloc

cdef extern from *:
    const char* PYFN_SOURCE_SHA256  # defined by setup.py: the sha256 of this file as compiled

SOURCE_SHA256 = PYFN_SOURCE_SHA256.decode("ascii")
"""The sha256 of the source this module was compiled from (checked by :mod:`pyfn.framenet.compiled`)."""

cdef str _EMPTY = "_"
cdef str _OUTSIDE = "O"
cdef dict _BIOS_NAMES = {}  # names checked once: True when a BIOS field can hold them
cdef dict _SEMAFOR_NAMES = {}  # the same for a SEMAFOR field
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


cdef inline long _tok_field(tuple toks, Py_ssize_t i, Py_ssize_t field):
    return PyLong_AsLong(<object>PyTuple_GET_ITEM(<object>PyTuple_GET_ITEM(toks, i), field))


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


cdef bint _span(tuple toks, long start, long end, Py_ssize_t* first, Py_ssize_t* last, bint* exact):
    """:func:`pyfn.formats.base.token_span`: False when the span covers no token."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(toks), lo = 0, hi = n, mid, after, before
    while lo < hi:  # the first token ending at or after ``start``
        mid = (lo + hi) // 2
        if _tok_field(toks, mid, 3) < start:
            lo = mid + 1
        else:
            hi = mid
    after = lo
    lo, hi = 0, n
    while lo < hi:  # one past the last token starting at or before ``end``
        mid = (lo + hi) // 2
        if end < _tok_field(toks, mid, 2):
            hi = mid
        else:
            lo = mid + 1
    before = lo
    if after == n or before == 0:
        return False
    first[0] = _tok_field(toks, after, 0)
    last[0] = _tok_field(toks, before - 1, 0)
    if first[0] > last[0] or first[0] < 0 or last[0] >= n:
        return False
    exact[0] = _tok_field(toks, first[0], 2) == start and _tok_field(toks, last[0], 3) == end
    return True


cdef bint _is_overt(object label):
    return label.start is not None and label.end is not None


cdef str _block(tuple toks, list tags, list fes, dict ends, str on_target, str off_target, char* target):
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(toks)
    cdef list pieces = []
    for i in range(n):
        tok = <object>PyTuple_GET_ITEM(toks, i)
        pieces += (_number(_tok_field(toks, i, 0) + 1), "\t", <object>PyTuple_GET_ITEM(tok, 1),
                   on_target if target[i] else off_target, tags[i], ends[fes[i]])
    return "".join(pieces)


def bios_set(aset, tuple toks, long number, bint eval_split, bint train, bint s_tags, bint all_ranks,
             int columns, dict lemmas, dict core_types):
    """One set's BIOS work, as :func:`pyfn.formats.bios._blocks` does it: ``(block, semeval block,
    drop reason, partial-token target labels, partial-token FE labels)`` or None (the Python code
    decides). ``block`` is None when the set is dropped (``reason``: a reason of
    :meth:`pyfn.formats.bios._Inventory.drop_reason` or ``overlapping_fes``); the semeval block is
    made for ``eval_split``. ``lemmas`` is None without frames; ``core_types`` maps a frame to its
    FEs' coreTypes."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(toks), i, first, last
    cdef long start, end, partial_target = 0, partial_fe = 0
    cdef bint exact, covered = False
    cdef char* target
    frame = aset.frame_name
    lu = aset.lu_name
    if not (_bios_field(frame) and _bios_field(lu)) or "." not in <str>lu:
        return None
    layers = aset.layers
    if type(layers) is not tuple:
        return None
    target = <char*>malloc(n if n > 0 else 1)
    if target == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            target[i] = 0
        labels = []
        for layer in <tuple>layers:
            name = layer.name
            if name == "Target":
                for label in layer.labels:
                    if not _is_overt(label):
                        continue
                    if not _offsets(label, &start, &end) or not _span(toks, start, end, &first, &last, &exact):
                        return None
                    for i in range(first, last + 1):
                        target[i] = 1
                    covered = True
                    partial_target += not exact
            elif name == "FE":
                rank = layer.rank
                if not PyLong_CheckExact(rank):
                    return None
                for label in layer.labels:
                    if _is_overt(label) and (all_ranks or rank == 1):
                        labels.append(label)
        if not covered:
            return None
        middle = f"\t_\t_\t_\t_\t{number}\t_\t_\t_\t_\t_\t"
        off_target = middle + "_\t_\t"
        on_target = f"{middle}{lu}\t{frame}\t"
        outside_end = "\n" if columns == 15 else "\t_\n"
        semeval = None
        if eval_split:
            semeval = _block(toks, [_OUTSIDE] * n, [None] * n, {None: outside_end}, on_target, off_target, target)
        reason = None
        if lemmas is not None:
            frame_lemmas = lemmas.get(frame)
            if frame_lemmas is None:
                reason = "frame_not_in_frames"
            elif (<str>lu).rsplit(".", 1)[0] not in frame_lemmas:
                reason = "lu_not_in_frame"
            elif train:
                frame_types = core_types[frame]
                for label in labels:
                    if label.name not in frame_types:
                        reason = "fe_not_in_frame"
                        break
        if reason is not None:
            return None, semeval, reason, partial_target, 0
        tags = [_OUTSIDE] * n
        fes = [None] * n
        for label in labels:
            name = label.name
            if not _bios_field(name) or not _offsets(label, &start, &end) or not _span(
                    toks, start, end, &first, &last, &exact):
                return None
            partial_fe += not exact
            for i in range(first, last + 1):
                if fes[i] is not None:
                    return None, semeval, "overlapping_fes", partial_target, 0
            if first == last:
                tags[first] = ("S-" if s_tags else "B-") + name
            else:
                tags[first] = "B-" + name
                for i in range(first + 1, last + 1):
                    tags[i] = "I-" + name
            for i in range(first, last + 1):
                fes[i] = name
        ends = {None: outside_end}
        frame_types = core_types.get(frame, {})
        for fe in fes:
            if fe not in ends:
                if columns == 15:
                    ends[fe] = "\n"
                else:
                    value = frame_types.get(fe, "")
                    if value and not _bios_field(value):
                        return None
                    ends[fe] = f"\t{value or _EMPTY}\n"
        return (_block(toks, tags, fes, ends, on_target, off_target, target), semeval, None, partial_target,
                partial_fe)
    finally:
        free(target)


def semafor_line(aset, tuple toks, long number, bint with_fes):
    """One set's SEMAFOR line as :func:`pyfn.formats.semafor.frame_line` writes it, with its counts of
    partial-token target and FE labels: ``(line, partial target, partial FE)``; or None (the Python
    code decides)."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(toks), i, first, last
    cdef long start, end, partial_target = 0, partial_fe = 0
    cdef bint exact, covered = False
    cdef char* target
    frame = aset.frame_name
    lu = aset.lu_name
    if not (_semafor_field(frame) and _semafor_field(lu)):
        return None
    layers = aset.layers
    if type(layers) is not tuple:
        return None
    target = <char*>malloc(n if n > 0 else 1)
    if target == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            target[i] = 0
        pairs = []
        for layer in <tuple>layers:
            name = layer.name
            if name == "Target":
                for label in layer.labels:
                    if not _is_overt(label):
                        continue
                    if not _offsets(label, &start, &end) or not _span(toks, start, end, &first, &last, &exact):
                        return None
                    for i in range(first, last + 1):
                        target[i] = 1
                    covered = True
                    partial_target += not exact
            elif name == "FE" and with_fes:
                for label in layer.labels:
                    if not _is_overt(label):
                        continue
                    if not _offsets(label, &start, &end) or not _span(toks, start, end, &first, &last, &exact):
                        return None
                    if not _semafor_field(label.name):
                        return None
                    partial_fe += not exact
                    pairs += (label.name, _number(first) if first == last else f"{first}:{last}")
        if not covered:
            return None
        indices = []
        words = []
        for i in range(n):
            if target[i]:
                indices.append(_number(i))
                words.append(<object>PyTuple_GET_ITEM(<object>PyTuple_GET_ITEM(toks, i), 1))
        line = "\t".join(["1", "0.0", _number(1 + len(pairs) // 2), frame, lu, "_".join(indices), " ".join(words),
                          _number(number), *pairs])
        return line, partial_target, partial_fe
    finally:
        free(target)
