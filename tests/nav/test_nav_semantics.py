"""PixelWorld semantics that are not about Gymnasium conformance.

Reward timing, optimal returns of the shipped maps, the noisy per-seed reward table,
stochastic and collectible symbols, image and view observations, randomized goals
and the ``start`` reset option.
"""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest

import gridsim  # noqa: F401  (registers the ids)
from gridsim.envs import NavEnv, NavVectorEnv

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
MOVES = {UP: (-1, 0), RIGHT: (0, 1), DOWN: (1, 0), LEFT: (0, -1)}
AGENT = (50, 205, 50)
FLOOR = (255, 255, 255)
WALL = (0, 0, 0)
GOAL = (50, 50, 255)
GOLD = (255, 215, 0)

# The seven original maps: stem -> (S, goal, path length), as documented in docs/levels.md.
ORIGINAL_MAPS = {
    "room1": ((4, 1), (1, 9), 11),
    "room1_small": ((4, 1), (1, 4), 6),
    "room2_small": ((4, 1), (1, 2), 4),
    "room3_small": ((4, 1), (4, 7), 6),
    "room4_small": ((4, 1), (1, 9), 11),
    "room5_medium": ((1, 1), (1, 8), 7),
    "room5_medium_walls": ((1, 1), (1, 8), 7),
}

COIN_ROOM = """%gridsim 1
[legend]
c = reward=5 collectible color=255,215,0
[map]
#######
#S c 0#
#######
"""

DICE_ROOM = """%gridsim 1
[legend]
x = reward=normal(0, 1) stochastic color=200,0,200
[map]
#####
#Sx0#
#####
"""

THREE_GOALS = """#######
#0   0#
#  S  #
#0    #
#######"""


def shortest_actions(rows: list[str] | tuple[str, ...], start, goal) -> list[int]:
    """Discrete actions of one shortest 4-neighbour path (BFS over non-'#' cells)."""
    prev = {tuple(start): None}
    queue = deque([tuple(start)])
    while queue:
        cell = queue.popleft()
        if cell == tuple(goal):
            break
        for a, (dr, dc) in MOVES.items():
            r, c = cell[0] + dr, cell[1] + dc
            if 0 <= r < len(rows) and 0 <= c < len(rows[0]) and rows[r][c] != "#" \
                    and (r, c) not in prev:
                prev[(r, c)] = (cell, a)
                queue.append((r, c))
    actions = []
    cell = tuple(goal)
    while prev[cell] is not None:
        cell, a = prev[cell]
        actions.append(a)
    return actions[::-1]


def step1(envs, action):
    """Step a one-row vector env with one discrete action; returns scalars."""
    obs, rew, term, trunc, infos = envs.step(np.array([action], np.int64))
    return obs[0], rew[0], bool(term[0]), bool(trunc[0]), infos


def accessible_cells(envs, i: int = 0) -> list[tuple[int, int]]:
    tiles = envs.get_state(i)["tiles"]
    return [(r, c) for r, row in enumerate(tiles) for c, ch in enumerate(row) if ch != "#"]


def read_tables(envs) -> np.ndarray:
    """Every row's fixed reward of every accessible cell, read through the public API.

    Needs ``actions="2d_continuous"``: the action (0, 0) stays on the cell and pays it.
    Walls are NaN. The agents are left wherever the last read put them.
    """
    n = envs.num_envs
    out = np.full((n, envs.level.height, envs.level.width), np.nan, np.float32)
    stay = np.zeros((n, 2), np.float32)
    for r, c in accessible_cells(envs):
        for i in range(n):
            envs.set_state({"pos": (r, c), "step": 0, "needs_reset": False}, i)
        _, rew, _, _, _ = envs.step(stay)
        out[:, r, c] = rew
    return out


def color_at(img: np.ndarray, cell, k: int = 1, channels_first: bool = False) -> tuple:
    r, c = cell
    if channels_first:
        block = img[:, r * k : (r + 1) * k, c * k : (c + 1) * k]
        assert (block == block[:, :1, :1]).all()
        return tuple(int(v) for v in block[:, 0, 0])
    block = img[r * k : (r + 1) * k, c * k : (c + 1) * k]
    assert (block == block[:1, :1]).all()
    return tuple(int(v) for v in block[0, 0])


