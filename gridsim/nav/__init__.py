"""The navigation family (PixelWorld): alphabets, level compilation and the task sampler."""

from gridsim.nav.alphabet import (
    ALPHABETS,
    Alphabet,
    Dist,
    Symbol,
    abs_normal,
    const,
    get_alphabet,
    normal,
    uniform,
)
from gridsim.nav.level import LEGEND_BOOL_KEYS, LEVEL_GRAMMAR, META_KEYS, NavLevel, compile_nav_level, load_nav_level
from gridsim.nav.sampler import TaskSampler

__all__ = [
    "ALPHABETS",
    "Alphabet",
    "Dist",
    "LEGEND_BOOL_KEYS",
    "LEVEL_GRAMMAR",
    "META_KEYS",
    "NavLevel",
    "Symbol",
    "TaskSampler",
    "abs_normal",
    "compile_nav_level",
    "const",
    "get_alphabet",
    "load_nav_level",
    "normal",
    "uniform",
]
