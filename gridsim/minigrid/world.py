"""Minigrid's world objects and grid, as ``env.unwrapped.grid`` and ``env.unwrapped.carrying`` show them.

The classes mirror Farama Minigrid 3.2.0's ``minigrid/core/world_object.py`` and
``minigrid/core/grid.py`` (gridsim never imports ``minigrid``): :class:`WorldObj` and its kinds
(:class:`Goal`, :class:`Floor`, :class:`Lava`, :class:`Wall`, :class:`Door`, :class:`Key`,
:class:`Ball`, :class:`Box`) with the same attributes and methods, and :class:`Grid` with its
flat list of cells (``grid.grid``, cell (x, y) at ``y * width + x``), ``get``, ``set``, ``encode``,
``decode``, ``slice``, ``rotate_left``, ``process_vis`` and ``render``.

When Minigrid's own classes are loaded (its wrappers load them), the objects made here are
instances of them too (a class deriving from both, gridsim's first), so that code written for
Minigrid that tests ``isinstance(obj, minigrid.core.world_object.Goal)`` (``DirectionObsWrapper``)
finds its goal; gridsim never imports ``minigrid`` itself.

An env's world lives in its kernel: the grid a gridsim env shows (:class:`EnvGrid`) and the
objects in it are read from its state, and they are read-only (a write raises
:class:`gridsim.errors.ReadOnlyAttributeError` naming ``set_state``, the way to change a world).
Grids and objects made here otherwise (``Grid(5, 5)``, ``Key("red")``, a slice of the env's grid,
``Grid.decode``) are free, as Minigrid's are.
"""

from __future__ import annotations

import copy as _copy
import sys
from collections.abc import Callable, Iterable, Sequence
from enum import IntEnum
from typing import Any, NoReturn

import numpy as np

import gridsim.minigrid._kernel as _kernel
from gridsim.errors import InvalidArgumentError, ReadOnlyAttributeError
from gridsim.minigrid.ids import COLOR_NAMES, STATE_NAMES
from gridsim.minigrid.render import draw_cell_tile, render_cells

__all__ = ["COLOR_TO_IDX", "DIR_TO_VEC", "IDX_TO_COLOR", "IDX_TO_OBJECT", "OBJECT_TO_IDX", "STATE_TO_IDX",
           "TILE_PIXELS", "Actions", "Ball", "Box", "Door", "EnvGrid", "Floor", "Goal", "Grid", "Key", "Lava", "Wall",
           "WorldObj", "cell_object", "contents_code", "contents_object", "minigrids_classes_loaded", "pprint_cells"]

# core/constants.py, in the kernel's numbering (which is Minigrid's).
OBJECT_TO_IDX: dict[str, int] = {name: int(k) for name, k in _kernel.MINIGRID_OBJECTS.items()}
IDX_TO_OBJECT = {k: name for name, k in OBJECT_TO_IDX.items()}
COLOR_TO_IDX = {name: k for k, name in enumerate(COLOR_NAMES)}
IDX_TO_COLOR = dict(enumerate(COLOR_NAMES))
STATE_TO_IDX = {name: k for k, name in enumerate(STATE_NAMES)}
TILE_PIXELS = 32  # the pixels per cell of Minigrid's render()


def _vector(dx: int, dy: int) -> np.ndarray:
    v = np.array((dx, dy))
    v.flags.writeable = False  # shared by every env, as Minigrid's are: never to be changed in place
    return v


# The agent's forward direction per agent_dir: right, down, left, up.
DIR_TO_VEC = (_vector(1, 0), _vector(0, 1), _vector(-1, 0), _vector(0, -1))


class Actions(IntEnum):
    """The actions of a Minigrid env (``env.actions``), in Minigrid's numbering."""

    left = 0
    right = 1
    forward = 2
    pickup = 3
    drop = 4
    toggle = 5
    done = 6


WRITE_HINT = "change the world with env.unwrapped.set_state({...}) (get_state()'s keys)"


def _refuse(what: str) -> NoReturn:
    raise ReadOnlyAttributeError(f"{what} is read-only: a gridsim env's world lives in its kernel; {WRITE_HINT}")


# ---------------------------------------------------------------- world objects


