"""Fuzzing settings, keyword arguments, properties and actions of every family's ids.

Random keyword arguments and ``settings=`` values (wrong types, huge and negative integers,
odd text) go through ``gymnasium.make_vec`` and ``gridsim.make``; random text goes to
``write_property``; random action arrays go to ``step``. Only gridsim errors may come out, a
built env resets and steps, and a refused action leaves the env as it was.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from level_fuzz_support import FUZZ, NASTY_INTS, NASTY_TEXT, NASTY_VALUES, only_gridsim_errors

import gridsim
from gridsim.lab2d import PropertyResult

# Each family's id and the keyword arguments its constructor takes (the common ones are shared).
FAMILY_IDS = {
    "gridsim/Nav-room1_small-v0": ["level", "obs_type", "actions", "view_size", "pixels_per_cell", "alphabet",
                              "default_symbol", "unknown_symbols", "nan_action", "randomize_goals", "channels_first"],
    "gridsim/Gridroboman-LiftRed-v0": ["task", "tasks", "x_obj", "y_obj", "obs_type", "task_in_obs",
                                       "exclude_solved_starts", "cell_px"],
    "gridsim/Kitchen-open-divider_salad-v0": ["level", "num_agents", "agent_rows", "obs_type", "channels_first",
                                              "tile_px", "rules"],
    "gridsim/MiniGrid-GoToDoor-5x5-v0": ["env_name", "obs_type", "agent_view_size", "mission_format"],
}
COMMON = ["max_episode_steps", "autoreset_mode", "render_mode", "copy", "num_threads", "mixer_seed", "obs_dtype",
          "events", "max_events_per_step", "info_events", "allow_code", "episode_stats", "level_directory", "nope"]
SETTING_NAMES = ["max_steps", "obs_type", "view_size", "num_threads", "events", "max_events_per_step", "autoreset_mode",
                 "task", "tasks", "tasks.1", "num_agents", "copy", "obs_dtype", "allow_code", "mixerSeed", "env_name",
                 "agent_view_size", "mission_format", "nope"]
TEXT_VALUES = [str(i) for i in NASTY_INTS] + NASTY_TEXT + ["LiftRed", "image", "view", "grid", "features", "SameStep",
                                                           "float32", "object", "auto", "nav/room1_small", "full",
                                                           "index", "MiniGrid-Empty-8x8-v0"]


def kwargs_for(env_id: str):
    names = st.sampled_from(FAMILY_IDS[env_id] + COMMON)
    return st.dictionaries(names, st.sampled_from(NASTY_VALUES + TEXT_VALUES), max_size=3)


def settings_values():
    return st.dictionaries(st.sampled_from(SETTING_NAMES), st.sampled_from(TEXT_VALUES), max_size=3)


@FUZZ
@given(env_id=st.sampled_from(sorted(FAMILY_IDS)), data=st.data(),
       num_envs=st.sampled_from([1, 2, 3, 0, -1, True, 2.0, "2", None, 2**63]))
def test_keyword_arguments_raise_only_gridsim_errors(env_id, data, num_envs):
    kwargs = data.draw(kwargs_for(env_id))
    only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=num_envs, **kwargs))


@FUZZ
@given(env_id=st.sampled_from(sorted(FAMILY_IDS)), settings=settings_values())
def test_settings_raise_only_gridsim_errors(env_id, settings):
    only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=2, settings=settings))


@FUZZ
@given(level=st.sampled_from(["nav/room1_small", "kitchen/open-divider_salad", "roboman:LiftRed", "examples/maze:7",
                               "minigrid:MiniGrid-DoorKey-5x5-v0"]),
       settings=st.one_of(settings_values(), st.sampled_from(NASTY_VALUES)))
def test_make_settings_of_any_type_raise_only_gridsim_errors(level, settings):
    only_gridsim_errors(lambda: gridsim.make(level, num_envs=2, settings=settings))


ENVS = {env_id: gym.make_vec(env_id, num_envs=3) for env_id in FAMILY_IDS}
PROPERTY_KEYS = ["settings.max_steps", "settings.num_threads", "settings.exclude_solved_starts", "settings.obs_type",
                 "episode.step", "level.name", "state.agent.pos", "state.agent.dir", "state.mission", "", "settings",
                 "nope"]


@FUZZ
@given(env_id=st.sampled_from(sorted(FAMILY_IDS)), key=st.sampled_from(PROPERTY_KEYS),
       value=st.sampled_from(TEXT_VALUES + NASTY_VALUES), index=st.sampled_from([None, 0, 2, 3, -4, 2**63, "0", 1.0]))
def test_try_write_property_returns_a_code_for_any_value(env_id, key, value, index):
    envs = ENVS[env_id].unwrapped
    envs.reset(seed=0)
    code = envs.try_write_property(key, value, index)
    assert isinstance(code, PropertyResult)
    result, _ = envs.try_read_property(key, index)
    assert isinstance(result, PropertyResult)
    envs.write_property("settings.max_steps", "50")  # what a later example expects
    envs.write_property("settings.num_threads", "1")


ACTION_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64, np.bool_, object,
                 np.str_]
ACTION_VALUES = [0, 1, -1, 3, 4, 5, 2**31, 2**63 - 1, float("nan"), float("inf"), 0.5]


@FUZZ
@given(env_id=st.sampled_from(sorted(FAMILY_IDS)), data=st.data())
def test_actions_of_any_shape_dtype_and_value_raise_only_gridsim_errors(env_id, data):
    envs = ENVS[env_id]
    envs.reset(seed=0)
    n = envs.num_envs
    shape = data.draw(st.sampled_from([(), (n,), (n, 1), (n, 2), (n, 3), (n + 1,), (0,), (1, n), (n, 2, 1)]))
    dtype = data.draw(st.sampled_from(ACTION_DTYPES))
    value = data.draw(st.sampled_from(ACTION_VALUES))
    try:
        with np.errstate(invalid="ignore"):
            actions = np.full(shape, value).astype(dtype)
    except (ValueError, OverflowError, TypeError):
        actions = np.zeros(shape, dtype)
    if data.draw(st.booleans()):
        actions = actions.tolist()  # lists and scalars of Python values
    before = envs.unwrapped.state_dict()
    try:
        envs.step(actions)
    except gridsim.GridSimError:
        after = envs.unwrapped.state_dict()
        for key, value in before.items():  # refused before any env changed
            assert np.array_equal(np.asarray(after[key]), np.asarray(value)), key
    space = envs.action_space
    envs.step(np.zeros(space.shape, space.dtype))


LEVEL_API_CALLS = {
    "reset(seed=)": lambda envs, v: envs.reset(seed=v),
    "reset(options=)": lambda envs, v: envs.reset(options=v),
    "reset_mask": lambda envs, v: envs.reset(options={"reset_mask": v}),
    "start(episode)": lambda envs, v: envs.start(v, 0),
    "start(seed)": lambda envs, v: envs.start(0, v),
    "start(index=)": lambda envs, v: envs.start(0, 0, v),
    "read_property(index=)": lambda envs, v: envs.read_property("episode.step", v),
    "read_property(key)": lambda envs, v: envs.read_property(v),
    "list_property": lambda envs, v: envs.list_property(v),
    "observation": lambda envs, v: envs.observation(v),
    "events": lambda envs, v: envs.events(v),
    "num_threads": lambda envs, v: setattr(envs, "num_threads", v),
    "get_state": lambda envs, v: envs.get_state(v),
}


@FUZZ
@given(env_id=st.sampled_from(sorted(FAMILY_IDS)), call=st.sampled_from(sorted(LEVEL_API_CALLS)),
       value=st.sampled_from(NASTY_VALUES + TEXT_VALUES))
def test_level_api_methods_raise_only_gridsim_errors(env_id, call, value):
    envs = ENVS[env_id].unwrapped
    envs.reset(seed=0)
    try:
        LEVEL_API_CALLS[call](envs, value)
    except gridsim.GridSimError:
        pass
    envs.num_threads = 1
    envs.step(np.zeros(envs.action_space.shape, envs.action_space.dtype))


def test_each_keyword_argument_alone_with_every_nasty_value_raises_only_gridsim_errors():
    # Systematic, one argument at a time, so that no value hides behind another argument's error.
    for env_id, names in FAMILY_IDS.items():
        for name in names + COMMON:
            for value in NASTY_VALUES + TEXT_VALUES:
                only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=2, **{name: value}))  # noqa: B023
