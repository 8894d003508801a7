"""Batched evaluation: one episode per seed, many episodes at once (:func:`gridsim.evaluate`).

A policy is run on a batch of ``num_envs`` rows. Every row plays the episode that
``reset(seed=s)`` starts for its seed ``s``; rows whose episode ended are given the next
seeds with ``reset(seed=[...], options={"reset_mask": ...})``, so each result is the episode
a single env replays with ``gym.make(id)`` and ``reset(seed=s)``, whatever the batch size,
the order of the seeds or the thread count. Statistics are read from the kernel's
per-row episode statistics (``state.stat_return`` etc.) on the step an episode ends.
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from gridsim.errors import InvalidActionError, PolicyError
from gridsim.vector import GridVectorEnv

__all__ = ["SWEEP_COLUMNS", "EvalResult", "RandomPolicy", "SweepResult", "evaluate", "load_policy", "sweep_items"]

# The default batch: enough rows for every seed, up to this many.
DEFAULT_MAX_ENVS = 1024

# Keyword arguments evaluate sets itself on the envs it makes.
_OWN_KWARGS = ("num_envs", "num_threads", "autoreset_mode", "copy")


# --------------------------------------------------------------------------- result


def _stats(values: np.ndarray) -> dict[str, float]:
    """Mean, sample standard deviation and the half-width of a normal 95% interval."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else 0.0
    return {"mean": mean, "std": std, "ci95": 1.96 * std / math.sqrt(n)}


def _format_column(values: np.ndarray) -> list[str]:
    """CSV text of one column: ints as digits, bools as 1/0, floats as their shortest round-trip repr."""
    if values.dtype == np.bool_:
        return ["1" if v else "0" for v in values.tolist()]
    if values.dtype.kind == "f":
        return [repr(float(v)) for v in values.tolist()]
    return [str(int(v)) for v in values.tolist()]


