/*
 * test_gradients.c — analytic gradients, from the kernels to the lit
 * terrain. Through the graph (ng_pull_grad): fractals of every type, the
 * unified noise's own fractal, arithmetic, fit, curves, smooth min/max and
 * warps give the gradient central differences measure (steps in the double
 * anchor, so exact far from the origin too), with the value bit for bit
 * what eval computes; they do so without evaluating the graph again (a
 * counting probe node); a node without an analytic form falls back,
 * correctly; ng.light's analytic result is close to its explicit-step one,
 * and a noise's gradient read back from ng.normal is its central
 * differences. The shading modes on a plane. The lit terrain's path: a
 * consumer that reads 2 of a vector field's 3 channels asks for 2
 * (ng_pull_grad_channels) and gets the 3-channel pull's bits in them, and
 * the field is evaluated once per octave, by its gradient alone. Below the
 * graph: the SIMD paths' gradient loops give the bits of the scalar
 * formulas they replace, the kernels' multiply by frequency (gmul) the
 * bits of separate passes, a warp's number amount the bits of a node of
 * that value, and the simplex kernels' gradient vectors are their sets
 * exactly. (Each basis kernel's own _d gradient: tests/test_kernels.c,
 * test_cells.c, test_vector_noise.c.)
 */
#include "build.h"
#include "gradcheck.h"
#include "harness.h"
#include "kernels.h"
#include "lattice_parts.h"
#include "ng_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At least 97 % of the components within 3 % of the gradient's RMS (a
 * kink crossed by the difference step, ridged's |n| or a clamp, makes a
 * few miss by any amount), smooth graphs none far off, a nonzero
 * gradient, and the value eval's own. */
static int kinks; /* the graphs under test have kinks (|x|, min, clamp...) */

