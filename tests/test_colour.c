/*
 * test_colour.c — the colour ramp, the shaping math a Houdini user expects
 * (bias, gain, fract, mod, floor, sin, cos, smooth min and max) and the
 * domain transform, as a user relies on them: exact colours at the stops,
 * the shape between them, Houdini's values, floored results on negative
 * inputs, bounds, continuity, and a transformed pattern equal to the
 * pattern at the transformed positions (bit for bit where the arithmetic
 * is exact, far from the origin too). Values are read with ng_eval_points;
 * the Lua side (methods, the % operator, errors, RGB files) through the
 * program.
 */
#include "build.h"
#include "cli_support.h"
#include "colour.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- building and evaluating ---------------------------------------------------------------- */




static void list(ng_node *n, const char *param, const double *v, int count)
{
    ng_error err;
    if (ng_set_list(n, ng_param_index(ng_node_type_of(n), param), v, count, &err))
        ng_t_fail(__FILE__, __LINE__, "%s refused: %s", param, err.msg);
}

/* a begun node of a one-input type with its source connected */


/* Finishing n must fail with a message containing every needle. */
static void finish_fails(ng_graph *g, ng_node *n, const char *needle1, const char *needle2)
{
    ng_error err = {{0}};
    int id = ng_node_finish(g, n, &err);
    CHECKF(id < 0, "node accepted, expected an error with \"%s\"", needle1);
    CHECK_CONTAINS(err.msg, needle1);
    if (needle2) CHECK_CONTAINS(err.msg, needle2);
}

/* root at n points (dims planes, the unused NULL): n * channels floats,
 * point-major; NULL and a failed check when evaluation fails. */

/* root at the single point x (1D): there the position is x exactly (the
 * anchor), so a coordinate source gives (float)x. out: its channels. */
static void at1(const ng_graph *g, int root, double x, float *out)
{
    float *o = t_points(g, root, 1, 1, &x, NULL, NULL);
    int c;
    for (c = 0; c < ng_node_channels(ng_graph_node(g, root)); c++) out[c] = o ? o[c] : NAN;
    free(o);
}

static float ev1(const ng_graph *g, int root, double x)
{
    float v[NG_MAX_CHANNELS];
    at1(g, root, x, v);
    return v[0];
}

static int coord_x(ng_graph *g) { return t_finish(g, t_begin(g, "x")); }

/* ---- colours as written ------------------------------------------------------------------------- */

static void test_colour_parse_hex_and_names(void)
{
    double rgb[3];
    ng_error err;
    CHECK_INT(ng_colour_parse("#3a7d44", rgb, &err), 0);
    CHECK(rgb[0] == 0x3a / 255.0 && rgb[1] == 0x7d / 255.0 && rgb[2] == 0x44 / 255.0);
    CHECK_INT(ng_colour_parse("#3A7D44", rgb, &err), 0);
    CHECK(rgb[0] == 0x3a / 255.0 && rgb[1] == 0x7d / 255.0 && rgb[2] == 0x44 / 255.0);
    CHECK_INT(ng_colour_parse("#f80", rgb, &err), 0); /* short form: each digit doubled */
    CHECK(rgb[0] == 1.0 && rgb[1] == 0x88 / 255.0 && rgb[2] == 0.0);
    CHECK_INT(ng_colour_parse("white", rgb, &err), 0);
    CHECK(rgb[0] == 1.0 && rgb[1] == 1.0 && rgb[2] == 1.0);
    CHECK_INT(ng_colour_parse("black", rgb, &err), 0);
    CHECK(rgb[0] == 0.0 && rgb[1] == 0.0 && rgb[2] == 0.0);
    CHECK_INT(ng_colour_parse("grey", rgb, &err), 0);
    CHECK(rgb[0] == 128 / 255.0);
}

static void test_colour_parse_refuses_what_is_not_a_colour(void)
{
    static const char *const bad[] = {"#3a7d4", "#3a7d445", "#gg0000", "3a7d44", "", "#", "whit", "White ", "#12"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double rgb[3];
        ng_error err = {{0}};
        CHECKF(ng_colour_parse(bad[i], rgb, &err) == -1, "\"%s\" was taken for a colour", bad[i]);
        CHECK_CONTAINS(err.msg, "is not a colour");
        CHECK_CONTAINS(err.msg, "#rrggbb");
        CHECK_CONTAINS(err.msg, "white");
    }
}

/* ---- ramp ------------------------------------------------------------------------------------------ */

/* ramp of the x coordinate with the given flat {at, r, g, b} stops */
static int ramp_x(ng_graph *g, const double *stops, int count, const char *interpolation)
{
    ng_node *n = t_on(g, "ramp", coord_x(g));
    list(n, "stops", stops, count);
    if (interpolation) t_choose(n, "interpolation", interpolation);
    return t_finish_ok(g, n);
}

