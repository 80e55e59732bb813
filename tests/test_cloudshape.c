/*
 * test_cloudshape.c — the cloud-shaping nodes as an artist building a
 * density volume relies on them: height_profile is 0 at and outside its
 * layer, in [0, 1], peaks where its docs say and has no jump or kink;
 * coverage makes the asked fraction of a volume cloud, follows its
 * documented formula, and gives the same bits for any threads, bricks,
 * tiles and regions; erode only removes density, leaves it where the
 * detail is 0 and removes none where there is none; bad options fail with
 * the one-line error.
 *
 * Values are read with ng_eval_points at chosen world points, or by
 * rendering images and volumes through ng_render; errors through the CLI.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* ---- building ------------------------------------------------------------------------------ */

static void choose(ng_node *n, const char *param, const char *v)
{
    ng_error err;
    int k = ng_param_index(ng_node_type_of(n), param);
    if (k < 0 || ng_set_choice(n, k, v, &err))
        ng_t_fail(__FILE__, __LINE__, "%s = \"%s\" refused: %s", param, v, k < 0 ? "no such option" : err.msg);
}

static void connect(ng_graph *g, ng_node *n, const char *input, int src)
{
    ng_error err;
    int k = ng_input_index(ng_node_type_of(n), input);
    if (k < 0 || ng_set_input(g, n, k, src, &err))
        ng_t_fail(__FILE__, __LINE__, "input '%s' refused: %s", input, k < 0 ? "no such input" : err.msg);
}

/* height_profile over bottom..top along axis, of a preset shape or (shape
 * "custom") through npts {t, v} pairs */
static int profile(ng_graph *g, const char *shape, double bottom, double top, const char *axis, const double *pts,
                   int npts)
{
    ng_error err;
    ng_node *n = t_begin(g, "height_profile");
    t_set(n, "bottom", bottom);
    t_set(n, "top", top);
    choose(n, "shape", shape);
    choose(n, "axis", axis);
    if (npts && ng_set_list(n, ng_param_index(ng_node_type_of(n), "curve"), pts, 2 * npts, &err))
        ng_t_fail(__FILE__, __LINE__, "curve refused: %s", err.msg);
    return t_finish(g, n);
}

/* a perlin fbm in [-1, 1], the kind of base density coverage is for */
static int fbm_source(ng_graph *g, double size, int seed)
{
    return t_fbm(g, t_noise(g, "perlin", size, seed), 4, 2, 0.5);
}

/* the same with range "unit": a density in [0, 1] */
static int unit_noise(ng_graph *g, const char *type, double size, int seed)
{
    ng_error err;
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", size);
    t_set(n, "seed", seed);
    if (ng_set_range(n, ng_param_index(ng_node_type_of(n), "range"), NG_RANGE_UNIT, 0, 0, &err))
        ng_t_fail(__FILE__, __LINE__, "range refused: %s", err.msg);
    return t_finish(g, n);
}

static int coverage(ng_graph *g, int source, double cov, double softness)
{
    ng_node *n = t_begin(g, "coverage");
    connect(g, n, "source", source);
    t_set(n, "coverage", cov);
    t_set(n, "softness", softness);
    return t_finish(g, n);
}

static int erode(ng_graph *g, int source, int detail, int amount)
{
    ng_node *n = t_begin(g, "erode");
    connect(g, n, "source", source);
    connect(g, n, "detail", detail);
    connect(g, n, "amount", amount);
    return t_finish(g, n);
}

/* ---- evaluating ---------------------------------------------------------------------------- */

/* root at n points (x, y, z) = (x0, y0, z[i]) */
static float *along_z(const ng_graph *g, int root, const double *z, int n)
{
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    const double *xs[3] = {x, y, z};
    float *out = malloc((size_t)n * sizeof *out);
    ng_error err;
    int i;
    for (i = 0; x && y && i < n; i++) x[i] = 17.25, y[i] = -3.5;
    if (!x || !y || !out || ng_eval_points(g, root, 3, xs, n, out, &err)) {
        ng_t_fail(__FILE__, __LINE__, "evaluation failed: %s", out && x && y ? err.msg : "out of memory");
        free(out);
        out = NULL;
    }
    free(x);
    free(y);
    return out;
}

