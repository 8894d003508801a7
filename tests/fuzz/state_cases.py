"""Envs of every family and option whose states the state tests inject, and the helpers they share.

Each case is a small batch already played for a few steps, so its state is a real one:
nav with collectibles, per-seed fixed rewards, randomized goals, per-env maps, images and
events; roboman with several tasks, the task one-hot, grid observations and events; kitchen
with agent rows, three agents and events; all three autoreset modes.
"""

from __future__ import annotations

import numpy as np

import gridsim
from gridsim import KitchenVectorEnv, NavVectorEnv, RobomanVectorEnv

# Collectibles, per-seed fixed rewards and several goals: every nav field is in use.
NAV_LEVEL = """%gridsim 1
[legend]
c = reward=5 collectible
x = reward=uniform(0, 1)
[map]
#######
#S c 0#
# x#  #
#0   c#
#######
"""

NAV_MAPS = ["#####\n#S 0#\n# # #\n#####", "#####\n#0 S#\n#   #\n#####"]


def make_case(name: str):
    """A fresh env of case ``name``, reset with seed 3 and played 6 random steps."""
    maker = CASES[name]
    envs = maker()
    envs.reset(seed=3)
    envs.action_space.seed(3)
    for _ in range(6):
        envs.step(envs.action_space.sample())
    return envs


CASES = {
    "nav-collect": lambda: gridsim.make("=" + NAV_LEVEL, 3, family="nav", randomize_goals=True, events=True,
                                        max_episode_steps=9),
    "nav-maps-view": lambda: NavVectorEnv(3, world_map=NAV_MAPS + NAV_MAPS[:1], obs_type="view", view_size=3,
                                          autoreset_mode="SameStep", max_episode_steps=5),
    "nav-image": lambda: NavVectorEnv(2, world_map=NAV_MAPS[1], obs_type="image", autoreset_mode="Disabled",
                                      max_episode_steps=40),
    "roboman-tasks": lambda: RobomanVectorEnv(3, tasks=["LiftRed", "StackRedOnGreen", "MoveBlueToCenter"],
                                              task_in_obs=True, events=True, max_episode_steps=7),
    "roboman-grid": lambda: RobomanVectorEnv(2, task="StackGreenOnBlue", obs_type="grid",
                                             autoreset_mode="SameStep"),
    "kitchen-rows": lambda: KitchenVectorEnv(4, level="kitchen/open-divider_salad", agent_rows=True, events=True,
                                             max_episode_steps=20),
    "kitchen-three": lambda: KitchenVectorEnv(2, level="kitchen/partial-divider_salad", num_agents=3,
                                              autoreset_mode="SameStep"),
}


def states_equal(a: dict, b: dict) -> bool:
    """Two ``state_dict`` results hold the same values (arrays bit for bit)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                return False
        elif x != y:
            return False
    return True


def play(envs, steps: int, seed: int):
    """Step ``steps`` random valid actions, resetting the envs a DISABLED batch says have ended."""
    envs.action_space.seed(seed)
    for _ in range(steps):
        try:
            envs.step(envs.action_space.sample())
        except gridsim.KernelError:  # DISABLED: an ended env must be reset first
            envs.reset(options={"reset_mask": envs.state.needs_reset.repeat(envs.num_envs // envs.state.num_units)})
