# Included by each family's module (gridsim/<family>/_kernel.pyx): the batch step skeleton every
# family's kernel runs, specialised on that family's kernel class.
#
# A batch is U units (worlds: an env, or a kitchen) of R output rows each (1, or a kitchen's
# agents) taking A actions each. Everything a step call does around the rules is written
# here once: validating actions before any state changes, clearing the rows the previous
# call ended, the event buffers, the autoreset modes, rewards and flags, episode statistics,
# final observations and the list of ended rows. A family's kernel is a @cython.final
# subclass of Kernel (gridsim/engine/kernel.pxd) supplying the per-unit hooks the loop calls:
#
#   unit_rows() / unit_actions()   R and A (inline constants where they are fixed)
#   begin_step(actions) -> 0 / -1  once per call, after validation (nav's debug bounds check)
#   step_context() -> ctx          once per call: a struct of what the loop reads (raw pointers,
#                                  options), kept in the loop's frame so it stays in registers
#   step_one(&ctx, u, actions, ev, limit, &reward, &truncated) -> terminated   one step of
#                                  unit u's rules (its actions: actions[u * A:(u + 1) * A]); events go to ev (NULL with events off); limit: the
#                                  episode's ep_max_steps value (0 = none), read per family
#   reset_one(u)                   place unit u's world for its next episode (drawing from
#                                  rng[u]); the bookkeeping around it is the skeleton's
#                                  (start_episode)
#   write_obs(u, final)            all R observation rows of unit u (or its final ones)
#   observe_step(&ctx, u)          the observation after a step that did not reset
#   ep_length(u)                   the episode's length for stat_length
#   stat_extras(u, row, set)       family statistics beyond return / length / success
#
# The kernel's __init__ calls bind_kernel (below) once: it binds the family's generated field
# views (FieldViews.bind_fields), the shared ones (Kernel.bind_shared), and points Kernel's entry
# hooks at the loops below (reset: reset_units, observe: observe_units, step_i64 / step_i32:
# step_units, chunk: run_job), compiled for the family's class. The including module declares,
# before the include, the single-member fused type
#
#   ctypedef fused kernel_t:
#       <the family's kernel class>
#
# so that every loop here is compiled for that one final class: hook calls are direct and
# inline. It also declares the C type of its rewards, ``ctypedef float reward_t`` (the
# state's float32 rewards) or ``ctypedef double reward_t`` (float64: its state's
# REWARD_DTYPE), which step_one's reward output has. The loop is also specialised on the action dtype and events on/off, so with
# events off no event code is left. No field shared between units is written inside the
# per-unit loop (the ended rows are collected after it; errors are found before it), so the
# loop over units runs on threads: with the kernel's num_threads > 1 and at least its
# thread_min_units units, the loop hands the units to the worker pool (parallel_for,
# gridsim/engine/_pool.h) in chunks of chunk_units units, which the calling thread and up to
# num_threads - 1 workers claim one at a time; each chunk comes back through the kernel's
# chunk hook (bind_kernel points it at run_job below) and runs run_span over its
# units, taking its own step context there (a family may keep per-unit scratch in it: nav
# keeps the agent's cell for observe_step). Otherwise run_span runs once over every unit, as
# it did before threads. The reset and observe loops run on threads the same way, and so do
# the scans before a step (every action in range, whether episode limits differ), which
# write nothing but the job's two flags. Every
# unit's result depends only on its own state and actions, so results are bit-identical for
# every thread count and every chunking.

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from gridsim.engine._rng cimport TAG_EPISODE, stream_seed
from gridsim.engine.kernel cimport (
    AR_CONTINUE, AR_DISABLED, AR_NEXT_STEP, AR_SAME_STEP, E_BAD_ACTION, E_BAD_SHAPE, E_INTERNAL, E_NEEDS_RESET,
    ALL_VALID, E_OK, JOB_OBSERVE, JOB_RESET, JOB_SCAN, JOB_STEP, EventBuf, Kernel, UnitJob, chunk_hook, chunk_units,
    observe_hook, parallel_for, reset_hook, step_i32_hook, step_i64_hook, use_threads,
)

cdef extern from *:
    """
    #define gridsim_and_u64(p, v) ((void)__atomic_fetch_and((p), (v), __ATOMIC_RELAXED))
    #define gridsim_or_int(p, v) ((void)__atomic_fetch_or((p), (v), __ATOMIC_RELAXED))
    """
    # A threaded scan's chunks combine their results (published by the end of the job).
    void gridsim_and_u64(uint64_t* p, uint64_t v) noexcept nogil
    void gridsim_or_int(int* p, int v) noexcept nogil


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


