"""The rules of the manipulation family (gridroboman), case by case.

Every case injects a state with ``set_state`` and steps it three ways: the single env
``RobomanEnv``, one row of a ``RobomanVectorEnv`` (until its episode ends) and the
pure-Python reference. All three must agree on the obs, reward, flags, action mask
and state after every step; the expected values written in each test are then checked
on that common outcome.

Covered: every action from every cell with the masks; lift and put on 1-, 2- and
3-stacks; masked lift/put; the held object following the agent; carrying never
stacking; the three golden examples of the docs; the eight goal predicates (positive
and negative, "holding blocks the goal", StackXOnY under a third object); stepping
past the end (repeated rewards, ``truncated`` only when ``timer == max_episode_steps``).
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import pytest

from gridsim.envs import RobomanEnv, RobomanVectorEnv
from gridsim.reference.roboman import roboman_goal, roboman_mask, roboman_obs, roboman_step

RED, GREEN, BLUE = 0, 1, 2


def make_state(agent, objs, held=None, timer=0) -> dict:
    """A state dict; ``objs`` holds ``(x, y)`` or ``(x, y, above, below)`` for red, green, blue."""
    out = []
    for o in objs:
        above, below = (o[2], o[3]) if len(o) == 4 else (None, None)
        out.append({"x": o[0], "y": o[1], "obj_above": above, "obj_below": below})
    return {"agent_pos": tuple(agent), "objs": out, "lifted_obj_idx": held, "timer": timer}


class Outcome(NamedTuple):
    obs: np.ndarray
    reward: float | None
    terminated: bool | None
    truncated: bool | None
    mask: np.ndarray
    state: dict


class Runner:
    """A single env and a 3-row vector env for one task, checked against the reference."""

    def __init__(self, task: str, max_steps: int = 50):
        self.task = task
        self.max_steps = max_steps
        self.single = RobomanEnv(task=task, max_episode_steps=max_steps)
        self.single.reset(seed=0)
        self.vec = RobomanVectorEnv(3, task=task, max_episode_steps=max_steps)
        self.vec.reset(seed=0)

    def close(self):
        self.single.close()
        self.vec.close()

    def play(self, state: dict, actions) -> list[Outcome]:
        """The reference outcomes of ``set_state(state)`` then each action (index 0 is the injection)."""
        ref_state = copy.deepcopy(state)
        ref = [Outcome(roboman_obs(ref_state), None, None, None, roboman_mask(ref_state), copy.deepcopy(ref_state))]
        for a in actions:
            obs, r, term, trunc, mask = roboman_step(ref_state, a, self.task, self.max_steps)
            ref.append(Outcome(obs, float(r), term, trunc, mask, copy.deepcopy(ref_state)))

        obs, info = self.single.set_state(copy.deepcopy(state))
        self._check("single env, set_state", ref[0], obs, info, None, self.single.get_state())
        for t, a in enumerate(actions, 1):
            obs, r, term, trunc, info = self.single.step(a)
            self._check(f"single env, step {t} (action {a})", ref[t], obs, info, (r, term, trunc),
                        self.single.get_state())

        obs, info = self.vec.set_state(copy.deepcopy(state), 1)
        self._check("vector env row 1, set_state", ref[0], obs, info, None, self.vec.get_state(1))
        for t, a in enumerate(actions, 1):
            obs, r, term, trunc, infos = self.vec.step(np.array([0, a, 0]))
            info = {"action_mask": infos["action_mask"][1]}
            assert infos["_action_mask"][1]
            self._check(f"vector env row 1, step {t} (action {a})", ref[t], obs[1], info,
                        (float(r[1]), bool(term[1]), bool(trunc[1])), self.vec.get_state(1))
            if term[1] or trunc[1]:
                break  # the row autoresets on its next step
        return ref

    @staticmethod
    def _check(where, want: Outcome, obs, info, step_out, state):
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == (11,), where
        np.testing.assert_array_equal(obs, want.obs, err_msg=f"{where}: obs")
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (7,), where
        np.testing.assert_array_equal(mask, want.mask, err_msg=f"{where}: action_mask")
        if step_out is not None:
            r, term, trunc = step_out
            assert (r, term, trunc) == (want.reward, want.terminated, want.truncated), where
        assert state == want.state, f"{where}: state {state} != {want.state}"
        assert type(state["agent_pos"]) is tuple and type(state["timer"]) is int, where


@pytest.fixture
def runner_for():
    made = []

    def make(task, max_steps=50):
        r = Runner(task, max_steps)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def expected_mask(agent, object_cells, held):
    x, y = agent
    on_object = tuple(agent) in object_cells
    return [0, y == 0, y == 6, x == 0, x == 6, (not on_object) or held is not None, held is None]


# --------------------------------------------------------------------------- moves and masks


def test_every_action_from_every_cell(runner_for):
    """Moves, clamping at the edge, lift on an object's cell, masked lift and put; with the masks."""
    run = runner_for("LiftBlue")
    cells = [(0, 6), (3, 6), (6, 0)]  # red, green, blue, unstacked
    steps = {0: (0, 0), 1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0), 5: (0, 0), 6: (0, 0)}
    for y in range(7):
        for x in range(7):
            state = make_state((x, y), cells)
            before = run.play(state, [])[0].mask
            assert before.tolist() == expected_mask((x, y), cells, None)
            for a in range(7):
                out = run.play(state, [a])[1]
                dx, dy = steps[a]
                nx, ny = min(max(x + dx, 0), 6), min(max(y + dy, 0), 6)
                held = cells.index((x, y)) if a == 5 and (x, y) in cells else None
                assert out.state["agent_pos"] == (nx, ny), (x, y, a)
                assert out.state["lifted_obj_idx"] == held
                assert out.obs[:2].tolist() == [nx, ny]
                assert out.mask.tolist() == expected_mask((nx, ny), cells, held), (x, y, a)
                assert out.state["timer"] == 1
                assert out.terminated == (held == BLUE) and out.reward == float(held == BLUE)
                if a in (1, 2, 3, 4):  # masked exactly when the move is blocked by the edge
                    assert before[a] == ((nx, ny) == (x, y))


