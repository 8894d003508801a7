"""Python tasks (gridsim.minigrid.python_tasks): Minigrid classes that are not built in, played seed for seed.

Each task runs against its own class: single env (the public side-by-side check,
``gridsim.minigrid.checking.compare_with_class``) and vector env against Gymnasium's
``SyncVectorEnv`` of the class in the three autoreset modes, on 1 and 2 threads (the family's
differential harness: every output, every row's state and generator after every step).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

from minigrid_harness import play_pair  # noqa: E402
from python_task_classes import (  # noqa: E402
    BigFetch,
    DrawsOnceMore,
    GoalAwayFromStart,
    LockedRooms,
    OwnReset,
    OwnReward,
    OwnStep,
    PickUpNamed,
)

import gridsim  # noqa: E402
from gridsim.errors import ArgumentTypeError, InvalidArgumentError, InvalidStateError, KernelError  # noqa: E402
from gridsim.minigrid.checking import TaskMismatch, compare_with_class  # noqa: E402
from gridsim.minigrid.python_tasks import PythonTaskEnv, PythonTaskVectorEnv, rule_of  # noqa: E402

TASKS = [GoalAwayFromStart, LockedRooms, PickUpNamed, BigFetch]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.__name__)
def test_a_single_env_plays_its_class_seed_for_seed(task):
    report = compare_with_class(task, seeds=range(10), steps=250)
    assert report.steps == 2500 and report.resets > 10  # episodes ended and restarted unseeded


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("task", TASKS[:3], ids=lambda t: t.__name__)
def test_a_batch_plays_its_class_in_every_autoreset_mode(task, mode, threads):
    num_envs, seed = 6, 11
    ref = gym.vector.SyncVectorEnv([task] * num_envs, autoreset_mode=gym.vector.AutoresetMode(mode))
    ours = gridsim.make(task, num_envs, autoreset_mode=mode, num_threads=threads)
    ours.unwrapped.kernel.thread_min_units = 1  # the threads run at this size too
    assert play_pair(ref, ours, mode, seed, 150, task.__name__).episodes > 0


def test_register_task_makes_single_and_vector_entry_points():
    gridsim.register_task("test/GoalAwayFromStart-v0", GoalAwayFromStart, size=7, overwrite=True)
    env = gym.make("test/GoalAwayFromStart-v0")
    envs = gym.make_vec("test/GoalAwayFromStart-v0", num_envs=3, vectorization_mode="vector_entry_point",
                        autoreset_mode="SameStep")
    try:
        assert isinstance(env.unwrapped, PythonTaskEnv) and isinstance(envs, PythonTaskVectorEnv)
        assert envs.env_name == "test/GoalAwayFromStart-v0" and envs.autoreset_mode.value == "SameStep"
        ref = GoalAwayFromStart(size=7)
        obs, _ = env.reset(seed=5)
        want, _ = ref.reset(seed=5)
        assert np.array_equal(obs["image"], want["image"]) and obs["mission"] == want["mission"]
        batch, _ = envs.reset(seed=4)
        assert np.array_equal(batch["image"][1], want["image"])  # env 1 of seed 4 is seed 5
        assert envs.single_observation_space["image"].shape == (7, 7, 3)
    finally:
        env.close()
        envs.close()
    with pytest.raises(InvalidArgumentError, match="already registered"):
        gridsim.register_task("test/GoalAwayFromStart-v0", GoalAwayFromStart)


def test_the_class_takes_its_arguments_and_gridsim_its_settings():
    envs = gridsim.make(GoalAwayFromStart, 2, size=10, agent_view_size=5, obs_type="image", num_threads=1)
    try:
        assert envs.single_observation_space.shape == (5, 5, 3)
        assert envs.task_env.width == 10 and envs.max_episode_steps == 400
        obs, _ = envs.reset(seed=0)
        want, _ = GoalAwayFromStart(size=10, agent_view_size=5).reset(seed=1)
        assert np.array_equal(obs[1], want["image"])
    finally:
        envs.close()


@pytest.mark.parametrize("task, what", [(OwnReset, "overrides MiniGridEnv.reset"),
                                        (OwnReward, "overrides MiniGridEnv._reward"),
                                        (OwnStep, "step .* is its own")])
def test_a_class_the_kernel_cannot_play_is_refused_in_one_line(task, what):
    with pytest.raises(InvalidArgumentError, match=what) as info:
        gridsim.make(task, 2)
    message = str(info.value)
    assert "\n" not in message and ("gridsim_rule" in message or "_gen_grid" in message)
    with pytest.raises(InvalidArgumentError):
        gridsim.register_task("test/Refused-v0", task)
    assert "test/Refused-v0" not in gym.registry


def test_rules_are_read_from_the_step_or_declared():
    assert rule_of(GoalAwayFromStart) == "reach_goal"
    assert rule_of(BigFetch) == "fetch_target"
    assert rule_of(PickUpNamed) == "pick_up_target"
    with pytest.raises(ArgumentTypeError):
        rule_of(int)

    class Unknown(PickUpNamed):
        gridsim_rule = "follow_instructions"

    with pytest.raises(InvalidArgumentError, match="the rules are"):
        rule_of(Unknown)


def test_the_side_by_side_check_catches_a_task_that_draws_differently():
    ours = PythonTaskEnv(task=DrawsOnceMore)
    with pytest.raises(TaskMismatch, match="generator's state") as info:
        compare_with_class(GoalAwayFromStart, env=ours, seeds=[0], steps=5)
    assert info.value.where == "seed 0 reset"


def test_a_generator_that_raises_is_reported_and_the_row_waits_for_a_reset():
    class Fails(GoalAwayFromStart):
        calls = 0

        def _gen_grid(self, width, height):
            type(self).calls += 1
            if type(self).calls == 3:
                raise RuntimeError("no room")
            super()._gen_grid(width, height)

    envs = gridsim.make(Fails, 4)
    try:
        with pytest.raises(KernelError, match="env 2: Fails._gen_grid failed: RuntimeError: no room"):
            envs.reset(seed=0)
        envs.reset(seed=0)  # generates every row again
        envs.step(np.zeros(4, np.int64))
    finally:
        envs.close()


def test_missions_beyond_strings_are_refused():
    with pytest.raises(InvalidArgumentError, match="mission_format"):
        gridsim.make(GoalAwayFromStart, 2, mission_format="index")


@pytest.mark.parametrize("name, size, task_class", [("MiniGrid-DoorKey-8x8-v0", 12, "DoorKeyEnv"),
                                                     ("MiniGrid-Empty-Random-5x5-v0", 11, "EmptyEnv")])
def test_a_variant_of_a_built_in_id_is_a_spec_and_plays_minigrids_class_of_that_size(name, size, task_class):
    import dataclasses

    import minigrid.envs

    from gridsim.minigrid import spec_of
    from gridsim.minigrid.env import MinigridEnv

    spec = spec_of(name)
    variant = dataclasses.replace(spec, name=f"{name}-{size}", width=size, height=size,
                                  max_steps=spec.max_steps // (spec.width * spec.height) * size * size)
    kwargs = {"size": size} if task_class == "DoorKeyEnv" else {"size": size, "agent_start_pos": None}
    env = MinigridEnv(spec=variant)
    report = compare_with_class(getattr(minigrid.envs, task_class), env=env, seeds=range(4), steps=200, **kwargs)
    assert report.steps == 800
    with pytest.raises(InvalidArgumentError, match="spec.width"):
        gridsim.make(f"gridsim/{name}", 1, spec=dataclasses.replace(spec, width=2))


def test_a_batch_copies_saves_and_loads_with_its_missions(tmp_path):
    import copy

    envs = gridsim.make(PickUpNamed, 4)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        envs.step(rng.integers(0, 7, 4))
    state = envs.state_dict()
    twin, loaded = copy.deepcopy(envs), gridsim.make(PickUpNamed, 4)
    loaded.load_state_dict(state)
    assert loaded.missions == envs.missions == twin.missions
    for a in rng.integers(0, 7, (150, 4)):
        out, out_twin, out_loaded = envs.step(a), twin.step(a), loaded.step(a)
        for other in (out_twin, out_loaded):
            assert np.array_equal(out[0]["image"], other[0]["image"]) and out[0]["mission"] == other[0]["mission"]
            assert np.array_equal(out[1], other[1]) and np.array_equal(out[2], other[2])
    bad = {**state, "missions": "[1]"}
    with pytest.raises(InvalidStateError, match="missions"):
        loaded.load_state_dict(bad)
    few = {**state, "missions": "[]"}  # every row's mission index is then out of range
    with pytest.raises(InvalidStateError):
        loaded.load_state_dict(few)
    for env in (envs, twin, loaded):
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.__name__)
def test_many_seeds_play_as_the_class(task):
    report = compare_with_class(task, seeds=range(100, 130), steps=300)
    assert report.steps == 30 * 300


@pytest.mark.parametrize("name, size, task_class, kwargs", [
    ("MiniGrid-LavaGapS5-v0", 9, "LavaGapEnv", {}),
    ("MiniGrid-GoToDoor-5x5-v0", 11, "GoToDoorEnv", {}),
    ("MiniGrid-Fetch-8x8-N3-v0", 10, "FetchEnv", {"numObjs": 3}),
    ("MiniGrid-GoToObject-8x8-N2-v0", 10, "GoToObjectEnv", {"numObjs": 2}),
    ("MiniGrid-PutNear-8x8-N3-v0", 9, "PutNearEnv", {"numObjs": 3}),
])
def test_every_resizable_task_plays_minigrids_class_at_a_new_size(name, size, task_class, kwargs):
    import dataclasses

    import minigrid.envs

    from gridsim.minigrid import spec_of
    from gridsim.minigrid.env import MinigridEnv

    cls = getattr(minigrid.envs, task_class)
    ref = cls(size=size, **kwargs)
    spec = dataclasses.replace(spec_of(name), name=f"{name}-{size}", width=size, height=size,
                               max_steps=int(ref.max_steps))
    report = compare_with_class(cls, env=MinigridEnv(spec=spec), seeds=range(6), steps=150, size=size, **kwargs)
    assert report.steps == 900


def test_a_variant_outside_what_its_generator_plays_is_refused():
    import dataclasses

    from gridsim.minigrid import spec_of
    from gridsim.minigrid.env import MinigridVectorEnv

    fourrooms, fetch = spec_of("MiniGrid-FourRooms-v0"), spec_of("MiniGrid-Fetch-8x8-N3-v0")
    for bad, what in ((dataclasses.replace(fourrooms, width=21, height=21), "not a size"),
                      (dataclasses.replace(fetch, width=4, height=4), "not a size"),
                      (dataclasses.replace(fetch, width=9, height=10), "not a size"),
                      (dataclasses.replace(fetch, params=(40,)), "params"),
                      (dataclasses.replace(fetch, missions=("one",)), "missions"),
                      (dataclasses.replace(fetch, max_steps=0), "max_steps"),
                      (spec_of("BabyAI-GoToLocal-v0"), "no variants"),
                      ("MiniGrid-Fetch-8x8-N3-v0", "MinigridSpec")):
        with pytest.raises(InvalidArgumentError, match=what):
            MinigridVectorEnv(1, spec=bad)


def test_arguments_the_class_refuses_are_a_gridsim_error():
    with pytest.raises(InvalidArgumentError, match=r"GoalAwayFromStart\(\*\*\{'colour': 1\}\) raised TypeError"):
        gridsim.make(GoalAwayFromStart, 2, colour=1)
