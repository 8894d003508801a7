"""Batched evaluation: one episode per seed, many episodes at once (:func:`gridsim.evaluate`).

A policy is run on a batch of ``num_envs`` rows. Every row plays the episode that
``reset(seed=s)`` starts for its seed ``s``; rows whose episode ended are given the next
seeds with ``reset(seed=[...], options={"reset_mask": ...})``, so each result is the episode
a single env replays with ``gym.make(id)`` and ``reset(seed=s)``, whatever the batch size,
the order of the seeds or the thread count. Statistics are read from the kernel's
per-row episode statistics (``state.stat_return`` etc.) on the step an episode ends.
"""

from __future__ import annotations

import numbers
import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import ArgumentTypeError, InvalidActionError, InvalidArgumentError, PolicyError
from gridsim.registry import LEVEL_ID, id_step_limit
from gridsim.tools.env_names import env_entry
from gridsim.tools.policies import _PolicyCaller, policy_name
from gridsim.tools.results import EvalResult

__all__ = ["evaluate", "has_step_limit", "sweep_items"]

# The default batch: enough rows for every seed, up to this many.
DEFAULT_MAX_ENVS = 1024

# Keyword arguments evaluate sets itself on the envs it makes.
_OWN_KWARGS = ("num_envs", "num_threads", "autoreset_mode", "copy")


def sweep_items(policies, envs) -> tuple[list[tuple[str, Any]], list[str | os.PathLike]]:
    """A sweep's ``(name, policy)`` pairs and envs.

    Args:
        policies: a mapping name -> policy, or a sequence of policies (named by :func:`policy_name`).
        envs: an id, level name or level file (a ``pathlib.Path``), or a sequence of them.

    Raises:
        gridsim.InvalidArgumentError: no policies or no envs, or two policies of the same name.
    """
    named = list(policies.items()) if isinstance(policies, Mapping) else [(policy_name(p), p) for p in policies]
    env_list = [envs] if isinstance(envs, (str, os.PathLike)) else list(envs)
    if not named or not env_list:
        raise InvalidArgumentError("a sweep needs at least one policy and one env")
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"policies must have distinct names, got {names}: pass a mapping name -> "
                                   "policy")
    return named, env_list


# --------------------------------------------------------------------------- envs


def _seed_list(seeds) -> list[int]:
    """The seeds as Python ints; ArgumentTypeError for non-integers, InvalidArgumentError for none or negative ones."""
    if isinstance(seeds, (numbers.Integral, str, bytes)):
        raise ArgumentTypeError(f"seeds must be a sequence of ints (one episode each), e.g. range(100); "
                                f"got {seeds!r}")
    if isinstance(seeds, np.ndarray) and seeds.ndim == 1 and seeds.dtype.kind in "iu":
        items = seeds.tolist()
    elif isinstance(seeds, Iterable):
        items = list(seeds)
    else:
        raise ArgumentTypeError(f"seeds must be a sequence of ints, got {type(seeds).__name__}")
    if not items:
        raise InvalidArgumentError("seeds is empty: evaluate runs one episode per seed, so give at least one")
    if not all(type(s) is int for s in items):  # the slow check only for other types
        for i, s in enumerate(items):
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral):
                raise ArgumentTypeError(f"seeds[{i}] must be an int, got {s!r}")
        items = [int(s) for s in items]
    if min(items) < 0:
        i = items.index(min(items))
        raise InvalidArgumentError(f"seeds[{i}] = {items[i]} is negative; seeds are non-negative integers")
    return items


