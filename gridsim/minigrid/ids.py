"""The Minigrid ids gridsim plays, by name: each declared once, in its task's row (``gridsim.minigrid.tasks``).

``gridsim/MiniGrid-<Name>-v<k>`` is Minigrid's ``MiniGrid-<Name>-v<k>``, ``gridsim/BabyAI-<Name>-v<k>``
its ``BabyAI-<Name>-v<k>``.
"""

from __future__ import annotations

from gridsim.minigrid.tasks import COLOR_NAMES, TASKS, MinigridSpec

__all__ = ["BABYAI_IDS", "COLOR_NAMES", "MINIGRID_IDS", "REFERENCE_IDS", "STATE_NAMES", "MinigridSpec",
           "description_of", "spec_of"]

# STATE_TO_IDX order: a door's state (every other object's is 0).
STATE_NAMES = ("open", "closed", "locked")


MINIGRID_IDS: dict[str, MinigridSpec] = {s.name: s for task in TASKS for s in task.ids}
# The ids of Minigrid 3.2.0 (the reference the tests compare with); the others are gridsim's own.
REFERENCE_IDS = tuple(name for name, spec in MINIGRID_IDS.items() if spec.reference)
# Minigrid's BabyAI ids (gridsim.minigrid.babyai), all of them references.
BABYAI_IDS = tuple(name for name, spec in MINIGRID_IDS.items() if spec.babyai)


def description_of(env_id: str) -> str | None:
    """One line on a Minigrid id's task (``gridsim list``), or None for an id that is not one."""
    spec = MINIGRID_IDS.get(env_id.removeprefix("gridsim/"))
    return None if spec is None else spec.description


def spec_of(name: str) -> MinigridSpec:
    """The spec of a Minigrid id (with or without the ``gridsim/`` namespace)."""
    from gridsim.errors import InvalidArgumentError

    key = name.removeprefix("gridsim/")
    if key not in MINIGRID_IDS:
        import difflib

        close = difflib.get_close_matches(key, MINIGRID_IDS, n=3)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InvalidArgumentError(f"unknown MiniGrid id {name!r}{hint} (gridsim has {len(MINIGRID_IDS)})")
    return MINIGRID_IDS[key]
