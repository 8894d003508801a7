"""A PettingZoo ``ParallelEnv`` over one kitchen: ``gridsim.kitchen.parallel_env(...)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from gridsim.engine.locking import synchronized
from gridsim.engine.settings import internal_arguments, refuse_private_arguments
from gridsim.errors import InvalidActionError, KernelError

try:  # PettingZoo is optional: the class works as a duck-typed ParallelEnv without it
    from pettingzoo import ParallelEnv
except ImportError:  # pragma: no cover - depends on the environment
    ParallelEnv = object

__all__ = ["KitchenParallelEnv", "parallel_env"]


class KitchenParallelEnv(ParallelEnv):
    """One kitchen with agents ``agent-1`` … ``agent-A`` acting at once (PettingZoo's parallel API).

    Observations are each agent's (H, W, 23) uint8 grid (the joint grid plus a channel for
    the agent itself); actions ``Discrete(5)`` per agent (0 noop, 1 up, 2 down, 3 left,
    4 right; a missing agent's action is a noop); rewards are the team reward. When the
    kitchen is solved or times out every agent is removed; there is no autoreset.
    ``state()`` returns the joint (H, W, 22) grid. Its calls hold the kitchen's lock: calls from
    several threads run one at a time.

    Args:
        level: a kitchen level name such as ``"kitchen/open-divider_salad"``.
        num_agents: 1..4.
        max_episode_steps: the time limit (100, as the registered ids).
        render_mode: ``"rgb_array"``, ``"ansi"`` or None.
        **kwargs: passed to :class:`gridsim.KitchenVectorEnv` (``rules``, ``level_directory``, ...).
    """

    metadata = {"name": "gridsim_kitchen_v0", "render_modes": ["rgb_array", "ansi"], "is_parallelizable": True,
                "render_fps": 10}

    def __init__(self, level: str = "kitchen/open-divider_salad", num_agents: int = 2,
                 max_episode_steps: int = 100, render_mode: str | None = None, **kwargs: Any):
        from gridsim.kitchen.env import KitchenVectorEnv

        refuse_private_arguments(kwargs, type(self).__name__)
        with internal_arguments():
            self._vec = KitchenVectorEnv(num_envs=num_agents, level=level, num_agents=num_agents, agent_rows=True,
                                         max_episode_steps=max_episode_steps, render_mode=render_mode,
                                         episode_stats=False, _continue_past_end=True, **kwargs)
        self.render_mode = render_mode
        self.possible_agents = [f"agent-{a + 1}" for a in range(num_agents)]
        self.agents: list[str] = []
        # The same space objects on every call (PettingZoo's API test checks identity).
        obs_space = self._vec.single_observation_space
        assert isinstance(obs_space, gym.spaces.Box)  # a grid or a feature vector
        self._observation_spaces = {a: obs_space for a in self.possible_agents}
        self._action_spaces = {a: gym.spaces.Discrete(5) for a in self.possible_agents}
        self._actions = np.zeros(num_agents, np.int64)

    @property
    def _lock(self):
        """The kitchen vector env's lock."""
        return self._vec._lock

    def observation_space(self, agent: str) -> gym.spaces.Box:
        """The agent's observation space (one cached object per agent)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        """The agent's action space (one cached object per agent)."""
        return self._action_spaces[agent]

    @synchronized
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start an episode; returns per-agent observations and infos (kitchens take no options).

        The kitchen checks the seed first: a refused reset seeds nothing.
        """
        obs, _ = self._vec.reset(seed=None if seed is None else [seed] * len(self.possible_agents))
        if seed is not None:
            for a, space in enumerate(self._action_spaces.values()):
                space.seed(seed + a)
        self.agents = list(self.possible_agents)
        return {a: obs[i] for i, a in enumerate(self.possible_agents)}, {a: {} for a in self.agents}

    @synchronized
    def step(self, actions: dict[str, int]):
        """All live agents act at once; returns per-agent obs, rewards, terminations, truncations, infos."""
        if not self.agents:
            raise KernelError("the episode has ended: call reset()")
        if not isinstance(actions, Mapping):
            raise InvalidActionError(f"actions must be a dict of agent name to action, got {type(actions).__name__}")
        unknown = set(actions) - set(self.agents)
        if unknown:
            raise InvalidActionError(f"actions for agents that are not live: {sorted(unknown, key=repr)}")
        # Every action is checked before the kitchen steps, by the vector env's rules: an
        # integer scalar (no float, str, None or bool) in range.
        joint = np.array([self._checked_action(a, actions.get(a, 0)) for a in self.possible_agents], np.int64)
        self._actions[:] = joint
        obs, rewards, term, trunc, _ = self._vec.step(self._actions)
        live = self.agents
        out: tuple[dict[str, np.ndarray], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict]]
        out = ({a: obs[i] for i, a in enumerate(self.possible_agents) if a in live},
               {a: float(rewards[i]) for i, a in enumerate(self.possible_agents) if a in live},
               {a: bool(term[i]) for i, a in enumerate(self.possible_agents) if a in live},
               {a: bool(trunc[i]) for i, a in enumerate(self.possible_agents) if a in live},
               {a: {} for a in live})
        if term[0] or trunc[0]:
            self.agents = []
        return out

    def _checked_action(self, agent: str, action: Any) -> int:
        """``action`` of ``agent`` as an int: an integer scalar in ``0..n - 1`` of its Discrete(n).

        A bool, Python's or numpy's, is refused, as the vector env refuses an array of bools.
        """
        a = np.asarray(action)
        space = self._action_spaces[agent]
        if a.shape != () or a.dtype.kind not in "iu":
            raise InvalidActionError(f"the action of {agent!r} must be an integer scalar for {space}, "
                                     f"got {action!r:.80}; no agent acted")
        if not 0 <= int(a) < int(space.n):
            raise InvalidActionError(f"the action of {agent!r} is {int(a)}, out of range for {space}; no agent acted")
        return int(a)

    @synchronized
    def state(self) -> np.ndarray:
        """The joint (H, W, 22) grid of the kitchen."""
        obs = self._vec.state.obs[0]
        return obs[..., :-1].copy() if not self._vec.state.channels_first else obs[:-1].copy()

    @synchronized
    def render(self):
        """``rgb_array``: a uint8 frame; ``ansi``: text."""
        frames = self._vec.render()
        return None if frames is None else frames[0]

    @synchronized
    def close(self):
        """Release the kitchen."""
        if not self._vec.closed:
            self._vec.close()


def parallel_env(level: str = "kitchen/open-divider_salad", num_agents: int = 2, **kwargs: Any) -> KitchenParallelEnv:
    """A PettingZoo ParallelEnv over one kitchen (see :class:`KitchenParallelEnv`)."""
    return KitchenParallelEnv(level=level, num_agents=num_agents, **kwargs)
