"""Compile a parsed text level into the navigation family's arrays.

The alphabet decides what each map character means. It comes from the
``alphabet=`` argument, else the level's ``alphabet`` meta key, else
``"navigation"``; a native level's ``[legend]`` adds or replaces symbols on top.
:data:`LEVEL_GRAMMAR` is what a navigation level's ``[meta]`` and ``[legend]`` may say
(the family's row hands it to the text-map format).
"""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import gridsim.nav._kernel as _kernel
from gridsim.engine.grammar import LegendProperty, LevelGrammar
from gridsim.engine.settings import MAX_STEPS_LIMIT
from gridsim.errors import InvalidArgumentError, LevelError
from gridsim.levels.lookup import read_level
from gridsim.levels.textmap import COMMON_META_KEYS, LevelWarning, ParsedLevel
from gridsim.nav.alphabet import F_INITIAL, F_TERMINAL, F_WALKABLE, Alphabet, Dist, Symbol, get_alphabet

__all__ = [
    "LEGEND_BOOL_KEYS",
    "LEVEL_GRAMMAR",
    "META_KEYS",
    "LevelWarning",
    "NavLevel",
    "compile_nav_level",
    "load_nav_level",
    "map_tiles",
    "read_nav_level",
    "resolve_alphabet",
]

UNKNOWN_SYMBOLS = ("error", "default")
# Rows and columns are int16 in start_cells and goal_cells; cells are numbered in int32, with room
# for the padding a view adds around the map.
MAX_SIDE = 2**15 - 1
MAX_CELLS = 2**28
# The largest reward a symbol may give (rewards are float32).
FLOAT32_MAX = float(np.finfo(np.float32).max)


# ---------------------------------------------------------------------------------------------
# What a level file may say: [meta] keys and [legend] properties

_UINT = re.compile(r"[0-9]+")


def _positive_int(key: str):
    def check(value: str) -> None:
        try:
            ok = bool(_UINT.fullmatch(value)) and 0 < int(value) <= MAX_STEPS_LIMIT
        except ValueError:  # more digits than int() reads
            ok = False
        if not ok:
            raise InvalidArgumentError(f"{key} must be a positive integer up to {MAX_STEPS_LIMIT}, got {value!r}")
    return check


def _one_of_unknown_symbols(value: str) -> None:
    if value not in UNKNOWN_SYMBOLS:
        raise InvalidArgumentError(f"unknown_symbols must be 'error' or 'default', got {value!r}")


def _one_character(value: str) -> None:
    if len(value) != 1:
        raise InvalidArgumentError(f"default_symbol must be one character (write a space as ' '), got {value!r}")


def _flag(key: str) -> LegendProperty:
    def parse(value: str) -> bool:
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise InvalidArgumentError(f"{key} must be true or false, got {value!r}")
    return LegendProperty(parse, lambda v: "true" if v else "false", flag=True)


def _num(x: float) -> str:
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def _render_dist(value) -> str:
    d = Dist.parse(value)
    return _num(d.a) if d.kind == "const" else f"{d.kind}({_num(d.a)},{_num(d.b)})"


def _parse_color(value: str) -> tuple[int, ...]:
    parts = value.split(",")
    if len(parts) != 3 or not all(p.strip().isdecimal() and int(p) <= 255 for p in parts):
        raise InvalidArgumentError(f"color is r,g,b with integers in 0..255, got {value!r}")
    return tuple(int(p) for p in parts)


# The true/false legend properties (Symbol's flags), which may be written bare.
LEGEND_BOOL_KEYS = ("terminal", "accessible", "stochastic", "initial", "collectible")

LEVEL_GRAMMAR = LevelGrammar(
    meta={
        "alphabet": None,  # checked when the level compiles (resolve_alphabet)
        "default_symbol": _one_character,
        "max_episode_steps": _positive_int("max_episode_steps"),
        "obs_type": None,
        "actions": None,
        "view_size": _positive_int("view_size"),
        "unknown_symbols": _one_of_unknown_symbols,
    },
    legend={
        "reward": LegendProperty(Dist.parse, _render_dist),
        "color": LegendProperty(_parse_color, lambda v: ",".join(str(int(c)) for c in v)),
        **{key: _flag(key) for key in LEGEND_BOOL_KEYS},
    },
    legend_example="S = initial reward=-1",
)
# Every [meta] key a navigation level may have: the common ones, then the family's.
META_KEYS = (*COMMON_META_KEYS, *LEVEL_GRAMMAR.meta)


