"""The navigation family (PixelWorld): ``NavVectorEnv`` and its single-env view ``NavEnv``."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim.nav._kernel as _kernel
from gridsim.engine.draw import cell_box, check_cell_px, fill_disc, fill_rect
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
from gridsim.errors import ArgumentTypeError, InvalidArgumentError, InvalidStateError
from gridsim.lab2d.surface import LevelApiFacade
from gridsim.levels.lookup import LevelSource, builtin_level_names, read_source
from gridsim.levels.textmap import parse_level_text
from gridsim.nav.alphabet import F_WALKABLE
from gridsim.nav.api import NAV_EVENTS, NavApi
from gridsim.nav.level import LEVEL_GRAMMAR, NavLevel, compile_nav_level, load_nav_level, read_nav_level
from gridsim.nav.state import OBS_COORDS, OBS_IMAGE, OBS_VIEW, NavState, check_obs_size

__all__ = ["FAMILY", "NavEnv", "NavVectorEnv", "nav_spaces", "ACTION_TYPES", "OBS_TYPES", "PIXELWORLD_IDS"]

ACTION_TYPES = {
    "1d_discrete": "1d_discrete",
    "2d_discrete": "1d_discrete",  # the original's name in code
    "1d_horizontal": "1d_horizontal",
    "1d_vertical": "1d_vertical",
    "2d_continuous": "2d_continuous",
}
OBS_TYPES = {"coords": OBS_COORDS, "xy": OBS_COORDS, "image": OBS_IMAGE, "view": OBS_VIEW}


def _choice(kind: str, value: str, table: Mapping[str, Any]) -> str:
    return check_choice(value, kind, table)


def nav_spaces(
    level: NavLevel,
    obs_type: str = "coords",
    actions: str = "1d_discrete",
    *,
    view_size: int = 7,
    channels_first: bool = False,
    pixels_per_cell: int = 1,
    obs_dtype=None,
) -> tuple[gym.spaces.Box, gym.spaces.Space]:
    """The single observation and action spaces of a navigation env.

    Raises:
        InvalidArgumentError: a bad ``view_size`` or ``pixels_per_cell`` (:func:`check_obs_size`).
    """
    H, W = level.height, level.width
    check_obs_size(H, W, view_size, pixels_per_cell)
    kind = OBS_TYPES[_choice("obs_type", obs_type, OBS_TYPES)]
    obs: gym.spaces.Box
    action: gym.spaces.Space
    if kind == OBS_COORDS:
        obs = gym.spaces.Box(
            low=np.zeros(2, np.int32), high=np.array([H - 1, W - 1], np.int32), dtype=np.int32
        )
    elif kind == OBS_VIEW:
        obs = gym.spaces.Box(0, len(level.alphabet.chars) - 1, (view_size, view_size), np.uint8)
    else:
        h, w = H * pixels_per_cell, W * pixels_per_cell
        obs = gym.spaces.Box(0, 255, (3, h, w) if channels_first else (h, w, 3), np.uint8)
    if obs_dtype is not None:
        obs = gym.spaces.Box(obs.low.astype(obs_dtype), obs.high.astype(obs_dtype),
                             obs.shape, np.dtype(obs_dtype))
    act = ACTION_TYPES[_choice("actions", actions, ACTION_TYPES)]
    if act == "2d_continuous":
        action = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    elif act == "1d_discrete":
        action = gym.spaces.Discrete(4)
    else:
        action = gym.spaces.Discrete(2)
    return obs, action


RENDER_CELL_PX = 16  # render_frame's pixels per cell


class NavVectorEnv(LevelApiFacade, GridVectorEnv):
    """A batch of PixelWorld navigation grids, stepped by one kernel call.

    ## Description

    The agent walks a text map (PixelWorld's format or gridsim's native format,
    see ``docs/levels.md``) whose symbols come from an *alphabet*: each symbol has a
    reward distribution, a colour and the flags terminal, accessible, initial,
    stochastic and collectible. Coordinates are ``(row, col)``, row 0 at the top.

    ## Action Space

    | ``actions=`` | space | index -> (d_row, d_col) |
    |---|---|---|
    | ``"1d_discrete"`` (default; alias ``"2d_discrete"``) | ``Discrete(4)`` | 0 up, 1 right, 2 down, 3 left |
    | ``"1d_horizontal"`` | ``Discrete(2)`` | 0 right, 1 left |
    | ``"1d_vertical"`` | ``Discrete(2)`` | 0 down, 1 up |
    | ``"2d_continuous"`` | ``Box(-1, 1, (2,), float32)`` | (d_row, d_col) clipped to [-1, 1], see below |

    A continuous action moves each axis by -1 below -0.5, by +1 from 0.5 up, else 0.
    A move target is clamped into the map; the agent moves only if the target is
    accessible. Continuous moves may be diagonal (only the destination is checked).
    Out-of-range discrete actions and NaN continuous actions raise
    :class:`gridsim.InvalidActionError` before any env is stepped
    (``nan_action="zero"`` treats NaN components as 0 instead).

    ## Observation Space

    | ``obs_type=`` | dtype, shape | content |
    |---|---|---|
    | ``"coords"`` (default; alias ``"xy"``) | int32 (2,) | ``[row, col]`` of the agent |
    | ``"image"`` | uint8 (H, W, 3); (3, H, W) if ``channels_first`` | one pixel per cell, see below |
    | ``"view"`` | uint8 (v, v) | tile ids of the v x v cells centred on the agent |

    The image shows each cell in its current colour and the agent's cell in the agent
    colour; ``pixels_per_cell=k`` upscales it by k. The view's side is ``view_size``
    (default 7); tile id 0 is outside the map, symbol k of the alphabet is id k + 1.

    ## Rewards

    The reward of a step is the reward of the cell the agent occupies after it (the
    cell it stayed on if the move was blocked). Fixed (non-stochastic) rewards are
    drawn once per env seed, row-major, from the env's table stream, and kept across
    episodes; stochastic symbols draw on every visit from the episode stream. A
    collectible cell pays once per episode and then has the default symbol's
    properties. ``navigation`` alphabet: -1 per step on floor, +1 at the goal.

    ## Starting State

    A uniformly random initial cell (``S``); ``options={"start": (row, col)}`` at reset
    overrides it. With ``randomize_goals=True`` one terminal cell is kept per
    episode and the others become default tiles.

    ## Episode End

    Terminated on a terminal cell. Truncated when ``steps >= max_episode_steps``
    (``None``: never; the registered ids use 100). Both can be true on one step.
    On the rows where an episode ends, ``infos["episode_stats"]`` holds its
    ``return`` and ``length`` (inside ``final_info`` under ``SAME_STEP``).

    ## Arguments

    ``num_envs``; ``level`` (a level name such as ``"nav/room1_small"``, a path, ``"=<map text>"``
    or a text level's ``LevelSource`` from ``gridsim.levels.lookup.resolve_level``) or ``world_map``
    (map text, or a sequence of ``num_envs`` texts of one size); ``alphabet`` may also be a dict
    or an ``Alphabet``; ``level_directory``.

    {settings}

    ## Version History

    * v0: initial release; PixelWorld's semantics with its bugs fixed (see specs).

    Example:
        >>> import gymnasium as gym
        >>> import numpy as np
        >>> import gridsim
        >>> envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=3)
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape, obs.dtype
        ((3, 2), dtype('int32'))
        >>> obs, rewards, terminations, truncations, infos = envs.step(np.array([1, 1, 1]))
        >>> rewards
        array([-1., -1., -1.], dtype=float32)
        >>> envs.close()
    """

    level_api_class = NavApi
    EVENT_SPECS = NAV_EVENTS
    SETTINGS = {
        **COMMON_SETTINGS,
        "alphabet": Setting(("navigation", "noisy"), None, optional=True, doc="built-in alphabet"),
        "actions": Setting(tuple(ACTION_TYPES), "1d_discrete", doc="action type", rules=True),
        "obs_type": Setting(tuple(OBS_TYPES), "coords", doc="Gymnasium observation"),
        "view_size": Setting(int, 7, doc="side of the egocentric view"),
        "channels_first": Setting(bool, False, doc="image observations (3, H, W)"),
        "pixels_per_cell": Setting(int, 1, doc="image upscaling"),
        "randomize_goals": Setting(bool, False, rules=True,
                                   doc="keep one terminal cell per episode (fixes the memory layout)"),
        "default_symbol": Setting(str, None, optional=True, doc="symbol of collected cells"),
        "unknown_symbols": Setting(str, None, optional=True, doc="'error' or a symbol for unknown characters"),
        "nan_action": Setting(("error", "zero"), "error", doc="NaN in continuous actions", rules=True),
    }

    @accepts_settings
    def __init__(
        self,
        num_envs: int = 1,
        *,
        level: str | Path | LevelSource | None = None,
        world_map: str | Sequence[str] | None = None,
        alphabet=None,
        actions: str = "1d_discrete",
        obs_type: str = "coords",
        view_size: int = 7,
        channels_first: bool = False,
        pixels_per_cell: int = 1,
        randomize_goals: bool = False,
        default_symbol: str | None = None,
        unknown_symbols: str | None = None,
        nan_action: str = "error",
        level_directory: str | None = None,
        obs_dtype=None,
        **common: Any,
    ):
        # autoreset_mode, render_mode, copy, num_threads, mixer_seed, episode_stats, events, ...
        super().__init__(num_envs=num_envs, obs_dtype=obs_dtype, **common)
        self.nan_action = check_choice(nan_action, "nan_action", ("error", "zero"))
        channels_first = as_flag(channels_first, "channels_first")
        for name, value in (("default_symbol", default_symbol), ("unknown_symbols", unknown_symbols)):
            if value is not None and not isinstance(value, str):
                raise ArgumentTypeError(f"{name} must be a str or None, got {value!r}")
        maps = self._load_maps(level, world_map, alphabet, default_symbol, unknown_symbols,
                               level_directory)
        self.level = maps[0]
        self.maps = maps
        self.actions = ACTION_TYPES[_choice("actions", actions, ACTION_TYPES)]
        obs_type = _choice("obs_type", obs_type, OBS_TYPES)
        self.obs_type = "coords" if obs_type == "xy" else obs_type
        self.randomize_goals = randomize_goals = as_flag(randomize_goals, "randomize_goals")
        self.single_observation_space, self.single_action_space = nav_spaces(
            self.level, self.obs_type, self.actions, view_size=view_size,
            channels_first=channels_first, pixels_per_cell=pixels_per_cell, obs_dtype=obs_dtype,
        )
        self.state = NavState(
            maps, self.num_envs,
            map_id=np.arange(self.num_envs) if len(maps) > 1 else None,
            obs_kind=OBS_TYPES[self.obs_type], view_size=view_size,
            pixels_per_cell=pixels_per_cell, channels_first=channels_first,
            actions=self.actions, autoreset_mode=self.kernel_autoreset, randomize_goals=randomize_goals,
            max_steps=self.max_episode_steps or 0, nan_to_zero=nan_action == "zero",
            events=self.record_events, max_events=self.max_events_per_step,
        )
        self.kernel = _kernel.NavKernel(self.state)
        self.obs_rewritten_every_step = self.obs_type != "image"  # images are repainted cell by cell
        self._finish_init()

    def _load_maps(self, level, world_map, alphabet, default_symbol, unknown_symbols,
                   level_directory) -> list[NavLevel]:
        opts = dict(alphabet=alphabet, default_symbol=default_symbol, unknown_symbols=unknown_symbols)
        if (level is None) == (world_map is None):
            raise InvalidArgumentError("pass exactly one of level= (a level name) or world_map= (map text)")
        if isinstance(level, LevelSource):  # already resolved (gridsim.make): read it, no second lookup
            return [compile_nav_level(read_source(level), **opts)]
        if level is not None:
            return [load_nav_level(level, level_directory=level_directory, **opts)]
        if isinstance(world_map, str):
            return [compile_nav_level(parse_level_text(world_map), **opts)]
        if not isinstance(world_map, Sequence) or not all(isinstance(t, str) for t in world_map):
            raise ArgumentTypeError(f"world_map must be map text or a sequence of map texts, got {world_map!r:.80}")
        texts = list(world_map)
        if len(texts) != self.num_envs:
            raise InvalidArgumentError(
                f"world_map holds {len(texts)} maps; a sequence needs one per env ({self.num_envs})"
            )
        return [compile_nav_level(parse_level_text(t, f"<world_map[{k}]>"), **opts)
                for k, t in enumerate(texts)]

    # ---------------------------------------------------------------- options

    def _reset_option_writes(self, mask: np.ndarray, options: Mapping[str, Any]) -> list:
        unknown = set(options) - {"start"}
        if unknown:
            raise InvalidArgumentError(f"unknown reset options {sorted(unknown)}; the navigation family knows 'start'")
        if "start" not in options or options["start"] is None:
            return []
        start = np.asarray(options["start"])
        if start.dtype.kind not in "iu":
            raise InvalidArgumentError(f"options['start'] must hold integers, got dtype {start.dtype}")
        if start.shape == (2,):
            start = np.broadcast_to(start, (self.num_envs, 2))
        if start.shape != (self.num_envs, 2):
            raise InvalidArgumentError(
                f"options['start'] must have shape (2,) or ({self.num_envs}, 2), got {start.shape}"
            )
        for i in np.flatnonzero(mask):
            self._check_cell(int(start[i, 0]), int(start[i, 1]), int(i), "options['start']")
        st = self.state
        rows = np.flatnonzero(mask)
        return [(st.start_override, rows, np.asarray(st.cell_of(start[mask]), st.start_override.dtype))]

    def _check_cell(self, r: int, c: int, i: int, what: str):
        if not (0 <= r < self.level.height and 0 <= c < self.level.width):
            raise InvalidArgumentError(
                f"{what} {(r, c)} for env {i} is outside the {self.level.height}x{self.level.width} map")
        t = self.state.tiles_of(i)[r, c]
        if not self.state.tile_flags[t] & F_WALKABLE:
            raise InvalidArgumentError(
                f"{what} {(r, c)} for env {i} is not accessible ({self.level.alphabet.chars[t]!r})")

    # ------------------------------------------------------------ state access

    def level_name(self) -> str:
        """The map's name, or the first of several maps' and how many others there are."""
        names = list(dict.fromkeys(m.name for m in self.maps))
        return names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} other maps"

    @synchronized
    def get_state(self, index: int = 0) -> dict[str, Any]:
        """Env ``index`` as a plain dict of Python values.

        Keys: ``pos`` (row, col); ``step`` (steps in this episode); ``tiles`` (current
        map rows as text: collected cells and removed goals show the default symbol);
        ``episode`` (episode counter); ``key`` (the two 64-bit halves of the env's
        key); ``rng`` (episode stream state); ``return`` (episode return so far);
        ``needs_reset`` (the episode ended and a reset is pending). The fixed-reward
        table follows from ``key`` (drawn again when a key is injected).
        """
        self.check_open()
        i = self.row_index(index)
        st = self.state
        chars = self.level.alphabet.chars
        tiles = st.tiles_of(i)
        row, col = st.cell_rc[st.agent_cell[i]]
        return {
            "pos": (int(row), int(col)),
            "step": int(st.step_count[i]),
            "tiles": ["".join(chars[t] for t in row) for row in tiles],
            "episode": int(st.episode[i]),
            "key": (int(st.key[i, 0]), int(st.key[i, 1])),
            "rng": int(st.rng[i]),
            "return": float(st.ep_return[i]),
            "needs_reset": bool(st.needs_reset[i]),
        }

    # set_state keys of the state fields, for messages.
    STATE_LABELS = {"agent_cell": "pos", "step_count": "step", "grid": "tiles", "cell_flags": "tiles",
                    "ep_return": "return"}
    STATE_KEYS = frozenset({"pos", "step", "tiles", "episode", "key", "rng", "return", "needs_reset"})

    @synchronized
    def set_state(self, state: Mapping[str, Any], index: int = 0) -> tuple[np.ndarray, dict]:
        """Inject a state dict (the keys of :meth:`get_state`; missing keys keep their value).

        ``tiles`` may differ from the map only where a cell holds the default symbol
        (a collected cell or a removed goal); ``pos`` must be an accessible cell (or a start
        cell). Every value is checked before anything changes. Returns ``(obs, info)`` of that env.

        Raises:
            InvalidStateError: a key is unknown or a value breaks the family's invariants
                (nothing is changed).
        """
        self.check_open()
        i = self.row_index(index)
        st = self.state
        if not isinstance(state, Mapping):
            raise InvalidStateError(f"a state is a dict (get_state()), got {type(state).__name__}", env=i)
        unknown = set(state) - self.STATE_KEYS
        if unknown:
            raise InvalidStateError(f"unknown state keys {sorted(unknown)}; known: {sorted(self.STATE_KEYS)}", env=i)
        v = self.state_io.unit_view(i)
        if "tiles" in state:
            P, H, W = st.pad, st.height, st.width
            grid = v["grid"].reshape(H + 2 * P, st.row_stride)
            grid[P : P + H, P : P + W] = self._parse_tiles(state["tiles"], i)
            v["cell_flags"][0] = st.tile_flags[v["grid"][0]].astype(np.uint8)
        if "pos" in state:
            v.put_int("agent_cell", int(st.cell_of(self._parse_pos(state["pos"], i))))
        if "step" in state:
            v.put_int("step_count", state["step"])
        if "episode" in state:
            v.put_int("episode", state["episode"])
        if "key" in state:
            key = state["key"]
            if not _is_pair(key):
                v.fail("key", 0, f"must be two 64-bit integers (hi, lo), got {brief(key)}")
            for j in range(2):
                v.put_int("key", key[j], j)
            v["seeded"][0] = True
        if "rng" in state:
            v.put_int("rng", state["rng"])
        if "return" in state:
            v.put_float("ep_return", state["return"])
        if "needs_reset" in state:
            v.put_bool("needs_reset", state["needs_reset"])
        # Fixed rewards belong to the key.
        redraw = [(self.kernel.redraw_table, (i,))] if "key" in state else []
        return self.state_io.commit_view(v, i, i, after_write=redraw), {}

    def _parse_pos(self, pos, i: int) -> tuple[int, int]:
        """A ``pos`` value as (row, col) inside the map."""
        H, W = self.level.height, self.level.width
        ok = _is_pair(pos) and all(
            isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) for x in pos)
        if not ok or not (0 <= pos[0] < H and 0 <= pos[1] < W):
            raise InvalidStateError(f"state field 'pos' of env {i}: {brief(pos)}; allowed: (row, col) with row in "
                                    f"0..{H - 1} and col in 0..{W - 1}", field="pos", env=i)
        return int(pos[0]), int(pos[1])

    def _parse_tiles(self, rows, i: int) -> np.ndarray:
        """``tiles`` as (H, W) tile ids (which tiles may differ from the map is checked with the state)."""
        a = self.level.alphabet
        H, W = self.level.height, self.level.width
        ok = isinstance(rows, (list, tuple)) and len(rows) == H and all(isinstance(r, str) and len(r) == W
                                                                         for r in rows)
        if not ok:
            raise InvalidStateError(f"state field 'tiles' of env {i}: allowed: {H} strings of {W} characters",
                                    field="tiles", env=i)
        try:
            return np.array([[a.ids[ch] for ch in row] for row in rows], np.uint8)
        except KeyError as e:
            raise InvalidStateError(f"state field 'tiles' of env {i}: the character {e} is not in the alphabet",
                                    field="tiles", env=i) from None

    # ------------------------------------------------------------------ render

    @synchronized
    def render_frame(self, index: int = 0, cell_px: int | None = None) -> np.ndarray:
        """Env ``index`` as a fresh uint8 (H * cell_px, W * cell_px, 3) frame (``cell_px`` 16 by default).

        Each cell in its tile's colour, as the ``image`` observation draws it, ``cell_px``
        pixels per cell; the agent is a disc in the agent's colour on its cell's tile (the
        observation fills the whole cell with it), so a picture tells the agent from a
        tile of the same colour.
        """
        cell_px = check_cell_px(cell_px, RENDER_CELL_PX, self.level.height, self.level.width)
        out = np.empty((self.level.height * cell_px, self.level.width * cell_px, 3), np.uint8)
        i = self.row_index(index)
        self.kernel.render_rgb(i, out, cell_px)
        st = self.state
        row, col = (int(v) for v in st.cell_rc[st.agent_cell[i]])
        y0, x0, y1, x1 = cell_box(row, col, cell_px)
        fill_rect(out, y0, x0, y1, x1, st.tile_color[st.tiles_of(i)[row, col]])
        # A radius of 0.4 cell leaves a rim of the tile around the disc at every cell size.
        fill_disc(out, (y0 + y1) / 2, (x0 + x1) / 2, 0.4 * cell_px, st.agent_color)
        return out

    @synchronized
    def render_text(self, index: int = 0) -> str:
        """Env ``index`` as text: the current map with ``@`` on the agent's cell."""
        st = self.get_state(index)
        rows = [list(r) for r in st["tiles"]]
        r, c = st["pos"]
        rows[r][c] = "@"
        return "\n".join("".join(r) for r in rows) + "\n"


