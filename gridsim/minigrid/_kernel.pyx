# Compiler directives come only from setup.py (see gridsim/_core.pyx).
"""The MiniGrid family's kernel (Farama Minigrid 3.2.0, seed for seed): ``MinigridKernel``.

Each env carries numpy's generator state (``_pcg64.h``) and its world (``_world.pxi``); a
reset runs the id's generator (``_generators.pxi``) on that generator, so env i reset with
seed s is Minigrid's env reset with seed s, draw for draw. ``MinigridKernel`` meets the
contract of ``gridsim/engine/kernel.pxd``; the step skeleton (``gridsim/engine/_skeleton.pxi``)
is compiled here for it alone, with float64 rewards.
"""

cimport cython
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from gridsim.engine.kernel cimport EventBuf, Kernel

import numpy as np

# The skeleton's loops are compiled for this family's one kernel class; Minigrid's rewards are doubles.
ctypedef double reward_t
ctypedef fused kernel_t:
    MinigridKernel

include "../engine/_skeleton.pxi"
# FieldViews: the typed views of gridsim/minigrid/fields.py (generated at build time).
include "_fields.pxi"
include "_world.pxi"
include "_generators.pxi"
include "_roomgrid.pxi"
include "_babyai.pxi"
# The BabyAI bot (gridsim.minigrid.bot).
include "_babybot.pxi"
# What a compiled task's generator calls (gridsim.minigrid.compiled).
include "_primitives.pxi"
# The task table's generator and rule numbers and its dispatch (generated from gridsim/minigrid/tasks.py).
include "_tasks.pxi"

# Observation kinds: the agent's view (V, V, 3); the whole grid (W, H, 3) as FullyObsWrapper's;
# the view's tiles (V * ts, V * ts, 3) as RGBImgPartialObsWrapper's; the world's tiles
# (H * ts, W * ts, 3) as RGBImgObsWrapper's.
cdef enum:
    MG_OBS_VIEW = 0
    MG_OBS_FULL = 1
    MG_OBS_RGB = 2
    MG_OBS_RGB_FULL = 3
    MAX_VIEW = 31

MINIGRID_OBS_VIEW = MG_OBS_VIEW
MINIGRID_OBS_FULL = MG_OBS_FULL
MINIGRID_OBS_RGB = MG_OBS_RGB
MINIGRID_OBS_RGB_FULL = MG_OBS_RGB_FULL
MINIGRID_MAX_VIEW = MAX_VIEW
MINIGRID_TASK_SLOTS = TASK_SLOTS
MINIGRID_BABYAI_SLOTS = BAB_SLOTS
MINIGRID_MISSION_TOKENS = MISSION_TOKENS
MINIGRID_BOT_SLOTS = BOT_SLOTS
# Where the bot's state lies in a BabyAI env's slots (_babybot.pxi; gridsim.minigrid.bot).
MINIGRID_BOT_LAYOUT = {"live": BOT_LIVE, "failure": BOT_FAILURE, "depth": BOT_DEPTH, "failed": BOT_FAILED,
                       "max_depth": BOT_MAX_DEPTH, "last_failure": BOT_FAIL_STATE, "stack_at": BOT_STACK_AT,
                       "subgoal": SG_SIZE, "max_cells": BOT_MAX_CELLS}
# Why an env's bot failed: BOT_FAIL_* (its state's failure slot) -> what happened.
MINIGRID_BOT_FAILURES = {
    BOT_FAIL_BOX: "a box was opened (upstream raises DisappearedBoxError)",
    BOT_FAIL_RAISES: "upstream raises (an assertion of a subgoal, or a subgoal with no cell)",
    BOT_FAIL_BOUND: "the search bound: more replans in one call than upstream would ever need",
    BOT_FAIL_CAPACITY: "the bot's capacity: a deeper stack or more keys of a colour than it holds",
    BOT_FAIL_STATE: "a written state the bot cannot read",
}
# Where the instruction state's parts lie in a BabyAI env's slots (_babyai.pxi; gridsim.minigrid.babyai).
MINIGRID_BABYAI_LAYOUT = {"header": BAB_HEADER, "node": BAB_NODE, "desc": BAB_DESC, "max_nodes": BAB_MAX_NODES,
                          "max_descs": BAB_MAX_DESCS, "max_set": BAB_MAX_SET, "next_oid": BAB_NEXT_OID,
                          "num_nodes": BAB_NUM_NODES, "num_descs": BAB_NUM_DESCS, "root": BAB_ROOT,
                          "rejected": BAB_REJECTED, "navs": BAB_NAVS, "carried": BAB_CARRIED, "shown": BAB_SHOWN,
                          "moved": BAB_MOVED, "nodes_at": BAB_NODES_AT, "descs_at": BAB_DESCS_AT,
                          "poss_at": BAB_POSS_AT, "sets_at": BAB_SETS_AT}
MINIGRID_OBJECTS = {"unseen": OBJ_UNSEEN, "empty": OBJ_EMPTY, "wall": OBJ_WALL, "floor": OBJ_FLOOR,
                    "door": OBJ_DOOR, "key": OBJ_KEY, "ball": OBJ_BALL, "box": OBJ_BOX, "goal": OBJ_GOAL,
                    "lava": OBJ_LAVA, "agent": OBJ_AGENT}


cdef inline bint can_overlap(const uint8_t* c) noexcept nogil:
    # An open door, a goal, lava or floor (an empty cell is tested apart).
    cdef uint8_t o = c[0]
    return o == OBJ_GOAL or o == OBJ_LAVA or o == OBJ_FLOOR or (o == OBJ_DOOR and c[2] == ST_OPEN)


cdef inline bint can_pickup(uint8_t o) noexcept nogil:
    return o == OBJ_KEY or o == OBJ_BALL or o == OBJ_BOX


cdef inline bint door_open_at(World* w, int x, int y) noexcept nogil:
    # An open door at (x, y) (task slots name Unlock's and RedBlueDoors' doors; a state set from
    # outside may name any cell).
    cdef uint8_t* c
    if not (0 <= x < w.W and 0 <= y < w.H):
        return False
    c = cell_at(w, x, y)
    return c[0] == OBJ_DOOR and c[2] == ST_OPEN


cdef inline double success_reward(int32_t step_count, int32_t max_steps) noexcept nogil:
    # MiniGridEnv._reward, in this order of operations (another algebraic form differs in the last bit).
    cdef double q = <double>step_count / <double>max_steps
    return 1.0 - 0.9 * q