cdef void start_episode(kernel_t self, Py_ssize_t u) noexcept nogil:
    # Start unit u's episode episode[u]: the engine's bookkeeping around the family's reset_one,
    # which only places the world. Used by Python resets and by both autoreset modes. Not
    # inline: it runs once per episode, and inlined twice into run_span it made gcc's code for
    # the step itself worse (callgrind: 0.6% more instructions a nav image step, 2% roboman).
    cdef int64_t m = self.max_steps
    if self.has_stream:
        # The episode's stream depends on the unit's key and episode counter alone.
        self.rng[u] = stream_seed(self.key[u, 0], self.key[u, 1], TAG_EPISODE, <uint64_t>self.episode[u])
    # int32 holds every limit an episode can reach; larger ones (and 0 or less) never truncate.
    # Set first: a family whose episodes each set their own limit writes it in reset_one.
    self.ep_max_steps[u] = <int32_t>m if 0 < m <= 0x7FFFFFFF else 0
    self.reset_one(u)
    if self.has_stream:
        self.reseed[u] = 0  # reset_one drew the family's per-key tables, if it has any
    self.ep_return[u] = 0.0
    self.needs_reset[u] = 0


cdef inline void reset_unit(kernel_t self, const uint8_t* mask, Py_ssize_t u) noexcept nogil:
    if mask[u]:
        start_episode(self, u)
        if self.events_on:
            self.event_count[u] = 0
        self.write_obs(u, False)


# ---------------------------------------------------------------- threads