class NavEnv(SingleEnvView):
    """One navigation env (``gymnasium.Env``) over :class:`NavVectorEnv` with one row.

    Everything in :class:`NavVectorEnv`'s docstring applies. The view returns copies
    (a fresh obs array, a Python float reward, Python bool flags, ``info == {}``),
    never truncates unless given ``max_episode_steps`` (``gymnasium.make`` adds
    ``TimeLimit`` from the spec), and keeps stepping after an episode ends, as the
    original did.
    """

    vector_class = NavVectorEnv


def _is_pair(value) -> bool:
    """A tuple, list or 1-d array of two entries."""
    one_d = isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.ndim == 1)
    return one_d and len(value) == 2


def pixelworld_id(stem: str) -> str:
    """The id of PixelWorld's configuration of the map ``levels/nav/<stem>.txt``."""
    return f"gridsim/PixelWorld-{stem}-v0"


# The original PixelWorld ids: version -> (alphabet, map stem).
PIXELWORLD_IDS = {
    0: ("navigation", "room1_small"),
    1: ("noisy", "room2_small"),
    2: ("noisy", "room3_small"),
    3: ("noisy", "room4_small"),
    4: ("noisy", "room5_medium"),
    5: ("noisy", "room5_medium_walls"),
}
DEFAULT_MAX_STEPS = 100
# A text level's [meta] keys that are env defaults: meta key -> setting.
LEVEL_META_SETTINGS = {"obs_type": "obs_type", "actions": "actions", "alphabet": "alphabet",
                       "view_size": "view_size", "max_episode_steps": "max_steps"}
