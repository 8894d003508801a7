"""Minigrid's attributes and methods of ``env.unwrapped`` on gridsim's MiniGrid env, against Minigrid 3.2.0's.

``minigrid_harness.compare_attributes`` after every reset and step of a differential run
(``run_single(..., check_attributes=True)``), one id per task: types and values of ``agent_pos``
(the tuple of ints, array or tuple of np.int64 Minigrid's env holds), ``agent_dir``, ``dir_vec``,
``front_pos``, the ``grid`` cell by cell (objects of Minigrid's classes), ``carrying``,
``gen_obs_grid()``, ``hash()``, ``get_frame()``, ... Also: writes that go through (``agent_pos``,
``agent_dir``, ``carrying``, ``step_count``, ``mission``, ``max_steps``) as Minigrid's do, the
writes refused and what they say, free grids and objects, and a batch's ``get_attr``.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import tempfile
import textwrap

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid.core.grid as mg_grid  # noqa: E402
import minigrid.core.world_object as mg_objects  # noqa: E402
import minigrid_harness as h  # noqa: E402
from test_minigrid_diff import ONE_PER_GENERATOR  # noqa: E402

from gridsim.errors import InvalidArgumentError, InvalidStateError, ReadOnlyAttributeError  # noqa: E402
from gridsim.minigrid import MINIGRID_IDS, world  # noqa: E402
from gridsim.minigrid.tasks import AGENT_STARTS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")


@pytest.mark.parametrize("name", ONE_PER_GENERATOR)
def test_attributes_match_minigrid_after_every_step(name):
    h.run_single(name, 2, 40, "seek", check_attributes=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", h.IDS)
def test_attributes_match_minigrid_after_every_step_every_id(name):
    h.run_single(name, 3, 80, "random" if h.IDS.index(name) % 2 else "seek", check_attributes=True, max_steps=30)


def test_every_id_starts_with_minigrids_types():
    # agent_pos's and agent_dir's types follow from how the id's generator puts the agent
    # (gridsim/minigrid/tasks.py's agent_start), until the agent moves.
    for name in h.IDS:
        assert MINIGRID_IDS[name].agent_start in AGENT_STARTS, name
        ref, ours = gym.make(name), gym.make("gridsim/" + name)
        ref.reset(seed=1)
        ours.reset(seed=1)
        for t, action in enumerate((0, 2, 2, 1)):
            for attr in ("agent_pos", "agent_dir"):
                want, got = getattr(ref.unwrapped, attr), getattr(ours.unwrapped, attr)
                assert h._same_value(want, got), (name, t, attr, want, got)
            ref.step(action)
            ours.step(action)


def _pair(name: str, seed: int = 3):
    ref, ours = gym.make(name), gym.make("gridsim/" + name)
    ref.reset(seed=seed)
    ours.reset(seed=seed)
    return ref, ours


def _step_both(ref, ours, actions, where: str):
    out = []
    for k, a in enumerate(actions):
        step = ref.step(a)
        h.compare_step(step, ours.step(a), f"{where} action {k}")
        h.compare_state(ref, ours.unwrapped.get_state(), f"{where} action {k}")
        h.compare_attributes(ref, ours, f"{where} action {k}")
        out.append(step)
    return out


def test_writes_go_through_to_the_world_as_in_minigrid():
    ref, ours = _pair("MiniGrid-DoorKey-8x8-v0")
    r, o = ref.unwrapped, ours.unwrapped
    door = next((k % r.width, k // r.width) for k, c in enumerate(r.grid.grid) if c is not None and c.type == "door")
    # Stand west of the locked door, facing it, holding a key of its colour (one of Minigrid's, and a gridsim one).
    for env in (r, o):
        env.agent_pos = (door[0] - 1, door[1])
        env.agent_dir = 0
        env.step_count = 7
    r.carrying = mg_objects.Key(r.grid.get(*door).color)
    o.carrying = world.Key(o.grid.get(*door).color)
    h.compare_attributes(ref, ours, "after the writes")
    h.compare_state(ref, ours.unwrapped.get_state(), "after the writes")
    assert type(o.agent_pos) is tuple and o.agent_pos == (door[0] - 1, door[1]) and type(o.agent_dir) is int
    _step_both(ref, ours, [5, 2, 2, 1, 2, 2, 2], "through the door")
    # max_steps: this episode's limit and the reward's denominator, as Minigrid's.
    for env in (r, o):
        env.max_steps = env.step_count + 3
    _step_both(ref, ours, [0, 0, 0, 0], "a lower max_steps")
    assert ours.step(0)[3] and o.steps_remaining < 0
    ref.step(0)
    for env in (r, o):
        env.max_steps = 1000
        env.carrying = None
    ref.reset()
    ours.reset()
    assert o.max_steps == r.max_steps == 1000
    _step_both(ref, ours, [2, 2, 1, 2], "the next episode")


def test_mission_writes_take_the_ids_missions():
    ref, ours = _pair("MiniGrid-GoToDoor-8x8-v0")
    other = next(m for m in MINIGRID_IDS["MiniGrid-GoToDoor-8x8-v0"].missions if m != ours.unwrapped.mission)
    ref.unwrapped.mission = other
    ours.unwrapped.mission = other
    h.compare_attributes(ref, ours, "a written mission")
    assert ours.step(0)[0]["mission"] == other
    with pytest.raises(InvalidStateError, match="mission"):
        ours.unwrapped.mission = "win"


def test_writes_that_cannot_go_through_are_refused_and_change_nothing():
    env = gym.make("gridsim/MiniGrid-DoorKey-6x6-v0").unwrapped
    env.reset(seed=0)
    before = env.get_state()
    door = next(c for c in env.grid.grid if c is not None and c.type == "door")
    refusals = {
        "grid.set": lambda: env.grid.set(1, 1, world.Wall()),
        "grid.grid[k] =": lambda: env.grid.grid.__setitem__(7, world.Wall()),
        "grid.grid.append": lambda: env.grid.grid.append(None),
        "grid.width =": lambda: setattr(env.grid, "width", 3),
        "door.is_open =": lambda: setattr(door, "is_open", True),
        "door.is_locked =": lambda: setattr(door, "is_locked", False),
        "env.grid =": lambda: setattr(env, "grid", world.Grid(6, 6)),
        "width =": lambda: setattr(env, "width", 9),
        "height =": lambda: setattr(env, "height", 9),
        "agent_view_size =": lambda: setattr(env, "agent_view_size", 5),
        "see_through_walls =": lambda: setattr(env, "see_through_walls", True),
    }
    for what, write in refusals.items():
        with pytest.raises(ReadOnlyAttributeError, match="read-only") as error:
            write()
        assert "\n" not in str(error.value) and any(w in str(error.value) for w in ("set_state", "gym.make", "id's")), \
            (what, str(error.value))
        assert isinstance(error.value, AttributeError)
    for bad in ({"agent_pos": (99, 1)}, {"step_count": -1}, {"agent_dir": 4}):
        (key, value), = bad.items()
        with pytest.raises(InvalidStateError):
            setattr(env, key, value)
    with pytest.raises(InvalidArgumentError, match="max_steps"):
        env.max_steps = 0
    after = env.get_state()
    assert all(np.array_equal(before[k], after[k]) if isinstance(before[k], np.ndarray) else before[k] == after[k]
               for k in before)


def test_free_grids_and_objects_are_minigrids():
    # Grids made in a program are free, and behave as Minigrid's (its classes too, once loaded).
    ours, ref = world.Grid(6, 5), mg_grid.Grid(6, 5)
    for grid, objects in ((ours, world), (ref, mg_objects)):
        grid.wall_rect(0, 0, 6, 5)
        grid.set(2, 2, objects.Door("red", is_locked=True))
        grid.set(3, 2, objects.Box("blue", objects.Key("green")))
        grid.set(4, 3, objects.Goal())
        grid.vert_wall(1, 1, 2, objects.Lava)
    assert np.array_equal(ours.encode(), ref.encode()) and ours == world.Grid.decode(ref.encode())[0]
    assert isinstance(ours.get(2, 2), mg_objects.Door) and isinstance(ours.get(4, 3), mg_objects.Goal)
    assert ("red", "door") in ours and (None, "goal") in ours and ours.get(3, 2) in ours
    rotated, sliced = ours.rotate_left(), ours.slice(-1, 1, 4, 4)
    assert np.array_equal(rotated.encode(), ref.rotate_left().encode())
    assert np.array_equal(sliced.encode(), ref.slice(-1, 1, 4, 4).encode())
    view, view_ref = ours.slice(0, 0, 5, 5), ref.slice(0, 0, 5, 5)
    assert np.array_equal(view.process_vis((2, 4)), view_ref.process_vis((2, 4)))
    assert np.array_equal(view.encode(), view_ref.encode())
    mask = np.ones((6, 5), bool)
    mask[2, 2] = False
    assert np.array_equal(ours.render(8, (4, 3), 1, mask), ref.render(8, (4, 3), 1, mask))
    assert np.array_equal(world.Grid.render_tile(ours.get(2, 2), 2, True, 8),
                          mg_grid.Grid.render_tile(ref.get(2, 2), 2, True, 8))
    key = world.Key("yellow")
    assert pickle.loads(pickle.dumps(ours.get(3, 2))).contains.color == "green" and key.can_pickup()
    # The env's grid is read-only; its copies are free.
    env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0").unwrapped
    env.reset(seed=0)
    free = env.grid.copy()
    free.set(1, 1, world.Ball("red"))
    door = next(c for c in free.grid if c is not None and c.type == "door")
    door.is_locked = False
    assert free != env.grid and copy.deepcopy(env.grid) == env.grid
    assert not isinstance(env.grid.get(1, 1), world.Ball)
    assert next(c for c in env.grid.grid if c is not None and c.type == "door").is_locked


def test_a_batch_gives_each_envs_attributes():
    name = "MiniGrid-KeyCorridorS3R2-v0"
    ref, ours = h.make_vector_pair(name, 3)
    ref.reset(seed=4)
    ours.reset(seed=4)
    rng = np.random.default_rng(0)
    for t in range(15):
        actions = rng.integers(0, 7, 3)
        ref.step(actions)
        ours.step(actions)
        for attr in ("step_count", "mission", "width", "max_steps", "agent_view_size", "highlight", "tile_size"):
            assert ours.get_attr(attr) == ref.get_attr(attr), (t, attr)
        for attr in ("agent_pos", "front_pos", "dir_vec"):
            assert [tuple(int(v) for v in x) for x in ours.get_attr(attr)] == \
                   [tuple(int(v) for v in x) for x in ref.get_attr(attr)], (t, attr)
        assert [int(d) for d in ours.get_attr("agent_dir")] == [int(d) for d in ref.get_attr("agent_dir")]
        for i, (grid_r, grid_o) in enumerate(zip(ref.get_attr("grid"), ours.get_attr("grid"), strict=True)):
            h._compare_grids(grid_r, grid_o, f"step {t} env {i} grid")
        for i, (c_r, c_o) in enumerate(zip(ref.get_attr("carrying"), ours.get_attr("carrying"), strict=True)):
            h._compare_object(c_r, c_o, f"step {t} env {i} carrying")
    with pytest.raises(ReadOnlyAttributeError, match="set_state"):
        ours.set_attr("agent_pos", [(1, 1)] * 3)
    with pytest.raises(ReadOnlyAttributeError, match="set_state"):
        ours.unwrapped.env_attributes(1).agent_dir = 2


def test_render_follows_minigrids_render_attributes():
    name = "MiniGrid-LavaCrossingS9N1-v0"
    ref = gym.make(name, render_mode="rgb_array")
    ours = gym.make("gridsim/" + name, render_mode="rgb_array")
    ref.reset(seed=1)
    ours.reset(seed=1)
    for settings in ({}, {"tile_size": 8}, {"tile_size": 5, "highlight": False}, {"agent_pov": True, "tile_size": 6}):
        for env in (ref, ours):
            for key, value in settings.items():
                setattr(env.unwrapped, key, value)
        assert np.array_equal(ref.render(), ours.render()), settings


def test_objects_read_after_minigrid_loads_are_of_its_classes():
    # gridsim never imports minigrid; once something does, the world's objects derive from its classes,
    # also those of cells that did not change since they were first read.
    script = textwrap.dedent("""
        import sys
        import gymnasium as gym
        import gridsim
        env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0").unwrapped
        env.reset(seed=0)
        goal = env.grid.get(3, 3)
        assert "minigrid" not in sys.modules and goal.type == "goal"
        import minigrid.core.world_object as mg
        assert not isinstance(goal, mg.Goal) and isinstance(env.grid.get(3, 3), mg.Goal)
        assert isinstance(env.grid.get(0, 0), mg.Wall) and env.grid.get(3, 3).can_overlap()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tempfile.gettempdir())
    assert done.returncode == 0, done.stderr
