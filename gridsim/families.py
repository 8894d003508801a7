"""The one table of families: name -> :class:`gridsim.engine.family.Family`.

The registry, the CLI (``list``, ``check``, ``bench``, ``play``), :func:`gridsim.make`,
the level API and the benchmarks read the families from here. Adding a family is its
folder plus one row below (its kernel module, ``gridsim/<name>/_kernel.pyx``, is built by glob).
"""

from __future__ import annotations

from gridsim.engine.family import Family
from gridsim.errors import InvalidArgumentError
from gridsim.kitchen.env import FAMILY as KITCHEN
from gridsim.levels.textmap import use_families
from gridsim.minigrid.env import FAMILY as MINIGRID
from gridsim.nav.env import FAMILY as NAV
from gridsim.roboman.env import FAMILY as ROBOMAN

__all__ = ["FAMILIES", "family_of", "family_row"]

FAMILIES: dict[str, Family] = {f.name: f for f in (NAV, ROBOMAN, KITCHEN, MINIGRID)}
# Text levels are read with their family's grammar; a level that names none is a navigation map.
use_families(FAMILIES, default=NAV.name)


def family_row(name: str) -> Family:
    """The row of family ``name``; an InvalidArgumentError (a ValueError) lists the families."""
    if not isinstance(name, str) or name not in FAMILIES:
        raise InvalidArgumentError(f"unknown family {name!r}; gridsim has {list(FAMILIES)}")
    return FAMILIES[name]


def family_of(env) -> Family:
    """The row of a vector or single env (or a wrapper around one), ``gridsim/Level-v0``'s included."""
    env = getattr(env, "unwrapped", env)
    # A single env of a level by name is of no family's class; its one-row batch is.
    vec = getattr(env, "unwrapped_vector", None)
    for f in FAMILIES.values():
        if isinstance(env, (f.vector_env, f.single_env)) or isinstance(vec, f.vector_env):
            return f
    raise TypeError(f"{type(env).__name__} is not an env of a gridsim family")
