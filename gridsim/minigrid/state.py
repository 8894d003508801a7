"""The MiniGrid family's batch state: every array of a batch of Minigrid envs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import gridsim.minigrid._kernel as _kernel
from gridsim.engine.state import BatchState, StateView
from gridsim.minigrid.fields import FIELDS as MINIGRID_FIELDS
from gridsim.minigrid.render import TILE_OF, tile_atlas

__all__ = ["MinigridState"]

OBJ = _kernel.MINIGRID_OBJECTS


class MinigridState(BatchState):
    """All arrays of a batch of Minigrid envs of one id.

    Cells hold Minigrid's own encoding, ``(object, colour, state)`` of ``minigrid.core.constants``
    plus a box's contents (0: none, else ``1 + object * 8 + colour``); an empty cell is
    ``(1, 0, 0, 0)``. Positions are ``(x, y)`` (column, row), as in Minigrid. ``bitgen`` is each
    env's numpy generator: ``(state >> 64, state & mask, inc >> 64, inc & mask, has_uint32,
    uinteger)`` of ``numpy.random.PCG64().state`` (``gridsim.minigrid.rng`` converts).

    With an RGB observation kind the state also holds what the kernel copies its pictures
    from, shared by every batch of the same tile size and never saved: ``atlas``, the flat
    read-only uint8 tiles of ``gridsim.minigrid.render.tile_atlas(tile_size)``, and
    ``tile_of``, (512,) int16 ``render.TILE_OF`` (a cell's drawing).

    Args:
        num_envs: N.
        config: the id's kernel configuration (``MinigridSpec.config`` with ``view``).
        obs_kind: the kernel's MINIGRID_OBS_* kind.
        autoreset_mode: the kernel's AUTORESET_* code.
        max_steps: truncated when the step count reaches it (0: never).
        events: the kernel records events (the family has none yet).
        max_events: event slots per env and step.
        tile_size: pixels per cell of the RGB observations.
    """

    FIELDS = MINIGRID_FIELDS  # the family's own arrays (gridsim/minigrid/fields.py)

    STEP_FIELD = "step_count"
    REWARD_DTYPE = np.float64

    def __init__(self, num_envs: int, config: Mapping[str, Any], *, obs_kind: int, autoreset_mode: int = 0,
                 max_steps: int = 0, events: bool = False, max_events: int = 16, tile_size: int = 8):
        N = int(num_envs)
        self.num_envs = N
        self.config = dict(config)
        self.obs_kind = obs_kind
        self.autoreset_mode = autoreset_mode
        self.max_steps = int(max_steps)
        W, H, V = self.config["width"], self.config["height"], self.config["view"]
        ts = self.tile_size = int(tile_size)
        obs_shape = {_kernel.MINIGRID_OBS_VIEW: (V, V, 3), _kernel.MINIGRID_OBS_FULL: (W, H, 3),
                     _kernel.MINIGRID_OBS_RGB: (V * ts, V * ts, 3),
                     _kernel.MINIGRID_OBS_RGB_FULL: (H * ts, W * ts, 3)}[obs_kind]
        if obs_kind in (_kernel.MINIGRID_OBS_RGB, _kernel.MINIGRID_OBS_RGB_FULL):
            # The tiles the kernel copies (read-only, shared by every state of this size).
            self.atlas = tile_atlas(ts).tiles.reshape(-1)
            self.tile_of = TILE_OF.reshape(-1)
        self.allocate(units=N, rows=N, obs_shape=obs_shape, obs_dtype=np.uint8, autoreset_mode=self.autoreset_mode,
                      max_steps=self.max_steps, events=events, max_events=max_events, num_event_fields=1, H=H, W=W,
                      T=_kernel.MINIGRID_TASK_SLOTS, **_babyai_dims(self.config))
        self.grid[..., 0] = OBJ["empty"]
        self.carrying[:, 0] = OBJ["empty"]

    def check_own(self, v: StateView):
        """Cells and the carried object in Minigrid's tables, the agent inside the grid, missions of the id.

        The kernel reads these without checking them again: a box's contents become a cell when
        it opens, the carried object one when it is dropped, and Dynamic-Obstacles moves the
        balls its task slots list (cells it writes).
        """
        W, H = self.config["width"], self.config["height"]
        v.in_range("grid", 0, 255, "(a cell byte)")
        objects = v["grid"][..., 0]
        v.require("grid", (objects >= OBJ["empty"]) & (objects <= OBJ["lava"]), "an object index 1..9",
                  shown=objects, part="object")
        v.require("grid", v["grid"][..., 1] <= 5, "a colour index 0..5", shown=v["grid"][..., 1], part="colour")
        v.require("grid", v["grid"][..., 2] <= 2, "a state index 0..2", shown=v["grid"][..., 2], part="state")
        contents = v["grid"][..., 3]
        v.require("grid", _contents_ok(contents) & ((contents == 0) | (objects == OBJ["box"])),
                  "0 (nothing), or in a box 1 + object * 8 + colour of an object 2..9 of colour 0..5",
                  shown=contents, part="contents")
        carried = v["carrying"]
        nothing = carried[:, 0] == OBJ["empty"]
        v.require("carrying", nothing | ((carried[:, 0] >= OBJ["key"]) & (carried[:, 0] <= OBJ["box"])),
                  "nothing (1) or a key, ball or box (5..7)", shown=carried[:, 0])
        v.require("carrying", _contents_ok(carried[:, 3]) & ((carried[:, 3] == 0) | (carried[:, 0] == OBJ["box"])),
                  "0 (nothing), or a box's contents 1 + object * 8 + colour of an object 2..9 of colour 0..5",
                  shown=carried[:, 3], part="contents")
        v.require("carrying", ~nothing[:, None] | (carried[:, 1:3] == 0), "(1, 0, 0, 0) when nothing is carried",
                  shown=carried[:, 1:3])
        v.require("carrying", carried[:, 1:3] <= np.array([5, 2]), "a colour 0..5 and a state 0..2",
                  shown=carried[:, 1:3])
        agent = v["agent"]
        v.in_range("agent", 0, W - 1, "(x inside the grid)", values=agent[:, 0], part="pos")
        v.in_range("agent", 0, H - 1, "(y inside the grid)", values=agent[:, 1], part="pos")
        v.in_range("agent", 0, 3, "(a direction)", values=agent[:, 2], part="dir")
        # The observation's mission and direction are returned as they are (the id's mission list indexed).
        if self.config.get("babyai"):
            for name in ("mission", "obs_mission"):  # a BabyAI row's mission count (its text: the tokens)
                v.in_range(name, 0, 0x7FFF, "(the row's mission count)")
        else:
            last = self.config["num_missions"] - 1
            for name in ("mission", "obs_mission"):
                v.in_range(name, 0, last, "(an index into the id's missions)")
        v.in_range("obs_dir", 0, 3, "(a direction)")
        if self.config["gen"] == _kernel.MINIGRID_GENERATORS["dynamic_obstacles"]:
            task = v["task"]
            most = (_kernel.MINIGRID_TASK_SLOTS - 1) // 2
            v.in_range("task", 0, most, "(the number of balls)", values=task[:, 0], part="count")
            xs, ys = task[:, 1:2 * most + 1:2], task[:, 2:2 * most + 2:2]
            listed = np.arange(most)[None, :] < task[:, :1]
            v.require("task", ~listed | ((xs >= 0) & (xs < W)), f"each listed ball's x in 0..{W - 1}", shown=xs,
                      part="balls")
            v.require("task", ~listed | ((ys >= 0) & (ys < H)), f"each listed ball's y in 0..{H - 1}", shown=ys,
                      part="balls")
        if self.config.get("babyai"):
            from gridsim.minigrid.babyai import check_state as check_babyai
            from gridsim.minigrid.bot import check_state as check_bot

            check_babyai(v, W, H)
            check_bot(v)
        bitgen = v["bitgen"]
        # All zero is the state of an env never seeded; a seeded env's must be a real PCG64 state
        # (an increment of 0 from a state of 0 repeats 0 forever, and rejection sampling would never end).
        v.require("bitgen", (bitgen[:, 3] % 2 == 1) | (~bitgen.any(axis=1) & ~v["seeded"].astype(bool)),
                  "a PCG64 state with an odd increment (all zero only in an env never seeded)", shown=bitgen[:, 3])
        v.in_range("bitgen", 0, 1, "(has_uint32 is 0 or 1)", values=bitgen[:, 4], part="has_uint32")
        v.require("bitgen", bitgen[:, 5] <= 0xFFFFFFFF, "a 32-bit cached half (uinteger)", shown=bitgen[:, 5],
                  part="uinteger")


def _babyai_dims(config: Mapping[str, Any]) -> dict[str, int]:
    """The sizes of the BabyAI fields: cells, instruction slots, mission tokens (1 each for another id)."""
    if not config.get("babyai"):
        return {"C": 1, "B": 1, "L": 1, "P": 1}
    return {"C": config["width"] * config["height"], "B": _kernel.MINIGRID_BABYAI_SLOTS,
            "L": _kernel.MINIGRID_MISSION_TOKENS, "P": _kernel.MINIGRID_BOT_SLOTS}


def _contents_ok(contents: np.ndarray) -> np.ndarray:
    """0, or ``1 + object * 8 + colour`` of an object a box can hold (wall .. lava) and a colour 0..5.

    Opening the box puts that object down, in the grid's tables.
    """
    code = contents.astype(np.int64) - 1
    return (contents == 0) | ((code >> 3 >= OBJ["wall"]) & (code >> 3 <= OBJ["lava"]) & (code & 7 <= 5))
