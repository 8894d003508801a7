"""Time one gridsim batch step: the bare kernel call, ``step()``, and the pure-Python reference.

Usage::

    python bench/bench_step.py --mode all
    python bench/bench_step.py --num-envs 16384 --steps 100 --obs-type view --mode step
    python bench/bench_step.py --num-envs 65536 --mode raw --num-threads 2

Modes (``--mode``):

``raw``
    the bare kernel call, ``envs.kernel.step_i64(actions[t])`` (``step_f32`` for
    ``2d_continuous``): no Python bookkeeping, no copies, no info dict.
``step``
    ``envs.step(actions[t])``, the Gymnasium ``VectorEnv`` call a trainer makes
    (default ``copy=True``, NEXT_STEP autoreset, episode statistics on).
``reference``
    ``gymnasium.vector.SyncVectorEnv`` over ``--reference-envs`` copies of
    ``gridsim.reference.nav.ReferenceNavEnv`` (pure Python, one env at a time),
    for ``--reference-steps`` steps per repeat.
``all``
    the three above in one process. Raw and step repeats are interleaved (and
    alternate which goes first) on the same batch, so noise from other processes
    hits both alike; then the reference runs.

Every action is drawn before timing from ``numpy.random.default_rng(seed)``: an
int64 array ``(steps, N)`` of valid random actions (float32 ``(steps, N, 2)`` in
[-1, 1] for ``2d_continuous``); the rows are sliced out before the clock starts.
Each mode first runs ``--warmup`` untimed steps, then ``--repeats`` timed repeats
of ``--steps`` steps each, timed with ``time.perf_counter``.

Output: one JSON line per (mode, repeat), printed as soon as it is measured, with
the fields ``bench``, ``family``, ``level``, ``obs_type``, ``actions``, ``mode``,
``num_envs``, ``steps``, ``repeat``, ``seconds``, ``env_steps_per_s``,
``agent_steps_per_s`` (one agent per nav env), ``ns_per_env_step``,
``bytes_per_env`` (``envs.state.nbytes_per_env()``; null for the reference),
``threads``, ``copy``, ``max_episode_steps``, ``cpu_model``, ``cores`` and the
``python``, ``numpy``, ``cython``, ``gymnasium`` and ``gridsim`` versions. With
``--mode all`` a last line has ``"mode": "summary"``: the best (and worst) repeat
of each mode and the ratios ``step_over_raw`` and ``step_over_reference`` of the
best repeats (see ``bench/README.md``). The summary line is printed for
``--mode all`` only.

The GC stays enabled while timing, as it is in a training loop.
"""

from __future__ import annotations

import os

# Keep numpy's BLAS threads from spinning on the second core (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterable  # noqa: E402
from typing import Any  # noqa: E402

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import gridsim  # noqa: E402
from gridsim.families import FAMILIES  # noqa: E402
from gridsim.tools.benchmark import machine_info, make_actions, raw_step_fn  # noqa: E402

MODES = ("raw", "step", "reference")
BENCH = "bench_step"

Emit = Callable[[dict[str, Any]], None]


@dataclasses.dataclass
class BenchConfig:
    """One benchmark run: the batch to build and how long to time it."""

    family: str = "nav"
    level: str = "nav/room5_medium"
    num_envs: int = 4096
    steps: int = 200
    repeats: int = 5
    warmup: int = 20
    obs_type: str = "coords"
    actions: str = "1d_discrete"
    seed: int = 0
    mode: str = "all"
    reference_envs: int = 64
    reference_steps: int = 200
    copy: bool = True
    num_threads: int = 1  # the batch's kernel threads (gridsim.threads_available())
    max_episode_steps: Any = None  # as the batch reports it (settings.max_steps)

    def modes(self) -> tuple[str, ...]:
        """The modes this configuration runs, in order."""
        return MODES if self.mode == "all" else (self.mode,)


# --------------------------------------------------------------------- machine


# ----------------------------------------------------------------- batch setup


