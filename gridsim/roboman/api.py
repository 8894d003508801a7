"""The manipulation family's part of the level API: observations, actions, properties and events.

:class:`RobomanApi` is the level API of :class:`gridsim.roboman.RobomanVectorEnv` (its ``level_api``);
it reads the env's state arrays and never steps anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

import gridsim._core as _core
import gridsim.roboman._kernel as _kernel
from gridsim.engine.events import EventSpec
from gridsim.errors import InvalidArgumentError
from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import ActionSpec, ObsSpec
from gridsim.lab2d.surface import LevelApi, ObservationEntry, parse_pair, texts_of

if TYPE_CHECKING:
    from gridsim.engine.vector import GridVectorEnv

    class _RobomanEnv(GridVectorEnv):
        """What RobomanApi reads of RobomanVectorEnv besides GridVectorEnv's names."""

        exclude_solved_starts: bool

        def get_task(self, index: int = 0) -> str:
            """The task of env ``index``."""
            raise NotImplementedError

__all__ = ["ROBOMAN_EVENTS", "RobomanApi"]

# Order matters: an event's type id is its 1-based position (the kernel's ROBO_EV_* ids).
ROBOMAN_EVENTS: tuple[EventSpec, ...] = (
    EventSpec("object_lifted", ("obj", "from_below")),  # from_below: -1 = the floor
    EventSpec("object_put", ("obj", "onto")),           # onto: -1 = the floor
    EventSpec("goal_reached", ()),
)


_OBJECTS = ("red", "green", "blue")


def _obj_or_none(text: str, what: str) -> int | None:
    t = text.strip().lower()
    if t == "none":
        return None
    if t not in _OBJECTS:
        raise InvalidArgumentError(f"{what} is none, red, green or blue, got {text!r}")
    return _OBJECTS.index(t)


class RobomanApi(LevelApi["_RobomanEnv"]):
    """gridroboman's observations ``STATE``, ``GRID``, ``ACTION_MASK``, ``TASK``, ``WORLD.TEXT``; action ``ACTION``."""

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        env = self.env
        st = env.state
        n = st.obs_shape[0] if env.obs_type == "vector" else 11
        entries: dict[str, ObservationEntry] = {
            "STATE": (ObsSpec("STATE", np.dtype(np.float32), (n,)), self._vectors),
            "GRID": (ObsSpec("GRID", np.dtype(np.uint8), (7, 7, 4)), self._grids),
            "ACTION_MASK": (ObsSpec("ACTION_MASK", np.dtype(np.int8), (7,)), lambda: st.action_mask.copy()),
            "TASK": (ObsSpec("TASK", np.dtype(str), ()),
                     lambda: tuple(env.get_task(i) for i in range(env.num_envs))),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: texts_of(env)),
        }
        own = "STATE" if env.obs_type == "vector" else "GRID"
        entries[own] = (entries[own][0], lambda: st.obs.copy())
        return entries

    def _vectors(self) -> np.ndarray:
        """The 11-float observation of every env, written by the kernel from the current state."""
        out = np.empty((self.env.num_envs, 11), np.float32)
        self.env.kernel.observe_as(_kernel.ROBOMAN_OBS_VECTOR, out)
        return out

    def _grids(self) -> np.ndarray:
        """The 7 x 7 x 4 grid observation of every env, written by the kernel."""
        out = np.empty((self.env.num_envs, 7, 7, 4), np.uint8)
        self.env.kernel.observe_as(_kernel.ROBOMAN_OBS_GRID, out)
        return out

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``ACTION`` 0..6."""
        return [ActionSpec("ACTION", 0, 6)]

    def _setting_exclude_solved_starts(self):
        return bool(self.env.kernel.exclude_solved)

    def _write_setting_exclude_solved_starts(self, value: bool):
        env = self.env
        _core.commit([], [(setattr, (env.kernel, "exclude_solved", int(value))),
                          (setattr, (env, "exclude_solved_starts", bool(value)))])

    def _family_properties(self, t: PropertyTable):
        env = self.env

        def update(i, change):
            s = env.get_state(i)
            change(s)
            env.set_state(s, index=i)

        def xy(s):
            return f"{s[0]},{s[1]}"

        def name(j):
            return "none" if j is None else _OBJECTS[j]

        t.add("task.name", Property(lambda i: env.get_task(i), per_env=True))

        def set_agent(i, text):
            update(i, lambda s: s.__setitem__("agent_pos", parse_pair(text, "state.agent.pos")))

        def set_held(i, text):
            update(i, lambda s: s.__setitem__("lifted_obj_idx", _obj_or_none(text, "state.held")))

        def set_timer(i, text):
            update(i, lambda s: s.__setitem__("timer", int(text)))

        t.add("state.agent.pos", Property(lambda i: xy(env.get_state(i)["agent_pos"]), set_agent, per_env=True,
                                          doc="x,y of the agent"))
        t.add("agent.0.position", Property(lambda i: xy(env.get_state(i)["agent_pos"]), per_env=True, doc="x,y"))
        t.add("state.held", Property(lambda i: name(env.get_state(i)["lifted_obj_idx"]), set_held, per_env=True,
                                     doc="none, red, green or blue"))
        t.add("state.timer", Property(lambda i: str(env.get_state(i)["timer"]), set_timer, per_env=True))
        for j, color in enumerate(_OBJECTS):
            def get_obj_pos(i, j=j):
                o = env.get_state(i)["objs"][j]
                return f"{o['x']},{o['y']}"

            def set_obj_pos(i, text, j=j):
                x, y = parse_pair(text, f"state.objects.{_OBJECTS[j]}.pos")
                update(i, lambda s: s["objs"][j].update(x=x, y=y))

            t.add(f"state.objects.{color}.pos", Property(get_obj_pos, set_obj_pos, per_env=True))
            for link in ("below", "above"):
                def get_link(i, j=j, link=link):
                    return name(env.get_state(i)["objs"][j][f"obj_{link}"])

                def set_link(i, text, j=j, link=link):
                    value = _obj_or_none(text, f"state.objects.{_OBJECTS[j]}.{link}")
                    update(i, lambda s: s["objs"][j].__setitem__(f"obj_{link}", value))

                t.add(f"state.objects.{color}.{link}", Property(get_link, set_link, per_env=True))