# --------------------------------------------------------------------------- reward timing


def test_wall_bump_from_floor_pays_minus_one_and_stays():
    envs = NavVectorEnv(1, level="nav/room1_small")
    envs.reset(seed=0)
    obs, rew, term, trunc, _ = step1(envs, LEFT)  # (4, 0) is a wall
    np.testing.assert_array_equal(obs, np.array([4, 1], np.int32))
    assert rew == np.float32(-1.0) and rew.dtype == np.float32
    assert not term and not trunc
    obs, rew, _, _, _ = step1(envs, DOWN)  # (5, 1) is a wall
    np.testing.assert_array_equal(obs, np.array([4, 1], np.int32))
    assert rew == -1.0


def test_blocked_move_pays_the_current_cell_noisy():
    """With per-cell noisy values, a blocked move pays exactly the cell the agent stays on."""
    envs = NavVectorEnv(1, level="nav/room1_small", alphabet="noisy")
    envs.reset(seed=3)
    _, arrive, _, _, _ = step1(envs, UP)  # onto (3, 1)
    envs.set_state({"pos": (4, 2)})
    _, other, _, _, _ = step1(envs, DOWN)  # blocked at (4, 2)
    envs.set_state({"pos": (3, 1)})
    _, bump, _, _, _ = step1(envs, LEFT)  # blocked at (3, 1): (3, 0) is a wall
    assert bump == arrive
    assert other != arrive  # a different cell has its own value


def test_goal_pays_on_arrival_and_terminates():
    envs = NavVectorEnv(1, level="nav/room1_small")
    envs.reset(seed=0)
    envs.set_state({"pos": (1, 3)})
    obs, rew, term, trunc, _ = step1(envs, RIGHT)
    np.testing.assert_array_equal(obs, np.array([1, 4], np.int32))
    assert rew == np.float32(1.0)
    assert term and not trunc


def test_goal_next_to_the_agent_is_not_paid_before_arrival():
    envs = NavVectorEnv(1, level="nav/room1_small")
    envs.reset(seed=0)
    envs.set_state({"pos": (2, 4)})  # just below the goal
    _, rew, term, _, _ = step1(envs, RIGHT)  # bump the east wall: still on the floor
    assert rew == -1.0 and not term


def test_facade_bumping_on_the_goal_pays_the_goal_again_and_can_leave():
    env = NavEnv(level="nav/room1_small")
    env.reset(seed=0)
    env.set_state({"pos": (1, 3)})
    obs, rew, term, trunc, info = env.step(RIGHT)
    assert (rew, term, trunc, info) == (1.0, True, False, {})
    for _ in range(3):  # past the end: the dynamics continue
        obs, rew, term, trunc, _ = env.step(UP)  # (0, 4) is a wall
        np.testing.assert_array_equal(obs, np.array([1, 4], np.int32))
        assert rew == 1.0 and term and not trunc
        assert isinstance(rew, float) and isinstance(term, bool)
    obs, rew, term, _, _ = env.step(DOWN)  # leave the goal
    np.testing.assert_array_equal(obs, np.array([2, 4], np.int32))
    assert rew == -1.0 and not term
    env.close()


def test_next_step_autoreset_pays_zero_and_ignores_the_action():
    envs = NavVectorEnv(1, level="nav/room1_small")
    envs.reset(seed=0)
    envs.set_state({"pos": (1, 3)})
    step1(envs, RIGHT)
    obs, rew, term, trunc, _ = step1(envs, UP)
    np.testing.assert_array_equal(obs, np.array([4, 1], np.int32))
    assert rew == 0.0 and not term and not trunc
    assert envs.get_state()["step"] == 0


