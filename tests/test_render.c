/*
 * test_render.c — what a user relies on when rendering: identical bits for
 * every thread count, tile size and region split; no blockiness far from
 * the origin; documented ranges through the node controls; continuity;
 * the warp and fractal nodes doing what they say.
 */
#include "build.h"
#include "harness.h"
#include "kernels.h"
#include "suites.h"

#include <stdlib.h>
#include <string.h>

/* The bases (bases.h), by NG_BASIS_*: the tests below iterate them, or
 * those with a property they need. */
static const struct {
    const char *name;
    int symmetric; /* natural range centred on 0 */
    int tiling;    /* NG_TILE_* */
} bases[NG_NBASES] = {
#define BASIS(F, ID, id, name, freq, lo, hi, dims, tiling, ...) [NG_BASIS_##ID] = {name, lo == -hi, tiling},
    NG_BASES(BASIS)
#undef BASIS
};

static int has_gradient(int b) { return ng__kernel_grad(ng__path(), b) != NULL; }

/* A graph with every kind of edge: warp, fractal, shared nodes, math. */
static int terrain(ng_graph *g)
{
    int base = t_noise(g, "perlin", 48, 7);
    int flow = t_vnoise(g, "simplex", 80, 8);
    int warped = t_warp(g, base, flow, 20);
    int f = t_fbm(g, warped, 5.5, 2.03, 0.5);
    int detail = t_noise(g, "value", 6, 2);
    return t_bin(g, "add", f, t_bin(g, "mul", detail, t_bin(g, "mul", base, t_const(g, 0.2))));
}

static void test_identical_for_threads_and_tiles(void)
{
    static const int threads[] = {1, 2, 7}, tiles[] = {16, 64, 256};
    ng_graph *g = ng_graph_new();
    int root = terrain(g), i, j;
    ng_render_opts o;
    float *ref;
    const size_t bytes = 150 * 97 * sizeof(float);
    t_opts(&o, 150, 97);
    ref = t_render(g, root, &o);
    CHECK(ref != NULL);
    for (i = 0; ref && i < 3; i++)
        for (j = 0; j < 3; j++) {
            float *b;
            o.threads = threads[i];
            o.tile = tiles[j];
            b = t_render(g, root, &o);
            CHECK(b != NULL);
            if (b && memcmp(ref, b, bytes) != 0)
                ng_t_fail(__FILE__, __LINE__, "threads %d tile %d differs from threads 1 tile 64", threads[i], tiles[j]);
            free(b);
        }
    free(ref);
    ng_graph_free(g);
}

/* Four quadrants (odd sizes, uneven split) equal the full render exactly. */
static void test_regions_stitch_exactly(void)
{
    ng_graph *g = ng_graph_new();
    int root = terrain(g), q, y;
    const int W = 75, H = 61, sx = 37, sy = 30;
    const int rg[4][4] = {{0, 0, sx, sy}, {sx, 0, W - sx, sy}, {0, sy, sx, H - sy}, {sx, sy, W - sx, H - sy}};
    ng_render_opts o;
    float *full;
    t_opts(&o, W, H);
    o.tile = 16;
    full = t_render(g, root, &o);
    CHECK(full != NULL);
    for (q = 0; full && q < 4; q++) {
        float *part;
        memcpy(o.region, rg[q], sizeof o.region);
        o.tile = 16 + 8 * q;
        part = t_render(g, root, &o);
        CHECK(part != NULL);
        for (y = 0; part && y < rg[q][3]; y++)
            if (memcmp(part + (size_t)y * (size_t)rg[q][2], full + (size_t)(rg[q][1] + y) * W + rg[q][0],
                       (size_t)rg[q][2] * sizeof(float)) != 0) {
                ng_t_fail(__FILE__, __LINE__, "quadrant %d row %d differs from the full render", q, y);
                break;
            }
        free(part);
    }
    free(full);
    ng_graph_free(g);
}

/*
 * Far from the origin a float-only engine quantises positions: at 1e9 a
 * float step is 64 units, so neighbouring pixels land on the same sample
 * and the image turns into flat blocks. The statistic: the share of
 * horizontally adjacent pixel pairs with bit-identical values (a smooth
 * noise at 1/16 cell per pixel has essentially none), and the spread of
 * neighbour differences, which must match the near-origin render's.
 */
static void neighbour_stats(const float *img, int w, int h, double *same, double *spread)
{
    long eq = 0, n = 0;
    double s = 0, s2 = 0;
    int x, y;
    for (y = 0; y < h; y++)
        for (x = 1; x < w; x++) {
            double d = (double)img[y * w + x] - img[y * w + x - 1];
            eq += d == 0;
            s += d;
            s2 += d * d;
            n++;
        }
    *same = (double)eq / (double)n;
    *spread = sqrt(s2 / (double)n - (s / (double)n) * (s / (double)n));
}