# TRANSPARENT[object | state << 4]: 1 unless a wall, or a door that is not open (see_behind).
cdef uint8_t[64] TRANSPARENT = [
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   # state 0 (open)
    1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   # state 1 (closed)
    1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,   # state 2 (locked)
    1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]

# What the view shows of a cell outside the map (a cell word: object, colour, state, contents).
cdef enum:
    WALL_OUTSIDE = OBJ_WALL | (C_GREY << 8)


cdef inline uint32_t transparent(uint32_t c) noexcept nogil:
    # TRANSPARENT of a cell word (little-endian: object, colour, state).
    return TRANSPARENT[(c & 0xF) | ((c >> 12) & 0x30)]


cdef inline uint32_t fill_up(uint32_t p, uint32_t t) noexcept nogil:
    # The closure of p (a subset of t) under i -> i + 1 within t, as rounds of p |= (p << 1) & t
    # make it, by one addition: in each run of t's bits, adding p carries from the run's lowest
    # bit of p through the rest of the run, so the carries into the run's bits, (t + p) ^ t ^ p,
    # are its bits above that one (t has at most 31 bits: the sum fits).
    return (((t + p) ^ t ^ p) & t) | p


cdef inline uint32_t fill_down(uint32_t p, uint32_t t, int V) noexcept nogil:
    # The closure of p (a subset of t, V bits) under i -> i - 1 within t, as V - 1 rounds of
    # p |= (p >> 1) & t make it. Carries cannot run down, so: log2(V) doubling steps (a
    # Kogge-Stone fill); at the step of shift s, run has bit b set where the s bits of t from b
    # up are all set. V is a constant at each call: the steps fold.
    cdef uint32_t run = t
    p |= (p >> 1) & run
    if V > 2:
        run &= run >> 1
        p |= (p >> 2) & run
    if V > 4:
        run &= run >> 2
        p |= (p >> 4) & run
    if V > 8:
        run &= run >> 4
        p |= (p >> 8) & run
    if V > 16:
        run &= run >> 8
        p |= (p >> 16) & run
    return p


cdef inline uint32_t sweep_row(uint32_t t, int V, uint32_t* reached) noexcept nogil:
    # One row of Grid.process_vis on bit masks, rows taken from the agent outwards: t has bit i
    # set where view cell i of the row is transparent, reached[0] where the nearer row marked
    # the cell visible (the agent's cell, in the nearest row). Returns the row's visible cells
    # and sets reached[0] to the cells it marks in the next row.
    #
    # The left-to-right pass marks cell i + 1 visible for every visible transparent cell
    # i <= V - 2, in order, so the cells that propagate are the closure of (visible &
    # transparent) under i -> i + 1 through transparent cells; the right-to-left pass is the
    # mirror image on the updated row, for i >= 1; each propagating cell also marks its own
    # column and the next one in the pass's direction in the next row.
    cdef uint32_t full = (<uint32_t>1 << V) - 1, low = (<uint32_t>1 << (V - 1)) - 1
    cdef uint32_t v = reached[0], p, q, up
    p = fill_up(v & t, t) & low
    v |= p << 1
    up = p | (p << 1)
    q = fill_down(v & t, t, V) & ~(<uint32_t>1)
    v |= q >> 1
    up |= q | (q >> 1)
    reached[0] = up & full
    return v & full


cdef struct ViewRows:
    # The view's rows on the map, from the agent outwards. A row runs along x (the agent facing
    # up or down) or along y, so its other coordinate is the same for all its cells: the row is
    # beyond the map, or inside but for the cells whose running coordinate leaves [0, L).
    int x, y                 # the current row's first cell (view column 0)
    int fx, fy               # one row farther
    int dp, dk               # one cell along the row: its running coordinate, its grid index
    bint along_x
    unsigned L, L_across     # the map's extent along the rows and across them


