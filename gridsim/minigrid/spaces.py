"""The mission space of a Minigrid id's observation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["MissionSpace"]


class MissionSpace(gym.spaces.Space[str]):
    """The missions of one id: a string space whose members are exactly ``missions``.

    Minigrid's own ``MissionSpace`` builds its strings from a function; an id's set is finite,
    so gridsim lists it. ``sample()`` draws one uniformly from the space's generator.
    """

    def __init__(self, missions: Sequence[str], seed: int | np.random.Generator | None = None):
        self.missions = tuple(missions)
        super().__init__(dtype=str, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """One of the missions."""
        return self.missions[int(self.np_random.integers(len(self.missions)))]

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is one of the missions."""
        return isinstance(x, str) and x in self.missions

    @property
    def is_np_flattenable(self) -> bool:
        """A mission is a string: it does not flatten into an array."""
        return False

    def __repr__(self) -> str:
        return f"MissionSpace({list(self.missions)!r})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, MissionSpace) and self.missions == other.missions
