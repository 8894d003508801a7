# Included by gridsim/minigrid/_kernel.pyx after _babyai.pxi: the BabyAI bot
# (minigrid/utils/baby_ai_bot.py of Minigrid 3.2.0; docs/babyai_bot.md), one replan per env and
# call, action for action upstream's BabyAIBot(env).replan(action_taken).
#
# Upstream's bot is a stack of subgoals over the env's privileged state; its state here is a
# row of int16 slots per env (MinigridState.bot):
#   header   live (0: fresh, the next call starts the bot on the row's episode; 1: planning; 2:
#            failed), why it failed (BOT_FAIL_*), the stack's depth, and what _remember_current_state
#            kept: the agent's cell, the carried object's number, whether the last door faced was
#            open (stale when no door was faced, as upstream's attribute), a box in front
#   vis      the cells seen so far (upstream's vis_mask), bit k & 15 of word k >> 4 for cell
#            k = y * W + x
#   stack    BOT_MAX_DEPTH subgoals x (kind, reason, datum kind, a, b, key count, BOT_MAX_KEYS
#            key object numbers, their cells): a datum is an instruction's descriptor (a: its
#            number), a description of keys found when the subgoal was made (upstream's
#            ObjDesc("key", colour) made by find_matching_objs then: the keys' numbers and cells
#            of that moment), a door (a, b: its cell; upstream holds the door itself, which never
#            moves), a cell (a, b), or no cell (upstream's None, a TypeError when planned)
# Upstream raises where its plan breaks (AssertionError, TypeError, DisappearedBoxError); the
# env is then reported failed with the reason, and its later calls return -1 until it resets.
# Upstream's search has no bound: a call that replans more than BOT_MAX_REPLANS times, or a stack
# deeper than BOT_MAX_DEPTH, or more keys of a colour than BOT_MAX_KEYS, fails here instead.

cdef enum:
    BOT_LIVE = 0
    BOT_FAILURE = 1
    BOT_DEPTH = 2
    BOT_PREV_X = 3
    BOT_PREV_Y = 4
    BOT_PREV_CARRIED = 5
    BOT_DOOR_WAS_OPEN = 6
    BOT_PREV_FWD_BOX = 7
    BOT_HEADER = 8
    BOT_MAX_CELLS = 1024        # cells of a grid (BabyAI's largest, 3 x 3 rooms of 8, has 22 x 22)
    BOT_VIS_AT = BOT_HEADER
    BOT_STACK_AT = BOT_VIS_AT + BOT_MAX_CELLS // 16
    BOT_MAX_KEYS = 8
    SG_KIND = 0
    SG_REASON = 1
    SG_DATUM = 2
    SG_A = 3
    SG_B = 4
    SG_NKEYS = 5
    SG_KEYS = 6
    SG_KEY_CELLS = SG_KEYS + BOT_MAX_KEYS
    SG_SIZE = SG_KEY_CELLS + BOT_MAX_KEYS
    BOT_MAX_DEPTH = 40
    BOT_SLOTS = BOT_STACK_AT + BOT_MAX_DEPTH * SG_SIZE
    BOT_MAX_REPLANS = 256

# The header's live states.
cdef enum:
    BOT_FRESH = 0
    BOT_PLANNING = 1
    BOT_FAILED = 2

# Why a bot failed (MINIGRID_BOT_FAILURES in _kernel.pyx words each code).
cdef enum:
    BOT_FAIL_NONE = 0
    BOT_FAIL_BOX = 1            # DisappearedBoxError: a box was opened
    BOT_FAIL_RAISES = 2         # upstream raises (an assertion, or a subgoal with no cell)
    BOT_FAIL_BOUND = 3          # more than BOT_MAX_REPLANS replans in one call
    BOT_FAIL_CAPACITY = 4       # a stack deeper than BOT_MAX_DEPTH, more keys than BOT_MAX_KEYS
    BOT_FAIL_STATE = 5          # a written state the bot cannot read

# Subgoals (upstream's classes), their reasons, and their data.
cdef enum:
    SG_CLOSE = 1
    SG_OPEN = 2
    SG_DROP = 3
    SG_PICKUP = 4
    SG_GO_NEXT_TO = 5
    SG_EXPLORE = 6
    R_NONE = 0
    R_PUT_NEXT = 1
    R_EXPLORE = 2
    R_OPEN = 3
    R_UNLOCK = 4
    R_KEEP_KEY = 5
    DK_NONE = 0
    DK_DESC = 1
    DK_KEYS = 2
    DK_DOOR = 3
    DK_CELL = 4
    DK_NO_CELL = 5

# Minigrid's actions.
cdef enum:
    A_BOT_DONE = 6
    PLAN_AGAIN = -1             # a subgoal changed the stack: replan
    PLAN_FAILED = -2            # the bot failed (its header says why)

# What a search accepts (upstream's accept_fn lambdas; pos == target is cell_path's).
cdef enum:
    ACC_UNSEEN = 1              # not vis_mask[pos]
    ACC_CLOSED_UNLOCKED_DOOR = 2
    ACC_CLOSED_DOOR = 3
    ACC_DROP_UNBLOCKING = 4     # _find_drop_pos's match_unblock
    ACC_DROP_EMPTY = 5          # _find_drop_pos's match_empty

# The search's neighbour order from a state facing d = (di, dj): (di, dj), (dj, di), (-dj, -di),
# (-di, -dj), as direction numbers (DIR_DX / DIR_DY).
cdef int[16] BFS_NEXT = [0, 1, 3, 2,  1, 0, 2, 3,  2, 3, 1, 0,  3, 2, 0, 1]