# Those keys of the built-in maps that have any, as their files write them: the ids are registered
# from the maps' file names and this listing, so `import gridsim` parses no map (each is parsed when
# it is first made). tests/nav/test_nav_ids.py checks it against the files.
BUILTIN_META: dict[str, dict[str, str]] = {
    "four_rooms": {"max_episode_steps": "200"},
    "maze32": {"max_episode_steps": "1000"},
    "open64": {"max_episode_steps": "500"},
}


# The task of each built-in map, for gridsim list (the size is read from the map).
MAP_TASKS = {
    "four_rooms": "reach the goal in the bottom-right room from the top-left one, through doorways",
    "maze32": "reach the bottom-right corner of a maze from the top left",
    "open64": "reach the bottom-right corner of an open room from the top left",
    "room1": "reach the goal at the top right past a 2x2 block",
    "room1_small": "reach the goal at the top right of an empty room",
    "room2_small": "reach the goal at the top left beside a block of wall",
    "room3_small": "reach the goal along the bottom, below a block of wall",
    "room4_small": "reach the goal at the top right past a block of wall",
    "room5_medium": "reach the goal along the top of an open room",
    "room5_medium_walls": "reach the goal along the top of a room, above a wall",
}


@functools.cache
def _pixelworld_by_id() -> dict[str, tuple[str, str]]:
    """PixelWorld's registered ids and their (alphabet, map stem), built once."""
    return {pixelworld_id(stem): (alphabet, stem) for alphabet, stem in PIXELWORLD_IDS.values()}


