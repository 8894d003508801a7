"""Kitchen rules as data: item names and predicates, the item closure and its tables, user-declared foods."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kitchen_solver import replay, solve

from gridsim.kitchen import (
    COUNTER,
    CUTBOARD,
    DEFAULT_RULES,
    DELIVERY,
    EMPTY,
    F_CONTAINER,
    F_CUTS,
    F_DELIVERY,
    F_WALKABLE,
    FLOOR,
    TILE_FLAGS,
    TILES,
    LevelParseError,
    Recipe,
    Rules,
    builtin_kitchen_names,
    chop,
    compile_tables,
    deliverable,
    item_name,
    load_kitchen_level,
    merge,
    mergeable,
    needs_chop,
    parse_kitchen_text,
    same_item,
)
from gridsim.reference.kitchen import kitchen_obs, kitchen_reset, kitchen_solved, render_ansi

NINE_KINDS = ("FreshTomato", "ChoppedTomato", "FreshLettuce", "ChoppedLettuce", "Plate",
              "ChoppedLettuce-ChoppedTomato", "Plate-ChoppedTomato", "ChoppedLettuce-Plate",
              "ChoppedLettuce-Plate-ChoppedTomato")
ORIGINAL = [n for n in builtin_kitchen_names() if "divider" in n]


# --------------------------------------------------------------------------- tiles and components


def test_tile_ids_come_from_table_position():
    assert [t.name for t in TILES] == ["floor", "counter", "cutboard", "delivery"]
    assert (FLOOR, COUNTER, CUTBOARD, DELIVERY) == (0, 1, 2, 3)
    assert TILE_FLAGS.dtype == np.uint32 and not TILE_FLAGS.flags.writeable
    assert TILE_FLAGS[FLOOR] == F_WALKABLE and TILE_FLAGS[COUNTER] == F_CONTAINER
    assert TILE_FLAGS[CUTBOARD] == F_CONTAINER | F_CUTS and TILE_FLAGS[DELIVERY] == F_DELIVERY


def test_components_are_the_seven_observation_channels():
    assert DEFAULT_RULES.components == ("FreshTomato", "ChoppedTomato", "FreshLettuce", "ChoppedLettuce",
                                        "FreshOnion", "ChoppedOnion", "Plate")


def test_legend():
    legend = DEFAULT_RULES.legend
    assert legend[" "] == (FLOOR, None) and legend["-"] == legend["|"] == (COUNTER, None)
    assert legend["/"] == (CUTBOARD, None) and legend["*"] == (DELIVERY, None)
    assert legend["t"] == (COUNTER, "FreshTomato") and legend["l"] == (COUNTER, "FreshLettuce")
    assert legend["o"] == (COUNTER, "FreshOnion") and legend["p"] == (COUNTER, "Plate")
    assert len(legend) == 9


# --------------------------------------------------------------------------- names and equality


def test_names_sort_components_by_kind():
    assert item_name(["ChoppedTomato", "Plate", "ChoppedLettuce"]) == "ChoppedLettuce-Plate-ChoppedTomato"
    assert item_name(["ChoppedTomato", "Plate"]) == "Plate-ChoppedTomato"
    assert item_name(["FreshTomato"]) == "FreshTomato"
    assert item_name(["ChoppedTomato", "ChoppedOnion", "ChoppedLettuce", "Plate"]) == \
        "ChoppedLettuce-ChoppedOnion-Plate-ChoppedTomato"
    assert DEFAULT_RULES.canonical("ChoppedTomato-Plate") == "Plate-ChoppedTomato"
    assert [DEFAULT_RULES.dish(r) for r in ("SimpleTomato", "SimpleLettuce", "Salad", "OnionSalad")] == [
        "Plate-ChoppedTomato", "ChoppedLettuce-Plate", "ChoppedLettuce-Plate-ChoppedTomato",
        "ChoppedLettuce-ChoppedOnion-Plate-ChoppedTomato"]


def test_equality_is_by_kind_and_state():
    assert same_item("Plate-ChoppedTomato", "ChoppedTomato-Plate")
    assert not same_item("FreshTomato", "FreshLettuce")  # the original's Food.__eq__ says equal
    assert not same_item("FreshTomato", "ChoppedTomato")
    assert not same_item("ChoppedTomato", "ChoppedTomato-ChoppedTomato")
    assert same_item("ChoppedLettuce-Plate-ChoppedTomato", "Plate-ChoppedTomato-ChoppedLettuce")


def test_malformed_names_are_refused():
    for bad in ("", "Tomato", "freshTomato", "Plate-", "FreshTomato--Plate", "SlicedTomato"):
        with pytest.raises(ValueError):
            DEFAULT_RULES.vector(bad)


# --------------------------------------------------------------------------- predicates


def test_needs_chop_and_chop():
    assert needs_chop("FreshTomato") and needs_chop("FreshLettuce") and needs_chop("FreshOnion")
    for item in ("ChoppedTomato", "Plate", "Plate-ChoppedTomato", "ChoppedLettuce-ChoppedTomato"):
        assert not needs_chop(item)
        with pytest.raises(ValueError):
            chop(item)
    assert chop("FreshTomato") == "ChoppedTomato" and chop("FreshOnion") == "ChoppedOnion"


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("ChoppedTomato", "Plate", True),
    ("Plate", "ChoppedLettuce", True),
    ("ChoppedTomato", "ChoppedLettuce", True),  # no plate needed
    ("ChoppedTomato", "ChoppedTomato", True),
    ("Plate-ChoppedTomato", "ChoppedLettuce", True),
    ("ChoppedLettuce-ChoppedTomato", "Plate", True),
    ("Plate-ChoppedTomato", "ChoppedLettuce-Plate", False),  # two plates
    ("Plate", "Plate", False),
    ("FreshTomato", "Plate", False),  # fresh food never merges
    ("FreshTomato", "FreshLettuce", False),
    ("Plate-ChoppedTomato", "FreshLettuce", False),
    ("ChoppedTomato", "FreshTomato", False),
])
def test_mergeable_truth_table(a, b, expected):
    assert mergeable(a, b) is expected and mergeable(b, a) is expected
    if expected:
        assert merge(a, b) == merge(b, a) == DEFAULT_RULES.name_of(
            [x + y for x, y in zip(DEFAULT_RULES.vector(a), DEFAULT_RULES.vector(b), strict=True)])
    else:
        with pytest.raises(ValueError):
            merge(a, b)


@pytest.mark.parametrize(("item", "expected"), [
    ("ChoppedLettuce-ChoppedTomato", True),  # unplated is deliverable
    ("Plate-ChoppedTomato", True),
    ("ChoppedLettuce-Plate-ChoppedTomato", True),
    ("ChoppedTomato-ChoppedTomato", True),
    ("Plate", False),
    ("ChoppedTomato", False),
    ("FreshTomato", False),
    ("Plate-FreshTomato", False),
])
def test_deliverable_truth_table(item, expected):
    assert deliverable(item) is expected


def test_a_dish_satisfies_only_its_own_recipe():
    rules = DEFAULT_RULES
    salad = "ChoppedLettuce-Plate-ChoppedTomato"
    assert rules.satisfies(salad, "Salad") and not rules.satisfies(salad, "SimpleTomato")
    assert not rules.satisfies("Plate-ChoppedTomato", "Salad")
    assert not rules.satisfies("ChoppedLettuce-ChoppedTomato", "Salad")


# --------------------------------------------------------------------------- closure and tables


@pytest.mark.parametrize("name", ORIGINAL)
def test_closure_gives_the_nine_kinds(name):
    tables = load_kitchen_level(name).tables
    assert set(tables.kinds) == set(NINE_KINDS) and len(tables.kinds) == 9
    assert tables.item_names[0] == "EMPTY" and tables.num_items == 10


def test_ids_are_canonical():
    tables = load_kitchen_level("open-divider_salad").tables
    assert tables.item_names == ("EMPTY", "FreshTomato", "ChoppedTomato", "FreshLettuce", "ChoppedLettuce", "Plate",
                                 "ChoppedLettuce-ChoppedTomato", "Plate-ChoppedTomato", "ChoppedLettuce-Plate",
                                 "ChoppedLettuce-Plate-ChoppedTomato")
    assert tables.item_id("ChoppedTomato-Plate") == 7 and tables.item_id(None) == EMPTY == 0
    with pytest.raises(KeyError):
        tables.item_id("FreshOnion")


@pytest.mark.parametrize("name", builtin_kitchen_names())
def test_tables_shapes_dtypes_and_agreement_with_rules(name):
    level = load_kitchen_level(name)
    rules, t = level.rules, level.tables
    n, c = t.num_items, len(t.component_names)
    assert t.component_names == rules.components and c == 7 and t.obs_channels == 22
    for arr, dtype, shape in ((t.chop_to, np.int16, (n,)), (t.merge_to, np.int16, (n, n)),
                              (t.deliverable, np.uint8, (n,)), (t.dish_of, np.uint32, (n,)),
                              (t.components, np.uint8, (n, c)), (t.recipe_dish, np.int16, (len(level.recipes),))):
        assert arr.dtype == dtype and arr.shape == shape and not arr.flags.writeable
    assert t.chop_to[0] == -1 and (t.merge_to[0] == -1).all() and (t.merge_to[:, 0] == -1).all()
    assert t.deliverable[0] == 0 and t.dish_of[0] == 0 and not t.components[0].any()
    np.testing.assert_array_equal(t.merge_to, t.merge_to.T)
    have = rules.kind_counts(level.initial_items.values())
    for i, a in enumerate(t.item_names[1:], start=1):
        assert tuple(t.components[i]) == rules.vector(a)
        assert all(have[k] >= m for k, m in rules.kind_counts([a]).items())  # fits the inventory
        assert (t.chop_to[i] >= 0) == rules.needs_chop(a)
        if rules.needs_chop(a):
            assert t.item_names[t.chop_to[i]] == rules.chop(a)
        assert bool(t.deliverable[i]) == rules.deliverable(a)
        assert t.dish_of[i] == sum(1 << r for r, rec in enumerate(level.recipes) if rules.satisfies(a, rec))
        for j, b in enumerate(t.item_names[1:], start=1):
            if t.merge_to[i, j] >= 0:
                assert rules.mergeable(a, b) and t.item_names[t.merge_to[i, j]] == rules.merge(a, b)
            elif rules.mergeable(a, b):  # refused only when the two cannot coexist
                assert not all(have[k] >= m for k, m in rules.kind_counts([a, b]).items())
    for r, rec in enumerate(level.recipes):
        assert t.item_names[t.recipe_dish[r]] == rules.dish(rec)
    assert t.goal_mask == (1 << len(level.recipes)) - 1


def test_tl_level_has_two_recipe_bits():
    t = load_kitchen_level("open-divider_tl").tables
    assert t.dish_of[t.item_id("Plate-ChoppedTomato")] == 0b01
    assert t.dish_of[t.item_id("ChoppedLettuce-Plate")] == 0b10
    assert t.dish_of[t.item_id("ChoppedLettuce-Plate-ChoppedTomato")] == 0


def test_big_onion_salad_closure():
    level = load_kitchen_level("big-onion-salad")
    # Chopped multisets with up to 2 of each food and at most one plate, plus the three fresh foods.
    expected = {level.rules.name_of((0, t, 0, lt, 0, o, p))
                for t, lt, o, p in itertools.product(range(3), range(3), range(3), range(2)) if t + lt + o + p}
    expected |= {"FreshTomato", "FreshLettuce", "FreshOnion"}
    assert set(level.tables.kinds) == expected and len(expected) == 56
    assert level.tables.dish_of[level.tables.item_id("ChoppedLettuce-ChoppedOnion-Plate-ChoppedTomato")] == 0b01


def test_compile_tables_static_check():
    with pytest.raises(ValueError, match="no plate"):
        compile_tables(DEFAULT_RULES, ["FreshTomato"], ["SimpleTomato"])
    with pytest.raises(ValueError, match="Salad needs 1 Lettuce"):
        compile_tables(DEFAULT_RULES, ["FreshTomato", "Plate"], ["Salad"])
    with pytest.raises(ValueError, match="cannot be made"):  # the only plate already holds a tomato
        compile_tables(DEFAULT_RULES, ["Plate-ChoppedTomato", "FreshLettuce"], ["SimpleLettuce"])
    t = compile_tables(DEFAULT_RULES, {(0, 0): "FreshTomato", (1, 0): "Plate"}, [Recipe("Mine", ("Tomato",))])
    assert t.kinds == ("FreshTomato", "ChoppedTomato", "Plate", "Plate-ChoppedTomato")
    assert t.recipe_names == ("Mine",)


def test_two_tomatoes_merge_only_within_the_inventory():
    t = compile_tables(DEFAULT_RULES, ["FreshTomato", "FreshTomato", "Plate"], ["SimpleTomato"])
    assert "ChoppedTomato-ChoppedTomato" in t.kinds and "Plate-ChoppedTomato-ChoppedTomato" in t.kinds
    assert "ChoppedTomato-ChoppedTomato-ChoppedTomato" not in t.kinds


# --------------------------------------------------------------------------- user-declared rules

CUCUMBER_KITCHEN = """\
-c-p-
/   -
*   t
-----