def _open_env(env, n_seeds: int, num_envs, num_threads, env_kwargs):
    """The vector env to run, whether evaluate owns it (and closes it), and its name."""
    if isinstance(env, (str, os.PathLike)):
        kwargs = dict(env_kwargs or {})
        clash = sorted(set(kwargs) & set(_OWN_KWARGS))
        if clash:
            raise InvalidArgumentError(f"env_kwargs must not set {clash}: evaluate sets them (num_envs and "
                                       "num_threads are its own arguments)")
        if num_envs is None:
            num_envs = min(n_seeds, DEFAULT_MAX_ENVS)
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise InvalidArgumentError(f"num_envs must be a positive integer or None, got {num_envs!r}")
        # Statistics are read from the state when an episode ends; the info copies are not needed.
        kwargs = {"episode_stats": False, **kwargs, "autoreset_mode": "NextStep", "copy": False,
                  "num_threads": num_threads}
        env_id, extra = env_entry(env)
        envs = gym.make_vec(env_id, num_envs=int(num_envs), vectorization_mode="vector_entry_point", **extra, **kwargs)
        # A built-in level by name without a step limit of its own plays its id's episodes (a level
        # directory may hold another level of that name, which the id says nothing of).
        limit = None
        if isinstance(env, str) and env_id == LEVEL_ID and not has_step_limit(envs) \
                and not {"max_episode_steps", "level_directory"} & kwargs.keys():
            limit = id_step_limit(env)
        if limit is not None:
            envs.close()
            envs = gym.make_vec(env_id, num_envs=int(num_envs), vectorization_mode="vector_entry_point", **extra,
                                **kwargs, max_episode_steps=limit)
        return envs, True, os.fspath(env)
    if num_envs is not None or num_threads != 1 or env_kwargs:
        raise InvalidArgumentError("evaluate runs an env passed in as it is: num_envs, num_threads and env_kwargs "
                                   "apply only to an env it makes from an id or a level name")
    unwrapped = getattr(env, "unwrapped", None)
    if not isinstance(unwrapped, GridVectorEnv):
        raise ArgumentTypeError(f"env must be a gridsim id, a level name or a gridsim vector env, got {env!r} "
                                "(for one env, pass its id: evaluate makes the batch)")
    spec = getattr(unwrapped, "spec", None)
    return env, False, getattr(spec, "id", None) or type(unwrapped).__name__


def has_step_limit(envs) -> bool:
    """Whether the episodes of a gridsim vector env (or a wrapper of one) end at a step limit.

    The env's own, or each episode's where the env sets one per episode (``own_episode_limits``:
    a BabyAI level's, from its instructions).
    """
    base = envs.unwrapped
    return int(getattr(base.kernel, "max_steps", 1)) != 0 or bool(getattr(base, "own_episode_limits", False))


def _progress_bar(enabled: bool, total: int, desc: str):
    """A tqdm bar counting episodes, or None (disabled, or tqdm not installed)."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="episode")


def _merge_infos(step_infos: dict, reset_infos: dict, rows: np.ndarray) -> dict:
    """The step's infos with the reset rows' entries replaced by the reset's (their new episodes)."""
    out = dict(step_infos)
    for key, value in reset_infos.items():
        if key.startswith("_"):
            continue
        old = out.get(key)
        if isinstance(value, np.ndarray) and isinstance(old, np.ndarray) and old.shape == value.shape:
            merged = old.copy()
            merged[rows] = value[rows]
            out[key] = merged
        else:
            out[key] = value
            if "_" + key in reset_infos:
                out["_" + key] = reset_infos["_" + key]
    return out


def _seed_argument(row_seeds: np.ndarray):
    """``reset``'s seed argument for per-row seeds: the uint64 array, or a list past 64 bits."""
    return row_seeds if row_seeds.dtype == np.uint64 else row_seeds.tolist()


def _read_only(obs):
    """A read-only view of an observation batch (the env's own buffer: a policy must not write it).

    A dict observation (MiniGrid's) becomes a new dict of read-only views of its arrays.
    """
    if isinstance(obs, np.ndarray):
        obs = obs.view()
        obs.flags.writeable = False
    elif isinstance(obs, dict):
        obs = {k: _read_only(v) for k, v in obs.items()}
    return obs


# --------------------------------------------------------------------------- evaluate