def test_truncation_at_max_episode_steps_with_termination_on_the_same_step():
    envs = NavVectorEnv(1, level="nav/room1_small", max_episode_steps=3)
    envs.reset(seed=0)
    envs.set_state({"pos": (1, 1)})
    for _ in range(2):
        _, _, term, trunc, _ = step1(envs, RIGHT)
        assert not term and not trunc
    _, rew, term, trunc, _ = step1(envs, RIGHT)  # third step arrives on the goal
    assert rew == 1.0 and term and trunc


# --------------------------------------------------------------------------- optimal returns


@pytest.mark.parametrize("stem", sorted(ORIGINAL_MAPS))
def test_shortest_path_return_is_optimal_on_every_original_map(stem):
    start, goal, path = ORIGINAL_MAPS[stem]
    envs = NavVectorEnv(1, level=f"nav/{stem}", alphabet="navigation")
    obs, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(obs[0], np.array(start, np.int32))
    actions = shortest_actions(envs.get_state()["tiles"], start, goal)
    assert len(actions) == path
    total = 0.0
    for t, a in enumerate(actions):
        obs, rew, term, trunc, _ = step1(envs, a)
        total += float(rew)
        assert term == (t == len(actions) - 1)
        assert not trunc
    np.testing.assert_array_equal(obs, np.array(goal, np.int32))
    assert total == -(path - 1) + 1


def test_pixelworld_v0_optimal_return_is_minus_four():
    env = gym.make("gridsim/PixelWorld-room1_small-v0")
    obs, _ = env.reset(seed=0)
    actions = shortest_actions(env.unwrapped.get_state()["tiles"], tuple(obs), (1, 4))
    total, term = 0.0, False
    for a in actions:
        obs, rew, term, trunc, _ = env.step(a)
        total += rew
    assert term and total == -4.0
    env.close()


def test_pixelworld_v0_vector_optimal_return_is_minus_four_on_every_row():
    envs = gym.make_vec("gridsim/PixelWorld-room1_small-v0", num_envs=5, vectorization_mode="vector_entry_point")
    envs.reset(seed=11)
    actions = shortest_actions(envs.unwrapped.get_state(0)["tiles"], (4, 1), (1, 4))
    total = np.zeros(5, np.float64)
    for a in actions:
        _, rew, term, _, _ = envs.step(np.full(5, a))
        total += rew
    np.testing.assert_array_equal(term, np.ones(5, np.bool_))
    np.testing.assert_array_equal(total, np.full(5, -4.0))
    envs.close()


# --------------------------------------------------------------------------- noisy table


def noisy(num_envs: int, level: str = "nav/room2_small", **kw) -> NavVectorEnv:
    return NavVectorEnv(num_envs, level=level, alphabet="noisy", actions="2d_continuous", **kw)


def test_noisy_table_values_are_fixed_per_cell_and_look_normal():
    envs = noisy(1, level="nav/room5_medium")
    envs.reset(seed=0)
    table = read_tables(envs)[0]
    floor = table[~np.isnan(table)]
    assert table[1, 8] == np.float32(10.0)  # the goal is constant
    floor = floor[floor != np.float32(10.0)]
    assert len(floor) == 63 and len(np.unique(floor)) == 63  # one draw per cell
    assert abs(floor.mean() + 1.0) < 0.03
    assert 0.02 < floor.std() < 0.09


def test_noisy_table_is_identical_across_episodes_and_autoresets():
    envs = noisy(2, max_episode_steps=5)
    envs.reset(seed=21)
    first = read_tables(envs)
    envs.reset()  # a new episode of the same seed
    np.testing.assert_array_equal(read_tables(envs), first)
    # Play real episodes through NEXT_STEP autoresets (truncation after 5 steps).
    envs.reset()
    rng = np.random.default_rng(0)
    episodes = set()
    for _ in range(40):
        envs.step(rng.uniform(-1, 1, size=(2, 2)).astype(np.float32))
        episodes.add(envs.get_state(0)["episode"])
    assert len(episodes) >= 5
    np.testing.assert_array_equal(read_tables(envs), first)
    envs.reset(seed=21)  # reseeding with the same seed draws the same table
    np.testing.assert_array_equal(read_tables(envs), first)


