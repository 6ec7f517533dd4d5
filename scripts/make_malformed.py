#!/usr/bin/env python3
"""Generate the malformed-input corpus of ``tests/malformed/`` from FrameNet 1.5.

Usage: python scripts/make_malformed.py [--fn15 fndata-1.5.zip] [--out tests/malformed]

Every input is made here, from real FrameNet 1.5 bytes (read from the zip, never
extracted): a fulltext document and an lu file (cut down to two sentences), a
frame file and ``frRelation.xml`` (cut down to two relations of two types).
The parser-format files (JSON lines, SEMAFOR, BIOS, CoNLL-X, CoNLL-U, SemEval
XML) are first written by pyfn's own writers from the valid sets of the
document's first three sentences, then mutated. Each mutation is a small, named edit of those
bytes, checked to apply exactly where intended.

``cases.json`` lists, for every case, the reader, the input ``kind`` (the rows
of the outcome table), the files, the mutation and the outcome a researcher
wants (``tests/test_malformed.py`` checks it):

- ``{"error": S}``: the reader raises :class:`pyfn.errors.PyfnError` whose
  one-line message contains ``S`` (which names the file and the item);
- ``{"skipped": {reason: n}}``: with ``strict=False`` the bad items are skipped
  and counted in the :class:`~pyfn.errors.ProblemLog` (or the builder's
  ledger), with ``strict=True`` the first one raises; ``message`` is part of
  the first problem's message;
- ``{"removed": {reason: n}}``: FrameNet data that SPLITS.md steps 1-2 drop and
  count in the ledger (``no_target:*``, ``invalid:*``); FrameNet 1.5 itself
  has such sets, so ``--strict`` does not stop on them;
- ``{"ok": true}``: read without any problem; ``same_as`` names a case whose
  result must be identical.

``items`` is the number of items (annotation sets; CoNLL sentences; frames;
frame relations) read with ``strict=False``; ``base`` names the unmutated case
and ``covered`` how many of its items the counted skips account for, so that
``items + covered`` equals the base's items (nothing lost silently).

The output is byte-identical from run to run (fixed zip timestamps, stored
members, fixed JSON layout); it changes when pyfn's writers change, and then
the corpus must be regenerated (the test says so).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

from pyfn.formats.base import ordered
from pyfn.formats.registry import FormatOptions, loss_counts, write_split
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.release import open_release
from pyfn.splits.validity import invalid_reason

REPO = Path(__file__).resolve().parent.parent
FULLTEXT = "fulltext/ANC__110CYL067.xml"
LU = "lu/lu5850.xml"
FRAME = "frame/Goal.xml"
FN_NS = b'xmlns="http://framenet.icsi.berkeley.edu"'
BOM = b"\xef\xbb\xbf"
BOM_UTF16 = b"\xff\xfe"
LONG = "9" * 5000
"""A number longer than Python's ``int`` accepts from a string (4,300 digits)."""
ZIP_TIME = (2010, 9, 2, 10, 46, 28)

XXE = b'<!DOCTYPE %s [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
LAUGHS = (
    b'<!DOCTYPE %s [\n<!ENTITY lol "lol">\n'
    + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (i, b"".join(b"&lol%s;" % (b"" if i == 1 else str(i - 1).encode()) for _ in range(10)))
        for i in range(1, 10)
    )
    + b"]>\n"
)


# ----------------------------------------------------------------------------- byte edits


def sub(data: bytes, old: bytes, new: bytes, count: int = 1) -> bytes:
    """``data`` with ``old`` replaced by ``new``; ``old`` must occur exactly ``count`` times."""
    found = data.count(old)
    if found != count:
        raise SystemExit(f"make_malformed: {old[:80]!r} occurs {found} times, expected {count}")
    return data.replace(old, new)


def element(data: bytes, tag: bytes, ident: bytes) -> tuple[int, int]:
    """Byte range of the element ``<tag ... ID="ident">...</tag>`` (one per line, FrameNet's layout)."""
    match = re.search(rb'<%s [^>]*\bID="%s"[^>]*>.*?</%s>' % (tag, ident, tag), data, re.DOTALL)
    if match is None or data.count(b'ID="%s"' % ident) < 1:
        raise SystemExit(f"make_malformed: no <{tag.decode()} ID={ident.decode()}>")
    return match.span()


def in_element(data: bytes, tag: bytes, ident: bytes, old: bytes, new: bytes) -> bytes:
    """Replace ``old`` (exactly once inside the element) by ``new``."""
    start, end = element(data, tag, ident)
    return data[:start] + sub(data[start:end], old, new) + data[end:]