/* Heights bottom + t (top - bottom) for t from lo to hi in n - 1 steps. */
static double *heights(double bottom, double top, double lo, double hi, int n)
{
    double *z = malloc((size_t)n * sizeof *z);
    int i;
    for (i = 0; z && i < n; i++) z[i] = bottom + (lo + (hi - lo) * i / (n - 1)) * (top - bottom);
    return z;
}

/* A sink collecting a volume window into a buffer (width x height x depth
 * floats, x fastest). */
typedef struct volbuf {
    float *v;
    int w, h, d;
} volbuf;

static int vb_begin(void *u, const ng_volume_info *vi, ng_error *err)
{
    volbuf *b = u;
    if (vi->channels != 1) return ng_errorf(err, "test sink: %d channels", vi->channels);
    b->w = vi->width, b->h = vi->height, b->d = vi->depth;
    b->v = calloc((size_t)b->w * (size_t)b->h * (size_t)b->d, sizeof(float));
    return b->v ? 0 : ng_errorf(err, "test sink: out of memory");
}

static int vb_slab(void *u, int z, int nslices, int y, int nrows, const float *data, ng_error *err)
{
    volbuf *b = u;
    int s, j;
    (void)err;
    for (s = 0; s < nslices; s++)
        for (j = 0; j < nrows; j++)
            memcpy(b->v + ((size_t)(z + s) * (size_t)b->h + (size_t)(y + j)) * (size_t)b->w,
                   data + ((size_t)s * (size_t)nrows + (size_t)j) * (size_t)b->w, (size_t)b->w * sizeof(float));
    return 0;
}

static int vb_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

static int vb_no_image(void *u, int w, int h, int ch, ng_error *err)
{
    (void)u, (void)w, (void)h, (void)ch;
    return ng_errorf(err, "test sink: an image where a volume was asked");
}

/* Renders root as a w x h x d volume of voxels of edge `voxel` from the
 * world origin; NULL (a test failure) when the render fails. */
static float *render_volume(const ng_graph *g, int root, int w, int h, int d, double voxel, int threads, int brick)
{
    ng_render_opts o;
    volbuf b = {0};
    ng_sink s = {vb_no_image, NULL, vb_end, &b, vb_begin, vb_slab};
    ng_error err;
    ng_render_defaults(&o, w, h);
    o.depth = d;
    o.dims = 3;
    o.pixel_size = voxel;
    o.threads = threads;
    o.brick = brick;
    if (ng_render(g, &root, 1, &o, &s, &err)) {
        ng_t_fail(__FILE__, __LINE__, "volume render failed: %s", err.msg);
        free(b.v);
        return NULL;
    }
    return b.v;
}

static double cloudy_share(const float *v, size_t n)
{
    size_t i, cloud = 0;
    for (i = 0; i < n; i++) cloud += v[i] > 0;
    return (double)cloud / (double)n;
}

/* ---- height_profile ------------------------------------------------------------------------ */

static const char *const shapes[] = {"cumulus", "stratus", "stratocumulus"};
static const double custom_pts[] = {0.2, 0.3, 0.5, 1, 0.7, 0.6}; /* a custom shape, 3 points */

static int any_profile(ng_graph *g, int k, double bottom, double top)
{
    return k < 3 ? profile(g, shapes[k], bottom, top, "z", NULL, 0) : profile(g, "custom", bottom, top, "z", custom_pts, 3);
}

/* Exactly 0 at and beyond the layer's ends, within [0, 1] inside: the
 * profile can multiply a density without leaking out of the layer. */
static void test_profile_zero_outside_its_layer(void)
{
    enum { N = 20001 };
    const double bottom = 1500, top = 2250;
    double *z = heights(bottom, top, -0.5, 1.5, N);
    int k, i;
    for (k = 0; k < 4; k++) {
        ng_graph *g = ng_graph_new();
        float *v = z ? along_z(g, any_profile(g, k, bottom, top), z, N) : NULL;
        int inside = 0;
        for (i = 0; v && i < N; i++) {
            if (fabs(z[i] - bottom) < 1e-3 || fabs(z[i] - top) < 1e-3) {
                /* ng_eval_points rounds a point to a float offset from its
                 * block's first: the ends exactly are test_profile_exact_ends' */
                CHECKF(v[i] <= 1e-6, "shape %d: %g at z = %.17g, an end of %g..%g", k, v[i], z[i], bottom, top);
            } else if (z[i] < bottom || z[i] > top) {
                CHECKF(v[i] == 0, "shape %d: %g at z = %.17g, outside %g..%g", k, v[i], z[i], bottom, top);
            } else {
                CHECKF(v[i] >= 0 && v[i] <= 1, "shape %d: %g at z = %.17g", k, v[i], z[i]);
                inside += v[i] > 0;
            }
        }
        CHECKF(v && inside > N / 20, "shape %d: positive at only %d points inside the layer", k, inside);
        free(v);
        ng_graph_free(g);
    }
    free(z);
}

