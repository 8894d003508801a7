"""The BabyAI bot in the kernel beside Minigrid's: bot-labelled env-steps per second, and how good it is.

``speed`` (the default): env-steps per second of a loop that steps every env and asks the bot
for every env's next action (``env.step`` + ``BabyAIBot.replan``), N envs on one thread, beside
Minigrid 3.2.0's bot on Minigrid's env (one env, the same loop), alternated round by round; the
ratio is gridsim's over Minigrid's. Actions are the bot's, a fifth of them random (so that the
bots replan), from a fixed stream.

``quality``: the bot's success rate and mean episode length per BabyAI id: gridsim's over
``--seeds`` seeds (env i reset with seed i, one episode each, the bot's actions only), Minigrid's
over ``--ref-seeds`` (its bot is slow) with ``--ref-budget`` seconds per episode. An episode is a
success when it ends rewarded; it fails when the bot fails (upstream raises), ends unrewarded or
is truncated. Prints a markdown table.

    python bench/bench_babyai_bot.py speed --rounds 3
    python bench/bench_babyai_bot.py quality --seeds 1000 --ref-seeds 100
"""

from __future__ import annotations

import argparse
import platform
import signal
import time
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim
from gridsim.minigrid import MINIGRID_IDS
from gridsim.minigrid.bot import BabyAIBot

SPEED_IDS = ("BabyAI-GoToLocal-v0", "BabyAI-GoTo-v0", "BabyAI-BossLevel-v0")
# What Minigrid's bot says it cannot solve (minigrid/utils/baby_ai_bot.py).
UNSOLVED = {"BabyAI-PutNextS5N2Carrying-v0", "BabyAI-PutNextS6N3Carrying-v0", "BabyAI-PutNextS7N4Carrying-v0",
            "BabyAI-KeyInBox-v0"}


def gridsim_rate(name: str, num_envs: int, seconds: float) -> float:
    """Bot-labelled env-steps per second of gridsim's batch on one thread."""
    env = gridsim.make(name, num_envs=num_envs, num_threads=1)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    rng = np.random.default_rng(0)
    taken = None
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            a = bot.replan(taken)
            taken = np.where((a < 0) | (rng.random(num_envs) < 0.2), rng.integers(0, 7, num_envs), a)
            env.step(taken)
        steps += 10 * num_envs
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