static void expect_close(const char *what, const ng_graph *g, int root, int dims)
{
    t_grad_err e;
    double scale;
    t_grad_compare(g, root, dims, &e);
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

/* A vector noise's gradient: every channel, the values eval's, with
 * either gradients (the vector kernels take the set it names). */
static void test_vector_noise_matches_differences(void)
{
    static const char *const types[] = {"simplex", "perlin", "fast"}, *const sets[] = {"isotropic", "classic"};
    int dims, t, s;
    for (dims = 2; dims <= 3; dims++)
        for (t = 0; t < 3; t++)
            for (s = 0; s < 2; s++) {
                ng_graph *g = ng_graph_new();
                ng_node *n = t_begin(g, types[t]);
                char what[64];
                t_set(n, "element_size", 30);
                t_set(n, "seed", 2);
                t_choose(n, "output", "vector");
                t_choose(n, "gradients", sets[s]);
                snprintf(what, sizeof what, "vector %s (%s)", types[t], sets[s]);
                kinks = 0;
                expect_close(what, g, t_finish(g, n), dims);
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
    .dims = NG_DIMS_ALL, .setup = probe_setup, .eval_grad = probe_eval_grad, .eval = probe_eval,
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
            static float out[T_GRAD_NPTS * NG_MAX_CHANNELS], grad[T_GRAD_NPTS * NG_MAX_PLANES];
            t_puller P;
            ng_block b;
            if (t_puller_open(&P, g, roots[r])) continue;
            t_puller_block(&P, &b, dims, t_grad_anchors[1], 5);
            atomic_store(&probe_evals, 0), atomic_store(&probe_grads, 0);
            CHECK(t_pull(&P, &b, out, grad, 0) == 0);
            CHECKF(atomic_load(&probe_evals) == 0 && atomic_load(&probe_grads) > 0,
                   "root %d %dD: the probe evaluated %d times for values, %d for gradients", r, dims,
                   atomic_load(&probe_evals), atomic_load(&probe_grads));
            atomic_store(&probe_evals, 0);
            CHECK(t_pull(&P, &b, out, grad, 0.5) == 0); /* an explicit step: central differences */
            CHECK(atomic_load(&probe_evals) > 0);
            t_puller_close(&P);
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
    t_choose(n, "method", "analytic");
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
    t_choose(n, "method", "analytic");
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

/* ---- a noise's gradient through ng.normal, and the shading modes ---------- */

#define BASIS_NAME(F, ID, id, name, ...) [NG_BASIS_##ID] = name,
static const char *const basis_names[NG_NBASES] = {NG_BASES(BASIS_NAME)};
#undef BASIS_NAME

static int has_gradient(int b) { return ng__kernel_grad(ng__path(), b) != NULL; }

/* The shading node's gradient of a noise (analytic: the kernel computes it
 * with the value) agrees with central differences of the noise itself,
 * taken here in double at +-h. Recovered from the unit normal
 * (-gx, -gy, 1) / |.| as g = -n_xy / n_z. */
static void test_analytic_gradient_matches_differences(void)
{
    int t, dims, i, d;
    for (t = 0; t < NG_NBASES; t++)
        for (dims = 2; dims <= 3 && has_gradient(t); dims++) {
            ng_graph *g = ng_graph_new();
            int src = t_noise(g, basis_names[t], 23, 3), nrm;
            ng_node *n = t_begin(g, "normal");
            ng_error err;
            double xs[3][64], lo[3][64], hi[3][64], worst = 0;
            const double *p[3] = {xs[0], xs[1], xs[2]};
            float nv[3 * 64], a[64], b[64];
            const double h = 1e-3;
            ng_set_input(g, n, 0, src, &err);
            t_set(n, "height", 1);
            nrm = t_finish(g, n);
            for (i = 0; i < 64; i++) {
                xs[0][i] = 3.3 + 17.1 * i;
                xs[1][i] = 250.9 - 7.7 * i;
                xs[2][i] = 1e6 + 0.37 * i; /* far out in z too */
            }
            CHECK_INT(ng_eval_points(g, nrm, dims, p, 64, nv, &err), 0);
            for (d = 0; d < 2; d++) {
                memcpy(lo, xs, sizeof lo);
                memcpy(hi, xs, sizeof hi);
                for (i = 0; i < 64; i++) {
                    /* one point per call: the point is the block's anchor, so
                     * the step h is exact, not rounded into a float offset */
                    const double *q[3] = {&lo[0][i], &lo[1][i], &lo[2][i]}, *r[3] = {&hi[0][i], &hi[1][i], &hi[2][i]};
                    lo[d][i] -= h, hi[d][i] += h;
                    CHECK_INT(ng_eval_points(g, src, dims, q, 1, a + i, &err), 0);
                    CHECK_INT(ng_eval_points(g, src, dims, r, 1, b + i, &err), 0);
                }
                for (i = 0; i < 64; i++) {
                    double fd = ((double)b[i] - a[i]) / (2 * h), an = -nv[i * 3 + d] / nv[i * 3 + 2];
                    if (fabs(fd - an) > worst) worst = fabs(fd - an);
                }
            }
            /* gradients are up to ~8 per cell / 23 units; float rounding of
             * the differences is ~1e-7 / 2e-3 = 5e-5 */
            if (worst > 2e-3)
                ng_t_fail(__FILE__, __LINE__, "%s %dD: analytic and central-difference gradients differ by %g",
                          basis_names[t], dims, worst);
            ng_graph_free(g);
        }
}

/* The shading modes on a plane z = height * (x + 2y): slope is the angle
 * from horizontal over 90 degrees, light is Lambert's cosine, normal the
 * unit normal (central differences of a linear field are exact). */
static void test_shading_of_a_plane(void)
{
    ng_graph *g = ng_graph_new();
    ng_error err;
    int h = t_bin(g, "add", t_finish(g, t_begin(g, "x")), t_bin(g, "mul", t_finish(g, t_begin(g, "y")), t_const(g, 2)));
    int modes[3], m;
    static const char *const names[] = {"normal", "slope", "light"};
    double x = 10.5, y = 3.25;
    const double *p[2] = {&x, &y};
    float out[3];
    const double len = sqrt(0.25 + 1.0 + 1.0); /* (-0.5, -1, 1) for height 0.5 */
    for (m = 0; m < 3; m++) {
        ng_node *n = t_begin(g, names[m]);
        double l[3] = {0, 0, 1};
        ng_set_input(g, n, 0, h, &err);
        t_set(n, "height", 0.5);
        ng_set_vec3(n, ng_param_index(ng_node_type_of(n), "light"), l, &err);
        t_set(n, "step", 0.25);
        modes[m] = t_finish(g, n);
    }
    CHECK_INT(ng_eval_points(g, modes[0], 2, p, 1, out, &err), 0);
    CHECK_NEAR(out[0], -0.5 / len, 1e-5);
    CHECK_NEAR(out[1], -1.0 / len, 1e-5);
    CHECK_NEAR(out[2], 1.0 / len, 1e-5);
    CHECK_INT(ng_eval_points(g, modes[1], 2, p, 1, out, &err), 0);
    CHECK_NEAR(out[0], atan(sqrt(1.25)) / (M_PI / 2), 1e-5);
    CHECK_INT(ng_eval_points(g, modes[2], 2, p, 1, out, &err), 0);
    CHECK_NEAR(out[0], 1.0 / len, 1e-5); /* light straight above: n . (0, 0, 1) */
    ng_graph_free(g);
}

/* ---- the lit terrain's gradient path ----------------------------------------- */

enum { HPTS = 96 };

/* A consumer stand-in whose input 0 is root, and a block of HPTS points. */
typedef struct bench_ctx {
    int *uses;
    ng_ctx *c;
    ng_node consumer;
    float pos[4][HPTS];
    ng_block b;
} bench_ctx;

static int open_at(bench_ctx *P, const ng_graph *g, int root, int dims, const double *anchor)
{
    ng_error err;
    unsigned seed = 12345u;
    int d, i;
    memset(P, 0, sizeof *P);
    P->uses = ng__uses(g, &root, 1);
    P->c = P->uses ? ng__ctx_new(g, P->uses, HPTS, &err) : NULL;
    P->consumer.input[0] = root;
    if (!P->c) return -1;
    P->b.n = HPTS;
    P->b.dims = dims;
    P->b.channels = 1;
    for (d = 0; d < 4; d++) P->b.p[d] = ng__ctx_zeros(P->c);
    for (d = 0; d < dims; d++) {
        P->b.anchor[d] = anchor[d];
        for (i = 0; i < HPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            P->pos[d][i] = (float)((seed >> 8) * (300.0 / 16777216.0));
        }
        P->b.p[d] = P->pos[d];
    }
    return 0;
}

static void close_ctx(bench_ctx *P)
{
    ng__ctx_free(P->c);
    free(P->uses);
}

/* ---- 2 channels asked: the 3-channel pull's first 2, bit for bit ---------- */

static int vector_field(ng_graph *g, const char *type, int fractal)
{
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", 70);
    t_set(n, "seed", 8);
    t_choose(n, "output", "vector");
    if (fractal) {
        t_choose(n, "fractal", "fbm");
        t_set(n, "octaves", 3);
    }
    return t_finish(g, n);
}

static void test_two_channels_are_the_first_two_of_three(void)
{
    static const char *const types[] = {"simplex", "perlin", "value"};
    static const double anchor[3] = {-2047.5, 311.25, 17};
    static float o3[NG_MAX_CHANNELS * HPTS], g3[NG_MAX_PLANES * HPTS];
    static float o2[NG_MAX_CHANNELS * HPTS], g2[NG_MAX_PLANES * HPTS];
    int t, fractal, dims;
    for (t = 0; t < 3; t++)
        for (fractal = 0; fractal < 2; fractal++)
            for (dims = 2; dims <= 3; dims++) {
                ng_graph *g = ng_graph_new();
                const int root = vector_field(g, types[t], fractal);
                bench_ctx P;
                size_t vals = 2 * HPTS, planes = (size_t)2 * (size_t)dims * HPTS;
                CHECK_INT(ng_node_channels(ng_graph_node(g, root)), 3);
                if (open_at(&P, g, root, dims, anchor)) {
                    CHECKF(0, "no context");
                    ng_graph_free(g);
                    continue;
                }
                P.b.pos_id = ng__ctx_tile(P.c);
                CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, o3, g3, 0) == 0);
                memset(o2, 0x7f, sizeof o2), memset(g2, 0x7f, sizeof g2);
                P.b.pos_id = ng__ctx_tile(P.c);
                CHECK(ng_pull_grad_channels(P.c, &P.consumer, 0, &P.b, o2, g2, 0, 2) == 0);
                CHECKF(!memcmp(o2, o3, vals * sizeof(float)), "%s%s %dD: values of 2 channels differ from 3's",
                       types[t], fractal ? " fbm" : "", dims);
                CHECKF(!memcmp(g2, g3, planes * sizeof(float)), "%s%s %dD: gradients of 2 channels differ from 3's",
                       types[t], fractal ? " fbm" : "", dims);
                close_ctx(&P);
                ng_graph_free(g);
            }
}

/* ---- the lit terrain's gradient against central differences ---------------- */

/* the height of tests/bench/terrain_light.lua: perlin warped by a simplex
 * field, 7 octaves of fBm, fit and clamped; the field's warp in `octaves`
 * octaves (2: the progressive path through the Jacobian), amount a number
 * or a mask node */
static int lit_height(ng_graph *g, int by, double octaves, int masked)
{
    ng_node *n = t_begin(g, "warp");
    int h;
    t_in(g, n, "source", t_noise(g, "perlin", 256, 7));
    t_in(g, n, "by", by);
    t_in(g, n, "amount", masked ? t_bin(g, "mul", t_noise(g, "simplex", 500, 2), t_const(g, 60)) : t_const(g, 60));
    t_set(n, "octaves", octaves);
    h = t_fbm(g, t_finish(g, n), 7, 2.03, 0.5);
    n = t_on(g, "fit", h);
    t_set(n, "from_lo", -0.45), t_set(n, "from_hi", 0.45), t_set(n, "to_lo", 0), t_set(n, "to_hi", 1);
    return t_finish(g, n);
}

static void expect_differences(const char *what, const ng_graph *g, int root)
{
    static const double anchors[2][3] = {{0, 0, 0}, {98765.25, -4321.5, 0}};
    static float out[HPTS], val[HPTS], ref[HPTS], ga[2 * HPTS], gd[2 * HPTS];
    long big = 0, count = 0;
    double scale2 = 0;
    int a, i;
    for (a = 0; a < 2; a++) {
        bench_ctx P;
        if (open_at(&P, g, root, 2, anchors[a])) {
            CHECKF(0, "no context");
            return;
        }
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, out, ga, 0) == 0);
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, ref, gd, 0.02) == 0);
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng__eval(P.c, P.consumer.input[0], &P.b, val, 0) == 0);
        CHECKF(!memcmp(out, val, sizeof out), "%s: the value with the gradient is not eval's", what);
        for (i = 0; i < 2 * HPTS; i++) scale2 += (double)ga[i] * ga[i];
        for (i = 0; i < 2 * HPTS; i++, count++)
            if (fabs((double)ga[i] - gd[i]) > 0.02 * sqrt(scale2 / (2.0 * HPTS * (a + 1)))) big++;
        close_ctx(&P);
    }
    CHECKF(scale2 > 0, "%s: zero gradient", what);
    /* the clamp of the fit is a kink a difference step may cross: a few */
    CHECKF(big * 100 <= count * 3, "%s: %ld of %ld components off by more than 2%% of the RMS", what, big, count);
}

