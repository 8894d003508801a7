"""Fuzzing settings, keyword arguments, properties and actions of every family's ids.

Random keyword arguments and ``settings=`` values (wrong types, huge and negative integers,
odd text) go through ``gymnasium.make_vec`` and ``gridsim.make``; random text goes to
``write_property``; random action arrays go to ``step``. Only gridsim errors may come out, a
built env resets and steps, and a refused action leaves the env as it was.
"""

from __future__ import annotations

import inspect

import gymnasium as gym
import numpy as np
from engine.family_cases import FAMILY_IDS, walk_properties
from hypothesis import given
from hypothesis import strategies as st
from level_fuzz_support import FUZZ, NASTY_INTS, NASTY_TEXT, NASTY_VALUES, only_gridsim_errors

import gridsim
from gridsim.families import FAMILIES
from gridsim.lab2d import PropertyAttribute, PropertyResult


def own_keywords(vector_env) -> list[str]:
    """The keyword arguments a family's vector env names (beside ``num_envs`` and ``settings``)."""
    params = inspect.signature(vector_env.__init__).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("self", "num_envs", "settings")]


def valid_texts(row) -> list[str]:
    """Text a family's settings take: every choice of its enum settings, its string defaults, its benchmark level."""
    out = [row.tools.bench_level]
    for setting in row.vector_env.SETTINGS.values():
        out.extend(setting.type if isinstance(setting.type, tuple) else [])
        out.extend([setting.default] if isinstance(setting.default, str) else [])
    return out


# Each family's representative ids and the keyword arguments its constructor takes (the common ones are shared).
ID_KEYWORDS = {env_id: own_keywords(FAMILIES[name].vector_env) for name, ids in FAMILY_IDS.items() for env_id in ids}
FIRST_IDS = [ids[0] for ids in FAMILY_IDS.values()]
COMMON = ["max_episode_steps", "autoreset_mode", "render_mode", "copy", "num_threads", "mixer_seed", "obs_dtype",
          "events", "max_events_per_step", "info_events", "allow_code", "episode_stats", "level_directory", "nope"]
# Every family's settings (a list's entries by index too), and the Lab2D names of the reserved ones.
SETTING_NAMES = sorted({f"{name}{suffix}" for row in FAMILIES.values()
                        for name, setting in row.vector_env.SETTINGS.items()
                        for suffix in (("", ".1") if setting.type is list else ("",))} | {"mixerSeed", "nope"})
TEXT_VALUES = [str(i) for i in NASTY_INTS] + NASTY_TEXT + list(dict.fromkeys(
    ["SameStep", "float32", "object", "auto"] + [text for row in FAMILIES.values() for text in valid_texts(row)]))


def kwargs_for(env_id: str):
    names = st.sampled_from(ID_KEYWORDS[env_id] + COMMON)
    return st.dictionaries(names, st.sampled_from(NASTY_VALUES + TEXT_VALUES), max_size=3)


def settings_values():
    return st.dictionaries(st.sampled_from(SETTING_NAMES), st.sampled_from(TEXT_VALUES), max_size=3)


@FUZZ
@given(env_id=st.sampled_from(sorted(ID_KEYWORDS)), data=st.data(),
       num_envs=st.sampled_from([1, 2, 3, 0, -1, True, 2.0, "2", None, 2**63]))
def test_keyword_arguments_raise_only_gridsim_errors(env_id, data, num_envs):
    kwargs = data.draw(kwargs_for(env_id))
    only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=num_envs, **kwargs))


@FUZZ
@given(env_id=st.sampled_from(sorted(ID_KEYWORDS)), settings=settings_values())
def test_settings_raise_only_gridsim_errors(env_id, settings):
    only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=2, settings=settings))


@FUZZ
@given(level=st.sampled_from([row.tools.bench_name() for row in FAMILIES.values()] + ["examples/maze:7"]),
       settings=st.one_of(settings_values(), st.sampled_from(NASTY_VALUES)))
def test_make_settings_of_any_type_raise_only_gridsim_errors(level, settings):
    only_gridsim_errors(lambda: gridsim.make(level, num_envs=2, settings=settings))


ENVS = {env_id: gym.make_vec(env_id, num_envs=3) for env_id in ID_KEYWORDS}
# Every key any family's env lists, the root and a key no env has; half the examples take a writable key.
LISTED = {key: attr for envs in ENVS.values() for key, attr in walk_properties(envs.unwrapped)}
PROPERTY_KEYS = st.sampled_from(sorted(key for key, attr in LISTED.items() if attr & PropertyAttribute.WRITABLE)) | \
    st.sampled_from(sorted({*LISTED, "", "nope"}))


@FUZZ
@given(env_id=st.sampled_from(sorted(ID_KEYWORDS)), key=PROPERTY_KEYS,
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
@given(env_id=st.sampled_from(sorted(ID_KEYWORDS)), data=st.data())
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
@given(env_id=st.sampled_from(sorted(ID_KEYWORDS)), call=st.sampled_from(sorted(LEVEL_API_CALLS)),
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
    for env_id in FIRST_IDS:
        for name in ID_KEYWORDS[env_id] + COMMON:
            for value in NASTY_VALUES + TEXT_VALUES:
                only_gridsim_errors(lambda: gym.make_vec(env_id, num_envs=2, **{name: value}))  # noqa: B023