class WorldObj:
    """A world object (``core/world_object.py``'s ``WorldObj``).

    Attributes:
        type: its object name (``"key"``, ...).
        color: its colour name.
        contains: what a box holds (None otherwise).
        init_pos: where it was first placed: None for the objects of an env's grid (gridsim
            keeps no history).
        cur_pos: its cell ``(x, y)`` in an env's grid; ``np.array([-1, -1])`` while carried, as
            Minigrid sets it at a pickup.
    """

    _frozen = False  # an object of an env's world: read-only

    def __new__(cls, *args: Any, **kwargs: Any) -> WorldObj:
        """A new object (of Minigrid's class of the same name too, if it is loaded)."""
        return object.__new__(_with_minigrids_class(cls))

    def __init__(self, type: str, color: str):  # noqa: A002 - Minigrid's argument names
        if type not in OBJECT_TO_IDX:
            raise InvalidArgumentError(f"unknown object type {type!r}; Minigrid's are {list(OBJECT_TO_IDX)}")
        if color not in COLOR_TO_IDX:
            raise InvalidArgumentError(f"unknown colour {color!r}; Minigrid's are {list(COLOR_TO_IDX)}")
        self.type = type
        self.color = color
        self.contains: WorldObj | None = None
        self.init_pos: Any = None
        self.cur_pos: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            _refuse(f"{type(self).__name__}.{name} of an object of the env's world")
        object.__setattr__(self, name, value)

    def __reduce__(self):
        # Unpickled free, and of the classes loaded where it is unpickled.
        return _unpickle, (self.encode(), contents_code(self.contains), self.init_pos, self.cur_pos)

    def __deepcopy__(self, memo: dict) -> WorldObj:
        # A copy is free: Grid.copy() and copy.deepcopy give objects a program may change.
        out = object.__new__(type(self))
        memo[id(self)] = out
        for name, value in self.__dict__.items():
            if name != "_frozen":
                object.__setattr__(out, name, _copy.deepcopy(value, memo))
        return out

    def can_overlap(self) -> bool:
        """Can the agent overlap with this?"""
        return False

    def can_pickup(self) -> bool:
        """Can the agent pick this up?"""
        return False

    def can_contain(self) -> bool:
        """Can this contain another object?"""
        return False

    def see_behind(self) -> bool:
        """Can the agent see behind this object?"""
        return True

    def toggle(self, env: Any, pos: tuple[int, int]) -> bool:
        """What a toggle does to it (nothing here); ``env`` and ``pos`` as Minigrid's."""
        return False

    def encode(self) -> tuple[int, int, int]:
        """``(object, colour, state)`` in Minigrid's tables."""
        return (OBJECT_TO_IDX[self.type], COLOR_TO_IDX[self.color], 0)

    @staticmethod
    def decode(type_idx: int, color_idx: int, state: int) -> WorldObj | None:
        """A free object of an encoding (None for empty, unseen and the agent)."""
        return _make(int(type_idx), int(color_idx), int(state))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.color!r})"


class Goal(WorldObj):
    """The goal square: the agent may stand on it."""

    def __init__(self, color: str = "green"):
        super().__init__("goal", color)

    def can_overlap(self) -> bool:
        """Yes."""
        return True


class Floor(WorldObj):
    """A coloured floor tile the agent walks over."""

    def __init__(self, color: str = "blue"):
        super().__init__("floor", color)

    def can_overlap(self) -> bool:
        """Yes."""
        return True


class Lava(WorldObj):
    """Lava: stepping on it ends the episode."""

    def __init__(self):
        super().__init__("lava", "red")

    def can_overlap(self) -> bool:
        """Yes."""
        return True


class Wall(WorldObj):
    """A wall: the agent neither passes nor sees through it."""

    def __init__(self, color: str = "grey"):
        super().__init__("wall", color)

    def see_behind(self) -> bool:
        """No."""
        return False


