"""The navigation family's cases for the engine-wide tests (found through ``gridsim.families.FAMILIES``).

Every family's test folder has a ``cases.py`` with the same names: those of ``REQUIRED_CASES`` in
``tests/engine/family_cases.py``, which says what each one is.
"""

from __future__ import annotations

import math

import numpy as np

import gridsim
from gridsim.nav.env import NavEnv, NavVectorEnv

ID_COUNT = 16  # the 10 navigation maps and PixelWorld's own six names (tests/engine/test_single_env.py)

# Collectibles, per-seed fixed rewards and several goals: every nav field is in use.
NAV_LEVEL = """%gridsim 1
[legend]
c = reward=5 collectible
x = reward=uniform(0, 1)
[map]
#######
#S c 0#
# x#  #
#0   c#
#######
"""

NAV_MAPS = ["#####\n#S 0#\n# # #\n#####", "#####\n#0 S#\n#   #\n#####"]

STATE_CASES = {
    "nav-collect": lambda: gridsim.make("=" + NAV_LEVEL, 3, family="nav", randomize_goals=True, events=True,
                                        max_episode_steps=9),
    "nav-maps-view": lambda: NavVectorEnv(3, world_map=NAV_MAPS + NAV_MAPS[:1], obs_type="view", view_size=3,
                                          autoreset_mode="SameStep", max_episode_steps=5),
    "nav-image": lambda: NavVectorEnv(2, world_map=NAV_MAPS[1], obs_type="image", autoreset_mode="Disabled",
                                      max_episode_steps=40),
}

# name -> (vector env class, single env class, constructor keywords): short episodes, so copies cross resets.
COPY_CASES = {
    "nav": (NavVectorEnv, NavEnv, {"level": "nav/room5_medium", "max_episode_steps": 7}),
    "nav-image": (NavVectorEnv, NavEnv, {"level": "nav/room1_small", "obs_type": "image", "max_episode_steps": 5}),
}


def no_goal_envs(n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (moving into a wall)."""
    envs = NavVectorEnv(n, world_map="#####\n#S  #\n#####", max_episode_steps=limit, autoreset_mode=mode)
    return envs, np.full(n, 0)  # 0 = up


# ---------------------------------------------------------------- the engine-wide tests' other cases

# Pinned: (name, payload fields) of each event type, in type order.
EVENTS = (("goal_reached", ("row", "col")), ("tile_collected", ("row", "col")), ("wall_bump", ("row", "col")))


def nav_maps(n: int) -> list[str]:
    """n map texts, cycling through a few built-in navigation levels (one map per env)."""
    texts = [gridsim.find_level(f"nav/{name}").read_text() for name in ("room2_small", "room3_small", "room4_small")]
    return [texts[i % len(texts)] for i in range(n)]


# Every observation type, action kind and option beside the registered ids' defaults.
BATCH_VARIANTS = {
    "nav-view": lambda n, **kw: gridsim.make("nav/four_rooms", n, obs_type="view", **kw),
    "nav-image": lambda n, **kw: gridsim.make("nav/room5_medium", n, obs_type="image", **kw),
    "nav-2d_discrete-random-goals":
        lambda n, **kw: gridsim.make("nav/room5_medium", n, actions="2d_discrete", randomize_goals=True, **kw),
    "nav-2d_continuous": lambda n, **kw: gridsim.make("nav/four_rooms", n, actions="2d_continuous", **kw),
    "nav-per-env-maps": lambda n, **kw: NavVectorEnv(n, world_map=nav_maps(n), **kw),
}


def changed_state(envs) -> dict:
    """A valid state for env 1 of ``envs`` (4 envs of the first id, played) that differs from its own."""
    return dict(envs.get_state(1), pos=(1, 1), key=(12345, 678), rng=99, step=2, episode=5, **{"return": -3.5})


def out_of_range_states(envs, v) -> list[dict]:
    """States for env 0 of ``envs`` (the first id, reset), each with ``v`` (past every range) in one number."""
    return [{"return": v}, {"step": v}, {"episode": v}, {"rng": v}, {"key": (v, 0)}, {"key": (0, v)},
            {"pos": (v, 0)}, {"pos": (0, v)}]


# (key, value, index): writes of the family's own properties that change 4 played envs of the first id.
PROPERTY_WRITES = [("state.agent.pos", "2,3", 1)]  # set_state underneath


# State case -> field -> (index of the bad entry within world 1's block, a value the validator refuses).
BAD_FIELD_VALUES = {
    "nav-collect": {"grid": (0, 200), "cell_flags": (0, 1), "cell_reward": (0, math.nan), "agent_cell": (0, 100000),
                    "step_count": (0, -1), "start_override": (0, -2)},
}

# (state case, a change of a get_state() snapshot with a bad value, the field the error names)
BAD_SET_STATES = [
    ("nav-collect", {"step": -1}, "step"), ("nav-collect", {"step": 2**40}, "step"),
    ("nav-collect", {"pos": (99, 1)}, "pos"), ("nav-collect", {"pos": (0, 0)}, "pos"),
    ("nav-collect", {"tiles": ["#######"] * 5}, "tiles"), ("nav-collect", {"tiles": ["?" * 7] * 5}, "tiles"),
    ("nav-collect", {"episode": -1}, "episode"), ("nav-collect", {"key": (1, -1)}, "key"),
    ("nav-collect", {"key": (1, 2**64)}, "key"), ("nav-collect", {"rng": 2**64}, "rng"),
    ("nav-collect", {"return": math.nan}, "return"), ("nav-collect", {"needs_reset": "False"}, "needs_reset"),
    ("nav-collect", {"needs_reset": 1}, "needs_reset"),
]

# (level, keywords, field, value): states that once crashed the kernel (entry 0 of the field set to the value).
CRASHED_STATES = [("nav/four_rooms", {"obs_type": "view"}, "agent_cell", value) for value in (100000, 2**31 - 1, -5)]

# Id -> its line in `gridsim list` (the row's describe hook), pinned for a few ids.
LIST_DESCRIPTIONS = {
    "gridsim/Nav-four_rooms-v0": "reach the goal in the bottom-right room from the top-left one, through doorways "
                                 "(13x13)",
    "gridsim/PixelWorld-room2_small-v0": "reach the goal at the top left beside a block of wall, with PixelWorld's "
                                         "noisy rewards (11x6)",
}
