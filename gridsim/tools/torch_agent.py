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
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from gridsim.engine.files import atomic_write
from gridsim.errors import ArgumentTypeError, GridSimError, InvalidArgumentError, InvalidStateError
from gridsim.tools.draws import episode_uniform
from gridsim.tools.env_names import env_entry

__all__ = ["CHECKPOINT_FORMAT", "CHECKPOINT_VERSION", "Agent", "CheckpointPolicy", "ObsEncoder", "SampledPolicy",
           "TextEncoder", "agent_from_checkpoint", "check_policy_env", "env_mismatch", "is_agent_checkpoint",
           "load_agent", "save_agent", "valid_mask"]

# The "format" entry of a checkpoint of save_agent, and its layout's version.
CHECKPOINT_FORMAT = "gridsim.torch_agent"
CHECKPOINT_VERSION = 1
ONE_HOT_MAX = 4096  # integer boxes with more values than this are scaled instead


IdCounts = tuple[int, ...] | dict[str, tuple[int, ...]] | None
TokenCounts = dict[str, int] | None  # {key of a Dict observation: its vocabulary's size}


def _counts_of(value: Any, where: str) -> tuple[int, ...]:
    """``value`` as a tuple of positive ints (the number of ids of each channel)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray, torch.Tensor)):
        raise InvalidArgumentError(f"{where} must be a sequence of id counts, got {value!r}")
    counts = tuple(int(c) for c in (value.tolist() if isinstance(value, (np.ndarray, torch.Tensor)) else value))
    if not counts or min(counts) < 1:
        raise InvalidArgumentError(f"{where} must hold positive id counts, got {list(counts)}")
    return counts


def _value_bounds(space: gym.Space) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of each entry of a ``Box``, ``Discrete`` or ``MultiDiscrete`` space.

    Returns:
        float64 arrays of the space's shape (a ``Discrete`` is the integer box of its values).
    """
    shape = tuple(space.shape or ())
    if isinstance(space, gym.spaces.Discrete):
        low, high = np.int64(space.start), np.int64(space.start + space.n - 1)
    elif isinstance(space, gym.spaces.MultiDiscrete):
        low, high = space.start, space.start + space.nvec - 1
    else:
        box = cast(gym.spaces.Box, space)
        low, high = box.low, box.high
    return (np.broadcast_to(low, shape).astype(np.float64), np.broadcast_to(high, shape).astype(np.float64))


