/*
 * test_render.c — what a user relies on when rendering: identical bits for
 * every thread count, tile size and region split; no blockiness far from
 * the origin; documented ranges through the node controls; continuity;
 * seeds; tileable images without a seam; and every sample the one a render
 * of that sample alone gives, however the render cuts its bands.
 */
#include "build.h"
#include "harness.h"
#include "kernels.h"

#include <stdio.h>
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
            /* amplitude 2 times [10, 20]: [20, 40], and most of it used; flow
             * 2D's isotropic scale is its maximum over every flow angle, which
             * its default angle (0) reaches to 0.81 only (lattice_kernels.c) */
            CHECK_LE(20, lo);
            CHECK_LE(hi, 40);
            CHECK_LE(hi - lo, 20.0001);
            CHECKF((t == NG_BASIS_FLOW && dims == 2 ? 15 : 16) <= hi - lo, "%s %dD: uses [%g, %g] of [20, 40]",
                   bases[t].name, dims, lo, hi);
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

/* ---- every sample the one a render of it alone gives ----------------------------
 * A render cuts each band of tiles (bricks) into runs of samples in the
 * band's order, evaluates one-channel outputs straight into the band, reads
 * x positions from one plane per render and keeps freed bands for the next
 * render: at window edges, in short last bands (where some runs are empty),
 * in volumes' partial bricks, for several outputs of several channels, any
 * thread count, and in bands that held another render's samples before. */

#define OUTS 2 /* outputs per render: one channel and a 3-channel vector */

/* A sink that keeps a window (an image is one slice). */
typedef struct grid {
    int w, h, d, ch;
    float *data; /* ((z * h + y) * w + x) * ch + c */
} grid;

static int grid_alloc(grid *gr, int w, int h, int d, int ch, ng_error *err)
{
    gr->w = w;
    gr->h = h;
    gr->d = d;
    gr->ch = ch;
    free(gr->data);
    gr->data = calloc((size_t)w * (size_t)h * (size_t)d * (size_t)ch, sizeof(float));
    return gr->data ? 0 : ng_errorf(err, "test sink: out of memory");
}

static int grid_begin(void *u, int w, int h, int ch, ng_error *err) { return grid_alloc(u, w, h, 1, ch, err); }

static int grid_begin_volume(void *u, const ng_volume_info *v, ng_error *err)
{
    return grid_alloc(u, v->width, v->height, v->depth, v->channels, err);
}

static int grid_slab(void *u, int z, int ns, int y, int nrows, const float *data, ng_error *err)
{
    grid *gr = u;
    const size_t row = (size_t)gr->w * (size_t)gr->ch;
    int s;
    (void)err;
    for (s = 0; s < ns; s++)
        memcpy(gr->data + ((size_t)(z + s) * gr->h + (size_t)y) * row, data + (size_t)s * nrows * row,
               (size_t)nrows * row * sizeof(float));
    return 0;
}

static int grid_rows(void *u, int y, int nrows, const float *rows, ng_error *err)
{
    return grid_slab(u, 0, 1, y, nrows, rows, err);
}

static int grid_end(void *u, int ok, ng_error *err)
{
    (void)u;
    (void)ok;
    (void)err;
    return 0;
}

/* Renders the roots into out[k]; 0, or -1 after a test failure. */
static int render_grids(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o, grid *out)
{
    ng_sink s[OUTS];
    ng_error err;
    int k;
    for (k = 0; k < nroots; k++) {
        ng_sink one = {grid_begin, grid_rows, grid_end, &out[k], grid_begin_volume, grid_slab};
        s[k] = one;
    }
    if (ng_render(g, roots, nroots, o, s, &err)) {
        ng_t_fail(__FILE__, __LINE__, "render failed: %s", err.msg);
        return -1;
    }
    return 0;
}

/* Every sample of the window o renders equals a render of that sample
 * alone (a 1x1 region, one slice of a volume): a block of one point, the
 * least a cut can do. */
static void check_against_single_samples(const ng_graph *g, const int *roots, const ng_render_opts *o,
                                         const grid *full, const char *what)
{
    const int x0 = o->region[2] ? o->region[0] : 0, y0 = o->region[2] ? o->region[1] : 0;
    const int z0 = o->zregion[1] ? o->zregion[0] : 0;
    int x, y, z, k, bad = 0;
    for (z = 0; z < full[0].d && !bad; z++)
        for (y = 0; y < full[0].h && !bad; y++)
            for (x = 0; x < full[0].w && !bad; x++) {
                ng_render_opts one = *o;
                grid px[OUTS] = {{0}};
                one.region[0] = x0 + x;
                one.region[1] = y0 + y;
                one.region[2] = one.region[3] = 1;
                if (o->depth) {
                    one.zregion[0] = z0 + z;
                    one.zregion[1] = 1;
                }
                if (render_grids(g, roots, OUTS, &one, px)) bad = 1;
                for (k = 0; !bad && k < OUTS; k++) {
                    const size_t at = (((size_t)z * full[k].h + (size_t)y) * full[k].w + (size_t)x) * full[k].ch;
                    if (memcmp(full[k].data + at, px[k].data, (size_t)full[k].ch * sizeof(float)) != 0) {
                        ng_t_fail(__FILE__, __LINE__, "%s: output %d at (%d, %d, %d) is %g, alone %g", what, k + 1,
                                  x, y, z, full[k].data[at], px[k].data[0]);
                        bad = 1;
                    }
                }
                for (k = 0; k < OUTS; k++) free(px[k].data);
            }
}

