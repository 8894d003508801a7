"""One lock per env: concurrent calls on one env run one after another.

Every public method of a vector env that reads or writes its kernel or state arrays holds
the env's reentrant lock (``env._lock``) for the whole call; a second thread calling into
the same env waits for it. Calls on different envs never wait for each other, and the
kernel releases the GIL for large batches, so they run in parallel. The single-env and
PettingZoo wrappers hold the lock of the vector env they drive.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["new_lock", "synchronized"]

F = TypeVar("F", bound=Callable[..., Any])


def new_lock() -> threading.RLock:
    """A lock for one env (reentrant: the env's methods call each other)."""
    return threading.RLock()


def synchronized(method: F) -> F:
    """``method`` run holding ``self._lock`` (the env's lock, or the lock of the env a wrapper drives)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    locked.__synchronized__ = True  # type: ignore[attr-defined]  # checked by tests/engine/test_concurrency.py
    return locked  # type: ignore[return-value]
