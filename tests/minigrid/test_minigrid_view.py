"""The kernel's partial view against Minigrid's ``gen_obs`` on random worlds.

The generators' worlds keep the agent inside an outer wall. Here any cell may hold any object,
the agent stands anywhere (on the border too, facing out), carries something or not, and the
view is of every size from 3 to 11 (wider than the smallest map) with and without
``see_through_walls``: rows wholly or partly beyond the map's edge, opaque doors of every state
and long runs of transparent cells all occur. Each world is written into both envs
(``set_state`` of :func:`gridsim.minigrid.interop.state_of`) and the observations compared.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")
import minigrid  # noqa: E402,F401  (registers the MiniGrid-* ids)
from minigrid.core.constants import COLOR_NAMES  # noqa: E402
from minigrid.core.world_object import Ball, Box, Door, Floor, Goal, Key, Lava, Wall  # noqa: E402

import gridsim  # noqa: E402,F401  (registers the gridsim/ ids)
from gridsim.minigrid.interop import state_of  # noqa: E402

# Square maps of 5 and 8 cells a side, and KeyCorridorS3R3's 9 x 7 (wider than high).
IDS = ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-DoorKey-8x8-v0", "MiniGrid-KeyCorridorS3R3-v0"]
WORLDS = 40


def random_object(rng: np.random.Generator):
    """A cell's content: nothing most often, walls and doors (open, closed, locked) often."""
    colour = COLOR_NAMES[int(rng.integers(len(COLOR_NAMES)))]
    state = int(rng.integers(3))
    door = Door(colour, is_open=state == 0, is_locked=state == 2)
    choices = [None, None, None, None, Wall(), Wall(), door, door,
               Key(colour), Ball(colour), Box(colour), Goal(), Lava(), Floor(colour)]
    return choices[int(rng.integers(len(choices)))]


def random_world(env, rng: np.random.Generator) -> None:
    """Fill ``env``'s grid at random and put the agent anywhere, carrying something or not."""
    grid = env.grid
    for y in range(grid.height):
        for x in range(grid.width):
            grid.set(x, y, random_object(rng))
    x, y = int(rng.integers(grid.width)), int(rng.integers(grid.height))
    if rng.random() < 0.5:
        grid.set(x, y, None)  # most often the agent stands on an empty cell; else on whatever lies there
    env.agent_pos = (x, y)
    env.agent_dir = int(rng.integers(4))
    env.carrying = Key(COLOR_NAMES[int(rng.integers(len(COLOR_NAMES)))]) if rng.random() < 0.3 else None


@pytest.mark.parametrize("see_through_walls", [False, True])
@pytest.mark.parametrize("view", [3, 5, 7, 9, 11])
@pytest.mark.parametrize("name", IDS)
def test_the_view_of_random_worlds_is_minigrids(name, view, see_through_walls):
    settings = {"agent_view_size": view, "see_through_walls": see_through_walls}
    ref = gym.make(name, agent_view_size=view).unwrapped
    ref.see_through_walls = see_through_walls  # (some ids fix it in their constructor)
    ours = gym.make("gridsim/" + name, **settings).unwrapped
    rng = np.random.default_rng([view, see_through_walls, len(name)])
    try:
        ref.reset(seed=0)
        for world in range(WORLDS):
            random_world(ref, rng)
            obs, _ = ours.set_state(state_of(ref))
            want = ref.gen_obs()
            where = f"{name} view={view} see_through_walls={see_through_walls} world {world}"
            assert obs["image"].shape == want["image"].shape == (view, view, 3), where
            np.testing.assert_array_equal(obs["image"], want["image"], err_msg=where)
            assert obs["direction"] == want["direction"], where
    finally:
        ref.close()
        ours.close()


def test_the_random_worlds_reach_beyond_the_map_and_behind_opaque_cells():
    """The cases above are not vacuous: views past the map's edge and hidden cells occur."""
    ref = gym.make(IDS[1], agent_view_size=7).unwrapped
    rng = np.random.default_rng(0)
    hidden = beyond = 0
    try:
        ref.reset(seed=0)
        for _ in range(WORLDS):
            random_world(ref, rng)
            hidden += int((ref.gen_obs()["image"][..., 0] == 0).sum())  # unseen cells
            left, top, right, bottom = ref.get_view_exts()
            beyond += left < 0 or top < 0 or right > ref.width or bottom > ref.height
    finally:
        ref.close()
    assert hidden > 0 and beyond > WORLDS // 2