/* Puts another picture (a constant 7) into the bands the next render of
 * the same window keeps: a sample a render forgot would read 7. */
static void poison_bands(const ng_render_opts *o)
{
    ng_graph *g = ng_graph_new();
    int roots[OUTS];
    grid out[OUTS] = {{0}};
    roots[0] = t_const(g, 7);
    roots[1] = t_vnoise(g, "value", 9, 3); /* 3 channels, as the output it stands in for */
    render_grids(g, roots, OUTS, o, out);
    free(out[0].data);
    free(out[1].data);
    ng_graph_free(g);
}

/* One render of every window, tile and thread count below, checked
 * sample by sample. */
static void check_cuts(const ng_graph *g, const int *roots, ng_render_opts *o, const int *tiles, int ntiles,
                       const char *what)
{
    static const int threads[] = {1, 2, 3};
    int i, j;
    for (i = 0; i < ntiles; i++)
        for (j = 0; j < 3; j++) {
            grid full[OUTS] = {{0}};
            char label[160];
            if (o->depth) o->brick = tiles[i];
            else o->tile = tiles[i];
            o->threads = threads[j];
            snprintf(label, sizeof label, "%s, %s %d, %d thread%s", what, o->depth ? "brick" : "tile", tiles[i],
                     threads[j], threads[j] == 1 ? "" : "s");
            poison_bands(o);
            if (render_grids(g, roots, OUTS, o, full) == 0) check_against_single_samples(g, roots, o, full, label);
            free(full[0].data);
            free(full[1].data);
        }
}

static void set_region(ng_render_opts *o, int x, int y, int w, int h)
{
    const int rg[4] = {x, y, w, h};
    memcpy(o->region, rg, sizeof rg);
}

static void two_outputs(ng_graph *g, int *roots)
{
    int base = t_noise(g, "perlin", 9, 7), flow = t_vnoise(g, "simplex", 13, 8);
    roots[0] = t_bin(g, "add", t_fbm(g, t_warp(g, base, flow, 4), 3.5, 2.03, 0.5), base); /* base shared */
    roots[1] = flow;
}

/* 37x29: tile 8 leaves 5 tiles a row, a 5-row last band whose last run is
 * empty and runs that start mid-row; tile 16 cuts rows into runs of
 * 2 and a bit rows; tile 64 is wider than the window (one run a band). */
static void test_image_runs_match_single_samples(void)
{
    static const int tiles[] = {8, 16, 64};
    ng_graph *g = ng_graph_new();
    int roots[OUTS];
    ng_render_opts o;
    two_outputs(g, roots);
    t_opts(&o, 37, 29);
    o.origin[0] = 1e9; /* far out: the anchor, not the positions, holds it */
    check_cuts(g, roots, &o, tiles, 3, "37x29 image");
    t_opts(&o, 80, 60);
    set_region(&o, 11, 5, 29, 19);
    check_cuts(g, roots, &o, tiles, 2, "29x19 region of an 80x60 image");
    ng_graph_free(g);
}

/* 13x11x10 in 8-voxel bricks: partial bricks in every axis, runs that
 * span slices; a z window as well. */
static void test_volume_runs_match_single_samples(void)
{
    static const int bricks[] = {8};
    ng_graph *g = ng_graph_new();
    int roots[OUTS];
    ng_render_opts o;
    two_outputs(g, roots);
    t_opts(&o, 13, 11);
    o.depth = 10;
    o.dims = 3;
    check_cuts(g, roots, &o, bricks, 1, "13x11x10 volume");
    t_opts(&o, 20, 20);
    o.depth = 20;
    o.dims = 3;
    set_region(&o, 3, 9, 11, 10);
    o.zregion[0] = 6;
    o.zregion[1] = 9;
    check_cuts(g, roots, &o, bricks, 1, "11x10x9 window of a 20^3 volume");
    ng_graph_free(g);
}

NG_SUITE(render, fast)
{
    RUN(test_identical_for_threads_and_tiles);
    RUN(test_regions_stitch_exactly);
    RUN(test_far_origin_not_blocky);
    RUN(test_ranges_through_node_controls);
    RUN(test_perlin_zero_on_lattice_via_node);
    RUN(test_continuity_between_pixels);
    RUN(test_vector_channels_decorrelated);
    RUN(test_seed_changes_pattern);
    RUN(test_tileable_wraps_without_seam);
    RUN(test_image_runs_match_single_samples);
    RUN(test_volume_runs_match_single_samples);
}
