/*
 * test_nodes.c — the shaping, vector, warp, coordinate and image nodes as a
 * user relies on them: exact values where the docs promise them (select's
 * ends, terrace levels, curve control points, image texels, pixel-centre
 * coordinates), the shape in between (monotone, continuous, flat where it
 * should be), divergence-free curl, the warp octave composition, and the
 * sandboxed image paths of the Lua host.
 *
 * Values are read with ng_eval_points at chosen world points, or by
 * rendering (coordinates, the CLI). Image fixtures are written at run time
 * with libpng into the suite's scratch directory.
 */
#include "build.h"
#include "cli_support.h"
#include "cell_kernels.h"
#include "harness.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- building and evaluating ------------------------------------------------------------- */



static void flag(ng_node *n, const char *param, int v)
{
    ng_error err;
    if (ng_set_bool(n, ng_param_index(ng_node_type_of(n), param), v, &err))
        ng_t_fail(__FILE__, __LINE__, "%s refused: %s", param, err.msg);
}


/* 0 on success; the message in err otherwise */
static int list(ng_node *n, const char *param, const double *v, int count, ng_error *err)
{
    return ng_set_list(n, ng_param_index(ng_node_type_of(n), param), v, count, err);
}

/* a coordinate source: "x", "y", "z" or "time" */
static int coord(ng_graph *g, const char *axis) { return t_finish(g, t_begin(g, axis)); }

/* a begun node of a one-input type with its source connected */


/* Finishing n must fail; its message goes into msg. */
static int finish_fails(ng_graph *g, ng_node *n, char *msg, size_t len)
{
    ng_error err = {{0}};
    int id = ng_node_finish(g, n, &err);
    snprintf(msg, len, "%s", err.msg);
    return id < 0;
}

static int channels(const ng_graph *g, int id) { return ng_node_channels(ng_graph_node(g, id)); }

/* root at n points (dims coordinate arrays; unused ones NULL): n * channels
 * floats, point-major. NULL (and a failed check) when evaluation fails. */

static float ev1(const ng_graph *g, int root, double x)
{
    float *o = t_points(g, root, 1, 1, &x, NULL, NULL), v = o ? o[0] : NAN;
    free(o);
    return v;
}

static float ev2(const ng_graph *g, int root, double x, double y)
{
    float *o = t_points(g, root, 2, 1, &x, &y, NULL), v = o ? o[0] : NAN;
    free(o);
    return v;
}

/* n evenly spaced values lo..hi */
static double *sweep(double lo, double hi, int n)
{
    double *v = malloc((size_t)n * sizeof *v);
    int i;
    for (i = 0; v && i < n; i++) v[i] = lo + (hi - lo) * i / (n - 1);
    return v;
}

/* ---- select -------------------------------------------------------------------------------- */

/* select{a, b, control = x, threshold, falloff} */
static int select_x(ng_graph *g, int a, int b, double threshold, double falloff)
{
    ng_node *n = t_begin(g, "select");
    t_in(g, n, "a", a);
    t_in(g, n, "b", b);
    t_in(g, n, "control", coord(g, "x"));
    t_set(n, "threshold", threshold);
    t_set(n, "falloff", falloff);
    return t_finish(g, n);
}

/* Hard edge: a exactly where control < threshold, b exactly from it on. */
static void test_select_hard_edge(void)
{
    static const double xs[] = {-1000, 3, 9.5, 9.999, 10, 10.001, 10.5, 77, 1e5};
    enum { N = sizeof xs / sizeof xs[0] };
    double ys[N];
    ng_graph *g = ng_graph_new();
    int a = t_noise(g, "perlin", 8, 1), b = t_noise(g, "simplex", 8, 2), s = select_x(g, a, b, 10, 0), i;
    float *va, *vb, *vs;
    for (i = 0; i < N; i++) ys[i] = 3.3 + 1.7 * i;
    va = t_points(g, a, 2, N, xs, ys, NULL);
    vb = t_points(g, b, 2, N, xs, ys, NULL);
    vs = t_points(g, s, 2, N, xs, ys, NULL);
    for (i = 0; va && vb && vs && i < N; i++) {
        CHECK(va[i] != vb[i]); /* the two sides are told apart */
        if (xs[i] < 10) CHECK_NEAR(vs[i], va[i], 0);
        else CHECK_NEAR(vs[i], vb[i], 0); /* control < threshold picks a: the threshold itself is b's */
    }
    free(va), free(vb), free(vs);
    ng_graph_free(g);
}

/* Soft edge: a at threshold - f, b at threshold + f, the average at the
 * threshold; monotone and continuous in between. */
static void test_select_falloff(void)
{
    enum { N = 6001 };
    const double th = 10, f = 2;
    ng_graph *g = ng_graph_new();
    int a = t_noise(g, "perlin", 8, 1), b = t_noise(g, "simplex", 8, 2), s = select_x(g, a, b, th, f);
    int ca = t_const(g, -1), cb = t_const(g, 3), sc = select_x(g, ca, cb, th, f), i;
    const double xs[] = {th - f, th + f, th, th - f - 0.5, th + f + 0.5, th - f - 100, th + f + 100};
    const double ys[] = {4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 1.1};
    float *va = t_points(g, a, 2, 7, xs, ys, NULL), *vb = t_points(g, b, 2, 7, xs, ys, NULL);
    float *vs = t_points(g, s, 2, 7, xs, ys, NULL), *v;
    double *x = sweep(th - f - 1, th + f + 1, N), maxjump = 0;
    if (va && vb && vs) {
        CHECK_NEAR(vs[0], va[0], 0);                     /* threshold - f: a exactly */
        CHECK_NEAR(vs[1], vb[1], 1e-6);                  /* threshold + f: b */
        CHECK_NEAR(vs[2], 0.5 * (va[2] + vb[2]), 1e-6);  /* the midpoint */
        CHECK_NEAR(vs[3], va[3], 0);                     /* beyond the soft edge */
        CHECK_NEAR(vs[4], vb[4], 1e-6);
        CHECK_NEAR(vs[5], va[5], 0);
        CHECK_NEAR(vs[6], vb[6], 1e-6);
    }
    /* constants -1 and 3: the blend alone, swept finely */
    v = t_points(g, sc, 1, N, x, NULL, NULL);
    for (i = 0; v && x && i < N; i++) {
        if (x[i] <= th - f) CHECK_NEAR(v[i], -1, 0);
        if (x[i] >= th + f) CHECK_NEAR(v[i], 3, 1e-6);
        if (i) {
            double jump = v[i] - v[i - 1];
            if (jump < 0) ng_t_fail(__FILE__, __LINE__, "select not monotone at control %.6f: %.9g after %.9g", x[i], v[i], v[i - 1]);
            if (jump > maxjump) maxjump = jump;
        }
    }
    /* smoothstep's steepest slope is 1.5 / (2 f) times (b - a) = 1.5 per unit here */
    CHECK_LE(maxjump, 1.5 * (x[1] - x[0]) * 1.01 + 1e-6);
    CHECK(maxjump > 0);
    CHECK_NEAR(ev1(g, sc, th), 1, 1e-6);
    /* the blend is a smoothstep: a quarter of the way in, 3t^2 - 2t^3 = 0.15625 of b - a */
    CHECK_NEAR(ev1(g, sc, th - f / 2), -1 + 4 * 0.15625, 1e-6);
    CHECK_NEAR(ev1(g, sc, th + f / 2), -1 + 4 * (1 - 0.15625), 1e-6);
    free(x), free(v), free(va), free(vb), free(vs);
    ng_graph_free(g);
}

/* ---- step, smoothstep, sqrt, invert -------------------------------------------------------- */

static void test_step(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_on(g, "step", coord(g, "x"));
    int s;
    t_set(n, "edge", 0.5);
    s = t_finish(g, n);
    CHECK_NEAR(ev1(g, s, -3), 0, 0);
    CHECK_NEAR(ev1(g, s, 0.4999), 0, 0);
    CHECK_NEAR(ev1(g, s, 0.5), 1, 0); /* from edge on */
    CHECK_NEAR(ev1(g, s, 0.5001), 1, 0);
    CHECK_NEAR(ev1(g, s, 1e6), 1, 0);
    ng_graph_free(g);
}

static void test_smoothstep(void)
{
    enum { N = 2001 };
    const double lo = 2, hi = 6, h = 1e-3;
    ng_graph *g = ng_graph_new();
    ng_node *n = t_on(g, "smoothstep", coord(g, "x"));
    char msg[512];
    double *x = sweep(0, 8, N);
    float *v;
    int s, i;
    t_set(n, "lo", lo);
    t_set(n, "hi", hi);
    s = t_finish(g, n);
    CHECK_NEAR(ev1(g, s, -5), 0, 0);
    CHECK_NEAR(ev1(g, s, lo), 0, 0);
    CHECK_NEAR(ev1(g, s, 4), 0.5, 1e-7);
    CHECK_NEAR(ev1(g, s, hi), 1, 0);
    CHECK_NEAR(ev1(g, s, 60), 1, 0);
    CHECK_NEAR(ev1(g, s, 3), 0.15625, 1e-6); /* t = 1/4: 3t^2 - 2t^3 */
    /* flat at both ends, steepest (1.5 / (hi - lo)) in the middle */
    CHECK_LE(fabs(ev1(g, s, lo + h) - ev1(g, s, lo)) / h, 1e-3);
    CHECK_LE(fabs(ev1(g, s, hi) - ev1(g, s, hi - h)) / h, 1e-3);
    CHECK_NEAR((ev1(g, s, 4 + h) - ev1(g, s, 4 - h)) / (2 * h), 1.5 / (hi - lo), 2e-3);
    v = t_points(g, s, 1, N, x, NULL, NULL);
    for (i = 1; v && i < N; i++)
        if (v[i] < v[i - 1]) ng_t_fail(__FILE__, __LINE__, "smoothstep decreases at %g", x[i]);
    free(v);
    free(x);
    /* reversed edges, as GLSL and Houdini take them: 1 below hi, 0 above
     * lo, the mirror of the ramp (smoothstep(6, 2, x) = 1 - smoothstep(2, 6, x)) */
    n = t_on(g, "smoothstep", coord(g, "x"));
    t_set(n, "lo", hi);
    t_set(n, "hi", lo);
    {
        const int r = t_finish(g, n);
        CHECK_NEAR(ev1(g, r, -5), 1, 0);
        CHECK_NEAR(ev1(g, r, lo), 1, 0);
        CHECK_NEAR(ev1(g, r, hi), 0, 0);
        CHECK_NEAR(ev1(g, r, 60), 0, 0);
        CHECK_NEAR(ev1(g, r, 3), 1 - 0.15625, 1e-6);
        CHECK_NEAR(ev1(g, r, 5), 0.15625, 1e-6);
        CHECK_NEAR((ev1(g, r, 4 + h) - ev1(g, r, 4 - h)) / (2 * h), -1.5 / (hi - lo), 2e-3);
    }
    /* equal edges are no ramp */
    n = t_on(g, "smoothstep", coord(g, "x"));
    t_set(n, "lo", 3);
    t_set(n, "hi", 3);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "lo = 3 and hi = 3 are equal: no ramp");
    ng_graph_free(g);
}