def test_noisy_table_differs_for_another_seed():
    envs = noisy(1)
    envs.reset(seed=21)
    a = read_tables(envs)
    envs.reset(seed=22)
    b = read_tables(envs)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    floor = ~np.isnan(a) & (a != np.float32(10.0))
    assert (a[floor] != b[floor]).all()


def test_noisy_table_is_independent_of_num_envs():
    """Row i of a batch of 7 seeded s has the table of a batch of 1 seeded s + i."""
    s = 40
    batch = noisy(7)
    batch.reset(seed=s)
    tables = read_tables(batch)
    for i in range(7):
        single = noisy(1)
        single.reset(seed=s + i)
        np.testing.assert_array_equal(read_tables(single)[0], tables[i])
    assert not np.array_equal(tables[0], tables[1], equal_nan=True)


def test_noisy_walk_rewards_repeat_after_autoreset():
    """The same actions from the same start pay the same noisy rewards in every episode."""
    envs = NavVectorEnv(1, level="nav/room4_small", alphabet="noisy", max_episode_steps=6)
    envs.reset(seed=5)
    walk = [UP, RIGHT, RIGHT, DOWN, RIGHT, UP]
    episodes = []
    for _ in range(3):
        rewards = []
        for a in walk:
            _, rew, _, trunc, _ = step1(envs, a)
            rewards.append(rew)
        assert trunc
        episodes.append(rewards)
        step1(envs, UP)  # the NEXT_STEP autoreset step
    assert episodes[0] == episodes[1] == episodes[2]
    assert len(set(episodes[0])) > 1


# --------------------------------------------------------------------------- stochastic symbols


def test_stochastic_symbol_draws_fresh_rewards_on_every_visit():
    envs = NavVectorEnv(1, world_map=DICE_ROOM)
    envs.reset(seed=0)
    draws = []
    _, rew, _, _, _ = step1(envs, RIGHT)  # onto x
    draws.append(rew)
    for _ in range(200):
        _, rew, term, _, _ = step1(envs, UP)  # bump: stay on x, draw again
        assert not term
        draws.append(rew)
    draws = np.array(draws)
    assert draws.dtype == np.float32
    assert len(np.unique(draws)) == len(draws)
    assert abs(draws.mean()) < 0.3 and 0.75 < draws.std() < 1.25
    # Leave and come back: still fresh.
    step1(envs, LEFT)
    _, again, _, _, _ = step1(envs, RIGHT)
    assert again not in draws


def test_stochastic_draws_differ_across_episodes_of_one_seed():
    envs = NavVectorEnv(1, world_map=DICE_ROOM)
    envs.reset(seed=0)
    first = [step1(envs, RIGHT)[1]]
    envs.reset()
    second = [step1(envs, RIGHT)[1]]
    envs.reset(seed=0)
    replay = [step1(envs, RIGHT)[1]]
    assert first != second
    assert first == replay


def test_stochastic_floor_in_custom_alphabet_draws_per_step():
    alphabet = {
        "#": {"accessible": False, "color": (0, 0, 0)},
        " ": {"reward": ("uniform", -2.0, -1.0), "stochastic": True},
        "S": {"reward": ("uniform", -2.0, -1.0), "stochastic": True, "initial": True},
        "0": {"reward": ("abs_normal", 0.0, 1.0), "terminal": True, "color": (50, 50, 255)},
    }
    envs = NavVectorEnv(1, level="nav/room1_small", alphabet=alphabet)
    envs.reset(seed=0)
    rewards = np.array([step1(envs, LEFT)[1] for _ in range(100)])
    assert ((rewards >= -2.0) & (rewards < -1.0)).all()
    assert len(np.unique(rewards)) == 100


# --------------------------------------------------------------------------- collectibles


def test_collectible_pays_once_then_the_default_reward():
    envs = NavVectorEnv(1, world_map=COIN_ROOM)
    envs.reset(seed=0)
    assert step1(envs, RIGHT)[1] == -1.0  # (1, 2) floor
    assert step1(envs, RIGHT)[1] == 5.0  # (1, 3) the coin
    assert envs.get_state()["tiles"][1] == "#S   0#"
    assert step1(envs, LEFT)[1] == -1.0
    assert step1(envs, RIGHT)[1] == -1.0  # collected: now a default tile
    assert step1(envs, LEFT)[1] == -1.0


