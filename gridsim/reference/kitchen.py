"""Pure-Python reference of the kitchen family (gym-cooking's rules), one kitchen at a time.

The state of one kitchen is a plain dict, the same as ``get_state`` of the kitchen envs::

    {"t": int,                                             # steps taken this episode
     "agents": [{"pos": (x, y), "held": full name or None}, ...],   # agent-1 first
     "items": {(x, y): full name},                         # items lying on counters and cutboards
     "delivered": {(x, y): [full names]}}                  # every Delivery tile, in delivery order

Items are handled by their full names through the level's :class:`~gridsim.kitchen.Rules`;
the compiled tables (which this module serves to check) only number the items in events. A
step follows the rules literally, in this order:

1. validate the actions (one int 0..4 per agent: noop, up, down, left, right);
2. ``t += 1``;
3. classify each agent by its target (its cell moved by the action, clamped into the map): a
   noop (action 0, or a clamped target equal to its own cell), a *mover* (the target is floor)
   or an *interactor* (any other tile); then block movers, to a fixed point: movers with a
   common target, movers that swap cells, and (repeated until nothing changes) a mover whose
   target is the cell of a non-mover or of a blocked mover;
4. every unblocked mover moves;
5. every interactor, in agent order, interacts with its target tile (pick up, put down, chop
   in hand, merge into the hand, deliver);
6. the level is solved when every recipe is satisfied by some delivered item:
   ``reward = 1.0`` and ``terminated`` then, ``truncated = t >= max_steps``.

Events are ``(name, payload)`` with int payloads (agents are 0-based indices, items are
ids of ``level.tables``), in this order: ``collision (agent, blocker)`` for each blocked mover
in agent order (``blocker`` is the agent whose cell it targets or swaps with, -1 for a
contested cell); then per interactor in agent order one of ``item_picked (agent, item, x,
y)``, ``item_put (agent, item, x, y)``, ``item_chopped (agent, item)`` (the chopped item),
``items_merged (agent, item)`` (the merged item, now held), ``dish_delivered (agent, item,
recipe_bits)``; and ``goal_reached ()`` on every step that ends solved.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np

from gridsim.engine.state import INT32_MAX
from gridsim.errors import InvalidActionError
from gridsim.kitchen.level import KitchenLevel, load_kitchen_level
from gridsim.kitchen.render import render_ansi
from gridsim.kitchen.rules import COUNTER, CUTBOARD, DELIVERY, FLOOR, MAX_AGENTS, NUM_TILE_KINDS

__all__ = [
    "ACTION_NAMES",
    "MOVES",
    "ReferenceKitchenEnv",
    "check_actions",
    "kitchen_obs",
    "kitchen_reset",
    "kitchen_solved",
    "kitchen_step",
    "render_ansi",
]

NUM_ACTIONS = 5
ACTION_NAMES = ("noop", "up", "down", "left", "right")
MOVES = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))  # action -> (dx, dy)
DEFAULT_MAX_STEPS = 100


def _level(level) -> KitchenLevel:
    return level if isinstance(level, KitchenLevel) else load_kitchen_level(level)


def check_actions(actions, num_agents: int) -> list[int]:
    """The actions as a list of ints 0..4, or :class:`~gridsim.InvalidActionError` (a ValueError).

    Accepts a sequence or an integer array of shape ``(num_agents,)``; floats, bools and other
    shapes are refused. The input is never written to.
    """
    if isinstance(actions, np.ndarray):
        arr = actions
    else:
        if not isinstance(actions, (list, tuple)) or not all(
                isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in actions):
            raise InvalidActionError(f"actions must be a sequence of {num_agents} ints in 0..4, got {actions!r}")
        arr = np.array(actions, dtype=np.int64)
    if arr.dtype.kind not in "iu" or arr.shape != (num_agents,):
        raise InvalidActionError(f"actions must be an int array of shape ({num_agents},), got "
                                 f"{arr.dtype} {arr.shape}: {actions!r}")
    out = [int(a) for a in arr]
    if not all(0 <= a < NUM_ACTIONS for a in out):
        raise InvalidActionError(f"actions must be in 0..4, got {out}")
    return out


def kitchen_reset(level, num_agents: int) -> dict:
    """The initial state: agent k on the k-th start, empty hands, the map's items, nothing delivered.

    Deterministic: the kitchen has no random draws. ``delivered`` lists every Delivery tile.
    """
    level = _level(level)
    level.check_agents(num_agents)
    return {
        "t": 0,
        "agents": [{"pos": level.starts[k], "held": None} for k in range(num_agents)],
        "items": dict(level.initial_items),
        "delivered": {cell: [] for cell in level.delivery_cells},
    }


def _delivered_names(state: dict) -> list[str]:
    return [item for cell in sorted(state.get("delivered", {})) for item in state["delivered"][cell]]


def kitchen_solved(level, state: dict) -> bool:
    """Every recipe of the level is satisfied by at least one delivered item (equal to its dish)."""
    level = _level(level)
    rules = level.rules
    delivered = {rules.canonical(i) for i in _delivered_names(state)}
    return all(dish in delivered for dish in level.dishes)


def _item_id(level: KitchenLevel, item: str | None) -> int:
    try:
        return level.tables.item_id(item)
    except KeyError:  # an injected item outside the level's closure
        return -1


def _resolve_collisions(level: KitchenLevel, state: dict, actions: list[int]):
    """Targets, kinds ("noop"/"mover"/"interactor") and blockers (None = not blocked) per agent."""
    positions = [tuple(agent["pos"]) for agent in state["agents"]]
    targets, kinds = [], []
    for (x, y), a in zip(positions, actions, strict=True):
        dx, dy = MOVES[a]
        tx = min(max(x + dx, 0), level.width - 1)
        ty = min(max(y + dy, 0), level.height - 1)
        targets.append((tx, ty))
        if (tx, ty) == (x, y):
            kinds.append("noop")
        elif level.tile(tx, ty) == FLOOR:
            kinds.append("mover")
        else:
            kinds.append("interactor")
    n = len(positions)
    movers = [i for i in range(n) if kinds[i] == "mover"]
    blocked: list[int | None] = [None] * n
    for i in movers:  # 1. contested targets
        if any(j != i and targets[j] == targets[i] for j in movers):
            blocked[i] = -1
    for i in movers:  # 2. swaps
        for j in movers:
            if j != i and targets[i] == positions[j] and targets[j] == positions[i] and blocked[i] is None:
                blocked[i] = j
    changed = True
    while changed:  # 3. into the cell of an agent that stays
        changed = False
        for i in movers:
            if blocked[i] is not None:
                continue
            for j in range(n):
                stays = kinds[j] != "mover" or blocked[j] is not None
                if j != i and stays and positions[j] == targets[i]:
                    blocked[i] = j
                    changed = True
                    break
    return targets, kinds, blocked


def kitchen_step(level, state: dict, actions, max_steps: int = DEFAULT_MAX_STEPS):
    """Apply one joint action to ``state`` in place.

    Args:
        level: a :class:`~gridsim.kitchen.KitchenLevel` or a name for ``load_kitchen_level``.
        state: the state dict (see the module docstring); changed in place.
        actions: one action 0..4 per agent.
        max_steps: the truncation limit.

    Returns:
        ``(reward, terminated, truncated, events)``: reward a float (the team reward), the
        flags Python bools, events a list of ``(name, payload tuple)``.
    """
    level = _level(level)
    rules = level.rules
    agents = state["agents"]
    acts = check_actions(actions, len(agents))
    state["t"] = min(state["t"] + 1, INT32_MAX)  # the kernel's count saturates
    events: list[tuple[str, tuple[int, ...]]] = []

    targets, kinds, blocked = _resolve_collisions(level, state, acts)
    for i, b in enumerate(blocked):
        if b is not None:
            events.append(("collision", (i, b)))
    for i, agent in enumerate(agents):
        if kinds[i] == "mover" and blocked[i] is None:
            agent["pos"] = targets[i]

    items = state["items"]
    for i, agent in enumerate(agents):
        if kinds[i] != "interactor":
            continue
        cell = targets[i]
        tile = level.tile(*cell)
        held = agent["held"]
        lying = items.get(cell)
        if tile == DELIVERY:
            if held is not None and rules.deliverable(held):
                state.setdefault("delivered", {}).setdefault(cell, []).append(held)
                agent["held"] = None
                bits = sum(1 << r for r, recipe in enumerate(level.recipes) if rules.satisfies(held, recipe))
                events.append(("dish_delivered", (i, _item_id(level, held), bits)))
            continue
        if tile not in (COUNTER, CUTBOARD):  # not reachable with the built-in tiles
            continue
        if held is not None:
            if lying is not None:
                if rules.mergeable(held, lying):
                    agent["held"] = rules.merge(held, lying)
                    del items[cell]
                    events.append(("items_merged", (i, _item_id(level, agent["held"]))))
            elif tile == CUTBOARD and rules.needs_chop(held):
                agent["held"] = rules.chop(held)
                events.append(("item_chopped", (i, _item_id(level, agent["held"]))))
            else:
                items[cell] = held
                agent["held"] = None
                events.append(("item_put", (i, _item_id(level, held), cell[0], cell[1])))
        elif lying is not None:
            agent["held"] = lying
            del items[cell]
            events.append(("item_picked", (i, _item_id(level, lying), cell[0], cell[1])))

    success = kitchen_solved(level, state)
    if success:
        events.append(("goal_reached", ()))
    return (1.0 if success else 0.0), success, state["t"] >= max_steps, events


# --------------------------------------------------------------------------- views


def _component_presence(level: KitchenLevel, items) -> np.ndarray:
    out = np.zeros(level.rules.num_components, np.uint8)
    for item in items:
        out |= np.array(level.rules.vector(item), np.int64) > 0
    return out


def kitchen_obs(level, state: dict, agent: int | None = None) -> np.ndarray:
    """The grid observation, uint8 ``(H, W, 4 + 2C + 4)``, or one channel more with ``agent``.

    Channels (C = 7 components with the default rules, so 22 or 23 channels): tile one-hot
    (floor, counter, cutboard, delivery); the components of the item lying on the cell (for a
    Delivery tile, the union over everything delivered there); the components of the item held
    by the agent standing on the cell; agent slots 1-4; with ``agent`` given, that agent's cell.
    """
    level = _level(level)
    n_comp = level.rules.num_components
    item0, held0, slot0 = NUM_TILE_KINDS, NUM_TILE_KINDS + n_comp, NUM_TILE_KINDS + 2 * n_comp
    channels = slot0 + MAX_AGENTS + (agent is not None)
    obs = np.zeros((level.height, level.width, channels), np.uint8)
    obs[np.arange(level.height)[:, None], np.arange(level.width)[None, :], level.tiles] = 1
    for (x, y), item in state["items"].items():
        obs[y, x, item0:held0] = _component_presence(level, [item])
    for (x, y), delivered in state.get("delivered", {}).items():
        obs[y, x, item0:held0] = _component_presence(level, delivered)
    for k, a in enumerate(state["agents"]):
        x, y = a["pos"]
        obs[y, x, slot0 + k] = 1
        if a["held"] is not None:
            obs[y, x, held0:slot0] = _component_presence(level, [a["held"]])
    if agent is not None:
        x, y = state["agents"][agent]["pos"]
        obs[y, x, -1] = 1
    return obs


# --------------------------------------------------------------------------- the env


class ReferenceKitchenEnv(gym.Env):
    """The reference stepper as a plain ``gymnasium.Env`` with the joint view.

    One kitchen; observation uint8 ``(H, W, 22)`` (with the default rules); action
    ``MultiDiscrete([5] * num_agents)``; the team reward. No autoreset: stepping past the end
    continues the dynamics (a solved kitchen keeps returning reward 1 and terminated). Seeds are
    accepted and ignored: the kitchen is deterministic. ``info`` is empty; the last step's events
    are in ``self.events``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, level="kitchen/open-divider_salad", num_agents: int = 2, max_episode_steps: int = 100,
                 render_mode: str | None = None, level_directory=None, rules=None):
        kwargs = {"rules": rules} if rules is not None else {}
        self.level = load_kitchen_level(level, level_directory, **kwargs)
        self.level.check_agents(num_agents)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.num_agents = int(num_agents)
        self.max_steps = int(max_episode_steps)
        shape = (self.level.height, self.level.width, self.level.tables.obs_channels)
        self.observation_space = gym.spaces.Box(0, 1, shape, np.uint8)
        self.action_space = gym.spaces.MultiDiscrete([NUM_ACTIONS] * self.num_agents)
        self.state: dict = kitchen_reset(self.level, self.num_agents)
        self.events: list = []

    def reset(self, *, seed=None, options=None):
        """Reset to the level's fixed starts (the seed is recorded only)."""
        super().reset(seed=seed)
        self.state = kitchen_reset(self.level, self.num_agents)
        self.events = []
        return kitchen_obs(self.level, self.state), {}

    def step(self, action):
        """One step of the reference dynamics."""
        reward, term, trunc, self.events = kitchen_step(self.level, self.state, action, self.max_steps)
        return kitchen_obs(self.level, self.state), reward, term, trunc, {}

    def render(self):
        """The ``ansi`` text grid (None without ``render_mode="ansi"``)."""
        if self.render_mode == "ansi":
            return render_ansi(self.level, self.state)
        return None

    def get_state(self, index: int = 0) -> dict:
        """A deep copy of the state dict."""
        return copy.deepcopy(self.state)

    def set_state(self, state: dict, index: int = 0):
        """Store a deep copy of ``state``; returns ``(obs, {})``."""
        self.state = copy.deepcopy(state)
        return kitchen_obs(self.level, self.state), {}
