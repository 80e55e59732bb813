/*
 * test_volume.c — volume renders (ng_render_opts.depth >= 1, issue 12) as
 * an embedder and a user rely on them, written from the contract in
 * noisegraph.h rather than from the implementation: voxel (i, j, k) samples
 * its centre; slabs arrive z-major with rows in order, every voxel exactly
 * once, channels interleaved; ng_volume_info places the window; the bits do
 * not depend on threads, brick or tile, and windows stitch; values agree
 * with ng_eval_points and with 2D renders of each slice; far from the origin
 * values keep their detail; bad options, image-only sinks and cancellation
 * fail cleanly. Then the command line's volume options and their errors.
 *
 * Expected values are computed independently: coordinate sources
 * (vector(x, y, z)) give each voxel's own centre back, so a misplaced or
 * repeated voxel shows up as a wrong value, and noise is compared with
 * ng_eval_points at centres computed here in double.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- a sink that records what the render did ------------------------------------ */

/* Counts every call, checks the slab order as it goes (the first breach is
 * kept for the message), and assembles the window: data[((k * height + j)
 * * width + i) * channels + c], hits[(k * height + j) * width + i] = how
 * many times voxel (i, j, k) of the window arrived. */
typedef struct vrec {
    int begins, rows, vbegins, slabs, ends, end_ok;
    ng_volume_info info;
    int next_z;         /* first slice the next slab must start at */
    int cur_z, cur_ns;  /* the slab being delivered */
    int next_y;         /* first row the next call of this slab must give; 0 between slabs */
    int breaches;
    char breach[200];
    float *data;
    unsigned char *hits;
} vrec;

static void breach(vrec *v, const char *fmt, int a, int b, int c, int d)
{
    if (v->breaches++ == 0) snprintf(v->breach, sizeof v->breach, fmt, a, b, c, d);
}

static int rec_begin(void *u, int w, int h, int ch, ng_error *err)
{
    (void)w, (void)h, (void)ch, (void)err;
    ((vrec *)u)->begins++;
    return 0;
}

static int rec_rows(void *u, int y, int n, const float *rows, ng_error *err)
{
    (void)y, (void)n, (void)rows, (void)err;
    ((vrec *)u)->rows++;
    return 0;
}

static int rec_end(void *u, int ok, ng_error *err)
{
    vrec *v = u;
    (void)err;
    v->ends++;
    v->end_ok = ok;
    return 0;
}

static int rec_begin_volume(void *u, const ng_volume_info *vi, ng_error *err)
{
    vrec *v = u;
    size_t voxels;
    if (v->vbegins++) breach(v, "begin_volume called %d times", v->vbegins, 0, 0, 0);
    v->info = *vi;
    if (vi->width < 1 || vi->height < 1 || vi->depth < 1 || vi->channels < 1 || vi->channels > NG_MAX_CHANNELS ||
        (double)vi->width * vi->height * vi->depth > 1e7)
        return ng_errorf(err, "test sink: unexpected volume %dx%dx%d, %d channels", vi->width, vi->height, vi->depth,
                         vi->channels);
    voxels = (size_t)vi->width * (size_t)vi->height * (size_t)vi->depth;
    free(v->data);
    free(v->hits);
    v->data = calloc(voxels * (size_t)vi->channels, sizeof(float));
    v->hits = calloc(voxels, 1);
    if (!v->data || !v->hits) return ng_errorf(err, "test sink: out of memory");
    return 0;
}

static int rec_slab(void *u, int z, int ns, int y, int nrows, const float *data, ng_error *err)
{
    vrec *v = u;
    const int W = v->info.width, H = v->info.height, D = v->info.depth, ch = v->info.channels;
    int s, j;
    (void)err;
    v->slabs++;
    if (!v->data) {
        breach(v, "slab before begin_volume", 0, 0, 0, 0);
        return 0;
    }
    if (z < 0 || ns < 1 || z > D - ns || y < 0 || nrows < 1 || y > H - nrows) {
        breach(v, "slab z %d, %d slices, y %d, %d rows is outside the window", z, ns, y, nrows);
        return 0;
    }
    if (v->next_y == 0) { /* a new slab: it continues where the last one ended */
        if (z != v->next_z) breach(v, "slab at z %d, expected z %d (z-major, no gap or overlap)", z, v->next_z, 0, 0);
        v->cur_z = z;
        v->cur_ns = ns;
    } else if (z != v->cur_z || ns != v->cur_ns) {
        breach(v, "rows of slab z %d (%d slices) arrived as z %d, %d slices before it ended", v->cur_z, v->cur_ns, z,
               ns);
    }
    if (y != v->next_y) breach(v, "slab z %d: rows from %d, expected from %d", z, y, v->next_y, 0);
    v->next_y = y + nrows;
    if (v->next_y == H) {
        v->next_y = 0;
        v->next_z = z + ns;
    }
    for (s = 0; s < ns; s++)
        for (j = 0; j < nrows; j++) {
            size_t at = ((size_t)(z + s) * (size_t)H + (size_t)(y + j)) * (size_t)W;
            const float *src = data + ((size_t)s * (size_t)nrows + (size_t)j) * (size_t)W * (size_t)ch;
            int i;
            memcpy(v->data + at * (size_t)ch, src, (size_t)W * (size_t)ch * sizeof(float));
            for (i = 0; i < W; i++)
                if (v->hits[at + (size_t)i] < 255) v->hits[at + (size_t)i]++;
        }
    return 0;
}

static ng_sink rec_sink(vrec *v)
{
    ng_sink s = {.begin = rec_begin, .rows = rec_rows, .end = rec_end, .user = v,
                 .begin_volume = rec_begin_volume, .slab = rec_slab};
    return s;
}

/* A sink of images only: begin_volume and slab left NULL. */
static ng_sink image_sink(vrec *v)
{
    ng_sink s = {.begin = rec_begin, .rows = rec_rows, .end = rec_end, .user = v};
    return s;
}