cdef inline ViewRows view_rows(const World* w, int V) noexcept nogil:
    # The nearest row of the agent's V x V view (gen_obs_grid's orientation).
    cdef ViewRows r
    cdef int d = w.agent[2] & 3
    cdef int rx = -DIR_DY[d], ry = DIR_DX[d]
    r.fx = DIR_DX[d]
    r.fy = DIR_DY[d]
    r.along_x = rx != 0
    r.dp = rx + ry
    r.dk = rx + ry * w.W
    r.L = <unsigned>(w.W if r.along_x else w.H)
    r.L_across = <unsigned>(w.H if r.along_x else w.W)
    r.x = w.agent[0] - rx * (V // 2)
    r.y = w.agent[1] - ry * (V // 2)
    return r


cdef inline uint32_t gather_row(const World* w, ViewRows* r, int V, uint32_t* row) noexcept nogil:
    # The current row's V cell words into row (WALL_OUTSIDE beyond the map), then r moves one
    # row farther. Returns the row's transparent cells: bit i for row[i].
    cdef const uint32_t* grid = <const uint32_t*>w.cells
    cdef int i, k, pos = r.x if r.along_x else r.y
    cdef uint32_t c, inside, t = 0
    if <unsigned>(r.y if r.along_x else r.x) >= r.L_across:
        for i in range(V):  # the whole row lies beyond the map: walls, none transparent
            row[i] = WALL_OUTSIDE
    elif (<unsigned>pos < r.L) & (<unsigned>(pos + r.dp * (V - 1)) < r.L):
        # The whole row is inside the map (both ends are).
        k = r.y * w.W + r.x
        for i in range(V):
            c = grid[k]
            row[i] = c
            t |= transparent(c) << i
            k += r.dk
    else:
        k = r.y * w.W + r.x
        for i in range(V):
            # The index is masked, so every load lies in the map. gcc makes the select a
            # branch, and it predicts well: as masks it took 8% more instructions, 6% more time.
            inside = <unsigned>pos < r.L
            c = grid[k & -(<int>inside)]
            c = c if inside else WALL_OUTSIDE
            row[i] = c
            t |= transparent(c) << i
            pos += r.dp
            k += r.dk
    r.x += r.fx
    r.y += r.fy
    return t


cdef inline void view_cells_of(World* w, int V, bint see_through, uint32_t* cells, uint32_t* vis) noexcept nogil:
    # The agent's V x V view (gen_obs_grid): cells[j * V + i] is view cell (i, j) (i: view column,
    # j: view row, far to near) as a cell word, a grey wall outside the map; vis[j] has bit i set
    # where it is visible (Grid.process_vis, or everything with see_through_walls).
    cdef ViewRows rows = view_rows(w, V)
    cdef uint32_t t, reached = <uint32_t>1 << (V // 2)  # the agent's cell, in the nearest row
    cdef int j
    for j in range(V - 1, -1, -1):
        t = gather_row(w, &rows, V, cells + j * V)
        vis[j] = (<uint32_t>1 << V) - 1 if see_through else sweep_row(t, V, &reached)


cdef void view_cells(World* w, const MgConfig* cfg, uint32_t* cells, uint32_t* vis) noexcept nogil:
    # view_cells_of with V a constant for the default view (the loops unroll).
    if cfg.view == 7:
        view_cells_of(w, 7, cfg.see_through, cells, vis)
    else:
        view_cells_of(w, cfg.view, cfg.see_through, cells, vis)


cdef inline void write_view_of(World* w, int V, bint see_through, uint8_t* out) noexcept nogil:
    # view_cells_of and Grid.encode in one sweep, row by row from the agent outwards (a row's
    # visibility depends only on the rows nearer the agent): out[(i * V + j) * 3 + k], invisible
    # cells (0, 0, 0), the agent's own cell showing what it carries (or nothing) whatever it
    # stands on. Once no cell of a row is reached, no farther cell can be: the rest stays zeros,
    # never gathered. A cell is one 4-byte store one byte early: its stray first byte (a zero)
    # lands on cell (i, j - 1)'s last byte, written later if visible (row 0 is stored bytewise).
    cdef int half = V // 2
    cdef int i, j
    cdef ViewRows rows = view_rows(w, V)
    cdef uint32_t c, t, vis, reached = <uint32_t>1 << half  # the agent's cell, in the nearest row
    cdef uint32_t row[MAX_VIEW]
    cdef uint8_t* o
    if not see_through:
        memset(out, 0, V * V * 3)  # a few vector stores for a constant V
    for j in range(V - 1, -1, -1):
        if not see_through and reached == 0:
            return
        t = gather_row(w, &rows, V, row)
        vis = (<uint32_t>1 << V) - 1 if see_through else sweep_row(t, V, &reached)
        if j == V - 1:
            row[half] = (<uint32_t*>w.carrying)[0]
        o = out + j * 3
        if j > 0:
            for i in range(V):
                c = (row[i] & (-((vis >> i) & 1))) << 8
                memcpy(o - 1, &c, 4)
                o += V * 3
        else:
            for i in range(V):
                c = row[i] & (-((vis >> i) & 1))
                o[0] = <uint8_t>c
                o[1] = <uint8_t>(c >> 8)
                o[2] = <uint8_t>(c >> 16)
                o += V * 3


cdef void write_view(World* w, const MgConfig* cfg, uint8_t* out) noexcept nogil:
    # gen_obs_grid + Grid.encode: the agent's (V, V, 3) view (V a constant for the default 7).
    if cfg.view == 7:
        if cfg.see_through:
            write_view_of(w, 7, True, out)
        else:
            write_view_of(w, 7, False, out)
    elif cfg.see_through:
        write_view_of(w, cfg.view, True, out)
    else:
        write_view_of(w, cfg.view, False, out)


# The tile atlas of the RGB observations (gridsim.minigrid.render.tile_atlas): tile
# (drawing, slot, lit) at atlas + ((drawing * 5 + slot) * 2 + lit) * tile_bytes, slot 0
# without the agent and 1 + d with it facing d; tile_of[((object & 15) * 8 + (colour & 7))
# * 4 + (state & 3)] is a cell's drawing (render.TILE_OF).
cdef struct MgTiles:
    const uint8_t* atlas
    const int16_t* tile_of
    int ts                  # pixels a side
    Py_ssize_t tile_bytes   # ts * ts * 3


cdef inline const uint8_t* tile_at(const MgTiles* t, int drawing, int slot, int lit) noexcept nogil:
    return t.atlas + ((drawing * 5 + slot) * 2 + lit) * t.tile_bytes


cdef inline int drawing_of(const MgTiles* t, uint32_t c) noexcept nogil:
    # c: a cell word (little-endian: object, colour, state, contents).
    return t.tile_of[((c & 15) << 5) | (((c >> 8) & 7) << 2) | ((c >> 16) & 3)]


cdef inline void blit_rows(uint8_t* out, Py_ssize_t row_bytes, const uint8_t* tile, int ts) noexcept nogil:
    cdef int r
    for r in range(ts):
        memcpy(out + r * row_bytes, tile + r * ts * 3, ts * 3)


cdef inline void blit(uint8_t* out, Py_ssize_t row_bytes, const uint8_t* tile, int ts) noexcept nogil:
    # One tile's rows into a frame whose rows are row_bytes apart. The usual sizes get their
    # own copies: a row of a size known here compiles to a few moves, not a call of memcpy.
    if ts == 8:
        blit_rows(out, row_bytes, tile, 8)
    elif ts == 16:
        blit_rows(out, row_bytes, tile, 16)
    elif ts == 32:
        blit_rows(out, row_bytes, tile, 32)
    elif ts == 4:
        blit_rows(out, row_bytes, tile, 4)
    else:
        blit_rows(out, row_bytes, tile, ts)


cdef void write_rgb_view(World* w, const MgConfig* cfg, const MgTiles* t, uint8_t* out) noexcept nogil:
    # RGBImgPartialObsWrapper (get_pov_render): the view's tiles, (V * ts, V * ts, 3); view cell
    # (i, j) at rows j * ts.., columns i * ts..; unseen cells empty, seen ones highlighted, the
    # agent facing up in its cell, over what it carries (or nothing).
    cdef int V = cfg.view, half = cfg.view // 2, ts = t.ts
    cdef int i, j
    cdef Py_ssize_t row_bytes = <Py_ssize_t>V * ts * 3
    cdef uint32_t cells[MAX_VIEW * MAX_VIEW]
    cdef uint32_t vis[MAX_VIEW]
    cdef const uint8_t* tile
    view_cells(w, cfg, cells, vis)
    cells[(V - 1) * V + half] = (<uint32_t*>w.carrying)[0]
    for j in range(V):
        for i in range(V):
            if (vis[j] >> i) & 1:
                tile = tile_at(t, drawing_of(t, cells[j * V + i]), 4 if (i == half and j == V - 1) else 0, 1)
            else:  # the agent's own cell is always seen
                tile = tile_at(t, 0, 0, 0)
            blit(out + j * ts * row_bytes + i * ts * 3, row_bytes, tile, ts)


cdef void write_rgb_full(World* w, const MgConfig* cfg, const MgTiles* t, uint8_t* out) noexcept nogil:
    # RGBImgObsWrapper (get_full_render with highlight): the world's tiles, (H * ts, W * ts, 3);
    # cell (x, y) at rows y * ts.., columns x * ts..; the cells of the view the agent sees
    # highlighted and its triangle over its cell. A cell's view position inverts the view's
    # map: f and r are orthonormal, so V - 1 - j = (p - a).f and i - V // 2 = (p - a).r.
    cdef int V = cfg.view, half = cfg.view // 2, ts = t.ts
    cdef int d = w.agent[2] & 3
    cdef int fx = DIR_DX[d], fy = DIR_DY[d], rx = -DIR_DY[d], ry = DIR_DX[d]
    cdef int ax = w.agent[0], ay = w.agent[1]
    cdef int x, y, i, j, dx, dy, lit
    cdef Py_ssize_t row_bytes = <Py_ssize_t>w.W * ts * 3
    cdef uint32_t cells[MAX_VIEW * MAX_VIEW]
    cdef uint32_t vis[MAX_VIEW]
    cdef const uint32_t* grid = <const uint32_t*>w.cells
    view_cells(w, cfg, cells, vis)
    for y in range(w.H):
        for x in range(w.W):
            dx = x - ax
            dy = y - ay
            j = V - 1 - (dx * fx + dy * fy)
            i = half + dx * rx + dy * ry
            lit = 0 <= i < V and 0 <= j < V and (vis[j] >> i) & 1
            blit(out + y * ts * row_bytes + x * ts * 3, row_bytes,
                 tile_at(t, drawing_of(t, grid[y * w.W + x]), 1 + d if (dx == 0 and dy == 0) else 0, lit), ts)


cdef void write_full(World* w, uint8_t* out) noexcept nogil:
    # FullyObsWrapper: Grid.encode() of the world, out[(x * H + y) * 3 + k], the agent (10, 0, dir).
    cdef int x, y
    cdef uint8_t* c
    cdef uint8_t* o
    for x in range(w.W):
        for y in range(w.H):
            c = cell_at(w, x, y)
            o = out + (x * w.H + y) * 3
            o[0] = c[0]
            o[1] = c[1]
            o[2] = c[2]
    if 0 <= w.agent[0] < w.W and 0 <= w.agent[1] < w.H:
        o = out + (w.agent[0] * w.H + w.agent[1]) * 3
        o[0] = OBJ_AGENT
        o[1] = C_RED
        o[2] = <uint8_t>w.agent[2]


cdef void write_other_obs(World* w, const MgConfig* cfg, const MgTiles* t, int kind, uint8_t* out) noexcept nogil:
    # Every observation kind but the default view.
    if kind == MG_OBS_FULL:
        write_full(w, out)
    elif kind == MG_OBS_RGB:
        write_rgb_view(w, cfg, t, out)
    else:
        write_rgb_full(w, cfg, t, out)


cdef void move_obstacles(World* w) noexcept nogil:
    # DynamicObstaclesEnv.step: each ball in list order to a free cell of the 3x3 around it
    # (place_obj, 100 tries), its old cell emptied; a ball that finds none stays.
    cdef int k, n = w.task[0], ox, oy, x, y
    for k in range(n):
        ox = w.task[1 + 2 * k]
        oy = w.task[2 + 2 * k]
        if place_obj(w, ox - 1, oy - 1, 3, 3, OBJ_BALL, C_BLUE, 0, False, 100, &x, &y) == 0:
            clear(w, ox, oy)
            w.task[1 + 2 * k] = <int16_t>x
            w.task[2 + 2 * k] = <int16_t>y


# What the step loop reads, once per call.
cdef struct MgStep:
    int rule            # RULE_* of the id's task
    int32_t max_steps
    bint changed        # scratch: the last step_one changed what its env's observation shows


@cython.final
cdef class MinigridKernel(FieldViews):
    """The MiniGrid family's kernel over one ``gridsim.minigrid.state.MinigridState``."""

    cdef MgConfig cfg
    cdef readonly int obs_kind
    cdef readonly Py_ssize_t obs_size
    # the state's own fields (grid, agent, carrying, ...): the typed views of FieldViews
    # (gridsim/minigrid/fields.py)
    cdef uint8_t[:, ::1] obs_u8             # (U, obs_size)
    cdef uint8_t[:, ::1] final_u8           # (U under SAME_STEP, else 0; obs_size)
    cdef const uint8_t[::1] atlas           # the RGB observations' tiles (state.atlas; unset otherwise)
    cdef const int16_t[::1] tile_of         # (512,) a cell's drawing (state.tile_of)
    cdef MgTiles tiles                      # pointers into atlas and tile_of

    def __init__(self, state):
        cdef int k
        cfg = state.config
        self.cfg.gen = cfg["gen"]
        self.cfg.W = cfg["width"]
        self.cfg.H = cfg["height"]
        self.cfg.max_steps = cfg["max_steps"]
        self.cfg.see_through = cfg["see_through_walls"]
        self.cfg.view = cfg["view"]
        self.cfg.babyai = cfg.get("babyai", 0)
        self.cfg.nav_cells = cfg.get("nav_cells", 0)
        params = list(cfg["params"]) + [0] * 8
        for k in range(8):
            self.cfg.p[k] = params[k]
        if not 3 <= self.cfg.view <= MAX_VIEW or self.cfg.view % 2 == 0:
            raise ValueError(f"agent_view_size must be odd, 3..{MAX_VIEW}")
        if not 0 <= self.cfg.gen < NUM_GENS:
            raise ValueError(f"unknown generator {self.cfg.gen}")
        self.cfg.rule = cfg.get("rule", RULE_OF_GEN[self.cfg.gen])
        # A compiled task's generator (its address; the task object the env holds keeps it alive).
        self.cfg.fn = cfg.get("fn", 0)
        self.cfg.num_missions = cfg.get("num_missions", 1)
        if self.cfg.gen == GEN_COMPILED and self.cfg.fn == 0:
            raise ValueError("a compiled task needs its generator's address")
        if not 0 <= self.cfg.rule < NUM_RULES:
            raise ValueError(f"unknown rule {self.cfg.rule}")
        self.obs_kind = state.obs_kind
        if not MG_OBS_VIEW <= self.obs_kind <= MG_OBS_RGB_FULL:
            raise ValueError(f"unknown observation kind {self.obs_kind}")
        if self.obs_kind == MG_OBS_RGB or self.obs_kind == MG_OBS_RGB_FULL:
            self.bind_tiles(state.atlas, state.tile_of, state.tile_size)
        U = state.num_envs
        V, W, H = self.cfg.view, self.cfg.W, self.cfg.H
        ts = self.tiles.ts
        self.obs_size = (V * V * 3, W * H * 3, V * ts * V * ts * 3, H * ts * W * ts * 3)[self.obs_kind]
        self.bind_obs(state.obs)
        # final_obs has rows only under SAME_STEP, the one mode that writes it (Kernel.final_rows).
        self.final_u8 = state.final_obs.reshape(len(state.final_obs), state.obs[0].size)
        if self.final_u8.shape[1] != self.obs_size:
            raise ValueError(f"final_obs rows must hold {self.obs_size} bytes")
        # Actions 3..6 of Dynamic-Obstacles (Discrete(3)) are taken as its step does: as 0.
        # 2 threads measured no faster than 1 up to 256 envs, faster from 512 (bench/README.md).
        bind_kernel(self, state, U, 1, 1, 7, 512, True)
        self.max_steps = state.max_steps

    def bind_tiles(self, atlas, tile_of, int tile_size):
        """Copy RGB observations' tiles from ``atlas`` (flat uint8: drawings x 5 x 2 tiles of ``tile_size``).

        ``tile_of`` (512,) int16 gives each cell's drawing (``gridsim.minigrid.render.TILE_OF``);
        every drawing must be one of the atlas's.
        """
        cdef const uint8_t[::1] pixels = np.ascontiguousarray(atlas, np.uint8).reshape(-1)
        cdef const int16_t[::1] drawing = np.ascontiguousarray(tile_of, np.int16).reshape(-1)
        tile_bytes = tile_size * tile_size * 3
        if tile_size < 1 or pixels.shape[0] == 0 or pixels.shape[0] % (10 * tile_bytes):
            raise ValueError(f"an atlas holds whole sets of 10 tiles of {tile_size} pixels")
        drawings = pixels.shape[0] // (10 * tile_bytes)
        if drawing.shape[0] != 512 or not 0 <= np.min(drawing) <= np.max(drawing) < drawings:
            raise ValueError(f"tile_of must be 512 drawings in 0..{drawings - 1}")
        self.atlas = pixels
        self.tile_of = drawing
        self.tiles.atlas = &self.atlas[0]
        self.tiles.tile_of = &self.tile_of[0]
        self.tiles.ts = tile_size
        self.tiles.tile_bytes = tile_bytes

    def bind_obs(self, obs):
        """Write observations into ``obs`` (N, *obs_shape) from now on (every row is rewritten each step)."""
        rows = obs.reshape(obs.shape[0], -1)
        if rows.shape[1] != self.obs_size:
            raise ValueError(f"observation rows must hold {self.obs_size} bytes, got {rows.shape[1]}")
        self.obs_u8 = rows

    def bot_replan(self, const int64_t[::1] taken, int64_t[::1] out, uint8_t[::1] fresh):
        """One BabyAI bot replan per env (``gridsim.minigrid.bot.BabyAIBot.replan``).

        ``taken[u]`` is the action env u took since the last call (-1: upstream's None, the
        suggestion); ``out[u]`` gets the suggested action, or -1 where the bot has failed
        (``bot[u, 1]`` says why); ``fresh[u]`` is set where the bot started on a new episode.
        Runs on the kernel's threads without the GIL.
        """
        cdef BotJob job
        cdef Py_ssize_t n = self.units
        if not self.cfg.babyai:
            raise ValueError("the BabyAI bot plays BabyAI ids only")
        if self.cfg.W * self.cfg.H > BOT_MAX_CELLS:
            raise ValueError(f"the bot plays grids of at most {BOT_MAX_CELLS} cells")  # (every BabyAI id's)
        if taken.shape[0] != n or out.shape[0] != n or fresh.shape[0] != n:
            raise ValueError(f"taken, out and fresh must have {n} rows")
        job.kernel = <void*>self
        job.taken = &taken[0]
        job.out = &out[0]
        job.fresh = &fresh[0]
        job.no_memory = 0
        with nogil:
            if use_threads(self.num_threads, n, 2):
                parallel_for(self.num_threads, n, chunk_units(n, self.num_threads, 16), bot_chunk, &job)
            else:
                bot_chunk(&job, 0, n)
        if job.no_memory:
            raise MemoryError("no memory for the bot's search")

    cdef void bot_rows(self, BotJob* job, BotScratch* x, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
        cdef World w
        cdef Py_ssize_t u
        cdef int16_t* s
        for u in range(lo, hi):
            self.world(&w, u)
            s = &self.bot[u, 0]
            job.fresh[u] = s[BOT_LIVE] == BOT_FRESH
            job.out[u] = bot_replan(&w, &self.cfg, s, x, <int>job.taken[u] if 0 <= job.taken[u] <= 6 else -1)

    cdef inline void world(self, World* w, Py_ssize_t u) noexcept nogil:
        w.cells = &self.grid[u, 0, 0, 0]
        w.W = self.cfg.W
        w.H = self.cfg.H
        w.agent = &self.agent[u, 0]
        w.carrying = &self.carrying[u, 0]
        w.task = &self.task[u, 0]
        w.mission = &self.mission[u]
        w.rng = <mg_pcg64*>&self.bitgen[u, 0]
        if self.cfg.babyai:
            w.oid = &self.oid[u, 0]
            w.bab = &self.babyai[u, 0]
        else:
            w.oid = NULL
            w.bab = NULL

    # ------------------------------------------------------------------ per-unit hooks

    cdef inline int unit_rows(self) noexcept nogil:
        return 1

    cdef inline int unit_actions(self) noexcept nogil:
        return 1

    cdef inline int32_t ep_length(self, Py_ssize_t u) noexcept nogil:
        return self.step_count[u]

    cdef inline void stat_extras(self, Py_ssize_t u, Py_ssize_t row, bint ended) noexcept nogil:
        pass

    cdef inline MgStep step_context(self) noexcept nogil:
        cdef MgStep c
        c.rule = self.cfg.rule
        c.max_steps = self.cfg.max_steps
        c.changed = True
        return c

    cdef inline int begin_step(self, const action_t* actions) noexcept nogil:
        return 0

    cdef void reset_one(self, Py_ssize_t u) noexcept nogil:
        # MiniGridEnv.reset: a seeded reset starts the generator afresh (key = the seed's words);
        # then an empty grid, the agent nowhere, and the id's _gen_grid.
        cdef World w
        cdef int k
        cdef int16_t serial = self.mission[u]
        cdef uint32_t* cells
        self.world(&w, u)
        # A live PCG64 has an odd increment; an env without one (a state injected before any seeded
        # reset) takes its key's, rather than draw from a stream that repeats 0 forever.
        if self.reseed[u] or not (w.rng.inc_lo & 1):
            mg_pcg64_seed(w.rng, self.key[u, 0], self.key[u, 1])
        cells = <uint32_t*>w.cells
        for k in range(w.W * w.H):
            cells[k] = 0
            w.cells[4 * k] = OBJ_EMPTY
        set_agent(&w, -1, -1, -1)
        w.carrying[0] = OBJ_EMPTY
        w.carrying[1] = 0
        w.carrying[2] = 0
        w.carrying[3] = 0
        for k in range(TASK_SLOTS):
            w.task[k] = 0
        w.mission[0] = 0
        self.step_count[u] = 0
        k = generate(&w, &self.cfg)
        self.failed[u] = k < 0
        self.pending[u] = k > 0  # the world is Python's to write (a Python task: gridsim.minigrid.python_tasks)
        if self.cfg.babyai:
            self.bot[u, BOT_LIVE] = BOT_FRESH  # a new episode: the bot starts afresh at its next call
            # A BabyAI mission is its tokens; the mission slot counts the row's missions (so that
            # Python decodes only the rows whose count moved).
            write_mission(&w, &self.mission_tokens[u, 0])
            w.mission[0] = (serial + 1) & 0x7FFF
            # RoomGridLevel.reset: the episode's limit from its instructions, unless one is fixed.
            if self.cfg.nav_cells > 0 and self.max_steps <= 0:
                self.ep_max_steps[u] = w.bab[BAB_NAVS] * self.cfg.nav_cells

    cdef inline void write_obs(self, Py_ssize_t u, bint final) noexcept nogil:
        self.write_observation(u, final, True)

    cdef inline void write_observation(self, Py_ssize_t u, bint final, bint tokens) noexcept nogil:
        # tokens: copy the mission's tokens too (a BabyAI mission is set at reset and by a
        # written state, each followed by write_obs; a step within an episode keeps it, and
        # leaves 160 bytes an env unread and unwritten).
        cdef World w
        cdef uint8_t* out = &self.final_u8[u, 0] if final else &self.obs_u8[u, 0]
        cdef uint8_t shown[4]
        cdef uint8_t held[4]
        cdef int k = -1
        self.world(&w, u)
        if w.bab != NULL and w.bab[BAB_SHOWN]:
            # PutNext*Carrying's reset observation: the carried object still where it lay, the
            # agent's hands empty.
            k = w.bab[BAB_SHOWN] - 1
            memcpy(shown, w.cells + 4 * k, 4)
            memcpy(held, w.carrying, 4)
            memcpy(w.cells + 4 * k, held, 4)
            w.carrying[0] = OBJ_EMPTY
            w.carrying[1] = 0
            w.carrying[2] = 0
            w.carrying[3] = 0
        if self.obs_kind == MG_OBS_VIEW:  # the default first, one compare (a switch costs it more)
            write_view(&w, &self.cfg, out)
        else:
            write_other_obs(&w, &self.cfg, &self.tiles, self.obs_kind, out)
        if k >= 0:
            memcpy(w.cells + 4 * k, shown, 4)
            memcpy(w.carrying, held, 4)
        if final:
            self.final_dir[u] = w.agent[2]
            self.final_mission[u] = w.mission[0]
            if self.cfg.babyai:
                memcpy(&self.final_tokens[u, 0], &self.mission_tokens[u, 0], MISSION_TOKENS)
        else:
            self.obs_dir[u] = w.agent[2]
            self.obs_mission[u] = w.mission[0]
            if self.cfg.babyai and tokens:
                memcpy(&self.obs_tokens[u, 0], &self.mission_tokens[u, 0], MISSION_TOKENS)

    cdef inline void observe_step(self, MgStep* c, Py_ssize_t u) noexcept nogil:
        # A step that changed nothing the view shows (a turn changes it; forward into a wall, a
        # pickup of nothing, done do not) leaves the observation as it is.
        if c.changed:
            self.write_observation(u, False, False)

    cdef inline bint step_one(self, MgStep* c, Py_ssize_t u, const action_t* actions, EventBuf* ev,
                             int32_t limit, double* reward, bint* truncated) noexcept nogil:
        # MiniGridEnv.step and the overrides of Dynamic-Obstacles, Memory, GoToDoor (spec 2.5, 5.8-5.10),
        # Fetch, GoToObject, PutNear and RedBlueDoors (6.7-6.10).
        cdef World w
        cdef int a = <int>actions[u]
        cdef int d, ax, ay, fx, fy, contents
        cdef bint term = False, not_clear = False, inside, changed = c.rule == RULE_AVOID_MOVING_BALLS  # balls move
        cdef bint held = False, red_was_open = False, blue_was_open = False
        cdef double rew = 0.0
        cdef int32_t sc, max_steps = limit if limit > 0 else c.max_steps
        cdef uint8_t* fc
        cdef uint8_t fobj
        cdef uint8_t wall[4]
        self.world(&w, u)
        if w.bab != NULL and w.bab[BAB_SHOWN]:
            w.bab[BAB_SHOWN] = 0  # the reset observation's picture of the carried object
            changed = True
        if c.rule == RULE_AVOID_MOVING_BALLS:
            if a >= 3:
                a = A_LEFT
            d = w.agent[2] & 3
            fx = w.agent[0] + DIR_DX[d]
            fy = w.agent[1] + DIR_DY[d]
            if 0 <= fx < w.W and 0 <= fy < w.H:
                fobj = cell_at(&w, fx, fy)[0]
                not_clear = fobj != OBJ_EMPTY and fobj != OBJ_GOAL
            else:
                not_clear = True
            if not (w.rng.inc_lo & 1):  # no generator yet (see reset_one)
                mg_pcg64_seed(w.rng, self.key[u, 0], self.key[u, 1])
            move_obstacles(&w)
        elif c.rule == RULE_GO_TO_MATCHING_OBJECT and a == A_PICKUP:
            a = A_TOGGLE
        elif c.rule == RULE_PUT_TARGET_NEAR:
            held = w.carrying[0] != OBJ_EMPTY
        elif c.rule == RULE_OPEN_DOORS_IN_ORDER:
            red_was_open = door_open_at(&w, w.task[0], w.task[1])
            blue_was_open = door_open_at(&w, w.task[2], w.task[3])
        # step_count first, saturating at INT32_MAX (the most an episode's length can hold).
        sc = self.step_count[u]
        sc += sc < 0x7FFFFFFF
        self.step_count[u] = sc
        ax = w.agent[0]
        ay = w.agent[1]
        d = w.agent[2] & 3
        fx = ax + DIR_DX[d]
        fy = ay + DIR_DY[d]
        inside = 0 <= fx < w.W and 0 <= fy < w.H
        if inside:
            fc = cell_at(&w, fx, fy)
        else:
            # Outside the grid: the agent stands in a door of the outer wall, facing out (GoToDoor's
            # doors, opened and walked into). Minigrid's step raises AssertionError there, whatever the
            # action; here the outside is a wall, as the view shows it (docs/minigrid.md, "Differences found").
            wall[0] = OBJ_WALL
            wall[1] = C_GREY
            wall[2] = 0
            wall[3] = 0
            fc = wall
        fobj = fc[0]
        if a == A_LEFT:
            w.agent[2] = (d + 3) & 3
            changed = True
        elif a == A_RIGHT:
            w.agent[2] = (d + 1) & 3
            changed = True
        elif a == A_FORWARD:
            if fobj == OBJ_EMPTY or can_overlap(fc):
                w.agent[0] = fx
                w.agent[1] = fy
                changed = True
            if fobj == OBJ_GOAL:
                term = True
                rew = success_reward(sc, max_steps)
            elif fobj == OBJ_LAVA:
                term = True
        elif a == A_PICKUP:
            if inside and can_pickup(fobj) and w.carrying[0] == OBJ_EMPTY:
                if w.oid != NULL:
                    w.bab[BAB_CARRIED] = w.oid[fy * w.W + fx]
                    w.bab[BAB_MOVED] = 1
                memcpy(w.carrying, fc, 4)
                clear(&w, fx, fy)
                changed = True
        elif a == A_DROP:
            if inside and fobj == OBJ_EMPTY and w.carrying[0] != OBJ_EMPTY:
                memcpy(fc, w.carrying, 4)
                if w.oid != NULL:
                    w.oid[fy * w.W + fx] = <uint8_t>w.bab[BAB_CARRIED]
                    w.bab[BAB_CARRIED] = 0
                    w.bab[BAB_MOVED] = 1
                w.carrying[0] = OBJ_EMPTY
                w.carrying[1] = 0
                w.carrying[2] = 0
                w.carrying[3] = 0
                changed = True
        elif a == A_TOGGLE:
            if fobj == OBJ_DOOR:
                if fc[2] == ST_LOCKED:
                    if w.carrying[0] == OBJ_KEY and w.carrying[1] == fc[1]:
                        fc[2] = ST_OPEN
                        changed = True
                else:
                    fc[2] = ST_CLOSED if fc[2] == ST_OPEN else ST_OPEN
                    changed = True
            elif fobj == OBJ_BOX and inside:
                changed = True
                objects_moved(&w)
                contents = fc[3]
                if contents:
                    put(&w, fx, fy, (contents - 1) >> 3, (contents - 1) & 7, 0)
                else:
                    clear(&w, fx, fy)
        truncated[0] = limit > 0 and sc >= limit
        if c.rule == RULE_AVOID_MOVING_BALLS:
            if a == A_FORWARD and not_clear:
                rew = -1.0
                term = True
        elif c.rule == RULE_GO_TO_MATCHING_OBJECT:
            if w.agent[0] == w.task[0] and w.agent[1] == w.task[1]:
                rew = success_reward(sc, max_steps)
                term = True
            if w.agent[0] == w.task[2] and w.agent[1] == w.task[3]:
                rew = 0.0
                term = True
        elif c.rule == RULE_DONE_NEXT_TO_TARGET:
            if a == A_TOGGLE:
                term = True
            if a == A_DONE:
                if iabs(w.agent[0] - w.task[0]) + iabs(w.agent[1] - w.task[1]) == 1:
                    rew = success_reward(sc, max_steps)
                term = True
        elif c.rule == RULE_OPEN_TARGET_DOOR:
            if a == A_TOGGLE and door_open_at(&w, w.task[0], w.task[1]):
                rew = success_reward(sc, max_steps)
                term = True
        elif c.rule == RULE_PICK_UP_TARGET:
            # The pickup of the target (carried already, a pickup of anything else fails).
            if a == A_PICKUP and w.carrying[0] == w.task[0] and w.carrying[1] == w.task[1]:
                rew = success_reward(sc, max_steps)
                term = True
        elif c.rule == RULE_FETCH_TARGET:
            # Anything carried ends the episode, rewarded iff its type and colour are the target's.
            if w.carrying[0] != OBJ_EMPTY:
                term = True
                if w.carrying[0] == w.task[0] and w.carrying[1] == w.task[1]:
                    rew = success_reward(sc, max_steps)
                else:
                    rew = 0.0
        elif c.rule == RULE_PUT_TARGET_NEAR:
            # Holding the wrong object after a pickup ends it; so does any drop with something held,
            # rewarded iff the drop happened (the front cell was empty: nothing is held now) within
            # one cell of target_pos (where the target was at reset). The front is the one after the step.
            if a == A_PICKUP and w.carrying[0] != OBJ_EMPTY:
                if w.carrying[0] != w.task[2] or w.carrying[1] != w.task[3]:
                    term = True
            if a == A_DROP and held:
                d = w.agent[2] & 3
                fx = w.agent[0] + DIR_DX[d]
                fy = w.agent[1] + DIR_DY[d]
                if w.carrying[0] == OBJ_EMPTY and iabs(fx - w.task[0]) <= 1 and iabs(fy - w.task[1]) <= 1:
                    rew = success_reward(sc, max_steps)
                term = True
        elif c.rule == RULE_OPEN_DOORS_IN_ORDER:
            # The blue door open ends it, rewarded iff the red one was open before this step; the
            # red one open after the blue one was ends it unrewarded.
            if door_open_at(&w, w.task[2], w.task[3]):
                rew = success_reward(sc, max_steps) if red_was_open else 0.0
                term = True
            elif door_open_at(&w, w.task[0], w.task[1]) and blue_was_open:
                rew = 0.0
                term = True
        elif c.rule == RULE_FOLLOW_INSTRUCTIONS:
            # RoomGridLevel.step: the tracked objects found again after a drop, then the verifier.
            if a == A_DROP:
                update_objs_poss(&w, self.cfg.p[0])
            if w.bab[BAB_NUM_NODES] > 0:
                d = verify(&w, w.bab[BAB_ROOT], a)
                if d == V_SUCCESS:
                    rew = success_reward(sc, max_steps)
                    term = True
                elif d == V_FAILURE:
                    rew = 0.0
                    term = True
        reward[0] = rew
        c.changed = changed
        return term


# ---------------------------------------------------------------- the bot's threads

cdef void bot_chunk(void* arg, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # Envs lo .. hi - 1 of a bot call, with one search scratch for the chunk.
    cdef BotJob* job = <BotJob*>arg
    cdef BotScratch* x = <BotScratch*>malloc(sizeof(BotScratch))
    cdef Py_ssize_t u
    if x == NULL:
        gridsim_or_int(&job.no_memory, 1)
        for u in range(lo, hi):
            job.out[u] = -1
        return
    (<MinigridKernel>job.kernel).bot_rows(job, x, lo, hi)
    free(x)


# ---------------------------------------------------------------- numpy's generator, from Python
# For tests and for gridsim.minigrid.rng: each takes a generator state (6,) uint64 (a row of
# MinigridState.bitgen) and advances it in place.

def rng_seed(seed, uint64_t[::1] out):
    """Write Generator(PCG64(SeedSequence(seed)))'s state into ``out`` (6,) uint64; 0 <= seed < 2**128."""
    cdef mg_pcg64* rng = generator_of(out)
    seed = int(seed)
    if not 0 <= seed < 1 << 128:
        raise ValueError("seed must be in 0..2**128 - 1")
    mg_pcg64_seed(rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF), <uint64_t>(seed >> 64))


cdef enum:
    DRAW_INTEGERS = 0   # Generator.integers(low, high), int64
    DRAW_RAW = 1        # bit_generator.random_raw(), uint64
    DRAW_UNIFORM = 2    # Generator.random(), float64

_DRAW_DTYPES = (np.int64, np.uint64, np.float64)  # by DRAW_*: 8 bytes each


cdef mg_pcg64* generator_of(uint64_t[::1] g) except NULL:
    # The generator whose state is g (a row of MinigridState.bitgen).
    if g.shape[0] != 6:
        raise ValueError("a generator state has 6 words")
    return <mg_pcg64*>&g[0]


cdef draws(uint64_t[::1] g, Py_ssize_t n, int kind, int64_t low=0, int64_t high=1):
    # n draws of one kind from g, in the kind's dtype (each written as its 8 bytes).
    cdef mg_pcg64* rng = generator_of(g)
    cdef Py_ssize_t k
    cdef double x
    out = np.empty(n, np.uint64)
    cdef uint64_t[::1] o = out
    for k in range(n):
        if kind == DRAW_INTEGERS:
            o[k] = <uint64_t>mg_integers(rng, low, high)
        elif kind == DRAW_RAW:
            o[k] = mg_next_u64(rng)
        else:
            x = mg_next_double(rng)
            memcpy(&o[k], &x, 8)
    return out.view(_DRAW_DTYPES[kind])


def rng_integers(uint64_t[::1] g, int64_t low, int64_t high, Py_ssize_t n):
    """``n`` draws of ``Generator.integers(low, high)`` (low < high) as int64."""
    if low >= high:
        raise ValueError("low < high")
    return draws(g, n, DRAW_INTEGERS, low, high)


def rng_raw(uint64_t[::1] g, Py_ssize_t n):
    """``n`` draws of ``bit_generator.random_raw()`` (u64) as uint64."""
    return draws(g, n, DRAW_RAW)


def rng_uniform(uint64_t[::1] g, Py_ssize_t n):
    """``n`` draws of ``Generator.random()`` (next_double) as float64."""
    return draws(g, n, DRAW_UNIFORM)


def rng_shuffle(uint64_t[::1] g, int32_t[::1] items):
    """``Generator.shuffle`` of ``items`` (int32), in place."""
    cdef mg_pcg64* rng = generator_of(g)
    cdef Py_ssize_t i, j
    cdef int32_t tmp
    for i in range(items.shape[0] - 1, 0, -1):
        j = <Py_ssize_t>mg_random_interval(rng, <uint64_t>i)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


cdef draws_of_rows(uint64_t[:, ::1] g, const Py_ssize_t[::1] rows, int kind, int64_t low=0, int64_t high=1):
    # One draw of one kind from each generator state g[rows[k]] (rows of MinigridState.bitgen).
    cdef Py_ssize_t k, n = rows.shape[0]
    cdef double x
    if g.shape[1] != 6:
        raise ValueError("a generator state has 6 words")
    for k in range(n):
        if not 0 <= rows[k] < g.shape[0]:
            raise IndexError(f"row {rows[k]} of {g.shape[0]}")
    out = np.empty(n, np.uint64)
    cdef uint64_t[::1] o = out
    for k in range(n):
        if kind == DRAW_INTEGERS:
            o[k] = <uint64_t>mg_integers(<mg_pcg64*>&g[rows[k], 0], low, high)
        else:
            x = mg_next_double(<mg_pcg64*>&g[rows[k], 0])
            memcpy(&o[k], &x, 8)
    return out.view(_DRAW_DTYPES[kind])


def rng_random_rows(uint64_t[:, ::1] g, const Py_ssize_t[::1] rows):
    """``Generator.random()`` once from each of the generator states ``g[rows]`` (a row each), as float64."""
    return draws_of_rows(g, rows, DRAW_UNIFORM)


def rng_integers_rows(uint64_t[:, ::1] g, const Py_ssize_t[::1] rows, int64_t low, int64_t high):
    """``Generator.integers(low, high)`` (low < high) once from each of the generator states ``g[rows]``, as int64."""
    if low >= high:
        raise ValueError("low < high")
    return draws_of_rows(g, rows, DRAW_INTEGERS, low, high)


def objs_reachable(uint8_t[:, :, ::1] cells, int x, int y):
    """``RoomGridLevel.check_objs_reachable`` on a (H, W, 4) grid with the agent at (x, y), twice (for the tests).

    Returns:
        (the row masks' answer, the search's answer): 1 where every object is reachable, else 0.
    """
    cdef World w
    cdef int32_t agent[3]
    if not (0 <= x < cells.shape[1] and 0 <= y < cells.shape[0]) or cells.shape[2] != 4 \
            or cells.shape[0] * cells.shape[1] > 1024:
        raise ValueError("a grid of at most 1,024 cells of 4 bytes, the agent inside it")
    memset(&w, 0, sizeof(World))
    agent[0] = x
    agent[1] = y
    agent[2] = 0
    w.cells = &cells[0, 0, 0]
    w.W = <int>cells.shape[1]
    w.H = <int>cells.shape[0]
    w.agent = agent
    return check_objs_reachable(&w), objs_reachable_search(&w)
