"""Typed stub of gridsim's compiled kernel (``gridsim/_core.pyx``).

The step skeleton shared by every family is ``gridsim/_engine.pxi`` (class ``Kernel``);
each family's per-env pieces are in ``gridsim/<family>/_kernel.pxi``.
"""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

DEBUG_BUILD: bool
OPENMP: bool
SANITIZE_BUILD: bool

FLAG_WALKABLE: int
FLAG_TERMINAL: int
FLAG_INITIAL: int
FLAG_STOCHASTIC: int
FLAG_COLLECTIBLE: int
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
OBS_KIND_COORDS: int
OBS_KIND_IMAGE: int
OBS_KIND_VIEW: int
NAV_EVENT_IDS: dict[str, int]
ROBOMAN_OBS_VECTOR: int
ROBOMAN_OBS_GRID: int
ROBOMAN_GOAL_KINDS: dict[str, int]
ROBOMAN_RECORD: dict[str, int]
ROBOMAN_EVENT_IDS: dict[str, int]
KITCHEN_TILE_KINDS: dict[str, int]
KITCHEN_EVENT_IDS: dict[str, int]

@disjoint_base
class Kernel:
    """What every family's kernel shares (the step skeleton, ``gridsim/_engine.pxi``)."""

    autoreset_mode: int
    num_threads: int
    thread_min_units: int
    events_on: int
    max_events: int
    num_event_fields: int
    err_env: int
    err_code: int

    def sync_outputs(self) -> None: ...
    def reset(self, mask: npt.NDArray[np.uint8]) -> None: ...
    def observe(self) -> None: ...
    def step_i64(self, actions: npt.NDArray[np.int64]) -> int: ...
    def step_i32(self, actions: npt.NDArray[np.int32]) -> int: ...

@final
class NavKernel(Kernel):
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
    max_steps: int
    default_tile: int
    per_env_table: int

    def __init__(self, state: object) -> None: ...
    def redraw_table(self, i: int) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def render_rgb(self, i: int, out: npt.NDArray[np.uint8], cell_px: int) -> None: ...
    def step_f32(self, actions: npt.NDArray[np.float32]) -> int: ...
    def step_f64(self, actions: npt.NDArray[np.float64]) -> int: ...

@final
class RobomanKernel(Kernel):
    """The manipulation family's kernel over one ``gridsim.roboman.state.RobomanState``."""

    num_envs: int
    obs_kind: int
    obs_size: int
    task_in_obs: int
    num_tasks: int
    exclude_solved: int
    max_steps: int

    def __init__(self, state: object) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def observe_as(
        self, kind: int, obs: npt.NDArray[np.generic], action_mask: npt.NDArray[np.int8] | None = None
    ) -> None: ...

@final
class KitchenKernel(Kernel):
    """The kitchen family's kernel over one ``gridsim.kitchen.state.KitchenState``."""

    num_kitchens: int
    num_agents: int
    num_rows: int
    height: int
    width: int
    num_cells: int
    num_items: int
    num_components: int
    agent_rows: int
    obs_channels: int
    channels_first: int
    max_deliveries: int
    max_steps: int
    all_recipes: int

    def __init__(self, state: object) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def step_i64(self, actions: npt.NDArray[np.int64]) -> int: ...
    def step_i32(self, actions: npt.NDArray[np.int32]) -> int: ...

DERIVE_KEYS_THREAD_MIN: int

def derive_keys(
    seeds: npt.NDArray[np.uint64], mixer_seed: int, out: npt.NDArray[np.uint64], num_threads: int = 1
) -> None: ...
def grid_distances(
    walkable: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], out: npt.NDArray[np.int32]
) -> None: ...
def rng_stream(state: int, n: int) -> npt.NDArray[np.uint64]: ...
def rng_samples(state: int, kind: int, a: float, b: float, n: int) -> npt.NDArray[np.float64]: ...
def rng_bounded(state: int, bound: int, n: int) -> npt.NDArray[np.uint64]: ...
def rng_stream_seed(key0: int, key1: int, tag: int, counter: int) -> int: ...
