"""Differential tests of the manipulation family: the kernel against the pure-Python reference.

The conformance procedure of ``docs/roboman.md``, run against ``gridsim.reference.roboman``:

1. reset the reference with a seed, copy its state into the env with ``set_state`` and
   compare the returned obs and mask;
2. drive both with the same actions: 10% uniform over all 7 actions (masked ones
   included), 60% a greedy lift / carry-to-the-nearest-object / put policy, the rest
   uniform over the valid actions. The greedy part builds stacks (and 3-stacks), which
   uniform actions almost never do;
3. compare on every step: obs (dtype and values), reward, both flags, the action mask
   and ``get_state()``, stopping at the first divergence;
4. a past-end mode on the single env: exactly 60 steps whatever the flags say;
5. batched: N reference envs against one vector env, ``set_state(index=i)`` per row, one
   action vector per step, with the autoresets (NEXT_STEP and SAME_STEP) of the
   reference rows drawn by ``roboman_reset`` from the same key and the next episode.

Hypothesis adds random (also inconsistent) injected states and action programs, and the
kernel's resets are compared with ``roboman_reset`` for the same key and episode,
multi-task mode and ``exclude_solved_starts`` included.

With ``events=True`` the kernel's events (``gridsim.engine.events.ROBOMAN_EVENTS``) must equal
the reference's on every step, and a one-slot buffer drops and counts the rest.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from event_helpers import expected_with_capacity, kernel_events
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridsim.engine.rng import derive_keys
from gridsim.envs import RobomanEnv, RobomanVectorEnv
from gridsim.reference.roboman import (
    ReferenceRobomanEnv,
    roboman_grid_obs,
    roboman_mask,
    roboman_obs,
    roboman_reset,
    roboman_step,
    roboman_top,
)
from gridsim.roboman.api import ROBOMAN_EVENTS
from gridsim.roboman.tasks import TASKS

TASK_NAMES = [t.name for t in TASKS]
MULTI = ["LiftRed", "TouchGreen", "MoveBlueToCorner", "StackRedOnBlue", "MoveGreenFarFromRed", "TouchBlueWithRed"]


# --------------------------------------------------------------------------- the policy


def greedy_action(state: dict, rng: np.random.Generator) -> int:
    """Lift a lone object, carry it to the nearest other object, put it there.

    Not holding: lift where exactly one object lies (or from the only stack when every
    object is in one cell), else walk to the nearest such cell. Holding: put where an
    object lies, else walk to the nearest object.
    """
    ax, ay = state["agent_pos"]
    held = state["lifted_obj_idx"]
    cells: dict[tuple[int, int], int] = {}
    for i, o in enumerate(state["objs"]):
        if i != held:
            cells[(o["x"], o["y"])] = cells.get((o["x"], o["y"]), 0) + 1
    if held is None:
        lone = [c for c, n in cells.items() if n == 1] or list(cells)
        if (ax, ay) in lone and roboman_top(state, ax, ay) is not None:
            return 5
        targets = lone
    else:
        if roboman_top(state, ax, ay) is not None:
            return 6
        targets = list(cells)
    if not targets:
        return int(rng.integers(7))
    dist = [abs(x - ax) + abs(y - ay) for x, y in targets]
    nearest = [t for t, d in zip(targets, dist, strict=True) if d == min(dist)]
    tx, ty = nearest[int(rng.integers(len(nearest)))]
    moves = []
    if tx < ax:
        moves.append(3)
    if tx > ax:
        moves.append(4)
    if ty < ay:
        moves.append(1)
    if ty > ay:
        moves.append(2)
    if not moves:  # on the target but nothing to lift there (a stale link); wander
        return int(rng.integers(7))
    return moves[int(rng.integers(len(moves)))]


def mixed_action(state: dict, rng: np.random.Generator) -> int:
    """10% uniform over all actions, 60% greedy, 30% uniform over the valid actions."""
    u = rng.random()
    if u < 0.1:
        return int(rng.integers(7))
    if u < 0.7:
        return greedy_action(state, rng)
    valid = np.flatnonzero(roboman_mask(state) == 0)
    return int(valid[rng.integers(len(valid))])


def stack_height(state: dict) -> int:
    """The tallest chain of ``obj_below`` links (1 = no stacks)."""
    best = 1
    for o in state["objs"]:
        h, j, seen = 1, o["obj_below"], set()
        while j is not None and j not in seen and h < 4:
            seen.add(j)
            h += 1
            j = state["objs"][j]["obj_below"]
        best = max(best, h)
    return best


# --------------------------------------------------------------------------- single env


def check_events(where, env, ref: ReferenceRobomanEnv):
    """The single env's events of the last step equal the reference env's."""
    got = kernel_events(env.unwrapped_vector.state, ROBOMAN_EVENTS, 0)
    assert got == ref.events, f"{where}: events {got} != {ref.events}"


def check_step(where, got, want, env_state, ref_state):
    obs, reward, term, trunc, info = got
    w_obs, w_reward, w_term, w_trunc, w_info = want
    assert isinstance(obs, np.ndarray) and obs.dtype == w_obs.dtype and obs.shape == w_obs.shape, where
    np.testing.assert_array_equal(obs, w_obs, err_msg=f"{where}: obs")
    assert type(reward) is float and type(term) is bool and type(trunc) is bool, where
    assert (reward, term, trunc) == (w_reward, w_term, w_trunc), f"{where}: reward/flags"
    assert set(info) == {"action_mask"}, where
    assert info["action_mask"].dtype == np.int8, where
    np.testing.assert_array_equal(info["action_mask"], w_info["action_mask"], err_msg=f"{where}: mask")
    assert env_state == ref_state, f"{where}: state {env_state} != {ref_state}"


def run_single_episode(env: RobomanEnv, ref: ReferenceRobomanEnv, seed: int, rng, past_end: bool) -> list[dict]:
    """One conformance episode; returns the reference states seen."""
    ref_obs, ref_info = ref.reset(seed=seed)
    obs, info = env.reset(seed=seed)  # the same key: the same start without injection
    np.testing.assert_array_equal(obs, ref_obs, err_msg=f"seed {seed}: reset obs")
    np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
    assert env.unwrapped.get_state() == ref.get_state()
    obs, info = env.unwrapped.set_state(ref.get_state())
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs, ref_obs, err_msg=f"seed {seed}: set_state obs")
    np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
    seen = [ref.get_state()]
    for t in range(60 if past_end else 10**6):
        a = mixed_action(ref.state, rng)
        want = ref.step(a)
        got = env.step(a)
        where = f"seed {seed} {ref.task.name} step {t + 1} action {a}"
        check_step(where, got, want, env.unwrapped.get_state(), ref.get_state())
        check_events(where, env, ref)  # past the end too: goal_reached on every terminated step
        seen.append(ref.get_state())
        if not past_end and (want[2] or want[3]):
            break
    return seen


def _single_conformance(n_episodes: int, past_end: bool, seed0: int):
    rng = np.random.default_rng(seed0)
    heights = []
    for e in range(n_episodes):
        task = TASK_NAMES[e % len(TASK_NAMES)]
        env, ref = RobomanEnv(task=task, events=True), ReferenceRobomanEnv(task)
        try:
            seen = run_single_episode(env, ref, seed0 + e, rng, past_end)
        finally:
            env.close()
        heights.append(max(stack_height(s) for s in seen))
    return np.array(heights)


def test_single_env_conformance():
    heights = _single_conformance(216, past_end=False, seed0=1000)
    assert (heights >= 2).mean() > 0.5


def test_single_env_conformance_past_end_sixty_steps():
    heights = _single_conformance(216, past_end=True, seed0=5000)
    assert (heights >= 2).mean() > 0.8
    assert (heights == 3).mean() > 0.3, "3-stacks are rarely built"


@pytest.mark.slow
@pytest.mark.parametrize("past_end", [False, True])
def test_single_env_conformance_many_episodes(past_end):
    heights = _single_conformance(1800, past_end=past_end, seed0=20000 + 7 * past_end)
    assert (heights == 3).mean() > 0.2


def test_three_stacks_are_reached():
    """The mixed policy builds a 3-stack in most 60-step runs (more than the docs' 8%: it favours lone objects)."""
    rng = np.random.default_rng(1)
    ref = ReferenceRobomanEnv("StackRedOnGreen")
    hits, runs = 0, 300
    for seed in range(runs):
        ref.reset(seed=seed)
        top = 1
        for _ in range(60):
            ref.step(mixed_action(ref.state, rng))
            top = max(top, stack_height(ref.state))
        hits += top == 3
    assert hits / runs > 0.5, hits


# --------------------------------------------------------------------------- batched


class Rows:
    """N reference rows mirroring one RobomanVectorEnv, autoresets included."""

    def __init__(self, n: int, tasks, mode: str = "NextStep", max_steps: int = 50, exclude: bool = False,
                 task_in_obs: bool = False, obs_type: str = "vector", mixer_seed: int = 0, num_threads: int = 1,
                 events: bool = True, max_events: int = 16):
        self.n = n
        self.mode = mode
        self.tasks = list(tasks)
        self.multi = len(self.tasks) > 1
        self.max_steps = max_steps
        self.exclude = exclude
        self.task_in_obs = task_in_obs
        self.obs_type = obs_type
        self.mixer_seed = mixer_seed
        kwargs = {"tasks": self.tasks} if self.multi else {"task": self.tasks[0]}
        self.envs = RobomanVectorEnv(
            n, **kwargs, task_in_obs=task_in_obs, obs_type=obs_type, max_episode_steps=max_steps,
            exclude_solved_starts=exclude, autoreset_mode=mode, mixer_seed=mixer_seed, num_threads=num_threads,
            events=events, max_events_per_step=max_events,
        )
        self.events_on, self.capacity = events, max_events
        self.dropped = np.zeros(n, np.int64)
        self.lifts_and_puts = 0
        self.key: list = [None] * n
        self.episode = [0] * n
        self.state: list[dict] = [{} for _ in range(n)]
        self.task = [None] * n
        self.finished = [False] * n
        self.clean = [True] * n  # no injection since the episode began: its statistics are known
        self.ret = [0.0] * n
        self.length = [0] * n
        self.autoresets = 0
        self.max_height = 1

    def close(self):
        self.envs.close()

    def obs(self, i: int) -> np.ndarray:
        if self.obs_type == "grid":
            return roboman_grid_obs(self.state[i])
        obs = roboman_obs(self.state[i])
        if self.task_in_obs:
            hot = np.zeros(len(self.tasks), np.float32)
            hot[self.tasks.index(self.task[i].name)] = 1.0
            obs = np.concatenate([obs, hot])
        return obs

    def _start(self, i: int):
        self.state[i], self.task[i] = roboman_reset(self.key[i], self.episode[i], self.tasks, self.exclude)
        self.finished[i], self.clean[i] = False, True
        self.ret[i], self.length[i] = 0.0, 0

    def _check_rows(self, where: str):
        for i in range(self.n):
            got = self.envs.get_state(i)
            assert got == self.state[i], f"{where}: row {i}: state {got} != {self.state[i]}"
            assert self.envs.get_task(i) == self.task[i].name, f"{where}: row {i}: task"

    def _check_masks(self, where: str, infos: dict, rows=None):
        masks = np.stack([roboman_mask(s) for s in self.state])
        rows = np.ones(self.n, bool) if rows is None else rows
        assert infos["action_mask"].dtype == np.int8 and infos["action_mask"].shape == (self.n, 7), where
        np.testing.assert_array_equal(infos["_action_mask"], rows, err_msg=f"{where}: _action_mask")
        np.testing.assert_array_equal(infos["action_mask"][rows], masks[rows], err_msg=f"{where}: action_mask")
        np.testing.assert_array_equal(self.envs.action_masks(), masks == 0, err_msg=f"{where}: action_masks()")

    def _check_obs(self, where: str, obs: np.ndarray):
        want = np.stack([self.obs(i) for i in range(self.n)])
        assert obs.dtype == want.dtype and obs.shape == want.shape, where
        np.testing.assert_array_equal(obs, want, err_msg=f"{where}: obs")

    def reset(self, seed: int):
        obs, infos = self.envs.reset(seed=seed)
        keys = derive_keys([seed + i for i in range(self.n)], self.mixer_seed)
        for i in range(self.n):
            self.key[i], self.episode[i] = (int(keys[i, 0]), int(keys[i, 1])), 0
            self._start(i)
        where = f"reset(seed={seed})"
        self._check_obs(where, obs)
        assert set(infos) == {"action_mask", "_action_mask"}, where
        self._check_masks(where, infos)
        self._check_rows(where)

    def inject(self, i: int, state: dict):
        obs, info = self.envs.set_state(copy.deepcopy(state), i)
        self.state[i] = copy.deepcopy(state)
        self.finished[i], self.clean[i] = False, False
        where = f"set_state(row {i})"
        np.testing.assert_array_equal(obs, self.obs(i), err_msg=where)
        assert obs.dtype == self.obs(i).dtype
        np.testing.assert_array_equal(info["action_mask"], roboman_mask(state), err_msg=where)
        assert info["action_mask"].dtype == np.int8
        self._check_rows(where)

    def actions(self, rng) -> np.ndarray:
        return np.array([mixed_action(s, rng) for s in self.state], dtype=np.int64)

    def step(self, actions: np.ndarray, where: str):
        n = self.n
        rew = np.zeros(n, np.float32)
        term = np.zeros(n, bool)
        trunc = np.zeros(n, bool)
        ended = np.zeros(n, bool)
        final_obs, final_mask = [None] * n, np.zeros((n, 7), np.int8)
        stats = {"return": np.zeros(n), "length": np.zeros(n, np.int64), "success": np.zeros(n, bool)}
        clean_end = np.zeros(n, bool)
        expected: list[list] = [[] for _ in range(n)]
        for i in range(n):
            if self.finished[i]:  # NEXT_STEP: the action is ignored and the row resets
                self.episode[i] += 1
                self.autoresets += 1
                self._start(i)
                expected[i] = []  # a reset records no events
                continue
            found: list = []
            _, r, te, tr, m = roboman_step(self.state[i], int(actions[i]), self.task[i], self.max_steps, found)
            self.lifts_and_puts += sum(name != "goal_reached" for name, _ in found)
            expected[i], lost = expected_with_capacity(found, self.capacity)
            self.dropped[i] += lost
            self.max_height = max(self.max_height, stack_height(self.state[i]))
            rew[i], term[i], trunc[i] = r, te, tr
            self.ret[i] += float(r)
            self.length[i] += 1
            if te or tr:
                ended[i], clean_end[i] = True, self.clean[i]
                stats["return"][i], stats["length"][i], stats["success"][i] = self.ret[i], self.length[i], te
                if self.mode == "SameStep":
                    final_obs[i], final_mask[i] = self.obs(i), m
                    self.episode[i] += 1
                    self.autoresets += 1
                    self._start(i)
                else:
                    self.finished[i] = True
        frozen = actions.copy()
        obs, g_rew, g_term, g_trunc, infos = self.envs.step(actions)
        np.testing.assert_array_equal(actions, frozen)
        self._check_obs(where, obs)
        assert g_rew.dtype == np.float32 and g_term.dtype == np.bool_ and g_trunc.dtype == np.bool_
        np.testing.assert_array_equal(g_rew, rew, err_msg=f"{where}: rewards")
        np.testing.assert_array_equal(g_term, term, err_msg=f"{where}: terminations")
        np.testing.assert_array_equal(g_trunc, trunc, err_msg=f"{where}: truncations")
        self._check_masks(where, infos)
        self._check_ended(where, infos, ended, clean_end, stats, final_obs, final_mask)
        self._check_rows(where)
        self._check_events(where, expected)

    def _check_events(self, where: str, expected: list):
        st = self.envs.state
        if not self.events_on:
            assert not st.event_count.any() and not st.event_dropped.any(), f"{where}: events while off"
            return
        for i in range(self.n):  # SAME_STEP: the finishing step's events, then none from the reset
            got = kernel_events(st, ROBOMAN_EVENTS, i)
            assert got == expected[i], f"{where}: row {i}: events {got} != {expected[i]}"
        np.testing.assert_array_equal(st.event_dropped, self.dropped, err_msg=f"{where}: dropped")

    def _check_ended(self, where, infos, ended, clean_end, stats, final_obs, final_mask):
        if not ended.any():
            assert set(infos) == {"action_mask", "_action_mask"}, f"{where}: {sorted(infos)}"
            return
        if self.mode == "SameStep":
            np.testing.assert_array_equal(infos["_final_obs"], ended)
            np.testing.assert_array_equal(infos["_final_info"], ended)
            for i in range(self.n):
                if ended[i]:
                    assert infos["final_obs"][i].dtype == final_obs[i].dtype
                    np.testing.assert_array_equal(infos["final_obs"][i], final_obs[i], err_msg=f"{where}: final_obs")
                else:
                    assert infos["final_obs"][i] is None
            holder = infos["final_info"]
            np.testing.assert_array_equal(holder["_action_mask"], ended, err_msg=f"{where}: final _action_mask")
            np.testing.assert_array_equal(holder["action_mask"][ended], final_mask[ended],
                                          err_msg=f"{where}: final action_mask")
            assert holder["action_mask"].dtype == np.int8
        else:
            holder = infos
        assert "episode" not in infos
        np.testing.assert_array_equal(holder["_episode_stats"], ended)
        got = holder["episode_stats"]
        for k in ("return", "length", "success"):
            np.testing.assert_array_equal(got["_" + k], ended, err_msg=f"{where}: _{k}")
        np.testing.assert_array_equal(got["success"][ended], stats["success"][ended], err_msg=f"{where}: success")
        np.testing.assert_array_equal(got["return"][clean_end], stats["return"][clean_end], err_msg=f"{where}: return")
        np.testing.assert_array_equal(got["length"][clean_end], stats["length"][clean_end], err_msg=f"{where}: length")


def run_batched(n, tasks, mode, steps, seed, inject_every=0, **kwargs) -> Rows:
    rows = Rows(n, tasks, mode, **kwargs)
    rng = np.random.default_rng(seed)
    try:
        rows.reset(seed)
        # The procedure: copy a reference state into every row (here: the reference's own start).
        for i in range(n):
            rows.inject(i, rows.state[i])
            rows.clean[i] = True
        for t in range(steps):
            if inject_every and t % inject_every == inject_every - 1:
                i = int(rng.integers(n))
                ref = ReferenceRobomanEnv(tasks[0])
                ref.reset(seed=int(rng.integers(10**6)))
                for _ in range(int(rng.integers(30))):
                    ref.step(mixed_action(ref.state, rng))
                rows.inject(i, ref.get_state())
            rows.step(rows.actions(rng), f"step {t + 1}")
    finally:
        rows.close()
    return rows


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_batched_conformance(mode):
    rows = run_batched(8, ["StackGreenOnRed"], mode, 250, seed=11, inject_every=17)
    assert rows.autoresets >= 8
    assert rows.max_height == 3


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_batched_conformance_multi_task(mode):
    rows = run_batched(12, MULTI, mode, 150, seed=3, inject_every=23, task_in_obs=True)
    assert rows.autoresets >= 12


def test_batched_conformance_grid_obs_and_exclusion():
    rows = run_batched(6, ["MoveRedToCorner"], "SameStep", 150, seed=5, exclude=True, obs_type="grid",
                       events=False)
    assert rows.autoresets >= 6


@pytest.mark.parametrize("max_events", [16, 1])
def test_batched_conformance_short_limit_and_mixer_seed(max_events):
    rows = run_batched(16, MULTI, "NextStep", 120, seed=9, max_steps=7, mixer_seed=2, max_events=max_events)
    assert rows.autoresets >= 16 * 10
    assert rows.lifts_and_puts > 100
    if max_events == 1:
        assert rows.dropped.sum() > 0  # lifting onto a goal: object_lifted, then goal_reached


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("tasks", [TASK_NAMES, ["StackRedOnBlue"], ["MoveGreenToCenter"]])
def test_batched_conformance_long(mode, tasks):
    rows = run_batched(32, tasks, mode, 600, seed=len(tasks), inject_every=13, task_in_obs=len(tasks) > 1)
    assert rows.autoresets >= 32 * 5


# --------------------------------------------------------------------------- resets


@pytest.mark.parametrize("tasks", [["LiftRed"], MULTI, TASK_NAMES])
@pytest.mark.parametrize("exclude", [False, True])
def test_resets_equal_reference_resets(tasks, exclude):
    """Row i of ``reset(seed=s)`` is ``roboman_reset(key(s + i), 0)``; unseeded resets continue the episodes."""
    n = 64
    kwargs = {"tasks": tasks} if len(tasks) > 1 else {"task": tasks[0]}
    envs = RobomanVectorEnv(n, **kwargs, exclude_solved_starts=exclude)
    try:
        for seed in (0, 77, 2**40):
            envs.reset(seed=seed)
            keys = derive_keys([seed + i for i in range(n)])
            for episode in range(3):
                if episode:
                    envs.reset()
                for i in range(n):
                    state, task = roboman_reset(keys[i], episode, tasks, exclude)
                    assert envs.get_state(i) == state, (seed, episode, i)
                    assert envs.get_task(i) == task.name
    finally:
        envs.close()


def test_reference_env_matches_single_env_with_resets():
    """``ReferenceRobomanEnv`` and ``RobomanEnv`` give one trajectory for one seed, unseeded resets included."""
    rng = np.random.default_rng(4)
    for task in ("MoveRedCloseToBlue", "TouchGreen"):
        ref, env = ReferenceRobomanEnv(task), RobomanEnv(task=task)
        for seed in (0, 9):
            for episode in range(4):
                o1, i1 = ref.reset(seed=seed if episode == 0 else None)
                o2, i2 = env.reset(seed=seed if episode == 0 else None)
                np.testing.assert_array_equal(o1, o2)
                np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
                for t in range(55):
                    a = mixed_action(ref.state, rng)
                    check_step(f"{task} seed {seed} ep {episode} t {t}", env.step(a), ref.step(a),
                               env.unwrapped.get_state(), ref.get_state())
        env.close()


# --------------------------------------------------------------------------- hypothesis

CELL = st.integers(0, 6)
LINK = st.one_of(st.none(), st.integers(0, 2))


@st.composite
def states(draw):
    """Any state the env accepts: often consistent-looking, often not, crowded on few cells."""
    pool = draw(st.lists(st.tuples(CELL, CELL), min_size=1, max_size=3))
    cell = st.one_of(st.sampled_from(pool), st.tuples(CELL, CELL))
    agent = draw(cell)
    objs = []
    for _ in range(3):
        x, y = draw(cell)
        objs.append({"x": x, "y": y, "obj_above": draw(LINK), "obj_below": draw(LINK)})
    timer = draw(st.one_of(st.integers(0, 60), st.integers(0, 2**31 - 100)))
    return {"agent_pos": agent, "objs": objs, "lifted_obj_idx": draw(LINK), "timer": timer}


@st.composite
def reachable_states(draw):
    """A state reached from a reset by the mixed policy (the invariants hold)."""
    ref = ReferenceRobomanEnv("LiftRed")
    ref.reset(seed=draw(st.integers(0, 2**32)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 45))):
        ref.step(mixed_action(ref.state, rng))
    return ref.get_state()


