/*
 * pool.c — the persistent worker threads behind ng_render (see pool.h).
 *
 * One lock guards the queue of open jobs and the counts; it is taken twice
 * per helper per render (join, leave) and once per post and finish, never
 * per tile. Helpers are detached and park on a condition variable for the
 * life of the process: they hold no heap memory while parked (a render's
 * evaluation contexts are made and freed inside run), so nothing is left
 * for a leak checker at exit and no destructor has to stop them.
 *
 * fork: only the forking thread exists in the child. pthread_atfork holds
 * the lock across fork (so the child never inherits it held by a helper)
 * and the child forgets the helpers and their queue; its first render that
 * wants help starts new ones.
 */
#include "pool.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;      /* a job was posted */
    ng__pool_job *queue;      /* open jobs still wanting helpers, oldest first */
    int threads, idle;        /* idle: asleep on work */
    atomic_uint posts;        /* jobs posted so far: what a spinning helper watches */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0};

/* How long a helper that ran out of work stays awake for the next job
 * before it sleeps: waking a sleeping thread on a VM (an idle vCPU is
 * halted in the host) can cost as much as a small frame's whole render,
 * so back-to-back renders (frames, a preview, an embedder's
 * tiles) would otherwise rarely get help. Bounded per render. */
#define SPIN_SECONDS 200e-6

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void before_fork(void) { pthread_mutex_lock(&pool.mu); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.mu); }

static void after_fork_child(void)
{
    /* the lock and the condition may be in any state the vanished
     * helpers left them in: fresh ones */
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.work, NULL);
    pool.queue = NULL;
    pool.threads = pool.idle = 0;
}

static void register_fork(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

static void unlink_job(ng__pool_job *job)
{
    ng__pool_job **p;
    for (p = &pool.queue; *p; p = &(*p)->next)
        if (*p == job) {
            *p = job->next;
            return;
        }
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Called and returns under the lock, which it drops meanwhile: waits up
 * to SPIN_SECONDS, awake, for a post. 1 if there was one. */
static int spin_for_post(void)
{
    const unsigned seen = atomic_load_explicit(&pool.posts, memory_order_relaxed);
    const double until = seconds() + SPIN_SECONDS;
    int posted = 0;
    pthread_mutex_unlock(&pool.mu);
    /* yielding: on a machine with more runnable threads than CPUs the
     * spin gives way to them (the caller among them) */
    while (!(posted = atomic_load_explicit(&pool.posts, memory_order_relaxed) != seen) && seconds() < until)
        sched_yield();
    pthread_mutex_lock(&pool.mu);
    return posted;
}

static void *helper(void *unused)
{
    int may_spin = 0; /* once after each job */
    (void)unused;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        ng__pool_job *job;
        while (!(job = pool.queue)) {
            if (may_spin) {
                may_spin = 0;
                if (spin_for_post()) continue;
            }
            pool.idle++;
            pthread_cond_wait(&pool.work, &pool.mu);
            pool.idle--;
        }
        if (++job->joined >= job->want) unlink_job(job); /* staffed: later helpers look further */
        job->active++;
        pthread_mutex_unlock(&pool.mu);
        job->run(job->arg);
        pthread_mutex_lock(&pool.mu);
        if (--job->active == 0 && job->closed) pthread_cond_signal(&job->left);
        may_spin = 1;
    }
    return NULL;
}

/* Starts threads until the pool has n (under the lock). A thread that
 * cannot start leaves the pool smaller: renders then have fewer helpers,
 * and the same output. Helpers block every signal, so a handler (the
 * CLI's, removing temporary files) runs on a thread of the application. */
static void grow(int n)
{
    pthread_attr_t attr;
    sigset_t all, old;
    if (n > NG__POOL_MAX) n = NG__POOL_MAX;
    if (pool.threads >= n) return;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, (size_t)16 << 20); /* deep graphs recurse in evaluation */
    while (pool.threads < n) {
        pthread_t th;
        if (pthread_create(&th, &attr, helper, NULL)) break;
        pool.threads++;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ng__pool_post(ng__pool_job *job, void (*run)(void *arg), void *arg, int helpers)
{
    int wake;
    job->run = run;
    job->arg = arg;
    job->want = helpers;
    job->joined = job->active = 0;
    job->closed = 0;
    job->next = NULL;
    pthread_cond_init(&job->left, NULL);
    if (helpers < 1) return;
    pthread_once(&fork_once, register_fork);
    pthread_mutex_lock(&pool.mu);
    grow(helpers);
    if (pool.threads > 0) {
        ng__pool_job **p = &pool.queue;
        while (*p) p = &(*p)->next;
        *p = job;
        atomic_fetch_add_explicit(&pool.posts, 1, memory_order_relaxed);
        for (wake = helpers < pool.idle ? helpers : pool.idle; wake > 0; wake--) pthread_cond_signal(&pool.work);
    }
    pthread_mutex_unlock(&pool.mu);
}

void ng__pool_finish(ng__pool_job *job)
{
    pthread_mutex_lock(&pool.mu);
    if (!job->closed) {
        unlink_job(job);
        job->closed = 1;
    }
    while (job->active > 0) pthread_cond_wait(&job->left, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_cond_destroy(&job->left);
}