def test_masked_actions_are_noops_that_advance_the_timer(runner_for):
    run = runner_for("LiftRed")
    state = make_state((0, 0), [(3, 3), (4, 4), (5, 5)], timer=7)
    for a in (1, 3, 5, 6, 0):
        out = run.play(state, [a])[1]
        want = copy.deepcopy(state)
        want["timer"] = 8
        assert out.state == want


# --------------------------------------------------------------------------- lift and put


def test_lift_single_object(runner_for):
    run = runner_for("LiftGreen")
    out = run.play(make_state((2, 2), [(0, 0), (2, 2), (5, 5)]), [5])[1]
    assert out.state["lifted_obj_idx"] == GREEN
    assert out.obs.tolist() == [2, 2, 0, 0, 0, 2, 2, 1, 5, 5, 0]
    assert out.mask.tolist() == [0, 0, 0, 0, 0, 1, 0]
    assert (out.reward, out.terminated) == (1.0, True)


def test_lift_from_two_stack_takes_the_top(runner_for):
    run = runner_for("LiftGreen")
    state = make_state((2, 2), [(2, 2, GREEN, None), (2, 2, None, RED), (5, 5)])
    out = run.play(state, [5])
    assert out[0].obs.tolist() == [2, 2, 2, 2, -1, 2, 2, 1, 5, 5, 0]
    after = out[1]
    assert after.state["lifted_obj_idx"] == GREEN
    assert after.state["objs"][RED]["obj_above"] is None and after.state["objs"][GREEN]["obj_below"] is None
    assert after.obs.tolist() == [2, 2, 2, 2, 0, 2, 2, 1, 5, 5, 0]
    assert after.terminated


def test_lift_from_three_stack_then_put_back(runner_for):
    """Blue on green on red: lift blue, lift is then masked, put restores the 3-stack."""
    run = runner_for("StackBlueOnGreen")
    state = make_state((4, 1), [(4, 1, GREEN, None), (4, 1, BLUE, RED), (4, 1, None, GREEN)])
    out = run.play(state, [5, 5, 6])
    assert out[0].obs.tolist() == [4, 1, 4, 1, -1, 4, 1, 1, 4, 1, 1]  # the middle reads +1
    assert out[0].terminated is None and roboman_goal("StackBlueOnGreen", state)
    lifted = out[1]
    assert lifted.state["lifted_obj_idx"] == BLUE
    assert lifted.state["objs"][GREEN]["obj_above"] is None and lifted.state["objs"][BLUE]["obj_below"] is None
    assert lifted.obs.tolist() == [4, 1, 4, 1, -1, 4, 1, 1, 4, 1, 1]
    assert lifted.mask.tolist() == [0, 0, 0, 0, 0, 1, 0]
    assert not lifted.terminated
    assert out[2].state == {**lifted.state, "timer": lifted.state["timer"] + 1}  # masked lift: a no-op
    put = out[3]
    assert put.state["objs"] == state["objs"] and put.state["lifted_obj_idx"] is None
    assert put.terminated and put.reward == 1.0


