# Included by _core.pyx: the batch step skeleton every family's kernel runs.
#
# A batch is U units (worlds: an env, or a kitchen) of R output rows each (1, or a kitchen's
# agents) taking A actions each. Everything a step call does around the rules is written
# here once: validating actions before any state changes, clearing the rows the previous
# call ended, the event buffers, the autoreset modes, rewards and flags, episode statistics,
# final observations and the list of ended rows. A family's kernel (gridsim/<family>/_kernel.pxi)
# is a @cython.final subclass of Kernel supplying the per-unit hooks the loop calls:
#
#   unit_rows() / unit_actions()   R and A (inline constants where they are fixed)
#   begin_step(actions) -> 0 / -1  once per call, after validation (nav's debug bounds check)
#   step_context() -> ctx          once per call: a struct of what the loop reads (raw pointers,
#                                  options), kept in the loop's frame so it stays in registers
#   step_one(&ctx, u, actions, ev, limit, &reward, &truncated) -> terminated   one step of
#                                  unit u's rules (its actions: actions[u * A:(u + 1) * A]); events go to ev (NULL with events off); limit: the
#                                  episode's ep_max_steps value (0 = none), read per family
#   reset_one(u)                   start unit u's next episode
#   write_obs(u, final)            all R observation rows of unit u (or its final ones)
#   observe_step(&ctx, u)          the observation after a step that did not reset
#   ep_length(u)                   the episode's length for stat_length
#   stat_extras(u, row, set)       family statistics beyond return / length / success
#
# The loop is specialised at compile time on the family (kernel_t, fused over the final
# classes, listed in _core.pyx, where each entry point picks its family's loop: hook calls are
# direct and inline), the action dtype and events on/off, so with
# events off no event code is left. No field shared between units is written inside the
# per-unit loop (the ended rows are collected after it; errors are found before it), so the
# loop over units runs on OpenMP threads: with the kernel's num_threads > 1 and at least its
# thread_min_units units, run_units splits the units into num_threads contiguous spans (a
# static prange over the spans inside a parallel block) and each thread runs run_span on its
# own, taking its own step context there (a family may keep per-unit scratch in it: nav keeps
# the agent's cell for observe_step). Otherwise run_span runs once over every unit. The reset
# and observe loops run on threads the same way. Every unit's result depends only on its own
# state and actions, so results are bit-identical for every thread count.

from cython.parallel cimport parallel, prange


cdef inline bint use_threads(int nt, Py_ssize_t units, int min_units) noexcept nogil:
    # Whether a loop over `units` units runs on nt threads. Smaller batches than min_units (the
    # family's: where 2 threads measured no faster than 1) run on one thread whatever nt says.
    return GRIDSIM_OPENMP != 0 and nt > 1 and units >= min_units

ctypedef fused discrete_t:
    int32_t
    int64_t

# What the step loop reads as actions: discrete actions, or nav's converted move codes.
ctypedef fused action_t:
    int8_t
    int32_t
    int64_t

# Compile-time switch of the step loop: with EventsOff the loop passes a NULL EventBuf* and
# the inlined event code vanishes (only a tag pointer type, never dereferenced).
ctypedef struct EventsOff:
    char unused
ctypedef struct EventsOn:
    char unused
ctypedef fused events_t:
    EventsOff
    EventsOn

# Compile-time switch of the step loop: every unit's episode has the batch's one limit (the
# usual case: a loop-invariant value), or the limits differ (after a max_steps write, until
# every unit reset).
ctypedef struct AnyLimits:
    char unused
ctypedef struct OneLimit:
    char unused
ctypedef fused limits_t:
    AnyLimits
    OneLimit


# ---------------------------------------------------------------- events
# Every kernel records events through these (gridsim.engine.events documents the buffers).

