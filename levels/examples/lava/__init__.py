"""Lava crossing: a navigation level built from tile flags alone (``examples/lava``).

The map (``map.txt`` next to this file) declares lava as a terminal tile with reward -1,
the goal as a terminal tile with reward +1 and floor at -0.01 a step; the start is drawn
uniformly among the ``S`` cells each episode. The agent sees a 5x5 egocentric view.
"""

from pathlib import Path

import gridsim

LEVEL = gridsim.Level(
    "nav",
    map=Path(__file__).with_name("map.txt"),
    defaults={"max_steps": 100, "obs_type": "view", "view_size": 5},
    name="examples/lava",
    description="cross the lava field to the goal",
)
