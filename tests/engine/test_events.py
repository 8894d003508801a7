"""Kernel-written events (``gridsim.engine.events``) and the per-episode truncation limit.

Lifecycle (lab2d_levels.md section 7): events are cleared at the start of every step and
at a reset, never by reading; under SAME_STEP the finishing step's events stay on the
step that autoresets, under NEXT_STEP the reset step has none; overflow is dropped and
counted; ``events=False`` writes nothing. The event values themselves are checked against
the references in the differential tests (test_reference_diff, test_roboman_diff,
test_kitchen_kernel).
"""

from __future__ import annotations

import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, cases_by_family, make_vec, variants_and_first_ids
from event_helpers import kernel_events

from gridsim import InvalidActionError, KitchenVectorEnv, NavVectorEnv, RobomanVectorEnv
from gridsim.engine.events import (
    EventSpec,
    batch_events,
    decode_events,
    num_fields,
)
from gridsim.families import FAMILIES
from gridsim.kitchen import load_kitchen_level
from gridsim.nav.api import NAV_EVENTS
from gridsim.reference.kitchen import kitchen_reset, kitchen_step
from gridsim.roboman.api import ROBOMAN_EVENTS

# Row 1: a start, a collectible, a goal, and a start that is a collectible goal.
LINE = """%gridsim 1
[legend]
c = reward=1 collectible color=255,215,0
g = reward=2 initial collectible terminal color=10,20,30
[map]
######
#Sc0g#
######
"""
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
MOVES = {"U": 1, "D": 2, "L": 3, "R": 4, "N": 0}


def nav(n=1, **kwargs) -> NavVectorEnv:
    envs = NavVectorEnv(n, world_map=LINE, events=kwargs.pop("events", True), **kwargs)
    envs.reset(seed=0, options={"start": (1, 1)})
    return envs


def events_of(envs, i=0):
    return kernel_events(envs.state, type(envs).EVENT_SPECS, i)


# --------------------------------------------------------------------------- specs and decoding

EVENTS = cases_by_family("EVENTS")  # each family's events, pinned in its tests/<family>/cases.py


@pytest.mark.parametrize("family", list(EVENTS))
def test_specs_name_the_pinned_events_in_type_order(family):
    specs = FAMILIES[family].vector_env.EVENT_SPECS
    assert all(isinstance(spec, EventSpec) for spec in specs)
    assert [(spec.name, spec.fields) for spec in specs] == list(EVENTS[family])
    assert num_fields(specs) == max([1, *(len(fields) for _, fields in EVENTS[family])])  # the widest payload


def test_num_fields_is_the_widest_payload_and_at_least_one():
    assert num_fields([EventSpec("tick", ())]) == 1 and num_fields(()) == 1
    assert num_fields([EventSpec("a", ("x",)), EventSpec("b", ("x", "y", "z")), EventSpec("c", ())]) == 3


# Every family's first id and each of its batch variants: a factory of a batch of n worlds.
BATCHES = [pytest.param(make, id=name) for name, make in variants_and_first_ids().items()]


@pytest.mark.parametrize("make", BATCHES)
def test_buffers_have_the_documented_shapes_and_kernel_fields(make):
    envs = make(3, events=True, max_events_per_step=5)
    st, k = envs.state, envs.kernel
    U = len(st.event_count)
    assert U == 3  # worlds: a kitchen batch of agent rows has 2 rows per kitchen
    assert st.event_type.shape == (U, 5) and st.event_type.dtype == np.int16
    assert st.event_payload.shape == (U, 5, st.num_event_fields) and st.event_payload.dtype == np.int32
    assert st.num_event_fields == num_fields(type(envs).EVENT_SPECS)
    assert st.event_count.dtype == np.int32 and st.event_dropped.dtype == np.int64
    assert st.ep_max_steps.shape == (U,) and st.ep_max_steps.dtype == np.int32
    assert (k.events_on, k.max_events, k.num_event_fields) == (1, 5, st.num_event_fields)
    for name in ("event_type", "event_payload", "event_count", "event_dropped", "ep_max_steps"):
        assert name in st.DYNAMIC
    assert make(3).kernel.events_on == 0


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "4"])
@pytest.mark.parametrize("env_id", [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()])
def test_max_events_per_step_must_be_a_positive_integer(env_id, bad):
    with pytest.raises(ValueError, match="max_events_per_step"):
        make_vec(env_id, 1, events=True, max_events_per_step=bad)


