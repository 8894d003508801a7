"""The nav coords kernel call beside a plain C loop doing the same work (``bench/limit/nav_coords.c``).

Usage::

    python bench/bench_limit.py                          # N = 4,096, 200 steps, 7 alternated rounds
    python bench/bench_limit.py --num-envs 1024 65536 --rounds 5

The C loop is compiled here with the kernel's release flags (``-O3``, 64-byte aligned functions
and loops) and loaded with ctypes; one call runs all the steps, so no Python is timed. It reads
the level (flags, reward table, start cells, move table) from a gridsim batch of ``nav/room5_medium``
(``max_episode_steps=100``), and both run the same actions, drawn once. First they are checked to do the same work: from
the batch's state after ``reset(seed=0)``, each call's observations, rewards, flags and episode
statistics must be equal for ``--steps`` calls. Then the two are timed
alternately, ``--rounds`` times, and the best of each is printed with their ratio, one JSON line
per batch size. The gridsim figure is the bare kernel call (``envs.kernel.step_i64``, one thread),
and ``step()`` is timed beside them.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import gridsim  # noqa: E402
from gridsim.tools.benchmark import machine_info, make_actions  # noqa: E402

SOURCE = Path(__file__).parent / "limit" / "nav_coords.c"
FLAGS = ["-O3", "-fPIC", "-shared", "-falign-functions=64", "-falign-loops=64", "-ffp-contract=off"]

# The pointers and counts of NavLimit (nav_coords.c), in its order.
_FIELDS = [
    ("flags", ctypes.c_void_p), ("table", ctypes.c_void_p), ("cell_rc", ctypes.c_void_p),
    ("starts", ctypes.c_void_p), ("num_starts", ctypes.c_int64), ("delta", ctypes.c_void_p),
    ("code_of", ctypes.c_void_p), ("num_actions", ctypes.c_int64), ("limit", ctypes.c_int32),
    ("agent_cell", ctypes.c_void_p), ("step_count", ctypes.c_void_p), ("rng", ctypes.c_void_p),
    ("key", ctypes.c_void_p), ("episode", ctypes.c_void_p), ("ep_return", ctypes.c_void_p),
    ("needs_reset", ctypes.c_void_p), ("obs", ctypes.c_void_p), ("rewards", ctypes.c_void_p),
    ("terminated", ctypes.c_void_p), ("truncated", ctypes.c_void_p), ("stat_mask", ctypes.c_void_p),
    ("stat_return", ctypes.c_void_p), ("stat_length", ctypes.c_void_p), ("ended_rows", ctypes.c_void_p),
    ("n_ended", ctypes.c_int64),
]


class NavLimit(ctypes.Structure):
    """nav_coords.c's NavLimit: the level, the envs and the outputs, as pointers and counts."""

    _fields_ = _FIELDS


def build(out_dir: str) -> ctypes.CDLL:
    """Compile nav_coords.c into ``out_dir`` and load it."""
    lib = Path(out_dir) / ("nav_limit" + (sysconfig.get_config_var("SHLIB_SUFFIX") or ".so"))
    cc = os.environ.get("CC", "gcc")
    subprocess.run([cc, *FLAGS, str(SOURCE), "-o", str(lib)], check=True)
    dll = ctypes.CDLL(str(lib))
    dll.nav_limit_run.restype = ctypes.c_int64
    dll.nav_limit_run.argtypes = [ctypes.POINTER(NavLimit), ctypes.c_int64, ctypes.c_int64,
                                  ctypes.c_void_p]
    return dll


