# Included by _core.pyx: the manipulation family's kernel (gridroboman).
#
# A 7x7 grid without interior walls; positions are (x, y). Every field is stored
# verbatim (held coordinates, both link directions) and no field is derived from
# another, so injected inconsistent states evolve exactly as in the original.
# An env is one 16-byte record (layout in _core.pxd), stepped in place.


# Index of the lowest set bit of a 3-bit set, -1 for the empty set.
cdef int[8] LOWEST_BIT = [-1, 0, 1, 0, 2, 0, 1, 0]


cdef inline int robo_top(const int8_t* r) noexcept nogil:
    # The smallest object on the agent's cell that is not held and has nothing on it.
    # Branch-free: where the objects are relative to the agent is unpredictable.
    cdef int j, bits = 0
    for j in range(3):
        bits |= ((j != r[R_HELD]) & (r[R_ABOVE + j] < 0) & (r[R_OBJ + 2 * j] == r[R_AX])
                 & (r[R_OBJ + 2 * j + 1] == r[R_AY])) << j
    return LOWEST_BIT[bits]


cdef inline int iabs(int v) noexcept nogil:
    return v if v >= 0 else -v


cdef inline bint robo_goal(const int8_t* r, int kind, int X, int Y) noexcept nogil:
    cdef int xx = r[R_OBJ + 2 * X], xy = r[R_OBJ + 2 * X + 1], held = r[R_HELD]
    if kind == G_LIFT:
        return held == X
    if kind == G_STACK:
        return r[R_BELOW + X] == Y
    if kind == G_TOUCH_WITH:  # next to X (four-neighbour; standing on X does not count)
        return held == Y and iabs(xx - r[R_AX]) + iabs(xy - r[R_AY]) == 1
    if held >= 0:
        return False
    if kind == G_TOUCH:
        return iabs(xx - r[R_AX]) + iabs(xy - r[R_AY]) == 1
    if kind == G_CENTER:
        return 2 <= xx <= 4 and 2 <= xy <= 4
    if kind == G_CORNER:
        return (xx <= 1 or xx >= 5) and (xy <= 1 or xy >= 5)
    if kind == G_CLOSE:
        return iabs(xx - r[R_OBJ + 2 * Y]) <= 1 and iabs(xy - r[R_OBJ + 2 * Y + 1]) <= 1
    return iabs(xx - r[R_OBJ + 2 * Y]) + iabs(xy - r[R_OBJ + 2 * Y + 1]) > 9  # G_FAR


# Action -> (dx, dy) of its move (0 for the no-op, lift and put).
cdef int[7] ROBO_DX = [0, 0, 0, -1, 1, 0, 0]
cdef int[7] ROBO_DY = [0, -1, 1, 0, 0, 0, 0]


cdef inline void robo_apply(int8_t* r, int a, EventBuf* ev, Py_ssize_t u) noexcept nogil:
    # One action: move (clamped), lift or put; then the held object follows the agent.
    # A lift or put that changes the state is recorded as an event of world u unless ev is NULL.
    cdef int T, B, U, h
    # Moves without branches: which of the seven actions comes next is unpredictable.
    cdef int x = r[R_AX] + ROBO_DX[a], y = r[R_AY] + ROBO_DY[a]
    r[R_AX] = <int8_t>(0 if x < 0 else (6 if x > 6 else x))
    r[R_AY] = <int8_t>(0 if y < 0 else (6 if y > 6 else y))
    if a == 5:
        # Lift the top object; the one under it (if any) becomes the top.
        T = robo_top(r)
        if T >= 0 and r[R_HELD] < 0:
            B = r[R_BELOW + T]
            if B >= 0:
                r[R_BELOW + T] = -1
                r[R_ABOVE + B] = -1
            r[R_HELD] = <int8_t>T
            if ev != NULL:
                emit_event(ev, u, ROBO_EV_LIFTED, T, B, -1, -1)
    elif a == 6:
        h = r[R_HELD]
        if h >= 0:
            U = robo_top(r)  # computed while still holding, so the held object is excluded
            if U >= 0:
                r[R_ABOVE + U] = <int8_t>h
                r[R_BELOW + h] = <int8_t>U
            r[R_HELD] = -1
            if ev != NULL:
                emit_event(ev, u, ROBO_EV_PUT, h, U, -1, -1)
    h = r[R_HELD]
    if h >= 0:
        r[R_OBJ + 2 * h] = r[R_AX]
        r[R_OBJ + 2 * h + 1] = r[R_AY]