/* The exact ends: bottom and top themselves give 0, and the nearest
 * doubles inside them give almost 0 (no step at the edge). */
static void test_profile_exact_ends(void)
{
    const double bottom = -40, top = 960;
    double z[4];
    int k;
    z[0] = bottom, z[1] = top, z[2] = nextafter(bottom, top), z[3] = nextafter(top, bottom);
    for (k = 0; k < 4; k++) {
        ng_graph *g = ng_graph_new();
        float *v = along_z(g, any_profile(g, k, bottom, top), z, 4);
        if (v) {
            CHECK(v[0] == 0 && v[1] == 0);
            CHECK_LE(v[2], 1e-6);
            CHECK_LE(v[3], 1e-6);
        }
        free(v);
        ng_graph_free(g);
    }
}

/* Where each shape's documented maximum (1) is: cumulus peaks at 10% of
 * the layer; stratus is 1 from 5% to 10% and 0 above 20%; stratocumulus 1
 * from 15% to 30% and 0 above 60%; a custom curve passes through its
 * points. Below 1 everywhere else, and clearly below away from it. */
static void test_profile_maximum_where_documented(void)
{
    static const double plateau[3][3] = {{0.1, 0.1, 1}, {0.05, 0.1, 0.2}, {0.15, 0.3, 0.6}}; /* from, to, zero above */
    enum { N = 10001 };
    double *z = heights(0, 1000, 0, 1, N);
    int k, i;
    for (k = 0; k < 3; k++) {
        ng_graph *g = ng_graph_new();
        float *v = z ? along_z(g, profile(g, shapes[k], 0, 1000, "z", NULL, 0), z, N) : NULL;
        int wrong = -1;
        for (i = 0; v && i < N && wrong < 0; i++) {
            const double t = (double)i / (N - 1);
            const double off = t < plateau[k][0] ? plateau[k][0] - t : t > plateau[k][1] ? t - plateau[k][1] : 0;
            if (off < 1e-9 ? v[i] != 1 : t > plateau[k][2] ? v[i] != 0 : off > 0.05 ? v[i] >= 0.995 : v[i] >= 1)
                wrong = i;
        }
        CHECKF(v && wrong < 0, "%s: %.9g at t = %g (documented: 1 from %g to %g, 0 above %g)", shapes[k],
               v && wrong >= 0 ? v[wrong] : 0, wrong / (N - 1.0), plateau[k][0], plateau[k][1], plateau[k][2]);
        free(v);
        ng_graph_free(g);
    }
    free(z);
    { /* the custom curve through its points */
        double zc[3];
        ng_graph *g = ng_graph_new();
        float *v;
        for (i = 0; i < 3; i++) zc[i] = custom_pts[2 * i] * 1000;
        v = along_z(g, profile(g, "custom", 0, 1000, "z", custom_pts, 3), zc, 3);
        for (i = 0; v && i < 3; i++) CHECK_NEAR(v[i], custom_pts[2 * i + 1], 1e-6);
        free(v);
        ng_graph_free(g);
    }
}

/* No jump and no kink anywhere, the layer's ends included: over a fine
 * sampling the steps are small, and the change of step (a slope that
 * jumps: a crease a user sees as a hard shelf) is far below what a kink
 * of slope 1 per layer would make. */
