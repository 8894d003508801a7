"""The manipulation family's envs: registry, Gymnasium API, reset distribution, seeding, infos.

``RobomanVectorEnv`` and ``RobomanEnv`` against the documented contract: exactly the 36
valid ids (no ``TimeLimit``), ``check_env`` on every id, the initial-state distribution
(chi-square on the cells, the exact solved-at-reset rates, ``exclude_solved_starts``),
reproducibility across batch sizes with autoresets, action masks on every call,
multi-task mode, the grid observation, invalid actions and the SAME_STEP final infos.
"""

from __future__ import annotations

import copy
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import TimeLimit
from scipy import stats

import gridsim
from gridsim import InvalidActionError
from gridsim.engine.rng import derive_keys
from gridsim.envs import RobomanEnv, RobomanVectorEnv
from gridsim.reference.roboman import (
    roboman_goal,
    roboman_grid_obs,
    roboman_mask,
    roboman_obs,
    roboman_reset,
    roboman_step,
)
from gridsim.roboman.tasks import CENTER, CORNERS, TASKS

TASK_NAMES = [t.name for t in TASKS]
ALL_IDS = sorted(t.env_id for t in TASKS)
COLORS = ("Red", "Green", "Blue")
N_DIST = 20_000


def state_of(agent, objs, held=None, timer=0) -> dict:
    out = []
    for o in objs:
        above, below = (o[2], o[3]) if len(o) == 4 else (None, None)
        out.append({"x": o[0], "y": o[1], "obj_above": above, "obj_below": below})
    return {"agent_pos": tuple(agent), "objs": out, "lifted_obj_idx": held, "timer": timer}


# --------------------------------------------------------------------------- registry


def test_exactly_the_36_ids_are_registered():
    ids = sorted(i for i in gym.registry if "Gridroboman" in i)
    assert ids == ALL_IDS
    assert len(ids) == 36
    assert sorted(i for i in gridsim.registered_ids() if "Gridroboman" in i) == ALL_IDS


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_spec_has_both_entry_points_and_no_limit(env_id):
    spec = gym.spec(env_id)
    assert spec.entry_point == "gridsim.roboman.env:RobomanEnv"
    assert spec.vector_entry_point == "gridsim.roboman.env:RobomanVectorEnv"
    assert spec.max_episode_steps is None
    env = spec.make()
    name = env_id.split("-")[1]
    env.reset(seed=0)
    assert env.unwrapped.unwrapped_vector.get_task(0) == name
    env.close()


@pytest.mark.parametrize("color", COLORS)
@pytest.mark.parametrize("kind", ["Touch{X}With{Y}", "Move{X}CloseTo{Y}", "Move{X}FarFrom{Y}", "Stack{X}On{Y}"])
def test_same_object_ids_are_not_registered(kind, color):
    env_id = f"gridsim/Gridroboman-{kind.format(X=color, Y=color)}-v0"
    assert env_id not in gym.registry
    with pytest.raises(gym.error.Error):
        gym.make(env_id)


@pytest.mark.parametrize("kwargs", [
    {"task": "StackXOnY", "x_obj": "red", "y_obj": "red"},
    {"task": "MoveXCloseToY", "x_obj": 2, "y_obj": 2},
    {"task": "StackXOnY", "x_obj": "red"},
    {"task": "NoSuchTask"},
    {"tasks": []},
])
def test_bad_task_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        RobomanVectorEnv(2, **kwargs)


def test_make_adds_no_time_limit_and_truncates_at_fifty_once():
    env = gym.make("gridsim/Gridroboman-StackRedOnGreen-v0")
    wrapper = env
    while isinstance(wrapper, gym.Wrapper):
        assert not isinstance(wrapper, TimeLimit)
        wrapper = wrapper.env
    env.reset(seed=3)
    truncs = []
    for _ in range(55):
        _, _, _, trunc, info = env.step(0)
        truncs.append(trunc)
        assert set(info) == {"action_mask"}
    assert truncs == [t == 50 for t in range(1, 56)]
    env.close()


def test_make_vec_builds_the_native_vector_env():
    envs = gym.make_vec("gridsim/Gridroboman-TouchBlueWithGreen-v0", num_envs=5)
    assert isinstance(envs.unwrapped, RobomanVectorEnv)
    envs.reset(seed=1)
    assert {envs.unwrapped.get_task(i) for i in range(5)} == {"TouchBlueWithGreen"}
    assert envs.unwrapped.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    envs.close()


