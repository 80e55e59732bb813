/*
 * test_terrain_masks.c — what the neighbourhood masks promise an artist
 * (their cuts are test_neighbourhood.c's): the grid shading agrees with
 * the analytic one; curvature is positive on a dome and negative in a
 * bowl, in every kind, and its convex and concave masks split it; drainage
 * gathers along a valley's floor and points downhill; mask_distance is
 * the distance to the mask over the radius; cavity is 0 on a plane and
 * marks a pit; every mask keeps its documented range; splat packs four
 * masks as RGBA weights that sum to 1, in order, the same in every cut,
 * into an 8- or 16-bit RGBA PNG; bad radii, volume
 * and 4D renders and a footprint past --memory-limit are one line naming
 * the node, nothing written.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 128 };

static int coord(ng_graph *g, const char *axis) { return t_finish(g, t_begin(g, axis)); }

/* a * (x - cx)^2 + b * (y - cy)^2 */
static int quadric(ng_graph *g, double a, double b, double cx, double cy)
{
    const int dx = t_bin(g, "sub", coord(g, "x"), t_const(g, cx)), dy = t_bin(g, "sub", coord(g, "y"), t_const(g, cy));
    return t_bin(g, "add", t_bin(g, "mul", t_const(g, a), t_bin(g, "mul", dx, dx)),
                 t_bin(g, "mul", t_const(g, b), t_bin(g, "mul", dy, dy)));
}

static float *render_n(const ng_graph *g, int root)
{
    ng_render_opts o;
    t_opts(&o, N, N);
    o.threads = 2;
    return t_render(g, root, &o);
}

/* ng.light / ng.slope of a smooth noise: the grid (central differences
 * over two pixels) within a few hundredths of the analytic gradient's, on
 * average within a thousandth or so. */
static void test_grid_shading_close_to_analytic(void)
{
    static const char *const modes[] = {"light", "slope"};
    int m;
    for (m = 0; m < 2; m++) {
        ng_graph *g = ng_graph_new();
        const int src = t_noise(g, "perlin", 48, 5);
        ng_node *a = t_on(g, modes[m], src), *b;
        int grid, analytic, i;
        float *vg, *va;
        double worst = 0, mean = 0;
        t_set(a, "height", 20);
        grid = t_finish_ok(g, a);
        b = t_on(g, modes[m], src);
        t_set(b, "height", 20);
        t_choose(b, "method", "analytic");
        analytic = t_finish_ok(g, b);
        vg = render_n(g, grid), va = render_n(g, analytic);
        CHECK(vg && va);
        for (i = 0; vg && va && i < N * N; i++) {
            const double d = fabs((double)vg[i] - va[i]);
            if (d > worst) worst = d;
            mean += d / (N * N);
        }
        CHECKF(worst < 0.03 && mean < 3e-3, "%s: grid and analytic differ by %g at worst, %g on average", modes[m],
               worst, mean);
        free(vg), free(va);
        ng_graph_free(g);
    }
}

/* A dome (convex) and a bowl (concave): every kind of curvature has the
 * sign, the masks split it, the range holds. */
static void test_curvature_of_dome_and_bowl(void)
{
    static const char *const kinds[] = {"mean", "plan", "profile"};
    int k, shape;
    for (k = 0; k < 3; k++)
        for (shape = 0; shape < 2; shape++) {
            ng_graph *g = ng_graph_new();
            const double a = shape ? 0.002 : -0.002; /* bowl : dome, in source units per pixel^2 */
            const int h = quadric(g, a, a, 64.3, 63.7);
            int roots[3], r, i, wrong = 0;
            static const char *const outputs[] = {"signed", "convex", "concave"};
            float *v[3];
            for (r = 0; r < 3; r++) {
                ng_node *n = t_on(g, "curvature", h);
                t_choose(n, "kind", kinds[k]);
                t_choose(n, "output", outputs[r]);
                roots[r] = t_finish_ok(g, n);
                v[r] = render_n(g, roots[r]);
            }
            for (i = 0; v[0] && v[1] && v[2] && i < N * N; i++) {
                const float s = v[0][i], cx = v[1][i], cc = v[2][i];
                wrong += !(shape ? s < 0 : s > 0) || s < -1 || s > 1;
                wrong += shape ? !(cx == 0 && cc == -s) : !(cc == 0 && cx == s);
            }
            CHECKF(v[0] && v[1] && v[2] && wrong == 0, "%s curvature of a %s: %d samples of the wrong sign or split",
                   kinds[k], shape ? "bowl" : "dome", wrong);
            for (r = 0; r < 3; r++) free(v[r]);
            ng_graph_free(g);
        }
}

