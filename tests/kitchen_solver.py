"""A planner that solves kitchens through the reference stepper, for tests.

``solve(level, num_agents)`` returns a list of joint actions that delivers every recipe's
dish when replayed from the level's reset state. It works in two stages:

1. **Plan** (symbolic): the floor splits into regions (connected floor cells); an item moves
   between regions by being put on a counter next to both and picked up from the other side.
   For each dish the planner picks the region where the plate is assembled (the fewest
   hand-overs), then emits, for each ingredient, "pick the fresh food, chop it on a cutboard,
   merge it into the plate", and finally "deliver". Every planned step is one interaction
   ``(agent, tile)`` with the held item and the tile's item before and after it.
2. **Execute**: all agents act at once. A step may run when the agent's earlier steps and
   every earlier step on the same tile (Delivery tiles excepted) are done, so the tiles pass
   through exactly the planned contents. Agents walk by breadth-first search around the
   other agents' cells, never into a cell that is occupied or already claimed this step (so
   the planned runs never collide); agents with nothing to do step off the paths of the
   others.

Dishes of different recipes go to different agents (recipe k to agent k mod A), so they are
cooked in parallel where the kitchen allows it.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass

from gridsim.kitchen import COUNTER, CUTBOARD, DELIVERY, FLOOR, PLATE, KitchenLevel, load_kitchen_level
from gridsim.reference.kitchen import kitchen_reset, kitchen_step

__all__ = ["SolveError", "plan_steps", "replay", "solve"]

DIRS = {(0, -1): 1, (0, 1): 2, (-1, 0): 3, (1, 0): 4}  # (dx, dy) -> action
INF = 10**9


class SolveError(RuntimeError):
    """The planner found no plan, or the plan did not run as planned."""


@dataclass
class Step:
    """One planned interaction and the contents it expects before and leaves after."""

    agent: int
    tile: tuple[int, int]
    held_before: str | None
    item_before: str | None
    held_after: str | None
    item_after: str | None


def _neighbours(cell):
    x, y = cell
    return ((x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y))


def _bfs(floor: set, start, goals: set, blocked: set = frozenset()) -> list | None:
    """Shortest path (cells, start first) from start to any goal cell through free floor, or None."""
    if start in goals:
        return [start]
    prev = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for n in _neighbours(cell):
            if n in floor and n not in prev and n not in blocked:
                prev[n] = cell
                if n in goals:
                    path = [n]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1]
                queue.append(n)
    return None


class Planner:
    """Plans dishes as interaction steps, simulating the rules symbolically."""

    def __init__(self, level: KitchenLevel, state: dict):
        self.level = level
        self.rules = level.rules
        self.items = dict(state["items"])
        self.held = [a["held"] for a in state["agents"]]
        self.pos = [tuple(a["pos"]) for a in state["agents"]]
        self.n = len(self.pos)
        self.steps: list[Step] = []
        self.touched: dict[tuple[int, int], set[int]] = {}
        w, h = level.width, level.height
        self.floor = {(x, y) for y in range(h) for x in range(w) if level.tile(x, y) == FLOOR}
        self.region: dict[tuple[int, int], int] = {}
        for cell in sorted(self.floor, key=lambda c: (c[1], c[0])):
            if cell not in self.region:
                r = len(set(self.region.values()))
                queue = deque([cell])
                self.region[cell] = r
                while queue:
                    c = queue.popleft()
                    for nb in _neighbours(c):
                        if nb in self.floor and nb not in self.region:
                            self.region[nb] = r
                            queue.append(nb)
        self.agent_region = [self.region[p] for p in self.pos]
        self.goal_cells: dict[tuple[int, int], list] = {}  # tile -> adjacent floor cells
        self.access: dict[int, set] = {}  # region -> tiles it can interact with
        for y in range(h):
            for x in range(w):
                if level.tile(x, y) == FLOOR:
                    continue
                cells = [c for c in _neighbours((x, y)) if c in self.floor]
                self.goal_cells[(x, y)] = cells
                for c in cells:
                    self.access.setdefault(self.region[c], set()).add((x, y))
        self.crewed = sorted(set(self.agent_region))
        self._dist: dict = {}

    # -- geometry ---------------------------------------------------------------------------------

    def dist(self, cell, tile) -> int:
        """Walking distance from a floor cell to a cell next to the tile (INF if unreachable)."""
        key = (cell, tile)
        if key not in self._dist:
            path = _bfs(self.floor, cell, set(self.goal_cells.get(tile, [])))
            self._dist[key] = INF if path is None else len(path) - 1
        return self._dist[key]

    def walk(self, cell, other) -> int:
        """Walking distance between two floor cells (INF if unreachable)."""
        key = (cell, other, None)
        if key not in self._dist:
            path = _bfs(self.floor, cell, {other})
            self._dist[key] = INF if path is None else len(path) - 1
        return self._dist[key]

    def regions_of(self, tile) -> list[int]:
        """Crewed regions from which the tile can be reached."""
        return [r for r in self.crewed if tile in self.access.get(r, ())]

    def handover_tiles(self, r1: int, r2: int) -> list:
        """Counters next to both regions."""
        both = self.access.get(r1, set()) & self.access.get(r2, set())
        return sorted(t for t in both if self.level.tile(*t) == COUNTER)

    def hops(self, r1: int, r2: int) -> int:
        """Fewest hand-overs to move an item from region r1 to region r2 (INF if impossible)."""
        if r1 == r2:
            return 0
        seen, queue = {r1: 0}, deque([r1])
        while queue:
            r = queue.popleft()
            for s in self.crewed:
                if s not in seen and self.handover_tiles(r, s):
                    seen[s] = seen[r] + 1
                    queue.append(s)
        return seen.get(r2, INF)

    def agent_in(self, region: int, prefer: int) -> int:
        """The agent working in a region: ``prefer`` if it is there, else the first one there."""
        if self.agent_region[prefer] == region:
            return prefer
        return min(a for a in range(self.n) if self.agent_region[a] == region)

    def penalty(self, tile, agent: int) -> int:
        """Prefer tiles no other agent uses (they would have to take turns)."""
        return 100 if self.touched.get(tile, set()) - {agent} else 0

    # -- symbolic interactions --------------------------------------------------------------------

    def interact(self, a: int, tile) -> None:
        """Agent a interacts with tile (the rules of the interaction table), recording the step."""
        rules = self.rules
        kind = self.level.tile(*tile)
        held, lying = self.held[a], self.items.get(tile)
        new_held, new_lying = held, lying
        if kind == DELIVERY:
            if held is None or not rules.deliverable(held):
                raise SolveError(f"agent {a} cannot deliver {held}")
            new_held = None
        elif held is not None and lying is not None:
            if not rules.mergeable(held, lying):
                raise SolveError(f"agent {a}: {held} and {lying} do not merge")
            new_held, new_lying = rules.merge(held, lying), None
        elif held is not None and kind == CUTBOARD and rules.needs_chop(held):
            new_held = rules.chop(held)
        elif held is not None:
            new_held, new_lying = None, held
        elif lying is not None:
            new_held, new_lying = lying, None
        else:
            raise SolveError(f"agent {a}: interacting with the empty tile {tile} does nothing")
        cells = [c for c in self.goal_cells[tile] if self.region[c] == self.agent_region[a]]
        self.pos[a] = min(cells, key=lambda c: (self.walk(self.pos[a], c), c))
        self.steps.append(Step(a, tile, held, lying, new_held, new_lying if kind != DELIVERY else lying))
        self.touched.setdefault(tile, set()).add(a)
        self.held[a] = new_held
        if kind != DELIVERY:
            if new_lying is None:
                self.items.pop(tile, None)
            else:
                self.items[tile] = new_lying

    def empty_counters(self, region: int, avoid_handover: bool = True) -> list:
        tiles = [t for t in self.access.get(region, ()) if self.level.tile(*t) == COUNTER and t not in self.items]
        if avoid_handover:
            private = [t for t in tiles if self.regions_of(t) == [region]]
            tiles = private or tiles
        return tiles

    def stash(self, a: int) -> None:
        """Put the held item down on the nearest free counter."""
        tiles = self.empty_counters(self.agent_region[a])
        if not tiles:
            raise SolveError(f"agent {a} has nowhere to put {self.held[a]}")
        self.interact(a, min(tiles, key=lambda t: (self.penalty(t, a) + self.dist(self.pos[a], t), t)))

    def pick(self, a: int, tile) -> None:
        if self.held[a] is not None:
            self.stash(a)
        self.interact(a, tile)

    def route(self, a: int, targets: set, owner: int) -> int:
        """Hand the item agent a holds over until an agent in one of the target regions holds it."""
        r = self.agent_region[a]
        if r in targets:
            return a
        prev, queue = {r: None}, deque([r])
        while queue and not (set(prev) & targets):
            q = queue.popleft()
            for s in self.crewed:
                if s not in prev and self.handover_tiles(q, s):
                    prev[s] = q
                    queue.append(s)
        ends = sorted(set(prev) & targets)
        if not ends:
            raise SolveError(f"no hand-over route for {self.held[a]} from region {r} to {sorted(targets)}")
        path = [ends[0]]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()
        for nxt in path[1:]:
            b = self.agent_in(nxt, owner)
            free = [t for t in self.handover_tiles(self.agent_region[a], nxt) if t not in self.items]
            if not free:
                raise SolveError(f"no free hand-over counter between regions {self.agent_region[a]} and {nxt}")
            h = min(free, key=lambda t: (self.penalty(t, a) + self.penalty(t, b) + self.dist(self.pos[a], t)
                                         + self.dist(self.pos[b], t), t))
            self.interact(a, h)
            self.pick(b, h)
            a = b
        return a

    # -- dishes -----------------------------------------------------------------------------------

    def dish(self, ingredients, owner: int) -> None:
        """Plan one plated dish of these foods, delivered; ``owner`` does what its region allows."""
        rules, items = self.rules, self.items
        cutboards = [t for t in self.goal_cells if self.level.tile(*t) == CUTBOARD]
        deliveries = [t for t in self.goal_cells if self.level.tile(*t) == DELIVERY]
        deliver_regions = {r for t in deliveries for r in self.regions_of(t)}
        chop_regions = {r for t in cutboards if t not in items for r in self.regions_of(t)}
        plates = [t for t, i in items.items() if i == PLATE]
        if not plates:
            raise SolveError("no plate left")

        def to_region(tile, r):
            return min((self.hops(q, r) for q in self.regions_of(tile)), default=INF)

        def food_cost(food, r):
            fresh = rules.food(food).fresh
            return min((to_region(t, rc) + self.hops(rc, r) for t, i in items.items() if i == fresh
                        for rc in chop_regions), default=INF)

        def cost(r):
            return (min(to_region(p, r) for p in plates) + sum(food_cost(f, r) for f in ingredients)
                    + min((self.hops(r, d) for d in deliver_regions), default=INF))

        assembly = min(self.crewed, key=lambda r: (cost(r), r != self.agent_region[owner], r))
        if cost(assembly) >= INF:
            raise SolveError(f"the dish of {ingredients} cannot be made with these agents")
        a = self.agent_in(assembly, owner)
        plate = min(plates, key=lambda p: (to_region(p, assembly), self.penalty(p, a), self.dist(self.pos[a], p), p))
        if assembly in self.regions_of(plate):
            at = plate
        else:
            carrier = self.agent_in(min(self.regions_of(plate), key=lambda q: self.hops(q, assembly)), owner)
            self.pick(carrier, plate)
            a = self.route(carrier, {assembly}, owner)
            spots = self.empty_counters(assembly)
            at = min(spots, key=lambda t: (self.penalty(t, a), self.dist(self.pos[a], t), t))
            self.interact(a, at)
        for k, food in enumerate(ingredients):
            fresh = rules.food(food).fresh
            sources = [t for t, i in items.items() if i == fresh]
            if not sources:
                raise SolveError(f"no fresh {food} left")
            src = min(sources, key=lambda t: (min(to_region(t, rc) + self.hops(rc, assembly) for rc in chop_regions),
                                              self.penalty(t, owner), self.dist(self.pos[owner], t)
                                              if self.agent_region[owner] in self.regions_of(t) else INF, t))
            b = self.agent_in(min(self.regions_of(src), key=lambda q: min(
                self.hops(q, rc) + self.hops(rc, assembly) for rc in chop_regions)), owner)
            self.pick(b, src)
            rc = min(chop_regions, key=lambda q: (self.hops(self.agent_region[b], q) + self.hops(q, assembly), q))
            b = self.route(b, {rc}, owner)
            boards = [t for t in cutboards if t not in items and rc in self.regions_of(t)]
            board = min(boards, key=lambda t: (self.penalty(t, b), self.dist(self.pos[b], t), t))
            self.interact(b, board)  # chop in hand
            b = self.route(b, {assembly}, owner)
            self.interact(b, at)  # merge into the hand
            if k < len(ingredients) - 1:
                self.interact(b, at)  # put the plate back
            else:
                b = self.route(b, deliver_regions, owner)
                reach = [t for t in deliveries if self.agent_region[b] in self.regions_of(t)]
                self.interact(b, min(reach, key=lambda t: (self.dist(self.pos[b], t), t)))


def plan_steps(level, state: dict, dishes=None) -> list[Step]:
    """The planned interaction steps for the dishes (default: one per distinct recipe dish)."""
    level = load_kitchen_level(level) if not isinstance(level, KitchenLevel) else level
    planner = Planner(level, state)
    if dishes is None:
        seen, dishes = set(), []
        for r in level.recipes:
            if level.rules.dish(r) not in seen:
                seen.add(level.rules.dish(r))
                dishes.append(r.ingredients)
    for k, ingredients in enumerate(dishes):
        planner.dish(tuple(ingredients), owner=k % planner.n)
    return planner.steps


# --------------------------------------------------------------------------------------------- execution


def _face(pos, tile) -> int:
    return DIRS[(tile[0] - pos[0], tile[1] - pos[1])]


def _move(pos, nxt) -> int:
    return DIRS[(nxt[0] - pos[0], nxt[1] - pos[1])]


def execute(level: KitchenLevel, state: dict, steps: list[Step], max_steps: int = 100) -> list[tuple[int, ...]]:
    """Run the planned steps on ``state`` (in place) with the reference; returns the joint actions."""
    n = len(state["agents"])
    floor = {(x, y) for y in range(level.height) for x in range(level.width) if level.tile(x, y) == FLOOR}
    goal_cells = {}
    for s in steps:
        goal_cells[s.tile] = {c for c in _neighbours(s.tile) if c in floor}
    queues = [[k for k, s in enumerate(steps) if s.agent == a] for a in range(n)]
    on_tile: dict = {}
    for k, s in enumerate(steps):
        if level.tile(*s.tile) != DELIVERY:
            on_tile.setdefault(s.tile, []).append(k)
    done = [False] * len(steps)
    actions: list[tuple[int, ...]] = []
    stuck = [0] * n
    idle_steps = 0
    while not all(done):
        if state["t"] >= max_steps:
            raise SolveError(f"not finished after {max_steps} steps ({done.count(False)} steps left)")
        pos = [tuple(a["pos"]) for a in state["agents"]]
        head = [next((k for k in q if not done[k]), None) for q in queues]
        enabled = [h is not None and all(done[j] for j in on_tile.get(steps[h].tile, []) if j < h) for h in head]
        acts = [0] * n
        occupied, reserved, demand = set(pos), set(), {}
        interacting = {}
        for a in range(n):  # agents whose next step may run
            if not enabled[a]:
                continue
            tile = steps[head[a]].tile
            goals = goal_cells[tile]
            if pos[a] in goals:
                acts[a] = _face(pos[a], tile)
                interacting[a] = head[a]
                demand[a] = {pos[a]}
                continue
            path = _bfs(floor, pos[a], goals, (occupied | reserved) - {pos[a]})
            demand[a] = set(path or _bfs(floor, pos[a], goals) or [])
            if path and len(path) > 1:
                acts[a] = _move(pos[a], path[1])
                reserved.add(path[1])
                stuck[a] = 0
            else:
                stuck[a] += 1
        for a in range(n):  # everyone else waits, walks ahead, or steps out of the way
            if enabled[a] and not (stuck[a] >= 3 and a not in interacting):
                continue
            ahead = {c for b, cells in demand.items() if b != a and (not enabled[a] or b < a) for c in cells}
            if pos[a] in ahead:
                blocked = (occupied | reserved) - {pos[a]}
                path = _bfs(floor, pos[a], floor - ahead - occupied - reserved, blocked)
                if path and len(path) > 1:
                    acts[a] = _move(pos[a], path[1])
                    reserved.add(path[1])
            elif head[a] is not None and not enabled[a]:
                goals = goal_cells[steps[head[a]].tile]
                if pos[a] not in goals:
                    path = _bfs(floor, pos[a], goals, (occupied | reserved | ahead) - {pos[a]})
                    if path and len(path) > 1:
                        acts[a] = _move(pos[a], path[1])
                        reserved.add(path[1])
        kitchen_step(level, state, acts, max_steps=10**9)
        actions.append(tuple(acts))
        for a, k in interacting.items():
            s = steps[k]
            got = (state["agents"][a]["held"], state["items"].get(s.tile))
            want = (s.held_after, s.item_after)
            if level.tile(*s.tile) == DELIVERY:
                got, want = got[:1], want[:1]
            if got != want:
                raise SolveError(f"step {k} {s}: got {got} at t={state['t']}")
            done[k] = True
        idle_steps = 0 if interacting else idle_steps + 1
        if idle_steps > 40:
            raise SolveError(f"no progress for 40 steps at t={state['t']}: {state}")
    return actions


def solve(level, num_agents: int = 2, *, dishes=None, state: dict | None = None, max_steps: int = 100
          ) -> list[tuple[int, ...]]:
    """Joint actions that cook and deliver the dishes (default: the level's recipes) from ``state``.

    Args:
        level: a level or a name for ``load_kitchen_level``.
        num_agents: agents, when ``state`` is not given (the reset state is used).
        dishes: a list of ingredient tuples, each a plated dish to deliver, in order.
        state: the state to start from (not changed).
        max_steps: give up when the state's ``t`` reaches this.

    Raises:
        SolveError: no plan, or the plan did not finish in time.
    """
    level = load_kitchen_level(level) if not isinstance(level, KitchenLevel) else level
    state = copy.deepcopy(state) if state is not None else kitchen_reset(level, num_agents)
    steps = plan_steps(level, state, dishes)
    return execute(level, state, steps, max_steps)


def replay(level, actions, num_agents: int = 2, max_steps: int = 100, state: dict | None = None):
    """Replay joint actions with the reference; returns ``(state, [(reward, terminated, truncated, events)])``."""
    level = load_kitchen_level(level) if not isinstance(level, KitchenLevel) else level
    state = copy.deepcopy(state) if state is not None else kitchen_reset(level, num_agents)
    return state, [kitchen_step(level, state, a, max_steps) for a in actions]
