/*
 * test_stream_power.c — ng.stream_power (nodes/stream_power.c): range-scale
 * drainage on the engine's world tiles of its own patch size (core/hood.c).
 * On one tile: after filling, every cell drains to the tile's edge with no
 * cycle, down a strictly falling filled surface, even from the pits of a
 * rough field; drainage area grows downstream and all of it leaves at the
 * edge; the valleys it cuts lie where drainage is high. Through the engine:
 * every region, tile size and thread count of a render, at the origin and
 * at 1e9 and through a small memory limit, is the whole render's bits, a
 * point evaluated alone too; a `tiles` farm render, stitched, is the single
 * render's file. Bad options, volume and 4D renders and a memory limit too
 * small are each one line naming the node, nothing written.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "hood_checks.h"
#include "ng_internal.h"
#include "stream_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 150, H = 110 };

/* A tile's side: 2 x 128 cells + 3 (core/hood.c). */
enum { TILE = 259 };

static int fbm_terrain(ng_graph *g, int seed)
{
    return t_fbm(g, t_noise(g, "perlin", 60, seed), 5, 2, 0.5);
}

/* Few iterations: the tests are of the plumbing and the promises, the
 * look is the README's. */
static int stream_power(ng_graph *g, int source, double spacing)
{
    ng_node *n = t_on(g, "stream_power", source);
    t_set(n, "spacing", spacing);
    t_set(n, "iterations", 6);
    t_set(n, "strength", 0.05);
    return t_finish_ok(g, n);
}

static int channel(ng_graph *g, int source, int index)
{
    ng_node *n = t_on(g, "channel", source);
    t_set(n, "index", index);
    return t_finish_ok(g, n);
}

/* The graphs under test: the node's 4 channels (spacing 1: the render
 * crosses tiles of 256 world units), and a warp of its eroded height
 * (positions off the grid, a spacing that is no power of two). */
enum { G_SP, G_WARPED, NGRAPHS };
static const char *const graph_names[NGRAPHS] = {"stream_power", "warp of stream_power"};
static const int graph_channels[NGRAPHS] = {4, 1};

static int make_graph(ng_graph *g, int which)
{
    const int src = fbm_terrain(g, 7);
    if (which == G_SP) return stream_power(g, src, 1);
    return t_warp(g, channel(g, stream_power(g, src, 0.75), 1), t_vnoise(g, "perlin", 40, 3), 9);
}

/* Every cut at origin `at`: tile 8 on one thread and 64 on three, tile 16
 * through a 36 MiB memory limit (tiles evicted and computed again), and
 * three regions aligned to nothing. Under the sanitizers (8x slower) one
 * of each kind, and the warped graph at the origin only. */
static void cuts_at(double at)
{
    static const t_cut every[] = {{8, 1, 0, {0}},
                                  {64, 3, 0, {0}},
                                  {16, 1, 36, {0}},
                                  {8, 1, 0, {0, 0, 37, 29}},
                                  {16, 2, 0, {41, 13, 70, 90}},
                                  {8, 1, 0, {149, 0, 1, 110}}},
                       sanitized[] = {{8, 1, 0, {0}}, {16, 1, 36, {0}}, {16, 2, 0, {41, 13, 70, 90}}};
    int which;
    for (which = 0; which < NGRAPHS; which++) {
        if (SANITIZED && which == G_WARPED && at != 0) continue;
        if (SANITIZED) t_cuts_equal(make_graph, which, graph_names[which], graph_channels[which], W, H, at, sanitized,
                                    sizeof sanitized / sizeof sanitized[0]);
        else t_cuts_equal(make_graph, which, graph_names[which], graph_channels[which], W, H, at, every,
                          sizeof every / sizeof every[0]);
    }
}

static void test_cuts_at_origin(void) { cuts_at(0); }
static void test_cuts_far_away(void) { cuts_at(1e9); }

/* The eroded height at a world point is a function of the point: asked
 * point by point (another anchor and block each), the render's bits. (Not
 * through the warp: a warped position's bits depend on its anchor.) */
static void test_value_is_a_function_of_the_point(void)
{
    ng_graph *g = ng_graph_new();
    t_pointwise_equal(g, channel(g, stream_power(g, fbm_terrain(g, 7), 0.75), 1), W, H, -1e9, 3e8);
    ng_graph_free(g);
}

