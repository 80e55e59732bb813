/*
 * test_pool.c — the persistent worker pool behind ng_render, as an embedder
 * meets it: the same bits for every thread count and every repeat, renders
 * from several application threads at once, a cancelled or failed render
 * followed by a good one, many small renders in a row (frames), more
 * threads than tiles, a forked child that renders (also when another
 * thread held a neighbourhood patch cache's or the patch pool's lock at the
 * fork), helpers that outlive
 * the render that started them, and helpers that compute in the calling
 * thread's floating-point environment (rounding mode), not their own.
 */
#include "build.h"
#include "harness.h"
#include "ng_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- graphs and renders -------------------------------------------------------------- */

enum { NGRAPHS = 4 };

/* Graph number k: an fBm of Perlin, Worley cells, a warp of simplex by a
 * vector noise, a sum of value and simplex. Each samples 3D too. */
static int graph_of(ng_graph *g, int k)
{
    switch (k % NGRAPHS) {
    case 0: return t_fbm(g, t_noise(g, "perlin", 23, 3), 5, 2, 0.5);
    case 1: return t_noise(g, "worley", 11, 7);
    case 2: return t_warp(g, t_noise(g, "simplex", 17, 1), t_vnoise(g, "perlin", 29, 2), 6);
    default: return t_bin(g, "add", t_noise(g, "value", 9, 4), t_noise(g, "simplex", 31, 5));
    }
}

static void opts(ng_render_opts *o, int w, int h, int threads, int tile)
{
    t_opts(o, w, h);
    o->threads = threads;
    o->tile = tile;
    o->dims = 3;
}

/* Renders and compares with ref (w * h floats): 1 when the bits match. */
static int render_matches(const ng_graph *g, int root, const ng_render_opts *o, const float *ref)
{
    float *b = t_render(g, root, o);
    int same = b && memcmp(b, ref, (size_t)o->width * (size_t)o->height * sizeof(float)) == 0;
    free(b);
    return same;
}

/* A volume into memory, slab by slab: voxel (i, j, k) at (k * h + j) * w + i. */
typedef struct volbuf {
    float *v;
    int w, h;
} volbuf;

static int vb_begin(void *u, int w, int h, int ch, ng_error *err)
{
    (void)u, (void)w, (void)h, (void)ch;
    return ng_errorf(err, "test: an image sent to a volume sink");
}

static int vb_rows(void *u, int y, int n, const float *r, ng_error *err)
{
    (void)u, (void)y, (void)n, (void)r;
    return ng_errorf(err, "test: rows sent to a volume sink");
}

static int vb_begin_volume(void *u, const ng_volume_info *info, ng_error *err)
{
    volbuf *b = u;
    (void)err;
    b->w = info->width;
    b->h = info->height;
    return 0;
}

static int vb_slab(void *u, int z, int ns, int y, int n, const float *d, ng_error *err)
{
    volbuf *b = u;
    int s, j;
    (void)err;
    for (s = 0; s < ns; s++)
        for (j = 0; j < n; j++)
            memcpy(b->v + ((size_t)(z + s) * b->h + (size_t)(y + j)) * b->w, d + ((size_t)s * n + j) * b->w,
                   (size_t)b->w * sizeof(float));
    return 0;
}

static int vb_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

/* A w x h x d volume of root in bricks of `brick` on `threads`; NULL on failure. */
static float *render_volume(const ng_graph *g, int root, int w, int h, int d, int brick, int threads)
{
    volbuf b = {malloc((size_t)w * h * d * sizeof(float)), 0, 0};
    ng_sink sink = {vb_begin, vb_rows, vb_end, &b, vb_begin_volume, vb_slab};
    ng_render_opts o;
    ng_error err;
    if (!b.v) return NULL;
    opts(&o, w, h, threads, 64);
    o.depth = d;
    o.brick = brick;
    if (ng_render(g, &root, 1, &o, &sink, &err)) {
        fprintf(stderr, "volume render failed: %s\n", err.msg);
        free(b.v);
        return NULL;
    }
    return b.v;
}

