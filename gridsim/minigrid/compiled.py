"""Compiled tasks: a generator written in Python with gridsim's primitives, compiled to machine code.

A compiled task is a function of one argument, the world ``w``, that builds an episode's world
with the primitives of this module, each named as the Minigrid method it is (``rand_int``,
``wall_rect``, ``place_obj``, ``place_agent``, ...). :func:`task` compiles it with Numba
(``numba.cfunc``: no C compiler needed) into a C function; the kernel calls it at every reset,
on its own threads, without the GIL. The primitives are the kernel's own helpers, those its
built-in generators use: a generator that calls them in the order the Minigrid class calls its
methods draws exactly as that class does (check it with
``gridsim.minigrid.checking.compare_with_class``). Numba comes with the ``tasks`` extra
(``pip install "gridsim-vec[tasks]"``).

Example (DoorKey, as ``minigrid.envs.DoorKeyEnv._gen_grid`` writes it)::

    from gridsim.minigrid import compiled as gc

    @gc.task(width=8, height=8, max_steps=640, missions=("use the key to open the door and then get to the goal",))
    def doorkey(w):
        width, height = gc.width(w), gc.height(w)
        gc.wall_rect(w, 0, 0, width, height)
        gc.put(w, width - 2, height - 2, gc.GOAL, gc.GREEN, 0)
        split = gc.rand_int(w, 2, width - 2)
        gc.vert_wall(w, split, 0, height, gc.WALL, gc.GREY)
        gc.place_agent(w, 0, 0, split, height, 1, -1)
        door = gc.rand_int(w, 1, width - 2)
        gc.put(w, split, door, gc.DOOR, gc.YELLOW, gc.LOCKED)
        gc.place_obj(w, 0, 0, split, height, gc.KEY, gc.YELLOW, 0, 0, -1)
        return 0

    envs = gridsim.make(doorkey, num_envs=4096)

A generator returns 0, or -1 where the Minigrid class would raise (a placement that ran out of
tries: the env raises a ``KernelError``). Every primitive takes the world first, then ints, and
returns an int: an object is its ``OBJECT_TO_IDX`` index (:data:`WALL`, :data:`KEY`, ...), a
colour its ``COLOR_TO_IDX`` index (:data:`RED`, ...), a door's state :data:`OPEN`,
:data:`CLOSED` or :data:`LOCKED`; ``place_obj`` returns the cell as ``y * width + x``.

RoomGrid's methods are the ``room_*`` primitives: ``room_grid(w, room_size, num_rows, num_cols)``
(``RoomGrid._gen_grid``, on a grid of ``(room_size - 1) * num_cols + 1`` by
``(room_size - 1) * num_rows + 1`` cells) first, then ``room_place_agent``, ``room_add_door``
(returns the door's colour), ``room_add_object`` (returns ``object * 8 + colour``),
``room_place_in_room``, ``room_remove_wall`` and ``room_connect_all``, with rooms (i, j) and sides
k (0 right, 1 down, 2 left, 3 up) as Minigrid's, and -1 where Minigrid's argument is None.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gridsim.minigrid._kernel as _kernel
from gridsim.errors import GridSimError, InvalidArgumentError
from gridsim.minigrid.tasks import RULE_NAMES
from gridsim.minigrid.world import COLOR_TO_IDX, OBJECT_TO_IDX

__all__ = ["PRIMITIVES", "CompiledTask", "CompiledTaskEnv", "CompiledTaskVectorEnv", "task"]

# Objects (OBJECT_TO_IDX), colours (COLOR_TO_IDX) and a door's states (STATE_TO_IDX).
EMPTY, WALL, FLOOR, DOOR, KEY, BALL, BOX, GOAL, LAVA = (OBJECT_TO_IDX[name] for name in (
    "empty", "wall", "floor", "door", "key", "ball", "box", "goal", "lava"))
RED, GREEN, BLUE, PURPLE, YELLOW, GREY = (COLOR_TO_IDX[name] for name in (
    "red", "green", "blue", "purple", "yellow", "grey"))
OPEN, CLOSED, LOCKED = 0, 1, 2


def _primitive(name: str) -> Any:
    # The kernel's C function as a ctypes function, which Numba calls by its address.
    address, num_ints = _kernel.MINIGRID_PRIMITIVES[name]
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *([ctypes.c_int] * num_ints))
    return proto(address)


# The primitives, each Minigrid's method of the same name (the kernel's _primitives.pxi says how).
width = _primitive("width")
height = _primitive("height")
rand_int = _primitive("rand_int")
rand_bool = _primitive("rand_bool")
rand_color = _primitive("rand_color")
get = _primitive("get")
get_color = _primitive("get_color")
get_state = _primitive("get_state")
put = _primitive("put")
put_in_box = _primitive("put_in_box")
horz_wall = _primitive("horz_wall")
vert_wall = _primitive("vert_wall")
wall_rect = _primitive("wall_rect")
place_obj = _primitive("place_obj")
place_agent = _primitive("place_agent")
set_agent = _primitive("set_agent")
agent_x = _primitive("agent_x")
agent_y = _primitive("agent_y")
agent_dir = _primitive("agent_dir")
set_mission = _primitive("set_mission")
set_task = _primitive("set_task")
room_grid = _primitive("room_grid")
room_place_agent = _primitive("room_place_agent")
room_add_door = _primitive("room_add_door")
room_add_object = _primitive("room_add_object")
room_place_in_room = _primitive("room_place_in_room")
room_remove_wall = _primitive("room_remove_wall")
room_connect_all = _primitive("room_connect_all")
PRIMITIVES = tuple(_kernel.MINIGRID_PRIMITIVES)


class CompileError(GridSimError, TypeError):
    """Numba could not compile a task's generator (the message is Numba's, shortened)."""


@dataclass(frozen=True)
class CompiledTask:
    """A task whose generator is machine code: what :func:`task` returns; ``gridsim.make(it, N)`` plays it.

    Attributes:
        name: the task's name (``env_name``).
        width: the grid's width.
        height: the grid's height.
        max_steps: truncated when the step count reaches it; the success reward's scale.
        missions: the missions; the generator picks one with ``set_mission(w, k)`` (default 0).
        rule: the step's rule (a name of ``gridsim.minigrid.tasks.RULES``); the generator sets
            what it reads with ``set_task``.
        see_through_walls: the view shows every cell in range.
        agent_view_size: the view's side.
        num_actions: ``Discrete(num_actions)``.
        function: the Python function compiled.
        compile_seconds: how long Numba took.
    """

    name: str
    width: int
    height: int
    max_steps: int
    missions: tuple[str, ...]
    rule: str
    see_through_walls: bool
    agent_view_size: int
    num_actions: int
    function: Callable[..., Any] = field(repr=False)
    compile_seconds: float
    cfunc: Any = field(repr=False)  # keeps the machine code alive while a task refers to it

    def __copy__(self) -> CompiledTask:
        return self  # immutable, and its machine code is not copied (gym.make deep-copies its arguments)

    def __deepcopy__(self, memo: dict) -> CompiledTask:
        return self

    @property
    def address(self) -> int:
        """The generator's C function, ``int generator(World*)``."""
        return int(self.cfunc.address)

    def make_env(self, num_envs: int = 1, **kwargs: Any) -> CompiledTaskVectorEnv:
        """A batch of the task (``gridsim.make(task, num_envs, **kwargs)``; ``kwargs``: gridsim's settings)."""
        return CompiledTaskVectorEnv(num_envs, task=self, **kwargs)