cdef void kernel_job(void* arg, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # What the pool runs for each chunk: the job's kernel's chunk hook (one indirect call).
    cdef UnitJob* job = <UnitJob*>arg
    (<Kernel>job.kernel).entry.chunk(job.kernel, job, lo, hi)


cdef void run_threaded(kernel_t self, UnitJob* job) noexcept nogil:
    # Run a job over every unit on the kernel's threads (bind_kernel set the chunk hook with the
    # others, so a kernel whose loops run has it).
    job.kernel = <void*>self
    parallel_for(self.num_threads, self.units, chunk_units(self.units, self.num_threads, self.thread_min_units),
                 kernel_job, job)


cdef void run_job(kernel_t self, UnitJob* job, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # Units lo .. hi - 1 of a threaded loop: the kernel's chunk hook.
    cdef Py_ssize_t u
    cdef int v = job.variant
    if job.kind == JOB_SCAN:
        scan_chunk(self, job, lo, hi)
    elif job.kind == JOB_RESET:
        for u in range(lo, hi):
            reset_unit(self, job.mask, u)
    elif job.kind == JOB_OBSERVE:
        for u in range(lo, hi):
            if job.mask == NULL or job.mask[u]:
                self.write_obs(u, False)
    elif v == 0:
        step_span(self, <const int8_t*>job.actions, <const EventsOff*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    elif v == 1:
        step_span(self, <const int8_t*>job.actions, <const EventsOff*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)
    elif v == 2:
        step_span(self, <const int8_t*>job.actions, <const EventsOn*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    elif v == 3:
        step_span(self, <const int8_t*>job.actions, <const EventsOn*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)
    elif v == 4:
        step_span(self, <const int32_t*>job.actions, <const EventsOff*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    elif v == 5:
        step_span(self, <const int32_t*>job.actions, <const EventsOff*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)
    elif v == 6:
        step_span(self, <const int32_t*>job.actions, <const EventsOn*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    elif v == 7:
        step_span(self, <const int32_t*>job.actions, <const EventsOn*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)
    elif v == 8:
        step_span(self, <const int64_t*>job.actions, <const EventsOff*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    elif v == 9:
        step_span(self, <const int64_t*>job.actions, <const EventsOff*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)
    elif v == 10:
        step_span(self, <const int64_t*>job.actions, <const EventsOn*>NULL, <const OneLimit*>NULL, job.ev, lo, hi)
    else:
        step_span(self, <const int64_t*>job.actions, <const EventsOn*>NULL, <const AnyLimits*>NULL, job.ev, lo, hi)


cdef void scan_chunk(kernel_t self, UnitJob* job, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # One chunk of the threaded checks before a step: its units' actions and episode limits.
    cdef Py_ssize_t A = self.unit_actions()
    cdef uint64_t valid = ALL_VALID
    if job.choices > 0:
        # The action dtype, as step_variant numbers it (int8 0, int32 4, int64 8).
        if job.variant == 0:
            valid = valid_bits(<const int8_t*>job.actions, lo * A, hi * A, job.choices)
        elif job.variant == 4:
            valid = valid_bits(<const int32_t*>job.actions, lo * A, hi * A, job.choices)
        else:
            valid = valid_bits(<const int64_t*>job.actions, lo * A, hi * A, job.choices)
        if not valid:
            gridsim_and_u64(&job.valid, 0)
    if limits_differ(&self.ep_max_steps[0], lo, hi):
        gridsim_or_int(&job.mixed, 1)


cdef void step_span(kernel_t self, const action_t* actions, const events_t* tag, const limits_t* limits,
                    EventBuf* ev, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # One chunk of a threaded step (not inline: the serial loop keeps its own inlined copy).
    run_span(self, actions, tag, limits, ev, lo, hi)


cdef inline int step_variant(const action_t* actions, const events_t* tag, const limits_t* limits) noexcept nogil:
    # The specialisation's number in run_job (compile-time constants).
    cdef int v = 0
    if action_t is int32_t:
        v = 4
    elif action_t is int64_t:
        v = 8
    if events_t is EventsOn:
        v += 2
    if limits_t is AnyLimits:
        v += 1
    return v


cdef int reset_units(kernel_t self, const uint8_t* mask) noexcept nogil:
    # Reset every unit u with mask[u] nonzero (mask: (U,)).
    cdef Py_ssize_t u, n = self.units
    cdef UnitJob job
    if use_threads(self.num_threads, n, self.thread_min_units):
        job.kind = JOB_RESET
        job.mask = mask
        run_threaded(self, &job)
        return 0
    for u in range(n):
        reset_unit(self, mask, u)
    return 0


cdef int observe_units(kernel_t self, const uint8_t* mask) noexcept nogil:
    # Rewrite the observation rows of every unit u with mask[u] nonzero (mask NULL: every unit).
    cdef Py_ssize_t u, n = self.units
    cdef UnitJob job
    if use_threads(self.num_threads, n, self.thread_min_units):
        job.kind = JOB_OBSERVE
        job.mask = mask
        run_threaded(self, &job)
        return 0
    for u in range(n):
        if mask == NULL or mask[u]:
            self.write_obs(u, False)
    return 0


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
    cdef UnitJob job
    cdef bint valid, mixed
    if use_threads(self.num_threads, self.units, self.thread_min_units):
        # The scans read every action and limit once, before anything changes: serially they
        # were a fifth of a navigation step's call, so they run on the threads too.
        job.kind = JOB_SCAN
        job.variant = step_variant(actions, <const EventsOff*>NULL, <const OneLimit*>NULL)
        job.actions = <const void*>actions
        job.choices = choices
        job.valid = ALL_VALID
        job.mixed = 0
        run_threaded(self, &job)
        valid = job.valid != 0
        mixed = job.mixed != 0
    else:
        valid = choices <= 0 or valid_bits(actions, 0, n, choices) != 0
        mixed = limits_differ(&self.ep_max_steps[0], 0, self.units)
    if check_actions(self, actions, n, choices, valid) < 0 or self.begin_step(actions) < 0:
        return -1
    if self.events_on:
        if mixed:
            return run_units(self, actions, <const EventsOn*>NULL, <const AnyLimits*>NULL)
        return run_units(self, actions, <const EventsOn*>NULL, <const OneLimit*>NULL)
    if mixed:
        return run_units(self, actions, <const EventsOff*>NULL, <const AnyLimits*>NULL)
    return run_units(self, actions, <const EventsOff*>NULL, <const OneLimit*>NULL)


cdef inline uint64_t valid_bits(const action_t* actions, Py_ssize_t lo, Py_ssize_t hi,
                                int64_t choices) noexcept nogil:
    # ALL_VALID when every action in lo .. hi - 1 is in 0 .. choices - 1 (choices > 0), else 0.
    # An action is valid when its sign bit is clear and action - choices wraps below zero, so
    # the top bit of ~x & (x - c) is set exactly for valid ones: ANDed over the span with no
    # compare and no early exit, which vectorizes even on baseline SSE2 (a 64-bit compare does
    # not).
    cdef Py_ssize_t i
    cdef uint64_t x, c = <uint64_t>choices, valid = ALL_VALID
    for i in range(lo, hi):
        x = <uint64_t><int64_t>actions[i]
        valid &= ~x & (x - c)
    return valid


cdef inline bint limits_differ(const int32_t* ep, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # Whether any unit in lo .. hi - 1 has another episode limit than unit 0 (the step loop is
    # specialised for one limit).
    cdef Py_ssize_t u
    cdef bint mixed = False
    for u in range(lo, hi):
        mixed |= ep[u] != ep[0]  # no early exit: the loop vectorizes
    return mixed


cdef int check_actions(Kernel self, const action_t* actions, Py_ssize_t n, int64_t choices, bint valid) noexcept nogil:
    # Before any state changes: the lowest action out of range (E_BAD_ACTION), and in DISABLED
    # mode the lowest unit stepped after its episode ended (E_NEEDS_RESET); err_env is a row.
    # valid: whether the scan found every action in range (True when choices <= 0: unchecked).
    cdef Py_ssize_t i, bad_at = n, pending_at = self.units
    cdef int A = self.acts_per_unit, R = self.rows_per_unit
    if not valid:
        for i in range(n):
            if <uint64_t><int64_t>actions[i] >= <uint64_t>choices:
                bad_at = i
                break
    if self.autoreset_code == AR_DISABLED:
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
    cdef Py_ssize_t k, r, units = self.units
    cdef int R = self.unit_rows()
    cdef UnitJob job
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
    if use_threads(self.num_threads, units, self.thread_min_units):
        # Chunks of units on the pool's threads; nothing shared is written in a chunk.
        job.kind = JOB_STEP
        job.variant = step_variant(actions, tag, limits)
        job.actions = <const void*>actions
        job.ev = ev
        run_threaded(self, &job)
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
    cdef int mode = self.autoreset_code
    cdef bint term, trunc
    cdef reward_t rew
    cdef double ret
    cdef int32_t length
    cdef int64_t* episode = &self.episode[0]
    cdef double* ep_return = &self.ep_return[0]
    cdef uint8_t* needs_reset = &self.needs_reset[0]
    cdef const int32_t* ep_max_steps = &self.ep_max_steps[0]
    cdef reward_t* rewards
    cdef uint8_t* terminated = &self.terminated[0]
    cdef uint8_t* truncated = &self.truncated[0]
    cdef uint8_t* final_mask = &self.final_mask[0]
    cdef uint8_t* stat_mask = &self.stat_mask[0]
    cdef double* stat_return = &self.stat_return[0]
    cdef int32_t* stat_length = &self.stat_length[0]
    cdef uint8_t* stat_success = &self.stat_success[0] if self.has_success else NULL
    cdef int32_t limit, one_limit = ep_max_steps[0]
    if sizeof(reward_t) == sizeof(double):  # a compile-time constant: one branch is left
        rewards = <reward_t*>&self.rewards_f64[0]
    else:
        rewards = <reward_t*>&self.rewards[0]
    ctx = self.step_context()  # the family's step context struct (type inferred per family)
    for u in range(lo, hi):
        r0 = u * R
        if needs_reset[u] and mode == AR_NEXT_STEP:
            # The actions are ignored: this call starts the next episode (Gymnasium NEXT_STEP).
            episode[u] += 1
            start_episode(self, u)
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
                start_episode(self, u)
                self.write_obs(u, False)
                continue
            needs_reset[u] = 1
        self.observe_step(&ctx, u)


# ---------------------------------------------------------------- binding

cdef Py_ssize_t step_i64_entry(kernel_t self, const int64_t* actions, Py_ssize_t n) noexcept nogil:
    return step_units(self, actions, n, self.num_choices)


cdef Py_ssize_t step_i32_entry(kernel_t self, const int32_t* actions, Py_ssize_t n) noexcept nogil:
    return step_units(self, actions, n, self.num_choices)


cdef bind_kernel(kernel_t self, state, Py_ssize_t units, int rows_per_unit, int acts_per_unit,
                 int64_t num_choices, int thread_min_units, bint stream):
    # Bind a family's kernel to its state: the family's field views (generated), the shared ones
    # (Kernel.bind_shared: the arguments are its), and the entry hooks, which the Python entry
    # points call: this module's loops, compiled for this family's class.
    self.bind_fields(state)
    self.bind_shared(state, units, rows_per_unit, acts_per_unit, num_choices, thread_min_units, stream)
    self.entry.reset = <reset_hook>reset_units[kernel_t]
    self.entry.observe = <observe_hook>observe_units[kernel_t]
    self.entry.step_i64 = <step_i64_hook>step_i64_entry[kernel_t]
    self.entry.step_i32 = <step_i32_hook>step_i32_entry[kernel_t]
    self.entry.chunk = <chunk_hook>run_job[kernel_t]
