"""Every state an env produces loads back: step counters at INT32_MAX, rewards at float32's edge.

Step counters saturate at INT32_MAX in every family's kernel (an episode without a step
limit may run that long), and the state validator accepts them; rewards that do not fit
float32 are refused when the level loads, so returns stay finite.
"""

from __future__ import annotations

import copy
import pickle
import textwrap
from pathlib import Path

import numpy as np
import pytest
from engine.family_cases import cases_by_family

import gridsim

INT32_MAX = 2**31 - 1
FLOAT32_MAX = float(np.finfo(np.float32).max)
NO_GOAL_ENVS = cases_by_family("no_goal_envs")  # each family's batch that never terminates, and its action


def zeros(envs) -> np.ndarray:
    return np.zeros(envs.action_space.shape, envs.action_space.dtype)


def counter(envs) -> np.ndarray:
    return getattr(envs.state, envs.state.STEP_FIELD)


def with_counter(envs, value: int):
    state = envs.state_dict()
    field = envs.state.STEP_FIELD
    state[field] = np.full_like(state[field], value)
    envs.load_state_dict(state)


def assert_round_trips(envs):
    """state_dict, load_state_dict, pickle and deepcopy all take the env's state as it is."""
    state = envs.state_dict()
    envs.load_state_dict(state)
    for twin in (pickle.loads(pickle.dumps(envs)), copy.deepcopy(envs)):
        np.testing.assert_array_equal(counter(twin), counter(envs))
        twin.close()


@pytest.mark.parametrize("family", list(NO_GOAL_ENVS))
def test_step_counter_saturates_at_int32_max_and_the_state_round_trips(family):
    envs, action = NO_GOAL_ENVS[family](2, None)
    envs.kernel.max_steps = 0  # no limit (a family may have one of its own)
    envs.reset(seed=0)
    with_counter(envs, INT32_MAX - 2)
    seen = []
    for _ in range(4):
        _, _, term, trunc, _ = envs.step(action)
        assert not trunc.any() and not term.any()  # no limit: never truncated, at the top either
        seen.append(int(counter(envs)[0]))
        assert_round_trips(envs)  # refused at INT32_MAX, or wrapped negative, before
    assert seen == [INT32_MAX - 1, INT32_MAX, INT32_MAX, INT32_MAX]
    envs.close()


@pytest.mark.parametrize("family", list(NO_GOAL_ENVS))
def test_a_limit_of_int32_max_truncates_on_the_step_that_reaches_it(family):
    envs, action = NO_GOAL_ENVS[family](1, INT32_MAX)
    envs.reset(seed=0)
    with_counter(envs, INT32_MAX - 2)
    flags = []
    for _ in range(2):
        _, _, _, trunc, _ = envs.step(action)
        flags.append(bool(trunc[0]))
        assert_round_trips(envs)
    assert flags == [False, True]
    envs.close()


def test_set_state_takes_a_counter_at_int32_max():
    envs = gridsim.make("nav/room1_small", 1)
    envs.reset(seed=0)
    with_counter(envs, INT32_MAX)
    state = envs.get_state(0)
    envs.set_state(state)
    envs.step(zeros(envs))
    assert int(counter(envs)[0]) == INT32_MAX
    envs.close()


# --------------------------------------------------------------------------- rewards


def level_file(tmp_path: Path, legend: str) -> Path:
    path = tmp_path / "huge.txt"
    path.write_text(f"%gridsim 1\n[meta]\nfamily = nav\n[legend]\n{legend}\n[map]\n####\n#S0#\n####\n")
    return path


@pytest.mark.parametrize("reward", ["1e300", "-1e39", "normal(0,1e38)", "uniform(0,1e300)", "abs_normal(3e38,1e37)"])
def test_a_reward_beyond_float32_is_refused_when_the_level_loads(tmp_path, reward):
    path = level_file(tmp_path, f"0 = terminal reward={reward}")
    with pytest.raises(gridsim.LevelError, match=r"level 'huge': symbol '0' has reward .* does not fit float32") as e:
        gridsim.make(path, 1)
    assert e.value.line == 5  # the legend line


def test_a_reward_beyond_float32_in_an_alphabet_argument_is_refused():
    alphabet = {" ": {"reward": 1e300}, "S": {"initial": True}, "#": {"accessible": False}, "0": {"terminal": True}}
    with pytest.raises(gridsim.LevelError, match=r"room1_small.*symbol ' ' has reward const\(1e\+300\)"):
        gridsim.make("nav/room1_small", 1, alphabet=alphabet)


def test_a_reward_beyond_float32_in_a_level_module_is_refused(tmp_path):
    (tmp_path / "huge_module.py").write_text(textwrap.dedent("""
        import gridsim
        LEVEL = gridsim.Level("nav", map="####\\n#S0#\\n####",
                              defaults={"alphabet": {" ": {}, "S": {"initial": True}, "#": {"accessible": False},
                                                     "0": {"terminal": True, "reward": 1e300}}})
        """))
    with pytest.raises(gridsim.LevelError, match=r"symbol '0' has reward const\(1e\+300\)"):
        gridsim.make("huge_module", 1, level_directory=tmp_path)


def test_rewards_at_float32_max_step_to_finite_returns_that_load_back(tmp_path):
    path = level_file(tmp_path, f"0 = terminal reward={FLOAT32_MAX!r}\nS = initial reward=-{FLOAT32_MAX!r}")
    envs = gridsim.make(path, 1)
    envs.reset(seed=0)
    for action in (0, 0, 0, 3, 3):  # into the wall (reward from S), then onto the goal
        _, reward, _, _, _ = envs.step(np.array([action]))
        assert np.isfinite(reward).all()
        assert np.isfinite(envs.state.ep_return).all() and np.isfinite(envs.state.stat_return).all()
        assert_round_trips(envs)
    envs.close()
