"""The env classes of every family, at their documented import path (re-exports only)."""

from gridsim.engine.single import SingleEnvView
from gridsim.kitchen.env import KitchenEnv, KitchenVectorEnv
from gridsim.nav.env import NavEnv, NavVectorEnv
from gridsim.roboman.env import RobomanEnv, RobomanVectorEnv

__all__ = ["KitchenEnv", "KitchenVectorEnv", "NavEnv", "NavVectorEnv", "RobomanEnv", "RobomanVectorEnv",
           "SingleEnvView"]