def test_collectible_wall_next_to_it_survives_repeated_bumps():
    envs = NavVectorEnv(1, world_map=COIN_ROOM)
    envs.reset(seed=0)
    before = envs.get_state()["tiles"]
    step1(envs, RIGHT)
    assert step1(envs, RIGHT)[1] == 5.0
    for a in (UP, DOWN) * 5:
        obs, rew, term, _, _ = step1(envs, a)
        np.testing.assert_array_equal(obs, np.array([1, 3], np.int32))
        assert rew == -1.0 and not term
    after = envs.get_state()["tiles"]
    changed = [(r, c) for r in range(3) for c in range(7) if before[r][c] != after[r][c]]
    assert changed == [(1, 3)]
    assert after[0] == after[2] == "#######"


def test_collectible_wall_survives_continuous_bumps():
    envs = NavVectorEnv(1, world_map=COIN_ROOM, actions="2d_continuous")
    envs.reset(seed=0)
    envs.set_state({"pos": (1, 2)})
    rew = envs.step(np.array([[0.0, 1.0]], np.float32))[1]
    assert rew[0] == 5.0
    for a in ([-1.0, 0.0], [1.0, 0.0], [-1.0, -1.0], [1.0, 1.0]):
        obs, rew, _, _, _ = envs.step(np.array([a], np.float32))
        np.testing.assert_array_equal(obs[0], np.array([1, 3], np.int32))
        assert rew[0] == -1.0
    assert envs.get_state()["tiles"] == ["#######", "#S   0#", "#######"]


def test_collectible_is_restored_by_every_reset_and_autoreset():
    envs = NavVectorEnv(1, world_map=COIN_ROOM)
    envs.reset(seed=0)
    for _ in range(3):
        rewards = [step1(envs, RIGHT)[1] for _ in range(4)]  # floor, coin, floor, goal
        assert rewards == [-1.0, 5.0, -1.0, 1.0]
        assert envs.get_state()["needs_reset"]
        step1(envs, RIGHT)  # NEXT_STEP autoreset
        assert envs.get_state()["tiles"][1] == "#S c 0#"
    step1(envs, RIGHT)
    step1(envs, RIGHT)
    envs.reset()
    assert envs.get_state()["tiles"][1] == "#S c 0#"


def test_collected_cell_pays_the_default_symbols_fixed_noisy_value():
    """A collected cell pays a per-seed draw of the default symbol, the same on every visit."""
    envs = NavVectorEnv(1, world_map=COIN_ROOM, alphabet="noisy", max_episode_steps=50)
    envs.reset(seed=9)
    step1(envs, RIGHT)
    assert step1(envs, RIGHT)[1] == 5.0
    step1(envs, LEFT)
    value = step1(envs, RIGHT)[1]
    assert value != -1.0 and abs(value + 1.0) < 0.5
    step1(envs, LEFT)
    assert step1(envs, RIGHT)[1] == value
    envs.reset()  # next episode: the coin is back and pays again, then the same value
    step1(envs, RIGHT)
    assert step1(envs, RIGHT)[1] == 5.0
    step1(envs, LEFT)
    assert step1(envs, RIGHT)[1] == value


def test_collectible_terminal_symbol_terminates_and_is_removed():
    world = """%gridsim 1
[legend]
g = reward=3 collectible terminal color=10,20,30
[map]
#####
#S g#
#####
"""
    env = NavEnv(world_map=world)
    env.reset(seed=0)
    env.step(RIGHT)
    _, rew, term, _, _ = env.step(RIGHT)
    assert rew == 3.0 and term
    assert env.get_state()["tiles"][1] == "#S  #"
    _, rew, term, _, _ = env.step(RIGHT)  # bump from the collected cell
    assert rew == -1.0 and not term
    env.close()


# --------------------------------------------------------------------------- image observations


def coin_image_env(**kw) -> NavVectorEnv:
    return NavVectorEnv(1, world_map=COIN_ROOM, obs_type="image", **kw)


