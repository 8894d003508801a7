"""The MiniGrid family's part of the level API: observations, actions and properties.

:class:`MinigridApi` is the level API of :class:`gridsim.minigrid.MinigridVectorEnv` (its ``level_api``);
it reads the env's state and never steps anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import gymnasium as gym
import numpy as np

from gridsim.lab2d.properties import Property, PropertyTable
from gridsim.lab2d.specs import ActionSpec, ObsSpec
from gridsim.lab2d.surface import LevelApi, ObservationEntry, parse_pair, texts_of

if TYPE_CHECKING:
    from gridsim.engine.vector import GridVectorEnv

    class _MinigridEnv(GridVectorEnv):
        """What MinigridApi reads of MinigridVectorEnv besides GridVectorEnv's names."""

        missions: tuple[str, ...]
        single_action_space: gym.spaces.Discrete

__all__ = ["MinigridApi"]


class MinigridApi(LevelApi["_MinigridEnv"]):
    """Minigrid's observations ``IMAGE``, ``DIRECTION``, ``MISSION``, ``WORLD.TEXT``; action ``ACTION``."""

    def _observation_entries(self) -> dict[str, ObservationEntry]:
        env = self.env
        st = env.state
        return {
            "IMAGE": (ObsSpec("IMAGE", np.dtype(np.uint8), st.obs.shape[1:]), lambda: st.obs.copy()),
            "DIRECTION": (ObsSpec("DIRECTION", np.dtype(np.int64), ()), lambda: st.obs_dir.copy()),
            "MISSION": (ObsSpec("MISSION", np.dtype(str), ()),
                        lambda: tuple(env.missions[k] for k in st.obs_mission.tolist())),
            "WORLD.TEXT": (ObsSpec("WORLD.TEXT", np.dtype(str), ()), lambda: texts_of(env)),
        }

    def discrete_action_spec(self) -> list[ActionSpec]:
        """``ACTION`` 0..6 (0..2 for Dynamic-Obstacles)."""
        return [ActionSpec("ACTION", 0, int(self.env.single_action_space.n) - 1)]

    def _family_properties(self, t: PropertyTable):
        env = self.env

        def update(i, change):
            s = env.get_state(i)
            change(s)
            env.set_state(s, index=i)

        def set_pos(i, text):
            update(i, lambda s: s.__setitem__("agent_pos", parse_pair(text, "state.agent.pos")))

        def set_dir(i, text):
            update(i, lambda s: s.__setitem__("agent_dir", int(text)))

        def set_steps(i, text):
            update(i, lambda s: s.__setitem__("step_count", int(text)))

        t.add("state.agent.pos", Property(lambda i: "{},{}".format(*env.get_state(i)["agent_pos"]), set_pos,
                                          per_env=True, doc="x,y of the agent"))
        t.add("state.agent.dir", Property(lambda i: str(env.get_state(i)["agent_dir"]), set_dir, per_env=True,
                                          doc="0 right, 1 down, 2 left, 3 up"))
        t.add("state.step_count", Property(lambda i: str(env.get_state(i)["step_count"]), set_steps,
                                           per_env=True))
        t.add("state.mission", Property(lambda i: env.get_state(i)["mission"], per_env=True))
