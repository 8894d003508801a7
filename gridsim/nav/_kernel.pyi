"""Typed stub of the navigation family's kernel module (``gridsim/nav/_kernel.pyx``)."""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from gridsim.engine.kernel import Kernel

FLAG_WALKABLE: int
FLAG_TERMINAL: int
FLAG_INITIAL: int
FLAG_STOCHASTIC: int
FLAG_COLLECTIBLE: int
OBS_KIND_COORDS: int
OBS_KIND_IMAGE: int
OBS_KIND_VIEW: int
NAV_EVENT_IDS: dict[str, int]

FIELDS_DIGEST: str  # of gridsim/nav/fields.py, the table the field views were generated from

@disjoint_base
class FieldViews(Kernel):
    """Typed views of the fields of gridsim/nav/fields.py (generated at build time)."""

@final
class NavKernel(FieldViews):
    """The navigation family's kernel over one ``gridsim.nav.state.NavState``."""

    num_envs: int
    height: int
    width: int
    pad: int
    row_stride: int
    map_cells: int
    obs_kind: int
    view_size: int
    pixels_per_cell: int
    channels_first: int
    num_actions: int
    nan_to_zero: int
    mutable: int
    planes: int
    randomize_goals: int
    clamp: int
    default_tile: int
    per_env_table: int

    def __init__(self, state: object) -> None: ...
    def redraw_table(self, i: int) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def render_rgb(self, i: int, out: npt.NDArray[np.uint8], cell_px: int) -> None: ...
    def step_f32(self, actions: npt.NDArray[np.float32]) -> int: ...
    def step_f64(self, actions: npt.NDArray[np.float64]) -> int: ...

def grid_distances(
    walkable: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], out: npt.NDArray[np.int32]
) -> None: ...
