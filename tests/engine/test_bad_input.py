"""Bad level names, level files and settings raise gridsim errors, and never run code they should not."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS

import gridsim
from gridsim.envs import KitchenVectorEnv, NavVectorEnv, RobomanVectorEnv
from gridsim.families import FAMILIES
from gridsim.lab2d import PropertyNotFoundError, PropertyPermissionError, PropertyResult, PropertyValueError
from gridsim.levels import find_level
from gridsim.levels.lookup import builtin_level_names, resolve_level

TINY_NAV = "%gridsim 1\n[meta]\nfamily = nav\n[map]\n#####\n#S 0#\n#####\n"


def evil_module(path: Path, marker: Path) -> Path:
    """A level module that leaves ``marker`` behind when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(f"""\
        from pathlib import Path
        Path({str(marker)!r}).write_text("ran")
        import gridsim
        LEVEL = gridsim.Level("nav", map="#####\\n#S 0#\\n#####")
        """))
    return path


# --------------------------------------------------------------------------- names stay in the roots


@pytest.mark.parametrize("how", ["absolute", "dotdot", "dotdot_in_directory", "make_vec", "level_env", "setting"])
def test_a_name_never_reaches_python_outside_the_level_directories(tmp_path, how):
    outside = tmp_path / "outside"
    marker = tmp_path / "marker.txt"
    evil = evil_module(outside / "evil.py", marker)
    levels = tmp_path / "levels"
    (levels / "sub").mkdir(parents=True)
    attempts = {
        "absolute": lambda: gridsim.make(str(evil)),
        "dotdot": lambda: gridsim.make("../outside/evil", level_directory=levels),
        "dotdot_in_directory": lambda: gridsim.make("sub/../../outside/evil", level_directory=levels),
        "make_vec": lambda: gym.make_vec("gridsim/Level-v0", num_envs=2, level=str(evil.with_suffix(""))),
        "level_env": lambda: gym.make("gridsim/Level-v0", level="../outside/evil", level_directory=levels),
        "setting": lambda: gridsim.make(settings={"levelName": "../outside/evil", "levelDirectory": str(levels)}),
    }
    with pytest.raises(gridsim.LevelError, match="level directories"):
        attempts[how]()
    assert not marker.exists()


def test_a_symbolic_link_out_of_the_level_directory_is_refused(tmp_path):
    marker = tmp_path / "marker.txt"
    evil = evil_module(tmp_path / "outside" / "evil.py", marker)
    levels = tmp_path / "levels"
    levels.mkdir()
    os.symlink(evil, levels / "linked.py")
    with pytest.raises(gridsim.LevelError, match="outside the level directory"):
        gridsim.make("linked", level_directory=levels)
    assert not marker.exists()


def test_level_path_is_the_real_file_and_builtin_only_for_built_in_levels(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "mine.txt").write_text(TINY_NAV)
    os.symlink(tmp_path / "real", tmp_path / "alias")
    envs = gridsim.make("alias/mine", level_directory=tmp_path)
    assert envs.read_property("level.path") == str(tmp_path / "real" / "mine.txt")
    assert gridsim.make("nav/room1_small").read_property("level.path") == "builtin:nav/room1_small"


def test_a_level_directory_and_a_name_still_load_a_file_of_ones_own(tmp_path):
    (tmp_path / "mine.txt").write_text(TINY_NAV)
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "other.txt").write_text(TINY_NAV)
    assert gridsim.make("mine", level_directory=tmp_path).level.width == 5
    assert gridsim.make("mine.txt", level_directory=tmp_path).level.width == 5
    assert gridsim.make("maps/other", level_directory=str(tmp_path)).level.width == 5
    assert NavVectorEnv(num_envs=1, level="maps/other.txt", level_directory=tmp_path).level.width == 5


# --------------------------------------------------------------------------- allow_code


def test_allow_code_false_refuses_python_levels_before_they_run(tmp_path):
    marker = tmp_path / "marker.txt"
    evil_module(tmp_path / "evil.py", marker)
    attempts = [
        lambda: gridsim.make("evil", level_directory=tmp_path, allow_code=False),
        lambda: gridsim.make("evil", level_directory=tmp_path, settings={"allow_code": "false"}),
        lambda: gym.make_vec("gridsim/Level-v0", num_envs=2, level="evil", level_directory=tmp_path, allow_code=False),
        lambda: gym.make("gridsim/Level-v0", level="evil", level_directory=tmp_path, allow_code=False),
        lambda: gridsim.make(tmp_path / "evil.py", allow_code=False),
        lambda: resolve_level("evil", tmp_path, allow_code=False),
        lambda: gridsim.make("examples/maze:9", allow_code=False),
    ]
    for attempt in attempts:
        with pytest.raises(gridsim.LevelError, match="allow_code=False"):
            attempt()
    assert not marker.exists()


