"""GridVectorEnv: the Gymnasium ``VectorEnv`` over one compiled kernel.

Python does the bookkeeping that happens once per call (seeding, option checks,
info dicts); the kernel steps, autoresets and observes all N envs in one call.
Families subclass :class:`GridVectorEnv` and provide the state, the kernel and
the spaces (``gridsim.envs``).
"""

from __future__ import annotations

import numbers
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import gridsim._core as _core
from gridsim.engine.locking import new_lock, synchronized
from gridsim.engine.parts import Delegate, Part
from gridsim.engine.rendering import Renderer
from gridsim.engine.rng import SEED_BOUND, derive_keys, entropy_seed
from gridsim.engine.settings import as_flag, check_max_steps, format_value, settings_table
from gridsim.engine.state import brief
from gridsim.engine.stateio import StateIO
from gridsim.errors import (
    ArgumentTypeError,
    ClosedEnvError,
    EnvIndexError,
    ForkedEnvError,
    InvalidActionError,
    InvalidArgumentError,
    KernelError,
)

__all__ = ["GridVectorEnv", "action_mask_width", "batch_action_masks", "max_threads", "parse_autoreset_mode",
           "parse_num_threads", "usable_cpus", "AUTORESET_CODES"]

AUTORESET_CODES = {
    AutoresetMode.NEXT_STEP: _core.AUTORESET_NEXT_STEP,
    AutoresetMode.SAME_STEP: _core.AUTORESET_SAME_STEP,
    AutoresetMode.DISABLED: _core.AUTORESET_DISABLED,
}


def parse_autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """The enum from itself, its value (``"NextStep"``) or its name (``"NEXT_STEP"``)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        for m in AutoresetMode:
            if mode in (m.value, m.name) or mode.lower() == m.value.lower():
                return m
    raise InvalidArgumentError(
        f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
        f"{[m.value for m in AutoresetMode]}, got {mode!r}"
    )


MAX_ENVS = 2**31 - 1  # the kernel numbers envs in int32
# With copy=True, observation batches up to this size are copied out of the env's buffer; larger
# ones are written by the kernel into a fresh array (binding one costs about 0.5 us, a copy of
# 16 KiB about as much; bench/README.md, "The env's lock").
FRESH_OBS_MIN_BYTES = 16 * 1024
# num_threads may be up to this many per CPU the process may use (and at least MIN_THREAD_BOUND):
# more threads than CPUs only take turns (the pool's chunks keep that from stalling a call), and
# tests run a few more than a small machine has; far more would only cost memory and, where a
# container limits its processes, fail to start.
THREADS_PER_CPU = 4
MIN_THREAD_BOUND = 8


def _numeric_dtype(value) -> np.dtype:
    """``obs_dtype`` as a numpy dtype of numbers or bools (what observations can be cast to)."""
    try:
        dtype = np.dtype(value)
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.kind not in "biuf":
        raise InvalidArgumentError(f"obs_dtype must be a numeric numpy dtype (float32, uint8, ...), got {value!r}")
    return dtype


def _cgroup_cpu_limit() -> int | None:
    """The CPUs a cgroup CPU quota allows this process (rounded up), or None without a quota."""
    try:  # cgroup v2: "max 100000" or "<quota> <period>"
        with open("/sys/fs/cgroup/cpu.max", encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        if quota == "max":
            return None
        q, per = int(quota), int(period)
    except (OSError, ValueError):
        try:  # cgroup v1
            with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding="ascii") as f:
                q = int(f.read())
            with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding="ascii") as f:
                per = int(f.read())
        except (OSError, ValueError):
            return None
    if q <= 0 or per <= 0:
        return None
    return max(1, -(-q // per))


def usable_cpus() -> int:
    """The CPUs this process may use: its affinity mask (else ``os.cpu_count()``), within any cgroup CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        count = os.cpu_count() or 1
    limit = _cgroup_cpu_limit()
    if limit is not None:
        count = min(count, limit)
    return max(1, count)


def max_threads() -> int:
    """The most threads ``num_threads`` accepts: ``THREADS_PER_CPU`` per usable CPU, at least ``MIN_THREAD_BOUND``."""
    return max(MIN_THREAD_BOUND, THREADS_PER_CPU * usable_cpus())


def parse_num_threads(num_threads: int | str) -> int:
    """The kernel's thread count from a positive int, its digits, or ``"auto"``.

    ``"auto"`` is the CPUs this process may use (:func:`usable_cpus`: its affinity mask and
    cgroup CPU quota), and 1 in a build without threads. A count is bounded by what the
    machine can give: at most :func:`max_threads` (4 per usable CPU, at least 8).

    Raises:
        InvalidArgumentError: for anything else, for more than :func:`max_threads`, and for
            more than one thread when gridsim was built without threads.
    """
    if isinstance(num_threads, str):
        text = num_threads.strip().lower()
        if text == "auto":
            return usable_cpus() if _core.THREADS else 1
        if text.isdecimal():
            num_threads = int(text)
    if isinstance(num_threads, bool) or not isinstance(num_threads, numbers.Integral) or num_threads < 1:
        raise InvalidArgumentError(f"num_threads must be a positive integer or 'auto', got {num_threads!r}")
    bound = max_threads()
    if num_threads > bound:
        raise InvalidArgumentError(
            f"num_threads={num_threads} is more than this machine can run: at most {bound} "
            f"({THREADS_PER_CPU} per CPU this process may use, {usable_cpus()}; 'auto' is one per CPU)")
    if num_threads > 1 and not _core.THREADS:
        raise InvalidArgumentError(
            f"num_threads={num_threads} needs threads, but this build of gridsim has none (it was built "
            "with GRIDSIM_THREADS=0, or where the C compiler has no POSIX threads): reinstall gridsim "
            "(`pip install --force-reinstall --no-binary gridsim-vec gridsim-vec`, "
            "or `pip install -e .` from a checkout)"
        )
    return int(num_threads)


