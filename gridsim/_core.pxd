# cython: language_level=3
"""Declarations shared by the kernel: flag bits, error codes, modes, the nav kernel's fields."""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

# Tile flag bits (gridsim.nav.alphabet defines the same values; a test checks they agree).
# They fit in a byte, so per-cell flag maps are uint8.
cdef enum:
    F_WALKABLE = 1      # a move onto the tile succeeds
    F_TERMINAL = 2      # ending a step on it terminates the episode
    F_INITIAL = 4       # start-cell candidate
    F_STOCHASTIC = 8    # fresh reward draw on every visit (episode stream)
    F_COLLECTIBLE = 16  # pays once per episode, then the cell holds the default tile

# Error codes the kernel reports instead of raising inside nogil.
cdef enum:
    E_OK = 0
    E_BAD_ACTION = 1    # discrete action out of range
    E_NAN_ACTION = 2    # NaN in a continuous action (nan_action="error")
    E_NEEDS_RESET = 3   # DISABLED mode: stepping an env that ended without a reset
    E_BAD_SHAPE = 4     # action array of the wrong length
    E_INTERNAL = 5      # debug builds: an index escaped its array (a kernel bug)

# Autoreset modes; CONTINUE is the single-env view's (no reset, no error, no statistics).
cdef enum:
    AR_NEXT_STEP = 0
    AR_SAME_STEP = 1
    AR_DISABLED = 2
    AR_CONTINUE = 3

# Observation kinds.
cdef enum:
    OBS_COORDS = 0      # int32 (2,) [row, col]
    OBS_IMAGE = 1       # uint8 (H*k, W*k, 3) or (3, H*k, W*k)
    OBS_VIEW = 2        # uint8 (v, v) tile ids centred on the agent


# Raw pointers into a batch's event buffers (gridsim.state.alloc_event_buffers), bound by a
# step call (a local: a pointer member would make the kernels unpicklable); U worlds (envs, or
# kitchens), E slots per world and step, F int32 fields per event.
cdef struct EventBuf:
    int16_t* types       # (U, E) 1-based index into the family's event specs
    int32_t* payload     # (U, E, F) fields, unused ones -1
    int32_t* count       # (U,) events recorded in the world's last step
    int64_t* dropped     # (U,) events lost to overflow, cumulative
    Py_ssize_t units     # U
    int cap              # E >= 1
    int nf               # F in 1..4

# Event type ids: 1-based positions in gridsim.events.NAV_EVENTS / ROBOMAN_EVENTS / KITCHEN_EVENTS.
cdef enum:
    NAV_EV_GOAL_REACHED = 1    # [row, col]
    NAV_EV_TILE_COLLECTED = 2  # [row, col]
    NAV_EV_WALL_BUMP = 3       # [row, col] of the cell the move ran into
    ROBO_EV_LIFTED = 1         # [obj, from_below (-1 = floor)]
    ROBO_EV_PUT = 2            # [obj, onto (-1 = floor)]
    ROBO_EV_GOAL_REACHED = 3   # []
    KIT_EV_PICKED = 1          # [agent, item, x, y]
    KIT_EV_PUT = 2             # [agent, item, x, y]
    KIT_EV_CHOPPED = 3         # [agent, item]
    KIT_EV_MERGED = 4          # [agent, item]
    KIT_EV_DELIVERED = 5       # [agent, item, recipe_bits]
    KIT_EV_COLLISION = 6       # [agent, blocker (-1 = contested cell)]
    KIT_EV_GOAL_REACHED = 7    # []


