"""Time Minigrid ids side by side: gridsim, EnvPool's C++ MiniGrid, Minigrid itself and NAVIX.

Usage::

    python bench/bench_minigrid.py                       # DoorKey-8x8, N = 4096, one thread
    python bench/bench_minigrid.py --env MiniGrid-FourRooms-v0 --num-envs 4096
    python bench/bench_minigrid.py --systems gridsim envpool --rounds 7
    python bench/bench_minigrid.py --env MiniGrid-KeyCorridorS3R3-v0 --resets --seeded

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

``--resets`` times resets alone instead: each repeat is ``--steps`` calls that reset the whole
batch, each env drawing its next layout from its own generator (no seed, as an autoreset does)
and the call returning the batch's observation. gridsim: ``envs.reset()``; EnvPool:
``env.reset()`` (every env of the pool); Minigrid: the ``SyncVectorEnv``'s ``reset()``; NAVIX:
a jitted ``jax.vmap(env.reset)`` of N fresh keys (keys drawn before timing). ``--seeded``
also times ``reset(seed=s)`` (env i seeded with s + i, a new s at every call, the same ones
each round) for gridsim and Minigrid as the systems ``gridsim_seeded`` and
``minigrid_seeded``; EnvPool takes its seed only when the pool is made. Lines have
``us_per_env_reset`` and ``env_resets_per_s``; the summary has each system's best round
(``best_us_per_env_reset``) and ``gridsim_over``, each other system's best over gridsim's
(how many times gridsim's unseeded reset is faster), and with ``--seeded``
``gridsim_seeded_over``, the same against gridsim's seeded reset.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

from gridsim.tools.benchmark import machine_info  # noqa: E402

# Minigrid id -> NAVIX id (NAVIX ports these only). NAVIX 0.7.4's KeyCorridor ids are left out:
# they are not Minigrid's task (the ball sits in its "goal" slot, but its episode ends only on
# walking into a Goal entity, and neither walking into the ball nor picking it up does that).
NAVIX_IDS = {"MiniGrid-DoorKey-8x8-v0": "Navix-DoorKey-8x8-v0", "MiniGrid-Empty-8x8-v0": "Navix-Empty-8x8-v0",
             "MiniGrid-FourRooms-v0": "Navix-FourRooms-v0",
             "MiniGrid-Dynamic-Obstacles-8x8-v0": "Navix-Dynamic-Obstacles-8x8-v0"}


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


def reset_loop(reset: Callable[[int], object], calls: int) -> Callable[[], float]:
    """A timed loop of ``calls`` batched resets; ``reset(k)`` is the kth call of the repeat."""

    def run() -> float:
        t = time.perf_counter()
        for k in range(calls):
            reset(k)
        return time.perf_counter() - t

    return run


def gridsim_resets(env_id: str, n: int, calls: int, seed: int, seeded: bool) -> Callable[[], float]:
    import gymnasium as gym

    import gridsim  # noqa: F401  (registers the ids)

    envs = gym.make_vec("gridsim/" + env_id, num_envs=n, vectorization_mode="vector_entry_point")
    envs.reset(seed=seed)
    if seeded:
        return reset_loop(lambda k: envs.reset(seed=seed + (k + 1) * n), calls)
    return reset_loop(lambda k: envs.reset(), calls)


def envpool_resets(env_id: str, n: int, calls: int, seed: int, seeded: bool) -> Callable[[], float]:
    import envpool

    envs = envpool.make_gymnasium(env_id, num_envs=n, batch_size=n, num_threads=1, seed=seed)
    envs.reset()
    return reset_loop(lambda k: envs.reset(), calls)


def minigrid_resets(env_id: str, n: int, calls: int, seed: int, seeded: bool) -> Callable[[], float]:
    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the ids)

    envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync")
    envs.reset(seed=seed)
    if seeded:
        return reset_loop(lambda k: envs.reset(seed=seed + (k + 1) * n), calls)
    return reset_loop(lambda k: envs.reset(), calls)


def navix_resets(env_id: str, n: int, calls: int, seed: int, seeded: bool) -> Callable[[], float]:
    import jax
    import navix as nx

    env = nx.make(NAVIX_IDS[env_id])
    reset = jax.jit(jax.vmap(env.reset))
    keys = [jax.random.split(jax.random.PRNGKey(seed + k), n) for k in range(calls)]
    jax.block_until_ready(reset(keys[0]))  # compile
    return reset_loop(lambda k: jax.block_until_ready(reset(keys[k])), calls)


RESET_RUNNERS = {"gridsim": gridsim_resets, "envpool": envpool_resets, "minigrid": minigrid_resets,
                 "navix": navix_resets}
SEEDED = ("gridsim", "minigrid")  # the systems that take a seed at reset


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="MiniGrid-DoorKey-8x8-v0", help="a Minigrid id")
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--minigrid-envs", type=int, default=64, help="batch of the Python reference")
    p.add_argument("--steps", type=int, default=64, help="batched calls per repeat: steps, or resets with --resets")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--systems", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    p.add_argument("--resets", action="store_true", help="time resets alone (microseconds per env reset)")
    p.add_argument("--seeded", action="store_true",
                   help="with --resets: also time reset(seed=...) of gridsim and Minigrid")
    args = p.parse_args(argv)
    if args.num_envs < 1 or args.steps < 1 or args.rounds < 1:
        p.error("--num-envs, --steps and --rounds must be positive")
    if args.seeded and not args.resets:
        p.error("--seeded needs --resets")
    runners: dict[str, tuple[Callable[[], float], int]] = {}
    for name in args.systems:
        n = args.minigrid_envs if name == "minigrid" else args.num_envs
        if name == "navix" and args.env not in NAVIX_IDS:
            print(json.dumps({"system": name, "skipped": f"NAVIX has no port of {args.env}"}), flush=True)
            continue
        try:
            if not args.resets:
                runners[name] = (RUNNERS[name](args.env, n, args.steps, args.seed), n)
                continue
            runners[name] = (RESET_RUNNERS[name](args.env, n, args.steps, args.seed, False), n)
            if args.seeded and name in SEEDED:
                runners[name + "_seeded"] = (RESET_RUNNERS[name](args.env, n, args.steps, args.seed, True), n)
        except ImportError as e:
            print(json.dumps({"system": name, "skipped": str(e)}), flush=True)
    common = {"env": args.env, "mode": "resets" if args.resets else "steps", "steps": args.steps,
              **machine_info()}
    best: dict[str, float] = {}
    for r in range(args.rounds):
        order = list(runners) if r % 2 == 0 else list(reversed(runners))
        for name in order:
            run, n = runners[name]
            seconds = run()
            line = {"system": name, "round": r, "num_envs": n, "seconds": seconds}
            if args.resets:
                us = seconds / (n * args.steps) * 1e6
                best[name] = min(best.get(name, us), us)
                line |= {"us_per_env_reset": us, "env_resets_per_s": 1e6 / us}
            else:
                rate = n * args.steps / seconds
                best[name] = max(best.get(name, 0.0), rate)
                line["env_steps_per_s"] = rate
            print(json.dumps({**line, **common}), flush=True)
    if args.resets:
        summary = {"system": "summary", "best_us_per_env_reset": best, **common}
        for base in ("gridsim", "gridsim_seeded"):
            if base in best:
                summary[base + "_over"] = {k: v / best[base] for k, v in best.items() if k != base}
    else:
        summary = {"system": "summary", "best_env_steps_per_s": best, **common}
        if "gridsim" in best:
            summary["gridsim_over"] = {k: best["gridsim"] / v for k, v in best.items() if k != "gridsim"}
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
