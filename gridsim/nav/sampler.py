"""Train/test task splits over goal positions (PixelWorld's ``PixelWorldSampler``, fixed).

A sampler takes one template map, removes its goal, and writes the goal back at
each candidate cell in turn. The candidates are ordered (by default, nearest to the
start first); the train side takes the first ``th`` of them and the test side the
last ``th``, so training goals are near the start and test goals far from it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from gridsim.errors import ArgumentTypeError, InvalidArgumentError
from gridsim.levels.textmap import ParsedLevel, parse_level_text, render_level_text
from gridsim.nav.alphabet import F_INITIAL, F_WALKABLE
from gridsim.nav.level import map_tiles, read_nav_level, resolve_alphabet

__all__ = ["ORDERS", "TaskSampler"]

ORDERS = ("distance", "row_major")


class TaskSampler:
    """Make one map per candidate goal cell, split into train and test sets.

    Args:
        template: map text (any str containing a line break), ``"=" + map text``, a level
            name such as ``"nav/room1_small"``, a path, or a parsed level. It is never
            changed.
        start: the start cell ``(row, col)``; needed when the template has several
            initial cells (or none).
        goal_symbol: the goal character; default: the alphabet's only terminal symbol.
        order: ``"distance"`` sorts the candidates by squared Euclidean distance to the
            start (ties in row-major order); ``"row_major"`` keeps map order.
        alphabet: the alphabet the template is read with (see
            :func:`gridsim.nav.level.compile_nav_level`).

    Attributes:
        start: the start cell.
        goal_symbol: the goal character.
        base_rows: the template's rows with every goal replaced by the default symbol.
        candidates: the candidate goal cells, in ``order``.

    Raises:
        ValueError: the goal symbol or the start is missing or ambiguous, ``start`` is
            not an accessible cell, or ``order`` is unknown.

    Example:
        >>> sampler = TaskSampler("nav/room1_small")
        >>> sampler.cells(True, 10, 10)
        [(3, 1)]
        >>> print(sampler.generate(False, 10, 10)[0])
        ######
        #   0#
        #    #
        #    #
        #S   #
        ######
    """

    def __init__(self, template, *, start=None, goal_symbol=None, order="distance", alphabet=None):
        if order not in ORDERS:
            raise InvalidArgumentError(f"order must be one of {ORDERS}, got {order!r}")
        parsed = _template(template)
        alph = resolve_alphabet(parsed, alphabet)
        tiles, rows = map_tiles(parsed, alph)

        if goal_symbol is None:
            goals = [ch for ch, s in alph.symbols.items() if s.terminal]
            if len(goals) != 1:
                what = "no terminal symbol" if not goals else f"several terminal symbols {goals}"
                raise InvalidArgumentError(f"alphabet {alph.name!r} has {what}; pass goal_symbol=")
            goal_symbol = goals[0]
        elif goal_symbol not in alph.ids:
            raise InvalidArgumentError(f"goal_symbol {goal_symbol!r} is not in alphabet {alph.name!r}")
        if goal_symbol == alph.default_symbol:
            raise InvalidArgumentError(f"goal_symbol {goal_symbol!r} is the default symbol")

        # The base map is a copy: the template's text and arrays are left alone.
        self.base_rows = tuple(r.replace(goal_symbol, alph.default_symbol) for r in rows)
        base = np.where(tiles == alph.ids[goal_symbol], alph.default_id, tiles)
        flags = alph.flags[base]

        if start is None:
            initial = [tuple(map(int, rc)) for rc in np.argwhere(flags & F_INITIAL)]
            if len(initial) != 1:
                what = "no initial cell" if not initial else f"{len(initial)} initial cells"
                raise InvalidArgumentError(f"the template has {what}; pass start=(row, col)")
            start = initial[0]
        r0, c0 = (int(v) for v in start)
        inside = 0 <= r0 < base.shape[0] and 0 <= c0 < base.shape[1]
        if not inside or not flags[r0, c0] & F_WALKABLE:
            raise InvalidArgumentError(f"start {tuple(start)} is not an accessible cell of the template")

        cells = [(int(r), int(c)) for r, c in np.argwhere(flags & F_WALKABLE) if (r, c) != (r0, c0)]
        if order == "distance":  # sorted() is stable, so ties stay in row-major order
            cells.sort(key=lambda rc: (rc[0] - r0) ** 2 + (rc[1] - c0) ** 2)
        self.start = (r0, c0)
        self.goal_symbol = goal_symbol
        self.candidates = tuple(cells)
        self._parsed = parsed

    def cells(self, train: bool, train_split: float, test_split: float) -> list[tuple[int, int]]:
        """The goal cells of one side of the split.

        Args:
            train: True for the train side (nearest candidates), False for the test side.
            train_split: percentage of candidates in the train side.
            test_split: percentage of candidates in the test side.

        Returns:
            ``th = floor(N * split / 100)`` cells, in candidate order; an empty list when
            ``th == 0``.

        Raises:
            ValueError: a split is negative or not a number, or they add up to over 100.
        """
        for split in (train_split, test_split):
            if not (math.isfinite(split) and split >= 0):
                raise InvalidArgumentError(f"splits are percentages >= 0, got {split!r}")
        if train_split + test_split > 100:
            raise InvalidArgumentError(
                f"train_split + test_split must be <= 100, got {train_split} + {test_split}"
            )
        n = len(self.candidates)
        # Exact arithmetic, so e.g. 57 * 10 / 100 never rounds across a whole number.
        th = math.floor(n * Fraction(train_split if train else test_split) / 100)
        if th == 0:
            return []  # the original's [-0:] returned every candidate here
        return list(self.candidates[:th] if train else self.candidates[n - th:])

    def generate(self, train: bool, train_split: float, test_split: float) -> list[str]:
        """The maps of one side of the split, one per goal cell.

        Args:
            train: True for the train side, False for the test side.
            train_split: percentage of candidates in the train side.
            test_split: percentage of candidates in the test side.

        Returns:
            Map texts (rows joined by newlines, no trailing newline). A native-format
            template gives native-format maps, so its legend and meta are kept.
        """
        return [self.map_for(cell) for cell in self.cells(train, train_split, test_split)]

    def map_for(self, cell: tuple[int, int]) -> str:
        """The base map with the goal symbol written at ``cell``."""
        r, c = cell
        rows = list(self.base_rows)
        rows[r] = rows[r][:c] + self.goal_symbol + rows[r][c + 1:]
        if self._parsed.format == "native":
            return render_level_text(replace(self._parsed, rows=tuple(rows))).rstrip("\n")
        return "\n".join(rows)


def _template(template) -> ParsedLevel:
    if isinstance(template, ParsedLevel):
        return template
    if isinstance(template, str) and ("\n" in template or "\r" in template) and not template.startswith("="):
        return parse_level_text(template)
    if isinstance(template, (str, Path)):
        return read_nav_level(template)
    kind = type(template).__name__
    raise ArgumentTypeError(f"template must be map text, a level name or a path, got {kind}")
