"""The MiniGrid family: ``MinigridVectorEnv`` and its single-env view ``MinigridEnv``."""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

import gridsim._core as _core
import gridsim.minigrid._kernel as _kernel
from gridsim.engine.draw import check_cell_px
from gridsim.engine.family import Family, FamilyTools, Register
from gridsim.engine.locking import synchronized
from gridsim.engine.settings import COMMON_SETTINGS, Setting, accepts_settings, as_flag, check_choice, check_max_steps
from gridsim.engine.single import SingleEnvView
from gridsim.engine.state import StateView, brief
from gridsim.engine.vector import GridVectorEnv, _row_seeds
from gridsim.errors import (
    InvalidActionError,
    InvalidArgumentError,
    InvalidStateError,
    KernelError,
    ReadOnlyAttributeError,
)
from gridsim.lab2d.surface import LevelApiFacade
from gridsim.minigrid import babyai
from gridsim.minigrid.api import MinigridApi
from gridsim.minigrid.attributes import MINIGRID_ATTRIBUTES, MinigridAttributes, RowAttributes
from gridsim.minigrid.ids import COLOR_NAMES, MINIGRID_IDS, STATE_NAMES, MinigridSpec, description_of, spec_of
from gridsim.minigrid.render import MAX_ATLAS_TILE_SIZE, render_full
from gridsim.minigrid.rng import from_numpy_state, to_numpy_state
from gridsim.minigrid.spaces import MissionSpace
from gridsim.minigrid.state import MinigridState
from gridsim.minigrid.streams import EnvGenerators
from gridsim.minigrid.tasks import TASK_OF as MINIGRID_TASKS
from gridsim.minigrid.world import pprint_cells

__all__ = ["FAMILY", "IMAGE_ID_COUNTS", "MinigridEnv", "MinigridVectorEnv", "OBS_TYPES"]

# obs_type -> (the kernel's observation, whether it is returned in a dict with direction and mission).
OBS_TYPES = {
    "dict": (_kernel.MINIGRID_OBS_VIEW, True),  # Minigrid's own observation
    "image": (_kernel.MINIGRID_OBS_VIEW, False),  # ImgObsWrapper
    "full": (_kernel.MINIGRID_OBS_FULL, True),  # FullyObsWrapper
    "full_image": (_kernel.MINIGRID_OBS_FULL, False),  # ImgObsWrapper(FullyObsWrapper)
    "rgb": (_kernel.MINIGRID_OBS_RGB, True),  # RGBImgPartialObsWrapper
    "rgb_image": (_kernel.MINIGRID_OBS_RGB, False),  # ImgObsWrapper(RGBImgPartialObsWrapper)
    "rgb_full": (_kernel.MINIGRID_OBS_RGB_FULL, True),  # RGBImgObsWrapper
    "rgb_full_image": (_kernel.MINIGRID_OBS_RGB_FULL, False),  # ImgObsWrapper(RGBImgObsWrapper)
}
MAX_TILE_SIZE = MAX_ATLAS_TILE_SIZE  # the RGB observations' tile_size bound
MISSION_FORMATS = ("str", "index", "tokens")
# The number of (object, colour, state) ids of an image cell, per kernel observation of ids (the
# env's obs_id_counts): a full view's agent cell holds the agent's direction (0..3) as its state.
IMAGE_ID_COUNTS = {
    _kernel.MINIGRID_OBS_VIEW: (len(_kernel.MINIGRID_OBJECTS), len(COLOR_NAMES), len(STATE_NAMES)),
    _kernel.MINIGRID_OBS_FULL: (len(_kernel.MINIGRID_OBJECTS), len(COLOR_NAMES), 4),
}
OBJECT_NAMES = {v: k for k, v in _kernel.MINIGRID_OBJECTS.items()}
FORWARD = 2  # the one action that moves the agent
EMPTY = _kernel.MINIGRID_OBJECTS["empty"]


