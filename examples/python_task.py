"""Your own task, written as a Minigrid class, played by gridsim's kernel seed for seed.

``TwoKeysTwoDoors`` is DoorKey with two walls: each has a locked door, and the key of each
lies before it. The class is plain Minigrid (a ``MiniGridEnv`` subclass with its
``_gen_grid``); gridsim runs that ``_gen_grid`` at every reset and the kernel steps the world.

Usage::

    python examples/python_task.py                 # check it against Minigrid, then time a batch
    python examples/python_task.py --num-envs 64 --steps 50 --seeds 3
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from minigrid.core.grid import Grid
from minigrid.core.mission import MissionSpace
from minigrid.core.world_object import Door, Goal, Key
from minigrid.minigrid_env import MiniGridEnv

import gridsim
from gridsim.minigrid.checking import compare_with_class


class TwoKeysTwoDoors(MiniGridEnv):
    """Open two locked doors, each with the key lying before it, and reach the goal."""

    def __init__(self, size: int = 11, max_steps: int | None = None, **kwargs):
        super().__init__(mission_space=MissionSpace(mission_func=lambda: "open both doors and get to the goal"),
                         grid_size=size, max_steps=max_steps or 10 * size * size, **kwargs)

    def _gen_grid(self, width, height):
        self.grid = Grid(width, height)
        self.grid.wall_rect(0, 0, width, height)
        self.put_obj(Goal(), width - 2, height - 2)
        first = self._rand_int(2, width // 2 - 1)
        second = self._rand_int(first + 2, width - 2)
        colors = self._rand_subset(["red", "green", "blue", "purple", "yellow"], 2)
        left = 0
        for x, color in zip((first, second), colors, strict=True):
            self.grid.vert_wall(x, 0)
            self.put_obj(Door(color, is_locked=True), x, self._rand_int(1, height - 1))
            self.place_obj(Key(color), top=(left, 0), size=(x - left, height))
            left = x
        self.place_agent(size=(first, height))
        self.mission = "open both doors and get to the goal"


def main() -> None:
    """Check the task against Minigrid, register it and time a batch of it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=10, help="seeds checked against Minigrid")
    args = ap.parse_args()

    # 1. Exact: gridsim's env and Minigrid's, side by side (every field, the generator's state).
    report = compare_with_class(TwoKeysTwoDoors, seeds=range(args.seeds), steps=200)
    print(f"same as Minigrid: {report.resets} resets, {report.steps} steps, {report.episodes} episodes")

    # 2. Registered as Minigrid registers its ids: gym.make and gym.make_vec.
    gridsim.register_task("MyTasks/TwoKeysTwoDoors-v0", TwoKeysTwoDoors, size=11, overwrite=True)
    envs = gym.make_vec("MyTasks/TwoKeysTwoDoors-v0", num_envs=args.num_envs,
                        vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 7, (args.steps, args.num_envs))
    t = time.perf_counter()
    for a in actions:
        envs.step(a)
    rate = args.steps * args.num_envs / (time.perf_counter() - t)
    print(f"{envs.env_name}: {args.num_envs} envs, {rate:,.0f} steps/s (random actions, resets included)")
    envs.close()


if __name__ == "__main__":
    main()
