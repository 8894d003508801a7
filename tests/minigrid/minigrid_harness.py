"""The differential harness of the minigrid family: Farama Minigrid 3.2.0 against gridsim, step by step.

The protocol of the family's spec (section 9): drive ``gym.make("MiniGrid-...")`` and
``gym.make("gridsim/MiniGrid-...")`` with the same seeds and actions and compare, after every
reset and every step,

* the observation: image bytes (dtype and shape), direction, mission;
* reward (as float64 bits), terminated, truncated and info;
* the state: the PCG64 state dict (``has_uint32`` / ``uinteger`` included), ``grid.encode()``,
  box contents, agent position and direction, the carried object, ``step_count``, the mission
  and the generator's own episode data (:func:`gridsim.minigrid.interop.task_of`);
* with ``check_attributes``, Minigrid's attributes and methods of ``env.unwrapped``, type and value
  (:func:`compare_attributes`): ``agent_pos``, ``grid`` cell by cell, ``gen_obs_grid()``,
  ``hash()``, ``get_frame()``, ... and ``np_random``'s state.

Episodes end and restart with an unseeded ``reset()``, so one generator stream runs across
many episodes. :func:`run_vector` does the same for a gridsim vector env against Gymnasium's
``SyncVectorEnv`` of Minigrid envs (env i seeded s + i) in the three autoreset modes.

Actions come from :func:`random_action` (uniform) or :func:`seek_action` (a breadth-first
walk to the nearest goal, needed key or openable door, then forward / pickup / toggle), mixed
with biased random moves by :func:`choose_action`, so that locked doors open and episodes end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid  # noqa: E402,F401  (registers the MiniGrid-* ids)
from minigrid.wrappers import FullyObsWrapper, ImgObsWrapper  # noqa: E402

import gridsim  # noqa: E402,F401  (registers the gridsim/* ids)
from gridsim.minigrid.ids import BABYAI_IDS, REFERENCE_IDS  # noqa: E402
from gridsim.minigrid.interop import state_of, task_of  # noqa: E402

__all__ = [
    "IDS",
    "Mismatch",
    "Stats",
    "biased_action",
    "choose_action",
    "compare_attributes",
    "compare_obs",
    "compare_state",
    "compare_step",
    "make_pair",
    "make_reference",
    "make_vector_pair",
    "random_action",
    "run_imported",
    "run_imported_vector",
    "run_single",
    "run_vector",
    "seek_action",
    "warm_up",
]

# The MiniGrid-* ids Minigrid 3.2.0 has, to compare with it (BabyAI's: tests/minigrid/test_babyai_diff.py).
IDS = [name for name in REFERENCE_IDS if name not in BABYAI_IDS]
LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))
# gridsim's vector infos add episode statistics (Gymnasium's SyncVectorEnv has none).
GRIDSIM_INFO_EXTRAS = {"episode_stats", "_episode_stats"}


class Mismatch(AssertionError):
    """gridsim and Minigrid disagree (the message says where)."""


def _fail(where: str, what: str, ref: Any, ours: Any):
    raise Mismatch(f"{where}: {what} differs\n  minigrid: {ref!r}\n  gridsim:  {ours!r}")


# --------------------------------------------------------------------------- making envs


def make_reference(name: str, obs_type: str = "dict", **kwargs: Any) -> gym.Env:
    """Minigrid's env with the wrapper that matches gridsim's ``obs_type``."""
    env = gym.make(name, **kwargs)
    if obs_type in ("full", "full_image"):
        env = FullyObsWrapper(env)
    if obs_type in ("image", "full_image"):
        env = ImgObsWrapper(env)
    return env


def make_pair(name: str, obs_type: str = "dict", max_steps: int | None = None) -> tuple[gym.Env, gym.Env]:
    """``(minigrid env, gridsim env)`` of one id.

    ``max_steps`` is Minigrid's kwarg, gridsim's ``max_steps`` setting.
    """
    ref = make_reference(name, obs_type, **({} if max_steps is None else {"max_steps": max_steps}))
    ours = gym.make("gridsim/" + name, obs_type=obs_type, **_gridsim_limit(max_steps))
    return ref, ours


def _gridsim_limit(max_steps: int | None) -> dict[str, Any]:
    # gym.make takes max_episode_steps for a TimeLimit wrapper of its own (which leaves the
    # reward's denominator alone, in Minigrid too); the env's limit is its max_steps setting.
    return {} if max_steps is None else {"settings": {"max_steps": max_steps}}


# --------------------------------------------------------------------------- comparisons


def _compare_image(ref: Any, ours: Any, where: str):
    ref, ours = np.asarray(ref), np.asarray(ours)
    if ours.dtype != np.uint8 or ours.shape != ref.shape:
        _fail(where, "image dtype / shape", (ref.dtype, ref.shape), (ours.dtype, ours.shape))
    if ref.tobytes() != ours.tobytes():
        cells = np.argwhere((ref != ours).any(axis=-1))[:5].tolist()
        # Shown as pictures (rows first) of the object channel.
        _fail(where, f"image (first differing cells {cells})", np.swapaxes(ref, -3, -2)[..., 0],
              np.swapaxes(ours, -3, -2)[..., 0])


def compare_obs(ref: Any, ours: Any, where: str, mission_format: str = "str", missions: tuple[str, ...] = ()):
    """One observation of a single env: a dict (image, direction, mission) or an image alone."""
    if not isinstance(ref, Mapping):
        if isinstance(ours, Mapping):
            _fail(where, "observation kind", type(ref), type(ours))
        _compare_image(ref, ours, where)
        return
    if not isinstance(ours, Mapping) or set(ours) != set(ref):
        _fail(where, "observation keys", list(ref), list(ours) if isinstance(ours, Mapping) else type(ours))
    _compare_image(ref["image"], ours["image"], where)
    if int(ours["direction"]) != int(ref["direction"]):
        _fail(where, "direction", ref["direction"], ours["direction"])
    mission = ours["mission"]
    if mission_format == "index":
        mission = missions[int(mission)]
    if mission != ref["mission"]:
        _fail(where, "mission", ref["mission"], ours["mission"])


def _float_bits(x: Any) -> bytes:
    return np.float64(x).tobytes()


def compare_step(ref: tuple, ours: tuple, where: str, **obs_kwargs: Any):
    """A single env's ``(obs, reward, terminated, truncated, info)``: reward as float64 bits."""
    compare_obs(ref[0], ours[0], where, **obs_kwargs)
    if not isinstance(ours[1], float) or _float_bits(ref[1]) != _float_bits(ours[1]):
        _fail(where, "reward", ref[1], ours[1])
    for k, name in ((2, "terminated"), (3, "truncated")):
        if not isinstance(ours[k], bool) or ours[k] != bool(ref[k]):
            _fail(where, name, ref[k], ours[k])
    if ours[4] != ref[4]:
        _fail(where, "info", ref[4], ours[4])


