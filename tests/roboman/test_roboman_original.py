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


def greedy(ref, mask, rng) -> int:
    """Lift when possible; when holding, put on a cell with another object; else walk to the nearest one."""
    u = ref.unwrapped
    ax, ay = u.agent_pos
    others = [(o.x, o.y) for i, o in enumerate(u.objs) if i != u.lifted_obj_idx]
    if mask[5] == 0:
        return 5
    if u.lifted_obj_idx is not None and (ax, ay) in others:
        return 6
    targets = [c for c in others if c != (ax, ay)] or others
    tx, ty = min(targets, key=lambda c: abs(c[0] - ax) + abs(c[1] - ay) + 0.1 * rng.random())
    moves = [a for a, ok in ((3, tx < ax), (4, tx > ax), (1, ty < ay), (2, ty > ay)) if ok]
    return int(rng.choice(moves)) if moves else int(rng.integers(7))


def choose(rng, ref, mask) -> int:
    """Spec section 10: 10% any action (masked ones too), 60% the greedy stacking policy, else a valid one.

    The greedy part is what builds stacks (uniform valid actions almost never do)."""
    p = rng.random()
    if p < 0.1:
        return int(rng.integers(7))
    if p < 0.7:
        return greedy(ref, mask, rng)
    return int(rng.choice(np.flatnonzero(np.asarray(mask) == 0)))


def stack_height(ref) -> int:
    objs = ref.unwrapped.objs
    return max(1 + (o.obj_below is not None and (1 + (objs[o.obj_below].obj_below is not None))) for o in objs)


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
            a = choose(rng, ref, ref_info["action_mask"])
            ref_obs, ref_r, ref_term, ref_trunc, ref_info = ref.unwrapped.step(a)
            obs, r, term, trunc, info = env.step(a)
            where = f"{task.name} seed {seed} step {t} action {a}"
            assert obs.dtype == np.float32, where
            np.testing.assert_array_equal(obs, np.asarray(ref_obs, np.float32), err_msg=where)
            assert (r, term, trunc) == (float(ref_r), bool(ref_term), bool(ref_trunc)), where
            np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"], err_msg=where)
            assert env.unwrapped.get_state() == original_state(ref), where


def test_policy_builds_stacks():
    """The action policy above must reach 2- and 3-stacks, or the comparisons miss stacking."""
    ref = gym.make("Gridroboman-LiftRed-v0")
    rng = np.random.default_rng(0)
    heights = []
    for seed in range(40):
        _, info = ref.reset(seed=seed)
        h = 1
        for _ in range(60):
            _, _, _, _, info = ref.unwrapped.step(choose(rng, ref, info["action_mask"]))
            h = max(h, stack_height(ref))
        heights.append(h)
    assert sum(h >= 2 for h in heights) >= 30 and 3 in heights, heights


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
    ended = 0
    for _ in range(60):
        actions = np.array([choose(rng, ref, m) for ref, m in zip(refs, masks, strict=True)])
        obs, rewards, term, trunc, infos = envs.step(actions)
        masks = []
        for i, ref in enumerate(refs):
            ref_obs, ref_r, ref_term, ref_trunc, ref_info = ref.unwrapped.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], np.asarray(ref_obs, np.float32))
            assert (rewards[i], term[i], trunc[i]) == (ref_r, ref_term, ref_trunc)
            np.testing.assert_array_equal(infos["action_mask"][i], ref_info["action_mask"])
            assert envs.get_state(i) == original_state(ref)
            masks.append(ref_info["action_mask"])
        ended += int((term | trunc).sum())
        if (term | trunc).any():
            for i in np.flatnonzero(term | trunc):  # keep every row going from the original's state
                envs.set_state(original_state(refs[i]), int(i))
    assert ended > 0  # the re-injection path above was exercised
