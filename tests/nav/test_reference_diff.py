"""Differential tests: the compiled kernel against the pure-Python reference stepper.

The pattern follows envpool's minigrid alignment test: env i's state is taken from
the kernel (``envs.get_state(i)``), handed to the reference together with the fixed
reward table the reference draws from the same key (``draw_reward_table``), both
sides step with the same action, and every field is compared on every step:
observations (coords, view and image in both layouts), rewards (float32, exact),
both flags, the episode statistics, and the whole state dict afterwards.

Resets and autoresets are checked too: after any reset, the kernel's state must equal
``nav_reset`` of the reference for the new episode of the same key.

Hypothesis drives random maps (walls, floor, starts, goals and collectible,
stochastic, terminal-collectible and initial-collectible symbols from a native
``[legend]``), random alphabets, every action type, every observation type, every
autoreset mode, random state injection (``set_state``) and masked resets. With
``events=True`` the kernel's events (``gridsim.engine.events.NAV_EVENTS``) must equal the
reference's on every step, with overflow of a small ``max_events_per_step`` dropped and
counted; a reset clears the events of the envs it resets and keeps the others'.
"""

from __future__ import annotations

import copy as copylib

import numpy as np
import pytest
from event_helpers import expected_with_capacity, kernel_events
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridsim.engine.rng import derive_keys
from gridsim.envs import NavVectorEnv
from gridsim.nav.alphabet import F_COLLECTIBLE, F_TERMINAL, F_WALKABLE
from gridsim.nav.api import NAV_EVENTS
from gridsim.reference.nav import (
    ReferenceNavEnv,
    draw_reward_table,
    nav_observation,
    nav_reset,
    nav_step,
)

MODES = ("NextStep", "SameStep", "Disabled")
ACTION_TYPES = ("1d_discrete", "1d_horizontal", "1d_vertical", "2d_continuous")
NUM_ACTIONS = {"1d_discrete": 4, "1d_horizontal": 2, "1d_vertical": 2}
STATE_KEYS = ("pos", "step", "tiles", "episode", "key", "rng", "return", "needs_reset")
U64 = st.integers(0, 2**64 - 1)

# Random maps often wall their goals off from every start; the warning is expected here.
pytestmark = pytest.mark.filterwarnings("ignore::gridsim.levels.LevelWarning")

# Extra symbols, defined in the level's [legend]: character -> properties (no reward).
EXTRA_SYMBOLS = {
    "c": "collectible color=255,215,0",
    "x": "stochastic color=200,0,200",
    "k": "collectible stochastic color=0,128,128",
    "g": "collectible terminal color=10,20,30",
    "i": "initial collectible color=90,90,90",
    "w": "accessible=false color=40,40,40",
}


# --------------------------------------------------------------------------- strategies


def _number(draw, lo: float, hi: float) -> float:
    """A float that round-trips through text (legend values are written with repr)."""
    return draw(st.one_of(
        st.integers(int(lo), int(hi)).map(float),
        st.floats(lo, hi, allow_nan=False, allow_infinity=False),
    ))


@st.composite
def dists(draw):
    """A reward distribution as ``(kind, a, b)``."""
    kind = draw(st.sampled_from(["const", "normal", "abs_normal", "uniform"]))
    a = _number(draw, -10, 10)
    if kind == "const":
        return ("const", a, 0.0)
    b = _number(draw, 0, 3)
    if kind == "uniform":
        return ("uniform", a, a + b)
    return (kind, a, b)


def dist_text(d, plain_const: bool = True) -> str:
    """The legend spelling of a distribution (``-1.5``, ``const(-1.5)``, ``normal(0.0, 1.0)``)."""
    kind, a, b = d
    if kind == "const":
        return repr(a) if plain_const else f"const({a!r})"
    return f"{kind}({a!r}, {b!r})"


@st.composite
def alphabets(draw):
    """``"navigation"``, ``"noisy"`` or a custom dict with random rewards and flags."""
    name = draw(st.sampled_from(["navigation", "noisy", "custom"]))
    if name != "custom":
        return name
    colors = st.tuples(*[st.integers(0, 255)] * 3)
    return {
        "#": {"reward": draw(dists()), "accessible": False, "color": draw(colors)},
        " ": {"reward": draw(dists()), "stochastic": draw(st.booleans()), "color": draw(colors)},
        "S": {"reward": draw(dists()), "stochastic": draw(st.booleans()), "initial": True,
              "color": draw(colors)},
        "0": {"reward": draw(dists()), "stochastic": draw(st.booleans()), "terminal": True,
              "color": draw(colors)},
        ".agent": {"color": draw(colors)},
    }


