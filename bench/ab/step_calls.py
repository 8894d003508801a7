"""Time one ``step()`` call per family (its ``eval_id``) at N = 1, 64 and 4096: the path around the kernel.

Usage: ``python bench/ab/step_calls.py`` prints one JSON line per configuration (the best of
``--repeats`` timings, microseconds per call). ``--ab BASE`` runs this script from two trees
in alternation (BASE, then this one, ``--rounds`` times) and prints the best of each tree's
rounds (on a shared machine the least disturbed one) and their ratio; both trees must be built
in place.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import timeit
from pathlib import Path

NUM_ENVS = (1, 64, 4096)


def measure(repeats: int) -> list[dict]:
    import gymnasium as gym
    import numpy as np

    import gridsim  # noqa: F401 - registers the ids
    from gridsim.families import FAMILIES

    out = []
    for name, row in FAMILIES.items():
        for n in NUM_ENVS:
            envs = gym.make_vec(row.tools.eval_id, num_envs=n, vectorization_mode="vector_entry_point").unwrapped
            envs.reset(seed=0)
            envs.action_space.seed(0)
            actions = np.asarray(envs.action_space.sample())
            number = max(10, 200_000 // (n * 5 if name == "kitchen" else n) // 10)
            for _ in range(number):  # warm up
                envs.step(actions)
            call = envs.step
            best = min(timeit.repeat(lambda call=call, a=actions: call(a), number=number, repeat=repeats))
            out.append({"family": name, "num_envs": n, "us_per_step": best / number * 1e6})
            envs.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--ab", help="the base tree to alternate with (built in place)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not args.ab:
        for line in measure(args.repeats):
            print(json.dumps(line))
        return
    here = Path(__file__).resolve().parents[2]
    trees = {"base": Path(args.ab).resolve(), "new": here}
    runs: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(args.rounds):
        for tree, path in trees.items():
            env = dict(os.environ, PYTHONPATH=str(path))
            text = subprocess.run([sys.executable, str(here / "bench/ab/step_calls.py"), "--repeats",
                                   str(args.repeats)], env=env, cwd="/tmp", check=True, capture_output=True,
                                  text=True).stdout
            for line in text.splitlines():
                r = json.loads(line)
                runs.setdefault((tree, r["family"], r["num_envs"]), []).append(r["us_per_step"])
    print("| family | N | base us/step | new us/step | speed new/base |")
    print("|---|---:|---:|---:|---:|")
    for (tree, family, n), values in runs.items():
        if tree != "base":
            continue
        base, new = min(values), min(runs[("new", family, n)])
        print(f"| {family} | {n} | {base:.2f} | {new:.2f} | {base / new:.3f}x |")


if __name__ == "__main__":
    main()
