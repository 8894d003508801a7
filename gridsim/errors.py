"""Exceptions raised by gridsim."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ClosedEnvError",
    "GridSimError",
    "InvalidActionError",
    "LevelError",
    "LevelNotFoundError",
    "PolicyError",
    "close_matches",
    "did_you_mean",
]


def close_matches(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The names in ``choices`` closest to ``name`` (:func:`difflib.get_close_matches`), best first."""
    return difflib.get_close_matches(name, list(choices), n=n)


def did_you_mean(matches: list[str]) -> str:
    """``"; did you mean 'a'?"`` (or ``'a' or 'b'``) for error messages, ``""`` without matches."""
    if not matches:
        return ""
    return "; did you mean " + " or ".join(repr(m) for m in matches) + "?"


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
    """No level matches a name; the message names the closest levels and lists every path tried.

    Attributes:
        name: the name as given.
        tried: every path that was tried.
        suggestions: the existing names closest to ``name``, best first (may be empty).
    """

    def __init__(self, name: str, tried: list[str], suggestions: list[str] | None = None):
        self.name = name
        self.tried = list(tried)
        self.suggestions = list(suggestions or [])
        lines = "\n".join(f"  {p}" for p in self.tried)
        # The suggestion stays on the first line, which is what the command line prints.
        super().__init__(f"level {name!r} not found{did_you_mean(self.suggestions)}; tried:\n{lines}")


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


class ClosedEnvError(GridSimError):
    """A method of an env was called after its ``close()``.

    It is a ``RuntimeError`` (through :class:`GridSimError`). Only ``close()`` itself, which
    is idempotent, and plain attributes (spaces, ``num_envs``) stay usable.
    """
