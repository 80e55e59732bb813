/*
 * test_deriv.c — analytic gradients through the graph (ng_pull_grad):
 * fractals of every type, the unified noise's own fractal, arithmetic,
 * fit, curves, smooth min/max and warps give the gradient central
 * differences measure (steps in the double anchor, so exact far from the
 * origin too), with the value bit for bit what eval computes; they do so
 * without evaluating the graph again (a counting probe node); a node
 * without an analytic form falls back, correctly; ng.light's analytic
 * result is close to its explicit-step one.
 */
#include "build.h"
#include "harness.h"
#include "ng_internal.h"
#include "suites.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { NPTS = 64 };

/* ---- pulling a root's gradient at a block, as a consumer would ------------ */

typedef struct puller {
    const ng_graph *g;
    int root;
    int *uses;
    ng_ctx *c;
    ng_node consumer; /* a stand-in whose input 0 is the root */
    float pos[4][NPTS];
} puller;

static int puller_open(puller *P, const ng_graph *g, int root)
{
    ng_error err;
    memset(P, 0, sizeof *P);
    P->g = g;
    P->root = root;
    P->uses = ng__uses(g, &root, 1);
    P->c = P->uses ? ng__ctx_new(g, P->uses, NPTS, &err) : NULL;
    P->consumer.input[0] = root;
    return P->c ? 0 : -1;
}

static void puller_close(puller *P)
{
    ng__ctx_free(P->c);
    free(P->uses);
}

/* The block: anchor plus offsets in [0, 150) world units (a fixed stream). */
static void make_block(puller *P, ng_block *b, int dims, const double *anchor, unsigned seed)
{
    int d, i;
    memset(b, 0, sizeof *b);
    b->n = NPTS;
    b->dims = dims;
    b->channels = 1;
    for (d = 0; d < 4; d++) b->p[d] = ng__ctx_zeros(P->c);
    for (d = 0; d < dims; d++) {
        b->anchor[d] = anchor[d];
        for (i = 0; i < NPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            P->pos[d][i] = (float)((seed >> 8) * (150.0 / 16777216.0));
        }
        b->p[d] = P->pos[d];
    }
}

/* value and gradient at b: h = 0 analytic where possible, h > 0 central
 * differences of that step */
static int pull(puller *P, ng_block *b, float *out, float *grad, double h)
{
    b->pos_id = ng__ctx_tile(P->c);
    return ng_pull_grad(P->c, &P->consumer, 0, b, out, grad, h);
}

static int eval_at(puller *P, ng_block *b, float *out)
{
    b->pos_id = ng__ctx_tile(P->c);
    return ng__eval(P->c, P->root, b, out, 0);
}

/* ---- analytic against central differences -------------------------------- */

static const double anchors[][3] = {{0, 0, 0}, {-3071.25, 977.5, 40}, {123456.7, -98765.4, 31415.9}};

typedef struct errstat {
    double scale2, n;    /* mean square of the analytic gradient */
    double worst;        /* largest |analytic - differences| */
    long big, count;     /* components off by more than 3 % of the scale */
    long value_mismatch; /* value bits unlike eval's */
} errstat;

/* Gradients of `root` at 3 blocks (near and far from the origin), analytic
 * and by central differences of a thousandth of its finest detail (a
 * hundredth crosses kinks too often, a ten-thousandth meets float
 * rounding), every channel. */
