"""Kitchen actions must have exactly the documented shape and an integer dtype."""

import numpy as np
import pytest

import gridsim
from gridsim.errors import InvalidActionError


@pytest.mark.parametrize("agent_rows", [False, True])
def test_kitchen_actions_need_the_exact_shape(agent_rows):
    K, A = 3, 2
    env = gridsim.KitchenVectorEnv(num_envs=K * A if agent_rows else K, agent_rows=agent_rows)
    env.reset(seed=0)
    good = np.zeros(env.action_space.shape, np.int64)
    env.step(good)
    bad_shapes = [(K * A,), (K, A, 1), (1, K * A)] if not agent_rows else [(K, A), (K * A, 1)]
    if not agent_rows:
        bad_shapes.append((A, K))
    for shape in bad_shapes:
        for dtype in (np.int64, np.int32):
            with pytest.raises(InvalidActionError, match="shape"):
                env.step(np.zeros(shape, dtype))
    with pytest.raises(InvalidActionError, match="dtype"):
        env.step(good.astype(np.float64))


def test_single_kitchen_env_refuses_float_actions():
    env = gridsim.KitchenEnv()
    env.reset(seed=0)
    env.step(np.array([1, 2]))
    with pytest.raises(InvalidActionError, match="integer"):
        env.step(np.array([1.0, 2.0]))
    with pytest.raises(InvalidActionError, match="shape"):
        env.step(np.array([[1, 2]]))
