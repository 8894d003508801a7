"""Engine-wide contracts, run for every family of ``gridsim.families.FAMILIES``.

The cases come from ``family_cases.py``: every registered id of each family's vector env
(``check_env``, which ``gridsim check`` runs on every id, takes the representative ones).
No test here names a family; the family-specific versions of these checks
(scripted timelines, reference differentials, exact values) live in the family folders
and in the other engine tests. Actions are random valid actions from the env's own
``action_space``, seeded.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from engine.state_digest import digest
from family_cases import (
    CASES,
    EVERY_ID_CASES,
    FAMILY_IDS,
    OPTIONAL_CASES,
    REQUIRED_CASES,
    assert_obs_batch_conforms,
    assert_rollouts_equal,
    cases_path,
    family_tests,
    ids_by_family,
    make_vec,
    merged,
    missing_cases,
    obs_array,
    rollout,
    sample_actions,
    walk_properties,
)
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import gridsim
from gridsim.families import FAMILIES
from gridsim.lab2d import PropertyAttribute

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

R, W = PropertyAttribute.READABLE, PropertyAttribute.WRITABLE
LIMIT = 6  # a short episode limit, so that every rollout ends episodes and autoresets
STEPS = 40


def test_every_family_has_registered_ids():
    assert set(FAMILY_IDS) == set(FAMILIES)
    for name, ids in FAMILY_IDS.items():
        assert ids, f"family {name!r} registers no Gymnasium id whose vector_entry_point is its vector env"
        for env_id in ids:
            envs = make_vec(env_id, 2)
            assert isinstance(envs, FAMILIES[name].vector_env)
            envs.close()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_brings_its_cases_for_the_engine_wide_tests(family):
    # tests/<family>/cases.py: what the engine-wide tests need of the family and cannot read from its row.
    # A test that reads a name leaves out the families that lack it: this test is where they fail.
    missing = missing_cases(family)
    where = cases_path(family).relative_to(Path(__file__).parents[2])
    what = "".join(f"\n  {name}: {REQUIRED_CASES[name]}" for name in missing)
    lacks = "lacks" if cases_path(family).is_file() else "does not exist; it must define"
    assert not missing, f"{where} {lacks} (REQUIRED_CASES in tests/engine/family_cases.py):{what}"
    cases = family_tests(family)
    ids = ids_by_family()[family]
    assert len(ids) == cases.ID_COUNT, f"{where}: {len(ids)} ids, ID_COUNT pins {cases.ID_COUNT}"
    assert cases.STATE_CASES and cases.COPY_CASES and callable(cases.no_goal_envs), where
    for vector_env, single_env, _ in cases.COPY_CASES.values():
        assert vector_env is FAMILIES[family].vector_env and single_env is FAMILIES[family].single_env
    assert cases.BAD_FIELD_VALUES and cases.BAD_SET_STATES, f"{where}: no bad state to refuse"
    strays = {*cases.BAD_FIELD_VALUES, *(case for case, _, _ in cases.BAD_SET_STATES)} - set(cases.STATE_CASES)
    assert not strays, f"{where}: {sorted(strays)} are not STATE_CASES"
    for name, make in cases.BATCH_VARIANTS.items():
        envs = make(2)
        assert isinstance(envs, FAMILIES[family].vector_env) and envs.state.num_units == 2, f"{where}: {name}"
        envs.close()


def test_every_case_name_is_declared_with_what_it_is():
    # The docs' table of a family's cases (docs/new_family.md) names each of them.
    guide = (Path(__file__).parents[2] / "docs" / "new_family.md").read_text()
    for name in [*REQUIRED_CASES, *OPTIONAL_CASES]:
        assert f"| `{name}" in guide, f"docs/new_family.md's table of a family's cases lacks {name}"


def assert_step_conforms(envs, out):
    """Shapes, dtypes and spaces of one step's outputs."""
    obs, rewards, term, trunc, infos = out
    n = envs.num_envs
    assert_obs_batch_conforms(envs, obs)
    assert rewards.shape == (n,) and rewards.dtype.kind == "f"
    assert term.shape == (n,) and term.dtype == np.bool_
    assert trunc.shape == (n,) and trunc.dtype == np.bool_
    assert isinstance(infos, dict) and "episode" not in infos


