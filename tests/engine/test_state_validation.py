"""Injected states are checked field by field before anything is written.

For every saved field of every family, one bad value (or, for fields any value of whose dtype
is valid, a wrong dtype) is refused by ``load_state_dict`` with an ``InvalidStateError`` that
names the field, the env and the allowed range, and the batch is left exactly as it was; the
same holds for every ``set_state`` key, whose other (valid) changes must not be applied either.
The crashes such states caused are replayed in a subprocess.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
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
FAMILY_BAD = {
    "nav-collect": {"grid": (0, 200), "cell_flags": (0, 1), "cell_reward": (0, math.nan), "agent_cell": (0, 100000),
                    "step_count": (0, -1), "start_override": (0, -2)},
    "roboman-tasks": {"record": (0, 7), "timer": (0, -1), "task_slot": (0, 3), "action_mask": (0, 2),
                      "stat_success": (0, 2), "obs": (0, math.nan)},
    "kitchen-rows": {"agent_cell": (0, -1), "held": (0, 999), "tile_item": (0, 999), "delivered_bits": (0, 0xFFFF),
                     "solved": (0, 1 << 20), "n_delivered": (0, 50), "delivered_item": (0, 999),
                     "delivered_cell": (0, -1), "t": (0, -1), "stat_success": (0, 2), "stat_dishes": (0, -1)},
    # An unseen object in a cell, a wall carried, a second mission of a one-mission id, an even PCG64 increment.
    "minigrid-doorkey": {"grid": (0, 0), "agent": (2, 4), "carrying": (0, 2), "step_count": (0, -1),
                         "mission": (0, 1), "bitgen": (3, 2), "obs_dir": (0, 4), "obs_mission": (0, -1),
                         "stat_success": (0, 2)},
    # A box's contents in a wall, contents carried with nothing, more balls than the task slots hold.
    "minigrid-obstacles": {"grid": (3, 41), "carrying": (3, 41), "task": (0, 10)},
}
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


def test_load_state_dict_checks_seeds_and_max_steps_before_writing_anything():
    envs = make_case("nav-collect")
    before = envs.state_dict()
    for key, value, text in [("seeds", [1, 2, -3], r"None or an integer in 0\.\.2\*\*128 - 1"),
                             ("seeds", [1, 2], "list of 3"), ("seeds", [1, "2", 3], "None or an integer in 0"),
                             ("seeds", [1, 2**128, 3], "None or an integer in 0"), ("max_steps", 2**40, "2147483647"),
                             ("max_steps", "9", "an integer"), ("max_steps", True, "an integer")]:
        state = envs.state_dict()
        state["agent_cell"][:] = state["agent_cell"][::-1]  # a valid change that must not be applied
        state[key] = value
        with pytest.raises(InvalidStateError, match=text) as info:
            envs.load_state_dict(state)
        assert info.value.field == key
        assert states_equal(envs.state_dict(), before)
    state = envs.state_dict()
    del state["seeds"]
    with pytest.raises(InvalidStateError, match="missing 'seeds'"):
        envs.load_state_dict(state)
    with pytest.raises(InvalidStateError, match="num_envs"):
        envs.load_state_dict({**envs.state_dict(), "num_envs": 4})
    envs.close()


def test_seeds_of_any_size_still_load():
    envs = make_case("roboman-tasks")
    state = envs.state_dict()
    state["seeds"] = [2**80, None, 0]
    envs.load_state_dict(state)
    assert envs.state.seeds.tolist() == [2**80, None, 0]
    saved = envs.state_dict()  # two uint64 words per seed, and a mask for None
    np.testing.assert_array_equal(saved["seeds"], np.array([[0, 2**16], [0, 0], [0, 0]], np.uint64))
    np.testing.assert_array_equal(saved["has_seed"], [True, False, True])


# case -> (set_state key, a snapshot change with a bad value, the field the error names)
SET_CASES = [
    ("nav-collect", {"step": -1}, "step"), ("nav-collect", {"step": 2**40}, "step"),
    ("nav-collect", {"pos": (99, 1)}, "pos"), ("nav-collect", {"pos": (0, 0)}, "pos"),
    ("nav-collect", {"tiles": ["#######"] * 5}, "tiles"), ("nav-collect", {"tiles": ["?" * 7] * 5}, "tiles"),
    ("nav-collect", {"episode": -1}, "episode"), ("nav-collect", {"key": (1, -1)}, "key"),
    ("nav-collect", {"key": (1, 2**64)}, "key"), ("nav-collect", {"rng": 2**64}, "rng"),
    ("nav-collect", {"return": math.nan}, "return"), ("nav-collect", {"needs_reset": "False"}, "needs_reset"),
    ("nav-collect", {"needs_reset": 1}, "needs_reset"),
    ("roboman-tasks", {"agent_pos": (7, 0)}, "agent_pos"), ("roboman-tasks", {"agent_pos": (0, "1")}, "agent_pos"),
    ("roboman-tasks", {"objs.x": 7}, "objs"), ("roboman-tasks", {"objs.obj_above": 3}, "obj_above"),
    ("roboman-tasks", {"objs.obj_below": -1}, "obj_below"),
    ("roboman-tasks", {"lifted_obj_idx": 2**70}, "lifted_obj_idx"),
    ("roboman-tasks", {"timer": -1}, "timer"), ("roboman-tasks", {"timer": 2**31}, "timer"),
    ("kitchen-rows", {"agents.pos": (-1, 0)}, "agents.pos"), ("kitchen-rows", {"agents.pos": (0, 0)}, "agents.pos"),
    ("kitchen-rows", {"agents.held": "Nope"}, "agents.held"), ("kitchen-rows", {"items": {(3, 3): "Plate"}}, "items"),
    ("kitchen-rows", {"delivered": {(1, 1): ["Plate"]}}, "delivered"),
    ("kitchen-rows", {"delivered": {(0, 3): ["Plate"]}}, "delivered"), ("kitchen-rows", {"t": -1}, "t"),
    ("kitchen-rows", {"t": "3"}, "t"),
    ("minigrid-doorkey", {"agent_pos": (5, 1)}, "agent_pos"), ("minigrid-doorkey", {"agent_pos": (1,)}, "agent_pos"),
    ("minigrid-doorkey", {"agent_dir": 4}, "agent_dir"), ("minigrid-doorkey", {"step_count": -1}, "step_count"),
    ("minigrid-doorkey", {"mission": "get to the green goal square"}, "mission"),
    ("minigrid-doorkey", {"carrying": (2, 5, 0)}, "carrying"),
    ("minigrid-doorkey", {"carrying": (5, 9, 0)}, "carrying"),
    ("minigrid-doorkey", {"carrying_contents": 41}, "carrying_contents"),
    ("minigrid-doorkey", {"contents": np.full((5, 5), 300)}, "contents"),
    ("minigrid-doorkey", {"contents": np.full((5, 5), 41)}, "contents"),
    ("minigrid-doorkey", {"task": [0] * 21}, "task"), ("minigrid-doorkey", {"bit_generator": 7}, "bit_generator"),
    ("minigrid-doorkey", {"bit_generator.has_uint32": 1.5}, "bit_generator"),
    ("minigrid-obstacles", {"task": (9, 1, 1, 6, 1)}, "task"),
]


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
import sys
import gridsim
family, field, value = sys.argv[1], sys.argv[2], int(sys.argv[3])
level = {"nav": "nav/four_rooms", "kitchen": "kitchen/open-divider_salad",
         "minigrid": "minigrid:MiniGrid-Dynamic-Obstacles-5x5-v0"}[family]
envs = gridsim.make(level, 2, **({"obs_type": "view"} if family == "nav" else {}))
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


@pytest.mark.parametrize("family,field,value", [
    ("nav", "agent_cell", 100000), ("nav", "agent_cell", 2**31 - 1), ("nav", "agent_cell", -5),
    ("kitchen", "agent_cell", -1), ("kitchen", "held", 999), ("kitchen", "tile_item", 999),
    ("kitchen", "n_delivered", 50), ("minigrid", "task", 32767),
])
def test_states_that_crashed_the_kernel_are_refused(family, field, value, tmp_path):
    """Segfaults, heap reads and double frees once; run in a subprocess so a crash fails only this test."""
    # Outside the source folder, so the child imports the installed gridsim (with its kernel).
    out = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, family, field, str(value)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == f"refused {field} 0"
