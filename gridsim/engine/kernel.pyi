"""Typed stub of the kernel contract's base (``gridsim/engine/kernel.pyx``, declared in ``kernel.pxd``).

Every family's kernel (``gridsim.<family>._kernel``) subclasses :class:`Kernel`.
"""

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

SHARED_FIELDS_DIGEST: str  # of gridsim/engine/fields.py, the table the shared field views were generated from

def pool_workers() -> int: ...
def pool_spin_us(us: float | None = None) -> float: ...
def pool_adaptive(on: bool | None = None) -> bool: ...
@disjoint_base
class KernelFields:
    """Typed views of the fields every family has (gridsim/engine/fields.py; generated at build time)."""

@disjoint_base
class Kernel(KernelFields):
    """What every family's kernel shares: autoreset mode, episode bookkeeping, outputs, events, errors."""

    @property
    def autoreset_mode(self) -> int: ...
    @autoreset_mode.setter
    def autoreset_mode(self, mode: int) -> None: ...
    @property
    def final_rows(self) -> int: ...
    num_threads: int
    thread_min_units: int
    max_steps: int
    events_on: int
    max_events: int
    num_event_fields: int
    err_env: int
    err_code: int

    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def sync_outputs(self) -> None: ...
    def reset(self, mask: npt.NDArray[np.uint8]) -> None: ...
    def observe(self, mask: npt.NDArray[np.uint8] | None = None) -> None: ...
    def step_i64(self, actions: npt.NDArray[np.int64]) -> int: ...
    def step_i32(self, actions: npt.NDArray[np.int32]) -> int: ...
