"""Check a task gridsim plays against its Minigrid class, side by side: :func:`compare_with_class`.

Both are reset with the same seeds and given the same actions; after every reset and every
step everything is compared: the observation (image, direction, mission), the reward (its
float64 bits), terminated and truncated, and the state, the generator's included
(``gridsim.minigrid.interop.state_of`` of the class's env against gridsim's ``get_state``):
grid, box contents, agent, carried object, step count, mission and the numpy PCG64 state.
The first difference raises :class:`TaskMismatch`, which says where and what.

Example:
    >>> from gridsim.minigrid.checking import compare_with_class  # doctest: +SKIP
    >>> compare_with_class(MyTask, seeds=range(20), steps=300)  # doctest: +SKIP
    CheckReport(resets=..., steps=6000, episodes=...)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridsim.errors import GridSimError
from gridsim.minigrid.interop import state_of

__all__ = ["CheckReport", "TaskMismatch", "compare_with_class"]

STATE_KEYS = ("agent_pos", "agent_dir", "carrying", "carrying_contents", "step_count", "mission")


class TaskMismatch(GridSimError, AssertionError):
    """gridsim's env and the class's differ: ``where`` (seed, step), ``what``, and both values."""

    def __init__(self, where: str, what: str, reference: Any, gridsim: Any):
        super().__init__(f"{where}: {what} differs\n  the class: {reference!r}\n  gridsim:   {gridsim!r}")
        self.where, self.what, self.reference, self.gridsim = where, what, reference, gridsim


@dataclass
class CheckReport:
    """What :func:`compare_with_class` ran: resets, steps and ended episodes, all equal."""

    resets: int = 0
    steps: int = 0
    episodes: int = 0


def _compare_obs(ref: Any, ours: Any, where: str) -> None:
    if isinstance(ref, dict):
        for key in ("image", "direction", "mission"):
            a, b = ref[key], ours[key]
            if not np.array_equal(np.asarray(a), np.asarray(b)):
                raise TaskMismatch(where, f"observation[{key!r}]", a, b)
    elif not np.array_equal(ref, ours):
        raise TaskMismatch(where, "observation", ref, ours)


def _compare_state(ref_env: Any, state: dict, where: str) -> None:
    want = state_of(ref_env)
    if state["bit_generator"] != want["bit_generator"]:
        raise TaskMismatch(where, "the generator's state (np_random.bit_generator.state)", want["bit_generator"],
                           state["bit_generator"])
    if not np.array_equal(state["grid"], want["grid"]):
        raise TaskMismatch(where, "grid (grid.encode(), objects shown [y, x])", want["grid"][..., 0].T,
                           np.asarray(state["grid"])[..., 0].T)
    if not np.array_equal(state["contents"], want["contents"]):
        raise TaskMismatch(where, "box contents", want["contents"].T, np.asarray(state["contents"]).T)
    for key in STATE_KEYS:
        ours = tuple(state[key]) if key == "carrying" and state[key] is not None else state[key]
        if ours != want[key]:
            raise TaskMismatch(where, key, want[key], ours)


def compare_with_class(task: type, *, env: Any = None, make_reference: Callable[[], Any] | None = None,
                       seeds: Iterable[int] = range(8), steps: int = 200, **kwargs: Any) -> CheckReport:
    """Play gridsim's env of ``task`` and ``task(**kwargs)`` side by side; raise at the first difference.

    Args:
        task: the Minigrid class (a ``MiniGridEnv`` subclass).
        env: the gridsim env to check (a ``gymnasium.Env`` with ``get_state``); default: the
            class played by gridsim (``gridsim.minigrid.python_tasks.PythonTaskEnv``).
        make_reference: makes the class's env (default: ``task(**kwargs)``).
        seeds: each seed runs ``steps`` steps from ``reset(seed=seed)``; an episode that ends
            is followed by ``reset()`` (no seed), so one generator stream runs on.
        steps: steps per seed. Actions are uniform, drawn from a generator of the seed.
        **kwargs: the class's arguments.

    Returns:
        A :class:`CheckReport` of what was compared.

    Raises:
        TaskMismatch: the first difference (seed, step, what, both values).
    """
    if env is None:
        from gridsim.minigrid.python_tasks import PythonTaskEnv

        env = PythonTaskEnv(task=task, **kwargs)
    ref = task(**kwargs) if make_reference is None else make_reference()
    u = getattr(env, "unwrapped", env)
    report = CheckReport()
    n = int(ref.action_space.n)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        label = f"seed {seed}"
        r_obs, _ = ref.reset(seed=seed)
        o_obs, _ = env.reset(seed=seed)
        _compare_state(ref, u.get_state(), label + " reset")
        _compare_obs(r_obs, o_obs, label + " reset")
        report.resets += 1
        for t in range(1, steps + 1):
            where = f"{label} step {t}"
            action = int(rng.integers(n))
            r_out, o_out = ref.step(action), env.step(action)
            _compare_state(ref, u.get_state(), where)
            _compare_obs(r_out[0], o_out[0], where)
            for k, what in ((1, "reward"), (2, "terminated"), (3, "truncated")):
                if np.float64(float(r_out[k])).tobytes() != np.float64(float(o_out[k])).tobytes():
                    raise TaskMismatch(where, what, r_out[k], o_out[k])
            report.steps += 1
            if r_out[2] or r_out[3]:
                report.episodes += 1
                r_obs, _ = ref.reset()
                o_obs, _ = env.reset()
                _compare_state(ref, u.get_state(), where + " reset")
                _compare_obs(r_obs, o_obs, where + " reset")
                report.resets += 1
    return report
