"""Kitchen level files: the shipped levels, the grammar, errors with their positions, lookup."""

from __future__ import annotations

import pickle
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridsim.errors import LevelError, LevelNotFoundError
from gridsim.kitchen import (
    COUNTER,
    CUTBOARD,
    DELIVERY,
    FLOOR,
    KitchenLevel,
    LevelParseError,
    builtin_kitchen_names,
    load_kitchen_level,
    parse_kitchen_text,
    render_kitchen_text,
)
from gridsim.levels import builtin_root

ORIGINAL = {  # stem -> (recipes, divider rows in column x = 3)
    "full-divider_salad": (("Salad",), range(1, 6)),
    "full-divider_tl": (("SimpleTomato", "SimpleLettuce"), range(1, 6)),
    "full-divider_tomato": (("SimpleTomato",), range(1, 6)),
    "partial-divider_salad": (("Salad",), range(1, 5)),
    "partial-divider_tl": (("SimpleTomato", "SimpleLettuce"), range(1, 5)),
    "partial-divider_tomato": (("SimpleTomato",), range(1, 5)),
    "open-divider_salad": (("Salad",), range(0)),
    "open-divider_tl": (("SimpleTomato", "SimpleLettuce"), range(0)),
    "open-divider_tomato": (("SimpleTomato",), range(0)),
}
OWN = ("big-onion-salad", "corridor_salad")

OPEN_SALAD = "-----t-\n/     l\n/     -\n*     -\n-     -\n-     p\n-----p-\n\nSalad\n\n2 1\n4 1\n4 4\n2 4"


def floor_regions(level: KitchenLevel) -> list[set]:
    floor = {(x, y) for y in range(level.height) for x in range(level.width) if level.tile(x, y) == FLOOR}
    regions = []
    while floor:
        first = floor.pop()
        region, queue = {first}, deque([first])
        while queue:
            x, y = queue.popleft()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in floor:
                    floor.remove(n)
                    region.add(n)
                    queue.append(n)
        regions.append(region)
    return regions


def parse_error(text: str) -> LevelError:
    with pytest.raises(LevelParseError) as info:
        parse_kitchen_text(text, "k.txt")
    return info.value


# --------------------------------------------------------------------------- shipped levels


def test_builtin_names_are_the_nine_originals_and_two_own():
    assert builtin_kitchen_names() == sorted(f"kitchen/{s}" for s in (*ORIGINAL, *OWN))


def test_open_divider_salad_file_is_verbatim():
    path = builtin_root() / "kitchen" / "open-divider_salad.txt"
    assert path.read_bytes() == OPEN_SALAD.encode()


@pytest.mark.parametrize("stem", sorted(ORIGINAL))
def test_original_level_has_the_documented_layout(stem):
    level = load_kitchen_level(f"kitchen/{stem}")
    recipes, divider = ORIGINAL[stem]
    assert (level.width, level.height) == (7, 7) and level.name == stem
    assert level.tiles.shape == (7, 7) and level.tiles.dtype == np.uint8
    assert level.rows[0] == "-----t-" and level.rows[6] == "-----p-"
    assert level.recipe_names == recipes
    assert level.starts == ((2, 1), (4, 1), (4, 4), (2, 4))
    assert dict(level.initial_items) == {(5, 0): "FreshTomato", (6, 1): "FreshLettuce", (6, 5): "Plate",
                                         (5, 6): "Plate"}
    t = level.tile
    assert t(0, 1) == t(0, 2) == CUTBOARD
    assert t(0, 3) == DELIVERY and level.delivery_cells == ((0, 3),)
    assert t(0, 4) == t(0, 5) == COUNTER
    assert all(t(6, y) == COUNTER for y in range(1, 6))
    assert all(t(x, 0) == COUNTER and t(x, 6) == COUNTER for x in range(7))
    for y in range(1, 6):
        assert t(3, y) == (COUNTER if y in divider else FLOOR)
        for x in (1, 2, 4, 5):
            assert t(x, y) == FLOOR
    regions = floor_regions(level)
    assert len(regions) == (2 if stem.startswith("full") else 1)
    if stem.startswith("full"):  # agents 1 and 4 on the left, 2 and 3 on the right
        left = next(r for r in regions if (2, 1) in r)
        assert (2, 4) in left and (4, 1) not in left and (4, 4) not in left


