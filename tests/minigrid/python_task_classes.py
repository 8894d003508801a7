"""Tasks that are not built in, written as Minigrid classes, for the Python-task tests.

``GoalAwayFromStart`` places its goal and lava with rejection loops (``reject_fn``),
``LockedRooms`` is a RoomGrid of 2 x 2 rooms joined by doors, one locked, and
``PickUpNamed`` has its own step (UnlockPickup's) declared as the ``pick_up_target`` rule.
``DrawsOnceMore`` is ``GoalAwayFromStart`` drawing once more than it: what the side-by-side
check must catch.
"""

from __future__ import annotations

import pytest

pytest.importorskip("minigrid")

from minigrid.core.constants import COLOR_NAMES  # noqa: E402
from minigrid.core.grid import Grid  # noqa: E402
from minigrid.core.mission import MissionSpace  # noqa: E402
from minigrid.core.roomgrid import RoomGrid  # noqa: E402
from minigrid.core.world_object import Ball, Box, Goal, Key, Lava  # noqa: E402
from minigrid.envs import FetchEnv  # noqa: E402
from minigrid.minigrid_env import MiniGridEnv  # noqa: E402


class GoalAwayFromStart(MiniGridEnv):
    """Reach a goal at least ``distance`` cells from the start; lava cells, none next to the goal."""

    def __init__(self, size: int = 8, distance: int = 4, lava: int = 3, max_steps: int | None = None, **kwargs):
        self.distance, self.lava = distance, lava
        super().__init__(mission_space=MissionSpace(mission_func=lambda: "get to the goal, avoid the lava"),
                         grid_size=size, max_steps=max_steps or 4 * size * size, **kwargs)

    def _gen_grid(self, width, height):
        self.grid = Grid(width, height)
        self.grid.wall_rect(0, 0, width, height)
        self.place_agent()
        ax, ay = self.agent_pos

        def near_start(env, pos):
            return abs(pos[0] - ax) + abs(pos[1] - ay) < self.distance

        goal = self.place_obj(Goal(), reject_fn=near_start)
        for _ in range(self.lava):
            self.place_obj(Lava(), reject_fn=lambda env, pos: abs(pos[0] - goal[0]) + abs(pos[1] - goal[1]) <= 1)
        self.mission = "get to the goal, avoid the lava"


class DrawsOnceMore(GoalAwayFromStart):
    """As its parent, with one draw more at every reset."""

    def _gen_grid(self, width, height):
        self._rand_int(0, 2)
        super()._gen_grid(width, height)


class LockedRooms(RoomGrid):
    """2 x 2 rooms joined by doors (one locked, its key in the agent's room); reach the goal in another room."""

    def __init__(self, room_size: int = 5, **kwargs):
        super().__init__(mission_space=MissionSpace(mission_func=lambda: "open the doors and get to the goal"),
                         room_size=room_size, num_rows=2, num_cols=2, max_steps=8 * room_size ** 2, **kwargs)

    def _gen_grid(self, width, height):
        super()._gen_grid(width, height)
        i, j = self._rand_int(0, 2), self._rand_int(0, 2)
        self.place_agent(i, j)
        door, _ = self.add_door(i, j, door_idx=None, locked=True)
        self.add_object(i, j, "key", door.color)
        self.place_in_room(1 - i, 1 - j, Goal())
        self.connect_all()
        for _ in range(2):  # a distractor of a drawn kind and colour in a drawn room
            self.add_object(self._rand_int(0, 2), self._rand_int(0, 2))
        self.mission = "open the doors and get to the goal"


class PickUpNamed(MiniGridEnv):
    """Pick up the named one of several objects of distinct kinds (picking up another does nothing)."""

    gridsim_rule = "pick_up_target"

    def __init__(self, size: int = 7, num_objs: int = 4, **kwargs):
        self.num_objs = num_objs
        super().__init__(mission_space=MissionSpace(mission_func=lambda c, t: f"pick up the {c} {t}",
                                                    ordered_placeholders=[COLOR_NAMES, ["key", "ball", "box"]]),
                         grid_size=size, max_steps=5 * size * size, **kwargs)

    def _gen_grid(self, width, height):
        self.grid = Grid(width, height)
        self.grid.wall_rect(0, 0, width, height)
        kinds: list[tuple[str, str]] = []
        while len(kinds) < self.num_objs:
            kind = (self._rand_elem(["key", "ball", "box"]), self._rand_color())
            if kind not in kinds:
                kinds.append(kind)
        objs = []
        for kind, color in kinds:
            obj = {"key": Key, "ball": Ball, "box": Box}[kind](color)
            self.place_obj(obj)
            objs.append(obj)
        self.obj = self._rand_elem(objs)
        self.place_agent()
        self.mission = f"pick up the {self.obj.color} {self.obj.type}"

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        if action == self.actions.pickup and self.carrying and self.carrying == self.obj:
            reward = self._reward()
            terminated = True
        return obs, reward, terminated, truncated, info


class BigFetch(FetchEnv):
    """Minigrid's Fetch on a 9 x 9 grid with 5 objects: its own step (the kernel's fetch_target)."""

    def __init__(self, **kwargs):
        super().__init__(size=9, numObjs=5, **kwargs)


class OwnReset(GoalAwayFromStart):
    def reset(self, *, seed=None, options=None):
        return super().reset(seed=seed, options=options)


class OwnStep(GoalAwayFromStart):
    def step(self, action):
        return super().step(action)


class OwnReward(GoalAwayFromStart):
    def _reward(self):
        return 1.0