@st.composite
def grids(draw, h: int, w: int, symbols: tuple[str, ...]):
    """h rows of w characters over ``symbols``, with at least one ``S``."""
    weights = ["#", " ", " ", " ", "S", "0"] + [s for s in symbols for _ in range(2)]
    rows = draw(st.lists(
        st.lists(st.sampled_from(weights), min_size=w, max_size=w), min_size=h, max_size=h
    ))
    r, c = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
    rows[r][c] = "S"
    return ["".join(row) for row in rows]


def level_text(rows: list[str], legend: dict[str, str]) -> str:
    """A PixelWorld bare map without a legend, else a native ``%gridsim 1`` level."""
    if not legend:
        return "\n".join(rows)
    lines = ["%gridsim 1", "; a generated level", "[legend]"]
    lines += [f"{ch} = {props}" for ch, props in legend.items()]
    lines += ["[map]", *rows]
    return "\n".join(lines) + "\n"


@st.composite
def configs(draw, max_envs: int = 5):
    """Everything needed to build a NavVectorEnv and drive it."""
    h, w = draw(st.integers(3, 8)), draw(st.integers(3, 8))
    extras = sorted(draw(st.sets(st.sampled_from(sorted(EXTRA_SYMBOLS)))))
    legend = {}
    for ch in extras:
        reward = "" if ch == "w" else f"reward={dist_text(draw(dists()), draw(st.booleans()))} "
        legend[ch] = reward + EXTRA_SYMBOLS[ch]
    num_envs = draw(st.integers(1, max_envs))
    multi_map = num_envs > 1 and draw(st.booleans())
    n_maps = num_envs if multi_map else 1
    maps = [level_text(draw(grids(h, w, tuple(extras))), legend) for _ in range(n_maps)]
    actions = draw(st.sampled_from(ACTION_TYPES))
    obs_type = draw(st.sampled_from(["coords", "image", "view"]))
    cfg = {
        "num_envs": num_envs,
        "world_map": maps if multi_map else maps[0],
        "alphabet": draw(alphabets()),
        "actions": actions,
        "obs_type": obs_type,
        "randomize_goals": draw(st.booleans()),
        "max_episode_steps": draw(st.one_of(st.none(), st.integers(1, 15))),
        "autoreset_mode": draw(st.sampled_from(MODES)),
        "mixer_seed": draw(st.integers(0, 3)),
        "copy": draw(st.booleans()),
        "obs_dtype": draw(st.sampled_from([None, None, "float32"])),
        "events": draw(st.booleans()),
        "max_events_per_step": draw(st.sampled_from([1, 2, 16])),
    }
    if obs_type == "image":
        cfg["channels_first"] = draw(st.booleans())
        cfg["pixels_per_cell"] = draw(st.integers(1, 3))
    if obs_type == "view":
        cfg["view_size"] = draw(st.sampled_from([1, 3, 5, 7]))
    if actions == "2d_continuous":
        cfg["nan_action"] = draw(st.sampled_from(["error", "zero"]))
    return cfg


# --------------------------------------------------------------------------- the harness


