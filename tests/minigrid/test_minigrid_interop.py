"""Minigrid states imported mid-episode (``gridsim.minigrid.interop.state_of``) play on as in Minigrid.

A Minigrid env is reset and played alone for a while; its state goes into a gridsim env
with ``set_state``; then both take the same actions and everything is compared every step,
the generator state included, so that the next worlds (unseeded resets) match too. Without
resets this checks every id's step rules on Minigrid's own worlds (Dynamic-Obstacles'
moving balls, Memory's end cells, GoToDoor's target, lava, doors, keys). Boxes and what
they hold, and the rule that gridsim never imports minigrid, are tested here too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid_harness as h  # noqa: E402
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX  # noqa: E402
from minigrid.core.world_object import Ball, Box, Door, Key  # noqa: E402
from minigrid.envs import DoorKeyEnv  # noqa: E402

import gridsim  # noqa: E402
from gridsim.minigrid import _kernel  # noqa: E402
from gridsim.minigrid.env import MinigridEnv  # noqa: E402
from gridsim.minigrid.ids import COLOR_NAMES  # noqa: E402
from gridsim.minigrid.interop import contents_code, env_kwargs_of, state_of, task_of  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)


@pytest.mark.parametrize("name", h.IDS)
def test_imported_states_step_as_in_minigrid(name):
    # Each episode end: Minigrid's env alone resets, and its new state is imported again.
    stats = h.run_imported(name, 1, 100, warmup=17, across_resets=False)
    assert stats.steps == 100


@pytest.mark.parametrize("name", h.IDS)
def test_an_imported_generator_gives_minigrids_next_worlds(name):
    h.run_imported(name, 3, 70, warmup=30, across_resets=True)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("name", ["MiniGrid-DoorKey-6x6-v0", "MiniGrid-Empty-Random-5x5-v0",
                                  "MiniGrid-Dynamic-Obstacles-6x6-v0", "MiniGrid-MemoryS7-v0",
                                  "MiniGrid-PutNear-6x6-N2-v0", "MiniGrid-RedBlueDoors-6x6-v0"])
def test_states_imported_into_a_vector_env(name, mode):
    h.run_imported_vector(name, 3, 9, 60, warmup=15, autoreset_mode=mode)


def test_an_env_that_was_never_reset_continues_the_imported_generator():
    name = "MiniGrid-DoorKey-8x8-v0"
    ref = gym.make(name)
    ref.reset(seed=17)
    ours = gym.make("gridsim/" + name).unwrapped
    ours.set_state(state_of(ref))
    for _ in range(3):  # unseeded resets of both draw the same worlds
        obs_ref, _ = ref.reset()
        obs_ours, _ = ours.reset()
        h.compare_obs(obs_ref, obs_ours, "unseeded reset after set_state")
        h.compare_state(ref, ours.get_state(), "unseeded reset after set_state")


def test_task_data_of_each_generator():
    ref = gym.make("MiniGrid-Dynamic-Obstacles-8x8-v0")
    ref.reset(seed=0)
    balls = [tuple(int(v) for v in b.cur_pos) for b in ref.unwrapped.obstacles]
    assert task_of(ref) == (4, *[v for pos in balls for v in pos])
    for pos in balls:
        assert tuple(ref.unwrapped.grid.get(*pos).encode()) == (6, 2, 0)  # blue balls where the list says
    ref = gym.make("MiniGrid-MemoryS9-v0")
    ref.reset(seed=0)
    assert task_of(ref) == (*ref.unwrapped.success_pos, *ref.unwrapped.failure_pos)
    ref = gym.make("MiniGrid-GoToDoor-8x8-v0")
    ref.reset(seed=0)
    assert task_of(ref) == tuple(ref.unwrapped.target_pos)
    state = state_of(ref)
    assert state["mission"] == ref.unwrapped.mission and len(state["task"]) == _kernel.MINIGRID_TASK_SLOTS
    ref = gym.make("MiniGrid-GoToObject-8x8-N2-v0")
    ref.reset(seed=0)
    assert task_of(ref) == tuple(ref.unwrapped.target_pos)
    ref = gym.make("MiniGrid-PutNear-8x8-N3-v0")  # it has a target_pos too: the object to move follows
    ref.reset(seed=0)
    u = ref.unwrapped
    assert task_of(ref) == (*u.target_pos, OBJECT_TO_IDX[u.move_type], COLOR_TO_IDX[u.moveColor])
    ref = gym.make("MiniGrid-Fetch-8x8-N3-v0")
    ref.reset(seed=0)
    u = ref.unwrapped
    assert task_of(ref) == (OBJECT_TO_IDX[u.targetType], COLOR_TO_IDX[u.targetColor])
    assert u.mission.endswith(f"{u.targetColor} {u.targetType}")
    ref = gym.make("MiniGrid-RedBlueDoors-8x8-v0")
    ref.reset(seed=0)
    red_x, red_y, blue_x, blue_y = task_of(ref)
    assert ref.unwrapped.grid.get(red_x, red_y) is ref.unwrapped.red_door
    assert ref.unwrapped.grid.get(blue_x, blue_y) is ref.unwrapped.blue_door
    for name in ("MiniGrid-DoorKey-5x5-v0", "MiniGrid-LockedRoom-v0", "MiniGrid-Playground-v0"):
        ref = gym.make(name)
        ref.reset(seed=0)
        assert task_of(ref) == () and state_of(ref)["task"] == (0,) * _kernel.MINIGRID_TASK_SLOTS
    ref = gym.make("MiniGrid-KeyCorridorS3R3-v0")
    ref.reset(seed=0)
    assert task_of(ref) == (6, COLOR_NAMES.index(ref.unwrapped.obj.color))  # the ball to pick up
    ref = gym.make("MiniGrid-Unlock-v0")
    ref.reset(seed=0)
    x, y = task_of(ref)
    assert ref.unwrapped.grid.get(x, y) is ref.unwrapped.door


def _facing_an_empty_cell(ref):
    """Turn Minigrid's agent (state only) to face an empty neighbour; return that cell."""
    u = ref.unwrapped
    ax, ay = (int(v) for v in u.agent_pos)
    for d, (dx, dy) in enumerate(h.DIR_VEC):
        if u.grid.get(ax + dx, ay + dy) is None:
            u.agent_dir = d
            return ax + dx, ay + dy
    raise AssertionError("no empty cell next to the agent")


