"""Wall time and file size of BabyAI demonstrations written as a Minari dataset (``gridsim demos``).

Usage::

    python bench/bench_demos.py                          # 1,000,000 steps of BabyAI-GoToLocal-v0
    python bench/bench_demos.py --steps 100000 --observations all image
    python bench/bench_demos.py --env BabyAI-BossLevel-v0 --num-envs 1024

Each row is one run of :func:`gridsim.minigrid.demos.record_demos` into a fresh temporary
datasets root: as many episodes as come to about ``--steps`` steps (the episode count is
estimated from a short run of the same id first, which is not timed), for each observation
subset. Columns: the episodes and steps written, the wall time of the whole run (playing the
bot, buffering, writing, renaming), steps per second, the dataset's size and bytes per step.
A JSON line per row goes to stderr with the machine (CPU, cores) and the versions. Needs
``pip install "gridsim-vec[demos]"``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

import gridsim
from gridsim.minigrid.demos import OBSERVATIONS, record_demos
from gridsim.tools.benchmark import machine_info


def versions() -> dict[str, str]:
    import h5py
    import minari

    return {"gridsim": gridsim.__version__, "numpy": np.__version__, "minari": minari.__version__,
            "h5py": h5py.__version__}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="BabyAI-GoToLocal-v0", help="a BabyAI id (default: BabyAI-GoToLocal-v0)")
    parser.add_argument("--steps", type=int, default=1_000_000, help="steps to write, about (default: 1,000,000)")
    parser.add_argument("--num-envs", type=int, default=256, help="envs in the batch (default: 256)")
    parser.add_argument("--seed", type=int, default=0, help="the first episode's seed (default: 0)")
    parser.add_argument("--observations", nargs="+", default=list(OBSERVATIONS), choices=list(OBSERVATIONS),
                        help="observation subsets to time (default: all of them)")
    parser.add_argument("--dir", default=None, help="where the temporary datasets root goes (default: the system's)")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps must be positive, got {args.steps}")

    root = tempfile.mkdtemp(prefix="bench-demos-", dir=args.dir)
    try:
        probe = record_demos(args.env, 200, os.path.join(root, "probe"), num_envs=args.num_envs, seed=args.seed,
                             observations="image", progress=False)
        per_episode = probe.steps / probe.episodes
        episodes = max(1, round(args.steps / per_episode))
        machine = {**machine_info(), **versions()}
        print(f"{args.env}: {episodes} episodes (about {args.steps} steps; {per_episode:.1f} steps per episode), "
              f"{args.num_envs} envs, on {machine['cpu_model']} ({machine['cores']} cores)")
        header = (f"{'observations':<13} {'episodes':>9} {'steps':>9} {'seconds':>8} {'steps/s':>9} "
                  f"{'MB':>8} {'bytes/step':>10}")
        print(header)
        print("-" * len(header))
        for observations in args.observations:
            out = os.path.join(root, observations.replace("+", "_"))
            s = record_demos(args.env, episodes, out, num_envs=args.num_envs, seed=args.seed,
                             observations=observations, progress=sys.stderr.isatty())
            print(f"{observations:<13} {s.episodes:>9} {s.steps:>9} {s.seconds:>8.1f} {s.steps / s.seconds:>9.0f} "
                  f"{s.bytes / 1e6:>8.1f} {s.bytes / s.steps:>10.0f}", flush=True)
            print(json.dumps({"env": args.env, "observations": observations, "episodes": s.episodes,
                              "steps": s.steps, "failed": s.failed, "seconds": s.seconds, "bytes": s.bytes,
                              "num_envs": args.num_envs, **machine}), file=sys.stderr)
            shutil.rmtree(out)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("seconds: the whole run (the bot, the batch, writing the dataset); bytes/step: the dataset's size over "
          "its steps (each episode also has its final observation)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