static void compare(const ng_graph *g, int root, int dims, errstat *e)
{
    const ng_node *n = ng_graph_node(g, root);
    const int ch = ng_node_channels(n);
    const double h = (n->detail < 1e30 ? n->detail : 10.0) * 1e-3;
    static float out[NG_MAX_CHANNELS * NPTS], ref[NG_MAX_CHANNELS * NPTS], val[NG_MAX_CHANNELS * NPTS];
    static float ga[NG_MAX_PLANES * NPTS], gd[NG_MAX_PLANES * NPTS];
    puller P;
    int a, i;
    memset(e, 0, sizeof *e);
    if (puller_open(&P, g, root)) {
        CHECKF(0, "no context");
        return;
    }
    for (a = 0; a < 3; a++) {
        ng_block b;
        make_block(&P, &b, dims, anchors[a], 77u + (unsigned)a);
        if (pull(&P, &b, out, ga, 0) || pull(&P, &b, ref, gd, h) || eval_at(&P, &b, val)) {
            CHECKF(0, "evaluation failed: %s", ng__ctx_error(P.c)->msg);
            break;
        }
        if (memcmp(out, val, (size_t)ch * NPTS * sizeof(float))) e->value_mismatch++;
        for (i = 0; i < ch * dims * NPTS; i++) e->scale2 += (double)ga[i] * ga[i], e->n++;
        for (i = 0; i < ch * dims * NPTS; i++) {
            const double d = fabs((double)ga[i] - gd[i]);
            if (d > e->worst) e->worst = d;
        }
    }
    for (a = 0; a < 3; a++) { /* second pass, now that the scale is known */
        ng_block b;
        const double scale = sqrt(e->scale2 / (e->n > 0 ? e->n : 1));
        make_block(&P, &b, dims, anchors[a], 77u + (unsigned)a);
        if (pull(&P, &b, out, ga, 0) || pull(&P, &b, ref, gd, h)) break;
        for (i = 0; i < ch * dims * NPTS; i++, e->count++)
            if (fabs((double)ga[i] - gd[i]) > 0.03 * scale) e->big++;
    }
    puller_close(&P);
}

/* At least 97 % of the components within 3 % of the gradient's RMS (a
 * kink crossed by the difference step, ridged's |n| or a clamp, makes a
 * few miss by any amount), smooth graphs none far off, a nonzero
 * gradient, and the value eval's own. */
static int kinks; /* the graphs under test have kinks (|x|, min, clamp...) */

static void expect_close(const char *what, const ng_graph *g, int root, int dims)
{
    errstat e;
    double scale;
    compare(g, root, dims, &e);
    scale = sqrt(e.scale2 / (e.n > 0 ? e.n : 1));
    CHECKF(scale > 0, "%s %dD: zero gradient", what, dims);
    CHECKF(e.big * 100 <= e.count * 3, "%s %dD: %ld of %ld gradient components off by more than 3%% of %g", what,
           dims, e.big, e.count, scale);
    CHECKF(kinks || e.worst <= 0.05 * scale, "%s %dD: a gradient component off by %g (scale %g)", what, dims, e.worst,
           scale);
    CHECKF(e.value_mismatch == 0, "%s %dD: the value with the gradient is not eval's, bit for bit", what, dims);
}

static int fractal_of(ng_graph *g, const char *type, int src, double octaves)
{
    ng_node *n = t_on(g, type, src);
    t_set(n, "octaves", octaves);
    t_set(n, "lacunarity", 2.13);
    return t_finish(g, n);
}

static int unary(ng_graph *g, const char *type, int src)
{
    return t_finish(g, t_on(g, type, src));
}

static const char *const fractal_types[] = {"fbm", "ridged", "billow", "hybrid", "terrain"};

static void test_fractals_match_differences(void)
{
    static const char *const bases[] = {"perlin", "simplex"};
    int t, s, dims;
    for (t = 0; t < 5; t++)
        for (s = 0; s < 2; s++)
            for (dims = 2; dims <= 3; dims++) {
                ng_graph *g = ng_graph_new();
                char what[64];
                int root = fractal_of(g, fractal_types[t], t_noise(g, bases[s], 40, 3), 5.5);
                snprintf(what, sizeof what, "%s of %s", fractal_types[t], bases[s]);
                kinks = t >= 1 && t <= 3; /* ridged, billow (|n|), hybrid (a clamped weight) */
                expect_close(what, g, root, dims);
                ng_graph_free(g);
            }
}

/* The unified noise's own fractal (no separate node), the rms normaliser,
 * and a fractal of a fractal. */
