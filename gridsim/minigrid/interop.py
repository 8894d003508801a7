"""A live Farama Minigrid env as a gridsim state: :func:`state_of`.

``state_of(env)`` reads a Minigrid env mid-episode (grid, agent, carried object, step
count, mission, generator and the id's own episode data) into the dict that
:meth:`gridsim.minigrid.env.MinigridVectorEnv.set_state` and
:meth:`gridsim.minigrid.env.MinigridEnv.set_state` take, so that a gridsim env continues that
episode, and every later one, exactly as the Minigrid env does.

The env is only read through its attributes (``grid``, ``agent_pos``, ``agent_dir``,
``carrying``, ``step_count``, ``mission``, ``np_random`` and, per id, ``obstacles``,
``success_pos`` / ``failure_pos``, ``target_pos`` (with ``move_type`` / ``moveColor``),
``targetType`` / ``targetColor`` or ``red_door`` / ``blue_door``); gridsim never imports ``minigrid``.

Example:
    >>> import gymnasium as gym
    >>> import minigrid  # doctest: +SKIP
    >>> ref = gym.make("MiniGrid-DoorKey-8x8-v0")  # doctest: +SKIP
    >>> _ = ref.reset(seed=0)  # doctest: +SKIP
    >>> env = gym.make("gridsim/MiniGrid-DoorKey-8x8-v0")  # doctest: +SKIP
    >>> obs, info = env.unwrapped.set_state(state_of(ref))  # doctest: +SKIP
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel
from gridsim.minigrid.world import COLOR_TO_IDX, OBJECT_TO_IDX, contents_code

__all__ = ["contents_code", "state_of", "task_of"]


def _pair(pos: Any) -> tuple[int, int]:
    return int(pos[0]), int(pos[1])


def task_of(env: Any) -> tuple[int, ...]:
    """The generator's own episode data of a Minigrid env, in the kernel's ``task`` layout.

    Dynamic-Obstacles: the ball count, then each ball's ``(x, y)`` in the order of
    ``env.obstacles`` (the order they move in); Memory: ``success_pos`` then ``failure_pos``;
    PutNear: ``target_pos``, then the object to move (object index, colour index);
    GoToDoor and GoToObject: ``target_pos``; Fetch: the target's object and colour indices;
    RedBlueDoors: the red door's ``(x, y)``, then the blue door's; UnlockPickup,
    BlockedUnlockPickup, KeyCorridor and ObstructedMaze: the object to pick up's type and colour
    (``obj``, the one object of its kind in the world); Unlock: the door's ``(x, y)``. Other ids
    keep nothing there (an empty tuple).
    """
    u = getattr(env, "unwrapped", env)
    obstacles = getattr(u, "obstacles", None)
    if obstacles is not None:
        out = [len(obstacles)]
        for ball in obstacles:
            out.extend(_pair(ball.cur_pos))
        return tuple(out)
    if hasattr(u, "success_pos") and hasattr(u, "failure_pos"):
        return (*_pair(u.success_pos), *_pair(u.failure_pos))
    if hasattr(u, "move_type") and hasattr(u, "target_pos"):  # PutNear (before target_pos alone)
        return (*_pair(u.target_pos), OBJECT_TO_IDX[u.move_type], COLOR_TO_IDX[u.moveColor])
    if hasattr(u, "target_pos"):
        return _pair(u.target_pos)
    target = getattr(u, "obj", None)  # RoomGrid's object to pick up
    if target is not None:
        return OBJECT_TO_IDX[target.type], COLOR_TO_IDX[target.color]
    door = getattr(u, "door", None)  # Unlock's door
    if door is not None:
        return _pair(door.cur_pos)
    if hasattr(u, "targetType") and hasattr(u, "targetColor"):  # Fetch
        return OBJECT_TO_IDX[u.targetType], COLOR_TO_IDX[u.targetColor]
    if hasattr(u, "red_door") and hasattr(u, "blue_door"):
        return (*_door_pos(u, u.red_door), *_door_pos(u, u.blue_door))
    return ()


def _door_pos(u: Any, door: Any) -> tuple[int, int]:
    # The door's cell, found by identity (a door's cur_pos is not kept by grid.set).
    width = int(u.grid.width)
    for k, obj in enumerate(u.grid.grid):
        if obj is door:
            return k % width, k // width
    raise ValueError("the door is not in the grid")


def state_of(env: Any) -> dict[str, Any]:
    """The gridsim state of a live Minigrid env (``gym.make("MiniGrid-...")`` or its ``unwrapped``).

    Args:
        env: a reset Minigrid env, read only.

    Returns:
        ``get_state()``'s format: ``grid`` (W, H, 3) uint8 (``grid.encode()``), ``contents``
        (W, H) uint8, ``agent_pos``, ``agent_dir``, ``carrying`` (its encoding or None),
        ``carrying_contents``, ``step_count``, ``mission``, ``task`` (:func:`task_of`, zero-padded
        to every slot) and ``bit_generator`` (a copy of ``np_random.bit_generator.state``).

    Raises:
        ValueError: the env's generator is not numpy's PCG64, or its task data does not fit.
    """
    u = getattr(env, "unwrapped", env)
    grid = u.grid
    W, H = int(grid.width), int(grid.height)
    contents = np.zeros((W, H), np.uint8)
    cells = getattr(grid, "grid", None)  # Grid's flat list, cell (x, y) at y * W + x
    if not isinstance(cells, list) or len(cells) != W * H:
        cells = [grid.get(x, y) for y in range(H) for x in range(W)]
    for k, obj in enumerate(cells):
        if obj is not None and obj.type == "box":
            contents[k % W, k // W] = contents_code(obj.contains)
    carried = u.carrying
    task = task_of(u)
    if len(task) > _kernel.MINIGRID_TASK_SLOTS:
        raise ValueError(f"{len(task)} task values; the kernel keeps {_kernel.MINIGRID_TASK_SLOTS}")
    bit_generator = copy.deepcopy(u.np_random.bit_generator.state)
    if bit_generator.get("bit_generator") != "PCG64":
        raise ValueError(f"the env draws from {bit_generator.get('bit_generator')!r}, not numpy's PCG64")
    return {
        "grid": np.ascontiguousarray(np.asarray(grid.encode(), dtype=np.uint8)),
        "contents": contents,
        "agent_pos": _pair(u.agent_pos),
        "agent_dir": int(u.agent_dir),
        "carrying": None if carried is None else tuple(int(v) for v in carried.encode()),
        "carrying_contents": contents_code(carried.contains) if carried is not None and carried.type == "box" else 0,
        "step_count": int(u.step_count),
        "mission": str(u.mission),
        "task": task + (0,) * (_kernel.MINIGRID_TASK_SLOTS - len(task)),
        "bit_generator": bit_generator,
    }