class _ArrayEncoder:
    """One array observation (a ``Box``, ``Discrete`` or ``MultiDiscrete`` space) as a float vector."""

    def __init__(self, space: gym.Space, id_counts: tuple[int, ...] | None, vocabulary: int | None = None):
        self.space = space
        self.shape = tuple(space.shape or ())
        self.id_counts = id_counts
        self.vocabulary = vocabulary
        self.mode = "scaled"
        self.bounds = _value_bounds(space)
        if vocabulary is not None:  # a token sequence: its ids as they are, for the agent's TextEncoder
            if (not isinstance(space, gym.spaces.Box) or len(self.shape) != 1 or id_counts is not None
                    or not np.issubdtype(space.dtype, np.integer) or vocabulary < 2
                    or self.bounds[0].min() < 0 or self.bounds[1].max() > vocabulary - 1):
                raise InvalidArgumentError(f"a vocabulary of {vocabulary} tokens needs a 1-D integer Box of ids 0 to "
                                           f"{vocabulary - 1} (0 padding the end), got {space}")
            self.mode = "tokens"
            self.size = self.shape[0]
            return
        if id_counts is not None:  # declared categories: one one-hot per cell and channel
            if not isinstance(space, gym.spaces.Box) or not self.shape or self.shape[-1] != len(id_counts):
                raise InvalidArgumentError(f"id counts {list(id_counts)} need a Box whose last axis has "
                                           f"{len(id_counts)} entries, got {space}")
            ids = np.asarray(id_counts, dtype=np.int64)
            cells = int(np.prod(self.shape[:-1]))
            self.mode = "ids"
            self.high = torch.as_tensor(np.tile(ids - 1, cells), dtype=torch.long)
            width = int(ids.sum())
            offsets = np.concatenate([[0], np.cumsum(ids)[:-1]])
            self.offsets = torch.as_tensor(np.arange(cells)[:, None] * width + offsets[None, :],
                                           dtype=torch.long).reshape(-1)
            self.size = cells * width
            return
        # Discrete and MultiDiscrete values as the integer box of their values.
        integer = not isinstance(space, gym.spaces.Box) or np.issubdtype(space.dtype, np.integer)
        low, high = (bound.ravel() for bound in self.bounds)
        counts = high - low + 1
        one_hot = bool(integer and np.isfinite(counts).all()
                       and counts.sum() <= ONE_HOT_MAX and (high > 1).any())
        # Few enough joint values (a navigation map's cells): one one-hot over them, so any
        # function of the position is one weight per cell. Otherwise one one-hot per axis.
        if one_hot and float(np.prod(counts)) <= ONE_HOT_MAX:
            self.mode = "joint"
            self.low = torch.as_tensor(low, dtype=torch.long)
            strides = np.concatenate([np.cumprod(counts[::-1])[::-1][1:], [1]])
            self.strides = torch.as_tensor(strides, dtype=torch.long)
            self.size = int(np.prod(counts))
        elif one_hot:
            self.mode = "axes"
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
        x = torch.as_tensor(np.array(obs).reshape(len(obs), -1))  # a copy: evaluate passes a read-only view
        if self.mode == "tokens":
            return x.float()
        if self.mode == "ids":
            index = torch.minimum(x.long().clamp_min(0), self.high) + self.offsets
            return torch.zeros(len(x), self.size).scatter_(1, index, 1.0)
        if self.mode == "joint":
            index = ((x.long() - self.low).clamp_min(0) * self.strides).sum(1, keepdim=True)
            return torch.zeros(len(x), self.size).scatter_(1, index, 1.0)
        if self.mode == "axes":
            index = (x.long() - self.low).clamp_min(0) + self.offsets
            return torch.zeros(len(x), self.size).scatter_(1, index, 1.0)
        return (x.float() - self.low) * self.scale

    def space_mismatch(self, space: gym.Space, id_counts: Any) -> str | None:
        """How the values of ``space`` (of this encoder's shape) leave those it encodes, or None.

        A value outside the bounds the encoder was built with would be clamped (one-hot) or
        scaled past [0, 1]: it would not mean what it meant in training.
        """
        if not isinstance(space, _ARRAY_SPACES):
            return f"of a {type(self.space).__name__} space; this env's are {space}"
        if self.id_counts is not None and id_counts is not None and tuple(id_counts) != self.id_counts:
            return f"ids {list(self.id_counts)} of each entry; this env's are {list(id_counts)}"
        if self.vocabulary is not None and id_counts is not None:
            return f"tokens of a vocabulary of {self.vocabulary}; this env's are category ids {list(id_counts)}"
        (low, high), (env_low, env_high) = self.bounds, _value_bounds(space)
        outside = (env_low < low) | (env_high > high)
        if not outside.any():
            return None
        if all(np.ptp(bound) == 0 for bound in (low, high, env_low, env_high)):  # one range for every entry
            return f"with values in [{low.flat[0]:g}, {high.flat[0]:g}]; this env's are in " \
                   f"[{env_low.flat[0]:g}, {env_high.flat[0]:g}]"
        i = np.unravel_index(int(np.argmax(outside)), outside.shape)
        return (f"with values at {tuple(int(n) for n in i)} in [{low[i]:g}, {high[i]:g}]; this env's are in "
                f"[{env_low[i]:g}, {env_high[i]:g}]")