def compare_state(ref_env: gym.Env, state: Mapping[str, Any], where: str):
    """gridsim's ``get_state()`` against the live Minigrid env (:func:`state_of`)."""
    want = state_of(ref_env)
    if state["bit_generator"] != want["bit_generator"]:
        _fail(where, "generator state (np_random.bit_generator.state)", want["bit_generator"],
              state["bit_generator"])
    grid = np.asarray(state["grid"])
    if grid.shape != want["grid"].shape or not np.array_equal(grid, want["grid"]):
        _fail(where, "grid (grid.encode(), shown [y, x] objects)", want["grid"][..., 0].T, grid[..., 0].T)
    if not np.array_equal(state["contents"], want["contents"]):
        _fail(where, "box contents", want["contents"].T, np.asarray(state["contents"]).T)
    for key in ("agent_pos", "agent_dir", "carrying", "carrying_contents", "step_count", "mission"):
        ours = state[key]
        if key == "carrying" and ours is not None:
            ours = tuple(ours)
        if ours != want[key]:
            _fail(where, key, want[key], state[key])
    # Only the slots the generator's layout documents (task_of); the rest are the kernel's.
    task = task_of(ref_env)
    if tuple(state["task"][: len(task)]) != task:
        _fail(where, "task (the generator's episode data)", task, tuple(state["task"][: len(task)]))


def _same_value(ref: Any, ours: Any) -> bool:
    """Equal, of the same type: tuples element by element, arrays by dtype, shape and values."""
    if type(ours) is not type(ref):
        return False
    if isinstance(ref, np.ndarray):
        return ref.dtype == ours.dtype and ref.shape == ours.shape and np.array_equal(ref, ours)
    if isinstance(ref, tuple):
        return len(ref) == len(ours) and all(_same_value(r, o) for r, o in zip(ref, ours, strict=True))
    return bool(ref == ours)


def _compare_object(ref: Any, ours: Any, where: str, cur_pos: bool = True):
    """A world object: kind (ours is an instance of Minigrid's class), colour, state, contents, methods."""
    if ref is None or ours is None:
        if ref is not ours:
            _fail(where, "object", ref, ours)
        return
    if not isinstance(ours, type(ref)):
        _fail(where, "object class (an instance of Minigrid's)", type(ref), type(ours))
    for name in ("type", "color", "is_open", "is_locked"):
        if getattr(ref, name, None) != getattr(ours, name, None):
            _fail(where, f"object's {name}", getattr(ref, name, None), getattr(ours, name, None))
    if tuple(ref.encode()) != tuple(ours.encode()):
        _fail(where, "object's encode()", ref.encode(), ours.encode())
    for name in ("can_overlap", "can_pickup", "can_contain", "see_behind"):
        if getattr(ref, name)() != getattr(ours, name)():
            _fail(where, f"object's {name}()", getattr(ref, name)(), getattr(ours, name)())
    _compare_object(ref.contains, ours.contains, where + " contains", cur_pos=False)
    # Minigrid keeps where an object was last placed (None for walls drawn as lines); gridsim says where it is.
    if cur_pos and ref.cur_pos is not None and [int(v) for v in ref.cur_pos] != [int(v) for v in ours.cur_pos]:
        _fail(where, "object's cur_pos", ref.cur_pos, ours.cur_pos)


