"""The kitchen kernel against the pure-Python reference, step by step, plus its own guarantees."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from event_helpers import expected_with_capacity, kernel_events

import gridsim
from gridsim import InvalidActionError, KitchenEnv, KitchenVectorEnv
from gridsim.engine.events import decode_events
from gridsim.kitchen import builtin_kitchen_names, load_kitchen_level
from gridsim.kitchen.api import KITCHEN_EVENTS
from gridsim.reference.kitchen import kitchen_obs, kitchen_reset, kitchen_step

LEVELS = builtin_kitchen_names()
MOVES = {"U": 1, "D": 2, "L": 3, "R": 4, "N": 0}


def normalized(state: dict) -> dict:
    """A reference or kernel state in one comparable form."""
    return {
        "t": state["t"],
        "agents": [{"pos": tuple(a["pos"]), "held": a["held"]} for a in state["agents"]],
        "items": dict(state.get("items", {})),
        "delivered": {k: list(v) for k, v in state.get("delivered", {}).items() if v},
    }


def agents_of(level, max_agents=4):
    return range(1, min(max_agents, len(load_kitchen_level(level).starts)) + 1)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("num_agents", [1, 2, 3, 4])
def test_single_kitchen_matches_reference_every_step(level, num_agents):
    lvl = load_kitchen_level(level)
    if num_agents > len(lvl.starts):
        pytest.skip("the level lists fewer starts")
    env = KitchenEnv(level=level, num_agents=num_agents, events=True)
    obs, _ = env.reset(seed=0)
    ref = kitchen_reset(lvl, num_agents)
    np.testing.assert_array_equal(obs, kitchen_obs(lvl, ref))
    rng = np.random.default_rng(num_agents)
    for t in range(150):  # past the 100-step limit: the single env keeps going
        actions = rng.integers(0, 5, num_agents)
        obs, reward, term, trunc, info = env.step(actions)
        r_reward, r_term, r_trunc, r_events = kitchen_step(lvl, ref, actions.tolist(), max_steps=10**9)
        where = f"{level} A={num_agents} step {t + 1} actions {actions.tolist()}"
        assert normalized(env.unwrapped.get_state()) == normalized(ref), where
        np.testing.assert_array_equal(obs, kitchen_obs(lvl, ref), err_msg=where)
        assert (reward, term) == (r_reward, r_term), where
        assert trunc is False  # the view does not truncate by itself
        # Every event, payload and position in the list as the reference records it.
        assert kernel_events(env.unwrapped_vector.state, KITCHEN_EVENTS, 0) == r_events, where


def test_scripted_salad_delivers_on_step_43_with_every_checkpoint():
    envs = KitchenVectorEnv(1, level="kitchen/open-divider_salad", num_agents=1, max_episode_steps=43,
                            events=True)
    envs.reset(seed=0)
    names = envs.level.tables.item_names
    script = "RRRU LLLLL DDDDRRRRR UR UUUR LLLLL RRRRDDDR LLLLUL".replace(" ", "")
    seen = {}
    for t, ch in enumerate(script, start=1):
        _, reward, term, trunc, infos = envs.step(np.array([[MOVES[ch]]]))
        for name, (payload,) in decode_events(envs.state, KITCHEN_EVENTS, 0):
            if name in ("item_chopped", "items_merged", "dish_delivered"):
                seen[t] = (name, names[payload[1]])
        if t < 43:
            assert reward[0] == 0 and not term[0]
    assert seen == {9: ("item_chopped", "ChoppedTomato"), 18: ("items_merged", "Plate-ChoppedTomato"),
                    29: ("item_chopped", "ChoppedLettuce"),
                    37: ("items_merged", "ChoppedLettuce-Plate-ChoppedTomato"),
                    43: ("dish_delivered", "ChoppedLettuce-Plate-ChoppedTomato")}
    salad = names.index("ChoppedLettuce-Plate-ChoppedTomato")
    assert kernel_events(envs.state, KITCHEN_EVENTS, 0) == [("dish_delivered", (0, salad, 1)), ("goal_reached", ())]
    assert reward[0] == 1.0 and term[0] and trunc[0]  # success on the last step counts
    stats = infos["episode_stats"]
    assert stats["success"][0] and stats["dishes_delivered"][0] == 1 and stats["length"][0] == 43


@pytest.mark.parametrize(("num_agents", "max_events"), [(2, 16), (3, 16), (3, 1)])
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_batched_kitchens_match_reference_with_autoresets(mode, num_agents, max_events):
    """Rewards, flags, observations and events; one event slot drops and counts the rest."""
    level = "kitchen/partial-divider_tl"
    lvl = load_kitchen_level(level)
    N, A = 6, num_agents
    envs = KitchenVectorEnv(N, level=level, num_agents=A, max_episode_steps=30, autoreset_mode=mode,
                            events=True, max_events_per_step=max_events)
    envs.reset(seed=0)
    refs = [kitchen_reset(lvl, A) for _ in range(N)]
    pending = [False] * N
    dropped = np.zeros(N, np.int64)
    rng = np.random.default_rng(5)
    for t in range(120):
        actions = rng.integers(0, 5, (N, A))
        obs, rewards, term, trunc, infos = envs.step(actions)
        for i in range(N):
            if pending[i]:  # NEXT_STEP: this call reset the kitchen and ignored the actions
                refs[i], pending[i] = kitchen_reset(lvl, A), False
                assert rewards[i] == 0 and not term[i] and not trunc[i]
                assert kernel_events(envs.state, KITCHEN_EVENTS, i) == [], (t, i)
            else:
                r, te, tr, r_events = kitchen_step(lvl, refs[i], actions[i].tolist(), max_steps=30)
                assert (rewards[i], term[i], trunc[i]) == (r, te, tr), (t, i)
                # SAME_STEP: the finishing step's events stay on the step that autoresets.
                kept, lost = expected_with_capacity(r_events, max_events)
                assert kernel_events(envs.state, KITCHEN_EVENTS, i) == kept, (t, i)
                dropped[i] += lost
                if te or tr:
                    if mode == "SameStep":
                        np.testing.assert_array_equal(infos["final_obs"][i], kitchen_obs(lvl, refs[i]))
                        refs[i] = kitchen_reset(lvl, A)
                    else:
                        pending[i] = True
            np.testing.assert_array_equal(obs[i], kitchen_obs(lvl, refs[i]), err_msg=f"step {t} row {i}")
        np.testing.assert_array_equal(envs.state.event_dropped, dropped)
    if max_events == 1:
        assert dropped.sum() > 0  # the script overflows the one-slot buffer


def test_agent_rows_view_gives_each_agent_its_own_channel_and_the_team_reward():
    level = "kitchen/open-divider_salad"
    lvl = load_kitchen_level(level)
    envs = KitchenVectorEnv(3 * 2, level=level, num_agents=2, agent_rows=True)
    assert envs.single_action_space == gym.spaces.Discrete(5)
    assert envs.single_observation_space.shape == (7, 7, 23)
    obs, _ = envs.reset(seed=0)
    ref = kitchen_reset(lvl, 2)
    for a in range(2):
        np.testing.assert_array_equal(obs[a], kitchen_obs(lvl, ref, agent=a))
    actions = np.array([4, 3, 0, 0, 2, 2])  # rows: kitchen 0 agents 0, 1; kitchen 1; kitchen 2
    obs, rewards, term, trunc, _ = envs.step(actions)
    kitchen_step(lvl, ref, [4, 3])
    np.testing.assert_array_equal(obs[1], kitchen_obs(lvl, ref, agent=1))
    assert rewards.shape == (6,)
    with pytest.raises(ValueError, match="all 2 rows of a kitchen"):
        envs.reset(options={"reset_mask": np.array([True, False, False, False, False, False])})
    with pytest.raises(ValueError, match="multiple of num_agents"):
        KitchenVectorEnv(5, num_agents=2, agent_rows=True)


def test_bad_actions_raise_and_change_nothing():
    envs = KitchenVectorEnv(3, level="kitchen/open-divider_tl", num_agents=2)
    envs.reset(seed=0)
    before = envs.state_dict()
    for bad in (np.array([[0, 5], [0, 0], [0, 0]]), np.array([[0, -1]] * 3), np.zeros((3, 3), np.int64),
                np.zeros((3, 2), np.float32)):
        with pytest.raises(InvalidActionError):
            envs.step(bad)
    after = envs.state_dict()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=key)


def test_four_random_agents_never_share_a_cell_and_conserve_components():
    level = "kitchen/open-divider_salad"
    envs = KitchenVectorEnv(64, level=level, num_agents=4, max_episode_steps=200)
    envs.reset(seed=0)
    st = envs.state
    components = np.asarray(envs.level.tables.components).sum(1)
    total = components[st.tile_item[0]].sum()
    rng = np.random.default_rng(0)
    for _ in range(600):
        envs.step(rng.integers(0, 5, (64, 4)))
        cells = np.sort(st.agent_cell, axis=1)
        assert (cells[:, 1:] != cells[:, :-1]).all()
        held = components[st.held].sum(1) + components[st.tile_item].sum(1)
        delivered = np.array([components[st.delivered_item[k, : st.n_delivered[k]]].sum() for k in range(64)])
        np.testing.assert_array_equal(held + delivered, total)


def test_set_state_round_trips_and_rejects_impossible_states():
    env = KitchenEnv(level="kitchen/open-divider_salad", num_agents=2)
    env.reset(seed=0)
    vec = env.unwrapped.unwrapped_vector
    state = {"t": 5, "agents": [{"pos": (1, 3), "held": "ChoppedLettuce-Plate-ChoppedTomato"},
                                {"pos": (4, 4), "held": None}],
             "items": {(5, 0): "FreshTomato", (0, 1): "ChoppedLettuce"}, "delivered": {}}
    obs, _ = vec.set_state(state)
    assert normalized(vec.get_state()) == normalized(state)
    _, reward, term, _, _ = env.step(np.array([3, 0]))  # deliver the salad
    assert reward == 1.0 and term
    bad = copy.deepcopy(state)
    bad["agents"][1]["pos"] = (0, 0)
    with pytest.raises(ValueError, match="floor"):
        vec.set_state(bad)


def test_registered_kitchens_pass_check_env_and_count_eleven():
    from gymnasium.utils.env_checker import check_env

    ids = [i for i in gridsim.registered_ids() if i.startswith("gridsim/Kitchen-")]
    assert len(ids) == 11
    for env_id in ids:
        env = gym.make(env_id)
        check_env(env.unwrapped, skip_render_check=True)
        env.close()


def _solvable():
    from test_kitchen_reference import SOLVABLE

    return [(s, n) for s, counts in SOLVABLE.items() for n in counts]


@pytest.mark.parametrize(("stem", "num_agents"), _solvable())
def test_every_shipped_kitchen_is_solved_by_the_planner_in_the_kernel(stem, num_agents):
    """The planner's joint actions, replayed in a batch of kernels, solve every kitchen."""
    from kitchen_solver import solve

    actions = solve(f"kitchen/{stem}", num_agents)
    envs = KitchenVectorEnv(3, level=f"kitchen/{stem}", num_agents=num_agents, max_episode_steps=100,
                            autoreset_mode="Disabled")
    envs.reset(seed=0)
    for t, joint in enumerate(actions, start=1):
        _, rewards, term, trunc, infos = envs.step(np.tile(np.asarray(joint, np.int64), (3, 1)))
        assert term.all() == (t == len(actions)), (stem, t)
    assert (rewards == 1.0).all() and infos["episode_stats"]["success"].all()