# match_unblock's 8 neighbours, clockwise from the top left.
cdef int[8] RING_DX = [-1, 0, 1, 1, 1, 0, -1, -1]
cdef int[8] RING_DY = [-1, -1, -1, 0, 1, 1, 1, 0]


cdef struct BotSearch:
    # One of a call's two searches, grown as far as its queries need (the world does not change
    # during a call): upstream's previous_pos and the cells visited, in order (the queue).
    int16_t* prev                       # -2 unvisited, -1 None, else the previous cell
    int16_t* order
    int head                            # cells taken out of the queue (expanded)
    int tail                            # cells queued (head == tail: the search has ended)
    bint ignore_blockers
    bint started


cdef struct BotScratch:
    # The first search from the agent without blockers; the second, from every cell the first
    # visited, with them (upstream's _shortest_path).
    int16_t prev1[BOT_MAX_CELLS]
    int16_t prev2[BOT_MAX_CELLS]
    int16_t order1[BOT_MAX_CELLS]
    int16_t order2[BOT_MAX_CELLS]
    uint8_t dir[BOT_MAX_CELLS]          # the direction a visited cell was entered in
    uint8_t qx[BOT_MAX_CELLS]           # a visited cell's x and y (no division per cell)
    uint8_t qy[BOT_MAX_CELLS]
    BotSearch first
    BotSearch second


# A bot call's arguments, for its chunks on the kernel's threads (MinigridKernel.bot_replan).
cdef struct BotJob:
    void* kernel                # the MinigridKernel (borrowed: bot_replan's caller holds it)
    const int64_t* taken
    int64_t* out
    uint8_t* fresh
    int no_memory               # a chunk could not allocate its search's scratch (atomic OR)


cdef struct Bot:
    World* w
    int16_t* s
    const MgConfig* cfg
    BotScratch* x
    int ax, ay, dx, dy, rx, ry, fx, fy
    uint8_t* fwd                        # the cell in front (a grey wall outside the grid)
    int carried                         # the carried object's number (0: nothing)
    uint8_t wall[4]


cdef struct BotAccept:
    int kind
    int ex, ey                          # the drop searches' except_pos (ex -1: None)


cdef struct BotPath:
    int finish                          # the cell found (-1: none)
    int length                          # len(path) without the start (-1: None)
    int first                           # path[0] (-1: empty)
    bint with_blockers


# ---------------------------------------------------------------- state

cdef inline bint bot_seen(Bot* b, int k) noexcept nogil:
    return (<uint16_t>b.s[BOT_VIS_AT + (k >> 4)] >> (k & 15)) & 1


cdef inline int16_t* bot_top(Bot* b) noexcept nogil:
    return b.s + BOT_STACK_AT + (b.s[BOT_DEPTH] - 1) * SG_SIZE


cdef inline int bot_fail(Bot* b, int why) noexcept nogil:
    b.s[BOT_LIVE] = BOT_FAILED
    b.s[BOT_FAILURE] = <int16_t>why
    return PLAN_FAILED


cdef int16_t* bot_push(Bot* b, int kind, int reason, int datum, int a, int c) noexcept nogil:
    # A subgoal on the stack (NULL, the bot failed, past BOT_MAX_DEPTH).
    cdef int16_t* g
    if b.s[BOT_DEPTH] >= BOT_MAX_DEPTH:
        bot_fail(b, BOT_FAIL_CAPACITY)
        return NULL
    b.s[BOT_DEPTH] += 1
    g = bot_top(b)
    g[SG_KIND] = <int16_t>kind
    g[SG_REASON] = <int16_t>reason
    g[SG_DATUM] = <int16_t>datum
    g[SG_A] = <int16_t>a
    g[SG_B] = <int16_t>c
    g[SG_NKEYS] = 0
    return g


cdef inline int push(Bot* b, int kind, int reason, int datum, int a, int c) noexcept nogil:
    return 0 if bot_push(b, kind, reason, datum, a, c) != NULL else -1


