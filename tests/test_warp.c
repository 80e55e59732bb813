/*
 * test_warp.c — the domain warp as a user relies on it: warp(source, by, k)
 * at p is the source at p + k * by(p), on the axes the field has (2D, and
 * 3D by 3 channels); one octave is that whatever the octave settings;
 * octaves compose exactly as documented (progressive and independent), a
 * fractional octave fades in continuously and the modes differ; an amount
 * mask of 0 leaves the source exactly as it is. And its one-pass move by a
 * constant amount (loops.h axpy_const_to: every moved axis in one loop,
 * amount * weight rounded once instead of per sample) against the general
 * move by an amount plane (axpy_masked_to per axis), which an amount node
 * of the same value takes: the same bits, for 2D and 3D, one octave (the
 * field's planes moved in place) and several (positions in their own
 * buffer, a fraction fading the last in), both modes, on every SIMD path.
 * A move that rounded differently (amount * (w * x), or the weight left out
 * of a later octave) is off by ulps there. (The warp's gradient:
 * tests/test_gradients.c.)
 */
#include "build.h"
#include "harness.h"
#include "sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int coord(ng_graph *g, const char *axis) { return t_finish(g, t_begin(g, axis)); }

/* warp(source, by, k) at p equals source at p + k * by(p). */
static void test_warp_displaces_by_vector(void)
{
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "simplex", 20, 1), by = t_vnoise(g, "perlin", 50, 2);
    int w = t_warp(g, src, by, 30), w0 = t_warp(g, src, by, 0), i;
    double xs[100], ys[100], wx[100], wy[100];
    const double *p[2] = {xs, ys}, *q[2] = {wx, wy};
    float vec[300], warped[100], direct[100], zero[100], plain[100];
    ng_error err;
    for (i = 0; i < 100; i++) xs[i] = 3.5 + i * 7.25, ys[i] = 100.5 - i * 3.125;
    CHECK_INT(ng_eval_points(g, by, 2, p, 100, vec, &err), 0);
    for (i = 0; i < 100; i++) wx[i] = xs[i] + 30.0 * vec[i * 3], wy[i] = ys[i] + 30.0 * vec[i * 3 + 1];
    CHECK_INT(ng_eval_points(g, w, 2, p, 100, warped, &err), 0);
    CHECK_INT(ng_eval_points(g, src, 2, q, 100, direct, &err), 0);
    CHECK_INT(ng_eval_points(g, w0, 2, p, 100, zero, &err), 0);
    CHECK_INT(ng_eval_points(g, src, 2, p, 100, plain, &err), 0);
    for (i = 0; i < 100; i++) {
        CHECK_NEAR(warped[i], direct[i], 1e-3);
        CHECK_NEAR(zero[i], plain[i], 0);
    }
    ng_graph_free(g);
}

/* A one-octave warp (its value path moves the field's planes in place and
 * leaves unmoved axes uncopied) samples its source at x + amount * field(x)
 * on the axes the field has: 2D, and 3D by 3 channels. (Its bits against
 * the gradient path, which ng.light and ng.slope take: tests/test_gradients.c.) */
static void test_warp_moves_by_the_field(void)
{
    enum { M = 400 };
    static double xs[3][M], moved[3][M];
    int dims;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        int field = t_vnoise(g, "simplex", 35, 3), source = t_noise(g, "perlin", 25, 8);
        int warp = t_warp(g, source, field, 11);
        const double *px[3] = {xs[0], xs[1], xs[2]}, *pm[3] = {moved[0], moved[1], moved[2]};
        float *f, *w, *s;
        double worst = 0, shift = 0;
        int i, d;
        for (d = 0; d < dims; d++)
            for (i = 0; i < M; i++) xs[d][i] = t_rng_range(-300, 300);
        f = t_points(g, field, dims, M, px[0], px[1], px[2]);
        w = t_points(g, warp, dims, M, px[0], px[1], px[2]);
        for (i = 0; f && i < M; i++)
            for (d = 0; d < dims; d++) {
                moved[d][i] = xs[d][i] + 11.0 * f[(size_t)i * 3 + (size_t)d]; /* 3 channels, interleaved */
                shift = fmax(shift, fabs(moved[d][i] - xs[d][i]));
            }
        s = f ? t_points(g, source, dims, M, pm[0], pm[1], pm[2]) : NULL;
        for (i = 0; w && s && i < M; i++) worst = fmax(worst, fabs((double)w[i] - s[i]));
        CHECK(f && w && s);
        CHECKF(shift > 5, "%dD warp: largest shift %g", dims, shift);
        CHECKF(worst < 1e-3, "%dD warp: off the source at the moved points by %g", dims, worst);
        free(f), free(w), free(s);
        ng_graph_free(g);
    }
}

/* ---- octaves, modes and masks --------------------------------------------------------------------------------------- */

enum { WN = 200 };

