"""The MiniGrid family's tasks, one row each: its generator, its rule, its description and its ids.

A task is one of the kernel's generators (``gen_<name>`` in ``_generators.pxi`` or
``_roomgrid.pxi``, Minigrid's ``_gen_grid`` draw for draw) with the rule its step applies
(:data:`RULES`, a small vocabulary), a line on what the agent must do, and the ids that play it
(a :class:`MinigridSpec` each: size, step limit, missions, the generator's parameters). Every
table the family has follows from :data:`TASKS`: the kernel's generator and rule numbers and its
dispatch (``_tasks.pxi``, generated at build time by :func:`kernel_source`), the ids gridsim
registers (``gridsim.minigrid.ids.MINIGRID_IDS``) and ``gridsim list``'s descriptions.

Values are Minigrid 3.2.0's (``minigrid/__init__.py`` and each env's constructor; the family's
spec, Appendix A). The build reads this module before anything is compiled, so it imports
nothing of gridsim's; what the kernel numbers (generators, objects) is read from the compiled
module only when an id's configuration is built (:attr:`MinigridSpec.config`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

__all__ = ["AGENT_STARTS", "COLOR_NAMES", "RULES", "TASKS", "MinigridSpec", "Rule", "Task", "kernel_source"]

# COLOR_TO_IDX order (the encoding); Minigrid draws colours from the alphabetical COLOR_NAMES.
COLOR_NAMES = ("red", "green", "blue", "purple", "yellow", "grey")


@dataclass(frozen=True)
class Rule:
    """What a step does beyond moving the agent: when an episode ends, and with what reward.

    Attributes:
        name: the rule's name; the kernel's ``RULE_<NAME>`` (its position in :data:`RULES`).
        doc: the rule, as the step applies it (the task slots it reads are the generator's).
    """

    name: str
    doc: str


# The step of every task is MiniGridEnv.step's (the goal: success; lava: the end); a rule adds to it.
# "Success" is the reward 1 - 0.9 * step_count / max_steps, and the episode ends.
RULES = (
    Rule("reach_goal", "MiniGridEnv.step's own: stepping onto the goal succeeds, onto lava ends the episode"),
    Rule("avoid_moving_balls", "Dynamic-Obstacles: actions 3..6 act as left; the balls (task slots: count, then "
                               "x, y each) move before every step; moving forward into one ends it, reward -1"),
    Rule("go_to_matching_object", "Memory: pickup acts as toggle; the success cell (task slots 0, 1) succeeds, "
                                  "the failure cell (2, 3) ends it unrewarded"),
    Rule("done_next_to_target", "GoToDoor, GoToObject: done next to the target cell (task slots 0, 1) succeeds, "
                                "done anywhere else or toggle ends it unrewarded"),
    Rule("open_target_door", "Unlock: the toggle that opens the target door (task slots 0, 1) succeeds"),
    Rule("pick_up_target", "picking up the target object (task slots: object, colour) succeeds"),
    Rule("fetch_target", "Fetch: carrying anything ends it, a success iff it is the target (task slots: object, "
                         "colour)"),
    Rule("put_target_near", "PutNear: picking up another object than the one to move (task slots 2, 3) ends it; "
                            "dropping what is held ends it, a success iff it lies next to the target cell "
                            "(task slots 0, 1)"),
    Rule("follow_instructions", "BabyAI: after a drop the tracked objects are found again; the instruction tree's "
                                "verifier then succeeds or fails (its strict parts), ending the episode "
                                "(gridsim.minigrid.babyai)"),
    Rule("open_doors_in_order", "RedBlueDoors: opening the blue door (task slots 2, 3) ends it, a success iff "
                                "the red one (0, 1) was open before; opening the red one after the blue one ends "
                                "it unrewarded"),
)
RULE_NAMES = tuple(r.name for r in RULES)


@dataclass(frozen=True)
class MinigridSpec:
    """One Minigrid id.

    Attributes:
        name: Minigrid's id (``"MiniGrid-DoorKey-8x8-v0"``).
        generator: its task (a row of :data:`TASKS`), whose generator the kernel runs.
        width: grid width.
        height: grid height.
        max_steps: Minigrid's ``max_steps``: truncated when the step count reaches it; the
            success reward is ``1 - 0.9 * step_count / max_steps``.
        see_through_walls: the view shows everything in range (no visibility sweep).
        missions: the mission strings; an env's ``mission`` index picks one.
        params: the generator's integer parameters (its task's ``params``); an object's name
            stands for its index (Minigrid's ``OBJECT_TO_IDX``).
        num_actions: ``Discrete(n)`` of the action space.
        agent_start: how its generator puts the agent (:data:`AGENT_STARTS`), which decides the
            types of Minigrid's ``agent_pos`` and ``agent_dir`` (its task's ``agent_start``).
        reference: an id of Minigrid 3.2.0 (the reference its tests compare with); False for
            an id of gridsim's own.
        rule: the rule its step applies, a name of :data:`RULES` ("": its task's).
    """

    name: str
    generator: str
    width: int
    height: int
    max_steps: int
    see_through_walls: bool
    missions: tuple[str, ...]
    params: tuple[int | str, ...] = ()
    num_actions: int = 7
    reference: bool = True
    rule: str = ""

    @property
    def task(self) -> Task:
        """The id's row of :data:`TASKS`."""
        return TASK_OF[self.generator]

    @property
    def agent_start(self) -> str:
        """How the id's generator puts the agent: a key of :data:`AGENT_STARTS`."""
        start = self.task.agent_start
        return start if isinstance(start, str) else start(self.params)

    @property
    def description(self) -> str:
        """One line on the task (``gridsim list``): what the agent must do, and the grid's size."""
        what = self.task.description
        return f"{what if isinstance(what, str) else what(self.params)} ({self.width}x{self.height})"

    @property
    def env_id(self) -> str:
        """The Gymnasium id gridsim registers."""
        return "gridsim/" + self.name

    @property
    def config(self) -> dict:
        """What the kernel reads (``MgConfig``), with the view size filled in by the env.

        Numbers are the compiled kernel's. ``num_missions`` is for the state's checks (the kernel
        does not read it).
        """
        import gridsim.minigrid._kernel as _kernel

        params = tuple(_kernel.MINIGRID_OBJECTS[p] if isinstance(p, str) else p for p in self.params)
        config = {"gen": _kernel.MINIGRID_GENERATORS[self.generator],
                  "rule": _kernel.MINIGRID_RULES[self.rule or self.task.rule], "width": self.width,
                  "height": self.height,
                  "max_steps": self.max_steps, "see_through_walls": int(self.see_through_walls),
                  "params": params, "num_missions": max(1, len(self.missions))}
        if self.babyai:
            # RoomGridLevel: max_steps = navigations needed * room_size ** 2 * rooms, unless fixed.
            room_size, rows, cols = (int(p) for p in params[:3])
            config.update(babyai=1, nav_cells=0 if self.max_steps else room_size ** 2 * rows * cols)
        return config

    @property
    def babyai(self) -> bool:
        """A BabyAI id: a mission made of instructions (``gridsim.minigrid.babyai``), objects with identity."""
        return (self.rule or self.task.rule) == "follow_instructions"


@dataclass(frozen=True)
class Task:
    """One generator of the kernel and everything that names it.

    Attributes:
        name: the task's name (``MinigridSpec.generator``); the kernel's generator is ``gen_<name>``
            and its number ``GEN_<NAME>`` (the row's position).
        rule: the rule its step applies (a name of :data:`RULES`).
        description: what the agent must do, for ``gridsim list``: a line, or a function of an
            id's ``params`` where they change it.
        params: what an id's ``params`` hold for the generator, what it keeps in the task slots
            and how its mission index is made (for people).
        ids: the ids that play it, in registration order.
        agent_start: how its generator puts the agent (a key of :data:`AGENT_STARTS`), or a
            function of an id's ``params`` that says it.
        min_size: a variant of its ids (``MinigridVectorEnv(spec=...)``) may have a square grid
            of any size from this one to 255, and plays as Minigrid's class of that size; 0: only
            its ids' sizes.
    """

    name: str
    rule: str
    description: str | Callable[[tuple], str]
    params: str
    ids: tuple[MinigridSpec, ...] = field(repr=False)
    agent_start: str | Callable[[tuple], str] = "placed"
    min_size: int = 0


# How a generator puts the agent, and the types Minigrid's env then holds: agent_pos until the
# agent moves (then tuple(fwd_pos), a tuple of np.int64), and agent_dir all episode.
AGENT_STARTS = {
    "placed": "place_agent(): agent_pos a tuple of np.int64, agent_dir an np.int64",
    "fixed": "a start position and direction of the id's: agent_pos a tuple of ints, agent_dir an int",
    "array": "agent_pos = np.array(...): agent_pos an int64 array, agent_dir an int",
}


def _task(name: str, rule: str, description: str | Callable[[tuple], str], params: str,
          ids: Sequence[MinigridSpec], agent_start: str | Callable[[tuple], str] = "placed",
          min_size: int = 0) -> Task:
    # The ids are written without their task's name: each gets it here.
    return Task(name, rule, description, params, tuple(replace(s, generator=name) for s in ids), agent_start,
                min_size)


def _fixed_unless_random(params: tuple) -> str:
    # Empty and Dynamic-Obstacles: the start (1, 1) facing right, or place_agent() in their Random ids.
    return "placed" if params[0] else "fixed"


def _square(name: str, size: int, max_steps: int, see: bool, missions: tuple[str, ...], params: tuple = (),
            num_actions: int = 7) -> MinigridSpec:
    return MinigridSpec(name, "", size, size, max_steps, see, missions, params, num_actions)


def _rooms(name: str, room_size: int, num_rows: int, num_cols: int, max_steps: int, missions: tuple[str, ...],
           params: tuple = ()) -> MinigridSpec:
    # RoomGrid's (room_size - 1) * num_cols + 1 by (room_size - 1) * num_rows + 1 cells.
    return MinigridSpec(name, "", (room_size - 1) * num_cols + 1, (room_size - 1) * num_rows + 1, max_steps, False,
                        missions, params)


def _random_start(what: str) -> Callable[[tuple], str]:
    return lambda p: what + (", from a random start" if p[0] else "")


def _obstructed(what: str, key_in_box: int, blocked: int) -> Callable[[tuple], str]:
    return lambda p: (f"{what}; keys" + (" in boxes" if p[key_in_box] else " lying about")
                      + (", doors blocked by balls" if p[blocked] else ""))


def _babyai(name: str, room_size: int, num_rows: int, num_cols: int, params: tuple = (),
            max_steps: int = 0) -> MinigridSpec:
    # A BabyAI level: RoomGrid's size, no mission list (the mission is made of its instructions).
    return _rooms(f"BabyAI-{name}", room_size, num_rows, num_cols, max_steps, (),
                  (room_size, num_rows, num_cols, *params))


# LevelGen's flags, and its kinds in the order its lists name them (an id's lists are coded as
# 3-bit digits, the count first: the kernel reads them in that order).
LG_LOCATIONS, LG_UNBLOCKING, LG_IMPLICIT_UNLOCK = 1, 2, 4
LG_ALL = LG_LOCATIONS | LG_UNBLOCKING | LG_IMPLICIT_UNLOCK
LG_ACTIONS = ("goto", "pickup", "open", "putnext")
LG_INSTRS = ("action", "and", "seq")


def _kinds_code(kinds: Sequence[str], vocabulary: Sequence[str]) -> int:
    code = len(kinds)
    for k, kind in enumerate(kinds):
        code |= vocabulary.index(kind) << (3 * (k + 1))
    return code


def _levelgen(name: str, room_size: int, num_rows: int, num_cols: int, num_dists: int, locked_percent: int,
              flags: int, actions: Sequence[str] = LG_ACTIONS, instrs: Sequence[str] = LG_INSTRS) -> MinigridSpec:
    return _babyai(name, room_size, num_rows, num_cols,
                   (num_dists, locked_percent, flags, _kinds_code(actions, LG_ACTIONS), _kinds_code(instrs, LG_INSTRS)))


def _levelgen_description(p: tuple) -> str:
    actions = [LG_ACTIONS[(p[6] >> (3 * (k + 1))) & 7] for k in range(p[6] & 7)]
    instrs = [LG_INSTRS[(p[7] >> (3 * (k + 1))) & 7] for k in range(p[7] & 7)]
    return (f"instructions drawn from BabyAI's grammar ({'/'.join(actions)}; {'/'.join(instrs)}) among {p[3]} "
            f"objects in {p[1]}x{p[2]} rooms" + (f", a locked room {p[4]}% of the time" if p[4] else ""))


GOAL = ("get to the green goal square",)
LAVA = ("avoid the lava and get to the green goal square",)
OBJ_TYPES = ("key", "ball", "box")  # the generators' type numbers (missions and draws alike)
FETCH_SYNTAX = ("get a", "go get a", "fetch a", "go fetch a", "you must fetch a")

# One row per generator, in the kernel's numbering; ids register in this order.
TASKS = (
    _task("empty", "reach_goal", _random_start("reach the goal in the far corner of an empty room"),
          "p0: random start (Empty-Random-*)",
          [_square(f"MiniGrid-Empty-{'Random-' if rand else ''}{size}x{size}-v0", size, 4 * size * size, True, GOAL,
                   (rand,))
           for size, rand in ((5, 0), (5, 1), (6, 0), (6, 1), (8, 0), (16, 0))], _fixed_unless_random, min_size=5),
    _task("doorkey", "reach_goal", "pick up the key, unlock the door in the wall, reach the goal", "",
          [_square(f"MiniGrid-DoorKey-{size}x{size}-v0", size, 10 * size * size, False,
                   ("use the key to open the door and then get to the goal",)) for size in (5, 6, 8, 16)], min_size=5),
    _task("fourrooms", "reach_goal", "reach the goal across four rooms joined by gaps", "",
          [_square("MiniGrid-FourRooms-v0", 19, 100, False, ("reach the goal",))]),
    _task("lavagap", "reach_goal", "reach the goal through the one gap in a column of lava", "",
          [_square(f"MiniGrid-LavaGapS{size}-v0", size, 4 * size * size, False, LAVA) for size in (5, 6, 7)], "array",
          min_size=5),
    _task("crossing", "reach_goal",
          lambda p: f"reach the goal through the gaps of {p[0]} {'lava river' if p[1] == 'lava' else 'wall'}"
                    + ("s" if p[0] > 1 else ""),
          "p0: num_crossings, p1: obstacle (OBJ_LAVA or OBJ_WALL)",
          [_square(f"MiniGrid-{kind}CrossingS{size}N{n}-v0", size, 4 * size * size, False, missions, (n, obstacle))
           for kind, obstacle, missions in (("Lava", "lava", LAVA),
                                            ("Simple", "wall", ("find the opening and get to the green goal square",)))
           for size, n in ((9, 1), (9, 2), (9, 3), (11, 5))], "array"),
    _task("multiroom", "reach_goal", lambda p: f"reach the goal through a chain of {p[1]} rooms joined by doors",
          "p0: minNumRooms, p1: maxNumRooms, p2: maxRoomSize",
          [_square(f"MiniGrid-MultiRoom-{name}", 25, hi * 20, False, ("traverse the rooms to get to the goal",),
                   (lo, hi, room))
           for name, lo, hi, room in (("N2-S4-v0", 2, 2, 4), ("N4-S5-v0", 6, 6, 5), ("N4-S5-v1", 4, 4, 5),
                                      ("N6-v0", 6, 6, 10))]),
    _task("distshift", "reach_goal", "reach the goal past two strips of lava", "p0: strip2_row",
          [MinigridSpec(f"MiniGrid-DistShift{k}-v0", "", 9, 7, 4 * 9 * 7, True, GOAL, (row,))
           for k, row in ((1, 2), (2, 5))], "fixed"),
    _task("dynamic_obstacles", "avoid_moving_balls",
          _random_start("reach the goal among balls that move every step (touching one: -1)"),
          "p0: random start, p1: n_obstacles; task: count, then (x, y) per ball",
          [_square(f"MiniGrid-Dynamic-Obstacles-{'Random-' if rand else ''}{size}x{size}-v0", size, 4 * size * size,
                   True, GOAL, (rand, n if n <= size / 2 + 1 else int(size / 2)), 3)
           for size, rand, n in ((5, 0, 2), (5, 1, 2), (6, 0, 3), (6, 1, 3), (8, 0, 4), (16, 0, 8))],
          _fixed_unless_random),
    _task("memory", "go_to_matching_object",
          lambda p: "remember the object at the start, walk the hallway, go to its match"
                    + (" (of random length)" if p[0] else ""),
          "p0: random_length; task: success (x, y), failure (x, y)",
          [_square(f"MiniGrid-MemoryS{size}{'Random' if rand else ''}-v0", size, 5 * size * size, False,
                   ("go to the matching object at the end of the hallway",), (rand,))
           for size, rand in ((7, 0), (9, 0), (11, 0), (13, 0), (13, 1), (17, 1))], "array"),
    _task("gotodoor", "done_next_to_target", "go next to the named door of four and signal done",
          "task: the target door (x, y); mission: its colour (COLOR_TO_IDX)",
          [_square(f"MiniGrid-GoToDoor-{size}x{size}-v0", size, 4 * size * size, True,
                   tuple(f"go to the {c} door" for c in COLOR_NAMES)) for size in (5, 6, 8)], min_size=5),
    # RoomGrid ids (_roomgrid.pxi); then the MiniGridEnv ids of the spec's section 6.
    _task("unlock", "open_target_door", "pick up the key, open the locked door", "task: the locked door (x, y)",
          [_rooms("MiniGrid-Unlock-v0", 6, 1, 2, 8 * 36, ("open the door",))]),
    _task("unlockpickup", "pick_up_target",
          lambda p: ("move the ball blocking the locked door, unlock it, pick up the box behind" if p[0]
                     else "unlock the door, pick up the box behind it"),
          "p0: blocked (BlockedUnlockPickup); task: the target's object, colour; mission: its colour",
          [_rooms(name, 6, 1, 2, steps * 36, tuple(f"pick up the {c} box" for c in COLOR_NAMES), (blocked,))
           for name, steps, blocked in (("MiniGrid-UnlockPickup-v0", 8, 0),
                                        ("MiniGrid-BlockedUnlockPickup-v0", 16, 1))]),
    _task("keycorridor", "pick_up_target", "find the key off the corridor, unlock a room, pick up its ball",
          "p0: room_size, p1: num_rows; task, mission as unlockpickup's",
          [_rooms(f"MiniGrid-KeyCorridorS{rs}R{nr}-v0", rs, nr, 3, 30 * rs * rs,
                  tuple(f"pick up the {c} ball" for c in COLOR_NAMES), (rs, nr))
           for rs, nr in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))]),
    _task("obstructed_1d", "pick_up_target", _obstructed("unlock the door, pick up the blue ball behind it", 0, 1),
          "p0: key_in_box, p1: blocked; task as unlockpickup's",
          [_rooms(f"MiniGrid-ObstructedMaze-{name}-v0", 6, 1, 2, 4 * 2 * 36, ("pick up the blue ball",),
                  (key_in_box, blocked))
           for name, key_in_box, blocked in (("1Dl", 0, 0), ("1Dlh", 1, 0), ("1Dlhb", 1, 1))]),
    # name, agent_room, key_in_box, blocked, num_quarters, num_rooms_visited (max_steps = 4 * it * 36), versions.
    _task("obstructed_full", "pick_up_target",
          _obstructed("find the blue ball in a corner room of a maze of locked doors", 2, 3),
          "p0, p1: agent_room, p2: key_in_box, p3: blocked, p4: num_quarters, p5: v1; task as unlockpickup's",
          [_rooms(f"MiniGrid-ObstructedMaze-{name}-v{v}", 6, 3, 3, 4 * visited * 36, ("pick up the blue ball",),
                  (*room, key_in_box, blocked, quarters, v))
           for name, room, key_in_box, blocked, quarters, visited, versions in (
               ("2Dl", (2, 1), 0, 0, 1, 4, (0,)), ("2Dlh", (2, 1), 1, 0, 1, 4, (0,)),
               ("2Dlhb", (2, 1), 1, 1, 1, 4, (0, 1)), ("1Q", (1, 1), 1, 1, 1, 5, (0, 1)),
               ("2Q", (2, 1), 1, 1, 2, 11, (0, 1)), ("Full", (1, 1), 1, 1, 4, 25, (0, 1)))
           for v in versions]),
    _task("lockedroom", "reach_goal", "fetch the key from one room, unlock another, reach its goal",
          "mission: locked room's colour * 6 + key room's colour (COLOR_TO_IDX)",
          [_square("MiniGrid-LockedRoom-v0", 19, 190, False,
                   tuple(f"get the {lc} key from the {kc} room, unlock the {lc} door and go to the goal"
                         for lc in COLOR_NAMES for kc in COLOR_NAMES))]),
    _task("fetch", "fetch_target", "pick up the named object (any other ends the episode)",
          "p0: numObjs; task: target object (OBJ_KEY / OBJ_BALL), colour; "
          "mission: syntax * 12 + (0 key, 1 ball) * 6 + colour",
          [_square(f"MiniGrid-Fetch-{size}x{size}-N{n}-v0", size, 5 * size * size, True,
                   tuple(f"{syntax} {c} {t}" for syntax in FETCH_SYNTAX for t in OBJ_TYPES[:2] for c in COLOR_NAMES),
                   (n,))
           for size, n in ((5, 2), (6, 2), (8, 3))], min_size=5),
    _task("gotoobject", "done_next_to_target", "go next to the named object and signal done",
          "p0: numObjs; task: target_pos (x, y); mission: (0 key, 1 ball, 2 box) * 6 + colour",
          [_square(f"MiniGrid-GoToObject-{size}x{size}-N{n}-v0", size, 5 * size * size, True,
                   tuple(f"go to the {c} {t}" for t in OBJ_TYPES for c in COLOR_NAMES), (n,))
           for size, n in ((6, 2), (8, 2))], min_size=6),
    _task("putnear", "put_target_near", "put the named object down next to another",
          "p0: numObjs; task: target_pos (x, y), the object to move (OBJ_*, colour); "
          "mission: ((move type * 6 + colour) * 3 + target type) * 6 + colour",
          [_square(f"MiniGrid-PutNear-{size}x{size}-N{n}-v0", size, 5 * size, True,
                   tuple(f"put the {mc} {mt} near the {gc} {gt}"
                         for mt in OBJ_TYPES for mc in COLOR_NAMES for gt in OBJ_TYPES for gc in COLOR_NAMES), (n,))
           for size, n in ((6, 2), (8, 3))], min_size=6),
    _task("redbluedoors", "open_doors_in_order", "open the red door, then the blue one",
          "task: the red door (x, y), the blue door (x, y)",
          # A size x size room in a 2 size x size grid.
          [MinigridSpec(f"MiniGrid-RedBlueDoors-{size}x{size}-v0", "", 2 * size, size, 20 * size * size, False,
                        ("open the red door then the blue door",)) for size in (6, 8)]),
    _task("playground", "reach_goal", "rooms, doors and objects, no goal", "",
          [_square("MiniGrid-Playground-v0", 19, 100, False, ("",))]),
    # BabyAI levels (_babyai.pxi; params: room_size, num_rows, num_cols, then the level's own). A
    # max_steps of 0: the episode's own, from its instructions.
    _task("babyai_goto_red_ball", "follow_instructions",
          lambda p: "go to the red ball" + (" among grey objects" if p[4] else "") + (f" ({p[3]} others)"),
          "p3: num_dists, p4: the distractors turned grey (GoToRedBallGrey)",
          [_babyai(name, 8, 1, 1, (dists, grey)) for name, dists, grey in (
              ("GoToRedBallGrey-v0", 7, 1), ("GoToRedBall-v0", 7, 0), ("GoToRedBallNoDists-v0", 0, 0))]),
    _task("babyai_goto_obj", "follow_instructions", "go to the one object in the room", "",
          [_babyai(name, size, 1, 1) for name, size in (("GoToObj-v0", 8), ("GoToObjS4-v0", 4), ("GoToObjS6-v1", 6))]),
    _task("babyai_goto_local", "follow_instructions", lambda p: f"go to the named object of {p[3]} in one room",
          "p3: num_dists",
          [_babyai("GoToLocal-v0", 8, 1, 1, (8,))]
          + [_babyai(f"GoToLocalS{size}N{n}-v0", size, 1, 1, (n,)) for size, n in (
              (5, 2), (6, 2), (6, 3), (6, 4), (7, 4), (7, 5), (8, 2), (8, 3), (8, 4), (8, 5), (8, 6), (8, 7))]),
    _task("babyai_goto", "follow_instructions",
          lambda p: f"go to the named object of {p[3]} in a maze of {p[1]}x{p[2]} rooms"
                    + (", its doors open" if p[4] else ""),
          "p3: num_dists, p4: doors_open",
          [_babyai(name, size, rows, cols, (dists, is_open)) for name, size, rows, cols, dists, is_open in (
              ("GoTo-v0", 8, 3, 3, 18, 0), ("GoToOpen-v0", 8, 3, 3, 18, 1), ("GoToObjMaze-v0", 8, 3, 3, 1, 0),
              ("GoToObjMazeOpen-v0", 8, 3, 3, 1, 1), ("GoToObjMazeS4R2-v0", 4, 2, 2, 1, 0),
              ("GoToObjMazeS4-v0", 4, 3, 3, 1, 0), ("GoToObjMazeS5-v0", 5, 3, 3, 1, 0),
              ("GoToObjMazeS6-v0", 6, 3, 3, 1, 0), ("GoToObjMazeS7-v0", 7, 3, 3, 1, 0))]),
    _task("babyai_goto_imp_unlock", "follow_instructions",
          "go to an object in a locked room (its key maybe inside it: upstream's `is` comparison)", "",
          [_babyai("GoToImpUnlock-v0", 8, 3, 3)]),
    _task("babyai_goto_red_blue_ball", "follow_instructions", "go to the one red or blue ball among 7 objects",
          "p3: num_dists", [_babyai("GoToRedBlueBall-v0", 8, 1, 1, (7,))]),
    _task("babyai_goto_door", "follow_instructions", "go to the named door of four", "",
          [_babyai("GoToDoor-v0", 7, 3, 3)]),
    _task("babyai_goto_obj_door", "follow_instructions", "go to the named object or door of twelve", "",
          [_babyai("GoToObjDoor-v0", 8, 3, 3)]),
    _task("babyai_open", "follow_instructions", "open the named door of a maze of 18 objects", "",
          [_babyai("Open-v0", 8, 3, 3)]),
    _task("babyai_open_red_door", "follow_instructions", "open the red door", "",
          [_babyai("OpenRedDoor-v0", 5, 1, 2)]),
    _task("babyai_open_door", "follow_instructions",
          lambda p: "open the door named by " + ("its colour" if p[4] == 1 else "its location" if p[4] == 2
                                                  else "its colour or location") + (" (strict)" if p[3] else ""),
          "p3: strict (debug), p4: select_by (0 drawn, 1 colour, 2 location)",
          [_babyai(name, 8, 3, 3, (debug, by)) for name, debug, by in (
              ("OpenDoor-v0", 0, 0), ("OpenDoorDebug-v0", 1, 0), ("OpenDoorColor-v0", 0, 1),
              ("OpenDoorLoc-v0", 0, 2))]),
    _task("babyai_open_two_doors", "follow_instructions",
          lambda p: "open one door, then the other" + (" (strict)" if p[5] else ""),
          "p3, p4: the doors' colours (-1 drawn), p5: strict",
          [_babyai(name, 6, 3, 3, (first, second, strict), 20 * 36) for name, first, second, strict in (
              ("OpenTwoDoors-v0", -1, -1, 0), ("OpenRedBlueDoors-v0", 0, 2, 0),
              ("OpenRedBlueDoorsDebug-v0", 0, 2, 1))]),
    _task("babyai_open_doors_order", "follow_instructions",
          lambda p: f"open one or two of {p[3]} doors in the named order" + (" (strict)" if p[4] else ""),
          "p3: num_doors, p4: strict (debug)",
          [_babyai(f"OpenDoorsOrderN{n}{'Debug' if debug else ''}-v0", 6, 3, 3, (n, debug), 20 * 36)
           for n, debug in ((2, 0), (4, 0), (2, 1), (4, 1))]),
    _task("babyai_pickup", "follow_instructions",
          lambda p: "pick up the named object of a maze" + (", some behind others" if p[3] else ""),
          "p3: unblocking (UnblockPickup: 20 objects, not all reachable)",
          [_babyai("Pickup-v0", 8, 3, 3, (0,)), _babyai("UnblockPickup-v0", 8, 3, 3, (1,))]),
    _task("babyai_pickup_dist", "follow_instructions",
          lambda p: "pick up the object named by type, colour or both among 5" + (" (strict)" if p[3] else ""),
          "p3: strict (debug)",
          [_babyai("PickupDist-v0", 7, 1, 1, (0,)), _babyai("PickupDistDebug-v0", 7, 1, 1, (1,))]),
    _task("babyai_pickup_above", "follow_instructions", "pick up the object in the room above", "",
          [_babyai("PickupAbove-v0", 6, 3, 3, (), 8 * 36)]),
    _task("babyai_putnext_local", "follow_instructions", lambda p: f"put one object next to another of {p[3]}",
          "p3: num_objs",
          [_babyai(name, size, 1, 1, (n,)) for name, size, n in (
              ("PutNextLocal-v0", 8, 8), ("PutNextLocalS5N3-v0", 5, 3), ("PutNextLocalS6N4-v0", 6, 4))]),
    _task("babyai_putnext", "follow_instructions",
          lambda p: f"put an object of one room next to one of the other ({p[3]} each)"
                    + (", starting with it in hand" if p[4] else ""), "p3: objs_per_room, p4: start_carrying",
          [_babyai(f"PutNextS{size}N{n}{'Carrying' if carrying else ''}-v0", size, 1, 2, (n, carrying),
                   8 * size * size)
           for size, n, carrying in ((4, 1, 0), (5, 2, 0), (5, 1, 0), (6, 3, 0), (7, 4, 0), (5, 2, 1), (6, 3, 1),
                                     (7, 4, 1))]),
    _task("babyai_unlock", "follow_instructions", "find the key, open the locked door of a maze", "",
          [_babyai("Unlock-v0", 8, 3, 3)]),
    _task("babyai_unlock_local", "follow_instructions",
          lambda p: "open the locked door with the key beside it" + (" among 3 objects" if p[3] else ""),
          "p3: distractors",
          [_babyai("UnlockLocal-v0", 8, 3, 3, (0,)), _babyai("UnlockLocalDist-v0", 8, 3, 3, (1,))]),
    _task("babyai_key_in_box", "follow_instructions", "open the locked door with the key in the box", "",
          [_babyai("KeyInBox-v0", 8, 3, 3)]),
    _task("babyai_unlock_pickup", "follow_instructions",
          lambda p: ("move the ball blocking the locked door, unlock it, pick up the box behind" if p[4]
                     else "unlock the door, pick up the box behind it" + (" among 4 objects" if p[3] else "")),
          "p3: distractors, p4: blocked (BlockedUnlockPickup)",
          # UnlockPickup's max_steps is the episode's: upstream tests `max is None` (the builtin).
          [_babyai("UnlockPickup-v0", 6, 1, 2, (0, 0)), _babyai("UnlockPickupDist-v0", 6, 1, 2, (1, 0)),
           _babyai("BlockedUnlockPickup-v0", 6, 1, 2, (0, 1), 16 * 36)]),
    _task("babyai_unlock_to_unlock", "follow_instructions", "unlock a door with a key behind another locked door",
          "", [_babyai("UnlockToUnlock-v0", 6, 1, 3, (), 30 * 36)]),
    _task("babyai_action_obj_door", "follow_instructions", "go to, open or pick up one of 5 objects and 4 doors",
          "", [_babyai("ActionObjDoor-v0", 7, 3, 3)]),
    _task("babyai_find_obj", "follow_instructions", lambda p: f"find the object in a maze of rooms of {p[0]}", "",
          [_babyai(f"FindObjS{size}-v0", size, 3, 3, (), 20 * size * size) for size in (5, 6, 7)]),
    _task("babyai_key_corridor", "follow_instructions",
          "find the key off the corridor, unlock a room, pick up its ball", "",
          [_babyai(name, size, rows, 3, (), 30 * size * size) for name, size, rows in (
              ("KeyCorridor-v0", 6, 3), ("KeyCorridorS3R1-v0", 3, 1), ("KeyCorridorS3R2-v0", 3, 2),
              ("KeyCorridorS3R3-v0", 3, 3), ("KeyCorridorS4R3-v0", 4, 3), ("KeyCorridorS5R3-v0", 5, 3),
              ("KeyCorridorS6R3-v0", 6, 3))]),
    _task("babyai_one_room", "follow_instructions", lambda p: f"pick up the ball in a room of {p[0]}", "",
          [_babyai(f"OneRoomS{size}-v0", size, 1, 1) for size in (8, 12, 16, 20)]),
    _task("babyai_move_two_across", "follow_instructions",
          lambda p: f"put two objects next to two across the room ({p[3]} each side)", "p3: objs_per_room",
          [_babyai(f"MoveTwoAcrossS{size}N{n}-v0", size, 1, 2, (n,), 16 * size * size)
           for size, n in ((5, 2), (8, 9))]),
    _task("babyai_levelgen", "follow_instructions", _levelgen_description,
          "p3: num_dists, p4: locked_room_prob (percent), p5: 1 locations | 2 unblocking | 4 implicit_unlock, "
          "p6: action_kinds, p7: instr_kinds (lists of 3-bit digits, the count first)",
          [_levelgen("GoToSeq-v0", 8, 3, 3, 18, 0, LG_IMPLICIT_UNLOCK, ("goto",)),
           _levelgen("GoToSeqS5R2-v0", 5, 2, 2, 4, 0, LG_IMPLICIT_UNLOCK, ("goto",)),
           _levelgen("PickupLoc-v0", 8, 1, 1, 8, 0, LG_LOCATIONS | LG_IMPLICIT_UNLOCK, ("pickup",), ("action",)),
           _levelgen("Synth-v0", 8, 3, 3, 18, 50, LG_UNBLOCKING, instrs=("action",)),
           _levelgen("SynthS5R2-v0", 5, 2, 3, 18, 50, LG_UNBLOCKING, instrs=("action",)),
           _levelgen("SynthLoc-v0", 8, 3, 3, 18, 50, LG_LOCATIONS | LG_UNBLOCKING, instrs=("action",)),
           _levelgen("SynthSeq-v0", 8, 3, 3, 18, 50, LG_LOCATIONS | LG_UNBLOCKING),
           _levelgen("MiniBossLevel-v0", 5, 2, 2, 7, 25, LG_ALL),
           _levelgen("BossLevel-v0", 8, 3, 3, 18, 50, LG_ALL),
           _levelgen("BossLevelNoUnlock-v0", 8, 3, 3, 18, 0, LG_LOCATIONS | LG_UNBLOCKING)]),
    # A Python task's (gridsim.minigrid.python_tasks): its class's _gen_grid runs in Python and writes the
    # row; the kernel only starts the episode (an empty grid) and steps it with the class's rule.
    _task("python", "reach_goal", "a MiniGridEnv subclass's own task, generated in Python", "", []),
    # A compiled task's (gridsim.minigrid.compiled): a generator written in Python with the kernel's
    # primitives, compiled to machine code; the kernel calls it at reset.
    _task("compiled", "reach_goal", "a generator of gridsim's primitives, compiled", "", []),
)
TASK_OF = {t.name: t for t in TASKS}


