"""Exceptions raised by gridsim."""

from __future__ import annotations

__all__ = [
    "GridSimError",
    "InvalidActionError",
    "LevelError",
    "LevelNotFoundError",
    "PolicyError",
]


class LevelError(ValueError):
    """A level file or map text is malformed.

    Attributes:
        source: the file path, or ``"<string>"`` for inline text.
        line: 1-based line number in the source, or None when the error is not about one line.
        col: 1-based column, or None when the error is about a whole line.
        reason: the message without the location prefix.
    """

    def __init__(
        self, reason: str, source: str = "<string>", line: int | None = None, col: int | None = None
    ):
        self.source = source
        self.line = line
        self.col = col
        self.reason = reason
        where = source
        if line is not None:
            where += f":{line}"
            if col is not None:
                where += f":{col}"
        super().__init__(f"{where}: {reason}")


class LevelNotFoundError(FileNotFoundError):
    """No level matches a name; the message lists every path that was tried."""

    def __init__(self, name: str, tried: list[str]):
        self.name = name
        self.tried = list(tried)
        lines = "\n".join(f"  {p}" for p in self.tried)
        super().__init__(f"level {name!r} not found; tried:\n{lines}")


class InvalidActionError(ValueError, AssertionError):
    """An action is outside the action space (out of range, wrong shape or dtype, NaN).

    It is also an ``AssertionError``, which is what gridroboman raised for bad actions.
    """


class PolicyError(InvalidActionError):
    """A policy given to :func:`gridsim.evaluate` returned actions the env cannot take.

    The message names the policy and says what was wrong (shape, dtype or range). It is an
    :class:`InvalidActionError`, so code that catches bad actions catches it too.
    """


class GridSimError(RuntimeError):
    """The kernel reported an error code for one env.

    Attributes:
        env: index of the first env that reported the error.
        code: the kernel's error code (``gridsim._core.E_*``).
    """

    def __init__(self, message: str, env: int = -1, code: int = 0):
        self.env = env
        self.code = code
        super().__init__(message)
