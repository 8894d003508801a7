"""Batch state: every per-env array of a batch, struct of arrays, env axis first.

Coordinates are ``(row, col)`` everywhere, row 0 at the top: ``agent_pos[i] ==
(row, col)`` and ``grid[g, row + pad, col + pad]``. numpy allocates and owns every
byte; the kernel (``gridsim._core``) binds typed views once and writes in place, so
arrays are never replaced after construction, only written (``np.copyto``).

Abbreviations: N envs, M maps, H x W map size, P border width, T tile ids.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gridsim.events import KITCHEN_EVENTS, NAV_EVENTS, ROBOMAN_EVENTS, num_fields
from gridsim.nav.alphabet import F_COLLECTIBLE, F_STOCHASTIC, F_TERMINAL, F_WALKABLE, VOID
from gridsim.nav.level import NavLevel

__all__ = ["NavState", "OBS_COORDS", "OBS_IMAGE", "OBS_VIEW"]

OBS_COORDS, OBS_IMAGE, OBS_VIEW = 0, 1, 2

# Move code = (d_row + 1) * 3 + (d_col + 1); 4 is "stay".
UP, RIGHT, DOWN, LEFT = 1, 5, 7, 3
ACTION_CODES = {
    "1d_discrete": (UP, RIGHT, DOWN, LEFT),
    "1d_horizontal": (RIGHT, LEFT),
    "1d_vertical": (DOWN, UP),
    "2d_continuous": (),
}


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


class NavState:
    """All arrays of a batch of navigation envs.

    Maps are stored with a VOID border ``pad`` cells wide and flattened: cell
    ``(row, col)`` is ``(row + pad) * (W + 2 * pad) + col + pad``; ``cell_rc`` maps
    a cell back to ``(row, col)``.

    Args:
        maps: M compiled maps of one size and one alphabet.
        num_envs: N.
        map_id: (N,) which map each env uses (default: env i uses map i % M).
        obs_kind: OBS_COORDS, OBS_IMAGE or OBS_VIEW.
        view_size: side of the egocentric view (odd).
        pixels_per_cell, channels_first: image observation layout.
        actions: the action type name (a key of ACTION_CODES).
        autoreset_mode: the kernel's AUTORESET_* code.
        randomize_goals: keep one terminal cell per episode, the others become default tiles.
        max_steps: truncation limit, 0 for none.
        nan_to_zero: continuous NaN components count as 0 instead of raising.
        events: the kernel records events (``gridsim.events.NAV_EVENTS``).
        max_events: event slots per env and step.
    """

    # Arrays that make up the batch's dynamic state (saved by state_dict, in this order).
    DYNAMIC = (
        "grid", "cell_flags", "cell_reward", "agent_cell", "step_count", "episode", "key", "rng",
        "ep_return", "needs_reset", "reseed", "start_override", "seeded", "obs", "rewards",
        "terminated", "truncated", "stat_mask", "stat_return", "stat_length", "final_obs",
        "final_mask", "ep_max_steps", "event_type", "event_payload", "event_count", "event_dropped",
    )

    def __init__(
        self,
        maps: Sequence[NavLevel],
        num_envs: int,
        *,
        map_id: np.ndarray | None = None,
        obs_kind: int = OBS_COORDS,
        view_size: int = 7,
        pixels_per_cell: int = 1,
        channels_first: bool = False,
        actions: str = "1d_discrete",
        autoreset_mode: int = 0,
        randomize_goals: bool = False,
        max_steps: int = 0,
        nan_to_zero: bool = False,
        events: bool = False,
        max_events: int = 16,
    ):
        first = maps[0]
        alphabet = first.alphabet
        for m in maps:
            if (m.height, m.width) != (first.height, first.width):
                raise ValueError(
                    f"all maps of one batch need one size: {m.name} is {m.height}x{m.width}, "
                    f"{first.name} is {first.height}x{first.width}"
                )
            if m.alphabet.key() != alphabet.key():
                raise ValueError(f"all maps of one batch need one alphabet ({m.name} differs)")
        if view_size < 1 or view_size % 2 == 0:
            raise ValueError(f"view_size must be a positive odd number, got {view_size}")
        N, M = int(num_envs), len(maps)
        H, W = first.height, first.width
        P = max(view_size // 2, 1)
        Wp = W + 2 * P
        C = (H + 2 * P) * Wp  # cells per stored map
        self.alphabet = alphabet
        self.maps = tuple(maps)
        self.num_envs, self.height, self.width, self.pad = N, H, W, P
        self.row_stride, self.map_cells = Wp, C
        self.obs_kind, self.view_size = obs_kind, view_size
        self.pixels_per_cell, self.channels_first = pixels_per_cell, int(bool(channels_first))
        self.action_codes = ACTION_CODES[actions]
        self.num_actions = len(self.action_codes)
        self.autoreset_mode = autoreset_mode
        self.randomize_goals = int(bool(randomize_goals))
        self.max_steps = int(max_steps)
        self.nan_to_zero = int(bool(nan_to_zero))
        self.default_tile = alphabet.default_id
        self.agent_color = np.asarray(alphabet.agent_color, np.uint8)

        # ---- level tables, shared by all envs
        flags = alphabet.flags
        self.tile_flags = flags  # (T,) uint32
        self.tile_color = alphabet.color  # (T, 3) uint8
        self.dist_kind = alphabet.dist_kind  # (T,) int32
        self.dist_a, self.dist_b = alphabet.dist_a, alphabet.dist_b  # (T,) float64
        padded = np.full((M, H + 2 * P, Wp), VOID, np.uint8)
        for k, m in enumerate(maps):
            padded[k, P : P + H, P : P + W] = m.tiles
        self.level_tiles = padded.reshape(M, C)  # (M, C) tile ids
        self.level_flags = flags[self.level_tiles].astype(np.uint8)  # (M, C) F_* bits
        rows, cols = np.divmod(np.arange(C), Wp)
        self.cell_rc = np.stack([rows - P, cols - P], axis=1).astype(np.int32)  # (C, 2)
        S = max(len(m.start_cells) for m in maps)
        G = max(max(len(m.goal_cells) for m in maps), 1)
        self.start_cells = np.zeros((M, S), np.int32)  # (M, S) cells, row-major
        self.start_count = np.zeros(M, np.int32)
        self.goal_cells = np.zeros((M, G), np.int32)  # (M, G) cells, row-major
        self.goal_count = np.zeros(M, np.int32)
        for k, m in enumerate(maps):
            self.start_cells[k, : len(m.start_cells)] = self.cell_of(m.start_cells)
            self.start_count[k] = len(m.start_cells)
            self.goal_cells[k, : len(m.goal_cells)] = self.cell_of(m.goal_cells)
            self.goal_count[k] = len(m.goal_cells)
        # A map whose border has a walkable cell needs moves clamped into the map; a map
        # walled all round never lets the agent reach its border.
        border = np.ones((H, W), bool)
        border[1:-1, 1:-1] = False
        self.clamp = int(any((flags[m.tiles][border] & F_WALKABLE).any() for m in maps))
        for arr in (self.level_tiles, self.level_flags, self.cell_rc, self.start_cells,
                    self.start_count, self.goal_cells, self.goal_count):
            arr.setflags(write=False)

        has_collectible = any(flags[t] & F_COLLECTIBLE for t in np.unique(self.level_tiles))
        has_goals = bool(self.goal_count.max() > 0)
        self.mutable = int(has_collectible or (self.randomize_goals and has_goals))
        d = alphabet.default_id
        if self.mutable and not flags[d] & F_WALKABLE:
            raise ValueError(
                f"the default symbol {alphabet.default_symbol!r} must be accessible when cells can "
                "turn into it (collectible symbols or randomize_goals)"
            )
        fixed_random = [
            t for t in np.unique(self.level_tiles)
            if not flags[t] & F_STOCHASTIC and alphabet.dist_kind[t] != 0
        ]
        if self.mutable and not flags[d] & F_STOCHASTIC and alphabet.dist_kind[d] != 0:
            fixed_random.append(d)
        self.per_env_table = int(bool(fixed_random))

        # ---- per-env state
        self.map_id = (np.arange(N, dtype=np.int32) % M) if map_id is None else \
            np.ascontiguousarray(map_id, np.int32)  # (N,)
        if self.mutable:
            self.grid = self.level_tiles[self.map_id].copy()  # (N, C) current tiles
            self.cell_flags = self.level_flags[self.map_id].copy()  # (N, C)
            self.grid_index = np.arange(N, dtype=np.int32)
        else:
            # (M, C): static, shared by the envs of a map; the kernel never writes them.
            self.grid = self.level_tiles.copy()
            self.cell_flags = self.level_flags.copy()
            self.grid_index = self.map_id.copy()
        planes = 2 if self.mutable else 1
        if self.per_env_table:
            self.cell_reward = np.zeros((N, planes, C), np.float32)  # drawn at seeding
            self.reward_index = np.arange(N, dtype=np.int32)
        else:
            self.cell_reward = np.stack([
                self._pad(constant_reward_table(m, planes, self.randomize_goals)) for m in maps
            ])  # (M, planes, C)
            self.reward_index = self.map_id.copy()
        # (N,) the agent's cell; a valid cell even before the first reset, so no step can
        # ever index outside the map.
        self.agent_cell = self.start_cells[self.map_id, 0].copy()
        self.step_count = np.zeros(N, np.int32)
        self.start_override = np.full(N, -1, np.int32)  # >= 0: start cell of the next reset
        alloc_episode_state(self, N)
        self.ep_max_steps = np.full(N, episode_limit(self.max_steps), np.int32)  # (N,) this episode's limit
        alloc_event_buffers(self, N, max_events, num_fields(NAV_EVENTS), events)
        alloc_step_outputs(self, N, self.obs_shape, self.obs_dtype)
        self.moves = np.zeros(N, np.int8)  # scratch

    def _pad(self, table: np.ndarray) -> np.ndarray:
        """A (planes, H, W) table as (planes, C) over padded cells (0 on the border)."""
        P = self.pad
        out = np.zeros((table.shape[0], self.height + 2 * P, self.row_stride), table.dtype)
        out[:, P : P + self.height, P : P + self.width] = table
        return out.reshape(table.shape[0], self.map_cells)

    def cell_of(self, rc) -> np.ndarray:
        """Cells of ``(row, col)`` pairs, shape (..., 2) -> (...)."""
        rc = np.asarray(rc, np.int64)
        return ((rc[..., 0] + self.pad) * self.row_stride + rc[..., 1] + self.pad).astype(np.int32)

    @property
    def agent_pos(self) -> np.ndarray:
        """(N, 2) int32 ``(row, col)`` of every agent (a fresh array)."""
        return self.cell_rc[self.agent_cell]

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """Shape of one env's observation."""
        if self.obs_kind == OBS_COORDS:
            return (2,)
        if self.obs_kind == OBS_VIEW:
            return (self.view_size, self.view_size)
        h, w = self.height * self.pixels_per_cell, self.width * self.pixels_per_cell
        return (3, h, w) if self.channels_first else (h, w, 3)

    @property
    def obs_dtype(self) -> type:
        """The dtype of the observation."""
        return np.int32 if self.obs_kind == OBS_COORDS else np.uint8

    def nbytes_per_env(self) -> float:
        """Bytes of state and output buffers per env (tables shared by envs count 1/N each)."""
        total = 0
        for name in self.DYNAMIC + ("map_id", "grid_index", "reward_index", "moves", "ended_rows"):
            total += getattr(self, name).nbytes
        return total / self.num_envs

    def tiles_of(self, i: int) -> np.ndarray:
        """The current (H, W) tile ids of env i (a copy)."""
        P = self.pad
        grid = self.grid[self.grid_index[i]].reshape(self.height + 2 * P, self.row_stride)
        return grid[P : P + self.height, P : P + self.width].copy()

    def set_tiles(self, i: int, tiles: np.ndarray):
        """Write env i's current (H, W) tile ids (mutable levels only) and their flags."""
        P = self.pad
        g = self.grid_index[i]
        grid = self.grid[g].reshape(self.height + 2 * P, self.row_stride)
        grid[P : P + self.height, P : P + self.width] = tiles
        self.cell_flags[g] = self.tile_flags[self.grid[g]].astype(np.uint8)

