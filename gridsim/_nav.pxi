# Included by _core.pyx: the navigation family's kernel (PixelWorld).
#
# A map is stored with a VOID border ``pad`` cells wide, flattened: cell (row, col) is
# (row + pad) * row_stride + col + pad. A move is then one addition, and an egocentric
# view is a few row copies.

ctypedef fused action_t:
    int8_t
    int32_t
    int64_t

ctypedef fused continuous_t:
    float
    double

# Compile-time switch of the step loop: every env's episode has the batch's one limit (the usual
# case: a register compare), or the limits differ (after a max_steps write, until every env reset).
ctypedef struct AnyLimits:
    char unused
ctypedef struct OneLimit:
    char unused
ctypedef fused limits_t:
    AnyLimits
    OneLimit

# Move codes map to themselves (continuous actions are converted to codes first).
cdef int8_t[9] IDENTITY_CODES = [0, 1, 2, 3, 4, 5, 6, 7, 8]


cdef inline int move_axis(double a) noexcept nogil:
    # floor(a + 0.5) for a clipped to [-1, 1]: -1 below -0.5, +1 from 0.5 up.
    if a < -0.5:
        return -1
    if a >= 0.5:
        return 1
    return 0


@cython.final
cdef class NavKernel:
    """The navigation family's kernel over one :class:`gridsim.state.NavState`.

    Args:
        state: the batch state; the kernel keeps typed views of its arrays, so the
            arrays must never be replaced, only written in place.
    """

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
        self.autoreset_mode = state.autoreset_mode
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

        self.map_id = state.map_id
        self.grid = state.grid
        self.cell_flags = state.cell_flags
        self.grid_index = state.grid_index
        self.cell_reward = state.cell_reward
        self.reward_index = state.reward_index
        self.agent_cell = state.agent_cell
        self.step_count = state.step_count
        self.episode = state.episode
        self.key = state.key
        self.rng = state.rng
        self.ep_return = state.ep_return
        self.needs_reset = state.needs_reset.view(np.uint8)
        self.reseed = state.reseed.view(np.uint8)
        self.start_override = state.start_override
        self.ep_max_steps = state.ep_max_steps
        self.events_on = state.events_on
        self.max_events = state.max_events
        self.num_event_fields = state.num_event_fields
        self.event_type = state.event_type
        self.event_payload = state.event_payload
        self.event_count = state.event_count
        self.event_dropped = state.event_dropped
        _check_event_buffers(state, self.num_envs)

        if state.obs.dtype == np.int32:
            self.obs_i32 = state.obs.reshape(self.num_envs, -1)
            self.final_i32 = state.final_obs.reshape(self.num_envs, -1)
        else:
            self.obs_u8 = state.obs.reshape(self.num_envs, -1)
            self.final_u8 = state.final_obs.reshape(self.num_envs, -1)
        self.final_mask = state.final_mask.view(np.uint8)
        self.rewards = state.rewards
        self.terminated = state.terminated.view(np.uint8)
        self.truncated = state.truncated.view(np.uint8)
        self.stat_mask = state.stat_mask.view(np.uint8)
        self.stat_return = state.stat_return
        self.stat_length = state.stat_length
        self.moves = state.moves
        self.ended_rows = state.ended_rows
        self.sync_outputs()
        self.err_env = -1
        self.err_code = E_OK

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
        # Start episode self.episode[i] of env i: restore the map, pick the start, then the goal.
        cdef Py_ssize_t m = self.map_id[i]
        cdef Py_ssize_t g = self.grid_index[i]
        cdef Py_ssize_t k, j, n, cell
        cdef uint64_t* s = &self.rng[i]
        if self.reseed[i]:
            if self.per_env_table:
                self.draw_table(i)
            self.reseed[i] = 0
        s[0] = stream_seed(self.key[i, 0], self.key[i, 1], TAG_EPISODE, <uint64_t>self.episode[i])
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
        self.ep_max_steps[i] = self.max_steps if self.max_steps > 0 else 0
        self.ep_return[i] = 0.0
        self.needs_reset[i] = 0

    def reset(self, const uint8_t[::1] mask):
        """Reset every env whose mask entry is nonzero, clear its events and write its observation."""
        cdef Py_ssize_t i
        if mask.shape[0] != self.num_envs:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.num_envs}")
        with nogil:
            for i in range(self.num_envs):
                if mask[i]:
                    self.reset_one(i)
                    if self.events_on:
                        self.event_count[i] = 0
                    self.write_obs(i, False)

    def redraw_table(self, Py_ssize_t i):
        """Draw env i's fixed-reward table from its current key (after a key is injected)."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        if self.per_env_table:
            with nogil:
                self.draw_table(i)

    def sync_outputs(self):
        """Rebuild the list of rows whose statistics are set (after the stat arrays are loaded)."""
        cdef Py_ssize_t i
        self.n_ended = 0
        for i in range(self.num_envs):
            if self.stat_mask[i] or self.final_mask[i]:
                self.ended_rows[self.n_ended] = <int32_t>i
                self.n_ended += 1

    def bind_obs(self, obs):
        """Write observations into ``obs`` (N, *obs_shape) from now on (every row is rewritten each step)."""
        if self.obs_kind == OBS_COORDS:
            self.obs_i32 = obs.reshape(self.num_envs, -1)
        else:
            self.obs_u8 = obs.reshape(self.num_envs, -1)

    def observe(self):
        """Rewrite every env's observation from its state (after a state is injected)."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(self.num_envs):
                self.write_obs(i, False)

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

    cdef Py_ssize_t target_cell(self, Py_ssize_t cell, int code) noexcept nogil:
        # A move target clamped into the map (only maps with a walkable border cell need it).
        cdef Py_ssize_t r = self.cell_rc[cell, 0] + code // 3 - 1
        cdef Py_ssize_t c = self.cell_rc[cell, 1] + code % 3 - 1
        r = 0 if r < 0 else (self.height - 1 if r >= self.height else r)
        c = 0 if c < 0 else (self.width - 1 if c >= self.width else c)
        return (r + self.pad) * self.row_stride + c + self.pad

    def step_i64(self, const int64_t[::1] actions):
        """Step every env with int64 discrete actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = step_discrete(self, actions, <const EventsOn*>NULL)
            else:
                n = step_discrete(self, actions, <const EventsOff*>NULL)
        return n

    def step_i32(self, const int32_t[::1] actions):
        """Step every env with int32 discrete actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = step_discrete(self, actions, <const EventsOn*>NULL)
            else:
                n = step_discrete(self, actions, <const EventsOff*>NULL)
        return n

    def step_f32(self, const float[:, ::1] actions):
        """Step every env with float32 continuous actions (N, 2); returns episodes ended or -1."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = step_continuous(self, actions, <const EventsOn*>NULL)
            else:
                n = step_continuous(self, actions, <const EventsOff*>NULL)
        return n

    def step_f64(self, const double[:, ::1] actions):
        """Step every env with float64 continuous actions (N, 2); returns episodes ended or -1."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = step_continuous(self, actions, <const EventsOn*>NULL)
            else:
                n = step_continuous(self, actions, <const EventsOff*>NULL)
        return n