@dataclass(frozen=True, eq=False)
class NavLevel:
    """A navigation level ready for the kernel.

    Attributes:
        name: the level's name (meta ``name`` or the file stem).
        source: the file it came from, or ``"<string>"``.
        tiles: ``uint8 (H, W)`` tile ids of ``alphabet`` (read-only).
        height: H, the number of rows.
        width: W, the number of columns.
        start_cells: ``int16 (S, 2)`` (row, col) of the initial cells, row-major.
        goal_cells: ``int16 (G, 2)`` (row, col) of the terminal cells, row-major.
        alphabet: the resolved alphabet (legend and default symbol applied).
        meta: the level's ``[meta]`` keys (empty for PixelWorld maps).
        rows: the map rows, with unknown characters replaced when
            ``unknown_symbols="default"``.
    """

    name: str
    source: str
    tiles: np.ndarray
    height: int
    width: int
    start_cells: np.ndarray
    goal_cells: np.ndarray
    alphabet: Alphabet
    meta: Mapping[str, str]
    rows: tuple[str, ...]

    @property
    def walkable(self) -> np.ndarray:
        """``bool (H, W)``: True where a move may end (the symbol is accessible)."""
        return (self.alphabet.flags[self.tiles] & F_WALKABLE).astype(bool)

    @property
    def open_cells(self) -> np.ndarray:
        """``int64 (K, 2)``: (row, col) of the accessible, non-terminal cells, row-major.

        The cells an agent can stand on mid-episode: what ``reset(options={"start": ...})``
        takes for random start states.
        """
        flags = self.alphabet.flags[self.tiles]
        return np.argwhere((flags & F_WALKABLE != 0) & (flags & F_TERMINAL == 0))

    def accessible_count(self) -> int:
        """Number of accessible cells."""
        return int(np.count_nonzero(self.walkable))

    def bfs_distances(self, start) -> np.ndarray:
        """Fewest 4-neighbour moves from ``start`` to every cell, through accessible cells.

        Args:
            start: a ``(row, col)`` cell, or an ``(S, 2)`` array of cells (distance to the
                nearest one).

        Returns:
            ``int32 (H, W)``; -1 where a cell cannot be reached.
        """
        return _bfs(self.walkable, np.asarray(start, dtype=np.int64).reshape(-1, 2))


def _bfs(walkable: np.ndarray, starts: np.ndarray) -> np.ndarray:
    h, w = walkable.shape
    outside = ~((0 <= starts[:, 0]) & (starts[:, 0] < h) & (0 <= starts[:, 1]) & (starts[:, 1] < w))
    if outside.any():
        r, c = starts[np.flatnonzero(outside)[0]].tolist()
        raise InvalidArgumentError(f"start cell {(r, c)} is outside the {h}x{w} map")
    dist = np.empty((h, w), np.int32)
    _kernel.grid_distances(np.ascontiguousarray(walkable, np.uint8), np.ascontiguousarray(starts, np.int64), dist)
    return dist


def _meta_error(parsed: ParsedLevel, key: str, message: str) -> LevelError:
    return LevelError(message, parsed.source, parsed.meta_lines.get(key))


def resolve_alphabet(
    parsed: ParsedLevel, alphabet=None, default_symbol: str | None = None
) -> Alphabet:
    """The alphabet a level is read with: argument > meta ``alphabet`` > ``"navigation"``.

    The level's legend is added on top, then the default symbol (argument > meta
    ``default_symbol`` > the alphabet's own) is applied.

    Args:
        parsed: the level.
        alphabet: a name, an :class:`Alphabet` or a dict of symbols, or None.
        default_symbol: overrides the default symbol.

    Returns:
        The alphabet.
    """
    if alphabet is None and "alphabet" in parsed.meta:
        try:
            alph = get_alphabet(parsed.meta["alphabet"])
        except ValueError as e:
            raise _meta_error(parsed, "alphabet", str(e)) from None
    else:
        alph = get_alphabet(alphabet)
    if parsed.legend:
        extra = {}
        for ch, props in parsed.legend.items():
            try:
                extra[ch] = Symbol.from_mapping(props)
            except ValueError as e:
                line = parsed.legend_lines.get(ch)
                raise LevelError(f"{ch!r}: {e}", parsed.source, line) from None
        alph = alph.extended(extra)
    if default_symbol is None and "default_symbol" in parsed.meta:
        try:
            return alph.with_default(parsed.meta["default_symbol"])
        except ValueError as e:
            raise _meta_error(parsed, "default_symbol", str(e)) from None
    return alph.with_default(default_symbol) if default_symbol is not None else alph