ACTIONS = st.lists(st.integers(0, 6), min_size=1, max_size=40)
_SINGLE: dict[tuple[str, int], RobomanEnv] = {}


def _single(task: str, max_steps: int) -> RobomanEnv:
    if (task, max_steps) not in _SINGLE:
        env = RobomanEnv(task=task, max_episode_steps=max_steps, events=True)
        env.reset(seed=0)
        _SINGLE[(task, max_steps)] = env
    return _SINGLE[(task, max_steps)]


def _check_injected_program(state, actions, task, max_steps, numpy_actions):
    env = _single(task, max_steps)
    ref = ReferenceRobomanEnv(task, max_episode_steps=max_steps)
    ref.reset(seed=0)
    want_obs, want_info = ref.set_state(state)
    obs, info = env.unwrapped.set_state(copy.deepcopy(state))
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs, want_obs)
    np.testing.assert_array_equal(info["action_mask"], want_info["action_mask"])
    assert env.unwrapped.get_state() == state
    for t, a in enumerate(actions):
        given = np.int32(a) if numpy_actions else a
        check_step(f"step {t + 1} action {a}", env.step(given), ref.step(a), env.unwrapped.get_state(),
                   ref.get_state())
        check_events(f"step {t + 1} action {a}", env, ref)  # inconsistent states included


