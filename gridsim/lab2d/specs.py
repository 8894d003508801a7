"""The value types of the level API: specs, result codes, statuses and property errors."""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from gridsim.errors import GridSimError

__all__ = [
    "ActionSpec",
    "EnvironmentStatus",
    "ObsSpec",
    "PropertyAttribute",
    "PropertyNotFoundError",
    "PropertyPermissionError",
    "PropertyResult",
    "PropertyValueError",
    "property_error",
]


class ObsSpec(NamedTuple):
    """One named observation of one env: ``shape`` uses -1 for a dimension that varies."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]


class ActionSpec(NamedTuple):
    """One named action component with inclusive bounds (ints for discrete, floats for continuous)."""

    name: str
    min: float
    max: float


class EnvironmentStatus(enum.IntEnum):
    """Where an env's episode stands (Lab2D's ``EnvironmentStatus``)."""

    RUNNING = 0
    TERMINATED = 1  # the episode reached a terminal state
    INTERRUPTED = 2  # the episode was truncated (and did not terminate)


class PropertyResult(enum.IntEnum):
    """Lab2D's property result codes."""

    SUCCESS = 0
    NOT_FOUND = 1
    PERMISSION_DENIED = 2
    INVALID_ARGUMENT = 3


class PropertyAttribute(enum.IntFlag):
    """What can be done with a property key (Lab2D's ``"r"``, ``"w"``, ``"l"``)."""

    NONE = 0
    READABLE = 1
    WRITABLE = 2
    LISTABLE = 4


class PropertyNotFoundError(GridSimError, KeyError):
    """No property has this key (``code`` is ``PropertyResult.NOT_FOUND``)."""

    code = PropertyResult.NOT_FOUND

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0]) if self.args else ""


class PropertyPermissionError(GridSimError, PermissionError):
    """The key exists but does not allow the operation (``code`` is ``PERMISSION_DENIED``)."""

    code = PropertyResult.PERMISSION_DENIED


class PropertyValueError(GridSimError, ValueError):
    """A bad value or index for a property (``code`` is ``PropertyResult.INVALID_ARGUMENT``)."""

    code = PropertyResult.INVALID_ARGUMENT


_ERRORS = {
    PropertyResult.NOT_FOUND: PropertyNotFoundError,
    PropertyResult.PERMISSION_DENIED: PropertyPermissionError,
    PropertyResult.INVALID_ARGUMENT: PropertyValueError,
}


def property_error(code: PropertyResult, message: str) -> Exception:
    """The exception of a result code."""
    return _ERRORS[code](message)
