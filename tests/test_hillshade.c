/*
 * test_hillshade.c — the lit terrain's gradient path (issue 14, item 3):
 * a consumer that reads 2 of a vector field's 3 channels asks for 2
 * (ng_pull_grad_channels) and gets the same bits as the 3-channel pull in
 * them; a lit warped fBm terrain's analytic gradient is the one central
 * differences measure; and in the lit render the field is evaluated once
 * per octave, for 2 channels, by its gradient alone.
 */
#include "build.h"
#include "harness.h"
#include "ng_internal.h"
#include "suites.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { NPTS = 96 };

/* A consumer stand-in whose input 0 is root, and a block of NPTS points. */
typedef struct bench_ctx {
    int *uses;
    ng_ctx *c;
    ng_node consumer;
    float pos[4][NPTS];
    ng_block b;
} bench_ctx;

static int open_at(bench_ctx *P, const ng_graph *g, int root, int dims, const double *anchor)
{
    ng_error err;
    unsigned seed = 12345u;
    int d, i;
    memset(P, 0, sizeof *P);
    P->uses = ng__uses(g, &root, 1);
    P->c = P->uses ? ng__ctx_new(g, P->uses, NPTS, &err) : NULL;
    P->consumer.input[0] = root;
    if (!P->c) return -1;
    P->b.n = NPTS;
    P->b.dims = dims;
    P->b.channels = 1;
    for (d = 0; d < 4; d++) P->b.p[d] = ng__ctx_zeros(P->c);
    for (d = 0; d < dims; d++) {
        P->b.anchor[d] = anchor[d];
        for (i = 0; i < NPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            P->pos[d][i] = (float)((seed >> 8) * (300.0 / 16777216.0));
        }
        P->b.p[d] = P->pos[d];
    }
    return 0;
}

static void close_ctx(bench_ctx *P)
{
    ng__ctx_free(P->c);
    free(P->uses);
}

/* ---- 2 channels asked: the 3-channel pull's first 2, bit for bit ---------- */

static int vector_field(ng_graph *g, const char *type, int fractal)
{
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", 70);
    t_set(n, "seed", 8);
    t_choose(n, "output", "vector");
    if (fractal) {
        t_choose(n, "fractal", "fbm");
        t_set(n, "octaves", 3);
    }
    return t_finish(g, n);
}

static void test_two_channels_are_the_first_two_of_three(void)
{
    static const char *const types[] = {"simplex", "perlin", "value"};
    static const double anchor[3] = {-2047.5, 311.25, 17};
    static float o3[NG_MAX_CHANNELS * NPTS], g3[NG_MAX_PLANES * NPTS];
    static float o2[NG_MAX_CHANNELS * NPTS], g2[NG_MAX_PLANES * NPTS];
    int t, fractal, dims;
    for (t = 0; t < 3; t++)
        for (fractal = 0; fractal < 2; fractal++)
            for (dims = 2; dims <= 3; dims++) {
                ng_graph *g = ng_graph_new();
                const int root = vector_field(g, types[t], fractal);
                bench_ctx P;
                size_t vals = 2 * NPTS, planes = (size_t)2 * (size_t)dims * NPTS;
                CHECK_INT(ng_node_channels(ng_graph_node(g, root)), 3);
                if (open_at(&P, g, root, dims, anchor)) {
                    CHECKF(0, "no context");
                    ng_graph_free(g);
                    continue;
                }
                P.b.pos_id = ng__ctx_tile(P.c);
                CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, o3, g3, 0) == 0);
                memset(o2, 0x7f, sizeof o2), memset(g2, 0x7f, sizeof g2);
                P.b.pos_id = ng__ctx_tile(P.c);
                CHECK(ng_pull_grad_channels(P.c, &P.consumer, 0, &P.b, o2, g2, 0, 2) == 0);
                CHECKF(!memcmp(o2, o3, vals * sizeof(float)), "%s%s %dD: values of 2 channels differ from 3's",
                       types[t], fractal ? " fbm" : "", dims);
                CHECKF(!memcmp(g2, g3, planes * sizeof(float)), "%s%s %dD: gradients of 2 channels differ from 3's",
                       types[t], fractal ? " fbm" : "", dims);
                close_ctx(&P);
                ng_graph_free(g);
            }
}

/* ---- the lit terrain's gradient against central differences ---------------- */

/* the height of tests/bench/terrain_light.lua: perlin warped by a simplex
 * field, 7 octaves of fBm, fit and clamped; the field's warp in `octaves`
 * octaves (2: the progressive path through the Jacobian), amount a number
 * or a mask node */
static int lit_height(ng_graph *g, int by, double octaves, int masked)
{
    ng_node *n = t_begin(g, "warp");
    int h;
    t_in(g, n, "source", t_noise(g, "perlin", 256, 7));
    t_in(g, n, "by", by);
    t_in(g, n, "amount", masked ? t_bin(g, "mul", t_noise(g, "simplex", 500, 2), t_const(g, 60)) : t_const(g, 60));
    t_set(n, "octaves", octaves);
    h = t_fbm(g, t_finish(g, n), 7, 2.03, 0.5);
    n = t_on(g, "fit", h);
    t_set(n, "from_lo", -0.45), t_set(n, "from_hi", 0.45), t_set(n, "to_lo", 0), t_set(n, "to_hi", 1);
    return t_finish(g, n);
}

