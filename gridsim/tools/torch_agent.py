"""The actor-critic of ``examples/ppo.py`` and its checkpoint file, which ``gridsim eval`` and ``render`` load.

The network is declared here, once: ``examples/ppo.py`` imports :class:`Agent` and
:class:`ObsEncoder` from this module to train, and :func:`load_agent` rebuilds the same network
from a checkpoint. (The example cannot be imported by an installed gridsim, so the shared
definition lives in the package, not in the example.) Needs PyTorch.

A checkpoint (:func:`save_agent`) is a ``torch.save`` of a dict of tensors, numbers, strings
and lists only, so :func:`load_agent` reads it with ``torch.load(weights_only=True)``, which
unpickles no Python objects; docs/checkpoints.md lists its keys.
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from gridsim.engine.files import atomic_write
from gridsim.errors import ArgumentTypeError, GridSimError, InvalidArgumentError, InvalidStateError
from gridsim.tools.env_names import env_entry

__all__ = ["CHECKPOINT_FORMAT", "CHECKPOINT_VERSION", "Agent", "CheckpointPolicy", "ObsEncoder",
           "agent_from_checkpoint", "is_agent_checkpoint", "load_agent", "save_agent", "valid_mask"]

# The "format" entry of a checkpoint of save_agent, and its layout's version.
CHECKPOINT_FORMAT = "gridsim.torch_agent"
CHECKPOINT_VERSION = 1
ONE_HOT_MAX = 4096  # integer boxes with more values than this are scaled instead


class ObsEncoder:
    """Observations as float vectors, from the observation space's bounds alone.

    Integer boxes with few values (the navigation coordinates) become one one-hot vector over
    the joint values (at most ``ONE_HOT_MAX`` of them) or one per axis; other boxes are
    scaled to [0, 1] from their bounds.

    Args:
        space: the single observation space (a ``Box``).

    Raises:
        gridsim.ArgumentTypeError: ``space`` is not a ``Box``.
    """

    def __init__(self, space: gym.Space):
        if not isinstance(space, gym.spaces.Box):
            raise ArgumentTypeError(f"ObsEncoder encodes Box observations, got {space}")
        self.space = space
        self.shape = space.shape
        low = np.broadcast_to(space.low, space.shape).astype(np.float64).ravel()
        high = np.broadcast_to(space.high, space.shape).astype(np.float64).ravel()
        counts = high - low + 1
        self.one_hot = bool(np.issubdtype(space.dtype, np.integer) and np.isfinite(counts).all()
                            and counts.sum() <= ONE_HOT_MAX and (high > 1).any())
        # Few enough joint values (a navigation map's cells): one one-hot over them, so any
        # function of the position is one weight per cell. Otherwise one one-hot per axis.
        self.joint = self.one_hot and float(np.prod(counts)) <= ONE_HOT_MAX
        if self.joint:
            self.low = torch.as_tensor(low, dtype=torch.long)
            strides = np.concatenate([np.cumprod(counts[::-1])[::-1][1:], [1]])
            self.strides = torch.as_tensor(strides, dtype=torch.long)
            self.size = int(np.prod(counts))
        elif self.one_hot:
            self.low = torch.as_tensor(low, dtype=torch.long)
            self.offsets = torch.as_tensor(np.concatenate([[0], np.cumsum(counts)[:-1]]), dtype=torch.long)
            self.size = int(counts.sum())
        else:
            finite = np.isfinite(low) & np.isfinite(high) & (high > low)
            self.low = torch.as_tensor(np.where(finite, low, 0.0), dtype=torch.float32)
            self.scale = torch.as_tensor(np.where(finite, 1.0 / np.where(finite, high - low, 1.0), 1.0),
                                         dtype=torch.float32)
            self.size = int(low.size)

    def __call__(self, obs: np.ndarray) -> torch.Tensor:
        """A batch of observations as a float tensor (batch, size)."""
        x = torch.as_tensor(np.array(obs).reshape(len(obs), -1))  # a copy: evaluate passes a read-only view
        if self.joint:
            index = ((x.long() - self.low).clamp_min(0) * self.strides).sum(1, keepdim=True)
            return torch.zeros(len(x), self.size).scatter_(1, index, 1.0)
        if self.one_hot:
            index = (x.long() - self.low).clamp_min(0) + self.offsets
            out = torch.zeros(len(x), self.size)
            out.scatter_(1, index, 1.0)
            return out
        return (x.float() - self.low) * self.scale


class Agent(nn.Module):
    """Separate actor and critic MLPs; one categorical head per action component.

    Args:
        encoder: the observations' encoder (its ``size`` is the MLPs' input width).
        action_space: ``Discrete`` or ``MultiDiscrete`` (one head per component).
        hidden: units of each of the two tanh hidden layers.
    """

    def __init__(self, encoder: ObsEncoder, action_space: gym.Space, hidden: int):
        super().__init__()
        self.encoder = encoder
        self.action_space = action_space
        self.hidden = int(hidden)
        if isinstance(action_space, gym.spaces.Discrete):
            self.nvec = [int(action_space.n)]
        elif isinstance(action_space, gym.spaces.MultiDiscrete):
            self.nvec = [int(n) for n in action_space.nvec]
        else:
            raise ArgumentTypeError(f"Agent takes Discrete or MultiDiscrete actions, got {action_space}")

        def mlp(out: int, gain: float) -> nn.Sequential:
            head = nn.Linear(hidden, out)
            layers = [nn.Linear(encoder.size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), head]
            for layer in layers:
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, math.sqrt(2))
                    nn.init.zeros_(layer.bias)
            nn.init.orthogonal_(head.weight, gain)
            return nn.Sequential(*layers)

        self.actor = mlp(sum(self.nvec), 0.01)
        self.critic = mlp(1, 1.0)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """The critic's value of encoded observations."""
        return self.critic(x).squeeze(-1)

    def dists(self, x: torch.Tensor, mask: torch.Tensor | None):
        """One categorical per action component; invalid actions (``mask`` False) get no mass."""
        logits = self.actor(x)
        if mask is not None:  # True = valid
            logits = logits.masked_fill(~mask, -1e8)
        return [torch.distributions.Categorical(logits=part) for part in torch.split(logits, self.nvec, dim=-1)]

    def act(self, x, mask=None, action=None):
        """Sample (or score ``action``): returns action, log-prob, entropy, value."""
        dists = self.dists(x, mask)
        if action is None:
            action = torch.stack([d.sample() for d in dists], dim=-1)
        logp = torch.stack([d.log_prob(action[:, k]) for k, d in enumerate(dists)], dim=-1).sum(-1)
        entropy = torch.stack([d.entropy() for d in dists], dim=-1).sum(-1)
        return action, logp, entropy, self.value(x)

    @torch.no_grad()
    def greedy(self, obs: np.ndarray, infos: Mapping[str, Any] | None = None) -> np.ndarray:
        """The greedy policy on a batch of observations, as ``gridsim.evaluate`` calls it."""
        mask = valid_mask(infos, len(obs), sum(self.nvec))
        logits = self.actor(self.encoder(obs))
        if mask is not None:
            logits = logits.masked_fill(~mask, -1e8)
        acts = torch.stack([part.argmax(-1) for part in torch.split(logits, self.nvec, dim=-1)], dim=-1)
        out = acts.numpy().astype(np.int64)
        return out[:, 0] if len(self.nvec) == 1 else out