/* A w x w field of ridges and valleys (sines) roughened by a hash, which
 * leaves pits everywhere: world heights about [-100, 100]. */
static void pitted_field(float *h, int w, double rough)
{
    int i, j;
    for (j = 0; j < w; j++)
        for (i = 0; i < w; i++) {
            const unsigned u = (unsigned)(i * 73856093u ^ j * 19349663u) * 2654435761u;
            h[j * w + i] = (float)(100 * (0.6 * sin(i * 0.05) * cos(j * 0.035) + 0.3 * sin((i + 2 * j) * 0.021) +
                                          rough * ((u >> 8) / 16777216.0 - 0.5)));
        }
}

static int on_ring(int w, int c) { return c % w == 0 || c / w == 0 || c % w == w - 1 || c / w == w - 1; }

/* Cells of the interior lower than all 8 neighbours. */
static int pits(const float *h, int w)
{
    int x, y, n = 0, a, b;
    for (y = 1; y < w - 1; y++)
        for (x = 1; x < w - 1; x++) {
            int low = 1;
            for (b = -1; b <= 1; b++)
                for (a = -1; a <= 1; a++)
                    if ((a || b) && h[(y + b) * w + x + a] <= h[y * w + x]) low = 0;
            n += low;
        }
    return n;
}

/* On one tile of a pitted field (thousands of pits), one step with fill
 * 1 and then with fill 0 (the pits left in the ground): every interior
 * cell's receiver is a neighbour strictly lower on the filled surface,
 * following receivers from any cell reaches the edge (no cycle, no sink
 * inside), every cell drains at least its own area, and the edge's cells
 * gather the whole tile's area: all the water leaves there (within 1e-5:
 * shared among several neighbours, the areas are rounded sums). */
static void test_every_cell_drains_to_the_edge(void)
{
    const int w = TILE, n = w * w;
    float *h = malloc((size_t)n * sizeof *h), *area = malloc((size_t)n * sizeof *area);
    float *z = malloc((size_t)n * sizeof *z);
    int32_t *rcv = malloc((size_t)n * sizeof *rcv);
    int fill, c;
    for (fill = 1; fill >= 0; fill--) {
        ng_sp_params p = {0.02f, 0.5f, 0.0f, 0.0f, (float)fill, 1.0f, 1};
        double out = 0;
        int bad_rcv = 0, bad_area = 0, stuck = 0, p0;
        pitted_field(h, w, 0.08);
        p0 = pits(h, w);
        CHECK(ng_stream_power_run(&p, h, h, area, rcv, z, w) == 0);
        for (c = 0; c < n; c++) {
            const int r = rcv[c];
            int steps = 0, at = c;
            bad_area += !(area[c] >= 1.0f);
            if (on_ring(w, c)) {
                bad_rcv += r != c;
                out += area[c];
                continue;
            }
            bad_rcv += r == c || abs(r % w - c % w) > 1 || abs(r / w - c / w) > 1 || !(z[r] < z[c]);
            while (!on_ring(w, at) && steps++ < n) at = rcv[at];
            stuck += !on_ring(w, at);
        }
        printf("  fill %d: %d pits in the ground; receivers not a lower neighbour: %d, cells draining less than "
               "themselves: %d, cells that never reach the edge: %d; area out at the edge %.3f of %d; pits left: "
               "%d\n",
               fill, p0, bad_rcv, bad_area, stuck, out, n, pits(h, w));
        CHECK(p0 > 1000);
        CHECK_INT(bad_rcv, 0);
        CHECK_INT(bad_area, 0);
        CHECK_INT(stuck, 0);
        CHECK_LE(fabs(out - n), 1e-5 * n);
        if (fill) CHECK_INT(pits(h, w), 0); /* filled: none left */
        else CHECK(pits(h, w) > p0 / 2);     /* left: the water crossed them */
    }
    free(h), free(area), free(z), free(rcv);
}

/* A w x w dome falling to the edges with ridges and valleys on it (no
 * closed basin to fill): world heights about [0, 130]. */
static void dome(float *h, int w)
{
    int i, j;
    for (j = 0; j < w; j++)
        for (i = 0; i < w; i++) {
            const double x = (i - w / 2.0) / (w / 2.0), y = (j - w / 2.0) / (w / 2.0);
            h[j * w + i] = (float)(100 * (1.2 - sqrt(x * x + y * y)) + 15 * sin(i * 0.09) * cos(j * 0.07) +
                                   8 * sin((i + 2 * j) * 0.05));
        }
}

