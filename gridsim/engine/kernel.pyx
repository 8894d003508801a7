# Compiler directives come only from setup.py (see gridsim/_core.pyx).
"""The base of every family's kernel: shared arrays, the Python entry points, the entry hooks' defaults.

The contract (fields, hooks, error codes, event buffers) is declared in ``kernel.pxd``; each
family's kernel (``gridsim/<family>/_kernel.pyx``) subclasses :class:`Kernel`, and the step
skeleton (``_skeleton.pxi``) specialised on the family points its entry hooks at its loops. The
Python entry points below make one hook call (through a function pointer) per batch call,
nothing per env.
"""

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t

import numpy as np

cdef extern from "_pool.h" nogil:
    int gridsim_parallel_for(int nt, Py_ssize_t n, Py_ssize_t chunk, chunk_fn fn, void* arg)
    int gridsim_pool_workers()
    void gridsim_pool_set_spin(long ns)
    long gridsim_pool_spin()
    int gridsim_pool_adaptive(int on)

# KernelFields' binding (generated from gridsim.engine.fields).
include "_kernel_fields_impl.pxi"

# Batches of fewer actions step with the GIL held: releasing and retaking it costs about
# 0.1 us a call, a quarter of a 64-env navigation step. Larger batches (and any call that
# runs on threads) release it, so other Python threads run during the step.
cdef enum:
    NOGIL_MIN_ACTIONS = 16384

ctypedef fused discrete_t:
    int32_t
    int64_t


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


cdef int parallel_for(int nt, Py_ssize_t n, Py_ssize_t chunk, chunk_fn fn, void* arg) noexcept nogil:
    return gridsim_parallel_for(nt, n, chunk, fn, arg)


def pool_workers():
    """The worker threads the pool has started in this process (0 before any threaded call, and in a fresh fork)."""
    return gridsim_pool_workers()


def pool_spin_us(us=None):
    """How long (microseconds) pool threads spin before sleeping: the last value, after setting ``us`` when given.

    A worker spins that long for the next call before it sleeps, and a call spins that long
    for chunks other threads still run before it sleeps too. While calls come back to back
    (the gaps between them under five times this), workers spin for twice the gap instead,
    so that the next call finds them awake; calls further apart than that (a policy or a
    learner running between them) get this spin alone. Benchmarks vary it; 0 never spins.
    """
    if us is not None:
        if not 0 <= us <= 1_000_000:
            from gridsim.errors import InvalidArgumentError
            raise InvalidArgumentError(f"spin must be 0 to 1,000,000 us, got {us!r}")
        gridsim_pool_set_spin(<long>(us * 1000))
    return gridsim_pool_spin() / 1000.0


def pool_adaptive(on=None):
    """Whether a threaded call that lost to one thread makes the next calls serial: the setting, after setting ``on``.

    On by default: on a machine busy with other work, a call whose workers were descheduled
    holding chunks took longer than one thread would have; the next 1, 2, 4, ... 256 calls
    (while calls keep losing) then run on the calling thread alone. Benchmarks switch it off
    to compare. Results never depend on it.
    """
    if on is not None:
        gridsim_pool_adaptive(1 if on else 0)
    return bool(gridsim_pool_adaptive(-1))


cdef Py_ssize_t step_call(Kernel self, const discrete_t[::1] actions):
    # One step hook call; the GIL is released for large batches and threaded loops.
    cdef const discrete_t* a = &actions[0] if actions.shape[0] > 0 else NULL
    cdef Py_ssize_t n = actions.shape[0]
    if n < NOGIL_MIN_ACTIONS and not use_threads(self.num_threads, self.units, self.thread_min_units):
        if discrete_t is int64_t:
            return self.entry.step_i64(<void*>self, a, n)
        else:
            return self.entry.step_i32(<void*>self, a, n)
    with nogil:
        if discrete_t is int64_t:
            return self.entry.step_i64(<void*>self, a, n)
        else:
            return self.entry.step_i32(<void*>self, a, n)


# ---- the entry hooks of a kernel never bound: an internal error, never a crash ----

cdef int unbound(void* kernel) noexcept nogil:
    (<Kernel>kernel).err_code = E_INTERNAL
    (<Kernel>kernel).err_env = -1
    return -1


cdef int unbound_masked(void* kernel, const uint8_t* mask) noexcept nogil:
    return unbound(kernel)


cdef Py_ssize_t unbound_step_i64(void* kernel, const int64_t* actions, Py_ssize_t n) noexcept nogil:
    return unbound(kernel)


cdef Py_ssize_t unbound_step_i32(void* kernel, const int32_t* actions, Py_ssize_t n) noexcept nogil:
    return unbound(kernel)