def constant_reward_table(level: NavLevel, planes: int, randomize_goals: bool) -> np.ndarray:
    """The fixed-reward table of a map whose fixed rewards are all constant: (planes, H, W) float32.

    Plane 0 holds each cell's own value; plane 1 (mutable levels) the value a cell
    has after it becomes the default tile, which only collectible cells and (with
    randomized goals) terminal cells ever do.
    """
    a = level.alphabet
    table = np.zeros((planes, level.height, level.width), np.float32)
    own = np.where(a.flags[level.tiles] & F_STOCHASTIC, 0.0, a.dist_a[level.tiles])
    table[0] = own
    if planes == 2:
        d = a.default_id
        changeable = (a.flags[level.tiles] & F_COLLECTIBLE) != 0
        if randomize_goals:
            changeable |= (a.flags[level.tiles] & F_TERMINAL) != 0
        alt = 0.0 if a.flags[d] & F_STOCHASTIC else a.dist_a[d]
        table[1] = np.where(changeable, alt, own)
    return table


class RobomanState:
    """All arrays of a batch of gridroboman envs.

    Positions are ``(x, y)`` (column, row), as in the original; -1 stands for None
    in the link and held fields. Every field is stored verbatim.

    Args:
        num_envs: N.
        task_set: task ids (rows of ``gridsim.roboman.TASKS``) an env draws from at reset.
        obs_kind: 0 for the 11-float vector, 1 for the 7 x 7 x 4 grid.
        task_in_obs: append a one-hot of the env's task (over ``task_set``) to the vector.
        autoreset_mode: the kernel's AUTORESET_* code.
        max_steps: truncated on the step where the timer reaches it.
        exclude_solved: redraw placements whose goal already holds.
        events: the kernel records events (``gridsim.events.ROBOMAN_EVENTS``).
        max_events: event slots per env and step.
    """

    DYNAMIC = (
        "record", "timer", "task_slot", "episode", "key",
        "rng", "ep_return", "needs_reset", "reseed", "seeded", "obs", "final_obs", "action_mask",
        "final_action_mask", "final_mask", "rewards", "terminated", "truncated", "stat_mask",
        "stat_return", "stat_length", "stat_success", "ep_max_steps", "event_type", "event_payload",
        "event_count", "event_dropped",
    )

    def __init__(self, num_envs: int, task_set: Sequence[int], *, obs_kind: int = 0,
                 task_in_obs: bool = False, autoreset_mode: int = 0, max_steps: int = 50,
                 exclude_solved: bool = False, events: bool = False, max_events: int = 16):
        from gridsim.roboman.tasks import TASKS

        N = int(num_envs)
        self.num_envs = N
        self.obs_kind = obs_kind
        self.task_in_obs = int(bool(task_in_obs))
        self.autoreset_mode = autoreset_mode
        self.max_steps = int(max_steps)
        self.exclude_solved = int(bool(exclude_solved))
        # ---- tables
        self.task_kind = np.array([t.kind for t in TASKS], np.int8)  # (36,)
        self.task_x = np.array([t.x_obj for t in TASKS], np.int8)  # (36,)
        self.task_y = np.array([t.y_obj for t in TASKS], np.int8)  # (36,)
        self.task_set = np.asarray(task_set, np.int16)  # (K,)
        for arr in (self.task_kind, self.task_x, self.task_y, self.task_set):
            arr.setflags(write=False)
        # ---- per-env state
        first = self.task_set[0]
        # One 16-byte record per env, so the kernel moves an env with one copy; the named
        # fields below are views into it (layout: R_* in _core.pxd).
        self.record = np.full((N, 16), -1, np.int8)  # (N, 16)
        self.agent = self.record[:, 0:2]  # (N, 2) (x, y)
        self.obj_pos = self.record[:, 2:8].reshape(N, 3, 2)  # (N, 3, 2) (x, y) of red, green, blue
        self.above = self.record[:, 8:11]  # (N, 3) object on top, -1 = None
        self.below = self.record[:, 11:14]  # (N, 3) object underneath, -1 = None
        self.held = self.record[:, 14]  # (N,) lifted object, -1 = None
        self.task = self.record[:, 15]  # (N,) task id
        assert np.shares_memory(self.obj_pos, self.record)
        self.timer = np.zeros(N, np.int64)  # (N,) steps in this episode
        self.task[:] = first
        self.task_slot = np.zeros(N, np.int16)  # (N,) its index in task_set
        alloc_episode_state(self, N)
        self.ep_max_steps = np.full(N, episode_limit(self.max_steps), np.int32)  # (N,) this episode's limit
        alloc_event_buffers(self, N, max_events, num_fields(ROBOMAN_EVENTS), events)
        # ---- outputs
        alloc_step_outputs(self, N, self.obs_shape, np.float32 if obs_kind == 0 else np.uint8)
        self.action_mask = np.zeros((N, 7), np.int8)  # (N, 7) 1 = masked out
        self.final_action_mask = np.zeros((N, 7), np.int8)
        self.stat_success = np.zeros(N, np.bool_)

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """Shape of one env's observation."""
        if self.obs_kind == 0:
            return (11 + (len(self.task_set) if self.task_in_obs else 0),)
        return (7, 7, 4)

    def nbytes_per_env(self) -> float:
        """Bytes of state and output buffers per env."""
        return sum(getattr(self, n).nbytes for n in self.DYNAMIC + ("ended_rows",)) / self.num_envs


