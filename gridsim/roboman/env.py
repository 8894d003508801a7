"""The manipulation family (gridroboman): ``RobomanVectorEnv`` and its single-env view ``RobomanEnv``."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim._core as _core
import gridsim.roboman._kernel as _kernel
from gridsim.engine.draw import check_cell_px
from gridsim.engine.family import Family, FamilyTools, Register
from gridsim.engine.locking import synchronized
from gridsim.engine.settings import (
    COMMON_SETTINGS,
    Setting,
    accepts_settings,
    as_flag,
    check_choice,
    check_max_steps,
)
from gridsim.engine.single import SingleEnvView
from gridsim.engine.state import StateView, brief
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import InvalidArgumentError, InvalidStateError
from gridsim.lab2d.surface import LevelApiFacade
from gridsim.roboman.api import ROBOMAN_EVENTS, RobomanApi
from gridsim.roboman.render import render_rgb
from gridsim.roboman.state import RobomanState
from gridsim.roboman.tasks import GRID_SIZE, MAX_TIME, OBJECT_NAMES, TASK_IDS, TASK_KINDS, TASKS, Task, parse_task

__all__ = ["FAMILY", "RobomanEnv", "RobomanVectorEnv", "OBS_TYPES"]

OBS_TYPES = {"vector": _kernel.ROBOMAN_OBS_VECTOR, "grid": _kernel.ROBOMAN_OBS_GRID}  # the kernel's kinds
MAX_TASKS = 2**15 - 1  # the kernel numbers an env's task in int16 (task_slot)


class RobomanVectorEnv(LevelApiFacade, GridVectorEnv):
    """A batch of gridroboman worlds: lift, carry, put and stack three objects on a 7x7 grid.

    ## Description

    An agent moves on a 7x7 grid without interior walls holding red (0), green (1) and
    blue (2) objects. It can lift the top object of the stack on its cell, carry it and
    put it down, on the floor or on top of a stack (stacks of 3 are possible). Positions
    are ``(x, y)``: x the column from the left, y the row from the top. Each env has a
    task among 36 (8 goal kinds, X and Y among the three objects); see the table in
    ``docs/roboman.md``.

    ## Action Space

    ``Discrete(7)``: 0 no-op, 1 y - 1 (up on screen), 2 y + 1, 3 x - 1, 4 x + 1,
    5 lift the top object on the agent's cell, 6 put the held object down. Moves are
    clamped to the grid; objects never block. Actions that change nothing are legal
    no-ops (they still advance the timer). Floats, out-of-range values and arrays of the
    wrong shape raise :class:`gridsim.InvalidActionError` before any env is stepped.

    ## Observation Space

    | ``obs_type=`` | dtype, shape | content |
    |---|---|---|
    | ``"vector"`` (default) | float32 (11,) | ``[ax, ay, r.x, r.y, r.s, g.x, g.y, g.s, b.x, b.y, b.s]`` |
    | ``"grid"`` | uint8 (7, 7, 4) | ``[y, x, 0]`` = 1 on the agent; ``[y, x, 1 + i]`` = object i |

    The vector's space is ``Box(-1, 6, (11,), float32)``. Status ``s``: -1 if something
    is on the object, +1 if it is held or on another object (+1 wins, so the middle of a
    3-stack reads +1), else 0. The held object's
    coordinates are the agent's. In the grid, object i's plane holds 1 + the number of
    objects below it (1 on the floor, 2 or 3 in a stack) or 4 when it is held.
    ``task_in_obs=True`` appends a one-hot of the env's task (over ``tasks``) to the vector.

    Every ``reset`` and ``step`` also returns ``infos["action_mask"]``, int8 (N, 7), where
    **1 means masked out** (the action would change nothing), with ``infos["_action_mask"]``.
    :meth:`action_masks` returns the inverse as bool (N, 7), **True = valid**, the
    convention of maskable PPO implementations.

    ## Rewards

    1.0 on every step that ends with the goal holding, else 0.0 (no step cost).

    ## Starting State

    Uniform over placements of the agent and the three objects on 4 distinct cells,
    nothing held or stacked. Starts where the goal already holds are possible
    (probability 1/14 for TouchX, 9/49 MoveXToCenter, 16/49 MoveXToCorner, 13/98
    MoveXCloseToY, 5/196 MoveXFarFromY, 0 otherwise); such an episode ends on the first
    step with reward 1 unless that step breaks the goal (only possible for TouchX).
    ``exclude_solved_starts=True`` redraws them.

    ## Episode End

    Terminated when the goal holds. Truncated on the step where the episode's timer
    reaches ``max_episode_steps`` (50): ``timer == 50``, as the original counts. Both can
    be true on the same step. ``infos["episode_stats"]`` holds ``return``, ``length`` and
    ``success`` on the rows whose episode ended.

    ## Arguments

    ``num_envs``; ``task`` (a name such as ``"StackRedOnGreen"``, or a kind such as
    ``"StackXOnY"`` with ``x_obj``/``y_obj``: ``"red"``, ``"green"``, ``"blue"`` or 0..2;
    ``y_obj=-1`` for one-object tasks); ``tasks`` (a list of task names: each env draws its
    task from it at every reset; it replaces ``task``); ``cell_px=32`` (render size).

    {settings}

    ## Version History

    * v0: initial release, step-for-step identical to gridroboman 0.1.0 for any state.

    Example:
        >>> import gymnasium as gym
        >>> import numpy as np
        >>> import gridsim
        >>> envs = gym.make_vec("gridsim/Gridroboman-LiftRed-v0", num_envs=2)
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape, infos["action_mask"].dtype
        ((2, 11), dtype('int8'))
        >>> obs, rewards, terminations, truncations, infos = envs.step(np.array([0, 0]))
        >>> envs.unwrapped.action_masks().shape
        (2, 7)
    """

    has_step_infos = True
    stat_extras = {"success": "stat_success"}
    cell_px: int  # render size of a cell, set by __init__
    # set_state keys of the parts of the state, for messages.
    STATE_LABELS = {"record.agent": "agent_pos", "record.objects": "objs", "record.above": "obj_above",
                    "record.below": "obj_below", "record.held": "lifted_obj_idx"}

    level_api_class = RobomanApi
    EVENT_SPECS = ROBOMAN_EVENTS
    SETTINGS = {
        **COMMON_SETTINGS,
        "max_steps": Setting(int, MAX_TIME, writable=True, kwarg="max_episode_steps",
                             doc="truncated when the timer reaches it; a write applies at each env's next reset"),
        "task": Setting(str, "LiftX", doc="task name or kind"),
        "x_obj": Setting(str, None, optional=True, doc="X of a task kind"),
        "y_obj": Setting(str, None, optional=True, doc="Y of a task kind"),
        "tasks": Setting(list, None, optional=True, doc="tasks drawn per env at every reset"),
        "task_in_obs": Setting(bool, False, doc="append a task one-hot to the vector"),
        "obs_type": Setting(tuple(OBS_TYPES), "vector", doc="Gymnasium observation"),
        "exclude_solved_starts": Setting(bool, False, writable=True, doc="redraw starts where the goal holds"),
        "cell_px": Setting(int, 32, doc="render size of a cell"),
    }

    @accepts_settings
    def __init__(
        self,
        num_envs: int = 1,
        *,
        task: str = "LiftX",
        x_obj=None,
        y_obj=None,
        tasks: Sequence[str] | None = None,
        task_in_obs: bool = False,
        obs_type: str = "vector",
        max_episode_steps: int | None = MAX_TIME,
        exclude_solved_starts: bool = False,
        cell_px: int = 32,
        obs_dtype=None,
        **common: Any,
    ):
        # autoreset_mode, render_mode, copy, num_threads, mixer_seed, episode_stats, events, ...
        super().__init__(num_envs=num_envs, obs_dtype=obs_dtype, **common)
        if tasks is None:
            self.tasks: tuple[Task, ...] = (parse_task(task, x_obj, y_obj),)
        else:
            if isinstance(tasks, str) or not isinstance(tasks, Sequence) or not len(tasks):
                raise InvalidArgumentError("tasks must be a non-empty list of task names")
            self.tasks = tuple(parse_task(t) for t in tasks)
            if len(self.tasks) > MAX_TASKS:
                raise InvalidArgumentError(f"tasks lists {len(self.tasks)} tasks; at most {MAX_TASKS} "
                                           "(the kernel numbers them in int16)")
        check_choice(obs_type, "obs_type", OBS_TYPES)
        task_in_obs = as_flag(task_in_obs, "task_in_obs")
        exclude_solved_starts = as_flag(exclude_solved_starts, "exclude_solved_starts")
        if task_in_obs and obs_type != "vector":
            raise InvalidArgumentError("task_in_obs appends to the vector observation; use obs_type='vector'")
        if max_episode_steps is None:
            max_episode_steps = MAX_TIME
        max_episode_steps = check_max_steps(max_episode_steps, optional=False)
        if isinstance(cell_px, bool) or not isinstance(cell_px, numbers.Integral) or not 1 <= cell_px <= 256:
            raise InvalidArgumentError(f"cell_px must be a positive integer up to 256, got {cell_px!r:.80}")
        self.obs_type = obs_type
        self.task_in_obs = bool(task_in_obs)
        self.max_episode_steps = int(max_episode_steps)
        self.exclude_solved_starts = bool(exclude_solved_starts)
        self.cell_px = int(cell_px)
        K = len(self.tasks)
        if obs_type == "vector":
            n = 11 + (K if task_in_obs else 0)
            obs_space = gym.spaces.Box(-1.0, 6.0, (n,), np.float32)
        else:
            obs_space = gym.spaces.Box(0, 4, (7, 7, 4), np.uint8)
        if obs_dtype is not None:
            obs_space = gym.spaces.Box(obs_space.low.astype(obs_dtype), obs_space.high.astype(obs_dtype),
                                       obs_space.shape, np.dtype(obs_dtype))
        self.single_observation_space = obs_space
        self.single_action_space = gym.spaces.Discrete(7)
        self.state = RobomanState(
            self.num_envs, [TASK_IDS[t.name] for t in self.tasks], obs_kind=OBS_TYPES[obs_type],
            task_in_obs=task_in_obs, autoreset_mode=self.kernel_autoreset, max_steps=self.max_episode_steps,
            exclude_solved=exclude_solved_starts, events=self.record_events, max_events=self.max_events_per_step,
        )
        self.kernel = _kernel.RobomanKernel(self.state)
        self._finish_init()

    # ------------------------------------------------------------------ infos

    def _step_infos(self, infos: dict):
        infos["action_mask"], infos["_action_mask"] = _core.copies((self.state.action_mask, self._all_rows))

    def _final_step_infos(self, infos: dict, ended: np.ndarray):
        infos["action_mask"] = np.where(ended[:, None], self.state.final_action_mask, 0).astype(np.int8)
        infos["_action_mask"] = ended

    def _reset_infos(self, mask: np.ndarray) -> dict[str, Any]:
        return {
            "action_mask": np.where(mask[:, None], self.state.action_mask, 0).astype(np.int8),
            "_action_mask": mask.copy(),
        }

    @synchronized
    def action_masks(self) -> np.ndarray:
        """Valid actions of every env as bool (N, 7), **True = valid** (the inverse of ``infos["action_mask"]``)."""
        return self.state.action_mask == 0

    def compiled_level(self) -> tuple:
        """The tasks the envs draw from (gridroboman has no map)."""
        return self.tasks

    def level_name(self) -> str:
        """The tasks the envs draw from, by name (``"LiftRed"``, ``"LiftRed,StackRedOnGreen"``)."""
        return ",".join(task.name for task in self.tasks)

    @synchronized
    def get_task(self, index: int = 0) -> str:
        """The name of env ``index``'s current task."""
        return TASKS[int(self.state.task[self.row_index(index)])].name

    # ------------------------------------------------------------ state access

    @synchronized
    def get_state(self, index: int = 0) -> dict[str, Any]:
        """Env ``index`` in gridroboman's own terms (compares equal to the original's attributes).

        ``{"agent_pos": (x, y), "objs": [{"x", "y", "obj_above", "obj_below"} x 3],
        "lifted_obj_idx": None or 0..2, "timer": int}``, objects in the order red, green, blue.
        """
        self.check_open()
        i = self.row_index(index)
        st = self.state

        def link(v):
            return None if v < 0 else int(v)

        return {
            "agent_pos": (int(st.agent[i, 0]), int(st.agent[i, 1])),
            "objs": [
                {"x": int(st.obj_pos[i, j, 0]), "y": int(st.obj_pos[i, j, 1]),
                 "obj_above": link(st.above[i, j]), "obj_below": link(st.below[i, j])}
                for j in range(3)
            ],
            "lifted_obj_idx": link(st.held[i]),
            "timer": int(st.timer[i]),
        }

    @synchronized
    def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[np.ndarray, dict]:
        """Inject a state dict (the format of :meth:`get_state`), stored verbatim.

        Only types and ranges are checked (coordinates 0..6, links and the held object None
        or 0..2, timer 0 up to the episode's step limit); consistency is not required, and
        inconsistent states evolve exactly as in the original. The env's episode counter and
        random stream are kept; a pending end of episode is cleared. Returns
        ``(obs, {"action_mask": ...})``.

        Raises:
            InvalidStateError: a value of the wrong type or out of range (nothing is changed).
        """
        self.check_open()
        i = self.row_index(index)
        v = self.state_io.unit_view(i)
        _put_state(v, state, i)
        v["needs_reset"][0] = False
        obs = self.state_io.commit_view(v, i, i)
        return obs, {"action_mask": self.state.action_mask[i].copy()}

    # ------------------------------------------------------------------ render

    @synchronized
    def render_frame(self, index: int = 0, cell_px: int | None = None) -> np.ndarray:
        """Env ``index`` as a uint8 (7 * px, 7 * px, 3) frame (``px``: ``cell_px`` or the env's ``cell_px``).

        Each cell's objects are slabs stacked from its floor up, the agent's cell is black
        with the gripper (and the held object) at its top (``gridsim.roboman.render``).
        """
        px = check_cell_px(cell_px, self.cell_px, 7, 7)
        return render_rgb(self.get_state(index), px)

    @synchronized
    def render_text(self, index: int = 0) -> str:
        """Env ``index`` as text: ``@`` the agent, R/G/B the top objects (lower case under the agent)."""
        s = self.get_state(index)
        grid = [["."] * 7 for _ in range(7)]
        ax, ay = s["agent_pos"]
        grid[ay][ax] = "@"
        for j, o in enumerate(s["objs"]):
            if j != s["lifted_obj_idx"] and o["obj_above"] is None:
                letter = OBJECT_NAMES[j][0].upper()
                grid[o["y"]][o["x"]] = letter.lower() if (o["x"], o["y"]) == (ax, ay) else letter
        held = s["lifted_obj_idx"]
        stacks = [f"{OBJECT_NAMES[j]} on {OBJECT_NAMES[o['obj_below']]}"
                  for j, o in enumerate(s["objs"]) if o["obj_below"] is not None]
        lines = ["".join(row) for row in grid]
        lines.append(f"task {self.get_task(index)}  timer {s['timer']}  "
                     f"holding {OBJECT_NAMES[held] if held is not None else 'nothing'}"
                     + (f"  ({', '.join(stacks)})" if stacks else ""))
        return "\n".join(lines) + "\n"


