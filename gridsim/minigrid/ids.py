"""The Minigrid ids gridsim plays, each declared once: its generator, size, limits and missions.

Values are Minigrid 3.2.0's (``minigrid/__init__.py`` and each env's constructor; the
family's spec, Appendix A). ``gridsim/MiniGrid-<Name>-v<k>`` is Minigrid's ``MiniGrid-<Name>-v<k>``.
"""

from __future__ import annotations

from dataclasses import dataclass

import gridsim.minigrid._kernel as _kernel

__all__ = ["COLOR_NAMES", "MINIGRID_IDS", "STATE_NAMES", "MinigridSpec", "description_of", "spec_of"]

# COLOR_TO_IDX order (the encoding); Minigrid draws colours from the alphabetical COLOR_NAMES.
COLOR_NAMES = ("red", "green", "blue", "purple", "yellow", "grey")
# STATE_TO_IDX order: a door's state (every other object's is 0).
STATE_NAMES = ("open", "closed", "locked")
OBJ = _kernel.MINIGRID_OBJECTS


@dataclass(frozen=True)
class MinigridSpec:
    """One Minigrid id.

    Attributes:
        name: Minigrid's id (``"MiniGrid-DoorKey-8x8-v0"``).
        generator: the kernel's generator (``gridsim.minigrid._kernel.MINIGRID_GENERATORS``).
        width: grid width.
        height: grid height.
        max_steps: Minigrid's ``max_steps``: truncated when the step count reaches it; the
            success reward is ``1 - 0.9 * step_count / max_steps``.
        see_through_walls: the view shows everything in range (no visibility sweep).
        missions: the mission strings; an env's ``mission`` index picks one.
        params: the generator's integer parameters (``_generators.pxi``'s GEN_* comments).
        num_actions: ``Discrete(n)`` of the action space.
    """

    name: str
    generator: str
    width: int
    height: int
    max_steps: int
    see_through_walls: bool
    missions: tuple[str, ...]
    params: tuple[int, ...] = ()
    num_actions: int = 7

    @property
    def description(self) -> str:
        """One line on the task (``gridsim list``): what the agent must do, and the grid's size."""
        what = _DESCRIPTIONS[self.generator]
        p = self.params
        if self.generator == "unlockpickup" and p[0]:
            what = "move the ball blocking the locked door, unlock it, pick up the box behind"
        elif self.generator in ("obstructed_1d", "obstructed_full"):
            key_in_box, blocked = (p[0], p[1]) if self.generator == "obstructed_1d" else (p[2], p[3])
            what += "; keys" + (" in boxes" if key_in_box else " lying about") + (", doors blocked by balls"
                                                                                 if blocked else "")
        elif self.generator in ("empty", "dynamic_obstacles") and p[0]:
            what += ", from a random start"
        elif self.generator == "crossing":
            what = f"reach the goal through the gaps of {p[0]} {'lava river' if p[1] == OBJ['lava'] else 'wall'}" + (
                "s" if p[0] > 1 else "")
        elif self.generator == "multiroom":
            what = f"reach the goal through a chain of {p[1]} rooms joined by doors"
        elif self.generator == "memory" and p[0]:
            what += " (of random length)"
        return f"{what} ({self.width}x{self.height})"

    @property
    def env_id(self) -> str:
        """The Gymnasium id gridsim registers."""
        return "gridsim/" + self.name

    @property
    def config(self) -> dict:
        """What the kernel reads (``MgConfig``), with the view size filled in by the env.

        ``num_missions`` is for the state's checks (the kernel does not read it).
        """
        return {"gen": _kernel.MINIGRID_GENERATORS[self.generator], "width": self.width, "height": self.height,
                "max_steps": self.max_steps, "see_through_walls": int(self.see_through_walls),
                "params": tuple(self.params), "num_missions": len(self.missions)}


# One line per generator: the task (MinigridSpec.description adds what varies with the parameters).
_DESCRIPTIONS = {
    "empty": "reach the goal in the far corner of an empty room",
    "doorkey": "pick up the key, unlock the door in the wall, reach the goal",
    "fourrooms": "reach the goal across four rooms joined by gaps",
    "lavagap": "reach the goal through the one gap in a column of lava",
    "crossing": "reach the goal through the openings of crossing rivers",
    "multiroom": "reach the goal through a chain of rooms joined by doors",
    "distshift": "reach the goal past two strips of lava",
    "dynamic_obstacles": "reach the goal among balls that move every step (touching one: -1)",
    "memory": "remember the object at the start, walk the hallway, go to its match",
    "gotodoor": "go next to the named door of four and signal done",
    "unlock": "pick up the key, open the locked door",
    "unlockpickup": "unlock the door, pick up the box behind it",
    "keycorridor": "find the key off the corridor, unlock a room, pick up its ball",
    "obstructed_1d": "unlock the door, pick up the blue ball behind it",
    "obstructed_full": "find the blue ball in a corner room of a maze of locked doors",
    "lockedroom": "fetch the key from one room, unlock another, reach its goal",
    "fetch": "pick up the named object (any other ends the episode)",
    "gotoobject": "go next to the named object and signal done",
    "putnear": "put the named object down next to another",
    "redbluedoors": "open the red door, then the blue one",
    "playground": "rooms, doors and objects, no goal",
}

