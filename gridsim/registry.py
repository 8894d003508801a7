"""Gymnasium registration of every gridsim id (done by ``import gridsim``): each family registers its own."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from gridsim.engine.family import Family
from gridsim.families import FAMILIES

__all__ = ["ALIASES", "entry_point", "register_all", "register_level", "registered_ids"]

LEVEL_ENTRY_POINT, LEVEL_VECTOR_ENTRY_POINT = "gridsim.make:LevelEnv", "gridsim.make:make"
# Older names of gridsim ids, kept for ported code: old id -> the id gridsim leads with.
ALIASES: dict[str, str] = {}


def entry_point(cls: type) -> str:
    """A class's Gymnasium entry point, ``"module:name"``: where the class is defined (``gridsim.nav.env:NavEnv``)."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register_all():
    """Register every family's ids, and ``gridsim/Level-v0`` (any level by name)."""
    for fam in FAMILIES.values():
        def register(env_id: str, max_episode_steps: int | None, kwargs: dict[str, Any],
                     alias_of: str | None = None, fam: Family = fam) -> None:
            if alias_of is not None:
                ALIASES[env_id] = alias_of
            if env_id not in gym.registry:
                gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs=kwargs,
                             entry_point=entry_point(fam.single_env), vector_entry_point=entry_point(fam.vector_env))

        fam.register_ids(register)
    # Any level by name: gym.make_vec("gridsim/Level-v0", num_envs=N, level="examples/maze:21").
    if "gridsim/Level-v0" not in gym.registry:
        gym.register(id="gridsim/Level-v0", kwargs={"level": "examples/maze"},
                     entry_point=LEVEL_ENTRY_POINT, vector_entry_point=LEVEL_VECTOR_ENTRY_POINT)


def register_level(env_id: str, level: str, max_episode_steps: int | None = None, **kwargs):
    """Register ``env_id`` for a level name, so ``gymnasium.make_vec(env_id, num_envs=N)`` builds it.

    ``kwargs`` (``settings``, ``level_directory``, family arguments) become the id's defaults.

    Example:
        >>> import gymnasium as gym
        >>> import gridsim
        >>> gridsim.register_level("my/Maze21-v0", "examples/maze:21")
        >>> envs = gym.make_vec("my/Maze21-v0", num_envs=4)
        >>> envs.observation_space.shape
        (4, 7, 7)
    """
    gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs={"level": level, **kwargs},
                 entry_point=LEVEL_ENTRY_POINT, vector_entry_point=LEVEL_VECTOR_ENTRY_POINT)


def registered_ids(aliases: bool = False) -> list[str]:
    """Every gridsim id in Gymnasium's registry, sorted.

    Args:
        aliases: include the older names kept for ported code (:data:`ALIASES`, such as
            ``gridsim/PixelWorld-v0``, the same env as ``gridsim/PixelWorld-room1_small-v0``).

    Returns:
        The ids, sorted.
    """
    return sorted(k for k in gym.registry if k.startswith("gridsim/") and (aliases or k not in ALIASES))