def test_put_on_empty_cell_single_object_and_two_stack(runner_for):
    run = runner_for("StackRedOnBlue")
    # Carry red from (0, 0) to an empty cell, then onto blue, then green onto the red-blue stack.
    state = make_state((0, 0), [(0, 0), (3, 0), (2, 0)])
    out = run.play(state, [5, 4, 6])[-1]
    assert out.state["objs"][RED] == {"x": 1, "y": 0, "obj_above": None, "obj_below": None}
    assert out.obs.tolist() == [1, 0, 1, 0, 0, 3, 0, 0, 2, 0, 0]
    out = run.play(out.state, [5, 4, 6])[-1]
    assert out.state["objs"][RED] == {"x": 2, "y": 0, "obj_above": None, "obj_below": BLUE}
    assert out.state["objs"][BLUE]["obj_above"] == RED
    assert out.obs.tolist() == [2, 0, 2, 0, 1, 3, 0, 0, 2, 0, -1]
    assert out.terminated and out.mask.tolist() == [0, 1, 0, 0, 0, 0, 1]
    # Green onto the 2-stack: a 3-stack, red in the middle reads +1.
    out = run.play({**out.state, "timer": 0}, [4, 5, 3, 6])[-1]
    assert out.state["objs"][GREEN] == {"x": 2, "y": 0, "obj_above": None, "obj_below": RED}
    assert out.state["objs"][RED] == {"x": 2, "y": 0, "obj_above": GREEN, "obj_below": BLUE}
    assert out.obs.tolist() == [2, 0, 2, 0, 1, 2, 0, 1, 2, 0, -1]
    assert out.terminated  # red is still directly on blue


def test_held_object_follows_the_agent_and_carrying_never_stacks(runner_for):
    run = runner_for("MoveRedToCenter")
    state = make_state((0, 3), [(0, 3), (1, 3), (2, 3, None, None)], held=None)
    out = run.play(state, [5, 4, 4, 4, 2, 1, 3, 3, 3, 3, 0])
    for o in out[1:]:
        ax, ay = o.state["agent_pos"]
        assert (o.state["objs"][RED]["x"], o.state["objs"][RED]["y"]) == (ax, ay)
        for i in range(3):
            assert o.state["objs"][i]["obj_above"] is None and o.state["objs"][i]["obj_below"] is None
        assert o.obs[[7, 10]].tolist() == [0, 0]
        assert o.obs[4] == 1
        assert not o.terminated  # held blocks MoveXToCenter even at (3, 3)
    assert out[-1].state["agent_pos"] == (0, 3)


def test_held_position_is_written_on_every_step_even_noops(runner_for):
    """An injected held object stored away from the agent jumps to the agent on any step."""
    run = runner_for("LiftRed")
    state = make_state((1, 1), [(6, 6), (3, 3), (4, 4)], held=RED)
    for a in (0, 5):
        out = run.play(state, [a])[1]
        assert out.state["objs"][RED]["x"] == 1 and out.state["objs"][RED]["y"] == 1


def test_put_lands_at_stored_coordinates_and_keeps_stale_below_on_empty_cell(runner_for):
    """Put: held is None by step 4, so the object keeps its stored cell; with no top there, below is kept."""
    run = runner_for("LiftRed")
    state = make_state((0, 0), [(5, 5, None, BLUE), (3, 3), (4, 4)], held=RED)
    out = run.play(state, [6])[1]
    assert out.state["objs"][RED] == {"x": 5, "y": 5, "obj_above": None, "obj_below": BLUE}
    assert out.state["lifted_obj_idx"] is None
    assert out.obs[4] == 1


def test_top_is_the_smallest_index_among_unlinked_objects_on_a_cell(runner_for):
    """Two unstacked objects on one cell (not reachable): lift takes the lower index; put stacks on the other."""
    run = runner_for("StackRedOnBlue")
    state = make_state((2, 5), [(2, 5), (0, 0), (2, 5)])
    out = run.play(state, [5, 6])
    assert out[1].state["lifted_obj_idx"] == RED
    assert out[2].state["objs"][RED]["obj_below"] == BLUE and out[2].state["objs"][BLUE]["obj_above"] == RED
    assert out[2].terminated


