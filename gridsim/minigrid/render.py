"""Minigrid's pictures, pixel for pixel: the tile atlas, the full frame and the agent's view.

Farama Minigrid 3.2.0 draws each cell as a tile (``Grid.render_tile``): a black canvas of
``3 * tile_size`` pixels a side on which every primitive fills the pixels whose centre
passes its test (the grid lines, the object, the agent's triangle), then an optional
highlight, then the mean of each 3 x 3 block, truncated to uint8 when the tile is copied
into the frame. :func:`draw_tiles` does the same with numpy on whole canvases, in the same
floating-point operations (the family's spec, section 3.6), so every tile is Minigrid's to
the bit; :func:`tile_atlas` keeps all tiles of one size: each drawing a cell can hold
(:data:`DRAWINGS`), times the agent (none, or facing 0..3), times plain or highlighted.

Frames are tiles copied from an atlas: :func:`render_full` is ``env.get_frame(highlight,
tile_size)`` (what ``render()`` returns in ``rgb_array`` mode, at tile size 32, and what
``RGBImgObsWrapper`` observes) and :func:`render_pov` is ``env.get_pov_render(tile_size)``
(what ``RGBImgPartialObsWrapper`` observes). The kernel copies tiles from the same atlases
for the ``"rgb"`` observations.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel

__all__ = ["AGENT_SLOTS", "COLORS", "DRAWINGS", "MAX_ATLAS_TILE_SIZE", "TILE_OF", "TileAtlas", "draw_cell_tile",
           "draw_tiles", "drawing_of", "render_cells", "render_full", "render_pov", "tile_atlas", "view_cells"]

OBJ = _kernel.MINIGRID_OBJECTS
# core/constants.py COLORS, in COLOR_TO_IDX order.
COLORS = np.array([(255, 0, 0), (0, 255, 0), (0, 0, 255), (112, 39, 195), (255, 255, 0), (100, 100, 100)], np.uint8)
GRID_LINE = (100, 100, 100)
LAVA = (255, 128, 0)
AGENT = (255, 0, 0)
BLACK = (0, 0, 0)
# The largest tile size whose whole atlas is kept; larger frames draw only the tiles they show.
MAX_ATLAS_TILE_SIZE = 64
# A tile's agent axis: slot 0 without the agent, slot 1 + d with the agent facing d.
AGENT_SLOTS = 5

# Every distinct drawing a cell can hold, as (object, colour, state); drawing 0 is an empty
# (or unseen) cell: the grid lines alone. Minigrid's drawings read a door's state and ignore
# every other state and lava's colour.
DRAWINGS: tuple[tuple[int, int, int], ...] = (
    ((OBJ["empty"], 0, 0),)
    + tuple((OBJ[name], c, 0) for name in ("wall", "floor") for c in range(6))
    + tuple((OBJ["door"], c, s) for c in range(6) for s in range(3))
    + tuple((OBJ[name], c, 0) for name in ("key", "ball", "box", "goal") for c in range(6))
    + ((OBJ["lava"], 0, 0),)
)
assert len(set(DRAWINGS)) == len(DRAWINGS) < 2**15


def _tile_of() -> np.ndarray:
    index = {key: k for k, key in enumerate(DRAWINGS)}
    table = np.zeros((16, 8, 4), np.int16)
    for obj in range(16):
        for c in range(8):
            for s in range(4):
                key = (obj, c, s) if obj == OBJ["door"] else (obj, 0, 0) if obj == OBJ["lava"] else (obj, c, 0)
                table[obj, c, s] = index.get(key, 0)
    table.flags.writeable = False
    return table


# (object & 15, colour & 7, state & 3) -> the cell's drawing in DRAWINGS (masked indices: any
# bytes give a drawing; those outside Minigrid's tables draw an empty cell).
TILE_OF = _tile_of()


def drawing_of(cells: np.ndarray) -> np.ndarray:
    """The drawings (indices into :data:`DRAWINGS`) of cells ``(..., 3)`` holding ``(object, colour, state)``."""
    cells = np.asarray(cells, np.int64)
    return TILE_OF[cells[..., 0] & 15, cells[..., 1] & 7, cells[..., 2] & 3]


# ---------------------------------------------------------------- the rasteriser


class _Canvas:
    """The pixel centres of one supersampled tile and the primitives' tests on them.

    Every test is Minigrid's ``utils/rendering.py`` function on the same doubles: pixel
    centres ``(k + 0.5) / n``; a line's endpoints and direction and a triangle's vertices
    and their dot products in float32, as its numpy arrays are, the rest in double.
    Minigrid takes the per-pixel dot products with ``np.dot``, whose BLAS may fuse the last
    multiply-add (OpenBLAS does on CPUs with FMA) where the sums here round each product;
    no pixel centre of a tile size up to 256 lies within 1e-12 of a line's or the triangle's
    boundary, far beyond that last bit, so both give the same pixels (tested).
    """

    def __init__(self, tile_size: int):
        n = 3 * tile_size
        c = (np.arange(n) + 0.5) / n
        self.shape = (n, n)
        self.X = np.broadcast_to(c[None, :], self.shape)
        self.Y = np.broadcast_to(c[:, None], self.shape)

    def rect(self, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
        X, Y = self.X, self.Y
        return (X >= x0) & (X <= x1) & (Y >= y0) & (Y <= y1)

    def circle(self, cx: float, cy: float, r: float) -> np.ndarray:
        dx, dy = self.X - cx, self.Y - cy
        return dx * dx + dy * dy <= r * r

    def line_distance(self, x0: float, y0: float, x1: float, y1: float, r: float) -> tuple[np.ndarray, np.ndarray]:
        """point_in_line's early-escape box and each pixel's distance to the segment."""
        p0 = np.array([x0, y0], dtype=np.float32)
        p1 = np.array([x1, y1], dtype=np.float32)
        d = p1 - p0
        length = np.linalg.norm(d)
        d = d / length
        X, Y = self.X, self.Y
        box = (X >= min(x0, x1) - r) & (X <= max(x0, x1) + r) & (Y >= min(y0, y1) - r) & (Y <= max(y0, y1) + r)
        p0x, p0y, dx, dy = (np.float64(v) for v in (p0[0], p0[1], d[0], d[1]))
        a = (X - p0x) * dx + (Y - p0y) * dy
        a = np.minimum(np.maximum(a, 0.0), np.float64(length))  # np.clip(a, 0, dist)
        qx = X - (p0x + a * dx)
        qy = Y - (p0y + a * dy)
        return box, np.sqrt(qx * qx + qy * qy)

    def line(self, x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
        box, dist = self.line_distance(x0, y0, x1, y1, r)
        return box & (dist <= r)

    def agent_coords(self, direction: int) -> tuple[np.ndarray, np.ndarray]:
        """point_in_triangle's barycentric ``(u, v)`` of each pixel, turned by rotate_fn for ``direction``."""
        theta = 0.5 * math.pi * direction
        cos, sin = math.cos(-theta), math.sin(-theta)
        x, y = self.X - 0.5, self.Y - 0.5
        x2 = 0.5 + x * cos - y * sin
        y2 = 0.5 + y * cos + x * sin
        a = np.array((0.12, 0.19), dtype=np.float32)
        b = np.array((0.87, 0.50), dtype=np.float32)
        c = np.array((0.12, 0.81), dtype=np.float32)
        v0, v1 = c - a, b - a
        d00, d01, d11 = np.dot(v0, v0), np.dot(v0, v1), np.dot(v1, v1)
        inv = 1 / (d00 * d11 - d01 * d01)
        v2x, v2y = x2 - np.float64(a[0]), y2 - np.float64(a[1])
        d02 = v2x * np.float64(v0[0]) + v2y * np.float64(v0[1])
        d12 = v2x * np.float64(v1[0]) + v2y * np.float64(v1[1])
        d00, d01, d11, inv = (np.float64(v) for v in (d00, d01, d11, inv))
        return (d11 * d02 - d01 * d12) * inv, (d00 * d12 - d01 * d02) * inv

    def agent(self, direction: int) -> np.ndarray:
        u, v = self.agent_coords(direction)
        return (u >= 0) & (v >= 0) & (u + v < 1)