class _Hung(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _Hung


def minigrid_rate(name: str, seconds: float) -> float:
    """Bot-labelled env-steps per second of Minigrid's bot on Minigrid's env (a new bot per episode)."""
    from minigrid.utils.baby_ai_bot import BabyAIBot as MinigridBot

    env = gym.make(name).unwrapped
    rng = np.random.default_rng(0)
    seed = 0
    steps = 0
    start = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        bot = MinigridBot(env)
        taken = None
        done = False
        while not done and time.perf_counter() - start < seconds:
            signal.alarm(2)  # a replan that never ends (its stack grows for ever) ends the episode
            try:
                a = bot.replan(taken)
            except Exception:
                a = None
            finally:
                signal.alarm(0)
            if a is None or rng.random() < 0.2:
                a = int(rng.integers(7))
            _, _, term, trunc, _ = env.step(a)
            taken = a
            steps += 1
            done = term or trunc
    return steps / (time.perf_counter() - start)


def speed(args: argparse.Namespace) -> None:
    print(f"# bot-labelled env-steps/s, N = {args.num_envs}, one thread, {platform.processor() or platform.machine()}")
    results: dict[str, dict[str, list[float]]] = {n: {"gridsim": [], "minigrid": []} for n in args.ids}
    for r in range(args.rounds):
        for name in args.ids:
            # Alternated: the two systems back to back, in turn first.
            for system in ("gridsim", "minigrid") if r % 2 == 0 else ("minigrid", "gridsim"):
                rate = gridsim_rate(name, args.num_envs, args.seconds) if system == "gridsim" else \
                    minigrid_rate(name, args.seconds)
                results[name][system].append(rate)
            print(f"round {r + 1} {name}: gridsim {results[name]['gridsim'][-1]:,.0f}, "
                  f"minigrid {results[name]['minigrid'][-1]:,.0f}", flush=True)
    print("\n| id | gridsim (best) | Minigrid 3.2.0 (best) | ratio |")
    print("|---|---:|---:|---:|")
    for name in args.ids:
        g, m = max(results[name]["gridsim"]), max(results[name]["minigrid"])
        print(f"| {name} | {g / 1e6:.2f} M | {m:,.0f} | {g / m:,.0f}x |")


def gridsim_quality(name: str, seeds: int) -> tuple[float, float, float]:
    """(success rate, mean length of the successful episodes, failure rate of the bot) over seeds 0..seeds-1."""
    env = gridsim.make(name, num_envs=seeds)  # (each env's first episode counts; autoresets go on)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    live = np.ones(seeds, bool)
    success = np.zeros(seeds, bool)
    failed = np.zeros(seeds, bool)
    length = np.zeros(seeds, np.int64)
    taken = None
    while live.any():
        a = bot.replan(taken)
        failed |= live & (a < 0)
        live &= a >= 0
        act = np.where(live, a, 6)
        _, reward, term, trunc, _ = env.step(act)
        length += live
        success |= live & term & (reward > 0)
        live &= ~(term | trunc)
        taken = act
    env.close()
    return success.mean(), (length[success].mean() if success.any() else float("nan")), failed.mean()


def minigrid_quality(name: str, seeds: int, budget: int) -> tuple[float, float, float, int]:
    """Minigrid's bot over seeds 0..seeds-1: as gridsim_quality, and the episodes past the budget."""
    from minigrid.utils.baby_ai_bot import BabyAIBot as MinigridBot

    env = gym.make(name).unwrapped
    signal.signal(signal.SIGALRM, _alarm)
    wins, fails, hung, lengths = 0, 0, 0, []
    for seed in range(seeds):
        signal.alarm(budget)
        try:
            env.reset(seed=seed)
            bot = MinigridBot(env)
            for t in range(1, 10**6):
                try:
                    a = bot.replan()
                except _Hung:
                    raise
                except Exception:
                    fails += 1
                    break
                _, reward, term, trunc, _ = env.step(a)
                if term or trunc:
                    if term and reward > 0:
                        wins += 1
                        lengths.append(t)
                    break
        except _Hung:
            hung += 1
        finally:
            signal.alarm(0)
    return wins / seeds, (float(np.mean(lengths)) if lengths else float("nan")), fails / seeds, hung


def quality(args: argparse.Namespace) -> None:
    names = args.ids or [n for n in MINIGRID_IDS if n.startswith("BabyAI-")]
    print(f"| id | gridsim success ({args.seeds} seeds) | mean length | bot failed | Minigrid success "
          f"({args.ref_seeds} seeds) | mean length | bot failed | past {args.ref_budget} s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        s, n, f = gridsim_quality(name, args.seeds)
        row = f"| {name}{' (upstream: unsolved)' if name in UNSOLVED else ''} | {s:.3f} | {n:.1f} | {f:.3f} |"
        if args.ref_seeds:
            rs, rn, rf, hung = minigrid_quality(name, args.ref_seeds, args.ref_budget)
            row += f" {rs:.3f} | {rn:.1f} | {rf:.3f} | {hung} |"
        else:
            row += " | | | |"
        print(row, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what")
    s = sub.add_parser("speed")
    s.add_argument("--ids", nargs="+", default=list(SPEED_IDS))
    s.add_argument("--num-envs", type=int, default=4096)
    s.add_argument("--rounds", type=int, default=3)
    s.add_argument("--seconds", type=float, default=3.0, help="per system, id and round")
    q = sub.add_parser("quality")
    q.add_argument("--ids", nargs="*", default=None)
    q.add_argument("--seeds", type=int, default=1000)
    q.add_argument("--ref-seeds", type=int, default=100)
    q.add_argument("--ref-budget", type=int, default=10, help="seconds per Minigrid episode")
    args = parser.parse_args()
    if args.what == "quality":
        quality(args)
    else:
        if args.what is None:
            args = s.parse_args([])
        speed(args)


if __name__ == "__main__":
    main()
