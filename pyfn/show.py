"""``pyfn show ID``: where an annotation set, sentence or document went in a build, and why.

The splits are built again with a :class:`~pyfn.splits.trace.Trace` (through
the parsed-release cache, so a warm rebuild takes seconds), with the options
a conversion's ``manifest.json`` recorded (:func:`manifest_inputs`, checked
against the manifest's signature and ledger) or those given as to ``pyfn
convert``. :func:`show` answers with a JSON-ready report: for each set, the
split its document went to and either ``kept`` or the SPLITS.md step and
ledger reason that removed it, with the set a duplicate lost to or the dev or
test sentences an overlap matched; for a kept set, what each output format
loses of it (:func:`format_losses`). :func:`render` prints the report.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pyfn.errors import PyfnError, UsageError
from pyfn.formats.base import Losses, SplitView
from pyfn.formats.registry import WRITERS, FormatOptions, write_split
from pyfn.formats import jsonl
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.cache import ReleaseCache
from pyfn.framenet.release import Release
from pyfn.manifest import MANIFEST, read_manifest
from pyfn.model import AnnotationSet
from pyfn.splits.builder import SPLITS, BuildOptions, BuildResult, build_splits
from pyfn.splits.definitions import SplitDefinition
from pyfn.splits.options import recorded_options
from pyfn.splits.trace import Fate, Trace

KINDS = ("auto", "annotation-set", "sentence", "document")
"""What an id names (``auto``: whatever it matches)."""
SOURCES = ("fulltext", "exemplar")


@dataclass(frozen=True)
class Inputs:
    """What :func:`show` rebuilds: the options and formats, and where they came from."""

    options: BuildOptions
    split: dict[str, Any]
    """The split definition's kind, seed, folds and fold, as a manifest's ``options.split`` records them."""
    formats: tuple[str, ...]
    format_options: FormatOptions
    manifest: dict[str, Any] | None = None
    manifest_path: Path | None = None


def manifest_inputs(path: Path, jobs: int = 0) -> tuple[str, Inputs]:
    """The release path and the build options a conversion's manifest records (``path``: the
    manifest or its folder); an error when it is not the manifest of a build from FrameNet XML."""
    path = Path(path)
    if not path.exists():
        raise PyfnError(f"{path}: no such file or directory")
    folder = path if path.is_dir() else path.parent
    if not path.is_dir() and path.name != MANIFEST:
        raise UsageError(f"{path}: give a conversion folder or its {MANIFEST}")
    manifest = read_manifest(folder)
    if manifest is None:
        raise PyfnError(f"{folder}: no {MANIFEST}: not a finished pyfn output")
    where = folder / MANIFEST
    if manifest.get("from") != "fnxml" or "ledger" not in manifest or "options" not in manifest:
        raise PyfnError(f"{where}: not the manifest of splits built from a FrameNet release "
                        f"(from {manifest.get('from')!r}): there is no build to trace")
    recorded = dict(manifest["options"])
    split = recorded.pop("split", {"kind": "standard"})
    try:
        options = recorded_options(recorded, jobs)
        format_options = FormatOptions(**manifest.get("format_options", {}))
    except (KeyError, TypeError) as exc:
        raise PyfnError(f"{where}: options unreadable ({exc}): not a manifest this pyfn wrote") from None
    formats = tuple(fmt for fmt in str(manifest.get("to", "")).split("+") if fmt in WRITERS)
    source = manifest.get("source", {}).get("resolved") or manifest.get("source", {}).get("path")
    inputs = Inputs(options, split, formats, format_options, manifest, where)
    return source, inputs


def check_against_manifest(release: Release, result: BuildResult, inputs: Inputs) -> None:
    """Refuse a rebuild that is not the build the manifest records (another release, another pyfn)."""
    from pyfn.convert import build_signature  # noqa: PLC0415 - convert imports much
    from pyfn.manifest import fingerprint  # noqa: PLC0415

    manifest = inputs.manifest
    assert manifest is not None
    where = inputs.manifest_path
    if fingerprint(result.files) != manifest.get("release", {}).get("fingerprint"):
        raise PyfnError(f"{where}: {release.path} is not the release this conversion read (its files' fingerprint "
                        "differs): give the release it names with --source")
    if build_signature(release, result) != manifest.get("signature"):
        raise PyfnError(f"{where}: the rebuild's signature {build_signature(release, result)} is not the recorded "
                        f"{manifest.get('signature')} (another pyfn version?): its fates would not be this "
                        "conversion's")
    if result.ledger != manifest.get("ledger"):
        raise PyfnError(f"{where}: the rebuild's ledger differs from the recorded one: its fates would not be this "
                        "conversion's")


def show(
    release: Release, definition: SplitDefinition, inputs: Inputs, ident: str, *, kind: str = "auto",
    source: str | None = None, cache: ReleaseCache | None = None, progress: Callable = lambda items, total: items,
) -> dict[str, Any]:
    """The report on ``ident`` (an annotation-set, sentence or document id, or a document's file name)
    in the splits of ``release`` built under ``definition`` with ``inputs``; an error naming the id
    when nothing matches."""
    if kind not in KINDS:
        raise UsageError(f"unknown id kind {kind!r} (known: {', '.join(KINDS)})")
    if source is not None and source not in SOURCES:
        raise UsageError(f"unknown source {source!r} (known: {', '.join(SOURCES)})")
    options = inputs.options
    if source == "exemplar" and not options.with_exemplars:
        raise UsageError("--from-source exemplar: this build reads no exemplars (they go to train only with "
                         "--with-exemplars)")
    number = int(ident) if ident.lstrip("-").isdigit() else None
    if number is None and kind in ("annotation-set", "sentence"):
        raise UsageError(f"{ident!r} is not an integer {kind} id")
    trace = Trace()
    result = build_splits(release, definition, options, progress, cache=cache, trace=trace)
    if inputs.manifest is not None:
        check_against_manifest(release, result, inputs)
    matches = [(what, found, [f for f in fates if source is None or f.source == source])
               for what, found, fates in _matches(trace, ident, number, kind)]
    matches = [(what, found, fates) for what, found, fates in matches if fates]
    if not matches:
        read = "fulltext and exemplars" if options.with_exemplars else "fulltext (no exemplars: --with-exemplars)"
        what = "annotation set, sentence or document" if kind == "auto" else kind.replace("-", " ")
        only = "" if set(options.splits) == set(SPLITS) else f", splits {' '.join(options.splits)} only"
        raise PyfnError(f"{ident}: no {what} with this id in {release.path} (read: {read}"
                        f"{f', {source} only' if source else ''}{only})")
    losses = _Losses(release, inputs)
    report_matches = []
    for what, found, fates in matches:
        entry: dict[str, Any] = {"kind": what, "id": found}
        if what == "document":
            entry["split"] = trace.files.get(found)
            entry["counts"] = dict(sorted(Counter(f.reason for f in fates if f.set_id is not None).items()))
        entry["sets"] = [_item(release, fate, options, losses if what == "annotation-set" else None) for fate in fates]
        report_matches.append(entry)
    return {
        "query": ident,
        "kind": kind,
        "source_filter": source,
        "build": {
            "release": str(release.path),
            "options": "manifest" if inputs.manifest is not None else "computed",
            "manifest": str(inputs.manifest_path) if inputs.manifest_path else None,
            "split_definition": definition.name,
            "splits": list(options.splits),
            "exemplars": options.with_exemplars,
            "formats": list(inputs.formats),
        },
        "matches": report_matches,
    }


def _matches(trace: Trace, ident: str, number: int | None, kind: str) -> list[tuple[str, Any, list[Fate]]]:
    """``(kind, id, fates)`` of everything ``ident`` may name (``kind`` auto) or of the kind asked for."""
    found: list[tuple[str, Any, list[Fate]]] = []
    if number is not None and kind in ("auto", "annotation-set"):
        found.append(("annotation-set", number, trace.fates(set_ids=[number])))
    if number is not None and kind in ("auto", "sentence"):
        found.append(("sentence", number, trace.fates(sentence_ids=[number])))
    if kind in ("auto", "document"):
        found.extend(("document", path, trace.fates(paths=[path])) for path in _documents(trace, ident, number))
    return found


class _Losses:
    """Format losses of kept sets, with the release's frames read once when a format needs them."""

    def __init__(self, release: Release, inputs: Inputs) -> None:
        self.release = release
        self.formats = inputs.formats
        self.options = inputs.format_options

    def of(self, aset: AnnotationSet, split: str) -> dict[str, dict[str, int] | str]:
        if self.options.frames is None and {"bios", "parquet"} & set(self.formats):
            from pyfn.convert import read_frames  # noqa: PLC0415 - convert imports much

            self.options = replace(self.options, frames=read_frames(self.release))
        return format_losses(aset, split, self.formats, self.options)


def _item(release: Release, fate: Fate, options: BuildOptions, losses: _Losses | None) -> dict[str, Any]:
    """One set of the report: its fate, sentence, brackets and (kept, with ``losses``) format losses."""
    item = fate.record()
    aset = _set_of(release, fate)
    if aset is not None:
        item.update(lu=aset.lu_name, frame=aset.frame_name, text=aset.sentence.text, bracketed=bracketed(aset))
    elif fate.sentence_id is not None:
        item["text"] = _sentence_text(release, fate)
    if fate.reason == "kept":
        item["written"] = fate.split in options.splits
        if losses is not None and item["written"] and aset is not None:
            item["losses"] = losses.of(aset, fate.split)
    return item


def _documents(trace: Trace, ident: str, number: int | None) -> list[str]:
    """The files ``ident`` names: by file name (with or without ``.xml`` or folder), or by FrameNet document ID."""
    names = {ident, f"{ident}.xml", f"fulltext/{ident}", f"fulltext/{ident}.xml"}
    found = [path for path in trace.files if path in names or path.rsplit("/", 1)[-1] in names]
    if number is not None:
        found += trace.document_paths(number)
    return sorted(set(found))


def _set_of(release: Release, fate: Fate) -> AnnotationSet | None:
    """The set of ``fate``: from its JSON line, else (dropped while reading) read again from its file."""
    if fate.line is not None:
        return jsonl.loads(fate.line)
    if fate.set_id is None:
        return None
    found = read_annotations(release.read(fate.path), fate.path)
    return next((s for s in found.sets if s.id == fate.set_id and s.sentence.id == fate.sentence_id), None)


def _sentence_text(release: Release, fate: Fate) -> str | None:
    try:
        return read_annotations(release.read(fate.path), fate.path).texts.get(fate.sentence_id)
    except PyfnError:
        return None


def bracketed(aset: AnnotationSet) -> str:
    """The sentence with the target and each overt FE in brackets: ``[Donor Kim] [TARGET gave] ...``
    (an FE of layer rank 2 or more is named ``Name/rank``; labels whose offsets do not fit the text
    are listed after it)."""
    text = aset.sentence.text
    spans = [(s, e, "TARGET") for s, e in aset.target]
    spans += [(lb.start, lb.end, lb.name if rank == 1 else f"{lb.name}/{rank}") for rank, lb in aset.overt_fes]
    opens: dict[int, list[tuple[int, str]]] = {}
    closes: Counter = Counter()
    misplaced = []
    for start, end, name in spans:
        if 0 <= start <= end < len(text):
            opens.setdefault(start, []).append((end, name))
            closes[end + 1] += 1
        else:
            misplaced.append(f"{name} {start}-{end}")
    out = []
    for i in range(len(text) + 1):
        out.append("]" * closes[i])
        for _, name in sorted(opens.get(i, ()), key=lambda item: (-item[0], item[1])):
            out.append(f"[{name} ")
        if i < len(text):
            out.append(text[i])
    line = "".join(out).rstrip()
    return f"{line}  (offsets outside the text: {', '.join(misplaced)})" if misplaced else line


def format_losses(aset: AnnotationSet, split: str, formats: tuple[str, ...], options: FormatOptions,
                  ) -> dict[str, dict[str, int] | str]:
    """What each format of ``formats`` loses of ``aset`` written alone as ``split`` (``{}``: nothing),
    or why it does not write it."""
    out: dict[str, dict[str, int] | str] = {}
    with tempfile.TemporaryDirectory(prefix="pyfn-show-") as scratch:
        for fmt in formats:
            if fmt == "semeval" and split == "train":
                out[fmt] = "not written for train"
                continue
            try:
                _, found = write_split(Path(scratch), split, SplitView.of([aset]), (fmt,), options)
            except PyfnError as exc:
                out[fmt] = f"refused: {exc}"
                continue
            lost = found.get(fmt, Losses()).as_dict()
            lost.pop("empty_split", None)  # the one-set split left empty by a loss: not a loss of its own
            out[fmt] = lost
    return out


def render(report: dict[str, Any]) -> str:
    """The report as text, one block per match."""
    build = report["build"]
    origin = f"the options of {build['manifest']}" if build["manifest"] else "the options given (no manifest)"
    read = "fulltext and exemplars" if build["exemplars"] else "fulltext only (exemplars need --with-exemplars)"
    lines = [f"{build['release']}, split {build['split_definition']}, {origin}; read: {read}"]
    for match in report["matches"]:
        lines.append("")
        if match["kind"] == "annotation-set":
            if len(match["sets"]) > 1:
                hint = " (--from-source picks one)" if len({item["source"] for item in match["sets"]}) > 1 else ""
                lines.append(f"{match['id']} names {len(match['sets'])} annotation sets{hint}:")
            for i, item in enumerate(match["sets"]):
                lines.extend(([""] if i else []) + _set_block(item))
            continue
        by_file: dict[str, list[dict]] = {}
        for item in match["sets"]:
            by_file.setdefault(item["file"], []).append(item)
        if match["kind"] == "sentence":
            for path, items in by_file.items():
                lines.append(f"sentence {match['id']} ({path}, {items[0]['split']}): {len(items)} annotation sets")
                if items[0].get("text") is not None:
                    lines.append(f"  {items[0]['text'].rstrip()}")
                lines.extend(f"  {_compact(item)}" for item in items)
            continue
        counts = ", ".join(f"{n} {reason}" for reason, n in match["counts"].items())
        sentences: dict[Any, list[dict]] = {}
        for item in match["sets"]:
            sentences.setdefault(item["sentence"], []).append(item)
        lines.append(f"document {match['id']} ({match['split']}): {len(sentences)} sentences, "
                     f"{sum(match['counts'].values())} annotation sets: {counts}")
        for sentence, items in sentences.items():
            kept = [str(item["annotation_set"]) for item in items if item["reason"] == "kept"]
            removed = [_short(item) for item in items if item["reason"] != "kept"]
            parts = ([f"kept {' '.join(kept)}"] if kept else []) + removed
            lines.append(f"  sentence {sentence}: {'; '.join(parts)}")
    return "\n".join(lines) + "\n"


def _detail(item: dict[str, Any], short: bool = False) -> str:
    """What a removed set lost to: the kept duplicate, or the sentences of dev or test."""
    other = item["counterpart"]
    if other is None:
        return ""
    if "annotation_set" in other:
        if short:
            return f" of {other['annotation_set']}"
        same = "same FE labels" if other["same_fes"] else "different FE labels"
        return (f": a duplicate of annotation set {other['annotation_set']} ({other['file']}, sentence "
                f"{other['sentence']}; {same}), which {item['split']} kept")
    found = ", ".join(f"sentence {s['sentence']} of {s['file']}" for s in other["sentences"])
    return f" ({found})" if short else f": its sentence is {other['split']}'s {found}"


def _fate_text(item: dict[str, Any]) -> str:
    if item["reason"] == "kept":
        return f"kept in {item['split']}" + ("" if item["written"] else " (a split this build does not write)")
    return f"REMOVED from {item['split']} at step {item['step']} ({item['reason']}){_detail(item)}"


def _short(item: dict[str, Any]) -> str:
    who = str(item["annotation_set"]) if item["annotation_set"] is not None else {
        "malformed_sentence": "the whole sentence", "malformed_file": "the whole file"}.get(item["reason"], "a set")
    return f"{item['reason']} {who}{_detail(item, short=True)}"


def _set_block(item: dict[str, Any]) -> list[str]:
    where = f"{item['file']}, sentence {item['sentence']}"
    lines = [f"annotation set {item['annotation_set']} ({where}): {_fate_text(item)}"]
    if "lu" in item:
        lines.append(f"  {item['lu']} ({item['frame']})")
        lines.append(f"  {item['bracketed']}")
    elif item.get("text") is not None:
        lines.append(f"  {item['text'].rstrip()}")
    for fmt, lost in item.get("losses", {}).items():
        if isinstance(lost, str):
            lines.append(f"  {fmt}: {lost}")
        else:
            lines.append(f"  {fmt}: " + (", ".join(f"{reason} {n}" for reason, n in lost.items()) or "nothing lost"))
    return lines


def _compact(item: dict[str, Any]) -> str:
    if item["annotation_set"] is None:
        return _short(item)
    what = f" {item['lu']} ({item['frame']})" if "lu" in item else ""
    return f"set {item['annotation_set']}{what}: {_fate_text(item)}"
