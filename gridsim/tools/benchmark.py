"""Throughput measurement shared by ``gridsim bench`` and the scripts in ``bench/``.

Actions are generated before timing, every measurement is warmed up, and the
best of several repeats is reported (the machine's noise only ever slows a run).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np

from gridsim._version import installed_version
from gridsim.engine.family import Family
from gridsim.engine.vector import GridVectorEnv
from gridsim.families import family_of, family_row
from gridsim.make import load_level
from gridsim.tools.env_names import gridsim_id

__all__ = ["BenchTarget", "Measurement", "bench_target", "machine_info", "make_actions", "measure", "measure_threads",
           "obs_type_of", "raw_step_fn"]


@dataclass(frozen=True)
class BenchTarget:
    """What ``gridsim bench --level NAME`` times (:func:`bench_target`).

    Attributes:
        kind: ``"id"`` (a registered id) or ``"level"`` (a level name or file).
        name: the id as registered, or the level's name as given.
        family: the family of its env (its observation types, and those timed by default).
        make: ``make(num_envs, **kwargs)`` builds a batch of it, ``kwargs`` (``num_threads``,
            ``obs_type``) over its own.
    """

    kind: str
    name: str
    family: Family
    make: Callable[..., GridVectorEnv]


def bench_target(name: str | Path, level_directory: str | Path | None = None) -> BenchTarget:
    """What ``gridsim bench`` times for ``--level name``.

    A registered gridsim id, also without its namespace (Minigrid's ``MiniGrid-DoorKey-8x8-v0``:
    :func:`gridsim.tools.env_names.gridsim_id`), is its env as registered: a batch is
    ``gymnasium.make_vec(id, num_envs=N)``, with the id's keyword arguments and step limit, the
    env ``gymnasium.make(id)`` makes, batched. A level name or file is :func:`gridsim.make`'s level
    with the family's benchmark settings (``FamilyTools.bench_kwargs``; navigation and kitchens:
    episodes of 100 steps).

    Args:
        name: an id, a level name, or a level file as a ``pathlib.Path``.
        level_directory: a folder searched for a level name before the built-in levels.

    Raises:
        gridsim.GridSimError: a name that is no id and no level (the error names the closest ids
            and levels), or an env that does not build.
    """
    env_id = gridsim_id(name) if isinstance(name, str) else None
    if env_id is None:
        level, source = load_level(name, level_directory)
        family = family_row(level.family)

        def make_level_batch(num_envs: int, **kwargs: Any) -> GridVectorEnv:
            return level.make_env(num_envs, settings={}, source=source, **{**family.tools.bench_kwargs, **kwargs})

        return BenchTarget("level", os.fspath(name), family, make_level_batch)

    def make_id_batch(num_envs: int, **kwargs: Any) -> GridVectorEnv:
        # A gridsim id's vector entry point (gridsim_id) is a family's env class or gridsim.make.
        return cast(GridVectorEnv, gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                                                **kwargs))

    # A one-env batch tells the family (an id of a level by name has its level's) and shows, before
    # any table, that the id builds.
    probe = make_id_batch(1)
    try:
        family = family_of(probe)
    finally:
        probe.close()
    return BenchTarget("id", env_id, family, make_id_batch)


@dataclass
class Measurement:
    """One timed configuration: the best and all repeats."""

    level: str
    obs_type: str
    actions: str
    mode: str  # "raw" (the kernel call alone) or "step" (GridVectorEnv.step)
    num_envs: int
    steps: int
    seconds: list[float]
    bytes_per_env: float
    threads: int = 1  # the kernel's num_threads

    @property
    def best_seconds(self) -> float:
        """The fastest repeat."""
        return min(self.seconds)

    @property
    def env_steps_per_s(self) -> float:
        """Env-steps per second of the fastest repeat."""
        return self.num_envs * self.steps / self.best_seconds

    @property
    def ns_per_env_step(self) -> float:
        """Nanoseconds per env-step of the fastest repeat."""
        return 1e9 / self.env_steps_per_s

    def as_dict(self) -> dict:
        """A JSON-ready dict with the derived rates."""
        out = asdict(self)
        out.update(env_steps_per_s=self.env_steps_per_s, ns_per_env_step=self.ns_per_env_step)
        return out


def obs_type_of(envs) -> str:
    """The observation type of a batch, for the tables.

    Its ``obs_type`` setting as given (``settings.obs_type``), else the env's
    :attr:`~gridsim.GridVectorEnv.obs_type` (``"default"`` for a family with one observation).
    """
    _, value = envs.try_read_property("settings.obs_type")
    return value if value is not None else str(getattr(envs, "obs_type", "default"))


def make_actions(action_space, steps: int, num_envs: int, seed: int = 0) -> np.ndarray:
    """Valid random actions for ``steps`` calls: int64 (steps, N) or float32 (steps, N, ...)."""
    rng = np.random.default_rng(seed)
    if hasattr(action_space, "nvec"):  # MultiDiscrete: one action per agent
        return rng.integers(0, action_space.nvec, size=(steps, num_envs, *action_space.shape), dtype=np.int64)
    if hasattr(action_space, "n"):
        low = int(action_space.start)
        return rng.integers(low, low + int(action_space.n), size=(steps, num_envs), dtype=np.int64)
    shape = (steps, num_envs, *action_space.shape)
    return rng.random(shape, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)


def raw_step_fn(envs, actions: np.ndarray):
    """The bare kernel entry point for actions of this dtype (returns episodes ended, < 0 on error)."""
    if actions.dtype == np.int64:
        return envs.kernel.step_i64
    if actions.dtype == np.float32:
        return envs.kernel.step_f32
    raise TypeError(f"no raw kernel entry point for actions of dtype {actions.dtype}")


def _time_calls(fn, actions: np.ndarray) -> float:
    """Seconds of one timed repeat: ``fn`` called on each step's actions in turn."""
    t0 = time.perf_counter()
    for a in actions:
        fn(a)
    return time.perf_counter() - t0


