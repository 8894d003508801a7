"""The train/test goal sampler (gridsim.nav.sampler, pixelworld.md section 9)."""

from __future__ import annotations

import pytest

from gridsim.levels import parse_level_text, read_level
from gridsim.nav.alphabet import ALPHABETS, Symbol
from gridsim.nav.level import compile_nav_level, load_nav_level
from gridsim.nav.sampler import TaskSampler


def row(r, c0, c1):
    return [(r, c) for c in range(c0, c1 + 1)]


# (map, split, order) -> (train cells, test cells), the sampler's documented test vectors.
VECTORS = [
    ("room1_small", 50, "distance",
     [(3, 1), (4, 2), (3, 2), (2, 1), (4, 3), (2, 2), (3, 3)],
     [(1, 1), (4, 4), (1, 2), (3, 4), (1, 3), (2, 4), (1, 4)]),
    ("room1_small", 50, "row_major",
     row(1, 1, 4) + row(2, 1, 3),
     row(3, 1, 4) + row(4, 2, 4)),
    ("room1_small", 10, "distance", [(3, 1)], [(1, 4)]),
    ("room1_small", 10, "row_major", [(1, 1)], [(4, 4)]),
    ("room1_small", 5, "distance", [], []),
    ("room1_small", 5, "row_major", [], []),
    ("room5_medium_walls", 10, "distance",
     [(1, 2), (2, 1), (2, 2), (1, 3), (3, 1)],
     [(6, 8), (8, 6), (7, 8), (8, 7), (8, 8)]),
    ("room5_medium_walls", 10, "row_major", row(1, 2, 6), row(8, 4, 8)),
]


@pytest.mark.parametrize(("name", "split", "order", "train", "test"), VECTORS,
                         ids=[f"{v[0]}-{v[1]}-{v[2]}" for v in VECTORS])
def test_spec_vectors_give_expected_cells(name, split, order, train, test):
    sampler = TaskSampler(f"nav/{name}", order=order)
    assert sampler.cells(True, split, split) == train
    assert sampler.cells(False, split, split) == test


@pytest.mark.parametrize(("name", "n"), [("room1_small", 15), ("room5_medium_walls", 57)])
def test_candidates_are_accessible_cells_except_start(name, n):
    sampler = TaskSampler(name)
    assert len(sampler.candidates) == n
    assert sampler.start not in sampler.candidates
    assert sampler.goal_symbol == "0"


def test_generated_maps_have_one_goal_at_each_cell():
    sampler = TaskSampler("nav/room1_small")
    maps = sampler.generate(True, 50, 50)
    assert len(maps) == 7
    for text, (r, c) in zip(maps, sampler.cells(True, 50, 50), strict=True):
        assert not text.endswith("\n")
        rows = text.split("\n")
        assert len(rows) == 6 and all(len(x) == 6 for x in rows)
        assert sum(x.count("0") for x in rows) == 1 and rows[r][c] == "0"
        assert rows[4][1] == "S"
        level = compile_nav_level(parse_level_text(text))
        assert level.goal_cells.tolist() == [[r, c]]


def test_test_side_of_room1_small_at_ten_percent_is_the_original_map():
    text = TaskSampler("nav/room1_small").generate(False, 10, 10)[0]
    assert text == "\n".join(read_level("nav/room1_small").rows)


def test_template_is_unchanged():
    text = "#####\n#0 S#\n# 0 #\n#####\n"
    parsed = parse_level_text(text)
    before = (parsed.rows, load_nav_level("nav/room1_small").rows)
    sampler = TaskSampler(parsed)
    sampler.generate(True, 50, 50)
    TaskSampler("nav/room1_small").generate(False, 50, 50)
    assert (parsed.rows, load_nav_level("nav/room1_small").rows) == before
    # Every goal of the template was removed from the base map.
    assert sampler.base_rows == ("#####", "#  S#", "#   #", "#####")


def test_zero_threshold_gives_empty_lists_not_everything():
    sampler = TaskSampler("nav/room1_small")
    assert sampler.generate(True, 6, 6) == [] and sampler.generate(False, 6, 6) == []
    assert sampler.generate(False, 0, 0) == []


def test_whole_split_takes_every_candidate():
    sampler = TaskSampler("nav/room1_small", order="row_major")
    assert sampler.cells(True, 100, 0) == list(sampler.candidates)
    assert sampler.cells(False, 0, 100) == list(sampler.candidates)


@pytest.mark.parametrize(("train", "test"), [(60, 41), (100, 0.5), (-1, 10), (float("nan"), 10)])
def test_bad_splits_raise(train, test):
    with pytest.raises(ValueError, match="split"):
        TaskSampler("nav/room1_small").generate(True, train, test)


def test_several_starts_need_explicit_start():
    text = "######\n#S  S#\n#  0 #\n######"
    with pytest.raises(ValueError, match="2 initial cells"):
        TaskSampler(text)
    sampler = TaskSampler(text, start=(1, 1))
    assert (1, 4) in sampler.candidates  # the other initial cell is a candidate
    assert sampler.cells(True, 100, 0)[0] == (1, 2)


@pytest.mark.parametrize("start", [(0, 0), (9, 9), (-1, 2)])
def test_start_outside_or_on_wall_raises(start):
    with pytest.raises(ValueError, match="not an accessible cell"):
        TaskSampler("nav/room1_small", start=start)


def test_ambiguous_or_missing_goal_symbol_raises():
    two_goals = dict(ALPHABETS["navigation"].symbols)
    two_goals["G"] = Symbol(terminal=True)
    text = "#####\n#S0G#\n#####"
    with pytest.raises(ValueError, match="several terminal symbols"):
        TaskSampler(text, alphabet=two_goals)
    sampler = TaskSampler(text, alphabet=two_goals, goal_symbol="G")
    assert sampler.base_rows[1] == "#S0 #"
    no_goal = {k: v for k, v in two_goals.items() if not v.terminal}
    with pytest.raises(ValueError, match="no terminal symbol"):
        TaskSampler("#####\n#S  #\n#####", alphabet=no_goal)
    with pytest.raises(ValueError, match="not in alphabet"):
        TaskSampler(text, alphabet=two_goals, goal_symbol="Z")


def test_unknown_order_raises():
    with pytest.raises(ValueError, match="order"):
        TaskSampler("nav/room1_small", order="random")


def test_inline_and_name_templates_agree():
    text = "\n".join(read_level("nav/room1_small").rows)
    by_name = TaskSampler("room1_small").generate(True, 50, 50)
    assert TaskSampler(text).generate(True, 50, 50) == by_name
    assert TaskSampler("=" + text).generate(True, 50, 50) == by_name


def test_native_template_keeps_legend_and_meta():
    text = ("%gridsim 1\n[meta]\nname = keyed\n[legend]\nk = reward=5 collectible\n"
            "[map]\n#####\n#Sk0#\n#####\n")
    maps = TaskSampler(text).generate(True, 100, 0)
    assert len(maps) == 2 and not maps[0].endswith("\n")
    first = parse_level_text(maps[0])
    assert first.rows == ("#####", "#S0 #", "#####")
    assert first.meta["name"] == "keyed" and first.legend["k"]["collectible"] is True
    assert parse_level_text(maps[1]).rows[1] == "#Sk0#"