def description_of(env_id: str) -> str | None:
    """One line on a navigation id's task (``gridsim list``), or None for an id that is not one."""
    pixelworld = _pixelworld_by_id()
    if env_id in pixelworld:
        alphabet, stem = pixelworld[env_id]
        how = f", with PixelWorld's {alphabet} rewards"
    elif env_id.startswith("gridsim/Nav-") and env_id.endswith("-v0"):
        stem, how = env_id[len("gridsim/Nav-"):-len("-v0")], ""
    else:
        return None
    if stem not in MAP_TASKS:
        return None
    parsed = read_nav_level(f"nav/{stem}")  # cached after the first read
    return f"{MAP_TASKS[stem]}{how} ({parsed.width}x{parsed.height})"


def register_ids(register: Register):
    """``gridsim/PixelWorld-<level>-v0`` and ``gridsim/Nav-<level>-v0`` for the built-in maps.

    ``gridsim/PixelWorld-<level>-v0`` is the original's configuration of one of its six maps
    (its alphabet); the original's own ids, ``gridsim/PixelWorld-v0`` .. ``-v5``, which number
    the maps as versions, stay registered as aliases of them.
    """
    for version, (alphabet, stem) in PIXELWORLD_IDS.items():
        kwargs = {"level": f"nav/{stem}", "alphabet": alphabet}
        register(pixelworld_id(stem), DEFAULT_MAX_STEPS, kwargs)
        register(f"gridsim/PixelWorld-v{version}", DEFAULT_MAX_STEPS, dict(kwargs), alias_of=pixelworld_id(stem))
    for name in builtin_level_names("nav"):  # the file names: no map is read
        stem = name.split("/", 1)[1]
        steps, kwargs = _id_arguments(name, BUILTIN_META.get(stem, {}))
        register(f"gridsim/Nav-{stem}-v0", steps, kwargs)


