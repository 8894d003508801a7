# Included by gridsim/minigrid/_kernel.pyx after _generators.pxi: Minigrid's RoomGrid
# (core/roomgrid.py; spec section 6.1) and the ids built on it (6.2-6.5), drawing from the
# env's generator in exactly Minigrid's order.
#
# A RoomGrid is nc x nr rooms of rs x rs cells sharing their wall lines. What Minigrid keeps
# per room (door positions, doors, the locked flag) only matters while a layout is drawn, so
# it lives on the generator's stack; the step needs only the task slots.
#
# The target of "pick up the <colour> <type>" is Minigrid's object by identity; in every
# RoomGrid id it is the one object of its type and colour (UnlockPickup: the one box;
# KeyCorridor: the one ball; ObstructedMaze: the one blue ball, the blocking ones are green),
# so the task slots keep its type and colour.

cdef enum:
    RG_MAX_ROOMS = 9     # 3 x 3 rooms, the most any id has
    RG_NONE = 0          # RgRoom.doors: no door on that side (Minigrid's None)
    RG_DOOR = 1          # a Door object
    RG_OPEN = 2          # a removed wall (Minigrid's True)


# add_object's kinds, ['key', 'ball', 'box']; ObstructedMaze's side rooms (2, 1), (1, 2),
# (0, 1), (1, 0) and corners (2, 0), (2, 2), (0, 2), (0, 0), one of each per quarter.
cdef int[3] RG_KINDS = [OBJ_KEY, OBJ_BALL, OBJ_BOX]
cdef int[4] OM_SIDE_I = [2, 1, 0, 1]
cdef int[4] OM_SIDE_J = [1, 2, 1, 0]
cdef int[4] OM_CORNER_I = [2, 2, 0, 0]
cdef int[4] OM_CORNER_J = [0, 2, 2, 0]


cdef struct RgRoom:
    int tx               # top-left corner
    int ty
    int[4] dx            # door_pos per side (0 right, 1 down, 2 left, 3 up); -1: no neighbour there
    int[4] dy
    int[4] doors         # RG_NONE / RG_DOOR / RG_OPEN
    bint locked


cdef struct RoomGrid:
    int rs               # room_size
    int nr               # num_rows
    int nc               # num_cols
    RgRoom[RG_MAX_ROOMS] rooms   # room (i, j) at j * nc + i


cdef inline RgRoom* rg_room(RoomGrid* g, int i, int j) noexcept nogil:
    return &g.rooms[j * g.nc + i]


cdef inline RgRoom* rg_neighbor(RoomGrid* g, int i, int j, int k) noexcept nogil:
    return rg_room(g, i + DIR_DX[k], j + DIR_DY[k])


