"""A procedurally generated maze: ``examples/maze:<size>`` (an odd size >= 5; default 15).

The layout comes from the level's own setting ``layout_seed`` (one maze per level, shared
by every env, so that a trajectory never depends on the batch). Each episode starts on a
uniformly drawn open cell and keeps one of the four corner goals (``randomize_goals``):
per-episode randomisation declared as cell sets, drawn by the kernel at every reset.
"""

import numpy as np

import gridsim

DEFAULT_SIZE = 15


def generate(size: int, layout_seed: int) -> np.ndarray:
    """A perfect maze as a bool (size, size) wall map, carved by the binary-tree algorithm.

    Rooms sit on odd coordinates. Every room opens the wall to its north or to its west,
    drawn for all rooms at once; the top row opens west and the left column north, so
    every room is joined to the top-left room by exactly one path.
    """
    n = (size - 1) // 2
    rng = np.random.default_rng(layout_seed)
    wall = np.ones((size, size), bool)
    wall[1::2, 1::2] = False  # rooms
    north = rng.integers(0, 2, (n, n)).astype(bool)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    north = np.where(i == 0, False, np.where(j == 0, True, north))
    carve = (i + j) > 0
    rows, cols = 2 * i + 1, 2 * j + 1
    wall[np.where(carve & north, rows - 1, rows), np.where(carve & ~north, cols - 1, cols)] &= ~carve
    return wall


def maze_text(size: int, layout_seed: int) -> str:
    """The maze as a PixelWorld-format map: ``#`` walls, ``S`` start cells, ``0`` goals."""
    wall = generate(size, layout_seed)
    chars = np.where(wall, "#", "S").astype("<U1")
    for r, c in ((1, 1), (1, size - 2), (size - 2, 1), (size - 2, size - 2)):
        chars[r, c] = "0"
    return "\n".join("".join(row) for row in chars)


class Maze(gridsim.Level):
    """A maze of one size; its layout is the setting ``layout_seed``."""

    def __init__(self, size: int):
        super().__init__(
            "nav",
            defaults={"randomize_goals": True, "max_steps": 2 * size * size, "obs_type": "view"},
            settings={"layout_seed": gridsim.Setting(int, 0, doc="which maze of this size")},
            name=f"examples/maze:{size}",
            description="a random perfect maze; reach the corner goal",
        )
        self.size = size

    def build(self, values):
        """The map of ``layout_seed``, as an inline level."""
        kwargs = super().build(values)
        kwargs["level"] = "=" + maze_text(self.size, values["layout_seed"])
        return kwargs


def make(argument: str) -> gridsim.Level:
    """The maze of size ``argument`` (``""``: 15)."""
    try:
        size = int(argument) if argument else DEFAULT_SIZE
    except ValueError:
        raise ValueError(f"examples/maze takes an odd size >= 5, got {argument!r}") from None
    if size < 5 or size % 2 == 0:
        raise ValueError(f"examples/maze takes an odd size >= 5, got {size}")
    return Maze(size)
