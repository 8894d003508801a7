"""The Stable-Baselines3 integration: ``gridsim.integrations.sb3.SB3VecEnv`` and the single envs' masks.

Skipped without Stable-Baselines3 (``pip install "gridsim-vec[sb3]"``). The VecEnv checks step an
``SB3VecEnv`` and a bare gridsim env (SAME_STEP) side by side with the same seeds and actions,
and compare what SB3 sees with what the kernel wrote. The learning tests (``slow``) train PPO
and MaskablePPO on gridroboman's LiftRed and evaluate them on fresh seeds.
"""

from __future__ import annotations

import doctest
import time
import warnings

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from engine.family_cases import FAMILY_IDS, array_obs_kwargs, make_vec, obs_array, sample_actions  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor, VecNormalize  # noqa: E402

import gridsim.integrations.sb3  # noqa: E402
from gridsim.engine.vector import parse_num_threads  # noqa: E402
from gridsim.integrations.sb3 import SB3VecEnv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

LIMIT = 6  # a short episode limit, so that every rollout ends episodes and autoresets
STEPS = 40
N = 6
LIFT_RED = "gridsim/Gridroboman-LiftRed-v0"
KITCHEN = FAMILY_IDS["kitchen"][0]

# One id per family (with observations of arrays, what SB3 takes), and the kitchen's agent-rows view
# (Discrete per row instead of a joint MultiDiscrete).
ONE_PER_FAMILY = [pytest.param(ids[0], array_obs_kwargs(name), id=name) for name, ids in FAMILY_IDS.items()]
VEC_CASES = [*ONE_PER_FAMILY, pytest.param(KITCHEN, {"agent_rows": True}, id="kitchen-agent_rows")]


def pair(env_id: str, num_envs: int = N, **kwargs):
    """An SB3VecEnv and a bare gridsim env (SAME_STEP) built alike."""
    kwargs = {"max_episode_steps": LIMIT, "autoreset_mode": "SameStep", **kwargs}
    return SB3VecEnv(make_vec(env_id, num_envs, **kwargs)), make_vec(env_id, num_envs, **kwargs)


def assert_sb3_obs(obs, space: gym.Space, n: int):
    """SB3's observations of ``space`` for n envs: an (n, ...) array, or for a Dict a dict of them."""
    if not isinstance(space, gym.spaces.Dict):
        assert obs.shape == (n, *space.shape) and obs.dtype == space.dtype
        return
    assert isinstance(obs, dict) and set(obs) == set(space.spaces)
    for key, part in space.spaces.items():
        value = obs[key]
        assert isinstance(value, np.ndarray) and value.shape == (n, *part.shape) and value.dtype == part.dtype, key


# ----------------------------------------------------------------------------- single envs


@pytest.mark.parametrize(("env_id", "kwargs"), ONE_PER_FAMILY)
def test_sb3_check_env_passes_on_the_single_env(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    with warnings.catch_warnings():
        # SB3 warns that a uint8 (H, W, C) observation is not a CnnPolicy image (the kitchens): advice only.
        warnings.filterwarnings("ignore", message=".*(image|resolution).*", category=UserWarning)
        check_env(env, warn=True)
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), ONE_PER_FAMILY)
def test_single_env_masks_are_found_through_gymnasium_wrappers(env_id, kwargs):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gym.make(env_id, **kwargs)  # OrderEnforcing(PassiveEnvChecker(...)), maybe TimeLimit
    assert is_masking_supported(env)
    env.reset(seed=0)
    masks = get_action_masks(env)
    space = env.action_space
    width = space.n if isinstance(space, gym.spaces.Discrete) else int(space.nvec.sum())
    assert masks.dtype == np.bool_ and masks.shape == (width,)
    np.testing.assert_array_equal(masks, env.unwrapped.action_masks())
    env.close()


