# Compiler directives come only from setup.py (see gridsim/_core.pyx).
"""The kitchen family's kernel (gym-cooking's rules): ``KitchenKernel`` and its constants.

Cells are y * W + x. Items are ids into the level's compiled item table
(gridsim.kitchen.rules.KitchenTables, id 0 = no item): chopping and merging are table lookups. All agents of a
kitchen act at once; moves are resolved to a fixed point so that no two agents
ever share a cell, then interactions run in agent order. ``KitchenKernel`` meets the
contract of ``gridsim/engine/kernel.pxd``; the step skeleton (``gridsim/engine/_skeleton.pxi``)
is compiled here for it alone.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy, memset

from gridsim.engine.kernel cimport EventBuf, Kernel, emit_event

# The skeleton's loops are compiled for this family's one kernel class.
ctypedef float reward_t  # the state's float32 rewards
ctypedef fused kernel_t:
    KitchenKernel

include "../engine/_skeleton.pxi"
# FieldViews: the typed views of gridsim/kitchen/fields.py (generated at build time).
include "_fields.pxi"

# Tile kinds (gridsim.kitchen.rules.TILES, same order).
cdef enum:
    T_FLOOR = 0
    T_COUNTER = 1
    T_CUTBOARD = 2
    T_DELIVERY = 3

# Event type ids: 1-based positions in gridsim.kitchen.api.KITCHEN_EVENTS.
cdef enum:
    KIT_EV_PICKED = 1          # [agent, item, x, y]
    KIT_EV_PUT = 2             # [agent, item, x, y]
    KIT_EV_CHOPPED = 3         # [agent, item]
    KIT_EV_MERGED = 4          # [agent, item]
    KIT_EV_DELIVERED = 5       # [agent, item, recipe_bits]
    KIT_EV_COLLISION = 6       # [agent, blocker (-1 = contested cell)]
    KIT_EV_GOAL_REACHED = 7    # []

# Keyed by the names of gridsim.kitchen.rules.TILES and gridsim.kitchen.api.KITCHEN_EVENTS.
KITCHEN_TILE_KINDS = {"floor": T_FLOOR, "counter": T_COUNTER, "cutboard": T_CUTBOARD, "delivery": T_DELIVERY}
KITCHEN_EVENT_IDS = {"item_picked": KIT_EV_PICKED, "item_put": KIT_EV_PUT, "item_chopped": KIT_EV_CHOPPED,
                     "items_merged": KIT_EV_MERGED, "dish_delivered": KIT_EV_DELIVERED,
                     "collision": KIT_EV_COLLISION, "goal_reached": KIT_EV_GOAL_REACHED}

cdef enum:
    NO_ITEM = 0  # item id of "nothing"
    NOT_BLOCKED = -2  # a mover's blocker when it moves

cdef int[5] KITCHEN_DX = [0, 0, 0, -1, 1]
cdef int[5] KITCHEN_DY = [0, -1, 1, 0, 0]


# A step call's loop context (KitchenKernel.step_context): the kitchen reads its fields.
ctypedef struct KitchenStep:
    char unused


@cython.final
cdef class KitchenKernel(FieldViews):
    """The kitchen family's kernel over one :class:`gridsim.kitchen.state.KitchenState`."""

    # ---- sizes and options ----
    cdef readonly int num_kitchens, num_agents, num_rows   # rows = kitchens, or kitchens x agents
    cdef readonly int height, width, num_cells, num_items, num_components
    cdef readonly int agent_rows                # one row per agent (obs gets a "this agent" channel)
    cdef readonly int obs_channels, channels_first
    cdef readonly int max_deliveries
    cdef readonly uint32_t all_recipes          # bit r set for every recipe of the level

    # ---- level tables (cells are y * W + x) ----
    cdef const uint8_t[::1] tile_kind           # (C,) T_* of each cell
    cdef const int16_t[::1] init_item           # (C,) item on each cell at reset, 0 none
    cdef const int16_t[::1] start_cell          # (A,) start cell of each agent
    cdef const int16_t[::1] chop_to             # (I,) item after chopping, -1 = cannot
    cdef const int16_t[:, ::1] merge_to         # (I, I) merged item, -1 = not mergeable
    cdef const uint8_t[::1] deliverable         # (I,)
    cdef const uint32_t[::1] dish_of            # (I,) bit r = the item is recipe r's dish
    cdef const uint16_t[::1] comp_bits          # (I,) bit k = the item has component k

    # ---- per-kitchen state: the typed views of FieldViews (gridsim/kitchen/fields.py); bookkeeping
    # in Kernel ----
    cdef const uint8_t[::1] base_obs            # (obs_size,) the tile channels of one row

    # ---- outputs (per row) ----
    cdef uint8_t[:, ::1] obs                    # (R, obs_size)
    cdef uint8_t[:, ::1] final_obs              # (R under SAME_STEP, else 0; obs_size)

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
        self.max_deliveries = state.delivered_item.shape[1]
        self.base_obs = state.base_obs
        self.obs = state.obs.reshape(self.num_rows, -1)
        # final_obs has rows only under SAME_STEP, the one mode that writes it (Kernel.final_rows).
        self.final_obs = state.final_obs.reshape(len(state.final_obs), state.obs[0].size)
        # A kitchen step is ~100 ns: 2 threads measured slower than 1 up to 64 kitchens, faster
        # from 128 (bench/README.md).
        bind_kernel(self, state, self.num_kitchens, self.num_agents if self.agent_rows else 1,
                    self.num_agents, 5, 128, False)

    # ---------------------------------------------------------------- rules

    cdef void interact(self, Py_ssize_t k, int a, int cell, EventBuf* ev) noexcept nogil:
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
                if ev != NULL:
                    emit_event(ev, k, KIT_EV_DELIVERED, a, H, <int>self.dish_of[H], -1)
            return
        X = self.tile_item[k, cell]
        if H != NO_ITEM:
            if X != NO_ITEM:
                M = self.merge_to[H, X]
                if M >= 0:  # the merge ends in the hand
                    self.held[k, a] = <int16_t>M
                    self.tile_item[k, cell] = NO_ITEM
                    if ev != NULL:
                        emit_event(ev, k, KIT_EV_MERGED, a, M, -1, -1)
            elif self.tile_kind[cell] == T_CUTBOARD and self.chop_to[H] >= 0:
                self.held[k, a] = self.chop_to[H]  # chopped in the hand, still held
                if ev != NULL:
                    emit_event(ev, k, KIT_EV_CHOPPED, a, self.chop_to[H], -1, -1)
            else:
                self.tile_item[k, cell] = <int16_t>H
                self.held[k, a] = NO_ITEM
                if ev != NULL:
                    emit_event(ev, k, KIT_EV_PUT, a, H, cell % self.width, cell // self.width)
        elif X != NO_ITEM:
            self.held[k, a] = <int16_t>X
            self.tile_item[k, cell] = NO_ITEM
            if ev != NULL:
                emit_event(ev, k, KIT_EV_PICKED, a, X, cell % self.width, cell // self.width)

    cdef void step_kitchen(self, Py_ssize_t k, EventBuf* ev) noexcept nogil:
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
                    if ev != NULL:
                        emit_event(ev, k, KIT_EV_COLLISION, a, blocker[a], -1, -1)
                else:
                    self.agent_cell[k, a] = <int16_t>target[a]
        for a in range(A):  # interactions in agent order
            if role[a] == 2:
                self.interact(k, a, target[a], ev)
        # Saturates at INT32_MAX: kitchens have no step limit by default, and the count must not wrap.
        self.t[k] += self.t[k] < 0x7FFFFFFF

    # ---------------------------------------------------------------- reset

    cdef void reset_one(self, Py_ssize_t k) noexcept nogil:
        # Kitchens are deterministic: fixed starts and items (no random stream).
        cdef int a
        for a in range(self.num_agents):
            self.agent_cell[k, a] = self.start_cell[a]
            self.held[k, a] = NO_ITEM
        memcpy(&self.tile_item[k, 0], &self.init_item[0], self.num_cells * sizeof(int16_t))
        memset(&self.delivered_bits[k, 0], 0, self.num_cells * sizeof(uint16_t))
        self.solved[k] = 0
        self.n_delivered[k] = 0
        self.t[k] = 0

    def bind_obs(self, obs):
        """Write observations into ``obs`` (R, *obs_shape) from now on (every row is rewritten each step)."""
        self.obs = obs.reshape(self.num_rows, -1)

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
        return Kernel.step_i64(self, actions.reshape(-1))

    def step_i32(self, actions):
        """Step every kitchen with int32 actions, (K, A) or (K * A,); returns rows that ended, or -1."""
        return Kernel.step_i32(self, actions.reshape(-1))

    # Per-unit hooks of the step skeleton (gridsim/engine/_skeleton.pxi); a step is truncated
    # where t reaches the episode's limit (0: none).

    cdef inline int unit_rows(self) noexcept nogil:
        return self.rows_per_unit

    cdef inline int unit_actions(self) noexcept nogil:
        return self.num_agents

    cdef inline int32_t ep_length(self, Py_ssize_t k) noexcept nogil:
        return self.t[k]

    cdef inline void stat_extras(self, Py_ssize_t k, Py_ssize_t row, bint ended) noexcept nogil:
        self.stat_dishes[row] = self.n_delivered[k] if ended else 0

    cdef inline KitchenStep step_context(self) noexcept nogil:
        cdef KitchenStep c
        c.unused = 0
        return c

    cdef inline int begin_step(self, const action_t* actions) noexcept nogil:
        return 0

    cdef inline bint step_one(self, KitchenStep* c, Py_ssize_t k, const action_t* actions, EventBuf* ev,
                             int32_t limit, float* reward, bint* truncated) noexcept nogil:
        # One simultaneous step of kitchen k's agents; the episode ends when every recipe is solved.
        cdef int a
        cdef bint success
        for a in range(self.num_agents):
            self.moves[k, a] = <int8_t>actions[k * self.num_agents + a]
        self.step_kitchen(k, ev)
        success = (self.solved[k] & self.all_recipes) == self.all_recipes
        if ev != NULL and success:
            emit_event(ev, k, KIT_EV_GOAL_REACHED, -1, -1, -1, -1)
        reward[0] = 1.0 if success else 0.0
        # This episode's limit, 0 = none.
        truncated[0] = self.t[k] >= limit if limit > 0 else False
        return success

    cdef inline void observe_step(self, KitchenStep* c, Py_ssize_t k) noexcept nogil:
        self.write_obs(k, False)
