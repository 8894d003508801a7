# Compiler directives come only from setup.py (see gridsim/_core.pyx).
"""The manipulation family's kernel (gridroboman): ``RobomanKernel`` and its constants.

A 7x7 grid without interior walls; positions are (x, y). Every field is stored
verbatim (held coordinates, both link directions) and no field is derived from
another, so injected inconsistent states evolve exactly as in the original.
An env is one 16-byte record (layout R_* below), stepped in place. ``RobomanKernel`` meets
the contract of ``gridsim/engine/kernel.pxd``; the step skeleton
(``gridsim/engine/_skeleton.pxi``) is compiled here for it alone.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

from gridsim.engine._rng cimport next_bounded
from gridsim.engine.kernel cimport EventBuf, Kernel, emit_event

import numpy as np

# The skeleton's loops are compiled for this family's one kernel class.
ctypedef float reward_t  # the state's float32 rewards
ctypedef fused kernel_t:
    RobomanKernel

include "../engine/_skeleton.pxi"
# FieldViews: the typed views of gridsim/roboman/fields.py (generated at build time).
include "_fields.pxi"


# Observation kinds.
cdef enum:
    ROBO_OBS_VECTOR = 0  # float32 (11 [+ K],): agent, then (x, y, status) per object [+ task one-hot]
    ROBO_OBS_GRID = 1    # uint8 (7, 7, 4): agent plane, then one plane per object (stack level)

# Goal kinds (gridsim.roboman.tasks.TASK_KINDS, same order).
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

# Event type ids: 1-based positions in gridsim.roboman.api.ROBOMAN_EVENTS.
cdef enum:
    ROBO_EV_LIFTED = 1         # [obj, from_below (-1 = floor)]
    ROBO_EV_PUT = 2            # [obj, onto (-1 = floor)]
    ROBO_EV_GOAL_REACHED = 3   # []

ROBOMAN_OBS_VECTOR = ROBO_OBS_VECTOR
ROBOMAN_OBS_GRID = ROBO_OBS_GRID
# Keyed by the names of gridsim.roboman.tasks.TASK_KINDS.
ROBOMAN_GOAL_KINDS = {"Lift{X}": G_LIFT, "Touch{X}": G_TOUCH, "Move{X}ToCenter": G_CENTER,
                      "Move{X}ToCorner": G_CORNER, "Touch{X}With{Y}": G_TOUCH_WITH,
                      "Move{X}CloseTo{Y}": G_CLOSE, "Move{X}FarFrom{Y}": G_FAR, "Stack{X}On{Y}": G_STACK}
ROBOMAN_RECORD = {"AX": R_AX, "AY": R_AY, "OBJ": R_OBJ, "ABOVE": R_ABOVE, "BELOW": R_BELOW,
                  "HELD": R_HELD, "TASK": R_TASK, "SIZE": R_SIZE}
ROBOMAN_EVENT_IDS = {"object_lifted": ROBO_EV_LIFTED, "object_put": ROBO_EV_PUT,
                     "goal_reached": ROBO_EV_GOAL_REACHED}


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


# The float of every int8 value, indexed by its byte: one load instead of an int-to-float
# conversion per field (exact for every value an injected record may hold).
cdef float[256] FLOAT_OF_INT8
cdef int _b
for _b in range(256):
    FLOAT_OF_INT8[_b] = <float><int8_t>_b


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
        v[0] = FLOAT_OF_INT8[<uint8_t>r[R_AX]]
        v[1] = FLOAT_OF_INT8[<uint8_t>r[R_AY]]
        for j in range(3):
            # -1 if something is on it; +1 (winning) if held or on something.
            s = -1.0 if r[R_ABOVE + j] >= 0 else 0.0
            if held == j or r[R_BELOW + j] >= 0:
                s = 1.0
            v[2 + 3 * j] = FLOAT_OF_INT8[<uint8_t>r[R_OBJ + 2 * j]]
            v[3 + 3 * j] = FLOAT_OF_INT8[<uint8_t>r[R_OBJ + 2 * j + 1]]
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


# What a step call's loop reads, copied into the loop's frame (RobomanKernel.step_context).
ctypedef struct RobomanStep:
    int8_t* records               # (N, R_SIZE)
    int64_t* timer
    const int8_t* task_kind
    const int8_t* task_x
    const int8_t* task_y
    const int16_t* task_slot
    float* obs_vec                # vector observations, else NULL
    int8_t* mask                  # (N, 7) action masks
    Py_ssize_t obs_size
    int one_hot                   # task one-hot width, 0 without


@cython.final
cdef class RobomanKernel(FieldViews):
    """The manipulation family's kernel over one :class:`gridsim.roboman.state.RobomanState`."""

    # ---- sizes and options ----
    cdef readonly int num_envs
    cdef readonly int obs_kind, obs_size
    cdef readonly int task_in_obs, num_tasks
    cdef public int exclude_solved       # redraw solved placements (read at reset only)

    # ---- tables ----
    cdef const int8_t[::1] task_kind      # (36,) goal kind of each task id
    cdef const int8_t[::1] task_x         # (36,) X object
    cdef const int8_t[::1] task_y         # (36,) Y object, -1 for one-object tasks
    cdef const int16_t[::1] task_set      # (K,) task ids an env may draw at reset

    # ---- per-env state: the typed views of FieldViews (gridsim/roboman/fields.py: the record, layout
    # above, the timer, the task slot, the action masks); the key, the episode stream and reseed (no
    # per-seed tables here) in Kernel; -1 means None ----

    # ---- outputs ----
    cdef float[:, ::1] obs_f32            # (N, obs_size) vector observations
    cdef uint8_t[:, ::1] obs_u8           # (N, 196) grid observations
    cdef float[:, ::1] final_f32
    cdef uint8_t[:, ::1] final_u8

    def __init__(self, state):
        self.num_envs = state.num_envs
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
        if self.obs_kind == ROBO_OBS_VECTOR:
            self.obs_f32 = state.obs
            self.final_f32 = state.final_obs
        else:
            self.obs_u8 = state.obs.reshape(self.num_envs, -1)
            # final_obs has rows only under SAME_STEP, the one mode that writes it (Kernel.final_rows).
            self.final_u8 = state.final_obs.reshape(len(state.final_obs), state.obs[0].size)
        # 2 threads measured slower than 1 up to 512 envs, faster from 1,024 (bench/README.md).
        bind_kernel(self, state, self.num_envs, 1, 1, 7, 1024, True)
        # A bad action and a pending reset are reported in env order (the lowest env's first).
        self.errors_in_env_order = True

    cdef void write_obs(self, Py_ssize_t i, bint final) noexcept nogil:
        # The observation and the action mask of env i's record.
        cdef const int8_t* r = &self.record[i, 0]
        if self.obs_kind == ROBO_OBS_VECTOR:
            robo_outputs(r, &self.final_action_mask[i, 0] if final else &self.action_mask[i, 0],
                         &self.final_f32[i, 0] if final else &self.obs_f32[i, 0], NULL,
                         self.num_tasks if self.task_in_obs else 0, self.task_slot[i])
        else:
            robo_outputs(r, &self.final_action_mask[i, 0] if final else &self.action_mask[i, 0],
                         NULL, &self.final_u8[i, 0] if final else &self.obs_u8[i, 0], 0, 0)

    def observe_as(self, int kind, obs, int8_t[:, ::1] action_mask=None):
        """Write every env's observation of ``kind`` and its action mask from the current records.

        Whatever the batch's own observation kind: ``kind`` ROBOMAN_OBS_VECTOR writes
        ``obs`` float32 (N, 11) or (N, 11 + num_tasks) (the task one-hot is written when
        the array has room for it); ROBOMAN_OBS_GRID writes ``obs`` uint8 (N, 7, 7, 4).
        ``action_mask`` int8 (N, 7), if given, gets the action masks.
        """
        cdef float[:, ::1] vec
        cdef uint8_t[:, ::1] grid
        cdef int8_t[:, ::1] mask = action_mask if action_mask is not None else np.empty((self.num_envs, 7), np.int8)
        cdef int one_hot = 0
        cdef Py_ssize_t i
        if mask.shape[0] != self.num_envs or mask.shape[1] != 7:
            raise ValueError(f"action_mask must have shape ({self.num_envs}, 7)")
        if kind == ROBO_OBS_VECTOR:
            vec = obs
            if vec.shape[0] != self.num_envs or vec.shape[1] not in (11, 11 + self.num_tasks):
                raise ValueError(f"vector observations must have shape ({self.num_envs}, 11 [+ {self.num_tasks}])")
            one_hot = <int>vec.shape[1] - 11
            with nogil:
                for i in range(self.num_envs):
                    robo_outputs(&self.record[i, 0], &mask[i, 0], &vec[i, 0], NULL, one_hot, self.task_slot[i])
        elif kind == ROBO_OBS_GRID:
            grid = obs.reshape(obs.shape[0], -1)
            if grid.shape[0] != self.num_envs or grid.shape[1] != 196 or obs.shape[1:] != (7, 7, 4):
                raise ValueError(f"grid observations must have shape ({self.num_envs}, 7, 7, 4)")
            with nogil:
                for i in range(self.num_envs):
                    robo_outputs(&self.record[i, 0], &mask[i, 0], NULL, &grid[i, 0], 0, 0)
        else:
            raise ValueError(f"unknown roboman observation kind {kind}")

    # ----------------------------------------------------------------- reset

    cdef void reset_one(self, Py_ssize_t i) noexcept nogil:
        # Draw env i's task from its (seeded) episode stream, then a placement uniform over 4
        # distinct cells: agent = U(49), then each object the k-th free cell (increasing
        # y * 7 + x) with k = U(48 - j).
        cdef uint64_t* s = &self.rng[i]
        cdef int8_t* r = &self.record[i, 0]
        cdef int taken[4]
        cdef int order[4]  # the taken cells, sorted
        cdef int j, c, q, t
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

    def bind_obs(self, obs):
        """Write observations into ``obs`` (N, *obs_shape) from now on (every row is rewritten each step)."""
        if self.obs_kind == ROBO_OBS_VECTOR:
            self.obs_f32 = obs
        else:
            self.obs_u8 = obs.reshape(self.num_envs, -1)

    # ------------------------------------------------------------------ step
    # Per-unit hooks of the step skeleton (gridsim/engine/_skeleton.pxi); a step is truncated
    # where the timer reaches the episode's limit.

    cdef inline int unit_rows(self) noexcept nogil:
        return 1

    cdef inline int unit_actions(self) noexcept nogil:
        return 1

    cdef inline int32_t ep_length(self, Py_ssize_t i) noexcept nogil:
        return <int32_t>self.timer[i]

    cdef inline void stat_extras(self, Py_ssize_t i, Py_ssize_t row, bint ended) noexcept nogil:
        pass

    cdef inline RobomanStep step_context(self) noexcept nogil:
        cdef RobomanStep c
        c.records = &self.record[0, 0]
        c.timer = &self.timer[0]
        c.task_kind = &self.task_kind[0]
        c.task_x = &self.task_x[0]
        c.task_y = &self.task_y[0]
        c.task_slot = &self.task_slot[0]
        c.obs_vec = &self.obs_f32[0, 0] if self.obs_kind == ROBO_OBS_VECTOR else NULL
        c.mask = &self.action_mask[0, 0]
        c.obs_size = self.obs_size
        c.one_hot = self.num_tasks if self.task_in_obs else 0
        return c

    cdef inline int begin_step(self, const action_t* actions) noexcept nogil:
        return 0

    cdef inline bint step_one(self, RobomanStep* c, Py_ssize_t i, const action_t* actions, EventBuf* ev,
                             int32_t limit, float* reward, bint* truncated) noexcept nogil:
        # Stepped in place: copying a record just written byte by byte stalls the CPU.
        cdef int8_t* r = c.records + R_SIZE * i
        cdef int t
        cdef bint term
        cdef int64_t timer
        robo_apply(r, <int>actions[i], ev, i)
        t = r[R_TASK]
        term = robo_goal(r, c.task_kind[t], c.task_x[t], c.task_y[t])
        # Saturates at INT32_MAX, the most an episode's length (int32) and the state can hold;
        # kept in a local, so the stores below (which may alias it) force no reload.
        timer = c.timer[i]
        timer += timer < 0x7FFFFFFF
        c.timer[i] = timer
        if ev != NULL and term:
            emit_event(ev, i, ROBO_EV_GOAL_REACHED, -1, -1, -1, -1)
        reward[0] = 1.0 if term else 0.0
        # This episode's limit; 0 (none) is never reached: a timer is >= 1 after a step.
        truncated[0] = timer == limit
        return term

    cdef inline void observe_step(self, RobomanStep* c, Py_ssize_t i) noexcept nogil:
        if c.obs_vec != NULL:
            robo_outputs(c.records + R_SIZE * i, c.mask + 7 * i, c.obs_vec + c.obs_size * i,
                         NULL, c.one_hot, c.task_slot[i] if c.one_hot else 0)
        else:
            self.write_obs(i, False)
