"""Time Minigrid ids side by side: gridsim, EnvPool's C++ MiniGrid, Minigrid itself and NAVIX.

Usage::

    python bench/bench_minigrid.py                       # DoorKey-8x8, N = 4096, one thread
    python bench/bench_minigrid.py --env MiniGrid-FourRooms-v0 --num-envs 4096
    python bench/bench_minigrid.py --systems gridsim envpool --rounds 7

Systems (``--systems``; each is skipped with a note when its package is missing):

``gridsim``
    ``gym.make_vec("gridsim/<id>", N, vectorization_mode="vector_entry_point")`` and
    ``envs.step(actions)``: the default observation (dict of image, direction, mission),
    NEXT_STEP autoresets in the kernel (so resets are included), ``copy=True``, one thread.
``envpool``
    ``envpool.make_gymnasium(id, num_envs=N, batch_size=N, num_threads=1)``, ``step(actions)``
    (its synchronous mode: the same batch, the same call pattern).
``minigrid``
    ``gym.make_vec(id, --minigrid-envs, vectorization_mode="sync")`` of Farama's Python envs.
``navix``
    NAVIX (JAX on the CPU): ``jax.vmap`` of ``env.step`` over N states inside a jitted
    ``lax.scan`` of ``--steps`` steps, timed after compilation (NAVIX's own best case).

Every system steps the same number of steps per repeat with uniformly random valid actions
drawn before timing. The systems take turns, round after round (``--rounds``), so noise from
other processes hits all of them alike; each line is one (system, round), a JSON object with
``env_steps_per_s``; the last line, ``"system": "summary"``, has each system's best round and
the ratio of gridsim's best to each other system's best.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

# Minigrid id -> NAVIX id (NAVIX ports these only).
NAVIX_IDS = {"MiniGrid-DoorKey-8x8-v0": "Navix-DoorKey-8x8-v0", "MiniGrid-Empty-8x8-v0": "Navix-Empty-8x8-v0",
             "MiniGrid-FourRooms-v0": "Navix-FourRooms-v0",
             "MiniGrid-Dynamic-Obstacles-8x8-v0": "Navix-Dynamic-Obstacles-8x8-v0"}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def step_loop(envs, num_actions: int, n: int, steps: int, seed: int) -> Callable[[], float]:
    """A timed loop of ``steps`` batched ``envs.step`` calls with random actions drawn beforehand."""
    acts = np.random.default_rng(seed).integers(0, num_actions, size=(steps, n))

    def run() -> float:
        t = time.perf_counter()
        for a in acts:
            envs.step(a)
        return time.perf_counter() - t

    return run


def gridsim_runner(env_id: str, n: int, steps: int, seed: int) -> Callable[[], float]:
    import gymnasium as gym

    import gridsim  # noqa: F401  (registers the ids)

    envs = gym.make_vec("gridsim/" + env_id, num_envs=n, vectorization_mode="vector_entry_point")
    envs.reset(seed=seed)
    return step_loop(envs, envs.single_action_space.n, n, steps, seed)


def envpool_runner(env_id: str, n: int, steps: int, seed: int) -> Callable[[], float]:
    import envpool

    envs = envpool.make_gymnasium(env_id, num_envs=n, batch_size=n, num_threads=1, seed=seed)
    envs.reset()
    return step_loop(envs, envs.action_space.n, n, steps, seed)


def minigrid_runner(env_id: str, n: int, steps: int, seed: int) -> Callable[[], float]:
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the ids)

    envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync")
    envs.reset(seed=seed)
    return step_loop(envs, envs.single_action_space.n, n, steps, seed)


def navix_runner(env_id: str, n: int, steps: int, seed: int) -> Callable[[], float]:
    import jax
    import navix as nx

    env = nx.make(NAVIX_IDS[env_id])
    keys = jax.random.split(jax.random.PRNGKey(seed), n)
    state = jax.vmap(env.reset)(keys)
    acts = jax.random.randint(jax.random.PRNGKey(seed + 1), (steps, n), 0, 7)

    @jax.jit
    def roll(state, acts):
        def body(s, a):
            return jax.vmap(env.step)(s, a), ()
        return jax.lax.scan(body, state, acts)[0]

    jax.block_until_ready(roll(state, acts))  # compile

    def run() -> float:
        t = time.perf_counter()
        jax.block_until_ready(roll(state, acts))
        return time.perf_counter() - t

    return run


RUNNERS = {"gridsim": gridsim_runner, "envpool": envpool_runner, "minigrid": minigrid_runner,
           "navix": navix_runner}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="MiniGrid-DoorKey-8x8-v0", help="a Minigrid id")
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--minigrid-envs", type=int, default=64, help="batch of the Python reference")
    p.add_argument("--steps", type=int, default=64, help="steps per repeat")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--systems", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    args = p.parse_args(argv)
    if args.num_envs < 1 or args.steps < 1 or args.rounds < 1:
        p.error("--num-envs, --steps and --rounds must be positive")
    runners: dict[str, tuple[Callable[[], float], int]] = {}
    for name in args.systems:
        n = args.minigrid_envs if name == "minigrid" else args.num_envs
        if name == "navix" and args.env not in NAVIX_IDS:
            print(json.dumps({"system": name, "skipped": f"NAVIX has no port of {args.env}"}), flush=True)
            continue
        try:
            runners[name] = (RUNNERS[name](args.env, n, args.steps, args.seed), n)
        except ImportError as e:
            print(json.dumps({"system": name, "skipped": str(e)}), flush=True)
    common = {"env": args.env, "steps": args.steps, "cpu_model": cpu_model(), "cores": os.cpu_count()}
    best: dict[str, float] = {}
    for r in range(args.rounds):
        order = list(runners) if r % 2 == 0 else list(reversed(runners))
        for name in order:
            run, n = runners[name]
            seconds = run()
            rate = n * args.steps / seconds
            best[name] = max(best.get(name, 0.0), rate)
            print(json.dumps({"system": name, "round": r, "num_envs": n, "seconds": seconds,
                              "env_steps_per_s": rate, **common}), flush=True)
    summary = {"system": "summary", "best_env_steps_per_s": best, **common}
    if "gridsim" in best:
        summary["gridsim_over"] = {k: best["gridsim"] / v for k, v in best.items() if k != "gridsim"}
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
