"""Cost of ``gridsim.evaluate`` over the batched steps it needs.

Usage::

    python bench/bench_eval.py                                   # every family
    python bench/bench_eval.py --family nav --seeds 10000 --num-envs 256 1024 --repeats 7

For each family (its registered id below), number of seeds and batch size, two things are
timed with the same numpy policy, alternating A and B within each repeat:

* A: ``gridsim.evaluate(policy, id, range(seeds), num_envs=N)``, the whole call (making
  the env, one episode per seed, refills, statistics);
* B: as many ``envs.step(policy(obs))`` calls as A made (``result.batch_steps``) on the same
  id's default vector env of N rows (NEXT_STEP autoreset, fresh output arrays, episode
  statistics), made and reset before the clock starts.

One JSON line per configuration: the best seconds of A and of B, ``ratio`` = best A /
best B, and ``row_use``, the share of the row-steps A made that belong to a counted episode
(the rest are rows waiting for a refill, or idle at the end with no seed left).

Two policies: ``obs``, a cheap function of each row's observation, and ``random``,
:class:`gridsim.RandomPolicy` (it takes infos: B passes it the same keys).
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads stay off the kernel's cores

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import gridsim  # noqa: E402
from gridsim.families import FAMILIES  # noqa: E402
from gridsim.tools.benchmark import machine_info  # noqa: E402

# The id each family is evaluated on: its row's FamilyTools.eval_id.
FAMILY_IDS = {name: row.tools.eval_id for name, row in FAMILIES.items() if row.tools.eval_id}


def features(obs) -> np.ndarray:
    """Each row's observation as one flat array; a dict's arrays side by side in key order (its strings left out)."""
    if isinstance(obs, dict):
        return np.concatenate([v.reshape(len(v), -1) for _, v in sorted(obs.items()) if isinstance(v, np.ndarray)],
                              axis=1)
    return obs.reshape(len(obs), -1)


def obs_policy(space):
    """A cheap deterministic numpy policy: a weighted sum of each row's first features, mod n."""
    nvec = np.atleast_1d(space.nvec if hasattr(space, "nvec") else space.n).astype(np.int64)

    def policy(obs):
        flat = features(obs)[:, :16]
        h = (flat * np.arange(3, 3 + flat.shape[1] * 7, 7)[: flat.shape[1]]).sum(axis=1).astype(np.int64)
        if not hasattr(space, "nvec"):
            return h % nvec[0]
        return np.stack([(h >> (2 * j)) % n for j, n in enumerate(nvec)], axis=1)

    return policy


def time_eval(env_id, policy, seeds, num_envs):
    t0 = time.perf_counter()
    result = gridsim.evaluate(policy, env_id, range(seeds), num_envs=num_envs)
    return time.perf_counter() - t0, result


def time_steps(env_id, policy, num_envs, steps, takes_infos):
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point")
    obs, infos = envs.reset(seed=0)
    extra = {"episode_seed": np.arange(num_envs, dtype=np.uint64), "episode_step": np.zeros(num_envs, np.int64)}
    t0 = time.perf_counter()
    for t in range(steps):
        if takes_infos:
            extra["episode_step"] = np.full(num_envs, t % 50)
            actions = policy(obs, {**infos, **extra})
        else:
            actions = policy(obs)
        obs, rewards, terminations, truncations, infos = envs.step(actions)
    seconds = time.perf_counter() - t0
    envs.close()
    return seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", default=list(FAMILY_IDS), choices=list(FAMILY_IDS))
    p.add_argument("--seeds", type=int, default=10_000)
    p.add_argument("--num-envs", nargs="+", type=int, default=[256, 1024])
    p.add_argument("--policy", nargs="+", default=["obs", "random"], choices=["obs", "random"])
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    info = machine_info()
    for family in args.family:
        env_id = FAMILY_IDS[family]
        space = gym.make(env_id).action_space
        for kind in args.policy:
            policy = obs_policy(space) if kind == "obs" else gridsim.RandomPolicy(space)
            for num_envs in args.num_envs:
                time_eval(env_id, policy, min(args.seeds, num_envs), num_envs)  # warm-up
                evals, steps, result = [], [], None
                for _ in range(args.repeats):  # A and B alternate
                    seconds, result = time_eval(env_id, policy, args.seeds, num_envs)
                    evals.append(seconds)
                    steps.append(time_steps(env_id, policy, num_envs, result.batch_steps, kind == "random"))
                rec = {"bench": "bench_eval", "family": family, "env": env_id, "policy": kind,
                       "seeds": args.seeds, "num_envs": num_envs, "batch_steps": result.batch_steps,
                       "episode_steps": int(result.lengths.sum()),
                       "row_use": float(result.lengths.sum()) / (result.batch_steps * num_envs),
                       "eval_s": min(evals), "step_s": min(steps), "ratio": min(evals) / min(steps),
                       "repeats": args.repeats}
                print(json.dumps({**rec, **info}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