@pytest.mark.parametrize("stem", OWN)
def test_own_levels_list_four_distinct_floor_starts(stem):
    level = load_kitchen_level(stem)
    assert len(level.starts) == 4 and len(set(level.starts)) == 4
    assert all(level.tile(x, y) == FLOOR for x, y in level.starts)


def test_big_onion_salad_layout():
    level = load_kitchen_level("kitchen/big-onion-salad")
    assert (level.width, level.height) == (12, 9)
    assert level.recipe_names == ("OnionSalad", "Salad")
    assert level.delivery_cells == ((0, 4), (11, 4))
    inventory = sorted(level.initial_items.values())
    assert inventory.count("FreshOnion") == 2 and inventory.count("FreshTomato") == 2
    assert inventory.count("FreshLettuce") == 2 and inventory.count("Plate") == 4
    assert len(floor_regions(level)) == 1


def test_corridor_salad_splits_prep_and_delivery_sides():
    level = load_kitchen_level("kitchen/corridor_salad")
    assert level.recipe_names == ("Salad",) and level.delivery_cells == ((11, 3),)
    regions = floor_regions(level)
    assert len(regions) == 2
    prep = next(r for r in regions if (2, 2) in r)
    serve = next(r for r in regions if (9, 3) in r)
    # The corridor (4..6, 3) is one cell wide and ends at the pass counter (7, 3).
    corridor = [(4, 3), (5, 3), (6, 3)]
    assert set(corridor) <= prep
    assert all(level.tile(x, 2) == COUNTER and level.tile(x, 4) == COUNTER for x, _ in corridor)
    assert level.tile(7, 3) == COUNTER and (6, 3) in prep and (8, 3) in serve
    # Everything to cook is on the prep side; only the delivery is on the other.
    cutboards = {(x, y) for y in range(level.height) for x in range(level.width) if level.tile(x, y) == CUTBOARD}
    assert all((x + 1, y) in prep for x, y in cutboards)
    assert all(any(n in prep for n in ((x, y + 1), (x + 1, y), (x - 1, y), (x, y - 1)))
               for x, y in level.initial_items)
    assert not any(n in prep for n in ((10, 3), (11, 2), (11, 4)))
    assert [s in prep for s in level.starts] == [True, False, True, False]


# --------------------------------------------------------------------------- grammar


def test_bar_is_a_counter_tile():
    level = parse_kitchen_text("|t|\n| *\n|p|\n\nSimpleTomato\n\n1 1")
    assert level.tile(0, 0) == level.tile(0, 1) == level.tile(2, 2) == COUNTER
    assert level.tile(1, 1) == FLOOR and level.rows[0] == "|t|"


def test_crlf_and_repeated_blank_lines():
    text = "\r\n\r\n-t-\r\n- *\r\n-p-\r\n\r\n\r\n\r\nSimpleTomato\r\n\r\n1 1\r\n\r\n\r\n"
    level = parse_kitchen_text(text)
    assert level.rows == ("-t-", "- *", "-p-") and level.starts == ((1, 1),)
    assert level.recipe_lines == (9,) and level.start_lines == (11,)


def test_line_of_spaces_is_a_map_row():
    level = parse_kitchen_text("-t-\n   \n-p*\n\nSimpleTomato\n\n0 1\n2 1")
    assert level.height == 3 and level.starts == ((0, 1), (2, 1))


def test_repeated_recipe_is_kept():
    level = parse_kitchen_text(OPEN_SALAD.replace("Salad", "Salad\nSalad"))
    assert level.recipe_names == ("Salad", "Salad")
    assert level.tables.goal_mask == 0b11


def test_render_round_trip():
    for name in builtin_kitchen_names():
        level = load_kitchen_level(name)
        again = parse_kitchen_text(render_kitchen_text(level))
        assert again.rows == level.rows and again.recipes == level.recipes and again.starts == level.starts
        np.testing.assert_array_equal(again.tiles, level.tiles)
        assert dict(again.initial_items) == dict(level.initial_items)


def test_item_grid_holds_initial_item_ids():
    level = load_kitchen_level("open-divider_salad")
    grid = level.item_grid
    assert grid.dtype == np.int16 and grid.shape == (7, 7) and not grid.flags.writeable
    ids = level.tables.item_ids
    assert grid[0, 5] == ids["FreshTomato"] and grid[1, 6] == ids["FreshLettuce"]
    assert grid[5, 6] == grid[6, 5] == ids["Plate"]
    assert np.count_nonzero(grid) == 4


