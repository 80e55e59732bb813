/*
 * test_fractal.c — the fractal node's promises: each type keeps its range
 * for any octaves, lacunarity and roughness; a fractional octave count is
 * smooth; octaves finer than two pixels are not evaluated, which removes
 * aliasing rather than adding it; cloud noise without distortion is fBm;
 * octaves scaled without a pass over the positions give the bits of the
 * positions multiplied out (below).
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_internal.h"
#include "ng_node.h"
#include "octaves.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const types[] = {"fbm", "terrain", "hybrid", "ridged", "billow"};
static const double lo_bound[] = {-1, -1, -1, 0, -1};

static int fractal(ng_graph *g, const char *type, int source, double octaves, double lac, double rough, int aa)
{
    ng_error err;
    ng_node *n = t_begin(g, type);
    ng_set_input(g, n, 0, source, &err);
    t_set(n, "octaves", octaves);
    t_set(n, "lacunarity", lac);
    t_set(n, "roughness", rough);
    ng_set_bool(n, ng_param_index(ng_node_type_of(n), "antialias"), aa, &err);
    return t_finish(g, n);
}

/* 5 types x 3 octave counts x 2 lacunarities x 3 roughnesses, 102 400
 * samples each, over a perlin source, plus constant sources at the ends of
 * [-1, 1] that push the sums to their bounds. */
static void test_ranges_hold_for_every_setting(void)
{
    static const double octs[] = {1, 3.5, 8}, lacs[] = {1.7, 2.9}, roughs[] = {0.4, 1.0, 1.6};
    int t, a, b, c, i;
    for (t = 0; t < 5; t++)
        for (a = 0; a < 3; a++)
            for (b = 0; b < 2; b++)
                for (c = 0; c < 3; c++) {
                    ng_graph *g = ng_graph_new();
                    int src = t_noise(g, "perlin", 23, 4);
                    int root = fractal(g, types[t], src, octs[a], lacs[b], roughs[c], 1);
                    int plus = fractal(g, types[t], t_const(g, 1), octs[a], lacs[b], roughs[c], 1);
                    int minus = fractal(g, types[t], t_const(g, -1), octs[a], lacs[b], roughs[c], 1);
                    ng_render_opts o;
                    float *img, *p, *m;
                    double lo = 1e9, hi = -1e9;
                    t_opts(&o, 320, 320);
                    o.threads = 2;
                    img = t_render(g, root, &o);
                    o.width = o.height = 8;
                    p = t_render(g, plus, &o);
                    m = t_render(g, minus, &o);
                    CHECK(img && p && m);
                    for (i = 0; img && i < 320 * 320; i++) {
                        if (img[i] < lo) lo = img[i];
                        if (img[i] > hi) hi = img[i];
                    }
                    for (i = 0; p && m && i < 64; i++) {
                        if (p[i] < lo) lo = p[i];
                        if (p[i] > hi) hi = p[i];
                        if (m[i] < lo) lo = m[i];
                        if (m[i] > hi) hi = m[i];
                    }
                    if (!(lo >= lo_bound[t] - 1e-6 && hi <= 1 + 1e-6))
                        ng_t_fail(__FILE__, __LINE__, "%s octaves %g lacunarity %g roughness %g: [%g, %g] leaves [%g, 1]",
                                  types[t], octs[a], lacs[b], roughs[c], lo, hi, lo_bound[t]);
                    free(img), free(p), free(m);
                    ng_graph_free(g);
                }
}

/* Animating octaves: 3 -> 3.001 changes the image by a thousandth at most. */
static void test_fractional_octaves_are_smooth(void)
{
    int t, i;
    for (t = 0; t < 5; t++) {
        ng_graph *g = ng_graph_new();
        int src = t_noise(g, "simplex", 19, 2);
        int a = fractal(g, types[t], src, 3, 2, 0.6, 1), b = fractal(g, types[t], src, 3.001, 2, 0.6, 1);
        int c = fractal(g, types[t], src, 3.999, 2, 0.6, 1), d = fractal(g, types[t], src, 4, 2, 0.6, 1);
        ng_render_opts o;
        float *x, *y, *z, *w;
        double worst1 = 0, worst2 = 0;
        t_opts(&o, 128, 128);
        x = t_render(g, a, &o), y = t_render(g, b, &o), z = t_render(g, c, &o), w = t_render(g, d, &o);
        CHECK(x && y && z && w);
        for (i = 0; x && y && z && w && i < 128 * 128; i++) {
            if (fabs((double)x[i] - y[i]) > worst1) worst1 = fabs((double)x[i] - y[i]);
            if (fabs((double)z[i] - w[i]) > worst2) worst2 = fabs((double)z[i] - w[i]);
        }
        CHECK_LE(worst1, 2e-3);
        CHECK_LE(worst2, 2e-3);
        free(x), free(y), free(z), free(w);
        ng_graph_free(g);
    }
}

