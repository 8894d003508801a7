"""Ray's cost in ``gridsim.distributed.evaluate``, against the local ``gridsim.evaluate``.

Usage::

    python bench/bench_distributed.py                       # 100,000 LiftRed seeds, 2 workers
    python bench/bench_distributed.py --seeds 20000 --repeats 3

Ray is started here on this machine (``ray.init(num_cpus=2 * workers)``: the pool of B waits
idle while C's actors run, and an actor reserves one CPU). Three things are timed
with :class:`gridsim.RandomPolicy`, alternating within each repeat:

* A: ``gridsim.evaluate("random", id, range(seeds), num_threads=workers)``, the local run on
  one process whose kernel uses every core;
* B: ``EvalPool.evaluate`` of the same seeds on a pool of ``workers`` actors started before
  the clock (the steady state of a long sweep; default shards);
* C: ``gridsim.distributed.evaluate``, the whole call: the actors' start included.

Then the per-task cost: a pool runs ``--tiny`` seeds one per shard (each task plays one
episode), against the local evaluate of the same seeds with one env, and B is timed again with
each ``--shard-sizes`` value, which shows the smallest shard worth sending. JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads stay off the kernel's cores

import numpy as np  # noqa: E402
import ray  # noqa: E402

import gridsim  # noqa: E402
from gridsim import distributed  # noqa: E402
from gridsim.tools.benchmark import machine_info  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gridsim/Gridroboman-LiftRed-v0")
    p.add_argument("--seeds", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--tiny", type=int, default=400, help="one-seed shards timed for the per-task cost")
    p.add_argument("--shard-sizes", nargs="+", type=int, default=[1024, 3125, 12500, 50000])
    args = p.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    info = machine_info()
    # Logical CPUs for two sets of actors: C's start while B's pool waits, idle (w cores do the work).
    ray.init(num_cpus=2 * args.workers, include_dashboard=False, log_to_driver=False)
    seeds = range(args.seeds)
    w = args.workers
    try:
        local_run = lambda: gridsim.evaluate("random", args.env, seeds, num_threads=w)  # noqa: E731
        with distributed.EvalPool(w) as pool:
            pool.evaluate("random", args.env, range(2000))  # warm-up: actors up, env made
            local_run()
            a, b, c = [], [], []
            for _ in range(args.repeats):
                seconds, local = timed(local_run)
                a.append(seconds)
                seconds, warm = timed(lambda: pool.evaluate("random", args.env, seeds))  # noqa: B023
                b.append(seconds)
                seconds, cold = timed(lambda: distributed.evaluate("random", args.env, seeds, num_workers=w))
                c.append(seconds)
                for other in (warm, cold):  # the point of it all: the same rows
                    assert np.array_equal(other.returns, local.returns) and np.array_equal(other.lengths,
                                                                                           local.lengths)
            print(json.dumps({"bench": "bench_distributed", "what": "evaluate", "env": args.env,
                              "seeds": args.seeds, "workers": w, "local_s": a, "pool_s": b, "call_s": c,
                              "pool_ratio": min(b) / min(a), "call_ratio": min(c) / min(a),
                              "pool_ratio_median": float(np.median(b) / np.median(a)),
                              "call_ratio_median": float(np.median(c) / np.median(a)), **info}), flush=True)

            tiny = range(args.tiny)
            pool.evaluate("random", args.env, tiny, shard_size=1, num_envs_per_worker=1)  # warm-up
            local_tiny, _ = timed(lambda: gridsim.evaluate("random", args.env, tiny, num_envs=1))
            sharded, _ = timed(lambda: pool.evaluate("random", args.env, tiny, shard_size=1, num_envs_per_worker=1))
            # w actors work at once: each task occupies an actor for w * sharded / tasks seconds.
            per_task = w * sharded / args.tiny - local_tiny / args.tiny
            print(json.dumps({"bench": "bench_distributed", "what": "per_task", "env": args.env,
                              "tasks": args.tiny, "workers": w, "sharded_s": sharded, "local_s": local_tiny,
                              "per_task_overhead_ms": 1000 * per_task, **info}), flush=True)

            for size in args.shard_sizes:
                times = [timed(lambda: pool.evaluate("random", args.env, seeds, shard_size=size))[0]  # noqa: B023
                         for _ in range(max(1, args.repeats // 2))]
                print(json.dumps({"bench": "bench_distributed", "what": "shard_size", "env": args.env,
                                  "seeds": args.seeds, "workers": w, "shard_size": size, "pool_s": min(times),
                                  "ratio_to_local": min(times) / min(a), **info}), flush=True)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
