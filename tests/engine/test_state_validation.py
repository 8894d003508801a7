"""Injected states are checked field by field before anything is written.

For every saved field of every family, one bad value (or, for fields any value of whose dtype
is valid, a wrong dtype) is refused by ``load_state_dict`` with an ``InvalidStateError`` that
names the field, the env and the allowed range, and the batch is left exactly as it was; the
same holds for every ``set_state`` key, whose other (valid) changes must not be applied either.
The crashes such states caused are replayed in a subprocess.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from engine.family_cases import cases_by_family, merged
from engine.state_digest import digest
from fuzz.state_cases import CASES, make_case, states_equal

from gridsim import InvalidStateError
from gridsim.lab2d.specs import PropertyResult

# field -> (index of the bad entry within world 1's block, bad value); a bool's value is its raw byte.
# Fields missing here hold no value their dtype allows that is invalid: they get a wrong dtype.
ENGINE_BAD = {
    "episode": (0, -1), "ep_return": (0, math.nan), "needs_reset": (0, 2), "reseed": (0, 7), "seeded": (0, 255),
    "ep_max_steps": (0, -1), "event_type": (0, 99), "event_count": (0, -1), "event_dropped": (0, -1),
    "final_mask": (0, 2), "rewards": (0, math.nan), "terminated": (0, 2), "truncated": (0, 3), "stat_mask": (0, 2),
    "stat_return": (0, math.inf), "stat_length": (0, -1),
}
# State case -> field -> (index, bad value): every family's own (tests/<family>/cases.py).
FAMILY_BAD = merged("BAD_FIELD_VALUES")
LOAD_CASES = [(case, field) for case in FAMILY_BAD for field in make_case(case).state.DYNAMIC]


def world_block(envs, arr: np.ndarray, world: int) -> np.ndarray:
    """The flat entries of ``arr`` that belong to ``world`` (arrays are worlds-first, rows grouped by world)."""
    flat = arr.reshape(-1) if arr.dtype != np.bool_ else arr.view(np.uint8).reshape(-1)
    per = flat.size // envs.state.num_units
    return flat[world * per : (world + 1) * per]


@pytest.mark.parametrize("case,field", LOAD_CASES, ids=[f"{c}-{f}" for c, f in LOAD_CASES])
def test_load_state_dict_refuses_a_bad_field_and_changes_nothing(case, field):
    envs = make_case(case)
    before = envs.state_dict()
    state = envs.state_dict()
    bad = {**ENGINE_BAD, **FAMILY_BAD[case]}.get(field)
    rows_per_world = envs.num_envs // envs.state.num_units
    if bad is None:  # every value of the dtype is valid: a wrong dtype instead
        state[field] = state[field].astype(np.float32 if state[field].dtype.kind != "f" else np.int32)
        expected_env, allowed = None, f"{before[field].dtype}"
    else:
        index, value = bad
        world_block(envs, state[field], 1)[index] = value
        expected_env, allowed = rows_per_world, "allowed:"
    with pytest.raises(InvalidStateError) as info:
        envs.load_state_dict(state)
    e = info.value
    assert e.field == field
    assert e.env == expected_env
    assert f"'{field}" in str(e) and allowed in str(e)
    if expected_env is not None:
        assert f"of env {expected_env}" in str(e)
        assert ".." in str(e) or "allowed: " in str(e)  # the range or the set of allowed values
    assert states_equal(envs.state_dict(), before)
    envs.close()


FIRST_STATE_CASES = [next(iter(cases)) for cases in cases_by_family("STATE_CASES").values()]


def another_valid_state(envs, state: dict) -> dict:
    """``state`` with world 1's entries copied over world 0's in every saved field."""
    other = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in state.items()}
    for field in envs.state.DYNAMIC:
        world_block(envs, other[field], 0)[:] = world_block(envs, other[field], 1)
    return other


@pytest.mark.parametrize("case", FIRST_STATE_CASES)
def test_load_state_dict_checks_seeds_and_max_steps_before_writing_anything(case):
    envs = make_case(case)
    before = envs.state_dict()
    changed = another_valid_state(envs, before)  # a change that must not be applied
    assert not states_equal(changed, before)
    make_case(case).load_state_dict(changed)  # (valid on its own)
    ones = [1] * (envs.state.num_units - 1)  # seeds of every world but the last
    top = int(np.iinfo(envs.state.MAX_STEPS_DTYPE).max)  # the largest max_steps the kernel holds
    for key, value, text in [("seeds", [*ones, -3], r"None or an integer in 0\.\.2\*\*128 - 1"),
                             ("seeds", ones, f"list of {len(ones) + 1}"),
                             ("seeds", [*ones, "2"], "None or an integer in 0"),
                             ("seeds", [*ones, 2**128], "None or an integer in 0"), ("max_steps", top + 1, str(top)),
                             ("max_steps", "9", "an integer"), ("max_steps", True, "an integer")]:
        state = dict(changed, **{key: value})
        with pytest.raises(InvalidStateError, match=text) as info:
            envs.load_state_dict(state)
        assert info.value.field == key
        assert states_equal(envs.state_dict(), before)
    state = envs.state_dict()
    del state["seeds"]
    with pytest.raises(InvalidStateError, match="missing 'seeds'"):
        envs.load_state_dict(state)
    with pytest.raises(InvalidStateError, match="num_envs"):
        envs.load_state_dict({**envs.state_dict(), "num_envs": envs.num_envs + 1})
    envs.close()


@pytest.mark.parametrize("case", FIRST_STATE_CASES)
def test_seeds_of_any_size_still_load(case):
    envs = make_case(case)
    state = envs.state_dict()
    seeds = [[2**80, None, 0][i % 3] for i in range(envs.state.num_units)]
    state["seeds"] = seeds
    envs.load_state_dict(state)
    assert envs.state.seeds.tolist() == seeds
    saved = envs.state_dict()  # two uint64 words per seed, low then high, and a mask for None
    words = [[0, 0] if seed is None else [seed % 2**64, seed >> 64] for seed in seeds]
    np.testing.assert_array_equal(saved["seeds"], np.array(words, np.uint64))
    np.testing.assert_array_equal(saved["has_seed"], [seed is not None for seed in seeds])


# (case, a snapshot change with a bad value, the field the error names): every family's own.
SET_CASES = [case for cases in cases_by_family("BAD_SET_STATES").values() for case in cases]


def apply_change(snap: dict, change: dict) -> dict:
    """The snapshot with ``change`` applied (``"objs.x"``: of object 0, ``"agents.pos"``: of agent 0, ``"a.b"``: key
    b of the dict a)."""
    for key, value in change.items():
        outer, _, inner = key.partition(".")
        if inner and isinstance(snap[outer], dict):
            snap[outer][inner] = value
        elif inner:
            snap[outer][0][inner] = value
        else:
            snap[key] = value
    return snap


@pytest.mark.parametrize("case,change,field", SET_CASES, ids=[f"{c}-{list(ch)[0]}" for c, ch, _ in SET_CASES])
def test_set_state_refuses_a_bad_value_and_changes_nothing(case, change, field):
    envs = make_case(case)
    row = envs.num_envs - 1
    before, before_row = envs.state_dict(), envs.get_state(row)
    snap = envs.get_state(0)  # a valid state (of another env) that must not be applied in part
    with pytest.raises(InvalidStateError) as info:
        envs.set_state(apply_change(snap, change), index=row)
    e = info.value
    assert e.field == field and e.env == row
    assert repr(field) in str(e) and f"env {row}" in str(e)
    assert digest(envs.get_state(row)) == digest(before_row)  # arrays (grids) by their bytes
    assert states_equal(envs.state_dict(), before)
    envs.close()


def test_set_state_no_longer_moves_the_agent_before_a_bad_field():
    envs = make_case("nav-collect")
    pos = envs.get_state(0)["pos"]
    with pytest.raises(InvalidStateError, match="'step' of env 0 is 1099511627776; allowed: 0..2147483647"):
        envs.set_state({"pos": (1, 1) if pos != (1, 1) else (1, 2), "step": 2**40})
    assert envs.get_state(0)["pos"] == pos


def test_real_states_round_trip_for_every_case():
    for case in sorted(CASES):
        envs = make_case(case)
        state = envs.state_dict()
        envs.load_state_dict(state)
        assert states_equal(envs.state_dict(), state), case
        for i in range(envs.num_envs):
            snap = envs.get_state(i)
            envs.set_state(snap, index=i)  # (it clears the env's pending events)
            assert digest(envs.get_state(i)) == digest(snap), case


def test_write_property_raises_invalid_state_error_with_the_lab2d_code():
    envs = make_case("roboman-tasks")
    before = envs.state_dict()
    with pytest.raises(InvalidStateError, match="'timer' of env 1 is -5") as info:
        envs.write_property("state.timer", "-5", index=1)
    assert info.value.code == PropertyResult.INVALID_ARGUMENT
    assert envs.try_write_property("state.objects.red.pos", "9,0", index=1) == PropertyResult.INVALID_ARGUMENT
    assert states_equal(envs.state_dict(), before)
    nav = make_case("nav-collect")
    before = nav.state_dict()
    with pytest.raises(InvalidStateError, match="'pos' of env 2"):
        nav.write_property("state.agent.pos", "2147483647,0", index=2)
    assert states_equal(nav.state_dict(), before)


CRASH_SCRIPT = """
import json
import sys
import gridsim
level, kwargs, field, value = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
envs = gridsim.make(level, 2, **kwargs)
envs.reset(seed=0)
state = envs.state_dict()
state[field].reshape(-1)[0] = value
try:
    envs.load_state_dict(state)
except gridsim.InvalidStateError as e:
    print("refused", e.field, e.env)
else:
    for _ in range(20):
        envs.step(envs.action_space.sample())
    print("accepted")
"""
# (family, level, keywords, field, value): every family's states that once crashed its kernel.
CRASHES = [(family, *crash) for family, crashes in cases_by_family("CRASHED_STATES").items() for crash in crashes]


@pytest.mark.parametrize("family,level,kwargs,field,value", CRASHES,
                         ids=[f"{family}-{field}-{value}" for family, _, _, field, value in CRASHES])
def test_states_that_crashed_the_kernel_are_refused(family, level, kwargs, field, value, tmp_path):
    """Segfaults, heap reads and double frees once; run in a subprocess so a crash fails only this test."""
    # Outside the source folder, so the child imports the installed gridsim (with its kernel).
    out = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, level, json.dumps(kwargs), field, str(value)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == f"refused {field} 0"
