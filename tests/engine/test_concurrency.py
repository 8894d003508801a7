"""Threads on one env: calls never crash, never write memory they do not own, never lose updates.

Every family, through its first registered id. Two threads make pairs of calls (step, reset,
state_dict, load_state_dict, pickle) on one env at once; each pair's results and final state
equal one of the two serial orders. Two threads stepping one env K times each with the same
actions end where 2K sequential steps end, and every state read meanwhile is one of the states
those steps pass through. The kernel runs on threads where the build has them, so it releases
the GIL during every call; a short switch interval makes the Python threads interleave often.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import sys
import threading
from collections import Counter

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec
from engine.state_digest import digest

import gridsim
from gridsim.families import FAMILIES
from gridsim.kitchen.parallel import KitchenParallelEnv

FAMILY_CASES = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]
N = 64
OPS = ("step", "reset", "state_dict", "load", "pickle")
PAIRS = [(a, b) for i, a in enumerate(OPS) for b in OPS[i:]]
ROUNDS = 3
K = 25


@pytest.fixture(autouse=True)
def _switch_often():
    """Threads switch every microsecond, not every 5 ms: the interleavings a race needs happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def batch(env_id: str, num_envs: int = N, **kwargs):
    envs = make_vec(env_id, num_envs, max_episode_steps=9, **kwargs)
    if gridsim.threads_available():
        envs.num_threads = 2
        envs.kernel.thread_min_units = 1  # the kernel releases the GIL on every call
    return envs


def actions_for(envs, seed: int) -> np.ndarray:
    envs.action_space.seed(seed)
    return np.asarray(envs.action_space.sample())


def run_op(envs, op: str, actions, other_state):
    """One call; returns what it gives, in a form to compare (a pickle as the state it holds)."""
    if op == "step":
        return envs.step(actions)[:4]
    if op == "reset":
        return envs.reset(seed=7)[0]
    if op == "state_dict":
        return envs.state_dict()
    if op == "load":
        return envs.load_state_dict(other_state)
    return pickle.dumps(envs)


def comparable(op: str, result):
    return pickle.loads(result).state_dict() if op == "pickle" else result


@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_concurrent_call_pairs_equal_a_serial_order(env_id):
    envs, twin = batch(env_id), batch(env_id)
    envs.reset(seed=1)
    actions = actions_for(envs, 0)
    other = batch(env_id)
    other.reset(seed=99)
    for _ in range(3):
        other.step(actions)
    other_state = other.state_dict()
    for a, b in PAIRS:
        for _ in range(ROUNDS):
            envs.step(actions)
            start = envs.state_dict()
            results: dict[int, object] = {}
            errors: list[BaseException] = []
            barrier = threading.Barrier(2)

            def worker(slot, op, barrier=barrier, results=results, errors=errors):
                try:
                    barrier.wait()
                    results[slot] = run_op(envs, op, actions, other_state)
                except BaseException as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=worker, args=(0, a)), threading.Thread(target=worker, args=(1, b))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            got = digest((comparable(a, results[0]), comparable(b, results[1]), envs.state_dict()))
            serial = []
            for order in ((0, 1), (1, 0)):
                twin.load_state_dict(start)
                out = {}
                for slot in order:
                    op = (a, b)[slot]
                    out[slot] = comparable(op, run_op(twin, op, actions, other_state))
                serial.append(digest((out[0], out[1], twin.state_dict())))
            assert got in serial, f"{a} and {b} at once match neither serial order"


