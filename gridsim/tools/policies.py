"""Policies for :func:`gridsim.evaluate`: the seed-keyed random policy, loading one by name, calling one."""

from __future__ import annotations

import inspect
import numbers
import os
import re
import sys
from collections.abc import Mapping
from typing import Any, cast

import gymnasium as gym
import numpy as np

from gridsim.engine.settings import as_flag
from gridsim.errors import ArgumentTypeError, InvalidArgumentError
from gridsim.tools.draws import episode_uniform

__all__ = ["TRUST_PICKLE_ENV", "RandomPolicy", "load_policy", "policy_name", "sampled_policy"]

# The environment variable that, set to 1 beside --trust-pickle, lets gridsim eval and render
# unpickle a policy file: both are needed, as unpickling a file can run any code it names.
TRUST_PICKLE_ENV = "GRIDSIM_TRUST_PICKLE"


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

    def __init__(self, action_space: gym.Space, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed!r}")
        if isinstance(action_space, gym.spaces.Box) and not action_space.is_bounded("both"):
            raise InvalidArgumentError(f"RandomPolicy needs a bounded Box, got {action_space}")
        if not isinstance(action_space, (gym.spaces.Discrete, gym.spaces.MultiDiscrete, gym.spaces.Box)):
            raise ArgumentTypeError(f"RandomPolicy draws from Discrete, MultiDiscrete or Box spaces, "
                                    f"got {action_space}")
        self.action_space = action_space
        self.seed = int(seed)

    def __repr__(self) -> str:
        return f"RandomPolicy({self.action_space}, seed={self.seed})"

    def _uniform(self, infos: Mapping[str, Any], components: int) -> np.ndarray:
        """(B, components) floats in [0, 1) from the rows' episode seeds and steps."""
        return episode_uniform(self.seed, infos, components)

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

    def _tensor(self, obs):
        """An array batch as a tensor on the module's device (a dict: each array entry; strings stay)."""
        if isinstance(obs, Mapping):
            return {k: v if isinstance(v, (tuple, list, str)) else self._tensor(v) for k, v in obs.items()}
        x = self.torch.as_tensor(np.array(obs))  # a writable copy: the batch given is read-only
        ref = next(iter(self.module.parameters()), None)
        if ref is not None:
            x = x.to(ref.device)
            if ref.is_floating_point() and not x.is_floating_point():
                x = x.to(ref.dtype)
        return x

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        torch = self.torch
        x = self._tensor(obs)
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
            raise InvalidArgumentError(f"policy must be a callable, a torch module or 'random', got {policy!r}")
        if not isinstance(policy, str) and not callable(policy):
            raise ArgumentTypeError(f"policy must be a callable (observation batch -> action batch) or a torch "
                                    f"module, got {policy!r}")
        self.policy = policy
        self.style: str | None = None

    def bind(self, envs) -> None:
        """Finish the set-up once the env is known; refuse an env the policy's network was not trained on.

        Raises:
            gridsim.InvalidArgumentError: a network of known spaces (a checkpoint's) and an env
                of others (:func:`gridsim.tools.torch_agent.check_policy_env`).
        """
        policy = self.policy
        action_space = envs.single_action_space
        torch_agent = sys.modules.get("gridsim.tools.torch_agent")  # loaded whenever such a network is
        if torch_agent is not None:
            torch_agent.check_policy_env(policy, envs, self.name)
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


def _pickle_refusal(spec: str, error: Exception) -> InvalidArgumentError:
    """The one-line refusal of a file ``torch.load(weights_only=True)`` does not read, and how to opt in."""
    text = str(error)
    found = re.search(r"GLOBAL ([\w.]+)", text)  # torch names the first object the file would have built
    if found:
        what = f"holds pickled Python objects ({found.group(1)}), and unpickling can run any code"
    else:
        lines = [line.strip() for line in text.splitlines() if line.strip()
                 and not line.startswith("Check the documentation")]  # torch's last line: a link
        reason = lines[-1] if lines else type(error).__name__
        what = f"is not read by torch.load(weights_only=True) ({reason}), and unpickling it can run any code"
    return InvalidArgumentError(f"--policy {spec} {what}: it was not loaded. If you trust the file, pass "
                                f"--trust-pickle and set {TRUST_PICKLE_ENV}=1 (in Python: load_policy(..., "
                                "trust_pickle=True))")


