"""The ``gridsim`` command: ``bench``, ``list``, ``check`` and ``play``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings


def _bench(args) -> int:
    import gridsim
    from gridsim.benchmark import machine_info, make_actions, measure, measure_threads
    from gridsim.families import family_row
    from gridsim.level import load_level
    from gridsim.vector import parse_num_threads

    info = machine_info()
    threads = [parse_num_threads(t) for t in args.threads]
    print(f"gridsim {info['gridsim']} on {info['cpu_model']} ({info['cores']} cores), "
          f"level {args.level}, {args.num_envs} envs, kernel threads {' '.join(map(str, threads))}")
    header = (f"{'observation':<12} {'threads':>7} {'kernel call':>16} {'step()':>16} {'step/kernel':>12} "
              f"{'ns/env-step':>12} {'speed-up':>9}")
    print(header)
    print("-" * len(header))
    level, _ = load_level(args.level)
    fam = family_row(level.family)
    obs_types = args.obs or list(fam.bench_obs_types)
    for obs_type in obs_types:
        # The family's benchmark batch (episodes of 100 steps, as the registered ids; gridroboman keeps its 50).
        envs = gridsim.make(args.level, args.num_envs, num_threads=threads[0], **fam.bench_kwargs,
                            **({"obs_type": obs_type} if obs_type else {}))
        obs_type = envs.read_property("settings.obs_type")
        envs.reset(seed=args.seed)
        actions = make_actions(envs.single_action_space, args.steps, envs.num_envs, args.seed)
        if len(threads) == 1:
            raws, steps = [[m] for m in measure(envs, actions, repeats=args.repeats, level=args.level,
                                                 obs_type=obs_type)]
        else:  # thread counts take turns within each repeat, per mode
            raws, steps = (measure_threads(envs, actions, threads, mode=mode, repeats=args.repeats,
                                           level=args.level, obs_type=obs_type) for mode in ("raw", "step"))
        envs.close()
        for raw, step in zip(raws, steps, strict=True):
            speedup = step.env_steps_per_s / steps[0].env_steps_per_s
            print(f"{obs_type:<12} {step.threads:>7} {raw.env_steps_per_s / 1e6:>10.1f} M/s "
                  f"{step.env_steps_per_s / 1e6:>10.1f} M/s {step.env_steps_per_s / raw.env_steps_per_s:>11.0%} "
                  f"{step.ns_per_env_step:>12.2f} {speedup:>8.2f}x")
            if args.json:
                for m in (raw, step):
                    print(json.dumps({**info, **m.as_dict()}), file=sys.stderr)
    print(f"(env-steps per second, best of {args.repeats} repeats of {args.steps} steps; "
          f"speed-up of step() over {threads[0]} thread{'s' if threads[0] > 1 else ''})")
    return 0


def _list(args) -> int:
    import gridsim

    if args.settings:
        from gridsim.api.settings import settings_table
        from gridsim.families import FAMILIES

        for fam in FAMILIES.values():
            print(f"## {fam.name} ({fam.vector_env.__name__})\n\n{settings_table(fam.vector_env.SETTINGS)}\n")
        return 0
    for env_id in gridsim.registered_ids():
        print(env_id)
    return 0


def _check(args) -> int:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import gridsim

    failed = 0
    for env_id in args.ids or gridsim.registered_ids():
        env = gym.make(env_id)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_env(env.unwrapped, skip_render_check=True)
            print(f"ok      {env_id}")
        except Exception as e:  # noqa: BLE001 - report every id, then fail
            failed += 1
            print(f"FAILED  {env_id}: {e}")
        finally:
            env.close()
    return 1 if failed else 0


def _play(args) -> int:
    from gridsim.play import main as play_main

    return play_main(args.rest)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridsim`` console script."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads would share our core
    parser = argparse.ArgumentParser(prog="gridsim", description="Batched grid worlds.")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench", help="throughput of a level, by name (env-steps per second)")
    b.add_argument("--level", default="nav/room5_medium")
    b.add_argument("--num-envs", type=int, default=4096)
    b.add_argument("--steps", type=int, default=200)
    b.add_argument("--repeats", type=int, default=5)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--obs", nargs="+", default=None,
                   help="observation types to time (navigation default: coords view image; else the level's)")
    b.add_argument("--threads", nargs="+", default=["1"], metavar="N",
                   help="kernel threads to time, each a count or 'auto' (default: 1); several take turns")
    b.add_argument("--json", action="store_true", help="also write JSON lines to stderr")
    b.set_defaults(fn=_bench)
    lst = sub.add_parser("list", help="the registered Gymnasium ids")
    lst.add_argument("--settings", action="store_true", help="each family's settings instead (name, kwarg, default)")
    lst.set_defaults(fn=_list)
    c = sub.add_parser("check", help="run gymnasium's check_env on registered ids")
    c.add_argument("ids", nargs="*")
    c.set_defaults(fn=_check)
    p = sub.add_parser("play", help="play an env by hand (a window, or text in the terminal)", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(fn=_play)
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
