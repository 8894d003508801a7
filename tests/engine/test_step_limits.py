"""``gym.make(id)`` and ``gym.make_vec(id, n)`` play the same episodes and truncate on the same step."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from family_cases import FAMILY_IDS, obs_array

import gridsim
from gridsim.families import FAMILIES
from gridsim.registry import has_own_limit, register_family_id

# One id of each family; action 0 (nav: up into the wall, roboman and kitchen: no-op, minigrid: turn
# left) never ends an episode, so each runs into its step limit.
ONE_ID = {name: ids[0] for name, ids in FAMILY_IDS.items()}


def first_episode(env_id: str, seed: int = 3, limit: int = 5000) -> dict[str, list]:
    """The first episode of ``gym.make(env_id)`` and of row 0 of ``gym.make_vec(env_id, 2)``, action 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's notices (an env without a spec limit, say)
        single = gym.make(env_id)
        vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    runs: dict[str, list] = {"single": [], "vector": []}
    obs_s, _ = single.reset(seed=seed)
    obs_v, _ = vec.reset(seed=[seed, seed + 1])
    runs["single"].append(obs_array(obs_s))
    runs["vector"].append(obs_array(obs_v)[0])
    act_s = np.zeros(single.action_space.shape, single.action_space.dtype)
    act_v = np.zeros(vec.action_space.shape, vec.action_space.dtype)
    ended = {"single": False, "vector": False}
    for _ in range(limit):
        if not ended["single"]:
            obs, reward, term, trunc, _ = single.step(act_s if act_s.shape else int(act_s))
            runs["single"].append((obs_array(obs), float(reward), bool(term), bool(trunc)))
            ended["single"] = term or trunc
        if not ended["vector"]:
            obs, reward, term, trunc, _ = vec.step(act_v)
            runs["vector"].append((obs_array(obs)[0], float(reward[0]), bool(term[0]), bool(trunc[0])))
            ended["vector"] = bool(term[0] or trunc[0])
        if all(ended.values()):
            break
    single.close()
    vec.close()
    return runs


def assert_same_episode(runs: dict[str, list]) -> int:
    """The two runs step for step; returns the episode's length."""
    single, vector = runs["single"], runs["vector"]
    assert len(single) == len(vector), (f"gym.make ends after {len(single) - 1} steps, "
                                        f"gym.make_vec after {len(vector) - 1}")
    np.testing.assert_array_equal(single[0], vector[0])
    for t, (a, b) in enumerate(zip(single[1:], vector[1:], strict=True), start=1):
        np.testing.assert_array_equal(a[0], b[0], err_msg=f"observation after step {t}")
        assert a[1:] == b[1:], f"step {t}: (reward, terminated, truncated) {a[1:]} != {b[1:]}"
    return len(single) - 1


@pytest.mark.parametrize("name", list(ONE_ID), ids=str)
def test_make_and_make_vec_truncate_on_the_same_step(name):
    env_id = ONE_ID[name]
    runs = first_episode(env_id)
    steps = assert_same_episode(runs)
    assert runs["single"][-1][3], "the episode ends by truncation"
    vec = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point")
    assert steps == vec.unwrapped.max_episode_steps
    vec.close()


def test_a_registered_level_truncates_at_the_ids_limit_not_the_levels():
    # examples/lava sets max_steps 100 of its own; the id's limit replaces it for both.
    env_id = "test/LavaLong-v0"
    gridsim.register_level(env_id, "examples/lava", max_episode_steps=150)
    try:
        assert gym.spec(env_id).max_episode_steps == 150
        runs = first_episode(env_id)
        assert assert_same_episode(runs) == 150 and runs["vector"][-1][3]
    finally:
        del gym.registry[env_id]


def test_a_family_with_a_limit_of_its_own_gets_the_ids_limit_as_an_argument():
    # gridroboman truncates at its own 50 unless told otherwise: a longer registered limit must reach
    # the env that gym.make builds too, not only the TimeLimit around it.
    row = FAMILIES["roboman"]
    assert has_own_limit(row.vector_env) and not has_own_limit(FAMILIES["nav"].vector_env)
    env_id = "test/RobomanLong-v0"
    register_family_id(row, env_id, 80, {"task": "LiftX", "x_obj": "red"})
    try:
        assert gym.spec(env_id).kwargs["max_episode_steps"] == 80 and gym.spec(env_id).max_episode_steps is None
        runs = first_episode(env_id)
        assert assert_same_episode(runs) == 80 and runs["single"][-1][3]
    finally:
        del gym.registry[env_id]
