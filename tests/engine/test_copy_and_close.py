"""Copies, checkpoints and closed envs, for every family.

A pickled, deep-copied or checkpointed env continues bit-identically and independently of
the original; every method of a closed env raises :class:`gridsim.errors.ClosedEnvError`.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from engine.family_cases import merged

import gridsim
from gridsim.errors import ClosedEnvError

GRIDSIM_HOME = str(Path(gridsim.__file__).resolve().parents[1])

# name -> (vector env class, single env class, keywords): every family's COPY_CASES (tests/<family>/cases.py).
COPY_CASES = merged("COPY_CASES")
FAMILIES = list(COPY_CASES)
COPIERS = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}


def make_vec(family: str, num_envs: int = 3, **extra):
    cls, _, kwargs = COPY_CASES[family]
    return cls(num_envs=num_envs, events=True, **kwargs, **extra)


def make_single(family: str):
    _, single, kwargs = COPY_CASES[family]
    return single(events=True, **kwargs)


def actions_for(env, steps: int, seed: int) -> list:
    env.action_space.seed(seed)
    return [env.action_space.sample() for _ in range(steps)]


def run(env, actions) -> list:
    """Every output of ``env.step`` for each action, and the events, as comparable values."""
    out = []
    for a in actions:
        obs, rew, term, trunc, infos = env.step(a)
        out.append((obs, rew, term, trunc, infos, env.events_batch() if hasattr(env, "events_batch") else None))
    return out


def assert_same(a, b):
    """Equal structures whose arrays are equal bit for bit (dtype, shape and bytes)."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:
            for x, y in zip(a.ravel(), b.ravel(), strict=True):
                assert_same(x, y)
        else:
            assert a.tobytes() == b.tobytes()
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, float):
        assert np.float64(a).tobytes() == np.float64(b).tobytes()
    else:
        assert a == b


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("family", FAMILIES)
def test_vector_env_copy_continues_bit_identically(family, how):
    env = make_vec(family)
    env.reset(seed=11)
    run(env, actions_for(env, 9, seed=1))  # mid-episode, across resets
    clone = COPIERS[how](env)
    assert clone is not env and clone.kernel is not env.kernel
    actions = actions_for(env, 15, seed=2)
    expected = run(env, actions)
    assert_same(run(clone, actions), expected)
    # Independent: stepping one does not move the other.
    clone.step(actions[0])
    assert_same(env.state_dict(), env.state_dict())
    assert clone.state.obs.ctypes.data != env.state.obs.ctypes.data


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("family", FAMILIES)
def test_single_env_copy_continues_bit_identically(family, how):
    env = make_single(family)
    env.reset(seed=5)
    for a in actions_for(env, 4, seed=3):
        env.step(a)
    clone = COPIERS[how](env)
    # The copy's action space samples alike too (its random state was copied).
    assert_same(clone.action_space.sample(), env.action_space.sample())
    actions = actions_for(env, 12, seed=4)
    expected = [env.step(a) for a in actions]
    assert_same([clone.step(a) for a in actions], expected)


@pytest.mark.parametrize("family", FAMILIES)
def test_state_dict_savez_checkpoint_continues_bit_identically(family, tmp_path):
    env = make_vec(family)
    env.reset(seed=[3, 2**70, 9])  # a seed beyond 64 bits is saved too
    run(env, actions_for(env, 8, seed=1))
    path = tmp_path / "checkpoint.npz"
    np.savez(path, **env.state_dict())
    fresh = make_vec(family)
    with np.load(path, allow_pickle=True) as saved:
        fresh.load_state_dict(saved)
    actions = actions_for(env, 12, seed=2)
    assert_same(run(fresh, actions), run(env, actions))


@pytest.mark.parametrize("family", FAMILIES)
def test_kernel_refuses_pickling(family):
    env = make_vec(family)
    with pytest.raises(TypeError, match="cannot pickle"):
        pickle.dumps(env.kernel)
    with pytest.raises(TypeError, match="cannot pickle"):
        copy.deepcopy(env.kernel)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_method_of_a_closed_vector_env_raises(family):
    env = make_vec(family, render_mode="rgb_array")
    env.reset(seed=0)
    saved = env.state_dict()
    a = env.action_space.sample()
    env.close()
    env.close()  # idempotent
    calls = {
        "step": lambda: env.step(a),
        "reset": lambda: env.reset(seed=0),
        "state_dict": env.state_dict,
        "load_state_dict": lambda: env.load_state_dict(saved),
        "get_state": lambda: env.get_state(0),
        "set_state": lambda: env.set_state({}, 0),
        "write_property": lambda: env.write_property("settings.max_steps", "3"),
        "read_property": lambda: env.read_property("settings.max_steps"),
        "render": env.render,
        "render_frame": lambda: env.render_frame(0),
        "events_batch": env.events_batch,
        "list_property": lambda: env.list_property(""),
        "observation": lambda: env.observation("WORLD.TEXT"),
        "status": env.status,
        "advance": lambda: env.advance(),
        "action_masks": lambda: gridsim.engine.vector.batch_action_masks(env),
        "num_threads": lambda: setattr(env, "num_threads", 1),
        "start": lambda: env.start(seed=0),
        "pickle": lambda: pickle.dumps(env),
    }
    for name, call in calls.items():
        with pytest.raises(ClosedEnvError, match="closed"):
            call()
        assert isinstance(ClosedEnvError("x"), RuntimeError), name


@pytest.mark.parametrize("family", FAMILIES)
def test_every_method_of_a_closed_single_env_raises(family):
    env = make_single(family)
    env.reset(seed=0)
    a = env.action_space.sample()
    env.close()
    env.close()
    for call in (lambda: env.step(a), lambda: env.reset(seed=0), env.get_state, lambda: env.set_state({}),
                 env.render, env.action_masks):
        with pytest.raises(ClosedEnvError):
            call()


def test_env_of_a_python_level_file_copies_with_its_level():
    level_file = Path(__file__).resolve().parents[2] / "levels" / "examples" / "maze.py"
    env = gridsim.make(level_file, num_envs=2)
    env.reset(seed=3)
    clone = pickle.loads(pickle.dumps(env))
    assert type(clone.level_def) is type(env.level_def) and clone.level_values == env.level_values
    actions = actions_for(env, 10, seed=1)
    assert_same(run(clone, actions), run(env, actions))


def test_freeing_an_env_whose_lock_was_left_held_does_not_hang():
    # A lock left held (an interrupt between its acquire and the call's block, on a thread that has
    # since ended): the env's finalizer, run by the collector, must not wait for it forever.
    code = """
import gc, threading
import gridsim
envs = gridsim.make("nav/room1_small", 2)
taker = threading.Thread(target=envs._lock.acquire)
taker.start(); taker.join()
del envs
gc.collect()
print("freed")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, PYTHONPATH=GRIDSIM_HOME), cwd=Path(GRIDSIM_HOME).anchor)
    assert run.returncode == 0 and run.stdout.strip() == "freed", run.stderr