def test_roboman_single_env_masks_invert_info_action_mask():
    env = gym.make(LIFT_RED)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = env.get_wrapper_attr("action_masks")()
        np.testing.assert_array_equal(masks, info["action_mask"] == 0)
        _, _, _, _, info = env.step(int(rng.integers(7)))
    env.close()


# --------------------------------------------------------------------------- the VecEnv contract


@pytest.mark.parametrize(("env_id", "kwargs"), VEC_CASES)
def test_vecenv_reset_and_step_agree_with_the_kernel(env_id, kwargs):
    venv, ref = pair(env_id, **kwargs)
    assert isinstance(venv, VecEnv) and venv.num_envs == N
    assert venv.observation_space == ref.single_observation_space
    assert venv.action_space == ref.single_action_space
    assert venv.seed(3) == [3 + i for i in range(N)]
    obs = venv.reset()
    ref_obs, _ = ref.reset(seed=3)
    assert_sb3_obs(obs, venv.observation_space, N)
    np.testing.assert_array_equal(obs_array(obs), obs_array(ref_obs))
    ended_any = False
    for a in sample_actions(ref, STEPS, seed=4):
        obs, rewards, dones, infos = venv.step(a)
        ref_obs, ref_rewards, term, trunc, ref_infos = ref.step(a)
        assert_sb3_obs(obs, venv.observation_space, N)
        assert obs_array(obs).dtype == obs_array(ref_obs).dtype
        assert rewards.shape == (N,) and rewards.dtype == np.float32
        assert dones.shape == (N,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == N and all(isinstance(i, dict) for i in infos)
        np.testing.assert_array_equal(obs_array(obs), obs_array(ref_obs))  # the next episode's first where done
        np.testing.assert_array_equal(rewards, ref_rewards.astype(np.float32))  # (float64 families: cast)
        np.testing.assert_array_equal(dones, term | trunc)
        for i, info in enumerate(infos):
            assert info["TimeLimit.truncated"] == bool(trunc[i] and not term[i])
            assert ("terminal_observation" in info) == bool(dones[i])
            assert ("episode" in info) == bool(dones[i])
            if not dones[i]:
                continue
            ended_any = True
            final = ref_infos["final_obs"][i]
            assert obs_array(info["terminal_observation"]).dtype == obs_array(final).dtype
            np.testing.assert_array_equal(obs_array(info["terminal_observation"]), obs_array(final))
            stats = ref_infos["final_info"]["episode_stats"]
            assert info["episode"]["r"] == pytest.approx(float(stats["return"][i]))
            assert info["episode"]["l"] == int(stats["length"][i])
            if "success" in stats:
                assert info["is_success"] == bool(stats["success"][i])
    assert ended_any
    venv.close()
    ref.close()


def test_vecenv_step_infos_are_the_terminal_steps_and_reset_infos_the_new_episodes():
    venv, ref = pair(LIFT_RED)
    venv.seed(5)
    venv.reset()
    ref.reset(seed=5)
    for i, info in enumerate(venv.reset_infos):
        np.testing.assert_array_equal(info["action_mask"], ref.state.action_mask[i])
    for a in sample_actions(ref, STEPS, seed=6):
        _, _, dones, infos = venv.step(a)
        _, _, _, _, ref_infos = ref.step(a)
        for i, info in enumerate(infos):
            if dones[i]:  # the terminal step's mask; the new episode's is in reset_infos
                np.testing.assert_array_equal(info["action_mask"], ref_infos["final_info"]["action_mask"][i])
                np.testing.assert_array_equal(venv.reset_infos[i]["action_mask"], ref_infos["action_mask"][i])
            else:
                np.testing.assert_array_equal(info["action_mask"], ref_infos["action_mask"][i])
    venv.close()


def test_vecenv_action_masks_agree_with_roboman_infos():
    venv = SB3VecEnv.make(LIFT_RED, N)
    venv.seed(0)
    venv.reset()
    masks = venv.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (N, 7)
    for i in range(N):
        np.testing.assert_array_equal(masks[i], venv.reset_infos[i]["action_mask"] == 0)
    rng = np.random.default_rng(1)
    for _ in range(STEPS):
        _, _, dones, infos = venv.step(rng.integers(0, 7, N))
        masks = venv.action_masks()
        for i in range(N):  # the current state: the new episode's where an episode ended
            current = venv.reset_infos[i] if dones[i] else infos[i]
            np.testing.assert_array_equal(masks[i], current["action_mask"] == 0)
        rows = venv.env_method("action_masks", indices=[1, 3])
        np.testing.assert_array_equal(np.stack(rows), masks[[1, 3]])
    venv.close()


@pytest.mark.parametrize(("env_id", "kwargs"), VEC_CASES)
def test_vecenv_action_masks_are_all_true_where_every_action_is_legal(env_id, kwargs):
    venv, ref = pair(env_id, **kwargs)
    space = venv.action_space
    width = space.n if isinstance(space, gym.spaces.Discrete) else int(space.nvec.sum())
    venv.seed(3)
    venv.reset()
    ref.reset(seed=3)
    masks = venv.action_masks()
    assert masks.shape == (N, width) and masks.dtype == np.bool_
    assert venv.has_attr("action_masks")
    own = getattr(ref, "action_masks", None)  # a family whose actions may be illegal has its own masks
    if own is None:
        assert masks.all()
    else:
        np.testing.assert_array_equal(masks, own())
    venv.close()


def test_vecenv_seeds_apply_at_the_next_reset_only():
    venv, ref = pair(LIFT_RED)
    venv.seed(11)
    obs1, obs2 = venv.reset(), venv.reset()
    ref1, _ = ref.reset(seed=11)
    ref2, _ = ref.reset()  # every env continues with its next episode
    np.testing.assert_array_equal(obs1, ref1)
    np.testing.assert_array_equal(obs2, ref2)
    venv.close()


def test_vecenv_options_apply_at_the_next_reset_also_per_env():
    env_id = FAMILY_IDS["nav"][0]
    venv, ref = pair(env_id)
    starts = ref.reset(seed=0)[0]  # coords (row, col): cells where an episode may start
    a, b = tuple(starts[0]), tuple(starts[1])
    venv.set_options({"start": a})
    np.testing.assert_array_equal(venv.reset(), np.tile(a, (N, 1)))
    venv.set_options([{"start": a} if i % 2 else {"start": b} for i in range(N)])
    np.testing.assert_array_equal(venv.reset(), [a if i % 2 else b for i in range(N)])
    venv.seed(0)  # the options were used once: this reset draws its starts again
    np.testing.assert_array_equal(venv.reset(), starts)
    venv.close()


def test_vecenv_get_attr_set_attr_env_method_seed():
    venv = SB3VecEnv.make(LIFT_RED, 4)
    grid = venv.envs
    assert venv.get_attr("num_envs") == [4] * 4
    assert venv.get_attr("obs_type", indices=[0, 2]) == ["vector", "vector"]
    assert venv.has_attr("tasks") and not venv.has_attr("no_such_attribute")
    threads = parse_num_threads("auto")  # 1 in a build without threads
    venv.set_attr("num_threads", "auto")
    assert grid.kernel.num_threads == threads and venv.get_attr("num_threads") == [threads] * 4
    venv.set_attr("num_threads", threads, indices=[1])  # already the batch's value
    with pytest.raises(ValueError, match="shared by the batch"):
        venv.set_attr("num_threads", threads + 1, indices=[1])
    venv.seed(2)
    venv.reset()
    assert venv.env_method("get_state", indices=[1, 3]) == [grid.get_state(1), grid.get_state(3)]
    assert venv.env_method("get_task") == ["LiftRed"] * 4
    assert venv.env_method("compiled_level", indices=0) == [grid.compiled_level()]
    assert venv.env_is_wrapped(Monitor) == [False] * 4
    with pytest.raises(IndexError):
        venv.get_attr("num_envs", indices=[4])
    venv.close()


def test_vecmonitor_and_vecnormalize_wrap_it():
    venv, _ = pair(LIFT_RED)
    monitored, _ = pair(LIFT_RED)
    wrapped = VecNormalize(VecMonitor(monitored), norm_reward=True)
    for v in (venv, wrapped):
        v.seed(8)
    venv.reset()
    obs = wrapped.reset()
    assert obs.shape == (N, 11) and obs.dtype == np.float32
    episodes = 0
    for a in sample_actions(monitored.envs, STEPS, seed=9):
        _, _, dones, infos = venv.step(a)
        w_obs, w_rewards, w_dones, w_infos = wrapped.step(a)
        assert w_obs.shape == (N, 11) and np.isfinite(w_obs).all() and np.isfinite(w_rewards).all()
        np.testing.assert_array_equal(w_dones, dones)
        for i in np.flatnonzero(dones):  # VecMonitor's own sums equal the kernel's statistics
            assert w_infos[i]["episode"]["r"] == pytest.approx(infos[i]["episode"]["r"])
            assert w_infos[i]["episode"]["l"] == infos[i]["episode"]["l"]
            # VecNormalize normalizes the terminal observation too
            assert w_infos[i]["terminal_observation"].shape == (11,)
            episodes += 1
    assert episodes
    np.testing.assert_array_equal(wrapped.get_attr("num_envs"), [N] * N)
    assert wrapped.env_method("action_masks")[0].shape == (7,)
    wrapped.close()
    venv.close()


def test_episode_info_without_the_kernel_statistics_is_summed_alike():
    with_stats, _ = pair(LIFT_RED)
    without, _ = pair(LIFT_RED, episode_stats=False)
    for v in (with_stats, without):
        v.seed(4)
        v.reset()
    ended = 0
    for a in sample_actions(with_stats.envs, STEPS, seed=5):
        _, _, dones, infos = with_stats.step(a)
        _, _, dones2, infos2 = without.step(a)
        np.testing.assert_array_equal(dones, dones2)
        for i in np.flatnonzero(dones):
            assert infos2[i]["episode"]["r"] == pytest.approx(infos[i]["episode"]["r"])
            assert infos2[i]["episode"]["l"] == infos[i]["episode"]["l"]
            ended += 1
    assert ended


def test_reused_buffers_are_copied_for_sb3():
    venv, _ = pair(LIFT_RED, copy=False)
    obs = venv.reset()
    kept = obs.copy()
    step_obs, rewards, _, _ = venv.step(np.ones(N, np.int64))
    np.testing.assert_array_equal(obs, kept)  # SB3 still holds the reset observations
    kept_step, kept_rewards = step_obs.copy(), rewards.copy()
    venv.step(np.full(N, 2, np.int64))
    np.testing.assert_array_equal(step_obs, kept_step)
    np.testing.assert_array_equal(rewards, kept_rewards)
    venv.close()


def test_fresh_arrays_every_step_without_a_copy():
    venv, _ = pair(LIFT_RED)
    obs0 = venv.reset()
    obs1 = venv.step(np.ones(N, np.int64))[0]
    obs2 = venv.step(np.ones(N, np.int64))[0]
    assert not np.shares_memory(obs1, obs2) and not np.shares_memory(obs0, obs1)
    venv.close()


def test_vecenv_renders_every_env():
    venv = SB3VecEnv.make(LIFT_RED, 4, render_mode="rgb_array", cell_px=4)
    venv.reset()
    images = venv.get_images()
    assert len(images) == 4 and all(im.shape == (28, 28, 3) and im.dtype == np.uint8 for im in images)
    assert venv.render().shape == (56, 56, 3)  # 2 x 2 tiles
    venv.close()


@pytest.mark.parametrize("family", [name for name in FAMILY_IDS if array_obs_kwargs(name)])
def test_observations_with_parts_that_are_not_arrays_are_refused(family):
    with pytest.raises(ValueError, match="SB3 takes observations of arrays"):
        SB3VecEnv(make_vec(FAMILY_IDS[family][0], 2, autoreset_mode="SameStep"))


def test_other_autoreset_modes_and_other_envs_are_refused():
    with pytest.raises(ValueError, match="autoreset_mode='SameStep'"):
        SB3VecEnv(make_vec(LIFT_RED, 2))  # NEXT_STEP, the default
    with pytest.raises(ValueError, match="SameStep"):
        SB3VecEnv(make_vec(LIFT_RED, 2, autoreset_mode="Disabled"))
    with pytest.raises(ValueError, match="SameStep"):
        SB3VecEnv.make(LIFT_RED, 2, autoreset_mode="NextStep")
    with pytest.raises(TypeError, match="gridsim vector env"):
        SB3VecEnv(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))