static const double STOPS[] = {
    0.0, 0.1, 0.2, 0.3, /* */
    0.4, 0x3a / 255.0, 0x7d / 255.0, 0x44 / 255.0, /* */
    1.0, 1.0, 1.0, 1.0,
};
enum { NSTOPS = 3 };

static int same_colour(const float *got, const double *want)
{
    return got[0] == (float)want[0] && got[1] == (float)want[1] && got[2] == (float)want[2];
}

static void test_ramp_colours_exact_at_stops_and_ends_beyond(void)
{
    static const char *const modes[] = {"linear", "smooth", "constant"};
    size_t m;
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        ng_graph *g = ng_graph_new();
        int r = ramp_x(g, STOPS, 4 * NSTOPS, modes[m]), s;
        float c[NG_MAX_CHANNELS];
        CHECK_INT(ng_node_channels(ng_graph_node(g, r)), 3);
        for (s = 0; s < NSTOPS; s++) {
            at1(g, r, STOPS[4 * s], c);
            CHECKF(same_colour(c, STOPS + 4 * s + 1), "%s: stop %d at %g gives %g %g %g", modes[m], s, STOPS[4 * s],
                   c[0], c[1], c[2]);
        }
        at1(g, r, -7.5, c); /* before the first stop: its colour */
        CHECK(same_colour(c, STOPS + 1));
        at1(g, r, 12, c); /* after the last: its colour */
        CHECK(same_colour(c, STOPS + 4 * (NSTOPS - 1) + 1));
        ng_graph_free(g);
    }
}

static void test_ramp_linear_and_smooth_meet_halfway(void)
{
    ng_graph *g = ng_graph_new();
    int lin = ramp_x(g, STOPS, 4 * NSTOPS, "linear"), smooth = ramp_x(g, STOPS, 4 * NSTOPS, "smooth"), c;
    float a[NG_MAX_CHANNELS], b[NG_MAX_CHANNELS], q[NG_MAX_CHANNELS], q2[NG_MAX_CHANNELS];
    at1(g, lin, 0.7, a); /* halfway between 0.4 and 1 */
    at1(g, smooth, 0.7, b);
    for (c = 0; c < 3; c++) {
        CHECK_NEAR(a[c], (STOPS[5 + c] + STOPS[9 + c]) / 2, 1e-6);
        CHECK_NEAR(b[c], a[c], 1e-6);
    }
    /* a quarter of the way: linear is a quarter, smooth's ease less */
    at1(g, lin, 0.55, q);
    at1(g, smooth, 0.55, q2);
    CHECK_NEAR(q[0], STOPS[5] + (1 - STOPS[5]) * 0.25, 1e-6);
    CHECK_NEAR(q2[0], STOPS[5] + (1 - STOPS[5]) * (0.25 * 0.25 * (3 - 2 * 0.25)), 1e-6);
    ng_graph_free(g);
}

/* Smooth: zero slope at every stop. Over a step h the smooth ramp moves
 * about 3 h / (segment width) times what the linear ramp moves (its
 * slope grows from 0), so a tenth of it is a clear margin at h = 1/256;
 * a ramp with slope at the stop would move as much as linear. */
static void test_ramp_smooth_is_flat_at_stops(void)
{
    ng_graph *g = ng_graph_new();
    int lin = ramp_x(g, STOPS, 4 * NSTOPS, "linear"), smooth = ramp_x(g, STOPS, 4 * NSTOPS, "smooth"), s, side;
    const double h = 1.0 / 256;
    int checked = 0;
    for (s = 0; s < NSTOPS; s++)
        for (side = -1; side <= 1; side += 2) {
            const int other = s + side;
            const double at = STOPS[4 * s];
            float sb[NG_MAX_CHANNELS], sm[NG_MAX_CHANNELS], lb[NG_MAX_CHANNELS], lm[NG_MAX_CHANNELS];
            int c;
            if (other < 0 || other >= NSTOPS) continue;
            at1(g, smooth, at, sb);
            at1(g, smooth, at + side * h, sm);
            at1(g, lin, at, lb);
            at1(g, lin, at + side * h, lm);
            for (c = 0; c < 3; c++) {
                const double moved_lin = fabs(lm[c] - lb[c]), moved_smooth = fabs(sm[c] - sb[c]);
                if (STOPS[4 * other + 1 + c] == STOPS[4 * s + 1 + c]) continue; /* a flat segment */
                CHECKF(moved_lin > 0, "linear does not move from stop %d channel %d", s, c);
                CHECKF(moved_smooth < 0.1 * moved_lin, "stop %d side %d channel %d: smooth moves %g, linear %g", s,
                       side, c, moved_smooth, moved_lin);
                checked++;
            }
        }
    CHECK_INT(checked, 12); /* 4 sides of stops, 3 channels each */
    ng_graph_free(g);
}

