# Included by gridsim/minigrid/_kernel.pyx after _world.pxi: every id's _gen_grid, drawing
# from the env's generator in exactly Minigrid's order (spec section 5; the section of each
# generator is named above it). Each gen_* starts from an all-empty grid with the agent at
# (-1, -1, -1), nothing carried, task slots 0 and mission 0, and returns 0, or -1 where
# Minigrid would raise (a placement that ran out of tries).

# Generators, and what MgConfig.p holds for each.
cdef enum:
    GEN_EMPTY = 0        # p0: random start (Empty-Random-*)
    GEN_DOORKEY = 1
    GEN_FOURROOMS = 2
    GEN_LAVAGAP = 3
    GEN_CROSSING = 4     # p0: num_crossings, p1: obstacle (OBJ_LAVA or OBJ_WALL)
    GEN_MULTIROOM = 5    # p0: minNumRooms, p1: maxNumRooms, p2: maxRoomSize
    GEN_DISTSHIFT = 6    # p0: strip2_row
    GEN_DYNOBS = 7       # p0: random start, p1: n_obstacles; task: count, then (x, y) per ball
    GEN_MEMORY = 8       # p0: random_length; task: success (x, y), failure (x, y)
    GEN_GOTODOOR = 9     # task: the target door (x, y); mission: its colour (COLOR_TO_IDX)
    NUM_GENS = 10


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


cdef int generate(World* w, const MgConfig* cfg) noexcept nogil:
    # The id's _gen_grid; -1 where Minigrid would raise.
    if cfg.gen == GEN_EMPTY:
        return gen_empty(w, cfg)
    if cfg.gen == GEN_DOORKEY:
        return gen_doorkey(w, cfg)
    return -1
