"""Kitchen level files (gym-cooking's format): parsing, lookup and the compiled level.

A level file has three sections, in this order, separated by one or more blank lines
(a blank line is empty once carriage returns are removed; a line of spaces is a map row)::

    -----t-        map: one character per cell, all rows the same length
    /     l
    ...

    Salad          recipes: one name per line, exact and case-sensitive

    2 1            agent starts: "x y" per line, distinct floor cells;
    4 1            agent k starts on line k
    ...

Map characters (with the default rules): space floor; ``-`` and ``|`` counter; ``/``
cutboard; ``*`` delivery; ``t``/``l``/``o`` a counter holding a fresh tomato/lettuce/onion;
``p`` a counter holding a plate. Foods declared with :meth:`Rules.with_food` add their own
characters. Cell ``(x, y)`` is column x, row y, both from 0 at the top left.

Every error is a :class:`LevelParseError` (a ValueError) naming the source, the 1-based line
and column, and the offending text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from gridsim.errors import ArgumentTypeError, InvalidArgumentError, LevelError
from gridsim.kitchen.rules import (
    DEFAULT_RULES,
    DELIVERY,
    FLOOR,
    MAX_AGENTS,
    TILES,
    KitchenTables,
    Recipe,
    Rules,
    check_inventory,
    compile_tables,
)
from gridsim.levels.lookup import LevelSource, builtin_level_names, find_level
from gridsim.levels.textmap import decode_level_bytes, split_lines

__all__ = [
    "KitchenLevel",
    "LevelParseError",
    "builtin_kitchen_names",
    "find_kitchen_level",
    "load_kitchen_level",
    "parse_kitchen_text",
    "render_kitchen_text",
]

LevelParseError = LevelError
"""The error for a malformed kitchen level: ``LevelError(reason, source, line, col)``."""

SECTIONS = ("map", "recipes", "agent starts")
# The kernel numbers a kitchen's cells in int16 (agent_cell, delivered_cell).
MAX_CELLS = 2**15 - 1
_TOKEN = re.compile(r"\S+")
_UINT = re.compile(r"[0-9]+")


@dataclass(frozen=True, eq=False)
class KitchenLevel:
    """A parsed kitchen level with its compiled rule tables.

    Attributes:
        name: the file's stem, or ``"<string>"`` for inline text.
        source: the file path, or ``"<string>"``.
        width: W, the number of columns.
        height: H, the number of rows.
        tiles: uint8 ``(H, W)`` tile ids (``TILES`` positions), read-only.
        initial_items: ``(x, y)`` -> full name of the item lying there at reset (read-only).
        recipes: the listed recipes, in order (a repeated line is kept).
        starts: every listed agent start ``(x, y)``; agent k uses ``starts[k]``.
        rows: the map rows as written.
        rules: the foods and recipes the level was read with.
        tables: the item kinds and rule tables compiled from the initial items and recipes.
        recipe_lines: the 1-based source line of each recipe.
        start_lines: the 1-based source line of each start.
    """

    name: str
    source: str
    width: int
    height: int
    tiles: np.ndarray
    initial_items: Mapping[tuple[int, int], str]
    recipes: tuple[Recipe, ...]
    starts: tuple[tuple[int, int], ...]
    rows: tuple[str, ...]
    rules: Rules
    tables: KitchenTables
    recipe_lines: tuple[int, ...]
    start_lines: tuple[int, ...]

    def __post_init__(self):
        self.tiles.setflags(write=False)
        object.__setattr__(self, "initial_items", MappingProxyType(dict(self.initial_items)))

    def __reduce__(self):
        # Mapping proxies do not pickle; rebuild from plain values.
        return (KitchenLevel, (self.name, self.source, self.width, self.height, self.tiles, dict(self.initial_items),
                               self.recipes, self.starts, self.rows, self.rules, self.tables, self.recipe_lines,
                               self.start_lines))

    @property
    def recipe_names(self) -> tuple[str, ...]:
        """The recipes' names, in order."""
        return tuple(r.name for r in self.recipes)

    @property
    def dishes(self) -> tuple[str, ...]:
        """The full name of each recipe's dish, in order."""
        return tuple(self.rules.dish(r) for r in self.recipes)

    def tile(self, x: int, y: int) -> int:
        """The tile id at column x, row y."""
        return int(self.tiles[y, x])

    @functools.cached_property
    def delivery_cells(self) -> tuple[tuple[int, int], ...]:
        """The ``(x, y)`` of every Delivery tile, row-major."""
        return tuple((int(x), int(y)) for y, x in np.argwhere(self.tiles == DELIVERY))

    @functools.cached_property
    def item_grid(self) -> np.ndarray:
        """int16 ``(H, W)``: the item id lying on each cell at reset (0 = empty), read-only."""
        grid = np.zeros((self.height, self.width), np.int16)
        for (x, y), item in self.initial_items.items():
            grid[y, x] = self.tables.item_id(item)
        grid.setflags(write=False)
        return grid

    def check_agents(self, num_agents: int) -> None:
        """Check that ``num_agents`` is in 1..4 and the level lists that many starts.

        Raises:
            ValueError: ``num_agents`` is not an int in 1..4.
            LevelParseError: fewer start lines than ``num_agents``.
        """
        if isinstance(num_agents, bool) or not isinstance(num_agents, (int, np.integer)) or not (
                1 <= num_agents <= MAX_AGENTS):
            raise InvalidArgumentError(f"num_agents must be an int in 1..{MAX_AGENTS}, got {num_agents!r}")
        if len(self.starts) < num_agents:
            raise LevelParseError(
                f"{num_agents} agents need {num_agents} agent start lines; the level lists {len(self.starts)}",
                self.source, self.start_lines[-1] if self.start_lines else None)


