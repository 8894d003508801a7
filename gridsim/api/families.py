"""Each family's part of the level API: its observations, action components and properties.

The mixins here are bases of the family vector envs (``gridsim.envs``); they read the
env's state arrays and never step anything.
"""

from __future__ import annotations

import numpy as np

from gridsim.api.properties import Property, PropertyTable
from gridsim.api.settings import Setting
from gridsim.api.specs import ActionSpec, ObsSpec
from gridsim.api.surface import LevelApi, ObservationEntry
from gridsim.events import KITCHEN_EVENTS, NAV_EVENTS, ROBOMAN_EVENTS

__all__ = ["COMMON_SETTINGS", "KitchenApi", "NavApi", "RobomanApi"]

COMMON_SETTINGS = {
    "max_steps": Setting(int, None, writable=True, kwarg="max_episode_steps", optional=True,
                         doc="truncation limit (none: never); a write applies at each env's next reset"),
    "autoreset_mode": Setting(("NextStep", "SameStep", "Disabled"), "NextStep", doc="Gymnasium autoreset mode"),
    "render_mode": Setting(("rgb_array", "ansi", "human"), None, optional=True, doc="render() output"),
    "copy": Setting(bool, True, doc="return fresh arrays from reset and step"),
    "num_threads": Setting(int, 1, doc="kernel threads"),
    "obs_dtype": Setting(str, None, optional=True, doc="cast observations to this dtype"),
    "episode_stats": Setting(bool, True, doc="infos['episode_stats'] where episodes end"),
    "events": Setting(bool, False, doc="the kernel writes events"),
    "max_events_per_step": Setting(int, 16, doc="event slots per env and step; more are dropped and counted"),
    "info_events": Setting(bool, False, doc="infos['events'] holds events_batch() (length E, not N)"),
}


def _texts(env) -> tuple[str, ...]:
    return tuple(env.render_text(i) for i in range(env.num_envs))


def _pair(text: str, what: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"{what} is written as two integers 'a,b', got {text!r}")
    return int(parts[0]), int(parts[1])


# --------------------------------------------------------------------------------- navigation


