"""Batch state: every array of a batch, declared once in field tables, struct of arrays, env axis first.

Coordinates are ``(row, col)`` everywhere, row 0 at the top. numpy allocates and owns
every byte; the kernel (``gridsim._core``) binds typed views once and writes in place,
so arrays are never replaced after construction, only written (``np.copyto``).

A family's state class (``gridsim.<family>.state``) subclasses :class:`BatchState` and
declares its own arrays in ``FIELDS``; the arrays the kernel skeleton
(``gridsim/_engine.pxi``) reads and writes for every family (episode bookkeeping, event
buffers, step outputs) are declared here. Allocation, ``state_dict()`` (the fields
marked ``saved``) and the bytes-per-env figure all follow from the tables.

Shape symbols: ``U`` worlds (an env, or a kitchen), ``R`` output rows (one per env, or per
kitchen agent), ``E`` event slots and ``F`` event fields per world; ``obs`` stands for the
observation's shape and dtype; families add their own (``C`` cells, ``A`` agents, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.errors import InvalidArgumentError

__all__ = ["BatchState", "Field", "episode_limit"]


@dataclass(frozen=True)
class Field:
    """One array of a batch state.

    Attributes:
        name: the attribute (and ``state_dict`` key).
        dtype: its numpy dtype, or ``"obs"`` for the observation's.
        shape: dimensions: ints, or symbols resolved per batch (``"U"``, ``"R"``, ``"obs"``, ...).
        doc: what it holds, for people.
        fill: the value it starts with.
        saved: part of the batch's dynamic state (``state_dict``); False for per-env
            indices fixed at construction and scratch space the kernel rewrites.
    """

    name: str
    dtype: Any
    shape: tuple[int | str, ...]
    doc: str
    fill: Any = 0
    saved: bool = True

    def allocate(self, dims: Mapping[str, Any]) -> np.ndarray:
        """The array, its symbols resolved by ``dims``."""
        shape: list[int] = []
        for d in self.shape:
            if d == "obs":
                shape.extend(dims["obs"])
            else:
                shape.append(int(dims[d]) if isinstance(d, str) else d)
        dtype = dims["obs_dtype"] if self.dtype == "obs" else self.dtype
        return np.full(tuple(shape), self.fill, dtype)


# The episode bookkeeping of every world (the kernel skeleton reads and writes it).
# Event slots per world and step: far more than a step writes, and the buffers stay allocatable.
MAX_EVENTS_PER_STEP = 4096

EPISODE_FIELDS = (
    Field("episode", np.int64, ("U",), "episode counter of the world's key"),
    Field("key", np.uint64, ("U", 2), "128-bit key of the world's random streams"),
    Field("rng", np.uint64, ("U",), "episode stream state"),
    Field("ep_return", np.float64, ("U",), "return of the current episode so far"),
    Field("needs_reset", np.bool_, ("U",), "ended: reset pending (NEXT_STEP) or required (DISABLED)"),
    Field("reseed", np.bool_, ("U",), "draw the per-seed tables at the next reset"),
    Field("seeded", np.bool_, ("U",), "the world has a key (seeds[i] says from which seed)"),
    Field("ep_max_steps", np.int32, ("U",), "truncation limit of the current episode, 0 = none"),
)

# The kernel's event buffers (gridsim.events): E events per world and step, F int32 fields each.
EVENT_FIELDS = (
    Field("event_type", np.int16, ("U", "E"), "1-based index into the family's event specs, 0 unused"),
    Field("event_payload", np.int32, ("U", "E", "F"), "the events' fields, unused ones -1", fill=-1),
    Field("event_count", np.int32, ("U",), "events recorded in the world's last step"),
    Field("event_dropped", np.int64, ("U",), "events lost to overflow, cumulative"),
)

# What the kernel writes on every call, one entry per output row.
OUTPUT_FIELDS = (
    Field("obs", "obs", ("R", "obs"), "observations"),
    Field("final_obs", "obs", ("R", "obs"), "SAME_STEP: the final observation of the rows that ended"),
    Field("final_mask", np.bool_, ("R",), "final_obs is set"),
    Field("rewards", np.float32, ("R",), "rewards of the last step"),
    Field("terminated", np.bool_, ("R",), "terminations of the last step"),
    Field("truncated", np.bool_, ("R",), "truncations of the last step"),
    Field("stat_mask", np.bool_, ("R",), "an episode ended on this call"),
    Field("stat_return", np.float64, ("R",), "its return"),
    Field("stat_length", np.int32, ("R",), "its length"),
    Field("ended_rows", np.int32, ("R",), "scratch: the rows whose statistics the last call set", saved=False),
)


def episode_limit(max_steps: int) -> int:
    """A batch truncation limit as the int32 per-episode limit the kernels store (0 = none).

    Limits that are not positive, or too large for int32 to reach, mean "never".
    """
    m = int(max_steps)
    return m if 0 < m <= 0x7FFFFFFF else 0


class BatchState:
    """Every array of one batch: the family's ``FIELDS`` plus the shared tables above.

    Subclasses declare ``FIELDS`` and call :meth:`allocate` once, after which
    ``DYNAMIC`` (the ``state_dict`` keys) and :meth:`nbytes_per_env` follow from the tables.
    """

    FIELDS: tuple[Field, ...] = ()  # the family's own arrays
    DYNAMIC: tuple[str, ...] = ()  # the saved fields, in table order (set for each subclass)

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> np.ndarray:
            """A field of :meth:`fields`: :meth:`allocate` sets each as an attribute."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.DYNAMIC = tuple(f.name for f in cls.fields() if f.saved)

    @classmethod
    def fields(cls) -> tuple[Field, ...]:
        """Every field of this family's batch state, its own first."""
        return cls.FIELDS + EPISODE_FIELDS + EVENT_FIELDS + OUTPUT_FIELDS

    def allocate(self, *, units: int, rows: int, obs_shape: tuple[int, ...], obs_dtype,
                 max_steps: int, events: bool, max_events: int, num_event_fields: int, **dims: int):
        """Allocate every field.

        Args:
            units: U, the simulated worlds (envs, or kitchens).
            rows: R, the output rows.
            obs_shape: the shape of one row's observation.
            obs_dtype: its dtype.
            max_steps: the truncation limit of the first episodes (0 or less: none).
            events: the kernel records events; without them the buffers get one slot per
                world instead of ``max_events`` (a million envs then carry no 160 MB of
                unused event slots).
            max_events: event slots per world and step.
            num_event_fields: the family's largest event payload (at least 1 field is stored).
            **dims: the family's own shape symbols.
        """
        if isinstance(max_events, bool) or not isinstance(max_events, (int, np.integer)) \
                or not 1 <= max_events <= MAX_EVENTS_PER_STEP:
            raise InvalidArgumentError(
                f"max_events_per_step must be an integer in 1..{MAX_EVENTS_PER_STEP}, got {max_events!r}")
        self.num_units = int(units)
        self.events_on = int(bool(events))
        self.max_events = int(max_events) if events else 1
        self.num_event_fields = max(int(num_event_fields), 1)
        sizes = dict(dims, U=units, R=rows, E=self.max_events, F=self.num_event_fields, obs=tuple(obs_shape),
                     obs_dtype=np.dtype(obs_dtype))
        for f in self.fields():
            setattr(self, f.name, f.allocate(sizes))
        self.ep_max_steps[:] = episode_limit(max_steps)
        # seeds[i]: the seed world i's key came from (a Python int; None until seeded).
        self.seeds = np.full(self.num_units, None, dtype=object)

    def nbytes_per_env(self) -> float:
        """Bytes of state and output buffers per world (arrays shared by worlds count 1/U each)."""
        return sum(getattr(self, f.name).nbytes for f in self.fields()) / self.num_units