class Limit:
    """The C loop's arrays, sized for ``envs`` and filled from its level."""

    def __init__(self, dll: ctypes.CDLL, envs) -> None:
        st, k, n = envs.state, envs.kernel, envs.num_envs
        self.dll, self.n = dll, n
        delta = np.array([(a // 3 - 1) * k.row_stride + (a % 3 - 1) for a in range(9)], np.int64)
        self.arrays = arrays = {
            "flags": st.cell_flags[0].copy(), "table": st.cell_reward[0, 0].copy(),
            "cell_rc": st.cell_rc.copy(), "starts": st.start_cells[0, : st.start_count[0]].copy(),
            "delta": delta, "code_of": np.asarray(st.action_codes, np.int8),
            # The batch's envs as they are now: both go on from the same state.
            "agent_cell": st.agent_cell.copy(), "step_count": st.step_count.copy(),
            "rng": st.rng.copy(), "key": st.key.copy(), "episode": st.episode.copy(),
            "ep_return": st.ep_return.copy(), "needs_reset": st.needs_reset.astype(np.uint8),
            "obs": st.obs.copy(),
            "rewards": np.zeros(n, np.float32), "terminated": np.zeros(n, np.uint8),
            "truncated": np.zeros(n, np.uint8), "stat_mask": np.zeros(n, np.uint8),
            "stat_return": np.zeros(n), "stat_length": np.zeros(n, np.int32),
            "ended_rows": np.zeros(n, np.int32),
        }
        self.struct = NavLimit(**{name: a.ctypes.data for name, a in arrays.items()},
                               num_starts=len(arrays["starts"]), num_actions=k.num_actions,
                               limit=int(st.ep_max_steps[0]), n_ended=0)

    def run(self, actions: np.ndarray) -> int:
        """Run the C loop for ``actions`` (steps, N) int64; returns the episodes ended."""
        ended = self.dll.nav_limit_run(ctypes.byref(self.struct), self.n, len(actions), actions.ctypes.data)
        if ended < 0:
            raise RuntimeError("the C loop refused an action")
        return ended


def check_same_work(limit: Limit, envs, rows: list) -> None:
    """Step both with ``rows``, one call at a time: every output of every call must be equal."""
    st, kernel_step = envs.state, envs.kernel.step_i64
    a = limit.arrays
    for t, actions in enumerate(rows):
        ended = limit.run(actions[None])
        if kernel_step(actions) != ended or not (
                np.array_equal(a["obs"], st.obs) and np.array_equal(a["rewards"], st.rewards)
                and np.array_equal(a["terminated"], st.terminated) and np.array_equal(a["truncated"], st.truncated)
                and np.array_equal(a["stat_mask"], st.stat_mask) and np.array_equal(a["stat_return"], st.stat_return)):
            raise RuntimeError(f"the C loop and the kernel differ at call {t}")


def measure(dll: ctypes.CDLL, num_envs: int, steps: int, rounds: int) -> dict:
    envs = gridsim.make("nav/room5_medium", num_envs, max_episode_steps=100)
    envs.reset(seed=0)
    limit = Limit(dll, envs)
    actions = np.ascontiguousarray(make_actions(envs.single_action_space, steps, num_envs), dtype=np.int64)
    rows = list(actions)
    check_same_work(limit, envs, rows)
    kernel_step = envs.kernel.step_i64
    best = {"c": float("inf"), "kernel": float("inf"), "step": float("inf")}
    for _ in range(rounds):
        t0 = time.perf_counter()
        limit.run(actions)
        best["c"] = min(best["c"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a in rows:
            kernel_step(a)
        best["kernel"] = min(best["kernel"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a in rows:
            envs.step(a)
        best["step"] = min(best["step"], time.perf_counter() - t0)
    envs.close()
    rate = {k: steps * num_envs / v for k, v in best.items()}
    return {"bench": "bench_limit", "num_envs": num_envs, "steps": steps, "rounds": rounds,
            "c_env_steps_per_s": rate["c"], "kernel_env_steps_per_s": rate["kernel"],
            "step_env_steps_per_s": rate["step"], "kernel_over_c": rate["kernel"] / rate["c"],
            "step_over_kernel": rate["step"] / rate["kernel"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", nargs="+", type=int, default=[4096])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args(argv)
    info = machine_info()
    with tempfile.TemporaryDirectory() as tmp:
        dll = build(tmp)
        for n in args.num_envs:
            print(json.dumps({**measure(dll, n, args.steps, args.rounds), **info}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