GOAL = ("get to the green goal square",)
LAVA = ("avoid the lava and get to the green goal square",)


def _square(name: str, gen: str, size: int, max_steps: int, see: bool, missions: tuple[str, ...],
            params: tuple[int, ...] = (), num_actions: int = 7) -> MinigridSpec:
    return MinigridSpec(name, gen, size, size, max_steps, see, missions, params, num_actions)


def _ids() -> tuple[MinigridSpec, ...]:
    out: list[MinigridSpec] = []
    for size, rand in ((5, 0), (5, 1), (6, 0), (6, 1), (8, 0), (16, 0)):
        name = f"MiniGrid-Empty-{'Random-' if rand else ''}{size}x{size}-v0"
        out.append(_square(name, "empty", size, 4 * size * size, True, GOAL, (rand,)))
    for size in (5, 6, 8, 16):
        out.append(_square(f"MiniGrid-DoorKey-{size}x{size}-v0", "doorkey", size, 10 * size * size, False,
                           ("use the key to open the door and then get to the goal",)))
    out.append(_square("MiniGrid-FourRooms-v0", "fourrooms", 19, 100, False, ("reach the goal",)))
    for size in (5, 6, 7):
        out.append(_square(f"MiniGrid-LavaGapS{size}-v0", "lavagap", size, 4 * size * size, False, LAVA))
    for kind, obstacle, missions in (("Lava", OBJ["lava"], LAVA),
                                     ("Simple", OBJ["wall"], ("find the opening and get to the green goal square",))):
        for size, n in ((9, 1), (9, 2), (9, 3), (11, 5)):
            out.append(_square(f"MiniGrid-{kind}CrossingS{size}N{n}-v0", "crossing", size, 4 * size * size, False,
                               missions, (n, obstacle)))
    rooms = ("traverse the rooms to get to the goal",)
    for name, lo, hi, room in (("N2-S4-v0", 2, 2, 4), ("N4-S5-v0", 6, 6, 5), ("N4-S5-v1", 4, 4, 5),
                               ("N6-v0", 6, 6, 10)):
        out.append(_square(f"MiniGrid-MultiRoom-{name}", "multiroom", 25, hi * 20, False, rooms, (lo, hi, room)))
    for k, row in ((1, 2), (2, 5)):
        out.append(MinigridSpec(f"MiniGrid-DistShift{k}-v0", "distshift", 9, 7, 4 * 9 * 7, True, GOAL, (row,)))
    for size, rand, n in ((5, 0, 2), (5, 1, 2), (6, 0, 3), (6, 1, 3), (8, 0, 4), (16, 0, 8)):
        name = f"MiniGrid-Dynamic-Obstacles-{'Random-' if rand else ''}{size}x{size}-v0"
        count = n if n <= size / 2 + 1 else int(size / 2)
        out.append(_square(name, "dynamic_obstacles", size, 4 * size * size, True, GOAL, (rand, count), 3))
    memory = ("go to the matching object at the end of the hallway",)
    for size, rand in ((7, 0), (9, 0), (11, 0), (13, 0), (13, 1), (17, 1)):
        name = f"MiniGrid-MemoryS{size}{'Random' if rand else ''}-v0"
        out.append(_square(name, "memory", size, 5 * size * size, False, memory, (rand,)))
    doors = tuple(f"go to the {c} door" for c in COLOR_NAMES)  # indexed by the door's colour
    for size in (5, 6, 8):
        out.append(_square(f"MiniGrid-GoToDoor-{size}x{size}-v0", "gotodoor", size, 4 * size * size, True, doors))
    out.extend(_roomgrid_ids())
    out.extend(_object_ids())
    return tuple(out)


