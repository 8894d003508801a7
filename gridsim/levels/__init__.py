"""Levels: the text-map format (:mod:`gridsim.levels.textmap`) and the one resolver (:mod:`gridsim.levels.lookup`)."""

from gridsim.levels.lookup import builtin_level_names, builtin_root, find_level, read_level
from gridsim.levels.textmap import (
    LevelWarning,
    ParsedLevel,
    parse_level_text,
    render_level_text,
)

__all__ = [
    "LevelWarning",
    "ParsedLevel",
    "builtin_level_names",
    "builtin_root",
    "find_level",
    "parse_level_text",
    "read_level",
    "render_level_text",
]
