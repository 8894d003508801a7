"""The text-map format: the native ``%gridsim 1`` format and PixelWorld's bare maps.

This module knows no family. It splits a text into map rows, metadata and a legend and
checks the layout (rectangular, no tabs, not empty) and the syntax of the ``[meta]``
(``key = value``) and ``[legend]`` (``<char> = key=value key ...``) lines. Of the keys it
knows only those every family shares (:data:`COMMON_META_KEYS`); the others, and what
their values mean, come from the :class:`~gridsim.engine.grammar.LevelGrammar` of the
family the level's ``[meta] family`` names (its :class:`~gridsim.engine.family.Family`
row's ``level_grammar``, found in the table :func:`use_families` is given).
``gridsim.levels.lookup`` finds and caches level files. Families (``gridsim.nav.level``)
turn the result into arrays; that is where unknown map characters are reported.

Both formats keep map rows verbatim: a space is a floor cell, so nothing is
stripped. Line and column numbers in errors are 1-based.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from gridsim.engine.family import Family
from gridsim.engine.grammar import LevelGrammar
from gridsim.errors import InvalidArgumentError, LevelError

__all__ = [
    "COMMON_META_KEYS",
    "LevelWarning",
    "ParsedLevel",
    "decode_level_bytes",
    "level_grammar",
    "parse_level_text",
    "render_level_text",
    "split_lines",
    "use_families",
]

HEADER = "%gridsim 1"
# The [meta] keys of every family's levels, free text; a family's grammar declares the rest.
COMMON_META_KEYS = ("family", "name", "description")

# A legend token: ``key=fn(a, b)`` may contain spaces inside its parentheses.
_TOKEN = re.compile(r"[^\s(]*\([^)]*\)?\S*|\S+")
_SECTION = re.compile(r"\[([A-Za-z_]+)\]")

# The family table levels are read against (set by gridsim.families) and its default family.
_families: Mapping[str, Family] = MappingProxyType({})
_default_family: str | None = None
_COMMON_ONLY = LevelGrammar()


def use_families(families: Mapping[str, Family], default: str) -> None:
    """Read text levels with the grammars of these family rows (``gridsim.families`` calls this).

    The table is read at every parse (not copied), so a row added to it later counts.

    Args:
        families: family name -> row; a row's ``level_grammar`` declares its levels' keys.
        default: the family whose grammar reads a level that names no family (every
            PixelWorld map), a family not in the table, or one without a grammar of its own.
    """
    global _families, _default_family
    _families, _default_family = families, default


def level_grammar(family: str | None) -> LevelGrammar:
    """The grammar a level whose ``[meta] family`` is ``family`` (None: none) is read with.

    The family's own, else the default family's (see :func:`use_families`), else (no
    table set) one of the common keys only.
    """
    for name in (family, _default_family):
        row = _families.get(name) if name is not None else None
        if row is not None and row.level_grammar is not None:
            return row.level_grammar
    return _COMMON_ONLY


class LevelWarning(UserWarning):
    """A level loads but is probably not what was meant (for example, an unreachable goal)."""


@dataclass(frozen=True)
class ParsedLevel:
    """A level file split into map rows, metadata and legend, before any family compiles it.

    Equality and hashing look only at ``rows``, ``meta`` and ``legend``, so a level equals
    its own ``parse_level_text(render_level_text(level))``.

    Attributes:
        source: the file path, or ``"<string>"`` for inline text.
        format: ``"native"`` (``%gridsim 1`` header) or ``"pixelworld"`` (a bare map).
        rows: the map rows, verbatim (all the same length).
        row_lines: the 1-based source line of each row.
        meta: ``[meta]`` key -> value (empty for PixelWorld maps).
        meta_lines: the source line of each meta key.
        legend: map character -> symbol properties, already typed by the family's grammar
            (navigation: ``reward`` is a :class:`~gridsim.nav.alphabet.Dist`, ``color`` a
            tuple, flags are bools).
        legend_lines: the source line of each legend entry.
    """

    source: str = field(compare=False)
    format: str = field(compare=False)
    rows: tuple[str, ...]
    row_lines: tuple[int, ...] = field(compare=False)
    meta: Mapping[str, str] = field(default_factory=dict)
    meta_lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    legend: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    legend_lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        # Read-only views, so a cached level cannot be changed behind the cache's back.
        set_ = functools.partial(object.__setattr__, self)
        set_("rows", tuple(self.rows))
        set_("row_lines", tuple(self.row_lines))
        set_("meta", MappingProxyType(dict(self.meta)))
        set_("meta_lines", MappingProxyType(dict(self.meta_lines)))
        legend = {c: MappingProxyType(dict(p)) for c, p in self.legend.items()}
        set_("legend", MappingProxyType(legend))
        set_("legend_lines", MappingProxyType(dict(self.legend_lines)))

    def __hash__(self) -> int:
        return hash(self.content_key())

    def __reduce__(self):
        # Mapping proxies do not pickle; rebuild from plain dicts.
        legend = {c: dict(p) for c, p in self.legend.items()}
        return (ParsedLevel, (self.source, self.format, self.rows, self.row_lines, dict(self.meta),
                              dict(self.meta_lines), legend, dict(self.legend_lines)))

    def content_key(self) -> tuple:
        """A hashable summary of rows, meta and legend, for caches."""
        legend = tuple((c, tuple(sorted(p.items()))) for c, p in sorted(self.legend.items()))
        return (self.rows, tuple(sorted(self.meta.items())), legend)

    @property
    def height(self) -> int:
        """Number of map rows."""
        return len(self.rows)

    @property
    def width(self) -> int:
        """Length of every map row."""
        return len(self.rows[0])

    @property
    def family(self) -> str | None:
        """The ``family`` meta key, if given."""
        return self.meta.get("family")

    @property
    def name(self) -> str:
        """The ``name`` meta key, else the file's stem, else ``"<string>"``."""
        if "name" in self.meta:
            return self.meta["name"]
        return Path(self.source).stem if self.source != "<string>" else "<string>"


