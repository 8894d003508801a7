"""The tasks of python_task_classes.py as compiled tasks (gridsim.minigrid.compiled), draw for draw.

Each calls the primitives in the order its class calls Minigrid's methods; ``goal_away_from_start``
writes Minigrid's place_obj loop itself for its reject_fn cases.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from gridsim.minigrid import compiled as gc  # noqa: E402

COLORS = ("red", "green", "blue", "purple", "yellow", "grey")  # COLOR_TO_IDX order
KINDS = ("key", "ball", "box")
KIND_OBJECT = np.array([gc.KEY, gc.BALL, gc.BOX], np.int32)


def doorkey(size: int = 8, extra_draw: bool = False) -> gc.CompiledTask:
    """minigrid.envs.DoorKeyEnv(size=size); extra_draw: one draw more at every reset."""

    @gc.task(width=size, max_steps=10 * size * size,
             missions=("use the key to open the door and then get to the goal",))
    def generate(w):
        width, height = gc.width(w), gc.height(w)
        if extra_draw:
            gc.rand_int(w, 0, 2)
        gc.wall_rect(w, 0, 0, width, height)
        gc.put(w, width - 2, height - 2, gc.GOAL, gc.GREEN, 0)
        split = gc.rand_int(w, 2, width - 2)
        gc.vert_wall(w, split, 0, height, gc.WALL, gc.GREY)
        if gc.place_agent(w, 0, 0, split, height, 1, -1) < 0:
            return -1
        door = gc.rand_int(w, 1, width - 2)
        gc.put(w, split, door, gc.DOOR, gc.YELLOW, gc.LOCKED)
        if gc.place_obj(w, 0, 0, split, height, gc.KEY, gc.YELLOW, 0, 0, -1) < 0:
            return -1
        return 0

    return generate


def goal_away_from_start(size: int = 8, distance: int = 4, lava: int = 3) -> gc.CompiledTask:
    """python_task_classes.GoalAwayFromStart(size, distance, lava)."""

    @gc.task(width=size, max_steps=4 * size * size, missions=("get to the goal, avoid the lava",))
    def generate(w):
        gc.wall_rect(w, 0, 0, size, size)
        gc.place_agent(w, 0, 0, size, size, 1, -1)
        ax, ay = gc.agent_x(w), gc.agent_y(w)
        while True:  # place_obj(Goal(), reject_fn=near_start)
            gx, gy = gc.rand_int(w, 0, size), gc.rand_int(w, 0, size)
            if gc.get(w, gx, gy) != gc.EMPTY or (gx == ax and gy == ay):
                continue
            if abs(gx - ax) + abs(gy - ay) < distance:
                continue
            break
        gc.put(w, gx, gy, gc.GOAL, gc.GREEN, 0)
        for _ in range(lava):
            while True:  # place_obj(Lava(), reject_fn=next to the goal)
                x, y = gc.rand_int(w, 0, size), gc.rand_int(w, 0, size)
                if gc.get(w, x, y) != gc.EMPTY or (x == ax and y == ay):
                    continue
                if abs(x - gx) + abs(y - gy) <= 1:
                    continue
                break
            gc.put(w, x, y, gc.LAVA, gc.RED, 0)
        return 0

    return generate


def pick_up_named(size: int = 7, num_objs: int = 4) -> gc.CompiledTask:
    """python_task_classes.PickUpNamed(size, num_objs): the pick_up_target rule, its slots set."""

    @gc.task(width=size, max_steps=5 * size * size, rule="pick_up_target",
             missions=tuple(f"pick up the {c} {t}" for c in COLORS for t in KINDS))
    def generate(w):
        gc.wall_rect(w, 0, 0, size, size)
        kinds = np.zeros(num_objs, np.int32)
        colors = np.zeros(num_objs, np.int32)
        n = 0
        while n < num_objs:
            kind, color = gc.rand_int(w, 0, 3), gc.rand_color(w)
            new = True
            for k in range(n):
                if kinds[k] == kind and colors[k] == color:
                    new = False
            if new:
                kinds[n], colors[n] = kind, color
                n += 1
        for k in range(num_objs):
            gc.place_obj(w, 0, 0, size, size, KIND_OBJECT[kinds[k]], colors[k], 0, 0, -1)
        target = gc.rand_int(w, 0, num_objs)
        gc.place_agent(w, 0, 0, size, size, 1, -1)
        gc.set_mission(w, colors[target] * 3 + kinds[target])
        gc.set_task(w, 0, KIND_OBJECT[kinds[target]])
        gc.set_task(w, 1, colors[target])
        return 0

    return generate


def locked_rooms(room_size: int = 5) -> gc.CompiledTask:
    """python_task_classes.LockedRooms(room_size): RoomGrid's methods as the room_* primitives."""
    side = 2 * (room_size - 1) + 1

    @gc.task(width=side, max_steps=8 * room_size ** 2, missions=("open the doors and get to the goal",))
    def generate(w):
        gc.room_grid(w, room_size, 2, 2)
        i, j = gc.rand_int(w, 0, 2), gc.rand_int(w, 0, 2)
        if gc.room_place_agent(w, i, j) < 0:
            return -1
        color = gc.room_add_door(w, i, j, -1, -1, 1)
        if gc.room_add_object(w, i, j, gc.KEY, color) < 0:
            return -1
        if gc.room_place_in_room(w, 1 - i, 1 - j, gc.GOAL, gc.GREEN) < 0:
            return -1
        if gc.room_connect_all(w) < 0:
            return -1
        for _ in range(2):
            if gc.room_add_object(w, gc.rand_int(w, 0, 2), gc.rand_int(w, 0, 2), -1, -1) < 0:
                return -1
        return 0

    return generate
