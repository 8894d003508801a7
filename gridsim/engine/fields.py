"""The field tables: every array of a batch state, declared once (name, dtype, shape, meaning).

A family declares its own arrays in ``gridsim/<family>/fields.py`` (``FIELDS``); the arrays
the kernel skeleton reads and writes for every family (episode bookkeeping, event buffers,
step outputs) are declared here. Everything else follows from these tables:

* ``gridsim.engine.state.BatchState`` allocates them, saves the ``saved`` ones
  (``state_dict()``) and counts the bytes per env;
* at build time, ``gridsim/engine/codegen.py`` writes each kernel's typed views of them and
  their binding (``gridsim/<family>/_fields.pxi``, ``gridsim/engine/_shared_fields*.pxi``), so
  a kernel never declares a field's C type again.

This module and the families' ``fields.py`` import nothing of gridsim's but each other: the
build reads them before any module is compiled.

Shape symbols: ``U`` worlds (an env, or a kitchen), ``R`` output rows (one per env, or per
kitchen agent), ``R_final`` the rows of final observations (R under ``SAME_STEP``, the one mode
whose kernel writes them, else 0), ``E`` event slots and ``F`` event fields per world; ``obs``
stands for the observation's shape and dtype; families add their own (``C`` cells, ``A`` agents, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EPISODE_FIELDS", "EVENT_FIELDS", "OUTPUT_FIELDS", "SHARED_FIELDS", "SUCCESS_FIELD", "Field"]


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
        kernel: the kernel holds a typed view of it (a ``bool`` field as ``uint8_t``), declared
            and bound by the generated code; False for a field only Python reads, and for the
            ones whose dtype differs per batch (the observations, the rewards), which the
            kernel binds itself.
    """

    name: str
    dtype: Any
    shape: tuple[int | str, ...]
    doc: str
    fill: Any = 0
    saved: bool = True
    kernel: bool = True

    def layout(self, dims: Mapping[str, Any]) -> tuple[tuple[int, ...], np.dtype]:
        """The array's shape and dtype, its symbols resolved by ``dims`` (nothing is allocated)."""
        shape: list[int] = []
        for d in self.shape:
            if d == "obs":
                shape.extend(dims["obs"])
            else:
                shape.append(int(dims[d]) if isinstance(d, str) else d)
        return tuple(shape), np.dtype(dims["obs_dtype"] if self.dtype == "obs" else self.dtype)


# The episode bookkeeping of every world (the kernel skeleton reads and writes it).
EPISODE_FIELDS = (
    Field("episode", np.int64, ("U",), "episode counter of the world's key"),
    Field("key", np.uint64, ("U", 2), "128-bit key of the world's random streams"),
    Field("rng", np.uint64, ("U",), "episode stream state"),
    Field("ep_return", np.float64, ("U",), "return of the current episode so far"),
    Field("needs_reset", np.bool_, ("U",), "ended: reset pending (NEXT_STEP) or required (DISABLED)"),
    Field("reseed", np.bool_, ("U",), "draw the per-seed tables at the next reset"),
    Field("seeded", np.bool_, ("U",), "the world has a key (seeds[i] says from which seed)", kernel=False),
    Field("ep_max_steps", np.int32, ("U",), "truncation limit of the current episode, 0 = none"),
)

# The kernel's event buffers (gridsim.engine.events): E events per world and step, F int32 fields each.
EVENT_FIELDS = (
    Field("event_type", np.int16, ("U", "E"), "1-based index into the family's event specs, 0 unused"),
    Field("event_payload", np.int32, ("U", "E", "F"), "the events' fields, unused ones -1", fill=-1),
    Field("event_count", np.int32, ("U",), "events recorded in the world's last step"),
    Field("event_dropped", np.int64, ("U",), "events lost to overflow, cumulative"),
)

# What the kernel writes on every call, one entry per output row. The rewards' dtype is the
# family's (BatchState.REWARD_DTYPE); the kernel binds them, and the observations, itself.
OUTPUT_FIELDS = (
    Field("obs", "obs", ("R", "obs"), "observations", kernel=False),
    # What a SAME_STEP step returns of the worlds that ended on it (infos["final_obs"]): not state,
    # as those worlds are gone; no rows in the other modes, whose kernels never write it.
    Field("final_obs", "obs", ("R_final", "obs"), "SAME_STEP: the final observation of the rows that ended",
          saved=False, kernel=False),
    Field("final_mask", np.bool_, ("R",), "final_obs is set"),
    Field("rewards", np.float32, ("R",), "rewards of the last step", kernel=False),
    Field("terminated", np.bool_, ("R",), "terminations of the last step"),
    Field("truncated", np.bool_, ("R",), "truncations of the last step"),
    Field("stat_mask", np.bool_, ("R",), "an episode ended on this call"),
    Field("stat_return", np.float64, ("R",), "its return"),
    Field("stat_length", np.int32, ("R",), "its length"),
    Field("ended_rows", np.int32, ("R",), "scratch: the rows whose statistics the last call set", saved=False),
)

# A family whose episodes succeed or fail lists this in its FIELDS: the skeleton then writes
# whether each ended episode was terminated ("success" in the episode statistics).
SUCCESS_FIELD = Field("stat_success", np.bool_, ("R",), "the episode that ended was terminated (solved)")

# The fields the kernel contract (gridsim/engine/kernel.pxd) holds for every family, in its order;
# SUCCESS_FIELD is bound only where the family's table lists it.
SHARED_FIELDS = (*EPISODE_FIELDS, *EVENT_FIELDS, *OUTPUT_FIELDS, SUCCESS_FIELD)
