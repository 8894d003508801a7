"""The kitchen drawn: as text (the ``ansi`` render mode) and as a picture (``rgb_array``).

The picture shows what the rules mean. Tiles: floor, counters (brown), cutting boards (a
pale board with a slash, as ``/`` in the map) and delivery tiles (dark, gold border, the
number of dishes delivered there and the last one). Items: a fresh food is a whole disc
in its colour, a chopped one the same disc cut in four; a plate is a white dish with what
was merged onto it; an item of several foods without a plate shows them side by side.
Agents: their cell tinted and framed in the agent's colour (blue, magenta, yellow, green
for agents 1-4), the agent's number in the corner and the held item in the middle.
"""

from __future__ import annotations

import numpy as np

from gridsim.engine.draw import blend, cell_box, cells_frame, draw_grid, draw_text, fill_disc, fill_rect, outline_rect
from gridsim.kitchen.level import KitchenLevel, load_kitchen_level
from gridsim.kitchen.rules import COUNTER, CUTBOARD, DELIVERY, PLATE, TILES, Rules

__all__ = ["AGENT_COLORS", "FOOD_COLORS", "PLATE_COLOR", "TILE_COLORS", "food_color", "render_ansi", "render_rgb"]

# Floor, counter, cutting board, delivery: the tile ids' order in rules.TILES.
TILE_COLORS = np.array([(232, 228, 214), (150, 110, 70), (150, 110, 70), (60, 60, 60)], np.uint8)
BOARD_COLOR = (226, 206, 156)
DELIVERY_BORDER = (235, 190, 40)
GRID_COLOR = (200, 196, 184)
PLATE_COLOR = (250, 250, 250)
PLATE_RIM = (170, 170, 175)
AGENT_COLORS = np.array([(40, 80, 230), (210, 40, 200), (230, 200, 30), (40, 170, 60)], np.uint8)
FOOD_COLORS = {"Tomato": (220, 40, 35), "Lettuce": (60, 175, 45), "Onion": (150, 80, 190)}
# Colours of declared foods, in the order they are declared after the built-in ones.
EXTRA_FOOD_COLORS = ((240, 140, 20), (120, 70, 30), (20, 160, 170), (230, 110, 160), (110, 110, 40))
OUTLINE = (40, 30, 25)


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


def food_color(rules: Rules, food: str) -> tuple[int, int, int]:
    """The colour a food is drawn in (built-in foods have their own; declared ones take a palette's)."""
    if food in FOOD_COLORS:
        return FOOD_COLORS[food]
    extra = [f.name for f in rules.foods if f.name not in FOOD_COLORS]
    return EXTRA_FOOD_COLORS[extra.index(food) % len(EXTRA_FOOD_COLORS)]


def _draw_food(frame, rules: Rules, food: str, chopped: bool, cy: float, cx: float, r: float) -> None:
    """A whole disc with a dark rim (fresh) or the disc cut in four pieces (chopped)."""
    color = food_color(rules, food)
    if chopped:
        fill_disc(frame, cy, cx, r, color, cut=max(r / 6, 1.0))
    else:
        fill_disc(frame, cy, cx, r, OUTLINE)
        fill_disc(frame, cy, cx, r - max(r / 7, 1.0), color)