def test_lift_clears_the_below_objects_above_link_whatever_it_was(runner_for):
    """Inconsistent links: lift clears ``obj[B].above`` even when it did not point back."""
    run = runner_for("LiftRed")
    state = make_state((1, 1), [(1, 1, None, GREEN), (5, 5, BLUE, None), (5, 5, None, GREEN)])
    out = run.play(state, [5])[1]
    assert out.state["lifted_obj_idx"] == RED
    assert out.state["objs"][RED]["obj_below"] is None
    assert out.state["objs"][GREEN]["obj_above"] is None
    assert out.state["objs"][BLUE]["obj_below"] == GREEN  # untouched


# --------------------------------------------------------------------------- golden examples


def test_golden_a_lift_from_a_three_stack(runner_for):
    run = runner_for("LiftGreen")
    state = make_state((3, 3), [(3, 3, None, GREEN), (3, 3, RED, BLUE), (3, 3, GREEN, None)], timer=10)
    rows = [
        (5, [3, 3, 3, 3, 1, 3, 3, 1, 3, 3, -1], [0, 0, 0, 0, 0, 1, 0], 0.0, False),
        (4, [4, 3, 4, 3, 1, 3, 3, 1, 3, 3, -1], [0, 0, 0, 0, 0, 1, 0], 0.0, False),
        (6, [4, 3, 4, 3, 0, 3, 3, 1, 3, 3, -1], [0, 0, 0, 0, 0, 0, 1], 0.0, False),
        (3, [3, 3, 4, 3, 0, 3, 3, 1, 3, 3, -1], [0, 0, 0, 0, 0, 0, 1], 0.0, False),
        (5, [3, 3, 4, 3, 0, 3, 3, 1, 3, 3, 0], [0, 0, 0, 0, 0, 1, 0], 1.0, True),
    ]
    out = run.play(state, [r[0] for r in rows])
    assert out[0].obs.tolist() == [3, 3, 3, 3, 1, 3, 3, 1, 3, 3, -1]
    assert out[0].mask.tolist() == [0, 0, 0, 0, 0, 0, 1]
    for o, (_, obs, mask, reward, term) in zip(out[1:], rows, strict=True):
        assert o.obs.tolist() == obs and o.mask.tolist() == mask
        assert (o.reward, o.terminated, o.truncated) == (reward, term, False)
    assert out[-1].state["timer"] == 15


def test_golden_b_last_step(runner_for):
    run = runner_for("StackRedOnGreen")
    state = make_state((2, 2), [(2, 2), (2, 2), (5, 5)], held=RED, timer=48)
    out = run.play(state, [6, 0, 5])
    assert out[1].obs.tolist() == [2, 2, 2, 2, 1, 2, 2, -1, 5, 5, 0]
    assert (out[1].reward, out[1].terminated, out[1].truncated, out[1].state["timer"]) == (1.0, True, False, 49)
    assert (out[2].reward, out[2].terminated, out[2].truncated, out[2].state["timer"]) == (1.0, True, True, 50)
    assert out[3].obs.tolist() == [2, 2, 2, 2, 1, 2, 2, 0, 5, 5, 0]
    assert (out[3].reward, out[3].terminated, out[3].truncated, out[3].state["timer"]) == (0.0, False, False, 51)


def test_golden_c_inconsistent_injected_state(runner_for):
    run = runner_for("StackRedOnGreen")
    state = make_state((0, 0), [(6, 6), (0, 0), (1, 0)], held=RED)
    out = run.play(state, [6])
    assert out[0].obs.tolist() == [0, 0, 6, 6, 1, 0, 0, 0, 1, 0, 0]
    assert out[0].mask.tolist() == [0, 1, 0, 1, 0, 1, 0]
    after = out[1]
    assert after.state["objs"][RED] == {"x": 6, "y": 6, "obj_above": None, "obj_below": GREEN}
    assert after.state["objs"][GREEN]["obj_above"] == RED
    assert after.obs.tolist() == [0, 0, 6, 6, 1, 0, 0, -1, 1, 0, 0]
    assert (after.reward, after.terminated) == (1.0, True)
    assert after.mask.tolist() == [0, 1, 0, 1, 0, 1, 1]


# --------------------------------------------------------------------------- goals