def _check_event_buffers(state, Py_ssize_t units):
    """Check that a state's event arrays fit a kernel of ``units`` worlds (raises ValueError)."""
    cdef int16_t[:, ::1] types = state.event_type
    cdef int32_t[:, :, ::1] payload = state.event_payload
    cdef int32_t[::1] count = state.event_count
    cdef int64_t[::1] dropped = state.event_dropped
    if units < 1 or not (types.shape[0] == payload.shape[0] == count.shape[0] == dropped.shape[0] == units):
        raise ValueError(f"event buffers must have {units} rows (one per simulated world)")
    if types.shape[1] < 1 or payload.shape[1] != types.shape[1] or types.shape[1] != state.max_events:
        raise ValueError("event buffers need max_events (>= 1) slots per world")
    if not 1 <= payload.shape[2] <= 4 or payload.shape[2] != state.num_event_fields:
        raise ValueError("event payloads have num_event_fields fields, 1 to 4")


cdef inline void emit_event(EventBuf* b, Py_ssize_t u, int kind, int32_t f0, int32_t f1,
                            int32_t f2, int32_t f3) noexcept nogil:
    # Record one event of world u, or count it as dropped when the world's slots are full.
    # Fields past the payload width are not stored; callers pass -1 for fields the event lacks.
    cdef int32_t c = b.count[u]
    cdef int32_t* p
    if <uint32_t>c >= <uint32_t>b.cap:
        b.dropped[u] += 1
        return
    b.types[u * b.cap + c] = <int16_t>kind
    p = b.payload + (u * b.cap + c) * b.nf
    p[0] = f0
    if b.nf > 1:
        p[1] = f1
        if b.nf > 2:
            p[2] = f2
            if b.nf > 3:
                p[3] = f3
    b.count[u] = c + 1


# ---------------------------------------------------------------- shared fields

cdef class Kernel:
    """What every family's kernel shares: autoreset mode, episode bookkeeping, outputs, events, errors."""

    cdef public int autoreset_mode       # read at every step call (advance() switches it to DISABLED)
    cdef public int num_threads          # threads of the loops over units, read at every call (1: none)
    cdef public int thread_min_units     # smaller batches run on one thread (the family's default)
    cdef readonly int events_on, max_events, num_event_fields
    cdef readonly int err_env, err_code

    # ---- shape of a batch: U units of R rows, A actions each (set by bind_shared) ----
    cdef Py_ssize_t units
    cdef int rows_per_unit
    cdef int acts_per_unit
    cdef int64_t num_choices             # valid discrete actions are 0 .. num_choices - 1
    cdef bint errors_in_env_order        # report the lowest env's error of either kind (roboman)
                                         # rather than a bad action before a pending reset

    # ---- per-unit episode bookkeeping ----
    cdef int64_t[::1] episode            # (U,) episode counter of the unit's key
    cdef double[::1] ep_return           # (U,) return so far
    cdef uint8_t[::1] needs_reset        # (U,) ended; reset pending (NEXT_STEP) or required (DISABLED)
    cdef int32_t[::1] ep_max_steps       # (U,) the current episode's limit, 0 = none

    # ---- events (the family's event specs), one world per unit ----
    cdef int16_t[:, ::1] event_type      # (U, E)
    cdef int32_t[:, :, ::1] event_payload  # (U, E, F)
    cdef int32_t[::1] event_count        # (U,)
    cdef int64_t[::1] event_dropped      # (U,)

    # ---- per-row outputs, rewritten every call ----
    cdef float[::1] rewards              # (U * R,)
    cdef uint8_t[::1] terminated         # bool
    cdef uint8_t[::1] truncated          # bool
    cdef uint8_t[::1] final_mask         # bool: SAME_STEP final observations written
    cdef uint8_t[::1] stat_mask          # bool: an episode ended on this call
    cdef double[::1] stat_return
    cdef int32_t[::1] stat_length
    cdef uint8_t[::1] stat_success       # bool: ended terminated (bound when the state has it)
    cdef bint has_success
    cdef int32_t[::1] ended_rows         # rows whose stat_* / final_mask the last call set
    cdef Py_ssize_t n_ended              # valid entries of ended_rows

    def __reduce__(self):
        # A kernel holds typed views of its env's arrays; an automatic pickle would rebuild one
        # with nothing bound (a crash at the next call). Envs pickle themselves from their state.
        raise TypeError(f"cannot pickle {type(self).__name__!r} object: pickle or copy the env "
                        "instead (it is rebuilt from its constructor arguments and state_dict())")

    cdef bind_shared(self, state, Py_ssize_t units, int rows_per_unit, int acts_per_unit,
                     int64_t num_choices, int thread_min_units):
        # Bind the shared arrays of a family's state (each bound here and nowhere else).
        # thread_min_units: the smallest batch whose loops run on threads (the family's figure).
        self.units = units
        self.rows_per_unit = rows_per_unit
        self.acts_per_unit = acts_per_unit
        self.num_choices = num_choices
        self.autoreset_mode = state.autoreset_mode
        self.episode = state.episode
        self.ep_return = state.ep_return
        self.needs_reset = state.needs_reset.view(np.uint8)
        self.ep_max_steps = state.ep_max_steps
        self.events_on = state.events_on
        self.max_events = state.max_events
        self.num_event_fields = state.num_event_fields
        self.event_type = state.event_type
        self.event_payload = state.event_payload
        self.event_count = state.event_count
        self.event_dropped = state.event_dropped
        _check_event_buffers(state, units)
        self.rewards = state.rewards
        self.terminated = state.terminated.view(np.uint8)
        self.truncated = state.truncated.view(np.uint8)
        self.final_mask = state.final_mask.view(np.uint8)
        self.stat_mask = state.stat_mask.view(np.uint8)
        self.stat_return = state.stat_return
        self.stat_length = state.stat_length
        self.has_success = hasattr(state, "stat_success")
        if self.has_success:
            self.stat_success = state.stat_success.view(np.uint8)
        self.ended_rows = state.ended_rows
        self.sync_outputs()
        self.err_env = -1
        self.err_code = E_OK
        self.num_threads = 1
        self.thread_min_units = thread_min_units

    def sync_outputs(self):
        """Rebuild the list of rows whose statistics are set (after the stat arrays are loaded)."""
        cdef Py_ssize_t i
        self.n_ended = 0
        for i in range(self.units * self.rows_per_unit):
            if self.stat_mask[i] or self.final_mask[i]:
                self.ended_rows[self.n_ended] = <int32_t>i
                self.n_ended += 1

    def reset(self, const uint8_t[::1] mask):
        """Reset every unit whose mask entry is nonzero, clear its events and write its observations."""
        if mask.shape[0] != self.units:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.units}")
        family_reset(self, mask)

    def observe(self):
        """Rewrite every row's observation from the state (after a state is injected)."""
        family_observe(self)

    def step_i64(self, const int64_t[::1] actions):
        """Step every unit with int64 actions (U * A,); returns rows that ended, or -1 on error."""
        return family_step(self, actions)

    def step_i32(self, const int32_t[::1] actions):
        """Step every unit with int32 actions (U * A,); returns rows that ended, or -1 on error."""
        return family_step(self, actions)


