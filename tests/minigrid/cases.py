"""The MiniGrid family's cases for the engine-wide tests (the names of ``tests/nav/cases.py``)."""

from __future__ import annotations

import numpy as np

import gridsim
from gridsim.minigrid.env import MinigridEnv, MinigridVectorEnv

ID_COUNT = 76  # Minigrid 3.2.0's ids but the six WFC ones (gridsim.minigrid.MINIGRID_IDS)

# The first registered ids, DistShift1 and DistShift2, draw nothing at reset. DoorKey comes first
# (the tests that take one id per family take it): a layout drawn at every reset, a key and a
# door. Dynamic-Obstacles draws at every step and has three actions; DistShift1 stays covered.
REPRESENTATIVE_IDS = ["gridsim/MiniGrid-DoorKey-5x5-v0", "gridsim/MiniGrid-Dynamic-Obstacles-5x5-v0",
                      "gridsim/MiniGrid-DistShift1-v0"]

# The mission as its index (a Discrete part) instead of a string: every part of the Dict an array.
ARRAY_OBS_KWARGS = {"mission_format": "index"}

STATE_CASES = {
    "minigrid-doorkey": lambda: MinigridVectorEnv(3, env_name="MiniGrid-DoorKey-5x5-v0", max_episode_steps=9),
    "minigrid-full": lambda: MinigridVectorEnv(2, env_name="MiniGrid-Empty-Random-5x5-v0", obs_type="full",
                                               autoreset_mode="SameStep", max_episode_steps=6),
    "minigrid-image": lambda: MinigridVectorEnv(2, env_name="MiniGrid-DoorKey-6x6-v0", obs_type="image",
                                                autoreset_mode="Disabled", max_episode_steps=30),
    "minigrid-rgb": lambda: MinigridVectorEnv(2, env_name="MiniGrid-DoorKey-5x5-v0", obs_type="rgb_full", tile_size=3,
                                              autoreset_mode="SameStep", max_episode_steps=8),
    # The balls' cells live in the task slots, which the step reads and writes; several missions, as indices.
    "minigrid-obstacles": lambda: MinigridVectorEnv(3, env_name="MiniGrid-Dynamic-Obstacles-6x6-v0",
                                                    max_episode_steps=12),
    "minigrid-index": lambda: MinigridVectorEnv(3, env_name="MiniGrid-GoToDoor-5x5-v0", mission_format="index",
                                                autoreset_mode="SameStep", max_episode_steps=8),
}

COPY_CASES = {
    "minigrid": (MinigridVectorEnv, MinigridEnv, {"env_name": "MiniGrid-DoorKey-5x5-v0", "max_episode_steps": 7}),
}


def no_goal_envs(n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (turning left on the spot)."""
    envs = MinigridVectorEnv(n, env_name="MiniGrid-Empty-8x8-v0", max_episode_steps=limit, autoreset_mode=mode)
    return envs, np.zeros(n, np.int64)


# ---------------------------------------------------------------- the engine-wide tests' other cases

EVENTS = ()  # pinned: the family declares no events yet

# Every observation type, action kind and option beside the registered ids' defaults.
BATCH_VARIANTS = {
    "minigrid-full-index-missions":
        lambda n, **kw: gridsim.make("minigrid:MiniGrid-GoToDoor-8x8-v0", n, obs_type="full", mission_format="index",
                                     **kw),
    "minigrid-image-obstacles":
        lambda n, **kw: gridsim.make("minigrid:MiniGrid-Dynamic-Obstacles-8x8-v0", n, obs_type="image", **kw),
    "minigrid-view-5": lambda n, **kw: gridsim.make("minigrid:MiniGrid-MultiRoom-N6-v0", n, agent_view_size=5, **kw),
}