class ObsEncoder:
    """Observations as float vectors, from the observation space's bounds and the ids the env declares.

    A ``Box`` whose entries the env declares as category ids (its ``obs_id_counts``: the
    number of ids of each entry of the last axis, such as a MiniGrid image's object, colour and
    state) becomes one one-hot vector per cell and channel. Other integer boxes with few values
    (the navigation coordinates) become one one-hot vector over the joint values (at most
    ``ONE_HOT_MAX`` of them) or one per axis; other boxes are scaled to [0, 1] from their
    bounds. ``Discrete`` and ``MultiDiscrete`` values are one-hot. A ``Dict`` observation is
    the concatenation of its entries' vectors in key order; entries of other spaces (a
    mission string) are not encoded. Entries the env declares as token sequences (its
    ``obs_token_counts``: a BabyAI mission as tokens) pass through as their ids, which the
    :class:`Agent` reads with a :class:`TextEncoder` (:attr:`text_parts` says where).

    Args:
        space: the single observation space: a ``Box``, ``Discrete``, ``MultiDiscrete``, or a
            ``Dict`` of them (and of entries left out).
        id_counts: the env's ``obs_id_counts``: for a ``Box`` space, the number of ids of each
            entry of its last axis; for a ``Dict`` space, ``{key: those counts}``; None: none.
        token_counts: the env's ``obs_token_counts``: ``{key: vocabulary size}`` of the entries
            of a ``Dict`` space that are token sequences (1-D integer boxes, 0 padding the end).

    Raises:
        gridsim.ArgumentTypeError: ``space`` is none of these, or a ``Dict`` with no entry to
            encode.
        gridsim.InvalidArgumentError: ``id_counts`` do not fit the space.
    """

    def __init__(self, space: gym.Space, id_counts: IdCounts = None, token_counts: TokenCounts = None):
        self.space = space
        self.keys: tuple[str, ...] | None = None  # the encoded entries of a Dict observation
        self.ignored: tuple[str, ...] = ()
        tokens = _token_counts_of(token_counts)
        if tokens and not isinstance(space, gym.spaces.Dict):
            raise InvalidArgumentError(f"token counts {tokens} are for entries of a Dict observation, got {space}")
        if isinstance(space, gym.spaces.Dict):
            if id_counts is not None and not isinstance(id_counts, Mapping):
                raise InvalidArgumentError(f"id counts of a Dict observation are {{key: counts}}, got {id_counts!r}")
            counts = {str(k): _counts_of(v, f"id_counts[{k!r}]") for k, v in (id_counts or {}).items()}
            unknown = sorted((set(counts) | set(tokens)) - set(space.spaces))
            if unknown:
                raise InvalidArgumentError(f"id or token counts for {unknown}, which the observation does not have")
            parts, ignored = {}, []
            for key, sub in space.spaces.items():
                if isinstance(sub, _ARRAY_SPACES):
                    parts[key] = _ArrayEncoder(sub, counts.get(key), tokens.get(key))
                elif key in counts or key in tokens:
                    raise InvalidArgumentError(f"id or token counts for {key!r}, a {type(sub).__name__} space")
                else:
                    ignored.append(key)
            if not parts:
                raise ArgumentTypeError(f"ObsEncoder found no Box, Discrete or MultiDiscrete entry in {space}")
            self.keys, self.ignored, self._parts = tuple(parts), tuple(ignored), list(parts.values())
        elif isinstance(space, _ARRAY_SPACES):
            if isinstance(id_counts, Mapping):
                raise InvalidArgumentError(f"id counts of a {type(space).__name__} observation are a sequence, "
                                           f"got {id_counts!r}")
            self._parts = [_ArrayEncoder(space, None if id_counts is None else _counts_of(id_counts, "id_counts"))]
        else:
            raise ArgumentTypeError(f"ObsEncoder encodes Box, Discrete, MultiDiscrete and Dict observations, "
                                    f"got {space}")
        self.size = sum(part.size for part in self._parts)
        self.shape = self._parts[0].shape if self.keys is None else None  # of an array observation
        # (key, first column, length, vocabulary) of each token entry in the encoded vector.
        self.text_parts: tuple[tuple[str, int, int, int], ...] = ()
        start = 0
        for key, part in zip(self.keys or (), self._parts, strict=False):
            if part.vocabulary is not None:
                self.text_parts += ((key, start, part.size, part.vocabulary),)
            start += part.size

    @classmethod
    def from_env(cls, env: Any) -> ObsEncoder:
        """The encoder of a vector env's observations: its single observation space and its ``obs_id_counts``."""
        base = getattr(env, "unwrapped", env)
        return cls(base.single_observation_space, getattr(base, "obs_id_counts", None),
                   getattr(base, "obs_token_counts", None))

    @property
    def id_counts(self) -> IdCounts:
        """The id counts the encoder was built with (of the encoded entries)."""
        if self.keys is None:
            return self._parts[0].id_counts
        counts = {k: p.id_counts for k, p in zip(self.keys, self._parts, strict=True) if p.id_counts is not None}
        return counts or None

    @property
    def token_counts(self) -> TokenCounts:
        """The vocabulary size of each token entry the encoder was built with, or None."""
        return {key: vocabulary for key, _, _, vocabulary in self.text_parts} or None

    @property
    def encoded_space(self) -> gym.Space:
        """The space of what is encoded: ``space`` without the entries left out."""
        if self.keys is None:
            return self.space
        return gym.spaces.Dict({k: p.space for k, p in zip(self.keys, self._parts, strict=True)})

    def batch_size(self, obs: Any) -> int:
        """The number of observations in a batch."""
        if self.keys is None:
            return len(obs)
        return len(obs[self.keys[0]])

    def mismatch(self, obs: Any) -> str | None:
        """How a batch differs from the observations the encoder was built for, or None when it fits."""
        if isinstance(obs, Mapping):  # the shapes of the encoded entries only: a mission is N strings
            return self._shape_mismatch({k: tuple(np.shape(v)[1:]) if k in (self.keys or ()) else ()
                                         for k, v in obs.items()})
        return self._shape_mismatch(tuple(np.shape(obs)[1:]))

    def _shape_mismatch(self, got: tuple[int, ...] | dict[str, tuple[int, ...]]) -> str | None:
        """How observations of shape ``got`` (a dict's: ``{key: shape}``) differ from the encoder's, or None."""
        if self.keys is None:
            if isinstance(got, dict) or got != self.shape:
                text = f"a dict of {sorted(got)}" if isinstance(got, dict) else f"{got}"
                return f"observations of shape {self.shape}; this env's are {text}"
            return None
        want = {k: p.shape for k, p in zip(self.keys, self._parts, strict=True)}
        if not isinstance(got, dict):
            return f"observations {want}; this env's are arrays of shape {got}"
        shapes = {k: got[k] for k in self.keys if k in got}
        if shapes != want:
            return f"observations {want}; this env's are {shapes}"
        return None

    def space_mismatch(self, space: gym.Space, id_counts: IdCounts = None,
                       token_counts: TokenCounts = None) -> str | None:
        """How an env's single observation space differs from the one the encoder was built for, or None.

        The shapes must be those :meth:`mismatch` checks on a batch, and every encoded entry's
        values must lie within the bounds the encoder encodes (its categories' ids, where both
        declare them): an env whose observations reach further is not the one it was built for.

        Args:
            space: the env's single observation space.
            id_counts: the env's ``obs_id_counts``.
            token_counts: the env's ``obs_token_counts``.
        """
        if isinstance(space, gym.spaces.Dict):
            mismatch = self._shape_mismatch({str(k): tuple(sub.shape or ()) for k, sub in space.spaces.items()})
        else:
            mismatch = self._shape_mismatch(tuple(space.shape or ()))
        if mismatch is not None:
            return mismatch
        if self.keys is None:
            out = self._parts[0].space_mismatch(space, None if isinstance(id_counts, Mapping) else id_counts)
            return None if out is None else f"observations {out}"
        counts = id_counts if isinstance(id_counts, Mapping) else {}
        tokens = _token_counts_of(token_counts)
        for key, part in zip(self.keys, self._parts, strict=True):
            out = part.space_mismatch(cast(gym.spaces.Dict, space).spaces[key], counts.get(key))
            if out is None and key in tokens and tokens[key] != part.vocabulary:
                out = (f"tokens of a vocabulary of {part.vocabulary}" if part.vocabulary else "values, not tokens") \
                    + f"; this env's are tokens of a vocabulary of {tokens[key]}"
            if out is not None:
                return f"observations[{key!r}] {out}"
        return None

    def __call__(self, obs: Any) -> torch.Tensor:
        """A batch of observations (an array, or a dict of batched entries) as a float tensor (batch, size)."""
        if self.keys is None:
            return self._parts[0](obs)
        return torch.cat([part(obs[key]) for key, part in zip(self.keys, self._parts, strict=True)], dim=1)