def test_pettingzoo_parallel_api_test_passes():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test

    from gridsim.kitchen import parallel_env

    cases = [("kitchen/open-divider_salad", 2), ("kitchen/full-divider_tl", 4), ("kitchen/open-divider_tomato", 1)]
    for level, n in cases:
        env = parallel_env(level, num_agents=n)
        parallel_api_test(env, num_cycles=300)
        env.close()


def test_pettingzoo_episode_removes_agents_when_the_kitchen_is_solved():
    from gridsim.kitchen import parallel_env

    env = parallel_env("kitchen/open-divider_salad", num_agents=1)
    obs, infos = env.reset(seed=0)
    assert set(obs) == {"agent-1"} and obs["agent-1"].shape == (7, 7, 23)
    assert env.observation_space("agent-1") is env.observation_space("agent-1")
    assert env.state().shape == (7, 7, 22)
    script = "RRRU LLLLL DDDDRRRRR UR UUUR LLLLL RRRRDDDR LLLLUL".replace(" ", "")
    for ch in script:
        obs, rewards, terms, truncs, infos = env.step({"agent-1": MOVES[ch]})
    assert rewards == {"agent-1": 1.0} and terms == {"agent-1": True} and env.agents == []
    with pytest.raises(gridsim.KernelError, match="call reset"):
        env.step({"agent-1": 0})
    env.reset(seed=1)
    with pytest.raises(gridsim.InvalidActionError, match="not live"):
        env.step({"agent-2": 0})