cdef inline int push_cell(Bot* b, int kind, int reason, int cell) noexcept nogil:
    # A GoNextTo a cell found by a search (-1: upstream's None).
    if cell < 0:
        return push(b, kind, reason, DK_NO_CELL, 0, 0)
    return push(b, kind, reason, DK_CELL, cell % b.w.W, cell // b.w.W)


cdef int push_keys(Bot* b, int color) noexcept nogil:
    # GoNextToSubgoal(ObjDesc("key", colour)) with the keys on the grid now (find_matching_objs:
    # x outer, y inner).
    cdef World* w = b.w
    cdef int16_t* g = bot_push(b, SG_GO_NEXT_TO, R_NONE, DK_KEYS, color, 0)
    cdef int x, y, n = 0
    cdef uint8_t* c
    if g == NULL:
        return -1
    for x in range(w.W):
        for y in range(w.H):
            c = cell_at(w, x, y)
            if c[0] == OBJ_KEY and c[1] == color:
                if n >= BOT_MAX_KEYS:
                    bot_fail(b, BOT_FAIL_CAPACITY)
                    return -1
                g[SG_KEYS + n] = w.oid[y * w.W + x]
                g[SG_KEY_CELLS + n] = <int16_t>(y * w.W + x)
                n += 1
    g[SG_NKEYS] = <int16_t>n
    return 0


cdef inline uint8_t* bot_cell(Bot* b, int x, int y) noexcept nogil:
    # grid.get(x, y), a grey wall outside the grid.
    if 0 <= x < b.w.W and 0 <= y < b.w.H:
        return cell_at(b.w, x, y)
    return b.wall


cdef inline bint steppable(const uint8_t* c) noexcept nogil:
    return c[0] == OBJ_EMPTY or (c[0] == OBJ_DOOR and c[2] == ST_OPEN)


cdef inline int carried_of(World* w) noexcept nogil:
    return w.bab[BAB_CARRIED] if w.carrying[0] != OBJ_EMPTY else 0


# ---------------------------------------------------------------- search

cdef bint bot_accepts(Bot* b, const BotAccept* acc, int x, int y) noexcept nogil:
    cdef World* w = b.w
    cdef uint8_t* c = cell_at(w, x, y)
    cdef int k, nx, ny, changes
    cdef int cls[8]
    cdef uint8_t* n
    if acc.kind == ACC_UNSEEN:
        return not bot_seen(b, y * w.W + x)
    if acc.kind == ACC_CLOSED_UNLOCKED_DOOR:
        return c[0] == OBJ_DOOR and c[2] == ST_CLOSED
    if acc.kind == ACC_CLOSED_DOOR:
        return c[0] == OBJ_DOOR and c[2] != ST_OPEN
    # The drop searches: not the agent's cell, not except_pos, seen and empty.
    if x == b.ax and y == b.ay:
        return False
    if acc.ex >= 0 and x == acc.ex and y == acc.ey:
        return False
    if not bot_seen(b, y * w.W + x) or c[0] != OBJ_EMPTY:
        return False
    if acc.kind == ACC_DROP_EMPTY:
        return True
    # match_unblock: the 8 neighbours' classes (0 empty, an open door or the agent; 1 a wall
    # seen; 2 anything else), clockwise from the top left.
    for k in range(8):
        nx = x + RING_DX[k]
        ny = y + RING_DY[k]
        n = bot_cell(b, nx, ny)
        if not (0 <= nx < w.W and 0 <= ny < w.H):
            cls[k] = 2
        elif bot_seen(b, ny * w.W + nx) and n[0] == OBJ_WALL:
            cls[k] = 1
        elif (bot_seen(b, ny * w.W + nx) and (n[0] == OBJ_EMPTY or (n[0] == OBJ_DOOR and n[2] == ST_OPEN)
                                              or (nx == b.ax and ny == b.ay))
              and not (nx == acc.ex and ny == acc.ey and acc.ex >= 0)):
            cls[k] = 0
        else:
            cls[k] = 2
    changes = 0
    for k in range(8):
        if (cls[(k + 1) & 7] != 0) != (cls[k] != 0):
            changes += 1
    for k in range(8):
        if cls[k] == 2 and cls[(k + 7) & 7] != 0 and cls[(k + 1) & 7] != 0:
            return False
    return changes <= 2


cdef void search_step(Bot* b, BotSearch* S) noexcept nogil:
    # One more cell out of the queue, its neighbours in (_breadth_first_search's loop). Upstream
    # queues a state per neighbour and skips the cells visited when it takes them out; a cell's
    # first state decides its prev and direction, and states leave in the order they came, so
    # queueing each cell once, when first seen, visits the same cells in the same order with the
    # same prev (and a cell's prev is known once it is queued).
    cdef World* w = b.w
    cdef BotScratch* x = b.x
    cdef int cell = S.order[S.head], cx, cy, d, k, nd, nx, ny, n, W = w.W
    cdef uint8_t* c = w.cells + 4 * cell
    S.head += 1
    if not bot_seen(b, cell):
        return
    if c[0] != OBJ_EMPTY:
        if c[0] == OBJ_WALL:
            return
        if c[0] == OBJ_DOOR:
            if c[2] != ST_OPEN:
                return
        elif not S.ignore_blockers:
            return
    cx = x.qx[cell]
    cy = x.qy[cell]
    d = x.dir[cell]
    for k in range(4):
        nd = BFS_NEXT[4 * d + k]
        nx = cx + DIR_DX[nd]
        ny = cy + DIR_DY[nd]
        if 0 <= nx < W and 0 <= ny < w.H:   # (the outer wall keeps every level's search inside)
            n = ny * W + nx
            if S.prev[n] == -2:
                S.prev[n] = <int16_t>cell
                x.dir[n] = <uint8_t>nd
                x.qx[n] = <uint8_t>nx
                x.qy[n] = <uint8_t>ny
                S.order[S.tail] = <int16_t>n
                S.tail += 1


cdef BotSearch* search_first(Bot* b) noexcept nogil:
    # The first search of this call, started once (from the agent, facing its direction).
    cdef BotScratch* x = b.x
    cdef BotSearch* S = &x.first
    cdef int k, a
    if not S.started:
        for k in range(b.w.W * b.w.H):
            x.prev1[k] = -2
        a = b.ay * b.w.W + b.ax
        x.prev1[a] = -1
        x.dir[a] = <uint8_t>(b.w.agent[2] & 3)
        x.qx[a] = <uint8_t>b.ax
        x.qy[a] = <uint8_t>b.ay
        x.order1[0] = <int16_t>a
        S.prev = x.prev1
        S.order = x.order1
        S.head = 0
        S.tail = 1
        S.ignore_blockers = False
        S.started = True
    return S


cdef BotSearch* search_second(Bot* b) noexcept nogil:
    # The second search of this call, started once (blockers ignored, from every cell the first
    # visits, each facing right): the first runs to its end.
    cdef BotScratch* x = b.x
    cdef BotSearch* F = search_first(b)
    cdef BotSearch* S = &x.second
    cdef int k, cell
    if not S.started:
        while F.head < F.tail:
            search_step(b, F)
        for k in range(b.w.W * b.w.H):
            x.prev2[k] = -2
        for k in range(F.tail):
            cell = x.order1[k]
            x.prev2[cell] = -1
            x.dir[cell] = 0
            x.order2[k] = <int16_t>cell
        S.prev = x.prev2
        S.order = x.order2
        S.head = 0
        S.tail = F.tail
        S.ignore_blockers = True
        S.started = True
    return S


cdef inline bint search_reaches(Bot* b, BotSearch* S, int t) noexcept nogil:
    # Whether the search visits cell t (grown until it has queued t, or has ended).
    while S.prev[t] == -2 and S.head < S.tail:
        search_step(b, S)
    return S.prev[t] != -2


cdef void cell_path(Bot* b, int tx, int ty, bint try_with_blockers, BotPath* out) noexcept nogil:
    # _shortest_path(lambda pos, cell: pos == (tx, ty), try_with_blockers): the path's length
    # without its start and its first cell, joined to the first search's path where the second
    # found it.
    cdef BotScratch* x = b.x
    cdef int t, p, L = 0, prev_last = -1, last = -1
    out.finish = -1
    out.length = -1
    out.first = -1
    out.with_blockers = False
    if not (0 <= tx < b.w.W and 0 <= ty < b.w.H):
        out.with_blockers = try_with_blockers
        return
    t = ty * b.w.W + tx
    if search_reaches(b, search_first(b), t):
        p = t
    elif try_with_blockers:
        out.with_blockers = True
        if not search_reaches(b, search_second(b), t):
            return
        # The second search's path back to a cell of the first, then the first's path from it.
        p = t
        while x.prev2[p] >= 0:
            prev_last = last
            last = p
            L += 1
            p = x.prev2[p]
    else:
        return
    while p >= 0:
        prev_last = last
        last = p
        L += 1
        p = x.prev1[p]
    out.finish = t
    out.length = L - 1
    out.first = prev_last if L >= 2 else -1


cdef int first_accepted(Bot* b, BotSearch* S, const BotAccept* acc) noexcept nogil:
    # The first cell the search visits that the acceptance test takes (grown as far as needed).
    cdef int k = 0, cell
    while True:
        while k >= S.tail and S.head < S.tail:
            search_step(b, S)
        if k >= S.tail:
            return -1
        cell = S.order[k]
        if bot_accepts(b, acc, b.x.qx[cell], b.x.qy[cell]):
            return cell
        k += 1


cdef int find_cell(Bot* b, int kind, int ex, int ey, bint try_with_blockers) noexcept nogil:
    # _shortest_path(accept, try_with_blockers)'s found cell (-1: None).
    cdef BotAccept acc
    cdef int cell
    acc.kind = kind
    acc.ex = ex
    acc.ey = ey
    cell = first_accepted(b, search_first(b), &acc)
    if cell < 0 and try_with_blockers:
        cell = first_accepted(b, search_second(b), &acc)
    return cell


cdef int find_drop_cell(Bot* b, int except_cell) noexcept nogil:
    # _find_drop_pos(except_pos): a seen empty cell, ideally one that blocks nothing (-1: None).
    cdef int ex = -1, ey = -1, f
    if except_cell >= 0:
        ex = except_cell % b.w.W
        ey = except_cell // b.w.W
    f = find_cell(b, ACC_DROP_UNBLOCKING, ex, ey, False)
    if f < 0:
        f = find_cell(b, ACC_DROP_EMPTY, ex, ey, False)
    if f < 0:
        f = find_cell(b, ACC_DROP_UNBLOCKING, ex, ey, True)
    if f < 0:
        f = find_cell(b, ACC_DROP_EMPTY, ex, ey, True)
    return f


cdef int find_obj(Bot* b, int16_t* g, bint adjacent, int* obj) noexcept nogil:
    # _find_obj_pos: the cell of the closest seen object of the subgoal's description (-1: None;
    # obj: its number), or PLAN_FAILED. An instruction's descriptor pairs its i-th object with its
    # i-th cell as upstream does (the cells found again after a drop may list fewer).
    cdef int16_t* oset
    cdef int16_t* cells
    cdef int nset, ncells, i, cell, dist, best = 999, best_cell = -1
    cdef BotPath p
    if g[SG_DATUM] == DK_DESC:
        oset = bab_set(b.w.bab, g[SG_A])
        cells = bab_poss(b.w.bab, g[SG_A])
        nset = bab_desc(b.w.bab, g[SG_A])[D_NSET]
        ncells = bab_desc(b.w.bab, g[SG_A])[D_NPOSS]
    else:
        oset = g + SG_KEYS
        cells = g + SG_KEY_CELLS
        nset = ncells = g[SG_NKEYS]
    obj[0] = 0
    if nset <= 0:
        return bot_fail(b, BOT_FAIL_RAISES)
    for i in range(nset):
        if b.carried != 0 and oset[i] == b.carried:
            continue
        if i >= ncells:
            continue  # upstream's IndexError, caught
        cell = cells[i]
        if not 0 <= cell < b.w.W * b.w.H:
            return bot_fail(b, BOT_FAIL_STATE)
        if not bot_seen(b, cell):
            continue
        cell_path(b, cell % b.w.W, cell // b.w.W, True, &p)
        if p.finish < 0:
            return bot_fail(b, BOT_FAIL_RAISES)
        dist = p.length
        if p.with_blockers:
            dist += 7 if b.w.carrying[0] != OBJ_EMPTY else 4
        if dist == 0:
            dist = 3 if adjacent else 2
        if adjacent and dist == 1:
            dist = 3
        if dist < best:
            best = dist
            best_cell = cell
            obj[0] = oset[i]
    return best_cell


cdef int closest_wall_or_door(Bot* b, int sx, int sy) noexcept nogil:
    # _closest_wall_or_door_given_dir along (sx, sy), a side of the agent: the view's rectangle
    # reaches view // 2 cells sideways.
    cdef int distance = 1, half = b.cfg.view // 2
    cdef uint8_t* c
    while True:
        if distance > half:
            return distance - 1
        c = bot_cell(b, b.ax + distance * sx, b.ay + distance * sy)
        if c[0] == OBJ_DOOR or c[0] == OBJ_WALL:
            return distance
        distance += 1


# ---------------------------------------------------------------- the subgoals

cdef int undo_action(Bot* b, int action) noexcept nogil:
    # Subgoal._plan_undo_action.
    cdef int16_t* s = b.s
    if action == A_FORWARD:
        if s[BOT_PREV_X] != b.ax or s[BOT_PREV_Y] != b.ay:
            return push(b, SG_GO_NEXT_TO, R_NONE, DK_CELL, b.ax, b.ay)
    elif action == A_LEFT:
        return push(b, SG_GO_NEXT_TO, R_NONE, DK_CELL, b.ax + b.rx, b.ay + b.ry)
    elif action == A_RIGHT:
        return push(b, SG_GO_NEXT_TO, R_NONE, DK_CELL, b.ax - b.rx, b.ay - b.ry)
    elif action == A_DROP and s[BOT_PREV_CARRIED] != b.carried:
        if not (b.fwd[0] == OBJ_KEY or b.fwd[0] == OBJ_BOX or b.fwd[0] == OBJ_BALL):
            return bot_fail(b, BOT_FAIL_RAISES)
        return push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0)
    elif action == A_PICKUP and s[BOT_PREV_CARRIED] != b.carried:
        return push(b, SG_DROP, R_NONE, DK_NONE, 0, 0)
    elif action == A_TOGGLE:
        if b.fwd[0] == OBJ_DOOR and (s[BOT_DOOR_WAS_OPEN] != 0) != (b.fwd[2] == ST_OPEN):
            return push(b, SG_CLOSE if b.fwd[2] == ST_OPEN else SG_OPEN, R_NONE, DK_NONE, 0, 0)
    return 0


cdef int after_action(Bot* b, int16_t* g, int action) noexcept nogil:
    # The top subgoal's replan_after_action (action -1: None).
    cdef int kind = g[SG_KIND], reason = g[SG_REASON], cell
    if kind == SG_CLOSE or kind == SG_DROP:
        if action < 0 or action == (A_TOGGLE if kind == SG_CLOSE else A_DROP):
            b.s[BOT_DEPTH] -= 1
        elif action == A_FORWARD or action == A_LEFT or action == A_RIGHT:
            return undo_action(b, action)
    elif kind == SG_OPEN:
        if action < 0 or action == A_TOGGLE:
            b.s[BOT_DEPTH] -= 1
            if reason == R_UNLOCK:
                # (Chosen after the action: a cell chosen before might be taken by then.)
                cell = find_drop_cell(b, -1)
                if push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0:
                    return -1
                return push_cell(b, SG_GO_NEXT_TO, R_NONE, cell)
        else:
            return undo_action(b, action)
    elif kind == SG_PICKUP:
        if action < 0 or action == A_PICKUP:
            b.s[BOT_DEPTH] -= 1
        elif action == A_LEFT or action == A_RIGHT:
            return undo_action(b, action)
    elif kind == SG_GO_NEXT_TO:
        if action == A_PICKUP or action == A_DROP or action == A_TOGGLE:
            return undo_action(b, action)
    return 0


cdef int plan_close(Bot* b) noexcept nogil:
    if b.fwd[0] != OBJ_DOOR or b.fwd[2] != ST_OPEN:
        return bot_fail(b, BOT_FAIL_RAISES)
    return A_TOGGLE


cdef int plan_open(Bot* b, int16_t* g) noexcept nogil:
    # OpenSubgoal.replan_before_action.
    cdef int drop_cell, fwd_cell = b.fy * b.w.W + b.fx, color
    cdef bint got_the_key
    if b.fwd[0] != OBJ_DOOR:
        return bot_fail(b, BOT_FAIL_RAISES)
    color = b.fwd[1]
    got_the_key = b.w.carrying[0] == OBJ_KEY and b.w.carrying[1] == color
    if b.fwd[2] == ST_LOCKED and not got_the_key:
        # Fetch the key (dropping what is carried first), then come back and open the door.
        b.s[BOT_DEPTH] -= 1
        if b.w.carrying[0] != OBJ_EMPTY:
            drop_cell = find_drop_cell(b, -1)
            if (push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_cell) < 0
                    or push(b, SG_OPEN, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, fwd_cell) < 0
                    or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_keys(b, color) < 0
                    or push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_cell) < 0):
                return PLAN_FAILED
        else:
            if (push(b, SG_OPEN, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, fwd_cell) < 0
                    or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_keys(b, color) < 0):
                return PLAN_FAILED
        return PLAN_AGAIN
    if b.fwd[2] == ST_OPEN:
        return PLAN_AGAIN if push(b, SG_CLOSE, R_NONE, DK_NONE, 0, 0) == 0 else PLAN_FAILED
    if b.fwd[2] == ST_LOCKED and g[SG_REASON] == R_NONE:
        b.s[BOT_DEPTH] -= 1
        return PLAN_AGAIN if push(b, SG_OPEN, R_UNLOCK, DK_NONE, 0, 0) == 0 else PLAN_FAILED
    return A_TOGGLE


