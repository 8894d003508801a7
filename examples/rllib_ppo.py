"""RLlib's PPO on a gridsim env: each EnvRunner steps all of its envs in one kernel call.

Usage::

    python examples/rllib_ppo.py --env-id gridsim/Gridroboman-LiftRed-v0 --total-timesteps 150000
    python examples/rllib_ppo.py --env-id roboman:LiftRed --num-env-runners 2 --address auto   # on a cluster

``--env-id`` is examples/ppo.py's flag; ``--env``, its former name here, still works.

Needs ``pip install "gridsim-vec[ray]"`` (with a CPU build of PyTorch installed first). Without
``--address`` Ray starts on this machine. The envs are built by
:func:`gridsim.integrations.rllib.configure` (RLlib's ``gym_env_vectorize_mode=
"vector_entry_point"``: one gridsim vector env of ``--num-envs-per-runner`` envs per EnvRunner).
At the end the greedy policy (argmax of the RLModule's logits) and the sampled one (actions
drawn from its categorical, as in training) are evaluated with :func:`gridsim.evaluate` over
``--eval-seeds`` fresh seeds each, and the last line printed is JSON, with the keys of
examples/ppo.py's: ``{"env_id", "timesteps", "train_seconds", "iterations", "success_rate",
"mean_return", "sampled_success_rate", "sampled_mean_return", "eval_episodes"}``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import gridsim

# Evaluation seeds start here, far from the seeds RLlib's EnvRunners reset with.
EVAL_SEED_BASE = 10**9


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (see ``--help``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--env-id", "--env", dest="env", metavar="ID", default="gridsim/Gridroboman-LiftRed-v0",
                   help="a gridsim id or level name (--env: the former name of this flag)")
    p.add_argument("--env-kwargs", type=json.loads, default={}, help="JSON dict of env keyword arguments")
    p.add_argument("--address", default=None, help="a Ray cluster to join (auto, ray://host:10001); None: local")
    p.add_argument("--num-env-runners", type=int, default=2, help="Ray actors collecting rollouts")
    p.add_argument("--num-envs-per-runner", type=int, default=16, help="envs of each runner's gridsim vector env")
    p.add_argument("--num-steps", "--rollout-fragment-length", dest="num_steps", type=int, default=64,
                   help="steps per env per rollout, as in examples/ppo.py (RLlib's rollout_fragment_length)")
    p.add_argument("--total-timesteps", type=int, default=150_000, help="env steps to train for")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's learning rate")
    p.add_argument("--gamma", type=float, default=0.99, help="discount")
    p.add_argument("--gae-lambda", "--lambda", dest="gae_lambda", type=float, default=0.95,
                   help="GAE's lambda, as in examples/ppo.py (RLlib's lambda_)")
    p.add_argument("--num-minibatches", type=int, default=4, help="minibatches per epoch")
    p.add_argument("--update-epochs", type=int, default=4, help="epochs over each batch")
    p.add_argument("--clip-coef", type=float, default=0.2, help="PPO's clip range")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    p.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    p.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clipping")
    p.add_argument("--hidden", type=int, default=128, help="units of each of the two hidden layers")
    p.add_argument("--seed", type=int, default=1, help="RLlib's seed")
    p.add_argument("--eval-seeds", type=int, default=1000,
                   help="episodes of each final evaluation, greedy and sampled (0: none)")
    return p


def parse_args(argv=None):
    """The command line (see ``--help``)."""
    return build_parser().parse_args(argv)


def build_config(args):
    """The PPO config: examples/ppo.py's hyperparameters, gridsim's batched envs in each EnvRunner."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from gridsim.integrations.rllib import configure

    batch = args.num_env_runners * args.num_envs_per_runner * args.num_steps
    config = configure(PPOConfig(), args.env, num_envs_per_env_runner=args.num_envs_per_runner,
                       env_kwargs=args.env_kwargs)
    config = (
        config.env_runners(num_env_runners=args.num_env_runners,
                           rollout_fragment_length=args.num_steps, num_cpus_per_env_runner=1)
        .training(lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda, clip_param=args.clip_coef,
                  entropy_coeff=args.ent_coef, vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm,
                  num_epochs=args.update_epochs, train_batch_size_per_learner=batch,
                  minibatch_size=batch // args.num_minibatches)
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[args.hidden, args.hidden],
                                                   fcnet_activation="tanh", vf_share_layers=False))
        .debugging(seed=args.seed)
    )
    return config


def module_policy(module, sample_seed=None):
    """The RLModule's policy, as ``gridsim.evaluate`` calls one.

    The most likely action of each row, or (``sample_seed`` given) an action drawn from its
    categorical, as the EnvRunners act in training.
    """
    import torch

    generator = None if sample_seed is None else torch.Generator().manual_seed(sample_seed)

    def policy(obs):
        with torch.no_grad():
            out = module.forward_inference({"obs": torch.as_tensor(np.array(obs, dtype=np.float32))})
            logits = out["action_dist_inputs"]
            if generator is None:
                return logits.argmax(dim=-1).numpy()
            return torch.multinomial(logits.softmax(-1), 1, generator=generator)[:, 0].numpy()

    return policy


def main(argv=None) -> dict:
    """Train, evaluate, print the JSON summary line and return it."""
    args = parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import ray

    if not ray.is_initialized():
        ray.init(address=args.address, include_dashboard=False)
    algo = build_config(args).build_algo()
    start = time.perf_counter()
    timesteps = iterations = 0
    try:
        while timesteps < args.total_timesteps:
            result = algo.train()
            iterations += 1
            timesteps = int(result["num_env_steps_sampled_lifetime"])
            ret = result["env_runners"].get("episode_return_mean", float("nan"))
            print(f"iter {iterations:4d}  steps {timesteps:8d}  return {ret:7.3f}  "
                  f"{time.perf_counter() - start:7.1f} s", flush=True)
        train_seconds = time.perf_counter() - start
        summary = {"env_id": args.env, "timesteps": timesteps, "train_seconds": round(train_seconds, 1),
                   "iterations": iterations}
        if args.eval_seeds:
            module = algo.get_module()
            seeds = range(EVAL_SEED_BASE, EVAL_SEED_BASE + args.eval_seeds)
            for prefix, sample_seed in (("", None), ("sampled_", args.seed)):
                s = gridsim.evaluate(module_policy(module, sample_seed), args.env, seeds,
                                     env_kwargs=args.env_kwargs or None).summary()
                summary[prefix + "success_rate"] = round(s["success"]["mean"], 4)
                summary[prefix + "mean_return"] = round(s["return"]["mean"], 4)
            summary["eval_episodes"] = len(seeds)
    finally:
        algo.stop()
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