class Pair:
    """A NavVectorEnv and one reference state dict per row, stepped in lockstep."""

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.envs = NavVectorEnv(**cfg)
        self.n = self.envs.num_envs
        self.mode = cfg["autoreset_mode"]
        self.actions = cfg["actions"]
        self.rg = cfg["randomize_goals"]
        self.max_steps = cfg["max_episode_steps"] or 0
        self.refs: list[dict] = [{} for _ in range(self.n)]
        self.last_obs = None
        self.events_on = bool(cfg.get("events", False))
        self.capacity = cfg.get("max_events_per_step", 16)
        self.dropped = np.zeros(self.n, np.int64)
        # Each row's events as the kernel should hold them now (None: unknown after set_state).
        self.events: list[list | None] = [[] for _ in range(self.n)]

    def level(self, i: int):
        maps = self.envs.maps
        return maps[i] if len(maps) > 1 else maps[0]

    # ------------------------------------------------------------------ helpers

    def ref_obs(self, i: int) -> np.ndarray:
        cfg = self.cfg
        obs = nav_observation(
            self.level(i), self.refs[i], cfg["obs_type"], view_size=cfg.get("view_size", 7),
            channels_first=cfg.get("channels_first", False),
            pixels_per_cell=cfg.get("pixels_per_cell", 1),
        )
        if cfg["obs_dtype"] is not None:
            obs = obs.astype(cfg["obs_dtype"])
        return obs

    def ref_obs_batch(self) -> np.ndarray:
        return np.stack([self.ref_obs(i) for i in range(self.n)])

    def accessible_cells(self, i: int, tiles=None) -> list[tuple[int, int]]:
        level = self.level(i)
        a = level.alphabet
        tiles = level.rows if tiles is None else tiles
        return [(r, c) for r, row in enumerate(tiles) for c, ch in enumerate(row)
                if a.flags[a.ids[ch]] & F_WALKABLE]

    def changeable_cells(self, i: int) -> list[tuple[int, int]]:
        level = self.level(i)
        a = level.alphabet
        mask = F_COLLECTIBLE | (F_TERMINAL if self.rg else 0)
        return [(r, c) for r, row in enumerate(level.rows) for c, ch in enumerate(row)
                if a.flags[a.ids[ch]] & mask]

    def check_states(self, where: str):
        for i in range(self.n):
            got = self.envs.get_state(i)
            assert set(got) == set(STATE_KEYS), f"{where}: get_state keys {sorted(got)}"
            want = {k: self.refs[i][k] for k in STATE_KEYS}
            for k in STATE_KEYS:
                assert got[k] == want[k], (
                    f"{where}: env {i} state[{k!r}]: kernel {got[k]!r} != reference {want[k]!r}"
                )
            assert type(got["return"]) is float

    def check_events(self, where: str):
        st = self.envs.state
        if not self.events_on:
            assert not st.event_count.any() and not st.event_dropped.any(), f"{where}: events while off"
            return
        for i in range(self.n):
            if self.events[i] is not None:
                got = kernel_events(st, NAV_EVENTS, i)
                assert got == self.events[i], f"{where}: env {i} events {got} != {self.events[i]}"
        np.testing.assert_array_equal(st.event_dropped, self.dropped, err_msg=f"{where}: dropped")

    def check_obs(self, obs: np.ndarray, expected: np.ndarray, where: str):
        assert obs.dtype == expected.dtype, f"{where}: obs dtype {obs.dtype} != {expected.dtype}"
        assert obs.shape == expected.shape, f"{where}: obs shape {obs.shape} != {expected.shape}"
        np.testing.assert_array_equal(obs, expected, err_msg=where)
        batched = obs.shape == self.envs.observation_space.shape
        space = self.envs.observation_space if batched else self.envs.single_observation_space
        assert space.contains(obs), f"{where}: obs outside {space}"

    # ------------------------------------------------------------------ reset

    def ref_reset_row(self, i: int, seed, start):
        env = self.refs[i]
        if seed is not None:
            key = derive_keys([seed], self.cfg["mixer_seed"])[0]
            env.clear()
            env["key"] = (int(key[0]), int(key[1]))
            env["episode"] = 0
            env["table"] = draw_reward_table(self.level(i), env["key"], self.rg)
        else:
            env["episode"] += 1
        nav_reset(self.level(i), env, randomize_goals=self.rg, start=start)

    def reset(self, seed=None, mask=None, start=None, where: str = "reset"):
        options = {}
        if mask is not None:
            options["reset_mask"] = mask
        if start is not None:
            options["start"] = start
        frozen = copylib.deepcopy(options)
        obs, infos = self.envs.reset(seed=seed, options=options or None)
        assert infos == {}
        for k in frozen:  # options are never modified
            np.testing.assert_array_equal(options[k], frozen[k])
        rows = range(self.n) if mask is None else np.flatnonzero(mask)
        for i in rows:
            if isinstance(seed, int):
                s = seed + int(i)
            elif isinstance(seed, list):
                s = seed[i]
            else:
                s = None
            st_i = None
            if start is not None:
                st_i = start if np.ndim(start) == 1 else start[i]
            self.ref_reset_row(int(i), s, st_i)
            self.events[i] = []  # a reset clears the env's events; the other rows keep theirs
        self.check_obs(obs, self.ref_obs_batch(), where)
        self.check_states(where)
        self.check_events(where)

    # ------------------------------------------------------------------ step

    def step(self, actions: np.ndarray, where: str = "step", layout: str = "plain"):
        """Step both sides; ``layout`` passes the kernel a strided, read-only or list copy."""
        n = self.n
        exp_rew = np.zeros(n, np.float32)
        exp_term = np.zeros(n, np.bool_)
        exp_trunc = np.zeros(n, np.bool_)
        ended = np.zeros(n, np.bool_)
        stat_return = np.zeros(n, np.float64)
        stat_length = np.zeros(n, np.int32)
        final_obs = [None] * n
        for i in range(n):
            env = self.refs[i]
            level = self.level(i)
            if self.mode == "NextStep" and env["needs_reset"]:
                env["episode"] += 1
                nav_reset(level, env, randomize_goals=self.rg)
                self.events[i] = []  # the reset step has no events
                continue
            found: list = []
            reward, term, trunc = nav_step(level, env, actions[i], actions=self.actions,
                                           max_steps=self.max_steps, events=found)
            # The finishing step's events stay under SAME_STEP (the autoreset records none).
            self.events[i], lost = expected_with_capacity(found, self.capacity)
            self.dropped[i] += lost
            assert type(reward) is np.float32
            exp_rew[i], exp_term[i], exp_trunc[i] = reward, term, trunc
            if term or trunc:
                ended[i] = True
                stat_return[i] = env["return"]
                stat_length[i] = env["step"]
                if self.mode == "SameStep":
                    final_obs[i] = self.ref_obs(i)
                    env["episode"] += 1
                    nav_reset(level, env, randomize_goals=self.rg)
                else:
                    env["needs_reset"] = True
        frozen = actions.copy()
        given = with_layout(actions, layout)
        obs, rew, term, trunc, infos = self.envs.step(given)
        np.testing.assert_array_equal(given, frozen)  # actions are never written to
        self.check_obs(obs, self.ref_obs_batch(), where)
        assert rew.dtype == np.float32 and rew.shape == (n,)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
        np.testing.assert_array_equal(rew.view(np.uint32), exp_rew.view(np.uint32),
                                      err_msg=f"{where}: rewards {rew} != {exp_rew}")
        np.testing.assert_array_equal(term, exp_term, err_msg=f"{where}: terminations")
        np.testing.assert_array_equal(trunc, exp_trunc, err_msg=f"{where}: truncations")
        self.check_infos(infos, ended, stat_return, stat_length, final_obs, where)
        self.check_states(where)
        self.check_events(where)

    def check_infos(self, infos, ended, stat_return, stat_length, final_obs, where):
        if not ended.any():
            assert infos == {}, f"{where}: infos {infos} on a step where no episode ended"
            return
        if self.mode == "SameStep":
            np.testing.assert_array_equal(infos["_final_obs"], ended)
            np.testing.assert_array_equal(infos["_final_info"], ended)
            assert infos["final_obs"].dtype == object
            for i in range(self.n):
                if ended[i]:
                    self.check_obs(infos["final_obs"][i], final_obs[i], f"{where}: final_obs[{i}]")
                else:
                    assert infos["final_obs"][i] is None
            stats_holder = infos["final_info"]
        else:
            stats_holder = infos
        stats = stats_holder["episode_stats"]
        np.testing.assert_array_equal(stats_holder["_episode_stats"], ended)
        np.testing.assert_array_equal(stats["_return"], ended)
        np.testing.assert_array_equal(stats["_length"], ended)
        assert stats["return"].dtype == np.float64 and stats["length"].dtype == np.int32
        np.testing.assert_array_equal(stats["return"], stat_return, err_msg=f"{where}: return")
        np.testing.assert_array_equal(stats["length"], stat_length, err_msg=f"{where}: length")

    # ------------------------------------------------------------------ injection

    def inject(self, i: int, state: dict, where: str = "set_state"):
        obs, info = self.envs.set_state(state, i)
        assert info == {}
        env = self.refs[i]
        env.update(copylib.deepcopy(state))
        self.events[i] = None  # whether a state write clears events is not this module's concern
        self.check_obs(obs, self.ref_obs(i), where)
        self.check_states(where)


