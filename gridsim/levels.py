"""Text levels by their documented import path: re-exports of :mod:`gridsim.textmap` and :mod:`gridsim.lookup`."""

from gridsim.lookup import builtin_level_names, builtin_root, find_level, read_level
from gridsim.textmap import (
    LEGEND_BOOL_KEYS,
    META_KEYS,
    LevelWarning,
    ParsedLevel,
    parse_level_text,
    render_level_text,
)

__all__ = [
    "LEGEND_BOOL_KEYS",
    "META_KEYS",
    "LevelWarning",
    "ParsedLevel",
    "builtin_level_names",
    "builtin_root",
    "find_level",
    "parse_level_text",
    "read_level",
    "render_level_text",
]
