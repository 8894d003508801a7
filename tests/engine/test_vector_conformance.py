"""Gymnasium VectorEnv conformance of the navigation family (gymnasium_vector.md section 14).

Spaces, seeding, ``reset_mask``, actions, outputs, rendering and state access of
:class:`gridsim.NavVectorEnv`. The autoreset timelines are in ``test_autoreset.py``,
the single-env view in ``test_single_env.py`` and wrapper stacks in ``test_wrappers.py``.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import batch_space
from hypothesis import given
from hypothesis import strategies as st

import gridsim
from gridsim import InvalidActionError, NavEnv, NavVectorEnv

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

# Two 'right' moves from S reach the goal: -1, then +1 and terminated.
CORRIDOR = "#####\n#S 0#\n#####"
# Four start cells: with it the start, and so the whole trajectory, depends on the seed.
MULTI_START = "#######\n#S S S#\n#     #\n#S  0 #\n#######"
WALL, FLOOR, GOAL, AGENT = (0, 0, 0), (255, 255, 255), (50, 50, 255), (50, 205, 50)
COLORS = {"#": WALL, " ": FLOOR, "S": FLOOR, "0": GOAL}
# A native-format level with a collectible coin: its cells change during an episode.
COIN_LEVEL = """%gridsim 1
[legend]
c = reward=5 collectible color=255,215,0
[map]
#######
#S c 0#
#  c  #
#######"""


def rollout(env, actions):
    """Step ``env`` with each row of ``actions``; the outputs stacked over time, plus the infos."""
    obs, rew, term, trunc, infos = [], [], [], [], []
    for a in actions:
        o, r, te, tr, info = env.step(a)
        obs.append(np.array(o))
        rew.append(np.array(r))
        term.append(np.array(te))
        trunc.append(np.array(tr))
        infos.append(info)
    return np.stack(obs), np.stack(rew), np.stack(term), np.stack(trunc), infos


def random_actions(n_actions: int, steps: int, rows: list[int]) -> np.ndarray:
    """(steps, len(rows)) int64 actions; column k depends only on ``rows[k]``."""
    cols = [np.random.default_rng(1000 + r).integers(0, n_actions, steps) for r in rows]
    return np.stack(cols, axis=1).astype(np.int64)


def assert_state_equal(a: dict, b: dict):
    """Two ``state_dict()`` snapshots are identical (keys, dtypes, shapes, values)."""
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            assert a[k] == b[k], k


