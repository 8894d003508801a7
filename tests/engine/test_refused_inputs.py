"""Bad input at the public boundaries gets a gridsim error, never a raw builtin one.

Render sizes, nested and seed settings, private keyword arguments, PettingZoo actions, ids
on the command line, line endings of level files, re-registered ids and the suggestions
of a level that is not found.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from engine.family_cases import FAMILY_IDS, make_vec

import gridsim
from gridsim.cli import level_argument, main
from gridsim.engine.draw import MAX_CELL_PX, MAX_FRAME_PIXELS, check_cell_px
from gridsim.engine.settings import MAX_SETTINGS_DEPTH, flatten_args
from gridsim.kitchen.level import parse_kitchen_text
from gridsim.kitchen.parallel import parallel_env
from gridsim.levels.lookup import builtin_root, level_names
from gridsim.levels.textmap import decode_level_bytes, parse_level_text, split_lines
from gridsim.tools.record import record_episode

ONE_ID_PER_FAMILY = [pytest.param(ids[0], id=name) for name, ids in FAMILY_IDS.items()]
ROOM = "#####\n#S 0#\n#####\n"
KITCHEN = "-t-\n- *\n-p-\n\nSimpleTomato\n\n1 1\n"


@pytest.fixture(scope="module", params=ONE_ID_PER_FAMILY)
def envs(request):
    envs = make_vec(request.param, 2, render_mode="rgb_array")
    envs.reset(seed=0)
    yield envs
    envs.close()


# --------------------------------------------------------------------------- render sizes


@pytest.mark.parametrize("cell_px", [-3, 0, MAX_CELL_PX + 1, 2**31, 2**70])
def test_render_frame_refuses_cell_px_out_of_range(envs, cell_px):
    with pytest.raises(gridsim.InvalidArgumentError, match=r"cell_px must be an integer in 1\.\.256"):
        envs.render_frame(0, cell_px)


@pytest.mark.parametrize("cell_px", [2.5, 3.0, "3", True, np.bool_(True), [4]])
def test_render_frame_refuses_cell_px_of_another_type(envs, cell_px):
    with pytest.raises(gridsim.ArgumentTypeError, match="cell_px"):
        envs.render_frame(0, cell_px)


def test_render_frame_takes_every_integer_cell_px_in_range(envs):
    small, big = envs.render_frame(0, 1), envs.render_frame(0, np.int16(MAX_CELL_PX))
    assert big.shape == (small.shape[0] * MAX_CELL_PX, small.shape[1] * MAX_CELL_PX, 3)
    assert [f.shape for f in envs.render()] == [envs.render_frame(i).shape for i in range(2)]


def test_frames_over_the_pixel_limit_are_refused_before_they_are_allocated():
    assert check_cell_px(None, 16, 100, 100) == 16
    with pytest.raises(gridsim.InvalidArgumentError, match="at most 67108864 pixels"):
        check_cell_px(256, 16, 100, 100)
    side = int(MAX_FRAME_PIXELS**0.5)
    assert check_cell_px(1, 16, side, side) == 1
    # A navigation map of 10 x 30,000 cells: the default 16 pixels per cell would be a 230 MB frame.
    wide = "\n".join(["#" * 30_000, *["#S0" + " " * 29_996 + "#"] * 8, "#" * 30_000])
    envs = gridsim.make("=" + wide, family="nav", render_mode="rgb_array")
    envs.reset(seed=0)
    with pytest.raises(gridsim.InvalidArgumentError, match="smaller cell_px"):
        envs.render()
    assert envs.render_frame(0, 2).shape == (20, 60_000, 3)
    envs.close()


def test_cli_render_refuses_cell_px_out_of_range(tmp_path, capsys):
    out = tmp_path / "x.gif"
    for px in ("0", "257", str(2**31)):
        assert main(["render", "nav/room1_small", "--max-steps", "1", "--cell-px", px, "--out", str(out)]) == 2
        assert "--cell-px must be an integer in 1..256" in capsys.readouterr().err
    assert not out.exists()


# --------------------------------------------------------------------------- settings


def test_self_referencing_settings_are_a_settings_error():
    loop: dict = {"max_steps": "5"}
    loop["again"] = loop
    items: list = ["a"]
    items.append(items)
    for settings, key in [(loop, "again"), ({"x": items}, "x.2")]:
        with pytest.raises(gridsim.SettingsError, match="contains itself") as exc:
            gridsim.make("nav/room1_small", settings=settings)
        assert exc.value.key == key
        with pytest.raises(gridsim.SettingsError, match="contains itself"):
            gridsim.NavVectorEnv(num_envs=1, level="nav/room1_small", settings=settings)


def test_deeply_nested_settings_are_a_settings_error():
    deep: dict = {}
    inner = deep
    for _ in range(5000):  # past Python's recursion limit
        inner["a"] = inner = {}
    with pytest.raises(gridsim.SettingsError, match=f"at most {MAX_SETTINGS_DEPTH} levels"):
        gridsim.make("nav/room1_small", settings=deep)
    with pytest.raises(gridsim.SettingsError, match="levels deep"):
        gridsim.Level("nav", map=ROOM).init(deep)
    # As deep as allowed still flattens; a value shared by two keys is no cycle.
    ok: dict = {}
    inner = ok
    for _ in range(MAX_SETTINGS_DEPTH - 1):
        inner["a"] = inner = {}
    inner["a"] = "1"
    assert flatten_args(ok) == {".".join(["a"] * MAX_SETTINGS_DEPTH): "1"}
    shared = ["1", "2"]
    assert flatten_args({"x": shared, "y": shared}) == {"x.1": "1", "x.2": "2", "y.1": "1", "y.2": "2"}


@pytest.mark.parametrize("value", ["9" * 5000, "0" * 5000 + "1" * 40, str(2**128), "-1", "1.5", "0x10", "", "٣"])
def test_mixer_seed_setting_outside_128_bits_is_a_settings_error(value):
    message = r"mixerSeed must be an integer in 0\.\.2\*\*128-1"
    with pytest.raises(gridsim.SettingsError, match=message) as exc:
        gridsim.make("nav/room1_small", settings={"mixerSeed": value})
    assert exc.value.key == "mixerSeed"
    with pytest.raises(gridsim.SettingsError, match=message):
        gridsim.NavVectorEnv(num_envs=1, level="nav/room1_small", settings={"mixerSeed": value})


def test_mixer_seed_setting_takes_every_128_bit_value():
    for value, want in [("0", 0), (" 7 ", 7), ("0" * 5000 + "12", 12), (str(2**128 - 1), 2**128 - 1)]:
        assert gridsim.make("nav/room1_small", settings={"mixerSeed": value}).mixer_seed == want


# --------------------------------------------------------------------------- private keyword arguments


@pytest.mark.parametrize("make", [
    lambda: gridsim.make("nav/room1_small", 2, _continue_past_end=True),
    lambda: gym.make_vec("gridsim/Nav-room1_small-v0", num_envs=2, _continue_past_end=True),
    lambda: gym.make_vec("gridsim/Level-v0", num_envs=2, level="nav/room1_small", _continue_past_end=True),
    lambda: gym.make("gridsim/Nav-room1_small-v0", _continue_past_end=True),
    lambda: gym.make("gridsim/Level-v0", level="nav/room1_small", _continue_past_end=True),
    lambda: gridsim.NavVectorEnv(num_envs=2, level="nav/room1_small", _continue_past_end=True),
    lambda: gridsim.RobomanVectorEnv(num_envs=2, _anything=1),
    lambda: gridsim.Level("nav", map=ROOM).make_env(2, _continue_past_end=True),
    lambda: parallel_env(_continue_past_end=True),
], ids=["make", "make_vec-id", "make_vec-level", "gym.make-id", "gym.make-level", "class", "roboman", "Level",
        "pettingzoo"])
def test_private_keyword_arguments_from_users_are_refused(make):
    with pytest.raises(gridsim.InvalidArgumentError, match="private keyword argument '_"):
        make()


@pytest.mark.parametrize("env_id", ONE_ID_PER_FAMILY)
def test_every_family_refuses_private_keyword_arguments(env_id):
    for make in (lambda: gym.make_vec(env_id, num_envs=2, _continue_past_end=True),
                 lambda: gym.make(env_id, _anything=1)):
        with pytest.raises(gridsim.InvalidArgumentError, match="private keyword argument '_"):
            make()


def test_gridsims_own_private_arguments_still_reach_the_env():
    single = gym.make("gridsim/Nav-room1_small-v0").unwrapped
    single.reset(seed=0)
    vec = single.unwrapped_vector
    assert vec.init_args["_continue_past_end"] is True
    again = pickle.loads(pickle.dumps(single))  # rebuilt from init_args, private ones included
    assert again.unwrapped_vector.kernel_autoreset == vec.kernel_autoreset
    kitchen = parallel_env(num_agents=2)
    kitchen.reset(seed=0)
    assert kitchen._vec.kernel_autoreset == vec.kernel_autoreset
    level_env = gym.make("gridsim/Level-v0", level="examples/maze:11").unwrapped
    assert level_env.unwrapped_vector.kernel_autoreset == vec.kernel_autoreset


# --------------------------------------------------------------------------- PettingZoo actions


@pytest.mark.parametrize("action", [2.7, 2.0, "3", None, float("nan"), 10**30, np.float32(1), np.array([1]),
                                    np.bool_(True), True, False, [1]])
def test_pettingzoo_step_refuses_non_integer_actions_before_anything_changes(action):
    env = parallel_env(num_agents=2)
    env.reset(seed=0)
    before = env._vec.get_state(0)
    with pytest.raises(gridsim.InvalidActionError, match="integer scalar"):
        env.step({"agent-1": 1, "agent-2": action})
    assert env._vec.get_state(0) == before
    env.close()


@pytest.mark.parametrize("action", [-1, 5, 2**63, np.uint64(2**64 - 1)])
def test_pettingzoo_step_refuses_actions_out_of_range(action):
    env = parallel_env(num_agents=2)
    env.reset(seed=0)
    with pytest.raises(gridsim.InvalidActionError, match="out of range for Discrete"):
        env.step({"agent-2": action})
    with pytest.raises(gridsim.InvalidActionError, match="dict of agent name"):
        env.step([1, 2])
    env.close()


def test_pettingzoo_step_takes_integer_actions_of_any_width():
    env = parallel_env(num_agents=2)
    env.reset(seed=0)
    rewards = env.step({"agent-1": np.int8(4), "agent-2": np.uint64(1)})[1]
    assert set(rewards) == {"agent-1", "agent-2"}
    env.close()


# --------------------------------------------------------------------------- ids on the command line


def test_a_registered_id_wins_over_a_file_of_that_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gridsim").mkdir()
    (tmp_path / "gridsim" / "Nav-room1_small-v0").write_text("not a level")
    assert level_argument("gridsim/Nav-room1_small-v0") == "gridsim/Nav-room1_small-v0"
    assert "is a registered id; the file of that name" in capsys.readouterr().err
    assert main(["eval", "gridsim/Nav-room1_small-v0", "--seeds", "0:2", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("gridsim/Nav-room1_small-v0: policy random")
    # Written as a path, it is the file, which is no level: one line of error, no traceback.
    assert main(["eval", "./gridsim/Nav-room1_small-v0", "--seeds", "0:2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridsim eval: error: ") and "ends in .txt" in err and len(err.splitlines()) == 1


def test_level_files_that_are_not_ids_are_still_read_from_the_working_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.txt").write_text((builtin_root() / "nav" / "four_rooms.txt").read_text())
    assert level_argument("mine.txt") == Path("mine.txt")
    assert level_argument("nav/room1_small") == "nav/room1_small"  # no such file: the level name
    assert capsys.readouterr().err == ""
    # gridsim render records a level file as gridsim eval plays it.
    assert record_episode("random", Path("mine.txt"), 0, max_steps=2).length == 2


def test_a_level_path_without_a_level_suffix_is_a_level_error(tmp_path):
    (tmp_path / "map").write_text(ROOM)
    with pytest.raises(gridsim.LevelError, match=r"ends in \.txt \(a text map\) or \.py"):
        gridsim.make(tmp_path / "map")


# --------------------------------------------------------------------------- line endings


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_ending_reads_the_same_rows(newline):
    text = ROOM.replace("\n", newline)
    assert parse_level_text(text).rows == ("#####", "#S 0#", "#####")
    native = "%gridsim 1\n[meta]\nfamily = nav\n[map]\n" + ROOM
    assert parse_level_text(native.replace("\n", newline)).rows == ("#####", "#S 0#", "#####")
    assert parse_kitchen_text(KITCHEN.replace("\n", newline)).tiles.shape == (3, 3)


def test_cr_only_level_files_load_as_their_rows(tmp_path):
    path = tmp_path / "mac.txt"
    path.write_bytes(ROOM.replace("\n", "\r").encode())
    envs = gridsim.make(path, family="nav")
    assert (envs.level.height, envs.level.width) == (3, 5)
    kitchen = tmp_path / "kitchen" / "mac.txt"
    kitchen.parent.mkdir()
    kitchen.write_bytes(KITCHEN.replace("\n", "\r").encode())
    assert gridsim.make(kitchen, family="kitchen", num_agents=1).level.tiles.shape == (3, 3)


def test_a_stray_carriage_return_splits_its_row_and_the_shape_check_reports_it():
    with pytest.raises(gridsim.LevelError, match="ragged map") as exc:
        parse_level_text("#####\n#S\r 0#\n#####\n")
    assert (exc.value.line, exc.value.col) == (2, 3)
    with pytest.raises(gridsim.LevelError, match="ragged map") as exc:
        parse_kitchen_text(KITCHEN.replace("- *", "- \r*"))
    assert exc.value.line == 2
    assert split_lines("\ufeffa\r\nb\rc\nd\x0ce\u2028f") == ["a", "b", "c", "d\x0ce\u2028f"]


def test_bad_bytes_are_located_by_the_same_line_breaks():
    with pytest.raises(gridsim.LevelError) as exc:
        decode_level_bytes(b"##\r##\r\n#\xff", "x.txt")
    assert (exc.value.line, exc.value.col) == (3, 2)


# --------------------------------------------------------------------------- registered ids


def test_register_level_refuses_an_id_that_is_already_registered():
    with pytest.raises(gridsim.InvalidArgumentError, match="'gridsim/Nav-room1_small-v0' is a built-in gridsim id"):
        gridsim.register_level("gridsim/Nav-room1_small-v0", "examples/lava")
    with pytest.raises(gridsim.InvalidArgumentError, match="'CartPole-v1' is already registered"):
        gridsim.register_level("CartPole-v1", "examples/lava")
    assert gym.spec("gridsim/Nav-room1_small-v0").kwargs.get("level") != "examples/lava"
    env_id = "test/Overwritten-v0"
    try:
        gridsim.register_level(env_id, "examples/lava")
        with pytest.raises(gridsim.InvalidArgumentError, match="overwrite=True"):
            gridsim.register_level(env_id, "nav/room1_small")
        assert gym.spec(env_id).kwargs["level"] == "examples/lava"
        gridsim.register_level(env_id, "nav/room1_small", overwrite=True)
        assert gym.spec(env_id).kwargs["level"] == "nav/room1_small"
    finally:
        del gym.registry[env_id]


# --------------------------------------------------------------------------- suggestions


def test_a_level_that_exists_by_name_but_not_as_a_file_is_not_its_own_suggestion(tmp_path):
    (tmp_path / "nav").mkdir()
    (tmp_path / "nav" / "broken.txt").symlink_to(tmp_path / "missing.txt")
    (tmp_path / "nav" / "folder.txt").mkdir()
    (tmp_path / "nav" / "brokem.txt").write_text(ROOM)
    assert "nav/broken" not in level_names(tmp_path) and "nav/brokem" in level_names(tmp_path)
    for name in ["nav/broken", "nav/folder"]:
        with pytest.raises(gridsim.LevelNotFoundError) as exc:
            gridsim.make(name, level_directory=tmp_path)
        assert name not in exc.value.suggestions and f"did you mean {name!r}" not in str(exc.value)


def test_a_level_module_whose_own_lookup_fails_is_not_suggested_for_it(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "bar.py").write_text(
        "import gridsim\n\n\ndef make(argument):\n"
        f"    return gridsim.make('mine/bar_map', level_directory={str(tmp_path)!r}).level_def\n"
    )
    with pytest.raises(gridsim.LevelNotFoundError, match="'mine/bar_map' not found") as exc:
        gridsim.make("mine/bar", level_directory=tmp_path)
    assert "mine/bar" not in exc.value.suggestions and "did you mean 'mine/bar'" not in str(exc.value)
