"""Minigrid's ``MiniGridEnv`` attributes and methods over a gridsim env's state.

Code written for Minigrid reads ``env.unwrapped``'s world: ``grid``, ``agent_pos``, ``agent_dir``,
``carrying``, ``front_pos``, ``gen_obs()``, ``get_frame()``, ... (Minigrid's wrappers do).
:class:`MinigridAttributes` gives a gridsim MiniGrid env those names, read from its kernel's
state with Minigrid 3.2.0's types and values (``minigrid/minigrid_env.py``): ``agent_pos`` is
the tuple or array Minigrid's env holds at that point of the episode (its id's start, then
``tuple(fwd_pos)`` once the agent moved), ``dir_vec`` an array, ``grid`` a
:class:`gridsim.minigrid.world.Grid` of world objects.

Writes go through to the kernel where Minigrid's code writes (``agent_pos``, ``agent_dir``,
``carrying``, ``step_count``, ``mission``, ``max_steps``), checked and all or nothing
(``set_state``); the grid, its objects, ``width``, ``height`` and ``agent_view_size`` are
read-only and say so (:class:`gridsim.errors.ReadOnlyAttributeError`).
"""

from __future__ import annotations

import hashlib
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

import gridsim._core as _core
from gridsim.engine.locking import synchronized
from gridsim.engine.settings import check_max_steps
from gridsim.errors import ArgumentTypeError, ClosedEnvError, ReadOnlyAttributeError
from gridsim.minigrid.render import render_full, render_pov, view_cells
from gridsim.minigrid.world import (
    DIR_TO_VEC,
    OBJECT_TO_IDX,
    TILE_PIXELS,
    WRITE_HINT,
    Actions,
    EnvGrid,
    Grid,
    Wall,
    WorldObj,
    cell_object,
    contents_code,
    minigrids_classes_loaded,
    pprint_cells,
)

if TYPE_CHECKING:
    from typing import Protocol

    from gridsim.minigrid.tasks import MinigridSpec

    class MinigridVectorEnv(Protocol):
        """What the attributes read of ``gridsim.minigrid.env.MinigridVectorEnv``."""

        state: Any
        kernel: Any
        num_envs: int
        max_episode_steps: int | None
        spec_row: MinigridSpec
        missions: tuple[str, ...]
        agent_view_size: int
        see_through_walls: bool
        _lock: Any

        @property
        def started(self) -> bool: ...
        def check_open(self) -> None: ...
        def set_state(self, state: Any, index: int = 0) -> Any: ...
        def env_np_random(self, index: int = 0) -> np.random.Generator: ...


__all__ = ["MINIGRID_ATTRIBUTES", "MinigridAttributes", "RowAttributes"]

# The attributes of Minigrid's env that read the world (the vector env's get_attr gives them per env).
MINIGRID_ATTRIBUTES = frozenset({
    "grid", "agent_pos", "agent_dir", "dir_vec", "right_vec", "front_pos", "carrying", "width", "height",
    "step_count", "max_steps", "steps_remaining", "mission", "agent_view_size", "see_through_walls", "actions",
    "highlight", "tile_size", "agent_pov",
})


def _read_only(name: str, instead: str) -> ReadOnlyAttributeError:
    return ReadOnlyAttributeError(f"{name} of a gridsim MiniGrid env is read-only: {instead}")