@dataclass(eq=False)
class EvalResult:
    """The episodes of :func:`gridsim.evaluate`: per-seed arrays in the order of the seeds given.

    The columns are also readable by their CSV names: ``result["seed"]``, ``result["return"]``,
    ``result["length"]``, ``result["success"]`` and each extra statistic.

    Attributes:
        seeds: int64 (n,) the seed of each episode (an object array of Python ints for seeds
            of 2**63 or more).
        returns: float64 (n,) the sum of the episode's rewards (a kitchen's team return in the
            agent-rows view, counted once).
        lengths: int64 (n,) the episode's steps.
        successes: bool (n,) the family's success statistic where it has one, else whether the
            episode ended by termination (not truncation).
        extras: the family's other episode statistics (``infos["episode_stats"]`` beyond
            ``return``, ``length`` and ``success``), name -> (n,) array; e.g. a kitchen's
            ``dishes_delivered``.
        env: the env's id or level name (or its class name, for an env passed in).
        policy: the policy's name, as error messages give it.
        num_envs: the rows of the batch.
        batch_steps: the ``step`` calls the evaluation made (each steps every row).
        seconds: the wall-clock time from the first reset to the last episode's end.
    """

    seeds: np.ndarray
    returns: np.ndarray
    lengths: np.ndarray
    successes: np.ndarray
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    env: str = ""
    policy: str = ""
    num_envs: int = 0
    batch_steps: int = 0
    seconds: float = 0.0

    def columns(self) -> dict[str, np.ndarray]:
        """The per-seed columns by name: ``seed``, ``return``, ``length``, ``success``, then the extras."""
        return {"seed": self.seeds, "return": self.returns, "length": self.lengths, "success": self.successes,
                **self.extras}

    def __getitem__(self, name: str) -> np.ndarray:
        cols = self.columns()
        if name not in cols:
            raise KeyError(f"no column {name!r}; the columns are {list(cols)}")
        return cols[name]

    def __len__(self) -> int:
        return len(self.seeds)

    def summary(self) -> dict[str, Any]:
        """Mean, standard deviation and 95% confidence half-width of each statistic.

        Returns:
            ``{"episodes": n, "return": {"mean", "std", "ci95"}, "length": {...}, "success":
            {...}}`` plus one entry per numeric extra statistic. ``std`` is the sample standard
            deviation (``ddof=1``; 0.0 for one episode) and ``ci95`` is ``1.96 * std / sqrt(n)``,
            the half-width of the normal-approximation interval ``mean ± ci95``; ``success``
            is the success rate.
        """
        out: dict[str, Any] = {"episodes": len(self)}
        out["return"] = _stats(self.returns)
        out["length"] = _stats(self.lengths)
        out["success"] = _stats(self.successes)
        for name, values in self.extras.items():
            if values.dtype.kind in "biuf":
                out[name] = _stats(values)
        return out

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write one row per seed, in the order of the seeds, under a header of the column names.

        The text depends only on the values: floats are written as their shortest round-trip
        ``repr``, bools as 1 and 0, every line ends in a newline, so equal results give
        byte-identical files.

        Args:
            path: the file to write (replaced if it exists).
        """
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(self.csv_header())
            f.write(self.csv_rows())

    def csv_header(self) -> str:
        """The header line of :meth:`to_csv`: the column names."""
        return ",".join(self.columns()) + "\n"

    def csv_rows(self) -> str:
        """The lines of :meth:`to_csv` after the header, one per seed (a file can be written piece by piece)."""
        text = [_format_column(np.asarray(v)) for v in self.columns().values()]
        return "".join(",".join(row) + "\n" for row in zip(*text, strict=True))

    def __repr__(self) -> str:
        s = self.summary()
        r, ok, ln = s["return"], s["success"], s["length"]
        return (f"EvalResult(env={self.env!r}, policy={self.policy!r}, episodes={len(self)}, "
                f"return={r['mean']:.4g} ± {r['ci95']:.2g}, success={ok['mean']:.3f} ± {ok['ci95']:.2g}, "
                f"length={ln['mean']:.4g})")


SWEEP_COLUMNS = ("policy", "env", "episodes", "return_mean", "return_std", "return_ci95",
                 "success_mean", "success_std", "success_ci95")


@dataclass(eq=False)
class SweepResult:
    """Every policy on every env, over the same seeds: one row per (policy, env).

    Attributes:
        rows: dicts with the keys of :data:`SWEEP_COLUMNS`, policies in the outer order, envs in
            the inner: ``return_*`` and ``success_*`` are the mean, sample standard deviation
            and 95% half-width of :meth:`EvalResult.summary`.
        results: the full :class:`EvalResult` of each (policy name, env).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    results: dict[tuple[str, str], EvalResult] = field(default_factory=dict)

    def add(self, name: str, env: str | os.PathLike, result: EvalResult) -> None:
        """Append the row of one evaluation (a level file's env is named by its path)."""
        env = os.fspath(env)
        s = result.summary()
        self.rows.append({"policy": name, "env": env, "episodes": s["episodes"],
                          **{f"{stat}_{k}": s[stat][k] for stat in ("return", "success")
                             for k in ("mean", "std", "ci95")}})
        self.results[(name, env)] = result

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write the table, a header then one line per row (floats as their shortest round-trip repr)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(",".join(SWEEP_COLUMNS) + "\n")
            for row in self.rows:
                f.write(",".join(_csv_cell(row[c]) for c in SWEEP_COLUMNS) + "\n")

    def __str__(self) -> str:
        width = max([len("policy")] + [len(r["policy"]) for r in self.rows])
        env_width = max([len("env")] + [len(r["env"]) for r in self.rows])
        lines = [f"{'policy':<{width}}  {'env':<{env_width}}  {'episodes':>8}  {'return':>10} {'± 95% CI':>9}  "
                 f"{'success':>7} {'± 95% CI':>9}"]
        for r in self.rows:
            lines.append(f"{r['policy']:<{width}}  {r['env']:<{env_width}}  {r['episodes']:>8}  "
                         f"{r['return_mean']:>10.4f} {r['return_ci95']:>9.4f}  {r['success_mean']:>7.3f} "
                         f"{r['success_ci95']:>9.4f}")
        return "\n".join(lines)