class MinigridVectorEnv(LevelApiFacade, GridVectorEnv):
    """A batch of Minigrid envs of one id, each exactly Farama Minigrid 3.2.0's for the same seed.

    ## Description

    Every env owns numpy's generator (PCG64) and draws from it as Minigrid's env does: the
    id's generator at every reset (a new layout per episode) and Dynamic-Obstacles' moves at
    every step. Env i reset with seed s plays Minigrid's env reset with seed s + i, for any
    number of episodes (autoresets continue the stream as ``reset()`` without a seed does).
    See ``docs/minigrid.md`` for the ids, the rules and how exactness is tested.

    ## Action Space

    ``Discrete(7)``: 0 left, 1 right, 2 forward, 3 pickup, 4 drop, 5 toggle, 6 done
    (Dynamic-Obstacles: ``Discrete(3)``; as in Minigrid, its actions 3..6 act as 0).

    ## Observation Space

    | ``obs_type=`` | Minigrid's | batched image, uint8 |
    |---|---|---|
    | ``"dict"`` (default) | the env's ``{"direction", "image", "mission"}`` | (N, V, V, 3) |
    | ``"image"`` | ``ImgObsWrapper``: the image alone | (N, V, V, 3) |
    | ``"full"`` | ``FullyObsWrapper``: the dict, the whole grid with the agent as (10, 0, dir) | (N, W, H, 3) |
    | ``"full_image"`` | ``ImgObsWrapper(FullyObsWrapper)`` | (N, W, H, 3) |
    | ``"rgb"`` | ``RGBImgPartialObsWrapper``: the dict, the view drawn | (N, V * ts, V * ts, 3) |
    | ``"rgb_image"`` | ``ImgObsWrapper(RGBImgPartialObsWrapper)`` | (N, V * ts, V * ts, 3) |
    | ``"rgb_full"`` | ``RGBImgObsWrapper``: the dict, the world drawn, seen cells lit | (N, H * ts, W * ts, 3) |
    | ``"rgb_full_image"`` | ``ImgObsWrapper(RGBImgObsWrapper)`` | (N, H * ts, W * ts, 3) |

    In a dict, ``direction`` is (N,) int64 and ``mission`` a tuple of N strings.

    ``image[i, j]`` is view column i, view row j (far to near), ``(object, colour, state)`` in
    Minigrid's tables. ``agent_view_size`` (V, odd, 3..31; default 7) sets the view, and
    ``see_through_walls`` whether it shows every cell in range (None: the id's, as in Minigrid). The RGB
    observations are pictures (rows, columns, RGB), pixel for pixel Minigrid's, of
    ``tile_size`` (ts, 1..64; default 8, as the wrappers') pixels per cell: the view as the
    agent sees it (facing up, unseen cells empty), or the world with the cells the agent
    sees lightened (``gridsim.minigrid.render``).
    ``mission_format="index"`` returns each mission as its index in :attr:`missions` (an int64
    array) instead of strings. :attr:`obs_id_counts` declares the image's channels as
    categories: 11 objects, 6 colours, 3 states (4 in a full view, where the agent's cell holds
    its direction).

    ## Rewards

    ``1 - 0.9 * step_count / max_steps`` (float64) on success, else 0; Dynamic-Obstacles -1
    for a collision.

    ## Episode End

    As Minigrid: terminated on the goal, lava or the id's own end; truncated when the step
    count reaches ``max_steps`` (the id's, or ``max_episode_steps``); both can hold at once.

    ## Arguments

    ``num_envs`` (N), ``env_name`` (a Minigrid id such as ``"MiniGrid-DoorKey-8x8-v0"``), ``obs_type``,
    ``agent_view_size``, ``see_through_walls``, ``tile_size``, ``mission_format``
    (``gridsim.minigrid.interop.env_kwargs_of`` gives those of a live Minigrid env), ``spec`` (a variant of
    an id: a changed copy of its ``MinigridSpec``, ``docs/python_tasks.md``). ``render()`` (``rgb_array``) draws
    each env as Minigrid's ``render()`` does, 32 pixels per cell.

    {settings}

    Seeding differs from the other families: env i's generator is
    ``numpy.random.Generator(PCG64(SeedSequence(seed)))`` of its seed, as gymnasium seeds a
    Minigrid env; ``mixer_seed`` is refused.

    ## Version History

    * v0, v1: Minigrid 3.2.0's ids of the same name and version, seed for seed; their RGB observations
      and ``render()``, pixel for pixel.

    Example:
        >>> import gymnasium as gym
        >>> import gridsim
        >>> envs = gym.make_vec("gridsim/MiniGrid-DoorKey-8x8-v0", num_envs=2, vectorization_mode="vector_entry_point")
        >>> obs, infos = envs.reset(seed=0)
        >>> obs["image"].shape, obs["mission"][0]
        ((2, 7, 7, 3), 'use the key to open the door and then get to the goal')
    """

    stat_extras = {"success": "stat_success"}
    # A step that changes nothing in view (forward into a wall, done) leaves the row as it was.
    obs_rewritten_every_step = False
    env_name: str  # the Minigrid id
    agent_view_size: int
    see_through_walls: bool
    mission_format: str
    is_babyai: bool  # a BabyAI id: its mission made of instructions (gridsim.minigrid.babyai)
    _dict_obs: bool  # the observation is Minigrid's dict (obs_type "dict" or "full")
    env_generators: EnvGenerators  # each env's np_random (env_np_random)
    _generators_out: dict[int, np.random.Generator]  # env_generators.handed_out: the step path's one check

    level_api_class = MinigridApi
    SETTINGS = {
        **COMMON_SETTINGS,
        "max_steps": Setting(int, None, writable=True, kwarg="max_episode_steps", optional=True,
                             doc="truncated when the step count reaches it (none: the id's max_steps); a "
                                 "write applies at each env's next reset"),
        "env_name": Setting(str, "MiniGrid-Empty-8x8-v0", doc="the Minigrid id"),
        "obs_type": Setting(tuple(OBS_TYPES), "dict", doc="Gymnasium observation"),
        "agent_view_size": Setting(int, 7, doc="side of the agent's view (odd, 3..31)"),
        "see_through_walls": Setting(bool, None, optional=True,
                                     doc="the view shows every cell in range, walls or not (none: the id's)"),
        "tile_size": Setting(int, 8, doc=f"pixels per cell of the rgb observations (1..{MAX_TILE_SIZE})"),
        "mission_format": Setting(MISSION_FORMATS, "str", doc="missions as strings, as indices (MiniGrid ids) or as "
                                                              "tokens (BabyAI ids: gridsim.minigrid.babyai)"),
    }

    @accepts_settings
    def __init__(
        self,
        num_envs: int = 1,
        *,
        env_name: str = "MiniGrid-Empty-8x8-v0",
        obs_type: str = "dict",
        agent_view_size: int = 7,
        see_through_walls: bool | None = None,
        tile_size: int = 8,
        mission_format: str = "str",
        max_episode_steps: int | None = None,
        obs_dtype=None,
        spec: MinigridSpec | None = None,
        **common: Any,
    ):
        super().__init__(num_envs=num_envs, obs_dtype=obs_dtype, **common)
        if self.mixer_seed:
            raise InvalidArgumentError("a MiniGrid env is seeded as gymnasium seeds Minigrid's (SeedSequence(seed)); "
                                       "it takes no mixer_seed")
        if not isinstance(env_name, str):
            raise InvalidArgumentError(f"env_name must be a Minigrid id, got {brief(env_name)}")
        self.spec_row: MinigridSpec = self._spec_of(env_name) if spec is None else _variant(spec)
        check_choice(obs_type, "obs_type", OBS_TYPES)
        check_choice(mission_format, "mission_format", MISSION_FORMATS)
        if (isinstance(agent_view_size, bool) or not isinstance(agent_view_size, numbers.Integral)
                or not 3 <= agent_view_size <= _kernel.MINIGRID_MAX_VIEW or agent_view_size % 2 == 0):
            raise InvalidArgumentError(
                f"agent_view_size must be odd, 3..{_kernel.MINIGRID_MAX_VIEW}, got {brief(agent_view_size)}")
        if (isinstance(tile_size, bool) or not isinstance(tile_size, numbers.Integral)
                or not 1 <= tile_size <= MAX_TILE_SIZE):
            raise InvalidArgumentError(f"tile_size must be an integer in 1..{MAX_TILE_SIZE}, got {brief(tile_size)}")
        limit = check_max_steps(max_episode_steps)
        self.max_episode_steps = self.spec_row.max_steps if limit is None else int(limit)
        self.env_name = self.spec_row.name
        self.obs_type = obs_type
        self.agent_view_size = int(agent_view_size)
        self.see_through_walls = self.spec_row.see_through_walls if see_through_walls is None else \
            as_flag(see_through_walls, "see_through_walls")
        self.tile_size = int(tile_size)
        self.mission_format = mission_format
        self.missions: tuple[str, ...] = self.spec_row.missions
        self.is_babyai = self.spec_row.babyai
        if self.is_babyai and os.environ.get("BABYAI_DONE_ACTIONS"):
            # Upstream's verifier then waits for `done` (any non-empty value, "0" included).
            raise InvalidArgumentError(
                "BABYAI_DONE_ACTIONS is set: gridsim's BabyAI verifier is upstream's default, where an instruction "
                "succeeds without the done action; unset it")
        if mission_format == ("index" if self.is_babyai else "tokens"):
            raise InvalidArgumentError(
                f"mission_format={mission_format!r} is not for {self.env_name}: a BabyAI id's missions are strings or "
                "tokens, another id's strings or indices")
        kind, self._dict_obs = OBS_TYPES[obs_type]
        config = {**self.spec_row.config, **self._kernel_config(), "view": self.agent_view_size,
                  "see_through_walls": int(self.see_through_walls)}
        self.state = MinigridState(self.num_envs, config, obs_kind=kind, autoreset_mode=self.kernel_autoreset,
                                   max_steps=self.max_episode_steps, events=self.record_events,
                                   max_events=self.max_events_per_step, tile_size=self.tile_size)
        image = gym.spaces.Box(0, 255, self.state.obs.shape[1:], np.uint8)
        if obs_dtype is not None:
            image = gym.spaces.Box(image.low.astype(obs_dtype), image.high.astype(obs_dtype), image.shape,
                                   np.dtype(obs_dtype))
        if self._dict_obs:
            mission: gym.spaces.Space
            if self.is_babyai:
                mission = babyai.BabyAIMissionSpace() if mission_format == "str" else \
                    gym.spaces.Box(0, len(babyai.VOCABULARY) - 1, (babyai.MISSION_TOKENS,), np.uint8)
            else:
                mission = self._mission_space() if mission_format == "str" \
                    else gym.spaces.Discrete(len(self.missions))
            self.single_observation_space = gym.spaces.Dict(
                {"direction": gym.spaces.Discrete(4), "image": image, "mission": mission})
        else:
            self.single_observation_space = image
        counts = IMAGE_ID_COUNTS.get(kind)  # None: RGB pixels are quantities, not ids
        self.obs_id_counts = None if counts is None else ({"image": counts} if self._dict_obs else counts)
        if self._dict_obs and mission_format == "tokens":
            self.obs_token_counts = {"mission": len(babyai.VOCABULARY)}
        self.single_action_space = gym.spaces.Discrete(self.spec_row.num_actions)
        self.kernel = _kernel.MinigridKernel(self.state)
        # Each env's np_random (env_np_random): kept in step with its kernel row while handed out.
        self.env_generators = EnvGenerators(self, self._lock)
        self._generators_out = self.env_generators.handed_out  # the step path's one check: the dict itself
        self._mission_cache: tuple[np.ndarray, tuple[str, ...]] | None = None
        # (the mission counts shown, their strings, the tuple of them last handed out)
        self._babyai_cache: tuple[np.ndarray, list[str], tuple[str, ...]] | None = None
        self._finish_init()
        if self._dict_obs and mission_format == "tokens":
            self.observation_space = gym.spaces.Dict({
                "direction": gym.spaces.MultiDiscrete(np.full(self.num_envs, 4)),
                "image": batch_space(image, self.num_envs), "mission": batch_space(mission, self.num_envs)})
        elif self._dict_obs and mission_format == "str":
            # Tuple(N MissionSpaces) as SyncVectorEnv's; built once (deep copies of one space).
            self.observation_space = gym.spaces.Dict({
                "direction": gym.spaces.MultiDiscrete(np.full(self.num_envs, 4)),
                "image": batch_space(image, self.num_envs),  # obs_dtype's bounds (a bool image's too)
                "mission": gym.spaces.Tuple((mission,) * self.num_envs)})

    def _spec_of(self, env_name: str) -> MinigridSpec:
        """The spec of the id the env plays (a Python task's env makes its own)."""
        return spec_of(env_name)

    def _kernel_config(self) -> dict[str, Any]:
        """What the kernel reads beyond the spec's configuration (a compiled task's generator)."""
        return {}

    def _mission_space(self) -> gym.spaces.Space:
        """A row's mission space (``mission_format="str"``, a MiniGrid id): the id's missions."""
        return MissionSpace(self.missions)

    # ------------------------------------------------------------------ seeds and observations

    def _derive_keys(self, seeds: np.ndarray) -> np.ndarray:
        """Each world's key is its seed itself (low, high 64-bit words): the kernel runs SeedSequence on it."""
        keys = np.zeros((len(seeds), 2), dtype=np.uint64)
        if seeds.dtype == np.uint64:  # every seed below 2**64 (reset's seeds, as _row_seeds makes them)
            keys[:, 0] = seeds
            return keys
        for k, s in enumerate(seeds.tolist()):  # Python ints (or objects) up to 2**128 - 1
            s = int(s)
            keys[k, 0] = s & 0xFFFFFFFFFFFFFFFF
            keys[k, 1] = s >> 64
        return keys

    @synchronized
    def reset(self, *, seed=None, options=None):
        """Reset all envs, or those in ``options["reset_mask"]`` (see :class:`GridVectorEnv.reset`)."""
        out = super().reset(seed=seed, options=options)
        self._check_generated()
        return out

    @synchronized  # the generators' failures are read in the same hold of the lock as the step
    def step(self, actions):
        """Step every env (see :class:`GridVectorEnv.step`); an autoreset whose generator failed raises."""
        if self._generators_out:
            return self._step_with_generators(actions)
        out = super().step(actions)
        if self.state.failed.any():  # never for a registered id; Minigrid raises RecursionError there
            self._check_generated()
        return out

    def _step_with_generators(self, actions):
        # The draws made from the generators handed out go into their rows first; the rows' new
        # states go back into them after (rows an autoreset reseeded get new generators).
        self.env_generators.pull()
        reseed = self.state.reseed
        pending = np.flatnonzero(reseed) if np.count_nonzero(reseed) else None  # seeds queued for next episodes
        try:
            out = super().step(actions)
        finally:
            self._sync_generators_after(pending)
        if self.state.failed.any():
            self._check_generated()
        return out

    def _sync_generators_after(self, reseed_rows: np.ndarray | None):
        """After a kernel call: the rows it reseeded drop their generators, the others' take the rows' states."""
        generators = self.env_generators
        if reseed_rows is not None and len(reseed_rows):
            generators.forget(reseed_rows[~self.state.reseed[reseed_rows]])
        generators.push()

    @synchronized
    def commit(self, writes: list, calls=(), worlds: np.ndarray | None = None) -> None:
        """:meth:`GridVectorEnv.commit`, with the generators handed out synced before and after."""
        self._babyai_cache = None  # a written state may hold other missions under the same counts
        if not self._generators_out:
            return super().commit(writes, calls, worlds)
        self.env_generators.pull()
        reseed = self.state.reseed
        reseeded = [np.flatnonzero(w[-1]) if len(w) == 2 else np.asarray(w[1])[np.asarray(w[2], bool)]
                    for w in writes if w[0] is reseed]
        try:
            super().commit(writes, calls, worlds)
        finally:
            self._sync_generators_after(np.concatenate(reseeded) if reseeded else None)
        return None

    @synchronized
    def step_without_autoreset(self, actions) -> None:
        """:meth:`GridVectorEnv.step_without_autoreset`, with the generators handed out synced around it."""
        if not self._generators_out:
            return super().step_without_autoreset(actions)
        self.env_generators.pull()
        try:
            super().step_without_autoreset(actions)
        finally:
            self._sync_generators_after(None)
        return None

    @synchronized
    def state_dict(self) -> dict[str, Any]:
        """The batch's state dict (``state_io.state_dict()``), with every draw from ``env_np_random`` in it."""
        self.env_generators.pull()
        return self.state_io.state_dict()

    # ------------------------------------------------------------------ each env's generator

    @synchronized
    def env_np_random(self, index: int = 0) -> np.random.Generator:
        """Env ``index``'s ``np_random``: its own stream, as ``SyncVectorEnv``'s ``envs[index].np_random``.

        A ``numpy.random.Generator`` over ``PCG64`` whose state is the env's: after every reset and
        step it is the kernel's, and what is drawn from it between calls moves the env's stream on,
        so that its next layouts (and Dynamic-Obstacles' moves) change exactly as Minigrid's do. It
        stays the same object until a seeded reset of the env, which gives it a new one, as
        Gymnasium's ``reset(seed=...)`` does. An env never seeded gets a generator of OS entropy
        (and continues it). ``envs.np_random`` stays the vector env's own, as Gymnasium defines it.

        Each env asked for costs a check of its generator before and after each call (about
        1.3 microseconds); the others cost nothing.
        """
        return self.env_generators.generator(self.row_index(index))

    @synchronized
    def set_env_np_random(self, index: int, generator: np.random.Generator | None) -> None:
        """Make ``generator`` env ``index``'s ``np_random`` (``env.np_random = generator`` in Gymnasium).

        Its state becomes the env's, which draws on from it; ``env_np_random_seed`` is then -1.

        Raises:
            ArgumentTypeError: ``generator`` is not a ``numpy.random.Generator`` over ``PCG64``.
        """
        self.check_open()
        self.env_generators.adopt(self.row_index(index), generator)

    @synchronized
    def env_np_random_seed(self, index: int = 0) -> int:
        """Env ``index``'s ``np_random_seed`` as Gymnasium defines it: its seed, -1 once a generator was given."""
        return self.env_generators.seed(self.row_index(index))

    @synchronized
    def env_random(self, rows=None) -> np.ndarray:
        """``env_np_random(i).random()`` for each env ``i`` of ``rows``, drawn in the kernel: float64 (len(rows),).

        Args:
            rows: a bool mask of the envs, or their indices (None: every env). Each draws once,
                from its own stream, which moves on as ``np_random``'s would.
        """
        rows = self._draw_rows(rows)
        self.env_generators.pull()
        out = _kernel.rng_random_rows(self.state.bitgen, rows)
        self.env_generators.push()
        return out

    @synchronized
    def env_integers(self, low: int, high: int, rows=None) -> np.ndarray:
        """``env_np_random(i).integers(low, high)`` for each env ``i`` of ``rows`` (as :meth:`env_random`): int64."""
        rows = self._draw_rows(rows)
        self.env_generators.pull()
        out = _kernel.rng_integers_rows(self.state.bitgen, rows, int(low), int(high))
        self.env_generators.push()
        return out

    def _draw_rows(self, rows) -> np.ndarray:
        self.check_open()
        if rows is None:
            rows = np.arange(self.num_envs, dtype=np.intp)
        rows = np.asarray(rows)
        if rows.dtype == np.bool_:
            if rows.shape != (self.num_envs,):
                raise InvalidArgumentError(f"a mask of rows has shape ({self.num_envs},), got {rows.shape}")
            rows = np.flatnonzero(rows)
        elif rows.ndim != 1 or rows.dtype.kind not in "iu" or (len(rows) and not (
                0 <= rows.min() and rows.max() < self.num_envs)):
            raise InvalidArgumentError(f"rows must be a bool mask or indices 0..{self.num_envs - 1}, got {rows!r}")
        for row in rows[~self.state.seeded[rows]].tolist():
            self.env_generators.generator(row)  # never seeded: OS entropy, as Gymnasium's np_random
        return np.ascontiguousarray(rows, dtype=np.intp)

    @synchronized
    def seed_next_episodes(self, seeds) -> None:
        """Seed the next episode of some envs: it starts as ``reset(seed=...)`` with that seed would.

        The next episode is the one an autoreset or a reset without a seed starts (Minigrid's
        ``ReseedWrapper`` seeds each reset so; :class:`gridsim.minigrid.wrappers.Reseed` is it for a
        batch). From this call on, ``env_np_random_seed`` reports the new seed.

        Args:
            seeds: one entry per env, as ``reset``'s list of seeds: an int (0..2**128 - 1), or
                None to leave the env as it is.
        """
        self.check_open()
        given = _row_seeds(list(seeds) if not isinstance(seeds, np.ndarray) else seeds, self.num_envs)
        assert given is not None
        mask = np.not_equal(given, None) if given.dtype == object else np.ones(self.num_envs, np.bool_)  # type: ignore[call-overload]
        if mask.any():
            _, writes = self.seed_writes(mask, given)
            _core.commit(writes, [])  # keys and flags only: the batch is as started (or not) as it was

    @synchronized
    def continue_episodes(self, rows) -> None:
        """Let the episodes of ``rows`` (a bool mask) go on: their pending reset is cancelled.

        For a wrapper that undoes an end (Minigrid's ``NoDeath``: :class:`gridsim.minigrid.wrappers.NoDeath`):
        the envs step on from where they are, as Minigrid's do when the end is not reported.
        """
        self.check_open()
        rows = np.flatnonzero(np.asarray(rows, bool))
        if len(rows):
            _core.commit([(self.state.needs_reset, rows, np.zeros(len(rows), np.bool_))], [])

    @synchronized
    def get_attr(self, name: str) -> tuple[Any, ...]:
        """An attribute per env, as ``SyncVectorEnv`` returns it (``np_random`` and ``np_random_seed``: each env's)."""
        if name == "np_random":
            return tuple(self.env_np_random(i) for i in range(self.num_envs))
        if name == "np_random_seed":
            return tuple(self.env_np_random_seed(i) for i in range(self.num_envs))
        if name in MINIGRID_ATTRIBUTES:
            return tuple(getattr(self.env_attributes(i), name) for i in range(self.num_envs))
        return super().get_attr(name)

    @synchronized
    def env_attributes(self, index: int = 0) -> RowAttributes:
        """Minigrid's attributes of env ``index``, read-only: ``grid``, ``agent_pos``, ``carrying``, ``gen_obs()``, ...

        What ``SyncVectorEnv``'s ``envs[index].unwrapped`` shows of Minigrid's env (``get_attr`` reads
        them per env). ``agent_pos`` reads as a tuple of np.int64 (a batch does not keep the type an
        id's start position has until the agent moves); a change goes through ``set_state``.
        """
        views = self.__dict__.setdefault("_env_attributes", {})
        row = self.row_index(index)
        if row not in views:
            views[row] = RowAttributes(self, row)
        return views[row]

    @synchronized
    def set_attr(self, name: str, values):
        """Set an attribute; ``np_random`` takes one generator per env (or one for all) as each env's."""
        if name in MINIGRID_ATTRIBUTES:
            raise ReadOnlyAttributeError(f"{name} of the envs of a batch is read-only here: change env i's world with "
                                         "set_state(state, index=i)")
        if name != "np_random":
            return super().set_attr(name, values)
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise InvalidArgumentError(f"need {self.num_envs} values, got {len(values)}")
        for i, generator in enumerate(values):
            self.set_env_np_random(i, generator)
        return None

    def _check_generated(self):
        """Raise :class:`gridsim.KernelError` if a row's generator failed at its last reset."""
        failed = np.flatnonzero(self.state.failed)
        if len(failed):
            raise KernelError(f"env {failed[0]}: {self._generator_failure}", env=int(failed[0]), code=-1)

    @property
    def _generator_failure(self) -> str:
        """What a failed generator did, for :meth:`_check_generated`'s message (a task family's own words)."""
        return f"{self.env_name}'s generator ran out of placement tries (Minigrid raises RecursionError here)"

    def _missions_of(self, index: np.ndarray):
        """Mission strings (a tuple) or indices (int64, as the space's Discrete) of the given mission indices."""
        if self.mission_format == "index":
            return index.astype(np.int64)
        cache = self._mission_cache
        if len(self.missions) == 1:  # every row has the id's one mission
            if cache is None or len(cache[1]) != len(index):
                cache = (index.copy(), (self.missions[0],) * len(index))
                self._mission_cache = cache
            return cache[1]
        if cache is not None and len(cache[0]) == len(index) and np.array_equal(cache[0], index):
            return cache[1]
        if cache is not None and len(cache[0]) == len(index):  # rebuild only the rows that changed
            text = list(cache[1])
            for i in np.flatnonzero(cache[0] != index).tolist():
                text[i] = self.missions[index[i]]
            out = tuple(text)
        else:
            out = tuple(self.missions[k] for k in index.tolist())
        self._mission_cache = (index.copy(), out)
        return out

    def _present_obs(self, obs: np.ndarray, rows: np.ndarray | None = None, final: bool = False):
        if self.obs_dtype is not None:
            obs = obs.astype(self.obs_dtype)
        if not self._dict_obs:
            return obs
        st = self.state
        if self.is_babyai:
            return self._present_babyai(obs, rows, final)
        direction, mission = (st.final_dir, st.final_mission) if final else (st.obs_dir, st.obs_mission)
        if rows is None:
            return {"direction": direction.copy(), "image": obs, "mission": self._missions_of(mission)}
        fmt = self.mission_format
        return [{"direction": np.int64(direction[r]), "image": obs[k],
                 "mission": self.missions[mission[r]] if fmt == "str" else np.int64(mission[r])}
                for k, r in enumerate(np.asarray(rows).tolist())]

    @property
    @synchronized
    def own_episode_limits(self) -> bool:
        """Whether each episode sets its own step limit (a BabyAI level's, from its instructions).

        True for a BabyAI id whose ``max_steps`` is 0, made without ``max_episode_steps``.
        """
        return self.is_babyai and int(self.kernel.max_steps) <= 0 and self.state.config.get("nav_cells", 0) > 0

    def _present_babyai(self, obs: np.ndarray, rows: np.ndarray | None, final: bool):
        # A BabyAI mission is its tokens: as they are, or decoded (only the rows whose tokens changed).
        st = self.state
        direction, tokens = (st.final_dir, st.final_tokens) if final else (st.obs_dir, st.obs_tokens)
        if rows is not None:
            return [{"direction": np.int64(direction[r]), "image": obs[k],
                     "mission": babyai.decode_row(tokens[r]) if self.mission_format == "str" else tokens[r].copy()}
                    for k, r in enumerate(np.asarray(rows).tolist())]
        if self.mission_format == "tokens":
            return {"direction": direction.copy(), "image": obs, "mission": tokens.copy()}
        # A row's mission count moves at each of its resets; any other write of the state (commit)
        # forgets the cache.
        counts = st.final_mission if final else st.obs_mission
        cache = self._babyai_cache
        if cache is not None and cache[0].shape == counts.shape:
            changed = np.flatnonzero(cache[0] != counts)
            if len(changed) == 0:
                return {"direction": direction.copy(), "image": obs, "mission": cache[2]}
            text = cache[1]  # the cache's own list, updated in place: the tuple handed out is a copy
            for i, mission in zip(changed.tolist(), babyai.decode_rows(tokens[changed]), strict=True):
                text[i] = mission
        else:
            text = list(babyai.decode_rows(tokens))
        missions = tuple(text)
        self._babyai_cache = (counts.copy(), text, missions)
        return {"direction": direction.copy(), "image": obs, "mission": missions}

    def single_obs(self, obs):
        """Row 0 of a batch as Minigrid's env returns it: its dict in Minigrid's key order, Python scalars."""
        if isinstance(obs, dict):
            mission = obs["mission"][0]
            return {"image": obs["image"][0].copy(), "direction": int(obs["direction"][0]),
                    "mission": mission if isinstance(mission, str) else int(mission)}
        return obs[0].copy()

    # ------------------------------------------------------------------ state access

    # The fields' parts -> the get_state keys that hold them, for set_state's messages.
    STATE_LABELS = {"agent.pos": "agent_pos", "agent.dir": "agent_dir", "grid.object": "grid",
                    "grid.colour": "grid", "grid.state": "grid", "grid.contents": "contents",
                    "carrying.contents": "carrying_contents",
                    "bitgen": "bit_generator", "bitgen.has_uint32": "bit_generator",
                    "bitgen.uinteger": "bit_generator", "task.count": "task", "task.balls": "task"}

    @synchronized
    def get_state(self, index: int = 0) -> dict[str, Any]:
        """Env ``index`` in Minigrid's terms.

        ``{"grid": uint8 (W, H, 3) (Minigrid's grid.encode()), "contents": uint8 (W, H) (a box's
        contents: 0 none, else 1 + object * 8 + colour), "agent_pos": (x, y), "agent_dir": int,
        "carrying": None or (object, colour, state) (its contents: "carrying_contents"),
        "step_count": int, "mission": str, "task": tuple of the generator's ints,
        "bit_generator": numpy.random.PCG64().state's dict}``.

        A BabyAI env's also has ``"instrs"`` (its instruction tree and the verifier's progress,
        ``gridsim.minigrid.babyai.instructions``), ``"max_steps"`` (this episode's limit),
        ``"rejected"`` (generation attempts its last reset rejected), ``"object_ids"`` (W, H),
        ``"carrying_id"`` (the identities the instructions track; 0: none) and ``"bot"`` (int16
        slots: the BabyAI bot's plan and what it has seen, ``gridsim.minigrid.bot``).
        """
        self.check_open()
        i = self.row_index(index)
        self.env_generators.pull()  # the draws from env_np_random since the last call
        st = self.state
        cells = st.grid[i].transpose(1, 0, 2)  # (W, H, 4)
        carried = st.carrying[i]
        return {
            "grid": np.ascontiguousarray(cells[..., :3]),
            "contents": np.ascontiguousarray(cells[..., 3]),
            "agent_pos": (int(st.agent[i, 0]), int(st.agent[i, 1])),
            "agent_dir": int(st.agent[i, 2]),
            "carrying": None if carried[0] == EMPTY else tuple(int(v) for v in carried[:3]),
            "carrying_contents": int(carried[3]),
            "step_count": int(st.step_count[i]),
            "mission": babyai.decode(st.mission_tokens[i]) if self.is_babyai else self.missions[int(st.mission[i])],
            "task": tuple(int(v) for v in st.task[i]),
            "bit_generator": to_numpy_state(st.bitgen[i]),
            **(self._babyai_state(i) if self.is_babyai else {}),
        }

    def _babyai_state(self, i: int) -> dict[str, Any]:
        # What a BabyAI env holds beyond a MiniGrid one (read-only here: set_state keeps it).
        st = self.state
        return {"instrs": babyai.instructions(st.babyai[i], st.grid.shape[2]),
                "max_steps": int(st.ep_max_steps[i]), "rejected": babyai.rejected(st.babyai[i]),
                "object_ids": np.ascontiguousarray(st.oid[i].reshape(st.grid.shape[1:3]).T),
                "carrying_id": int(st.babyai[i, babyai.CARRIED]), "bot": st.bot[i].copy()}

    @synchronized
    def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[Any, dict]:
        """Inject a state in the format of :meth:`get_state` (missing keys keep their values).

        The episode continues from it: the generator, the grid, the agent, what it carries and
        the step count. A state of ``gridsim.minigrid.interop.state_of`` also has ``env_kwargs``,
        the Minigrid env's id and settings, which must be this env's (the episode takes its step
        limit). Returns ``(obs, {})``.

        Raises:
            InvalidStateError: a value of the wrong type, shape or range, or ``env_kwargs`` other
                than this env's (nothing is changed).
        """
        self.check_open()
        i = self.row_index(index)
        self.env_generators.pull()  # the view starts from the env's stream as it is now
        v = self.state_io.unit_view(i)
        _put_state(v, state, i, self)
        v["needs_reset"][0] = False
        obs = self.state_io.commit_view(v, i, i)
        return obs, {}

    # ------------------------------------------------------------------ render

    def compiled_level(self) -> MinigridSpec:
        """The id's spec (Minigrid's ids have no level file)."""
        return self.spec_row

    @synchronized
    def render_frame(self, index: int = 0, cell_px: int | None = None) -> np.ndarray:
        """Env ``index`` as Minigrid's ``render()`` draws it: ``get_frame(highlight=True, tile_size)``.

        A fresh uint8 (H * px, W * px, 3) frame, ``px`` = ``cell_px`` (default 32, as
        Minigrid's), pixel for pixel Minigrid's (``gridsim.minigrid.render.render_full``).
        """
        spec = self.spec_row
        px = check_cell_px(cell_px, 32, spec.height, spec.width)
        return render_full(self.get_state(index), px, self.agent_view_size, self.see_through_walls)

    @synchronized
    def render_text(self, index: int = 0) -> str:
        """Env ``index`` as text in the letters of Minigrid's ``pprint_grid`` (``>v<^`` the agent), then the mission."""
        s = self.get_state(index)
        carried = s["carrying"]
        held = "nothing" if carried is None else f"{COLOR_NAMES[carried[1]]} {OBJECT_NAMES[carried[0]]}"
        return (pprint_cells(s["grid"], s["agent_pos"], s["agent_dir"], dir_letters=">v<^")
                + f"\n{s['mission']}  step {s['step_count']}  carrying {held}\n")


