"""Minigrid's wrappers for a batch: each does to every env of a MiniGrid vector env what Minigrid's does to one.

Minigrid's own wrappers (``minigrid.wrappers``) work on the single env
(``gym.make("gridsim/MiniGrid-...")``) as they are. A batch (``gym.make_vec(...,
vectorization_mode="vector_entry_point")``) gets each one's effect from a constructor argument
(``obs_type``, ``agent_view_size``) or from a wrapper here, so that it equals
``gymnasium.vector.SyncVectorEnv`` of the wrapped Minigrid envs (env i seeded s + i), step for
step; ``docs/minigrid.md`` has the table of each wrapper's equivalent. Gymnasium's
``StickyAction`` (which has no vector version) is :class:`StickyActions`. The
wrappers that draw (:class:`StochasticActions`, :class:`StickyActions`) draw from each env's own
stream, as their originals draw from each env's ``np_random`` (``MinigridVectorEnv.env_random``).
Those that read the world after a step (the observation wrappers, the bonuses, :class:`NoDeath`)
take the ``NextStep`` and ``Disabled`` autoreset modes, as Gymnasium's vector observation
wrappers do: under ``SameStep`` an ended env's state is already its next episode's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import logger
from gymnasium.vector import AutoresetMode, VectorEnv, VectorObservationWrapper, VectorWrapper
from gymnasium.vector.utils import batch_space

from gridsim.errors import ArgumentTypeError, InvalidArgumentError
from gridsim.minigrid.env import MinigridVectorEnv
from gridsim.minigrid.world import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX, Actions

__all__ = ["MINIGRID_WORDS", "ActionBonus", "DictObservationSpace", "DirectionObs", "FlatObs", "NoDeath",
           "OneHotPartialObs", "PositionBonus", "Reseed", "StickyActions", "StochasticActions", "SymbolicObs"]

EMPTY, GOAL, AGENT = OBJECT_TO_IDX["empty"], OBJECT_TO_IDX["goal"], OBJECT_TO_IDX["agent"]
DIR_DX = np.array([1, 0, -1, 0])
DIR_DY = np.array([0, 1, 0, -1])
# DictObservationSpaceWrapper.get_minigrid_words: each word's index (its mission index is one more).
MINIGRID_WORDS = {word: k for k, word in enumerate(
    ["red", "green", "blue", "yellow", "purple", "grey"]
    + ["unseen", "empty", "wall", "floor", "box", "key", "ball", "door", "goal", "agent", "lava"]
    + ["pick", "avoid", "get", "find", "put", "use", "open", "go", "fetch", "reach", "unlock", "traverse"]
    + ["up", "the", "a", "at", ",", "square", "and", "then", "to", "of", "rooms", "near", "opening", "must", "you",
       "matching", "end", "hallway", "object", "from", "room", "maze"])}


def minigrid_batch(env: VectorEnv) -> MinigridVectorEnv:
    """The MiniGrid vector env under ``env``'s wrappers.

    Raises:
        ArgumentTypeError: ``env`` is no MiniGrid batch.
    """
    base = env.unwrapped
    if not isinstance(base, MinigridVectorEnv):
        raise ArgumentTypeError(f"a gridsim MiniGrid vector env is needed, got {type(base).__name__}")
    return base


def _after_step_only(env: VectorEnv, name: str) -> None:
    # The state these read after a step is an ended env's final one under NextStep and Disabled only.
    if env.metadata.get("autoreset_mode") is AutoresetMode.SAME_STEP:
        raise InvalidArgumentError(f"{name} reads each env's world after its step, which under SameStep autoreset "
                                   "is already its next episode's: use autoreset_mode NextStep or Disabled")


def _stepped(base: MinigridVectorEnv) -> np.ndarray:
    """The envs the next step steps, bool (N,): under NextStep, not those it resets instead."""
    if base.autoreset_mode is AutoresetMode.NEXT_STEP:
        return ~base.state.needs_reset.astype(bool)
    return np.ones(base.num_envs, bool)


def _reset_rows(base: MinigridVectorEnv, options: dict[str, Any] | None) -> np.ndarray:
    """The rows a reset with ``options`` resets."""
    mask = (options or {}).get("reset_mask")
    return np.arange(base.num_envs) if mask is None else np.flatnonzero(mask)


def _ended_after(base: MinigridVectorEnv, stepped: np.ndarray, terminated: np.ndarray,
                 truncated: np.ndarray) -> np.ndarray:
    """The envs the step started a new episode of, bool (N,): NextStep, those it reset; SameStep, those it ended."""
    if base.autoreset_mode is AutoresetMode.NEXT_STEP:
        return ~stepped
    if base.autoreset_mode is AutoresetMode.SAME_STEP:
        return np.asarray(terminated) | np.asarray(truncated)
    return np.zeros(base.num_envs, bool)


# ---------------------------------------------------------------- actions


class StochasticActions(VectorWrapper):
    """Minigrid's ``StochasticActionWrapper`` on every env: with probability ``1 - prob`` a random action.

    Each env stepped draws ``random()`` from its own stream, and where it is not below ``prob``
    ``integers(n)`` (or takes ``random_action``), as the wrapper draws from each env's
    ``np_random``; envs an autoreset resets draw nothing, as in ``SyncVectorEnv``.

    Args:
        env: a MiniGrid batch (wrapped or not).
        prob: the probability of keeping the action.
        random_action: the action taken instead (None: one drawn uniformly).
    """

    def __init__(self, env: VectorEnv, prob: float = 0.9, random_action: int | None = None):
        super().__init__(env)
        self.base = minigrid_batch(env)
        self.prob = prob
        self.random_action = random_action

    def step(self, actions: Any):
        """Step with each env's action, or its random one."""
        base = self.base
        actions = np.array(actions, dtype=np.int64, copy=True)
        acting = np.flatnonzero(_stepped(base))
        if len(acting):
            swapped = acting[~(base.env_random(acting) < self.prob)]
            if len(swapped):
                actions[swapped] = (base.env_integers(0, base.spec_row.num_actions, swapped)
                                    if self.random_action is None else self.random_action)
        return self.env.step(actions)


