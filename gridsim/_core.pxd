# cython: language_level=3
"""Declarations every family's kernel shares: error codes, autoreset modes, event buffers.

Family-specific enums (nav's tile flags, roboman's record layout, kitchen tile kinds, each
family's event ids) live in the family's include, ``gridsim/<family>/_kernel.pxi``.
"""

from libc.stdint cimport int16_t, int32_t, int64_t

# Error codes the kernel reports instead of raising inside nogil.
cdef enum:
    E_OK = 0
    E_BAD_ACTION = 1    # discrete action out of range
    E_NAN_ACTION = 2    # NaN in a continuous action (nan_action="error")
    E_NEEDS_RESET = 3   # DISABLED mode: stepping an env that ended without a reset
    E_BAD_SHAPE = 4     # action array of the wrong length
    E_INTERNAL = 5      # debug builds: an index escaped its array (a kernel bug)

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
