"""The BabyAI bot in the kernel (gridsim.minigrid.bot): batched as per env, threads, state, failures, errors.

Its action-for-action equality with Minigrid's bot runs in tests/minigrid/test_babyai_diff.py,
where both bots replan beside each other in every played episode of every BabyAI id; here it
also meets heavier deviations, where replanning does most of the work.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("minigrid")

import test_babyai_diff as diff  # noqa: E402

import gridsim  # noqa: E402
from gridsim.errors import GridSimError, InvalidArgumentError  # noqa: E402
from gridsim.minigrid.bot import FAILURES, BabyAIBot  # noqa: E402

# Levels where the plan changes most: blockers, locked doors, keys, sequences, put-next.
REPLANNING_IDS = ["BabyAI-UnblockPickup-v0", "BabyAI-BlockedUnlockPickup-v0", "BabyAI-KeyCorridorS3R3-v0",
                  "BabyAI-PutNextLocal-v0", "BabyAI-Synth-v0", "BabyAI-GoToImpUnlock-v0", "BabyAI-BossLevel-v0",
                  "BabyAI-UnlockLocalDist-v0", "BabyAI-OpenDoorsOrderN4-v0", "BabyAI-MoveTwoAcrossS5N2-v0"]


@pytest.mark.parametrize("name", REPLANNING_IDS)
def test_heavy_deviations_match_minigrids_bot(name):
    # A third of the actions random: the bots undo them, unblock, fetch keys and drop them again.
    stats = diff.play(name, seed=21, steps=120, deviate=0.33)
    assert stats.steps > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", REPLANNING_IDS)
def test_heavy_deviations_match_minigrids_bot_more_seeds(name):
    for seed in range(30, 34):
        diff.play(name, seed=seed, steps=150, deviate=0.33)


def _drive(env, steps: int, seed: int, first: int = 0, deviate: float = 0.25) -> list[np.ndarray]:
    # The bot's actions (and failures) at every step, env j (env first + j of the whole run,
    # seeded seed + first + j) taking them or, with probability deviate (or where its bot
    # failed), a random action from its own stream.
    n = env.num_envs
    bot = BabyAIBot(env)
    streams = [np.random.default_rng([seed, first + j]) for j in range(n)]
    env.reset(seed=seed + first)
    taken = None
    suggested = []
    for _ in range(steps):
        a = bot.replan(taken)
        suggested.append(np.concatenate([a, bot.failure]))
        act = np.array([a[i] if a[i] >= 0 and streams[i].random() >= deviate else streams[i].integers(7)
                        for i in range(n)])
        env.step(act)
        taken = act
    return suggested


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["BabyAI-GoToLocal-v0", "BabyAI-BossLevel-v0", "BabyAI-KeyCorridorS3R3-v0"])
def test_a_batch_suggests_what_each_env_alone_does(name, threads):
    # Env i of a batch reset with seed s is the env reset alone with seed s + i; its bot's
    # actions (and failures) are the same, whatever the batch size and thread count.
    n, steps = 12, 80
    batch = _drive(gridsim.make(name, num_envs=n, num_threads=threads), steps, seed=5)
    half = _drive(gridsim.make(name, num_envs=n // 2, num_threads=threads), steps, seed=5, first=n // 2)
    for i in (0, 3, n // 2, n - 1):
        # Each env alone, with the stream of actions it had in the batch.
        alone = _drive_one(name, 5, i, steps)
        got = [(row[i], row[n + i]) for row in batch]
        assert got == alone, (name, i)
        if i >= n // 2:
            assert [(row[i - n // 2], row[n // 2 + i - n // 2]) for row in half] == alone


def _drive_one(name: str, seed: int, i: int, steps: int, deviate: float = 0.25) -> list[tuple[int, int]]:
    env = gridsim.make(name, num_envs=1)
    bot = BabyAIBot(env)
    stream = np.random.default_rng([seed, i])
    env.reset(seed=seed + i)
    taken = None
    out = []
    for _ in range(steps):
        a = bot.replan(taken)
        out.append((a[0], bot.failure[0]))
        act = np.array([a[0] if a[0] >= 0 and stream.random() >= deviate else stream.integers(7)])
        env.step(act)
        taken = act
    return out


def test_a_single_env_takes_and_returns_one_action():
    import gymnasium as gym

    env = gym.make("gridsim/BabyAI-GoToRedBall-v0")
    env.reset(seed=3)
    bot = BabyAIBot(env)
    action = bot.replan()
    assert isinstance(action, int) and 0 <= action <= 6
    for _ in range(64):
        _, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
        action = bot.replan(action)
    assert terminated and reward > 0


def test_the_bot_state_travels_with_the_env_state(tmp_path):
    # Mid-episode, the batch's state loaded into another batch, a checkpoint and a deep copy
    # continue the same plans; get_state / set_state carry one env's.
    name, n = "BabyAI-UnlockPickup-v0", 8
    a = gridsim.make(name, num_envs=n)
    bot_a = BabyAIBot(a)
    a.reset(seed=11)
    rng = np.random.default_rng(0)
    taken = None
    for _ in range(15):
        act = bot_a.replan(taken)
        taken = np.where((act < 0) | (rng.random(n) < 0.2), rng.integers(0, 7, n), act)
        a.step(taken)
    one = a.get_state(3)
    assert one["bot"].shape == (gridsim.minigrid._kernel.MINIGRID_BOT_SLOTS,) and one["bot"].dtype == np.int16
    b = gridsim.make(name, num_envs=n)
    b.reset(seed=99)
    b.load_state_dict(a.state_dict())
    c = copy.deepcopy(a)
    gridsim.save_checkpoint(a, tmp_path / "a.npz")
    d = gridsim.make(name, num_envs=n)
    gridsim.load_checkpoint(d, tmp_path / "a.npz")
    e = gridsim.make(name, num_envs=1)
    e.reset(seed=0)
    e.set_state(one)
    bots = [bot_a] + [BabyAIBot(env) for env in (b, c, d, e)]
    for _ in range(40):
        acts = [bot.replan(None if taken is None else taken[3:4] if k == 4 else taken) for k, bot in enumerate(bots)]
        for k in (1, 2, 3):
            assert (acts[0] == acts[k]).all(), k
        assert acts[4][0] == acts[0][3]
        taken = np.where((acts[0] < 0) | (rng.random(n) < 0.2), rng.integers(0, 7, n), acts[0])
        for env in (a, b, c, d):
            env.step(taken)
        e.step(taken[3:4])


def test_a_reset_starts_the_bot_afresh():
    env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=4)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    first = bot.replan()
    assert bot.started.all()
    env.step(first)
    bot.replan(first)
    assert not bot.started.any()
    env.reset(seed=0)
    assert (bot.replan() == first).all() and bot.started.all()


def test_opening_a_box_fails_that_env_alone():
    # Upstream raises DisappearedBoxError when the agent toggles a box in front of it; here that
    # env's bot fails (reason 1) and answers -1 until its reset, the others go on.
    env = gridsim.make("BabyAI-BossLevel-v0", num_envs=64)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    actions = bot.replan()
    dx, dy = np.array([1, 0, -1, 0]), np.array([0, 1, 0, -1])
    for _ in range(200):  # the bot's own actions until some agent faces a box
        grid, agent = env.state.grid, env.state.agent  # (read only)
        fx, fy = agent[:, 0] + dx[agent[:, 2]], agent[:, 1] + dy[agent[:, 2]]
        box = (grid[np.arange(64), fy, fx, 0] == gridsim.minigrid._kernel.MINIGRID_OBJECTS["box"]) & (actions >= 0)
        if box.any():
            break
        env.step(np.where(actions < 0, 6, actions))
        actions = bot.replan()
    assert 0 < box.sum() < 64
    taken = np.where(box, 5, actions)
    env.step(taken)
    out = bot.replan(taken)
    assert (out[box] == -1).all() and (bot.failure[box] == 1).all()
    assert (out[~box] >= 0).all() and not bot.failed[~box].any()
    assert FAILURES[1].startswith("a box was opened")
    env.step(np.where(out < 0, 6, out))
    assert (bot.replan(np.where(out < 0, 6, out))[box] == -1).all()


def test_an_endless_plan_is_cut_short():
    # Upstream's plan can grow for ever (UnlockToUnlock, seed 4, after one turn: its stack grows
    # without end); here the env fails once its stack outgrows the bot's.
    env = gridsim.make("BabyAI-UnlockToUnlock-v0", num_envs=1)
    env.reset(seed=4)
    bot = BabyAIBot(env)
    a = bot.replan()
    env.step(a)
    assert bot.replan(a)[0] == -1 and bot.failure[0] == 4


def test_a_written_state_the_bot_cannot_read_fails_that_env():
    env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=3)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    bot.replan()
    state = env.get_state(1)
    state["bot"][gridsim.minigrid._kernel.MINIGRID_BOT_LAYOUT["stack_at"]] = 99  # the first subgoal's kind
    env.set_state(state, 1)
    out = bot.replan()
    assert out[1] == -1 and bot.failure[1] == 5 and (out[[0, 2]] >= 0).all()


@pytest.mark.parametrize("slot, value", [(0, 3), (2, 41), (2, -1), (1, 9)])
def test_a_bot_state_out_of_range_is_refused_before_anything_changes(slot, value):
    env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=2)
    env.reset(seed=0)
    BabyAIBot(env).replan()
    before = env.get_state()
    state = copy.deepcopy(before)
    state["bot"][slot] = value
    with pytest.raises(GridSimError, match="bot"):
        env.set_state(state)
    after = env.get_state()
    assert all(np.array_equal(before[k], after[k]) for k in before if isinstance(before[k], np.ndarray))
    with pytest.raises(GridSimError, match="bot"):
        env.set_state({"bot": before["bot"][:10]})


def test_bad_arguments_are_refused_in_one_line():
    with pytest.raises(InvalidArgumentError, match="BabyAI id"):
        BabyAIBot(gridsim.make("MiniGrid-DoorKey-8x8-v0", num_envs=2))
    env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=2)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    for bad in ([1, 2, 3], [0.5, 1.0], [7, 0], [-2, 0], [[1, 2]]):
        with pytest.raises(InvalidArgumentError) as info:
            bot.replan(np.array(bad))
        assert "\n" not in str(info.value)
    assert (bot.replan(np.array([-1, -1])) >= 0).all()  # -1: the suggestion taken (upstream's None)
    env.close()
    with pytest.raises(GridSimError, match="closed"):
        bot.replan()


def test_threads_calling_one_env_take_turns():
    # The bot's call holds the env's lock, as its step does: two threads replanning and stepping
    # one env run one call after another (and the env stays consistent).
    import threading

    env = gridsim.make("BabyAI-GoToLocal-v0", num_envs=64)
    env.reset(seed=0)
    bot = BabyAIBot(env)
    errors = []

    def work():
        try:
            for _ in range(50):
                a = bot.replan()
                env.step(np.where(a < 0, 6, a))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (bot.replan() >= -1).all()