class StickyActions(VectorWrapper):
    """Gymnasium's ``StickyAction`` on every env: with probability ``p`` the last action again, for a drawn duration.

    Each env keeps its own state and draws from its own stream, as ``SyncVectorEnv`` of
    ``StickyAction`` envs does from each env's ``np_random``; an env that starts a new episode
    forgets its last action.

    Args:
        env: a MiniGrid batch (wrapped or not).
        repeat_action_probability: the probability of repeating the last action (0 <= p < 1).
        repeat_action_duration: the number of steps a repeat lasts, or ``(low, high)`` to draw it.
    """

    def __init__(self, env: VectorEnv, repeat_action_probability: float,
                 repeat_action_duration: int | tuple[int, int] = 1):
        super().__init__(env)
        self.base = minigrid_batch(env)
        if not 0 <= repeat_action_probability < 1:
            raise InvalidArgumentError(f"repeat_action_probability must be in [0, 1), got {repeat_action_probability}")
        low_high = ((repeat_action_duration, repeat_action_duration) if isinstance(repeat_action_duration, int)
                    else tuple(repeat_action_duration))
        if len(low_high) != 2 or not 1 <= low_high[0] <= low_high[1]:
            raise InvalidArgumentError(f"repeat_action_duration must be at least 1, or (low, high) with "
                                       f"1 <= low <= high, got {repeat_action_duration!r}")
        self.repeat_action_probability = repeat_action_probability
        self.repeat_action_duration_range = (int(low_high[0]), int(low_high[1]))
        N = self.base.num_envs
        self.last_action = np.zeros(N, np.int64)
        self.has_last_action = np.zeros(N, bool)
        self.is_sticky_actions = np.zeros(N, bool)
        self.num_repeats = np.zeros(N, np.int64)
        self.repeats_taken = np.zeros(N, np.int64)

    def _forget(self, rows: np.ndarray) -> None:
        self.has_last_action[rows] = False
        self.is_sticky_actions[rows] = False
        self.num_repeats[rows] = 0
        self.repeats_taken[rows] = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None):
        """Reset, forgetting the reset envs' last actions."""
        out = self.env.reset(seed=seed, options=options)
        self._forget(_reset_rows(self.base, options))
        return out

    def step(self, actions: Any):
        """Step with each env's action or its last one."""
        base = self.base
        actions = np.array(actions, dtype=np.int64, copy=True)
        stepped = _stepped(base)
        asks = stepped & ~self.is_sticky_actions & self.has_last_action  # draws uniform()
        starts = stepped & self.is_sticky_actions
        rows = np.flatnonzero(asks)
        if len(rows):
            starts[rows[base.env_random(rows) < self.repeat_action_probability]] = True
        draw = np.flatnonzero(starts & (self.num_repeats == 0))
        if len(draw):
            low, high = self.repeat_action_duration_range
            self.num_repeats[draw] = base.env_integers(low, high + 1, draw)
        actions[starts] = self.last_action[starts]
        self.is_sticky_actions |= starts
        self.repeats_taken[starts] += 1
        done = stepped & self.is_sticky_actions & (self.num_repeats == self.repeats_taken)
        self.is_sticky_actions[done] = False
        self.num_repeats[done] = 0
        self.repeats_taken[done] = 0
        self.last_action[stepped] = actions[stepped]
        self.has_last_action |= stepped
        out = self.env.step(actions)
        self._forget(np.flatnonzero(_ended_after(base, stepped, out[2], out[3])))
        return out