def _variant(spec: Any) -> MinigridSpec:
    """A variant of an id (``spec=``), checked: what its task's generator plays exactly as Minigrid's class.

    Its size is one of its task's ids' sizes, or (a task with ``min_size``) any square from that
    to 255; its parameters, number of actions and rule are one of its ids'; its missions as many
    as the id's (other strings); ``max_steps`` any positive int32.
    """
    if not isinstance(spec, MinigridSpec):
        raise InvalidArgumentError(f"spec must be a MinigridSpec (dataclasses.replace(spec_of(id), ...)), got "
                                   f"{brief(spec)}")
    task = MINIGRID_TASKS.get(spec.generator)
    if task is None or not task.ids or spec.babyai:
        raise InvalidArgumentError(f"spec: the task {spec.generator!r} has no variants (only MiniGrid ids' tasks do)")
    if isinstance(spec.max_steps, bool) or not isinstance(spec.max_steps, int) or not 1 <= spec.max_steps < 2**31:
        raise InvalidArgumentError(f"spec.max_steps must be an int in 1..{2**31 - 1}, got {brief(spec.max_steps)}")
    sizes = {(s.width, s.height) for s in task.ids}
    size = (spec.width, spec.height)
    if size not in sizes and not (task.min_size and isinstance(spec.width, int) and not isinstance(spec.width, bool)
                                  and spec.width == spec.height and task.min_size <= spec.width <= 255):
        allowed = f"any square {task.min_size}..255 or " if task.min_size else ""
        raise InvalidArgumentError(f"spec.width, spec.height: {size} is not a size of {task.name!r}: "
                                   f"{allowed}{sorted(sizes)}")
    own = {(tuple(s.params), s.num_actions, s.rule) for s in task.ids}
    if (tuple(spec.params), spec.num_actions, spec.rule) not in own:
        raise InvalidArgumentError(f"spec.params, num_actions and rule must be those of one of {task.name!r}'s ids "
                                   f"({sorted((p, n) for p, n, _ in own)}), got {spec.params}, {spec.num_actions}")
    counts = {len(s.missions) for s in task.ids}
    if len(spec.missions) not in counts or not all(isinstance(m, str) for m in spec.missions):
        raise InvalidArgumentError(f"spec.missions: {sorted(counts)} strings (the generator picks them by index)")
    return spec