cdef inline void robo_outputs(const int8_t* r, int8_t* m, float* v, uint8_t* g,
                              int one_hot, int slot) noexcept nogil:
    # Action mask m (1 = the action would change nothing) and the observation of record r:
    # the vector v (with a one_hot-wide task one-hot, slot set) or, if v is NULL, the grid g.
    cdef int j, k, level, held = r[R_HELD]
    cdef float s
    m[0] = 0
    m[1] = r[R_AY] == 0
    m[2] = r[R_AY] == 6
    m[3] = r[R_AX] == 0
    m[4] = r[R_AX] == 6
    m[5] = (held >= 0) | (robo_top(r) < 0)  # no short circuit: one branch fewer
    m[6] = held < 0
    if v != NULL:
        v[0] = r[R_AX]
        v[1] = r[R_AY]
        for j in range(3):
            # -1 if something is on it; +1 (winning) if held or on something.
            s = -1.0 if r[R_ABOVE + j] >= 0 else 0.0
            if held == j or r[R_BELOW + j] >= 0:
                s = 1.0
            v[2 + 3 * j] = r[R_OBJ + 2 * j]
            v[3 + 3 * j] = r[R_OBJ + 2 * j + 1]
            v[4 + 3 * j] = s
        for k in range(one_hot):
            v[11 + k] = 1.0 if k == slot else 0.0
        return
    memset(g, 0, 196)
    g[(r[R_AY] * 7 + r[R_AX]) * 4] = 1
    for j in range(3):
        if held == j:
            level = 4
        else:
            # 1 + objects below it (links followed at most twice: states may be inconsistent).
            level = 1
            k = r[R_BELOW + j]
            while k >= 0 and level < 3:
                level += 1
                k = r[R_BELOW + k]
        g[(r[R_OBJ + 2 * j + 1] * 7 + r[R_OBJ + 2 * j]) * 4 + 1 + j] = <uint8_t>level