static void test_sqrt_and_invert(void)
{
    ng_graph *g = ng_graph_new();
    int x = coord(g, "x"), sq = t_finish_ok(g, t_on(g, "sqrt", x)), inv = t_finish_ok(g, t_on(g, "invert", x));
    int p = t_noise(g, "perlin", 16, 9), twice = t_finish_ok(g, t_on(g, "invert", t_finish_ok(g, t_on(g, "invert", p))));
    float v;
    CHECK_NEAR(ev1(g, sq, 4), 2, 0);
    CHECK_NEAR(ev1(g, sq, 2.25), 1.5, 0);
    CHECK_NEAR(ev1(g, sq, 0), 0, 0);
    v = ev1(g, sq, -4); /* negatives give 0, not NaN */
    CHECK_NEAR(v, 0, 0);
    v = ev1(g, sq, -1e-7);
    CHECK_NEAR(v, 0, 0);
    CHECK_NEAR(ev1(g, inv, 0.25), 0.75, 0);
    CHECK_NEAR(ev1(g, inv, 0), 1, 0);
    CHECK_NEAR(ev1(g, inv, 1), 0, 0);
    CHECK_NEAR(ev1(g, inv, -1), 2, 0);
    CHECK_NEAR(ev2(g, twice, 13.7, 2.2), ev2(g, p, 13.7, 2.2), 1e-7);
    ng_graph_free(g);
}

/* ---- terrace -------------------------------------------------------------------------------- */

static int terrace_steps(ng_graph *g, int src, int steps, int invert)
{
    ng_node *n = t_on(g, "terrace", src);
    t_set(n, "steps", steps);
    if (invert) flag(n, "invert", 1);
    return t_finish(g, n);
}

/* Exactly the level at each level, flat just above it, steep just below
 * the next, monotone, within [lo, hi]. */
static void test_terrace_steps(void)
{
    enum { N = 4001 };
    ng_graph *g = ng_graph_new();
    int t = terrace_steps(g, coord(g, "x"), 4, 0), i, k;
    double *x = sweep(-0.5, 1.5, N);
    float *v;
    for (k = 0; k <= 4; k++) {
        const double lv = k / 4.0;
        CHECK_NEAR(ev1(g, t, lv), lv, 0);
        if (k < 4) {
            /* the flat: slope ~0 just above the level (the riser averages slope 1) */
            double flat = (ev1(g, t, lv + 1e-3) - ev1(g, t, lv + 1e-4)) / 9e-4;
            double steep = (ev1(g, t, lv + 0.25 - 1e-4) - ev1(g, t, lv + 0.25 - 1e-3)) / 9e-4;
            CHECK_LE(fabs(flat), 0.02);
            CHECK(steep > 1.9 && steep < 2.1); /* 2: the t^2 easing's end slope */
        }
    }
    CHECK_NEAR(ev1(g, t, -7), 0, 0);
    CHECK_NEAR(ev1(g, t, 7), 1, 0);
    v = t_points(g, t, 1, N, x, NULL, NULL);
    for (i = 0; v && i < N; i++) {
        if (v[i] < 0 || v[i] > 1) ng_t_fail(__FILE__, __LINE__, "terrace(%g) = %g outside [0, 1]", x[i], v[i]);
        if (i && v[i] < v[i - 1]) ng_t_fail(__FILE__, __LINE__, "terrace decreases at %g: %g after %g", x[i], v[i], v[i - 1]);
    }
    free(v);
    free(x);
    ng_graph_free(g);
}

/* invert swaps the easing: t^2 becomes 1 - (1 - t)^2 between two levels. */
static void test_terrace_invert(void)
{
    ng_graph *g = ng_graph_new();
    int x = coord(g, "x"), t = terrace_steps(g, x, 4, 0), ti = terrace_steps(g, x, 4, 1), k;
    const double v = 0.25 + 0.25 * 0.3; /* t = 0.3 in [0.25, 0.5] */
    CHECK_NEAR(ev1(g, t, v), 0.25 + 0.25 * 0.09, 1e-6);
    CHECK_NEAR(ev1(g, ti, v), 0.25 + 0.25 * (1 - 0.49), 1e-6);
    for (k = 0; k <= 4; k++) CHECK_NEAR(ev1(g, ti, k / 4.0), k / 4.0, 0);
    /* inverted: flat just below each level instead of just above */
    for (k = 1; k <= 4; k++) {
        const double lv = k / 4.0;
        CHECK_LE(fabs(ev1(g, ti, lv - 1e-4) - ev1(g, ti, lv - 1e-3)) / 9e-4, 0.02);
        CHECK(fabs(ev1(g, ti, lv - 0.25 + 1e-3) - ev1(g, ti, lv - 0.25 + 1e-4)) / 9e-4 > 1.9);
    }
    ng_graph_free(g);
}

static void test_terrace_points(void)
{
    static const double pts[] = {-0.5, 0.1, 0.6, 2};
    enum { N = 3001 };
    ng_graph *g = ng_graph_new();
    ng_node *n = t_on(g, "terrace", coord(g, "x"));
    ng_error err;
    double *x = sweep(-1, 2.5, N);
    float *v;
    int t, i, k;
    if (list(n, "points", pts, 4, &err)) ng_t_fail(__FILE__, __LINE__, "points refused: %s", err.msg);
    t = t_finish(g, n);
    for (k = 0; k < 4; k++) CHECK_NEAR(ev1(g, t, pts[k]), (float)pts[k], 0);
    CHECK_NEAR(ev1(g, t, 0.1 + 0.5 * 0.5), 0.1 + 0.5 * 0.25, 1e-6);
    v = t_points(g, t, 1, N, x, NULL, NULL);
    for (i = 0; v && i < N; i++) {
        if (v[i] < -0.5 || v[i] > 2) ng_t_fail(__FILE__, __LINE__, "terrace(%g) = %g outside [-0.5, 2]", x[i], v[i]);
        if (i && v[i] < v[i - 1]) ng_t_fail(__FILE__, __LINE__, "terrace decreases at %g", x[i]);
    }
    free(v);
    free(x);
    ng_graph_free(g);
}

static void test_terrace_errors(void)
{
    static const double two[] = {0, 1}, down[] = {0, 0.5, 0.4, 1}, one[] = {0.5};
    ng_graph *g = ng_graph_new();
    int x = coord(g, "x");
    ng_error err;
    char msg[512];
    ng_node *n = t_on(g, "terrace", x);
    t_set(n, "steps", 4);
    CHECK(list(n, "points", two, 2, &err) == 0);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "steps or points, not both");

    n = t_on(g, "terrace", x);
    CHECK(list(n, "points", down, 4, &err) == 0);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "must increase");
    CHECK_CONTAINS(msg, "level 3 is 0.4 after 0.5");

    /* one point: refused when given, or at the latest when the node is finished */
    n = t_on(g, "terrace", x);
    if (list(n, "points", one, 1, &err) == 0) {
        CHECK(finish_fails(g, n, msg, sizeof msg));
        CHECK_CONTAINS(msg, "2 points");
    } else {
        CHECK_CONTAINS(err.msg, "'points'");
        CHECK_CONTAINS(err.msg, "got 1 number");
        ng_node_discard(n);
    }
    /* neither steps nor points */
    n = t_on(g, "terrace", x);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "at least 2 points");
    ng_graph_free(g);
}

/* ---- curve ------------------------------------------------------------------------------------- */

static int curve_of(ng_graph *g, int src, const double *pts, int npts)
{
    ng_node *n = t_on(g, "curve", src);
    ng_error err;
    if (list(n, "points", pts, 2 * npts, &err)) ng_t_fail(__FILE__, __LINE__, "points refused: %s", err.msg);
    return t_finish(g, n);
}

/* Through every point; within each segment monotone and between its two
 * y values (no overshoot); flat beyond the ends. Segments are told by the
 * coordinate the node actually sees (the x node at the same points). */
