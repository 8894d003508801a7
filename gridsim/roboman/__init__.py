"""The manipulation family (gridroboman): a 7x7 lift/put/stack world with 36 tasks.

Positions are ``(x, y)``: x the column 0..6 from the left, y the row 0..6 from the
top. Objects have fixed indices 0 = red, 1 = green, 2 = blue. See
``docs/roboman.md`` for the rules.
"""

from gridsim.roboman.tasks import (
    CENTER,
    CORNERS,
    GRID_SIZE,
    MAX_TIME,
    OBJECT_NAMES,
    TASK_KINDS,
    TASKS,
    Task,
    check_state,
    object_index,
    parse_task,
)

__all__ = [
    "CENTER",
    "CORNERS",
    "GRID_SIZE",
    "MAX_TIME",
    "OBJECT_NAMES",
    "TASKS",
    "TASK_KINDS",
    "Task",
    "check_state",
    "object_index",
    "parse_task",
]
