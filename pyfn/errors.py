"""The one exception type pyfn lets reach its users."""


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