static void check_curve(const double *pts, int npts, int line)
{
    enum { N = 6001 };
    ng_graph *g = ng_graph_new();
    int X = coord(g, "x"), c = curve_of(g, X, pts, npts), i, k;
    const double x0 = pts[0], x1 = pts[2 * (npts - 1)];
    double *x = sweep(x0 - 0.5, x1 + 0.5, N);
    float *v, *xe;
    for (k = 0; k < npts; k++) {
        float got = ev1(g, c, pts[2 * k]);
        if (!(fabs(got - pts[2 * k + 1]) <= 1e-6))
            ng_t_fail(__FILE__, line, "curve(%g) = %.9g, not the control point's %g", pts[2 * k], got, pts[2 * k + 1]);
    }
    v = t_points(g, c, 1, N, x, NULL, NULL);
    xe = t_points(g, X, 1, N, x, NULL, NULL);
    for (i = 0; v && xe && i < N; i++) {
        const double u = xe[i];
        if (u <= (float)x0) {
            if (v[i] != (float)pts[1]) ng_t_fail(__FILE__, line, "curve(%.9g) = %.9g before the first point", u, v[i]);
        } else if (u >= (float)x1) {
            if (v[i] != (float)pts[2 * npts - 1]) ng_t_fail(__FILE__, line, "curve(%.9g) = %.9g after the last point", u, v[i]);
        } else {
            double ya, yb, lo, hi;
            for (k = 0; k < npts - 2 && u >= (float)pts[2 * (k + 1)]; k++) {}
            ya = pts[2 * k + 1], yb = pts[2 * k + 3];
            lo = ya < yb ? ya : yb, hi = ya < yb ? yb : ya;
            if (v[i] < lo - 1e-6 || v[i] > hi + 1e-6)
                ng_t_fail(__FILE__, line, "curve(%.9g) = %.9g overshoots [%g, %g]", u, v[i], lo, hi);
            /* monotone within the segment, the way its ends go */
            if (i && xe[i - 1] >= (float)pts[2 * k] && (yb - ya) * (v[i] - v[i - 1]) < -1e-6 * fabs(yb - ya))
                ng_t_fail(__FILE__, line, "curve turns back at %.9g: %.9g after %.9g", u, v[i], v[i - 1]);
        }
    }
    free(v);
    free(xe);
    free(x);
    ng_graph_free(g);
}

static void test_curve_through_points(void)
{
    static const double simple[] = {0, 0, 0.5, 0.8, 1, 1};
    static const double wiggly[] = {-1, 2, 0, -1, 0.5, 3, 2, 2.5, 2.25, 2.5, 3, -4};
    check_curve(simple, 3, __LINE__);
    check_curve(wiggly, 6, __LINE__);
}

/* Data where a Catmull-Rom or natural spline overshoots: Fritsch-Carlson
 * stays monotone and inside each step. */
static void test_curve_monotone(void)
{
    static const double steep[] = {0, 0, 0.1, 0.05, 0.2, 0.9, 0.3, 0.95, 0.6, 0.96, 1, 1};
    static const double plateau[] = {0, 0, 0.4, 0.5, 0.6, 0.5, 1, 1};
    static const double falling[] = {0, 1, 0.05, 0.1, 0.9, 0.05, 1, 0};
    enum { N = 10001 };
    ng_graph *g = ng_graph_new();
    int c = curve_of(g, coord(g, "x"), steep, 6), i;
    double *x = sweep(0, 1, N);
    float *v = t_points(g, c, 1, N, x, NULL, NULL);
    check_curve(steep, 6, __LINE__);
    check_curve(plateau, 4, __LINE__);
    check_curve(falling, 4, __LINE__);
    for (i = 1; v && i < N; i++)
        if (v[i] < v[i - 1]) ng_t_fail(__FILE__, __LINE__, "curve decreases at %g: %.9g after %.9g", x[i], v[i], v[i - 1]);
    free(v);
    free(x);
    ng_graph_free(g);
}

static void test_curve_errors(void)
{
    static const double same_x[] = {0, 0, 0.5, 1, 0.5, 2}, back[] = {0, 0, 0.7, 1, 0.3, 2}, one[] = {0, 0};
    ng_graph *g = ng_graph_new();
    int x = coord(g, "x");
    ng_error err;
    char msg[512];
    ng_node *n = t_on(g, "curve", x);
    CHECK(list(n, "points", same_x, 6, &err) == 0);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "point 3 has x = 0.5, not above the previous 0.5");
    n = t_on(g, "curve", x);
    CHECK(list(n, "points", back, 6, &err) == 0);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "point 3 has x = 0.3");
    n = t_on(g, "curve", x);
    if (list(n, "points", one, 2, &err) == 0) {
        CHECK(finish_fails(g, n, msg, sizeof msg));
        CHECK_CONTAINS(msg, "at least 2 points");
    } else {
        CHECK_CONTAINS(err.msg, "'points'");
        CHECK_CONTAINS(err.msg, "{x, y} pairs");
        ng_node_discard(n);
    }
    n = t_on(g, "curve", x); /* no points at all */
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "at least 2 points");
    ng_graph_free(g);
}

/* ---- vector and channel ----------------------------------------------------------------------- */

static int channel_of(ng_graph *g, int src, int index)
{
    ng_node *n = t_on(g, "channel", src);
    t_set(n, "index", index);
    return t_finish(g, n);
}

static void test_vector_channels(void)
{
    enum { N = 50 };
    ng_graph *g = ng_graph_new();
    int a = t_noise(g, "perlin", 10, 1), b = t_noise(g, "value", 7, 2);
    int v2 = t_vector(g, a, b, -1), v3 = t_vector(g, a, b, t_const(g, 7)), i;
    double xs[N], ys[N];
    float *va, *vb, *o2, *o3;
    CHECK_INT(channels(g, v2), 2);
    CHECK_INT(channels(g, v3), 3);
    for (i = 0; i < N; i++) xs[i] = 1.3 * i - 20, ys[i] = 0.7 * i + 3;
    va = t_points(g, a, 2, N, xs, ys, NULL);
    vb = t_points(g, b, 2, N, xs, ys, NULL);
    o2 = t_points(g, v2, 2, N, xs, ys, NULL);
    o3 = t_points(g, v3, 2, N, xs, ys, NULL);
    for (i = 0; va && vb && o2 && o3 && i < N; i++) {
        CHECK_NEAR(o2[2 * i], va[i], 0);
        CHECK_NEAR(o2[2 * i + 1], vb[i], 0);
        CHECK_NEAR(o3[3 * i], va[i], 0);
        CHECK_NEAR(o3[3 * i + 1], vb[i], 0);
        CHECK_NEAR(o3[3 * i + 2], 7, 0);
    }
    free(va), free(vb), free(o2), free(o3);
    ng_graph_free(g);
}

/* channel(v, k) is exactly the k-th channel of a vector noise */
static void test_channel_picks(void)
{
    enum { N = 64 };
    ng_graph *g = ng_graph_new();
    int v = t_vnoise(g, "perlin", 12, 5), ch = channels(g, v), c1 = channel_of(g, v, 1), c2 = channel_of(g, v, 2);
    int c3 = channel_of(g, v, 3), i, differ = 0;
    double xs[N], ys[N];
    float *ov, *o1, *o2, *o3;
    CHECK_INT(ch, 3);
    CHECK_INT(channels(g, c2), 1);
    for (i = 0; i < N; i++) xs[i] = 3.1 * i - 50, ys[i] = 2.3 * i + 0.4;
    ov = t_points(g, v, 2, N, xs, ys, NULL);
    o1 = t_points(g, c1, 2, N, xs, ys, NULL);
    o2 = t_points(g, c2, 2, N, xs, ys, NULL);
    o3 = t_points(g, c3, 2, N, xs, ys, NULL);
    for (i = 0; ov && o1 && o2 && o3 && i < N; i++) {
        CHECK_NEAR(o1[i], ov[3 * i], 0);
        CHECK_NEAR(o2[i], ov[3 * i + 1], 0);
        CHECK_NEAR(o3[i], ov[3 * i + 2], 0);
        differ += o1[i] != o2[i];
    }
    CHECK(differ > N / 2); /* the channels are different fields */
    free(ov), free(o1), free(o2), free(o3);
    ng_graph_free(g);
}

static void test_channel_index_error(void)
{
    ng_graph *g = ng_graph_new();
    int v2 = t_vector(g, t_const(g, 1), t_const(g, 2), -1), p = t_noise(g, "perlin", 10, 1);
    ng_error err;
    char msg[512];
    ng_node *n = t_on(g, "channel", v2);
    t_set(n, "index", 3);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "index 3");
    CHECK_CONTAINS(msg, "has 2 channels");
    n = t_on(g, "channel", p);
    t_set(n, "index", 2);
    CHECK(finish_fails(g, n, msg, sizeof msg));
    CHECK_CONTAINS(msg, "index 2");
    CHECK_CONTAINS(msg, "has 1 channel");
    n = t_on(g, "channel", v2);
    CHECK(ng_set_number(n, ng_param_index(ng_node_type_of(n), "index"), 5, &err) != 0);
    CHECK_CONTAINS(err.msg, "1 to 4");
    ng_node_discard(n);
    ng_graph_free(g);
}

/* ---- curl -------------------------------------------------------------------------------------- */

/*
 * Why the numerical divergence of the curl vanishes: the curl node takes
 * central differences D_d f = (f(p + h e_d) - f(p - h e_d)) / 2h of the
 * potential, and the test takes the divergence with the same operator at
 * the same h. Each D_d is a shift-difference operator; shifts along
 * different axes commute, so D_x D_y = D_y D_x exactly, just as the mixed
 * partials of a smooth function do. In 2D div curl psi = D_x D_y psi -
 * D_y D_x psi, in 3D six such terms cancel in pairs: every potential sample
 * enters once with + and once with -, and what remains is float rounding.
 * A gradient field (D_x psi, D_y psi) instead has divergence D_x^2 psi +
 * D_y^2 psi, the discrete Laplacian, which is of the order of the field's
 * magnitude over the feature size.
 */
enum { CG = 12, CH = CG * CG }; /* grid of test points */

static double rms(const double *v, int n)
{
    double s = 0;
    int i;
    for (i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s / n);
}

/* Points p_i + off * e_axis for the CG x CG grid (z fixed), into x, y, z. */
static void grid_shift(double *x, double *y, double *z, int axis, double off)
{
    int i, j;
    for (j = 0; j < CG; j++)
        for (i = 0; i < CG; i++) {
            const int k = j * CG + i;
            x[k] = 13.37 + 7.13 * i + (axis == 0 ? off : 0);
            y[k] = -5.21 + 6.31 * j + (axis == 1 ? off : 0);
            if (z) z[k] = 3.77 + 0.9 * i - 0.4 * j + (axis == 2 ? off : 0);
        }
}

