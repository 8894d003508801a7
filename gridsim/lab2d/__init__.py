"""The level API: Lab2D's level surface (names, settings, specs, properties, events) in Python idioms.

``gridsim.make(name)`` finds a level (``gridsim.levels.lookup``), turns it into a
:class:`gridsim.Level` (``gridsim.make``) and builds its family's vector env, which
carries the surface of ``gridsim.lab2d.surface``. ``docs/levels.md`` is the guide. This
package names no family: each family adds its observations, actions, properties and
events in its own ``api.py``.
"""

from gridsim.engine.settings import Setting, SettingsError, flatten_args
from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import (
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
    "ActionSpec",
    "EnvironmentStatus",
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
]
