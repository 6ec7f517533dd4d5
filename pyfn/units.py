"""What every count of a manifest counts: the unit of each ledger, loss and skip reason.

The counts of a manifest are keyed by reason, and the reasons of one section
do not all count the same thing: ``semafor:normalized_space`` counts
sentences (lines of ``{split}.sentences``), ``partial_token_fe`` labels,
``bios:overlapping_fes`` annotation sets. :func:`manifest_units` names the
unit of every reason a manifest holds (its ``units`` section), and
:func:`describe` sums counts unit by unit, never across units.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

SENTENCES = "sentences"
SETS = "annotation sets"
LABELS = "labels"
FILES = "files"
LINES = "lines"
BLOCKS = "blocks"

UNITS: dict[str, str] = {
    # losses of the format writers (pyfn.formats)
    "normalized_space": SENTENCES,  # .sentences lines written with single spaces
    "partial_token_target": LABELS,
    "partial_token_fe": LABELS,
    "overlapping_fes": SETS,
    "frame_not_in_frames": SETS,
    "lu_not_in_frame": SETS,
    "fe_not_in_frame": SETS,
    "empty_split": FILES,  # a split file left unwritten
    "frame_not_in_lexicon": SETS,  # fnxml
    "lu_not_in_lexicon": SETS,
    "unannotated_exemplar": SETS,
    "duplicate_label": LABELS,
    "no_pos_layer": SENTENCES,
    # removals of the split builder (the ledger) and problems of the FrameNet reader
    "duplicate": SETS,
    "malformed_file": FILES,
    "malformed_sentence": SENTENCES,  # also a CoNLL block or a SemEval <sentence>
    "malformed_annotation_set": SETS,
    # bad items skipped by the readers of a directory of split files
    "malformed_line": LINES,  # JSON lines
    "duplicate_id": SETS,
    "empty_block": BLOCKS,
    "unterminated_block": BLOCKS,
    "bad_columns": BLOCKS,
    "bad_id": BLOCKS,
    "bad_sentence_number": BLOCKS,
    "bad_tag": BLOCKS,
    "bad_transition": BLOCKS,
    "form_mismatch": BLOCKS,
    "token_count": BLOCKS,
    "mixed_target": BLOCKS,
    "no_target": BLOCKS,
    "semafor:bad_number": LINES,  # a line of a SEMAFOR file read: one annotation set
    "semafor:bad_target": LINES,
    "semafor:field_count": LINES,
    "semafor:index_past_end": LINES,
    "semafor:kbest_line": LINES,
    "semafor:span_reversed": LINES,
    "semafor:unknown_sentence": LINES,
    "multiword_token": SENTENCES,
    "empty_node": SENTENCES,
    # repairs that made a parse one tree (preprocessing)
    "extra_roots": "tokens",
    "cycles": "cycles",
    "no_root": SENTENCES,
}
"""The unit of each reason (as written, or after a ``format:`` prefix of several formats' losses)."""

PREFIX_UNITS: dict[str, str] = {
    "invalid:": SETS,
    "excluded:": SETS,
    "filter:": SETS,
    "overlap:": SETS,
    "no_target:": SETS,
}
"""The unit of the reasons of a family (``invalid:whitespace_boundary``)."""


def unit_of(reason: str) -> str:
    """The unit ``reason`` counts (``bios:overlapping_fes``: annotation sets); ``unknown`` for a reason
    pyfn does not know."""
    candidates = (reason, reason.split(":", 1)[-1])
    for candidate in candidates:
        if candidate in UNITS:
            return UNITS[candidate]
    for candidate in candidates:
        for prefix, unit in PREFIX_UNITS.items():
            if candidate.startswith(prefix):
                return unit
    return "unknown"


def _reasons(by_split: Mapping[str, Mapping[str, int]]) -> list[str]:
    return sorted({reason for counts in by_split.values() for reason in counts})


def manifest_units(manifest: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The ``units`` section of a manifest: for each section of counts by reason, the unit of each reason."""
    units: dict[str, dict[str, str]] = {}
    for section in ("ledger", "losses"):
        if section in manifest:
            units[section] = {reason: unit_of(reason) for reason in _reasons(manifest[section])}
    if "skipped" in manifest:
        units["skipped"] = {reason: unit_of(reason) for reason in sorted(manifest["skipped"])}
    if "preprocessing" in manifest:
        repairs = {split: r.get("tree_repairs", {}) for split, r in manifest["preprocessing"]["splits"].items()}
        units["tree_repairs"] = {reason: unit_of(reason) for reason in _reasons(repairs)}
    return units


def by_reason(by_split: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    """Counts by split and reason summed over the splits."""
    totals: Counter = Counter()
    for counts in by_split.values():
        totals.update(counts)
    return dict(totals)


def describe(counts: Mapping[str, int]) -> str:
    """Counts by reason summed unit by unit: ``135 sentences and 8 labels`` (``nothing`` when all are 0)."""
    totals: Counter = Counter()
    for reason, n in counts.items():
        totals[unit_of(reason)] += n
    parts = [f"{n:,} {unit if n != 1 else unit.removesuffix('s')}"
             for unit, n in sorted(totals.items(), key=lambda item: (-item[1], item[0])) if n]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
