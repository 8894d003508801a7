"""The kitchen reference stepper: cases K1-K9, collisions, interactions, views, and solvability."""

from __future__ import annotations

import copy
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from kitchen_solver import SolveError, replay, solve

from gridsim.errors import InvalidActionError
from gridsim.kitchen import builtin_kitchen_names, load_kitchen_level, parse_kitchen_text
from gridsim.reference.kitchen import (
    ReferenceKitchenEnv,
    check_actions,
    kitchen_obs,
    kitchen_reset,
    kitchen_solved,
    kitchen_step,
    render_ansi,
)

LETTERS = {"N": 0, "U": 1, "D": 2, "L": 3, "R": 4}
K1 = "RRRU LLLLL DDDDRRRRR UR UUUR LLLLL RRRRDDDR LLLLUL"
K2 = "RRRU LLLLLL RRRRR LLLL D L U L D D L"
SALAD = "ChoppedLettuce-Plate-ChoppedTomato"

# Agent counts with which each shipped kitchen is solved within 100 steps; the divided
# kitchens (full-divider_*, corridor_salad) need 2 agents.
SOLVABLE = {
    "big-onion-salad": (1, 2, 3, 4),
    "corridor_salad": (2, 3, 4),
    "full-divider_salad": (2, 3, 4),
    "full-divider_tl": (2, 3, 4),
    "full-divider_tomato": (2, 3, 4),
    "open-divider_salad": (1, 2, 3, 4),
    "open-divider_tl": (1, 2, 3, 4),
    "open-divider_tomato": (1, 2, 3, 4),
    "partial-divider_salad": (1, 2, 3, 4),
    "partial-divider_tl": (1, 2, 3, 4),
    "partial-divider_tomato": (1, 2, 3, 4),
}


def actions_of(text: str) -> list[list[int]]:
    return [[LETTERS[c]] for c in text.replace(" ", "")]


def joint(*letters: str) -> list[int]:
    return [LETTERS[c] for c in letters]


def run_joint(level, starts_agents: int, steps, state=None):
    state = state or kitchen_reset(level, starts_agents)
    out = []
    for acts in steps:
        out.append(kitchen_step(level, state, joint(*acts)))
    return state, out


@pytest.fixture(scope="module")
def open_salad():
    return load_kitchen_level("kitchen/open-divider_salad")


# --------------------------------------------------------------------------- K1, K2


def test_k1_single_agent_salad_in_43_steps(open_salad):
    state = kitchen_reset(open_salad, 1)
    assert state == {"t": 0, "agents": [{"pos": (2, 1), "held": None}], "delivered": {(0, 3): []},
                     "items": {(5, 0): "FreshTomato", (6, 1): "FreshLettuce", (6, 5): "Plate", (5, 6): "Plate"}}
    checkpoints = {
        4: ((5, 1), "FreshTomato", ("item_picked", (0, 1, 5, 0))),
        9: ((1, 1), "ChoppedTomato", ("item_chopped", (0, 2))),
        18: ((5, 5), "Plate-ChoppedTomato", ("items_merged", (0, 7))),
        20: ((5, 4), None, ("item_put", (0, 7, 6, 4))),
        24: ((5, 1), "FreshLettuce", ("item_picked", (0, 3, 6, 1))),
        29: ((1, 1), "ChoppedLettuce", ("item_chopped", (0, 4))),
        37: ((5, 4), SALAD, ("items_merged", (0, 9))),
        43: ((1, 3), None, ("dish_delivered", (0, 9, 1))),
    }
    for t, action in enumerate(actions_of(K1), start=1):
        reward, terminated, truncated, events = kitchen_step(open_salad, state, action)
        assert state["t"] == t and not truncated
        assert (reward, terminated) == ((1.0, True) if t == 43 else (0.0, False))
        if t in checkpoints:
            pos, held, event = checkpoints[t]
            assert state["agents"][0] == {"pos": pos, "held": held}
            assert events[0] == event
        else:
            assert events == []
        if t == 18:
            assert (6, 5) not in state["items"]
        if t == 20:
            assert state["items"][(6, 4)] == "Plate-ChoppedTomato"
        if t == 37:
            assert (6, 4) not in state["items"]
    assert events == [("dish_delivered", (0, 9, 1)), ("goal_reached", ())]
    assert state["delivered"] == {(0, 3): [SALAD]} and state["items"] == {(5, 6): "Plate"}
    assert kitchen_solved(open_salad, state)


