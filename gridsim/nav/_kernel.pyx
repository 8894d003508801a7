# Compiler directives come only from setup.py (see gridsim/_core.pyx).
"""The navigation family's kernel (PixelWorld): ``NavKernel``, its constants and ``grid_distances``.

A map is stored with a VOID border ``pad`` cells wide, flattened: cell (row, col) is
(row + pad) * row_stride + col + pad. A move is then one addition, and an egocentric
view is a few row copies. ``NavKernel`` meets the contract of ``gridsim/engine/kernel.pxd``;
the step skeleton (``gridsim/engine/_skeleton.pxi``) is compiled here for it alone.
"""

cimport cython
from libc.math cimport isnan
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from gridsim.engine._rng cimport TAG_TABLE, next_bounded, sample_dist, stream_seed
from gridsim.engine.kernel cimport (
    AR_NEXT_STEP, E_BAD_SHAPE, E_INTERNAL, E_NAN_ACTION, E_OK, GRIDSIM_DEBUG, EventBuf, Kernel, emit_event,
)

import numpy as np

# The skeleton's loops are compiled for this family's one kernel class.
ctypedef float reward_t  # the state's float32 rewards
ctypedef fused kernel_t:
    NavKernel

include "../engine/_skeleton.pxi"
# FieldViews: the typed views of gridsim/nav/fields.py (generated at build time).
include "_fields.pxi"

# Tile flag bits (gridsim.nav.alphabet defines the same values; a test checks they agree).
# They fit in a byte, so per-cell flag maps are uint8.
cdef enum:
    F_WALKABLE = 1      # a move onto the tile succeeds
    F_TERMINAL = 2      # ending a step on it terminates the episode
    F_INITIAL = 4       # start-cell candidate
    F_STOCHASTIC = 8    # fresh reward draw on every visit (episode stream)
    F_COLLECTIBLE = 16  # pays once per episode, then the cell holds the default tile

# Observation kinds (gridsim.engine.state OBS_*).
cdef enum:
    OBS_COORDS = 0      # int32 (2,) [row, col]
    OBS_IMAGE = 1       # uint8 (H*k, W*k, 3) or (3, H*k, W*k)
    OBS_VIEW = 2        # uint8 (v, v) tile ids centred on the agent

# Event type ids: 1-based positions in gridsim.nav.api.NAV_EVENTS.
cdef enum:
    NAV_EV_GOAL_REACHED = 1    # [row, col]
    NAV_EV_TILE_COLLECTED = 2  # [row, col]
    NAV_EV_WALL_BUMP = 3       # [row, col] of the cell the move ran into

FLAG_WALKABLE = F_WALKABLE
FLAG_TERMINAL = F_TERMINAL
FLAG_INITIAL = F_INITIAL
FLAG_STOCHASTIC = F_STOCHASTIC
FLAG_COLLECTIBLE = F_COLLECTIBLE
OBS_KIND_COORDS = OBS_COORDS
OBS_KIND_IMAGE = OBS_IMAGE
OBS_KIND_VIEW = OBS_VIEW
NAV_EVENT_IDS = {"goal_reached": NAV_EV_GOAL_REACHED, "tile_collected": NAV_EV_TILE_COLLECTED,
                 "wall_bump": NAV_EV_WALL_BUMP}

ctypedef fused continuous_t:
    float
    double

# Move codes map to themselves (continuous actions are converted to codes first).
cdef int8_t[9] IDENTITY_CODES = [0, 1, 2, 3, 4, 5, 6, 7, 8]


# What a step call's loop reads, copied into the loop's frame (NavKernel.step_context): locals
# stay in registers, whereas fields would be reloaded after every byte store (uint8 stores may
# alias anything).
ctypedef struct NavStep:
    int32_t* agent_cell
    uint8_t* cell_flags           # (G, map_cells)
    uint8_t* grid                 # (G, map_cells)
    const uint8_t* level_tiles    # (M, map_cells)
    const int32_t* map_id
    const int32_t* grid_index
    const int32_t* reward_index
    const float* table            # (R, planes, map_cells)
    int32_t* step_count
    uint64_t* rng
    const int32_t* cell_rc
    int32_t* obs_xy               # coords observations, else NULL
    const int8_t* code_of
    const Py_ssize_t* delta
    Py_ssize_t map_cells
    Py_ssize_t table_stride       # planes * map_cells
    int obs_kind, clamp, mutable
    bint shared_map, shared_table # one map / one reward table for the whole batch
    uint8_t default_tile, default_flags
    Py_ssize_t cell               # scratch: the cell the last step_one left its agent on


