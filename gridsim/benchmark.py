"""Throughput measurement shared by ``gridsim bench`` and the scripts in ``bench/``.

Actions are generated before timing, every measurement is warmed up, and the
best of several repeats is reported (the machine's noise only ever slows a run).
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["Measurement", "machine_info", "make_actions", "measure"]


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


def make_actions(envs, steps: int, seed: int = 0) -> np.ndarray:
    """``steps`` batches of valid random actions for ``envs``, in the dtype the kernel takes."""
    rng = np.random.default_rng(seed)
    space = envs.single_action_space
    if hasattr(space, "n"):
        return rng.integers(0, space.n, (steps, envs.num_envs), dtype=np.int64)
    return rng.uniform(-1, 1, (steps, envs.num_envs, *space.shape)).astype(np.float32)


def _raw_step(envs, actions: np.ndarray):
    kernel = envs.kernel
    return kernel.step_i64 if actions.dtype == np.int64 else kernel.step_f32


def measure(envs, actions: np.ndarray, modes=("raw", "step"), repeats: int = 5,
            warmup: int = 10, level: str = "", obs_type: str = "") -> list[Measurement]:
    """Time ``envs`` over the pre-generated ``actions`` (steps, N, ...) in each mode.

    Repeats of the modes are interleaved so that noise on a shared machine hits
    them alike. Returns one :class:`Measurement` per mode.
    """
    steps = len(actions)
    fns = {"raw": _raw_step(envs, actions), "step": envs.step}
    for mode in modes:
        for t in range(min(warmup, steps)):
            result = fns[mode](actions[t])
            if mode == "raw" and result < 0:
                raise RuntimeError(f"kernel error {envs.kernel.err_code} during warm-up")
    times: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(repeats):
        for mode in modes:
            fn = fns[mode]
            t0 = time.perf_counter()
            for t in range(steps):
                fn(actions[t])
            times[mode].append(time.perf_counter() - t0)
    bytes_per_env = envs.state.nbytes_per_env()
    action_name = getattr(envs, "actions", "")
    return [
        Measurement(level, obs_type, action_name, m, envs.num_envs, steps, times[m], bytes_per_env)
        for m in modes
    ]


def machine_info() -> dict:
    """CPU model, core count and the versions that matter for a benchmark line."""
    import gymnasium

    import gridsim

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
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
        "threads": 1,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cython": cython_version,
        "gymnasium": gymnasium.__version__,
        "gridsim": gridsim.__version__,
    }
