# cython: language_level=3
"""The contract every family's kernel meets, declared once (as sklearn/tree/_criterion.pxd declares Criterion).

``Kernel`` holds the fields every family shares (batch shape, episode bookkeeping, event
buffers, step outputs, errors) and the table of entry hooks the Python entry points call, once
per batch call: ``reset``, ``observe``, ``step_i64``, ``step_i32``, and ``chunk``, through which
the worker pool's threads run a chunk of a threaded loop. Their defaults (``kernel.pyx``)
report ``E_INTERNAL``: a kernel that was never bound fails with an error code, never by running
another family's loop.

The shared fields' typed views are not declared here but generated from their table
(``gridsim.engine.fields``) into ``KernelFields``, the base of ``Kernel``
(``_kernel_fields.pxi``, written by ``gridsim/engine/codegen.py`` at build time).

A family's kernel is a ``@cython.final`` subclass of its generated ``FieldViews`` (the typed
views of its own field table, ``gridsim/<family>/_fields.pxi``), itself a ``Kernel``, in its own
extension module, ``gridsim/<family>/_kernel.pyx``. That module includes the step skeleton
(``gridsim/engine/_skeleton.pxi``), specialised on its one kernel class through a
single-member fused type ``kernel_t``; the skeleton's ``bind_kernel`` binds the fields and
points the entry hooks at the skeleton's loops compiled for that class, whose calls of the
family's per-unit hooks (``reset_one``, ``step_one``, ``write_obs``, ...; the skeleton's header
lists them) are then direct and inlined.

Family-specific enums (nav's tile flags, roboman's record layout, kitchen tile kinds, each
family's event ids) live in the family's module.
"""

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef extern from *:
    int GRIDSIM_DEBUG  # set by setup.py: 1 when built with GRIDSIM_CYTHON_DEBUG=1
    int GRIDSIM_THREADS  # set by setup.py: 1 when built with the worker pool (POSIX threads)
    int GRIDSIM_SANITIZE  # set by setup.py: 1 when built with GRIDSIM_SANITIZE=1

# Error codes the kernel reports instead of raising inside nogil.
cdef enum:
    E_OK = 0
    E_BAD_ACTION = 1    # discrete action out of range
    E_NAN_ACTION = 2    # NaN in a continuous action (nan_action="error")
    E_NEEDS_RESET = 3   # DISABLED mode: stepping an env that ended without a reset
    E_BAD_SHAPE = 4     # action array of the wrong length
    E_INTERNAL = 5      # a kernel bug: an index escaped its array (debug builds), or an entry hook
                        # the kernel does not implement

# Autoreset modes; CONTINUE is the single-env view's (no reset, no error, no statistics).
cdef enum:
    AR_NEXT_STEP = 0
    AR_SAME_STEP = 1
    AR_DISABLED = 2
    AR_CONTINUE = 3


# Raw pointers into a batch's event buffers (gridsim.engine.state.alloc_event_buffers), bound by a
# step call (a local: a pointer member would make the kernels unpicklable); U worlds (envs, or
# kitchens), E slots per world and step, F int32 fields per event.
cdef struct EventBuf:
    int16_t* types       # (U, E) 1-based index into the family's event specs
    int32_t* payload     # (U, E, F) fields, unused ones -1
    int32_t* count       # (U,) events recorded in the world's last step
    int64_t* dropped     # (U,) events lost to overflow, cumulative
    Py_ssize_t units     # U
    int cap              # E >= 1
    int nf               # F in 1..4


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


cdef inline bint use_threads(int nt, Py_ssize_t units, int min_units) noexcept nogil:
    # Whether a loop over `units` units runs on nt threads. Smaller batches than min_units (the
    # family's: where 2 threads measured no faster than 1) run on one thread whatever nt says.
    return GRIDSIM_THREADS != 0 and nt > 1 and units >= min_units


cdef inline Py_ssize_t chunk_units(Py_ssize_t units, int nt, int min_units) noexcept nogil:
    # Units per chunk of a threaded loop: about 16 chunks per thread, so that the last chunk a
    # slow (descheduled) thread holds is a small part of the call, and no fewer units than a
    # sixteenth of the family's threshold, so that claiming a chunk stays a small part of it.
    cdef Py_ssize_t per = 16 * <Py_ssize_t>nt
    cdef Py_ssize_t c = (units + per - 1) // per
    cdef Py_ssize_t least = min_units // 16
    if c < least:
        c = least
    return c if c > 0 else 1