def test_decode_gives_lab2d_binding_shape_and_batch_is_ordered_by_env_then_emission():
    envs = nav(3, max_events_per_step=4)
    # Row 0 bumps the top wall; row 1 collects, row 2 bumps the left wall.
    envs.set_state({"pos": (1, 3), "step": 0}, 1)
    envs.step(np.array([UP, LEFT, LEFT]))
    decoded = decode_events(envs.state, NAV_EVENTS, 1)
    assert decoded and all(isinstance(p, list) and len(p) == 1 for _, p in decoded)
    assert [(n, p[0].dtype, p[0].tolist()) for n, p in decoded] == [("tile_collected", np.int32, [1, 2])]
    assert events_of(envs, 0) == [("wall_bump", (0, 1))]
    assert events_of(envs, 2) == [("wall_bump", (1, 0))]
    batch = batch_events(envs.state, NAV_EVENTS)
    assert batch["env"].dtype == np.int32 and batch["type"].dtype == np.int16 and batch["payload"].dtype == np.int32
    np.testing.assert_array_equal(batch["env"], [0, 1, 2])
    np.testing.assert_array_equal(batch["type"], [3, 2, 3])
    np.testing.assert_array_equal(batch["payload"], [[0, 1], [1, 2], [1, 0]])
    sub = batch_events(envs.state, NAV_EVENTS, units=np.array([2, 0]))
    np.testing.assert_array_equal(sub["env"], [2, 0])
    empty = batch_events(nav(2).state, NAV_EVENTS)
    assert empty["env"].shape == (0,) and empty["payload"].shape == (0, 2)


def test_batch_pads_payloads_with_minus_one():
    envs = RobomanVectorEnv(2, task="LiftRed", events=True)
    envs.reset(seed=0)
    state = envs.get_state(0)
    state["agent_pos"] = (state["objs"][0]["x"], state["objs"][0]["y"])
    envs.set_state(state, 0)
    envs.step(np.array([5, 0]))  # lift red: object_lifted, then goal_reached
    assert events_of(envs, 0) == [("object_lifted", (0, -1)), ("goal_reached", ())]
    batch = batch_events(envs.state, ROBOMAN_EVENTS)
    np.testing.assert_array_equal(batch["type"], [1, 3])
    np.testing.assert_array_equal(batch["payload"], [[0, -1], [-1, -1]])


# --------------------------------------------------------------------------- lifecycle


def test_events_are_cleared_at_the_next_step_not_by_reading():
    envs = nav()
    envs.step(np.array([UP]))
    first = events_of(envs)
    assert first == [("wall_bump", (0, 1))]
    assert events_of(envs) == first  # reading twice
    assert batch_events(envs.state, NAV_EVENTS)["env"].tolist() == [0]
    envs.step(np.array([RIGHT]))  # collects (1, 2)
    assert events_of(envs) == [("tile_collected", (1, 2))]
    envs.step(np.array([LEFT]))  # back to the start: nothing happens
    assert events_of(envs) == []


def test_reset_clears_the_events_of_the_envs_it_resets_only():
    envs = nav(2)
    envs.step(np.array([UP, UP]))
    envs.reset(options={"reset_mask": np.array([True, False]), "start": (1, 1)})
    assert events_of(envs, 0) == []
    assert events_of(envs, 1) == [("wall_bump", (0, 1))]