def _fills(cv: _Canvas, obj: int, colour: int, state: int) -> list[tuple[np.ndarray, Any]]:
    """The object's ``render`` (``core/world_object.py``) as (mask, colour) fills, in order."""
    c = COLORS[colour]
    if obj in (OBJ["wall"], OBJ["goal"]):
        return [(cv.rect(0, 1, 0, 1), c)]
    if obj == OBJ["floor"]:
        return [(cv.rect(0.031, 1, 0.031, 1), c / 2)]
    if obj == OBJ["lava"]:
        fills = [(cv.rect(0, 1, 0, 1), LAVA)]
        for i in range(3):
            lo, hi = 0.3 + 0.2 * i, 0.4 + 0.2 * i
            fills += [(cv.line(0.1, lo, 0.3, hi, 0.03), BLACK), (cv.line(0.3, hi, 0.5, lo, 0.03), BLACK),
                      (cv.line(0.5, lo, 0.7, hi, 0.03), BLACK), (cv.line(0.7, hi, 0.9, lo, 0.03), BLACK)]
        return fills
    if obj == OBJ["door"]:
        if state == 0:  # open
            return [(cv.rect(0.88, 1.00, 0.00, 1.00), c), (cv.rect(0.92, 0.96, 0.04, 0.96), BLACK)]
        if state == 2:  # locked: a darker door with a key slot
            return [(cv.rect(0.00, 1.00, 0.00, 1.00), c), (cv.rect(0.06, 0.94, 0.06, 0.94), 0.45 * np.array(c)),
                    (cv.rect(0.52, 0.75, 0.50, 0.56), c)]
        return [(cv.rect(0.00, 1.00, 0.00, 1.00), c), (cv.rect(0.04, 0.96, 0.04, 0.96), BLACK),
                (cv.rect(0.08, 0.92, 0.08, 0.92), c), (cv.rect(0.12, 0.88, 0.12, 0.88), BLACK),
                (cv.circle(0.75, 0.50, 0.08), c)]
    if obj == OBJ["key"]:
        return [(cv.rect(0.50, 0.63, 0.31, 0.88), c), (cv.rect(0.38, 0.50, 0.59, 0.66), c),
                (cv.rect(0.38, 0.50, 0.81, 0.88), c), (cv.circle(0.56, 0.28, 0.190), c),
                (cv.circle(0.56, 0.28, 0.064), BLACK)]
    if obj == OBJ["ball"]:
        return [(cv.circle(0.5, 0.5, 0.31), c)]
    if obj == OBJ["box"]:
        return [(cv.rect(0.12, 0.88, 0.12, 0.88), c), (cv.rect(0.18, 0.82, 0.18, 0.82), BLACK),
                (cv.rect(0.16, 0.84, 0.47, 0.53), c)]
    return []


