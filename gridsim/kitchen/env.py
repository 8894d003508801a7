"""The kitchen family (gym-cooking): ``KitchenVectorEnv`` and its single-env view ``KitchenEnv``."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim._core as _core
import gridsim.kitchen._kernel as _kernel
from gridsim.engine.draw import check_cell_px
from gridsim.engine.family import Family, FamilyTools, Register
from gridsim.engine.locking import synchronized
from gridsim.engine.settings import (
    COMMON_SETTINGS,
    Setting,
    accepts_settings,
    as_flag,
    check_choice,
)
from gridsim.engine.single import SingleEnvView
from gridsim.engine.state import brief
from gridsim.engine.vector import GridVectorEnv
from gridsim.errors import InvalidArgumentError, InvalidStateError
from gridsim.kitchen.api import KITCHEN_EVENTS, KitchenApi
from gridsim.kitchen.level import load_kitchen_level
from gridsim.kitchen.render import render_ansi, render_rgb
from gridsim.kitchen.rules import DEFAULT_RULES
from gridsim.kitchen.state import KitchenState
from gridsim.lab2d.surface import LevelApiFacade
from gridsim.levels.lookup import LevelSource, builtin_level_names

__all__ = ["FAMILY", "KitchenEnv", "KitchenVectorEnv"]


class KitchenVectorEnv(LevelApiFacade, GridVectorEnv):
    """A batch of gym-cooking kitchens: 1 to 4 agents chop, plate and deliver dishes together.

    ## Description

    Overcooked-style kitchens read from gym-cooking's level files (map, recipes, agent
    starts). Agents walk on floor; moving into a non-floor cell interacts with it: pick
    up, put down, chop (a fresh item held against an empty cutting board), merge (a held
    item with the item on a counter; the result ends in the hand) and deliver. Agents act
    at once; conflicting moves are blocked so that no two agents ever share a cell.
    Positions are ``(x, y)``. Rules, items and recipes are data (``gridsim.kitchen``).

    ## Action Space

    Per agent ``Discrete(5)``: 0 noop, 1 up, 2 down, 3 left, 4 right. The joint view's
    ``single_action_space`` is ``MultiDiscrete([5] * A)``; the agent-rows view's is
    ``Discrete(5)``. Other values raise :class:`gridsim.InvalidActionError` before any
    kitchen is stepped.

    ## Observation Space

    uint8 0/1, ``(H, W, 22)`` (``channels_first=True``: ``(22, H, W)``): 0-3 tile one-hot
    (floor, counter, cutting board, delivery); 4-10 the components of the item on the cell
    (on a delivery tile: of everything delivered there), FreshTomato, ChoppedTomato,
    FreshLettuce, ChoppedLettuce, FreshOnion, ChoppedOnion, Plate; 11-17 the same for an
    item held on the cell; 18-21 agent 1..4 stands on the cell. The agent-rows view adds
    channel 22: this row's own agent.

    ## Rewards

    A team reward, the same for every agent: 1.0 on every step on which every recipe of
    the level has been delivered (as its exact dish), else 0.0.

    ## Starting State

    Fixed: agents on the level's first ``num_agents`` starts, items where the map puts
    them. Seeds are accepted and recorded only.

    ## Episode End

    Terminated when every recipe is delivered (also on the last allowed step);
    truncated when the step count reaches ``max_episode_steps`` (100 for the registered
    ids). Where an episode ends, ``infos["episode_stats"]`` holds ``return``, ``length``,
    ``success`` and ``dishes_delivered``. With ``events=True`` the kernel records each
    kitchen's events (``gridsim.kitchen.api.KITCHEN_EVENTS``: ``item_picked``, ``item_put``,
    ``item_chopped``, ``items_merged``, ``dish_delivered``, ``collision``, ``goal_reached``).

    ## Arguments

    ``num_envs`` (kitchens, or rows: kitchens x agents with ``agent_rows=True``); ``level``
    (``"kitchen/<stem>"``, a path, ``"=" + text`` or a resolved ``LevelSource``); ``obs_type="features"`` is a compact
    float32 vector (per non-floor cell the components of its item, then per agent ``x, y``
    and its held components); ``rules`` (a ``gridsim.kitchen.Rules`` with extra foods or
    recipes); ``tile_px=32``; ``level_directory``.

    {settings}

    ## Version History

    * v0: initial release, gym-cooking's rules with its collision and time-limit bugs fixed.

    Example:
        >>> import gymnasium as gym
        >>> import numpy as np
        >>> import gridsim
        >>> envs = gym.make_vec("gridsim/Kitchen-open-divider_salad-v0", num_envs=2)
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape
        (2, 7, 7, 22)
        >>> obs, rewards, terminations, truncations, infos = envs.step(np.zeros((2, 2), np.int64))
    """

    stat_extras = {"success": "stat_success", "dishes_delivered": "stat_dishes"}
    level_api_class = KitchenApi
    EVENT_SPECS = KITCHEN_EVENTS
    SETTINGS = {
        **COMMON_SETTINGS,
        "num_agents": Setting(int, 2, doc="agents per kitchen, 1 to 4", rules=True),
        "agent_rows": Setting(bool, False, doc="one row per agent"),
        "obs_type": Setting(("grid", "features"), "grid", doc="Gymnasium observation"),
        "channels_first": Setting(bool, False, doc="grid observations (C, H, W)"),
        "tile_px": Setting(int, 32, doc="render size of a cell"),
    }

    @accepts_settings
    def __init__(
        self,
        num_envs: int = 1,
        *,
        level: str | Path | LevelSource = "kitchen/open-divider_salad",
        num_agents: int = 2,
        agent_rows: bool = False,
        obs_type: str = "grid",
        channels_first: bool = False,
        rules=DEFAULT_RULES,
        tile_px: int = 32,
        level_directory: str | None = None,
        obs_dtype=None,
        **common: Any,
    ):
        # autoreset_mode, render_mode, copy, num_threads, mixer_seed, episode_stats, events, ...
        super().__init__(num_envs=num_envs, obs_dtype=obs_dtype, **common)
        agent_rows, channels_first = as_flag(agent_rows, "agent_rows"), as_flag(channels_first, "channels_first")
        self.level = load_kitchen_level(level, level_directory, rules=rules)
        self.level.check_agents(num_agents)
        if agent_rows and self.num_envs % num_agents:
            raise InvalidArgumentError(f"with agent_rows, num_envs ({self.num_envs}) counts rows: a multiple of "
                             f"num_agents ({num_agents})")
        self.num_agents = int(num_agents)
        self.agent_rows = bool(agent_rows)
        self.num_kitchens = self.num_envs // num_agents if agent_rows else self.num_envs
        if isinstance(tile_px, bool) or not isinstance(tile_px, numbers.Integral) or not 1 <= tile_px <= 256:
            raise InvalidArgumentError(f"tile_px must be an integer in 1..256, got {tile_px!r:.80}")
        self.tile_px: int = int(tile_px)
        self.state = KitchenState(
            self.level, self.num_kitchens, num_agents, agent_rows=agent_rows, channels_first=channels_first,
            autoreset_mode=self.kernel_autoreset, max_steps=self.max_episode_steps or 0, events=self.record_events,
            max_events=self.max_events_per_step,
        )
        shape = self.state.obs.shape[1:]
        obs_space = gym.spaces.Box(0, 1, shape, np.uint8)
        if obs_dtype is not None:
            obs_space = gym.spaces.Box(0, 1, shape, np.dtype(obs_dtype))
        self.single_observation_space = obs_space
        self.single_action_space = (gym.spaces.Discrete(5) if agent_rows
                                    else gym.spaces.MultiDiscrete([5] * num_agents))
        check_choice(obs_type, "obs_type", ("grid", "features"))
        self.obs_type = obs_type
        if obs_type == "features":
            self._feature_plan()
            self.single_observation_space = gym.spaces.Box(
                0, max(self.level.height, self.level.width) - 1, (self._num_features,),
                np.dtype(obs_dtype) if obs_dtype is not None else np.float32)
            self.obs_transform = self._features
            self.obs_rewritten_every_step = False  # the grid stays internal; features are new arrays
        self.kernel = _kernel.KitchenKernel(self.state)
        self._finish_init()
        self._step_by_dtype = {np.dtype(np.int64): self.kernel.step_i64, np.dtype(np.int32): self.kernel.step_i32}

    # ------------------------------------------------------------------ features

    def _feature_plan(self):
        tiles = self.level.tiles
        self._item_cells = np.argwhere(tiles != 0)  # (M, 2) (y, x) of every non-floor cell
        self._K = self.state.num_components
        M, A, K = len(self._item_cells), self.num_agents, self._K
        self._num_features = M * K + A * (2 + K)

    def _features(self, grid: np.ndarray) -> np.ndarray:
        """The compact observation of a batch of grids.

        Per non-floor cell (row-major) the components of its item (delivery: everything
        delivered), then per agent ``x, y`` and its held item's components; in the
        agent-rows view the row's own agent comes first.
        """
        g = grid.transpose(0, 2, 3, 1) if self.state.channels_first else grid  # (B, H, W, C) view
        B, H, W, _ = g.shape
        K, A = self._K, self.num_agents
        ys, xs = self._item_cells[:, 0], self._item_cells[:, 1]
        items = g[:, ys, xs, 4 : 4 + K].reshape(B, -1)
        cells = g[:, :, :, 4 + 2 * K : 4 + 2 * K + A].reshape(B, H * W, A).argmax(1)  # (B, A)
        if self.agent_rows:  # the row's own agent first, then the others in slot order
            own = g[:, :, :, -1].reshape(B, H * W).argmax(1)
            first = (cells == own[:, None]).argmax(1)
            order = np.array([[a] + [b for b in range(A) if b != a] for a in range(A)])[first]
            cells = np.take_along_axis(cells, order, 1)
        y, x = np.divmod(cells, W)
        held = g[np.arange(B)[:, None], y, x, 4 + K : 4 + 2 * K]  # (B, A, K)
        agents = np.concatenate([x[..., None], y[..., None], held], axis=2).reshape(B, -1)
        return np.concatenate([items, agents], axis=1).astype(np.float32)

    def _coerce_actions(self, actions):
        a = np.asarray(actions)
        if a.shape != self._action_shape:
            raise _core_invalid(f"actions must have shape {self._action_shape}, got {a.shape}")
        if a.dtype.kind not in "iu":
            raise _core_invalid(f"actions must have an integer dtype, got {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.int64)
        return a, self.kernel.step_i64

    def _kernel_error(self, actions) -> Exception:
        if self.kernel.err_code == _core.ERR_BAD_ACTION:
            return _core_invalid(f"actions of row {self.kernel.err_env} must be in 0..4; no kitchen was stepped")
        return super()._kernel_error(actions)

    # ----------------------------------------------------------------- resets

    def _rows_to_units(self, mask: np.ndarray, seeds):
        if not self.agent_rows:
            return mask, seeds
        A = self.num_agents
        by_kitchen = mask.reshape(-1, A)
        if (by_kitchen != by_kitchen[:, :1]).any():
            k = int(np.flatnonzero((by_kitchen != by_kitchen[:, :1]).any(1))[0])
            raise InvalidArgumentError(f"reset_mask must select all {A} rows of a kitchen or none (kitchen {k})")
        return np.ascontiguousarray(by_kitchen[:, 0]), None if seeds is None else seeds[::A]

    # ------------------------------------------------------------- state access

    @property
    def row_units(self) -> np.ndarray:
        """(N,) the kitchen of each row."""
        rows = np.arange(self.num_envs)
        return rows // self.num_agents if self.agent_rows else rows

    def _kitchen(self, index: int) -> int:
        row = self.row_index(index)
        return row // self.num_agents if self.agent_rows else row

    @synchronized
    def get_state(self, index: int = 0) -> dict[str, Any]:
        """Row ``index``'s kitchen as a dict of Python values.

        ``{"t": int, "agents": [{"pos": (x, y), "held": full name or None}], "items": {(x, y):
        full name}, "delivered": {(x, y): [full names]}}``.
        """
        self.check_open()
        k = self._kitchen(index)
        st = self.state
        names = self.level.tables.item_names
        W = self.level.width

        def name(i):
            return None if i == 0 else names[i]

        agents = [{"pos": (int(c % W), int(c // W)), "held": name(int(h))}
                  for c, h in zip(st.agent_cell[k], st.held[k], strict=True)]
        items = {(int(c % W), int(c // W)): names[int(i)] for c, i in enumerate(st.tile_item[k]) if i}
        delivered: dict[tuple[int, int], list[str]] = {}
        for j in range(int(st.n_delivered[k])):
            c = int(st.delivered_cell[k, j])
            delivered.setdefault((c % W, c // W), []).append(names[int(st.delivered_item[k, j])])
        return {"t": int(st.t[k]), "agents": agents, "items": items, "delivered": delivered}

    # set_state keys of the state fields, for messages.
    STATE_LABELS = {"agent_cell": "agents.pos", "held": "agents.held", "tile_item": "items",
                    "n_delivered": "delivered", "delivered_item": "delivered", "delivered_cell": "delivered"}

    @synchronized
    def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[np.ndarray, dict]:
        """Inject a state dict (the format of :meth:`get_state`) into row ``index``'s kitchen.

        Agents must stand on distinct floor cells, items lie on counters or cutting boards,
        deliveries be deliverable items on delivery tiles. Every value is checked before
        anything changes. Returns ``(obs, {})`` of the row.

        Raises:
            InvalidStateError: a value of the wrong type, or one the kitchen cannot be in (nothing is changed).
        """
        self.check_open()
        k = self._kitchen(index)
        st, tables = self.state, self.level.tables
        W, H = self.level.width, self.level.height
        v = self.state_io.unit_view(k, self.row_index(index))

        def cell(xy, field, what):
            ok = isinstance(xy, (tuple, list)) and len(xy) == 2 and all(
                isinstance(c, numbers.Integral) and not isinstance(c, (bool, np.bool_)) for c in xy)
            if not ok or not (0 <= xy[0] < W and 0 <= xy[1] < H):
                v.fail(field, 0, f"{what} {brief(xy)}; allowed: (x, y) with x in 0..{W - 1} and y in 0..{H - 1}")
            return int(xy[1]) * W + int(xy[0])

        def item(name, field, what):
            try:
                return tables.item_id(name)
            except (KeyError, TypeError, ValueError, AttributeError):
                v.fail(field, 0, f"{what}: {brief(name)} is not an item this level can hold (None or a full item name)")

        if not isinstance(state, Mapping) or not isinstance(state.get("agents"), (list, tuple)):
            raise InvalidStateError("a kitchen state is a dict with a list 'agents' (get_state())", env=v.row)
        agents = state["agents"]
        if len(agents) != self.num_agents or not all(isinstance(a, Mapping) and "pos" in a for a in agents):
            v.fail("agent_cell", 0, f"must list {self.num_agents} agents, each a dict with 'pos' and 'held'")
        for a, agent in enumerate(agents):
            v.put_int("agent_cell", cell(agent["pos"], "agent_cell", f"agent {a + 1}'s pos"), a)
            v.put_int("held", item(agent.get("held"), "held", f"agent {a + 1}'s held item"), a)
        v["tile_item"][0] = 0
        placed = state.get("items", {})
        if not isinstance(placed, Mapping):
            v.fail("tile_item", 0, f"must be a dict (x, y) -> item name, got {type(placed).__name__}")
        for xy, name in placed.items():
            v.put_int("tile_item", item(name, "tile_item", f"item at {brief(xy)}"), cell(xy, "tile_item", "item cell"))
        delivered = state.get("delivered", {})
        if not isinstance(delivered, Mapping) or not all(isinstance(n, (list, tuple)) for n in delivered.values()):
            v.fail("delivered_item", 0, "must be a dict (x, y) -> list of item names")
        order = [(cell(xy, "delivered_cell", "delivery cell"),
                  item(name, "delivered_item", f"delivered at {brief(xy)}"))
                 for xy, names in delivered.items() for name in names]
        D = st.delivered_item.shape[1]
        if len(order) > D:
            v.fail("n_delivered", 0, f" is {len(order)}; allowed: 0..{D} (the deliveries this level's items allow)")
        v["n_delivered"][0] = len(order)
        for j, (c, i) in enumerate(order):
            v["delivered_cell"][0, j], v["delivered_item"][0, j] = c, i
        v.in_range("delivered_item", 0, len(st.chop_to) - 1)  # before the tables below index with them
        bits, solved = st.delivery_tables(v["delivered_item"], v["delivered_cell"], v["n_delivered"])
        v["delivered_bits"][0], v["solved"][0] = bits[0], solved[0]
        v.put_int("t", state.get("t", 0))
        v["needs_reset"][0] = False
        return self.state_io.commit_view(v, k, k * self.num_agents if self.agent_rows else k), {}

    # ------------------------------------------------------------------ render

    @synchronized
    def render_frame(self, index: int = 0, cell_px: int | None = None) -> np.ndarray:
        """Row ``index``'s kitchen as a uint8 (H * px, W * px, 3) frame (``px``: ``cell_px`` or ``tile_px``).

        Fresh foods are whole discs, chopped ones cut in four, plates white dishes holding
        what was merged onto them; each agent's cell is framed in its colour, with its
        number and the item it holds (``gridsim.kitchen.render``).
        """
        px = check_cell_px(cell_px, self.tile_px, self.level.height, self.level.width)
        return render_rgb(self.level, self.get_state(index), px)

    @synchronized
    def render_text(self, index: int = 0) -> str:
        """Row ``index``'s kitchen as text: map characters, agents 1-4, items (t/T, l/L, o/O, p, m)."""
        return render_ansi(self.level, self.get_state(index))