def test_task_kind_with_objects_equals_full_name():
    a = RobomanVectorEnv(4, task="MoveXFarFromY", x_obj="green", y_obj=0)
    b = RobomanVectorEnv(4, task="MoveGreenFarFromRed")
    a.reset(seed=5)
    b.reset(seed=5)
    assert [a.get_task(i) for i in range(4)] == ["MoveGreenFarFromRed"] * 4
    assert [a.get_state(i) for i in range(4)] == [b.get_state(i) for i in range(4)]
    a.close()
    b.close()


# --------------------------------------------------------------------------- Gymnasium API


def _check_env_quietly(env_id, skip_render_check):
    env = gym.make(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=skip_render_check)
    env.close()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env_passes_for_every_id(env_id):
    assert _check_env_quietly(env_id, skip_render_check=env_id not in ALL_IDS[:2]) == []


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env_with_render_modes_for_every_id(env_id):
    assert _check_env_quietly(env_id, skip_render_check=False) == []


@pytest.mark.parametrize("obs_type", ["vector", "grid"])
def test_spaces(obs_type):
    envs = RobomanVectorEnv(3, task="LiftRed", obs_type=obs_type)
    if obs_type == "vector":
        assert envs.single_observation_space == gym.spaces.Box(-1, 6, (11,), np.float32)
    else:
        assert envs.single_observation_space == gym.spaces.Box(0, 4, (7, 7, 4), np.uint8)
    assert envs.single_action_space == gym.spaces.Discrete(7)
    assert envs.action_space == gym.spaces.MultiDiscrete([7] * 3)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    obs, *_ = envs.step(np.array([5, 2, 4]))
    assert envs.observation_space.contains(obs)
    envs.close()


def test_single_env_info_and_types():
    env = RobomanEnv(task="LiftGreen")
    obs, info = env.reset(seed=2)
    assert obs.dtype == np.float32 and obs.shape == (11,)
    assert set(info) == {"action_mask"} and info["action_mask"].dtype == np.int8
    obs, r, term, trunc, info = env.step(0)
    assert type(r) is float and type(term) is bool and type(trunc) is bool
    assert set(info) == {"action_mask"} and info["action_mask"].shape == (7,)
    env.close()


# --------------------------------------------------------------------------- distribution


@pytest.fixture(scope="module")
def reset_obs():
    envs = RobomanVectorEnv(N_DIST, task="LiftRed")
    obs, _ = envs.reset(seed=123_456)
    envs.close()
    return obs


def _cells(obs, col):
    return (7 * obs[:, col + 1] + obs[:, col]).astype(np.int64)


@pytest.mark.parametrize("what,col", [("agent", 0), ("red", 2), ("green", 5), ("blue", 8)])
def test_reset_cells_are_uniform_chi_square(reset_obs, what, col):
    counts = np.bincount(_cells(reset_obs, col), minlength=49)
    assert counts.shape == (49,)
    p = stats.chisquare(counts).pvalue
    assert p > 1e-4, (what, p, counts)


def test_reset_placements_use_four_distinct_cells_and_nothing_is_stacked(reset_obs):
    cells = np.stack([_cells(reset_obs, c) for c in (0, 2, 5, 8)], axis=1)
    assert all(len(set(row)) == 4 for row in cells.tolist())
    assert (reset_obs[:, [4, 7, 10]] == 0).all()


def test_reset_pairs_are_uniform(reset_obs):
    """The ordered (agent, red) pairs are uniform over the 49 * 48 pairs of distinct cells (coarsened)."""
    a, r = _cells(reset_obs, 0) // 7, _cells(reset_obs, 2) // 7  # rows of agent and red
    counts = np.zeros((7, 7))
    np.add.at(counts, (a, r), 1)
    # P(row_a = i, row_r = j) = 7 * (7 - [i == j]) / (49 * 48)
    expected = np.array([[7 * (7 - (i == j)) for j in range(7)] for i in range(7)]) / (49 * 48) * len(a)
    p = stats.chisquare(counts.ravel(), expected.ravel()).pvalue
    assert p > 1e-4


