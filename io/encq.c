/*
 * encq.c — the ordered queue of encoding jobs (see encq.h).
 *
 * Jobs are numbered in submission order; job n lives in slot n % slots.
 * Workers take the oldest job not yet taken (run_next); the caller retires
 * jobs oldest first, and when the job it must retire was not taken by any
 * worker it runs it itself, so a queue whose workers could not start (or
 * are slow to wake) still finishes, just on one thread.
 *
 * One lock guards the counters, taken once per job by whoever runs it and
 * once per retire; the work itself runs unlocked.
 */
#include "encq.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64

struct ng__encq {
    void (*work)(void *ctx, int slot);
    int (*retire)(void *ctx, int slot);
    void *ctx;
    int slots;
    pthread_mutex_t mu;
    pthread_cond_t queued; /* a job was submitted, or quit */
    pthread_cond_t done;   /* a job finished */
    long long submitted;   /* jobs submitted so far */
    long long taken;       /* jobs a thread has started (oldest first) */
    long long retired;     /* jobs retired (oldest first) */
    unsigned char *finished; /* per slot: its job is done */
    int quit, failed;
    int nthreads;
    pthread_t thread[MAX_THREADS];
};

/* Takes the oldest untaken job (under the lock) and runs it unlocked. */
static void run_taken(ng__encq *q, long long job)
{
    const int slot = (int)(job % q->slots);
    pthread_mutex_unlock(&q->mu);
    q->work(q->ctx, slot);
    pthread_mutex_lock(&q->mu);
    q->finished[slot] = 1;
    pthread_cond_broadcast(&q->done);
}

static void *worker(void *arg)
{
    ng__encq *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->quit && q->taken >= q->submitted) pthread_cond_wait(&q->queued, &q->mu);
        if (q->quit) break;
        run_taken(q, q->taken++);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

int ng__encq_threads(int threads)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = threads > 0 ? threads : cpus > 0 ? (int)cpus : 1;
    if (n <= 1) return 0;
    return n > 8 ? 8 : n;
}

ng__encq *ng__encq_new(int threads, int slots, void (*work)(void *ctx, int slot), int (*retire)(void *ctx, int slot),
                       void *ctx)
{
    ng__encq *q = calloc(1, sizeof *q);
    sigset_t all, old;
    if (!q) return NULL;
    if (!(q->finished = calloc((size_t)slots, 1))) {
        free(q);
        return NULL;
    }
    q->work = work;
    q->retire = retire;
    q->ctx = ctx;
    q->slots = slots;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->queued, NULL);
    pthread_cond_init(&q->done, NULL);
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    /* Workers block every signal, like the render's pool: a handler (the
     * CLI's, removing temporaries) runs on the application's thread. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    while (q->nthreads < threads && pthread_create(&q->thread[q->nthreads], NULL, worker, q) == 0) q->nthreads++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return q;
}

/* Job `job` (the oldest not retired) done, running it here if no thread
 * took it, then retired. Under the lock. */
static int retire_oldest(ng__encq *q)
{
    const long long job = q->retired;
    const int slot = (int)(job % q->slots);
    int rc;
    if (q->taken == job) run_taken(q, q->taken++);
    while (!q->finished[slot]) pthread_cond_wait(&q->done, &q->mu);
    q->finished[slot] = 0;
    q->retired++;
    if (q->failed) return -1; /* done, but nothing more goes to the file */
    pthread_mutex_unlock(&q->mu);
    rc = q->retire(q->ctx, slot);
    pthread_mutex_lock(&q->mu);
    if (rc) q->failed = 1;
    return rc ? -1 : 0;
}

int ng__encq_next(ng__encq *q)
{
    int slot = -1;
    pthread_mutex_lock(&q->mu);
    while (!q->failed && q->submitted - q->retired >= q->slots)
        if (retire_oldest(q)) break;
    if (!q->failed) slot = (int)(q->submitted % q->slots);
    pthread_mutex_unlock(&q->mu);
    return slot;
}

void ng__encq_submit(ng__encq *q, int slot)
{
    (void)slot; /* always submitted % slots: ng__encq_next gave it */
    pthread_mutex_lock(&q->mu);
    q->submitted++;
    pthread_cond_signal(&q->queued);
    pthread_mutex_unlock(&q->mu);
}

int ng__encq_drain(ng__encq *q)
{
    int rc;
    pthread_mutex_lock(&q->mu);
    while (!q->failed && q->retired < q->submitted)
        if (retire_oldest(q)) break;
    rc = q->failed ? -1 : 0;
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void ng__encq_free(ng__encq *q)
{
    int i;
    if (!q) return;
    pthread_mutex_lock(&q->mu);
    q->quit = 1;
    pthread_cond_broadcast(&q->queued);
    pthread_mutex_unlock(&q->mu);
    for (i = 0; i < q->nthreads; i++) pthread_join(q->thread[i], NULL);
    pthread_cond_destroy(&q->done);
    pthread_cond_destroy(&q->queued);
    pthread_mutex_destroy(&q->mu);
    free(q->finished);
    free(q);
}