def test_k1_success_on_the_last_allowed_step(open_salad):
    state = kitchen_reset(open_salad, 1)
    results = [kitchen_step(open_salad, state, a, max_steps=43) for a in actions_of(K1)]
    assert all(r[:3] == (0.0, False, False) for r in results[:-1])
    assert results[-1][:3] == (1.0, True, True)


def test_past_the_end_reward_repeats(open_salad):
    state = kitchen_reset(open_salad, 1)
    for a in actions_of(K1):
        kitchen_step(open_salad, state, a)
    rng = np.random.default_rng(0)
    for _ in range(70):
        reward, terminated, truncated, events = kitchen_step(open_salad, state, [int(rng.integers(5))])
        assert (reward, terminated) == (1.0, True) and events[-1] == ("goal_reached", ())
        assert truncated == (state["t"] >= 100)
    assert state["t"] == 113


def test_k2_unplated_delivery_is_a_dead_end(open_salad):
    state = kitchen_reset(open_salad, 1)
    for t, a in enumerate(actions_of(K2), start=1):
        reward, terminated, truncated, events = kitchen_step(open_salad, state, a)
        assert (reward, terminated, truncated) == (0.0, False, False)
        if t == 10:
            assert state["items"][(0, 1)] == "ChoppedTomato" and state["agents"][0]["held"] is None
            assert events == [("item_put", (0, 2, 0, 1))]
        if t == 21:
            assert state["agents"][0] == {"pos": (1, 2), "held": "ChoppedLettuce"}
            assert events == [("item_chopped", (0, 4))]
        if t == 23:
            assert state["agents"][0]["held"] == "ChoppedLettuce-ChoppedTomato" and (0, 1) not in state["items"]
            assert events == [("items_merged", (0, 6))]
    assert t == 26 and events == [("dish_delivered", (0, 6, 0))]
    assert state["delivered"] == {(0, 3): ["ChoppedLettuce-ChoppedTomato"]}
    with pytest.raises(SolveError):  # the only tomato and lettuce are gone
        solve(open_salad, state=state)
    for t in range(27, 101):
        reward, terminated, truncated, _ = kitchen_step(open_salad, state, [t % 5])
        assert (reward, terminated) == (0.0, False) and truncated == (t == 100)


# --------------------------------------------------------------------------- K3-K6


def positions(state):
    return [a["pos"] for a in state["agents"]]


def test_k3_two_agents(open_salad):
    state = kitchen_reset(open_salad, 2)
    expected = [("RL", [(2, 1), (4, 1)], [("collision", (0, -1)), ("collision", (1, -1))]),
                ("RN", [(3, 1), (4, 1)], []),
                ("RL", [(3, 1), (4, 1)], [("collision", (0, 1)), ("collision", (1, 0))]),
                ("RR", [(4, 1), (5, 1)], [])]
    for acts, pos, events in expected:
        assert kitchen_step(open_salad, state, joint(*acts))[3] == events
        assert positions(state) == pos


def test_k4_three_agent_chain(open_salad):
    state = kitchen_reset(open_salad, 3)
    state, results = run_joint(open_salad, 3, ["DDR", "DDU", "RNN"], state)
    assert positions(state) == [(3, 3), (4, 3), (5, 3)]
    _, _, _, events = kitchen_step(open_salad, state, joint(*"RRR"))
    assert positions(state) == [(3, 3), (4, 3), (5, 3)]  # the original puts agent-1 onto agent-2
    assert events == [("collision", (0, 1)), ("collision", (1, 2))]


def test_k5_interactor_beats_mover(open_salad):
    state, _ = run_joint(open_salad, 2, ["RR", "RN"])
    assert positions(state) == [(4, 1), (5, 1)]
    _, _, _, events = kitchen_step(open_salad, state, joint(*"RU"))
    assert positions(state) == [(4, 1), (5, 1)]
    assert state["agents"][1]["held"] == "FreshTomato" and (5, 0) not in state["items"]
    assert events == [("collision", (0, 1)), ("item_picked", (1, 1, 5, 0))]