static void test_profile_is_smooth(void)
{
    enum { N = 24001 };
    const double dt = 1.2 / (N - 1); /* t from -0.1 to 1.1 */
    double *z = heights(0, 1000, -0.1, 1.1, N);
    int k, i;
    for (k = 0; k < 4; k++) {
        ng_graph *g = ng_graph_new();
        float *v = z ? along_z(g, any_profile(g, k, 0, 1000), z, N) : NULL;
        double step = 0, bend = 0, at = 0;
        for (i = 2; v && i < N; i++) {
            const double d1 = fabs((double)v[i] - v[i - 1]), d2 = fabs((double)v[i] - 2.0 * v[i - 1] + v[i - 2]);
            if (d1 > step) step = d1;
            if (d2 > bend) bend = d2, at = -0.1 + (i - 1) * dt;
        }
        CHECKF(v && step < 40 * dt, "shape %d: a step of %g between neighbours %g apart", k, step, dt);
        CHECKF(v && bend < 0.2 * dt, "shape %d: the slope changes by %g per sample at t = %g (a kink)", k, bend / dt, at);
        free(v);
        ng_graph_free(g);
    }
    free(z);
}

/* Axis y in 2D; axis z refuses a 2D render with an error naming the node
 * and 3D (it would otherwise be a constant). */
static void test_profile_axes_and_dimensions(void)
{
    ng_graph *g = ng_graph_new();
    int py = profile(g, "stratus", 0, 64, "y", NULL, 0), pz = profile(g, "stratus", 0, 64, "z", NULL, 0);
    ng_render_opts o;
    float *img, out[4];
    ng_error err;
    int j;
    t_opts(&o, 4, 64);
    img = t_render(g, py, &o);
    CHECK(img != NULL);
    for (j = 0; img && j < 64; j++) { /* row j samples y = j + 0.5: stratus is 1 from 3.2 to 6.4 */
        if (j + 0.5 >= 3.2 && j + 0.5 <= 6.4) CHECKF(img[j * 4] == 1 && img[j * 4 + 3] == 1, "row %d: %g", j, img[j * 4]);
        if (j + 0.5 >= 12.8) CHECKF(img[j * 4] == 0, "row %d: %g", j, img[j * 4]);
    }
    free(img);
    CHECK(ng_render_buffer(g, pz, &o, out, &err) == -1);
    CHECK_CONTAINS(err.msg, "height_profile");
    CHECK_CONTAINS(err.msg, "3D");
    ng_graph_free(g);
}

/* ---- coverage ------------------------------------------------------------------------------ */

/* The brief's use: the share of a volume's voxels that are cloud is the
 * coverage asked, within 0.03, for a fractal noise rendered as a volume of
 * voxels coarser than its finest octave (so the render drops octaves). */
static void test_coverage_is_the_cloudy_share_of_a_volume(void)
{
    static const double asked[] = {0.2, 0.5, 0.8};
    enum { W = 96, H = 96, D = 32 };
    int k;
    for (k = 0; k < 3; k++) {
        ng_graph *g = ng_graph_new();
        int root = coverage(g, fbm_source(g, 24, 7 + k), asked[k], 0.1);
        float *v = render_volume(g, root, W, H, D, 4, 2, 16);
        if (v) {
            const double share = cloudy_share(v, (size_t)W * H * D);
            CHECKF(fabs(share - asked[k]) <= 0.03, "coverage %g: %.4f of the voxels are cloud", asked[k], share);
        }
        free(v);
        ng_graph_free(g);
    }
}

/* The same on image slices of a 3D noise at several heights, and in a 4D
 * render (time), where the estimate samples 4D points. */
static void test_coverage_on_slices_and_4d(void)
{
    static const double zs[] = {-300, 0, 512.5, 4000};
    enum { S = 192 };
    ng_graph *g = ng_graph_new();
    int src = fbm_source(g, 16, 3), root = coverage(g, src, 0.35, 0.3);
    size_t cloud = 0, total = 0;
    int k, dims;
    for (dims = 3; dims <= 4; dims++)
        for (k = 0; k < 4; k++) {
            ng_render_opts o;
            float *img;
            t_opts(&o, S, S);
            o.dims = dims;
            o.z = zs[k];
            o.time = 100.0 * k;
            img = t_render(g, root, &o);
            CHECK(img != NULL);
            if (img) cloud += (size_t)(cloudy_share(img, (size_t)S * S) * S * S + 0.5), total += (size_t)S * S;
            free(img);
        }
    CHECKF(total && fabs((double)cloud / (double)total - 0.35) <= 0.03, "%.4f cloudy over the slices",
           (double)cloud / (double)total);
    ng_graph_free(g);
}

/* coverage 0 is no cloud at all; the output is always in [0, 1], exactly 0
 * outside the cloud, and does not depend on the source's units: a source
 * scaled and shifted gives the same clouds. */