def action_mask_width(space: gym.spaces.Space) -> int:
    """The length of one env's action mask: ``n`` for ``Discrete(n)``, ``sum(nvec)`` for ``MultiDiscrete``.

    A ``MultiDiscrete`` mask is the masks of its components side by side, as maskable PPO
    implementations (sb3-contrib's ``MaskablePPO``) read it. Other spaces raise TypeError.
    """
    if isinstance(space, gym.spaces.Discrete):
        return int(space.n)
    if isinstance(space, gym.spaces.MultiDiscrete) and space.nvec.ndim == 1:
        return int(space.nvec.sum())
    raise TypeError(f"action masks need a Discrete or a 1-d MultiDiscrete action space, not {space}")


def batch_action_masks(envs) -> np.ndarray:
    """Every env's valid actions as bool (N, width), **True = valid**.

    The env's own ``action_masks()`` where its family has one (gridroboman), else all True
    (every action is legal in the other families). The width is :func:`action_mask_width`.
    """
    check_open = getattr(envs, "check_open", None)
    if check_open is not None:
        check_open()
    own = getattr(envs, "action_masks", None)
    if own is not None:
        return np.asarray(own(), dtype=np.bool_)
    return np.ones((envs.num_envs, action_mask_width(envs.single_action_space)), np.bool_)


def _reset_mask(mask, N: int) -> np.ndarray:
    """``options["reset_mask"]`` of a batch of N rows, checked (None: every row)."""
    if mask is None:
        return np.ones(N, np.bool_)
    if not isinstance(mask, np.ndarray):
        raise ArgumentTypeError(f"options['reset_mask'] must be a numpy array, got {type(mask).__name__}")
    if mask.dtype != np.bool_:
        raise ArgumentTypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
    if mask.shape != (N,):
        raise InvalidArgumentError(f"options['reset_mask'] must have shape ({N},), got {mask.shape}")
    if not mask.any():
        raise InvalidArgumentError("options['reset_mask'] must contain at least one True")
    return np.ascontiguousarray(mask)

def _row_seeds(seed, N: int) -> np.ndarray | None:
    """``reset``'s seed as one per row of N: uint64 when every row has one below 2**64, else objects (int or None)."""
    if seed is None:
        return None
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise InvalidArgumentError(f"seed must be non-negative, got {brief(seed)}")
        if int(seed) + N > SEED_BOUND:
            raise InvalidArgumentError(
                f"seed gives env i the seed seed + i, below 2**128: seed must be at most 2**128 - {N}, "
                f"got {brief(seed)}")
        seed = int(seed)
        if seed + N <= 1 << 64:
            return np.arange(N, dtype=np.uint64) + np.uint64(seed)
        return np.array([seed + i for i in range(N)], dtype=object)
    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != N:
            raise InvalidArgumentError(f"a list of seeds must have length num_envs={N}, got {len(seed)}")
        if isinstance(seed, np.ndarray) and seed.ndim == 1 and seed.dtype.kind in "iu" and (
                seed.dtype.kind == "u" or not (seed < 0).any()):
            return seed.astype(np.uint64)
        out = np.empty(N, dtype=object)
        for i, s in enumerate(seed):
            if s is None:
                out[i] = None
            elif isinstance(s, numbers.Integral) and not isinstance(s, bool) and 0 <= int(s) < SEED_BOUND:
                out[i] = int(s)
            else:
                raise InvalidArgumentError(f"seed[{i}] must be an integer in 0..2**128 - 1 or None, got {brief(s)}")
        return out
    raise ArgumentTypeError(f"seed must be an int, a list of ints or None, got {type(seed).__name__}")


# The end of every family docstring's ``## Arguments``: the common arguments, then the settings table.
SETTINGS_DOC = """\
    Every family also takes ``mixer_seed`` and ``settings`` (str -> str, the settings below by
    name, ``docs/levels.md``). ``info_events=True`` puts arrays of length E, not N, in
    ``infos["events"]``, which ``DictInfoToList`` rejects. The settings, as keyword arguments
    or ``settings=``:

"""


