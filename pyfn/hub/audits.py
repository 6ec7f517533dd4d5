"""The ``pyfn audit`` records of pyfn's and other projects' splits that the card compares.

``scripts/make_hub_audits.py`` writes them into ``resources/hub/audits.json``: for a
release, ``pyfn audit`` of the split ids of an export (``splits/fulltext``, ``splits/fulltext_exemplars``)
and, for FrameNet 1.7, of frame-semantic-transformer's split
(``scripts/fst_fn17_split.py``), each with the command that measured it and
the data signature audited.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from pyfn.resources import resource_path

AUDITS = ("hub", "audits.json")
HOW = "`pyfn audit` checks any split given as pyfn output, Open-SESAME CoNLL files or id lists."
PYFN_TWICE = ("pyfn's split keeps a set twice when FrameNet holds its sentence twice with different spacing "
              "(`non - nuclear` / `non-nuclear`): its duplicate rule compares target offsets in the raw text, as "
              "Kabbach et al.'s published counts do.")


@cache
def recorded() -> dict[str, Any]:
    """The shipped records, by release version."""
    return json.loads(resource_path(*AUDITS).read_text(encoding="utf-8"))


def _pair(checks: Mapping[str, Any], check: str, pairs: tuple[str, ...]) -> str:
    found = checks[check]
    if not found["run"]:
        return "-"
    return " / ".join(f"{found['pairs'].get(pair, {}).get('texts', 0):,}" for pair in pairs)


def row(label: str, audit: Mapping[str, Any]) -> list[str]:
    """A row of the card's table: sizes, exemplar texts in validation/test, texts shared, sets twice."""
    splits, checks = audit["splits"], audit["checks"]
    twice = checks["duplicates"]["splits"]
    return [
        label,
        " / ".join(f"{splits[s]['annotation_sets']:,}" for s in ("train", "dev", "test")),
        _pair(checks, "exemplar_overlap", ("train-dev", "train-test")),
        _pair(checks, "cross_split", ("train-dev", "train-test", "dev-test")),
        " / ".join(f"{twice[s]['annotation_sets']['groups']:,}" for s in ("train", "test")),
    ]


def _options(signature: str) -> str:
    """A data signature without its pyfn version (``|v:...``): the choices that shaped the data."""
    return "|".join(part for part in signature.split("|") if not part.startswith("v:"))


def audit_rows(version: str, fingerprint: str, signatures: Mapping[str, str]) -> tuple[list[list[str]], list[str]]:
    """The table rows recorded for FrameNet ``version`` and the notes that go with them: how they were
    measured, and whether they audited this folder's release (``fingerprint``) and data (``signatures``:
    config -> signature)."""
    release = recorded()["releases"].get(version)
    if release is None:
        return [], [f"No `pyfn audit` of a split of FrameNet {version} is recorded. {HOW}"]
    same = "this folder's" if release["fingerprint"] == fingerprint else "ANOTHER copy than this folder's"
    rows = [row(entry["label"], entry["audit"]) for entry in release["splits"]]
    notes = [" ".join(filter(None, (f"Measured on {release['release']}, {same} release (fingerprint "
                                    f"`{release['fingerprint'][:16]}...`).", release["note"], PYFN_TWICE)))]
    if all(entry["project"] == "pyfn" for entry in release["splits"]):
        notes[0] += (f" No audit of another project's split of FrameNet {version} is recorded "
                     f"(frame-semantic-transformer uses FrameNet 1.7 only). {HOW}")
    notes.append("")
    for entry in release["splits"]:
        notes.append(f"- {entry['label']}: `{entry['command']}`")
        config = entry.get("config")
        if config and _options(signatures.get(config, "")) != _options(entry["signature"]):
            notes.append(f"  (audited `{entry['signature']}`; this folder's `{config}` is `{signatures.get(config)}`: "
                         f"run `pyfn audit splits/{config} --source RELEASE` on it)")
    return rows, notes