static void test_ramp_constant_steps(void)
{
    ng_graph *g = ng_graph_new();
    int r = ramp_x(g, STOPS, 4 * NSTOPS, "constant");
    static const double below_second[] = {0.0, 0.01, 0.2, 0.39};
    static const double from_second[] = {0.4, 0.41, 0.7, 0.999};
    float c[NG_MAX_CHANNELS];
    size_t i;
    for (i = 0; i < sizeof below_second / sizeof below_second[0]; i++) {
        at1(g, r, below_second[i], c);
        CHECKF(same_colour(c, STOPS + 1), "constant at %g: %g %g %g", below_second[i], c[0], c[1], c[2]);
    }
    for (i = 0; i < sizeof from_second / sizeof from_second[0]; i++) {
        at1(g, r, from_second[i], c);
        CHECKF(same_colour(c, STOPS + 5), "constant at %g: %g %g %g", from_second[i], c[0], c[1], c[2]);
    }
    ng_graph_free(g);
}

/* Stops in any order are sorted; two at one position make a hard edge,
 * the later given colour from there on. */
static void test_ramp_sorts_stops_and_keeps_hard_edges(void)
{
    static const double shuffled[] = {
        1.0, 1.0, 1.0, 1.0, /* */
        0.0, 0.1, 0.2, 0.3, /* */
        0.4, 0x3a / 255.0, 0x7d / 255.0, 0x44 / 255.0,
    };
    static const double edge[] = {
        0.0, 0.0, 0.0, 1.0, /* */
        0.5, 0.0, 0.0, 1.0, /* blue up to 0.5 */
        0.5, 1.0, 1.0, 0.0, /* yellow from 0.5 */
        1.0, 1.0, 1.0, 0.0,
    };
    ng_graph *g = ng_graph_new();
    int a = ramp_x(g, STOPS, 4 * NSTOPS, NULL), b = ramp_x(g, shuffled, 12, NULL), e = ramp_x(g, edge, 16, NULL);
    double x;
    float c[NG_MAX_CHANNELS];
    for (x = -0.25; x <= 1.25; x += 1.0 / 64) {
        float p[NG_MAX_CHANNELS], q[NG_MAX_CHANNELS];
        at1(g, a, x, p);
        at1(g, b, x, q);
        CHECKF(memcmp(p, q, 3 * sizeof(float)) == 0, "shuffled stops differ at %g", x);
    }
    at1(g, e, 0.5 - 1.0 / 1024, c);
    CHECK(c[0] == 0.0f && c[2] == 1.0f);
    at1(g, e, 0.5, c);
    CHECK(c[0] == 1.0f && c[1] == 1.0f && c[2] == 0.0f);
    ng_graph_free(g);
}

/* Every preset the option lists builds, gives colours in [0, 1], and the
 * documented ends. */
static void test_ramp_presets_exist(void)
{
    const ng_node_type *t = ng_type_find("ramp");
    const ng_param_desc *p = t ? &t->params[ng_param_index(t, "preset")] : NULL;
    int k, found = 0;
    CHECK(p && p->choices);
    for (k = 0; p && p->choices[k]; k++) {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_on(g, "ramp", coord_x(g));
        int r, c;
        double x;
        t_choose(n, "preset", p->choices[k]);
        r = t_finish_ok(g, n);
        for (x = -0.5; x <= 1.5; x += 1.0 / 128) {
            float v[NG_MAX_CHANNELS];
            at1(g, r, x, v);
            for (c = 0; c < 3; c++) CHECKF(v[c] >= 0 && v[c] <= 1, "%s at %g: %g", p->choices[k], x, v[c]);
        }
        if (!strcmp(p->choices[k], "greyscale") || !strcmp(p->choices[k], "heat")) {
            static const double black[3] = {0, 0, 0}, white[3] = {1, 1, 1};
            float v[NG_MAX_CHANNELS];
            at1(g, r, 0, v);
            CHECKF(same_colour(v, black), "%s at 0", p->choices[k]);
            at1(g, r, 1, v);
            CHECKF(same_colour(v, white), "%s at 1", p->choices[k]);
            found++;
        }
        if (!strcmp(p->choices[k], "terrain")) { /* deep blue sea, white peaks */
            float v[NG_MAX_CHANNELS];
            at1(g, r, 0.1, v);
            CHECK(v[2] > v[0] && v[2] > v[1]);
            at1(g, r, 1, v);
            CHECK(v[0] == 1.0f && v[1] == 1.0f && v[2] == 1.0f);
            found++;
        }
        if (!strcmp(p->choices[k], "viridis")) {
            static const double first[3] = {0x44 / 255.0, 0x01 / 255.0, 0x54 / 255.0};
            float v[NG_MAX_CHANNELS];
            at1(g, r, 0, v);
            CHECK(same_colour(v, first));
            found++;
        }
        ng_graph_free(g);
    }
    CHECK_INT(found, 4);
}