@pytest.mark.parametrize("channels_first", [False, True])
@pytest.mark.parametrize("k", [1, 3])
def test_image_obs_layout_dtype_and_colours(channels_first, k):
    envs = coin_image_env(channels_first=channels_first, pixels_per_cell=k)
    shape = (3, 3 * k, 7 * k) if channels_first else (3 * k, 7 * k, 3)
    assert envs.single_observation_space == gym.spaces.Box(0, 255, shape, np.uint8)
    obs, _ = envs.reset(seed=0)
    assert obs.dtype == np.uint8 and obs.shape == (1, *shape)
    img = obs[0]

    def at(cell):
        return color_at(img, cell, k, channels_first)

    assert at((1, 1)) == AGENT
    assert at((1, 2)) == FLOOR and at((0, 0)) == WALL
    assert at((1, 3)) == GOLD and at((1, 5)) == GOAL
    for a in (RIGHT, RIGHT, RIGHT):  # collect the coin and move on
        obs = envs.step(np.array([a]))[0]
    img = obs[0]
    assert at((1, 4)) == AGENT
    assert at((1, 3)) == FLOOR  # collected: the default symbol's colour
    assert at((1, 1)) == FLOOR  # the start cell the agent left


def test_image_obs_channels_first_is_the_transpose_of_channels_last():
    last = coin_image_env(channels_first=False, pixels_per_cell=2)
    first = coin_image_env(channels_first=True, pixels_per_cell=2)
    a, _ = last.reset(seed=1)
    b, _ = first.reset(seed=1)
    for act in (RIGHT, RIGHT, UP, LEFT, RIGHT, RIGHT):
        np.testing.assert_array_equal(b, a.transpose(0, 3, 1, 2))
        a = last.step(np.array([act]))[0]
        b = first.step(np.array([act]))[0]
    np.testing.assert_array_equal(b, a.transpose(0, 3, 1, 2))


def test_image_obs_matches_render_frame_at_one_pixel_per_cell():
    envs = coin_image_env(render_mode="rgb_array")
    obs, _ = envs.reset(seed=0)
    frame = envs.render()[0]
    assert frame.dtype == np.uint8 and frame.shape == (3 * 16, 7 * 16, 3)
    # At each cell's centre: the agent is a disc on its cell's tile.
    np.testing.assert_array_equal(frame[8::16, 8::16], obs[0])


def test_image_obs_after_set_state_shows_the_injected_tiles_and_agent():
    envs = coin_image_env()
    envs.reset(seed=0)
    obs, _ = envs.set_state({"pos": (1, 4), "tiles": ["#######", "#S   0#", "#######"]})
    assert obs.dtype == np.uint8 and obs.shape == (3, 7, 3)
    assert color_at(obs, (1, 4)) == AGENT
    assert color_at(obs, (1, 3)) == FLOOR
    assert color_at(obs, (1, 1)) == FLOOR


# --------------------------------------------------------------------------- view observations


def test_view_obs_is_centred_tile_ids_with_zero_outside_the_map():
    envs = NavVectorEnv(1, level="nav/room1_small", obs_type="view")
    assert envs.single_observation_space.shape == (7, 7)
    assert envs.single_observation_space.dtype == np.uint8
    obs, _ = envs.reset(seed=0)
    view = obs[0]
    assert view.dtype == np.uint8
    ids = envs.level.alphabet.ids
    tiles = envs.get_state()["tiles"]
    r0, c0 = 4, 1
    for dr in range(-3, 4):
        for dc in range(-3, 4):
            r, c = r0 + dr, c0 + dc
            expected = ids[tiles[r][c]] if 0 <= r < 6 and 0 <= c < 6 else 0
            assert view[dr + 3, dc + 3] == expected, (dr, dc)
    assert view[3, 3] == ids["S"]
    assert (view[:, 0] == 0).all()  # column -2 is outside the map
    assert (view[6, :] == 0).all()  # row 7 is outside the map
    obs = envs.step(np.array([UP]))[0]
    assert obs[0, 3, 3] == ids[" "] and obs[0, 4, 3] == ids["S"]