# ---------------------------------------------------------------------------------------------
# Parsing


# The line breaks of Python's universal newlines; no other character (form feed, Unicode
# separators) ever ends a row.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    r"""The lines of a level's text: ``\r\n``, ``\r`` and ``\n`` each end a line (a leading BOM is dropped).

    A lone carriage return is a line break, as in Python's universal newlines, so a file saved
    with classic Mac line endings reads as its rows, and a stray one inside a row splits it
    (which the map's shape check then reports, with the line).

    Example:
        >>> split_lines("##\r\n#S\r##\n")
        ['##', '#S', '##', '']
    """
    return _LINE_BREAK.split(text.removeprefix("\ufeff"))


def decode_level_bytes(data: bytes, source: str) -> str:
    """A level file's bytes as text (UTF-8).

    Raises:
        LevelError: the bytes are not UTF-8; the error names the line and column of the first bad byte.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        breaks = list(_LINE_BREAK_BYTES.finditer(data, 0, e.start))  # lines as split_lines counts them
        line_start = breaks[-1].end() if breaks else 0
        raise LevelError(f"not UTF-8 text: byte {data[e.start]:#04x} ({e.reason}); save the file as UTF-8",
                         source, len(breaks) + 1, e.start - line_start + 1) from None


def parse_level_text(text: str, source: str = "<string>", grammar: LevelGrammar | None = None) -> ParsedLevel:
    """Parse a level in either text format.

    Text whose first non-empty line is ``%gridsim 1`` is the native format (sections
    ``[meta]``, ``[legend]``, ``[map]``); anything else is a PixelWorld map, read as-is.

    Args:
        text: the whole file.
        source: the file name used in error messages.
        grammar: the ``[meta]`` keys and ``[legend]`` properties beyond the common keys;
            default: the grammar of the family the level's ``[meta] family`` names (see
            :func:`level_grammar`).

    Returns:
        The parsed level.

    Raises:
        LevelError: the text is empty, a row is ragged or holds a tab, a native
            section is malformed, or the grammar refuses a key or value. The error
            carries the line and column.
    """
    lines = split_lines(text)
    first = next((i for i, line in enumerate(lines) if line), None)
    if first is None:
        raise LevelError("empty level (no map rows)", source)
    if lines[first].startswith("%gridsim"):
        if lines[first].rstrip() != HEADER:
            raise LevelError(f"unsupported header {lines[first]!r}; expected {HEADER!r}",
                             source, first + 1, 1)
        if grammar is None:
            grammar = level_grammar(_named_family(lines, first + 1))
        return _parse_native(lines, first + 1, source, grammar)
    rows, row_lines = _map_rows(lines, 0, source)
    return ParsedLevel(source, "pixelworld", rows, row_lines)


def _map_rows(lines: list[str], start: int, source: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Rows ``lines[start:]`` without leading/trailing empty lines, checked for shape."""
    lo, hi = start, len(lines)
    while lo < hi and lines[lo] == "":
        lo += 1
    while hi > lo and lines[hi - 1] == "":
        hi -= 1
    if lo == hi:
        raise LevelError("empty level (no map rows)", source, start if start else None)
    expected = len(lines[lo])
    for i in range(lo, hi):
        row = lines[i]
        if "\t" in row:
            col = row.index("\t") + 1
            raise LevelError("tab character in the map; use spaces", source, i + 1, col)
        if len(row) != expected:
            raise LevelError(
                f"ragged map: this row has {len(row)} characters, the first row has {expected}",
                source, i + 1, min(len(row), expected) + 1,
            )
    return tuple(lines[lo:hi]), tuple(range(lo + 1, hi + 1))


def _named_family(lines: list[str], start: int) -> str | None:
    """The value of the first ``family`` line of ``[meta]``, read as :func:`_parse_native` reads it."""
    section = None
    for line in lines[start:]:
        header = _SECTION.fullmatch(line.strip())
        if header:
            section = header.group(1)
            if section == "map":
                break
        elif section == "meta":
            key_part, eq, value_part = line.partition("=")
            if eq and key_part.strip() == "family":
                return _unquote(value_part.strip())
    return None


def _parse_native(lines: list[str], start: int, source: str, grammar: LevelGrammar) -> ParsedLevel:
    meta: dict[str, str] = {}
    meta_lines: dict[str, int] = {}
    legend: dict[str, dict[str, object]] = {}
    legend_lines: dict[str, int] = {}
    section = None
    seen: set[str] = set()
    for i in range(start, len(lines)):
        line, lineno = lines[i], i + 1
        stripped = line.strip()
        header = _SECTION.fullmatch(stripped)
        if header:
            section = header.group(1)
            col = line.index("[") + 1
            if section not in ("meta", "legend", "map"):
                raise LevelError(f"unknown section [{section}]; use [meta], [legend] or [map]",
                                 source, lineno, col)
            if section in seen:
                raise LevelError(f"duplicate section [{section}]", source, lineno, col)
            seen.add(section)
            if section == "map":  # the map runs to the end of the file
                rows, row_lines = _map_rows(lines, i + 1, source)
                return ParsedLevel(source, "native", rows, row_lines, meta, meta_lines, legend,
                                   legend_lines)
            continue
        # '#' is a wall, so comments start with ';' or '//'.
        if not stripped or stripped.startswith((";", "//")):
            continue
        if section is None:
            raise LevelError("expected a section header: [meta], [legend] or [map]",
                             source, lineno, 1)
        if section == "meta":
            key, value = _meta_line(line, source, lineno, grammar)
            if key in meta:
                raise LevelError(f"duplicate meta key {key!r} (first on line {meta_lines[key]})",
                                 source, lineno, line.index(key) + 1)
            meta[key], meta_lines[key] = value, lineno
        else:
            ch, props = _legend_line(line, source, lineno, grammar)
            if ch in legend:
                first_line = legend_lines[ch]
                raise LevelError(f"duplicate legend entry {ch!r} (first on line {first_line})",
                                 source, lineno, 1)
            legend[ch], legend_lines[ch] = props, lineno
    raise LevelError("missing [map] section", source)


def _unquote(value: str) -> str:
    # Quotes keep leading/trailing spaces: `key = ' '` is one space.
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == "'" else value


def _meta_line(line: str, source: str, lineno: int, grammar: LevelGrammar) -> tuple[str, str]:
    key_part, eq, value_part = line.partition("=")
    key = key_part.strip()
    key_col = len(key_part) - len(key_part.lstrip()) + 1
    if not eq or not key:
        raise LevelError("expected 'key = value'", source, lineno, key_col)
    if key not in COMMON_META_KEYS and key not in grammar.meta:
        allowed = [*COMMON_META_KEYS, *(k for k in grammar.meta if k not in COMMON_META_KEYS)]
        raise LevelError(f"unknown meta key {key!r}; allowed: {', '.join(allowed)}",
                         source, lineno, key_col)
    value = _unquote(value_part.strip())
    val_col = len(key_part) + 2 + len(value_part) - len(value_part.lstrip())
    check = grammar.meta.get(key)
    if check is not None:
        try:
            check(value)
        except ValueError as e:
            raise LevelError(str(e), source, lineno, val_col) from None
    return key, value


def _legend_line(line: str, source: str, lineno: int, grammar: LevelGrammar) -> tuple[str, dict[str, object]]:
    if len(line) >= 3 and line[0] == "'" and line[2] == "'":
        ch, pos = line[1], 3
    elif line[0].isspace():
        raise LevelError("a legend line starts with its character; write a space as ' '",
                         source, lineno, 1)
    else:
        ch, pos = line[0], 1
    m = re.compile(r"\s*=").match(line, pos)
    if ch == "\t" or not m:
        example = f', e.g. "{grammar.legend_example}"' if grammar.legend_example else ""
        raise LevelError(f"expected '<char> = <properties>'{example}", source, lineno, pos + 1)
    props: dict[str, object] = {}
    for tok in _TOKEN.finditer(line, m.end()):
        key, eq, value = tok.group().partition("=")
        col, val_col = tok.start() + 1, tok.start() + len(key) + 2
        if key in props:
            raise LevelError(f"duplicate property {key!r}", source, lineno, col)
        try:
            props[key] = _legend_value(grammar, key, eq, value)
        except ValueError as e:
            raise LevelError(f"{ch!r}: {e}", source, lineno, val_col if eq else col) from None
    return ch, props


def _legend_value(grammar: LevelGrammar, key: str, eq: str, value: str) -> object:
    prop = grammar.legend.get(key)
    if prop is None:
        if not grammar.legend:
            raise InvalidArgumentError(f"unknown property {key!r}; this level's family declares no legend properties")
        known = ", ".join(k if p.flag else f"{k}=" for k, p in grammar.legend.items())
        raise InvalidArgumentError(f"unknown property {key!r}; use {known}")
    if eq:
        return prop.parse(value)
    if prop.flag:
        return True
    raise InvalidArgumentError(f"{key} needs a value ({key}=...)")


# ---------------------------------------------------------------------------------------------
# Rendering


def _render_props(props: Mapping[str, object], grammar: LevelGrammar) -> str:
    out = []
    for key, value in props.items():
        prop = grammar.legend.get(key)
        if prop is None:
            raise InvalidArgumentError(f"unknown legend property {key!r}")
        out.append(key if prop.flag and value else f"{key}={prop.render(value)}")
    return " ".join(out)


def render_level_text(parsed: ParsedLevel, grammar: LevelGrammar | None = None) -> str:
    """Write a level in the native format.

    ``parse_level_text(render_level_text(p)) == p`` for every parsed level (rows, meta and
    legend are kept; line numbers may change).

    Args:
        parsed: the level to write.
        grammar: how its legend values are written; default: the grammar of its family
            (see :func:`level_grammar`).

    Returns:
        The file text, ending with a newline.
    """
    if grammar is None:
        grammar = level_grammar(parsed.family)
    out = [HEADER]
    if parsed.meta:
        out.append("[meta]")
        for key, value in parsed.meta.items():
            quote = value != value.strip() or not value or (value[0] == value[-1] == "'")
            out.append(f"{key} = '{value}'" if quote else f"{key} = {value}")
    if parsed.legend:
        out.append("[legend]")
        for ch, props in parsed.legend.items():
            key = f"'{ch}'" if ch in " ;'" or not ch.isprintable() else ch
            out.append(f"{key} = {_render_props(props, grammar)}".rstrip())
    out.append("[map]")
    out.extend(parsed.rows)
    return "\n".join(out) + "\n"