_ARRAY_SPACES = (gym.spaces.Box, gym.spaces.Discrete, gym.spaces.MultiDiscrete)


def _token_counts_of(value: Any) -> dict[str, int]:
    """``{key: vocabulary size}`` from an env's ``obs_token_counts`` (None: no token entry)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f"token counts are {{key: vocabulary size}}, got {value!r}")
    out = {}
    for key, count in value.items():
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 2:
            raise InvalidArgumentError(f"token counts[{key!r}] must be a vocabulary size of at least 2, got {count!r}")
        out[str(key)] = int(count)
    return out


class TextEncoder(nn.Module):
    """Token sequences as vectors: an embedding of each token read by a GRU, its state after the last token.

    The sequences are left-aligned, 0 padding the end (a BabyAI mission's tokens,
    ``mission_format="tokens"``); the GRU reads up to the longest sequence of the batch, so
    the padding costs nothing, and a sequence of padding alone reads as zeros.

    Args:
        vocabulary: the number of token ids (0 is the padding).
        width: the GRU's state size, the width of each encoded sequence.
        embedding: the width of each token's embedding.
    """

    def __init__(self, vocabulary: int, width: int = 64, embedding: int = 32):
        super().__init__()
        self.width = int(width)
        self.embedding = nn.Embedding(int(vocabulary), int(embedding), padding_idx=0)
        self.gru = nn.GRU(int(embedding), self.width, batch_first=True)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``(batch, length)`` token ids as ``(batch, width)`` floats."""
        tokens = tokens.long()
        present = tokens != 0
        positions = torch.arange(1, tokens.shape[1] + 1, device=tokens.device)
        lengths = (present * positions).amax(dim=1) if tokens.shape[1] else present.sum(dim=1)
        longest = int(lengths.max()) if len(tokens) else 0
        if longest == 0:
            return torch.zeros(len(tokens), self.width)
        states, _ = self.gru(self.embedding(tokens[:, :longest]))
        last = states[torch.arange(len(tokens)), (lengths - 1).clamp_min(0)]
        return last * (lengths > 0).unsqueeze(1)


