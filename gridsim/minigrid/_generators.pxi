# Included by gridsim/minigrid/_kernel.pyx after _world.pxi: every id's _gen_grid, drawing
# from the env's generator in exactly Minigrid's order (spec sections 5 and 6; the section of
# each generator is named above it). Each gen_* starts from an all-empty grid with the agent at
# (-1, -1, -1), nothing carried, task slots 0 and mission 0, and returns 0, or -1 where
# Minigrid would raise (a placement that ran out of tries).

# The generators' numbers, and what MgConfig.p, the task slots and the mission index hold for each, are
# the task table's (gridsim/minigrid/tasks.py; the generated _tasks.pxi, included after _roomgrid.pxi,
# numbers them and dispatches to them).


cdef int gen_empty(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.1 Empty
    wall_rect(w, 0, 0, w.W, w.H)
    put_goal(w, w.W - 2, w.H - 2)
    if cfg.p[0]:
        return place_agent(w, 0, 0, w.W, w.H, True, -1)
    set_agent(w, 1, 1, 0)
    return 0


cdef int gen_doorkey(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.2 DoorKey
    cdef int s, d, x, y
    wall_rect(w, 0, 0, w.W, w.H)
    put_goal(w, w.W - 2, w.H - 2)
    s = rint(w, 2, w.W - 2)
    vert_wall(w, s, 0, w.H, OBJ_WALL, C_GREY)
    if place_agent(w, 0, 0, s, w.H, True, -1) < 0:
        return -1
    d = rint(w, 1, w.H - 2)
    put(w, s, d, OBJ_DOOR, C_YELLOW, ST_LOCKED)
    return place_obj(w, 0, 0, s, w.H, OBJ_KEY, C_YELLOW, 0, False, -1, &x, &y)


cdef int gen_fourrooms(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.3 FourRooms: the 2x2 rooms loop (j outer, i inner) draws one hole per inner wall.
    cdef int rw = w.W // 2, rh = w.H // 2, i, j, xl, yt, xr, yb
    wall_rect(w, 0, 0, w.W, w.H)
    for j in range(2):
        for i in range(2):
            xl = i * rw
            yt = j * rh
            xr = xl + rw
            yb = yt + rh
            if i + 1 < 2:
                vert_wall(w, xr, yt, rh, OBJ_WALL, C_GREY)
                clear(w, xr, rint(w, yt + 1, yb))
            if j + 1 < 2:
                horz_wall(w, xl, yb, rw, OBJ_WALL, C_GREY)
                clear(w, rint(w, xl + 1, xr), yb)
    if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
        return -1
    return place_obj(w, 0, 0, w.W, w.H, OBJ_GOAL, C_GREEN, 0, False, -1, &i, &j)


cdef int gen_lavagap(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.4 LavaGap: the gap is drawn x then y, before the lava column is laid.
    cdef int gx, gy
    wall_rect(w, 0, 0, w.W, w.H)
    set_agent(w, 1, 1, 0)
    put_goal(w, w.W - 2, w.H - 2)
    gx = rint(w, 2, w.W - 2)
    gy = rint(w, 1, w.H - 1)
    vert_wall(w, gx, 1, w.H - 2, OBJ_LAVA, C_RED)
    clear(w, gx, gy)
    return 0


cdef enum:
    CROSS_MAX = 64       # rivers of one grid, both directions together
    CROSS_V = 0          # a vertical river (a column); in a path, a move across a horizontal one
    CROSS_H = 1


cdef void sort_ints(int* a, int n) noexcept nogil:
    # Insertion sort, ascending (a handful of river positions).
    cdef int i, j, v
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef int gen_crossing(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.5 LavaCrossing / SimpleCrossing. Rivers are (direction, position) items, all vertical
    # ones (from the height) then all horizontal ones (from the width), as Minigrid lists them
    # before its shuffle; an item is direction * 256 + position.
    cdef int rivers[CROSS_MAX]
    cdef int rv[CROSS_MAX + 2]
    cdef int rh[CROSS_MAX + 2]
    cdef int path[CROSS_MAX]
    cdef int n = 0, nv = 0, nh = 0, k, x, y, p, ri = 0, rj = 0, lo, hi
    cdef int obstacle = cfg.p[1]
    cdef int color = C_RED if obstacle == OBJ_LAVA else C_GREY
    wall_rect(w, 0, 0, w.W, w.H)
    set_agent(w, 1, 1, 0)
    put_goal(w, w.W - 2, w.H - 2)
    if (w.H - 3) // 2 + (w.W - 3) // 2 > CROSS_MAX:
        return -1
    for p in range(2, w.H - 2, 2):
        rivers[n] = CROSS_V * 256 + p
        n += 1
    for p in range(2, w.W - 2, 2):
        rivers[n] = CROSS_H * 256 + p
        n += 1
    mg_shuffle_int(w.rng, rivers, n)
    # rivers[:num_crossings], split by direction; rv and rh keep slot 0 for the limits' 0.
    for k in range(imin(imax(cfg.p[0], 0), n)):
        if rivers[k] >> 8 == CROSS_V:
            rv[1 + nv] = rivers[k] & 255
            nv += 1
        else:
            rh[1 + nh] = rivers[k] & 255
            nh += 1
    sort_ints(&rv[1], nv)
    sort_ints(&rh[1], nh)
    for x in range(1, w.W - 1):
        for k in range(nh):
            put(w, x, rh[1 + k], obstacle, color, 0)
    for k in range(nv):
        for y in range(1, w.H - 1):
            put(w, rv[1 + k], y, obstacle, color, 0)
    # One move across each river: 'h' (through a vertical river) for each vertical one, then 'v'.
    for k in range(nv):
        path[k] = CROSS_H
    for k in range(nh):
        path[nv + k] = CROSS_V
    mg_shuffle_int(w.rng, path, nv + nh)
    # limits_v = [0] + rivers_v + [height - 1], limits_h = [0] + rivers_h + [width - 1].
    rv[0] = 0
    rv[nv + 1] = w.H - 1
    rh[0] = 0
    rh[nh + 1] = w.W - 1
    for k in range(nv + nh):
        if path[k] == CROSS_H:
            lo = rh[rj] + 1
            hi = rh[rj + 1]
            if lo >= hi:  # choice() of an empty range raises
                return -1
            x = rv[ri + 1]
            y = rint(w, lo, hi)
            ri += 1
        else:
            lo = rv[ri] + 1
            hi = rv[ri + 1]
            if lo >= hi:
                return -1
            x = rint(w, lo, hi)
            y = rh[rj + 1]
            rj += 1
        clear(w, x, y)
    return 0


cdef enum:
    MR_MAX_ROOMS = 32


cdef struct MrRoom:
    int x
    int y
    int sx
    int sy
    int ex      # the entry door (the first room's is its top-left corner, and gets no door)
    int ey


cdef struct MrList:
    int n
    MrRoom[MR_MAX_ROOMS] r


cdef bint mr_place_room(World* w, int num_left, MrList* rooms, int min_sz, int max_sz,
                        int entry_wall, int ex, int ey) noexcept nogil:
    # MultiRoomEnv._placeRoom. A room that does not fit returns False after its draws; one
    # that fits is kept and returns True whether or not a next room fits behind it, so the
    # list is always a chain and the overlap test skips its last room (the one being left).
    cdef int sx, sy, x, y, k, i, wall, px, py
    cdef MrRoom* R
    sx = rint(w, min_sz, max_sz + 1)
    sy = rint(w, min_sz, max_sz + 1)
    if rooms.n == 0:
        x = ex
        y = ey
    elif entry_wall == 0:
        x = ex - sx + 1
        y = rint(w, ey - sy + 2, ey)
    elif entry_wall == 1:
        x = rint(w, ex - sx + 2, ex)
        y = ey - sy + 1
    elif entry_wall == 2:
        x = ex
        y = rint(w, ey - sy + 2, ey)
    else:
        x = rint(w, ex - sx + 2, ex)
        y = ey
    if x < 0 or y < 0:
        return False
    # Minigrid's bounds test: '>' for x but '>=' for y.
    if x + sx > w.W or y + sy >= w.H:
        return False
    for k in range(rooms.n - 1):
        R = &rooms.r[k]
        if not (x + sx < R.x or R.x + R.sx <= x or y + sy < R.y or R.y + R.sy <= y):
            return False
    if rooms.n >= MR_MAX_ROOMS:  # unreachable: the chain is at most minNumRooms..maxNumRooms long
        return False
    R = &rooms.r[rooms.n]
    R.x = x
    R.y = y
    R.sx = sx
    R.sy = sy
    R.ex = ex
    R.ey = ey
    rooms.n += 1
    if num_left == 1:
        return True
    for i in range(8):
        # The exit wall: an element of the ascending [0, 1, 2, 3] without the entry wall.
        wall = rint(w, 0, 3)
        if wall >= entry_wall:
            wall += 1
        if wall == 0:
            px = x + sx - 1
            py = y + rint(w, 1, sy - 1)
        elif wall == 1:
            px = x + rint(w, 1, sx - 1)
            py = y + sy - 1
        elif wall == 2:
            px = x
            py = y + rint(w, 1, sy - 1)
        else:
            px = x + rint(w, 1, sx - 1)
            py = y
        if mr_place_room(w, num_left - 1, rooms, min_sz, max_sz, (wall + 2) % 4, px, py):
            break
    return True


cdef int gen_multiroom(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.6 MultiRoom: chains are drawn from scratch until one has n rooms (the longest so far
    # is kept); then the rooms' walls and entry doors in order, on a grid with no outer wall.
    cdef MrList best, cur
    cdef MrRoom* R
    cdef int n, ex, ey, idx, i, j, k, prev = -1, x, y
    n = rint(w, cfg.p[0], cfg.p[1] + 1)
    if n > MR_MAX_ROOMS:
        return -1
    best.n = 0
    while best.n < n:
        cur.n = 0
        ex = rint(w, 0, w.W - 2)
        ey = rint(w, 0, w.W - 2)  # both from the width, as Minigrid draws them
        mr_place_room(w, n, &cur, 4, cfg.p[2], 2, ex, ey)
        if cur.n > best.n:
            best = cur
    for idx in range(best.n):
        R = &best.r[idx]
        for i in range(R.sx):
            put_wall(w, R.x + i, R.y)
            put_wall(w, R.x + i, R.y + R.sy - 1)
        for j in range(R.sy):
            put_wall(w, R.x, R.y + j)
            put_wall(w, R.x + R.sx - 1, R.y + j)
        if idx > 0:
            # A colour of sorted(COLOR_NAMES minus the previous door's): work on draw indices.
            if prev < 0:
                k = rint(w, 0, 6)
            else:
                k = rint(w, 0, 5)
                if k >= prev:
                    k += 1
            put(w, R.ex, R.ey, OBJ_DOOR, COLOR_OF_DRAW[k], ST_CLOSED)
            prev = k
    R = &best.r[0]
    if place_agent(w, R.x, R.y, R.sx, R.sy, True, -1) < 0:
        return -1
    R = &best.r[best.n - 1]
    return place_obj(w, R.x, R.y, R.sx, R.sy, OBJ_GOAL, C_GREEN, 0, False, -1, &x, &y)


cdef int gen_distshift(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.7 DistShift: no draws.
    cdef int k
    wall_rect(w, 0, 0, w.W, w.H)
    put_goal(w, w.W - 2, 1)
    for k in range(w.W - 6):
        put_lava(w, 3 + k, 1)
        put_lava(w, 3 + k, cfg.p[0])
    set_agent(w, 1, 1, 0)
    return 0


cdef int gen_dynamic_obstacles(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.8 Dynamic-Obstacles: the balls' positions go to the task slots in list order, where the
    # step's move_obstacles reads and updates them.
    cdef int k, n = cfg.p[1], x, y
    if n > (TASK_SLOTS - 1) // 2:
        return -1
    wall_rect(w, 0, 0, w.W, w.H)
    put_goal(w, w.W - 2, w.H - 2)
    if cfg.p[0]:
        if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
            return -1
    else:
        set_agent(w, 1, 1, 0)
    w.task[0] = <int16_t>n
    for k in range(n):
        if place_obj(w, 0, 0, w.W, w.H, OBJ_BALL, C_BLUE, 0, False, 100, &x, &y) < 0:
            return -1
        w.task[1 + 2 * k] = <int16_t>x
        w.task[2 + 2 * k] = <int16_t>y
    return 0


cdef int gen_memory(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.9 Memory: the start room, the hallway and its two ends, then the objects (0 key, 1 ball).
    cdef int m = w.H // 2, up = w.H // 2 - 2, lo = w.H // 2 + 2, he, x, y, s, o, o0, o1
    wall_rect(w, 0, 0, w.W, w.H)
    if cfg.p[0]:
        he = rint(w, 4, w.W - 2)
    else:
        he = w.W - 3
    for x in range(1, 5):
        put_wall(w, x, up)
        put_wall(w, x, lo)
    put_wall(w, 4, up + 1)
    put_wall(w, 4, lo - 1)
    for x in range(5, he):
        put_wall(w, x, up + 1)
        put_wall(w, x, lo - 1)
    for y in range(w.H):
        if y != m:
            put_wall(w, he, y)
        put_wall(w, he + 2, y)
    set_agent(w, rint(w, 1, he + 1), m, 0)
    s = OBJ_KEY if rint(w, 0, 2) == 0 else OBJ_BALL           # elem([Key, Ball])
    put(w, 1, m - 1, s, C_GREEN, 0)
    o = rint(w, 0, 2)                                          # elem([[Ball, Key], [Key, Ball]])
    o0 = OBJ_BALL if o == 0 else OBJ_KEY
    o1 = OBJ_KEY if o == 0 else OBJ_BALL
    put(w, he + 1, m - 2, o0, C_GREEN, 0)
    put(w, he + 1, m + 2, o1, C_GREEN, 0)
    if s == o0:
        w.task[0] = <int16_t>(he + 1)
        w.task[1] = <int16_t>(m - 1)
        w.task[2] = <int16_t>(he + 1)
        w.task[3] = <int16_t>(m + 1)
    else:
        w.task[0] = <int16_t>(he + 1)
        w.task[1] = <int16_t>(m + 1)
        w.task[2] = <int16_t>(he + 1)
        w.task[3] = <int16_t>(m - 1)
    return 0


cdef int gen_gotodoor(World* w, const MgConfig* cfg) noexcept nogil:
    # 5.10 GoToDoor: a w x h room in the grid's top-left corner, a door on each side (top,
    # bottom, left, right) in four distinct colours (repeats are redrawn), then the agent and
    # the target door.
    cdef int rw, rh, k, j, t, c
    cdef int dx[4]
    cdef int dy[4]
    cdef int colors[4]
    cdef int nc = 0
    rw = rint(w, 5, w.W + 1)
    rh = rint(w, 5, w.H + 1)
    wall_rect(w, 0, 0, rw, rh)
    dx[0] = rint(w, 2, rw - 2)
    dy[0] = 0
    dx[1] = rint(w, 2, rw - 2)
    dy[1] = rh - 1
    dx[2] = 0
    dy[2] = rint(w, 2, rh - 2)
    dx[3] = rw - 1
    dy[3] = rint(w, 2, rh - 2)
    while nc < 4:
        c = rcolor(w)
        for j in range(nc):
            if colors[j] == c:
                break
        else:
            colors[nc] = c
            nc += 1
    for k in range(4):
        put(w, dx[k], dy[k], OBJ_DOOR, colors[k], ST_CLOSED)
    if place_agent(w, 0, 0, rw, rh, True, -1) < 0:
        return -1
    t = rint(w, 0, 4)
    w.task[0] = <int16_t>dx[t]
    w.task[1] = <int16_t>dy[t]
    w.mission[0] = <int16_t>colors[t]
    return 0


# ---------------------------------------------------------------- MiniGridEnv ids of spec section 6

cdef enum:
    OBJS_MAX = 18        # numObjs: distinct (type, colour) pairs of key, ball and box


cdef int gen_lockedroom(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.6 LockedRoom: six rooms, left then right per band of H // 3 rows, doors on the hallway
    # walls; goal and key are set without rejection (x then y inside the room's walls).
    cdef int L = w.W // 2 - 2, R = w.W // 2 + 2, band = w.H // 3, n, i, x, y, k, locked, key
    cdef int top_x[6]
    cdef int top_y[6]
    cdef int color[6]
    cdef int left[6]             # COLOR_NAMES not yet taken, as draw indices (sorted)
    cdef int sx = L + 1, sy = w.H // 3 + 1
    wall_rect(w, 0, 0, w.W, w.H)
    vert_wall(w, L, 0, w.H, OBJ_WALL, C_GREY)
    vert_wall(w, R, 0, w.H, OBJ_WALL, C_GREY)
    for n in range(3):
        y = n * band
        horz_wall(w, 0, y, L, OBJ_WALL, C_GREY)
        horz_wall(w, R, y, w.W - R, OBJ_WALL, C_GREY)
        top_x[2 * n] = 0
        top_x[2 * n + 1] = R
        top_y[2 * n] = y
        top_y[2 * n + 1] = y
    locked = rint(w, 0, 6)
    x = rint(w, top_x[locked] + 1, top_x[locked] + sx - 1)
    y = rint(w, top_y[locked] + 1, top_y[locked] + sy - 1)
    put_goal(w, x, y)
    for k in range(6):
        left[k] = k
    for n in range(6):
        # elem(sorted(colours)); colours.remove(...): the remaining draw indices stay sorted.
        k = rint(w, 0, 6 - n)
        color[n] = COLOR_OF_DRAW[left[k]]
        for i in range(k, 5 - n):
            left[i] = left[i + 1]
        put(w, L if n % 2 == 0 else R, top_y[n] + 3, OBJ_DOOR, color[n], ST_LOCKED if n == locked else ST_CLOSED)
    key = rint(w, 0, 6)
    while key == locked:
        key = rint(w, 0, 6)
    x = rint(w, top_x[key] + 1, top_x[key] + sx - 1)
    y = rint(w, top_y[key] + 1, top_y[key] + sy - 1)
    put(w, x, y, OBJ_KEY, color[locked], 0)
    if place_agent(w, L, 0, R - L, w.H, True, -1) < 0:
        return -1
    w.mission[0] = <int16_t>(color[locked] * 6 + color[key])
    return 0


cdef int gen_fetch(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.7 Fetch: numObjs keys and balls (repeats allowed) anywhere, the agent, then the target
    # and the mission's wording.
    cdef int n = cfg.p[0], k, t, x, y
    cdef int types[OBJS_MAX]
    cdef int colors[OBJS_MAX]
    if not 1 <= n <= OBJS_MAX:
        return -1
    wall_rect(w, 0, 0, w.W, w.H)
    for k in range(n):
        types[k] = rint(w, 0, 2)            # elem(['key', 'ball'])
        colors[k] = rcolor(w)
        if place_obj(w, 0, 0, w.W, w.H, OBJ_KEY + types[k], colors[k], 0, False, -1, &x, &y) < 0:
            return -1
    if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
        return -1
    t = rint(w, 0, n)
    w.task[0] = <int16_t>(OBJ_KEY + types[t])
    w.task[1] = <int16_t>colors[t]
    w.mission[0] = <int16_t>(rint(w, 0, 5) * 12 + types[t] * 6 + colors[t])
    return 0


cdef int draw_distinct_object(World* w, int* types, int* colors, int n) noexcept nogil:
    # GoToObject / PutNear: (type, colour) pairs are drawn until one differs from the n kept
    # (a repeat's two draws are consumed); it becomes item n. Types: 0 key, 1 ball, 2 box.
    cdef int t, c, j
    while True:
        t = rint(w, 0, 3)
        c = rcolor(w)
        for j in range(n):
            if types[j] == t and colors[j] == c:
                break
        else:
            types[n] = t
            colors[n] = c
            return 0


cdef int gen_gotoobject(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.8 GoToObject: numObjs distinct objects anywhere, the agent, then the target.
    cdef int n = cfg.p[0], k, t
    cdef int types[OBJS_MAX]
    cdef int colors[OBJS_MAX]
    cdef int px[OBJS_MAX]
    cdef int py[OBJS_MAX]
    if not 1 <= n <= OBJS_MAX:  # more never ends in Minigrid
        return -1
    wall_rect(w, 0, 0, w.W, w.H)
    for k in range(n):
        draw_distinct_object(w, types, colors, k)
        if place_obj(w, 0, 0, w.W, w.H, OBJ_KEY + types[k], colors[k], 0, False, -1, &px[k], &py[k]) < 0:
            return -1
    if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
        return -1
    t = rint(w, 0, n)
    w.task[0] = <int16_t>px[t]
    w.task[1] = <int16_t>py[t]
    w.mission[0] = <int16_t>(types[t] * 6 + colors[t])
    return 0


cdef int gen_putnear(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.9 PutNear: numObjs distinct objects, none in the 3x3 around an earlier one (place_obj
    # with near_obj as reject_fn, over the whole grid); the agent; the object to move, then a
    # target redrawn until it is another one.
    cdef int n = cfg.p[0], k, m, g
    cdef int types[OBJS_MAX]
    cdef int colors[OBJS_MAX]
    cdef int px[OBJS_MAX]
    cdef int py[OBJS_MAX]
    if not 2 <= n <= OBJS_MAX:  # fewer: the target loop never ends; more: the objects' loop
        return -1
    wall_rect(w, 0, 0, w.W, w.H)
    for k in range(n):
        draw_distinct_object(w, types, colors, k)
        place_obj_rejecting(w, 0, 0, w.W, w.H, OBJ_KEY + types[k], colors[k], 0, False, px, py, k, -1,
                            &px[k], &py[k])
    if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
        return -1
    m = rint(w, 0, n)
    g = rint(w, 0, n)
    while g == m:
        g = rint(w, 0, n)
    w.task[0] = <int16_t>px[g]
    w.task[1] = <int16_t>py[g]
    w.task[2] = <int16_t>(OBJ_KEY + types[m])
    w.task[3] = <int16_t>colors[m]
    w.mission[0] = <int16_t>(((types[m] * 6 + colors[m]) * 3 + types[g]) * 6 + colors[g])
    return 0


cdef int gen_redbluedoors(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.10 RedBlueDoors: a size x size room in the middle of a 2 size x size grid; the agent
    # inside, then the red door in its left wall and the blue one in its right wall.
    cdef int s = w.H, y
    wall_rect(w, 0, 0, 2 * s, s)
    wall_rect(w, s // 2, 0, s, s)
    if place_agent(w, s // 2, 0, s, s, True, -1) < 0:
        return -1
    y = rint(w, 1, s - 1)
    put(w, s // 2, y, OBJ_DOOR, C_RED, ST_CLOSED)
    w.task[0] = <int16_t>(s // 2)
    w.task[1] = <int16_t>y
    y = rint(w, 1, s - 1)
    put(w, s // 2 + s - 1, y, OBJ_DOOR, C_BLUE, ST_CLOSED)
    w.task[2] = <int16_t>(s // 2 + s - 1)
    w.task[3] = <int16_t>y
    return 0


cdef int gen_playground(World* w, const MgConfig* cfg) noexcept nogil:
    # 6.11 Playground: 3x3 rooms (j outer, i inner), a door of a random colour in each inner
    # wall (its position drawn before its colour); the agent; then 12 random objects anywhere.
    cdef int rw = w.W // 3, rh = w.H // 3, i, j, xl, yt, xr, yb, p, k, t, c, x, y
    wall_rect(w, 0, 0, w.W, w.H)
    for j in range(3):
        for i in range(3):
            xl = i * rw
            yt = j * rh
            xr = xl + rw
            yb = yt + rh
            if i + 1 < 3:
                vert_wall(w, xr, yt, rh, OBJ_WALL, C_GREY)
                p = rint(w, yt + 1, yb - 1)
                put(w, xr, p, OBJ_DOOR, rcolor(w), ST_CLOSED)
            if j + 1 < 3:
                horz_wall(w, xl, yb, rw, OBJ_WALL, C_GREY)
                p = rint(w, xl + 1, xr - 1)
                put(w, p, yb, OBJ_DOOR, rcolor(w), ST_CLOSED)
    if place_agent(w, 0, 0, w.W, w.H, True, -1) < 0:
        return -1
    for k in range(12):
        t = rint(w, 0, 3)                   # elem(['key', 'ball', 'box'])
        c = rcolor(w)
        if place_obj(w, 0, 0, w.W, w.H, OBJ_KEY + t, c, 0, False, -1, &x, &y) < 0:
            return -1
    return 0


cdef int gen_python(World* w, const MgConfig* cfg) noexcept nogil:
    # A Python task: the class's _gen_grid runs in Python after the kernel's call and writes the
    # world (gridsim.minigrid.python_tasks). Until then the row is an empty grid with the agent
    # in its corner, so that the observation written meanwhile reads only cells of the grid.
    set_agent(w, 0, 0, 0)
    return 1