static void test_ramp_default_is_greyscale(void)
{
    ng_graph *g = ng_graph_new();
    int r = t_finish_ok(g, t_on(g, "ramp", coord_x(g)));
    float v[NG_MAX_CHANNELS];
    at1(g, r, 0.25, v);
    CHECK(v[0] == 0.25f && v[1] == 0.25f && v[2] == 0.25f);
    ng_graph_free(g);
}

static void test_ramp_errors(void)
{
    static const double seven[] = {0, 0, 0, 0, 1, 1, 1};
    static const double green_over[] = {0, 0, 0, 0, 0.4, 0.2, 1.5, 0.1};
    static const double red_under[] = {0, -0.1, 0, 0};
    ng_graph *g = ng_graph_new();
    ng_node *n;
    ng_error err;
    int k;

    n = t_on(g, "ramp", coord_x(g));
    list(n, "stops", seven, 7);
    finish_fails(g, n, "stops hold 7 numbers", "{position, r, g, b}");

    n = t_on(g, "ramp", coord_x(g));
    list(n, "stops", green_over, 8);
    finish_fails(g, n, "stop 2 (at 0.4): green = 1.5 is outside 0 to 1", NULL);

    n = t_on(g, "ramp", coord_x(g));
    list(n, "stops", red_under, 4);
    finish_fails(g, n, "stop 1 (at 0): red = -0.1 is outside 0 to 1", NULL);

    n = t_on(g, "ramp", coord_x(g));
    list(n, "stops", STOPS, 12);
    t_choose(n, "preset", "heat");
    finish_fails(g, n, "give stops or preset, not both", NULL);

    n = t_begin(g, "ramp");
    k = ng_param_index(ng_node_type_of(n), "preset");
    CHECK_INT(ng_set_choice(n, k, "rainbow", &err), -1);
    CHECK_CONTAINS(err.msg, "\"terrain\"");
    ng_node_discard(n);

    n = t_on(g, "ramp", t_vnoise(g, "perlin", 32, 1)); /* a vector is no height */
    finish_fails(g, n, "needs 1 channel", NULL);
    ng_graph_free(g);
}

/* ---- bias and gain --------------------------------------------------------------------------------- */

static int shaped_x(ng_graph *g, const char *type, double amount)
{
    ng_node *n = t_on(g, type, coord_x(g));
    t_set(n, type, amount);
    return t_finish_ok(g, n);
}

/* Houdini's Bias VOP as it writes it */
static double houdini_bias(double x, double b)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return b / ((1.0 / x - 2) * (1 - b) + 1);
}

static double houdini_gain(double x, double g)
{
    return x < 0.5 ? houdini_bias(2 * x, g) * 0.5 : 1 - houdini_bias(2 * (1 - x), g) * 0.5;
}

static void test_bias_gain_identity_at_half(void)
{
    ng_graph *g = ng_graph_new();
    int b = shaped_x(g, "bias", 0.5), gn = shaped_x(g, "gain", 0.5);
    double x;
    for (x = 0; x <= 1; x += 1.0 / 64) {
        CHECKF(ev1(g, b, x) == (float)x, "bias(%g, 0.5) = %.9g", x, ev1(g, b, x));
        CHECKF(ev1(g, gn, x) == (float)x, "gain(%g, 0.5) = %.9g", x, ev1(g, gn, x));
    }
    ng_graph_free(g);
}

static void test_bias_gain_houdini_values(void)
{
    static const double amounts[] = {0, 0.1, 0.25, 0.8, 0.95, 1};
    ng_graph *g = ng_graph_new();
    size_t a;
    /* a worked value: bias(0.25, 0.8) = 0.8 / (2 * 0.2 + 1) = 4/7; gain(0.25, 0.8) = bias(0.5, 0.8) / 2 = 0.4 */
    CHECK_NEAR(ev1(g, shaped_x(g, "bias", 0.8), 0.25), 4.0 / 7, 1e-6);
    CHECK_NEAR(ev1(g, shaped_x(g, "gain", 0.8), 0.25), 0.4, 1e-6);
    for (a = 0; a < sizeof amounts / sizeof amounts[0]; a++) {
        int b = shaped_x(g, "bias", amounts[a]), gn = shaped_x(g, "gain", amounts[a]);
        double x;
        for (x = -0.5; x <= 1.5; x += 1.0 / 32) {
            CHECK_NEAR(ev1(g, b, x), houdini_bias(x, amounts[a]), 2e-6);
            CHECK_NEAR(ev1(g, gn, x), houdini_gain(x, amounts[a]), 2e-6);
        }
        CHECK(ev1(g, gn, 0.5) == 0.5f); /* gain keeps the middle */
        CHECK(ev1(g, b, 0) == 0.0f && ev1(g, b, 1) == 1.0f);
    }
    ng_graph_free(g);
}

/* ---- fract, mod, floor, sin, cos --------------------------------------------------------------------- */

static int unary_x(ng_graph *g, const char *type) { return t_finish_ok(g, t_on(g, type, coord_x(g))); }