static void rec_free(vrec *v)
{
    free(v->data);
    free(v->hits);
    memset(v, 0, sizeof *v);
}

/* The window a render of o makes (region and zregion as documented). */
static void window_of(const ng_render_opts *o, int *w, int *h, int *d)
{
    *w = o->region[2] ? o->region[2] : o->width;
    *h = o->region[2] ? o->region[3] : o->height;
    *d = o->zregion[1] ? o->zregion[1] : o->depth;
}

/* A successful volume render reached v as the contract says: one
 * begin_volume with the window's extents, slabs in order covering every
 * voxel exactly once, one end(ok = 1), no image calls. */
static void check_complete(const char *file, int line, const vrec *v, const ng_render_opts *o, int channels)
{
    int w, h, d;
    size_t i, n, missing = 0, repeated = 0, first = (size_t)-1;
    window_of(o, &w, &h, &d);
    if (v->vbegins != 1 || v->ends != 1 || !v->end_ok || v->begins || v->rows)
        ng_t_fail(file, line, "calls: begin_volume %d, end %d (ok %d), begin %d, rows %d; expected 1, 1 (1), 0, 0",
                  v->vbegins, v->ends, v->end_ok, v->begins, v->rows);
    if (v->info.width != w || v->info.height != h || v->info.depth != d || v->info.channels != channels)
        ng_t_fail(file, line, "begin_volume got %dx%dx%d, %d channels; expected %dx%dx%d, %d", v->info.width,
                  v->info.height, v->info.depth, v->info.channels, w, h, d, channels);
    if (v->breaches) ng_t_fail(file, line, "slab order: %s (%d breaches)", v->breach, v->breaches);
    if (v->vbegins == 1 && (v->next_y != 0 || v->next_z != v->info.depth))
        ng_t_fail(file, line, "slabs stopped at z %d row %d of a %d-slice window", v->next_z, v->next_y, v->info.depth);
    if (!v->hits) return;
    n = (size_t)v->info.width * (size_t)v->info.height * (size_t)v->info.depth;
    for (i = 0; i < n; i++) {
        if (v->hits[i] != 1 && first == (size_t)-1) first = i;
        missing += v->hits[i] == 0;
        repeated += v->hits[i] > 1;
    }
    if (missing || repeated)
        ng_t_fail(file, line, "%zu voxels never arrived, %zu more than once (first: voxel %zu)", missing, repeated,
                  first);
}
#define CHECK_COMPLETE(v, o, ch) check_complete(__FILE__, __LINE__, (v), (o), (ch))

/* Options for a w x h x d volume on one thread, the rest as defaults. */
static void vopts(ng_render_opts *o, int w, int h, int d)
{
    ng_render_defaults(o, w, h);
    o->depth = d;
    o->dims = 3;
    o->threads = 1;
}

/* Renders roots into recs[]; the render's return code. */
static int vrender(const ng_graph *g, const int *roots, int nroots, const ng_render_opts *o, vrec *recs,
                   ng_error *err)
{
    ng_sink sinks[8];
    int k;
    for (k = 0; k < nroots; k++) {
        memset(&recs[k], 0, sizeof recs[k]);
        sinks[k] = rec_sink(&recs[k]);
    }
    err->msg[0] = 0;
    return ng_render(g, roots, nroots, o, sinks, err);
}

/* One root's volume, checked complete; the caller frees it. NULL (and a
 * failed check) when the render failed. */
static float *vol_at(const char *file, int line, const ng_graph *g, int root, const ng_render_opts *o)
{
    vrec v;
    ng_error err;
    float *data;
    if (vrender(g, &root, 1, o, &v, &err)) {
        ng_t_fail(file, line, "volume render failed: %s", err.msg);
        rec_free(&v);
        return NULL;
    }
    check_complete(file, line, &v, o, ng_node_channels(ng_graph_node(g, root)));
    data = v.data;
    v.data = NULL;
    rec_free(&v);
    return data;
}
#define VOL(g, root, o) vol_at(__FILE__, __LINE__, (g), (root), (o))

/* ---- graphs ---------------------------------------------------------------------- */

/* vector(x, y, z): each voxel's own centre, three channels. */
static int centres(ng_graph *g)
{
    static const char *const axes[3] = {"x", "y", "z"};
    ng_node *n = t_begin(g, "vector");
    ng_error err;
    int a;
    for (a = 0; a < 3; a++) {
        int src = t_finish(g, t_begin(g, axes[a]));
        if (ng_set_input(g, n, ng_input_index(ng_node_type_of(n), axes[a]), src, &err))
            ng_t_fail(__FILE__, __LINE__, "vector input %s: %s", axes[a], err.msg);
    }
    return t_finish(g, n);
}

/* A cloud-like density: 3D perlin fBm warped by a 3D vector field. The
 * finest octave (24 / 4 = 6 units) stays above the 2-voxel detail cut-off
 * at every voxel size used here, so a render and ng_eval_points (which
 * has no cut-off) evaluate the same octaves. */
static int density(ng_graph *g)
{
    int f = t_fbm(g, t_noise(g, "perlin", 24, 5), 3, 2, 0.5);
    return t_warp(g, f, t_vnoise(g, "simplex", 40, 6), 5);
}

/* |got - want| within 1e-5 relative (absolute below 1): the volume's
 * anchors differ from ng_eval_points' and the 2D render's, so the float
 * offsets round differently, by a few ulps of the position. */
static int near(float got, double want) { return fabs((double)got - want) <= 1e-5 * fmax(1.0, fabs(want)); }

/* ---- the API ---------------------------------------------------------------------- */

/* Defaults render images (depth 0) in 16-voxel bricks when asked for a
 * volume; an image render never calls the volume functions, even of a sink
 * that has them, and ignores brick. */
