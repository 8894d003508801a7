"""Time of ``reset(seed=s)`` and ``reset()`` of a large batch (per-env key derivation at scale).

Usage::

    python bench/bench_reset.py                              # 1,000,000 nav envs, 1 thread
    python bench/bench_reset.py --num-envs 100000 --family nav roboman kitchen --threads 1 2

For each family (its bench level and settings) and thread count, one batch is made, and the
best of ``--repeats`` calls of ``reset(seed=...)`` (a new base seed each call: every env
derives a new key) and of ``reset()`` (every env continues with its next episode) is printed,
one JSON line per (family, threads).
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads stay off the kernel's cores

import gridsim  # noqa: E402
from gridsim.families import FAMILIES  # noqa: E402
from gridsim.tools.benchmark import machine_info  # noqa: E402


def time_resets(family: str, num_envs: int, threads: int, repeats: int) -> dict:
    """Best seconds of reset(seed=...) and of reset() for one batch."""
    fam = FAMILIES[family]
    kwargs = dict(fam.tools.bench_kwargs)
    if threads != 1:
        kwargs["num_threads"] = threads
    envs = gridsim.make(fam.tools.bench_name(), num_envs, **kwargs)
    seeded, continued = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        envs.reset(seed=1_000_003 * (r + 1))
        seeded.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        envs.reset()
        continued.append(time.perf_counter() - t0)
    envs.close()
    return {"bench": "bench_reset", "family": family, "num_envs": num_envs, "threads": threads,
            "reset_seed_s": min(seeded), "reset_s": min(continued), "repeats": repeats}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", default=["nav"], choices=list(FAMILIES))
    p.add_argument("--num-envs", type=int, default=1_000_000)
    p.add_argument("--threads", nargs="+", type=int, default=[1])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    info = machine_info()
    for family in args.family:
        for threads in args.threads:
            print(json.dumps({**time_resets(family, args.num_envs, threads, args.repeats), **info}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