# --------------------------------------------------------------------------- drawing ops


def with_layout(actions: np.ndarray, layout: str):
    """The same action values as a strided view, a read-only array or a nested list."""
    if layout == "strided":
        wide = np.repeat(actions[..., None], 2, axis=-1)
        out = wide[..., 0]
        assert not out.flags.c_contiguous or out.size <= 1
        return out
    if layout == "readonly":
        out = actions.copy()
        out.setflags(write=False)
        return out
    if layout == "list":
        return actions.tolist()
    return actions


def draw_actions(data, pair: Pair) -> np.ndarray:
    n, cfg = pair.n, pair.cfg
    if pair.actions == "2d_continuous":
        value = st.floats(-1.5, 1.5, allow_nan=False)
        if cfg.get("nan_action") == "zero":
            value = st.one_of(value, value, value, st.just(float("nan")))
        rows = data.draw(st.lists(st.tuples(value, value), min_size=n, max_size=n), label="a")
        dtype = data.draw(st.sampled_from([np.float32, np.float64]), label="dtype")
        return np.array(rows, dtype=dtype).reshape(n, 2)
    k = NUM_ACTIONS[pair.actions]
    rows = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n), label="a")
    dtype = data.draw(st.sampled_from([np.int64, np.int32, np.uint8]), label="dtype")
    return np.array(rows, dtype=dtype)


