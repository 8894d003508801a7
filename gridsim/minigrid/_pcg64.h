/* numpy's random generator, bit for bit, one state per env: what Minigrid's np_random draws.
 *
 * SeedSequence(seed) -> PCG64 (the 128-bit LCG with the XSL-RR output and its 32-bit
 * half-word cache), and the Generator methods Minigrid calls: integers(low, high) (Lemire's
 * method on the 32- and 64-bit paths; a range of one value draws nothing), shuffle's
 * random_interval (masked rejection) and uniform's next_double. Sources: numpy v2.4.6,
 * numpy/random/bit_generator.pyx, _pcg64.pyx, src/pcg64/pcg64.{c,h}, _bounded_integers.pyx.in,
 * src/distributions/distributions.c (cited line by line in the family's spec, section 1).
 *
 * The state is six uint64 words, one row of MinigridState.bitgen, so that a batch's generators
 * are a plain (N, 6) uint64 array: (state high, state low, inc high, inc low, has_uint32,
 * uinteger), the fields of numpy.random.PCG64().state.
 */
#ifndef GRIDSIM_MINIGRID_PCG64_H
#define GRIDSIM_MINIGRID_PCG64_H

#include <stdint.h>

typedef unsigned __int128 mg_u128;

typedef struct {
    uint64_t state_hi, state_lo, inc_hi, inc_lo, has_uint32, uinteger;
} mg_pcg64;

#define MG_PCG_MULT (((mg_u128)0x2360ED051FC65DA4ULL << 64) | (mg_u128)0x4385DF649FCCF645ULL)

static inline mg_u128 mg_join(uint64_t hi, uint64_t lo) { return ((mg_u128)hi << 64) | lo; }

/* SeedSequence(seed).generate_state(4, uint64) for an integer seed below 2**128 given as two
 * little-endian 64-bit words; entropy words are the seed's 32-bit words (0 -> [0]). */
static inline void mg_seed_sequence(uint64_t seed_lo, uint64_t seed_hi, uint64_t out[4]) {
    uint32_t ent[4], pool[4], w[8];
    int n = 0, i, src, dst;
    uint32_t h = 0x43b0d7e5u;
    mg_u128 s = mg_join(seed_hi, seed_lo);
    if (s == 0) {
        ent[n++] = 0;
    }
    while (s > 0) {
        ent[n++] = (uint32_t)(s & 0xffffffffu);
        s >>= 32;
    }
#define MG_HASHMIX(value, out_) do { uint32_t v_ = (value); v_ ^= h; h *= 0x931e8875u; v_ *= h; \
        v_ ^= v_ >> 16; (out_) = v_; } while (0)
#define MG_MIX(x, y) ({ uint32_t r_ = 0xca01f9ddu * (x) - 0x4973f715u * (y); r_ ^ (r_ >> 16); })
    for (i = 0; i < 4; i++) {
        MG_HASHMIX(i < n ? ent[i] : 0u, pool[i]);
    }
    for (src = 0; src < 4; src++) {
        for (dst = 0; dst < 4; dst++) {
            if (src != dst) {
                uint32_t hm;
                MG_HASHMIX(pool[src], hm);
                pool[dst] = MG_MIX(pool[dst], hm);
            }
        }
    }
    /* A seed below 2**128 has at most 4 entropy words: the loop over ent[4:] never runs. */
    h = 0x8b51f9ddu;
    for (i = 0; i < 8; i++) {
        uint32_t v = pool[i & 3];
        v ^= h;
        h *= 0x58f38dedu;
        v *= h;
        v ^= v >> 16;
        w[i] = v;
    }
#undef MG_HASHMIX
#undef MG_MIX
    for (i = 0; i < 4; i++) {
        out[i] = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
    }
}

