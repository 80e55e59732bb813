/*
 * test_weathering.c — ng.thermal and ng.hydraulic (nodes/weathering.c) on
 * the engine's neighbourhood lattice, hydraulic on its overlapping world
 * tiles (core/hood.c). Every region, tile size and thread count of a
 * render, at the origin and at 1e9, is the whole render's bits, through a
 * small memory limit too; a `tiles` farm render of an eroded 8192^2
 * terrain, stitched, is the single render's file. Thermal relaxation
 * keeps the total height of a closed domain and brings its slopes to the
 * talus; droplets' eroded and deposited volumes balance; the masks are
 * what they say; a render in reused, NaN-filled patch memory gives the
 * bits of one in fresh memory. Bad options, volume and 4D renders and a
 * memory limit too small are each one line naming the node, nothing
 * written.
 *
 * Under the sanitizers the farm render is 2048^2 and the droplets fewer.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_internal.h"
#include "hood_checks.h"
#include "weathering.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { W = 150, H = 110 };

static int fbm_terrain(ng_graph *g, int seed)
{
    return t_fbm(g, t_noise(g, "perlin", 60, seed), 5, 2, 0.5);
}

static int thermal(ng_graph *g, int source, double talus, int iterations, double spacing)
{
    ng_node *n = t_on(g, "thermal", source);
    t_set(n, "talus", talus);
    t_set(n, "iterations", iterations);
    t_set(n, "spacing", spacing);
    return t_finish_ok(g, n);
}

/* Few droplets: the tests are of the plumbing, the look is the README's. */
static int hydraulic(ng_graph *g, int source, double spacing)
{
    ng_node *n = t_on(g, "hydraulic", source);
    t_set(n, "spacing", spacing);
    t_set(n, "droplets", SANITIZED ? 0.02 : 0.1);
    return t_finish_ok(g, n);
}

static int channel(ng_graph *g, int source, int index)
{
    ng_node *n = t_on(g, "channel", source);
    t_set(n, "index", index);
    return t_finish_ok(g, n);
}

/* The graphs under test: a thermal relaxation; the hydraulic node's 4
 * channels; a warp of the eroded height (positions off the grid); a
 * thermal relaxation of the eroded height (a filter over tiles). */
enum { G_THERMAL, G_HYDRO, G_WARPED, G_NESTED, NGRAPHS };
static const char *const graph_names[NGRAPHS] = {"thermal", "hydraulic", "warp of hydraulic",
                                                 "thermal of hydraulic"};
static const int graph_channels[NGRAPHS] = {1, 4, 1, 1};

static int make_graph(ng_graph *g, int which)
{
    const int src = fbm_terrain(g, 7);
    switch (which) {
    case G_THERMAL: return thermal(g, src, 20, 12, 1.5);
    case G_HYDRO: return hydraulic(g, src, 1.5);
    case G_WARPED: return t_warp(g, channel(g, hydraulic(g, src, 1), 1), t_vnoise(g, "perlin", 40, 3), 9);
    default: return thermal(g, channel(g, hydraulic(g, src, 2), 1), 30, 4, 1);
    }
}

/* Every cut at origin `at`: tiles 8 and 64 on one and three threads, tile
 * 16 through a 12 MiB memory limit (tiles evicted and computed again),
 * three regions aligned to nothing; under the sanitizers tile 8 on one
 * thread and 64 on three. */
