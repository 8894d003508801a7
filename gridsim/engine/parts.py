"""The parts a vector env is made of, and the env's names that are theirs.

A :class:`Part` (the env's state I/O, its rendering, its level API) belongs to one env and
reaches it only through its public interface; its public methods hold the env's lock. A
:class:`Delegate` makes a part's method or property a name of the env's, so that
``env.state_dict()`` is ``env.state_io.state_dict()`` and the env's class lists the name in one line.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable
from types import MethodType
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from gridsim.errors import ClosedEnvError

__all__ = ["Delegate", "Part"]

E = TypeVar("E")
P = ParamSpec("P")
R = TypeVar("R")


class Part(Generic[E]):
    """One part of a vector env: :attr:`env` and the env's lock, which its public methods hold.

    Its methods take the lock with ``gridsim.engine.locking.synchronized``, as the env's own do.
    It refers to the env weakly, so that an env nothing else holds is freed (and closed) at once.

    Args:
        env: the env it belongs to.
        lock: the env's lock.
    """

    def __init__(self, env: E, lock: threading.RLock):
        self._env = weakref.ref(env)
        self._lock = lock  # what `synchronized` holds

    @property
    def env(self) -> E:
        """The env this part belongs to.

        Raises:
            ClosedEnvError: the env was freed (only a part kept after its env can see that).
        """
        env = self._env()
        if env is None:
            raise ClosedEnvError(f"the env of this {type(self).__name__} was freed")
        return env


class Delegate(Generic[P, R]):
    """A name of the env that is its part's: ``env.name(...)`` is ``getattr(env.<part>, name)(...)``.

    On the class it is the part's own function (or property), so its signature, its docstring
    and its lock are found where the env's are looked for (``help``, the API reference). On an
    env, a method is bound to the env, which it keeps alive for the call (``make_env().state_dict()``).

    Args:
        part: the attribute of the env that holds the part (``"state_io"``).
        member: the part's method or property of the same name.
    """

    def __init__(self, part: str, member: Callable[Concatenate[Any, P], R]):
        self.part = part
        self.member = member
        self.name = ""
        self.call: Callable[..., R] | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        if isinstance(self.member, property):
            return
        part = self.part

        @functools.wraps(self.member)
        def call(env, *args, **kwargs):
            return getattr(getattr(env, part), name)(*args, **kwargs)

        self.call = call

    @overload
    def __get__(self, env: None, owner: type | None = None) -> Callable[Concatenate[Any, P], R]: ...

    @overload
    def __get__(self, env: object, owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, env, owner=None):
        if env is None:
            return self.member
        if self.call is None:  # a property: its value
            return getattr(getattr(env, self.part), self.name)
        return MethodType(self.call, env)