def test_k6_same_counter_in_agent_order():
    level = load_kitchen_level("kitchen/full-divider_salad")
    state, _ = run_joint(level, 2, ["NR", "NU", "NL"])
    assert state["agents"][1] == {"pos": (4, 1), "held": "FreshTomato"}
    _, _, _, events = kitchen_step(level, state, joint(*"RL"))  # agent-1 faces the empty counter first
    assert state["items"][(3, 1)] == "FreshTomato" and events == [("item_put", (1, 1, 3, 1))]
    kitchen_step(level, state, joint(*"RN"))
    assert state["agents"][0]["held"] == "FreshTomato" and (3, 1) not in state["items"]
    _, _, _, events = kitchen_step(level, state, joint(*"RL"))
    assert events == [("item_put", (0, 1, 3, 1)), ("item_picked", (1, 1, 3, 1))]
    assert state["agents"][1]["held"] == "FreshTomato" and state["agents"][0]["held"] is None
    assert (3, 1) not in state["items"]


# --------------------------------------------------------------------------- collisions


def test_four_agents_rotate_around_a_block():
    level = parse_kitchen_text("----\n-  -\n-  -\n--p-\n\nSimpleTomato\n\n1 1\n2 1\n2 2\n1 2".replace("--p-", "-tp-"))
    state = kitchen_reset(level, 4)
    _, _, _, events = kitchen_step(level, state, joint(*"RDLU"))
    assert positions(state) == [(2, 1), (2, 2), (1, 2), (1, 1)] and events == []


def test_three_movers_into_one_cell_are_all_blocked():
    level = parse_kitchen_text("-----\n-   -\n-   -\n-tp*-\n\nSimpleTomato\n\n1 1\n3 1\n2 2")
    state = kitchen_reset(level, 3)
    _, _, _, events = kitchen_step(level, state, joint(*"RLU"))
    assert positions(state) == [(1, 1), (3, 1), (2, 2)]
    assert events == [("collision", (0, -1)), ("collision", (1, -1)), ("collision", (2, -1))]


def test_blocking_propagates_along_a_chain_behind_a_noop():
    level = parse_kitchen_text("------\n-    -\n-tp*--\n\nSimpleTomato\n\n1 1\n2 1\n3 1\n4 1")
    state = kitchen_reset(level, 4)
    kitchen_step(level, state, joint(*"RRRN"))
    assert positions(state) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    kitchen_step(level, state, joint(*"RRRR"))  # agent-4 faces the wall counter: everyone stays
    assert positions(state) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    kitchen_step(level, state, joint(*"NLLL"))  # nobody may follow into the cell of a noop
    assert positions(state) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    kitchen_step(level, state, joint(*"DRRR"))
    assert positions(state) == [(1, 1), (2, 1), (3, 1), (4, 1)]


def test_follow_the_leader_moves_everyone():
    level = parse_kitchen_text("-------\n-     -\n-tp*---\n\nSimpleTomato\n\n1 1\n2 1\n3 1")
    state = kitchen_reset(level, 3)
    kitchen_step(level, state, joint(*"RRR"))
    assert positions(state) == [(2, 1), (3, 1), (4, 1)]


def test_clamped_move_is_a_noop():
    level = parse_kitchen_text("  t\n  p\n  *\n\nSimpleTomato\n\n0 0\n1 0")
    state = kitchen_reset(level, 2)
    _, _, _, events = kitchen_step(level, state, joint(*"UL"))  # agent-1 clamps onto itself; agent-2 is blocked
    assert positions(state) == [(0, 0), (1, 0)] and events == [("collision", (1, 0))]


# --------------------------------------------------------------------------- interactions


INTERACT = "-----\n-   /\n*   -\n-----\n\nSalad\n\n2 1\n2 2"


def interact(level, held, lying, tile_cell, agent_pos):
    """One interaction of agent-1 from ``agent_pos`` towards ``tile_cell``; returns (state, events)."""
    state = {"t": 0, "agents": [{"pos": agent_pos, "held": held}],
             "items": {tile_cell: lying} if lying else {}, "delivered": {(0, 2): []}}
    dx, dy = tile_cell[0] - agent_pos[0], tile_cell[1] - agent_pos[1]
    action = {(0, -1): 1, (0, 1): 2, (-1, 0): 3, (1, 0): 4}[(dx, dy)]
    _, _, _, events = kitchen_step(level, state, [action])
    return state, events


@pytest.fixture(scope="module")
def small():
    # A kitchen that is only used for injected states (its recipe needs nothing lying on the map).
    return parse_kitchen_text("-tlp-\n-   /\n*   -\n-----\n\nSalad\n\n2 1")