static void test_lit_terrain_gradient_matches_differences(void)
{
    int octaves, masked;
    for (octaves = 1; octaves <= 2; octaves++)
        for (masked = 0; masked < 2; masked++) {
            ng_graph *g = ng_graph_new();
            char what[80];
            const int root = lit_height(g, t_vnoise(g, "simplex", 384, 8), octaves, masked);
            snprintf(what, sizeof what, "lit terrain, warp of %d octave(s)%s", octaves, masked ? ", masked" : "");
            expect_differences(what, g, root);
            ng_graph_free(g);
        }
}

/* ---- the field, counted, in the lit render --------------------------------- */

static atomic_int field_evals, field_grads, field_channels_max;

/* sin/cos waves (world units), channel c shifted by c */
static void wave(const ng_block *b, float *out, float *grad, int channels)
{
    int i, c, d;
    for (c = 0; c < channels; c++)
        for (i = 0; i < b->n; i++) {
            const double x = b->anchor[0] + b->p[0][i] + 7 * c, y = b->anchor[1] + b->p[1][i];
            out[(size_t)c * b->n + i] = (float)(sin(0.01 * x) * cos(0.013 * y));
            if (!grad) continue;
            for (d = 0; d < b->dims; d++)
                grad[((size_t)c * (size_t)b->dims + (size_t)d) * (size_t)b->n + i] =
                    (float)(d == 0 ? 0.01 * cos(0.01 * x) * cos(0.013 * y)
                            : d == 1 ? -0.013 * sin(0.01 * x) * sin(0.013 * y) : 0);
        }
}