class KitchenState:
    """All arrays of a batch of kitchens.

    Cells are ``y * W + x``. Items are ids of the level's ``KitchenTables`` (0 = no item).
    K kitchens of A agents; R output rows: K, or K * A with ``agent_rows`` (row k * A + a).

    Args:
        level: the compiled kitchen level.
        num_kitchens: K.
        num_agents: A in 1..4.
        agent_rows: one output row per agent (observations get a "this agent" channel).
        channels_first: observations (C, H, W) instead of (H, W, C).
        autoreset_mode: the kernel's AUTORESET_* code.
        max_steps: truncated when the step count reaches it (0: never).
        events: the kernel records events (``gridsim.events.KITCHEN_EVENTS``), per kitchen.
        max_events: event slots per kitchen and step.
    """

    DYNAMIC = (
        "agent_cell", "held", "tile_item", "delivered_bits", "solved", "n_delivered", "delivered_item",
        "delivered_cell", "t", "episode", "key", "rng", "ep_return", "needs_reset", "reseed", "seeded",
        "ep_max_steps", "event_type", "event_payload", "event_count", "event_dropped", "obs", "final_obs",
        "final_mask", "rewards", "terminated", "truncated", "stat_mask", "stat_return", "stat_length",
        "stat_success", "stat_dishes",
    )

    def __init__(self, level, num_kitchens: int, num_agents: int, *, agent_rows: bool = False,
                 channels_first: bool = False, autoreset_mode: int = 0, max_steps: int = 0,
                 events: bool = False, max_events: int = 16):
        tables = level.tables
        K, A = int(num_kitchens), int(num_agents)
        H, W = level.height, level.width
        C = H * W
        self.level = level
        self.num_kitchens, self.num_agents = K, A
        self.agent_rows = int(bool(agent_rows))
        self.num_rows = K * A if agent_rows else K
        self.num_envs = self.num_rows
        self.height, self.width = H, W
        self.channels_first = int(bool(channels_first))
        self.autoreset_mode = autoreset_mode
        self.max_steps = int(max_steps)
        # ---- level tables
        self.tile_kind = np.ascontiguousarray(level.tiles.reshape(C), np.uint8)  # (C,)
        self.init_item = np.zeros(C, np.int16)  # (C,) item at reset, 0 none
        for (x, y), name in level.initial_items.items():
            self.init_item[y * W + x] = tables.item_id(name)
        self.start_cell = np.array([y * W + x for x, y in level.starts[:A]], np.int16)  # (A,)
        self.chop_to = np.ascontiguousarray(tables.chop_to, np.int16)  # (I,)
        self.merge_to = np.ascontiguousarray(tables.merge_to, np.int16)  # (I, I)
        self.deliverable = np.ascontiguousarray(tables.deliverable, np.uint8)  # (I,)
        self.dish_of = np.ascontiguousarray(tables.dish_of, np.uint32)  # (I,)
        self.num_components = len(tables.component_names)
        if self.num_components > 16:
            raise ValueError(f"at most 16 item components fit the kernel, the rules have {self.num_components}")
        present = (np.asarray(tables.components) > 0).astype(np.uint16)
        self.comp_bits = (present << np.arange(self.num_components, dtype=np.uint16)).sum(1).astype(np.uint16)
        self.all_recipes = int(tables.goal_mask)
        self.obs_channels = tables.obs_channels + (1 if agent_rows else 0)
        self.base_obs = np.zeros((H, W, self.obs_channels), np.uint8)  # the tile one-hot
        self.base_obs[np.arange(H)[:, None], np.arange(W)[None, :], level.tiles] = 1
        if channels_first:
            self.base_obs = np.ascontiguousarray(self.base_obs.transpose(2, 0, 1))
        self.base_obs = self.base_obs.reshape(-1)
        for arr in (self.tile_kind, self.init_item, self.start_cell, self.chop_to, self.merge_to,
                    self.deliverable, self.dish_of, self.comp_bits, self.base_obs):
            arr.setflags(write=False)
        # Every component can be delivered at most once, and a delivery takes two or more.
        D = max(1, sum(int(np.asarray(tables.components)[tables.item_id(n)].sum())
                       for n in level.initial_items.values()) // 2)
        # ---- per-kitchen state
        self.agent_cell = np.tile(self.start_cell, (K, 1))  # (K, A)
        self.held = np.zeros((K, A), np.int16)  # (K, A) 0 = nothing
        self.tile_item = np.tile(self.init_item, (K, 1))  # (K, C)
        self.delivered_bits = np.zeros((K, C), np.uint16)  # (K, C)
        self.solved = np.zeros(K, np.uint32)  # (K,) recipe bits delivered
        self.n_delivered = np.zeros(K, np.int16)
        self.delivered_item = np.zeros((K, D), np.int16)  # (K, D)
        self.delivered_cell = np.zeros((K, D), np.int16)
        self.t = np.zeros(K, np.int32)
        alloc_episode_state(self, K)  # keys are recorded only: kitchens draw nothing
        self.ep_max_steps = np.full(K, episode_limit(self.max_steps), np.int32)  # (K,) this episode's limit
        # A step records at most one event per agent plus goal_reached.
        alloc_event_buffers(self, K, max_events, num_fields(KITCHEN_EVENTS), events)
        self.moves = np.zeros((K, A), np.int8)  # scratch
        # ---- outputs, per row
        R = self.num_rows
        shape = (self.obs_channels, H, W) if channels_first else (H, W, self.obs_channels)
        alloc_step_outputs(self, R, shape, np.uint8)
        self.stat_success = np.zeros(R, np.bool_)
        self.stat_dishes = np.zeros(R, np.int32)

    def nbytes_per_env(self) -> float:
        """Bytes of state and output buffers per kitchen."""
        return sum(getattr(self, n).nbytes for n in self.DYNAMIC) / self.num_kitchens