def measure(envs, actions: np.ndarray, modes=("raw", "step"), repeats: int = 5,
            warmup: int = 10, level: str = "", obs_type: str = "",
            progress: Callable[[], object] | None = None) -> list[Measurement]:
    """Time ``envs`` over the pre-generated ``actions`` (steps, N, ...) in each mode.

    Repeats of the modes are interleaved so that noise on a shared machine hits
    them alike. ``progress`` is called after each repeat (outside the timed part).
    Returns one :class:`Measurement` per mode.
    """
    steps = len(actions)
    fns = {"raw": raw_step_fn(envs, actions), "step": envs.step}
    for mode in modes:
        for t in range(min(warmup, steps)):
            result = fns[mode](actions[t])
            if mode == "raw" and result < 0:
                raise RuntimeError(f"kernel error {envs.kernel.err_code} during warm-up")
    times: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(repeats):
        for mode in modes:
            times[mode].append(_time_calls(fns[mode], actions))
        if progress is not None:
            progress()
    bytes_per_env = envs.state.nbytes_per_env()
    action_name = getattr(envs, "actions", "")
    return [
        Measurement(level, obs_type, action_name, m, envs.num_envs, steps, times[m], bytes_per_env,
                    envs.num_threads)
        for m in modes
    ]


def measure_threads(envs, actions: np.ndarray, thread_counts, mode: str = "step", repeats: int = 5,
                    warmup: int = 10, warmup_seconds: float = 0.5, level: str = "",
                    obs_type: str = "", progress: Callable[[], object] | None = None) -> list[Measurement]:
    """Time one mode of ``envs`` at each of ``thread_counts`` kernel threads.

    Each thread count first runs untimed for ``warmup`` calls and at least ``warmup_seconds``:
    on a small virtual machine the first tenths of a second on threads can run at one
    thread's speed, until the OS places the new threads on cores of their own. Then the
    thread counts take turns within every repeat (their order reversed on every other
    repeat), so a noisy machine slows them alike. ``envs.num_threads`` is restored after.
    ``progress`` is called after each repeat (outside the timed part).
    Returns one :class:`Measurement` per thread count, in the order given.
    """
    steps = len(actions)
    fn = raw_step_fn(envs, actions) if mode == "raw" else envs.step
    before = envs.num_threads
    counts = list(thread_counts)
    times: dict[int, list[float]] = {i: [] for i in range(len(counts))}
    try:
        for n in counts:
            envs.num_threads = n
            calls, t0 = 0, time.perf_counter()
            while calls < warmup or time.perf_counter() - t0 < warmup_seconds:
                fn(actions[calls % steps])
                calls += 1
        for r in range(repeats):
            order = range(len(counts)) if r % 2 == 0 else reversed(range(len(counts)))
            for i in order:
                envs.num_threads = counts[i]
                times[i].append(_time_calls(fn, actions))
            if progress is not None:
                progress()
        threads = []
        for n in counts:
            envs.num_threads = n
            threads.append(envs.num_threads)  # "auto" as the count it stands for
    finally:
        envs.num_threads = before
    bytes_per_env = envs.state.nbytes_per_env()
    action_name = getattr(envs, "actions", "")
    return [
        Measurement(level, obs_type, action_name, mode, envs.num_envs, steps, times[i], bytes_per_env, threads[i])
        for i in range(len(counts))
    ]


def machine_info() -> dict:
    """CPU model, core count and the versions that matter for a benchmark line."""
    import gymnasium

    cpu = platform.processor() or platform.machine() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import Cython

        cython_version = Cython.__version__
    except ImportError:
        cython_version = None
    return {
        "cpu_model": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cython": cython_version,
        "gymnasium": gymnasium.__version__,
        "gridsim": installed_version(),
    }