def env_kwargs(cfg: BenchConfig) -> dict[str, Any]:
    """The family's benchmark batch settings, with this run's observation and action types."""
    fam = FAMILIES[cfg.family]
    kwargs = dict(fam.tools.bench_kwargs)
    settings = fam.vector_env.SETTINGS
    if "obs_type" in settings:
        kwargs["obs_type"] = cfg.obs_type
    if "actions" in settings:
        kwargs["actions"] = cfg.actions
    return kwargs


def make_envs(cfg: BenchConfig, num_envs: int | None = None) -> gridsim.GridVectorEnv:
    """The batch under test: ``gridsim.make`` of the level with the family's bench settings, reset."""
    name = FAMILIES[cfg.family].tools.bench_name(cfg.level)
    envs = gridsim.make(name, num_envs or cfg.num_envs, copy=cfg.copy, num_threads=cfg.num_threads,
                        **env_kwargs(cfg))
    envs.reset(seed=cfg.seed)
    return envs


def complete(cfg: BenchConfig) -> BenchConfig:
    """Fill in what the records report from a one-env batch: the action space and episode limit."""
    if cfg.max_episode_steps is None:
        probe = make_envs(cfg, num_envs=1)
        if "actions" not in FAMILIES[cfg.family].vector_env.SETTINGS:
            cfg.actions = str(probe.single_action_space)
        cfg.max_episode_steps = probe.read_property("settings.max_steps")
        probe.close()
    return cfg


def rows_of(actions: np.ndarray) -> list[np.ndarray]:
    """The per-step action rows as a list of contiguous views (sliced before timing)."""
    rows = [actions[t] for t in range(actions.shape[0])]
    assert all(r.flags.c_contiguous for r in rows)
    return rows


# ---------------------------------------------------------------------- timing


def time_raw(step: Callable[[np.ndarray], int], rows: list[np.ndarray]) -> float:
    """Seconds for one pass of the bare kernel call over ``rows``."""
    n = 0
    t0 = time.perf_counter()
    for a in rows:
        n = step(a)
    seconds = time.perf_counter() - t0
    assert n >= 0, f"kernel step returned error code {n}"
    return seconds


def time_step(step: Callable[[np.ndarray], Any], rows: list[np.ndarray]) -> float:
    """Seconds for one pass of ``step()`` over ``rows``."""
    t0 = time.perf_counter()
    for a in rows:
        step(a)
    return time.perf_counter() - t0


def warm_up(step: Callable[[np.ndarray], Any], rows: list[np.ndarray], count: int):
    """``count`` untimed calls, cycling through ``rows``."""
    for t in range(count):
        step(rows[t % len(rows)])


def record(cfg: BenchConfig, info: dict[str, Any], mode: str, num_envs: int, steps: int,
           repeat: int, seconds: float, bytes_per_env: float | None) -> dict[str, Any]:
    """One JSON record of one timed repeat."""
    env_steps = num_envs * steps
    rate = env_steps / seconds if seconds > 0 else float("inf")
    return {
        "bench": BENCH,
        "family": cfg.family,
        "level": cfg.level,
        "obs_type": cfg.obs_type,
        "actions": cfg.actions,
        "agent_steps_per_s": rate * FAMILIES[cfg.family].tools.agents_per_env,
        "mode": mode,
        "num_envs": num_envs,
        "steps": steps,
        "repeat": repeat,
        "seconds": seconds,
        "env_steps_per_s": rate,
        "ns_per_env_step": seconds / env_steps * 1e9,
        "bytes_per_env": bytes_per_env,
        "copy": cfg.copy if mode == "step" else None,
        "max_episode_steps": cfg.max_episode_steps,
        **info,
        "threads": 1 if mode in ("reference", "original") else cfg.num_threads,
    }