class Reseed(VectorWrapper):
    """Minigrid's ``ReseedWrapper`` on every env: each reset, autoresets included, takes the next of ``seeds``.

    Each env goes through ``seeds`` on its own, from ``seed_idx``; a seed given to ``reset`` is
    ignored (with Minigrid's warning).

    Args:
        env: a MiniGrid batch (wrapped or not).
        seeds: the seeds, in turn.
        seed_idx: the index of each env's first seed.
    """

    def __init__(self, env: VectorEnv, seeds: Sequence[int] = (0,), seed_idx: int = 0):
        super().__init__(env)
        self.base = minigrid_batch(env)
        self.seeds = list(seeds)
        self.seed_idx = np.full(self.base.num_envs, seed_idx, np.int64)

    def _queue(self, rows: np.ndarray) -> None:
        # The next seed of each of these envs, for its next episode (an autoreset's, in the kernel).
        seeds: list[int | None] = [None] * self.base.num_envs
        for i in rows.tolist():
            seeds[i] = self.seeds[self.seed_idx[i]]
        self.base.seed_next_episodes(seeds)

    def _take(self, rows: np.ndarray) -> None:
        self.seed_idx[rows] = (self.seed_idx[rows] + 1) % len(self.seeds)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None):
        """Reset the envs with their next seeds."""
        if seed is not None:
            logger.warn("A seed has been passed to `ReseedWrapper.reset` which is ignored.")
        rows = _reset_rows(self.base, options)
        seeds: list[int | None] = [None] * self.base.num_envs
        for i in rows.tolist():
            seeds[i] = self.seeds[self.seed_idx[i]]
        out = self.env.reset(seed=seeds, options=options)  # type: ignore[arg-type]  # a batch takes a seed per env
        self._take(rows)
        self._queue(rows)
        return out

    def step(self, actions: Any):
        """Step; the envs an autoreset restarts took their next seeds."""
        stepped = _stepped(self.base)
        out = self.env.step(actions)
        rows = np.flatnonzero(_ended_after(self.base, stepped, out[2], out[3]))
        if len(rows):
            self._take(rows)
            self._queue(rows)
        return out


# ---------------------------------------------------------------- rewards and ends