def _csv_cell(value) -> str:
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def sweep_items(policies, envs) -> tuple[list[tuple[str, Any]], list[str | os.PathLike]]:
    """A sweep's ``(name, policy)`` pairs and envs.

    Args:
        policies: a mapping name -> policy, or a sequence of policies (named by :func:`policy_name`).
        envs: an id, level name or level file (a ``pathlib.Path``), or a sequence of them.

    Raises:
        ValueError: no policies or no envs, or two policies of the same name.
    """
    named = list(policies.items()) if isinstance(policies, Mapping) else [(policy_name(p), p) for p in policies]
    env_list = [envs] if isinstance(envs, (str, os.PathLike)) else list(envs)
    if not named or not env_list:
        raise ValueError("a sweep needs at least one policy and one env")
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        raise ValueError(f"policies must have distinct names, got {names}: pass a mapping name -> policy")
    return named, env_list


# --------------------------------------------------------------------------- policies

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


class RandomPolicy:
    """Uniform random actions that depend only on the episode's seed, its step and ``seed``.

    A row's action is a hash of ``(seed, infos["episode_seed"], infos["episode_step"])``
    (which :func:`evaluate` passes to policies that take infos), so an evaluation with this
    policy gives the same episodes whatever the batch, and a single env replays one with the
    same three numbers. Where ``infos["action_mask"]`` is given (gridroboman: 1 = masked out)
    the action is uniform over the unmasked ones (over all when every one is masked).

    Args:
        action_space: the single action space (``Discrete``, ``MultiDiscrete`` or a bounded ``Box``).
        seed: a non-negative int that selects another random policy.

    Example:
        >>> import numpy as np
        >>> from gymnasium.spaces import Discrete
        >>> policy = RandomPolicy(Discrete(4))
        >>> infos = {"episode_seed": np.array([7, 7], np.uint64), "episode_step": np.array([0, 0])}
        >>> a = policy(np.zeros((2, 2)), infos)
        >>> bool(a[0] == a[1]), a.dtype
        (True, dtype('int64'))
    """

    action_space: gym.Space
    seed: int
    _key: np.uint64

    def __init__(self, action_space: gym.Space, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        if isinstance(action_space, gym.spaces.Box) and not action_space.is_bounded("both"):
            raise ValueError(f"RandomPolicy needs a bounded Box, got {action_space}")
        if not isinstance(action_space, (gym.spaces.Discrete, gym.spaces.MultiDiscrete, gym.spaces.Box)):
            raise TypeError(f"RandomPolicy draws from Discrete, MultiDiscrete or Box spaces, got {action_space}")
        self.action_space = action_space
        self.seed = int(seed)
        self._key = _mix(np.array([self.seed % (1 << 64)], np.uint64) ^ _GOLDEN)[0]

    def __repr__(self) -> str:
        return f"RandomPolicy({self.action_space}, seed={self.seed})"

    def _uniform(self, infos: Mapping[str, Any], components: int) -> np.ndarray:
        """(B, components) floats in [0, 1) from the rows' episode seeds and steps."""
        seeds = np.asarray(infos["episode_seed"], dtype=np.uint64)
        steps = np.asarray(infos["episode_step"]).astype(np.uint64)
        h = _mix(_mix(seeds ^ self._key) + steps * _GOLDEN)
        j = np.arange(1, components + 1, dtype=np.uint64) * _M2
        bits = _mix(h[:, None] + j[None, :]) >> np.uint64(11)
        return bits.astype(np.float64) * (1.0 / (1 << 53))

    def __call__(self, obs: np.ndarray, infos: Mapping[str, Any]) -> np.ndarray:
        """A batch of actions for the rows of ``obs``.

        Args:
            obs: the observation batch (only its length is used).
            infos: ``episode_seed`` and ``episode_step`` (B,), and optionally ``action_mask``.

        Returns:
            int64 (B,) or (B, k) actions, or float (B, ...) for a ``Box``.
        """
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            u = self._uniform(infos, 1)[:, 0]
            n = int(space.n)
            mask = infos.get("action_mask")
            if mask is not None and np.shape(mask) == (len(u), n):
                valid = np.asarray(mask) == 0
                count = valid.sum(axis=1)
                k = np.floor(u * count).astype(np.int64)
                pick = np.argmax(np.cumsum(valid, axis=1) > k[:, None], axis=1)
                free = np.floor(u * n).astype(np.int64)
                return np.where(count > 0, pick, free).astype(np.int64) + int(space.start)
            return np.floor(u * n).astype(np.int64) + int(space.start)
        if isinstance(space, gym.spaces.MultiDiscrete):
            nvec = space.nvec.reshape(-1).astype(np.int64)
            u = self._uniform(infos, len(nvec))
            a = np.floor(u * nvec).astype(np.int64) + space.start.reshape(-1).astype(np.int64)
            return a.reshape(len(u), *space.shape)
        space = cast(gym.spaces.Box, space)  # __init__ takes Discrete, MultiDiscrete or Box
        low, high = space.low.reshape(-1).astype(np.float64), space.high.reshape(-1).astype(np.float64)
        u = self._uniform(infos, len(low))
        return (low + u * (high - low)).astype(space.dtype).reshape(len(u), *space.shape)


def policy_name(policy: Any) -> str:
    """A short name of a policy for messages: ``module.qualname`` of a function, else its one-line repr."""
    if isinstance(policy, str):
        return policy
    qualname = getattr(policy, "__qualname__", None)
    if isinstance(qualname, str):  # functions, methods, classes
        module = getattr(policy, "__module__", None)
        return f"{module}.{qualname}" if module else qualname
    text = repr(policy)
    if "\n" in text or not text:  # e.g. a torch module's repr lists its layers
        cls = type(policy)
        return f"{cls.__module__}.{cls.__qualname__} instance"
    return text if len(text) <= 80 else text[:77] + "..."


def _infos_style(policy) -> str | None:
    """How a callable takes infos: ``"keyword"``, ``"positional"`` or None (observations only).

    ``"keyword"``: it has a parameter named ``infos``; ``"positional"``: a second positional
    parameter without a default.
    """
    try:
        sig = inspect.signature(policy)
    except (TypeError, ValueError):  # builtins without a signature take observations only
        return None
    params = list(sig.parameters.values())
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    if any(p.name == "infos" and p.kind in kinds for p in params):
        return "keyword"
    positional = [p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 2 and positional[1].default is inspect.Parameter.empty:
        return "positional"
    return None


class _TorchPolicy:
    """A ``torch.nn.Module`` as a batch policy: observations in, actions out, under ``no_grad``."""

    def __init__(self, module, torch, action_space: gym.Space):
        self.module, self.torch, self.space = module, torch, action_space

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        torch = self.torch
        x = torch.as_tensor(np.array(obs))  # a writable copy: the batch given is read-only
        ref = next(iter(self.module.parameters()), None)
        if ref is not None:
            x = x.to(ref.device)
            if ref.is_floating_point() and not x.is_floating_point():
                x = x.to(ref.dtype)
        with torch.no_grad():
            out = self.module(x)
        if isinstance(out, (tuple, list)):  # (logits, value, ...) of actor-critic modules
            out = out[0]
        out = out.detach().cpu()
        space = self.space
        if out.is_floating_point() and out.ndim == 2:
            if isinstance(space, gym.spaces.Discrete) and out.shape[1] == space.n:
                return out.argmax(dim=1).numpy() + int(space.start)
            if isinstance(space, gym.spaces.MultiDiscrete) and space.nvec.ndim == 1 \
                    and out.shape[1] == int(space.nvec.sum()):
                parts = torch.split(out, [int(n) for n in space.nvec], dim=1)
                actions = torch.stack([p.argmax(dim=1) for p in parts], dim=1).numpy()
                return actions + space.start.astype(np.int64)
        return out.numpy()


class _PolicyCaller:
    """Calls a policy the way it asks to be called, and names it in errors."""

    def __init__(self, policy):
        self.name = policy_name(policy)
        if isinstance(policy, str) and policy != "random":
            raise ValueError(f"policy must be a callable, a torch module or 'random', got {policy!r}")
        if not isinstance(policy, str) and not callable(policy):
            raise TypeError(f"policy must be a callable (observation batch -> action batch) or a torch module, "
                            f"got {policy!r}")
        self.policy = policy
        self.style: str | None = None

    def bind(self, action_space: gym.Space):
        """Finish the set-up once the env's single action space is known."""
        policy = self.policy
        if isinstance(policy, str):  # "random"
            self.policy = RandomPolicy(action_space)
            self.style = "positional"
            return
        torch = sys.modules.get("torch")  # a torch module implies torch is imported already
        if torch is not None and isinstance(policy, torch.nn.Module):
            self.policy = _TorchPolicy(policy, torch, action_space)
            self.style = None
        else:
            self.style = _infos_style(policy)

    @property
    def wants_infos(self) -> bool:
        """Whether the policy takes infos."""
        return self.style is not None

    def __call__(self, obs, infos):
        if self.style == "keyword":
            return self.policy(obs, infos=infos)
        if self.style == "positional":
            return self.policy(obs, infos)
        return self.policy(obs)


def load_policy(spec: str):
    """The policy named on the command line: ``random``, ``module:attr`` or a ``.pt`` / ``.pth`` file.

    ``module:attr`` imports ``module`` (the working directory is on the path) and takes
    ``attr``: a callable or a torch module is the policy; a class is instantiated without
    arguments; ``module:attr()`` calls ``attr`` without arguments and uses what it returns (a
    factory). A ``.pt`` file is a TorchScript file (``torch.jit.save``) or a whole module saved
    with ``torch.save(module, path)`` (unpickled with ``weights_only=False``: load only files
    you trust); a state dict needs its module class, so give ``module:attr`` instead.

    Raises:
        ValueError: a spec in none of these forms, or a checkpoint that is not a module.
        ImportError: the module, or torch for a checkpoint, cannot be imported.
    """
    import importlib

    if spec == "random":
        return "random"
    if spec.endswith((".pt", ".pth")):
        try:
            import torch
        except ImportError as e:
            raise ImportError(f"--policy {spec}: loading a checkpoint needs torch (pip install torch)") from e
        if not os.path.exists(spec):
            raise ValueError(f"--policy {spec}: no such file")
        try:
            module = torch.jit.load(spec, map_location="cpu")
        except (RuntimeError, ValueError):  # not TorchScript: a pickled module
            module = torch.load(spec, map_location="cpu", weights_only=False)
        if not isinstance(module, torch.nn.Module):
            raise ValueError(f"--policy {spec} holds a {type(module).__name__}, not a module: save the whole "
                             "module (torch.save(model, path) or torch.jit.save), or give module:attr")
        return module.eval()
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--policy must be 'random', module:attr or a .pt file, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    call = attr.endswith("()")
    obj: Any = importlib.import_module(module_name)
    for name in attr.removesuffix("()").split("."):
        obj = getattr(obj, name)
    if call or inspect.isclass(obj):
        obj = obj()
    return obj


# --------------------------------------------------------------------------- envs


def _seed_list(seeds) -> list[int]:
    """The seeds as Python ints; TypeError for non-integers, ValueError for none or negative ones."""
    if isinstance(seeds, (numbers.Integral, str, bytes)):
        raise TypeError(f"seeds must be a sequence of ints (one episode each), e.g. range(100); got {seeds!r}")
    if isinstance(seeds, np.ndarray) and seeds.ndim == 1 and seeds.dtype.kind in "iu":
        items = seeds.tolist()
    elif isinstance(seeds, Iterable):
        items = list(seeds)
    else:
        raise TypeError(f"seeds must be a sequence of ints, got {type(seeds).__name__}")
    if not items:
        raise ValueError("seeds is empty: evaluate runs one episode per seed, so give at least one")
    if not all(type(s) is int for s in items):  # the slow check only for other types
        for i, s in enumerate(items):
            if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral):
                raise TypeError(f"seeds[{i}] must be an int, got {s!r}")
        items = [int(s) for s in items]
    if min(items) < 0:
        i = items.index(min(items))
        raise ValueError(f"seeds[{i}] = {items[i]} is negative; seeds are non-negative integers")
    return items


def _open_env(env, n_seeds: int, num_envs, num_threads, env_kwargs):
    """The vector env to run, whether evaluate owns it (and closes it), and its name."""
    if isinstance(env, (str, os.PathLike)):
        kwargs = dict(env_kwargs or {})
        clash = sorted(set(kwargs) & set(_OWN_KWARGS))
        if clash:
            raise ValueError(f"env_kwargs must not set {clash}: evaluate sets them (num_envs and num_threads "
                             "are its own arguments)")
        if num_envs is None:
            num_envs = min(n_seeds, DEFAULT_MAX_ENVS)
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer or None, got {num_envs!r}")
        # Statistics are read from the state when an episode ends; the info copies are not needed.
        kwargs = {"episode_stats": False, **kwargs, "autoreset_mode": "NextStep", "copy": False,
                  "num_threads": num_threads}
        if isinstance(env, str) and env in gym.registry:
            entry = gym.spec(env).vector_entry_point
            if not (isinstance(entry, str) and entry.startswith("gridsim.")):
                raise TypeError(f"{env!r} is not a gridsim id: evaluate runs gridsim envs "
                                "(`gridsim list` prints the ids)")
            envs = gym.make_vec(env, num_envs=int(num_envs), vectorization_mode="vector_entry_point", **kwargs)
        else:  # a level name, or a file as a Path, as gridsim.make takes them
            envs = gym.make_vec("gridsim/Level-v0", num_envs=int(num_envs), vectorization_mode="vector_entry_point",
                                level=env, **kwargs)
        return envs, True, os.fspath(env)
    if num_envs is not None or num_threads != 1 or env_kwargs:
        raise ValueError("evaluate runs an env passed in as it is: num_envs, num_threads and env_kwargs apply "
                         "only to an env it makes from an id or a level name")
    unwrapped = getattr(env, "unwrapped", None)
    if not isinstance(unwrapped, GridVectorEnv):
        raise TypeError(f"env must be a gridsim id, a level name or a gridsim vector env, got {env!r} "
                        "(for one env, pass its id: evaluate makes the batch)")
    spec = getattr(unwrapped, "spec", None)
    return env, False, getattr(spec, "id", None) or type(unwrapped).__name__


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
    """A read-only view of an observation batch (the env's own buffer: a policy must not write it)."""
    if isinstance(obs, np.ndarray):
        obs = obs.view()
        obs.flags.writeable = False
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
            and cast to their dtype when the observations are integers); float output of shape
            ``(N, n)`` for a ``Discrete`` space is argmaxed, ``(N, sum(nvec))`` for a
            ``MultiDiscrete`` space is split by ``nvec`` and each part argmaxed, anything else is
            taken as the actions; a tuple output's first item is used. ``"random"`` is a
            :class:`RandomPolicy`.
        env: a registered id (``"gridsim/PixelWorld-room1_small-v0"``), a level name as :func:`gridsim.make`
            takes it (``"nav/four_rooms"``, ``"roboman:LiftRed"``, a level file as a ``pathlib.Path``),
            or a gridsim vector env, which is reset with the seeds and left open.
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
        ValueError: ``seeds`` is empty or holds a negative seed; ``num_envs``, ``num_threads``
            or ``env_kwargs`` given with an env passed in; the env's episodes have no step limit.
        TypeError: ``env`` or ``policy`` is not something evaluate can run.
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
    caller.bind(base.single_action_space)
    if int(getattr(base.kernel, "max_steps", 1)) == 0:
        raise ValueError(f"{env_name}: its episodes have no step limit, so an evaluation could run forever; "
                         "give one, e.g. env_kwargs={'max_episode_steps': 100}")
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