class Agent(nn.Module):
    """Separate actor and critic MLPs; one categorical head per action component.

    The token entries of the observation (:attr:`ObsEncoder.text_parts`: a BabyAI mission) are
    read by a :class:`TextEncoder` each, shared by the actor and the critic, whose vectors
    take the tokens' place in the MLPs' input.

    Args:
        encoder: the observations' encoder (its ``size`` is the MLPs' input width, with each
            token entry's length replaced by its text encoder's width).
        action_space: ``Discrete`` or ``MultiDiscrete`` (one head per component).
        hidden: units of each of the two tanh hidden layers.
    """

    def __init__(self, encoder: ObsEncoder, action_space: gym.Space, hidden: int):
        super().__init__()
        self.encoder = encoder
        self.action_space = action_space
        self.hidden = int(hidden)
        texts = {key: TextEncoder(vocabulary) for key, _, _, vocabulary in encoder.text_parts}
        self.text = nn.ModuleDict(texts)
        inputs = encoder.size + sum(texts[key].width - length for key, _, length, _ in encoder.text_parts)
        if isinstance(action_space, gym.spaces.Discrete):
            self.nvec = [int(action_space.n)]
        elif isinstance(action_space, gym.spaces.MultiDiscrete):
            self.nvec = [int(n) for n in action_space.nvec]
        else:
            raise ArgumentTypeError(f"Agent takes Discrete or MultiDiscrete actions, got {action_space}")

        def mlp(out: int, gain: float) -> nn.Sequential:
            head = nn.Linear(hidden, out)
            layers = [nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), head]
            for layer in layers:
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, math.sqrt(2))
                    nn.init.zeros_(layer.bias)
            nn.init.orthogonal_(head.weight, gain)
            return nn.Sequential(*layers)

        self.actor = mlp(sum(self.nvec), 0.01)
        self.critic = mlp(1, 1.0)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The MLPs' input from encoded observations: each token entry's columns read by its text encoder."""
        if not self.encoder.text_parts:
            return x
        pieces, column = [], 0
        for key, start, length, _ in self.encoder.text_parts:
            pieces += [x[:, column:start], self.text[key](x[:, start:start + length])]
            column = start + length
        pieces.append(x[:, column:])
        return torch.cat(pieces, dim=1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """The critic's value of encoded observations."""
        return self.critic(self.features(x)).squeeze(-1)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """The actor's logits (every action component's, concatenated) of encoded observations."""
        return self.actor(self.features(x))

    def dists(self, x: torch.Tensor, mask: torch.Tensor | None, features: torch.Tensor | None = None):
        """One categorical per action component; invalid actions (``mask`` False) get no mass."""
        logits = self.actor(self.features(x) if features is None else features)
        if mask is not None:  # True = valid
            logits = logits.masked_fill(~mask, -1e8)
        return [torch.distributions.Categorical(logits=part) for part in torch.split(logits, self.nvec, dim=-1)]

    def act(self, x, mask=None, action=None):
        """Sample (or score ``action``): returns action, log-prob, entropy, value."""
        features = self.features(x)  # once: the text encoders are shared by actor and critic
        dists = self.dists(x, mask, features)
        if action is None:
            action = torch.stack([d.sample() for d in dists], dim=-1)
        logp = torch.stack([d.log_prob(action[:, k]) for k, d in enumerate(dists)], dim=-1).sum(-1)
        entropy = torch.stack([d.entropy() for d in dists], dim=-1).sum(-1)
        return action, logp, entropy, self.critic(features).squeeze(-1)

    @torch.no_grad()
    def greedy(self, obs: Any, infos: Mapping[str, Any] | None = None) -> np.ndarray:
        """The greedy policy on a batch of observations (an array or a dict), as ``gridsim.evaluate`` calls it."""
        mask = valid_mask(infos, self.encoder.batch_size(obs), sum(self.nvec))
        logits = self.logits(self.encoder(obs))
        if mask is not None:
            logits = logits.masked_fill(~mask, -1e8)
        acts = torch.stack([part.argmax(-1) for part in torch.split(logits, self.nvec, dim=-1)], dim=-1)
        out = acts.numpy().astype(np.int64)
        return out[:, 0] if len(self.nvec) == 1 else out


