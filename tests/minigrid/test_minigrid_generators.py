"""``np_random`` is a MiniGrid env's own stream, as Minigrid's env's is: the idioms that draw from it.

Minigrid's env draws its layouts (and Dynamic-Obstacles its moves) from ``env.np_random``; a
wrapper or a program that draws from it between calls moves the env's stream on. Against
Minigrid 3.2.0, with the generator state compared after every reset and step:

* draws between steps and before unseeded resets (``random``, ``integers``, ``shuffle``,
  ``choice``, ``standard_normal``, raw draws, a state written into ``bit_generator``), in
  Dynamic-Obstacles (whose steps draw) and in layouts drawn at every reset; single env and
  batch (``env_np_random(i)`` against ``SyncVectorEnv``'s ``envs[i].np_random``);
* generators before the first seeded reset: one given (``env.np_random = gen``), and one read
  (OS entropy, which the env continues);
* ``StochasticActionWrapper`` and Gymnasium's ``StickyAction`` on the single env;
* a seeded reset's new generator object, ``np_random_seed``, ``get_attr("np_random")``, and the
  rows never asked for costing nothing.
"""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("minigrid")

import minigrid_harness as h  # noqa: E402
from minigrid.wrappers import StochasticActionWrapper  # noqa: E402

from gridsim.errors import ArgumentTypeError  # noqa: E402
from gridsim.minigrid.rng import to_numpy_state  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")

# Steps that draw (Dynamic-Obstacles), a RoomGrid layout with connect_all, a layout with rejection sampling.
IDS = ["MiniGrid-Dynamic-Obstacles-Random-6x6-v0", "MiniGrid-KeyCorridorS3R2-v0", "MiniGrid-DoorKey-6x6-v0"]


def _draw(gen: np.random.Generator, rng: np.random.Generator) -> None:
    """Some draws of the kinds a wrapper or program makes, picked by ``rng`` (the same on both sides)."""
    kind = int(rng.integers(8))
    if kind == 0:
        gen.random()
    elif kind == 1:
        gen.integers(int(rng.integers(1, 300)), size=int(rng.integers(0, 4)))  # a one-value range draws nothing
    elif kind == 2:
        gen.shuffle(np.arange(int(rng.integers(2, 9))))
    elif kind == 3:
        gen.choice(5, size=2, replace=False)
    elif kind == 4:
        gen.standard_normal(int(rng.integers(1, 3)))
    elif kind == 5:
        gen.bit_generator.random_raw(int(rng.integers(1, 3)))
    elif kind == 6:
        gen.integers(2**40)  # 64-bit bounded draws; 32-bit ones above use and keep the half-word cache
    # kind 7: no draw


def _same_stream(ref: gym.Env, ours: gym.Env, where: str):
    want, got = ref.unwrapped.np_random.bit_generator.state, ours.unwrapped.np_random.bit_generator.state
    if want != got:
        raise h.Mismatch(f"{where}: np_random's state differs\n  minigrid: {want}\n  gridsim:  {got}")
    h.compare_state(ref, ours.unwrapped.get_state(), where)


def test_after_a_seeded_reset_np_random_is_where_the_layout_left_it():
    ref, ours = gym.make("MiniGrid-DoorKey-8x8-v0"), gym.make("gridsim/MiniGrid-DoorKey-8x8-v0")
    ref.reset(seed=0)
    ours.reset(seed=0)
    assert ours.unwrapped.np_random.uniform() == ref.unwrapped.np_random.uniform() == pytest.approx(0.6066357757671799)
    _same_stream(ref, ours, "a draw after reset(seed=0)")
    # And the draw moved the env on: the next unseeded layout is Minigrid's after that draw.
    h.compare_obs(ref.reset()[0], ours.reset()[0], "the next layout")
    _same_stream(ref, ours, "the next layout")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", IDS)
def test_draws_between_steps_and_before_resets_move_the_stream_as_in_minigrid(name, seed):
    ref, ours = gym.make(name, max_steps=12), gym.make("gridsim/" + name, settings={"max_steps": 12})
    rng = np.random.default_rng([seed, 5])
    n = int(ref.action_space.n)
    h.compare_obs(ref.reset(seed=seed)[0], ours.reset(seed=seed)[0], f"{name} reset")
    ends = 0
    for t in range(70):
        pattern = int(rng.integers(1 << 30))
        for env in (ref, ours):
            _draw(env.unwrapped.np_random, np.random.default_rng(pattern))
        a = int(rng.integers(n))
        h.compare_step(ref.step(a), ours.step(a), f"{name} step {t}")
        _same_stream(ref, ours, f"{name} step {t}")
        if rng.random() < 0.15 or ref.unwrapped.step_count >= 12:
            ends += 1
            pattern = int(rng.integers(1 << 30))
            for env in (ref, ours):
                _draw(env.unwrapped.np_random, np.random.default_rng(pattern))
            h.compare_obs(ref.reset()[0], ours.reset()[0], f"{name} step {t} unseeded reset")
            _same_stream(ref, ours, f"{name} step {t} unseeded reset")
    assert ends >= 5


