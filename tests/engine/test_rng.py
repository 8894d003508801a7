"""The kernel's random streams equal ``gridsim.engine.rng`` bit for bit, and look random.

``gridsim/engine/rng.py`` is the readable definition of every draw; the kernel implements
the same functions in C (``gridsim/engine/_rng.pxd``) and exposes test hooks
(``rng_stream``, ``rng_samples``, ``rng_stream_seed``). Bounded draws are not
exposed directly; they are reached through resets (the start cell and, with
``randomize_goals``, the goal cell are bounded draws from the episode stream).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridsim import _core
from gridsim.engine import rng as pyrng
from gridsim.envs import NavVectorEnv

U64 = st.integers(min_value=0, max_value=pyrng.MASK64)
KINDS = {
    "const": pyrng.DIST_CONST,
    "normal": pyrng.DIST_NORMAL,
    "abs_normal": pyrng.DIST_ABS_NORMAL,
    "uniform": pyrng.DIST_UNIFORM,
}
FINITE = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
SIGMA = st.floats(min_value=0.0, max_value=1e3, allow_nan=False, allow_infinity=False)


def py_stream(state: int, n: int) -> np.ndarray:
    s = pyrng.Stream(state)
    return np.array([s.next_u64() for _ in range(n)], dtype=np.uint64)


def py_samples(state: int, kind: int, a: float, b: float, n: int) -> np.ndarray:
    s = pyrng.Stream(state)
    return np.array([s.sample(kind, a, b) for _ in range(n)], dtype=np.float64)


def assert_bits_equal(actual: np.ndarray, expected: np.ndarray):
    """Exact equality of float64 arrays, bit for bit (so -0.0 != 0.0 and NaN == NaN)."""
    assert actual.dtype == expected.dtype == np.float64
    np.testing.assert_array_equal(actual.view(np.uint64), expected.view(np.uint64))


# ------------------------------------------------------------------ raw streams


@pytest.mark.parametrize("state", [0, 1, 42, 2**63, pyrng.MASK64, pyrng.GOLDEN])
def test_rng_stream_fixed_states_match_python(state):
    out = _core.rng_stream(state, 1000)
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(out, py_stream(state, 1000))


def test_rng_stream_known_values_are_pinned():
    # SplitMix64 from state 0: the reference values of Vigna's splitmix64.c.
    out = _core.rng_stream(0, 3)
    np.testing.assert_array_equal(
        out,
        np.array([0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F], dtype=np.uint64),
    )


@settings(deadline=None, max_examples=60)
@given(state=U64, n=st.integers(0, 300))
def test_rng_stream_random_states_match_python(state, n):
    out = _core.rng_stream(state, n)
    assert out.shape == (n,)
    np.testing.assert_array_equal(out, py_stream(state, n))


def test_mix64_is_a_bijection_on_a_sample():
    # Sanity of the Python definition the kernel is checked against.
    values = {pyrng.mix64(z) for z in range(4096)}
    assert len(values) == 4096


# ------------------------------------------------------------------ stream seeds


@pytest.mark.parametrize("tag", [pyrng.TAG_EPISODE, pyrng.TAG_TABLE, 0, 7])
@pytest.mark.parametrize("counter", [0, 1, 2, 1000, 2**40, pyrng.MASK64])
def test_rng_stream_seed_fixed_inputs_match_python(tag, counter):
    for key0, key1 in [(0, 0), (1, 2), (pyrng.MASK64, 12345), (2**63, 2**63 + 1)]:
        assert _core.rng_stream_seed(key0, key1, tag, counter) == pyrng.stream_seed(
            key0, key1, tag, counter
        )


@settings(deadline=None, max_examples=200)
@given(key0=U64, key1=U64, tag=st.integers(0, 16), counter=U64)
def test_rng_stream_seed_random_inputs_match_python(key0, key1, tag, counter):
    assert _core.rng_stream_seed(key0, key1, tag, counter) == pyrng.stream_seed(
        key0, key1, tag, counter
    )


def test_rng_stream_seed_streams_differ_by_tag_and_counter():
    key0, key1 = (int(v) for v in pyrng.derive_keys([0])[0])
    seeds = {
        pyrng.stream_seed(key0, key1, tag, e)
        for tag in (pyrng.TAG_EPISODE, pyrng.TAG_TABLE)
        for e in range(100)
    }
    assert len(seeds) == 200


def test_derive_keys_match_seed_sequence():
    keys = pyrng.derive_keys([0, 1, 12345], mixer_seed=7)
    assert keys.dtype == np.uint64 and keys.shape == (3, 2)
    for row, s in zip(keys, [0, 1, 12345], strict=True):
        expected = np.random.SeedSequence([s, 7]).generate_state(2, np.uint64)
        np.testing.assert_array_equal(row, expected)


EDGE_SEEDS = [0, 1, 2**32 - 1, 2**32, 2**63, pyrng.MASK64]


@pytest.mark.parametrize("mixer_seed", [0, 7, 2**32 - 1, 2**32, 2**40 + 5, pyrng.MASK64])
def test_kernel_keys_match_seed_sequence_at_the_word_boundaries(mixer_seed):
    # Seeds and mixers of one and of two 32-bit words, up to the largest 64-bit value.
    seeds = np.array(EDGE_SEEDS + list(range(2, 50)), dtype=np.uint64)
    keys = np.empty((len(seeds), 2), np.uint64)
    _core.derive_keys(seeds, mixer_seed, keys)
    np.testing.assert_array_equal(keys, pyrng.derive_keys([int(s) for s in seeds], mixer_seed))


@settings(max_examples=200, deadline=None)
@given(st.lists(U64, min_size=1, max_size=20), U64)
def test_kernel_keys_match_python_for_random_seeds(seeds, mixer_seed):
    keys = np.empty((len(seeds), 2), np.uint64)
    _core.derive_keys(np.array(seeds, dtype=np.uint64), mixer_seed, keys)
    np.testing.assert_array_equal(keys, pyrng.derive_keys(seeds, mixer_seed))


@pytest.mark.skipif(not _core.THREADS, reason="gridsim was built without threads")
def test_kernel_keys_are_the_same_on_threads():
    seeds = np.arange(3 * _core.DERIVE_KEYS_THREAD_MIN, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    one, three = (np.empty((len(seeds), 2), np.uint64) for _ in range(2))
    _core.derive_keys(seeds, 3, one, 1)
    _core.derive_keys(seeds, 3, three, 3)
    np.testing.assert_array_equal(one, three)
    np.testing.assert_array_equal(one[::4099], pyrng.derive_keys([int(s) for s in seeds[::4099]], 3))


def test_kernel_keys_refuse_a_wrong_output_shape():
    with pytest.raises(ValueError, match="shape"):
        _core.derive_keys(np.zeros(3, np.uint64), 0, np.empty((2, 2), np.uint64))


@pytest.mark.parametrize("seed", [
    5,
    [5, 6, None, 2**64 + 3],                    # None continues; a seed past 64 bits
    np.array([9, 2**63, 0, 1], dtype=np.uint64),
    np.array([9, 3, 0, 1], dtype=np.int32),
    (2**64 - 2),                                # seed + i passes 2**64
])
def test_reset_keys_are_seed_sequence_keys_whatever_the_seed_form(seed):
    envs = NavVectorEnv(4, level="nav/room1_small", mixer_seed=11)
    envs.reset(seed=0)
    envs.reset(seed=seed)
    if isinstance(seed, int):
        seeds = [seed + i for i in range(4)]
    else:
        seeds = [None if s is None else int(s) for s in seed]
    for i, s in enumerate(seeds):
        expected = pyrng.derive_keys([i if s is None else s], 11)[0]  # a None row keeps its seed-0 key
        np.testing.assert_array_equal(envs.state.key[i], expected)
        assert envs.state.episode[i] == (1 if s is None else 0)
    assert envs.state.seeds.tolist() == [i if s is None else s for i, s in enumerate(seeds)]
    assert all(type(s) is int for s in envs.state.seeds)


def test_a_mixer_seed_past_64_bits_still_gives_seed_sequence_keys():
    envs = NavVectorEnv(3, level="nav/room1_small", mixer_seed=2**70 + 1)
    envs.reset(seed=4)
    np.testing.assert_array_equal(envs.state.key, pyrng.derive_keys([4, 5, 6], 2**70 + 1))


# ------------------------------------------------------------------ distributions


@pytest.mark.parametrize(
    "kind,a,b",
    [
        ("const", -1.0, 0.0),
        ("const", 0.0, 5.0),
        ("normal", 0.0, 1.0),
        ("normal", -1.0, 0.05),
        ("abs_normal", 0.0, 1.0),
        ("abs_normal", -3.0, 2.0),
        ("uniform", 0.0, 1.0),
        ("uniform", -2.5, 7.25),
        ("uniform", 3.0, 3.0),
    ],
)
def test_rng_samples_each_kind_matches_python_over_many_draws(kind, a, b):
    for state in (0, 99, 2**64 - 1):
        out = _core.rng_samples(state, KINDS[kind], a, b, 5000)
        assert out.dtype == np.float64 and out.shape == (5000,)
        assert_bits_equal(out, py_samples(state, KINDS[kind], a, b, 5000))


@settings(deadline=None, max_examples=150)
@given(state=U64, kind=st.sampled_from(sorted(KINDS)), a=FINITE, b=SIGMA, n=st.integers(0, 64))
def test_rng_samples_random_parameters_match_python(state, kind, a, b, n):
    if kind == "uniform":
        b = a + b
    out = _core.rng_samples(state, KINDS[kind], a, b, n)
    assert_bits_equal(out, py_samples(state, KINDS[kind], a, b, n))


def test_rng_samples_const_consumes_no_draws():
    # A constant distribution draws nothing: interleaving it leaves the stream unchanged.
    s = pyrng.Stream(5)
    s.sample(pyrng.DIST_CONST, 3.0, 0.0)
    assert s.state == 5
    np.testing.assert_array_equal(_core.rng_samples(5, pyrng.DIST_CONST, 3.0, 9.0, 4),
                                  np.full(4, 3.0))


def test_rng_samples_normal_consumes_two_uniforms():
    # Box-Muller without a cached second value: each normal advances the stream twice.
    s = pyrng.Stream(11)
    s.normal()
    assert s.state == (11 + 2 * pyrng.GOLDEN) & pyrng.MASK64
    u = pyrng.Stream(11)
    u1 = 1.0 - u.uniform()
    u2 = u.uniform()
    expected = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
    out = _core.rng_samples(11, pyrng.DIST_NORMAL, 0.0, 1.0, 1)
    assert_bits_equal(out, np.array([expected]))


# ------------------------------------------------------------------ bounded draws (via resets)


def _multi_start_map(n_starts: int, n_goals: int) -> str:
    """A 3-row corridor with n_starts 'S' then n_goals '0' cells."""
    inner = "S" * n_starts + " " + "0" * n_goals
    wall = "#" * (len(inner) + 2)
    return "\n".join([wall, "#" + inner + "#", wall])


@pytest.mark.parametrize("n_starts,n_goals", [(1, 1), (2, 1), (3, 2), (5, 3), (7, 5), (9, 1)])
def test_reset_bounded_draws_match_python(n_starts, n_goals):
    n = 64
    envs = NavVectorEnv(n, world_map=_multi_start_map(n_starts, n_goals), randomize_goals=True)
    level = envs.level
    starts = [tuple(int(v) for v in c) for c in level.start_cells]
    goals = [tuple(int(v) for v in c) for c in level.goal_cells]
    seen_starts, seen_goals = set(), set()
    obs, _ = envs.reset(seed=1000)
    for episode in range(4):
        if episode:
            obs, _ = envs.reset()
        for i in range(n):
            state = envs.get_state(i)
            assert state["episode"] == episode
            s = pyrng.Stream(pyrng.stream_seed(*state["key"], pyrng.TAG_EPISODE, episode))
            k_start = s.bounded(n_starts)
            k_goal = s.bounded(n_goals)
            assert state["pos"] == starts[k_start]
            np.testing.assert_array_equal(obs[i], np.array(starts[k_start], np.int32))
            assert state["rng"] == s.state
            r, c = goals[k_goal]
            assert state["tiles"][r][c] == "0"
            assert sum(row.count("0") for row in state["tiles"]) == 1
            seen_starts.add(k_start)
            seen_goals.add(k_goal)
    assert seen_starts == set(range(n_starts))
    assert seen_goals == set(range(n_goals))


@settings(deadline=None, max_examples=100)
@given(state=U64, n=st.integers(0, 1000))
def test_bounded_python_draws_are_in_range(state, n):
    s = pyrng.Stream(state)
    values = [s.bounded(n) for _ in range(20)]
    assert all(0 <= v < max(n, 1) for v in values)
    if n <= 1:
        assert s.state == state  # no draw consumed


# ------------------------------------------------------------------ statistical sanity


def test_uniform_draws_have_the_right_mean_and_range():
    x = _core.rng_samples(20240601, pyrng.DIST_UNIFORM, 0.0, 1.0, 200_000)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.005
    assert abs(x.var() - 1.0 / 12.0) < 0.002
    hist, _ = np.histogram(x, bins=10, range=(0.0, 1.0))
    assert np.all(np.abs(hist / len(x) - 0.1) < 0.005)


def test_uniform_interval_draws_stay_in_the_interval():
    x = _core.rng_samples(3, pyrng.DIST_UNIFORM, -2.0, 6.0, 100_000)
    assert x.min() >= -2.0 and x.max() < 6.0
    assert abs(x.mean() - 2.0) < 0.05


def test_normal_draws_have_the_right_mean_and_std():
    x = _core.rng_samples(7, pyrng.DIST_NORMAL, 0.0, 1.0, 200_000)
    assert np.all(np.isfinite(x))
    assert abs(x.mean()) < 0.01
    assert abs(x.std() - 1.0) < 0.01
    assert abs(np.mean(np.abs(x) < 1.0) - 0.6827) < 0.01
    y = _core.rng_samples(8, pyrng.DIST_NORMAL, -1.0, 0.05, 100_000)
    assert abs(y.mean() + 1.0) < 0.002
    assert abs(y.std() - 0.05) < 0.002


def test_abs_normal_draws_are_non_negative_with_half_normal_mean():
    x = _core.rng_samples(9, pyrng.DIST_ABS_NORMAL, 0.0, 1.0, 200_000)
    assert x.min() >= 0.0
    assert abs(x.mean() - math.sqrt(2.0 / math.pi)) < 0.01


def test_stream_bits_are_balanced():
    x = _core.rng_stream(12345, 20_000)
    bits = np.unpackbits(x.view(np.uint8))
    assert abs(bits.mean() - 0.5) < 0.005


def test_bounded_draws_are_roughly_uniform():
    s = pyrng.Stream(77)
    counts = np.bincount([s.bounded(5) for _ in range(50_000)], minlength=5)
    assert counts.shape == (5,)
    assert np.all(np.abs(counts / 50_000 - 0.2) < 0.01)