cdef int plan_go_next_to(Bot* b, int16_t* g) noexcept nogil:
    # GoNextToSubgoal.replan_before_action.
    cdef World* w = b.w
    cdef int reason = g[SG_REASON], datum = g[SG_DATUM], tx, ty, obj = 0, cell, dist, next_cell, nx, ny
    cdef int drop_cur, drop_block, dr, dl
    cdef uint8_t* target = NULL
    cdef BotPath p
    if datum == DK_DESC or datum == DK_KEYS:
        cell = find_obj(b, g, reason == R_PUT_NEXT, &obj)
        if cell == PLAN_FAILED:
            return PLAN_FAILED
        if cell < 0:
            return PLAN_AGAIN if push(b, SG_EXPLORE, R_NONE, DK_NONE, 0, 0) == 0 else PLAN_FAILED
        tx = cell % w.W
        ty = cell // w.W
        if reason == R_OPEN:
            # The object found, where it is (a descriptor's object is listed with another's cell
            # once a drop reordered the cells; only a door's state is read, and doors never move).
            for cell in range(w.W * w.H):
                if w.oid[cell] == obj:
                    target = cell_at(w, cell % w.W, cell // w.W)
                    break
    elif datum == DK_DOOR:
        tx = g[SG_A]
        ty = g[SG_B]
        target = bot_cell(b, tx, ty)
    elif datum == DK_CELL:
        tx = g[SG_A]
        ty = g[SG_B]
    else:
        return bot_fail(b, BOT_FAIL_RAISES)  # tuple(None)
    # Going to open a locked door without its key, and carrying nothing: commit to this door,
    # fetch its key first.
    if reason == R_OPEN and target != NULL and target[0] == OBJ_DOOR and target[2] == ST_LOCKED:
        if w.carrying[0] == OBJ_EMPTY:
            b.s[BOT_DEPTH] -= 1
            if (push(b, SG_GO_NEXT_TO, R_OPEN, DK_DOOR, tx, ty) < 0
                    or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_keys(b, target[1]) < 0):
                return PLAN_FAILED
            return PLAN_AGAIN
    # Standing where we should go next to: move away.
    dist = iabs(tx - b.ax) + iabs(ty - b.ay)
    if dist == (1 if reason == R_PUT_NEXT else 0):
        if steppable(b.fwd):
            return A_FORWARD
        if steppable(bot_cell(b, b.ax + b.rx, b.ay + b.ry)):
            return A_RIGHT
        if steppable(bot_cell(b, b.ax - b.rx, b.ay - b.ry)):
            return A_LEFT
        return A_LEFT
    # Facing the target: done.
    if reason == R_PUT_NEXT:
        if iabs(tx - b.fx) + iabs(ty - b.fy) == 1:
            if b.fwd[0] == OBJ_EMPTY:
                b.s[BOT_DEPTH] -= 1
                return PLAN_AGAIN
            if b.fwd[0] == OBJ_DOOR and b.fwd[2] == ST_OPEN:
                # No drop in a doorway: move the target object instead.
                if push(b, SG_GO_NEXT_TO, R_NONE, DK_CELL, b.fx + 2 * b.dx, b.fy + 2 * b.dy) < 0:
                    return PLAN_FAILED
                return PLAN_AGAIN
    elif tx == b.fx and ty == b.fy:
        b.s[BOT_DEPTH] -= 1
        return PLAN_AGAIN
    # Far still: a path without blockers, else one through them, else explore.
    cell_path(b, tx, ty, False, &p)
    if p.length <= 0:
        cell_path(b, tx, ty, True, &p)
    if p.length <= 0:
        return PLAN_AGAIN if push(b, SG_EXPLORE, R_NONE, DK_NONE, 0, 0) == 0 else PLAN_FAILED
    next_cell = p.first
    nx = next_cell % w.W
    ny = next_cell // w.W
    if nx == b.fx and ny == b.fy:
        if b.fwd[0] == OBJ_EMPTY:
            return A_FORWARD
        if b.fwd[0] == OBJ_DOOR:
            if b.fwd[2] == ST_LOCKED:
                return bot_fail(b, BOT_FAIL_RAISES)
            if b.fwd[2] != ST_OPEN:
                return PLAN_AGAIN if push(b, SG_OPEN, R_NONE, DK_NONE, 0, 0) == 0 else PLAN_FAILED
            return A_FORWARD
        # A blocker in front: put it out of the way (what is carried set down first, taken back after).
        cell = b.fy * w.W + b.fx
        if w.carrying[0] != OBJ_EMPTY:
            drop_cur = find_drop_cell(b, -1)
            drop_block = find_drop_cell(b, drop_cur)
            if (push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_cur) < 0
                    or push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_block) < 0
                    or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, cell) < 0
                    or push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0
                    or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_cur) < 0):
                return PLAN_FAILED
            return PLAN_AGAIN
        drop_cur = find_drop_cell(b, -1)
        if (push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0
                or push_cell(b, SG_GO_NEXT_TO, R_NONE, drop_cur) < 0
                or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0):
            return PLAN_FAILED
        return PLAN_AGAIN
    if nx - b.ax == b.rx and ny - b.ay == b.ry:
        return A_RIGHT
    if nx - b.ax == -b.rx and ny - b.ay == -b.ry:
        return A_LEFT
    # The next cell is behind: turn towards the side whose nearest wall or door is farther.
    dr = closest_wall_or_door(b, b.rx, b.ry)
    dl = closest_wall_or_door(b, -b.rx, -b.ry)
    return A_LEFT if dl > dr else A_RIGHT


