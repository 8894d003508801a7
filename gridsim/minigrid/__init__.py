"""The MiniGrid family: Farama Minigrid 3.2.0's ids, seed for seed.

Each env carries numpy's generator and draws from it exactly as Minigrid's env does, so
``gridsim/MiniGrid-<Name>-v<k>`` reset with seed s plays ``MiniGrid-<Name>-v<k>`` reset with
seed s. See ``docs/minigrid.md``.
"""

from gridsim.minigrid.ids import COLOR_NAMES, MINIGRID_IDS, MinigridSpec, spec_of

__all__ = ["COLOR_NAMES", "MINIGRID_IDS", "MinigridSpec", "spec_of"]