cdef inline void reset_unit(kernel_t self, const uint8_t* mask, Py_ssize_t u) noexcept nogil:
    if mask[u]:
        self.reset_one(u)
        if self.events_on:
            self.event_count[u] = 0
        self.write_obs(u, False)


cdef void reset_units(kernel_t self, const uint8_t[::1] mask):
    cdef Py_ssize_t u, n = self.units
    cdef int nt = self.num_threads
    cdef const uint8_t* m = &mask[0]
    with nogil:
        if use_threads(nt, n, self.thread_min_units):
            with parallel(num_threads=nt):
                for u in prange(n, schedule="static"):
                    reset_unit(self, m, u)
        else:
            for u in range(n):
                reset_unit(self, m, u)


cdef void observe_units(kernel_t self):
    cdef Py_ssize_t u, n = self.units
    cdef int nt = self.num_threads
    with nogil:
        if use_threads(nt, n, self.thread_min_units):
            with parallel(num_threads=nt):
                for u in prange(n, schedule="static"):
                    self.write_obs(u, False)
        else:
            for u in range(n):
                self.write_obs(u, False)


# ---------------------------------------------------------------- the step

cdef Py_ssize_t step_units(kernel_t self, const action_t* actions, Py_ssize_t n,
                           int64_t choices) noexcept nogil:
    # Validate n actions (0 <= action < choices; choices 0: already valid), then step every unit.
    # Returns the rows whose episode ended, or -1 with err_code / err_env set.
    self.err_code = E_OK
    self.err_env = -1
    if n != self.units * self.unit_actions():
        self.err_code = E_BAD_SHAPE
        return -1
    if check_actions(self, actions, n, choices) < 0 or self.begin_step(actions) < 0:
        return -1
    cdef const int32_t* ep = &self.ep_max_steps[0]
    cdef bint mixed = False
    cdef Py_ssize_t u
    for u in range(self.units):
        mixed |= ep[u] != ep[0]  # no early exit: the loop vectorizes
    if self.events_on:
        if mixed:
            return run_units(self, actions, <const EventsOn*>NULL, <const AnyLimits*>NULL)
        return run_units(self, actions, <const EventsOn*>NULL, <const OneLimit*>NULL)
    if mixed:
        return run_units(self, actions, <const EventsOff*>NULL, <const AnyLimits*>NULL)
    return run_units(self, actions, <const EventsOff*>NULL, <const OneLimit*>NULL)