def test_a_state_written_into_np_random_is_the_envs():
    name = "MiniGrid-Dynamic-Obstacles-6x6-v0"
    ref, ours = gym.make(name), gym.make("gridsim/" + name)
    ref.reset(seed=2)
    ours.reset(seed=2)
    state = np.random.default_rng(99).bit_generator.state
    for env in (ref, ours):
        env.unwrapped.np_random.bit_generator.state = state
    for t in range(20):
        h.compare_step(ref.step(t % 3), ours.step(t % 3), f"step {t}")
        _same_stream(ref, ours, f"step {t}")


def test_a_generator_given_before_the_first_reset_draws_the_first_layout():
    name = "MiniGrid-KeyCorridorS3R2-v0"
    ref, ours = gym.make(name), gym.make("gridsim/" + name)
    for env in (ref, ours):
        env.unwrapped.np_random = np.random.default_rng(123)
        env.unwrapped.np_random.integers(10, size=3)
    assert ref.unwrapped.np_random_seed == ours.unwrapped.np_random_seed == -1
    h.compare_obs(ref.reset()[0], ours.reset()[0], "first, unseeded reset")
    _same_stream(ref, ours, "first, unseeded reset")
    assert ours.unwrapped.np_random_seed == -1


def test_a_generator_read_before_any_reset_is_os_entropy_that_the_env_continues():
    name = "MiniGrid-DoorKey-6x6-v0"
    ours = gym.make("gridsim/" + name)
    gen = ours.unwrapped.np_random
    seed = ours.unwrapped.np_random_seed
    assert isinstance(seed, int) and seed > 0
    # Gymnasium's np_random of no seed: Generator(PCG64(SeedSequence(entropy))), entropy its np_random_seed.
    assert gen.bit_generator.state == np.random.default_rng(seed).bit_generator.state
    ref = gym.make(name)
    ref.unwrapped.np_random = np.random.default_rng(seed)
    gen.random()
    ref.unwrapped.np_random.random()
    h.compare_obs(ref.reset()[0], ours.reset()[0], "first, unseeded reset")
    _same_stream(ref, ours, "first, unseeded reset")
    assert ours.unwrapped.np_random is gen and ours.unwrapped.np_random_seed == seed


def test_a_first_unseeded_reset_seeds_from_entropy_as_gymnasium_does():
    ours = gym.make("gridsim/MiniGrid-DoorKey-6x6-v0")
    ours.reset()
    seed = ours.unwrapped.np_random_seed
    ref = gym.make("MiniGrid-DoorKey-6x6-v0")
    ref.reset(seed=seed)
    _same_stream(ref, ours, f"an unseeded first reset (entropy {seed})")


def test_a_seeded_reset_gives_a_new_generator_as_gymnasium_does():
    name = "MiniGrid-DoorKey-6x6-v0"
    ref, ours = gym.make(name), gym.make("gridsim/" + name)
    for env in (ref, ours):
        env.reset(seed=4)
    kept = {"ref": ref.unwrapped.np_random, "ours": ours.unwrapped.np_random}
    assert ours.unwrapped.np_random is kept["ours"]
    for env in (ref, ours):
        env.reset(seed=4)
    assert ours.unwrapped.np_random is not kept["ours"] and ref.unwrapped.np_random is not kept["ref"]
    # The old one is no longer the env's: drawing from it changes nothing.
    kept["ours"].random(5)
    kept["ref"].random(5)
    h.compare_obs(ref.reset()[0], ours.reset()[0], "an unseeded reset after draws from an old generator")
    _same_stream(ref, ours, "an unseeded reset after draws from an old generator")
    assert ours.unwrapped.np_random_seed == ref.unwrapped.np_random_seed == 4
    # An unseeded reset keeps the generator.
    gen = ours.unwrapped.np_random
    ours.reset()
    assert ours.unwrapped.np_random is gen


def test_only_numpys_pcg64_can_be_the_envs_generator():
    env = gym.make("gridsim/MiniGrid-DoorKey-5x5-v0").unwrapped
    env.reset(seed=0)
    before = env.get_state()["bit_generator"]
    for bad in (np.random.Generator(np.random.Philox(1)), np.random.RandomState(1), 3):
        with pytest.raises(ArgumentTypeError, match="PCG64"):
            env.np_random = bad
    assert env.get_state()["bit_generator"] == before


@pytest.mark.parametrize("name", IDS[:2])
def test_stochastic_action_wrapper_and_sticky_action_match_minigrid(name):
    for wrap in (lambda e: StochasticActionWrapper(e, prob=0.5),
                 lambda e: gym.wrappers.StickyAction(e, 0.5, (1, 4))):
        ref = wrap(gym.make(name, max_steps=15))
        ours = wrap(gym.make("gridsim/" + name, settings={"max_steps": 15}))
        h.compare_obs(ref.reset(seed=8)[0], ours.reset(seed=8)[0], f"{name} reset")
        for t in range(150):
            out_ref, out_ours = ref.step(2), ours.step(2)
            h.compare_step(out_ref, out_ours, f"{name} {ref} step {t}")
            _same_stream(ref, ours, f"{name} {ref} step {t}")
            if out_ref[2] or out_ref[3]:
                h.compare_obs(ref.reset()[0], ours.reset()[0], f"{name} step {t} unseeded reset")