# ---------------------------------------------------------------------------------------------
# Parsing


def _sections(lines: list[str], source: str) -> list[list[tuple[int, str]]]:
    sections: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] | None = None
    for lineno, line in enumerate(lines, start=1):
        if line == "":
            current = None
            continue
        if current is None:
            current = []
            sections.append(current)
        current.append((lineno, line))
    if not sections:
        raise LevelParseError("empty level (no map rows)", source)
    if len(sections) > 3:
        lineno, line = sections[3][0]
        raise LevelParseError(f"unexpected 4th section starting {line!r}; a level has 3 sections (map, recipes, "
                              "agent starts) separated by blank lines", source, lineno, 1)
    if len(sections) < 3:
        last = sections[-1][-1][0]
        raise LevelParseError(f"missing the {SECTIONS[len(sections)]} section; a level has 3 sections (map, "
                              "recipes, agent starts) separated by blank lines", source, last)
    return sections


def parse_kitchen_text(text: str, source: str = "<string>", rules: Rules = DEFAULT_RULES) -> KitchenLevel:
    """Parse a kitchen level.

    Args:
        text: the whole file.
        source: the file name used in error messages and for the level's name.
        rules: the foods and recipes the level may use.

    Returns:
        The level, with its tables compiled.

    Raises:
        LevelParseError: a missing or extra section, more than :data:`MAX_CELLS` cells, an unknown
            map character, a ragged row,
            an unknown recipe, a malformed start line, a start outside the map, on a non-floor
            cell or repeated, or a recipe whose food or plate is not in the kitchen.
    """
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a gridsim.kitchen.Rules, got {type(rules).__name__}")
    lines = split_lines(text)
    map_lines, recipe_lines, start_lines = _sections(lines, source)
    legend = rules.legend

    # Map.
    width = len(map_lines[0][1])
    if width * len(map_lines) > MAX_CELLS:
        raise LevelParseError(f"the map has {width}x{len(map_lines)} = {width * len(map_lines)} cells; a kitchen has "
                              f"at most {MAX_CELLS} (its cells are numbered in int16)", source, map_lines[0][0])
    tiles = np.zeros((len(map_lines), width), np.uint8)
    items: dict[tuple[int, int], str] = {}
    for y, (lineno, row) in enumerate(map_lines):
        if len(row) != width:
            raise LevelParseError(f"ragged map: row {row!r} has {len(row)} characters, the first row has {width}",
                                  source, lineno, min(len(row), width) + 1)
        for x, ch in enumerate(row):
            if ch not in legend:
                known = "".join(sorted(legend))
                raise LevelParseError(f"unknown map character {ch!r}; known characters: {known!r}",
                                      source, lineno, x + 1)
            tile, item = legend[ch]
            tiles[y, x] = tile
            if item is not None:
                items[(x, y)] = item
    height = len(map_lines)

    # Recipes.
    recipes = []
    for lineno, line in recipe_lines:
        try:
            recipes.append(rules.recipe(line))
        except KeyError:
            names = ", ".join(r.name for r in rules.recipes)
            raise LevelParseError(f"unknown recipe {line!r}; recipes: {names}", source, lineno, 1) from None
    for r, (lineno, _) in zip(recipes, recipe_lines, strict=True):
        try:
            check_inventory(rules, items.values(), [r])
        except ValueError as e:
            raise LevelParseError(str(e), source, lineno, 1) from None

    # Agent starts.
    starts: list[tuple[int, int]] = []
    for lineno, line in start_lines:
        tokens = list(_TOKEN.finditer(line))
        if len(tokens) != 2:
            col = tokens[2].start() + 1 if len(tokens) > 2 else 1
            raise LevelParseError(f"agent start must be 'x y' (two integers), got {line!r}", source, lineno, col)
        for tok in tokens:
            if not _UINT.fullmatch(tok.group()):
                raise LevelParseError(f"agent start coordinate must be a non-negative integer, got {tok.group()!r} "
                                      f"in {line!r}", source, lineno, tok.start() + 1)
        x, y = int(tokens[0].group()), int(tokens[1].group())
        col = tokens[0].start() + 1
        if not (x < width and y < height):
            bad = tokens[0] if x >= width else tokens[1]
            raise LevelParseError(f"agent start {line.strip()!r} is outside the {width}x{height} map", source,
                                  lineno, bad.start() + 1)
        if tiles[y, x] != FLOOR:
            raise LevelParseError(f"agent start {line.strip()!r} is on a {TILES[tiles[y, x]].name} "
                                  f"({map_lines[y][1][x]!r}), not on floor", source, lineno, col)
        if (x, y) in starts:
            first = start_lines[starts.index((x, y))][0]
            raise LevelParseError(f"agent start {line.strip()!r} repeats the start on line {first}", source,
                                  lineno, col)
        starts.append((x, y))

    try:
        tables = compile_tables(rules, items.values(), recipes)
    except ValueError as e:
        raise LevelParseError(str(e), source, recipe_lines[0][0], 1) from None
    name = Path(source).stem if source != "<string>" else "<string>"
    return KitchenLevel(
        name=name,
        source=source,
        width=width,
        height=height,
        tiles=tiles,
        initial_items=items,
        recipes=tuple(recipes),
        starts=tuple(starts),
        rows=tuple(row for _, row in map_lines),
        rules=rules,
        tables=tables,
        recipe_lines=tuple(n for n, _ in recipe_lines),
        start_lines=tuple(n for n, _ in start_lines),
    )


