"""Slow, readable pure-Python steppers: the oracles the kernel is tested against.

Nothing here is used on the step path of a real env.
"""

from gridsim.reference.nav import ReferenceNavEnv, draw_reward_table, nav_reset, nav_step

__all__ = ["ReferenceNavEnv", "draw_reward_table", "nav_reset", "nav_step"]