class _CountingBonus(VectorWrapper):
    """A bonus ``scale / sqrt(count)`` added to the reward of each env stepped, counting what its ``key`` picks."""

    scale: float = 1

    def __init__(self, env: VectorEnv, shape: tuple[int, ...]):
        super().__init__(env)
        self.base = minigrid_batch(env)
        _after_step_only(env, type(self).__name__)
        self.counts = np.zeros((self.base.num_envs, *shape), np.int64)

    def _key(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        raise NotImplementedError

    def step(self, actions: Any):
        """Step, and add each stepped env's bonus."""
        stepped = np.flatnonzero(_stepped(self.base))
        actions = np.asarray(actions)
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        at = (stepped, *self._key(stepped, actions[stepped]))
        self.counts[at] += 1
        rewards = np.array(rewards, np.float64)
        rewards[stepped] += (1 / np.sqrt(self.counts[at])) * self.scale  # * 1 is exact: ActionBonus's own bonus
        return obs, rewards, terminated, truncated, infos


class ActionBonus(_CountingBonus):
    """Minigrid's ``ActionBonus`` on every env: ``1 / sqrt(n)`` for the n-th time of (position, direction, action).

    Counts are each env's own and are kept across episodes (N x W x H x 4 x 7 int64 counts).

    Args:
        env: a MiniGrid batch (wrapped or not), autoreset ``NextStep`` or ``Disabled``.
    """

    def __init__(self, env: VectorEnv):
        base = minigrid_batch(env)
        super().__init__(env, (base.spec_row.width, base.spec_row.height, 4, len(Actions)))

    def _key(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        agent = self.base.state.agent[rows]
        return agent[:, 0], agent[:, 1], agent[:, 2], actions


class PositionBonus(_CountingBonus):
    """Minigrid's ``PositionBonus`` on every env: ``scale / sqrt(n)`` for the n-th visit of a cell after a step.

    Args:
        env: a MiniGrid batch (wrapped or not), autoreset ``NextStep`` or ``Disabled``.
        scale: the bonus's factor.
    """

    def __init__(self, env: VectorEnv, scale: float = 1):
        base = minigrid_batch(env)
        super().__init__(env, (base.spec_row.width, base.spec_row.height))
        self.scale = scale

    def _key(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        agent = self.base.state.agent[rows]
        return agent[:, 0], agent[:, 1]


class NoDeath(VectorWrapper):
    """Minigrid's ``NoDeath`` on every env: an end in a cell of ``no_death_types`` costs ``death_cost`` instead.

    An env that walked into such a cell (or stands in one) when its step terminated goes on: its
    ``terminated`` is False, its reward has ``death_cost`` added, and the batch does not reset it
    (its episode statistics do not count an end).

    Args:
        env: a MiniGrid batch (wrapped or not), autoreset ``NextStep`` or ``Disabled``.
        no_death_types: the object names of the cells (``("lava",)``, ``("ball",)``).
        death_cost: the reward added instead of the end.
    """

    def __init__(self, env: VectorEnv, no_death_types: tuple[str, ...], death_cost: float = -1.0):
        if "goal" in no_death_types:
            raise InvalidArgumentError("goal cannot be a death cell")
        super().__init__(env)
        self.base = minigrid_batch(env)
        _after_step_only(env, "NoDeath")
        unknown = [t for t in no_death_types if t not in OBJECT_TO_IDX]
        if unknown:
            raise InvalidArgumentError(f"unknown object types {unknown}; Minigrid's are {list(OBJECT_TO_IDX)}")
        self.no_death_types = no_death_types
        self.death_cost = death_cost
        self._deadly = np.array([OBJECT_TO_IDX[t] for t in no_death_types], np.uint8)

    def _deadly_at(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        grid = self.base.state.grid
        H, W = grid.shape[1:3]
        inside = (x >= 0) & (x < W) & (y >= 0) & (y < H)
        cells = grid[np.arange(len(x)), np.clip(y, 0, H - 1), np.clip(x, 0, W - 1), 0]
        return inside & np.isin(cells, self._deadly)

    def step(self, actions: Any):
        """Step; the ends in deadly cells become ``death_cost``."""
        base = self.base
        st = base.state
        stepped = _stepped(base)
        agent = st.agent
        actions = np.asarray(actions)
        # Dynamic-Obstacles' balls move after the agent: the cell ahead is read before the step.
        d = agent[:, 2] & 3
        going = (actions == Actions.forward) & self._deadly_at(agent[:, 0] + DIR_DX[d], agent[:, 1] + DIR_DY[d])
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        in_death = self._deadly_at(agent[:, 0], agent[:, 1])
        spared = stepped & np.asarray(terminated) & (going | in_death)
        if not spared.any():
            return obs, rewards, terminated, truncated, infos
        rewards = np.array(rewards, np.float64)
        terminated = np.array(terminated, copy=True)
        rewards[spared] += self.death_cost
        terminated[spared] = False
        goes_on = spared & ~np.asarray(truncated)
        base.continue_episodes(goes_on)
        ended = infos.get("_episode_stats")
        if ended is not None:
            ended[goes_on] = False  # one array for every statistic's mask
        return obs, rewards, terminated, truncated, infos


# ---------------------------------------------------------------- observations


class _DictObservation(VectorObservationWrapper):
    """An observation wrapper of a batch with Minigrid's dict observation (``obs_type`` ``"dict"`` or ``"full"``)."""

    reads_missions = False  # it needs the missions as strings (mission_format "str")

    def __init__(self, env: VectorEnv):
        # Gymnasium's vector observation wrappers take NextStep and Disabled only (1.1 asserts it
        # bare, 1.2 raises): refused here first, in one line, whatever the release.
        if env.metadata.get("autoreset_mode") is AutoresetMode.SAME_STEP:
            raise InvalidArgumentError(f"{type(self).__name__} is a vector observation wrapper, which Gymnasium "
                                       "allows under NextStep and Disabled autoreset only: use autoreset_mode "
                                       "NextStep or Disabled")
        super().__init__(env)
        self.base = minigrid_batch(env)
        if not isinstance(env.single_observation_space, gym.spaces.Dict):
            raise InvalidArgumentError(f"{type(self).__name__} takes Minigrid's dict observation "
                                       "(obs_type 'dict' or 'full')")
        if self.reads_missions and self.base.mission_format != "str":
            raise InvalidArgumentError(f"{type(self).__name__} reads the missions' words: mission_format must be 'str'")

    def _spaces(self, **changed: gym.spaces.Space) -> None:
        """Set the single and batched spaces: the env's with ``changed`` entries."""
        N = self.base.num_envs
        single, batched = self.env.single_observation_space, self.env.observation_space
        assert isinstance(single, gym.spaces.Dict) and isinstance(batched, gym.spaces.Dict)
        self.single_observation_space = gym.spaces.Dict({**single.spaces, **changed})
        self.observation_space = gym.spaces.Dict(
            {**batched.spaces, **{k: batch_space(v, N) for k, v in changed.items()}})


class OneHotPartialObs(_DictObservation):
    """Minigrid's ``OneHotPartialObsWrapper`` on every env: each view cell one-hot (object, colour, state).

    Args:
        env: a MiniGrid batch with the dict observation.
        tile_size: kept, as Minigrid's wrapper keeps it (it draws nothing).
    """

    def __init__(self, env: VectorEnv, tile_size: int = 8):
        super().__init__(env)
        self.tile_size = tile_size
        V = self.base.agent_view_size
        bits = len(OBJECT_TO_IDX) + len(COLOR_TO_IDX) + len(STATE_TO_IDX)
        self._spaces(image=gym.spaces.Box(0, 255, (V, V, bits), np.uint8))

    def observations(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The images one-hot."""
        image = np.asarray(observations["image"]).astype(np.intp)
        bits = len(OBJECT_TO_IDX) + len(COLOR_TO_IDX) + len(STATE_TO_IDX)
        out = np.zeros((*image.shape[:-1], bits), np.uint8)
        offsets = np.array([0, len(OBJECT_TO_IDX), len(OBJECT_TO_IDX) + len(COLOR_TO_IDX)])
        np.put_along_axis(out, image + offsets, 1, axis=-1)
        return {**observations, "image": out}


class FlatObs(_DictObservation):
    """Minigrid's ``FlatObsWrapper`` on every env: the image and the mission's letters one-hot, in one uint8 vector.

    Args:
        env: a MiniGrid batch with the dict observation and string missions.
        maxStrLen: the mission's letters kept (Minigrid's argument name).
    """

    num_char_codes = 28  # a..z, space, comma
    reads_missions = True

    def __init__(self, env: VectorEnv, maxStrLen: int = 96):  # noqa: N803 - Minigrid's argument
        super().__init__(env)
        self.maxStrLen = maxStrLen
        image_size = int(np.prod(self.base.single_observation_space["image"].shape))  # type: ignore[index]
        self.single_observation_space = gym.spaces.Box(0, 255, (image_size + self.num_char_codes * maxStrLen,),
                                                       np.uint8)
        self.observation_space = batch_space(self.single_observation_space, self.base.num_envs)
        self._letters: dict[str, np.ndarray] = {}

    def _mission_bits(self, mission: str) -> np.ndarray:
        bits = self._letters.get(mission)
        if bits is None:
            if len(mission) > self.maxStrLen:
                raise InvalidArgumentError(f"mission string too long ({len(mission)} chars)")
            bits = np.zeros((self.maxStrLen, self.num_char_codes), np.uint8)
            for k, ch in enumerate(mission.lower()):
                if "a" <= ch <= "z":
                    bits[k, ord(ch) - ord("a")] = 1
                elif ch in " ,":
                    bits[k, 26 + (ch == ",")] = 1
                else:
                    raise InvalidArgumentError(f"Character {ch} is not available in mission string.")
            self._letters[mission] = bits = bits.reshape(-1)
        return bits

    def observations(self, observations: dict[str, Any]) -> np.ndarray:
        """The flat vectors."""
        images = np.asarray(observations["image"])
        letters = np.stack([self._mission_bits(m) for m in observations["mission"]])
        return np.concatenate([images.reshape(len(images), -1), letters], axis=1)


class DictObservationSpace(_DictObservation):
    """Minigrid's ``DictObservationSpaceWrapper`` on every env: the mission as word indices (1-based; 0 pads).

    Args:
        env: a MiniGrid batch with the dict observation and string missions.
        max_words_in_mission: the length of the mission's array.
        word_dict: word -> index (None: Minigrid's words, :data:`MINIGRID_WORDS`).
    """

    reads_missions = True

    def __init__(self, env: VectorEnv, max_words_in_mission: int = 50, word_dict: dict[str, int] | None = None):
        super().__init__(env)
        self.max_words_in_mission = max_words_in_mission
        self.word_dict = dict(MINIGRID_WORDS) if word_dict is None else word_dict
        self._spaces(mission=gym.spaces.MultiDiscrete([len(self.word_dict) + 1] * max_words_in_mission),
                     direction=gym.spaces.Discrete(4))
        self._indices: dict[str, np.ndarray] = {}

    def _words(self, mission: str) -> np.ndarray:
        out = self._indices.get(mission)
        if out is None:
            words = mission.replace(",", " , ").split()
            unknown = [w for w in words if w not in self.word_dict]
            if unknown:
                raise InvalidArgumentError(f"Unknown word: {unknown[0]}")
            if len(words) >= self.max_words_in_mission:
                raise InvalidArgumentError(f"a mission of {len(words)} words; max_words_in_mission is "
                                           f"{self.max_words_in_mission}")
            out = np.zeros(self.max_words_in_mission, np.int64)
            out[:len(words)] = [self.word_dict[w] + 1 for w in words]
            self._indices[mission] = out
        return out

    def observations(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The missions as word indices, (N, max_words_in_mission) int64."""
        return {**observations, "mission": np.stack([self._words(m) for m in observations["mission"]])}


class DirectionObs(_DictObservation):
    """Minigrid's ``DirectionObsWrapper`` on every env: ``goal_direction``, from the agent to its env's goal.

    The goal is the first in row-major order, found at each reset (autoresets included); a
    reset env without one raises ``ValueError``, as Minigrid's wrapper does.

    Args:
        env: a MiniGrid batch with the dict observation.
        type: ``"slope"`` (dy / dx), ``"angle"`` (its arctan) or ``"angle_atan2"``.
    """

    def __init__(self, env: VectorEnv, type: str = "slope"):  # noqa: A002 - Minigrid's argument
        super().__init__(env)
        self.type = type
        bound = {"angle": np.pi / 2, "angle_atan2": np.pi}.get(type, np.inf)
        self._spaces(goal_direction=gym.spaces.Box(-bound, bound, (), np.float64))
        self.goal_position = np.zeros((self.base.num_envs, 2), np.int64)

    def _find_goals(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        st = self.base.state
        W = self.base.spec_row.width
        is_goal = (st.grid[rows, :, :, 0] == GOAL).reshape(len(rows), -1)
        if not is_goal.any(axis=1).all():
            raise ValueError("DirectionObsWrapper requires an environment with a Goal object.")
        first = is_goal.argmax(axis=1)
        self.goal_position[rows, 0] = first % W
        self.goal_position[rows, 1] = first // W

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None):
        """Reset, finding the reset envs' goals."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self._find_goals(_reset_rows(self.base, options))
        return self.observations(observations), infos

    def step(self, actions: Any):
        """Step, finding the goals of the envs an autoreset restarted."""
        stepped = _stepped(self.base)
        observations, rewards, terminated, truncated, infos = self.env.step(actions)
        self._find_goals(np.flatnonzero(_ended_after(self.base, stepped, terminated, truncated)))
        return self.observations(observations), rewards, terminated, truncated, infos

    def observations(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The observations with ``goal_direction``, float64 (N,)."""
        agent = self.base.state.agent
        dx = self.goal_position[:, 0] - agent[:, 0].astype(np.int64)
        dy = self.goal_position[:, 1] - agent[:, 1].astype(np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.type == "angle_atan2":
                direction = np.arctan2(dy, dx)
            else:
                direction = np.where(dx == 0, np.copysign(np.inf, dy), dy / np.where(dx == 0, 1, dx))
        if self.type == "angle":
            direction = np.arctan(direction)
        direction[(dx == 0) & (dy == 0)] = 0.0
        return {**observations, "goal_direction": direction.astype(np.float64)}


class SymbolicObs(_DictObservation):
    """Minigrid's ``SymbolicObsWrapper`` on every env: the image is the world, (x, y, object or -1), int64.

    Args:
        env: a MiniGrid batch with the dict observation.
    """

    def __init__(self, env: VectorEnv):
        super().__init__(env)
        W, H = self.base.spec_row.width, self.base.spec_row.height
        low = np.zeros((W, H, 3), np.int64)
        low[:, :, 2] = -1
        high = np.empty((W, H, 3), np.int64)
        high[:, :, 0] = W - 1
        high[:, :, 1] = H - 1
        high[:, :, 2] = max(OBJECT_TO_IDX.values())
        self._spaces(image=gym.spaces.Box(low, high, dtype=np.int64))
        self._coords = np.moveaxis(np.mgrid[:W, :H], 0, -1)  # [x, y] = (x, y)

    def observations(self, observations: dict[str, Any]) -> dict[str, Any]:
        """The worlds, (N, W, H, 3) int64."""
        st = self.base.state
        objects = st.grid[:, :, :, 0].transpose(0, 2, 1).astype(np.int64)  # (N, W, H)
        objects[objects == EMPTY] = -1
        rows = np.arange(len(objects))
        objects[rows, st.agent[:, 0], st.agent[:, 1]] = AGENT
        coords = np.broadcast_to(self._coords, (*objects.shape, 2))
        return {**observations, "image": np.concatenate([coords, objects[..., None]], axis=-1)}
