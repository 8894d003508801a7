# Included by gridsim/minigrid/_kernel.pyx after _roomgrid.pxi: the primitives a compiled task's generator calls
# (gridsim.minigrid.compiled). Each is a plain C function of the world (World*, passed as a
# pointer) and ints, returning an int, so that machine code made elsewhere (Numba's) calls it by
# its address with no Python in between. They are the kernel's own helpers, the ones the
# built-in generators use, so a compiled generator draws exactly as Minigrid's methods of the
# same names do (MiniGridEnv._rand_int, Grid.wall_rect, MiniGridEnv.place_obj, ...).

ctypedef int (*compiled_generator)(World* w) noexcept nogil


cdef int gen_compiled(World* w, const MgConfig* cfg) noexcept nogil:
    # A compiled task: its generator, machine code calling the primitives below
    # (gridsim.minigrid.compiled), on this thread, without the GIL. Its RoomGrid, if it makes
    # one (room_grid), lives on this stack.
    # A mission outside the task's is a failed generation (the env raises).
    cdef RoomGrid g
    cdef int r
    g.rs = 0
    g.nr = 0
    g.nc = 0
    w.rooms = &g
    r = (<compiled_generator>cfg.fn)(w)
    if not 0 <= w.mission[0] < cfg.num_missions:
        w.mission[0] = 0  # the row's observation names a mission of the task until it is reset
        return -1
    return -1 if r < 0 else 0


cdef int pr_width(World* w) noexcept nogil:
    return w.W


cdef int pr_height(World* w) noexcept nogil:
    return w.H


cdef int pr_rand_int(World* w, int low, int high) noexcept nogil:
    # _rand_int(low, high); high <= low draws nothing and returns low (Minigrid raises there).
    if high <= low:
        return low
    return rint(w, low, high)


cdef int pr_rand_bool(World* w) noexcept nogil:
    # _rand_bool(): integers(0, 2) == 0.
    return rint(w, 0, 2) == 0


cdef int pr_rand_color(World* w) noexcept nogil:
    # _rand_color(): a colour drawn over COLOR_NAMES, as its COLOR_TO_IDX index.
    return rcolor(w)


cdef inline bint pr_inside(World* w, int x, int y) noexcept nogil:
    return 0 <= x < w.W and 0 <= y < w.H


cdef int pr_get(World* w, int x, int y) noexcept nogil:
    # The object at (x, y) (OBJECT_TO_IDX; empty: 1); outside the grid: -1.
    return cell_at(w, x, y)[0] if pr_inside(w, x, y) else -1


cdef int pr_get_color(World* w, int x, int y) noexcept nogil:
    return cell_at(w, x, y)[1] if pr_inside(w, x, y) else -1


cdef int pr_get_state(World* w, int x, int y) noexcept nogil:
    return cell_at(w, x, y)[2] if pr_inside(w, x, y) else -1


cdef int pr_put(World* w, int x, int y, int obj, int color, int state) noexcept nogil:
    # grid.set / put_obj: the object (OBJECT_TO_IDX, COLOR_TO_IDX, state) at (x, y); -1 outside the
    # grid or for an object gridsim has not (nothing written).
    if not pr_inside(w, x, y) or not OBJ_EMPTY <= obj <= OBJ_LAVA or not 0 <= color <= 5 or not 0 <= state <= 2:
        return -1
    put(w, x, y, obj, color, state)
    return 0


cdef int pr_put_in_box(World* w, int x, int y, int obj, int color) noexcept nogil:
    # box.contains = <obj of color>: the box at (x, y) holds it (-1 where there is no box).
    if not pr_inside(w, x, y) or cell_at(w, x, y)[0] != OBJ_BOX or not OBJ_WALL <= obj <= OBJ_LAVA \
            or not 0 <= color <= 5:
        return -1
    cell_at(w, x, y)[3] = <uint8_t>(1 + obj * 8 + color)
    return 0


cdef int pr_horz_wall(World* w, int x, int y, int length, int obj, int color) noexcept nogil:
    # Grid.horz_wall(x, y, length, obj_type): cells past the grid are skipped.
    cdef int i
    for i in range(length):
        if pr_inside(w, x + i, y):
            put(w, x + i, y, obj, color, 0)
    return 0


cdef int pr_vert_wall(World* w, int x, int y, int length, int obj, int color) noexcept nogil:
    cdef int j
    for j in range(length):
        if pr_inside(w, x, y + j):
            put(w, x, y + j, obj, color, 0)
    return 0


