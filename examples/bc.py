"""Behaviour cloning of the BabyAI bot on BabyAI-GoToLocal, in one file (torch on the CPU).

Usage::

    python examples/bc.py                          # 5,000 demonstrations, 20 epochs, 1,000 fresh seeds
    python examples/bc.py --episodes 10000 --out /tmp/bc
    python examples/bc.py --quick                  # a smoke test: a few episodes, one epoch, 20 seeds

1. The demonstrations: the batched BabyAI bot (:class:`gridsim.minigrid.bot.BabyAIBot`) plays
   ``--episodes`` episodes, seeded ``--demo-seed`` and up, written as a Minari dataset by
   :func:`gridsim.minigrid.demos.record_demos` with the observations ``image+tokens`` (the 7 x 7 x 3
   image, the direction and the mission as tokens) under ``--out``/datasets; a dataset already
   there is read again rather than recorded. ``minari`` loads it, and every step of every episode
   becomes one example: what the agent saw and the episode's last ``--history`` actions, and the
   bot's action.
2. The policy reads the mission: its tokens are embedded and read by a GRU, whose last state
   modulates (FiLM: a scale and a shift per channel) the features of each cell of the image
   (the sum of an embedding of its object, colour and state ids) through two 3 x 3
   convolutions; the cells' features, flattened, the direction's embedding, the mission's
   state and an embedding of each past action go through an MLP to the logits of the 7
   actions. GoToLocal is one 8 x 8 room, so what the agent sees is nearly enough; but where
   the target is out of sight the bot acts on what it saw before, and a policy of the image
   alone (``--history 0``) learns turns that undo each other: its greedy failures are loops to
   the time limit, most of them left, right, left, right. The last actions break those loops.
3. Training: cross-entropy on the bot's actions, Adam (AdamW with ``--weight-decay``, none by
   default), ``--epochs`` passes over the examples in minibatches, the learning rate decaying
   along a cosine to 0.
4. Evaluation: greedy (the most likely action) on a batch of ``--eval-seeds`` envs
   (``gridsim.make(env, num_envs=...)``) reset with seeds from 10^9 on, far from the
   demonstrations' seeds; each env's first episode counts, and it succeeds when it ends with a
   reward before its time limit.

The last line printed is JSON: ``{"env_id", "success_rate", "mean_return", "episodes",
"demo_steps", "epochs", "train_seconds", ...}``. The trained weights are saved to
``--out``/bc-<env>-seed<seed>.pt with the run's arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import gridsim
from gridsim.minigrid.demos import record_demos

# Evaluation seeds start here, far from any demonstration's seed (--demo-seed and up).
EVAL_SEED_BASE = 10**9
# The image's id counts per channel (object, colour, state), as the env declares them (obs_id_counts).
IMAGE_IDS = (11, 6, 3)
NUM_ACTIONS = 7
NO_ACTION = NUM_ACTIONS  # the past action before an episode's first step
PAST_WIDTH = 16  # the embedding of each past action
QUICK = {"episodes": 64, "epochs": 1, "eval_seeds": 20, "hidden": 32, "channels": 16}


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (see ``--help``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--env-id", default="BabyAI-GoToLocal-v0", help="a BabyAI id the bot plays")
    p.add_argument("--episodes", type=int, default=5000, help="demonstration episodes to record or reuse")
    p.add_argument("--demo-seed", type=int, default=0, help="the first demonstration's seed")
    p.add_argument("--epochs", type=int, default=20, help="passes over the demonstrations' steps")
    p.add_argument("--batch-size", type=int, default=256, help="examples per minibatch")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's initial step size (cosine to 0)")
    p.add_argument("--weight-decay", type=float, default=0.0, help="AdamW's decoupled weight decay")
    p.add_argument("--history", type=int, default=4, help="past actions the policy reads (0: none)")
    p.add_argument("--channels", type=int, default=32, help="features per image cell")
    p.add_argument("--hidden", type=int, default=128, help="units of the GRU and of the MLP's hidden layer")
    p.add_argument("--seed", type=int, default=1, help="torch's seed")
    p.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    p.add_argument("--eval-seeds", type=int, default=1000, help="envs of the greedy evaluation, one episode each")
    p.add_argument("--out", type=Path, default=Path("runs/bc"),
                   help="folder of the datasets (OUT/datasets, a Minari root) and the checkpoint")
    p.add_argument("--quick", action="store_true",
                   help="a smoke test: " + ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in QUICK.items()))
    return p


def parse_args(argv=None):
    """The command line; ``--quick`` sets its small values."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag in ("episodes", "epochs", "batch_size", "eval_seeds", "threads"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    if args.history < 0:
        parser.error(f"--history must be at least 0, got {args.history}")
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    args.env_id = args.env_id.removeprefix("gridsim/")
    return args