static void test_unified_fractal_matches_differences(void)
{
    static const char *const kinds[] = {"fbm", "ridged", "hybrid", "billow", "terrain"};
    int t, dims;
    for (t = 0; t < 5; t++)
        for (dims = 2; dims <= 3; dims++) {
            ng_graph *g = ng_graph_new();
            ng_node *n = t_begin(g, t & 1 ? "simplex" : "perlin");
            int root;
            t_set(n, "element_size", 50);
            t_choose(n, "fractal", kinds[t]);
            t_set(n, "octaves", 4.5);
            if (t == 3) t_choose(n, "normalize", "rms");
            root = t_finish_ok(g, n);
            kinks = t == 1 || t == 2 || t == 3; /* ridged, hybrid, billow */
            expect_close(kinds[t], g, root, dims);
            ng_graph_free(g);
        }
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        int root = fractal_of(g, "fbm", fractal_of(g, "ridged", t_noise(g, "perlin", 200, 5), 3), 3);
        kinks = 1;
        expect_close("fbm of ridged", g, root, dims);
        ng_graph_free(g);
    }
}

static void test_math_chains_match_differences(void)
{
    int dims;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        const int a = t_noise(g, "perlin", 60, 1), b = t_noise(g, "simplex", 45, 2), c = t_noise(g, "perlin", 80, 9);
        const int f = fractal_of(g, "fbm", a, 4);
        ng_node *n;
        int fit, root, curve, mix, sel;
        double pts[] = {-1, -1, -0.2, 0.1, 0.3, 0.2, 1, 1};
        ng_error err;
        kinks = 1; /* clamp, min, max, abs, terrace */
        n = t_on(g, "fit", f);
        t_set(n, "from_lo", -0.45), t_set(n, "from_hi", 0.45), t_set(n, "to_lo", 0), t_set(n, "to_hi", 1);
        ng_set_bool(n, ng_param_index(ng_node_type_of(n), "clamp"), 1, &err);
        fit = t_finish(g, n);
        n = t_begin(g, "smax");
        t_in(g, n, "a", fit), t_in(g, n, "b", t_const(g, 0.3));
        t_set(n, "k", 0.05);
        expect_close("smax(fit(fbm), 0.3)", g, t_finish(g, n), dims);

        root = t_bin(g, "add", t_bin(g, "mul", a, b), t_bin(g, "div", c, t_bin(g, "add", t_const(g, 2), b)));
        expect_close("a b + c / (2 + b)", g, root, dims);
        root = t_bin(g, "sub", t_bin(g, "min", a, b), t_bin(g, "max", b, c));
        expect_close("min - max", g, root, dims);
        n = t_begin(g, "smin");
        t_in(g, n, "a", a), t_in(g, n, "b", b);
        t_set(n, "k", 0.3);
        expect_close("smin", g, t_finish(g, n), dims);
        root = unary(g, "sqrt", unary(g, "abs", t_bin(g, "pow", t_bin(g, "add", t_const(g, 1.5), a), b)));
        expect_close("sqrt |(1.5 + a)^b|", g, root, dims);
        root = unary(g, "sin", t_bin(g, "mul", t_const(g, 3), unary(g, "invert", unary(g, "neg", a))));
        expect_close("sin(3 (1 + a))", g, root, dims);

        n = t_on(g, "curve", a);
        if (ng_set_list(n, ng_param_index(ng_node_type_of(n), "points"), pts, 8, &err)) CHECKF(0, "%s", err.msg);
        curve = t_finish(g, n);
        expect_close("curve", g, curve, dims);
        n = t_on(g, "terrace", a);
        t_set(n, "steps", 4), t_set(n, "lo", -1), t_set(n, "hi", 1), t_set(n, "sharpness", 3);
        expect_close("terrace", g, t_finish(g, n), dims);
        n = t_begin(g, "mix");
        t_in(g, n, "a", a), t_in(g, n, "b", curve), t_in(g, n, "t", c);
        mix = t_finish(g, n);
        expect_close("mix", g, mix, dims);
        n = t_begin(g, "select");
        t_in(g, n, "a", a), t_in(g, n, "b", b), t_in(g, n, "control", c);
        t_set(n, "falloff", 0.2);
        sel = t_finish(g, n);
        expect_close("select with a soft edge", g, sel, dims);
        n = t_on(g, "gain", t_bin(g, "add", t_const(g, 0.5), t_bin(g, "mul", t_const(g, 0.5), a)));
        t_set(n, "gain", 0.3);
        expect_close("gain", g, t_finish(g, n), dims);
        n = t_on(g, "smoothstep", a);
        t_set(n, "lo", -0.5), t_set(n, "hi", 0.5);
        expect_close("smoothstep", g, t_finish(g, n), dims);
        ng_graph_free(g);
    }
}

