"""A task's generator written in Python with gridsim's primitives and compiled: resets at the kernel's speed.

``two_keys_two_doors`` is examples/python_task.py's ``TwoKeysTwoDoors`` written with the
primitives of ``gridsim.minigrid.compiled`` (each named as the Minigrid method it is), in the
order the class calls those methods; Numba compiles it (no C compiler needed), and the kernel
calls it at every reset, on its threads, without the GIL. The script checks it draw for draw
against the class, then times both routes.

Usage::

    python examples/compiled_task.py
    python examples/compiled_task.py --num-envs 64 --steps 50 --seeds 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from python_task import TwoKeysTwoDoors

import gridsim
from gridsim.minigrid import compiled as gc
from gridsim.minigrid.checking import compare_with_class

SIZE = 11
COLORS = np.array([gc.RED, gc.GREEN, gc.BLUE, gc.PURPLE, gc.YELLOW], np.int32)


@gc.task(width=SIZE, max_steps=10 * SIZE * SIZE, missions=("open both doors and get to the goal",))
def two_keys_two_doors(w):
    """TwoKeysTwoDoors._gen_grid, primitive for method."""
    width, height = gc.width(w), gc.height(w)
    gc.wall_rect(w, 0, 0, width, height)
    gc.put(w, width - 2, height - 2, gc.GOAL, gc.GREEN, 0)
    first = gc.rand_int(w, 2, width // 2 - 1)
    second = gc.rand_int(w, first + 2, width - 2)
    # _rand_subset(colors, 2): _rand_elem of the colours left, twice.
    left_colors = COLORS.copy()
    order = np.zeros(2, np.int32)
    for k in range(2):
        n = 5 - k
        i = gc.rand_int(w, 0, n)
        order[k] = left_colors[i]
        left_colors[i:n - 1] = left_colors[i + 1:n]
    left = 0
    for k in range(2):
        x = first if k == 0 else second
        gc.vert_wall(w, x, 0, height, gc.WALL, gc.GREY)
        gc.put(w, x, gc.rand_int(w, 1, height - 1), gc.DOOR, order[k], gc.LOCKED)
        if gc.place_obj(w, left, 0, x - left, height, gc.KEY, order[k], 0, 0, -1) < 0:
            return -1
        left = x
    return gc.place_agent(w, 0, 0, first, height, 1, -1)


def steps_per_second(envs, steps: int) -> float:
    """Steps per second of ``envs`` over ``steps`` calls of uniformly random actions."""
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 7, (steps, envs.num_envs))
    t = time.perf_counter()
    for a in actions:
        envs.step(a)
    return steps * envs.num_envs / (time.perf_counter() - t)


def main() -> None:
    """Check the compiled generator against the class, then time it beside the Python route."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=10, help="seeds checked against the class")
    args = ap.parse_args()
    print(f"compiled in {two_keys_two_doors.compile_seconds:.2f} s")
    report = compare_with_class(TwoKeysTwoDoors, env=gc.CompiledTaskEnv(task=two_keys_two_doors),
                                seeds=range(args.seeds), steps=200, size=SIZE)
    print(f"same as the class: {report.resets} resets, {report.steps} steps")
    # Short episodes (20 steps: the class's max_steps, the compiled task's max_episode_steps), so that
    # resets weigh.
    for name, task, limit in (("compiled", two_keys_two_doors, {"max_episode_steps": 20}),
                              ("python", TwoKeysTwoDoors, {"max_steps": 20})):
        envs = gridsim.make(task, args.num_envs, **limit)
        t = time.perf_counter()
        envs.reset(seed=1)
        reset_us = 1e6 * (time.perf_counter() - t) / args.num_envs
        print(f"{name}: {reset_us:.2f} us per env reset, {steps_per_second(envs, args.steps):,.0f} steps/s "
              "(an episode every 20 steps)")
        envs.close()


if __name__ == "__main__":
    main()