G = GREEN
GOAL_CASES = {
    "LiftGreen": [
        (True, make_state((3, 3), [(0, 0), (3, 3), (6, 6)], held=GREEN)),
        (False, make_state((3, 3), [(3, 3), (0, 3), (6, 6)], held=RED)),
        (False, make_state((0, 3), [(3, 3), (0, 3), (6, 6)])),
    ],
    "TouchGreen": [
        *[(True, make_state((3 + dx, 3 + dy), [(0, 0), (3, 3), (6, 6)])) for dx, dy in
          ((1, 0), (-1, 0), (0, 1), (0, -1))],
        (False, make_state((3, 3), [(0, 0), (3, 3), (6, 6)])),  # standing on it does not count
        (False, make_state((4, 4), [(0, 0), (3, 3), (6, 6)])),  # diagonal
        (False, make_state((5, 3), [(0, 0), (3, 3), (6, 6)])),
        (False, make_state((4, 3), [(4, 3), (3, 3), (6, 6)], held=RED)),  # holding blocks the goal
    ],
    "MoveGreenToCenter": [
        *[(True, make_state((0, 0), [(0, 1), c, (6, 6)])) for c in ((2, 2), (4, 4), (3, 3), (2, 4))],
        *[(False, make_state((0, 0), [(0, 1), c, (6, 6)])) for c in ((1, 3), (5, 3), (3, 1), (3, 5), (0, 0))],
        (False, make_state((3, 3), [(0, 1), (3, 3), (6, 6)], held=GREEN)),
        (False, make_state((3, 3), [(3, 3), (2, 2), (6, 6)], held=RED)),
    ],
    "MoveGreenToCorner": [
        *[(True, make_state((3, 3), [(2, 2), c, (4, 4)])) for c in ((0, 0), (1, 1), (5, 0), (6, 6), (1, 5), (6, 1))],
        *[(False, make_state((3, 3), [(2, 2), c, (4, 4)])) for c in ((2, 0), (0, 2), (3, 3), (4, 6), (6, 4))],
        (False, make_state((0, 0), [(2, 2), (0, 0), (4, 4)], held=GREEN)),
        (False, make_state((3, 3), [(3, 3), (6, 6), (4, 4)], held=RED)),
    ],
    "TouchGreenWithBlue": [
        (True, make_state((3, 2), [(0, 0), (3, 3), (3, 2)], held=BLUE)),
        (True, make_state((2, 3), [(0, 0), (3, 3), (2, 3)], held=BLUE)),
        (False, make_state((3, 2), [(3, 2), (3, 3), (6, 6)], held=RED)),  # the wrong object held
        (False, make_state((3, 2), [(0, 0), (3, 3), (6, 6)])),  # nothing held
        (False, make_state((4, 4), [(0, 0), (3, 3), (4, 4)], held=BLUE)),  # diagonal
        (False, make_state((3, 3), [(0, 0), (3, 3), (3, 3)], held=BLUE)),  # on it
    ],
    "MoveGreenCloseToBlue": [
        *[(True, make_state((0, 0), [(6, 0), (3, 3), c])) for c in ((4, 4), (2, 3), (3, 4), (2, 2))],
        (True, make_state((0, 0), [(6, 0), (3, 3, BLUE, None), (3, 3, None, GREEN)])),  # stacked
        *[(False, make_state((0, 0), [(6, 0), (3, 3), c])) for c in ((5, 3), (3, 1), (1, 1), (5, 5))],
        (False, make_state((4, 4), [(4, 4), (3, 3), (4, 4)], held=RED)),  # holding blocks the goal
        (False, make_state((4, 4), [(6, 0), (3, 3), (4, 4)], held=BLUE)),
    ],
    "MoveGreenFarFromBlue": [
        (True, make_state((3, 3), [(3, 0), (0, 0), (6, 4)])),  # distance 10
        (True, make_state((3, 3), [(3, 0), (6, 6), (0, 0)])),  # distance 12
        (False, make_state((3, 3), [(3, 0), (0, 0), (6, 3)])),  # distance 9
        (False, make_state((6, 6), [(3, 0), (0, 0), (6, 6)], held=BLUE)),
        (False, make_state((3, 0), [(3, 0), (0, 0), (6, 6)], held=RED)),
    ],
    "StackGreenOnBlue": [
        (True, make_state((0, 0), [(6, 0), (3, 3, None, BLUE), (3, 3, GREEN, None)])),
        # a third object on top of green keeps it true
        (True, make_state((0, 0), [(3, 3, None, GREEN), (3, 3, RED, BLUE), (3, 3, GREEN, None)])),
        # does not require "nothing held"
        (True, make_state((0, 0), [(0, 0), (3, 3, None, BLUE), (3, 3, GREEN, None)], held=RED)),
        # only green's below link counts
        (True, make_state((0, 0), [(6, 0), (5, 5, None, BLUE), (3, 3, None, None)])),
        (False, make_state((0, 0), [(6, 0), (3, 3, None, None), (3, 3, GREEN, None)])),
        (False, make_state((0, 0), [(6, 0), (3, 3, BLUE, None), (3, 3, None, GREEN)])),  # reversed
        (False, make_state((0, 0), [(3, 3, GREEN, None), (3, 3, None, RED), (6, 6)])),  # on the wrong one
        (False, make_state((0, 0), [(6, 0), (3, 3), (3, 3)])),  # same cell, not stacked
    ],
}