class GridVectorEnv(VectorEnv):
    """A batch of N grid worlds stepped by one kernel call per ``step``.

    Subclasses pass the common keyword arguments (the ``COMMON_SETTINGS`` of
    ``gridsim.engine.settings``) on to this constructor, set ``self.state`` (the family's
    state, e.g. ``gridsim.nav.state.NavState``), ``self.kernel`` (its ``gridsim._core``
    kernel) and the single spaces, then call :meth:`_finish_init`. The constructor checks
    ``max_episode_steps`` (None: no limit) into ``self.max_episode_steps``, the limit the
    family's state starts with; a family with a limit of its own (gridroboman's 50) takes the
    keyword itself. The episode's step counter is the state's ``STEP_FIELD``, and
    :attr:`obs_type` names the observation for the tools (a family with an ``obs_type``
    setting sets it).

    Returned arrays are fresh on every call unless ``copy=False``, in which case they
    are the internal buffers: valid until the next call, and rewritten by it.
    Rewards are float32 (the state's ``REWARD_DTYPE``: float64 for a family whose original's
    rewards are doubles), terminations and truncations ``np.bool_``. An observation is an array,
    or a dict of arrays and tuples for a family with a ``Dict`` observation space.

    Seeding (``reset(seed=...)``): an int ``s`` gives env i the key
    ``SeedSequence([s + i, mixer_seed])`` and starts its episode 0 (it also seeds
    ``action_space`` and ``single_action_space`` with ``s``); a list gives env i
    ``seeds[i]`` (``None`` entries continue); ``None`` continues every env with its
    next episode (an env never seeded draws its seed from OS entropy). A row's
    trajectory depends only on its seed and its actions, never on N or the other
    rows. ``s + i`` overlaps between nearby base seeds (``seed=0`` row 1 equals
    ``seed=1`` row 0): use well-separated base seeds or lists. Seeds are below ``2**128``.

    A row steps once its world was reset, started (``start``) or given a state (``set_state``,
    ``load_state_dict``): until every row's was, ``step`` raises Gymnasium's ``ResetNeeded``
    naming the rows that have none, as it does before the first reset (a masked first reset, or
    ``set_state`` of one row of a batch never reset, leaves the others without a world;
    :attr:`has_world` says which have one).

    Threads: calls on one env from several threads run one at a time, each whole (the
    env's lock, ``gridsim.engine.locking``); calls on different envs run in parallel.
    State writes (``reset``, ``load_state_dict``, ``set_state``, property writes) happen
    completely or not at all, also when a ``KeyboardInterrupt`` arrives during them.

    What is not Gymnasium's lives in parts the env holds (``gridsim.engine.parts``), whose
    public names are the env's: ``state_io`` (``state_dict``, ``load_state_dict`` and the end of
    every ``set_state``, ``gridsim.engine.stateio``), ``renderer`` (``render``,
    ``gridsim.engine.rendering``) and, in every family, ``level_api``: the level API of
    ``docs/levels.md`` (``gridsim.lab2d.surface``: ``settings=``, observation and action specs,
    ``observation(name)``, ``start`` / ``advance`` / ``status``, dotted properties and
    kernel-written events). The parts use only the env's public names; every write of the state
    ends in :meth:`commit`.
    """

    # A family's settings: name -> gridsim.engine.settings.Setting (its docstring's table follows from it).
    SETTINGS: dict = {}
    # The events its kernel writes (gridsim.engine.events.EventSpec): a type id is a 1-based position.
    EVENT_SPECS: tuple = ()
    # The observation's name, for tables and records (``gridsim bench``); a family with several sets it.
    obs_type: str = "default"
    # Observation entries that are category ids rather than quantities, so that tools one-hot
    # encode them (``gridsim.tools.torch_agent.ObsEncoder``): for a Box observation the number
    # of ids of each entry of its last axis (ids 0..count-1), for a Dict one {key: that}.
    obs_id_counts: tuple[int, ...] | dict[str, tuple[int, ...]] | None = None
    # Observation entries that are token sequences, 0 padding the end (a BabyAI mission as
    # tokens), so that tools read them with a text encoder: {key of a Dict observation: the
    # number of token ids}.
    obs_token_counts: dict[str, int] | None = None

    # Set by __init__; state and kernel by the family's subclass (its BatchState and its
    # gridsim._core kernel, both replaced by a _Closed that refuses every access on close()).
    state: Any
    kernel: Any
    _autoreset_mode: AutoresetMode
    copy: bool
    mixer_seed: int
    max_episode_steps: int | None
    episode_stats: bool
    obs_dtype: np.dtype | None
    record_events: bool
    max_events_per_step: int
    info_events: bool
    kernel_autoreset: int
    _may_step: bool  # every world has one (reset, started or given a state), and the env is open
    _has_world: np.ndarray  # (U,) bool: which worlds were reset, started or given a state
    _lock: threading.RLock  # held by every call that reads or writes the kernel or the state
    _lost_in_fork = False  # another thread was in a call on it when this process forked (ForkedEnvError)
    _num_threads: int
    _num_threads_setting: int | str
    _fresh_obs: bool
    # stat_mask, then with episode_stats stat_return, stat_length and the stat_extras arrays
    _stat_arrays: tuple[np.ndarray, ...]
    _obs_external: bool
    # Provided by each family class: its compiled level, its constructor's arguments
    # (gridsim.engine.settings.accepts_settings) and its state access.
    level: Any
    init_args: dict[str, Any]
    get_state: Callable[..., dict[str, Any]]
    set_state: Callable[..., tuple[np.ndarray, dict[str, Any]]]
    # Its parts, made with it by __new__. A family names its level API class (a
    # gridsim.lab2d.surface.LevelApi), whose names LevelApiFacade makes the env's (events_batch,
    # which info_events puts in the step's infos, is one).
    state_io: StateIO
    renderer: Renderer
    level_api: Any
    level_api_class: type[Part] | None = None
    events_batch: Callable[[], dict[str, np.ndarray]]
    # Set by gridsim.Level.make_env on the envs it makes.
    level_source: Any = None  # the LevelSource it was made from
    level_def: Any = None  # the gridsim.Level
    level_values: dict[str, Any] = {}  # the values of the level's own settings

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A state saved by this class or by a family class it derives from loads into it (env_class).
        cls.state_class_names = tuple(c.__name__ for c in cls.__mro__
                                      if issubclass(c, GridVectorEnv) and c is not GridVectorEnv)
        if cls.__doc__ and "    {settings}" in cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("    {settings}", SETTINGS_DOC + settings_table(cls.SETTINGS, "    "))

    def __new__(cls, *args, **kwargs):
        """A new env with its lock, before ``__init__`` (which sets the first guarded attributes)."""
        self = super().__new__(cls)
        # Not an attribute a pickle or copy carries (__reduce__ names what they take): every env has its own.
        self._lock = new_lock(self)
        # Its parts, which hold its lock too (a copy builds its own).
        self.state_io = StateIO(self, self._lock)
        self.renderer = Renderer(self, self._lock)
        if cls.level_api_class is not None:
            self.level_api = cls.level_api_class(self, self._lock)
        return self

    def __init__(
        self,
        *,
        num_envs: int,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        copy: bool = True,
        num_threads: int | str = 1,
        mixer_seed: int = 0,
        episode_stats: bool = True,
        obs_dtype=None,
        events: bool = False,
        max_events_per_step: int = 16,
        info_events: bool = False,
        allow_code: bool = True,
        max_episode_steps: int | None = None,
        render_fps: int = 10,
        render_modes: tuple[str, ...] = ("rgb_array", "ansi", "human"),
        _continue_past_end: bool = False,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or not 1 <= num_envs <= MAX_ENVS:
            raise InvalidArgumentError(f"num_envs must be a positive integer up to {MAX_ENVS}, got {num_envs!r}")
        self.num_threads = num_threads  # checked first: it raises in a build without threads
        if not isinstance(mixer_seed, numbers.Integral) or not 0 <= mixer_seed < SEED_BOUND:
            raise InvalidArgumentError(f"mixer_seed must be an integer in 0..2**128 - 1, got {brief(mixer_seed)}")
        if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in render_modes):
            raise InvalidArgumentError(f"render_mode must be one of {list(render_modes)} or None, got {render_mode!r}")
        self.num_envs = int(num_envs)
        self._autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.render_mode = render_mode
        self.copy = as_flag(copy, "copy")
        self.mixer_seed = int(mixer_seed)
        self.episode_stats = as_flag(episode_stats, "episode_stats")
        # Observations are cast to obs_dtype after the kernel writes them (e.g. float32 for CNNs).
        self.obs_dtype = None if obs_dtype is None else _numeric_dtype(obs_dtype)
        # The family's state allocates the kernel's event buffers from these.
        self.record_events = as_flag(events, "events")
        self.max_events_per_step = max_events_per_step
        self.info_events = as_flag(info_events, "info_events")
        # Checked where levels are loaded (gridsim.make); a family's own level argument is a text map.
        self.allow_code = as_flag(allow_code, "allow_code")
        # The common max_steps setting; the family gives it to its state as the first episodes' limit.
        self.max_episode_steps = check_max_steps(max_episode_steps)
        # The kernel's autoreset code; CONTINUE steps on past an episode's end (the single-env views).
        self.kernel_autoreset = _core.AUTORESET_CONTINUE if _continue_past_end else AUTORESET_CODES[self.autoreset_mode]
        self.metadata = {
            "autoreset_mode": self.autoreset_mode,
            "render_modes": list(render_modes),
            "render_fps": render_fps,
        }
        self._may_step = False
        # With copy=True, a kernel that rewrites every row's observation on every step and a large
        # batch of them, step() hands the kernel a fresh array to write into instead of copying its buffer.
        self._fresh_obs = False
        self._obs_external = False  # the kernel currently writes into such a fresh array

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """Gymnasium's autoreset mode of the batch, fixed at construction (``autoreset_mode=``)."""
        return self._autoreset_mode

    @autoreset_mode.setter
    @synchronized
    def autoreset_mode(self, value) -> None:
        # The kernel, the infos and the buffers (final observations exist under SAME_STEP alone)
        # all follow the mode the env was made with.
        raise InvalidArgumentError(f"autoreset_mode is fixed when the env is made (it is {self._autoreset_mode.name}):"
                                   f" make a new env with autoreset_mode={brief(value)}")

    @property
    def num_threads(self) -> int:
        """The kernel's threads (batches under ``self.kernel.thread_min_units`` worlds use one).

        Set it to a positive int or ``"auto"``; it applies from the next call. Results do not
        depend on it: every env's trajectory is the same for every thread count.
        """
        return self._num_threads

    @num_threads.setter
    @synchronized
    def num_threads(self, value: int | str) -> None:
        self.check_open()
        count = parse_num_threads(value)
        # The setting reads back as asked: "auto" stays "auto", other values are the count.
        auto = isinstance(value, str) and value.strip().lower() == "auto"
        calls: list = [(setattr, (self, "_num_threads", count)),
                       (setattr, (self, "_num_threads_setting", "auto" if auto else count))]
        kernel = self.__dict__.get("kernel")
        if kernel is not None:
            calls.append((setattr, (kernel, "num_threads", count)))
        _core.commit([], calls)

    def _finish_init(self):
        """Build the batched spaces and the per-dtype step entry points (after the subclass init)."""
        self.kernel.num_threads = self._num_threads
        if self.info_events and not self.state.events_on:
            raise InvalidArgumentError("info_events=True puts the kernel's events in infos: it needs events=True")
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._fresh_obs = self.copy and self.obs_rewritten_every_step and self.state.obs.nbytes > FRESH_OBS_MIN_BYTES
        self._obs_layout = (self.state.obs.shape, self.state.obs.dtype)  # of the fresh arrays step() fills
        # The statistics step() copies on a call where episodes ended (the state's arrays are
        # written in place, never replaced).
        st = self.state
        self._stat_arrays = (st.stat_mask,)
        if self.episode_stats:
            self._stat_arrays += (st.stat_return, st.stat_length, *(getattr(st, a) for a in self.stat_extras.values()))
        self._all_rows = np.ones(self.num_envs, np.bool_)
        self._has_world = np.zeros(self.state.num_units, np.bool_)
        k = self.kernel
        space = self.single_action_space
        if isinstance(space, (gym.spaces.Discrete, gym.spaces.MultiDiscrete)):
            self._action_shape = (self.num_envs, *(space.shape or ()))
            self._step_by_dtype = {np.dtype(np.int64): k.step_i64, np.dtype(np.int32): k.step_i32}
        else:
            self._action_shape = (self.num_envs, *(space.shape or ()))
            self._step_by_dtype = {np.dtype(np.float32): k.step_f32, np.dtype(np.float64): k.step_f64}

    # ------------------------------------------------------------------ reset

    @synchronized
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset all envs, or those in ``options["reset_mask"]``; returns ``(obs, infos)``.

        ``options`` is never modified. Keys other than ``reset_mask`` go to the envs
        being reset (for example ``"start"`` for the navigation family). Everything is
        checked before anything changes: a refused reset leaves the keys, the seeds,
        ``np_random`` and the action spaces' generators as they were.

        Raises:
            InvalidArgumentError: a seed below 0 or from ``2**128`` on, a list of seeds of
                the wrong length, a bad ``reset_mask`` or an unknown or bad option.
            ArgumentTypeError: ``seed``, ``options`` or ``reset_mask`` of the wrong type.
        """
        self.check_open()
        options = {} if options is None else options
        if not isinstance(options, Mapping):
            raise ArgumentTypeError(f"options must be a dict or None, got {type(options).__name__}")
        mask = _reset_mask(options.get("reset_mask"), self.num_envs)
        seeds = _row_seeds(seed, self.num_envs)
        family_options = {k: v for k, v in options.items() if k != "reset_mask"}
        writes = self._reset_option_writes(mask, family_options)
        unit_mask, seed_writes = self.seed_writes(mask, seeds)
        writes += seed_writes
        calls = self._seeding_calls(int(seed)) if isinstance(seed, numbers.Integral) else []
        calls.append((self.kernel.reset, (unit_mask.view(np.uint8),)))
        # All or nothing, also under KeyboardInterrupt; rows not reset keep their obs (and their world, if any).
        self.commit(writes, calls, worlds=self._has_world | unit_mask)
        obs = self._output(self.state.obs)
        return obs, self._reset_infos(mask)

    def _seeding_calls(self, seed: int) -> list:
        """The generators ``reset(seed=seed)`` gives ``np_random`` and the action spaces, as commit calls."""
        rng, used = seeding.np_random(seed)
        calls: list = [(setattr, (self, "_np_random", rng)), (setattr, (self, "_np_random_seed", used))]
        for space in (self.action_space, self.single_action_space):
            if type(space).seed is gym.spaces.Space.seed:  # one generator: what Space.seed would set
                calls.append((setattr, (space, "_np_random", seeding.np_random(seed)[0])))
            else:  # a composite space seeds its subspaces its own way (no family has one)
                space.seed(seed)
        return calls

    @synchronized
    def seed_writes(self, mask: np.ndarray, seeds: np.ndarray | None) -> tuple[np.ndarray, list]:
        """What reseeding the rows of ``mask`` writes: the mask of their worlds, and the writes for :meth:`commit`.

        ``seeds`` is None or one entry per row (as from ``reset``'s ``seed``). A seeded world gets
        new keys and episode 0, the others their next episode (a world never seeded draws its seed
        from OS entropy). Nothing is written here.
        """
        mask, seeds = self._rows_to_units(mask, seeds)
        st = self.state
        idx = np.flatnonzero(mask)
        given = np.full(len(idx), None, dtype=object) if seeds is None else seeds[idx]
        writes: list = []
        if given.dtype == object:
            missing = np.equal(given, None)  # type: ignore[call-overload]  # numpy's stubs omit None operands
            # Envs reset without a seed that were never seeded take one from OS entropy.
            fresh = missing & ~st.seeded[idx]
            given[fresh] = [entropy_seed() for _ in range(int(fresh.sum()))]
            continuing = missing & ~fresh
            rows = idx[continuing]
            writes.append((st.episode, rows, st.episode[rows] + 1))
            idx, given = idx[~continuing], given[~continuing]
        if len(idx):
            n = len(idx)
            writes += [(st.key, idx, self._derive_keys(given)), (st.episode, idx, np.zeros(n, st.episode.dtype)),
                       (st.reseed, idx, np.ones(n, np.bool_)), (st.seeded, idx, np.ones(n, np.bool_)),
                       (st.seeds, idx, given.astype(object))]  # Python ints
        return mask, writes

    def _derive_keys(self, seeds: np.ndarray) -> np.ndarray:
        """The per-world keys of ``seeds`` (``gridsim.engine.rng.derive_keys``), in the kernel where they fit."""
        try:
            values = seeds.astype(np.uint64)
        except OverflowError:  # a seed of 2**64 or more
            values = None
        if values is None or self.mixer_seed >= 1 << 64:
            return derive_keys(seeds.tolist(), self.mixer_seed)
        keys = np.empty((len(values), 2), dtype=np.uint64)
        _core.derive_keys(values, self.mixer_seed, keys, self.kernel.num_threads)
        return keys

    def _rows_to_units(self, mask: np.ndarray, seeds):
        """Family hook: the reset mask and seeds per simulated world (a row is one world by default)."""
        return mask, seeds

    def _reset_option_writes(self, mask: np.ndarray, options: Mapping[str, Any]) -> list:
        """Family hook: check the reset options of the masked envs (unknown keys raise) and return their writes.

        The writes are ``_core.commit``'s; they are made with the reset's other writes, all at once.
        """
        if options:
            raise InvalidArgumentError(f"unknown reset options {sorted(options)}")
        return []

    def _reset_infos(self, mask: np.ndarray) -> dict[str, Any]:
        """Family hook: infos of the envs just reset."""
        return {}

    # ------------------------------------------------------------------- step

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env; see the class docstring for the autoreset timelines."""
        # The env's lock, taken by hand: this is the one path where the decorator's call would show.
        lock = self._lock
        lock.acquire()
        try:
            if not self._may_step:  # also False once closed
                self.check_open()
                raise gym.error.ResetNeeded(self._reset_needed_message())
            st = self.state
            if self._fresh_obs:
                obs = np.empty(*self._obs_layout)
                self.kernel.bind_obs(obs)
                self._obs_external = True
            try:  # fast path: an array of the exact shape, of a dtype the kernel takes as it is
                if actions.shape != self._action_shape:  # the kernel checks only the element count
                    raise ValueError  # caught below: the slow path checks and converts
                n_done = self._step_by_dtype[actions.dtype](actions)
            except (AttributeError, KeyError, TypeError, ValueError):
                actions, fn = self._coerce_actions(actions)
                n_done = fn(actions)
            if n_done < 0:
                raise self._kernel_error(actions)
            if self.copy:
                if self._fresh_obs:
                    rewards, terminated, truncated = _core.copies((st.rewards, st.terminated, st.truncated))
                else:
                    obs, rewards, terminated, truncated = _core.copies(
                        (st.obs, st.rewards, st.terminated, st.truncated))
            else:
                obs, rewards, terminated, truncated = st.obs, st.rewards, st.terminated, st.truncated
            infos: dict[str, Any] = {}
            if self.has_step_infos:
                self._step_infos(infos)
            if n_done:
                self._ended_infos(infos)
            if self.info_events:  # arrays of length E (events), not N
                infos["events"] = self.events_batch()
            return self._present_obs(obs), rewards, terminated, truncated, infos
        finally:
            lock.release()

    # Families with per-step infos set this and override _step_infos (and _final_step_infos).
    has_step_infos = False
    # Extra episode statistics: info name -> state array (e.g. "success" -> "stat_success").
    stat_extras: dict[str, str] = {}

    # A function from the kernel's observation batch to the one returned (None: as written).
    obs_transform: Callable[[np.ndarray], Any] | None = None

    # Whether the kernel writes every row's observation on every step (not true of images
    # that are kept up to date cell by cell).
    obs_rewritten_every_step = True

    def _step_infos(self, infos: dict):
        """Family hook: the infos of every step (for example action masks)."""

    def _final_step_infos(self, infos: dict, ended: np.ndarray):
        """Family hook: under SAME_STEP, the step infos of the final states of ``ended`` rows."""

    def _ended_infos(self, infos: dict):
        """Add the infos of the rows whose episode ended on this call (in ``final_info`` under SAME_STEP)."""
        st = self.state
        stats = _core.copies(self._stat_arrays)
        ended = stats[0]
        same_step = self._autoreset_mode is AutoresetMode.SAME_STEP
        terminal_info: dict[str, Any] = {} if same_step else infos
        if same_step:
            self._final_step_infos(terminal_info, ended)
        if self.episode_stats:
            episode_stats = {"return": stats[1], "_return": ended, "length": stats[2], "_length": ended}
            for name, value in zip(self.stat_extras, stats[3:], strict=True):
                episode_stats[name] = value
                episode_stats["_" + name] = ended
            terminal_info["episode_stats"] = episode_stats
            terminal_info["_episode_stats"] = ended
        if same_step:
            final_obs = np.full(self.num_envs, None, dtype=object)
            rows = np.flatnonzero(ended)
            values = self._present_obs(st.final_obs[rows], rows, final=True)
            for k, i in enumerate(rows):
                final_obs[i] = values[k]
            # The top-level step infos already describe each row's current state: the new
            # episode's first state on the rows that just reset.
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended
            infos["final_info"] = terminal_info
            infos["_final_info"] = ended

    def _coerce_actions(self, actions):
        """The slow path: convert and validate actions of any array-like and dtype."""
        a = np.asarray(actions)
        discrete = isinstance(self.single_action_space, gym.spaces.Discrete)
        if a.shape != self._action_shape:
            raise InvalidActionError(
                f"actions must have shape {self._action_shape} (num_envs={self.num_envs}), got {a.shape}"
            )
        if discrete:
            if a.dtype.kind not in "iu":
                raise InvalidActionError(
                    f"discrete actions must have an integer dtype, got {a.dtype}"
                )
            if a.dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
                i = int(np.argmax(a))
                raise InvalidActionError(
                    f"actions[{i}] = {a[i]} is out of range for {self.single_action_space}"
                )
            a = np.ascontiguousarray(a, dtype=np.int64)
        else:
            if a.dtype.kind not in "fiu":
                raise InvalidActionError(f"continuous actions must be numbers, got dtype {a.dtype}")
            a = np.ascontiguousarray(a, dtype=np.float32 if a.dtype == np.float32 else np.float64)
        return a, self._step_by_dtype[a.dtype]

    def _kernel_error(self, actions) -> Exception:
        code, i = self.kernel.err_code, self.kernel.err_env
        if code == _core.ERR_BAD_ACTION:
            return InvalidActionError(
                f"actions[{i}] = {actions[i]} is out of range for {self.single_action_space}; "
                "no env was stepped"
            )
        if code == _core.ERR_NAN_ACTION:
            return InvalidActionError(
                f"actions[{i}] = {actions[i]} contains NaN; no env was stepped "
                "(nan_action='zero' treats NaN components as 0)"
            )
        if code == _core.ERR_NEEDS_RESET:
            return KernelError(
                f"env {i} ended and autoreset_mode is DISABLED: reset it with "
                "reset(options={'reset_mask': mask}) before stepping it again; no env was stepped",
                env=i,
                code=code,
            )
        if code == _core.ERR_BAD_SHAPE:
            return InvalidActionError(
                f"actions must have shape {self._action_shape}, got {np.shape(actions)}"
            )
        return KernelError(f"kernel error code {code} in env {i}", env=i, code=code)

    def _output(self, arr: np.ndarray, row: int | None = None):
        """Observations to return: the batch of the internal buffer, or its row ``row`` (``arr`` that row)."""
        out = arr.copy() if self.copy else arr
        if row is None:
            return self._present_obs(out)
        return self._present_obs(out[None], np.array([row]))[0]

    def _present_obs(self, obs: np.ndarray, rows: np.ndarray | None = None, final: bool = False):
        """Family hook: what is returned for the kernel's observations ``obs`` of ``rows`` (None: every row).

        ``final``: they are the final observations of those rows (SAME_STEP). With ``rows`` the
        result is indexed by position in ``rows``. By default: ``obs_transform``, then ``obs_dtype``.
        """
        if self.obs_transform is not None:
            obs = self.obs_transform(obs)
        if self.obs_dtype is not None:
            obs = obs.astype(self.obs_dtype)
        return obs

    # ---------------------------- the interface its parts use (state I/O, rendering, level API)

    @synchronized
    def check_open(self) -> None:
        """Raise :class:`gridsim.ClosedEnvError` if the env is closed (``ForkedEnvError`` if a fork took it)."""
        if self.closed:
            raise ClosedEnvError(_closed_message(self))
        if self._lost_in_fork:
            raise ForkedEnvError(_forked_message(self))

    @synchronized
    def row_index(self, index: int) -> int:
        """A row index (negative counts from the end) checked against ``num_envs``."""
        if not isinstance(index, (int, np.integer)) or not -self.num_envs <= index < self.num_envs:
            raise EnvIndexError(f"env index {index!r} out of range for {self.num_envs} envs")
        return int(index) % self.num_envs

    @property
    def row_units(self) -> np.ndarray:
        """(N,) the simulated world of each row (rows and worlds coincide except in agent-rows views)."""
        return np.arange(self.num_envs)

    @property
    @synchronized
    def started(self) -> bool:
        """Whether the batch may step: every world was reset, started or given a state, and it is not closed."""
        return self._may_step

    @property
    @synchronized
    def has_world(self) -> np.ndarray:
        """(U,) bool, a copy: which worlds were reset, started or given a state (the others cannot step)."""
        return self._has_world.copy()

    @property
    @synchronized
    def num_threads_setting(self) -> int | str:
        """:attr:`num_threads` as it was set: ``"auto"`` or the count."""
        return self._num_threads_setting

    @synchronized
    def sync_obs(self) -> None:
        """Point the kernel back at the state's observation buffer, rewritten from the state.

        ``step`` may have had the kernel write a fresh array instead; call this before reading
        ``state.obs`` or writing the state outside ``reset`` and ``step``.
        """
        if self._obs_external:
            self.kernel.bind_obs(self.state.obs)
            self.kernel.observe(self._has_world.view(np.uint8))
            self._obs_external = False

    @synchronized
    def commit(self, writes: list, calls: Sequence[tuple[Callable[..., Any], tuple]] = (),
               worlds: np.ndarray | None = None) -> None:
        """Write ``writes`` and make ``calls`` all at once (``gridsim._core.commit``).

        Every state write ends here (a reset, a start, a loaded or injected state): also under
        ``KeyboardInterrupt`` the batch is all old or all new. ``calls`` are compiled ``(function,
        args)`` pairs, so that no Python line runs between the writes. ``worlds`` (bool (U,)) says
        which worlds hold a world after the write (None: every one, as after a full reset); the
        batch may step once every world does.
        """
        self.sync_obs()
        has_world = np.ones_like(self._has_world) if worlds is None else np.array(worlds, np.bool_)
        _core.commit([*writes, (self._has_world, has_world)],
                     [*calls, (setattr, (self, "_may_step", bool(has_world.all())))])

    def _reset_needed_message(self) -> str:
        """Why ``step`` refuses an open batch: no world, or the rows whose worlds were never given one."""
        missing = np.flatnonzero(~self._has_world[self.row_units])
        if len(missing) == self.num_envs:
            return "call reset() before step()"
        shown = ", ".join(map(str, missing[:8].tolist())) + (", ..." if len(missing) > 8 else "")
        return (f"{len(missing)} of {self.num_envs} envs were never reset, started or given a state "
                f"(envs {shown}): reset them, e.g. reset(options={{'reset_mask': mask}}), before step()")

    @synchronized
    def row_obs(self, row: int):
        """Row ``row``'s observation, as ``reset`` and ``step`` return it."""
        return self._output(self.state.obs[row], row)

    def single_obs(self, obs):
        """Row 0 of a batch of observations (as ``reset`` and ``step`` return them), as one env returns it.

        A copy: the single-env view (:class:`gridsim.engine.single.SingleEnvView`) returns this
        for a one-row batch. A family whose observation is not one array (a dict) overrides it.
        """
        return obs[0].copy()

    @synchronized
    def step_without_autoreset(self, actions) -> None:
        """One kernel step of every env with autoreset off; the outputs stay in the state.

        The actions are checked and converted as ``step`` does; an error of the kernel's raises
        (no env was stepped).
        """
        self.sync_obs()
        k = self.kernel
        mode = k.autoreset_mode
        k.autoreset_mode = _core.AUTORESET_DISABLED
        try:
            actions, fn = self._coerce_actions(actions)
            n_done = fn(actions)
        finally:
            k.autoreset_mode = mode
        if n_done < 0:
            raise self._kernel_error(actions)

    # --------------------------------------------------- state I/O (gridsim.engine.stateio)

    def level_name(self) -> str:
        """Family hook: the name of the level the env plays, as a saved state's ``rules`` record it."""
        return str(getattr(self.compiled_level(), "name", type(self).__name__))

    @synchronized
    def rules_signature(self) -> dict[str, str]:
        """What decides how a saved state of this env plays on, as text: a state of other rules is refused.

        ``level`` (:meth:`level_name`), ``level_digest`` where the family's state lists the
        tables of its compiled level (``BatchState.RULE_TABLES``: a map's tiles and what its
        symbols do, so two maps of one name differ), and every setting declared with
        ``rules=True`` (nav's ``actions``). Observation settings are not among them: a loaded
        state is observed afresh. ``state_dict()`` records it under ``rules``.
        """
        self.check_open()
        signature = {"level": self.level_name()}
        if self.state.RULE_TABLES:
            signature["level_digest"] = self.state.rules_digest()
        for key, setting in self.SETTINGS.items():
            if setting.rules:
                signature[key] = format_value(getattr(self, setting.kwarg or key))
        return signature

    # set_state keys -> the state fields they write, for messages (a family's snapshot names).
    STATE_LABELS: Mapping[str, str] = {}
    # The env classes whose saved states this one loads (set for each subclass).
    state_class_names: tuple[str, ...] = ()
    state_dict = Delegate("state_io", StateIO.state_dict)
    load_state_dict = Delegate("state_io", StateIO.load_state_dict)

    # ----------------------------------------------------------------- render

    render = Delegate("renderer", Renderer.render)

    def compiled_level(self):
        """The compiled level the kernel plays (a family's level object; ``gridsim.Level.compile``)."""
        return self.level

    def render_frame(self, index: int = 0, cell_px: int | None = None) -> np.ndarray:
        """One env's frame as a fresh uint8 (H, W, 3) array, ``cell_px`` pixels per cell (None: the env's size)."""
        raise NotImplementedError

    def render_text(self, index: int = 0) -> str:
        """One env as text."""
        raise NotImplementedError

    # ------------------------------------------------------------------ close

    @synchronized
    def close(self, **kwargs):
        """Close the env (idempotent): every later call raises :class:`gridsim.ClosedEnvError`."""
        super().close(**kwargs)

    @synchronized
    def close_extras(self, **kwargs):
        """Close the render window, if any, and release the kernel and the state."""
        self.renderer.close()
        self._refuse_calls(ClosedEnvError, _closed_message(self))

    def _refuse_calls(self, error: type[ClosedEnvError], message: str) -> None:
        """Release the kernel and the state: every later method call raises ``error``.

        The methods that check nothing themselves reach the state or the kernel, whose stand-ins
        refuse every access; ``step`` finds it may not step and asks :meth:`check_open` why.
        """
        self._may_step = False
        if "state" in self.__dict__:
            self.state = _Closed(error, message)
        if "kernel" in self.__dict__:
            self.kernel = _Closed(error, message)
        self._step_by_dtype = {}
        self._stat_arrays = ()

    def _forked_mid_call(self, lock: threading.RLock) -> None:
        """In a forked child, when another thread was in a call on this env at the fork: refuse every call.

        That thread is gone and its call stopped half done, so the state may be half written; the
        env's lock, which it held, would stay held forever. The env and its parts take ``lock``, a
        new one, and every later call raises :class:`gridsim.ForkedEnvError` (``close()`` works).
        Run by ``gridsim.engine.locking`` after the fork, with no other thread in the process.
        """
        held = self._lock
        for holder in (self, *vars(self).values()):
            if isinstance(holder, (GridVectorEnv, Part)) and holder._lock is held:
                holder._lock = lock
        self._lost_in_fork = True
        self._refuse_calls(ForkedEnvError, _forked_message(self))

    # ---------------------------------------------------------- pickle / copy

    # Attributes set after construction that a copy takes over as they are.
    _PICKLED_ATTRS: tuple[str, ...] = ("level_def", "level_values", "level_source", "max_episode_steps", "_np_random",
                      "_np_random_seed", "action_space", "single_action_space")

    @synchronized
    def __reduce__(self):
        """Pickle (and ``copy.deepcopy``) as the constructor arguments plus :meth:`state_dict`.

        The copy is an independent env that continues bit-identically; the kernel itself
        does not pickle.
        """
        self.check_open()
        attrs = {k: self.__dict__[k] for k in self._PICKLED_ATTRS if k in self.__dict__}
        attrs["num_threads"] = self._num_threads_setting
        return _restore_vector_env, (type(self), dict(self.init_args), self.state_dict(), attrs)

    def __del__(self):
        if getattr(self, "closed", True):
            return
        # No thread is in a call on an env being freed (it would hold a reference): a lock held
        # now was left held (an interrupt between its acquire and the call's block), and the
        # finalizer, on whatever thread the collector runs, must not wait for it forever.
        lock = getattr(self, "_lock", None)
        if lock is not None and not lock.acquire(blocking=False):
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass
        finally:
            if lock is not None:
                lock.release()

    # -------------------------------------------------------- call / get_attr

    @synchronized
    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute of the env, once per env (as ``SyncVectorEnv`` returns it)."""
        return (getattr(self, name),) * self.num_envs

    @synchronized
    def call(self, name: str, *args, **kwargs) -> tuple[Any, ...]:
        """Call a method once per env, passing ``index=i``, or repeat an attribute."""
        attr = getattr(self, name)
        if callable(attr):
            return tuple(attr(*args, index=i, **kwargs) for i in range(self.num_envs))
        return (attr,) * self.num_envs

    @synchronized
    def set_attr(self, name: str, values):
        """Set an attribute; a sequence must hold one identical value per env."""
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise InvalidArgumentError(f"need {self.num_envs} values, got {len(values)}")
            if any(v != values[0] for v in values):
                raise InvalidArgumentError(f"{name} is shared by the batch; all values must be equal")
            values = values[0]
        setattr(self, name, values)


def _closed_message(env) -> str:
    return f"{type(env).__name__} is closed: create a new env"


def _forked_message(env) -> str:
    return (f"this {type(env).__name__} was in a call on another thread when the process forked: in this "
            "process that call stopped half done, so the env refuses every call; create a new env here")


class _Closed:
    """Stands in for the state and kernel of an env that refuses calls: every access raises its error."""

    __slots__ = ("_error", "_message")

    def __init__(self, error: type[ClosedEnvError], message: str):
        object.__setattr__(self, "_error", error)
        object.__setattr__(self, "_message", message)

    def __getattr__(self, name):
        raise self._error(self._message)

    def __setattr__(self, name, value):
        raise self._error(self._message)


def _restore_vector_env(cls, init_args: dict, state: dict, attrs: dict):
    """Unpickle a vector env: rebuild it from its constructor arguments, then load its state."""
    from gridsim.engine.settings import internal_arguments

    with internal_arguments():  # init_args holds the private ones gridsim passed (_continue_past_end)
        env = cls(**init_args)
    num_threads = attrs.pop("num_threads", None)
    env.load_state_dict(state)  # which worlds it has too (has_world)
    env.__dict__.update(attrs)
    if num_threads is not None:
        env.num_threads = num_threads
    return env