static void test_far_origin_not_blocky(void)
{
    int t;
    for (t = 0; t < NG_NBASES; t++) {
        ng_graph *g;
        int root;
        if (!bases[t].symmetric) continue; /* a floor at 0 repeats values near and far */
        g = ng_graph_new();
        root = t_fbm(g, t_noise(g, bases[t].name, 16, 1), 3, 2, 0.5);
        ng_render_opts o;
        float *near, *far;
        double same0, spread0, same1, spread1;
        t_opts(&o, 256, 256);
        near = t_render(g, root, &o);
        o.origin[0] = 1e9;
        o.origin[1] = -1e9 + 0.37;
        far = t_render(g, root, &o);
        CHECK(near && far);
        if (near && far) {
            neighbour_stats(near, 256, 256, &same0, &spread0);
            neighbour_stats(far, 256, 256, &same1, &spread1);
            CHECK_LE(same1, 0.01);
            CHECK_LE(fabs(spread1 / spread0 - 1), 0.15);
        }
        free(near);
        free(far);
        ng_graph_free(g);
    }
}

/* The range controls map the natural [-1, 1] exactly where asked, through
 * the node path, over a million samples per basis and dimension. */
static void test_ranges_through_node_controls(void)
{
    int t, dims;
    for (t = 0; t < NG_NBASES; t++)
        for (dims = 2; dims <= 3; dims++) {
            ng_graph *g = ng_graph_new();
            ng_node *n = t_begin(g, bases[t].name);
            ng_error err;
            ng_render_opts o;
            float *img;
            double lo = 1e9, hi = -1e9;
            int root, i;
            t_set(n, "element_size", 7.3);
            t_set(n, "amplitude", 2);
            ng_set_range(n, ng_param_index(ng_node_type_of(n), "range"), NG_RANGE_CUSTOM, 10, 20, &err);
            root = t_finish(g, n);
            t_opts(&o, 1000, 1000);
            o.threads = 2;
            o.dims = dims;
            o.z = 3.3;
            img = t_render(g, root, &o);
            CHECK(img != NULL);
            for (i = 0; img && i < 1000 * 1000; i++) {
                if (img[i] < lo) lo = img[i];
                if (img[i] > hi) hi = img[i];
            }
            /* amplitude 2 times [10, 20]: [20, 40], and most of it used */
            CHECK_LE(20, lo);
            CHECK_LE(hi, 40);
            CHECK_LE(hi - lo, 20.0001);
            CHECKF(16 <= hi - lo, "%s %dD: uses [%g, %g] of [20, 40]", bases[t].name, dims, lo, hi);
            free(img);
            ng_graph_free(g);
        }
}

/* Perlin vanishes on its lattice: world points that are multiples of the
 * element size (shifted by the offset), at any distance from the origin. */
static void test_perlin_zero_on_lattice_via_node(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_begin(g, "perlin");
    double off[3] = {5, -3, 0}, xs[64], ys[64];
    const double *pts[2] = {xs, ys};
    float out[64];
    ng_error err;
    int root, i;
    t_set(n, "element_size", 32);
    ng_set_vec3(n, ng_param_index(ng_node_type_of(n), "offset"), off, &err);
    root = t_finish(g, n);
    for (i = 0; i < 64; i++) {
        xs[i] = 32.0 * (i - 20) - 5 + (i >= 32 ? 1e9 * 32 / 32 : 0);
        ys[i] = 32.0 * (i * 7 % 13) + 3;
    }
    CHECK_INT(ng_eval_points(g, root, 2, pts, 64, out, &err), 0);
    for (i = 0; i < 64; i++)
        if (out[i] != 0.0f) ng_t_fail(__FILE__, __LINE__, "point %d (%g, %g): %g, not 0", i, xs[i], ys[i], out[i]);
    ng_graph_free(g);
}

/* Neighbouring pixels never jump: |step| <= slope bound * pixel / element,
 * for every smooth basis (those with an analytic gradient). */
static void test_continuity_between_pixels(void)
{
    /* a generous gradient bound of the smooth bases per lattice unit (2D
     * simplex's 7.04 the largest); the kernel suite checks the tight ones */
    const double slope = 7.5;
    int t;
    for (t = 0; t < NG_NBASES; t++) {
        ng_graph *g;
        int root, x, y;
        if (!has_gradient(t)) continue;
        g = ng_graph_new();
        root = t_noise(g, bases[t].name, 40, 5);
        ng_render_opts o;
        float *img;
        double worst = 0;
        t_opts(&o, 200, 200);
        img = t_render(g, root, &o);
        for (y = 0; img && y < 200; y++)
            for (x = 1; x < 200; x++) {
                double d = fabs((double)img[y * 200 + x] - img[y * 200 + x - 1]);
                if (d > worst) worst = d;
            }
        CHECK(img != NULL);
        CHECKF(worst <= slope / 40, "%s: step %g between pixels", bases[t].name, worst);
        CHECK_LE(0.2 / 40, worst); /* and it does vary */
        free(img);
        ng_graph_free(g);
    }
}

