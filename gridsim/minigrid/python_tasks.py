"""Python tasks: a researcher's Minigrid ``MiniGridEnv`` subclass played by the kernel, seed for seed.

``gridsim.make(MyTask, num_envs=N, **kwargs)`` (or :class:`PythonTaskVectorEnv` itself) makes a
batch in which env i reset with seed s plays exactly as ``MyTask(**kwargs)`` reset with seed
s + i. At each reset of a row (``reset``, and the autoresets of any mode) the kernel starts the
episode and seeds the row's PCG64 as Minigrid does; then the class's own ``_gen_grid`` runs in
Python on a generator holding that state, and what it made (the grid, the agent, the mission,
and what the step's rule reads) is written into the row with the generator's state after the
draws. Every step runs in the kernel, with Minigrid's rules: Python runs once per reset, never
per step. Resets of many rows in one call are generated one after the other, then written at
once.

The kernel steps a task by one of the rules of ``gridsim.minigrid.tasks.RULES``, which its class
selects by the step it has: ``MiniGridEnv.step`` (``reach_goal``), the step of one of Minigrid's
envs that the kernel plays (:data:`MINIGRID_STEPS`: a subclass of ``UnlockPickupEnv`` that changes
only ``_gen_grid`` keeps ``pick_up_target``), or its own step declared as one of the rules with the
class attribute ``gridsim_rule``. A class that changes what the kernel cannot reproduce (its own
``reset``, ``gen_obs``, ``_reward``, a step with no rule, an object of its own) is refused
with one line saying what, before anything runs.

Example:
    >>> from minigrid.envs import DoorKeyEnv  # doctest: +SKIP
    >>> class SmallDoorKey(DoorKeyEnv):  # doctest: +SKIP
    ...     def __init__(self, **kwargs):
    ...         super().__init__(size=6, **kwargs)
    >>> envs = gridsim.make(SmallDoorKey, num_envs=64)  # doctest: +SKIP
    >>> obs, infos = envs.reset(seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim._core as _core
from gridsim.engine.locking import synchronized
from gridsim.engine.settings import COMMON_SETTINGS, accepts_settings, internal_arguments
from gridsim.errors import ArgumentTypeError, InvalidArgumentError, InvalidStateError, KernelError
from gridsim.minigrid.env import MinigridEnv, MinigridVectorEnv
from gridsim.minigrid.interop import TASK_READERS
from gridsim.minigrid.rng import from_numpy_state, to_numpy_state
from gridsim.minigrid.tasks import RULE_NAMES, MinigridSpec
from gridsim.minigrid.world import OBJECT_TO_IDX, contents_code

__all__ = ["MINIGRID_STEPS", "PythonTaskEnv", "PythonTaskVectorEnv", "UNSUPPORTED_OVERRIDES", "make_task_env",
           "rule_of", "split_kwargs"]

# Minigrid 3.2.0's steps the kernel plays, by qualified name, and the rule each is.
MINIGRID_STEPS = {
    "minigrid.minigrid_env.MiniGridEnv.step": "reach_goal",
    "minigrid.envs.dynamicobstacles.DynamicObstaclesEnv.step": "avoid_moving_balls",
    "minigrid.envs.memory.MemoryEnv.step": "go_to_matching_object",
    "minigrid.envs.gotodoor.GoToDoorEnv.step": "done_next_to_target",
    "minigrid.envs.gotoobject.GoToObjectEnv.step": "done_next_to_target",
    "minigrid.envs.unlock.UnlockEnv.step": "open_target_door",
    "minigrid.envs.unlockpickup.UnlockPickupEnv.step": "pick_up_target",
    "minigrid.envs.blockedunlockpickup.BlockedUnlockPickupEnv.step": "pick_up_target",
    "minigrid.envs.keycorridor.KeyCorridorEnv.step": "pick_up_target",
    "minigrid.envs.obstructedmaze.ObstructedMazeEnv.step": "pick_up_target",
    "minigrid.envs.fetch.FetchEnv.step": "fetch_target",
    "minigrid.envs.putnear.PutNearEnv.step": "put_target_near",
    "minigrid.envs.redbluedoors.RedBlueDoorEnv.step": "open_doors_in_order",
}
# MiniGridEnv's methods that decide what an episode is beyond _gen_grid; a class must keep them.
UNSUPPORTED_OVERRIDES = ("reset", "_reward", "gen_obs", "gen_obs_grid", "get_view_exts", "get_view_coords",
                         "front_pos", "dir_vec")
# The rules a Python task may declare (BabyAI's needs an instruction tree: not a Python task's).
TASK_RULES = tuple(r for r in RULE_NAMES if r != "follow_instructions")
# The mission slot is an int16: a batch knows this many distinct missions.
MAX_MISSIONS = 0x7FFF
WORLD_OBJECTS_MODULE = "minigrid.core.world_object"
EMPTY = OBJECT_TO_IDX["empty"]
OWN_KWARGS = ("obs_type", "tile_size", "mission_format", "obs_dtype", "name")


def _minigrid_base(cls: type) -> type:
    for base in cls.__mro__:
        if base.__name__ == "MiniGridEnv" and base.__module__ == "minigrid.minigrid_env":
            return base
    raise ArgumentTypeError(f"a Python task is a subclass of minigrid's MiniGridEnv, got {cls!r}")


def _qualified(fn: Any) -> str:
    fn = getattr(fn, "fget", fn)  # a property's getter
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def rule_of(cls: type) -> str:
    """The rule the kernel steps ``cls`` by, or a one-line ``InvalidArgumentError`` saying why it cannot.

    Args:
        cls: a subclass of Minigrid's ``MiniGridEnv``.

    Returns:
        A name of ``gridsim.minigrid.tasks.RULES``: the class's ``gridsim_rule``, or the rule of
        the step it inherits (:data:`MINIGRID_STEPS`).
    """
    if not isinstance(cls, type):
        raise ArgumentTypeError(f"a Python task is a class (a MiniGridEnv subclass), got {type(cls).__name__}")
    base = _minigrid_base(cls)
    rules = ", ".join(TASK_RULES)
    for name in UNSUPPORTED_OVERRIDES:
        if inspect.getattr_static(cls, name) is not inspect.getattr_static(base, name):
            raise InvalidArgumentError(
                f"{cls.__name__} overrides MiniGridEnv.{name} ({_qualified(inspect.getattr_static(cls, name))}), "
                f"which gridsim cannot play: a Python task changes _gen_grid (and its step by a rule: {rules})")
    declared = getattr(cls, "gridsim_rule", None)
    if declared is not None:
        if declared not in TASK_RULES:
            raise InvalidArgumentError(f"{cls.__name__}.gridsim_rule is {declared!r}; the rules are: {rules}")
        return str(declared)
    step = _qualified(inspect.getattr_static(cls, "step"))
    if step not in MINIGRID_STEPS:
        raise InvalidArgumentError(
            f"{cls.__name__}'s step ({step}) is its own: gridsim plays it if it is one of the kernel's rules, declared "
            f"as the class attribute gridsim_rule (one of: {rules})")
    return MINIGRID_STEPS[step]


def split_kwargs(kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(gridsim's arguments, the task class's)`` of ``gridsim.make(MyTask, **kwargs)``.

    gridsim takes its common settings (``autoreset_mode``, ``num_threads``, ...) and its own
    ``obs_type``, ``tile_size``, ``mission_format``, ``obs_dtype`` and ``name``; everything else
    (``size``, ``max_steps``, ``agent_view_size``, ``see_through_walls``, ...) goes to the class.
    """
    own = {setting.kwarg or name for name, setting in COMMON_SETTINGS.items()} - {"max_episode_steps"}
    own |= {"settings", "_continue_past_end", *OWN_KWARGS}
    ours = {k: v for k, v in kwargs.items() if k in own}
    return ours, {k: v for k, v in kwargs.items() if k not in own}