def keep(data: bytes, pattern: bytes, n: int) -> bytes:
    """``data`` without the matches of ``pattern`` after the first ``n``."""
    matches = list(re.finditer(pattern, data, re.DOTALL))
    if len(matches) <= n:
        raise SystemExit(f"make_malformed: {pattern!r} matches {len(matches)} times, cannot keep {n}")
    out, pos = [], 0
    for match in matches[n:]:
        out.append(data[pos:match.start()])
        pos = match.end()
    return b"".join(out) + data[pos:]


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def line_at(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset``."""
    return data[:offset].count(b"\n") + 1


def lines_of(data: bytes) -> list[bytes]:
    """The lines of ``data`` without their newlines (``data`` ends with one)."""
    return data.split(b"\n")[:-1]


def line_start(data: bytes, lineno: int) -> int:
    """Byte offset where line ``lineno`` (1-based) starts."""
    return sum(len(line) + 1 for line in lines_of(data)[:lineno - 1])


def with_line(data: bytes, lineno: int, new: bytes) -> bytes:
    """``data`` with line ``lineno`` (1-based) replaced by ``new`` (no newline)."""
    lines = lines_of(data)
    lines[lineno - 1] = new
    return b"".join(line + b"\n" for line in lines)


def doctype(data: bytes, root: bytes, decl: bytes) -> bytes:
    """Insert a DOCTYPE after the XML declaration (line 1)."""
    first = data.index(b"\n") + 1
    return data[:first] + decl.replace(b"%s", root, 1) + data[first:]


def make_zip(members: list[tuple[str, bytes]]) -> bytes:
    """A zip of stored members with fixed timestamps (byte-identical from run to run)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def patch_member(data: bytes, name: str, *, version: int | None = None, flags: int | None = None,
                 method: int | None = None) -> bytes:
    """``data`` (a zip) with the version needed to extract, the general-purpose flags or the
    compression method of member ``name`` changed in its local and central headers."""
    out = bytearray(data)
    done = 0
    for signature, at_version, at_name in ((b"PK\x03\x04", 4, 30), (b"PK\x01\x02", 6, 46)):
        for match in re.finditer(re.escape(signature), data):
            start = match.start()
            if data[start + at_name:start + at_name + len(name)] != name.encode():
                continue
            for offset, value in ((0, version), (2, flags), (4, method)):
                if value is not None:
                    struct.pack_into("<H", out, start + at_version + offset, value)
            done += 1
    if done != 2:
        raise SystemExit(f"make_malformed: {name} found {done} times in the zip headers, expected 2")
    return bytes(out)


# ----------------------------------------------------------------------------- the corpus

KINDS = {
    "truncation": "truncated-root truncated-middle truncated-end truncated-last-line no-final-newline "
                  "no-final-blank-line truncated",
    "empty file": "empty empty-sentences",
    "UTF-8 BOM": "bom bom-sentences",
    "CRLF line ends": "crlf crlf-sentences",
    "not UTF-8": "not-utf8 sentences-not-utf8",
    "XML namespace or root": "no-namespace wrong-namespace wrong-root namespace colon-root",
    "DTD with external entity (XXE)": "xxe xxe-utf16 xxe-utf16-namespace",
    "billion laughs": "billion-laughs",
    "duplicate IDs or items": "duplicate-set-id duplicate-sentence duplicate-sentence-id duplicate-fe-id "
                              "duplicate-lu-id duplicate-id duplicate-fe-relation-id duplicate-line duplicate-block "
                              "kbest-line",
    "missing element or attribute": "sentence-without-text sentence-without-id set-without-frame-name "
                                    "without-frame-name no-frame-attribute fe-without-id without-name "
                                    "without-sub-id missing-field",
    "label start without end": "fe-start-without-end target-start-without-end start-without-end",
    "start > end": "start-after-end span-reversed",
    "offset or index past the end": "offset-past-end span-past-end target-past-end sentence-past-end head-past-end",
    "Target without labels": "target-layer-empty target-layer-missing target-without-labels no-target mixed-target",
    "label on whitespace": "label-on-whitespace",
    "unknown frame or FE": "unknown-frame unknown-fe",
    "wrong column or field count": "wrong-column-count five-columns missing-fe-span count-mismatch line-without-tab",
    "tokens out of step": "missing-token-line form-mismatch target-repeats-token multiword-token empty-node",
    "non-integer number": "non-integer-offset non-integer-id non-integer-sentno non-integer-target "
                          "non-integer-sentence non-integer-head bad-score",
    "number too long for int()": "long-offset long-index long-count long-id long-head long-number",
    "BIO tag or transition": "i-without-b i-after-other-b unknown-tag",
    "blank lines": "double-blank-line",
    "not JSON lines": "garbage-line not-an-object deep-nesting",
    "zip: not a FrameNet zip": "not-a-zip not-framenet",
    "zip: unsafe member name": "traversal absolute empty-member-name",
    "zip: unreadable member": "bad-crc unknown-compression encrypted version-too-high",
}
"""Input kinds (the rows of the outcome table) by case name (the case id without its reader)."""
KIND_OF = {name: kind for kind, names in KINDS.items() for name in names.split()}
KIND_OF["valid"] = "valid file"


class Corpus:
    """Files written under ``out`` and the cases that use them."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.cases: list[dict] = []
        self.written: dict[str, bytes] = {}

    def file(self, relpath: str, data: bytes) -> str:
        if relpath in self.written and self.written[relpath] != data:
            raise SystemExit(f"make_malformed: {relpath} written twice with different bytes")
        self.written[relpath] = data
        path = self.out / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return relpath

    def case(self, case_id: str, reader: str, files: dict[str, str], mutation: str, expect: dict, **extra) -> None:
        if any(c["id"] == case_id for c in self.cases):
            raise SystemExit(f"make_malformed: duplicate case id {case_id}")
        kind = KIND_OF[case_id.removeprefix(reader + "-")]
        self.cases.append({"id": case_id, "reader": reader, "kind": kind, "files": files, "mutation": mutation,
                           "expect": expect, **extra})


def error(text: str) -> dict:
    return {"error": text}


def skipped(reason: str, n: int = 1) -> dict:
    return {"skipped": {reason: n}}


def removed(reason: str, n: int = 1) -> dict:
    return {"removed": {reason: n}}


OK = {"ok": True}


# ----------------------------------------------------------------------------- FrameNet XML


def cut_fulltext(data: bytes, sentences: int) -> bytes:
    """The document with its first ``sentences`` sentences only."""
    return keep(data, rb"    <sentence [^\n]*>\n.*?    </sentence>\n", sentences)


def cut_lu(data: bytes) -> bytes:
    """The lu file without its valence patterns and with its first two sentences only."""
    data = keep(data, rb"    <valences>\n.*?    </valences>\n", 0)
    return keep(data, rb"        <sentence [^\n]*>\n.*?        </sentence>\n", 2)


def cut_relations(data: bytes) -> bytes:
    data = keep(data, rb"    <frameRelationType [^\n]*>\n.*?    </frameRelationType>\n", 2)
    child = rb"        <frameRelation [^\n]*/>\n|        <frameRelation [^\n]*[^/]>\n.*?        </frameRelation>\n"
    out = []
    for block in re.split(rb"(    <frameRelationType [^\n]*>\n.*?    </frameRelationType>\n)", data, flags=re.DOTALL):
        out.append(keep(block, child, 2) if block.startswith(b"    <frameRelationType ") else block)
    return b"".join(out)


def xml_common(c: Corpus, reader: str, folder: str, name: str, base: bytes, root: bytes, items: int,
               where: str, *, text_line: bytes) -> None:
    """Cases every FrameNet XML reader shares: encodings, line ends, truncations, namespace, DTDs."""
    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"{folder}/{case}/{name}", data)}

    base_id = f"{reader}-valid"
    c.case(base_id, reader, f("valid", base), "none: the real file, cut down", OK, items=items)
    c.case(f"{reader}-crlf", reader, f("crlf", crlf(base)), "every LF replaced by CRLF", OK, items=items,
           same_as=base_id)
    c.case(f"{reader}-bom", reader, f("bom", BOM + base), "UTF-8 BOM added", OK, items=items, same_as=base_id)
    c.case(f"{reader}-empty", reader, f("empty", b""), "empty file", error(f"{where}: empty file"))
    header_end = base.index(b">", base.index(FN_NS)) + 1
    cuts = {"root": header_end + 10, "middle": len(base) // 2, "end": len(base) - 10}
    for label, offset in cuts.items():
        c.case(f"{reader}-truncated-{label}", reader, f(f"truncated-{label}", base[:offset]),
               f"truncated at byte {offset} of {len(base)}",
               error(f"{where}: malformed XML at line {line_at(base, offset)}"))
    c.case(f"{reader}-no-namespace", reader, f("no-namespace", sub(base, b" " + FN_NS, b"")),
           "FrameNet namespace declaration removed", error(f"{where}: not FrameNet XML"))
    bad_utf8 = sub(base, text_line, text_line.replace(b">", b">\xff", 1))
    bad_line = line_at(bad_utf8, bad_utf8.index(b"\xff"))
    c.case(f"{reader}-not-utf8", reader, f("not-utf8", bad_utf8), "byte 0xFF inserted in a text",
           error(f"{where}: malformed XML at line {bad_line}"))
    xxe = doctype(base, root, XXE)
    xxe = sub(xxe, text_line, text_line.replace(b">", b">&xxe;", 1))
    c.case(f"{reader}-xxe", reader, f("xxe", xxe), "DOCTYPE with a SYSTEM entity (file:///etc/passwd) used in a text",
           error(f"{where}: refused: the document declares a DTD or entities"), items=0)
    laughs = doctype(base, root, LAUGHS)
    laughs = sub(laughs, text_line, text_line.replace(b">", b">&lol9;", 1))
    c.case(f"{reader}-billion-laughs", reader, f("billion-laughs", laughs),
           "DOCTYPE with nested entities (billion laughs) used in a text",
           error(f"{where}: refused: the document declares a DTD or entities"), items=0)
    utf16 = xxe.decode("utf-8").replace('encoding="UTF-8"', 'encoding="UTF-16"', 1).encode("utf-16")
    c.case(f"{reader}-xxe-utf16", reader, f("xxe-utf16", utf16),
           "the XXE document re-encoded as UTF-16 (no ASCII DOCTYPE or namespace bytes to find)",
           error(f"{where}: not FrameNet XML"), items=0)
    smuggled = xxe.decode("utf-8").replace('encoding="UTF-8"', 'encoding="UTF-16"', 1)
    first = smuggled.index("\n") + 1
    namespace = b"http://framenet.icsi.berkeley.edu "  # even length: read as UTF-16LE, 17 CJK characters
    smuggled = smuggled[:first] + "<!--" + namespace.decode("utf-16-le") + "-->\n" + smuggled[first:]
    c.case(f"{reader}-xxe-utf16-namespace", reader, f("xxe-utf16-namespace", BOM_UTF16 + smuggled.encode("utf-16-le")),
           "the XXE document in UTF-16 with a comment whose characters are the namespace's ASCII bytes "
           "(the byte checks for a DOCTYPE and the namespace are both fooled)",
           error(f"{where}: refused: the document declares a DTD or entities"), items=0)


def fulltext_cases(c: Corpus, base: bytes) -> None:
    where = FULLTEXT
    text2 = b"        <text>Your contribution to Goodwill"
    xml_common(c, "fulltext", "fulltext", "ANC__110CYL067.xml", base, b"fullTextAnnotation", 6, where,
               text_line=text2)

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"fulltext/{case}/ANC__110CYL067.xml", data)}

    def s(ident: bytes, old: bytes, new: bytes, data: bytes = base) -> bytes:
        return in_element(data, b"annotationSet", ident, old, new)

    base_id = "fulltext-valid"
    c.case("fulltext-wrong-namespace", "fulltext",
           f("wrong-namespace", sub(base, FN_NS, FN_NS[:-1] + b'/v2"')),
           "namespace changed to http://framenet.icsi.berkeley.edu/v2",
           error(f"{where}: root element is neither <fullTextAnnotation> nor <lexUnit>"))
    c.case("fulltext-wrong-root", "fulltext",
           f("wrong-root", sub(base, b"fullTextAnnotation", b"fullTextAnnotations", 2)),
           "root element renamed <fullTextAnnotations>",
           error(f"{where}: root element is neither <fullTextAnnotation> nor <lexUnit>"))
    c.case("fulltext-duplicate-set-id", "fulltext",
           f("duplicate-set-id", sub(base, b'status="MANUAL" ID="2024609"', b'status="MANUAL" ID="2024608"')),
           "annotationSet 2024609 renumbered 2024608 (an ID of the same sentence)",
           skipped("malformed_annotation_set"), items=5, base=base_id,
           message=f"{where} sentence 1281539 annotationSet 2024608: annotationSet ID already read")
    start, end = element(base, b"sentence", b"1281539")
    c.case("fulltext-duplicate-sentence", "fulltext",
           f("duplicate-sentence", base[:end + 1] + base[start - 4:end + 1] + base[end + 1:]),
           "sentence 1281539 repeated right after itself (same sets, same IDs)",
           skipped("malformed_annotation_set", 6), items=6, base=base_id, covered=0,
           message=f"{where} sentence 1281539 annotationSet 2024608: annotationSet ID already read")
    c.case("fulltext-duplicate-sentence-id", "fulltext",
           f("duplicate-sentence-id", sub(base, b'ID="1281539"', b'ID="1281538"')),
           "sentence 1281539 renumbered 1281538 (the ID of the sentence before it, another text)",
           skipped("malformed_sentence"), items=0, base=base_id, covered=6,
           message=f"{where} sentence 1281538: sentence ID already read in this file with another text")
    c.case("fulltext-fe-start-without-end", "fulltext",
           f("fe-start-without-end", s(b"2024608", b'end="3" start="0" name="Donor"', b'start="0" name="Donor"')),
           "FE label Donor of set 2024608 loses its end", removed("invalid:unpaired_offset"),
           items=5, base=base_id)
    c.case("fulltext-target-start-without-end", "fulltext",
           f("target-start-without-end", s(b"2024609", b'end="19" start="18" name="Target"', b'start="18" name="Target"')),
           "Target label of set 2024609 loses its end", removed("no_target:label_without_offsets"),
           items=5, base=base_id)
    c.case("fulltext-start-after-end", "fulltext",
           f("start-after-end", s(b"2024608", b'end="28" start="18" name="Recipient"', b'end="18" start="28" name="Recipient"')),
           "FE label Recipient of set 2024608: start 28 > end 18", removed("invalid:start_after_end"),
           items=5, base=base_id)
    c.case("fulltext-offset-past-end", "fulltext",
           f("offset-past-end", s(b"2024608", b'end="28" start="18" name="Recipient"', b'end="99" start="18" name="Recipient"')),
           "FE label Recipient of set 2024608 ends at 99 (the text has 64 characters)",
           removed("invalid:offset_past_end"), items=5, base=base_id)
    c.case("fulltext-label-on-whitespace", "fulltext",
           f("label-on-whitespace", s(b"2024608", b'end="28" start="18" name="Recipient"', b'end="28" start="17" name="Recipient"')),
           "FE label Recipient of set 2024608 starts on a space", removed("invalid:whitespace_boundary"),
           items=5, base=base_id)
    target_layer = re.search(rb'            <layer rank="1" name="Target">\n.*?</layer>\n',
                             base[slice(*element(base, b"annotationSet", b"2024611"))], re.DOTALL)
    assert target_layer is not None
    c.case("fulltext-target-layer-empty", "fulltext",
           f("target-layer-empty", s(b"2024611", target_layer.group(0), b'            <layer rank="1" name="Target"/>\n')),
           "the Target layer of set 2024611 has no label", removed("no_target:empty_layer"), items=5, base=base_id)
    target_layer = re.search(rb'            <layer rank="1" name="Target">\n.*?</layer>\n',
                             base[slice(*element(base, b"annotationSet", b"2024612"))], re.DOTALL)
    assert target_layer is not None
    c.case("fulltext-target-layer-missing", "fulltext",
           f("target-layer-missing", s(b"2024612", target_layer.group(0), b"")),
           "the Target layer of set 2024612 (frame Awareness) removed", removed("no_target:no_layer"),
           items=5, base=base_id)
    c.case("fulltext-unknown-frame", "fulltext",
           f("unknown-frame", s(b"2025558", b'frameName="Likelihood"', b'frameName="No_such_frame"')),
           "set 2025558 names frame No_such_frame (a fulltext reader has no frame list: kept, "
           "checked by the BIOS writer and the lexicon)", OK, items=6)
    c.case("fulltext-non-integer-offset", "fulltext",
           f("non-integer-offset", s(b"2024610", b'end="38" start="35" name="Target"', b'end="38" start="thirty-five" name="Target"')),
           "Target label of set 2024610 has start=\"thirty-five\"", skipped("malformed_annotation_set"),
           items=5, base=base_id, message=f"{where} sentence 1281539 annotationSet 2024610: label 'Target' has a non-integer offset")
    c.case("fulltext-long-offset", "fulltext",
           f("long-offset", s(b"2024610", b'end="38" start="35" name="Target"', b'end="%s" start="35" name="Target"' % LONG.encode())),
           "Target label of set 2024610 has a 5,000-digit end", skipped("malformed_annotation_set"),
           items=5, base=base_id, message=f"{where} sentence 1281539 annotationSet 2024610: label 'Target'")
    text3 = re.search(rb"        <text>[^<]*</text>\n", base[slice(*element(base, b"sentence", b"1281539"))])
    assert text3 is not None
    c.case("fulltext-sentence-without-text", "fulltext",
           f("sentence-without-text", in_element(base, b"sentence", b"1281539", text3.group(0), b"")),
           "the <text> of sentence 1281539 removed", skipped("malformed_sentence"), items=0, base=base_id, covered=6,
           message=f"{where} sentence 1281539: no <text>")
    id_line = line_at(base, base.index(b' ID="1281539"'))
    c.case("fulltext-sentence-without-id", "fulltext",
           f("sentence-without-id", sub(base, b' ID="1281539"', b"")),
           "the ID attribute of sentence 1281539 removed", skipped("malformed_sentence"), items=0, base=base_id,
           covered=6, message=f"{where}: <sentence> at line {id_line} has no ID attribute")
    c.case("fulltext-non-integer-sentno", "fulltext",
           f("non-integer-sentno", sub(base, b'sentNo="1" paragNo="2"', b'sentNo="one" paragNo="2"')),
           "sentNo=\"one\" on sentence 1281539", skipped("malformed_sentence"), items=0, base=base_id, covered=6,
           message=f"{where} sentence 1281539: a non-integer docID")
    c.case("fulltext-set-without-frame-name", "fulltext",
           f("set-without-frame-name", s(b"2024608", b' frameName="Giving"', b"")),
           "the frameName attribute of set 2024608 removed", skipped("malformed_annotation_set"), items=5,
           base=base_id, message=f"{where} sentence 1281539 annotationSet 2024608: labelled Target layer but no luName/frameName")


def lu_cases(c: Corpus, base: bytes) -> None:
    where = LU
    text = b"        <text>"
    first_text = base[base.index(text):base.index(b"</text>", base.index(text))]
    xml_common(c, "lu", "lu", "lu5850.xml", base, b"lexUnit", 2, where, text_line=first_text)

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"lu/{case}/lu5850.xml", data)}

    base_id = "lu-valid"
    c.case("lu-no-frame-attribute", "lu", f("no-frame-attribute", sub(base, b' frame="Cause_to_be_wet"', b"")),
           "the frame attribute of <lexUnit> removed", error(f"{where}: <lexUnit> has no name or frame attribute"))
    c.case("lu-duplicate-set-id", "lu",
           f("duplicate-set-id", sub(base, b'status="MANUAL" ID="1246110"', b'status="MANUAL" ID="1246108"')),
           "annotationSet 1246110 renumbered 1246108 (the ID of a set of another sentence)",
           skipped("malformed_annotation_set"), items=1, base=base_id,
           message=f"{where} sentence 895836 annotationSet 1246108: annotationSet ID already read in this file (sentence 895835)")
    c.case("lu-start-after-end", "lu", f("start-after-end", in_element(
               base, b"annotationSet", b"1246108", b'end="56" start="48" name="Undergoer"', b'end="48" start="56" name="Undergoer"')),
           "FE label Undergoer of set 1246108: start 56 > end 48", removed("invalid:start_after_end"),
           items=1, base=base_id)


def frame_cases(c: Corpus, base: bytes) -> None:
    where = FRAME
    xml_common(c, "frame", "frame", "Goal.xml", base, b"frame", 1, where, text_line=b"\n    <definition>")

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"frame/{case}/Goal.xml", data)}

    c.case("frame-wrong-namespace", "frame", f("wrong-namespace", sub(base, FN_NS, FN_NS[:-1] + b'/v2"')),
           "namespace changed to http://framenet.icsi.berkeley.edu/v2", error(f"{where}: no <frame> element"))
    c.case("frame-duplicate-fe-id", "frame", f("duplicate-fe-id", sub(base, b'name="Time" ID="11646"', b'name="Time" ID="6823"')),
           "FE Time renumbered 6823 (the ID of FE Landmark)", error(f"{where} frame Goal: <FE> ID 6823 defined twice"))
    c.case("frame-duplicate-lu-id", "frame", f("duplicate-lu-id", sub(base, b'name="into.prep" ID="14413"', b'name="into.prep" ID="10799"')),
           "lexUnit into.prep renumbered 10799 (the ID of to.prep)",
           error(f"{where} frame Goal: <lexUnit> ID 10799 defined twice"))
    no_id = sub(base, b' name="Trajector" ID="6825"', b' name="Trajector"')
    fe_line = line_at(no_id, no_id.index(b' name="Trajector"'))
    c.case("frame-fe-without-id", "frame", f("fe-without-id", no_id), "the ID attribute of FE Trajector removed",
           error(f"{where} frame Goal: <FE> at line {fe_line} has no ID attribute"))
    c.case("frame-non-integer-id", "frame", f("non-integer-id", sub(base, b'name="Trajector" ID="6825"', b'name="Trajector" ID="6825a"')),
           "FE Trajector has ID=\"6825a\"", error(f"{where} frame Goal: <FE> at line"))
    c.case("frame-without-name", "frame", f("without-name", sub(base, b' name="Goal" ID="1177"', b' ID="1177"')),
           "the name attribute of <frame> removed", error(f"{where} frame None: <frame> has no name"))


def relation_cases(c: Corpus, base: bytes, items: int) -> None:
    where = "frRelation.xml"
    tags = re.findall(rb"        <frameRelation [^\n]*>", base)
    ids = [re.search(rb'\bID="(\d+)"', tag).group(1) for tag in tags]  # type: ignore[union-attr]
    first = tags[0]
    xml_common(c, "frRelation", "frRelation", "frRelation.xml", base, b"frameRelations", items, where,
               text_line=b'    <frameRelationType subFrameName="Child" superFrameName="Parent" name="Inheritance" ID="1">')

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"frRelation/{case}/frRelation.xml", data)}

    c.case("frRelation-wrong-namespace", "frRelation",
           f("wrong-namespace", sub(base, FN_NS, FN_NS[:-1] + b'/v2"')),
           "namespace changed to http://framenet.icsi.berkeley.edu/v2 (no relation would be read)",
           error(f"{where}: root element is not <frameRelations>"))
    c.case("frRelation-wrong-root", "frRelation",
           f("wrong-root", sub(base, b"<frameRelations ", b"<frameRelationz ").replace(b"</frameRelations>", b"</frameRelationz>")),
           "root element renamed <frameRelationz>", error(f"{where}: root element is not <frameRelations>"))
    c.case("frRelation-duplicate-id", "frRelation",
           f("duplicate-id", sub(base, tags[1], tags[1].replace(b'ID="%s"' % ids[1], b'ID="%s"' % ids[0]))),
           f"frameRelation {ids[1].decode()} renumbered {ids[0].decode()}",
           error(f"{where} frameRelation {ids[0].decode()}: <frameRelation> ID {ids[0].decode()} defined twice"))
    fer = re.findall(rb'<FERelation [^>]*\bID="(\d+)"/>', base)
    c.case("frRelation-duplicate-fe-relation-id", "frRelation",
           f("duplicate-fe-relation-id", sub(base, b'ID="%s"/>' % fer[1], b'ID="%s"/>' % fer[0])),
           f"FERelation {fer[1].decode()} renumbered {fer[0].decode()}",
           error(f"<FERelation> ID {fer[0].decode()} defined twice"))
    sub_id = re.search(rb' subID="\d+"', first)
    assert sub_id is not None
    c.case("frRelation-without-sub-id", "frRelation",
           f("without-sub-id", sub(base, first, first.replace(sub_id.group(0), b""))),
           f"the subID attribute of frameRelation {ids[0].decode()} removed",
           error(f"{where} frameRelation {ids[0].decode()}: <frameRelation> at line"))
    c.case("frRelation-non-integer-id", "frRelation",
           f("non-integer-id", sub(base, first, first.replace(b'ID="%s"' % ids[0], b'ID="two"'))),
           f"frameRelation {ids[0].decode()} has ID=\"two\"", error(f"{where} frameRelation two: <frameRelation> at line"))


# ----------------------------------------------------------------------------- parser formats


def write_formats(sets) -> dict[str, bytes]:
    """The format files pyfn writes for ``sets``: train files, and test files for SemEval."""
    out: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for split, formats in (("train", ("jsonl", "semafor", "bios", "conllx", "conllu")), ("test", ("semeval",))):
            paths, losses = write_split(Path(tmp), split, ordered(sets), formats, FormatOptions())
            out.update((path.name, path.read_bytes()) for path in paths)
            lost = loss_counts(losses, several=True)
            if lost:
                raise SystemExit(f"make_malformed: the writers lost {lost}")
    return out


def jsonl_cases(c: Corpus, base: bytes) -> None:
    name = "train.jsonl"

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"jsonl": c.file(f"jsonl/{case}/{name}", data)}

    lines = lines_of(base)
    n = len(lines)
    objs = [json.loads(line) for line in lines]

    def edit(lineno: int, change) -> bytes:
        obj = json.loads(lines[lineno - 1])
        change(obj)
        return with_line(base, lineno, json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode())

    def fe_label(obj: dict) -> list:
        """The first FE label of ``obj`` longer than one character that starts after a space."""
        text = obj["sentence"]["text"]
        labels = next(layer for layer in obj["layers"] if layer["name"] == "FE")["labels"]
        return next(lb for lb in labels if lb[1] is not None and 0 < lb[1] < lb[2] and text[lb[1] - 1] == " ")

    base_id = "jsonl-valid"
    c.case(base_id, "jsonl", f("valid", base), "none: pyfn's JSON lines of the cut document", OK, items=n)
    c.case("jsonl-crlf", "jsonl", f("crlf", crlf(base)), "every LF replaced by CRLF", OK, items=n, same_as=base_id)
    c.case("jsonl-bom", "jsonl", f("bom", BOM + base), "UTF-8 BOM added", OK, items=n, same_as=base_id)
    c.case("jsonl-empty", "jsonl", f("empty", b""), "empty file (a split without sets)", OK, items=0)
    c.case("jsonl-no-final-newline", "jsonl", f("no-final-newline", base[:-1]), "the last newline removed",
           OK, items=n, same_as=base_id)
    end6 = sum(len(line) + 1 for line in lines[:5]) + len(lines[5]) // 2
    c.case("jsonl-truncated-middle", "jsonl", f("truncated-middle", base[:end6]), f"truncated in the middle of line 6 (byte {end6})",
           skipped("malformed_line"), items=5, message=f"{name}:6: invalid JSON")
    cut = len(base) - len(lines[-1]) // 2
    c.case("jsonl-truncated-last-line", "jsonl", f("truncated-last-line", base[:cut]),
           f"truncated in the middle of the last line (byte {cut})", skipped("malformed_line"), items=n - 1,
           message=f"{name}:{n}: invalid JSON")
    bad = with_line(base, 4, lines[3].replace(b'"text":"', b'"text":"\xff', 1))
    c.case("jsonl-not-utf8", "jsonl", f("not-utf8", bad), "byte 0xFF inserted in the sentence text of line 4",
           error(f"{name}: not UTF-8 text at line 4"))
    c.case("jsonl-duplicate-id", "jsonl", f("duplicate-id", edit(3, lambda o: o.update(id=objs[1]["id"]))),
           f"line 3 takes the id of line 2 ({objs[1]['id']})", skipped("duplicate_id"), items=n - 1, base=base_id,
           message=f"{name}:3: fulltext annotation set {objs[1]['id']} already read at line 2")
    c.case("jsonl-duplicate-line", "jsonl", f("duplicate-line", with_line(base, 5, lines[4] + b"\n" + lines[4])),
           "line 5 repeated (a file concatenated with itself would do the same)", skipped("duplicate_id"),
           items=n, base=base_id, covered=0, message=f"{name}:6: fulltext annotation set {objs[4]['id']} already read at line 5")
    c.case("jsonl-start-after-end", "jsonl",
           f("start-after-end", edit(2, lambda o: fe_label(o).__setitem__(slice(1, 3), [fe_label(o)[2], fe_label(o)[1]]))),
           "line 2: an FE label with start and end swapped", skipped("invalid:start_after_end"), items=n - 1,
           base=base_id, message=f"{name}:2: annotation set {objs[1]['id']}: a label has start > end")
    c.case("jsonl-start-without-end", "jsonl", f("start-without-end", edit(2, lambda o: fe_label(o).__setitem__(2, None))),
           "line 2: an FE label loses its end", skipped("invalid:unpaired_offset"), items=n - 1, base=base_id,
           message=f"{name}:2: annotation set {objs[1]['id']}: a label has start without end")
    c.case("jsonl-offset-past-end", "jsonl", f("offset-past-end", edit(2, lambda o: fe_label(o).__setitem__(2, 999))),
           "line 2: an FE label ends at 999", skipped("invalid:offset_past_end"), items=n - 1, base=base_id,
           message=f"{name}:2: annotation set {objs[1]['id']}: a label offset")

    def on_space(o: dict) -> None:
        fe_label(o)[1] -= 1
    spaced = edit(2, on_space)
    c.case("jsonl-label-on-whitespace", "jsonl", f("label-on-whitespace", spaced),
           "line 2: an FE label starts one character early, on a space", skipped("invalid:whitespace_boundary"), items=n - 1,
           base=base_id, message=f"{name}:2: annotation set {objs[1]['id']}: a label starts or ends on whitespace")

    def no_target(o: dict) -> None:
        next(layer for layer in o["layers"] if layer["name"] == "Target")["labels"] = []
    c.case("jsonl-target-layer-empty", "jsonl", f("target-layer-empty", edit(7, no_target)),
           "line 7: the Target layer has no label", skipped("no_target:empty_layer"), items=n - 1, base=base_id,
           message=f"{name}:7: annotation set {objs[6]['id']}: the Target layer has no label")
    c.case("jsonl-non-integer-offset", "jsonl", f("non-integer-offset", edit(8, lambda o: fe_label(o).__setitem__(1, "5"))),
           "line 8: an FE label has start \"5\" (a string)", skipped("malformed_line"), items=n - 1, base=base_id,
           message=f"{name}:8: label")
    c.case("jsonl-long-number", "jsonl", f("long-number", with_line(base, 8, re.sub(rb'^\{"id":\d+', b'{"id":' + LONG.encode(), lines[7]))),
           "line 8: a 5,000-digit id", skipped("malformed_line"), items=n - 1, base=base_id, message=f"{name}:8:")
    c.case("jsonl-missing-field", "jsonl", f("missing-field", edit(9, lambda o: o.pop("frame"))),
           "line 9: the frame key removed", skipped("malformed_line"), items=n - 1, base=base_id,
           message=f"{name}:9: missing field 'frame'")
    c.case("jsonl-not-an-object", "jsonl", f("not-an-object", with_line(base, 10, b"[1, 2, 3]")),
           "line 10 replaced by a JSON array", skipped("malformed_line"), items=n - 1, base=base_id,
           message=f"{name}:10: not a JSON object")
    c.case("jsonl-deep-nesting", "jsonl", f("deep-nesting", with_line(base, 10, b"[" * 5000)),
           "line 10 replaced by 5,000 opening brackets", skipped("malformed_line"), items=n - 1, base=base_id,
           message=f"{name}:10:")
    c.case("jsonl-garbage-line", "jsonl", f("garbage-line", with_line(base, 1, b"garbage\n" + lines[0])),
           "a line of text inserted before line 1", skipped("malformed_line"), items=n, base=base_id, covered=0,
           message=f"{name}:1: invalid JSON")
    c.case("jsonl-unknown-frame", "jsonl", f("unknown-frame", edit(11, lambda o: o.update(frame="No_such_frame"))),
           "line 11 names frame No_such_frame (the reader has no frame list)", OK, items=n)


def semafor_cases(c: Corpus, frames: bytes, sentences: bytes) -> None:
    name, sname = "train.frame.elements", "train.sentences"
    sent_path = c.file(f"semafor/base/{sname}", sentences)

    def f(case: str, data: bytes, sent: str | None = None) -> dict[str, str]:
        return {"frames": c.file(f"semafor/{case}/{name}", data), "sentences": sent or sent_path}

    def fs(case: str, data: bytes) -> dict[str, str]:
        return {"frames": c.file(f"semafor/base/{name}", frames), "sentences": c.file(f"semafor/{case}/{sname}", data)}

    lines = lines_of(frames)
    n = len(lines)
    fields = [line.split(b"\t") for line in lines]

    def edit(lineno: int, col: int, value: bytes) -> bytes:
        row = list(fields[lineno - 1])
        row[col] = value
        return with_line(frames, lineno, b"\t".join(row))

    base_id = "semafor-valid"
    c.case(base_id, "semafor", f("valid", frames), "none: pyfn's SEMAFOR files of the cut document", OK, items=n)
    c.case("semafor-crlf", "semafor", f("crlf", crlf(frames)), "every LF of the frame file replaced by CRLF", OK,
           items=n, same_as=base_id)
    c.case("semafor-crlf-sentences", "semafor", fs("crlf-sentences", crlf(sentences)),
           "every LF of the sentences file replaced by CRLF", OK, items=n, same_as=base_id)
    c.case("semafor-bom", "semafor", f("bom", BOM + frames), "UTF-8 BOM added to the frame file", OK, items=n,
           same_as=base_id)
    c.case("semafor-bom-sentences", "semafor", fs("bom-sentences", BOM + sentences),
           "UTF-8 BOM added to the sentences file", OK, items=n, same_as=base_id)
    c.case("semafor-empty", "semafor", f("empty", b""), "empty frame file", OK, items=0)
    c.case("semafor-empty-sentences", "semafor", fs("empty-sentences", b""), "empty sentences file",
           skipped("semafor:unknown_sentence", n), items=0, base=base_id,
           message=f"{name}:1: sentence number")
    c.case("semafor-no-final-newline", "semafor", f("no-final-newline", frames[:-1]), "the last newline removed",
           OK, items=n, same_as=base_id)
    mid = line_start(frames, 6) + lines[5].rindex(b"\t") - 2
    c.case("semafor-truncated-middle", "semafor", f("truncated-middle", frames[:mid]),
           f"truncated inside the last FE name of line 6 (byte {mid})", skipped("semafor:field_count"), items=5,
           message=f"{name}:6:")
    last = line_start(frames, n) + lines[-1].rindex(b"\t") - 2
    c.case("semafor-truncated-last-line", "semafor", f("truncated-last-line", frames[:last]),
           f"truncated inside the last FE name of the last line (byte {last})", skipped("semafor:field_count"),
           items=n - 1, message=f"{name}:{n}:")
    c.case("semafor-not-utf8", "semafor", f("not-utf8", edit(3, 6, fields[2][6] + b"\xff")),
           "byte 0xFF appended to the target words of line 3", error(f"{name}: not UTF-8 text at line 3"))
    bad_sent = with_line(sentences, 2, lines_of(sentences)[1] + b" \xff")
    c.case("semafor-sentences-not-utf8", "semafor", fs("sentences-not-utf8", bad_sent),
           "byte 0xFF appended to line 2 of the sentences file", error(f"{sname}: not UTF-8 text at line 2"))
    c.case("semafor-missing-fe-span", "semafor", f("missing-fe-span", with_line(frames, 2, b"\t".join(fields[1][:-1]))),
           "line 2: the last FE span removed (wrong column count)", skipped("semafor:field_count"), items=n - 1,
           base=base_id, message=f"{name}:2: column 2 (count)")
    c.case("semafor-five-columns", "semafor", f("five-columns", with_line(frames, 4, b"\t".join(fields[3][:5]))),
           "line 4 cut to 5 columns", skipped("semafor:field_count"), items=n - 1, base=base_id,
           message=f"{name}:4: 5 fields, at least 8 expected")
    c.case("semafor-count-mismatch", "semafor", f("count-mismatch", edit(5, 2, str(int(fields[4][2]) + 1).encode())),
           "line 5: count one more than its FE pairs", skipped("semafor:field_count"), items=n - 1, base=base_id,
           message=f"{name}:5: column 2 (count)")
    c.case("semafor-non-integer-target", "semafor", f("non-integer-target", edit(5, 5, b"x")),
           "line 5: target token index \"x\"", skipped("semafor:bad_number"), items=n - 1, base=base_id,
           message=f"{name}:5: column 5 (target)")
    c.case("semafor-non-integer-sentence", "semafor", f("non-integer-sentence", edit(6, 7, b"one")),
           "line 6: sentence number \"one\"", skipped("semafor:bad_number"), items=n - 1, base=base_id,
           message=f"{name}:6: column 7 (sentence number)")
    c.case("semafor-bad-score", "semafor", f("bad-score", edit(7, 1, b"high")), "line 7: score \"high\"",
           skipped("semafor:bad_number"), items=n - 1, base=base_id, message=f"{name}:7: column 1 (score)")
    c.case("semafor-long-index", "semafor", f("long-index", edit(5, 5, LONG.encode())),
           "line 5: a 5,000-digit target token index", skipped("semafor:bad_number"), items=n - 1, base=base_id,
           message=f"{name}:5: column 5 (target)")
    c.case("semafor-long-count", "semafor", f("long-count", edit(5, 2, LONG.encode())),
           "line 5: a 5,000-digit count", skipped("semafor:bad_number"), items=n - 1, base=base_id,
           message=f"{name}:5: column 2 (count)")
    span_line = next(i for i, row in enumerate(fields, 1) if b":" in row[-1])
    first, last_tok = fields[span_line - 1][-1].split(b":")
    c.case("semafor-span-reversed", "semafor", f("span-reversed", edit(span_line, -1, last_tok + b":" + first)),
           f"line {span_line}: FE span {last_tok.decode()}:{first.decode()}", skipped("semafor:span_reversed"),
           items=n - 1, base=base_id, message=f"{name}:{span_line}: column")
    c.case("semafor-span-past-end", "semafor", f("span-past-end", edit(span_line, -1, first + b":80")),
           f"line {span_line}: FE span ends at token 80", skipped("semafor:index_past_end"), items=n - 1,
           base=base_id, message=f"{name}:{span_line}: column")
    c.case("semafor-target-past-end", "semafor", f("target-past-end", edit(1, 5, b"80")),
           "line 1: target token 80", skipped("semafor:index_past_end"), items=n - 1, base=base_id,
           message=f"{name}:1: column 5 (target) '80': token 80 is past the end")
    c.case("semafor-sentence-past-end", "semafor", f("sentence-past-end", edit(1, 7, b"7")),
           "line 1: sentence number 7 (the sentences file has 2 lines)", skipped("semafor:unknown_sentence"),
           items=n - 1, base=base_id, message=f"{name}:1: sentence number 7 is past the end")
    c.case("semafor-target-repeats-token", "semafor", f("target-repeats-token", edit(1, 5, fields[0][5] + b"_" + fields[0][5])),
           "line 1: target token listed twice", skipped("semafor:bad_target"), items=n - 1, base=base_id,
           message=f"{name}:1: column 5 (target)")
    kbest = with_line(frames, 1, lines[0] + b"\n" + b"\t".join([b"2", *fields[0][1:]]))
    c.case("semafor-kbest-line", "semafor", f("kbest-line", kbest),
           "a rank-2 copy of line 1 inserted after it (a k-best file read without --kbest)",
           skipped("semafor:kbest_line"), items=n, base=base_id, covered=0,
           message=f"{name}:2: rank 2 for a target of sentence")
    c.case("semafor-duplicate-line", "semafor", f("duplicate-line", with_line(frames, 1, lines[0] + b"\n" + lines[0])),
           "line 1 repeated (SEMAFOR files may hold the same frame twice on a target: both read)", OK, items=n + 1)
    c.case("semafor-unknown-fe", "semafor", f("unknown-fe", edit(1, 8, b"No_such_FE")),
           "line 1: FE No_such_FE (the reader has no frame list)", OK, items=n)


def bios_cases(c: Corpus, bios: bytes, sentences: bytes) -> None:
    name, sname = "train.bios", "train.sentences"
    sent_path = c.file(f"bios/base/{sname}", sentences)

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"bios": c.file(f"bios/{case}/{name}", data), "sentences": sent_path}

    lines = lines_of(bios)
    blocks = bios.split(b"\n\n")[:-1]
    n = len(blocks)
    block_start = [1]
    for block in blocks[:-1]:
        block_start.append(block_start[-1] + block.count(b"\n") + 2)

    def edit(lineno: int, col: int, value: bytes) -> bytes:
        row = lines[lineno - 1].split(b"\t")
        row[col] = value
        return with_line(bios, lineno, b"\t".join(row))

    def find(tag: bytes) -> int:
        return next(i for i, line in enumerate(lines, 1) if line.split(b"\t")[14:15] == [tag])

    def edit_block(block: int, changes: dict[int, bytes]) -> bytes:
        out = list(lines)
        for i in range(block_start[block] - 1, block_start[block] - 1 + blocks[block].count(b"\n") + 1):
            row = out[i].split(b"\t")
            for col, value in changes.items():
                row[col] = value
            out[i] = b"\t".join(row)
        return b"".join(line + b"\n" for line in out)

    base_id = "bios-valid"
    c.case(base_id, "bios", f("valid", bios), "none: pyfn's BIOS file of the cut document", OK, items=n)
    c.case("bios-crlf", "bios", f("crlf", crlf(bios)), "every LF replaced by CRLF", OK, items=n, same_as=base_id)
    c.case("bios-bom", "bios", f("bom", BOM + bios), "UTF-8 BOM added", OK, items=n, same_as=base_id)
    c.case("bios-empty", "bios", f("empty", b""), "empty file", OK, items=0)
    c.case("bios-no-final-blank-line", "bios", f("no-final-blank-line", bios[:-1]),
           "the blank line after the last block removed (Open-SESAME drops that block)",
           skipped("unterminated_block"), items=n - 1, base=base_id, message=f"{name}:{len(lines) - 1}: last block")
    mid_line = block_start[5] + 3
    cut = sum(len(line) + 1 for line in lines[:mid_line - 1]) + 5
    c.case("bios-truncated-middle", "bios", f("truncated-middle", bios[:cut]),
           f"truncated inside line {mid_line} (block 6)", skipped("unterminated_block"), items=5,
           message=f"{name}:{mid_line}: last block")
    c.case("bios-not-utf8", "bios", f("not-utf8", edit(4, 1, b"se\xffe")), "byte 0xFF inside the FORM of line 4",
           error(f"{name}: not UTF-8 text at line 4"))
    row = lines[2].split(b"\t")
    c.case("bios-wrong-column-count", "bios", f("wrong-column-count", with_line(bios, 3, b"\t".join(row[:14]))),
           "line 3 has 14 columns", skipped("bad_columns"), items=n - 1, base=base_id,
           message=f"{name}:3: 14 columns, expected 16")
    c.case("bios-non-integer-id", "bios", f("non-integer-id", edit(3, 0, b"three")), "line 3: token ID \"three\"",
           skipped("bad_id"), items=n - 1, base=base_id, message=f"{name}:3: token ID 'three' is not")
    c.case("bios-long-id", "bios", f("long-id", edit(3, 0, LONG.encode())), "line 3: a 5,000-digit token ID",
           skipped("bad_id"), items=n - 1, base=base_id, message=f"{name}:3: token ID")
    c.case("bios-non-integer-sentence", "bios", f("non-integer-sentence", edit(5, 6, b"zero")),
           "line 5: sentence number \"zero\"", skipped("bad_sentence_number"), items=n - 1, base=base_id,
           message=f"{name}:5: sentence number 'zero' is not")
    c.case("bios-sentence-past-end", "bios", f("sentence-past-end", edit_block(0, {6: b"7"})),
           "block 1: sentence number 7 on every line (the sentences file has 2 lines)",
           skipped("bad_sentence_number"), items=n - 1, base=base_id, message=f"{name}:1: sentence number 7 past the end")
    b_line = find(b"B-Phenomenon")
    c.case("bios-i-without-b", "bios", f("i-without-b", edit(b_line, 14, b"I-Phenomenon")),
           f"line {b_line}: B-Phenomenon becomes I-Phenomenon (I- without B-)", skipped("bad_transition"),
           items=n - 1, base=base_id, message=f"{name}:{b_line}: 'I-Phenomenon' continues nothing")
    c.case("bios-i-after-other-b", "bios", f("i-after-other-b", edit(b_line + 1, 14, b"I-Cognizer")),
           f"line {b_line + 1}: I-Cognizer right after B-Phenomenon", skipped("bad_transition"), items=n - 1,
           base=base_id, message=f"{name}:{b_line + 1}: 'I-Cognizer' continues 'Phenomenon'")
    c.case("bios-unknown-tag", "bios", f("unknown-tag", edit(b_line, 14, b"Q-Phenomenon")),
           f"line {b_line}: tag Q-Phenomenon", skipped("bad_tag"), items=n - 1, base=base_id,
           message=f"{name}:{b_line}: FE tag 'Q-Phenomenon'")
    c.case("bios-form-mismatch", "bios", f("form-mismatch", edit(2, 1, b"hinder")), "line 2: FORM help becomes hinder",
           skipped("form_mismatch"), items=n - 1, base=base_id, message=f"{name}:2: FORM 'hinder' is not token 'help'")
    c.case("bios-missing-token-line", "bios", f("missing-token-line", b"".join(line + b"\n" for i, line in enumerate(lines) if i != 5)),
           "line 6 (token 6 of block 1) removed", skipped("bad_id"), items=n - 1, base=base_id,
           message=f"{name}:6: token ID 7 where 6 was expected")
    c.case("bios-double-blank-line", "bios", f("double-blank-line", bios.replace(b"\n\n", b"\n\n\n", 1)),
           "a second blank line after block 1", skipped("empty_block"), items=n, base=base_id, covered=0,
           message=f"{name}:{block_start[1]}: empty line without a block")
    c.case("bios-no-target", "bios", f("no-target", edit_block(2, {12: b"_", 13: b"_"})),
           "block 3: LU and frame columns all _", skipped("no_target"), items=n - 1, base=base_id,
           message=f"{name}:{block_start[2]}: block has no target token")
    t_line = next(i for i, line in enumerate(lines, 1) if line.split(b"\t")[12:13] not in ([b"_"], []))
    c.case("bios-mixed-target", "bios", f("mixed-target", edit(t_line, 13, b"_")),
           f"line {t_line}: the frame column of the target token emptied", skipped("mixed_target"), items=n - 1,
           base=base_id, message=f"{name}:{t_line}: LU")
    c.case("bios-duplicate-block", "bios", f("duplicate-block", blocks[0] + b"\n\n" + bios),
           "block 1 repeated (both read: a BIOS file may hold two sets on one target)", OK, items=n + 1)


def conll_cases(c: Corpus, reader: str, data: bytes, name: str) -> None:
    def f(case: str, blob: bytes) -> dict[str, str]:
        return {"conll": c.file(f"{reader}/{case}/{name}", blob)}

    lines = lines_of(data)
    n = data.count(b"\n\n")
    token_lines = [i for i, line in enumerate(lines, 1) if line and not line.startswith(b"#")]
    second_block = next(i for i, line in enumerate(lines, 1) if i > 1 and not lines[i - 2] and line)

    def edit(lineno: int, col: int, value: bytes) -> bytes:
        row = lines[lineno - 1].split(b"\t")
        row[col] = value
        return with_line(data, lineno, b"\t".join(row))

    t3 = token_lines[2]
    base_id = f"{reader}-valid"
    c.case(base_id, reader, f("valid", data), f"none: pyfn's {reader} file of the cut document", OK, items=n)
    c.case(f"{reader}-crlf", reader, f("crlf", crlf(data)), "every LF replaced by CRLF", OK, items=n, same_as=base_id)
    c.case(f"{reader}-bom", reader, f("bom", BOM + data), "UTF-8 BOM added", OK, items=n, same_as=base_id)
    c.case(f"{reader}-empty", reader, f("empty", b""), "empty file", OK, items=0)
    c.case(f"{reader}-double-blank-line", reader, f("double-blank-line", data.replace(b"\n\n", b"\n\n\n", 1)),
           "a second blank line after block 1 (blocks are still counted right)", OK, items=n, same_as=base_id)
    c.case(f"{reader}-wrong-column-count", reader, f("wrong-column-count", with_line(data, t3, b"\t".join(lines[t3 - 1].split(b"\t")[:9]))),
           f"line {t3} has 9 columns", skipped("malformed_sentence"), items=n - 1, base=base_id,
           message=f"{name}:1: sentence 0: token line 3 (ID 3): 9 columns, expected 10")
    c.case(f"{reader}-non-integer-id", reader, f("non-integer-id", edit(t3, 0, b"three")), f"line {t3}: ID \"three\"",
           skipped("malformed_sentence"), items=n - 1, base=base_id,
           message=f"{name}:1: sentence 0: token line 3 (ID three): ID should be 3")
    c.case(f"{reader}-non-integer-head", reader, f("non-integer-head", edit(t3, 6, b"root")), f"line {t3}: HEAD \"root\"",
           skipped("malformed_sentence"), items=n - 1, base=base_id,
           message=f"{name}:1: sentence 0: token line 3 (ID 3): HEAD 'root' is not an integer")
    c.case(f"{reader}-head-past-end", reader, f("head-past-end", edit(t3, 6, b"99")), f"line {t3}: HEAD 99",
           skipped("malformed_sentence"), items=n - 1, base=base_id,
           message=f"{name}:1: sentence 0: token line 3 (ID 3): HEAD 99 is not a token of the sentence")
    c.case(f"{reader}-long-head", reader, f("long-head", edit(t3, 6, LONG.encode())), f"line {t3}: a 5,000-digit HEAD",
           skipped("malformed_sentence"), items=n - 1, base=base_id, message=f"{name}:1: sentence 0: token line 3 (ID 3): HEAD")
    c.case(f"{reader}-not-utf8", reader, f("not-utf8", edit(t3, 1, b"y\xffou")), f"byte 0xFF inside the FORM of line {t3}",
           error(f"{name}: not UTF-8 text at line {t3}"))
    c.case(f"{reader}-line-without-tab", reader, f("line-without-tab", with_line(data, t3, b"you")),
           f"line {t3} is a bare word", error(f"{name}:1: sentence 0:"))
    second_token = [i for i in token_lines if i >= second_block][1]
    cut = line_start(data, second_token) + 4
    c.case(f"{reader}-truncated-middle", reader, f("truncated-middle", data[:cut]),
           f"truncated inside line {second_token} (token 2 of block 2)", skipped("malformed_sentence"), items=n - 1,
           message=f"{name}:{second_block}: sentence 1: token line 2 (ID 2): 2 columns, expected 10")
    if reader == "conllu":
        mwt = with_line(data, t3, b"3-4\tyousee\t_\t_\t_\t_\t_\t_\t_\t_\n" + lines[t3 - 1])
        c.case("conllu-multiword-token", reader, f("multiword-token", mwt), f"a multiword-token line 3-4 before line {t3}",
               skipped("multiword_token"), items=n - 1, base=base_id, message=f"{name}:1: sentence 0: token line 3 (ID 3-4): multiword token")
        empty = with_line(data, t3, lines[t3 - 1] + b"\n3.1\tnull\t_\t_\t_\t_\t_\t_\t_\t_")
        c.case("conllu-empty-node", reader, f("empty-node", empty), f"an empty node 3.1 after line {t3}",
               skipped("empty_node"), items=n - 1, base=base_id, message=f"{name}:1: sentence 0: token line 4 (ID 3.1): empty node")


def semeval_cases(c: Corpus, base: bytes) -> None:
    name = "test.gold.xml"

    def f(case: str, data: bytes) -> dict[str, str]:
        return {"xml": c.file(f"semeval/{case}/{name}", data)}

    n = base.count(b"<annotationSet ")

    def s(ident: bytes, old: bytes, new: bytes) -> bytes:
        return in_element(base, b"annotationSet", ident, old, new)

    base_id = "semeval-valid"
    c.case(base_id, "semeval", f("valid", base), "none: pyfn's SemEval gold XML of the cut document", OK, items=n)
    c.case("semeval-crlf", "semeval", f("crlf", crlf(base)), "every LF replaced by CRLF", OK, items=n, same_as=base_id)
    c.case("semeval-bom", "semeval", f("bom", BOM + base), "UTF-8 BOM added", OK, items=n, same_as=base_id)
    c.case("semeval-empty", "semeval", f("empty", b""), "empty file", error(f"{name}: empty file"))
    for label, offset in {"root": base.index(b"<documents>") + 5, "middle": len(base) // 2, "end": len(base) - 5}.items():
        c.case(f"semeval-truncated-{label}", "semeval", f(f"truncated-{label}", base[:offset]),
               f"truncated at byte {offset} of {len(base)}",
               error(f"{name}: malformed XML at line {line_at(base, offset)}"))
    bad = sub(base, b"<text>Your contribution", b"<text>Your \xffcontribution")
    bad_line = line_at(bad, bad.index(b"\xff"))
    c.case("semeval-not-utf8", "semeval", f("not-utf8", bad), "byte 0xFF inserted in the text of sentence 1",
           error(f"{name}: malformed XML at line {bad_line}"))
    c.case("semeval-wrong-root", "semeval", f("wrong-root", sub(base, b"<corpus ", b"<corpora ").replace(b"</corpus>", b"</corpora>")),
           "root element renamed <corpora>", error(f"{name}: not SemEval XML (root element <corpora>, expected <corpus>)"))
    c.case("semeval-colon-root", "semeval", f("colon-root", sub(base, b"<corpus ", b"<:corpus ").replace(b"</corpus>", b"</:corpus>")),
           "root element renamed <:corpus> (libxml2 lets the name through, lxml's QName refuses it)",
           error(f"{name}: not SemEval XML (root element <:corpus>, expected <corpus>)"))
    c.case("semeval-namespace", "semeval", f("namespace", sub(base, b'<corpus ID="1">', b'<corpus xmlns="http://example.org/semeval" ID="1">')),
           "a default namespace on <corpus> (the scorer and the reader go by local names)", OK, items=n,
           same_as=base_id)
    c.case("semeval-start-after-end", "semeval", f("start-after-end", s(b"1", b'start="8" end="10"', b'start="10" end="8"')),
           "set 1: FE label Cognizer with start 10 > end 8", skipped("malformed_annotation_set"), items=n - 1,
           base=base_id, message=f"{name}: sentence 0 (ID 0), annotationSet 0 (ID 1): label 'Cognizer': start 10 > end 8")
    c.case("semeval-start-without-end", "semeval", f("start-without-end", s(b"1", b'start="8" end="10"', b'start="8"')),
           "set 1: FE label Cognizer loses its end", skipped("malformed_annotation_set"), items=n - 1, base=base_id,
           message=f"{name}: sentence 0 (ID 0), annotationSet 0 (ID 1): label 'Cognizer': end=None")
    c.case("semeval-offset-past-end", "semeval", f("offset-past-end", s(b"1", b'start="8" end="10"', b'start="8" end="999"')),
           "set 1: FE label Cognizer ends at 999", skipped("malformed_annotation_set"), items=n - 1, base=base_id,
           message=f"{name}: sentence 0 (ID 0), annotationSet 0 (ID 1): label 'Cognizer': offsets 8-999 outside the text")
    c.case("semeval-non-integer-offset", "semeval", f("non-integer-offset", s(b"1", b'start="8" end="10"', b'start="eight" end="10"')),
           "set 1: FE label Cognizer has start=\"eight\"", skipped("malformed_annotation_set"), items=n - 1,
           base=base_id, message=f"{name}: sentence 0 (ID 0), annotationSet 0 (ID 1): label 'Cognizer': start='eight'")
    c.case("semeval-long-offset", "semeval", f("long-offset", s(b"1", b'start="8" end="10"', b'start="8" end="%s"' % LONG.encode())),
           "set 1: FE label Cognizer has a 5,000-digit end", skipped("malformed_annotation_set"), items=n - 1,
           base=base_id, message=f"{name}: sentence 0 (ID 0), annotationSet 0 (ID 1): label 'Cognizer': end=")
    c.case("semeval-target-without-labels", "semeval",
           f("target-without-labels", s(b"2", b'<label ID="4" name="Target" start="3" end="6"/>', b"")),
           "set 2: its only Target label removed", skipped("malformed_annotation_set"), items=n - 1, base=base_id,
           message=f"{name}: sentence 0 (ID 0), annotationSet 1 (ID 2): no Target label")
    c.case("semeval-without-frame-name", "semeval", f("without-frame-name", s(b"2", b' frameName="Assistance"', b"")),
           "set 2: frameName removed", skipped("malformed_annotation_set"), items=n - 1, base=base_id,
           message=f"{name}: sentence 0 (ID 0), annotationSet 1 (ID 2): no frameName attribute")
    text = re.search(rb"\n *<text>Your contribution[^<]*</text>", base)
    assert text is not None
    sets_1 = base[text.end():].count(b"<annotationSet ")
    c.case("semeval-sentence-without-text", "semeval", f("sentence-without-text", sub(base, text.group(0), b"")),
           "the <text> of sentence 1 removed", skipped("malformed_sentence"), items=n - sets_1, base=base_id,
           covered=sets_1, message=f"{name}: sentence 1 (ID 1): no <text> element")
    c.case("semeval-label-on-whitespace", "semeval", f("label-on-whitespace", s(b"1", b'start="8" end="10"', b'start="7" end="10"')),
           "set 1: FE label Cognizer starts on a space (the scorer takes character offsets as they are)", OK, items=n)
    c.case("semeval-duplicate-set-id", "semeval", f("duplicate-set-id", sub(base, b'<annotationSet ID="2" ', b'<annotationSet ID="1" ')),
           "set 2 renumbered 1 (the scorer ignores IDs)", OK, items=n)
    xxe = doctype(base, b"corpus", XXE)
    xxe = sub(xxe, b"<text>Your contribution", b"<text>&xxe;Your contribution")
    c.case("semeval-xxe", "semeval", f("xxe", xxe), "DOCTYPE with a SYSTEM entity (file:///etc/passwd) used in a text",
           error(f"{name}: refused: the document declares a DTD or entities"), items=0)
    laughs = doctype(base, b"corpus", LAUGHS)
    laughs = sub(laughs, b"<text>Your contribution", b"<text>&lol9;Your contribution")
    c.case("semeval-billion-laughs", "semeval", f("billion-laughs", laughs), "DOCTYPE with nested entities (billion laughs)",
           error(f"{name}: refused: the document declares a DTD or entities"), items=0)
    utf16 = xxe.decode("utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'", 1).encode("utf-16")
    c.case("semeval-xxe-utf16", "semeval", f("xxe-utf16", utf16), "the XXE document re-encoded as UTF-16",
           error(f"{name}: refused: the document declares a DTD or entities"), items=0)


def release_cases(c: Corpus, fulltext: bytes) -> None:
    def f(case: str, data: bytes) -> dict[str, str]:
        return {"zip": c.file(f"release-zip/{case}.zip", data)}

    readme = b"FrameNet Release 1.5 (cut down by scripts/make_malformed.py)\n"
    members = [("fndata-1.5/README.txt", readme), ("fndata-1.5/" + FULLTEXT, fulltext)]
    valid = make_zip(members)
    c.case("release-zip-valid", "release-zip", f("valid", valid), "none: a zip in ICSI's layout with one document",
           OK, items=6)
    c.case("release-zip-not-a-zip", "release-zip", f("not-a-zip", fulltext), "an XML file named .zip",
           error("not-a-zip.zip: cannot open zip"))
    c.case("release-zip-truncated", "release-zip", f("truncated", valid[:len(valid) // 2]), "the valid zip cut in half",
           error("truncated.zip: cannot open zip"))
    c.case("release-zip-not-framenet", "release-zip",
           f("not-framenet", make_zip([("data/README.md", b"# not FrameNet\n"), ("data/corpus.txt", b"Hello.\n")])),
           "a zip without fulltext/, lu/, frame/ or frRelation.xml",
           error("not-framenet.zip: not a FrameNet release (looked for fulltext/, lu/, frame/ or frRelation.xml "
                 "in it, in a folder directly inside it and in an NLTK framenet_v1N folder)"))
    c.case("release-zip-traversal", "release-zip", f("traversal", make_zip([*members, ("fndata-1.5/../../evil.xml", b"<evil/>\n")])),
           "an extra member fndata-1.5/../../evil.xml",
           error("traversal.zip: refused zip member with an unsafe name: 'fndata-1.5/../../evil.xml'"))
    c.case("release-zip-absolute", "release-zip", f("absolute", make_zip([*members, ("/tmp/evil.xml", b"<evil/>\n")])),
           "an extra member /tmp/evil.xml", error("absolute.zip: refused zip member with an unsafe name: '/tmp/evil.xml'"))
    member = "fndata-1.5/" + FULLTEXT
    c.case("release-zip-unknown-compression", "release-zip", f("unknown-compression", patch_member(valid, member, method=99)),
           "the document's compression method set to 99 (none zip knows)",
           error(f"unknown-compression.zip: cannot read {FULLTEXT}: That compression method is not supported"))
    c.case("release-zip-encrypted", "release-zip", f("encrypted", patch_member(valid, member, flags=1)),
           "the document flagged as encrypted", error(f"encrypted.zip: cannot read {FULLTEXT}: File"))
    c.case("release-zip-version-too-high", "release-zip", f("version-too-high", patch_member(valid, member, version=127)),
           "the document needs zip version 12.7 to be extracted",
           error("version-too-high.zip: cannot open zip: zip file version 12.7"))
    c.case("release-zip-empty-member-name", "release-zip", f("empty-member-name", make_zip([*members, ("", b"x")])),
           "an extra member with an empty name", error("empty-member-name.zip: refused zip member with an unsafe name: ''"))
    crc = bytearray(valid)
    at = valid.index(b"<text>Your contribution") + 6
    crc[at] = ord("y")
    c.case("release-zip-bad-crc", "release-zip", f("bad-crc", bytes(crc)), "one byte of the stored document changed (CRC mismatch)",
           error(f"bad-crc.zip: cannot read {FULLTEXT}: Bad CRC-32"))


# ----------------------------------------------------------------------------- main


def generate(fn15: Path, out: Path) -> None:
    release = open_release(fn15)
    fulltext = cut_fulltext(release.read(FULLTEXT), 2)
    lu = cut_lu(release.read(LU))
    frame = release.read(FRAME)
    relations = cut_relations(release.read("frRelation.xml"))
    for data, expected in ((fulltext, 6), (cut_fulltext(release.read(FULLTEXT), 3), 11)):
        result = read_annotations(data, FULLTEXT)
        if result.problems or result.not_annotation_sets or len(result.sets) != expected:
            raise SystemExit("make_malformed: the cut fulltext document is not the expected one")
    sets = [s for s in result.sets if invalid_reason(s) is None]
    formats = write_formats(sets)

    if out.exists():
        if any(out.iterdir()) and not (out / "cases.json").is_file():
            raise SystemExit(f"make_malformed: {out} is not empty and holds no cases.json; not overwriting it")
        shutil.rmtree(out)
    c = Corpus(out)
    fulltext_cases(c, fulltext)
    lu_cases(c, lu)
    frame_cases(c, frame)
    relation_cases(c, relations, relations.count(b"<frameRelation "))
    jsonl_cases(c, formats["train.jsonl"])
    semafor_cases(c, formats["train.frame.elements"], formats["train.sentences"])
    bios_cases(c, formats["train.bios"], formats["train.sentences"])
    conll_cases(c, "conllx", formats["train.sentences.conllx"], "train.sentences.conllx")
    conll_cases(c, "conllu", formats["train.conllu"], "train.conllu")
    semeval_cases(c, formats["test.gold.xml"])
    release_cases(c, fulltext)
    manifest = {
        "generator": "scripts/make_malformed.py",
        "source": f"FrameNet 1.5: {FULLTEXT} (first 2 sentences; the format files are pyfn's own, written from "
                  f"its first 3 sentences), {LU} (first 2 sentences, no valences), {FRAME}, "
                  "frRelation.xml (first 2 relation types, first 2 relations each)",
        "cases": c.cases,
    }
    (out / "cases.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fn15", type=Path,
                        default=Path(os.environ.get("PYFN_FN15", REPO.parent / "shared" / "data" / "fndata-1.5.zip")))
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "malformed")
    args = parser.parse_args(argv)
    generate(args.fn15, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
