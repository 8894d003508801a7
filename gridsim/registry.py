"""Gymnasium registration of every gridsim id (done by ``import gridsim``): each family registers its own."""

from __future__ import annotations

import functools
from typing import Any, cast

import gymnasium as gym

from gridsim.engine.family import Family
from gridsim.engine.settings import as_flag
from gridsim.errors import InvalidArgumentError
from gridsim.families import FAMILIES
from gridsim.levels.lookup import ID_NAMESPACE

__all__ = ["ALIASES", "LEVEL_ID", "entry_point", "has_own_limit", "id_family", "id_step_limit", "register_all",
           "register_family_id", "register_level", "register_task", "registered_ids"]

# The id of any level by name: gym.make("gridsim/Level-v0", level="nav/four_rooms").
LEVEL_ID = ID_NAMESPACE + "Level-v0"
LEVEL_ENTRY_POINT, LEVEL_VECTOR_ENTRY_POINT = "gridsim.make:LevelEnv", "gridsim.make:make"
# Older names of gridsim ids, kept for ported code: old id -> the id gridsim leads with.
ALIASES: dict[str, str] = {}
# The ids gridsim registers itself (register_all), named as such when register_level refuses one.
_builtin_ids: set[str] = set()


def entry_point(cls: type) -> str:
    """A class's Gymnasium entry point, ``"module:name"``: where the class is defined (``gridsim.nav.env:NavEnv``)."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register_family_id(fam: Family, env_id: str, max_episode_steps: int | None, kwargs: dict[str, Any],
                       alias_of: str | None = None) -> None:
    """Register one id of family ``fam`` (the ``register`` its ``register_ids`` is given).

    The step limit goes on the spec: ``gym.make`` wraps the one env in a ``TimeLimit`` and
    ``gym.make_vec`` passes it to the vector env as ``max_episode_steps``. An env that truncates
    by itself unless told otherwise (a family whose ``max_steps`` setting has a default, as
    gridroboman's 50) would then stop at its own limit under ``gym.make`` when that comes first;
    its limit goes into its keyword arguments instead, so both build the same env, which
    truncates by itself: they play the same episodes and truncate on the same step.
    """
    if alias_of is not None:
        ALIASES[env_id] = alias_of
    if max_episode_steps is not None and has_own_limit(fam.vector_env):
        kwargs, max_episode_steps = {**kwargs, "max_episode_steps": max_episode_steps}, None
    if env_id not in gym.registry:
        gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs=kwargs,
                     entry_point=entry_point(fam.single_env), vector_entry_point=entry_point(fam.vector_env))
    _builtin_ids.add(env_id)


def has_own_limit(vector_env: type) -> bool:
    """Whether an env of this class made without ``max_episode_steps`` truncates by itself."""
    decl = getattr(vector_env, "SETTINGS", {}).get("max_steps")
    return decl is not None and decl.default is not None


def id_step_limit(level: str) -> int | None:
    """The step limit of the ids gridsim registers for the built-in level named ``level``, or None.

    A level by name builds the env of its id (``"kitchen/open-divider_salad"`` and
    ``gridsim/Kitchen-open-divider_salad-v0``) except, for some, the step limit, which only the id
    sets (100 steps for the kitchens, gym-cooking's own); the tools give such a level its id's.

    Returns:
        The limit every id of gridsim's for that level has; None when no id names the level, when
        its ids have no limit, or when they disagree.
    """
    limits = set()
    for env_id in _builtin_ids:
        spec = gym.registry.get(env_id)
        if spec is None or spec.kwargs.get("level") != level:
            continue
        # A family that truncates by itself has its id's limit in the arguments (register_family_id).
        limits.add(spec.max_episode_steps if spec.max_episode_steps is not None
                   else spec.kwargs.get("max_episode_steps"))
    return limits.pop() if len(limits) == 1 else None


def register_all():
    """Register every family's ids, and ``gridsim/Level-v0`` (any level by name)."""
    for fam in FAMILIES.values():
        fam.register_ids(functools.partial(register_family_id, fam))
    # Any level by name: gym.make_vec("gridsim/Level-v0", num_envs=N, level="examples/maze:21").
    if LEVEL_ID not in gym.registry:
        gym.register(id=LEVEL_ID, kwargs={"level": "examples/maze"},
                     entry_point=LEVEL_ENTRY_POINT, vector_entry_point=LEVEL_VECTOR_ENTRY_POINT)
    _builtin_ids.add(LEVEL_ID)


def register_level(env_id: str, level: str, max_episode_steps: int | None = None, *, overwrite: bool = False,
                   **kwargs):
    """Register ``env_id`` for a level name, so ``gymnasium.make_vec(env_id, num_envs=N)`` builds it.

    ``kwargs`` (``settings``, ``level_directory``, family arguments) become the id's defaults.
    ``max_episode_steps`` is the id's step limit, on the spec and in the env's arguments: a level
    may set a limit of its own, which it replaces, so ``gymnasium.make`` and ``gymnasium.make_vec``
    truncate on the same step. An id that is already registered (a built-in gridsim id, one
    registered before, any Gymnasium id) is replaced only with ``overwrite=True``.

    Raises:
        InvalidArgumentError: ``env_id`` is already registered and ``overwrite`` is False.

    Example:
        >>> import gymnasium as gym
        >>> import gridsim
        >>> gridsim.register_level("my/Maze21-v0", "examples/maze:21")
        >>> envs = gym.make_vec("my/Maze21-v0", num_envs=4)
        >>> envs.observation_space.shape
        (4, 7, 7)
    """
    if env_id in gym.registry:
        if not as_flag(overwrite, "overwrite"):
            what = "a built-in gridsim id" if env_id in _builtin_ids else "already registered"
            raise InvalidArgumentError(f"{env_id!r} is {what}; pass overwrite=True to replace it")
        del gym.registry[env_id]  # replaced on purpose: no notice from Gymnasium
        ALIASES.pop(env_id, None)
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    gym.register(id=env_id, max_episode_steps=max_episode_steps, kwargs={"level": level, **limit, **kwargs},
                 entry_point=LEVEL_ENTRY_POINT, vector_entry_point=LEVEL_VECTOR_ENTRY_POINT)


def register_task(env_id: str, task: Any, *, overwrite: bool = False, **kwargs: Any) -> None:
    """Register ``env_id`` for a Python task (a Minigrid ``MiniGridEnv`` subclass), as Minigrid registers its ids.

    ``task`` may also be a compiled task (``gridsim.minigrid.compiled.task``); ``kwargs`` are then
    gridsim's settings.

    ``gymnasium.make(env_id)`` then makes one env of it (``gridsim.minigrid.python_tasks.PythonTaskEnv``)
    and ``gymnasium.make_vec(env_id, num_envs=N)`` a batch (``PythonTaskVectorEnv``), each env
    playing ``task(**kwargs)`` seed for seed (``kwargs``: the class's arguments and gridsim's
    settings, as ``gridsim.make(task, **kwargs)`` sorts them). The class is checked now: one the
    kernel cannot play is refused here, with a line saying why.

    Raises:
        InvalidArgumentError: ``env_id`` is already registered and ``overwrite`` is False, or the
            kernel cannot play ``task``.

    Example:
        >>> import gymnasium as gym  # doctest: +SKIP
        >>> gridsim.register_task("MyDoorKey-v0", MyDoorKey, size=6)  # doctest: +SKIP
        >>> envs = gym.make_vec("MyDoorKey-v0", num_envs=64)  # doctest: +SKIP
    """
    from gridsim.minigrid.compiled import CompiledTask, CompiledTaskEnv
    from gridsim.minigrid.python_tasks import PythonTaskEnv, make_task_env, rule_of

    compiled = isinstance(task, CompiledTask)
    if not compiled:
        rule_of(task)
    if env_id in gym.registry:
        if not as_flag(overwrite, "overwrite"):
            what = "a built-in gridsim id" if env_id in _builtin_ids else "already registered"
            raise InvalidArgumentError(f"{env_id!r} is {what}; pass overwrite=True to replace it")
        del gym.registry[env_id]
        ALIASES.pop(env_id, None)
    name = kwargs.pop("name", env_id)
    if compiled:
        gym.register(id=env_id, kwargs={"task": task, **kwargs}, entry_point=cast(Any, CompiledTaskEnv),
                     vector_entry_point=functools.partial(_task_batch, None))
        return
    gym.register(id=env_id, kwargs={"task": task, "name": name, **kwargs}, entry_point=cast(Any, PythonTaskEnv),
                 vector_entry_point=functools.partial(_task_batch, make_task_env))


def _task_batch(make: Any, num_envs: int = 1, *, task: Any, **kwargs: Any) -> Any:
    # gym.make_vec's call: the spec's arguments and the caller's (make None: a compiled task's own).
    return task.make_env(num_envs, **kwargs) if make is None else make(task, num_envs, **kwargs)


def registered_ids(aliases: bool = False) -> list[str]:
    """Every gridsim id in Gymnasium's registry, sorted.

    Args:
        aliases: include the older names kept for ported code (:data:`ALIASES`, such as
            ``gridsim/PixelWorld-v0``, the same env as ``gridsim/PixelWorld-room1_small-v0``).

    Returns:
        The ids, sorted.
    """
    return sorted(k for k in gym.registry if k.startswith(ID_NAMESPACE) and (aliases or k not in ALIASES))


def id_family(env_id: str) -> Family | None:
    """The family whose env a registered id makes.

    Returns:
        The family's row; None for an id that is not registered, not gridsim's, or of a level by
        name (``gridsim/Level-v0``, the ids of :func:`register_level`), whose family is its level's.
    """
    spec = gym.registry.get(env_id)
    if spec is None:
        return None
    return next((f for f in FAMILIES.values() if spec.vector_entry_point == entry_point(f.vector_env)), None)