HYP = settings(deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])


@HYP
@given(state=states(), actions=ACTIONS, task=st.sampled_from(TASK_NAMES),
       max_steps=st.sampled_from([50, 50, 1, 5, 20]), numpy_actions=st.booleans())
def test_injected_states_single_env(state, actions, task, max_steps, numpy_actions):
    _check_injected_program(state, actions, task, max_steps, numpy_actions)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(state=reachable_states(), actions=ACTIONS, task=st.sampled_from(TASK_NAMES))
def test_reachable_states_single_env(state, actions, task):
    _check_injected_program(state, actions, task, 50, False)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.integers(1, 4), mode=st.sampled_from(["NextStep", "SameStep"]),
       tasks=st.lists(st.sampled_from(TASK_NAMES), min_size=1, max_size=4, unique=True),
       max_steps=st.sampled_from([50, 3, 8]), seed=st.integers(0, 2**32))
def test_injected_states_vector_env(data, n, mode, tasks, max_steps, seed):
    """Random programs of steps and injections on a small vector env, autoresets included."""
    rows = Rows(n, tasks, mode, max_steps=max_steps, task_in_obs=len(tasks) > 1 and data.draw(st.booleans()))
    try:
        rows.reset(seed)
        for t in range(data.draw(st.integers(1, 30), label="ops")):
            if data.draw(st.integers(0, 4), label="inject?") == 0:
                i = data.draw(st.integers(0, n - 1), label="row")
                rows.inject(i, data.draw(st.one_of(states(), reachable_states()), label="state"))
                continue
            acts = data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n), label="actions")
            dtype = data.draw(st.sampled_from([np.int64, np.int32, np.uint8]), label="dtype")
            rows.step(np.array(acts, dtype=dtype), f"op {t}")
    finally:
        rows.close()