@pytest.mark.parametrize("copy_outputs", [False, True])
@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_two_threads_stepping_lose_no_update(env_id, copy_outputs):
    # Enough envs that a step's kernel call (without the GIL) is long enough for others to overlap it.
    envs, twin = batch(env_id, 1024, copy=copy_outputs), batch(env_id, 1024, copy=True)
    envs.reset(seed=3)
    start = envs.state_dict()
    actions = actions_for(envs, 1)
    twin.load_state_dict(start)
    states = {digest(start): 0}
    steps = Counter()
    for j in range(1, 2 * K + 1):
        steps[digest(twin.step(actions)[:4])] += 1
        states[digest(twin.state_dict())] = j
    got: Counter = Counter()
    counting = threading.Lock()  # Counter's += is no atomic update
    seen: list[str] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def stepper():
        try:
            for _ in range(K):
                out = envs.step(actions)[:4]
                if copy_outputs:  # fresh arrays: they are the caller's, whatever other threads do
                    key = digest(out)
                    with counting:
                        got[key] += 1
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def reader():
        while not done.is_set() and len(seen) < 40:
            seen.append(digest(envs.state_dict()))
            seen.append(digest(pickle.loads(pickle.dumps(envs)).state_dict()))

    steppers = [threading.Thread(target=stepper) for _ in range(2)]
    watcher = threading.Thread(target=reader)
    for t in (*steppers, watcher):
        t.start()
    for t in steppers:
        t.join()
    done.set()
    watcher.join()
    assert not errors, errors
    assert states.get(digest(envs.state_dict())) == 2 * K, "the final state is not that of 2K sequential steps"
    assert all(s in states for s in seen), "a state read during the steps is none that sequential steps pass"
    if copy_outputs:
        assert got == steps, "the steps' outputs are not those of 2K sequential steps"


@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_a_second_caller_waits_and_other_envs_do_not(env_id):
    envs, other = batch(env_id), batch(env_id)
    envs.reset(seed=0)
    other.reset(seed=0)
    actions = actions_for(envs, 0)
    finished = threading.Event()

    def call():
        envs.step(actions)
        finished.set()

    with envs._lock:  # another thread's call in progress
        t = threading.Thread(target=call)
        t.start()
        other.step(actions)  # a different env: not held up
        other.state_dict()
        t.join(0.05)
        assert not finished.is_set(), "a call ran while another held the env"
    t.join()
    assert finished.is_set()


def test_the_lock_is_neither_pickled_nor_copied():
    envs = batch(FAMILY_IDS["nav"][0])
    envs.reset(seed=0)
    with envs._lock:
        clones = [copy.deepcopy(envs), copy.copy(envs), pickle.loads(pickle.dumps(envs))]
    for c in clones:
        assert c._lock is not envs._lock
        with c._lock:  # free: envs' is still held by nobody else, and c's is its own
            c.step(actions_for(c, 0))


# Public methods that read neither the kernel nor the state arrays (specs and constant tables).
LOCK_FREE = {
    "discrete_action_spec", "continuous_action_spec", "text_action_spec", "event_spec", "compiled_level",
    "level_name",  # the compiled level's name
    "try_read_property", "try_write_property", "try_list_property",  # they call the locked methods
    "observation_space", "action_space",  # the PettingZoo wrapper's cached spaces
    "single_obs",  # reads its argument alone (an output the caller holds)
}


# Properties whose getter reads a constant of the env (the setter, if any, still takes the lock).
LOCK_FREE_GETTERS = {"row_units", "unwrapped_vector", "num_threads", "autoreset_mode"}


def _unlocked(name: str, member) -> bool:
    if isinstance(member, property):
        funcs = [member.fset] if name in LOCK_FREE_GETTERS else [member.fget, member.fset]
    else:
        funcs = [member]
    funcs = [f for f in funcs if f is not None and getattr(f, "__module__", "").startswith("gridsim")]
    if name == "step" and funcs and "lock.acquire()" in inspect.getsource(funcs[0]):
        return False  # GridVectorEnv.step takes the lock by hand
    return not all(getattr(f, "__synchronized__", False) for f in funcs)


@pytest.mark.parametrize("cls", [c for row in FAMILIES.values() for c in (row.vector_env, row.single_env)]
                         + [KitchenParallelEnv], ids=lambda c: c.__name__)
def test_every_public_method_holds_the_lock(cls):
    unlocked = [name for name, member in inspect.getmembers(cls)
                if (not name.startswith("_") or name == "__reduce__") and name not in LOCK_FREE
                and not inspect.isclass(member) and (callable(member) or isinstance(member, property))
                and _unlocked(name, member)]
    assert not unlocked, f"{cls.__name__}: public methods without the env's lock: {unlocked}"