/* Below one octave the first octave fades in from 0: octaves = 0.25 is a
 * quarter of octaves = 1, not all of it (the sum was divided by the
 * fraction's own weight, so animating octaves from 0 jumped to full noise
 * at once), for every type. */
static void test_first_octave_fades_in(void)
{
    int t, i;
    for (t = 0; t < 5; t++) {
        ng_graph *g = ng_graph_new();
        const int src = t_noise(g, "perlin", 19, 2);
        const int a = fractal(g, types[t], src, 0.25, 2, 0.5, 1), b = fractal(g, types[t], src, 1, 2, 0.5, 1);
        ng_render_opts o;
        float *x, *y;
        double worst = 0, peak = 0;
        t_opts(&o, 64, 64);
        x = t_render(g, a, &o), y = t_render(g, b, &o);
        for (i = 0; x && y && i < 64 * 64; i++) {
            const double d = fabs(x[i] - 0.25 * y[i]);
            if (d > worst) worst = d;
            if (fabs(y[i]) > peak) peak = fabs(y[i]);
        }
        CHECKF(x && y && peak > 0.1 && worst <= 1e-6, "%s: octaves 0.25 is %g from a quarter of octaves 1", types[t],
               worst);
        free(x), free(y);
        ng_graph_free(g);
    }
}

/* ---- the pixel cut-off -------------------------------------------------- */

static atomic_int evals;

static int counted_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch, (void)err;
    n->detail = 256; /* features of 256 world units, like a noise of that element size */
    return 0;
}

static int counted_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx, (void)n, (void)in;
    atomic_fetch_add(&evals, 1);
    memset(out, 0, (size_t)b->n * sizeof(float));
    return 0;
}

static const ng_node_type counted_type = {
    .name = "counted", .family = "test", .doc = "counts evaluations", .dims = NG_DIMS_ALL,
    .setup = counted_setup, .eval = counted_eval,
};

/* A 12-octave fractal of 256-unit features: at 1 world unit per pixel,
 * octaves 0-7 have at least 2 px per feature and octave 8 has 1, so 8
 * octaves run; at 64 units per pixel octaves 0 and 1 (4 and 2 px) do. */
static void test_octaves_below_a_pixel_are_skipped(void)
{
    ng_graph *g = ng_graph_new();
    ng_error err;
    ng_node *n = ng_node_begin(g, &counted_type, NULL, NULL, &err);
    int src = ng_node_finish(g, n, &err);
    int aa = fractal(g, "fbm", src, 12, 2, 0.5, 1), all = fractal(g, "fbm", src, 12, 2, 0.5, 0);
    ng_render_opts o;
    float *img;
    t_opts(&o, 64, 64);
    atomic_store(&evals, 0);
    img = t_render(g, aa, &o);
    free(img);
    CHECK_INT(atomic_load(&evals), 8);
    o.pixel_size = 64;
    atomic_store(&evals, 0);
    img = t_render(g, aa, &o);
    free(img);
    CHECK_INT(atomic_load(&evals), 2);
    atomic_store(&evals, 0);
    img = t_render(g, all, &o);
    free(img);
    CHECK_INT(atomic_load(&evals), 12);
    ng_graph_free(g);
}

/*
 * Aliasing energy: the mean squared difference between a 64 x 64 render of
 * a 1024-unit square and the ideal 64 x 64 image of it, the box-filtered
 * average of a 1024 x 1024 render. Octaves finer than a low-res pixel fold
 * back into it as noise; skipping them must remove most of that energy
 * (measured: 2.4 against 9.5, summed over the 4096 pixels).
 */
static void test_skipping_octaves_removes_aliasing(void)
{
    ng_graph *g = ng_graph_new();
    /* off the pixel grid on purpose: with cells of exactly 16 px at
     * lacunarity 2, every octave's cell centres land on low-res pixel
     * centres and a point sample happens to estimate its box well */
    int src = t_noise(g, "perlin", 61.7, 1);
    int aa = fractal(g, "fbm", src, 10, 2.13, 0.6, 1), raw = fractal(g, "fbm", src, 10, 2.13, 0.6, 0);
    ng_render_opts o;
    float *ref, *small_aa, *small_raw;
    double e_aa = 0, e_raw = 0;
    int x, y, i, j;
    t_opts(&o, 1024, 1024);
    o.threads = 2;
    ref = t_render(g, aa, &o);
    t_opts(&o, 64, 64);
    o.pixel_size = 16;
    small_aa = t_render(g, aa, &o);
    small_raw = t_render(g, raw, &o);
    CHECK(ref && small_aa && small_raw);
    for (y = 0; ref && small_aa && small_raw && y < 64; y++)
        for (x = 0; x < 64; x++) {
            double box = 0, d1, d2;
            for (j = 0; j < 16; j++)
                for (i = 0; i < 16; i++) box += ref[(y * 16 + j) * 1024 + x * 16 + i];
            box /= 256;
            d1 = small_aa[y * 64 + x] - box;
            d2 = small_raw[y * 64 + x] - box;
            e_aa += d1 * d1;
            e_raw += d2 * d2;
        }
    CHECK_LE(e_aa, 0.5 * e_raw);
    free(ref), free(small_aa), free(small_raw);
    ng_graph_free(g);
}