def test_level_pickles():
    level = load_kitchen_level("big-onion-salad")
    again = pickle.loads(pickle.dumps(level))
    assert again.rows == level.rows and again.rules == level.rules and again.starts == level.starts
    assert dict(again.initial_items) == dict(level.initial_items)
    assert again.tables.item_names == level.tables.item_names
    np.testing.assert_array_equal(again.tables.merge_to, level.tables.merge_to)
    assert not again.tiles.flags.writeable and not again.tables.merge_to.flags.writeable


def test_level_arrays_are_read_only():
    level = load_kitchen_level("open-divider_salad")
    with pytest.raises(ValueError):
        level.tiles[0, 0] = 0
    with pytest.raises(TypeError):
        level.initial_items[(1, 1)] = "Plate"  # type: ignore[index]


# --------------------------------------------------------------------------- errors (K8)


def test_error_is_a_value_error_with_location():
    err = parse_error("-t-\n-x*\n-p-\n\nSimpleTomato\n\n1 1")
    assert isinstance(err, ValueError) and isinstance(err, LevelError)
    assert (err.source, err.line, err.col) == ("k.txt", 2, 2)
    assert str(err).startswith("k.txt:2:2: ") and "'x'" in str(err)


def test_unknown_character_in_a_real_level():
    text = OPEN_SALAD.replace("/     -", "/   # -", 1)
    err = parse_error(text)
    assert (err.line, err.col) == (3, 5) and "'#'" in err.reason


def test_tab_is_an_unknown_character():
    err = parse_error("-t-\n-\t*\n-p-\n\nSimpleTomato\n\n1 1")
    assert (err.line, err.col) == (2, 2)


def test_ragged_rows():
    err = parse_error("-t--\n- *\n-p--\n\nSimpleTomato\n\n1 1")
    assert (err.line, err.col) == (2, 4) and "ragged" in err.reason
    err = parse_error("-t-\n- *-\n-p-\n\nSimpleTomato\n\n1 1")
    assert (err.line, err.col) == (2, 4)


def test_unknown_recipe():
    err = parse_error("-t-\n- *\n-p-\n\nSimpleTomato\nsalad\n\n1 1")
    assert (err.line, err.col) == (6, 1) and "'salad'" in err.reason and "Salad" in err.reason
    err = parse_error("-t-\n- *\n-p-\n\nSimpleTomato \n\n1 1")  # exact: no trailing space
    assert (err.line, err.col) == (5, 1)


def test_too_few_start_lines_for_num_agents():
    level = load_kitchen_level("open-divider_salad")
    level.check_agents(4)
    short = parse_kitchen_text(OPEN_SALAD.rsplit("\n", 2)[0], "short.txt")
    assert short.starts == ((2, 1), (4, 1))
    short.check_agents(2)
    with pytest.raises(LevelParseError, match="3 agents need 3 agent start lines; the level lists 2") as info:
        short.check_agents(3)
    assert info.value.line == 12
    for bad in (0, 5, 1.0, True, "2"):
        with pytest.raises(ValueError, match="num_agents"):
            level.check_agents(bad)


@pytest.mark.parametrize(("start", "col", "match"), [
    ("0 1", 1, "on a counter"),
    ("2 0", 1, "on a counter"),
    ("1 3", 3, "outside"),
    ("3 1", 1, "outside"),
    ("1  9", 4, "outside"),
    ("1 1 1", 5, "two integers"),
    ("1", 1, "two integers"),
    ("1 x", 3, "non-negative integer"),
    (" -1 1", 2, "non-negative integer"),
    ("1.0 1", 1, "non-negative integer"),
])
def test_bad_start_line(start, col, match):
    err = parse_error(f"-t-\n- *\n-p-\n\nSimpleTomato\n\n{start}")
    assert (err.line, err.col) == (7, col)
    assert match in err.reason
    assert repr(start) in err.reason or repr(start.strip()) in err.reason


def test_start_on_delivery_and_cutboard_is_refused():
    err = parse_error("-t-\n- *\n-p-\n\nSimpleTomato\n\n1 1\n2 1")
    assert (err.line, err.col) == (8, 1) and "delivery" in err.reason
    err = parse_error(OPEN_SALAD.replace("2 4", "0 1"))
    assert (err.line, err.col) == (14, 1) and "cutboard" in err.reason


