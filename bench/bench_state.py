"""Time of ``load_state_dict`` and ``set_state`` of a large batch (the checks of injected states included).

Usage::

    python bench/bench_state.py                                   # 65,536 envs of every family
    python bench/bench_state.py --num-envs 1000000 --family nav --repeats 5

For each family (its bench level and settings) one batch is made, reset and stepped once;
then the best of ``--repeats`` calls of ``load_state_dict(state_dict())`` and of
``set_state(get_state(i), i)`` on one env is printed, one JSON line per family. Only the
public API is used, so the same script times any version of gridsim.
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


def time_state(family: str, num_envs: int, repeats: int) -> dict:
    """Best seconds of load_state_dict of the whole batch and of set_state of one env."""
    fam = FAMILIES[family]
    envs = gridsim.make(fam.tools.bench_name(), num_envs, **fam.tools.bench_kwargs)
    envs.reset(seed=0)
    envs.step(envs.action_space.sample())
    state = envs.state_dict()
    snap = envs.get_state(num_envs // 2)
    loads, sets = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        envs.load_state_dict(state)
        loads.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        envs.set_state(snap, num_envs // 2)
        sets.append(time.perf_counter() - t0)
    envs.close()
    return {"bench": "bench_state", "family": family, "num_envs": num_envs,
            "load_state_dict_s": min(loads), "set_state_s": min(sets), "repeats": repeats}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    p.add_argument("--num-envs", type=int, default=65_536)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    info = machine_info()
    for family in args.family:
        print(json.dumps({**time_state(family, args.num_envs, args.repeats), **info}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
