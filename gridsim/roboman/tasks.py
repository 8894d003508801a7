"""Gridroboman's 36 tasks as data: (kind, x object, y object), ids from table position."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gridsim.errors import InvalidArgumentError

GRID_SIZE = 7
MAX_TIME = 50
OBJECT_NAMES = ("red", "green", "blue")

# Goal kinds; the kernel dispatches on the same numbers (their position here).
TASK_KINDS = (
    "Lift{X}",  # held == X
    "Touch{X}",  # nothing held and the agent next to X
    "Move{X}ToCenter",  # nothing held and X in the central 3x3
    "Move{X}ToCorner",  # nothing held and X in a corner 2x2 block
    "Touch{X}With{Y}",  # Y held and the agent next to X
    "Move{X}CloseTo{Y}",  # nothing held and X within one cell of Y (diagonals and stacked count)
    "Move{X}FarFrom{Y}",  # nothing held and |dx| + |dy| > 9
    "Stack{X}On{Y}",  # X directly on Y
)
TWO_OBJECT_KINDS = frozenset(k for k, name in enumerate(TASK_KINDS) if "{Y}" in name)

CENTER = frozenset((x, y) for x in range(2, 5) for y in range(2, 5))
CORNERS = frozenset((x, y) for x in (0, 1, 5, 6) for y in (0, 1, 5, 6))


@dataclass(frozen=True)
class Task:
    """One task: its goal kind and objects (``y_obj = -1`` for one-object tasks)."""

    kind: int
    x_obj: int
    y_obj: int = -1

    @property
    def name(self) -> str:
        """The task's name, e.g. ``"StackRedOnGreen"``."""
        x = OBJECT_NAMES[self.x_obj].capitalize()
        y = OBJECT_NAMES[self.y_obj].capitalize() if self.y_obj >= 0 else ""
        return TASK_KINDS[self.kind].format(X=x, Y=y)

    @property
    def env_id(self) -> str:
        """The registered Gymnasium id."""
        return f"gridsim/Gridroboman-{self.name}-v0"


def _all_tasks() -> tuple[Task, ...]:
    tasks = []
    for kind in range(len(TASK_KINDS)):
        for x in range(3):
            if kind in TWO_OBJECT_KINDS:
                tasks += [Task(kind, x, y) for y in range(3) if y != x]
            else:
                tasks.append(Task(kind, x))
    return tuple(tasks)


TASKS: tuple[Task, ...] = _all_tasks()  # task id == position
TASK_IDS: Mapping[str, int] = {t.name: i for i, t in enumerate(TASKS)}
assert len(TASKS) == 36 and len(TASK_IDS) == 36


def object_index(obj, what: str = "object") -> int:
    """0..2 from ``"red"``/``"green"``/``"blue"`` or an int 0..2."""
    if isinstance(obj, str) and obj.lower() in OBJECT_NAMES:
        return OBJECT_NAMES.index(obj.lower())
    if isinstance(obj, int) and not isinstance(obj, bool) and 0 <= obj <= 2:
        return obj
    raise InvalidArgumentError(f"{what} must be one of {list(OBJECT_NAMES)} or 0..2, got {obj!r}")


def _no_object(obj) -> bool:
    """None or -1: a one-object task's missing Y."""
    return obj is None or (isinstance(obj, int) and not isinstance(obj, bool) and obj == -1)


def parse_task(task: str, x_obj=None, y_obj=None) -> Task:
    """A task from a full name (``"StackRedOnGreen"``) or a kind plus objects.

    Args:
        task: a full name, or a kind name with placeholders (``"LiftX"``, ``"StackXOnY"``).
        x_obj: the X object for a kind name (a name or 0..2).
        y_obj: the Y object for a two-object kind (``-1`` or None for one-object kinds).
    """
    if not isinstance(task, str):
        raise InvalidArgumentError(f"task must be a task name such as 'LiftRed' or 'LiftX', got {task!r}")
    if task in TASK_IDS:
        if x_obj is not None or not _no_object(y_obj):
            t = TASKS[TASK_IDS[task]]
            if object_index(x_obj, "x_obj") != t.x_obj or (
                    not _no_object(y_obj) and object_index(y_obj, "y_obj") != t.y_obj):
                raise InvalidArgumentError(f"task {task!r} names its objects; x_obj/y_obj disagree")
        return TASKS[TASK_IDS[task]]
    kinds = {name.replace("{X}", "X").replace("{Y}", "Y"): k for k, name in enumerate(TASK_KINDS)}
    if task not in kinds:
        raise InvalidArgumentError(
            f"unknown task {task!r}; use a full name such as 'StackRedOnGreen' or a kind "
            f"{sorted(kinds)} with x_obj (and y_obj)"
        )
    kind = kinds[task]
    x = object_index("red" if x_obj is None else x_obj, "x_obj")
    if kind in TWO_OBJECT_KINDS:
        if _no_object(y_obj):
            raise InvalidArgumentError(f"task {task} needs y_obj")
        y = object_index(y_obj, "y_obj")
        if x == y:
            raise InvalidArgumentError("X object and Y object must be different")
        return Task(kind, x, y)
    if not _no_object(y_obj):
        raise InvalidArgumentError(f"task {task} takes no y_obj (got {y_obj!r})")
    return Task(kind, x)


def check_state(state: Mapping) -> list[str]:
    """The reachable-state invariants a state dict breaks (empty for a reachable state).

    The env accepts any well-typed state and steps it exactly as the original would;
    this only reports what cannot arise from a reset followed by steps.
    """
    problems = []
    objs = state["objs"]
    held = state["lifted_obj_idx"]
    ax, ay = state["agent_pos"]
    for i, o in enumerate(objs):
        for link, back in (("obj_above", "obj_below"), ("obj_below", "obj_above")):
            j = o[link]
            if j is not None:
                if j == i:
                    problems.append(f"object {i} is linked to itself ({link})")
                elif objs[j][back] != i:
                    problems.append(f"object {i}.{link} = {j} but object {j}.{back} = {objs[j][back]}")
                elif (objs[j]["x"], objs[j]["y"]) != (o["x"], o["y"]):
                    problems.append(f"linked objects {i} and {j} are on different cells")
    if held is not None:
        o = objs[held]
        if (o["x"], o["y"]) != (ax, ay):
            problems.append(f"held object {held} is at {(o['x'], o['y'])}, not at the agent {(ax, ay)}")
        if o["obj_above"] is not None or o["obj_below"] is not None:
            problems.append(f"held object {held} has stack links")
    free = [i for i in range(3) if i != held]
    for a in free:
        for b in free:
            if a < b and (objs[a]["x"], objs[a]["y"]) == (objs[b]["x"], objs[b]["y"]):
                same_stack = _stack_of(objs, a) == _stack_of(objs, b)
                if not same_stack:
                    problems.append(f"objects {a} and {b} share a cell without being stacked")
    return problems


def _stack_of(objs, i: int) -> frozenset:
    seen = {i}
    for link in ("obj_above", "obj_below"):
        j = objs[i][link]
        while j is not None and j not in seen:
            seen.add(j)
            j = objs[j][link]
    return frozenset(seen)
