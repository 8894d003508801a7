"""Typed stub of the MiniGrid family's kernel module (``gridsim/minigrid/_kernel.pyx``)."""

from typing import final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from gridsim.engine.kernel import Kernel

MINIGRID_OBS_VIEW: int
MINIGRID_OBS_FULL: int
MINIGRID_OBS_RGB: int
MINIGRID_OBS_RGB_FULL: int
MINIGRID_MAX_VIEW: int
MINIGRID_TASK_SLOTS: int
MINIGRID_BABYAI_SLOTS: int  # a BabyAI env's instruction slots (gridsim.minigrid.babyai)
MINIGRID_MISSION_TOKENS: int  # a BabyAI mission's tokens
MINIGRID_BOT_SLOTS: int  # a BabyAI env's bot slots (gridsim.minigrid.bot)
MINIGRID_BOT_LAYOUT: dict[str, int]  # where the bot's state lies in its slots (gridsim.minigrid.bot)
MINIGRID_BOT_FAILURES: dict[int, str]  # why a bot failed: its failure code -> what happened
MINIGRID_BABYAI_LAYOUT: dict[str, int]  # where the instruction state's parts lie (gridsim.minigrid.babyai)
MINIGRID_GENERATORS: dict[str, int]  # task name -> GEN_* (generated from gridsim/minigrid/tasks.py)
MINIGRID_RULES: dict[str, int]  # rule name -> RULE_*
MINIGRID_PRIMITIVES: dict[str, tuple[int, int]]  # a compiled task's primitives: name -> (address, int arguments)
MINIGRID_TASKS_DIGEST: str  # of the task table the kernel was generated from
MINIGRID_OBJECTS: dict[str, int]

FIELDS_DIGEST: str  # of gridsim/minigrid/fields.py, the table the field views were generated from

@disjoint_base
class FieldViews(Kernel):
    """Typed views of the fields of gridsim/minigrid/fields.py (generated at build time)."""

@final
class MinigridKernel(FieldViews):
    """The MiniGrid family's kernel over one ``gridsim.minigrid.state.MinigridState``."""

    obs_kind: int
    obs_size: int

    def __init__(self, state: object) -> None: ...
    def bind_tiles(self, atlas: npt.NDArray[np.uint8], tile_of: npt.NDArray[np.int16], tile_size: int) -> None: ...
    def bind_obs(self, obs: npt.NDArray[np.generic]) -> None: ...
    def bot_replan(self, taken: npt.NDArray[np.int64], out: npt.NDArray[np.int64],
                   fresh: npt.NDArray[np.uint8]) -> None: ...

def rng_seed(seed: int, out: npt.NDArray[np.uint64]) -> None: ...
def rng_integers(g: npt.NDArray[np.uint64], low: int, high: int, n: int) -> npt.NDArray[np.int64]: ...
def rng_raw(g: npt.NDArray[np.uint64], n: int) -> npt.NDArray[np.uint64]: ...
def rng_uniform(g: npt.NDArray[np.uint64], n: int) -> npt.NDArray[np.float64]: ...
def rng_shuffle(g: npt.NDArray[np.uint64], items: npt.NDArray[np.int32]) -> None: ...
def rng_random_rows(g: npt.NDArray[np.uint64], rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]: ...
def rng_integers_rows(
    g: npt.NDArray[np.uint64], rows: npt.NDArray[np.intp], low: int, high: int
) -> npt.NDArray[np.int64]: ...
def objs_reachable(cells: npt.NDArray[np.uint8], x: int, y: int) -> tuple[int, int]: ...