static void expect_differences(const char *what, const ng_graph *g, int root)
{
    static const double anchors[2][3] = {{0, 0, 0}, {98765.25, -4321.5, 0}};
    static float out[NPTS], val[NPTS], ref[NPTS], ga[2 * NPTS], gd[2 * NPTS];
    long big = 0, count = 0;
    double scale2 = 0;
    int a, i;
    for (a = 0; a < 2; a++) {
        bench_ctx P;
        if (open_at(&P, g, root, 2, anchors[a])) {
            CHECKF(0, "no context");
            return;
        }
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, out, ga, 0) == 0);
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng_pull_grad(P.c, &P.consumer, 0, &P.b, ref, gd, 0.02) == 0);
        P.b.pos_id = ng__ctx_tile(P.c);
        CHECK(ng__eval(P.c, P.consumer.input[0], &P.b, val, 0) == 0);
        CHECKF(!memcmp(out, val, sizeof out), "%s: the value with the gradient is not eval's", what);
        for (i = 0; i < 2 * NPTS; i++) scale2 += (double)ga[i] * ga[i];
        for (i = 0; i < 2 * NPTS; i++, count++)
            if (fabs((double)ga[i] - gd[i]) > 0.02 * sqrt(scale2 / (2.0 * NPTS * (a + 1)))) big++;
        close_ctx(&P);
    }
    CHECKF(scale2 > 0, "%s: zero gradient", what);
    /* the clamp of the fit is a kink a difference step may cross: a few */
    CHECKF(big * 100 <= count * 3, "%s: %ld of %ld components off by more than 2%% of the RMS", what, big, count);
}

static void test_lit_terrain_gradient_matches_differences(void)
{
    int octaves, masked;
    for (octaves = 1; octaves <= 2; octaves++)
        for (masked = 0; masked < 2; masked++) {
            ng_graph *g = ng_graph_new();
            char what[80];
            const int root = lit_height(g, t_vnoise(g, "simplex", 384, 8), octaves, masked);
            snprintf(what, sizeof what, "lit terrain, warp of %d octave(s)%s", octaves, masked ? ", masked" : "");
            expect_differences(what, g, root);
            ng_graph_free(g);
        }
}

/* ---- the field, counted, in the lit render --------------------------------- */

static atomic_int field_evals, field_grads, field_channels_max;

/* sin/cos waves (world units), channel c shifted by c */
static void wave(const ng_block *b, float *out, float *grad, int channels)
{
    int i, c, d;
    for (c = 0; c < channels; c++)
        for (i = 0; i < b->n; i++) {
            const double x = b->anchor[0] + b->p[0][i] + 7 * c, y = b->anchor[1] + b->p[1][i];
            out[(size_t)c * b->n + i] = (float)(sin(0.01 * x) * cos(0.013 * y));
            if (!grad) continue;
            for (d = 0; d < b->dims; d++)
                grad[((size_t)c * (size_t)b->dims + (size_t)d) * (size_t)b->n + i] =
                    (float)(d == 0 ? 0.01 * cos(0.01 * x) * cos(0.013 * y)
                            : d == 1 ? -0.013 * sin(0.01 * x) * sin(0.013 * y) : 0);
        }
}

static int field_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx, (void)in;
    atomic_fetch_add(&field_evals, 1);
    wave(b, out, NULL, ng_node_channels(n));
    return 0;
}

static int field_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    int seen = atomic_load(&field_channels_max);
    (void)ctx;
    atomic_fetch_add(&field_grads, 1);
    while (b->channels > seen && !atomic_compare_exchange_weak(&field_channels_max, &seen, b->channels)) continue;
    wave(b, out, grad, b->channels < ng_node_channels(n) ? b->channels : ng_node_channels(n));
    return 0;
}

static int field_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch, (void)err;
    n->channels = 3;
    return 0;
}

static const ng_node_type field_type = {
    .name = "field", .family = "test", .doc = "a 3-channel field that counts its evaluations", .dims = 0x1Eu,
    .setup = field_setup, .eval_grad = field_eval_grad, .eval = field_eval,
};

static void test_lit_render_evaluates_the_field_once_per_octave(void)
{
    static float out[NPTS];
    static const double anchor[3] = {512, -256, 0};
    ng_graph *g = ng_graph_new();
    ng_error err;
    ng_node *n = ng_node_begin(g, &field_type, "field", NULL, &err);
    const int field = n ? ng_node_finish(g, n, &err) : -1;
    const int height = lit_height(g, field, 1, 0);
    int light, root;
    bench_ctx P;
    n = t_begin(g, "smax");
    t_in(g, n, "a", height), t_in(g, n, "b", t_const(g, 0.3));
    n = t_on(g, "light", t_finish(g, n));
    t_set(n, "height", 100);
    t_vec(n, "light", -1, -1, 1.2);
    light = t_finish(g, n);
    root = t_bin(g, "mul", height, t_bin(g, "add", t_bin(g, "mul", light, t_const(g, 0.7)), t_const(g, 0.3)));
    if (field < 0 || open_at(&P, g, root, 2, anchor)) {
        CHECKF(0, "no graph or context");
        ng_graph_free(g);
        return;
    }
    atomic_store(&field_evals, 0), atomic_store(&field_grads, 0), atomic_store(&field_channels_max, 0);
    P.b.pos_id = ng__ctx_tile(P.c);
    CHECK(ng__eval(P.c, root, &P.b, out, 0) == 0);
    CHECKF(atomic_load(&field_evals) == 0, "the field was evaluated %d times for values alone",
           atomic_load(&field_evals));
    CHECKF(atomic_load(&field_grads) == 7, "the field's gradient was computed %d times for 7 octaves",
           atomic_load(&field_grads));
    CHECKF(atomic_load(&field_channels_max) == 2, "the 2D warp asked the field for %d channels, not 2",
           atomic_load(&field_channels_max));
    close_ctx(&P);
    ng_graph_free(g);
}

void suite_hillshade(void)
{
    RUN(test_two_channels_are_the_first_two_of_three);
    RUN(test_lit_terrain_gradient_matches_differences);
    RUN(test_lit_render_evaluates_the_field_once_per_octave);
}