def _put_state(v: StateView, state: Mapping[str, Any], i: int, env: MinigridVectorEnv):
    """Write a get_state-format dict into a one-env view (ranges are checked with the view)."""
    if not isinstance(state, Mapping):
        raise InvalidStateError(f"a state is a dict (get_state()), got {type(state).__name__}", env=i)
    babyai_keys = {"instrs", "max_steps", "object_ids", "carrying_id", "rejected", "bot"} if env.is_babyai else set()
    unknown = set(state) - {"grid", "contents", "agent_pos", "agent_dir", "carrying", "carrying_contents",
                            "step_count", "mission", "task", "bit_generator", "env_kwargs"} - babyai_keys
    if unknown:
        raise InvalidStateError(f"unknown state keys {sorted(unknown)}", env=i)
    if "env_kwargs" in state:
        _check_env_kwargs(v, state["env_kwargs"], i, env)
    W, H = env.spec_row.width, env.spec_row.height
    if "grid" in state:
        grid = np.asarray(state["grid"])
        if grid.shape != (W, H, 3) or grid.dtype.kind not in "iu":
            v.fail("grid", 0, f"must be an integer array of shape ({W}, {H}, 3), got {grid.shape} {grid.dtype}")
        if grid.min() < 0 or grid.max() > 255:
            v.fail("grid", 0, "values are 0..255")
        v["grid"][0, ..., :3] = grid.transpose(1, 0, 2)
    if "contents" in state:
        contents = np.asarray(state["contents"])
        if contents.shape != (W, H) or contents.dtype.kind not in "iu":
            v.fail("grid", 0, f"must be an integer array of shape ({W}, {H})", "contents")
        if contents.min() < 0 or contents.max() > 255:  # before the uint8 cells would wrap them
            v.fail("grid", 0, "values are 0..255", "contents")
        v["grid"][0, ..., 3] = contents.T
    if "agent_pos" in state:
        pos = state["agent_pos"]
        if not _sequence_of(pos, 2):
            v.fail("agent", 0, f"must be (x, y), got {brief(pos)}", "pos")
        v.put_int("agent", pos[0], 0, part="pos")
        v.put_int("agent", pos[1], 1, part="pos")
    if "agent_dir" in state:
        v.put_int("agent", state["agent_dir"], 2, part="dir")
    if "carrying" in state:
        carried = state["carrying"]
        if carried is None:
            v["carrying"][0] = (_kernel.MINIGRID_OBJECTS["empty"], 0, 0, 0)
        else:
            if not _sequence_of(carried, 3):
                v.fail("carrying", 0, f"must be None or (object, colour, state), got {brief(carried)}")
            for k in range(3):
                v.put_int("carrying", carried[k], k)
    if "carrying_contents" in state:
        v.put_int("carrying", state["carrying_contents"], 3, part="contents")
    if "step_count" in state:
        v.put_int("step_count", state["step_count"])
    if env.is_babyai:
        _put_babyai(v, state, W, H)
    elif "mission" in state:
        if not isinstance(state["mission"], str) or state["mission"] not in env.missions:
            v.fail("mission", 0, f"must be one of {list(env.missions)}, got {brief(state['mission'])}")
        v.put_int("mission", env.missions.index(state["mission"]))
    if "task" in state:
        task = state["task"]
        if not _sequence_of(task, None) or len(task) > v["task"].shape[1]:
            v.fail("task", 0, f"must be a sequence of at most {v['task'].shape[1]} integers, got {brief(task)}")
        for k, value in enumerate(task):
            v.put_int("task", value, k)
    if "bit_generator" in state:
        try:
            row = from_numpy_state(state["bit_generator"])
        except (TypeError, ValueError, KeyError) as e:
            v.fail("bitgen", 0, f"must be a PCG64 state dict: {e}")
        if not row.any():
            # The state of an env never seeded (get_state of one): there is no generator to continue.
            if v["seeded"][0]:
                v.fail("bitgen", 0, "is the all-zero state of an env never seeded, but this env has a generator")
        else:
            v["bitgen"][0] = row
            # The env now has this generator: an unseeded reset continues it, as Minigrid's reset() does
            # (an env never seeded would otherwise start from OS entropy).
            v["seeded"][0] = True
            v["reseed"][0] = False