static void test_fract_floor_on_negative_values(void)
{
    ng_graph *g = ng_graph_new();
    int fr = unary_x(g, "fract"), fl = unary_x(g, "floor");
    double x;
    CHECK(ev1(g, fr, -0.25) == 0.75f);
    CHECK(ev1(g, fr, -1) == 0.0f);
    CHECK(ev1(g, fr, 2.5) == 0.5f);
    CHECK(ev1(g, fl, -0.5) == -1.0f);
    CHECK(ev1(g, fl, -1) == -1.0f);
    CHECK(ev1(g, fl, 1.5) == 1.0f);
    /* just below a whole number: below 1, not rounded up to it */
    CHECK(ev1(g, fr, -1e-9) < 1.0f);
    CHECK(ev1(g, fr, -1e-9) > 0.99f);
    for (x = -3; x <= 3; x += 1.0 / 16) {
        float f = ev1(g, fr, x);
        CHECKF(f >= 0 && f < 1, "fract(%g) = %.9g", x, f);
        CHECK(f + ev1(g, fl, x) == (float)x);
    }
    ng_graph_free(g);
}

static int mod_x(ng_graph *g, double b)
{
    ng_node *n = t_begin(g, "mod");
    t_in(g, n, "a", coord_x(g));
    t_in(g, n, "b", t_const(g, b));
    return t_finish_ok(g, n);
}

static void test_mod_is_floored(void)
{
    ng_graph *g = ng_graph_new();
    int m3 = mod_x(g, 3), m1 = mod_x(g, 1), mneg = mod_x(g, -3);
    double x;
    CHECK(ev1(g, m3, -1) == 2.0f);
    CHECK(ev1(g, m3, 7) == 1.0f);
    CHECK(ev1(g, m1, -0.5) == 0.5f);
    CHECK(ev1(g, mneg, 5) == -1.0f); /* the sign of b */
    CHECK(ev1(g, mneg, -5) == -2.0f);
    CHECK(ev1(g, m1, -1e-9) < 1.0f); /* not rounded onto b */
    for (x = -7; x <= 7; x += 1.0 / 8) {
        float v = ev1(g, m3, x), w = ev1(g, mneg, x);
        CHECKF(v >= 0 && v < 3, "%g mod 3 = %.9g", x, v);
        CHECKF(w <= 0 && w > -3, "%g mod -3 = %.9g", x, w);
        CHECK_NEAR(v, x - 3 * floor(x / 3), 1e-6);
    }
    ng_graph_free(g);
}

static void test_sin_cos_radians(void)
{
    ng_graph *g = ng_graph_new();
    int s = unary_x(g, "sin"), c = unary_x(g, "cos");
    double x;
    for (x = -7; x <= 7; x += 0.25) {
        CHECK_NEAR(ev1(g, s, x), sin(x), 1e-6);
        CHECK_NEAR(ev1(g, c, x), cos(x), 1e-6);
    }
    ng_graph_free(g);
}

/* ---- smooth min and max --------------------------------------------------------------------------------- */

/* smin/smax of the x coordinate and the constant 0.5 */
static int smooth_x(ng_graph *g, const char *type, double k)
{
    ng_node *n = t_begin(g, type);
    t_in(g, n, "a", coord_x(g));
    t_in(g, n, "b", t_const(g, 0.5));
    t_set(n, "k", k);
    return t_finish_ok(g, n);
}

static void test_smin_below_min_and_tends_to_it(void)
{
    static const double ks[] = {0.5, 0.1, 0.01, 0.001, 0};
    ng_graph *g = ng_graph_new();
    size_t i;
    for (i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        int lo = smooth_x(g, "smin", ks[i]), hi = smooth_x(g, "smax", ks[i]);
        double x;
        for (x = -0.5; x <= 1.5; x += 1.0 / 512) {
            const double mn = x < 0.5 ? x : 0.5, mx = x < 0.5 ? 0.5 : x;
            const float s = ev1(g, lo, x), t = ev1(g, hi, x);
            CHECKF(s <= (float)mn, "smin(%g, 0.5; k %g) = %.9g above min", x, ks[i], s);
            CHECKF(t >= (float)mx, "smax(%g, 0.5; k %g) = %.9g below max", x, ks[i], t);
            CHECK_NEAR(s, mn, ks[i] / 4 + 1e-7); /* at most k / 4 away: tends to min */
            CHECK_NEAR(t, mx, ks[i] / 4 + 1e-7);
            if (fabs(x - 0.5) >= ks[i]) CHECK(s == (float)mn && t == (float)mx); /* min itself outside the band */
        }
        CHECK_NEAR(ev1(g, lo, 0.5), 0.5 - ks[i] / 4, 1e-6); /* the deepest point, where a = b */
    }
    ng_graph_free(g);
}