# ------------------------------------------------------------------------ autoreset modes


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_next_step_reset_step_pays_zero_and_starts_a_new_episode(family, env_id):
    envs = make_vec(env_id, 5, max_episode_steps=LIMIT, autoreset_mode="NextStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=3)
    assert envs.observation_space.contains(obs)
    ended = np.zeros(envs.num_envs, np.bool_)
    seen_reset_step = False
    for a in sample_actions(envs, STEPS, seed=4):
        out = envs.step(a)
        assert_step_conforms(envs, out)
        _, rewards, term, trunc, _ = out
        if ended.any():
            seen_reset_step = True
            np.testing.assert_array_equal(rewards[ended], 0)
            assert not term[ended].any() and not trunc[ended].any()
            for i in np.flatnonzero(ended):
                assert envs.read_property("episode.step", int(i)) == "0"
        ended = term | trunc
    assert seen_reset_step
    envs.close()


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_same_step_returns_final_obs_and_final_info_of_ended_envs(family, env_id):
    envs = make_vec(env_id, 5, max_episode_steps=LIMIT, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    envs.reset(seed=3)
    seen_end = False
    for a in sample_actions(envs, STEPS, seed=4):
        out = envs.step(a)
        assert_step_conforms(envs, out)
        _, _, term, trunc, infos = out
        ended = term | trunc
        if not ended.any():
            assert "final_obs" not in infos and "final_info" not in infos
            continue
        seen_end = True
        np.testing.assert_array_equal(infos["_final_obs"], ended)
        np.testing.assert_array_equal(infos["_final_info"], ended)
        assert isinstance(infos["final_info"], dict)
        for i in range(envs.num_envs):
            final = infos["final_obs"][i]
            if ended[i]:
                assert envs.single_observation_space.contains(final)
                assert envs.read_property("episode.step", i) == "0"  # already the next episode
            else:
                assert final is None
    assert seen_end
    envs.close()


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_disabled_mode_raises_on_an_ended_env_until_a_reset_mask_resets_it(family, env_id):
    envs = make_vec(env_id, 4, max_episode_steps=LIMIT, autoreset_mode="Disabled")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    envs.reset(seed=3)
    actions = sample_actions(envs, STEPS, seed=4)
    resets = 0
    for t, a in enumerate(actions):
        out = envs.step(a)
        assert_step_conforms(envs, out)
        ended = out[2] | out[3]
        if not ended.any():
            continue
        before = envs.state_dict()
        with pytest.raises(RuntimeError):
            envs.step(actions[(t + 1) % len(actions)])
        after = envs.state_dict()
        for k, v in before.items():  # no env was stepped
            np.testing.assert_array_equal(np.asarray(after[k]), np.asarray(v), err_msg=k)
        obs, _ = envs.reset(options={"reset_mask": ended})
        assert envs.observation_space.contains(obs)
        for i in np.flatnonzero(ended):
            assert envs.read_property("episode.step", int(i)) == "0"
        resets += 1
    assert resets >= 2
    envs.close()


# ---------------------------------------------------------------------------- determinism


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_same_seed_same_trajectory(family, env_id):
    runs = []
    for _ in range(2):
        envs = make_vec(env_id, 6, max_episode_steps=LIMIT)
        runs.append(rollout(envs, sample_actions(envs, 60, seed=1), seed=11))
        envs.close()
    assert_rollouts_equal(runs[0], runs[1])


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_different_seeds_reach_different_rng_keys(family, env_id):
    # Whether the trajectories differ depends on the level (a single start on a fixed map
    # has no randomness); the seeds must reach every env's stream either way.
    envs = make_vec(env_id, 3)
    envs.reset(seed=11)
    a = envs.state_dict()
    seeds_a = [envs.read_property("episode.seed", i) for i in range(3)]
    envs.reset(seed=911)
    b = envs.state_dict()
    seeds_b = [envs.read_property("episode.seed", i) for i in range(3)]
    assert seeds_a == ["11", "12", "13"] and seeds_b == ["911", "912", "913"]
    assert not np.array_equal(a["seeds"], b["seeds"])
    for i in range(3):
        assert not np.array_equal(a["key"][i], b["key"][i])
    assert len({tuple(k) for k in np.asarray(a["key"]).tolist()}) == 3  # and differ between rows
    envs.close()


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_env_i_seeded_s_follows_one_trajectory_in_batches_of_1_7_64(family, env_id):
    seed, steps = 500, 50
    big = make_vec(env_id, 64, max_episode_steps=LIMIT)
    actions = sample_actions(big, steps, seed=2)
    ref = rollout(big, actions, seed=seed)
    big.close()
    seven = make_vec(env_id, 7, max_episode_steps=LIMIT)
    got = rollout(seven, actions[:, :7], seed=seed)
    assert_rollouts_equal(ref, got, rows_a=slice(0, 7), msg="batch of 7: ")
    seven.close()
    for i in (0, 5, 63):
        one = make_vec(env_id, 1, max_episode_steps=LIMIT)
        got = rollout(one, actions[:, i:i + 1], seed=seed + i)
        assert_rollouts_equal(ref, got, rows_a=slice(i, i + 1), msg=f"row {i} alone: ")
        one.close()


# ------------------------------------------------------------------------------ single env


@pytest.mark.parametrize(("family", "env_id"), CASES)
def test_check_env_passes_on_the_single_env(family, env_id):
    env = gym.make(env_id)
    assert isinstance(env.unwrapped, FAMILIES[family].single_env)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is out of date")
        check_env(env.unwrapped)
    envs = make_vec(env_id, 2)
    assert env.observation_space == envs.single_observation_space
    assert env.action_space == envs.single_action_space
    env.close()
    envs.close()


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_single_env_set_state_returns_the_observation_as_step_does(family, env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=5)
    env.action_space.seed(5)
    for _ in range(3):
        obs, *_ = env.step(env.action_space.sample())
    again, info = env.set_state(env.get_state())  # the state it is in: the same observation
    assert type(again) is type(obs) and env.observation_space.contains(again) and isinstance(info, dict)
    if isinstance(obs, dict):  # the same keys in the same order, of the same types
        assert list(again) == list(obs) and [type(v) for v in again.values()] == [type(v) for v in obs.values()]
    np.testing.assert_array_equal(obs_array(again), obs_array(obs))
    env.close()


# Integer actions that int64, the action buffer's type, cannot hold: each must be refused as out of range.
BEYOND_INT64 = [2**63, np.uint64(2**63), np.uint64(2**64 - 1), 2**64, -(2**63) - 1, 10**30]
FIRST_IDS = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]


@pytest.mark.parametrize("env_id", FIRST_IDS)
@pytest.mark.parametrize("value", BEYOND_INT64, ids=repr)
def test_single_env_refuses_actions_beyond_int64_naming_them_before_anything_changes(env_id, value):
    env = gym.make(env_id).unwrapped
    env.reset(seed=3)
    before = digest(env.unwrapped_vector.state_dict())
    space = env.action_space
    if isinstance(space, gym.spaces.Discrete):
        action = value
    else:  # one component out of range: an array of the value's type, or a list
        action = np.zeros(space.shape, np.uint64) if isinstance(value, np.uint64) else [0] * space.shape[0]
        action[0] = value
    with pytest.raises(gridsim.InvalidActionError) as caught:
        env.step(action)
    if isinstance(space, gym.spaces.Discrete) and "integer scalar" not in str(caught.value):
        # Named as given, not as the negative number int64 would wrap it to.
        assert re.search(rf"(?<![-\d]){int(value)}(?!\d)", str(caught.value)), str(caught.value)
    elif isinstance(value, np.uint64):
        assert not re.search(r"-\d", str(caught.value)), str(caught.value)
    assert digest(env.unwrapped_vector.state_dict()) == before
    env.close()


STATE_CASES = merged("STATE_CASES")


def rows_of(envs, worlds) -> np.ndarray:
    """The rows that play ``worlds`` (a row is a world, or one of a kitchen's agents)."""
    return np.flatnonzero(np.isin(envs.row_units, worlds))


def assert_steps_refused_naming(envs, actions, rows):
    before = digest(envs.state_dict())
    with pytest.raises(gym.error.ResetNeeded) as caught:
        envs.step(actions)
    assert f"(envs {', '.join(map(str, rows))})" in str(caught.value), str(caught.value)
    assert digest(envs.state_dict()) == before


@pytest.mark.parametrize("case", STATE_CASES)
def test_rows_never_given_a_world_refuse_to_step_until_they_have_one(case):
    donor, envs = STATE_CASES[case](), STATE_CASES[case]()
    donor.reset(seed=1)
    actions = sample_actions(envs, 1, 0)[0]
    last = envs.state.num_units - 1
    envs.set_state(donor.get_state(0), 0)  # world 0 given a state; the others never reset
    assert envs.has_world.tolist() == [True] + [False] * last and not envs.started
    assert_steps_refused_naming(envs, actions, rows_of(envs, range(1, last + 1)))
    envs.reset(options={"reset_mask": np.isin(envs.row_units, [last])})
    if last > 1:  # the worlds between still have none
        assert_steps_refused_naming(envs, actions, rows_of(envs, range(1, last)))
        envs.start(seed=4, index=rows_of(envs, range(1, last)).tolist())
    assert envs.has_world.all() and envs.started
    envs.step(actions)
    fresh = STATE_CASES[case]()  # a masked first reset leaves the others without a world too
    fresh.reset(seed=2, options={"reset_mask": np.isin(fresh.row_units, [0])})
    assert_steps_refused_naming(fresh, actions, rows_of(fresh, range(1, last + 1)))


# ------------------------------------------------------------------------------ state dicts


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_state_dict_round_trip_continues_bit_identically(family, env_id):
    n = 5
    envs = make_vec(env_id, n, max_episode_steps=LIMIT)
    warmup, actions = sample_actions(envs, 9, seed=5), sample_actions(envs, 30, seed=6)
    rollout(envs, warmup, seed=21)
    saved = envs.state_dict()
    first = rollout(envs, actions, seed=None)
    envs.load_state_dict(saved)
    second = rollout(envs, actions, seed=None)
    assert_rollouts_equal(first, second, msg="same env: ")
    other = make_vec(env_id, n, max_episode_steps=LIMIT)
    other.reset(seed=999)
    other.load_state_dict(saved)
    third = rollout(other, actions, seed=None)
    assert_rollouts_equal(first, third, msg="fresh env: ")
    a, b = envs.state_dict(), other.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]), err_msg=k)
    envs.close()
    other.close()