def map_tiles(
    parsed: ParsedLevel, alph: Alphabet, unknown_symbols: str | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Tile ids ``uint8 (H, W)`` of a parsed map, and its rows after unknown-symbol handling.

    Args:
        parsed: the level.
        alph: the alphabet (see :func:`resolve_alphabet`).
        unknown_symbols: ``"error"`` or ``"default"`` (argument > meta > ``"error"``).

    Returns:
        ``(tiles, rows)``.

    Raises:
        LevelError: a character is not in the alphabet and ``unknown_symbols="error"``.
    """
    mode = unknown_symbols or parsed.meta.get("unknown_symbols", "error")
    if not isinstance(mode, str) or mode not in UNKNOWN_SYMBOLS:
        raise InvalidArgumentError(f"unknown_symbols must be one of {UNKNOWN_SYMBOLS}, got {mode!r}")
    ids, default = alph.ids, alph.default_symbol
    rows = parsed.rows
    # One code point per cell, looked up among the alphabet's sorted code points.
    text = "".join(rows).encode("utf-32-le", "surrogatepass")
    codes = np.frombuffer(text, np.uint32).reshape(parsed.height, parsed.width)
    chars = sorted(ids, key=ord)
    known_codes = np.array([ord(ch) for ch in chars], np.uint32)
    known_ids = np.array([ids[ch] for ch in chars], np.uint8)
    pos = np.minimum(np.searchsorted(known_codes, codes), len(chars) - 1)
    known = known_codes[pos] == codes
    tiles = known_ids[pos]
    if not known.all():
        bad_rows = np.flatnonzero(~known.all(1))
        if mode == "error":
            i = int(bad_rows[0])
            bad = int(np.flatnonzero(~known[i])[0])
            raise LevelError(
                f"unknown symbol {rows[i][bad]!r} (alphabet {alph.name!r} has "
                f"{', '.join(repr(c) for c in ids)})",
                parsed.source, parsed.row_lines[i], bad + 1,
            )
        tiles[~known] = ids[default]
        fixed = list(rows)
        for r in bad_rows.tolist():
            fixed[r] = "".join(ch if ch in ids else default for ch in fixed[r])
        rows = tuple(fixed)
    return tiles, tuple(rows)


_CACHE: OrderedDict[tuple, tuple[NavLevel, str | None]] = OrderedDict()
_CACHE_SIZE = 128


def compile_nav_level(
    parsed: ParsedLevel,
    alphabet=None,
    *,
    default_symbol: str | None = None,
    unknown_symbols: str | None = None,
) -> NavLevel:
    """Compile a parsed level for the navigation family.

    Args:
        parsed: the output of :func:`gridsim.levels.parse_level_text`.
        alphabet: a name (``"navigation"``, ``"noisy"``), an :class:`Alphabet` or a dict
            of symbols; default: the level's ``alphabet`` meta key, else ``"navigation"``.
        default_symbol: the symbol that replaces collected cells and unknown characters;
            default: the level's meta key, else the alphabet's.
        unknown_symbols: ``"error"`` (default) raises on a character outside the
            alphabet; ``"default"`` reads it as the default symbol.

    Returns:
        The compiled level (cached: compiling the same level twice returns one object).

    Raises:
        LevelError: an unknown character, no initial cell, an initial cell that is not
            accessible, a bad meta value, or a level of another family.

    Warns:
        LevelWarning: the map has terminal cells but none is reachable from any start.
    """
    return _compile_cached(parsed, alphabet, default_symbol, unknown_symbols, stacklevel=3)


def _compile_cached(parsed, alphabet, default_symbol, unknown_symbols, stacklevel) -> NavLevel:
    if parsed.family not in (None, "nav"):
        raise _meta_error(parsed, "family", f"this is a {parsed.family!r} level, not a 'nav' level")
    alph = resolve_alphabet(parsed, alphabet, default_symbol)
    key = (parsed.content_key(), parsed.source, alph.key(), alph.name, unknown_symbols)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        level, warning = _CACHE[key]
    else:
        level, warning = _compile(parsed, alph, unknown_symbols)
        _CACHE[key] = (level, warning)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    if warning:  # repeated on cache hits, so every load of a broken level says so
        warnings.warn(warning, LevelWarning, stacklevel=stacklevel)
    return level


def _compile(parsed: ParsedLevel, alph: Alphabet, unknown) -> tuple[NavLevel, str | None]:
    if max(parsed.height, parsed.width) > MAX_SIDE or parsed.height * parsed.width > MAX_CELLS:
        raise LevelError(f"the map is {parsed.height}x{parsed.width}; a navigation map has at most {MAX_SIDE} "
                         f"rows and columns (start and goal cells are int16) and {MAX_CELLS} cells",
                         parsed.source, parsed.row_lines[0])
    for ch, symbol in alph.symbols.items():
        # Rewards are float32 in the kernel: a larger one would step to an inf reward and a NaN
        # return. Within float32, a return (float64) stays finite for any number of steps.
        if symbol.reward.max_abs > FLOAT32_MAX:
            raise LevelError(f"level {parsed.name!r}: symbol {ch!r} has reward {symbol.reward}, which does not fit "
                             f"float32 (rewards are float32; |reward| <= {FLOAT32_MAX:g})",
                             parsed.source, parsed.legend_lines.get(ch))
    tiles, rows = map_tiles(parsed, alph, unknown)
    tiles.setflags(write=False)
    flags = alph.flags[tiles]
    starts = np.argwhere(flags & F_INITIAL).astype(np.int16)  # argwhere is row-major
    goals = np.argwhere(flags & F_TERMINAL).astype(np.int16)
    initial = [repr(c) for c, s in alph.symbols.items() if s.initial]
    if len(starts) == 0:
        names = " or ".join(initial) or "initial"
        raise LevelError(f"no start cell (no {names} symbol in the map)", parsed.source)
    walled = np.flatnonzero(~(flags[starts[:, 0], starts[:, 1]] & F_WALKABLE).astype(bool))
    if len(walled):
        r, c = (int(v) for v in starts[walled[0]])
        raise LevelError(f"start symbol {rows[r][c]!r} is not accessible (accessible=false): an agent would "
                         "start inside a wall", parsed.source, parsed.row_lines[r], c + 1)
    for arr in (starts, goals):
        arr.setflags(write=False)
    h, w = tiles.shape
    level = NavLevel(parsed.name, parsed.source, tiles, h, w, starts, goals, alph, parsed.meta,
                     rows)
    warning = None
    if len(goals) and not (level.bfs_distances(starts)[goals[:, 0], goals[:, 1]] >= 0).any():
        warning = f"{parsed.source}: no goal cell can be reached from any start cell"
    return level, warning


def read_nav_level(level: str | Path, level_directory: str | Path | None = None) -> ParsedLevel:
    """:func:`gridsim.levels.lookup.read_level`, also trying ``nav/<name>`` for a bare name."""
    return read_level(level, level_directory, family="nav")


def load_nav_level(
    level: str | Path,
    *,
    alphabet=None,
    default_symbol: str | None = None,
    unknown_symbols: str | None = None,
    level_directory: str | Path | None = None,
) -> NavLevel:
    """Find, read and compile a navigation level.

    Args:
        level: a name (``"nav/four_rooms"``, or just ``"four_rooms"``), a path, or
            ``"=" + map text``.
        alphabet: see :func:`compile_nav_level`.
        default_symbol: see :func:`compile_nav_level`.
        unknown_symbols: see :func:`compile_nav_level`.
        level_directory: a folder searched before the built-in levels.

    Returns:
        The compiled level.
    """
    parsed = read_nav_level(level, level_directory)
    return _compile_cached(parsed, alphabet, default_symbol, unknown_symbols, stacklevel=3)
