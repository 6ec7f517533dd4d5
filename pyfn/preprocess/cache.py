"""On-disk cache of preprocessing results, keyed by content hash and checked on every read.

The key is the sha256 of the backend's description (backend, model, versions)
and of the sentences' tokens: the same sentences through the same model hit
the cache, any change misses it. An entry is one file: a JSON header line
(key, sentence count, sha256 of the body) then one JSON line per sentence. A
truncated or corrupted entry fails its hash, is reported, removed and
recomputed: never used.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from sys import intern

from pyfn.fileio import atomic_writer
from pyfn.model import TokenAnnotation
from pyfn.preprocess.base import Analysis

FORMAT = 1
"""Version of the entry layout; part of every key."""


def default_cache_dir() -> Path:
    """``$PYFN_CACHE/preprocess``, else ``~/.cache/pyfn/preprocess`` (XDG_CACHE_HOME honoured)."""
    root = os.environ.get("PYFN_CACHE")
    if root:
        return Path(root) / "preprocess"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pyfn" / "preprocess"


def cache_key(description: Mapping[str, str], sentences: Sequence[Sequence[str]]) -> str:
    """sha256 over the entry format, the backend description and every sentence's tokens."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"format": FORMAT, **description}, sort_keys=True).encode())
    for words in sentences:
        digest.update(b"\n")
        digest.update(" ".join(words).encode())
    return digest.hexdigest()


def _encode(analysis: Analysis) -> str:
    return json.dumps([[a.lemma, a.upos, a.xpos, a.head, a.deprel] for a in analysis], ensure_ascii=False,
                      separators=(",", ":"))


def _decode(line: str) -> Analysis:
    return tuple(TokenAnnotation(*(intern(v) if isinstance(v, str) else v for v in row)) for row in json.loads(line))


class ParseCache:
    """Entries under one directory; ``problems`` lists the entries found corrupt."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.problems: list[str] = []

    def path(self, key: str) -> Path:
        """Where the entry of ``key`` lives."""
        return self.directory / key[:2] / f"{key}.jsonl"

    def get(self, key: str, n_sentences: int) -> list[Analysis] | None:
        """The analyses stored under ``key``, or None when absent or corrupt (then removed)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.problems.append(f"{path}: unreadable cache entry ({exc.strerror or exc}); recomputed")
            return None
        header, _, body = data.partition(b"\n")
        try:
            meta = json.loads(header)
            ok = (meta.get("key") == key and meta.get("sentences") == n_sentences
                  and meta.get("sha256") == hashlib.sha256(body).hexdigest())
            analyses = [_decode(line) for line in body.decode("utf-8").splitlines()] if ok else None
        except (ValueError, TypeError, UnicodeDecodeError):
            analyses = None
        if analyses is None or len(analyses) != n_sentences:
            self.problems.append(f"{path}: corrupt cache entry (hash, count or content mismatch); removed and recomputed")
            path.unlink(missing_ok=True)
            return None
        return analyses

    def put(self, key: str, analyses: Sequence[Analysis]) -> None:
        """Store ``analyses`` under ``key`` (atomically: a failed write leaves no entry), line by line."""
        digest = hashlib.sha256()
        for analysis in analyses:
            digest.update(_encode(analysis).encode("utf-8") + b"\n")
        header = json.dumps({"key": key, "sentences": len(analyses), "sha256": digest.hexdigest()})
        with atomic_writer(self.path(key), "wb") as handle:
            handle.write(header.encode() + b"\n")
            for analysis in analyses:
                handle.write(_encode(analysis).encode("utf-8") + b"\n")