def test_duplicate_start_is_refused():
    err = parse_error(OPEN_SALAD.replace("4 4", "4 1"))
    assert (err.line, err.col) == (13, 1) and "line 12" in err.reason


def test_section_count():
    err = parse_error("-t-\n- *\n-p-\n\nSimpleTomato")
    assert "missing the agent starts section" in err.reason and err.line == 5
    err = parse_error("-t-\n- *\n-p-\nSimpleTomato\n1 1")
    assert "missing the recipes section" in err.reason
    err = parse_error("-t-\n\n- *\n-p-\n\nSimpleTomato\n\n1 1")
    assert (err.line, err.col) == (8, 1) and "4th section" in err.reason
    err = parse_error("\n\n\n")
    assert "empty level" in err.reason


def test_missing_ingredient_or_plate_is_a_value_error_at_the_recipe():
    err = parse_error("-t-\n- *\n-p-\n\nSimpleTomato\nSimpleLettuce\n\n1 1")
    assert isinstance(err, ValueError) and (err.line, err.col) == (6, 1)
    assert "SimpleLettuce needs 1 Lettuce" in err.reason
    err = parse_error("-t-\n- *\n---\n\nSimpleTomato\n\n1 1")
    assert (err.line, err.col) == (5, 1) and "no plate" in err.reason
    err = parse_error("-tl\n- *\n--p\n\nOnionSalad\n\n1 1")
    assert "Onion" in err.reason


@given(st.integers(0, 6), st.integers(0, 6), st.sampled_from("#xX.!\t?0T"))
def test_any_foreign_character_reports_its_position(x, y, ch):
    rows = OPEN_SALAD.split("\n")
    rows[y] = rows[y][:x] + ch + rows[y][x + 1:]
    with pytest.raises(LevelParseError) as info:
        parse_kitchen_text("\n".join(rows))
    assert (info.value.line, info.value.col) == (y + 1, x + 1)


# --------------------------------------------------------------------------- lookup


def test_lookup_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = load_kitchen_level("kitchen/open-divider_salad")
    assert load_kitchen_level("open-divider_salad") is a  # cached
    path = builtin_root() / "kitchen" / "open-divider_salad.txt"
    assert load_kitchen_level(path) is a
    with pytest.raises(LevelError, match="is absolute"):  # a name never leaves the level directories
        load_kitchen_level(str(path))
    assert a.source == str(path.resolve())
    inline = load_kitchen_level("=" + OPEN_SALAD)
    assert inline.name == "<string>" and inline.rows == a.rows
    assert load_kitchen_level("=" + OPEN_SALAD) is inline
    assert load_kitchen_level(a) is a


def test_level_directory_shadows_and_keeps_builtins(tmp_path):
    (tmp_path / "kitchen").mkdir()
    (tmp_path / "kitchen" / "open-divider_salad.txt").write_text(OPEN_SALAD.replace("Salad", "SimpleTomato"))
    mine = load_kitchen_level("kitchen/open-divider_salad", tmp_path)
    assert mine.recipe_names == ("SimpleTomato",)
    assert load_kitchen_level("kitchen/open-divider_tl", tmp_path).recipe_names == ("SimpleTomato", "SimpleLettuce")
    (tmp_path / "mine.txt").write_text(OPEN_SALAD)
    assert load_kitchen_level("mine", tmp_path).name == "mine"


def test_edited_file_is_read_again(tmp_path):
    path = tmp_path / "k.txt"
    path.write_text(OPEN_SALAD)
    assert load_kitchen_level(path).recipe_names == ("Salad",)
    path.write_text(OPEN_SALAD.replace("Salad", "SimpleLettuce\nSimpleTomato"))
    assert load_kitchen_level(path).recipe_names == ("SimpleLettuce", "SimpleTomato")


def test_not_found_lists_tried_paths(tmp_path):
    with pytest.raises(LevelNotFoundError) as info:
        load_kitchen_level("no-such-kitchen", tmp_path)
    tried = info.value.tried
    assert len(tried) == 4 and any("kitchen" in t for t in tried)
    with pytest.raises(LevelNotFoundError):
        load_kitchen_level(Path(tmp_path / "missing.txt"))