@pytest.mark.parametrize(("held", "lying", "cell", "held_after", "lying_after", "event"), [
    # holding, facing a cutboard (4, 1)
    ("FreshTomato", None, (4, 1), "ChoppedTomato", None, "item_chopped"),  # chop in the hand
    ("ChoppedTomato", None, (4, 1), None, "ChoppedTomato", "item_put"),
    ("Plate", None, (4, 1), None, "Plate", "item_put"),
    ("FreshTomato", "Plate", (4, 1), "FreshTomato", "Plate", None),  # occupied board: no chop, no merge
    ("ChoppedTomato", "Plate", (4, 1), "Plate-ChoppedTomato", None, "items_merged"),  # the merge ends in the hand
    # holding, facing a counter (4, 2)
    ("FreshTomato", None, (4, 2), None, "FreshTomato", "item_put"),  # counters do not chop
    ("Plate", "Plate", (4, 2), "Plate", "Plate", None),
    ("ChoppedLettuce", "ChoppedTomato", (4, 2), "ChoppedLettuce-ChoppedTomato", None, "items_merged"),
    ("Plate-ChoppedTomato", "ChoppedLettuce", (4, 2), SALAD, None, "items_merged"),
    # empty hand
    (None, "FreshTomato", (4, 1), "FreshTomato", None, "item_picked"),  # a fresh item on a board is picked up
    (None, "Plate", (4, 2), "Plate", None, "item_picked"),
    (None, None, (4, 2), None, None, None),
    (None, None, (4, 1), None, None, None),
])
def test_interaction_table(small, held, lying, cell, held_after, lying_after, event):
    state, events = interact(small, held, lying, cell, (3, cell[1]))
    assert state["agents"][0]["held"] == held_after and state["items"].get(cell) == lying_after
    assert [e[0] for e in events] == ([event] if event else [])


@pytest.mark.parametrize(("held", "accepted"), [
    (SALAD, True), ("ChoppedLettuce-ChoppedTomato", True), ("Plate-ChoppedTomato", True),
    ("Plate", False), ("ChoppedTomato", False), ("FreshTomato", False), (None, False),
])
def test_delivery(small, held, accepted):
    state, events = interact(small, held, None, (0, 2), (1, 2))
    assert state["delivered"][(0, 2)] == ([held] if accepted else [])
    assert state["agents"][0]["held"] == (None if accepted else held)
    assert bool(events) == accepted
    if accepted:
        assert events[0][0] == "dish_delivered" and events[0][1][2] == (1 if held == SALAD else 0)
        assert (events[-1] == ("goal_reached", ())) == (held == SALAD)


def test_delivered_items_cannot_be_taken_back(small):
    state = {"t": 0, "agents": [{"pos": (1, 2), "held": None}], "items": {}, "delivered": {(0, 2): [SALAD]}}
    reward, terminated, _, events = kitchen_step(small, state, [3])
    assert state["agents"][0]["held"] is None and state["delivered"][(0, 2)] == [SALAD]
    assert (reward, terminated, events) == (1.0, True, [("goal_reached", ())])


def test_any_delivery_tile_counts():
    level = load_kitchen_level("big-onion-salad")
    state = kitchen_reset(level, 2)
    state["delivered"][(0, 4)].append("ChoppedLettuce-ChoppedOnion-Plate-ChoppedTomato")
    assert not kitchen_solved(level, state)
    state["delivered"][(11, 4)].append(SALAD)
    assert kitchen_solved(level, state)


# --------------------------------------------------------------------------- K9


@pytest.mark.parametrize("order", [(("Tomato",), ("Lettuce",)), (("Lettuce",), ("Tomato",))])
def test_k9_tl_dishes_in_either_order(order):
    level = load_kitchen_level("kitchen/open-divider_tl")
    actions = solve(level, 1, dishes=list(order))
    state, results = replay(level, actions, 1)
    delivered = [k for k, r in enumerate(results) if any(e[0] == "dish_delivered" for e in r[3])]
    assert len(delivered) == 2 and delivered[1] == len(results) - 1
    assert all(r[:2] == (0.0, False) for r in results[:-1])
    assert results[-1][:2] == (1.0, True)
    first = [e for e in results[delivered[0]][3] if e[0] == "dish_delivered"][0]
    assert first[1][2] == (0b01 if order[0] == ("Tomato",) else 0b10)


def test_k9_salad_in_a_tl_level_leads_to_truncation():
    level = load_kitchen_level("kitchen/open-divider_tl")
    actions = solve(level, 1, dishes=[("Tomato", "Lettuce")])
    state, results = replay(level, actions, 1)
    assert state["delivered"] == {(0, 3): [SALAD]}
    assert all(r[:3] == (0.0, False, False) for r in results)
    with pytest.raises(SolveError):
        solve(level, state=state)
    while state["t"] < 100:
        reward, terminated, truncated, _ = kitchen_step(level, state, [0])
        assert (reward, terminated, truncated) == (0.0, False, state["t"] == 100)