static void warp_points(double *x, double *y)
{
    int i;
    for (i = 0; i < WN; i++) x[i] = -17.3 + 0.377 * i, y[i] = 9.1 - 0.291 * i;
}

/* One octave is source(p + amount * by(p)), whatever the octave settings. */
static void test_warp_one_octave(void)
{
    const double a = 7;
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 20, 3), by = t_vnoise(g, "simplex", 50, 4), amt = t_const(g, a);
    int w = t_warp(g, src, by, a), w1 = t_warp_node(g, src, by, amt, 1, 3.5, 1.7, "independent"), i;
    double x[WN], y[WN], qx[WN], qy[WN];
    float *vb, *vq, *vw, *vw1;
    warp_points(x, y);
    vb = t_points(g, by, 2, WN, x, y, NULL);
    for (i = 0; vb && i < WN; i++) qx[i] = x[i] + a * vb[3 * i], qy[i] = y[i] + a * vb[3 * i + 1];
    vq = vb ? t_points(g, src, 2, WN, qx, qy, NULL) : NULL;
    vw = t_points(g, w, 2, WN, x, y, NULL);
    vw1 = t_points(g, w1, 2, WN, x, y, NULL);
    for (i = 0; vq && vw && vw1 && i < WN; i++) {
        CHECK_NEAR(vw[i], vq[i], 2e-5);
        CHECK_NEAR(vw1[i], vw[i], 0);
    }
    free(vb), free(vq), free(vw), free(vw1);
    ng_graph_free(g);
}

/*
 * Octaves composed exactly, with a field that has no seed (built from the
 * coordinates, so the per-octave seed change cannot matter) and a source
 * that returns its own position: by(p) = (0.01 y^2, 0.05 x y). The warp's
 * output is then the displaced position itself.
 *   independent: p + a by(p) + a r by(L p) [+ frac a r^2 by(L^2 p)]
 *   progressive: p1 = p + a by(p); p2 = p1 + a r by(L p1); ...
 */
static void by_field(double px, double py, double *bx, double *bY)
{
    *bx = 0.01 * py * py;
    *bY = 0.05 * px * py;
}

static void check_octaves(const ng_graph *g, int w, double a, double octaves, double lac, double rough,
                          int progressive, int line)
{
    double x[WN], y[WN];
    float *v;
    int i, k, bad = 0;
    const int full = (int)floor(octaves), count = full + (octaves > full);
    warp_points(x, y);
    v = t_points(g, w, 2, WN, x, y, NULL);
    for (i = 0; v && i < WN; i++) {
        double px = x[i], py = y[i], scale = 1, weight = 1;
        for (k = 0; k < count; k++, scale *= lac, weight *= rough) {
            double bx, bY, wk = k < full ? weight : weight * (octaves - full);
            by_field(progressive ? px * scale : x[i] * scale, progressive ? py * scale : y[i] * scale, &bx, &bY);
            px += a * wk * bx;
            py += a * wk * bY;
        }
        if (!(fabs(v[2 * i] - px) <= 1e-4 * (1 + fabs(px)) && fabs(v[2 * i + 1] - py) <= 1e-4 * (1 + fabs(py))) && bad++ < 3)
            ng_t_fail(__FILE__, line, "octaves %g %s at (%g, %g): got (%.7g, %.7g), composed (%.7g, %.7g)", octaves,
                      progressive ? "progressive" : "independent", x[i], y[i], v[2 * i], v[2 * i + 1], px, py);
    }
    free(v);
}

static void test_warp_octaves_composed(void)
{
    const double a = 3, lac = 2, r = 0.5;
    ng_graph *g = ng_graph_new();
    int X = coord(g, "x"), Y = coord(g, "y"), pos = t_vector(g, X, Y, -1);
    int bx = t_bin(g, "mul", t_bin(g, "mul", Y, Y), t_const(g, 0.01));
    int bY = t_bin(g, "mul", t_bin(g, "mul", X, Y), t_const(g, 0.05));
    int by = t_vector(g, bx, bY, -1), amt = t_const(g, a);
    int ind2 = t_warp_node(g, pos, by, amt, 2, lac, r, "independent");
    int pro2 = t_warp_node(g, pos, by, amt, 2, lac, r, "progressive");
    int ind25 = t_warp_node(g, pos, by, amt, 2.5, lac, r, "independent");
    int pro3 = t_warp_node(g, pos, by, amt, 3, 3, 0.7, NULL); /* progressive is the default */
    int one = t_warp_node(g, pos, by, amt, 1, lac, r, NULL);
    check_octaves(g, one, a, 1, lac, r, 0, __LINE__);
    check_octaves(g, ind2, a, 2, lac, r, 0, __LINE__);
    check_octaves(g, pro2, a, 2, lac, r, 1, __LINE__);
    check_octaves(g, ind25, a, 2.5, lac, r, 0, __LINE__);
    check_octaves(g, pro3, a, 3, 3, 0.7, 1, __LINE__);
    ng_graph_free(g);
}