cdef inline int move_axis(double a) noexcept nogil:
    # floor(a + 0.5) for a clipped to [-1, 1]: -1 below -0.5, +1 from 0.5 up.
    if a < -0.5:
        return -1
    if a >= 0.5:
        return 1
    return 0


@cython.final
cdef class NavKernel(FieldViews):
    """The navigation family's kernel over one :class:`gridsim.nav.state.NavState`.

    Args:
        state: the batch state; the kernel keeps typed views of its arrays, so the
            arrays must never be replaced, only written in place.
    """

    # ---- sizes and options (fixed at construction) ----
    cdef readonly int num_envs
    cdef readonly int height, width      # real map size (all maps of one batch share it)
    cdef readonly int pad                # VOID border around each stored map, >= view radius
    cdef readonly Py_ssize_t row_stride  # W + 2 * pad: cells per stored row
    cdef readonly Py_ssize_t map_cells   # (H + 2 * pad) * (W + 2 * pad)
    cdef readonly int obs_kind, view_size, pixels_per_cell, channels_first
    cdef readonly int num_actions, nan_to_zero
    cdef readonly int mutable            # cells can change in an episode (collectibles, random goals)
    cdef readonly int planes             # 2 when mutable: plane 1 = value after becoming default
    cdef readonly int randomize_goals
    cdef readonly int clamp              # some border cell is walkable: clamp moves into the map
    cdef readonly uint8_t default_tile
    cdef uint8_t default_flags           # F_* bits of the default tile
    cdef uint8_t agent_color[3]
    cdef int8_t action_code[16]          # discrete action -> move code (dr + 1) * 3 + (dc + 1)
    cdef const int8_t* code_of           # the step call's action -> move code (action_code, or identity)
    cdef Py_ssize_t delta[9]             # move code -> cell offset

    # ---- level tables (read-only; M maps of one size; cells are flat padded indices) ----
    cdef const uint8_t[:, ::1] level_tiles   # (M, Hp * Wp) tile ids, VOID outside the map
    cdef const uint8_t[:, ::1] level_flags   # (M, Hp * Wp) F_* bits of each cell's tile
    cdef const int32_t[:, ::1] start_cells   # (M, S) initial cells, row-major
    cdef const int32_t[::1] start_count      # (M,) valid entries of start_cells
    cdef const int32_t[:, ::1] goal_cells    # (M, G) terminal cells, row-major
    cdef const int32_t[::1] goal_count       # (M,)
    cdef const int32_t[:, ::1] cell_rc       # (Hp * Wp, 2) map (row, col) of each cell
    cdef const uint32_t[::1] tile_flags      # (T,) F_* bits per tile id
    cdef const uint8_t[:, ::1] tile_color    # (T, 3)
    cdef const int32_t[::1] dist_kind        # (T,) DIST_* of each tile's reward
    cdef const double[::1] dist_a            # (T,)
    cdef const double[::1] dist_b            # (T,)

    # ---- per-env state: the typed views of FieldViews (gridsim/nav/fields.py); episode bookkeeping,
    # the key, the episode stream and reseed (draw the fixed reward table at the next reset) in Kernel ----
    cdef readonly int per_env_table   # cell_reward is drawn per env seed (one table per env)

    # ---- outputs ----
    cdef uint8_t[:, ::1] obs_u8       # (N, obs_size) when the observation is uint8
    cdef int32_t[:, ::1] obs_i32      # (N, 2) when it is coords
    cdef uint8_t[:, ::1] final_u8     # SAME_STEP final observations
    cdef int32_t[:, ::1] final_i32

    def __init__(self, state):
        cdef int a
        self.num_envs = state.num_envs
        self.height = state.height
        self.width = state.width
        self.pad = state.pad
        self.row_stride = state.width + 2 * state.pad
        self.map_cells = (state.height + 2 * state.pad) * self.row_stride
        self.obs_kind = state.obs_kind
        self.view_size = state.view_size
        self.pixels_per_cell = state.pixels_per_cell
        self.channels_first = state.channels_first
        self.num_actions = state.num_actions
        self.nan_to_zero = state.nan_to_zero
        self.mutable = state.mutable
        self.planes = state.cell_reward.shape[1]
        self.randomize_goals = state.randomize_goals
        self.clamp = state.clamp
        self.max_steps = state.max_steps
        self.default_tile = state.default_tile
        self.per_env_table = state.per_env_table
        for a in range(3):
            self.agent_color[a] = state.agent_color[a]
        memset(self.action_code, 4, sizeof(self.action_code))  # 4 = stay
        if len(state.action_codes) > 16:
            raise ValueError("at most 16 discrete actions")
        for a in range(len(state.action_codes)):
            self.action_code[a] = state.action_codes[a]
        self.code_of = self.action_code
        for a in range(9):
            self.delta[a] = (a // 3 - 1) * self.row_stride + (a % 3 - 1)
        if self.obs_kind == OBS_VIEW and self.pad < self.view_size // 2:
            raise ValueError("the map border must be at least the view radius")

        self.level_tiles = state.level_tiles
        self.level_flags = state.level_flags
        self.start_cells = state.start_cells
        self.start_count = state.start_count
        self.goal_cells = state.goal_cells
        self.goal_count = state.goal_count
        self.cell_rc = state.cell_rc
        self.tile_flags = state.tile_flags
        self.tile_color = state.tile_color
        self.dist_kind = state.dist_kind
        self.dist_a = state.dist_a
        self.dist_b = state.dist_b
        self.default_flags = <uint8_t>self.tile_flags[self.default_tile]

        # final_obs has rows only under SAME_STEP, the one mode that writes it (Kernel.final_rows).
        final = state.final_obs.reshape(len(state.final_obs), state.obs[0].size)
        if state.obs.dtype == np.int32:
            self.obs_i32 = state.obs.reshape(self.num_envs, -1)
            self.final_i32 = final
        else:
            self.obs_u8 = state.obs.reshape(self.num_envs, -1)
            self.final_u8 = final
        # An env step is a few ns: 2 threads measured 0.9-1.0x of 1 up to 3,072 envs, faster
        # from 4,096 (bench/README.md, small batches).
        bind_kernel(self, state, self.num_envs, 1, 1, self.num_actions, 4096, True)

    # ------------------------------------------------------------------ reset

    cdef void draw_table(self, Py_ssize_t i) noexcept nogil:
        # Fixed rewards of env i, row-major over the map, from its table stream.
        cdef Py_ssize_t r, c, cell
        cdef uint8_t t, d = self.default_tile
        cdef uint32_t f
        cdef Py_ssize_t ri = self.reward_index[i]
        cdef Py_ssize_t m = self.map_id[i]
        cdef uint64_t s = stream_seed(self.key[i, 0], self.key[i, 1], TAG_TABLE, 0)
        for r in range(self.height):
            for c in range(self.width):
                cell = (r + self.pad) * self.row_stride + c + self.pad
                t = self.level_tiles[m, cell]
                f = self.tile_flags[t]
                if f & F_STOCHASTIC:
                    self.cell_reward[ri, 0, cell] = 0.0
                else:
                    self.cell_reward[ri, 0, cell] = <float>sample_dist(
                        &s, self.dist_kind[t], self.dist_a[t], self.dist_b[t])
                if self.planes == 2:
                    # The value this cell has once it holds the default tile, drawn right after.
                    if (f & F_COLLECTIBLE) or (self.randomize_goals and (f & F_TERMINAL)):
                        if self.tile_flags[d] & F_STOCHASTIC:
                            self.cell_reward[ri, 1, cell] = 0.0
                        else:
                            self.cell_reward[ri, 1, cell] = <float>sample_dist(
                                &s, self.dist_kind[d], self.dist_a[d], self.dist_b[d])
                    else:
                        self.cell_reward[ri, 1, cell] = self.cell_reward[ri, 0, cell]

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil:
        # Place env i for episode self.episode[i]: draw its table after a new key, restore the map,
        # pick the start, then the goal (rng[i] is seeded; the skeleton clears reseed[i] after this).
        cdef Py_ssize_t m = self.map_id[i]
        cdef Py_ssize_t g = self.grid_index[i]
        cdef Py_ssize_t k, j, n, cell
        cdef uint64_t* s = &self.rng[i]
        if self.reseed[i] and self.per_env_table:
            self.draw_table(i)  # from its own stream: rng[i] is left alone
        if self.mutable:
            memcpy(&self.grid[g, 0], &self.level_tiles[m, 0], self.map_cells)
            memcpy(&self.cell_flags[g, 0], &self.level_flags[m, 0], self.map_cells)
        if self.start_override[i] >= 0:
            self.agent_cell[i] = self.start_override[i]
            self.start_override[i] = -1
        else:
            k = next_bounded(s, self.start_count[m])
            self.agent_cell[i] = self.start_cells[m, k]
        if self.randomize_goals:
            n = self.goal_count[m]
            k = next_bounded(s, n)
            for j in range(n):
                if j != k:
                    cell = self.goal_cells[m, j]
                    self.grid[g, cell] = self.default_tile
                    self.cell_flags[g, cell] = <uint8_t>self.tile_flags[self.default_tile]
        self.step_count[i] = 0

    def redraw_table(self, Py_ssize_t i):
        """Draw env i's fixed-reward table from its current key (after a key is injected)."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        if self.per_env_table:
            with nogil:
                self.draw_table(i)

    def bind_obs(self, obs):
        """Write observations into ``obs`` (N, *obs_shape) from now on (every row is rewritten each step)."""
        if self.obs_kind == OBS_COORDS:
            self.obs_i32 = obs.reshape(self.num_envs, -1)
        else:
            self.obs_u8 = obs.reshape(self.num_envs, -1)

    # ---------------------------------------------------------- observations

    cdef void paint_cell(self, Py_ssize_t i, Py_ssize_t cell) noexcept nogil:
        # Repaint one cell of env i's image observation (the agent's cell in the agent colour).
        cdef int k = self.pixels_per_cell
        cdef Py_ssize_t H = self.height * k, W = self.width * k, y, x, ch
        cdef Py_ssize_t r = self.cell_rc[cell, 0], c = self.cell_rc[cell, 1]
        cdef uint8_t* out = &self.obs_u8[i, 0]
        cdef const uint8_t* col
        if cell == self.agent_cell[i]:
            col = self.agent_color
        else:
            col = &self.tile_color[self.grid[self.grid_index[i], cell], 0]
        for y in range(r * k, r * k + k):
            for x in range(c * k, c * k + k):
                if self.channels_first:
                    for ch in range(3):
                        out[(ch * H + y) * W + x] = col[ch]
                else:
                    out[(y * W + x) * 3] = col[0]
                    out[(y * W + x) * 3 + 1] = col[1]
                    out[(y * W + x) * 3 + 2] = col[2]

    cdef void write_image(self, Py_ssize_t i, uint8_t* out, int k, bint chw) noexcept nogil:
        # k x k pixels per cell in the cell's current colour; the agent's cell in the agent colour.
        cdef Py_ssize_t g = self.grid_index[i]
        cdef Py_ssize_t r, c, y, x, ch, cell
        cdef Py_ssize_t H = self.height * k, W = self.width * k
        cdef const uint8_t* col
        for r in range(self.height):
            for c in range(self.width):
                cell = (r + self.pad) * self.row_stride + c + self.pad
                if cell == self.agent_cell[i]:
                    col = self.agent_color
                else:
                    col = &self.tile_color[self.grid[g, cell], 0]
                for y in range(r * k, r * k + k):
                    for x in range(c * k, c * k + k):
                        if chw:
                            for ch in range(3):
                                out[(ch * H + y) * W + x] = col[ch]
                        else:
                            out[(y * W + x) * 3] = col[0]
                            out[(y * W + x) * 3 + 1] = col[1]
                            out[(y * W + x) * 3 + 2] = col[2]

    cdef void write_obs(self, Py_ssize_t i, bint final) noexcept nogil:
        cdef Py_ssize_t r, v, first
        cdef uint8_t* dst
        cdef const uint8_t* src
        cdef Py_ssize_t cell = self.agent_cell[i]
        if self.obs_kind == OBS_COORDS:
            if final:
                self.final_i32[i, 0] = self.cell_rc[cell, 0]
                self.final_i32[i, 1] = self.cell_rc[cell, 1]
            else:
                self.obs_i32[i, 0] = self.cell_rc[cell, 0]
                self.obs_i32[i, 1] = self.cell_rc[cell, 1]
            return
        dst = &self.final_u8[i, 0] if final else &self.obs_u8[i, 0]
        if self.obs_kind == OBS_VIEW:
            # The border is at least the view radius wide, so the view is v plain row copies.
            v = self.view_size
            first = cell - (v // 2) * self.row_stride - v // 2
            src = &self.grid[self.grid_index[i], 0] + first
            if v == 7:  # the default: a fixed-size copy compiles to two moves, not a call
                for r in range(7):
                    memcpy(dst + r * 7, src + r * self.row_stride, 7)
            elif v == 5:
                for r in range(5):
                    memcpy(dst + r * 5, src + r * self.row_stride, 5)
            else:
                for r in range(v):
                    memcpy(dst + r * v, src + r * self.row_stride, v)
        else:
            self.write_image(i, dst, self.pixels_per_cell, self.channels_first)

    def render_rgb(self, Py_ssize_t i, uint8_t[:, :, ::1] out, int cell_px):
        """Draw env i channels-last into ``out`` (H * cell_px, W * cell_px, 3)."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        if (cell_px < 1 or out.shape[0] != self.height * cell_px
                or out.shape[1] != self.width * cell_px or out.shape[2] != 3):
            raise ValueError("render buffer has the wrong shape")
        with nogil:
            self.write_image(i, &out[0, 0, 0], cell_px, False)

    # ------------------------------------------------------------------ step

    def step_f32(self, const float[:, ::1] actions):
        """Step every env with float32 continuous actions (N, 2); returns episodes ended or -1."""
        return step_continuous(self, actions)

    def step_f64(self, const double[:, ::1] actions):
        """Step every env with float64 continuous actions (N, 2); returns episodes ended or -1."""
        return step_continuous(self, actions)

    # Per-unit hooks of the step skeleton (gridsim/engine/_skeleton.pxi).

    cdef inline int unit_rows(self) noexcept nogil:
        return 1

    cdef inline int unit_actions(self) noexcept nogil:
        return 1

    cdef inline int32_t ep_length(self, Py_ssize_t i) noexcept nogil:
        return self.step_count[i]

    cdef inline void stat_extras(self, Py_ssize_t i, Py_ssize_t row, bint ended) noexcept nogil:
        pass

    cdef inline NavStep step_context(self) noexcept nogil:
        cdef NavStep c
        c.agent_cell = &self.agent_cell[0]
        c.cell_flags = &self.cell_flags[0, 0]
        c.grid = &self.grid[0, 0]
        c.level_tiles = &self.level_tiles[0, 0]
        c.map_id = &self.map_id[0]
        c.grid_index = &self.grid_index[0]
        c.reward_index = &self.reward_index[0]
        c.table = &self.cell_reward[0, 0, 0]
        c.step_count = &self.step_count[0]
        c.rng = &self.rng[0]
        c.cell_rc = &self.cell_rc[0, 0]
        c.obs_xy = &self.obs_i32[0, 0] if self.obs_kind == OBS_COORDS else NULL
        c.code_of = self.code_of
        c.delta = self.delta
        c.map_cells = self.map_cells
        c.table_stride = self.planes * self.map_cells
        c.obs_kind = self.obs_kind
        c.clamp = self.clamp
        c.mutable = self.mutable
        c.shared_map = self.cell_flags.shape[0] == 1
        c.shared_table = self.cell_reward.shape[0] == 1
        c.default_tile = self.default_tile
        c.default_flags = self.default_flags
        c.cell = 0
        return c

    cdef inline int begin_step(self, const action_t* actions) noexcept nogil:
        cdef Py_ssize_t i, cell, target
        cdef int code
        if GRIDSIM_DEBUG:
            # Raw pointers escape Cython's bounds checks; the debug build checks every move's
            # cells here, before the loop (the lowest env whose move would escape the map).
            for i in range(self.num_envs):
                if self.needs_reset[i] and self.autoreset_code == AR_NEXT_STEP:
                    continue
                cell = self.agent_cell[i]
                code = self.code_of[actions[i]]
                target = self.target_cell(cell, code) if self.clamp else cell + self.delta[code]
                if not (0 <= cell < self.map_cells and 0 <= target < self.map_cells):
                    self.err_env = <int>i
                    self.err_code = E_INTERNAL
                    return -1
        return 0

    cdef Py_ssize_t target_cell(self, Py_ssize_t cell, int code) noexcept nogil:
        # A move target clamped into the map (only maps with a walkable border cell need it).
        cdef Py_ssize_t r = self.cell_rc[cell, 0] + code // 3 - 1
        cdef Py_ssize_t c = self.cell_rc[cell, 1] + code % 3 - 1
        r = 0 if r < 0 else (self.height - 1 if r >= self.height else r)
        c = 0 if c < 0 else (self.width - 1 if c >= self.width else c)
        return (r + self.pad) * self.row_stride + c + self.pad

    cdef inline bint step_one(self, NavStep* c, Py_ssize_t i, const action_t* actions, EventBuf* ev,
                             int32_t limit, float* reward, bint* truncated) noexcept nogil:
        # Move env i's agent (move code code_of[action]), then its reward and end of episode.
        cdef Py_ssize_t map_cells = c.map_cells
        cdef Py_ssize_t k, cell, target, prev
        cdef uint8_t f
        cdef float rew
        cdef int32_t steps
        cdef const int32_t* cell_rc = c.cell_rc
        cdef const uint8_t* fl = c.cell_flags if c.shared_map else c.cell_flags + c.grid_index[i] * map_cells
        cdef int code = c.code_of[actions[i]]
        cell = c.agent_cell[i]
        prev = cell
        target = self.target_cell(cell, code) if c.clamp else cell + c.delta[code]
        if c.obs_kind == OBS_IMAGE:
            if (fl[target] & F_WALKABLE) and target != cell:
                c.agent_cell[i] = <int32_t>target
                self.paint_cell(i, cell)  # the old cell loses the agent
                cell = target
        else:
            # Branch-free (gcc turns a conditional into a jump here): whether a random move
            # hits a wall is unpredictable. F_WALKABLE is bit 0.
            cell += (target - cell) * (fl[target] & F_WALKABLE)
        c.agent_cell[i] = <int32_t>cell
        c.cell = cell
        if ev != NULL and target != prev and not (fl[target] & F_WALKABLE):
            emit_event(ev, i, NAV_EV_WALL_BUMP, cell_rc[2 * target], cell_rc[2 * target + 1], -1, -1)
        # The reward is that of the cell the agent ends on.
        f = fl[cell]
        if f & F_STOCHASTIC:
            k = c.grid[c.grid_index[i] * map_cells + cell]
            rew = <float>sample_dist(&c.rng[i], self.dist_kind[k], self.dist_a[k], self.dist_b[k])
        elif c.mutable and c.grid[c.grid_index[i] * map_cells + cell] == c.default_tile and \
                c.level_tiles[c.map_id[i] * map_cells + cell] != c.default_tile:
            rew = c.table[c.reward_index[i] * c.table_stride + map_cells + cell]  # collected / removed
        elif c.shared_table:
            rew = c.table[cell]
        else:
            rew = c.table[c.reward_index[i] * c.table_stride + cell]
        if f & F_COLLECTIBLE:
            c.grid[c.grid_index[i] * map_cells + cell] = c.default_tile
            c.cell_flags[c.grid_index[i] * map_cells + cell] = c.default_flags
            if ev != NULL:
                emit_event(ev, i, NAV_EV_TILE_COLLECTED, cell_rc[2 * cell], cell_rc[2 * cell + 1], -1, -1)
        # The count saturates at INT32_MAX (an episode without a limit may run that long): one
        # compare, and every value it holds is one the state validator accepts. Kept in a local,
        # so the reward's store (which may alias it) forces no reload.
        steps = c.step_count[i]
        steps += steps < 0x7FFFFFFF
        c.step_count[i] = steps
        reward[0] = rew
        # steps >= limit, and never for limit 0 (none): 0 - 1 is the largest uint32, which no
        # count reaches. One compare, like the select it replaces.
        truncated[0] = <uint32_t>(limit - 1) < <uint32_t>steps
        if ev != NULL and (f & F_TERMINAL):
            emit_event(ev, i, NAV_EV_GOAL_REACHED, cell_rc[2 * cell], cell_rc[2 * cell + 1], -1, -1)
        return (f & F_TERMINAL) != 0

    cdef inline void observe_step(self, NavStep* c, Py_ssize_t i) noexcept nogil:
        # After a step: coords are a 2-int copy, an image is repainted at the agent's cell.
        cdef Py_ssize_t cell = c.cell
        if c.obs_kind == OBS_COORDS:
            memcpy(c.obs_xy + 2 * i, c.cell_rc + 2 * cell, 2 * sizeof(int32_t))  # [row, col]
        elif c.obs_kind == OBS_IMAGE:
            self.paint_cell(i, cell)  # the image is kept up to date cell by cell
        else:
            self.write_obs(i, False)


