"""gridsim: thousands of grid worlds per call, in one compiled kernel, behind Gymnasium's VectorEnv.

Importing gridsim registers its ids with Gymnasium::

    import gymnasium as gym
    import gridsim  # noqa: F401

    envs = gym.make_vec("gridsim/PixelWorld-v0", num_envs=4096)
"""

from gridsim.envs import KitchenEnv, KitchenVectorEnv, NavEnv, NavVectorEnv, RobomanEnv, RobomanVectorEnv
from gridsim.envs.nav import make_nav_vec
from gridsim.errors import GridSimError, InvalidActionError, LevelError, LevelNotFoundError
from gridsim.kitchen import LevelParseError
from gridsim.levels import find_level, read_level
from gridsim.nav import TaskSampler
from gridsim.registry import register_all, registered_ids
from gridsim.vector import GridVectorEnv

__version__ = "0.1.0"

__all__ = [
    "GridSimError",
    "GridVectorEnv",
    "InvalidActionError",
    "KitchenEnv",
    "KitchenVectorEnv",
    "LevelError",
    "LevelNotFoundError",
    "LevelParseError",
    "NavEnv",
    "NavVectorEnv",
    "RobomanEnv",
    "RobomanVectorEnv",
    "TaskSampler",
    "find_level",
    "make_vec",
    "read_level",
    "registered_ids",
]



def make_vec(level: str, num_envs: int = 1, **kwargs) -> GridVectorEnv:
    """A vector env for a level name, with the level's own settings as defaults.

    The family comes from the name (``"nav/four_rooms"``) or the level's ``family``
    setting. Settings written in the level file (``max_episode_steps``, ``obs_type``,
    ``actions``, ``alphabet``, ``view_size``) apply unless ``kwargs`` override them.

    Example:
        >>> import gridsim
        >>> envs = gridsim.make_vec("nav/four_rooms", num_envs=8)
        >>> envs.max_episode_steps
        200
    """
    return make_nav_vec(level, num_envs, **kwargs)


register_all()
