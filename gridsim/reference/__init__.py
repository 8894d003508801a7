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

__all__ = ["ReferenceKitchenEnv", "ReferenceNavEnv", "ReferenceRobomanEnv", "draw_reward_table", "kitchen_obs",
           "kitchen_reset", "kitchen_solved", "kitchen_step", "nav_reset", "nav_step", "render_ansi", "roboman_reset",
           "roboman_step"]
