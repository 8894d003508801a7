# Included by gridsim/minigrid/_kernel.pyx: Minigrid's world, one env at a time, and the
# placement helpers its generators share (spec sections 2 and 4).
#
# A world is its cells, (H, W, 4) uint8: cell (x, y) holds (object, colour, state, contents)
# at 4 * (y * W + x), in Minigrid's own index tables (constants.py), so the observation copies
# cells as they are. An empty cell is (1, 0, 0, 0), Minigrid's encoding of None. A box's
# contents byte is 0 (empty) or 1 + object * 8 + colour (boxes hold keys and balls). The
# agent is not in the grid: agent = (x, y, dir), and carrying holds the carried object as a
# cell ((1, 0, 0, 0): nothing).

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef extern from "_pcg64.h" nogil:
    ctypedef struct mg_pcg64:
        uint64_t state_hi
        uint64_t state_lo
        uint64_t inc_hi
        uint64_t inc_lo
        uint64_t has_uint32
        uint64_t uinteger
    void mg_pcg64_seed(mg_pcg64* g, uint64_t seed_lo, uint64_t seed_hi)
    uint64_t mg_next_u64(mg_pcg64* g)
    uint32_t mg_next_u32(mg_pcg64* g)
    double mg_next_double(mg_pcg64* g)
    int64_t mg_integers(mg_pcg64* g, int64_t low, int64_t high)
    uint64_t mg_random_interval(mg_pcg64* g, uint64_t max)
    void mg_shuffle_int(mg_pcg64* g, int* items, int n)

# OBJECT_TO_IDX, COLOR_TO_IDX, STATE_TO_IDX (minigrid/core/constants.py).
cdef enum:
    OBJ_UNSEEN = 0
    OBJ_EMPTY = 1
    OBJ_WALL = 2
    OBJ_FLOOR = 3
    OBJ_DOOR = 4
    OBJ_KEY = 5
    OBJ_BALL = 6
    OBJ_BOX = 7
    OBJ_GOAL = 8
    OBJ_LAVA = 9
    OBJ_AGENT = 10

cdef enum:
    C_RED = 0
    C_GREEN = 1
    C_BLUE = 2
    C_PURPLE = 3
    C_YELLOW = 4
    C_GREY = 5

cdef enum:
    ST_OPEN = 0
    ST_CLOSED = 1
    ST_LOCKED = 2

# Actions (minigrid/core/actions.py).
cdef enum:
    A_LEFT = 0
    A_RIGHT = 1
    A_FORWARD = 2
    A_PICKUP = 3
    A_DROP = 4
    A_TOGGLE = 5
    A_DONE = 6

# Per-episode slots of a generator's own data (task, (U, TASK_SLOTS) int16).
cdef enum:
    TASK_SLOTS = 20

# COLOR_NAMES (alphabetical: the draw order) -> COLOR_TO_IDX.
cdef int[6] COLOR_OF_DRAW = [C_BLUE, C_GREEN, C_GREY, C_PURPLE, C_RED, C_YELLOW]
# DIR_TO_VEC: 0 right, 1 down, 2 left, 3 up.
cdef int[4] DIR_DX = [1, 0, -1, 0]
cdef int[4] DIR_DY = [0, 1, 0, -1]

# What one id's generator and rules read (gridsim.minigrid.ids.MinigridSpec, compiled).
cdef struct MgConfig:
    int gen             # GEN_* (the task table's, gridsim/minigrid/tasks.py)
    int rule            # RULE_*: what a step does beyond moving (the task's, or a Python task's own)
    size_t fn           # a compiled task's generator: int fn(World*) (gridsim.minigrid.compiled)
    int num_missions    # a compiled task's missions (its generator's set_mission is checked against them)
    int W
    int H
    int max_steps       # Minigrid's max_steps (the reward's denominator when no limit is set)
    int see_through     # see_through_walls
    int view            # agent_view_size V (odd, >= 3)
    int[8] p            # the generator's parameters (its task's params)
    int babyai          # a BabyAI id: objects with identity, instructions, a mission of tokens
    int nav_cells       # BabyAI: max_steps per navigation its instructions need (0: the id's max_steps)

# One env's world, as the generators and the step see it (pointers into the batch's arrays).
cdef struct World:
    uint8_t* cells      # (H, W, 4)
    int W
    int H
    int32_t* agent      # x, y, dir (-1, -1, -1 while a generator has not placed it)
    uint8_t* carrying   # 4 bytes, a cell
    int16_t* task       # TASK_SLOTS generator slots
    int16_t* mission    # the mission's index in the id's mission list
    mg_pcg64* rng
    # BabyAI ids only (NULL otherwise): each cell's object identity (H, W) and the instruction
    # state (_babyai.pxi).
    uint8_t* oid
    int16_t* bab
    # A compiled task's RoomGrid (_primitives.pxi), set by gen_compiled for its generator only.
    void* rooms


cdef inline uint8_t* cell_at(World* w, int x, int y) noexcept nogil:
    return w.cells + 4 * (y * w.W + x)


cdef inline void put(World* w, int x, int y, int obj, int color, int state) noexcept nogil:
    # grid.set / put_obj: overwrites whatever is there.
    cdef uint8_t* c = cell_at(w, x, y)
    c[0] = <uint8_t>obj
    c[1] = <uint8_t>color
    c[2] = <uint8_t>state
    c[3] = 0
    if w.oid != NULL:
        # A door, key, ball or box put down is a new object (Minigrid's objects have identity).
        w.oid[y * w.W + x] = new_oid(w) if OBJ_DOOR <= obj <= OBJ_BOX else 0


