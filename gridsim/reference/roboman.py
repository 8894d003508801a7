"""Pure-Python reference of the manipulation family (gridroboman), one env at a time.

The state of one env is the same plain dict that ``RobomanVectorEnv.get_state`` returns::

    {"agent_pos": (x, y),
     "objs": [{"x": x, "y": y, "obj_above": None or int, "obj_below": None or int},  # red
              {...},                                                                  # green
              {...}],                                                                 # blue
     "lifted_obj_idx": None or int,
     "timer": int}

Every function reads the stored fields as they are and never derives one field from
another, so an injected state that breaks the invariants of reachable states (links
that are not symmetric, a held object stored away from the agent, ...) evolves exactly
as the rules say, step by step. Positions are ``(x, y)``: x the column, y the row from
the top.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Sequence

import gymnasium as gym
import numpy as np

from gridsim.engine.rng import TAG_EPISODE, Stream, derive_keys, stream_seed
from gridsim.engine.state import INT32_MAX
from gridsim.errors import InvalidActionError
from gridsim.roboman.tasks import CENTER, CORNERS, GRID_SIZE, MAX_TIME, TASKS, Task, parse_task

__all__ = [
    "NUM_ACTIONS",
    "ReferenceRobomanEnv",
    "as_task",
    "roboman_goal",
    "roboman_grid_obs",
    "roboman_mask",
    "roboman_obs",
    "roboman_reset",
    "roboman_step",
    "roboman_top",
]

NUM_ACTIONS = 7
MOVES = {1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0)}  # action -> (dx, dy)
LIFT, PUT = 5, 6

# Goal kinds, in the order of ``gridsim.roboman.tasks.TASK_KINDS``.
LIFT_X, TOUCH_X, MOVE_TO_CENTER, MOVE_TO_CORNER, TOUCH_X_WITH_Y, CLOSE_TO, FAR_FROM, STACK_ON = range(8)


def as_task(task) -> Task:
    """A :class:`Task` from a Task, a full task name (``"StackRedOnGreen"``) or a task id."""
    if isinstance(task, Task):
        return task
    if isinstance(task, str):
        return parse_task(task)
    if isinstance(task, numbers.Integral) and not isinstance(task, bool) and 0 <= int(task) < len(TASKS):
        return TASKS[int(task)]
    raise ValueError(f"not a task: {task!r}")


# --------------------------------------------------------------------------- rules


def roboman_top(state: dict, x: int, y: int):
    """The object on top at cell ``(x, y)``, or None.

    The smallest index that is not held, has nothing above it and is stored at that cell.
    """
    held = state["lifted_obj_idx"]
    for i, o in enumerate(state["objs"]):
        if i != held and o["obj_above"] is None and (o["x"], o["y"]) == (x, y):
            return i
    return None


def roboman_obs(state: dict) -> np.ndarray:
    """The 11-float observation ``[ax, ay, r.x, r.y, r.s, g.x, g.y, g.s, b.x, b.y, b.s]``.

    Status: 0; -1 if something is above; +1 if held or something is below (overriding -1).
    """
    ax, ay = state["agent_pos"]
    held = state["lifted_obj_idx"]
    values = [ax, ay]
    for i, o in enumerate(state["objs"]):
        status = 0
        if o["obj_above"] is not None:
            status = -1
        if held == i or o["obj_below"] is not None:
            status = 1
        values += [o["x"], o["y"], status]
    return np.array(values, dtype=np.float32)


def roboman_mask(state: dict) -> np.ndarray:
    """The action mask, int8 (7,), 1 = masked out (the action would be a no-op)."""
    ax, ay = state["agent_pos"]
    held = state["lifted_obj_idx"]
    last = GRID_SIZE - 1
    return np.array([
        0,
        ay == 0,
        ay == last,
        ax == 0,
        ax == last,
        roboman_top(state, ax, ay) is None or held is not None,
        held is None,
    ], dtype=np.int8)


def roboman_grid_obs(state: dict) -> np.ndarray:
    """The grid observation, uint8 (7, 7, 4), indexed ``[y, x, channel]``.

    Channel 0 is 1 on the agent's cell. Channel ``1 + i`` marks object i at its stored
    cell: 4 if it is held, else 1 + the number of objects below it (following the
    ``obj_below`` links, at most 2).
    """
    grid = np.zeros((GRID_SIZE, GRID_SIZE, 4), dtype=np.uint8)
    ax, ay = state["agent_pos"]
    grid[ay, ax, 0] = 1
    objs = state["objs"]
    for i, o in enumerate(objs):
        if state["lifted_obj_idx"] == i:
            value = 4
        else:
            below = 0
            j = o["obj_below"]
            while j is not None and below < 2:
                below += 1
                j = objs[j]["obj_below"]
            value = 1 + below
        grid[o["y"], o["x"], 1 + i] = value
    return grid


def _adjacent(state: dict, i: int) -> bool:
    ax, ay = state["agent_pos"]
    o = state["objs"][i]
    return abs(o["x"] - ax) + abs(o["y"] - ay) == 1


def roboman_goal(task, state: dict) -> bool:
    """The goal predicate of ``task`` (a Task, a name or an id) on ``state``."""
    t = as_task(task)
    held = state["lifted_obj_idx"]
    objs = state["objs"]
    x = objs[t.x_obj]
    if t.kind == LIFT_X:
        return held == t.x_obj
    if t.kind == TOUCH_X:
        return held is None and _adjacent(state, t.x_obj)
    if t.kind == MOVE_TO_CENTER:
        return held is None and (x["x"], x["y"]) in CENTER
    if t.kind == MOVE_TO_CORNER:
        return held is None and (x["x"], x["y"]) in CORNERS
    if t.kind == TOUCH_X_WITH_Y:
        return held == t.y_obj and _adjacent(state, t.x_obj)
    y = objs[t.y_obj]
    if t.kind == CLOSE_TO:
        return held is None and abs(x["x"] - y["x"]) <= 1 and abs(x["y"] - y["y"]) <= 1
    if t.kind == FAR_FROM:
        return held is None and abs(x["x"] - y["x"]) + abs(x["y"] - y["y"]) > 9
    if t.kind == STACK_ON:
        return x["obj_below"] == t.y_obj
    raise AssertionError(f"unknown task kind {t.kind}")


def check_action(action) -> int:
    """The action as an int 0..6, or :class:`InvalidActionError`.

    Python ints (``bool`` included), numpy integer scalars and 0-d integer arrays are
    accepted; floats, ``numpy.bool_``, other shapes and out-of-range values are not.
    """
    if isinstance(action, (bool, int, np.integer)):
        a = int(action)
    elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        a = int(action)
    else:
        raise InvalidActionError(f"action must be an integer in 0..6, got {action!r}")
    if not 0 <= a < NUM_ACTIONS:
        raise InvalidActionError(f"action must be in 0..6, got {a}")
    return a


def roboman_step(state: dict, action, task, max_steps: int = MAX_TIME, events: list | None = None):
    """Apply one action to ``state`` in place, in the order of the rules.

    1. validate; 2. move, clamped to the grid; 3. lift (5) or put (6); 4. the held
    object takes the agent's cell; 5. goal; 6. reward; 7. ``timer += 1`` (saturating at 2**31 - 1) and
    ``truncated = timer == max_steps``.

    When ``events`` is given, the step's events (``gridsim.roboman.api.ROBOMAN_EVENTS``) are
    appended to it as ``(name, payload tuple)``: ``object_lifted (obj, from_below)`` for a
    lift that happens (``from_below`` the object it was lifted off, -1 the floor),
    ``object_put (obj, onto)`` for a put that happens (``onto`` -1 for the floor), then
    ``goal_reached ()`` when the step terminates.

    Returns:
        ``(obs, reward, terminated, truncated, mask)``: obs float32 (11,), reward a
        ``numpy.float32``, the flags Python bools, mask int8 (7,).
    """
    a = check_action(action)
    objs = state["objs"]
    ax, ay = state["agent_pos"]
    if a in MOVES:
        dx, dy = MOVES[a]
        ax = min(max(ax + dx, 0), GRID_SIZE - 1)
        ay = min(max(ay + dy, 0), GRID_SIZE - 1)
        state["agent_pos"] = (ax, ay)
    elif a == LIFT:
        top = roboman_top(state, ax, ay)
        if top is not None and state["lifted_obj_idx"] is None:
            below = objs[top]["obj_below"]
            if below is not None:
                objs[top]["obj_below"] = None
                objs[below]["obj_above"] = None
            state["lifted_obj_idx"] = top
            if events is not None:
                events.append(("object_lifted", (top, -1 if below is None else below)))
    elif a == PUT:
        held = state["lifted_obj_idx"]
        if held is not None:
            under = roboman_top(state, ax, ay)  # computed while held is still set
            if under is not None:
                objs[under]["obj_above"] = held
                objs[held]["obj_below"] = under
            state["lifted_obj_idx"] = None
            if events is not None:
                events.append(("object_put", (held, -1 if under is None else under)))
    held = state["lifted_obj_idx"]
    if held is not None:
        objs[held]["x"], objs[held]["y"] = ax, ay
    terminated = bool(roboman_goal(task, state))
    if terminated and events is not None:
        events.append(("goal_reached", ()))
    reward = np.float32(1.0 if terminated else 0.0)
    state["timer"] = min(state["timer"] + 1, INT32_MAX)  # the kernel's timer saturates
    truncated = state["timer"] == max_steps
    return roboman_obs(state), reward, terminated, truncated, roboman_mask(state)


# --------------------------------------------------------------------------- reset


def empty_state() -> dict:
    """A state with everything at (0, 0), nothing linked or held, timer 0 (for building tests)."""
    return {
        "agent_pos": (0, 0),
        "objs": [{"x": 0, "y": 0, "obj_above": None, "obj_below": None} for _ in range(3)],
        "lifted_obj_idx": None,
        "timer": 0,
    }


def _placement(s: Stream) -> dict:
    """Agent, red, green, blue on 4 distinct cells, drawn in that order.

    Cells are numbered c = 7 y + x. The agent is uniform over the 49 cells, then each
    object takes the k-th free cell in increasing c, with k uniform.
    """
    n_cells = GRID_SIZE * GRID_SIZE
    taken = [s.bounded(n_cells)]
    for _ in range(3):
        k = s.bounded(n_cells - len(taken))
        free = [c for c in range(n_cells) if c not in taken]
        taken.append(free[k])
    state = empty_state()
    state["agent_pos"] = (taken[0] % GRID_SIZE, taken[0] // GRID_SIZE)
    for o, c in zip(state["objs"], taken[1:], strict=True):
        o["x"], o["y"] = c % GRID_SIZE, c // GRID_SIZE
    return state


def roboman_reset(key, episode: int, tasks, exclude_solved: bool = False) -> tuple[dict, Task]:
    """The initial state of episode ``episode`` of the env with 128-bit key ``key``.

    Draws from the env's episode stream: the task (``tasks[U(K)]``, nothing drawn when
    ``K == 1``), then the placement. With ``exclude_solved`` the placement (not the
    task) is redrawn from the same stream until the task's goal is false.

    Args:
        key: ``(key0, key1)``.
        episode: the episode counter.
        tasks: one task (a Task, a name or an id) or a sequence of them.
        exclude_solved: redraw solved starts.

    Returns:
        ``(state, task)`` with the task as a :class:`Task`.
    """
    if isinstance(tasks, (str, Task)) or not isinstance(tasks, Sequence):
        tasks = [tasks]
    tasks = [as_task(t) for t in tasks]
    s = Stream(stream_seed(int(key[0]), int(key[1]), TAG_EPISODE, int(episode)))
    task = tasks[s.bounded(len(tasks))]
    state = _placement(s)
    while exclude_solved and roboman_goal(task, state):
        state = _placement(s)
    return state, task


# --------------------------------------------------------------------------- the env


class ReferenceRobomanEnv(gym.Env):
    """The reference stepper as a plain ``gymnasium.Env``.

    Like ``RobomanEnv``: no autoreset, the dynamics continue past the end, truncated
    only on the step where ``timer == max_episode_steps``, and ``info`` holds the
    ``action_mask``. ``reset(seed=s)`` derives the key as the kernel does (mixer seed 0)
    and starts episode 0; a reset without a seed starts the next episode. The same
    seeds and actions give the same trajectories as the kernel. The last step's events
    are in ``self.events``.
    """

    metadata = {"render_modes": []}

    def __init__(self, task: str = "LiftX", x_obj=None, y_obj=None, *, tasks=None, task_in_obs: bool = False,
                 obs_type: str = "vector", max_episode_steps: int = MAX_TIME,
                 exclude_solved_starts: bool = False):
        if tasks is not None:
            self.tasks = [as_task(t) for t in tasks]
            if not self.tasks:
                raise ValueError("tasks must not be empty")
        else:
            self.tasks = [parse_task(task, x_obj, y_obj)]
        if obs_type not in ("vector", "grid"):
            raise ValueError(f"unknown obs_type {obs_type!r}")
        self.task_in_obs = bool(task_in_obs)
        self.obs_type = obs_type
        self.max_steps = max_episode_steps
        self.exclude_solved = exclude_solved_starts
        if obs_type == "grid":
            self.observation_space = gym.spaces.Box(0, 4, (GRID_SIZE, GRID_SIZE, 4), np.uint8)
        else:
            extra = len(self.tasks) if self.task_in_obs else 0
            self.observation_space = gym.spaces.Box(-1, 6, (11 + extra,), np.float32)
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.key: tuple[int, int] | None = None
        self.episode = 0
        self.task: Task = self.tasks[0]
        self.state: dict = {}
        self.events: list = []

    def _obs(self) -> np.ndarray:
        if self.obs_type == "grid":
            return roboman_grid_obs(self.state)
        obs = roboman_obs(self.state)
        if self.task_in_obs:
            one_hot = np.zeros(len(self.tasks), np.float32)
            one_hot[self.tasks.index(self.task)] = 1.0
            obs = np.concatenate([obs, one_hot])
        return obs

    def reset(self, *, seed=None, options=None):
        """Reset; an int seed derives the key as the kernel does (mixer seed 0)."""
        super().reset(seed=seed)
        if seed is not None or self.key is None:
            key = derive_keys([seed if seed is not None else 0])[0]
            self.key = (int(key[0]), int(key[1]))
            self.episode = 0
        else:
            self.episode += 1
        self.state, self.task = roboman_reset(self.key, self.episode, self.tasks, self.exclude_solved)
        self.events = []
        return self._obs(), {"action_mask": roboman_mask(self.state)}

    def step(self, action):
        """One step of the reference dynamics."""
        self.events = []
        _, reward, term, trunc, mask = roboman_step(self.state, action, self.task, self.max_steps, self.events)
        return self._obs(), float(reward), term, trunc, {"action_mask": mask}

    def get_task(self, index: int = 0) -> str:
        """The current task's name."""
        return self.task.name

    def get_state(self, index: int = 0) -> dict:
        """A deep copy of the state dict."""
        return copy.deepcopy(self.state)

    def set_state(self, state: dict, index: int = 0):
        """Store a deep copy of ``state``; returns ``(obs, {"action_mask": mask})``."""
        self.state = copy.deepcopy(state)
        return self._obs(), {"action_mask": roboman_mask(self.state)}