static void test_defaults_and_images(void)
{
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 16, 1);
    ng_render_opts o;
    ng_error err;
    vrec v;
    memset(&o, 0x5a, sizeof o); /* every field must be set by the defaults */
    ng_render_defaults(&o, 40, 30);
    CHECK_INT(o.depth, 0);
    CHECK_INT(o.zregion[0], 0);
    CHECK_INT(o.zregion[1], 0);
    CHECK_INT(o.brick, 16);
    o.threads = 2;
    o.tile = 16;
    o.brick = 0; /* not a volume: the brick is not looked at */
    CHECK_INT(vrender(g, &root, 1, &o, &v, &err), 0);
    CHECK_INT(v.begins, 1);
    CHECK(v.rows >= 1);
    CHECK_INT(v.vbegins, 0);
    CHECK_INT(v.slabs, 0);
    CHECK_INT(v.ends, 1);
    CHECK_INT(v.end_ok, 1);
    rec_free(&v);
    ng_graph_free(g);
}

/* Every voxel's three coordinate channels are its centre origin + (ijk +
 * 0.5) * voxel size (z from the lower corner o.z), for bricks that do not
 * divide the volume and on one or several threads; begin_volume places the
 * whole volume. The coordinates here are exact in float, so the tolerance
 * only forgives rounding, never a neighbouring voxel (0.5 away). */
static void test_voxel_centres_and_slab_order(void)
{
    static const int threads[] = {1, 3};
    ng_graph *g = ng_graph_new();
    int root = centres(g), t;
    const int W = 21, H = 13, D = 11;
    for (t = 0; t < 2; t++) {
        ng_render_opts o;
        float *data;
        int i, j, k, c, bad = 0;
        vopts(&o, W, H, D);
        o.origin[0] = 3.25;
        o.origin[1] = -7.5;
        o.z = 11.75;
        o.pixel_size = 0.5;
        o.brick = 8;
        o.threads = threads[t];
        {
            vrec v;
            ng_error err;
            CHECK_INT(vrender(g, &root, 1, &o, &v, &err), 0);
            CHECK_COMPLETE(&v, &o, 3);
            CHECK_INT(v.info.offset[0], 0);
            CHECK_INT(v.info.offset[1], 0);
            CHECK_INT(v.info.offset[2], 0);
            CHECK_INT(v.info.full[0], W);
            CHECK_INT(v.info.full[1], H);
            CHECK_INT(v.info.full[2], D);
            CHECK_NEAR(v.info.origin[0], 3.25, 0);
            CHECK_NEAR(v.info.origin[1], -7.5, 0);
            CHECK_NEAR(v.info.origin[2], 11.75, 0);
            CHECK_NEAR(v.info.voxel_size, 0.5, 0);
            rec_free(&v);
        }
        data = VOL(g, root, &o);
        for (k = 0; data && k < D; k++)
            for (j = 0; j < H; j++)
                for (i = 0; i < W; i++) {
                    const double want[3] = {3.25 + (i + 0.5) * 0.5, -7.5 + (j + 0.5) * 0.5, 11.75 + (k + 0.5) * 0.5};
                    for (c = 0; c < 3; c++) {
                        float got = data[(((size_t)k * H + j) * W + i) * 3 + c];
                        if (fabs(got - want[c]) > 1e-4 && bad++ == 0)
                            ng_t_fail(__FILE__, __LINE__, "threads %d: voxel (%d, %d, %d) channel %d is %.9g, not %.9g",
                                      threads[t], i, j, k, c, got, want[c]);
                    }
                }
        CHECK(data != NULL);
        CHECK_INT(bad, 0);
        free(data);
    }
    ng_graph_free(g);
}

/* A window (region + zregion): begin_volume gets its extents, its first
 * voxel's index and the full volume's placement, and its voxels are those
 * of the full volume at the same indices, not at the window's own. */
static void test_window_info_and_positions(void)
{
    ng_graph *g = ng_graph_new();
    int root = centres(g), i, j, k, c, bad = 0;
    ng_render_opts o;
    ng_error err;
    vrec v;
    vopts(&o, 37, 29, 23);
    o.origin[0] = -100.5;
    o.origin[1] = 64.25;
    o.z = -3.5;
    o.pixel_size = 0.25;
    o.brick = 8;
    o.threads = 2;
    o.region[0] = 5, o.region[1] = 7, o.region[2] = 20, o.region[3] = 11;
    o.zregion[0] = 4, o.zregion[1] = 9;
    CHECK_INT(vrender(g, &root, 1, &o, &v, &err), 0);
    CHECK_COMPLETE(&v, &o, 3);
    CHECK_INT(v.info.width, 20);
    CHECK_INT(v.info.height, 11);
    CHECK_INT(v.info.depth, 9);
    CHECK_INT(v.info.offset[0], 5);
    CHECK_INT(v.info.offset[1], 7);
    CHECK_INT(v.info.offset[2], 4);
    CHECK_INT(v.info.full[0], 37);
    CHECK_INT(v.info.full[1], 29);
    CHECK_INT(v.info.full[2], 23);
    CHECK_NEAR(v.info.origin[0], -100.5, 0);
    CHECK_NEAR(v.info.origin[1], 64.25, 0);
    CHECK_NEAR(v.info.origin[2], -3.5, 0);
    CHECK_NEAR(v.info.voxel_size, 0.25, 0);
    for (k = 0; v.data && v.info.depth == 9 && k < 9; k++)
        for (j = 0; j < 11; j++)
            for (i = 0; i < 20; i++) {
                const double want[3] = {-100.5 + (5 + i + 0.5) * 0.25, 64.25 + (7 + j + 0.5) * 0.25,
                                        -3.5 + (4 + k + 0.5) * 0.25};
                for (c = 0; c < 3; c++) {
                    float got = v.data[(((size_t)k * 11 + j) * 20 + i) * 3 + c];
                    if (fabs(got - want[c]) > 1e-4 && bad++ == 0)
                        ng_t_fail(__FILE__, __LINE__, "window voxel (%d, %d, %d) channel %d is %.9g, not %.9g", i, j, k,
                                  c, got, want[c]);
                }
            }
    CHECK(v.data != NULL);
    CHECK_INT(bad, 0);
    rec_free(&v);
    ng_graph_free(g);
}

