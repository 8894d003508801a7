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

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec

import gridsim
import gridsim._core as _core
import gridsim.envs  # noqa: F401  (the env classes by name, which KINDS uses)
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


def nav_maps(n: int) -> list[str]:
    """n map texts, cycling through a few built-in navigation levels (one map per env)."""
    texts = [gridsim.find_level(f"nav/{name}").read_text() for name in ("room2_small", "room3_small", "room4_small")]
    return [texts[i % len(texts)] for i in range(n)]


# Every observation type, action kind and option of each family beside the default ids above:
# (case id, family, factory of a batch of n envs with extra keyword arguments).
KINDS = [
    ("nav-view", lambda n, **kw: gridsim.make("nav/four_rooms", n, obs_type="view", **kw)),
    ("nav-image", lambda n, **kw: gridsim.make("nav/room5_medium", n, obs_type="image", **kw)),
    ("nav-2d_discrete-random-goals",
     lambda n, **kw: gridsim.make("nav/room5_medium", n, actions="2d_discrete", randomize_goals=True, **kw)),
    ("nav-2d_continuous", lambda n, **kw: gridsim.make("nav/four_rooms", n, actions="2d_continuous", **kw)),
    ("nav-per-env-maps", lambda n, **kw: gridsim.envs.NavVectorEnv(n, world_map=nav_maps(n), **kw)),
    ("roboman-grid", lambda n, **kw: gridsim.make("roboman:StackRedOnGreen", n, obs_type="grid", **kw)),
    ("roboman-multi-task",
     lambda n, **kw: gridsim.envs.RobomanVectorEnv(n, tasks=["LiftRed", "StackGreenOnRed", "TouchBlue"],
                                                   task_in_obs=True, exclude_solved_starts=True, **kw)),
    ("kitchen-features-3-agents",
     lambda n, **kw: gridsim.make("kitchen/open-divider_salad", n, obs_type="features", num_agents=3, **kw)),
    ("kitchen-agent-rows",
     lambda n, **kw: gridsim.make("kitchen/open-divider_salad", 2 * n, agent_rows=True, **kw)),
    ("minigrid-full-index-missions",
     lambda n, **kw: gridsim.make("minigrid:MiniGrid-GoToDoor-8x8-v0", n, obs_type="full", mission_format="index",
                                  **kw)),
    ("minigrid-image-obstacles",
     lambda n, **kw: gridsim.make("minigrid:MiniGrid-Dynamic-Obstacles-8x8-v0", n, obs_type="image", **kw)),
    ("minigrid-view-5", lambda n, **kw: gridsim.make("minigrid:MiniGrid-MultiRoom-N6-v0", n, agent_view_size=5, **kw)),
]


@needs_threads
@pytest.mark.parametrize("make", [pytest.param(make, id=name) for name, make in KINDS])
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
def test_thread_count_is_a_setting():
    env_id = FAMILY_IDS["nav"][0] if "nav" in FAMILY_IDS else next(iter(FAMILY_IDS.values()))[0]
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


def test_without_openmp_more_threads_are_refused(monkeypatch):
    env_id = next(iter(FAMILY_IDS.values()))[0]
    monkeypatch.setattr(_core, "THREADS", False)
    with pytest.raises(ValueError, match="has none"):
        make_vec(env_id, 4, num_threads=2)
    assert make_vec(env_id, 4, num_threads="auto").num_threads == 1
    assert make_vec(env_id, 4, num_threads=1).num_threads == 1


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=needs_threads)])
def test_python_threads_run_during_kernel_calls(threads):
    """A Python thread advances while one kernel call runs (the GIL is released)."""
    env_id = FAMILY_IDS["roboman"][0] if "roboman" in FAMILY_IDS else next(iter(FAMILY_IDS.values()))[0]
    n = 1 << 16
    envs = make_vec(env_id, n, num_threads=threads)
    envs.reset(seed=1)
    k = envs.kernel
    actions = np.zeros(envs.action_space.shape, np.int64).ravel()
    mask = np.ones(k_units(envs), np.uint8)
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
        advanced = {"step": 0, "reset": 0, "observe": 0}
        for _ in range(20):
            c0 = count[0]
            k.step_i64(actions)
            advanced["step"] += count[0] > c0
            c0 = count[0]
            k.reset(mask)
            advanced["reset"] += count[0] > c0
            c0 = count[0]
            k.observe()
            advanced["observe"] += count[0] > c0
    finally:
        stop.set()
        sys.setswitchinterval(old)
        worker.join()
    envs.close()
    assert all(v > 0 for v in advanced.values()), advanced


def k_units(envs) -> int:
    return int(envs.state.needs_reset.shape[0])