def _put_state(v: StateView, state: Mapping[str, Any], i: int):
    """Write a gridroboman state dict into a one-env view; its ranges are checked with the view."""
    r = _kernel.ROBOMAN_RECORD
    if not isinstance(state, Mapping):
        raise InvalidStateError(f"a state is a dict (get_state()), got {type(state).__name__}", env=i)
    missing = {"agent_pos", "objs", "lifted_obj_idx", "timer"} - set(state)
    if missing:
        raise InvalidStateError(f"state is missing {sorted(missing)}", env=i)

    def link(value, part: str):  # None is stored as -1, which the dict itself never holds
        if value is None:
            return -1
        if isinstance(value, numbers.Integral) and value < 0:
            v.fail("record", 0, f" is {brief(value)}; allowed: None or 0..2 (red, green, blue)", part)
        return value

    pos = state["agent_pos"]
    if not isinstance(pos, (tuple, list)) or len(pos) != 2:
        v.fail("record", 0, f"must be (x, y), got {brief(pos)}", "agent")
    for k in range(2):
        v.put_int("record", pos[k], r["AX"] + k, "agent")
    objs = state["objs"]
    if not isinstance(objs, (list, tuple)) or len(objs) != 3:
        v.fail("record", 0, "must be a list of 3 dicts (red, green, blue)", "objects")
    for j, o in enumerate(objs):
        if not isinstance(o, Mapping) or set(o) != {"x", "y", "obj_above", "obj_below"}:
            v.fail("record", 0, f"objs[{j}] must be a dict with keys x, y, obj_above, obj_below", "objects")
        v.put_int("record", o["x"], r["OBJ"] + 2 * j, "objects")
        v.put_int("record", o["y"], r["OBJ"] + 2 * j + 1, "objects")
        v.put_int("record", link(o["obj_above"], "above"), r["ABOVE"] + j, "above")
        v.put_int("record", link(o["obj_below"], "below"), r["BELOW"] + j, "below")
    v.put_int("record", link(state["lifted_obj_idx"], "held"), r["HELD"], "held")
    v.put_int("timer", state["timer"])


