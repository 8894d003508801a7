"""The kernel's contract with Python: shared constants, memory safety before reset, error codes."""

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import merged, obs_array, variants_and_first_ids

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


def arrays_of(obs) -> list[np.ndarray]:
    """The arrays of a batch of observations: itself, or the array parts of a Dict observation."""
    parts = obs.values() if isinstance(obs, dict) else [obs]
    return [part for part in parts if isinstance(part, np.ndarray)]


@pytest.mark.parametrize("make", [pytest.param(make, id=name) for name, make in variants_and_first_ids().items()])
def test_returned_observations_are_the_callers_and_never_read_back(make):
    """step() writes each call's observations into fresh arrays; scribbling on them changes nothing."""
    envs = make(4)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    obs, *_ = envs.step(envs.action_space.sample())
    expected, kept = obs_array(obs), envs.state_dict()["obs"]
    for part in arrays_of(obs):
        part[...] = 0  # the caller owns the arrays
    mask = np.arange(envs.num_envs) < envs.num_envs // 4  # the rows of the first world
    obs2, _ = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(obs_array(obs2)[~mask], expected[~mask])
    np.testing.assert_array_equal(envs.state_dict()["obs"][~mask], kept[~mask])
    obs3, *_ = envs.step(np.zeros(envs.action_space.shape, envs.action_space.dtype))
    for part in arrays_of(obs3):
        assert not any(np.shares_memory(part, other) for other in arrays_of(obs) + arrays_of(obs2))


@pytest.mark.parametrize("case", sorted(merged("STATE_CASES")))
def test_worlds_never_given_one_are_not_observed(case):
    # A world never reset holds its fields' initial fill: no place to observe from (a navigation
    # view there reads outside the map). set_state and load_state_dict observe the worlds that have
    # one; the rest keep what their rows hold (run under the sanitizer build too).
    make = merged("STATE_CASES")[case]
    donor, envs = make(), make()
    donor.reset(seed=3)
    untouched = obs_array(envs.state.obs).copy()
    obs, _ = envs.set_state(donor.get_state(0), 0)
    rows = np.isin(envs.row_units, [0])
    assert np.array_equal(obs_array(envs.state.obs)[~rows], untouched[~rows])
    assert np.array_equal(obs_array(envs.state.obs)[rows], obs_array(donor.state.obs)[rows])
    state = envs.state_dict()
    other = make()
    other.load_state_dict(state)
    assert np.array_equal(obs_array(other.state.obs)[rows], obs_array(donor.state.obs)[rows])
    assert other.has_world.tolist() == envs.has_world.tolist()


@pytest.mark.parametrize("case", sorted(merged("STATE_CASES")))
def test_a_batch_never_reset_copies_and_saves(case):
    # Its fields' initial fill passes the family's checks (gridroboman's records hold valid cells).
    envs = merged("STATE_CASES")[case]()
    for copy_of in (copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))):
        other = copy_of(envs)
        assert other.has_world.tolist() == [False] * envs.state.num_units
        other.reset(seed=1)