/* ---- cloud noise ------------------------------------------------------- */

static int cloud(ng_graph *g, const char *type, double distortion, double worley)
{
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", 37);
    t_set(n, "seed", 6);
    t_set(n, "octaves", 5.5);
    t_set(n, "lacunarity", 2.1);
    t_set(n, "roughness", 0.6);
    t_set(n, "distortion", distortion);
    t_set(n, "worley", worley);
    return t_finish(g, n);
}

/* Distortion 0 is the plain fBm of the same noise, bit for bit: the
 * classic one (clouds keep the classic gradients and unturned octaves of
 * 0.1.0). */
static void test_cloud_without_distortion_is_fbm(void)
{
    static const char *const clouds[] = {"perlin_cloud", "simplex_cloud"};
    static const char *const bases[] = {"perlin", "simplex"};
    int t;
    for (t = 0; t < 2; t++) {
        ng_graph *g = ng_graph_new();
        int c = cloud(g, clouds[t], 0, 0), f;
        ng_graph_set_classic(g, 1);
        f = fractal(g, "fbm", t_noise(g, bases[t], 37, 6), 5.5, 2.1, 0.6, 1);
        ng_graph_set_classic(g, 0);
        ng_render_opts o;
        float *a, *b;
        t_opts(&o, 200, 150);
        o.dims = 3;
        o.z = 7.25;
        a = t_render(g, c, &o);
        b = t_render(g, f, &o);
        CHECK(a && b);
        if (a && b) CHECK(memcmp(a, b, 200 * 150 * sizeof(float)) == 0);
        free(a), free(b);
        ng_graph_free(g);
    }
}

/* Every cloud type keeps [-1, 1] with strong distortion and the Worley
 * blend, changes continuously with distortion, and actually distorts. */
static void test_cloud_range_and_continuity(void)
{
    static const char *const clouds[] = {"perlin_cloud", "simplex_cloud", "fast_simplex_cloud"};
    static const double dist[] = {-0.5, 0.3};
    int t, d, i;
    for (t = 0; t < 3; t++)
        for (d = 0; d < 2; d++) {
            ng_graph *g = ng_graph_new();
            int c = cloud(g, clouds[t], dist[d], 0.4), c2 = cloud(g, clouds[t], dist[d] + 1e-4, 0.4);
            int plain = cloud(g, clouds[t], 0, 0.4);
            ng_render_opts o;
            float *a, *b, *p;
            double lo = 1, hi = -1, dd = 0, moved = 0;
            t_opts(&o, 320, 320);
            o.threads = 2;
            a = t_render(g, c, &o);
            b = t_render(g, c2, &o);
            p = t_render(g, plain, &o);
            CHECK(a && b && p);
            for (i = 0; a && b && p && i < 320 * 320; i++) {
                if (a[i] < lo) lo = a[i];
                if (a[i] > hi) hi = a[i];
                if (fabs((double)a[i] - b[i]) > dd) dd = fabs((double)a[i] - b[i]);
                moved += fabs((double)a[i] - p[i]);
            }
            CHECK_LE(-1, lo);
            CHECK_LE(hi, 1);
            CHECK_LE(dd, 5e-3);                 /* a 1e-4 change of distortion is a small change */
            CHECK_LE(0.01, moved / (320 * 320)); /* and distortion does change the image */
            free(a), free(b), free(p);
            ng_graph_free(g);
        }
}

/* Musgrave's offset and gain: ridged stays in [0, 1] and hybrid in [-1, 1]
 * for any offset and gain (perlin sources, and constants at -1, 0 and 1
 * that push each signal to its ends); the defaults are the sums before
 * them, bit for bit (offset 1, gain 2). */
