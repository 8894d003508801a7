"""Fuzzing both level formats: whatever the text or module, only gridsim errors come out.

Text maps (navigation in both formats, kitchens) are mutated from the built-in levels: random
characters and bytes, unicode, huge sizes, broken legends and ``[meta]`` headers. Python level
modules are driven through their argument and settings, by ``gridsim.make`` and the level API.
"""

from __future__ import annotations

import gymnasium as gym
from hypothesis import given
from hypothesis import strategies as st
from level_fuzz_support import FUZZ, NASTY_INTS, NASTY_TEXT, NASTY_VALUES, fresh_file, only_gridsim_errors, seed_texts

import gridsim
from gridsim.envs import KitchenVectorEnv, NavVectorEnv
from gridsim.families import FAMILIES
from gridsim.kitchen import parse_kitchen_text
from gridsim.levels import builtin_root, parse_level_text
from gridsim.make import load_level
from gridsim.nav.level import compile_nav_level

NAV_SEEDS = seed_texts("nav")
KITCHEN_SEEDS = seed_texts("kitchen")

# Characters that mean something to one of the formats, and some that mean nothing.
MAP_CHARS = list("# S0 -|/*tlop%[]=;'\r\t\n.~xX") + ["\x00", "\x0c", "é", "\u2028", "\ufeff", "\U0001f600"]

NATIVE_META = ["family", "name", "description", "alphabet", "default_symbol", "max_episode_steps", "obs_type",
               "actions", "view_size", "unknown_symbols", "colour", ""]
NATIVE_VALUES = [str(i) for i in NASTY_INTS] + NASTY_TEXT + ["nav", "kitchen", "roboman", "navigation", "noisy",
                                                              "view", "image", "coords", "error", "default", "' '"]
LEGEND_PROPS = ["reward=-1", "reward=uniform(0,1)", "reward=normal(0,1e308)", "reward=uniform(1,0)", "reward=nan",
                "reward=inf", "terminal", "initial", "accessible=false", "stochastic", "collectible",
                "color=1,2,3", "color=999,0,0", "color=", "shiny", "reward=(", "initial=maybe"]