cdef int pr_wall_rect(World* w, int x, int y, int wd, int ht) noexcept nogil:
    # Grid.wall_rect: top row, bottom row, left column, right column.
    pr_horz_wall(w, x, y, wd, OBJ_WALL, C_GREY)
    pr_horz_wall(w, x, y + ht - 1, wd, OBJ_WALL, C_GREY)
    pr_vert_wall(w, x, y, ht, OBJ_WALL, C_GREY)
    pr_vert_wall(w, x + wd - 1, y, ht, OBJ_WALL, C_GREY)
    return 0


cdef inline bint pr_rectangle(World* w, int tx, int ty, int sx, int sy) noexcept nogil:
    # A placement's rectangle holds a cell of the grid once its top is clipped to 0 as
    # Minigrid's place_obj clips it (where it holds none, Minigrid's draw raises).
    return sx > 0 and sy > 0 and imax(tx, 0) < w.W and imax(ty, 0) < w.H


cdef int pr_place_obj(World* w, int tx, int ty, int sx, int sy, int obj, int color, int state,
                      int reject_next_to, int max_tries) noexcept nogil:
    # MiniGridEnv.place_obj(obj, top, size, reject_fn, max_tries): a cell drawn x then y until it
    # is empty, not the agent's and (reject_next_to) not next to the agent; the object put there
    # (empty: nothing). Returns y * width + x, or -1 after max_tries + 1 attempts (max_tries < 0:
    # no limit; Minigrid's RecursionError). Any other reject_fn: write Minigrid's loop with
    # rand_int and get.
    cdef int x, y
    if not pr_rectangle(w, tx, ty, sx, sy) or not OBJ_EMPTY <= obj <= OBJ_LAVA:
        return -1
    if place_obj(w, tx, ty, sx, sy, obj, color, state, reject_next_to != 0, max_tries, &x, &y) < 0:
        return -1
    return y * w.W + x


cdef int pr_place_agent(World* w, int tx, int ty, int sx, int sy, int rand_dir, int max_tries) noexcept nogil:
    # MiniGridEnv.place_agent(top, size, rand_dir, max_tries): 0, or -1 as place_obj.
    if not pr_rectangle(w, tx, ty, sx, sy):
        return -1
    return place_agent(w, tx, ty, sx, sy, rand_dir != 0, max_tries)


cdef int pr_set_agent(World* w, int x, int y, int d) noexcept nogil:
    # agent_pos = (x, y); agent_dir = d. -1 outside the grid or for a direction not 0..3.
    if not pr_inside(w, x, y) or not 0 <= d <= 3:
        return -1
    set_agent(w, x, y, d)
    return 0


cdef int pr_agent_x(World* w) noexcept nogil:
    return w.agent[0]


cdef int pr_agent_y(World* w) noexcept nogil:
    return w.agent[1]


cdef int pr_agent_dir(World* w) noexcept nogil:
    return w.agent[2]


cdef int pr_set_mission(World* w, int k) noexcept nogil:
    # The episode's mission: its index in the task's missions.
    w.mission[0] = <int16_t>k
    return 0


cdef int pr_set_task(World* w, int slot, int value) noexcept nogil:
    # What the task's rule reads (the rule's task slots: gridsim.minigrid.tasks.RULES); -1 for a slot
    # the kernel has not.
    if not 0 <= slot < TASK_SLOTS:
        return -1
    w.task[slot] = <int16_t>value
    return 0


# RoomGrid's methods (core/roomgrid.py): a grid of rooms, then rooms (i, j) (column, row) and
# their sides k (0 right, 1 down, 2 left, 3 up). Each returns -1 before room_grid or for a room
# out of range; an argument of -1 where Minigrid's is None is drawn as Minigrid draws it.

cdef inline RoomGrid* pr_rooms(World* w, int i, int j) noexcept nogil:
    cdef RoomGrid* g = <RoomGrid*>w.rooms
    if g.nr <= 0 or not (-1 <= i < g.nc and -1 <= j < g.nr):
        return NULL
    return g


cdef int pr_room_grid(World* w, int room_size, int num_rows, int num_cols) noexcept nogil:
    # RoomGrid._gen_grid: walls, door positions and the provisional agent; the grid must be
    # (room_size - 1) * num_cols + 1 by (room_size - 1) * num_rows + 1 cells.
    cdef RoomGrid* g = <RoomGrid*>w.rooms
    if room_size < 3 or num_rows < 1 or num_cols < 1 or num_rows * num_cols > RG_MAX_ROOMS:
        return -1
    return rg_base(w, g, room_size, num_rows, num_cols)


