"""Determinism in both directions and across batch sizes.

* The same seed gives identical rollouts; a different seed gives a different one
  wherever the env has randomness (noisy tables, several starts, stochastic symbols,
  randomized goals).
* Env i seeded s follows the same trajectory in a batch of 1, 7 or 256, under a
  ``reset_mask``, whatever the copy mode, and over a ``SyncVectorEnv`` of facades:
  per-env streams keyed by (seed, episode), never by the batch index.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from family_cases import cases_by_family, ids_by_family, rollout

import gridsim
from gridsim.envs import NavEnv, NavVectorEnv

# Every registered id runs, older versions beside newer ones (Gymnasium's notice for those).
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

PIXELWORLD_IDS = ["gridsim/PixelWorld-room1_small-v0", "gridsim/PixelWorld-room2_small-v0",
                  "gridsim/PixelWorld-room3_small-v0", "gridsim/PixelWorld-room4_small-v0",
                  "gridsim/PixelWorld-room5_medium-v0", "gridsim/PixelWorld-room5_medium_walls-v0"]
NOISY_IDS = PIXELWORLD_IDS[1:]
# Every family pins its own count (ID_COUNT in tests/<family>/cases.py), plus gridsim/Level-v0.
EXPECTED_REGISTRY_SIZE = sum(cases_by_family("ID_COUNT").values()) + 1

# Every source of randomness at once: several starts, three goals picked per
# episode, a stochastic symbol, a collectible, and the noisy alphabet's table.
CHAOS = """%gridsim 1
[legend]
x = reward=normal(0, 2) stochastic color=200,0,200
c = reward=uniform(1, 3) collectible color=255,215,0
[map]
#########
#S  x  0#
#  ##c  #
#S x  c #
#0  ## S#
#   x  0#
#########
"""


def assert_rollouts_equal(a: dict, b: dict, rows_a=slice(None), rows_b=slice(None), msg=""):
    for k in ("obs", "rewards", "terminations", "truncations"):
        x, y = a[k][:, rows_a], b[k][:, rows_b]
        assert x.dtype == y.dtype, f"{msg}{k}: dtype {x.dtype} != {y.dtype}"
        np.testing.assert_array_equal(x, y, err_msg=f"{msg}{k}")
    np.testing.assert_array_equal(a["reset_obs"][rows_a], b["reset_obs"][rows_b],
                                  err_msg=f"{msg}reset_obs")


def random_actions(space_n: int, steps: int, n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, space_n, size=(steps, n), dtype=np.int64)


def chaos(num_envs: int, **kw) -> NavVectorEnv:
    kw.setdefault("max_episode_steps", 12)
    return NavVectorEnv(num_envs, world_map=CHAOS, alphabet="noisy", randomize_goals=True, **kw)


# --------------------------------------------------------------------------- registry


def test_registry_size_is_pinned():
    ids = gridsim.registered_ids()
    pinned = cases_by_family("ID_COUNT")
    counts = ", ".join(f"{name} registers {len(family_ids)} and pins {pinned.get(name, 'none')}"
                       for name, family_ids in ids_by_family().items())
    assert len(ids) == EXPECTED_REGISTRY_SIZE, (
        f"{len(ids)} registered ids, expected {EXPECTED_REGISTRY_SIZE}: gridsim/Level-v0 and the ids each family pins "
        f"(ID_COUNT in tests/<family>/cases.py): {counts}"
    )
    assert set(PIXELWORLD_IDS) <= set(ids)


@pytest.mark.parametrize("env_id", gridsim.registered_ids())
def test_same_seed_gives_identical_rollouts(env_id):
    runs = []
    for _ in range(2):
        envs = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
        envs.action_space.seed(1)
        actions = np.stack([envs.action_space.sample() for _ in range(250)]).astype(np.int64)
        runs.append(rollout(envs, actions, seed=123))
        envs.close()
    assert_rollouts_equal(runs[0], runs[1])


@pytest.mark.parametrize("env_id", NOISY_IDS)
def test_different_seed_gives_a_different_rollout_with_noisy_rewards(env_id):
    actions = random_actions(4, 100, 4, seed=2)
    envs = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
    a = rollout(envs, actions, seed=1000)
    b = rollout(envs, actions, seed=2000)
    envs.close()
    np.testing.assert_array_equal(a["obs"], b["obs"])  # one start: same path
    assert (a["rewards"] != b["rewards"]).any(axis=0).all()  # every row's rewards differ


def test_navigation_alphabet_with_one_start_ignores_the_seed():
    """PixelWorld-room1_small-v0 is fully deterministic: the seed changes nothing."""
    actions = random_actions(4, 200, 3, seed=3)
    envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert_rollouts_equal(rollout(envs, actions, seed=1), rollout(envs, actions, seed=99))
    envs.close()


def test_different_seed_gives_a_different_start_with_several_starts():
    envs = chaos(8)
    obs_a, _ = envs.reset(seed=0)
    starts_a = [envs.get_state(i)["pos"] for i in range(8)]
    obs_b, _ = envs.reset(seed=500)
    starts_b = [envs.get_state(i)["pos"] for i in range(8)]
    assert starts_a != starts_b
    actions = random_actions(4, 60, 8, seed=4)
    a, b = rollout(envs, actions, 0), rollout(envs, actions, 500)
    for k in ("obs", "rewards"):
        assert (a[k] != b[k]).any()


def test_different_mixer_seed_gives_a_different_rollout():
    actions = random_actions(4, 60, 4, seed=5)
    a = rollout(chaos(4, mixer_seed=0), actions, 7)
    b = rollout(chaos(4, mixer_seed=1), actions, 7)
    c = rollout(chaos(4, mixer_seed=1), actions, 7)
    assert (a["rewards"] != b["rewards"]).any()
    assert_rollouts_equal(b, c)


def test_facade_same_seed_identical_different_seed_differs():
    def play(seed):
        env = NavEnv(world_map=CHAOS, alphabet="noisy", randomize_goals=True)
        out = [env.reset(seed=seed)[0].tolist()]
        for a in random_actions(4, 80, 1, seed=6)[:, 0]:
            obs, rew, term, trunc, _ = env.step(int(a))
            out.append((obs.tolist(), rew, term, trunc))
        env.close()
        return out

    assert play(3) == play(3)
    assert play(3) != play(4)


# --------------------------------------------------------------------------- across batch sizes


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("obs_type", ["coords", "image"])
def test_row_trajectory_is_independent_of_batch_size(mode, obs_type):
    """Env i seeded s: the same trajectory in batches of 1, 7 and 256, across autoresets."""
    s, steps = 77, 150
    actions = random_actions(4, steps, 256, seed=8)
    kw = dict(autoreset_mode=mode, obs_type=obs_type)
    big_env = chaos(256, **kw)
    big = rollout(big_env, actions, s)
    mid_env = chaos(7, **kw)
    mid = rollout(mid_env, actions[:, :7], s)
    assert_rollouts_equal(big, mid, slice(0, 7), slice(None), msg="batch 256 vs 7: ")
    for i in range(7):
        assert big_env.get_state(i) == mid_env.get_state(i)
    ended = (big["terminations"] | big["truncations"]).sum(axis=0)
    assert ended.min() >= 5  # every row went through several autoresets
    for i in (0, 1, 6, 100, 255):
        one_env = chaos(1, **kw)
        one = rollout(one_env, actions[:, i : i + 1], s + i)
        assert_rollouts_equal(big, one, slice(i, i + 1), slice(None), msg=f"row {i} vs batch 1: ")
        assert one_env.get_state(0) == big_env.get_state(i)


def test_autoreset_episodes_follow_the_row_stream_regardless_of_batch_size():
    """After k autoresets a row is in episode k of its own key, in any batch."""
    actions = random_actions(4, 200, 64, seed=9)
    big_env = chaos(64, max_episode_steps=5)
    rollout(big_env, actions, 10)
    for i in (0, 13, 63):
        one_env = chaos(1, max_episode_steps=5)
        one = rollout(one_env, actions[:, i : i + 1], 10 + i)
        state = one_env.get_state(0)
        ends = (one["terminations"] | one["truncations"])[:, 0]
        # NEXT_STEP: every end but a final pending one has started a new episode.
        assert state["episode"] == ends.sum() - int(state["needs_reset"])
        assert state == big_env.get_state(i)


def test_list_seeds_equal_int_seed_offsets():
    actions = random_actions(4, 80, 5, seed=10)
    a = rollout(chaos(5), actions, 30)
    b = rollout(chaos(5), actions, [30, 31, 32, 33, 34])
    assert_rollouts_equal(a, b)
    c = rollout(chaos(5), actions[:, ::-1].copy(), [34, 33, 32, 31, 30])
    assert_rollouts_equal(a, c, slice(None), slice(None, None, -1))


@pytest.mark.parametrize("reset_seed", [None, 900, "list"])
def test_row_trajectory_is_unchanged_by_a_reset_mask_on_other_rows(reset_seed):
    """A masked reset touches only the masked rows; they then follow their own seed."""
    s, n, t1, t2 = 50, 7, 40, 80
    actions = random_actions(4, t1 + t2, n, seed=11)
    mask = np.array([True, False, False, True, False, True, False])
    seed = [1000 + i for i in range(n)] if reset_seed == "list" else reset_seed

    plain = rollout(chaos(n), actions, s)

    envs = chaos(n)
    first = rollout(envs, actions[:t1], s)
    obs_mid, _ = envs.reset(seed=seed, options={"reset_mask": mask})
    second = {"obs": [], "rewards": [], "terminations": [], "truncations": []}
    for a in actions[t1:]:
        for k, v in zip(second, envs.step(a)[:4], strict=True):
            second[k].append(np.array(v, copy=True))
    second = {k: np.stack(v) for k, v in second.items()}

    # Unmasked rows: the mask changed nothing.
    keep = ~mask
    np.testing.assert_array_equal(obs_mid[keep], first["obs"][-1][keep])
    for k in second:
        np.testing.assert_array_equal(first[k][:, keep], plain[k][:t1, keep])
        np.testing.assert_array_equal(second[k][:, keep], plain[k][t1:, keep])

    # Masked rows: the same as a batch of 1 that was reset the same way.
    for i in np.flatnonzero(mask):
        one = chaos(1)
        rollout(one, actions[:t1, i : i + 1], s + i)
        if reset_seed is None:
            obs1, _ = one.reset()
        else:
            obs1, _ = one.reset(seed=seed + i if isinstance(seed, int) else seed[i])
        np.testing.assert_array_equal(obs1[0], obs_mid[i])
        for t, a in enumerate(actions[t1:, i : i + 1]):
            obs, rew, term, trunc, _ = one.step(a)
            np.testing.assert_array_equal(obs[0], second["obs"][t, i])
            assert rew[0] == second["rewards"][t, i]
            assert term[0] == second["terminations"][t, i]
            assert trunc[0] == second["truncations"][t, i]
        assert one.get_state(0) == envs.get_state(int(i))


def test_copy_false_gives_the_same_rollout():
    actions = random_actions(4, 100, 6, seed=12)
    assert_rollouts_equal(rollout(chaos(6), actions, 3), rollout(chaos(6, copy=False), actions, 3))


def test_sync_vector_env_of_facades_gives_the_native_trajectories():
    """The backend does not matter: SyncVectorEnv over NavEnv facades == NavVectorEnv."""
    n, s = 3, 60
    actions = random_actions(4, 120, n, seed=13)
    native = rollout(chaos(n, max_episode_steps=10), actions, s)
    sync = gym.vector.SyncVectorEnv([
        lambda: NavEnv(world_map=CHAOS, alphabet="noisy", randomize_goals=True,
                       max_episode_steps=10)
        for _ in range(n)
    ])
    other = rollout(sync, actions, s)
    sync.close()
    np.testing.assert_array_equal(native["reset_obs"], other["reset_obs"])
    np.testing.assert_array_equal(native["obs"], other["obs"])
    np.testing.assert_array_equal(native["rewards"], other["rewards"].astype(np.float32))
    np.testing.assert_array_equal(native["rewards"].astype(np.float64), other["rewards"])
    np.testing.assert_array_equal(native["terminations"], other["terminations"])
    np.testing.assert_array_equal(native["truncations"], other["truncations"])


def test_continuous_actions_rollout_is_deterministic_across_batch_sizes():
    rng = np.random.default_rng(14)
    actions = rng.uniform(-1, 1, size=(100, 9, 2)).astype(np.float32)
    kw = dict(actions="2d_continuous")
    big = rollout(chaos(9, **kw), actions, 5)
    for i in (0, 8):
        one = rollout(chaos(1, **kw), actions[:, i : i + 1].copy(), 5 + i)
        assert_rollouts_equal(big, one, slice(i, i + 1), slice(None), msg=f"row {i}: ")
