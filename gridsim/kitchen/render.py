"""The kitchen as text: tiles, the items lying on them and the agents (the ``ansi`` render mode)."""

from __future__ import annotations

from gridsim.kitchen.level import KitchenLevel, load_kitchen_level
from gridsim.kitchen.rules import COUNTER, PLATE, TILES

__all__ = ["render_ansi"]


def _item_char(level: KitchenLevel, item: str) -> str:
    rules = level.rules
    v = rules.vector(item)
    if sum(v) > 1:
        return "m"
    c = v.index(1)
    if rules.components[c] == PLATE:
        return "p"
    food = rules.foods[c // 2]
    return food.char if c % 2 == 0 else food.char.upper()


def render_ansi(level, state: dict) -> str:
    """The ``ansi`` text grid, one line per row, each ending with a newline.

    Tile characters (``|`` stays ``|``), the items lying on tiles (``t``/``T`` a fresh/chopped
    tomato, likewise ``l``/``L``, ``o``/``O`` and declared foods, ``p`` a plate, ``m`` any item
    of several components), and agent digits 1-4 on top. A Delivery tile always shows ``*``;
    held items are not shown.
    """
    level = level if isinstance(level, KitchenLevel) else load_kitchen_level(level)
    grid = []
    for y, row in enumerate(level.rows):
        line = []
        for x, ch in enumerate(row):
            tile = level.tile(x, y)
            line.append(ch if ch in ("-", "|") and tile == COUNTER else TILES[tile].char)
        grid.append(line)
    for (x, y), item in state["items"].items():
        grid[y][x] = _item_char(level, item)
    for k, a in enumerate(state["agents"]):
        x, y = a["pos"]
        grid[y][x] = str(k + 1)
    return "".join("".join(line) + "\n" for line in grid)
