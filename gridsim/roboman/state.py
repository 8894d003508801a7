"""The manipulation family's batch state: every array of a batch of gridroboman envs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import gridsim.roboman._kernel as _kernel
from gridsim.engine.events import num_fields
from gridsim.engine.state import BatchState, StateView
from gridsim.roboman.api import ROBOMAN_EVENTS
from gridsim.roboman.fields import FIELDS as ROBOMAN_FIELDS
from gridsim.roboman.tasks import TASKS

__all__ = ["RobomanState"]


class RobomanState(BatchState):
    """All arrays of a batch of gridroboman envs.

    Positions are ``(x, y)`` (column, row), as in the original; -1 stands for None
    in the link and held fields. Every field is stored verbatim.

    Args:
        num_envs: N.
        task_set: task ids (rows of ``gridsim.roboman.TASKS``) an env draws from at reset.
        obs_kind: 0 for the 11-float vector, 1 for the 7 x 7 x 4 grid.
        task_in_obs: append a one-hot of the env's task (over ``task_set``) to the vector.
        autoreset_mode: the kernel's AUTORESET_* code.
        max_steps: truncated on the step where the timer reaches it.
        exclude_solved: redraw placements whose goal already holds.
        events: the kernel records events (``gridsim.roboman.api.ROBOMAN_EVENTS``).
        max_events: event slots per env and step.
    """

    FIELDS = ROBOMAN_FIELDS  # the family's own arrays (gridsim/roboman/fields.py)

    # int64 in the kernel, saturating at 2**31 - 1 like every family's count (BatchState.STEP_MAX).
    STEP_FIELD = "timer"
    MAX_STEPS_DTYPE = np.int64

    # The parts of a record: name -> (first column, columns, lowest value, highest value, meaning).
    RECORD_PARTS = {
        "agent": ("AX", 2, 0, 6, "(x, y on the 7x7 grid)"),
        "objects": ("OBJ", 6, 0, 6, "(x, y of red, green, blue on the 7x7 grid)"),
        "above": ("ABOVE", 3, -1, 2, "(-1 = None, else an object: 0 red, 1 green, 2 blue)"),
        "below": ("BELOW", 3, -1, 2, "(-1 = None, else an object: 0 red, 1 green, 2 blue)"),
        "held": ("HELD", 1, -1, 2, "(-1 = None, else an object: 0 red, 1 green, 2 blue)"),
    }

    def __init__(self, num_envs: int, task_set: Sequence[int], *, obs_kind: int = 0,
                 task_in_obs: bool = False, autoreset_mode: int = 0, max_steps: int = 50,
                 exclude_solved: bool = False, events: bool = False, max_events: int = 16):
        N = int(num_envs)
        self.num_envs = N
        self.obs_kind = obs_kind
        self.task_in_obs = int(bool(task_in_obs))
        self.autoreset_mode = autoreset_mode
        self.max_steps = int(max_steps)
        self.exclude_solved = int(bool(exclude_solved))
        # ---- tables
        self.task_kind = np.array([t.kind for t in TASKS], np.int8)  # (36,)
        self.task_x = np.array([t.x_obj for t in TASKS], np.int8)  # (36,)
        self.task_y = np.array([t.y_obj for t in TASKS], np.int8)  # (36,)
        self.task_set = np.asarray(task_set, np.int16)  # (K,)
        for arr in (self.task_kind, self.task_x, self.task_y, self.task_set):
            arr.setflags(write=False)
        # ---- per-env state
        self.allocate(units=N, rows=N, obs_shape=self.obs_shape, obs_dtype=np.float32 if obs_kind == 0 else np.uint8,
                      autoreset_mode=self.autoreset_mode, max_steps=self.max_steps, events=events,
                      max_events=max_events, num_event_fields=num_fields(ROBOMAN_EVENTS), N=N,
                      S=_kernel.ROBOMAN_RECORD["SIZE"])
        # Named views of the record, at the kernel's offsets (R_* in roboman/_kernel.pyx).
        r = _kernel.ROBOMAN_RECORD
        self.agent = self.record[:, r["AX"] : r["AX"] + 2]  # (N, 2) (x, y)
        self.obj_pos = self.record[:, r["OBJ"] : r["OBJ"] + 6].reshape(N, 3, 2)  # (N, 3, 2) (x, y) of r, g, b
        self.above = self.record[:, r["ABOVE"] : r["ABOVE"] + 3]  # (N, 3) object on top, -1 = None
        self.below = self.record[:, r["BELOW"] : r["BELOW"] + 3]  # (N, 3) object underneath, -1 = None
        self.held = self.record[:, r["HELD"]]  # (N,) lifted object, -1 = None
        self.task = self.record[:, r["TASK"]]  # (N,) task id
        assert np.shares_memory(self.obj_pos, self.record)
        # An env never reset holds a world of valid fields (all at (0, 0), nothing linked or held,
        # the first task), so that a batch never reset copies, saves and loads like any other.
        self.agent[:] = 0
        self.obj_pos[:] = 0
        self.task[:] = self.task_set[0]

    def check_own(self, v: StateView):
        """Every record field in its range, and the task that of the env's slot.

        Links need not agree: inconsistent states evolve as in the original, and the kernel reads
        nothing outside the record.
        """
        layout = _kernel.ROBOMAN_RECORD
        record = v["record"]
        for part, (start, width, lo, hi, meaning) in self.RECORD_PARTS.items():
            first = layout[start]
            v.in_range("record", lo, hi, meaning, values=record[:, first : first + width], part=part)
        v.in_range("task_slot", 0, len(self.task_set) - 1, "(an index into the env's task list)")
        task = record[:, layout["TASK"]]
        v.require("record", task == self.task_set[v["task_slot"]], "the task id task_set[task_slot]", shown=task,
                  part="task")
        v.in_range("action_mask", 0, 1)

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """Shape of one env's observation."""
        if self.obs_kind == 0:
            return (11 + (len(self.task_set) if self.task_in_obs else 0),)
        return (7, 7, 4)