/* The valleys are cut where drainage is high: over a dome with ridges
 * and valleys, at the node's defaults (spacing 16), the cells draining
 * 300 cells or more (the rivers) are lowered on average more than 3
 * times as much as the cells draining less than 3 (crests and hilltops,
 * which diffusion wears; measured 4.1 times), and the correlation
 * between log drainage and the height lowered is above 0.3 (measured
 * 0.43). */
static void test_valleys_where_drainage_is_high(void)
{
    const int w = TILE, n = w * w;
    float *h = malloc((size_t)n * sizeof *h), *h0 = malloc((size_t)n * sizeof *h0);
    float *area = malloc((size_t)n * sizeof *area);
    ng_sp_params p = {0.004f, 0.8f, 0.1f, 0.05f, 0.0f, 16.0f, 24};
    double river = 0, crest = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, corr;
    int nr = 0, nc = 0, c, m = 0;
    dome(h, w);
    memcpy(h0, h, (size_t)n * sizeof *h);
    CHECK(ng_stream_power_run(&p, h0, h, area, NULL, NULL, w) == 0);
    for (c = 0; c < n; c++) {
        const double wear = (double)h0[c] - h[c], a = log(area[c]);
        if (on_ring(w, c)) continue;
        if (area[c] >= 300 * 256) river += wear, nr++;
        if (area[c] < 3 * 256) crest += wear, nc++;
        sx += a, sy += wear, sxx += a * a, syy += wear * wear, sxy += a * wear, m++;
    }
    corr = (sxy - sx * sy / m) / sqrt((sxx - sx * sx / m) * (syy - sy * sy / m));
    printf("  mean height lowered: rivers (>= 300 cells, %d) %.3g, crests (< 3 cells, %d) %.3g; correlation of log "
           "drainage with it %.3f\n",
           nr, river / nr, nc, crest / nc, corr);
    CHECK(nr > 500 && nc > 1000);
    CHECK(river / nr > 3 * (crest / nc));
    CHECK(corr > 0.3);
    free(h), free(h0), free(area);
}

/* Through the node: drainage in [0, 1], wear and deposit at least 0, and
 * some of each somewhere; the height moved by deposit - wear (the source
 * is sampled from the lattice by a smooth cubic, which blurs it a little:
 * within 0.01 of the source's range of 2). */
static void test_masks(void)
{
    ng_graph *g = ng_graph_new();
    const int src = fbm_terrain(g, 3), root = stream_power(g, src, 1);
    ng_render_opts o;
    float *v, *s;
    double wear = 0, dep = 0, hi = 0;
    int i, bad = 0;
    t_opts(&o, 128, 128);
    v = t_render(g, root, &o);
    s = t_render(g, src, &o);
    for (i = 0; v && s && i < 128 * 128; i++) {
        const float *c = v + 4 * i;
        bad += !(c[1] >= 0 && c[1] <= 1 && c[2] >= 0 && c[3] >= 0);
        bad += !(fabsf(c[0] - s[i] - (c[3] - c[2])) < 0.01f);
        wear += c[2], dep += c[3];
        if (c[1] > hi) hi = c[1];
    }
    CHECK_INT(bad, 0);
    CHECK(v && wear > 0 && dep > 0 && hi > 0.5);
    free(v), free(s);
    ng_graph_free(g);
}

/* Under a tiny `height` (the ground nearly flat in world units) with
 * fill = 1 the filled ground stays near the source's own range: the
 * fill's drainage slope, fixed in world units, raised it to 5e8 for a
 * source in [0, 1]; it now climbs at most the tile's relief across the
 * tile, so a filled basin ends below the source's top plus its relief. */
static void test_tiny_height_stays_in_range(void)
{
    ng_graph *g = ng_graph_new();
    const int src = fbm_terrain(g, 4);
    ng_node *n = t_on(g, "stream_power", src);
    ng_render_opts o;
    float *v, *s;
    float lo = 1e30f, hi = -1e30f, slo = 1e30f, shi = -1e30f;
    int i;
    t_set(n, "tile", 32), t_set(n, "height", 1e-9), t_set(n, "fill", 1);
    t_opts(&o, 96, 96);
    v = t_render(g, t_finish_ok(g, n), &o), s = t_render(g, src, &o);
    for (i = 0; v && s && i < 96 * 96; i++) {
        lo = v[4 * i] < lo ? v[4 * i] : lo, hi = v[4 * i] > hi ? v[4 * i] : hi;
        slo = s[i] < slo ? s[i] : slo, shi = s[i] > shi ? s[i] : shi;
    }
    CHECKF(v && s && lo >= slo - 0.01f && hi <= shi + (shi - slo) + 0.01f,
           "eroded height %g to %g for a source in %g to %g", lo, hi, slo, shi);
    free(v), free(s);
    ng_graph_free(g);
}

