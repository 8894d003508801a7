"""Batch state: the arrays every family's batch shares, struct of arrays, env axis first.

Coordinates are ``(row, col)`` everywhere, row 0 at the top. numpy allocates and owns
every byte; the kernel (``gridsim._core``) binds typed views once and writes in place,
so arrays are never replaced after construction, only written (``np.copyto``).

Each family's state class (``gridsim.<family>.state``) allocates its own fields and
calls the functions here for the episode bookkeeping, the event buffers and the step
outputs that the kernel skeleton (``gridsim/_engine.pxi``) reads and writes for every
family alike.
"""

from __future__ import annotations

import numpy as np

__all__ = ["alloc_episode_state", "alloc_event_buffers", "alloc_step_outputs", "episode_limit"]


def alloc_episode_state(st, n: int):
    """The per-world episode bookkeeping every family shares: counters, keys, streams, flags."""
    st.episode = np.zeros(n, np.int64)  # (n,) episode counter of the world's key
    st.key = np.zeros((n, 2), np.uint64)  # 128-bit key per world
    st.rng = np.zeros(n, np.uint64)  # episode stream state
    st.ep_return = np.zeros(n, np.float64)
    st.needs_reset = np.zeros(n, np.bool_)
    st.reseed = np.zeros(n, np.bool_)
    # seeds[i]: the seed world i's key came from (None until seeded).
    st.seeds = [None] * n
    st.seeded = np.zeros(n, np.bool_)


def episode_limit(max_steps: int) -> int:
    """A batch truncation limit as the int32 per-episode limit the kernels store (0 = none).

    Limits that are not positive, or too large for int32 to reach, mean "never".
    """
    m = int(max_steps)
    return m if 0 < m <= 0x7FFFFFFF else 0


def alloc_event_buffers(st, units: int, capacity: int, num_fields: int, enabled: bool):
    """The kernel's event buffers (``gridsim.events``): ``capacity`` events per world and step.

    ``units`` is the number of simulated worlds (envs, or kitchens), ``num_fields`` the
    family's largest payload (at least 1 field is stored). With ``enabled`` false the
    kernel never touches them, so they get one slot per world instead of ``capacity``
    (a million envs then carry no 160 MB of unused event slots).
    """
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
        raise ValueError(f"max_events_per_step must be an integer >= 1, got {capacity!r}")
    E, F = (int(capacity) if enabled else 1), max(int(num_fields), 1)
    st.events_on = int(bool(enabled))
    st.max_events = E
    st.num_event_fields = F
    st.event_type = np.zeros((units, E), np.int16)  # (U, E) 1-based spec index, 0 unused
    st.event_payload = np.full((units, E, F), -1, np.int32)  # (U, E, F) unused fields -1
    st.event_count = np.zeros(units, np.int32)  # (U,) events of the last step
    st.event_dropped = np.zeros(units, np.int64)  # (U,) lost to overflow, cumulative


def alloc_step_outputs(st, rows: int, obs_shape: tuple[int, ...], obs_dtype):
    """The output buffers every family's kernel writes on each call, one entry per row."""
    st.obs = np.zeros((rows, *obs_shape), obs_dtype)
    st.final_obs = np.zeros_like(st.obs)  # SAME_STEP: the final observation of ended rows
    st.final_mask = np.zeros(rows, np.bool_)
    st.rewards = np.zeros(rows, np.float32)
    st.terminated = np.zeros(rows, np.bool_)
    st.truncated = np.zeros(rows, np.bool_)
    st.stat_mask = np.zeros(rows, np.bool_)  # an episode ended on this call
    st.stat_return = np.zeros(rows, np.float64)
    st.stat_length = np.zeros(rows, np.int32)
    st.ended_rows = np.zeros(rows, np.int32)  # scratch: rows whose statistics are set
