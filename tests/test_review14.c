/*
 * test_review14.c — regressions found by the hostile review of issue 14's
 * merged work (the shared worker pool, analytic gradients through the
 * graph, one-walk vector noise).
 */
#include "build.h"
#include "harness.h"
#include "suites.h"

#include <fenv.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

void suite_review14(void)
{
    RUN(test_helpers_take_the_callers_fp_environment);
}