# ---------------------------------------------------------------------------------- events


def assert_batch_matches_rows(envs):
    """``events_batch()`` holds exactly ``events(i)`` for every env, ordered by env then emission."""
    batch = envs.events_batch()
    names = [spec.name for spec in envs.event_spec()]
    env_col = batch["env"]
    assert env_col.dtype == np.int32 and batch["type"].dtype == np.int16 and batch["payload"].dtype == np.int32
    assert np.all(np.diff(env_col) >= 0)
    total = 0
    for i in range(envs.num_envs):
        rows = np.flatnonzero(env_col == i)
        decoded = envs.events(i)
        assert len(rows) == len(decoded)
        for r, (name, payload) in zip(rows, decoded, strict=True):
            assert names[int(batch["type"][r]) - 1] == name
            values = payload[0]
            np.testing.assert_array_equal(batch["payload"][r, :len(values)], values)
            assert (batch["payload"][r, len(values):] == -1).all()
        total += len(decoded)
    assert total == len(env_col)
    return total


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_events_lifecycle(family, env_id):
    n = 6
    envs = make_vec(env_id, n, max_episode_steps=LIMIT, events=True)
    quiet = make_vec(env_id, n, max_episode_steps=LIMIT)
    if not envs.event_spec():
        pytest.skip(f"family {family!r} declares no events")
    envs.reset(seed=8)
    quiet.reset(seed=8)
    assert assert_batch_matches_rows(envs) == 0  # a reset clears every env's events
    ended = np.zeros(n, np.bool_)
    recorded = 0
    for a in sample_actions(envs, STEPS, seed=9):
        saved = envs.state_dict()
        out = envs.step(a)
        # events change nothing else: the same batch without events steps identically
        for x, y in zip(out[:4], quiet.step(a)[:4], strict=True):
            np.testing.assert_array_equal(obs_array(x), obs_array(y))
        recorded += assert_batch_matches_rows(envs)
        first_read = [repr(envs.events(i)) for i in range(n)]
        assert [repr(envs.events(i)) for i in range(n)] == first_read  # reading clears nothing
        for i in np.flatnonzero(ended):  # NEXT_STEP: the reset step has no events
            assert envs.events(int(i)) == []
        ended = out[2] | out[3]
        # The step cleared the counts first: a copy whose previous events were wiped
        # records the same events on the same step.
        wiped = dict(saved)
        wiped["event_count"] = np.zeros_like(saved["event_count"])
        other = make_vec(env_id, n, max_episode_steps=LIMIT, events=True)
        other.load_state_dict(wiped)
        other.step(a)
        assert [repr(other.events(i)) for i in range(n)] == first_read
        other.close()
        assert all(envs.read_property("events.dropped", i).isdigit() for i in range(n))
    assert recorded > 0, "random play recorded no event: the checks above ran on empty buffers"
    envs.close()
    quiet.close()


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_events_off_records_nothing(family, env_id):
    envs = make_vec(env_id, 4, max_episode_steps=LIMIT)
    envs.reset(seed=0)
    for a in sample_actions(envs, 20, seed=1):
        envs.step(a)
        assert len(envs.events_batch()["env"]) == 0
        assert all(envs.events(i) == [] for i in range(4))
    envs.close()


# ------------------------------------------------------------------------------ properties


@pytest.mark.parametrize(("family", "env_id"), EVERY_ID_CASES)
def test_every_listed_readable_property_reads_and_writable_ones_take_their_value_back(family, env_id):
    n = 3
    envs = make_vec(env_id, n, max_episode_steps=LIMIT)
    envs.reset(seed=0)
    for a in sample_actions(envs, 4, seed=0):
        envs.step(a)
    assert envs.list_property("")
    listing = walk_properties(envs)
    keys = [k for k, _ in listing]
    assert len(keys) == len(set(keys))
    for required in ("num_envs", "episode.step", "episode.seed", "settings.max_steps"):
        assert required in keys
    readable = [k for k, attr in listing if attr & R]
    assert readable
    for key in readable:
        for i in range(n):
            assert isinstance(envs.read_property(key, i), str), key
    for key in [k for k, attr in listing if attr & W]:
        value = envs.read_property(key, n - 1)
        envs.write_property(key, value, n - 1)
        assert envs.read_property(key, n - 1) == value, key
    envs.close()