def _expected_features(lvl, state, own=None):
    """The compact feature vector, built from a reference state dict."""
    comps = lvl.tables.component_names
    rules = lvl.rules

    def bits(item):
        counts = dict(zip(comps, rules.vector(item), strict=True)) if item else {}
        return [1.0 if counts.get(c, 0) else 0.0 for c in comps]

    out = []
    for y, x in np.argwhere(lvl.tiles != 0):
        delivered = state.get("delivered", {}).get((x, y), [])
        present = np.zeros(len(comps))
        for item in [state["items"].get((x, y))] + list(delivered):
            if item:
                present = np.maximum(present, bits(item))
        out += list(present)
    agents = list(range(len(state["agents"])))
    if own is not None:
        agents = [own] + [a for a in agents if a != own]
    for a in agents:
        ag = state["agents"][a]
        out += [ag["pos"][0], ag["pos"][1]] + bits(ag["held"])
    return np.array(out, np.float32)


@pytest.mark.parametrize("agent_rows", [False, True])
def test_feature_observation_matches_the_state(agent_rows):
    level = "kitchen/partial-divider_salad"
    lvl = load_kitchen_level(level)
    A = 2
    envs = KitchenVectorEnv(A if agent_rows else 1, level=level, num_agents=A, agent_rows=agent_rows,
                            obs_type="features", max_episode_steps=1000)
    obs, _ = envs.reset(seed=0)
    ref = kitchen_reset(lvl, A)
    rng = np.random.default_rng(2)
    for t in range(300):
        actions = rng.integers(0, 5, A)
        obs, *_ = envs.step(actions if agent_rows else actions[None])
        kitchen_step(lvl, ref, actions.tolist(), max_steps=1000)
        rows = range(A) if agent_rows else [None]
        for r, own in enumerate(rows):
            np.testing.assert_array_equal(obs[r], _expected_features(lvl, ref, own), err_msg=f"step {t} row {r}")
    assert obs.dtype == np.float32 and envs.observation_space.contains(obs)


