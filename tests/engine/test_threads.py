"""Kernel threads (``num_threads``): results never depend on the thread count.

Every family, through its registered ids: trajectories, infos, events and the saved state are
bit-identical to one thread at every step, whichever thread runs which chunk of the batch; bad
actions are reported the same way; the kernel runs without the GIL. Batches smaller than the
kernel's ``thread_min_units`` (a family's measured figure) run on one thread whatever the
setting, so the threaded runs here lower it to 1: every batch size, down to a single env and
more threads than envs, runs on threads.
"""

from __future__ import annotations

import sys
import threading
import time
import timeit

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec, merged

import gridsim
import gridsim._core as _core
from gridsim.errors import InvalidActionError

needs_threads = pytest.mark.skipif(not gridsim.threads_available(), reason="gridsim was built without threads")

FAMILIES = [pytest.param(name, ids[0], id=name) for name, ids in FAMILY_IDS.items()]
THREADS = (2, 3, 8)  # the pool cuts a batch into chunks of about units / (16 * threads) (every size of chunk)
MODES = ("NextStep", "SameStep", "Disabled")
BIG = 1031  # not a multiple of any thread count
STEPS = 100
LIMIT = 13  # episodes end often: every autoreset path runs


@pytest.fixture(autouse=True)
def every_call_on_threads():
    """No call falls back to one thread after a slow one (the pool's adaptive mode): all run threaded."""
    from gridsim.engine import kernel

    before = kernel.pool_adaptive(False)
    yield
    kernel.pool_adaptive(before)