def evaluate(policy, env, seeds, *, num_envs: int | None = None, num_threads: int | str = 1,
             env_kwargs: Mapping[str, Any] | None = None, progress: bool = False) -> EvalResult:
    """Run exactly one episode per seed, many at once, and return every episode's statistics.

    Each episode is the one ``reset(seed=s)`` starts in a single env, so any result replays
    alone with ``gym.make(id)`` and ``env.reset(seed=s)``. The rows of the batch take the seeds
    in turn: when a row's episode ends (terminated or truncated) it is reset with the next seed
    in ``seeds``; rows with no seed left keep stepping until the last episode ends and are not
    counted. Seeds may come in any order and repeat. The results depend only on the seeds and
    the policy, never on ``num_envs`` or ``num_threads``, as long as the policy computes each
    row's action from that row alone.

    Args:
        policy: the actions of a batch of observations. A callable ``policy(obs)``; or
            ``policy(obs, infos)`` when it has a parameter named ``infos`` or a second positional
            parameter without a default: ``infos`` are the env's infos for the current
            observations (e.g. gridroboman's ``action_mask``, 1 = masked out) plus
            ``episode_seed`` (uint64 (N,), each row's seed modulo 2**64) and ``episode_step``
            (int64 (N,), steps taken in the row's episode). ``obs`` is a read-only view valid
            during the call: copy it to keep it. A ``torch.nn.Module`` is called under
            ``torch.no_grad()`` on ``torch.as_tensor(obs)`` (moved to its parameters' device,
            and cast to their dtype when the observations are integers; a dict observation
            becomes a dict of such tensors, its strings left as they are); float output of shape
            ``(N, n)`` for a ``Discrete`` space is argmaxed, ``(N, sum(nvec))`` for a
            ``MultiDiscrete`` space is split by ``nvec`` and each part argmaxed, anything else is
            taken as the actions; a tuple output's first item is used. ``"random"`` is a
            :class:`RandomPolicy`.
        env: a registered id (``"gridsim/PixelWorld-room1_small-v0"``), a level name as :func:`gridsim.make`
            takes it (``"nav/four_rooms"``, ``"roboman:LiftRed"``, a level file as a ``pathlib.Path``),
            or a gridsim vector env, which is reset with the seeds and left open. A built-in level by
            name without a step limit of its own (and without ``level_directory`` in ``env_kwargs``)
            gets its registered id's: ``"kitchen/open-divider_salad"`` plays the episodes of
            ``gridsim/Kitchen-open-divider_salad-v0``, 100 steps at most.
        seeds: the episodes' seeds, non-negative ints (a range, a list, a numpy array).
        num_envs: rows of the batch (the env's ``num_envs``: with a kitchen's
            ``agent_rows=True``, kitchens times agents). Default: one per seed, at most 1024.
        num_threads: the kernel's threads (a positive int or ``"auto"``).
        env_kwargs: keyword arguments of the env (``gym.make_vec`` / :func:`gridsim.make`);
            evaluate sets ``autoreset_mode``, ``copy``, ``num_envs`` and ``num_threads`` itself.
        progress: show a tqdm progress bar of finished episodes (when tqdm is installed).

    Returns:
        An :class:`EvalResult` with one entry per seed, in the order of ``seeds``.

    Raises:
        gridsim.InvalidArgumentError: ``seeds`` is empty or holds a negative seed; ``num_envs`` is not
            a positive integer; ``num_envs``, ``num_threads`` or ``env_kwargs`` given with an env
            passed in; ``env_kwargs`` sets what evaluate sets; the env's episodes have no step
            limit (and no id gives the level one). It is a ``ValueError``.
        gridsim.ArgumentTypeError: ``seeds`` is not a sequence of ints; ``env`` or ``policy`` is
            not something evaluate can run (an id of another library, say). It is a ``TypeError``.
        gridsim.LevelNotFoundError: ``env`` is neither a registered id nor a level name (the
            message suggests the closest ones).
        gridsim.PolicyError: the policy returned actions of the wrong shape or dtype, or out of
            the action space; the message names the policy.

    Example:
        >>> import gridsim
        >>> result = gridsim.evaluate("random", "gridsim/PixelWorld-room1_small-v0", range(100), num_envs=16)
        >>> len(result), result["seed"][:3].tolist()
        (100, [0, 1, 2])
        >>> sorted(result.summary())
        ['episodes', 'length', 'return', 'success']
    """
    seed_list = _seed_list(seeds)
    caller = _PolicyCaller(policy)
    envs, owned, env_name = _open_env(env, len(seed_list), num_envs, num_threads, env_kwargs)
    try:
        return _run(caller, envs, env_name, seed_list, progress)
    finally:
        if owned:
            envs.close()