SOLVED_AT_RESET = {
    "LiftGreen": 0.0,
    "TouchRedWithBlue": 0.0,
    "StackBlueOnRed": 0.0,
    "TouchBlue": 1 / 14,
    "MoveRedToCenter": 9 / 49,
    "MoveGreenToCorner": 16 / 49,
    "MoveBlueCloseToGreen": 13 / 98,
    "MoveRedFarFromBlue": 5 / 196,
}


def test_solved_at_reset_rates_are_the_documented_fractions_by_enumeration():
    """The documented rates follow from the goals: enumerate the agent and X (and Y) placements."""
    cells = [(x, y) for y in range(7) for x in range(7)]
    one = {"TouchBlue": lambda a, x: abs(a[0] - x[0]) + abs(a[1] - x[1]) == 1,
           "MoveRedToCenter": lambda a, x: x in CENTER, "MoveGreenToCorner": lambda a, x: x in CORNERS}
    for name, pred in one.items():
        hits = sum(pred(a, x) for a in cells for x in cells if a != x)
        assert hits / (49 * 48) == pytest.approx(SOLVED_AT_RESET[name], abs=1e-12)
    close = sum(abs(p[0] - q[0]) <= 1 and abs(p[1] - q[1]) <= 1 for p in cells for q in cells if p != q)
    far = sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) > 9 for p in cells for q in cells if p != q)
    assert (close, far) == (312, 60)


@pytest.mark.parametrize("task", sorted(SOLVED_AT_RESET))
def test_solved_at_reset_rates(task):
    """A no-op step keeps the start, so ``terminated`` after it says whether the start was solved."""
    p = SOLVED_AT_RESET[task]
    envs = RobomanVectorEnv(N_DIST, task=task)
    envs.reset(seed=99)
    _, rew, term, trunc, _ = envs.step(np.zeros(N_DIST, np.int64))
    rate = term.mean()
    if p == 0:
        assert rate == 0
    else:
        se = np.sqrt(p * (1 - p) / N_DIST)
        assert abs(rate - p) < 4 * se, (task, rate, p)
    np.testing.assert_array_equal(rew, term.astype(np.float32))
    assert not trunc.any()
    # the same rows through the reference goal
    for i in range(0, N_DIST, 997):
        state, _ = roboman_reset(derive_keys([99 + i])[0], 0, task)
        assert roboman_goal(task, state) == term[i]
    envs.close()


@pytest.mark.parametrize("task", sorted(SOLVED_AT_RESET))
def test_first_step_ends_exactly_the_solved_starts_except_touch(task):
    """Nothing can be lifted on the first step (the agent starts on an empty cell), so only TouchX can change."""
    n = 4000
    noop = RobomanVectorEnv(n, task=task)
    moved = RobomanVectorEnv(n, task=task)
    noop.reset(seed=31)
    moved.reset(seed=31)
    _, _, solved, _, _ = noop.step(np.zeros(n, np.int64))
    _, rew, term, _, _ = moved.step(np.random.default_rng(0).integers(0, 7, n))
    np.testing.assert_array_equal(rew, term.astype(np.float32))
    if task.startswith("Touch") and "With" not in task:
        assert (term != solved).any()
    else:
        np.testing.assert_array_equal(term, solved)
    noop.close()
    moved.close()


@pytest.mark.parametrize("task", ["TouchBlue", "MoveRedToCenter", "MoveGreenToCorner", "MoveBlueCloseToGreen",
                                  "MoveRedFarFromBlue"])
def test_exclude_solved_starts_gives_no_solved_start(task):
    n = 5000
    envs = RobomanVectorEnv(n, task=task, exclude_solved_starts=True)
    envs.reset(seed=7)
    for _ in range(2):
        _, _, term, _, _ = envs.step(np.zeros(n, np.int64))
        assert not term.any()
        envs.reset()  # the next episode of every row
    envs.close()


def test_multi_task_draws_are_uniform_and_exclusion_keeps_the_task_draw():
    tasks = ["LiftRed", "MoveGreenToCorner", "TouchBlue"]
    n = 6000
    a = RobomanVectorEnv(n, tasks=tasks)
    b = RobomanVectorEnv(n, tasks=tasks, exclude_solved_starts=True)
    a.reset(seed=1)
    b.reset(seed=1)
    names = [a.get_task(i) for i in range(n)]
    assert [b.get_task(i) for i in range(n)] == names  # the task is drawn before the placement
    counts = np.array([names.count(t) for t in tasks])
    assert stats.chisquare(counts).pvalue > 1e-4
    a.close()
    b.close()