/* A 37x29x23 volume of a warped fBm and a vector noise (two roots, one
 * render) gives the same bits for threads 1, 2, 3, 7, bricks 8, 16, 24, 64
 * and any tile. */
static void test_identical_for_threads_bricks_tiles(void)
{
    static const int threads[] = {1, 2, 3, 7}, bricks[] = {8, 16, 24, 64}, tiles[] = {8, 32, 64, 200};
    ng_graph *g = ng_graph_new();
    int roots[2], t, b, k;
    ng_render_opts o;
    ng_error err;
    vrec ref[2];
    const int ch[2] = {1, 3};
    roots[0] = density(g);
    roots[1] = t_vnoise(g, "perlin", 20, 4);
    vopts(&o, 37, 29, 23);
    o.origin[0] = 12.3;
    o.origin[1] = -40.7;
    o.z = 7.9;
    o.pixel_size = 0.9;
    CHECK_INT(vrender(g, roots, 2, &o, ref, &err), 0);
    for (k = 0; k < 2; k++) CHECK_COMPLETE(&ref[k], &o, ch[k]);
    for (t = 0; t < 4; t++)
        for (b = 0; b < 4; b++) {
            vrec v[2];
            o.threads = threads[t];
            o.brick = bricks[b];
            o.tile = tiles[(t + b) % 4];
            CHECK_INT(vrender(g, roots, 2, &o, v, &err), 0);
            for (k = 0; k < 2; k++) {
                CHECK_COMPLETE(&v[k], &o, ch[k]);
                if (ref[k].data && v[k].data && v[k].info.channels == ch[k] &&
                    memcmp(ref[k].data, v[k].data, (size_t)37 * 29 * 23 * (size_t)ch[k] * sizeof(float)) != 0)
                    ng_t_fail(__FILE__, __LINE__, "root %d: threads %d brick %d tile %d differs from threads 1 brick 16",
                              k, threads[t], bricks[b], o.tile);
                rec_free(&v[k]);
            }
        }
    rec_free(&ref[0]);
    rec_free(&ref[1]);
    ng_graph_free(g);
}

/* A 37x29x23 volume rendered as 2x2x2 uneven windows, each with its own
 * threads and brick, equals the whole volume bit for bit, for a 1-channel
 * and a 3-channel root. */
static void test_windows_stitch_exactly(void)
{
    const int W = 37, H = 29, D = 23, split[3] = {17, 12, 10};
    ng_graph *g = ng_graph_new();
    int roots[2], q, k;
    ng_render_opts o;
    ng_error err;
    vrec full[2];
    roots[0] = density(g);
    roots[1] = t_vnoise(g, "simplex", 15, 2);
    vopts(&o, W, H, D);
    o.origin[0] = -5.5;
    o.origin[1] = 3.3;
    o.z = 100.1;
    o.brick = 16;
    CHECK_INT(vrender(g, roots, 2, &o, full, &err), 0);
    CHECK_COMPLETE(&full[0], &o, 1);
    CHECK_COMPLETE(&full[1], &o, 3);
    for (q = 0; q < 8 && full[0].data && full[1].data; q++) {
        const int hi[3] = {q & 1, (q >> 1) & 1, (q >> 2) & 1};
        const int x0 = hi[0] ? split[0] : 0, y0 = hi[1] ? split[1] : 0, z0 = hi[2] ? split[2] : 0;
        const int w = hi[0] ? W - split[0] : split[0], h = hi[1] ? H - split[1] : split[1];
        const int d = hi[2] ? D - split[2] : split[2];
        ng_render_opts p = o;
        vrec part[2];
        p.region[0] = x0, p.region[1] = y0, p.region[2] = w, p.region[3] = h;
        p.zregion[0] = z0, p.zregion[1] = d;
        p.threads = 1 + q % 3;
        p.brick = 8 + 8 * (q % 4);
        CHECK_INT(vrender(g, roots, 2, &p, part, &err), 0);
        for (k = 0; k < 2; k++) {
            const int ch = k ? 3 : 1;
            int j, s, differ = 0;
            CHECK_COMPLETE(&part[k], &p, ch);
            for (s = 0; part[k].data && part[k].info.depth == d && part[k].info.channels == ch && s < d; s++)
                for (j = 0; j < h; j++) {
                    const float *a = part[k].data + ((size_t)s * h + j) * (size_t)w * ch;
                    const float *b = full[k].data + (((size_t)(z0 + s) * H + (y0 + j)) * W + x0) * ch;
                    if (memcmp(a, b, (size_t)w * ch * sizeof(float)) != 0 && differ++ == 0)
                        ng_t_fail(__FILE__, __LINE__, "root %d window %d (%d,%d,%d %dx%dx%d): slice %d row %d differs",
                                  k, q, x0, y0, z0, w, h, d, s, j);
                }
            rec_free(&part[k]);
        }
    }
    rec_free(&full[0]);
    rec_free(&full[1]);
    ng_graph_free(g);
}

/* Compares a volume of root with ng_eval_points at every voxel centre,
 * computed here in double from the documented formula. */