def test_docstring_example_runs():
    result = doctest.testmod(gridsim.integrations.sb3, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------------------- algorithms


@pytest.mark.parametrize("env_id", [LIFT_RED, KITCHEN], ids=["Discrete", "MultiDiscrete"])
def test_ppo_and_maskable_ppo_run_on_it(env_id):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    kwargs = {"obs_type": "features"} if env_id == KITCHEN else {}
    for algo in (PPO, MaskablePPO):
        venv = SB3VecEnv.make(env_id, 4, max_episode_steps=LIMIT, **kwargs)
        model = algo("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
        model.learn(64)
        assert model.num_timesteps == 64 and len(model.ep_info_buffer) > 0
        venv.close()


# ---------------------------------------------------------------------------------- learning

# PPO and MaskablePPO on LiftRed: SB3's defaults except a shorter rollout and smaller batches
# (32 envs x 128 steps, minibatches of 256). On 2 cores each learns in about half a minute
# and reaches 0.98-1.0 success on 200 fresh episodes (seeds 0-3).
TRAIN_STEPS = 200_000
LEARN = {"n_steps": 128, "batch_size": 256, "n_epochs": 10, "learning_rate": 3e-4, "ent_coef": 0.0,
         "gamma": 0.99, "seed": 0, "device": "cpu"}


def success_rate(model, episodes: int, seed: int, masked: bool) -> float:
    """The deterministic policy's success over the first episode of ``episodes`` envs seeded ``seed + i``."""
    venv = SB3VecEnv.make(LIFT_RED, episodes)
    venv.seed(seed)
    obs = venv.reset()
    finished = np.zeros(episodes, np.bool_)
    success = np.zeros(episodes, np.bool_)
    while not finished.all():
        masks = {"action_masks": venv.action_masks()} if masked else {}
        actions, _ = model.predict(obs, deterministic=True, **masks)
        obs, _, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones & ~finished):
            success[i] = infos[i]["is_success"]
        finished |= dones
    venv.close()
    return float(success.mean())


@pytest.mark.slow
@pytest.mark.parametrize("algo_name", ["PPO", "MaskablePPO"])
def test_lift_red_is_learned_to_90_percent_success_in_200k_steps(algo_name, record_property):
    import torch

    if algo_name == "PPO":
        from stable_baselines3 import PPO as algo
    else:
        algo = pytest.importorskip("sb3_contrib").MaskablePPO
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the envs and a small MLP: more threads only add overhead
    try:
        venv = SB3VecEnv.make(LIFT_RED, 32)
        model = algo("MlpPolicy", venv, **LEARN)
        start = time.perf_counter()
        model.learn(TRAIN_STEPS)
        wall = time.perf_counter() - start
        venv.close()
        rate = success_rate(model, episodes=200, seed=1_000_000, masked=algo_name == "MaskablePPO")
    finally:
        torch.set_num_threads(threads)
    record_property("success_rate", rate)
    record_property("train_wall_s", round(wall, 1))
    print(f"{algo_name}: {TRAIN_STEPS} steps in {wall:.1f} s, success {rate:.3f} on 200 fresh episodes")
    assert rate >= 0.9