@cython.final
cdef class NavKernel:
    # ---- sizes and options (fixed at construction) ----
    cdef readonly int num_envs
    cdef readonly int height, width      # real map size (all maps of one batch share it)
    cdef readonly int pad                # VOID border around each stored map, >= view radius
    cdef readonly Py_ssize_t row_stride  # W + 2 * pad: cells per stored row
    cdef readonly Py_ssize_t map_cells   # (H + 2 * pad) * (W + 2 * pad)
    cdef readonly int obs_kind, view_size, pixels_per_cell, channels_first
    cdef public int autoreset_mode       # read at every step call (advance() switches it to DISABLED)
    cdef readonly int num_actions, nan_to_zero
    cdef readonly int mutable            # cells can change in an episode (collectibles, random goals)
    cdef readonly int planes             # 2 when mutable: plane 1 = value after becoming default
    cdef readonly int randomize_goals
    cdef readonly int clamp              # some border cell is walkable: clamp moves into the map
    cdef public int max_steps            # truncation limit of new episodes, 0 = none
    cdef readonly uint8_t default_tile
    cdef uint8_t agent_color[3]
    cdef int8_t action_code[16]          # discrete action -> move code (dr + 1) * 3 + (dc + 1)
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

    # ---- per-env state (owned by gridsim.state.NavState) ----
    cdef int32_t[::1] map_id          # (N,) which level map
    cdef uint8_t[:, ::1] grid         # (G, Hp * Wp) current tiles; G = N if mutable else M
    cdef uint8_t[:, ::1] cell_flags   # (G, Hp * Wp) F_* bits of the current tiles
    cdef int32_t[::1] grid_index      # (N,) row of grid / cell_flags used by each env
    cdef float[:, :, ::1] cell_reward # (R, planes, Hp * Wp) fixed rewards
    cdef int32_t[::1] reward_index    # (N,) row of cell_reward used by each env
    cdef readonly int per_env_table   # cell_reward is drawn per env seed (R = N)
    cdef int32_t[::1] agent_cell      # (N,) the agent's cell
    cdef int32_t[::1] step_count      # (N,) steps in the current episode
    cdef int64_t[::1] episode         # (N,) episode counter of the env's key
    cdef uint64_t[:, ::1] key         # (N, 2) 128-bit per-env key
    cdef uint64_t[::1] rng            # (N,) episode stream state
    cdef double[::1] ep_return        # (N,) return so far
    cdef uint8_t[::1] needs_reset     # (N,) ended; reset pending (NEXT_STEP) or required (DISABLED)
    cdef uint8_t[::1] reseed          # (N,) draw the fixed reward table at the next reset
    cdef int32_t[::1] start_override  # (N,) >= 0: the next reset starts at this cell
    cdef int32_t[::1] ep_max_steps    # (N,) truncation limit of the current episode, 0 = none

    # ---- events (gridsim.events.NAV_EVENTS), one world per env ----
    cdef readonly int events_on, max_events, num_event_fields
    cdef int16_t[:, ::1] event_type   # (N, E)
    cdef int32_t[:, :, ::1] event_payload  # (N, E, F)
    cdef int32_t[::1] event_count     # (N,)
    cdef int64_t[::1] event_dropped   # (N,)

    # ---- outputs, rewritten every call ----
    cdef uint8_t[:, ::1] obs_u8       # (N, obs_size) when the observation is uint8
    cdef int32_t[:, ::1] obs_i32      # (N, 2) when it is coords
    cdef uint8_t[:, ::1] final_u8     # SAME_STEP final observations
    cdef int32_t[:, ::1] final_i32
    cdef uint8_t[::1] final_mask      # (N,) bool
    cdef float[::1] rewards           # (N,)
    cdef uint8_t[::1] terminated      # (N,) bool
    cdef uint8_t[::1] truncated       # (N,) bool
    cdef uint8_t[::1] stat_mask       # (N,) bool: an episode ended on this call
    cdef double[::1] stat_return      # (N,)
    cdef int32_t[::1] stat_length     # (N,)
    cdef int8_t[::1] moves            # (N,) scratch: continuous actions as move codes
    cdef int32_t[::1] ended_rows      # (N,) rows whose stat_* / final_mask the last call set
    cdef Py_ssize_t n_ended           # valid entries of ended_rows

    cdef readonly int err_env, err_code

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil
    cdef void draw_table(self, Py_ssize_t i) noexcept nogil
    cdef void write_obs(self, Py_ssize_t i, bint final) noexcept nogil
    cdef void write_image(self, Py_ssize_t i, uint8_t* out, int k, bint chw) noexcept nogil
    cdef void paint_cell(self, Py_ssize_t i, Py_ssize_t cell) noexcept nogil
    cdef Py_ssize_t target_cell(self, Py_ssize_t cell, int code) noexcept nogil