static int field_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx, (void)in;
    atomic_fetch_add(&field_evals, 1);
    wave(b, out, NULL, ng_node_channels(n));
    return 0;
}

static int field_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    int seen = atomic_load(&field_channels_max);
    (void)ctx;
    atomic_fetch_add(&field_grads, 1);
    while (b->channels > seen && !atomic_compare_exchange_weak(&field_channels_max, &seen, b->channels)) continue;
    wave(b, out, grad, b->channels < ng_node_channels(n) ? b->channels : ng_node_channels(n));
    return 0;
}

static int field_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch, (void)err;
    n->channels = 3;
    return 0;
}

static const ng_node_type field_type = {
    .name = "field", .family = "test", .doc = "a 3-channel field that counts its evaluations", .dims = NG_DIMS_ALL,
    .setup = field_setup, .eval_grad = field_eval_grad, .eval = field_eval,
};

static void test_lit_render_evaluates_the_field_once_per_octave(void)
{
    static float out[HPTS];
    static const double anchor[3] = {512, -256, 0};
    ng_graph *g = ng_graph_new();
    ng_error err;
    ng_node *n = ng_node_begin(g, &field_type, "field", NULL, &err);
    const int field = n ? ng_node_finish(g, n, &err) : -1;
    const int height = lit_height(g, field, 1, 0);
    int light, root;
    bench_ctx P;
    n = t_begin(g, "smax");
    t_in(g, n, "a", height), t_in(g, n, "b", t_const(g, 0.3));
    n = t_on(g, "light", t_finish(g, n));
    t_set(n, "height", 100);
    t_vec(n, "light", -1, -1, 1.2);
    t_choose(n, "method", "analytic"); /* the gradient path this measures */
    light = t_finish(g, n);
    root = t_bin(g, "mul", height, t_bin(g, "add", t_bin(g, "mul", light, t_const(g, 0.7)), t_const(g, 0.3)));
    if (field < 0 || open_at(&P, g, root, 2, anchor)) {
        CHECKF(0, "no graph or context");
        ng_graph_free(g);
        return;
    }
    atomic_store(&field_evals, 0), atomic_store(&field_grads, 0), atomic_store(&field_channels_max, 0);
    P.b.pos_id = ng__ctx_tile(P.c);
    CHECK(ng__eval(P.c, root, &P.b, out, 0) == 0);
    CHECKF(atomic_load(&field_evals) == 0, "the field was evaluated %d times for values alone",
           atomic_load(&field_evals));
    CHECKF(atomic_load(&field_grads) == 7, "the field's gradient was computed %d times for 7 octaves",
           atomic_load(&field_grads));
    CHECKF(atomic_load(&field_channels_max) == 2, "the 2D warp asked the field for %d channels, not 2",
           atomic_load(&field_channels_max));
    close_ctx(&P);
    ng_graph_free(g);
}

/* ---- the SIMD paths' gradient loops against the scalar formulas they replace ----
 * The smooth min/max, fit and fBm gradient steps in the paths' loops
 * (loops.c) give, on every path this CPU runs, the bits of the scalar
 * formulas (kept here as the reference), NaN, infinities and both zeros
 * included; the gradient kernels' own multiply by frequency and output
 * scale (ng_noise_pts.gmul) gives the bits of the passes it replaces. */