@pytest.mark.parametrize(("contents", "name"), [(Key("blue"), "key"), (Ball("purple"), "ball"), (None, "empty")])
def test_a_box_and_its_contents_carried_dropped_and_opened(contents, name):
    env_name = "MiniGrid-Empty-8x8-v0"
    ref = gym.make(env_name)
    ref.reset(seed=0)
    ref.unwrapped.agent_pos = (3, 3)
    x, y = _facing_an_empty_cell(ref)
    ref.unwrapped.grid.set(x, y, Box("red", contains=contents))
    state = state_of(ref)
    assert state["contents"][x, y] == contents_code(contents)
    assert tuple(state["grid"][x, y]) == (7, 0, 0)
    ours = gym.make("gridsim/" + env_name).unwrapped
    obs, _ = ours.set_state(state)
    h.compare_obs(ref.unwrapped.gen_obs(), obs, "box placed")
    h.compare_state(ref, ours.get_state(), "box placed")
    # Pick the box up (the view's agent cell shows it), drop it back, open it, take what was inside.
    for k, a in enumerate([PICKUP, RIGHT, LEFT, DROP, TOGGLE, PICKUP, LEFT, DROP, RIGHT, TOGGLE]):
        h.compare_step(ref.step(a), ours.step(a), f"box with {name}, action {k}")
        s = ours.get_state()
        h.compare_state(ref, s, f"box with {name}, action {k}")
        if k == 0:
            assert s["carrying"] == (7, 0, 0) and s["carrying_contents"] == contents_code(contents)
        if k == 4:  # opened: the box's cell holds what it held
            assert tuple(s["grid"][x, y]) == ((1, 0, 0) if contents is None else tuple(contents.encode()))
        if k == 5:
            assert s["carrying"] == (None if contents is None else tuple(contents.encode()))