# --------------------------------------------------------------------------- reproducibility


def _rollout(n: int, steps: int, base_seeds, mode="NextStep", num_threads=1):
    tasks = ["LiftRed", "TouchGreen", "MoveBlueToCenter", "StackGreenOnBlue"]
    envs = RobomanVectorEnv(n, tasks=tasks, task_in_obs=True, autoreset_mode=mode, num_threads=num_threads)
    seeds = list(base_seeds[:n])
    acts = np.stack([np.random.default_rng(s).integers(0, 7, steps) for s in seeds])
    obs, infos = envs.reset(seed=seeds)
    out = [(obs.copy(), infos["action_mask"].copy())]
    for t in range(steps):
        obs, rew, term, trunc, infos = envs.step(acts[:, t].copy())
        out.append((obs.copy(), rew.copy(), term.copy(), trunc.copy(), infos["action_mask"].copy()))
    envs.close()
    return out


def test_rows_are_reproducible_across_batch_sizes_with_autoresets():
    seeds = [1000 + 37 * i for i in range(64)]
    runs = {n: _rollout(n, 130, seeds) for n in (1, 7, 64)}
    ended = sum(int((o[2] | o[3]).sum()) for o in runs[64][1:])
    assert ended > 64  # autoresets happened (the 50-step limit alone gives 2 per row)
    for n in (1, 7):
        for step_a, step_b in zip(runs[n], runs[64], strict=True):
            for x, y in zip(step_a, step_b, strict=True):
                np.testing.assert_array_equal(x, y[:n])
    again = _rollout(7, 130, seeds)
    for step_a, step_b in zip(again, runs[7], strict=True):
        for x, y in zip(step_a, step_b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.skipif(not gridsim.threads_available(), reason="gridsim was built without threads")
@pytest.mark.parametrize("num_threads", [2, 4])
def test_rows_are_reproducible_across_thread_counts(num_threads):
    seeds = [5 + i for i in range(64)]
    threaded = _rollout(64, 80, seeds, num_threads=num_threads)
    for step_a, step_b in zip(threaded, _rollout(64, 80, seeds), strict=True):
        for x, y in zip(step_a, step_b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_vector_row_equals_single_env_with_that_seed():
    envs = RobomanVectorEnv(5, task="MoveRedCloseToGreen")
    envs.reset(seed=40)
    single = RobomanEnv(task="MoveRedCloseToGreen")
    single.reset(seed=43)
    assert single.unwrapped.get_state() == envs.get_state(3)
    envs.close()
    single.close()


# --------------------------------------------------------------------------- masks


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_action_masks_on_reset_and_every_step(mode):
    n = 32
    envs = RobomanVectorEnv(n, tasks=["LiftRed", "StackGreenOnRed", "TouchBlue"], autoreset_mode=mode)
    rng = np.random.default_rng(0)
    obs, infos = envs.reset(seed=8)
    for t in range(120):
        assert set(infos) >= {"action_mask", "_action_mask"}
        mask = infos["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (n, 7)
        assert infos["_action_mask"].dtype == np.bool_ and infos["_action_mask"].all()
        want = np.stack([roboman_mask(envs.get_state(i)) for i in range(n)])
        np.testing.assert_array_equal(mask, want, err_msg=f"t={t}")
        valid = envs.action_masks()
        assert valid.dtype == np.bool_ and valid.shape == (n, 7)
        np.testing.assert_array_equal(valid, mask == 0)
        assert mask is not envs.action_masks()
        if t % 3 == 0:  # valid actions only, sometimes
            acts = np.array([rng.choice(np.flatnonzero(row)) for row in valid])
        else:
            acts = rng.integers(0, 7, n)
        obs, _, term, trunc, infos = envs.step(acts)
        if mode == "Disabled" and (term | trunc).any():
            mask_rows = term | trunc
            obs, reset_infos = envs.reset(options={"reset_mask": mask_rows})
            np.testing.assert_array_equal(reset_infos["_action_mask"], mask_rows)
            for i in np.flatnonzero(mask_rows):
                np.testing.assert_array_equal(reset_infos["action_mask"][i], roboman_mask(envs.get_state(i)))
            infos = {"action_mask": np.stack([roboman_mask(envs.get_state(i)) for i in range(n)]),
                     "_action_mask": np.ones(n, bool)}
    envs.close()


def test_action_zero_is_never_masked_as_docs_roboman_md_says():
    from pathlib import Path

    envs = RobomanVectorEnv(64, tasks=TASK_NAMES)
    rng = np.random.default_rng(1)
    _, infos = envs.reset(seed=3)
    for _ in range(200):
        assert (infos["action_mask"][:, 0] == 0).all() and envs.action_masks()[:, 0].all()
        _, _, _, _, infos = envs.step(rng.integers(0, 7, 64))
    envs.close()
    doc = Path(__file__).resolve().parents[2] / "docs" / "roboman.md"
    if doc.is_file():  # absent beside an installed wheel's tests
        row = next(line for line in doc.read_text().splitlines() if line.startswith("| 0 |"))
        assert row.split("|")[3].strip().startswith("never")


def test_reset_mask_resets_the_masked_rows_to_their_next_episode():
    n = 6
    envs = RobomanVectorEnv(n, tasks=["LiftRed", "TouchGreen", "StackBlueOnGreen"])
    envs.reset(seed=50)
    keys = derive_keys([50 + i for i in range(n)])
    envs.step(np.full(n, 4))
    before = [envs.get_state(i) for i in range(n)]
    mask = np.array([True, False, True, True, False, False])
    obs, infos = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(infos["_action_mask"], mask)
    for i in range(n):
        if mask[i]:
            state, task = roboman_reset(keys[i], 1, ["LiftRed", "TouchGreen", "StackBlueOnGreen"])
            assert envs.get_state(i) == state and envs.get_task(i) == task.name
            np.testing.assert_array_equal(infos["action_mask"][i], roboman_mask(state))
        else:
            assert envs.get_state(i) == before[i]
        np.testing.assert_array_equal(obs[i], roboman_obs(envs.get_state(i)))
    envs.close()


def test_infos_are_fresh_arrays():
    envs = RobomanVectorEnv(4, task="LiftRed")
    _, a = envs.reset(seed=0)
    _, _, _, _, b = envs.step(np.zeros(4, np.int64))
    _, _, _, _, c = envs.step(np.zeros(4, np.int64))
    assert not np.shares_memory(a["action_mask"], b["action_mask"])
    assert not np.shares_memory(b["action_mask"], c["action_mask"])
    envs.close()


# --------------------------------------------------------------------------- multi-task


def test_multi_task_mode():
    """Each row draws its task at every reset and autoreset; ``task_in_obs`` appends its one-hot."""
    tasks = ["LiftRed", "TouchGreen", "StackBlueOnRed", "MoveGreenFarFromBlue", "MoveRedToCorner"]
    n = 64
    envs = RobomanVectorEnv(n, tasks=tasks, task_in_obs=True, max_episode_steps=4)
    assert envs.single_observation_space == gym.spaces.Box(-1, 6, (11 + len(tasks),), np.float32)
    obs, _ = envs.reset(seed=2024)
    keys = derive_keys([2024 + i for i in range(n)])
    episode = np.zeros(n, np.int64)
    pending = np.zeros(n, bool)
    history = [[] for _ in range(n)]
    for t in range(20):
        assert obs.shape == (n, 16) and obs.dtype == np.float32
        for i in range(n):
            name = envs.get_task(i)
            history[i].append(name)
            assert roboman_reset(keys[i], episode[i], tasks)[1].name == name, (t, i)
            hot = np.zeros(len(tasks), np.float32)
            hot[tasks.index(name)] = 1
            np.testing.assert_array_equal(obs[i, 11:], hot)
            np.testing.assert_array_equal(obs[i, :11], roboman_obs(envs.get_state(i)))
        obs, _, term, trunc, _ = envs.step(np.zeros(n, np.int64))
        episode += pending  # rows that ended on the previous call reset on this one
        pending = term | trunc
    assert {h[0] for h in history} == set(tasks)  # tasks differ across envs
    assert sum(len(set(h)) > 1 for h in history) > n // 2  # and autoresets redraw them
    assert episode.min() >= 3
    envs.close()


def test_multi_task_one_hot_is_over_the_given_list_order():
    envs = RobomanVectorEnv(8, tasks=["TouchGreen", "LiftRed"], task_in_obs=True)
    obs, _ = envs.reset(seed=0)
    for i in range(8):
        assert obs[i, 11:].tolist() == ([1, 0] if envs.get_task(i) == "TouchGreen" else [0, 1])
    envs.close()


def test_single_task_draws_nothing_for_the_task():
    """``tasks=[t]`` equals ``task=t`` (bounded(1) draws nothing)."""
    a = RobomanVectorEnv(16, tasks=["MoveBlueCloseToRed"])
    b = RobomanVectorEnv(16, task="MoveBlueCloseToRed")
    a.reset(seed=3)
    b.reset(seed=3)
    assert [a.get_state(i) for i in range(16)] == [b.get_state(i) for i in range(16)]
    a.close()
    b.close()


# --------------------------------------------------------------------------- grid obs


def test_grid_obs_contents():
    envs = RobomanVectorEnv(2, task="LiftGreen", obs_type="grid")
    envs.reset(seed=0)
    three = state_of((3, 3), [(3, 3, None, 1), (3, 3, 0, 2), (3, 3, 1, None)])
    envs.set_state(three, 1)
    obs, *_ = envs.step(np.array([0, 0]))
    grid = obs[1]
    assert grid.dtype == np.uint8 and grid.shape == (7, 7, 4)
    assert grid[3, 3].tolist() == [1, 3, 2, 1]  # agent; red on top of 2, green on 1, blue on the floor
    assert grid.sum() == 7
    obs, *_ = envs.step(np.array([0, 5]))  # lift red
    assert obs[1][3, 3].tolist() == [1, 4, 2, 1]
    obs, *_ = envs.step(np.array([0, 4]))  # carry it right
    assert obs[1][3, 4].tolist() == [1, 4, 0, 0] and obs[1][3, 3].tolist() == [0, 0, 2, 1]
    obs, *_ = envs.step(np.array([0, 6]))  # put it on the floor
    assert obs[1][3, 4].tolist() == [1, 1, 0, 0]
    # x is the column, y the row: grid[y, x]
    envs.set_state(state_of((6, 0), [(0, 6), (5, 1), (2, 4)]), 1)
    obs, *_ = envs.step(np.array([0, 0]))
    g = obs[1]
    assert g[0, 6, 0] == 1 and g[6, 0, 1] == 1 and g[1, 5, 2] == 1 and g[4, 2, 3] == 1 and g.sum() == 4
    envs.close()


def test_grid_obs_matches_reference_on_random_play():
    n = 16
    envs = RobomanVectorEnv(n, task="StackRedOnGreen", obs_type="grid", autoreset_mode="SameStep")
    obs, _ = envs.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(200):
        for i in range(n):
            np.testing.assert_array_equal(obs[i], roboman_grid_obs(envs.get_state(i)))
        obs, *_ = envs.step(rng.integers(0, 7, n))
    envs.close()


# --------------------------------------------------------------------------- invalid actions


def test_invalid_action_error_classes():
    assert issubclass(InvalidActionError, ValueError)
    assert issubclass(InvalidActionError, AssertionError)


@pytest.mark.parametrize("bad", [np.array([1.0, 0.0, 2.0]), np.array([0, 7, 1]), np.array([0, -1, 1]),
                                 np.array([0, 1]), np.array([[0, 1, 2]]), [0, 1, 2.5], np.array([True, False, True])])
def test_vector_invalid_actions_raise_and_change_nothing(bad):
    envs = RobomanVectorEnv(3, task="LiftRed")
    envs.reset(seed=0)
    before = [envs.get_state(i) for i in range(3)]
    frozen = copy.deepcopy(bad)
    with pytest.raises(InvalidActionError):
        envs.step(bad)
    assert [envs.get_state(i) for i in range(3)] == before
    np.testing.assert_array_equal(np.asarray(bad), np.asarray(frozen))
    envs.close()


@pytest.mark.parametrize("bad", [1.0, np.float32(2), 7, -1, np.int64(9), np.bool_(True), np.array([1]), "1", None])
def test_single_invalid_actions_raise(bad):
    env = RobomanEnv(task="LiftRed")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    with pytest.raises(InvalidActionError):
        env.step(bad)
    with pytest.raises(AssertionError):
        env.step(bad)
    assert env.unwrapped.get_state() == before
    env.close()


@pytest.mark.parametrize("good,as_int", [(True, 1), (False, 0), (np.int64(4), 4), (np.uint8(3), 3),
                                         (np.array(2), 2), (np.int16(6), 6)])
def test_single_accepts_ints_bools_and_numpy_integers(good, as_int):
    env = RobomanEnv(task="LiftRed")
    env.reset(seed=0)
    start = state_of((3, 3), [(3, 3), (0, 0), (6, 6)])
    env.unwrapped.set_state(start)
    got = env.step(good)
    env.unwrapped.set_state(start)
    want = env.step(as_int)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:4] == want[1:4]
    env.close()


def test_vector_accepts_integer_dtypes_and_lists_without_writing():
    envs = RobomanVectorEnv(3, task="LiftRed")
    for acts in (np.array([1, 2, 3], np.uint8), np.array([4, 5, 6], np.int16), [0, 1, 2]):
        envs.reset(seed=0)
        a = np.array(acts)
        a.setflags(write=False)
        envs.step(a)
    envs.close()


# --------------------------------------------------------------------------- set_state


@pytest.mark.parametrize("field,value", [
    ("agent_pos", (7, 0)), ("agent_pos", (0, -1)), ("agent_pos", (1.0, 2)), ("lifted_obj_idx", 3),
    ("lifted_obj_idx", -1), ("timer", -1), ("timer", 2**31), ("timer", 1.5), ("obj_above", 3),
    ("obj_below", -1), ("x", 7), ("y", -1), ("x", 2.0),
])
def test_set_state_rejects_bad_types_and_ranges(field, value):
    envs = RobomanVectorEnv(2, task="LiftRed")
    envs.reset(seed=0)
    before = envs.get_state(1)
    state = state_of((1, 1), [(2, 2), (3, 3), (4, 4)])
    if field in ("agent_pos", "lifted_obj_idx", "timer"):
        state[field] = value
    else:
        state["objs"][1][field] = value
    with pytest.raises(ValueError):
        envs.set_state(state, 1)
    assert envs.get_state(1) == before
    envs.close()


def test_set_state_stores_inconsistent_states_verbatim_and_get_state_types():
    envs = RobomanVectorEnv(2, task="LiftRed")
    envs.reset(seed=0)
    weird = state_of((0, 0), [(6, 6, 0, 0), (0, 0, 2, None), (1, 0, None, 1)], held=0, timer=2**31 - 1)
    obs, info = envs.set_state(copy.deepcopy(weird), 1)
    got = envs.get_state(1)
    assert got == weird
    assert type(got["agent_pos"]) is tuple and all(type(v) is int for v in got["agent_pos"])
    assert all(type(v) is int or v is None for o in got["objs"] for v in o.values())
    assert obs.dtype == np.float32 and obs.shape == (11,)
    np.testing.assert_array_equal(obs, roboman_obs(weird))
    assert info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(info["action_mask"], roboman_mask(weird))
    assert envs.get_state(0) != weird
    envs.close()


def test_set_state_clears_the_pending_autoreset_and_keeps_the_episode_stream():
    envs = RobomanVectorEnv(1, task="LiftRed")
    envs.reset(seed=4)
    key = derive_keys([4])[0]
    start = state_of((2, 2), [(2, 2), (0, 0), (6, 6)])
    envs.set_state(start, 0)
    _, rew, term, _, _ = envs.step(np.array([5]))
    assert term[0] and rew[0] == 1.0
    envs.set_state(start, 0)  # clears the pending NEXT_STEP autoreset: the next step steps this state
    _, rew, term, _, _ = envs.step(np.array([5]))
    assert term[0] and envs.get_state(0)["lifted_obj_idx"] == 0
    obs, rew, term, trunc, _ = envs.step(np.array([0]))  # the autoreset: episode 1 of the same key
    assert (rew[0], term[0], trunc[0]) == (0.0, False, False)
    assert envs.get_state(0) == roboman_reset(key, 1, "LiftRed")[0]
    envs.close()


# --------------------------------------------------------------------------- autoreset infos


def test_same_step_final_info_has_the_final_mask_and_stats():
    n = 4
    envs = RobomanVectorEnv(n, task="LiftRed", autoreset_mode="SameStep")
    envs.reset(seed=10)
    keys = derive_keys([10 + i for i in range(n)])
    near = state_of((2, 2), [(2, 2), (0, 0), (6, 6)], timer=3)
    envs.set_state(near, 2)
    envs.set_state(state_of((5, 5), [(2, 2), (0, 0), (6, 6)], timer=49), 0)
    obs, rew, term, trunc, infos = envs.step(np.array([0, 0, 5, 0]))
    assert term.tolist() == [False, False, True, False]
    assert trunc.tolist() == [True, False, False, False]
    ended = np.array([True, False, True, False])
    np.testing.assert_array_equal(infos["_final_obs"], ended)
    np.testing.assert_array_equal(infos["_final_info"], ended)
    final = infos["final_info"]
    np.testing.assert_array_equal(final["_action_mask"], ended)
    held_state = copy.deepcopy(near)
    roboman_step(held_state, 5, "LiftRed")
    np.testing.assert_array_equal(final["action_mask"][2], roboman_mask(held_state))
    np.testing.assert_array_equal(final["action_mask"][2], [0, 0, 0, 0, 0, 1, 0])
    np.testing.assert_array_equal(infos["final_obs"][2], roboman_obs(held_state))
    assert infos["final_obs"][1] is None
    es = final["episode_stats"]
    np.testing.assert_array_equal(final["_episode_stats"], ended)
    for k in ("return", "length", "success"):
        np.testing.assert_array_equal(es["_" + k], ended)
    assert es["success"][2] and not es["success"][0]
    assert es["return"][2] == 1.0 and es["return"][0] == 0.0
    # top level: the first state of the next episode on the ended rows
    for i in (0, 2):
        fresh, _ = roboman_reset(keys[i], 1, "LiftRed")
        assert envs.get_state(i) == fresh
        np.testing.assert_array_equal(obs[i], roboman_obs(fresh))
        np.testing.assert_array_equal(infos["action_mask"][i], roboman_mask(fresh))
    assert infos["_action_mask"].all()
    assert "episode" not in infos
    envs.close()


def test_next_step_episode_stats_of_a_full_episode():
    envs = RobomanVectorEnv(2, task="LiftRed")
    envs.reset(seed=0)
    state = envs.get_state(0)
    ax, ay = state["agent_pos"]
    rx, ry = state["objs"][0]["x"], state["objs"][0]["y"]
    path = [3 if rx < ax else 4] * abs(rx - ax) + [1 if ry < ay else 2] * abs(ry - ay) + [5]
    for t, a in enumerate(path):
        _, rew, term, trunc, infos = envs.step(np.array([a, 0]))
        if t < len(path) - 1:
            assert not term[0]
    assert term[0] and rew[0] == 1.0
    es = infos["episode_stats"]
    assert infos["_episode_stats"][0]
    assert es["success"][0] and es["return"][0] == 1.0 and es["length"][0] == len(path)
    envs.close()


def test_episode_stats_can_be_turned_off():
    envs = RobomanVectorEnv(1, task="LiftRed", episode_stats=False)
    envs.reset(seed=0)
    envs.set_state(state_of((2, 2), [(2, 2), (0, 0), (6, 6)]), 0)
    _, _, term, _, infos = envs.step(np.array([5]))
    assert term[0] and "episode_stats" not in infos
    assert set(infos) == {"action_mask", "_action_mask"}
    envs.close()


def test_disabled_mode_stepping_a_finished_env_raises():
    envs = RobomanVectorEnv(2, task="LiftRed", autoreset_mode="Disabled")
    envs.reset(seed=0)
    envs.set_state(state_of((2, 2), [(2, 2), (0, 0), (6, 6)]), 0)
    _, _, term, _, _ = envs.step(np.array([5, 0]))
    assert term.tolist() == [True, False]
    before = [envs.get_state(i) for i in range(2)]
    with pytest.raises(RuntimeError):
        envs.step(np.array([0, 0]))
    assert [envs.get_state(i) for i in range(2)] == before
    envs.close()
