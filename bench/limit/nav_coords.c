/* The limit of a navigation step: gridsim's nav rules for coords observations, with Gymnasium's
 * NEXT_STEP autoreset and episode statistics, as a plain C loop over all envs and all steps.
 *
 * It does the work one `NavKernel.step_i64` call does for `nav/room5_medium` (a shared map, a
 * fixed reward table, discrete moves): the action check before any env changes, clearing the
 * previous call's statistics, one move per env (walls stop it), the reward of the cell reached,
 * the goal and the step limit, the episode statistics, and at the next call the new episode
 * (its per-episode stream seeded from the env's key, a start cell drawn from it). No Python,
 * no threads, no events, no dispatch. `bench/bench_limit.py` compiles it with the kernel's flags
 * and times it beside the kernel on the same level and actions.
 */
#include <stdint.h>
#include <string.h>

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t stream_seed(uint64_t key0, uint64_t key1, uint64_t tag, uint64_t counter) {
    return mix64(key0 ^ mix64(key1 ^ mix64(tag * 0x9E3779B97F4A7C15ULL + counter)));
}

static inline uint64_t next_bounded(uint64_t* s, uint64_t n) {
    uint64_t mask, v;
    if (n <= 1) return 0;
    mask = n - 1;
    mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
    mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
    for (;;) {
        s[0] += 0x9E3779B97F4A7C15ULL;
        v = mix64(s[0]) & mask;
        if (v < n) return v;
    }
}

typedef struct {
    /* the level (shared by every env) */
    const uint8_t* flags;      /* (cells,) bit 0 walkable, bit 1 terminal */
    const float* table;        /* (cells,) reward of each cell */
    const int32_t* cell_rc;    /* (cells, 2) row, col */
    const int32_t* starts;     /* (num_starts,) start cells */
    int64_t num_starts;
    const int64_t* delta;      /* (9,) move code -> cell offset */
    const int8_t* code_of;     /* (num_actions,) action -> move code */
    int64_t num_actions;
    int32_t limit;             /* episode step limit */
    /* per env */
    int32_t* agent_cell;
    int32_t* step_count;
    uint64_t* rng;
    const uint64_t* key;       /* (N, 2) */
    int64_t* episode;
    double* ep_return;
    uint8_t* needs_reset;
    /* outputs */
    int32_t* obs;              /* (N, 2) */
    float* rewards;
    uint8_t* terminated;
    uint8_t* truncated;
    uint8_t* stat_mask;
    double* stat_return;
    int32_t* stat_length;
    int32_t* ended_rows;
    int64_t n_ended;
} NavLimit;

static void start_episode(NavLimit* k, int64_t i) {
    k->rng[i] = stream_seed(k->key[2 * i], k->key[2 * i + 1], 1, (uint64_t)k->episode[i]);
    k->agent_cell[i] = k->starts[next_bounded(&k->rng[i], (uint64_t)k->num_starts)];
    k->step_count[i] = 0;
    k->ep_return[i] = 0.0;
}

/* One call: n envs, actions (n,). Returns the episodes ended, or -1 for an action out of range. */
static int64_t step_once(NavLimit* k, int64_t n, const int64_t* actions) {
    uint64_t valid = 0x8000000000000000ULL, c = (uint64_t)k->num_actions;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)actions[i];
        valid &= ~x & (x - c);
    }
    if (!(valid >> 63)) return -1;
    for (int64_t j = 0; j < k->n_ended; j++) {  /* statistics are set only where episodes ended */
        int32_t r = k->ended_rows[j];
        k->stat_mask[r] = 0;
        k->stat_return[r] = 0.0;
        k->stat_length[r] = 0;
    }
    for (int64_t i = 0; i < n; i++) {
        if (k->needs_reset[i]) {
            k->needs_reset[i] = 0;
            k->episode[i] += 1;
            start_episode(k, i);
            k->rewards[i] = 0.0f;
            k->terminated[i] = 0;
            k->truncated[i] = 0;
            memcpy(k->obs + 2 * i, k->cell_rc + 2 * k->agent_cell[i], 8);
            continue;
        }
        int64_t cell = k->agent_cell[i];
        int64_t target = cell + k->delta[k->code_of[actions[i]]];
        cell += (target - cell) * (k->flags[target] & 1);
        k->agent_cell[i] = (int32_t)cell;
        uint8_t f = k->flags[cell];
        float rew = k->table[cell];
        int32_t steps = k->step_count[i];
        steps += steps < 0x7FFFFFFF;
        k->step_count[i] = steps;
        int term = (f >> 1) & 1;
        int trunc = (uint32_t)(k->limit - 1) < (uint32_t)steps;
        k->ep_return[i] += rew;
        k->rewards[i] = rew;
        k->terminated[i] = (uint8_t)term;
        k->truncated[i] = (uint8_t)trunc;
        if (term | trunc) {
            k->stat_mask[i] = 1;
            k->stat_return[i] = k->ep_return[i];
            k->stat_length[i] = steps;
            k->needs_reset[i] = 1;
        }
        memcpy(k->obs + 2 * i, k->cell_rc + 2 * cell, 8);
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        k->ended_rows[m] = (int32_t)i;
        m += k->stat_mask[i];
    }
    k->n_ended = m;
    return m;
}

/* Run `steps` calls of actions (steps, n) from the envs' current state. Returns the episodes
 * ended over all calls, or -1. */
int64_t nav_limit_run(NavLimit* k, int64_t n, int64_t steps, const int64_t* actions) {
    int64_t total = 0;
    for (int64_t t = 0; t < steps; t++) {
        int64_t e = step_once(k, n, actions + t * n);
        if (e < 0) return -1;
        total += e;
    }
    return total;
}