def draw_item(frame: np.ndarray, rules: Rules, item: str, y0: float, x0: float, size: float) -> None:
    """Draw an item (full name) in the square of side ``size`` at ``(y0, x0)``.

    Args:
        frame: the frame drawn into.
        rules: the kitchen's rules (its foods and their colours).
        item: the item's full name (``"ChoppedLettuce-Plate-ChoppedTomato"``).
        y0: the square's top row, in pixels.
        x0: the square's left column, in pixels.
        size: the square's side, in pixels.
    """
    counts = rules.vector(item)
    foods = [(f.name, chopped) for i, f in enumerate(rules.foods) for chopped in (False, True)
             for _ in range(counts[2 * i + chopped])]
    cy, cx = y0 + size / 2, x0 + size / 2
    plated = counts[-1] > 0
    if plated:
        fill_disc(frame, cy, cx, size * 0.46, PLATE_RIM)
        fill_disc(frame, cy, cx, size * 0.40, PLATE_COLOR)
    if not foods:
        return
    n = len(foods)
    if n == 1:
        spots, r = [(0.0, 0.0)], size * (0.27 if plated else 0.36)
    elif n == 2:
        spots, r = [(0.0, -0.18), (0.0, 0.18)], size * 0.17
    elif n == 3:
        spots, r = [(-0.15, -0.16), (-0.15, 0.16), (0.17, 0.0)], size * 0.15
    else:
        spots, r = [((k // 2 - 0.5) * 0.34, (k % 2 - 0.5) * 0.34) for k in range(4)], size * 0.14
    for (name, chopped), (dy, dx) in zip(foods, spots * (n // len(spots) + 1), strict=False):
        _draw_food(frame, rules, name, chopped, cy + dy * size, cx + dx * size, r)


def render_rgb(level, state: dict, px: int) -> np.ndarray:
    """The kitchen of a state dict (``KitchenVectorEnv.get_state``) as a uint8 (H * px, W * px, 3) frame.

    Args:
        level: the :class:`KitchenLevel` (or its name).
        state: the state dict: ``agents`` (``pos``, ``held``), ``items`` and ``delivered``.
        px: pixels per cell.

    Returns:
        A fresh uint8 array.
    """
    level = level if isinstance(level, KitchenLevel) else load_kitchen_level(level)
    rules = level.rules
    frame = cells_frame(TILE_COLORS[level.tiles], px)
    draw_grid(frame, px, GRID_COLOR)
    edge = max(px // 16, 1)
    scale = max(px // 24, 1)
    for y, x in np.argwhere(level.tiles != 0):
        y0, x0, y1, x1 = cell_box(int(y), int(x), px)
        tile = level.tile(int(x), int(y))
        if tile in (COUNTER, CUTBOARD):
            outline_rect(frame, y0, x0, y1, x1, edge, blend(TILE_COLORS[COUNTER], (0, 0, 0), 0.3))
        if tile == CUTBOARD:
            m = px * 0.12
            fill_rect(frame, y0 + m, x0 + m, y1 - m, x1 - m, BOARD_COLOR)
            for k in range(int(px * 0.2), int(px * 0.8)):  # the map's "/", bottom-left to top-right
                fill_rect(frame, y1 - k - 1, x0 + k - edge / 2, y1 - k, x0 + k + edge, (130, 120, 110))
        elif tile == DELIVERY:
            outline_rect(frame, y0, x0, y1, x1, max(px // 10, 1), DELIVERY_BORDER)
    for (x, y), dishes in state.get("delivered", {}).items():
        y0, x0, *_ = cell_box(y, x, px)
        draw_item(frame, rules, dishes[-1], y0 + px * 0.2, x0 + px * 0.2, px * 0.7)
        draw_text(frame, str(len(dishes)), y0 + 2 * edge + 1, x0 + 2 * edge + 1, scale, DELIVERY_BORDER)
    for (x, y), item in state["items"].items():
        y0, x0, *_ = cell_box(y, x, px)
        draw_item(frame, rules, item, y0, x0, px)
    for k, agent in enumerate(state["agents"]):
        x, y = agent["pos"]
        y0, x0, y1, x1 = cell_box(y, x, px)
        color = AGENT_COLORS[k]
        fill_rect(frame, y0, x0, y1, x1, blend(color, (255, 255, 255), 0.7))
        outline_rect(frame, y0, x0, y1, x1, max(px // 10, 2), color)
        if agent["held"] is not None:
            draw_item(frame, rules, agent["held"], y0 + px * 0.2, x0 + px * 0.2, px * 0.72)
        draw_text(frame, str(k + 1), y0 + max(px // 10, 2) + 1, x0 + max(px // 10, 2) + 1, scale, color)
    return frame