/* Generator(PCG64(SeedSequence(seed))): gymnasium's seeding.np_random(seed). */
static inline void mg_pcg64_seed(mg_pcg64 *g, uint64_t seed_lo, uint64_t seed_hi) {
    uint64_t v[4];
    mg_u128 initstate, initseq, inc, state;
    mg_seed_sequence(seed_lo, seed_hi, v);
    initstate = mg_join(v[0], v[1]);
    initseq = mg_join(v[2], v[3]);
    inc = (initseq << 1) | 1u;
    state = inc;                      /* 0 * MULT + inc */
    state += initstate;
    state = state * MG_PCG_MULT + inc;
    g->state_hi = (uint64_t)(state >> 64);
    g->state_lo = (uint64_t)state;
    g->inc_hi = (uint64_t)(inc >> 64);
    g->inc_lo = (uint64_t)inc;
    g->has_uint32 = 0;
    g->uinteger = 0;
}

static inline uint64_t mg_next_u64(mg_pcg64 *g) {
    mg_u128 state = mg_join(g->state_hi, g->state_lo) * MG_PCG_MULT + mg_join(g->inc_hi, g->inc_lo);
    uint64_t hi = (uint64_t)(state >> 64), lo = (uint64_t)state;
    unsigned rot = (unsigned)(hi >> 58);
    uint64_t x = hi ^ lo;
    g->state_hi = hi;
    g->state_lo = lo;
    return (x >> rot) | (x << ((-rot) & 63));
}

/* The low half of a fresh u64 first; its high half is the next call's. */
static inline uint32_t mg_next_u32(mg_pcg64 *g) {
    uint64_t x;
    if (g->has_uint32) {
        g->has_uint32 = 0;
        return (uint32_t)g->uinteger;
    }
    x = mg_next_u64(g);
    g->has_uint32 = 1;
    g->uinteger = x >> 32;
    return (uint32_t)x;
}

/* A fresh u64; the u32 cache is neither used nor cleared. */
static inline double mg_next_double(mg_pcg64 *g) {
    return (double)(mg_next_u64(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* Generator.integers(low, high) for low < high (int64, endpoint False): Lemire's method. */
static inline int64_t mg_integers(mg_pcg64 *g, int64_t low, int64_t high) {
    uint64_t rng = (uint64_t)(high - 1) - (uint64_t)low;
    if (rng == 0) {
        return low;
    }
    if (rng <= 0xFFFFFFFFULL) {
        uint32_t r32 = (uint32_t)rng, n, t;
        uint64_t m;
        if (r32 == 0xFFFFFFFFu) {
            return low + (int64_t)mg_next_u32(g);
        }
        n = r32 + 1u;
        m = (uint64_t)mg_next_u32(g) * n;
        if ((uint32_t)m < n) {
            t = (0xFFFFFFFFu - r32) % n;
            while ((uint32_t)m < t) {
                m = (uint64_t)mg_next_u32(g) * n;
            }
        }
        return low + (int64_t)(m >> 32);
    } else {
        uint64_t n, t;
        mg_u128 m;
        if (rng == 0xFFFFFFFFFFFFFFFFULL) {
            return low + (int64_t)mg_next_u64(g);
        }
        n = rng + 1;
        m = (mg_u128)mg_next_u64(g) * n;
        if ((uint64_t)m < n) {
            t = (0xFFFFFFFFFFFFFFFFULL - rng) % n;
            while ((uint64_t)m < t) {
                m = (mg_u128)mg_next_u64(g) * n;
            }
        }
        return low + (int64_t)(m >> 64);
    }
}

/* random_interval(max) of Generator.shuffle: masked rejection; max 0 draws nothing. */
static inline uint64_t mg_random_interval(mg_pcg64 *g, uint64_t max) {
    uint64_t mask = max, v;
    if (max == 0) {
        return 0;
    }
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    if (max <= 0xFFFFFFFFULL) {
        while ((v = (mg_next_u32(g) & mask)) > max) {
        }
    } else {
        while ((v = (mg_next_u64(g) & mask)) > max) {
        }
    }
    return v;
}

/* Generator.shuffle of n int items: for i = n-1 down to 1, swap items i and random_interval(i). */
static inline void mg_shuffle_int(mg_pcg64 *g, int *items, int n) {
    int i, j, tmp;
    for (i = n - 1; i >= 1; i--) {
        j = (int)mg_random_interval(g, (uint64_t)i);
        tmp = items[i];
        items[i] = items[j];
        items[j] = tmp;
    }
}

#endif