# The worker pool (gridsim/engine/_pool.h, one per process, in gridsim.engine.kernel): fn(arg,
# lo, hi) over [0, n) in chunks of `chunk` on up to nt threads, the caller included; returns
# the threads it was offered to (1: the caller alone). Which thread runs a chunk never
# changes its result. Without threads in the build, the caller runs everything.
ctypedef void (*chunk_fn)(void* arg, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
cdef int parallel_for(int nt, Py_ssize_t n, Py_ssize_t chunk, chunk_fn fn, void* arg) noexcept nogil

# What a threaded loop over units runs (the skeleton fills it in; Kernel.run_chunk reads it).
cdef enum:
    JOB_RESET = 0       # reset_unit over the chunk (mask)
    JOB_OBSERVE = 1     # write_obs over the chunk (mask; NULL: every unit)
    JOB_STEP = 2        # step the chunk (actions, ev; variant: the step loop's specialisation)
    JOB_SCAN = 3        # the checks before a step: actions in range, episode limits that differ

# UnitJob.valid starts as this bit alone; a chunk with an action out of range clears it.
cdef extern from *:
    """
    #define GRIDSIM_ALL_VALID ((uint64_t)1 << 63)
    """
    uint64_t ALL_VALID "GRIDSIM_ALL_VALID"

cdef struct UnitJob:
    void* kernel             # the Kernel (borrowed: the entry point's caller holds it)
    int kind                 # JOB_*
    int variant              # JOB_STEP: action dtype * 4 + events on * 2 + mixed limits; JOB_SCAN: dtype * 4
    const void* actions      # JOB_STEP: the validated actions (or nav's move codes); JOB_SCAN: the actions
    int64_t choices          # JOB_SCAN: actions must be below this (0: not checked)
    uint64_t valid           # JOB_SCAN: ALL_VALID while every action scanned is in range (atomic AND)
    int mixed                # JOB_SCAN: 1 once two units' episode limits differ (atomic OR)
    const uint8_t* mask      # JOB_RESET: (U,) units to reset; JOB_OBSERVE: units to observe (NULL: all)
    EventBuf* ev             # JOB_STEP: the event buffers (NULL with events off)


# The entry hooks: one call per batch call, each given the kernel itself. Each returns -1 with
# err_code (and err_env) set on error.
# reset every unit u with mask[u] nonzero (mask: (U,)): its next episode, events cleared, observations
ctypedef int (*reset_hook)(void* kernel, const uint8_t* mask) noexcept nogil
# rewrite from the state the observation rows of every unit u with mask[u] nonzero (mask: (U,);
# NULL: every unit). A unit that was never given a world is not a place to observe from.
ctypedef int (*observe_hook)(void* kernel, const uint8_t* mask) noexcept nogil
# validate n actions (U * A expected), then step every unit: the rows whose episode ended, or -1
ctypedef Py_ssize_t (*step_i64_hook)(void* kernel, const int64_t* actions, Py_ssize_t n) noexcept nogil
ctypedef Py_ssize_t (*step_i32_hook)(void* kernel, const int32_t* actions, Py_ssize_t n) noexcept nogil
# the units lo .. hi - 1 of a threaded loop (job: what the loop does), on any thread
ctypedef void (*chunk_hook)(void* kernel, UnitJob* job, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

cdef struct EntryHooks:
    reset_hook reset
    observe_hook observe
    step_i64_hook step_i64
    step_i32_hook step_i32
    chunk_hook chunk


# KernelFields: the typed views of the shared fields (generated from gridsim.engine.fields).
include "_kernel_fields.pxi"


cdef class Kernel(KernelFields):
    """What every family's kernel shares: autoreset mode, episode bookkeeping, outputs, events, errors."""

    cdef int autoreset_code              # the AR_* mode, read at every step call; Python reads and
                                         # writes it as autoreset_mode, which refuses SAME_STEP
                                         # unless final_rows covers every row (advance() switches
                                         # it to DISABLED and back)
    cdef readonly Py_ssize_t final_rows  # rows of the state's final_obs: U * R under SAME_STEP, else 0
    cdef public int num_threads          # threads of the loops over units, read at every call (1: none)
    cdef public int thread_min_units     # smaller batches run on one thread (the family's default)
    cdef public int64_t max_steps        # limit of new episodes (0 or less, or past int32: none); each
                                         # reset copies it to ep_max_steps
    cdef readonly int events_on, max_events, num_event_fields
    cdef readonly int err_env, err_code  # the last call's error: the row (-1: none) and E_* code
    cdef EntryHooks entry                # the entry hooks (the skeleton's bind_kernel sets them)

    # ---- shape of a batch: U units of R rows, A actions each (set by bind_shared) ----
    cdef Py_ssize_t units                # U >= 1 (0 only in a kernel nothing was bound to)
    cdef int rows_per_unit               # R: output rows per unit (1, or a kitchen's agents)
    cdef int acts_per_unit               # A: actions per unit and step
    cdef int64_t num_choices             # valid discrete actions are 0 .. num_choices - 1
    cdef bint errors_in_env_order        # report the lowest env's error of either kind (roboman)
                                         # rather than a bad action before a pending reset

    # ---- what the shared fields (KernelFields) leave to the kernel ----
    cdef bint has_stream                 # the family's episodes draw from a per-unit stream (key, rng,
                                         # reseed); the kitchen draws nothing
    cdef float[::1] rewards              # (U * R,) float32 rewards (a kernel whose reward_t is float)
    cdef double[::1] rewards_f64         # (U * R,) float64 rewards (a kernel whose reward_t is double)
    cdef bint has_success                # stat_success is bound (the family's table lists it)
    cdef Py_ssize_t n_ended              # valid entries of ended_rows

    cdef bind_shared(self, state, Py_ssize_t units, int rows_per_unit, int acts_per_unit,
                     int64_t num_choices, int thread_min_units, bint stream)

    # ---- what every family's kernel also defines, in Python (so not declared here) ----
    # __init__(state): set its options and tables, call the skeleton's bind_kernel (its fields, the
    # shared ones, the entry hooks); set max_steps.
    # bind_obs(obs): write the observations into obs (U * R, *obs_shape) from now on; the base
    # (kernel.pyx) raises NotImplementedError.