enum { N = 1003 };

static float ref_sign1(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* math.c's smooth_min before the loops */
static float ref_smooth_min(float x, float y, float k, float sign)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f, a = sign * x, c = sign * y, m = a < c ? a : c;
    float e = k - fabsf(a - c);
    e = e > 0.0f ? e : 0.0f;
    return sign * (m - e * e * q);
}

/* math.c's smooth_slope before the loops */
static float ref_smooth_slope(float x, float y, float gx, float gy, float k, float sign)
{
    const float q = k > 0.0f ? 0.25f / k : 0.0f, a = sign * x, c = sign * y, da = sign * gx, dc = sign * gy;
    const float dm = a < c ? da : dc;
    float e = k - fabsf(a - c), de;
    e = e > 0.0f ? e : 0.0f;
    de = e > 0.0f ? -ref_sign1(a - c) * (da - dc) : 0.0f;
    return sign * (dm - 2.0f * e * q * de);
}

/* math.c's fit_chain with clamp before the loops */
static float ref_fit_slope(float x, float g, float s, float b, float lo, float hi)
{
    return x * s + b < lo || x * s + b > hi ? 0.0f : g * s;
}

typedef struct data {
    float x[N], y[N], gx[N], gy[N], o[N], r[N];
} data;

static unsigned rng = 2024u;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* Operands mostly within k of each other (the rounded corner), some
 * equal, some far apart, and the special values. */
static void fill(data *D)
{
    int i;
    for (i = 0; i < N; i++) {
        D->x[i] = uniform(-1, 1);
        D->y[i] = i % 7 == 0 ? D->x[i] : D->x[i] + uniform(-0.05f, 0.05f);
        D->gx[i] = uniform(-3, 3);
        D->gy[i] = i % 5 == 0 ? D->gx[i] : uniform(-3, 3);
    }
    D->x[0] = NAN, D->y[1] = NAN, D->x[2] = INFINITY, D->y[3] = -INFINITY, D->x[4] = -0.0f, D->y[4] = 0.0f;
    D->x[5] = 0.0f, D->y[5] = -0.0f, D->gx[6] = -0.0f, D->gy[6] = -0.0f, D->x[6] = D->y[6] = 0.25f;
    D->gx[7] = NAN, D->gy[8] = INFINITY, D->x[9] = 0.3f, D->y[9] = 0.3f + 0.02f; /* |a - b| == k */
}

static int same_bits(const float *a, const float *b, int n) { return !memcmp(a, b, (size_t)n * sizeof *a); }

/* smin and smax, value and slope, for several smoothnesses (0: plain) */
static void test_smooth_loops_keep_the_scalar_bits(void)
{
    static data D;
    static const float ks[] = {0.0f, 0.02f, 0.1f, 1e-30f};
    int p, runs, s, j, i;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (s = 0; s < 2; s++)
            for (j = 0; j < 4; j++) {
                const float sign = s ? -1.0f : 1.0f, k = ks[j];
                P->loops.smooth_min(D.o, D.x, D.y, k, sign, N);
                for (i = 0; i < N; i++) D.r[i] = ref_smooth_min(D.x[i], D.y[i], k, sign);
                CHECKF(same_bits(D.o, D.r, N), "%s: smooth_min sign %g k %g", P->name, sign, k);
                P->loops.smooth_slope(D.o, D.x, D.y, D.gx, D.gy, k, sign, N);
                for (i = 0; i < N; i++) D.r[i] = ref_smooth_slope(D.x[i], D.y[i], D.gx[i], D.gy[i], k, sign);
                CHECKF(same_bits(D.o, D.r, N), "%s: smooth_slope sign %g k %g", P->name, sign, k);
            }
    }
}

static void test_fit_slope_keeps_the_scalar_bits(void)
{
    static data D;
    int p, runs, i;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        P->loops.fit_slope(D.o, D.x, D.gx, 1.1111112f, 0.5f, 0.0f, 1.0f, N);
        for (i = 0; i < N; i++) D.r[i] = ref_fit_slope(D.x[i], D.gx[i], 1.1111112f, 0.5f, 0.0f, 1.0f);
        CHECKF(same_bits(D.o, D.r, N), "%s: fit_slope", P->name);
    }
}

/* fBm's gradient: a zeroed sum plus each octave, as octaves.c summed it */
static void test_acc_grad_keeps_the_scalar_bits(void)
{
    static data D;
    int p, runs, i, k;
    fill(&D);
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (i = 0; i < N; i++) D.r[i] = 0.0f;
        for (k = 0; k < 3; k++) {
            const float gs = (float)(1 << k), fw = 0.5f / (float)(1 << k);
            const float *g = k == 1 ? D.gy : D.gx;
            P->loops.acc_grad(D.o, g, gs, fw, k == 0, N);
            for (i = 0; i < N; i++) D.r[i] += g[i] * gs * fw;
            CHECKF(same_bits(D.o, D.r, N), "%s: acc_grad octave %d", P->name, k);
        }
    }
}

