"""The MiniGrid family's part of the level API: observations, actions and properties.

A base of :class:`gridsim.minigrid.MinigridVectorEnv`; it reads the env's state and never steps anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import ActionSpec, ObsSpec
from gridsim.lab2d.surface import LevelApi, ObservationEntry, parse_pair, texts_of

__all__ = ["MinigridApi"]


class MinigridApi(LevelApi):
    """Minigrid's observations ``IMAGE``, ``DIRECTION``, ``MISSION``, ``WORLD.TEXT``; action ``ACTION``."""

    EVENT_SPECS = ()

    if TYPE_CHECKING:  # what the mixin uses of MinigridVectorEnv
        missions: tuple[str, ...]
        single_action_space: Any

        def get_state(self, index: int = 0) -> dict[str, Any]:
            """The state dict of env ``index``."""

        def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[Any, dict]:
            """Inject a state dict into env ``index``."""

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        st = self.state
        return {
            "IMAGE": (ObsSpec("IMAGE", np.dtype(np.uint8), st.obs.shape[1:]), lambda: st.obs.copy()),
            "DIRECTION": (ObsSpec("DIRECTION", np.dtype(np.int64), ()), lambda: st.obs_dir.copy()),
            "MISSION": (ObsSpec("MISSION", np.dtype(str), ()),
                        lambda: tuple(self.missions[k] for k in st.obs_mission.tolist())),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: texts_of(self)),
        }

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``ACTION`` 0..6 (0..2 for Dynamic-Obstacles)."""
        return [ActionSpec("ACTION", 0, int(self.single_action_space.n) - 1)]

    def _family_properties(self, t: PropertyTable):
        def update(i, change):
            s = self.get_state(i)
            change(s)
            self.set_state(s, index=i)

        def set_pos(i, text):
            update(i, lambda s: s.__setitem__("agent_pos", parse_pair(text, "state.agent.pos")))

        def set_dir(i, text):
            update(i, lambda s: s.__setitem__("agent_dir", int(text)))

        def set_steps(i, text):
            update(i, lambda s: s.__setitem__("step_count", int(text)))

        t.add("state.agent.pos", Property(lambda i: "{},{}".format(*self.get_state(i)["agent_pos"]), set_pos,
                                          per_env=True, doc="x,y of the agent"))
        t.add("state.agent.dir", Property(lambda i: str(self.get_state(i)["agent_dir"]), set_dir, per_env=True,
                                          doc="0 right, 1 down, 2 left, 3 up"))
        t.add("state.step_count", Property(lambda i: str(self.get_state(i)["step_count"]), set_steps,
                                           per_env=True))
        t.add("state.mission", Property(lambda i: self.get_state(i)["mission"], per_env=True))
