"""The RLlib integration: gridsim's batched env inside each EnvRunner, and PPO training on it.

Skipped without Ray's RLlib or PyTorch (``pip install torch`` then ``pip install "gridsim-vec[ray]"``).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

from gridsim.engine.vector import GridVectorEnv  # noqa: E402
from gridsim.integrations.rllib import configure, make_env  # noqa: E402

LIFT_RED = "gridsim/Gridroboman-LiftRed-v0"


def test_make_env_builds_one_gridsim_vector_env():
    envs = make_env({"env": LIFT_RED, "num_envs": 6, "max_episode_steps": 20})
    assert isinstance(envs.unwrapped, GridVectorEnv) and envs.num_envs == 6
    assert envs.unwrapped.max_episode_steps == 20
    envs.close()
    single = make_env({"env": "roboman:LiftRed"})  # a level name, and no num_envs: one env
    obs, _ = single.reset(seed=0)
    assert obs.shape == single.observation_space.shape
    single.close()
    with pytest.raises(KeyError, match="env"):
        make_env({"num_envs": 2})


@pytest.mark.slow
def test_ppo_trains_with_two_env_runners_on_batched_envs(ray_cluster):
    from ray.rllib.algorithms.ppo import PPOConfig

    config = configure(PPOConfig(), LIFT_RED, num_envs_per_env_runner=8)
    config = config.env_runners(num_env_runners=2, rollout_fragment_length=32, num_cpus_per_env_runner=1).training(
        train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1)
    algo = config.build_algo()
    try:
        # Each remote EnvRunner holds one gridsim vector env of all its 8 envs (no SyncVectorEnv).
        kinds = algo.env_runner_group.foreach_env_runner(
            lambda runner: (type(runner.env.unwrapped).__name__, isinstance(runner.env.unwrapped, GridVectorEnv),
                            runner.env.unwrapped.num_envs),
            local_env_runner=False)
        assert len(kinds) == 2 and all(k[1] and k[2] == 8 for k in kinds), kinds
        steps = []
        for _ in range(3):
            result = algo.train()
            steps.append(int(result["num_env_steps_sampled_lifetime"]))
        assert steps[-1] >= 3 * 512 and np.all(np.diff(steps) > 0)
        assert np.isfinite(result["learners"]["default_policy"]["total_loss"])
    finally:
        algo.stop()


@pytest.mark.slow
def test_the_rllib_example_trains_and_evaluates_greedy_and_sampled(ray_cluster, capsys):
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"
    if not path.is_file():
        pytest.skip("examples/ is not next to the tests")
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    summary = example.main(["--env-id", LIFT_RED, "--num-envs-per-runner", "4", "--num-steps", "16",
                            "--total-timesteps", "128", "--eval-seeds", "12"])
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == summary  # the JSON line is the last
    assert summary["env_id"] == LIFT_RED and summary["eval_episodes"] == 12 and summary["timesteps"] >= 128
    for key in ("success_rate", "sampled_success_rate"):
        assert 0.0 <= summary[key] <= 1.0
