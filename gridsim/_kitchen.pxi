# Included by _core.pyx: the kitchen family's kernel (gym-cooking's rules).
#
# Cells are y * W + x. Items are ids into the level's compiled item table
# (gridsim.kitchen.rules.KitchenTables, id 0 = no item): chopping and merging are table lookups. All agents of a
# kitchen act at once; moves are resolved to a fixed point so that no two agents
# ever share a cell, then interactions run in agent order.

cdef enum:
    NO_ITEM = 0  # item id of "nothing"
    NOT_BLOCKED = -2  # a mover's blocker when it moves

cdef int[5] KITCHEN_DX = [0, 0, 0, -1, 1]
cdef int[5] KITCHEN_DY = [0, -1, 1, 0, 0]


@cython.final
cdef class KitchenKernel:
    """The kitchen family's kernel over one :class:`gridsim.state.KitchenState`."""

    def __init__(self, state):
        self.num_kitchens = state.num_kitchens
        self.num_agents = state.num_agents
        self.agent_rows = state.agent_rows
        self.num_rows = state.num_rows
        self.height = state.height
        self.width = state.width
        self.num_cells = state.height * state.width
        self.num_items = len(state.chop_to)
        self.num_components = state.num_components
        self.obs_channels = state.obs_channels
        self.channels_first = state.channels_first
        self.autoreset_mode = state.autoreset_mode
        self.max_steps = state.max_steps
        self.all_recipes = state.all_recipes
        self.tile_kind = state.tile_kind
        self.init_item = state.init_item
        self.start_cell = state.start_cell
        self.chop_to = state.chop_to
        self.merge_to = state.merge_to
        self.deliverable = state.deliverable
        self.dish_of = state.dish_of
        self.comp_bits = state.comp_bits
        self.agent_cell = state.agent_cell
        self.held = state.held
        self.tile_item = state.tile_item
        self.delivered_bits = state.delivered_bits
        self.solved = state.solved
        self.n_delivered = state.n_delivered
        self.delivered_item = state.delivered_item
        self.delivered_cell = state.delivered_cell
        self.max_deliveries = state.delivered_item.shape[1]
        self.t = state.t
        self.episode = state.episode
        self.ep_return = state.ep_return
        self.needs_reset = state.needs_reset.view(np.uint8)
        self.ep_max_steps = state.ep_max_steps
        self.events_on = state.events_on
        self.max_events = state.max_events
        self.num_event_fields = state.num_event_fields
        self.event_type = state.event_type
        self.event_payload = state.event_payload
        self.event_count = state.event_count
        self.event_dropped = state.event_dropped
        _check_event_buffers(state, self.num_kitchens)
        self.base_obs = state.base_obs
        self.obs = state.obs.reshape(self.num_rows, -1)
        self.final_obs = state.final_obs.reshape(self.num_rows, -1)
        self.final_mask = state.final_mask.view(np.uint8)
        self.rewards = state.rewards
        self.terminated = state.terminated.view(np.uint8)
        self.truncated = state.truncated.view(np.uint8)
        self.stat_mask = state.stat_mask.view(np.uint8)
        self.stat_return = state.stat_return
        self.stat_length = state.stat_length
        self.stat_success = state.stat_success.view(np.uint8)
        self.stat_dishes = state.stat_dishes
        self.ended_rows = state.ended_rows
        self.moves = state.moves
        self.sync_outputs()
        self.err_env = -1
        self.err_code = E_OK

    # ---------------------------------------------------------------- rules

    cdef void add_event(self, Py_ssize_t k, int kind, int f0, int f1, int f2, int f3) noexcept nogil:
        # One event of kitchen k (KIT_EV_*; -1 for fields the kind lacks). Callers check events_on.
        cdef EventBuf b
        bind_events(&b, &self.event_type[0, 0], &self.event_payload[0, 0, 0], &self.event_count[0],
                    &self.event_dropped[0], self.num_kitchens, self.max_events, self.num_event_fields)
        emit_event(&b, k, kind, f0, f1, f2, f3)

    cdef void interact(self, Py_ssize_t k, int a, int cell) noexcept nogil:
        # Agent a faces the non-floor cell `cell` (the interaction table of the rules).
        cdef int H = self.held[k, a], X, M, n
        if self.tile_kind[cell] == T_DELIVERY:
            if H != NO_ITEM and self.deliverable[H]:
                n = self.n_delivered[k]
                if n < self.max_deliveries:
                    self.delivered_item[k, n] = <int16_t>H
                    self.delivered_cell[k, n] = <int16_t>cell
                self.n_delivered[k] = <int16_t>(n + 1)
                self.delivered_bits[k, cell] |= self.comp_bits[H]
                self.solved[k] |= self.dish_of[H]
                self.held[k, a] = NO_ITEM
                if self.events_on:
                    self.add_event(k, KIT_EV_DELIVERED, a, H, <int>self.dish_of[H], -1)
            return
        X = self.tile_item[k, cell]
        if H != NO_ITEM:
            if X != NO_ITEM:
                M = self.merge_to[H, X]
                if M >= 0:  # the merge ends in the hand
                    self.held[k, a] = <int16_t>M
                    self.tile_item[k, cell] = NO_ITEM
                    if self.events_on:
                        self.add_event(k, KIT_EV_MERGED, a, M, -1, -1)
            elif self.tile_kind[cell] == T_CUTBOARD and self.chop_to[H] >= 0:
                self.held[k, a] = self.chop_to[H]  # chopped in the hand, still held
                if self.events_on:
                    self.add_event(k, KIT_EV_CHOPPED, a, self.chop_to[H], -1, -1)
            else:
                self.tile_item[k, cell] = <int16_t>H
                self.held[k, a] = NO_ITEM
                if self.events_on:
                    self.add_event(k, KIT_EV_PUT, a, H, cell % self.width, cell // self.width)
        elif X != NO_ITEM:
            self.held[k, a] = <int16_t>X
            self.tile_item[k, cell] = NO_ITEM
            if self.events_on:
                self.add_event(k, KIT_EV_PICKED, a, X, cell % self.width, cell // self.width)

    cdef void step_kitchen(self, Py_ssize_t k) noexcept nogil:
        # One simultaneous step of every agent of kitchen k (actions in self.moves[k]).
        cdef int A = self.num_agents, W = self.width, H = self.height
        cdef int cur[4]
        cdef int target[4]
        cdef int role[4]      # 0 noop, 1 mover (target is floor), 2 interactor
        cdef int blocker[4]   # NOT_BLOCKED, -1 (a contested target) or the blocking agent
        cdef int a, b, m, x, y
        cdef bint changed
        for a in range(A):
            cur[a] = self.agent_cell[k, a]
            m = self.moves[k, a]
            x = cur[a] % W + KITCHEN_DX[m]
            y = cur[a] // W + KITCHEN_DY[m]
            x = 0 if x < 0 else (W - 1 if x >= W else x)  # clamped into the grid
            y = 0 if y < 0 else (H - 1 if y >= H else y)
            target[a] = y * W + x
            role[a] = 0 if target[a] == cur[a] else (1 if self.tile_kind[target[a]] == T_FLOOR else 2)
            blocker[a] = NOT_BLOCKED
        # Collisions, to a fixed point: movers sharing a target (blocker -1), then movers swapping
        # cells (blocker: the first such agent), are blocked; then any mover heading into a cell that
        # stays occupied is blocked by the agent there. The blockers are those of the reference.
        for a in range(A):
            if role[a] == 1:
                for b in range(A):
                    if b != a and role[b] == 1 and target[a] == target[b]:
                        blocker[a] = -1
                        break
        for a in range(A):
            if role[a] == 1 and blocker[a] == NOT_BLOCKED:
                for b in range(A):
                    if b != a and role[b] == 1 and target[a] == cur[b] and target[b] == cur[a]:
                        blocker[a] = b
                        break
        changed = True
        while changed:
            changed = False
            for a in range(A):
                if role[a] == 1 and blocker[a] == NOT_BLOCKED:
                    for b in range(A):
                        if b != a and (role[b] != 1 or blocker[b] != NOT_BLOCKED) and target[a] == cur[b]:
                            blocker[a] = b
                            changed = True
                            break
        for a in range(A):
            if role[a] == 1:
                if blocker[a] != NOT_BLOCKED:
                    if self.events_on:
                        self.add_event(k, KIT_EV_COLLISION, a, blocker[a], -1, -1)
                else:
                    self.agent_cell[k, a] = <int16_t>target[a]
        for a in range(A):  # interactions in agent order
            if role[a] == 2:
                self.interact(k, a, target[a])
        self.t[k] += 1

    # ---------------------------------------------------------------- reset

    cdef void reset_one(self, Py_ssize_t k) noexcept nogil:
        # Kitchens are deterministic: fixed starts and items.
        cdef int a
        for a in range(self.num_agents):
            self.agent_cell[k, a] = self.start_cell[a]
            self.held[k, a] = NO_ITEM
        memcpy(&self.tile_item[k, 0], &self.init_item[0], self.num_cells * sizeof(int16_t))
        memset(&self.delivered_bits[k, 0], 0, self.num_cells * sizeof(uint16_t))
        self.solved[k] = 0
        self.n_delivered[k] = 0
        self.t[k] = 0
        self.ep_max_steps[k] = self.max_steps if self.max_steps > 0 else 0
        self.ep_return[k] = 0.0
        self.needs_reset[k] = 0

    def reset(self, const uint8_t[::1] mask):
        """Reset every kitchen whose mask entry is nonzero, clear its events and write its observations."""
        cdef Py_ssize_t k
        if mask.shape[0] != self.num_kitchens:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.num_kitchens}")
        with nogil:
            for k in range(self.num_kitchens):
                if mask[k]:
                    self.reset_one(k)
                    if self.events_on:
                        self.event_count[k] = 0
                    self.write_obs(k, False)

    def bind_obs(self, obs):
        """Write observations into ``obs`` (R, *obs_shape) from now on (every row is rewritten each step)."""
        self.obs = obs.reshape(self.num_rows, -1)

    def observe(self):
        """Rewrite every row's observation from the state (after a state is injected)."""
        cdef Py_ssize_t k
        with nogil:
            for k in range(self.num_kitchens):
                self.write_obs(k, False)

    def sync_outputs(self):
        """Rebuild the list of rows whose statistics are set (after the stat arrays are loaded)."""
        cdef Py_ssize_t i
        self.n_ended = 0
        for i in range(self.num_rows):
            if self.stat_mask[i] or self.final_mask[i]:
                self.ended_rows[self.n_ended] = <int32_t>i
                self.n_ended += 1

    # --------------------------------------------------------- observations

    cdef void write_obs(self, Py_ssize_t k, bint final) noexcept nogil:
        # Channels: 0-3 tile one-hot, then the components of the item on the cell (delivery:
        # all delivered), then those of an item held on the cell, then one per agent slot,
        # then (agent rows) this row's agent.
        cdef int C = self.num_cells, K = self.num_components, Cn = self.obs_channels
        cdef int A = self.num_agents, a, cell, comp, item, row, rows
        cdef Py_ssize_t cs = C if self.channels_first else 1   # stride of one channel
        cdef Py_ssize_t ps = 1 if self.channels_first else Cn  # stride of one cell
        cdef uint16_t bits
        cdef Py_ssize_t size = self.obs.shape[1]
        rows = A if self.agent_rows else 1
        row = k * rows
        cdef uint8_t* o = &self.final_obs[row, 0] if final else &self.obs[row, 0]
        memcpy(o, &self.base_obs[0], size)  # the tile channels never change
        for cell in range(C):
            item = self.tile_item[k, cell]
            bits = self.delivered_bits[k, cell] if self.tile_kind[cell] == T_DELIVERY else 0
            if item != NO_ITEM:
                bits |= self.comp_bits[item]
            comp = 0
            while bits:
                if bits & 1:
                    o[cell * ps + (4 + comp) * cs] = 1
                bits >>= 1
                comp += 1
        for a in range(A):
            cell = self.agent_cell[k, a]
            o[cell * ps + (4 + 2 * K + a) * cs] = 1
            item = self.held[k, a]
            if item != NO_ITEM:
                bits = self.comp_bits[item]
                comp = 0
                while bits:
                    if bits & 1:
                        o[cell * ps + (4 + K + comp) * cs] = 1
                    bits >>= 1
                    comp += 1
        if self.agent_rows:
            for a in range(1, A):
                memcpy(o + a * size, o, size)
            for a in range(A):
                o[a * size + self.agent_cell[k, a] * ps + (Cn - 1) * cs] = 1

    # ------------------------------------------------------------------ step

    def step_i64(self, actions):
        """Step every kitchen with int64 actions, (K, A) or (K * A,); returns rows that ended, or -1."""
        cdef const int64_t[::1] flat = actions.reshape(-1)
        cdef Py_ssize_t n
        with nogil:
            n = kitchen_step(self, flat)
        return n

    def step_i32(self, actions):
        """Step every kitchen with int32 actions, (K, A) or (K * A,); returns rows that ended, or -1."""
        cdef const int32_t[::1] flat = actions.reshape(-1)
        cdef Py_ssize_t n
        with nogil:
            n = kitchen_step(self, flat)
        return n


cdef Py_ssize_t kitchen_step(KitchenKernel self, const discrete_t[::1] actions) noexcept nogil:
    cdef Py_ssize_t k, i, j, r, n_done = 0
    cdef int A = self.num_agents, a, rows = A if self.agent_rows else 1
    cdef int mode = self.autoreset_mode
    cdef int32_t limit
    cdef bint success, trunc
    cdef bint ev_on = self.events_on
    self.err_code = E_OK
    self.err_env = -1
    if actions.shape[0] != self.num_kitchens * A:
        self.err_code = E_BAD_SHAPE
        return -1
    for i in range(actions.shape[0]):
        if actions[i] < 0 or actions[i] > 4:
            self.err_env = <int>(i if self.agent_rows else i // A)
            self.err_code = E_BAD_ACTION
            return -1
    if mode == AR_DISABLED:
        for k in range(self.num_kitchens):
            if self.needs_reset[k]:
                self.err_env = <int>(k * rows)
                self.err_code = E_NEEDS_RESET
                return -1
    for j in range(self.n_ended):
        i = self.ended_rows[j]
        self.stat_mask[i] = 0
        self.stat_return[i] = 0.0
        self.stat_length[i] = 0
        self.stat_success[i] = 0
        self.stat_dishes[i] = 0
        self.final_mask[i] = 0
    if ev_on:
        memset(&self.event_count[0], 0, self.num_kitchens * sizeof(int32_t))
    for k in range(self.num_kitchens):
        if self.needs_reset[k] and mode == AR_NEXT_STEP:
            # The actions are ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            self.episode[k] += 1
            self.reset_one(k)
            for r in range(k * rows, k * rows + rows):
                self.rewards[r] = 0.0
                self.terminated[r] = 0
                self.truncated[r] = 0
            self.write_obs(k, False)
            continue
        for a in range(A):
            self.moves[k, a] = <int8_t>actions[k * A + a]
        self.step_kitchen(k)
        success = (self.solved[k] & self.all_recipes) == self.all_recipes
        limit = self.ep_max_steps[k]  # this episode's limit, 0 = none
        trunc = self.t[k] >= limit if limit > 0 else False
        if ev_on and success:
            self.add_event(k, KIT_EV_GOAL_REACHED, -1, -1, -1, -1)
        self.ep_return[k] += 1.0 if success else 0.0
        for r in range(k * rows, k * rows + rows):
            self.rewards[r] = 1.0 if success else 0.0
            self.terminated[r] = success
            self.truncated[r] = trunc
        if (success or trunc) and mode != AR_CONTINUE:
            for r in range(k * rows, k * rows + rows):
                self.ended_rows[n_done] = <int32_t>r
                n_done += 1
                self.stat_mask[r] = 1
                self.stat_return[r] = self.ep_return[k]
                self.stat_length[r] = self.t[k]
                self.stat_success[r] = success
                self.stat_dishes[r] = self.n_delivered[k]
            if mode == AR_SAME_STEP:
                self.write_obs(k, True)
                for r in range(k * rows, k * rows + rows):
                    self.final_mask[r] = 1
                self.episode[k] += 1
                self.reset_one(k)
            else:
                self.needs_reset[k] = 1
        self.write_obs(k, False)
    self.n_ended = n_done
    return n_done
