"""Read the inputs of an audit, give ids their texts from the release, run the checks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pyfn.audit.checks import audit_items
from pyfn.audit.inputs import Read, read_input, resolve
from pyfn.audit.items import Item, is_framenet
from pyfn.audit.release_texts import ReleaseTexts
from pyfn.errors import UsageError
from pyfn.framenet.cache import ReleaseCache

Input = tuple[Path, str | None]
"""A path, and the split to take from it (None: every split it holds, or the one its name says)."""


def _gather(inputs: Sequence[Input], source: str | Path | None, flag: str, jobs: int,
            cache: ReleaseCache | None) -> tuple[dict[str, list[Item]], list[dict[str, Any]]]:
    """Every input read (all of them before any release is), then the ids given their texts."""
    reads: list[Read] = [read_input(Path(path), split) for path, split in inputs]
    with_ids = [r.path for r in reads if r.ids]
    if with_ids and source is None:
        raise UsageError(f"{with_ids[0]} holds only ids: give the FrameNet release they are ids of ({flag} RELEASE)")
    texts = None
    if with_ids:
        from pyfn.framenet.listing import open_cached  # noqa: PLC0415

        texts = ReleaseTexts(open_cached(source, cache), jobs, cache)
    splits: dict[str, list[Item]] = {}
    record = []
    for r in reads:
        found = {name: list(items) for name, items in r.items.items()}
        if texts is not None and r.ids:
            for name, items in resolve(r.ids, texts).items():
                found.setdefault(name, []).extend(items)
        for name, items in found.items():
            splits.setdefault(name, []).extend(items)
        record.append({"path": str(r.path), "kind": "ids" if r.ids else "annotations",
                       "splits": {name: len(items) for name, items in sorted(found.items())}})
    return splits, record


def audit(inputs: Sequence[Input], *, source: str | Path | None = None, against: Sequence[Input] = (),
          against_source: str | Path | None = None, examples: int = 3, jobs: int = 0,
          cache: ReleaseCache | None = None) -> dict[str, Any]:
    """Audit the splits of ``inputs`` (their ids read in the release ``source``); with ``against`` (a second
    set, its ids read in ``against_source``) also check (d). Returns the record ``--json`` prints."""
    if examples < 0:
        raise UsageError("--examples must be >= 0")
    if not inputs:
        raise UsageError("nothing to audit: give inputs, or --train/--dev/--test")
    splits, record = _gather(inputs, source, "--source", jobs, cache)
    other = None
    if against:
        other, other_record = _gather(against, against_source, "--against-source", jobs, cache)
        for name, items in (("the audited inputs", splits), ("--against", other)):
            if not any(is_framenet(it.sentence) for found in items.values() for it in found):
                raise UsageError(f"check (d) compares FrameNet ids, and {name} carry none (Open-SESAME CoNLL, SEMAFOR, "
                                 "BIOS and SemEval XML do not keep them)")
    result = audit_items(splits, examples=examples, against=other)
    result["inputs"] = record
    if against:
        result["against"] = other_record
    return result
