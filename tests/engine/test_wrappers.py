"""Gymnasium's vector wrappers over NavVectorEnv (gymnasium_vector.md section 11)."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import (
    ClipAction,
    DictInfoToList,
    DtypeObservation,
    NormalizeObservation,
    NormalizeReward,
    RecordEpisodeStatistics,
    RescaleAction,
)

from gridsim import NavVectorEnv

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

CORRIDOR = "#####\n#S 0#\n#####"
GYM_VERSION = tuple(int(v) for v in gym.__version__.split(".")[:2])
# NormalizeObservation returns float32 in gymnasium 1.4 (float64 from older releases).
NORMALIZED_DTYPES = (np.float32,) if GYM_VERSION >= (1, 4) else (np.float32, np.float64)
R, L = 1, 3
T, F = True, False


def check_episode_matches_stats(infos):
    """RecordEpisodeStatistics (innermost) reports the kernel's own episode_stats."""
    stats_infos = infos.get("final_info", infos)
    stats = stats_infos["episode_stats"]
    np.testing.assert_array_equal(infos["_episode"], stats_infos["_episode_stats"])
    done = infos["_episode"]
    np.testing.assert_allclose(infos["episode"]["r"][done], stats["return"][done], rtol=1e-6)
    np.testing.assert_array_equal(infos["episode"]["l"][done], stats["length"][done])


@pytest.mark.parametrize("obs_type", ["coords", "image"])
def test_stacked_statistics_and_normalize_wrappers_step(obs_type):
    base = gym.make_vec("gridsim/PixelWorld-room5_medium_walls-v0", num_envs=4, max_episode_steps=10,
                        obs_type=obs_type)
    env = NormalizeReward(NormalizeObservation(RecordEpisodeStatistics(base)))
    obs, infos = env.reset(seed=0)
    assert obs.dtype in NORMALIZED_DTYPES and obs.shape == (4, *base.single_observation_space.shape)
    env.action_space.seed(0)
    episodes = 0
    for _ in range(45):
        obs, rewards, term, trunc, infos = env.step(env.action_space.sample())
        assert obs.dtype in NORMALIZED_DTYPES and obs.shape[0] == 4 and np.isfinite(obs).all()
        assert rewards.shape == (4,) and np.isfinite(rewards).all()
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
        if "episode" in infos:
            check_episode_matches_stats(infos)
            np.testing.assert_array_equal(infos["_episode"], term | trunc)
            episodes += int(infos["_episode"].sum())
    assert episodes >= 16  # every row ends at least every 10 steps
    env.close()


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_record_episode_statistics_matches_episode_stats_in_every_mode(mode):
    if mode is AutoresetMode.SAME_STEP and GYM_VERSION < (1, 4):
        pytest.skip("RecordEpisodeStatistics under-reports SAME_STEP episodes before gymnasium 1.4")
    env = RecordEpisodeStatistics(
        NavVectorEnv(6, level="nav/room1_small", alphabet="noisy", max_episode_steps=8,
                     autoreset_mode=mode)
    )
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    episodes, done = 0, np.zeros(6, bool)
    for _ in range(50):
        if mode is AutoresetMode.DISABLED and done.any():
            env.reset(options={"reset_mask": done})
        _, _, term, trunc, infos = env.step(rng.integers(0, 4, 6))
        done = term | trunc
        if done.any():
            check_episode_matches_stats(infos)
            episodes += int(done.sum())
    assert episodes >= 30


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
def test_normalize_observation_rejects_modes_other_than_next_step(mode):
    env = NavVectorEnv(2, level="nav/room1_small", autoreset_mode=mode)
    with pytest.raises((AssertionError, ValueError)):
        NormalizeObservation(env)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_partial_reset_keeps_other_rows_running_statistics(mode):
    # NormalizeObservation is left out: it rejects partial resets.
    base = NavVectorEnv(3, world_map=CORRIDOR, max_episode_steps=4, autoreset_mode=mode)
    env = NormalizeReward(RecordEpisodeStatistics(base))
    env.reset(seed=0)
    env.step(np.array([R, L, L]))
    # Reset row 0 in the middle of its episode (a fresh dict: the wrapper pops reset_mask).
    obs, _ = env.reset(options={"reset_mask": np.array([T, F, F])})
    np.testing.assert_array_equal(obs, np.array([[1, 1], [1, 1], [1, 1]], np.int32))
    _, _, term, trunc, infos = env.step(np.array([R, L, L]))
    assert "episode" not in infos
    _, _, term, trunc, infos = env.step(np.array([R, L, L]))
    np.testing.assert_array_equal(term, [T, F, F])
    np.testing.assert_array_equal(infos["_episode"], [T, F, F])
    assert infos["episode"]["l"][0] == 2 and infos["episode"]["r"][0] == 0.0
    if mode is AutoresetMode.DISABLED:
        env.reset(options={"reset_mask": np.array([T, F, F])})
    _, rewards, term, trunc, infos = env.step(np.array([R, L, L]))
    np.testing.assert_array_equal(trunc, [F, T, T])
    np.testing.assert_array_equal(infos["_episode"], [F, T, T])
    # Rows 1 and 2 ran four steps of -1 across row 0's partial reset.
    np.testing.assert_array_equal(infos["episode"]["l"][1:], [4, 4])
    np.testing.assert_array_equal(infos["episode"]["r"][1:], [-4.0, -4.0])
    check_episode_matches_stats(infos)
    assert np.isfinite(rewards).all()


