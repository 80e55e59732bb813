/*
 * test_warpspeed.c — the warp's one-pass move by a constant amount
 * (loops.h axpy_const_to: every moved axis in one loop, amount * weight
 * rounded once instead of per sample) against the general move by an
 * amount plane (axpy_masked_to per axis), which an amount node of the same
 * value takes: the same bits, for 2D and 3D (2 and 3 axes moved by the
 * 3-channel field), one octave (the field's planes moved in place) and several (positions
 * in their own buffer, a fraction fading the last in), both modes, on
 * every SIMD path. A move that rounded differently (amount * (w * x), or
 * the weight left out of a later octave) is off by ulps here.
 */
#include "build.h"
#include "harness.h"
#include "sample.h"
#include "suites.h"

#include <stdlib.h>
#include <string.h>

/* The constant amount 20 and the node 10 + 10 (a math node, not a
 * constant: the warp reads its plane) give the same bits at every point. */
static void check_constant_move(int dims, double octaves, const char *mode)
{
    enum { M = 700 };
    static double xs[3][M];
    ng_graph *g = ng_graph_new();
    int field = t_vnoise(g, "simplex", 40, 5), source = t_noise(g, "simplex", 30, 9);
    int a, b, i, d, differ = 0;
    float *wa, *wb;
    a = t_warp_node(g, source, field, t_const(g, 20), octaves, 2.0, 0.5, mode);
    b = t_warp_node(g, source, field, t_bin(g, "add", t_const(g, 10), t_const(g, 10)), octaves, 2.0, 0.5, mode);
    for (d = 0; d < dims; d++)
        for (i = 0; i < M; i++) xs[d][i] = t_rng_range(-400, 400);
    wa = t_points(g, a, dims, M, xs[0], xs[1], xs[2]);
    wb = t_points(g, b, dims, M, xs[0], xs[1], xs[2]);
    for (i = 0; wa && wb && i < M; i++) differ += memcmp(&wa[i], &wb[i], sizeof *wa) != 0;
    CHECK(wa && wb);
    CHECKF(differ == 0, "%dD warp, %g octaves %s: %d of %d points differ", dims, octaves, mode, differ, M);
    free(wa), free(wb);
    ng_graph_free(g);
}

static void test_constant_amount_moves_like_a_plane(void)
{
    static const double octaves[] = {1, 3, 2.5};
    int dims, k, m;
    for (dims = 2; dims <= 3; dims++)
        for (k = 0; k < 3; k++)
            for (m = 0; m < 2; m++) check_constant_move(dims, octaves[k], m ? "independent" : "progressive");
}

/* The same over an image (blocks of a grid, the bench's warp2 row). */
static void test_constant_amount_image(void)
{
    ng_graph *g = ng_graph_new();
    int field = t_vnoise(g, "simplex", 50, 1), source = t_noise(g, "simplex", 50, 0);
    int a = t_warp_node(g, source, field, t_const(g, 20), 1, 2.0, 0.5, "progressive");
    int b = t_warp_node(g, source, field, t_bin(g, "add", t_const(g, 10), t_const(g, 10)), 1, 2.0, 0.5, "progressive");
    ng_render_opts o;
    float *ra, *rb;
    t_opts(&o, 96, 70);
    ra = t_render(g, a, &o);
    rb = t_render(g, b, &o);
    CHECK(ra && rb);
    CHECK(ra && rb && memcmp(ra, rb, 96 * 70 * sizeof *ra) == 0);
    free(ra), free(rb);
    ng_graph_free(g);
}

static void warpspeed_path_tests(void)
{
    t_rng_seed(14);
    T_RUN(test_constant_amount_moves_like_a_plane);
    T_RUN(test_constant_amount_image);
}

void suite_warpspeed(void)
{
    t_on_every_path("warpspeed", warpspeed_path_tests);
}
