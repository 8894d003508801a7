# cython: language_level=3
"""Per-env random streams (SplitMix64); the same functions as gridsim/engine/rng.py, in C.

Every stream state is a uint64 passed by pointer, owned by a numpy array: no
global state, so envs can be stepped in any order or thread with identical draws.
"""

from libc.math cimport cos, log, sqrt, fabs
from libc.stdint cimport uint32_t, uint64_t

cdef enum:
    TAG_EPISODE = 1
    TAG_TABLE = 2
    DIST_CONST = 0
    DIST_NORMAL = 1
    DIST_ABS_NORMAL = 2
    DIST_UNIFORM = 3

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)

cdef inline uint64_t stream_seed(uint64_t key0, uint64_t key1, uint64_t tag,
                                 uint64_t counter) noexcept nogil:
    return mix64(key0 ^ mix64(key1 ^ mix64(tag * <uint64_t>0x9E3779B97F4A7C15ULL + counter)))

cdef inline uint64_t next_u64(uint64_t* state) noexcept nogil:
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    return mix64(state[0])

cdef inline double next_double(uint64_t* state) noexcept nogil:
    # 53 random bits -> [0, 1)
    return <double>(next_u64(state) >> 11) * (1.0 / 9007199254740992.0)

cdef inline uint64_t next_bounded(uint64_t* state, uint64_t n) noexcept nogil:
    # Mask-and-reject: unbiased, and n <= 1 consumes no draw.
    cdef uint64_t mask, v
    if n <= 1:
        return 0
    mask = n - 1
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    while True:
        v = next_u64(state) & mask
        if v < n:
            return v

cdef inline double next_normal(uint64_t* state) noexcept nogil:
    # Box-Muller from two uniforms; the second value is not cached (the stream stays a pure counter).
    cdef double u1 = 1.0 - next_double(state)
    cdef double u2 = next_double(state)
    return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.141592653589793 * u2)

cdef inline double sample_dist(uint64_t* state, int kind, double a, double b) noexcept nogil:
    if kind == DIST_NORMAL:
        return a + b * next_normal(state)
    if kind == DIST_ABS_NORMAL:
        return fabs(a + b * next_normal(state))
    if kind == DIST_UNIFORM:
        return a + (b - a) * next_double(state)
    return a


# ---- per-env keys: numpy's SeedSequence([seed, mixer_seed]).generate_state(2, uint64) ----
# The same words as numpy (bit_generator.pyx: pool of 4 uint32, hashmix/mix), for seed and
# mixer_seed below 2**64: each is one 32-bit entropy word, or two when it has high bits, so
# the entropy never exceeds the pool and numpy's tail-mixing loop never runs.

cdef inline uint32_t seedseq_hashmix(uint32_t value, uint32_t* hash_const) noexcept nogil:
    value ^= hash_const[0]
    hash_const[0] *= <uint32_t>0x931e8875U
    value *= hash_const[0]
    value ^= value >> 16
    return value

cdef inline uint32_t seedseq_mix(uint32_t x, uint32_t y) noexcept nogil:
    cdef uint32_t result = <uint32_t>0xca01f9ddU * x - <uint32_t>0x4973f715U * y
    result ^= result >> 16
    return result

cdef inline void derive_key(uint64_t seed, uint64_t mixer_seed, uint64_t* key) noexcept nogil:
    cdef uint32_t entropy[4]
    cdef uint32_t pool[4]
    cdef uint32_t words[4]
    cdef uint32_t hash_const = <uint32_t>0x43b0d7e5U
    cdef uint32_t value
    cdef int n = 0, i, j
    entropy[n] = <uint32_t>seed
    n += 1
    if seed >> 32:
        entropy[n] = <uint32_t>(seed >> 32)
        n += 1
    entropy[n] = <uint32_t>mixer_seed
    n += 1
    if mixer_seed >> 32:
        entropy[n] = <uint32_t>(mixer_seed >> 32)
        n += 1
    for i in range(4):
        pool[i] = seedseq_hashmix(entropy[i] if i < n else 0, &hash_const)
    for i in range(4):
        for j in range(4):
            if i != j:
                pool[j] = seedseq_mix(pool[j], seedseq_hashmix(pool[i], &hash_const))
    hash_const = <uint32_t>0x8b51f9ddU  # generate_state: four words cycled from the pool
    for i in range(4):
        value = pool[i] ^ hash_const
        hash_const *= <uint32_t>0x58f38dedU
        value *= hash_const
        value ^= value >> 16
        words[i] = value
    key[0] = <uint64_t>words[0] | (<uint64_t>words[1] << 32)  # little-endian pairs, as numpy
    key[1] = <uint64_t>words[2] | (<uint64_t>words[3] << 32)
