/* gridsim's worker pool: the threads of the kernel's loops over units (worlds).
 *
 * gridsim_parallel_for(nt, n, chunk, fn, arg) runs fn(arg, lo, hi) over [0, n) in chunks of
 * `chunk` units, on the calling thread and on up to nt - 1 pool workers. The chunks are dealt
 * into one lane of consecutive chunks per thread (the caller's is lane 0); a thread claims
 * its own lane's chunks one at a time from the front, then takes the other lanes' remaining
 * chunks from their backs, one at a time. Claims are atomic and the calling thread claims
 * too, so a worker that has not started (descheduled, or still waking up) never holds the
 * call up: the caller runs the chunks no one took, and at the end waits only for chunks
 * already claimed. Lanes keep each thread on consecutive units: chunks taken by turns from
 * one counter put two threads' writes into the same cache lines at every chunk boundary (a
 * world's byte flags, rewards and counters are a few bytes each), which made every chunk
 * 20% (2,048 worlds) to 100% (256) slower than on one thread. A worker that is descheduled
 * in the middle of a chunk delays the call by that chunk; the caller waits for it asleep,
 * which leaves its core free for that worker. Workers spin a short while after a job, then
 * sleep on a condition variable; while calls come back to back (the last two gaps between
 * threaded loops under GS_SPIN_GAPS spins) they spin for twice the longer one, so the next
 * loop finds them awake rather than paying a wake-up (a futex and, on a virtual machine, an
 * inter-processor interrupt: about 20 us, which is most of a gap). A call that still lost to
 * one thread (a worker descheduled holding a chunk) makes the next few calls run on the
 * caller alone (adaptive; see the end of gridsim_parallel_for).
 *
 * Which thread runs a chunk never changes what a unit computes: every unit's result depends
 * only on its own state, so results are bit-identical for every thread count.
 *
 * Safe by construction where libgomp's pool was not:
 *   - fork: a child starts with no workers (pthread_atfork) and creates them again when a
 *     threaded call needs them; a child of a process forked mid-call starts with an idle pool.
 *   - thread creation failing (a pids limit, no memory for a stack): the pool keeps the
 *     workers it has, down to none (the caller runs every chunk); the process never exits.
 *   - two callers at once (Python threads calling kernels of different envs with the GIL
 *     released): the pool serves one; the other runs its chunks on its own thread.
 *
 * Without GRIDSIM_THREADS (a build without POSIX threads, or GRIDSIM_THREADS=0) the caller
 * runs every chunk itself. Included by gridsim/engine/kernel.pyx only: there is one pool per
 * process, which every family's kernel module reaches through the cdef functions that
 * kernel.pxd declares. Memory orders are sequentially consistent wherever two threads each
 * write one flag and read the other's (entering a job against closing it; sleeping against
 * waking), relaxed for the lanes' claims (the results are published by leaving the job).
 */
#ifndef GRIDSIM_POOL_H
#define GRIDSIM_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef void (*gridsim_chunk_fn)(void *arg, Py_ssize_t lo, Py_ssize_t hi);

#if GRIDSIM_THREADS

#include <pthread.h>
#include <signal.h>
#include <time.h>

/* At most this many workers, whatever is asked (Python refuses far fewer threads first). */
#define GRIDSIM_POOL_MAX_WORKERS 1024

#define GS_LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define GS_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define GS_RELAXED_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define GS_RELAXED_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* Calls whose gap is at most this many spins (250 us at the default 50 us) count as back to
 * back: a benchmark loop, or a rollout whose policy is cheap. A gap longer than that is a
 * policy or a learner running between calls, and a worker spinning through it would only
 * take a core from it. */
#define GS_SPIN_GAPS 5