static void test_coverage_range_and_units(void)
{
    enum { S = 128 };
    ng_graph *g = ng_graph_new();
    int src = fbm_source(g, 20, 11);
    int scaled = t_bin(g, "add", t_bin(g, "mul", src, t_const(g, 37.5)), t_const(g, -12));
    int a = coverage(g, src, 0.6, 0.25), b = coverage(g, scaled, 0.6, 0.25), none = coverage(g, src, 0, 0.25);
    ng_render_opts o;
    float *va, *vb, *vn;
    int i, zeros = 0, worst = 0;
    double diff = 0;
    t_opts(&o, S, S);
    va = t_render(g, a, &o), vb = t_render(g, b, &o), vn = t_render(g, none, &o);
    CHECK(va && vb && vn);
    for (i = 0; va && vb && vn && i < S * S; i++) {
        CHECKF(va[i] >= 0 && va[i] <= 1, "pixel %d: %g", i, va[i]);
        CHECKF(vn[i] == 0, "coverage 0, pixel %d: %g", i, vn[i]);
        zeros += va[i] == 0;
        if (fabs((double)va[i] - vb[i]) > diff) diff = fabs((double)va[i] - vb[i]), worst = i;
    }
    CHECKF(zeros > S * S / 5, "only %d pixels are exactly 0", zeros);
    CHECKF(diff < 1e-4, "scaled source differs by %g at pixel %d", diff, worst);
    free(va), free(vb), free(vn);
    ng_graph_free(g);
}

/* The documented formula, on a source whose distribution is known: x / 65536
 * over the estimate's 65536-wide cube is uniform in [0, 1), so q is about
 * 1 - coverage and hi about 1. Softness 0 is the linear remap; softness s
 * eases the first s of the range quadratically and is divided by 1 - s/2. */
static void test_coverage_formula(void)
{
    static const double soft[] = {0, 0.4};
    enum { N = 64 };
    const double cov = 0.25, q = 1 - cov;
    double xs[N], ys[N];
    const double *pts[2] = {xs, ys};
    int k, i;
    for (i = 0; i < N; i++) xs[i] = 65536.0 * (0.5 + 0.5 * i / (N - 1)), ys[i] = 10;
    for (k = 0; k < 2; k++) {
        ng_graph *g = ng_graph_new();
        int src = t_bin(g, "mul", t_finish(g, t_begin(g, "x")), t_const(g, 1.0 / 65536));
        int root = coverage(g, src, cov, soft[k]);
        float out[N];
        ng_error err;
        CHECK(ng_eval_points(g, root, 2, pts, N, out, &err) == 0);
        for (i = 0; i < N; i++) {
            const double v = xs[i] / 65536, s = soft[k], t = (v - q) / (1 - q);
            const double want = v <= q ? 0 : (t < s ? t * t / (2 * s) : t - s / 2) / (1 - s / 2);
            CHECKF(fabs(out[i] - want) <= 4e-3, "softness %g, source %g: %g, documented %g", s, v, out[i], want);
        }
        ng_graph_free(g);
    }
}

/* The graph of test_coverage_bit_identical, new for each render so that
 * nothing one render measured is reused by the next. */
static ng_graph *identity_graph(int *root)
{
    ng_graph *g = ng_graph_new();
    *root = coverage(g, fbm_source(g, 12, 5), 0.45, 0.2);
    return g;
}

/* The threshold is one number for the whole render: the same bits for any
 * thread count and brick size, and a region of an image is the same
 * pixels as in the whole image (a threshold taken from the first block
 * evaluated would differ between all of these). */
static void test_coverage_bit_identical(void)
{
    enum { W = 48, H = 40, D = 24, S = 160 };
    int root;
    ng_graph *g1 = identity_graph(&root), *g2 = identity_graph(&root), *g3 = identity_graph(&root),
             *g4 = identity_graph(&root);
    float *one = render_volume(g1, root, W, H, D, 3, 1, 8);
    float *many = render_volume(g2, root, W, H, D, 3, 4, 16);
    float *img, *part;
    ng_render_opts o;
    int j;
    CHECK(one && many && memcmp(one, many, (size_t)W * H * D * sizeof(float)) == 0);
    free(one), free(many);
    t_opts(&o, S, S);
    o.dims = 3;
    o.threads = 3;
    o.tile = 16;
    img = t_render(g3, root, &o);
    o.threads = 1;
    o.tile = 64;
    o.region[0] = 70, o.region[1] = 90, o.region[2] = 50, o.region[3] = 30;
    part = t_render(g4, root, &o);
    CHECK(img && part);
    for (j = 0; img && part && j < 30; j++)
        CHECKF(memcmp(part + j * 50, img + (size_t)(90 + j) * S + 70, 50 * sizeof(float)) == 0, "region row %d differs", j);
    free(img), free(part);
    ng_graph_free(g1), ng_graph_free(g2), ng_graph_free(g3), ng_graph_free(g4);
}