# Roboman observation kinds.
cdef enum:
    ROBO_OBS_VECTOR = 0  # float32 (11 [+ K],): agent, then (x, y, status) per object [+ task one-hot]
    ROBO_OBS_GRID = 1    # uint8 (7, 7, 4): agent plane, then one plane per object (stack level)

# Roboman goal kinds (gridsim.roboman.tasks.TASK_KINDS, same order).
cdef enum:
    G_LIFT = 0
    G_TOUCH = 1
    G_CENTER = 2
    G_CORNER = 3
    G_TOUCH_WITH = 4
    G_CLOSE = 5
    G_FAR = 6
    G_STACK = 7


# Layout of one env's record (RobomanState.record, (N, 16) int8); -1 means None.
cdef enum:
    R_AX = 0       # agent x
    R_AY = 1       # agent y
    R_OBJ = 2      # R_OBJ + 2 * j: x of object j (red, green, blue); + 1: its y
    R_ABOVE = 8    # R_ABOVE + j: object directly on top of j
    R_BELOW = 11   # R_BELOW + j: object directly under j
    R_HELD = 14    # lifted object
    R_TASK = 15    # the env's task id (a row of gridsim.roboman.TASKS)
    R_SIZE = 16


@cython.final
cdef class RobomanKernel:
    # ---- sizes and options ----
    cdef readonly int num_envs
    cdef public int autoreset_mode       # read at every step call (advance() switches it to DISABLED)
    cdef readonly int obs_kind, obs_size
    cdef readonly int task_in_obs, num_tasks
    cdef public int exclude_solved       # redraw solved placements (read at reset only)
    cdef public int64_t max_steps        # limit of new episodes: truncated on the step where timer == it

    # ---- tables ----
    cdef const int8_t[::1] task_kind      # (36,) goal kind of each task id
    cdef const int8_t[::1] task_x         # (36,) X object
    cdef const int8_t[::1] task_y         # (36,) Y object, -1 for one-object tasks
    cdef const int16_t[::1] task_set      # (K,) task ids an env may draw at reset

    # ---- per-env state (owned by gridsim.state.RobomanState); -1 means None ----
    cdef int8_t[:, ::1] record            # (N, R_SIZE) agent, objects, links, held, task (layout above)
    cdef int64_t[::1] timer               # (N,) steps in this episode
    cdef int16_t[::1] task_slot           # (N,) index of the task in task_set
    cdef int64_t[::1] episode             # (N,)
    cdef uint64_t[:, ::1] key             # (N, 2)
    cdef uint64_t[::1] rng                # (N,) episode stream state
    cdef double[::1] ep_return            # (N,)
    cdef uint8_t[::1] needs_reset         # (N,) bool
    cdef uint8_t[::1] reseed              # (N,) bool: cleared at reset (no per-seed tables here)
    cdef int32_t[::1] ep_max_steps        # (N,) the current episode's limit, 0 = none

    # ---- events (gridsim.events.ROBOMAN_EVENTS), one world per env ----
    cdef readonly int events_on, max_events, num_event_fields
    cdef int16_t[:, ::1] event_type       # (N, E)
    cdef int32_t[:, :, ::1] event_payload # (N, E, F)
    cdef int32_t[::1] event_count         # (N,)
    cdef int64_t[::1] event_dropped       # (N,)

    # ---- outputs ----
    cdef float[:, ::1] obs_f32            # (N, obs_size) vector observations
    cdef uint8_t[:, ::1] obs_u8           # (N, 196) grid observations
    cdef float[:, ::1] final_f32
    cdef uint8_t[:, ::1] final_u8
    cdef int8_t[:, ::1] action_mask       # (N, 7) 1 = masked out
    cdef int8_t[:, ::1] final_action_mask # (N, 7) SAME_STEP: the mask of the final state
    cdef uint8_t[::1] final_mask          # (N,) bool
    cdef float[::1] rewards
    cdef uint8_t[::1] terminated
    cdef uint8_t[::1] truncated
    cdef uint8_t[::1] stat_mask
    cdef double[::1] stat_return
    cdef int32_t[::1] stat_length
    cdef uint8_t[::1] stat_success        # (N,) bool: the episode ended terminated
    cdef int32_t[::1] ended_rows
    cdef Py_ssize_t n_ended

    cdef readonly int err_env, err_code

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil
    cdef void write_outputs(self, Py_ssize_t i, const int8_t* r, bint final) noexcept nogil


