"""One lock per env: concurrent calls on one env run one after another.

Every public method of a vector env that reads or writes its kernel or state arrays holds
the env's reentrant lock (``env._lock``) for the whole call; a second thread calling into
the same env waits for it. Calls on different envs never wait for each other, and the
kernel releases the GIL for large batches, so they run in parallel. The single-env and
PettingZoo wrappers hold the lock of the vector env they drive.

A forked child has only the thread that forked: a lock another thread held at the fork
would stay held in the child forever, and the call that thread was making stopped half
done. After a fork, every env whose lock was held by another thread gets a new lock and
refuses every later call (its ``_forked_mid_call``); the other envs keep theirs, free.
"""

from __future__ import annotations

import functools
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

__all__ = ["Guarded", "new_lock", "synchronized"]

F = TypeVar("F", bound=Callable[..., Any])


class Guarded(Protocol):
    """What owns a lock of :func:`new_lock`: the lock, and what to do when a fork catches it held."""

    _lock: threading.RLock

    def _forked_mid_call(self, lock: threading.RLock) -> None:
        """Take ``lock`` for the old one and refuse every later call: a fork caught another thread in a call.

        Run in the child, whose only thread is the one that forked; the old lock stays held forever.
        """


# Every owner of a lock of new_lock(), for the fork handler; held weakly, so that an env is freed as before.
_OWNERS: weakref.WeakSet[Guarded] = weakref.WeakSet()


def new_lock(owner: Guarded) -> threading.RLock:
    """A lock for ``owner``, one env (reentrant: the env's methods call each other).

    The caller sets it as ``owner._lock``. In a child forked while another thread held it, the
    owner is handed a new lock (:class:`Guarded`).
    """
    _OWNERS.add(owner)
    return threading.RLock()


def _renew_locks_held_at_fork() -> None:
    """In a forked child: hand each owner whose lock another thread held at the fork a new lock."""
    for owner in list(_OWNERS):
        lock = getattr(owner, "_lock", None)  # None: forked before the owner set it, so nobody held it
        if lock is None:
            continue
        if lock.acquire(blocking=False):  # free, or held by the thread that forked, which goes on here
            lock.release()
        else:
            owner._forked_mid_call(threading.RLock())


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere there is no fork
    os.register_at_fork(after_in_child=_renew_locks_held_at_fork)


def synchronized(method: F) -> F:
    """``method`` run holding ``self._lock`` (the env's lock, or the lock of the env a wrapper drives)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    locked.__synchronized__ = True  # type: ignore[attr-defined]  # checked by tests/engine/test_concurrency.py
    return locked  # type: ignore[return-value]