def _put_babyai(v: StateView, state: Mapping[str, Any], W: int, H: int):
    """A BabyAI env's own keys: its objects' numbers, its instruction tree (the mission follows), its limit."""
    row = v["babyai"][0]
    if "object_ids" in state:
        ids = np.asarray(state["object_ids"])
        if ids.shape != (W, H) or ids.dtype.kind not in "iu" or (ids.size and (ids.min() < 0 or ids.max() > 255)):
            v.fail("oid", 0, f"must be integers 0..255 of shape ({W}, {H}), got {ids.shape} {ids.dtype}")
        v["oid"][0] = ids.T.reshape(-1)
    if "carrying_id" in state:
        v.put_int("babyai", state["carrying_id"], babyai.CARRIED, part="objects")
    if "rejected" in state:
        v.put_int("babyai", state["rejected"], babyai.REJECTED, part="rejected")
    if "bot" in state:
        bot = np.asarray(state["bot"])
        slots = v["bot"].shape[1]
        if bot.shape != (slots,) or bot.dtype.kind not in "iu" or (bot.size and (bot.min() < -0x8000 or
                                                                                 bot.max() > 0x7FFF)):
            v.fail("bot", 0, f"must be {slots} int16 slots (get_state()['bot']), got {bot.shape} {bot.dtype}")
        v["bot"][0] = bot
    if "instrs" in state:
        try:
            slots, tokens = babyai.encode(state["instrs"], W, H)
        except (babyai.InstructionsError, KeyError, TypeError) as e:
            raise InvalidStateError(f"state['instrs']: {e}", field="instrs", env=v.env_of(0)) from None
        keep = row[[babyai.REJECTED, babyai.CARRIED]].copy()
        row[:] = slots
        row[[babyai.REJECTED, babyai.CARRIED]] = keep
        v["mission_tokens"][0] = tokens
    # New objects (a box's contents) are numbered after every number in use.
    row[babyai.NEXT_OID] = max(int(v["oid"][0].max(initial=0)), int(row[babyai.CARRIED]),
                               int(row[babyai.SETS_SLICE].max(initial=0)))
    row[babyai.SHOWN] = 0
    row[babyai.MOVED] = 1  # the written grid's tracked cells are found again at the next drop
    if "mission" in state and state["mission"] != babyai.decode(v["mission_tokens"][0]):
        v.fail("mission_tokens", 0, f"must be the instructions' own mission {babyai.decode(v['mission_tokens'][0])!r}, "
               f"got {brief(state['mission'])}")
    if "max_steps" in state:
        v.put_int("ep_max_steps", state["max_steps"])