# ------------------------------------------------------------------ the demonstrations


def demonstrations(args):
    """The bot's episodes as a Minari dataset under ``OUT/datasets``: recorded, or the one already there."""
    import minari

    root = args.out / "datasets"
    dataset_id = f"gridsim/{args.env_id}/bot-{args.episodes}-seed{args.demo_seed}-v0"
    path = root / dataset_id / "data"
    if (path / "metadata.json").is_file():
        print(f"reusing {root / dataset_id}", flush=True)
    else:
        summary = record_demos(args.env_id, args.episodes, root, dataset_id=dataset_id, seed=args.demo_seed,
                               observations="image+tokens", progress=False)
        print(f"recorded {summary.episodes:,} episodes ({summary.steps:,} steps, {summary.failed} left out where "
              f"the bot failed, seeds {summary.seeds[0]}..{summary.seeds[1]}) in {summary.seconds:.1f} s to "
              f"{summary.path}", flush=True)
    return minari.MinariDataset(path)


def past_actions(actions: np.ndarray, history: int) -> np.ndarray:
    """(T, history): before each step of an episode, its last ``history`` actions, latest first.

    Before the episode's start they are ``NO_ACTION``.
    """
    padded = np.concatenate([np.full(history, NO_ACTION), actions])
    steps = len(actions)
    return np.array([padded[history - 1 - k:history - 1 - k + steps] for k in range(history)],
                    dtype=np.int64).reshape(history, steps).T


def to_tensors(dataset, history: int) -> dict[str, torch.Tensor]:
    """Every step of every episode: the observation and past actions before the action, and the bot's action."""
    images, directions, missions, actions, seeds, past = [], [], [], [], [], []
    for episode in dataset.iterate_episodes():
        obs = episode.observations
        images.append(obs["image"][:-1])  # the final observation has no action
        directions.append(obs["direction"][:-1])
        missions.append(obs["mission"][:-1])
        actions.append(episode.actions)
        past.append(past_actions(episode.actions, history))
        seeds.append(int(episode.infos["seed"][0]))
    mission = np.concatenate(missions)
    length = int((mission != 0).sum(1).max())  # the longest mission's tokens; the rest is padding
    return {
        "image": torch.as_tensor(np.concatenate(images), dtype=torch.long),
        "direction": torch.as_tensor(np.concatenate(directions), dtype=torch.long),
        "mission": torch.as_tensor(mission[:, :max(length, 1)], dtype=torch.long),
        "action": torch.as_tensor(np.concatenate(actions), dtype=torch.long),
        "past": torch.as_tensor(np.concatenate(past), dtype=torch.long),
        "seeds": torch.as_tensor([min(seeds), max(seeds)]),
    }


# ------------------------------------------------------------------ the policy


