"""The level API: Lab2D's level surface (names, settings, specs, properties, events) in Python idioms.

``gridsim.make(name)`` finds a level (``gridsim.api.lookup``), turns it into a
:class:`gridsim.Level` (``gridsim.api.level``) and builds its family's vector env, which
carries the surface of ``gridsim.api.surface``. ``docs/levels.md`` is the guide.
"""

from gridsim.api.level import FAMILIES, Level, load_level, make
from gridsim.api.lookup import LevelSource, resolve_level
from gridsim.api.properties import Property, PropertyTable
from gridsim.api.settings import Setting, SettingsError, flatten_args
from gridsim.api.specs import (
    ActionSpec,
    EnvironmentStatus,
    ObsSpec,
    PropertyAttribute,
    PropertyNotFoundError,
    PropertyPermissionError,
    PropertyResult,
    PropertyValueError,
)

__all__ = [
    "FAMILIES",
    "ActionSpec",
    "EnvironmentStatus",
    "Level",
    "LevelSource",
    "ObsSpec",
    "Property",
    "PropertyAttribute",
    "PropertyNotFoundError",
    "PropertyPermissionError",
    "PropertyResult",
    "PropertyTable",
    "PropertyValueError",
    "Setting",
    "SettingsError",
    "flatten_args",
    "load_level",
    "make",
    "resolve_level",
]