static double maxdiff(const float *a, const float *b, int n)
{
    double m = 0;
    int i;
    for (i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > m) m = fabs(a[i] - b[i]);
    return m;
}

/* With a noise field: the modes differ; a fractional octave fades in
 * continuously (1.001 ~ 1, 1.999 ~ 2). */
static void test_warp_modes_and_fractions(void)
{
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 15, 11), by = t_vnoise(g, "perlin", 40, 12), amt = t_const(g, 12);
    int pro = t_warp_node(g, src, by, amt, 3, 2, 0.5, "progressive"), ind = t_warp_node(g, src, by, amt, 3, 2, 0.5, "independent");
    int o1 = t_warp_node(g, src, by, amt, 1, 2, 0.5, "independent"), o1f = t_warp_node(g, src, by, amt, 1.001, 2, 0.5, "independent");
    int o2 = t_warp_node(g, src, by, amt, 2, 2, 0.5, "independent"), o2f = t_warp_node(g, src, by, amt, 1.999, 2, 0.5, "independent");
    double x[WN], y[WN];
    float *vp, *vi, *v1, *v1f, *v2, *v2f;
    warp_points(x, y);
    vp = t_points(g, pro, 2, WN, x, y, NULL);
    vi = t_points(g, ind, 2, WN, x, y, NULL);
    v1 = t_points(g, o1, 2, WN, x, y, NULL);
    v1f = t_points(g, o1f, 2, WN, x, y, NULL);
    v2 = t_points(g, o2, 2, WN, x, y, NULL);
    v2f = t_points(g, o2f, 2, WN, x, y, NULL);
    if (vp && vi && v1 && v1f && v2 && v2f) {
        CHECK(maxdiff(vp, vi, WN) > 0.05);
        CHECK(maxdiff(v1, v2, WN) > 0.05); /* the second octave matters */
        CHECK(maxdiff(v1, v1f, WN) > 0);   /* 1.001 adds a little of it ... */
        CHECK_LE(maxdiff(v1, v1f, WN), 2e-3 * maxdiff(v1, v2, WN) + 1e-6); /* ... only a little */
        CHECK(maxdiff(v2, v2f, WN) > 0);
        CHECK_LE(maxdiff(v2, v2f, WN), 2e-3 * maxdiff(v1, v2, WN) + 1e-6);
    }
    free(vp), free(vi), free(v1), free(v1f), free(v2), free(v2f);
    ng_graph_free(g);
}

/* amount as a mask node: 0 for x < 0 leaves the source exactly as it is. */
static void test_warp_amount_mask(void)
{
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 15, 21), by = t_vnoise(g, "simplex", 30, 22);
    ng_node *st = t_on(g, "step", coord(g, "x"));
    int mask, w, w3, i, left = 0, right = 0, moved = 0, moved3 = 0;
    double x[WN], y[WN];
    float *vs, *vw, *vw3;
    t_set(st, "edge", 0);
    mask = t_bin(g, "mul", t_finish(g, st), t_const(g, 9));
    w = t_warp_node(g, src, by, mask, 1, 2, 0.5, NULL);
    w3 = t_warp_node(g, src, by, mask, 3, 2, 0.5, "independent");
    warp_points(x, y);
    vs = t_points(g, src, 2, WN, x, y, NULL);
    vw = t_points(g, w, 2, WN, x, y, NULL);
    vw3 = t_points(g, w3, 2, WN, x, y, NULL);
    for (i = 0; vs && vw && vw3 && i < WN; i++) {
        if (x[i] < 0) {
            left++;
            CHECK_NEAR(vw[i], vs[i], 0);
            CHECK_NEAR(vw3[i], vs[i], 0);
        } else {
            right++;
            moved += vw[i] != vs[i];
            moved3 += vw3[i] != vs[i];
        }
    }
    CHECK(left > 20 && right > 20);
    CHECK(moved >= right * 9 / 10);
    CHECK(moved3 >= right * 9 / 10);
    free(vs), free(vw), free(vw3);
    ng_graph_free(g);
}

/* ---- the one-pass move by a constant amount, on every SIMD path ------------------ */

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

static void warp_path_tests(void)
{
    t_rng_seed(14);
    T_RUN(test_constant_amount_moves_like_a_plane);
    T_RUN(test_constant_amount_image);
}

NG_SUITE(warp, fast)
{
    t_on_every_path("warp", warp_path_tests);
    RUN(test_warp_displaces_by_vector);
    t_rng_seed(42);
    RUN(test_warp_moves_by_the_field);
    RUN(test_warp_one_octave);
    RUN(test_warp_octaves_composed);
    RUN(test_warp_modes_and_fractions);
    RUN(test_warp_amount_mask);
}
