"""Read per-topic scores (``system -> topic -> score``) from a TSV or JSON file.

TSV: one ``system<TAB>topic<TAB>score`` row per line; blank lines and lines
starting with ``#`` are skipped; a first row ``system<TAB>topic<TAB>score`` is
a header. JSON (``.json``, or text starting with ``{``): ``{system: {topic:
score}}``. Scores must be finite numbers; a (system, topic) pair appears once.
Errors name the file and the line (TSV) or the system and topic (JSON).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pyfn.errors import PyfnError
from pyfn.scoring.reproducibility import Runs

HEADER = ("system", "topic", "score")


def read_runs(path: Path) -> Runs:
    """Scores of every system on every topic, from a TSV or JSON file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PyfnError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise PyfnError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    runs = (
        _read_json(path, text)
        if path.suffix.lower() == ".json" or text.lstrip().startswith("{")
        else _read_tsv(path, text)
    )
    if not runs:
        raise PyfnError(f"{path}: no scores")
    return runs


def _score(value: str, where: str) -> float:
    try:
        score = float(value)
    except ValueError:
        raise PyfnError(f"{where}: score {value!r} is not a number") from None
    if not math.isfinite(score):
        raise PyfnError(f"{where}: score {value!r} is not a finite number")
    return score


def _read_tsv(path: Path, text: str) -> Runs:
    runs: Runs = {}
    first_line: dict[tuple[str, str], int] = {}
    header_allowed = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        fields = [f.strip() for f in line.split("\t")]
        if header_allowed and tuple(f.lower() for f in fields) == HEADER:
            header_allowed = False
            continue
        header_allowed = False
        if len(fields) != 3:
            raise PyfnError(f"{where}: expected 3 tab-separated columns (system, topic, score), got {len(fields)}")
        system, topic, value = fields
        if not system or not topic:
            raise PyfnError(f"{where}: empty system or topic name")
        key = (system, topic)
        if key in first_line:
            raise PyfnError(
                f"{where}: duplicate score for system {system!r}, topic {topic!r} (first on line {first_line[key]})"
            )
        first_line[key] = number
        runs.setdefault(system, {})[topic] = _score(value, where)
    return runs


class _Duplicate(Exception):
    """A key repeated inside one JSON object."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _read_json(path: Path, text: str) -> Runs:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise PyfnError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except _Duplicate as exc:
        raise PyfnError(f"{path}: duplicate key {exc.args[0]!r} (a system, or a topic of one system)") from None
    if not isinstance(data, dict):
        raise PyfnError(f"{path}: expected an object {{system: {{topic: score}}}}, got {type(data).__name__}")
    runs: Runs = {}
    for system, topics in data.items():
        if not isinstance(topics, dict) or not topics:
            raise PyfnError(f"{path}: system {system!r}: expected a non-empty object {{topic: score}}")
        for topic, value in topics.items():
            where = f"{path}: system {system!r}, topic {topic!r}"
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise PyfnError(f"{where}: score {value!r} is not a number")
            if not math.isfinite(value):
                raise PyfnError(f"{where}: score {value!r} is not a finite number")
            runs.setdefault(system, {})[topic] = float(value)
    return runs