def _core_invalid(message: str) -> Exception:
    from gridsim.errors import InvalidActionError

    return InvalidActionError(message)


class KitchenEnv(SingleEnvView):
    """One kitchen (``gymnasium.Env``, joint view) over :class:`KitchenVectorEnv` with one row.

    Everything in :class:`KitchenVectorEnv`'s docstring applies. Past the end of an
    episode the kitchen keeps stepping, as the original did: deliveries are permanent, so
    a solved kitchen keeps returning reward 1.0 and terminated True.
    """

    vector_class = KitchenVectorEnv


# The layout of each built-in kitchen, by the start of its name, for gridsim list.
LAYOUTS = {
    "open-divider": "an open kitchen",
    "partial-divider": "a kitchen half split by a counter",
    "full-divider": "a kitchen split in two by a counter (pass items over it)",
    "big-onion-salad": "a big kitchen with two deliveries",
    "corridor": "two rooms joined by a one-cell corridor (pass items over a counter)",
}


def _dish_words(dish: str) -> str:
    """``"ChoppedLettuce-Plate-ChoppedTomato"`` as ``"a plate of chopped lettuce and tomato"``."""
    parts = dish.split("-")
    foods = [part.removeprefix("Chopped").lower() for part in parts if part != "Plate"]
    listed = foods[0] if len(foods) == 1 else ", ".join(foods[:-1]) + " and " + foods[-1]
    return ("a plate of " if "Plate" in parts else "") + f"chopped {listed}"