/* A V-shaped valley along y, falling towards y = 0: the accumulation on its
 * floor (column 64) is over 0.5 and above every flank column 10 pixels
 * away; on a plane rising with x the direction is (-1, 0); all within
 * range. */
static void test_drainage_gathers_in_the_valley(void)
{
    ng_graph *g = ng_graph_new();
    const int x = coord(g, "x"), y = coord(g, "y");
    const int v = t_bin(g, "add", t_bin(g, "mul", t_const(g, 0.5), t_finish(g, t_on(g, "abs", t_bin(g, "sub", x, t_const(g, 64.5))))),
                        t_bin(g, "mul", t_const(g, 0.1), y));
    ng_node *n = t_on(g, "drainage", v);
    int acc, dir, i, j, bad = 0, range = 0;
    float *a, *d;
    t_set(n, "radius", 32);
    t_set(n, "spacing", 1);
    acc = t_finish_ok(g, n);
    n = t_on(g, "drainage", x);
    t_choose(n, "output", "direction");
    t_set(n, "radius", 8);
    dir = t_finish_ok(g, n);
    a = render_n(g, acc), d = render_n(g, dir);
    CHECK(a && d);
    for (j = 40; a && j < N; j++) {
        const float floor = a[j * N + 64];
        bad += !(floor > 0.5f && floor > a[j * N + 54] && floor > a[j * N + 74]);
    }
    for (i = 0; a && i < N * N; i++) range += !(a[i] >= 0 && a[i] <= 1);
    CHECKF(bad == 0 && range == 0, "drainage: %d rows whose valley floor does not gather, %d samples out of [0, 1]",
           bad, range);
    for (i = 0; d && i < N * N; i++)
        if (fabsf(d[2 * i] + 1) > 1e-6f || fabsf(d[2 * i + 1]) > 1e-6f) break;
    CHECKF(d && i == N * N, "drainage direction on a plane rising with x: (%g, %g) at %d, not (-1, 0)",
           d ? d[2 * i] : 0.0, d ? d[2 * i + 1] : 0.0, i);
    free(a), free(d);
    ng_graph_free(g);
}

/* Distance to where x exceeds 80.25: the lattice cells right of it
 * (spacing 1, centres at k + 0.5: the nearest is 80.5), over the radius,
 * 1 beyond it, 0 inside. */
static void test_mask_distance_is_the_distance(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_on(g, "mask_distance", coord(g, "x"));
    int root, i, j, off = 0;
    float *v;
    t_set(n, "threshold", 80.25);
    t_set(n, "radius", 20);
    t_set(n, "spacing", 1);
    root = t_finish_ok(g, n);
    v = render_n(g, root);
    CHECK(v != NULL);
    for (j = 0; v && j < N; j++)
        for (i = 0; i < N; i++) {
            const double want = i >= 80 ? 0 : (80 - i) / 20.0 > 1 ? 1 : (80 - i) / 20.0;
            off += fabs(v[j * N + i] - want) > 1e-6;
        }
    CHECKF(off == 0, "mask_distance: %d samples off the distance over the radius", off);
    free(v);
    ng_graph_free(g);
}

/* Cavity of a plane is 0 (the blur of a linear field is itself); a pit
 * (a narrow bowl) reads as cavity at its bottom and nothing as exposure
 * there, a bump the other way round. */
static void test_cavity_of_plane_and_pit(void)
{
    ng_graph *g = ng_graph_new();
    const int plane = t_bin(g, "add", t_bin(g, "mul", t_const(g, 0.01), coord(g, "x")),
                            t_bin(g, "mul", t_const(g, -0.02), coord(g, "y")));
    const int pit = quadric(g, 0.0005, 0.0005, 64.5, 64.5);
    int roots[4], r, i, bad = 0;
    float *v[4];
    static const char *const outs[] = {"signed", "cavity", "exposure", "exposure"};
    for (r = 0; r < 4; r++) {
        ng_node *n = t_on(g, "cavity", r == 0 ? plane : r == 3 ? t_bin(g, "mul", t_const(g, -1), pit) : pit);
        t_choose(n, "output", outs[r]);
        roots[r] = t_finish_ok(g, n);
        v[r] = render_n(g, roots[r]);
    }
    for (i = 0; v[0] && i < N * N; i++) bad += fabsf(v[0][i]) > 1e-3f;
    CHECKF(bad == 0, "cavity of a plane: %d samples beyond 0.001", bad);
    CHECK(v[1] && v[2] && v[3]);
    if (v[1] && v[2] && v[3]) {
        CHECKF(v[1][64 * N + 64] > 0.01f, "cavity at the pit's bottom: %g", v[1][64 * N + 64]);
        CHECKF(v[2][64 * N + 64] == 0, "exposure at the pit's bottom: %g", v[2][64 * N + 64]);
        CHECKF(v[3][64 * N + 64] > 0.01f, "exposure at the bump's top: %g", v[3][64 * N + 64]);
    }
    for (r = 0; r < 4; r++) free(v[r]);
    ng_graph_free(g);
}

