"""Exceptions raised by gridsim.

Every error gridsim raises for bad input derives from :class:`GridSimError` and also from the
builtin exception people already catch for that kind of mistake, as numpy's and pandas' errors do:

- :class:`LevelError` (``ValueError``): a malformed level file or map text.
- :class:`LevelNotFoundError` (``FileNotFoundError``): no level has that name.
- :class:`InvalidActionError` (``ValueError``, ``AssertionError``): an action outside the action
  space; :class:`PolicyError` is one returned by a policy given to :func:`gridsim.evaluate`.
- :class:`InvalidStateError` (``ValueError``): a state given to ``set_state``,
  ``load_state_dict`` or a state property that breaks the family's invariants.
- :class:`ClosedEnvError` (``RuntimeError``): a method called after ``close()``;
  :class:`ForkedEnvError` is one called in a forked child on an env that another thread of the
  parent was in a call on at the fork.
- :class:`KernelError` (``RuntimeError``): the kernel reported an error code for one env.
- :class:`InvalidArgumentError` (``ValueError``) and :class:`ArgumentTypeError` (``TypeError``): a
  constructor argument, keyword argument or option with a bad value or of the wrong type.
- :class:`EnvIndexError` (``IndexError``): an env index outside the batch.
- :class:`NameNotFoundError` (``KeyError``): an observation name the env does not have.
- :class:`ReadOnlyAttributeError` (``AttributeError``): a write to an attribute that only shows
  the env's state (a MiniGrid env's grid, say); the message says how to change it instead.

``gridsim.SettingsError`` (a setting) and the property errors of the level API
(``gridsim.lab2d.PropertyNotFoundError``, ...) derive from :class:`GridSimError` too. docs/errors.md
lists them all.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ArgumentTypeError",
    "ClosedEnvError",
    "EnvIndexError",
    "ForkedEnvError",
    "GridSimError",
    "InvalidActionError",
    "InvalidArgumentError",
    "InvalidStateError",
    "KernelError",
    "LevelError",
    "LevelNotFoundError",
    "NameNotFoundError",
    "PolicyError",
    "ReadOnlyAttributeError",
    "close_matches",
    "did_you_mean",
    "first_line",
]


def close_matches(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The names in ``choices`` closest to ``name`` (:func:`difflib.get_close_matches`), best first."""
    return difflib.get_close_matches(name, list(choices), n=n)


def first_line(error: BaseException) -> str:
    """An error's message as one line, as the ``gridsim`` commands print it: its first line.

    A level not found lists the paths it tried after its first line; an error without a
    message is named by its class.
    """
    text = str(error)
    return text.splitlines()[0].removesuffix("; tried:") if text.strip() else type(error).__name__


def did_you_mean(matches: list[str]) -> str:
    """``"; did you mean 'a'?"`` (or ``'a' or 'b'``) for error messages, ``""`` without matches."""
    if not matches:
        return ""
    return "; did you mean " + " or ".join(repr(m) for m in matches) + "?"


class GridSimError(Exception):
    """The base of every error gridsim raises for bad input or misuse.

    Catch it to catch them all; each subclass also derives from the builtin exception that
    fits its kind of mistake (``ValueError``, ``FileNotFoundError``, ``RuntimeError``, ...).
    """


class LevelError(GridSimError, ValueError):
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


class LevelNotFoundError(GridSimError, FileNotFoundError):
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


class InvalidActionError(GridSimError, ValueError, AssertionError):
    """An action is outside the action space (out of range, wrong shape or dtype, NaN).

    It is also an ``AssertionError``, which is what gridroboman raised for bad actions.
    """


class PolicyError(InvalidActionError):
    """A policy given to :func:`gridsim.evaluate` returned actions the env cannot take.

    The message names the policy and says what was wrong (shape, dtype or range). It is an
    :class:`InvalidActionError`, so code that catches bad actions catches it too.
    """


class InvalidStateError(GridSimError, ValueError):
    """A state given to ``set_state``, ``load_state_dict`` or a state property is invalid.

    Raised before anything changes. The message names the field, the env and the allowed range.

    Attributes:
        field: the state field that is wrong (``"agent_cell"``, ``"seeds"``, ...).
        env: index of the first env whose value is wrong, or None when it is not about one env.
    """

    code: int | None = None  # the level API's result code, set when write_property raises it

    def __init__(self, message: str, field: str = "", env: int | None = None):
        self.field = field
        self.env = env
        super().__init__(message)


class KernelError(GridSimError, RuntimeError):
    """The kernel reported an error code for one env.

    Attributes:
        env: index of the first env that reported the error.
        code: the kernel's error code (``gridsim._core.ERR_*``).
    """

    def __init__(self, message: str, env: int = -1, code: int = 0):
        self.env = env
        self.code = code
        super().__init__(message)


class ClosedEnvError(GridSimError, RuntimeError):
    """A method of an env was called after its ``close()``.

    It is a ``RuntimeError``. Only ``close()`` itself, which
    is idempotent, and plain attributes (spaces, ``num_envs``) stay usable.
    """


class ForkedEnvError(ClosedEnvError):
    """A method was called, in a forked child, on an env another thread was in a call on at the fork.

    The child has only the thread that forked: the call the other thread was making stopped
    half done, and the env's state may be half written, so in the child the env refuses every
    call as a closed one does (it is a :class:`ClosedEnvError`, a ``RuntimeError``); in the
    parent it goes on as before. Create a new env in the child, or fork when no other thread is
    in a call on it. The other envs work in the child as they did.
    """


class InvalidArgumentError(GridSimError, ValueError):
    """An argument has a bad value: ``num_envs=0``, ``max_episode_steps=2**40``, an unknown mode.

    Raised by constructors, :func:`gridsim.make`, ``gymnasium.make_vec`` keyword arguments and
    method arguments, before anything changes. It is a ``ValueError``.
    """


class ArgumentTypeError(GridSimError, TypeError):
    """An argument has the wrong type (a level that is neither a str nor a Path, say).

    It is a ``TypeError``, as Python's own for a call with the wrong arguments.
    """


class EnvIndexError(GridSimError, IndexError):
    """An env index is outside ``-num_envs..num_envs - 1`` (negative ones count from the end)."""


class NameNotFoundError(GridSimError, KeyError):
    """A name the env does not have, such as an observation name; the message lists the names it has."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0]) if self.args else ""


class ReadOnlyAttributeError(GridSimError, AttributeError):
    """A write to an attribute that shows the env's state but cannot change it; the message names the way that can.

    It is an ``AttributeError``, as Python's own for a read-only attribute.
    """