# --------------------------------------------------------------------------- K7


def components_total(level, state) -> Counter:
    items = list(state["items"].values()) + [a["held"] for a in state["agents"] if a["held"]]
    items += [i for d in state["delivered"].values() for i in d]
    return level.rules.kind_counts(items)


def stress(level, seed: int, steps: int, num_agents: int = 4):
    rng = np.random.default_rng(seed)
    state = kitchen_reset(level, num_agents)
    total = components_total(level, state)
    actions = rng.integers(0, 5, size=(steps, num_agents))
    floor = level.tiles == 0
    for acts in actions:
        kitchen_step(level, state, acts, max_steps=10**9)
        cells = positions(state)
        assert len(set(cells)) == num_agents
        assert all(floor[y, x] for x, y in cells)
        assert components_total(level, state) == total
    return state


@pytest.mark.parametrize("seed", range(4))
def test_k7_random_agents_never_overlap(open_salad, seed):
    stress(open_salad, seed, 5000)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", ["open-divider_salad", "partial-divider_tl", "big-onion-salad"])
def test_k7_random_agents_never_overlap_long(name, seed):
    stress(load_kitchen_level(name), seed, 100_000)


# --------------------------------------------------------------------------- solvability


@pytest.mark.parametrize(("stem", "num_agents"), [(s, n) for s, counts in SOLVABLE.items() for n in counts])
def test_every_kitchen_is_solved(stem, num_agents):
    level = load_kitchen_level(f"kitchen/{stem}")
    actions = solve(level, num_agents)
    state, results = replay(level, actions, num_agents)
    assert len(actions) <= 100
    assert all(r[:3] == (0.0, False, False) for r in results[:-1])
    assert results[-1][:2] == (1.0, True) and kitchen_solved(level, state)
    assert not any(e[0] == "collision" for r in results for e in r[3])


def test_solvable_table_covers_every_shipped_kitchen():
    assert sorted(f"kitchen/{s}" for s in SOLVABLE) == builtin_kitchen_names()


@pytest.mark.parametrize("stem", [s for s, counts in SOLVABLE.items() if 1 not in counts])
def test_divided_kitchens_need_two_agents(stem):
    with pytest.raises(SolveError, match="cannot be made"):
        solve(f"kitchen/{stem}", 1)


# --------------------------------------------------------------------------- actions


@pytest.mark.parametrize("bad", [[5], [-1], [1.0], [True], np.array([1.0]), np.array([[1]]), np.array([True]),
                                 [1, 2], [], "1", 1, None])
def test_bad_actions_raise(open_salad, bad):
    state = kitchen_reset(open_salad, 1)
    with pytest.raises(InvalidActionError):
        kitchen_step(open_salad, state, bad)
    assert isinstance(InvalidActionError("x"), ValueError)


def test_actions_are_not_written(open_salad):
    state = kitchen_reset(open_salad, 2)
    acts = np.array([4, 3], dtype=np.int8)
    acts.setflags(write=False)
    kitchen_step(open_salad, state, acts)
    assert check_actions(np.array([0, 4], np.uint8), 2) == [0, 4]
    assert check_actions((np.int64(1), 2), 2) == [1, 2]


# --------------------------------------------------------------------------- observations and text


def test_obs_channels_at_reset(open_salad):
    state = kitchen_reset(open_salad, 2)
    obs = kitchen_obs(open_salad, state)
    assert obs.shape == (7, 7, 22) and obs.dtype == np.uint8 and obs.max() == 1
    np.testing.assert_array_equal(obs[..., :4].argmax(-1), open_salad.tiles)
    assert obs[..., :4].sum() == 49
    assert obs[0, 5, 4] == 1 and obs[1, 6, 6] == 1 and obs[5, 6, 10] == obs[6, 5, 10] == 1
    assert obs[..., 4:11].sum() == 4 and obs[..., 11:18].sum() == 0
    assert obs[1, 2, 18] == obs[1, 4, 19] == 1 and obs[..., 18:].sum() == 2
    own = kitchen_obs(open_salad, state, agent=1)
    assert own.shape == (7, 7, 23) and own[1, 4, 22] == 1 and own[..., 22].sum() == 1
    np.testing.assert_array_equal(own[..., :22], obs)


