"""The single-env view: a ``gymnasium.Env`` over a family's vector env with one row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from gridsim.engine.locking import synchronized
from gridsim.engine.settings import internal_arguments, refuse_private_arguments
from gridsim.engine.vector import GridVectorEnv, batch_action_masks
from gridsim.errors import ArgumentTypeError, InvalidActionError


class SingleEnvView(gym.Env):
    """A ``gymnasium.Env`` that drives row 0 of a one-row vector env of ``vector_class``.

    It returns copies (fresh arrays, Python scalars), does not reset by itself, and
    keeps stepping past the end of an episode. ``get_state`` / ``set_state`` take
    ``index=0``. It pickles and ``copy.deepcopy``-s as its vector env does (an independent
    env that continues bit-identically). :meth:`action_masks` gives the valid actions
    (True = valid) for maskable PPO; wrappers reach it with
    ``env.get_wrapper_attr("action_masks")``. Its calls hold the vector env's lock: calls
    from several threads run one at a time.
    """

    # Set by each family: its vector env class (LevelEnv: the level's env factory).
    vector_class: Callable[..., GridVectorEnv]
    metadata = {"render_modes": ["rgb_array", "ansi", "human"], "render_fps": 10}

    def __init__(self, render_mode: str | None = None, **kwargs: Any):
        for key in ("num_envs", "autoreset_mode", "copy"):
            if key in kwargs:
                raise ArgumentTypeError(f"{type(self).__name__} does not take {key}=; it is one env")
        refuse_private_arguments(kwargs, type(self).__name__)
        with internal_arguments():
            self._vec = self.vector_class(
                num_envs=1, render_mode=render_mode, episode_stats=False, _continue_past_end=True, **kwargs
            )
        self.render_mode = render_mode
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.metadata = dict(self._vec.metadata)
        self.metadata.pop("autoreset_mode", None)
        space = self._vec.action_space
        assert space.shape is not None and space.dtype is not None  # a batch of Discrete, MultiDiscrete or Box
        self._actions = np.zeros(space.shape, space.dtype)

    @property
    def _lock(self):
        """The vector env's lock (one lock for the view and the env it drives)."""
        return self._vec._lock

    @property
    def unwrapped_vector(self):
        """The one-row vector env underneath."""
        return self._vec

    @synchronized
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset; an int seed gives the same trajectory as row 0 of a vector env reset with it.

        The vector env checks the seed and options first: a refused reset seeds nothing.
        """
        obs, infos = self._vec.reset(seed=None if seed is None else [seed], options=options)
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        return self._vec.single_obs(obs), self._row_info(infos)

    @synchronized
    def step(self, action):
        """One step; the action must be in ``action_space``."""
        # A Python bool counts as an int (True = 1), as it does for the originals; numpy.bool_ does not.
        a = np.asarray(int(action) if isinstance(action, bool) else action)
        if isinstance(self.action_space, gym.spaces.Discrete):
            if a.shape != () or a.dtype.kind not in "iu":
                raise InvalidActionError(
                    f"action must be an integer scalar for {self.action_space}, got {action!r}"
                )
        else:
            if a.shape != self.action_space.shape:
                raise InvalidActionError(
                    f"action must have shape {self.action_space.shape}, got {a.shape}"
                )
            if isinstance(self.action_space, gym.spaces.MultiDiscrete) and a.dtype.kind not in "iu":
                # Assigning into the int64 buffer would truncate floats silently.
                raise InvalidActionError(f"action must have an integer dtype for {self.action_space}, got {a.dtype}")
        if a.dtype.kind == "u" and self._actions.dtype.kind == "i" and a.size and \
                a.max() > np.iinfo(self._actions.dtype).max:
            # The int64 buffer would wrap it to a negative action, which the kernel reports as another value.
            raise InvalidActionError(f"action {action!r} is out of range for {self.action_space}")
        self._actions[0] = a
        obs, reward, term, trunc, infos = self._vec.step(self._actions)
        if self.render_mode == "human":
            self.render()
        return self._vec.single_obs(obs), float(reward[0]), bool(term[0]), bool(trunc[0]), self._row_info(infos)

    @synchronized
    def action_masks(self) -> np.ndarray:
        """The valid actions of the current state as bool (n,), **True = valid**.

        Row 0 of the vector env's ``action_masks()`` where the family has one (gridroboman),
        else all True. ``n`` is ``Discrete(n)``'s n, or ``sum(nvec)`` for a ``MultiDiscrete``
        joint action (the components' masks side by side).
        """
        return batch_action_masks(self._vec)[0].copy()

    @staticmethod
    def _row_info(infos: dict) -> dict:
        """Row 0 of the vector env's per-step info arrays (e.g. an action mask)."""
        return {k: v[0].copy() for k, v in infos.items() if not k.startswith("_") and isinstance(v, np.ndarray)}

    @synchronized
    def render(self):
        """``rgb_array``: a uint8 (H, W, 3) frame; ``ansi``: a string; ``human``: a window."""
        frames = self._vec.render()
        return None if frames is None else frames[0]

    @synchronized
    def get_state(self, index: int = 0) -> dict[str, Any]:
        """The env's state dict (see the family's vector env)."""
        return self._vec.get_state(index)

    @synchronized
    def set_state(self, state, index: int = 0):
        """Inject a state dict; returns ``(obs, info)``."""
        obs, info = self._vec.set_state(state, index)
        return obs.copy(), info

    @synchronized
    def close(self):
        """Close the underlying vector env (idempotent)."""
        if not self._vec.closed:
            self._vec.close()