class RobomanEnv(SingleEnvView):
    """One gridroboman env (``gymnasium.Env``) over :class:`RobomanVectorEnv` with one row.

    Everything in :class:`RobomanVectorEnv`'s docstring applies. As the original does,
    the env keeps stepping past the end of an episode: the goal is evaluated on every
    step (reward 1.0 while it holds) and ``truncated`` is True only on the step where the
    timer reaches exactly ``max_episode_steps``. ``info`` is ``{"action_mask": int8 (7,)}``.
    """

    vector_class = RobomanVectorEnv


# The goal of each task kind in words, for gridsim list ({x}, {y}: the objects' colours).
KIND_GOALS = {
    "Lift{X}": "lift the {x} object",
    "Touch{X}": "stand next to the {x} object, holding nothing",
    "Move{X}ToCenter": "put the {x} object down in the central 3x3",
    "Move{X}ToCorner": "put the {x} object down in a 2x2 corner",
    "Touch{X}With{Y}": "stand next to the {x} object holding the {y} one",
    "Move{X}CloseTo{Y}": "put the {x} object down within a cell of the {y} one",
    "Move{X}FarFrom{Y}": "put the {x} object down more than 9 steps from the {y} one",
    "Stack{X}On{Y}": "stack the {x} object on the {y} one",
}


