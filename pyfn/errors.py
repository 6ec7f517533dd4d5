"""The one exception type pyfn lets reach its users, and the log of skipped items."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class PyfnError(Exception):
    """A clear, one-line error naming the file and the item that failed.

    ``exit_code`` is 2 for usage errors (bad options, unknown names) and 1 for
    data errors (malformed input, missing files).
    """

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class UsageError(PyfnError):
    """A bad option or argument: exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=2)


@dataclass
class Problem:
    """A bad item that was skipped: ``reason`` is a short ledger key, ``where`` names file and item."""

    reason: str
    where: str
    message: str


@dataclass
class ProblemLog:
    """Collects skipped items; with ``strict`` the first one raises :class:`PyfnError` instead."""

    strict: bool = False
    problems: list[Problem] = field(default_factory=list)

    def add(self, reason: str, where: str, message: str) -> None:
        """Record a skipped item (or raise, when strict). ``message`` must name file and item."""
        if self.strict:
            raise PyfnError(f"{message} (--strict)")
        self.problems.append(Problem(reason, where, message))

    def counts(self) -> dict[str, int]:
        """Skipped items by reason, sorted by reason."""
        return dict(sorted(Counter(p.reason for p in self.problems).items()))