/* ---- erode ----------------------------------------------------------------------------------- */

/* Erosion only removes density: out <= source, 0 where the source is 0,
 * the source itself where the detail is 0, and some density really goes
 * (amount a node here, the hybrid input). */
static void test_erode_only_removes(void)
{
    enum { S = 128 };
    ng_graph *g = ng_graph_new();
    /* sources with exact zeros: max(0, noise) */
    int base = t_bin(g, "max", unit_noise(g, "perlin", 24, 1), t_const(g, 0.45));
    int base0 = t_bin(g, "sub", base, t_const(g, 0.45));
    int detail = t_bin(g, "sub", t_bin(g, "max", unit_noise(g, "worley", 8, 2), t_const(g, 0.3)), t_const(g, 0.3));
    int amount = t_bin(g, "mul", unit_noise(g, "value", 40, 3), t_const(g, 1.5));
    int root = erode(g, base0, detail, amount), flat = erode(g, base0, detail, t_const(g, 0.5));
    ng_render_opts o;
    float *src, *det, *out, *out2;
    int i, zero_src = 0, zero_det = 0, eroded = 0;
    t_opts(&o, S, S);
    src = t_render(g, base0, &o), det = t_render(g, detail, &o), out = t_render(g, root, &o), out2 = t_render(g, flat, &o);
    CHECK(src && det && out && out2);
    for (i = 0; src && det && out && out2 && i < S * S; i++) {
        CHECKF(out[i] <= src[i] && out2[i] <= src[i], "pixel %d: %g, %g from %g", i, out[i], out2[i], src[i]);
        CHECKF(out[i] >= 0, "pixel %d: %g", i, out[i]);
        if (src[i] == 0) {
            zero_src++;
            CHECKF(out[i] == 0, "pixel %d: %g from 0", i, out[i]);
        }
        if (det[i] == 0) {
            zero_det++;
            CHECKF(out[i] == src[i], "pixel %d: %g from %g, detail 0", i, out[i], src[i]);
        }
        eroded += src[i] > 0 && out2[i] < src[i] - 0.01f;
    }
    CHECKF(zero_src > S * S / 10 && zero_det > S * S / 10, "%d zero sources, %d zero details", zero_src, zero_det);
    CHECKF(eroded > S * S / 20, "only %d pixels lost density", eroded);
    free(src), free(det), free(out), free(out2);
    ng_graph_free(g);
}

/* The documented formula at constant inputs: with a = amount * detail
 * (detail and a clamped to [0, 1]), (source - a) / (1 - a) above a, else 0;
 * sources at or above 1 pass unchanged. */
static void test_erode_formula(void)
{
    static const double cases[][4] = {
        /* source, detail, amount, documented */
        {0.8, 0.5, 0.4, 0.75},   {0.3, 0.5, 0.4, 0.125}, {0.2, 0.5, 0.4, 0},   {0.1, 0.5, 0.4, 0},
        {0.9, 0, 0.7, 0.9},      {0.9, -0.5, 0.7, 0.9},  {0.6, 2, 0.5, 0.2},   {0.99, 0.5, 3, 0},
        {1.3, 1, 1, 1.3},        {-0.2, 0, 0.5, 0},      {0.5, 1, -2, 0.5},    {1, 0.9, 1, 1},
    };
    const double zero = 0, *pts[1] = {&zero};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ng_graph *g = ng_graph_new();
        int root = erode(g, t_const(g, cases[k][0]), t_const(g, cases[k][1]), t_const(g, cases[k][2]));
        float out = -1;
        ng_error err;
        CHECK(ng_eval_points(g, root, 1, pts, 1, &out, &err) == 0);
        CHECKF(fabs(out - cases[k][3]) <= 1e-6, "source %g, detail %g, amount %g: %.9g, documented %g", cases[k][0],
               cases[k][1], cases[k][2], out, cases[k][3]);
        ng_graph_free(g);
    }
}

