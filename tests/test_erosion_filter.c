/*
 * test_erosion_filter.c — ng.erosion_filter (nodes/erosion.c), what an
 * artist relies on: its gullies run down the source's slopes (measured as
 * a correlation, below, by the default grid method and the analytic one);
 * the grid (the default of a 2D render) places them as the analytic
 * method does, and 3D renders and points alone take the analytic method;
 * it is a function of the world position (every
 * tile size, thread count and region gives the whole render's bits, at the
 * origin and at 1e9, and every SIMD path the same bytes); the change stays
 * within its documented bound, the masks within [0, 1], flat ground is
 * left as it is; a bad option, a tileable render, the grid's lattice past
 * --memory-limit and the grid asked for in a volume are one clear error
 * naming the node.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 150, H = 110 };

/* ng.erosion_filter{source, strength, scale, octaves, masks = masks,
 * method = method} (method NULL: the default, auto) */
static int erosion_by(ng_graph *g, int source, double strength, double scale, int octaves, int masks,
                      const char *method)
{
    ng_node *n = t_on(g, "erosion_filter", source);
    t_set(n, "strength", strength);
    t_set(n, "scale", scale);
    t_set(n, "octaves", octaves);
    if (method) t_choose(n, "method", method);
    if (masks) {
        ng_error err;
        CHECKF(ng_set_bool(n, ng_param_index(ng_type_find("erosion_filter"), "masks"), 1, &err) == 0, "masks: %s", err.msg);
    }
    return t_finish_ok(g, n);
}

static int erosion(ng_graph *g, int source, double strength, double scale, int octaves, int masks)
{
    return erosion_by(g, source, strength, scale, octaves, masks, NULL);
}

/* Hills in about [0, 1]: a warped fBm of perlin, fitted (terrain2's kind). */
static int hills(ng_graph *g, double size, int octaves)
{
    const int warped = t_warp(g, t_noise(g, "perlin", size, 7), t_vnoise(g, "simplex", size * 1.5, 8), size / 6);
    ng_node *fit = t_on(g, "fit", t_fbm(g, warped, octaves, 2, 0.5));
    t_set(fit, "from_lo", -0.45), t_set(fit, "from_hi", 0.45);
    return t_finish_ok(g, fit);
}