static void test_offset_gain_keep_ranges(void)
{
    static const double offsets[] = {0, 0.3, 0.5, 1, 1.4, 2}, gains[] = {0, 1, 2, 5, 8};
    static const char *const kinds[] = {"ridged", "hybrid"};
    static const double srcs[] = {-1, 0, 1};
    int t, a, b, c, i;
    for (t = 0; t < 2; t++)
        for (a = 0; a < 6; a++)
            for (b = 0; b < 5; b++) {
                ng_graph *g = ng_graph_new();
                int roots[4];
                double lo = 1e9, hi = -1e9;
                for (c = 0; c < 4; c++) {
                    ng_node *n = t_begin(g, kinds[t]);
                    ng_error err;
                    ng_set_input(g, n, 0, c == 3 ? t_noise(g, "perlin", 23, 4) : t_const(g, srcs[c]), &err);
                    t_set(n, "octaves", 5.5);
                    t_set(n, "offset", offsets[a]);
                    t_set(n, "gain", gains[b]);
                    roots[c] = t_finish(g, n);
                }
                for (c = 0; c < 4; c++) {
                    ng_render_opts o;
                    float *img;
                    t_opts(&o, c == 3 ? 160 : 8, c == 3 ? 160 : 8);
                    img = t_render(g, roots[c], &o);
                    CHECK(img != NULL);
                    for (i = 0; img && i < o.width * o.height; i++) {
                        if (img[i] < lo) lo = img[i];
                        if (img[i] > hi) hi = img[i];
                    }
                    free(img);
                }
                CHECKF(lo >= (t == 0 ? 0.0 : -1.0) && hi <= 1.0, "%s offset %g gain %g: [%g, %g]", kinds[t],
                       offsets[a], gains[b], lo, hi);
                ng_graph_free(g);
            }
    {   /* the defaults: the sum before offset and gain existed, bit for bit */
        ng_graph *g = ng_graph_new();
        int src = t_noise(g, "perlin", 23, 4), r1, r2;
        ng_node *n = t_on(g, "ridged", src);
        ng_render_opts o;
        float *x, *y;
        r1 = t_finish(g, n);
        n = t_on(g, "ridged", src);
        t_set(n, "offset", 1);
        t_set(n, "gain", 2);
        r2 = t_finish(g, n);
        t_opts(&o, 64, 64);
        x = t_render(g, r1, &o);
        y = t_render(g, r2, &o);
        CHECK(x && y && !memcmp(x, y, 64 * 64 * sizeof *x));
        free(x), free(y);
        ng_graph_free(g);
    }
}

enum { NPTS = 96 };

/* One octave is the source itself; octave counts between whole numbers
 * fade smoothly; fBm stays in the source's range. */
static void test_fbm_octaves(void)
{
    ng_graph *g = ng_graph_new();
    int src = t_noise(g, "perlin", 30, 9);
    int f1 = t_fbm(g, src, 1, 2, 0.5), f3 = t_fbm(g, src, 3, 2, 0.5), f3e = t_fbm(g, src, 3.0001, 2, 0.5);
    int f8 = t_fbm(g, src, 8, 2.5, 0.9);
    ng_render_opts o;
    float *a, *b, *c, *d, *s;
    int i;
    double lo = 1, hi = -1, worst = 0;
    t_opts(&o, 300, 300);
    s = t_render(g, src, &o);
    a = t_render(g, f1, &o);
    b = t_render(g, f3, &o);
    c = t_render(g, f3e, &o);
    d = t_render(g, f8, &o);
    CHECK(s && a && b && c && d);
    if (s && a && b && c && d) {
        CHECK(memcmp(s, a, 300 * 300 * sizeof(float)) == 0);
        for (i = 0; i < 300 * 300; i++) {
            double diff = fabs((double)b[i] - c[i]);
            if (diff > worst) worst = diff;
            if (d[i] < lo) lo = d[i];
            if (d[i] > hi) hi = d[i];
        }
        CHECK_LE(worst, 1e-3);
        CHECK_LE(-1, lo);
        CHECK_LE(hi, 1);
    }
    free(s), free(a), free(b), free(c), free(d);
    ng_graph_free(g);
}

/* ---- octaves scaled without a pass over the positions (ng_block.p_scale) ------
 * A block whose scale is carried gives every node the bits of the same
 * block with the positions multiplied out, value and analytic gradient,
 * for the nodes that fold it (noises of every basis, their own fractals,
 * ng.fractal, fractals of fractals) and for those the evaluator multiplies
 * it out for (warps, math, driven options); renders through the whole
 * program give the pictures of the code before the change (hashes recorded
 * with it), at any tile size and thread count, far from the origin too. */

/* ---- a block with its scale carried, against the same block multiplied out ---- */

typedef struct bench {
    int *uses;
    ng_ctx *c;
    ng_node consumer; /* a stand-in whose input 0 is the root */
    float pos[4][NPTS], mul[4][NPTS];
} bench;