def _compare_grids(ref: Any, ours: Any, where: str):
    if (ref.width, ref.height) != (ours.width, ours.height) or len(ref.grid) != len(ours.grid):
        _fail(where, "grid size", (ref.width, ref.height), (ours.width, ours.height))
    if not np.array_equal(ref.encode(), ours.encode()):
        _fail(where, "grid.encode()", ref.encode()[..., 0].T, ours.encode()[..., 0].T)
    for k, (r, o) in enumerate(zip(ref.grid, ours.grid, strict=True)):
        _compare_object(r, o, f"{where} grid cell {(k % ref.width, k // ref.width)}")
    if ref != ours:
        _fail(where, "grid == (Grid.__eq__)", False, True)


# What compare_attributes compares as values of the same type (the rest it calls or walks).
PLAIN_ATTRIBUTES = ("agent_pos", "agent_dir", "dir_vec", "right_vec", "front_pos", "width", "height", "step_count",
                    "max_steps", "steps_remaining", "mission", "agent_view_size", "see_through_walls", "highlight",
                    "tile_size", "agent_pov")


def compare_attributes(ref_env: gym.Env, ours_env: gym.Env, where: str, pictures: bool = False):
    """Minigrid's attributes and methods of both ``unwrapped`` envs, type and value.

    ``agent_pos`` (its type: the tuple of ints, array or tuple of np.int64 Minigrid's env holds),
    ``agent_dir``, ``dir_vec``, ``right_vec``, ``front_pos``, ``carrying``, the ``grid`` cell by
    cell, ``step_count``, ``max_steps``, ``steps_remaining``, ``mission``, the view's geometry
    (``get_view_exts``, ``relative_coords``, ``in_view``, ``agent_sees``), ``gen_obs()``,
    ``gen_obs_grid()`` (the env's view size and 5), ``hash()``, ``pprint_grid()``, ``actions`` and
    ``np_random``'s state; with ``pictures`` also ``get_frame`` (full, plain and the agent's view).
    """
    r, o = ref_env.unwrapped, ours_env.unwrapped
    for name in PLAIN_ATTRIBUTES:
        if not _same_value(getattr(r, name), getattr(o, name)):
            _fail(where, name, getattr(r, name), getattr(o, name))
    if r.np_random.bit_generator.state != o.np_random.bit_generator.state:
        _fail(where, "np_random's state", r.np_random.bit_generator.state, o.np_random.bit_generator.state)
    if [(a.name, int(a)) for a in r.actions] != [(a.name, int(a)) for a in o.actions]:
        _fail(where, "actions", list(r.actions), list(o.actions))
    _compare_object(r.carrying, o.carrying, where + " carrying")
    _compare_grids(r.grid, o.grid, where + " grid")
    for method in ("hash", "pprint_grid", "get_view_exts"):
        if not _same_value(getattr(r, method)(), getattr(o, method)()):
            _fail(where, f"{method}()", getattr(r, method)(), getattr(o, method)())
    # The view's geometry along the agent's row and column and a diagonal, into the view and beyond it;
    # agent_sees on a few objects in view.
    ax, ay = (int(v) for v in r.agent_pos)
    span = r.agent_view_size
    cells = {(ax + k, ay) for k in range(-span, span + 1)} | {(ax, ay + k) for k in range(-span, span + 1)}
    cells |= {(ax + k, ay + k) for k in range(-span, span + 1)}
    seen = 0
    for x, y in sorted(cells):
        if not _same_value(r.relative_coords(x, y), o.relative_coords(x, y)) or r.in_view(x, y) != o.in_view(x, y):
            _fail(where, f"relative_coords({x}, {y})", r.relative_coords(x, y), o.relative_coords(x, y))
        if seen < 3 and 0 <= x < r.width and 0 <= y < r.height and r.grid.get(x, y) is not None and r.in_view(x, y):
            seen += 1
            if r.agent_sees(x, y) != o.agent_sees(x, y):
                _fail(where, f"agent_sees({x}, {y})", r.agent_sees(x, y), o.agent_sees(x, y))
    obs_r, obs_o = r.gen_obs(), o.gen_obs()
    compare_obs(obs_r, obs_o, where + " gen_obs()")
    if type(obs_r["direction"]) is not type(obs_o["direction"]):
        _fail(where, "gen_obs()'s direction type", type(obs_r["direction"]), type(obs_o["direction"]))
    for size in (None, 5):
        (grid_r, vis_r), (grid_o, vis_o) = r.gen_obs_grid(size), o.gen_obs_grid(size)
        _compare_grids(grid_r, grid_o, f"{where} gen_obs_grid({size})")
        if not _same_value(vis_r, vis_o):
            _fail(where, f"gen_obs_grid({size})'s mask", vis_r, vis_o)
    if pictures:
        for kwargs in ({}, {"highlight": False, "tile_size": 3}, {"agent_pov": True, "tile_size": 4}):
            if not _same_value(r.get_frame(**kwargs), o.get_frame(**kwargs)):
                _fail(where, f"get_frame(**{kwargs})", "Minigrid's picture", "another")