CucumberSalad

1 1
2 2
"""


@pytest.fixture(scope="module")
def cucumber_rules():
    return DEFAULT_RULES.with_food("Cucumber", char="c").with_recipe(Recipe("CucumberSalad", ("Cucumber", "Tomato")))


def test_rules_are_immutable_and_extended_by_copy(cucumber_rules):
    assert [f.name for f in DEFAULT_RULES.foods] == ["Tomato", "Lettuce", "Onion"]
    assert len(DEFAULT_RULES.recipes) == 4 and "c" not in DEFAULT_RULES.legend
    assert cucumber_rules.components == ("FreshTomato", "ChoppedTomato", "FreshLettuce", "ChoppedLettuce",
                                         "FreshOnion", "ChoppedOnion", "FreshCucumber", "ChoppedCucumber", "Plate")
    assert cucumber_rules.dish("CucumberSalad") == "ChoppedCucumber-Plate-ChoppedTomato"
    assert cucumber_rules == DEFAULT_RULES.with_food("Cucumber", "c").with_recipe(
        "CucumberSalad", ["Cucumber", "Tomato"])
    assert hash(cucumber_rules) == hash(DEFAULT_RULES.with_food("Cucumber", "c").with_recipe(
        "CucumberSalad", ["Cucumber", "Tomato"]))
    with pytest.raises(AttributeError):
        cucumber_rules.foods = ()  # type: ignore[misc]


@pytest.mark.parametrize(("name", "char", "match"), [
    ("Tomato", "x", "duplicate food name"),
    ("Cucumber", "t", "duplicate food char"),
    ("Cucumber", "p", "reserved"),
    ("Cucumber", "m", "reserved"),
    ("Cucumber", "C", "lower-case"),
    ("Cucumber", "cc", "lower-case"),
    ("cucumber", "c", "CamelCase"),
    ("Sliced-Cucumber", "c", "CamelCase"),
    ("Plate", "c", "reserved"),
    ("FreshCucumber", "c", "reserved"),
])
def test_bad_food_is_refused(name, char, match):
    with pytest.raises(ValueError, match=match):
        DEFAULT_RULES.with_food(name, char)


def test_bad_recipe_is_refused():
    with pytest.raises(ValueError, match="unknown food 'Cucumber'"):
        DEFAULT_RULES.with_recipe(Recipe("CucumberSalad", ("Cucumber",)))
    with pytest.raises(ValueError, match="duplicate recipe name"):
        DEFAULT_RULES.with_recipe("Salad", ["Tomato"])
    with pytest.raises(ValueError, match="no ingredients"):
        DEFAULT_RULES.with_recipe("Nothing", [])
    with pytest.raises(TypeError):
        Rules.with_recipe(DEFAULT_RULES, "Nothing")


def test_user_food_and_recipe_compile_and_solve(cucumber_rules):
    with pytest.raises(LevelParseError) as info:
        parse_kitchen_text(CUCUMBER_KITCHEN)  # default rules: 'c' is unknown
    assert (info.value.line, info.value.col) == (1, 2)
    level = parse_kitchen_text(CUCUMBER_KITCHEN, "cucumber.txt", cucumber_rules)
    assert dict(level.initial_items) == {(1, 0): "FreshCucumber", (3, 0): "Plate", (4, 2): "FreshTomato"}
    t = level.tables
    assert t.kinds == ("FreshTomato", "ChoppedTomato", "FreshCucumber", "ChoppedCucumber", "Plate",
                       "ChoppedCucumber-ChoppedTomato", "Plate-ChoppedTomato", "ChoppedCucumber-Plate",
                       "ChoppedCucumber-Plate-ChoppedTomato")
    assert t.components.shape == (10, 9) and t.obs_channels == 4 + 2 * 9 + 4
    assert t.dish_of[t.item_id("ChoppedCucumber-Plate-ChoppedTomato")] == 1

    for agents in (1, 2):
        actions = solve(level, agents)
        state, results = replay(level, actions, agents)
        assert results[-1][:2] == (1.0, True) and all(r[0] == 0.0 for r in results[:-1])
        assert kitchen_solved(level, state) and len(actions) < 100
    state = kitchen_reset(level, 1)
    assert kitchen_obs(level, state).shape == (4, 5, 26)
    assert render_ansi(level, state).splitlines()[0] == "-c-p-"


def test_user_rules_through_the_loader(cucumber_rules, tmp_path):
    path = tmp_path / "cucumber.txt"
    path.write_text(CUCUMBER_KITCHEN)
    level = load_kitchen_level(path, rules=cucumber_rules)
    assert level.rules is cucumber_rules and level.recipe_names == ("CucumberSalad",)
    assert load_kitchen_level(path, rules=cucumber_rules) is level
    with pytest.raises(LevelParseError):
        load_kitchen_level(path)