cdef Py_ssize_t step_rows(NavKernel self, const action_t* actions,
                          const int8_t* code_of, const events_t* tag, const limits_t* limits,
                          int32_t one_limit) noexcept nogil:
    # Apply validated actions to every env (move code = code_of[action]); returns episodes ended.
    # OneLimit: every episode's limit is one_limit (none as INT32_MAX); AnyLimits: ep_max_steps.
    # tag's type selects the loop with (EventsOn) or without (EventsOff) event writes.
    # Hot arrays are read through local pointers: a store through a uint8 pointer may alias
    # anything, and would otherwise force every memoryview to be reloaded for each env.
    cdef Py_ssize_t i, k, cell, target, prev, n_done = 0
    cdef Py_ssize_t map_cells = self.map_cells
    cdef Py_ssize_t table_stride = self.planes * map_cells
    cdef uint8_t f, term, trunc
    cdef int code
    cdef float rew
    cdef int mode = self.autoreset_mode, obs_kind = self.obs_kind
    cdef int mutable = self.mutable, clamp = self.clamp
    cdef const int32_t* ep_max_steps = &self.ep_max_steps[0]
    cdef int32_t limit
    cdef EventBuf evb
    cdef EventBuf* ev = &evb
    cdef uint8_t default_tile = self.default_tile
    cdef uint8_t default_flags = <uint8_t>self.tile_flags[self.default_tile]
    cdef const Py_ssize_t* delta = self.delta
    cdef const uint8_t* fl
    cdef int32_t* agent_cell = &self.agent_cell[0]
    cdef uint8_t* cell_flags = &self.cell_flags[0, 0]
    cdef const int32_t* grid_index = &self.grid_index[0]
    cdef const int32_t* reward_index = &self.reward_index[0]
    cdef const float* table = &self.cell_reward[0, 0, 0]
    cdef int32_t* step_count = &self.step_count[0]
    cdef double* ep_return = &self.ep_return[0]
    cdef uint8_t* needs_reset = &self.needs_reset[0]
    cdef float* rewards = &self.rewards[0]
    cdef uint8_t* terminated = &self.terminated[0]
    cdef uint8_t* truncated = &self.truncated[0]
    cdef uint8_t* stat_mask = &self.stat_mask[0]
    cdef double* stat_return = &self.stat_return[0]
    cdef int32_t* stat_length = &self.stat_length[0]
    cdef uint8_t* final_mask = &self.final_mask[0]
    cdef int32_t* ended = &self.ended_rows[0]
    # One map for the whole batch: skip the per-env row lookups.
    cdef bint shared_map = self.cell_flags.shape[0] == 1
    cdef bint shared_table = self.cell_reward.shape[0] == 1
    cdef const int32_t* cell_rc = &self.cell_rc[0, 0]
    cdef int32_t* obs_xy = NULL
    if obs_kind == OBS_COORDS:
        obs_xy = &self.obs_i32[0, 0]
    # Statistics and final-obs masks are False on rows whose episode did not end (Gymnasium's
    # _add_info): clear only the rows the previous call set.
    for k in range(self.n_ended):
        i = ended[k]
        stat_mask[i] = 0
        stat_return[i] = 0.0
        stat_length[i] = 0
        final_mask[i] = 0
    if events_t is EventsOn:
        bind_events(ev, &self.event_type[0, 0], &self.event_payload[0, 0, 0], &self.event_count[0],
                    &self.event_dropped[0], self.num_envs, self.max_events, self.num_event_fields)
        clear_events(ev)
    for i in range(self.num_envs):
        if needs_reset[i] and mode == AR_NEXT_STEP:
            # The action is ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            self.episode[i] += 1
            self.reset_one(i)
            rewards[i] = 0.0
            terminated[i] = 0
            truncated[i] = 0
            self.write_obs(i, False)
            continue
        fl = cell_flags if shared_map else cell_flags + grid_index[i] * map_cells
        code = code_of[actions[i]]
        cell = agent_cell[i]
        prev = cell
        target = self.target_cell(cell, code) if clamp else cell + delta[code]
        if GRIDSIM_DEBUG and not (0 <= cell < map_cells and 0 <= target < map_cells):
            # Raw pointers escape Cython's bounds checks; the debug build checks them here.
            self.err_env = <int>i
            self.err_code = E_INTERNAL
            return -1
        if obs_kind == OBS_IMAGE:
            if (fl[target] & F_WALKABLE) and target != cell:
                agent_cell[i] = <int32_t>target
                self.paint_cell(i, cell)  # the old cell loses the agent
                cell = target
        else:
            # Branch-free (gcc turns a conditional into a jump here): whether a random move
            # hits a wall is unpredictable. F_WALKABLE is bit 0.
            cell += (target - cell) * (fl[target] & F_WALKABLE)
        agent_cell[i] = <int32_t>cell
        if events_t is EventsOn:
            if target != prev and not (fl[target] & F_WALKABLE):
                emit_event(ev, i, NAV_EV_WALL_BUMP, cell_rc[2 * target], cell_rc[2 * target + 1], -1, -1)
        # The reward is that of the cell the agent ends on.
        f = fl[cell]
        if f & F_STOCHASTIC:
            k = self.grid[grid_index[i], cell]
            rew = <float>sample_dist(&self.rng[i], self.dist_kind[k], self.dist_a[k], self.dist_b[k])
        elif mutable and self.grid[grid_index[i], cell] == default_tile and \
                self.level_tiles[self.map_id[i], cell] != default_tile:
            rew = table[reward_index[i] * table_stride + map_cells + cell]  # collected / removed
        elif shared_table:
            rew = table[cell]
        else:
            rew = table[reward_index[i] * table_stride + cell]
        if f & F_COLLECTIBLE:
            self.grid[grid_index[i], cell] = default_tile
            cell_flags[grid_index[i] * map_cells + cell] = default_flags
            if events_t is EventsOn:
                emit_event(ev, i, NAV_EV_TILE_COLLECTED, cell_rc[2 * cell], cell_rc[2 * cell + 1], -1, -1)
        step_count[i] += 1
        ep_return[i] += rew
        rewards[i] = rew
        term = (f & F_TERMINAL) != 0
        # This episode's limit (a reset below rewrites ep_max_steps[i] for the next one); no
        # limit is a limit no episode reaches.
        if limits_t is OneLimit:
            trunc = step_count[i] >= one_limit
        else:
            limit = ep_max_steps[i]
            trunc = step_count[i] >= (limit if limit > 0 else 0x7FFFFFFF)
        terminated[i] = term
        truncated[i] = trunc
        if events_t is EventsOn and term:
            emit_event(ev, i, NAV_EV_GOAL_REACHED, cell_rc[2 * cell], cell_rc[2 * cell + 1], -1, -1)
        if (term | trunc) and mode != AR_CONTINUE:
            ended[n_done] = <int32_t>i
            n_done += 1
            stat_mask[i] = 1
            stat_return[i] = ep_return[i]
            stat_length[i] = step_count[i]
            if mode == AR_SAME_STEP:
                self.write_obs(i, True)
                final_mask[i] = 1
                self.episode[i] += 1
                self.reset_one(i)
                self.write_obs(i, False)
                continue
            needs_reset[i] = 1
        if obs_kind == OBS_COORDS:
            memcpy(obs_xy + 2 * i, cell_rc + 2 * cell, 2 * sizeof(int32_t))  # [row, col]
        elif obs_kind == OBS_IMAGE:
            self.paint_cell(i, cell)  # the image is kept up to date cell by cell
        else:
            self.write_obs(i, False)
    self.n_ended = n_done
    return n_done