/* ---- the command line -------------------------------------------------------------------------- */

/* Each bad option is one line on stderr naming the script line, the node
 * and what is wrong, exit 1, and no image. */
static void test_bad_options_are_one_line_errors(void)
{
    static const struct {
        const char *script, *needle1, *needle2;
    } bad[] = {
        {"return ng.height_profile{bottom = 500, top = 100}", "height_profile", "bottom (500) must be below top (100)"},
        {"return ng.height_profile{bottom = 5, top = 5}", "height_profile", "below top"},
        {"return ng.height_profile{shape = \"custom\", curve = {{0.5, 1}, {0.3, 0}}}", "curve point 2",
         "t must increase"},
        {"return ng.height_profile{shape = \"custom\", curve = {{0, 0.5}, {0.5, 1}}}", "curve point 1",
         "0 at the layer's bottom"},
        {"return ng.height_profile{shape = \"custom\", curve = {{0.5, 1}, {1, 0.2}}}", "curve point 2",
         "0 at the layer's top"},
        {"return ng.height_profile{shape = \"custom\", curve = {{0.5, 1.5}}}", "curve", "0 to 1"},
        {"return ng.height_profile{shape = \"custom\"}", "height_profile", "needs curve"},
        {"return ng.height_profile{curve = {{0.5, 1}}}", "height_profile", "curve is for shape = \"custom\""},
        {"return ng.height_profile{shape = \"cirrus\"}", "shape", "\"stratocumulus\""},
        {"return ng.height_profile{axis = \"w\"}", "axis", "\"z\""},
        {"return ng.coverage{source = ng.perlin{}, coverage = 1.5}", "coverage", "0 to 1"},
        {"return ng.coverage{source = ng.perlin{}, softness = -1}", "softness", "0 to 1"},
        {"return ng.coverage{source = ng.perlin{output = \"vector\"}}", "coverage", "1 channel"},
        {"return ng.erode{source = ng.perlin{}, detail = ng.perlin{}, amont = 1}", "erode", "amount"},
        {"return ng.erode{source = ng.perlin{}}", "erode", "detail"},
    };
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char script[PATHLEN], out[PATHLEN], name[32];
        res r;
        snprintf(name, sizeof name, "bad%zu.lua", k);
        mkscript(script, name, bad[k].script);
        tpath(out, "bad.png");
        cli(&r, "render", script, "-o", out, "--size", "16", "--z", "1", NULL);
        EXPECT_ERR(&r, 1, at(script, 1), bad[k].needle1, bad[k].needle2);
        CHECKF(!exists(out), "case %zu wrote %s", k, out);
        res_free(&r);
    }
}

/* Axis z in a 2D render: refused before anything is written, naming the
 * node and the dimensions it needs. */
static void test_profile_z_in_2d_is_an_error(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    mkscript(script, "flat.lua", "local n = ng.perlin{}\nreturn n * ng.height_profile{top = 64}\n");
    tpath(out, "flat.png");
    cli(&r, "render", script, "-o", out, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(script, 2), "height_profile", "3D", "2D");
    CHECK(!exists(out));
    res_free(&r);
}

static void test_cloudshape_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository (run `make test`)");
}

NG_SUITE(cloudshape, fast)
{
    RUN(test_profile_zero_outside_its_layer);
    RUN(test_profile_exact_ends);
    RUN(test_profile_maximum_where_documented);
    RUN(test_profile_is_smooth);
    RUN(test_profile_axes_and_dimensions);
    RUN(test_coverage_is_the_cloudy_share_of_a_volume);
    RUN(test_coverage_on_slices_and_4d);
    RUN(test_coverage_range_and_units);
    RUN(test_coverage_formula);
    RUN(test_coverage_bit_identical);
    RUN(test_erode_only_removes);
    RUN(test_erode_formula);
    if (cli_setup("ngcloud")) {
        RUN(test_cloudshape_environment);
        return;
    }
    RUN(test_bad_options_are_one_line_errors);
    RUN(test_profile_z_in_2d_is_an_error);
    cli_teardown();
}
