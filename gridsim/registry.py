"""Gymnasium registration of every gridsim id (done by ``import gridsim``)."""

from __future__ import annotations

import gymnasium as gym

from gridsim.levels import builtin_level_names, read_level
from gridsim.roboman.tasks import OBJECT_NAMES, TASK_KINDS, TASKS

__all__ = ["PIXELWORLD_IDS", "register_all", "register_level", "registered_ids"]

NAV_ENTRY = {"entry_point": "gridsim.envs:NavEnv", "vector_entry_point": "gridsim.envs:NavVectorEnv"}
KITCHEN_ENTRY = {"entry_point": "gridsim.envs:KitchenEnv", "vector_entry_point": "gridsim.envs:KitchenVectorEnv"}
LEVEL_ENTRY = {"entry_point": "gridsim.envs.single:LevelEnv", "vector_entry_point": "gridsim.api.level:make"}
ROBOMAN_ENTRY = {"entry_point": "gridsim.envs:RobomanEnv", "vector_entry_point": "gridsim.envs:RobomanVectorEnv"}

# The original PixelWorld ids: version -> (alphabet, map stem).
PIXELWORLD_IDS = {
    0: ("navigation", "room1_small"),
    1: ("noisy", "room2_small"),
    2: ("noisy", "room3_small"),
    3: ("noisy", "room4_small"),
    4: ("noisy", "room5_medium"),
    5: ("noisy", "room5_medium_walls"),
}
DEFAULT_MAX_STEPS = 100


def _register(env_id: str, max_episode_steps: int | None, kwargs: dict, entry: dict):
    if env_id in gym.registry:
        return
    gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs=kwargs, **entry)


def register_all():
    """Register every id: PixelWorld-v0..v5, Nav-<level>-v0, Gridroboman-<Task>-v0, Kitchen-<level>-v0."""
    for version, (alphabet, stem) in PIXELWORLD_IDS.items():
        _register(f"gridsim/PixelWorld-v{version}", DEFAULT_MAX_STEPS,
                  {"level": f"nav/{stem}", "alphabet": alphabet}, NAV_ENTRY)
    for name in builtin_level_names("nav"):
        meta = read_level(name).meta
        kwargs = {"level": name}
        for key in ("alphabet", "obs_type", "actions"):
            if key in meta:
                kwargs[key] = meta[key]
        steps = int(meta.get("max_episode_steps", DEFAULT_MAX_STEPS))
        _register(f"gridsim/Nav-{name.split('/', 1)[1]}-v0", steps, kwargs, NAV_ENTRY)
    # Gridroboman truncates by itself (timer == 50), so no spec-level limit: a TimeLimit
    # wrapper would truncate with >= instead.
    for task in TASKS:
        kind = TASK_KINDS[task.kind].replace("{X}", "X").replace("{Y}", "Y")
        kwargs = {"task": kind, "x_obj": OBJECT_NAMES[task.x_obj],
                  "y_obj": OBJECT_NAMES[task.y_obj] if task.y_obj >= 0 else -1}
        _register(task.env_id, None, kwargs, ROBOMAN_ENTRY)
    # Any level by name: gym.make_vec("gridsim/Level-v0", num_envs=N, level="examples/maze:21").
    _register("gridsim/Level-v0", None, {"level": "examples/maze"}, LEVEL_ENTRY)
    for name in builtin_level_names("kitchen"):
        _register(f"gridsim/Kitchen-{name.split('/', 1)[1]}-v0", DEFAULT_MAX_STEPS,
                  {"level": name, "num_agents": 2}, KITCHEN_ENTRY)


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
    gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs={"level": level, **kwargs}, **LEVEL_ENTRY)


def registered_ids() -> list[str]:
    """Every gridsim id in Gymnasium's registry, sorted."""
    return sorted(k for k in gym.registry if k.startswith("gridsim/"))