static int warp_of(ng_graph *g, int src, int by, double amount, double octaves, const char *mode)
{
    ng_node *n = t_begin(g, "warp");
    t_in(g, n, "source", src);
    t_in(g, n, "by", by);
    t_in(g, n, "amount", t_const(g, amount));
    t_set(n, "octaves", octaves);
    t_choose(n, "mode", mode);
    return t_finish(g, n);
}

/* Warps by vector noises (2 and 3 channels), with octaves of the field in
 * both modes, an amount driven by a mask, warps of warps, and the height of
 * graphs/terrain_colour.lua. */
static void test_warps_match_differences(void)
{
    int dims;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        const int base = t_noise(g, "perlin", 64, 7), flow = t_vnoise(g, "simplex", 96, 8);
        const int flow3 = t_vnoise(g, "perlin", 120, 4), mask = t_noise(g, "simplex", 150, 5);
        int w, root;
        ng_node *n;
        ng_error err;
        kinks = 0;
        expect_close("warp", g, warp_of(g, base, flow, 30, 1, "progressive"), dims);
        expect_close("warp by 3 channels", g, warp_of(g, base, flow3, 25, 1, "progressive"), dims);
        expect_close("progressive warp, 3 octaves", g, warp_of(g, base, flow, 20, 3, "progressive"), dims);
        expect_close("independent warp, 2.5 octaves", g, warp_of(g, base, flow, 20, 2.5, "independent"), dims);
        n = t_begin(g, "warp");
        t_in(g, n, "source", base), t_in(g, n, "by", flow), t_in(g, n, "amount", t_bin(g, "mul", t_const(g, 40), mask));
        expect_close("warp by a masked amount", g, t_finish(g, n), dims);
        w = warp_of(g, warp_of(g, base, flow, 20, 1, "progressive"), flow3, 15, 1, "progressive");
        expect_close("warp of a warp", g, w, dims);
        expect_close("warp of a vector source", g, warp_of(g, flow3, flow, 20, 1, "progressive"), dims);
        /* terrain_colour.lua's height */
        n = t_on(g, "fit", fractal_of(g, "fbm", warp_of(g, base, flow, 60, 1, "progressive"), 7));
        t_set(n, "from_lo", -0.45), t_set(n, "from_hi", 0.45), t_set(n, "to_lo", 0), t_set(n, "to_hi", 1);
        ng_set_bool(n, ng_param_index(ng_node_type_of(n), "clamp"), 1, &err);
        root = t_finish(g, n);
        kinks = 1; /* the clamp */
        expect_close("terrain_colour's height", g, root, dims);
        ng_graph_free(g);
    }
}

/* A vector noise's gradient: every channel, the values eval's. */
static void test_vector_noise_matches_differences(void)
{
    int dims;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        kinks = 0;
        expect_close("vector simplex", g, t_vnoise(g, "simplex", 30, 2), dims);
        expect_close("vector perlin", g, t_vnoise(g, "perlin", 30, 2), dims);
        ng_graph_free(g);
    }
}

/* Nodes without an analytic form mixed in: a fractal whose roughness is a
 * node, a worley noise, a transform of the domain; and a chain longer than
 * the analytic nesting (NG_GRAD_DEPTH). The gradients stay right. */
static void test_fallbacks_are_correct(void)
{
    int dims, i;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        const int a = t_noise(g, "perlin", 64, 7), mask = t_noise(g, "simplex", 200, 3);
        ng_node *n = t_on(g, "fbm", a);
        int driven, root;
        ng_error err;
        kinks = 1; /* ridged, worley */
        if (ng_set_param_node(g, n, ng_param_index(ng_node_type_of(n), "roughness"),
                              t_bin(g, "add", t_const(g, 0.5), t_bin(g, "mul", t_const(g, 0.2), mask)), &err))
            CHECKF(0, "%s", err.msg);
        t_set(n, "octaves", 4);
        driven = t_finish(g, n);
        root = t_bin(g, "add", t_bin(g, "mul", t_const(g, 2), driven), fractal_of(g, "ridged", a, 3));
        expect_close("driven roughness beside ridged", g, root, dims);
        root = t_bin(g, "add", a, t_noise(g, "worley", 50, 2));
        expect_close("perlin + worley", g, root, dims);
        root = a;
        for (i = 0; i < NG_GRAD_DEPTH + 20; i++) root = t_bin(g, "add", root, t_const(g, 0.01));
        expect_close("a long chain", g, fractal_of(g, "fbm", root, 2), dims);
        ng_graph_free(g);
    }
}