def kernel_source() -> str:
    """``_tasks.pxi``: the kernel's generator and rule numbers, its dispatch and the tables Python reads.

    Included by ``gridsim/minigrid/_kernel.pyx`` after the generators; the build writes it
    (``gridsim/engine/codegen.py``, through ``gridsim/minigrid/fields.py``'s ``SOURCES``).
    """
    unknown = [(t.name, t.rule) for t in TASKS if t.rule not in RULE_NAMES]
    if unknown:
        raise ValueError(f"gridsim/minigrid/tasks.py: tasks with a rule not in RULES: {unknown}")
    gens = [f"GEN_{t.name.upper()}" for t in TASKS]
    rules = [f"RULE_{r.name.upper()}" for r in RULES]
    lines = ["# Generated by gridsim/engine/codegen.py from gridsim/minigrid/tasks.py at build time: edit the",
             "# table, not this file (setup.py writes it again before every build).", "",
             "# Generators (a task each), and what MgConfig.p, the task slots and the mission index hold.",
             "cdef enum:"]
    lines += [f"    {gen} = {k}" + (f"  # {t.params}" if t.params else "")
              for k, (gen, t) in enumerate(zip(gens, TASKS, strict=True))]
    lines += [f"    NUM_GENS = {len(TASKS)}", "",
              "# The rules a step applies (gridsim.minigrid.tasks.RULES).", "cdef enum:"]
    lines += [f"    {rule} = {k}" for k, rule in enumerate(rules)]
    lines += [f"    NUM_RULES = {len(RULES)}"]
    lines += ["", "# Each generator's rule.",
              f"cdef int[{len(TASKS)}] RULE_OF_GEN = [{', '.join(f'RULE_{t.rule.upper()}' for t in TASKS)}]", "", "",
              "cdef int generate(World* w, const MgConfig* cfg) noexcept nogil:",
              "    # The id's _gen_grid; -1 where Minigrid would raise."]
    for gen, t in zip(gens, TASKS, strict=True):
        lines += [f"    if cfg.gen == {gen}:", f"        return gen_{t.name}(w, cfg)"]
    lines += ["    return -1", "", "",
              "MINIGRID_GENERATORS = {" + ", ".join(f'"{t.name}": {g}' for g, t in zip(gens, TASKS, strict=True)) + "}",
              "MINIGRID_RULES = {" + ", ".join(f'"{r.name}": {n}' for r, n in zip(RULES, rules, strict=True)) + "}",
              f'MINIGRID_TASKS_DIGEST = "{digest()}"  # of the table this file was generated from']
    return "\n".join(lines) + "\n"


def digest() -> str:
    """A short digest of what the kernel is generated from: each task's name and rule, and the rules."""
    text = ";".join(f"{t.name}:{t.rule}" for t in TASKS) + "|" + ";".join(RULE_NAMES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
