"""Typed stub of gridsim's compiled core (``gridsim/_core.pyx``).

The kernels are one module per family (``gridsim.<family>._kernel``), each subclassing
``gridsim.engine.kernel.Kernel``; their stubs are beside them.
"""

import numpy as np
import numpy.typing as npt

DEBUG_BUILD: bool
THREADS: bool
SANITIZE_BUILD: bool

ERR_OK: int
ERR_BAD_ACTION: int
ERR_NAN_ACTION: int
ERR_NEEDS_RESET: int
ERR_BAD_SHAPE: int
ERR_INTERNAL: int
AUTORESET_NEXT_STEP: int
AUTORESET_SAME_STEP: int
AUTORESET_DISABLED: int
AUTORESET_CONTINUE: int

DERIVE_KEYS_THREAD_MIN: int

def derive_keys(
    seeds: npt.NDArray[np.uint64], mixer_seed: int, out: npt.NDArray[np.uint64], num_threads: int = 1
) -> None: ...
def copies(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]: ...
def commit(writes: list[tuple], calls: list[tuple] | None = None) -> None: ...
def rng_stream(state: int, n: int) -> npt.NDArray[np.uint64]: ...
def rng_samples(state: int, kind: int, a: float, b: float, n: int) -> npt.NDArray[np.float64]: ...
def rng_bounded(state: int, bound: int, n: int) -> npt.NDArray[np.uint64]: ...
def rng_stream_seed(key0: int, key1: int, tag: int, counter: int) -> int: ...
