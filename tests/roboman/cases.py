"""The manipulation family's cases for the engine-wide tests (the names of ``tests/nav/cases.py``)."""

from __future__ import annotations

import copy
import math

import numpy as np

import gridsim
from gridsim.roboman.env import RobomanEnv, RobomanVectorEnv

ID_COUNT = 36  # one id per task (tests/roboman/test_roboman_env.py)

STATE_CASES = {
    "roboman-tasks": lambda: RobomanVectorEnv(3, tasks=["LiftRed", "StackRedOnGreen", "MoveBlueToCenter"],
                                              task_in_obs=True, events=True, max_episode_steps=7),
    "roboman-grid": lambda: RobomanVectorEnv(2, task="StackGreenOnBlue", obs_type="grid",
                                             autoreset_mode="SameStep"),
}

COPY_CASES = {
    "roboman": (RobomanVectorEnv, RobomanEnv, {"max_episode_steps": 6}),
}


def no_goal_envs(n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (the no-op)."""
    envs = RobomanVectorEnv(n, task="LiftRed", exclude_solved_starts=True, max_episode_steps=limit,
                            autoreset_mode=mode)
    return envs, np.zeros(n, np.int64)  # the unsolved start stays unsolved


# ---------------------------------------------------------------- the engine-wide tests' other cases

# Pinned: (name, payload fields) of each event type, in type order.
EVENTS = (("object_lifted", ("obj", "from_below")), ("object_put", ("obj", "onto")), ("goal_reached", ()))

# Every observation type, action kind and option beside the registered ids' defaults.
BATCH_VARIANTS = {
    "roboman-grid": lambda n, **kw: gridsim.make("roboman:StackRedOnGreen", n, obs_type="grid", **kw),
    "roboman-multi-task":
        lambda n, **kw: RobomanVectorEnv(n, tasks=["LiftRed", "StackGreenOnRed", "TouchBlue"], task_in_obs=True,
                                         exclude_solved_starts=True, **kw),
}


def changed_state(envs) -> dict:
    """A valid state for env 1 of ``envs`` (4 envs of the first id, played) that differs from its own."""
    return dict(envs.get_state(1), agent_pos=(3, 4), timer=2)


def out_of_range_states(envs, v) -> list[dict]:
    """States for env 0 of ``envs`` (the first id, reset), each with ``v`` (past every range) in one number."""
    base = envs.get_state(0)
    out = []
    for change in (lambda s: s.update(timer=v), lambda s: s.update(agent_pos=(v, 0)),
                   lambda s: s.update(lifted_obj_idx=v), lambda s: s["objs"][0].update(x=v),
                   lambda s: s["objs"][1].update(obj_above=v), lambda s: s["objs"][2].update(obj_below=v)):
        s = copy.deepcopy(base)
        change(s)
        out.append(s)
    return out


# (key, value, index): writes of the family's own properties that change 4 played envs of the first id.
PROPERTY_WRITES = [("state.timer", "2", 0), ("settings.exclude_solved_starts", "true", None)]


# State case -> field -> (index of the bad entry within world 1's block, a value the validator refuses).
BAD_FIELD_VALUES = {
    "roboman-tasks": {"record": (0, 7), "timer": (0, -1), "task_slot": (0, 3), "action_mask": (0, 2),
                      "stat_success": (0, 2), "obs": (0, math.nan)},
}

# (state case, a change of a get_state() snapshot with a bad value, the field the error names)
BAD_SET_STATES = [
    ("roboman-tasks", {"agent_pos": (7, 0)}, "agent_pos"), ("roboman-tasks", {"agent_pos": (0, "1")}, "agent_pos"),
    ("roboman-tasks", {"objs.x": 7}, "objs"), ("roboman-tasks", {"objs.obj_above": 3}, "obj_above"),
    ("roboman-tasks", {"objs.obj_below": -1}, "obj_below"),
    ("roboman-tasks", {"lifted_obj_idx": 2**70}, "lifted_obj_idx"),
    ("roboman-tasks", {"timer": -1}, "timer"), ("roboman-tasks", {"timer": 2**31}, "timer"),
]

CRASHED_STATES: list = []  # (level, keywords, field, value): no state has crashed this kernel

# Id -> its line in `gridsim list` (the row's describe hook), pinned for a few ids.
LIST_DESCRIPTIONS = {
    "gridsim/Gridroboman-StackRedOnGreen-v0": "stack the red object on the green one (7x7)",
    "gridsim/Gridroboman-TouchBlueWithRed-v0": "stand next to the blue object holding the red one (7x7)",
}
