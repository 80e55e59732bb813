/*
 * test_overhead.c — the render path cut for speed (issue 14): a render cuts
 * each band of tiles (bricks) into runs of samples in the band's order,
 * evaluates one-channel outputs straight into the band, reads x positions
 * from one plane per render and keeps freed bands for the next render.
 * Every sample must still be the one a render of that sample alone gives:
 * at window edges, in short last bands (where some runs are empty), in
 * volumes' partial bricks, for several outputs of several channels, any
 * thread count, and in bands that held another render's samples before.
 */
#include "build.h"
#include "harness.h"
#include "suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void suite_overhead(void)
{
    RUN(test_image_runs_match_single_samples);
    RUN(test_volume_runs_match_single_samples);
}