class Door(WorldObj):
    """A door: open, closed or locked (a key of its colour unlocks and opens it in one toggle)."""

    def __init__(self, color: str, is_open: bool = False, is_locked: bool = False):
        super().__init__("door", color)
        self.is_open = is_open
        self.is_locked = is_locked

    def can_overlap(self) -> bool:
        """Only when open."""
        return self.is_open

    def see_behind(self) -> bool:
        """Only when open."""
        return self.is_open

    def toggle(self, env: Any, pos: tuple[int, int]) -> bool:
        """Open or close it; a locked one opens only for a key of its colour carried by ``env``."""
        if self.is_locked:
            carried = env.carrying
            if isinstance(carried, Key) and carried.color == self.color:
                self.is_locked = False
                self.is_open = True
                return True
            return False
        self.is_open = not self.is_open
        return True

    def encode(self) -> tuple[int, int, int]:
        """``(door, colour, state)``: state 0 open, 1 closed, 2 locked."""
        state = 0 if self.is_open else 2 if self.is_locked else 1
        return (OBJECT_TO_IDX[self.type], COLOR_TO_IDX[self.color], state)

    def __repr__(self) -> str:
        return f"Door({self.color!r}, is_open={self.is_open}, is_locked={self.is_locked})"


class Key(WorldObj):
    """A key: picked up; opens the locked doors of its colour."""

    def __init__(self, color: str = "blue"):
        super().__init__("key", color)

    def can_pickup(self) -> bool:
        """Yes."""
        return True


class Ball(WorldObj):
    """A ball: picked up."""

    def __init__(self, color: str = "blue"):
        super().__init__("ball", color)

    def can_pickup(self) -> bool:
        """Yes."""
        return True


class Box(WorldObj):
    """A box: picked up; a toggle replaces it by what it contains."""

    def __init__(self, color: str, contains: WorldObj | None = None):
        super().__init__("box", color)
        self.contains = contains

    def can_pickup(self) -> bool:
        """Yes."""
        return True

    def toggle(self, env: Any, pos: tuple[int, int]) -> bool:
        """Put what it contains in its place (``env.grid.set``: refused on a gridsim env's grid)."""
        env.grid.set(pos[0], pos[1], self.contains)
        return True


_KINDS: dict[str, Callable[..., WorldObj]] = {"wall": Wall, "floor": Floor, "ball": Ball, "key": Key, "box": Box,
                                              "goal": lambda color: Goal(), "lava": lambda color: Lava()}


# Minigrid's module of world objects, when something loaded it: our kinds then derive from its too.
_MINIGRIDS_OBJECTS = "minigrid.core.world_object"
_WITH_MINIGRIDS: dict[type, type] = {}


def minigrids_classes_loaded() -> bool:
    """Whether Minigrid's world object classes are loaded (the objects made now derive from them too)."""
    return sys.modules.get(_MINIGRIDS_OBJECTS) is not None


def _with_minigrids_class(cls: type) -> type:
    """``cls``, or a class deriving from it and from Minigrid's class of the same name if Minigrid's is loaded."""
    if cls.__module__ != __name__:  # a program's own subclass: as it is
        return cls
    module = sys.modules.get(_MINIGRIDS_OBJECTS)
    theirs = getattr(module, cls.__name__, None) if module is not None else None
    if not isinstance(theirs, type):
        return cls
    both = _WITH_MINIGRIDS.get(cls)
    if both is None or not issubclass(both, theirs):  # (a reloaded minigrid: its classes are new)
        both = type(cls.__name__, (cls, theirs), {"__module__": __name__, "__qualname__": cls.__qualname__,
                                                  "__doc__": cls.__doc__})
        _WITH_MINIGRIDS[cls] = both
    return both


def _unpickle(encoding: tuple[int, int, int], contents: int, init_pos: Any, cur_pos: Any) -> WorldObj | None:
    obj = _make(*encoding)
    if obj is not None:
        obj.contains = contents_object(contents)
        obj.init_pos = init_pos
        obj.cur_pos = cur_pos
    return obj


def _make(type_idx: int, color_idx: int, state: int) -> WorldObj | None:
    # WorldObj.decode: a goal is green and lava red whatever the colour byte says.
    name = IDX_TO_OBJECT[type_idx]
    if name in ("empty", "unseen", "agent"):
        return None
    color = IDX_TO_COLOR[color_idx]
    if name == "door":
        return Door(color, state == 0, state == 2)
    return _KINDS[name](color)