/* ---- bit identity ----------------------------------------------------------------- */

/* Every thread count and tile size, three times over, gives the bits of
 * one thread: images and volumes. */
static void test_identical_for_threads_and_repeats(void)
{
    static const int threads[] = {2, 3, 5}, tiles[] = {16, 64};
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 2), i, j, rep;
    ng_render_opts o;
    float *ref, *vref;
    opts(&o, 150, 97, 1, 16);
    ref = t_render(g, root, &o);
    vref = render_volume(g, root, 40, 33, 29, 8, 1);
    CHECK(ref != NULL && vref != NULL);
    for (rep = 0; ref && vref && rep < 3; rep++) {
        for (i = 0; i < 3; i++)
            for (j = 0; j < 2; j++) {
                opts(&o, 150, 97, threads[i], tiles[j]);
                CHECKF(render_matches(g, root, &o, ref), "image, %d threads, tile %d, repeat %d differs", threads[i],
                       tiles[j], rep);
            }
        for (i = 0; i < 3; i++) {
            float *v = render_volume(g, root, 40, 33, 29, 8, threads[i]);
            CHECKF(v && memcmp(v, vref, (size_t)40 * 33 * 29 * sizeof(float)) == 0,
                   "volume, %d threads, repeat %d differs", threads[i], rep);
            free(v);
        }
    }
    free(ref);
    free(vref);
    ng_graph_free(g);
}

/* More threads than tiles (even than the pool may hold): the same bits. */
static void test_more_threads_than_tiles(void)
{
    static const int threads[] = {2, 9, 64, 256};
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 0), i;
    ng_render_opts o;
    float *ref, *one, *vref;
    opts(&o, 20, 20, 1, 8);
    ref = t_render(g, root, &o);
    opts(&o, 1, 1, 1, 8);
    one = t_render(g, root, &o);
    vref = render_volume(g, root, 8, 8, 8, 8, 1);
    CHECK(ref && one && vref);
    for (i = 0; ref && one && vref && i < 4; i++) {
        float *v;
        opts(&o, 20, 20, threads[i], 8); /* 9 tiles */
        CHECKF(render_matches(g, root, &o, ref), "20x20 in 8x8 tiles on %d threads differs", threads[i]);
        opts(&o, 1, 1, threads[i], 8);
        CHECKF(render_matches(g, root, &o, one), "1x1 on %d threads differs", threads[i]);
        v = render_volume(g, root, 8, 8, 8, 8, threads[i]); /* one brick */
        CHECKF(v && memcmp(v, vref, 8 * 8 * 8 * sizeof(float)) == 0, "one brick on %d threads differs",
               threads[i]);
        free(v);
    }
    free(ref);
    free(one);
    free(vref);
    ng_graph_free(g);
}

/* ---- frames ----------------------------------------------------------------------- */

/* 200 small renders back to back on 2 threads (16 tiles each, at a new z
 * each time, like the frames of a sequence), each equal to its 1-thread
 * render. */
static void test_many_small_renders(void)
{
    enum { FRAMES = 200 };
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 3), f, bad = 0;
    for (f = 0; f < FRAMES; f++) {
        ng_render_opts o;
        float *ref;
        opts(&o, 64, 64, 1, 16);
        o.z = f * 0.37;
        ref = t_render(g, root, &o);
        o.threads = 2;
        if (!ref || !render_matches(g, root, &o, ref)) bad++;
        o.tile = 64; /* one tile: the caller alone */
        if (!ref || !render_matches(g, root, &o, ref)) bad++;
        free(ref);
    }
    CHECK_INT(bad, 0);
    ng_graph_free(g);
}

/* ---- concurrent renders from application threads ------------------------------------ */

enum { APPS = 4, APP_RENDERS = 20 };

typedef struct app {
    ng_graph *g[NGRAPHS];
    int root[NGRAPHS];
    float *ref[APP_RENDERS];
    int index, bad;
} app;