class PythonTaskVectorEnv(MinigridVectorEnv):
    """A batch of a Python task: env i reset with seed s plays ``task(**task_kwargs)`` reset with seed s + i.

    The class's ``_gen_grid`` makes each episode's world in Python at every reset; the kernel
    steps it (see ``gridsim.minigrid.python_tasks``). Everything else is
    :class:`gridsim.minigrid.env.MinigridVectorEnv`'s: observations, autoreset modes, threads,
    ``env_np_random``, ``get_state`` / ``set_state``. The view size, ``see_through_walls`` and
    ``max_steps`` are the instance's (give them to the class); the mission is the instance's
    ``mission`` string (``mission_format="str"`` only), its space the class's own.

    Args:
        num_envs: N.
        task: the class, a subclass of Minigrid's ``MiniGridEnv`` (refused with a line saying
            why if the kernel cannot play it: :func:`rule_of`).
        task_kwargs: the class's constructor arguments.
        name: the task's name (default: the class's), as ``env_name`` reports it.
        obs_type, tile_size, obs_dtype: as :class:`MinigridVectorEnv`'s.
        **common: gridsim's common settings (``autoreset_mode``, ``num_threads``, ...).
    """

    SETTINGS = {k: v for k, v in MinigridVectorEnv.SETTINGS.items()
                if k not in ("env_name", "agent_view_size", "see_through_walls", "max_steps")}
    _PICKLED_ATTRS: tuple[str, ...] = (*MinigridVectorEnv._PICKLED_ATTRS, "missions", "_mission_ids")
    task_class: type
    task_env: Any  # the instance whose _gen_grid makes every row's worlds
    task_rule: str

    @accepts_settings
    def __init__(self, num_envs: int = 1, *, task: type, task_kwargs: Mapping[str, Any] | None = None,
                 name: str | None = None, obs_type: str = "dict", tile_size: int = 8, mission_format: str = "str",
                 obs_dtype=None, **common: Any):
        self.task_rule = rule_of(task)
        if mission_format != "str":
            raise InvalidArgumentError(f"mission_format={mission_format!r}: a Python task's missions are its strings "
                                       "(mission_format='str'); obs_type='image' leaves them out")
        task_kwargs = dict(task_kwargs or {})
        try:
            instance = task(**task_kwargs)
        except Exception as e:  # the class's word on its arguments
            raise InvalidArgumentError(f"{task.__name__}(**{task_kwargs!r}) raised {type(e).__name__}: {e}") from e
        self.task_class, self.task_env = task, instance
        self._task_name = name or task.__name__
        self._generator = np.random.Generator(np.random.PCG64())
        self._object_classes: set[type] = set()  # Minigrid's own, as met
        self._empty_row = bytes([EMPTY, 0, 0, 0]) * (int(instance.width) * int(instance.height))
        instance.np_random = self._generator  # _gen_grid draws from it (each row's state in turn)
        for key in ("width", "height", "max_steps", "agent_view_size"):
            value = getattr(instance, key)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InvalidArgumentError(f"{task.__name__}().{key} must be an int, got {value!r}")
        with internal_arguments():
            MinigridVectorEnv.__init__.__wrapped__(  # type: ignore[attr-defined]  # accepts_settings' wrapper
                self, num_envs, env_name=self._task_name, obs_type=obs_type,
                agent_view_size=int(instance.agent_view_size), see_through_walls=bool(instance.see_through_walls),
                tile_size=tile_size, mission_format="str", obs_dtype=obs_dtype, **common)
        # Missions in the order first met; a row's mission slot indexes them.
        self.missions = []  # type: ignore[assignment]
        self._mission_ids: dict[str, int] = {}
        self.state.config["num_missions"] = MAX_MISSIONS
        self._reads_task = self.task_rule in TASK_READERS
        for dtype, step in list(self._step_by_dtype.items()):
            self._step_by_dtype[dtype] = self._generating(step)

    def _spec_of(self, env_name: str) -> MinigridSpec:
        u = self.task_env
        return MinigridSpec(env_name, "python", int(u.width), int(u.height), int(u.max_steps),
                            bool(u.see_through_walls), (), num_actions=int(u.action_space.n), reference=False,
                            rule=self.task_rule)

    def _mission_space(self) -> gym.spaces.Space:
        return self.task_env.observation_space["mission"]

    # ------------------------------------------------------------------ generation

    def _generating(self, step):
        # A kernel step, then the worlds of the rows it reset (autoresets).
        def step_and_generate(actions):
            n = step(actions)
            if n >= 0 and self.state.pending.any():
                self._generate_pending()
            return n
        return step_and_generate

    @synchronized
    def commit(self, writes: list, calls=(), worlds: np.ndarray | None = None) -> None:
        """:meth:`MinigridVectorEnv.commit`; then the rows it reset get their worlds from the task's ``_gen_grid``."""
        super().commit(writes, calls, worlds)
        if self.state.pending.any():
            self._generate_pending()

    def _mission_id(self, mission: Any) -> int:
        k = self._mission_ids.get(mission)
        if k is None:
            if not isinstance(mission, str):
                raise InvalidArgumentError(f"a mission is a string, got {type(mission).__name__}")
            if len(self.missions) >= MAX_MISSIONS:
                raise KernelError(f"{self._task_name} made more than {MAX_MISSIONS} distinct missions", env=-1,
                                  code=-1)
            k = len(self.missions)
            self.missions.append(mission)  # type: ignore[attr-defined]
            self._mission_ids[mission] = k
        return k

    def _generate_pending(self) -> None:
        """Run the task's ``_gen_grid`` for every row the last kernel call reset, then write them at once."""
        st = self.state
        rows = np.flatnonzero(st.pending)
        n = len(rows)
        W, H = st.grid.shape[2], st.grid.shape[1]
        cells = np.empty((n, H, W, 4), np.uint8)
        agent = np.empty((n, 3), np.int32)
        task = np.zeros((n, st.task.shape[1]), st.task.dtype)
        mission = np.empty(n, st.mission.dtype)
        bitgen = np.empty((n, 6), np.uint64)
        u, bit_generator = self.task_env, self._generator.bit_generator
        done = 0
        try:
            for k, row in enumerate(rows.tolist()):
                bit_generator.state = to_numpy_state(st.bitgen[row])
                u.np_random = self._generator  # the class may have replaced it
                agent[k] = self._generate_one(u, cells[k])
                if self._reads_task:
                    slots = TASK_READERS[self.task_rule][1](u)
                    if len(slots) > task.shape[1]:
                        raise InvalidArgumentError(f"{len(slots)} task values; the kernel keeps {task.shape[1]}")
                    task[k, :len(slots)] = slots
                mission[k] = self._mission_id(u.mission)
                bitgen[k] = from_numpy_state(bit_generator.state)
                done = k + 1
        except Exception as e:
            st.failed[rows[done:]] = True
            st.pending[:] = False
            raise KernelError(f"env {rows[done]}: {self._task_name}._gen_grid failed: {type(e).__name__}: {e}",
                              env=int(rows[done]), code=-1) from e
        mask = np.zeros(self.state.num_units, np.uint8)
        mask[rows] = 1
        _core.commit([(st.grid, rows, cells), (st.agent, rows, agent), (st.task, rows, task),
                      (st.mission, rows, mission), (st.bitgen, rows, bitgen),
                      (st.pending, rows, np.zeros(n, np.bool_))],
                     [(self.kernel.observe, (mask,))])

    def _generate_one(self, u: Any, cells: np.ndarray) -> tuple[int, int, int]:
        """One episode's world (MiniGridEnv.reset without its seeding), into ``cells`` (H, W, 4)."""
        u.agent_pos = (-1, -1)
        u.agent_dir = -1
        u._gen_grid(u.width, u.height)
        pos, d = u.agent_pos, u.agent_dir
        x, y = int(pos[0]), int(pos[1])
        W, H = int(u.width), int(u.height)
        if not (0 <= x < W and 0 <= y < H and d is not None and 0 <= int(d) <= 3):
            raise InvalidArgumentError(f"_gen_grid left the agent at {pos!r} facing {d!r}")
        start = u.grid.get(x, y)
        if start is not None and not start.can_overlap():
            raise InvalidArgumentError(f"_gen_grid put the agent on a {start.type}")
        u.carrying = None
        u.step_count = 0
        # The row's bytes built in a bytearray, then copied at once (a numpy write per cell cost
        # half as much as the generator).
        row = bytearray(self._empty_row)
        known = self._object_classes
        for k, obj in enumerate(u.grid.grid):
            if obj is None:
                continue
            if type(obj) not in known:
                if type(obj).__module__ != WORLD_OBJECTS_MODULE:
                    raise InvalidArgumentError(f"the object at ({k % W}, {k // W}) is a {type(obj).__name__} of "
                                               f"{type(obj).__module__}: gridsim plays Minigrid's own objects")
                known.add(type(obj))
            row[4 * k:4 * k + 3] = obj.encode()
            if obj.type == "box":
                row[4 * k + 3] = contents_code(obj.contains, f"the box at ({k % W}, {k // W})")
        cells.reshape(-1)[:] = np.frombuffer(row, np.uint8)
        return x, y, int(d)

    # ------------------------------------------------------------------ state

    @synchronized
    def state_dict(self) -> dict[str, Any]:
        """:meth:`MinigridVectorEnv.state_dict`, with the task's missions as met (``missions``, JSON text)."""
        out = super().state_dict()
        out["missions"] = json.dumps(self.missions)
        return out

    @synchronized
    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Load a state of :meth:`state_dict`; its ``missions`` become the batch's (its rows index them).

        Raises:
            InvalidStateError: no ``missions``, or not a JSON list of strings, or a row's mission
                outside them; and whatever :meth:`GridVectorEnv.load_state_dict` refuses.
        """
        text: Any = state.get("missions") if isinstance(state, Mapping) else None
        if isinstance(text, np.ndarray) and text.shape == () and text.dtype.kind == "U":
            text = text.item()  # as numpy.load reads a string
        try:
            missions = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            missions = None
        if not isinstance(missions, list) or not all(isinstance(m, str) for m in missions) \
                or len(missions) > MAX_MISSIONS:
            raise InvalidStateError("a Python task's state holds its missions: 'missions', a JSON list of strings "
                                    "(state_dict())", field="missions")
        self.state.config["num_missions"] = max(1, len(missions))  # the state's check of each row's index
        try:
            super().load_state_dict(state)
        finally:
            self.state.config["num_missions"] = MAX_MISSIONS
        self.missions = list(missions)  # type: ignore[assignment]
        self._mission_ids = {m: k for k, m in enumerate(missions)}
        self._mission_cache = None

    @synchronized
    def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[Any, dict]:
        """:meth:`MinigridVectorEnv.set_state`; a mission the task never made joins its missions."""
        if isinstance(state, Mapping) and isinstance(state.get("mission"), str):
            self._mission_id(state["mission"])
        return super().set_state(state, index)

    @property
    def _generator_failure(self) -> str:
        return f"{self._task_name}'s _gen_grid failed at its last reset; reset it"


class PythonTaskEnv(MinigridEnv):
    """One env of a Python task (``gym.make`` of an id of :func:`gridsim.register_task`): row 0 of its batch."""

    vector_class = PythonTaskVectorEnv

    def __init__(self, render_mode: str | None = None, *, task: type, **kwargs: Any):
        ours, theirs = split_kwargs(kwargs)
        super().__init__(render_mode=render_mode, task=task, task_kwargs=theirs, **ours)


def make_task_env(task: type, num_envs: int = 1, **kwargs: Any) -> PythonTaskVectorEnv:
    """``gridsim.make(task, num_envs, **kwargs)``: a Python task's batch (:func:`split_kwargs` sorts ``kwargs``)."""
    ours, theirs = split_kwargs(kwargs)
    return PythonTaskVectorEnv(num_envs, task=task, task_kwargs=theirs, **ours)
