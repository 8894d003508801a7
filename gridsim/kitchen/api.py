"""The kitchen family's part of the level API: observations, actions, properties and events.

:class:`KitchenApi` is the level API of :class:`gridsim.kitchen.KitchenVectorEnv` (its ``level_api``);
it reads the env's state arrays and never steps anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import gymnasium as gym
import numpy as np

from gridsim.engine.events import EventSpec
from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import ActionSpec, ObsSpec
from gridsim.lab2d.surface import LevelApi, ObservationEntry, texts_of

if TYPE_CHECKING:
    from gridsim.engine.vector import GridVectorEnv
    from gridsim.kitchen.level import KitchenLevel

    class _KitchenEnv(GridVectorEnv):
        """What KitchenApi reads of KitchenVectorEnv besides GridVectorEnv's names."""

        level: KitchenLevel
        num_agents: int
        agent_rows: bool
        obs_transform: Callable[[np.ndarray], np.ndarray]
        single_observation_space: gym.spaces.Box

__all__ = ["KITCHEN_EVENTS", "KitchenApi"]

# Order matters: an event's type id is its 1-based position (the kernel's KIT_EV_* ids).
KITCHEN_EVENTS: tuple[EventSpec, ...] = (
    EventSpec("item_picked", ("agent", "item", "x", "y")),
    EventSpec("item_put", ("agent", "item", "x", "y")),
    EventSpec("item_chopped", ("agent", "item")),
    EventSpec("items_merged", ("agent", "item")),
    EventSpec("dish_delivered", ("agent", "item", "recipe_bits")),
    EventSpec("collision", ("agent", "blocker")),  # blocker: -1 = a contested cell
    EventSpec("goal_reached", ()),
)


class KitchenApi(LevelApi["_KitchenEnv"]):
    """The kitchen's named observations and actions.

    Observations ``WORLD.GRID``, ``FEATURES``, ``<n>.POSITION``, ``<n>.HELD``,
    ``WORLD.DELIVERED``, ``WORLD.TEXT``; actions ``<n>.MOVE`` (``MOVE`` per agent row).
    """

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        env = self.env
        st = env.state
        units = env.row_units
        W = env.level.width
        entries: dict[str, ObservationEntry] = {
            "WORLD.GRID": (ObsSpec("WORLD.GRID", np.dtype(np.uint8), st.obs.shape[1:]), lambda: st.obs.copy()),
        }
        if env.obs_type == "features":  # the Gymnasium observation: the features of the grid
            entries["FEATURES"] = (ObsSpec("FEATURES", np.dtype(np.float32), env.single_observation_space.shape),
                                   lambda: env.obs_transform(st.obs))
        for a in range(env.num_agents):
            def pos(a=a):
                c = st.agent_cell[units, a].astype(np.int32)
                return np.stack([c % W, c // W], axis=1).astype(np.int32)

            entries[f"{a + 1}.POSITION"] = (ObsSpec(f"{a + 1}.POSITION", np.dtype(np.int32), (2,)), pos)
            def held(a: int = a) -> np.ndarray:
                return st.held[units, a].astype(np.int32)

            entries[f"{a + 1}.HELD"] = (ObsSpec(f"{a + 1}.HELD", np.dtype(np.int32), ()), held)

        def delivered():
            return tuple(st.delivered_item[u, : int(st.n_delivered[u])].astype(np.int32) for u in units)

        entries["WORLD.DELIVERED"] = (ObsSpec("WORLD.DELIVERED", np.dtype(np.int32), (-1,)), delivered)
        entries["WORLD.TEXT"] = (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: texts_of(env))
        return entries

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``<n>.MOVE`` 0..4 per agent, or ``MOVE`` in the agent-rows view."""
        env = self.env
        if env.agent_rows:
            return [ActionSpec("MOVE", 0, 4)]
        return [ActionSpec(f"{a + 1}.MOVE", 0, 4) for a in range(env.num_agents)]

    def _family_properties(self, t: PropertyTable):
        env = self.env
        tables = env.level.tables

        def name(item: int) -> str:
            return "none" if item == 0 else tables.item_names[item]

        t.add("level.recipes", Property(lambda i: ",".join(env.level.recipe_names)))
        t.add("level.items", Property(lambda i: ",".join(
            f"{k}:{'EMPTY' if k == 0 else n}" for k, n in enumerate(tables.item_names))))
        for a in range(env.num_agents):
            def pos(i, a=a):
                x, y = env.get_state(i)["agents"][a]["pos"]
                return f"{x},{y}"

            def held(i, a=a) -> str:
                return name(int(env.state.held[int(env.row_units[i]), a]))

            t.add(f"state.agents.{a}.pos", Property(pos, per_env=True, doc="x,y"))
            t.add(f"agent.{a}.position", Property(pos, per_env=True, doc="x,y"))
            t.add(f"state.agents.{a}.held", Property(held, per_env=True, doc="item name or none"))

        def delivered(i) -> str:
            u = int(env.row_units[i])
            items = env.state.delivered_item[u, : int(env.state.n_delivered[u])]
            return ",".join(tables.item_names[int(x)] for x in items)

        t.add("state.delivered", Property(delivered, per_env=True, doc="delivered items, in order"))
