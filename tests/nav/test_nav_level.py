"""Compiling navigation levels (gridsim.nav.level)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gridsim.errors import LevelError, LevelNotFoundError
from gridsim.levels import LevelWarning, parse_level_text
from gridsim.nav.alphabet import ALPHABETS, F_COLLECTIBLE, F_WALKABLE, Alphabet, Symbol, const
from gridsim.nav.level import compile_nav_level, load_nav_level

# pixelworld.md section 7: shape, accessible cells, S, goal, shortest path length.
ORIGINAL = [
    ("room1", (9, 11), 50, (4, 1), (1, 9), 11),
    ("room1_small", (6, 6), 16, (4, 1), (1, 4), 6),
    ("room2_small", (6, 11), 26, (4, 1), (1, 2), 4),
    ("room3_small", (6, 11), 26, (4, 1), (4, 7), 6),
    ("room4_small", (6, 11), 26, (4, 1), (1, 9), 11),
    ("room5_medium", (10, 10), 64, (1, 1), (1, 8), 7),
    ("room5_medium_walls", (10, 10), 58, (1, 1), (1, 8), 7),
]
NEW = [
    ("four_rooms", (13, 13), 104, (1, 1), (11, 11), 20, 200),
    ("maze32", (32, 32), 464, (1, 1), (30, 30), 148, 1000),
    ("open64", (64, 64), 3844, (1, 1), (62, 62), 122, 500),
]


def check_level(level, shape, accessible, start, goal, path):
    assert (level.height, level.width) == shape
    assert level.tiles.shape == shape and level.tiles.dtype == np.uint8
    assert level.accessible_count() == accessible
    np.testing.assert_array_equal(level.start_cells, np.array([start], np.int16))
    np.testing.assert_array_equal(level.goal_cells, np.array([goal], np.int16))
    assert level.start_cells.dtype == level.goal_cells.dtype == np.int16
    dist = level.bfs_distances(start)
    assert dist.dtype == np.int32 and dist[goal] == path


@pytest.mark.parametrize(("name", "shape", "accessible", "start", "goal", "path"), ORIGINAL)
def test_original_map_matches_spec_table(name, shape, accessible, start, goal, path):
    check_level(load_nav_level(f"nav/{name}"), shape, accessible, start, goal, path)


@pytest.mark.parametrize(("name", "shape", "accessible", "start", "goal", "path", "steps"), NEW)
def test_new_builtin_level_has_documented_layout(name, shape, accessible, start, goal, path, steps):
    level = load_nav_level(name)
    check_level(level, shape, accessible, start, goal, path)
    assert level.meta["max_episode_steps"] == str(steps)
    assert level.meta["family"] == "nav" and level.name == name
    # Every cell is enclosed by a wall border.
    walk = level.walkable
    assert not walk[[0, -1]].any() and not walk[:, [0, -1]].any()


def test_maze32_is_a_perfect_maze():
    walk = load_nav_level("nav/maze32").walkable
    edges = np.count_nonzero(walk[1:] & walk[:-1]) + np.count_nonzero(walk[:, 1:] & walk[:, :-1])
    reached = load_nav_level("nav/maze32").bfs_distances((1, 1)) >= 0
    # A connected graph with exactly nodes - 1 edges is a tree: one path between any two cells.
    np.testing.assert_array_equal(reached, walk)
    assert edges == np.count_nonzero(walk) - 1


def test_optimal_return_on_room1_small_is_minus_four():
    level = load_nav_level("nav/room1_small")
    path = int(level.bfs_distances(level.start_cells[0])[tuple(level.goal_cells[0])])
    assert -(path - 1) + 1 == -4


def test_tiles_use_alphabet_ids_and_are_read_only():
    level = load_nav_level("nav/room1_small")
    ids = ALPHABETS["navigation"].ids
    assert level.tiles[0, 0] == ids["#"] and level.tiles[1, 1] == ids[" "]
    assert level.tiles[4, 1] == ids["S"] and level.tiles[1, 4] == ids["0"]
    assert 0 not in level.tiles  # 0 is void, outside the map
    for arr in (level.tiles, level.start_cells, level.goal_cells):
        assert not arr.flags.writeable
    assert level.rows == parse_level_text("######\n#   0#\n#    #\n#    #\n#S   #\n######").rows


def test_bare_name_falls_back_to_nav_prefix():
    assert load_nav_level("room1_small") is load_nav_level("nav/room1_small")
    with pytest.raises(LevelNotFoundError) as info:
        load_nav_level("no_such_room")
    assert any(t.endswith("no_such_room.txt") for t in info.value.tried)
    assert any(t.endswith("nav/no_such_room.txt") for t in info.value.tried)


def test_level_directory_shadows_builtin(tmp_path):
    (tmp_path / "nav").mkdir()
    (tmp_path / "nav" / "room1_small.txt").write_text("####\n#S0#\n####\n")
    level = load_nav_level("room1_small", level_directory=tmp_path)
    assert (level.height, level.width) == (3, 4)


def test_bfs_marks_unreachable_cells_and_accepts_several_starts():
    level = load_nav_level("=#######\n#S # S#\n#######")
    dist = level.bfs_distances((1, 1))
    np.testing.assert_array_equal(dist[1], [-1, 0, 1, -1, -1, -1, -1])
    np.testing.assert_array_equal(level.start_cells, [[1, 1], [1, 5]])
    nearest = level.bfs_distances(level.start_cells)
    np.testing.assert_array_equal(nearest[1], [-1, 0, 1, -1, 1, 0, -1])


def test_open_cells_are_the_accessible_non_terminal_cells_and_valid_starts():
    import gridsim

    level = load_nav_level("=#####\n#S 0#\n# # #\n#####")
    np.testing.assert_array_equal(level.open_cells, [[1, 1], [1, 2], [2, 1], [2, 3]])  # not the goal (1, 3)
    envs = gridsim.make("nav/four_rooms", 3)
    cells = envs.level.open_cells
    assert len(cells) == envs.level.accessible_count() - len(envs.level.goal_cells)
    obs, _ = envs.reset(seed=0, options={"start": cells[[0, len(cells) // 2, -1]]})
    np.testing.assert_array_equal(obs, cells[[0, len(cells) // 2, -1]])


def test_unreachable_goal_warns_every_time():
    text = "=#####\n#S#0#\n#####"
    for _ in range(2):  # the second load comes from the cache and still warns
        with pytest.warns(LevelWarning, match="no goal cell can be reached"):
            load_nav_level(text)


def test_map_without_goal_loads_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        level = load_nav_level("=####\n#S #\n####")
    assert level.goal_cells.shape == (0, 2)


def test_unknown_symbols_default_maps_to_default_symbol():
    text = "=#####\n#S?0#\n#####"
    with pytest.raises(LevelError) as info:
        load_nav_level(text)
    assert (info.value.line, info.value.col) == (2, 3)
    level = load_nav_level(text, unknown_symbols="default")
    assert level.rows[1] == "#S 0#"
    assert level.tiles[1, 2] == level.alphabet.ids[" "]
    assert level.bfs_distances((1, 1))[1, 3] == 2


def test_unknown_symbols_and_default_symbol_from_meta():
    text = ("%gridsim 1\n[meta]\nunknown_symbols = default\ndefault_symbol = #\n"
            "[map]\n####\n#S0?\n####")
    level = compile_nav_level(parse_level_text(text))
    assert level.rows[1] == "#S0#"
    assert level.alphabet.default_symbol == "#"
    # An argument beats the meta key.
    assert compile_nav_level(parse_level_text(text), default_symbol=" ").rows[1] == "#S0 "


def test_alphabet_argument_beats_meta_and_legend_extends_it():
    text = ("%gridsim 1\n[meta]\nalphabet = noisy\n[legend]\nk = reward=5 collectible\n"
            "[map]\n#####\n#Sk0#\n#####\n")
    parsed = parse_level_text(text)
    level = compile_nav_level(parsed)
    assert level.alphabet.symbols[" "] == ALPHABETS["noisy"].symbols[" "]
    assert level.alphabet.symbols["k"] == Symbol(reward=const(5), collectible=True)
    assert level.alphabet.flags[level.tiles[1, 2]] == F_WALKABLE | F_COLLECTIBLE
    explicit = compile_nav_level(parsed, "navigation")
    assert explicit.alphabet.symbols[" "] == ALPHABETS["navigation"].symbols[" "]
    assert "k" in explicit.alphabet.symbols


def test_custom_alphabet_dict_is_accepted():
    alph = {"X": {"accessible": False}, ".": {"reward": -1}, "s": {"initial": True},
            "g": {"terminal": True, "reward": 1}}
    level = load_nav_level("=XXXX\nXs.X\nX.gX\nXXXX", alphabet=Alphabet(alph, default_symbol="."))
    np.testing.assert_array_equal(level.goal_cells, [[2, 2]])
    assert level.bfs_distances((1, 1))[2, 2] == 2


def test_meta_errors_point_at_their_line():
    bad_alphabet = "%gridsim 1\n[meta]\nname = x\nalphabet = fancy\n[map]\n###\n#S#\n###"
    with pytest.raises(LevelError, match="unknown alphabet") as info:
        compile_nav_level(parse_level_text(bad_alphabet))
    assert info.value.line == 4
    other_family = "%gridsim 1\n[meta]\nfamily = kitchen\n[map]\n###\n#S#\n###"
    with pytest.raises(LevelError, match="not a 'nav' level") as info:
        compile_nav_level(parse_level_text(other_family))
    assert info.value.line == 3
    bad_default = "%gridsim 1\n[meta]\ndefault_symbol = q\n[map]\n###\n#S#\n###"
    with pytest.raises(LevelError, match="default_symbol") as info:
        compile_nav_level(parse_level_text(bad_default))
    assert info.value.line == 3


def test_legend_replaces_a_builtin_symbol():
    text = ("%gridsim 1\n[legend]\n0 = terminal reward=normal(10, 1) stochastic\n"
            "[map]\n####\n#S0#\n####")
    level = compile_nav_level(parse_level_text(text))
    assert level.alphabet.symbols["0"].stochastic
    assert level.alphabet.ids["0"] == ALPHABETS["navigation"].ids["0"]  # same position, same id


def test_compiled_levels_are_cached():
    parsed = parse_level_text("####\n#S0#\n####")
    assert compile_nav_level(parsed) is compile_nav_level(parse_level_text("####\n#S0#\n####"))
    assert compile_nav_level(parsed, "noisy") is not compile_nav_level(parsed)


def test_a_1000_by_1000_map_loads_with_its_distances():
    n = 1000
    rows = ["#" * n] + ["#" + " " * (n - 2) + "#"] * (n - 2) + ["#" * n]
    rows[1] = "#S" + " " * (n - 3) + "#"
    rows[n - 2] = "#" + " " * (n - 3) + "0#"
    rows[n // 2] = "#" * (n - 2) + " #"  # a wall with one gap at the right end
    level = load_nav_level("=" + "\n".join(rows))
    assert level.tiles.shape == (n, n)
    np.testing.assert_array_equal(level.start_cells, [[1, 1]])
    np.testing.assert_array_equal(level.goal_cells, [[n - 2, n - 2]])
    dist = level.bfs_distances((1, 1))
    assert dist[n - 2, n - 2] == 2 * (n - 3)  # right along row 1, through the gap, down
    assert dist[n // 2 + 1, 1] == (n - 3) + (n // 2) + (n - 3)  # back left under the wall
    assert dist[n // 2, 1] == -1


def test_inaccessible_start_symbol_is_a_level_error_at_its_cell():
    text = "%gridsim 1\n[legend]\nS = initial accessible=false\n[map]\n#####\n# 0 #\n#  S#\n#####"
    with pytest.raises(LevelError, match="not accessible") as info:
        compile_nav_level(parse_level_text(text, "walled.txt"))
    assert (info.value.source, info.value.line, info.value.col) == ("walled.txt", 7, 4)