def draw_injection(data, pair: Pair, i: int) -> dict:
    level = pair.level(i)
    tiles = [list(row) for row in level.rows]
    for r, c in pair.changeable_cells(i):
        if data.draw(st.booleans(), label=f"replace {(r, c)}"):
            tiles[r][c] = level.alphabet.default_symbol
    tiles = ["".join(row) for row in tiles]
    cells = pair.accessible_cells(i, tiles)
    pos = data.draw(st.sampled_from(cells), label="pos")
    limit = pair.max_steps or 30
    state = {"pos": pos, "tiles": tiles, "step": data.draw(st.integers(0, limit + 1), label="step")}
    if data.draw(st.booleans(), label="rng?"):
        state["rng"] = data.draw(U64, label="rng")
    if data.draw(st.booleans(), label="return?"):
        state["return"] = data.draw(st.floats(-100, 100), label="return")
    if data.draw(st.booleans(), label="episode?"):
        state["episode"] = data.draw(st.integers(0, 10**6), label="episode")
    if pair.mode != "SameStep" and data.draw(st.integers(0, 5), label="pending?") == 0:
        state["needs_reset"] = True
    elif pair.mode != "SameStep":
        state["needs_reset"] = False
    return state


def draw_start(data, pair: Pair, mask) -> np.ndarray | None:
    if not data.draw(st.booleans(), label="start?"):
        return None
    start = np.zeros((pair.n, 2), np.int64)  # unmasked rows: ignored, often a wall
    for i in range(pair.n):
        if mask is None or mask[i]:
            start[i] = data.draw(st.sampled_from(pair.accessible_cells(i)), label="start")
    return start


def draw_seed(data, pair: Pair, label: str):
    kind = data.draw(st.sampled_from(["int", "list", "none"]), label=f"{label} kind")
    if kind == "int":
        return data.draw(st.integers(0, 2**32), label=label)
    if kind == "list":
        return data.draw(st.lists(st.one_of(st.none(), st.integers(0, 2**32)),
                                  min_size=pair.n, max_size=pair.n), label=label)
    return None


def run_episode_program(data, cfg: dict, max_ops: int):
    pair = Pair(cfg)
    try:
        seed = data.draw(st.one_of(
            st.integers(0, 2**32),
            st.lists(st.integers(0, 2**32), min_size=pair.n, max_size=pair.n),
        ), label="seed")
        pair.reset(seed=seed, start=draw_start(data, pair, None), where="first reset")
        n_ops = data.draw(st.integers(1, max_ops), label="ops")
        for t in range(n_ops):
            op = data.draw(st.sampled_from(["step"] * 8 + ["inject", "reset"]), label="op")
            if op == "inject":
                i = data.draw(st.integers(0, pair.n - 1), label="row")
                pair.inject(i, draw_injection(data, pair, i), where=f"op {t}: set_state({i})")
                continue
            pending = np.array([pair.refs[i]["needs_reset"] for i in range(pair.n)])
            if op == "reset" or (pair.mode == "Disabled" and pending.any()):
                if op == "reset":
                    mask = np.array(data.draw(st.lists(st.booleans(), min_size=pair.n,
                                                       max_size=pair.n), label="mask"))
                    mask |= pending if pair.mode == "Disabled" else False
                    if not mask.any():
                        mask[data.draw(st.integers(0, pair.n - 1), label="row")] = True
                else:
                    mask = pending
                seed = draw_seed(data, pair, "reset seed")
                pair.reset(seed=seed, mask=mask.astype(np.bool_),
                           start=draw_start(data, pair, mask), where=f"op {t}: reset")
                if op == "reset":
                    continue
            layout = data.draw(st.sampled_from(["plain"] * 5 + ["strided", "readonly", "list"]),
                               label="layout")
            pair.step(draw_actions(data, pair), where=f"op {t}: step", layout=layout)
    finally:
        pair.envs.close()


