"""Slow, readable pure-Python steppers: the oracles the kernel is tested against.

Nothing here is used on the step path of a real env.
"""

from gridsim.reference.nav import ReferenceNavEnv, draw_reward_table, nav_reset, nav_step
from gridsim.reference.roboman import ReferenceRobomanEnv, roboman_reset, roboman_step

__all__ = ["ReferenceNavEnv", "ReferenceRobomanEnv", "draw_reward_table", "nav_reset", "nav_step", "roboman_reset",
           "roboman_step"]
