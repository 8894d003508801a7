"""The env classes of every family at their documented import path: ``gridsim.envs.NavVectorEnv``.

Re-exports only, read from the family table (each row's vector env and single-env view),
so a new family's classes appear here with its row.
"""

from typing import TYPE_CHECKING, Any

from gridsim.engine.single import SingleEnvView
from gridsim.families import FAMILIES

_CLASSES: dict[str, type] = {name: cls for fam in FAMILIES.values() for name, cls in fam.env_classes.items()}
globals().update(_CLASSES)

__all__ = ["SingleEnvView", *sorted(_CLASSES)]

if TYPE_CHECKING:
    # The classes are set from the family table above, which a type checker does not run.
    def __getattr__(name: str) -> Any: ...
