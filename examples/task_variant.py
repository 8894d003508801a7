"""A variant of a built-in MiniGrid id: DoorKey on a 12 x 12 grid, with no code of its own.

A ``MinigridSpec`` holds an id's size, step limit, missions and its generator's parameters; a
changed copy, given as ``spec=``, plays the id's generator (in the kernel) at that size, exactly
as Minigrid's class made with those arguments (``DoorKeyEnv(size=12)``). The script checks that,
then times a batch.

Usage::

    python examples/task_variant.py
    python examples/task_variant.py --size 16 --num-envs 64 --steps 50 --seeds 3
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np
from minigrid.envs import DoorKeyEnv

import gridsim
from gridsim.minigrid import spec_of
from gridsim.minigrid.checking import compare_with_class
from gridsim.minigrid.env import MinigridEnv


def main() -> None:
    """Check the variant against Minigrid's class of that size, then time a batch of it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=12)
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=10, help="seeds checked against Minigrid")
    args = ap.parse_args()
    size = args.size
    # DoorKeyEnv's max_steps is 10 * size * size.
    spec = dataclasses.replace(spec_of("MiniGrid-DoorKey-8x8-v0"), name=f"DoorKey-{size}x{size}", width=size,
                               height=size, max_steps=10 * size * size)
    report = compare_with_class(DoorKeyEnv, env=MinigridEnv(spec=spec), seeds=range(args.seeds), steps=200, size=size)
    print(f"same as DoorKeyEnv(size={size}): {report.resets} resets, {report.steps} steps")
    envs = gridsim.make("MiniGrid-DoorKey-8x8-v0", args.num_envs, spec=spec)
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 7, (args.steps, args.num_envs))
    t = time.perf_counter()
    for a in actions:
        envs.step(a)
    rate = args.steps * args.num_envs / (time.perf_counter() - t)
    print(f"{envs.env_name}: {args.num_envs} envs, {rate:,.0f} steps/s")
    envs.close()


if __name__ == "__main__":
    main()