static void cuts_at(double at)
{
    static const t_cut every[] = {{8, 1, 0, {0}},
                                  {8, 3, 0, {0}},
                                  {64, 1, 0, {0}},
                                  {64, 3, 0, {0}},
                                  {16, 1, 12, {0}},
                                  {8, 1, 0, {0, 0, 37, 29}},
                                  {16, 2, 0, {41, 13, 70, 90}},
                                  {8, 1, 0, {149, 0, 1, 110}}},
                       sanitized[] = {{8, 1, 0, {0}},           {64, 3, 0, {0}},
                                      {16, 1, 12, {0}},         {8, 1, 0, {0, 0, 37, 29}},
                                      {16, 2, 0, {41, 13, 70, 90}}, {8, 1, 0, {149, 0, 1, 110}}};
    int which;
    for (which = 0; which < NGRAPHS; which++) {
        if (SANITIZED) t_cuts_equal(make_graph, which, graph_names[which], graph_channels[which], W, H, at, sanitized,
                                    sizeof sanitized / sizeof sanitized[0]);
        else t_cuts_equal(make_graph, which, graph_names[which], graph_channels[which], W, H, at, every,
                          sizeof every / sizeof every[0]);
    }
}

static void test_cuts_at_origin(void) { cuts_at(0); }
static void test_cuts_far_away(void) { cuts_at(1e9); }

/* The eroded height at a world point is a function of the point: asked
 * point by point (another anchor and block each), the render's bits. */
static void test_value_is_a_function_of_the_point(void)
{
    ng_graph *g = ng_graph_new();
    t_pointwise_equal(g, make_graph(g, G_NESTED), W, H, -1e9, 3e8);
    ng_graph_free(g);
}

/* A rough w x w height field: sines and a hash, heights about [-1, 1]. */
static void rough_field(float *h, int w, double step)
{
    int i, j;
    for (j = 0; j < w; j++)
        for (i = 0; i < w; i++) {
            const unsigned u = (unsigned)(i * 73856093u ^ j * 19349663u) * 2654435761u;
            h[j * w + i] = (float)(0.6 * sin(i * step * 0.11) * cos(j * step * 0.07) + 0.3 * sin((i + 2 * j) * step * 0.23) +
                                   0.1 * ((u >> 8) / 16777216.0 - 0.5));
        }
}

static double total(const float *h, size_t n)
{
    double s = 0;
    size_t i;
    for (i = 0; i < n; i++) s += h[i];
    return s;
}

/* Largest height difference between straight neighbours. */
static double steepest(const float *h, int w)
{
    double m = 0;
    int i, j;
    for (j = 0; j < w; j++)
        for (i = 0; i < w; i++) {
            if (i + 1 < w) m = fmax(m, fabs((double)h[j * w + i + 1] - h[j * w + i]));
            if (j + 1 < w) m = fmax(m, fabs((double)h[(j + 1) * w + i] - h[j * w + i]));
        }
    return m;
}

/* Edges of the w x w field h steeper than `limit` between straight
 * neighbours. */
static int steeper(const float *h, int w, double limit)
{
    int i, j, n = 0;
    for (j = 0; j < w; j++)
        for (i = 0; i < w; i++) {
            if (i + 1 < w) n += fabs((double)h[j * w + i + 1] - h[j * w + i]) > limit;
            if (j + 1 < w) n += fabs((double)h[(j + 1) * w + i] - h[j * w + i]) > limit;
        }
    return n;
}

/* Thermal relaxation of a closed domain keeps its total height within
 * 1e-6 of the sum of |h| (floats round each addition; measured 6e-9).
 * Slopes above the talus slide until none is left: a small domain (a
 * long slope relaxes by diffusion, slowly) goes from 80% of its edges
 * steeper than the talus to none 5% steeper. */