@pytest.mark.parametrize("task", sorted(GOAL_CASES))
def test_goal_predicates(task, runner_for):
    """A no-op step keeps the state, so ``terminated`` after it is the goal of the injected state."""
    run = runner_for(task)
    for want, state in GOAL_CASES[task]:
        assert roboman_goal(task, state) == want, state
        out = run.play(state, [0])[1]
        assert (out.terminated, out.reward) == (want, float(want)), state
    assert any(w for w, _ in GOAL_CASES[task]) and not all(w for w, _ in GOAL_CASES[task])


@pytest.mark.parametrize("task", ["TouchRedWithGreen", "TouchBlueWithRed"])
def test_touch_with_by_carrying(task, runner_for):
    """Touch{X}With{Y}: lift Y, walk next to X."""
    run = runner_for(task)
    x_obj, y_obj = (RED, GREEN) if task == "TouchRedWithGreen" else (BLUE, RED)
    cells = [None, None, None]
    cells[x_obj], cells[y_obj] = (4, 4), (1, 4)
    cells[3 - x_obj - y_obj] = (6, 0)
    out = run.play(make_state((1, 4), cells), [5, 4, 4])
    assert [o.terminated for o in out[1:]] == [False, False, True]


# --------------------------------------------------------------------------- past the end


def test_past_end_repeated_reward_and_truncation_only_at_fifty(runner_for):
    """The goal keeps paying, truncated is True on exactly the step where the timer reaches 50."""
    run = runner_for("LiftRed")
    state = make_state((3, 3), [(3, 3), (0, 0), (6, 6)], held=RED, timer=45)
    out = run.play(state, [0] * 8 + [6, 0, 5, 0])
    timers = [o.state["timer"] for o in out[1:]]
    assert timers == list(range(46, 58))
    assert [o.reward for o in out[1:]] == [1.0] * 8 + [0.0, 0.0, 1.0, 1.0]
    assert [o.terminated for o in out[1:]] == [True] * 8 + [False, False, True, True]
    assert [o.truncated for o in out[1:]] == [t == 50 for t in timers]
    both = out[5]
    assert both.state["timer"] == 50 and both.terminated and both.truncated


def test_truncation_at_fifty_only_when_unsolved(runner_for):
    run = runner_for("StackRedOnGreen")
    state = make_state((0, 0), [(6, 6), (5, 5), (4, 4)])
    out = run.play(state, [0] * 60)
    assert [o.truncated for o in out[1:]] == [t == 50 for t in range(1, 61)]
    assert not any(o.terminated for o in out[1:])
    assert all(o.reward == 0.0 for o in out[1:])


@pytest.mark.parametrize("limit", [1, 7])
def test_truncation_uses_equality_with_max_episode_steps(limit, runner_for):
    run = runner_for("LiftRed", max_steps=limit)
    out = run.play(make_state((0, 0), [(6, 6), (5, 5), (4, 4)]), [0] * (limit + 3))
    assert [o.truncated for o in out[1:]] == [t == limit for t in range(1, limit + 4)]
    # a timer injected past the limit never truncates
    out = run.play(make_state((0, 0), [(6, 6), (5, 5), (4, 4)], timer=limit), [0] * 5)
    assert not any(o.truncated for o in out[1:])


def test_timer_saturates_at_the_top_of_its_range(runner_for):
    """``set_state`` accepts timers up to 2**31 - 1; the timer stays there, so the state stays valid."""
    run = runner_for("LiftRed")
    out = run.play(make_state((0, 0), [(6, 6), (5, 5), (4, 4)], timer=2**31 - 2), [0, 0, 0])
    assert [o.state["timer"] for o in out] == [2**31 - 2, 2**31 - 1, 2**31 - 1, 2**31 - 1]
