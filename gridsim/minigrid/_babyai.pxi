# Included by gridsim/minigrid/_kernel.pyx after _roomgrid.pxi: BabyAI (minigrid/envs/babyai of
# Minigrid 3.2.0; docs/babyai.md): its levels' generation on the env's generator, in upstream's
# draw order with rejected attempts included, the instruction tree, its verifier and the mission.
#
# A BabyAI world tracks objects by identity, as upstream compares them with `is`: oid (H, W)
# holds each cell's object number (put() gives every door, key, ball and box a new one; 0:
# none, walls included), and the carried object's number lives in the state below. The
# instruction state (bab, BAB_SLOTS int16 per env) holds:
#   header   next object number, node count, descriptor count, the root node, rejected
#            attempts of the last reset, navigations needed, the carried object's number, and
#            1 + the cell of the object PutNext*Carrying hands the agent (its reset observation
#            still shows it there: upstream takes it after observing; the next step forgets it),
#            and whether an object moved since the tracked cells were last found
#   nodes    BAB_MAX_NODES x (kind, strict, a, b, a_done, b_done, pre_carrying): an action's a
#            and b are descriptors (PutNext: move, fixed); and/before/after's are nodes
#   descs    BAB_MAX_DESCS x (type, colour, loc, |obj_set|, |obj_poss|, matches): type and
#            colour -1 for any, loc -1 or LOC_*; matches counts walls too (the article)
#   poss     BAB_MAX_DESCS x BAB_MAX_SET cells y * W + x (ObjDesc.obj_poss)
#   sets     BAB_MAX_DESCS x BAB_MAX_SET object numbers (ObjDesc.obj_set, walls left out)
# The verifier reads the header, a node, a descriptor and its cells at every step: the cells
# come right after the descriptors, so that a one-instruction level's are one pair of cache
# lines away from its descriptor (the object numbers are read only when an object moved).

cdef enum:
    BAB_NEXT_OID = 0
    BAB_NUM_NODES = 1
    BAB_NUM_DESCS = 2
    BAB_ROOT = 3
    BAB_REJECTED = 4
    BAB_NAVS = 5
    BAB_CARRIED = 6
    BAB_SHOWN = 7               # 1 + the cell where the carried object still shows (below), or 0
    BAB_MOVED = 8               # an object left or entered the grid since the tracked cells were found
    BAB_HEADER = 10
    BAB_MAX_NODES = 7           # a sequence of two ands of two actions
    BAB_NODE = 8
    BAB_MAX_DESCS = 8           # four PutNexts
    BAB_DESC = 6
    BAB_MAX_SET = 40            # more than any level's doors and objects together
    BAB_NODES_AT = BAB_HEADER
    BAB_DESCS_AT = BAB_NODES_AT + BAB_MAX_NODES * BAB_NODE
    BAB_POSS_AT = BAB_DESCS_AT + BAB_MAX_DESCS * BAB_DESC
    BAB_SETS_AT = BAB_POSS_AT + BAB_MAX_DESCS * BAB_MAX_SET
    BAB_SLOTS = BAB_SETS_AT + BAB_MAX_DESCS * BAB_MAX_SET
    MISSION_TOKENS = 80         # the longest mission (two ands of two PutNexts) has 76

# A node's slots.
cdef enum:
    N_KIND = 0
    N_STRICT = 1
    N_A = 2
    N_B = 3
    N_A_DONE = 4
    N_B_DONE = 5
    N_PRE = 6

# A descriptor's slots.
cdef enum:
    D_TYPE = 0
    D_COLOR = 1
    D_LOC = 2
    D_NSET = 3
    D_NPOSS = 4
    D_MATCHES = 5

# Instruction kinds (verifier.py's classes).
cdef enum:
    I_GOTO = 1
    I_PICKUP = 2
    I_OPEN = 3
    I_PUTNEXT = 4
    I_AND = 5
    I_BEFORE = 6
    I_AFTER = 7

# verify()'s results: "continue" (and upstream's initial False), "success", "failure".
cdef enum:
    V_CONTINUE = 0
    V_SUCCESS = 1
    V_FAILURE = 2

# LOC_NAMES order.
cdef enum:
    LOC_LEFT = 0
    LOC_RIGHT = 1
    LOC_FRONT = 2
    LOC_BEHIND = 3

# A generation attempt's outcomes: kept, rejected (RejectSampling or RecursionError: upstream
# draws again on the same stream), impossible.
cdef enum:
    G_OK = 0
    G_RETRY = 1
    G_FAIL = -1
    BAB_MAX_ATTEMPTS = 100000   # upstream retries forever; a world no attempt can make fails

# Mission tokens (gridsim.minigrid.babyai.VOCABULARY; 0 pads): colours at TOK_RED + COLOR_TO_IDX,
# types at TOK_DOOR + OBJECT_TO_IDX - OBJ_DOOR.
cdef enum:
    TOK_GO = 1
    TOK_TO = 2
    TOK_PICK = 3
    TOK_UP = 4
    TOK_OPEN = 5
    TOK_PUT = 6
    TOK_NEXT = 7
    TOK_THE = 8
    TOK_A = 9
    TOK_RED = 10
    TOK_DOOR = 16
    TOK_OBJECT = 20
    TOK_IN = 21
    TOK_FRONT = 22
    TOK_OF = 23
    TOK_YOU = 24
    TOK_BEHIND = 25
    TOK_ON = 26
    TOK_YOUR = 27
    TOK_LEFT = 28
    TOK_RIGHT = 29
    TOK_AND = 30
    TOK_COMMA = 31
    TOK_THEN = 32
    TOK_AFTER = 33

# OBJ_TYPES (box, ball, key, door) and OBJ_TYPES_NOT_DOOR, as drawn.
cdef int[4] DESC_TYPES = [OBJ_BOX, OBJ_BALL, OBJ_KEY, OBJ_DOOR]

# LevelGen's action and instruction kinds (an id's lists are coded as 3-bit digits, the count first).
cdef enum:
    ACT_GOTO = 0
    ACT_PICKUP = 1
    ACT_OPEN = 2
    ACT_PUTNEXT = 3
    KIND_ACTION = 0
    KIND_AND = 1
    KIND_SEQ = 2


cdef inline int16_t* bab_node(int16_t* bab, int n) noexcept nogil:
    return bab + BAB_NODES_AT + n * BAB_NODE


cdef inline int16_t* bab_desc(int16_t* bab, int d) noexcept nogil:
    return bab + BAB_DESCS_AT + d * BAB_DESC


cdef inline int16_t* bab_set(int16_t* bab, int d) noexcept nogil:
    return bab + BAB_SETS_AT + d * BAB_MAX_SET


cdef inline int16_t* bab_poss(int16_t* bab, int d) noexcept nogil:
    return bab + BAB_POSS_AT + d * BAB_MAX_SET


# ---------------------------------------------------------------- descriptors

cdef int new_desc(int16_t* bab, int type_, int color, int loc) noexcept nogil:
    cdef int d = bab[BAB_NUM_DESCS]
    cdef int16_t* D
    if d >= BAB_MAX_DESCS:
        return -1
    bab[BAB_NUM_DESCS] = d + 1
    D = bab_desc(bab, d)
    D[D_TYPE] = type_
    D[D_COLOR] = color
    D[D_LOC] = loc
    D[D_NSET] = 0
    D[D_NPOSS] = 0
    D[D_MATCHES] = 0
    return d