static void check_against_points(const char *what, const ng_graph *g, int root, const ng_render_opts *o)
{
    int w, h, d, i, j, k, c, ch = ng_node_channels(ng_graph_node(g, root)), bad = 0, dims = o->dims;
    size_t n, at;
    double *xs[4];
    float *want, *got;
    ng_error err;
    window_of(o, &w, &h, &d);
    n = (size_t)w * h * d;
    for (c = 0; c < 4; c++) xs[c] = malloc(n * sizeof(double));
    want = malloc(n * (size_t)ch * sizeof(float));
    got = VOL(g, root, o);
    CHECK(got != NULL);
    if (!got || !want || !xs[0] || !xs[1] || !xs[2] || !xs[3]) goto done;
    for (k = 0, at = 0; k < d; k++)
        for (j = 0; j < h; j++)
            for (i = 0; i < w; i++, at++) {
                xs[0][at] = o->origin[0] + (o->region[0] + i + 0.5) * o->pixel_size;
                xs[1][at] = o->origin[1] + (o->region[1] + j + 0.5) * o->pixel_size;
                xs[2][at] = o->z + (o->zregion[0] + k + 0.5) * o->pixel_size;
                xs[3][at] = o->time;
            }
    if (ng_eval_points(g, root, dims, (const double *const *)xs, (int)n, want, &err)) {
        ng_t_fail(__FILE__, __LINE__, "%s: ng_eval_points: %s", what, err.msg);
        goto done;
    }
    for (at = 0; at < n * (size_t)ch; at++)
        if (!near(got[at], want[at]) && bad++ == 0)
            ng_t_fail(__FILE__, __LINE__, "%s: voxel %zu channel %zu is %.9g, ng_eval_points says %.9g", what,
                      at / (size_t)ch, at % (size_t)ch, got[at], want[at]);
    CHECKF(bad == 0, "%s: %d of %zu values differ from ng_eval_points", what, bad, n * (size_t)ch);
done:
    for (c = 0; c < 4; c++) free(xs[c]);
    free(want);
    free(got);
}

/* Voxels equal ng_eval_points at their centres: a warped fBm, simplex,
 * worley and a 3-channel vector noise (channels interleaved), on a volume
 * and on a window of it, with a voxel size that is not 1. */
static void test_voxels_match_eval_points(void)
{
    ng_graph *g = ng_graph_new();
    const int roots[4] = {density(g), t_noise(g, "simplex", 9, 3), t_noise(g, "worley", 7, 8),
                          t_vnoise(g, "perlin", 11, 12)};
    static const char *const names[4] = {"warped fbm", "simplex", "worley", "vector perlin"};
    int r;
    for (r = 0; r < 4; r++) {
        ng_render_opts o;
        char what[64];
        vopts(&o, 19, 17, 13);
        o.origin[0] = -40.3;
        o.origin[1] = 17.7;
        o.z = 5.1;
        o.pixel_size = 0.75;
        o.brick = 8;
        o.threads = 2;
        snprintf(what, sizeof what, "%s volume", names[r]);
        check_against_points(what, g, roots[r], &o);
        o.region[0] = 3, o.region[1] = 4, o.region[2] = 11, o.region[3] = 9;
        o.zregion[0] = 6, o.zregion[1] = 5;
        snprintf(what, sizeof what, "%s window", names[r]);
        check_against_points(what, g, roots[r], &o);
    }
    ng_graph_free(g);
}

/* dims 4: the time axis reaches every voxel (the time source is o.time
 * everywhere) and 4D noise agrees with ng_eval_points in 4D. */
static void test_volume_with_time(void)
{
    ng_graph *g = ng_graph_new();
    int tm = t_finish(g, t_begin(g, "time")), p = t_noise(g, "perlin", 10, 21), i, bad = 0;
    ng_render_opts o;
    float *data;
    vopts(&o, 13, 9, 10);
    o.dims = 4;
    o.time = 2.5;
    o.z = 1.25;
    o.brick = 8;
    data = VOL(g, tm, &o);
    CHECK(data != NULL);
    for (i = 0; data && i < 13 * 9 * 10; i++)
        if (data[i] != 2.5f && bad++ == 0) ng_t_fail(__FILE__, __LINE__, "voxel %d: time %.9g, not 2.5", i, data[i]);
    free(data);
    check_against_points("4D perlin", g, p, &o);
    ng_graph_free(g);
}

/* Slice k of a volume equals a 2D render (dims 3) of the plane z + (k +
 * 0.5) * voxel size, including a volume of one slice. */
static void test_slices_match_images(void)
{
    static const int depths[] = {7, 1};
    ng_graph *g = ng_graph_new();
    int root = density(g), dd;
    const int W = 23, H = 19;
    for (dd = 0; dd < 2; dd++) {
        const int D = depths[dd];
        ng_render_opts o;
        float *vox;
        int k, i, bad = 0;
        vopts(&o, W, H, D);
        o.origin[0] = 10.1;
        o.origin[1] = -4.2;
        o.z = -3.3;
        o.pixel_size = 0.8;
        o.brick = 8;
        vox = VOL(g, root, &o);
        CHECK(vox != NULL);
        for (k = 0; vox && k < D; k++) {
            ng_render_opts im = o;
            float *img;
            im.depth = 0;
            im.z = o.z + (k + 0.5) * o.pixel_size;
            img = t_render(g, root, &im);
            CHECK(img != NULL);
            for (i = 0; img && i < W * H; i++)
                if (!near(vox[(size_t)k * W * H + i], img[i]) && bad++ == 0)
                    ng_t_fail(__FILE__, __LINE__, "depth %d: slice %d pixel (%d, %d): volume %.9g, image %.9g", D, k,
                              i % W, i / W, vox[(size_t)k * W * H + i], img[i]);
            free(img);
        }
        CHECK_INT(bad, 0);
        free(vox);
    }
    ng_graph_free(g);
}

/* Neighbour statistics along axis a (0, 1, 2) of a w x h x d volume: the
 * share of adjacent voxel pairs with identical values (a smooth noise at
 * 1/16 cell per voxel has essentially none; a float-quantised position
 * makes flat runs) and the spread of the differences. */
static void axis_stats(const float *v, int w, int h, int d, int a, double *same, double *spread)
{
    const size_t step = a == 0 ? 1 : a == 1 ? (size_t)w : (size_t)w * h;
    long eq = 0, n = 0;
    double s = 0, s2 = 0;
    int i, j, k;
    for (k = 0; k < d; k++)
        for (j = 0; j < h; j++)
            for (i = 0; i < w; i++) {
                size_t at = ((size_t)k * h + j) * w + i;
                double diff;
                if ((a == 0 && i == 0) || (a == 1 && j == 0) || (a == 2 && k == 0)) continue;
                diff = (double)v[at] - v[at - step];
                eq += diff == 0;
                s += diff;
                s2 += diff * diff;
                n++;
            }
    *same = (double)eq / (double)n;
    *spread = sqrt(s2 / (double)n - (s / (double)n) * (s / (double)n));
}