/* Field f (c channels) at the grid shifted by +-h along axis: lo, hi (CH * c floats each). */
static int at_shift(const ng_graph *g, int f, int dims, int axis, double off, float **out)
{
    double x[CH], y[CH], z[CH];
    grid_shift(x, y, dims == 3 ? z : NULL, axis, off);
    *out = t_points(g, f, dims, CH, x, y, dims == 3 ? z : NULL);
    return *out != NULL;
}

static int curl_of(ng_graph *g, int src, double step)
{
    ng_node *n = t_on(g, "curl", src);
    t_set(n, "step", step);
    return t_finish(g, n);
}

static void test_curl_2d_divergence_free(void)
{
    const double h = 0.05;
    ng_graph *g = ng_graph_new();
    int psi = t_noise(g, "perlin", 40, 3), curl = curl_of(g, psi, h), d, i, ok = 1;
    float *cp[2], *cm[2], *pp[2], *pm[2], *p2p[2], *p2m[2], *p0;
    double divc[CH], divg[CH], mag[CH], gmag[CH], maxdev = 0;
    CHECK_INT(channels(g, curl), 3);
    ok &= at_shift(g, psi, 2, 0, 0, &p0);
    for (d = 0; d < 2; d++) {
        ok &= at_shift(g, curl, 2, d, h, &cp[d]) & at_shift(g, curl, 2, d, -h, &cm[d]);
        ok &= at_shift(g, psi, 2, d, h, &pp[d]) & at_shift(g, psi, 2, d, -h, &pm[d]);
        ok &= at_shift(g, psi, 2, d, 2 * h, &p2p[d]) & at_shift(g, psi, 2, d, -2 * h, &p2m[d]);
    }
    for (i = 0; ok && i < CH; i++) {
        divc[i] = (cp[0][3 * i] - cm[0][3 * i]) / (2 * h) + (cp[1][3 * i + 1] - cm[1][3 * i + 1]) / (2 * h);
        /* gradient field (D_x psi, D_y psi): its divergence is the Laplacian at spacing 2h */
        divg[i] = (p2p[0][i] - 2.0 * p0[i] + p2m[0][i] + p2p[1][i] - 2.0 * p0[i] + p2m[1][i]) / (4 * h * h);
        mag[i] = hypot(cp[0][3 * i], cp[0][3 * i + 1]);
        gmag[i] = hypot((pp[0][i] - pm[0][i]) / (2 * h), (pp[1][i] - pm[1][i]) / (2 * h));
        if (cp[0][3 * i + 2] != 0 || cm[1][3 * i + 2] != 0) ng_t_fail(__FILE__, __LINE__, "2D curl has a z component");
    }
    if (ok) {
        /* the curl at p: (D_y psi, -D_x psi), against the test's own differences */
        float *c0;
        if (at_shift(g, curl, 2, 0, 0, &c0)) {
            for (i = 0; i < CH; i++) {
                double ex = (pp[1][i] - pm[1][i]) / (2 * h), ey = -(pp[0][i] - pm[0][i]) / (2 * h);
                double dev = fmax(fabs(c0[3 * i] - ex), fabs(c0[3 * i + 1] - ey));
                if (dev > maxdev) maxdev = dev;
            }
            free(c0);
        }
        CHECK(rms(mag, CH) > 5e-3);                         /* a real field, not zero */
        CHECK_NEAR(rms(mag, CH), rms(gmag, CH), 1e-3 * rms(gmag, CH)); /* |curl psi| = |grad psi| in 2D */
        CHECK_LE(maxdev, 1e-3 * rms(gmag, CH));
        CHECK_LE(100 * rms(divc, CH), rms(divg, CH));
    }
    free(p0);
    for (d = 0; d < 2; d++) free(cp[d]), free(cm[d]), free(pp[d]), free(pm[d]), free(p2p[d]), free(p2m[d]);
    ng_graph_free(g);
}

/* Field f (c channels) at the grid (z varying) at time w, shifted by off along axis. */
static float *at_time(const ng_graph *g, int f, int axis, double off, double w)
{
    double x[CH], y[CH], z[CH], t[CH];
    const double *xs[4] = {x, y, z, t};
    ng_error err;
    float *out = malloc((size_t)CH * NG_MAX_CHANNELS * sizeof(float));
    int i;
    grid_shift(x, y, z, axis, off);
    for (i = 0; i < CH; i++) t[i] = w;
    if (out && ng_eval_points(g, f, 4, xs, CH, out, &err)) {
        ng_t_fail(__FILE__, __LINE__, "4D evaluation failed: %s", err.msg);
        free(out);
        out = NULL;
    }
    return out;
}

/* In 4D (an animated render) the curl is the 3D curl of the potential at
 * each sample's time: the test's own differences in x, y, z at that time;
 * and the field changes as time does. */
static void test_curl_4d_is_the_curl_at_each_time(void)
{
    const double h = 0.05, w = 2.5;
    ng_graph *g = ng_graph_new();
    int A = t_vnoise(g, "perlin", 40, 5), curl = curl_of(g, A, h), d, c, i;
    float *ap[3] = {0}, *am[3] = {0}, *c0 = at_time(g, curl, 0, 0, w), *c1 = at_time(g, curl, 0, 0, w + 7);
    double maxdev = 0, mag = 0, zmag = 0, moved = 0;
    int ok = c0 && c1;
    for (d = 0; d < 3; d++) ok &= (ap[d] = at_time(g, A, d, h, w)) && (am[d] = at_time(g, A, d, -h, w));
    for (i = 0; ok && i < CH; i++) {
        double D[3][3], ex[3]; /* D[d][c]: dA_c / dx_d at time w */
        for (d = 0; d < 3; d++)
            for (c = 0; c < 3; c++) D[d][c] = (ap[d][3 * i + c] - am[d][3 * i + c]) / (2 * h);
        ex[0] = D[1][2] - D[2][1];
        ex[1] = D[2][0] - D[0][2];
        ex[2] = D[0][1] - D[1][0];
        for (c = 0; c < 3; c++) {
            maxdev = fmax(maxdev, fabs(c0[3 * i + c] - ex[c]));
            mag += fabs(c0[3 * i + c]) / CH;
            moved += fabs(c1[3 * i + c] - c0[3 * i + c]) / CH;
        }
        zmag += fabs(c0[3 * i + 2]) / CH;
    }
    CHECK(ok);
    CHECK(mag > 5e-3);
    CHECK(zmag > 1e-3);            /* the 3D curl, not the 2D one */
    CHECK_LE(maxdev, 1e-3 * mag);  /* the curl at that time */
    CHECK(moved > 0.2 * mag);      /* another time, another field */
    free(c0), free(c1);
    for (d = 0; d < 3; d++) free(ap[d]), free(am[d]);
    ng_graph_free(g);
}

static void test_curl_3d_divergence_free(void)
{
    const double h = 0.05;
    ng_graph *g = ng_graph_new();
    int A = t_vnoise(g, "perlin", 40, 5), curl = curl_of(g, A, h), d, i, ok = 1;
    float *cp[3] = {0}, *cm[3] = {0}, *ap[3] = {0}, *am[3] = {0}, *a2p[3] = {0}, *a2m[3] = {0}, *a0 = NULL, *c0 = NULL;
    double divc[CH], divg[CH], diva[CH], mag[CH], gmag[CH], maxdev = 0, zmag = 0;
    CHECK_INT(channels(g, A), 3);
    ok &= at_shift(g, A, 3, 0, 0, &a0) & at_shift(g, curl, 3, 0, 0, &c0);
    for (d = 0; d < 3; d++) {
        ok &= at_shift(g, curl, 3, d, h, &cp[d]) & at_shift(g, curl, 3, d, -h, &cm[d]);
        ok &= at_shift(g, A, 3, d, h, &ap[d]) & at_shift(g, A, 3, d, -h, &am[d]);
        ok &= at_shift(g, A, 3, d, 2 * h, &a2p[d]) & at_shift(g, A, 3, d, -2 * h, &a2m[d]);
    }
    for (i = 0; ok && i < CH; i++) {
        double D[3][3], ex[3], gx[3], lap = 0; /* D[d][c]: dA_c / dx_d */
        int c;
        divc[i] = diva[i] = 0;
        for (d = 0; d < 3; d++) {
            divc[i] += (cp[d][3 * i + d] - cm[d][3 * i + d]) / (2 * h);
            for (c = 0; c < 3; c++) D[d][c] = (ap[d][3 * i + c] - am[d][3 * i + c]) / (2 * h);
            diva[i] += D[d][d];
            /* gradient of the scalar A_x, and its divergence (Laplacian at spacing 2h) */
            gx[d] = D[d][0];
            lap += (a2p[d][3 * i] - 2.0 * a0[3 * i] + a2m[d][3 * i]) / (4 * h * h);
        }
        divg[i] = lap;
        ex[0] = D[1][2] - D[2][1];
        ex[1] = D[2][0] - D[0][2];
        ex[2] = D[0][1] - D[1][0];
        for (c = 0; c < 3; c++) {
            double dev = fabs(c0[3 * i + c] - ex[c]);
            if (dev > maxdev) maxdev = dev;
        }
        mag[i] = sqrt(c0[3 * i] * c0[3 * i] + c0[3 * i + 1] * c0[3 * i + 1] + c0[3 * i + 2] * (double)c0[3 * i + 2]);
        gmag[i] = sqrt(gx[0] * gx[0] + gx[1] * gx[1] + gx[2] * gx[2]);
        zmag += fabs(c0[3 * i + 2]);
    }
    if (ok) {
        CHECK(rms(mag, CH) > 5e-3);
        CHECK(zmag / CH > 1e-3); /* a true 3D curl: the z component is not dropped */
        /* the reference field is of the same order, so the ratio below is fair */
        CHECK(rms(mag, CH) > 0.3 * rms(gmag, CH) && rms(mag, CH) < 3 * rms(gmag, CH));
        CHECK_LE(maxdev, 1e-3 * rms(mag, CH));
        CHECK_LE(100 * rms(divc, CH), rms(divg, CH));
        CHECK_LE(100 * rms(divc, CH), rms(diva, CH)); /* the vector noise itself is not solenoidal */
    }
    free(a0), free(c0);
    for (d = 0; d < 3; d++) free(cp[d]), free(cm[d]), free(ap[d]), free(am[d]), free(a2p[d]), free(a2m[d]);
    ng_graph_free(g);
}

