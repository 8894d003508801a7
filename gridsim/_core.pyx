# Compiler directives (bounds, wraparound, initialization and None checks; cdivision) come
# only from setup.py, so that GRIDSIM_CYTHON_DEBUG=1 really turns the checks on: a
# ``# cython:`` header here would override them.
"""gridsim's compiled core: build flags, error and autoreset codes, key derivation, RNG test hooks.

The kernels that reset, step and observe all N envs of a batch (nogil) are one extension
module per family, each meeting the contract declared once in ``gridsim/engine/kernel.pxd``
(class ``Kernel``: the shared fields, the entry hooks, error codes, event buffers):
``gridsim.nav._kernel`` (PixelWorld navigation), ``gridsim.roboman._kernel`` (gridroboman
manipulation) and ``gridsim.kitchen._kernel`` (gym-cooking kitchens). Each compiles the step
skeleton every family runs (validation, autoreset, rewards and flags, episode statistics,
final observations, events, errors; ``gridsim/engine/_skeleton.pxi``) for its own kernel
class, which supplies only per-env pieces (reset one env, step one env's rules, write its
observation).

Every array belongs to numpy (``gridsim.engine.state``); a kernel binds typed views to
them once and writes its results in place. Inputs are validated in a first pass
over the batch, before any state changes, so a bad action raises without touching
any env. Errors leave ``nogil`` as codes (``err_code``, ``err_env``) and become
Python exceptions in ``gridsim.engine.vector``. The skeleton's loops over units run on the
threads of gridsim's worker pool (the kernel's ``num_threads``; ``gridsim/engine/_pool.h``) when
the modules are built with threads and a batch has at least its ``thread_min_units`` units
(each family sets its own).
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.ref cimport PyObject, Py_XDECREF, Py_XINCREF
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset, strcmp

cimport numpy as cnp

from gridsim.engine._rng cimport derive_key, next_bounded, next_u64, sample_dist, stream_seed
from gridsim.engine.kernel cimport (
    AR_CONTINUE, AR_DISABLED, AR_NEXT_STEP, AR_SAME_STEP, E_BAD_ACTION, E_BAD_SHAPE, E_INTERNAL, E_NAN_ACTION,
    E_NEEDS_RESET, E_OK, GRIDSIM_DEBUG, GRIDSIM_SANITIZE, GRIDSIM_THREADS, parallel_for,
)

import numpy as np

cnp.import_array()

# True when this module was built with bounds, wraparound and initialization checks on.
DEBUG_BUILD = bool(GRIDSIM_DEBUG)
# True when the modules were built with the worker pool: the kernel's loops over worlds can run on threads.
THREADS = bool(GRIDSIM_THREADS)
# True when this module was built with AddressSanitizer and UndefinedBehaviorSanitizer.
SANITIZE_BUILD = bool(GRIDSIM_SANITIZE)

# Re-exported so Python reads the constants from the one place they are defined,
# gridsim/engine/kernel.pxd (each family's own constants are exported by its module).
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


cdef enum:
    # Keys derived per call: below this many, one thread (waking workers costs more than it gives).
    KEYS_THREAD_MIN = 16384
    KEYS_CHUNK = 4096  # keys per chunk of a threaded call (about 0.2 ms)

DERIVE_KEYS_THREAD_MIN = KEYS_THREAD_MIN


cdef struct KeysJob:
    const uint64_t* seeds
    uint64_t mixer_seed
    uint64_t* out


cdef void keys_chunk(void* arg, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef KeysJob* job = <KeysJob*>arg
    cdef Py_ssize_t i
    for i in range(lo, hi):
        derive_key(job.seeds[i], job.mixer_seed, job.out + 2 * i)


def derive_keys(const uint64_t[::1] seeds, uint64_t mixer_seed, uint64_t[:, ::1] out,
                int num_threads=1):
    """Write env i's key for ``seeds[i]`` into ``out[i]``, the same as ``gridsim.engine.rng.derive_keys``.

    Every key depends on its seed alone, so the thread count never changes a key.

    Args:
        seeds: the seeds, each below ``2**64``.
        mixer_seed: the batch's mixer seed, below ``2**64``.
        out: ``(len(seeds), 2)`` uint64, written in place.
        num_threads: threads for large batches (``DERIVE_KEYS_THREAD_MIN`` or more seeds).
    """
    cdef Py_ssize_t i, n = seeds.shape[0]
    if out.shape[0] != n or out.shape[1] != 2:
        raise ValueError(f"out must have shape ({n}, 2), got ({out.shape[0]}, {out.shape[1]})")
    if n == 0:
        return
    cdef const uint64_t* s = &seeds[0]
    cdef uint64_t* k = &out[0, 0]
    cdef KeysJob job
    job.seeds = s
    job.mixer_seed = mixer_seed
    job.out = k
    with nogil:
        if GRIDSIM_THREADS and num_threads > 1 and n >= KEYS_THREAD_MIN:
            parallel_for(num_threads, n, KEYS_CHUNK, keys_chunk, &job)
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


# ------------------------------------------------------------------ atomic commits
#
# A state write (load_state_dict, set_state, reset, a property write) prepares every new value
# in private arrays first, then hands them to commit(). Python raises KeyboardInterrupt (and any
# exception of a signal handler) only between bytecodes; commit() runs no bytecode between its
# first write and its last, so a signal that arrives meanwhile is raised after the commit, never
# in the middle of it. The alternative, deferring SIGINT with signal.signal around the writes,
# works in the main thread only and costs two handler swaps per call; this costs nothing.

cdef inline Py_ssize_t _row_bytes(Py_buffer* b) noexcept:
    # Bytes of one row of the first axis (the whole array for a 0-d one).
    if b.ndim == 0:
        return b.len
    return b.len // b.shape[0] if b.shape[0] > 0 else 0


cdef inline Py_ssize_t _num_rows(Py_buffer* b) noexcept:
    return b.shape[0] if b.ndim > 0 else 1


def copies(tuple arrays):
    """Copies of ``arrays`` (numpy arrays), as a tuple: the arrays ``step()`` returns, in one call.

    A C-contiguous array of numbers is copied with one ``memcpy`` into a new array of its shape
    and dtype, about twice as fast as ``ndarray.copy()`` for the few tens of KiB a step
    returns; any other is copied by numpy.
    """
    cdef Py_ssize_t i, n = len(arrays)
    cdef cnp.ndarray a, c
    cdef list out = [None] * n
    for i in range(n):
        a = <cnp.ndarray?>arrays[i]
        # Plain numbers only: objects need references taken, records may hold objects.
        if cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_TYPE(a) != cnp.NPY_OBJECT \
                and cnp.PyArray_TYPE(a) != cnp.NPY_VOID:
            c = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), cnp.PyArray_TYPE(a), 0)
            memcpy(cnp.PyArray_DATA(c), cnp.PyArray_DATA(a), cnp.PyArray_NBYTES(a))
            out[i] = c
        else:
            out[i] = cnp.PyArray_NewCopy(a, cnp.NPY_CORDER)
    return tuple(out)


def commit(list writes, list calls=None):
    """Apply ``writes``, then ``calls``, with no Python bytecode in between: all or nothing under a signal.

    Every write is checked first (nothing is written if one is bad), then all are applied in
    order. Old references of object arrays are released only after the last call, so no
    finalizer runs before the commit is complete.

    Args:
        writes: ``(dst, src)`` copies ``src`` into the whole of ``dst``; ``(dst, rows, src)``
            copies ``src[j]`` into ``dst[rows[j]]`` (rows of the first axis, ``rows`` intp).
            Arrays are C-contiguous numpy arrays; ``src`` has ``dst``'s dtype, and its shape
            (``(len(rows), *dst.shape[1:])`` for a row write).
        calls: ``(function, args)`` pairs called after the writes, in order. Each must be
            compiled (a kernel's method, ``setattr`` on a plain attribute): a Python function
            would run bytecode, where a signal can be raised. None of them may fail.

    Raises:
        ValueError: a write whose arrays do not match (nothing was written).
    """
    cdef Py_ssize_t n = len(writes), k = 0, j, r, nrows, row_bytes, count, i
    cdef Py_buffer* bufs = <Py_buffer*>malloc(3 * n * sizeof(Py_buffer) + 1)
    cdef bint* acquired = <bint*>malloc(3 * n * sizeof(bint) + 1)
    cdef Py_buffer* d
    cdef Py_buffer* s
    cdef Py_buffer* ix
    cdef Py_ssize_t* rows
    cdef PyObject** dp
    cdef PyObject** sp
    cdef list released = []
    if bufs == NULL or acquired == NULL:
        free(bufs)
        free(acquired)
        raise MemoryError()
    memset(acquired, 0, 3 * n * sizeof(bint))
    try:
        # Check every write before the first one is applied.
        for k in range(n):
            w = writes[k]
            if not isinstance(w, tuple) or len(w) not in (2, 3):
                raise ValueError(f"write {k} is not a (dst, src) or (dst, rows, src) tuple")
            d, s, ix = &bufs[3 * k], &bufs[3 * k + 1], &bufs[3 * k + 2]
            PyObject_GetBuffer(w[0], d, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE)
            acquired[3 * k] = True
            PyObject_GetBuffer(w[len(w) - 1], s, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
            acquired[3 * k + 1] = True
            if d.itemsize != s.itemsize or strcmp(d.format, s.format) != 0:
                raise ValueError(f"write {k}: dtypes differ ({d.format.decode()} <- {s.format.decode()})")
            if len(w) == 2:
                if d.len != s.len:
                    raise ValueError(f"write {k}: {s.len} bytes into {d.len}")
                continue
            PyObject_GetBuffer(w[1], ix, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
            acquired[3 * k + 2] = True
            if ix.itemsize != sizeof(Py_ssize_t) or ix.format not in (b"l", b"q", b"n"):
                raise ValueError(f"write {k}: rows must be an intp array")
            nrows = ix.len // <Py_ssize_t>sizeof(Py_ssize_t)
            row_bytes = _row_bytes(d)
            if s.len != nrows * row_bytes:
                raise ValueError(f"write {k}: {s.len} bytes for {nrows} rows of {row_bytes}")
            rows = <Py_ssize_t*>ix.buf
            for j in range(nrows):
                if not 0 <= rows[j] < _num_rows(d):
                    raise ValueError(f"write {k}: row {rows[j]} outside 0..{_num_rows(d) - 1}")
        # Apply them: plain memory copies, and reference swaps for object arrays.
        for k in range(n):
            d, s, ix = &bufs[3 * k], &bufs[3 * k + 1], &bufs[3 * k + 2]
            if acquired[3 * k + 2]:
                nrows = ix.len // <Py_ssize_t>sizeof(Py_ssize_t)
                row_bytes = _row_bytes(d)
                rows = <Py_ssize_t*>ix.buf
            else:
                nrows = 1
                row_bytes = d.len
                rows = NULL
            for j in range(nrows):
                r = rows[j] if rows != NULL else 0
                if d.format[0] == c'O':
                    dp = <PyObject**>(<char*>d.buf + r * row_bytes)
                    sp = <PyObject**>(<char*>s.buf + j * row_bytes)
                    count = row_bytes // <Py_ssize_t>sizeof(PyObject*)
                    for i in range(count):
                        if dp[i] != NULL:
                            released.append(<object>dp[i])  # keeps it until the commit is done
                            Py_XDECREF(dp[i])
                        Py_XINCREF(sp[i])
                        dp[i] = sp[i]
                else:
                    memmove(<char*>d.buf + r * row_bytes, <char*>s.buf + j * row_bytes, row_bytes)
        if calls is not None:
            for call in calls:
                call[0](*call[1])
    finally:
        for k in range(3 * n):
            if acquired[k]:
                PyBuffer_Release(&bufs[k])
        free(bufs)
        free(acquired)
    del released