def run_batch(cfg: BenchConfig, modes: Iterable[str], emit: Emit,
              info: dict[str, Any]) -> list[dict]:
    """Time ``raw`` and/or ``step`` on one batch, interleaving their repeats."""
    modes = [m for m in modes if m in ("raw", "step")]
    if not modes:
        return []
    complete(cfg)
    envs = make_envs(cfg)
    try:
        actions = make_actions(envs.single_action_space, cfg.steps, cfg.num_envs, cfg.seed)
        rows = rows_of(actions)
        raw = raw_step_fn(envs, actions)
        n = raw(rows[0])  # one checked call: the kernel reports errors as a negative count
        assert n >= 0, f"kernel step returned error code {n} (err_code={envs.kernel.err_code})"
        timers = {"raw": (raw, time_raw), "step": (envs.step, time_step)}
        for m in modes:
            warm_up(timers[m][0], rows, cfg.warmup)
        bytes_per_env = envs.state.nbytes_per_env()
        records = []
        for rep in range(cfg.repeats):
            order = modes if rep % 2 == 0 else modes[::-1]
            for m in order:
                fn, timer = timers[m]
                seconds = timer(fn, rows)
                rec = record(cfg, info, m, cfg.num_envs, cfg.steps, rep, seconds, bytes_per_env)
                emit(rec)
                records.append(rec)
        return records
    finally:
        envs.close()


# Original implementations that can be timed beside gridsim when they are installed (none is on
# a package index): family -> (module, id of a level in its registry).
ORIGINALS = {"roboman": ("gridroboman", "Gridroboman-{}-v0")}


def original_available(family: str) -> bool:
    """Whether the family's original implementation can be imported."""
    import importlib.util

    return family in ORIGINALS and importlib.util.find_spec(ORIGINALS[family][0]) is not None


def run_reference(cfg: BenchConfig, emit: Emit, info: dict[str, Any], original: bool = False) -> list[dict]:
    """Time a SyncVectorEnv of ``cfg.reference_envs`` pure-Python envs.

    With ``original=True`` the envs are the family's original implementation (``ORIGINALS``),
    made with ``gymnasium.make`` as its users do; the records then have mode ``"original"``.
    """
    from gridsim.reference import REFERENCE_ENVS

    n, steps = cfg.reference_envs, cfg.reference_steps
    if original:
        module, env_id = ORIGINALS[cfg.family]
        importlib.import_module(module)  # registers the original's ids

        def make():
            return gymnasium.make(env_id.format(cfg.level))
    else:
        kwargs = env_kwargs(cfg)
        kwargs.pop("copy", None)

        def make():
            return REFERENCE_ENVS[cfg.family](cfg.level, **kwargs)

    envs = gymnasium.vector.SyncVectorEnv([make] * n)
    try:
        envs.reset(seed=cfg.seed)
        actions = make_actions(envs.single_action_space, steps, n, cfg.seed)
        rows = rows_of(actions)
        warm_up(envs.step, rows, min(cfg.warmup, steps))
        records = []
        for rep in range(cfg.repeats):
            seconds = time_step(envs.step, rows)
            rec = record(cfg, info, "original" if original else "reference", n, steps, rep, seconds, None)
            emit(rec)
            records.append(rec)
        return records
    finally:
        envs.close()


def run(cfg: BenchConfig, emit: Emit | None = None,
        info: dict[str, Any] | None = None) -> list[dict]:
    """Run every mode of ``cfg``; emits and returns one record per (mode, repeat)."""
    emit = emit or print_json
    info = machine_info() if info is None else info
    complete(cfg)
    modes = cfg.modes()
    records = run_batch(cfg, modes, emit, info)
    if "reference" in modes:
        records += run_reference(cfg, emit, info)
        if original_available(cfg.family):
            records += run_reference(cfg, emit, info, original=True)
    return records