class SampledPolicy:
    """An :class:`Agent`'s stochastic policy: each action drawn from its categoricals, as in training.

    Under :func:`gridsim.evaluate`, whose infos carry each row's ``episode_seed`` and
    ``episode_step``, a row's draw is a hash of ``seed`` and those two numbers
    (:func:`gridsim.tools.draws.episode_uniform`, inverted through the row's probabilities),
    so an evaluation plays the same episodes whatever ``num_envs``, like :class:`RandomPolicy`.
    Called without them, the draws come from a torch generator of its own, seeded here; the
    global torch stream is left alone either way.

    Args:
        agent: the network.
        seed: the seed of the draws.
    """

    def __init__(self, agent: Agent, seed: int = 0):
        self.agent = agent
        self.seed = int(seed)
        self.generator = torch.Generator().manual_seed(self.seed)

    def __repr__(self) -> str:
        return "sampled"

    @torch.no_grad()
    def __call__(self, obs: Any, infos: Mapping[str, Any] | None = None) -> np.ndarray:
        """Sampled actions of a batch (an array, or one row per action component for MultiDiscrete)."""
        agent = self.agent
        mask = valid_mask(infos, agent.encoder.batch_size(obs), sum(agent.nvec))
        logits = agent.logits(agent.encoder(obs))
        if mask is not None:
            logits = logits.masked_fill(~mask, -1e8)
        parts = torch.split(logits, agent.nvec, dim=-1)
        if infos is not None and "episode_seed" in infos and "episode_step" in infos:
            u = episode_uniform(self.seed, infos, len(parts))
            picks = [_inverse_cdf(part.double().softmax(-1).numpy(), u[:, k]) for k, part in enumerate(parts)]
        else:
            picks = [torch.multinomial(part.softmax(-1), 1, generator=self.generator)[:, 0].numpy()
                     for part in parts]
        out = np.stack(picks, axis=-1).astype(np.int64)
        return out[:, 0] if len(agent.nvec) == 1 else out


def _inverse_cdf(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each row's category whose cumulative probability interval holds ``u`` (never one of probability 0)."""
    cdf = np.cumsum(probs, axis=1)
    picks = (cdf <= (u * cdf[:, -1])[:, None]).sum(axis=1)
    last = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)  # u * total rounds up: the last possible
    return np.minimum(picks, last)