/* The grid hillshade's loop (light_grid) against the exact light of the
 * same cells, in doubles: max(0, (lz - x lx - y ly) / sqrt(1 + x^2 + y^2))
 * with (x, y) the height's scaled central differences. Random normals from
 * flat to near vertical (slopes 10^-3 to 10^3) and random unit lights as
 * ng.light makes them (floats of the normalised double). The light is in
 * [0, 1]: every path within 3e-7 of the exact value (measured 2.1e-7,
 * under 2 ulps of 1: the reciprocal length's series from its estimate on
 * the bits, no square root or division), and within 1e-6 relative (3.0e-7
 * measured) where it is 0.25 or more
 * (nearer 0 the sum cancels and any float formula loses relative
 * accuracy); every path the same bits. */
/* The reciprocals of bits.h the grid hillshade and the erosion filter
 * compute with (no division, no square root), over floats of every
 * exponent from 2^-60 to 2^60 and random mantissas: 1 / sqrt(s) from the
 * estimate and rsqrt_series within 1.5e-7 of it (measured 1.13e-7: 4.7e-8
 * from the cubic, the rest the float rounding of its last operations),
 * 1 / x by recip_f within 6.7e-6 (measured 6.57e-6: two Newton steps from
 * a 5.1 % estimate). */
static void test_bit_reciprocals(void)
{
    double worst_rs = 0, worst_rc = 0;
    int e, k;
    rng = 91u;
    for (e = -60; e < 60; e++)
        for (k = 0; k < 2000; k++) {
            const float x = ldexpf(uniform(1, 2), e);
            const double rs = (double)rsqrt_f(x) * sqrt((double)x) - 1.0;
            const double rc = (double)recip_f(x) * (double)x - 1.0;
            if (fabs(rs) > worst_rs) worst_rs = fabs(rs);
            if (fabs(rc) > worst_rc) worst_rc = fabs(rc);
        }
    printf("    1/sqrt(s) by rsqrt_series within %.2e, 1/x by recip_f within %.2e\n", worst_rs, worst_rc);
    CHECKF(worst_rs <= 1.5e-7, "1/sqrt by rsqrt_series off by %.3g", worst_rs);
    CHECKF(worst_rc <= 6.7e-6, "1/x by recip_f off by %.3g", worst_rc);
}

static void test_light_grid_is_the_exact_light(void)
{
    enum { W = 259, ROWS = 40, LIGHTS = 16 };
    static float c[ROWS * W], out[ROWS * W], first[LIGHTS][ROWS * W];
    const float k = 0.5f, hs = 50.0f;
    int p, runs, i, j, m, firstp = -1;
    double worst_abs = 0, worst_rel = 0;
    for (j = 0; j < ROWS; j++) /* each row a ramp of a random slope plus ripples of random size */
        for (i = 0; i < W; i++) {
            const float slope = powf(10.0f, uniform(-5, 1)) * (uniform(0, 1) < 0.5f ? -1.0f : 1.0f);
            const float ripple = uniform(-1, 1) * powf(10.0f, uniform(-5, 1));
            c[j * W + i] = (float)i * slope + (float)j * powf(10.0f, uniform(-5, 1)) + ripple;
        }
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        rng = 77u;
        for (m = 0; m < LIGHTS; m++) {
            double l[3], len;
            float lf[3];
            l[0] = uniform(-1, 1), l[1] = uniform(-1, 1), l[2] = uniform(-1, 1);
            len = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
            for (i = 0; i < 3; i++) lf[i] = (float)(l[i] / len);
            memset(out, 0, sizeof out);
            for (j = 1; j < ROWS - 1; j++)
                P->loops.light_grid(out + j * W + 1, c + j * W + 1, W, k, hs, lf[0], lf[1], lf[2], W - 2);
            for (j = 1; j < ROWS - 1; j++)
                for (i = 1; i < W - 1; i++) {
                    const float *q = c + j * W + i;
                    const double kh = (double)(k * hs), x = ((double)q[1] - q[-1]) * kh;
                    const double y = ((double)q[W] - q[-W]) * kh;
                    double e = (lf[2] - x * lf[0] - y * lf[1]) / sqrt(1 + x * x + y * y), d;
                    e = e > 0 ? e : 0;
                    d = fabs(out[j * W + i] - e);
                    if (d > worst_abs) worst_abs = d;
                    if (e >= 0.25 && d / e > worst_rel) worst_rel = d / e;
                }
            if (firstp < 0) memcpy(first[m], out, sizeof out);
            else
                CHECKF(!memcmp(first[m], out, sizeof out), "%s: light_grid gives other bits than the first path "
                       "(light %d)", P->name, m);
        }
        if (firstp < 0) firstp = p;
    }
    printf("    light_grid against the exact light: %.3g at worst, %.3g relative where it is >= 0.25\n", worst_abs,
           worst_rel);
    CHECKF(worst_abs <= 3e-7, "light_grid is %g from the exact light", worst_abs);
    CHECKF(worst_rel <= 1e-6, "light_grid is %g relative from the exact light", worst_rel);
}

enum { KN = 203 };

