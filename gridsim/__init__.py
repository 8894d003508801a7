"""gridsim: thousands of grid worlds per call, in one compiled kernel, behind Gymnasium's VectorEnv.

Importing gridsim registers its ids with Gymnasium::

    import gymnasium as gym
    import gridsim  # noqa: F401

    envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=4096)
"""

import gridsim._core as _core
from gridsim.engine.events import EventSpec
from gridsim.engine.vector import GridVectorEnv
from gridsim.envs import KitchenEnv, KitchenVectorEnv, NavEnv, NavVectorEnv, RobomanEnv, RobomanVectorEnv
from gridsim.errors import (
    ArgumentTypeError,
    ClosedEnvError,
    EnvIndexError,
    GridSimError,
    InvalidActionError,
    InvalidArgumentError,
    InvalidStateError,
    KernelError,
    LevelError,
    LevelNotFoundError,
    NameNotFoundError,
    PolicyError,
)
from gridsim.kitchen import LevelParseError
from gridsim.lab2d import (
    ActionSpec,
    EnvironmentStatus,
    ObsSpec,
    PropertyAttribute,
    PropertyResult,
    Setting,
    SettingsError,
    flatten_args,
)
from gridsim.levels.lookup import find_level, read_level
from gridsim.make import Level, make
from gridsim.nav import TaskSampler
from gridsim.registry import register_all, register_level, registered_ids
from gridsim.tools.evaluate import evaluate
from gridsim.tools.policies import RandomPolicy
from gridsim.tools.results import EvalResult, SweepResult

__version__ = "0.1.0"

__all__ = [
    "ActionSpec",
    "EnvironmentStatus",
    "EvalResult",
    "EventSpec",
    "ArgumentTypeError",
    "ClosedEnvError",
    "EnvIndexError",
    "GridSimError",
    "GridVectorEnv",
    "InvalidActionError",
    "InvalidArgumentError",
    "InvalidStateError",
    "KernelError",
    "KitchenEnv",
    "KitchenVectorEnv",
    "Level",
    "LevelError",
    "LevelNotFoundError",
    "NameNotFoundError",
    "LevelParseError",
    "NavEnv",
    "ObsSpec",
    "PropertyAttribute",
    "PropertyResult",
    "NavVectorEnv",
    "PolicyError",
    "RandomPolicy",
    "RobomanEnv",
    "RobomanVectorEnv",
    "Setting",
    "SettingsError",
    "SweepResult",
    "TaskSampler",
    "evaluate",
    "find_level",
    "flatten_args",
    "make",
    "make_vec",
    "read_level",
    "register_level",
    "registered_ids",
    "threads_available",
]



def threads_available() -> bool:
    """Whether the compiled kernel was built with OpenMP, so that ``num_threads`` > 1 is accepted."""
    return bool(_core.OPENMP)


def make_vec(level: str, num_envs: int = 1, **kwargs) -> GridVectorEnv:
    """A vector env for a level name, with the level's own settings as defaults (:func:`gridsim.make`).

    The family comes from the name (``"nav/four_rooms"``, ``"roboman:LiftRed"``) or the
    level's ``family`` setting. Settings written in the level file (``max_episode_steps``,
    ``obs_type``, ``actions``, ``alphabet``, ``view_size``) apply unless ``kwargs`` override them.

    Example:
        >>> import gridsim
        >>> envs = gridsim.make_vec("nav/four_rooms", num_envs=8)
        >>> envs.max_episode_steps
        200
    """
    return make(level, num_envs, **kwargs)


register_all()
