"""The single-env view ``NavEnv`` and the registry (gymnasium_vector.md sections 9 and 10)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from family_cases import family_of_id
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import SyncVectorEnv
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, TimeLimit

import gridsim
from gridsim import InvalidActionError, NavEnv, NavVectorEnv
from gridsim.levels import builtin_level_names
from gridsim.nav.env import BUILTIN_META, DEFAULT_MAX_STEPS

CORRIDOR = "#####\n#S 0#\n#####"
MULTI_START = "#######\n#S S S#\n#     #\n#S  0 #\n#######"

PIXELWORLD_IDS = ["gridsim/PixelWorld-room1_small-v0", "gridsim/PixelWorld-room2_small-v0",
                  "gridsim/PixelWorld-room3_small-v0", "gridsim/PixelWorld-room4_small-v0",
                  "gridsim/PixelWorld-room5_medium-v0", "gridsim/PixelWorld-room5_medium_walls-v0"]
# Each map's step limit: its own (the listing tests/nav/test_nav_ids.py checks against the files), else 100.
NAV_LIMITS = {stem: int(BUILTIN_META.get(stem, {}).get("max_episode_steps", DEFAULT_MAX_STEPS))
              for stem in (name.split("/", 1)[1] for name in builtin_level_names("nav"))}
NAV_IDS = [f"gridsim/Nav-{name}-v0" for name in NAV_LIMITS]
ALL_IDS = sorted(PIXELWORLD_IDS + NAV_IDS)


# The original's ids number its maps as versions: each is an alias of a descriptive id.
PIXELWORLD_ALIASES = {f"gridsim/PixelWorld-v{version}": env_id for version, env_id in enumerate(PIXELWORLD_IDS)}


def messages(caught) -> list[str]:
    return [str(w.message) for w in caught]


# ---------------------------------------------------------------------------------- registry


def test_registry_size_is_pinned():
    ids = [i for i in gridsim.registered_ids() if family_of_id(i) == "nav"]
    assert len(ids) == 16
    assert ids == ALL_IDS


def test_original_pixelworld_ids_make_the_same_envs():
    assert {k: v for k, v in gridsim.registry.ALIASES.items() if "PixelWorld" in k} == PIXELWORLD_ALIASES
    assert set(PIXELWORLD_ALIASES) <= set(gridsim.registered_ids(aliases=True))
    for old, new in PIXELWORLD_ALIASES.items():
        assert gym.spec(old).kwargs == gym.spec(new).kwargs
        assert gym.spec(old).max_episode_steps == gym.spec(new).max_episode_steps == 100
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*is out of date")  # Gymnasium's notice: v5 exists
        old_envs = gym.make_vec("gridsim/PixelWorld-v3", num_envs=3)
    new_envs = gym.make_vec("gridsim/PixelWorld-room4_small-v0", num_envs=3)
    for envs in (old_envs, new_envs):
        envs.reset(seed=5)
    for _ in range(20):
        old = old_envs.step(np.array([0, 1, 2]))
        new = new_envs.step(np.array([0, 1, 2]))
        np.testing.assert_array_equal(old[0], new[0])
        np.testing.assert_array_equal(old[1], new[1])
    old_envs.close()
    new_envs.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_registered_spec_has_both_entry_points_and_limit(env_id):
    spec = gym.spec(env_id)
    assert spec.entry_point == "gridsim.nav.env:NavEnv"
    assert spec.vector_entry_point == "gridsim.nav.env:NavVectorEnv"
    if env_id in PIXELWORLD_IDS:
        assert spec.max_episode_steps == 100
        alphabet = "navigation" if env_id == "gridsim/PixelWorld-room1_small-v0" else "noisy"
        assert spec.kwargs["alphabet"] == alphabet
    else:
        assert spec.max_episode_steps == NAV_LIMITS[env_id.split("-")[1]]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env_passes_for_every_registered_id(env_id):
    env = gym.make(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert messages(caught) == []
    env.close()


VARIANTS = {
    "image_last": {"obs_type": "image", "pixels_per_cell": 2},
    "image_first": {"obs_type": "image", "pixels_per_cell": 2, "channels_first": True},
    "view": {"obs_type": "view", "view_size": 5},
    "horizontal": {"actions": "1d_horizontal"},
    "vertical": {"actions": "1d_vertical"},
    "continuous": {"actions": "2d_continuous"},
    "continuous_image": {"actions": "2d_continuous", "obs_type": "image"},
    "noisy_multi_start": {"level": None, "world_map": MULTI_START, "alphabet": "noisy"},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_check_env_passes_for_obs_and_action_variants(variant):
    kwargs = {"level": "nav/room2_small", **VARIANTS[variant]}
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    # An unregistered spec lets check_env test every render mode through spec.make().
    spec = EnvSpec(f"gridsim/Variant-{variant}-v0", entry_point="gridsim.envs:NavEnv",
                   kwargs=kwargs)
    env = gym.make(spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert messages(caught) == []
    # And directly, without a spec, in a render mode.
    direct = NavEnv(render_mode="rgb_array", **kwargs)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not having a spec")
        check_env(direct)
    direct.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_id_constructs_from_another_working_directory(env_id, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and info == {}
    env.step(env.action_space.sample())
    env.close()
    envs = gym.make_vec(env_id, num_envs=2)
    obs, _ = envs.reset(seed=0)
    assert obs in envs.observation_space
    envs.step(envs.action_space.sample())
    envs.close()


def test_module_prefixed_id_imports_gridsim():
    env = gym.make("gridsim:gridsim/PixelWorld-room5_medium_walls-v0")
    assert isinstance(env.unwrapped, NavEnv)
    env.close()


@pytest.mark.parametrize("env_id", PIXELWORLD_IDS)
def test_make_wraps_pixelworld_ids_in_time_limit_100(env_id):
    env = gym.make(env_id)
    assert type(env) is TimeLimit and env._max_episode_steps == 100
    assert type(env.env) is OrderEnforcing and type(env.env.env) is PassiveEnvChecker
    assert type(env.unwrapped) is NavEnv
    env.reset(seed=0)
    # 'left' from S at column 1 bumps the wall: no episode end before the limit.
    for t in range(1, 101):
        _, _, term, trunc, _ = env.step(3)
        assert not term
        assert trunc == (t == 100), t
    env.close()


def test_make_max_episode_steps_overrides_the_limit():
    env = gym.make("gridsim/PixelWorld-room5_medium_walls-v0", max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(3)[3] for _ in range(5)]
    assert flags == [False, False, False, False, True]


def test_facade_does_not_truncate_by_itself():
    env = gym.make("gridsim/PixelWorld-room1_small-v0").unwrapped
    env.reset(seed=0)
    for _ in range(150):
        _, reward, term, trunc, _ = env.step(3)
        assert (reward, term, trunc) == (-1.0, False, False)


def test_facade_with_max_episode_steps_truncates():
    env = NavEnv(level="nav/room1_small", max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(3)[3] for _ in range(5)]
    assert flags == [False, False, False, False, True]


def test_make_vec_passes_spec_limit_and_caller_kwargs():
    envs = gym.make_vec("gridsim/PixelWorld-room5_medium_walls-v0", num_envs=2)
    assert type(envs) is NavVectorEnv and envs.max_episode_steps == 100
    envs.close()
    envs = gym.make_vec("gridsim/PixelWorld-room5_medium_walls-v0", num_envs=2, max_episode_steps=7,
                        obs_type="image")
    assert envs.max_episode_steps == 7 and envs.single_observation_space.shape == (10, 10, 3)
    envs.close()


def test_make_vec_sync_mode_matches_vector_entry_point():
    actions = np.random.default_rng(0).integers(0, 4, (130, 3))
    native = gym.make_vec("gridsim/PixelWorld-room2_small-v0", num_envs=3)
    sync = gym.make_vec("gridsim/PixelWorld-room2_small-v0", num_envs=3, vectorization_mode="sync")
    assert type(sync) is SyncVectorEnv
    a, _ = native.reset(seed=[5, 500, 5000])
    b, _ = sync.reset(seed=[5, 500, 5000])
    np.testing.assert_array_equal(a, b)
    ends = 0
    for act in actions:
        na = native.step(act)
        sy = sync.step(act)
        np.testing.assert_array_equal(na[0], sy[0])
        np.testing.assert_array_equal(na[1].astype(np.float64), sy[1])
        np.testing.assert_array_equal(na[2], sy[2])
        np.testing.assert_array_equal(na[3], sy[3])
        ends += int((na[2] | na[3]).sum())
    assert ends >= 3  # the 100-step limit at least
    native.close()
    sync.close()


# ------------------------------------------------------------------------------------ facade


def test_facade_returns_python_scalars_and_fresh_arrays():
    env = NavEnv(world_map=CORRIDOR)
    obs0, info0 = env.reset(seed=0)
    assert type(obs0) is np.ndarray and obs0.dtype == np.int32 and obs0.shape == (2,)
    assert info0 == {}
    outs = [env.step(1), env.step(3), env.step(1), env.step(1)]
    for obs, reward, term, trunc, info in outs:
        assert type(obs) is np.ndarray and obs.dtype == np.int32 and obs.shape == (2,)
        assert type(reward) is float and type(term) is bool and type(trunc) is bool
        assert type(info) is dict and info == {}
    arrays = [obs0] + [o[0] for o in outs]
    for k, a in enumerate(arrays):
        for b in arrays[k + 1 :]:
            assert not np.shares_memory(a, b)
    infos = [info0] + [o[4] for o in outs]
    assert len({id(i) for i in infos}) == len(infos)
    assert [(o[0].tolist(), o[1], o[2], o[3]) for o in outs] == [
        ([1, 2], -1.0, False, False),
        ([1, 1], -1.0, False, False),
        ([1, 2], -1.0, False, False),
        ([1, 3], 1.0, True, False),
    ]
    # The returned obs is a copy: writing into it changes nothing.
    outs[-1][0][:] = 0
    assert env.get_state()["pos"] == (1, 3)


def test_facade_stepping_after_termination_continues():
    env = NavEnv(world_map=CORRIDOR)
    env.reset(seed=0)
    env.step(1)
    assert env.step(1)[1:4] == (1.0, True, False)
    obs, reward, term, trunc, _ = env.step(1)  # bumps the wall, still on the goal
    assert (obs.tolist(), reward, term, trunc) == ([1, 3], 1.0, True, False)
    obs, reward, term, trunc, _ = env.step(3)  # leaves the goal
    assert (obs.tolist(), reward, term, trunc) == ([1, 2], -1.0, False, False)
    obs, reward, term, trunc, _ = env.step(1)
    assert (obs.tolist(), reward, term, trunc) == ([1, 3], 1.0, True, False)
    assert env.get_state()["step"] == 5


def test_facade_equals_vector_row_zero_for_the_same_seed():
    fac = NavEnv(world_map=MULTI_START, alphabet="noisy", max_episode_steps=5)
    vec = NavVectorEnv(1, world_map=MULTI_START, alphabet="noisy", max_episode_steps=5)
    for seed in (0, 1, 2, 3):
        obs, _ = fac.reset(seed=seed)
        vobs, _ = vec.reset(seed=seed)
        np.testing.assert_array_equal(obs, vobs[0])
        actions = np.random.default_rng(seed).integers(0, 4, 40)
        for a in actions:
            obs, reward, term, trunc, _ = fac.step(int(a))
            vobs, vrew, vterm, vtrunc, _ = vec.step(np.array([a]))
            np.testing.assert_array_equal(obs, vobs[0])
            assert reward == float(vrew[0]) and (term, trunc) == (vterm[0], vtrunc[0])
            if term or trunc:
                obs, _ = fac.reset()  # continue: the next episode of the same key
                vobs, vrew, *_ = vec.step(np.array([0]))  # NEXT_STEP: the autoreset call
                np.testing.assert_array_equal(obs, vobs[0])
                assert vrew[0] == 0.0


@pytest.mark.parametrize("key", ["num_envs", "autoreset_mode", "copy"])
def test_facade_rejects_vector_only_kwargs(key):
    with pytest.raises(TypeError, match=key):
        NavEnv(level="nav/room1_small", **{key: 2 if key == "num_envs" else True})


@pytest.mark.parametrize("action", [1, np.int64(1), np.int32(1), np.int8(1), np.uint8(1), np.array(1)])
def test_facade_accepts_integer_scalars(action):
    env = NavEnv(level="nav/room5_medium")
    env.reset(seed=0)
    obs, *_ = env.step(action)
    np.testing.assert_array_equal(obs, np.array([1, 2], np.int32))


@pytest.mark.parametrize("action", [4, -1, 1.0, np.float32(1), np.array([1]), "1", None])
def test_facade_rejects_invalid_discrete_action(action):
    env = NavEnv(level="nav/room5_medium")
    env.reset(seed=0)
    env.step(2)
    before = env.get_state()
    with pytest.raises(InvalidActionError):
        env.step(action)
    assert env.get_state() == before


@pytest.mark.parametrize(
    "action", [np.array([0.0]), np.array([0.0, 1.0, 0.0]), np.array([[0.0, 1.0]]),
               np.array([np.nan, 0.0])]
)
def test_facade_rejects_invalid_continuous_action(action):
    env = NavEnv(level="nav/room5_medium", actions="2d_continuous")
    env.reset(seed=0)
    before = env.get_state()
    with pytest.raises(InvalidActionError):
        env.step(action)
    assert env.get_state() == before


def test_facade_continuous_action_moves_with_clipping():
    env = NavEnv(level="nav/room5_medium_walls", actions="2d_continuous")
    env.reset(seed=0)
    env.set_state({"pos": (7, 3)})
    obs, *_ = env.step(np.array([1.0, 1.0], np.float32))
    np.testing.assert_array_equal(obs, np.array([8, 4], np.int32))
    env.set_state({"pos": (3, 3)})
    obs, *_ = env.step(np.array([0.0, 2.0]))
    np.testing.assert_array_equal(obs, np.array([3, 3], np.int32))


def test_facade_reset_seed_is_deterministic_and_seeds_action_space():
    env = NavEnv(world_map=MULTI_START, alphabet="noisy")
    runs = []
    for _ in range(2):
        obs, _ = env.reset(seed=11)
        samples = [env.action_space.sample() for _ in range(8)]
        rewards = [env.step(a)[1] for a in samples]
        runs.append((obs.tolist(), samples, rewards))
    assert runs[0] == runs[1]
    assert env.np_random_seed == 11


def test_facade_reset_start_option():
    env = NavEnv(level="nav/room5_medium")
    obs, _ = env.reset(seed=0, options={"start": (4, 6)})
    np.testing.assert_array_equal(obs, np.array([4, 6], np.int32))
    with pytest.raises(ValueError):
        env.reset(options={"start": (0, 0)})


def test_facade_set_state_returns_fresh_obs():
    env = NavEnv(level="nav/room5_medium")
    env.reset(seed=0)
    obs, info = env.set_state({"pos": (6, 2)})
    np.testing.assert_array_equal(obs, np.array([6, 2], np.int32))
    assert info == {}
    obs2, *_ = env.step(0)
    assert not np.shares_memory(obs, obs2)
    np.testing.assert_array_equal(obs, np.array([6, 2], np.int32))


def test_facade_metadata_and_spaces_match_the_vector_row():
    env = NavEnv(level="nav/room2_small", obs_type="image")
    assert "autoreset_mode" not in env.metadata
    assert env.metadata["render_fps"] == 10
    assert {"rgb_array", "human"} <= set(env.metadata["render_modes"])
    assert env.observation_space == gym.spaces.Box(0, 255, (6, 11, 3), np.uint8)
    assert env.action_space == gym.spaces.Discrete(4)


def test_facade_render_modes_return_frame_and_text():
    env = NavEnv(level="nav/room1_small", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert type(frame) is np.ndarray and frame.dtype == np.uint8 and frame.shape == (96, 96, 3)
    agent = frame[4 * 16 : 5 * 16, 16:32]  # a green disc on the floor's white
    np.testing.assert_array_equal(agent[8, 8], (50, 205, 50))
    np.testing.assert_array_equal(agent[[0, 0, 15, 15], [0, 15, 0, 15]], np.full((4, 3), 255))
    np.testing.assert_array_equal(frame[16:32, 4 * 16 : 5 * 16], np.full((16, 16, 3), (50, 50, 255)))
    assert not np.shares_memory(frame, env.render())
    env = NavEnv(level="nav/room1_small", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == "######\n#   0#\n#    #\n#    #\n#@   #\n######\n"


def test_facade_human_render_runs_headless_and_closes_twice():
    pytest.importorskip("pygame")
    env = NavEnv(level="nav/room1_small", render_mode="human")
    env.unwrapped_vector.metadata["render_fps"] = 1000
    env.reset(seed=0)
    assert env.render() is None
    env.step(1)
    env.close()
    env.close()