typedef struct {
    pthread_mutex_t mu;      /* guards sleeping and waking, and the workers' creation */
    pthread_cond_t wake;     /* idle workers sleep here */
    pthread_cond_t done;     /* a caller sleeps here for the chunks workers still run */
    int workers;             /* workers started (only a caller holding `busy` adds some) */
    int create_failed;       /* pthread_create failed once: no more tries (until a fork) */
    int atfork_set;
    long spin_ns;            /* how long a worker spins for the next job, a caller for the last chunks */
    long next_spin_ns;       /* how long a worker spins after this job (see gs_spin_for_gap) */
    int64_t closed_ns;       /* when the last threaded call returned (0: none yet) */
    int64_t last_gap_ns;     /* the gap between the last two threaded calls (-1: none yet) */
    /* The current job: written by the caller while it is closed and no worker is inside. */
    uint64_t state;          /* (generation << 1) | open */
    gridsim_chunk_fn fn;
    void *arg;
    Py_ssize_t n, chunk, nchunks;
    int lanes;               /* threads offered the job (max_seats + 1): lane 0 is the caller's */
    int seats, max_seats;    /* workers that joined the job / may join it (nt - 1); seat k has lane k + 1 */
    int active;              /* workers inside the job, or looking at whether it is open */
    int sleepers;            /* workers asleep on `wake` (or about to be) */
    int caller_waiting;      /* the caller sleeps on `done` */
    int busy;                /* a caller holds the pool */
    /* Calls that lost to one thread (see gridsim_parallel_for) make the next ones serial. */
    /* The fallback to one thread: written by the caller that holds `busy` and by
     * gridsim_pool_adaptive, which never waits for `busy` (so no caller, with or without the
     * GIL, can hold it up); each is an atomic, and a reset racing a call only shifts a count. */
    int adaptive;            /* on unless switched off (benchmarks compare both) */
    int skip;                /* calls left that run on the caller alone */
    int backoff;             /* serial calls after the next lost call: 1, 2, 4, ... 256 */
} gridsim_pool_t;

/* A lane's claims: (chunks taken from its back << 32) | chunks taken from its front, a cache
 * line each so that claims on one lane never slow another's. A job has fewer chunks than 2**32
 * (a batch has fewer units: its rows are int32). */
typedef struct {
    uint64_t claimed;
    char pad[64 - sizeof(uint64_t)];
} gs_lane_t;

static gs_lane_t gs_lanes[GRIDSIM_POOL_MAX_WORKERS + 1] __attribute__((aligned(64)));

static gridsim_pool_t gs_pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER,
    .spin_ns = 50000L, .next_spin_ns = 50000L, .last_gap_ns = -1, .adaptive = 1, .backoff = 1,
};

static inline void gs_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline int64_t gs_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The first chunk of lane l (l = lanes: the end): the chunks split as evenly as they go. */
static inline Py_ssize_t gs_lane_start(const gridsim_pool_t *p, int l) {
    return p->nchunks * l / p->lanes;
}

/* Claim a chunk of lane l, from its front (its own thread) or its back (any other); -1 when
 * the lane has none left. */
