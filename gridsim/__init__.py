"""gridsim: thousands of grid worlds per call, in one compiled kernel, behind Gymnasium's VectorEnv.

Importing gridsim registers its ids with Gymnasium::

    import gymnasium as gym
    import gridsim  # noqa: F401

    envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=4096)
"""

from typing import TYPE_CHECKING, Any

import gridsim._build_check  # noqa: F401 - first: a clear error where the compiled modules are not built
import gridsim._core as _core
from gridsim._version import __version__ as __version__
from gridsim.engine.checkpoint import load_checkpoint, save_checkpoint
from gridsim.engine.events import EventSpec
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import (
    ArgumentTypeError,
    ClosedEnvError,
    EnvIndexError,
    ForkedEnvError,
    GridSimError,
    InvalidActionError,
    InvalidArgumentError,
    InvalidStateError,
    KernelError,
    LevelError,
    LevelNotFoundError,
    NameNotFoundError,
    PolicyError,
    ReadOnlyAttributeError,
)
from gridsim.families import FAMILIES
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
from gridsim.registry import register_all, register_level, register_task, registered_ids
from gridsim.tools.evaluate import evaluate
from gridsim.tools.policies import RandomPolicy
from gridsim.tools.results import EvalResult, SweepResult

__all__ = [
    "ActionSpec",
    "EnvironmentStatus",
    "EvalResult",
    "EventSpec",
    "ArgumentTypeError",
    "ClosedEnvError",
    "EnvIndexError",
    "ForkedEnvError",
    "GridSimError",
    "GridVectorEnv",
    "InvalidActionError",
    "InvalidArgumentError",
    "InvalidStateError",
    "KernelError",
    "Level",
    "LevelError",
    "LevelNotFoundError",
    "NameNotFoundError",
    "ObsSpec",
    "PropertyAttribute",
    "PropertyResult",
    "PolicyError",
    "ReadOnlyAttributeError",
    "RandomPolicy",
    "Setting",
    "SettingsError",
    "SweepResult",
    "evaluate",
    "find_level",
    "flatten_args",
    "load_checkpoint",
    "make",
    "make_vec",
    "read_level",
    "register_level",
    "register_task",
    "registered_ids",
    "save_checkpoint",
    "threads_available",
]


def _add_family_names() -> None:
    """Each family's env classes and ``exports`` (``gridsim.NavVectorEnv``, ``gridsim.TaskSampler``)."""
    namespace = globals()
    for fam in FAMILIES.values():
        for name, obj in fam.public_names.items():
            if name in namespace:
                raise ImportError(f"the {fam.name} family's {name!r} would hide gridsim.{name}")
            namespace[name] = obj
            __all__.append(name)


_add_family_names()

if TYPE_CHECKING:
    # The family names are added from the family table above, which a type checker does not run.
    def __getattr__(name: str) -> Any: ...


def threads_available() -> bool:
    """Whether the kernel was built with its worker pool (POSIX threads), so that ``num_threads`` > 1 is accepted."""
    return bool(_core.THREADS)


# The batched env of a level by name: the same function as make, under the name the vector
# envs' users look for (documented in make's docstring), kept as an alias, not a second function.
make_vec = make


register_all()
