"""The environments of every family: ``<Family>VectorEnv`` and its single-env view ``<Family>Env``."""

from gridsim.envs.kitchen import KitchenEnv, KitchenVectorEnv
from gridsim.envs.nav import NavEnv, NavVectorEnv
from gridsim.envs.roboman import RobomanEnv, RobomanVectorEnv
from gridsim.envs.single import SingleEnvView

__all__ = [
    "KitchenEnv",
    "KitchenVectorEnv",
    "NavEnv",
    "NavVectorEnv",
    "RobomanEnv",
    "RobomanVectorEnv",
    "SingleEnvView",
]
