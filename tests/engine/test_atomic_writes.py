"""State writes happen completely or not at all: under KeyboardInterrupt, and when refused.

A ``KeyboardInterrupt`` is raised at the k-th line that Python runs inside the call, for
k = 1, 2, ... until the call completes (a trace function raises it, as a signal handler
would between two bytecodes); after each one the batch is its old state entirely or the new
one entirely. Refused calls (bad seeds, options, values past a field's range) change nothing.
"""

from __future__ import annotations

import copy
import re
import sys

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, cases_by_family, make_vec, walk_properties
from engine.state_digest import digest

from gridsim.engine.statefile import decode_seeds
from gridsim.errors import GridSimError, InvalidArgumentError, InvalidStateError
from gridsim.lab2d import PropertyAttribute
from gridsim.nav.env import NavEnv, NavVectorEnv

FAMILY_CASES = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]
N = 4


def interrupted(call, k: int) -> bool:
    """Run ``call`` raising KeyboardInterrupt at its k-th line (0: never); True when it was interrupted.

    With k = 0 it returns the lines the call ran, negated.
    """
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count == k:
                raise KeyboardInterrupt
        return local

    sys.settrace(lambda frame, event, arg: local)
    try:
        call()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False if k else -count


def rngs(envs):
    """The generators a seeded reset replaces: np_random and the action spaces'."""
    gens = (envs._np_random, envs.action_space._np_random, envs.single_action_space._np_random)
    return tuple(None if g is None else g.bit_generator.state for g in gens)


def snapshot(envs) -> str:
    """The batch's state, generators and the settings a property write changes (roboman's pair too)."""
    settings = (envs.max_episode_steps, getattr(envs, "exclude_solved_starts", None),
                getattr(envs.kernel, "exclude_solved", None))
    return digest((envs.state_dict(), rngs(envs), settings, envs._may_step))