cdef inline bint one_limit(NavKernel self, int32_t* limit) noexcept nogil:
    # Whether every env's episode has the same limit; *limit gets it (none as INT32_MAX).
    cdef Py_ssize_t i
    cdef const int32_t* ep = &self.ep_max_steps[0]
    cdef int32_t first = ep[0]
    cdef bint mixed = False
    for i in range(self.num_envs):
        mixed |= ep[i] != first  # no early exit: the loop vectorizes
    limit[0] = first if first > 0 else 0x7FFFFFFF
    return not mixed


cdef int check_pending(NavKernel self) noexcept nogil:
    # DISABLED: an env that ended must be reset before it is stepped again.
    cdef Py_ssize_t i
    if self.autoreset_mode != AR_DISABLED:
        return 0
    for i in range(self.num_envs):
        if self.needs_reset[i]:
            self.err_env = <int>i
            self.err_code = E_NEEDS_RESET
            return -1
    return 0


cdef Py_ssize_t step_discrete(NavKernel self, const discrete_t[::1] actions, const events_t* tag) noexcept nogil:
    # Every (action type, events on/off) pair is its own function.
    cdef Py_ssize_t i
    cdef int32_t limit
    cdef discrete_t n = self.num_actions
    cdef int bad = 0
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_envs:
        self.err_code = E_BAD_SHAPE
        return -1
    for i in range(self.num_envs):
        bad |= actions[i] < 0 or actions[i] >= n  # no early exit: the loop vectorizes
    if bad:
        for i in range(self.num_envs):
            if actions[i] < 0 or actions[i] >= n:
                self.err_env = <int>i
                self.err_code = E_BAD_ACTION
                return -1
    if check_pending(self) < 0:
        return -1
    if one_limit(self, &limit):
        return step_rows(self, &actions[0], self.action_code, tag, <const OneLimit*>NULL, limit)
    return step_rows(self, &actions[0], self.action_code, tag, <const AnyLimits*>NULL, 0)


cdef Py_ssize_t step_continuous(NavKernel self, const continuous_t[:, ::1] actions,
                                const events_t* tag) noexcept nogil:
    cdef Py_ssize_t i
    cdef int32_t limit
    cdef double ar, ac
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_envs or actions.shape[1] != 2:
        self.err_code = E_BAD_SHAPE
        return -1
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
    if check_pending(self) < 0:
        return -1
    if one_limit(self, &limit):
        return step_rows(self, &self.moves[0], IDENTITY_CODES, tag, <const OneLimit*>NULL, limit)
    return step_rows(self, &self.moves[0], IDENTITY_CODES, tag, <const AnyLimits*>NULL, 0)