static Py_ssize_t gs_claim(gridsim_pool_t *p, int l, int from_back) {
    Py_ssize_t first = gs_lane_start(p, l), len = gs_lane_start(p, l + 1) - first, c;
    uint64_t seen = __atomic_load_n(&gs_lanes[l].claimed, __ATOMIC_RELAXED), want;
    do {
        uint64_t front = seen & 0xffffffffu, back = seen >> 32;
        if ((Py_ssize_t)(front + back) >= len)
            return -1;
        want = from_back ? seen + ((uint64_t)1 << 32) : seen + 1;
        c = from_back ? first + len - 1 - (Py_ssize_t)back : first + (Py_ssize_t)front;
    } while (!__atomic_compare_exchange_n(&gs_lanes[l].claimed, &seen, want, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return c;
}

/* Run chunks of the open job until none is left: lane `own`'s from its front, then the others'
 * from their backs (lanes only shrink, so one pass over them leaves none); returns the chunks
 * it ran. */
static Py_ssize_t gs_run_chunks(gridsim_pool_t *p, int own) {
    gridsim_chunk_fn fn = p->fn;
    void *arg = p->arg;
    Py_ssize_t n = p->n, chunk = p->chunk, ran = 0, c;
    int lanes = p->lanes;
    for (int k = 0; k < lanes; k++) {
        int l = (own + k) % lanes;
        while ((c = gs_claim(p, l, k > 0)) >= 0) {
            Py_ssize_t lo = c * chunk;
            fn(arg, lo, n - lo < chunk ? n : lo + chunk);
            ran++;
        }
    }
    return ran;
}

/* How long workers spin after a job opened `gap` ns after the call before returned (the longer
 * of the last two gaps: a step call runs two loops, one short gap apart, and the next call
 * comes a longer gap later): twice the gap while calls come back to back, else the base spin. */
static long gs_spin_for_gap(gridsim_pool_t *p, int64_t gap) {
    long base = GS_LOAD(&p->spin_ns);
    if (gap < 0 || gap > (int64_t)GS_SPIN_GAPS * base)
        return base;
    return 2 * gap > base ? (long)(2 * gap) : base;
}

/* Block until the generation differs from `seen`; returns the state then seen. */
static uint64_t gs_wait_job(gridsim_pool_t *p, uint64_t seen) {
    uint64_t s;
    int64_t until = gs_now_ns() + __atomic_load_n(&p->next_spin_ns, __ATOMIC_RELAXED);
    for (int i = 1;; i++) {
        s = GS_LOAD(&p->state);
        if ((s >> 1) != seen)
            return s;
        if ((i & 63) == 0 && gs_now_ns() >= until)
            break;
        gs_pause();
    }
    pthread_mutex_lock(&p->mu);
    __atomic_fetch_add(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    while (((s = GS_LOAD(&p->state)) >> 1) == seen)
        pthread_cond_wait(&p->wake, &p->mu);
    __atomic_fetch_sub(&p->sleepers, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&p->mu);
    return s;
}

static void *gs_worker_main(void *start) {
    gridsim_pool_t *p = &gs_pool;
    uint64_t seen = (uint64_t)(uintptr_t)start;  /* the generation it was created in */
    for (;;) {
        seen = gs_wait_job(p, seen) >> 1;
        /* Enter, then look: the caller closes the job, then looks for workers inside. */
        __atomic_fetch_add(&p->active, 1, __ATOMIC_SEQ_CST);
        uint64_t s = GS_LOAD(&p->state);
        int seat;
        if ((s & 1) && (seat = __atomic_fetch_add(&p->seats, 1, __ATOMIC_RELAXED)) < p->max_seats) {
            seen = s >> 1;
            gs_run_chunks(p, seat + 1);
        }
        if (__atomic_sub_fetch(&p->active, 1, __ATOMIC_SEQ_CST) == 0 && GS_LOAD(&p->caller_waiting)) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

static void gs_atfork_prepare(void) { pthread_mutex_lock(&gs_pool.mu); }
static void gs_atfork_parent(void) { pthread_mutex_unlock(&gs_pool.mu); }

/* The child has only the thread that forked: an idle pool without workers, fresh locks. */
static void gs_atfork_child(void) {
    gridsim_pool_t *p = &gs_pool;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->workers = 0;
    p->create_failed = 0;
    p->state = (p->state >> 1) << 1;  /* closed */
    p->seats = p->max_seats = 0;
    p->active = p->sleepers = p->caller_waiting = 0;
    p->busy = 0;
    p->skip = 0;
    p->backoff = 1;
    p->closed_ns = 0;
    p->last_gap_ns = -1;
    p->next_spin_ns = p->spin_ns;
}

/* Start workers until there are `want` (or as many as the system gives). Holds `busy`. */
static void gs_grow(gridsim_pool_t *p, int want) {
    if (want > GRIDSIM_POOL_MAX_WORKERS)
        want = GRIDSIM_POOL_MAX_WORKERS;
    if (p->workers >= want || p->create_failed)
        return;
    pthread_mutex_lock(&p->mu);
    if (!p->atfork_set) {
        if (pthread_atfork(gs_atfork_prepare, gs_atfork_parent, gs_atfork_child) != 0) {
            /* Without the handlers a forked child would wait for workers it lacks: no workers. */
            p->create_failed = 1;
            pthread_mutex_unlock(&p->mu);
            return;
        }
        p->atfork_set = 1;
    }
    /* Workers never take signals: Python's handlers run in the main thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    int have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (p->workers < want) {
        pthread_t tid;
        if (pthread_create(&tid, have_attr ? &attr : NULL, gs_worker_main,
                           (void *)(uintptr_t)(GS_LOAD(&p->state) >> 1)) != 0) {
            p->create_failed = 1;
            break;
        }
        if (!have_attr)
            pthread_detach(tid);
        p->workers++;
    }
    if (have_attr)
        pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_unlock(&p->mu);
}

/* Run fn over [0, n) in chunks on up to nt threads (the caller included); returns the threads
 * the pool offered the job to (1: the caller alone). */
static int gridsim_parallel_for(int nt, Py_ssize_t n, Py_ssize_t chunk, gridsim_chunk_fn fn, void *arg) {
    gridsim_pool_t *p = &gs_pool;
    if (chunk < 1)
        chunk = 1;
    if (nt <= 1 || n <= chunk || __atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE)) {
        if (n > 0)
            fn(arg, 0, n);
        return 1;
    }
    int skip = GS_RELAXED_LOAD(&p->skip);
    if (skip > 0) {  /* a recent call lost to one thread: this one runs on the caller */
        GS_RELAXED_STORE(&p->skip, skip - 1);
        fn(arg, 0, n);
        __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
        return 1;
    }
    gs_grow(p, nt - 1);
    int seats = nt - 1 < p->workers ? nt - 1 : p->workers;
    if (seats == 0) {
        fn(arg, 0, n);
        __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
        return 1;
    }
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    p->nchunks = (n + chunk - 1) / chunk;
    p->lanes = seats + 1;
    for (int l = 0; l < p->lanes; l++)
        __atomic_store_n(&gs_lanes[l].claimed, 0, __ATOMIC_RELAXED);
    p->seats = 0;
    p->max_seats = seats;
    int64_t opened = gs_now_ns();
    int64_t gap = p->closed_ns ? opened - p->closed_ns : -1;
    int64_t longer = gap < 0 || p->last_gap_ns < 0 ? -1 : gap > p->last_gap_ns ? gap : p->last_gap_ns;
    p->last_gap_ns = gap;
    __atomic_store_n(&p->next_spin_ns, gs_spin_for_gap(p, longer), __ATOMIC_RELAXED);
    uint64_t gen = (p->state >> 1) + 1;
    GS_STORE(&p->state, (gen << 1) | 1);  /* open: the fields above are published */
    int sleeping = GS_LOAD(&p->sleepers);
    if (sleeping > 0) {
        pthread_mutex_lock(&p->mu);
        for (int i = 0; i < seats && i < sleeping; i++)
            pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }
    int64_t t0 = gs_now_ns();
    Py_ssize_t mine = gs_run_chunks(p, 0);
    int64_t t1 = gs_now_ns();
    GS_STORE(&p->state, gen << 1);  /* closed: no worker joins any more */
    /* Wait for the chunks still running: spin briefly, then sleep (the core goes to them). */
    int64_t until = gs_now_ns() + GS_LOAD(&p->spin_ns);
    for (int i = 1; GS_LOAD(&p->active) > 0; i++) {
        if ((i & 63) == 0 && gs_now_ns() >= until) {
            pthread_mutex_lock(&p->mu);
            GS_STORE(&p->caller_waiting, 1);
            while (GS_LOAD(&p->active) > 0)
                pthread_cond_wait(&p->done, &p->mu);
            GS_STORE(&p->caller_waiting, 0);
            pthread_mutex_unlock(&p->mu);
            break;
        }
        gs_pause();
    }
    /* The call lost to one thread when it took longer than the caller alone would have needed
     * for every chunk (its own chunks' time, scaled): a worker was descheduled holding a chunk,
     * or never ran. Then the next calls run on the caller alone, 1, 2, 4, ... up to 256 of
     * them while calls keep losing, so a machine busy with other work costs at most about
     * one call in 256 over one thread; a call that does not lose starts the count again. */
    if (GS_RELAXED_LOAD(&p->adaptive) && mine > 0) {
        int64_t alone = (t1 - t0) * (int64_t)p->nchunks / (int64_t)mine;
        if (gs_now_ns() - t0 > alone) {
            int backoff = GS_RELAXED_LOAD(&p->backoff);
            GS_RELAXED_STORE(&p->skip, backoff);
            GS_RELAXED_STORE(&p->backoff, backoff < 256 ? 2 * backoff : 256);
        } else {
            GS_RELAXED_STORE(&p->backoff, 1);
        }
    }
    p->closed_ns = gs_now_ns();
    __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
    return seats + 1;
}

static int gridsim_pool_workers(void) {
    pthread_mutex_lock(&gs_pool.mu);
    int w = gs_pool.workers;
    pthread_mutex_unlock(&gs_pool.mu);
    return w;
}

static void gridsim_pool_set_spin(long ns) {
    GS_STORE(&gs_pool.spin_ns, ns < 0 ? 0 : ns);
    GS_STORE(&gs_pool.next_spin_ns, ns < 0 ? 0 : ns);
}
static long gridsim_pool_spin(void) { return GS_LOAD(&gs_pool.spin_ns); }
/* Switch the fallback to one thread after lost calls on (1) or off (0); returns the setting. */
static int gridsim_pool_adaptive(int on) {
    if (on >= 0) {
        GS_STORE(&gs_pool.adaptive, on != 0);
        GS_RELAXED_STORE(&gs_pool.skip, 0);
        GS_RELAXED_STORE(&gs_pool.backoff, 1);
    }
    return GS_LOAD(&gs_pool.adaptive);
}

#else  /* no threads: the caller runs every chunk */

static int gridsim_parallel_for(int nt, Py_ssize_t n, Py_ssize_t chunk, gridsim_chunk_fn fn, void *arg) {
    (void)nt;
    (void)chunk;
    if (n > 0)
        fn(arg, 0, n);
    return 1;
}
static int gridsim_pool_workers(void) { return 0; }
static void gridsim_pool_set_spin(long ns) { (void)ns; }
static long gridsim_pool_spin(void) { return 0; }
static int gridsim_pool_adaptive(int on) { (void)on; return 0; }

#endif
#endif