def valid_mask(infos: Mapping[str, Any] | None, n: int, width: int) -> torch.Tensor | None:
    """``infos["action_mask"]`` (1 = masked out) as a bool tensor, True = valid."""
    if not infos or "action_mask" not in infos:
        return None
    mask = torch.as_tensor(np.asarray(infos["action_mask"]) == 0).reshape(n, -1)
    return mask if mask.shape[1] == width else None


# ------------------------------------------------------------------ checkpoints


def _space_entry(space: gym.Space) -> dict[str, Any]:
    """A Box, Discrete, MultiDiscrete or Dict space as tensors, numbers and strings."""
    if isinstance(space, gym.spaces.Dict):
        return {"type": "Dict", "spaces": {str(k): _space_entry(sub) for k, sub in space.spaces.items()}}
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
    if kind == "Dict":
        return gym.spaces.Dict({str(k): _space_from_entry(sub, where) for k, sub in entry["spaces"].items()})
    raise InvalidStateError(f"{where}: unknown space type {kind!r}", field="space")


def _id_counts_entry(counts: IdCounts) -> list[int] | dict[str, list[int]] | None:
    if counts is None:
        return None
    if isinstance(counts, Mapping):
        return {str(k): [int(c) for c in v] for k, v in counts.items()}
    return [int(c) for c in counts]


def _id_counts_from_entry(entry: Any) -> IdCounts:
    if entry is None:
        return None
    if isinstance(entry, Mapping):
        return {str(k): tuple(int(c) for c in v) for k, v in entry.items()}
    return tuple(int(c) for c in entry)


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
        "observation_space": _space_entry(agent.encoder.encoded_space),
        "obs_id_counts": _id_counts_entry(agent.encoder.id_counts),
        "obs_token_counts": agent.encoder.token_counts,
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
        id_counts = getattr(envs.unwrapped, "obs_id_counts", None)
    finally:
        envs.close()
    agent = Agent(ObsEncoder(obs_space, id_counts), action_space, int(args["hidden"]))
    agent.load_state_dict(checkpoint["model"])
    return agent


def agent_from_checkpoint(checkpoint: Mapping[str, Any], where: str = "<checkpoint>") -> Agent:
    """The :class:`Agent` of a loaded checkpoint dict, its weights restored, in eval mode.

    Raises:
        gridsim.InvalidStateError: not a checkpoint of :func:`save_agent`, another format
            version, entries that do not fit the network, or weights that hold NaN or infinity.
    """
    if not is_agent_checkpoint(checkpoint):
        raise InvalidStateError(f"{where} is not a {CHECKPOINT_FORMAT} checkpoint", field="format")
    if checkpoint.get("format") != CHECKPOINT_FORMAT:
        try:
            agent = _ppo_args_agent(checkpoint)
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:
            if isinstance(e, GridSimError):  # the env its arguments name does not load here
                raise
            raise InvalidStateError(f"{where}: a damaged checkpoint of examples/ppo.py ({type(e).__name__}: "
                                    f"{str(e).splitlines()[0] if str(e) else ''})", field="model") from e
    else:
        agent = _format_agent(checkpoint, where)
    _check_finite(agent, where)
    return agent.eval()