def valid_mask(infos: Mapping[str, Any] | None, n: int, width: int) -> torch.Tensor | None:
    """``infos["action_mask"]`` (1 = masked out) as a bool tensor, True = valid."""
    if not infos or "action_mask" not in infos:
        return None
    mask = torch.as_tensor(np.asarray(infos["action_mask"]) == 0).reshape(n, -1)
    return mask if mask.shape[1] == width else None


# ------------------------------------------------------------------ checkpoints


def _space_entry(space: gym.Space) -> dict[str, Any]:
    """A Box, Discrete or MultiDiscrete space as tensors, numbers and strings."""
    if isinstance(space, gym.spaces.Box):
        return {"type": "Box", "shape": list(space.shape), "dtype": str(space.dtype),
                "low": torch.as_tensor(np.broadcast_to(space.low, space.shape).astype(np.float64).copy()),
                "high": torch.as_tensor(np.broadcast_to(space.high, space.shape).astype(np.float64).copy())}
    if isinstance(space, gym.spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, gym.spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": space.nvec.astype(np.int64).tolist(),
                "start": space.start.astype(np.int64).tolist()}
    raise TypeError(f"no checkpoint entry for a {type(space).__name__} space")


def _space_from_entry(entry: Mapping[str, Any], where: str) -> gym.Space:
    kind = entry.get("type")
    if kind == "Box":
        dtype = np.dtype(str(entry["dtype"]))
        shape = tuple(int(n) for n in entry["shape"])
        low = entry["low"].numpy().reshape(shape).astype(dtype)
        high = entry["high"].numpy().reshape(shape).astype(dtype)
        return gym.spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    if kind == "Discrete":
        return gym.spaces.Discrete(int(entry["n"]), start=int(entry.get("start", 0)))
    if kind == "MultiDiscrete":
        return gym.spaces.MultiDiscrete(np.asarray(entry["nvec"], np.int64),
                                        start=np.asarray(entry.get("start", [0] * len(entry["nvec"])), np.int64))
    raise InvalidStateError(f"{where}: unknown space type {kind!r}", field="space")


