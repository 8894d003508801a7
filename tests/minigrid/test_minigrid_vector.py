"""The minigrid vector env against Gymnasium's ``SyncVectorEnv`` of Minigrid envs.

``gym.make_vec("gridsim/MiniGrid-...", vectorization_mode="vector_entry_point")`` reset with
seed s against ``gym.make_vec("MiniGrid-...", vectorization_mode="sync")`` (env i seeded
s + i), step by step: the batched observation (image (N, 7, 7, 3), direction, the mission
tuple), float64 rewards, both flags, the infos, and every env's state, in the three
autoreset modes: NEXT_STEP (the default), SAME_STEP (``final_obs`` and its masks) and
DISABLED (masked resets, with and without a seed).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid_harness as h  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

FAST_IDS = [
    "MiniGrid-Empty-Random-5x5-v0", "MiniGrid-DoorKey-5x5-v0", "MiniGrid-DoorKey-8x8-v0", "MiniGrid-FourRooms-v0",
    "MiniGrid-LavaGapS6-v0", "MiniGrid-SimpleCrossingS9N1-v0", "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-DistShift2-v0", "MiniGrid-Dynamic-Obstacles-5x5-v0", "MiniGrid-MemoryS7-v0",
    "MiniGrid-GoToDoor-5x5-v0", "MiniGrid-UnlockPickup-v0", "MiniGrid-KeyCorridorS3R3-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0", "MiniGrid-LockedRoom-v0", "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-GoToObject-6x6-N2-v0", "MiniGrid-PutNear-6x6-N2-v0", "MiniGrid-RedBlueDoors-6x6-v0",
    "MiniGrid-Playground-v0",
]
MODE_IDS = ["MiniGrid-Empty-Random-6x6-v0", "MiniGrid-DoorKey-6x6-v0", "MiniGrid-LavaCrossingS9N1-v0",
            "MiniGrid-Dynamic-Obstacles-Random-5x5-v0", "MiniGrid-GoToDoor-6x6-v0", "MiniGrid-KeyCorridorS3R2-v0",
            "MiniGrid-PutNear-6x6-N2-v0", "MiniGrid-RedBlueDoors-6x6-v0"]


@pytest.mark.parametrize("name", FAST_IDS)
def test_next_step_autoreset_matches_sync_vector_env(name):
    stats = h.run_vector(name, 4, 11, 80, "NextStep", max_steps=15)
    assert stats.episodes >= 4


@pytest.mark.parametrize("name", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-Empty-8x8-v0"])
def test_next_step_autoreset_with_the_ids_own_limit(name):
    stats = h.run_vector(name, 3, 21, 120, "NextStep")
    assert stats.successes >= 1


@pytest.mark.parametrize("mode", ["SameStep", "Disabled"])
@pytest.mark.parametrize("name", MODE_IDS)
def test_same_step_and_disabled_match_sync_vector_env(name, mode):
    stats = h.run_vector(name, 4, 31, 60, mode, max_steps=12)
    assert stats.episodes >= 4


def test_env_i_of_a_batch_is_minigrids_env_seeded_s_plus_i():
    name = "MiniGrid-DoorKey-8x8-v0"
    envs = gym.make_vec("gridsim/" + name, num_envs=5, vectorization_mode="vector_entry_point")
    envs.reset(seed=40)
    for i in range(5):
        ref = gym.make(name)
        ref.reset(seed=40 + i)
        h.compare_state(ref, envs.unwrapped.get_state(i), f"env {i}")
    envs.close()


def test_a_list_of_seeds_with_none_continues_those_streams():
    name = "MiniGrid-DoorKey-5x5-v0"
    ref = gym.make_vec(name, num_envs=3, vectorization_mode="sync")
    ours = gym.make_vec("gridsim/" + name, num_envs=3, vectorization_mode="vector_entry_point")
    ref.reset(seed=[3, 4, 5])
    ours.reset(seed=[3, 4, 5])
    for seeds in ([None, 9, None], [None, None, None], [2**64, None, 0]):
        out_ref, out_ours = ref.reset(seed=seeds), ours.reset(seed=seeds)
        assert out_ours[0]["mission"] == out_ref[0]["mission"]
        np.testing.assert_array_equal(out_ours[0]["image"], out_ref[0]["image"])
        for i in range(3):
            h.compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"seeds {seeds} env {i}")
    ref.close()
    ours.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("name", h.IDS)
def test_vector_env_matches_sync_vector_env_every_id(name, mode):
    # The id's own limit under one mode, short episodes (many autoresets) under the others.
    h.run_vector(name, 4, 100, 200, mode, max_steps=None if mode == "NextStep" else 20)


@pytest.mark.parametrize("name", ["MiniGrid-GoToDoor-5x5-v0", "MiniGrid-Dynamic-Obstacles-5x5-v0",
                                  "MiniGrid-MultiRoom-N6-v0"])
def test_an_env_injected_before_any_seed_steps_and_autoresets(name):
    # A never-seeded env's generator is all zero, a stream of zeros on which rejection sampling
    # never ends; injected and stepped, it takes its key's generator instead of hanging.
    from gridsim.errors import InvalidStateError
    from gridsim.minigrid.env import MinigridVectorEnv

    envs = MinigridVectorEnv(2, env_name=name, max_episode_steps=3)
    for i in range(2):
        envs.set_state(envs.get_state(i), i)
    for _ in range(8):  # two autoresets per env
        envs.step(np.zeros(2, np.int64))
    assert all(envs.get_state(i)["bit_generator"]["state"]["inc"] % 2 == 1 for i in range(2))
    envs.reset(seed=5)
    refused = envs.state_dict()
    refused["bitgen"] = np.zeros_like(refused["bitgen"])  # a seeded env must keep a live generator
    with pytest.raises(InvalidStateError):
        envs.load_state_dict(refused)


def test_the_single_env_of_a_level_name_is_the_ids():
    # gym.make("gridsim/Level-v0", level=...) (what gridsim check and play make) returns Minigrid's dict.
    by_name = gym.make("gridsim/Level-v0", level="minigrid:MiniGrid-DoorKey-5x5-v0")
    by_id = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0")
    for env in (by_name, by_id):
        env.action_space.seed(0)
    obs = [env.reset(seed=3)[0] for env in (by_name, by_id)]
    for _ in range(20):
        assert list(obs[0]) == list(obs[1]) == ["image", "direction", "mission"]
        assert np.array_equal(obs[0]["image"], obs[1]["image"]) and obs[0]["mission"] == obs[1]["mission"]
        assert obs[0]["direction"] == obs[1]["direction"] and isinstance(obs[0]["direction"], int)
        action = by_id.action_space.sample()
        obs = [env.step(action)[0] for env in (by_name, by_id)]
