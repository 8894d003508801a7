"""Kitchens with many items: the tables match the pairwise rules, load quickly, and run in the kernel."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridsim import KitchenEnv
from gridsim.errors import LevelError
from gridsim.kitchen import DEFAULT_RULES, parse_kitchen_text
from gridsim.kitchen.rules import MAX_ITEM_KINDS, Recipe, compile_tables
from gridsim.reference.kitchen import kitchen_obs, kitchen_reset, kitchen_step


def many_foods_kitchen(per_food: int, plates: int) -> str:
    """A 3-row kitchen: ``per_food`` of each default food between cutting boards, plates and a delivery below."""
    top = "".join(f + "/" for f in "tlo" for _ in range(per_food))
    bottom = ("p-" * plates + "*").ljust(len(top), "-")
    return "\n".join([top, " " * len(top), bottom, "", "OnionSalad", "", "0 1", "3 1"]) + "\n"


def pairwise_tables(rules, items):
    """The tables by definition: merge every pair of reachable kinds until nothing new appears."""
    budget = rules.kind_counts(items)
    kinds = {rules.canonical(i) for i in items}
    kinds |= {rules.chop(i) for i in kinds if rules.needs_chop(i)}
    while True:
        new = {rules.merge(a, b) for a, b in itertools.product(kinds, repeat=2) if rules.mergeable(a, b)}
        new = {m for m in new - kinds if all(n <= budget[k] for k, n in rules.kind_counts([m]).items())}
        if not new:
            break
        kinds |= new
    merges = {(a, b): rules.merge(a, b) for a, b in itertools.product(kinds, repeat=2)
              if rules.mergeable(a, b) and rules.merge(a, b) in kinds}
    return kinds, merges


RULES = DEFAULT_RULES.with_food("Cucumber", "c").with_recipe(Recipe("Big", ("Cucumber", "Tomato")))
ATOMS = ["FreshTomato", "FreshLettuce", "FreshCucumber", "Plate", "ChoppedTomato", "ChoppedTomato-Plate",
         "ChoppedLettuce-ChoppedOnion", "Plate-Plate", "FreshTomato-Plate", "ChoppedCucumber-ChoppedCucumber"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=7))
def test_tables_hold_exactly_the_pairwise_closure_and_its_merges(items):
    items = [*items, "Plate"]  # every kitchen has a plate
    tables = compile_tables(RULES, items, [])
    kinds, merges = pairwise_tables(RULES, items)
    assert set(tables.kinds) == kinds
    ids = tables.item_ids
    expected = np.full((tables.num_items, tables.num_items), -1, np.int16)
    for (a, b), m in merges.items():
        expected[ids[a], ids[b]] = ids[m]
    np.testing.assert_array_equal(tables.merge_to, expected)
    for name in tables.kinds:
        chopped = tables.chop_to[ids[name]]
        assert chopped == (ids[RULES.chop(name)] if RULES.needs_chop(name) else -1)


def test_thirty_foods_and_four_plates_compile_every_kind():
    level = parse_kitchen_text(many_foods_kitchen(10, 4))
    tables = level.tables
    # 3 fresh foods, plus every (tomatoes, lettuces, onions) chopped count 0..10, on 0 or 1 plate.
    assert tables.num_items == 1 + 3 + 11**3 * 2 - 1
    ids = tables.item_ids
    rng = np.random.default_rng(0)
    for i, j in rng.integers(1, tables.num_items, (2000, 2)):
        a, b = tables.item_names[i], tables.item_names[j]
        fits = DEFAULT_RULES.mergeable(a, b) and DEFAULT_RULES.merge(a, b) in ids
        assert tables.merge_to[i, j] == (ids[DEFAULT_RULES.merge(a, b)] if fits else -1)


def test_thirty_food_kitchen_steps_like_the_reference():
    env = KitchenEnv(level="=" + many_foods_kitchen(10, 4), num_agents=2)
    obs, _ = env.reset(seed=0)
    level = env.unwrapped.unwrapped_vector.level
    ref = kitchen_reset(level, 2)
    rng = np.random.default_rng(1)
    merged = 0
    for _ in range(400):
        actions = rng.choice([1, 1, 2, 2, 3, 4], 2)  # mostly up and down: pick, chop, put, merge
        obs, *_ = env.step(actions)
        kitchen_step(level, ref, actions.tolist(), max_steps=10**9)
        np.testing.assert_array_equal(obs, kitchen_obs(level, ref))
        merged += any("-" in a["held"] for a in ref["agents"] if a["held"])
    assert merged  # the run did merge items, through the large table


def test_too_many_item_kinds_is_a_level_error_at_the_recipe():
    text = many_foods_kitchen(20, 2)  # 21^3 * 2 chopped kinds, over the cap
    with pytest.raises(LevelError, match=f"more than {MAX_ITEM_KINDS} item kinds") as info:
        parse_kitchen_text(text, "big.txt")
    assert (info.value.source, info.value.line) == ("big.txt", 5)


def test_items_too_large_for_int64_keys_still_merge_exactly():
    # Eight foods, each in one item of 200 chopped: the merge keys outgrow int64 (401^8 > 2^62).
    foods = ["Apple", "Bean", "Corn", "Date", "Egg", "Fig", "Grape", "Herb"]
    rules = DEFAULT_RULES
    for name in foods:
        rules = rules.with_food(name, name[0].lower())
    items = ["-".join([f"Chopped{name}"] * 200) for name in foods] + ["Plate"]
    tables = compile_tables(rules, items, [])
    assert tables.num_items == 1 + 2**9 - 1  # every non-empty subset of the nine parts
    ids = {tuple(v): i for i, v in enumerate(tables.components.tolist())}
    for i, j in np.random.default_rng(0).integers(1, tables.num_items, (5000, 2)):
        total = tuple((tables.components[i].astype(int) + tables.components[j]).tolist())
        assert tables.merge_to[i, j] == (ids.get(total, -1) if total[-1] <= 1 else -1)
