"""PPO on any gridsim env, in one file of training code (CleanRL-style, torch on the CPU).

Usage::

    python examples/ppo.py --env-id gridsim/Gridroboman-LiftRed-v0
    python examples/ppo.py --env-id gridsim/Nav-four_rooms-v0
    python examples/ppo.py --level roboman:LiftRed --num-envs 64
    python examples/ppo.py --env-id gridsim/Kitchen-open-divider_salad-v0 --shaping item_chopped=0.5,items_merged=0.5
    python examples/ppo.py --env-id gridsim/MiniGrid-DoorKey-5x5-v0

The settings that depend on the task (envs, rollout length, budget, learning rate, entropy
bonus) come from the preset of the env's family (``PRESETS``; ``--preset`` picks another, a
flag overrides one value): the commands above solve LiftRed, four_rooms, the kitchen (its
reward shaping is a flag) and DoorKey-5x5, and levels of their families that no preset was
tuned on (examples/README.md). The learning rate follows the preset's ``--lr-schedule``:
``decay`` lowers it linearly to ``--lr-floor`` times its value over ``--lr-decay-updates``
updates and keeps it there, ``constant`` keeps it (the kitchen's); either way the rate of an
update does not depend on ``--total-timesteps``, so a run with a smaller budget is the start of
a longer run, update for update. ``--lr-schedule linear`` anneals it to 0 over the budget
(CleanRL's default), which makes every update depend on the budget.

The gridsim vector env steps every env in one kernel call (``--num-threads`` splits the
call over cores). Observations are encoded from their space and the ids the env declares
(``obs_id_counts``), for any level: category ids (a MiniGrid image's object, colour and
state) become one one-hot vector per cell and channel, integer boxes with small bounds (the
navigation coordinates) one one-hot vector over their joint values (a map's cells, up to
4,096) or one per axis, other boxes are scaled to [0, 1] from their bounds; a dict
observation (MiniGrid's image, direction and mission) is encoded entry by entry, its mission
string left out; a BabyAI id's mission comes as tokens (the ``babyai`` preset asks for
``mission_format="tokens"``), which the agent reads with a small text encoder (an embedding read
by a GRU, :class:`~gridsim.tools.torch_agent.TextEncoder`). Discrete and MultiDiscrete action
spaces are supported (a MultiDiscrete action is one categorical per component: the kitchen's
joint view);
``infos["action_mask"]`` (gridroboman; 1 = masked out) masks the logits. The kitchen's
agent-rows view (``--env-kwargs '{"agent_rows": true}'``) trains one shared policy over
every agent's row.

Navigation mazes whose goal a random walk never finds (``nav/maze32``) can train from
random starts (``--random-starts``: every episode starts on a uniformly drawn open cell,
through the ``start`` reset option), which is a start-state distribution, not a change of
task: the evaluation starts where the level says.

Rewards can be shaped from the kernel's events (``--shaping name=bonus,...``, e.g. the
kitchen's ``item_chopped`` and ``items_merged``); the evaluation always measures the
unshaped task. At the end the policy is evaluated with :func:`gridsim.evaluate` over
``--eval-seeds`` fresh seeds (not used in training), twice: greedy (the most likely action)
and sampled (actions drawn as in training, each draw a hash of ``--seed`` and the episode's
seed and step, :class:`~gridsim.tools.torch_agent.SampledPolicy`); a
greedy policy can loop where the sampled one breaks out. The last line printed is JSON:
``{"env_id", "success_rate", "mean_return", "sampled_success_rate", "sampled_mean_return",
"sps", "env_share", ...}`` (``success_rate`` and ``mean_return``: the greedy policy's).

The actor-critic network is gridsim's (:mod:`gridsim.tools.torch_agent`), and so is the
checkpoint it is saved to (``--checkpoint``, by default ``runs/<env>-seed<seed>.pt``): the
file holds the network's spaces, width and weights, so ``gridsim eval --policy run.pt`` and
``gridsim render --policy run.pt`` rebuild it (docs/checkpoints.md).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from gymnasium.envs.registration import load_env_creator
from torch import nn

import gridsim
from gridsim.engine.files import atomic_path
from gridsim.families import FAMILIES
from gridsim.make import load_level

# The network and its checkpoint file are gridsim's, so that `gridsim eval --policy run.pt` and
# `gridsim render` rebuild the same network from the file (the example is not importable by them).
from gridsim.tools.torch_agent import Agent, ObsEncoder, SampledPolicy, save_agent, valid_mask

# Training seeds start here; evaluation seeds start at EVAL_SEED_BASE, far from any training seed.
EVAL_SEED_BASE = 10**9


# Settings that depend on the task, per family: the family of --env-id / --level picks its row
# (--preset names another, or none), and a flag given on the command line wins over both.
# Each row trains its family's documented tasks (examples/README.md), e.g. LiftRed and
# four_rooms with no other flag.
BASE = {"num_envs": 64, "num_steps": 128, "total_timesteps": 500_000, "learning_rate": 2.5e-4, "ent_coef": 0.01,
        "lr_schedule": "decay", "lr_decay_updates": 60}
PRESETS = {
    "nav": {"num_envs": 32, "num_steps": 64, "total_timesteps": 500_000, "learning_rate": 1e-3,
            "lr_decay_updates": 200},
    "roboman": {"num_envs": 32, "num_steps": 64, "total_timesteps": 1_000_000, "learning_rate": 1e-3,
                "lr_decay_updates": 400},
    "kitchen": {"num_envs": 64, "num_steps": 64, "total_timesteps": 1_000_000, "learning_rate": 5e-4,
                "ent_coef": 0.02, "lr_schedule": "constant", "lr_decay_updates": 240},
    "minigrid": {"num_envs": 32, "num_steps": 128, "total_timesteps": 500_000, "learning_rate": 1e-3,
                 "ent_coef": 0.02, "lr_decay_updates": 120},
    "babyai": {"num_envs": 32, "num_steps": 128, "total_timesteps": 500_000, "learning_rate": 1e-3,
               "ent_coef": 0.02, "lr_decay_updates": 120},
}
# Env arguments a preset adds where --env-kwargs does not name them: BabyAI's mission as tokens,
# which the agent reads with its text encoder (a BabyAI id's missions vary from episode to episode).
PRESET_ENV_KWARGS = {"babyai": {"mission_format": "tokens"}}


def preset_help(key: str, what: str) -> str:
    """The help of a preset setting: what it is, and its value in each preset."""
    def show(value):
        return value if isinstance(value, str) else f"{value:,}" if isinstance(value, int) else f"{value:g}"

    values = ", ".join(f"{name} {show(row.get(key, BASE[key]))}" for name, row in PRESETS.items())
    return f"{what} (default: the preset's: {values}; none {show(BASE[key])})"


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with every default, where a flag has one of its own (not None)."""

    def _get_help_string(self, action):
        return action.help if action.default is None else super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (see ``--help``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=HelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--env-id", help="a registered id, e.g. gridsim/Nav-four_rooms-v0")
    src.add_argument("--level", help="a gridsim.make level name, e.g. nav/maze32 or roboman:LiftRed")
    p.add_argument("--level-directory", default=None, help="extra folder searched for --level")
    p.add_argument("--env-kwargs", type=json.loads, default={}, help="JSON dict of env keyword arguments")
    p.add_argument("--preset", choices=["auto", *PRESETS, "none"], default="auto",
                   help="the settings row the unset flags below come from (auto: the env's family)")
    p.add_argument("--num-envs", type=int, default=None, help=preset_help("num_envs", "envs stepped together"))
    p.add_argument("--num-steps", type=int, default=None,
                   help=preset_help("num_steps", "rollout length per env and update"))
    p.add_argument("--total-timesteps", type=int, default=None,
                   help=preset_help("total_timesteps", "env steps to train for"))
    p.add_argument("--seed", type=int, default=1, help="torch's seed; training resets with seed * 1,000,003")
    p.add_argument("--num-threads", default="1", help="kernel threads (an int or auto)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch's intra-op threads")
    p.add_argument("--learning-rate", type=float, default=None, help=preset_help("learning_rate", "Adam's step size"))
    p.add_argument("--lr-schedule", choices=["decay", "constant", "linear"], default=None,
                   help=preset_help("lr_schedule", "decay: linearly to --lr-floor times the rate over "
                                    "--lr-decay-updates updates, then that floor, whatever the budget; constant; "
                                    "or linear: annealed to 0 at --total-timesteps, so that a shorter budget also "
                                    "changes every update before it"))
    p.add_argument("--lr-decay-updates", type=int, default=None,
                   help=preset_help("lr_decay_updates", "updates over which --lr-schedule decay lowers the rate"))
    p.add_argument("--lr-floor", type=float, default=0.1,
                   help="the rate --lr-schedule decay ends at, as a fraction of --learning-rate")
    p.add_argument("--gamma", type=float, default=0.99, help="discount")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE's lambda")
    p.add_argument("--num-minibatches", type=int, default=4, help="minibatches per epoch")
    p.add_argument("--update-epochs", type=int, default=4, help="epochs over each rollout")
    p.add_argument("--clip-coef", type=float, default=0.2, help="PPO's clip range")
    p.add_argument("--ent-coef", type=float, default=None, help=preset_help("ent_coef", "entropy bonus"))
    p.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    p.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clipping")
    p.add_argument("--hidden", type=int, default=128, help="units of each of the two tanh hidden layers")
    p.add_argument("--train-episode-steps", type=int, default=None,
                   help="time limit of training episodes (evaluation keeps the env's own)")
    p.add_argument("--random-starts", action="store_true",
                   help="navigation: start training episodes on random open cells (evaluation: the level's start)")
    p.add_argument("--shaping", default="", help="event bonuses while training: name=bonus,name=bonus")
    p.add_argument("--eval-seeds", type=int, default=1000,
                   help="episodes of each final evaluation, greedy and sampled (0: none)")
    p.add_argument("--checkpoint", type=Path, default=None,
                   help="where to save the trained model (default: runs/<env>-seed<seed>.pt)")
    p.add_argument("--curve", type=Path, default=None, help="write the learning curve (PNG; needs matplotlib)")
    p.add_argument("--log-every", type=int, default=10, help="updates between progress lines")
    return p


def parse_args(argv=None):
    """The command line (see ``--help``), with the preset's values where no flag was given."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0.0 <= args.lr_floor <= 1.0:
        parser.error(f"--lr-floor must be within [0, 1], got {args.lr_floor:g}")
    if args.lr_decay_updates is not None and args.lr_decay_updates < 1:
        parser.error(f"--lr-decay-updates must be at least 1, got {args.lr_decay_updates}")
    if args.preset == "auto":
        args.preset = "babyai" if is_babyai(args) else family_name(args)
    row = BASE | PRESETS.get(args.preset, {})
    for key, value in row.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.env_kwargs = PRESET_ENV_KWARGS.get(args.preset, {}) | args.env_kwargs
    return args


def is_babyai(args) -> bool:
    """Whether the env trained on is a BabyAI id (the ``babyai`` row of ``--preset auto``)."""
    name = gym.spec(args.env_id).name if args.env_id else str(args.level).rpartition(":")[2]
    return name.startswith("BabyAI-")


def family_name(args) -> str:
    """The family of the env trained on (the row of ``--preset auto``), read from its id or level."""
    if args.env_id:
        spec = gym.spec(args.env_id)
        kwargs = spec.kwargs | args.env_kwargs
        if "level" not in kwargs or spec.vector_entry_point != "gridsim.make:make":
            vector_env = load_env_creator(spec.vector_entry_point)
            return next(f.name for f in FAMILIES.values() if vector_env is f.vector_env)
        level = kwargs["level"]  # gridsim/Level-v0: of the level's family
    else:
        level = args.level
    return load_level(level, args.level_directory)[0].family


# ------------------------------------------------------------------ the env


def make_envs(args):
    """The gridsim vector env (SAME_STEP autoreset: a done row's next observation starts its next episode)."""
    kwargs = dict(args.env_kwargs, num_threads=args.num_threads, autoreset_mode="SameStep")
    if args.train_episode_steps:
        kwargs["max_episode_steps"] = args.train_episode_steps
    if args.shaping:
        kwargs["events"] = True
    if args.env_id:
        envs = gym.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode="vector_entry_point", **kwargs)
        return envs.unwrapped
    if args.level_directory:
        kwargs["level_directory"] = args.level_directory
    return gridsim.make(args.level, args.num_envs, **kwargs)


def env_name(args) -> str:
    """The id or level name trained on, as the JSON line reports it."""
    return args.env_id or args.level


def event_bonus(envs, shaping: dict[str, float]) -> np.ndarray:
    """Each row's shaping bonus from this step's kernel events."""
    names = [spec.name for spec in envs.EVENT_SPECS]
    weights = np.zeros(len(names) + 1)
    for name, bonus in shaping.items():
        weights[names.index(name) + 1] = bonus  # event types are 1-based
    ev = envs.events_batch()
    return np.bincount(ev["env"], weights=weights[ev["type"]], minlength=envs.num_envs).astype(np.float32)


class RandomStarts:
    """Uniform start cells over a navigation map's open, non-terminal cells."""

    def __init__(self, envs, seed: int):
        if not isinstance(envs, gridsim.NavVectorEnv):
            raise SystemExit("--random-starts is for navigation levels")
        self.cells = envs.level.open_cells
        self.rng = np.random.default_rng(seed)
        self.num_envs = envs.num_envs

    def __call__(self) -> np.ndarray:
        """One start (row, col) per env, as ``options["start"]`` takes them."""
        return self.cells[self.rng.integers(len(self.cells), size=self.num_envs)]


def parse_shaping(text: str, envs) -> dict[str, float]:
    """``name=bonus,...`` as a dict, checked against the env's event names."""
    if not text:
        return {}
    names = [spec.name for spec in envs.EVENT_SPECS]
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name not in names:
            raise SystemExit(f"--shaping: unknown event {name!r}; this env's events are {names}")
        out[name] = float(value)
    return out


# ------------------------------------------------------------------ training


def learning_rate(args, update: int, updates: int) -> float:
    """The learning rate of update ``update`` (1-based) of ``updates`` under ``--lr-schedule``.

    Only ``linear`` reads ``updates`` (the budget): under ``decay`` and ``constant`` a shorter
    run is the start of a longer one.
    """
    if args.lr_schedule == "linear":
        return args.learning_rate * (1.0 - (update - 1) / updates)
    if args.lr_schedule == "decay":
        done = min(1.0, (update - 1) / args.lr_decay_updates)
        return args.learning_rate * (1.0 - (1.0 - args.lr_floor) * done)
    return args.learning_rate


def train(args):
    """Train a PPO agent; returns the agent, its learning curve and throughput figures."""
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    envs = make_envs(args)
    shaping = parse_shaping(args.shaping, envs)
    encoder = ObsEncoder.from_env(envs)
    agent = Agent(encoder, envs.single_action_space, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    N, T = envs.num_envs, args.num_steps
    heads = len(agent.nvec)
    width = sum(agent.nvec)
    batch = N * T
    updates = max(1, args.total_timesteps // batch)

    obs_buf = torch.zeros(T, N, encoder.size)
    act_buf = torch.zeros(T, N, heads, dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros(T, N) for _ in range(4))
    mask_buf = torch.ones(T, N, width, dtype=torch.bool)

    starts = RandomStarts(envs, args.seed) if args.random_starts else None
    options = {"start": starts()} if starts else None
    obs, infos = envs.reset(seed=args.seed * 1_000_003, options=options)
    next_x = encoder(obs)
    next_mask = valid_mask(infos, N, width)
    next_done = torch.zeros(N)
    curve, recent = [], {"return": [], "success": [], "length": [], "bonus": []}
    bonus_sum = np.zeros(N, dtype=np.float32)  # each row's shaping bonus so far this episode
    env_seconds, start = 0.0, time.perf_counter()
    for update in range(1, updates + 1):
        optimizer.param_groups[0]["lr"] = learning_rate(args, update, updates)
        for t in range(T):
            obs_buf[t], done_buf[t] = next_x, next_done
            if next_mask is not None:
                mask_buf[t] = next_mask
            with torch.no_grad():
                action, logp, _, value = agent.act(next_x, next_mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            a = action.numpy()
            t0 = time.perf_counter()
            obs, reward, term, trunc, infos = envs.step(a[:, 0] if heads == 1 else a)
            env_seconds += time.perf_counter() - t0
            reward = np.asarray(reward, dtype=np.float32)
            if shaping:
                bonus = event_bonus(envs, shaping)
                reward = reward + bonus
                bonus_sum += bonus
                ended_now = term | trunc
                recent["bonus"].extend(bonus_sum[ended_now].tolist())
                bonus_sum[ended_now] = 0.0
            if trunc.any():  # bootstrap a time limit from the final state's value
                rows = np.flatnonzero(trunc & ~term)
                if len(rows):
                    final = stack_obs(infos["final_obs"][rows])
                    with torch.no_grad():
                        reward[rows] += args.gamma * agent.value(encoder(final)).numpy()
            rew_buf[t] = torch.as_tensor(reward)
            ended = term | trunc
            if starts and ended.any():  # the rows that just started an episode start again elsewhere
                obs, _ = envs.reset(options={"reset_mask": ended, "start": starts()})
            next_x = encoder(obs)
            next_mask = valid_mask(infos, N, width)
            next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
            record_episodes(infos, term, recent)

        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.value(next_x)
            adv = torch.zeros(T, N)
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else done_buf[t + 1])
                nv = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            ret = adv + val_buf

        b_obs, b_act, b_logp = obs_buf.reshape(batch, -1), act_buf.reshape(batch, heads), logp_buf.reshape(-1)
        b_adv, b_ret, b_mask = adv.reshape(-1), ret.reshape(-1), mask_buf.reshape(batch, width)
        use_mask = next_mask is not None
        mb = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            perm = torch.randperm(batch)
            for s in range(0, batch, mb):
                idx = perm[s:s + mb]
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx] if use_mask else None, b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        steps = update * batch
        if recent["return"]:
            elapsed = time.perf_counter() - start
            point = {"step": steps, "seconds": round(elapsed, 1), "return": float(np.mean(recent["return"])),
                     "success": float(np.mean(recent["success"])), "length": float(np.mean(recent["length"]))}
            if recent["bonus"]:
                point["bonus"] = float(np.mean(recent["bonus"]))
            curve.append(point)
            recent = {k: [] for k in recent}
            if update % args.log_every == 0 or update == updates:
                bonus = f"  bonus {point['bonus']:6.2f}" if "bonus" in point else ""
                print(f"step {steps:>9,}  return {point['return']:8.3f}  success {point['success']:.3f}  "
                      f"length {point['length']:7.1f}{bonus}  sps {steps / elapsed:8.0f}  "
                      f"env share {env_seconds / elapsed:.0%}", flush=True)
    elapsed = time.perf_counter() - start
    envs.close()
    return agent, curve, {"sps": updates * batch / elapsed, "env_share": env_seconds / elapsed,
                          "train_seconds": elapsed, "timesteps": updates * batch}


def stack_obs(rows) -> np.ndarray | dict:
    """Per-row observations (SAME_STEP's ``infos["final_obs"]`` entries) as one batch.

    Dict observations (MiniGrid's) come as one dict per row: they become one dict of batched
    entries, strings (the mission) as a tuple.
    """
    first = rows[0]
    if isinstance(first, dict):
        return {k: tuple(r[k] for r in rows) if isinstance(first[k], str) else np.stack([r[k] for r in rows])
                for k in first}
    return np.stack(rows)


def record_episodes(infos: dict, term: np.ndarray, recent: dict):
    """Append the return, length and success of every episode that ended on this step."""
    stats = infos.get("final_info", infos).get("episode_stats")
    if stats is None:
        return
    ended = stats["_return"]
    if not ended.any():
        return
    recent["return"].extend(stats["return"][ended].tolist())
    recent["length"].extend(stats["length"][ended].tolist())
    success = stats["success"][ended] if "success" in stats else term[ended]
    recent["success"].extend(np.asarray(success, dtype=float).tolist())


def plot_curve(curve: list[dict], path: Path, title: str):
    """Success and return of the training episodes against env steps, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    steps = [p["step"] for p in curve]
    ax[0].plot(steps, [p["success"] for p in curve])
    ax[0].set_ylabel("success (training episodes)")
    ax[0].set_ylim(-0.02, 1.02)
    ax[1].plot(steps, [p["return"] for p in curve])
    ax[1].set_ylabel("return (unshaped)")
    for a in ax:
        a.set_xlabel("env steps")
        a.grid(alpha=0.3)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100)
    plt.close(fig)


def save_checkpoint(agent: Agent, args) -> None:
    """Save the agent to ``args.checkpoint`` with the run's arguments (``gridsim eval --policy`` loads it)."""
    save_agent(args.checkpoint, agent,
               metadata=vars(args) | {"checkpoint": str(args.checkpoint), "curve": str(args.curve)})


def main(argv=None) -> int:
    """Train, save, plot, evaluate, and print the JSON summary line last."""
    args = parse_args(argv)
    if args.curve:
        try:  # checked before training, not after it
            import matplotlib  # noqa: F401
        except ImportError:
            raise SystemExit("--curve needs matplotlib: pip install matplotlib") from None
    print(f"preset {args.preset}: " + ", ".join(f"{key} {getattr(args, key)}" for key in BASE)
          + (f", lr floor {args.lr_floor:g}" if args.lr_schedule == "decay" else ""), flush=True)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    agent, curve, stats = train(args)
    name = env_name(args)
    if args.checkpoint is None:
        args.checkpoint = Path("runs") / f"{name.replace('/', '_').replace(':', '_')}-seed{args.seed}.pt"
    if args.checkpoint:
        args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(agent, args)
    if args.curve and curve:
        plot_curve(curve, args.curve, f"{name}: {stats['timesteps']:,} steps, {stats['train_seconds']:.0f} s")
    out = {"env_id": name, "success_rate": None, "mean_return": None,
           "sps": round(stats["sps"]), "env_share": round(stats["env_share"], 3),
           "train_seconds": round(stats["train_seconds"], 1), "timesteps": stats["timesteps"]}
    if args.eval_seeds > 0:
        env = args.env_id or args.level
        env_kwargs = dict(args.env_kwargs)
        if args.level_directory:
            env_kwargs["level_directory"] = args.level_directory
        seeds = np.arange(EVAL_SEED_BASE, EVAL_SEED_BASE + args.eval_seeds)
        # The greedy policy, then the policy as it acted in training: a greedy policy can loop
        # where the sampled actions break out of the loop, so the two can differ by much.
        for prefix, policy in (("", agent.greedy), ("sampled_", SampledPolicy(agent, args.seed))):
            summary = gridsim.evaluate(policy, env, seeds, env_kwargs=env_kwargs or None).summary()
            out[prefix + "success_rate"] = summary["success"]["mean"]
            out[prefix + "mean_return"] = summary["return"]["mean"]
        out["eval_episodes"] = len(seeds)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