def test_view_obs_shows_collected_cells_as_the_default_symbol():
    envs = NavVectorEnv(1, world_map=COIN_ROOM, obs_type="view", view_size=3)
    ids = envs.level.alphabet.ids
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (1, 3, 3)
    assert obs[0, 1, 2] == ids[" "]
    obs = envs.step(np.array([RIGHT]))[0]
    assert obs[0, 1, 2] == ids["c"]
    envs.step(np.array([RIGHT]))
    obs = envs.step(np.array([RIGHT]))[0]
    assert obs[0, 1, 0] == ids[" "]  # the collected coin, left of the agent
    assert obs[0, 1, 2] == ids["0"]


# --------------------------------------------------------------------------- randomize_goals


def test_randomize_goals_keeps_exactly_one_goal_and_varies_across_episodes():
    envs = NavVectorEnv(1, world_map=THREE_GOALS, randomize_goals=True)
    envs.reset(seed=0)
    goals = [(1, 1), (1, 5), (3, 1)]
    chosen = []
    for _ in range(30):
        tiles = envs.get_state()["tiles"]
        kept = [g for g in goals if tiles[g[0]][g[1]] == "0"]
        assert len(kept) == 1
        assert sum(row.count("0") for row in tiles) == 1
        chosen.append(kept[0])
        envs.reset()
    assert set(chosen) == set(goals)


def test_randomize_goals_removed_goals_are_default_tiles():
    envs = NavVectorEnv(1, world_map=THREE_GOALS, randomize_goals=True, obs_type="image")
    obs, _ = envs.reset(seed=0)
    tiles = envs.get_state()["tiles"]
    for g in [(1, 1), (1, 5), (3, 1)]:
        kept = tiles[g[0]][g[1]] == "0"
        assert color_at(obs[0], g) == (GOAL if kept else FLOOR)
        if not kept:
            envs.set_state({"pos": (g[0], g[1] + (1 if g[1] == 1 else -1)), "step": 0})
            _, rew, term, _, _ = envs.step(np.array([LEFT if g[1] == 1 else RIGHT]))
            assert rew[0] == -1.0 and not term[0]
        else:
            envs.set_state({"pos": (g[0], g[1] + (1 if g[1] == 1 else -1)), "step": 0})
            _, rew, term, _, _ = envs.step(np.array([LEFT if g[1] == 1 else RIGHT]))
            assert rew[0] == 1.0 and term[0]
            envs.set_state({"needs_reset": False})


def test_randomize_goals_false_keeps_every_goal():
    envs = NavVectorEnv(1, world_map=THREE_GOALS)
    envs.reset(seed=0)
    for _ in range(5):
        assert sum(row.count("0") for row in envs.get_state()["tiles"]) == 3
        envs.reset()


def test_randomize_goals_differs_between_rows_of_a_batch():
    envs = NavVectorEnv(32, world_map=THREE_GOALS, randomize_goals=True)
    envs.reset(seed=0)
    layouts = {tuple(envs.get_state(i)["tiles"]) for i in range(32)}
    assert len(layouts) == 3


# --------------------------------------------------------------------------- the start option


def test_reset_start_option_places_the_agent():
    envs = NavVectorEnv(1, level="nav/room1_small")
    obs, _ = envs.reset(seed=0, options={"start": (2, 3)})
    np.testing.assert_array_equal(obs, np.array([[2, 3]], np.int32))
    assert envs.get_state()["pos"] == (2, 3)
    assert envs.get_state()["step"] == 0
    obs, _ = envs.reset()  # the option applies to that reset only
    np.testing.assert_array_equal(obs, np.array([[4, 1]], np.int32))


def test_reset_start_option_restores_the_map():
    envs = NavVectorEnv(1, world_map=COIN_ROOM)
    envs.reset(seed=0)
    step1(envs, RIGHT)
    step1(envs, RIGHT)
    assert envs.get_state()["tiles"][1] == "#S   0#"
    envs.reset(options={"start": np.array([1, 4])})
    assert envs.get_state()["tiles"][1] == "#S c 0#"
    assert envs.get_state()["pos"] == (1, 4)
    assert step1(envs, LEFT)[1] == 5.0


