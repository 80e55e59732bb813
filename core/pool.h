/*
 * pool.h — the worker threads every render shares (core/pool.c). They are
 * started once, on the first render that asks for help, grow to the most
 * helpers any render has asked for, and sleep between renders, so a render
 * pays a wake-up, not a thread start, per thread.
 *
 * A render posts a job and works on it itself; idle helpers join it while
 * it is open. The render never waits for a helper to arrive (a pool busy
 * with another render's job, or one that could not start a thread, only
 * means fewer hands), only for those that joined to leave, so renders from
 * several application threads at once share the pool without deadlock.
 */
#ifndef NG_POOL_H
#define NG_POOL_H

#include <pthread.h>

typedef struct ng__pool_job {
    void (*run)(void *arg); /* a helper's share of the work; returns when there is none left */
    void *arg;
    int want;               /* helpers wanted */
    /* the pool's, under its lock */
    int joined, active, closed;
    struct ng__pool_job *next;
    pthread_cond_t left;    /* active fell to 0 after closing */
} ng__pool_job;

/* Offers job to up to `helpers` pool threads (started now if the pool has
 * fewer; at most NG__POOL_MAX). The caller then works on it too, and must
 * call ng__pool_finish before job or its arg go away. */
#define NG__POOL_MAX 255
void ng__pool_post(ng__pool_job *job, void (*run)(void *arg), void *arg, int helpers);
/* No helper joins job any more; returns once every helper that joined has
 * returned from run. */
void ng__pool_finish(ng__pool_job *job);

#endif