def _downsample(img: np.ndarray, tile_size: int) -> np.ndarray:
    """utils/rendering.downsample, truncated: the mean of each block's rows' means, in that order."""
    s = img.reshape(*img.shape[:-3], tile_size, 3, tile_size, 3, 3).astype(np.float64)
    rows = s.sum(axis=-2) / 3  # (..., ts, 3, ts, 3): each sub-row's mean (its sum is exact)
    return ((rows[..., 0, :, :] + rows[..., 1, :, :] + rows[..., 2, :, :]) / 3).astype(np.uint8)


def draw_tiles(tile_size: int, drawings: Sequence[int] | None = None) -> np.ndarray:
    """Tiles of ``drawings`` (indices into :data:`DRAWINGS`; None: all), as ``Grid.render_tile`` draws them.

    Args:
        tile_size: pixels a side (the canvas is 3 times that).
        drawings: which drawings.

    Returns:
        uint8 (len(drawings), 5, 2, tile_size, tile_size, 3): ``[k, slot, highlight]``,
        slot 0 without the agent, ``1 + d`` with the agent facing d.
    """
    ts = int(tile_size)
    if ts < 1:
        raise ValueError(f"tile_size must be at least 1, got {tile_size!r}")
    keys = range(len(DRAWINGS)) if drawings is None else [int(k) for k in drawings]
    cv = _Canvas(ts)
    base = np.zeros((*cv.shape, 3), np.uint8)
    base[cv.rect(0, 0.031, 0, 1)] = GRID_LINE
    base[cv.rect(0, 1, 0, 0.031)] = GRID_LINE
    white = np.array((255, 255, 255), dtype=np.uint8)
    agents = [cv.agent(a) for a in range(4)]
    out = np.empty((len(keys), AGENT_SLOTS, 2, ts, ts, 3), np.uint8)
    for k, d in enumerate(keys):
        img = base.copy()
        for mask, colour in _fills(cv, *DRAWINGS[d]):
            img[mask] = colour  # a float colour (floor, locked door) truncates, as numpy assigns it
        canvases = np.repeat(img[None], AGENT_SLOTS, axis=0)
        for a in range(4):
            canvases[1 + a][agents[a]] = AGENT
        lit = (canvases + 0.30 * (white - canvases)).clip(0, 255).astype(np.uint8)  # highlight_img
        out[k, :, 0] = _downsample(canvases, ts)
        out[k, :, 1] = _downsample(lit, ts)
    return out