/* ---- bad input, through the program --------------------------------------------------- */

static void expect_refused(const char *name, const char *text, const char *out, const char *size, const char *extra,
                           const char *const *needles)
{
    char script[PATHLEN], path[PATHLEN];
    res r;
    mkscript(script, name, text);
    tpath(path, out);
    if (extra) cli(&r, "render", script, "-o", path, "--size", size, extra, "40", NULL);
    else cli(&r, "render", script, "-o", path, "--size", size, NULL);
    expect_err(__FILE__, __LINE__, &r, 1, needles);
    res_free(&r);
    CHECKF(!exists(path), "%s: a refused render left %s", name, out);
}

static void test_bad_input_one_line(void)
{
    static const char *const cells[] = {"cells.lua:1", "drainage", "radius 5000", "1024", NULL};
    static const char *const vol[] = {"vol.lua:1", "curvature", "2D", "3D", NULL};
    static const char *const grid[] = {"grid.lua:1", "light", "2D", "3D", NULL};
    static const char *const time4[] = {"time.lua:1", "cavity", "4D", NULL};
    static const char *const mem[] = {"mem.lua:1", "mask_distance", "radius 1000", "--memory-limit", NULL};
    static const char *const neg[] = {"neg.lua:1", "drainage", "radius", NULL};
    expect_refused("cells.lua", "return ng.drainage{ng.perlin{}, radius = 5000, spacing = 1}\n", "a.png", "64",
                   NULL, cells);
    expect_refused("vol.lua", "return ng.curvature{ng.perlin{}}\n", "b.nrrd", "16x16x4", NULL, vol);
    expect_refused("grid.lua", "return ng.light{ng.perlin{}, method = \"grid\"}\n", "c.nrrd", "16x16x4", NULL, grid);
    expect_refused("mem.lua", "return ng.mask_distance{ng.perlin{}, radius = 1000, spacing = 1}\n", "d.png", "64",
                   "--memory-limit", mem);
    expect_refused("neg.lua", "return ng.drainage{ng.perlin{}, radius = -3}\n", "e.png", "64", NULL, neg);
    { /* a lattice finer than the source's floats resolve, or far finer than the render's pixel */
        static const char *const tiny[] = {"tiny.lua:1", "erosion_filter", "spacing 1e-07", "too fine", NULL};
        static const char *const fine[] = {"fine.lua:1", "light", "spacing 0.001", "1000 times finer", "pixel",
                                           NULL};
        expect_refused("tiny.lua", "return ng.erosion_filter{ng.perlin{element_size = 4}, spacing = 1e-7}\n",
                       "h.png", "32", NULL, tiny);
        expect_refused("fine.lua", "return ng.light{ng.perlin{}, spacing = 1e-3}\n", "i.png", "32", NULL, fine);
    }
    {
        static const char *const tile[] = {"tile.lua:1", "drainage", "--tileable", NULL};
        char script[PATHLEN], path[PATHLEN];
        res r;
        /* element size 24 would become 32 to tile: the refusal is still one line, no note first */
        mkscript(script, "tile.lua", "return ng.drainage{ng.perlin{element_size = 24}, radius = 16}\n");
        tpath(path, "g.png");
        cli(&r, "render", script, "-o", path, "--size", "32", "--tileable", NULL);
        expect_err(__FILE__, __LINE__, &r, 1, tile);
        res_free(&r);
        CHECK(!exists(path));
        mkscript(script, "time.lua", "return ng.cavity{ng.perlin{}}\n");
        tpath(path, "f.png");
        cli(&r, "render", script, "-o", path, "--size", "32", "--time", "1", NULL);
        expect_err(__FILE__, __LINE__, &r, 1, time4);
        res_free(&r);
        CHECK(!exists(path));
    }
}

/* In a volume or 4D render the default shading takes the analytic path,
 * as it did: no error, the old bits. */