def check_all_or_nothing(envs, call, restore):
    """Interrupt ``call`` at every line in turn; each time the batch is all old or all new."""
    old = snapshot(envs)
    saved = (envs.state_dict(), copy.deepcopy(envs._np_random), copy.deepcopy(envs.action_space._np_random),
             copy.deepcopy(envs.single_action_space._np_random), envs.max_episode_steps)

    def back():
        envs.load_state_dict(saved[0])
        envs._np_random, envs.action_space._np_random, envs.single_action_space._np_random = (
            copy.deepcopy(g) for g in saved[1:4])
        restore(saved[4])

    lines = -interrupted(call, 0)
    new = snapshot(envs)
    assert new != old, "the call changes nothing: nothing to check"
    back()
    assert snapshot(envs) == old
    # Every line near the start and the end (where the writes are), a sample of those between.
    points = sorted({*range(1, min(lines, 40) + 1), *range(max(1, lines - 80), lines + 2),
                     *range(40, lines, max(1, lines // 40))})
    for k in points:
        was_interrupted = interrupted(call, k)
        now = snapshot(envs)
        assert now in (old, new), f"interrupted at line {k} of {lines}: a mix of the old state and the new one"
        if not was_interrupted:
            assert now == new
            return lines
        back()
    raise AssertionError("the call never completed")


def started(env_id: str, **kwargs):
    envs = make_vec(env_id, N, max_episode_steps=9, **kwargs)
    envs.reset(seed=1)
    envs.action_space.seed(0)
    for _ in range(3):
        envs.step(np.asarray(envs.action_space.sample()))
    return envs


def no_restore(value):
    pass


@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_interrupted_load_state_dict_leaves_old_or_new(env_id):
    envs, other = started(env_id), started(env_id)
    other.reset(seed=5)
    other.step(np.asarray(other.action_space.sample()))
    new = other.state_dict()
    new["max_steps"] = 4
    assert check_all_or_nothing(envs, lambda: envs.load_state_dict(new), no_restore) > 10


@pytest.mark.parametrize("seed", [2, [3, None, 4, None]])
@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_interrupted_reset_leaves_old_or_new(env_id, seed):
    envs = started(env_id)
    check_all_or_nothing(envs, lambda: envs.reset(seed=seed), no_restore)


@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_interrupted_start_leaves_old_or_new(env_id):
    envs = started(env_id)
    check_all_or_nothing(envs, lambda: envs.start(3, seed=11, index=[0, 2]), no_restore)


def test_interrupted_reset_with_options_leaves_old_or_new():
    envs = NavVectorEnv(N, world_map="#####\n#S  #\n#   #\n#####")
    envs.reset(seed=0)
    check_all_or_nothing(envs, lambda: envs.reset(seed=4, options={"start": (2, 3)}), no_restore)


CHANGED_STATE = cases_by_family("changed_state")


@pytest.mark.parametrize("family", list(CHANGED_STATE))
def test_interrupted_set_state_leaves_old_or_new(family):
    envs = started(FAMILY_IDS[family][0])
    state = CHANGED_STATE[family](envs)
    check_all_or_nothing(envs, lambda: envs.set_state(state, 1), no_restore)


COMMON_WRITES = [("settings.max_steps", "4", None)]  # (key, value, index)
OWN_WRITES = cases_by_family("PROPERTY_WRITES")
PROPERTY_WRITES = [(family, *write) for family in FAMILY_IDS for write in COMMON_WRITES + OWN_WRITES.get(family, [])]


@pytest.mark.parametrize("family,key,value,index", PROPERTY_WRITES,
                         ids=[f"{family}-{key}" for family, key, _, _ in PROPERTY_WRITES])
def test_interrupted_write_property_leaves_old_or_new(family, key, value, index):
    envs = started(FAMILY_IDS[family][0])
    old = envs.read_property(key, index)
    check_all_or_nothing(envs, lambda: envs.write_property(key, value, index),
                         lambda _: envs.write_property(key, old, index))


# ------------------------------------------------------------------ refusals change nothing


@pytest.mark.parametrize("seed,options", [
    (-1, None), (2**128, None), (2**128 - 2, None), ([0, 1, 2, 2**128], None), (5, {"reset_mask": np.zeros(N, bool)}),
    (5, {"no_such_option": 1}), (5, {"reset_mask": np.ones(3, bool)}),
])
@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_a_refused_reset_changes_nothing(env_id, seed, options):
    envs = started(env_id)
    before = snapshot(envs)
    with pytest.raises(GridSimError):
        envs.reset(seed=seed, options=options)
    assert snapshot(envs) == before


def test_a_refused_nav_start_option_changes_nothing():
    envs = NavVectorEnv(N, world_map="#####\n#S  #\n#####")
    envs.reset(seed=0)
    envs.np_random.random()  # a generator in use: its state must survive the refusal
    before = snapshot(envs)
    with pytest.raises(InvalidArgumentError):
        envs.reset(seed=9, options={"start": (0, 0)})  # a wall
    assert snapshot(envs) == before


def test_a_refused_single_env_reset_seeds_nothing():
    env = NavEnv(world_map="#####\n#S  #\n#####")
    env.reset(seed=0)
    state = env.np_random.bit_generator.state
    with pytest.raises(InvalidArgumentError):
        env.reset(seed=2**128)
    assert env.np_random.bit_generator.state == state


def test_seeds_are_below_2_to_the_128():
    envs = NavVectorEnv(3, world_map="#####\n#S  #\n#####")
    envs.reset(seed=2**128 - 3)  # envs 0..2 get 2**128 - 3 .. 2**128 - 1
    state = envs.state_dict()
    assert decode_seeds(state["seeds"], state["has_seed"]).tolist() == [2**128 - 3, 2**128 - 2, 2**128 - 1]
    for seed in (2**128 - 2, 2**100_000):
        with pytest.raises(InvalidArgumentError):
            envs.reset(seed=seed)
    with pytest.raises(InvalidArgumentError):
        envs.reset(seed=[0, 2**128, None])
    with pytest.raises(InvalidArgumentError):
        envs.start(0, seed=2**128 - 1)  # env 1's seed would be 2**128
    NavVectorEnv(1, world_map="#####\n#S  #\n#####", mixer_seed=2**128 - 1).reset(seed=0)
    for mixer_seed in (2**128, 2**100_000, -1):
        with pytest.raises(InvalidArgumentError):
            NavVectorEnv(1, world_map="#####\n#S  #\n#####", mixer_seed=mixer_seed)


HUGE = (10**400, 2**100_000, -(10**400))
OUT_OF_RANGE_STATES = cases_by_family("out_of_range_states")


@pytest.mark.parametrize("value", HUGE, ids=["1e400", "2**100000", "-1e400"])
@pytest.mark.parametrize("family", list(OUT_OF_RANGE_STATES))
def test_numbers_past_every_range_are_invalid_states(family, value):
    envs = make_vec(FAMILY_IDS[family][0], 2)
    envs.reset(seed=0)
    states = OUT_OF_RANGE_STATES[family](envs, value)
    assert states
    for state in states:
        before = snapshot(envs)
        with pytest.raises(InvalidStateError):
            envs.set_state(state, 0)
        assert snapshot(envs) == before


def numeric_properties(envs) -> list[str]:
    """The writable properties whose value is a number, or numbers joined by commas."""
    out = []
    for key, attr in walk_properties(envs):
        if attr & PropertyAttribute.WRITABLE and re.fullmatch(r"-?\d+(,-?\d+)*", envs.read_property(key, 0)):
            out.append(key)
    return out


@pytest.mark.parametrize("env_id", FAMILY_CASES)
def test_numeric_properties_refuse_numbers_past_every_range(env_id):
    envs = make_vec(env_id, 2)
    envs.reset(seed=0)
    keys = numeric_properties(envs)
    assert "settings.max_steps" in keys
    before = snapshot(envs)
    for key in keys:
        old = envs.read_property(key, 0)
        for text in ("1" * 400, "1" * 5000, "1e400", "-" + "9" * 400):
            with pytest.raises(GridSimError):
                envs.write_property(key, re.sub(r"-?\d+", text, old, count=1), 0)  # its first number
            assert snapshot(envs) == before, key