def contents_code(obj: Any, where: str = "a box") -> int:
    """A box's contents as the kernel stores them: 0 for none, else ``1 + object * 8 + colour``.

    Opening the box puts down a fresh object of that type and colour, so only what that
    recreates is accepted: an empty box, an open door, any other object gridsim has.

    Args:
        obj: the box's ``contains`` (None: nothing).
        where: the box, for messages (``"the box at (3, 4)"``).

    Raises:
        InvalidArgumentError: ``obj`` is not one of those (a box that holds something, a
            closed or locked door, an object or colour gridsim does not have).
    """
    if obj is None:
        return 0
    kind, color = str(getattr(obj, "type", None)), str(getattr(obj, "color", None))
    if not OBJECT_TO_IDX["wall"] <= OBJECT_TO_IDX.get(kind, -1) <= OBJECT_TO_IDX["lava"] or color not in COLOR_TO_IDX:
        raise InvalidArgumentError(f"{where} holds a {color} {kind}, which gridsim cannot put in a box")
    if kind == "box" and obj.contains is not None:
        raise InvalidArgumentError(
            f"{where} holds a {color} box that holds a {obj.contains.color} {obj.contains.type}: gridsim keeps "
            "one object in a box, so a box in a box must be empty")
    if kind == "door" and not obj.is_open:
        state = "locked" if obj.is_locked else "closed"
        raise InvalidArgumentError(
            f"{where} holds a {state} {color} door: gridsim keeps the object and colour in a box, and a door "
            "that comes out of one is open")
    return 1 + OBJECT_TO_IDX[kind] * 8 + COLOR_TO_IDX[color]


def contents_object(code: int) -> WorldObj | None:
    """The object of a box's contents code (0: none, else ``1 + object * 8 + colour``), free."""
    if code == 0:
        return None
    return _make((code - 1) >> 3, (code - 1) & 7, 0)


def cell_object(cell: Sequence[int], pos: Any) -> WorldObj | None:
    """The read-only object of a state cell ``(object, colour, state, contents)`` at ``pos`` (None: empty).

    Args:
        cell: the cell's four bytes (``MinigridState.grid``'s layout; the carried object's too).
        pos: its ``cur_pos``.
    """
    obj = _make(int(cell[0]), int(cell[1]), int(cell[2]))
    if obj is None:
        return None
    if obj.type == "box":
        obj.contains = contents_object(int(cell[3]))
    obj.cur_pos = pos
    object.__setattr__(obj, "_frozen", True)
    if obj.contains is not None:
        object.__setattr__(obj.contains, "_frozen", True)
    return obj


# ---------------------------------------------------------------- the grid