/* Positions in [-150, 150) (a fixed stream), scaled block a, multiplied-out block m. */
static void make_blocks(bench *B, ng_block *a, ng_block *m, int dims, double anchor, float s)
{
    unsigned seed = 12345u + (unsigned)dims;
    int d, i;
    memset(a, 0, sizeof *a);
    a->n = NPTS;
    a->dims = dims;
    a->channels = 1;
    a->footprint = 1;
    for (d = 0; d < 4; d++) a->p[d] = ng__ctx_zeros(B->c);
    for (d = 0; d < dims; d++) {
        a->anchor[d] = anchor * s; /* an octave block's anchor is scaled already */
        for (i = 0; i < NPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            B->pos[d][i] = (float)((seed >> 8) * (300.0 / 16777216.0) - 150.0);
            B->mul[d][i] = B->pos[d][i] * s;
        }
        a->p[d] = B->pos[d];
    }
    *m = *a;
    for (d = 0; d < dims; d++) m->p[d] = B->mul[d];
    a->p_scale = s;
}

static int same_floats(const float *x, const float *y, size_t n) { return memcmp(x, y, n * sizeof(float)) == 0; }

/* root at a (scale carried) and m (multiplied out): values through the
 * evaluator and value plus analytic gradient through ng_pull_grad, every
 * channel, bit for bit; in 2D, 3D and 4D, near and far from the origin. */
static void check_same_bits(const ng_graph *g, int root, const char *what)
{
    static const double anchors[] = {0.0, -3071.25, 1e9};
    static const float scales[] = {2.0f, 64.0f, 0x1p90f};
    static float va[NG_MAX_CHANNELS * NPTS], vm[NG_MAX_CHANNELS * NPTS];
    static float ga[NG_MAX_PLANES * NPTS], gm[NG_MAX_PLANES * NPTS];
    const int ch = ng_node_channels(ng_graph_node(g, root));
    bench B;
    ng_error err;
    int dims, a, s;
    memset(&B, 0, sizeof B);
    B.uses = ng__uses(g, &root, 1);
    B.c = B.uses ? ng__ctx_new(g, B.uses, NPTS, &err) : NULL;
    B.consumer.input[0] = root;
    if (!B.c) {
        CHECKF(0, "%s: no context", what);
        free(B.uses);
        return;
    }
    for (dims = 2; dims <= 4; dims++)
        for (a = 0; a < 3 && (ng_graph_node(g, root)->dims >> dims & 1u); a++)
            for (s = 0; s < 3; s++) {
                ng_block ba, bm;
                int bad = 0;
                make_blocks(&B, &ba, &bm, dims, anchors[a], scales[s]);
                ba.pos_id = ng__ctx_tile(B.c);
                bad |= ng__eval(B.c, root, &ba, va, 0);
                bm.pos_id = ng__ctx_tile(B.c);
                bad |= ng__eval(B.c, root, &bm, vm, 0);
                if (bad) {
                    CHECKF(0, "%s: evaluation failed: %s", what, ng__ctx_error(B.c)->msg);
                    goto done;
                }
                CHECKF(same_floats(va, vm, (size_t)ch * NPTS), "%s %dD anchor %g scale %g: values differ", what, dims,
                       anchors[a], (double)scales[s]);
                ba.pos_id = ng__ctx_tile(B.c);
                bad |= ng_pull_grad(B.c, &B.consumer, 0, &ba, va, ga, 0);
                bm.pos_id = ng__ctx_tile(B.c);
                bad |= ng_pull_grad(B.c, &B.consumer, 0, &bm, vm, gm, 0);
                if (bad) {
                    CHECKF(0, "%s: gradient failed: %s", what, ng__ctx_error(B.c)->msg);
                    goto done;
                }
                CHECKF(same_floats(va, vm, (size_t)ch * NPTS) && same_floats(ga, gm, (size_t)(ch * dims) * NPTS),
                       "%s %dD anchor %g scale %g: value or gradient differs", what, dims, anchors[a],
                       (double)scales[s]);
            }
done:
    ng__ctx_free(B.c);
    free(B.uses);
}

static int fractal_of(ng_graph *g, const char *type, int src, double lacunarity)
{
    ng_node *n = t_on(g, type, src);
    t_set(n, "octaves", 4.5);
    t_set(n, "lacunarity", lacunarity);
    return t_finish_ok(g, n);
}

/* Every basis folds the scale into its frequency (or, off float's range,
 * multiplies it out itself): as multiplied out. */