/* Render i of app thread k: its graph, size, tile and thread count. */
static void app_render_opts(int k, int i, int *graph, ng_render_opts *o)
{
    const int w = 37 + 29 * ((k + i) % 5), h = 23 + 31 * ((k * 3 + i) % 4);
    *graph = (k + i) % NGRAPHS;
    opts(o, w, h, 1, i % 3 ? 16 : 32);
    o->z = k * 100 + i;
}

static void *app_thread(void *arg)
{
    app *a = arg;
    int i;
    for (i = 0; i < APP_RENDERS; i++) {
        ng_render_opts o;
        int graph;
        app_render_opts(a->index, i, &graph, &o);
        o.threads = 2 + (a->index + i) % 3;
        if (!a->ref[i] || !render_matches(a->g[graph], a->root[graph], &o, a->ref[i])) a->bad++;
    }
    return NULL;
}

/* 4 application threads x 20 renders each (different graphs, sizes and
 * thread counts) at the same time, each equal to its 1-thread render made
 * beforehand: no render's tiles land in another's. Each thread renders
 * its own graphs. */
static void test_concurrent_renders(void)
{
    static app apps[APPS];
    pthread_t th[APPS];
    int k, i, started = 0;
    for (k = 0; k < APPS; k++) {
        memset(&apps[k], 0, sizeof apps[k]);
        apps[k].index = k;
        for (i = 0; i < NGRAPHS; i++) {
            apps[k].g[i] = ng_graph_new();
            apps[k].root[i] = graph_of(apps[k].g[i], i);
        }
        for (i = 0; i < APP_RENDERS; i++) {
            ng_render_opts o;
            int graph;
            app_render_opts(k, i, &graph, &o);
            apps[k].ref[i] = t_render(apps[k].g[graph], apps[k].root[graph], &o);
        }
    }
    for (k = 0; k < APPS; k++) started += pthread_create(&th[k], NULL, app_thread, &apps[k]) == 0;
    CHECK_INT(started, APPS);
    for (k = 0; k < started; k++) pthread_join(th[k], NULL);
    for (k = 0; k < APPS; k++) {
        CHECKF(apps[k].bad == 0, "application thread %d: %d of %d renders differ from 1 thread", k, apps[k].bad,
               APP_RENDERS);
        for (i = 0; i < APP_RENDERS; i++) free(apps[k].ref[i]);
        for (i = 0; i < NGRAPHS; i++) ng_graph_free(apps[k].g[i]);
    }
}

/* ---- stopped renders -------------------------------------------------------------- */

/* A sink that, at its first band, sets the render's cancel flag, or fails
 * itself. */
typedef struct stop_sink {
    atomic_int *cancel;
    int fail, bands, ended_ok;
} stop_sink;

static int ss_begin(void *u, int w, int h, int ch, ng_error *err)
{
    (void)u, (void)w, (void)h, (void)ch, (void)err;
    return 0;
}

static int ss_rows(void *u, int y, int n, const float *r, ng_error *err)
{
    stop_sink *s = u;
    (void)y, (void)n, (void)r;
    s->bands++;
    if (s->fail) return ng_errorf(err, "test: the disk is full");
    if (s->cancel) atomic_store(s->cancel, 1);
    return 0;
}

static int ss_end(void *u, int ok, ng_error *err)
{
    (void)err;
    ((stop_sink *)u)->ended_ok = ok;
    return 0;
}

/* After a render stopped mid-way on 2 threads (cancelled from its first
 * band, past its time limit, or by a failing sink), the next renders on 2
 * threads work and give the 1-thread bits. */