/* At 1e9 from the origin on every axis a volume keeps its detail along x,
 * y and z (a float-only position would be 64 units coarse there), stays
 * finite, and still agrees with ng_eval_points at a looser 1e-4 (the
 * offsets from two far anchors round differently). */
static void test_far_origin_keeps_detail(void)
{
    ng_graph *g = ng_graph_new();
    int root = t_fbm(g, t_noise(g, "perlin", 16, 1), 3, 2, 0.5), a, i, finite = 1;
    const int N = 40;
    ng_render_opts o;
    float *near0, *far;
    vopts(&o, N, N, N);
    o.threads = 2;
    near0 = VOL(g, root, &o);
    o.origin[0] = 1e9;
    o.origin[1] = -1e9 + 0.37;
    o.z = 1e9 + 0.11;
    far = VOL(g, root, &o);
    CHECK(near0 && far);
    for (i = 0; far && i < N * N * N; i++) finite &= isfinite(far[i]) != 0;
    CHECK(finite);
    for (a = 0; near0 && far && a < 3; a++) {
        double same0, spread0, same1, spread1;
        axis_stats(near0, N, N, N, a, &same0, &spread0);
        axis_stats(far, N, N, N, a, &same1, &spread1);
        CHECKF(same1 <= 0.01, "axis %d: %.3f of neighbouring voxels are equal far from the origin", a, same1);
        CHECKF(fabs(spread1 / spread0 - 1) <= 0.15, "axis %d: neighbour spread %g far, %g near", a, spread1, spread0);
    }
    if (far) {
        /* a diagonal of voxels against ng_eval_points */
        double xs[3][40];
        const double *p[3] = {xs[0], xs[1], xs[2]};
        float want[40];
        ng_error err;
        int bad = 0;
        for (i = 0; i < N; i++) {
            xs[0][i] = o.origin[0] + (i + 0.5);
            xs[1][i] = o.origin[1] + ((i * 7) % N + 0.5);
            xs[2][i] = o.z + ((i * 13) % N + 0.5);
        }
        CHECK_INT(ng_eval_points(g, root, 3, p, N, want, &err), 0);
        for (i = 0; i < N; i++) {
            float got = far[((size_t)((i * 13) % N) * N + (size_t)((i * 7) % N)) * N + (size_t)i];
            if (!(fabs((double)got - want[i]) <= 1e-4) && bad++ == 0)
                ng_t_fail(__FILE__, __LINE__, "far voxel %d: %.9g, ng_eval_points %.9g", i, got, want[i]);
        }
    }
    free(near0);
    free(far);
    ng_graph_free(g);
}

/* A sink without begin_volume or slab cannot take a volume: the render
 * fails before anything is evaluated, saying so, and calls nothing of that
 * sink; a volume sink beside it is ended (ok = 0) if it was begun and gets
 * no slab. */
static void test_image_sink_refused(void)
{
    ng_graph *g = ng_graph_new();
    int roots[2], variant;
    ng_render_opts o;
    roots[0] = density(g);
    roots[1] = t_noise(g, "simplex", 9, 1);
    vopts(&o, 16, 12, 8);
    o.brick = 8;
    for (variant = 0; variant < 3; variant++) {
        vrec a, b;
        ng_sink s[2];
        ng_error err = {{0}};
        int rc, n = variant == 2 ? 2 : 1;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        s[0] = variant == 2 ? rec_sink(&a) : image_sink(&a);
        s[1] = image_sink(&b);
        if (variant == 1) s[0].begin_volume = rec_begin_volume; /* begin_volume but no slab */
        rc = ng_render(g, roots, n, &o, s, &err);
        CHECKF(rc == -1, "variant %d: ng_render returned %d", variant, rc);
        CHECK_CONTAINS(err.msg, "volume");
        CHECK(strchr(err.msg, '\n') == NULL);
        if (variant < 2) {
            CHECKF(a.begins + a.rows + a.vbegins + a.slabs + a.ends == 0,
                   "variant %d: the image sink was called (begin %d rows %d begin_volume %d slab %d end %d)", variant,
                   a.begins, a.rows, a.vbegins, a.slabs, a.ends);
        } else {
            CHECK_INT(a.slabs, 0);
            CHECK_INT(a.ends, a.vbegins);
            CHECK(a.ends == 0 || a.end_ok == 0);
            CHECK_INT(b.begins + b.rows + b.vbegins + b.slabs + b.ends, 0);
        }
        rec_free(&a);
        rec_free(&b);
    }
    ng_graph_free(g);
}

/* Bad volume options fail before any sink is called, with one line naming
 * the option to change; the same options with the fault removed render. */
static void test_bad_volume_options(void)
{
    enum { DEPTH, BRICK, ZREGION, REGION, DIMS };
    static const struct {
        int field, a, b;
        const char *needle;
    } cases[] = {
        {DEPTH, -1, 0, "--size"},           {DEPTH, NG_MAX_EXTENT + 1, 0, "--size"},
        {BRICK, 7, 0, "--brick"},           {BRICK, 65, 0, "--brick"},
        {BRICK, 0, 0, "--brick"},           {ZREGION, 20, 4, "--region"},
        {ZREGION, -1, 3, "--region"},       {ZREGION, 0, 24, "--region"},
        {ZREGION, 5, -2, "--region"},       {REGION, 30, 10, "--region"},
        {DIMS, 2, 0, ""},
    };
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 12, 3);
    ng_render_opts base;
    ng_error err;
    vrec v;
    size_t c;
    vopts(&base, 37, 29, 23);
    base.brick = 8;
    CHECK_INT(vrender(g, &root, 1, &base, &v, &err), 0); /* the faults below are the only ones */
    CHECK_COMPLETE(&v, &base, 1);
    rec_free(&v);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ng_render_opts o = base;
        int rc;
        switch (cases[c].field) {
        case DEPTH: o.depth = cases[c].a; break;
        case BRICK: o.brick = cases[c].a; break;
        case ZREGION: o.zregion[0] = cases[c].a, o.zregion[1] = cases[c].b; break;
        case REGION: o.region[0] = cases[c].a, o.region[1] = 0, o.region[2] = cases[c].b, o.region[3] = 5; break;
        case DIMS: o.dims = cases[c].a; break;
        }
        rc = vrender(g, &root, 1, &o, &v, &err);
        CHECKF(rc == -1, "case %zu: ng_render returned %d", c, rc);
        CHECKF(err.msg[0] && strstr(err.msg, cases[c].needle) && !strchr(err.msg, '\n'),
               "case %zu: the message should be one line naming \"%s\": \"%s\"", c, cases[c].needle, err.msg);
        CHECKF(v.begins + v.rows + v.vbegins + v.slabs + v.ends == 0, "case %zu: the sink was called", c);
        rec_free(&v);
    }
    ng_graph_free(g);
}

