"""The navigation family's part of the level API: observations, actions, properties and events.

:class:`NavApi` is the level API of :class:`gridsim.nav.NavVectorEnv` (its ``level_api``); it
reads the env's state arrays and never steps anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import gymnasium as gym
import numpy as np

from gridsim.engine.events import EventSpec
from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import ActionSpec, ObsSpec
from gridsim.lab2d.surface import LevelApi, ObservationEntry, parse_pair, texts_of

if TYPE_CHECKING:
    from gridsim.engine.vector import GridVectorEnv
    from gridsim.nav.level import NavLevel

    class _NavEnv(GridVectorEnv):
        """What NavApi reads of NavVectorEnv besides GridVectorEnv's names."""

        actions: str
        maps: list[NavLevel]

__all__ = ["NAV_EVENTS", "NavApi"]

# Order matters: an event's type id is its 1-based position (the kernel's NAV_EV_* ids).
NAV_EVENTS: tuple[EventSpec, ...] = (
    EventSpec("goal_reached", ("row", "col")),    # the step ends on a terminal cell
    EventSpec("tile_collected", ("row", "col")),  # a collectible cell was collected
    EventSpec("wall_bump", ("row", "col")),       # the move"s target cell is not walkable
)


class NavApi(LevelApi["_NavEnv"]):
    """PixelWorld's observations ``COORDS``, ``VIEW``, ``IMAGE``, ``WORLD.TEXT``; action ``MOVE``."""

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        env = self.env
        st = env.state
        v = st.view_size
        k = st.pixels_per_cell
        H, W = st.height * k, st.width * k
        image_shape = (3, H, W) if st.channels_first else (H, W, 3)
        own = {"coords": "COORDS", "view": "VIEW", "image": "IMAGE"}[env.obs_type]
        entries: dict[str, ObservationEntry] = {
            "COORDS": (ObsSpec("COORDS", np.dtype(np.int32), (2,)), lambda: st.agent_pos),
            "VIEW": (ObsSpec("VIEW", np.dtype(np.uint8), (v, v)), self._views),
            "IMAGE": (ObsSpec("IMAGE", np.dtype(np.uint8), image_shape), self._images),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: texts_of(env)),
        }
        entries[own] = (entries[own][0], lambda: st.obs.copy())
        return entries

    def _views(self) -> np.ndarray:
        N, st = self.env.num_envs, self.env.state
        P, v = st.pad, st.view_size
        grids = st.grid[st.grid_index].reshape(N, st.height + 2 * P, st.row_stride)
        rc = st.agent_pos + P - v // 2
        rows = rc[:, 0, None, None] + np.arange(v)[None, :, None]
        cols = rc[:, 1, None, None] + np.arange(v)[None, None, :]
        return grids[np.arange(N)[:, None, None], rows, cols].astype(np.uint8)

    def _images(self) -> np.ndarray:
        env = self.env
        st = env.state
        k = st.pixels_per_cell
        out = np.empty((env.num_envs, st.height * k, st.width * k, 3), np.uint8)
        for i in range(env.num_envs):
            env.kernel.render_rgb(i, out[i], k)
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) if st.channels_first else out

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``MOVE``, unless the actions are continuous."""
        if self.env.actions == "2d_continuous":
            return []
        space = self.env.single_action_space
        assert isinstance(space, gym.spaces.Discrete)  # every action type but 2d_continuous
        return [ActionSpec("MOVE", 0, int(space.n) - 1)]

    def continuous_action_spec(self) -> list[ActionSpec]:
        """``MOVE.ROW`` and ``MOVE.COL`` for ``2d_continuous``."""
        if self.env.actions != "2d_continuous":
            return []
        return [ActionSpec("MOVE.ROW", -1.0, 1.0), ActionSpec("MOVE.COL", -1.0, 1.0)]

    def _family_properties(self, t: PropertyTable):
        env = self.env
        st = env.state

        def get_pos(i):
            r, c = env.get_state(i)["pos"]
            return f"{r},{c}"

        def set_pos(i, text):
            env.set_state({"pos": parse_pair(text, "state.agent.pos")}, index=i)

        def goals(i):
            m = env.maps[0 if i is None else int(st.map_id[i])]
            return ";".join(f"{r},{c}" for r, c in m.goal_cells)

        def table(i):
            P = st.pad
            values = st.cell_reward[int(st.reward_index[i]), 0].reshape(st.height + 2 * P, st.row_stride)
            return ",".join(repr(float(x)) for x in values[P : P + st.height, P : P + st.width].ravel())

        t.add("state.agent.pos", Property(get_pos, set_pos, per_env=True, doc="row,col of the agent"))
        t.add("agent.0.position", Property(get_pos, per_env=True, doc="row,col (every family has agent.<k>.position)"))
        t.add("level.goals", Property(goals, per_env=len(env.maps) > 1, doc="terminal cells r,c;r,c"))
        t.add("level.goal_cells", Property(goals, per_env=len(env.maps) > 1, doc="the same as level.goals"))
        t.add("rewards.table", Property(table, per_env=True, doc="fixed rewards, row-major"))