def summarize(records: list[dict[str, Any]], reference: list[dict[str, Any]] | None = None
              ) -> dict[str, Any]:
    """The summary record: best and worst repeat per mode and the ratios of the best repeats.

    ``reference`` supplies the reference records when they were timed separately
    (the sweep times the reference once for all batch sizes).
    """
    batch = [r for r in records if r["mode"] in ("raw", "step")]
    ref = [r for r in records if r["mode"] in ("reference", "original")] + list(reference or [])
    first = (batch or ref)[0]
    keys = ("bench", "family", "level", "obs_type", "actions", "num_envs", "steps",
            "bytes_per_env", "threads", "max_episode_steps", "cpu_model", "cores", "python",
            "numpy", "cython", "gymnasium", "gridsim")
    out: dict[str, Any] = {k: first[k] for k in keys}
    out["mode"] = "summary"
    out["repeats"] = max((r["repeat"] + 1 for r in batch or ref), default=0)
    ref = [r for r in ref if r["mode"] == "reference"] + [r for r in ref if r["mode"] == "original"]
    if not batch:
        out["num_envs"] = out["steps"] = out["bytes_per_env"] = None
    best: dict[str, float] = {}
    for mode, group in (("raw", batch), ("step", batch), ("reference", ref), ("original", ref)):
        rates = [r["env_steps_per_s"] for r in group if r["mode"] == mode]
        if not rates:
            out[f"{mode}_env_steps_per_s"] = None
            continue
        best[mode] = max(rates)
        out[f"{mode}_env_steps_per_s"] = best[mode]
        out[f"{mode}_worst_env_steps_per_s"] = min(rates)
        out[f"{mode}_ns_per_env_step"] = 1e9 / best[mode]
    if ref:
        out["reference_num_envs"] = ref[0]["num_envs"]
    out["step_over_raw"] = best["step"] / best["raw"] if {"step", "raw"} <= best.keys() else None
    out["step_over_reference"] = (
        best["step"] / best["reference"] if {"step", "reference"} <= best.keys() else None
    )
    if "original" in best:
        out["step_over_original"] = best["step"] / best["original"] if "step" in best else None
    return out


# ------------------------------------------------------------------------- CLI


def print_json(rec: dict[str, Any]):
    """Print one record as a JSON line (flushed, so a long run streams)."""
    print(json.dumps(rec), flush=True)


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    p = argparse.ArgumentParser(
        description="Time gridsim's batch step: bare kernel, step() and the Python reference.",
    )
    d = BenchConfig()
    p.add_argument("--family", default=d.family, choices=list(FAMILIES))
    p.add_argument("--level", default=None,
                   help="a level name for gridsim.make (default: the family's bench level, e.g. nav/room5_medium, "
                        "roboman:StackRedOnGreen)")
    p.add_argument("--num-envs", type=positive_int, default=d.num_envs)
    p.add_argument("--steps", type=positive_int, default=d.steps, help="timed steps per repeat")
    p.add_argument("--repeats", type=positive_int, default=d.repeats)
    p.add_argument("--warmup", type=int, default=d.warmup, help="untimed steps before timing")
    p.add_argument("--obs-type", default=None,
                   help="a value of the family's obs_type setting (default: the family's default)")
    p.add_argument("--actions", default=None, help="a value of the family's actions setting, if it has one")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--mode", default=d.mode, choices=[*MODES, "all"])
    p.add_argument("--reference-envs", type=positive_int, default=d.reference_envs)
    p.add_argument("--reference-steps", type=positive_int, default=d.reference_steps)
    p.add_argument("--copy", action=argparse.BooleanOptionalAction, default=d.copy,
                   help="step() returns copies (the default) or the internal buffers")
    p.add_argument("--num-threads", type=positive_int, default=d.num_threads,
                   help="the kernel's threads (batches under envs.kernel.thread_min_units use one)")
    return p


def parse_args(argv: list[str] | None = None) -> BenchConfig:
    """A BenchConfig from command-line arguments (family defaults for --level, --obs-type and --actions)."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    fam = FAMILIES[ns.family]
    settings = fam.vector_env.SETTINGS
    ns.level = ns.level or fam.tools.bench_level
    for key in ("obs_type", "actions"):
        if key in settings:
            choices = settings[key].type
            value = getattr(ns, key) or settings[key].default
            if isinstance(choices, tuple) and value not in choices:
                parser.error(f"--{key.replace('_', '-')} {value} is not one of the {fam.name} family's {choices}")
            setattr(ns, key, value)
        elif getattr(ns, key) is not None:
            parser.error(f"the {fam.name} family has no {key} setting")
    return complete(BenchConfig(**vars(ns)))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON lines."""
    cfg = parse_args(argv)
    records = run(cfg)
    if cfg.mode == "all":
        print_json(summarize(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
