"""The manipulation family's cases for the engine-wide tests (the names of ``tests/nav/cases.py``)."""

from __future__ import annotations

import copy

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