def test_a_32_by_32_kitchen_matches_the_reference():
    rows = ["-" * 32] + ["-" + " " * 30 + "-" for _ in range(30)] + ["-" * 32]
    rows[0] = "-t" + "-" * 28 + "l-"  # tomato top left, lettuce top right
    rows[31] = "-" * 30 + "p-"  # a plate bottom right
    rows[15] = "/" + " " * 30 + "-"  # a cutting board on the left wall
    rows[20] = "-" + " " * 30 + "*"  # the delivery on the right wall
    text = "\n".join(rows) + "\n\nSalad\n\n1 1\n30 30\n2 2\n29 29\n"
    env = KitchenEnv(level="=" + text, num_agents=4)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (32, 32, 22)
    lvl = env.unwrapped.unwrapped_vector.level
    ref = kitchen_reset(lvl, 4)
    rng = np.random.default_rng(4)
    for _ in range(300):
        actions = rng.integers(0, 5, 4)
        obs, *_ = env.step(actions)
        kitchen_step(lvl, ref, actions.tolist(), max_steps=10**9)
        assert normalized(env.unwrapped.get_state()) == normalized(ref)
        np.testing.assert_array_equal(obs, kitchen_obs(lvl, ref))


def test_a_user_declared_food_and_recipe_run_in_the_kernel():
    from gridsim.kitchen import DEFAULT_RULES, Recipe

    rules = DEFAULT_RULES.with_food("Cucumber", char="c").with_recipe(Recipe("CucumberSalad", ("Cucumber", "Tomato")))
    text = "-c---t-\n/     -\n*     p\n-------\n\nCucumberSalad\n\n2 1\n4 1\n"
    envs = KitchenVectorEnv(2, level="=" + text, num_agents=1, rules=rules, max_episode_steps=200)
    envs.reset(seed=0)
    assert envs.single_observation_space.shape == (4, 7, 4 + 2 * 9 + 4)  # two more components
    from kitchen_solver import solve

    actions = solve(envs.level, 1, max_steps=200)
    for joint in actions:
        _, rewards, term, *_ = envs.step(np.tile(np.asarray(joint, np.int64), (2, 1)))
    assert term.all() and (rewards == 1).all()
    assert envs.get_state(0)["delivered"]