cdef int find_matching(World* w, int rs, int d) noexcept nogil:
    # ObjDesc.find_matching_objs (use_location=True): descriptor d's objects and cells made
    # afresh, x outer, y inner; a location counts only in the agent's room, relative to its pose.
    # Returns the matches (walls too). After a drop, update_objs_poss finds the cells again.
    cdef int16_t* D = bab_desc(w.bab, d)
    cdef int16_t* oset = bab_set(w.bab, d)
    cdef int16_t* poss = bab_poss(w.bab, d)
    cdef int type_ = D[D_TYPE], color = D[D_COLOR], loc = D[D_LOC]
    cdef int nset = 0, matches = 0
    cdef int x, y, o, ax = w.agent[0], ay = w.agent[1], vx, vy, dot
    cdef int rx0 = (ax // (rs - 1)) * (rs - 1), ry0 = (ay // (rs - 1)) * (rs - 1)
    cdef int d1x = DIR_DX[w.agent[2] & 3], d1y = DIR_DY[w.agent[2] & 3]
    cdef uint8_t* c
    for x in range(w.W):
        for y in range(w.H):
            c = cell_at(w, x, y)
            if c[0] == OBJ_EMPTY:
                continue
            if type_ >= 0 and c[0] != type_:
                continue
            if color >= 0 and c[1] != color:
                continue
            if loc >= 0:
                if not (rx0 <= x < rx0 + rs and ry0 <= y < ry0 + rs):
                    continue
                vx = x - ax
                vy = y - ay
                if loc == LOC_LEFT or loc == LOC_RIGHT:
                    dot = -vx * d1y + vy * d1x
                    if (loc == LOC_LEFT and dot >= 0) or (loc == LOC_RIGHT and dot <= 0):
                        continue
                else:
                    dot = vx * d1x + vy * d1y
                    if (loc == LOC_FRONT and dot <= 0) or (loc == LOC_BEHIND and dot >= 0):
                        continue
            matches += 1
            o = w.oid[y * w.W + x]
            if o != 0 and nset < BAB_MAX_SET:
                oset[nset] = o
                poss[nset] = y * w.W + x
                nset += 1
    D[D_NSET] = nset
    D[D_NPOSS] = nset
    D[D_MATCHES] = matches
    return matches


# ---------------------------------------------------------------- instructions

cdef int new_node(int16_t* bab, int kind, int a, int b, int strict) noexcept nogil:
    cdef int n = bab[BAB_NUM_NODES]
    cdef int16_t* N
    if n >= BAB_MAX_NODES or a < 0 or b < -1:
        return -1
    bab[BAB_NUM_NODES] = n + 1
    N = bab_node(bab, n)
    N[N_KIND] = kind
    N[N_STRICT] = strict
    N[N_A] = a
    N[N_B] = b
    N[N_A_DONE] = V_CONTINUE
    N[N_B_DONE] = V_CONTINUE
    N[N_PRE] = 0
    N[7] = 0
    bab[BAB_ROOT] = n
    return n


cdef int num_navs(int16_t* bab, int n) noexcept nogil:
    # num_navs_needed: PutNext 2, another action 1, and/before/after the sum of their parts.
    cdef int16_t* N = bab_node(bab, n)
    if N[N_KIND] == I_PUTNEXT:
        return 2
    if N[N_KIND] <= I_PUTNEXT:
        return 1
    return num_navs(bab, N[N_A]) + num_navs(bab, N[N_B])


cdef void reset_verifier(World* w, int rs) noexcept nogil:
    # Instr.reset_verifier for the whole tree: every descriptor's objects found afresh, every
    # node's progress and pre_carrying cleared.
    cdef int n, d
    cdef int16_t* N
    for d in range(w.bab[BAB_NUM_DESCS]):
        find_matching(w, rs, d)
    for n in range(w.bab[BAB_NUM_NODES]):
        N = bab_node(w.bab, n)
        N[N_A_DONE] = V_CONTINUE
        N[N_B_DONE] = V_CONTINUE
        N[N_PRE] = 0


cdef inline void objects_moved(World* w) noexcept nogil:
    if w.bab != NULL:
        w.bab[BAB_MOVED] = 1


cdef void update_objs_poss(World* w, int rs) noexcept nogil:
    # RoomGridLevel.update_objs_poss (after every drop action): the tracked objects found again,
    # as upstream's find_matching_objs(use_location=False) finds them (each tracked object still on the grid, x
    # outer, y inner), from one pass over the object numbers rather than a scan per descriptor.
    cdef int16_t where[256]
    cdef int16_t found[BAB_MAX_SET]
    cdef int d, k, m, n, o, q, cell, key, nset
    cdef int16_t* oset
    cdef int16_t* poss
    cdef int16_t* D
    if not w.bab[BAB_MOVED]:
        return  # nothing left or entered the grid: the cells found last time stand
    w.bab[BAB_MOVED] = 0
    n = w.bab[BAB_NEXT_OID]
    for k in range(n + 1):
        where[k] = -1
    for k in range(w.W * w.H):
        o = w.oid[k]
        if o:
            where[o] = <int16_t>k
    for d in range(w.bab[BAB_NUM_DESCS]):
        D = bab_desc(w.bab, d)
        oset = bab_set(w.bab, d)
        poss = bab_poss(w.bab, d)
        nset = D[D_NSET]
        m = 0
        for k in range(nset):
            o = oset[k]
            if 0 < o <= n and where[o] >= 0:
                # insertion by scan order: key x * H + y
                cell = where[o]
                key = (cell % w.W) * w.H + cell // w.W
                q = m
                while q > 0 and (found[q - 1] % w.W) * w.H + found[q - 1] // w.W > key:
                    found[q] = found[q - 1]
                    q -= 1
                found[q] = <int16_t>cell
                m += 1
        for k in range(m):
            poss[k] = found[k]
        D[D_NPOSS] = m


cdef inline bint in_set(int16_t* bab, int d, int o) noexcept nogil:
    cdef int16_t* oset = bab_set(bab, d)
    cdef int k
    if o == 0:
        return False
    for k in range(bab_desc(bab, d)[D_NSET]):
        if oset[k] == o:
            return True
    return False


cdef int verify(World* w, int n, int action) noexcept nogil:
    # Instr.verify of node n after a step with `action` (verifier.py, without done actions).
    cdef int16_t* bab = w.bab
    cdef int16_t* N = bab_node(bab, n)
    cdef int kind = N[N_KIND], k, pre, carried = bab[BAB_CARRIED], fx, fy, px, py, drop_at, r
    cdef int16_t* poss
    cdef uint8_t* fc
    fx = w.agent[0] + DIR_DX[w.agent[2] & 3]
    fy = w.agent[1] + DIR_DY[w.agent[2] & 3]
    if kind == I_GOTO:
        poss = bab_poss(bab, N[N_A])
        for k in range(bab_desc(bab, N[N_A])[D_NPOSS]):
            if poss[k] == fy * w.W + fx and 0 <= fx < w.W:
                return V_SUCCESS
        return V_CONTINUE
    if kind == I_OPEN:
        if action != A_TOGGLE:
            return V_CONTINUE
        if not (0 <= fx < w.W and 0 <= fy < w.H):
            return V_CONTINUE
        fc = cell_at(w, fx, fy)
        if fc[0] == OBJ_DOOR and fc[2] == ST_OPEN and in_set(bab, N[N_A], w.oid[fy * w.W + fx]):
            return V_SUCCESS
        if N[N_STRICT] and fc[0] == OBJ_DOOR:
            return V_FAILURE
        return V_CONTINUE
    if kind == I_PICKUP:
        pre = N[N_PRE]
        N[N_PRE] = carried
        if action != A_PICKUP:
            return V_CONTINUE
        if pre == 0 and in_set(bab, N[N_A], carried):
            return V_SUCCESS
        if N[N_STRICT] and carried != 0:
            return V_FAILURE
        return V_CONTINUE
    if kind == I_PUTNEXT:
        pre = N[N_PRE]
        N[N_PRE] = carried
        if N[N_STRICT] and action == A_PICKUP and carried != 0:
            return V_FAILURE
        if action != A_DROP:
            return V_CONTINUE
        # The object carried before the step is obj_a; its cur_pos is the cell it was dropped
        # in (carried: (-1, -1), next to nothing).
        if not in_set(bab, N[N_A], pre):
            return V_CONTINUE
        if not (0 <= fx < w.W and 0 <= fy < w.H) or w.oid[fy * w.W + fx] != pre:
            return V_CONTINUE
        poss = bab_poss(bab, N[N_B])
        for k in range(bab_desc(bab, N[N_B])[D_NPOSS]):
            px = poss[k] % w.W
            py = poss[k] // w.W
            if iabs(px - fx) + iabs(py - fy) == 1:
                return V_SUCCESS
        return V_CONTINUE
    if kind == I_AND:
        if N[N_A_DONE] != V_SUCCESS:
            N[N_A_DONE] = verify(w, N[N_A], action)
        if N[N_B_DONE] != V_SUCCESS:
            N[N_B_DONE] = verify(w, N[N_B], action)
        if N[N_A_DONE] == V_SUCCESS and N[N_B_DONE] == V_SUCCESS:
            return V_SUCCESS
        return V_CONTINUE
    if kind == I_BEFORE:
        if N[N_A_DONE] == V_SUCCESS:
            N[N_B_DONE] = verify(w, N[N_B], action)
            if N[N_B_DONE] == V_FAILURE:
                return V_FAILURE
            if N[N_B_DONE] == V_SUCCESS:
                return V_SUCCESS
        else:
            N[N_A_DONE] = verify(w, N[N_A], action)
            if N[N_A_DONE] == V_FAILURE:
                return V_FAILURE
            if N[N_A_DONE] == V_SUCCESS:
                return verify(w, n, action)
            if N[N_STRICT] and verify(w, N[N_B], action) == V_SUCCESS:
                return V_FAILURE
        return V_CONTINUE
    if kind == I_AFTER:
        if N[N_B_DONE] == V_SUCCESS:
            N[N_A_DONE] = verify(w, N[N_A], action)
            if N[N_A_DONE] == V_SUCCESS:
                return V_SUCCESS
            if N[N_A_DONE] == V_FAILURE:
                return V_FAILURE
        else:
            N[N_B_DONE] = verify(w, N[N_B], action)
            if N[N_B_DONE] == V_FAILURE:
                return V_FAILURE
            if N[N_B_DONE] == V_SUCCESS:
                return verify(w, n, action)
            if N[N_STRICT] and verify(w, N[N_A], action) == V_SUCCESS:
                return V_FAILURE
        return V_CONTINUE
    return V_CONTINUE


# ---------------------------------------------------------------- the mission

cdef int desc_tokens(int16_t* bab, int d, uint8_t* out, int at) noexcept nogil:
    # ObjDesc.surface: the/a [colour] type|object [location].
    cdef int16_t* D = bab_desc(bab, d)
    out[at] = TOK_A if D[D_MATCHES] > 1 else TOK_THE
    at += 1
    if D[D_COLOR] >= 0:
        out[at] = <uint8_t>(TOK_RED + D[D_COLOR])
        at += 1
    out[at] = <uint8_t>(TOK_DOOR + D[D_TYPE] - OBJ_DOOR) if D[D_TYPE] >= 0 else TOK_OBJECT
    at += 1
    if D[D_LOC] == LOC_FRONT:
        out[at] = TOK_IN
        out[at + 1] = TOK_FRONT
        out[at + 2] = TOK_OF
        out[at + 3] = TOK_YOU
        at += 4
    elif D[D_LOC] == LOC_BEHIND:
        out[at] = TOK_BEHIND
        out[at + 1] = TOK_YOU
        at += 2
    elif D[D_LOC] >= 0:
        out[at] = TOK_ON
        out[at + 1] = TOK_YOUR
        out[at + 2] = TOK_LEFT if D[D_LOC] == LOC_LEFT else TOK_RIGHT
        at += 3
    return at


cdef int node_tokens(int16_t* bab, int n, uint8_t* out, int at) noexcept nogil:
    # Instr.surface.
    cdef int16_t* N = bab_node(bab, n)
    cdef int kind = N[N_KIND]
    if kind == I_GOTO:
        out[at] = TOK_GO
        out[at + 1] = TOK_TO
        return desc_tokens(bab, N[N_A], out, at + 2)
    if kind == I_PICKUP:
        out[at] = TOK_PICK
        out[at + 1] = TOK_UP
        return desc_tokens(bab, N[N_A], out, at + 2)
    if kind == I_OPEN:
        out[at] = TOK_OPEN
        return desc_tokens(bab, N[N_A], out, at + 1)
    if kind == I_PUTNEXT:
        out[at] = TOK_PUT
        at = desc_tokens(bab, N[N_A], out, at + 1)
        out[at] = TOK_NEXT
        out[at + 1] = TOK_TO
        return desc_tokens(bab, N[N_B], out, at + 2)
    at = node_tokens(bab, N[N_A], out, at)
    if kind == I_AND:
        out[at] = TOK_AND
        at += 1
    elif kind == I_BEFORE:
        out[at] = TOK_COMMA
        out[at + 1] = TOK_THEN
        at += 2
    else:
        out[at] = TOK_AFTER
        out[at + 1] = TOK_YOU
        at += 2
    return node_tokens(bab, N[N_B], out, at)


cdef void write_mission(World* w, uint8_t* tokens) noexcept nogil:
    cdef int n
    memset(tokens, 0, MISSION_TOKENS)
    if w.bab[BAB_NUM_NODES] > 0:
        node_tokens(w.bab, w.bab[BAB_ROOT], tokens, 0)


# ---------------------------------------------------------------- generation

cdef struct BabyGen:
    RoomGrid g
    int nobjs                   # the rooms' objects (Room.objs, every room), in the order added
    int[64] ox
    int[64] oy
    int[64] otype
    int[64] ocolor
    int ndists                  # the last add_distractors' list (indices into the objects)
    int[32] dists
    int locked_room             # LevelGen's locked room (j * nc + i), -1 for none


cdef int bab_add_object(World* w, BabyGen* G, int i, int j, int kind, int color) noexcept nogil:
    # RoomGrid.add_object with its kind and colour given: place_in_room, and the room's list.
    cdef int x, y, n = G.nobjs
    cdef RgRoom* R = rg_room(&G.g, i, j)
    if n >= 64:
        return -1
    if place_obj(w, R.tx, R.ty, G.g.rs, G.g.rs, kind, color, 0, True, 1000, &x, &y) < 0:
        return -1
    G.ox[n] = x
    G.oy[n] = y
    G.otype[n] = kind
    G.ocolor[n] = color
    G.nobjs = n + 1
    return n


cdef int bab_add_distractors(World* w, BabyGen* G, int i, int j, int num, bint all_unique) noexcept nogil:
    # RoomGrid.add_distractors: colour, then type, then the room where none is given; with
    # all_unique, a (type, colour) already in some room is drawn again. -1: place_obj gave up.
    cdef int color, kind, k, ri, rj, o
    cdef bint seen
    G.ndists = 0
    while G.ndists < num:
        color = rcolor(w)
        kind = RG_KINDS[rint(w, 0, 3)]
        if all_unique:
            seen = False
            for k in range(G.nobjs):
                if G.otype[k] == kind and G.ocolor[k] == color:
                    seen = True
                    break
            if seen:
                continue
        ri = i if i >= 0 else rint(w, 0, G.g.nc)
        rj = j if j >= 0 else rint(w, 0, G.g.nr)
        o = bab_add_object(w, G, ri, rj, kind, color)
        if o < 0 or G.ndists >= 32:
            return -1
        G.dists[G.ndists] = o
        G.ndists += 1
    return 0


cdef int bab_place_agent(World* w, BabyGen* G, int i, int j) noexcept nogil:
    return rg_place_agent(w, &G.g, i, j)


cdef inline int agent_room(World* w, BabyGen* G) noexcept nogil:
    return (w.agent[1] // (G.g.rs - 1)) * G.g.nc + w.agent[0] // (G.g.rs - 1)


cdef inline uint32_t row_closure(uint32_t r, uint32_t passable) noexcept nogil:
    # The cells of `passable` joined to `r` along the row (r a subset of passable).
    cdef uint32_t grown
    while True:
        grown = (r | (r << 1) | (r >> 1)) & passable
        if grown == r:
            return r
        r = grown


cdef int check_objs_reachable(World* w) noexcept nogil:
    # RoomGridLevel.check_objs_reachable: every cell neither empty nor a wall is reachable from
    # the agent through empty cells and doors (locked ones too). 1: all reachable.
    #
    # Upstream's search marks the agent's cell, every cell joined to it through passable cells
    # (empty, doors) and their neighbours: here the same sets as one bit mask per row, the
    # component grown by sweeps down and up the rows until none changes (a grid up to 32 wide;
    # a wider one takes the search itself).
    cdef int W = w.W, H = w.H, x, y, o
    cdef uint32_t passable[32]
    cdef uint32_t objs[32]
    cdef uint32_t reach[32]
    cdef uint32_t full, p, b, r, seen
    cdef bint changed
    if W > 32 or H > 32:
        return objs_reachable_search(w)
    full = <uint32_t>0xFFFFFFFF if W == 32 else (<uint32_t>1 << W) - 1
    for y in range(H):
        p = 0
        b = 0
        for x in range(W):
            o = w.cells[4 * (y * W + x)]
            p |= <uint32_t>(o == OBJ_EMPTY or o == OBJ_DOOR) << x
            b |= <uint32_t>(o != OBJ_EMPTY and o != OBJ_WALL) << x
        passable[y] = p
        objs[y] = b
        reach[y] = 0
    x = w.agent[0]
    y = w.agent[1]
    if (passable[y] >> x) & 1:
        reach[y] = row_closure(<uint32_t>1 << x, passable[y])
        changed = True
        while changed:
            changed = False
            for y in range(1, H):
                r = row_closure(reach[y] | (reach[y - 1] & passable[y]), passable[y])
                if r != reach[y]:
                    reach[y] = r
                    changed = True
            for y in range(H - 2, -1, -1):
                r = row_closure(reach[y] | (reach[y + 1] & passable[y]), passable[y])
                if r != reach[y]:
                    reach[y] = r
                    changed = True
    for y in range(H):
        seen = reach[y] | (reach[y] << 1) | (reach[y] >> 1)
        if y > 0:
            seen |= reach[y - 1]
        if y + 1 < H:
            seen |= reach[y + 1]
        if y == w.agent[1]:
            seen |= <uint32_t>1 << w.agent[0]  # searched from, whatever it holds
        if objs[y] & ~(seen & full):
            return 0
    return 1


cdef int objs_reachable_search(World* w) noexcept nogil:
    # check_objs_reachable as upstream searches (a depth-first search from the agent's cell).
    cdef int n = w.W * w.H, top = 0, k, x, y, o
    cdef uint8_t seen[1024]
    cdef int16_t stack[4096]
    if n > 1024:
        return -1
    memset(seen, 0, n)
    stack[0] = <int16_t>(w.agent[1] * w.W + w.agent[0])
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if seen[k]:
            continue
        seen[k] = 1
        x = k % w.W
        y = k // w.W
        o = w.cells[4 * k]
        if o != OBJ_EMPTY and o != OBJ_DOOR:
            continue
        if x + 1 < w.W and not seen[k + 1]:
            stack[top] = k + 1
            top += 1
        if x > 0 and not seen[k - 1]:
            stack[top] = k - 1
            top += 1
        if y + 1 < w.H and not seen[k + w.W]:
            stack[top] = k + w.W
            top += 1
        if y > 0 and not seen[k - w.W]:
            stack[top] = k - w.W
            top += 1
    for k in range(n):
        o = w.cells[4 * k]
        if o != OBJ_EMPTY and o != OBJ_WALL and not seen[k]:
            return 0
    return 1


cdef void open_all_doors(World* w) noexcept nogil:
    cdef int k
    for k in range(w.W * w.H):
        if w.cells[4 * k] == OBJ_DOOR:
            w.cells[4 * k + 2] = ST_OPEN


cdef int goto_desc_of(World* w, BabyGen* G, int o) noexcept nogil:
    # GoToInstr(ObjDesc(obj.type, obj.color)) of object o.
    cdef int d = new_desc(w.bab, G.otype[o], G.ocolor[o], -1)
    return new_node(w.bab, I_GOTO, d, -1, 0)


# The levels: each is one attempt of its gen_mission after RoomGrid._gen_grid (rg_base), and
# returns G_OK, G_RETRY or G_FAIL. cfg.p: room_size, num_rows, num_cols, then the level's own.

cdef int lvl_goto_red_ball(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToRedBallGrey (p4 = 1: the distractors turned grey), GoToRedBall: p3 distractors.
    cdef int o, k, x, y
    if bab_place_agent(w, G, -1, -1) < 0:
        return G_RETRY
    o = bab_add_object(w, G, 0, 0, OBJ_BALL, C_RED)
    if o < 0 or bab_add_distractors(w, G, -1, -1, cfg.p[3], False) < 0:
        return G_RETRY
    if cfg.p[4]:
        for k in range(G.ndists):
            G.ocolor[G.dists[k]] = C_GREY
            cell_at(w, G.ox[G.dists[k]], G.oy[G.dists[k]])[1] = C_GREY
    if not check_objs_reachable(w):
        return G_RETRY
    goto_desc_of(w, G, o)
    return G_OK


cdef int lvl_goto_obj(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToObj: one object (all_unique distractors, trivially), go to it.
    if bab_place_agent(w, G, -1, -1) < 0 or bab_add_distractors(w, G, -1, -1, 1, True) < 0:
        return G_RETRY
    goto_desc_of(w, G, G.dists[0])
    return G_OK


cdef int lvl_goto_local(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToLocal: p3 distractors, go to one of them.
    if bab_place_agent(w, G, -1, -1) < 0 or bab_add_distractors(w, G, -1, -1, cfg.p[3], False) < 0:
        return G_RETRY
    if not check_objs_reachable(w):
        return G_RETRY
    goto_desc_of(w, G, G.dists[rint(w, 0, G.ndists)])
    return G_OK


cdef int lvl_goto(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoTo (the maze ids too): p3 distractors, p4 doors_open.
    if bab_place_agent(w, G, -1, -1) < 0:
        return G_RETRY
    if rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    if bab_add_distractors(w, G, -1, -1, cfg.p[3], False) < 0:
        return G_RETRY
    if not check_objs_reachable(w):
        return G_RETRY
    goto_desc_of(w, G, G.dists[rint(w, 0, G.ndists)])
    if cfg.p[4]:
        open_all_doors(w)
    return G_OK


# LevelGen (core/levelgen.py): p3 num_dists, p4 locked_room_prob in percent, p5 flags (1
# locations, 2 unblocking, 4 implicit_unlock), p6 action_kinds, p7 instr_kinds (coded lists).
cdef enum:
    LG_LOCATIONS = 1
    LG_UNBLOCKING = 2
    LG_IMPLICIT_UNLOCK = 4


cdef inline int list_len(int code) noexcept nogil:
    return code & 7


cdef inline int list_item(int code, int k) noexcept nogil:
    return (code >> (3 * (k + 1))) & 7


cdef int rand_obj(World* w, BabyGen* G, const MgConfig* cfg, int ntypes) noexcept nogil:
    # LevelGen.rand_obj over DESC_TYPES[:ntypes] (4: all, 3: not doors; 0: doors only): a
    # descriptor matching some object (outside the locked room without implicit unlocking);
    # -1 after 101 tries (RecursionError).
    cdef int tries = 0, color, type_, loc, d, k, x, y, nposs
    cdef int16_t* poss
    cdef RgRoom* R
    cdef bint outside
    while True:
        if tries > 100:
            return -1
        tries += 1
        color = rint(w, 0, 7)
        color = COLOR_OF_DRAW[color - 1] if color > 0 else -1
        type_ = OBJ_DOOR if ntypes == 0 else DESC_TYPES[rint(w, 0, ntypes)]
        loc = -1
        if (cfg.p[5] & LG_LOCATIONS) and rint(w, 0, 2) == 0:
            loc = rint(w, 0, 4)
        d = new_desc(w.bab, type_, color, loc)
        if d < 0:
            return -1
        if find_matching(w, G.g.rs, d) == 0:
            w.bab[BAB_NUM_DESCS] -= 1
            continue
        if not (cfg.p[5] & LG_IMPLICIT_UNLOCK) and G.locked_room >= 0:
            R = &G.g.rooms[G.locked_room]
            poss = bab_poss(w.bab, d)
            nposs = bab_desc(w.bab, d)[D_NPOSS]
            outside = False
            for k in range(nposs):
                x = poss[k] % w.W
                y = poss[k] // w.W
                if not (R.tx <= x < R.tx + G.g.rs and R.ty <= y < R.ty + G.g.rs):
                    outside = True
                    break
            if not outside:
                w.bab[BAB_NUM_DESCS] -= 1
                continue
        return d


cdef int rand_instr(World* w, BabyGen* G, const MgConfig* cfg, int kinds) noexcept nogil:
    # LevelGen.rand_instr: a node, or -1 (rand_obj's RecursionError).
    cdef int kind = list_item(kinds, rint(w, 0, list_len(kinds))), action, a, b
    if kind == KIND_ACTION:
        action = list_item(cfg.p[6], rint(w, 0, list_len(cfg.p[6])))
        if action == ACT_GOTO:
            return new_node(w.bab, I_GOTO, rand_obj(w, G, cfg, 4), -1, 0)
        if action == ACT_PICKUP:
            return new_node(w.bab, I_PICKUP, rand_obj(w, G, cfg, 3), -1, 0)
        if action == ACT_OPEN:
            return new_node(w.bab, I_OPEN, rand_obj(w, G, cfg, 0), -1, 0)
        a = rand_obj(w, G, cfg, 3)
        if a < 0:
            return -1
        b = rand_obj(w, G, cfg, 4)
        if b < 0:
            return -1
        return new_node(w.bab, I_PUTNEXT, a, b, 0)
    if kind == KIND_AND:
        a = rand_instr(w, G, cfg, 1 | (KIND_ACTION << 3))
        if a < 0:
            return -1
        b = rand_instr(w, G, cfg, 1 | (KIND_ACTION << 3))
        if b < 0:
            return -1
        return new_node(w.bab, I_AND, a, b, 0)
    a = rand_instr(w, G, cfg, 2 | (KIND_ACTION << 3) | (KIND_AND << 6))
    if a < 0:
        return -1
    b = rand_instr(w, G, cfg, 2 | (KIND_ACTION << 3) | (KIND_AND << 6))
    if b < 0:
        return -1
    return new_node(w.bab, I_BEFORE if rint(w, 0, 2) == 0 else I_AFTER, a, b, 0)


cdef int lvl_levelgen(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # LevelGen.gen_mission (3.2.0: the locked room forgotten first).
    cdef int i, j, k, c, x, y, room
    cdef RgRoom* R
    G.locked_room = -1
    if mg_next_double(w.rng) < cfg.p[4] / 100.0:
        # add_locked_room: a room and a side with a neighbour, its door locked; the key in
        # another room.
        while True:
            i = rint(w, 0, G.g.nc)
            j = rint(w, 0, G.g.nr)
            k = rint(w, 0, 4)
            G.locked_room = j * G.g.nc + i
            if rg_room(&G.g, i, j).dx[k] < 0:
                continue
            c = rg_add_door(w, &G.g, i, j, k, -1, 1, &x, &y)
            if c < 0:
                return G_FAIL
            break
        while True:
            i = rint(w, 0, G.g.nc)
            j = rint(w, 0, G.g.nr)
            if j * G.g.nc + i == G.locked_room:
                continue
            if bab_add_object(w, G, i, j, OBJ_KEY, c) < 0:
                return G_RETRY
            break
    if rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    if bab_add_distractors(w, G, -1, -1, cfg.p[3], False) < 0:
        return G_RETRY
    while True:
        if bab_place_agent(w, G, -1, -1) < 0:
            return G_RETRY
        if agent_room(w, G) != G.locked_room:
            break
    if not (cfg.p[5] & LG_UNBLOCKING) and not check_objs_reachable(w):
        return G_RETRY
    if rand_instr(w, G, cfg, cfg.p[7]) < 0:
        return G_RETRY
    return G_OK


cdef bint key_of_locked_door(World* w, int d) noexcept nogil:
    # validate_instrs with unblocking: a key descriptor whose colour some locked door has.
    cdef int16_t* D = bab_desc(w.bab, d)
    cdef int k
    if D[D_TYPE] != OBJ_KEY or D[D_COLOR] < 0:
        return False
    for k in range(w.W * w.H):
        if w.cells[4 * k] == OBJ_DOOR and w.cells[4 * k + 2] == ST_LOCKED and w.cells[4 * k + 1] == D[D_COLOR]:
            return True
    return False


cdef int validate_instrs(World* w, int rs, int n, bint unblocking) noexcept nogil:
    # RoomGridLevel.validate_instrs: G_RETRY where upstream raises RejectSampling.
    cdef int16_t* N = bab_node(w.bab, n)
    cdef int kind = N[N_KIND], k, m, px, py, qx, qy
    cdef int16_t* mset
    cdef int16_t* fpos
    cdef int16_t* mpos
    if kind == I_PUTNEXT:
        find_matching(w, rs, N[N_A])
        find_matching(w, rs, N[N_B])
        mset = bab_set(w.bab, N[N_A])
        for k in range(bab_desc(w.bab, N[N_A])[D_NSET]):
            if in_set(w.bab, N[N_B], mset[k]):
                return G_RETRY
        # objs_next: an object to move (cur_pos: where it lies) next to a fixed one's position.
        mpos = bab_poss(w.bab, N[N_A])
        fpos = bab_poss(w.bab, N[N_B])
        for k in range(bab_desc(w.bab, N[N_A])[D_NPOSS]):
            px = mpos[k] % w.W
            py = mpos[k] // w.W
            for m in range(bab_desc(w.bab, N[N_B])[D_NPOSS]):
                qx = fpos[m] % w.W
                qy = fpos[m] // w.W
                if iabs(px - qx) + iabs(py - qy) == 1:
                    return G_RETRY
    if kind <= I_PUTNEXT:
        if unblocking:
            if key_of_locked_door(w, N[N_A]):
                return G_RETRY
            if kind == I_PUTNEXT and key_of_locked_door(w, N[N_B]):
                return G_RETRY
        return G_OK
    if validate_instrs(w, rs, N[N_A], unblocking) != G_OK:
        return G_RETRY
    return validate_instrs(w, rs, N[N_B], unblocking)


ctypedef int (*level_fn)(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil


cdef int gen_babyai(World* w, const MgConfig* cfg, level_fn level, bint levelgen_attrs) noexcept nogil:
    # RoomGridLevel._gen_grid: attempts on the same stream until one is kept (each a fresh
    # RoomGrid, the level's gen_mission and validate_instrs), then the verifier's reset.
    cdef BabyGen G
    cdef int r, attempts = 0, k
    cdef uint32_t* cells = <uint32_t*>w.cells
    cdef int rs = cfg.p[0]
    cdef bint unblocking = levelgen_attrs and (cfg.p[5] & LG_UNBLOCKING)
    w.bab[BAB_REJECTED] = 0
    while True:
        for k in range(w.W * w.H):
            cells[k] = 0
            w.cells[4 * k] = OBJ_EMPTY
        memset(w.oid, 0, w.W * w.H)
        memset(w.bab, 0, BAB_HEADER * sizeof(int16_t))
        G.nobjs = 0
        G.ndists = 0
        G.locked_room = -1
        if rg_base(w, &G.g, rs, cfg.p[1], cfg.p[2]) < 0:
            return -1
        r = level(w, &G, cfg)
        if r == G_OK and w.bab[BAB_NUM_NODES] > 0:
            r = validate_instrs(w, rs, w.bab[BAB_ROOT], unblocking)
        elif r == G_OK:
            r = G_RETRY
        if r == G_OK:
            break
        if r == G_FAIL:
            return -1
        attempts += 1
        if attempts >= BAB_MAX_ATTEMPTS:
            return -1
    w.bab[BAB_REJECTED] = <int16_t>(attempts if attempts < 0x7FFF else 0x7FFF)
    reset_verifier(w, rs)
    w.bab[BAB_NAVS] = <int16_t>num_navs(w.bab, w.bab[BAB_ROOT])
    if w.bab[BAB_SHOWN]:
        # PutNext*Carrying's reset: the object to move taken off the grid into the agent's hands.
        k = w.bab[BAB_SHOWN] - 1
        memcpy(w.carrying, w.cells + 4 * k, 4)
        w.bab[BAB_CARRIED] = w.oid[k]
        clear(w, k % w.W, k // w.W)
        w.bab[BAB_MOVED] = 1
    return 0


# ---------------------------------------------------------------- the levels' own helpers

cdef inline int bab_door(World* w, BabyGen* G, int i, int j, int k, int color, int locked) noexcept nogil:
    # RoomGrid.add_door (a side, colour and locked coin drawn where < 0): the door's colour.
    cdef int x, y
    return rg_add_door(w, &G.g, i, j, k, color, locked, &x, &y)


cdef inline int bab_object(World* w, BabyGen* G, int i, int j, int kind, int color) noexcept nogil:
    # RoomGrid.add_object: the kind, then the colour, drawn where < 0.
    if kind < 0:
        kind = RG_KINDS[rint(w, 0, 3)]
    if color < 0:
        color = rcolor(w)
    return bab_add_object(w, G, i, j, kind, color)


cdef void rand_color_subset(World* w, int n, int* out) noexcept nogil:
    # _rand_subset(COLOR_NAMES, n): picks from the alphabetical list less the picks so far.
    cdef int pool[6]
    cdef int m, k, q
    for k in range(6):
        pool[k] = k
    for m in range(n):
        k = rint(w, 0, 6 - m)
        out[m] = COLOR_OF_DRAW[pool[k]]
        for q in range(k, 5 - m):
            pool[q] = pool[q + 1]


cdef void rand_subset(World* w, int* items, int n, int num, int* out) noexcept nogil:
    # _rand_subset(items, num) of distinct items (objects: identity).
    cdef int pool[64]
    cdef int m, k, q
    for k in range(n):
        pool[k] = items[k]
    for m in range(num):
        k = rint(w, 0, n - m)
        out[m] = pool[k]
        for q in range(k, n - m - 1):
            pool[q] = pool[q + 1]


cdef int connect_all_but(World* w, BabyGen* G, int exclude) noexcept nogil:
    # RoomGrid.connect_all(door_colors=COLOR_NAMES less `exclude`): as rg_connect_all, the
    # colour drawn from five.
    cdef RoomGrid* g = &G.g
    cdef int start = (w.agent[1] // (g.rs - 1)) * g.nc + w.agent[0] // (g.rs - 1)
    cdef int it = 0, i, j, k, x, y, c
    cdef int colors[5]
    cdef int n = 0
    cdef bint connected = rg_all_reachable(g, start)
    cdef RgRoom* R
    for k in range(6):
        if COLOR_OF_DRAW[k] != exclude:
            colors[n] = COLOR_OF_DRAW[k]
            n += 1
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
        c = colors[rint(w, 0, n)]
        rg_add_door(w, g, i, j, k, c, 0, &x, &y)
        connected = rg_all_reachable(g, start)


cdef inline int obj_desc(World* w, BabyGen* G, int o) noexcept nogil:
    # ObjDesc(obj.type, obj.color) of object o.
    return new_desc(w.bab, G.otype[o], G.ocolor[o], -1)


cdef int lock_and_key(World* w, BabyGen* G, int* di, int* dj) noexcept nogil:
    # Unlock and GoToImpUnlock: a locked door in a random room, its key in a random room. Upstream
    # means "another room" but compares indices with `is`, never true of two np.int64 (kept: the
    # key can land in its own locked room). The door's colour; -1: place_obj gave up.
    cdef int c, ki, kj
    di[0] = rint(w, 0, G.g.nc)
    dj[0] = rint(w, 0, G.g.nr)
    c = bab_door(w, G, di[0], dj[0], -1, -1, 1)
    if c < 0:
        return -2
    ki = rint(w, 0, G.g.nc)  # drawn in this order (C leaves an argument list's order open)
    kj = rint(w, 0, G.g.nr)
    if bab_object(w, G, ki, kj, OBJ_KEY, c) < 0:
        return -1
    return c


cdef int place_agent_outside(World* w, BabyGen* G, int room) noexcept nogil:
    # place_agent() until the agent's room is not `room`.
    while True:
        if bab_place_agent(w, G, -1, -1) < 0:
            return -1
        if agent_room(w, G) != room:
            return 0


cdef int room_doors(World* w, BabyGen* G, int* colors) noexcept nogil:
    # Open's list: each room's doors (right, down, left, up), columns outer: a door twice.
    cdef int i, j, k, n = 0
    cdef RgRoom* R
    for i in range(G.g.nc):
        for j in range(G.g.nr):
            R = rg_room(&G.g, i, j)
            for k in range(4):
                if R.doors[k] == RG_DOOR and n < 64:
                    colors[n] = cell_at(w, R.dx[k], R.dy[k])[1]
                    n += 1
    return n


# ---------------------------------------------------------------- more levels (goto.py to other.py)

cdef int lvl_goto_imp_unlock(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToImpUnlock: 2 distractors in every room (the locked one too: the `is` comparison), the
    # agent outside the locked room, the target added last in it.
    cdef int di, dj, c, i, j
    c = lock_and_key(w, G, &di, &dj)
    if c == -2:
        return G_FAIL
    if c < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    for i in range(G.g.nc):
        for j in range(G.g.nr):
            if bab_add_distractors(w, G, i, j, 2, False) < 0:
                return G_RETRY
    if place_agent_outside(w, G, dj * G.g.nc + di) < 0 or not check_objs_reachable(w):
        return G_RETRY
    if bab_add_distractors(w, G, di, dj, 1, False) < 0:
        return G_RETRY
    goto_desc_of(w, G, G.dists[0])
    return G_OK


cdef int lvl_goto_red_blue_ball(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToRedBlueBall: p3 distractors, none a red or blue ball; then the ball, red or blue.
    cdef int k, o
    if bab_place_agent(w, G, -1, -1) < 0 or bab_add_distractors(w, G, -1, -1, cfg.p[3], False) < 0:
        return G_RETRY
    for k in range(G.ndists):
        o = G.dists[k]
        if G.otype[o] == OBJ_BALL and (G.ocolor[o] == C_BLUE or G.ocolor[o] == C_RED):
            return G_RETRY
    o = bab_add_object(w, G, 0, 0, OBJ_BALL, C_RED if rint(w, 0, 2) == 0 else C_BLUE)
    if o < 0 or not check_objs_reachable(w):
        return G_RETRY
    goto_desc_of(w, G, o)
    return G_OK


cdef int lvl_goto_door(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToDoor: four doors of the middle room (each maybe locked), go to one.
    cdef int colors[4]
    cdef int k
    for k in range(4):
        colors[k] = bab_door(w, G, 1, 1, -1, -1, -1)
        if colors[k] < 0:
            return G_FAIL
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    new_node(w.bab, I_GOTO, new_desc(w.bab, OBJ_DOOR, colors[rint(w, 0, 4)], -1), -1, 0)
    return G_OK


cdef int lvl_goto_obj_door(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # GoToObjDoor: 8 objects and 4 doors in the middle room, go to one of the twelve.
    cdef int colors[4]
    cdef int k, t
    if bab_place_agent(w, G, 1, 1) < 0 or bab_add_distractors(w, G, 1, 1, 8, False) < 0:
        return G_RETRY
    for k in range(4):
        colors[k] = bab_door(w, G, 1, 1, -1, -1, -1)
        if colors[k] < 0:
            return G_FAIL
    if not check_objs_reachable(w):
        return G_RETRY
    t = rint(w, 0, 12)
    if t < 8:
        goto_desc_of(w, G, G.dists[t])
    else:
        new_node(w.bab, I_GOTO, new_desc(w.bab, OBJ_DOOR, colors[t - 8], -1), -1, 0)
    return G_OK


cdef int lvl_open(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # Open: a maze of 18 objects; open one of its doors (drawn from a list naming each twice).
    cdef int colors[64]
    cdef int n
    if bab_place_agent(w, G, -1, -1) < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    if bab_add_distractors(w, G, -1, -1, 18, False) < 0 or not check_objs_reachable(w):
        return G_RETRY
    n = room_doors(w, G, colors)
    new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, colors[rint(w, 0, n)], -1), -1, 0)
    return G_OK


cdef int lvl_open_red_door(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    if bab_door(w, G, 0, 0, 0, C_RED, 0) < 0:
        return G_FAIL
    if bab_place_agent(w, G, 0, 0) < 0:
        return G_RETRY
    new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, C_RED, -1), -1, 0)
    return G_OK


cdef int lvl_open_door(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # OpenDoor: four doors of four colours; the first named by its colour or a location (p4: 1
    # colour, 2 location, 0 drawn); p3 strict (Debug).
    cdef int colors[4]
    cdef int k, by = cfg.p[4], d
    rand_color_subset(w, 4, colors)
    for k in range(4):
        if bab_door(w, G, 1, 1, k, colors[k], 0) < 0:
            return G_FAIL
    if by == 0:
        by = 1 + rint(w, 0, 2)
    if by == 1:
        d = new_desc(w.bab, OBJ_DOOR, colors[0], -1)
    else:
        d = new_desc(w.bab, OBJ_DOOR, -1, rint(w, 0, 4))
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    new_node(w.bab, I_OPEN, d, -1, cfg.p[3])
    return G_OK


cdef int lvl_open_two_doors(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # OpenTwoDoors: the left door, then the right one (p3, p4 their colours, -1 drawn; p5 strict
    # on the first).
    cdef int colors[2]
    cdef int first, second, a, b
    rand_color_subset(w, 2, colors)
    first = cfg.p[3] if cfg.p[3] >= 0 else colors[0]
    second = cfg.p[4] if cfg.p[4] >= 0 else colors[1]
    if bab_door(w, G, 1, 1, 2, first, 0) < 0 or bab_door(w, G, 1, 1, 0, second, 0) < 0:
        return G_FAIL
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    a = new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, first, -1), -1, cfg.p[5])
    b = new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, second, -1), -1, 0)
    new_node(w.bab, I_BEFORE, a, b, 0)
    return G_OK


cdef int lvl_open_doors_order(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # OpenDoorsOrder: p3 doors of distinct colours; open one, or two in an order (p4 strict).
    cdef int colors[6]
    cdef int idx[6]
    cdef int pick[2]
    cdef int k, mode, a, b
    rand_color_subset(w, cfg.p[3], colors)
    for k in range(cfg.p[3]):
        if bab_door(w, G, 1, 1, -1, colors[k], 0) < 0:
            return G_FAIL
        idx[k] = k
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    rand_subset(w, idx, cfg.p[3], 2, pick)
    mode = rint(w, 0, 3)
    a = new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, colors[pick[0]], -1), -1, cfg.p[4])
    if mode > 0:
        b = new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, colors[pick[1]], -1), -1, cfg.p[4])
        new_node(w.bab, I_BEFORE if mode == 1 else I_AFTER, a, b, 0)
    return G_OK


cdef int lvl_pickup(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # Pickup (p3 = 0: 18 objects, all reachable) and UnblockPickup (p3 = 1: 20, some not).
    if bab_place_agent(w, G, -1, -1) < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    if bab_add_distractors(w, G, -1, -1, 20 if cfg.p[3] else 18, False) < 0:
        return G_RETRY
    if check_objs_reachable(w) == (1 if cfg.p[3] else 0):
        return G_RETRY
    new_node(w.bab, I_PICKUP, obj_desc(w, G, G.dists[rint(w, 0, G.ndists)]), -1, 0)
    return G_OK


cdef int lvl_pickup_dist(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # PickupDist: 5 distinct objects; pick up one named by type, colour or both (p3 strict).
    cdef int o, by, type_, color
    if bab_add_distractors(w, G, -1, -1, 5, True) < 0 or bab_place_agent(w, G, 0, 0) < 0:
        return G_RETRY
    o = G.dists[rint(w, 0, G.ndists)]
    by = rint(w, 0, 3)
    type_ = G.otype[o] if by != 1 else -1
    color = G.ocolor[o] if by != 0 else -1
    new_node(w.bab, I_PICKUP, new_desc(w.bab, type_, color, -1), -1, cfg.p[3])
    return G_OK


cdef int lvl_pickup_above(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # PickupAbove: an object in the room above, a door into it, the agent in the middle room.
    cdef int o = bab_object(w, G, 1, 0, -1, -1)
    if o < 0:
        return G_RETRY
    if bab_door(w, G, 1, 1, 3, -1, 0) < 0:
        return G_FAIL
    if bab_place_agent(w, G, 1, 1) < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    new_node(w.bab, I_PICKUP, obj_desc(w, G, o), -1, 0)
    return G_OK


cdef int lvl_putnext_local(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # PutNextLocal: p3 distinct objects; put one next to another.
    cdef int pick[2]
    cdef int a
    if bab_place_agent(w, G, -1, -1) < 0 or bab_add_distractors(w, G, -1, -1, cfg.p[3], True) < 0:
        return G_RETRY
    if not check_objs_reachable(w):
        return G_RETRY
    rand_subset(w, G.dists, G.ndists, 2, pick)
    a = obj_desc(w, G, pick[0])
    new_node(w.bab, I_PUTNEXT, a, obj_desc(w, G, pick[1]), 0)
    return G_OK


cdef int two_rooms_of_objects(World* w, BabyGen* G, int n, int* left) noexcept nogil:
    # PutNext and MoveTwoAcross: the agent in the left room, n distinct objects in each room
    # (the right room's list in G.dists), the wall between them removed.
    cdef int k
    if bab_place_agent(w, G, 0, 0) < 0 or bab_add_distractors(w, G, 0, 0, n, True) < 0:
        return -1
    for k in range(n):
        left[k] = G.dists[k]
    if bab_add_distractors(w, G, 1, 0, n, True) < 0:
        return -1
    rg_remove_wall(w, &G.g, 0, 0, 0)
    return 0


cdef int lvl_putnext(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # PutNext: one object of each room, put the one next to the other (the sides swapped or not);
    # p4 start_carrying (the agent holds the one to move after reset).
    cdef int left[32]
    cdef int a, b, t
    if two_rooms_of_objects(w, G, cfg.p[3], left) < 0:
        return G_RETRY
    a = left[rint(w, 0, cfg.p[3])]
    b = G.dists[rint(w, 0, G.ndists)]
    if rint(w, 0, 2) == 0:
        t = a
        a = b
        b = t
    t = obj_desc(w, G, a)
    new_node(w.bab, I_PUTNEXT, t, obj_desc(w, G, b), 0)
    if cfg.p[4]:  # start_carrying
        w.bab[BAB_SHOWN] = <int16_t>(G.oy[a] * w.W + G.ox[a] + 1)
    return G_OK


cdef int lvl_move_two_across(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # MoveTwoAcross: put a left object next to a right one, then another right one next to
    # another left one.
    cdef int left[32]
    cdef int l2[2]
    cdef int r2[2]
    cdef int da, db, dc, dd, x, y
    if two_rooms_of_objects(w, G, cfg.p[3], left) < 0:
        return G_RETRY
    rand_subset(w, left, cfg.p[3], 2, l2)
    rand_subset(w, G.dists, G.ndists, 2, r2)
    da = obj_desc(w, G, l2[0])
    db = obj_desc(w, G, r2[0])
    dc = obj_desc(w, G, r2[1])
    dd = obj_desc(w, G, l2[1])
    x = new_node(w.bab, I_PUTNEXT, da, db, 0)
    y = new_node(w.bab, I_PUTNEXT, dc, dd, 0)
    new_node(w.bab, I_BEFORE, x, y, 0)
    return G_OK


cdef int lvl_unlock(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # Unlock: a locked door, its key (maybe in its own room: the `is` comparison), the other doors
    # of another colour or of any, 3 distractors in every room (the locked one too).
    cdef int di, dj, c, i, j
    c = lock_and_key(w, G, &di, &dj)
    if c == -2:
        return G_FAIL
    if c < 0:
        return G_RETRY
    if rint(w, 0, 2) == 0:
        if connect_all_but(w, G, c) < 0:
            return G_RETRY
    elif rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    for i in range(G.g.nc):
        for j in range(G.g.nr):
            if bab_add_distractors(w, G, i, j, 3, False) < 0:
                return G_RETRY
    if place_agent_outside(w, G, dj * G.g.nc + di) < 0 or not check_objs_reachable(w):
        return G_RETRY
    new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, c, -1), -1, 0)
    return G_OK


cdef int lvl_unlock_local(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # UnlockLocal: a locked door of the middle room, its key there (p3: 3 distractors too).
    cdef int c = bab_door(w, G, 1, 1, -1, -1, 1)
    if c < 0:
        return G_FAIL
    if bab_add_object(w, G, 1, 1, OBJ_KEY, c) < 0:
        return G_RETRY
    if cfg.p[3] and bab_add_distractors(w, G, 1, 1, 3, True) < 0:
        return G_RETRY
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, -1, -1), -1, 0)
    return G_OK


cdef int lvl_key_in_box(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # KeyInBox: a locked door of the middle room, its key in a box there.
    cdef int c = bab_door(w, G, 1, 1, -1, -1, 1), box, n = G.nobjs
    if c < 0:
        return G_FAIL
    box = rcolor(w)
    if n >= 64 or rg_place_in_room(w, &G.g, 1, 1, OBJ_BOX, box, 1 + OBJ_KEY * 8 + c) < 0:
        return G_RETRY
    G.otype[n] = OBJ_BOX
    G.ocolor[n] = box
    G.nobjs = n + 1
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    new_node(w.bab, I_OPEN, new_desc(w.bab, OBJ_DOOR, -1, -1), -1, 0)
    return G_OK


cdef int lvl_unlock_pickup(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # UnlockPickup (p3: 4 distractors) and BlockedUnlockPickup (p4: a ball before the door, the
    # box named by its type only).
    cdef int o = bab_object(w, G, 1, 0, OBJ_BOX, -1), c, x, y
    if o < 0:
        return G_RETRY
    c = rg_add_door(w, &G.g, 0, 0, 0, -1, 1, &x, &y)
    if c < 0:
        return G_FAIL
    if cfg.p[4]:
        put(w, x - 1, y, OBJ_BALL, rcolor(w), 0)
    if bab_add_object(w, G, 0, 0, OBJ_KEY, c) < 0:
        return G_RETRY
    if cfg.p[3] and bab_add_distractors(w, G, -1, -1, 4, True) < 0:
        return G_RETRY
    if bab_place_agent(w, G, 0, 0) < 0:
        return G_RETRY
    if cfg.p[4]:
        new_node(w.bab, I_PICKUP, new_desc(w.bab, OBJ_BOX, -1, -1), -1, 0)
    else:
        new_node(w.bab, I_PICKUP, obj_desc(w, G, o), -1, 0)
    return G_OK


cdef int lvl_unlock_to_unlock(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # UnlockToUnlock: three rooms in a row; one key opens the way to the other, the ball behind.
    cdef int colors[2]
    rand_color_subset(w, 2, colors)
    if bab_door(w, G, 0, 0, 0, colors[0], 1) < 0:
        return G_FAIL
    if bab_add_object(w, G, 2, 0, OBJ_KEY, colors[0]) < 0:
        return G_RETRY
    if bab_door(w, G, 1, 0, 0, colors[1], 1) < 0:
        return G_FAIL
    if bab_add_object(w, G, 1, 0, OBJ_KEY, colors[1]) < 0 or bab_object(w, G, 0, 0, OBJ_BALL, -1) < 0:
        return G_RETRY
    if bab_place_agent(w, G, 1, 0) < 0:
        return G_RETRY
    new_node(w.bab, I_PICKUP, new_desc(w.bab, OBJ_BALL, -1, -1), -1, 0)
    return G_OK


cdef int lvl_action_obj_door(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # ActionObjDoor: 5 objects and 4 doors in the middle room; go to or open a door, go to or
    # pick up an object.
    cdef int colors[4]
    cdef int k, t, d
    if bab_add_distractors(w, G, 1, 1, 5, True) < 0:
        return G_RETRY
    for k in range(4):
        colors[k] = bab_door(w, G, 1, 1, -1, -1, 0)
        if colors[k] < 0:
            return G_FAIL
    if bab_place_agent(w, G, 1, 1) < 0:
        return G_RETRY
    t = rint(w, 0, 9)
    if t >= 5:
        d = new_desc(w.bab, OBJ_DOOR, colors[t - 5], -1)
        new_node(w.bab, I_GOTO if rint(w, 0, 2) == 0 else I_OPEN, d, -1, 0)
    else:
        d = obj_desc(w, G, G.dists[t])
        new_node(w.bab, I_GOTO if rint(w, 0, 2) == 0 else I_PICKUP, d, -1, 0)
    return G_OK


cdef int lvl_find_obj(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # FindObjS5: an object in a random room (its column drawn over the rows), the agent in the
    # middle; pick it up (named by its type).
    cdef int i = rint(w, 0, G.g.nr), j = rint(w, 0, G.g.nc)
    cdef int o = bab_object(w, G, i, j, -1, -1)
    if o < 0 or bab_place_agent(w, G, 1, 1) < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    new_node(w.bab, I_PICKUP, new_desc(w.bab, G.otype[o], -1, -1), -1, 0)
    return G_OK


cdef int lvl_key_corridor(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # KeyCorridor: MiniGrid's KeyCorridor, its ball named by type.
    cdef int j, ri, c, o
    for j in range(1, G.g.nr):
        rg_remove_wall(w, &G.g, 1, j, 3)
    ri = rint(w, 0, G.g.nr)
    c = bab_door(w, G, 2, ri, 2, -1, 1)
    if c < 0:
        return G_FAIL
    o = bab_object(w, G, 2, ri, OBJ_BALL, -1)
    if o < 0 or bab_add_object(w, G, 0, rint(w, 0, G.g.nr), OBJ_KEY, c) < 0:
        return G_RETRY
    if bab_place_agent(w, G, 1, G.g.nr // 2) < 0 or rg_connect_all(w, &G.g) < 0:
        return G_RETRY
    new_node(w.bab, I_PICKUP, new_desc(w.bab, OBJ_BALL, -1, -1), -1, 0)
    return G_OK


cdef int lvl_one_room(World* w, BabyGen* G, const MgConfig* cfg) noexcept nogil:
    # OneRoomS*: a ball, the agent anywhere; pick up the ball.
    if bab_object(w, G, 0, 0, OBJ_BALL, -1) < 0 or bab_place_agent(w, G, -1, -1) < 0:
        return G_RETRY
    new_node(w.bab, I_PICKUP, new_desc(w.bab, OBJ_BALL, -1, -1), -1, 0)
    return G_OK


# ---------------------------------------------------------------- the task table's generators

cdef int gen_babyai_goto_red_ball(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_red_ball, False)


cdef int gen_babyai_goto_obj(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_obj, False)


cdef int gen_babyai_goto_local(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_local, False)


cdef int gen_babyai_goto(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto, False)


cdef int gen_babyai_goto_imp_unlock(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_imp_unlock, False)


cdef int gen_babyai_goto_red_blue_ball(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_red_blue_ball, False)


cdef int gen_babyai_goto_door(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_door, False)


cdef int gen_babyai_goto_obj_door(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_goto_obj_door, False)


cdef int gen_babyai_open(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_open, False)


cdef int gen_babyai_open_red_door(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_open_red_door, False)


cdef int gen_babyai_open_door(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_open_door, False)


cdef int gen_babyai_open_two_doors(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_open_two_doors, False)


cdef int gen_babyai_open_doors_order(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_open_doors_order, False)


cdef int gen_babyai_pickup(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_pickup, False)


cdef int gen_babyai_pickup_dist(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_pickup_dist, False)


cdef int gen_babyai_pickup_above(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_pickup_above, False)


cdef int gen_babyai_putnext_local(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_putnext_local, False)


cdef int gen_babyai_putnext(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_putnext, False)


cdef int gen_babyai_move_two_across(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_move_two_across, False)


cdef int gen_babyai_unlock(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_unlock, False)


cdef int gen_babyai_unlock_local(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_unlock_local, False)


cdef int gen_babyai_key_in_box(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_key_in_box, False)


cdef int gen_babyai_unlock_pickup(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_unlock_pickup, False)


cdef int gen_babyai_unlock_to_unlock(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_unlock_to_unlock, False)


cdef int gen_babyai_action_obj_door(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_action_obj_door, False)


cdef int gen_babyai_find_obj(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_find_obj, False)


cdef int gen_babyai_key_corridor(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_key_corridor, False)


cdef int gen_babyai_one_room(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_one_room, False)


cdef int gen_babyai_levelgen(World* w, const MgConfig* cfg) noexcept nogil:
    return gen_babyai(w, cfg, lvl_levelgen, True)
