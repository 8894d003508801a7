"""The navigation family's batch state: every array of a batch of PixelWorld envs.

Abbreviations: N envs, M maps, H x W map size, P border width, T tile ids.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

import gridsim.nav._kernel as _kernel
from gridsim.engine.events import num_fields
from gridsim.engine.state import BatchState, StateView
from gridsim.errors import InvalidArgumentError
from gridsim.nav.alphabet import F_COLLECTIBLE, F_STOCHASTIC, F_TERMINAL, F_WALKABLE, VOID
from gridsim.nav.api import NAV_EVENTS
from gridsim.nav.fields import FIELDS as NAV_FIELDS
from gridsim.nav.level import NavLevel

__all__ = ["ACTION_CODES", "NavState", "OBS_COORDS", "OBS_IMAGE", "OBS_VIEW", "constant_reward_table"]

# Observation kinds, read from the kernel.
OBS_COORDS, OBS_IMAGE, OBS_VIEW = _kernel.OBS_KIND_COORDS, _kernel.OBS_KIND_IMAGE, _kernel.OBS_KIND_VIEW

# Move code = (d_row + 1) * 3 + (d_col + 1); 4 is "stay".
UP, RIGHT, DOWN, LEFT = 1, 5, 7, 3
MAX_INDEX = 2**31 - 1  # cells and image bytes are numbered in int32
# The map is padded by view_size // 2 and every env holds its view or image: bounded, so that
# a typo cannot ask for gigabytes.
MAX_VIEW_SIZE = 1023
MAX_PIXELS_PER_CELL = 64
ACTION_CODES = {
    "1d_discrete": (UP, RIGHT, DOWN, LEFT),
    "1d_horizontal": (RIGHT, LEFT),
    "1d_vertical": (DOWN, UP),
    "2d_continuous": (),
}



def check_obs_size(height: int, width: int, view_size: int, pixels_per_cell: int) -> None:
    """Check ``view_size`` and ``pixels_per_cell`` and that what they size fits the kernel's int32 indices.

    Raises:
        InvalidArgumentError: ``view_size`` is not an odd int in 1..:data:`MAX_VIEW_SIZE`,
            ``pixels_per_cell`` not an int in 1..:data:`MAX_PIXELS_PER_CELL`, or the padded map or
            the image of one env has more than 2**31 - 1 entries.
    """
    for name, value, most in (("view_size", view_size, MAX_VIEW_SIZE),
                              ("pixels_per_cell", pixels_per_cell, MAX_PIXELS_PER_CELL)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= most:
            raise InvalidArgumentError(f"{name} must be a positive integer up to {most}, got {value!r:.80}")
    if view_size % 2 == 0:
        raise InvalidArgumentError(f"view_size must be a positive odd number, got {view_size!r}")
    pad = max(int(view_size) // 2, 1)
    cells = (height + 2 * pad) * (width + 2 * pad)
    if cells > MAX_INDEX:
        raise InvalidArgumentError(f"view_size={view_size} pads the {height}x{width} map to {cells} cells; "
                                   f"the kernel numbers cells in int32 (at most {MAX_INDEX})")
    pixels = height * width * int(pixels_per_cell) ** 2 * 3
    if pixels > MAX_INDEX:
        raise InvalidArgumentError(f"pixels_per_cell={pixels_per_cell} makes a {pixels}-byte image of the "
                                   f"{height}x{width} map; the kernel indexes an image in int32 (at most {MAX_INDEX})")


class NavState(BatchState):
    """All arrays of a batch of navigation envs.

    Maps are stored with a VOID border ``pad`` cells wide and flattened: cell
    ``(row, col)`` is ``(row + pad) * (W + 2 * pad) + col + pad``; ``cell_rc`` maps
    a cell back to ``(row, col)``.

    Args:
        maps: M compiled maps of one size and one alphabet.
        num_envs: N.
        map_id: (N,) which map each env uses (default: env i uses map i % M).
        obs_kind: OBS_COORDS, OBS_IMAGE or OBS_VIEW.
        view_size: side of the egocentric view (odd).
        pixels_per_cell, channels_first: image observation layout.
        actions: the action type name (a key of ACTION_CODES).
        autoreset_mode: the kernel's AUTORESET_* code.
        randomize_goals: keep one terminal cell per episode, the others become default tiles.
        max_steps: truncation limit, 0 for none.
        nan_to_zero: continuous NaN components count as 0 instead of raising.
        events: the kernel records events (``gridsim.nav.api.NAV_EVENTS``).
        max_events: event slots per env and step.
    """

    FIELDS = NAV_FIELDS  # the family's own arrays (gridsim/nav/fields.py)

    AXIS_INDEX = {"G": "grid_index", "T": "reward_index"}
    STEP_FIELD = "step_count"
    # The maps as written (not padded: the padding follows the view) and which env plays each,
    # and what their symbols do.
    RULE_TABLES = ("map_tiles", "map_id", "tile_flags", "dist_kind", "dist_a", "dist_b", "default_tile")

    def __init__(
        self,
        maps: Sequence[NavLevel],
        num_envs: int,
        *,
        map_id: np.ndarray | None = None,
        obs_kind: int = OBS_COORDS,
        view_size: int = 7,
        pixels_per_cell: int = 1,
        channels_first: bool = False,
        actions: str = "1d_discrete",
        autoreset_mode: int = 0,
        randomize_goals: bool = False,
        max_steps: int = 0,
        nan_to_zero: bool = False,
        events: bool = False,
        max_events: int = 16,
    ):
        first = maps[0]
        alphabet = first.alphabet
        for m in maps:
            if (m.height, m.width) != (first.height, first.width):
                raise InvalidArgumentError(
                    f"all maps of one batch need one size: {m.name} is {m.height}x{m.width}, "
                    f"{first.name} is {first.height}x{first.width}"
                )
            if m.alphabet.key() != alphabet.key():
                raise InvalidArgumentError(f"all maps of one batch need one alphabet ({m.name} differs)")
        check_obs_size(first.height, first.width, view_size, pixels_per_cell)
        N, M = int(num_envs), len(maps)
        H, W = first.height, first.width
        P = max(int(view_size) // 2, 1)
        Wp = W + 2 * P
        C = (H + 2 * P) * Wp  # cells per stored map
        self.alphabet = alphabet
        self.maps = tuple(maps)
        self.num_envs, self.height, self.width, self.pad = N, H, W, P
        self.row_stride, self.map_cells = Wp, C
        self.obs_kind, self.view_size = obs_kind, view_size
        self.pixels_per_cell, self.channels_first = pixels_per_cell, int(bool(channels_first))
        self.action_codes = ACTION_CODES[actions]
        self.num_actions = len(self.action_codes)
        self.autoreset_mode = autoreset_mode
        self.randomize_goals = int(bool(randomize_goals))
        self.max_steps = int(max_steps)
        self.nan_to_zero = int(bool(nan_to_zero))
        self.default_tile = alphabet.default_id
        self.agent_color = np.asarray(alphabet.agent_color, np.uint8)

        # ---- level tables, shared by all envs
        flags = alphabet.flags
        self.tile_flags = flags  # (T,) uint32
        self.tile_color = alphabet.color  # (T, 3) uint8
        self.dist_kind = alphabet.dist_kind  # (T,) int32
        self.dist_a, self.dist_b = alphabet.dist_a, alphabet.dist_b  # (T,) float64
        padded = np.full((M, H + 2 * P, Wp), VOID, np.uint8)
        for k, m in enumerate(maps):
            padded[k, P : P + H, P : P + W] = m.tiles
        self.map_tiles = np.stack([m.tiles for m in maps])  # (M, H, W) tile ids, as written
        self.level_tiles = padded.reshape(M, C)  # (M, C) tile ids
        self.level_flags = flags[self.level_tiles].astype(np.uint8)  # (M, C) F_* bits
        rows, cols = np.divmod(np.arange(C), Wp)
        self.cell_rc = np.stack([rows - P, cols - P], axis=1).astype(np.int32)  # (C, 2)
        S = max(len(m.start_cells) for m in maps)
        G = max(max(len(m.goal_cells) for m in maps), 1)
        self.start_cells = np.zeros((M, S), np.int32)  # (M, S) cells, row-major
        self.start_count = np.zeros(M, np.int32)
        self.goal_cells = np.zeros((M, G), np.int32)  # (M, G) cells, row-major
        self.goal_count = np.zeros(M, np.int32)
        for k, m in enumerate(maps):
            self.start_cells[k, : len(m.start_cells)] = self.cell_of(m.start_cells)
            self.start_count[k] = len(m.start_cells)
            self.goal_cells[k, : len(m.goal_cells)] = self.cell_of(m.goal_cells)
            self.goal_count[k] = len(m.goal_cells)
        # A map whose border has a walkable cell needs moves clamped into the map; a map
        # walled all round never lets the agent reach its border.
        border = np.ones((H, W), bool)
        border[1:-1, 1:-1] = False
        self.clamp = int(any((flags[m.tiles][border] & F_WALKABLE).any() for m in maps))
        for arr in (self.map_tiles, self.level_tiles, self.level_flags, self.cell_rc, self.start_cells,
                    self.start_count, self.goal_cells, self.goal_count):
            arr.setflags(write=False)

        has_collectible = any(flags[t] & F_COLLECTIBLE for t in np.unique(self.level_tiles))
        has_goals = bool(self.goal_count.max() > 0)
        self.mutable = int(has_collectible or (self.randomize_goals and has_goals))
        d = alphabet.default_id
        if self.mutable and not flags[d] & F_WALKABLE:
            raise InvalidArgumentError(
                f"the default symbol {alphabet.default_symbol!r} must be accessible when cells can "
                "turn into it (collectible symbols or randomize_goals)"
            )
        fixed_random = [
            t for t in np.unique(self.level_tiles)
            if not flags[t] & F_STOCHASTIC and alphabet.dist_kind[t] != 0
        ]
        if self.mutable and not flags[d] & F_STOCHASTIC and alphabet.dist_kind[d] != 0:
            fixed_random.append(d)
        self.per_env_table = int(bool(fixed_random))

        # ---- per-env state
        planes = 2 if self.mutable else 1
        self.allocate(units=N, rows=N, obs_shape=self.obs_shape, obs_dtype=self.obs_dtype,
                      autoreset_mode=self.autoreset_mode, max_steps=self.max_steps, events=events,
                      max_events=max_events, num_event_fields=num_fields(NAV_EVENTS), N=N, C=C, P=planes,
                      G=N if self.mutable else M, T=N if self.per_env_table else M)
        self.map_id[:] = (np.arange(N) % M) if map_id is None else map_id
        if self.mutable:
            self.grid[:] = self.level_tiles[self.map_id]
            self.cell_flags[:] = self.level_flags[self.map_id]
            self.grid_index[:] = np.arange(N)
        else:  # static, shared by the envs of a map; the kernel never writes them
            self.grid[:] = self.level_tiles
            self.cell_flags[:] = self.level_flags
            self.grid_index[:] = self.map_id
        if self.per_env_table:  # drawn at seeding
            self.reward_index[:] = np.arange(N)
        else:
            self.cell_reward[:] = np.stack([
                self._pad(constant_reward_table(m, planes, bool(self.randomize_goals))) for m in maps
            ])
            self.reward_index[:] = self.map_id
        # A valid cell even before the first reset, so no step can ever index outside the map.
        self.agent_cell[:] = self.start_cells[self.map_id, 0]
        # The cells that may hold the default tile instead of the level's: collected cells, and
        # (randomize_goals) the goals removed at reset.
        changeable = (self.level_flags & F_COLLECTIBLE) != 0
        if self.randomize_goals:
            changeable |= (self.level_flags & F_TERMINAL) != 0
        self.changeable = changeable  # (M, C) bool
        self.grid_map = self.map_id.copy() if self.mutable else np.arange(M, dtype=np.int32)  # (G,) map of each row
        for arr in (self.changeable, self.grid_map):
            arr.setflags(write=False)

    # ------------------------------------------------------------ injected states

    def static_fields(self) -> frozenset[str]:
        """Maps shared by the envs of a level map, and fixed-reward tables shared likewise."""
        static = set() if self.mutable else {"grid", "cell_flags"}
        if not self.per_env_table:
            static.add("cell_reward")
        return frozenset(static)

    def check_own(self, v: StateView):
        """The navigation invariants: the level's tiles (the default symbol where cells change).

        Also: flags of those tiles, the level's fixed rewards (when shared), agents on accessible
        cells or start cells, and start overrides that a reset can use.
        """
        maps = self.map_id[v.units]
        # The view's grid rows (shared by the worlds that play one map, or one per world) and their maps.
        grid = v["grid"]
        grid_maps = self.grid_map[v.row_ids["grid"]]
        v.in_range("grid", 0, len(self.tile_flags) - 1, "(tile ids of the alphabet)")
        d = self.alphabet.default_symbol
        changed_ok = self.changeable[grid_maps] & (grid == self.default_tile)
        v.require("grid", (grid == self.level_tiles[grid_maps]) | changed_ok,
                  f"the level's tile, or the default symbol {d!r} on a collectible cell (or a goal with "
                  "randomize_goals)")
        v.require("cell_flags", v["cell_flags"] == self.tile_flags[grid].astype(np.uint8), "the F_* flags of the tile")
        v.finite("cell_reward")
        if not self.per_env_table:
            v.require("cell_reward", v["cell_reward"] == self.cell_reward[v.row_ids["cell_reward"]],
                      "the level's fixed rewards")
        C = self.map_cells
        v.in_range("agent_cell", 0, C - 1, "(a cell of the padded map)")
        cell = v["agent_cell"]
        walkable = (v["cell_flags"][v.row_index["cell_flags"], cell] & F_WALKABLE) != 0
        v.require("agent_cell", walkable | self._is_start(maps, cell), "an accessible cell or a start cell of the map")
        start = v["start_override"]
        v.in_range("start_override", -1, C - 1, "(-1: none, else a cell)")
        at = np.maximum(start, 0)
        ok = (start < 0) | ((self.level_flags[maps, at] & F_WALKABLE) != 0) | self._is_start(maps, at)
        v.require("start_override", ok, "-1 (none) or an accessible cell or a start cell of the map")

    def _is_start(self, maps: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Whether each cell is a start cell of its map."""
        counted = np.arange(self.start_cells.shape[1])[None, :] < self.start_count[maps][:, None]
        return ((self.start_cells[maps] == cells[:, None]) & counted).any(axis=1)

    def _pad(self, table: np.ndarray) -> np.ndarray:
        """A (planes, H, W) table as (planes, C) over padded cells (0 on the border)."""
        P = self.pad
        out = np.zeros((table.shape[0], self.height + 2 * P, self.row_stride), table.dtype)
        out[:, P : P + self.height, P : P + self.width] = table
        return out.reshape(table.shape[0], self.map_cells)

    def cell_of(self, rc) -> np.ndarray:
        """Cells of ``(row, col)`` pairs, shape (..., 2) -> (...)."""
        rc = np.asarray(rc, np.int64)
        return ((rc[..., 0] + self.pad) * self.row_stride + rc[..., 1] + self.pad).astype(np.int32)

    @property
    def agent_pos(self) -> np.ndarray:
        """(N, 2) int32 ``(row, col)`` of every agent (a fresh array)."""
        return self.cell_rc[self.agent_cell]

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """Shape of one env's observation."""
        if self.obs_kind == OBS_COORDS:
            return (2,)
        if self.obs_kind == OBS_VIEW:
            return (self.view_size, self.view_size)
        h, w = self.height * self.pixels_per_cell, self.width * self.pixels_per_cell
        return (3, h, w) if self.channels_first else (h, w, 3)

    @property
    def obs_dtype(self) -> type:
        """The dtype of the observation."""
        return np.int32 if self.obs_kind == OBS_COORDS else np.uint8

    def tiles_of(self, i: int) -> np.ndarray:
        """The current (H, W) tile ids of env i (a copy)."""
        P = self.pad
        grid = self.grid[self.grid_index[i]].reshape(self.height + 2 * P, self.row_stride)
        return grid[P : P + self.height, P : P + self.width].copy()

def constant_reward_table(level: NavLevel, planes: int, randomize_goals: bool) -> np.ndarray:
    """The fixed-reward table of a map whose fixed rewards are all constant: (planes, H, W) float32.

    Plane 0 holds each cell's own value; plane 1 (mutable levels) the value a cell
    has after it becomes the default tile, which only collectible cells and (with
    randomized goals) terminal cells ever do.
    """
    a = level.alphabet
    table = np.zeros((planes, level.height, level.width), np.float32)
    own = np.where(a.flags[level.tiles] & F_STOCHASTIC, 0.0, a.dist_a[level.tiles])
    table[0] = own
    if planes == 2:
        d = a.default_id
        changeable = (a.flags[level.tiles] & F_COLLECTIBLE) != 0
        if randomize_goals:
            changeable |= (a.flags[level.tiles] & F_TERMINAL) != 0
        alt = 0.0 if a.flags[d] & F_STOCHASTIC else a.dist_a[d]
        table[1] = np.where(changeable, alt, own)
    return table