/* C1: no jump, and the slope never above 1 (the steepest input's). */
static void test_smin_is_continuous(void)
{
    ng_graph *g = ng_graph_new();
    int lo = smooth_x(g, "smin", 0.2);
    const double h = 1.0 / 4096;
    double x, prev_slope = 0;
    float prev = ev1(g, lo, 0.2);
    for (x = 0.2 + h; x <= 0.8; x += h) {
        float v = ev1(g, lo, x);
        double slope = (v - prev) / h;
        CHECKF(fabs(slope) <= 1.001, "slope %g at %g", slope, x);
        CHECKF(fabs(slope - prev_slope) < 0.01 || x < 0.2 + 2 * h, "slope jumps from %g to %g at %g", prev_slope,
               slope, x);
        prev = v;
        prev_slope = slope;
    }
    ng_graph_free(g);
}

/* ---- transform ----------------------------------------------------------------------------------------- */

/* points on a grid of 1/64 world units (exact in double after dyadic shifts) */
enum { NP = 600 };

static void grid(double *x, double *y, double x0, double y0)
{
    int i;
    for (i = 0; i < NP; i++) {
        x[i] = x0 + (i % 30) * 1.25 + (i / 30) * (1.0 / 64);
        y[i] = y0 + (i / 30) * 2.5 - (i % 7) * (1.0 / 64);
    }
}

static int transformed(ng_graph *g, int src, const double *translate, const double *rotate, double angle,
                       const double *scale)
{
    ng_node *n = t_on(g, "transform", src);
    if (translate) t_vec(n, "translate", translate[0], translate[1], translate[2]);
    if (rotate) list(n, "rotate", rotate, 3);
    if (angle) t_set(n, "angle", angle);
    if (scale) t_vec(n, "scale", scale[0], scale[1], scale[2]);
    return t_finish_ok(g, n);
}

/* root at the NP points (x, y) against src at (sx, sy[, sz]) in dims
 * dimensions: the same bits (tol 0) or within tol; the first difference
 * is reported. Returns root's values (the caller frees them), or NULL. */
static float *compare_at(const ng_graph *g, int root, const double *x, const double *y, int src, int dims,
                         const double *sx, const double *sy, const double *sz, double tol, const char *what)
{
    float *out = t_points(g, root, 2, NP, x, y, NULL), *want = t_points(g, src, dims, NP, sx, sy, sz);
    int i;
    for (i = 0; out && want && i < NP; i++)
        if (tol ? !(fabs(out[i] - want[i]) <= tol) : out[i] != want[i]) {
            ng_t_fail(__FILE__, __LINE__, "%s: point %d: %.9g vs %.9g", what, i, out[i], want[i]);
            break;
        }
    free(want);
    return out;
}

static void test_transform_translate_is_the_pattern_at_shifted_points(void)
{
    static const double t[3] = {37.25, -12.5, 0};
    ng_graph *g = ng_graph_new();
    int src = t_fbm(g, t_noise(g, "perlin", 24, 5), 4, 2, 0.5), tr = transformed(g, src, t, NULL, 0, NULL), i;
    double x[NP], y[NP], xs[NP], ys[NP];
    grid(x, y, -40, 17);
    for (i = 0; i < NP; i++) xs[i] = x[i] - t[0], ys[i] = y[i] - t[1];
    free(compare_at(g, tr, x, y, src, 2, xs, ys, NULL, 0, "translate"));
    ng_graph_free(g);
}

/* A pattern moved 1e12 away and looked at there is the pattern near the
 * origin, bit for bit: the move goes into the double anchor. Adding it to
 * the float offsets would leave steps of 2^-24 * 1e12. */
static void test_transform_far_from_origin_keeps_precision(void)
{
    static const double t[3] = {1e12, -3e11, 0};
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 8, 2), tr = transformed(g, src, t, NULL, 0, NULL), i, same = 0;
    double x[NP], y[NP], xs[NP], ys[NP];
    float *out;
    grid(xs, ys, 3, -5);
    for (i = 0; i < NP; i++) x[i] = xs[i] + t[0], y[i] = ys[i] + t[1];
    out = compare_at(g, tr, x, y, src, 2, xs, ys, NULL, 0, "far translate");
    for (i = 1; out && i < NP; i++) same += out[i] == out[i - 1];
    CHECKF(same < NP / 20, "%d of %d neighbouring values equal: quantised", same, NP);
    free(out);
    ng_graph_free(g);
}

/* A whole turn about any axis, and a turn of 360 in 2D, is the source bit
 * for bit; a quarter turn swaps the axes exactly. */
static void test_transform_rotate_whole_and_quarter_turns(void)
{
    static const double turns[][3] = {{360, 0, 0}, {0, 360, 0}, {0, 0, 360}, {-720, 360, 1080}};
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "simplex", 20, 9), i;
    double x[NP], y[NP], rx[NP], ry[NP];
    size_t k;
    grid(x, y, -30, 11);
    free(compare_at(g, transformed(g, src, NULL, NULL, 360, NULL), x, y, src, 2, x, y, NULL, 0, "angle 360"));
    for (k = 0; k < sizeof turns / sizeof turns[0]; k++)
        free(compare_at(g, transformed(g, src, NULL, turns[k], 0, NULL), x, y, src, 2, x, y, NULL, 0, "a whole turn"));
    /* angle 90 takes +x to +y: the pattern at (x, y) is the source's at (y, -x) */
    for (i = 0; i < NP; i++) rx[i] = y[i], ry[i] = -x[i];
    free(compare_at(g, transformed(g, src, NULL, NULL, 90, NULL), x, y, src, 2, rx, ry, NULL, 0, "quarter turn"));
    ng_graph_free(g);
}