/* ---- distance and coordinates ------------------------------------------------------------------ */

static int distance_of(ng_graph *g, double cx, double cy, double cz, double radius, const char *metric)
{
    ng_node *n = t_begin(g, "distance");
    t_vec(n, "center", cx, cy, cz);
    t_set(n, "radius", radius);
    t_choose(n, "metric", metric);
    return t_finish(g, n);
}

static void test_distance_metrics(void)
{
    ng_graph *g = ng_graph_new();
    int e = distance_of(g, 10, 20, 0, 5, "euclidean"), m = distance_of(g, 10, 20, 0, 5, "manhattan");
    int c = distance_of(g, 10, 20, 0, 5, "chebyshev");
    int e3 = distance_of(g, 1, 2, 3, 7, "euclidean"), m3 = distance_of(g, 1, 2, 3, 7, "manhattan");
    int c3 = distance_of(g, 1, 2, 3, 7, "chebyshev");
    const double px[] = {3}, py[] = {5}, pz[] = {9}, cx[] = {1}, cy[] = {2}, cz[] = {3};
    float *v;
    CHECK_NEAR(ev2(g, e, 10, 20), 0, 0);
    CHECK_NEAR(ev2(g, m, 10, 20), 0, 0);
    CHECK_NEAR(ev2(g, c, 10, 20), 0, 0);
    CHECK_NEAR(ev2(g, e, 13, 24), 1, 1e-6); /* 3-4-5: at the radius */
    CHECK_NEAR(ev2(g, e, 7, 16), 1, 1e-6);
    CHECK_NEAR(ev2(g, m, 13, 24), 7.0 / 5, 1e-6);
    CHECK_NEAR(ev2(g, c, 13, 24), 4.0 / 5, 1e-6);
    CHECK_NEAR(ev2(g, c, 10, 15), 1, 1e-6);
    CHECK_NEAR(ev2(g, e, 25, 20), 3, 1e-6);
    /* 3D: (2, 3, 6) from the centre is 7 long */
    if ((v = t_points(g, e3, 3, 1, px, py, pz))) CHECK_NEAR(v[0], 1, 1e-6);
    free(v);
    if ((v = t_points(g, m3, 3, 1, px, py, pz))) CHECK_NEAR(v[0], 11.0 / 7, 1e-6);
    free(v);
    if ((v = t_points(g, c3, 3, 1, px, py, pz))) CHECK_NEAR(v[0], 6.0 / 7, 1e-6);
    free(v);
    if ((v = t_points(g, e3, 3, 1, cx, cy, cz))) CHECK_NEAR(v[0], 0, 0);
    free(v);
    ng_graph_free(g);
}

/* ---- worley's extras ------------------------------------------------------------------------ */

static int worley_of(ng_graph *g, const char *feature, const char *metric, double size)
{
    ng_node *n = t_begin(g, "worley");
    t_set(n, "element_size", size);
    t_set(n, "seed", 5);
    t_choose(n, "feature", feature);
    t_choose(n, "metric", metric);
    return t_finish_ok(g, n);
}

/* feature = "position": the nearest feature's world position, three
 * channels. Far from the origin (1e6) it is the point F1 away from the
 * pixel (to a float's rounding of 1e6, 1/16), the same for every pixel of
 * a cell, and 0 past the render's dims; in 3D as well. */
static void test_worley_position_world(void)
{
    const int W = 96, H = 64;
    const double size = 16, far = 1e6;
    ng_graph *g = ng_graph_new();
    int pos = worley_of(g, "position", "euclidean", size), f1 = worley_of(g, "f1", "euclidean", size);
    int cell = worley_of(g, "cell", "euclidean", size), i, j, k, bad = 0, apart = 0, same = 0, shared = 0;
    const double norm = ng_worley_normaliser(NG_WORLEY_F1, NG_METRIC_EUCLIDEAN, 2, 1.0f, 2.0f) * size;
    ng_render_opts o;
    float *vp, *vf, *vc;
    double x[64], y[64], z[64];
    t_opts(&o, W, H);
    o.origin[0] = far;
    o.origin[1] = -far;
    vp = t_render(g, pos, &o), vf = t_render(g, f1, &o), vc = t_render(g, cell, &o);
    CHECK(vp && vf && vc);
    for (j = 0; vp && vf && vc && j < H; j++)
        for (i = 0; i < W; i++) {
            const int at = j * W + i;
            const double px = far + i + 0.5, py = -far + j + 0.5;
            const double fx = vp[3 * at], fy = vp[3 * at + 1], d = hypot(fx - px, fy - py) / norm;
            bad += fabs(d - vf[at]) > 0.1 / norm || vp[3 * at + 2] != 0.0f;
            if (i > 0 && vc[at] == vc[at - 1]) { /* channels interleaved */
                shared++;
                same += vp[3 * at] == vp[3 * at - 3] && vp[3 * at + 1] == vp[3 * at - 2];
            }
            apart += i > 0 && vc[at] != vc[at - 1];
        }
    CHECKF(bad == 0, "%d of %d positions are not F1 away from their pixel", bad, W * H);
    CHECKF(same == shared && apart > 20, "neighbours in one cell: %d of %d share a position (%d cell changes)", same,
           shared, apart);
    free(vp), free(vf), free(vc);
    for (k = 0; k < 64; k++) {
        x[k] = 3.7 * k + 0.25;
        y[k] = -1.3 * k + 100.5;
        z[k] = 0.9 * k - 7.0;
    }
    vp = t_points(g, pos, 3, 64, x, y, z);
    vf = t_points(g, f1, 3, 64, x, y, z);
    for (k = 0, bad = 0; vp && vf && k < 64; k++) {
        const double d = sqrt(pow(vp[3 * k] - x[k], 2) + pow(vp[3 * k + 1] - y[k], 2) + pow(vp[3 * k + 2] - z[k], 2)) /
                         (ng_worley_normaliser(NG_WORLEY_F1, NG_METRIC_EUCLIDEAN, 3, 1.0f, 2.0f) * size);
        bad += fabs(d - vf[k]) > 1e-4;
    }
    CHECKF(bad == 0, "3D: %d of 64 positions are not F1 away", bad);
    free(vp), free(vf);
    ng_graph_free(g);
}

/* feature = "position" at any jitter and offset: every sample of a cell
 * (its CELL value) gets the same bits, the key a scatter or a biome map
 * takes; two cells' features are apart. The vector to the feature alone
 * gave samples of one cell positions an ulp apart (jitter 0.3: 21
 * near-duplicate pairs in 256^2). */
static void test_worley_position_one_per_cell(void)
{
    static const double jitters[] = {0.3, 0.77, 1.0};
    const int W = 256, H = 192;
    size_t q;
    for (q = 0; q < sizeof jitters / sizeof jitters[0]; q++) {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "worley");
        ng_render_opts o;
        float *vp, *vc;
        float key[512][3];
        int nkeys = 0, split = 0, close = 0, pos, cell, i, k, m;
        t_set(n, "element_size", 32), t_set(n, "seed", 4), t_set(n, "jitter", jitters[q]);
        t_choose(n, "feature", "position");
        t_vec(n, "offset", 3.3, 7.1, 0);
        pos = t_finish_ok(g, n);
        n = t_begin(g, "worley");
        t_set(n, "element_size", 32), t_set(n, "seed", 4), t_set(n, "jitter", jitters[q]);
        t_choose(n, "feature", "cell");
        t_vec(n, "offset", 3.3, 7.1, 0);
        cell = t_finish_ok(g, n);
        t_opts(&o, W, H);
        vp = t_render(g, pos, &o), vc = t_render(g, cell, &o);
        CHECK(vp && vc);
        for (i = 0; vp && vc && i < W * H; i++) {
            for (k = 0; k < nkeys && key[k][0] != vc[i]; k++) continue;
            if (k == nkeys && nkeys < 512) {
                key[nkeys][0] = vc[i], key[nkeys][1] = vp[3 * i], key[nkeys][2] = vp[3 * i + 1];
                nkeys++;
            } else if (k < nkeys) {
                split += key[k][1] != vp[3 * i] || key[k][2] != vp[3 * i + 1];
            }
        }
        for (k = 0; k < nkeys; k++)
            for (m = k + 1; m < nkeys; m++) close += fabs(key[k][1] - key[m][1]) + fabs(key[k][2] - key[m][2]) < 0.01;
        CHECKF(split == 0 && nkeys > 40, "jitter %g: %d samples differ from their cell's first position (%d cells)",
               jitters[q], split, nkeys);
        CHECKF(close == 0, "jitter %g: %d pairs of cells with positions within 0.01", jitters[q], close);
        free(vp), free(vc);
        ng_graph_free(g);
    }
}