def test_allow_code_false_accepts_text_levels_and_reads_back():
    envs = gridsim.make("nav/room1_small", num_envs=2, allow_code=False)
    envs.reset(seed=0)
    assert envs.read_property("settings.allow_code") == "false"
    kitchen = gym.make_vec("gridsim/Kitchen-open-divider_salad-v0", num_envs=2, allow_code=False)
    kitchen.reset(seed=0)
    with pytest.raises(gridsim.SettingsError, match="allow_code"):
        gridsim.make("nav/room1_small", allow_code=False, settings={"allow_code": "true"})


# --------------------------------------------------------------------------- step limits that fit int32


def by_class(family: str):
    """A factory of one env of ``family``'s class, with its first id's keywords and the step limit it is given."""
    cls, kwargs = FAMILIES[family].vector_env, gym.spec(FAMILY_IDS[family][0]).kwargs
    return lambda steps: cls(num_envs=1, max_episode_steps=steps, **kwargs)


@pytest.mark.parametrize("make", [
    *(pytest.param(by_class(family), id=family) for family in FAMILY_IDS),
    pytest.param(lambda steps: gridsim.make("examples/maze:7", max_episode_steps=steps), id="level-module"),
    pytest.param(lambda steps: gridsim.make("nav/room1_small", settings={"max_steps": str(steps)}), id="setting"),
])
def test_a_step_limit_past_int32_is_an_invalid_argument(make):
    with pytest.raises(gridsim.InvalidArgumentError, match="2147483647"):
        make(2**31)
    assert make(2**31 - 1).max_episode_steps == 2**31 - 1


def test_write_property_refuses_a_step_limit_past_int32_and_try_returns_the_code():
    envs = gridsim.make("nav/room1_small", num_envs=2)
    with pytest.raises(PropertyValueError, match="max_steps"):
        envs.write_property("settings.max_steps", str(2**31))
    assert envs.try_write_property("settings.max_steps", str(2**31)) is PropertyResult.INVALID_ARGUMENT
    assert envs.try_write_property("settings.max_steps", "9" * 40) is PropertyResult.INVALID_ARGUMENT
    assert envs.read_property("settings.max_steps") == "none"


def test_a_level_file_with_a_step_limit_past_int32_is_a_level_error(tmp_path):
    (tmp_path / "long.txt").write_text(TINY_NAV.replace("family = nav", f"family = nav\nmax_episode_steps = {2**31}"))
    with pytest.raises(gridsim.LevelError) as info:
        gridsim.make("long", level_directory=tmp_path)
    assert (info.value.line, info.value.col) == (4, 21)


# --------------------------------------------------------------------------- malformed files and maps


@pytest.mark.parametrize("family", [name for name in FAMILIES if builtin_level_names(name)])  # text levels
def test_a_file_that_is_not_utf8_is_a_level_error_with_its_line(tmp_path, family):
    source = find_level(builtin_level_names(family)[0]).read_bytes()
    lines = source.split(b"\n")
    lines[2] = lines[2][:3] + b"\xff" + lines[2][4:]
    (tmp_path / family).mkdir()
    path = tmp_path / family / "latin.txt"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(gridsim.LevelError, match="not UTF-8") as info:
        gridsim.make(f"{family}/latin", level_directory=tmp_path)
    assert (info.value.source, info.value.line, info.value.col) == (str(path), 3, 4)


def test_a_map_whose_family_cannot_be_told_is_a_level_error(tmp_path):
    (tmp_path / "mystery.txt").write_text("#####\n#S 0#\n#####\n")
    with pytest.raises(gridsim.LevelError, match="cannot tell the family"):
        gridsim.make("mystery", level_directory=tmp_path)
    with pytest.raises(gridsim.LevelError, match="unknown family"):
        (tmp_path / "odd.txt").write_text(TINY_NAV.replace("family = nav", "family = chess"))
        gridsim.make("odd", level_directory=tmp_path)


def test_a_level_module_that_is_not_python_is_a_level_error_with_its_line(tmp_path):
    (tmp_path / "broken.py").write_text("import gridsim\nLEVEL = gridsim.Level(\n")
    with pytest.raises(gridsim.LevelError, match="invalid Python") as info:
        gridsim.make("broken", level_directory=tmp_path)
    assert info.value.source == str(tmp_path / "broken.py") and info.value.line == 2


def test_a_level_module_refusing_its_argument_or_settings_is_a_level_error():
    with pytest.raises(gridsim.LevelError, match="odd size"):
        gridsim.make("examples/maze:4")
    with pytest.raises(gridsim.LevelError, match="layout_seed"):
        gridsim.make("examples/maze:9", settings={"layout_seed": "-1"})


def test_a_kitchen_over_32767_cells_is_a_level_error():
    rows = ["-" * 200] + ["-" + " " * 198 + "-"] * 198 + ["-" * 200]
    text = "\n".join([*rows, "", "Salad", "", "1 1"])
    with pytest.raises(gridsim.LevelError, match="at most 32767") as info:
        KitchenVectorEnv(num_envs=1, level="=" + text, num_agents=1)
    assert info.value.line == 1


