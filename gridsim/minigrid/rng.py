"""numpy's PCG64 state as the kernel stores it: one (6,) uint64 row per env.

The row is ``(state >> 64, state & mask, inc >> 64, inc & mask, has_uint32, uinteger)``;
:func:`to_numpy_state` gives ``numpy.random.PCG64().state``'s dict, :func:`from_numpy_state`
reads one. :func:`seeded` is ``Generator(PCG64(SeedSequence(seed)))``'s state, computed by the kernel.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel

__all__ = ["from_numpy_state", "seeded", "to_numpy_state"]

MASK64 = (1 << 64) - 1


def to_numpy_state(row: np.ndarray) -> dict[str, Any]:
    """The ``bit_generator.state`` dict of a kernel row."""
    w = [int(v) for v in row]
    return {"bit_generator": "PCG64", "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
            "has_uint32": w[4], "uinteger": w[5]}


def from_numpy_state(state: Mapping[str, Any]) -> np.ndarray:
    """A kernel row from a ``PCG64().state`` dict; ValueError, TypeError or KeyError if it is not one.

    The all-zero state of an env never seeded is accepted too, so that every state an env reads
    back (``get_state``) is one it takes.
    """
    if not isinstance(state, Mapping) or not isinstance(state.get("state"), Mapping):
        raise TypeError("a PCG64 state is a dict such as numpy.random.PCG64().state")
    name = state.get("bit_generator")
    if not isinstance(name, str) or name != "PCG64":
        raise ValueError(f"not a PCG64 state: bit_generator is {name!r}")
    s, inc = _integer(state["state"]["state"], "state"), _integer(state["state"]["inc"], "inc")
    has, cached = _integer(state["has_uint32"], "has_uint32"), _integer(state["uinteger"], "uinteger")
    never_seeded = s == inc == has == cached == 0  # what an env reads before its first seeded reset
    if not (0 <= s < 1 << 128 and 0 <= inc < 1 << 128 and (inc % 2 == 1 or never_seeded) and has in (0, 1)
            and 0 <= cached <= 0xFFFFFFFF):
        raise ValueError("state and inc are below 2**128 with inc odd (or every word 0: never seeded), "
                         "has_uint32 0 or 1, uinteger 32-bit")
    return np.array([s >> 64, s & MASK64, inc >> 64, inc & MASK64, has, cached], np.uint64)


def _integer(value: Any, name: str) -> int:
    # A float or a bool is no generator word (int() would truncate it silently).
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return int(value)


def seeded(seed: int) -> np.ndarray:
    """The kernel row of ``Generator(PCG64(SeedSequence(seed)))``."""
    row = np.zeros(6, np.uint64)
    _kernel.rng_seed(seed, row)
    return row