/* Kernel batch of KN points at offsets spread over a few cells (f holds
 * 4 planes), scaled offsets like a fractal octave's. */
static ng_noise_pts batch(int dims, float f[4][KN])
{
    ng_noise_pts p;
    int d, i;
    memset(&p, 0, sizeof p);
    p.n = KN;
    p.dims = dims;
    p.seed = 1234u;
    for (d = 0; d < dims; d++) {
        p.anchor[d] = 17.25 + 3.0 * d;
        p.scale[d] = 0.5f;
        for (i = 0; i < KN; i++) f[d][i] = uniform(-9, 9);
        p.f[d] = f[d];
    }
    return p;
}

/* gmul[d] then gmul_all in the kernel: the bits of plane passes g * fr[d],
 * then g * all, on every basis's gradient and vector gradient kernels */
static void test_gradient_kernels_scale_as_passes(void)
{
    static float f[4][KN], out1[3 * KN], out2[3 * KN], g1[3 * 4 * KN], g2[3 * 4 * KN];
    static const float fr[4] = {0.0123f, 0.0077f, 3.0f, 0.37f}, all = -1.75f;
    int p, runs, basis, dims, c, d, i, ch;
    for (p = 0; ng__path_at(p, &runs); p++) {
        const ng_path *P = ng__path_at(p, &runs);
        if (!runs) continue;
        for (basis = 0; basis < NG_NBASES; basis++)
            for (dims = 1; dims <= 4; dims++)
                for (ch = 1; ch <= 3; ch++) {
                    const ng_basis_d_fn fd = ch == 1 ? ng__kernel_grad(P, basis) : NULL;
                    const ng_vector_d_fn vd = ch > 1 ? ng__kernel_vector_d(P, basis, dims) : NULL;
                    ng_noise_pts a = batch(dims, f), b = a;
                    if (!fd && !vd) continue;
                    for (d = 0; d < dims; d++) b.gmul[d] = fr[d];
                    b.gmul_all = all;
                    if (fd) fd(&a, out1, g1), fd(&b, out2, g2);
                    else vd(&a, ch, out1, g1), vd(&b, ch, out2, g2);
                    for (c = 0; c < ch; c++)
                        for (d = 0; d < dims; d++)
                            for (i = 0; i < KN; i++) {
                                float *g = &g1[((size_t)c * (size_t)dims + (size_t)d) * KN + (size_t)i];
                                *g = *g * fr[d];
                                *g = *g * all;
                            }
                    CHECKF(same_bits(out1, out2, ch * KN) && same_bits(g1, g2, ch * dims * KN),
                           "%s: basis %d %dD %d channel(s): gmul differs from passes", P->name, basis, dims, ch);
                }
    }
}

/* ---- the warp's gradient with a number amount ---------------------------------- */

enum { WN = 200 };

/* value and gradient of root at WN points of dims axes near anchor a;
 * 0 on success */
static int pull_grad_at(const ng_graph *g, int root, int dims, double a, float *out, float *grad)
{
    static float pos[3][WN];
    ng_error err;
    ng_node consumer;
    ng_block b;
    ng_ctx *c;
    int *uses = ng__uses(g, &root, 1), d, i, rc = -1;
    unsigned seed = 777u;
    c = uses ? ng__ctx_new(g, uses, WN, &err) : NULL;
    if (c) {
        memset(&consumer, 0, sizeof consumer);
        memset(&b, 0, sizeof b);
        consumer.input[0] = root;
        b.n = WN, b.dims = dims, b.channels = 1;
        for (d = 0; d < 4; d++) b.p[d] = ng__ctx_zeros(c);
        for (d = 0; d < dims; d++) {
            b.anchor[d] = a * (d + 1);
            for (i = 0; i < WN; i++) {
                seed = seed * 1664525u + 1013904223u;
                pos[d][i] = (float)((seed >> 8) * (500.0 / 16777216.0));
            }
            b.p[d] = pos[d];
        }
        b.pos_id = ng__ctx_tile(c);
        rc = ng_pull_grad(c, &consumer, 0, &b, out, grad, 0);
    }
    ng__ctx_free(c);
    free(uses);
    return rc;
}

static int warp_by(ng_graph *g, int amount, double octaves)
{
    ng_node *n = t_begin(g, "warp");
    t_in(g, n, "source", t_noise(g, "perlin", 256, 7));
    t_in(g, n, "by", t_vnoise(g, "simplex", 384, 8));
    t_in(g, n, "amount", amount);
    t_set(n, "octaves", octaves);
    return t_finish(g, n);
}

/* warp_eval_grad fills a number amount itself (no pull of its constant)
 * and moves a single-octave 2D warp's positions straight from the block:
 * the bits of the same warp whose amount is a node of that value (60 +
 * 0 * noise: pulled, with a gradient of zeros), 2D and 3D, 1 and 2
 * octaves, near 0 and far out */