static void test_noises_fold_the_scale(void)
{
    static const char *const bases[] = {"perlin", "value", "fast", "simplex", "flow", "worley", "white",
                                        "alligator", "sparse"};
    size_t i;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        ng_graph *g = ng_graph_new();
        check_same_bits(g, t_noise(g, bases[i], 37, 5), bases[i]);
        ng_graph_free(g);
    }
    { /* a vector noise (one lattice walk), and a frequency of 1e12 whose product with 2^90 leaves float */
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "perlin");
        check_same_bits(g, t_vnoise(g, "perlin", 37, 5), "vector perlin");
        t_set(n, "element_size", 1e-6);
        t_vec(n, "element_scale", 1e-6, 1e-6, 1e-6);
        check_same_bits(g, t_finish_ok(g, n), "perlin at a frequency of 1e12");
        ng_graph_free(g);
    }
}

/* The unified noise's own fractal and ng.fractal compose the carried
 * scale with each octave's: powers of two fold, a lacunarity of 1.7
 * multiplies both out in the octave's pass; a fractal of a fractal too. */
static void test_fractals_compose_the_scale(void)
{
    size_t t;
    for (t = 0; t < 5; t++) {
        ng_graph *g = ng_graph_new();
        const int perlin = t_noise(g, "perlin", 37, 5);
        ng_node *own = t_begin(g, "perlin");
        char what[96];
        t_set(own, "element_size", 37);
        t_choose(own, "fractal", types[t]);
        t_set(own, "octaves", 3.5);
        snprintf(what, sizeof what, "perlin with fractal = %s", types[t]);
        check_same_bits(g, t_finish_ok(g, own), what);
        snprintf(what, sizeof what, "ng.%s of perlin, lacunarity 2", types[t]);
        check_same_bits(g, fractal_of(g, types[t], perlin, 2), what);
        snprintf(what, sizeof what, "ng.%s of perlin, lacunarity 1.7", types[t]);
        check_same_bits(g, fractal_of(g, types[t], perlin, 1.7), what);
        snprintf(what, sizeof what, "ng.fbm of ng.%s of simplex", types[t]);
        check_same_bits(g, fractal_of(g, "fbm", fractal_of(g, types[t], t_noise(g, "simplex", 29, 2), 2), 2),
                        what);
        ng_graph_free(g);
    }
}

/* Nodes that do not take the scale get it multiplied out by the evaluator:
 * a warp, math over a noise, a noise whose element size a node drives. */
static void test_other_sources_see_the_positions(void)
{
    ng_graph *g = ng_graph_new();
    const int perlin = t_noise(g, "perlin", 37, 5);
    ng_error err;
    ng_node *driven = t_begin(g, "simplex");
    check_same_bits(g, t_warp(g, perlin, t_vnoise(g, "simplex", 50, 9), 12), "warp");
    check_same_bits(g, t_bin(g, "mul", perlin, t_const(g, 0.5)), "perlin * 0.5");
    CHECK(ng_set_param_node(g, driven, ng_param_index(ng_node_type_of(driven), "element_size"),
                            t_bin(g, "add", t_const(g, 40), t_bin(g, "mul", perlin, t_const(g, 8))), &err) == 0);
    check_same_bits(g, t_finish_ok(g, driven), "simplex with a driven element size");
    check_same_bits(g, fractal_of(g, "ridged", t_warp(g, perlin, t_vnoise(g, "perlin", 50, 9), 12), 2),
                    "ridged of a warp");
    ng_graph_free(g);
}

/* ---- turned octaves (ng_block.turn_axes) -------------------------------------- */

/* How close a turned block's values are to the pass's: bit for bit, or
 * so in 2D and within float rounding in 3D, where the isotropic kernels
 * fold turn, frequency and lattice orientation into one matrix
 * (lattice_kernels.c: turn_fold). */
enum { TURN_EXACT = 1, TURN_EXACT_2D = 2 };

/* root at block a carrying a turn (octave 1's rotation, with a scale of 2)
 * and at the same block turned in a pass: exactly the pass's bits where
 * the node reads positions as given (exact), within float rounding where
 * a noise's kernel turns as it reads (the frequency folded in). */