# --------------------------------------------------------------------------- policies


def random_action(env: Any, rng: np.random.Generator, num_actions: int) -> int:
    """Uniform over the action space."""
    return int(rng.integers(num_actions))


def biased_action(env: Any, rng: np.random.Generator, num_actions: int) -> int:
    """Random, mostly forward: half forward, the rest uniform."""
    if rng.random() < 0.5:
        return FORWARD
    return int(rng.integers(num_actions))


def _passable(obj: Any) -> bool:
    return obj is None or obj.type in ("goal", "floor") or (obj.type == "door" and obj.is_open)


def _object_targets(u: Any, cells: list[tuple[int, int, Any]], carrying: Any) -> dict[tuple[int, int], int] | None:
    """Fetch's and PutNear's targets (None for the other ids).

    Fetch: the objects of the target's type and colour (pickup, hands free). PutNear: the
    object to move (pickup), then, held, the empty cells around the target's cell (drop).
    """
    if hasattr(u, "move_type"):  # PutNear (it has a target_pos too)
        if carrying is None:
            want = (u.move_type, u.moveColor)
            return {(x, y): PICKUP for x, y, obj in cells if obj is not None and (obj.type, obj.color) == want}
        tx, ty = int(u.target_pos[0]), int(u.target_pos[1])
        return {(x, y): DROP for x, y, obj in cells if obj is None and max(abs(x - tx), abs(y - ty)) <= 1}
    if hasattr(u, "targetType") and hasattr(u, "targetColor"):  # Fetch (GoToObject has target_color)
        want = (u.targetType, u.targetColor)
        if carrying is not None:
            return {}
        return {(x, y): PICKUP for x, y, obj in cells if obj is not None and (obj.type, obj.color) == want}
    return None


