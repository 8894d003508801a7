"""RLlib: each EnvRunner steps all of its envs in one gridsim kernel call.

Needs ``pip install "gridsim-vec[ray]"`` (Ray with RLlib; RLlib needs PyTorch: install the build you
want, a CPU-only one for example, before it).

RLlib's ``SingleAgentEnvRunner`` builds its envs with ``gym.make_vec(..., vectorization_mode=
config.gym_env_vectorize_mode)``. With ``"vector_entry_point"`` it calls the env's vector entry
point once, for all ``num_envs_per_env_runner`` envs, instead of wrapping single envs in a
``SyncVectorEnv``; for an env creator given as a callable, RLlib passes ``num_envs`` in the env
config. :func:`make_env` is that creator for gridsim (registered with ``ray.tune.register_env``),
and :func:`configure` sets both::

    from ray.rllib.algorithms.ppo import PPOConfig
    from gridsim.integrations.rllib import configure

    config = configure(PPOConfig(), "gridsim/Gridroboman-LiftRed-v0", num_envs_per_env_runner=32)
    config = config.env_runners(num_env_runners=2)
    algo = config.build_algo()

RLlib expects Gymnasium's default autoreset (NEXT_STEP: the step after an episode ends
returns the reset observation), which is gridsim's default too. See docs/distributed.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

import gridsim  # noqa: F401 - registers the gridsim ids in the EnvRunner's process

__all__ = ["configure", "make_env"]

# The env config key of the env's id or level name; the other keys are the env's keyword arguments.
ENV_KEY = "env"
# The name make_env is registered under with RLlib (ray.tune.register_env), for every gridsim env.
RLLIB_ENV_NAME = "gridsim"


def make_env(env_config: Mapping[str, Any]) -> gym.Env | gym.vector.VectorEnv:
    """RLlib's env creator for gridsim: a gridsim vector env of ``num_envs`` rows, or one env without it.

    Args:
        env_config: ``{"env": id or level name, "num_envs": n (added by RLlib's EnvRunner), **env
            kwargs}`` (RLlib's ``EnvContext``; its worker attributes are not used).

    Returns:
        ``gym.make_vec(id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)``, the
        gridsim vector env whose one kernel call steps all ``n`` envs; ``gym.make(id, **kwargs)``
        when ``num_envs`` is absent.

    Raises:
        KeyError: ``env_config`` has no ``"env"``.
    """
    kwargs = dict(env_config)
    if ENV_KEY not in kwargs:
        raise KeyError(f"the env config needs {ENV_KEY!r}: a gridsim id or level name (use configure())")
    env = kwargs.pop(ENV_KEY)
    num_envs = kwargs.pop("num_envs", None)
    if env not in gym.registry:  # a level name, as gridsim.make takes it
        env, kwargs = "gridsim/Level-v0", {"level": env, **kwargs}
    if num_envs is None:
        return gym.make(env, **kwargs)
    return gym.make_vec(env, num_envs=int(num_envs), vectorization_mode="vector_entry_point", **kwargs)


def configure(config, env: str, *, num_envs_per_env_runner: int = 32, env_kwargs: Mapping[str, Any] | None = None):
    """Point an RLlib ``AlgorithmConfig`` at a gridsim env, batched in one kernel per EnvRunner.

    Registers :func:`make_env` with RLlib as ``"gridsim"`` (``ray.tune.register_env``), then sets
    ``config.environment(env="gridsim", env_config={"env": env, **env_kwargs})`` and
    ``config.env_runners(num_envs_per_env_runner=..., gym_env_vectorize_mode="vector_entry_point")``.

    Args:
        config: an RLlib ``AlgorithmConfig`` (``PPOConfig()``, ...), changed in place.
        env: a gridsim id (``"gridsim/Gridroboman-LiftRed-v0"``) or level name (``"roboman:LiftRed"``).
        num_envs_per_env_runner: envs of each EnvRunner, all stepped by one kernel call.
        env_kwargs: the env's keyword arguments (``obs_type``, ``num_threads``, ...).

    Returns:
        ``config``, for chaining.
    """
    from ray.tune.registry import register_env

    register_env(RLLIB_ENV_NAME, make_env)
    env_config = {ENV_KEY: env, **dict(env_kwargs or {})}
    config.environment(env=RLLIB_ENV_NAME, env_config=env_config)
    config.env_runners(num_envs_per_env_runner=int(num_envs_per_env_runner),
                       gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT.value)
    return config