def test_obs_held_and_delivered_components(open_salad):
    state = kitchen_reset(open_salad, 1)
    acts = actions_of(K1)
    for a in acts[:37]:
        kitchen_step(open_salad, state, a)
    obs = kitchen_obs(open_salad, state)
    x, y = state["agents"][0]["pos"]
    assert list(obs[y, x, 11:18]) == [0, 1, 0, 1, 0, 0, 1] and obs[..., 11:18].sum() == 3
    for a in acts[37:]:
        kitchen_step(open_salad, state, a)
    state["delivered"][(0, 3)].append("ChoppedLettuce-ChoppedTomato")
    obs = kitchen_obs(open_salad, state)
    assert list(obs[3, 0, 4:11]) == [0, 1, 0, 1, 0, 0, 1]  # the union over both deliveries
    assert obs[..., 11:18].sum() == 0


def test_render_ansi(open_salad):
    state = kitchen_reset(open_salad, 2)
    assert render_ansi(open_salad, state) == "-----t-\n/ 1 2 l\n/     -\n*     -\n-     -\n-     p\n-----p-\n"
    state["items"][(0, 4)] = "ChoppedTomato"
    state["items"][(0, 5)] = "Plate-ChoppedTomato"
    state["items"][(0, 1)] = "FreshOnion"
    state["items"][(6, 2)] = "ChoppedOnion"
    del state["items"][(5, 0)]
    state["agents"][1]["held"] = "Plate"
    assert render_ansi(open_salad, state).splitlines() == [
        "-------", "o 1 2 l", "/     O", "*     -", "T     -", "m     p", "-----p-"]
    bars = parse_kitchen_text("|t|\n| *\n|p|\n\nSimpleTomato\n\n1 1")
    assert render_ansi(bars, kitchen_reset(bars, 1)) == "|t|\n|1*\n|p|\n"


# --------------------------------------------------------------------------- the env


def test_reference_env_joint_view():
    env = ReferenceKitchenEnv("kitchen/open-divider_salad", num_agents=1, render_mode="ansi")
    assert env.observation_space == gym.spaces.Box(0, 1, (7, 7, 22), np.uint8)
    assert env.action_space == gym.spaces.MultiDiscrete([5])
    obs, info = env.reset(seed=123)
    assert info == {} and obs.shape == (7, 7, 22) and env.observation_space.contains(obs)
    for a in actions_of(K1):
        obs, reward, terminated, truncated, info = env.step(np.array(a))
        assert env.observation_space.contains(obs) and info == {}
    assert (reward, terminated, truncated, env.state["t"]) == (1.0, True, False, 43)
    obs, reward, terminated, _, _ = env.step(np.array([0]))  # keeps stepping past the end
    assert (reward, terminated) == (1.0, True)
    assert "1" in env.render()
    saved = env.get_state()
    env.reset()
    restored, _ = env.set_state(saved)
    assert env.state == saved and env.state is not saved
    np.testing.assert_array_equal(restored, obs)


def test_reference_env_truncates_at_max_steps():
    env = ReferenceKitchenEnv("kitchen/full-divider_salad", num_agents=2, max_episode_steps=5)
    env.reset()
    flags = [env.step(np.array([0, 0]))[3] for _ in range(6)]
    assert flags == [False] * 4 + [True, True]


def test_reference_env_in_a_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([lambda: ReferenceKitchenEnv("open-divider_tl", num_agents=2)] * 3)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (3, 7, 7, 22)
    obs, rewards, terms, truncs, _ = envs.step(np.zeros((3, 2), np.int64))
    assert rewards.tolist() == [0.0, 0.0, 0.0] and not terms.any() and not truncs.any()
    envs.close()


def test_reference_env_passes_the_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(ReferenceKitchenEnv("big-onion-salad", num_agents=4, render_mode="ansi"), skip_render_check=True)


def test_reference_env_checks_agents():
    with pytest.raises(ValueError):
        ReferenceKitchenEnv("open-divider_salad", num_agents=5)
    with pytest.raises(ValueError):
        ReferenceKitchenEnv("open-divider_salad", num_agents=0)


def test_reset_is_deterministic_and_independent(open_salad):
    a, b = kitchen_reset(open_salad, 4), kitchen_reset(open_salad, 4)
    assert a == b and a["items"] is not b["items"]
    kitchen_step(open_salad, a, [4, 3, 1, 2])
    assert b == kitchen_reset(open_salad, 4) and copy.deepcopy(a) == a