def seek_action(env: Any, rng: np.random.Generator, num_actions: int) -> int | None:
    """A step towards the nearest target of the id (None: nothing to seek).

    Targets: goals (forward onto them), keys whose colour locks a door (pickup, hands free),
    closed doors (toggle; a locked one only with its key), Memory's two end cells (forward
    onto them), GoToDoor's and GoToObject's ``target_pos`` (done when next to it), Fetch's and
    PutNear's objects (:func:`_object_targets`); in the RoomGrid ids the object to pick up,
    boxes (toggle: a key may be inside) and balls (pickup), and what the agent carries of no
    more use is dropped away from the doors. Facing a target, it acts;
    otherwise it walks (turns or moves forward) along a shortest path of passable cells to a
    cell next to one, the first in breadth-first order.
    """
    u = env.unwrapped
    grid, carrying = u.grid, u.carrying
    cells = [(k % grid.width, k // grid.width, obj) for k, obj in enumerate(grid.grid)]
    locked = {obj.color for _, _, obj in cells if obj is not None and obj.type == "door" and obj.is_locked}
    wanted = getattr(u, "obj", None)  # RoomGrid's object to pick up
    ax, ay = int(u.agent_pos[0]), int(u.agent_pos[1])
    d = int(u.agent_dir)
    front = (ax + DIR_VEC[d][0], ay + DIR_VEC[d][1])

    def act_on(obj: Any) -> int | None:
        if obj is None:
            return None
        if obj.type == "goal":
            return FORWARD
        if obj.type == "key" and carrying is None and obj.color in locked:
            return PICKUP
        if obj.type == "door" and not obj.is_open:
            if not obj.is_locked or (carrying is not None and carrying.type == "key" and carrying.color == obj.color):
                return TOGGLE
        if wanted is not None:
            if obj is wanted:
                return PICKUP if carrying is None else None
            if obj.type == "box":  # a key may be inside
                return TOGGLE
            if obj.type == "ball" and carrying is None:  # a ball in front of a door
                return PICKUP
        return None

    if wanted is not None and carrying is not None and carrying is not wanted \
            and not (carrying.type == "key" and carrying.color in locked):
        # Hands full of something of no more use: put it down, away from the doors, or wander.
        doors = {(x, y) for x, y, obj in cells if obj is not None and obj.type == "door"}
        fx, fy = front
        if grid.get(fx, fy) is None and not any((fx + dx, fy + dy) in doors for dx, dy in DIR_VEC):
            return DROP
        return None
    targets: dict[tuple[int, int], int] = {}
    door = getattr(u, "target_pos", None)
    objects = _object_targets(u, cells, carrying)
    if objects is not None:
        targets = objects
    elif door is not None:  # GoToDoor, GoToObject: toggling ends the episode unrewarded
        tx, ty = int(door[0]), int(door[1])
        if abs(ax - tx) + abs(ay - ty) == 1:
            return DONE
        targets[(tx, ty)] = DONE
    else:
        targets = {(x, y): a for x, y, obj in cells if (a := act_on(obj)) is not None}
        for attr in ("success_pos", "failure_pos"):  # Memory
            if getattr(u, attr, None) is not None:
                targets[(int(getattr(u, attr)[0]), int(getattr(u, attr)[1]))] = FORWARD
    if wanted is not None and carrying is None:
        # A ball in front of a door first: past it, the door's key is of no use.
        doors = {(x, y) for x, y, obj in cells if obj is not None and obj.type == "door"}
        blocking = {(x, y): PICKUP for x, y, obj in cells if obj is not None and obj.type == "ball"
                    and obj is not wanted and any((x + dx, y + dy) in doors for dx, dy in DIR_VEC)}
        a = _walk_to(grid, (ax, ay), d, blocking)
        if a is not None:
            return a
    a = _walk_to(grid, (ax, ay), d, targets)
    if a is None and carrying is not None and grid.get(*front) is None:
        return DROP  # nothing within reach: free the hands (a ball may block the way to a door)
    return a


def _walk_to(grid: Any, agent: tuple[int, int], d: int, targets: dict[tuple[int, int], int]) -> int | None:
    # The target's action when facing one, else a turn or step along a shortest path of
    # passable cells to a cell next to the nearest (breadth-first); None if none is reachable.
    ax, ay = agent
    front = (ax + DIR_VEC[d][0], ay + DIR_VEC[d][1])
    if front in targets:
        return targets[front]
    if not targets:
        return None
    prev: dict[tuple[int, int], tuple[int, int] | None] = {(ax, ay): None}
    queue = deque([(ax, ay)])
    end = None
    while queue:
        x, y = queue.popleft()
        if any((x + dx, y + dy) in targets for dx, dy in DIR_VEC):
            end = (x, y)
            break
        for dx, dy in DIR_VEC:
            nx, ny = x + dx, y + dy
            if (nx, ny) not in prev and 0 <= nx < grid.width and 0 <= ny < grid.height \
                    and _passable(grid.get(nx, ny)):
                prev[(nx, ny)] = (x, y)
                queue.append((nx, ny))
    if end is None:
        return None
    if end == (ax, ay):  # next to a target, not facing it
        want = next(k for k, (dx, dy) in enumerate(DIR_VEC) if (ax + dx, ay + dy) in targets)
    else:
        step = end
        while prev[step] != (ax, ay):
            step = prev[step]
        want = DIR_VEC.index((step[0] - ax, step[1] - ay))
    if want == d:
        return FORWARD
    return LEFT if want == (d - 1) % 4 else RIGHT


def choose_action(env: Any, rng: np.random.Generator, num_actions: int, policy: str) -> int:
    """An action of ``policy``: ``"random"`` (uniform) or ``"seek"`` (80% :func:`seek_action`, else biased random)."""
    if policy == "random":
        return random_action(env, rng, num_actions)
    if policy != "seek":
        raise ValueError(f"unknown policy {policy!r}")
    a = seek_action(env, rng, num_actions) if rng.random() < 0.8 else None
    if a is None or a >= num_actions:
        a = biased_action(env, rng, num_actions)
    return a


# --------------------------------------------------------------------------- runs


@dataclass
class Stats:
    """What a run went through (to check that it exercised what it should)."""

    steps: int = 0
    episodes: int = 0
    successes: int = 0          # rewards > 0
    penalties: int = 0          # rewards < 0 (Dynamic-Obstacles)
    terminated: int = 0
    truncated: int = 0
    doors_opened: int = 0       # locked doors turned open
    failures: int = 0           # terminated with reward 0 (a wrong object, door or place)
    rewards: list[float] = field(default_factory=list)


def _locked_doors(env: Any) -> int:
    return sum(1 for obj in env.unwrapped.grid.grid if obj is not None and obj.type == "door" and obj.is_locked)


def run_single(name: str, seed: int, steps: int, policy: str = "seek", obs_type: str = "dict",
               max_steps: int | None = None, mission_format: str = "str", check_state: bool = True,
               action_seed: int | None = None, num_actions: int | None = None,
               time_limit: int | None = None, check_attributes: bool = False) -> Stats:
    """Play one id in both packages for ``steps`` steps from ``reset(seed=seed)``, comparing everything.

    An episode that ends (terminated or truncated) is followed by an unseeded ``reset()`` of
    both. ``max_steps`` is Minigrid's kwarg (the env's own limit and reward denominator),
    ``time_limit`` gym.make's ``max_episode_steps`` (a ``TimeLimit`` wrapper on both).
    ``num_actions`` overrides the action range drawn from (Dynamic-Obstacles takes 0..6).
    ``check_attributes`` compares Minigrid's attributes too (:func:`compare_attributes`; the
    pictures after the first reset and every 25th step).

    Raises:
        Mismatch: the first difference, with the id, seed, step and recent actions.
    """
    wrap = {} if time_limit is None else {"max_episode_steps": time_limit}
    ref = make_reference(name, obs_type, **wrap, **({} if max_steps is None else {"max_steps": max_steps}))
    ours = gym.make("gridsim/" + name, obs_type=obs_type, mission_format=mission_format, **wrap,
                    **_gridsim_limit(max_steps))
    n = int(ref.action_space.n) if num_actions is None else num_actions
    obs_kwargs = {"mission_format": mission_format, "missions": ours.unwrapped.unwrapped_vector.missions}
    rng = np.random.default_rng([seed, 0 if action_seed is None else action_seed])
    stats = Stats()
    actions: list[int] = []
    label = f"{name} seed={seed} policy={policy} obs_type={obs_type}"

    def where(t: int) -> str:
        return f"{label} step {t} (episode {stats.episodes}, last actions {actions[-12:]})"

    try:
        out_ref, out_ours = ref.reset(seed=seed), ours.reset(seed=seed)
        compare_obs(out_ref[0], out_ours[0], where(0) + " reset", **obs_kwargs)
        if out_ours[1] != out_ref[1]:
            _fail(where(0), "reset info", out_ref[1], out_ours[1])
        if check_state:
            compare_state(ref, ours.unwrapped.get_state(), where(0) + " reset")
        if check_attributes:
            compare_attributes(ref, ours, where(0) + " reset", pictures=True)
        for t in range(1, steps + 1):
            a = choose_action(ref, rng, n, policy)
            actions.append(a)
            before = _locked_doors(ref)
            out_ref, out_ours = ref.step(a), ours.step(a)
            compare_step(out_ref, out_ours, where(t), **obs_kwargs)
            if check_state:
                compare_state(ref, ours.unwrapped.get_state(), where(t))
            if check_attributes:
                compare_attributes(ref, ours, where(t), pictures=t % 25 == 0)
            stats.steps += 1
            stats.doors_opened += before - _locked_doors(ref)
            reward, term, trunc = float(out_ref[1]), bool(out_ref[2]), bool(out_ref[3])
            stats.rewards.append(reward)
            stats.successes += reward > 0
            stats.penalties += reward < 0
            stats.failures += term and reward == 0
            if term or trunc:
                stats.episodes += 1
                stats.terminated += term
                stats.truncated += trunc
                out_ref, out_ours = ref.reset(), ours.reset()
                compare_obs(out_ref[0], out_ours[0], where(t) + " unseeded reset", **obs_kwargs)
                if check_state:
                    compare_state(ref, ours.unwrapped.get_state(), where(t) + " unseeded reset")
                if check_attributes:
                    compare_attributes(ref, ours, where(t) + " unseeded reset")
    finally:
        ref.close()
        ours.close()
    return stats


def _compare_batch_obs(ref: Any, ours: Any, where: str):
    if not isinstance(ref, Mapping):
        _compare_image(ref, ours, where)
        return
    if set(ours) != set(ref):
        _fail(where, "observation keys", sorted(ref), sorted(ours))
    _compare_image(ref["image"], ours["image"], where)
    d_ref, d_ours = np.asarray(ref["direction"]), np.asarray(ours["direction"])
    if d_ours.dtype != np.int64 or not np.array_equal(d_ref, d_ours):
        _fail(where, "direction", ref["direction"], ours["direction"])
    if not isinstance(ours["mission"], tuple) or tuple(ref["mission"]) != ours["mission"]:
        _fail(where, "mission", ref["mission"], ours["mission"])


def _compare_infos(ref: Mapping[str, Any], ours: Mapping[str, Any], where: str):
    """Minigrid's infos exactly; gridsim may add only its episode statistics."""
    extra = set(ours) - set(ref) - GRIDSIM_INFO_EXTRAS
    if extra or set(ref) - set(ours):
        _fail(where, "info keys", sorted(ref), sorted(ours))
    for key, value in ref.items():
        if key == "final_obs":
            for i, (r, o) in enumerate(zip(value, ours[key], strict=True)):
                if r is None or o is None:
                    if r is not o:
                        _fail(where, f"final_obs[{i}]", r, o)
                else:
                    compare_obs(r, o, f"{where} final_obs[{i}]")
        elif key == "final_info":
            _compare_infos(value, ours[key], where + " final_info")
        elif isinstance(value, np.ndarray):
            if not np.array_equal(value, ours[key]):
                _fail(where, f"info[{key!r}]", value, ours[key])
        elif value != ours[key]:
            _fail(where, f"info[{key!r}]", value, ours[key])


def _vector_loop(ref: gym.vector.VectorEnv, ours: gym.vector.VectorEnv, mode: gym.vector.AutoresetMode, seed: int,
                 steps: int, policy: str, label: str, check_state: bool, rng: np.random.Generator) -> Stats:
    """Step both vector envs ``steps`` times with the same actions, comparing every output and state."""
    num_envs = ref.num_envs
    n = int(ref.single_action_space.n)
    stats = Stats()
    masked_resets = 0

    def states(where: str):
        if check_state:
            for i in range(num_envs):
                compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"{where} env {i}")

    for t in range(1, steps + 1):
        where = f"{label} step {t}"
        actions = np.array([choose_action(ref.envs[i], rng, n, policy) for i in range(num_envs)], np.int64)
        out_ref, out_ours = ref.step(actions), ours.step(actions)
        # An autoreset inside step does not raise where a generator runs out of tries: say so here.
        failed = np.flatnonzero(ours.unwrapped.state.failed)
        if len(failed):
            _fail(where, f"generation of env {failed[0]}'s next world (autoreset)", "a world", "out of placement tries")
        _compare_batch_obs(out_ref[0], out_ours[0], where)
        for k, what, dtype in ((1, "rewards", np.float64), (2, "terminated", np.bool_), (3, "truncated", np.bool_)):
            r, o = out_ref[k], out_ours[k]
            if o.dtype != dtype or r.shape != o.shape or r.astype(dtype).tobytes() != o.tobytes():
                _fail(where, what, r, o)
        _compare_infos(out_ref[4], out_ours[4], where)
        states(where)
        stats.steps += 1
        ended = out_ref[2] | out_ref[3]
        stats.episodes += int(ended.sum())
        stats.successes += int((out_ref[1] > 0).sum())
        stats.terminated += int(out_ref[2].sum())
        stats.truncated += int(out_ref[3].sum())
        if mode is gym.vector.AutoresetMode.DISABLED and ended.any():
            reseed = seed + 1000 + t if masked_resets % 2 else None
            masked_resets += 1
            # SyncVectorEnv pops reset_mask from the options: one dict each.
            out_ref = ref.reset(seed=reseed, options={"reset_mask": ended.copy()})
            out_ours = ours.reset(seed=reseed, options={"reset_mask": ended.copy()})
            _compare_batch_obs(out_ref[0], out_ours[0], f"{where} masked reset (seed {reseed})")
            _compare_infos(out_ref[1], out_ours[1], f"{where} masked reset")
            states(f"{where} masked reset")
    return stats


def make_vector_pair(name: str, num_envs: int, autoreset_mode: str = "NextStep",
                     max_steps: int | None = None) -> tuple[gym.vector.VectorEnv, gym.vector.VectorEnv]:
    """``(SyncVectorEnv of Minigrid envs, gridsim vector env)`` of one id and autoreset mode."""
    mode = gym.vector.AutoresetMode(autoreset_mode)
    ref = gym.make_vec(name, num_envs=num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
                       **({} if max_steps is None else {"max_steps": max_steps}))
    ours = gym.make_vec("gridsim/" + name, num_envs=num_envs, vectorization_mode="vector_entry_point",
                        autoreset_mode=autoreset_mode,
                        **({} if max_steps is None else {"max_episode_steps": max_steps}))
    return ref, ours


def run_vector(name: str, num_envs: int, seed: int, steps: int, autoreset_mode: str = "NextStep",
               policy: str = "seek", max_steps: int | None = None, check_state: bool = True) -> Stats:
    """A gridsim vector env against ``SyncVectorEnv`` of Minigrid envs, step by step.

    Both are reset with ``seed`` (env i: seed + i). NEXT_STEP and SAME_STEP autoreset as
    Gymnasium does (SAME_STEP: ``final_obs`` and the masks compared too); under DISABLED the
    ended envs are reset after each step with ``options={"reset_mask": ended}``, every other
    time with a seed as well.

    Raises:
        Mismatch: the first difference.
    """
    ref, ours = make_vector_pair(name, num_envs, autoreset_mode, max_steps)
    return play_pair(ref, ours, autoreset_mode, seed, steps, f"{name} N={num_envs} seed={seed} {autoreset_mode}",
                     policy, check_state, np.random.default_rng([seed, num_envs]))


def play_pair(ref: gym.vector.SyncVectorEnv, ours: gym.vector.VectorEnv, autoreset_mode: str, seed: int, steps: int,
              label: str, policy: str = "seek", check_state: bool = True,
              rng: np.random.Generator | None = None) -> Stats:
    """Reset ``ref`` (Minigrid envs in a ``SyncVectorEnv``) and ``ours`` with ``seed``, then step both ``steps`` times.

    The reset's observations, infos and (``check_state``) every env's state are compared, then
    each step's as :func:`run_vector` describes; ``rng`` draws the policy's choices (default:
    seeded with ``seed``). Both envs are closed after.

    Raises:
        Mismatch: the first difference.
    """
    try:
        out_ref, out_ours = ref.reset(seed=seed), ours.reset(seed=seed)
        _compare_batch_obs(out_ref[0], out_ours[0], label + " reset")
        _compare_infos(out_ref[1], out_ours[1], label + " reset")
        if check_state:
            for i in range(ours.num_envs):
                compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"{label} reset env {i}")
        return _vector_loop(ref, ours, gym.vector.AutoresetMode(autoreset_mode), seed, steps, policy, label,
                            check_state, np.random.default_rng(seed) if rng is None else rng)
    finally:
        ref.close()
        ours.close()