class MinigridAttributes:
    """``MiniGridEnv``'s attributes and methods, over row :attr:`_row` of the vector env :attr:`_vec`.

    Attributes:
        highlight: ``render()`` lightens the cells the agent sees (Minigrid's default, True).
        tile_size: ``render()``'s pixels per cell (Minigrid's ``TILE_PIXELS``, 32; the RGB
            observations' size is the env's ``tile_size`` argument).
        agent_pov: ``render()`` draws the agent's view instead of the world.
    """

    _vec: MinigridVectorEnv
    _row: int = 0
    highlight: bool = True
    tile_size: int = TILE_PIXELS
    agent_pov: bool = False
    actions = Actions
    reward_range = (0, 1)
    # What agent_pos returns while the agent stands where it was put: ((x, y), that value), or None
    # once it moved (Minigrid's tuple(fwd_pos): a tuple of np.int64).
    _pos_as_put: tuple[tuple[int, int], Any] | None = None
    _dir_type: type = np.int64  # agent_dir's type: Minigrid's int where the id sets it, np.int64 where drawn
    # Snapshots of the world, rebuilt when the state's bytes change (never pickled).
    _CACHES = ("_grid_cache", "_carrying_cache")

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._CACHES:
            state.pop(name, None)
        return state

    # ------------------------------------------------------------------ reading the state

    def _started(self) -> bool:
        return bool(self._vec.started)

    def _world_state(self) -> dict[str, Any]:
        """``grid``, ``agent_pos``, ``agent_dir``, ``carrying`` of the row, for the pictures and the view."""
        st = self._vec.state
        r = self._row
        carried = st.carrying[r]
        return {"grid": st.grid[r, :, :, :3].transpose(1, 0, 2), "agent_pos": tuple(st.agent[r, :2].tolist()),
                "agent_dir": int(st.agent[r, 2]),
                "carrying": None if carried[0] == OBJECT_TO_IDX["empty"] else tuple(carried[:3].tolist())}

    def _write_state(self, state: dict[str, Any]) -> None:
        """Write ``state`` (``set_state``'s keys) into the row: checked, all or nothing."""
        self._vec.set_state(state, self._row)

    @property
    @synchronized
    def grid(self) -> EnvGrid:
        """The world's grid (read-only): ``grid.get(x, y)``, ``grid.grid``, ``grid.encode()``, ..."""
        cells = self._vec.state.grid[self._row]
        data = (cells.tobytes(), minigrids_classes_loaded())
        cached = self.__dict__.get("_grid_cache")
        if cached is None or cached[0] != data:
            grid = EnvGrid(cells, None if cached is None else cached[1])
            self.__dict__["_grid_cache"] = cached = (data, grid)
        return cached[1]

    @grid.setter
    @synchronized
    def grid(self, value: Any) -> None:
        raise _read_only("grid", WRITE_HINT)

    @property
    @synchronized
    def agent_pos(self) -> Any:
        """The agent's cell as Minigrid's env holds it: its id's start value until it moves, then np.int64s."""
        if not self._started():
            return None
        x, y = self._vec.state.agent[self._row, :2].tolist()
        put = self._pos_as_put
        if put is not None and put[0] == (x, y):
            return put[1]
        return np.int64(x), np.int64(y)

    @agent_pos.setter
    @synchronized
    def agent_pos(self, value: Any) -> None:
        if isinstance(value, (str, bytes)) or len(value) != 2:
            raise ArgumentTypeError(f"agent_pos must be (x, y), got {value!r}")
        self._write_state({"agent_pos": (value[0], value[1])})
        kept = np.array(value) if isinstance(value, np.ndarray) else tuple(value)
        if isinstance(kept, np.ndarray):
            kept.flags.writeable = False  # a copy: changing it in place would not move the agent
        self._pos_as_put = ((int(value[0]), int(value[1])), kept)

    @property
    @synchronized
    def agent_dir(self) -> Any:
        """The agent's direction: 0 right, 1 down, 2 left, 3 up (an int or np.int64, as Minigrid's)."""
        if not self._started():
            return None
        return self._dir_type(self._vec.state.agent[self._row, 2])

    @agent_dir.setter
    @synchronized
    def agent_dir(self, value: Any) -> None:
        self._write_state({"agent_dir": value})
        self._dir_type = np.int64 if isinstance(value, np.integer) else int

    @property
    @synchronized
    def dir_vec(self) -> np.ndarray:
        """The forward direction, an array (Minigrid's ``DIR_TO_VEC[agent_dir]``)."""
        d = self.agent_dir
        assert d is not None and 0 <= d < 4, f"Invalid agent_dir: {d} is not within range(0, 4)"
        return DIR_TO_VEC[d]

    @property
    @synchronized
    def right_vec(self) -> np.ndarray:
        """The direction to the agent's right, an array."""
        dx, dy = self.dir_vec
        return np.array((-dy, dx))

    @property
    @synchronized
    def front_pos(self) -> np.ndarray:
        """The cell in front of the agent, an array."""
        return self.agent_pos + self.dir_vec

    @property
    @synchronized
    def carrying(self) -> WorldObj | None:
        """What the agent carries (read-only), or None; its ``cur_pos`` is ``np.array([-1, -1])``."""
        carried = self._vec.state.carrying[self._row]
        data = (carried.tobytes(), minigrids_classes_loaded())
        cached = self.__dict__.get("_carrying_cache")
        if cached is None or cached[0] != data:
            obj = cell_object(carried, np.array([-1, -1]))
            self.__dict__["_carrying_cache"] = cached = (data, obj)
        return cached[1]

    @carrying.setter
    @synchronized
    def carrying(self, value: Any) -> None:
        if value is None:
            self._write_state({"carrying": None, "carrying_contents": 0})
            return
        if not callable(getattr(value, "encode", None)) or not hasattr(value, "type"):
            raise ArgumentTypeError(f"carrying must be None or a world object (Key('red'), ...), got {value!r}")
        contents = contents_code(value.contains) if value.type == "box" else 0
        self._write_state({"carrying": tuple(int(v) for v in value.encode()), "carrying_contents": contents})

    @property
    @synchronized
    def width(self) -> int:
        """The grid's width."""
        return self._vec.spec_row.width

    @width.setter
    @synchronized
    def width(self, value: Any) -> None:
        raise _read_only("width", "it is the id's (gridsim.minigrid.MINIGRID_IDS)")

    @property
    @synchronized
    def height(self) -> int:
        """The grid's height."""
        return self._vec.spec_row.height

    @height.setter
    @synchronized
    def height(self, value: Any) -> None:
        raise _read_only("height", "it is the id's (gridsim.minigrid.MINIGRID_IDS)")

    @property
    @synchronized
    def see_through_walls(self) -> bool:
        """Whether the view shows everything in range (the env's ``see_through_walls``; by default the id's)."""
        return self._vec.see_through_walls

    @see_through_walls.setter
    @synchronized
    def see_through_walls(self, value: Any) -> None:
        raise _read_only("see_through_walls", "pass see_through_walls= to gym.make")

    @property
    @synchronized
    def agent_view_size(self) -> int:
        """The side of the agent's view."""
        return self._vec.agent_view_size

    @agent_view_size.setter
    @synchronized
    def agent_view_size(self, value: Any) -> None:
        raise _read_only("agent_view_size", "pass agent_view_size= to gym.make, or wrap the env in ViewSizeWrapper")

    @property
    @synchronized
    def step_count(self) -> int:
        """The steps of this episode."""
        return int(self._vec.state.step_count[self._row])

    @step_count.setter
    @synchronized
    def step_count(self, value: Any) -> None:
        self._write_state({"step_count": value})

    @property
    @synchronized
    def max_steps(self) -> int:
        """The step limit (truncation, and the success reward's denominator) of this episode and the next."""
        limit = int(self._vec.state.ep_max_steps[self._row])
        if self._started() and limit > 0:
            return limit
        return int(self._vec.max_episode_steps or self._vec.spec_row.max_steps)

    @max_steps.setter
    @synchronized
    def max_steps(self, value: Any) -> None:
        # As in Minigrid, for this episode (truncation and reward) and the next ones.
        limit = check_max_steps(value, "max_steps", optional=False)
        assert limit is not None
        self._write_max_steps(limit)

    def _write_max_steps(self, limit: int) -> None:
        vec = self._vec
        vec.check_open()
        st = vec.state
        _core.commit([(st.ep_max_steps, np.array([self._row]), np.array([limit], st.ep_max_steps.dtype))],
                     [(setattr, (vec.kernel, "max_steps", limit)), (setattr, (vec, "max_episode_steps", limit))])

    @property
    @synchronized
    def steps_remaining(self) -> int:
        """``max_steps - step_count``."""
        return self.max_steps - self.step_count

    @property
    @synchronized
    def mission(self) -> str:
        """The mission of this episode."""
        return self._vec.missions[int(self._vec.state.mission[self._row])]

    @mission.setter
    @synchronized
    def mission(self, value: Any) -> None:
        self._write_state({"mission": value})

    # ------------------------------------------------------------------ the view

    @synchronized
    def get_view_coords(self, i: int, j: int) -> tuple[Any, Any]:
        """World cell (i, j) in the agent's view coordinates (possibly outside the view)."""
        ax, ay = self.agent_pos
        dx, dy = self.dir_vec
        rx, ry = self.right_vec
        sz = self.agent_view_size
        hs = self.agent_view_size // 2
        tx = ax + (dx * (sz - 1)) - (rx * hs)
        ty = ay + (dy * (sz - 1)) - (ry * hs)
        lx = i - tx
        ly = j - ty
        return rx * lx + ry * ly, -(dx * lx + dy * ly)

    @synchronized
    def get_view_exts(self, agent_view_size: int | None = None) -> tuple[Any, Any, Any, Any]:
        """``(topX, topY, botX, botY)``: the view's extents in the world (bottom excluded)."""
        size = agent_view_size or self.agent_view_size
        ax, ay = self.agent_pos
        d = self.agent_dir
        if d == 0:
            top_x, top_y = ax, ay - size // 2
        elif d == 1:
            top_x, top_y = ax - size // 2, ay
        elif d == 2:
            top_x, top_y = ax - size + 1, ay - size // 2
        elif d == 3:
            top_x, top_y = ax - size // 2, ay - size + 1
        else:
            raise AssertionError("invalid agent direction")
        return top_x, top_y, top_x + size, top_y + size

    @synchronized
    def relative_coords(self, x: int, y: int) -> tuple[Any, Any] | None:
        """The view coordinates of world cell (x, y), or None outside the view."""
        vx, vy = self.get_view_coords(x, y)
        if vx < 0 or vy < 0 or vx >= self.agent_view_size or vy >= self.agent_view_size:
            return None
        return vx, vy

    @synchronized
    def in_view(self, x: int, y: int) -> bool:
        """Whether world cell (x, y) is in the agent's view."""
        return self.relative_coords(x, y) is not None

    @synchronized
    def agent_sees(self, x: int, y: int) -> bool:
        """Whether the agent sees the object at world cell (x, y) (there must be one)."""
        coordinates = self.relative_coords(x, y)
        if coordinates is None:
            return False
        vx, vy = coordinates
        obs_grid, _ = Grid.decode(self.gen_obs()["image"])
        obs_cell = obs_grid.get(vx, vy)
        world_cell = self.grid.get(x, y)
        assert world_cell is not None
        return obs_cell is not None and obs_cell.type == world_cell.type

    @synchronized
    def gen_obs_grid(self, agent_view_size: int | None = None) -> tuple[Grid, np.ndarray]:
        """The agent's view as a grid (turned to face up; unseen cells empty, its cell what it carries) and its mask.

        Args:
            agent_view_size: the view's side (None: the env's), as ``ViewSizeWrapper`` asks for it.

        Returns:
            ``(grid, vis_mask)``: a free :class:`Grid` of V x V cells (the world's objects, new
            grey walls outside the map) and bool (V, V).
        """
        size = agent_view_size or self.agent_view_size
        see_all = self.see_through_walls
        _, visible, world = view_cells(self._world_state(), size, see_all)
        env_grid = self.grid
        out = Grid(size, size)
        W, H = env_grid.width, env_grid.height
        for i in range(size):
            for j in range(size):
                if not visible[i, j]:
                    continue
                x, y = int(world[i, j, 0]), int(world[i, j, 1])
                out.grid[j * size + i] = env_grid.grid[y * W + x] if 0 <= x < W and 0 <= y < H else Wall()
        out.grid[(size - 1) * size + size // 2] = self.carrying
        return out, visible

    @synchronized
    def gen_obs(self) -> dict[str, Any]:
        """Minigrid's observation of the current state: ``{"image", "direction", "mission"}``."""
        cells, visible, _ = view_cells(self._world_state(), self.agent_view_size, self.see_through_walls)
        image = np.where(visible[..., None], cells, 0).astype(np.uint8)
        return {"image": image, "direction": self.agent_dir, "mission": self.mission}

    # ------------------------------------------------------------------ pictures

    @synchronized
    def get_pov_render(self, tile_size: int) -> np.ndarray:
        """The agent's view drawn (``RGBImgPartialObsWrapper``'s picture), uint8 (V * ts, V * ts, 3)."""
        return render_pov(self._world_state(), tile_size, self.agent_view_size, self.see_through_walls)

    @synchronized
    def get_full_render(self, highlight: bool, tile_size: int) -> np.ndarray:
        """The world drawn, the cells the agent sees lightened with ``highlight``, uint8 (H * ts, W * ts, 3)."""
        return render_full(self._world_state(), tile_size, self.agent_view_size, self.see_through_walls, highlight)

    @synchronized
    def get_frame(self, highlight: bool = True, tile_size: int = TILE_PIXELS, agent_pov: bool = False) -> np.ndarray:
        """The world (or with ``agent_pov`` the agent's view) drawn, pixel for pixel Minigrid's."""
        if agent_pov:
            return self.get_pov_render(tile_size)
        return self.get_full_render(highlight, tile_size)

    # ------------------------------------------------------------------ the rest

    @synchronized
    def hash(self, size: int = 16) -> str:
        """Minigrid's hash of the state: sha256 of the grid's encoding, ``agent_pos`` and ``agent_dir``."""
        sample_hash = hashlib.sha256()
        for item in (self.grid.encode().tolist(), self.agent_pos, self.agent_dir):
            sample_hash.update(str(item).encode("utf8"))
        return sample_hash.hexdigest()[:size]

    @synchronized
    def pprint_grid(self) -> str:
        """The grid in two letters a cell (Minigrid's ``pprint_grid``), the agent as its direction."""
        if self.agent_pos is None or self.agent_dir is None:
            raise ValueError("The environment hasn't been `reset` therefore the `agent_pos`, `agent_dir` or `grid` "
                             "are unknown.")
        return pprint_cells(self.grid.encode(), self.agent_pos, self.agent_dir)

    def _rand_int(self, low: int, high: int) -> Any:
        """An integer in [low, high) from the env's stream."""
        return self.np_random.integers(low, high)

    def _rand_float(self, low: float, high: float) -> float:
        """A float in [low, high) from the env's stream."""
        return self.np_random.uniform(low, high)

    def _rand_bool(self) -> bool:
        """A coin from the env's stream."""
        return self.np_random.integers(0, 2) == 0

    def _rand_elem(self, iterable: Any) -> Any:
        """An element of ``iterable`` from the env's stream."""
        lst = list(iterable)
        return lst[self._rand_int(0, len(lst))]

    def _rand_subset(self, iterable: Any, num_elems: int) -> list:
        """``num_elems`` distinct elements, in draw order, from the env's stream."""
        lst = list(iterable)
        assert num_elems <= len(lst)
        out: list = []
        while len(out) < num_elems:
            elem = self._rand_elem(lst)
            lst.remove(elem)
            out.append(elem)
        return out

    def _rand_color(self) -> str:
        """A colour name from the env's stream."""
        from gridsim.minigrid.ids import COLOR_NAMES

        return self._rand_elem(sorted(COLOR_NAMES))

    def _rand_pos(self, x_low: int, x_high: int, y_low: int, y_high: int) -> tuple[Any, Any]:
        """An (x, y) from the env's stream."""
        return self.np_random.integers(x_low, x_high), self.np_random.integers(y_low, y_high)

    # Provided by the class: the env's generator.
    np_random: np.random.Generator

    # ------------------------------------------------------------------ episode starts (agent_pos's type)

    def _note_start(self) -> None:
        """After a reset: ``agent_pos`` and ``agent_dir`` take the types the id's generator gives them."""
        start = self._vec.spec_row.agent_start
        self._dir_type = np.int64 if start == "placed" else int
        if start == "placed":
            self._pos_as_put = None
            return
        x, y = self._vec.state.agent[self._row, :2].tolist()
        if start == "array":
            value: Any = np.array((x, y))
            value.flags.writeable = False
        else:
            value = (x, y)
        self._pos_as_put = ((x, y), value)

    def _note_moves(self) -> None:
        """After a step: once the agent moved, ``agent_pos`` is ``tuple(fwd_pos)``, a tuple of np.int64."""
        put = self._pos_as_put
        if put is not None and tuple(self._vec.state.agent[self._row, :2].tolist()) != put[0]:
            self._pos_as_put = None


class RowAttributes(MinigridAttributes):
    """Minigrid's attributes of env ``row`` of a vector env, read-only (``envs.get_attr("agent_pos")``).

    Args:
        vec: the vector env.
        row: the env.
    """

    def __init__(self, vec: MinigridVectorEnv, row: int):
        self._vec_ref = weakref.ref(vec)  # the env keeps these: no cycle keeps a freed env alive
        self._row = row
        # Where the id sets the agent's direction it is an int all episode (a batch does not track
        # whether the agent moved: agent_pos is a tuple of np.int64, its type after a move).
        self._dir_type = np.int64 if vec.spec_row.agent_start == "placed" else int

    @property
    def _vec(self) -> MinigridVectorEnv:  # type: ignore[override]  # the single env's is a plain attribute
        vec = self._vec_ref()
        if vec is None:
            raise ClosedEnvError("the env of these attributes was freed")
        return vec

    @property
    def _lock(self):
        return self._vec._lock

    @property
    def np_random(self) -> np.random.Generator:  # type: ignore[override]
        """The env's generator (``env_np_random``)."""
        return self._vec.env_np_random(self._row)

    def _write_state(self, state: dict[str, Any]) -> None:
        raise _read_only(f"{', '.join(state)} of one env of a batch", f"use set_state(state, index={self._row})")

    def _write_max_steps(self, limit: int) -> None:
        raise _read_only("max_steps of one env of a batch", "the batch's limit is its max_steps setting")
