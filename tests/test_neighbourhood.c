/*
 * test_neighbourhood.c — neighbourhood nodes (ng.blur, the grid shading of
 * ng.light / slope / normal, curvature, drainage, mask_distance, cavity
 * and the erosion filter's grid on the engine's world-aligned lattice,
 * core/hood.c): the value at a
 * world point does not depend on how a render is cut. Every region, tile size and thread count
 * gives the bits of the whole render, at the origin and at 1e9, under a
 * warp and a fractal, for a blur of a blur; the CLI's --region and a
 * `tiles` run stitched equal the single render, and every SIMD path gives
 * the same bytes; the patch cache stays within --memory-limit and serves
 * later renders of the graph; patch memory kept for reuse leaks nothing
 * into later patches and stays bounded; a footprint too large and a volume render
 * are one clear error; a blur keeps a constant and lowers a noise's
 * variance.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_internal.h"
#include "hood_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 150, H = 110 };

/* ng.blur{source, radius, spacing} (spacing 0: the default). */
static int blur(ng_graph *g, int source, double radius, double spacing)
{
    ng_node *n = t_on(g, "blur", source);
    t_set(n, "radius", radius);
    if (spacing > 0) t_set(n, "spacing", spacing);
    return t_finish_ok(g, n);
}

static int fbm_noise(ng_graph *g, int seed)
{
    return t_fbm(g, t_noise(g, "perlin", 24, seed), 5, 2, 0.5);
}

/* A terrain mask of src: type with one option set (name NULL: none). */
static int mask(ng_graph *g, const char *type, int src, const char *name, double v)
{
    ng_node *n = t_on(g, type, src);
    if (name) t_set(n, name, v);
    return t_finish_ok(g, n);
}

/* The graphs under test: a blur; a warp of a blur (positions off the
 * grid); a fractal of blurs (scaled positions, a seed per octave); a blur
 * of a blur (halos adding up); the default (grid) hillshade on the
 * render's pixel lattice, under a warp, and of a blur (a pixel lattice
 * over a world one); slope in a fractal (the pixel lattice of each
 * octave's footprint); curvature, drainage, mask distance and cavity; the
 * erosion filter (its grid: gullies computed on the pixel lattice), and
 * under a warp. */
enum {
    G_BLUR, G_WARPED, G_FRACTAL, G_NESTED, G_LIGHT, G_LIGHT_KEPT, G_LIGHT_WORLD, G_LIGHT_WARPED, G_LIGHT_OF_BLUR,
    G_SLOPE_FRACTAL, G_CURVATURE, G_DRAINAGE, G_DISTANCE, G_CAVITY, G_EROSION, G_EROSION_WARPED, NGRAPHS
};
static const char *const graph_names[NGRAPHS] = {
    "blur", "warp of a blur", "fractal of a blur", "blur of a blur", "light (grid)",
    "height times its light (the height read back from the lattice)", "light (grid, world anchors)",
    "warp of a light", "light of a blur", "fractal of a slope", "curvature", "drainage", "mask_distance", "cavity",
    "erosion_filter (grid)", "warp of an erosion_filter"};

/* ng.light{src, height = 40} with its lattice's anchors (NULL: the default). */
static int light(ng_graph *g, int src, const char *anchor)
{
    ng_node *n = t_on(g, "light", src);
    t_set(n, "height", 40);
    if (anchor) t_choose(n, "anchor", anchor);
    return t_finish_ok(g, n);
}