cdef int pr_room_place_agent(World* w, int i, int j) noexcept nogil:
    # RoomGrid.place_agent(i, j): -1 draws the room's column or row.
    cdef RoomGrid* g = pr_rooms(w, i, j)
    return -1 if g == NULL else rg_place_agent(w, g, i, j)


cdef int pr_room_add_door(World* w, int i, int j, int k, int color, int locked) noexcept nogil:
    # RoomGrid.add_door(i, j, door_idx, color, locked): returns the door's colour.
    cdef RoomGrid* g = pr_rooms(w, i, j)
    cdef int x, y
    if g == NULL or i < 0 or j < 0 or not -1 <= k <= 3 or not -1 <= color <= 5:
        return -1
    return rg_add_door(w, g, i, j, k, color, locked, &x, &y)


cdef int pr_room_add_object(World* w, int i, int j, int kind, int color) noexcept nogil:
    # RoomGrid.add_object(i, j, kind, color): kind KEY, BALL or BOX (-1: drawn); returns
    # object * 8 + colour.
    cdef RoomGrid* g = pr_rooms(w, i, j)
    cdef int out_color
    if g == NULL or i < 0 or j < 0 or not (kind == -1 or OBJ_KEY <= kind <= OBJ_BOX) or not -1 <= color <= 5:
        return -1
    if kind < 0:
        kind = RG_KINDS[rint(w, 0, 3)]
    if rg_add_object(w, g, i, j, kind, color, &out_color) < 0:
        return -1
    return kind * 8 + out_color


cdef int pr_room_place_in_room(World* w, int i, int j, int obj, int color) noexcept nogil:
    # RoomGrid.place_in_room(i, j, obj): any object, anywhere in the room not next to the agent.
    cdef RoomGrid* g = pr_rooms(w, i, j)
    if g == NULL or i < 0 or j < 0 or not OBJ_WALL <= obj <= OBJ_LAVA or not 0 <= color <= 5:
        return -1
    return rg_place_in_room(w, g, i, j, obj, color, 0)


cdef int pr_room_remove_wall(World* w, int i, int j, int k) noexcept nogil:
    # RoomGrid.remove_wall(i, j, wall_idx): -1 where there is no neighbour or already a door.
    cdef RoomGrid* g = pr_rooms(w, i, j)
    if g == NULL or i < 0 or j < 0 or not 0 <= k <= 3:
        return -1
    if rg_room(g, i, j).dx[k] < 0 or rg_room(g, i, j).doors[k] != RG_NONE:
        return -1
    rg_remove_wall(w, g, i, j, k)
    return 0


cdef int pr_room_connect_all(World* w) noexcept nogil:
    # RoomGrid.connect_all(): doors until every room is reachable from the agent's.
    cdef RoomGrid* g = pr_rooms(w, 0, 0)
    return -1 if g == NULL else rg_connect_all(w, g)


# name -> (address, number of int arguments after the world), for gridsim.minigrid.compiled.
MINIGRID_PRIMITIVES = {
    "width": (<size_t>pr_width, 0), "height": (<size_t>pr_height, 0),
    "rand_int": (<size_t>pr_rand_int, 2), "rand_bool": (<size_t>pr_rand_bool, 0),
    "rand_color": (<size_t>pr_rand_color, 0),
    "get": (<size_t>pr_get, 2), "get_color": (<size_t>pr_get_color, 2), "get_state": (<size_t>pr_get_state, 2),
    "put": (<size_t>pr_put, 5), "put_in_box": (<size_t>pr_put_in_box, 4),
    "horz_wall": (<size_t>pr_horz_wall, 5), "vert_wall": (<size_t>pr_vert_wall, 5),
    "wall_rect": (<size_t>pr_wall_rect, 4),
    "place_obj": (<size_t>pr_place_obj, 9), "place_agent": (<size_t>pr_place_agent, 6),
    "set_agent": (<size_t>pr_set_agent, 3), "agent_x": (<size_t>pr_agent_x, 0), "agent_y": (<size_t>pr_agent_y, 0),
    "agent_dir": (<size_t>pr_agent_dir, 0), "set_mission": (<size_t>pr_set_mission, 1),
    "set_task": (<size_t>pr_set_task, 2),
    "room_grid": (<size_t>pr_room_grid, 3), "room_place_agent": (<size_t>pr_room_place_agent, 2),
    "room_add_door": (<size_t>pr_room_add_door, 5), "room_add_object": (<size_t>pr_room_add_object, 4),
    "room_place_in_room": (<size_t>pr_room_place_in_room, 4), "room_remove_wall": (<size_t>pr_room_remove_wall, 3),
    "room_connect_all": (<size_t>pr_room_connect_all, 0),
}