/* Any angle: the source at the inversely rotated point, to float rounding. */
static void test_transform_rotate_any_angle(void)
{
    const double deg = 30, c = cos(deg * M_PI / 180), s = sin(deg * M_PI / 180);
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 20, 4), i;
    double x[NP], y[NP], rx[NP], ry[NP];
    grid(x, y, -30, 11);
    for (i = 0; i < NP; i++) rx[i] = c * x[i] + s * y[i], ry[i] = -s * x[i] + c * y[i];
    free(compare_at(g, transformed(g, src, NULL, NULL, deg, NULL), x, y, src, 2, rx, ry, NULL, 1e-4, "angle 30"));
    ng_graph_free(g);
}

/* Rotating about x tilts the plane into z: a 2D render of it is the 3D
 * source at (x, z, -y) for a quarter turn. */
static void test_transform_tilt_lifts_a_2d_render_into_3d(void)
{
    static const double rot[3] = {90, 0, 0};
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 20, 6), i;
    double x[NP], y[NP], sx[NP], sy[NP], sz[NP];
    grid(x, y, -30, 11);
    for (i = 0; i < NP; i++) sx[i] = x[i], sy[i] = 0, sz[i] = -y[i];
    free(compare_at(g, transformed(g, src, NULL, rot, 0, NULL), x, y, src, 3, sx, sy, sz, 0, "tilt"));
    ng_graph_free(g);
}

/* Scale 2 makes features twice as large: the source at half the position. */
static void test_transform_scale(void)
{
    static const double uniform[3] = {2, 2, 2}, stretch[3] = {4, 0.5, 1};
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 16, 8), i;
    double x[NP], y[NP], hx[NP], hy[NP];
    grid(x, y, -30, 11);
    for (i = 0; i < NP; i++) hx[i] = x[i] / 2, hy[i] = y[i] / 2;
    free(compare_at(g, transformed(g, src, NULL, NULL, 0, uniform), x, y, src, 2, hx, hy, NULL, 0, "scale 2"));
    for (i = 0; i < NP; i++) hx[i] = x[i] / 4, hy[i] = y[i] * 2;
    free(compare_at(g, transformed(g, src, NULL, NULL, 0, stretch), x, y, src, 2, hx, hy, NULL, 0, "scale {4, 0.5}"));
    ng_graph_free(g);
}

static void test_transform_errors(void)
{
    static const double two[2] = {10, 20}, three[3] = {10, 20, 30};
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 16, 8);
    ng_node *n;

    n = t_on(g, "transform", src);
    list(n, "rotate", two, 2);
    finish_fails(g, n, "rotate takes 3 angles {rx, ry, rz} in degrees, got 2", "angle");

    n = t_on(g, "transform", src);
    list(n, "rotate", three, 3);
    t_set(n, "angle", 45);
    finish_fails(g, n, "give rotate = {rx, ry, rz} or angle, not both", NULL);

    n = t_on(g, "transform", src);
    t_vec(n, "scale", 1, 0, 1);
    finish_fails(g, n, "scale along y is 0", NULL);
    ng_graph_free(g);
}

/* ---- through the program ----------------------------------------------------------------------------- */

/* The new math as methods and the % operator, in a script. */
static void test_lua_methods_and_mod_operator(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    mkscript(script, "methods.lua",
             "local n = ng.perlin{element_size = 16}\n"
             "local v = n:bias(0.3) + n:gain(0.7) + n:sin() + n:cos() + n:fract() + n:floor()\n"
             "  + (n % 0.25) + n:mod(0.5) + n:smin(0.2, 0.1) + n:smax(0, 0.05)\n"
             "return ng.transform{v, translate = {3, 4}, angle = 10, scale = 2}:ramp(\"heat\")\n");
    tpath(out, "methods.png");
    cli(&r, "render", script, "-o", out, "--size", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(out));
}