/* The bands of a volume (one row of bricks each, width x brick^2 voxels)
 * count against the render's memory limit: a window whose bands alone
 * pass it is refused before any sink is called, naming the limit; with
 * room, or narrower, it renders. */
static void test_bands_within_memory_limit(void)
{
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 12, 3);
    ng_render_opts o;
    ng_error err;
    vrec v;
    vopts(&o, 4096, 20, 20);
    o.brick = 16;
    o.threads = 1; /* 2 bands of 4096 x 16 x 16 floats: 8 MiB */
    o.memory_limit = 4 * 1048576.0;
    CHECK_INT(vrender(g, &root, 1, &o, &v, &err), -1);
    CHECKF(strstr(err.msg, "--memory-limit") && strstr(err.msg, "bands"), "the message: %s", err.msg);
    CHECK_INT(v.begins + v.rows + v.vbegins + v.slabs + v.ends, 0);
    rec_free(&v);
    o.region[2] = 1024, o.region[3] = 20; /* a quarter as wide: 2 MiB of bands */
    CHECK_INT(vrender(g, &root, 1, &o, &v, &err), 0);
    rec_free(&v);
    o.region[2] = 0;
    o.memory_limit = 64 * 1048576.0;
    CHECK_INT(vrender(g, &root, 1, &o, &v, &err), 0);
    rec_free(&v);
    /* a volume thinner than a brick: its bands hold its 8 rows and 8 slices,
     * not 64 x 64 (1 MiB per band, not 64) */
    vopts(&o, 4096, 8, 8);
    o.brick = 64;
    o.threads = 1;
    o.memory_limit = 4 * 1048576.0;
    CHECKF(vrender(g, &root, 1, &o, &v, &err) == 0, "%s", err.msg);
    rec_free(&v);
    ng_graph_free(g);
}

/* A cancel flag set before the render, or a time limit far too short,
 * stops a volume render: -1 with the reason, every sink begun once and
 * ended with ok = 0 (as images do), no slab at all for the flag. */
static void test_cancel_and_time_limit(void)
{
    ng_graph *g = ng_graph_new();
    int roots[2], t;
    atomic_int cancel;
    ng_render_opts o;
    roots[0] = t_fbm(g, t_noise(g, "perlin", 30, 2), 6, 2, 0.5);
    roots[1] = t_vnoise(g, "simplex", 20, 3);
    for (t = 1; t <= 3; t += 2) {
        vrec v[2];
        ng_error err;
        int k;
        vopts(&o, 64, 64, 64);
        o.threads = t;
        atomic_init(&cancel, 1);
        o.cancel = &cancel;
        CHECK_INT(vrender(g, roots, 2, &o, v, &err), -1);
        CHECK_CONTAINS(err.msg, "cancelled");
        for (k = 0; k < 2; k++) {
            CHECK_INT(v[k].slabs, 0);
            CHECK_INT(v[k].vbegins, 1);
            CHECK_INT(v[k].ends, 1);
            CHECK_INT(v[k].end_ok, 0);
            CHECK_INT(v[k].begins + v[k].rows, 0);
            rec_free(&v[k]);
        }
        o.cancel = NULL;
        o.time_limit = 1e-9; /* over before the first brick is done */
        CHECK_INT(vrender(g, roots, 2, &o, v, &err), -1);
        CHECK_CONTAINS(err.msg, "render time limit");
        for (k = 0; k < 2; k++) {
            CHECK_INT(v[k].vbegins, 1);
            CHECK_INT(v[k].ends, 1);
            CHECK_INT(v[k].end_ok, 0);
            rec_free(&v[k]);
        }
    }
    ng_graph_free(g);
}

/* Several roots in one volume render: each sink gets its own begin_volume
 * with its channels and its own complete, ordered slabs, bit-identical to
 * a render of that root alone. */
static void test_multiple_roots_own_slabs(void)
{
    ng_graph *g = ng_graph_new();
    int roots[3], k;
    const int ch[3] = {1, 3, 3};
    ng_render_opts o;
    ng_error err;
    vrec v[3];
    roots[0] = density(g);
    roots[1] = t_vnoise(g, "perlin", 13, 7);
    roots[2] = centres(g);
    vopts(&o, 30, 22, 19);
    o.threads = 3;
    o.brick = 8;
    o.z = 0.5;
    CHECK_INT(vrender(g, roots, 3, &o, v, &err), 0);
    for (k = 0; k < 3; k++) {
        float *alone = VOL(g, roots[k], &o);
        CHECK_COMPLETE(&v[k], &o, ch[k]);
        CHECK(alone != NULL);
        if (alone && v[k].data && v[k].info.channels == ch[k] &&
            memcmp(alone, v[k].data, (size_t)30 * 22 * 19 * (size_t)ch[k] * sizeof(float)) != 0)
            ng_t_fail(__FILE__, __LINE__, "root %d differs from its render alone", k);
        free(alone);
    }
    /* the coordinate root's last voxel is the volume's far corner */
    if (v[2].data && v[2].info.channels == 3) {
        const float *last = v[2].data + ((size_t)30 * 22 * 19 - 1) * 3;
        CHECK_NEAR(last[0], 29.5, 1e-4);
        CHECK_NEAR(last[1], 21.5, 1e-4);
        CHECK_NEAR(last[2], 0.5 + 18.5, 1e-4);
    }
    for (k = 0; k < 3; k++) rec_free(&v[k]);
    ng_graph_free(g);
}

