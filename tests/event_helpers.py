"""Helpers for comparing kernel events (``gridsim.engine.events``) with the references' event lists."""

from __future__ import annotations

import numpy as np

from gridsim.engine.events import decode_events


def as_tuples(decoded: list) -> list[tuple[str, tuple[int, ...]]]:
    """Decoded events as ``(name, payload tuple)``, after checking Lab2D's binding shape."""
    out = []
    for name, payload in decoded:
        assert isinstance(name, str)
        assert isinstance(payload, list) and len(payload) == 1
        arr = payload[0]
        assert isinstance(arr, np.ndarray) and arr.dtype == np.int32 and arr.ndim == 1
        out.append((name, tuple(int(v) for v in arr)))
    return out


def kernel_events(state, specs, unit: int) -> list[tuple[str, tuple[int, ...]]]:
    """World ``unit``'s events of the last step as ``(name, payload tuple)``."""
    return as_tuples(decode_events(state, specs, unit))


def expected_with_capacity(events: list, capacity: int) -> tuple[list, int]:
    """What a buffer of ``capacity`` slots keeps of a step's events, and how many it drops."""
    return list(events[:capacity]), max(len(events) - capacity, 0)
