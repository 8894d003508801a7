"""The level API: lookup, level modules, settings, specs, start/advance, properties (docs/levels.md)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gridsim
from gridsim.errors import InvalidActionError, LevelNotFoundError
from gridsim.lab2d import (
    EnvironmentStatus,
    PropertyAttribute,
    PropertyResult,
    SettingsError,
    flatten_args,
)
from gridsim.levels.lookup import builtin_level_names, builtin_root, resolve_level
from gridsim.make import load_level

R, W, L = PropertyAttribute.READABLE, PropertyAttribute.WRITABLE, PropertyAttribute.LISTABLE
TINY = "#####\n#S 0#\n#####"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def module_level(path: Path, body: str = "") -> Path:
    return write(path, f"""
        import gridsim
        {body}
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####", name={str(path)!r})
        """)


# --------------------------------------------------------------------------------- lookup


def test_lookup_tries_py_then_package_then_txt(tmp_path):
    write(tmp_path / "lvl.txt", "%gridsim 1\n[meta]\nfamily = nav\n[map]\n#####\n#S 0#\n#####\n")
    assert resolve_level("lvl", tmp_path).path == tmp_path / "lvl.txt"
    module_level(tmp_path / "lvl" / "__init__.py")
    assert resolve_level("lvl", tmp_path).path == tmp_path / "lvl" / "__init__.py"
    module_level(tmp_path / "lvl.py")
    src = resolve_level("lvl", tmp_path)
    assert (src.path, src.kind, src.builtin) == (tmp_path / "lvl.py", "module", False)


def test_directory_level_shadows_builtin_and_builtins_stay_visible(tmp_path):
    write(tmp_path / "nav" / "room1_small.txt", "#######\n#S   0#\n#######\n")
    envs = gridsim.make("nav/room1_small", level_directory=tmp_path)
    assert envs.level.height == 3
    assert envs.read_property("level.path") == str(tmp_path / "nav" / "room1_small.txt")
    other = gridsim.make("nav/four_rooms", level_directory=tmp_path)
    assert other.read_property("level.path") == "builtin:nav/four_rooms"
    assert gridsim.make("roboman:LiftRed", level_directory=tmp_path).get_task(0) == "LiftRed"


def test_argument_is_split_at_the_last_colon():
    src = resolve_level("examples/maze:21")
    assert (src.name, src.argument) == ("examples/maze", "21")
    with pytest.raises(LevelNotFoundError) as e:
        resolve_level("a:b:c")
    assert e.value.tried[0].endswith("a:b.py")
    assert resolve_level("roboman").argument == ""


def test_inline_map_needs_a_family():
    envs = gridsim.make("=" + TINY, num_envs=2, family="nav")
    assert envs.read_property("level.path") == "<inline>"
    with pytest.raises(ValueError, match="family="):
        gridsim.make("=" + TINY)


def test_not_found_lists_every_path_tried(tmp_path):
    with pytest.raises(LevelNotFoundError) as e:
        gridsim.make("no/such_level", level_directory=tmp_path)
    assert e.value.tried == [
        str(tmp_path / "no/such_level.py"), str(tmp_path / "no/such_level/__init__.py"),
        str(tmp_path / "no/such_level.txt"), str(builtin_root() / "no/such_level.py"),
        str(builtin_root() / "no/such_level/__init__.py"), str(builtin_root() / "no/such_level.txt"),
    ]
    assert isinstance(e.value, FileNotFoundError)
    for path in e.value.tried:
        assert path in str(e.value)


def test_explicit_paths_are_taken_literally_and_names_are_searched_in_the_roots(tmp_path, monkeypatch):
    path = write(tmp_path / "x.txt", "%gridsim 1\n[meta]\nfamily = nav\n[map]\n#####\n#S 0#\n#####\n")
    assert gridsim.make(path).level.width == 5
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LevelNotFoundError):  # the working directory is not a level directory
        gridsim.make("x.txt")
    assert gridsim.make("x.txt", level_directory=".").read_property("level.path") == str(tmp_path / "x.txt")
    with pytest.raises(LevelNotFoundError):
        gridsim.make(Path("missing.txt"))


def test_lookup_works_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("examples/lava", "examples/maze:9", "roboman:StackRedOnGreen", "kitchen/open-divider_salad"):
        envs = gridsim.make(name, num_envs=2)
        envs.reset(seed=0)
        assert envs.read_property("level.path").startswith("builtin:")


# --------------------------------------------------------------------------- level modules


def test_make_receives_the_argument_or_empty(tmp_path):
    write(tmp_path / "argy.py", """
        import gridsim
        SEEN = []
        def make(argument):
            SEEN.append(argument)
            return gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """)
    gridsim.make("argy", level_directory=tmp_path)
    envs = gridsim.make("argy:hello", level_directory=tmp_path)
    module = gridsim.levels.lookup.import_level_module(tmp_path / "argy.py")
    assert module.SEEN == ["", "hello"]  # imported once, called twice
    assert envs.read_property("level.argument") == "hello"
    assert envs.read_property("level.name") == "argy"


def test_level_module_that_loads_another_level_module_at_import(tmp_path):
    write(tmp_path / "base.py", """
        import gridsim
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """)
    write(tmp_path / "derived.py", f"""
        import gridsim
        from gridsim.make import load_level
        BASE = load_level("base", {str(tmp_path)!r})[0]
        LEVEL = BASE
        """)
    envs = gridsim.make("derived", level_directory=tmp_path)  # deadlocked while the loader held its lock
    assert envs.read_property("level.name") == "derived"
    derived = gridsim.levels.lookup.import_level_module(tmp_path / "derived.py")
    assert derived.BASE is gridsim.levels.lookup.import_level_module(tmp_path / "base.py").LEVEL


def test_level_module_that_loads_itself_is_a_level_error(tmp_path):
    write(tmp_path / "a.py", f"""
        from gridsim.make import load_level
        LEVEL = load_level("b", {str(tmp_path)!r})[0]
        """)
    write(tmp_path / "b.py", f"""
        from gridsim.make import load_level
        LEVEL = load_level("a", {str(tmp_path)!r})[0]
        """)
    with pytest.raises(gridsim.LevelError, match="loads itself"):
        gridsim.make("a", level_directory=tmp_path)


def test_threads_loading_one_level_module_run_it_once(tmp_path):
    import threading

    runs = tmp_path / "runs"
    write(tmp_path / "slow.py", f"""
        import time
        import gridsim
        from gridsim.make import load_level
        with open({str(runs)!r}, "a") as f:
            f.write("ran\\n")
        time.sleep(0.2)  # the other threads ask for it meanwhile
        INNER = load_level("inner", {str(tmp_path)!r})[0]
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """)
    write(tmp_path / "inner.py", """
        import gridsim
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """)
    modules, errors = [], []

    def load():
        try:
            modules.append(gridsim.levels.lookup.import_level_module(tmp_path / "slow.py"))
            gridsim.make("slow", level_directory=tmp_path).close()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "deadlocked"
    assert not errors
    assert len(modules) == 4 and all(m is modules[0] for m in modules)
    assert runs.read_text() == "ran\n"  # run once, registered once


def test_level_module_that_failed_is_run_again_on_the_next_load(tmp_path):
    flag = tmp_path / "fail"
    flag.write_text("1")
    write(tmp_path / "flaky.py", f"""
        import os
        import gridsim
        if os.path.exists({str(flag)!r}):
            raise RuntimeError("not yet")
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """)
    with pytest.raises(RuntimeError, match="not yet"):
        gridsim.make("flaky", level_directory=tmp_path)
    flag.unlink()
    gridsim.make("flaky", level_directory=tmp_path).close()


def test_level_constant_with_an_argument_raises(tmp_path):
    module_level(tmp_path / "fixed.py")
    gridsim.make("fixed", level_directory=tmp_path)
    with pytest.raises(ValueError, match="takes no ':x' argument"):
        gridsim.make("fixed:x", level_directory=tmp_path)


def test_module_without_level_or_make_raises(tmp_path):
    write(tmp_path / "empty.py", "X = 1\n")
    with pytest.raises(ValueError, match="neither LEVEL nor make"):
        gridsim.make("empty", level_directory=tmp_path)


def test_package_level_imports_its_submodules(tmp_path):
    write(tmp_path / "pkg" / "maps.py", 'MAP = "######\\n#S  0#\\n######"\n')
    write(tmp_path / "pkg" / "__init__.py", """
        import gridsim
        from .maps import MAP
        LEVEL = gridsim.Level("nav", map=MAP)
        """)
    assert gridsim.make("pkg", level_directory=tmp_path).level.width == 6


def test_two_levels_with_one_module_name_do_not_collide(tmp_path):
    body = 'import gridsim\nLEVEL = gridsim.Level("nav", map="{0}\\n#S{1}0#\\n{0}")\n'
    a = write(tmp_path / "a" / "same.py", body.format("#####", " "))
    b = write(tmp_path / "b" / "same.py", body.format("######", "  "))
    assert gridsim.make(a).level.width == 5
    assert gridsim.make(b).level.width == 6


def test_text_map_argument_is_rejected():
    with pytest.raises(ValueError, match="takes no ':3' argument"):
        gridsim.make("nav/four_rooms:3")


# -------------------------------------------------------------------------------- settings


def test_flatten_args_follows_lab2d():
    assert flatten_args({"a": {"b": [1, 2.5], "c": {"d": False}}, "e": None, "f": "x"}) == {
        "a.b.1": "1", "a.b.2": "2.5", "a.c.d": "false", "e": "none", "f": "x"}


def test_settings_parse_and_reach_the_env():
    envs = gridsim.make("nav/four_rooms", 2, settings={"max_steps": "7", "obs_type": "view", "view_size": 5})
    assert envs.max_episode_steps == 7 and envs.obs_type == "view"
    assert envs.single_observation_space.shape == (5, 5)
    assert envs.read_property("settings.view_size") == "5"
    assert envs.read_property("settings.obs_type") == "view"
    roboman = gridsim.make("roboman", settings={"tasks": ["LiftRed", "LiftBlue"], "task_in_obs": True})
    assert [t.name for t in roboman.tasks] == ["LiftRed", "LiftBlue"]


@pytest.mark.parametrize("settings, key", [
    ({"no_such_setting": "1"}, "no_such_setting"),
    ({"max_steps": "ten"}, "max_steps"),
    ({"obs_type": "pixels"}, "obs_type"),
    ({"channels_first": "maybe"}, "channels_first"),
    ({"mixerSeed": "-3"}, "mixerSeed"),
])
def test_bad_settings_raise_naming_the_key(settings, key):
    with pytest.raises(SettingsError) as e:
        gridsim.make("nav/four_rooms", settings=settings)
    assert e.value.key == key and key in str(e.value)
    assert isinstance(e.value, ValueError)


def test_kwarg_and_setting_must_agree():
    with pytest.raises(SettingsError, match="max_episode_steps=50"):
        gridsim.make("nav/four_rooms", max_episode_steps=50, settings={"max_steps": "60"})
    assert gridsim.make("nav/four_rooms", max_episode_steps=50, settings={"max_steps": "50"}).max_episode_steps == 50
    with pytest.raises(SettingsError):
        gridsim.NavVectorEnv(level="nav/four_rooms", obs_type="image", settings={"obs_type": "view"})
    with pytest.raises(SettingsError):
        gridsim.make("nav/four_rooms", mixer_seed=3, settings={"mixerSeed": "4"})


def test_reserved_lab2d_names_are_aliases(tmp_path):
    envs = gridsim.make(settings={"levelName": "examples/lava", "mixerSeed": "9"})
    assert envs.mixer_seed == 9 and envs.read_property("level.name") == "examples/lava"
    module_level(tmp_path / "mine.py")
    mine = gridsim.make("mine", settings={"levelDirectory": str(tmp_path)})
    assert mine.read_property("level.path") == str(tmp_path / "mine.py")
    with pytest.raises(SettingsError):
        gridsim.make("examples/lava", settings={"levelName": "examples/maze"})


def test_level_defaults_yield_to_settings_and_kwargs():
    lava = gridsim.make("examples/lava")
    assert lava.read_property("settings.max_steps") == "100"
    assert lava.read_property("settings.obs_type") == "view"
    assert gridsim.make("examples/lava", settings={"max_steps": "10"}).max_episode_steps == 10
    assert gridsim.make("examples/lava", max_episode_steps=12).max_episode_steps == 12


def test_a_written_setting_applies_at_the_next_reset_only():
    envs = gridsim.make("=" + "#" * 9 + "\n#S     0#\n" + "#" * 9, 2, family="nav", autoreset_mode="NextStep")
    envs.reset(seed=0)
    left = np.full(2, 3)
    for _ in range(4):  # no limit: walking into the wall never truncates
        assert not envs.step(left)[3].any()
    envs.write_property("settings.max_steps", "3")
    assert envs.read_property("settings.max_steps") == "3"
    for _ in range(4):  # this episode keeps the limit it started with
        assert not envs.step(left)[3].any()
    envs.reset(options={"reset_mask": np.array([True, False])})
    truncated = [envs.step(left)[3] for _ in range(3)]
    assert truncated[-1].tolist() == [True, False] and not np.any(truncated[:-1])
    envs.write_property("settings.max_steps", "none")
    assert envs.read_property("settings.max_steps") == "none"


def test_writable_and_read_only_settings():
    roboman = gridsim.make("roboman:LiftRed")
    assert roboman.list_property("settings")[0] == ("settings.max_steps", R | W)
    flags = dict(roboman.list_property("settings"))
    assert flags["settings.exclude_solved_starts"] == R | W
    assert flags["settings.obs_type"] == R
    roboman.write_property("settings.exclude_solved_starts", "true")
    assert roboman.read_property("settings.exclude_solved_starts") == "true"
    with pytest.raises(PermissionError) as e:
        roboman.write_property("settings.obs_type", "grid")
    assert e.value.code == PropertyResult.PERMISSION_DENIED
    with pytest.raises(ValueError) as e:
        roboman.write_property("settings.max_steps", "0")
    assert e.value.code == PropertyResult.INVALID_ARGUMENT


def test_level_own_settings():
    a = gridsim.make("examples/maze:11", settings={"layout_seed": "1"})
    b = gridsim.make("examples/maze:11", settings={"layout_seed": "2"})
    assert a.read_property("settings.layout_seed") == "1"
    assert not np.array_equal(a.level.tiles, b.level.tiles)
    with pytest.raises(SettingsError):
        gridsim.make("examples/lava", settings={"layout_seed": "1"})


def test_level_protocol_init_and_specs():
    level, _ = load_level("examples/maze:9")
    assert level.init({"layout_seed": "4", "obs_type": "coords"}) == {"layout_seed": 4, "obs_type": "coords"}
    assert [s.name for s in level.observation_spec()][0] == "COORDS"
    assert level.discrete_action_spec() == [gridsim.ActionSpec("MOVE", 0, 3)]
    assert level.continuous_action_spec() == []
    assert [e.name for e in level.event_spec()] == ["goal_reached", "tile_collected", "wall_bump"]
    assert level.compile().height == 9
    with pytest.raises(SettingsError):
        level.init({"nope": "1"})


# ------------------------------------------------------------------------------------ specs


SPEC_CASES = [
    ("nav/four_rooms", {}),
    ("nav/four_rooms", {"obs_type": "view", "view_size": 5}),
    ("nav/four_rooms", {"obs_type": "image", "pixels_per_cell": 2, "channels_first": True}),
    ("nav/four_rooms", {"obs_type": "image"}),
    ("nav/four_rooms", {"actions": "2d_continuous"}),
    ("nav/four_rooms", {"actions": "1d_horizontal"}),
    ("roboman:StackRedOnGreen", {}),
    ("roboman:StackRedOnGreen", {"obs_type": "grid"}),
    ("roboman", {"tasks": ["LiftRed", "TouchBlue"], "task_in_obs": True}),
    ("kitchen/open-divider_salad", {}),
    ("kitchen/open-divider_salad", {"num_agents": 3, "channels_first": True}),
    ("kitchen/open-divider_salad", {"obs_type": "features"}),
    ("kitchen/open-divider_salad", {"agent_rows": True}),
    ("examples/maze:9", {}),
    ("examples/lava", {}),
]


@pytest.mark.parametrize("name, settings", SPEC_CASES)
def test_specs_match_the_arrays(name, settings):
    N = 4
    envs = gridsim.make(name, N, settings=settings)
    with pytest.raises(RuntimeError, match="not started"):
        envs.observation(envs.observation_spec()[0].name)
    obs, _ = envs.reset(seed=5)
    specs = envs.observation_spec()
    assert len({s.name for s in specs}) == len(specs)
    matched = 0
    for spec in specs:
        value = envs.observation(spec.name)
        if spec.dtype.kind == "U":
            assert spec.shape == () and isinstance(value, tuple) and len(value) == N
            assert all(isinstance(v, str) for v in value)
        elif -1 in spec.shape:
            assert isinstance(value, tuple) and len(value) == N
            for v in value:
                assert v.dtype == spec.dtype and v.ndim == len(spec.shape)
        else:
            assert isinstance(value, np.ndarray)
            assert (value.dtype, value.shape) == (spec.dtype, (N, *spec.shape)), spec
            if value.shape == obs.shape and value.dtype == obs.dtype and np.array_equal(value, obs):
                matched += 1
    assert matched >= 1, "the Gymnasium observation is one of the named observations"
    # The action space follows from the action specs.
    d, c = envs.discrete_action_spec(), envs.continuous_action_spec()
    space = envs.single_action_space
    if c:
        assert isinstance(space, gym.spaces.Box) and space.shape == (len(c),)
        assert space.low.tolist() == [s.min for s in c] and space.high.tolist() == [s.max for s in c]
    elif len(d) == 1 and not isinstance(space, gym.spaces.MultiDiscrete):
        assert space == gym.spaces.Discrete(d[0].max + 1)
    else:
        assert space == gym.spaces.MultiDiscrete([s.max + 1 for s in d])
    assert envs.text_action_spec() == []
    assert all(np.dtype(np.int32) for _ in envs.event_spec())


@pytest.mark.parametrize("settings, name", [
    ({"obs_type": "view"}, "VIEW"),
    ({"obs_type": "image", "pixels_per_cell": 3}, "IMAGE"),
    ({"obs_type": "image", "channels_first": True}, "IMAGE"),
])
def test_nav_observations_computed_on_demand_equal_the_kernels(settings, name):
    # Collectibles and randomized goals make the cells change; the on-demand views must follow.
    a = gridsim.make("examples/maze:9", num_envs=6,
                     settings={"randomize_goals": True, **settings, "obs_type": "coords"})
    b = gridsim.make("examples/maze:9", num_envs=6, settings={"randomize_goals": True, **settings})
    a.reset(seed=1)
    obs, _ = b.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = rng.integers(0, 4, 6)
        a.step(actions)
        obs = b.step(actions)[0]
        np.testing.assert_array_equal(a.observation(name), obs)


def test_roboman_observations_computed_on_demand_equal_the_kernels():
    a = gridsim.make("roboman:StackRedOnGreen", 8)
    b = gridsim.make("roboman:StackRedOnGreen", 8, obs_type="grid")
    obs_a, _ = a.reset(seed=2)
    obs_b, _ = b.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(60):
        np.testing.assert_array_equal(a.observation("GRID"), obs_b)
        np.testing.assert_array_equal(b.observation("STATE"), obs_a)
        np.testing.assert_array_equal(a.observation("ACTION_MASK"), (~a.action_masks()).astype(np.int8))
        actions = rng.integers(0, 7, 8)
        obs_a, obs_b = a.step(actions)[0], b.step(actions)[0]


def test_kitchen_named_observations():
    envs = gridsim.make("kitchen/open-divider_salad", 2, settings={"agent_rows": True})
    envs.reset(seed=0)
    state = envs.get_state(1)
    assert envs.observation("1.POSITION")[1].tolist() == list(state["agents"][0]["pos"])
    assert envs.observation("2.HELD").tolist() == [0, 0]
    assert envs.observation("WORLD.TEXT")[0] == envs.render_text(0)
    assert [s.name for s in envs.discrete_action_spec()] == ["MOVE"]


# ---------------------------------------------------------------------------- start / advance


def test_start_reproduces_an_episode_without_replaying_it():
    name = "examples/maze:9"
    a = gridsim.make(name, 4)
    obs, _ = a.reset(seed=10)
    rng = np.random.default_rng(3)
    ended = 0
    while ended < 2:  # play until row 2 has finished two episodes
        obs, _, term, trunc, _ = a.step(rng.integers(0, 4, 4))
        ended += bool(term[2] or trunc[2])
    obs, _, _, _, _ = a.step(np.zeros(4, np.int64))  # NEXT_STEP: row 2 starts episode 2
    assert a.read_property("episode.number", 2) == "2"
    b = gridsim.make(name, 7)
    b.start(0, 100)
    b.start(2, 7, index=5)  # row 5 gets seed 7 + 5 = 12, row 2 of `a` had 10 + 2
    assert b.read_property("episode.seed", 5) == "12" and b.read_property("episode.number", 5) == "2"
    np.testing.assert_array_equal(b.observation("VIEW")[5], obs[2])
    for _ in range(10):
        act = rng.integers(0, 4)
        obs, reward, term, trunc, _ = a.step(np.full(4, act))
        if term[2] or trunc[2]:
            break
        cont, r = b.advance(discrete=np.full((7, 1), act))
        assert r[5] == reward[2] and cont[5]
        np.testing.assert_array_equal(b.observation("VIEW")[5], obs[2])


def test_start_selects_envs_by_int_list_and_mask():
    envs = gridsim.make("examples/maze:9", 5)
    envs.start(0, 50)
    envs.start(3, [7, 8], index=[1, 4])
    assert [envs.read_property("episode.seed", i) for i in range(5)] == ["50", "7", "52", "53", "8"]
    assert [envs.read_property("episode.number", i) for i in range(5)] == ["0", "3", "0", "0", "3"]
    envs.start(1, 0, index=np.array([True, False, False, False, False]))
    assert envs.read_property("episode.number", 0) == "1"
    with pytest.raises(ValueError):
        envs.start(0, [1, 2], index=0)
    with pytest.raises(ValueError):
        envs.start(-1, 0)


def test_reset_seed_equals_start_episode_zero():
    a, b = gridsim.make("examples/maze:9", 3), gridsim.make("examples/maze:9", 3)
    obs, _ = a.reset(seed=4)
    b.start(0, 4)
    np.testing.assert_array_equal(b.observation("VIEW"), obs)


def test_advance_never_autoresets_and_reports_status():
    envs = gridsim.make("=#####\n#S 0#\n#####", 2, family="nav", max_episode_steps=5, autoreset_mode="SameStep")
    with pytest.raises(RuntimeError, match="not started"):
        envs.advance(discrete=np.zeros((2, 1), np.int64))
    envs.reset(seed=0)
    assert envs.status().tolist() == [EnvironmentStatus.RUNNING] * 2
    cont, reward = envs.advance(discrete=np.array([[1], [3]]))  # right / left into the wall
    assert cont.tolist() == [True, True] and reward.dtype == np.float32
    cont, reward = envs.advance(discrete=np.array([1, 3]))
    assert cont.tolist() == [False, True] and reward[0] == 1.0
    assert envs.observation("COORDS")[0].tolist() == [1, 3]  # not reset
    assert envs.status().tolist() == [EnvironmentStatus.TERMINATED, EnvironmentStatus.RUNNING]
    with pytest.raises(RuntimeError, match="ended"):
        envs.advance(discrete=np.array([1, 3]))
    envs.start(1, 0, index=0)
    for _ in range(3):
        cont, _ = envs.advance(discrete=np.array([3, 3]))
    assert cont.tolist() == [True, False]
    assert envs.status().tolist() == [EnvironmentStatus.RUNNING, EnvironmentStatus.INTERRUPTED]
    envs.start(1, 0, index=1)
    obs, _, term, _, _ = envs.step(np.array([1, 1]))  # step() keeps its own autoreset mode
    obs, _, term, _, infos = envs.step(np.array([1, 1]))
    assert term.all() and "final_obs" in infos


def test_advance_checks_its_actions():
    envs = gridsim.make("examples/maze:9", 2)
    envs.reset(seed=0)
    with pytest.raises(InvalidActionError):
        envs.advance(discrete=np.zeros((3, 1), np.int64))
    with pytest.raises(InvalidActionError):
        envs.advance(continuous=np.zeros((2, 2)))
    with pytest.raises(InvalidActionError):
        envs.advance(discrete=np.array([[4], [0]]))
    cont_env = gridsim.make("examples/maze:9", 2, actions="2d_continuous")
    cont_env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="NaN"):
        cont_env.advance(continuous=np.array([[np.nan, 0.0], [0.0, 0.0]]))
    cont, _ = cont_env.advance(continuous=np.zeros((2, 2), np.float32))
    assert cont.all()
    kitchen = gridsim.make("kitchen/open-divider_salad", 2, num_agents=3)
    kitchen.reset(seed=0)
    cont, _ = kitchen.advance(discrete=np.zeros((2, 3), np.int64))
    assert cont.shape == (2,)
    with pytest.raises(ValueError, match="no text actions"):
        kitchen.advance(discrete=np.zeros((2, 3), np.int64), text=["hello", ""])


# ------------------------------------------------------------------------------- properties


def test_property_listing():
    envs = gridsim.make("examples/maze:9", 2)
    top = dict(envs.list_property(""))
    assert top["settings"] == L and top["num_envs"] == R and top["episode"] == L
    episode = envs.list_property("episode")
    assert [k for k, _ in episode] == ["episode.number", "episode.step", "episode.seed", "episode.return"]
    assert all(a == R for _, a in episode)
    assert dict(envs.list_property("state.agent"))["state.agent.pos"] == R | W
    assert ("level.goals", R) in envs.list_property("level")


@pytest.mark.parametrize("call, args, exc, code", [
    ("read_property", ("no.such",), KeyError, PropertyResult.NOT_FOUND),
    ("read_property", ("settings",), PermissionError, PropertyResult.PERMISSION_DENIED),
    ("read_property", ("episode.step",), ValueError, PropertyResult.INVALID_ARGUMENT),  # per env, N > 1
    ("read_property", ("episode.step", 9), ValueError, PropertyResult.INVALID_ARGUMENT),
    ("write_property", ("no.such", "1"), KeyError, PropertyResult.NOT_FOUND),
    ("write_property", ("num_envs", "3"), PermissionError, PropertyResult.PERMISSION_DENIED),
    ("write_property", ("settings", "3"), PermissionError, PropertyResult.PERMISSION_DENIED),
    ("write_property", ("state.agent.pos", "1;1", 0), ValueError, PropertyResult.INVALID_ARGUMENT),
    ("write_property", ("state.agent.pos", "0,0", 0), ValueError, PropertyResult.INVALID_ARGUMENT),  # a wall
    ("write_property", ("state.agent.pos", 3, 0), ValueError, PropertyResult.INVALID_ARGUMENT),
    ("write_property", ("settings.max_steps", "-2"), ValueError, PropertyResult.INVALID_ARGUMENT),
    ("list_property", ("no.such",), KeyError, PropertyResult.NOT_FOUND),
    ("list_property", ("num_envs",), PermissionError, PropertyResult.PERMISSION_DENIED),
])
def test_property_errors_raise_with_their_code(call, args, exc, code):
    envs = gridsim.make("examples/maze:9", 2)
    envs.reset(seed=0)
    with pytest.raises(exc) as e:
        getattr(envs, call)(*args)
    assert e.value.code == code
    result = getattr(envs, "try_" + call)(*args)
    assert (result if call == "write_property" else result[0]) == code
    if call != "write_property":
        assert result[1] in (None, [])


def test_try_variants_on_success():
    envs = gridsim.make("examples/maze:9", 1)
    envs.reset(seed=0)
    assert envs.try_read_property("episode.step") == (PropertyResult.SUCCESS, "0")  # index defaults to 0
    assert envs.try_write_property("state.agent.pos", "1,1") == PropertyResult.SUCCESS
    code, listing = envs.try_list_property("level")
    assert code == PropertyResult.SUCCESS and ("level.name", R) in listing


def test_common_properties_follow_the_episode():
    envs = gridsim.make("examples/maze:9", 3)
    envs.reset(seed=[5, 6, 7])
    assert envs.read_property("num_envs") == "3"
    assert [envs.read_property("episode.seed", i) for i in range(3)] == ["5", "6", "7"]
    total = np.zeros(3)
    for _ in range(4):
        total += envs.step(np.array([0, 1, 2]))[1]
    assert envs.read_property("episode.step", 1) == "4"
    assert float(envs.read_property("episode.return", 2)) == total[2]
    assert envs.read_property("events.dropped", 0) == "0"
    unseeded = gridsim.make("examples/maze:9", 1)
    unseeded.reset()
    assert int(unseeded.read_property("episode.seed")) >= 0  # OS entropy, recorded for replay


def test_nav_state_properties():
    envs = gridsim.make("examples/maze:9", 2)
    envs.reset(seed=0)
    envs.write_property("state.agent.pos", "1,3", index=1)
    assert envs.read_property("state.agent.pos", 1) == "1,3"
    assert envs.observation("COORDS")[1].tolist() == [1, 3]
    assert envs.read_property("level.goals") == "1,1;1,7;7,1;7,7"
    table = envs.read_property("rewards.table", 0).split(",")
    assert len(table) == 81 and float(table[1 * 9 + 2]) == -1.0  # a floor cell of the navigation alphabet
    noisy = gridsim.make("nav/room2_small", 2, alphabet="noisy")
    noisy.reset(seed=[1, 2])
    assert noisy.read_property("rewards.table", 0) != noisy.read_property("rewards.table", 1)


def test_roboman_state_properties_round_trip():
    envs = gridsim.make("roboman:StackRedOnGreen", 2)
    envs.reset(seed=0)
    envs.write_property("state.agent.pos", "3,4", index=0)
    envs.write_property("state.objects.red.pos", "3,4", index=0)
    envs.write_property("state.held", "red", index=0)
    envs.write_property("state.timer", "7", index=0)
    state = envs.get_state(0)
    assert state["agent_pos"] == (3, 4) and state["lifted_obj_idx"] == 0 and state["timer"] == 7
    assert envs.read_property("state.objects.red.pos", 0) == "3,4"
    assert envs.read_property("state.held", 0) == "red"
    assert envs.read_property("episode.step", 0) == "7"
    envs.write_property("state.held", "none", index=0)
    envs.write_property("state.objects.red.below", "green", index=0)
    assert envs.read_property("state.objects.red.below", 0) == "green"
    assert envs.read_property("task.name", 1) == "StackRedOnGreen"
    with pytest.raises(ValueError) as e:
        envs.write_property("state.held", "purple", index=0)
    assert e.value.code == PropertyResult.INVALID_ARGUMENT
    with pytest.raises(ValueError):
        envs.write_property("state.agent.pos", "7,0", index=0)


def test_kitchen_properties():
    envs = gridsim.make("kitchen/open-divider_salad", 2, agent_rows=True)
    envs.reset(seed=0)
    assert envs.read_property("level.recipes") == "Salad"
    assert envs.read_property("level.items").startswith("0:EMPTY,1:")
    assert envs.read_property("settings.num_agents") == "2"
    x, y = envs.get_state(0)["agents"][1]["pos"]
    assert envs.read_property("state.agents.1.pos", 1) == f"{x},{y}"
    assert envs.read_property("state.agents.0.held", 0) == "none"
    assert envs.read_property("state.delivered", 0) == ""
    with pytest.raises(PermissionError):
        envs.write_property("state.agents.0.pos", "1,1", index=0)


def test_a_state_write_clears_the_envs_events():
    envs = gridsim.make("=#####\n#S  #\n#####", 2, family="nav", events=True)
    envs.reset(seed=0)
    envs.step(np.array([3, 3]))  # into the wall
    assert [n for n, _ in envs.events(0)] == ["wall_bump"]
    envs.write_property("state.agent.pos", "1,2", index=0)
    assert envs.events(0) == [] and [n for n, _ in envs.events(1)] == ["wall_bump"]


# ---------------------------------------------------------------------------------- events


def test_event_specs_per_family():
    assert [e.name for e in gridsim.make("roboman").event_spec()] == ["object_lifted", "object_put", "goal_reached"]
    kitchen = gridsim.make("kitchen/open-divider_salad")
    assert [e.name for e in kitchen.event_spec()] == [
        "item_picked", "item_put", "item_chopped", "items_merged", "dish_delivered", "collision", "goal_reached"]
    assert kitchen.event_spec()[0].fields == ("agent", "item", "x", "y")


def test_events_batch_is_ordered_by_env_then_emission():
    envs = gridsim.make("=#####\n#S 0#\n#####", 3, family="nav", events=True)
    envs.reset(seed=0)
    envs.step(np.array([3, 0, 1]))  # env 0 bumps the left wall, env 1 the top wall, env 2 moves
    batch = envs.events_batch()
    assert batch["env"].tolist() == [0, 1] and batch["type"].tolist() == [3, 3]
    assert batch["payload"].tolist() == [[1, 0], [0, 1]]
    assert batch["env"].dtype == np.int32 and batch["type"].dtype == np.int16 and batch["payload"].dtype == np.int32
    envs.step(np.array([1, 1, 1]))  # the bumps are cleared; env 2 reaches the goal
    batch = envs.events_batch()
    assert batch["env"].tolist() == [2] and batch["type"].tolist() == [1] and batch["payload"].tolist() == [[1, 3]]
    assert [[n for n, _ in envs.events(i)] for i in range(3)] == [[], [], ["goal_reached"]]


def test_agent_rows_report_their_kitchens_events():
    envs = gridsim.make("kitchen/open-divider_salad", 4, agent_rows=True, events=True)
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.array([4, 3, 0, 0]))  # kitchen 0's agents walk into each other's way
    assert repr(envs.events(0)) == repr(envs.events(1)) and envs.events(0)
    batch = envs.events_batch()
    per_row = [int((batch["env"] == r).sum()) for r in range(4)]
    assert per_row[0] == per_row[1] == len(envs.events(0)) and per_row[2] == per_row[3] == len(envs.events(2))


# --------------------------------------------------------------------- built-ins and examples


def test_every_builtin_level_loads_through_the_api():
    names = builtin_level_names("nav") + builtin_level_names("kitchen") + [
        "roboman", "roboman:StackRedOnGreen", "roboman:MoveGreenFarFromBlue", "examples/lava", "examples/maze"]
    for name in names:
        envs = gridsim.make(name, 2)
        envs.reset(seed=0)
        envs.step(np.asarray(envs.action_space.sample()))
        assert envs.read_property("level.name") == name.split(":")[0]
    with pytest.raises(ValueError):
        gridsim.make("roboman:NoSuchTask")


def test_maze_size_is_the_argument():
    for size in (5, 9, 21):
        envs = gridsim.make(f"examples/maze:{size}", 2)
        assert (envs.level.height, envs.level.width) == (size, size)
    for bad in ("4", "x", "3"):
        with pytest.raises(ValueError, match="odd size"):
            gridsim.make(f"examples/maze:{bad}")


@pytest.mark.parametrize("name", ["examples/maze:21", "examples/lava"])
def test_example_levels_step_deterministically_in_batches(name):
    def run(num_envs, seeds):
        envs = gridsim.make(name, num_envs, events=True, autoreset_mode="SameStep")
        obs, _ = envs.reset(seed=seeds)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(80):
            actions = rng.integers(0, 4, 1).repeat(num_envs)
            obs, rew, term, trunc, _ = envs.step(actions)
            out.append((obs[:3].copy(), rew[:3].copy(), term[:3].copy(), trunc[:3].copy(),
                        [envs.events(i) for i in range(3)]))
        return out

    def same(a, b):
        arrays = all(np.array_equal(x, y) for sa, sb in zip(a, b, strict=True)
                     for x, y in zip(sa[:4], sb[:4], strict=True))
        return arrays and all(repr(sa[4]) == repr(sb[4]) for sa, sb in zip(a, b, strict=True))

    small = run(3, [11, 12, 13])
    assert same(small, run(8, [11, 12, 13, 1, 2, 3, 4, 5]))
    assert not same(small, run(3, [21, 22, 23]))


def test_registered_generic_level_id():
    envs = gym.make_vec("gridsim/Level-v0", num_envs=3, level="examples/lava")
    assert envs.observation_space.shape == (3, 5, 5)
    env = gym.make("gridsim/Level-v0", level="roboman:LiftRed")
    obs, info = env.reset(seed=0)
    assert obs.shape == (11,) and "action_mask" in info
    env.step(0)
    gridsim.register_level("test/LavaShort-v0", "examples/lava", settings={"max_steps": "5"})
    short = gym.make_vec("test/LavaShort-v0", num_envs=2)
    assert short.unwrapped.read_property("settings.max_steps") == "5"


def test_the_tutorial_in_docs_levels_md_works(tmp_path, monkeypatch):
    # The four steps of "Writing a level from scratch", with the files written as the guide shows.
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "my_levels" / "nav" / "ice.txt", """\
        %gridsim 1
        [meta]
        family = nav
        max_episode_steps = 60
        [legend]
        ~ = reward=-1 terminal color=160,220,255
        S = reward=-0.1 initial
        ' ' = reward=-0.1
        [map]
        #########
        #SS ~  0#
        #SS ~~  #
        #S      #
        #########
        """)
    envs = gridsim.make("nav/ice", num_envs=64, level_directory="my_levels")
    obs, _ = envs.reset(seed=0)
    assert envs.max_episode_steps == 60
    assert {tuple(p) for p in obs} == {(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)}
    write(tmp_path / "my_levels" / "ice.py", """\
        from pathlib import Path

        import gridsim

        LEVEL = gridsim.Level(
            "nav",
            map=Path(__file__).parent / "nav" / "ice.txt",
            defaults={"max_steps": 60, "obs_type": "view", "view_size": 5},
        )
        """)
    ice = gridsim.make("ice", level_directory="my_levels")
    assert ice.single_observation_space.shape == (5, 5)
    assert ice.read_property("level.path") == str(tmp_path / "my_levels" / "ice.py")
    maze = gridsim.make("examples/maze:21", num_envs=8, settings={"layout_seed": "3"})
    assert maze.level.height == 21
    gridsim.register_level("tutorial/Maze21-v0", "examples/maze:21", settings={"max_steps": "400"})
    vec = gym.make_vec("tutorial/Maze21-v0", num_envs=8)
    assert vec.unwrapped.read_property("settings.max_steps") == "400"
    env = gym.make("tutorial/Maze21-v0")
    env.reset(seed=0)
    env.step(0)


def test_text_actions_reach_the_level_hook(tmp_path):
    write(tmp_path / "talk.py", """
        import gridsim

        class Talk(gridsim.Level):
            def text_action_spec(self):
                return ["TELEPORT"]

            def on_text_actions(self, env, index, text):
                env.write_property("state.agent.pos", text, index=index)

        LEVEL = Talk("nav", map="######\\n#S   #\\n#   0#\\n######")
        """)
    envs = gridsim.make("talk", 2, level_directory=tmp_path)
    envs.reset(seed=0)
    assert envs.text_action_spec() == ["TELEPORT"]
    cont, reward = envs.advance(discrete=np.array([2, 0]), text=["1,4", None])  # env 0 jumps, then moves down
    assert envs.observation("COORDS").tolist() == [[2, 4], [1, 1]]
    assert cont.tolist() == [False, True] and reward[0] == 1.0


def test_state_dict_keeps_a_written_max_steps():
    a = gridsim.make("examples/maze:9", 2)
    a.reset(seed=0)
    a.write_property("settings.max_steps", "5")
    b = gridsim.make("examples/maze:9", 2)
    b.load_state_dict(a.state_dict())
    assert b.read_property("settings.max_steps") == "5"


def test_set_state_clears_the_envs_events_in_every_family():
    nav_envs = gridsim.make("=#####\n#S  #\n#####", 2, family="nav", events=True)
    nav_envs.reset(seed=0)
    nav_envs.step(np.array([3, 3]))
    nav_envs.set_state(nav_envs.get_state(1), 1)
    assert nav_envs.events(1) == [] and len(nav_envs.events(0)) == 1
    roboman = gridsim.make("roboman:LiftRed", 2, events=True)
    roboman.reset(seed=0)
    for i in range(2):
        state = roboman.get_state(i)
        state["agent_pos"] = (state["objs"][0]["x"], state["objs"][0]["y"])
        roboman.set_state(state, i)
    roboman.step(np.array([5, 5]))
    assert [n for n, _ in roboman.events(0)] == ["object_lifted", "goal_reached"]
    roboman.set_state(roboman.get_state(0), 0)
    assert roboman.events(0) == [] and len(roboman.events(1)) == 2
    kitchen = gridsim.make("kitchen/open-divider_salad", 2, events=True)
    kitchen.reset(seed=0)
    for _ in range(4):
        kitchen.step(np.array([[4, 3], [4, 3]]))
    assert kitchen.events(0) and kitchen.events(1)
    kitchen.set_state(kitchen.get_state(0), 0)
    assert kitchen.events(0) == [] and kitchen.events(1)


def test_info_events_puts_the_batch_in_infos():
    envs = gridsim.make("=#####\n#S 0#\n#####", 3, family="nav", events=True, info_events=True)
    envs.reset(seed=0)
    *_, infos = envs.step(np.array([3, 0, 1]))
    batch = envs.events_batch()
    assert infos["events"].keys() == batch.keys()
    for key in batch:
        np.testing.assert_array_equal(infos["events"][key], batch[key])
    assert infos["events"]["env"].tolist() == [0, 1]  # length E, not N
    with pytest.raises(ValueError, match="needs events=True"):
        gridsim.make("examples/lava", info_events=True)


def test_agent_positions_read_the_same_in_every_family():
    nav_envs = gridsim.make("examples/maze:9", 2)
    nav_envs.reset(seed=0)
    assert nav_envs.read_property("agent.0.position", 1) == nav_envs.read_property("state.agent.pos", 1)
    assert nav_envs.read_property("level.goal_cells") == nav_envs.read_property("level.goals")
    roboman = gridsim.make("roboman:LiftRed", 2)
    roboman.reset(seed=0)
    x, y = roboman.get_state(1)["agent_pos"]
    assert roboman.read_property("agent.0.position", 1) == f"{x},{y}"
    kitchen = gridsim.make("kitchen/open-divider_salad", 2, num_agents=3)
    kitchen.reset(seed=0)
    assert [kitchen.read_property(f"agent.{k}.position", 0) for k in range(3)] == [
        ",".join(map(str, a["pos"])) for a in kitchen.get_state(0)["agents"]]
    assert [k for k, _ in kitchen.list_property("agent")] == ["agent.0", "agent.1", "agent.2"]