static void test_auto_shading_in_3d_is_analytic(void)
{
    ng_graph *g = ng_graph_new();
    const int src = t_noise(g, "perlin", 20, 2);
    ng_node *a = t_on(g, "light", src), *b = t_on(g, "light", src);
    int auto_, analytic;
    ng_render_opts o;
    float *va, *vb;
    auto_ = t_finish_ok(g, a);
    t_choose(b, "method", "analytic");
    analytic = t_finish_ok(g, b);
    t_opts(&o, 24, 16);
    o.dims = 3;
    o.z = 7.5;
    va = t_render(g, auto_, &o), vb = t_render(g, analytic, &o);
    CHECK(va && vb && !memcmp(va, vb, 24 * 16 * sizeof(float)));
    free(va), free(vb);
    ng_graph_free(g);
}

/* ng.splat of four masks (or numbers); normalize < 0: the default. */
static int splat(ng_graph *g, const int *mask, int normalize)
{
    static const char *const names[] = {"r", "g", "b", "a"};
    ng_node *n = t_begin(g, "splat");
    int c;
    for (c = 0; c < 4; c++) t_in(g, n, names[c], mask[c]);
    ng_error err;
    if (normalize >= 0 && ng_set_bool(n, ng_param_index(ng_node_type_of(n), "normalize"), normalize, &err))
        ng_t_fail(__FILE__, __LINE__, "normalize refused: %s", err.msg);
    return t_finish_ok(g, n);
}

/* Noise masks past [0, 1] on both sides: the four weights are each in
 * [0, 1] and sum to 1 within float rounding; channel c is mask c (clamped)
 * over their sum where it passes 1, else itself, the first channel (the
 * base) taking the rest; without normalize each is its mask clamped. */
static void test_splat_weights_sum_to_one(void)
{
    ng_graph *g = ng_graph_new();
    int mask[4], c, i, norm, raw, ok_sum = 1, ok_order = 1, ok_raw = 1;
    float *w, *m[4], *r;
    double worst = 0;
    for (c = 0; c < 4; c++) mask[c] = t_bin(g, "mul", t_noise(g, "perlin", 20 + 7 * c, c + 1), t_const(g, 1.5));
    norm = splat(g, mask, -1), raw = splat(g, mask, 0);
    w = render_n(g, norm), r = render_n(g, raw);
    for (c = 0; c < 4; c++) m[c] = render_n(g, mask[c]);
    CHECK(w && r && m[0] && m[1] && m[2] && m[3]);
    for (i = 0; w && r && m[0] && m[1] && m[2] && m[3] && i < N * N; i++) {
        double sum = 0, msum = 0;
        for (c = 0; c < 4; c++) {
            const double v = w[4 * i + c], mc = fmin(fmax(m[c][i], 0), 1);
            sum += v;
            msum += mc;
            ok_sum &= v >= 0 && v <= 1;
            ok_raw &= r[4 * i + c] == (float)mc;
        }
        for (c = 0; c < 4; c++) {
            const double mc = fmin(fmax(m[c][i], 0), 1);
            ok_order &= fabs(w[4 * i + c] - (msum > 1 ? mc / msum : c == 0 ? mc + 1 - msum : mc)) < 1e-6;
        }
        if (fabs(sum - 1) > worst) worst = fabs(sum - 1);
    }
    CHECKF(worst < 1e-6, "splat weights sum to 1 within %g", worst);
    CHECK(ok_sum);
    CHECK(ok_order);
    CHECK(ok_raw);
    free(w), free(r);
    for (c = 0; c < 4; c++) free(m[c]);
    ng_graph_free(g);
}

/* Numbers: the channel order is r, g, b, a; what the masks leave is layer 1's. */
static void test_splat_order_and_base(void)
{
    static const double v[][4] = {{0.1, 0.2, 0.3, 0.4}, {0, 0, 0, 0}, {-1, 0, 0, 0}, {0, 0, 2, 2}, {0, 0.25, 0, 0.5},
                                  {0.5, 1, 0, 0.5}};
    static const double want[][4] = {{0.1, 0.2, 0.3, 0.4}, {1, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0.5, 0.5},
                                     {0.25, 0.25, 0, 0.5}, {0.25, 0.5, 0, 0.25}};
    size_t k;
    int c;
    for (k = 0; k < sizeof v / sizeof v[0]; k++) {
        ng_graph *g = ng_graph_new();
        ng_render_opts o;
        int mask[4], root;
        float *px;
        for (c = 0; c < 4; c++) mask[c] = t_const(g, v[k][c]);
        root = splat(g, mask, -1);
        t_opts(&o, 4, 4);
        px = t_render(g, root, &o);
        CHECK(px != NULL);
        for (c = 0; px && c < 4; c++)
            CHECKF(fabs(px[4 * 5 + c] - want[k][c]) < 1e-6, "case %zu channel %d: %g, not %g", k, c, px[4 * 5 + c],
                   want[k][c]);
        free(px);
        ng_graph_free(g);
    }
}

