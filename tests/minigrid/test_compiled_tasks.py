"""Compiled tasks (gridsim.minigrid.compiled): generators of gridsim's primitives, compiled by Numba.

Each runs against the Minigrid class it copies: the public side-by-side check (single env) and
the family's vector harness in the three autoreset modes on 1 and 2 threads (the generator then
runs on the pool's worker threads).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")
pytest.importorskip("numba")

import compiled_task_generators as gens  # noqa: E402
import minigrid.envs  # noqa: E402
from minigrid_harness import play_pair  # noqa: E402
from python_task_classes import GoalAwayFromStart, LockedRooms, PickUpNamed  # noqa: E402

import gridsim  # noqa: E402
from gridsim.errors import InvalidArgumentError, KernelError  # noqa: E402
from gridsim.minigrid import compiled as gc  # noqa: E402
from gridsim.minigrid.checking import TaskMismatch, compare_with_class  # noqa: E402

CASES = {
    "doorkey": (gens.doorkey, minigrid.envs.DoorKeyEnv, {"size": 8}),
    "goal_away_from_start": (gens.goal_away_from_start, GoalAwayFromStart, {}),
    "pick_up_named": (gens.pick_up_named, PickUpNamed, {}),
    "locked_rooms": (gens.locked_rooms, LockedRooms, {}),
}
COMPILED: dict[str, gc.CompiledTask] = {}


def compiled(name: str) -> gc.CompiledTask:
    if name not in COMPILED:  # Numba compiles each once per session
        COMPILED[name] = CASES[name][0]()
    return COMPILED[name]


@pytest.mark.parametrize("name", CASES)
def test_a_compiled_task_plays_its_class_seed_for_seed(name):
    _, cls, kwargs = CASES[name]
    report = compare_with_class(cls, env=gc.CompiledTaskEnv(task=compiled(name)), seeds=range(10), steps=200,
                                **kwargs)
    assert report.steps == 2000


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["goal_away_from_start", "pick_up_named", "locked_rooms"])
def test_a_compiled_batch_plays_its_class_in_every_autoreset_mode_and_on_threads(name, mode, threads):
    _, cls, kwargs = CASES[name]
    num_envs, seed = 8, 3
    ref = gym.vector.SyncVectorEnv([lambda: cls(**kwargs)] * num_envs, autoreset_mode=gym.vector.AutoresetMode(mode))
    ours = gridsim.make(compiled(name), num_envs, autoreset_mode=mode, num_threads=threads)
    ours.kernel.thread_min_units = 1  # the generator runs on the worker threads at this size too
    assert play_pair(ref, ours, mode, seed, 120, name).episodes > 0


def test_the_side_by_side_check_catches_a_compiled_task_that_draws_differently():
    with pytest.raises(TaskMismatch, match="generator's state"):
        compare_with_class(minigrid.envs.DoorKeyEnv, env=gc.CompiledTaskEnv(task=gens.doorkey(extra_draw=True)),
                           seeds=[0], steps=5, size=8)


def test_a_compiled_task_registers_and_reports_its_compile_time():
    task = compiled("doorkey")
    assert 0 < task.compile_seconds < 60 and task.address
    gridsim.register_task("test/CompiledDoorKey-v0", task, overwrite=True)
    env = gym.make("test/CompiledDoorKey-v0")
    envs = gym.make_vec("test/CompiledDoorKey-v0", num_envs=4, vectorization_mode="vector_entry_point")
    try:
        obs, _ = env.reset(seed=2)
        want, _ = minigrid.envs.DoorKeyEnv(size=8).reset(seed=2)
        assert np.array_equal(obs["image"], want["image"])
        batch, _ = envs.reset(seed=0)
        assert np.array_equal(batch["image"][2], want["image"])
    finally:
        env.close()
        envs.close()


def test_a_generator_that_fails_raises_a_kernel_error():
    @gc.task(width=5, max_steps=10)
    def no_room(w):
        gc.wall_rect(w, 0, 0, 5, 5)
        return gc.place_obj(w, 0, 0, 1, 1, gc.KEY, gc.RED, 0, 0, 3)  # only walls there: runs out of tries

    envs = gridsim.make(no_room, 2)
    with pytest.raises(KernelError, match="env 0: no_room's generator returned -1"):
        envs.reset(seed=0)
    envs.close()


def test_bad_arguments_and_code_numba_cannot_compile_are_refused():
    with pytest.raises(InvalidArgumentError, match="rule"):
        gc.task(width=5, max_steps=10, rule="follow_instructions")
    with pytest.raises(InvalidArgumentError, match="width"):
        gc.task(width=2, max_steps=10)
    with pytest.raises(gc.CompileError, match="Numba cannot compile uses_python"):
        @gc.task(width=5, max_steps=10)
        def uses_python(w):
            return len(open("x").read())


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_many_seeds_of_a_compiled_task_play_as_its_class(name):
    _, cls, kwargs = CASES[name]
    report = compare_with_class(cls, env=gc.CompiledTaskEnv(task=compiled(name)), seeds=range(100, 130), steps=300,
                                **kwargs)
    assert report.steps == 30 * 300


def test_primitives_refuse_what_would_leave_the_grid_and_missions_are_checked():
    @gc.task(width=5, max_steps=10)
    def outside(w):
        gc.wall_rect(w, 0, 0, 5, 5)
        if gc.put(w, 7, 1, gc.KEY, gc.RED, 0) != -1 or gc.set_agent(w, -1, 1, 0) != -1:
            return -1
        if gc.place_obj(w, 5, 0, 3, 3, gc.KEY, gc.RED, 0, 0, -1) != -1:  # a rectangle right of the grid
            return -1
        if gc.place_agent(w, 0, 9, 3, 3, 1, -1) != -1 or gc.room_add_door(w, 0, 0, 0, -1, 0) != -1:
            return -1
        gc.horz_wall(w, 3, 2, 10, gc.WALL, gc.GREY)  # cut at the grid's edge
        return gc.place_agent(w, -3, -3, 5, 5, 1, -1)  # the top clipped to (0, 0), as Minigrid clips it

    envs = gridsim.make(outside, 2)
    envs.reset(seed=0)
    assert envs.get_state(0)["grid"][4, 2, 0] == gc.WALL
    envs.close()

    @gc.task(width=5, max_steps=10, missions=("a", "b"))
    def bad_mission(w):
        gc.set_mission(w, 2)
        return gc.place_agent(w, 1, 1, 3, 3, 1, -1)

    envs = gridsim.make(bad_mission, 1)
    with pytest.raises(KernelError, match="generator returned -1"):
        envs.reset(seed=0)
    envs.close()