class NavApi(LevelApi):
    """PixelWorld's observations ``COORDS``, ``VIEW``, ``IMAGE``, ``WORLD.TEXT``; action ``MOVE``."""

    EVENT_SPECS = NAV_EVENTS

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        st = self.state
        v = st.view_size
        k = st.pixels_per_cell
        H, W = st.height * k, st.width * k
        image_shape = (3, H, W) if st.channels_first else (H, W, 3)
        own = {"coords": "COORDS", "view": "VIEW", "image": "IMAGE"}[self.obs_type]
        entries: dict[str, ObservationEntry] = {
            "COORDS": (ObsSpec("COORDS", np.dtype(np.int32), (2,)), lambda: st.agent_pos),
            "VIEW": (ObsSpec("VIEW", np.dtype(np.uint8), (v, v)), self._views),
            "IMAGE": (ObsSpec("IMAGE", np.dtype(np.uint8), image_shape), self._images),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: _texts(self)),
        }
        entries[own] = (entries[own][0], lambda: st.obs.copy())
        return entries

    def _views(self) -> np.ndarray:
        st = self.state
        P, v = st.pad, st.view_size
        grids = st.grid[st.grid_index].reshape(self.num_envs, st.height + 2 * P, st.row_stride)
        rc = st.agent_pos + P - v // 2
        rows = rc[:, 0, None, None] + np.arange(v)[None, :, None]
        cols = rc[:, 1, None, None] + np.arange(v)[None, None, :]
        return grids[np.arange(self.num_envs)[:, None, None], rows, cols].astype(np.uint8)

    def _images(self) -> np.ndarray:
        st = self.state
        k = st.pixels_per_cell
        out = np.empty((self.num_envs, st.height * k, st.width * k, 3), np.uint8)
        for i in range(self.num_envs):
            self.kernel.render_rgb(i, out[i], k)
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) if st.channels_first else out

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``MOVE``, unless the actions are continuous."""
        if self.actions == "2d_continuous":
            return []
        return [ActionSpec("MOVE", 0, int(self.single_action_space.n) - 1)]

    def continuous_action_spec(self) -> list[ActionSpec]:
        """``MOVE.ROW`` and ``MOVE.COL`` for ``2d_continuous``."""
        if self.actions != "2d_continuous":
            return []
        return [ActionSpec("MOVE.ROW", -1.0, 1.0), ActionSpec("MOVE.COL", -1.0, 1.0)]

    def _episode_steps(self) -> np.ndarray:
        return self.state.step_count

    def _family_properties(self, t: PropertyTable):
        st = self.state

        def get_pos(i):
            r, c = self.get_state(i)["pos"]
            return f"{r},{c}"

        def set_pos(i, text):
            self.set_state({"pos": _pair(text, "state.agent.pos")}, index=i)

        def goals(i):
            m = self.maps[0 if i is None else int(st.map_id[i])]
            return ";".join(f"{r},{c}" for r, c in m.goal_cells)

        def table(i):
            P = st.pad
            values = st.cell_reward[int(st.reward_index[i]), 0].reshape(st.height + 2 * P, st.row_stride)
            return ",".join(repr(float(x)) for x in values[P : P + st.height, P : P + st.width].ravel())

        t.add("state.agent.pos", Property(get_pos, set_pos, per_env=True, doc="row,col of the agent"))
        t.add("agent.0.position", Property(get_pos, per_env=True, doc="row,col (every family has agent.<k>.position)"))
        t.add("level.goals", Property(goals, per_env=len(self.maps) > 1, doc="terminal cells r,c;r,c"))
        t.add("level.goal_cells", Property(goals, per_env=len(self.maps) > 1, doc="the same as level.goals"))
        t.add("rewards.table", Property(table, per_env=True, doc="fixed rewards, row-major"))


# --------------------------------------------------------------------------------- gridroboman


_OBJECTS = ("red", "green", "blue")


def _obj_or_none(text: str, what: str) -> int | None:
    t = text.strip().lower()
    if t == "none":
        return None
    if t not in _OBJECTS:
        raise ValueError(f"{what} is none, red, green or blue, got {text!r}")
    return _OBJECTS.index(t)


class RobomanApi(LevelApi):
    """gridroboman's observations ``STATE``, ``GRID``, ``ACTION_MASK``, ``TASK``, ``WORLD.TEXT``; action ``ACTION``."""

    EVENT_SPECS = ROBOMAN_EVENTS

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        st = self.state
        n = st.obs_shape[0] if self.obs_type == "vector" else 11
        entries: dict[str, ObservationEntry] = {
            "STATE": (ObsSpec("STATE", np.dtype(np.float32), (n,)), self._vectors),
            "GRID": (ObsSpec("GRID", np.dtype(np.uint8), (7, 7, 4)), self._grids),
            "ACTION_MASK": (ObsSpec("ACTION_MASK", np.dtype(np.int8), (7,)), lambda: st.action_mask.copy()),
            "TASK": (ObsSpec("TASK", np.dtype(str), ()),
                     lambda: tuple(self.get_task(i) for i in range(self.num_envs))),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: _texts(self)),
        }
        own = "STATE" if self.obs_type == "vector" else "GRID"
        entries[own] = (entries[own][0], lambda: st.obs.copy())
        return entries

    def _vectors(self) -> np.ndarray:
        from gridsim.reference.roboman import roboman_obs

        return np.stack([roboman_obs(self.get_state(i)) for i in range(self.num_envs)])

    def _grids(self) -> np.ndarray:
        from gridsim.reference.roboman import roboman_grid_obs

        return np.stack([roboman_grid_obs(self.get_state(i)) for i in range(self.num_envs)])

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``ACTION`` 0..6."""
        return [ActionSpec("ACTION", 0, 6)]

    def _episode_steps(self) -> np.ndarray:
        return self.state.timer

    def _setting_exclude_solved_starts(self):
        return bool(self.kernel.exclude_solved)

    def _write_setting_exclude_solved_starts(self, value: bool):
        self.kernel.exclude_solved = int(value)
        self.exclude_solved_starts = bool(value)

    def _family_properties(self, t: PropertyTable):
        def update(i, change):
            s = self.get_state(i)
            change(s)
            self.set_state(s, index=i)

        def xy(s):
            return f"{s[0]},{s[1]}"

        def name(j):
            return "none" if j is None else _OBJECTS[j]

        t.add("task.name", Property(lambda i: self.get_task(i), per_env=True))

        def set_agent(i, text):
            update(i, lambda s: s.__setitem__("agent_pos", _pair(text, "state.agent.pos")))

        def set_held(i, text):
            update(i, lambda s: s.__setitem__("lifted_obj_idx", _obj_or_none(text, "state.held")))

        def set_timer(i, text):
            update(i, lambda s: s.__setitem__("timer", int(text)))

        t.add("state.agent.pos", Property(lambda i: xy(self.get_state(i)["agent_pos"]), set_agent, per_env=True,
                                          doc="x,y of the agent"))
        t.add("agent.0.position", Property(lambda i: xy(self.get_state(i)["agent_pos"]), per_env=True, doc="x,y"))
        t.add("state.held", Property(lambda i: name(self.get_state(i)["lifted_obj_idx"]), set_held, per_env=True,
                                     doc="none, red, green or blue"))
        t.add("state.timer", Property(lambda i: str(self.get_state(i)["timer"]), set_timer, per_env=True))
        for j, color in enumerate(_OBJECTS):
            def get_obj_pos(i, j=j):
                o = self.get_state(i)["objs"][j]
                return f"{o['x']},{o['y']}"

            def set_obj_pos(i, text, j=j):
                x, y = _pair(text, f"state.objects.{_OBJECTS[j]}.pos")
                update(i, lambda s: s["objs"][j].update(x=x, y=y))

            t.add(f"state.objects.{color}.pos", Property(get_obj_pos, set_obj_pos, per_env=True))
            for link in ("below", "above"):
                def get_link(i, j=j, link=link):
                    return name(self.get_state(i)["objs"][j][f"obj_{link}"])

                def set_link(i, text, j=j, link=link):
                    value = _obj_or_none(text, f"state.objects.{_OBJECTS[j]}.{link}")
                    update(i, lambda s: s["objs"][j].__setitem__(f"obj_{link}", value))

                t.add(f"state.objects.{color}.{link}", Property(get_link, set_link, per_env=True))


# --------------------------------------------------------------------------------- kitchen


class KitchenApi(LevelApi):
    """The kitchen's named observations and actions.

    Observations ``WORLD.GRID``, ``FEATURES``, ``<n>.POSITION``, ``<n>.HELD``,
    ``WORLD.DELIVERED``, ``WORLD.TEXT``; actions ``<n>.MOVE`` (``MOVE`` per agent row).
    """

    EVENT_SPECS = KITCHEN_EVENTS

    @property
    def row_units(self) -> np.ndarray:
        """(N,) the kitchen of each row."""
        rows = np.arange(self.num_envs)
        return rows // self.num_agents if self.agent_rows else rows

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        st = self.state
        units = self.row_units
        W = self.level.width
        entries: dict[str, ObservationEntry] = {
            "WORLD.GRID": (ObsSpec("WORLD.GRID", np.dtype(np.uint8), st.obs.shape[1:]), lambda: st.obs.copy()),
        }
        if self.obs_type == "features":
            entries["FEATURES"] = (ObsSpec("FEATURES", np.dtype(np.float32), (self._num_features,)),
                                   lambda: self._features(st.obs))
        for a in range(self.num_agents):
            def pos(a=a):
                c = st.agent_cell[units, a].astype(np.int32)
                return np.stack([c % W, c // W], axis=1).astype(np.int32)

            entries[f"{a + 1}.POSITION"] = (ObsSpec(f"{a + 1}.POSITION", np.dtype(np.int32), (2,)), pos)
            entries[f"{a + 1}.HELD"] = (ObsSpec(f"{a + 1}.HELD", np.dtype(np.int32), ()),
                                        lambda a=a: st.held[units, a].astype(np.int32))

        def delivered():
            return tuple(st.delivered_item[u, : int(st.n_delivered[u])].astype(np.int32) for u in units)

        entries["WORLD.DELIVERED"] = (ObsSpec("WORLD.DELIVERED", np.dtype(np.int32), (-1,)), delivered)
        entries["WORLD.TEXT"] = (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: _texts(self))
        return entries

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``<n>.MOVE`` 0..4 per agent, or ``MOVE`` in the agent-rows view."""
        if self.agent_rows:
            return [ActionSpec("MOVE", 0, 4)]
        return [ActionSpec(f"{a + 1}.MOVE", 0, 4) for a in range(self.num_agents)]

    def _episode_steps(self) -> np.ndarray:
        return self.state.t

    def _family_properties(self, t: PropertyTable):
        tables = self.level.tables

        def name(item: int) -> str:
            return "none" if item == 0 else tables.item_names[item]

        t.add("level.recipes", Property(lambda i: ",".join(self.level.recipe_names)))
        t.add("level.items", Property(lambda i: ",".join(
            f"{k}:{'EMPTY' if k == 0 else n}" for k, n in enumerate(tables.item_names))))
        for a in range(self.num_agents):
            def pos(i, a=a):
                x, y = self.get_state(i)["agents"][a]["pos"]
                return f"{x},{y}"

            def held(i, a=a) -> str:
                return name(int(self.state.held[int(self.row_units[i]), a]))

            t.add(f"state.agents.{a}.pos", Property(pos, per_env=True, doc="x,y"))
            t.add(f"agent.{a}.position", Property(pos, per_env=True, doc="x,y"))
            t.add(f"state.agents.{a}.held", Property(held, per_env=True, doc="item name or none"))

        def delivered(i) -> str:
            u = int(self.row_units[i])
            items = self.state.delivered_item[u, : int(self.state.n_delivered[u])]
            return ",".join(tables.item_names[int(x)] for x in items)

        t.add("state.delivered", Property(delivered, per_env=True, doc="delivered items, in order"))