@dataclass(frozen=True, eq=False)
class TileAtlas:
    """Every tile of one size.

    Attributes:
        tile_size: pixels a side.
        tiles: uint8 (len(DRAWINGS), 5, 2, tile_size, tile_size, 3), C-contiguous and
            read-only: ``tiles[TILE_OF[obj, colour, state], slot, highlight]`` (slot 0 without
            the agent, ``1 + d`` with the agent facing d).
    """

    tile_size: int
    tiles: np.ndarray

    def tile(self, cell: Sequence[int] | None, agent_dir: int | None = None, highlight: bool = False) -> np.ndarray:
        """The tile of a cell of ``(object, colour, state)`` (None: nothing), the agent facing ``agent_dir``."""
        d = 0 if cell is None else int(drawing_of(np.asarray(cell)[:3]))
        return self.tiles[d, 0 if agent_dir is None else 1 + int(agent_dir), int(bool(highlight))]


@functools.lru_cache(maxsize=8)
def tile_atlas(tile_size: int) -> TileAtlas:
    """The atlas of ``tile_size`` (1..:data:`MAX_ATLAS_TILE_SIZE`), drawn once and kept."""
    ts = int(tile_size)
    if not 1 <= ts <= MAX_ATLAS_TILE_SIZE:
        raise ValueError(f"an atlas has tiles of 1..{MAX_ATLAS_TILE_SIZE} pixels, got {tile_size!r}")
    tiles = draw_tiles(ts)
    tiles.flags.writeable = False
    return TileAtlas(ts, tiles)


# ---------------------------------------------------------------- what the agent sees


