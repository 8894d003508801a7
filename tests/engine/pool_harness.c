/* A stress harness for gridsim/engine/_pool.h, built and run by tests/engine/test_thread_pool.py
 * (under ThreadSanitizer where the compiler has it).
 *
 *   pool_harness CALLS SEED
 *
 * Two caller threads each make CALLS calls of gridsim_parallel_for with random thread counts
 * (1 to 6), sizes (0 to 5,000 units) and chunk sizes, some with a worker spin of 0 (every wait
 * sleeps), some with a unit that takes long (a worker is held mid-chunk), and the fallback to
 * one thread switched on and off between calls (never waiting for the other's); each chunk counts
 * its units, and every unit of every call must have run exactly once, inside the call. Prints
 * "ok CALLS" and exits 0, or names the first wrong unit and exits 1.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef ptrdiff_t Py_ssize_t;
#ifndef GRIDSIM_THREADS
#define GRIDSIM_THREADS 1
#endif
#include "../../gridsim/engine/_pool.h"

#define MAX_UNITS 5000

typedef struct {
    int counts[MAX_UNITS];
    Py_ssize_t slow_unit;  /* a unit that sleeps 200 us (-1: none) */
} job_t;

static void count_units(void *arg, Py_ssize_t lo, Py_ssize_t hi) {
    job_t *job = arg;
    for (Py_ssize_t u = lo; u < hi; u++) {
        __atomic_fetch_add(&job->counts[u], 1, __ATOMIC_RELAXED);
        if (u == job->slow_unit) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

typedef struct {
    int calls;
    uint64_t rng;
    int failed;
} caller_t;

static uint64_t next_random(uint64_t *s) {  /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void *caller_main(void *arg) {
    caller_t *c = arg;
    job_t *job = calloc(1, sizeof(job_t));
    if (job == NULL)
        return NULL;
    for (int i = 0; i < c->calls && !c->failed; i++) {
        int nt = 1 + (int)(next_random(&c->rng) % 6);
        Py_ssize_t n = (Py_ssize_t)(next_random(&c->rng) % (MAX_UNITS + 1));
        Py_ssize_t chunk = 1 + (Py_ssize_t)(next_random(&c->rng) % 300);
        job->slow_unit = next_random(&c->rng) % 8 == 0 && n > 0 ? (Py_ssize_t)(next_random(&c->rng) % n) : -1;
        if (next_random(&c->rng) % 16 == 0)
            gridsim_pool_set_spin(next_random(&c->rng) % 2 ? 0 : 50000);
        if (next_random(&c->rng) % 8 == 0)  /* switched while the other caller's call runs */
            gridsim_pool_adaptive((int)(next_random(&c->rng) % 2));
        for (Py_ssize_t u = 0; u < n; u++)
            job->counts[u] = 0;
        gridsim_parallel_for(nt, n, chunk, count_units, job);
        for (Py_ssize_t u = 0; u < n; u++) {
            if (__atomic_load_n(&job->counts[u], __ATOMIC_RELAXED) != 1) {
                fprintf(stderr, "call %d (threads %d, units %ld, chunk %ld): unit %ld ran %d times\n", i, nt,
                        (long)n, (long)chunk, (long)u, job->counts[u]);
                c->failed = 1;
                break;
            }
        }
    }
    free(job);
    return NULL;
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    caller_t callers[2] = {{calls, seed, 0}, {calls, seed + 1000003, 0}};
    pthread_t second;
    if (pthread_create(&second, NULL, caller_main, &callers[1]) != 0) {
        fprintf(stderr, "no second caller thread\n");
        return 1;
    }
    caller_main(&callers[0]);
    pthread_join(second, NULL);
    if (callers[0].failed || callers[1].failed)
        return 1;
    printf("ok %d\n", calls);
    return 0;
}
