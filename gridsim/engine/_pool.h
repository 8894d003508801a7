/* gridsim's worker pool: the threads of the kernel's loops over units (worlds).
 *
 * gridsim_parallel_for(nt, n, chunk, fn, arg) runs fn(arg, lo, hi) over [0, n) in chunks of
 * `chunk` units, on the calling thread and on up to nt - 1 pool workers. Chunks are claimed
 * one at a time from an atomic counter, and the calling thread claims chunks too, so a worker
 * that has not started (descheduled, or still waking up) never holds the call up: the caller
 * runs the chunks no one took, and at the end waits only for chunks already claimed. A worker
 * that is descheduled in the middle of a chunk delays the call by that chunk; the caller waits
 * for it asleep, which leaves its core free for that worker. Workers spin a short while after
 * a job (back-to-back calls find them awake), then sleep on a condition variable. A call
 * that still lost to one thread (a worker descheduled holding a chunk) makes the next few
 * calls run on the caller alone (adaptive; see the end of gridsim_parallel_for).
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
 * waking), relaxed for the chunk counter (the results are published by leaving the job).
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

typedef struct {
    pthread_mutex_t mu;      /* guards sleeping and waking, and the workers' creation */
    pthread_cond_t wake;     /* idle workers sleep here */
    pthread_cond_t done;     /* a caller sleeps here for the chunks workers still run */
    int workers;             /* workers started (only a caller holding `busy` adds some) */
    int create_failed;       /* pthread_create failed once: no more tries (until a fork) */
    int atfork_set;
    long spin_ns;            /* how long a worker spins for the next job, a caller for the last chunks */
    /* The current job: written by the caller while it is closed and no worker is inside. */
    uint64_t state;          /* (generation << 1) | open */
    gridsim_chunk_fn fn;
    void *arg;
    Py_ssize_t n, chunk, nchunks;
    Py_ssize_t next;         /* the next chunk to claim */
    int seats, max_seats;    /* workers that joined the job / may join it (nt - 1) */
    int active;              /* workers inside the job, or looking at whether it is open */
    int sleepers;            /* workers asleep on `wake` (or about to be) */
    int caller_waiting;      /* the caller sleeps on `done` */
    int busy;                /* a caller holds the pool */
    /* Calls that lost to one thread (see gridsim_parallel_for) make the next ones serial. */
    int adaptive;            /* on unless switched off (benchmarks compare both) */
    int skip;                /* calls left that run on the caller alone */
    int backoff;             /* serial calls after the next lost call: 1, 2, 4, ... 256 */
} gridsim_pool_t;

static gridsim_pool_t gs_pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER,
    .spin_ns = 50000L, .adaptive = 1, .backoff = 1,
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

/* Claim and run chunks of the open job until none is left; returns the chunks it ran. */
static Py_ssize_t gs_run_chunks(gridsim_pool_t *p) {
    gridsim_chunk_fn fn = p->fn;
    void *arg = p->arg;
    Py_ssize_t n = p->n, chunk = p->chunk, nchunks = p->nchunks, ran = 0;
    for (;; ran++) {
        Py_ssize_t c = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (c >= nchunks)
            return ran;
        Py_ssize_t lo = c * chunk;
        fn(arg, lo, n - lo < chunk ? n : lo + chunk);
    }
}

/* Block until the generation differs from `seen`; returns the state then seen. */
static uint64_t gs_wait_job(gridsim_pool_t *p, uint64_t seen) {
    uint64_t s;
    int64_t until = gs_now_ns() + GS_LOAD(&p->spin_ns);
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
        if ((s & 1) && __atomic_fetch_add(&p->seats, 1, __ATOMIC_RELAXED) < p->max_seats) {
            seen = s >> 1;
            gs_run_chunks(p);
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
    if (p->skip > 0) {  /* a recent call lost to one thread: this one runs on the caller */
        p->skip--;
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
    p->next = 0;
    p->seats = 0;
    p->max_seats = seats;
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
    Py_ssize_t mine = gs_run_chunks(p);
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
    if (p->adaptive && mine > 0) {
        int64_t alone = (t1 - t0) * (int64_t)p->nchunks / (int64_t)mine;
        if (gs_now_ns() - t0 > alone) {
            p->skip = p->backoff;
            p->backoff = p->backoff < 256 ? 2 * p->backoff : 256;
        } else {
            p->backoff = 1;
        }
    }
    __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
    return seats + 1;
}

static int gridsim_pool_workers(void) {
    pthread_mutex_lock(&gs_pool.mu);
    int w = gs_pool.workers;
    pthread_mutex_unlock(&gs_pool.mu);
    return w;
}

static void gridsim_pool_set_spin(long ns) { GS_STORE(&gs_pool.spin_ns, ns < 0 ? 0 : ns); }
static long gridsim_pool_spin(void) { return GS_LOAD(&gs_pool.spin_ns); }
/* Switch the fallback to one thread after lost calls on (1) or off (0); returns the setting. */
static int gridsim_pool_adaptive(int on) {
    if (on >= 0) {
        while (__atomic_exchange_n(&gs_pool.busy, 1, __ATOMIC_ACQUIRE))
            gs_pause();
        gs_pool.adaptive = on != 0;
        gs_pool.skip = 0;
        gs_pool.backoff = 1;
        __atomic_store_n(&gs_pool.busy, 0, __ATOMIC_RELEASE);
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
