"""The level API: Lab2D's level surface (names, settings, specs, properties, events) in Python idioms.

``gridsim.make(name)`` finds a level (``gridsim.lookup``), turns it into a
:class:`gridsim.Level` (``gridsim.level``) and builds its family's vector env, which
carries the surface of ``gridsim.api.surface``. ``docs/levels.md`` is the guide. This
package names no family: each family adds its observations, actions, properties and
events in its own ``api.py``.
"""

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
