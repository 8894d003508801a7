# Included by _core.pyx: the manipulation family's kernel (gridroboman).
#
# A 7x7 grid without interior walls; positions are (x, y). Every field is stored
# verbatim (held coordinates, both link directions) and no field is derived from
# another, so injected inconsistent states evolve exactly as in the original.


cdef class RobomanKernel:
    """The manipulation family's kernel over one :class:`gridsim.state.RobomanState`."""

    def __init__(self, state):
        self.num_envs = state.num_envs
        self.autoreset_mode = state.autoreset_mode
        self.obs_kind = state.obs_kind
        self.obs_size = state.obs.shape[1] if state.obs.ndim == 2 else 196
        self.task_in_obs = state.task_in_obs
        self.num_tasks = len(state.task_set)
        self.exclude_solved = state.exclude_solved
        self.max_steps = state.max_steps
        self.task_kind = state.task_kind
        self.task_x = state.task_x
        self.task_y = state.task_y
        self.task_set = state.task_set
        self.agent = state.agent
        self.obj_pos = state.obj_pos
        self.above = state.above
        self.below = state.below
        self.held = state.held
        self.timer = state.timer
        self.task = state.task
        self.task_slot = state.task_slot
        self.episode = state.episode
        self.key = state.key
        self.rng = state.rng
        self.ep_return = state.ep_return
        self.needs_reset = state.needs_reset.view(np.uint8)
        self.reseed = state.reseed.view(np.uint8)
        if self.obs_kind == ROBO_OBS_VECTOR:
            self.obs_f32 = state.obs
            self.final_f32 = state.final_obs
        else:
            self.obs_u8 = state.obs.reshape(self.num_envs, -1)
            self.final_u8 = state.final_obs.reshape(self.num_envs, -1)
        self.action_mask = state.action_mask
        self.final_action_mask = state.final_action_mask
        self.final_mask = state.final_mask.view(np.uint8)
        self.rewards = state.rewards
        self.terminated = state.terminated.view(np.uint8)
        self.truncated = state.truncated.view(np.uint8)
        self.stat_mask = state.stat_mask.view(np.uint8)
        self.stat_return = state.stat_return
        self.stat_length = state.stat_length
        self.stat_success = state.stat_success.view(np.uint8)
        self.ended_rows = state.ended_rows
        self.sync_outputs()
        self.err_env = -1
        self.err_code = E_OK

    # ---------------------------------------------------------------- rules

    cdef int top(self, Py_ssize_t i) noexcept nogil:
        # The smallest object on the agent's cell that is not held and has nothing above it.
        cdef int j
        for j in range(3):
            if (j != self.held[i] and self.above[i, j] < 0
                    and self.obj_pos[i, j, 0] == self.agent[i, 0]
                    and self.obj_pos[i, j, 1] == self.agent[i, 1]):
                return j
        return -1

    cdef bint goal(self, Py_ssize_t i) noexcept nogil:
        cdef int t = self.task[i]
        cdef int X = self.task_x[t], Y = self.task_y[t], kind = self.task_kind[t]
        cdef int held = self.held[i]
        cdef int xx = self.obj_pos[i, X, 0], xy = self.obj_pos[i, X, 1]
        cdef int dx, dy
        if kind == G_LIFT:
            return held == X
        if kind == G_STACK:
            return self.below[i, X] == Y
        # "Next to X": four-neighbour, standing on X does not count.
        dx = xx - self.agent[i, 0]
        dy = xy - self.agent[i, 1]
        if kind == G_TOUCH_WITH:
            return held == Y and (dx if dx > 0 else -dx) + (dy if dy > 0 else -dy) == 1
        if held >= 0:
            return False
        if kind == G_TOUCH:
            return (dx if dx > 0 else -dx) + (dy if dy > 0 else -dy) == 1
        if kind == G_CENTER:
            return 2 <= xx <= 4 and 2 <= xy <= 4
        if kind == G_CORNER:
            return (xx <= 1 or xx >= 5) and (xy <= 1 or xy >= 5)
        dx = xx - self.obj_pos[i, Y, 0]
        dy = xy - self.obj_pos[i, Y, 1]
        dx = dx if dx > 0 else -dx
        dy = dy if dy > 0 else -dy
        if kind == G_CLOSE:
            return dx <= 1 and dy <= 1
        return dx + dy > 9  # G_FAR

    cdef void write_mask(self, Py_ssize_t i, int8_t* m) noexcept nogil:
        # 1 = the action would be a no-op.
        cdef int x = self.agent[i, 0], y = self.agent[i, 1]
        m[0] = 0
        m[1] = y == 0
        m[2] = y == 6
        m[3] = x == 0
        m[4] = x == 6
        m[5] = self.held[i] >= 0 or self.top(i) < 0
        m[6] = self.held[i] < 0

    cdef void write_obs(self, Py_ssize_t i, bint final) noexcept nogil:
        cdef int j, level, k
        cdef float s
        cdef float* v
        cdef uint8_t* g
        if self.obs_kind == ROBO_OBS_VECTOR:
            v = &self.final_f32[i, 0] if final else &self.obs_f32[i, 0]
            v[0] = self.agent[i, 0]
            v[1] = self.agent[i, 1]
            for j in range(3):
                s = 0.0
                if self.above[i, j] >= 0:
                    s = -1.0
                if self.held[i] == j or self.below[i, j] >= 0:
                    s = 1.0
                v[2 + 3 * j] = self.obj_pos[i, j, 0]
                v[3 + 3 * j] = self.obj_pos[i, j, 1]
                v[4 + 3 * j] = s
            if self.task_in_obs:
                for k in range(self.num_tasks):
                    v[11 + k] = 1.0 if k == self.task_slot[i] else 0.0
            return
        g = &self.final_u8[i, 0] if final else &self.obs_u8[i, 0]
        memset(g, 0, 196)
        g[(self.agent[i, 1] * 7 + self.agent[i, 0]) * 4] = 1
        for j in range(3):
            if self.held[i] == j:
                level = 4
            else:
                # 1 + objects below it (links followed at most twice: states may be inconsistent).
                level = 1
                k = self.below[i, j]
                while k >= 0 and level < 3:
                    level += 1
                    k = self.below[i, k]
            g[(self.obj_pos[i, j, 1] * 7 + self.obj_pos[i, j, 0]) * 4 + 1 + j] = <uint8_t>level

    # ---------------------------------------------------------------- reset

    cdef void place(self, Py_ssize_t i) noexcept nogil:
        # Uniform over placements of agent, red, green, blue on 4 distinct cells:
        # agent = U(49), then each object the k-th free cell (increasing y * 7 + x), k = U(48 - j).
        cdef uint64_t* s = &self.rng[i]
        cdef int taken[4]
        cdef int j, c, k, n, q
        cdef bint free
        taken[0] = <int>next_bounded(s, 49)
        for j in range(3):
            k = <int>next_bounded(s, 48 - j)
            n = -1
            for c in range(49):
                free = True
                for q in range(j + 1):
                    if taken[q] == c:
                        free = False
                if free:
                    n += 1
                    if n == k:
                        break
            taken[j + 1] = c
        self.agent[i, 0] = taken[0] % 7
        self.agent[i, 1] = taken[0] // 7
        for j in range(3):
            self.obj_pos[i, j, 0] = taken[j + 1] % 7
            self.obj_pos[i, j, 1] = taken[j + 1] // 7
            self.above[i, j] = -1
            self.below[i, j] = -1
        self.held[i] = -1

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil:
        cdef uint64_t* s = &self.rng[i]
        s[0] = stream_seed(self.key[i, 0], self.key[i, 1], TAG_EPISODE, <uint64_t>self.episode[i])
        self.task_slot[i] = <int16_t>next_bounded(s, self.num_tasks)
        self.task[i] = self.task_set[self.task_slot[i]]
        self.place(i)
        if self.exclude_solved:
            while self.goal(i):
                self.place(i)
        self.timer[i] = 0
        self.ep_return[i] = 0.0
        self.needs_reset[i] = 0
        self.reseed[i] = 0

    def reset(self, const uint8_t[::1] mask):
        """Reset every env whose mask entry is nonzero; write its observation and action mask."""
        cdef Py_ssize_t i
        if mask.shape[0] != self.num_envs:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.num_envs}")
        with nogil:
            for i in range(self.num_envs):
                if mask[i]:
                    self.reset_one(i)
                    self.write_obs(i, False)
                    self.write_mask(i, &self.action_mask[i, 0])

    def observe(self):
        """Rewrite every env's observation and action mask from its state (after injection)."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(self.num_envs):
                self.write_obs(i, False)
                self.write_mask(i, &self.action_mask[i, 0])

    def sync_outputs(self):
        """Rebuild the list of rows whose statistics are set (after the stat arrays are loaded)."""
        cdef Py_ssize_t i
        self.n_ended = 0
        for i in range(self.num_envs):
            if self.stat_mask[i] or self.final_mask[i]:
                self.ended_rows[self.n_ended] = <int32_t>i
                self.n_ended += 1

    # ----------------------------------------------------------------- step

    def step_i64(self, const int64_t[::1] actions):
        """Step every env with int64 actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            n = roboman_step(self, actions)
        return n

    def step_i32(self, const int32_t[::1] actions):
        """Step every env with int32 actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            n = roboman_step(self, actions)
        return n


cdef Py_ssize_t roboman_step(RobomanKernel self, const discrete_t[::1] actions) noexcept nogil:
    cdef Py_ssize_t i, k, n_done = 0
    cdef int a, T, B, U, h
    cdef bint term, trunc
    cdef int mode = self.autoreset_mode
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_envs:
        self.err_code = E_BAD_SHAPE
        return -1
    for i in range(self.num_envs):
        if actions[i] < 0 or actions[i] > 6:
            self.err_env = <int>i
            self.err_code = E_BAD_ACTION
            return -1
        if mode == AR_DISABLED and self.needs_reset[i]:
            self.err_env = <int>i
            self.err_code = E_NEEDS_RESET
            return -1
    for k in range(self.n_ended):
        i = self.ended_rows[k]
        self.stat_mask[i] = 0
        self.stat_return[i] = 0.0
        self.stat_length[i] = 0
        self.stat_success[i] = 0
        self.final_mask[i] = 0
    for i in range(self.num_envs):
        if self.needs_reset[i] and mode == AR_NEXT_STEP:
            # The action is ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            self.episode[i] += 1
            self.reset_one(i)
            self.rewards[i] = 0.0
            self.terminated[i] = 0
            self.truncated[i] = 0
            self.write_obs(i, False)
            self.write_mask(i, &self.action_mask[i, 0])
            continue
        a = <int>actions[i]
        # 1. move, clamped to the grid (objects never block).
        if a == 1 and self.agent[i, 1] > 0:
            self.agent[i, 1] -= 1
        elif a == 2 and self.agent[i, 1] < 6:
            self.agent[i, 1] += 1
        elif a == 3 and self.agent[i, 0] > 0:
            self.agent[i, 0] -= 1
        elif a == 4 and self.agent[i, 0] < 6:
            self.agent[i, 0] += 1
        elif a == 5:
            # Lift the top object; the one under it (if any) becomes the top.
            T = self.top(i)
            if T >= 0 and self.held[i] < 0:
                B = self.below[i, T]
                if B >= 0:
                    self.below[i, T] = -1
                    self.above[i, B] = -1
                self.held[i] = <int8_t>T
        elif a == 6:
            h = self.held[i]
            if h >= 0:
                U = self.top(i)  # computed while still holding, so the held object is excluded
                if U >= 0:
                    self.above[i, U] = <int8_t>h
                    self.below[i, h] = <int8_t>U
                self.held[i] = -1
        # 2. the held object follows the agent (every step, no-ops included).
        h = self.held[i]
        if h >= 0:
            self.obj_pos[i, h, 0] = self.agent[i, 0]
            self.obj_pos[i, h, 1] = self.agent[i, 1]
        term = self.goal(i)
        self.timer[i] += 1
        trunc = self.timer[i] == self.max_steps
        self.rewards[i] = 1.0 if term else 0.0
        self.terminated[i] = term
        self.truncated[i] = trunc
        self.ep_return[i] += 1.0 if term else 0.0
        if (term or trunc) and mode != AR_CONTINUE:
            self.ended_rows[n_done] = <int32_t>i
            n_done += 1
            self.stat_mask[i] = 1
            self.stat_return[i] = self.ep_return[i]
            self.stat_length[i] = <int32_t>self.timer[i]
            self.stat_success[i] = term
            if mode == AR_SAME_STEP:
                self.write_obs(i, True)
                self.write_mask(i, &self.final_action_mask[i, 0])
                self.final_mask[i] = 1
                self.episode[i] += 1
                self.reset_one(i)
            else:
                self.needs_reset[i] = 1
        self.write_obs(i, False)
        self.write_mask(i, &self.action_mask[i, 0])
    self.n_ended = n_done
    return n_done
