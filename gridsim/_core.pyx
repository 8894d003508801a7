# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: nonecheck=False, cdivision=True
"""gridsim's compiled kernel: reset, step and observe all N envs of a batch, nogil.

Every array belongs to numpy (``gridsim.state``); the kernel binds typed views to
them once and writes its results in place. Inputs are validated in a first pass
over the batch, before any state changes, so a bad action raises without touching
any env. Errors leave ``nogil`` as codes (``err_code``, ``err_env``) and become
Python exceptions in ``gridsim.vector``.

Each family's kernel is a cdef class in its own include file: ``_nav.pxi``
(PixelWorld navigation), ``_roboman.pxi`` (gridroboman manipulation) and
``_kitchen.pxi`` (gym-cooking kitchens).
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport isnan

from gridsim._rng cimport (
    TAG_EPISODE, TAG_TABLE, next_bounded, next_u64, sample_dist, stream_seed,
)

import numpy as np

cdef extern from *:
    int GRIDSIM_DEBUG  # set by setup.py: 1 when built with GRIDSIM_CYTHON_DEBUG=1

# True when this module was built with bounds, wraparound and initialization checks on.
DEBUG_BUILD = bool(GRIDSIM_DEBUG)

# Re-exported so Python reads the constants from the one place they are defined.
FLAG_WALKABLE = F_WALKABLE
FLAG_TERMINAL = F_TERMINAL
FLAG_INITIAL = F_INITIAL
FLAG_STOCHASTIC = F_STOCHASTIC
FLAG_COLLECTIBLE = F_COLLECTIBLE
ERR_OK = E_OK
ERR_BAD_ACTION = E_BAD_ACTION
ERR_NAN_ACTION = E_NAN_ACTION
ERR_NEEDS_RESET = E_NEEDS_RESET
ERR_BAD_SHAPE = E_BAD_SHAPE
ERR_INTERNAL = E_INTERNAL
AUTORESET_NEXT_STEP = AR_NEXT_STEP
AUTORESET_SAME_STEP = AR_SAME_STEP
AUTORESET_DISABLED = AR_DISABLED
AUTORESET_CONTINUE = AR_CONTINUE
OBS_KIND_COORDS = OBS_COORDS
OBS_KIND_IMAGE = OBS_IMAGE
OBS_KIND_VIEW = OBS_VIEW

ctypedef fused discrete_t:
    int32_t
    int64_t


# ---------------------------------------------------------------- events
# Every kernel records events through these (gridsim.events documents the buffers). With
# events off nothing here runs: the nav and roboman step loops are specialised on events_t
# (below) and the loop without events has no event code; the kitchen's emit sites check
# events_on.

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


cdef inline void bind_events(EventBuf* b, int16_t* types, int32_t* payload, int32_t* count, int64_t* dropped,
                             Py_ssize_t units, int cap, int nf) noexcept nogil:
    # Point b at a kernel's event arrays (checked by _check_event_buffers at construction).
    b.types = types
    b.payload = payload
    b.count = count
    b.dropped = dropped
    b.units = units
    b.cap = cap
    b.nf = nf


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


# Compile-time switch of the step loops: each kernel's loop is specialised on it, so that with
# events off it runs a loop without any event code (only a tag pointer type, never dereferenced).
ctypedef struct EventsOff:
    char unused
ctypedef struct EventsOn:
    char unused
ctypedef fused events_t:
    EventsOff
    EventsOn


cdef inline void clear_events(EventBuf* b) noexcept nogil:
    # Start a step: no world has events yet.
    memset(b.count, 0, b.units * sizeof(int32_t))

include "_nav.pxi"
include "_roboman.pxi"
include "_kitchen.pxi"


def rng_stream(uint64_t state, Py_ssize_t n):
    """The first n outputs of the kernel's SplitMix64 stream (tests compare with gridsim.rng)."""
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = next_u64(&state)
    return out


def rng_samples(uint64_t state, int kind, double a, double b, Py_ssize_t n):
    """n draws of a reward distribution from one stream (tests compare with gridsim.rng)."""
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = sample_dist(&state, kind, a, b)
    return out


def rng_bounded(uint64_t state, uint64_t bound, Py_ssize_t n):
    """n bounded draws in [0, bound) from one stream (tests compare with gridsim.rng)."""
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = next_bounded(&state, bound)
    return out


def rng_stream_seed(uint64_t key0, uint64_t key1, uint64_t tag, uint64_t counter):
    """The kernel's stream_seed (tests compare with gridsim.rng.stream_seed)."""
    return stream_seed(key0, key1, tag, counter)