def description_of(env_id: str) -> str | None:
    """One line on a kitchen id's task (``gridsim list``), or None for an id that is not one."""
    if not (env_id.startswith("gridsim/Kitchen-") and env_id.endswith("-v0")):
        return None
    name = "kitchen/" + env_id[len("gridsim/Kitchen-"):-len("-v0")]
    layout = next((text for start, text in LAYOUTS.items() if name.startswith("kitchen/" + start)), None)
    if layout is None or name not in builtin_level_names("kitchen"):
        return None
    level = load_kitchen_level(name)
    dishes = " and ".join(_dish_words(d) for d in level.dishes)
    return f"{layout}: 2 agents deliver {dishes} ({level.width}x{level.height})"


def register_ids(register: Register):
    """``gridsim/Kitchen-<level>-v0`` for every built-in kitchen, with two agents."""
    for name in builtin_level_names("kitchen"):
        register(f"gridsim/Kitchen-{name.split('/', 1)[1]}-v0", 100, {"level": name, "num_agents": 2})


FAMILY = Family(
    name="kitchen",
    vector_env=KitchenVectorEnv,
    single_env=KitchenEnv,
    register_ids=register_ids,
    exports=("LevelParseError",),
    describe=description_of,
    tools=FamilyTools(
        bench_level="kitchen/open-divider_salad",
        eval_id="gridsim/Kitchen-open-divider_salad-v0",
        bench_kwargs={"max_episode_steps": 100},  # two agents (the default), joint view
        agents_per_env=2,
        # Moving into a counter, a board or the delivery interacts with it (docs/kitchen.md).
        play_keys={"up": 1, "down": 2, "left": 3, "right": 4, "n": 0},
        play_help="arrows move the chosen agent (into a counter: interact), Tab or 1-4 choose it, N wait",
        play_idle_action=0,  # noop
    ),
)
