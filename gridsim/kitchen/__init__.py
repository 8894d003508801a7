"""The kitchen family (after gym-cooking): 1-4 agents chop, plate and deliver dishes on a shared team reward.

Positions are ``(x, y)``: x the column from the left, y the row from the top. Levels are
gym-cooking's text files (:mod:`gridsim.kitchen.level`); foods, items and recipes are data
(:mod:`gridsim.kitchen.rules`), compiled per level into the integer tables the kernel runs.

Declaring a new food and recipe needs no kernel change::

    from gridsim.kitchen import DEFAULT_RULES, Recipe, load_kitchen_level

    rules = DEFAULT_RULES.with_food("Cucumber", char="c").with_recipe(
        Recipe("CucumberSalad", ("Cucumber", "Tomato")))
    level = load_kitchen_level("my_kitchen.txt", rules=rules)  # 'c' in the map, CucumberSalad listed

Built-in levels (``kitchen/<stem>``): gym-cooking's nine 7x7 kitchens (``{open,partial,full}-divider_
{salad,tl,tomato}``) and two more. With ``max_episode_steps=100`` the open and partial kitchens can be
solved by 1-4 agents; the full-divider ones need 2-4 (the halves are sealed, and items cross on the
divider's counters).

* ``big-onion-salad``: 12x9, recipes OnionSalad and Salad, two Delivery tiles, two each of tomatoes,
  lettuces and onions, four plates; one open room, so 1-4 agents (two agents cook both dishes at once).
* ``corridor_salad``: 12x7, recipe Salad. The prep room (foods, plates, cutboards) ends in a corridor one
  cell wide that stops at a pass counter; the Delivery tile is in a separate room behind it. Needs 2-4
  agents: one cooks and puts the dish on the pass, another serves it.
"""

from gridsim.kitchen.level import (
    KitchenLevel,
    LevelParseError,
    builtin_kitchen_names,
    find_kitchen_level,
    load_kitchen_level,
    parse_kitchen_text,
    render_kitchen_text,
)
from gridsim.kitchen.parallel import KitchenParallelEnv, parallel_env
from gridsim.kitchen.rules import (
    COUNTER,
    CUTBOARD,
    DEFAULT_RULES,
    DELIVERY,
    EMPTY,
    EMPTY_NAME,
    F_CONTAINER,
    F_CUTS,
    F_DELIVERY,
    F_WALKABLE,
    FLOOR,
    FOOD_STATES,
    MAX_AGENTS,
    NUM_TILE_KINDS,
    PLATE,
    TILE_FLAGS,
    TILES,
    Food,
    KitchenTables,
    Recipe,
    Rules,
    TileKind,
    canonical,
    check_inventory,
    chop,
    compile_tables,
    deliverable,
    item_name,
    merge,
    mergeable,
    needs_chop,
    same_item,
)

__all__ = [
    "KitchenParallelEnv",
    "parallel_env",
    "COUNTER",
    "CUTBOARD",
    "DEFAULT_RULES",
    "DELIVERY",
    "EMPTY",
    "EMPTY_NAME",
    "FLOOR",
    "FOOD_STATES",
    "F_CONTAINER",
    "F_CUTS",
    "F_DELIVERY",
    "F_WALKABLE",
    "MAX_AGENTS",
    "NUM_TILE_KINDS",
    "PLATE",
    "TILES",
    "TILE_FLAGS",
    "Food",
    "KitchenLevel",
    "KitchenTables",
    "LevelParseError",
    "Recipe",
    "Rules",
    "TileKind",
    "builtin_kitchen_names",
    "canonical",
    "check_inventory",
    "chop",
    "compile_tables",
    "deliverable",
    "find_kitchen_level",
    "item_name",
    "load_kitchen_level",
    "merge",
    "mergeable",
    "needs_chop",
    "parse_kitchen_text",
    "render_kitchen_text",
    "same_item",
]
