"""Slow, readable pure-Python steppers: the oracles the kernel is tested against.

Nothing here is used on the step path of a real env.
"""

from gridsim.reference.kitchen import (
    ReferenceKitchenEnv,
    kitchen_obs,
    kitchen_reset,
    kitchen_solved,
    kitchen_step,
    render_ansi,
)
from gridsim.reference.nav import ReferenceNavEnv, draw_reward_table, nav_reset, nav_step
from gridsim.reference.roboman import ReferenceRobomanEnv, roboman_reset, roboman_step

__all__ = ["REFERENCE_ENVS", "ReferenceKitchenEnv", "ReferenceNavEnv", "ReferenceRobomanEnv", "draw_reward_table",
           "kitchen_obs", "kitchen_reset", "kitchen_solved", "kitchen_step", "nav_reset", "nav_step", "render_ansi",
           "roboman_reset", "roboman_step"]


def _nav_env(level: str, *, obs_type: str = "coords", actions: str = "1d_discrete",
             max_episode_steps: int | None = None, **_):
    from gridsim.nav.env import ACTION_TYPES
    from gridsim.nav.level import load_nav_level

    return ReferenceNavEnv(load_nav_level(level), actions=ACTION_TYPES[actions],
                           obs_type="coords" if obs_type == "xy" else obs_type, max_episode_steps=max_episode_steps)


def _roboman_env(level: str, *, obs_type: str = "vector", **_):
    return ReferenceRobomanEnv(task=level.rpartition(":")[2], obs_type=obs_type)


def _kitchen_env(level: str, *, num_agents: int = 2, max_episode_steps: int = 100, **_):
    return ReferenceKitchenEnv(level, num_agents=num_agents, max_episode_steps=max_episode_steps)


# Family name -> a one-env reference of a level: factory(level, obs_type=, actions=, max_episode_steps=, ...).
REFERENCE_ENVS = {"nav": _nav_env, "roboman": _roboman_env, "kitchen": _kitchen_env}