def assert_exact(a, b):
    """Strict comparison: the same type, dtype, shape and values, recursively."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_exact(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:
            for x, y in zip(a, b, strict=True):
                assert_exact(x, y)
        else:
            np.testing.assert_array_equal(a, b)
    else:
        assert a == b


# ----------------------------------------------------------------------------------- spaces


OBS_CASES = {
    "coords": ({"obs_type": "coords"}, (2,), np.int32, np.array([0, 0]), np.array([5, 10])),
    "xy_alias": ({"obs_type": "xy"}, (2,), np.int32, np.array([0, 0]), np.array([5, 10])),
    "image_last": ({"obs_type": "image", "pixels_per_cell": 2}, (12, 22, 3), np.uint8, 0, 255),
    "image_first": (
        {"obs_type": "image", "pixels_per_cell": 2, "channels_first": True},
        (3, 12, 22), np.uint8, 0, 255,
    ),
    # Tile ids: 0 (outside the map) and the four navigation symbols.
    "view": ({"obs_type": "view", "view_size": 5}, (5, 5), np.uint8, 0, 4),
}


@pytest.mark.parametrize("case", sorted(OBS_CASES))
def test_observation_spaces_match_returned_arrays_exactly(case):
    kwargs, shape, dtype, low, high = OBS_CASES[case]
    N = 3
    env = NavVectorEnv(N, level="nav/room2_small", **kwargs)  # 6 x 11: rows != cols
    single = env.single_observation_space
    assert type(single) is gym.spaces.Box
    assert single.shape == shape and single.dtype == dtype
    np.testing.assert_array_equal(single.low, np.broadcast_to(low, shape).astype(dtype))
    np.testing.assert_array_equal(single.high, np.broadcast_to(high, shape).astype(dtype))
    assert env.observation_space == batch_space(single, N)
    assert env.observation_space.shape == (N, *shape) and env.observation_space.dtype == dtype
    obs, _ = env.reset(seed=0)
    outputs = [obs]
    for a in random_actions(4, 20, list(range(N))):
        outputs.append(env.step(a)[0])
    for o in outputs:
        assert type(o) is np.ndarray and o.dtype == dtype and o.shape == (N, *shape)
        assert o in env.observation_space
        assert all(row in single for row in o)


@pytest.mark.parametrize(
    ("actions", "single"),
    [
        ("1d_discrete", gym.spaces.Discrete(4)),
        ("2d_discrete", gym.spaces.Discrete(4)),
        ("1d_horizontal", gym.spaces.Discrete(2)),
        ("1d_vertical", gym.spaces.Discrete(2)),
        ("2d_continuous", gym.spaces.Box(-1.0, 1.0, (2,), np.float32)),
    ],
)
def test_action_spaces_match_spec_and_batch_space(actions, single):
    N = 5
    env = NavVectorEnv(N, level="nav/room1_small", actions=actions)
    assert env.single_action_space == single
    assert env.action_space == batch_space(single, N)
    if isinstance(single, gym.spaces.Discrete):
        assert env.action_space == gym.spaces.MultiDiscrete([single.n] * N)
    else:
        assert env.action_space.shape == (N, 2) and env.action_space.dtype == np.float32
        np.testing.assert_array_equal(env.action_space.low, np.full((N, 2), -1, np.float32))
        np.testing.assert_array_equal(env.action_space.high, np.full((N, 2), 1, np.float32))
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(5):
        obs, rewards, term, trunc, _ = env.step(env.action_space.sample())
        assert obs in env.observation_space


# (d_row, d_col) of each action index (pixelworld.md section 4).
MOVES = {
    "1d_discrete": [(-1, 0), (0, 1), (1, 0), (0, -1)],
    "1d_horizontal": [(0, 1), (0, -1)],
    "1d_vertical": [(1, 0), (-1, 0)],
}


@pytest.mark.parametrize("actions", sorted(MOVES))
def test_discrete_action_index_moves_as_spec_table(actions):
    moves = MOVES[actions]
    env = NavVectorEnv(len(moves), level="nav/room5_medium", actions=actions)  # open 8x8 room
    env.reset(seed=0)
    for i in range(len(moves)):
        env.set_state({"pos": (3, 3)}, index=i)
    obs, *_ = env.step(np.arange(len(moves), dtype=np.int64))
    expected = np.array([(3 + dr, 3 + dc) for dr, dc in moves], np.int32)
    np.testing.assert_array_equal(obs, expected)


def test_metadata_autoreset_mode_is_the_enum():
    env = NavVectorEnv(2, level="nav/room1_small")
    assert type(env.metadata["autoreset_mode"]) is AutoresetMode
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.autoreset_mode is AutoresetMode.NEXT_STEP
    assert env.metadata["render_fps"] == 10
    assert {"rgb_array", "human"} <= set(env.metadata["render_modes"])
    assert env.num_envs == 2 and env.render_mode is None and not env.closed


def test_spec_attribute_is_writable():
    env = NavVectorEnv(2, level="nav/room1_small")
    assert env.spec is None
    spec = EnvSpec("gridsim/Custom-v0", vector_entry_point="gridsim.envs:NavVectorEnv")
    env.spec = spec
    assert env.spec is spec
    env.unwrapped.spec = None
    assert env.spec is None


@pytest.mark.parametrize(
    "mode",
    [None, AutoresetMode.SAME_STEP, "SameStep", "NEXT_STEP", "NextStep", "Disabled", "DISABLED"],
)
def test_make_vec_warns_nothing_about_autoreset_mode(mode):
    kwargs = {} if mode is None else {"autoreset_mode": mode}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = gym.make_vec("gridsim/PixelWorld-room5_medium_walls-v0", num_envs=2, **kwargs)
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "autoreset" in m.lower()], messages
    assert type(envs.metadata["autoreset_mode"]) is AutoresetMode
    assert envs.unwrapped.autoreset_mode is envs.metadata["autoreset_mode"]
    assert envs.unwrapped.spec.id == "gridsim/PixelWorld-room5_medium_walls-v0"
    envs.close()


def test_obs_dtype_casts_observations_and_space():
    env = NavVectorEnv(2, level="nav/room1_small", obs_type="image", obs_dtype="float32")
    ref = NavVectorEnv(2, level="nav/room1_small", obs_type="image")
    assert env.single_observation_space.dtype == np.float32
    assert env.observation_space.dtype == np.float32
    obs, _ = env.reset(seed=3)
    ref_obs, _ = ref.reset(seed=3)
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs, ref_obs.astype(np.float32))
    obs, *_ = env.step(np.array([0, 1]))
    ref_obs, *_ = ref.step(np.array([0, 1]))
    assert obs.dtype == np.float32 and obs in env.observation_space
    np.testing.assert_array_equal(obs, ref_obs.astype(np.float32))


# ---------------------------------------------------------------------------- observations


def expected_image(tiles: list[str], pos, ppc: int, channels_first: bool) -> np.ndarray:
    img = np.array([[COLORS[ch] for ch in row] for row in tiles], np.uint8)
    img[pos] = AGENT
    img = img.repeat(ppc, axis=0).repeat(ppc, axis=1)
    return np.ascontiguousarray(img.transpose(2, 0, 1)) if channels_first else img


def expected_frame(tiles: list[str], pos, px: int) -> np.ndarray:
    """A render_frame picture: the cells as the image observation draws them, the agent a disc on its tile."""
    img = np.array([[COLORS[ch] for ch in row] for row in tiles], np.uint8).repeat(px, axis=0).repeat(px, axis=1)
    yy, xx = np.mgrid[0:px, 0:px] + 0.5
    disc = (yy - px / 2) ** 2 + (xx - px / 2) ** 2 <= (0.4 * px) ** 2  # radius 0.4 cell, at the cell's centre
    r, c = pos
    img[r * px : (r + 1) * px, c * px : (c + 1) * px][disc] = AGENT
    return img


@pytest.mark.parametrize("channels_first", [False, True])
def test_image_obs_shows_map_colours_and_agent(channels_first):
    env = NavVectorEnv(2, level="nav/room2_small", obs_type="image", pixels_per_cell=2,
                       channels_first=channels_first)
    obs, _ = env.reset(seed=0, options={"start": np.array([[4, 1], [1, 9]])})
    for _ in range(3):
        for i in range(2):
            s = env.get_state(i)
            want = expected_image(s["tiles"], s["pos"], 2, channels_first)
            np.testing.assert_array_equal(obs[i], want)
        obs, *_ = env.step(np.array([0, 3]))


def test_view_obs_holds_tile_ids_around_agent():
    env = NavVectorEnv(2, level="nav/room2_small", obs_type="view", view_size=5)
    ids = env.level.alphabet.ids
    obs, _ = env.reset(seed=0, options={"start": np.array([[4, 1], [1, 9]])})
    for _ in range(3):
        for i in range(2):
            s = env.get_state(i)
            r0, c0 = s["pos"]
            want = np.zeros((5, 5), np.uint8)
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    r, c = r0 + dr, c0 + dc
                    if 0 <= r < 6 and 0 <= c < 11:
                        want[dr + 2, dc + 2] = ids[s["tiles"][r][c]]
            np.testing.assert_array_equal(obs[i], want)
        obs, *_ = env.step(np.array([1, 2]))


# ------------------------------------------------------------------------------------ seeds


def make_multi(num_envs: int, **kw) -> NavVectorEnv:
    kw.setdefault("max_episode_steps", 5)
    return NavVectorEnv(num_envs, world_map=MULTI_START, alphabet="noisy", **kw)


def test_int_seed_row_equals_separate_env_seeded_s_plus_i():
    N, T = 4, 25
    actions = random_actions(4, T, list(range(N)))
    env = make_multi(N)
    obs0, _ = env.reset(seed=500)
    traj = rollout(env, actions)
    for i in range(N):
        one = make_multi(1)
        obs1, _ = one.reset(seed=500 + i)
        np.testing.assert_array_equal(obs1[0], obs0[i])
        single = rollout(one, actions[:, i : i + 1])
        for full, part in zip(traj[:4], single[:4], strict=True):
            np.testing.assert_array_equal(full[:, i], part[:, 0])


def test_list_seed_gives_each_row_its_own_seed():
    seeds = [9, 3, 27]
    actions = random_actions(4, 20, [0, 1, 2])
    env = make_multi(3)
    env.reset(seed=seeds)
    traj = rollout(env, actions)
    for i, s in enumerate(seeds):
        one = make_multi(1)
        one.reset(seed=s)
        single = rollout(one, actions[:, i : i + 1])
        for full, part in zip(traj[:4], single[:4], strict=True):
            np.testing.assert_array_equal(full[:, i], part[:, 0])


@pytest.mark.parametrize("seed", [[1, 2], [1, 2, 3, 4], []])
def test_list_seed_of_wrong_length_raises_value_error(seed):
    env = make_multi(3)
    env.reset(seed=0)
    before = env.state_dict()
    with pytest.raises(ValueError, match="length"):
        env.reset(seed=seed)
    assert_state_equal(env.state_dict(), before)


@pytest.mark.parametrize("seed", [-1, [0, -5, 1], [0, 1.5, 2]])
def test_negative_or_non_integer_seed_raises_value_error(seed):
    env = make_multi(3)
    env.reset(seed=0)
    before = env.state_dict()
    with pytest.raises(ValueError):
        env.reset(seed=seed)
    assert_state_equal(env.state_dict(), before)


def test_list_seed_none_entry_continues_that_row():
    actions = random_actions(4, 12, [0, 1])
    env = make_multi(2)
    env.reset(seed=[11, 12])
    rollout(env, actions[:6])
    key1 = env.get_state(1)["key"]
    episode1 = env.get_state(1)["episode"]
    obs, _ = env.reset(seed=[13, None])
    assert env.get_state(1)["key"] == key1
    assert env.get_state(1)["episode"] == episode1 + 1
    assert env.get_state(0)["episode"] == 0
    fresh = make_multi(1)
    fresh.reset(seed=13)
    assert env.get_state(0)["key"] == fresh.get_state(0)["key"]
    tail = rollout(env, actions[6:])
    # Row 1 equals an env seeded 12 that ran the same steps and was then reset without a seed.
    ref = make_multi(1)
    ref.reset(seed=12)
    rollout(ref, actions[:6, 1:])
    ref_obs, _ = ref.reset()
    np.testing.assert_array_equal(obs[1], ref_obs[0])
    ref_tail = rollout(ref, actions[6:, 1:])
    for full, part in zip(tail[:4], ref_tail[:4], strict=True):
        np.testing.assert_array_equal(full[:, 1], part[:, 0])


def test_seed_none_continues_with_next_episode_and_same_key():
    env = make_multi(3)
    env.reset(seed=5)
    keys = [env.get_state(i)["key"] for i in range(3)]
    env.step(np.array([1, 1, 1]))
    obs, _ = env.reset()
    assert [env.get_state(i)["key"] for i in range(3)] == keys
    assert [env.get_state(i)["episode"] for i in range(3)] == [1, 1, 1]
    assert [env.get_state(i)["step"] for i in range(3)] == [0, 0, 0]
    again = make_multi(3)
    again.reset(seed=5)
    obs2, _ = again.reset()
    np.testing.assert_array_equal(obs, obs2)


def test_autoreset_continues_episode_counter_with_same_key():
    env = NavVectorEnv(1, world_map=CORRIDOR)
    env.reset(seed=4)
    key = env.get_state(0)["key"]
    env.step(np.array([1]))
    env.step(np.array([1]))  # terminates
    env.step(np.array([1]))  # NEXT_STEP: the autoreset
    assert env.get_state(0)["episode"] == 1 and env.get_state(0)["key"] == key


def test_reset_without_any_seed_draws_entropy_seeds():
    a, b = make_multi(3), make_multi(3)
    a.reset()
    b.reset()
    seeds = a.state.seeds.tolist()
    assert all(isinstance(s, int) and s >= 0 for s in seeds)
    assert [a.get_state(i)["key"] for i in range(3)] != [b.get_state(i)["key"] for i in range(3)]


def test_reset_int_seed_seeds_np_random_and_action_spaces():
    env = NavVectorEnv(3, level="nav/room1_small")
    env.reset(seed=42)
    assert env.np_random_seed == 42
    batch = [env.action_space.sample() for _ in range(5)]
    single = [env.single_action_space.sample() for _ in range(5)]
    env.reset(seed=42)
    np.testing.assert_array_equal(batch, [env.action_space.sample() for _ in range(5)])
    np.testing.assert_array_equal(single, [env.single_action_space.sample() for _ in range(5)])


STEPS = 30
SEED_OF_ROW = [7 + 1009 * i for i in range(256)]  # well separated: no s + i overlap


@functools.cache
def native_reference(num_envs: int):
    """Trajectories of rows 0..num_envs-1, each with seed SEED_OF_ROW[i] and its own actions."""
    env = make_multi(num_envs)
    obs, _ = env.reset(seed=SEED_OF_ROW[:num_envs])
    traj = rollout(env, random_actions(4, STEPS, list(range(num_envs))))
    return (obs, *traj[:4])


def assert_rows_equal(traj, ref, n: int):
    """``traj`` (initial obs, obs, rewards, terms, truncs) equals the first n rows of ``ref``."""
    np.testing.assert_array_equal(traj[0], ref[0][:n])
    for got, want in zip(traj[1:], ref[1:], strict=True):
        np.testing.assert_array_equal(got, want[:, :n])


@pytest.mark.parametrize("num_envs", [1, 7, 64])
def test_row_trajectory_is_independent_of_num_envs(num_envs):
    assert_rows_equal(native_reference(num_envs), native_reference(256), num_envs)


@pytest.mark.parametrize("row", [0, 100, 255])
def test_row_of_256_equals_single_env(row):
    ref = native_reference(256)
    one = make_multi(1)
    obs, _ = one.reset(seed=SEED_OF_ROW[row])
    traj = rollout(one, random_actions(4, STEPS, [row]))
    np.testing.assert_array_equal(obs[0], ref[0][row])
    for r, g in zip(ref[1:], traj[:4], strict=True):
        np.testing.assert_array_equal(g[:, 0], r[:, row])


@pytest.mark.parametrize("num_envs", [1, 7, 64])
def test_sync_vector_env_over_facades_matches_native_rows(num_envs):
    def make_one():
        return gym.wrappers.TimeLimit(NavEnv(world_map=MULTI_START, alphabet="noisy"), 5)

    sync = SyncVectorEnv([make_one] * num_envs, autoreset_mode=AutoresetMode.NEXT_STEP)
    obs, _ = sync.reset(seed=SEED_OF_ROW[:num_envs])
    traj = rollout(sync, random_actions(4, STEPS, list(range(num_envs))))
    ref = native_reference(256)
    np.testing.assert_array_equal(obs, ref[0][:num_envs])
    np.testing.assert_array_equal(traj[0], ref[1][:, :num_envs])
    # SyncVectorEnv returns float64 rewards: the same values as the kernel's float32.
    assert traj[1].dtype == np.float64
    np.testing.assert_array_equal(traj[1], ref[2][:, :num_envs].astype(np.float64))
    np.testing.assert_array_equal(traj[2], ref[3][:, :num_envs])
    np.testing.assert_array_equal(traj[3], ref[4][:, :num_envs])
    sync.close()


def test_sync_vector_env_same_step_matches_native_final_obs():
    N = 5
    native = make_multi(N, autoreset_mode="SameStep")

    def make_one():
        return gym.wrappers.TimeLimit(NavEnv(world_map=MULTI_START, alphabet="noisy"), 5)

    sync = SyncVectorEnv([make_one] * N, autoreset_mode=AutoresetMode.SAME_STEP)
    a, _ = native.reset(seed=SEED_OF_ROW[:N])
    b, _ = sync.reset(seed=SEED_OF_ROW[:N])
    np.testing.assert_array_equal(a, b)
    ended = 0
    for act in random_actions(4, STEPS, list(range(N))):
        na, sy = native.step(act), sync.step(act)
        np.testing.assert_array_equal(na[0], sy[0])
        np.testing.assert_array_equal(na[1].astype(np.float64), sy[1])
        np.testing.assert_array_equal(na[2], sy[2])
        np.testing.assert_array_equal(na[3], sy[3])
        done = na[2] | na[3]
        if done.any():
            np.testing.assert_array_equal(na[4]["_final_obs"], sy[4]["_final_obs"])
            for i in np.flatnonzero(done):
                np.testing.assert_array_equal(na[4]["final_obs"][i], sy[4]["final_obs"][i])
            ended += int(done.sum())
    assert ended >= N
    sync.close()


@pytest.mark.skipif(not gridsim.threads_available(), reason="gridsim was built without threads")
def test_num_threads_does_not_change_trajectories():
    env = make_multi(7, num_threads=4)
    obs, _ = env.reset(seed=SEED_OF_ROW[:7])
    traj = rollout(env, random_actions(4, STEPS, list(range(7))))
    ref = native_reference(7)
    for r, g in zip(ref, (obs, *traj[:4]), strict=True):
        np.testing.assert_array_equal(g, r)


def test_same_seed_gives_identical_rollout():
    a, b = make_multi(4), make_multi(4)
    actions = random_actions(4, STEPS, [0, 1, 2, 3])
    oa, _ = a.reset(seed=77)
    ob, _ = b.reset(seed=77)
    np.testing.assert_array_equal(oa, ob)
    for x, y in zip(rollout(a, actions)[:4], rollout(b, actions)[:4], strict=True):
        np.testing.assert_array_equal(x, y)


def test_different_seeds_give_different_rollouts():
    actions = np.repeat(random_actions(4, STEPS, [0]), 4, axis=1)  # every row acts alike
    a, b = make_multi(4), make_multi(4)
    a.reset(seed=0)
    b.reset(seed=10_000)
    ra, rb = rollout(a, actions), rollout(b, actions)
    assert not np.array_equal(ra[1], rb[1])
    # Within one batch the rows (seeds 0..3) differ too.
    for i in range(4):
        for j in range(i + 1, 4):
            assert not np.array_equal(ra[1][:, i], ra[1][:, j])


def test_pixelworld_v1_noisy_rewards_differ_per_seed():
    actions = np.tile(np.array([[0], [1], [2], [3]], np.int64), (3, 2))  # (12, 2)
    results = []
    for seed in (0, 1000):
        envs = gym.make_vec("gridsim/PixelWorld-room2_small-v0", num_envs=2)
        envs.reset(seed=seed)
        results.append(rollout(envs, actions))
        envs.close()
    (obs_a, rew_a, *_), (obs_b, rew_b, *_) = results
    np.testing.assert_array_equal(obs_a, obs_b)  # one start cell: the same path
    assert not np.array_equal(rew_a, rew_b)
    assert not np.array_equal(rew_a[:, 0], rew_a[:, 1])  # rows have their own tables


# ------------------------------------------------------------------------------ reset_mask


def test_reset_mask_resets_only_masked_rows():
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=0)
    for _ in range(3):
        obs, *_ = env.step(np.array([2, 2, 1]))
    states = [env.get_state(i) for i in range(3)]
    new_obs, infos = env.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(new_obs[[0, 2]], obs[[0, 2]])
    np.testing.assert_array_equal(new_obs[1], np.array([1, 1], np.int32))
    assert env.get_state(0) == states[0] and env.get_state(2) == states[2]
    s1 = env.get_state(1)
    assert s1["pos"] == (1, 1) and s1["step"] == 0 and s1["episode"] == states[1]["episode"] + 1
    assert infos == {}
    obs, *_ = env.step(np.array([2, 2, 1]))
    np.testing.assert_array_equal(obs, np.array([[5, 1], [2, 1], [1, 5]], np.int32))


def test_reset_mask_applies_seeds_to_masked_rows_only():
    env = make_multi(3)
    env.reset(seed=0)
    keys = [env.get_state(i)["key"] for i in range(3)]
    env.reset(seed=50, options={"reset_mask": np.array([False, True, False])})
    ref = make_multi(3)
    ref.reset(seed=50)
    assert env.get_state(1)["key"] == ref.get_state(1)["key"]  # seed 50 + 1
    assert env.get_state(1)["episode"] == 0
    assert env.get_state(0)["key"] == keys[0] and env.get_state(2)["key"] == keys[2]
    env.reset(seed=[None, None, 99], options={"reset_mask": np.array([False, False, True])})
    ref.reset(seed=[0, 0, 99])
    assert env.get_state(2)["key"] == ref.get_state(2)["key"]


@pytest.mark.parametrize(
    ("mask", "error"),
    [
        ([True, False, True], TypeError),
        (np.array([1, 0, 1]), TypeError),
        (np.array([1, 0, 1], np.uint8), TypeError),
        (np.array([True, False]), ValueError),
        (np.array([[True], [False], [True]]), ValueError),
        (np.array([False, False, False]), ValueError),
    ],
)
def test_reset_mask_errors_have_gymnasium_classes_and_change_nothing(mask, error):
    env = NavVectorEnv(3, level="nav/room1_small")
    env.reset(seed=0)
    env.step(np.array([0, 1, 0]))
    before = env.state_dict()
    with pytest.raises(error):
        env.reset(options={"reset_mask": mask})
    assert_state_equal(env.state_dict(), before)


def test_reset_options_dict_is_not_modified():
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=0)
    mask = np.array([True, False, True])
    start = np.array([2, 3])
    options = {"reset_mask": mask, "start": start}
    env.reset(options=options)
    assert list(options) == ["reset_mask", "start"]
    assert options["reset_mask"] is mask and options["start"] is start
    np.testing.assert_array_equal(mask, [True, False, True])
    np.testing.assert_array_equal(start, [2, 3])
    assert env.get_state(0)["pos"] == (2, 3) and env.get_state(2)["pos"] == (2, 3)
    assert env.get_state(1)["pos"] == (1, 1)


def test_reset_mask_clears_pending_next_step_autoreset():
    env = NavVectorEnv(2, world_map=CORRIDOR)
    env.reset(seed=0)
    env.step(np.array([1, 3]))
    _, _, term, _, _ = env.step(np.array([1, 3]))
    np.testing.assert_array_equal(term, [True, False])
    env.reset(options={"reset_mask": np.array([True, False])})
    obs, rewards, term, trunc, _ = env.step(np.array([1, 3]))
    # Row 0 steps normally (its action applies) instead of doing the pending autoreset.
    np.testing.assert_array_equal(obs, np.array([[1, 2], [1, 1]], np.int32))
    np.testing.assert_array_equal(rewards, np.array([-1, -1], np.float32))


def test_reset_start_option_sets_start_cells():
    env = NavVectorEnv(3, level="nav/room5_medium")
    obs, _ = env.reset(seed=0, options={"start": (4, 5)})
    np.testing.assert_array_equal(obs, np.array([[4, 5]] * 3, np.int32))
    starts = np.array([[2, 2], [8, 8], [1, 8]])
    obs, _ = env.reset(options={"start": starts})
    np.testing.assert_array_equal(obs, starts.astype(np.int32))
    obs, _ = env.reset(options={"start": np.array([[3, 3], [4, 4], [5, 5]]),
                                "reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(obs, np.array([[2, 2], [4, 4], [1, 8]], np.int32))


def test_start_option_applies_only_to_that_reset():
    env = NavVectorEnv(1, world_map=CORRIDOR)
    env.reset(seed=0, options={"start": (1, 2)})
    obs, _, term, _, _ = env.step(np.array([1]))
    assert term[0]
    obs, *_ = env.step(np.array([1]))  # the autoreset: back to S
    np.testing.assert_array_equal(obs, np.array([[1, 1]], np.int32))
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, np.array([[1, 1]], np.int32))


@pytest.mark.parametrize(
    "start", [(0, 0), (2, 4), (-1, 1), (3, 7), np.array([[1, 1], [0, 2]]), np.array([1.0, 1.0]),
              np.array([[1, 1], [1, 2], [1, 3]])]
)
def test_invalid_start_raises_value_error_and_changes_nothing(start):
    env = NavVectorEnv(2, world_map=CORRIDOR)
    env.reset(seed=0)
    env.step(np.array([1, 1]))
    before = env.state_dict()
    with pytest.raises(ValueError):
        env.reset(options={"start": start})
    assert_state_equal(env.state_dict(), before)


def test_unknown_reset_option_raises_value_error():
    env = NavVectorEnv(2, world_map=CORRIDOR)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"goal": (1, 3)})


# ---------------------------------------------------------------------------------- actions


@pytest.mark.parametrize(
    "dtype", [np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_discrete_actions_accept_any_integer_dtype(dtype):
    env = NavVectorEnv(3, level="nav/room5_medium")
    ref = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=1)
    ref.reset(seed=1)
    for a in ([1, 2, 1], [2, 2, 3], [0, 1, 1]):
        got = env.step(np.array(a, dtype))
        want = ref.step(np.array(a, np.int64))
        for g, w in zip(got, want, strict=True):
            assert_exact(g, w)


def test_discrete_actions_accept_list_and_strided_array():
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=1)
    obs, *_ = env.step([1, 2, 1])
    np.testing.assert_array_equal(obs, np.array([[1, 2], [2, 1], [1, 2]], np.int32))
    strided = np.array([2, 9, 2, 9, 1, 9], np.int64)[::2]
    assert not strided.flags.c_contiguous
    obs, *_ = env.step(strided)
    np.testing.assert_array_equal(obs, np.array([[2, 2], [3, 1], [1, 3]], np.int32))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_read_only_discrete_actions_are_accepted_and_untouched(dtype):
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=1)
    actions = np.array([1, 2, 1], dtype)
    actions.setflags(write=False)
    obs, *_ = env.step(actions)
    np.testing.assert_array_equal(obs, np.array([[1, 2], [2, 1], [1, 2]], np.int32))
    np.testing.assert_array_equal(actions, np.array([1, 2, 1], dtype))
    assert not actions.flags.writeable


@pytest.mark.parametrize("nan_action", ["error", "zero"])
def test_read_only_continuous_actions_are_accepted_and_untouched(nan_action):
    env = NavVectorEnv(2, level="nav/room5_medium", actions="2d_continuous", nan_action=nan_action)
    env.reset(seed=1)
    actions = np.array([[3.0, 0.0], [0.7, -2.0]], np.float32)
    actions.setflags(write=False)
    obs, *_ = env.step(actions)
    # Row 1's target (2, 0) is a wall: it stays.
    np.testing.assert_array_equal(obs, np.array([[2, 1], [1, 1]], np.int32))
    np.testing.assert_array_equal(actions, np.array([[3.0, 0.0], [0.7, -2.0]], np.float32))
    assert not actions.flags.writeable
    if nan_action == "zero":
        nan = np.array([[np.nan, 1.0], [1.0, np.nan]], np.float64)
        nan.setflags(write=False)
        env.step(nan)
        assert np.isnan(nan[0, 0]) and np.isnan(nan[1, 1]) and nan[0, 1] == 1.0


BAD_DISCRETE = {
    "too_large": np.array([1, 1, 4], np.int64),
    "negative": np.array([1, 1, -1], np.int64),
    "negative_int32": np.array([1, 1, -1], np.int32),
    "too_large_int32": np.array([1, 1, 2**31 - 1], np.int32),
    "too_large_uint64": np.array([1, 1, 2**63 + 1], np.uint64),
    "too_large_int8": np.array([1, 1, 100], np.int8),
    "short": np.array([1, 1], np.int64),
    "long": np.array([1, 1, 1, 1], np.int64),
    "column": np.array([[1], [1], [1]], np.int64),
    "scalar": np.array(1, np.int64),
    "float64": np.array([1.0, 1.0, 1.0]),
    "float32": np.array([1.0, 1.0, 1.0], np.float32),
    "string": np.array(["1", "1", "1"]),
}


@pytest.mark.parametrize("case", sorted(BAD_DISCRETE))
def test_invalid_discrete_action_raises_and_changes_no_env(case):
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=0)
    env.step(np.array([1, 2, 1]))
    before = env.state_dict()
    with pytest.raises(InvalidActionError) as info:
        env.step(BAD_DISCRETE[case])
    assert isinstance(info.value, ValueError)
    assert_state_equal(env.state_dict(), before)
    obs, *_ = env.step(np.array([1, 1, 1]))  # the env still works
    np.testing.assert_array_equal(obs, np.array([[1, 3], [2, 2], [1, 3]], np.int32))


@pytest.mark.parametrize("actions", ["1d_horizontal", "1d_vertical"])
def test_two_action_types_reject_index_two(actions):
    env = NavVectorEnv(2, level="nav/room5_medium", actions=actions)
    env.reset(seed=0)
    before = env.state_dict()
    with pytest.raises(InvalidActionError):
        env.step(np.array([0, 2]))
    assert_state_equal(env.state_dict(), before)


BAD_CONTINUOUS = {
    "nan_row1": np.array([[0.0, 1.0], [np.nan, 0.0]], np.float32),
    "nan_f64": np.array([[0.0, 1.0], [0.0, np.nan]], np.float64),
    "short": np.array([[0.0, 1.0]], np.float32),
    "flat": np.array([0.0, 1.0, 0.0, 1.0], np.float32),
    "three": np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]], np.float32),
    "string": np.array([["0", "1"], ["0", "1"]]),
}


@pytest.mark.parametrize("case", sorted(BAD_CONTINUOUS))
def test_invalid_continuous_action_raises_and_changes_no_env(case):
    env = NavVectorEnv(2, level="nav/room5_medium", actions="2d_continuous")
    env.reset(seed=0)
    env.step(np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))
    before = env.state_dict()
    with pytest.raises(InvalidActionError):
        env.step(BAD_CONTINUOUS[case])
    assert_state_equal(env.state_dict(), before)


def test_nan_continuous_action_is_zero_with_nan_action_zero():
    env = NavVectorEnv(2, level="nav/room5_medium", actions="2d_continuous", nan_action="zero")
    env.reset(seed=0, options={"start": (3, 3)})
    obs, rewards, *_ = env.step(np.array([[np.nan, 1.0], [np.nan, np.nan]], np.float32))
    np.testing.assert_array_equal(obs, np.array([[3, 4], [3, 3]], np.int32))
    np.testing.assert_array_equal(rewards, np.array([-1, -1], np.float32))


@pytest.mark.parametrize(
    ("pos", "action", "expected"),
    [
        ((3, 3), (0.0, 2.0), (3, 3)),  # clipped to (0, 1): the wall at (3, 4) blocks it
        ((3, 3), (0.5, 0.49), (4, 3)),
        ((7, 3), (1.0, 1.0), (8, 4)),  # diagonal corner-cutting past the wall at (7, 4)
        ((3, 3), (-0.5, -0.51), (3, 2)),  # -0.5 rounds to 0, -0.51 to -1
        ((3, 3), (-0.49, 0.4999), (3, 3)),
        ((1, 1), (-1.0, -1.0), (1, 1)),  # into the corner wall: stays
        ((1, 3), (0.0, 1e30), (1, 4)),  # row 1 of column 4 is open
    ],
)
def test_continuous_actions_follow_pixelworld_clipping(pos, action, expected):
    env = NavVectorEnv(1, level="nav/room5_medium_walls", actions="2d_continuous")
    env.reset(seed=0)
    env.set_state({"pos": pos})
    for dtype in (np.float32, np.float64):
        env.set_state({"pos": pos})
        obs, *_ = env.step(np.array([action], dtype))
        np.testing.assert_array_equal(obs, np.array([expected], np.int32))


def continuous_model(walkable: np.ndarray, pos, action) -> tuple[int, int]:
    """pixelworld.md section 4, in float64: clip, NaN -> 0, floor(pos + a + 0.5), clamp, check."""
    H, W = walkable.shape
    target = []
    for k, (p, a) in enumerate(zip(pos, action, strict=True)):
        a = 0.0 if math.isnan(a) else min(max(float(a), -1.0), 1.0)
        t = math.floor(p + a + 0.5)
        target.append(min(max(t, 0), (H, W)[k] - 1))
    return tuple(target) if walkable[tuple(target)] else tuple(pos)


_WALLS_ENV = []


def walls_env() -> NavVectorEnv:
    """room5_medium_walls without its goal (so no episode ends), continuous, NaN as 0."""
    if not _WALLS_ENV:
        probe = NavVectorEnv(1, level="nav/room5_medium_walls")
        probe.reset(seed=0)
        text = "\n".join(probe.get_state(0)["tiles"]).replace("0", " ")
        env = NavVectorEnv(1, world_map=text, actions="2d_continuous", nan_action="zero")
        env.reset(seed=0)
        _WALLS_ENV.append(env)
    return _WALLS_ENV[0]


component = st.one_of(
    st.floats(-2.0, 2.0, width=32),
    st.sampled_from([-0.5, 0.5, np.nextafter(np.float32(0.5), np.float32(0)), -1.0, 1.0]),
    st.just(float("nan")),
)


@given(cell=st.integers(0, 99), a_row=component, a_col=component)
def test_continuous_moves_match_python_model(cell, a_row, a_col):
    env = walls_env()
    walkable = env.level.walkable
    pos = divmod(cell, 10)
    if not walkable[pos]:
        pos = (1, 1)
    env.set_state({"pos": pos})
    action = np.array([[a_row, a_col]], np.float32)
    obs, *_ = env.step(action)
    want = continuous_model(walkable, pos, action[0].astype(np.float64))
    np.testing.assert_array_equal(obs[0], np.array(want, np.int32))


# ---------------------------------------------------------------------------------- outputs


def step_outputs(env, action):
    obs, rewards, term, trunc, infos = env.step(action)
    return [obs, rewards, term, trunc]


@pytest.mark.parametrize("obs_type", ["coords", "image", "view"])
def test_outputs_are_fresh_arrays_by_default(obs_type):
    env = NavVectorEnv(3, world_map=CORRIDOR, obs_type=obs_type)
    obs0, _ = env.reset(seed=0)
    first = env.step(np.array([1, 1, 3]))
    second = env.step(np.array([1, 1, 3]))  # rows 0 and 1 terminate
    third = env.step(np.array([1, 1, 3]))
    stats = second[4]["episode_stats"]
    arrays = [obs0, *first[:4], *second[:4], *third[:4], stats["return"], stats["length"]]
    internal = [v for v in vars(env.state).values() if isinstance(v, np.ndarray)]
    for k, a in enumerate(arrays):
        for b in arrays[k + 1 :]:
            assert not np.shares_memory(a, b)
        for buf in internal:
            assert not np.shares_memory(a, buf)
    # Writing into returned arrays changes nothing in the env.
    state = env.get_state(0)
    third[0][...] = 0
    third[1][...] = 99
    assert env.get_state(0) == state


def test_copy_false_returns_the_same_buffers_each_call():
    env = NavVectorEnv(3, world_map=CORRIDOR, copy=False)
    obs0, _ = env.reset(seed=0)
    a = env.step(np.array([1, 1, 3]))
    b = env.step(np.array([1, 3, 3]))
    for x, y in zip(a[:4], b[:4], strict=True):
        assert np.shares_memory(x, y)
    assert np.shares_memory(obs0, a[0])
    # The buffers hold the latest call's values.
    np.testing.assert_array_equal(a[0], np.array([[1, 3], [1, 1], [1, 1]], np.int32))
    np.testing.assert_array_equal(a[2], [True, False, False])


def test_copy_false_same_step_final_obs_are_still_copies():
    env = NavVectorEnv(2, world_map=CORRIDOR, autoreset_mode="SameStep", copy=False)
    env.reset(seed=0)
    env.step(np.array([1, 3]))
    obs, _, term, _, infos = env.step(np.array([1, 3]))
    np.testing.assert_array_equal(term, [True, False])
    final = infos["final_obs"][0]
    np.testing.assert_array_equal(final, np.array([1, 3], np.int32))
    for buf in vars(env.state).values():
        if isinstance(buf, np.ndarray):
            assert not np.shares_memory(final, buf)
    env.step(np.array([1, 3]))
    np.testing.assert_array_equal(final, np.array([1, 3], np.int32))


def test_core_copies_are_new_equal_arrays_of_any_layout():
    from gridsim import _core

    rng = np.random.default_rng(0)
    arrays = (
        rng.integers(0, 9, (5, 3), dtype=np.int32), rng.random(7).astype(np.float32), rng.random(4) > 0.5,
        np.arange(12.0).reshape(3, 4)[:, ::2],  # not contiguous: numpy copies it
        np.array([1, None, "a"], dtype=object), np.zeros((0, 3), np.uint8), np.array(2.5),
        np.zeros(3, dtype=[("a", np.int16), ("b", np.float32)]),
    )
    copies = _core.copies(arrays)
    assert type(copies) is tuple and len(copies) == len(arrays)
    for a, c in zip(arrays, copies, strict=True):
        assert type(c) is np.ndarray and c.dtype == a.dtype and c.shape == a.shape
        assert c.flags.c_contiguous and c.flags.owndata and c.flags.writeable
        assert not np.shares_memory(a, c)
        assert (c == a).all()
    assert copies[4][1] is None and copies[4][2] == "a"
    copies[0][...] = -1
    assert (arrays[0] >= 0).all()
    with pytest.raises(TypeError):
        _core.copies(([1, 2],))


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("obs_type", ["coords", "image", "view"])
def test_outputs_have_exact_dtypes_and_are_c_contiguous(copy, obs_type):
    N = 4
    env = NavVectorEnv(N, level="nav/room2_small", obs_type=obs_type, copy=copy)
    obs, _ = env.reset(seed=0, options={"start": np.array([[4, 1], [1, 9], [4, 9], [4, 5]])})
    outputs = [(obs, None, None, None)]
    for _ in range(3):
        outputs.append(env.step(np.array([2, 1, 2, 1]))[:4])
    dtype = env.single_observation_space.dtype
    shape = (N, *env.single_observation_space.shape)
    for obs, rewards, term, trunc in outputs:
        assert type(obs) is np.ndarray and obs.dtype == dtype and obs.shape == shape
        assert obs.flags.c_contiguous
        assert obs.strides == np.empty(shape, dtype).strides
        # Rows differ (each env has its own slice: no broadcast or wrong strides).
        assert all(not np.array_equal(obs[i], obs[j]) for i in range(N) for j in range(i + 1, N))
        if rewards is not None:
            assert rewards.dtype == np.float32 and rewards.shape == (N,)
            assert term.dtype == np.bool_ and term.shape == (N,)
            assert trunc.dtype == np.bool_ and trunc.shape == (N,)
            assert rewards.flags.c_contiguous and term.flags.c_contiguous
            assert term is not trunc and not np.shares_memory(term, trunc)


# ----------------------------------------------------------------------------------- render


def test_render_rgb_array_returns_tuple_of_frames_with_the_agent_a_disc():
    N = 3
    env = NavVectorEnv(N, level="nav/room2_small", render_mode="rgb_array")
    env.reset(seed=0, options={"start": np.array([[4, 1], [1, 9], [4, 9]])})
    for _ in range(2):
        frames = env.render()
        assert type(frames) is tuple and len(frames) == N
        for i, frame in enumerate(frames):
            assert type(frame) is np.ndarray and frame.dtype == np.uint8
            assert frame.shape == (6 * 16, 11 * 16, 3)
            s = env.get_state(i)
            np.testing.assert_array_equal(frame, expected_frame(s["tiles"], s["pos"], 16))
        assert not np.shares_memory(frames[0], frames[1])
        again = env.render()
        assert not np.shares_memory(again[0], frames[0])
        env.step(np.array([0, 3, 0]))


def test_render_frames_use_16_pixels_per_cell_whatever_the_obs_layout():
    env = NavVectorEnv(2, level="nav/room2_small", obs_type="image", pixels_per_cell=2,
                       channels_first=True, render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    frames = env.render()
    assert [f.shape for f in frames] == [(96, 176, 3), (96, 176, 3)]
    s = env.get_state(0)
    np.testing.assert_array_equal(frames[0], expected_frame(s["tiles"], s["pos"], 16))
    # Only the picture draws a disc: the observation fills the agent's cell (the golden digests pin it).
    np.testing.assert_array_equal(obs[0], expected_image(s["tiles"], s["pos"], 2, True))


def test_render_ansi_returns_tuple_of_strings():
    env = NavVectorEnv(2, level="nav/room1_small", render_mode="ansi")
    env.reset(seed=0, options={"start": np.array([[4, 1], [2, 3]])})
    texts = env.render()
    assert type(texts) is tuple and len(texts) == 2
    assert all(type(t) is str for t in texts)
    assert texts[0] == "######\n#   0#\n#    #\n#    #\n#@   #\n######\n"
    assert texts[1] == "######\n#   0#\n#  @ #\n#    #\n#S   #\n######\n"


def test_render_without_render_mode_returns_none():
    env = NavVectorEnv(2, level="nav/room1_small")
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None


def test_render_human_runs_headless():
    pytest.importorskip("pygame")
    env = NavVectorEnv(2, level="nav/room1_small", render_mode="human")
    env.metadata["render_fps"] = 1000
    env.reset(seed=0)
    assert env.render() is None
    env.step(np.array([0, 1]))
    assert env.render() is None
    env.close()
    env.close()
    assert env.closed


def test_invalid_render_mode_raises_value_error():
    with pytest.raises(ValueError, match="render_mode"):
        NavVectorEnv(2, level="nav/room1_small", render_mode="rgb")


@pytest.mark.skipif(importlib.util.find_spec("moviepy") is None, reason="moviepy is not installed")
def test_record_video_wrapper_writes_a_video(tmp_path):
    from gymnasium.wrappers.vector import RecordVideo

    env = NavVectorEnv(2, level="nav/room1_small", render_mode="rgb_array", max_episode_steps=5)
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda e: e == 0, video_length=6)
    env.reset(seed=0)
    for _ in range(6):
        env.step(env.action_space.sample())
    env.close()
    assert list(tmp_path.glob("*.mp4"))


# ------------------------------------------------------------------------------ state dicts


STATE_CASES = {
    "corridor_next_step": dict(world_map=CORRIDOR, max_episode_steps=4),
    "corridor_same_step": dict(world_map=CORRIDOR, max_episode_steps=4, autoreset_mode="SameStep"),
    "noisy_multi_start": dict(world_map=MULTI_START, alphabet="noisy", max_episode_steps=6),
    "collectible": dict(world_map=COIN_LEVEL, max_episode_steps=7, obs_type="image"),
    "randomized_goals": dict(
        world_map="#######\n#0 S 0#\n#######", randomize_goals=True, max_episode_steps=5,
        obs_type="image",
    ),
}


@pytest.mark.parametrize("case", sorted(STATE_CASES))
def test_load_state_dict_replays_bit_identically(case):
    N, k = 5, 12
    env = NavVectorEnv(N, **STATE_CASES[case])
    env.reset(seed=123)
    rollout(env, random_actions(4, 7, list(range(N))))
    saved = env.state_dict()
    actions = random_actions(4, k, [10 + i for i in range(N)])
    first = rollout(env, actions)
    after = env.state_dict()
    env.load_state_dict(saved)
    assert_state_equal(env.state_dict(), saved)
    second = rollout(env, actions)
    for x, y in zip(first[:4], second[:4], strict=True):
        assert_exact(x, y)
    for x, y in zip(first[4], second[4], strict=True):
        assert_exact(x, y)
    assert_state_equal(env.state_dict(), after)
    # A fresh env of the same configuration continues identically too.
    other = NavVectorEnv(N, **STATE_CASES[case])
    other.reset(seed=999)
    other.load_state_dict(saved)
    third = rollout(other, actions)
    for x, y in zip(first[:4], third[:4], strict=True):
        assert_exact(x, y)


def test_collectible_level_state_round_trip_restores_collected_cells():
    env = NavVectorEnv(1, world_map=COIN_LEVEL, obs_type="image")
    env.reset(seed=0)
    saved = env.state_dict()
    _, r1, *_ = env.step(np.array([1]))
    _, r2, *_ = env.step(np.array([1]))  # collects the coin at (1, 3)
    assert (r1[0], r2[0]) == (-1.0, 5.0)
    assert env.get_state(0)["tiles"][1] == "#S   0#"
    env.load_state_dict(saved)
    assert env.get_state(0)["tiles"][1] == "#S c 0#"
    _, r1, *_ = env.step(np.array([1]))
    _, r2, *_ = env.step(np.array([1]))
    assert (r1[0], r2[0]) == (-1.0, 5.0)


def test_state_dict_is_a_deep_copy():
    env = make_multi(3)
    env.reset(seed=0)
    saved = env.state_dict()
    snapshot = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in saved.items()}
    rollout(env, random_actions(4, 5, [0, 1, 2]))
    assert_state_equal(saved, snapshot)


def test_load_state_dict_rejects_other_num_envs():
    a, b = make_multi(3), make_multi(4)
    a.reset(seed=0)
    b.reset(seed=0)
    before = b.state_dict()
    with pytest.raises(ValueError, match="num_envs"):
        b.load_state_dict(a.state_dict())
    assert_state_equal(b.state_dict(), before)


# ----------------------------------------------------------------------- get/set_state


def test_get_set_state_round_trip_for_one_index():
    env = NavVectorEnv(3, world_map=MULTI_START, alphabet="noisy", max_episode_steps=9)
    env.reset(seed=8)
    rollout(env, random_actions(4, 4, [0, 1, 2]))
    saved = env.get_state(1)
    assert set(saved) >= {"pos", "step", "tiles"}
    assert type(saved["pos"]) is tuple and type(saved["step"]) is int
    assert saved["tiles"] == MULTI_START.split("\n")
    actions = random_actions(4, 3, [5, 6, 7])
    first = rollout(env, actions)
    others = [env.get_state(0), env.get_state(2)]
    obs, info = env.set_state(saved, index=1)
    assert info == {}
    assert obs.dtype == np.int32 and obs.shape == (2,)
    np.testing.assert_array_equal(obs, np.array(saved["pos"], np.int32))
    assert env.get_state(1) == saved
    assert [env.get_state(0), env.get_state(2)] == others
    # Row 1 replays its three steps exactly.
    again = rollout(env, actions)
    for x, y in zip(first[:4], again[:4], strict=True):
        np.testing.assert_array_equal(x[:, 1], y[:, 1])


def test_set_state_negative_index_addresses_last_row():
    env = NavVectorEnv(3, level="nav/room5_medium")
    env.reset(seed=0)
    env.set_state({"pos": (5, 6)}, index=-1)
    assert env.get_state(2)["pos"] == (5, 6)


@pytest.mark.parametrize(
    ("state", "error"),
    [
        ({"pos": (0, 0)}, ValueError),  # a wall
        ({"pos": (1, 4)}, ValueError),  # a wall
        ({"pos": (9, 1)}, ValueError),  # outside the map
        ({"pos": (-1, 1)}, ValueError),
        ({"tiles": ["#####", "#S 0#"]}, ValueError),  # wrong height
        ({"tiles": ["#####", "#S 0 #", "#####"]}, ValueError),  # wrong width
        ({"tiles": ["#####", "#S x#", "#####"]}, ValueError),  # not in the alphabet
        ({"tiles": ["#####", "#S ##", "#####"]}, ValueError),  # immutable level changed
        ({"speed": 3}, ValueError),
    ],
)
def test_set_state_rejects_bad_pos_and_tiles(state, error):
    env = NavVectorEnv(2, world_map=CORRIDOR)
    env.reset(seed=0)
    before = env.state_dict()
    with pytest.raises(error):
        env.set_state(state, index=1)
    assert_state_equal(env.state_dict(), before)


def test_set_state_rejects_bad_index():
    env = NavVectorEnv(2, world_map=CORRIDOR)
    env.reset(seed=0)
    for index in (2, -3):
        with pytest.raises(IndexError):
            env.set_state({"pos": (1, 2)}, index=index)
        with pytest.raises(IndexError):
            env.get_state(index)


def test_set_state_tiles_on_mutable_level_removes_collectible():
    env = NavVectorEnv(2, world_map=COIN_LEVEL)
    env.reset(seed=0)
    tiles = env.get_state(0)["tiles"]
    assert tiles[1] == "#S c 0#"
    with pytest.raises(ValueError, match="default symbol"):
        env.set_state({"tiles": [tiles[0], "#Sc  0#", *tiles[2:]]}, index=0)
    env.set_state({"tiles": [tiles[0], "#S   0#", *tiles[2:]], "pos": (1, 2)}, index=0)
    _, rewards, *_ = env.step(np.array([1, 1]))
    # Row 0's coin is gone: the default floor reward; row 1 still has it but is not there yet.
    np.testing.assert_array_equal(rewards, np.array([-1.0, -1.0], np.float32))
    assert env.get_state(0)["tiles"][1] == "#S   0#"
    assert env.get_state(1)["tiles"][1] == "#S c 0#"


def test_close_is_idempotent_and_blocks_further_use():
    env = NavVectorEnv(2, level="nav/room1_small")
    env.reset(seed=0)
    env.close()
    env.close()
    assert env.closed
    with pytest.raises(RuntimeError):
        env.reset(seed=0)


def test_get_attr_call_and_set_attr_work_per_env():
    env = NavVectorEnv(3, world_map=CORRIDOR, max_episode_steps=7)
    env.reset(seed=0, options={"start": np.array([[1, 1], [1, 2], [1, 3]])})
    assert env.get_attr("max_episode_steps") == (7, 7, 7)
    assert [s["pos"] for s in env.call("get_state")] == [(1, 1), (1, 2), (1, 3)]
    assert env.call("max_episode_steps") == (7, 7, 7)
    env.set_attr("render_mode", ["ansi"] * 3)
    assert env.render_mode == "ansi"
    with pytest.raises(ValueError):
        env.set_attr("render_mode", ["ansi", None, "ansi"])


def test_registered_vector_entry_point_builds_nav_vector_env():
    envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=3)
    assert type(envs) is NavVectorEnv and isinstance(envs, gridsim.GridVectorEnv)
    assert envs.num_envs == 3 and envs.max_episode_steps == 100
    envs.close()


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_the_autoreset_mode_is_fixed_at_construction(mode):
    # The kernel, the infos and the buffers (final observations under SAME_STEP alone) follow the
    # mode the env was made with: changing the attribute afterwards would break them apart.
    envs = gridsim.make("nav/room1_small", 2, autoreset_mode=mode)
    for how in (lambda v: setattr(envs, "autoreset_mode", v), lambda v: envs.set_attr("autoreset_mode", v)):
        with pytest.raises(gridsim.InvalidArgumentError, match="autoreset_mode is fixed when the env is made"):
            how(gym.vector.AutoresetMode.SAME_STEP)
    assert envs.autoreset_mode == gym.vector.AutoresetMode(mode)
    assert envs.metadata["autoreset_mode"] == envs.autoreset_mode
    envs.reset(seed=0)
    envs.step(np.zeros(2, np.int64))