def _check_env_kwargs(v: StateView, kwargs: Any, i: int, env: MinigridVectorEnv):
    """A state's ``env_kwargs`` (``interop.state_of``'s) against this env's own; the episode takes its step limit.

    The state of a Minigrid env of another id or other settings would play on otherwise here.
    """
    own = {"env_name": env.env_name, "agent_view_size": env.agent_view_size,
           "max_episode_steps": int(env.kernel.max_steps), "see_through_walls": env.see_through_walls}
    if not isinstance(kwargs, Mapping) or not set(kwargs) <= set(own):
        raise InvalidStateError(f"state['env_kwargs'] must be a dict of some of {sorted(own)} "
                                f"(interop.env_kwargs_of), got {brief(kwargs)}", field="env_kwargs", env=i)
    differ = {key: value for key, value in kwargs.items() if value != own[key]}
    if differ:
        raise InvalidStateError(
            f"the state is of a Minigrid env with {differ}, where this env has "
            f"{ {key: own[key] for key in differ} }: it would play on otherwise here; make the env with "
            "gridsim.minigrid.interop.env_kwargs_of(minigrid_env)", field="env_kwargs", env=i)
    if "max_episode_steps" in kwargs:  # this episode's limit too (a written max_steps applies from the next)
        v.put_int("ep_max_steps", kwargs["max_episode_steps"])