/* Vector noise gives three channels that are not copies of each other.
 * Over 2500 cells: at 12 pixels a cell (280 cells) the sample r of
 * independent channels spreads by about 0.05, so a bound of 0.1 was met
 * or not by chance. */
static void test_vector_channels_decorrelated(void)
{
    ng_graph *g = ng_graph_new();
    int v = t_vnoise(g, "perlin", 4, 3), i, a, b;
    ng_render_opts o;
    float *img;
    t_opts(&o, 200, 200);
    img = t_render(g, v, &o);
    CHECK(img != NULL);
    for (a = 0; img && a < 3; a++)
        for (b = a + 1; b < 3; b++) {
            double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, r, n = 200 * 200;
            for (i = 0; i < 200 * 200; i++) {
                double x = img[i * 3 + a], y = img[i * 3 + b];
                sa += x, sb += y, saa += x * x, sbb += y * y, sab += x * y;
            }
            r = (sab / n - sa / n * sb / n) / sqrt((saa / n - sa / n * sa / n) * (sbb / n - sb / n * sb / n));
            CHECK_LE(fabs(r), 0.1);
        }
    free(img);
    ng_graph_free(g);
}

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

static void test_seed_changes_pattern(void)
{
    ng_graph *g = ng_graph_new();
    int a = t_noise(g, "simplex", 10, 1), b = t_noise(g, "simplex", 10, 2), c = t_noise(g, "simplex", 10, 1);
    ng_render_opts o;
    float *x, *y, *z;
    int i, differ = 0;
    t_opts(&o, 64, 64);
    x = t_render(g, a, &o);
    y = t_render(g, b, &o);
    z = t_render(g, c, &o);
    CHECK(x && y && z);
    for (i = 0; x && y && i < 64 * 64; i++) differ += fabsf(x[i] - y[i]) > 1e-3f;
    CHECK_LE(64 * 64 * 0.9, differ);
    if (x && z) CHECK(memcmp(x, z, 64 * 64 * sizeof(float)) == 0);
    free(x), free(y), free(z);
    ng_graph_free(g);
}

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
            int src = t_noise(g, bases[t].name, 23, 3), nrm;
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
                          bases[t].name, dims, worst);
            ng_graph_free(g);
        }
}

/* --tileable: the step across the wrap (last column to first, last row to
 * first) is no larger than the largest step inside the image, for every
 * basis but white, also through a fractal and a warp (whose field tiles
 * too), at a size that forces the element size to be adjusted. */
static void test_tileable_wraps_without_seam(void)
{
    int t, x, y, v;
    for (t = 0; t < NG_NBASES; t++)
        for (v = 0; v < 3 && bases[t].tiling != NG_TILE_NONE; v++) {
            ng_graph *g = ng_graph_new();
            int base = t_noise(g, bases[t].name, 21, 4), root = base;
            ng_render_opts o;
            float *img;
            double inner = 0, wrap = 0;
            const int W = 150, H = 110;
            if (v == 1) root = t_fbm(g, base, 4, 2, 0.5);
            if (v == 2) root = t_warp(g, base, t_vnoise(g, "perlin", 40, 9), 6);
            t_opts(&o, W, H);
            o.tileable = 1;
            img = t_render(g, root, &o);
            CHECK(img != NULL);
            for (y = 0; img && y < H; y++)
                for (x = 0; x < W; x++) {
                    double dx = fabs((double)img[y * W + (x + 1) % W] - img[y * W + x]);
                    double dy = fabs((double)img[((y + 1) % H) * W + x] - img[y * W + x]);
                    if (x + 1 < W && dx > inner) inner = dx;
                    if (y + 1 < H && dy > inner) inner = dy;
                    if (x + 1 == W && dx > wrap) wrap = dx;
                    if (y + 1 == H && dy > wrap) wrap = dy;
                }
            if (img && !(wrap <= inner))
                ng_t_fail(__FILE__, __LINE__, "%s (%s): wrap step %g exceeds the largest inner step %g", bases[t].name,
                          v == 0 ? "plain" : v == 1 ? "fbm" : "warp", wrap, inner);
            free(img);
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

void suite_render(void)
{
    RUN(test_identical_for_threads_and_tiles);
    RUN(test_regions_stitch_exactly);
    RUN(test_far_origin_not_blocky);
    RUN(test_ranges_through_node_controls);
    RUN(test_perlin_zero_on_lattice_via_node);
    RUN(test_continuity_between_pixels);
    RUN(test_vector_channels_decorrelated);
    RUN(test_warp_displaces_by_vector);
    RUN(test_fbm_octaves);
    RUN(test_seed_changes_pattern);
    RUN(test_analytic_gradient_matches_differences);
    RUN(test_tileable_wraps_without_seam);
    RUN(test_shading_of_a_plane);
}
