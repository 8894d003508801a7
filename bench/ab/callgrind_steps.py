"""Instructions per raw kernel step of every family, counted by callgrind: deterministic on a busy machine.

Usage::

    python bench/ab/callgrind_steps.py                 # this tree: one JSON line per configuration
    python bench/ab/callgrind_steps.py --ab BASE       # BASE (built in place) and this tree, side by side

Each configuration builds a batch of ``--num-envs`` envs with the family's benchmark settings
(``max_episode_steps=100``, so episodes end and reset inside the counted steps), resets it with
seed 0, runs ``--warmup`` steps, then ``--steps`` raw kernel steps (``envs.kernel.step_i64``) of
random actions drawn before counting. callgrind counts only inside the kernel's Python entry
point (``--toggle-collect`` on ``Kernel.step_i64``'s wrapper): the same instructions whatever
else the machine runs, so a 1% difference is visible where timings spread by 10%. With
``--ab`` the script runs itself under valgrind once per tree (``PYTHONPATH`` set to the tree)
and prints a markdown table of both counts and their ratio.

With ``--cache-sim`` callgrind also simulates the data caches, sized as this machine's per-core
caches by default (``--d1 32768,8,64``, the L2 as its last level: ``--l2 1048576,8,64``), and
one JSON line per configuration gives, per env-step: instructions, data reads and writes, L1
data misses (reads and writes) and misses of the whole L2 (lines fetched from beyond it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# (label, gridsim.make name, keywords)
CONFIGS = (
    ("nav coords", "nav/room5_medium", {}),
    ("nav 7x7 view", "nav/room5_medium", {"obs_type": "view"}),
    ("nav image", "nav/room5_medium", {"obs_type": "image"}),
    ("roboman vector", "roboman:LiftRed", {}),
    ("kitchen grid", "kitchen/open-divider_salad", {}),
    ("minigrid DoorKey-8x8", "minigrid:DoorKey-8x8-v0", {}),
    ("minigrid Dynamic-Obstacles-8x8", "minigrid:Dynamic-Obstacles-8x8-v0", {}),
    ("minigrid KeyCorridorS3R3", "minigrid:KeyCorridorS3R3-v0", {}),
)
# Cython's wrapper of Kernel.step_i64, the raw entry point (its number differs between trees).
TOGGLE = "__pyx_pw_7gridsim_6engine_6kernel_6Kernel_*step_i64"


def run_steps(label: str, num_envs: int, steps: int, warmup: int) -> None:
    """Build configuration ``label``, then run the raw steps that callgrind counts."""
    import numpy as np

    import gridsim
    from gridsim.tools.benchmark import make_actions

    _, name, kwargs = next(c for c in CONFIGS if c[0] == label)
    envs = gridsim.make(name, num_envs=num_envs, max_episode_steps=100, **kwargs)
    envs.reset(seed=0)
    actions = make_actions(envs.single_action_space, warmup + steps, num_envs).reshape(warmup + steps, -1)
    rows = [np.ascontiguousarray(a) for a in actions]
    step = envs.kernel.step_i64
    for a in rows[:warmup]:
        step(a)
    for a in rows[warmup:]:
        step(a)


def count(tree: Path, label: str, args) -> int:
    """Instructions callgrind counted in the raw steps of ``label``, with gridsim imported from ``tree``."""
    return callgrind_totals(tree, label, args)["Ir"]


def callgrind_totals(tree: Path, label: str, args, cache_sim: bool = False) -> dict[str, int]:
    """The totals callgrind counted in the raw steps of ``label``: Ir, and with ``cache_sim`` Dr, Dw, D1mr...."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
        cache = ["--cache-sim=yes", f"--D1={args.d1}", f"--LL={args.l2}"] if cache_sim else []
        cmd = ["valgrind", "--tool=callgrind", *cache, f"--toggle-collect={TOGGLE}", f"--callgrind-out-file={out}",
               sys.executable, str(Path(__file__).resolve()), "--run", label, "--num-envs", str(args.num_envs),
               "--steps", str(args.steps), "--warmup", str(args.warmup)]
        done = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{label!r} failed in {tree}:\n{done.stderr[-3000:]}")
        events = None
        for line in out.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            if line.startswith("summary:") or line.startswith("totals:"):
                return dict(zip(events or ["Ir"], map(int, line.split()[1:]), strict=True))
    raise RuntimeError(f"no totals in callgrind's output for {label!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--ab", help="the base tree to compare with (built in place)")
    parser.add_argument("--only", nargs="*", help="configuration labels to count (default: all)")
    parser.add_argument("--cache-sim", action="store_true", help="simulate the data caches; figures per env-step")
    parser.add_argument("--d1", default="32768,8,64", help="L1 data cache: size,associativity,line bytes")
    parser.add_argument("--l2", default="1048576,8,64", help="the cache simulated as the last level (L2)")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # inside valgrind: run one configuration's steps
    args = parser.parse_args()
    if args.run:
        run_steps(args.run, args.num_envs, args.steps, args.warmup)
        return
    here = Path(__file__).resolve().parents[2]
    labels = args.only or [c[0] for c in CONFIGS]
    if args.cache_sim:
        env_steps = args.num_envs * (args.steps + args.warmup)  # the warm-up calls are counted too
        for label in labels:
            totals = callgrind_totals(here, label, args, cache_sim=True)
            per_step = {k: round(v / env_steps, 2) for k, v in totals.items()}
            print(json.dumps({"config": label, "num_envs": args.num_envs, "per_env_step": per_step}), flush=True)
        return
    if not args.ab:
        for label in labels:
            print(json.dumps({"config": label, "instructions": count(here, label, args)}))
        return
    base = Path(args.ab).resolve()
    print("| configuration | base | new | new/base |\n|---|---:|---:|---:|")
    for label in labels:
        old, new = count(base, label, args), count(here, label, args)
        print(f"| {label} | {old:,} | {new:,} | {new / old:.4f} |", flush=True)


if __name__ == "__main__":
    main()
