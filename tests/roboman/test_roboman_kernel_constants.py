"""The manipulation kernel's exported constants agree with the Python tables and state views they mirror."""

from __future__ import annotations

import numpy as np

from gridsim.roboman import _kernel as roboman_kernel
from gridsim.roboman.env import RobomanVectorEnv
from gridsim.roboman.tasks import TASK_KINDS


def test_roboman_goal_kinds_follow_task_kinds():
    assert roboman_kernel.ROBOMAN_GOAL_KINDS == {name: k for k, name in enumerate(TASK_KINDS)}


def test_roboman_obs_kinds():
    assert (roboman_kernel.ROBOMAN_OBS_VECTOR, roboman_kernel.ROBOMAN_OBS_GRID) == (0, 1)
    envs = RobomanVectorEnv(1, obs_type="vector")
    assert envs.kernel.obs_kind == roboman_kernel.ROBOMAN_OBS_VECTOR
    envs.close()
    envs = RobomanVectorEnv(1, obs_type="grid")
    assert envs.kernel.obs_kind == roboman_kernel.ROBOMAN_OBS_GRID
    envs.close()


def test_roboman_record_layout_matches_the_state_views():
    envs = RobomanVectorEnv(2)
    st = envs.state
    layout = roboman_kernel.ROBOMAN_RECORD
    assert st.record.shape[1] == layout["SIZE"]
    base = st.record.ctypes.data

    def offset(view):
        return view.ctypes.data - base

    assert offset(st.agent[:, 0]) == layout["AX"]
    assert offset(st.agent[:, 1]) == layout["AY"]
    assert offset(st.obj_pos) == layout["OBJ"] and st.obj_pos.shape[1:] == (3, 2)
    assert offset(st.above) == layout["ABOVE"] and st.above.shape[1] == 3
    assert offset(st.below) == layout["BELOW"] and st.below.shape[1] == 3
    assert offset(st.held) == layout["HELD"]
    assert offset(st.task) == layout["TASK"]
    # Every byte of a record has exactly one name.
    covered = np.zeros(layout["SIZE"], int)
    for view, width in ((st.agent, 2), (st.obj_pos, 6), (st.above, 3), (st.below, 3), (st.held, 1), (st.task, 1)):
        covered[offset(view):offset(view) + width] += 1
    assert (covered == 1).all()
    envs.close()