class Policy(nn.Module):
    """Image, direction and mission tokens to the logits of the 7 actions (no memory)."""

    def __init__(self, vocabulary: int, channels: int = 32, hidden: int = 128, history: int = 1):
        super().__init__()
        self.history = history
        self.cells = nn.ModuleList(nn.Embedding(n, channels) for n in IMAGE_IDS)
        self.words = nn.Embedding(vocabulary, hidden, padding_idx=0)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.convs = nn.ModuleList(nn.Conv2d(channels, channels, 3, padding=1) for _ in range(2))
        self.films = nn.ModuleList(nn.Linear(hidden, 2 * channels) for _ in range(2))
        self.direction = nn.Embedding(4, hidden)
        self.past = nn.Embedding(NUM_ACTIONS + 1, PAST_WIDTH)
        self.head = nn.Sequential(nn.Linear(channels * 49 + 2 * hidden + history * PAST_WIDTH, hidden), nn.ReLU(),
                                  nn.Linear(hidden, NUM_ACTIONS))

    def mission(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, L) tokens, padded with 0 after the words, to the GRU's state after the last word."""
        lengths = (tokens != 0).sum(1).clamp(min=1)
        packed = nn.utils.rnn.pack_padded_sequence(self.words(tokens), lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        return self.gru(packed)[1][0]

    def forward(self, image: torch.Tensor, direction: torch.Tensor, tokens: torch.Tensor,
                past: torch.Tensor) -> torch.Tensor:
        """(B, 7, 7, 3) image ids, (B,) directions, (B, L) tokens and (B, history) past actions to (B, 7) logits."""
        m = self.mission(tokens)
        x = sum(embed(image[..., c]) for c, embed in enumerate(self.cells))  # (B, 7, 7, C)
        x = x.permute(0, 3, 1, 2)
        for conv, film in zip(self.convs, self.films, strict=True):
            scale, shift = film(m)[:, :, None, None].chunk(2, dim=1)
            x = F.relu(conv(x) * (1 + scale) + shift)
        return self.head(torch.cat([x.flatten(1), self.direction(direction), m, self.past(past).flatten(1)], dim=1))


# ------------------------------------------------------------------ training and evaluation


def train(policy: Policy, data: dict[str, torch.Tensor], args) -> list[dict]:
    """Cross-entropy on the bot's actions; one line per epoch (loss and accuracy on the examples)."""
    optimizer = torch.optim.AdamW(policy.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    n = len(data["action"])
    batches = -(-n // args.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * batches)
    log = []
    for epoch in range(1, args.epochs + 1):
        perm = torch.randperm(n)
        total, correct = 0.0, 0
        for s in range(0, n, args.batch_size):
            idx = perm[s:s + args.batch_size]
            logits = policy(data["image"][idx], data["direction"][idx], data["mission"][idx], data["past"][idx])
            target = data["action"][idx]
            loss = F.cross_entropy(logits, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(idx)
            correct += int((logits.argmax(1) == target).sum())
        log.append({"epoch": epoch, "loss": total / n, "accuracy": correct / n})
        print(f"epoch {epoch:3d}  loss {total / n:.4f}  accuracy {correct / n:.4f}", flush=True)
    return log


@torch.no_grad()
def evaluate(policy: Policy, env_id: str, seeds: np.ndarray) -> dict[str, float]:
    """Greedy actions on a batch of ``len(seeds)`` envs; each env's first episode counts."""
    envs = gridsim.make(env_id, num_envs=len(seeds), mission_format="tokens")
    obs, _ = envs.reset(seed=int(seeds[0]))  # env i is seeded seeds[0] + i
    n = len(seeds)
    done = np.zeros(n, bool)
    success = np.zeros(n, bool)
    returns = np.zeros(n)
    past = torch.full((n, policy.history), NO_ACTION, dtype=torch.long)
    policy.eval()
    while not done.all():
        tokens = torch.as_tensor(obs["mission"], dtype=torch.long)
        tokens = tokens[:, :max(int((tokens != 0).sum(1).max()), 1)]
        logits = policy(torch.as_tensor(obs["image"], dtype=torch.long),
                        torch.as_tensor(obs["direction"], dtype=torch.long), tokens, past)
        actions = logits.argmax(1)
        past = torch.cat([actions[:, None], past[:, :-1]], dim=1)[:, :policy.history]
        obs, reward, terminated, truncated, _ = envs.step(actions.numpy())
        live = ~done
        returns[live] += reward[live]
        success[live] = terminated[live] & (reward[live] > 0)
        done |= terminated | truncated
    envs.close()
    return {"success_rate": float(success.mean()), "mean_return": float(returns.mean())}


def main(argv=None) -> int:
    """Record or reuse the demonstrations, train, save, evaluate, and print the JSON summary line last."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    torch.manual_seed(args.seed)
    data = to_tensors(demonstrations(args), args.history)
    first, last = data.pop("seeds").tolist()
    seeds = np.arange(EVAL_SEED_BASE, EVAL_SEED_BASE + args.eval_seeds)
    if first <= seeds[-1] and seeds[0] <= last:
        raise SystemExit(f"the demonstrations' seeds {first}..{last} reach the evaluation's, from {EVAL_SEED_BASE}")
    from gridsim.minigrid.babyai import VOCABULARY

    policy = Policy(len(VOCABULARY), args.channels, args.hidden, args.history)
    steps = len(data["action"])
    print(f"{args.env_id}: {args.episodes:,} demonstrations, {steps:,} steps; "
          f"{sum(p.numel() for p in policy.parameters()):,} parameters", flush=True)
    start = time.perf_counter()
    log = train(policy, data, args)
    seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    checkpoint = args.out / f"bc-{args.env_id}-seed{args.seed}.pt"
    # Written beside its name and renamed onto it: a run stopped midway leaves no half-written file.
    partial = checkpoint.with_name(checkpoint.name + ".partial")
    torch.save({"model": policy.state_dict(), "args": {k: str(v) if isinstance(v, Path) else v
                                                       for k, v in vars(args).items()}}, partial)
    os.replace(partial, checkpoint)
    out = {"env_id": f"gridsim/{args.env_id}", **evaluate(policy, args.env_id, seeds),
           "eval_episodes": len(seeds), "episodes": args.episodes, "demo_steps": steps, "epochs": args.epochs,
           "train_seconds": round(seconds, 1), "final_loss": round(log[-1]["loss"], 4),
           "final_accuracy": round(log[-1]["accuracy"], 4), "checkpoint": str(checkpoint)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