def save_agent(path: str | os.PathLike, agent: Agent, metadata: Mapping[str, Any] | None = None) -> None:
    """Write ``agent`` to ``path`` as a checkpoint that :func:`load_agent` (and ``gridsim eval``) rebuilds.

    Args:
        path: the file (``.pt`` by convention: ``gridsim eval --policy run.pt``).
        agent: the trained :class:`Agent`.
        metadata: plain values to keep beside the network (``examples/ppo.py``: its arguments);
            only ``None``, bools, numbers, strings and lists, tuples and dicts of them (so the
            file loads with ``weights_only=True``).
    """
    checkpoint = {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_VERSION,
        "observation_space": _space_entry(agent.encoder.space),
        "action_space": _space_entry(agent.action_space),
        "hidden": agent.hidden,
        "state_dict": agent.state_dict(),
        "metadata": dict(metadata or {}),
    }
    # Written whole or not at all: an interrupted save keeps the previous checkpoint.
    with atomic_write(path, "wb") as f:
        torch.save(checkpoint, f)


def is_agent_checkpoint(obj: Any) -> bool:
    """Whether ``obj`` (what ``torch.load`` returned) is a checkpoint of :func:`save_agent`, or of the older ppo.py.

    ``examples/ppo.py`` first saved ``{"model": state_dict, "args": its arguments}``, without the
    spaces: :func:`agent_from_checkpoint` reads those too, making the env the arguments name.
    """
    return isinstance(obj, Mapping) and (obj.get("format") == CHECKPOINT_FORMAT or _is_ppo_args_checkpoint(obj))


def _is_ppo_args_checkpoint(obj: Mapping) -> bool:
    args = obj.get("args")
    return (obj.keys() == {"model", "args"} and isinstance(args, Mapping) and "hidden" in args
            and bool(args.get("env_id") or args.get("level")))


def _ppo_args_agent(checkpoint: Mapping[str, Any]) -> Agent:
    """The agent of an older ppo.py checkpoint: its spaces are those of the env its arguments name."""
    args = checkpoint["args"]
    env_kwargs = dict(args.get("env_kwargs") or {})
    if args.get("level_directory") and not args.get("env_id"):
        env_kwargs["level_directory"] = args["level_directory"]
    env_id, extra = env_entry(args.get("env_id") or args["level"])
    envs = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point", **extra, **env_kwargs)
    try:
        obs_space, action_space = envs.single_observation_space, envs.single_action_space
    finally:
        envs.close()
    agent = Agent(ObsEncoder(obs_space), action_space, int(args["hidden"]))
    agent.load_state_dict(checkpoint["model"])
    return agent