def view_cells(state: Mapping[str, Any], view: int = 7, see_through_walls: bool = False):
    """Minigrid's ``gen_obs_grid`` on a state dict: the view's cells and which are visible.

    Args:
        state: ``grid`` (W, H, 3), ``agent_pos``, ``agent_dir`` and ``carrying`` of
            ``MinigridVectorEnv.get_state``.
        view: ``agent_view_size`` V.
        see_through_walls: every view cell is visible.

    Returns:
        ``(cells, visible, world)``: int64 (V, V, 3) the view's ``(object, colour, state)``
        (cells outside the map are grey walls; the agent's cell, (V // 2, V - 1), holds the
        carried object or nothing), bool (V, V) visibility, and int64 (V, V, 2) each view
        cell's world ``(x, y)``; all indexed ``[i, j]``, i the view column, j the row from far
        to near.
    """
    grid = np.asarray(state["grid"], np.int64)
    W, H = grid.shape[:2]
    V, half = int(view), int(view) // 2
    ax, ay = (int(v) for v in state["agent_pos"])
    d = int(state["agent_dir"]) & 3
    fx, fy = ((1, 0), (0, 1), (-1, 0), (0, -1))[d]
    rx, ry = -fy, fx
    i, j = np.meshgrid(np.arange(V), np.arange(V), indexing="ij")
    x = ax + fx * (V - 1 - j) + rx * (i - half)
    y = ay + fy * (V - 1 - j) + ry * (i - half)
    inside = (x >= 0) & (x < W) & (y >= 0) & (y < H)
    cells = np.empty((V, V, 3), np.int64)
    cells[:] = (OBJ["wall"], 5, 0)  # Grid.slice: a grey wall outside the map
    cells[inside] = grid[x[inside], y[inside]]
    if see_through_walls:
        visible = np.ones((V, V), bool)
    else:
        obj, st = cells[..., 0], cells[..., 2]
        transparent = ~((obj == OBJ["wall"]) | ((obj == OBJ["door"]) & (st != 0)))
        visible = _process_vis(transparent.tolist(), V)
    carried = state.get("carrying")
    cells[half, V - 1] = (OBJ["empty"], 0, 0) if carried is None else tuple(carried)[:3]
    return cells, visible, np.stack([x, y], axis=-1)