cdef void unbound_chunk(void* kernel, UnitJob* job, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    # Never called: only the loops of a bound kernel run chunks, and binding sets every hook.
    pass


cdef kernel_error(Kernel self, str call):
    # The exception of an entry point whose hook failed (reset and observe have no error path
    # of their own: their only error is a kernel that does not implement them).
    from gridsim.errors import KernelError
    detail = " (the kernel does not implement this entry point)" if self.err_code == E_INTERNAL else ""
    return KernelError(f"{type(self).__name__}.{call}: kernel error code {self.err_code}{detail}",
                       env=self.err_env, code=self.err_code)


cdef class Kernel:
    """What every family's kernel shares: autoreset mode, episode bookkeeping, outputs, events, errors.

    A kernel of no family (this class, or a subclass whose construction does not call the
    skeleton's ``bind_kernel``) binds nothing; its entry points fail with ``E_INTERNAL``.
    """

    def __cinit__(self):
        self.entry.reset = unbound_masked
        self.entry.observe = unbound_masked
        self.entry.step_i64 = unbound_step_i64
        self.entry.step_i32 = unbound_step_i32
        self.entry.chunk = unbound_chunk

    def __reduce__(self):
        # A kernel holds typed views of its env's arrays; an automatic pickle would rebuild one
        # with nothing bound (a crash at the next call). Envs pickle themselves from their state.
        raise TypeError(f"cannot pickle {type(self).__name__!r} object: pickle or copy the env "
                        "instead (it is rebuilt from its constructor arguments and state_dict())")

    cdef bind_shared(self, state, Py_ssize_t units, int rows_per_unit, int acts_per_unit,
                     int64_t num_choices, int thread_min_units, bint stream):
        # Bind the shared arrays of a family's state (the generated views, and the rewards).
        # thread_min_units: the smallest batch whose loops run on threads (the family's figure);
        # stream: the family's episodes draw from the per-unit stream (key, rng and reseed).
        self.units = units
        self.rows_per_unit = rows_per_unit
        self.acts_per_unit = acts_per_unit
        self.num_choices = num_choices
        self.final_rows = len(state.final_obs)
        self.autoreset_mode = state.autoreset_mode  # checked against final_rows
        self.has_stream = stream
        self.events_on = state.events_on
        self.max_events = state.max_events
        self.num_event_fields = state.num_event_fields
        self.bind_shared_fields(state)
        _check_event_buffers(state, units)
        if state.rewards.dtype == np.float64:  # the family's REWARD_DTYPE (its kernel's reward_t)
            self.rewards_f64 = state.rewards
        else:
            self.rewards = state.rewards
        self.has_success = hasattr(state, "stat_success")
        self.sync_outputs()
        self.err_env = -1
        self.err_code = E_OK
        self.num_threads = 1
        self.thread_min_units = thread_min_units

    @property
    def autoreset_mode(self):
        """The kernel's autoreset code (``gridsim._core.AUTORESET_*``), read at every step call.

        Writable (``advance()`` steps with DISABLED and restores the mode), but SAME_STEP only
        when the state's ``final_obs`` has a row for every row: only that mode writes final
        observations, and a state built for another allocates none.
        """
        return self.autoreset_code

    @autoreset_mode.setter
    def autoreset_mode(self, int mode):
        from gridsim.errors import InvalidArgumentError
        if mode not in (AR_NEXT_STEP, AR_SAME_STEP, AR_DISABLED, AR_CONTINUE):
            raise InvalidArgumentError(f"unknown autoreset code {mode}")
        if mode == AR_SAME_STEP and self.final_rows != self.units * self.rows_per_unit:
            raise InvalidArgumentError(f"SAME_STEP writes final observations, and this kernel's state has rows for "
                             f"{self.final_rows} of them, not {self.units * self.rows_per_unit}: build the env "
                             "with autoreset_mode=SAME_STEP")
        self.autoreset_code = mode

    # ---- Python entry points ----

    def bind_obs(self, obs):
        """Write observations into ``obs`` ``(rows, *obs_shape)`` from now on (every row is rewritten each step)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement bind_obs")

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
        cdef const uint8_t* m = &mask[0] if mask.shape[0] > 0 else NULL
        cdef int rc
        if mask.shape[0] != self.units:
            raise ValueError(f"reset mask has length {mask.shape[0]}, expected {self.units}")
        with nogil:
            rc = self.entry.reset(<void*>self, m)
        if rc < 0:
            raise kernel_error(self, "reset")

    def observe(self, const uint8_t[::1] mask=None):
        """Rewrite observations from the state (after a state is injected): every unit's, or those whose ``mask`` is nonzero.

        ``mask`` (U,) uint8: the units that hold a world; a unit never given one is no place to
        observe from (its fields hold their initial fill, which no family's observation reads
        safely), so its rows keep what they hold.
        """
        cdef const uint8_t* m = NULL
        cdef int rc
        if mask is not None:
            if mask.shape[0] != self.units:
                raise ValueError(f"observe mask has length {mask.shape[0]}, expected {self.units}")
            m = &mask[0] if mask.shape[0] > 0 else NULL
        with nogil:
            rc = self.entry.observe(<void*>self, m)
        if rc < 0:
            raise kernel_error(self, "observe")

    def step_i64(self, const int64_t[::1] actions):
        """Step every unit with int64 actions (U * A,); returns rows that ended, or -1 on error."""
        return step_call(self, actions)

    def step_i32(self, const int32_t[::1] actions):
        """Step every unit with int32 actions (U * A,); returns rows that ended, or -1 on error."""
        return step_call(self, actions)
