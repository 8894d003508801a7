"""What events cost: the same batch stepped with events off, on but unread, and on and read.

Usage::

    python bench/bench_events.py                 # every family, N = 4096
    python bench/bench_events.py --family nav --num-envs 16384 --repeats 9

For each family one level is built three times from the same seed: ``events=False``
(the default), ``events=True`` with nobody reading them, and ``events=True`` with
``events_batch()`` called after every step. The three are timed in interleaved
repeats (the order rotates each repeat) on the same pre-drawn random actions, so
machine noise hits them alike. Two timings per variant: the bare kernel call
(``raw``) and ``step()``.

Output: one JSON line per (family, variant, mode, repeat), then one ``"summary"`` line
per family with the best repeat of each and the ratios ``on_over_off`` (events written,
unread) and ``read_over_off`` (written and decoded each step) for both modes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import gridsim  # noqa: E402
from gridsim.families import FAMILIES  # noqa: E402
from gridsim.tools.benchmark import machine_info, make_actions, raw_step_fn  # noqa: E402

# Each family's benchmark level and batch settings (its row in the family table).
LEVELS = {name: (f.tools.bench_name(), dict(f.tools.bench_kwargs)) for name, f in FAMILIES.items()}
VARIANTS = ("off", "on", "read")


def build(family: str, variant: str, num_envs: int, seed: int):
    """The batch of one variant, reset with ``seed``."""
    level, kwargs = LEVELS[family]
    envs = gridsim.make(level, num_envs, events=variant != "off", **kwargs)
    envs.reset(seed=seed)
    return envs


def timed(fn, rows) -> float:
    t0 = time.perf_counter()
    for a in rows:
        fn(a)
    return time.perf_counter() - t0


def run_family(family: str, args, info: dict) -> dict:
    envs = {v: build(family, v, args.num_envs, args.seed) for v in VARIANTS}
    actions = make_actions(envs["off"].single_action_space, args.steps, args.num_envs, args.seed)
    rows = [np.ascontiguousarray(actions[t]) for t in range(args.steps)]

    def step_and_read(e):
        def fn(a):
            e.step(a)
            e.events_batch()
        return fn

    fns = {}
    for v, e in envs.items():
        raw = raw_step_fn(e, actions)
        if v == "read":
            fns[(v, "raw")] = (lambda a, raw=raw, e=e: (raw(a), e.events_batch()))
            fns[(v, "step")] = step_and_read(e)
        else:
            fns[(v, "raw")] = raw
            fns[(v, "step")] = e.step
    for fn in fns.values():  # warm-up
        for a in rows[: args.warmup]:
            fn(a)
    best: dict[tuple[str, str], float] = {}
    order = list(fns)
    for rep in range(args.repeats):
        for key in order[rep % len(order):] + order[: rep % len(order)]:
            seconds = timed(fns[key], rows)
            rate = args.num_envs * args.steps / seconds
            best[key] = max(best.get(key, 0.0), rate)
            print(json.dumps({"bench": "bench_events", "family": family, "level": LEVELS[family][0],
                              "variant": key[0], "mode": key[1], "num_envs": args.num_envs,
                              "steps": args.steps, "repeat": rep, "seconds": seconds,
                              "env_steps_per_s": rate, **info}), flush=True)
    summary = {"bench": "bench_events", "family": family, "mode": "summary", "num_envs": args.num_envs,
               "best_env_steps_per_s": {f"{v}/{m}": r for (v, m), r in best.items()}}
    for m in ("raw", "step"):
        summary[f"on_over_off_{m}"] = best[("on", m)] / best[("off", m)]
        summary[f"read_over_off_{m}"] = best[("read", m)] / best[("off", m)]
    summary.update(info)
    print(json.dumps(summary), flush=True)
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", default=list(LEVELS), choices=list(LEVELS))
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    info = {**machine_info(), "threads": 1}  # the event paths are timed on one kernel thread
    for family in args.family:
        run_family(family, args, info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
