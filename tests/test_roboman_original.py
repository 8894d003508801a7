"""Conformance with the original gridroboman (Boxxfish/gridroboman), when it is installed.

The original's state is copied into gridsim after each of its resets; both then take
the same actions, and every step's observation, reward, flags, action mask and state
must agree. Skipped where the original package is not importable.
"""

from __future__ import annotations

import numpy as np
import pytest

gridroboman = pytest.importorskip("gridroboman")
gym = pytest.importorskip("gymnasium")

from gridsim import RobomanEnv, RobomanVectorEnv  # noqa: E402
from gridsim.roboman import TASKS  # noqa: E402


def original_state(env) -> dict:
    """The original env's public attributes as gridsim's state dict."""
    u = env.unwrapped
    return {
        "agent_pos": (int(u.agent_pos[0]), int(u.agent_pos[1])),
        "objs": [{"x": int(o.x), "y": int(o.y), "obj_above": o.obj_above, "obj_below": o.obj_below}
                 for o in u.objs],
        "lifted_obj_idx": u.lifted_obj_idx,
        "timer": int(u.timer),
    }


def choose(rng, mask) -> int:
    """10% any action (masked ones too), else lift/put when possible, else a random valid action."""
    if rng.random() < 0.1:
        return int(rng.integers(7))
    if mask[5] == 0 and rng.random() < 0.6:
        return 5
    if mask[6] == 0 and rng.random() < 0.3:
        return 6
    return int(rng.choice(np.flatnonzero(np.asarray(mask) == 0)))


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_single_env_matches_original_step_for_step(task):
    ref = gym.make(f"Gridroboman-{task.name}-v0")
    env = RobomanEnv(task=task.name)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for seed in range(5):
        ref_obs, ref_info = ref.reset(seed=seed)
        obs, info = env.unwrapped.set_state(original_state(ref))
        np.testing.assert_array_equal(obs, np.asarray(ref_obs, np.float32))
        np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
        for t in range(60):  # past the end on purpose: repeated rewards, truncated only at 50
            a = choose(rng, ref_info["action_mask"])
            ref_obs, ref_r, ref_term, ref_trunc, ref_info = ref.unwrapped.step(a)
            obs, r, term, trunc, info = env.step(a)
            where = f"{task.name} seed {seed} step {t} action {a}"
            assert obs.dtype == np.float32, where
            np.testing.assert_array_equal(obs, np.asarray(ref_obs, np.float32), err_msg=where)
            assert (r, term, trunc) == (float(ref_r), bool(ref_term), bool(ref_trunc)), where
            np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"], err_msg=where)
            assert env.unwrapped.get_state() == original_state(ref), where


def test_batched_env_matches_original_rows():
    task = TASKS[-1]
    refs = [gym.make(f"Gridroboman-{task.name}-v0") for _ in range(8)]
    envs = RobomanVectorEnv(num_envs=8, task=task.name, autoreset_mode="Disabled")
    envs.reset(seed=0)
    rng = np.random.default_rng(1)
    masks = []
    for i, ref in enumerate(refs):
        ref.reset(seed=100 + i)
        _, info = envs.set_state(original_state(ref), i)
        masks.append(info["action_mask"])
    for _ in range(49):
        actions = np.array([choose(rng, m) for m in masks])
        obs, rewards, term, trunc, infos = envs.step(actions)
        masks = []
        for i, ref in enumerate(refs):
            ref_obs, ref_r, ref_term, ref_trunc, ref_info = ref.unwrapped.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], np.asarray(ref_obs, np.float32))
            assert (rewards[i], term[i], trunc[i]) == (ref_r, ref_term, ref_trunc)
            np.testing.assert_array_equal(infos["action_mask"][i], ref_info["action_mask"])
            masks.append(ref_info["action_mask"])
        if (term | trunc).any():
            for i in np.flatnonzero(term | trunc):  # keep every row going from the original's state
                envs.set_state(original_state(refs[i]), int(i))