@cython.final
cdef class RobomanKernel:
    """The manipulation family's kernel over one :class:`gridsim.state.RobomanState`."""

    def __init__(self, state):
        self.num_envs = state.num_envs
        self.autoreset_mode = state.autoreset_mode
        self.obs_kind = state.obs_kind
        self.obs_size = int(np.prod(state.obs.shape[1:]))
        self.task_in_obs = state.task_in_obs
        self.num_tasks = len(state.task_set)
        self.exclude_solved = state.exclude_solved
        self.max_steps = state.max_steps
        self.task_kind = state.task_kind
        self.task_x = state.task_x
        self.task_y = state.task_y
        self.task_set = state.task_set
        self.record = state.record
        self.timer = state.timer
        self.task_slot = state.task_slot
        self.episode = state.episode
        self.key = state.key
        self.rng = state.rng
        self.ep_return = state.ep_return
        self.needs_reset = state.needs_reset.view(np.uint8)
        self.reseed = state.reseed.view(np.uint8)
        self.ep_max_steps = state.ep_max_steps
        self.events_on = state.events_on
        self.max_events = state.max_events
        self.num_event_fields = state.num_event_fields
        self.event_type = state.event_type
        self.event_payload = state.event_payload
        self.event_count = state.event_count
        self.event_dropped = state.event_dropped
        _check_event_buffers(state, self.num_envs)
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

    cdef void write_outputs(self, Py_ssize_t i, const int8_t* r, bint final) noexcept nogil:
        # The observation and the action mask of record r.
        if self.obs_kind == ROBO_OBS_VECTOR:
            robo_outputs(r, &self.final_action_mask[i, 0] if final else &self.action_mask[i, 0],
                         &self.final_f32[i, 0] if final else &self.obs_f32[i, 0], NULL,
                         self.num_tasks if self.task_in_obs else 0, self.task_slot[i])
        else:
            robo_outputs(r, &self.final_action_mask[i, 0] if final else &self.action_mask[i, 0],
                         NULL, &self.final_u8[i, 0] if final else &self.obs_u8[i, 0], 0, 0)

    # ----------------------------------------------------------------- reset

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil:
        # Draw env i's task, then a placement uniform over 4 distinct cells: agent = U(49),
        # then each object the k-th free cell (increasing y * 7 + x) with k = U(48 - j).
        cdef uint64_t* s = &self.rng[i]
        cdef int8_t* r = &self.record[i, 0]
        cdef int taken[4]
        cdef int order[4]  # the taken cells, sorted
        cdef int j, c, q, t
        s[0] = stream_seed(self.key[i, 0], self.key[i, 1], TAG_EPISODE, <uint64_t>self.episode[i])
        self.task_slot[i] = <int16_t>next_bounded(s, self.num_tasks)
        t = self.task_set[self.task_slot[i]]
        while True:
            taken[0] = <int>next_bounded(s, 49)
            order[0] = taken[0]
            for j in range(3):
                # The k-th free cell: step k past every taken cell at or below it (in order).
                c = <int>next_bounded(s, 48 - j)
                for q in range(j + 1):
                    if order[q] <= c:
                        c += 1
                taken[j + 1] = c
                # Keep order[0..j+1] sorted for the next object.
                q = j + 1
                while q > 0 and order[q - 1] > c:
                    order[q] = order[q - 1]
                    q -= 1
                order[q] = c
            memset(r, -1, R_SIZE)
            r[R_TASK] = <int8_t>t
            r[R_AX] = <int8_t>(taken[0] % 7)
            r[R_AY] = <int8_t>(taken[0] // 7)
            for j in range(3):
                r[R_OBJ + 2 * j] = <int8_t>(taken[j + 1] % 7)
                r[R_OBJ + 2 * j + 1] = <int8_t>(taken[j + 1] // 7)
            if not (self.exclude_solved and robo_goal(r, self.task_kind[t], self.task_x[t], self.task_y[t])):
                break
        self.timer[i] = 0
        # int32 holds every limit an episode can reach; larger ones never truncate.
        self.ep_max_steps[i] = <int32_t>self.max_steps if 0 < self.max_steps <= 0x7FFFFFFF else 0
        self.ep_return[i] = 0.0
        self.needs_reset[i] = 0
        self.reseed[i] = 0

    def reset(self, const uint8_t[::1] mask):
        """Reset every env whose mask entry is nonzero; clear its events, write its observation and mask."""
        cdef Py_ssize_t i
        if mask.shape[0] != self.num_envs:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.num_envs}")
        with nogil:
            for i in range(self.num_envs):
                if mask[i]:
                    self.reset_one(i)
                    if self.events_on:
                        self.event_count[i] = 0
                    self.write_outputs(i, &self.record[i, 0], False)

    def bind_obs(self, obs):
        """Write observations into ``obs`` (N, *obs_shape) from now on (every row is rewritten each step)."""
        if self.obs_kind == ROBO_OBS_VECTOR:
            self.obs_f32 = obs
        else:
            self.obs_u8 = obs.reshape(self.num_envs, -1)

    def observe(self):
        """Rewrite every env's observation and action mask from its state (after injection)."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(self.num_envs):
                self.write_outputs(i, &self.record[i, 0], False)

    def sync_outputs(self):
        """Rebuild the list of rows whose statistics are set (after the stat arrays are loaded)."""
        cdef Py_ssize_t i
        self.n_ended = 0
        for i in range(self.num_envs):
            if self.stat_mask[i] or self.final_mask[i]:
                self.ended_rows[self.n_ended] = <int32_t>i
                self.n_ended += 1

    # ------------------------------------------------------------------ step

    def step_i64(self, const int64_t[::1] actions):
        """Step every env with int64 actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = roboman_step(self, actions, <const EventsOn*>NULL)
            else:
                n = roboman_step(self, actions, <const EventsOff*>NULL)
        return n

    def step_i32(self, const int32_t[::1] actions):
        """Step every env with int32 actions (N,); returns episodes ended, or -1 on error."""
        cdef Py_ssize_t n
        with nogil:
            if self.events_on:
                n = roboman_step(self, actions, <const EventsOn*>NULL)
            else:
                n = roboman_step(self, actions, <const EventsOff*>NULL)
        return n


cdef Py_ssize_t roboman_step(RobomanKernel self, const discrete_t[::1] actions,
                             const events_t* tag) noexcept nogil:
    # tag's type selects the loop with (EventsOn) or without (EventsOff) event writes.
    cdef Py_ssize_t i, k, n_done = 0
    cdef int8_t* r
    cdef int8_t* rec
    cdef bint term, trunc
    cdef int t, bad = 0
    cdef int mode = self.autoreset_mode
    cdef const int32_t* ep_max_steps = &self.ep_max_steps[0]
    cdef int64_t limit
    cdef EventBuf evb
    cdef EventBuf* ev = NULL  # NULL: robo_apply records nothing
    cdef int64_t* timer = &self.timer[0]
    cdef const int8_t* task_kind = &self.task_kind[0]
    cdef const int8_t* task_x = &self.task_x[0]
    cdef const int8_t* task_y = &self.task_y[0]
    cdef uint8_t* needs_reset = &self.needs_reset[0]
    cdef float* rewards = &self.rewards[0]
    cdef uint8_t* terminated = &self.terminated[0]
    cdef uint8_t* truncated = &self.truncated[0]
    cdef double* ep_return = &self.ep_return[0]
    cdef int8_t* mask = &self.action_mask[0, 0]
    cdef float* obs_vec = &self.obs_f32[0, 0] if self.obs_kind == ROBO_OBS_VECTOR else NULL
    cdef Py_ssize_t obs_size = self.obs_size
    cdef int one_hot = self.num_tasks if self.task_in_obs else 0
    cdef int8_t* records = &self.record[0, 0]
    cdef const int16_t* task_slot = &self.task_slot[0]
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_envs:
        self.err_code = E_BAD_SHAPE
        return -1
    for i in range(self.num_envs):
        bad |= actions[i] < 0 or actions[i] > 6  # no early exit: the loop vectorizes
    if bad or mode == AR_DISABLED:
        for i in range(self.num_envs):
            if actions[i] < 0 or actions[i] > 6:
                self.err_env = <int>i
                self.err_code = E_BAD_ACTION
                return -1
            if mode == AR_DISABLED and needs_reset[i]:
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
    if events_t is EventsOn:
        ev = &evb
        bind_events(ev, &self.event_type[0, 0], &self.event_payload[0, 0, 0], &self.event_count[0],
                    &self.event_dropped[0], self.num_envs, self.max_events, self.num_event_fields)
        clear_events(ev)
    for i in range(self.num_envs):
        rec = records + R_SIZE * i
        if needs_reset[i] and mode == AR_NEXT_STEP:
            # The action is ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            self.episode[i] += 1
            self.reset_one(i)
            rewards[i] = 0.0
            terminated[i] = 0
            truncated[i] = 0
            self.write_outputs(i, rec, False)
            continue
        r = rec  # stepped in place: copying a record just written byte by byte stalls the CPU
        limit = ep_max_steps[i]  # loaded before the record's byte stores, which may alias it
        robo_apply(r, <int>actions[i], ev, i)
        t = r[R_TASK]
        term = robo_goal(r, task_kind[t], task_x[t], task_y[t])
        timer[i] += 1
        # This episode's limit; 0 (none) is never reached: a timer is >= 1 after a step.
        trunc = timer[i] == limit
        if events_t is EventsOn and term:
            emit_event(ev, i, ROBO_EV_GOAL_REACHED, -1, -1, -1, -1)
        rewards[i] = 1.0 if term else 0.0
        terminated[i] = term
        truncated[i] = trunc
        ep_return[i] += 1.0 if term else 0.0
        if (term or trunc) and mode != AR_CONTINUE:
            self.ended_rows[n_done] = <int32_t>i
            n_done += 1
            self.stat_mask[i] = 1
            self.stat_return[i] = ep_return[i]
            self.stat_length[i] = <int32_t>timer[i]
            self.stat_success[i] = term
            if mode == AR_SAME_STEP:
                self.write_outputs(i, r, True)
                self.final_mask[i] = 1
                self.episode[i] += 1
                self.reset_one(i)
            else:
                needs_reset[i] = 1
        if obs_vec != NULL:
            robo_outputs(r, mask + 7 * i, obs_vec + obs_size * i, NULL, one_hot, task_slot[i] if one_hot else 0)
        else:
            self.write_outputs(i, r, False)
    self.n_ended = n_done
    return n_done
