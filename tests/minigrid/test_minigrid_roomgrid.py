"""The RoomGrid ids (Unlock, UnlockPickup, BlockedUnlockPickup, KeyCorridor, ObstructedMaze) against Minigrid.

Every id also runs through the generic differential tests (``test_minigrid_diff.py``,
``test_minigrid_vector.py``, ``test_minigrid_interop.py``); here: their success rules reached
for real (by play, and by putting both agents in front of the target), a pickup of the wrong
object, and ObstructedMaze-v0's blocking ball covering a key box where v1 does not.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid_harness as h  # noqa: E402
from minigrid.core.world_object import Key  # noqa: E402

from gridsim.minigrid import MINIGRID_IDS  # noqa: E402
from gridsim.minigrid.interop import state_of  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

PICKUP_IDS = [n for n, s in MINIGRID_IDS.items() if s.task.rule == "pick_up_target"]
# The ids whose goal the harness's seek policy reaches within a few hundred steps.
PLAYED_IDS = ["MiniGrid-Unlock-v0", "MiniGrid-UnlockPickup-v0", "MiniGrid-BlockedUnlockPickup-v0",
              "MiniGrid-KeyCorridorS3R1-v0", "MiniGrid-KeyCorridorS3R3-v0", "MiniGrid-KeyCorridorS4R3-v0",
              "MiniGrid-ObstructedMaze-1Dl-v0", "MiniGrid-ObstructedMaze-1Dlh-v0", "MiniGrid-ObstructedMaze-1Dlhb-v0",
              "MiniGrid-ObstructedMaze-2Dlh-v0"]


def test_the_roomgrid_ids_are_minigrids_22():
    assert len(PICKUP_IDS) + 1 == 22, "the RoomGrid ids (and Unlock) of gridsim/minigrid/tasks.py changed: " \
        "22 is Minigrid 3.2.0's count, pinned here (tests/minigrid/test_minigrid_roomgrid.py)"


@pytest.mark.parametrize("name", PLAYED_IDS)
def test_played_episodes_reach_the_goal(name):
    successes = 0
    for seed in range(3):
        successes += h.run_single(name, seed, 400, "seek").successes
    assert successes >= 1


def _open_doors(ref):
    for obj in ref.unwrapped.grid.grid:
        if obj is not None and obj.type == "door":
            obj.is_locked, obj.is_open = False, True


def _face(ref, pos):
    """Put Minigrid's agent (state only) on an empty cell or open door next to ``pos``, facing it.

    Returns False if there is none.
    """
    u = ref.unwrapped
    for d, (dx, dy) in enumerate(h.DIR_VEC):
        x, y = pos[0] - dx, pos[1] - dy
        cell = u.grid.get(x, y) if 0 < x < u.width - 1 and 0 < y < u.height - 1 else False
        if cell is None or (cell and cell.type == "door" and cell.is_open):
            u.agent_pos = np.array((x, y))
            u.agent_dir = d
            return True
    return False


def _cell_of(ref, obj):
    u = ref.unwrapped
    k = next(k for k, o in enumerate(u.grid.grid) if o is obj)
    return k % u.width, k // u.width


def _both_step(ref, name, action, where):
    ours = gym.make("gridsim/" + name)
    ours.reset(seed=0)
    ours.unwrapped.set_state(state_of(ref))
    out_ref, out_ours = ref.step(action), ours.step(action)
    h.compare_step(out_ref, out_ours, where)
    h.compare_state(ref, ours.unwrapped.get_state(), where)
    ours.close()
    return out_ref


@pytest.mark.parametrize("name", PICKUP_IDS)
def test_picking_up_that_object_is_rewarded_as_in_minigrid(name):
    done = 0
    for seed in range(4):
        ref = gym.make(name)
        ref.reset(seed=seed)
        _open_doors(ref)  # KeyCorridorS3's 1-cell rooms are reached through their door
        if not _face(ref, _cell_of(ref, ref.unwrapped.obj)):
            continue
        for _ in range(seed):  # later steps: a smaller reward
            ref.unwrapped.step_count += 1
        _, reward, terminated, truncated, _ = _both_step(ref, name, h.PICKUP, f"{name} seed {seed}")
        assert reward > 0 and terminated and not truncated
        done += 1
    assert done >= 2


@pytest.mark.parametrize("name", ["MiniGrid-KeyCorridorS3R3-v0", "MiniGrid-UnlockPickup-v0",
                                  "MiniGrid-ObstructedMaze-1Dl-v0"])
def test_picking_up_another_object_ends_nothing(name):
    ref = gym.make(name)
    ref.reset(seed=1)
    key = next(o for o in ref.unwrapped.grid.grid if o is not None and o.type == "key")
    _open_doors(ref)
    assert _face(ref, _cell_of(ref, key))
    _, reward, terminated, _, _ = _both_step(ref, name, h.PICKUP, name)
    assert reward == 0 and not terminated and ref.unwrapped.carrying is key


def test_unlock_rewards_the_toggle_that_opens_its_door():
    name = "MiniGrid-Unlock-v0"
    ref = gym.make(name)
    ref.reset(seed=2)
    door = ref.unwrapped.door
    x, y = _cell_of(ref, door)
    ref.unwrapped.grid.set(x - 1, y, None)  # the key may lie just before the door
    assert _face(ref, (x, y)) and tuple(ref.unwrapped.agent_pos) == (x - 1, y)
    ref.unwrapped.carrying = Key(door.color)
    _, reward, terminated, _, _ = _both_step(ref, name, h.TOGGLE, name)
    assert reward > 0 and terminated and door.is_open


def test_unlockpickup_box_toggled_away_cannot_be_picked_up():
    # Toggling the (empty) target box removes it; both sides agree and the episode goes on.
    name = "MiniGrid-UnlockPickup-v0"
    ref = gym.make(name)
    ref.reset(seed=3)
    assert _face(ref, _cell_of(ref, ref.unwrapped.obj))
    _, reward, terminated, _, _ = _both_step(ref, name, h.TOGGLE, name)
    assert reward == 0 and not terminated
    assert all(o is None or o.type != "box" for o in ref.unwrapped.grid.grid)


@pytest.mark.parametrize("seed", [7, 40])
def test_obstructed_maze_v0_lets_a_ball_cover_a_key_box_and_v1_does_not(seed):
    boxes = {}
    for v in (0, 1):
        env = gym.make(f"gridsim/MiniGrid-ObstructedMaze-1Q-v{v}", obs_type="full_image")
        obs, _ = env.reset(seed=seed)
        boxes[v] = int((obs[:, :, 0] == 7).sum())  # grey boxes with a key inside, one per locked door
        env.close()
    assert boxes == {0: 1, 1: 2}