static void test_thermal_keeps_height_and_reaches_talus(void)
{
    enum { N = 96, SMALL = 24, LONG = 4000 };
    const float talus = 0.02f;
    float *h = malloc(N * N * sizeof *h), rows[2 * N];
    double before, after, mag = 0, s0;
    int i, e0;
    rough_field(h, N, 1.0);
    before = total(h, N * N);
    for (i = 0; i < N * N; i++) mag += fabs(h[i]);
    ng_thermal_relax(h, rows, N, 400, talus, talus * (float)sqrt(2.0));
    after = total(h, N * N);
    CHECK_LE(fabs(after - before), 1e-6 * mag);
    rough_field(h, SMALL, 1.0);
    s0 = steepest(h, SMALL);
    e0 = steeper(h, SMALL, talus * 1.05);
    ng_thermal_relax(h, rows, SMALL, LONG, talus, talus * (float)sqrt(2.0));
    printf("  thermal: total height %.9g before, %.9g after 400 steps (error %.2g of sum |h|); %dx%d, %d steps: "
           "steepest %.4g -> %.4g (talus %.4g), edges over 1.05 talus %d -> %d\n",
           before, after, fabs(after - before) / mag, SMALL, SMALL, LONG, s0, steepest(h, SMALL), talus, e0,
           steeper(h, SMALL, talus * 1.05));
    CHECK(e0 > SMALL * (SMALL - 1));
    CHECK_INT(steeper(h, SMALL, talus * 1.05), 0);
    CHECK_LE(steepest(h, SMALL), talus * 1.05);
    free(h);
}

/* Droplets on a closed tile: the volume eroded (the sum of wear) and the
 * volume deposited (the sum of deposit) balance within 1e-4 of the eroded
 * volume (each droplet drops what it carries when it stops; floats round;
 * measured ~1e-6), and the height changed by deposit - wear. */
static void test_hydraulic_volumes_balance(void)
{
    enum { N = 131 };
    const size_t n = (size_t)N * N;
    ng_hydro_params p = {1, 48, 0.05f, 4, 0.01f, 0.3f, 0.3f, 0.02f, 4, 0, 0, NULL, NULL, NULL};
    int8_t bx[NG_HYDRO_BRUSH_MAX], by[NG_HYDRO_BRUSH_MAX];
    float bw[NG_HYDRO_BRUSH_MAX];
    float *h = malloc(5 * n * sizeof *h), *h0 = h + n, *flow = h + 2 * n, *wear = h + 3 * n, *dep = h + 4 * n;
    double eroded, deposited, change;
    int64_t steps;
    size_t i;
    ng_hydro_brush(&p, 2, bx, by, bw);
    rough_field(h, N, 0.5);
    memcpy(h0, h, n * sizeof *h);
    memset(flow, 0, 3 * n * sizeof *h);
    steps = ng_hydro_run(&p, h, flow, wear, dep, N, 128, 12345);
    eroded = total(wear, n), deposited = total(dep, n), change = total(h, n) - total(h0, n);
    printf("  hydraulic: %lld droplet steps; eroded volume %.6g, deposited %.6g (balance error %.2g of eroded); "
           "height change %.3g\n",
           (long long)steps, eroded, deposited, fabs(eroded - deposited) / eroded, change);
    CHECK(steps > 16384 * 10);
    CHECK(eroded > 1);
    CHECK_LE(fabs(eroded - deposited), 1e-4 * eroded);
    CHECK_LE(fabs(change), 1e-4 * eroded);
    for (i = 0; i < n; i++)
        if (wear[i] < 0 || dep[i] < 0 || flow[i] < 0) break;
    CHECKF(i == n, "cell %zu: wear %g, deposit %g, flow %g, all should be at least 0", i, wear[i], dep[i], flow[i]);
    free(h);
}

/* Through the node: the masks are at least 0, there is wear and deposit
 * and flow somewhere, and the eroded height moved by about deposit - wear. */
static void test_hydraulic_masks(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_on(g, "hydraulic", fbm_terrain(g, 3));
    ng_render_opts o;
    float *v;
    double wear = 0, dep = 0, flow = 0;
    int root, i;
    t_set(n, "spacing", 1);
    root = t_finish_ok(g, n);
    t_opts(&o, 128, 128);
    v = t_render(g, root, &o);
    for (i = 0; v && i < 128 * 128; i++) {
        CHECK(v[4 * i + 1] >= 0 && v[4 * i + 2] >= 0 && v[4 * i + 3] >= 0);
        flow += v[4 * i + 1], wear += v[4 * i + 2], dep += v[4 * i + 3];
    }
    CHECK(v && flow > 0 && wear > 0 && dep > 0);
    free(v);
    ng_graph_free(g);
}