# --------------------------------------------------------------------------- imported states


def warm_up(ref: gym.Env, rng: np.random.Generator, steps: int, policy: str = "seek") -> None:
    """Play Minigrid's env alone for ``steps`` steps (unseeded resets after episode ends)."""
    n = int(ref.action_space.n)
    for _ in range(steps):
        out = ref.step(choose_action(ref, rng, n, policy))
        if out[2] or out[3]:
            ref.reset()


def run_imported(name: str, seed: int, steps: int, warmup: int = 25, policy: str = "seek",
                 across_resets: bool = True) -> Stats:
    """Import a Minigrid env's state mid-episode into a gridsim env and play both on, comparing everything.

    Minigrid's env is reset with ``seed`` and played alone for ``warmup`` steps; gridsim's env
    takes :func:`state_of` it with ``set_state`` (never reset itself). With ``across_resets``
    both then continue with unseeded resets after each episode, so the imported generator
    state must give the same next worlds. Without it, each episode end is followed by an
    unseeded reset of Minigrid's env alone, a few more steps there, and a new import: only
    the step rules are compared, never gridsim's generator.

    Raises:
        Mismatch: the first difference.
    """
    ref = gym.make(name)
    ours = gym.make("gridsim/" + name).unwrapped  # OrderEnforcing would want a reset first
    n = int(ref.action_space.n)
    rng = np.random.default_rng([seed, 7])
    stats = Stats()
    actions: list[int] = []
    label = f"{name} seed={seed} imported after {warmup} steps"

    def where(t: int) -> str:
        return f"{label} step {t} (episode {stats.episodes}, last actions {actions[-12:]})"

    def import_state(t: int):
        obs, info = ours.set_state(state_of(ref))
        compare_obs(ref.unwrapped.gen_obs(), obs, where(t) + " set_state")
        if info != {}:
            _fail(where(t), "set_state info", {}, info)
        compare_state(ref, ours.get_state(), where(t) + " set_state")

    try:
        ref.reset(seed=seed)
        warm_up(ref, rng, warmup, policy)
        import_state(0)
        for t in range(1, steps + 1):
            a = choose_action(ref, rng, n, policy)
            actions.append(a)
            out_ref, out_ours = ref.step(a), ours.step(a)
            compare_step(out_ref, out_ours, where(t))
            compare_state(ref, ours.get_state(), where(t))
            stats.steps += 1
            stats.successes += float(out_ref[1]) > 0
            stats.penalties += float(out_ref[1]) < 0
            if out_ref[2] or out_ref[3]:
                stats.episodes += 1
                if across_resets:
                    out_ref, out_ours = ref.reset(), ours.reset()
                    compare_obs(out_ref[0], out_ours[0], where(t) + " unseeded reset")
                    compare_state(ref, ours.get_state(), where(t) + " unseeded reset")
                else:
                    ref.reset()
                    warm_up(ref, rng, int(rng.integers(0, 6)), policy)
                    import_state(t)
    finally:
        ref.close()
        ours.close()
    return stats