def _run(caller: _PolicyCaller, envs, env_name: str, seed_list: list[int], progress: bool) -> EvalResult:
    base = envs.unwrapped
    caller.bind(base)
    if not has_step_limit(base):
        raise InvalidArgumentError(f"{env_name}: its episodes have no step limit, so an evaluation could run "
                                   "forever; give one: env_kwargs={'max_episode_steps': 100} "
                                   "(gridsim eval: --max-episode-steps 100)")
    N = base.num_envs
    units = np.asarray(base.row_units)
    U = int(units[-1]) + 1  # worlds: a kitchen of the agent-rows view spans R rows
    R = N // U
    if not np.array_equal(units, np.repeat(np.arange(U), R)):
        raise NotImplementedError(f"{type(base).__name__}: rows of one world must be consecutive")
    # Ended worlds must be reset before the next step in DISABLED mode. Otherwise they play on
    # (their own next episode, not counted) until a refill resets several at once: a reset call
    # costs about as much as a step, so refills wait until U / 16 worlds are idle.
    disabled = base.autoreset_mode is AutoresetMode.DISABLED
    threshold = 1 if disabled else max(1, U // 16)
    n = len(seed_list)
    wide = max(seed_list) >= 1 << 64
    seed_values = np.array(seed_list, dtype=object if wide else np.uint64)
    first = np.arange(U) * R  # each world's first row: its flags and statistics
    st = base.state
    success = getattr(st, base.stat_extras["success"]) if "success" in base.stat_extras else None
    extra_arrays = {k: getattr(st, a) for k, a in base.stat_extras.items() if k != "success"}

    # One slot per seed, and slot n where the episodes of idle worlds are written and dropped
    # (cheaper than filtering them out on every step).
    returns = np.zeros(n + 1, np.float64)
    lengths = np.zeros(n + 1, np.int64)
    successes = np.zeros(n + 1, np.bool_)
    extras = {k: np.zeros(n + 1, a.dtype) for k, a in extra_arrays.items()}

    # World u plays seed number job[u]; n: idle (its episode is not counted; it replays a seed).
    take = min(U, n)
    job = np.full(U, n, np.int64)
    job[:take] = np.arange(take)
    n_idle = U - take
    unit_seeds = seed_values[np.minimum(np.arange(U), n - 1)]
    row_seeds = np.repeat(unit_seeds, R)
    next_job, finished, batch_steps = take, 0, 0
    wants_infos = caller.wants_infos
    ep_start = np.zeros(U, np.int64)  # the batch step at which each world's episode began
    episode_seed = last_obs = view = None
    bar = _progress_bar(progress, n, env_name)
    try:
        start = time.perf_counter()
        obs, infos = envs.reset(seed=_seed_argument(row_seeds))
        while finished < n:
            if wants_infos:
                if episode_seed is None:
                    episode_seed = _read_only(row_seeds if not wide else np.array(
                        [s % (1 << 64) for s in row_seeds.tolist()], np.uint64))
                steps = batch_steps - ep_start
                infos = {**infos, "episode_seed": episode_seed,
                         "episode_step": np.repeat(steps, R) if R > 1 else steps}
            if obs is not last_obs:  # copy=False returns the same buffer on every call
                last_obs, view = obs, _read_only(obs)
            actions = caller(view, infos)
            try:
                obs, rewards, terminations, truncations, infos = envs.step(actions)
            except InvalidActionError as e:
                raise PolicyError(f"policy {caller.name} returned invalid actions for {env_name}: {e}") from e
            batch_steps += 1
            # The kernel's stat_mask: the rows whose episode ended on this call.
            ended = (st.stat_mask[first] if R > 1 else st.stat_mask).nonzero()[0]
            if len(ended):
                jobs = job[ended]
                counted = int(np.count_nonzero(jobs != n))
                if counted:
                    rows = first[ended] if R > 1 else ended
                    returns[jobs] = st.stat_return[rows]
                    lengths[jobs] = st.stat_length[rows]
                    successes[jobs] = terminations[rows] if success is None else success[rows]
                    for k, a in extra_arrays.items():
                        extras[k][jobs] = a[rows]
                    job[ended] = n
                    n_idle += counted
                    finished += counted
                    if bar is not None:
                        bar.update(counted)
                    if finished >= n:
                        break
            refill = next_job < n and n_idle >= threshold
            if not refill and not (disabled and len(ended)):
                continue
            mask = np.zeros(U, np.bool_)
            if disabled:
                mask[ended] = True  # every world that ended, refilled or not
            if refill:
                # The next seeds go to idle worlds, in order; the others replay their last seed.
                idle = (job == n).nonzero()[0]
                fresh = idle[:n - next_job]
                job[fresh] = np.arange(next_job, next_job + len(fresh))
                unit_seeds[fresh] = seed_values[next_job:next_job + len(fresh)]
                next_job += len(fresh)
                n_idle -= len(fresh)
                mask[fresh] = True
                row_seeds = np.repeat(unit_seeds, R) if R > 1 else unit_seeds.copy()
                episode_seed = None
            ep_start[mask] = batch_steps
            if R > 1:
                mask = np.repeat(mask, R)
            step_infos = infos
            obs, reset_infos = envs.reset(seed=_seed_argument(row_seeds), options={"reset_mask": mask})
            if wants_infos:
                infos = _merge_infos(step_infos, reset_infos, mask)
        seconds = time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()
    seed_out = np.array(seed_list, dtype=np.int64 if max(seed_list) < 1 << 63 else object)
    extras = {k: v[:n] for k, v in extras.items()}
    return EvalResult(seeds=seed_out, returns=returns[:n], lengths=lengths[:n], successes=successes[:n], extras=extras,
                      env=env_name, policy=caller.name, num_envs=N, batch_steps=batch_steps, seconds=seconds)