# --------------------------------------------------------------------------- tests

FAST = settings(deadline=None, max_examples=100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
THOROUGH = settings(deadline=None, max_examples=200,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(cfg=configs(), data=st.data())
def test_kernel_random_programs_match_reference(cfg, data):
    run_episode_program(data, cfg, max_ops=40)


@pytest.mark.slow
@THOROUGH
@given(cfg=configs(), data=st.data())
def test_kernel_random_programs_match_reference_thoroughly(cfg, data):
    run_episode_program(data, cfg, max_ops=60)


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(max_envs=3), data=st.data())
def test_kernel_fixed_rewards_match_reference_table_at_every_cell(cfg, data):
    """Read every cell's fixed reward through the public API and compare with the table.

    A continuous action (0, 0) keeps the agent on its cell and pays that cell, so
    injecting the agent on each accessible cell (and on each changeable cell after
    it became the default tile) reads both planes of the fixed-reward table.
    """
    cfg = {**cfg, "actions": "2d_continuous", "autoreset_mode": "NextStep",
           "max_episode_steps": None}
    pair = Pair(cfg)
    try:
        pair.reset(seed=data.draw(st.integers(0, 2**32), label="seed"))
        stay = np.zeros((pair.n, 2), np.float64)
        for i in range(pair.n):
            level = pair.level(i)
            variants = [list(level.rows)]
            for r, c in pair.changeable_cells(i):
                rows = [list(row) for row in level.rows]
                rows[r][c] = level.alphabet.default_symbol
                variants.append(["".join(row) for row in rows])
            for tiles in variants:
                for cell in pair.accessible_cells(i, tiles):
                    pair.inject(i, {"pos": cell, "tiles": tiles, "step": 0,
                                    "needs_reset": False})
                    pair.step(stay, where=f"env {i} stays on {cell}")
    finally:
        pair.envs.close()


# --------------------------------------------------------------------------- targeted cases

TREASURE = """%gridsim 1
[legend]
c = reward=normal(5, 1) collectible color=255,215,0
x = reward=uniform(-2, 2) stochastic color=200,0,200
[map]
#######
#S c x#
#  #  #
#0 c 0#
#######
"""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("randomize_goals", [False, True])
def test_autoreset_state_equals_reference_reset_of_next_episode(mode, randomize_goals):
    """After an episode ends, the kernel's new episode is ``nav_reset(level, {key, episode + 1})``."""
    cfg = dict(num_envs=3, world_map=TREASURE, alphabet="noisy", autoreset_mode=mode,
               max_episode_steps=4, randomize_goals=randomize_goals, actions="1d_discrete",
               obs_type="image", channels_first=False, pixels_per_cell=1, mixer_seed=0,
               copy=True, obs_dtype=None)
    pair = Pair(cfg)
    pair.reset(seed=7)
    rng = np.random.default_rng(0)
    episodes_seen = set()
    for t in range(60):
        if mode == "Disabled":
            pending = np.array([pair.refs[i]["needs_reset"] for i in range(pair.n)])
            if pending.any():
                pair.reset(mask=pending, where=f"t={t}: reset")
        pair.step(rng.integers(0, 4, size=pair.n), where=f"t={t}")
        for i in range(pair.n):
            state = pair.envs.get_state(i)
            episodes_seen.add(state["episode"])
            fresh = nav_reset(pair.level(i), {"key": state["key"], "episode": state["episode"]},
                              randomize_goals=randomize_goals)
            if state["step"] == 0 and not state["needs_reset"]:
                for k in ("pos", "tiles", "rng", "return", "needs_reset"):
                    assert state[k] == fresh[k], (t, i, k)
    assert len(episodes_seen) >= 5  # several autoresets happened


def test_reset_state_equals_reference_reset_for_every_row():
    envs = NavVectorEnv(6, world_map=TREASURE, alphabet="noisy", randomize_goals=True)
    envs.reset(seed=123)
    keys = derive_keys([123 + i for i in range(6)])
    for i in range(6):
        state = envs.get_state(i)
        assert state["key"] == (int(keys[i, 0]), int(keys[i, 1]))
        fresh = nav_reset(envs.level, {"key": state["key"], "episode": 0}, randomize_goals=True)
        for k in ("pos", "tiles", "rng", "return", "needs_reset", "step", "episode"):
            assert state[k] == fresh[k], (i, k)


def test_continuous_half_boundary_matches_reference():
    """0.5 moves, the largest double below 0.5 does not; -0.5 stays, just below it moves."""
    below_half = np.nextafter(0.5, 0.0)
    cases = [
        ((0.0, 0.5), (3, 4)),
        ((0.0, below_half), (3, 3)),
        ((0.0, -0.5), (3, 3)),
        ((0.0, np.nextafter(-0.5, -1.0)), (3, 2)),
        ((below_half, np.nextafter(-0.5, 0.0)), (3, 3)),
    ]
    world = "\n".join(["#######", "#S    #", "#     #", "#     #", "#     #", "#######"])
    for action, target in cases:
        cfg = dict(num_envs=1, world_map=world, alphabet="navigation", actions="2d_continuous",
                   obs_type="coords", autoreset_mode="NextStep", max_episode_steps=None,
                   randomize_goals=False, mixer_seed=0, copy=True, obs_dtype=None)
        pair = Pair(cfg)
        pair.reset(seed=0)
        pair.inject(0, {"pos": (3, 3)})
        pair.step(np.array([action], np.float64), where=f"action {action}")
        assert pair.envs.get_state(0)["pos"] == target, action


def test_disabled_mode_stepping_an_ended_env_raises_and_changes_nothing():
    world = "#####\n#S0 #\n#####"
    envs = NavVectorEnv(2, world_map=world, autoreset_mode="Disabled")
    envs.reset(seed=0)
    _, _, term, _, _ = envs.step(np.array([1, 3]))
    np.testing.assert_array_equal(term, [True, False])
    before = [envs.get_state(i) for i in range(2)]
    with pytest.raises(RuntimeError):
        envs.step(np.array([3, 3]))
    assert [envs.get_state(i) for i in range(2)] == before


@pytest.mark.parametrize("level", ["nav/room1_small", "nav/room5_medium_walls", "nav/four_rooms"])
@pytest.mark.parametrize("alphabet", ["navigation", "noisy"])
def test_reference_env_matches_single_env_facade(level, alphabet):
    """``ReferenceNavEnv`` and ``NavEnv`` give the same trajectory for the same seed."""
    from gridsim.envs import NavEnv
    from gridsim.nav.level import load_nav_level

    ref = ReferenceNavEnv(load_nav_level(level, alphabet=alphabet), max_episode_steps=None)
    env = NavEnv(level=level, alphabet=alphabet)
    rng = np.random.default_rng(3)
    for seed in (0, 5):
        o1, _ = ref.reset(seed=seed)
        o2, _ = env.reset(seed=seed)
        np.testing.assert_array_equal(o1, o2)
        for _ in range(150):
            a = int(rng.integers(0, 4))
            r1 = ref.step(a)
            r2 = env.step(a)
            np.testing.assert_array_equal(r1[0], r2[0])
            assert r1[1:] == r2[1:]
        assert {k: ref.env[k] for k in STATE_KEYS if k != "needs_reset"} == {
            k: v for k, v in env.get_state().items() if k != "needs_reset"
        }
    env.close()


def test_set_state_key_gives_the_reference_table_of_that_key():
    """A state dict moved from row 1 to row 0 must make row 0 behave like row 1.

    The fixed rewards are a function of the key (drawn from its table stream), so
    after ``set_state({"key": k, ...})`` the reference draws its table from ``k``.
    """
    envs = NavVectorEnv(2, level="nav/room2_small", alphabet="noisy")
    envs.reset(seed=0)
    moved = envs.get_state(1)
    envs.set_state(moved, 0)
    assert envs.get_state(0) == moved
    ref = {**moved, "table": draw_reward_table(envs.level, moved["key"])}
    expected, _, _ = nav_step(envs.level, ref, 0)
    _, rewards, _, _, _ = envs.step(np.array([0, 0]))
    assert rewards[1] == expected
    assert rewards[0] == expected, f"row 0 paid {rewards[0]}, row 1 and the reference {expected}"
