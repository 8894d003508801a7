"""Typed stub of the manipulation family's kernel module (``gridsim/roboman/_kernel.pyx``)."""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from gridsim.engine.kernel import Kernel

ROBOMAN_OBS_VECTOR: int
ROBOMAN_OBS_GRID: int
ROBOMAN_GOAL_KINDS: dict[str, int]
ROBOMAN_RECORD: dict[str, int]
ROBOMAN_EVENT_IDS: dict[str, int]

FIELDS_DIGEST: str  # of gridsim/roboman/fields.py, the table the field views were generated from

@disjoint_base
class FieldViews(Kernel):
    """Typed views of the fields of gridsim/roboman/fields.py (generated at build time)."""

@final
class RobomanKernel(FieldViews):
    """The manipulation family's kernel over one ``gridsim.roboman.state.RobomanState``."""

    num_envs: int
    obs_kind: int
    obs_size: int
    task_in_obs: int
    num_tasks: int
    exclude_solved: int

    def __init__(self, state: object) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def observe_as(
        self, kind: int, obs: npt.NDArray[np.generic], action_mask: npt.NDArray[np.int8] | None = None
    ) -> None: ...