static void test_render_after_stop(void)
{
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 0), how, rep;
    ng_render_opts o;
    float *ref;
    opts(&o, 256, 256, 1, 16);
    ref = t_render(g, root, &o);
    CHECK(ref != NULL);
    for (how = 0; ref && how < 3; how++)
        for (rep = 0; rep < 3; rep++) {
            atomic_int cancel;
            stop_sink s = {how == 0 ? &cancel : NULL, how == 2, 0, -1};
            ng_sink sink = {ss_begin, ss_rows, ss_end, &s, NULL, NULL};
            ng_error err;
            atomic_init(&cancel, 0);
            opts(&o, 256, 256, 2, 16); /* 16 bands */
            o.cancel = &cancel;
            if (how == 1) o.time_limit = 1e-6;
            CHECKF(ng_render(g, &root, 1, &o, &sink, &err) != 0, "stop %d went to the end", how);
            CHECK_CONTAINS(err.msg, how == 0 ? "cancelled" : how == 1 ? "time limit" : "the disk is full");
            CHECK_INT(s.ended_ok, 0);
            CHECKF(s.bands < 16, "stop %d: %d bands written", how, s.bands);
            opts(&o, 256, 256, 2, 16);
            CHECKF(render_matches(g, root, &o, ref), "the render after stop %d differs", how);
        }
    free(ref);
    ng_graph_free(g);
}

/* ---- threads of the process ---------------------------------------------------------- */

/* The ids of this process's threads, into ids (up to cap); how many. */
static int task_ids(long *ids, int cap)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && n < cap) ids[n++] = strtol(e->d_name, NULL, 10);
    closedir(d);
    return n;
}

static int has_id(const long *ids, int n, long id)
{
    int i;
    for (i = 0; i < n; i++)
        if (ids[i] == id) return 1;
    return 0;
}

/* Records the process's threads while a band is handed over. */
typedef struct tasks_sink {
    long ids[512];
    int n;
} tasks_sink;

static int ts_rows(void *u, int y, int n, const float *r, ng_error *err)
{
    tasks_sink *t = u;
    (void)n, (void)r, (void)err;
    if (y == 0) t->n = task_ids(t->ids, 512);
    return 0;
}

static int ts_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

/* The threads that help a render are still there after it and after 50
 * more: renders on 2 threads start no thread each (an embedder's frames
 * and tiles pay a wake-up, not a thread start). */
static void test_helpers_outlive_renders(void)
{
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 1), i, missing = 0;
    tasks_sink during = {{0}, 0};
    ng_sink sink = {ss_begin, ts_rows, ts_end, &during, NULL, NULL};
    ng_render_opts o;
    ng_error err;
    long after[512];
    int nafter;
    opts(&o, 128, 128, 2, 16);
    CHECK(ng_render(g, &root, 1, &o, &sink, &err) == 0);
    CHECKF(during.n >= 2, "%d threads while rendering on 2", during.n);
    for (i = 0; i < 50; i++) {
        float *b = t_render(g, root, &o);
        CHECK(b != NULL);
        free(b);
    }
    nafter = task_ids(after, 512);
    for (i = 0; i < during.n; i++) missing += !has_id(after, nafter, during.ids[i]);
    CHECKF(missing == 0, "%d of the %d threads of the first render are gone after 50 more", missing, during.n);
    ng_graph_free(g);
}

/* ---- fork ------------------------------------------------------------------------- */

typedef struct busy {
    const ng_graph *g;
    int root;
    atomic_int stop;
} busy;

/* Renders on 2 threads until told to stop: the pool is in use at forks. */
static void *busy_renders(void *arg)
{
    busy *b = arg;
    while (!atomic_load(&b->stop)) {
        ng_render_opts o;
        float *img;
        opts(&o, 96, 96, 2, 16);
        img = t_render(b->g, b->root, &o);
        free(img);
    }
    return NULL;
}

/* In a forked child: a 2-thread render equal to ref, helped by a thread
 * of the child's own (the parent's helpers do not exist here). Exit 0 when
 * so, 1 when the bits differ, 2 when no helper was started. */
static void child_render(const ng_graph *g, int root, const float *ref)
{
    tasks_sink during = {{0}, 0};
    ng_sink sink = {ss_begin, ts_rows, ts_end, &during, NULL, NULL};
    ng_render_opts o;
    ng_error err;
    opts(&o, 128, 128, 2, 16);
    if (!render_matches(g, root, &o, ref)) _exit(1);
    if (ng_render(g, &root, 1, &o, &sink, &err) || during.n < 2) _exit(2);
    _exit(0);
}

