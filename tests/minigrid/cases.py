"""The MiniGrid family's cases for the engine-wide tests (the names of ``tests/nav/cases.py``)."""

from __future__ import annotations

import copy

import numpy as np

import gridsim
from gridsim.minigrid.env import MinigridEnv, MinigridVectorEnv

# The ids gridsim/minigrid/tasks.py declares, counted apart (MinigridSpec.reference): Minigrid 3.2.0's
# MiniGrid-* ids but the six WFC ones, its 96 BabyAI-* ids, and ids of gridsim's own.
# tests/minigrid/test_minigrid_tasks.py says which to change when a task's ids change.
REFERENCE_ID_COUNT = 76
BABYAI_ID_COUNT = 96
OWN_ID_COUNT = 0
ID_COUNT = REFERENCE_ID_COUNT + BABYAI_ID_COUNT + OWN_ID_COUNT

def CONTRACT_IDS(ids: list[str]) -> list[str]:  # noqa: N802 - a case name (tests/engine/family_cases.py)
    """Every MiniGrid id, and one BabyAI id per level generator (tests/minigrid/test_babyai_diff.py plays
    every BabyAI id against minigrid; the engine's contracts are the same for a generator's ids)."""
    from gridsim.minigrid import MINIGRID_IDS

    seen: set[str] = set()
    out = []
    for env_id in ids:
        spec = MINIGRID_IDS[env_id.removeprefix("gridsim/")]
        if not spec.babyai or spec.generator not in seen:
            out.append(env_id)
            seen.add(spec.generator)
    return out


# The first registered ids, DistShift1 and DistShift2, draw nothing at reset. DoorKey comes first
# (the tests that take one id per family take it): a layout drawn at every reset, a key and a
# door. Dynamic-Obstacles draws at every step and has three actions; DistShift1 stays covered.
REPRESENTATIVE_IDS = ["gridsim/MiniGrid-DoorKey-5x5-v0", "gridsim/MiniGrid-Dynamic-Obstacles-5x5-v0",
                      "gridsim/MiniGrid-DistShift1-v0"]

# The mission as its index (a Discrete part) instead of a string: every part of the Dict an array.
ARRAY_OBS_KWARGS = {"mission_format": "index"}

STATE_CASES = {
    "minigrid-doorkey": lambda: MinigridVectorEnv(3, env_name="MiniGrid-DoorKey-5x5-v0", max_episode_steps=9),
    "minigrid-full": lambda: MinigridVectorEnv(2, env_name="MiniGrid-Empty-Random-5x5-v0", obs_type="full",
                                               autoreset_mode="SameStep", max_episode_steps=6),
    "minigrid-image": lambda: MinigridVectorEnv(2, env_name="MiniGrid-DoorKey-6x6-v0", obs_type="image",
                                                autoreset_mode="Disabled", max_episode_steps=30),
    "minigrid-rgb": lambda: MinigridVectorEnv(2, env_name="MiniGrid-DoorKey-5x5-v0", obs_type="rgb_full", tile_size=3,
                                              autoreset_mode="SameStep", max_episode_steps=8),
    # The balls' cells live in the task slots, which the step reads and writes; several missions, as indices.
    "minigrid-obstacles": lambda: MinigridVectorEnv(3, env_name="MiniGrid-Dynamic-Obstacles-6x6-v0",
                                                    max_episode_steps=12),
    "minigrid-index": lambda: MinigridVectorEnv(3, env_name="MiniGrid-GoToDoor-5x5-v0", mission_format="index",
                                                autoreset_mode="SameStep", max_episode_steps=8),
}

COPY_CASES = {
    "minigrid": (MinigridVectorEnv, MinigridEnv, {"env_name": "MiniGrid-DoorKey-5x5-v0", "max_episode_steps": 7}),
}


