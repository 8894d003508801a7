"""Stable-Baselines3: :class:`SB3VecEnv` runs a gridsim vector env as an SB3 ``VecEnv``.

Needs ``pip install "gridsim-vec[sb3]"`` (Stable-Baselines3 and sb3-contrib, which bring
PyTorch: install the PyTorch build you want, a CPU-only one for example, before it).
"""

from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from gridsim.engine.vector import GridVectorEnv, batch_action_masks, parse_autoreset_mode

__all__ = ["SB3VecEnv"]

# The observation spaces whose values are arrays, as SB3's policies take them (also the parts of a Dict).
_ARRAY_SPACES = (gym.spaces.Box, gym.spaces.Discrete, gym.spaces.MultiDiscrete, gym.spaces.MultiBinary)

# Infos that are not per-row arrays of the current step: the terminal step's (read at episode
# ends), the episode statistics (turned into info["episode"]) and events (length E, not N).
_NOT_ROW_INFOS = frozenset({"final_obs", "final_info", "episode_stats", "events"})


class SB3VecEnv(VecEnv):
    """A gridsim vector env with Stable-Baselines3's ``VecEnv`` interface, stepped by one kernel call.

    SB3's algorithms (``PPO``, ``A2C``, ``DQN``, sb3-contrib's ``MaskablePPO``, ...) and its
    wrappers (``VecMonitor``, ``VecNormalize``, ``VecFrameStack``, ...) take it where they take
    a ``DummyVecEnv``, and see what a ``DummyVecEnv`` of ``Monitor``-wrapped single envs shows:

    * ``reset()`` returns the observations only; seeds from :meth:`seed` (env i gets
      ``seed + i``, as ``reset(seed=seed)`` of the gridsim env gives it) and options from
      ``set_options`` apply at the next ``reset()`` and are then forgotten. Without a seed,
      every env continues with its next episode.
    * ``step`` returns ``(obs, rewards, dones, infos)``: rewards float32 (as ``DummyVecEnv``'s,
      also for a family whose rewards are float64), ``dones = terminated | truncated``,
      and an env that is done has already been reset, in the same kernel call, so ``obs``
      holds its new episode's first observation. ``infos`` is a list of N dicts: the gridsim
      env's per-row step infos (gridroboman's ``"action_mask"``), ``"TimeLimit.truncated"``
      (truncated and not terminated), and on the rows that are done
      ``"terminal_observation"`` (the kernel's final observation), ``"episode"``
      (``{"r": return, "l": length, "t": seconds since construction}`` as SB3's ``Monitor``
      writes it, plus the family's extra statistics such as ``"success"``) and, for the
      families that record success, ``"is_success"``. Their step infos are those of the
      terminal step; the new episode's go to ``reset_infos[i]``.
    * :meth:`action_masks` gives bool (N, n), True = valid, for ``MaskablePPO``.

    The gridsim env must autoreset in the same step (``autoreset_mode="SameStep"``), so that
    the final observations come from the kernel: another mode raises ValueError, and
    :meth:`make` builds an env that way. With the gridsim env's default ``copy=True`` every
    step's observations are an array the kernel wrote in place, handed over without a copy;
    SB3 keeps the previous step's observations, so with ``copy=False`` (reused buffers) the
    observations and rewards are copied here. A ``Dict`` observation (for SB3's
    ``MultiInputPolicy``) is a dict of (N, ...) arrays; its parts must be arrays, so a part of
    strings (a MiniGrid mission; ``mission_format="index"`` makes it an index) is refused.

    Attributes and methods (``get_attr``, ``set_attr``, ``env_method``) are those of the gridsim
    env, shared by the batch: ``get_attr`` repeats the value for every index, ``set_attr``
    sets it for the batch (a value for only some envs raises ValueError unless it is already
    the value), and ``env_method`` calls a method that takes ``index=`` once per index, any
    other once for the whole batch. ``env_is_wrapped`` is False: there are no per-env
    Gymnasium wrappers. With ``render_mode="rgb_array"``, ``get_images()`` gives every env's
    frame and ``render()`` tiles them.

    Example:
        >>> import numpy as np
        >>> from gridsim.integrations.sb3 import SB3VecEnv
        >>> venv = SB3VecEnv.make("gridsim/Gridroboman-LiftRed-v0", num_envs=4)
        >>> venv.seed(0)
        [0, 1, 2, 3]
        >>> obs = venv.reset()
        >>> obs.shape, venv.action_masks().shape
        ((4, 11), (4, 7))
        >>> obs, rewards, dones, infos = venv.step(np.zeros(4, np.int64))
        >>> len(infos), sorted(infos[0])
        (4, ['TimeLimit.truncated', 'action_mask'])
        >>> venv.close()
    """

    def __init__(self, envs: gym.vector.VectorEnv):
        """Wrap ``envs``.

        Args:
            envs: a gridsim vector env (``gym.make_vec(id, num_envs=N, autoreset_mode="SameStep")``,
                ``gridsim.make(level, N, autoreset_mode="SameStep")``), or a Gymnasium vector
                wrapper around one: the wrapper is what gets stepped and reset; attributes,
                methods, masks and frames come from the gridsim env underneath.

        Raises:
            TypeError: ``envs`` is not a gridsim vector env.
            ValueError: it does not autoreset in the same step, or its observations are not arrays.
        """
        grid = getattr(envs, "unwrapped", envs)
        if not isinstance(grid, GridVectorEnv):
            raise TypeError(f"SB3VecEnv wraps a gridsim vector env, got {type(grid).__name__}")
        mode = envs.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        if parse_autoreset_mode(mode) is not AutoresetMode.SAME_STEP:
            raise ValueError(
                f"SB3VecEnv needs a gridsim env that autoresets in the same step (SB3's semantics), got "
                f"autoreset_mode={parse_autoreset_mode(mode).value!r}: build it with autoreset_mode='SameStep', "
                f"e.g. gym.make_vec(env_id, num_envs=N, autoreset_mode='SameStep') or SB3VecEnv.make(env_id, N)"
            )
        _check_array_observations(envs.single_observation_space)
        self.envs = envs
        self._grid = grid
        self._actions: np.ndarray | None = None
        # SB3 keeps the previous observations: reused buffers (copy=False) are copied here.
        self._fresh_outputs = bool(grid.copy)
        # Without the kernel's episode statistics the returns and lengths are summed here.
        self._own_stats = not grid.episode_stats
        self._episode_return = np.zeros(grid.num_envs, np.float64)
        self._episode_length = np.zeros(grid.num_envs, np.int64)
        self._t_start = time.time()
        super().__init__(grid.num_envs, envs.single_observation_space, envs.single_action_space)

    @classmethod
    def make(cls, env_id: str, num_envs: int, **kwargs: Any) -> SB3VecEnv:
        """The registered id's gridsim vector env of ``num_envs`` envs, autoresetting in the same step, wrapped.

        Args:
            env_id: a gridsim id, such as ``"gridsim/Gridroboman-LiftRed-v0"``.
            num_envs: the batch size.
            **kwargs: the family's constructor arguments (``num_threads``, ``obs_dtype``, ...).
        """
        mode = parse_autoreset_mode(kwargs.pop("autoreset_mode", AutoresetMode.SAME_STEP))
        if mode is not AutoresetMode.SAME_STEP:
            raise ValueError(f"SB3VecEnv needs autoreset_mode='SameStep', got {mode.value!r}")
        envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                            autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        return cls(envs)

    # ------------------------------------------------------------- reset / step

    def reset(self) -> VecEnvObs:
        """Reset every env with the pending seeds and options; returns the observations."""
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        groups = _group_options(self._options)
        if len(groups) == 1:
            obs, infos = self.envs.reset(seed=seeds, options=dict(groups[0][0]) or None)  # type: ignore[arg-type]  # a list: gridsim's reset takes one seed per env
            self.reset_infos = self._row_infos(infos)
        else:  # one call per distinct options dict, on its rows
            for options, rows in groups:
                obs, infos = self.envs.reset(seed=seeds, options={**options, "reset_mask": rows})  # type: ignore[arg-type]  # a list: gridsim's reset takes one seed per env
                row_infos = self._row_infos(infos)
                for i in np.flatnonzero(rows).tolist():
                    self.reset_infos[i] = row_infos[i]
            # The last call's observations hold every row: rows outside its mask keep theirs.
        self._reset_seeds()
        self._reset_options()
        self._episode_return[:] = 0
        self._episode_length[:] = 0
        return obs if self._fresh_outputs else _copy_obs(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions for :meth:`step_wait` (one per env; (N, A) for a joint MultiDiscrete)."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env with the kept actions, in one kernel call; returns ``(obs, rewards, dones, infos)``."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(): no actions to step with")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.envs.step(actions)
        if self._own_stats:
            self._episode_return += rewards
            self._episode_length += 1
        if not self._fresh_outputs:
            obs = _copy_obs(obs)
        # float32 as DummyVecEnv's reward buffer (a family's float64 rewards are cast; copied from a reused buffer).
        rewards = rewards.astype(np.float32, copy=not self._fresh_outputs)
        dones = terminated | truncated
        row_infos = self._row_infos(infos)
        ended = np.flatnonzero(dones)
        if len(ended):
            final_obs = infos["final_obs"]
            final_info = infos["final_info"]
            terminal_infos = self._row_infos(final_info)
            stats = final_info.get("episode_stats")
            now = round(time.time() - self._t_start, 6)
            for i in ended.tolist():
                self.reset_infos[i] = row_infos[i]  # the new episode's first state
                info = terminal_infos[i]
                info["terminal_observation"] = final_obs[i]
                info["episode"] = episode = self._episode(i, stats, now)
                if "success" in episode:
                    info["is_success"] = bool(episode["success"])
                row_infos[i] = info
        for info, time_limit in zip(row_infos, (truncated & ~terminated).tolist(), strict=True):
            info["TimeLimit.truncated"] = time_limit
        return obs, rewards, dones, row_infos

    def _episode(self, i: int, stats: Mapping[str, np.ndarray] | None, now: float) -> dict[str, Any]:
        """Row ``i``'s ended episode as SB3's ``Monitor`` reports it, with the family's extra statistics."""
        if stats is None:
            episode = {"r": round(float(self._episode_return[i]), 6), "l": int(self._episode_length[i]), "t": now}
            self._episode_return[i] = 0
            self._episode_length[i] = 0
            return episode
        episode = {"r": round(float(stats["return"][i]), 6), "l": int(stats["length"][i]), "t": now}
        for name, values in stats.items():
            if not name.startswith("_") and name not in ("return", "length"):
                episode[name] = values[i].item()
        return episode

    def _row_infos(self, infos: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Gymnasium per-row info arrays as SB3's list of N dicts (a row a ``_key`` mask leaves out lacks it)."""
        n = self.num_envs
        rows: list[dict[str, Any]] = [{} for _ in range(n)]
        for key, values in infos.items():
            if key.startswith("_") or key in _NOT_ROW_INFOS or not isinstance(values, np.ndarray) \
                    or values.shape[:1] != (n,):
                continue
            mask = infos.get("_" + key)
            if mask is None or mask.all():
                for row, value in zip(rows, values, strict=True):
                    row[key] = value
            else:
                for i in np.flatnonzero(mask).tolist():
                    rows[i][key] = values[i]
        return rows

    def close(self) -> None:
        """Close the gridsim env."""
        self.envs.close()

    # ---------------------------------------------------------------- masks

    def action_masks(self) -> np.ndarray:
        """Every env's valid actions as bool (N, n), **True = valid** (sb3-contrib's ``MaskablePPO`` reads them).

        gridroboman's from its ``action_masks()``; all True for the families whose every
        action is legal. A joint ``MultiDiscrete`` action's mask is its agents' masks side by
        side (``n = sum(nvec)``).
        """
        return batch_action_masks(self._grid)

    # ------------------------------------------------------ attributes / methods

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The gridsim env's attribute, once per index (the batch shares it)."""
        count = len(self._indices(indices))
        if attr_name == "action_masks":  # every family has masks here, so MaskablePPO finds them
            return [self.action_masks] * count
        return [getattr(self._grid, attr_name)] * count

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the gridsim env's attribute for the batch; ``indices`` must select every env unless nothing changes."""
        rows = self._indices(indices)
        if sorted(set(rows)) != list(range(self.num_envs)):
            current = getattr(self._grid, attr_name, _MISSING)
            if current is not _MISSING and _same(current, value):
                return
            raise ValueError(f"{attr_name} is shared by the batch of {self.num_envs} envs: set it for every env "
                             f"(indices=None), not for {rows}")
        setattr(self._grid, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Call a gridsim env method: once per index with ``index=i`` if it takes ``index``, else once for the batch."""
        rows = self._indices(indices)
        if method_name == "action_masks":  # one batched call, split into rows
            masks = self.action_masks()
            return [masks[i] for i in rows]
        method = getattr(self._grid, method_name)
        if _takes_index(method):
            return [method(*method_args, index=i, **method_kwargs) for i in rows]
        result = method(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """False for every index: the envs are rows of one batch, with no Gymnasium wrappers of their own."""
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        rows = [int(i) for i in self._get_indices(indices)]
        for i in rows:
            if not -self.num_envs <= i < self.num_envs:
                raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        return [i % self.num_envs for i in rows]

    # ----------------------------------------------------------------- render

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Every env's uint8 (H, W, 3) frame (``render_mode="rgb_array"``; otherwise a warning and Nones)."""
        if self.render_mode != "rgb_array":
            warnings.warn(f"the render mode is {self.render_mode!r}; get_images() needs 'rgb_array'", stacklevel=2)
            return [None] * self.num_envs
        return [self._grid.render_frame(i) for i in range(self.num_envs)]


_MISSING = object()


def _check_array_observations(space: gym.Space):
    """An observation space SB3 takes: one of arrays, or a Dict whose parts are (ValueError otherwise)."""
    parts = space.spaces if isinstance(space, gym.spaces.Dict) else {"": space}
    for key, part in parts.items():
        if not isinstance(part, _ARRAY_SPACES):
            where = f"observation part {key!r}" if key else "the observation"
            raise ValueError(f"SB3 takes observations of arrays; {where} is {part}: make the env with array "
                             "observations (a MiniGrid env: mission_format='index' or obs_type='image')")


def _copy_obs(obs):
    """A copy of an observation batch SB3 may keep (a dict: of each array)."""
    if isinstance(obs, Mapping):
        return {k: np.array(v, copy=True) for k, v in obs.items()}
    return obs.copy()


def _takes_index(method) -> bool:
    try:
        return "index" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


def _same(a: Any, b: Any) -> bool:
    """Equality that also compares numpy arrays (inside dicts too) element-wise."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return bool(np.array_equal(a, b))
    except (TypeError, ValueError):
        return a is b


def _group_options(options: Sequence[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], np.ndarray]]:
    """The distinct options dicts, each with the bool mask of the envs that have it (first seen first)."""
    groups: list[tuple[Mapping[str, Any], np.ndarray]] = []
    for i, opts in enumerate(options):
        for known, rows in groups:
            if _same(known, opts):
                rows[i] = True
                break
        else:
            rows = np.zeros(len(options), np.bool_)
            rows[i] = True
            groups.append((opts, rows))
    return groups
