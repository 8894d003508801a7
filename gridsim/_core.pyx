# Compiler directives (bounds, wraparound, initialization and None checks; cdivision) come
# only from setup.py, so that GRIDSIM_CYTHON_DEBUG=1 really turns the checks on: a
# ``# cython:`` header here would override them.
"""gridsim's compiled kernel: reset, step and observe all N envs of a batch, nogil.

Every array belongs to numpy (``gridsim.engine.state``); the kernel binds typed views to
them once and writes its results in place. Inputs are validated in a first pass
over the batch, before any state changes, so a bad action raises without touching
any env. Errors leave ``nogil`` as codes (``err_code``, ``err_env``) and become
Python exceptions in ``gridsim.engine.vector``.

Where things live: the step skeleton every family runs (validation, autoreset, rewards
and flags, episode statistics, final observations, events, errors) is written once in
``_engine.pxi``, with the shared fields in its ``Kernel`` base class; each family's
kernel supplies only per-env pieces (reset one env, step one env's rules, write its
observation) in ``<family>/_kernel.pxi``: ``nav/_kernel.pxi`` (PixelWorld navigation),
``roboman/_kernel.pxi`` (gridroboman manipulation) and ``kitchen/_kernel.pxi``
(gym-cooking kitchens). The skeleton's loops over units run on OpenMP threads (the kernel's
``num_threads``) when the module is built with OpenMP and a batch has at least
its ``thread_min_units`` units (``_engine.pxi``; each family sets its own).
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport isnan

from gridsim._rng cimport (
    TAG_EPISODE, TAG_TABLE, derive_key, next_bounded, next_u64, sample_dist, stream_seed,
)
from cython.parallel cimport prange

import numpy as np

cdef extern from *:
    int GRIDSIM_DEBUG  # set by setup.py: 1 when built with GRIDSIM_CYTHON_DEBUG=1
    int GRIDSIM_OPENMP  # set by setup.py: 1 when built with OpenMP (-fopenmp)
    int GRIDSIM_SANITIZE  # set by setup.py: 1 when built with GRIDSIM_SANITIZE=1

# True when this module was built with bounds, wraparound and initialization checks on.
DEBUG_BUILD = bool(GRIDSIM_DEBUG)
# True when this module was built with OpenMP: the kernel's loops over worlds can run on threads.
OPENMP = bool(GRIDSIM_OPENMP)
# True when this module was built with AddressSanitizer and UndefinedBehaviorSanitizer.
SANITIZE_BUILD = bool(GRIDSIM_SANITIZE)

# Re-exported so Python reads the constants from the one place they are defined (each
# family's own constants are exported by its include).
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

# The skeleton's loop is specialised on the family: every hook call is a direct, inlinable call.
ctypedef fused kernel_t:
    NavKernel
    RobomanKernel
    KitchenKernel

include "_engine.pxi"
include "nav/_kernel.pxi"
include "roboman/_kernel.pxi"
include "kitchen/_kernel.pxi"


# The kernel's entry points (Kernel.reset / observe / step_i64 / step_i32, in _engine.pxi) pick
# their family's specialised skeleton here, beside the list of families above.

cdef void family_reset(Kernel self, const uint8_t[::1] mask):
    if type(self) is NavKernel:
        reset_units(<NavKernel>self, mask)
    elif type(self) is RobomanKernel:
        reset_units(<RobomanKernel>self, mask)
    else:
        reset_units(<KitchenKernel>self, mask)


cdef void family_observe(Kernel self):
    if type(self) is NavKernel:
        observe_units(<NavKernel>self)
    elif type(self) is RobomanKernel:
        observe_units(<RobomanKernel>self)
    else:
        observe_units(<KitchenKernel>self)


# Batches of fewer actions step with the GIL held: releasing and retaking it costs about
# 0.1 us a call, a quarter of a 64-env navigation step. Larger batches (and any call that
# runs on threads) release it, so other Python threads run during the step.
cdef enum:
    NOGIL_MIN_ACTIONS = 16384


cdef Py_ssize_t family_step(Kernel self, const discrete_t[::1] actions):
    cdef const discrete_t* a = &actions[0] if actions.shape[0] > 0 else NULL
    cdef Py_ssize_t n = actions.shape[0]
    cdef int family = 0 if type(self) is NavKernel else (1 if type(self) is RobomanKernel else 2)
    if n < NOGIL_MIN_ACTIONS and not use_threads(self.num_threads, self.units, self.thread_min_units):
        return step_family(self, family, a, n)
    with nogil:
        return step_family(self, family, a, n)


cdef inline Py_ssize_t step_family(Kernel self, int family, const discrete_t* a, Py_ssize_t n) noexcept nogil:
    if family == 0:
        return step_units(<NavKernel>self, a, n, self.num_choices)
    if family == 1:
        return step_units(<RobomanKernel>self, a, n, self.num_choices)
    return step_units(<KitchenKernel>self, a, n, self.num_choices)


cdef enum:
    # Keys derived per call: below this many, one thread (a team costs more than it gives).
    KEYS_THREAD_MIN = 16384

DERIVE_KEYS_THREAD_MIN = KEYS_THREAD_MIN


def derive_keys(const uint64_t[::1] seeds, uint64_t mixer_seed, uint64_t[:, ::1] out,
                int num_threads=1):
    """Write env i's key for ``seeds[i]`` into ``out[i]``, the same as ``gridsim.engine.rng.derive_keys``.

    Every key depends on its seed alone, so the thread count never changes a key.

    Args:
        seeds: the seeds, each below ``2**64``.
        mixer_seed: the batch's mixer seed, below ``2**64``.
        out: ``(len(seeds), 2)`` uint64, written in place.
        num_threads: OpenMP threads for large batches (``DERIVE_KEYS_THREAD_MIN`` or more seeds).
    """
    cdef Py_ssize_t i, n = seeds.shape[0]
    if out.shape[0] != n or out.shape[1] != 2:
        raise ValueError(f"out must have shape ({n}, 2), got ({out.shape[0]}, {out.shape[1]})")
    if n == 0:
        return
    cdef const uint64_t* s = &seeds[0]
    cdef uint64_t* k = &out[0, 0]
    with nogil:
        if GRIDSIM_OPENMP and num_threads > 1 and n >= KEYS_THREAD_MIN:
            for i in prange(n, schedule="static", num_threads=num_threads):
                derive_key(s[i], mixer_seed, k + 2 * i)
        else:
            for i in range(n):
                derive_key(s[i], mixer_seed, k + 2 * i)


def rng_stream(uint64_t state, Py_ssize_t n):
    """The first n outputs of the kernel's SplitMix64 stream (tests compare with gridsim.engine.rng)."""
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = next_u64(&state)
    return out


def rng_samples(uint64_t state, int kind, double a, double b, Py_ssize_t n):
    """n draws of a reward distribution from one stream (tests compare with gridsim.engine.rng)."""
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = sample_dist(&state, kind, a, b)
    return out


def rng_bounded(uint64_t state, uint64_t bound, Py_ssize_t n):
    """n bounded draws in [0, bound) from one stream (tests compare with gridsim.engine.rng)."""
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    cdef Py_ssize_t k
    for k in range(n):
        o[k] = next_bounded(&state, bound)
    return out


def rng_stream_seed(uint64_t key0, uint64_t key1, uint64_t tag, uint64_t counter):
    """The kernel's stream_seed (tests compare with gridsim.engine.rng.stream_seed)."""
    return stream_seed(key0, key1, tag, counter)