static void check_turned(const ng_graph *g, int root, int exact, const char *what)
{
    static const double anchors[] = {0.0, -3071.25, 1e9};
    static float va[NG_MAX_CHANNELS * NPTS], vm[NG_MAX_CHANNELS * NPTS], pos[4 * NPTS];
    const int ch = ng_node_channels(ng_graph_node(g, root));
    bench B;
    ng_error err;
    int dims, a, d, e, i;
    memset(&B, 0, sizeof B);
    B.uses = ng__uses(g, &root, 1);
    B.c = B.uses ? ng__ctx_new(g, B.uses, NPTS, &err) : NULL;
    if (!B.c) {
        CHECKF(0, "%s: no context", what);
        free(B.uses);
        return;
    }
    for (dims = 2; dims <= 3; dims++)
        for (a = 0; a < 3; a++) {
            ng_block ba, bm, tmp;
            const ng_block *plain;
            double R[3][3], worst = 0;
            make_blocks(&B, &ba, &bm, dims, anchors[a], 2.0f);
            ng__octave_rotation(1, dims, R);
            ba.turn_axes = dims;
            for (d = 0; d < 3; d++)
                for (e = 0; e < 3; e++) ba.turn[d][e] = (float)R[d][e];
            plain = ng__block_plain(&ba, &tmp, pos);
            CHECK(plain->turn_axes == 0 && plain->p_scale == 0.0f);
            bm = *plain;
            ba.pos_id = ng__ctx_tile(B.c);
            bm.pos_id = ng__ctx_tile(B.c);
            if (ng__eval(B.c, root, &ba, va, 0) || ng__eval(B.c, root, &bm, vm, 0)) {
                CHECKF(0, "%s: evaluation failed: %s", what, ng__ctx_error(B.c)->msg);
                break;
            }
            for (i = 0; i < ch * NPTS; i++) worst = fmax(worst, fabs((double)va[i] - vm[i]));
            if (exact == TURN_EXACT || (exact == TURN_EXACT_2D && dims == 2))
                CHECKF(same_floats(va, vm, (size_t)ch * NPTS), "%s %dD anchor %g: turned values differ from the pass's",
                       what, dims, anchors[a]);
            else
                CHECKF(worst <= 1e-4, "%s %dD anchor %g: turned values %g from the pass's", what, dims, anchors[a],
                       worst);
        }
    ng__ctx_free(B.c);
    free(B.uses);
}

/* Every basis, vector noises and nodes that do not take a turn get it
 * multiplied out, bit for bit as the pass. */
static void test_turned_blocks(void)
{
    static const char *const bases[] = {"perlin", "value", "fast", "flow", "simplex", "worley", "sparse"};
    ng_graph *g = ng_graph_new();
    size_t i;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        const int folds = !strcmp(bases[i], "perlin") || !strcmp(bases[i], "fast") || !strcmp(bases[i], "flow");
        check_turned(g, t_noise(g, bases[i], 37, 5), folds ? TURN_EXACT_2D : TURN_EXACT, bases[i]);
    }
    check_turned(g, t_vnoise(g, "perlin", 37, 5), TURN_EXACT, "vector perlin");
    check_turned(g, t_bin(g, "mul", t_noise(g, "perlin", 37, 5), t_const(g, 0.5)), TURN_EXACT, "perlin * 0.5");
    check_turned(g, t_warp(g, t_noise(g, "perlin", 37, 5), t_vnoise(g, "simplex", 50, 9), 12), TURN_EXACT, "warp");
    ng_graph_free(g);
}

/* ---- whole renders against the code before octave scales were carried ---------- */