@pytest.mark.parametrize("start", [(0, 0), (5, 5), (-1, 2), (6, 1), (2, 9)])
def test_reset_start_option_rejects_walls_and_outside_cells(start):
    envs = NavVectorEnv(1, level="nav/room1_small")
    envs.reset(seed=0)
    before = envs.get_state()
    with pytest.raises(ValueError):
        envs.reset(options={"start": start})
    assert envs.get_state() == before


def test_reset_start_option_per_row_with_mask_and_randomized_goals():
    envs = NavVectorEnv(3, world_map=THREE_GOALS, randomize_goals=True)
    envs.reset(seed=0)
    start = np.array([[0, 0], [2, 2], [3, 5]])  # row 0 is not reset: its wall is ignored
    mask = np.array([False, True, True])
    options = {"start": start, "reset_mask": mask}
    before0 = envs.get_state(0)
    obs, _ = envs.reset(options=options)
    np.testing.assert_array_equal(obs[1:], np.array([[2, 2], [3, 5]], np.int32))
    assert envs.get_state(0) == before0
    np.testing.assert_array_equal(options["start"], [[0, 0], [2, 2], [3, 5]])
    for i in (1, 2):
        assert sum(row.count("0") for row in envs.get_state(i)["tiles"]) == 1


def test_reset_start_option_on_the_facade():
    env = NavEnv(level="nav/room5_medium_walls")
    obs, info = env.reset(seed=0, options={"start": (8, 8)})
    np.testing.assert_array_equal(obs, np.array([8, 8], np.int32))
    assert info == {}
    with pytest.raises(ValueError):
        env.reset(options={"start": (3, 4)})  # the wall in column 4
    env.close()


# --------------------------------------------------------------------------- actions


def wall_model_step(rows, pos, move):
    r = min(max(pos[0] + move[0], 0), len(rows) - 1)
    c = min(max(pos[1] + move[1], 0), len(rows[0]) - 1)
    return (r, c) if rows[r][c] != "#" else pos


@pytest.mark.parametrize("actions,moves", [
    ("1d_discrete", [(-1, 0), (0, 1), (1, 0), (0, -1)]),
    ("2d_discrete", [(-1, 0), (0, 1), (1, 0), (0, -1)]),
    ("1d_horizontal", [(0, 1), (0, -1)]),
    ("1d_vertical", [(1, 0), (-1, 0)]),
])
def test_discrete_actions_from_every_cell_match_a_small_model(actions, moves):
    envs = NavVectorEnv(1, level="nav/room5_medium_walls", actions=actions)
    envs.reset(seed=0)
    rows = envs.get_state()["tiles"]
    for cell in accessible_cells(envs):
        for a, move in enumerate(moves):
            envs.set_state({"pos": cell, "step": 0, "needs_reset": False})
            obs = envs.step(np.array([a]))[0]
            np.testing.assert_array_equal(
                obs[0], np.array(wall_model_step(rows, cell, move), np.int32), err_msg=str(cell)
            )


@pytest.mark.parametrize("action,start,end", [
    ((0.0, 2.0), (3, 3), (3, 3)),  # clipped to (0, 1): the wall at (3, 4) blocks
    ((0.5, 0.49), (3, 3), (4, 3)),
    ((1.0, 1.0), (7, 3), (8, 4)),  # corner-cutting past the wall at (7, 4)
    ((float("nan"), 1.0), (1, 1), (1, 2)),
    ((float("nan"), float("nan")), (1, 1), (1, 1)),
    ((-0.5, -0.51), (2, 2), (2, 1)),
])
def test_continuous_actions_spec_examples(action, start, end):
    envs = NavVectorEnv(1, level="nav/room5_medium_walls", actions="2d_continuous",
                        nan_action="zero")
    envs.reset(seed=0)
    envs.set_state({"pos": start})
    obs = envs.step(np.array([action], np.float64))[0]
    np.testing.assert_array_equal(obs[0], np.array(end, np.int32))