def _placed_before_the_agent(obj, carried: bool = False, name: str = "MiniGrid-Empty-8x8-v0"):
    """Minigrid's env with ``obj`` in the cell the agent faces, or carried."""
    ref = gym.make(name)
    ref.reset(seed=0)
    u = ref.unwrapped
    u.agent_pos, u.agent_dir = (3, 3), 0
    if carried:
        u.carrying = obj
    else:
        u.grid.set(4, 3, obj)
    return ref


@pytest.mark.parametrize(("obj", "carried", "message"), [
    (Box("red", contains=Box("blue", contains=Key("green"))), False,
     r"the box at \(4, 3\) holds a blue box that holds a green key"),
    (Box("red", contains=Door("blue", is_locked=True)), False, r"the box at \(4, 3\) holds a locked blue door"),
    (Box("red", contains=Door("yellow")), False, r"the box at \(4, 3\) holds a closed yellow door"),
    (Box("red", contains=Box("blue", contains=Ball("purple"))), True,
     "the box carried holds a blue box that holds a purple ball"),
    (Box("red", contains=Door("grey", is_locked=True)), True, "the box carried holds a locked grey door"),
], ids=["box-in-box", "locked-door-in-box", "closed-door-in-box", "carried-box-in-box", "carried-door-in-box"])
def test_state_of_refuses_what_gridsim_cannot_hold_naming_it(obj, carried, message):
    ref = _placed_before_the_agent(obj, carried)
    with pytest.raises(gridsim.InvalidArgumentError, match=message) as caught:
        state_of(ref)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(("obj", "carried"), [
    (Box("red", contains=Box("blue")), False), (Box("red", contains=Door("blue", is_open=True)), False),
    (Box("red", contains=Box("green")), True), (Box("red", contains=Door("purple", is_open=True)), True),
], ids=["empty-box-in-box", "open-door-in-box", "carried-empty-box-in-box", "carried-open-door-in-box"])
def test_a_box_in_a_box_and_an_open_door_in_a_box_play_as_in_minigrid(obj, carried):
    # What comes out of a box is a fresh object: an empty box, an open door; both are what Minigrid had.
    ref = _placed_before_the_agent(obj, carried)
    ours = gym.make("gridsim/MiniGrid-Empty-8x8-v0").unwrapped
    ours.set_state(state_of(ref))
    actions = [DROP, TOGGLE, TOGGLE, FORWARD, LEFT, PICKUP] if carried else [TOGGLE, TOGGLE, PICKUP, FORWARD]
    for k, a in enumerate(actions):
        h.compare_step(ref.step(a), ours.step(a), f"action {k}")
        h.compare_state(ref, ours.get_state(), f"action {k}")


SETTINGS_CASES = [("MiniGrid-DoorKey-8x8-v0", {"see_through_walls": True}),
                  ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 5}),
                  ("MiniGrid-LavaGapS7-v0", {"max_steps": 40}),
                  ("MiniGrid-Empty-Random-6x6-v0", {"agent_view_size": 3, "max_steps": 25})]


@pytest.mark.parametrize(("name", "settings"), SETTINGS_CASES, ids=lambda v: v if isinstance(v, str) else
                         "-".join(map(str, v.values())))
