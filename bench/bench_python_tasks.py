"""Time a task of your own beside the built-in id it copies, and beside Minigrid running the same class.

Usage::

    python bench/bench_python_tasks.py                    # N = 4096, 5 rounds
    python bench/bench_python_tasks.py --num-envs 1024 --rounds 3
    python bench/bench_python_tasks.py --max-steps 20     # an episode every 20 steps: resets dominate

The task is DoorKey on an 8 x 8 grid written as a Minigrid class (``DoorKeyLike``, a
``MiniGridEnv`` subclass whose ``_gen_grid`` is DoorKey's). Systems, in turns round after round:

``builtin``
    ``gym.make_vec("gridsim/MiniGrid-DoorKey-8x8-v0", N)``: the kernel's own generator.
``python``
    ``gridsim.make(DoorKeyLike, N)``: the class's ``_gen_grid`` in Python at every reset, the
    kernel stepping (``gridsim.minigrid.python_tasks``).
``compiled``
    ``gridsim.make(doorkey_compiled, N)``: the same generator written with the kernel's primitives
    and compiled by Numba (``gridsim.minigrid.compiled``); its compile time is in the summary.
``minigrid``
    ``SyncVectorEnv`` of ``--minigrid-envs`` ``DoorKeyLike`` envs: Minigrid itself.

Each round times (1) resets: ``--reset-calls`` calls of ``reset()`` without a seed (every env
draws its next layout), as ``us_per_env_reset``; (2) steps: ``--steps`` calls of ``step`` with
uniformly random actions drawn before timing, autoresets included, as ``env_steps_per_s``
(``--max-steps`` sets how often episodes end: with DoorKey's 640, random walks rarely reset).
One JSON line per (system, round); the last line is the summary of best rounds and ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import gymnasium as gym
import numpy as np
from minigrid.envs import DoorKeyEnv

import gridsim


class DoorKeyLike(DoorKeyEnv):
    """DoorKey-8x8 written as a Minigrid class: the generator is DoorKeyEnv's _gen_grid."""

    def __init__(self, **kwargs):
        super().__init__(size=8, **kwargs)


def compiled_doorkey(max_steps: int):
    """DoorKeyEnv(size=8)._gen_grid written with the kernel's primitives, compiled by Numba."""
    from gridsim.minigrid import compiled as gc

    @gc.task(width=8, max_steps=max_steps, missions=("use the key to open the door and then get to the goal",))
    def doorkey(w):
        width, height = gc.width(w), gc.height(w)
        gc.wall_rect(w, 0, 0, width, height)
        gc.put(w, width - 2, height - 2, gc.GOAL, gc.GREEN, 0)
        split = gc.rand_int(w, 2, width - 2)
        gc.vert_wall(w, split, 0, height, gc.WALL, gc.GREY)
        if gc.place_agent(w, 0, 0, split, height, 1, -1) < 0:
            return -1
        gc.put(w, split, gc.rand_int(w, 1, width - 2), gc.DOOR, gc.YELLOW, gc.LOCKED)
        return 0 if gc.place_obj(w, 0, 0, split, height, gc.KEY, gc.YELLOW, 0, 0, -1) >= 0 else -1

    return doorkey


def make(system: str, num_envs: int, minigrid_envs: int, max_steps: int, compiled=None):
    if system == "compiled":
        return gridsim.make(compiled, num_envs, num_threads=1)
    if system == "builtin":
        return gym.make_vec("gridsim/MiniGrid-DoorKey-8x8-v0", num_envs=num_envs,
                            vectorization_mode="vector_entry_point", num_threads=1, max_episode_steps=max_steps)
    if system == "python":
        return gridsim.make(DoorKeyLike, num_envs, num_threads=1, max_steps=max_steps)
    return gym.vector.SyncVectorEnv([lambda: DoorKeyLike(max_steps=max_steps)] * minigrid_envs)


def time_round(envs, steps: int, reset_calls: int, rng: np.random.Generator) -> dict:
    n = envs.num_envs
    envs.reset(seed=int(rng.integers(1 << 30)))
    t = time.perf_counter()
    for _ in range(reset_calls):
        envs.reset()
    reset_s = time.perf_counter() - t
    actions = rng.integers(0, 7, (steps, n))
    t = time.perf_counter()
    for k in range(steps):
        envs.step(actions[k])
    step_s = time.perf_counter() - t
    return {"num_envs": n, "us_per_env_reset": 1e6 * reset_s / (reset_calls * n),
            "env_steps_per_s": steps * n / step_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--num-envs", type=int, default=4096)
    ap.add_argument("--minigrid-envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--reset-calls", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--systems", nargs="+", default=["builtin", "compiled", "python", "minigrid"])
    ap.add_argument("--max-steps", type=int, default=640, help="the episodes' limit (DoorKey-8x8's: 640)")
    args = ap.parse_args()
    compiled = compiled_doorkey(args.max_steps) if "compiled" in args.systems else None
    envs = {s: make(s, args.num_envs, args.minigrid_envs, args.max_steps, compiled) for s in args.systems}
    best: dict[str, dict] = {}
    rng = np.random.default_rng(0)
    for r in range(args.rounds):
        for s in args.systems:
            steps = args.steps if s != "minigrid" else max(10, args.steps // 4)
            out = {"system": s, "round": r, **time_round(envs[s], steps, args.reset_calls, rng)}
            print(json.dumps(out), flush=True)
            b = best.setdefault(s, dict(out))
            b["us_per_env_reset"] = min(b["us_per_env_reset"], out["us_per_env_reset"])
            b["env_steps_per_s"] = max(b["env_steps_per_s"], out["env_steps_per_s"])
    summary: dict = {"system": "summary", "machine": platform.processor() or platform.machine(), "best": best}
    if compiled is not None:
        summary["compile_seconds"] = compiled.compile_seconds
    for system in ("python", "compiled"):
        if system in best and "builtin" in best:
            summary[f"{system}_step_over_builtin"] = (best[system]["env_steps_per_s"]
                                                     / best["builtin"]["env_steps_per_s"])
            summary[f"{system}_reset_over_builtin"] = (best[system]["us_per_env_reset"]
                                                      / best["builtin"]["us_per_env_reset"])
    if "python" in best and "minigrid" in best:
        summary["python_step_over_minigrid"] = best["python"]["env_steps_per_s"] / best["minigrid"]["env_steps_per_s"]
        summary["minigrid_reset_over_python"] = (best["minigrid"]["us_per_env_reset"]
                                                 / best["python"]["us_per_env_reset"])
    print(json.dumps(summary), flush=True)
    for e in envs.values():
        e.close()


if __name__ == "__main__":
    main()