cdef int rg_base(World* w, RoomGrid* g, int rs, int nr, int nc) noexcept nogil:
    # RoomGrid._gen_grid: every room's walls, then the door positions row by row (right and
    # down drawn, left and up shared with the neighbour), and the provisional agent in the
    # middle room's centre, which every placement before place_agent avoids.
    cdef int i, j, k, xl, yl, xm, ym
    cdef RgRoom* R
    if nr * nc > RG_MAX_ROOMS or (rs - 1) * nc + 1 != w.W or (rs - 1) * nr + 1 != w.H:
        return -1
    g.rs = rs
    g.nr = nr
    g.nc = nc
    for j in range(nr):
        for i in range(nc):
            R = rg_room(g, i, j)
            R.tx = i * (rs - 1)
            R.ty = j * (rs - 1)
            for k in range(4):
                R.dx[k] = -1
                R.dy[k] = -1
                R.doors[k] = RG_NONE
            R.locked = False
            wall_rect(w, R.tx, R.ty, rs, rs)
    for j in range(nr):
        for i in range(nc):
            R = rg_room(g, i, j)
            xl = R.tx + 1
            yl = R.ty + 1
            xm = R.tx + rs - 1
            ym = R.ty + rs - 1
            if i < nc - 1:
                R.dx[0] = xm
                R.dy[0] = rint(w, yl, ym)
            if j < nr - 1:
                R.dx[1] = rint(w, xl, xm)
                R.dy[1] = ym
            if i > 0:
                R.dx[2] = rg_room(g, i - 1, j).dx[0]
                R.dy[2] = rg_room(g, i - 1, j).dy[0]
            if j > 0:
                R.dx[3] = rg_room(g, i, j - 1).dx[1]
                R.dy[3] = rg_room(g, i, j - 1).dy[1]
    set_agent(w, (nc // 2) * (rs - 1) + rs // 2, (nr // 2) * (rs - 1) + rs // 2, 0)
    return 0


cdef int rg_place_in_room(World* w, RoomGrid* g, int i, int j, int obj, int color, int contents) noexcept nogil:
    # RoomGrid.place_in_room: anywhere in the room's rectangle (walls included) that is empty,
    # not the agent's cell and not next to it; at most 1000 tries.
    cdef RgRoom* R = rg_room(g, i, j)
    cdef int x, y
    if place_obj(w, R.tx, R.ty, g.rs, g.rs, obj, color, 0, True, 1000, &x, &y) < 0:
        return -1
    cell_at(w, x, y)[3] = <uint8_t>contents
    return 0


cdef int rg_add_object(World* w, RoomGrid* g, int i, int j, int kind, int color, int* out_color) noexcept nogil:
    # RoomGrid.add_object: a key, ball or box (empty), its kind (kind < 0) then its colour
    # (color < 0) drawn first.
    if kind < 0:
        kind = RG_KINDS[rint(w, 0, 3)]
    if color < 0:
        color = rcolor(w)
    out_color[0] = color
    return rg_place_in_room(w, g, i, j, kind, color, 0)


cdef int rg_add_door(World* w, RoomGrid* g, int i, int j, int k, int color, int locked,
                     int* out_x, int* out_y) noexcept nogil:
    # RoomGrid.add_door: the side (k < 0: drawn until one has a neighbour and no door), the
    # colour (color < 0) and the locked coin (locked < 0), in that order; returns the colour.
    # The room's locked flag becomes the door's (whatever it was).
    cdef RgRoom* R = rg_room(g, i, j)
    if k < 0:
        while True:
            k = rint(w, 0, 4)
            if R.dx[k] >= 0 and R.doors[k] == RG_NONE:
                break
    if R.dx[k] < 0 or R.doors[k] != RG_NONE:  # Minigrid asserts
        return -1
    if color < 0:
        color = rcolor(w)
    if locked < 0:
        locked = rint(w, 0, 2) == 0
    R.locked = locked != 0
    put(w, R.dx[k], R.dy[k], OBJ_DOOR, color, ST_LOCKED if locked else ST_CLOSED)
    R.doors[k] = RG_DOOR
    rg_neighbor(g, i, j, k).doors[(k + 2) % 4] = RG_DOOR
    out_x[0] = R.dx[k]
    out_y[0] = R.dy[k]
    return color


cdef void rg_remove_wall(World* w, RoomGrid* g, int i, int j, int k) noexcept nogil:
    # RoomGrid.remove_wall: side k's wall without its two corners; no draw.
    cdef RgRoom* R = rg_room(g, i, j)
    cdef int n
    for n in range(1, g.rs - 1):
        if k == 0:
            clear(w, R.tx + g.rs - 1, R.ty + n)
        elif k == 1:
            clear(w, R.tx + n, R.ty + g.rs - 1)
        elif k == 2:
            clear(w, R.tx, R.ty + n)
        else:
            clear(w, R.tx + n, R.ty)
    R.doors[k] = RG_OPEN
    rg_neighbor(g, i, j, k).doors[(k + 2) % 4] = RG_OPEN


cdef int rg_place_agent(World* w, RoomGrid* g, int i, int j) noexcept nogil:
    # RoomGrid.place_agent: in room (i, j) (drawn where < 0), position then direction, redrawn
    # both until the cell ahead is empty or a wall. Upstream redraws for ever where every free
    # cell faces objects all round (a crowded BabyAI room); -1 after 100,000 redraws instead.
    cdef RgRoom* R
    cdef int fx, fy, o, redraws = 0
    if i < 0:
        i = rint(w, 0, g.nc)
    if j < 0:
        j = rint(w, 0, g.nr)
    R = rg_room(g, i, j)
    while True:
        redraws += 1
        if redraws > 100000:
            return -1
        if place_agent(w, R.tx, R.ty, g.rs, g.rs, True, 1000) < 0:
            return -1
        fx = w.agent[0] + DIR_DX[w.agent[2]]
        fy = w.agent[1] + DIR_DY[w.agent[2]]
        if not (0 <= fx < w.W and 0 <= fy < w.H):
            return -1
        o = cell_at(w, fx, fy)[0]
        if o == OBJ_EMPTY or o == OBJ_WALL:
            return 0


cdef bint rg_all_reachable(RoomGrid* g, int start) noexcept nogil:
    # connect_all's find_reach: rooms joined by a door (any, even locked) or a removed wall.
    cdef int stack[RG_MAX_ROOMS * 4 + 1]
    cdef bint seen[RG_MAX_ROOMS]
    cdef int top = 0, n = 0, r, k, i, j
    for r in range(g.nr * g.nc):
        seen[r] = False
    stack[top] = start
    top += 1
    while top > 0:
        top -= 1
        r = stack[top]
        if seen[r]:
            continue
        seen[r] = True
        n += 1
        i = r % g.nc
        j = r // g.nc
        for k in range(4):
            if g.rooms[r].doors[k] != RG_NONE:
                stack[top] = (j + DIR_DY[k]) * g.nc + i + DIR_DX[k]
                top += 1
    return n == g.nr * g.nc


cdef int rg_connect_all(World* w, RoomGrid* g) noexcept nogil:
    # RoomGrid.connect_all: until every room is reachable from the agent's, a random (i, j, k)
    # (three draws each time, even when skipped); an unlocked door of a random colour where
    # there is a neighbour, no door yet and neither room is locked. -1 after 5000 tries.
    # Reachability changes only when a door is added, so it is searched again only then.
    cdef int start = (w.agent[1] // (g.rs - 1)) * g.nc + w.agent[0] // (g.rs - 1)
    cdef int it = 0, i, j, k, x, y
    cdef bint connected = rg_all_reachable(g, start)
    cdef RgRoom* R
    while True:
        if it > 5000:
            return -1
        it += 1
        if connected:
            return 0
        i = rint(w, 0, g.nc)
        j = rint(w, 0, g.nr)
        k = rint(w, 0, 4)
        R = rg_room(g, i, j)
        if R.dx[k] < 0 or R.doors[k] != RG_NONE:
            continue
        if R.locked or rg_neighbor(g, i, j, k).locked:
            continue
        rg_add_door(w, g, i, j, k, rcolor(w), 0, &x, &y)
        connected = rg_all_reachable(g, start)


cdef inline void set_target(World* w, int obj, int color) noexcept nogil:
    # The object to pick up, and the mission naming its colour.
    w.task[0] = <int16_t>obj
    w.task[1] = <int16_t>color
    w.mission[0] = <int16_t>color


cdef int gen_unlock(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.2 Unlock: two rooms, a locked door between them, its key in the agent's room.
    cdef RoomGrid g
    cdef int c, x, y, kc
    if rg_base(w, &g, 6, 1, 2) < 0:
        return -1
    c = rg_add_door(w, &g, 0, 0, 0, -1, 1, &x, &y)
    if c < 0:
        return -1
    w.task[0] = <int16_t>x
    w.task[1] = <int16_t>y
    if rg_add_object(w, &g, 0, 0, OBJ_KEY, c, &kc) < 0:
        return -1
    return rg_place_agent(w, &g, 0, 0)


cdef int gen_unlockpickup(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.3 UnlockPickup (p0 = 0) and BlockedUnlockPickup (p0 = 1: a ball just inside the door).
    cdef RoomGrid g
    cdef int box, c, x, y, kc
    if rg_base(w, &g, 6, 1, 2) < 0:
        return -1
    if rg_add_object(w, &g, 1, 0, OBJ_BOX, -1, &box) < 0:
        return -1
    c = rg_add_door(w, &g, 0, 0, 0, -1, 1, &x, &y)
    if c < 0:
        return -1
    if cfg.p[0]:
        put(w, x - 1, y, OBJ_BALL, rcolor(w), 0)
    if rg_add_object(w, &g, 0, 0, OBJ_KEY, c, &kc) < 0:
        return -1
    if rg_place_agent(w, &g, 0, 0) < 0:
        return -1
    set_target(w, OBJ_BOX, box)
    return 0


cdef int gen_keycorridor(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.4 KeyCorridor (p0 room_size, p1 num_rows; 3 columns): a corridor down the middle
    # column, a locked room on the right with the ball, its key in a room on the left.
    cdef RoomGrid g
    cdef int nr = cfg.p[1], j, ri, c, x, y, ball, kc
    if rg_base(w, &g, cfg.p[0], nr, 3) < 0:
        return -1
    for j in range(1, nr):
        rg_remove_wall(w, &g, 1, j, 3)
    ri = rint(w, 0, nr)
    c = rg_add_door(w, &g, 2, ri, 2, -1, 1, &x, &y)
    if c < 0:
        return -1
    if rg_add_object(w, &g, 2, ri, OBJ_BALL, -1, &ball) < 0:
        return -1
    if rg_add_object(w, &g, 0, rint(w, 0, nr), OBJ_KEY, c, &kc) < 0:  # the room drawn before the key
        return -1
    if rg_place_agent(w, &g, 1, nr // 2) < 0:
        return -1
    if rg_connect_all(w, &g) < 0:
        return -1
    set_target(w, OBJ_BALL, ball)
    return 0


cdef void om_door_colors(World* w, int* colors) noexcept nogil:
    # ObstructedMazeEnv: _rand_subset(COLOR_NAMES, 6), a permutation drawn pick by pick from
    # the alphabetical list less the picks so far (the last pick draws nothing).
    cdef int pool[6]
    cdef int n, k, m
    for k in range(6):
        pool[k] = k
    for n in range(6):
        k = rint(w, 0, 6 - n)
        colors[n] = COLOR_OF_DRAW[pool[k]]
        for m in range(k, 5 - n):
            pool[m] = pool[m + 1]


cdef int om_key(World* w, RoomGrid* g, int i, int j, int color, bint key_in_box) noexcept nogil:
    # A door's key in room (i, j), in a grey box if key_in_box.
    if key_in_box:
        return rg_place_in_room(w, g, i, j, OBJ_BOX, C_GREY, 1 + OBJ_KEY * 8 + color)
    return rg_place_in_room(w, g, i, j, OBJ_KEY, color, 0)


cdef int om_locked_door(World* w, RoomGrid* g, int i, int j, int k, int color, bint blocked) noexcept nogil:
    # A locked door on side k of room (i, j), blocked by a green ball just inside it (put over
    # whatever is there).
    cdef int x, y
    if rg_add_door(w, g, i, j, k, color, 1, &x, &y) < 0:
        return -1
    if blocked:
        put(w, x - DIR_DX[k], y - DIR_DY[k], OBJ_BALL, C_GREEN, 0)
    return 0


cdef int gen_obstructed_1d(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.5 ObstructedMaze-1Dl/1Dlh/1Dlhb (p0 key_in_box, p1 blocked): two rooms, a locked door.
    cdef RoomGrid g
    cdef int colors[6]
    cdef int c
    if rg_base(w, &g, 6, 1, 2) < 0:
        return -1
    om_door_colors(w, colors)
    if om_locked_door(w, &g, 0, 0, 0, colors[0], cfg.p[1]) < 0:
        return -1
    if om_key(w, &g, 0, 0, colors[0], cfg.p[0]) < 0:
        return -1
    if rg_add_object(w, &g, 1, 0, OBJ_BALL, C_BLUE, &c) < 0:
        return -1
    if rg_place_agent(w, &g, 0, 0) < 0:
        return -1
    set_target(w, OBJ_BALL, C_BLUE)
    w.mission[0] = 0
    return 0


cdef int gen_obstructed_full(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.5 ObstructedMaze-2D*/1Q/2Q/Full (p0, p1 the agent's room, p2 key_in_box, p3 blocked,
    # p4 num_quarters, p5 1 for v1): 3 x 3 rooms; per quarter an unlocked door from the middle
    # room to a side room and two locked doors out of that side room with their keys. v0 puts
    # each door's ball and key in turn (a later ball can cover an earlier key), v1 both doors
    # and balls first.
    cdef RoomGrid g
    cdef int colors[6]
    cdef int q, n, k, kk, x, y, c, b
    cdef bint kib = cfg.p[2], blocked = cfg.p[3]
    if not 1 <= cfg.p[4] <= 4 or rg_base(w, &g, 6, 3, 3) < 0:
        return -1
    om_door_colors(w, colors)
    for q in range(cfg.p[4]):
        if rg_add_door(w, &g, 1, 1, q, colors[q], 0, &x, &y) < 0:
            return -1
        for n in range(2):
            k = 2 * n - 1
            kk = (q + k + 4) % 4
            if om_locked_door(w, &g, OM_SIDE_I[q], OM_SIDE_J[q], kk, colors[(q + k + 6) % 6], blocked) < 0:
                return -1
            if not cfg.p[5] and om_key(w, &g, OM_SIDE_I[q], OM_SIDE_J[q], colors[(q + k + 6) % 6], kib) < 0:
                return -1
        if cfg.p[5]:
            for n in range(2):
                k = 2 * n - 1
                if om_key(w, &g, OM_SIDE_I[q], OM_SIDE_J[q], colors[(q + k + 6) % 6], kib) < 0:
                    return -1
    b = rint(w, 0, cfg.p[4])
    if rg_add_object(w, &g, OM_CORNER_I[b], OM_CORNER_J[b], OBJ_BALL, C_BLUE, &c) < 0:
        return -1
    if rg_place_agent(w, &g, cfg.p[0], cfg.p[1]) < 0:
        return -1
    set_target(w, OBJ_BALL, C_BLUE)
    w.mission[0] = 0
    return 0