/* Waits for pid up to `secs` seconds, then kills it: its status, or -1
 * when it hung. */
static int wait_or_kill(pid_t pid, double secs)
{
    struct timespec nap = {0, 10 * 1000 * 1000};
    int status, waited;
    for (waited = 0; waited < secs * 100; waited++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -2;
        nanosleep(&nap, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* A child forked while another thread of the parent renders on 2 threads
 * renders on 2 threads itself, with the right bits, a helper of its own,
 * and no hang; 10 times. Not under the sanitizers: GCC 12's libasan does
 * not hold its allocator's locks across fork (it has no fork handler:
 * `nm libasan.so.8` shows none, where LLVM's ASan installs one since
 * 2023), so a child forked while the other thread allocates can inherit
 * that lock held and hang in its first malloc; that happened once at
 * load 8 (stop 35), never with glibc's malloc, which does. */
static void test_render_in_forked_child(void)
{
    ng_graph *g = ng_graph_new();
    int root = graph_of(g, 0), i;
    busy b;
    pthread_t th;
    ng_render_opts o;
    float *ref;
    if (SANITIZED) {
        printf("  (not under the sanitizers: their allocator is not fork-safe)\n");
        ng_graph_free(g);
        return;
    }
    opts(&o, 128, 128, 1, 16);
    ref = t_render(g, root, &o);
    CHECK(ref != NULL);
    b.g = g;
    b.root = root;
    atomic_init(&b.stop, 0);
    CHECK(pthread_create(&th, NULL, busy_renders, &b) == 0);
    for (i = 0; ref && i < 10; i++) {
        int status;
        pid_t pid;
        fflush(NULL);
        pid = fork();
        if (pid == 0) child_render(g, root, ref);
        CHECK(pid > 0);
        if (pid <= 0) break;
        status = wait_or_kill(pid, 120);
        CHECKF(status != -1, "fork %d: the child hung (killed after 120 s)", i);
        CHECKF(status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
               "fork %d: the child's render failed (status %d: 1 bits differ, 2 no helper of its own)", i,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    atomic_store(&b.stop, 1);
    pthread_join(th, NULL);
    free(ref);
    ng_graph_free(g);
}

/* A thread holding a lock of the engine's for a while: a patch cache's or
 * the patch pool's, as a thread computing or taking a patch would. */
typedef struct holder {
    ng__hood_cache *cache; /* NULL: the pool's lock */
    atomic_int held;
} holder;

static void *hold_a_while(void *arg)
{
    holder *h = arg;
    const struct timespec nap = {0, 150 * 1000 * 1000};
    if (h->cache) ng__hood_hold(h->cache, 1);
    else ng__slab_hold(1);
    atomic_store(&h->held, 1);
    nanosleep(&nap, NULL);
    if (h->cache) ng__hood_hold(h->cache, 0);
    else ng__slab_hold(0);
    return NULL;
}

/* A child forked while another thread holds the graph's patch cache's lock,
 * or the patch pool's, renders the graph (a blur: patches from the cache
 * and the pool) on 2 threads with the right bits and does not hang: the
 * fork waits for the lock (core/fork.c), which the child then has free.
 * Without the fork handler the child inherited the lock held by a thread
 * that does not exist there and hung in its first render. */
static void test_fork_while_engine_lock_held(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *blur = t_on(g, "blur", graph_of(g, 0));
    int root, which;
    ng_render_opts o;
    float *ref;
    t_set(blur, "radius", 9);
    root = t_finish_ok(g, blur);
    t_opts(&o, 96, 80);
    o.threads = 2;
    o.tile = 16;
    ref = t_render(g, root, &o); /* makes the graph's cache, fills the pool */
    CHECK(ref != NULL && ng__graph_hood(g) != NULL);
    for (which = 0; ref && ng__graph_hood(g) && which < 2; which++) {
        holder h = {which ? NULL : ng__graph_hood(g), 0};
        pthread_t th;
        pid_t pid;
        int status;
        CHECK(pthread_create(&th, NULL, hold_a_while, &h) == 0);
        while (!atomic_load(&h.held)) sched_yield();
        fflush(NULL);
        pid = fork();
        if (pid == 0) _exit(render_matches(g, root, &o, ref) ? 0 : 1);
        pthread_join(th, NULL);
        CHECK(pid > 0);
        if (pid <= 0) break;
        status = wait_or_kill(pid, 60);
        CHECKF(status != -1, "%s's lock held at the fork: the child hung (killed after 60 s)",
               which ? "the patch pool" : "the patch cache");
        CHECKF(status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
               "%s's lock held at the fork: the child's render failed (status %d)",
               which ? "the patch pool" : "the patch cache", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    free(ref);
    ng_graph_free(g);
}

/* ---- the pool and the caller's floating-point environment ------------------ */

typedef struct fenv_job {
    const ng_graph *g;
    int root;
    float *nearest;    /* the 1-thread render under the default environment */
    int differs, bad;  /* renders under the caller's environment */
} fenv_job;

enum { FW = 256, FH = 256 };

static float *render_with_threads(const ng_graph *g, int root, int threads)
{
    ng_render_opts o;
    t_opts(&o, FW, FH);
    o.threads = threads;
    o.tile = 16;
    return t_render(g, root, &o);
}

/* An application thread rounding upwards: its 1-thread render, then
 * renders on 2 threads that must give the same bits. */
static void *upward_renders(void *arg)
{
    fenv_job *j = arg;
    float *ref;
    int i;
    fesetround(FE_UPWARD);
    ref = render_with_threads(j->g, j->root, 1);
    j->differs = ref && j->nearest && memcmp(ref, j->nearest, FW * FH * sizeof(float)) != 0;
    for (i = 0; ref && i < 8; i++) {
        float *img = render_with_threads(j->g, j->root, 2);
        if (!img || memcmp(img, ref, FW * FH * sizeof(float))) j->bad++;
        free(img);
    }
    fesetround(FE_TONEAREST);
    free(ref);
    return NULL;
}

/* Threads inherit the floating-point environment (rounding, FTZ/DAZ) of
 * the thread that starts them. The pool's helpers were started by an
 * earlier render, here on a thread rounding to nearest; a render from a
 * thread rounding upwards must still be the same bits on 2 threads as on
 * 1, as it was when each render started its own workers. */
static void test_helpers_take_the_callers_fp_environment(void)
{
    ng_graph *g = ng_graph_new();
    fenv_job j;
    pthread_t th;
    float *warm;
    memset(&j, 0, sizeof j);
    j.g = g;
    j.root = t_warp(g, t_fbm(g, t_noise(g, "perlin", 23, 3), 5, 2, 0.5), t_vnoise(g, "simplex", 40, 2), 8);
    warm = render_with_threads(g, j.root, 2); /* helpers exist, rounding to nearest */
    j.nearest = render_with_threads(g, j.root, 1);
    CHECK(warm && j.nearest);
    CHECK(pthread_create(&th, NULL, upward_renders, &j) == 0);
    pthread_join(th, NULL);
    CHECKF(j.differs, "rounding upwards changed no sample: the test shows nothing");
    CHECKF(j.bad == 0, "%d of 8 renders on 2 threads differ from 1 thread under the caller's rounding mode", j.bad);
    free(warm), free(j.nearest);
    ng_graph_free(g);
}

NG_SUITE(pool, fast)
{
    RUN(test_identical_for_threads_and_repeats);
    RUN(test_more_threads_than_tiles);
    RUN(test_many_small_renders);
    RUN(test_concurrent_renders);
    RUN(test_render_after_stop);
    RUN(test_helpers_outlive_renders);
    RUN(test_render_in_forked_child);
    RUN(test_fork_while_engine_lock_held);
    RUN(test_helpers_take_the_callers_fp_environment);
}