def level_defaults(meta: Mapping[str, str]) -> dict[str, Any]:
    """The env defaults a navigation map's ``[meta]`` table sets."""
    return {setting: meta[key] for key, setting in LEVEL_META_SETTINGS.items() if key in meta}


def _id_arguments(name: str, meta: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
    """The step limit and the constructor arguments of the id of map ``name`` with this ``[meta]`` table."""
    steps, kwargs = DEFAULT_MAX_STEPS, {"level": name}
    for setting, text in level_defaults(meta).items():
        decl = NavVectorEnv.SETTINGS[setting]
        if setting == "max_steps":
            steps = decl.parse(setting, text)
        else:
            kwargs[decl.kwarg or setting] = decl.parse(setting, text)
    return steps, kwargs


FAMILY = Family(
    name="nav",
    vector_env=NavVectorEnv,
    single_env=NavEnv,
    register_ids=register_ids,
    level_defaults=level_defaults,
    level_grammar=LEVEL_GRAMMAR,
    exports=("TaskSampler",),
    describe=description_of,
    tools=FamilyTools(
        bench_level="nav/room5_medium",
        eval_id="gridsim/PixelWorld-room1_small-v0",
        bench_kwargs={"max_episode_steps": DEFAULT_MAX_STEPS},
        bench_obs_types=("coords", "view", "image"),
        play_keys={"up": 0, "right": 1, "down": 2, "left": 3},
        play_help="arrows move",
    ),
)