/* What the extras refuse, each naming the option. */
static void test_worley_extras_errors(void)
{
    static const struct {
        const char *feature, *metric, *opt;
        double v;
        const char *msg;
    } cases[] = {
        {"edge", "manhattan", NULL, 0, "feature \"edge\" is measured in the euclidean metric only, not manhattan"},
        {"f1", "euclidean", "exponent", 3, "option 'exponent' applies to metric = \"minkowski\" only"},
        {"position", "euclidean", "amplitude", 2, "feature \"position\" is a world position: option 'amplitude'"},
        {"f3", "minkowski", "exponent", 11, "exponent"},
        {"f3", "minkowski", "exponent", 0.25, "exponent"},
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "worley");
        ng_error err;
        int rc = 0;
        t_choose(n, "feature", cases[c].feature);
        t_choose(n, "metric", cases[c].metric);
        if (cases[c].opt) rc = ng_set_number(n, ng_param_index(ng_node_type_of(n), cases[c].opt), cases[c].v, &err);
        if (rc == 0)
            rc = ng_node_finish(g, n, &err) < 0 ? -1 : 0;
        else
            ng_node_discard(n); /* a node whose option was refused never reaches the graph */
        CHECKF(rc != 0 && strstr(err.msg, cases[c].msg), "%s %s: %s", cases[c].feature, cases[c].metric,
               rc ? err.msg : "accepted");
        ng_graph_free(g);
    }
    { /* ng.fractal over positions, as the noise's own fractal = ... is refused */
        ng_graph *g = ng_graph_new();
        const int pos = worley_of(g, "position", "euclidean", 16);
        ng_node *n = t_on(g, "fractal", pos);
        ng_error err;
        CHECK(ng_node_finish(g, n, &err) < 0);
        CHECK_CONTAINS(err.msg, "fractal: input 'source' is worley, whose channels are world positions");
        ng_graph_free(g);
    }
}

/* pixel (i, j) samples origin + (i + 0.5, j + 0.5) * pixel_size */
static void test_coords_pixel_centres(void)
{
    const int W = 7, H = 5;
    ng_graph *g = ng_graph_new();
    int X = coord(g, "x"), Y = coord(g, "y"), i, j;
    ng_render_opts o;
    float *bx, *by;
    t_opts(&o, W, H);
    o.origin[0] = 100.25;
    o.origin[1] = -50.5;
    o.pixel_size = 0.5;
    bx = t_render(g, X, &o);
    by = t_render(g, Y, &o);
    CHECK(bx && by);
    for (j = 0; bx && by && j < H; j++)
        for (i = 0; i < W; i++) {
            CHECK_NEAR(bx[j * W + i], 100.25 + (i + 0.5) * 0.5, 0);
            CHECK_NEAR(by[j * W + i], -50.5 + (j + 0.5) * 0.5, 0);
        }
    free(bx), free(by);
    /* a region is the same world */
    o.region[0] = 2, o.region[1] = 1, o.region[2] = 3, o.region[3] = 2;
    bx = t_render(g, X, &o);
    by = t_render(g, Y, &o);
    CHECK(bx && by);
    for (j = 0; bx && by && j < 2; j++)
        for (i = 0; i < 3; i++) {
            CHECK_NEAR(bx[j * 3 + i], 100.25 + (2 + i + 0.5) * 0.5, 0);
            CHECK_NEAR(by[j * 3 + i], -50.5 + (1 + j + 0.5) * 0.5, 0);
        }
    free(bx), free(by);
    /* default: world units are pixels */
    t_opts(&o, W, H);
    bx = t_render(g, X, &o);
    CHECK(bx != NULL);
    if (bx) CHECK_NEAR(bx[2 * W + 3], 3.5, 0);
    free(bx);
    ng_graph_free(g);
}

static void test_coords_z_time(void)
{
    ng_graph *g = ng_graph_new();
    int Z = coord(g, "z"), T = coord(g, "time"), i;
    ng_render_opts o;
    float *b;
    t_opts(&o, 6, 4);
    o.dims = 3;
    o.z = 12.75;
    b = t_render(g, Z, &o);
    CHECK(b != NULL);
    for (i = 0; b && i < 24; i++) CHECK_NEAR(b[i], 12.75, 0);
    free(b);
    o.dims = 4;
    o.time = -3.5;
    b = t_render(g, T, &o);
    CHECK(b != NULL);
    for (i = 0; b && i < 24; i++) CHECK_NEAR(b[i], -3.5, 0);
    free(b);
    ng_graph_free(g);
}

static void test_coords_dims_errors(void)
{
    ng_graph *g = ng_graph_new();
    int Y = coord(g, "y"), Z = coord(g, "z");
    const double x[] = {1.5}, *xs[1] = {x};
    float out[4];
    ng_error err = {{0}};
    ng_render_opts o;
    CHECK(ng_eval_points(g, Y, 1, xs, 1, out, &err) != 0);
    CHECK_CONTAINS(err.msg, "y");
    CHECK_CONTAINS(err.msg, "1D");
    t_opts(&o, 4, 4);
    CHECK(ng_render_buffer(g, Z, &o, out, &err) != 0); /* z in a 2D render */
    CHECK_CONTAINS(err.msg, "2D");
    CHECK_NEAR(ev1(g, coord(g, "x"), 1.5), 1.5, 0); /* x is fine in 1D */
    ng_graph_free(g);
}

/* ---- image fixtures ------------------------------------------------------------------------------ */

static const unsigned char G8[3][4] = {{0, 40, 80, 120}, {160, 200, 240, 255}, {10, 20, 30, 50}};
static const unsigned short G16[3][4] = {
    {0, 1, 1000, 65535}, {30000, 40000, 50000, 60000}, {123, 4567, 8901, 23456}};
static const unsigned char RGBA[2][2][4] = {{{255, 0, 0, 255}, {0, 255, 0, 128}}, {{0, 0, 255, 0}, {10, 100, 200, 50}}};

static char fix_g8[PATHLEN], fix_g16[PATHLEN], fix_rgba[PATHLEN], fix_bad[PATHLEN], fix_none[PATHLEN];


static int have_fixtures;

static void test_image_fixtures(void)
{
    tpath(fix_g8, "grey8.png");
    tpath(fix_g16, "grey16.png");
    tpath(fix_rgba, "rgba8.png");
    tpath(fix_bad, "corrupt.png");
    tpath(fix_none, "missing.png");
    put_file(fix_bad, "this is a text file, not a PNG\n");
    have_fixtures = write_png(fix_g8, 4, 3, 8, PNG_COLOR_TYPE_GRAY, 1, G8) &&
                    write_png(fix_g16, 4, 3, 16, PNG_COLOR_TYPE_GRAY, 1, G16) &&
                    write_png(fix_rgba, 2, 2, 8, PNG_COLOR_TYPE_RGBA, 4, RGBA);
}

/* begun image node reading path (absolute: the C API does no sandboxing) */
static ng_node *image_begin(ng_graph *g, const char *path, const char *wrap, const char *filter, const char *channel)
{
    ng_node *n = t_begin(g, "image");
    ng_error err;
    if (ng_set_string(n, ng_param_index(ng_node_type_of(n), "path"), path, &err))
        ng_t_fail(__FILE__, __LINE__, "path refused: %s", err.msg);
    if (wrap) t_choose(n, "wrap", wrap);
    if (filter) t_choose(n, "filter", filter);
    if (channel) t_choose(n, "channel", channel);
    return n;
}

static int image_of(ng_graph *g, const char *path, const char *wrap, const char *filter, const char *channel)
{
    return t_finish_ok(g, image_begin(g, path, wrap, filter, channel));
}

/* the value at image pixel (i, j) with origin 0 and pixel size 1 */
static float texel_at(const ng_graph *g, int img, int i, int j) { return ev2(g, img, i + 0.5, j + 0.5); }

/* Nearest at pixel centres: the stored values exactly (/255, /65535), in
 * the default gray channel (a grey image's luminance is its value) and in r. */
static void test_image_nearest_exact(void)
{
    ng_graph *g = ng_graph_new();
    int g8 = image_of(g, fix_g8, NULL, "nearest", NULL), g8r = image_of(g, fix_g8, NULL, "nearest", "r");
    int g16 = image_of(g, fix_g16, NULL, "nearest", NULL), g16r = image_of(g, fix_g16, NULL, "nearest", "r");
    int g8a = image_of(g, fix_g8, NULL, "nearest", "a"), i, j;
    CHECK_INT(channels(g, g8), 1);
    for (j = 0; j < 3; j++)
        for (i = 0; i < 4; i++) {
            const float e8 = G8[j][i] / 255.0f, e16 = G16[j][i] / 65535.0f;
            float v;
            if ((v = texel_at(g, g8r, i, j)) != e8)
                ng_t_fail(__FILE__, __LINE__, "8-bit r at (%d, %d): %.9g, stored %d/255 = %.9g", i, j, v, G8[j][i], e8);
            if ((v = texel_at(g, g8, i, j)) != e8)
                ng_t_fail(__FILE__, __LINE__, "8-bit gray at (%d, %d): %.9g, stored %d/255 = %.9g", i, j, v, G8[j][i], e8);
            if ((v = texel_at(g, g16r, i, j)) != e16)
                ng_t_fail(__FILE__, __LINE__, "16-bit r at (%d, %d): %.9g, stored %d/65535 = %.9g", i, j, v, G16[j][i], e16);
            if ((v = texel_at(g, g16, i, j)) != e16)
                ng_t_fail(__FILE__, __LINE__, "16-bit gray at (%d, %d): %.9g, stored %d/65535 = %.9g", i, j, v, G16[j][i], e16);
            CHECK_NEAR(texel_at(g, g8a, i, j), 1, 0); /* no alpha: opaque */
            /* anywhere inside the pixel, not only at its centre */
            CHECK_NEAR(ev2(g, g8r, i + 0.01, j + 0.99), e8, 0);
        }
    CHECK_NEAR(texel_at(g, g16r, 3, 0), 1, 0);
    CHECK_NEAR(texel_at(g, g16r, 1, 0), 1 / 65535.0f, 0);
    ng_graph_free(g);
}

static void test_image_bilinear(void)
{
    ng_graph *g = ng_graph_new();
    int b = image_of(g, fix_g8, "clamp", NULL, "r"), i, j;
#define T8(i, j) (G8[j][i] / 255.0)
    for (j = 0; j < 3; j++)
        for (i = 0; i < 4; i++) CHECK_NEAR(texel_at(g, b, i, j), (float)T8(i, j), 0); /* centres: exact */
    /* halfway between two centres: their average */
    CHECK_NEAR(ev2(g, b, 2.0, 0.5), (T8(1, 0) + T8(2, 0)) / 2, 1e-6);
    CHECK_NEAR(ev2(g, b, 3.0, 1.5), (T8(2, 1) + T8(3, 1)) / 2, 1e-6);
    CHECK_NEAR(ev2(g, b, 0.5, 1.0), (T8(0, 0) + T8(0, 1)) / 2, 1e-6);
    CHECK_NEAR(ev2(g, b, 2.0, 2.0), (T8(1, 1) + T8(2, 1) + T8(1, 2) + T8(2, 2)) / 4, 1e-6);
    /* a quarter of the way: linear */
    CHECK_NEAR(ev2(g, b, 1.75, 0.5), 0.75 * T8(1, 0) + 0.25 * T8(2, 0), 1e-6);
#undef T8
    ng_graph_free(g);
}

