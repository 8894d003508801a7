"""The MiniGrid family's field table: its own arrays of a batch state (``gridsim.minigrid.state.MinigridState``).

Abbreviations: U envs, H x W the grid, T the generator's task slots (the kernel's
``MINIGRID_TASK_SLOTS``); for a BabyAI id C = H * W cells, B the instruction state's slots
(``MINIGRID_BABYAI_SLOTS``), L the mission's tokens (``MINIGRID_MISSION_TOKENS``) and P the bot's
slots (``MINIGRID_BOT_SLOTS``), each 1
for the other ids (which never read them). Cells hold Minigrid's own encoding (``MinigridState`` says how).
"""

import numpy as np

from gridsim.engine.fields import SUCCESS_FIELD, Field
from gridsim.minigrid.tasks import kernel_source

FIELDS = (
    Field("grid", np.uint8, ("U", "H", "W", 4), "cells: (object, colour, state, contents) of (x, y) at [y, x]"),
    Field("agent", np.int32, ("U", 3), "agent x, y and direction (0 right, 1 down, 2 left, 3 up)"),
    Field("carrying", np.uint8, ("U", 4), "the carried object as a cell ((1, 0, 0, 0): nothing)"),
    Field("step_count", np.int32, ("U",), "steps in this episode"),
    Field("mission", np.int16, ("U",), "the mission: its index in the id's missions"),
    Field("task", np.int16, ("U", "T"), "the generator's own episode data"),
    Field("bitgen", np.uint64, ("U", 6), "numpy's PCG64 state (gridsim.minigrid.rng)"),
    Field("oid", np.uint8, ("U", "C"), "BabyAI: each cell's object identity at y * W + x (0: none)"),
    Field("babyai", np.int16, ("U", "B"), "BabyAI: the instructions, their verifier's state and the objects "
                                          "they track (gridsim.minigrid.babyai)"),
    Field("mission_tokens", np.uint8, ("U", "L"), "BabyAI: the mission as tokens (gridsim.minigrid.babyai)"),
    Field("bot", np.int16, ("U", "P"), "BabyAI: the bot's plan and what it has seen (gridsim.minigrid.bot)"),
    Field("failed", np.bool_, ("U",), "scratch: the last generation ran out of tries", saved=False),
    Field("pending", np.bool_, ("U",), "scratch: the row awaits its world from Python (a Python task)", saved=False),
    Field("obs_dir", np.int64, ("U",), "the observation's direction"),
    Field("obs_mission", np.int16, ("U",), "the observation's mission index"),
    Field("obs_tokens", np.uint8, ("U", "L"), "BabyAI: the observation's mission tokens"),
    # The final observation's parts (as final_obs in gridsim.engine.fields: a step's output, not state).
    Field("final_dir", np.int64, ("U",), "SAME_STEP: the final observation's direction", saved=False),
    Field("final_mission", np.int16, ("U",), "SAME_STEP: the final observation's mission index", saved=False),
    Field("final_tokens", np.uint8, ("U", "L"), "SAME_STEP: the final observation's mission tokens", saved=False),
    SUCCESS_FIELD,
)

# The kernel's generator and rule numbers and its dispatch, from the task table (one row per task).
SOURCES = {"_tasks.pxi": kernel_source}