cdef int plan_explore(Bot* b) noexcept nogil:
    # ExploreSubgoal.replan_before_action: the closest unseen cell, else the closest closed door
    # (an unlocked one first).
    cdef World* w = b.w
    cdef int cell, reason
    cdef uint8_t* door
    cell = find_cell(b, ACC_UNSEEN, -1, -1, True)
    if cell >= 0:
        return PLAN_AGAIN if push_cell(b, SG_GO_NEXT_TO, R_EXPLORE, cell) == 0 else PLAN_FAILED
    cell = find_cell(b, ACC_CLOSED_UNLOCKED_DOOR, -1, -1, True)
    if cell < 0:
        cell = find_cell(b, ACC_CLOSED_DOOR, -1, -1, True)
    if cell < 0:
        return bot_fail(b, BOT_FAIL_RAISES)  # "nothing left to explore"
    door = cell_at(w, cell % w.W, cell // w.W)
    reason = R_NONE
    if door[2] == ST_LOCKED and w.carrying[0] == OBJ_KEY and w.carrying[1] == door[1]:
        reason = R_KEEP_KEY
    b.s[BOT_DEPTH] -= 1
    if (push(b, SG_OPEN, reason, DK_NONE, 0, 0) < 0
            or push(b, SG_GO_NEXT_TO, R_OPEN, DK_DOOR, cell % w.W, cell // w.W) < 0):
        return PLAN_FAILED
    return PLAN_AGAIN


cdef int plan_before_action(Bot* b, int16_t* g) noexcept nogil:
    cdef int kind = g[SG_KIND]
    if kind == SG_GO_NEXT_TO:
        return plan_go_next_to(b, g)
    if kind == SG_OPEN:
        return plan_open(b, g)
    if kind == SG_EXPLORE:
        return plan_explore(b)
    if kind == SG_CLOSE:
        return plan_close(b)
    if kind == SG_DROP:
        if b.w.carrying[0] == OBJ_EMPTY or b.fwd[0] != OBJ_EMPTY:
            return bot_fail(b, BOT_FAIL_RAISES)
        return A_DROP
    if b.w.carrying[0] != OBJ_EMPTY:  # SG_PICKUP
        return bot_fail(b, BOT_FAIL_RAISES)
    return A_PICKUP


# ---------------------------------------------------------------- the bot

cdef int process_instr(Bot* b, int n, int depth) noexcept nogil:
    # _process_instr: the instruction tree's subgoals, the first to do on top.
    cdef int16_t* N
    cdef int kind
    if depth > BAB_MAX_NODES or not 0 <= n < b.w.bab[BAB_NUM_NODES]:
        return bot_fail(b, BOT_FAIL_STATE)
    N = bab_node(b.w.bab, n)
    kind = N[N_KIND]
    if I_GOTO <= kind <= I_PUTNEXT:
        if not (0 <= N[N_A] < b.w.bab[BAB_NUM_DESCS]) or (kind == I_PUTNEXT and not 0 <= N[N_B] < b.w.bab[BAB_NUM_DESCS]):
            return bot_fail(b, BOT_FAIL_STATE)
    if kind == I_GOTO:
        return push(b, SG_GO_NEXT_TO, R_NONE, DK_DESC, N[N_A], 0)
    if kind == I_OPEN:
        if push(b, SG_OPEN, R_NONE, DK_NONE, 0, 0) < 0:
            return -1
        return push(b, SG_GO_NEXT_TO, R_OPEN, DK_DESC, N[N_A], 0)
    if kind == I_PICKUP:
        if push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0 or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0:
            return -1
        return push(b, SG_GO_NEXT_TO, R_NONE, DK_DESC, N[N_A], 0)
    if kind == I_PUTNEXT:
        if (push(b, SG_DROP, R_NONE, DK_NONE, 0, 0) < 0
                or push(b, SG_GO_NEXT_TO, R_PUT_NEXT, DK_DESC, N[N_B], 0) < 0
                or push(b, SG_PICKUP, R_NONE, DK_NONE, 0, 0) < 0):
            return -1
        return push(b, SG_GO_NEXT_TO, R_NONE, DK_DESC, N[N_A], 0)
    if kind == I_BEFORE or kind == I_AND:
        if process_instr(b, N[N_B], depth + 1) < 0:
            return -1
        return process_instr(b, N[N_A], depth + 1)
    if kind == I_AFTER:
        if process_instr(b, N[N_A], depth + 1) < 0:
            return -1
        return process_instr(b, N[N_B], depth + 1)
    return bot_fail(b, BOT_FAIL_STATE)


cdef bint subgoal_ok(Bot* b, int16_t* g) noexcept nogil:
    # A subgoal of a written state the bot can follow: every slot it reads in range. Checked
    # when the subgoal comes to the top, the one place subgoals are read (BOT_FAIL_STATE otherwise).
    cdef int i
    if not SG_CLOSE <= g[SG_KIND] <= SG_EXPLORE or not R_NONE <= g[SG_REASON] <= R_KEEP_KEY:
        return False
    if not DK_NONE <= g[SG_DATUM] <= DK_NO_CELL:
        return False
    if g[SG_DATUM] == DK_DESC and not 0 <= g[SG_A] < b.w.bab[BAB_NUM_DESCS]:
        return False
    if g[SG_DATUM] == DK_KEYS:
        if not 0 <= g[SG_NKEYS] <= BOT_MAX_KEYS:
            return False
        for i in range(g[SG_NKEYS]):
            if not 0 <= g[SG_KEY_CELLS + i] < b.w.W * b.w.H:
                return False
    return True


cdef inline int16_t* checked_top(Bot* b) noexcept nogil:
    # The top subgoal, or NULL (the bot failed) where a written state put one it cannot follow.
    cdef int16_t* g = bot_top(b)
    if subgoal_ok(b, g):
        return g
    bot_fail(b, BOT_FAIL_STATE)
    return NULL


cdef int bot_replan(World* w, const MgConfig* cfg, int16_t* s, BotScratch* x, int taken) noexcept nogil:
    # BabyAIBot.replan(action_taken) (taken -1: None): the suggested action, or -1 once failed.
    cdef Bot b
    cdef int k, j, i, a, d, V = cfg.view, half = cfg.view // 2, C = w.W * w.H, budget = BOT_MAX_REPLANS
    cdef uint32_t cells[MAX_VIEW * MAX_VIEW]
    cdef uint32_t vis[MAX_VIEW]
    cdef int16_t* g
    cdef uint8_t* c
    b.w = w
    b.s = s
    b.cfg = cfg
    b.x = x
    x.first.started = False  # no search made yet on this env's world
    x.second.started = False
    b.wall[0] = OBJ_WALL
    b.wall[1] = C_GREY
    b.wall[2] = 0
    b.wall[3] = 0
    if s[BOT_LIVE] == BOT_FAILED:
        return -1
    if s[BOT_LIVE] == BOT_FRESH:
        # A new bot on this episode: nothing seen, nothing planned (the instructions' subgoals below).
        for k in range(BOT_STACK_AT):
            s[k] = 0
    if (not BOT_FRESH <= s[BOT_LIVE] <= BOT_FAILED or not 0 <= s[BOT_DEPTH] <= BOT_MAX_DEPTH or C > BOT_MAX_CELLS
            or not (0 <= w.agent[0] < w.W and 0 <= w.agent[1] < w.H)):
        bot_fail(&b, BOT_FAIL_STATE)
        return -1
    d = w.agent[2] & 3
    b.ax = w.agent[0]
    b.ay = w.agent[1]
    b.dx = DIR_DX[d]
    b.dy = DIR_DY[d]
    b.rx = -b.dy
    b.ry = b.dx
    b.fx = b.ax + b.dx
    b.fy = b.ay + b.dy
    b.fwd = bot_cell(&b, b.fx, b.fy)
    b.carried = carried_of(w)
    if s[BOT_LIVE] == BOT_FRESH:
        s[BOT_LIVE] = BOT_PLANNING
        taken = -1
        if w.bab[BAB_NUM_NODES] > 0 and process_instr(&b, w.bab[BAB_ROOT], 0) < 0:
            return -1
    # _process_obs: what the view shows now is seen.
    view_cells(w, cfg, cells, vis)
    for j in range(V):
        for i in range(V):
            if (vis[j] >> i) & 1:
                a = b.ax + b.dx * (V - 1 - j) - b.rx * half + b.rx * i
                k = b.ay + b.dy * (V - 1 - j) - b.ry * half + b.ry * i
                if 0 <= a < w.W and 0 <= k < w.H:
                    k = k * w.W + a
                    s[BOT_VIS_AT + (k >> 4)] = <int16_t>(<uint16_t>s[BOT_VIS_AT + (k >> 4)] | (1 << (k & 15)))
    if taken == A_TOGGLE and s[BOT_PREV_FWD_BOX]:
        bot_fail(&b, BOT_FAIL_BOX)
        return -1
    if s[BOT_DEPTH] > 0:
        g = checked_top(&b)
        if g == NULL or after_action(&b, g, taken) < 0:
            return -1
    # Exploration is dropped once the plan changed.
    while s[BOT_DEPTH] > 0:
        g = checked_top(&b)
        if g == NULL:
            return -1
        if not (g[SG_KIND] == SG_EXPLORE or (g[SG_KIND] == SG_GO_NEXT_TO and g[SG_REASON] == R_EXPLORE)):
            break
        s[BOT_DEPTH] -= 1
    a = PLAN_AGAIN
    while s[BOT_DEPTH] > 0:
        if budget == 0:
            bot_fail(&b, BOT_FAIL_BOUND)
            return -1
        budget -= 1
        g = checked_top(&b)
        if g == NULL:
            return -1
        a = plan_before_action(&b, g)
        if a == PLAN_FAILED:
            return -1
        if a != PLAN_AGAIN:
            break
    if s[BOT_DEPTH] == 0:
        a = A_BOT_DONE
    # _remember_current_state.
    s[BOT_PREV_X] = <int16_t>b.ax
    s[BOT_PREV_Y] = <int16_t>b.ay
    s[BOT_PREV_CARRIED] = <int16_t>b.carried
    if b.fwd[0] == OBJ_DOOR:
        s[BOT_DOOR_WAS_OPEN] = b.fwd[2] == ST_OPEN
    s[BOT_PREV_FWD_BOX] = b.fwd[0] == OBJ_BOX
    return a