def task(*, width: int, height: int | None = None, max_steps: int, missions: Sequence[str] = ("",),
         rule: str = "reach_goal", see_through_walls: bool = False, agent_view_size: int = 7, num_actions: int = 7,
         name: str | None = None) -> Callable[[Callable[..., Any]], CompiledTask]:
    """Compile a generator written with this module's primitives into a :class:`CompiledTask`.

    Args:
        width: the grid's width.
        height: its height (default: the width).
        max_steps: the episodes' step limit.
        missions: the task's missions (``set_mission`` picks one).
        rule: the step's rule (``gridsim.minigrid.tasks.RULES``; not BabyAI's).
        see_through_walls: the view shows every cell in range (Minigrid's argument).
        agent_view_size: the view's side (odd, 3..31).
        num_actions: ``Discrete(num_actions)`` (Dynamic-Obstacles' 3; default 7).
        name: the task's name (default: the function's).

    Raises:
        InvalidArgumentError: an argument out of range, or Numba is not installed.
        CompileError: Numba could not compile the function (not written with the primitives,
            ints and plain Python control flow).
    """
    height = width if height is None else height
    if rule not in RULE_NAMES or rule == "follow_instructions":
        raise InvalidArgumentError(f"rule must be one of {[r for r in RULE_NAMES if r != 'follow_instructions']}, "
                                   f"got {rule!r}")
    for what, value, low, high in (("width", width, 3, 255), ("height", height, 3, 255),
                                   ("max_steps", max_steps, 1, 2**31 - 1), ("num_actions", num_actions, 1, 7)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidArgumentError(f"{what} must be an int in {low}..{high}, got {value!r}")
    if not missions or not all(isinstance(m, str) for m in missions) or len(missions) > 0x7FFF:
        raise InvalidArgumentError("missions must be 1..32767 strings")
    try:
        import numba
    except ImportError:
        raise InvalidArgumentError('compiled tasks need Numba: pip install "gridsim-vec[tasks]"') from None

    def compile_task(function: Callable[..., Any]) -> CompiledTask:
        t = time.perf_counter()
        try:
            cfunc = numba.cfunc(numba.types.int32(numba.types.voidptr))(function)
        except numba.core.errors.NumbaError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise CompileError(f"Numba cannot compile {function.__name__}: {first} (a compiled task's generator "
                               "uses the primitives of gridsim.minigrid.compiled, ints and plain control flow)") from e
        return CompiledTask(name or function.__name__, width, int(height), max_steps, tuple(missions), rule,
                            bool(see_through_walls), agent_view_size, num_actions, function,
                            time.perf_counter() - t, cfunc)
    return compile_task


from gridsim.minigrid.env import MinigridEnv, MinigridVectorEnv  # noqa: E402  (the env imports nothing of here)
from gridsim.minigrid.tasks import MinigridSpec  # noqa: E402


class CompiledTaskVectorEnv(MinigridVectorEnv):
    """A batch of a compiled task (:func:`task`): every reset runs its generator in the kernel.

    Args:
        num_envs: N.
        task: the :class:`CompiledTask`.
        **kwargs: :class:`MinigridVectorEnv`'s arguments but ``env_name`` (``agent_view_size``
            and ``see_through_walls`` default to the task's).
    """

    SETTINGS = {k: v for k, v in MinigridVectorEnv.SETTINGS.items() if k != "env_name"}

    def __init__(self, num_envs: int = 1, *, task: CompiledTask, **kwargs: Any):
        if not isinstance(task, CompiledTask):
            raise InvalidArgumentError(f"task must be a CompiledTask (gridsim.minigrid.compiled.task), got "
                                       f"{type(task).__name__}")
        self.compiled_task = task
        kwargs.setdefault("agent_view_size", task.agent_view_size)
        kwargs.setdefault("see_through_walls", task.see_through_walls)
        super().__init__(num_envs, env_name=task.name, **kwargs)
        self.init_args["task"] = task
        self.init_args.pop("env_name", None)

    def _spec_of(self, env_name: str) -> MinigridSpec:
        t = self.compiled_task
        return MinigridSpec(t.name, "compiled", t.width, t.height, t.max_steps, t.see_through_walls, t.missions,
                            num_actions=t.num_actions, reference=False, rule=t.rule)

    def _kernel_config(self) -> dict[str, Any]:
        return {"fn": self.compiled_task.address}

    @property
    def _generator_failure(self) -> str:
        return f"{self.compiled_task.name}'s generator returned -1 (a placement ran out of tries)"


class CompiledTaskEnv(MinigridEnv):
    """One env of a compiled task: row 0 of its batch."""

    vector_class = CompiledTaskVectorEnv
