"""The minigrid kernel's generator (``_pcg64.h``) against numpy itself, draw for draw.

Every operation runs on a kernel state row (``gridsim.minigrid._kernel.rng_*``) and on
``numpy.random.Generator(PCG64(SeedSequence(seed)))``, and the whole
``bit_generator.state`` dict (state, inc, ``has_uint32``, ``uinteger``) is compared after
each one: seeding, ``integers`` on the 32- and 64-bit paths (the one-value range that draws
nothing, the ranges at the word boundaries, rejection-prone sizes), the half-word cache,
``shuffle``, ``random`` / ``uniform``, and the test vectors of the family's spec (section 1.10).
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding
from hypothesis import given, settings
from hypothesis import strategies as st

from gridsim.minigrid import _kernel
from gridsim.minigrid import rng as mgrng

SEEDS = [0, 1, 7, 42, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64, 2**64 + 7,
         10**30, 2**96, 2**127, 2**128 - 1]


def numpy_generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


def state(row: np.ndarray) -> dict:
    return mgrng.to_numpy_state(row)


def assert_same(row: np.ndarray, gen: np.random.Generator, where: str = ""):
    assert state(row) == gen.bit_generator.state, where


def u32_consumed(seed: int, row: np.ndarray, limit: int = 100_000) -> int:
    """How many 32-bit halves a fresh generator of ``seed`` gave to reach ``row`` (only 32-bit draws made)."""
    probe = numpy_generator(seed)
    target = state(row)
    for m in range(limit):
        if probe.bit_generator.state["state"] == target["state"]:
            return 2 * m - target["has_uint32"]
        probe.bit_generator.random_raw()
    raise AssertionError("the state is not on the generator's stream")


def u64_consumed(seed: int, row: np.ndarray, limit: int = 100_000) -> int:
    """How many 64-bit outputs a fresh generator of ``seed`` gave to reach ``row``."""
    probe = numpy_generator(seed)
    target = state(row)["state"]
    for m in range(limit):
        if probe.bit_generator.state["state"] == target:
            return m
        probe.bit_generator.random_raw()
    raise AssertionError("the state is not on the generator's stream")


# --------------------------------------------------------------------------- seeding


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_gives_numpys_and_gymnasiums_state(seed):
    row = mgrng.seeded(seed)
    want = numpy_generator(seed).bit_generator.state
    assert state(row) == want
    gen, _ = seeding.np_random(seed)
    assert gen.bit_generator.state == want
    assert want["has_uint32"] == 0 and want["uinteger"] == 0


@settings(max_examples=200)
@given(st.integers(0, 2**128 - 1))
def test_seeding_any_seed_below_2_128(seed):
    assert state(mgrng.seeded(seed)) == numpy_generator(seed).bit_generator.state


@pytest.mark.parametrize("seed", [-1, 2**128, 2**200])
def test_seeds_outside_0_to_2_128_are_refused(seed):
    with pytest.raises((ValueError, OverflowError)):
        mgrng.seeded(seed)


def test_a_state_row_has_six_words():
    with pytest.raises(ValueError):
        _kernel.rng_seed(0, np.zeros(5, np.uint64))
    with pytest.raises(ValueError):
        _kernel.rng_integers(np.zeros(7, np.uint64), 0, 5, 1)


def test_reseeding_clears_the_half_word_cache():
    row = mgrng.seeded(3)
    _kernel.rng_integers(row, 0, 7, 1)
    assert state(row)["has_uint32"] == 1
    _kernel.rng_seed(3, row)
    assert state(row) == numpy_generator(3).bit_generator.state


# --------------------------------------------------------------------------- integers

RANGES = [
    (0, 2), (0, 3), (0, 4), (0, 6), (0, 7), (2, 6), (1, 25), (-10, 10), (-3, 250), (1000, 1001 + 2**16),
    (0, 2**31), (0, 2**31 + 1), (0, 3 * 2**30), (0, 2**32 - 1), (0, 2**32), (0, 2**32 + 1), (-2**31, 2**31),
    (5, 5 + 2**32 - 1), (5, 5 + 2**32), (5, 5 + 2**32 + 1), (0, 2**33), (0, 3 * 2**61), (-2**62, 2**62),
    (-2**62, 2**62 + 1), (0, 2**63 - 1), (-2**63, 2**63 - 1), (2**62, 2**63 - 1), (-2**63, 0),
]


@pytest.mark.parametrize(("low", "high"), RANGES, ids=[f"{lo}..{hi}" for lo, hi in RANGES])
@pytest.mark.parametrize("seed", [0, 12345, 2**64 + 1])
def test_integers_match_numpy_draw_by_draw(seed, low, high):
    row, gen = mgrng.seeded(seed), numpy_generator(seed)
    for k in range(40):
        got = _kernel.rng_integers(row, low, high, 1)[0]
        want = gen.integers(low, high)
        assert got == want and low <= got < high, (k, got, want)
        assert_same(row, gen, f"after draw {k}")


@pytest.mark.parametrize("low", [0, 5, -7, 2**62, -2**63, 2**63 - 2])
def test_a_range_of_one_value_draws_nothing(low):
    row, gen = mgrng.seeded(9), numpy_generator(9)
    # With a half word pending, so that a draw-and-discard would show in the cache too.
    _kernel.rng_integers(row, 0, 7, 1)
    gen.integers(0, 7)
    before = state(row)
    assert before["has_uint32"] == 1
    got = _kernel.rng_integers(row, low, low + 1, 5)
    assert (got == low).all() and all(gen.integers(low, low + 1) == low for _ in range(5))
    assert state(row) == before == gen.bit_generator.state


def test_an_empty_range_is_refused_as_numpy_refuses_it():
    with pytest.raises(ValueError):
        numpy_generator(0).integers(3, 3)
    with pytest.raises(ValueError):
        _kernel.rng_integers(mgrng.seeded(0), 3, 3, 1)


@pytest.mark.parametrize(("n", "path"), [(2**31 + 1, "u32"), (3 * 2**30 + 1, "u32"), (2**63 + 1, "u64"),
                                         (3 * 2**62 + 1, "u64")])
def test_rejection_prone_sizes_redraw_as_numpy_does(n, path):
    # Lemire's threshold 2**k mod n is about n / 2 or n / 3 here: many draws are redrawn.
    seed, draws = 77, 300
    low = -2**63 if path == "u64" else 0
    row, gen = mgrng.seeded(seed), numpy_generator(seed)
    for k in range(draws):
        assert _kernel.rng_integers(row, low, low + n, 1)[0] == gen.integers(low, low + n), k
        assert_same(row, gen, f"draw {k}")
    used = u32_consumed(seed, row) if path == "u32" else u64_consumed(seed, row)
    assert used > draws * 1.2, f"only {used} words for {draws} draws: no redraw exercised"


def test_integers_in_bulk_equal_one_at_a_time():
    row, gen = mgrng.seeded(5), numpy_generator(5)
    got = _kernel.rng_integers(row, -4, 9, 500)
    want = np.array([gen.integers(-4, 9) for _ in range(500)])
    np.testing.assert_array_equal(got, want)
    assert_same(row, gen)


# --------------------------------------------------------------------------- the half-word cache


def test_the_half_word_cache_interleaved_with_64_bit_draws():
    seed = 2024
    row, gen = mgrng.seeded(seed), numpy_generator(seed)
    first_u64 = numpy_generator(seed).bit_generator.random_raw()

    def both(kernel_call, numpy_call, where):
        got, want = kernel_call(), numpy_call()
        assert np.asarray(got).tolist() == np.asarray(want).tolist(), where
        assert_same(row, gen, where)
        return state(row)

    s = both(lambda: _kernel.rng_integers(row, 0, 2**32, 1)[0], lambda: gen.integers(0, 2**32), "u32")
    assert s["has_uint32"] == 1 and s["uinteger"] == first_u64 >> 32  # the low half was returned
    s2 = both(lambda: _kernel.rng_raw(row, 1)[0], lambda: gen.bit_generator.random_raw(), "raw64")
    assert (s2["has_uint32"], s2["uinteger"]) == (1, s["uinteger"])  # a 64-bit draw keeps the cache
    s3 = both(lambda: _kernel.rng_uniform(row, 1)[0], lambda: gen.random(), "double")
    assert (s3["has_uint32"], s3["uinteger"]) == (1, s["uinteger"])
    s4 = both(lambda: _kernel.rng_integers(row, 0, 2**40, 1)[0], lambda: gen.integers(0, 2**40), "int 64-bit")
    assert (s4["has_uint32"], s4["uinteger"]) == (1, s["uinteger"])
    both(lambda: _kernel.rng_integers(row, 0, 2**32, 1)[0], lambda: gen.integers(0, 2**32), "cached half")
    assert state(row)["has_uint32"] == 0
    assert state(row)["state"] == s4["state"]  # served from the cache: no step of the LCG
    for k in range(30):
        lo, hi = [(0, 7), (0, 2**35), (3, 4), (-5, 5 + 2**32)][k % 4]
        both(lambda lo=lo, hi=hi: _kernel.rng_integers(row, lo, hi, 1)[0], lambda lo=lo, hi=hi: gen.integers(lo, hi),
             f"mixed {k}")
        if k % 3 == 0:
            both(lambda: _kernel.rng_raw(row, 1)[0], lambda: gen.bit_generator.random_raw(), f"raw {k}")


# --------------------------------------------------------------------------- shuffle, random, uniform


@pytest.mark.parametrize("n", range(21))
@pytest.mark.parametrize("pending", [False, True])
def test_shuffle_of_a_list(n, pending):
    row, gen = mgrng.seeded(n + 100), numpy_generator(n + 100)
    if pending:  # start with a cached half word
        _kernel.rng_integers(row, 0, 3, 1)
        gen.integers(0, 3)
    before = state(row)
    items = np.arange(n, dtype=np.int32)
    want = list(range(n))
    _kernel.rng_shuffle(row, items)
    gen.shuffle(want)
    assert items.tolist() == want
    assert_same(row, gen)
    if n <= 1:
        assert state(row) == before  # nothing to swap: no draw


def test_shuffles_in_a_row_and_of_arbitrary_values():
    row, gen = mgrng.seeded(31), numpy_generator(31)
    for k in range(50):
        values = [(7 * v + k) % 23 - 11 for v in range(k % 17)]
        items = np.array(values, np.int32)
        _kernel.rng_shuffle(row, items)
        gen.shuffle(values)
        assert items.tolist() == values, k
        assert_same(row, gen, f"shuffle {k}")


@pytest.mark.parametrize(("low", "high"), [(0.0, 1.0), (-2.5, 3.0), (10.0, 10.5), (-1e300, 1e300), (5.0, 5.0)])
def test_uniform_is_low_plus_width_times_a_double(low, high):
    row, gen = mgrng.seeded(8), numpy_generator(8)
    for k in range(30):
        u = _kernel.rng_uniform(row, 1)[0]
        got = low + (high - low) * u
        want = gen.uniform(low, high)
        assert np.float64(got).tobytes() == np.float64(want).tobytes(), k
        assert 0.0 <= u < 1.0
        assert_same(row, gen, f"uniform {k}")


def test_random_is_numpys_next_double():
    row, gen = mgrng.seeded(2**70), numpy_generator(2**70)
    got = _kernel.rng_uniform(row, 200)
    want = np.array([gen.random() for _ in range(200)])
    assert got.tobytes() == want.tobytes()
    assert_same(row, gen)


# --------------------------------------------------------------------------- programs of mixed draws

OPS = st.one_of(
    st.tuples(st.just("int"), st.integers(-2**40, 2**40), st.integers(1, 50)),
    st.tuples(st.just("int"), st.integers(-2**62, 2**62), st.integers(1, 2**62 - 1)),
    st.tuples(st.just("int"), st.integers(-100, 100), st.sampled_from([1, 2**32 - 1, 2**32, 2**32 + 1, 2**31 + 1])),
    st.tuples(st.just("raw"), st.just(0), st.just(0)),
    st.tuples(st.just("double"), st.just(0), st.just(0)),
    st.tuples(st.just("shuffle"), st.integers(0, 20), st.just(0)),
)


@settings(max_examples=150)
@given(st.integers(0, 2**128 - 1), st.lists(OPS, min_size=1, max_size=40))
def test_any_program_of_draws_matches_numpy(seed, program):
    row, gen = mgrng.seeded(seed), numpy_generator(seed)
    for k, (op, a, b) in enumerate(program):
        if op == "int":
            assert _kernel.rng_integers(row, a, a + b, 1)[0] == gen.integers(a, a + b), (k, op, a, b)
        elif op == "raw":
            assert _kernel.rng_raw(row, 1)[0] == gen.bit_generator.random_raw(), k
        elif op == "double":
            assert _kernel.rng_uniform(row, 1)[0] == gen.random(), k
        else:
            items, want = np.arange(a, dtype=np.int32), list(range(a))
            _kernel.rng_shuffle(row, items)
            gen.shuffle(want)
            assert items.tolist() == want, k
        assert_same(row, gen, f"op {k} {op}")


# --------------------------------------------------------------------------- the state dict conversions


@settings(max_examples=100)
@given(st.integers(0, 2**128 - 1), st.integers(0, 2**127 - 1), st.booleans(), st.integers(0, 2**32 - 1))
def test_state_rows_round_trip_numpys_dicts(s, half_inc, has, cached):
    gen = np.random.Generator(np.random.PCG64())
    gen.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": s, "inc": 2 * half_inc + 1},
                               "has_uint32": int(has), "uinteger": cached if has else 0}
    want = gen.bit_generator.state
    row = mgrng.from_numpy_state(want)
    assert row.dtype == np.uint64 and row.shape == (6,)
    assert mgrng.to_numpy_state(row) == want
    # And the row continues numpy's stream from there.
    assert _kernel.rng_integers(row, 0, 1000, 1)[0] == gen.integers(0, 1000)
    assert_same(row, gen)


def _good_state() -> dict:
    return numpy_generator(1).bit_generator.state


@pytest.mark.parametrize(("change", "error"), [
    (lambda s: s.update(bit_generator="MT19937"), ValueError),
    (lambda s: s["state"].update(inc=s["state"]["inc"] - 1), ValueError),  # even
    (lambda s: s["state"].update(state=2**128), ValueError),
    (lambda s: s["state"].update(state=-1), ValueError),
    (lambda s: s.update(has_uint32=2), ValueError),
    (lambda s: s.update(uinteger=2**32), ValueError),
    (lambda s: s.pop("uinteger"), KeyError),
    (lambda s: s["state"].pop("inc"), KeyError),
], ids=["not-pcg64", "even-inc", "state-2**128", "negative-state", "has_uint32-2", "uinteger-33-bits",
        "no-uinteger", "no-inc"])
def test_from_numpy_state_refuses_what_is_not_a_pcg64_state(change, error):
    s = _good_state()
    change(s)
    with pytest.raises(error):
        mgrng.from_numpy_state(s)


# --------------------------------------------------------------------------- the spec's test vectors (1.10)

VECTORS = {
    0: {
        "pool": [0xFE40EB07, 0x4F363A36, 0x4EB2009D, 0xC89A7AA7],
        "generate_state": [0xDB2CD7E7B0F478BE, 0xABF4641A2C71BA49, 0x20C6ED6D9D7B8D41, 0x2C4099DE223C39D4],
        "state": 0x1AA1B5345996452D09585EB7A69561E3,
        "inc": 0x418DDADB3AF71A82588133BC447873A9,
        "raw64": [0xA30FEBCFD9C2825F, 0x4510BDF882D9D721, 0x0A7D3DA94ECDE8B8],
        "int07": [5, 4, 3, 1, 2],
        "int26": [5, 4, 4, 3, 3],
        "uniform": [0.6369616873214543, 0.2697867137638703],
        "shuffle": [4, 6, 2, 7, 3, 5, 9, 0, 8, 1],
        "doorkey_state": 0x713825BF6E82250D44730A8BA681ACD,
        "doorkey_uinteger": 0xE9AA5979,
    },
    12345: {
        "pool": [0xF293D734, 0xFD668225, 0xF94FF895, 0x872090A0],
        "generate_state": [0xB5AE6482A03D837C, 0xBBE2996FFA1F7A2F, 0x64E39A9F37158F94, 0x3EBB0F96A013FD73],
        "state": 0x1905E0335AAE96349199B0D09775ADD5,
        "inc": 0xC9C7353E6E2B1F287D761F2D4027FAE7,
        "raw64": [0x3A32B18DB2FFC19D, 0x51171315C9E4C4DE, 0xCC2024823444EFD9],
        "int07": [4, 1, 5, 2, 1],
        "int26": [4, 2, 5, 3, 2],
        "uniform": [0.22733602246716966, 0.31675833970975287],
        "shuffle": [4, 8, 1, 3, 7, 9, 6, 0, 2, 5],
        "doorkey_state": 0xDBBF7DFFA2F002E80B6A312D6B05BBCB,
        "doorkey_uinteger": 0x55334B27,
    },
}


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_spec_vectors_hold_for_numpy(seed):
    v = VECTORS[seed]
    ss = np.random.SeedSequence(seed)
    assert [int(w) for w in ss.pool] == v["pool"]
    assert [int(w) for w in ss.generate_state(4, np.uint64)] == v["generate_state"]


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_spec_vectors_hold_for_the_kernel(seed):
    v = VECTORS[seed]
    s = state(mgrng.seeded(seed))
    assert (s["state"]["state"], s["state"]["inc"], s["has_uint32"], s["uinteger"]) == (v["state"], v["inc"], 0, 0)
    # Each quantity from a fresh generator, as the spec's table lists them.
    assert _kernel.rng_raw(mgrng.seeded(seed), 3).tolist() == v["raw64"]
    assert _kernel.rng_integers(mgrng.seeded(seed), 0, 7, 5).tolist() == v["int07"]
    assert _kernel.rng_integers(mgrng.seeded(seed), 2, 6, 5).tolist() == v["int26"]
    assert _kernel.rng_uniform(mgrng.seeded(seed), 2).tolist() == v["uniform"]
    items = np.arange(10, dtype=np.int32)
    _kernel.rng_shuffle(mgrng.seeded(seed), items)
    assert items.tolist() == v["shuffle"]


def test_spec_worked_example_of_the_first_two_draws():
    row = mgrng.seeded(0)
    assert _kernel.rng_integers(row, 0, 7, 1)[0] == (0xD9C2825F * 7) >> 32 == 5
    assert state(row)["uinteger"] == 0xA30FEBCF
    assert _kernel.rng_integers(row, 0, 7, 1)[0] == (0xA30FEBCF * 7) >> 32 == 4


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_spec_vectors_of_a_doorkey_reset(seed):
    import gymnasium as gym

    import gridsim  # noqa: F401  (registers the ids)

    v = VECTORS[seed]
    env = gym.make("gridsim/MiniGrid-DoorKey-8x8-v0")
    obs, _ = env.reset(seed=seed)
    s = env.unwrapped.get_state()
    assert s["bit_generator"] == {"bit_generator": "PCG64", "state": {"state": v["doorkey_state"], "inc": v["inc"]},
                                  "has_uint32": 1, "uinteger": v["doorkey_uinteger"]}
    grid = s["grid"]
    layouts = {0: (5, (5, 2), (4, 5), (3, 4), 1), 12345: (4, (4, 4), (1, 6), (1, 1), 3)}
    split, door, key, agent, direction = layouts[seed]
    assert [tuple(c) for c in grid[split, :]].count((2, 5, 0)) == 7  # the splitting wall, but its door
    assert tuple(grid[door]) == (4, 4, 2)  # a locked yellow door
    assert tuple(grid[key]) == (5, 4, 0)  # the yellow key
    assert (s["agent_pos"], s["agent_dir"], obs["direction"]) == (agent, direction, direction)
    if seed == 0:
        objects = [[0] * 7] * 3 + [[0, 2, 2, 2, 2, 2, 2], [0, 2, 1, 1, 1, 1, 2], [0, 2, 5, 1, 1, 1, 2],
                                   [0, 2, 1, 1, 1, 1, 2]]
        assert obs["image"][:, :, 0].T.tolist() == objects
        colours = [[0, 5, 5, 5, 5, 5, 5], [0, 5, 0, 0, 0, 0, 5], [0, 5, 4, 0, 0, 0, 5], [0, 5, 0, 0, 0, 0, 5]]
        assert obs["image"][:, :, 1].T.tolist()[3:] == colours
        assert not obs["image"][:, :, 2].any()
    env.close()
