"""Typed stub of the kitchen family's kernel module (``gridsim/kitchen/_kernel.pyx``)."""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from gridsim.engine.kernel import Kernel

KITCHEN_TILE_KINDS: dict[str, int]
KITCHEN_EVENT_IDS: dict[str, int]

FIELDS_DIGEST: str  # of gridsim/kitchen/fields.py, the table the field views were generated from

@disjoint_base
class FieldViews(Kernel):
    """Typed views of the fields of gridsim/kitchen/fields.py (generated at build time)."""

@final
class KitchenKernel(FieldViews):
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
    all_recipes: int

    def __init__(self, state: object) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def step_i64(self, actions: npt.NDArray[np.int64]) -> int: ...
    def step_i32(self, actions: npt.NDArray[np.int32]) -> int: ...