/* FNV-1a 64 of a file's bytes (0 if unreadable). */
static uint64_t file_hash(const char *path)
{
    size_t len, i;
    unsigned char *b = slurp(path, &len);
    uint64_t h = 0xcbf29ce484222325ull;
    if (!b) return 0;
    for (i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    free(b);
    return h;
}

/* Each script renders to a float image whose bytes hash as they did before
 * (recorded with 63e810e's program; rendered with --classic, the defaults
 * of 0.1.0 they were recorded with), on 1 thread  with 64-pixel tiles and on
 * 2 with 24: fractals of every type over a noise (folded), at lacunarity
 * 1.7 (not), over a warp and over math; the noise's own fractal; a fractal
 * of a fractal; far from the origin; in 3D. */
static void test_renders_keep_their_pictures(void)
{
    static const struct {
        const char *name, *script, *origin, *z; /* z: a 3D render's plane, or NULL */
        uint64_t hash;
    } cases[] = {
        {"fbm", "return ng.fbm{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0x2b651db4a3a5a2daull},
        {"ridged", "return ng.ridged{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0xc9babc469b2c1867ull},
        {"billow", "return ng.billow{source = ng.simplex{element_size = 20}, octaves = 5}", "0,0", NULL, 0x810409369f2b7357ull},
        {"hybrid", "return ng.hybrid{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0xd4e8f6c885392b27ull},
        {"terrain", "return ng.terrain{source = ng.value{element_size = 20}, octaves = 6}", "0,0", NULL, 0x386779a15d0f47bcull},
        {"lac17", "return ng.ridged{source = ng.perlin{element_size = 20}, lacunarity = 1.7}", "0,0", NULL, 0x22b83e538d29efcbull},
        {"far", "return ng.fbm{source = ng.perlin{element_size = 20}, octaves = 6}", "1e9,-1e9", NULL, 0x3ae8439429fe6c0full},
        {"far3", "return ng.ridged{source = ng.perlin{element_size = 20}, octaves = 6}", "1e9,5", "-1e9", 0x5f373a575661db5cull},
        {"billow3", "return ng.billow{source = ng.simplex{element_size = 20}, octaves = 5, lacunarity = 2.5}", "0,0",
         "3.25", 0x7509f3f3628820f2ull},
        {"own", "return ng.noise{type = 'simplex', element_size = 30, fractal = 'hybrid', octaves = 4.5}", "1e9,0", NULL,
         0x82e5701c19bf8e9aull},
        {"warp",
         "local w = ng.warp{source = ng.perlin{element_size = 25}, by = ng.simplex{element_size = 40, output = "
         "'vector'}, amount = 10}\nreturn ng.ridged{source = w, octaves = 4}",
         "0,0", NULL, 0xbba881442d8b52e9ull}, /* the vector walk of wip-vecwalk (without the fold) */
        {"math", "return ng.fbm{source = ng.perlin{element_size = 25} * 0.5 + ng.worley{element_size = 30}, "
                 "octaves = 4}",
         "-5000,77", NULL, 0x5367c94f2696a310ull},
        {"nested", "return ng.billow{source = ng.ridged{source = ng.perlin{element_size = 60}, octaves = 3}, "
                   "octaves = 3}",
         "0,0", NULL, 0xcb6ba3554a3e6a3bull},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[PATHLEN], out1[PATHLEN], out2[PATHLEN], name[64];
        res r;
        snprintf(name, sizeof name, "%s.lua", cases[i].name);
        mkscript(script, name, cases[i].script);
        snprintf(name, sizeof name, "%s1.pfm", cases[i].name);
        tpath(out1, name);
        snprintf(name, sizeof name, "%s2.pfm", cases[i].name);
        tpath(out2, name);
        /* a NULL z ends the arguments before "--z" */
        cli(&r, "render", "--classic", script, "-o", out1, "--size", "150x110", "--origin", cases[i].origin, "--threads", "1",
            "--tile", "64", cases[i].z ? "--z" : NULL, cases[i].z, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "render", "--classic", script, "-o", out2, "--size", "150x110", "--origin", cases[i].origin, "--threads", "2",
            "--tile", "24", cases[i].z ? "--z" : NULL, cases[i].z, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(file_hash(out1) == cases[i].hash && file_hash(out2) == cases[i].hash,
               "%s: hashes %016llx and %016llx, recorded %016llx", cases[i].name, (unsigned long long)file_hash(out1),
               (unsigned long long)file_hash(out2), (unsigned long long)cases[i].hash);
    }
}

/* The largest |p| that decides whether an octave may fold its scale: NaN
 * skipped (it stays NaN at any scale), infinity and -0 as they are, at any
 * length (the vector loop's tail), on the path in use. */
static void test_block_max_abs(void)
{
    static float x[37], y[37];
    ng_block b;
    int i;
    memset(&b, 0, sizeof b);
    for (i = 0; i < 37; i++) x[i] = (float)(i % 7) - 3.0f, y[i] = -0.0f;
    b.n = 37, b.dims = 2, b.p[0] = x, b.p[1] = y;
    CHECK(ng__block_max_abs(&b) == 3.0f);
    y[36] = -1e30f; /* the tail */
    CHECK(ng__block_max_abs(&b) == 1e30f);
    x[5] = __builtin_nanf(""), y[3] = -__builtin_nanf("");
    CHECK(ng__block_max_abs(&b) == 1e30f);
    x[20] = -__builtin_inff();
    CHECK(ng__block_max_abs(&b) == __builtin_inff());
    for (i = 0; i < 37; i++) x[i] = y[i] = __builtin_nanf("");
    CHECK(ng__block_max_abs(&b) == 0.0f);
}

NG_SUITE(fractal, fast)
{
    RUN(test_offset_gain_keep_ranges);
    RUN(test_ranges_hold_for_every_setting);
    RUN(test_fractional_octaves_are_smooth);
    RUN(test_first_octave_fades_in);
    RUN(test_octaves_below_a_pixel_are_skipped);
    RUN(test_skipping_octaves_removes_aliasing);
    RUN(test_cloud_without_distortion_is_fbm);
    RUN(test_cloud_range_and_continuity);
    RUN(test_fbm_octaves);
    RUN(test_block_max_abs);
    RUN(test_noises_fold_the_scale);
    RUN(test_fractals_compose_the_scale);
    RUN(test_other_sources_see_the_positions);
    RUN(test_turned_blocks);
    if (cli_setup("ngfractal") == 0) {
        RUN(test_renders_keep_their_pictures);
        cli_teardown();
    }
}
