"""The Minigrid ids gridsim plays, each declared once: its generator, size, limits and missions.

Values are Minigrid 3.2.0's (``minigrid/__init__.py`` and each env's constructor; the
family's spec, Appendix A). ``gridsim/MiniGrid-<Name>-v<k>`` is Minigrid's ``MiniGrid-<Name>-v<k>``.
"""

from __future__ import annotations

from dataclasses import dataclass

import gridsim.minigrid._kernel as _kernel

__all__ = ["COLOR_NAMES", "MINIGRID_IDS", "STATE_NAMES", "MinigridSpec", "spec_of"]

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
    out.extend(_object_ids())
    return tuple(out)


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