@st.composite
def mutated(draw, seeds: list[str]) -> str:
    """A seed level with a few random edits: replaced, inserted or deleted characters and lines."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "dup_line", "drop_line", "unicode"]))
        lines = text.split("\n")
        pos = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "replace" and text:
            text = text[:pos] + draw(st.sampled_from(MAP_CHARS)) + text[pos + 1:]
        elif kind == "insert":
            text = text[:pos] + draw(st.text(st.sampled_from(MAP_CHARS), max_size=5)) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 8)):]
        elif kind == "dup_line" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:i] + [lines[i]] * draw(st.integers(2, 3)) + lines[i:])
        elif kind == "drop_line" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:i] + lines[i + 1:])
        else:
            text = text[:pos] + draw(st.text(max_size=3)) + text[pos:]
    return text


@st.composite
def native_nav_text(draw) -> str:
    """A ``%gridsim 1`` navigation level with random meta keys, values and legend entries."""
    rows = draw(st.sampled_from(NAV_SEEDS)).strip("\n").split("\n")
    if not rows[0].startswith("%"):
        body = rows
    else:
        body = rows[rows.index("[map]") + 1:] if "[map]" in rows else rows
    meta = [f"{draw(st.sampled_from(NATIVE_META))} = {draw(st.sampled_from(NATIVE_VALUES))}"
            for _ in range(draw(st.integers(0, 3)))]
    legend = [f"{draw(st.sampled_from(MAP_CHARS))} = " + " ".join(draw(st.lists(st.sampled_from(LEGEND_PROPS),
                                                                                   max_size=3)))
              for _ in range(draw(st.integers(0, 3)))]
    return "\n".join(["%gridsim 1", "[meta]", "family = nav", *meta, "[legend]", *legend, "[map]", *body]) + "\n"


@FUZZ
@given(text=st.one_of(mutated(NAV_SEEDS), native_nav_text()))
def test_navigation_map_text_raises_only_level_errors(text):
    def compile_and_build():
        compile_nav_level(parse_level_text(text))
        return NavVectorEnv(num_envs=2, level="=" + text)

    only_gridsim_errors(compile_and_build)


@FUZZ
@given(text=mutated(KITCHEN_SEEDS), num_agents=st.sampled_from([1, 2, 4]))
def test_kitchen_map_text_raises_only_level_errors(text, num_agents):
    def parse_and_build():
        parse_kitchen_text(text)
        return KitchenVectorEnv(num_envs=2, level="=" + text, num_agents=num_agents)

    only_gridsim_errors(parse_and_build)


# Each family with built-in text levels: its smallest ones.
TEXT_SEEDS = {name: seed_texts(name) for name in FAMILIES if seed_texts(name)}


@FUZZ
@given(family=st.sampled_from(sorted(TEXT_SEEDS)), seed=st.integers(0, 3), data=st.data())
def test_random_bytes_in_a_level_file_raise_only_level_errors(tmp_path_factory, family, seed, data):
    seeds = TEXT_SEEDS[family]
    raw = bytearray(seeds[seed % len(seeds)].encode())
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos:pos + 1] = data.draw(st.binary(min_size=1, max_size=3))
    folder = tmp_path_factory.getbasetemp() / "fuzz_bytes"
    name = fresh_file(folder, family, bytes(raw))
    only_gridsim_errors(lambda: gridsim.make(name, num_envs=2, level_directory=folder))


@FUZZ
@given(family=st.sampled_from(["nav", "kitchen"]), rows=st.sampled_from([1, 3, 200, 40_000]),
       cols=st.sampled_from([1, 3, 200, 40_000]))
def test_huge_maps_are_refused_or_run(family, rows, cols):
    if rows * cols > 10**6:
        cols = max(1, 10**6 // rows)  # a bounded text; still too many cells for a kitchen
    if family == "nav":
        body = ["#" * cols] * rows
        body[rows // 2] = ("S" + " " * (cols - 2) + "0")[:cols]
        text = "\n".join(body)
        build = lambda: NavVectorEnv(num_envs=1, level="=" + text)  # noqa: E731
    else:
        body = ["-" * cols] * rows
        if rows > 2 and cols > 2:
            body[1] = "-" + " " * (cols - 2) + "-"
        text = "\n".join([*body, "", "Salad", "", "1 1"])
        build = lambda: KitchenVectorEnv(num_envs=1, level="=" + text, num_agents=1)  # noqa: E731
    error = only_gridsim_errors(build)
    if family == "kitchen" and rows * cols > 2**15 - 1:
        assert isinstance(error, gridsim.LevelError)


# --------------------------------------------------------------------------- Python level modules

SETTING_KEYS = ["layout_seed", "max_steps", "obs_type", "view_size", "num_threads", "levelName", "levelDirectory",
                "mixerSeed", "allow_code", "autoreset_mode", "events", "max_events_per_step", "copy", "nope",
                "settings.max_steps", "", "a.b.1"]


def nasty_settings():
    value = st.one_of(st.sampled_from(NASTY_TEXT), st.sampled_from([str(i) for i in NASTY_INTS]),
                      st.sampled_from(NASTY_VALUES))
    return st.dictionaries(st.sampled_from(SETTING_KEYS), value, max_size=3)


# The level modules: the examples' and each family's whose built-in levels are one (levels/<family>.py),
# and arguments they take: the examples' sizes, the families' benchmark levels.
MODULE_FAMILIES = [name for name in FAMILIES if (builtin_root() / f"{name}.py").is_file()]
LEVEL_MODULES = ["examples/maze", "examples/lava", *MODULE_FAMILIES]
MODULE_ARGUMENTS = ["7", "9", *(FAMILIES[name].tools.bench_level for name in MODULE_FAMILIES)]


@FUZZ
@given(level=st.sampled_from(LEVEL_MODULES),
       argument=st.one_of(st.none(), st.sampled_from([str(i) for i in NASTY_INTS] + NASTY_TEXT + MODULE_ARGUMENTS)),
       settings=nasty_settings())
def test_level_modules_take_any_argument_and_settings(level, argument, settings):
    if level == "examples/maze" and argument is not None and argument.isdecimal() and int(argument) > 99:
        argument = "99"  # a valid maze that big is slow to build, not an error
    name = level if argument is None else f"{level}:{argument}"
    only_gridsim_errors(lambda: gridsim.make(name, num_envs=2, settings=settings))


@FUZZ
@given(settings=nasty_settings())
def test_level_api_init_and_specs_raise_only_gridsim_errors(settings):
    level, _ = load_level("examples/maze:9")

    def init_and_probe():
        level.init(settings)
        level.observation_spec()
        level.discrete_action_spec()

    only_gridsim_errors(init_and_probe, run=False)


@FUZZ
@given(level=st.sampled_from(["examples/maze:9", *(row.tools.bench_name() for row in FAMILIES.values())]),
       kwargs=st.dictionaries(st.sampled_from(["settings", "level_directory", "family", "allow_code",
                                               "max_episode_steps", "num_threads", "mixer_seed"]),
                              st.sampled_from(NASTY_VALUES), max_size=2),
       single=st.booleans())
def test_the_level_id_raises_only_gridsim_errors(level, kwargs, single):
    if single:  # gym.make: one env, whose reset and step take single actions
        kwargs.pop("max_episode_steps", None)  # gym.make's own argument (its TimeLimit), checked by Gymnasium
        only_gridsim_errors(lambda: gym.make("gridsim/Level-v0", level=level, **kwargs), run=False)
    else:
        only_gridsim_errors(lambda: gym.make_vec("gridsim/Level-v0", num_envs=2, level=level, **kwargs))