def test_dict_info_to_list_converts_episode_stats():
    env = DictInfoToList(NavVectorEnv(3, world_map=CORRIDOR, max_episode_steps=3))
    obs, infos = env.reset(seed=0)
    assert infos == [{}, {}, {}]
    _, _, _, _, infos = env.step(np.array([R, L, L]))
    assert infos == [{}, {}, {}]
    _, _, term, _, infos = env.step(np.array([R, L, L]))
    np.testing.assert_array_equal(term, [T, F, F])
    assert type(infos) is list and len(infos) == 3
    assert set(infos[0]) == {"episode_stats"}
    assert infos[0]["episode_stats"]["return"] == 0.0
    assert infos[0]["episode_stats"]["length"] == 2
    assert infos[1] == {} and infos[2] == {}


def test_dict_info_to_list_converts_same_step_final_info():
    env = DictInfoToList(NavVectorEnv(2, world_map=CORRIDOR, autoreset_mode="SameStep"))
    env.reset(seed=0)
    env.step(np.array([R, L]))
    _, _, term, _, infos = env.step(np.array([R, L]))
    np.testing.assert_array_equal(term, [T, F])
    np.testing.assert_array_equal(infos[0]["final_obs"], np.array([1, 3], np.int32))
    assert infos[0]["final_info"]["episode_stats"]["length"] == 2
    assert infos[1] == {}


def test_dtype_observation_and_action_wrappers_convert_and_clip():
    env = DtypeObservation(NavVectorEnv(2, level="nav/room1_small", obs_type="image"), np.float32)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (2, 6, 6, 3)
    obs, *_ = env.step(np.array([0, 1]))
    assert obs.dtype == np.float32
    cont = NavVectorEnv(2, level="nav/room5_medium", actions="2d_continuous")
    wrapped = ClipAction(RescaleAction(cont, np.float32(0.0), np.float32(1.0)))
    wrapped.reset(seed=0, options={"start": (3, 3)})
    # Clipped to [0, 1], then mapped onto [-1, 1]: (5, 0.5) -> (1, 0), one row down.
    obs, *_ = wrapped.step(np.array([[5.0, 0.5], [0.0, 0.5]], np.float32))
    np.testing.assert_array_equal(obs, np.array([[4, 3], [2, 3]], np.int32))


def test_numpy_to_torch_returns_tensors():
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")  # gymnasium's array conversion wrappers need it
    from gymnasium.wrappers.vector import NumpyToTorch

    env = NumpyToTorch(NavVectorEnv(3, level="nav/room1_small", max_episode_steps=3))
    obs, _ = env.reset(seed=0)
    assert isinstance(obs, torch.Tensor) and obs.shape == (3, 2)
    obs, rewards, term, trunc, infos = env.step(torch.tensor([0, 1, 2]))
    assert isinstance(obs, torch.Tensor) and obs.dtype == torch.int32
    assert isinstance(rewards, torch.Tensor) and rewards.dtype == torch.float32
    assert isinstance(term, torch.Tensor) and term.dtype == torch.bool


def test_human_rendering_wrapper_runs_headless():
    pytest.importorskip("pygame")
    pytest.importorskip("cv2")  # the vector HumanRendering tiles frames with opencv
    from gymnasium.wrappers.vector import HumanRendering

    base = NavVectorEnv(2, level="nav/room1_small", render_mode="rgb_array")
    base.metadata["render_fps"] = 1000
    env = HumanRendering(base)
    env.reset(seed=0)
    env.step(np.array([0, 1]))
    env.close()


@pytest.mark.skipif(importlib.util.find_spec("moviepy") is None, reason="moviepy is not installed")
def test_record_video_records_rgb_array_frames(tmp_path):
    from gymnasium.wrappers.vector import RecordVideo

    env = RecordVideo(
        NavVectorEnv(2, level="nav/room1_small", render_mode="rgb_array", max_episode_steps=4),
        str(tmp_path), episode_trigger=lambda e: e == 0,
    )
    env.reset(seed=0)
    for _ in range(6):
        env.step(np.array([0, 1]))
    env.close()
    assert list(tmp_path.glob("*.mp4"))
