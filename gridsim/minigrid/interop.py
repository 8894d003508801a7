"""A live Farama Minigrid env as a gridsim state: :func:`state_of`, and the env to put it in: :func:`env_kwargs_of`.

``state_of(env)`` reads a Minigrid env mid-episode (grid, agent, carried object, step
count, mission, generator and the id's own episode data) into the dict that
:meth:`gridsim.minigrid.env.MinigridVectorEnv.set_state` and
:meth:`gridsim.minigrid.env.MinigridEnv.set_state` take, so that a gridsim env continues that
episode, and every later one, exactly as the Minigrid env does. That takes a gridsim env made
with the Minigrid env's id and settings (its view size, step limit and ``see_through_walls``):
``env_kwargs_of(env)`` gives them as keyword arguments, and ``set_state`` refuses a state of an
env whose settings differ from its own. What gridsim cannot hold (a box in a box that holds
something, a door in a box that is not open) is refused, never dropped.

The env is only read through its attributes (``grid``, ``agent_pos``, ``agent_dir``,
``carrying``, ``step_count``, ``mission``, ``np_random`` and, per id, ``obstacles``,
``success_pos`` / ``failure_pos``, ``target_pos`` (with ``move_type`` / ``moveColor``),
``targetType`` / ``targetColor`` or ``red_door`` / ``blue_door``); gridsim never imports ``minigrid``.

Example:
    >>> import gymnasium as gym
    >>> import minigrid  # doctest: +SKIP
    >>> ref = gym.make("MiniGrid-DoorKey-8x8-v0")  # doctest: +SKIP
    >>> _ = ref.reset(seed=0)  # doctest: +SKIP
    >>> env = gym.make("gridsim/MiniGrid-DoorKey-8x8-v0", **env_kwargs_of(ref))  # doctest: +SKIP
    >>> obs, info = env.unwrapped.set_state(state_of(ref))  # doctest: +SKIP
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel
from gridsim.errors import InvalidArgumentError
from gridsim.minigrid.ids import MINIGRID_IDS, REFERENCE_IDS
from gridsim.minigrid.world import COLOR_TO_IDX, OBJECT_TO_IDX, contents_code

__all__ = ["TASK_READERS", "contents_code", "env_kwargs_of", "state_of", "task_of"]


def _pair(pos: Any) -> tuple[int, int]:
    return int(pos[0]), int(pos[1])


def _balls(u: Any) -> tuple[int, ...]:
    out = [len(u.obstacles)]
    for ball in u.obstacles:
        out.extend(_pair(ball.cur_pos))
    return tuple(out)


def _target(obj: Any) -> tuple[int, int]:
    return OBJECT_TO_IDX[obj.type], COLOR_TO_IDX[obj.color]


# What each rule's step reads of the env, in the kernel's task layout: (the attributes that say
# an env keeps it, the reader). Minigrid's own steps read the same attributes.
TASK_READERS: dict[str, tuple[tuple[str, ...], Any]] = {
    "avoid_moving_balls": (("obstacles",), _balls),
    "go_to_matching_object": (("success_pos", "failure_pos"), lambda u: (*_pair(u.success_pos),
                                                                        *_pair(u.failure_pos))),
    "put_target_near": (("move_type", "target_pos"), lambda u: (*_pair(u.target_pos), OBJECT_TO_IDX[u.move_type],
                                                                COLOR_TO_IDX[u.moveColor])),
    "done_next_to_target": (("target_pos",), lambda u: _pair(u.target_pos)),
    "pick_up_target": (("obj",), lambda u: _target(u.obj)),
    "open_target_door": (("door",), lambda u: _pair(u.door.cur_pos)),
    "fetch_target": (("targetType", "targetColor"), lambda u: (OBJECT_TO_IDX[u.targetType],
                                                               COLOR_TO_IDX[u.targetColor])),
    "open_doors_in_order": (("red_door", "blue_door"), lambda u: (*_door_pos(u, u.red_door),
                                                                   *_door_pos(u, u.blue_door))),
}


def task_of(env: Any, rule: str | None = None) -> tuple[int, ...]:
    """The generator's own episode data of a Minigrid env, in the kernel's ``task`` layout.

    Dynamic-Obstacles: the ball count, then each ball's ``(x, y)`` in the order of
    ``env.obstacles`` (the order they move in); Memory: ``success_pos`` then ``failure_pos``;
    PutNear: ``target_pos``, then the object to move (object index, colour index);
    GoToDoor and GoToObject: ``target_pos``; Fetch: the target's object and colour indices;
    RedBlueDoors: the red door's ``(x, y)``, then the blue door's; UnlockPickup,
    BlockedUnlockPickup, KeyCorridor and ObstructedMaze: the object to pick up's type and colour
    (``obj``, the one object of its kind in the world); Unlock: the door's ``(x, y)``. Other ids
    keep nothing there (an empty tuple).

    Args:
        env: a Minigrid env (or its ``unwrapped``), read only.
        rule: the step's rule (a name of ``gridsim.minigrid.tasks.RULES``): read what it reads
            (:data:`TASK_READERS`). None: the first rule whose attributes the env has, in the
            order above.
    """
    u = getattr(env, "unwrapped", env)
    if rule is not None:
        reader = TASK_READERS.get(rule)
        return () if reader is None else reader[1](u)
    for names, read in TASK_READERS.values():
        if all(hasattr(u, name) and getattr(u, name) is not None for name in names):
            return read(u)
    return ()


def _door_pos(u: Any, door: Any) -> tuple[int, int]:
    # The door's cell, found by identity (a door's cur_pos is not kept by grid.set).
    width = int(u.grid.width)
    for k, obj in enumerate(u.grid.grid):
        if obj is door:
            return k % width, k // width
    raise InvalidArgumentError("the door is not in the grid")


def env_kwargs_of(env: Any) -> dict[str, Any]:
    """The keyword arguments of a gridsim MiniGrid env that plays as the Minigrid env ``env`` does.

    ``MinigridVectorEnv(num_envs, **kwargs)``, ``MinigridEnv(**kwargs)`` and
    ``gym.make("gridsim/" + env.spec.id, **kwargs)`` then continue its states (:func:`state_of`)
    and start its next episodes as it does.

    Args:
        env: a Minigrid env (``gym.make("MiniGrid-...")`` or its ``unwrapped``), read only.

    Returns:
        ``agent_view_size``, ``max_episode_steps`` (Minigrid's ``max_steps``: the step limit and
        the reward's scale), ``see_through_walls`` and, where the env was made from an id
        (``env.spec``), that id as ``env_name``.

    Raises:
        InvalidArgumentError: the env was made from an id that gridsim does not play.
    """
    u = getattr(env, "unwrapped", env)
    out: dict[str, Any] = {}
    spec = getattr(u, "spec", None)
    env_id = getattr(spec, "id", None)
    if env_id is not None:
        if env_id not in REFERENCE_IDS:
            raise InvalidArgumentError(
                f"the env is Minigrid's {env_id!r}, which gridsim does not play (it has {len(MINIGRID_IDS)} ids: "
                "`gridsim list minigrid`)")
        out["env_name"] = env_id
    out.update(agent_view_size=int(u.agent_view_size), max_episode_steps=int(u.max_steps),
               see_through_walls=bool(u.see_through_walls))
    if hasattr(u, "instrs") and not getattr(u, "fixed_max_steps", True):
        del out["max_episode_steps"]  # a BabyAI level's limit is each episode's (state_of's max_steps)
    return out


def state_of(env: Any) -> dict[str, Any]:
    """The gridsim state of a live Minigrid env (``gym.make("MiniGrid-...")`` or its ``unwrapped``).

    Args:
        env: a reset Minigrid env, read only.

    Returns:
        ``get_state()``'s format: ``grid`` (W, H, 3) uint8 (``grid.encode()``), ``contents``
        (W, H) uint8, ``agent_pos``, ``agent_dir``, ``carrying`` (its encoding or None),
        ``carrying_contents``, ``step_count``, ``mission``, ``task`` (:func:`task_of`, zero-padded
        to every slot) and ``bit_generator`` (a copy of ``np_random.bit_generator.state``); and
        ``env_kwargs`` (:func:`env_kwargs_of`), which ``set_state`` checks against the env's own.
        A BabyAI env's also has ``object_ids``, ``carrying_id``, ``instrs`` and ``max_steps``
        (``get_state``'s: its objects numbered, its instruction tree with the verifier's
        progress, this episode's limit).

    Raises:
        InvalidArgumentError: (a ``ValueError``) something gridsim cannot hold: a box that holds
            a box that holds something, or a door that is not open (:func:`contents_code`, also
            for the carried box); a generator other than numpy's PCG64; task data that does not
            fit; an id gridsim does not play. The message names it.
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
            contents[k % W, k // W] = contents_code(obj.contains, f"the box at ({k % W}, {k // W})")
    carried = u.carrying
    carried_box = carried is not None and carried.type == "box"
    carrying_contents = contents_code(carried.contains, "the box carried") if carried_box else 0
    task = task_of(u)
    if len(task) > _kernel.MINIGRID_TASK_SLOTS:
        raise InvalidArgumentError(f"{len(task)} task values; the kernel keeps {_kernel.MINIGRID_TASK_SLOTS}")
    bit_generator = copy.deepcopy(u.np_random.bit_generator.state)
    if bit_generator.get("bit_generator") != "PCG64":
        raise InvalidArgumentError(f"the env draws from {bit_generator.get('bit_generator')!r}, not numpy's PCG64")
    babyai = _babyai_of(u, cells, W, H) if hasattr(u, "instrs") else {}
    if babyai:
        task = ()  # a BabyAI level keeps its episode data in its instructions
    return {
        **babyai,
        "grid": np.ascontiguousarray(np.asarray(grid.encode(), dtype=np.uint8)),
        "contents": contents,
        "agent_pos": _pair(u.agent_pos),
        "agent_dir": int(u.agent_dir),
        "carrying": None if carried is None else tuple(int(v) for v in carried.encode()),
        "carrying_contents": carrying_contents,
        "step_count": int(u.step_count),
        "mission": str(u.mission),
        "task": task + (0,) * (_kernel.MINIGRID_TASK_SLOTS - len(task)),
        "bit_generator": bit_generator,
        "env_kwargs": env_kwargs_of(u),
    }


_TRACKED = ("door", "key", "ball", "box")


def _babyai_of(u: Any, cells: list, W: int, H: int) -> dict[str, Any]:
    """A BabyAI env's objects numbered by identity, its instruction tree and its episode's limit."""
    numbers: dict[int, int] = {}

    def number(obj: Any) -> int:
        if id(obj) not in numbers:
            if len(numbers) >= 255:
                raise InvalidArgumentError("more than 255 objects: gridsim numbers a BabyAI world's in a byte")
            numbers[id(obj)] = len(numbers) + 1
        return numbers[id(obj)]

    object_ids = np.zeros((W, H), np.uint8)
    for k, obj in enumerate(cells):
        if obj is not None and obj.type in _TRACKED:
            object_ids[k % W, k // W] = number(obj)
    carrying_id = 0 if u.carrying is None else number(u.carrying)

    def desc(d: Any) -> dict[str, Any]:
        walls = {p for p in (tuple(int(v) for v in q) for q in d.obj_poss) if (g := u.grid.get(*p)) is not None
                 and g.type == "wall"}
        return {"type": d.type, "color": d.color, "loc": d.loc,
                "obj_set": tuple(number(o) for o in d.obj_set if o.type != "wall"),
                "obj_poss": tuple(p for p in (tuple(int(v) for v in q) for q in d.obj_poss) if p not in walls),
                "matches": len(d.obj_set)}

    def node(n: Any) -> dict[str, Any]:
        kind = type(n).__name__.removesuffix("Instr").lower()
        strict = bool(getattr(n, "strict", False))
        if kind in ("goto", "pickup", "open"):
            out = {"kind": kind, "desc": desc(n.desc), "strict": strict}
        elif kind == "putnext":
            out = {"kind": kind, "desc_move": desc(n.desc_move), "desc_fixed": desc(n.desc_fixed), "strict": strict}
        elif kind in ("and", "before", "after"):
            return {"kind": kind, "strict": strict, "instr_a": node(n.instr_a), "instr_b": node(n.instr_b),
                    "a_done": "continue" if n.a_done is False else str(n.a_done),
                    "b_done": "continue" if n.b_done is False else str(n.b_done)}
        else:
            raise InvalidArgumentError(f"an instruction gridsim does not know: {type(n).__name__}")
        if kind in ("pickup", "putnext"):
            pre = getattr(n, "preCarrying", None)
            out["pre_carrying"] = 0 if pre is None else number(pre)
        return out

    return {"object_ids": object_ids, "carrying_id": carrying_id, "instrs": node(u.instrs),
            "max_steps": int(u.max_steps)}