def _sequence_of(value: Any, length: int | None) -> bool:
    """A tuple, list or 1-d array (of ``length`` items, None: any number)."""
    if isinstance(value, np.ndarray):
        ok = value.ndim == 1
    else:
        ok = isinstance(value, (tuple, list))
    return ok and (length is None or len(value) == length)


class MinigridEnv(MinigridAttributes, SingleEnvView):
    """One Minigrid env (``gymnasium.Env``), a drop-in for ``gym.make("MiniGrid-...")``.

    For the same ``reset(seed=s)`` and actions it returns the same observations (a dict in
    Minigrid's key order: image, direction, mission), rewards, terminated and truncated as
    Minigrid's env, over any number of episodes. As Minigrid's env it steps on past an
    episode's end. ``info`` is ``{}``.

    ``np_random`` is the env's own stream (its kernel's PCG64 state): what a wrapper or a program
    draws from it between calls moves the env on exactly as in Minigrid. The env has Minigrid's
    attributes and methods (``grid``, ``agent_pos``, ``agent_dir``, ``carrying``, ``front_pos``,
    ``gen_obs()``, ``gen_obs_grid()``, ``get_frame()``, ...: :class:`MinigridAttributes`), so
    Minigrid's wrappers work on it as they do on Minigrid's env.
    """

    vector_class = MinigridVectorEnv
    _vec: MinigridVectorEnv

    @synchronized
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset; ``seed`` seeds the generator as ``gym.make("MiniGrid-...").reset(seed=seed)`` does."""
        obs, infos = self._vec.reset(seed=None if seed is None else [seed], options=options)
        if seed is not None:
            self.action_space.seed(seed)
        self._note_start()
        return self._vec.single_obs(obs), {}

    @synchronized
    def step(self, action):
        """One step of Minigrid's env; ``info`` is ``{}``."""
        if isinstance(action, bool) or not isinstance(action, (numbers.Integral, np.integer)):
            a = np.asarray(action)
            if a.shape != () or a.dtype.kind not in "iu":
                raise InvalidActionError(f"action must be an integer scalar for {self.action_space}, got {action!r}")
        try:
            self._actions[0] = action
        except OverflowError:  # beyond int64 (2**63 and up, below -2**63)
            raise InvalidActionError(f"action {action!r} is out of range for {self.action_space}") from None
        obs, reward, term, trunc, _ = self._vec.step(self._actions)
        if action == FORWARD and self._pos_as_put is not None:  # only forward moves; ids that put the agent at
            self._note_moves()                                   # their own start, until it first moves
        if self.render_mode == "human":
            self.render()
        return self._vec.single_obs(obs), float(reward[0]), bool(term[0]), bool(trunc[0]), {}

    @synchronized
    def set_state(self, state, index: int = 0):
        """Inject a state (``MinigridVectorEnv.get_state``'s format); returns ``(obs, {})`` as ``reset`` does."""
        obs, _ = self._vec.set_state(state, index)
        self._pos_as_put = None  # agent_pos reads as after a move: a tuple of np.int64
        batch: Any = {k: [v] for k, v in obs.items()} if isinstance(obs, dict) else obs[None]
        if isinstance(batch, dict):
            batch["image"] = np.asarray(batch["image"])
        return self._vec.single_obs(batch), {}

    @synchronized
    def render(self):
        """``rgb_array``: ``get_frame(highlight, tile_size, agent_pov)``, as Minigrid's; ``ansi``: text; ``human``."""
        if self.render_mode == "rgb_array":
            return self.get_frame(self.highlight, self.tile_size, self.agent_pov)
        return super().render()

    # ------------------------------------------------------------------ the env's generator

    @property
    @synchronized
    def np_random(self) -> np.random.Generator:
        """The env's generator, its own stream (``MinigridVectorEnv.env_np_random``); a seeded reset gives a new one."""
        return self._vec.env_np_random(0)

    @np_random.setter
    @synchronized
    def np_random(self, value: np.random.Generator) -> None:
        self._vec.set_env_np_random(0, value)

    @property
    @synchronized
    def np_random_seed(self) -> int:
        """The seed of ``np_random``: the last reset's, -1 once a generator was given (Gymnasium's meaning)."""
        return self._vec.env_np_random_seed(0)

    @property
    def _np_random(self) -> np.random.Generator | None:
        # What Gymnasium's checks read (env.unwrapped._np_random): the env's generator once it has one.
        return self._vec.env_np_random(0) if self._vec.state.seeded[0] else None

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._vec.set_env_np_random(0, value)


def register_ids(register: Register):
    """``gridsim/MiniGrid-<Name>-v<k>`` for every id of ``gridsim.minigrid.ids``.

    No spec-level limit, as Minigrid registers none: the env truncates by itself at ``max_steps``.
    """
    for spec in MINIGRID_IDS.values():
        register(spec.env_id, None, {"env_name": spec.name})


FAMILY = Family(
    name="minigrid",
    vector_env=MinigridVectorEnv,
    single_env=MinigridEnv,
    register_ids=register_ids,
    takes_map=False,
    describe=description_of,
    tools=FamilyTools(
        bench_level="MiniGrid-DoorKey-8x8-v0",
        bench_level_format="minigrid:{}",
        eval_id="gridsim/MiniGrid-DoorKey-5x5-v0",
        play_keys={"left": 0, "right": 1, "up": 2, "p": 3, "d": 4, "t": 5, "n": 6},
        play_help="left/right turn, up forward, P pick up, D drop, T toggle, N done",
    ),
)

