"""Pure-Python reference of the navigation family, one env at a time.

The state of one env is a plain dict (the same keys as ``NavVectorEnv.get_state``):

=============  =====================================================================
``pos``        ``(row, col)`` of the agent
``step``       steps taken in the current episode
``tiles``      current map rows as text (collected cells and removed goals show the
               default symbol)
``episode``    episode counter of the env's key
``key``        ``(key0, key1)``, the env's 128-bit key
``rng``        the episode stream's current state
``return``     the episode's return so far
``needs_reset`` the episode ended and the env waits for its reset
=============  =====================================================================

plus, for the reference only, ``table``: the fixed rewards ``[plane][row][col]``.

Events (``gridsim.nav.api.NAV_EVENTS``) are ``(name, payload tuple)`` pairs, in this order
within a step: ``wall_bump (row, col)`` when the move's target cell (clamped into the map)
is another cell and not accessible; ``tile_collected (row, col)`` when the agent ends on a
collectible cell; ``goal_reached (row, col)`` when it ends on a terminal cell.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np

from gridsim.engine.rng import TAG_EPISODE, TAG_TABLE, Stream, derive_keys, stream_seed
from gridsim.engine.state import INT32_MAX
from gridsim.nav.alphabet import (
    F_COLLECTIBLE,
    F_STOCHASTIC,
    F_TERMINAL,
    F_WALKABLE,
)
from gridsim.nav.level import NavLevel

MOVES = {  # action type -> action index -> (d_row, d_col)
    "1d_discrete": [(-1, 0), (0, 1), (1, 0), (0, -1)],
    "1d_horizontal": [(0, 1), (0, -1)],
    "1d_vertical": [(1, 0), (-1, 0)],
}


def _props(level: NavLevel, ch: str):
    a = level.alphabet
    t = a.ids[ch]
    return t, int(a.flags[t]), int(a.dist_kind[t]), float(a.dist_a[t]), float(a.dist_b[t])


def draw_reward_table(level: NavLevel, key, randomize_goals: bool = False) -> list:
    """The fixed-reward table ``[plane][row][col]`` drawn for an env with this key.

    Row-major over the map; for each cell its own symbol's value (stochastic
    symbols store 0 and draw per visit), then, for cells that can become the
    default tile, a value of the default symbol. Constant distributions draw nothing.
    """
    s = Stream(stream_seed(int(key[0]), int(key[1]), TAG_TABLE, 0))
    dflt = level.alphabet.default_symbol
    _, dflags, dkind, da, db = _props(level, dflt)
    own = [[0.0] * level.width for _ in range(level.height)]
    alt = [[0.0] * level.width for _ in range(level.height)]
    for r, row in enumerate(level.rows):
        for c, ch in enumerate(row):
            _, flags, kind, a, b = _props(level, ch)
            own[r][c] = 0.0 if flags & F_STOCHASTIC else float(np.float32(s.sample(kind, a, b)))
            alt[r][c] = own[r][c]
            if flags & F_COLLECTIBLE or (randomize_goals and flags & F_TERMINAL):
                alt[r][c] = 0.0 if dflags & F_STOCHASTIC else float(np.float32(s.sample(dkind, da, db)))
    return [own, alt]


def nav_reset(level: NavLevel, env: dict, *, randomize_goals: bool = False, start=None) -> dict:
    """Start episode ``env["episode"]``: restore the map, pick the start, then the goal."""
    s = Stream(stream_seed(env["key"][0], env["key"][1], TAG_EPISODE, env["episode"]))
    tiles = [list(row) for row in level.rows]
    if start is not None:
        pos = (int(start[0]), int(start[1]))
    else:
        k = s.bounded(len(level.start_cells))
        row, col = level.start_cells[k]
        pos = (int(row), int(col))
    if randomize_goals:
        goals = [tuple(int(v) for v in g) for g in level.goal_cells]
        k = s.bounded(len(goals))
        for j, (r, c) in enumerate(goals):
            if j != k:
                tiles[r][c] = level.alphabet.default_symbol
    env.update(
        pos=pos, step=0, tiles=["".join(row) for row in tiles], rng=s.state, needs_reset=False
    )
    env["return"] = 0.0
    return env


def nav_step(
    level: NavLevel,
    env: dict,
    action,
    *,
    actions: str = "1d_discrete",
    max_steps: int = 0,
    events: list | None = None,
):
    """Apply one action to one env in place; returns ``(reward, terminated, truncated)``.

    ``reward`` is a float32 value; the flags are Python bools. The step's events (see the
    module docstring) are appended to ``events`` when it is given.
    """
    H, W = level.height, level.width
    r, c = env["pos"]
    if actions == "2d_continuous":
        move = []
        for a in action:
            a = 0.0 if np.isnan(a) else min(max(float(a), -1.0), 1.0)
            # floor(a + 0.5) in exact arithmetic. The float sum rounds the largest
            # double below 0.5 up to 1.0, so compare with the thresholds instead.
            move.append(-1 if a < -0.5 else (1 if a >= 0.5 else 0))
        dr, dc = move
    else:
        dr, dc = MOVES[actions][int(action)]
    nr = min(max(r + dr, 0), H - 1)
    nc = min(max(c + dc, 0), W - 1)
    tiles = [list(row) for row in env["tiles"]]
    found: list[tuple[str, tuple[int, ...]]] = []
    if _props(level, tiles[nr][nc])[1] & F_WALKABLE:
        r, c = nr, nc
    elif (nr, nc) != (r, c):
        found.append(("wall_bump", (nr, nc)))
    _, flags, kind, a, b = _props(level, tiles[r][c])
    if flags & F_STOCHASTIC:
        s = Stream(env["rng"])
        reward = np.float32(s.sample(kind, a, b))
        env["rng"] = s.state
    elif tiles[r][c] != level.rows[r][c]:  # a collected cell or a removed goal
        reward = np.float32(env["table"][1][r][c])
    else:
        reward = np.float32(env["table"][0][r][c])
    if flags & F_COLLECTIBLE:
        tiles[r][c] = level.alphabet.default_symbol
        found.append(("tile_collected", (r, c)))
    env["pos"] = (r, c)
    env["tiles"] = ["".join(row) for row in tiles]
    env["step"] = min(env["step"] + 1, INT32_MAX)  # the kernel's count saturates
    env["return"] += float(reward)
    terminated = bool(flags & F_TERMINAL)
    truncated = bool(max_steps > 0 and env["step"] >= max_steps)
    if terminated:
        found.append(("goal_reached", (r, c)))
    if events is not None:
        events.extend(found)
    return reward, terminated, truncated


def nav_observation(level: NavLevel, env: dict, obs_type: str = "coords", view_size: int = 7,
                    channels_first: bool = False, pixels_per_cell: int = 1) -> np.ndarray:
    """The observation of one env's state, built cell by cell."""
    a = level.alphabet
    r0, c0 = env["pos"]
    if obs_type == "coords":
        return np.array([r0, c0], np.int32)
    if obs_type == "view":
        h = view_size // 2
        view = np.zeros((view_size, view_size), np.uint8)  # VOID outside the map
        for dr in range(-h, h + 1):
            for dc in range(-h, h + 1):
                r, c = r0 + dr, c0 + dc
                if 0 <= r < level.height and 0 <= c < level.width:
                    view[dr + h, dc + h] = a.ids[env["tiles"][r][c]]
        return view
    k = pixels_per_cell
    img = np.zeros((level.height * k, level.width * k, 3), np.uint8)
    for r in range(level.height):
        for c in range(level.width):
            color = a.agent_color if (r, c) == (r0, c0) else a.color[a.ids[env["tiles"][r][c]]]
            img[r * k : (r + 1) * k, c * k : (c + 1) * k] = color
    return np.ascontiguousarray(img.transpose(2, 0, 1)) if channels_first else img


