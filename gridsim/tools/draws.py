"""Random draws keyed by each row's episode, not by the batch.

A stochastic policy that draws so plays the same episodes under :func:`gridsim.evaluate`
whatever ``num_envs`` (splitmix64 over each row's episode seed and step).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["episode_uniform"]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer on a uint64 array (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def episode_uniform(seed: int, infos: Mapping[str, Any], components: int) -> np.ndarray:
    """(B, components) floats in [0, 1), a hash of ``seed`` and each row's episode seed and step.

    ``infos["episode_seed"]`` and ``infos["episode_step"]`` are what :func:`gridsim.evaluate`
    passes to a policy: a policy that draws from these numbers acts the same on a row whatever
    the batch around it (:class:`gridsim.tools.policies.RandomPolicy`, and
    :class:`gridsim.tools.torch_agent.SampledPolicy`).
    """
    key = _mix(np.array([int(seed) % (1 << 64)], np.uint64) ^ _GOLDEN)[0]
    seeds = np.asarray(infos["episode_seed"], dtype=np.uint64)
    steps = np.asarray(infos["episode_step"]).astype(np.uint64)
    h = _mix(_mix(seeds ^ key) + steps * _GOLDEN)
    j = np.arange(1, components + 1, dtype=np.uint64) * _M2
    bits = _mix(h[:, None] + j[None, :]) >> np.uint64(11)
    return bits.astype(np.float64) * (1.0 / (1 << 53))