class Grid:
    """A grid of world objects (``core/grid.py``'s ``Grid``): ``grid[y * width + x]`` is cell (x, y)."""

    def __init__(self, width: int, height: int):
        if width < 3 or height < 3:
            raise InvalidArgumentError(f"a grid is at least 3 x 3, got {width} x {height}")
        self.width: int = width
        self.height: int = height
        self.grid: list[WorldObj | None] = [None] * (width * height)

    def __contains__(self, key: Any) -> bool:
        if isinstance(key, WorldObj):
            return any(e is key for e in self.grid)
        if isinstance(key, tuple):
            for e in self.grid:
                if e is None:
                    continue
                if (e.color, e.type) == key or (key[0] is None and key[1] == e.type):
                    return True
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and np.array_equal(other.encode(), self.encode())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # as Minigrid's (it defines __eq__)

    def copy(self) -> Grid:
        """A free deep copy (``Grid`` even of an env's grid)."""
        out = Grid(self.width, self.height)
        out.grid = _copy.deepcopy(list(self.grid))
        return out

    def set(self, i: int, j: int, v: WorldObj | None) -> None:
        """Put ``v`` at (i, j)."""
        if not (0 <= i < self.width and 0 <= j < self.height):
            raise IndexError(f"cell ({i}, {j}) outside a {self.width} x {self.height} grid")
        self.grid[j * self.width + i] = v

    def get(self, i: int, j: int) -> WorldObj | None:
        """The object at (i, j) (None: empty)."""
        if not (0 <= i < self.width and 0 <= j < self.height):
            raise IndexError(f"cell ({i}, {j}) outside a {self.width} x {self.height} grid")
        return self.grid[j * self.width + i]

    def horz_wall(self, x: int, y: int, length: int | None = None, obj_type: Callable[[], WorldObj] = Wall) -> None:
        """A row of ``obj_type()`` from (x, y)."""
        for i in range(self.width - x if length is None else length):
            self.set(x + i, y, obj_type())

    def vert_wall(self, x: int, y: int, length: int | None = None, obj_type: Callable[[], WorldObj] = Wall) -> None:
        """A column of ``obj_type()`` from (x, y)."""
        for j in range(self.height - y if length is None else length):
            self.set(x, y + j, obj_type())

    def wall_rect(self, x: int, y: int, w: int, h: int) -> None:
        """The walls around a w x h rectangle from (x, y)."""
        self.horz_wall(x, y, w)
        self.horz_wall(x, y + h - 1, w)
        self.vert_wall(x, y, h)
        self.vert_wall(x + w - 1, y, h)

    def rotate_left(self) -> Grid:
        """A free grid turned a quarter counter-clockwise (the same objects)."""
        out = Grid(self.height, self.width)
        for i in range(self.width):
            for j in range(self.height):
                out.set(j, out.height - 1 - i, self.get(i, j))
        return out

    def slice(self, topX: int, topY: int, width: int, height: int) -> Grid:  # noqa: N803 - Minigrid's names
        """A free grid of the cells from (topX, topY); cells outside the grid are new grey walls."""
        out = Grid(width, height)
        for j in range(height):
            for i in range(width):
                x, y = topX + i, topY + j
                out.set(i, j, self.get(x, y) if 0 <= x < self.width and 0 <= y < self.height else Wall())
        return out

    def encode(self, vis_mask: np.ndarray | None = None) -> np.ndarray:
        """uint8 (width, height, 3): each cell's ``(object, colour, state)``; unseen (0, 0, 0) outside ``vis_mask``."""
        array = np.zeros((self.width, self.height, 3), dtype="uint8")
        for i in range(self.width):
            for j in range(self.height):
                if vis_mask is None or vis_mask[i, j]:
                    v = self.get(i, j)
                    array[i, j] = (OBJECT_TO_IDX["empty"], 0, 0) if v is None else v.encode()
        return array

    @staticmethod
    def decode(array: np.ndarray) -> tuple[Grid, np.ndarray]:
        """A free grid of an encoding, and its mask of cells not unseen."""
        width, height, channels = array.shape
        if channels != 3:
            raise InvalidArgumentError(f"an encoding is (width, height, 3), got {array.shape}")
        grid = Grid(width, height)
        for i in range(width):
            for j in range(height):
                grid.set(i, j, WorldObj.decode(*array[i, j]))
        return grid, array[..., 0] != OBJECT_TO_IDX["unseen"]

    def process_vis(self, agent_pos: tuple[int, int]) -> np.ndarray:
        """Minigrid's visibility sweep from ``agent_pos``: bool (width, height); unseen cells are emptied."""
        mask = np.zeros((self.width, self.height), dtype=bool)
        mask[agent_pos[0], agent_pos[1]] = True
        for j in reversed(range(self.height)):
            for i in range(self.width - 1):
                cell = self.get(i, j)
                if mask[i, j] and not (cell and not cell.see_behind()):
                    mask[i + 1, j] = True
                    if j > 0:
                        mask[i + 1, j - 1] = mask[i, j - 1] = True
            for i in reversed(range(1, self.width)):
                cell = self.get(i, j)
                if mask[i, j] and not (cell and not cell.see_behind()):
                    mask[i - 1, j] = True
                    if j > 0:
                        mask[i - 1, j - 1] = mask[i, j - 1] = True
        for j in range(self.height):
            for i in range(self.width):
                if not mask[i, j]:
                    self.set(i, j, None)
        return mask

    @classmethod
    def render_tile(cls, obj: WorldObj | None, agent_dir: int | None = None, highlight: bool = False,
                    tile_size: int = TILE_PIXELS, subdivs: int = 3) -> np.ndarray:
        """One cell's uint8 (tile_size, tile_size, 3) tile, pixel for pixel Minigrid's (``subdivs`` must be 3)."""
        if subdivs != 3:
            raise InvalidArgumentError("gridsim draws Minigrid's tiles with subdivs=3 (Minigrid's default) only")
        return draw_cell_tile(None if obj is None else obj.encode(), tile_size, agent_dir, highlight)

    def render(self, tile_size: int, agent_pos: Any, agent_dir: int | None = None,
               highlight_mask: np.ndarray | None = None) -> np.ndarray:
        """The grid drawn, uint8 (height * tile_size, width * tile_size, 3), as Minigrid draws it."""
        return render_cells(self.encode(), tile_size, agent_pos, agent_dir, highlight_mask)