# Kitchen tile kinds (gridsim.kitchen.rules, same order).
cdef enum:
    T_FLOOR = 0
    T_COUNTER = 1
    T_CUTBOARD = 2
    T_DELIVERY = 3


@cython.final
cdef class KitchenKernel:
    # ---- sizes and options ----
    cdef readonly int num_kitchens, num_agents, num_rows   # rows = kitchens, or kitchens x agents
    cdef readonly int height, width, num_cells, num_items, num_components
    cdef readonly int agent_rows                # one row per agent (obs gets a "this agent" channel)
    cdef readonly int obs_channels, channels_first
    cdef public int autoreset_mode       # read at every step call (advance() switches it to DISABLED)
    cdef readonly int max_deliveries
    cdef public int max_steps                   # limit of new episodes: truncated when t >= it (0 none)
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

    # ---- per-kitchen state (owned by gridsim.state.KitchenState) ----
    cdef int16_t[:, ::1] agent_cell             # (K, A)
    cdef int16_t[:, ::1] held                   # (K, A) held item, 0 none
    cdef int16_t[:, ::1] tile_item              # (K, C) item lying on each cell, 0 none
    cdef uint16_t[:, ::1] delivered_bits        # (K, C) components delivered to each delivery cell
    cdef uint32_t[::1] solved                   # (K,) recipes satisfied by a delivered item
    cdef int16_t[::1] n_delivered               # (K,)
    cdef int16_t[:, ::1] delivered_item         # (K, D) delivered items, in order
    cdef int16_t[:, ::1] delivered_cell         # (K, D) and where
    cdef int32_t[::1] t                         # (K,) steps in this episode
    cdef int64_t[::1] episode                   # (K,)
    cdef double[::1] ep_return                  # (K,)
    cdef uint8_t[::1] needs_reset               # (K,)
    cdef int32_t[::1] ep_max_steps              # (K,) the current episode's limit, 0 = none
    cdef const uint8_t[::1] base_obs            # (obs_size,) the tile channels of one row

    # ---- outputs (per row) ----
    cdef uint8_t[:, ::1] obs                    # (R, obs_size)
    cdef uint8_t[:, ::1] final_obs              # (R, obs_size)
    cdef uint8_t[::1] final_mask                # (R,)
    cdef float[::1] rewards                     # (R,)
    cdef uint8_t[::1] terminated                # (R,)
    cdef uint8_t[::1] truncated                 # (R,)
    cdef uint8_t[::1] stat_mask                 # (R,)
    cdef double[::1] stat_return                # (R,)
    cdef int32_t[::1] stat_length               # (R,)
    cdef uint8_t[::1] stat_success              # (R,)
    cdef int32_t[::1] stat_dishes               # (R,) items delivered in the episode
    cdef int32_t[::1] ended_rows                # (R,)
    cdef Py_ssize_t n_ended
    cdef int8_t[:, ::1] moves                   # (K, A) scratch: validated actions

    # ---- events (gridsim.events.KITCHEN_EVENTS), one world per kitchen ----
    cdef readonly int events_on, max_events, num_event_fields
    cdef int16_t[:, ::1] event_type             # (K, E)
    cdef int32_t[:, :, ::1] event_payload       # (K, E, F)
    cdef int32_t[::1] event_count               # (K,)
    cdef int64_t[::1] event_dropped             # (K,)

    cdef readonly int err_env, err_code

    cdef void reset_one(self, Py_ssize_t k) noexcept nogil
    cdef void step_kitchen(self, Py_ssize_t k) noexcept nogil
    cdef void interact(self, Py_ssize_t k, int a, int cell) noexcept nogil
    cdef void write_obs(self, Py_ssize_t k, bint final) noexcept nogil
    cdef void add_event(self, Py_ssize_t k, int kind, int f0, int f1, int f2, int f3) noexcept nogil
