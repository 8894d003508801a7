"""The navigation family's field table: its own arrays of a batch state (``gridsim.nav.state.NavState``).

Abbreviations: N envs, C padded cells of a map (``(H + 2 * pad) * (W + 2 * pad)``). G maps are
stored: one per env (N) when cells change during an episode, else one per level map, shared.
T reward tables: one per env when fixed rewards are drawn per seed, else one per map; P planes.
"""

import numpy as np

from gridsim.engine.fields import Field

FIELDS = (
    Field("grid", np.uint8, ("G", "C"), "current tile id of every padded cell"),
    Field("cell_flags", np.uint8, ("G", "C"), "F_* bits of the current tiles"),
    Field("cell_reward", np.float32, ("T", "P", "C"), "fixed rewards; plane 1: after a cell turns default"),
    Field("agent_cell", np.int32, ("N",), "the agent's cell"),
    Field("step_count", np.int32, ("N",), "steps in the current episode"),
    Field("start_override", np.int32, ("N",), ">= 0: the start cell of the next reset", fill=-1),
    Field("map_id", np.int32, ("N",), "the level map each env plays", saved=False),
    Field("grid_index", np.int32, ("N",), "each env's row of grid and cell_flags", saved=False),
    Field("reward_index", np.int32, ("N",), "each env's row of cell_reward", saved=False),
    Field("moves", np.int8, ("N",), "scratch: continuous actions as move codes", saved=False),
)