def test_a_navigation_map_wider_than_int16_is_a_level_error():
    row = "S" + " " * 40_000 + "0"
    with pytest.raises(gridsim.LevelError, match="32767"):
        NavVectorEnv(num_envs=1, level="=" + row)


def test_sizes_past_the_kernels_indices_are_invalid_arguments():
    with pytest.raises(gridsim.InvalidArgumentError, match="tasks"):
        RobomanVectorEnv(num_envs=1, tasks=["LiftRed"] * 2**15)
    with pytest.raises(gridsim.InvalidArgumentError, match="view_size"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", obs_type="view", view_size=2**31 - 1)
    with pytest.raises(gridsim.InvalidArgumentError, match="pixels_per_cell"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", obs_type="image", pixels_per_cell=2**20)
    with pytest.raises(gridsim.InvalidArgumentError, match="num_envs"):
        NavVectorEnv(num_envs=2**63, level="nav/room1_small")
    with pytest.raises(gridsim.InvalidArgumentError, match="num_threads"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", num_threads="²")


# --------------------------------------------------------------------------- one hierarchy


@pytest.mark.parametrize(("error", "builtin"), [
    (gridsim.SettingsError, ValueError),
    (PropertyNotFoundError, KeyError),
    (PropertyPermissionError, PermissionError),
    (PropertyValueError, ValueError),
    (gridsim.InvalidArgumentError, ValueError),
    (gridsim.ArgumentTypeError, TypeError),
])
def test_settings_and_property_errors_are_gridsim_errors(error, builtin):
    assert issubclass(error, gridsim.GridSimError) and issubclass(error, builtin)


def test_common_mistakes_raise_gridsim_errors_that_are_their_old_builtins():
    with pytest.raises(gridsim.InvalidArgumentError):
        NavVectorEnv(num_envs=0, level="nav/room1_small")
    with pytest.raises(gridsim.ArgumentTypeError, match="did you mean 'max_episode_steps'"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", max_episode_step=3)
    with pytest.raises(gridsim.InvalidArgumentError, match="obs_dtype"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", obs_dtype="not a dtype")
    with pytest.raises(gridsim.ArgumentTypeError, match="level_directory"):
        gridsim.make("nav/room1_small", level_directory=3)
    with pytest.raises(gridsim.InvalidArgumentError, match="family"):
        gridsim.make("nav/room1_small", family=np.array([1, 2]))
    with pytest.raises(gridsim.ArgumentTypeError, match="settings"):
        gridsim.make("nav/room1_small", settings=3)


def test_level_api_calls_with_bad_arguments_raise_gridsim_errors_that_are_their_old_builtins():
    envs = gridsim.make("nav/room1_small", num_envs=3)
    envs.reset(seed=0)
    with pytest.raises(gridsim.EnvIndexError):  # an IndexError
        envs.events(-2**63)
    with pytest.raises(gridsim.EnvIndexError):
        envs.start(0, 0, index=7)
    with pytest.raises(gridsim.NameNotFoundError, match="COORDS"):  # a KeyError
        envs.observation(["COORDS"])
    with pytest.raises(gridsim.InvalidArgumentError, match="episode"):
        envs.start(2**63, 0)
    with pytest.raises(gridsim.ArgumentTypeError, match="seed"):
        envs.start(0, True)
    with pytest.raises(PropertyValueError):
        envs.list_property(np.array([1, 2]))
    assert issubclass(gridsim.EnvIndexError, IndexError) and issubclass(gridsim.NameNotFoundError, KeyError)


def test_flags_choices_and_render_sizes_are_checked_before_anything_is_allocated():
    with pytest.raises(gridsim.InvalidArgumentError, match="copy"):
        NavVectorEnv(num_envs=1, level="nav/room1_small", copy=np.array([1, 2]))
    with pytest.raises(gridsim.InvalidArgumentError, match="agent_rows"):
        KitchenVectorEnv(num_envs=2, agent_rows="yes")
    with pytest.raises(gridsim.InvalidArgumentError, match="obs_type"):
        RobomanVectorEnv(num_envs=1, obs_type=["vector"])
    with pytest.raises(gridsim.InvalidArgumentError, match="view_size"):  # a 1 GB padded map
        NavVectorEnv(num_envs=1, level="nav/room1_small", view_size=2**15 - 1)
    with pytest.raises(gridsim.InvalidArgumentError, match="tile_px"):
        KitchenVectorEnv(num_envs=1, tile_px=2**20)
    with pytest.raises(gridsim.InvalidArgumentError, match="max_events_per_step"):
        RobomanVectorEnv(num_envs=1, events=True, max_events_per_step=2**40)
    assert NavVectorEnv(num_envs=1, level="nav/room1_small", copy=1, view_size=1023, obs_type="view").copy is True