_GRID: dict[str, RobomanVectorEnv] = {}


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), actions=st.lists(st.integers(0, 6), max_size=10), row=st.integers(0, 2))
def test_grid_obs_of_injected_states(state, actions, row):
    """The grid observation of any state (cyclic or one-sided links included) and of its successors."""
    if "env" not in _GRID:
        _GRID["env"] = RobomanVectorEnv(3, task="StackRedOnGreen", obs_type="grid", max_episode_steps=10**6)
        _GRID["env"].reset(seed=0)
    envs = _GRID["env"]
    obs, info = envs.set_state(copy.deepcopy(state), row)
    np.testing.assert_array_equal(obs, roboman_grid_obs(state))
    ref = copy.deepcopy(state)
    for a in actions:
        acts = np.zeros(3, np.int64)
        acts[row] = a
        roboman_step(ref, a, "StackRedOnGreen", 10**6)
        obs, _, term, _, _ = envs.step(acts)
        assert obs.dtype == np.uint8 and obs.shape == (3, 7, 7, 4)
        np.testing.assert_array_equal(obs[row], roboman_grid_obs(ref))
        assert envs.get_state(row) == ref
        if term[row]:
            break


@pytest.mark.slow
@settings(deadline=None, max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), actions=ACTIONS, task=st.sampled_from(TASK_NAMES),
       max_steps=st.sampled_from([50, 1, 5, 20]))
def test_injected_states_single_env_thoroughly(state, actions, task, max_steps):
    _check_injected_program(state, actions, task, max_steps, False)