/* ---- through the program --------------------------------------------------------------- */

/* The render's wear and deposit balance, not only a tile's: a cone (its
 * rim and everything past it flat, so no material crosses the image's
 * border) sheds sediment from its flanks to its foot, where the tiles'
 * blend windows weigh less; each tile scales its deposit so its windowed
 * change sums to 0 (nodes/weathering.c: balance_tile). Stated
 * tolerance: 1e-3 of the eroded volume (measured 7e-5, 2.4e-7 with the
 * sanitizers' fewer droplets; 4.2 % of the deposit went missing before).
 * The height's own total is not compared with the source's at the
 * pixels: the lattice's bilinear reading of the cone's kinks moves it
 * by about 0.1 whatever the droplets. */
static void test_hydraulic_render_balances(void)
{
    static const char *const SCRIPT =
        "local dx, dy = ng.x() - 512, ng.y() - 512\n"
        "local m = (1 - (dx * dx + dy * dy):sqrt() / 160):clamp(0, 1)\n"
        "local h = m * 0.8 + ng.fbm{ng.perlin{element_size = 64, seed = 2}, octaves = 4} * 0.1 * m\n"
        "local e = ng.hydraulic{h, droplets = %g}\n"
        "return {src = h, e1 = e:channel(1), w = e:channel(3), d = e:channel(4)}\n";
    static const char *const parts[4] = {"src", "e1", "w", "d"};
    char script[PATHLEN], out[PATHLEN], file[PATHLEN + 16], text[1024];
    double sum[4] = {0, 0, 0, 0};
    res r;
    int k, i;
    snprintf(text, sizeof text, SCRIPT, SANITIZED ? 0.1 : 1.0);
    mkscript(script, "cone.lua", text);
    tpath(out, "cone.r32");
    cli(&r, "render", script, "-o", out, "--size", "512", "--pixel-size", "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (k = 0; k < 4; k++) { /* .r32: the floats alone, row after row */
        size_t len = 0;
        unsigned char *bytes;
        snprintf(file, sizeof file, "%.*s-%s.r32", (int)(strlen(out) - 4), out, parts[k]);
        bytes = slurp(file, &len);
        CHECK(bytes && len == 512 * 512 * sizeof(float));
        for (i = 0; bytes && len == 512 * 512 * sizeof(float) && i < 512 * 512; i++) {
            float v;
            memcpy(&v, bytes + (size_t)i * sizeof v, sizeof v);
            sum[k] += v;
        }
        free(bytes);
    }
    printf("  hydraulic render: eroded %.6g, deposited %.6g (balance error %.2g of eroded)\n", sum[2], sum[3],
           fabs(sum[3] - sum[2]) / sum[2]);
    CHECK(sum[2] > 10);
    CHECK_LE(fabs(sum[3] - sum[2]), 1e-3 * sum[2]);
}

/* An eroded 8192^2 terrain (2048^2 sanitized) on a farm of 2048^2 tiles,
 * stitched, is the single render's file byte for byte (written
 * --no-provenance: the stitched file records none). */
