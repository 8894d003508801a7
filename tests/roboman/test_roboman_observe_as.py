"""RobomanKernel.observe_as: either observation kind and the action mask, on demand.

Whatever a batch's own ``obs_type``, the kernel writes the vector observation (with or
without the task one-hot) or the grid observation of every env's current record, and
its action mask; they must equal the pure-Python reference's ``roboman_obs``,
``roboman_grid_obs`` and ``roboman_mask`` of ``get_state(i)``, on many random (also
inconsistent) records.
"""

from __future__ import annotations

import numpy as np
import pytest

from gridsim.envs import RobomanVectorEnv
from gridsim.reference.roboman import roboman_grid_obs, roboman_mask, roboman_obs
from gridsim.roboman import _kernel

MULTI = ["LiftRed", "TouchGreen", "MoveBlueToCorner", "StackRedOnBlue", "MoveGreenFarFromRed", "TouchBlueWithRed"]
N = 256


def _scramble(envs: RobomanVectorEnv, rng: np.random.Generator) -> None:
    """Random records: cells 0..6, links and the held object -1..2, crowded on few cells half the time."""
    st = envs.state
    n = envs.num_envs
    st.agent[:] = rng.integers(0, 7, (n, 2))
    pos = rng.integers(0, 7, (n, 3, 2))
    crowded = rng.random(n) < 0.5
    pos[crowded] = rng.integers(2, 4, (int(crowded.sum()), 3, 2))
    st.obj_pos[:] = pos
    st.above[:] = rng.integers(-1, 3, (n, 3))
    st.below[:] = rng.integers(-1, 3, (n, 3))
    st.held[:] = rng.integers(-1, 3, n)
    st.task_slot[:] = rng.integers(0, len(envs.state.task_set), n)


@pytest.mark.parametrize("obs_type", ["vector", "grid"])
@pytest.mark.parametrize("task_in_obs", [False, True])
def test_observe_as_matches_reference(obs_type, task_in_obs):
    if task_in_obs and obs_type != "vector":
        pytest.skip("task_in_obs needs the vector observation")
    envs = RobomanVectorEnv(N, tasks=MULTI, task_in_obs=task_in_obs, obs_type=obs_type)
    envs.reset(seed=3)
    kernel = envs.kernel
    k = len(MULTI)
    rng = np.random.default_rng(0)
    for _ in range(8):
        _scramble(envs, rng)
        vec = np.full((N, 11), 99, np.float32)
        vec_task = np.full((N, 11 + k), 99, np.float32)
        grid = np.full((N, 7, 7, 4), 99, np.uint8)
        masks = [np.full((N, 7), 99, np.int8) for _ in range(3)]
        kernel.observe_as(_kernel.ROBOMAN_OBS_VECTOR, vec, masks[0])
        kernel.observe_as(_kernel.ROBOMAN_OBS_VECTOR, vec_task, masks[1])
        kernel.observe_as(_kernel.ROBOMAN_OBS_GRID, grid, masks[2])
        kernel.observe_as(_kernel.ROBOMAN_OBS_GRID, grid)  # the mask is optional
        for i in range(N):
            state = envs.get_state(i)
            want_vec = roboman_obs(state)
            one_hot = np.zeros(k, np.float32)
            one_hot[envs.state.task_slot[i]] = 1.0
            np.testing.assert_array_equal(vec[i], want_vec)
            np.testing.assert_array_equal(vec_task[i], np.concatenate([want_vec, one_hot]))
            np.testing.assert_array_equal(grid[i], roboman_grid_obs(state))
            for m in masks:
                np.testing.assert_array_equal(m[i], roboman_mask(state))
        # The batch's own observation kind agrees with what observe() writes.
        kernel.observe()
        own = vec_task if task_in_obs else (vec if obs_type == "vector" else grid)
        np.testing.assert_array_equal(envs.state.obs, own)
        np.testing.assert_array_equal(envs.state.action_mask, masks[0])
    envs.close()


def test_observe_as_checks_shapes():
    envs = RobomanVectorEnv(4, task="LiftRed")
    envs.reset(seed=0)
    k = envs.kernel
    with pytest.raises(ValueError):
        k.observe_as(_kernel.ROBOMAN_OBS_VECTOR, np.zeros((4, 13), np.float32))  # 11 + 1 task fits, 13 not
    with pytest.raises(ValueError):
        k.observe_as(_kernel.ROBOMAN_OBS_GRID, np.zeros((3, 7, 7, 4), np.uint8))
    with pytest.raises(ValueError):
        k.observe_as(_kernel.ROBOMAN_OBS_VECTOR, np.zeros((4, 11), np.float32), np.zeros((4, 6), np.int8))
    with pytest.raises(ValueError):
        k.observe_as(7, np.zeros((4, 11), np.float32))
    envs.close()