/* ---- no re-evaluation: a probe counts its evaluations ---------------------- */

static atomic_int probe_evals, probe_grads;

/* sin(0.05 x) cos(0.07 y) + 0.3 sin(0.04 z) (+ channel), in world units */
static void probe_value(const ng_block *b, float *out, float *grad, int channels)
{
    int i, c, d;
    for (c = 0; c < channels; c++)
        for (i = 0; i < b->n; i++) {
            double p[3] = {0, 0, 0}, v;
            for (d = 0; d < b->dims && d < 3; d++) p[d] = b->anchor[d] + b->p[d][i];
            v = sin(0.05 * p[0] + c) * cos(0.07 * p[1]) + 0.3 * sin(0.04 * p[2]);
            out[(size_t)c * b->n + i] = (float)v;
            if (!grad) continue;
            for (d = 0; d < b->dims; d++) {
                double gd = d == 0 ? 0.05 * cos(0.05 * p[0] + c) * cos(0.07 * p[1])
                          : d == 1 ? -0.07 * sin(0.05 * p[0] + c) * sin(0.07 * p[1])
                          : d == 2 ? 0.012 * cos(0.04 * p[2]) : 0;
                grad[((size_t)c * (size_t)b->dims + (size_t)d) * (size_t)b->n + i] = (float)gd;
            }
        }
}

static int probe_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx, (void)in;
    atomic_fetch_add(&probe_evals, 1);
    probe_value(b, out, NULL, ng_node_channels(n));
    return 0;
}

static int probe_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    (void)ctx;
    atomic_fetch_add(&probe_grads, 1);
    probe_value(b, out, grad, ng_node_channels(n));
    return 0;
}

static const ng_param_desc probe_params[] = {
    {"channels", NG_PARAM_NUMBER, {1}, 1, 3, NULL, "output channels"},
};

static int probe_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch, (void)err;
    n->channels = (int)n->param[0].v[0];
    return 0;
}

static const ng_node_type probe_type = {
    .name = "probe", .family = "test", .doc = "counts its evaluations", .params = probe_params, .nparams = 1,
    .dims = 0x1Eu, .setup = probe_setup, .eval_grad = probe_eval_grad, .eval = probe_eval,
};

static int probe(ng_graph *g, int channels)
{
    ng_error err;
    ng_node *n = ng_node_begin(g, &probe_type, "probe", NULL, &err);
    if (!n || ng_set_number(n, 0, channels, &err)) return -1;
    return ng_node_finish(g, n, &err);
}

/* The gradient of fractals, arithmetic and warps over the probe asks it
 * for values and gradients together, never for values alone (central
 * differences would, 2 x dims extra times per octave). */
static void test_gradients_do_not_reevaluate(void)
{
    ng_graph *g = ng_graph_new();
    const int p = probe(g, 1), v = probe(g, 2);
    int roots[4], r, dims;
    ng_node *n;
    ng_error err;
    roots[0] = fractal_of(g, "ridged", p, 5);
    n = t_on(g, "fit", fractal_of(g, "fbm", p, 6));
    ng_set_bool(n, ng_param_index(ng_node_type_of(n), "clamp"), 1, &err);
    roots[1] = t_finish(g, n);
    n = t_begin(g, "smax");
    t_in(g, n, "a", roots[1]), t_in(g, n, "b", t_const(g, 0.3));
    roots[1] = t_finish(g, n);
    roots[2] = fractal_of(g, "fbm", warp_of(g, p, v, 30, 2, "progressive"), 3);
    roots[3] = t_bin(g, "mul", fractal_of(g, "hybrid", p, 3), fractal_of(g, "terrain", p, 3));
    for (r = 0; r < 4; r++)
        for (dims = 2; dims <= 3; dims++) {
            static float out[NPTS * NG_MAX_CHANNELS], grad[NPTS * NG_MAX_PLANES];
            puller P;
            ng_block b;
            if (puller_open(&P, g, roots[r])) continue;
            make_block(&P, &b, dims, anchors[1], 5);
            atomic_store(&probe_evals, 0), atomic_store(&probe_grads, 0);
            CHECK(pull(&P, &b, out, grad, 0) == 0);
            CHECKF(atomic_load(&probe_evals) == 0 && atomic_load(&probe_grads) > 0,
                   "root %d %dD: the probe evaluated %d times for values, %d for gradients", r, dims,
                   atomic_load(&probe_evals), atomic_load(&probe_grads));
            atomic_store(&probe_evals, 0);
            CHECK(pull(&P, &b, out, grad, 0.5) == 0); /* an explicit step: central differences */
            CHECK(atomic_load(&probe_evals) > 0);
            puller_close(&P);
        }
    ng_graph_free(g);
}

