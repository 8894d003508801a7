"""What a family's text levels may say: the ``[meta]`` keys and ``[legend]`` properties it declares.

The text-map format (:mod:`gridsim.levels.textmap`) knows only its sections, its layout and
the ``[meta]`` keys every family shares (``family``, ``name``, ``description``). A family
that reads text levels declares the rest in a :class:`LevelGrammar` and puts it in its
:class:`~gridsim.engine.family.Family` row (``level_grammar``); the format checks a level's
keys and values against the grammar of the family its ``[meta] family`` names, with the
line and column of anything the grammar refuses.

Checks and parsers report a bad value by raising ``ValueError`` (an
:class:`~gridsim.errors.InvalidArgumentError`) whose message says what was expected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["LegendProperty", "LevelGrammar"]


@dataclass(frozen=True)
class LegendProperty:
    """One ``[legend]`` property: ``key=value``, or a bare ``key`` when it is a flag.

    Attributes:
        parse: the text after ``=`` -> the property's value (what
            :attr:`gridsim.levels.ParsedLevel.legend` holds); raises ``ValueError``.
        render: a value -> the text after ``=``, so that ``parse(render(v)) == v``.
        flag: the key may be written alone, meaning ``True`` (and is written alone when True).
    """

    parse: Callable[[str], Any]
    render: Callable[[Any], str]
    flag: bool = False


@dataclass(frozen=True)
class LevelGrammar:
    """The ``[meta]`` keys and ``[legend]`` properties of one family's text levels.

    Attributes:
        meta: the family's own ``[meta]`` keys, in the order messages list them: key -> a
            check of the value text (raises ``ValueError``; its result is ignored), or None
            for free text. Values stay text in :attr:`gridsim.levels.ParsedLevel.meta`.
        legend: property name -> :class:`LegendProperty`, in the order messages list them.
        legend_example: a legend line that messages show, e.g. ``"S = initial reward=-1"``.
    """

    meta: Mapping[str, Callable[[str], object] | None] = field(default_factory=dict)
    legend: Mapping[str, LegendProperty] = field(default_factory=dict)
    legend_example: str = ""

    def __post_init__(self):
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))
        object.__setattr__(self, "legend", MappingProxyType(dict(self.legend)))