def _process_vis(transparent: list[list[bool]], V: int) -> np.ndarray:
    """Grid.process_vis on the view (``transparent[i][j]``); marks spread within a pass, as Minigrid's do."""
    vis = [[False] * V for _ in range(V)]
    vis[V // 2][V - 1] = True
    for j in range(V - 1, -1, -1):
        for i in range(V - 1):
            if vis[i][j] and transparent[i][j]:
                vis[i + 1][j] = True
                if j > 0:
                    vis[i + 1][j - 1] = vis[i][j - 1] = True
        for i in range(V - 1, 0, -1):
            if vis[i][j] and transparent[i][j]:
                vis[i - 1][j] = True
                if j > 0:
                    vis[i - 1][j - 1] = vis[i][j - 1] = True
    return np.array(vis, bool)


# ---------------------------------------------------------------- frames


def _tiles_for(tile_size: int, drawings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An atlas's tiles and the drawings' rows in it (beyond the kept atlases: only those drawn here)."""
    if tile_size <= MAX_ATLAS_TILE_SIZE:
        return tile_atlas(tile_size).tiles, drawings
    used, rows = np.unique(drawings, return_inverse=True)
    return draw_tiles(tile_size, used.tolist()), rows.reshape(drawings.shape)


def _compose(tile_size: int, drawings: np.ndarray, slots: np.ndarray, lit: np.ndarray) -> np.ndarray:
    """The frame of tiles ``[drawings, slots, lit]`` given per cell as (columns, rows) arrays."""
    tiles, rows = _tiles_for(tile_size, drawings)
    picked = tiles[rows.T, slots.T, lit.T.astype(np.intp)]  # (rows, columns, ts, ts, 3)
    h, w = picked.shape[:2]
    return np.ascontiguousarray(picked.transpose(0, 2, 1, 3, 4)).reshape(h * tile_size, w * tile_size, 3)


def render_cells(cells: np.ndarray, tile_size: int, agent_pos: Any = None, agent_dir: int | None = None,
                 highlight_mask: np.ndarray | None = None) -> np.ndarray:
    """Minigrid's ``Grid.render`` of an encoding: a fresh uint8 (H * ts, W * ts, 3).

    Args:
        cells: (W, H, 3) ``(object, colour, state)`` per cell (``Grid.encode()``).
        tile_size: pixels per cell.
        agent_pos: the cell whose tile shows the agent (None, or a cell outside the grid: none).
        agent_dir: the agent's direction (None: the agent is not drawn).
        highlight_mask: bool (W, H), the cells lightened (None: none).
    """
    cells = np.asarray(cells)
    W, H = cells.shape[:2]
    slots = np.zeros((W, H), np.intp)
    if agent_pos is not None and agent_dir is not None:
        ax, ay = (int(v) for v in agent_pos)
        if 0 <= ax < W and 0 <= ay < H:
            slots[ax, ay] = 1 + (int(agent_dir) & 3)
    lit = np.zeros((W, H), bool) if highlight_mask is None else np.asarray(highlight_mask, bool)
    return _compose(int(tile_size), drawing_of(cells), slots, lit)


def draw_cell_tile(cell: Sequence[int] | None, tile_size: int, agent_dir: int | None = None,
                   highlight: bool = False) -> np.ndarray:
    """Minigrid's ``Grid.render_tile`` of a cell ``(object, colour, state)`` (None: empty): a fresh uint8 tile."""
    drawing = np.array([0 if cell is None else int(drawing_of(np.asarray(cell)[:3]))])
    tiles, rows = _tiles_for(int(tile_size), drawing)
    return tiles[rows[0], 0 if agent_dir is None else 1 + (int(agent_dir) & 3), int(bool(highlight))].copy()


def render_full(state: Mapping[str, Any], tile_size: int = 32, view: int = 7, see_through_walls: bool = False,
                highlight: bool = True) -> np.ndarray:
    """Minigrid's ``env.get_frame(highlight, tile_size)`` of a state dict: a fresh uint8 (H * ts, W * ts, 3).

    World cell (x, y) is the tile at pixel rows ``y * ts ..``, columns ``x * ts ..``; the agent's
    triangle is drawn over its cell's object (the carried object is not drawn), and with
    ``highlight`` the cells the agent sees are lightened.

    Args:
        state: ``MinigridVectorEnv.get_state``'s dict (``grid``, ``agent_pos``, ``agent_dir``, ``carrying``).
        tile_size: pixels per cell (``render()`` draws 32).
        view: ``agent_view_size``.
        see_through_walls: the id's ``see_through_walls`` (which cells are seen).
        highlight: lighten the cells the agent sees.
    """
    grid = np.asarray(state["grid"])
    W, H = grid.shape[:2]
    lit = np.zeros((W, H), bool)
    if highlight:
        _, visible, world = view_cells(state, view, see_through_walls)
        x, y = world[..., 0][visible], world[..., 1][visible]
        inside = (x >= 0) & (x < W) & (y >= 0) & (y < H)
        lit[x[inside], y[inside]] = True
    return render_cells(grid, tile_size, state["agent_pos"], state["agent_dir"], lit)


def render_pov(state: Mapping[str, Any], tile_size: int = 8, view: int = 7,
               see_through_walls: bool = False) -> np.ndarray:
    """Minigrid's ``env.get_pov_render(tile_size)`` of a state dict: a fresh uint8 (V * ts, V * ts, 3).

    The agent's view as it observes it: view cell (i, j) at pixel rows ``j * ts ..``, columns
    ``i * ts ..``; cells it does not see are empty, the cells it sees are highlighted, and its
    own cell at the bottom middle shows what it carries under the triangle, facing up.

    Args:
        state: ``MinigridVectorEnv.get_state``'s dict.
        tile_size: pixels per cell (``RGBImgPartialObsWrapper``'s default is 8).
        view: ``agent_view_size`` V.
        see_through_walls: the id's ``see_through_walls``.
    """
    cells, visible, _ = view_cells(state, view, see_through_walls)
    V = int(view)
    drawings = np.where(visible, drawing_of(cells), 0)
    slots = np.zeros((V, V), np.intp)
    slots[V // 2, V - 1] = 1 + 3
    return _compose(int(tile_size), drawings, slots, visible)