cdef inline uint8_t new_oid(World* w) noexcept nogil:
    # The next object identity of a BabyAI world (1..255; 0 is no object; the last is reused
    # past 255 objects, more than any level makes).
    cdef int16_t* n = &w.bab[0]
    if n[0] < 255:
        n[0] += 1
    return <uint8_t>n[0]


cdef inline void put_wall(World* w, int x, int y) noexcept nogil:
    put(w, x, y, OBJ_WALL, C_GREY, 0)


cdef inline void put_goal(World* w, int x, int y) noexcept nogil:
    put(w, x, y, OBJ_GOAL, C_GREEN, 0)


cdef inline void put_lava(World* w, int x, int y) noexcept nogil:
    put(w, x, y, OBJ_LAVA, C_RED, 0)


cdef inline void clear(World* w, int x, int y) noexcept nogil:
    put(w, x, y, OBJ_EMPTY, 0, 0)


cdef inline bint is_empty(World* w, int x, int y) noexcept nogil:
    return cell_at(w, x, y)[0] == OBJ_EMPTY


cdef inline int rint(World* w, int a, int b) noexcept nogil:
    # _rand_int(a, b): integers(a, b), a < b (a range of one value draws nothing).
    return <int>mg_integers(w.rng, a, b)


cdef inline int rcolor(World* w) noexcept nogil:
    # _rand_color(): a draw over COLOR_NAMES, as its COLOR_TO_IDX index.
    return COLOR_OF_DRAW[rint(w, 0, 6)]


cdef inline void horz_wall(World* w, int x, int y, int length, int obj, int color) noexcept nogil:
    cdef int i
    for i in range(length):
        put(w, x + i, y, obj, color, 0)


cdef inline void vert_wall(World* w, int x, int y, int length, int obj, int color) noexcept nogil:
    cdef int j
    for j in range(length):
        put(w, x, y + j, obj, color, 0)


cdef inline void wall_rect(World* w, int x, int y, int wd, int ht) noexcept nogil:
    # Grid.wall_rect: top row, bottom row, left column, right column.
    horz_wall(w, x, y, wd, OBJ_WALL, C_GREY)
    horz_wall(w, x, y + ht - 1, wd, OBJ_WALL, C_GREY)
    vert_wall(w, x, y, ht, OBJ_WALL, C_GREY)
    vert_wall(w, x + wd - 1, y, ht, OBJ_WALL, C_GREY)


cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int iabs(int v) noexcept nogil:
    return v if v >= 0 else -v


cdef inline int place_obj_rejecting(World* w, int tx, int ty, int sx, int sy, int obj, int color, int state,
                                    bint reject_next_to, const int* apart_x, const int* apart_y, int num_apart,
                                    int max_tries, int* out_x, int* out_y) noexcept nogil:
    # MiniGridEnv.place_obj over the rectangle (tx, ty, sx, sy) (clipped to the grid): candidate
    # cells x then y until one is empty and not the agent's and passes the reject_fn: with
    # reject_next_to, not 4-adjacent to the agent (RoomGrid's reject_next_to); with num_apart,
    # not in the 3x3 around any of the num_apart cells (apart_x[k], apart_y[k]) (PutNear's
    # near_obj). Then the object is put there (obj OBJ_EMPTY puts nothing: place_agent).
    # max_tries < 0: no limit; else -1 after max_tries + 1 failed attempts (Minigrid's
    # RecursionError), every attempt's two draws consumed.
    cdef int tries = 0, x, y, k
    cdef bint near
    tx = imax(tx, 0)
    ty = imax(ty, 0)
    while True:
        if max_tries >= 0 and tries > max_tries:
            return -1
        tries += 1
        x = rint(w, tx, imin(tx + sx, w.W))
        y = rint(w, ty, imin(ty + sy, w.H))
        if not is_empty(w, x, y):
            continue
        if x == w.agent[0] and y == w.agent[1]:
            continue
        if reject_next_to and iabs(w.agent[0] - x) + iabs(w.agent[1] - y) < 2:
            continue
        near = False
        for k in range(num_apart):
            if iabs(x - apart_x[k]) <= 1 and iabs(y - apart_y[k]) <= 1:
                near = True
                break
        if near:
            continue
        break
    if obj != OBJ_EMPTY:
        put(w, x, y, obj, color, state)
    out_x[0] = x
    out_y[0] = y
    return 0


cdef int place_obj(World* w, int tx, int ty, int sx, int sy, int obj, int color, int state,
                   bint reject_next_to, int max_tries, int* out_x, int* out_y) noexcept nogil:
    # place_obj_rejecting with no cells to keep apart from: inlined here, so this copy has no
    # loop over them (Dynamic-Obstacles places every obstacle with it on every step; the
    # shared loop cost its step 3.5%). PutNear inlines the other copy.
    return place_obj_rejecting(w, tx, ty, sx, sy, obj, color, state, reject_next_to, NULL, NULL, 0,
                               max_tries, out_x, out_y)


cdef int place_agent(World* w, int tx, int ty, int sx, int sy, bint rand_dir, int max_tries) noexcept nogil:
    # MiniGridEnv.place_agent: a cell by place_obj (the agent's old cell forgotten first), then
    # a direction draw.
    cdef int x, y
    w.agent[0] = -1
    w.agent[1] = -1
    if place_obj(w, tx, ty, sx, sy, OBJ_EMPTY, 0, 0, False, max_tries, &x, &y) < 0:
        return -1
    w.agent[0] = x
    w.agent[1] = y
    if rand_dir:
        w.agent[2] = rint(w, 0, 4)
    return 0


cdef inline void set_agent(World* w, int x, int y, int d) noexcept nogil:
    w.agent[0] = x
    w.agent[1] = y
    w.agent[2] = d