class ReferenceNavEnv(gym.Env):
    """The reference stepper as a plain ``gymnasium.Env`` (NEXT_STEP-free, no autoreset).

    Used to time a pure-Python implementation in a ``SyncVectorEnv`` and to check
    the kernel end to end. Same seeds give the same trajectories as the kernel. The last
    step's events are in ``self.events``.
    """

    metadata = {"render_modes": []}

    def __init__(self, level: NavLevel, *, actions: str = "1d_discrete", obs_type: str = "coords",
                 max_episode_steps: int | None = None, randomize_goals: bool = False):
        from gridsim.nav.env import nav_spaces

        self.level = level
        self.actions = actions
        self.obs_type = obs_type
        self.max_steps = max_episode_steps or 0
        self.randomize_goals = randomize_goals
        self.observation_space, self.action_space = nav_spaces(level, obs_type, actions)
        self.env: dict = {}
        self.events: list = []

    def reset(self, *, seed=None, options=None):
        """Reset; an int seed derives the key as the kernel does (mixer seed 0)."""
        super().reset(seed=seed)
        if seed is not None or not self.env:
            key = derive_keys([seed if seed is not None else 0])[0]
            self.env = {"key": (int(key[0]), int(key[1])), "episode": 0}
            self.env["table"] = draw_reward_table(self.level, self.env["key"], self.randomize_goals)
        else:
            self.env["episode"] += 1
        start = (options or {}).get("start")
        nav_reset(self.level, self.env, randomize_goals=self.randomize_goals, start=start)
        self.events = []
        return nav_observation(self.level, self.env, self.obs_type), {}

    def step(self, action):
        """One step of the reference dynamics."""
        self.events = []
        reward, term, trunc = nav_step(self.level, self.env, action, actions=self.actions,
                                       max_steps=self.max_steps, events=self.events)
        return nav_observation(self.level, self.env, self.obs_type), float(reward), term, trunc, {}

    def snapshot(self) -> dict:
        """A deep copy of the env's state dict."""
        return copy.deepcopy(self.env)