def run_imported_vector(name: str, num_envs: int, seed: int, steps: int, warmup: int = 20,
                        autoreset_mode: str = "NextStep") -> Stats:
    """Import every env of a ``SyncVectorEnv`` mid-episode into a gridsim vector env, then step both.

    Env i goes in with ``set_state(state_of(ref.envs[i]), index=i)``.

    The warm-up goes on until no env ended on its last step (``SyncVectorEnv`` would reset
    those on the next call; an imported state starts mid-episode).

    Raises:
        Mismatch: the first difference.
    """
    ref, ours = make_vector_pair(name, num_envs, autoreset_mode)
    mode = gym.vector.AutoresetMode(autoreset_mode)
    rng = np.random.default_rng([seed, 8])
    n = int(ref.single_action_space.n)
    label = f"{name} N={num_envs} seed={seed} {autoreset_mode} imported"
    try:
        ref.reset(seed=seed)
        t = 0
        while True:
            out = ref.step(np.array([choose_action(ref.envs[i], rng, n, "seek") for i in range(num_envs)]))
            t += 1
            ended = out[2] | out[3]
            if mode is gym.vector.AutoresetMode.DISABLED and ended.any():
                ref.reset(options={"reset_mask": ended.copy()})
            elif t >= warmup and not ended.any():
                break
        for i in range(num_envs):
            obs, _ = ours.unwrapped.set_state(state_of(ref.envs[i]), index=i)
            compare_obs(ref.envs[i].unwrapped.gen_obs(), obs, f"{label} set_state env {i}")
            compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"{label} set_state env {i}")
        return _vector_loop(ref, ours, mode, seed, steps, "seek", label, True, rng)
    finally:
        ref.close()
        ours.close()