/* A height read by ng.light and by another node: the light's analytic
 * pass leaves the height's value for the other reader, so the whole render
 * asks the probe for values never (terrain + hillshade costs one pass). */
static void test_light_shares_the_height(void)
{
    ng_graph *g = ng_graph_new();
    const int p = probe(g, 1), height = fractal_of(g, "fbm", p, 5);
    ng_node *n = t_on(g, "light", height);
    ng_render_opts o;
    float *img;
    int root;
    t_set(n, "height", 20);
    root = t_bin(g, "add", height, t_finish(g, n));
    t_opts(&o, 96, 64);
    o.threads = 2;
    atomic_store(&probe_evals, 0), atomic_store(&probe_grads, 0);
    img = t_render(g, root, &o);
    CHECK(img != NULL);
    CHECKF(atomic_load(&probe_evals) == 0, "the probe evaluated %d times for values beside %d gradient passes",
           atomic_load(&probe_evals), atomic_load(&probe_grads));
    free(img);
    ng_graph_free(g);
}

/* ---- ng.light: analytic against an explicit step -------------------------- */

static float *light_of(ng_graph *g, int height, double step, int w, int h)
{
    ng_node *n = t_on(g, "light", height);
    ng_render_opts o;
    t_set(n, "height", 100);
    if (step > 0) t_set(n, "step", step);
    t_opts(&o, w, h);
    o.threads = 2;
    return t_render(g, t_finish(g, n), &o);
}

static void test_light_analytic_close_to_explicit_step(void)
{
    ng_graph *g = ng_graph_new();
    const int base = t_noise(g, "perlin", 64, 7), flow = t_vnoise(g, "simplex", 96, 8);
    ng_node *n = t_on(g, "fit", fractal_of(g, "fbm", warp_of(g, base, flow, 60, 1, "progressive"), 7));
    int height, i;
    float *an, *cd;
    double worst = 0, mean = 0;
    long off = 0;
    t_set(n, "from_lo", -0.45), t_set(n, "from_hi", 0.45), t_set(n, "to_lo", 0), t_set(n, "to_hi", 1);
    height = t_finish(g, n);
    an = light_of(g, height, 0, 200, 150);
    cd = light_of(g, height, 1e-2, 200, 150); /* smaller steps meet float rounding */
    CHECK(an && cd);
    for (i = 0; an && cd && i < 200 * 150; i++) {
        const double d = fabs((double)an[i] - cd[i]);
        if (d > worst) worst = d;
        off += d > 0.01;
        mean += d;
    }
    mean /= 200 * 150;
    CHECKF(off * 1000 <= 200 * 150 && mean <= 1e-3,
           "light: analytic and step 0.01 differ by more than 0.01 at %ld pixels (at most %g), %g on average", off,
           worst, mean);
    free(an), free(cd);
    ng_graph_free(g);
}

void suite_deriv(void)
{
    RUN(test_fractals_match_differences);
    RUN(test_unified_fractal_matches_differences);
    RUN(test_math_chains_match_differences);
    RUN(test_warps_match_differences);
    RUN(test_vector_noise_matches_differences);
    RUN(test_fallbacks_are_correct);
    RUN(test_gradients_do_not_reevaluate);
    RUN(test_light_shares_the_height);
    RUN(test_light_analytic_close_to_explicit_step);
}