def description_of(env_id: str) -> str | None:
    """One line on a gridroboman id's task (``gridsim list``), or None for an id that is not one."""
    task = next((t for t in TASKS if t.env_id == env_id), None)
    if task is None:
        return None
    y = OBJECT_NAMES[task.y_obj] if task.y_obj >= 0 else ""
    return KIND_GOALS[TASK_KINDS[task.kind]].format(x=OBJECT_NAMES[task.x_obj], y=y) + f" ({GRID_SIZE}x{GRID_SIZE})"


def register_ids(register: Register):
    """``gridsim/Gridroboman-<Task>-v0`` for the 36 tasks.

    Gridroboman truncates by itself (timer == 50), so no spec-level limit: a TimeLimit
    wrapper would truncate with >= instead.
    """
    for task in TASKS:
        kind = TASK_KINDS[task.kind].replace("{X}", "X").replace("{Y}", "Y")
        kwargs = {"task": kind, "x_obj": OBJECT_NAMES[task.x_obj],
                  "y_obj": OBJECT_NAMES[task.y_obj] if task.y_obj >= 0 else -1}
        register(task.env_id, None, kwargs)


FAMILY = Family(
    name="roboman",
    vector_env=RobomanVectorEnv,
    single_env=RobomanEnv,
    register_ids=register_ids,
    takes_map=False,
    describe=description_of,
    tools=FamilyTools(
        bench_level="StackRedOnGreen",
        eval_id="gridsim/Gridroboman-LiftRed-v0",
        bench_level_format="roboman:{}",
        play_keys={"up": 1, "down": 2, "left": 3, "right": 4, "l": 5, "p": 6, "n": 0},
        play_help="arrows move, L lift, P put, N wait",
    ),
)
