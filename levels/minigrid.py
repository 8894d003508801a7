"""Minigrid as a level: ``minigrid:<id>`` plays one Minigrid id (``minigrid:MiniGrid-DoorKey-8x8-v0``).

Without an argument the level plays ``MiniGrid-Empty-8x8-v0``. The ids are those of
``gridsim.minigrid.MINIGRID_IDS`` (``docs/minigrid.md``); the ``MiniGrid-`` prefix may be left out.
"""

import gridsim
from gridsim.minigrid.ids import spec_of


def make(argument: str) -> gridsim.Level:
    """The level of Minigrid id ``argument`` (``""``: MiniGrid-Empty-8x8-v0)."""
    name = argument or "MiniGrid-Empty-8x8-v0"
    if not name.startswith("MiniGrid-"):
        name = "MiniGrid-" + name
    spec = spec_of(name)
    return gridsim.Level("minigrid", defaults={"env_name": spec.name}, name=f"minigrid:{spec.name}",
                         description="Farama Minigrid, seed for seed")
