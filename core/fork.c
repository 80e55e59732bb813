/*
 * fork.c — the engine's locks are held across fork() (ng_node.h:
 * ng_fork_guard), so a child forked while other threads render finds none
 * of them taken and none of the structures they guard half changed.
 *
 * Only the forking thread exists in the child. A lock another thread held
 * at the fork stays held there for ever, and the child's first render that
 * wants it hangs: a neighbourhood node's patch cache (core/hood.c), the
 * patch memory pool (core/slab.c), a node's shared state (cloudshape's
 * coverage). pthread_atfork's prepare handler takes every guarded lock,
 * waiting for the threads that hold them to let go (they hold them briefly,
 * or for one source evaluation); the parent lets them go after the fork,
 * and the child makes them new, in whatever state they are (the lock and
 * condition of a thread that no longer exists). The worker pool has its
 * own handler (core/pool.c).
 *
 * Order: locks nest node state -> patch cache -> pool and statistics
 * (NG_FORK_NODE, NG_FORK_CACHE, NG_FORK_LEAF), and are taken in that
 * order, one level after the other, so the prepare handler cannot deadlock
 * against a thread taking them the same way. No two locks of one level are
 * held at once by any thread.
 */
#include "ng_internal.h"

#include <pthread.h>

static pthread_mutex_t guards_mu = PTHREAD_MUTEX_INITIALIZER;
static ng_fork_guard *guards;
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    int level;
    ng_fork_guard *g;
    pthread_mutex_lock(&guards_mu);
    for (level = NG_FORK_NODE; level <= NG_FORK_LEAF; level++)
        for (g = guards; g; g = g->next)
            if (g->level == level) pthread_mutex_lock(g->mu);
}

static void after_fork_parent(void)
{
    ng_fork_guard *g;
    for (g = guards; g; g = g->next) pthread_mutex_unlock(g->mu);
    pthread_mutex_unlock(&guards_mu);
}

static void after_fork_child(void)
{
    ng_fork_guard *g;
    for (g = guards; g; g = g->next) {
        pthread_mutex_init(g->mu, NULL);
        if (g->cv) pthread_cond_init(g->cv, NULL);
    }
    pthread_mutex_init(&guards_mu, NULL);
}

static void install(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

void ng_fork_guard_add(ng_fork_guard *g, pthread_mutex_t *mu, pthread_cond_t *cv, int level)
{
    pthread_once(&handlers_once, install);
    g->mu = mu;
    g->cv = cv;
    g->level = level;
    pthread_mutex_lock(&guards_mu);
    g->prev = NULL;
    g->next = guards;
    if (guards) guards->prev = g;
    guards = g;
    pthread_mutex_unlock(&guards_mu);
}

void ng_fork_guard_remove(ng_fork_guard *g)
{
    pthread_mutex_lock(&guards_mu);
    if (g->prev) g->prev->next = g->next;
    else guards = g->next;
    if (g->next) g->next->prev = g->prev;
    pthread_mutex_unlock(&guards_mu);
}