class _ReadOnlyCells(list):
    """An env grid's flat list of cells: reads as a list, refuses every change."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("the env's grid.grid")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __deepcopy__(self, memo: dict) -> list:
        return [_copy.deepcopy(v, memo) for v in self]

    def __reduce__(self):
        return list, (list(self),)


class EnvGrid(Grid):
    """The grid of a gridsim env's world (``env.unwrapped.grid``): read from its state, read-only.

    ``encode()`` of the whole grid is read from the state's bytes. A cell's object stays the same
    object while the cell does not change.

    Args:
        cells: uint8 (H, W, 4): the state's cells, ``[y, x]`` (``MinigridState.grid``'s row).
        previous: the grid of the env's previous state, whose objects are kept for the cells
            that did not change.
    """

    cells: np.ndarray  # a copy of the state's cells it shows
    minigrids_classes: bool  # its objects derive from Minigrid's classes too

    def __init__(self, cells: np.ndarray, previous: EnvGrid | None = None):
        H, W = cells.shape[:2]
        object.__setattr__(self, "width", int(W))
        object.__setattr__(self, "height", int(H))
        object.__setattr__(self, "cells", cells.copy())
        object.__setattr__(self, "minigrids_classes", minigrids_classes_loaded())
        objects: list[WorldObj | None]
        if (previous is not None and previous.cells.shape == cells.shape
                and previous.minigrids_classes == self.minigrids_classes):
            objects = list(previous.grid)
            changed = np.flatnonzero((previous.cells != cells).any(axis=-1).reshape(-1)).tolist()
        else:
            objects = [None] * (W * H)
            changed = np.flatnonzero(cells[..., 0].reshape(-1) != OBJECT_TO_IDX["empty"]).tolist()
        flat = cells.reshape(-1, 4)
        for k in changed:
            objects[k] = cell_object(flat[k], (k % W, k // W))
        object.__setattr__(self, "grid", _ReadOnlyCells(objects))

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse(f"the env's grid.{name}")

    def set(self, i: int, j: int, v: WorldObj | None) -> None:
        """Refused: a gridsim env's grid is read-only."""
        _refuse("the env's grid (grid.set)")

    def encode(self, vis_mask: np.ndarray | None = None) -> np.ndarray:
        """uint8 (width, height, 3), as :meth:`Grid.encode`, read from the state."""
        out = np.ascontiguousarray(self.cells[..., :3].transpose(1, 0, 2))
        if vis_mask is not None:
            out[~np.asarray(vis_mask, bool)] = 0
        return out

    def __reduce__(self):
        return EnvGrid, (self.cells,)


def pprint_cells(cells: np.ndarray, agent_pos: Iterable[int], agent_dir: int, dir_letters: str = ">V<^") -> str:
    """Minigrid's ``pprint_grid``: two letters a cell (object, colour initial), the agent as its direction twice.

    Args:
        cells: (W, H, 3) the grid's encoding.
        agent_pos: the agent's (x, y).
        agent_dir: its direction.
        dir_letters: the agent's letter per direction (Minigrid's ``">V<^"``).
    """
    letters = {"wall": "W", "floor": "F", "door": "D", "key": "K", "ball": "A", "box": "B", "goal": "G", "lava": "V"}
    ax, ay = (int(v) for v in agent_pos)
    W, H = cells.shape[:2]
    rows = []
    for y in range(H):
        row = []
        for x in range(W):
            if (x, y) == (ax, ay):
                row.append(2 * dir_letters[int(agent_dir)])
                continue
            obj, color, state = (int(c) for c in cells[x, y])
            name, initial = IDX_TO_OBJECT[obj], IDX_TO_COLOR[color][0].upper()
            if name == "empty":
                row.append("  ")
            elif name == "door":
                row.append("__" if state == 0 else ("L" if state == 2 else "D") + initial)
            else:
                row.append(letters[name] + initial)
        rows.append("".join(row))
    return "\n".join(rows)
