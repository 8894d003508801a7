"""The kitchen family's batch state: every array of a batch of kitchens."""

from __future__ import annotations

import numpy as np

import gridsim.kitchen._kernel as _kernel
from gridsim.engine.events import num_fields
from gridsim.engine.state import BatchState, StateView
from gridsim.errors import InvalidArgumentError
from gridsim.kitchen.api import KITCHEN_EVENTS
from gridsim.kitchen.fields import FIELDS as KITCHEN_FIELDS

FLOOR, DELIVERY = _kernel.KITCHEN_TILE_KINDS["floor"], _kernel.KITCHEN_TILE_KINDS["delivery"]
# Tiles an item may lie on.
ITEM_TILES = (_kernel.KITCHEN_TILE_KINDS["counter"], _kernel.KITCHEN_TILE_KINDS["cutboard"])

__all__ = ["KitchenState"]


class KitchenState(BatchState):
    """All arrays of a batch of kitchens.

    Cells are ``y * W + x``. Items are ids of the level's ``KitchenTables`` (0 = no item).
    K kitchens of A agents; R output rows: K, or K * A with ``agent_rows`` (row k * A + a).

    Args:
        level: the compiled kitchen level.
        num_kitchens: K.
        num_agents: A in 1..4.
        agent_rows: one output row per agent (observations get a "this agent" channel).
        channels_first: observations (C, H, W) instead of (H, W, C).
        autoreset_mode: the kernel's AUTORESET_* code.
        max_steps: truncated when the step count reaches it (0: never).
        events: the kernel records events (``gridsim.kitchen.api.KITCHEN_EVENTS``), per kitchen.
        max_events: event slots per kitchen and step.
    """

    FIELDS = KITCHEN_FIELDS  # the family's own arrays (gridsim/kitchen/fields.py)

    STEP_FIELD = "t"
    # The level as the kernel plays it: tiles, items at reset, starts, and the rules' tables.
    RULE_TABLES = ("tile_kind", "init_item", "start_cell", "chop_to", "merge_to", "deliverable", "dish_of",
                   "comp_bits", "all_recipes")

    def __init__(self, level, num_kitchens: int, num_agents: int, *, agent_rows: bool = False,
                 channels_first: bool = False, autoreset_mode: int = 0, max_steps: int = 0,
                 events: bool = False, max_events: int = 16):
        tables = level.tables
        K, A = int(num_kitchens), int(num_agents)
        H, W = level.height, level.width
        C = H * W
        self.level = level
        self.num_kitchens, self.num_agents = K, A
        self.agent_rows = int(bool(agent_rows))
        self.num_rows = K * A if agent_rows else K
        self.num_envs = self.num_rows
        self.height, self.width = H, W
        self.channels_first = int(bool(channels_first))
        self.autoreset_mode = autoreset_mode
        self.max_steps = int(max_steps)
        # ---- level tables
        self.tile_kind = np.ascontiguousarray(level.tiles.reshape(C), np.uint8)  # (C,)
        self.init_item = np.zeros(C, np.int16)  # (C,) item at reset, 0 none
        for (x, y), name in level.initial_items.items():
            self.init_item[y * W + x] = tables.item_id(name)
        self.start_cell = np.array([y * W + x for x, y in level.starts[:A]], np.int16)  # (A,)
        self.chop_to = np.ascontiguousarray(tables.chop_to, np.int16)  # (I,)
        self.merge_to = np.ascontiguousarray(tables.merge_to, np.int16)  # (I, I)
        self.deliverable = np.ascontiguousarray(tables.deliverable, np.uint8)  # (I,)
        self.dish_of = np.ascontiguousarray(tables.dish_of, np.uint32)  # (I,)
        self.num_components = len(tables.component_names)
        if self.num_components > 16:
            raise InvalidArgumentError(
                f"at most 16 item components fit the kernel, the rules have {self.num_components}")
        present = (np.asarray(tables.components) > 0).astype(np.uint16)
        self.comp_bits = (present << np.arange(self.num_components, dtype=np.uint16)).sum(1).astype(np.uint16)
        self.all_recipes = int(tables.goal_mask)
        self.obs_channels = tables.obs_channels + (1 if agent_rows else 0)
        self.base_obs = np.zeros((H, W, self.obs_channels), np.uint8)  # the tile one-hot
        self.base_obs[np.arange(H)[:, None], np.arange(W)[None, :], level.tiles] = 1
        if channels_first:
            self.base_obs = np.ascontiguousarray(self.base_obs.transpose(2, 0, 1))
        self.base_obs = self.base_obs.reshape(-1)
        for arr in (self.tile_kind, self.init_item, self.start_cell, self.chop_to, self.merge_to,
                    self.deliverable, self.dish_of, self.comp_bits, self.base_obs):
            arr.setflags(write=False)
        # Every component can be delivered at most once, and a delivery takes two or more.
        D = max(1, sum(int(np.asarray(tables.components)[tables.item_id(n)].sum())
                       for n in level.initial_items.values()) // 2)
        # ---- per-kitchen state, outputs per row; keys are recorded only: kitchens draw nothing
        shape = (self.obs_channels, H, W) if channels_first else (H, W, self.obs_channels)
        self.allocate(units=K, rows=self.num_rows, obs_shape=shape, obs_dtype=np.uint8,
                      autoreset_mode=self.autoreset_mode, max_steps=self.max_steps, events=events,
                      max_events=max_events, num_event_fields=num_fields(KITCHEN_EVENTS), K=K, A=A, C=C, D=D)
        self.agent_cell[:] = self.start_cell
        self.tile_item[:] = self.init_item

    # ------------------------------------------------------------ injected states

    def delivery_tables(self, items: np.ndarray, cells: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``delivered_bits`` (worlds, C) and ``solved`` (worlds,) of each world's first ``count`` deliveries.

        ``items`` and ``cells`` are (worlds, D) valid item ids and cells.
        """
        worlds = len(count)
        bits = np.zeros((worlds, self.height * self.width), np.uint16)
        solved = np.zeros(worlds, np.uint32)
        for j in range(items.shape[1]):
            rows = np.flatnonzero(j < count)
            np.bitwise_or.at(bits, (rows, cells[rows, j]), self.comp_bits[items[rows, j]])
            solved[rows] |= self.dish_of[items[rows, j]]
        return bits, solved

    def check_own(self, v: StateView):
        """The kitchen invariants: agents on distinct floor cells, item ids of the level.

        Also: items lie only on counters and cutting boards, the first ``n_delivered`` deliveries are
        deliverable items on delivery cells, and ``delivered_bits`` and ``solved`` are what they give.
        """
        C, D = self.height * self.width, self.delivered_item.shape[1]
        last = len(self.chop_to) - 1  # the highest item id
        names = ", ".join(self.level.tables.item_names[1:4])
        items = f"(item ids of the level, 0 = nothing; 1..{last}: {names}, ...)"
        v.in_range("agent_cell", 0, C - 1, f"(cells y * {self.width} + x of the kitchen)")
        cells = v["agent_cell"]
        v.require("agent_cell", self.tile_kind[cells] == FLOOR, "a floor cell")
        ordered = np.sort(cells, axis=1)
        distinct = (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
        v.require("agent_cell", np.broadcast_to(distinct[:, None], cells.shape), "distinct cells, one agent per cell")
        v.in_range("held", 0, last, items)
        v.in_range("tile_item", 0, last, items)
        on_item_tile = np.isin(self.tile_kind, ITEM_TILES)
        v.require("tile_item", (v["tile_item"] == 0) | on_item_tile,
                  "0 (nothing) except on counters and cutting boards")
        v.in_range("n_delivered", 0, D, "(the deliveries this level's items allow)")
        v.in_range("delivered_item", 0, last, items)
        v.in_range("delivered_cell", 0, C - 1, "(cells of the kitchen)")
        count, item, cell = v["n_delivered"], v["delivered_item"], v["delivered_cell"]
        recorded = np.arange(D)[None, :] < count[:, None]
        v.require("delivered_item", ~recorded | (self.deliverable[item] != 0),
                  "a deliverable item in the first n_delivered slots")
        v.require("delivered_cell", ~recorded | (self.tile_kind[cell] == DELIVERY),
                  "a delivery cell in the first n_delivered slots")
        bits, solved = self.delivery_tables(item, cell, count)
        v.require("delivered_bits", v["delivered_bits"] == bits, "the components of the items delivered to the cell")
        v.require("solved", v["solved"] == solved, "the recipe bits of the delivered items")
        v.in_range("stat_dishes", 0, D)