def agent_from_checkpoint(checkpoint: Mapping[str, Any], where: str = "<checkpoint>") -> Agent:
    """The :class:`Agent` of a loaded checkpoint dict, its weights restored, in eval mode.

    Raises:
        gridsim.InvalidStateError: not a checkpoint of :func:`save_agent`, another format
            version, or entries that do not fit the network.
    """
    if not is_agent_checkpoint(checkpoint):
        raise InvalidStateError(f"{where} is not a {CHECKPOINT_FORMAT} checkpoint", field="format")
    if checkpoint.get("format") != CHECKPOINT_FORMAT:
        try:
            return _ppo_args_agent(checkpoint).eval()
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:
            if isinstance(e, GridSimError):  # the env its arguments name does not load here
                raise
            raise InvalidStateError(f"{where}: a damaged checkpoint of examples/ppo.py ({type(e).__name__}: "
                                    f"{str(e).splitlines()[0] if str(e) else ''})", field="model") from e
    version = checkpoint.get("format_version")
    if version != CHECKPOINT_VERSION:
        raise InvalidStateError(f"{where}: checkpoint format version {version!r}; this gridsim reads version "
                                f"{CHECKPOINT_VERSION}", field="format_version")
    try:
        obs_space = _space_from_entry(checkpoint["observation_space"], where)
        action_space = _space_from_entry(checkpoint["action_space"], where)
        agent = Agent(ObsEncoder(obs_space), action_space, int(checkpoint["hidden"]))
        agent.load_state_dict(checkpoint["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:  # RuntimeError: shapes
        if isinstance(e, GridSimError):
            raise
        raise InvalidStateError(f"{where}: a damaged {CHECKPOINT_FORMAT} checkpoint ({type(e).__name__}: "
                                f"{str(e).splitlines()[0] if str(e) else ''})", field="state_dict") from e
    return agent.eval()


def load_agent(path: str | os.PathLike) -> Agent:
    """Rebuild the :class:`Agent` saved by :func:`save_agent`; reads the file with ``weights_only=True``.

    Raises:
        gridsim.InvalidStateError: as :func:`agent_from_checkpoint`, or a file ``torch.load``
            refuses with ``weights_only=True`` (one that needs Python objects unpickled).
        OSError: the file cannot be opened.
    """
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError) as e:  # weights_only refusals, not torch files
        raise InvalidStateError(f"{os.fspath(path)}: not a checkpoint torch.load reads with weights_only=True "
                                f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from e
    return agent_from_checkpoint(checkpoint, os.fspath(path))


class CheckpointPolicy:
    """The greedy policy of an :class:`Agent` loaded from a file, named after the file in results."""

    def __init__(self, agent: Agent, path: str | os.PathLike):
        self.agent = agent
        self.path = os.fspath(path)

    def __repr__(self) -> str:
        return f"{self.path} (greedy)"

    def __call__(self, obs: np.ndarray, infos: Mapping[str, Any]) -> np.ndarray:
        """The greedy actions of a batch; ``infos["action_mask"]`` masks them where given.

        Raises:
            gridsim.InvalidArgumentError: the env's observations are not of the shape the
                network was trained on (another env, or other env arguments).
        """
        shape = self.agent.encoder.shape
        if tuple(np.shape(obs)[1:]) != tuple(shape):
            raise InvalidArgumentError(f"{self.path} was trained on observations of shape {tuple(shape)}; this env's "
                                       f"are {tuple(np.shape(obs)[1:])} (another env, or other env arguments)")
        return self.agent.greedy(obs, infos)