static int make_graph(ng_graph *g, int which)
{
    const int src = fbm_noise(g, 7);
    switch (which) {
    case G_BLUR: return blur(g, src, 6, 0);
    case G_WARPED: return t_warp(g, blur(g, src, 5, 1), t_vnoise(g, "perlin", 40, 3), 17);
    case G_FRACTAL: return t_fbm(g, blur(g, t_noise(g, "simplex", 30, 2), 9, 0), 3, 2, 0.5);
    case G_NESTED: return blur(g, blur(g, src, 4, 1.5), 7, 2);
    case G_LIGHT: return mask(g, "light", src, "height", 40);
    case G_LIGHT_KEPT: return t_bin(g, "mul", src, light(g, src, NULL));
    case G_LIGHT_WORLD: return light(g, src, "world");
    case G_LIGHT_WARPED: return t_warp(g, mask(g, "light", src, "height", 40), t_vnoise(g, "perlin", 40, 3), 17);
    case G_LIGHT_OF_BLUR: return mask(g, "light", blur(g, src, 5, 1), "height", 60);
    case G_SLOPE_FRACTAL: return t_fbm(g, mask(g, "slope", t_noise(g, "simplex", 30, 2), "height", 20), 3, 2, 0.5);
    case G_CURVATURE: return mask(g, "curvature", src, "spacing", 3);
    case G_DRAINAGE: return mask(g, "drainage", src, "radius", 12);
    case G_DISTANCE: return mask(g, "mask_distance", src, "threshold", 0.2);
    case G_CAVITY: return mask(g, "cavity", src, "radius", 10);
    case G_EROSION: return mask(g, "erosion_filter", src, "scale", 20);
    default: return t_warp(g, mask(g, "erosion_filter", src, "scale", 20), t_vnoise(g, "perlin", 40, 3), 17);
    }
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* Every cut of every graph at origin `at`: tile sizes 8, 16 and 64 on 1, 2
 * and 3 threads, and regions (aligned to nothing), each the whole
 * render's samples; the masks and shadings (the lattice code they share
 * is the blur's), and every graph under the sanitizers, take tile 8 on 1
 * thread, 64 on 3, and two regions. */
static void cuts_at(double at)
{
    static const t_cut every[] = {{8, 1, 0, {0}},
                                  {8, 2, 0, {0}},
                                  {8, 3, 0, {0}},
                                  {16, 1, 0, {0}},
                                  {16, 2, 0, {0}},
                                  {16, 3, 0, {0}},
                                  {64, 1, 0, {0}},
                                  {64, 2, 0, {0}},
                                  {64, 3, 0, {0}},
                                  {8, 1, 0, {0, 0, 37, 29}},
                                  {16, 2, 0, {41, 13, 70, 90}},
                                  {8, 3, 0, {149, 0, 1, 110}},
                                  {16, 1, 0, {63, 63, 66, 47}}},
                       few[] = {{8, 1, 0, {0}}, {64, 3, 0, {0}}, {16, 2, 0, {41, 13, 70, 90}}, {16, 1, 0, {63, 63, 66, 47}}};
    int which;
    for (which = 0; which < NGRAPHS; which++) {
        /* far away under the sanitizers: the nested, kept-height and warped
         * lattices alone (the same code as at the origin; the precision
         * there is the optimised run's to check: 45 s of 100 under SAN) */
        if (SANITIZED && at != 0 && which != G_NESTED && which != G_LIGHT_KEPT && which != G_EROSION_WARPED) continue;
        if (SANITIZED || which >= G_LIGHT) t_cuts_equal(make_graph, which, graph_names[which], 1, W, H, at, few,
                                                        sizeof few / sizeof few[0]);
        else t_cuts_equal(make_graph, which, graph_names[which], 1, W, H, at, every, sizeof every / sizeof every[0]);
    }
}

static void test_cuts_at_origin(void) { cuts_at(0); }
static void test_cuts_far_away(void) { cuts_at(1e9); }

/* A blur's value at a world point is a function of the point: asked at the
 * render's pixel centres one by one (ng_eval_points, another anchor and
 * block per point), it gives the render's bits. */
static void test_value_is_a_function_of_the_point(void)
{
    ng_graph *g = ng_graph_new();
    t_pointwise_equal(g, make_graph(g, G_NESTED), W, H, 1e9, 3e8);
    ng_graph_free(g);
}

/* A blur of a constant is that constant, exactly; of a noise it keeps the
 * mean and lowers the variance (a radius of the feature size: below a
 * third), more for a larger radius and again for a blur of the blur. */
static void test_constant_and_variance(void)
{
    ng_graph *g = ng_graph_new();
    const int k = blur(g, t_const(g, 0.3125), 5, 0), k2 = blur(g, t_const(g, -7.1), 3, 0.7);
    const int src = t_noise(g, "perlin", 16, 4), b1 = blur(g, src, 16, 0), b2 = blur(g, src, 48, 0);
    const int bb = blur(g, b1, 16, 0);
    const int roots[] = {src, b1, b2, bb};
    double var[4], mean[4];
    ng_render_opts o;
    float *v;
    int i, r;
    t_opts(&o, 256, 256);
    o.origin[0] = -77.25;
    v = t_render(g, k, &o);
    for (i = 0; v && i < 256 * 256; i++)
        if (v[i] != 0.3125f) break;
    CHECKF(v && i == 256 * 256, "blur of 0.3125: %.9g at %d", v ? v[i] : 0.0, i);
    free(v);
    v = t_render(g, k2, &o);
    for (i = 0; v && i < 256 * 256; i++)
        if (v[i] != -7.1f) break;
    CHECKF(v && i == 256 * 256, "blur of -7.1: %.9g at %d", v ? v[i] : 0.0, i);
    free(v);
    for (r = 0; r < 4; r++) {
        double s = 0, s2 = 0;
        v = t_render(g, roots[r], &o);
        for (i = 0; v && i < 256 * 256; i++) s += v[i], s2 += (double)v[i] * v[i];
        mean[r] = s / (256 * 256);
        var[r] = s2 / (256 * 256) - mean[r] * mean[r];
        free(v);
    }
    CHECK(var[0] > 0.01);
    CHECK_LE(var[1], var[0] * 0.35); /* measured 0.24 */
    CHECK_LE(var[2], var[1] * 0.2);  /* 0.044 */
    CHECK_LE(var[3], var[1] * 0.7);  /* 0.47 */
    CHECK_NEAR(mean[1], mean[0], 0.05);
    ng_graph_free(g);
}

/* A render through a small memory limit evicts patches and never holds more
 * than the cache's share of it, with the same bits as one that keeps them
 * all; a render of one patch's worth keeps what it computed. */
static void test_cache_within_memory_limit(void)
{
    ng_graph *g = ng_graph_new();
    const int root = blur(g, t_noise(g, "perlin", 8, 3), 4, 0.25); /* 16 px per patch edge: 256 of 256^2 */
    ng_render_opts o;
    ng__hood_stats st;
    float *a, *b;
    t_opts(&o, 256, 256);
    o.threads = 2;
    a = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECK(st.computed >= 256);
    CHECK_INT(st.evicted, 0);
    o.memory_limit = 6.0 * 1048576;
    b = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECK(a && b && same_bits(a, b, 256 * 256));
    CHECK(st.evicted > 0);
    CHECK_LE(st.peak, st.cap);
    CHECK_LE(st.cap, o.memory_limit / 2);
    free(a), free(b);
    ng_graph_free(g);
}

/* Under --tileable the grid shading's lattice must repeat with the
 * image: the render's pixels do (the image shifted by its own width and
 * height is the same, bit for bit), and so does a spacing that divides
 * them (the same to float rounding: its world-anchored patches evaluate
 * the periodic source from other anchors, 8e-6 apart at most here);
 * another spacing would leave a seam and is refused, naming the node and
 * the spacing. */
static void test_tileable_grid_lattice_wraps(void)
{
    static const double spacings[] = {0, 2, 7};
    size_t q;
    for (q = 0; q < sizeof spacings / sizeof spacings[0]; q++) {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_on(g, "slope", fbm_noise(g, 9));
        ng_render_opts o;
        ng_error err;
        float *a, *b = NULL;
        int root, i, bad = 0;
        if (spacings[q] > 0) t_set(n, "spacing", spacings[q]);
        root = t_finish_ok(g, n);
        t_opts(&o, 64, 48);
        o.tileable = 1;
        if (spacings[q] == 7) {
            float *buf = malloc((size_t)64 * 48 * sizeof *buf);
            CHECK(buf && ng_render_buffer(g, root, &o, buf, &err) != 0);
            CHECK_CONTAINS(err.msg, "slope: a --tileable render needs a lattice that wraps");
            CHECK_CONTAINS(err.msg, "spacing 7");
            free(buf);
            ng_graph_free(g);
            continue;
        }
        a = t_render(g, root, &o);
        o.origin[0] = 64, o.origin[1] = -48;
        b = t_render(g, root, &o);
        for (i = 0; a && b && i < 64 * 48; i++)
            bad += spacings[q] > 0 ? !(fabsf(a[i] - b[i]) <= 1e-4f) : !same_bits(a + i, b + i, 1);
        CHECKF(a && b && bad == 0, "spacing %g: %d samples differ one period on", spacings[q], bad);
        free(a), free(b);
        ng_graph_free(g);
    }
}

/* ng.normalize (and --normalize) measures its source at 4096 fixed
 * points; over a neighbourhood node they lie close together (a grid around
 * the origin), so the measure costs a few patches, where 4096 scattered
 * places took one each (a drainage or hydraulic source ran for minutes).
 * The levels are still the same for every cut: a region gives the
 * whole render's bits. */
static void test_normalize_probes_few_patches(void)
{
    ng_graph *g = ng_graph_new();
    const int root = t_finish_ok(g, t_on(g, "normalize", blur(g, fbm_noise(g, 3), 4, 0)));
    ng_render_opts o;
    ng__hood_stats st;
    float *a, *b;
    int i, bad = 0;
    t_opts(&o, 64, 64);
    a = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECKF(st.computed > 0 && st.computed <= 32, "%ld patches computed for a 64^2 render and its measure",
           st.computed);
    for (i = 0; a && i < 64 * 64; i++) bad += !(a[i] >= 0.0f && a[i] <= 1.0f);
    CHECK_INT(bad, 0);
    ng_graph_free(g);
    g = ng_graph_new(); /* a fresh cache: the region measures again */
    t_finish_ok(g, t_on(g, "normalize", blur(g, fbm_noise(g, 3), 4, 0)));
    t_opts(&o, 32, 16);
    o.origin[0] = 16, o.origin[1] = 40;
    b = t_render(g, root, &o);
    for (i = 0, bad = 0; a && b && i < 16; i++) bad += !same_bits(b + (size_t)i * 32, a + (size_t)(40 + i) * 64 + 16, 32);
    CHECKF(a && b && bad == 0, "%d rows of a region differ from the whole render's", bad);
    free(a), free(b);
    ng_graph_free(g);
}

/* The graph keeps its patches from render to render: the same render
 * again (on other threads), or a region of it, computes none and gives the
 * same bits. */
static void test_patches_kept_between_renders(void)
{
    ng_graph *g = ng_graph_new();
    const int root = make_graph(g, G_NESTED);
    ng_render_opts o;
    ng__hood_stats st;
    float *a, *b;
    t_opts(&o, W, H);
    o.origin[0] = 5e8;
    a = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECK(st.computed > 0);
    o.threads = 3;
    b = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECK_INT(st.computed, 0);
    CHECK(st.hits > 0);
    CHECK(a && b && same_bits(a, b, (size_t)W * H));
    free(b);
    o.region[0] = 20, o.region[1] = 30, o.region[2] = 50, o.region[3] = 40;
    b = t_render(g, root, &o);
    ng__hood_last_stats(&st);
    CHECK_INT(st.computed, 0);
    CHECK(a && b && t_crop_equal(a, W, b, 1, o.region));
    free(a), free(b);
    ng_graph_free(g);
}

/* Patch memory is kept for reuse (core/slab.c): every graph rendered again
 * by a graph of its own takes back the chunks the first render freed,
 * each slot filled with NaN before its patch is computed (scribble), and
 * gives the bits of the first render, whose chunks were fresh (zeros): no
 * patch reads a cell it did not write, so nothing of an earlier patch
 * leaks into a later one. Under the sanitizers, three graphs: a world
 * lattice, the pixel lattice keeping the height, the erosion filter's. */
static void test_patch_memory_reused(void)
{
    ng_render_opts o;
    long used = 0;
    int which;
    t_opts(&o, W, H);
    o.threads = 2;
    for (which = 0; which < NGRAPHS; which++) {
        long chunks = 0;
        if (SANITIZED && which != G_BLUR && which != G_LIGHT_KEPT && which != G_EROSION) continue;
        CHECKF(t_same_in_reused_memory(make_graph, which, &o, (size_t)W * H, &chunks),
               "%s: a render in reused patch memory differs, or mapped memory of its own", graph_names[which]);
        used += chunks;
    }
    CHECK(used > 0); /* the shadings' patches take chunks */
}

/* A grid shading of perlin noise rendered with o by graph g, on the
 * pixel lattice (spacing 0: its patches sized to the image) or on a world
 * lattice of that spacing (patches of 259^2 floats, in pooled chunks: 16
 * of them at 1024^2); g freed unless kept. */
static float *shading(ng_graph *g, const ng_render_opts *o, int keep, double spacing)
{
    ng_node *n = t_on(g, "light", t_noise(g, "perlin", 24, 7));
    float *v;
    t_set(n, "height", 40);
    if (spacing > 0) t_set(n, "spacing", spacing);
    v = t_render(g, t_finish_ok(g, n), o);
    if (!keep) ng_graph_free(g);
    return v;
}

/* The height times shading()'s light of it: the height kept in the
 * light's patches (ng__hood_mark_kept). */
static float *shaded_height(ng_graph *g, const ng_render_opts *o)
{
    const int h = t_noise(g, "perlin", 24, 7);
    ng_node *n = t_on(g, "light", h);
    t_set(n, "height", 40);
    return t_render(g, t_bin(g, "mul", h, t_finish_ok(g, n)), o);
}

/* The pool of idle patch memory is bounded: by its cap (one chunk here)
 * when a graph frees its patches, and during a render under a memory
 * limit, which gives idle chunks back as its patches grow (the counted
 * bytes and the idle ones within the limit), with the bits of a render
 * without. */
static void test_patch_memory_bounded(void)
{
    enum { EDGE = 1024 };
    const size_t small = (size_t)4 << 20, limit = (size_t)7 << 20;
    size_t cap;
    ng__hood_stats st;
    ng_render_opts o;
    float *a, *b;
    ng_graph *g;
    t_opts(&o, EDGE, EDGE);
    o.threads = 2;
    ng__slab_trim(0);
    cap = ng__slab_pool_cap(small);
    a = shading(ng_graph_new(), &o, 0, o.pixel_size);
    CHECK_LE(ng__slab_idle(), small);
    CHECK(ng__slab_idle() > 0);
    ng__slab_pool_cap(cap);
    free(shading(ng_graph_new(), &o, 0, o.pixel_size));
    CHECK(ng__slab_idle() > limit);
    o.memory_limit = (double)limit;
    o.threads = 1;
    ng__slab_scribble(1); /* the patches it evicts make room for others in their memory */
    b = shading(g = ng_graph_new(), &o, 1, o.pixel_size);
    ng__slab_scribble(0);
    ng__hood_last_stats(&st);
    CHECK(st.evicted > 0);
    CHECK_LE(ng__slab_idle(), limit);
    CHECK(a && b && same_bits(a, b, (size_t)EDGE * EDGE));
    ng_graph_free(g);
    free(a), free(b);
}

/* The grid shading's source: in strips of NG_HOOD_STRIP_ROWS rows of the
 * image's columns (and the light's radius of 1 each side), from one row
 * above the image's first to one below its last, at any origin on its
 * pixel grid: (rows + 2) / 32 of them, no cell evaluated twice. Where the
 * render keeps the height (height * light), in patches that start at the
 * render's corner, wherever its origin is, sized to the image: a 512^2
 * image is one patch (cut at fixed world places into patches of 256, one
 * 128 pixels off took 3 x 3), a 768 x 512 image 3 x 2 of 256, the
 * source evaluated on few more cells than the image has. Either way the
 * bits are those of any cut of it (its strips and patches start at the
 * cut's corner, sized to the cut). */
static void test_patches_start_at_the_render_corner(void)
{
    static const double origins[][2] = {{0, 0}, {128, -128}, {77, 3e5 + 31}};
    static const int sizes[][3] = {{512, 512, 1}, {768, 512, 6}, {300, 200, 6}};
    const int region[4] = {20, 130, 250, 60};
    size_t k, z;
    int kept;
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (k = 0; k < sizeof origins / sizeof origins[0]; k++)
            for (kept = 0; kept < 2; kept++) {
                const long want = kept ? sizes[z][2] : (sizes[z][1] + 2 + NG_HOOD_STRIP_ROWS - 1) / NG_HOOD_STRIP_ROWS;
                ng_render_opts o;
                ng__hood_stats st;
                ng_graph *g = ng_graph_new();
                float *whole, *cut;
                t_opts(&o, sizes[z][0], sizes[z][1]);
                o.origin[0] = origins[k][0] * o.pixel_size, o.origin[1] = origins[k][1] * o.pixel_size;
                whole = kept ? shaded_height(g, &o) : shading(g, &o, 1, 0);
                ng__hood_last_stats(&st);
                CHECKF(st.computed == want, "%dx%d at origin (%g, %g) px%s: %ld %s computed, not %ld", sizes[z][0],
                       sizes[z][1], origins[k][0], origins[k][1], kept ? ", the height kept" : "", st.computed,
                       kept ? "patches" : "strips", want);
                ng_graph_free(g);
                memcpy(o.region, region, sizeof o.region);
                g = ng_graph_new();
                cut = kept ? shaded_height(g, &o) : shading(g, &o, 1, 0);
                ng_graph_free(g);
                CHECKF(whole && cut && t_crop_equal(whole, sizes[z][0], cut, 1, o.region),
                       "%dx%d at origin (%g, %g) px%s: a region differs", sizes[z][0], sizes[z][1], origins[k][0],
                       origins[k][1], kept ? ", the height kept" : "");
                free(whole), free(cut);
            }
}

/* Two shadings of two heights in one render, on 1, 2 and 3 threads and
 * tiles of 8 and 64: each strip of each height computed once (a strip
 * left behind is dropped for its own node's next, never another's:
 * trim_strips), and the bits of the two rendered alone, summed. */
static void test_strips_computed_once(void)
{
    static const int cuts[][2] = {{64, 1}, {8, 2}, {64, 3}};
    size_t c;
    for (c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        ng_graph *g = ng_graph_new(), *g1 = ng_graph_new(), *g2 = ng_graph_new();
        const int both = t_bin(g, "add", mask(g, "light", fbm_noise(g, 7), "height", 40),
                               mask(g, "slope", t_noise(g, "simplex", 30, 2), "height", 20));
        const int one = mask(g1, "light", fbm_noise(g1, 7), "height", 40);
        const int two = mask(g2, "slope", t_noise(g2, "simplex", 30, 2), "height", 20);
        const long want = 2 * ((H + 2 + NG_HOOD_STRIP_ROWS - 1) / NG_HOOD_STRIP_ROWS);
        ng_render_opts o;
        ng__hood_stats st;
        float *p, *a, *b;
        int i;
        t_opts(&o, W, H);
        o.tile = cuts[c][0], o.threads = cuts[c][1];
        p = t_render(g, both, &o);
        ng__hood_last_stats(&st);
        a = t_render(g1, one, &o);
        b = t_render(g2, two, &o);
        CHECKF(st.computed == want, "tile %d, %d threads: %ld strips computed, not %ld", cuts[c][0], cuts[c][1],
               st.computed, want);
        for (i = 0; p && a && b && i < W * H; i++) {
            const float sum = a[i] + b[i];
            if (memcmp(&sum, &p[i], sizeof sum)) break;
        }
        CHECKF(p && a && b && i == W * H, "tile %d, %d threads: pixel %d is not the sum of the two shadings",
               cuts[c][0], cuts[c][1], i);
        free(p), free(a), free(b);
        ng_graph_free(g), ng_graph_free(g1), ng_graph_free(g2);
    }
}

/* Under a memory limit that leaves the neighbourhood cache less than a
 * segment of strips on every thread (an image 4096 pixels wide, 10 MiB),
 * the shading takes its patches, which the render's check counted, and
 * gives the bits of the render without a limit, which took strips. */
static void test_strips_give_way_to_patches(void)
{
    enum { WIDE = 4096, ROWS = 48 };
    ng_render_opts o;
    ng__hood_stats st;
    long strips;
    float *a, *b;
    t_opts(&o, WIDE, ROWS);
    o.threads = 2;
    a = shading(ng_graph_new(), &o, 0, 0);
    ng__hood_last_stats(&st);
    strips = st.computed;
    o.memory_limit = 10.0 * 1048576;
    b = shading(ng_graph_new(), &o, 0, 0);
    ng__hood_last_stats(&st);
    CHECKF(strips == (ROWS + 2 + NG_HOOD_STRIP_ROWS - 1) / NG_HOOD_STRIP_ROWS, "%ld strips without a limit", strips);
    CHECKF(st.computed > 0 && st.computed != strips && st.peak <= st.cap, "under the limit: %ld computed, peak %zu of %zu",
           st.computed, st.peak, st.cap);
    CHECK(a && b && same_bits(a, b, (size_t)WIDE * ROWS));
    free(a), free(b);
}

/* A height the render shows and shades (terrain_colour.lua's idiom) is
 * read back from the light's lattice, whose cells on the pixels are the
 * pixels' own samples: height * light is the product of the height and
 * the light rendered alone, bit for bit, at the origin and at 1e9, and
 * the render read it back (with world anchors it cannot: none read). */
static void test_height_read_back_from_the_lattice(void)
{
    static const double origins[] = {0, 1e9};
    size_t k;
    for (k = 0; k < sizeof origins / sizeof origins[0]; k++) {
        const char *anchor[] = {NULL, "world"};
        int a;
        for (a = 0; a < 2; a++) {
            ng_graph *g = ng_graph_new();
            const int src = fbm_noise(g, 7), lit = light(g, src, anchor[a]), both = t_bin(g, "mul", src, lit);
            ng_graph *g1 = ng_graph_new(), *g2 = ng_graph_new();
            const int src1 = fbm_noise(g1, 7), lit2 = light(g2, fbm_noise(g2, 7), anchor[a]);
            ng_render_opts o;
            ng__hood_stats st;
            float *h, *l, *p;
            int i;
            t_opts(&o, W, H);
            o.origin[0] = origins[k];
            o.origin[1] = -origins[k];
            o.tile = 16;
            o.threads = 2;
            p = t_render(g, both, &o);
            ng__hood_last_stats(&st);
            h = t_render(g1, src1, &o);
            l = t_render(g2, lit2, &o);
            CHECK(h && l && p);
            for (i = 0; h && l && p && i < W * H; i++) {
                const float want = h[i] * l[i];
                if (memcmp(&want, &p[i], sizeof want)) break;
            }
            CHECKF(i == W * H, "origin %g, anchors %s: pixel %d is %.9g, the height times the light %.9g",
                   origins[k], anchor[a] ? anchor[a] : "render", i, p ? p[i] : 0.0, h && l ? h[i] * l[i] : 0.0);
            if (anchor[a]) CHECK_INT(st.kept_reads, 0);
            else CHECKF(st.kept_reads >= (W * H + 255) / 256, "origin %g: %ld blocks read back", origins[k],
                        st.kept_reads);
            free(h), free(l), free(p);
            ng_graph_free(g), ng_graph_free(g1), ng_graph_free(g2);
        }
    }
}

/* ---- through the program --------------------------------------------------------------- */

static const char *const SCRIPT = "local n = ng.fbm{ng.perlin{element_size = 20, seed = 5}, octaves = 4}\n"
                                  "local w = ng.warp{ng.blur{n, radius = 6}, by = ng.perlin{element_size = 50, "
                                  "output = \"vector\"}, amount = 12}\n"
                                  "return ng.blur{w, radius = 3, spacing = 1}:fit(-0.6, 0.6, 0, 1, true)\n";

/* PFM rows (bottom to top) as floats; the width and height in *w, *h. */
static float *read_pfm(const char *path, int *w, int *h)
{
    size_t len, need;
    unsigned char *d = slurp(path, &len);
    double scale;
    int at = 0;
    float *px = NULL;
    if (!d) return NULL;
    if (sscanf((char *)d, "Pf %d %d %lf%n", w, h, &scale, &at) == 3 && *w > 0 && *h > 0) {
        need = (size_t)*w * (size_t)*h * sizeof(float);
        if ((size_t)at + 1 + need <= len && (px = malloc(need))) memcpy(px, d + at + 1, need);
    }
    free(d);
    return px;
}

static void test_cli_region_is_crop(void)
{
    char script[PATHLEN], whole[PATHLEN], part[PATHLEN];
    float *a, *b;
    int w = 0, h = 0, rw = 0, rh = 0, j, ok = 1;
    res r;
    mkscript(script, "region.lua", SCRIPT);
    tpath(whole, "whole.pfm");
    tpath(part, "part.pfm");
    cli(&r, "render", script, "-o", whole, "--size", "200x140", "--origin", "1e9,-1e9", "--threads", "3", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", script, "-o", part, "--size", "200x140", "--origin", "1e9,-1e9", "--region", "57,33,101,77",
        "--tile", "8", "--threads", "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    a = read_pfm(whole, &w, &h);
    b = read_pfm(part, &rw, &rh);
    CHECK(a && b && w == 200 && h == 140 && rw == 101 && rh == 77);
    for (j = 0; a && b && ok && j < rh; j++) /* PFM rows run bottom to top */
        ok = same_bits(a + (size_t)(h - 1 - (33 + j)) * w + 57, b + (size_t)(rh - 1 - j) * rw, (size_t)rw);
    CHECKF(ok, "the region differs from the crop of the whole render at its row %d", j - 1);
    free(a), free(b);
}

/* The erosion filter's grid (the default of a 2D render) under farm tiles. */
static const char *const EROSION_SCRIPT = "local h = ng.fbm{ng.perlin{element_size = 60, seed = 5}, octaves = 4}"
                                          ":fit(-0.5, 0.5, 0, 1)\n"
                                          "return ng.erosion_filter{h, scale = 24, masks = true}:channel(1)\n";

/* A `tiles` run of script, stitched, equals the single render. */
static void tiles_stitch_equal_single(const char *text, const char *name)
{
    char script[PATHLEN], dir[PATHLEN], pattern[PATHLEN], manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
    res r;
    mkscript(script, "tiled.lua", text);
    mksub(dir, name);
    pathf(pattern, "%s/t_{x}_{y}.pfm", dir);
    pathf(manifest, "%s/manifest.json", dir);
    tpath(big, "stitched.pfm");
    tpath(single, "single.pfm");
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "96", "-o", pattern, "--quiet", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", big, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", script, "--size", "300x200", "-o", single, "--bits", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECKF(same_bytes(big, single), "%s: the stitched tiles differ from the single render", name);
}

static void test_cli_tiles_stitch_equal_single(void)
{
    tiles_stitch_equal_single(SCRIPT, "farm");
    tiles_stitch_equal_single(EROSION_SCRIPT, "farm-erosion");
}

/* Every SIMD path this CPU runs gives the same bytes (the lattice's source
 * goes through the kernels; the filter and the sampling are plain C). */
static void test_cli_every_simd_path(void)
{
    static const char *const simd[] = {"scalar", "sse2", "avx2", "avx512"};
    char script[PATHLEN], ref[PATHLEN], out[PATHLEN];
    int p, ran = 0;
    res r;
    mkscript(script, "paths.lua", SCRIPT);
    tpath(ref, "native.pfm");
    cli(&r, "render", script, "-o", ref, "--size", "160x96", "--origin", "-3e8,7e8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (p = 0; p < 4; p++) {
        if (!ng_simd_supported(simd[p])) continue;
        pathf(out, "%s/%s.pfm", tmpdir, simd[p]);
        setenv("NG_SIMD", simd[p], 1);
        cli(&r, "render", script, "-o", out, "--size", "160x96", "--origin", "-3e8,7e8", "--threads", "2", NULL);
        unsetenv("NG_SIMD");
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(same_bytes(out, ref), "NG_SIMD=%s differs from the native path", simd[p]);
        ran++;
    }
    CHECK(ran >= 2);
}

/* Too large a footprint: more cells than a neighbourhood reaches (at
 * construction), or a patch with its halo past --memory-limit (before any
 * pixel); each one line naming the node and its radius, nothing written. */
static void test_too_large_footprint(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    tpath(out, "never.png");
    mkscript(script, "cells.lua", "return ng.blur{ng.perlin{}, radius = 5000, spacing = 1}\n");
    cli(&r, "render", script, "-o", out, NULL);
    EXPECT_ERR(&r, 1, "cells.lua:1", "blur", "radius 5000", "1024");
    res_free(&r);
    CHECK(!exists(out));
    mkscript(script, "memory.lua", "return ng.blur{ng.perlin{}, radius = 1000, spacing = 1}\n");
    cli(&r, "render", script, "-o", out, "--memory-limit", "40", NULL);
    EXPECT_ERR(&r, 1, "memory.lua:1", "blur", "radius 1000", "--memory-limit");
    res_free(&r);
    CHECK(!exists(out));
}

/* A volume or a 4D render is refused in one line naming the node. */
static void test_volume_and_time_refused(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    mkscript(script, "vol.lua", "local n = ng.perlin{}\nreturn n + ng.blur{n, radius = 4}\n");
    tpath(out, "never.nrrd");
    cli(&r, "render", script, "-o", out, "--size", "32x32x8", NULL);
    EXPECT_ERR(&r, 1, "vol.lua:2", "blur", "2D", "3D");
    res_free(&r);
    CHECK(!exists(out));
    tpath(out, "never.png");
    cli(&r, "render", script, "-o", out, "--time", "1", NULL);
    EXPECT_ERR(&r, 1, "vol.lua:2", "blur", "4D");
    res_free(&r);
    CHECK(!exists(out));
}

NG_SUITE(neighbourhood, fast)
{
    RUN_FULL(test_cuts_at_origin);
    RUN_FULL(test_cuts_far_away);
    RUN(test_value_is_a_function_of_the_point);
    RUN(test_constant_and_variance);
    RUN(test_cache_within_memory_limit);
    RUN(test_normalize_probes_few_patches);
    RUN(test_tileable_grid_lattice_wraps);
    RUN(test_patches_kept_between_renders);
    RUN(test_patch_memory_reused);
    RUN(test_patch_memory_bounded);
    RUN(test_patches_start_at_the_render_corner);
    RUN(test_strips_computed_once);
    RUN(test_strips_give_way_to_patches);
    RUN(test_height_read_back_from_the_lattice);
    if (cli_setup("ng-hood")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    RUN(test_cli_region_is_crop);
    RUN(test_cli_tiles_stitch_equal_single);
    RUN_FULL(test_cli_every_simd_path);
    RUN(test_too_large_footprint);
    RUN(test_volume_and_time_refused);
    cli_teardown();
}