/* The same bits for every tile size, thread count and region. */
static void test_splat_same_in_every_cut(void)
{
    ng_graph *g = ng_graph_new();
    int mask[4], c, root;
    ng_render_opts o;
    float *a, *b, *part;
    for (c = 0; c < 4; c++) mask[c] = t_fbm(g, t_noise(g, "simplex", 30, 9 + c), 4, 2, 0.5);
    root = splat(g, mask, -1);
    t_opts(&o, N, N);
    o.tile = 64;
    a = t_render(g, root, &o);
    o.tile = 24, o.threads = 3;
    b = t_render(g, root, &o);
    o.region[0] = 40, o.region[1] = 70, o.region[2] = 33, o.region[3] = 21;
    part = t_render(g, root, &o);
    CHECK(a && b && part);
    if (a && b) CHECK(memcmp(a, b, (size_t)N * N * 4 * sizeof(float)) == 0);
    for (c = 0; a && part && c < 21; c++)
        CHECK(memcmp(part + (size_t)c * 33 * 4, a + ((size_t)(70 + c) * N + 40) * 4, 33 * 4 * sizeof(float)) == 0);
    free(a), free(b), free(part);
    ng_graph_free(g);
}

/* An RGBA PNG of 8 and 16 bits; the 8-bit one's bytes sum to 255 within
 * the rounding of four samples; tiles of it stitch to the same samples. */
static void test_splat_png(void)
{
    char script[PATHLEN], p8[PATHLEN], p16[PATHLEN];
    unsigned w = 0, h = 0;
    int depth = 0, ctype = 0, dw = 0, dh = 0, i, worst = 0;
    unsigned char *px;
    res r;
    mkscript(script, "splat.lua",
             "local h = ng.fbm{ng.perlin{element_size = 20}, octaves = 3}:fit(-0.7, 0.7, 0, 1)\n"
             "return ng.splat{h:smoothstep(0.45, 0.35), h:smoothstep(0.3, 0.6), ng.slope{h, height = 40},\n"
             "                h:smoothstep(0.6, 0.75)}\n");
    tpath(p8, "splat.png");
    tpath(p16, "splat16.png");
    cli(&r, "render", script, "-o", p8, "--size", "48x32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", script, "-o", p16, "--size", "48x32", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(p8, &w, &h, &depth, &ctype) && w == 48 && h == 32 && depth == 8 && ctype == PNG_COLOR_TYPE_RGBA);
    CHECK(ihdr(p16, &w, &h, &depth, &ctype) && depth == 16 && ctype == PNG_COLOR_TYPE_RGBA);
    px = decode(p8, PNG_FORMAT_RGBA, &dw, &dh);
    CHECK(px && dw == 48 && dh == 32);
    for (i = 0; px && i < 48 * 32; i++) {
        const int d = abs(px[4 * i] + px[4 * i + 1] + px[4 * i + 2] + px[4 * i + 3] - 255);
        if (d > worst) worst = d;
    }
    CHECKF(px && worst <= 2, "8-bit weights sum to 255 within %d", worst);
    free(px);
    {
        char tiles[PATHLEN], manifest[PATHLEN], whole[PATHLEN];
        uint16_t *a, *b;
        int ch = 0, ch2 = 0;
        pathf(tiles, "%s/splat_tiles/t_{x}_{y}.png", tmpdir);
        pathf(manifest, "%s/splat_tiles/manifest.json", tmpdir);
        tpath(whole, "stitched.png");
        cli(&r, "tiles", script, "-o", tiles, "--size", "48x32", "--tile-size", "16", "--bits", "16", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "stitch", manifest, "-o", whole, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        a = read_png16(p16, &dw, &dh, &ch), b = read_png16(whole, &dw, &dh, &ch2);
        CHECK(a && b && ch == 4 && ch2 == 4 && memcmp(a, b, 48 * 32 * 4 * sizeof *a) == 0);
        free(a), free(b);
    }
}

NG_SUITE(terrain_masks, fast)
{
    RUN(test_grid_shading_close_to_analytic);
    RUN(test_curvature_of_dome_and_bowl);
    RUN(test_drainage_gathers_in_the_valley);
    RUN(test_mask_distance_is_the_distance);
    RUN(test_cavity_of_plane_and_pit);
    RUN(test_auto_shading_in_3d_is_analytic);
    RUN(test_splat_weights_sum_to_one);
    RUN(test_splat_order_and_base);
    RUN(test_splat_same_in_every_cut);
    if (cli_setup("ng-masks")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    RUN(test_bad_input_one_line);
    RUN(test_splat_png);
    cli_teardown();
}
