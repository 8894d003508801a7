"""gridsim: thousands of grid worlds per call, in one compiled kernel, behind Gymnasium's VectorEnv.

Importing gridsim registers its ids with Gymnasium::

    import gymnasium as gym
    import gridsim  # noqa: F401

    envs = gym.make_vec("gridsim/PixelWorld-v0", num_envs=4096)
"""

from gridsim.envs import NavEnv, NavVectorEnv
from gridsim.errors import GridSimError, InvalidActionError, LevelError, LevelNotFoundError
from gridsim.levels import find_level, read_level
from gridsim.nav import TaskSampler
from gridsim.registry import register_all, registered_ids
from gridsim.vector import GridVectorEnv

__version__ = "0.1.0"

__all__ = [
    "GridSimError",
    "GridVectorEnv",
    "InvalidActionError",
    "LevelError",
    "LevelNotFoundError",
    "NavEnv",
    "NavVectorEnv",
    "TaskSampler",
    "find_level",
    "read_level",
    "registered_ids",
]

register_all()