def no_goal_envs(n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (turning left on the spot)."""
    envs = MinigridVectorEnv(n, env_name="MiniGrid-Empty-8x8-v0", max_episode_steps=limit, autoreset_mode=mode)
    return envs, np.zeros(n, np.int64)


# ---------------------------------------------------------------- the engine-wide tests' other cases

EVENTS = ()  # pinned: the family declares no events yet

# Every observation type, action kind and option beside the registered ids' defaults.
BATCH_VARIANTS = {
    "minigrid-full-index-missions":
        lambda n, **kw: gridsim.make("minigrid:MiniGrid-GoToDoor-8x8-v0", n, obs_type="full", mission_format="index",
                                     **kw),
    "minigrid-image-obstacles":
        lambda n, **kw: gridsim.make("minigrid:MiniGrid-Dynamic-Obstacles-8x8-v0", n, obs_type="image", **kw),
    "minigrid-view-5": lambda n, **kw: gridsim.make("minigrid:MiniGrid-MultiRoom-N6-v0", n, agent_view_size=5, **kw),
}


def changed_state(envs) -> dict:
    """A valid state for env 1 of ``envs`` (4 envs of the first id, played) that differs from its own."""
    s = envs.get_state(1)
    return dict(s, agent_dir=(s["agent_dir"] + 1) % 4, step_count=2)


def out_of_range_states(envs, v) -> list[dict]:
    """States for env 0 of ``envs`` (the first id, reset), each with ``v`` (past every range) in one number."""
    base = envs.get_state(0)
    bit_generator = copy.deepcopy(base["bit_generator"])
    bit_generator["state"]["inc"] = v
    return [dict(base, step_count=v), dict(base, agent_pos=(v, 1)), dict(base, agent_dir=v),
            dict(base, carrying=(v, 0, 0)), dict(base, carrying_contents=v), dict(base, task=(v,)),
            dict(base, bit_generator=bit_generator), dict(base, grid=np.full(base["grid"].shape, v, object)),
            dict(base, contents=np.full(base["contents"].shape, v, object))]


# (key, value, index): writes of the family's own properties that change 4 played envs of the first id.
PROPERTY_WRITES = [("state.agent.pos", "2,1", 1), ("state.agent.dir", "2", 1), ("state.step_count", "5", 1)]


# State case -> field -> (index of the bad entry within world 1's block, a value the validator refuses).
BAD_FIELD_VALUES = {
    # An unseen object in a cell, a wall carried, a second mission of a one-mission id, an even PCG64 increment.
    "minigrid-doorkey": {"grid": (0, 0), "agent": (2, 4), "carrying": (0, 2), "step_count": (0, -1),
                         "mission": (0, 1), "bitgen": (3, 2), "obs_dir": (0, 4), "obs_mission": (0, -1),
                         "stat_success": (0, 2)},
    # A box's contents in a wall, contents carried with nothing, more balls than the task slots hold.
    "minigrid-obstacles": {"grid": (3, 41), "carrying": (3, 41), "task": (0, 10)},
}

# (state case, a change of a get_state() snapshot with a bad value, the field the error names)
BAD_SET_STATES = [
    ("minigrid-doorkey", {"agent_pos": (5, 1)}, "agent_pos"), ("minigrid-doorkey", {"agent_pos": (1,)}, "agent_pos"),
    ("minigrid-doorkey", {"agent_dir": 4}, "agent_dir"), ("minigrid-doorkey", {"step_count": -1}, "step_count"),
    ("minigrid-doorkey", {"mission": "get to the green goal square"}, "mission"),
    ("minigrid-doorkey", {"carrying": (2, 5, 0)}, "carrying"),
    ("minigrid-doorkey", {"carrying": (5, 9, 0)}, "carrying"),
    ("minigrid-doorkey", {"carrying_contents": 41}, "carrying_contents"),
    ("minigrid-doorkey", {"contents": np.full((5, 5), 300)}, "contents"),
    ("minigrid-doorkey", {"contents": np.full((5, 5), 41)}, "contents"),
    ("minigrid-doorkey", {"task": [0] * 21}, "task"), ("minigrid-doorkey", {"bit_generator": 7}, "bit_generator"),
    ("minigrid-doorkey", {"bit_generator.has_uint32": 1.5}, "bit_generator"),
    ("minigrid-obstacles", {"task": (9, 1, 1, 6, 1)}, "task"),
]

# (level, keywords, field, value): states that once crashed the kernel (entry 0 of the field set to the value).
CRASHED_STATES = [("minigrid:MiniGrid-Dynamic-Obstacles-5x5-v0", {}, "task", 32767)]

# Id -> its line in `gridsim list` (the row's describe hook), pinned for a few ids.
LIST_DESCRIPTIONS = {
    "gridsim/MiniGrid-KeyCorridorS3R3-v0": "find the key off the corridor, unlock a room, pick up its ball (7x7)",
    "gridsim/MiniGrid-DoorKey-5x5-v0": "pick up the key, unlock the door in the wall, reach the goal (5x5)",
}