/* The plane gx x + gy y + c. */
static int plane(ng_graph *g, double gx, double gy, double c)
{
    const int x = t_finish(g, t_begin(g, "x")), y = t_finish(g, t_begin(g, "y"));
    return t_bin(g, "add", t_bin(g, "mul", x, t_const(g, gx)),
                 t_bin(g, "add", t_bin(g, "mul", y, t_const(g, gy)), t_const(g, c)));
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* The window (x, y, w, h) of full (W wide, ch channels a pixel) equals win. */
static int crop_equal(const float *full, const float *win, int ch, int x, int y, int w, int h)
{
    int j;
    for (j = 0; j < h; j++)
        if (!same_bits(full + ((size_t)(y + j) * W + (size_t)x) * (size_t)ch, win + (size_t)j * (size_t)w * (size_t)ch,
                       (size_t)w * (size_t)ch))
            return 0;
    return 1;
}

/* Height and masks (3 channels) of hills eroded at origin (at, -at): tile
 * sizes 8, 16 and 64 on 1 to 3 threads, and regions aligned to nothing,
 * each the whole render's bits. */
static void cuts_at(double at)
{
    static const int tiles[] = {8, 16, 64}, regions[][4] = {{0, 0, 37, 29}, {41, 13, 70, 90}, {149, 0, 1, 110}};
    ng_graph *g = ng_graph_new();
    const int root = erosion(g, hills(g, 90, 5), 0.8, 24, 4, 1);
    ng_render_opts o;
    float *ref;
    size_t t, th, r;
    t_opts(&o, W, H);
    o.origin[0] = at;
    o.origin[1] = -at;
    o.tile = 64;
    ref = t_render(g, root, &o);
    CHECKF(ref != NULL, "at %g: the render failed", at);
    for (t = 0; ref && t < sizeof tiles / sizeof tiles[0]; t++)
        for (th = 1; th <= 3; th++) {
            float *v;
            o.tile = tiles[t];
            o.threads = (int)th;
            v = t_render(g, root, &o);
            CHECKF(v && same_bits(v, ref, (size_t)W * H * 3), "at %g: tile %d, %d threads differ from the whole", at,
                   tiles[t], (int)th);
            free(v);
        }
    for (r = 0; ref && r < sizeof regions / sizeof regions[0]; r++) {
        float *v;
        memcpy(o.region, regions[r], sizeof o.region);
        o.tile = r % 2 ? 16 : 8;
        o.threads = 1 + (int)r % 3;
        v = t_render(g, root, &o);
        CHECKF(v && crop_equal(ref, v, 3, regions[r][0], regions[r][1], regions[r][2], regions[r][3]),
               "at %g: region %d,%d,%d,%d differs from the crop of the whole", at, regions[r][0], regions[r][1],
               regions[r][2], regions[r][3]);
        free(v);
    }
    free(ref);
    ng_graph_free(g);
}

static void test_cuts_at_origin(void) { cuts_at(0); }
static void test_cuts_far_away(void) { cuts_at(1e9); }

/* Far from the origin the gullies keep their detail: at 1e9 neighbouring
 * samples of the change (filtered - source) are no more often equal, and
 * vary as much, as at the origin (a quantised lattice would make steps of
 * 0 and jumps). */
static void test_detail_far_away(void)
{
    double sd[2], same[2];
    int k;
    for (k = 0; k < 2; k++) {
        ng_graph *g = ng_graph_new();
        const int src = hills(g, 90, 5), f = erosion(g, src, 0.8, 24, 4, 0);
        ng_render_opts o;
        float *a, *b;
        t_steps st = {0, 0, 0, 0};
        int i;
        t_opts(&o, 256, 64);
        o.origin[0] = o.origin[1] = k ? 1e9 : 0;
        a = t_render(g, f, &o);
        b = t_render(g, src, &o);
        for (i = 0; a && b && i < 256 * 64; i++) a[i] -= b[i];
        for (i = 0; a && i < 64; i++) t_steps_add(&st, a + i * 256, 256);
        sd[k] = t_steps_sd(&st);
        same[k] = t_steps_same(&st);
        free(a), free(b);
        ng_graph_free(g);
    }
    CHECKF(same[1] < 0.02, "at 1e9, %.3f of neighbouring steps are equal", same[1]);
    CHECKF(sd[1] > 0.5 * sd[0] && sd[1] < 2 * sd[0], "step spread %g at 1e9, %g at the origin", sd[1], sd[0]);
}

/*
 * The gullies follow the downhill direction. Measure: D = filtered -
 * source is the added relief; where its gullies and ridges run downhill,
 * D changes across the slope and little along it. With g the source's
 * gradient and t the direction across it (both unit), and the gradients
 * taken by central differences of one pixel over a 256^2 render,
 *
 *   C = sum((grad D . t)^2 - (grad D . g)^2) / sum |grad D|^2
 *
 * over the points whose slope is not flat: 1 when every gully runs
 * exactly downhill, 0 for directions unrelated to the slope, -1 for
 * contour lines. The source is smooth at the gullies' scale (3 octaves,
 * the finest 50 pixels, gullies 32 apart): a source with detail finer than
 * the gullies bends them along its own bumps. Measured: one octave 0.54,
 * four octaves (finer gullies run down the walls of coarser ones, at an
 * angle to the source's slope: they branch) 0.48, a plane 0.79 (what
 * remains along the slope is the stripes' blend wavering between cells
 * and the depth following the slope and height).
 */
static double downhill_correlation(int octaves, int tilted, const char *method)
{
    enum { N = 256 };
    ng_graph *g = ng_graph_new();
    int src, f, i, j;
    ng_render_opts o;
    float *s, *e;
    double across = 0, along = 0;
    src = tilted ? plane(g, 0.0006, -0.0013, 0.5) : hills(g, 200, 3);
    f = erosion_by(g, src, 0.8, 32, octaves, 0, method);
    t_opts(&o, N, N);
    o.origin[0] = 311, o.origin[1] = -97;
    s = t_render(g, src, &o);
    e = t_render(g, f, &o);
    for (j = 1; s && e && j < N - 1; j++)
        for (i = 1; i < N - 1; i++) {
            const int k = j * N + i;
            const double sx = s[k + 1] - s[k - 1], sy = s[k + N] - s[k - N], m = sqrt(sx * sx + sy * sy);
            const double dx = (e[k + 1] - s[k + 1]) - (e[k - 1] - s[k - 1]);
            const double dy = (e[k + N] - s[k + N]) - (e[k - N] - s[k - N]);
            double a, d;
            if (!(m > 2e-4)) continue; /* flat: no downhill direction */
            d = (dx * sx + dy * sy) / m;
            a = (-dx * sy + dy * sx) / m;
            across += a * a, along += d * d;
        }
    free(s), free(e);
    ng_graph_free(g);
    return across + along > 0 ? (across - along) / (across + along) : 0;
}

static void test_gullies_run_downhill(void)
{
    static const char *const methods[] = {NULL, "analytic"};
    int m;
    for (m = 0; m < 2; m++) {
        const char *name = methods[m] ? methods[m] : "default (grid)";
        const double one = downhill_correlation(1, 0, methods[m]), four = downhill_correlation(4, 0, methods[m]),
                     flat = downhill_correlation(4, 1, methods[m]);
        printf("    downhill correlation, %s: 1 octave %.3f, 4 octaves %.3f, plane %.3f\n", name, one, four, flat);
        CHECKF(one > 0.35, "%s, 1 octave: correlation %.3f (measured 0.54)", name, one);
        CHECKF(four > 0.35, "%s, 4 octaves: correlation %.3f (measured 0.48)", name, four);
        CHECKF(flat > 0.6, "%s, plane: correlation %.3f (measured 0.79)", name, flat);
    }
}

/* The default of a 2D render is the grid method (the same bits as asking
 * for it), and it puts the gullies where the analytic method does: on a
 * plane, whose central differences are its gradient, the two heights agree
 * to a hundredth of the change's bound and the masks to 0.05 (measured
 * 0.0011 and 0.0069; a lattice placed a cell off, or seeded otherwise,
 * would move every gully); on hills, whose finest octaves bend the slope
 * between pixels, they differ by under 0.3 of what the filter changes
 * (mean absolute values, measured 0.12). */
static void test_grid_places_gullies_as_analytic(void)
{
    enum { N = 128 };
    const double bound = 1.5 * 40 * 0.005 / 1.5;
    ng_graph *g = ng_graph_new();
    const int src = plane(g, 0.003, 0.004, 0.2), hill = hills(g, 90, 5);
    const int def = erosion_by(g, src, 1.5, 40, 5, 1, NULL), grid = erosion_by(g, src, 1.5, 40, 5, 1, "grid");
    const int ana = erosion_by(g, src, 1.5, 40, 5, 1, "analytic");
    const int hdef = erosion_by(g, hill, 0.8, 24, 4, 0, NULL), hana = erosion_by(g, hill, 0.8, 24, 4, 0, "analytic");
    ng_render_opts o;
    float *d, *gr, *a, *h, *ha, *hs;
    double worst = 0, mworst = 0, apart = 0, change = 0;
    int i;
    t_opts(&o, N, N);
    o.origin[0] = -40, o.origin[1] = -40;
    d = t_render(g, def, &o), gr = t_render(g, grid, &o), a = t_render(g, ana, &o);
    h = t_render(g, hdef, &o), ha = t_render(g, hana, &o), hs = t_render(g, hill, &o);
    CHECK(d && gr && a && h && ha && hs);
    CHECKF(d && gr && same_bits(d, gr, (size_t)N * N * 3), "the default differs from method grid");
    for (i = 0; d && a && i < N * N * 3; i++) {
        const double e = fabs(d[i] - a[i]);
        if (i % 3 == 0 && e > worst) worst = e;
        if (i % 3 != 0 && e > mworst) mworst = e;
    }
    for (i = 0; h && ha && hs && i < N * N; i++) apart += fabs(h[i] - ha[i]), change += fabs(ha[i] - hs[i]);
    printf("    grid vs analytic: plane %.2g of the bound apart at most (masks %.2g), hills %.3f of the change\n",
           worst / bound, mworst, apart / change);
    CHECKF(worst < 0.01 * bound, "on a plane, grid and analytic differ by %g (the bound %g; measured 0.0011 of it)",
           worst, bound);
    CHECKF(mworst < 0.05, "on a plane, grid and analytic masks differ by %g (measured 0.0069)", mworst);
    CHECKF(worst > 0 || !d, "on a plane, grid and analytic give the same bits: is the grid taken?");
    CHECKF(apart < 0.3 * change, "on hills, grid and analytic differ by %g, the filter changes %g (measured 0.12)",
           apart, change);
    free(d), free(gr), free(a), free(h), free(ha), free(hs);
    ng_graph_free(g);
}

/* Where a 2D render's pixel lattice is not there, auto is the analytic
 * method, bit for bit, and no error: a 3D render (a plane at z) and points
 * evaluated alone (no pixel size). */
static void test_auto_elsewhere_is_analytic(void)
{
    enum { N = 48 };
    ng_graph *g = ng_graph_new();
    const int src = hills(g, 90, 5);
    const int def = erosion_by(g, src, 0.8, 24, 4, 1, NULL), ana = erosion_by(g, src, 0.8, 24, 4, 1, "analytic");
    ng_render_opts o;
    double x[N], y[N];
    float *a, *b;
    int i;
    t_opts(&o, N, N);
    o.dims = 3;
    o.z = 17.5;
    a = t_render(g, def, &o), b = t_render(g, ana, &o);
    CHECKF(a && b && same_bits(a, b, (size_t)N * N * 3), "3D: auto differs from analytic");
    free(a), free(b);
    for (i = 0; i < N; i++) x[i] = 13.25 + 7.5 * i, y[i] = -4.0 + 3.1 * i;
    a = t_points(g, def, 2, N, x, y, NULL), b = t_points(g, ana, 2, N, x, y, NULL);
    for (i = 0; a && b && i < N; i++)
        if (memcmp(a + 3 * i, b + 3 * i, 3 * sizeof(float))) break;
    CHECKF(a && b && i == N, "points alone: auto differs from analytic at %d", i);
    free(a), free(b);
    ng_graph_free(g);
}

/* --classic (ng_graph_set_classic): the erosion filter and ng.light made
 * in a classic graph take 0.1.0's analytic method, so a 2D render is the
 * explicit analytic one's bits; made after classic is off, the grid's. */
static void test_classic_is_analytic(void)
{
    static const char *const types[] = {"erosion_filter", "light"};
    int t;
    for (t = 0; t < 2; t++) {
        ng_graph *g = ng_graph_new();
        const int src = hills(g, 90, 5);
        int old, ana, def;
        ng_node *n;
        ng_render_opts o;
        float *a, *b, *c;
        ng_graph_set_classic(g, 1);
        old = t_finish_ok(g, t_on(g, types[t], src));
        ng_graph_set_classic(g, 0);
        n = t_on(g, types[t], src);
        t_choose(n, "method", "analytic");
        ana = t_finish_ok(g, n);
        def = t_finish_ok(g, t_on(g, types[t], src));
        t_opts(&o, W, H);
        a = t_render(g, old, &o), b = t_render(g, ana, &o), c = t_render(g, def, &o);
        CHECKF(a && b && same_bits(a, b, (size_t)W * H), "%s: --classic is not the analytic method", types[t]);
        CHECKF(a && c && !same_bits(a, c, (size_t)W * H), "%s: the grid method gives the analytic bits", types[t]);
        free(a), free(b), free(c);
        ng_graph_free(g);
    }
}

/* On a plane of known slope m, the change is within the documented bound
 * strength x scale x m / (2 - gain) and uses much of it; the masks lie in
 * [0, 1] and both occur; a constant is left exactly as it is. */
static void test_bounds_and_masks(void)
{
    enum { N = 128 };
    const double gx = 0.003, gy = 0.004, m = 0.005, strength = 1.5, scale = 40, bound = strength * scale * m / 1.5;
    ng_graph *g = ng_graph_new();
    const int src = plane(g, gx, gy, 0.2);
    const int f = erosion(g, src, strength, scale, 5, 1), flat = erosion(g, t_const(g, 0.375), 4, 50, 8, 1);
    ng_render_opts o;
    float *v, *c;
    double worst = 0, rmax = 0, cmax = 0;
    int i, bad = -1;
    t_opts(&o, N, N);
    o.origin[0] = -40, o.origin[1] = -40; /* source from 0.2 - 0.28 upward: low and high ground */
    v = t_render(g, f, &o);
    for (i = 0; v && i < N * N; i++) {
        const double x = o.origin[0] + (i % N) + 0.5, y = o.origin[1] + (i / N) + 0.5;
        const double d = fabs(v[3 * i] - (gx * x + gy * y + 0.2));
        if (d > worst) worst = d;
        if (!(v[3 * i + 1] >= 0 && v[3 * i + 1] <= 1 && v[3 * i + 2] >= 0 && v[3 * i + 2] <= 1) && bad < 0) bad = i;
        if (v[3 * i + 1] > rmax) rmax = v[3 * i + 1];
        if (v[3 * i + 2] > cmax) cmax = v[3 * i + 2];
    }
    CHECKF(v && worst <= bound * 1.0001, "change %g past the bound %g", worst, bound);
    CHECKF(worst > 0.4 * bound, "change %g: under 0.4 of the bound %g", worst, bound);
    CHECKF(bad < 0, "masks %g, %g at %d: outside [0, 1]", v ? v[3 * bad + 1] : 0.0, v ? v[3 * bad + 2] : 0.0, bad);
    CHECKF(rmax > 0.3 && cmax > 0.3, "masks reach only %g (ridge), %g (crease)", rmax, cmax);
    free(v);
    c = t_render(g, flat, &o);
    for (i = 0; c && i < N * N; i++)
        if (c[3 * i] != 0.375f || c[3 * i + 1] != 0 || c[3 * i + 2] != 0) break;
    CHECKF(c && i == N * N, "a constant changed at %d: %g %g %g", i, c ? c[3 * i] : 0.0, c ? c[3 * i + 1] : 0.0,
           c ? c[3 * i + 2] : 0.0);
    free(c);
    ng_graph_free(g);
}

/* Every SIMD path this CPU runs renders the same bytes (the filter's own
 * loop is compiled once per path). */
static void test_same_bytes_on_every_path(void)
{
    static const char *const simd[] = {"scalar", "sse2", "avx2", "avx512"};
    char script[PATHLEN], ref[PATHLEN], out[PATHLEN];
    res r;
    size_t p;
    int ran = 0;
    mkscript(script, "paths.lua",
             "local h = ng.fbm{ng.perlin{element_size = 120}, octaves = 5}:fit(-0.45, 0.45, 0, 1)\n"
             "local e = ng.erosion_filter{h, scale = 30, masks = true}\n"
             "return {height = e:channel(1), ridge = e:channel(2), crease = e:channel(3)}\n");
    tpath(ref, "native-{name}.pfm");
    cli(&r, "render", script, "-o", ref, "--size", "160x96", "--origin", "-3e8,7e8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (p = 0; p < sizeof simd / sizeof simd[0]; p++) {
        static const char *const names[] = {"height", "ridge", "crease"};
        char a[PATHLEN], b[PATHLEN], pattern[PATHLEN];
        int k;
        if (!ng_simd_supported(simd[p])) continue;
        pathf(pattern, "%s/%s-{name}.pfm", tmpdir, simd[p]);
        setenv("NG_SIMD", simd[p], 1);
        cli(&r, "render", script, "-o", pattern, "--size", "160x96", "--origin", "-3e8,7e8", "--threads", "2", NULL);
        unsetenv("NG_SIMD");
        EXPECT_OK(&r);
        res_free(&r);
        for (k = 0; k < 3; k++) {
            pathf(a, "%s/native-%s.pfm", tmpdir, names[k]);
            pathf(b, "%s/%s-%s.pfm", tmpdir, simd[p], names[k]);
            CHECKF(same_bytes(a, b), "NG_SIMD=%s: %s differs from the native path", simd[p], names[k]);
        }
        ran++;
    }
    CHECK(ran >= 2);
    (void)out;
}

/* Bad options and a tileable render: one line naming the script's line
 * and the node, nothing written. */
static void test_bad_options(void)
{
    static const struct {
        const char *call, *needle;
    } cases[] = {
        {"ng.erosion_filter{h, levels = {1, 0}}", "lo must be below hi"},
        {"ng.erosion_filter{h, levels = \"natural\"}", "levels"},
        {"ng.erosion_filter{h, levels = {0/0, 1}}", "option 'levels' needs two finite numbers"},
        {"ng.erosion_filter{h, octaves = 9}", "octaves"},
        {"ng.erosion_filter{h, strength = -1}", "strength"},
        {"ng.erosion_filter{h, scale = 0}", "scale"},
        {"ng.erosion_filter{h, gully_rounding = 2}", "gully_rounding"},
        {"ng.erosion_filter{ng.perlin{output = \"vector\"}}", "source"},
        {"ng.erosion_filter{h, method = \"slope\"}", "method"},
        {"ng.erosion_filter{h, spacing = -1}", "spacing"},
    };
    char script[PATHLEN], out[PATHLEN], text[512];
    res r;
    size_t k;
    tpath(out, "never.png");
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(text, sizeof text, "local h = ng.perlin{}\nreturn %s\n", cases[k].call);
        mkscript(script, "bad.lua", text);
        cli(&r, "render", script, "-o", out, NULL);
        EXPECT_ERR(&r, 1, "bad.lua:2", "erosion_filter", cases[k].needle);
        res_free(&r);
        CHECK(!exists(out));
    }
    mkscript(script, "tiled.lua", "return ng.erosion_filter{ng.perlin{}}\n");
    cli(&r, "render", script, "-o", out, "--tileable", NULL);
    EXPECT_ERR(&r, 1, "tiled.lua:1", "erosion_filter", "tileable");
    res_free(&r);
    CHECK(!exists(out));
    /* the grid's lattice past the memory limit, and the grid asked for in
     * a volume (auto takes the analytic method there: no error) */
    mkscript(script, "memory.lua", "return ng.erosion_filter{ng.perlin{}}\n");
    cli(&r, "render", script, "-o", out, "--memory-limit", "1", NULL);
    EXPECT_ERR(&r, 1, "memory.lua:1", "erosion_filter", "radius 1 cells", "--memory-limit");
    res_free(&r);
    CHECK(!exists(out));
    tpath(out, "never.nrrd");
    mkscript(script, "volume.lua", "return ng.erosion_filter{ng.perlin{}, method = \"grid\"}\n");
    cli(&r, "render", script, "-o", out, "--size", "32x32x8", NULL);
    EXPECT_ERR(&r, 1, "volume.lua:1", "erosion_filter", "2D");
    res_free(&r);
    CHECK(!exists(out));
}

NG_SUITE(erosion_filter, fast)
{
    RUN(test_cuts_at_origin);
    RUN(test_cuts_far_away);
    RUN(test_detail_far_away);
    RUN(test_gullies_run_downhill);
    RUN(test_grid_places_gullies_as_analytic);
    RUN(test_auto_elsewhere_is_analytic);
    RUN(test_classic_is_analytic);
    RUN(test_bounds_and_masks);
    if (cli_setup("ng-erosion")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    RUN(test_same_bytes_on_every_path);
    RUN(test_bad_options);
    cli_teardown();
}