def assert_same(a, b, path: str = ""):
    """Equal nested outputs: dict keys, array dtypes and bits, other values."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, f"{path}: {a!r} vs {b!r}"
        if a.dtype == object:  # final observations of ended rows (None elsewhere)
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel(), strict=True)):
                assert_same(x, y, f"{path}[{i}]")
        else:
            assert a.tobytes() == b.tobytes(), f"{path}: arrays differ"
    else:
        assert a == b or (a != a and b != b), f"{path}: {a!r} != {b!r}"


def batch(env_id: str, n: int, threads: int, mode: str):
    envs = make_vec(env_id, n, num_threads=threads, autoreset_mode=mode, events=True, max_episode_steps=LIMIT)
    assert envs.kernel.thread_min_units >= 1
    if threads > 1:
        envs.kernel.thread_min_units = 1  # threads whatever the batch size
    return envs


def valid_actions(envs, rng: np.random.Generator) -> np.ndarray:
    """Random valid discrete actions for the whole batch (Discrete or MultiDiscrete)."""
    space = envs.single_action_space
    high = space.nvec if hasattr(space, "nvec") else space.n
    return rng.integers(0, high, size=envs.action_space.shape).astype(np.int64)


def outputs(envs, step_result) -> dict:
    obs, rew, term, trunc, infos = step_result
    return {"obs": obs, "rewards": rew, "terminations": term, "truncations": trunc, "infos": infos,
            "events": envs.events_batch(), "state": envs.state_dict()}


@needs_threads
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [1, 7, BIG])
@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_every_thread_count_gives_the_same_bits(family, env_id, n, mode):
    runs = {t: batch(env_id, n, t, mode) for t in (1, *THREADS)}
    assert {t: e.num_threads for t, e in runs.items()} == {t: t for t in runs}
    rng = np.random.default_rng(n)
    steps = STEPS if n < BIG else 60
    first = {t: e.reset(seed=11) for t, e in runs.items()}
    for t in THREADS:
        assert_same(first[1], first[t], f"reset({t} threads)")
    for step in range(steps):
        ref = runs[1]
        if mode == "Disabled" and ref.state.needs_reset.any():
            mask = np.asarray(ref.state.needs_reset, bool)[ref.row_units]
            got = {t: e.reset(options={"reset_mask": mask}) for t, e in runs.items()}
            for t in THREADS:
                assert_same(got[1], got[t], f"step {step}: partial reset ({t} threads)")
        if step == STEPS // 2:  # a partial reset of a random half, beside the autoresets
            mask = rng.random(ref.num_envs) < 0.5
            mask[0] = True
            got = {t: e.reset(options={"reset_mask": mask}) for t, e in runs.items()}
            for t in THREADS:
                assert_same(got[1], got[t], f"step {step}: reset_mask ({t} threads)")
        actions = valid_actions(ref, rng)
        got = {t: outputs(e, e.step(actions.copy())) for t, e in runs.items()}
        for t in THREADS:
            assert_same(got[1], got[t], f"step {step} ({t} threads)")
    for e in runs.values():
        e.kernel.observe()  # the observe loop (after an injected state)
    for t in THREADS:
        assert_same(runs[1].state.obs, runs[t].state.obs, f"observe ({t} threads)")
    for e in runs.values():
        e.close()


# Every observation type, action kind and option of each family beside the first ids above.
@needs_threads
@pytest.mark.parametrize("make", [pytest.param(make, id=name) for name, make in merged("BATCH_VARIANTS").items()])
def test_every_kind_of_batch_gives_the_same_bits(make):
    runs = {}
    for t in (1, *THREADS):
        runs[t] = make(BIG, num_threads=t, events=True, max_episode_steps=LIMIT)
        if t > 1:
            runs[t].kernel.thread_min_units = 1
    space = runs[1].action_space
    space.seed(4)
    first = {t: e.reset(seed=23) for t, e in runs.items()}
    for t in THREADS:
        assert_same(first[1], first[t], f"reset ({t} threads)")
    for step in range(40):
        actions = np.asarray(space.sample())
        got = {t: outputs(e, e.step(actions.copy())) for t, e in runs.items()}
        for t in THREADS:
            assert_same(got[1], got[t], f"step {step} ({t} threads)")
    for e in runs.values():
        e.close()


@needs_threads
@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_bad_actions_are_reported_alike_and_change_nothing(family, env_id):
    rng = np.random.default_rng(3)
    messages = {}
    for t in (1, 3, 8):
        envs = batch(env_id, BIG, t, "NextStep")
        envs.reset(seed=5)
        for _ in range(3):
            envs.step(valid_actions(envs, rng))
        before = envs.state_dict()
        actions = valid_actions(envs, rng)
        rows = envs.action_space.shape[0]
        # Two bad actions; the lowest env is the one reported.
        actions.reshape(rows, -1)[rows - 5, 0] = -1
        actions.reshape(rows, -1)[rows // 2 + 1, -1] = 1 << 20
        with pytest.raises(InvalidActionError) as err:
            envs.step(actions)
        messages[t] = str(err.value)
        assert_same(before, envs.state_dict(), f"state after the error ({t} threads)")
        envs.close()
    assert messages[3] == messages[1] and messages[8] == messages[1]
    assert str(BIG // 2 + 1) in messages[1]


@needs_threads
@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_one_env_with_its_own_limit_truncates_alike(family, env_id):
    # The threaded scan before a step finds the one env whose episode limit differs, though
    # it lies in the last chunk (the step loop then reads every env's own limit).
    runs = {}
    for t in (1, 3, 8):
        envs = batch(env_id, BIG, t, "NextStep")
        envs.reset(seed=5)
        envs.kernel.max_steps = 4
        units = envs.state.ep_max_steps.shape[0]  # worlds: envs, or kitchens of several rows
        last = np.arange(units) == units - 1
        envs.reset(options={"reset_mask": last.repeat(envs.num_envs // units)})
        assert envs.state.ep_max_steps[-1] == 4 and envs.state.ep_max_steps[0] == LIMIT
        rng = np.random.default_rng(8)
        runs[t] = [outputs(envs, envs.step(valid_actions(envs, rng))) for _ in range(2 * LIMIT)]
        envs.close()
    for t in (3, 8):
        for step, (a, b) in enumerate(zip(runs[1], runs[t], strict=True)):
            assert_same(a, b, f"step {step} ({t} threads)")


@needs_threads
@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_thread_count_is_a_setting(family, env_id):
    envs = make_vec(env_id, 4, num_threads="auto")
    assert envs.num_threads >= 1 and envs.kernel.num_threads == envs.num_threads
    assert envs.read_property("settings.num_threads") == "auto"
    envs.num_threads = 2
    assert envs.kernel.num_threads == 2
    envs = make_vec(env_id, 4, settings={"num_threads": "3"})
    assert envs.num_threads == 3 and envs.read_property("settings.num_threads") == "3"
    assert make_vec(env_id, 4, num_threads=3, settings={"num_threads": "3"}).num_threads == 3
    assert make_vec(env_id, 4, settings={"num_threads": "AUTO"}).read_property("settings.num_threads") == "auto"
    envs.write_property("settings.num_threads", "2")  # applies from the next call
    assert envs.num_threads == 2 and envs.kernel.num_threads == 2
    assert envs.read_property("settings.num_threads") == "2"
    envs.write_property("settings.num_threads", "auto")
    assert envs.read_property("settings.num_threads") == "auto" and envs.kernel.num_threads == envs.num_threads
    with pytest.raises(ValueError, match="num_threads"):
        envs.write_property("settings.num_threads", "0")
    assert envs.read_property("settings.num_threads") == "auto"  # a refused write changes nothing
    with pytest.raises(ValueError, match="num_threads"):
        make_vec(env_id, 4, settings={"num_threads": "many"})
    for bad in (0, -1, 1.5, True, "many"):
        with pytest.raises(ValueError, match="num_threads"):
            make_vec(env_id, 4, num_threads=bad)


@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_without_openmp_more_threads_are_refused(monkeypatch, family, env_id):
    monkeypatch.setattr(_core, "THREADS", False)
    with pytest.raises(ValueError, match="has none"):
        make_vec(env_id, 4, num_threads=2)
    assert make_vec(env_id, 4, num_threads="auto").num_threads == 1
    assert make_vec(env_id, 4, num_threads=1).num_threads == 1


def kernel_calls(envs) -> dict:
    """The kernel calls of the whole batch: a step (action 0 everywhere), a reset, an observe."""
    k = envs.kernel
    actions = np.zeros(envs.action_space.shape, np.int64).ravel()
    mask = np.ones(k_units(envs), np.uint8)
    return {"step": lambda: k.step_i64(actions), "reset": lambda: k.reset(mask), "observe": k.observe}


def long_kernel_calls(env_id: str, threads: int):
    """A reset batch of ``env_id`` whose kernel calls each last half a millisecond or more, and its calls.

    From 16,384 envs (a step of fewer actions keeps the GIL: ``NOGIL_MIN_ACTIONS`` in
    ``gridsim/engine/kernel.pyx``), twice as many until they do (2**20 at the most): the calls are
    then long enough for the counter below, whose sleep is 0.2 ms, to run during them.
    """
    n = 1 << 14
    while True:
        envs = make_vec(env_id, n, num_threads=threads)
        envs.reset(seed=1)
        calls = kernel_calls(envs)
        shortest = min(min(timeit.repeat(call, number=1, repeat=3)) for call in calls.values())
        if shortest >= 0.5e-3 or n >= 1 << 20:
            return envs, calls
        envs.close()
        n *= 2


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=needs_threads)])
@pytest.mark.parametrize("family,env_id", FAMILIES)
def test_python_threads_run_during_kernel_calls(family, env_id, threads):
    """A Python thread advances while one kernel call runs (the GIL is released)."""
    envs, calls = long_kernel_calls(env_id, threads)
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0002)  # gives the GIL back at once

    # Python never hands the GIL over between bytecodes here: the counter runs only while
    # the main thread waits (the kernel's nogil sections, sleep, join).
    old = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    worker = threading.Thread(target=counter, daemon=True)
    try:
        worker.start()
        while count[0] == 0:
            time.sleep(0.001)
        advanced = dict.fromkeys(calls, 0)
        for _ in range(20):
            for name, call in calls.items():
                c0 = count[0]
                call()
                advanced[name] += count[0] > c0
    finally:
        stop.set()
        sys.setswitchinterval(old)
        worker.join()
    envs.close()
    assert all(v > 0 for v in advanced.values()), advanced


def k_units(envs) -> int:
    return int(envs.state.needs_reset.shape[0])