def test_same_step_keeps_the_finishing_steps_events_on_the_autoreset_step():
    envs = nav(autoreset_mode="SameStep")
    envs.step(np.array([RIGHT]))
    obs, _, term, _, infos = envs.step(np.array([RIGHT]))  # onto the goal at (1, 3)
    assert term[0] and infos["final_obs"][0].tolist() == [1, 3]
    assert envs.get_state(0)["step"] == 0 and obs[0].tolist() in ([1, 1], [1, 4])  # the next episode
    assert events_of(envs) == [("goal_reached", (1, 3))]
    envs.step(np.array([UP]))
    assert events_of(envs)[0] == ("wall_bump", (0, int(obs[0, 1])))


def test_next_step_reset_step_has_no_events():
    envs = nav(autoreset_mode="NextStep")
    envs.step(np.array([RIGHT]))
    _, _, term, _, _ = envs.step(np.array([RIGHT]))
    assert term[0] and events_of(envs) == [("goal_reached", (1, 3))]
    envs.step(np.array([UP]))  # the reset step: the action is ignored
    assert events_of(envs) == []
    assert envs.get_state(0)["step"] == 0


def test_a_failed_step_changes_no_events():
    envs = nav()
    envs.step(np.array([UP]))
    with pytest.raises(InvalidActionError):
        envs.step(np.array([7]))
    assert events_of(envs) == [("wall_bump", (0, 1))]


def test_overflow_drops_and_counts_events():
    # Starting on a collectible goal and bumping the wall makes three events in one step.
    envs = NavVectorEnv(2, world_map=LINE, events=True, max_events_per_step=1, autoreset_mode="SameStep")
    envs.reset(seed=0, options={"start": np.array([(1, 4), (1, 1)])})
    envs.step(np.array([RIGHT, UP]))
    assert events_of(envs, 0) == [("wall_bump", (1, 5))]
    assert envs.state.event_dropped.tolist() == [2, 0]
    wide = NavVectorEnv(1, world_map=LINE, events=True, max_events_per_step=3)
    wide.reset(seed=0, options={"start": (1, 4)})
    wide.step(np.array([RIGHT]))
    assert events_of(wide) == [("wall_bump", (1, 5)), ("tile_collected", (1, 4)), ("goal_reached", (1, 4))]
    assert wide.state.event_dropped.tolist() == [0]
    envs.reset(seed=1, options={"start": np.array([(1, 4), (1, 1)])})  # drops are cumulative: resets keep them
    envs.step(np.array([RIGHT, UP]))
    assert envs.state.event_dropped.tolist() == [4, 0]


def test_roboman_overflow_keeps_the_first_event():
    envs = RobomanVectorEnv(1, task="LiftRed", events=True, max_events_per_step=1)
    envs.reset(seed=0)
    state = envs.get_state(0)
    state["agent_pos"] = (state["objs"][0]["x"], state["objs"][0]["y"])
    envs.set_state(state, 0)
    envs.step(np.array([5]))
    assert events_of(envs) == [("object_lifted", (0, -1))]
    assert envs.state.event_dropped.tolist() == [1]


def test_kitchen_events_are_per_kitchen_in_the_agent_rows_view():
    level = "kitchen/open-divider_salad"
    envs = KitchenVectorEnv(4, level=level, num_agents=2, agent_rows=True, events=True)
    envs.reset(seed=0)
    assert envs.state.event_count.shape == (2,)
    ref, lvl, seen = kitchen_reset(level, 2), load_kitchen_level(level), []
    for joint in ("RL", "RU", "UR", "RR", "LL"):
        acts = [MOVES[c] for c in joint]
        envs.step(np.array(acts + [MOVES["N"], MOVES["N"]]))
        want = kitchen_step(lvl, ref, acts)[3]
        assert events_of(envs, 0) == want  # rows 0 and 1: kitchen 0
        assert events_of(envs, 1) == []  # rows 2 and 3 wait
        seen += want
    assert seen


@pytest.mark.parametrize("make", BATCHES)
def test_events_off_records_nothing(make):
    envs = make(8, max_episode_steps=5)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    for _ in range(40):
        envs.step(envs.action_space.sample())
    st = envs.state
    assert st.events_on == 0 and envs.kernel.events_on == 0
    assert not st.event_count.any() and not st.event_dropped.any() and not st.event_type.any()
    assert (st.event_payload == -1).all()


