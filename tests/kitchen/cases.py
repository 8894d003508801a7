"""The kitchen family's cases for the engine-wide tests (the names of ``tests/nav/cases.py``)."""

from __future__ import annotations

import copy

import numpy as np

import gridsim
from gridsim.kitchen.env import KitchenEnv, KitchenVectorEnv

ID_COUNT = 11  # one id per built-in kitchen (tests/kitchen/test_kitchen_kernel.py)

STATE_CASES = {
    "kitchen-rows": lambda: KitchenVectorEnv(4, level="kitchen/open-divider_salad", agent_rows=True, events=True,
                                             max_episode_steps=20),
    "kitchen-three": lambda: KitchenVectorEnv(2, level="kitchen/partial-divider_salad", num_agents=3,
                                              autoreset_mode="SameStep"),
}

COPY_CASES = {
    "kitchen": (KitchenVectorEnv, KitchenEnv, {"max_episode_steps": 6}),
}


def no_goal_envs(n: int, limit: int, mode: str = "NextStep"):
    """A batch whose envs never terminate under the action returned with it (both agents stay)."""
    envs = KitchenVectorEnv(n, level="kitchen/open-divider_salad", num_agents=2, max_episode_steps=limit,
                            autoreset_mode=mode)
    return envs, np.zeros((n, 2), np.int64)


# ---------------------------------------------------------------- the engine-wide tests' other cases

# Pinned: (name, payload fields) of each event type, in type order.
EVENTS = (("item_picked", ("agent", "item", "x", "y")), ("item_put", ("agent", "item", "x", "y")),
          ("item_chopped", ("agent", "item")), ("items_merged", ("agent", "item")),
          ("dish_delivered", ("agent", "item", "recipe_bits")), ("collision", ("agent", "blocker")),
          ("goal_reached", ()))

# Every observation type, action kind and option beside the registered ids' defaults (n kitchens).
BATCH_VARIANTS = {
    "kitchen-features-3-agents":
        lambda n, **kw: gridsim.make("kitchen/open-divider_salad", n, obs_type="features", num_agents=3, **kw),
    "kitchen-agent-rows": lambda n, **kw: gridsim.make("kitchen/open-divider_salad", 2 * n, agent_rows=True, **kw),
}


def changed_state(envs) -> dict:
    """A valid state for env 1 of ``envs`` (4 envs of the first id, played) that differs from its own."""
    return dict(envs.get_state(2), t=5)


def out_of_range_states(envs, v) -> list[dict]:
    """States for env 0 of ``envs`` (the first id, reset), each with ``v`` (past every range) in one number."""
    base = envs.get_state(0)
    item = envs.level.tables.item_names[1]
    out = []
    for change in (lambda s: s.update(t=v), lambda s: s["agents"][0].update(pos=(v, 1)),
                   lambda s: s.update(items={(v, 0): item}), lambda s: s.update(delivered={(0, v): [item]})):
        s = copy.deepcopy(base)
        change(s)
        out.append(s)
    return out


# (key, value, index): writes of the family's own properties that change 4 played envs of the first id.
PROPERTY_WRITES: list = []  # a kitchen has no writable property of its own


# State case -> field -> (index of the bad entry within world 1's block, a value the validator refuses).
BAD_FIELD_VALUES = {
    "kitchen-rows": {"agent_cell": (0, -1), "held": (0, 999), "tile_item": (0, 999), "delivered_bits": (0, 0xFFFF),
                     "solved": (0, 1 << 20), "n_delivered": (0, 50), "delivered_item": (0, 999),
                     "delivered_cell": (0, -1), "t": (0, -1), "stat_success": (0, 2), "stat_dishes": (0, -1)},
}

# (state case, a change of a get_state() snapshot with a bad value, the field the error names)
BAD_SET_STATES = [
    ("kitchen-rows", {"agents.pos": (-1, 0)}, "agents.pos"), ("kitchen-rows", {"agents.pos": (0, 0)}, "agents.pos"),
    ("kitchen-rows", {"agents.held": "Nope"}, "agents.held"), ("kitchen-rows", {"items": {(3, 3): "Plate"}}, "items"),
    ("kitchen-rows", {"delivered": {(1, 1): ["Plate"]}}, "delivered"),
    ("kitchen-rows", {"delivered": {(0, 3): ["Plate"]}}, "delivered"), ("kitchen-rows", {"t": -1}, "t"),
    ("kitchen-rows", {"t": "3"}, "t"),
]

# (level, keywords, field, value): states that once crashed the kernel (entry 0 of the field set to the value).
CRASHED_STATES = [("kitchen/open-divider_salad", {}, field, value)
                  for field, value in (("agent_cell", -1), ("held", 999), ("tile_item", 999), ("n_delivered", 50))]

# Id -> its line in `gridsim list` (the row's describe hook), pinned for a few ids.
LIST_DESCRIPTIONS = {
    "gridsim/Kitchen-open-divider_tl-v0": "an open kitchen: 2 agents deliver a plate of chopped tomato and a plate "
                                          "of chopped lettuce (7x7)",
    "gridsim/Kitchen-big-onion-salad-v0": "a big kitchen with two deliveries: 2 agents deliver a plate of chopped "
                                          "lettuce, onion and tomato and a plate of chopped lettuce and tomato (12x9)",
}
