"""Exact autoreset timelines (gymnasium_vector.md section 6) and ``episode_stats`` infos (section 7).

Every test scripts a corridor where two 'right' moves reach the goal and
``max_episode_steps`` truncates, so each row ends at a known call.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from gridsim import NavVectorEnv

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

CORRIDOR = "#####\n#S 0#\n#####"
R, L = 1, 3  # right, left
T, F = True, False

# Calls 1..6. Row 0 walks right (goal on its 2nd step), row 1 bumps the left wall (truncated
# at step 3), row 2 goes right, left, right (truncated at step 3), then right again.
ACTIONS = np.array([[R, L, R], [R, L, L], [R, L, R], [R, L, R], [R, L, R], [R, L, R]], np.int64)
MAX_STEPS = 3


def pos(*cells):
    return np.array(cells, np.int32)


# NEXT_STEP: the call after the end returns the reset obs, reward 0, both flags False; the action
# of that call is ignored (row 0 on call 3 and row 2 on call 4 send 'right' but stay at S).
NEXT_STEP = {
    "obs": [pos((1, 2), (1, 1), (1, 2)), pos((1, 3), (1, 1), (1, 1)), pos((1, 1), (1, 1), (1, 2)),
            pos((1, 2), (1, 1), (1, 1)), pos((1, 3), (1, 1), (1, 2)), pos((1, 1), (1, 1), (1, 3))],
    "rewards": [[-1, -1, -1], [1, -1, -1], [0, -1, -1], [-1, 0, 0], [1, -1, -1], [0, -1, 1]],
    "term": [[F, F, F], [T, F, F], [F, F, F], [F, F, F], [T, F, F], [F, F, T]],
    "trunc": [[F, F, F], [F, F, F], [F, T, T], [F, F, F], [F, F, F], [F, F, F]],
    # call index -> (mask, return, length) of the episodes ending on that call
    "stats": {1: ([T, F, F], [0, 0, 0], [2, 0, 0]), 2: ([F, T, T], [0, -3, -3], [0, 3, 3]),
              4: ([T, F, F], [0, 0, 0], [2, 0, 0]), 5: ([F, F, T], [0, 0, 0], [0, 0, 2])},
}

# SAME_STEP: a finished row's obs is already the next episode's first obs (S = (1, 1)); the
# reward and flags belong to the old episode, whose last obs is in final_obs.
SAME_STEP = {
    "obs": [pos((1, 2), (1, 1), (1, 2)), pos((1, 1), (1, 1), (1, 1)), pos((1, 2), (1, 1), (1, 1)),
            pos((1, 1), (1, 1), (1, 2)), pos((1, 2), (1, 1), (1, 1)), pos((1, 1), (1, 1), (1, 2))],
    "rewards": [[-1, -1, -1], [1, -1, -1], [-1, -1, -1], [1, -1, -1], [-1, -1, 1], [1, -1, -1]],
    "term": [[F, F, F], [T, F, F], [F, F, F], [T, F, F], [F, F, T], [T, F, F]],
    "trunc": [[F, F, F], [F, F, F], [F, T, T], [F, F, F], [F, F, F], [F, T, F]],
    "stats": {1: ([T, F, F], [0, 0, 0], [2, 0, 0]), 2: ([F, T, T], [0, -3, -3], [0, 3, 3]),
              3: ([T, F, F], [0, 0, 0], [2, 0, 0]), 4: ([F, F, T], [0, 0, 0], [0, 0, 2]),
              5: ([T, T, F], [0, -3, 0], [2, 3, 0])},
    "final_obs": {1: {0: (1, 3)}, 2: {1: (1, 1), 2: (1, 2)}, 3: {0: (1, 3)}, 4: {2: (1, 3)},
                  5: {0: (1, 3), 1: (1, 1)}},
}


def corridor(num_envs=3, **kw) -> NavVectorEnv:
    kw.setdefault("max_episode_steps", MAX_STEPS)
    return NavVectorEnv(num_envs, world_map=CORRIDOR, **kw)


def assert_stats(stats: dict, mask, ret, length):
    """``episode_stats`` holds exact values on the ended rows, zero elsewhere, with masks."""
    assert set(stats) == {"return", "_return", "length", "_length"}
    mask = np.array(mask, np.bool_)
    for key in ("_return", "_length"):
        assert stats[key].dtype == np.bool_ and stats[key].shape == mask.shape
        np.testing.assert_array_equal(stats[key], mask)
    assert stats["return"].dtype.kind == "f" and stats["return"].shape == mask.shape
    assert stats["length"].dtype.kind in "iu" and stats["length"].shape == mask.shape
    np.testing.assert_array_equal(stats["return"], np.array(ret, np.float64))
    np.testing.assert_array_equal(stats["length"], np.array(length, np.int64))


def check_step(out, table, t):
    obs, rewards, term, trunc, infos = out
    assert obs.dtype == np.int32 and rewards.dtype == np.float32
    assert term.dtype == np.bool_ and trunc.dtype == np.bool_
    np.testing.assert_array_equal(obs, table["obs"][t], err_msg=f"obs, call {t + 1}")
    np.testing.assert_array_equal(rewards, np.array(table["rewards"][t], np.float32),
                                  err_msg=f"rewards, call {t + 1}")
    np.testing.assert_array_equal(term, table["term"][t], err_msg=f"terminations, call {t + 1}")
    np.testing.assert_array_equal(trunc, table["trunc"][t], err_msg=f"truncations, call {t + 1}")
    assert "episode" not in infos


def run_next_step(env):
    obs, infos = env.reset(seed=0)
    np.testing.assert_array_equal(obs, pos((1, 1), (1, 1), (1, 1)))
    assert infos == {}
    for t, a in enumerate(ACTIONS):
        out = env.step(a)
        check_step(out, NEXT_STEP, t)
        infos = out[4]
        if t in NEXT_STEP["stats"]:
            mask = NEXT_STEP["stats"][t][0]
            assert set(infos) == {"episode_stats", "_episode_stats"}
            np.testing.assert_array_equal(infos["_episode_stats"], mask)
            assert infos["_episode_stats"].dtype == np.bool_
            assert_stats(infos["episode_stats"], *NEXT_STEP["stats"][t])
        else:
            assert infos == {}, f"call {t + 1}"


def run_same_step(env):
    obs, infos = env.reset(seed=0)
    assert infos == {}
    for t, a in enumerate(ACTIONS):
        out = env.step(a)
        check_step(out, SAME_STEP, t)
        obs, infos = out[0], out[4]
        if t not in SAME_STEP["stats"]:
            assert infos == {}, f"call {t + 1}"
            continue
        mask, ret, length = SAME_STEP["stats"][t]
        # Terminal-step info lives in final_info; no episode_stats at the top level.
        assert set(infos) == {"final_obs", "_final_obs", "final_info", "_final_info"}
        final_obs = infos["final_obs"]
        assert type(final_obs) is np.ndarray and final_obs.dtype == object
        assert final_obs.shape == (3,)
        for i in range(3):
            if i in SAME_STEP["final_obs"][t]:
                assert type(final_obs[i]) is np.ndarray and final_obs[i].dtype == np.int32
                np.testing.assert_array_equal(final_obs[i], np.array(SAME_STEP["final_obs"][t][i]))
                assert not np.shares_memory(final_obs[i], obs)
                for buf in vars(env.unwrapped.state).values():
                    if isinstance(buf, np.ndarray):
                        assert not np.shares_memory(final_obs[i], buf)
            else:
                assert final_obs[i] is None
        for key in ("_final_obs", "_final_info"):
            assert infos[key].dtype == np.bool_
            np.testing.assert_array_equal(infos[key], mask)
        final_info = infos["final_info"]
        assert set(final_info) == {"episode_stats", "_episode_stats"}
        np.testing.assert_array_equal(final_info["_episode_stats"], mask)
        assert_stats(final_info["episode_stats"], mask, ret, length)


def run_disabled(env):
    env.reset(seed=0)
    check_step(env.step(ACTIONS[0]), NEXT_STEP, 0)
    out = env.step(ACTIONS[1])
    check_step(out, NEXT_STEP, 1)
    assert_stats(out[4]["episode_stats"], *NEXT_STEP["stats"][1])
    before = env.unwrapped.state_dict()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(ACTIONS[2])  # row 0 ended: no env may be stepped
    assert_state(env.unwrapped.state_dict(), before)
    obs, infos = env.reset(options={"reset_mask": np.array([T, F, F])})
    np.testing.assert_array_equal(obs, pos((1, 1), (1, 1), (1, 1)))
    assert infos == {}
    obs, rewards, term, trunc, infos = env.step(ACTIONS[2])
    np.testing.assert_array_equal(obs, pos((1, 2), (1, 1), (1, 2)))
    np.testing.assert_array_equal(rewards, np.array([-1, -1, -1], np.float32))
    np.testing.assert_array_equal(term, [F, F, F])
    np.testing.assert_array_equal(trunc, [F, T, T])
    assert_stats(infos["episode_stats"], [F, T, T], [0, -3, -3], [0, 3, 3])
    before = env.unwrapped.state_dict()
    with pytest.raises(RuntimeError):
        env.step(np.array([R, R, R]))
    assert_state(env.unwrapped.state_dict(), before)
    obs, _ = env.reset(options={"reset_mask": np.array([F, T, T])})
    np.testing.assert_array_equal(obs, pos((1, 2), (1, 1), (1, 1)))
    obs, rewards, term, trunc, infos = env.step(np.array([R, R, R]))
    np.testing.assert_array_equal(obs, pos((1, 3), (1, 2), (1, 2)))
    np.testing.assert_array_equal(rewards, np.array([1, -1, -1], np.float32))
    np.testing.assert_array_equal(term, [T, F, F])
    # A full reset also clears every pending end.
    with pytest.raises(RuntimeError):
        env.step(np.array([R, R, R]))
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, pos((1, 1), (1, 1), (1, 1)))
    env.step(np.array([R, R, R]))


def assert_state(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            assert a[k] == b[k], k


RUNNERS = {
    AutoresetMode.NEXT_STEP: run_next_step,
    AutoresetMode.SAME_STEP: run_same_step,
    AutoresetMode.DISABLED: run_disabled,
}


def test_default_mode_is_next_step():
    env = corridor()
    assert env.autoreset_mode is AutoresetMode.NEXT_STEP
    run_next_step(env)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_autoreset_timeline_is_exact(mode):
    env = corridor(autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] is mode and env.autoreset_mode is mode
    RUNNERS[mode](env)


@pytest.mark.parametrize(
    ("spelling", "mode"),
    [
        (AutoresetMode.NEXT_STEP, AutoresetMode.NEXT_STEP),
        ("NextStep", AutoresetMode.NEXT_STEP),
        ("NEXT_STEP", AutoresetMode.NEXT_STEP),
        (AutoresetMode.SAME_STEP, AutoresetMode.SAME_STEP),
        ("SameStep", AutoresetMode.SAME_STEP),
        ("SAME_STEP", AutoresetMode.SAME_STEP),
        (AutoresetMode.DISABLED, AutoresetMode.DISABLED),
        ("Disabled", AutoresetMode.DISABLED),
        ("DISABLED", AutoresetMode.DISABLED),
    ],
)
def test_make_vec_autoreset_mode_spellings_give_the_enum_and_timeline(spelling, mode):
    envs = gym.make_vec(
        "gridsim/PixelWorld-room5_medium_walls-v0", num_envs=3, level=None, world_map=CORRIDOR, alphabet="navigation",
        max_episode_steps=MAX_STEPS, autoreset_mode=spelling,
    )
    assert envs.metadata["autoreset_mode"] is mode
    assert envs.unwrapped.autoreset_mode is mode
    RUNNERS[mode](envs)
    envs.close()


@pytest.mark.parametrize("mode", ["bogus", "next_step_", 1, None])
def test_unknown_autoreset_mode_raises_value_error(mode):
    with pytest.raises(ValueError, match="autoreset_mode"):
        corridor(autoreset_mode=mode)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_terminated_and_truncated_on_the_same_step(mode):
    env = corridor(1, max_episode_steps=2, autoreset_mode=mode)
    env.reset(seed=0)
    env.step(np.array([R]))
    obs, rewards, term, trunc, infos = env.step(np.array([R]))
    np.testing.assert_array_equal(term, [T])
    np.testing.assert_array_equal(trunc, [T])
    np.testing.assert_array_equal(rewards, np.array([1], np.float32))
    stats = infos["final_info"] if mode is AutoresetMode.SAME_STEP else infos
    assert_stats(stats["episode_stats"], [T], [0], [2])


def test_next_step_reset_call_ignores_any_valid_action():
    for action in (0, 1, 2, 3):
        env = corridor(1)
        env.reset(seed=0)
        env.step(np.array([R]))
        env.step(np.array([R]))
        obs, rewards, term, trunc, infos = env.step(np.array([action]))
        np.testing.assert_array_equal(obs, pos((1, 1)))
        np.testing.assert_array_equal(rewards, np.array([0], np.float32))
        assert not term[0] and not trunc[0] and infos == {}
        assert env.get_state(0)["step"] == 0


def test_same_step_image_final_obs_are_per_row_copies():
    env = corridor(2, autoreset_mode="SameStep", obs_type="image")
    env.reset(seed=0)
    env.step(np.array([R, L]))
    obs, _, term, _, infos = env.step(np.array([R, L]))
    np.testing.assert_array_equal(term, [T, F])
    final = infos["final_obs"]
    assert final[1] is None
    assert final[0].dtype == np.uint8 and final[0].shape == (3, 5, 3)
    np.testing.assert_array_equal(final[0][1, 3], [50, 205, 50])  # the agent on the goal
    np.testing.assert_array_equal(final[0][1, 1], [255, 255, 255])
    np.testing.assert_array_equal(obs[0][1, 1], [50, 205, 50])  # already reset to S
    np.testing.assert_array_equal(obs[0][1, 3], [50, 50, 255])
    assert final[0].flags.writeable and final[0].flags.c_contiguous
    final[0][...] = 7
    obs2, *_ = env.step(np.array([R, L]))
    np.testing.assert_array_equal(obs2[0][1, 2], [50, 205, 50])


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_infos_never_contain_episode_key(mode):
    env = NavVectorEnv(8, level="nav/room1_small", max_episode_steps=6, autoreset_mode=mode)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended, done = 0, np.zeros(8, bool)
    for _ in range(60):
        if mode is AutoresetMode.DISABLED and done.any():
            _, infos = env.reset(options={"reset_mask": done})
            assert "episode" not in infos
        _, _, term, trunc, infos = env.step(rng.integers(0, 4, 8))
        done = term | trunc
        ended += int(done.sum())
        assert "episode" not in infos and "_episode" not in infos
        assert "episode" not in infos.get("final_info", {})
    assert ended >= 8


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_episode_stats_false_turns_them_off(mode):
    env = corridor(autoreset_mode=mode, episode_stats=False)
    env.reset(seed=0)
    env.step(ACTIONS[0])
    obs, _, term, _, infos = env.step(ACTIONS[1])
    assert term[0]
    if mode is AutoresetMode.SAME_STEP:
        assert set(infos) == {"final_obs", "_final_obs", "final_info", "_final_info"}
        assert "episode_stats" not in infos["final_info"]
    else:
        assert infos == {}


def test_episode_stats_return_is_the_sum_of_episode_rewards():
    world = "#######\n#S S S#\n#     #\n#S  0 #\n#######"
    env = NavVectorEnv(6, world_map=world, alphabet="noisy", max_episode_steps=7)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    running = np.zeros(6, np.float64)
    lengths = np.zeros(6, np.int64)
    checked = 0
    pending = np.zeros(6, bool)
    for _ in range(80):
        _, rewards, term, trunc, infos = env.step(rng.integers(0, 4, 6))
        rewards = np.where(pending, 0.0, rewards)  # NEXT_STEP reset calls belong to no episode
        lengths += ~pending
        running += rewards
        done = term | trunc
        if done.any():
            stats = infos["episode_stats"]
            np.testing.assert_array_equal(stats["_return"], done)
            np.testing.assert_allclose(stats["return"][done], running[done], rtol=1e-6)
            np.testing.assert_array_equal(stats["length"][done], lengths[done])
            np.testing.assert_array_equal(stats["return"][~done], 0)
            np.testing.assert_array_equal(stats["length"][~done], 0)
            checked += int(done.sum())
        running[done] = 0
        lengths[done] = 0
        pending = done
    assert checked >= 10