def test_state_dict_round_trips_events_and_episode_limits():
    envs = nav(2)
    envs.step(np.array([UP, RIGHT]))
    saved = envs.state_dict()
    before = [events_of(envs, i) for i in range(2)]
    envs.step(np.array([LEFT, LEFT]))
    envs.load_state_dict(saved)
    assert [events_of(envs, i) for i in range(2)] == before
    np.testing.assert_array_equal(envs.state.ep_max_steps, saved["ep_max_steps"])


# --------------------------------------------------------------------------- per-episode max_steps


NO_GOAL_ENVS = cases_by_family("no_goal_envs")


def _no_goal_envs(family: str, n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (the family's case)."""
    envs, action = NO_GOAL_ENVS[family](n, limit, mode)
    envs.reset(seed=0)
    return envs, action


@pytest.mark.parametrize("family", list(NO_GOAL_ENVS))
def test_max_steps_write_applies_at_each_envs_next_reset(family):
    envs, action = _no_goal_envs(family, 2, 10)
    np.testing.assert_array_equal(envs.state.ep_max_steps, [10, 10])
    for _ in range(3):
        envs.step(action)
    envs.kernel.max_steps = 4
    np.testing.assert_array_equal(envs.state.ep_max_steps, [10, 10])  # mid-episode: unchanged
    envs.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(envs.state.ep_max_steps, [10, 4])
    truncated_at: dict[int, list[int]] = {0: [], 1: []}
    for t in range(4, 25):  # env 0 has taken 3 steps, env 1 none
        _, _, term, trunc, _ = envs.step(action)
        assert not term.any()
        for i in range(2):
            if trunc[i]:
                truncated_at[i].append(t)
    # Env 0 keeps its limit of 10 for the running episode (step 10 = call 10), then gets 4 after
    # the NEXT_STEP reset call (11): steps at calls 12..15. Env 1: limit 4 from its reset.
    assert truncated_at[0][:2] == [10, 15]
    assert truncated_at[1][:2] == [7, 12]
    np.testing.assert_array_equal(envs.state.ep_max_steps, [4, 4])


@pytest.mark.parametrize("family", list(NO_GOAL_ENVS))
def test_max_steps_zero_means_no_limit_for_new_episodes(family):
    envs, action = _no_goal_envs(family, 1, 3, mode="SameStep")
    envs.kernel.max_steps = 0
    _, _, _, trunc, _ = envs.step(action)
    _, _, _, trunc, _ = envs.step(action)
    _, _, _, trunc, _ = envs.step(action)
    assert trunc[0]  # the first episode keeps its limit of 3; SAME_STEP resets at once
    assert envs.state.ep_max_steps[0] == 0
    for _ in range(20):
        _, _, _, trunc, _ = envs.step(action)
        assert not trunc[0]


@pytest.mark.parametrize("family", list(NO_GOAL_ENVS))
def test_a_batch_with_and_without_limits_truncates_only_the_limited_envs(family):
    envs, action = _no_goal_envs(family, 3, 3, mode="SameStep")
    envs.step(action)
    envs.kernel.max_steps = 0
    envs.reset(options={"reset_mask": np.array([False, True, False])})  # env 1: no limit from now on
    np.testing.assert_array_equal(envs.state.ep_max_steps, [3, 0, 3])
    seen = np.zeros(3, np.int64)
    for _ in range(7):
        _, _, _, trunc, _ = envs.step(action)
        seen += trunc
    # Envs 0 and 2 end their episode of 3 steps (the loop's 2nd call), then run without a limit.
    np.testing.assert_array_equal(seen, [1, 0, 1])
    np.testing.assert_array_equal(envs.state.ep_max_steps, [0, 0, 0])


def test_roboman_exclude_solved_is_writable_and_read_at_reset():
    envs = RobomanVectorEnv(64, task="LiftRed")
    assert envs.kernel.exclude_solved == 0
    envs.kernel.exclude_solved = 1
    assert envs.kernel.exclude_solved == 1