/* Beyond each edge, nearest: repeat wraps, clamp holds the edge pixel,
 * mirror reflects with the edge pixel doubled (-1 -> 0, -2 -> 1, W -> W-1). */
static void test_image_wrap_modes(void)
{
    static const int xs[] = {-9, -5, -4, -2, -1, 0, 3, 4, 5, 7, 8, 11, 12};
    static const int ys[] = {-4, -3, -2, -1, 0, 2, 3, 4, 5, 6};
    ng_graph *g = ng_graph_new();
    int rep = image_of(g, fix_g8, "repeat", "nearest", "r"), cl = image_of(g, fix_g8, "clamp", "nearest", "r");
    int mir = image_of(g, fix_g8, "mirror", "nearest", "r"), a, b;
    int bil_rep = image_of(g, fix_g8, "repeat", NULL, "r"), bil_cl = image_of(g, fix_g8, "clamp", NULL, "r");
    int bil_mir = image_of(g, fix_g8, "mirror", NULL, "r");
    for (a = 0; a < (int)(sizeof xs / sizeof xs[0]); a++)
        for (b = 0; b < (int)(sizeof ys / sizeof ys[0]); b++) {
            const int i = xs[a], j = ys[b];
            const int ri = ((i % 4) + 4) % 4, rj = ((j % 3) + 3) % 3;
            const int ci = i < 0 ? 0 : i > 3 ? 3 : i, cj = j < 0 ? 0 : j > 2 ? 2 : j;
            int mi = ((i % 8) + 8) % 8, mj = ((j % 6) + 6) % 6;
            float v;
            mi = mi < 4 ? mi : 7 - mi;
            mj = mj < 3 ? mj : 5 - mj;
            if ((v = texel_at(g, rep, i, j)) != G8[rj][ri] / 255.0f)
                ng_t_fail(__FILE__, __LINE__, "repeat at pixel (%d, %d): %.9g, expected pixel (%d, %d)", i, j, v, ri, rj);
            if ((v = texel_at(g, cl, i, j)) != G8[cj][ci] / 255.0f)
                ng_t_fail(__FILE__, __LINE__, "clamp at pixel (%d, %d): %.9g, expected pixel (%d, %d)", i, j, v, ci, cj);
            if ((v = texel_at(g, mir, i, j)) != G8[mj][mi] / 255.0f)
                ng_t_fail(__FILE__, __LINE__, "mirror at pixel (%d, %d): %.9g, expected pixel (%d, %d)", i, j, v, mi, mj);
        }
    /* bilinear across the left edge (x = 0, between pixels -1 and 0) */
    CHECK_NEAR(ev2(g, bil_rep, 0.0, 0.5), (G8[0][3] + G8[0][0]) / 510.0, 1e-6);
    CHECK_NEAR(ev2(g, bil_cl, 0.0, 0.5), G8[0][0] / 255.0f, 0);
    CHECK_NEAR(ev2(g, bil_mir, 0.0, 0.5), G8[0][0] / 255.0f, 0);
    /* and across the bottom edge (y = 3, between rows 2 and 3) */
    CHECK_NEAR(ev2(g, bil_rep, 1.5, 3.0), (G8[2][1] + G8[0][1]) / 510.0, 1e-6);
    CHECK_NEAR(ev2(g, bil_cl, 1.5, 3.0), G8[2][1] / 255.0f, 0);
    CHECK_NEAR(ev2(g, bil_mir, 1.5, 3.0), G8[2][1] / 255.0f, 0);
    ng_graph_free(g);
}