/* ---- through the program --------------------------------------------------------------- */

/* A drained 1536^2 terrain (1024^2 under the sanitizers) on a farm of
 * 512^2 tiles (tiles of the simulation cross the farm's), stitched, is the
 * single render's file. */
static void test_cli_farm(void)
{
    const char *size = SANITIZED ? "1024x1024" : "1536x1536"; /* 2 x 2 or 3 x 3 farm tiles of 512 */
    char script[PATHLEN], dir[PATHLEN], pattern[PATHLEN], manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
    res r;
    mkscript(script, "farm.lua",
             "local n = ng.fbm{ng.perlin{element_size = 400, seed = 9}, octaves = 6}\n"
             "return ng.stream_power{n, spacing = 4, iterations = 6}:channel(1):fit(-0.7, 0.7, 0, 1, true)\n");
    mksub(dir, "farm");
    pathf(pattern, "%s/t_{x}_{y}.png", dir);
    pathf(manifest, "%s/manifest.json", dir);
    tpath(big, "stitched.png");
    tpath(single, "single.png");
    cli(&r, "tiles", script, "--size", size, "--tile-size", "512", "-o", pattern, "--bits", "16", "--quiet", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", big, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", script, "--size", size, "-o", single, "--bits", "16", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECKF(same_bytes(big, single), "the stitched tiles of the drained terrain differ from the single render");
    remove(big), remove(single);
}

/* Each bad input: one line naming the script's line, the node and what is
 * wrong; nothing written. */
static void test_bad_input(void)
{
    static const struct {
        const char *script, *args[3], *words[4];
    } cases[] = {
        {"return ng.stream_power{ng.perlin{}, iterations = 0}\n", {NULL}, {"stream_power", "iterations", NULL}},
        {"return ng.stream_power{ng.perlin{}, iterations = 300}\n", {NULL}, {"stream_power", "iterations", NULL}},
        {"return ng.stream_power{ng.perlin{}, strength = -1}\n", {NULL}, {"stream_power", "strength", NULL}},
        {"return ng.stream_power{ng.perlin{}, diffusion = 0.3}\n", {NULL}, {"stream_power", "diffusion", NULL}},
        {"return ng.stream_power{ng.perlin{}, area_exponent = 2}\n", {NULL}, {"stream_power", "area_exponent", NULL}},
        {"return ng.stream_power{ng.perlin{}, spacing = 0}\n", {NULL}, {"stream_power", "spacing", NULL}},
        {"return ng.stream_power{ng.perlin{}, tile = 2048}\n", {NULL}, {"stream_power", "tile", NULL}},
        {"return ng.stream_power{ng.perlin{}, tile = 101}\n", {NULL}, {"stream_power", "tile", NULL}},
        {"return ng.stream_power{ng.perlin{}}:channel(1)\n", {"--size", "32x32x8", NULL},
         {"stream_power", "2D", "3D"}},
        {"return ng.stream_power{ng.perlin{}}:channel(1)\n", {"--time", "1", NULL}, {"stream_power", "4D", NULL}},
        {"return ng.stream_power{ng.perlin{}}:channel(1)\n", {"--memory-limit", "8", NULL},
         {"stream_power", "--memory-limit", NULL}},
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

NG_SUITE(stream_power, fast)
{
    RUN(test_every_cell_drains_to_the_edge);
    RUN(test_valleys_where_drainage_is_high);
    RUN(test_masks);
    RUN(test_tiny_height_stays_in_range);
    RUN_FULL(test_cuts_at_origin);
    RUN_FULL(test_cuts_far_away);
    RUN(test_value_is_a_function_of_the_point);
    if (cli_setup("ng-stream")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    RUN_FULL(test_cli_farm);
    RUN(test_bad_input);
    cli_teardown();
}