static void test_cli_farm_8192(void)
{
    char script[PATHLEN], dir[PATHLEN], pattern[PATHLEN], manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
    const char *size = SANITIZED ? "2048x2048" : "8192x8192", *tile = SANITIZED ? "768" : "2048";
    res r;
    mkscript(script, "farm.lua",
             "local n = ng.fbm{ng.perlin{element_size = 1500, seed = 9}, octaves = 6}\n"
             "return ng.hydraulic{n, spacing = 32, droplets = 0.5}:channel(1):fit(-0.7, 0.7, 0, 1, true)\n");
    mksub(dir, "farm");
    pathf(pattern, "%s/t_{x}_{y}.png", dir);
    pathf(manifest, "%s/manifest.json", dir);
    tpath(big, "stitched.png");
    tpath(single, "single.png");
    cli(&r, "tiles", script, "--size", size, "--tile-size", tile, "-o", pattern, "--bits", "16", "--quiet", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", big, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    /* a stitched file carries no provenance: the single render leaves it out too */
    cli(&r, "render", script, "--size", size, "-o", single, "--bits", "16", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECKF(same_bytes(big, single), "the stitched tiles of the eroded terrain differ from the single render");
    remove(big), remove(single);
}

/* Each bad input: one line naming the script's line, the node and what is
 * wrong; nothing written. */
static void test_bad_input(void)
{
    static const struct {
        const char *script, *args[3], *words[4];
    } cases[] = {
        {"return ng.hydraulic{ng.perlin{}, droplets = 0}\n", {NULL}, {"hydraulic", "droplets", NULL}},
        {"return ng.hydraulic{ng.perlin{}, iterations = 5000}\n", {NULL}, {"hydraulic", "iterations", NULL}},
        {"return ng.hydraulic{ng.perlin{}, radius = 9}\n", {NULL}, {"hydraulic", "radius", NULL}},
        {"return ng.thermal{ng.perlin{}, iterations = 0}\n", {NULL}, {"thermal", "iterations", NULL}},
        {"return ng.thermal{ng.perlin{}, talus = 90}\n", {NULL}, {"thermal", "talus", NULL}},
        {"return ng.hydraulic{ng.perlin{}}:channel(1)\n", {"--size", "32x32x8", NULL}, {"hydraulic", "2D", "3D"}},
        {"return ng.thermal{ng.perlin{}}\n", {"--time", "1", NULL}, {"thermal", "4D", NULL}},
        {"return ng.hydraulic{ng.perlin{}}:channel(1)\n", {"--memory-limit", "4", NULL},
         {"hydraulic", "--memory-limit", NULL}},
    };
    char script[PATHLEN], out[PATHLEN];
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        res r;
        mkscript(script, "bad.lua", cases[k].script);
        tpath(out, cases[k].args[0] && !strcmp(cases[k].args[1], "32x32x8") ? "never.nrrd" : "never.png");
        cli(&r, "render", script, "-o", out, cases[k].args[0], cases[k].args[1], NULL);
        expect_err(__FILE__, __LINE__, &r, 1, cases[k].words[2] ? cases[k].words : (const char *const[]){
                                                  cases[k].words[0], cases[k].words[1], "bad.lua:1", NULL});
        CHECKF(!exists(out), "case %zu: %s was written", k, out);
        res_free(&r);
    }
}

/* Patch memory is kept for reuse (core/slab.c): a thermal relaxation of
 * hydraulic erosion (tiles, their blend, a filter over it) rendered again
 * in the memory the first render freed, filled with NaN first, gives the
 * same bits: nothing of an earlier patch or tile leaks into a later one. */
static void test_patch_memory_reused(void)
{
    ng_render_opts o;
    long chunks = 0;
    t_opts(&o, W, H);
    CHECK(t_same_in_reused_memory(make_graph, G_NESTED, &o, (size_t)W * H, &chunks));
    CHECK(chunks > 0);
}

NG_SUITE(weathering, fast)
{
    RUN(test_thermal_keeps_height_and_reaches_talus);
    RUN(test_hydraulic_volumes_balance);
    RUN(test_hydraulic_masks);
    RUN_FULL(test_cuts_at_origin);
    RUN_FULL(test_cuts_far_away);
    RUN(test_value_is_a_function_of_the_point);
    RUN(test_patch_memory_reused);
    if (cli_setup("ng-weather")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    RUN_FULL(test_cli_farm_8192);
    RUN(test_hydraulic_render_balances);
    RUN(test_bad_input);
    cli_teardown();
}