/* ---- the command line ------------------------------------------------------------ */

static char script[PATHLEN], outdir[PATHLEN];

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* `render script -o outdir/out ARGS...` is a usage error: exit 2, one line
 * holding every needle, and nothing written into outdir. */
static void refused(const char *file, int line, const char *out, const char *const *args,
                    const char *const *needles)
{
    const char *argv[32];
    char path[PATHLEN];
    int n = 0, k, left;
    res r;
    pathf(path, "%s/%s", outdir, out);
    argv[n++] = "render";
    argv[n++] = script;
    argv[n++] = "-o";
    argv[n++] = path;
    for (k = 0; args[k] && n < 31; k++) argv[n++] = args[k];
    argv[n] = NULL;
    run_argv(&r, DEFAULT_TIMEOUT, argv);
    expect_err(file, line, &r, 2, needles);
    res_free(&r);
    if ((left = count_entries(outdir, "")) != 0) ng_t_fail(file, line, "%d entries left in %s", left, outdir);
}
#define REFUSED(out, args, needles) refused(__FILE__, __LINE__, (out), (args), (needles))

/* A depth of 0 is refused naming --size; a depth of 1 or 8 is a volume,
 * which a plain .png cannot hold: the message names the file and the
 * outputs that can (.vdb, .nrrd, a {z} pattern). */
static void test_cli_volume_size(void)
{
    REFUSED("v_{z}.png", ARGS("--size", "16x12x0"), ARGS("--size", "16x12x0"));
    REFUSED("v.png", ARGS("--size", "16x12x8"), ARGS("v.png", ".vdb", ".nrrd", "{z}"));
    REFUSED("v.png", ARGS("--size", "16x12x1"), ARGS("v.png", ".vdb", ".nrrd", "{z}"));
}

/* The volume options parse: a 6-number --region, a 3-number --origin,
 * --voxel-size and --brick 8 and 64 get as far as the output check (the
 * .png refusal), whose message names none of them. */
static void test_cli_volume_options_accepted(void)
{
    static const char *const bricks[] = {"8", "64"};
    int b;
    for (b = 0; b < 2; b++) {
        char path[PATHLEN];
        res r;
        pathf(path, "%s/v.png", outdir);
        cli(&r, "render", script, "-o", path, "--size", "16x12x8", "--region", "1,2,3,8,6,4", "--origin", "1.5,-2,3",
            "--voxel-size", "0.5", "--brick", bricks[b], NULL);
        EXPECT_ERR(&r, 2, "v.png", ".vdb");
        CHECKF(!strstr(r.err, "--region") && !strstr(r.err, "--origin") && !strstr(r.err, "--voxel-size") &&
                   !strstr(r.err, "--brick"),
               "brick %s: an option was refused: %s", bricks[b], r.err);
        res_free(&r);
    }
    CHECK_INT(count_entries(outdir, ""), 0);
}

/* --region has 4 numbers for images and 6 (X,Y,Z,W,H,D) for volumes; the
 * other count, or slices outside the volume, is a usage error. */
static void test_cli_region_extents(void)
{
    REFUSED("i.png", ARGS("--size", "16x12", "--region", "0,0,0,8,6,2"), ARGS("--region"));
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--region", "0,0,8,6"), ARGS("--region"));
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--region", "0,0,6,8,6,3"), ARGS("--region")); /* slices 6-8 */
}

/* --voxel-size is the volume spelling of --pixel-size: both is a usage
 * error naming both; a volume's z comes from --origin, so --z is refused;
 * --brick takes 8 to 64. */
static void test_cli_voxel_size_z_brick(void)
{
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--voxel-size", "0.5", "--pixel-size", "0.5"),
            ARGS("--voxel-size", "--pixel-size"));
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--z", "3"), ARGS("--z", "--origin"));
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--brick", "7"), ARGS("--brick", "7"));
    REFUSED("v_{z}.png", ARGS("--size", "16x12x8", "--brick", "65"), ARGS("--brick", "65"));
}

/* A .vdb holds a volume: asked of an image render, exit 2 saying so. */
static void test_cli_vdb_of_image(void)
{
    REFUSED("i.vdb", ARGS("--size", "16x12"), ARGS("i.vdb", "volume"));
}

static void test_cli_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN (an executable noisegraph) and NG_ROOT must be set");
}

NG_SUITE(volume, fast)
{
    RUN(test_defaults_and_images);
    RUN(test_voxel_centres_and_slab_order);
    RUN(test_window_info_and_positions);
    RUN(test_identical_for_threads_bricks_tiles);
    RUN(test_windows_stitch_exactly);
    RUN(test_voxels_match_eval_points);
    RUN(test_volume_with_time);
    RUN(test_slices_match_images);
    RUN(test_far_origin_keeps_detail);
    RUN(test_image_sink_refused);
    RUN(test_bad_volume_options);
    RUN(test_bands_within_memory_limit);
    RUN(test_cancel_and_time_limit);
    RUN(test_multiple_roots_own_slabs);
    if (cli_setup("ngvx")) {
        RUN(test_cli_environment);
        return;
    }
    mkscript(script, "vol.lua", "return ng.perlin{element_size = 8}\n");
    mksub(outdir, "out");
    RUN(test_cli_volume_size);
    RUN(test_cli_volume_options_accepted);
    RUN(test_cli_region_extents);
    RUN(test_cli_voxel_size_z_brick);
    RUN(test_cli_vdb_of_image);
    cli_teardown();
}