# --------------------------------------------------------------------------- batches


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_each_envs_generator_in_a_batch_is_sync_vector_envs_envs_np_random(mode):
    name, N = "MiniGrid-Dynamic-Obstacles-Random-6x6-v0", 4
    ref, ours = h.make_vector_pair(name, N, mode, max_steps=10)
    rng = np.random.default_rng(3)
    ref.reset(seed=60)
    ours.reset(seed=60)
    drawn = [1, 3]  # the envs something draws from; the others' generators are never asked for
    for t in range(60):
        for i in drawn:
            pattern = int(rng.integers(1 << 30))
            _draw(ref.envs[i].unwrapped.np_random, np.random.default_rng(pattern))
            _draw(ours.unwrapped.env_np_random(i), np.random.default_rng(pattern))
        actions = rng.integers(0, 3, N)
        out_ref, out_ours = ref.step(actions), ours.step(actions)
        for k in range(1, 4):
            assert np.array_equal(out_ref[k], out_ours[k]), (t, k)
        for i in range(N):
            h.compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"{mode} step {t} env {i}")
        ended = out_ref[2] | out_ref[3]
        if mode == "Disabled" and ended.any():
            ref.reset(options={"reset_mask": ended.copy()})
            ours.reset(options={"reset_mask": ended.copy()})
    assert sorted(ours.unwrapped.env_generators.handed_out) == drawn
    states = [g.bit_generator.state for g in ours.get_attr("np_random")]
    assert states == [g.bit_generator.state for g in ref.get_attr("np_random")]
    assert ours.get_attr("np_random_seed") == ref.get_attr("np_random_seed") == tuple(range(60, 60 + N))


def test_rows_never_asked_for_cost_nothing_and_batch_draws_are_each_rows():
    envs = gym.make_vec("gridsim/MiniGrid-DoorKey-6x6-v0", num_envs=3,
                        vectorization_mode="vector_entry_point").unwrapped
    envs.reset(seed=1)
    envs.step(np.zeros(3, np.int64))
    envs.get_state(1)
    envs.state_dict()
    assert envs.env_generators.handed_out == {} and envs._generators_out is envs.env_generators.handed_out
    # A batch draw is numpy's draw from each row's state; no generator is made for it.
    rows = np.array([2, 0])
    states = [to_numpy_state(envs.state.bitgen[i]) for i in range(3)]
    got = envs.env_random(rows)
    for k, i in enumerate(rows):
        gen = np.random.Generator(np.random.PCG64())
        gen.bit_generator.state = states[i]
        assert got[k] == gen.random()
        assert to_numpy_state(envs.state.bitgen[i]) == gen.bit_generator.state
    assert envs.env_generators.handed_out == {}
    gen1 = envs.env_np_random(1)
    expected = np.random.Generator(np.random.PCG64())
    expected.bit_generator.state = gen1.bit_generator.state
    assert envs.env_integers(0, 7, np.array([False, True, False]))[0] == expected.integers(0, 7)
    assert gen1.bit_generator.state == expected.bit_generator.state  # the draw in the kernel moved it on


def test_set_attr_gives_each_env_a_generator():
    ref, ours = h.make_vector_pair("MiniGrid-KeyCorridorS3R2-v0", 3)
    for envs in (ref, ours):
        envs.reset(seed=5)
        envs.set_attr("np_random", [np.random.default_rng(40 + i) for i in range(3)])
    assert ours.get_attr("np_random_seed") == ref.get_attr("np_random_seed") == (-1, -1, -1)
    for envs in (ref, ours):
        envs.reset()
    for i in range(3):
        h.compare_state(ref.envs[i], ours.unwrapped.get_state(i), f"env {i} after an unseeded reset")


def test_draws_are_in_state_dicts_copies_and_injected_states():
    envs = gym.make_vec("gridsim/MiniGrid-Dynamic-Obstacles-6x6-v0", num_envs=2,
                        vectorization_mode="vector_entry_point").unwrapped
    envs.reset(seed=9)
    gen = envs.env_np_random(1)
    gen.random(3)
    assert to_numpy_state(envs.state_dict()["bitgen"][1]) == gen.bit_generator.state
    twin = copy.deepcopy(envs)
    again = pickle.loads(pickle.dumps(envs))
    for other in (twin, again):
        assert other.env_np_random(1).bit_generator.state == gen.bit_generator.state
    actions = np.array([1, 2])
    outs = [e.step(actions) for e in (envs, twin, again)]
    assert all(np.array_equal(outs[0][0]["image"], o[0]["image"]) for o in outs[1:])
    assert twin.env_np_random(1).bit_generator.state == gen.bit_generator.state
    # A state injected with a generator state: the generator handed out takes it.
    state = envs.get_state(1)
    state["bit_generator"] = np.random.default_rng(77).bit_generator.state
    envs.set_state(state, index=1)
    assert gen.bit_generator.state == np.random.default_rng(77).bit_generator.state
    assert envs.env_np_random(1) is gen