/* A ramp renders to an RGB PNG: red stays red. */
static void test_ramp_renders_rgb(void)
{
    char script[PATHLEN], out[PATHLEN];
    unsigned w, h;
    int depth, ctype, dw, dh;
    unsigned char *px;
    res r;
    mkscript(script, "rgb.lua", "return ng.ramp{ng.x() / 32, stops = {{0, 1, 0, 0}, {1, 0, 0, 1}}}\n");
    tpath(out, "rgb.png");
    cli(&r, "render", script, "-o", out, "--size", "32x4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(out, &w, &h, &depth, &ctype));
    CHECK_INT(ctype, PNG_COLOR_TYPE_RGB);
    px = decode(out, PNG_FORMAT_RGB, &dw, &dh);
    CHECK(px != NULL);
    if (px) {
        CHECK(px[0] > 240 && px[1] == 0 && px[2] < 15);                       /* left: red */
        CHECK(px[3 * 31] < 15 && px[3 * 31 + 1] == 0 && px[3 * 31 + 2] > 240); /* right: blue */
    }
    free(px);
}

/* Stops in a script as an artist writes them: {pos, {r, g, b}} and
 * {pos, "#rrggbb"} (or a colour name) give the same pixels as the flat
 * {pos, r, g, b} form; a malformed colour is one line naming it. */
static void test_ramp_stop_spellings(void)
{
    char a[PATHLEN], b[PATHLEN], oa[PATHLEN], ob[PATHLEN];
    res r;
    mkscript(a, "flat.lua",
             "return ng.ramp{ng.x() / 32, stops = {{0, 0, 0, 0.5}, {0.4, 0x3a / 255, 0x7d / 255, 0x44 / 255}, "
             "{1, 1, 1, 1}}}\n");
    mkscript(b, "nested.lua", "return ng.ramp{ng.x() / 32, stops = {{0, {0, 0, 0.5}}, {0.4, \"#3a7d44\"}, {1, \"white\"}}}\n");
    tpath(oa, "flat.pfm");
    tpath(ob, "nested.pfm");
    cli(&r, "render", a, "-o", oa, "--size", "32x2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", b, "-o", ob, "--size", "32x2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(oa, ob));
    mkscript(b, "badhex.lua", "return ng.ramp{ng.x(), stops = {{0, \"#3a7d4\"}, {1, \"white\"}}}\n");
    cli(&r, "render", b, "-o", ob, NULL);
    EXPECT_ERR(&r, 1, at(b, 1), "stops", "\"#3a7d4\" is not a colour");
    res_free(&r);
}

static void test_script_errors_name_the_line(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    tpath(out, "bad.png");
    mkscript(script, "badstop.lua", "local h = ng.x()\nreturn ng.ramp{h, stops = {{0, 0, 0, 0}, {1, 2, 1, 1}}}\n");
    cli(&r, "render", script, "-o", out, NULL);
    EXPECT_ERR(&r, 1, at(script, 2), "ramp: stop 2 (at 1): red = 2 is outside 0 to 1");
    res_free(&r);
    mkscript(script, "tiled.lua", "return ng.transform{ng.perlin{}, angle = 30}\n");
    cli(&r, "render", script, "-o", out, "--tileable", NULL);
    EXPECT_ERR(&r, 1, at(script, 1), "cannot tile");
    res_free(&r);
    CHECK(!exists(out));
    /* translate alone tiles */
    mkscript(script, "moved.lua", "return ng.transform{ng.perlin{element_size = 16}, translate = {5, 7}}\n");
    cli(&r, "render", script, "-o", out, "--tileable", "--size", "64", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

/* Without NG_BIN and NG_ROOT the program's tests cannot run: a failure,
 * not a silent skip. */
static void test_program_is_there(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
}

NG_SUITE(colour, fast)
{
    RUN(test_colour_parse_hex_and_names);
    RUN(test_colour_parse_refuses_what_is_not_a_colour);
    RUN(test_ramp_colours_exact_at_stops_and_ends_beyond);
    RUN(test_ramp_linear_and_smooth_meet_halfway);
    RUN(test_ramp_smooth_is_flat_at_stops);
    RUN(test_ramp_constant_steps);
    RUN(test_ramp_sorts_stops_and_keeps_hard_edges);
    RUN(test_ramp_presets_exist);
    RUN(test_ramp_default_is_greyscale);
    RUN(test_ramp_errors);
    RUN(test_bias_gain_identity_at_half);
    RUN(test_bias_gain_houdini_values);
    RUN(test_fract_floor_on_negative_values);
    RUN(test_mod_is_floored);
    RUN(test_sin_cos_radians);
    RUN(test_smin_below_min_and_tends_to_it);
    RUN(test_smin_is_continuous);
    RUN(test_transform_translate_is_the_pattern_at_shifted_points);
    RUN(test_transform_far_from_origin_keeps_precision);
    RUN(test_transform_rotate_whole_and_quarter_turns);
    RUN(test_transform_rotate_any_angle);
    RUN(test_transform_tilt_lifts_a_2d_render_into_3d);
    RUN(test_transform_scale);
    RUN(test_transform_errors);
    if (cli_setup("ngcolour") != 0) {
        RUN(test_program_is_there);
        return;
    }
    RUN(test_lua_methods_and_mod_operator);
    RUN(test_ramp_renders_rgb);
    RUN(test_script_errors_name_the_line);
    RUN(test_ramp_stop_spellings);
    cli_teardown();
}
