/*
 * test_fractal.c — the fractal node's promises: each type keeps its range
 * for any octaves, lacunarity and roughness; a fractional octave count is
 * smooth; octaves finer than two pixels are not evaluated, which removes
 * aliasing rather than adding it.
 */
#include "build.h"
#include "harness.h"
#include "ng_node.h"
#include "suites.h"

#include <stdatomic.h>
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
    .name = "counted", .family = "test", .doc = "counts evaluations", .dims = 0x1Eu,
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

void suite_fractal(void)
{
    RUN(test_offset_gain_keep_ranges);
    RUN(test_ranges_hold_for_every_setting);
    RUN(test_fractional_octaves_are_smooth);
    RUN(test_octaves_below_a_pixel_are_skipped);
    RUN(test_skipping_octaves_removes_aliasing);
    RUN(test_cloud_without_distortion_is_fbm);
    RUN(test_cloud_range_and_continuity);
}
