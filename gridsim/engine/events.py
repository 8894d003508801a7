"""Kernel-written events: the spec type and the decoders of the event buffers.

Every family's kernel can record what happened on a step as *events* (Lab2D's
``events:add``): a type (a 1-based position in the family's spec list, ``<family>/api.py``) and an
int32 payload of the spec's fields. They live in preallocated per-world buffers of the
batch state (``gridsim.engine.state.EVENT_FIELDS``); a world is an env for the
navigation and manipulation families and a kitchen (not a row) for the kitchen family:

=================  ===============  ================================================
``event_type``     int16 (U, E)     spec index + 1 of each recorded event, 0 unused
``event_payload``  int32 (U, E, F)  its fields, unused fields -1
``event_count``    int32 (U,)       events recorded for the world's last step
``event_dropped``  int64 (U,)       events lost to overflow, cumulative
=================  ===============  ================================================

Lifecycle:

* ``events=False`` (the default) skips every event write in the kernel; the counts stay 0.
* With events on, each world's count is cleared at the start of every step call (also
  for a world that only autoresets in that call, NEXT_STEP), and at an explicit reset
  of the world. An autoreset inside a step does not clear: under SAME_STEP the finishing
  step's events stay (resets record none).
* Reading never clears: :func:`decode_events` and :func:`batch_events` only copy.
* A step records at most ``E = max_events`` events per world; further events are dropped
  and counted in ``event_dropped`` (never cleared by the kernel).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from gridsim.errors import EnvIndexError

__all__ = [
    "EventSpec",
    "batch_events",
    "decode_events",
    "num_fields",
]


class EventSpec(NamedTuple):
    """One event kind: its name and the names of its int32 payload fields."""

    name: str
    fields: tuple[str, ...]


def num_fields(specs: Sequence[EventSpec]) -> int:
    """The payload width of a family: its largest field count, at least 1."""
    return max([1] + [len(s.fields) for s in specs])


def _count(state: Any, unit: int) -> int:
    return min(max(int(state.event_count[unit]), 0), int(state.max_events))


def _spec(specs: Sequence[EventSpec], kind: int) -> EventSpec:
    if not 1 <= kind <= len(specs):
        raise ValueError(f"event type {kind} is not in the family's event spec (1..{len(specs)})")
    return specs[kind - 1]


def decode_events(state: Any, specs: Sequence[EventSpec], unit: int) -> list[tuple[str, list[np.ndarray]]]:
    """The events of world ``unit``'s last step, in emission order, as Lab2D's binding gives them.

    Each event is ``(name, [payload])``: a list holding one int32 array of
    ``len(fields)`` values. Reading does not clear the buffer.
    """
    unit = int(unit)
    if not 0 <= unit < len(state.event_count):
        raise EnvIndexError(f"world index {unit} out of range for {len(state.event_count)} worlds")
    out = []
    for j in range(_count(state, unit)):
        spec = _spec(specs, int(state.event_type[unit, j]))
        payload = np.array(state.event_payload[unit, j, : len(spec.fields)], dtype=np.int32)
        out.append((spec.name, [payload]))
    return out


def batch_events(state: Any, specs: Sequence[EventSpec], units: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every recorded event of the batch as flat arrays, ordered by world and then by emission.

    Args:
        state: the batch state.
        specs: the family's event specs.
        units: the worlds to read, in this order (default: all). Kitchens are worlds;
            the caller maps them to rows.

    Returns:
        ``{"env": int32 (E,), "type": int16 (E,), "payload": int32 (E, K)}``: the world
        index of each event, its type (1-based index into ``specs``) and its payload,
        padded with -1 to K = the largest field count of ``specs``.
    """
    counts = np.clip(np.asarray(state.event_count, np.int64), 0, int(state.max_events))
    if units is None:
        units = np.arange(len(counts), dtype=np.int64)
    else:
        units = np.asarray(units, dtype=np.int64).reshape(-1)
    c = counts[units]
    total = int(c.sum())
    world = np.repeat(units, c)
    slot = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
    kinds = np.asarray(state.event_type)[world, slot].astype(np.int16)
    if total and (kinds.min() < 1 or kinds.max() > len(specs)):
        raise ValueError(f"event types {sorted(set(kinds.tolist()))} are not all in the family's spec "
                         f"(1..{len(specs)})")
    K = num_fields(specs)
    payload = np.full((total, K), -1, np.int32)
    width = min(K, state.event_payload.shape[2])
    payload[:, :width] = np.asarray(state.event_payload)[world, slot, :width]
    return {"env": world.astype(np.int32), "type": kinds, "payload": payload}