cdef int check_actions(Kernel self, const action_t* actions, Py_ssize_t n, int64_t choices) noexcept nogil:
    # Before any state changes: the lowest action out of range (E_BAD_ACTION), and in DISABLED
    # mode the lowest unit stepped after its episode ended (E_NEEDS_RESET); err_env is a row.
    cdef Py_ssize_t i, bad_at = n, pending_at = self.units
    cdef int A = self.acts_per_unit, R = self.rows_per_unit
    cdef int bad = 0
    if choices > 0:
        # One unsigned compare catches both ends (a negative action wraps to a huge one), and
        # no early exit: the loop vectorizes.
        for i in range(n):
            bad |= <uint64_t><int64_t>actions[i] >= <uint64_t>choices
        if bad:
            for i in range(n):
                if <uint64_t><int64_t>actions[i] >= <uint64_t>choices:
                    bad_at = i
                    break
    if self.autoreset_mode == AR_DISABLED:
        for i in range(self.units):
            if self.needs_reset[i]:
                pending_at = i
                break
    if bad_at < n and (not self.errors_in_env_order or bad_at // A <= pending_at):
        self.err_code = E_BAD_ACTION
        # The row of the bad action: its agent's row, or its unit's only row.
        self.err_env = <int>((bad_at // A) * R + (bad_at % A if R == A else 0))
        return -1
    if pending_at < self.units:
        self.err_code = E_NEEDS_RESET
        self.err_env = <int>(pending_at * R)
        return -1
    return 0


cdef inline Py_ssize_t collect_ended(uint8_t* stat_mask, int32_t* ended, Py_ssize_t rows) noexcept nogil:
    # The rows whose stat_mask is set, in order; 8 mask bytes are tested at once.
    cdef Py_ssize_t i = 0, j, n = 0
    cdef uint64_t word
    while i + 8 <= rows:
        memcpy(&word, stat_mask + i, 8)
        if word:
            for j in range(i, i + 8):
                if stat_mask[j]:
                    ended[n] = <int32_t>j
                    n += 1
        i += 8
    for j in range(i, rows):
        if stat_mask[j]:
            ended[n] = <int32_t>j
            n += 1
    return n


cdef Py_ssize_t run_units(kernel_t self, const action_t* actions, const events_t* tag,
                          const limits_t* limits) noexcept nogil:
    # Apply validated actions to every unit; returns the rows whose episode ended.
    cdef Py_ssize_t k, r, t, lo, hi, units = self.units
    cdef int R = self.unit_rows()
    cdef int nt = self.num_threads
    cdef uint8_t* final_mask = &self.final_mask[0]
    cdef uint8_t* stat_mask = &self.stat_mask[0]
    cdef double* stat_return = &self.stat_return[0]
    cdef int32_t* stat_length = &self.stat_length[0]
    cdef uint8_t* stat_success = &self.stat_success[0] if self.has_success else NULL
    cdef int32_t* ended = &self.ended_rows[0]
    cdef EventBuf evb
    cdef EventBuf* ev = NULL
    # Statistics and final-obs masks are False on rows whose episode did not end (Gymnasium's
    # _add_info): clear only the rows the previous call set.
    for k in range(self.n_ended):
        r = ended[k]
        stat_mask[r] = 0
        stat_return[r] = 0.0
        stat_length[r] = 0
        if stat_success != NULL:
            stat_success[r] = 0
        self.stat_extras(r // R, r, False)
        final_mask[r] = 0
    if events_t is EventsOn:
        ev = &evb
        ev.types = &self.event_type[0, 0]
        ev.payload = &self.event_payload[0, 0, 0]
        ev.count = &self.event_count[0]
        ev.dropped = &self.event_dropped[0]
        ev.units = units
        ev.cap = self.max_events
        ev.nf = self.num_event_fields
        memset(ev.count, 0, ev.units * sizeof(int32_t))  # no unit has events yet
    if use_threads(nt, units, self.thread_min_units):
        # One contiguous span of units per thread; nothing shared is written in a span.
        with parallel(num_threads=nt):
            for t in prange(nt, schedule="static"):
                lo = units * t // nt
                hi = units * (t + 1) // nt
                run_span(self, actions, tag, limits, ev, lo, hi)
    else:
        run_span(self, actions, tag, limits, ev, 0, units)
    self.n_ended = collect_ended(stat_mask, ended, units * R)
    return self.n_ended


@cython.infer_types(True)
cdef inline void run_span(kernel_t self, const action_t* actions, const events_t* tag,
                          const limits_t* limits, EventBuf* ev, Py_ssize_t lo,
                          Py_ssize_t hi) noexcept nogil:
    # Step units lo .. hi - 1 (the whole batch, or one thread's span of it).
    # Shared arrays are read through local pointers: a store through a uint8 pointer may alias
    # anything, and would otherwise force every memoryview to be reloaded for each unit.
    cdef Py_ssize_t u, r, r0
    cdef int R = self.unit_rows()
    cdef int mode = self.autoreset_mode
    cdef bint term, trunc
    cdef float rew
    cdef double ret
    cdef int32_t length
    cdef int64_t* episode = &self.episode[0]
    cdef double* ep_return = &self.ep_return[0]
    cdef uint8_t* needs_reset = &self.needs_reset[0]
    cdef const int32_t* ep_max_steps = &self.ep_max_steps[0]
    cdef float* rewards = &self.rewards[0]
    cdef uint8_t* terminated = &self.terminated[0]
    cdef uint8_t* truncated = &self.truncated[0]
    cdef uint8_t* final_mask = &self.final_mask[0]
    cdef uint8_t* stat_mask = &self.stat_mask[0]
    cdef double* stat_return = &self.stat_return[0]
    cdef int32_t* stat_length = &self.stat_length[0]
    cdef uint8_t* stat_success = &self.stat_success[0] if self.has_success else NULL
    cdef int32_t limit, one_limit = ep_max_steps[0]
    ctx = self.step_context()  # the family's step context struct (type inferred per family)
    for u in range(lo, hi):
        r0 = u * R
        if needs_reset[u] and mode == AR_NEXT_STEP:
            # The actions are ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            episode[u] += 1
            self.reset_one(u)
            for r in range(r0, r0 + R):
                rewards[r] = 0.0
                terminated[r] = 0
                truncated[r] = 0
            self.write_obs(u, False)
            continue
        # The limit is loaded before the step's byte stores, which may alias it.
        if limits_t is OneLimit:
            limit = one_limit
        else:
            limit = ep_max_steps[u]
        term = self.step_one(&ctx, u, actions, ev, limit, &rew, &trunc)
        ep_return[u] += rew
        for r in range(r0, r0 + R):
            rewards[r] = rew
            terminated[r] = term
            truncated[r] = trunc
        if (term | trunc) and mode != AR_CONTINUE:
            ret = ep_return[u]
            length = self.ep_length(u)
            for r in range(r0, r0 + R):
                stat_mask[r] = 1
                stat_return[r] = ret
                stat_length[r] = length
                if stat_success != NULL:
                    stat_success[r] = term
                self.stat_extras(u, r, True)
            if mode == AR_SAME_STEP:
                self.write_obs(u, True)
                for r in range(r0, r0 + R):
                    final_mask[r] = 1
                episode[u] += 1
                self.reset_one(u)
                self.write_obs(u, False)
                continue
            needs_reset[u] = 1
        self.observe_step(&ctx, u)