static void test_image_channels(void)
{
    static const char *const names[] = {"r", "g", "b", "a"};
    ng_graph *g = ng_graph_new();
    int img[4], rgb = image_of(g, fix_rgba, NULL, "nearest", "rgb"), gray = image_of(g, fix_rgba, NULL, "nearest", "gray");
    int i, j, c;
    for (c = 0; c < 4; c++) img[c] = image_of(g, fix_rgba, NULL, "nearest", names[c]);
    CHECK_INT(channels(g, rgb), 3);
    CHECK_INT(channels(g, img[0]), 1);
    for (j = 0; j < 2; j++)
        for (i = 0; i < 2; i++) {
            const unsigned char *p = RGBA[j][i];
            const double x = i + 0.5, y = j + 0.5;
            float *v = t_points(g, rgb, 2, 1, &x, &y, NULL);
            for (c = 0; c < 4; c++) CHECK_NEAR(texel_at(g, img[c], i, j), p[c] / 255.0f, 0);
            for (c = 0; v && c < 3; c++) CHECK_NEAR(v[c], p[c] / 255.0f, 0);
            free(v);
            /* Rec. 709 luminance, alpha ignored */
            CHECK_NEAR(texel_at(g, gray, i, j), (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0, 1e-6);
        }
    ng_graph_free(g);
}

/* origin = world position of the top-left corner, pixel_size = world units per image pixel */
static void test_image_origin_pixel_size(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = image_begin(g, fix_g8, "clamp", "nearest", "r");
    int img, i, j;
    t_vec(n, "origin", 100, 200, 0);
    t_set(n, "pixel_size", 2.5);
    img = t_finish_ok(g, n);
    for (j = 0; j < 3; j++)
        for (i = 0; i < 4; i++) {
            const float e = G8[j][i] / 255.0f;
            CHECK_NEAR(ev2(g, img, 100 + (i + 0.5) * 2.5, 200 + (j + 0.5) * 2.5), e, 0);
            CHECK_NEAR(ev2(g, img, 100 + i * 2.5 + 0.01, 200 + j * 2.5 + 0.01), e, 0); /* just inside */
            CHECK_NEAR(ev2(g, img, 100 + (i + 1) * 2.5 - 0.01, 200 + (j + 1) * 2.5 - 0.01), e, 0);
        }
    /* just left of pixel 2's edge is pixel 1 */
    CHECK_NEAR(ev2(g, img, 100 + 2 * 2.5 - 0.01, 201), G8[0][1] / 255.0f, 0);
    /* before the corner: clamped to pixel (0, 0); past the far corner: (3, 2) */
    CHECK_NEAR(ev2(g, img, 99, 199), G8[0][0] / 255.0f, 0);
    CHECK_NEAR(ev2(g, img, 100 + 4 * 2.5 + 1, 200 + 3 * 2.5 + 1), G8[2][3] / 255.0f, 0);
    ng_graph_free(g);
}

static void test_image_errors(void)
{
    ng_graph *g = ng_graph_new();
    char msg[512];
    CHECK(finish_fails(g, image_begin(g, fix_none, NULL, NULL, NULL), msg, sizeof msg));
    CHECK_CONTAINS(msg, fix_none);
    CHECK(finish_fails(g, image_begin(g, fix_bad, NULL, NULL, NULL), msg, sizeof msg));
    CHECK_CONTAINS(msg, fix_bad);
    CHECK(finish_fails(g, t_begin(g, "image"), msg, sizeof msg)); /* no path */
    CHECK_CONTAINS(msg, "path");
    CHECK_INT(ng_graph_count(g), 0);
    ng_graph_free(g);
}

/* ---- through the program ---------------------------------------------------------------------------- */

/* A PFM file's samples, rows top to bottom; NULL if it is not one. */
static float *read_pfm(const char *path, int *w, int *h, int *ch)
{
    size_t len, i, n;
    unsigned char *d = slurp(path, &len);
    char kind[3] = {0};
    double scale;
    int off = 0, r;
    float *out = NULL;
    if (!d || len < 8 || sscanf((const char *)d, "%2s %d %d %lf%n", kind, w, h, &scale, &off) != 4 || off <= 0) goto done;
    *ch = !strcmp(kind, "PF") ? 3 : !strcmp(kind, "Pf") ? 1 : 0;
    if (!*ch || scale >= 0 || *w <= 0 || *h <= 0) goto done;
    off++; /* the single whitespace after the scale */
    n = (size_t)*w * (size_t)*h * (size_t)*ch;
    if (len != (size_t)off + 4 * n || !(out = malloc(n * sizeof *out))) goto done;
    for (r = 0; r < *h; r++) /* stored bottom to top */
        for (i = 0; i < (size_t)*w * (size_t)*ch; i++) {
            const unsigned char *s = d + off + 4 * ((size_t)(*h - 1 - r) * (size_t)*w * (size_t)*ch + i);
            uint32_t b = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
            memcpy(&out[(size_t)r * (size_t)*w * (size_t)*ch + i], &b, 4);
        }
done:
    free(d);
    return out;
}

/* n:curve{{0,0},{0.5,0.8},{1,1}} in a script: the same curve as the C API. */
static void test_cli_curve(void)
{
    static const double pts[] = {0, 0, 0.5, 0.8, 1, 1};
    char s[PATHLEN], out[PATHLEN];
    res r;
    int w, h, ch, i;
    float *v;
    mkscript(s, "curve.lua", "local s = (ng.x() - 0.5) / 8\nreturn s:curve{{0, 0}, {0.5, 0.8}, {1, 1}}\n");
    tpath(out, "curve.pfm");
    cli(&r, "render", s, "-o", out, "--size", "9x1", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    v = read_pfm(out, &w, &h, &ch);
    CHECK(v != NULL);
    if (v) {
        ng_graph *g = ng_graph_new();
        int c = curve_of(g, coord(g, "x"), pts, 3);
        CHECK_INT(w, 9);
        CHECK_INT(ch, 1);
        for (i = 0; i < 9 && w == 9; i++) {
            CHECK_NEAR(v[i], ev1(g, c, i / 8.0), 0);
            if (i) CHECK(v[i] > v[i - 1]);
        }
        CHECK_NEAR(v[0], 0, 1e-6);
        CHECK_NEAR(v[4], 0.8, 1e-6);
        CHECK_NEAR(v[8], 1, 1e-6);
        ng_graph_free(g);
    }
    free(v);
    /* info shows the points as a script would write them */
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    if (!strstr(r.out, "points = {0, 0, 0.5, 0.8, 1, 1}") && !strstr(r.out, "points = {{0, 0}, {0.5, 0.8}, {1, 1}}"))
        ng_t_fail(__FILE__, __LINE__, "info should show the curve's points, got \"%s\"", r.out);
    res_free(&r);
    /* an x that goes back is an error at the script line */
    mkscript(s, "curve_bad.lua", "local s = ng.x()\nreturn s:curve{{0, 0}, {0.5, 0.8}, {0.4, 1}}\n");
    cli(&r, "render", s, "-o", out, "--size", "9x1", NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "curve", "point 3 has x = 0.4");
    res_free(&r);
}

/* The program's --origin, --pixel-size and --z reach the coordinate nodes. */
static void test_cli_coords(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    int w, h, ch, i, j;
    float *v;
    mkscript(s, "coords.lua", "return ng.vector{x = ng.x(), y = ng.y(), z = ng.z()}\n");
    tpath(out, "coords.pfm");
    cli(&r, "render", s, "-o", out, "--size", "5x3", "--origin", "-20.5,8", "--pixel-size", "0.25", "--z", "12.75", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    v = read_pfm(out, &w, &h, &ch);
    CHECK(v != NULL);
    if (v && w == 5 && h == 3 && ch == 3)
        for (j = 0; j < 3; j++)
            for (i = 0; i < 5; i++) {
                CHECK_NEAR(v[3 * (j * 5 + i)], -20.5 + (i + 0.5) * 0.25, 0);
                CHECK_NEAR(v[3 * (j * 5 + i) + 1], 8 + (j + 0.5) * 0.25, 0);
                CHECK_NEAR(v[3 * (j * 5 + i) + 2], 12.75, 0);
            }
    else
        ng_t_fail(__FILE__, __LINE__, "PFM %dx%d x%d, expected 5x3 x3", v ? w : 0, v ? h : 0, v ? ch : 0);
    free(v);
    /* without --z the render is 2D and z has no value */
    cli(&r, "render", s, "-o", out, "--size", "5x3", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "z", "2D");
    res_free(&r);
}

static void test_cli_channel_error(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    mkscript(s, "channel.lua", "local v = ng.vector{x = 1, y = 2}\nreturn v:channel(3)\n");
    tpath(out, "channel.png");
    cli(&r, "render", s, "-o", out, "--size", "4", NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "index 3", "2 channels");
    res_free(&r);
    CHECK(!exists(out));
}

/* Copies the 8-bit fixture to path. */
static void copy_file(const char *from, const char *to)
{
    size_t n;
    unsigned char *d = slurp(from, &n);
    FILE *f = fopen(to, "wb");
    if (!d || !f || fwrite(d, 1, n, f) != n) ng_t_fail(__FILE__, __LINE__, "cannot copy %s to %s", from, to);
    if (f) fclose(f);
    free(d);
}

/* the rendered 4x3 PFM of script s holds the 8-bit fixture's values */
static void check_render_g8(const char *s, const char *extra, int line)
{
    char out[PATHLEN];
    res r;
    int w = 0, h = 0, ch = 0, i, j;
    float *v;
    tpath(out, "img.pfm");
    remove(out);
    if (extra) cli(&r, "render", s, "-o", out, "--size", "4x3", extra, NULL);
    else cli(&r, "render", s, "-o", out, "--size", "4x3", NULL);
    if (r.code != 0 || r.nerr) ng_t_fail(__FILE__, line, "render of %s failed: %d \"%s\"", s, r.code, r.err);
    res_free(&r);
    if (!(v = read_pfm(out, &w, &h, &ch))) {
        ng_t_fail(__FILE__, line, "no PFM from %s", s);
        return;
    }
    if (w != 4 || h != 3 || ch != 1) ng_t_fail(__FILE__, line, "PFM is %dx%d x%d", w, h, ch);
    else
        for (j = 0; j < 3; j++)
            for (i = 0; i < 4; i++)
                if (v[j * 4 + i] != G8[j][i] / 255.0f)
                    ng_t_fail(__FILE__, line, "pixel (%d, %d) = %.9g, stored %d/255", i, j, v[j * 4 + i], G8[j][i]);
    free(v);
}

/* Beside the script and in a subdirectory of it: relative paths load. */
static void test_cli_image_relative(void)
{
    char dir[PATHLEN], sub[PATHLEN], img[PATHLEN], s[PATHLEN];
    mksub(dir, "scene");
    mksub(sub, "scene/tex");
    pathf(img, "%s/grey.png", dir);
    copy_file(fix_g8, img);
    pathf(img, "%s/grey.png", sub);
    copy_file(fix_g8, img);
    pathf(s, "%s/beside.lua", dir);
    put_file(s, "return ng.image{path = \"grey.png\", filter = \"nearest\", channel = \"r\"}\n");
    check_render_g8(s, NULL, __LINE__);
    pathf(s, "%s/below.lua", dir);
    put_file(s, "return ng.image{path = \"tex/grey.png\", filter = \"nearest\", channel = \"r\"}\n");
    check_render_g8(s, NULL, __LINE__);
    pathf(s, "%s/dotted.lua", dir);
    put_file(s, "return ng.image{path = \"./tex/../grey.png\", filter = \"nearest\", channel = \"r\"}\n");
    check_render_g8(s, NULL, __LINE__);
}

/* In the sandbox a path may not leave the script's directory: not by ..,
 * not absolute, not through a symlink; --unsafe lifts it. */
static void test_cli_image_sandbox(void)
{
    char dir[PATHLEN], s[PATHLEN], out[PATHLEN], text[PATHLEN + 200], link[PATHLEN];
    res r;
    mksub(dir, "jail");
    tpath(out, "jail.png");
    pathf(s, "%s/up.lua", dir);
    put_file(s, "local n = ng.perlin{}\nreturn ng.image{path = \"../grey8.png\"}\n");
    cli(&r, "render", s, "-o", out, "--size", "4x3", NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "../grey8.png", "outside the script's directory");
    res_free(&r);

    pathf(s, "%s/abs.lua", dir);
    snprintf(text, sizeof text, "return ng.image{path = \"%s\", filter = \"nearest\", channel = \"r\"}\n", fix_g8);
    put_file(s, text);
    cli(&r, "render", s, "-o", out, "--size", "4x3", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), fix_g8, "absolute");
    res_free(&r);
    CHECK(!exists(out));
    check_render_g8(s, "--unsafe", __LINE__);

    pathf(link, "%s/link.png", dir);
    if (symlink(fix_g8, link) != 0) ng_t_fail(__FILE__, __LINE__, "symlink: %s", strerror(errno));
    pathf(s, "%s/link.lua", dir);
    put_file(s, "return ng.image{path = \"link.png\"}\n");
    cli(&r, "render", s, "-o", out, "--size", "4x3", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "link.png", "outside the script's directory");
    res_free(&r);
    CHECK(!exists(out));
    /* a missing file names it */
    pathf(s, "%s/none.lua", dir);
    put_file(s, "return ng.image{path = \"nothing.png\"}\n");
    cli(&r, "render", s, "-o", out, "--size", "4x3", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "nothing.png");
    res_free(&r);
}

static void test_nodes_cli_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN (an executable noisegraph) and NG_ROOT must be set: NG_BIN=%s NG_ROOT=%s",
              ng_bin ? ng_bin : "(unset)", ng_root ? ng_root : "(unset)");
}

/* ---- suite ----------------------------------------------------------------------------------------- */

NG_SUITE(nodes, fast)
{
    int have_cli = cli_setup("ngnodes") == 0;
    if (!have_cli) { /* the C tests still get a scratch directory for their fixtures */
        pathf(tmpdir, "%s/ngnodes-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmpdir)) tmpdir[0] = 0;
    }
    RUN(test_select_hard_edge);
    RUN(test_select_falloff);
    RUN(test_step);
    RUN(test_smoothstep);
    RUN(test_sqrt_and_invert);
    RUN(test_terrace_steps);
    RUN(test_terrace_invert);
    RUN(test_terrace_points);
    RUN(test_terrace_errors);
    RUN(test_curve_through_points);
    RUN(test_curve_monotone);
    RUN(test_curve_errors);
    RUN(test_vector_channels);
    RUN(test_channel_picks);
    RUN(test_channel_index_error);
    RUN(test_curl_2d_divergence_free);
    RUN(test_curl_4d_is_the_curl_at_each_time);
    RUN(test_curl_3d_divergence_free);
    RUN(test_distance_metrics);
    RUN(test_worley_position_world);
    RUN(test_worley_position_one_per_cell);
    RUN(test_worley_extras_errors);
    RUN(test_coords_pixel_centres);
    RUN(test_coords_z_time);
    RUN(test_coords_dims_errors);
    if (tmpdir[0]) RUN(test_image_fixtures);
    if (have_fixtures) {
        RUN(test_image_nearest_exact);
        RUN(test_image_bilinear);
        RUN(test_image_wrap_modes);
        RUN(test_image_channels);
        RUN(test_image_origin_pixel_size);
        RUN(test_image_errors);
    }
    if (have_cli) {
        RUN(test_cli_curve);
        RUN(test_cli_coords);
        RUN(test_cli_channel_error);
        if (have_fixtures) {
            RUN(test_cli_image_relative);
            RUN(test_cli_image_sandbox);
        }
    } else {
        RUN(test_nodes_cli_environment);
    }
    if (tmpdir[0]) cli_teardown();
}