def _roomgrid_ids() -> list[MinigridSpec]:
    # RoomGrid's (room_size - 1) * num_cols + 1 by (room_size - 1) * num_rows + 1 cells.
    def rooms(name: str, gen: str, rs: int, nr: int, nc: int, max_steps: int, missions: tuple[str, ...],
              params: tuple[int, ...] = ()) -> MinigridSpec:
        return MinigridSpec(name, gen, (rs - 1) * nc + 1, (rs - 1) * nr + 1, max_steps, False, missions, params)

    boxes = tuple(f"pick up the {c} box" for c in COLOR_NAMES)  # indexed by the target's colour
    balls = tuple(f"pick up the {c} ball" for c in COLOR_NAMES)
    out = [rooms("MiniGrid-Unlock-v0", "unlock", 6, 1, 2, 8 * 36, ("open the door",)),
           rooms("MiniGrid-UnlockPickup-v0", "unlockpickup", 6, 1, 2, 8 * 36, boxes, (0,)),
           rooms("MiniGrid-BlockedUnlockPickup-v0", "unlockpickup", 6, 1, 2, 16 * 36, boxes, (1,))]
    for rs, nr in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3)):
        out.append(rooms(f"MiniGrid-KeyCorridorS{rs}R{nr}-v0", "keycorridor", rs, nr, 3, 30 * rs * rs, balls,
                         (rs, nr)))
    blue = ("pick up the blue ball",)
    for name, key_in_box, blocked in (("1Dl", 0, 0), ("1Dlh", 1, 0), ("1Dlhb", 1, 1)):
        out.append(rooms(f"MiniGrid-ObstructedMaze-{name}-v0", "obstructed_1d", 6, 1, 2, 4 * 2 * 36, blue,
                         (key_in_box, blocked)))
    # name, agent_room, key_in_box, blocked, num_quarters, num_rooms_visited (max_steps = 4 * it * 36), versions.
    for name, room, key_in_box, blocked, quarters, visited, versions in (
            ("2Dl", (2, 1), 0, 0, 1, 4, (0,)), ("2Dlh", (2, 1), 1, 0, 1, 4, (0,)),
            ("2Dlhb", (2, 1), 1, 1, 1, 4, (0, 1)), ("1Q", (1, 1), 1, 1, 1, 5, (0, 1)),
            ("2Q", (2, 1), 1, 1, 2, 11, (0, 1)), ("Full", (1, 1), 1, 1, 4, 25, (0, 1))):
        for v in versions:
            out.append(rooms(f"MiniGrid-ObstructedMaze-{name}-v{v}", "obstructed_full", 6, 3, 3, 4 * visited * 36,
                             blue, (*room, key_in_box, blocked, quarters, v)))
    return out


OBJ_TYPES = ("key", "ball", "box")  # the generators' type numbers (missions and draws alike)
FETCH_SYNTAX = ("get a", "go get a", "fetch a", "go fetch a", "you must fetch a")


def _object_ids() -> list[MinigridSpec]:
    # The MiniGridEnv ids of the spec's section 6; missions are indexed as the GEN_* comments say.
    locked = tuple(f"get the {lc} key from the {kc} room, unlock the {lc} door and go to the goal"
                   for lc in COLOR_NAMES for kc in COLOR_NAMES)
    fetch = tuple(f"{syntax} {c} {t}" for syntax in FETCH_SYNTAX for t in OBJ_TYPES[:2] for c in COLOR_NAMES)
    goto = tuple(f"go to the {c} {t}" for t in OBJ_TYPES for c in COLOR_NAMES)
    near = tuple(f"put the {mc} {mt} near the {gc} {gt}"
                 for mt in OBJ_TYPES for mc in COLOR_NAMES for gt in OBJ_TYPES for gc in COLOR_NAMES)
    out = [_square("MiniGrid-LockedRoom-v0", "lockedroom", 19, 190, False, locked)]
    for size, n in ((5, 2), (6, 2), (8, 3)):
        out.append(_square(f"MiniGrid-Fetch-{size}x{size}-N{n}-v0", "fetch", size, 5 * size * size, True, fetch, (n,)))
    for size, n in ((6, 2), (8, 2)):
        out.append(_square(f"MiniGrid-GoToObject-{size}x{size}-N{n}-v0", "gotoobject", size, 5 * size * size, True,
                           goto, (n,)))
    for size, n in ((6, 2), (8, 3)):
        out.append(_square(f"MiniGrid-PutNear-{size}x{size}-N{n}-v0", "putnear", size, 5 * size, True, near, (n,)))
    red_blue = ("open the red door then the blue door",)
    for size in (6, 8):  # a size x size room in a 2 size x size grid
        out.append(MinigridSpec(f"MiniGrid-RedBlueDoors-{size}x{size}-v0", "redbluedoors", 2 * size, size,
                                20 * size * size, False, red_blue))
    out.append(_square("MiniGrid-Playground-v0", "playground", 19, 100, False, ("",)))
    return out


MINIGRID_IDS: dict[str, MinigridSpec] = {s.name: s for s in _ids()}


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