static void test_warp_number_amount_keeps_the_node_bits(void)
{
    static float v1[WN], v2[WN], g1[3 * WN], g2[3 * WN];
    static const double anchors[2] = {0, 98765.25};
    int dims, a;
    double octaves;
    for (dims = 2; dims <= 3; dims++)
        for (octaves = 1; octaves <= 2; octaves++)
            for (a = 0; a < 2; a++) {
                ng_graph *g = ng_graph_new();
                const int zero = t_bin(g, "mul", t_noise(g, "value", 100, 3), t_const(g, 0));
                const int number = warp_by(g, t_const(g, 60), octaves);
                const int node = warp_by(g, t_bin(g, "add", t_const(g, 60), zero), octaves);
                CHECK(pull_grad_at(g, number, dims, anchors[a], v1, g1) == 0);
                CHECK(pull_grad_at(g, node, dims, anchors[a], v2, g2) == 0);
                CHECKF(same_bits(v1, v2, WN) && same_bits(g1, g2, dims * WN),
                       "%dD warp of %g octave(s) at %g: a number amount differs from the node of its value", dims,
                       octaves, anchors[a]);
                ng_graph_free(g);
            }
}

/* ---- the simplex gradient kernels' vectors ----------------------------------
 * The simplex _d kernels take each corner's gradient vector from selects on
 * its hash (grad8_vec, grad12_vec, grad32_vec in nodes/simd/lattice_parts.h)
 * instead of applying the gradient set to each unit vector. They must be
 * those vectors exactly: the kernels' gradients (compared to central
 * differences above and in test_kernels.c) would only be off by a little if,
 * say, a diagonal lost its sqrt(1/2), which a tolerance can miss. */

enum { HASHES = 200000 };

/* A spread of hashes covering every combination of the top bits and the
 * thirds grad12 reads. */
static uint32_t nth_hash(uint32_t i)
{
    return ng_lattice_hash(i * 0x9e3779b9u);
}

/* a == b as numbers (a zero's sign aside: the kernels add these to sums
 * started at +0), and never NaN */
static int same(float a, float b)
{
    return a == b;
}

static void test_grad8_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[2];
        grad8_vec(h, g);
        bad += !same(g[0], grad8(h, 1.0f, 0.0f)) || !same(g[1], grad8(h, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

static void test_grad12_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[3];
        grad12_vec(h, g);
        bad += !same(g[0], grad12(h, 1.0f, 0.0f, 0.0f)) || !same(g[1], grad12(h, 0.0f, 1.0f, 0.0f)) ||
               !same(g[2], grad12(h, 0.0f, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

static void test_grad32_vec_is_the_set(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        float g[4];
        grad32_vec(h, g);
        bad += !same(g[0], grad32(h, 1.0f, 0.0f, 0.0f, 0.0f)) || !same(g[1], grad32(h, 0.0f, 1.0f, 0.0f, 0.0f)) ||
               !same(g[2], grad32(h, 0.0f, 0.0f, 1.0f, 0.0f)) || !same(g[3], grad32(h, 0.0f, 0.0f, 0.0f, 1.0f));
    }
    CHECK_INT(bad, 0);
}

/* The gradient at a point is linear in the offset: grad . d from the
 * vector equals the set's value at d (up to the rounding of the sum), so a
 * vector with a swapped or missing component shows here too. */
static void test_grad_vecs_dot_offsets(void)
{
    uint32_t i, bad = 0;
    for (i = 0; i < HASHES; i++) {
        uint32_t h = nth_hash(i);
        const float d[4] = {0.3f, -0.45f, 0.2f, -0.1f};
        float g8[2], g12[3], g32[4];
        grad8_vec(h, g8);
        grad12_vec(h, g12);
        grad32_vec(h, g32);
        bad += fabsf(g8[0] * d[0] + g8[1] * d[1] - grad8(h, d[0], d[1])) > 1e-6f;
        bad += fabsf(g12[0] * d[0] + g12[1] * d[1] + g12[2] * d[2] - grad12(h, d[0], d[1], d[2])) > 1e-6f;
        bad += fabsf(g32[0] * d[0] + g32[1] * d[1] + g32[2] * d[2] + g32[3] * d[3] -
                     grad32(h, d[0], d[1], d[2], d[3])) > 1e-6f;
    }
    CHECK_INT(bad, 0);
}

NG_SUITE(gradients, fast)
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
    RUN(test_analytic_gradient_matches_differences);
    RUN(test_shading_of_a_plane);
    RUN(test_two_channels_are_the_first_two_of_three);
    RUN(test_lit_terrain_gradient_matches_differences);
    RUN(test_lit_render_evaluates_the_field_once_per_octave);
    RUN(test_warp_number_amount_keeps_the_node_bits);
    RUN(test_gradient_kernels_scale_as_passes);
    RUN(test_smooth_loops_keep_the_scalar_bits);
    RUN(test_fit_slope_keeps_the_scalar_bits);
    RUN(test_acc_grad_keeps_the_scalar_bits);
    RUN(test_light_grid_is_the_exact_light);
    RUN(test_bit_reciprocals);
    RUN(test_grad8_vec_is_the_set);
    RUN(test_grad12_vec_is_the_set);
    RUN(test_grad32_vec_is_the_set);
    RUN(test_grad_vecs_dot_offsets);
}
