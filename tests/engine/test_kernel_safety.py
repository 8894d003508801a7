"""The kernel's contract with Python: shared constants, memory safety before reset, error codes."""

import gymnasium as gym
import numpy as np
import pytest

import gridsim
from gridsim import _core
from gridsim.nav import _kernel as nav_kernel
from gridsim.nav import alphabet


def test_flag_bits_match_between_kernel_and_python():
    assert alphabet.F_WALKABLE == nav_kernel.FLAG_WALKABLE
    assert alphabet.F_TERMINAL == nav_kernel.FLAG_TERMINAL
    assert alphabet.F_INITIAL == nav_kernel.FLAG_INITIAL
    assert alphabet.F_STOCHASTIC == nav_kernel.FLAG_STOCHASTIC
    assert alphabet.F_COLLECTIBLE == nav_kernel.FLAG_COLLECTIBLE
    # Per-cell flag maps are uint8: every bit must fit in a byte.
    assert max(alphabet.F_WALKABLE, alphabet.F_COLLECTIBLE) < 256


def test_step_before_reset_raises_reset_needed():
    envs = gridsim.NavVectorEnv(num_envs=3, level="nav/room1_small")
    with pytest.raises(gym.error.ResetNeeded):
        envs.step(np.zeros(3, np.int64))


def test_state_before_reset_is_a_valid_start_cell():
    envs = gridsim.NavVectorEnv(num_envs=2, level="nav/room5_medium")
    assert envs.get_state(1)["pos"] == (1, 1)


def test_unknown_kernel_error_code_becomes_gridsim_error():
    envs = gridsim.NavVectorEnv(num_envs=2, level="nav/room1_small")
    envs.reset(seed=0)
    err = envs._kernel_error(np.zeros(2, np.int64))  # no error pending: code 0 is not an action error
    assert isinstance(err, gridsim.KernelError)
    assert isinstance(err, gridsim.GridSimError) and isinstance(err, RuntimeError)


def test_debug_build_flag_is_a_bool():
    assert isinstance(_core.DEBUG_BUILD, bool)


@pytest.mark.parametrize("level", ["nav/room1_small", "nav/open64"])
def test_long_random_walk_keeps_agents_inside_the_map(level):
    envs = gridsim.NavVectorEnv(num_envs=64, level=level, actions="2d_continuous", max_episode_steps=50)
    envs.reset(seed=3)
    rng = np.random.default_rng(0)
    H, W = envs.level.height, envs.level.width
    for _ in range(300):
        obs, *_ = envs.step(rng.uniform(-1.5, 1.5, (64, 2)).astype(np.float32))
        assert (obs[:, 0] >= 0).all() and (obs[:, 0] < H).all()
        assert (obs[:, 1] >= 0).all() and (obs[:, 1] < W).all()
        walkable = envs.level.walkable[obs[:, 0], obs[:, 1]]
        assert walkable.all()


@pytest.mark.parametrize("make", [
    lambda: gridsim.NavVectorEnv(num_envs=4, level="nav/room5_medium", obs_type="view"),
    lambda: gridsim.RobomanVectorEnv(num_envs=4, task="StackRedOnGreen"),
])
def test_returned_observations_are_the_callers_and_never_read_back(make):
    """step() writes each call's observations into a fresh array; scribbling on it changes nothing."""
    envs = make()
    envs.reset(seed=0)
    n = envs.single_action_space.n
    obs, *_ = envs.step(np.arange(4) % n)
    expected = obs.copy()
    obs[...] = 0  # the caller owns the array
    mask = np.array([True, False, False, False])
    obs2, _ = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(obs2[1:], expected[1:])
    np.testing.assert_array_equal(envs.state_dict()["obs"][1:], expected[1:])
    obs3, *_ = envs.step(np.zeros(4, np.int64))
    assert not np.shares_memory(obs3, obs2) and not np.shares_memory(obs3, obs)