def _format_agent(checkpoint: Mapping[str, Any], where: str) -> Agent:
    """The :class:`Agent` of a checkpoint of :func:`save_agent` (see :func:`agent_from_checkpoint`)."""
    version = checkpoint.get("format_version")
    if version != CHECKPOINT_VERSION:
        raise InvalidStateError(f"{where}: checkpoint format version {version!r}; this gridsim reads version "
                                f"{CHECKPOINT_VERSION}", field="format_version")
    try:
        obs_space = _space_from_entry(checkpoint["observation_space"], where)
        action_space = _space_from_entry(checkpoint["action_space"], where)
        encoder = ObsEncoder(obs_space, _id_counts_from_entry(checkpoint.get("obs_id_counts")),
                             checkpoint.get("obs_token_counts"))
        agent = Agent(encoder, action_space, int(checkpoint["hidden"]))
        agent.load_state_dict(checkpoint["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:  # RuntimeError: shapes
        if isinstance(e, InvalidStateError):  # already names the entry
            raise
        raise InvalidStateError(f"{where}: a damaged {CHECKPOINT_FORMAT} checkpoint ({type(e).__name__}: "
                                f"{str(e).splitlines()[0] if str(e) else ''})", field="state_dict") from e
    return agent


def _check_finite(agent: Agent, where: str) -> None:
    """Refuse weights that hold NaN or infinity: the network of a run that diverged plays action 0 whatever it sees."""
    for name, weights in agent.state_dict().items():
        if weights.is_floating_point() and not bool(torch.isfinite(weights).all()):
            raise InvalidStateError(f"{where}: non-finite weights (NaN or infinity) in {name}: the training run "
                                    "diverged, and its network would play action 0 whatever it sees",
                                    field="state_dict")


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
    """The policy of an :class:`Agent` loaded from a file, named after the file in results.

    Args:
        agent: the network.
        path: the file it was loaded from (its name in results).
        sample_seed: None for the greedy policy (the most likely action); a seed for the
            sampled one (:class:`SampledPolicy`, actions drawn as in training).
    """

    def __init__(self, agent: Agent, path: str | os.PathLike, sample_seed: int | None = None):
        self.agent = agent
        self.path = os.fspath(path)
        self.sample_seed = sample_seed
        self._act = agent.greedy if sample_seed is None else SampledPolicy(agent, sample_seed)

    def __repr__(self) -> str:
        return f"{self.path} ({'greedy' if self.sample_seed is None else 'sampled'})"

    def sampled(self, seed: int) -> CheckpointPolicy:
        """The same network's sampled policy, its draws seeded with ``seed``."""
        return CheckpointPolicy(self.agent, self.path, sample_seed=seed)

    def __call__(self, obs: Any, infos: Mapping[str, Any]) -> np.ndarray:
        """The actions of a batch; ``infos["action_mask"]`` masks them where given.

        Raises:
            gridsim.InvalidArgumentError: the env's observations are not of the shapes the
                network was trained on (another env, or other env arguments).
        """
        mismatch = self.agent.encoder.mismatch(obs)
        if mismatch is not None:
            raise _trained_elsewhere(self.path, mismatch)
        return self._act(obs, infos)


def _trained_elsewhere(name: str, mismatch: str) -> InvalidArgumentError:
    """The refusal of an env whose spaces are not those the network ``name`` was trained on."""
    return InvalidArgumentError(f"{name} was trained on {mismatch} (another env, or other env arguments)")


def env_mismatch(agent: Agent, env: Any) -> str | None:
    """How a vector env's spaces differ from those ``agent`` was trained on, or None when they fit.

    The observations must be of the shapes the encoder takes, with values within the bounds it
    encodes (:meth:`ObsEncoder.space_mismatch`), and the action spaces must be equal.
    """
    base = getattr(env, "unwrapped", env)
    mismatch = agent.encoder.space_mismatch(base.single_observation_space, getattr(base, "obs_id_counts", None),
                                            getattr(base, "obs_token_counts", None))
    space = base.single_action_space
    if mismatch is None and (not isinstance(space, (gym.spaces.Discrete, gym.spaces.MultiDiscrete))
                             or _space_entry(space) != _space_entry(agent.action_space)):
        mismatch = f"actions {agent.action_space}; this env's are {space}"
    return mismatch


def check_policy_env(policy: Any, env: Any, name: str) -> None:
    """Refuse ``env`` before any episode when the network behind ``policy`` was trained on other spaces.

    A checkpoint's policy (:class:`CheckpointPolicy`, greedy or sampled), a :class:`SampledPolicy`
    and an :class:`Agent`'s ``greedy`` have a network whose spaces are known; other policies
    are left alone. :func:`gridsim.evaluate` and ``gridsim render`` call it before the env is reset.

    Args:
        policy: the policy as given.
        env: the vector env it is to play.
        name: the policy's name in the message (a checkpoint's is its file).

    Raises:
        gridsim.InvalidArgumentError: another action space; observations of other shapes, or
            whose values reach beyond those the network encodes.
    """
    if isinstance(policy, CheckpointPolicy):
        agent, name = policy.agent, policy.path
    elif isinstance(policy, SampledPolicy):
        agent = policy.agent
    elif isinstance(getattr(policy, "__self__", None), Agent):  # agent.greedy
        agent = policy.__self__
    else:
        return
    mismatch = env_mismatch(agent, env)
    if mismatch is not None:
        raise _trained_elsewhere(name, mismatch)