def test_a_minigrid_env_of_its_own_settings_plays_on_in_a_gridsim_env_made_with_them(name, settings):
    ref = gym.make(name, render_mode="rgb_array", **settings)
    ref.reset(seed=5)
    u = ref.unwrapped
    kwargs = env_kwargs_of(ref)
    assert kwargs == {"env_name": name, "agent_view_size": u.agent_view_size, "max_episode_steps": u.max_steps,
                      "see_through_walls": u.see_through_walls}
    assert state_of(ref)["env_kwargs"] == kwargs
    plain = gym.make("gridsim/" + name).unwrapped  # the id's settings: the state is refused, naming them
    before = plain.get_state()
    with pytest.raises(gridsim.InvalidStateError, match="env_kwargs_of") as caught:
        plain.set_state(state_of(ref))
    assert all(key in str(caught.value) for key in settings if key != "max_steps")
    assert "max_episode_steps" in str(caught.value) or "max_steps" not in settings
    assert repr(plain.get_state()) == repr(before)
    ours = MinigridEnv(render_mode="rgb_array", **kwargs)
    obs, _ = ours.set_state(state_of(ref))
    h.compare_obs(u.gen_obs(), obs, "imported")
    rng = np.random.default_rng(3)
    ends = 0
    for t in range(150):  # random actions, mostly forward: episodes end by truncation too
        a = FORWARD if rng.random() < 0.5 else int(rng.integers(7))
        out_ref, out_ours = ref.step(a), ours.step(a)
        h.compare_step(out_ref, out_ours, f"{name} {settings} step {t}")
        h.compare_state(ref, ours.get_state(), f"{name} {settings} step {t}")
        if out_ref[2] or out_ref[3]:  # unseeded resets of both: the next worlds match too
            ends += 1
            h.compare_obs(ref.reset()[0], ours.reset()[0], f"{name} {settings} reset after step {t}")
    assert ends >= 2 or "max_steps" not in settings  # a limit of its own: truncations, then new worlds
    np.testing.assert_array_equal(ours.render(), ref.render())  # the cells it sees, lit as Minigrid lights them


def test_a_state_of_another_id_is_refused_and_env_kwargs_of_names_only_ids_gridsim_plays():
    ref = gym.make("MiniGrid-DoorKey-8x8-v0")
    ref.reset(seed=0)
    ours = gym.make("gridsim/MiniGrid-Empty-8x8-v0").unwrapped
    with pytest.raises(gridsim.InvalidStateError, match="MiniGrid-DoorKey-8x8-v0"):
        ours.set_state(state_of(ref))
    own = DoorKeyEnv(size=8, max_steps=30)  # made from the class: no id to name
    own.reset(seed=0)
    assert env_kwargs_of(own) == {"agent_view_size": 7, "max_episode_steps": 30, "see_through_walls": False}
    other = gym.make("MiniGrid-DoorKey-8x8-v0").unwrapped
    other.spec = gym.envs.registration.EnvSpec("MiniGrid-NotPlayedHere-v0")  # an id gridsim does not have
    with pytest.raises(gridsim.InvalidArgumentError, match="MiniGrid-NotPlayedHere-v0"):
        env_kwargs_of(other)


def test_state_of_reads_a_wrapped_or_unwrapped_env_alike():
    ref = gym.make("MiniGrid-DoorKey-6x6-v0")
    ref.reset(seed=4)
    a, b = state_of(ref), state_of(ref.unwrapped)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]) if isinstance(a[key], np.ndarray) else a[key] == b[key]
    # A copy: the env's generator moving on leaves it alone.
    before = a["bit_generator"]["state"]["state"]
    ref.reset()
    assert a["bit_generator"]["state"]["state"] == before != state_of(ref)["bit_generator"]["state"]["state"]


def test_state_of_refuses_a_generator_other_than_pcg64():
    ref = gym.make("MiniGrid-DoorKey-5x5-v0")
    ref.reset(seed=0)
    ref.unwrapped.np_random = np.random.Generator(np.random.MT19937(0))
    with pytest.raises(ValueError, match="PCG64"):
        state_of(ref)


def test_gridsim_never_imports_minigrid():
    root = Path(gridsim.__file__).parent
    for path in sorted(root.rglob("*.py")) + sorted(root.rglob("*.pyx")):
        if path.suffix == ".pyx":
            text = path.read_text()
            assert "import minigrid" not in text and "from minigrid" not in text, path
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            assert not any(n == "minigrid" or n.startswith("minigrid.") for n in names), path
    code = ("import sys, gymnasium as gym, gridsim, gridsim.minigrid.interop\n"
            "env = gym.make('gridsim/MiniGrid-DoorKey-5x5-v0'); env.reset(seed=0); env.step(2)\n"
            "assert not any(m == 'minigrid' or m.startswith('minigrid.') for m in sys.modules), 'minigrid imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root.parent)


@pytest.mark.slow
@pytest.mark.parametrize("name", h.IDS)
def test_imported_states_many_seeds(name):
    for seed in range(10, 15):
        h.run_imported(name, seed, 200, warmup=5 * seed, across_resets=seed % 2 == 0)