cdef Py_ssize_t step_continuous(NavKernel self, const continuous_t[:, ::1] actions):
    # Continuous actions become move codes (NaN: an error, or 0), then take the discrete path.
    cdef Py_ssize_t i, n
    cdef double ar, ac
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_envs or actions.shape[1] != 2:
        self.err_code = E_BAD_SHAPE
        return -1
    with nogil:
        for i in range(self.num_envs):
            ar = actions[i, 0]
            ac = actions[i, 1]
            if isnan(ar) or isnan(ac):
                if not self.nan_to_zero:
                    self.err_env = <int>i
                    self.err_code = E_NAN_ACTION
                    return -1
                ar = 0.0 if isnan(ar) else ar
                ac = 0.0 if isnan(ac) else ac
            self.moves[i] = <int8_t>((move_axis(ar) + 1) * 3 + move_axis(ac) + 1)
        self.code_of = IDENTITY_CODES
        n = step_units(self, &self.moves[0], self.num_envs, 0)
        self.code_of = self.action_code
    return n


def grid_distances(const uint8_t[:, ::1] walkable, const int64_t[:, ::1] starts, int32_t[:, ::1] out):
    """Breadth-first distances over a map, for level loading (``NavLevel.bfs_distances``).

    Writes into ``out`` the fewest 4-neighbour moves from the nearest start to every cell,
    through cells where ``walkable`` is nonzero (the map edge is a wall); -1 where a cell
    cannot be reached. A start itself is at distance 0, walkable or not.

    Args:
        walkable: ``(H, W)`` uint8, nonzero where a move may end.
        starts: ``(S, 2)`` int64 ``(row, col)`` cells, each inside the map.
        out: ``(H, W)`` int32, overwritten.
    """
    cdef Py_ssize_t h = walkable.shape[0], w = walkable.shape[1], n = h * w
    cdef Py_ssize_t s, head = 0, tail = 0, cell, nxt, r, c
    cdef int32_t d
    if out.shape[0] != h or out.shape[1] != w:
        raise ValueError(f"out must have shape ({h}, {w}), got ({out.shape[0]}, {out.shape[1]})")
    for s in range(starts.shape[0]):
        if not (0 <= starts[s, 0] < h and 0 <= starts[s, 1] < w):
            raise ValueError(f"start cell {(starts[s, 0], starts[s, 1])} is outside the {h}x{w} map")
    if n == 0:
        return
    queue_arr = np.empty(n, np.int64)  # every cell enters the queue at most once
    cdef int64_t[::1] queue = queue_arr
    cdef int32_t* dist = &out[0, 0]
    cdef const uint8_t* free = &walkable[0, 0]
    with nogil:
        for cell in range(n):
            dist[cell] = -1
        for s in range(starts.shape[0]):
            cell = starts[s, 0] * w + starts[s, 1]
            if dist[cell] < 0:
                dist[cell] = 0
                queue[tail] = cell
                tail += 1
        while head < tail:
            cell = queue[head]
            head += 1
            d = dist[cell] + 1
            r = cell // w
            c = cell - r * w
            # Up, right, down, left: no wrap-around, the map edge is a wall.
            if r > 0:
                nxt = cell - w
                if free[nxt] and dist[nxt] < 0:
                    dist[nxt] = d
                    queue[tail] = nxt
                    tail += 1
            if c + 1 < w:
                nxt = cell + 1
                if free[nxt] and dist[nxt] < 0:
                    dist[nxt] = d
                    queue[tail] = nxt
                    tail += 1
            if r + 1 < h:
                nxt = cell + w
                if free[nxt] and dist[nxt] < 0:
                    dist[nxt] = d
                    queue[tail] = nxt
                    tail += 1
            if c > 0:
                nxt = cell - 1
                if free[nxt] and dist[nxt] < 0:
                    dist[nxt] = d
                    queue[tail] = nxt
                    tail += 1