def render_kitchen_text(level: KitchenLevel) -> str:
    """The level in the file format (``parse_kitchen_text(render_kitchen_text(lv))`` gives an equal level)."""
    starts = [f"{x} {y}" for x, y in level.starts]
    return "\n".join([*level.rows, "", *level.recipe_names, "", *starts]) + "\n"


# ---------------------------------------------------------------------------------------------
# Lookup


def builtin_kitchen_names() -> list[str]:
    """Sorted names of the built-in kitchens, e.g. ``["kitchen/big-onion-salad", ...]``."""
    return builtin_level_names("kitchen")


def find_kitchen_level(level: str | Path, level_directory: str | Path | None = None) -> Path:
    """:func:`gridsim.levels.lookup.find_level`, also trying ``kitchen/<name>`` for a bare name.

    Raises:
        LevelNotFoundError: nothing matched; the error lists every path tried.
    """
    return find_level(level, level_directory, family="kitchen")


@functools.lru_cache(maxsize=256)
def _load_file(path: str, mtime_ns: int, size: int, rules: Rules) -> KitchenLevel:
    # mtime and size are part of the key, so an edited file is read again.
    with open(path, "rb") as f:
        return parse_kitchen_text(decode_level_bytes(f.read(), path), path, rules)


@functools.lru_cache(maxsize=64)
def _load_text(text: str, rules: Rules) -> KitchenLevel:
    return parse_kitchen_text(text, "<string>", rules)


def load_kitchen_level(level: str | Path | LevelSource | KitchenLevel, level_directory: str | Path | None = None,
                       rules: Rules = DEFAULT_RULES) -> KitchenLevel:
    """Find and parse a kitchen level (cached).

    Args:
        level: ``"kitchen/<stem>"`` (a built-in, or that path under ``level_directory``), a bare
            ``"<stem>"`` or ``"<stem>.txt"`` (searched inside the level directories only), a
            :class:`~pathlib.Path` (that file), ``"="`` followed by the level text itself, a text
            level's :class:`~gridsim.levels.lookup.LevelSource` (that file, already resolved) or a
            :class:`KitchenLevel` (returned as is).
        level_directory: a folder searched before the built-in levels.
        rules: the foods and recipes the level may use.

    Returns:
        The level. Files are cached on (path, modification time, size, rules), inline text on
        (text, rules), so loading twice returns the same object.
    """
    if isinstance(level, KitchenLevel):
        return level
    if not isinstance(rules, Rules):  # before the caches hash it
        raise ArgumentTypeError(f"rules must be a gridsim.kitchen.Rules, got {type(rules).__name__}")
    if isinstance(level, str) and level.startswith("="):
        return _load_text(level[1:], rules)
    if isinstance(level, LevelSource):  # already resolved (gridsim.make): no second lookup
        if level.kind == "inline":
            return _load_text(level.text or "", rules)
        if level.kind != "text" or level.path is None:
            raise LevelError(f"level {level.name!r} is a Python level module, not a kitchen map", str(level.path))
        path = level.path
    else:
        path = find_kitchen_level(level, level_directory)  # symbolic links resolved
    st = path.stat()
    return _load_file(str(path), st.st_mtime_ns, st.st_size, rules)