def _load_torch_file(spec: str, trust_pickle: bool):
    """The policy in a ``.pt`` file (see :func:`load_policy`)."""
    import pickle

    try:
        import torch

        from gridsim.tools import torch_agent
    except ImportError as e:
        raise ImportError(f"--policy {spec}: loading a checkpoint needs torch (pip install torch)") from e
    if not os.path.isfile(spec):
        raise InvalidArgumentError(f"--policy {spec}: no such file")
    try:
        # TorchScript's own reader builds TorchScript modules only: no Python object is unpickled.
        return torch.jit.load(spec, map_location="cpu").eval()
    except (RuntimeError, ValueError):  # not TorchScript
        pass
    try:
        # Tensors, numbers, strings and containers only: nothing in the file can run code.
        obj = torch.load(spec, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError) as refusal:  # a pickled module (or another pickled object)
        if not trust_pickle:
            raise _pickle_refusal(spec, refusal) from refusal
        try:
            obj = torch.load(spec, map_location="cpu", weights_only=False)
        except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as e:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise InvalidArgumentError(f"--policy {spec}: not a file torch.load can read ({reason})") from e
    if torch_agent.is_agent_checkpoint(obj):
        return torch_agent.CheckpointPolicy(torch_agent.agent_from_checkpoint(obj, spec), spec)
    if not isinstance(obj, torch.nn.Module):
        raise InvalidArgumentError(f"--policy {spec} holds a {type(obj).__name__}, not a module: save a checkpoint "
                                   "of examples/ppo.py (gridsim.tools.torch_agent.save_agent), the whole module "
                                   "(torch.save(model, path) or torch.jit.save), or give module:attr")
    return obj.eval()


def load_policy(spec: str, *, trust_pickle: bool = False):
    """The policy named on the command line: ``random``, ``module:attr`` or a ``.pt`` / ``.pth`` file.

    ``module:attr`` imports ``module`` (the working directory is on the path) and takes
    ``attr``: a callable or a torch module is the policy; a class is instantiated without
    arguments; ``module:attr()`` calls ``attr`` without arguments and uses what it returns (a
    factory). A ``.pt`` file is one of:

    * a checkpoint of ``examples/ppo.py`` (:func:`gridsim.tools.torch_agent.save_agent`: the
      network's spaces, width and weights), read with ``torch.load(weights_only=True)``, which
      unpickles no Python objects; the policy is the network's greedy one;
    * a TorchScript file (``torch.jit.save``), read by TorchScript's own loader;
    * a whole module saved with ``torch.save(module, path)``, which only a full unpickling
      (``weights_only=False``) reads. Unpickling runs whatever code the file names, so such a
      file is refused unless ``trust_pickle`` is True (on the command line, ``--trust-pickle``
      together with the environment variable ``GRIDSIM_TRUST_PICKLE=1``).

    A bare state dict needs its module class, so give ``module:attr`` instead.

    Args:
        spec: ``"random"``, ``"module:attr"`` or the path of a ``.pt`` / ``.pth`` file.
        trust_pickle: unpickle a file that ``torch.load(weights_only=True)`` refuses (it runs
            any code the file names: only for files you trust).

    Raises:
        ValueError: a spec in none of these forms, no such file, a file of pickled objects
            without ``trust_pickle`` (:class:`gridsim.InvalidArgumentError`, its message naming
            the opt-in), or a checkpoint that holds no module (:class:`gridsim.InvalidStateError`
            for a damaged ppo.py checkpoint).
        ImportError: the module, or torch for a checkpoint, cannot be imported.
    """
    import importlib

    trust_pickle = as_flag(trust_pickle, "trust_pickle")
    if spec == "random":
        return "random"
    if spec.endswith((".pt", ".pth")):
        return _load_torch_file(spec, trust_pickle)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InvalidArgumentError(f"--policy must be 'random', module:attr or a .pt file, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    call = attr.endswith("()")
    obj: Any = importlib.import_module(module_name)
    for name in attr.removesuffix("()").split("."):
        obj = getattr(obj, name)
    if call or inspect.isclass(obj):
        obj = obj()
    return obj


def sampled_policy(policy: Any, seed: int) -> Any:
    """The sampled policy of a checkpoint :func:`load_policy` loaded (``--sample`` on the command line).

    A checkpoint of ``examples/ppo.py`` holds the network's categoricals, so its actions can be
    drawn as in training, from a generator seeded with ``seed``; other policies say nothing of
    their distribution.

    Raises:
        InvalidArgumentError: ``policy`` is not such a checkpoint's.
    """
    torch_agent = sys.modules.get("gridsim.tools.torch_agent")  # loaded whenever a checkpoint was
    if torch_agent is None or not isinstance(policy, torch_agent.CheckpointPolicy):
        raise InvalidArgumentError(f"--sample needs a checkpoint of examples/ppo.py (gridsim.tools.torch_agent), "
                                   f"whose actions have a distribution; got {policy_name(policy)}")
    return policy.sampled(seed)
